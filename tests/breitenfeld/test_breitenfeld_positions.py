"""Positions (issue 11 item 12, issue 12 items 1, 2, 4): every malformed or unreachable position and every
mistyped option is refused with a ScenarioError naming the field and the value; a position taken at any
pending decision continues exactly."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
from bf_helpers import E, position

from wargame_envs.breitenfeld.env import raw_env
from wargame_envs.breitenfeld.state import DECISION_KEYS
from wargame_envs.core import Dice, ScenarioError

BASE = position({"IRK": "1410", "SL1": "1310", "IC1": "1610"}, leaders={"horn": "1310", "tilly": "1610"},
                artillery={"IA1": "1806"}, active="allied_left", cup=["imp_center"])


def _with(path: str, value):
    """BASE with ``value`` at ``path`` (dot-separated; ``DEL`` removes the key)."""
    pos = copy.deepcopy(BASE)
    *head, last = path.split(".")
    d = pos
    for k in head:
        d = d.setdefault(k, {})
        if isinstance(d, str):
            raise AssertionError(path)
    d[last] = value
    return pos


BAD = [  # (path, value, words the error must contain)
    ("globals.selected", 10 ** 6, ["globals.selected", "1000000"]),
    ("globals.selected", -5, ["globals.selected", "-5"]),
    ("globals.turn", 0, ["globals.turn", "0"]),
    ("globals.active_corps", 99, ["globals.active_corps", "99"]),
    ("globals.decision", 42, ["globals.decision", "42"]),
    ("globals.player", 5, ["globals.player", "5"]),
    ("globals.vp_allied", -1, ["globals.vp_allied", "-1"]),
    ("globals.mp_left", 2 ** 40, ["globals.mp_left", str(2 ** 40)]),
    ("globals.artillery_index", 13, ["globals.artillery_index", "13"]),
    ("globals.eliminated_sp_0", 10 ** 9, ["globals.eliminated_sp_0"]),
    ("globals.demoralized_bits", 8, ["globals.demoralized_bits", "8"]),
    ("globals.no_such", 1, ["globals.no_such"]),
    ("globals.turn", True, ["globals.turn", "True"]),
    ("globals.turn", 1.5, ["globals.turn", "1.5"]),
    ("globals", [1, 2], ["globals", "[1, 2]"]),
    ("globals.turn", 3, ["globals.turn", "3", "disagrees"]),
    ("turn", 11, ["'turn'", "11"]),
    ("phase", "lunch", ["'phase'", "lunch"]),
    ("phase", ["combat"], ["'phase'", "['combat']"]),
    ("active_corps", "nobody", ["active_corps", "nobody"]),
    ("visibility", 2, ["visibility", "2"]),
    ("decision", "dance", ["decision", "dance"]),
    ("format", "other/9", ["format", "other/9"]),
    ("colour", "red", ["position.colour", "red"]),
    ("units.IRK", ["1410"], ["units.IRK", "['1410']"]),
    ("units.IRK", {"hex": [14, 10]}, ["units.IRK.hex", "[14, 10]"]),
    ("units.IRK", {"hex": "9999"}, ["units.IRK.hex", "9999"]),
    ("units.IRK", {"hex": "1410", "flags": "moved"}, ["units.IRK.flags", "moved"]),
    ("units.IRK", {"hex": "1410", "flags": [["moved"]]}, ["units.IRK.flags", "['moved']"]),
    ("units.IRK", {"hex": "1410", "disrupted": "yes"}, ["units.IRK.disrupted", "yes"]),
    ("units.IRK", {"hex": "eliminated", "disrupted": True}, ["units.IRK.disrupted", "True"]),
    ("units.IRK", {"hex": "1410", "speed": 3}, ["units.IRK.speed", "3"]),
    ("units.IRK", {"hex": "1410", "start": "exited"}, ["units.IRK.start", "exited"]),
    ("units.NOPE", "1410", ["units.NOPE"]),
    ("units.IC1", "1410", ["units", "1410", "6.32"]),
    ("units", ["IRK"], ["units", "['IRK']"]),
    ("leaders.tilly", "1310", ["leaders.tilly.hex", "1310", "enemy"]),
    ("leaders.tilly", "exited", ["leaders.tilly.hex", "exited"]),
    ("leaders.tilly", {"hex": "1610", "moved": 1}, ["leaders.tilly.moved", "1"]),
    ("leaders.tilly", {"hex": "1610", "rank": 1}, ["leaders.tilly.rank", "1"]),
    ("artillery.IA1", {"hex": ["1806"]}, ["artillery.IA1.hex", "['1806']"]),
    ("artillery.IA1", {"hex": "eliminated"}, ["artillery.IA1.hex", "eliminated"]),
    ("artillery.IA1", {"hex": "1610", "owner": "allied"}, ["artillery.IA1.owner", "allied", "5.31"]),
    ("artillery.IA1", {"hex": "1806", "owner": "french"}, ["artillery.IA1.owner", "french"]),
    ("artillery.IA1", {"hex": "1806", "calibre": 6}, ["artillery.IA1.calibre", "6"]),
    ("artillery.IA1", {"hex": "1806", "target": -1}, ["artillery.IA1.target", "-1"]),
    ("cup", "imp_center", ["cup", "imp_center"]),
    ("cup", ["allied_left"], ["cup", "allied_left", "activated corps"]),
    ("cup", [["x"]], ["cup", "['x']"]),
    ("victory_points", {"allied": 99, "imperial": 0}, ["victory_points", "99"]),
    # pending decisions that no rule reaches, or that the engine could not carry on from
    ("globals.decision", 4, ["globals.decision", "4", "move_dest"]),            # in the combat phase
    ("globals", {"phase": 3, "decision": 4, "player": 0}, ["globals.selected", "-1"]),
    ("globals", {"phase": 3, "decision": 4, "player": 0, "selected": 1}, ["globals.selected", "1"]),
    ("globals", {"decision": 5, "player": 1}, ["globals.player", "1"]),
    ("globals", {"decision": 6, "player": 0}, ["'units'", "in_attack"]),
    ("globals", {"decision": 7, "player": 0, "loss_side": 0}, ["globals.loss_side"]),
    ("globals", {"decision": 1, "player": 0}, ["globals.decision", "swap"]),
    ("globals", {"phase": 1, "decision": 2, "player": 0, "artillery_index": 0, "artillery_side": 0},
     ["globals.artillery_index", "0"]),
]


@pytest.mark.parametrize("path,value,words", BAD, ids=[f"{p}={v!r}"[:40] for p, v, _ in BAD])
def test_12_2_malformed_positions_name_the_field_and_the_value(path, value, words):
    pos = _with(path, value)
    if path == "globals" and isinstance(value, dict) and "phase" in value:
        del pos["phase"]                      # the named field would disagree first
    with pytest.raises(ScenarioError) as err:
        E.new_state({"position": pos}, Dice(0))
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_12_2_the_base_position_and_every_to_position_output_load():
    s = E.new_state({"position": BASE}, Dice(0))
    pos = json.loads(json.dumps(E.to_position(s)))
    assert E.to_position(E.new_state({"position": pos}, Dice(0))) == pos


_PROBE = r"""
import sys
from wargame_envs.breitenfeld.env import raw_env
from wargame_envs.breitenfeld.state import DECISION_KEYS
from wargame_envs.core import ScenarioError
bad = [{"globals": {"selected": 10 ** 6}}, {"globals": {"active_corps": 2 ** 31 - 1}},
       {"globals": {"selected": -10 ** 6}}, {"globals": {"turn": 10 ** 30}}, {"globals": {"visibility": 99}},
       {"globals": {"player": -7}}, {"globals": {"phase": 4, "decision": 5, "active_corps": 8, "player": 1,
                                                 "selected": 2 ** 31 - 1}},
       {"units": {"IC1": "1410"}, "globals": {"attack_choices": 2 ** 20}}]
