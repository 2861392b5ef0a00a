"""Adapter, data loading, codec, positions, random and scripted games."""

from __future__ import annotations

import shutil
import warnings

import numpy as np
import pytest
from bf_helpers import E

from agents.base import RandomAgent
from agents.breitenfeld_scripted import BreitenfeldScriptedAgent
from wargame_envs import make, make_engine
from wargame_envs.breitenfeld.data import DATA_DIR, load_data
from wargame_envs.breitenfeld.env import env, raw_env
from wargame_envs.breitenfeld.rules import BreitenfeldEngine
from wargame_envs.core import Dice, ScenarioError


def test_pettingzoo_api_test():
    from pettingzoo.test import api_test
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(), num_cycles=200)


def test_pettingzoo_seed_test():
    from pettingzoo.test import seed_test
    seed_test(env, num_cycles=200)


def test_registry_and_render_modes():
    e = make("breitenfeld_v0", render_mode="ansi")
    e.reset(seed=3)
    txt = e.render()
    assert "Game-Turn 1 of 10" in txt and "Ii" in txt
    assert make_engine("breitenfeld").name == "breitenfeld_v0"
    pytest.importorskip("PIL")
    r = raw_env(render_mode="rgb_array")
    r.reset(seed=3)
    img = r.render()
    assert img.ndim == 3 and img.shape[2] == 3


def test_3_0_order_of_battle_and_12_1_armin():
    D = E.D
    count = lambda army: sum(1 for u in range(D.n_units) if D.army_ids[D.unit_army[u]] == army)
    assert (count("imperial"), count("swedes"), count("saxons")) == (33, 31, 12)
    assert D.grid.ids[D.leader_start[D.leader_ids.index("armin")]] == "1003"
    assert len(D.art_ids) == 12 and D.n_corps == 9


def test_12_7_12_8_corps_membership_follows_the_exclusive_rules():
    D, g = E.D, E.grid

    def hexes(corps):
        return [g.ids[D.unit_start[u]] for u in range(D.n_units) if D.corps_ids[D.unit_corps[u]] == corps]
    assert all(D.unit_kind[u] == 0 for u in range(D.n_units) if D.corps_ids[D.unit_corps[u]] == "imp_center")
    assert all(D.unit_kind[u] == 1 for u in range(D.n_units) if D.corps_ids[D.unit_corps[u]] != "imp_center"
               and D.army_ids[D.unit_army[u]] == "imperial")
    assert all(h[:2] == "18" and 19 <= int(h[2:]) <= 25 for h in hexes("imp_left"))
    assert all(h[:2] == "18" and 1 <= int(h[2:]) <= 5 for h in hexes("imp_right"))
    assert all(h[:2] == "21" and 7 <= int(h[2:]) <= 14 for h in hexes("imp_reserve"))
    assert all((h[:2] == "11" and 14 <= int(h[2:]) <= 21) or (h[:2] == "09" and 17 <= int(h[2:]) <= 20)
               for h in hexes("allied_center"))
    assert all((h[:2] == "11" and 8 <= int(h[2:]) <= 12) or (h[:2] == "06" and 10 <= int(h[2:]) <= 12)
               for h in hexes("allied_left"))
    assert all(g.distance(g.index[h], g.index["0618"]) <= 2 for h in hexes("allied_reserve"))
    assert all(int(h[2:]) > 23 for h in hexes("allied_right"))


def test_12_9_friendly_map_edges_rule_decision():
    assert E.D.edge_column == (1, 23)


def test_action_codec_round_trip():
    c = E.codec
    seen = set()
    for a in range(c.size):
        kind, idx = c.decode(a)
        assert c.encode(kind, idx) == a
        seen.add((kind, idx))
    assert len(seen) == c.size == E.num_actions
    with pytest.raises(ValueError):
        c.decode(c.size)


def _write_data(tmp_path, file, old, new):
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    p = d / file
    text = p.read_text()
    assert old in text
    p.write_text(text.replace(old, new, 1))
    return d


