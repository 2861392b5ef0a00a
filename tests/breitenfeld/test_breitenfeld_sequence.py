"""Sequence of play (4.1), artillery (5.x), disruption removal (9.2, 10.2, 11.11), victory."""

from __future__ import annotations

import pytest
from bf_helpers import ALLIED, IMPERIAL, E, corps, decision, hexa, legal, legal_hexes, play, position, start, unit

from wargame_envs.breitenfeld import actions as A
from wargame_envs.core import Dice, ScriptedDice


def test_10_21_leader_example():
    # Leader of value 2 stacked with a disrupted cavalry unit two hexes from the nearest enemy: die 3 + 2 = 5.
    s, d = start({"SL1": {"hex": "1310", "disrupted": True}, "IC1": "1510"}, leaders={"horn": "1310"},
                 phase="turn_start", turn=10, rolls=[3], cup=[])
    assert any("die 3 + leader 2 = 5 -> undisrupted [9.2, 10.21]" in e for e in s.log)
    assert not unit(s, "SL1")["disrupted"]


def test_9_2_removal_needs_five_and_not_in_enemy_zoc_10_25():
    s, d = start({"SL1": {"hex": "1310", "disrupted": True}, "SL2": {"hex": "0510", "disrupted": True},
                  "IC1": "1410"}, leaders={"horn": "1310"}, phase="turn_start", turn=10, rolls=[4], cup=[])
    # SL1 is in IC1's ZOC: no roll even with Horn (10.25); SL2 rolls 4: stays disrupted
    assert unit(s, "SL1")["disrupted"] and unit(s, "SL2")["disrupted"]
    assert sum("Disruption removal" in e for e in s.log) == 1


def test_10_24_one_leader_helps_several_units_10_22_capped_at_six():
    s, d = start({"SL1": {"hex": "1310", "disrupted": True}, "SL2": {"hex": "1311", "disrupted": True}},
                 leaders={"gustavus": "1310"}, phase="turn_start", turn=10, rolls=[2, 6], cup=[])
    assert not unit(s, "SL1")["disrupted"] and not unit(s, "SL2")["disrupted"]
    assert any("die 6 + leader 3 = 6" in e for e in s.log)


def test_11_11_demoralized_army_cannot_undisrupt_infantry():
    s, d = start({"SC1": {"hex": "0510", "disrupted": True}, "SL1": {"hex": "0512", "disrupted": True}},
                 phase="turn_start", turn=10, rolls=[6], cup=[], globals={"demoralized_bits": 1})
    assert unit(s, "SC1")["disrupted"] and not unit(s, "SL1")["disrupted"]


def test_9_2_moderate_visibility_needs_a_six():
    s, d = start({"SL1": {"hex": "0510", "disrupted": True}}, phase="turn_start", turn=10, rolls=[3, 5], cup=[],
                 options={"visibility": True}, visibility="moderate")
    # visibility roll 3: moderate; removal die 5 < 6
    assert unit(s, "SL1")["disrupted"]


def test_5_1_artillery_fire_table_and_simultaneous_phase():
    # Swedish gun at 1110: IC1 at 1410 (range 3) and IC2 at 1106 (range 4). Imperial gun at 1106: SC1 (range 4).
    units = {"SC1": "1110", "IC1": "1410", "IC2": "1106"}
    arts = {"SA1": "1110", "IA1": "1106"}
    s, d = start(units, artillery=arts, phase="artillery", turn=10, rolls=[3, 3], cup=[])
    assert decision(s) == "artillery" and E.current_player(s) == ALLIED
    assert legal_hexes(s) == {"1410", "1106"}
    play(s, d, hexa("1410"))
    # the Allied target is assigned but not rolled yet: the Imperial player assigns his own first
    assert decision(s) == "artillery" and E.current_player(s) == IMPERIAL
    assert not unit(s, "IC1")["disrupted"] and legal_hexes(s) == {"1110"}
    play(s, d, hexa("1110"))
    # resolved together: range 3 hits on 1-3 (die 3: disrupted), range 4 hits on 1-2 (die 3: no effect)
    assert unit(s, "IC1")["disrupted"] and not unit(s, "SC1")["disrupted"]
    assert any("range 3, hits on 1-3): die 3 -> disrupted [5.1]" in e for e in s.log)
    assert any("range 4, hits on 1-2): die 3 -> no effect [5.1]" in e for e in s.log)


