"""Movement (6.x), command (10.3, 10.4), disrupted movement (9.15, 9.16, 11.12), capture (5.32),
releases (12.3, 12.4), exits (20.14)."""

from __future__ import annotations

from bf_helpers import (ALLIED, E, adjacent, decision, hexa, leader, legal, legal_hexes, legal_pieces, move, piece,
                        play, start, unit)

from wargame_envs.breitenfeld import actions as A


def dests(s, pid):
    play(s, None, piece(pid))
    return legal_hexes(s)


def test_6_14_6_21_movement_allowance_in_clear_terrain():
    s, d = start({"SC1": "1010"}, leaders={"teuffel": "1010"}, phase="movement", active="allied_center")
    got = dests(s, "SC1")
    assert "1010" in got                                          # staying is a choice
    assert all(E.grid.distance(E.grid.index["1010"], E.grid.index[h]) <= 5 for h in got)
    assert "1510" in got and "1610" not in got                    # MA 5


def test_6_21_town_costs_two_woods_three_for_cavalry():
    s, d = start({"SL1": "0716"}, phase="movement", active="allied_left")   # 0715/0714 towns next door
    play(s, d, piece("SL1"))
    from wargame_envs.breitenfeld.rules import BreitenfeldEngine  # noqa: F401
    s2, d2 = start({"IL1": "2222"}, leaders={"pappenheim": "2222"}, phase="movement", active="imp_left")
    play(s2, d2, piece("IL1"))
    assert {"2223"} <= legal_hexes(s2)                            # woods: 3 MP of 7
    # infantry with 4 MP: 2 clear + woods 2 = 4 reaches 2224 from 2222? 2222->2223 (2) ->2224 (2)
    s3, d3 = start({"IC1": "2222"}, leaders={"tilly": "2222"}, phase="movement", active="imp_center")
    play(s3, d3, piece("IC1"))
    assert "2224" in legal_hexes(s3) and "2225" not in legal_hexes(s3)


def test_6_24_slope_hexside_costs_one_more_from_a_slope_hex():
    # 1704 (slope) -> 1804 (hilltop) costs 1 + 1. A tercio with 1 MP (out of command and moderate
    # visibility: 4 quartered, 10.34) reaches the clear and slope hexes next to it but not the hilltop.
    s2, d2 = start({"IC1": "1704"}, phase="movement", active="imp_center", options={"visibility": True},
                   visibility="moderate", turn=10)
    got2 = dests(s2, "IC1")
    assert "1804" not in got2 and {"1604", "1705", "1703"} <= got2
    # with 2 MP (in command, moderate visibility) the climb is possible
    s, d = start({"IC1": "1704"}, leaders={"tilly": "1704"}, phase="movement", active="imp_center",
                 options={"visibility": True}, visibility="moderate", turn=10)
    got = dests(s, "IC1")
    assert "1804" in got and "1805" not in got


def test_6_12_6_31_6_32_no_entering_enemies_or_passing_friends():
    s, d = start({"SC1": "1310", "SC2": "1410", "IC1": "1212"}, leaders={"teuffel": "1310"}, phase="movement",
                 active="allied_center")
    got = dests(s, "SC1")
    assert "1410" not in got and "1212" not in got                # friendly and enemy occupied
    assert "1510" in got                                          # around SC2
    assert E.grid.distance(E.grid.index["1310"], E.grid.index["1610"]) == 3 and "1610" in got


def test_6_16_6_17_a_unit_moves_once():
    s, d = start({"SC1": "0510", "SC2": "0310"}, phase="movement", active="allied_center")
    move(s, d, "SC1", "0710")
    assert "SC1" not in legal_pieces(s) and "SC2" in legal_pieces(s)


def test_6_33_infantry_in_enemy_zoc_cannot_withdraw_cavalry_from_infantry_can():
    s, d = start({"SC1": "1310", "SL1": "1311", "IC1": "1410", "IC2": "1411"}, phase="movement",
                 active="allied_center")
    assert "SC1" not in legal_pieces(s)                           # infantry in a ZOC: stays
    s, d = start({"SL1": "1311", "IC1": "1410", "IC2": "1411", "SL2": "0510"}, phase="movement",
                 active="allied_left")
    assert "SL1" in legal_pieces(s)                               # cavalry next to infantry only
    s, d = start({"SL1": "1311", "IR1": "1411", "SL2": "0510"}, phase="movement", active="allied_left")
    assert "SL1" not in legal_pieces(s)                           # cavalry in an enemy cavalry ZOC
    s, d = start({"SL1": {"hex": "1311", "disrupted": True}, "IR1": "1411", "SL2": "0510"}, phase="movement",
                 active="allied_left")
    assert "SL1" in legal_pieces(s)                               # disrupted units may withdraw


