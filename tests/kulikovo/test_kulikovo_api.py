"""Environment API, codec, data loading, positions, rendering, random play (Kulikovo)."""

import shutil

import numpy as np
import pytest
from kulikovo_testlib import engine

from wargame_envs.core.dice import Dice
from wargame_envs.core.errors import IllegalActionError, ScenarioError
from wargame_envs.kulikovo import env, raw_env
from wargame_envs.kulikovo.data import DATA_DIR, load_scenario
from wargame_envs.kulikovo.rules import KulikovoEngine


def test_pettingzoo_api_test():
    from pettingzoo.test import api_test
    api_test(env(), num_cycles=200)


def test_pettingzoo_seed_test():
    from pettingzoo.test import seed_test
    seed_test(env, num_cycles=100)


def test_registry_make():
    import wargame_envs.registry as reg
    e = reg.make("kulikovo_v0")
    e.reset(seed=1)
    assert reg.make_engine("kulikovo").name == "kulikovo_v0"


def test_action_codec_round_trip():
    al = engine().AL
    seen = set()
    for a in range(al.size):
        block, v = al.decode(a)
        assert al.encode(block, v) == a
        seen.add((block, v))
    assert len(seen) == al.size == engine().num_actions
    with pytest.raises(ValueError):
        al.decode(al.size)
    with pytest.raises(ValueError):
        al.encode("DIR", 6)


def test_action_to_str_for_every_legal_action_of_a_game():
    eng = engine()
    d = Dice(3)
    s = eng.new_state({"max_activations": 20}, d)
    rng = np.random.default_rng(0)
    while not (eng.is_terminal(s) or eng.is_truncated(s)):
        la = eng.legal_actions(s)
        for a in la:
            text = eng.action_to_str(s, a)
            assert text.startswith(("Russian:", "Mongol:"))
        eng.apply(s, la[rng.integers(len(la))], d)


def test_illegal_action_names_legal_ones():
    e = raw_env()
    e.reset(seed=0)
    mask = e.observe(e.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match="legal:"):
        e.step(bad)


def test_position_round_trip_mid_game():
    eng = engine()
    d = Dice(11)
    s = eng.new_state({"max_activations": 40}, d)
    rng = np.random.default_rng(1)
    for i in range(400):
        if eng.is_terminal(s) or eng.is_truncated(s):
            break
        if i % 37 == 0:
            pos = eng.to_position(s)
            import json
            pos = json.loads(json.dumps(pos))
            s2 = eng.new_state({"position": pos}, Dice(0))
            assert s2 == s and eng.legal_actions(s2) == eng.legal_actions(s)
        la = eng.legal_actions(s)
        eng.apply(s, la[rng.integers(len(la))], d)


def test_position_errors_name_field():
    eng = engine()
    with pytest.raises(ScenarioError, match=r"units\[0\].hex"):
        eng.new_state({"position": {"units": [{"id": "R01", "hex": "9999"}]}}, Dice(0))
    with pytest.raises(ScenarioError, match=r"units\[1\].hex.*8.0"):
        eng.new_state({"position": {"units": [{"id": "R01", "hex": "4010"}, {"id": "R02", "hex": "4010"}]}}, Dice(0))
    with pytest.raises(ScenarioError, match="type"):
        eng.new_state({"position": {"units": [{"id": "R01", "type": "H", "hex": "4010"}]}}, Dice(0))
    with pytest.raises(ScenarioError, match="setup"):
        eng.new_state({"setup": "random"}, Dice(0))


@pytest.mark.parametrize("file,old,new,field", [
    ("units.toml", 'ma = 5\n', 'ma = "five"\n', "type[0].ma"),
    ("charts.toml", '"AD+AR", "AD", "AD", "-"', '"AD+XX", "AD", "AD", "-"', "shock_table.normal[0]"),
    ("oob.toml", 'units = [["B", "4108"]', 'units = [["B", "9908"]', "units[0]"),
    ("map.toml", 'cols = [31, 35]', 'cols = [35, 31]', "region[4].cols"),
    ("oob.toml", 'russian = "3012"', 'russian = 3012', "standards.russian"),
])
def test_bad_data_file_errors_name_file_field_value(tmp_path, file, old, new, field):
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    text = (d / file).read_text()
    assert old in text
    (d / file).write_text(text.replace(old, new, 1))
    with pytest.raises(ScenarioError) as exc:
        load_scenario(d)
    msg = str(exc.value)
    assert file in msg and field in msg


