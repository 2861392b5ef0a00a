"""Rule tests named by rulebook case, each from a position and scripted dice."""

import numpy as np
import pytest
from bx_helpers import CT, ENGINE, PL, decider, decision, legal, play, start, unit

from wargame_envs.berestechko.state import DESTROYED, S, WITHDRAWN
from wargame_envs.core import Dice, ScriptedDice

CMDS = lambda pl=(0, 0), ct=(0, 0): {  # noqa: E731
    "polish_lithuanian": {"reconnaissance": pl[0], "interaction": pl[1]},
    "cossack_tatar": {"reconnaissance": ct[0], "interaction": ct[1]},
}


# ----------------------------------------------------------------------------------- 3 setup
def test_3_1_3_2_standard_setup():
    s = ENGINE.new_state(None, ScriptedDice([1, 2, 3]))
    pos = ENGINE.to_position(s)
    assert pos["units"]["Zemska"]["hex"] == "02" and pos["units"]["Lubomirski"]["hex"] == "17"
    assert pos["units"]["Hrunka"]["hex"] == "52" and pos["units"]["Amurat"]["hex"] == "57"
    assert pos["units"]["Bohun"]["hex"] == pos["units"]["Wagon (Bohun)"]["hex"] == "62"
    assert "Radziwiłł" not in pos["units"] and "Hubyalo" not in pos["units"]
    assert pos["commands"]["cossack_tatar"] == {"reconnaissance": 2, "interaction": 0}
    assert pos["commands"]["polish_lithuanian"] == {"reconnaissance": 0, "interaction": 0}
    assert pos["tatar_spirit"] == 3 and pos["round"] == 1 and pos["active"] == "polish_lithuanian"


def test_3_3_optional_setup_variant():
    s = ENGINE.new_state({"variant": True}, ScriptedDice([1, 2, 3]))
    pos = ENGINE.to_position(s)
    assert pos["units"]["Radziwiłł"]["hex"] == "17" and "Lubomirski" not in pos["units"]
    assert pos["units"]["Hubyalo"]["hex"] == "53" and "Nosach" not in pos["units"]


# ------------------------------------------------------------------------------ 4 throws
def test_4_1_three_dice_two_spent_identical_dice_are_one_choice():
    s, dice = start({"Zemska": "02", "Hrunka": "52"}, dice=[1, 1, 6])
    c = ENGINE.codec
    mask = ENGINE.legal_mask(s)
    assert mask[c.DIE + 0] and not mask[c.DIE + 1] and mask[c.DIE + 2]
    assert not mask[c.opt("end_throw")]  # 4.1: two dice must be spent
    play(s, dice, "die:1", "gain_reconnaissance")
    assert not ENGINE.legal_mask(s)[c.opt("end_throw")]
    play(s, dice, "die:6", "gain_interaction")
    mask = ENGINE.legal_mask(s)
    assert mask[c.opt("end_throw")] and not mask[c.DIE:c.DIE + 3].any()
    assert s.cmd[PL].tolist() == [1, 1]


def test_4_1_a_2_to_5_must_activate_while_a_unit_can():
    s, dice = start({"Kalinowski": "11", "Zemska": "02", "Hrunka": "52"}, dice=[2, 2, 1])
    play(s, dice, "die:2")
    assert decision(s) == "select_unit"  # Kalinowski (act 2) can be activated: no command allowed
    assert legal(s) == ["activate Kalinowski"]
    s, dice = start({"Kalinowski": {"hex": "11", "activations": 2}, "Zemska": "02", "Hrunka": "52"}, dice=[2, 2, 1])
    play(s, dice, "die:2")
    assert decision(s) == "die_command"  # every act-2 unit is activated twice: the 2 becomes a 1/6


def test_4_1_die_without_activatable_unit_becomes_a_command():
    s, dice = start({"Zemska": "02", "Hrunka": "52"}, dice=[3, 4, 1])
    play(s, dice, "die:4")  # no P-L unit with activation 4 in this position
    assert decision(s) == "die_command"
    play(s, dice, "gain_interaction")
    assert s.cmd[PL, 1] == 1


def test_6_tracks_are_capped_at_3():
    s, dice = start({"Zemska": "02", "Hrunka": "52"}, dice=[1, 6, 1], commands=CMDS(pl=(3, 3)))
    play(s, dice, "die:1", "gain_reconnaissance", "die:6", "gain_interaction")
    assert s.cmd[PL].tolist() == [3, 3]


