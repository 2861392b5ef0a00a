"""Shipped ``pretrained`` policies (issue 14 item 5): they load for every battle without torch or
unpickling, play legal games, and a tampered, foreign or malformed file is refused with a message
that names the file and the problem."""

import io
import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from agents import pretrained as P
from agents.mlp import MlpActor
from agents.registry import AgentUnavailableError, make_agent
from wargame_envs.core.dice import Dice
from wargame_envs.registry import make_engine

BATTLES = ("berestechko", "kulikovo", "breitenfeld")


def test_every_battle_ships_a_pretrained_policy():
    assert P.available() == sorted(BATTLES)


@pytest.mark.parametrize("battle", BATTLES)
def test_pretrained_plays_legal_moves_and_says_how_it_was_measured(battle):
    engine = make_engine(battle)
    agent = make_agent("pretrained", battle, seed=3)
    s = engine.new_state(None, Dice(11))
    for _ in range(300):  # the opening of a game, both seats
        if engine.is_terminal(s) or engine.is_truncated(s):
            break
        p, mask = engine.current_player(s), engine.legal_mask(s)
        a = agent.act(engine, s, p, mask)
        assert mask[a]
        engine.apply(s, a, Dice(int(a) + 1))
    ev = agent.meta["evaluation"]
    assert {"random", "scripted"} <= set(ev) and agent.meta["train_command"]
    for side in engine.agents:
        lo, hi = ev["random"][side]["wilson95"]
        assert 0 <= lo <= ev["random"][side]["win_rate"] <= hi <= 1


