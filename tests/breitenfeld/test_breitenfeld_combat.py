"""Combat rules (7.x, 8.x, 9.1, 10.1, 12.5 charge) built from positions and scripted dice."""

from __future__ import annotations

import pytest
from bf_helpers import (ALLIED, E, IMPERIAL, adjacent, attack, decision, hexa, leader, legal, legal_hexes, legal_pieces,
                        play, start, unit)

from wargame_envs.breitenfeld import actions as A
from wargame_envs.core.errors import IllegalActionError

# Allied Left Wing (Horn 2): horse SL1 5-8, musketeers SLM1/SLM2 3-5. Imperial Croats IRK 4-9.
EX_8_0 = {"IRK": "1410", "SL1": "1310", "SLM1": "1409", "SLM2": "1411"}


def test_8_0_odds_example_13_vs_4_is_3_to_1():
    # 5 + Horn's 2 (10.11) + 3 + 3 = 13 against 4: 3.25 rounds down to 3-1; die 4 on 3-1 is Dx.
    s, d = start(EX_8_0, rolls=[4], leaders={"horn": "1310"}, active="allied_left")
    assert decision(s) == "combat" and E.current_player(s) == ALLIED
    play(s, d, hexa("1410"), hexa("1310"), hexa("1409"), hexa("1411"))
    assert E.action_to_str(s, A.RESOLVE) == "attack 1410 with 1310+1409+1411 at 3-1"
    play(s, d, A.RESOLVE, A.ADD_LEADERS)
    assert any("13 vs 4 = 3-1, die 4 -> Dx" in e for e in s.log)
    assert unit(s, "IRK")["disrupted"]
    # Dx: the attacker chooses which of its units is disrupted (8.6)
    assert decision(s) == "loss" and E.current_player(s) == ALLIED
    assert legal_hexes(s) == {"1310", "1409", "1411"}
    play(s, d, hexa("1409"))
    assert unit(s, "SLM1")["disrupted"] and not unit(s, "SL1")["disrupted"]


def test_8_0_odds_round_in_defenders_favour_below_one():
    # 8 + 8 = 16 vs 3 = 5.33 -> 5-1
    s, d = start({"SLM1": "1410", "IR1": "1310", "IR2": "1409"}, rolls=[6], active="imp_right")
    play(s, d, hexa("1410"), hexa("1310"), hexa("1409"))
    assert E.action_to_str(s, A.RESOLVE).endswith("at 5-1")
    # 3 vs 5 = 1-1.67 -> 1-2
    s, d = start({"IV1": "1410", "SLM1": "1310"}, rolls=[3], active="allied_left")
    play(s, d, hexa("1410"), hexa("1310"))
    assert E.action_to_str(s, A.RESOLVE).endswith("at 1-2")
    # 3 vs 12 = 1-4 exactly; die 3 -> Ad
    s, d = start({"IC1": "1410", "SLM1": "1310"}, rolls=[3], active="allied_left")
    play(s, d, hexa("1410"), hexa("1310"))
    assert E.action_to_str(s, A.RESOLVE).endswith("at 1-4")
    play(s, d, A.RESOLVE)
    assert any("3 vs 12 = 1-4, die 3 -> Ad" in e for e in s.log)
    assert unit(s, "SLM1")["disrupted"]


def test_8_6_odds_beyond_the_table_use_the_end_columns():
    s, d = start({"SLM1": "1410", "IC1": "1310", "IC2": "1409"}, rolls=[1], active="imp_center")
    play(s, d, hexa("1410"), hexa("1310"), hexa("1409"))
    assert E.action_to_str(s, A.RESOLVE).endswith("at 6-1")     # 24 vs 3 = 8-1 -> 6-1
    play(s, d, A.RESOLVE)
    assert unit(s, "SLM1")["hex"] == "eliminated"                # 6-1 die 1: De


def test_8_11_8_12_obligations_block_ending_combat():
    s, d = start({"IRK": "1410", "SL1": "1310"}, rolls=[1], active="allied_left")
    assert A.END not in legal(s)                                 # the unit in an enemy ZOC must attack
    with pytest.raises(IllegalActionError):
        E.apply(s, A.END, d)
    attack(s, d, ["1410"], ["1310"])
    assert E.is_terminal(s)                                      # turn 10 ended