@pytest.mark.parametrize("file,old,new,needle", [
    ("oob.toml", 'strength = 12\n', 'strength = "twelve"\n', "'units[0].strength' = 'twelve'"),
    ("oob.toml", 'hex = "1812"', 'hex = "9999"', "'leaders[0].hex' = '9999'"),
    ("charts.toml", '"Ad", "Ax", "Dx", "Dx"', '"Ad", "Zz", "Dx", "Dx"', "'crt.rows[0].results[1]' = 'Zz'"),
    ("map.toml", 'source = "PROPOSED: reference 1 (the', 'source = "GUESS: reference 1 (the', "'map.source' = 'GUESS"),
    ("rules.toml", "level = 100", "level = -5", "'demoralization[0].level' = -5"),
    ("terrain.toml", "mp_cavalry = 3", "mp_cavalry = 0", "'terrain[4].mp_cavalry' = 0"),
])
def test_bad_data_file_errors_name_file_field_and_value(tmp_path, file, old, new, needle):
    d = _write_data(tmp_path, file, old, new)
    with pytest.raises(ScenarioError) as exc:
        load_data(d)
    msg = str(exc.value)
    assert file in msg and needle in msg


def test_data_directory_argument_changes_the_rules(tmp_path):
    d = _write_data(tmp_path, "rules.toml", "turns = 10", "turns = 3")
    eng = BreitenfeldEngine(data_dir=d)
    assert eng.D.turns == 3
    dice = Dice(0)
    s = eng.new_state({}, dice)
    rng = np.random.default_rng(0)
    while not eng.is_terminal(s):
        legal = eng.legal_actions(s)
        eng.apply(s, legal[rng.integers(len(legal))], dice)
    assert eng.to_position(s)["turn"] == 3 and any("End of Game-Turn 3" in e for e in s.log)


def test_position_round_trip_mid_game():
    d = Dice(5)
    s = E.new_state({}, d)
    rng = np.random.default_rng(5)
    for i in range(600):
        if E.is_terminal(s):
            break
        legal = E.legal_actions(s)
        E.apply(s, legal[rng.integers(len(legal))], d)
        if i % 97 == 0:
            pos = E.to_position(s)
            s2 = E.new_state({"position": pos}, Dice(0))
            assert s2 == s, f"position round trip differs at decision {i} ({E.decision_name(s)})"


def test_random_games_terminate_with_sound_invariants_and_are_deterministic():
    lengths = []
    for seed in range(3):
        d = Dice(seed)
        s = E.new_state({"turn_ends_chit": seed == 1, "visibility": seed == 2}, d)
        agent = RandomAgent(seed)
        n = 0
        while not E.is_terminal(s):
            mask = E.legal_mask(s)
            assert mask.any()
            obs = E.observe(s, E.current_player(s))
            assert obs.shape == (E.obs_layout.size,) and obs.min() >= 0.0 and obs.max() <= 1.0
            E.apply(s, agent.act(E, s, E.current_player(s), mask), d)
            n += 1
            if n % 25 == 0:
                assert E.check_invariants(s) == []
        assert E.check_invariants(s) == []
        lengths.append(n)
        # determinism: the same seed replays to the same final state
        d2, s2, a2 = Dice(seed), None, RandomAgent(seed)
        s2 = E.new_state({"turn_ends_chit": seed == 1, "visibility": seed == 2}, d2)
        while not E.is_terminal(s2):
            E.apply(s2, a2.act(E, s2, E.current_player(s2), E.legal_mask(s2)), d2)
        assert s2 == s
    assert all(300 < n < 5000 for n in lengths)


def test_scripted_agent_plays_to_a_decision_and_beats_random():
    wins = 0
    for seed in range(2):
        d = Dice(seed)
        s = E.new_state({}, d)
        agents = (BreitenfeldScriptedAgent(seed), RandomAgent(seed))
        while not E.is_terminal(s):
            p = E.current_player(s)
            E.apply(s, agents[p].act(E, s, p, E.legal_mask(s)), d)
        r = E.returns(s)
        assert r[0] == -r[1]
        wins += r[0] > 0
    assert wins == 2


def test_observation_layout_is_documented_and_perspective_swaps():
    lay = E.obs_layout
    assert "own_infantry" in lay.slices and "enemy_zoc" in lay.slices and "decision" in lay.slices
    s = E.new_state({}, Dice(0))
    o0, o1 = E.observe(s, 0), E.observe(s, 1)
    p0, p1 = lay.unflatten(o0), lay.unflatten(o1)
    assert np.array_equal(p0["own_infantry"], p1["enemy_infantry"])
    assert "| `own_infantry` | plane |" in lay.describe()