def test_4_2_round_ends_when_one_player_activated_everything_twice_and_round_2_order():
    s, dice = start({"Zemska": {"hex": "02", "activations": 1}, "Hrunka": "52"}, dice=[5, 1, 1],
                    rolls=[2, 2, 2])
    play(s, dice, "die:5", "unit:Zemska", "hex:02")
    # All P-L units activated twice: round 1 ends mid-throw; activation markers go (4.2); round 2
    # opens with the player who was inactive in the last throw (C-T).
    assert s.sc[S.ROUND] == 2 and s.sc[S.ACTIVE] == CT
    assert unit(s, "Zemska")["acts"] == 0
    assert s.dice.tolist() == [2, 2, 2] and s.sc[S.SPENT] == 0


def test_4_2_end_of_round_2_counts_victory_points():
    s, dice = start({"Zemska": {"hex": "02", "activations": 1}, "Hrunka": {"hex": "52", "disorganized": True}},
                    round=2, dice=[5, 1, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:02")
    assert ENGINE.is_terminal(s)
    assert [int(s.sc[S.VP0]), int(s.sc[S.VP1])] == [1, 0]
    assert ENGINE.returns(s).tolist() == [1.0, -1.0]


# --------------------------------------------------------------------------- 5 activation
def test_5_activated_unit_may_do_nothing_and_twice_activated_units_are_not_offered():
    s, dice = start({"Zemska": "02", "Nadworna": {"hex": "14", "activations": 2}, "Hrunka": "52"},
                    dice=[5, 1, 1])
    play(s, dice, "die:5")
    assert legal(s) == ["activate Zemska"]
    play(s, dice, "unit:Zemska", "hex:02")
    assert unit(s, "Zemska")["acts"] == 1


def test_5_same_unit_twice_in_one_throw():
    s, dice = start({"Zemska": "02", "Kalinowski": "11", "Hrunka": "52"}, dice=[5, 5, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:12", "die:5", "unit:Zemska", "hex:22")
    assert unit(s, "Zemska") == {"hex": "22", "status": 0, "disorganized": False, "acts": 2}


def test_5_1_withdrawn_tatars_are_activated_imaginarily_before_a_die_turns():
    s, dice = start({"Zemska": "02", "Hrunka": "52", "Kalga": {"status": "withdrawn"}},
                    active="cossack_tatar", dice=[4, 1, 1], tatars_withdrawn=True, tatar_spirit=0)
    play(s, dice, "die:4")
    assert decision(s) == "select_unit"  # Kalga (act 4) is withdrawn but must take the die
    play(s, dice, "unit:Kalga")
    assert unit(s, "Kalga")["acts"] == 1 and unit(s, "Kalga")["status"] == WITHDRAWN
    assert decision(s) == "choose_die"


# ------------------------------------------------------------------------------ 6 commands
def test_6_1_1_declared_attack_adds_any_adjacent_units_in_close_combat():
    s, dice = start({"Zemska": "22", "Wolff": "23", "Kalinowski": {"hex": "34", "activations": 2}, "Hrunka": "33"},
                    dice=[5, 1, 1], commands=CMDS(pl=(0, 3)), rolls=[1] * 20)
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:33")
    assert decision(s) == "add_unit"
    texts = legal(s)
    assert any("Wolff" in t for t in texts) and any("Kalinowski" in t for t in texts)
    play(s, dice, "hex:23", "hex:34")
    assert s.cmd[PL, 1] == 1
    assert unit(s, "Kalinowski")["acts"] == 2 and unit(s, "Wolff")["acts"] == 0


def test_6_1_2_artillery_support_for_both_sides_with_infantry():
    # P-L cavalry + infantry attack Cossack infantry: each side may add 1d6.
    s, dice = start({"Zemska": "22", "Wolff": "23", "Dzhelalii": "33"}, dice=[5, 1, 1],
                    commands=CMDS(pl=(0, 2), ct=(0, 1)),
                    rolls=[6, 6, 6, 3, 3, 5, 1, 1, 2])  # Zemska 3d6, Wolff 2d6, art 1d6; defence 2d6 + art
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:33", "hex:23", "artillery")
    assert decision(s) == "def_artillery" and decider(s) == CT
    play(s, dice, "artillery")
    # AV 6+6+6+3+3+5 = 29, DV 1+1+2 = 4: CR 25 >= 2 x R 5 (Dzhelalii without wagons): loss + retreat
    assert s.sc[S.ROLL_DIFF] == 25 and s.cmd[PL, 1] == 0 and s.cmd[CT, 1] == 0
    assert unit(s, "Dzhelalii")["disorganized"]


def test_6_1_3_additional_activation_of_any_unit():
    s, dice = start({"Zemska": "02", "Hrunka": "52"}, dice=[1, 1, 1], commands=CMDS(pl=(0, 2)))
    play(s, dice, "buy_activation")
    assert s.cmd[PL, 1] == 0
    play(s, dice, "unit:Zemska", "hex:12")
    assert unit(s, "Zemska")["acts"] == 1 and s.sc[S.SPENT] == 0


def test_6_2_1_recovery_for_three_reconnaissance_and_tatar_spirit():
    s, dice = start({"Zemska": "02", "Kalga": {"hex": "55", "disorganized": True}}, active="cossack_tatar",
                    dice=[1, 1, 1], commands=CMDS(ct=(3, 0)), tatar_spirit=2)
    play(s, dice, "buy_recovery", "unit:Kalga")
    assert not unit(s, "Kalga")["disorganized"] and s.cmd[CT, 0] == 0
    assert s.sc[S.SPIRIT] == 3  # 9: +1 for a recovered Tatar unit


def test_6_2_2_retreat_before_close_combat_and_the_attacker_advances():
    s, dice = start({"Zemska": "12", "Hrunka": "32"}, dice=[5, 1, 1], commands=CMDS(ct=(2, 0)))
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert decision(s) == "retreat_before" and decider(s) == CT
    assert sorted(legal(s))[:2] == ["Hrunka retreats before combat to 41 (2 reconnaissance)",
                                    "Hrunka retreats before combat to 42 (2 reconnaissance)"]
    play(s, dice, "hex:42")
    assert unit(s, "Hrunka")["hex"] == "42" and unit(s, "Zemska")["hex"] == "32"
    assert s.cmd[CT, 0] == 0 and dice.remaining == 0  # no combat took place


def test_6_2_2_no_retreat_before_combat_without_two_reconnaissance_or_free_rear():
    s, dice = start({"Zemska": "12", "Hrunka": "32"}, dice=[5, 1, 1], commands=CMDS(ct=(1, 0)), rolls=[1] * 4)
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert decision(s) != "retreat_before"
    s, dice = start({"Zemska": "12", "Hrunka": "32", "Nosach": "41", "Amurat": "42"}, dice=[5, 1, 1],
                    commands=CMDS(ct=(2, 0)), rolls=[1] * 4)
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert decision(s) != "retreat_before"


def test_6_2_3_defender_overrules_the_attackers_loss_or_retreat_choice():
    s, dice = start({"Zemska": "22", "Hrunka": "32"}, dice=[5, 5, 1], commands=CMDS(ct=(1, 0)),
                    rolls=[4, 4, 4, 1])  # AV 12 - DV 1 = 11 > 6, < 12
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert decision(s) == "loss_or_retreat" and decider(s) == PL
    play(s, dice, "choose_retreat")
    assert decision(s) == "take_choice" and decider(s) == CT
    declined = ENGINE.clone(s)
    play(s, dice, "take_choice")
    assert decision(s) == "loss_or_retreat" and decider(s) == CT and s.cmd[CT, 0] == 0
    play(s, dice, "choose_loss")
    assert unit(s, "Hrunka")["disorganized"] and unit(s, "Hrunka")["hex"] == "32"
    play(declined, dice, "decline_choice")  # the attacker's retreat stands
    assert decision(declined) == "retreat" and declined.cmd[CT, 0] == 1


def test_6_2_3_without_reconnaissance_the_attackers_choice_is_final():
    s, dice = start({"Zemska": "22", "Hrunka": "32"}, dice=[5, 1, 1], rolls=[4, 4, 4, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32", "choose_loss")
    assert unit(s, "Hrunka")["disorganized"] and decision(s) == "choose_die"


# ------------------------------------------------------------------------------ 7 movement
def _destinations(s):
    return {ENGINE.grid.ids[h] for h in np.flatnonzero(ENGINE.legal_mask(s))}


def test_7_infantry_moves_one_hex_and_cavalry_two_without_passing_through_units():
    s, dice = start({"Wolff": "13", "Zemska": "02", "Nadworna": "12", "Hrunka": "52"}, dice=[3, 5, 1])
    play(s, dice, "die:3", "unit:Wolff")
    assert _destinations(s) == {"13", "14", "03", "22", "23"}  # 12 and 02 are occupied
    s, dice = start({"Zemska": "22", "Nadworna": "32", "Wolff": "23", "Hrunka": "52"}, dice=[5, 1, 1])
    play(s, dice, "die:5", "unit:Zemska")
    assert _destinations(s) == {"22", "21", "12", "13", "33", "11", "31", "01", "02", "03", "14", "34", "42", "43"}
    # 24 is two hexes away only through 23 (Wolff): no passing through units (7).


def test_7_1_cavalry_stops_in_complex_terrain_and_cannot_attack_after_entering_it_as_2nd_hex():
    s, dice = start({"Kalinowski": "31", "Zemska": "02", "Hrunka": "53"}, dice=[2, 1, 1])
    play(s, dice, "die:2", "unit:Kalinowski")
    dests = _destinations(s)
    assert "41" in dests and "51" not in dests and "52" not in dests  # 41 is swamp: the move ends there
    s, dice = start({"Zemska": "42", "Hrunka": "52", "Kalinowski": "22"}, dice=[5, 2, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:41")  # 41 as the 1st hex: it may attack Hrunka
    assert decision(s) == "target"
    s, dice = start({"Kalinowski": "21", "Zemska": "02", "Hrunka": "52"}, dice=[2, 1, 1])
    play(s, dice, "die:2", "unit:Kalinowski", "hex:41")  # 21 -> 31 -> 41 (swamp as the 2nd hex)
    assert decision(s) == "choose_die"  # no combat although Hrunka is adjacent
    assert any("entered complex terrain as its 2nd hex" in e for e in s.log)


def test_7_2_wagons_do_not_move_alone_and_infantry_may_rejoin_them():
    s, dice = start({"Bohun": "52", "Wagon (Bohun)": "62", "Zemska": "02"}, active="cossack_tatar", dice=[4, 1, 1])
    play(s, dice, "die:4", "unit:Bohun", "hex:62")
    assert unit(s, "Bohun")["hex"] == "62" and unit(s, "Wagon (Bohun)")["hex"] == "62"


# ------------------------------------------------------------------------------ 8.1 close combat
def test_8_1_4_cr_at_least_twice_r_loss_and_retreat():
    s, dice = start({"Zemska": "22", "Hrunka": "32"}, dice=[5, 1, 1], rolls=[6, 6, 6, 1])  # 18 - 1 = 17 >= 12
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert unit(s, "Hrunka")["disorganized"]
    assert decision(s) == "retreat" and decider(s) == CT
    play(s, dice, "hex:42", "hex:22")  # Hrunka retreats to 42; Zemska advances (8.1.8)
    assert unit(s, "Zemska")["hex"] == "32"


def test_8_1_4_cr_equal_r_no_effect_and_cr_below_r_attacker_loss():
    s, dice = start({"Zemska": "22", "Kalinowski": "11", "Hrunka": "32"}, dice=[5, 5, 1], rolls=[3, 3, 1, 1, 2, 2, 1, 5])
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")  # 7 - 1 = 6 = R: no effect
    assert not unit(s, "Hrunka")["disorganized"] and not unit(s, "Zemska")["disorganized"]
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")  # 5 - 5 = 0 < 6: the attacker loses
    assert unit(s, "Zemska")["disorganized"] and not unit(s, "Hrunka")["disorganized"]


def test_8_1_4_a_disorganized_unit_suffering_losses_is_destroyed():
    s, dice = start({"Zemska": "22", "Hrunka": {"hex": "32", "disorganized": True}}, dice=[5, 1, 1],
                    rolls=[2, 2, 1, 1])  # 5 - 1 = 4 > R 3: attacker chooses
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32", "choose_loss")
    assert unit(s, "Hrunka")["status"] == DESTROYED


def test_8_1_4_complex_terrain_gives_the_defender_the_choice():
    s, dice = start({"Nadworna": "42", "Hrunka": "41"}, dice=[5, 1, 1], rolls=[10, 2])  # 1d10 = 10 - 2 = 8 > 6
    play(s, dice, "die:5", "unit:Nadworna", "hex:42", "hex:41")
    assert decision(s) == "loss_or_retreat" and decider(s) == CT


def test_8_1_5_tatars_throw_one_d6_against_infantry():
    s, dice = start({"Wolff": "33", "Kalga": "43"}, active="cossack_tatar", dice=[4, 1, 1], rolls=[6, 1, 1])
    play(s, dice, "die:4", "unit:Kalga", "hex:43", "hex:33")
    assert dice.remaining == 0  # 1d6 attack + Wolff's 2d6 defence
    assert any("= CR 4 vs R 6" in line for line in s.log)


def test_8_1_6_one_attack_die_from_or_into_complex_terrain():
    s, dice = start({"Zemska": "42", "Hrunka": "41"}, dice=[5, 1, 1], rolls=[6, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:42", "hex:41")
    assert dice.remaining == 0 and any("= CR 5 vs R" in line for line in s.log)  # 1d6 (not 3d6) - 1d6


def test_8_1_7_retreat_to_the_side_costs_a_loss_and_no_free_hex_destroys():
    # Rear of 32 for C-T: 41 and 42, both occupied -> side hexes 31 / 33 with an extra loss.
    s, dice = start({"Zemska": "22", "Hrunka": "32", "Nosach": "41", "Amurat": "42"}, dice=[5, 1, 1],
                    rolls=[6, 6, 6, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert decision(s) == "retreat"
    assert {ENGINE.grid.ids[h] for h in np.flatnonzero(ENGINE.legal_mask(s))} == {"31", "33"}
    play(s, dice, "hex:33")
    assert unit(s, "Hrunka")["status"] == DESTROYED  # loss + side retreat loss
    # All four hexes blocked: destroyed at once.
    s, dice = start({"Zemska": "22", "Hrunka": "32", "Nosach": "41", "Amurat": "42", "Kalga": "31", "Nureddin": "33"},
                    dice=[5, 1, 1], rolls=[6, 6, 6, 1, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert unit(s, "Hrunka")["status"] == DESTROYED
    assert decision(s) == "advance"


def test_8_1_8_one_participating_cavalry_must_advance():
    s, dice = start({"Zemska": "22", "Kalinowski": "21", "Hrunka": "32"}, dice=[5, 1, 1],
                    commands=CMDS(pl=(0, 1)), rolls=[6, 6, 6, 6, 6, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32", "hex:21", "hex:42")
    assert decision(s) == "advance"
    assert {ENGINE.grid.ids[h] for h in np.flatnonzero(ENGINE.legal_mask(s))} == {"21", "22"}
    play(s, dice, "hex:21")
    assert unit(s, "Kalinowski")["hex"] == "32"


# ------------------------------------------------------------------------------ 8.2 ranged combat
def test_8_2_1_and_8_2_2_no_retreat_before_ranged_combat_and_only_infantry_join():
    s, dice = start({"Wolff": "23", "Hubaldt": "34", "Zemska": "22", "Hrunka": "33"}, dice=[3, 1, 1],
                    commands=CMDS(pl=(0, 2), ct=(3, 0)), rolls=[1, 1, 1, 1])
    play(s, dice, "die:3", "unit:Wolff", "hex:23", "hex:33")
    assert decision(s) == "add_unit"
    texts = legal(s)
    assert any("Hubaldt" in t for t in texts) and not any("Zemska" in t for t in texts)


def test_8_2_4_ordered_target_loses_disorganized_target_retreats_no_defender_dice():
    s, dice = start({"Wolff": "23", "Kalinowski": "11", "Hrunka": "33"}, dice=[3, 3, 1], rolls=[6, 6, 6, 6])
    play(s, dice, "die:3", "unit:Wolff", "hex:23", "hex:33")
    assert unit(s, "Hrunka")["disorganized"] and unit(s, "Hrunka")["hex"] == "33"
    play(s, dice, "die:3", "unit:Wolff", "hex:23", "hex:33")
    assert decision(s) == "retreat"  # disorganized: retreats, is not destroyed
    play(s, dice, "hex:43")
    assert unit(s, "Hrunka")["status"] == 0 and dice.remaining == 0


def test_8_2_6_tatar_target_retreats_an_extra_hex_even_without_effect():
    s, dice = start({"Wolff": "23", "Kalga": "33"}, dice=[3, 1, 1], rolls=[1, 1])
    play(s, dice, "die:3", "unit:Wolff", "hex:23", "hex:33")
    assert decision(s) == "retreat" and not unit(s, "Kalga")["disorganized"]
    play(s, dice, "hex:43")
    assert unit(s, "Kalga")["hex"] == "43"
    assert "Kalga retreats 33 -> 43 [8.2.5]" in s.log  # a ranged retreat cites 8.2.5, not 8.1.7


# ------------------------------------------------------------------------------ 8.3 wagons
def test_8_3_wagons_double_resistance_and_turn_retreats_into_losses():
    s, dice = start({"Zemska": "53", "Dzhelalii": "63", "Wagon (Dzhelalii)": "63"}, dice=[5, 1, 1],
                    rolls=[6, 1, 1])  # into complex 63: 1d6 = 6 - 2 = 4 < R 10: the attacker loses
    play(s, dice, "die:5", "unit:Zemska", "hex:53", "hex:63")
    assert unit(s, "Zemska")["disorganized"]
    s, dice = start({"Wolff": "33", "Dzhelalii": {"hex": "43", "disorganized": True}, "Wagon (Dzhelalii)": "43"},
                    dice=[3, 1, 1], rolls=[6, 6])  # ranged 12 > R 6: a disorganized target would retreat
    play(s, dice, "die:3", "unit:Wolff", "hex:33", "hex:43")
    assert unit(s, "Dzhelalii")["status"] == DESTROYED  # the retreat became a loss
    assert unit(s, "Wagon (Dzhelalii)")["hex"] == "43"


def test_8_3_lone_wagons_are_destroyed_when_an_enemy_enters_and_give_2_vp():
    s, dice = start({"Zemska": "33", "Dzhelalii": {"hex": "43", "disorganized": True}, "Wagon (Dzhelalii)": "43",
                     "Amurat": "57"}, dice=[5, 1, 1], rolls=[6, 6, 6, 1, 1])  # 18 - 2 = 16 > R 6 doubled = 12
    play(s, dice, "die:5", "unit:Zemska", "hex:33", "hex:43")
    assert unit(s, "Dzhelalii")["status"] == DESTROYED
    assert decision(s) == "advance"
    play(s, dice, "hex:33")
    assert unit(s, "Wagon (Dzhelalii)")["status"] == DESTROYED and unit(s, "Zemska")["hex"] == "43"
    assert ENGINE.scores(s).tolist()[0] == 4  # destroyed unit 2 + destroyed wagon 2 (10)


# ------------------------------------------------------------------------------ 9 Tatar spirit
def test_9_spirit_zero_withdraws_the_tatars_and_cossack_player_decides():
    s, dice = start({"Wolff": "33", "Kalga": "43", "Amurat": "57", "Hrunka": "52"}, dice=[3, 1, 1],
                    tatar_spirit=1, rolls=[6, 6])
    play(s, dice, "die:3", "unit:Wolff", "hex:33", "hex:43")
    assert s.sc[S.SPIRIT] == 0 and s.sc[S.TATARS_OUT] == 1
    assert unit(s, "Kalga")["status"] == WITHDRAWN and unit(s, "Amurat")["status"] == WITHDRAWN
    assert decision(s) == "tatar_decision" and decider(s) == CT
    end = ENGINE.clone(s)
    play(end, dice, "end_battle")
    assert ENGINE.is_terminal(end)
    # P-L: Kalga disorganized 1 + withdrawal bonus 2 = 3; C-T 0
    assert [int(end.sc[S.VP0]), int(end.sc[S.VP1])] == [3, 0] and end.sc[S.WINNER] == PL
    play(s, dice, "continue_battle")
    assert s.sc[S.CONTINUED] == 1 and decision(s) == "choose_die"


def test_9_destroyed_polish_unit_raises_spirit_and_direct_destruction_counts_twice():
    s, dice = start({"Zemska": "22", "Kalga": "32", "Nosach": "41", "Amurat": "42", "Hrunka": "31", "Nureddin": "33"},
                    dice=[5, 1, 1], tatar_spirit=4, rolls=[6, 6, 6, 1, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    # Kalga: ordered -> losses (-1) -> no free hex -> destroyed (-1)
    assert unit(s, "Kalga")["status"] == DESTROYED and s.sc[S.SPIRIT] == 2


def test_9_ordered_tatar_whose_close_combat_retreat_is_impossible_counts_two():
    # Issue 11.2: CR 11 > R 8 (not 2R): the attacker picks a retreat; Kalga's rear (41, 42) and sides (31, 33)
    # are blocked, so the ordered Kalga is destroyed outright: disorganization + destruction, spirit -2.
    s, dice = start({"Zemska": "22", "Kalga": "32", "Nosach": "41", "Amurat": "42", "Hrunka": "31", "Nureddin": "33"},
                    dice=[5, 1, 1], tatar_spirit=4, rolls=[6, 6, 1, 1, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert decision(s) == "loss_or_retreat" and s.sc[S.ROLL_DIFF] == 11
    play(s, dice, "choose_retreat")
    assert unit(s, "Kalga")["status"] == DESTROYED and s.sc[S.SPIRIT] == 2


def test_9_ordered_tatar_whose_extra_ranged_retreat_is_impossible_counts_two():
    # Issue 11.2 / 8.2.6: Wolff's fire has no effect (CR 2 <= R 8) but Kirim Giray must still retreat a hex;
    # rear 42/43 and sides 32/34 are blocked: destroyed outright, spirit -2 (not -1).
    s, dice = start({"Wolff": "23", "Kirim Giray": "33", "Nosach": "42", "Amurat": "43", "Hrunka": "32",
                     "Nureddin": "34"}, dice=[3, 1, 1], tatar_spirit=4, rolls=[1, 1])
    play(s, dice, "die:3", "unit:Wolff", "hex:23", "hex:33")
    assert unit(s, "Kirim Giray")["status"] == DESTROYED and s.sc[S.SPIRIT] == 2
    # A disorganized Tatar destroyed the same way loses only the destruction point (C16).
    s, dice = start({"Wolff": "23", "Kirim Giray": {"hex": "33", "disorganized": True}, "Nosach": "42",
                     "Amurat": "43", "Hrunka": "32", "Nureddin": "34"}, dice=[3, 1, 1], tatar_spirit=4, rolls=[1, 1])
    play(s, dice, "die:3", "unit:Wolff", "hex:23", "hex:33")
    assert unit(s, "Kirim Giray")["status"] == DESTROYED and s.sc[S.SPIRIT] == 3


# ------------------------------------------------------------------------------ 10 victory
def test_10_a_disorganized_unit_in_the_camp_still_scores_its_2_vp():
    # Issue 11.1, the issue's example: round 2, Wolff (activated once) at 24, Kalga disorganized at 03;
    # Wolff activates and stays, which ends round 2. P-L 1 (disorganized Kalga), C-T 2 (Kalga in the camp).
    s, dice = start({"Wolff": {"hex": "24", "activations": 1}, "Kalga": {"hex": "03", "disorganized": True}},
                    round=2, dice=[3, 1, 1])
    play(s, dice, "die:3", "unit:Wolff", "hex:24")
    assert ENGINE.is_terminal(s)
    assert [int(s.sc[S.VP0]), int(s.sc[S.VP1])] == [1, 2] and s.sc[S.WINNER] == CT


def test_10_automatic_victory_with_four_destroyed_enemy_units():
    s, dice = start({"Zemska": "22", "Hrunka": {"hex": "32", "disorganized": True},
                     "Nosach": {"status": "destroyed"}, "Bohun": {"status": "destroyed"},
                     "Dzhelalii": {"status": "destroyed"}}, dice=[5, 1, 1], rolls=[6, 6, 6, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert ENGINE.is_terminal(s) and s.sc[S.WINNER] == PL and s.sc[S.REASON] == 1


def test_10_victory_points_camp_hexes_and_ties_go_to_cossack_tatar():
    s, dice = start({"Zemska": {"hex": "02", "activations": 1, "disorganized": True}, "Hrunka": "03"},
                    round=2, dice=[5, 1, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:02", "no_combat")
    assert [int(s.sc[S.VP0]), int(s.sc[S.VP1])] == [0, 3]  # disorganized enemy 1 + Hrunka in camp 2
    s, dice = start({"Zemska": {"hex": "02", "activations": 1}, "Hrunka": "52"}, round=2, dice=[5, 1, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:02")
    assert [int(s.sc[S.VP0]), int(s.sc[S.VP1])] == [0, 0] and s.sc[S.WINNER] == CT


def test_9_10_continued_battle_bonus_at_the_end_of_round_2():
    s, dice = start({"Zemska": {"hex": "02", "activations": 1}, "Hrunka": "52", "Kalga": {"status": "withdrawn"}},
                    round=2, dice=[5, 1, 1], tatars_withdrawn=True, tatar_spirit=0, battle_continued=True)
    play(s, dice, "die:5", "unit:Zemska", "hex:02")
    assert [int(s.sc[S.VP0]), int(s.sc[S.VP1])] == [0, 1]


# ------------------------------------------------------------------------------ the mask
def test_illegal_action_is_refused_by_the_env_with_the_legal_options():
    from wargame_envs import berestechko_v0
    from wargame_envs.core import IllegalActionError

    env = berestechko_v0.env()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="illegal action 0 for polish_lithuanian at decision 'choose_die'"):
        env.step(0)
    with pytest.raises(IllegalActionError, match="integer"):
        env.step("die")
    assert env.unwrapped.record.actions == []


def test_same_seed_same_game_and_dice_are_injected():
    a, b = ENGINE.new_state(None, Dice(7)), ENGINE.new_state(None, Dice(7))
    assert a == b
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    da, db = Dice(7), Dice(7)
    for _ in range(200):
        if ENGINE.is_terminal(a):
            break
        la, lb = np.flatnonzero(ENGINE.legal_mask(a)), np.flatnonzero(ENGINE.legal_mask(b))
        assert (la == lb).all()
        ENGINE.apply(a, int(rng_a.choice(la)), da)
        ENGINE.apply(b, int(rng_b.choice(lb)), db)
        assert a == b


def test_2_2_1_a_disorganized_unit_keeps_its_dice_and_loses_resistance():
    from wargame_envs.berestechko.combat import resistance

    s, dice = start({"Zemska": "22", "Hrunka": {"hex": "32", "disorganized": True}}, dice=[5, 1, 1],
                    rolls=[1, 1, 1, 1])  # Zemska 3d6, Hrunka still 1d6: 3 - 1 = 2 < R 3
    assert resistance(ENGINE.K, ENGINE.views(s), ENGINE.scenario.names.index("Hrunka")) == 3
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert dice.remaining == 0 and unit(s, "Zemska")["disorganized"]


def test_8_2_5_ranged_retreat_to_the_side_can_destroy():
    # Disorganized Hrunka under fire retreats; rear 42/43 of 33 blocked -> side hex with a loss.
    s, dice = start({"Wolff": "23", "Hrunka": {"hex": "33", "disorganized": True}, "Nosach": "42", "Amurat": "43"},
                    dice=[3, 1, 1], rolls=[6, 6])
    play(s, dice, "die:3", "unit:Wolff", "hex:23", "hex:33")
    assert decision(s) == "retreat" and {ENGINE.grid.ids[h] for h in np.flatnonzero(ENGINE.legal_mask(s))} == {"32", "34"}
    play(s, dice, "hex:34")
    assert unit(s, "Hrunka")["status"] == DESTROYED
    assert "Hrunka retreats 33 -> 34 (to the side) [8.2.5]" in s.log


def test_9_withdrawn_tatars_cannot_recover_but_take_additional_activations():
    s, dice = start({"Zemska": "02", "Hrunka": "52", "Kalga": {"status": "withdrawn", "disorganized": True}},
                    active="cossack_tatar", dice=[1, 1, 1], commands=CMDS(ct=(3, 2)),
                    tatars_withdrawn=True, tatar_spirit=0)
    assert not ENGINE.legal_mask(s)[ENGINE.codec.opt("buy_recovery")]  # Kalga is the only disorganized unit
    play(s, dice, "buy_activation", "unit:Kalga")
    assert unit(s, "Kalga")["acts"] == 1 and unit(s, "Kalga")["status"] == WITHDRAWN


def test_8_1_7_cossack_infantry_does_not_retreat_onto_its_own_lone_wagons():
    """8.1.7: a retreat goes only into hexes no other unit occupies, and wagons are units (2.2.2): Bohun, apart
    from his wagon, may not retreat onto it (C32; moving onto it to rejoin it is C15). With its other rear hex held,
    he goes to the side, with a loss."""
    s, dice = start({"Kalinowski": "34", "Bohun": "44", "Wagon (Bohun)": "54", "Amurat": "55", "Zemska": "02"},
                    dice=[2, 1, 1], rolls=[8, 8, 1, 1])
    play(s, dice, "die:2", "unit:Kalinowski", "hex:34", "hex:44")
    assert {ENGINE.grid.ids[h] for h in np.flatnonzero(ENGINE.legal_mask(s)) if h < 49} == {"43", "45"}
    play(s, dice, "hex:45")
    assert "Bohun retreats 44 -> 45 (to the side) [8.1.7]" in s.log  # close combat: 8.1.7