def test_8_11_voluntary_attack_on_disrupted_enemy_may_be_skipped():
    s, d = start({"IRK": {"hex": "1410", "disrupted": True}, "SL1": "1310"}, active="allied_left")
    assert A.END in legal(s) and hexa("1410") in legal(s)        # 9.12: no ZOC, attack voluntary
    play(s, d, A.END)
    assert E.is_terminal(s)


def test_8_11_exception_enemy_next_to_inactive_friendly_may_be_ignored():
    # SL1 (active) is next to IRK (1410) and IR1 (1309); IR1 is also next to SC1 (inactive corps): only IRK
    # must be attacked. SL1 may attack IRK alone.
    units = {"SL1": "1310", "IRK": "1410", "IR1": "1309", "SC1": "1209"}
    assert adjacent("1310", "1309") and adjacent("1309", "1209") and not adjacent("1209", "1410")
    s, d = start(units, rolls=[1], active="allied_left")
    play(s, d, hexa("1410"), hexa("1310"))
    assert A.RESOLVE in legal(s)                                 # resolving without IR1 is allowed
    # whereas without the inactive neighbour IR1 must be included (8.21)
    units2 = {"SL1": "1310", "IRK": "1410", "IR1": "1309"}
    s2, d2 = start(units2, rolls=[1], active="allied_left")
    play(s2, d2, hexa("1410"), hexa("1310"))
    assert A.RESOLVE not in legal(s2) and hexa("1309") in legal(s2)
    play(s2, d2, hexa("1309"), A.RESOLVE)
    assert any("Attack on 1309+1410 by 1310: 5 vs 12" in e for e in s2.log)   # 8.21 combined defence


def test_8_12_every_obligated_unit_attacks_and_mask_never_strands_one():
    # SLM1 (1409) and SLM2 (1411) both touch only IRK (1410): an attack by SL1 alone on IRK would leave them
    # without an enemy to attack, so the mask forces them in.
    s, d = start(EX_8_0, rolls=[6], active="allied_left")
    play(s, d, hexa("1410"), hexa("1310"))
    assert A.RESOLVE not in legal(s)
    assert {"1409", "1411"} <= legal_hexes(s)


def test_8_14_no_unit_attacks_twice_and_no_defender_is_attacked_twice():
    # Two separate defenders; after the first attack, the attacker cannot attack again, the defender
    # cannot be attacked again.
    units = {"SL1": "1310", "SL2": "1311", "IRK": "1410", "ILK": "1210"}
    assert adjacent("1310", "1410") and adjacent("1311", "1410") and adjacent("1311", "1210") and adjacent("1310", "1210")
    s, d = start(units, rolls=[6, 6], active="allied_left")
    # both Croats touch both horse: one combat each is possible
    play(s, d, hexa("1410"), hexa("1310"))
    assert A.RESOLVE in legal(s)
    play(s, d, A.RESOLVE)                                        # 5 vs 4 = 1-1, die 6: Ad
    assert unit(s, "SL1")["disrupted"]
    assert decision(s) == "combat" and legal_hexes(s) == {"1210"} and A.END not in legal(s)
    play(s, d, hexa("1210"))
    assert legal_hexes(s) == {"1311"}                            # SL1 attacked already (and is disrupted)
    play(s, d, hexa("1311"), A.RESOLVE)
    assert E.is_terminal(s)


def test_8_22_several_attackers_combine_against_one_hex():
    s, d = start({"IC1": "1410", "SC1": "1310", "SC2": "1409", "SC3": "1411", "SC4": "1510"}, rolls=[3],
                 active="allied_center")
    play(s, d, hexa("1410"), hexa("1310"), hexa("1409"), hexa("1411"), hexa("1510"))
    assert E.action_to_str(s, A.RESOLVE).endswith("at 2-1")      # 32 vs 12
    play(s, d, A.RESOLVE)                                        # 2-1 die 3: Dx
    assert unit(s, "IC1")["disrupted"] and decision(s) == "loss"