def test_engine_accepts_data_dir(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    text = (d / "charts.toml").read_text().replace("flight_level_mongol = 55", "flight_level_mongol = 40")
    (d / "charts.toml").write_text(text)
    assert KulikovoEngine(d).flight_level == (60, 40)


def test_16_0_the_flight_points_of_a_retired_unit_come_from_the_data_file(tmp_path):
    """``victory.retired`` (charts.toml) is what each Retired unit adds to its side's Flight Points (16.0), in the
    compiled rules (the Flight check and the scores) and in the engine's Python view alike."""
    from wargame_envs.core.dice import Dice

    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    text = (d / "charts.toml").read_text()
    assert "\nretired = 1\n" in text
    (d / "charts.toml").write_text(text.replace("\nretired = 1\n", "\nretired = 4\n", 1))
    pos = {"units": [{"id": "R01", "hex": "3309"}, {"id": "R02", "hex": "3311", "status": "retired"},
                     {"id": "M01", "hex": "4309"}], "flight_points": {"russian": 3}}
    for eng, per in ((KulikovoEngine(), 1), (KulikovoEngine(d), 4)):
        s = eng.new_state({"position": pos}, Dice(0))
        assert eng.flight_points(s, 0) == 3 + per
        assert eng.scores(s)[1] == 3 + per  # the Mongol's score: the Russian Flight Points


def test_observation_in_space_and_perspective():
    e = raw_env()
    e.reset(seed=2)
    for agent in e.agents:
        obs = e.observe(agent)["observation"]
        assert obs.dtype == np.float32 and obs.min() >= 0.0 and obs.max() <= 1.0
        assert e.observation_space(agent)["observation"].contains(obs)
    eng = e.engine
    lay = eng.obs_layout
    r = lay.unflatten(eng.observe(e.game_state, 0))
    m = lay.unflatten(eng.observe(e.game_state, 1))
    assert (r["own_H"] == m["enemy_H"]).all() and r["own_H"].sum() == 6 + 3 + 2 + 4  # ambush hidden


def test_render_ansi_and_rgb():
    e = raw_env(render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert "Russian: FP" in text and "to decide" in text
    pytest.importorskip("PIL")
    e2 = raw_env(render_mode="rgb_array")
    e2.reset(seed=0)
    img = e2.render()
    assert img.ndim == 3 and img.shape[2] == 3


def test_random_games_terminate_with_invariants():
    eng = engine()
    rng = np.random.default_rng(7)
    for g in range(3):
        d = Dice(100 + g)
        s = eng.new_state({"max_activations": 60, "false_dmitri": bool(g % 2)}, d)
        n = 0
        while not (eng.is_terminal(s) or eng.is_truncated(s)):
            mask = eng.legal_mask(s)
            assert mask.any()
            la = np.flatnonzero(mask)
            eng.apply(s, int(la[rng.integers(la.size)]), d)
            assert eng.check_invariants(s) == []
            n += 1
        assert n > 0


def test_determinism_same_seed_same_game():
    eng = engine()

    def run(seed):
        d = Dice(seed)
        s = eng.new_state({"max_activations": 30}, d)
        rng = np.random.default_rng(seed)
        while not (eng.is_terminal(s) or eng.is_truncated(s)):
            la = eng.legal_actions(s)
            eng.apply(s, la[rng.integers(len(la))], d)
        return s.digest()

    assert run(4) == run(4)


def test_check_invariants_reports_violations():
    eng = engine()
    s = eng.new_state({}, Dice(0))
    assert eng.check_invariants(s) == []
    bad = s.clone()
    bad.u_hex[1] = bad.u_hex[0]  # two units in one hex, occupancy out of step
    problems = eng.check_invariants(bad)
    assert any("stacking" in p for p in problems)
    bad2 = s.clone()
    bad2.u_status[40] = 0  # an unplaced Ambush unit that is not hidden
    assert any("Ambush" in p for p in eng.check_invariants(bad2))


def test_game_record_replays_bit_exactly(tmp_path):
    from wargame_envs.core.records import GameRecord, replay_final
    e = raw_env(options={"max_activations": 15, "false_dmitri": True})
    e.reset(seed=5)
    rng = np.random.default_rng(0)
    while not any(e.terminations.values()) and not any(e.truncations.values()):
        la = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(la[rng.integers(la.size)]))
    path = e.record.save(tmp_path / "game.json")
    _, final = replay_final(GameRecord.load(path))
    assert final == e.game_state


# ---------------------------------------------------------------- copies: deepcopy and pickle (tree search, workers)
def _trace(e, rng, steps):
    """``steps`` random decisions of ``e`` (or up to the game's end): per decision what each player observes, the
    mask, the rewards, the ends and the position's digest (equal traces: the same game)."""
    out = []
    for _ in range(steps):
        if not e.agents:
            break
        agent = e.agent_selection
        if e.terminations[agent] or e.truncations[agent]:
            e.step(None)
            continue
        obs = {a: e.observe(a) for a in e.possible_agents}
        legal = np.flatnonzero(obs[agent]["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        e.step(action)
        seen = {a: (o["observation"].tobytes(), o["action_mask"].tobytes()) for a, o in obs.items()}
        out.append((agent, action, seen,
                    dict(e.rewards), dict(e._cumulative_rewards), dict(e.terminations), dict(e.truncations),
                    e.game_state.digest(), e.game_state.log[-3:]))
    return out


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("wrapped", [False, True])
def test_a_copied_env_continues_the_same_game(how, wrapped):
    """copy.deepcopy and pickle round trips of the raw env and of ``wargame_envs.make`` 's env, mid-game with the
    Ambush Regiment hidden and the false Dmitri: the copy plays on exactly as the original (same observations,
    masks, rewards and dice), and the original is untouched by the copy."""
    import copy
    import pickle

    import wargame_envs
    from wargame_envs.kulikovo.state import G_AMBUSH_PLACED

    options = {"false_dmitri": True, "max_activations": 20}
    e = wargame_envs.make("kulikovo", options=options) if wrapped else raw_env(options=options)
    e.reset(seed=11)
    _trace(e, np.random.default_rng(1), 40)
    assert not e.unwrapped.game_state.g[G_AMBUSH_PLACED]  # the hidden regiment's LOS rows: the tables grow later
    before = e.unwrapped.game_state.clone()
    c = copy.deepcopy(e) if how == "deepcopy" else pickle.loads(pickle.dumps(e))
    assert type(c) is type(e) and c.unwrapped.engine is not e.unwrapped.engine
    assert c.unwrapped.game_state == before and c.unwrapped.game_state.log == e.unwrapped.game_state.log
    first = _trace(c, np.random.default_rng(2), 3000)  # the copy first: the original's engine is not used meanwhile
    assert e.unwrapped.game_state == before
    second = _trace(e, np.random.default_rng(2), 3000)
    assert first == second and len(first) > 50 and not c.agents  # the whole rest of the game
    # copies of copies, and a copy of a fresh (never bound) engine
    eng = pickle.loads(pickle.dumps(copy.deepcopy(KulikovoEngine())))
    assert eng.num_actions == e.unwrapped.engine.num_actions and eng.data_dir is None


def test_engine_pickles_with_its_data_dir(tmp_path):
    import copy
    import pickle
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    text = (d / "charts.toml").read_text().replace("flight_level_mongol = 55", "flight_level_mongol = 40")
    (d / "charts.toml").write_text(text)
    eng = KulikovoEngine(d)
    for copied in (pickle.loads(pickle.dumps(eng)), copy.deepcopy(eng)):
        assert copied.flight_level == (60, 40) and copied.data_dir == str(d.resolve())
        assert copied.sc is eng.sc  # the cached scenario (and its compiled tables) are shared, not rebuilt


def test_engine_copy_plays_states_of_the_original():
    """A state bound to one engine (``s._bound``) plays on with a copy of that engine, and pickled states with
    either: the binding is remade, never carried over."""
    import copy
    import pickle
    eng = engine()
    d = Dice(3)
    s = eng.new_state({"max_activations": 10}, d)
    rng = np.random.default_rng(0)
    for _ in range(50):
        la = eng.legal_actions(s)
        eng.apply(s, la[rng.integers(len(la))], d)
    other = copy.deepcopy(eng)
    s2, d2 = pickle.loads(pickle.dumps((s, d)))
    for e, st, dice in ((eng, s, d), (other, s2, d2)):
        r = np.random.default_rng(5)
        while not (e.is_terminal(st) or e.is_truncated(st)):
            la = e.legal_actions(st)
            assert np.array_equal(e.observe(st, 1), eng.observe(st, 1) if e is eng else other.observe(st, 1))
            e.apply(st, la[r.integers(len(la))], dice)
    assert s == s2


def test_13_0_a_leaders_movement_comes_from_the_data_file(tmp_path):
    """``units.toml [leader] move`` (PROPOSED: 8 hexes) is how far a leader moves to a unit of his command (13.0)."""
    from kulikovo_testlib import A
    from wargame_envs.core.dice import ScriptedDice

    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    text = (d / "units.toml").read_text()
    assert "\nmove = 8\n" in text
    (d / "units.toml").write_text(text.replace("\nmove = 8\n", "\nmove = 3\n", 1))
    pos = {"units": [{"id": "R01", "hex": "4010"}, {"id": "R02", "hex": "4014"}, {"id": "R03", "hex": "4013"},
                     {"id": "M01", "hex": "4409"}],
           "leaders": [{"name": "Obelenski", "hex": "4010"}], "to_move": {"player": "russian", "activate": "Lookout"}}
    for eng, reaches in ((KulikovoEngine(), True), (KulikovoEngine(d), False)):
        s = eng.new_state({"position": pos, "max_activations": 0}, ScriptedDice([]))
        eng.apply(s, A("LEADER", "Obelenski"), ScriptedDice([]))
        assert eng.grid.index["4013"] in eng.legal_actions(s)                # 3 hexes away
        assert (eng.grid.index["4014"] in eng.legal_actions(s)) == reaches   # 4 hexes away