def test_loading_needs_neither_torch_nor_pickle():
    code = ("import sys; sys.modules['torch'] = None\n"
            "from agents.registry import make_agent\nfrom wargame_envs.registry import make_engine\n"
            "from wargame_envs.core.dice import Dice\n"
            "e = make_engine('berestechko'); s = e.new_state(None, Dice(1)); a = make_agent('pretrained', 'berestechko')\n"
            "print(e.legal_mask(s)[a.act(e, s, e.current_player(s), e.legal_mask(s))])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def fake_actor(engine, hidden=8, seed=0):
    rng = np.random.default_rng(seed)
    sizes = [engine.obs_layout.size, hidden, engine.num_actions]
    return MlpActor([(rng.normal(size=(a, b)).astype(np.float32), rng.normal(size=b).astype(np.float32))
                     for a, b in zip(sizes, sizes[1:])], "relu")


def header(engine):
    return {"env": engine.name, "obs_size": engine.obs_layout.size, "obs_layout": engine.obs_layout.digest(),
            "num_actions": engine.num_actions, "evaluation": {}}


def test_write_then_load_round_trip(tmp_path):
    engine = make_engine("berestechko")
    actor = fake_actor(engine)
    P.write(actor, header(engine), tmp_path)
    loaded, meta = P.load(engine, tmp_path)
    obs = engine.observe(engine.new_state(None, Dice(0)), 0)
    np.testing.assert_allclose(loaded.logits(obs), actor.logits(obs), rtol=0.05, atol=0.5)  # float16 storage
    assert meta["layers"] == [[engine.obs_layout.size, 8], [8, engine.num_actions]]


def rewrite(tmp_path, engine, arrays=None, meta_change=None, raw=None):
    """A policy folder whose .npz holds ``arrays`` (or ``raw`` bytes) with a matching digest, and whose
    .json is changed by ``meta_change``."""
    P.write(fake_actor(engine), header(engine), tmp_path)
    npz, js = P.files_of(engine.name, tmp_path)
    if arrays is not None or raw is not None:
        if raw is None:
            buf = io.BytesIO()
            np.savez(buf, **arrays)
            raw = buf.getvalue()
        npz.write_bytes(raw)
        meta = json.loads(js.read_text())
        meta["sha256"] = __import__("hashlib").sha256(raw).hexdigest()
        js.write_text(json.dumps(meta))
    if meta_change:
        meta = json.loads(js.read_text())
        meta_change(meta)
        js.write_text(json.dumps(meta))
    return tmp_path


def test_tampered_weights_are_refused(tmp_path):
    engine = make_engine("berestechko")
    P.write(fake_actor(engine), header(engine), tmp_path)
    npz, _ = P.files_of(engine.name, tmp_path)
    data = bytearray(npz.read_bytes())
    data[len(data) // 2] ^= 0xFF
    npz.write_bytes(bytes(data))
    with pytest.raises(P.PretrainedError, match="SHA-256 does not match"):
        P.load(engine, tmp_path)


E = make_engine("berestechko")
N_OBS, N_ACT = E.obs_layout.size, E.num_actions
CASES = {
    "other battle": (None, lambda m: m.update(env="kulikovo_v0"), "field 'env'"),
    "other layout": (None, lambda m: m.update(obs_layout="0" * 16), "field 'obs_layout'"),
    "other action count": (None, lambda m: m.update(num_actions=5), "field 'num_actions'"),
    "bad activation": (None, lambda m: m.update(activation="gelu"), "field 'activation'"),
    "list activation": (None, lambda m: m.update(activation=[]), r"field 'activation' = \[\]: expected one of"),
    "dict activation": (None, lambda m: m.update(activation={}), r"field 'activation' = \{\}: expected one of"),
    "dict hint": (None, lambda m: m.update(hint={}), r"field 'hint' = \{\}: expected one of"),
    "object array (pickle)": ({"0.weight": np.array([{"x": 1}], dtype=object), "0.bias": np.zeros(3)}, None,
                              "not a weights-only"),
    "missing bias": ({"0.weight": np.zeros((N_OBS, N_ACT), np.float16)}, None, "expected arrays"),
    "wrong input width": ({"0.weight": np.zeros((7, N_ACT), np.float16), "0.bias": np.zeros(N_ACT, np.float16)},
                          None, "layer 0 has shapes"),
    "wrong output width": ({"0.weight": np.zeros((N_OBS, 3), np.float16), "0.bias": np.zeros(3, np.float16)},
                           None, "layer 0 has shapes"),
    "non-finite": ({"0.weight": np.full((N_OBS, N_ACT), np.inf, np.float16), "0.bias": np.zeros(N_ACT, np.float16)},
                   None, "non-finite"),
    "integer weights": ({"0.weight": np.zeros((N_OBS, N_ACT), np.int8), "0.bias": np.zeros(N_ACT, np.int8)}, None,
                        "layer 0 has shapes"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_policy_files_are_refused_naming_the_problem(tmp_path, case):
    arrays, change, message = CASES[case]
    rewrite(tmp_path, E, arrays, change)
    with pytest.raises(P.PretrainedError, match=message):
        P.load(E, tmp_path)


def test_not_a_zip_and_not_json(tmp_path):
    rewrite(tmp_path, E, raw=b"\x80\x04not a zip at all")
    with pytest.raises(P.PretrainedError, match="not a weights-only"):
        P.load(E, tmp_path)
    _, js = P.files_of(E.name, tmp_path)
    js.write_text("{ not json")
    with pytest.raises(P.PretrainedError, match="not valid JSON"):
        P.load(E, tmp_path)


def test_missing_files_name_the_path(tmp_path):
    with pytest.raises(P.PretrainedError, match="file not found: .*berestechko.json"):
        P.load(E, tmp_path)


def test_a_battle_without_a_shipped_policy_is_unavailable(monkeypatch, tmp_path):
    monkeypatch.setattr(P, "DEFAULT_DIR", tmp_path)
    with pytest.raises(AgentUnavailableError, match="no pretrained policy ships for berestechko"):
        make_agent("pretrained", "berestechko")


def test_export_from_a_training_checkpoint(tmp_path):
    pytest.importorskip("torch")
    from training import checkpoints as C
    from training.export import export

    meta = {"battle": "berestechko", "env": E.name, "obs_size": N_OBS, "obs_layout": E.obs_layout.digest(),
            "num_actions": N_ACT, "net_arch": {"pi": [16], "vf": [16]}, "activation": "tanh", "timesteps": 64,
            "n_updates": 1, "train_seconds": 1.0, "args": {}, "pool": []}
    policy = C.build_policy(meta)
    ckpt = C.save_checkpoint(tmp_path / "ckpt" / "latest.zip", meta, policy.state_dict())
    report = {"checkpoint": {"path": "x"}, "random": {"polish_lithuanian": {"wins": 9, "games": 10},
                                                      "cossack_tatar": {"wins": 10, "games": 10}}}
    export(ckpt, tmp_path / "out", report, command="wargames train berestechko")
    agent = P.PretrainedAgent("berestechko", directory=tmp_path / "out").load(E)
    ev = agent.meta["evaluation"]["random"]
    assert ev["cossack_tatar"]["win_rate"] == 1.0 and ev["cossack_tatar"]["wilson95"][1] == 1.0
    assert 0.5 < ev["polish_lithuanian"]["wilson95"][0] < 0.9 and "checkpoint" not in agent.meta["evaluation"]
    obs = E.observe(E.new_state(None, Dice(0)), 0)
    np.testing.assert_allclose(agent.actor.logits(obs), MlpActor.from_state_dict(policy.state_dict()).logits(obs),
                               atol=0.05)


def _tiny_checkpoint(tmp_path):
    from training import checkpoints as C

    meta = {"battle": "berestechko", "env": E.name, "obs_size": N_OBS, "obs_layout": E.obs_layout.digest(),
            "num_actions": N_ACT, "net_arch": {"pi": [16], "vf": [16]}, "activation": "tanh", "timesteps": 64,
            "n_updates": 1, "train_seconds": 1.0, "args": {}, "pool": []}
    return C.save_checkpoint(tmp_path / "ckpt" / "latest.zip", meta, C.build_policy(meta).state_dict())


def test_export_never_replaces_a_policy_unasked(tmp_path, capsys):
    pytest.importorskip("torch")
    from training.export import main

    ckpt = _tiny_checkpoint(tmp_path)
    out = tmp_path / "shipped"
    assert main([str(ckpt), "--out", str(out)]) == 0
    before = (out / "berestechko.npz").read_bytes()
    assert main([str(ckpt), "--out", str(out), "--note", "again"]) == 2
    assert "already exist(s); pass --overwrite" in capsys.readouterr().err
    assert (out / "berestechko.npz").read_bytes() == before
    assert main([str(ckpt), "--out", str(out), "--note", "again", "--overwrite"]) == 0
    assert json.loads((out / "berestechko.json").read_text())["note"] == "again"


def test_export_reads_a_tournament_result_and_refuses_an_evaluation_it_cannot_read(tmp_path, capsys):
    pytest.importorskip("torch")
    from training.export import main

    ckpt = _tiny_checkpoint(tmp_path)
    sides = list(E.agents)
    games = [{"row": 0, "col": 1, "winner": 0}, {"row": 0, "col": 1, "winner": 1}, {"row": 1, "col": 0, "winner": 1},
             {"row": 2, "col": 1, "winner": 0}]   # the last: two opponents, not the exported policy
    result = tmp_path / "result.json"
    result.write_text(json.dumps({"agents": ["ckpt:x", "random", "scripted"], "side_names": sides, "games": games,
                                  "about": {}}))
    assert main([str(ckpt), "--out", str(tmp_path / "a"), "--eval", str(result)]) == 0
    ev = json.loads((tmp_path / "a" / "berestechko.json").read_text())["evaluation"]
    assert ev == {"random": {sides[0]: {"wins": 1, "games": 2, "win_rate": 0.5, "wilson95": ev["random"][sides[0]]
                                        ["wilson95"]},
                             sides[1]: {"wins": 1, "games": 1, "win_rate": 1.0, "wilson95": ev["random"][sides[1]]
                                        ["wilson95"]}}}
    for content, fragment in (({"about": {}}, "no opponent's wins and games"), ([1, 2], "expected a JSON object"),
                              ({"random": {sides[0]: {"wins": 3}}}, "needs integer 'wins' and 'games'")):
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(content))
        assert main([str(ckpt), "--out", str(tmp_path / "b"), "--eval", str(bad)]) == 2
        assert fragment in capsys.readouterr().err
        assert not (tmp_path / "b" / "berestechko.npz").exists()