# --------------------------------------------------------------------------- bad input, round 2 of the audit
def test_an_edited_data_file_is_read_again(tmp_path):
    """audit 2, finding 8: the data of a folder is cached only until one of its files changes."""
    d = _write_data(tmp_path, "rules.toml", "turns = 10", "turns = 3")
    assert BreitenfeldEngine(data_dir=d).D.turns == 3 and load_data(d) is load_data(d)  # unchanged: cached
    p = d / "rules.toml"
    p.write_text(p.read_text().replace("turns = 3", "turns = 4", 1))
    assert BreitenfeldEngine(data_dir=d).D.turns == 4
    p = d / "oob.toml"
    p.write_text(p.read_text().replace('hex = "1812"', 'hex = "9999"', 1))  # same size, same second
    with pytest.raises(ScenarioError, match="'leaders\\[0\\].hex' = '9999'"):
        BreitenfeldEngine(data_dir=d)


def _finished_position() -> dict:
    dice, rng = Dice(2), np.random.default_rng(2)
    s = E.new_state({}, dice)
    while not E.is_terminal(s):
        legal = E.legal_actions(s)
        E.apply(s, legal[rng.integers(len(legal))], dice)
    return E.to_position(s)


def test_a_finished_game_is_no_start_position():
    """audit 2, finding 5: refused by the engine, the AEC env and the batched games alike (core.engine)."""
    from wargame_envs import vector

    finished = _finished_position()
    message = "position: this position is a finished game; there is nothing to play from it \\(the game is over\\)"
    with pytest.raises(ScenarioError, match=message):
        E.new_state({"position": finished}, Dice(1))
    env = make("breitenfeld", illegal_action="lose")
    with pytest.raises(ScenarioError, match=message):
        env.reset(seed=1, options={"position": finished})
    with pytest.raises(ScenarioError, match=message):
        vector.make("breitenfeld", 2, position=finished)
    vec = vector.make("breitenfeld", 2, seed=1)
    vec.reset()
    with pytest.raises(ScenarioError, match=message):
        vec.from_positions([vec.to_positions()[0], finished])


def test_action_to_str_refuses_an_action_outside_the_space():
    """audit 2, finding 13: no wrap-around of -1 to the last action."""
    env = make("breitenfeld")
    env.reset(seed=1)
    raw = env.unwrapped
    for bad in (-1, raw.engine.num_actions, 10**6):
        with pytest.raises(ValueError, match=f"action {bad} out of range 0..{raw.engine.num_actions - 1}"):
            raw.action_to_str(bad)
    with pytest.raises(ValueError, match="action 'x': expected an integer index"):
        raw.action_to_str("x")
    assert raw.action_to_str(raw.legal_actions()[0])


# --------------------------------------------------------------------------- bad input, round 8 of the audit
@pytest.mark.parametrize("file, extra, needle", [
    ("rules.toml", '[[demoralization]]\narmy = "imperial"\nlevel = 5\nsource = "PROPOSED: x"\n',
     "field 'demoralization[3].army' = 'imperial': duplicate army"),
    ("rules.toml", '[[edges]]\nside = "allied"\ncolumn = 23\nsource = "PROPOSED: x"\n',
     "field 'edges[2].side' = 'allied': duplicate side"),
    ("map.toml", '[[town_names]]\nsource = "PROPOSED: x"\nname = "Leipzig"\nhexes = ["0101", "2119"]\n',
     "field 'town_names[4].hexes[1]' = '2119': hex already has the town name 'Breitenfeld'"),
])
def test_a_duplicate_data_row_is_refused(tmp_path, file, extra, needle):
    """audit 8, finding 6: a second row for the same army, side or town hex does not silently win."""
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    p = d / file
    p.write_text(p.read_text() + "\n" + extra)
    with pytest.raises(ScenarioError) as exc:
        make_engine("breitenfeld", data_dir=d)
    msg = str(exc.value)
    assert file in msg and needle in msg