def test_8_23_coordinated_attack_with_not_yet_activated_corps():
    # Disrupted Croats at 1410 (no ZOC): SL1 (active, Left Wing) and SC1 (Center, chit still in the cup, not
    # in an enemy ZOC) attack together; SC1 may then neither move nor attack this turn.
    s, d = start({"IRK": {"hex": "1410", "disrupted": True}, "SL1": "1310", "SC1": "1409", "SC2": "0510"},
                 rolls=[5, 0], active="allied_left", cup=["allied_center"])
    play(s, d, hexa("1410"))
    assert "1409" in legal_hexes(s)
    play(s, d, hexa("1310"), hexa("1409"), A.RESOLVE)            # 5 + 8 = 13 vs 2 = 6-1, die 5: Dd
    assert unit(s, "IRK")["hex"] == "eliminated"                  # disrupted again: eliminated (9.0)
    assert "spent" in unit(s, "SC1")["flags"] and "moved" in unit(s, "SC1")["flags"]
    # next chit: the Center (roll 0 of 1): SC1 may not move, SC2 may
    assert decision(s) == "move_select" and E.to_position(s)["active_corps"] == "allied_center"
    assert legal_pieces(s) == {"SC2"}


def test_8_23_units_in_enemy_zoc_cannot_join_a_coordinated_attack():
    s, d = start({"IRK": {"hex": "1410", "disrupted": True}, "SL1": "1310", "SC1": "1409", "IC1": "1408"},
                 rolls=[1], active="allied_left", cup=["allied_center"])
    play(s, d, hexa("1410"))
    assert "1409" not in legal_hexes(s)                          # SC1 is in IC1's ZOC


def test_8_4_terrain_doubles_defence_town_and_woods_not_cumulative():
    # 0714 is a town (Podelwitz)
    s, d = start({"IC1": "0714", "SC1": "0814", "SC2": "0713"}, rolls=[1], active="allied_center")
    assert adjacent("0714", "0814") and adjacent("0714", "0713")
    play(s, d, hexa("0714"), hexa("0814"), hexa("0713"))
    assert E.action_to_str(s, A.RESOLVE).endswith("at 1-2")       # 16 vs 24
    play(s, d, A.RESOLVE)
    assert any("16 vs 24 = 1-2 (0714 town x2)" in e for e in s.log)


def test_8_4_hilltop_doubles_only_if_every_attacker_is_in_a_slope_hex():
    # 1806 hilltop; 1706 slope, 1805 hilltop
    s, d = start({"SC1": "1806", "IC1": "1706", "IC2": "1707"}, rolls=[1], active="imp_center")
    assert adjacent("1806", "1706") and adjacent("1806", "1707")
    play(s, d, hexa("1806"), hexa("1706"), hexa("1707"))
    assert E.action_to_str(s, A.RESOLVE).endswith("at 1-1")       # 24 vs 16
    s, d = start({"SC1": "1806", "IC1": "1706", "IC2": "1805"}, rolls=[1], active="imp_center")
    play(s, d, hexa("1806"), hexa("1706"), hexa("1805"))
    assert E.action_to_str(s, A.RESOLVE).endswith("at 3-1")       # one attacker on the hilltop: 24 vs 8


def test_9_13_disrupted_defender_uses_back_strength_and_leader_is_halved():
    # 10.12: disrupted tercio 6 + Tilly 2 halved = 7 ; 8 attacks 7 -> 1-1
    s, d = start({"IC1": {"hex": "1410", "disrupted": True}, "SC1": "1310"}, rolls=[1],
                 leaders={"tilly": "1410"}, active="allied_center")
    play(s, d, hexa("1410"), hexa("1310"))
    play(s, d, A.RESOLVE, A.ADD_LEADERS)
    assert any("8 vs 7 = 1-1" in e for e in s.log)


def test_9_14_disrupted_units_never_attack_and_have_no_obligation():
    s, d = start({"IRK": "1410", "SL1": {"hex": "1310", "disrupted": True}}, active="allied_left")
    # no possible attack at all: the combat phase passes without a decision and turn 10 ends
    assert E.is_terminal(s)