def test_5_23_los_blocked_by_units_and_blocking_terrain_5_26_end_hexes_do_not_block():
    # gun at 0712 fires at the town hex 0714 (target in a town: allowed) but not past it to 0716
    units = {"IC1": "0714", "IC2": "0716", "SC1": "0712"}
    s, d = start(units, artillery={"SA1": "0712"}, phase="artillery", turn=10, cup=[])
    assert legal_hexes(s) == {"0714"}
    assert A.END in legal(s)


def test_5_22_los_along_a_hexside_blocked_only_if_both_hexes_block():
    g = E.grid
    a, b = g.index["1010"], g.index["1210"]
    line = g.line(a, b)
    pair = [c for c in line[1:-1] if len(c) == 2]
    assert pair, "1010 -> 1210 runs along a hexside"
    h1, h2 = (g.ids[x] for x in pair[0])
    one = start({"IC1": "1210", h1: None} if False else {"IC1": "1210", "SC2": h1, "SC1": "1010"},
                artillery={"SA1": "1010"}, phase="artillery", turn=10, cup=[])[0]
    assert "1210" in legal_hexes(one)
    both = start({"IC1": "1210", "SC2": h1, "SC3": h2, "SC1": "1010"}, artillery={"SA1": "1010"},
                 phase="artillery", turn=10, cup=[])[0]
    assert "1210" not in legal_hexes(both)


@pytest.mark.parametrize("blocker, blocks", [("1519", True), ("1319", True), ("1620", True), (None, False)])
def test_5_21_a_hex_whose_corner_the_line_of_sight_cuts_intervenes(blocker, blocks):
    """5.21 "lay a straight-edge from the hex of the bombarding Artillery counter to the target hex": the line
    from 1117 to 1721 (range 7, all clear) crosses the corners of 1319 and 1519 as well as the hexes nearest it
    (1620...); a unit in any of them blocks the bombardment, not only one in a hex the line runs through the
    middle of."""
    units = {"IC1": "1721", "SC1": "0917"}
    if blocker:
        units["SC2"] = blocker
    s = start(units, artillery={"SA1": "1117"}, phase="artillery", turn=10, cup=[])[0]
    assert ("1721" not in legal_hexes(s)) == blocks


def test_5_24_hilltop_gun_ignores_blockers_near_the_target_5_25_hill_to_hill():
    # The line 1810 -> 1410 runs along the hexsides 1710/1711 and 1510/1511 (5.22: both must block).
    # From the hilltop gun, blockers less than half the range (4) from the target are ignored (5.24).
    units = {"IC1": "1810", "SC1": "1410", "SC2": "1510", "SC3": "1511"}
    s, d = start(units, artillery={"IA1": "1810"}, phase="artillery", turn=10, cup=[])
    assert E.current_player(s) == IMPERIAL and "1410" in legal_hexes(s)
    units = {"IC1": "1810", "SC1": "1410", "SC2": "1710", "SC3": "1711"}
    s, d = start(units, artillery={"IA1": "1810"}, phase="artillery", turn=10, cup=[])
    assert "1410" not in legal_hexes(s)                # 3 hexes from the target: not ignored
    # the same blockers from a gun that is not on a hilltop
    units = {"IC1": "1610", "SC1": "1210", "SC2": "1310", "SC3": "1311"}
    s, d = start(units, artillery={"IA1": "1610"}, phase="artillery", turn=10, cup=[])
    assert "1210" not in legal_hexes(s)
    # 5.25: hilltop to hilltop over intervening hilltop hexes, beyond the table's range
    units = {"IC1": "1804", "SC1": "2016"}
    s, d = start(units, artillery={"IA1": "1804"}, phase="artillery", turn=10, cup=[])
    assert "2016" in legal_hexes(s)


def test_5_35_artillery_never_eliminates():
    units = {"SC1": "1110", "IC1": {"hex": "1310", "disrupted": True}}
    s, d = start(units, artillery={"SA1": "1110"}, phase="artillery", turn=10, rolls=[1], cup=[])
    play(s, d, hexa("1310"))
    assert unit(s, "IC1")["hex"] == "1310" and unit(s, "IC1")["disrupted"]


def test_4_1_c_chit_draw_uses_the_dice_and_activates_the_drawn_corps():
    s, d = start({"SC1": "0510", "IC1": "2010"}, leaders={"teuffel": "0510", "tilly": "2010"}, phase="activation",
                 turn=10, cup=["allied_center", "imp_center"], rolls=[1])
    assert decision(s) == "move_select" and E.to_position(s)["active_corps"] == "imp_center"
    assert E.current_player(s) == IMPERIAL
    assert any("Chit drawn: Tilly's Center" in e for e in s.log)