e = raw_env()
e.reset(seed=1)
for pos in bad:
    try:
        e.reset(seed=1, options={"position": pos})
    except ScenarioError as exc:
        print("refused:", exc)
    else:
        sys.exit(f"accepted {pos}")
    for a in e.agents:
        e.observe(a)          # the compiled observation kernel on whatever state the env holds
print("done")
"""


def test_12_1_out_of_range_position_values_are_refused_in_a_subprocess_without_a_crash():
    r = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stdout.count("refused: position: field 'globals.") == 8 and r.stdout.endswith("done\n")
    assert "Traceback" not in r.stderr


def test_12_4_options_are_type_checked():
    for name, value in (("visibility", "false"), ("turn_ends_chit", "false"), ("turn_ends_chit", 1),
                        ("visibility", 0), ("position", "start"), ("position", [1])):
        with pytest.raises(ScenarioError, match=re.escape(f"field '{name}' = {value!r}")):
            E.new_state({name: value}, Dice(0))
    s = E.new_state({"visibility": True, "turn_ends_chit": True}, Dice(0))
    assert E.to_position(s)["globals"]["visibility_option"] == 1
    assert E.to_position(s)["globals"]["turn_ends_option"] == 1
    e = raw_env()
    with pytest.raises(ScenarioError, match="'visibility' = 'false'"):
        e.reset(seed=0, options={"visibility": "false"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        e.reset(seed=0, options={"no_such_option": 1})
    assert any("no_such_option" in str(w.message) for w in caught)


def _random_game(seed: int, options: dict):
    """(state, dice, rng) of a new game and the random player's generator."""
    return E.new_state(options, Dice(seed)), Dice(seed + 1), np.random.default_rng(seed)