def test_9_16_disrupted_units_move_at_most_two_hexes_toward_their_edge():
    s, d = start({"SC1": {"hex": "1310", "disrupted": True}}, phase="movement", active="allied_center")
    got = dests(s, "SC1")
    cols = {int(h[:2]) for h in got}
    assert cols == {11, 12, 13} and len(got) == 1 + 2 + 3         # stay, 2 hexes in col 12, 3 in col 11
    s, d = start({"IC1": {"hex": "1310", "disrupted": True}}, phase="movement", active="imp_center")
    assert {int(h[:2]) for h in dests(s, "IC1")} == {13, 14, 15}  # Imperial edge is column 23


def test_11_12_demoralized_disrupted_units_must_rout_four_hexes_and_leave_the_map():
    # Swedes demoralized (bit 0): the disrupted brigade at 0310 must move, up to 4 hexes, may exit
    s, d = start({"SC1": {"hex": "0310", "disrupted": True}, "SC2": "0810"}, phase="movement",
                 active="allied_center", globals={"demoralized_bits": 1})
    assert A.END not in legal(s)
    play(s, d, piece("SC1"))
    assert hexa("0310") not in legal(s) and A.EXIT in legal(s)
    play(s, d, A.EXIT)
    assert unit(s, "SC1")["hex"] == "eliminated"
    assert E.to_position(s)["victory_points"]["imperial"] == 8


def test_20_14_demoralized_saxons_leave_by_their_edge_without_victory_points():
    s, d = start({"XC1": "0210"}, phase="movement", active="saxons", globals={"demoralized_bits": 2})
    play(s, d, piece("XC1"))
    assert A.EXIT in legal(s)
    play(s, d, A.EXIT)
    pos = E.to_position(s)
    assert pos["units"]["XC1"]["hex"] == "exited" and pos["victory_points"]["imperial"] == 0


def test_5_32_capture_by_passing_through_then_continue():
    # Imperial gun at 1210 with no unit: SL1 stops there (capture) and may continue with its MP left
    s, d = start({"SL1": "1010"}, leaders={"horn": "1010"}, artillery={"IA1": "1210"}, phase="movement",
                 active="allied_left")
    got = dests(s, "SL1")
    assert "1210" in got
    play(s, d, hexa("1210"))
    pos = E.to_position(s)
    assert pos["artillery"]["IA1"]["owner"] == "allied"
    assert decision(s) == "move_dest"                             # 6 MP left: continue
    play(s, d, hexa("1610"))
    assert unit(s, "SL1")["hex"] == "1610"
    assert E.to_position(s)["victory_points"]["allied"] == 5      # enemy gun held


def test_10_0_a_unit_catches_a_lone_enemy_leader_on_its_way_and_moves_on():
    """Tilly stands alone at 1412, in no Allied zone of control. An undisrupted unit catches him "immediately"
    (10.0, C10) on entering a hex next to him (its zone of control), so that hex is a stop and the move goes on
    with the MP left, as after a capture (5.32); until 2026-12-05 a unit that only passed by left him on the map."""
    s, d = start({"SR1": "1410", "IC1": "2020"}, leaders={"tilly": "1412"}, phase="movement",
                 active="allied_right", turn=10)
    play(s, d, piece("SR1"))
    assert "1413" not in legal_hexes(s) and "1411" in legal_hexes(s)     # past him only through a stop
    play(s, d, hexa("1411"))
    assert leader(s, "tilly")["hex"] == "eliminated" and E.victory_points(s)[0] == 10
    assert decision(s) == "move_dest" and "1413" in legal_hexes(s)      # the move goes on
    play(s, d, hexa("1413"))
    assert unit(s, "SR1")["hex"] == "1413"


def test_10_33_out_of_command_halves_movement_10_44_chain():
    # Teuffel (1) at 1010: SC1 at 1011 in radius; SC2 at 1012 adjacent to SC1 (chain); SC3 at 0510 far away
    s, d = start({"SC1": "1011", "SC2": "1012", "SC3": "0515"}, leaders={"teuffel": "1010"}, phase="movement",
                 active="allied_center", turn=5)
    pos = E.to_position(s)
    assert "out_of_command" not in pos["units"]["SC1"]["flags"]
    assert "out_of_command" not in pos["units"]["SC2"]["flags"]
    assert "out_of_command" in pos["units"]["SC3"]["flags"]
    got = dests(s, "SC3")
    assert max(E.grid.distance(E.grid.index["0515"], E.grid.index[h]) for h in got) == 3   # 5 halved, up


