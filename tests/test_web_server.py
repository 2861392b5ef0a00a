"""``wargames serve`` (issue 16): every route of ``wargames_web.app``, bad and stale input, the
checkpoints folder as the only readable place, per-tab games freed on close or idle, and the
per-player view (Kulikovo's Mongol sees no ambush hexes and no real Dmitri)."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from wargame_envs import make  # noqa: E402
from wargame_envs.core.records import GameRecord, replay_final  # noqa: E402
from wargames_cli.cli import main as cli_main  # noqa: E402
from wargames_web.app import MAX_BODY, create_app  # noqa: E402
from wargames_web.games import Config, PlayGame, Sessions, WebInputError  # noqa: E402

BATTLES = ("berestechko", "breitenfeld", "kulikovo")


@pytest.fixture
def client():
    return TestClient(create_app())


def new_game(client, battle="berestechko", seats=("human", "random"), seed=1, **extra):
    r = client.post("/api/games", json={"battle": battle, "seats": list(seats), "seed": seed, **extra})
    assert r.status_code == 200, r.text
    return r.json()


def error(response, status: int) -> str:
    assert response.status_code == status, response.text[:400]
    return response.json()["error"]


# ---------------------------------------------------------------------------- page and battles
def test_the_page_its_files_and_the_battles_with_pictures(client):
    page = client.get("/")
    assert page.status_code == 200 and 'id="map"' in page.text and "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/static/..%2Fgames.py").status_code == 404       # nothing outside static/
    battles = client.get("/api/battles").json()
    assert [b["name"] for b in battles] == list(BATTLES)
    for b in battles:
        assert {"random", "scripted", "mcts"} <= set(b["opponents"])
        assert not any(o.startswith("ckpt:") for o in b["opponents"])   # no --checkpoints folder
        svg = client.get(b["picture"])
        assert svg.headers["content-type"].startswith("image/svg+xml")
        assert svg.text.startswith("<svg") and svg.text.count('class="hex') > 40 and 'class="counter' in svg.text
    assert "error" in client.get("/api/battles/waterloo/picture.svg").json()


# ---------------------------------------------------------------------------- playing
@pytest.mark.parametrize("battle", BATTLES)
def test_a_new_game_shows_the_persons_options_and_the_hexes_they_name(client, battle):
    view = new_game(client, battle, seats=("human", "scripted"), seed=3)
    assert view["kind"] == "play" and view["you"] == view["sides"][0]["agent"]
    assert view["options"] and not view["over"] and view["to_move"] == view["you"]
    map_hexes = set(re.findall(r'<polygon class="hex[^"]*" data-hex="([^"]+)"', view["svg"]))
    legal_hexes = set(re.findall(r'<polygon class="hex legal" data-hex="([^"]+)"', view["svg"]))
    named = {h for o in view["options"] for h in o["hexes"]}
    assert named <= map_hexes and legal_hexes == named
    assert view["tracks"][0].startswith("View: ") and view["seats"] == dict(zip([s["agent"] for s in view["sides"]],
                                                                                 ["human", "scripted"]))


def test_legal_actions_advance_and_bad_ones_are_refused_while_the_game_goes_on(client):
    view = new_game(client)
    sid, decision = view["session"], view["decision"]
    legal = {o["action"] for o in view["options"]}
    illegal = next(a for a in range(200) if a not in legal)
    url = f"/api/games/{sid}/act"
    assert "is not legal now" in error(client.post(url, json={"action": illegal, "decision": decision}), 400)
    for bad in ("3", True, 2.5, None, [1], -1, 10**6):
        msg = error(client.post(url, json={"action": bad, "decision": decision}), 400)
        assert msg.startswith("action = ")
    assert error(client.post(url, json={"action": min(legal)}), 400).startswith("decision = ")
    assert "not valid JSON" in error(client.post(url, content=b"{not json"), 400)
    assert "expected a JSON object" in error(client.post(url, json=[1, 2]), 400)
    assert error(client.post(url, content=b"x" * (MAX_BODY + 1)), 413)
    stale = client.post(url, json={"action": min(legal), "decision": decision + 7})
    assert "stale action" in error(stale, 409) and stale.json()["view"]["decision"] == decision
    after = client.post(url, json={"action": min(legal), "decision": decision})   # the game went on untouched
    assert after.status_code == 200 and after.json()["decision"] > decision
    assert "stale action" in error(client.post(url, json={"action": min(legal), "decision": decision}), 409)


def test_a_new_game_checks_every_field(client, tmp_path):
    post = lambda body: client.post("/api/games", json=body)  # noqa: E731
    ok = {"battle": "berestechko", "seats": ["human", "random"], "seed": 1}
    assert "battle = 'waterloo'" in error(post({**ok, "battle": "waterloo"}), 400)
    assert "battle = 7" in error(post({**ok, "battle": 7}), 400)
    assert "seats" in error(post({**ok, "seats": ["human"]}), 400)
    assert "seats" in error(post({**ok, "seats": "human,random"}), 400)
    assert "at most one human" in error(post({**ok, "seats": ["human", "human"]}), 400)
    assert "'mcts:0'" in error(post({**ok, "seats": ["human", "mcts:0"]}), 400)
    assert "at most mcts:1000" in error(post({**ok, "seats": ["human", "mcts:5000"]}), 400)
    assert "'nobody'" in error(post({**ok, "seats": ["human", "nobody"]}), 400)
    assert "agent = 3" in error(post({**ok, "seats": ["human", 3]}), 400)
    assert "seed = -1" in error(post({**ok, "seed": -1}), 400)
    assert "seed = '1'" in error(post({**ok, "seed": "1"}), 400)
    assert "unknown fields ['board']" in error(post({**ok, "board": 1}), 400)
    assert "options = " in error(post({**ok, "options": "x"}), 400)
    assert "bogus" in error(post({**ok, "options": {"bogus": 1}}), 400)   # the engine's ScenarioError


def test_ckpt_agents_come_only_from_the_checkpoints_folder(tmp_path):
    folder, outside = tmp_path / "ckpts", tmp_path / "secret.zip"
    folder.mkdir()
    outside.write_bytes(b"not a checkpoint")
    (folder / "mine.zip").write_bytes(b"not a checkpoint either")
    body = {"battle": "berestechko", "seed": 1}
    closed = TestClient(create_app())
    msg = error(closed.post("/api/games", json={**body, "seats": ["human", "ckpt:mine.zip"]}), 400)
    assert "--checkpoints" in msg
    client = TestClient(create_app(Config(checkpoints=folder)))
    assert "ckpt:mine.zip" in client.get("/api/battles").json()[0]["opponents"]
    for spec in ("ckpt:../secret.zip", f"ckpt:{outside}", "ckpt:../../../../etc/passwd"):
        msg = error(client.post("/api/games", json={**body, "seats": ["human", spec]}), 400)
        assert "only files inside the checkpoints folder" in msg
    assert "no such file" in error(client.post("/api/games", json={**body, "seats": ["human", "ckpt:none.zip"]}), 400)
    msg = error(client.post("/api/games", json={**body, "seats": ["human", "ckpt:mine.zip"]}), 400)
    assert msg.startswith("agent = 'ckpt:") and "secret" not in msg   # read, refused as a checkpoint


def test_undo_on_the_terminals_terms(client):
    """Undo takes back the person's last decision while no die has been rolled since; across a die
    roll it is refused with the reason and the game goes on."""
    view = new_game(client, seed=5)
    sid = view["session"]
    assert "nothing to undo" in error(client.post(f"/api/games/{sid}/undo"), 400)
    undone = refused = 0
    for _ in range(60):
        if view["over"]:
            break
        before = view
        view = client.post(f"/api/games/{sid}/act", json={"action": view["options"][-1]["action"],
                                                          "decision": view["decision"]}).json()
        r = client.post(f"/api/games/{sid}/undo")
        if r.status_code == 200:
            back = r.json()
            assert back["decision"] <= before["decision"] and back["options"] and "undone" in back["message"]
            undone += 1
            if back["decision"] == before["decision"]:
                assert back["options"] == before["options"] and back["tracks"] == before["tracks"]
            view = client.post(f"/api/games/{sid}/act", json={"action": back["options"][-1]["action"],
                                                              "decision": back["decision"]}).json()
        else:
            assert "die roll(s) since your last decision" in error(r, 400)
            refused += 1
            assert client.get(f"/api/games/{sid}").json()["decision"] == view["decision"]
    assert undone and refused


def test_the_record_download_replays_to_the_game(client):
    view = new_game(client, "breitenfeld", seed=2)
    sid = view["session"]
    for _ in range(5):
        view = client.post(f"/api/games/{sid}/act", json={"action": view["options"][0]["action"],
                                                          "decision": view["decision"]}).json()
    r = client.get(f"/api/games/{sid}/record")
    assert "attachment" in r.headers["content-disposition"]
    record = GameRecord.from_dict(r.json())
    assert len(record.actions) == view["decision"] and record.players == view["seats"]
    engine, state = replay_final(record)
    assert engine.name == "breitenfeld_v0" and not engine.is_terminal(state)


# ---------------------------------------------------------------------------- watching and replays
def finished_watch(client, battle="berestechko", seed=4):
    view = new_game(client, battle, seats=("random", "random"), seed=seed)
    assert view["kind"] == "watch" and view["options"] == [] and view["you"] is None
    assert view["tracks"][0].startswith("View: omniscient")
    sid = view["session"]
    while not view["over"]:
        view = client.post(f"/api/games/{sid}/step", json={"count": 50}).json()
    return sid, view


def test_watch_steps_the_agents_and_refuses_play_commands(client):
    view = new_game(client, seats=("scripted", "random"))
    sid = view["session"]
    assert client.post(f"/api/games/{sid}/step", json={"count": 5}).json()["decision"] == 5
    assert client.post(f"/api/games/{sid}/step").json()["decision"] == 6
    for bad in (0, 51, "2", True):
        assert error(client.post(f"/api/games/{sid}/step", json={"count": bad}), 400).startswith("count = ")
    assert "watched game" in error(client.post(f"/api/games/{sid}/act", json={"action": 1, "decision": 6}), 400)
    assert "played games" in error(client.post(f"/api/games/{sid}/undo"), 400)
    played = new_game(client)["session"]
    assert "step is for watched games" in error(client.post(f"/api/games/{played}/step"), 400)


def test_a_replay_opens_any_record_and_scrubs_its_timeline(client):
    sid, final = finished_watch(client)
    record = client.get(f"/api/games/{sid}/record").json()
    r = client.post("/api/replays", json=record)
    assert r.status_code == 200
    start = r.json()
    n = len(record["actions"])
    assert start["kind"] == "replay" and start["index"] == 0 and start["length"] == n and len(start["moves"]) == n
    rid = start["session"]
    middle = client.get(f"/api/replays/{rid}?index={n // 2}").json()
    end = client.get(f"/api/replays/{rid}?index={n}").json()
    assert middle["next_move"] == start["moves"][n // 2] and end["next_move"] is None
    assert end["over"] and end["result"] == final["result"] and end["svg"] == final["svg"]
    assert start["svg"] != middle["svg"]
    assert client.get(f"/api/replays/{rid}?index=0").json()["svg"] == start["svg"]   # back again
    for bad in (n + 1, -1, "x", ""):
        assert "index = " in error(client.get(f"/api/replays/{rid}", params={"index": bad}), 400)
    assert "is a replay, not a play" in error(client.get(f"/api/games/{rid}"), 400)
    assert "is a play, not a replay" in error(client.get(f"/api/replays/{sid}"), 400)


def test_a_corrupt_record_is_refused_with_its_reason(client):
    env = make("berestechko")
    env.reset(seed=1)
    good = json.loads(env.unwrapped.record.to_json())
    cases = {
        "not valid JSON": b"{oops",
        "a game record is a JSON object": b"[1, 2]",
        "field 'format'": json.dumps({**good, "format": "x"}).encode(),
        "field 'actions[0]'": json.dumps({**good, "actions": ["a"]}).encode(),
        "action #0 (137) is illegal": json.dumps({**good, "actions": [137]}).encode(),
        "not one of this version's battles": json.dumps({**good, "env": "waterloo_v0"}).encode(),
    }
    for expected, body in cases.items():
        assert expected in error(client.post("/api/replays", content=body), 400)


# ---------------------------------------------------------------------------- sessions
def test_each_tab_has_its_own_game_and_closing_frees_it(client):
    sessions = client.app.state.sessions
    a, b = new_game(client, seed=1), new_game(client, seed=2)
    assert a["session"] != b["session"] and len(sessions) == 2
    assert client.post(f"/api/games/{a['session']}/close").json() == {"closed": True}
    assert "no game" in error(client.get(f"/api/games/{a['session']}"), 404)
    assert client.get(f"/api/games/{b['session']}").status_code == 200
    assert client.delete(f"/api/games/{b['session']}").json() == {"closed": True}
    assert client.post(f"/api/games/{b['session']}/close").json() == {"closed": False}
    assert len(sessions) == 0
    for path in ("", "/record"):
        assert error(client.get(f"/api/games/nope{path}"), 404)
    assert error(client.post("/api/games/nope/act", json={"action": 1, "decision": 0}), 404)


def test_idle_games_expire_and_the_server_holds_a_bounded_number():
    now = [0.0]
    sessions = Sessions(Config(idle_timeout_s=60, max_games=2), clock=lambda: now[0])
    game = PlayGame(Config(), "berestechko", ["random", "random"], 1)
    first = sessions.add(game)
    now[0] = 50
    sessions.get(first)                        # use keeps it alive
    second = sessions.add(game)
    with pytest.raises(WebInputError, match="its limit"):
        sessions.add(game)
    now[0] = 100
    sessions.get(first)
    now[0] = 115
    assert sessions.get(first) and len(sessions) == 1   # the second was idle 65 s, the first 15 s
    now[0] = 300
    with pytest.raises(WebInputError, match="expired after 1 idle minutes"):
        sessions.get(first)
    assert second not in sessions._games


# ---------------------------------------------------------------------------- what a player may see
def test_15_2_13_4_a_mongol_player_sees_no_ambush_hexes_and_no_real_dmitri(client):
    """Kulikovo's hidden information stays on the server: the Mongol's map, tracks and events hold
    neither the Ambush Regiment's hexes (15.2) nor which Dmitri is real (13.4); the Russian's do."""
    options = {"false_dmitri": True}
    mongol = new_game(client, "kulikovo", seats=("random", "human"), seed=1, options=options)
    watch = new_game(client, "kulikovo", seats=("random", "random"), seed=1, options=options)
    watch = client.post(f"/api/games/{watch['session']}/step", json={"count": mongol["decision"]}).json()
    assert watch["decision"] == mongol["decision"]
    hidden = next(line for line in mongol["tracks"] if line.startswith("Ambush Regiment"))
    shown = next(line for line in watch["tracks"] if line.startswith("Ambush Regiment"))
    ambush = re.findall(r"\b\d{4}\b", shown)
    assert hidden == "Ambush Regiment: not placed (hidden)" and len(ambush) == 6
    text = json.dumps({k: mongol[k] for k in ("svg", "tracks", "events", "options")})
    assert "FalseD" not in text and "False Dmitri" not in text and "Dmitri?" in mongol["svg"]
    assert "FalseD" in watch["svg"]
    assert all(h not in hidden for h in ambush)
    russian = new_game(client, "kulikovo", seats=("human", "random"), seed=1, options=options)
    assert all(h in next(t for t in russian["tracks"] if t.startswith("Ambush")) for h in ambush)


# ---------------------------------------------------------------------------- the command
def test_serve_refuses_bad_options(capsys, tmp_path):
    assert cli_main(["serve", "--port", "70000"]) == 2
    assert "--port must be 1..65535" in capsys.readouterr().err
    assert cli_main(["serve", "--checkpoints", str(tmp_path / "none")]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert cli_main(["serve", "--idle-minutes", "0"]) == 2
    assert "--idle-minutes must be positive" in capsys.readouterr().err


def test_the_web_package_sits_on_top_of_the_library():
    """``wargame_envs``, ``agents`` and ``training`` never import ``wargames_web``; it imports neither
    the command line (``wargames_cli``) nor anything that would make a cycle with it."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent

    def imports(path: Path) -> set[str]:
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
        return found

    below = [p for pkg in ("wargame_envs", "agents", "training") for p in (root / pkg).rglob("*.py")]
    assert len(below) > 20
    assert [str(p) for p in below if "wargames_web" in imports(p)] == []
    web = list((root / "wargames_web").rglob("*.py"))
    assert {m for p in web for m in imports(p)} & {"wargames_cli", "training"} == set()