def test_11_12_a_position_taken_at_any_decision_continues_exactly():
    kinds: set[str] = set()
    for seed, options in ((5, {}), (6, {"turn_ends_chit": True, "visibility": True}), (7, {}), (8, {})):
        _round_trips(seed, options, kinds)
    assert kinds == set(DECISION_KEYS) - {"none"}, kinds           # every kind of decision was tried


def _round_trips(seed: int, options: dict, kinds: set[str]) -> None:
    """Play a random game; at every decision rebuild the state from its position and compare the digest,
    the mask and both observations; at the first decision of each kind (and every 97th) also the next 40
    decisions under the same dice."""
    s, dice, rng = _random_game(seed, options)
    seen: set[str] = set()
    n = 0
    while not E.is_terminal(s):
        key = E.decision_key(s)
        pos = json.loads(json.dumps(E.to_position(s)))
        s2 = E.new_state({"position": pos}, Dice(0))          # a pending decision rolls nothing
        assert s2.digest() == s.digest(), (n, key)
        assert np.array_equal(E.legal_mask(s2), E.legal_mask(s)), (n, key)
        for p in (0, 1):
            assert np.array_equal(E.observe(s2, p), E.observe(s, p)), (n, key, p)
        if key not in seen or n % 97 == 0:                    # the continuation, under the same dice
            seen.add(key)
            a, b = s.clone(), s2
            da, db = Dice(1000 + n), Dice(1000 + n)
            r1, r2 = np.random.default_rng(n), np.random.default_rng(n)
            for _ in range(40):
                if E.is_terminal(a):
                    break
                E.apply(a, int(r1.choice(E.legal_actions(a))), da)
                E.apply(b, int(r2.choice(E.legal_actions(b))), db)
                assert a.digest() == b.digest()
        E.apply(s, int(rng.choice(E.legal_actions(s))), dice)
        n += 1
    pos = json.loads(json.dumps(E.to_position(s)))
    assert _read_position(pos).digest() == s.digest()              # the final position reads back as it was,
    with pytest.raises(ScenarioError, match="this position is a finished game; there is nothing to play from it"):
        E.new_state({"position": pos}, Dice(0))                     # but is no start position (audit 2, finding 5)
    kinds |= seen


def _read_position(pos: dict):
    """The state ``pos`` describes, as ``position.build_state`` reads it (without the engine's checks that it is a
    position one can play from)."""
    from wargame_envs.breitenfeld.position import build_state
    from wargame_envs.core.options import check_options

    return build_state(E, check_options(E.name, {"position": pos}, E.OPTIONS))


def test_11_14_summary_is_a_plain_dict_of_the_whole_state():
    pos = position({"IRK": "1410", "SL1": "1310", "SL2": {"hex": "1210", "disrupted": True}, "IC1": "eliminated"},
                   leaders={"horn": "1310", "tilly": "eliminated"}, artillery={"IA1": {"hex": "1806", "owner": "allied"}},
                   active="allied_left", cup=["imp_center"], turn=3,
                   globals={"eliminated_sp_2": 12, "vp_allied": 22, "demoralized_bits": 2})
    s = E.new_state({"position": pos}, Dice(0))
    d = E.summary(s)
    assert json.loads(json.dumps(d)) == d
    assert (d["battle"], d["turn"], d["phase"], d["over"], d["winner"]) == ("breitenfeld_v0", 3, "combat", False, None)
    assert d["cup"] == ["imp_center"] and d["active_corps"] == "allied_left"
    assert d["victory_points"] == {"allied": 22 + 5, "imperial": 0}          # + the captured gun (5.33)
    assert d["eliminated_strength"]["imperial"] == 12
    assert d["demoralized"] == {"swedes": False, "saxons": True, "imperial": False}
    units = {u["id"]: u for u in d["units"]}
    assert set(units) == {"IRK", "SL1", "SL2", "IC1"}
    assert units["SL2"] == {"id": "SL2", "side": "allied", "army": "swedes", "corps": "allied_left", "hex": "1210",
                            "strength": 3, "status": "disrupted"}
    assert units["SL1"]["strength"] == 5 and units["SL1"]["status"] == "ok"
    assert units["IC1"]["hex"] is None and units["IC1"]["status"] == "eliminated"
    assert {l["id"]: l["status"] for l in d["leaders"]} == {"horn": "ok", "tilly": "eliminated"}
    assert d["artillery"] == [{"id": "IA1", "owner": "allied", "hex": "1806"}]
    assert d["to_move"] == "allied" and d["decision"] == E.decision_key(s) == "combat"
    s2 = s.clone()
    E.summary(s2)
    assert s2 == s                                                            # read-only
    over = _read_position({**pos, "phase": "over", "globals": {"vp_imperial": 40}})  # not a start position
    d = E.summary(over)
    assert (d["over"], d["winner"], d["to_move"]) == (True, "imperial", None)