def test_10_13_only_one_leader_adds_to_a_unit():
    s, d = start({"IRK": "1410", "SR1": "1310"}, rolls=[1], leaders={"gustavus": "1310", "baner": "1310"},
                 active="allied_right")
    play(s, d, hexa("1410"), hexa("1310"))
    assert E.action_to_str(s, A.RESOLVE).endswith("at 2-1")       # 6 + 3 (best leader only) = 9 vs 4


def test_8_6_ax_defender_chooses_which_of_its_units_is_disrupted():
    # one attacker next to two defenders (8.21); 1-1 die 4 -> Ax: the Imperial player decides
    s, d = start({"SC1": "1310", "IRK": "1410", "ILK": "1309"}, rolls=[4], active="allied_center")
    play(s, d, hexa("1410"), hexa("1310"), hexa("1309"), A.RESOLVE)
    assert any("8 vs 8 = 1-1, die 4 -> Ax" in e for e in s.log)
    assert unit(s, "SC1")["disrupted"]
    assert decision(s) == "loss" and E.current_player(s) == IMPERIAL
    assert legal_hexes(s) == {"1410", "1309"}
    play(s, d, hexa("1309"))
    assert unit(s, "ILK")["disrupted"] and not unit(s, "IRK")["disrupted"]


def test_8_6_ae_eliminates_attackers_and_scores():
    s, d = start({"IC1": "1410", "SLM1": "1310"}, rolls=[6], active="allied_left")
    play(s, d, hexa("1410"), hexa("1310"), A.RESOLVE)            # 3 vs 12 = 1-4, die 6: Ae
    assert unit(s, "SLM1")["hex"] == "eliminated"
    assert E.to_position(s)["victory_points"]["imperial"] == 3


def test_12_5_charge_doubles_cavalry_against_cavalry_then_disrupts():
    # SR1 moved 2 hexes this activation (start 1110 -> 1310): charges the cuirassiers: 12 vs 8 = 1-1
    units = {"SR1": {"hex": "1310", "start": "1110"}, "IR1": "1410"}
    s, d = start(units, rolls=[4], active="allied_right")
    play(s, d, hexa("1410"), hexa("1310"))
    assert A.RESOLVE_CHARGE in legal(s)
    assert E.action_to_str(s, A.RESOLVE_CHARGE).endswith("charging at 1-1")
    play(s, d, A.RESOLVE_CHARGE)                                 # 1-1 die 4: Ax
    assert unit(s, "IR1")["disrupted"] and unit(s, "SR1")["disrupted"]


def test_12_5_charge_not_allowed_against_infantry_or_without_moving():
    s, d = start({"SR1": {"hex": "1310", "start": "1110"}, "IC1": "1410"}, rolls=[1], active="allied_right")
    play(s, d, hexa("1410"), hexa("1310"))
    assert A.RESOLVE_CHARGE not in legal(s)
    s, d = start({"SR1": {"hex": "1310", "start": "1210"}, "IR1": "1410"}, rolls=[1], active="allied_right")
    play(s, d, hexa("1410"), hexa("1310"))
    assert A.RESOLVE_CHARGE not in legal(s)                      # moved one hex only


def test_12_5_swedish_cavalry_may_charge_units_of_a_demoralized_army():
    units = {"SR1": {"hex": "1310", "start": "1110"}, "IC1": "1410"}
    s, d = start(units, rolls=[1], active="allied_right", globals={"demoralized_bits": 4})   # Imperial army
    play(s, d, hexa("1410"), hexa("1310"))
    assert A.RESOLVE_CHARGE in legal(s)
    assert E.action_to_str(s, A.RESOLVE_CHARGE).endswith("charging at 1-1")   # 12 vs 12
    # Saxon horse (not Swedish) may not
    units = {"XC1": {"hex": "1310", "start": "1110"}, "IC1": "1410"}
    s, d = start(units, rolls=[1], active="saxons", globals={"demoralized_bits": 4})
    play(s, d, hexa("1410"), hexa("1310"))
    assert A.RESOLVE_CHARGE not in legal(s)