def test_10_44_a_disrupted_unit_in_the_radius_links_the_chain():
    """10.31, 10.36, 10.44: a disrupted unit within the radius is In Command (not affected by it), so an undisrupted
    unit of its corps next to it is In Command through it (C18); a disrupted unit is never marked."""
    for disrupted in (True, False):
        s, d = start({"SC1": {"hex": "0511", "disrupted": disrupted}, "SC2": "0512", "SC3": "0515", "IC1": "2020"},
                     leaders={"teuffel": "0510"}, phase="movement", active="allied_center", turn=6, cup=[])
        units = E.to_position(s)["units"]
        assert "out_of_command" not in units["SC2"]["flags"]
        assert "out_of_command" in units["SC3"]["flags"]
    s, d = start({"SC1": {"hex": "0515", "disrupted": True}, "IC1": "2020"}, leaders={"teuffel": "0510"},
                 phase="movement", active="allied_center", turn=6, cup=[])
    assert "out_of_command" not in E.to_position(s)["units"]["SC1"]["flags"]


def test_10_4_command_radius_example_leadership_two_reaches_two_hexes():
    s, d = start({"SL1": "1012", "SL2": "0515"}, leaders={"horn": "1010"}, phase="movement",
                 active="allied_left", turn=5)
    flags = E.to_position(s)["units"]
    assert "out_of_command" not in flags["SL1"]["flags"] and "out_of_command" in flags["SL2"]["flags"]


def test_10_37_corps_without_leader_is_out_of_command_12_6_first_turn_all_in_command():
    s, d = start({"SC1": "1011"}, phase="movement", active="allied_center", turn=5)
    assert "out_of_command" in unit(s, "SC1")["flags"]
    s, d = start({"SC1": "1011"}, phase="movement", active="allied_center", turn=1,
                 globals={"allied_may_move": 1})
    assert "out_of_command" not in unit(s, "SC1")["flags"]


def test_10_34_out_of_command_in_reduced_visibility_is_quartered():
    s, d = start({"SC1": "0515"}, phase="movement", active="allied_center", turn=5, options={"visibility": True},
                 visibility="moderate")
    got = dests(s, "SC1")
    assert max(E.grid.distance(E.grid.index["0515"], E.grid.index[h]) for h in got) == 2   # ceil(5/4)


def test_12_3_12_4_movement_releases():
    # turn 1: nobody may move yet; the first movement decision comes in turn 4 (Imperial) / 5 (Allied)
    s, d = start({"SC1": "1010", "IC1": "1810"}, leaders={"teuffel": "1010", "tilly": "1810"}, phase="movement",
                 active="allied_center", turn=1, rolls=[0] * 200)
    assert decision(s) == "move_select"
    pos = E.to_position(s)
    if pos["active_corps"] == "imp_center":
        assert pos["turn"] == 4
    else:
        assert pos["active_corps"] == "allied_center" and pos["turn"] >= 4
    s, d = start({"IC1": "1810"}, leaders={"tilly": "1810"}, phase="movement", active="imp_center", turn=4)
    assert decision(s) == "move_select"


def test_12_4_imperial_unit_within_three_hexes_releases_the_allies():
    s, d = start({"IC1": "1810", "SC1": "1310"}, leaders={"tilly": "1810"}, phase="movement", active="imp_center",
                 turn=4, rolls=[0] * 200)
    assert E.to_position(s)["globals"]["allied_may_move"] == 0
    move(s, d, "IC1", "1610")
    assert any("the Allies may move [12.4]" in e for e in s.log)


def test_10_0_leader_never_walks_alone_into_an_enemy_zoc():
    s, d = start({"SC1": "1010", "IC1": "1410"}, leaders={"teuffel": "1110"}, phase="movement",
                 active="allied_center")
    got = dests(s, "teuffel")
    assert "1310" not in got and "1010" in got                   # 1310 is in IC1's ZOC; 1010 holds SC1
    assert adjacent("1310", "1410")


def test_6_0_action_text_in_players_terms():
    s, d = start({"IC1": "1806", "SC1": "0510"}, phase="movement", active="imp_center")
    play(s, d, piece("IC1"))
    assert E.action_to_str(s, hexa("1706")) == "Tilly's Center: tercio 1806 -> 1706"
    assert ALLIED == 0


def test_10_0_a_leader_left_alone_by_a_unit_leaving_the_map_is_caught():
    """The Swedes are demoralized: the disrupted brigade SC1 with Teuffel at 0110 routs off the map (11.12),
    leaving Teuffel alone next to the undisrupted Imperial cuirassier at 0210: he is eliminated at once (10.0),
    not left to walk away."""
    units = {"SC1": {"hex": "0110", "disrupted": True}, "SC2": {"hex": "0515"}, "IR1": "0210"}
    s, d = start(units, leaders={"teuffel": "0110"}, phase="movement", active="allied_center", turn=10,
                 globals={"demoralized_bits": 1, "eliminated_sp_0": 65})
    play(s, d, piece("SC1"), A.EXIT)
    assert unit(s, "SC1")["hex"] == "eliminated"
    assert leader(s, "teuffel")["hex"] == "eliminated"
    assert "teuffel" not in legal_pieces(s)