def test_4_1_c_leadership_three_chit_may_activate_another_corps_once_per_turn():
    units = {"SR1": "0520", "SC1": "0510"}
    s, d = start(units, leaders={"gustavus": "0520", "teuffel": "0510"}, phase="activation", turn=10,
                 cup=["allied_center", "allied_right"], rolls=[1])
    assert decision(s) == "swap" and E.current_player(s) == ALLIED
    assert set(legal(s)) == {corps("allied_right"), corps("allied_center")}
    play(s, d, corps("allied_center"))
    pos = E.to_position(s)
    assert pos["active_corps"] == "allied_center" and pos["cup"] == ["allied_right"]


def test_4_1_c_the_leadership_that_allows_the_exchange_comes_from_the_data_file(tmp_path):
    """``command.exchange_leadership`` (rules.toml, 3 as printed): raised to 4, Gustavus (3) may no longer
    exchange his corps' drawn chit, and the drawn corps is activated at once."""
    import shutil

    from wargame_envs.breitenfeld.data import DATA_DIR
    from wargame_envs.breitenfeld.rules import BreitenfeldEngine

    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    text = (d / "rules.toml").read_text()
    assert "exchange_leadership = 3" in text
    (d / "rules.toml").write_text(text.replace("exchange_leadership = 3", "exchange_leadership = 4"))
    eng = BreitenfeldEngine(d)
    pos = position({"SR1": "0520", "SC1": "0510"}, leaders={"gustavus": "0520", "teuffel": "0510"},
                   phase="activation", turn=10, cup=["allied_center", "allied_right"])
    s = eng.new_state({"position": pos}, ScriptedDice([1]))
    assert eng.decision_name(s) != "swap"
    assert eng.to_position(s)["active_corps"] == "allied_right"


def test_4_1_c_turn_ends_chit_added_with_two_chits_left():
    s, d = start({"SC1": "0510"}, phase="activation", turn=10, cup=["allied_center", "imp_center"], rolls=[2],
                 options={"turn_ends_chit": True})
    assert any("Turn Ends chit goes into the cup" in e for e in s.log)
    assert E.is_terminal(s)                            # drew the Turn Ends chit (index 2 of 3): turn 10 over


def test_4_1_d_game_ends_after_the_last_turn_and_victory_points_decide():
    s, d = start({"SC1": "0510"}, phase="activation", turn=10, cup=[],
                 globals={"vp_allied": 30, "vp_imperial": 12})
    assert E.is_terminal(s) and list(E.returns(s)) == [1.0, -1.0]
    s, d = start({"SC1": "0510"}, phase="activation", turn=10, cup=[], globals={"vp_allied": 5, "vp_imperial": 5})
    assert list(E.returns(s)) == [0.0, 0.0]


def test_11_0_demoralization_level_reached_by_eliminations():
    s, d = start({"IRK": {"hex": "1410", "disrupted": True}, "SL1": "1310", "SLM1": "1409"}, rolls=[1],
                 active="allied_left", globals={"eliminated_sp_2": 97})
    play(s, d, hexa("1410"), hexa("1310"), hexa("1409"), A.RESOLVE)
    assert any("Imperialists reach their Demoralization Level (101 of 100" in e for e in s.log)
    assert E.to_position(s)["globals"]["demoralized_bits"] == 4


def test_new_game_starts_with_the_allied_artillery_phase_and_is_deterministic():
    s1 = E.new_state({}, Dice(7))
    s2 = E.new_state({}, Dice(7))
    assert decision(s1) == "artillery" and E.current_player(s1) == ALLIED and s1 == s2
    with pytest.raises(Exception):
        E.new_state({"position": {"units": {"NOPE": "0101"}}}, ScriptedDice([]))


def test_12_3_a_hit_without_effect_on_a_disrupted_unit_releases_no_one():
    """12.3: the Imperialists may move once a unit is disrupted; an artillery hit on a unit already disrupted
    has no effect (5.35) and disrupts no one, so it releases nothing (a position made by hand: in play a
    disrupted unit means they are released already)."""
    units = {"SC1": "1110", "IC1": {"hex": "1410", "disrupted": True}}
    s, d = start(units, artillery={"SA1": "1110"}, phase="artillery", turn=1, rolls=[1] * 20, cup=[])
    assert E.to_position(s)["globals"]["imperial_may_move"] == 0
    play(s, d, hexa("1410"))
    assert any("die 1 -> already disrupted, no effect [5.35]" in e for e in s.log)
    assert E.to_position(s)["globals"]["imperial_may_move"] == 0