def test_12_5_charge_on_disrupted_cavalry_is_not_doubled_9_13():
    units = {"SR1": {"hex": "1310", "start": "1110"}, "IR1": {"hex": "1410", "disrupted": True}}
    s, d = start(units, rolls=[6], active="allied_right")
    play(s, d, hexa("1410"), hexa("1310"))
    assert A.RESOLVE_CHARGE in legal(s)
    play(s, d, A.RESOLVE_CHARGE)
    assert any("6 vs 4 = 1-1 (charge (not doubled against disrupted units, 9.13))" in e for e in s.log)


def test_10_0_leader_alone_in_enemy_zoc_is_eliminated():
    # De eliminates the tercio stacked with Tilly; Tilly is then alone next to the attacker: eliminated
    s, d = start({"IC1": {"hex": "1410", "disrupted": True}, "SC1": "1310", "SC2": "1409"}, rolls=[1],
                 leaders={"tilly": "1410"}, active="allied_center")
    play(s, d, hexa("1410"), hexa("1310"), hexa("1409"), A.RESOLVE, A.ADD_LEADERS)  # 16 vs 7 = 2-1 die 1: Dd
    assert unit(s, "IC1")["hex"] == "eliminated"
    pos = E.to_position(s)
    assert pos["leaders"]["tilly"]["hex"] == "eliminated"
    assert pos["victory_points"]["allied"] == 12 + 10


@pytest.mark.parametrize("charge", [False, True])
def test_10_0_a_leader_left_alone_by_a_charge_result_is_caught_before_the_charger_is_disrupted(charge):
    """Two Swedish horse that moved 3 hexes attack the disrupted cuirassier stacked with Pappenheim: 12 vs 5 =
    2-1 either way (9.13: no doubling against a disrupted unit), die 4: Dx. The cuirassier is eliminated and
    Pappenheim is "eliminated immediately" (10.0), charge or not: the charger's disruption (12.5) comes after
    the result and may not open the zone of control he is caught in."""
    units = {"SR1": {"hex": "1525", "start": "1124"}, "SR3": {"hex": "1425", "start": "1126"},
             "IL1": {"hex": "1424", "disrupted": True}}
    s, d = start(units, rolls=[4], leaders={"pappenheim": "1424"}, active="allied_right", turn=10)
    play(s, d, hexa("1424"), hexa("1525"), hexa("1425"), A.RESOLVE_CHARGE if charge else A.RESOLVE)
    while decision(s) == "leader":
        play(s, d, A.ADD_LEADERS)
    if decision(s) == "loss":
        play(s, d, hexa("1525"))  # the attacker's unit for the Dx
    assert unit(s, "IL1")["hex"] == "eliminated"
    assert leader(s, "pappenheim")["hex"] == "eliminated"
    assert any("Pappenheim caught without a friendly unit in an enemy zone of control at 1424" in e for e in s.log)
    assert any("disrupted after its charge" in e for e in s.log) == charge


@pytest.mark.parametrize("attackers", [["1310"], ["1310", "1409"]])
def test_10_0_a_leader_left_alone_by_a_dx_result_is_caught_before_the_attacker_is_disrupted(attackers):
    """Dx against the disrupted tercio stacked with Tilly (8.6): the tercio is eliminated and Tilly is alone next
    to the attackers. He is caught "immediately" (10.0), before the attacker's own Dx disruption takes its zone of
    control (9.12): with one attacker as with two (until 2026-12-05 a lone attacker's disruption came first and
    Tilly survived). One attacker: 8 vs 7 = 1-1, die 2; two: 16 vs 7 = 2-1, die 3."""
    units = {"IC1": {"hex": "1410", "disrupted": True}, "SC1": "1310", "SC2": "1409"}
    s, d = start(units, rolls=[2 if len(attackers) == 1 else 3], leaders={"tilly": "1410"},
                 active="allied_center", turn=10)
    play(s, d, hexa("1410"), *[hexa(h) for h in attackers], A.RESOLVE)
    while decision(s) == "leader":
        play(s, d, A.ADD_LEADERS)
    if decision(s) == "loss":
        play(s, d, hexa("1409"))
    assert any("-> Dx" in e for e in s.log) and unit(s, "IC1")["hex"] == "eliminated"
    assert leader(s, "tilly")["hex"] == "eliminated"
    assert E.victory_points(s)[0] == 12 + 10
    assert unit(s, "SC1")["disrupted"] == (len(attackers) == 1)


def test_4_1_c_10_11_only_leaders_of_the_activated_corps_add_to_an_attack():
    # Gustavus (allied_right, 3) parked on a unit of the activated Left Wing adds nothing: 5 vs 4
    s, d = start({"IRK": "1410", "SL1": "1310"}, rolls=[1], leaders={"gustavus": "1310"}, active="allied_left")
    play(s, d, hexa("1410"), hexa("1310"), A.RESOLVE)   # no eligible leader: no leader decision, rolled at once
    assert any("Attack on 1410 by 1310: 5 vs 4 = 1-1" in e for e in s.log)
    # Horn (allied_left, 2) on the same unit may add his 2: 7 vs 4
    s, d = start({"IRK": "1410", "SL1": "1310"}, rolls=[1], leaders={"horn": "1310"}, active="allied_left")
    play(s, d, hexa("1410"), hexa("1310"), A.RESOLVE)
    assert decision(s) == "leader" and E.current_player(s) == ALLIED
    play(s, d, A.ADD_LEADERS)
    assert any("Attack on 1410 by 1310: 7 vs 4 = 1-1" in e for e in s.log)
    # a helper of a not-yet-activated corps (8.23) gets nothing from its own corps' leader: 5 + 6 vs 2
    s, d = start({"IRK": {"hex": "1410", "disrupted": True}, "SL1": "1310", "SR1": "1409"}, rolls=[1, 0],
                 leaders={"gustavus": "1409"}, active="allied_left", cup=["allied_right"])
    play(s, d, hexa("1410"), hexa("1310"), hexa("1409"), A.RESOLVE)
    assert any("Attack on 1410 by 1310+1409: 11 vs 2" in e for e in s.log)
    # the defender may add any of his leaders in a defending hex (10.11), activated or not
    s, d = start({"IRK": "1410", "SL1": "1310"}, rolls=[1], leaders={"tilly": "1410"}, active="allied_left")
    play(s, d, hexa("1410"), hexa("1310"), A.RESOLVE)
    assert decision(s) == "leader" and E.current_player(s) == IMPERIAL


def test_10_11_adding_a_leaders_value_is_the_owners_choice():
    # SR1 6 + Gustavus 3 attack the disrupted ILK 2 + Pappenheim's 2 halved (10.12); die 2
    def fight(att_add: bool, def_add: bool) -> str:
        s, d = start({"ILK": {"hex": "1410", "disrupted": True}, "SR1": "1310"}, rolls=[2],
                     leaders={"gustavus": "1310", "pappenheim": "1410"}, active="allied_right")
        play(s, d, hexa("1410"), hexa("1310"), A.RESOLVE)
        assert decision(s) == "leader" and E.current_player(s) == ALLIED
        assert set(legal(s)) == {A.ADD_LEADERS, A.DECLINE_LEADERS}
        assert E.action_to_str(s, A.DECLINE_LEADERS) == "decline the leaders' values: attack 1410 with 1310 at 2-1"
        play(s, d, A.ADD_LEADERS if att_add else A.DECLINE_LEADERS)
        assert decision(s) == "leader" and E.current_player(s) == IMPERIAL
        play(s, d, A.ADD_LEADERS if def_add else A.DECLINE_LEADERS)
        return next(e for e in s.log if e.startswith("Attack on 1410"))
    D = E.D
    col = {lab: i for i, lab in enumerate(D.crt_columns)}
    cases = {(True, True): ("9 vs 3", "3-1"), (True, False): ("9 vs 2", "4-1"),
             (False, True): ("6 vs 3", "2-1"), (False, False): ("6 vs 2", "3-1")}
    for (aa, da), (sp, odds) in cases.items():
        line = fight(aa, da)
        assert f"{sp} = {odds}, die 2 -> {D.crt[1][col[odds]]}" in line, line
