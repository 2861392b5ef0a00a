"""Every worked example of the Berestechko rulebook, replayed with its own dice."""

from bx_helpers import CT, PL, decider, decision, play, start, unit

from wargame_envs.berestechko.state import DESTROYED, S


def test_5_activation_example_hrunka_moves_and_nosach_joins():
    """5: C-T throws 2, 3, 6: the 6 gives an interaction command, the 3 activates Hrunka, who moves
    52 -> 32 and attacks Wiśniowiecki, spending the new command to add Nosach."""
    s, dice = start(
        {"Wiśniowiecki": "22", "Hrunka": "52", "Nosach": "33", "Dzhelalii": "63", "Wagon (Dzhelalii)": "63"},
        active="cossack_tatar", dice=[2, 3, 6],
        # attack: Hrunka 3d6, Nosach 3d6; defence: Wiśniowiecki 1d8
        rolls=[2, 2, 2, 2, 2, 2, 4],
    )
    play(s, dice, "die:6", "gain_interaction")
    assert s.cmd[CT].tolist() == [0, 1]
    play(s, dice, "die:3", "unit:Hrunka", "hex:32", "hex:22")
    assert decision(s) == "add_unit"
    play(s, dice, "hex:33")
    assert s.cmd[CT].tolist() == [0, 0]
    # AV 12 - DV 4 = 8 > R 6: the attacker (open terrain) chooses.
    assert decision(s) == "loss_or_retreat" and decider(s) == CT
    play(s, dice, "choose_loss")
    assert unit(s, "Wiśniowiecki")["disorganized"]
    assert unit(s, "Hrunka") == {"hex": "32", "status": 0, "disorganized": False, "acts": 1}
    assert unit(s, "Nosach")["acts"] == 0  # 6.1.1: added units keep their activation state
    # The die "2" is left: Dzhelalii may still use it.
    assert decision(s) == "choose_die"


def test_7_2_wagon_activation_example_bohun():
    """7.2: a 4 moves Bohun alone; with his wagon he needs two 4s, or a 4 and 2 interaction."""
    units = {"Bohun": "62", "Wagon (Bohun)": "62", "Zemska": "02"}
    # two 4s: the pair moves together, one activation.
    s, dice = start(units, active="cossack_tatar", dice=[4, 4, 1])
    play(s, dice, "die:4", "wagon_die:Bohun", "hex:52")
    assert unit(s, "Bohun")["hex"] == "52" and unit(s, "Wagon (Bohun)")["hex"] == "52"
    assert unit(s, "Bohun")["acts"] == 1 and s.sc[S.SPENT] == 2
    # one 4 and 2 interaction commands
    s, dice = start(units, active="cossack_tatar", dice=[4, 2, 1],
                    commands={"polish_lithuanian": {"reconnaissance": 0, "interaction": 0},
                              "cossack_tatar": {"reconnaissance": 0, "interaction": 2}})
    play(s, dice, "die:4", "wagon_cmd:Bohun", "hex:52")
    assert unit(s, "Wagon (Bohun)")["hex"] == "52" and s.cmd[CT, 1] == 0
    # one 4 and nothing else: Bohun leaves his wagon behind.
    s, dice = start(units, active="cossack_tatar", dice=[4, 2, 1])
    from bx_helpers import legal

    play(s, dice, "die:4")
    assert not any("with its wagon" in text for text in legal(s))
    play(s, dice, "unit:Bohun", "hex:52")
    assert unit(s, "Bohun")["hex"] == "52" and unit(s, "Wagon (Bohun)")["hex"] == "62"


def test_8_1_3_example_nadworna_hubaldt_lianckoronski_vs_nosach():
    """8.1.3: Nadworna attacks Nosach; C-T declines the retreat before combat; Hubaldt and
    Lianckoroński (activated twice) join for 2 interaction; 2d10 + 2d8 + 2d6 = 17 against 1d6 = 6;
    CR 11 > R 6; C-T pays 1 reconnaissance for the choice and retreats to 34; a cavalry unit advances
    to 24."""
    s, dice = start(
        {"Nadworna": "14", "Hubaldt": "15", "Lianckoroński": {"hex": "23", "activations": 2}, "Nosach": "24"},
        dice=[5, 1, 1],
        commands={"polish_lithuanian": {"reconnaissance": 0, "interaction": 2},
                  "cossack_tatar": {"reconnaissance": 3, "interaction": 0}},
        # Nadworna 2d10, Lianckoroński 2d8, Hubaldt 2d6 = 17; Nosach 1d6 = 6
        rolls=[3, 3, 2, 3, 3, 3, 6],
    )
    play(s, dice, "die:5", "unit:Nadworna", "hex:14", "hex:24")
    assert decision(s) == "retreat_before" and decider(s) == CT
    play(s, dice, "stand", "hex:15", "hex:23")
    assert s.cmd[PL].tolist() == [0, 0]
    assert dice.remaining == 0 and s.sc[S.ROLL_DIFF] == 11
    assert decision(s) == "loss_or_retreat" and decider(s) == PL  # open terrain: the attacker chooses
    play(s, dice, "choose_loss")
    assert decision(s) == "take_choice" and decider(s) == CT      # 6.2.3: C-T may overrule it
    play(s, dice, "take_choice", "choose_retreat")
    assert s.cmd[CT].tolist() == [2, 0]
    assert decision(s) == "retreat" and decider(s) == CT
    play(s, dice, "hex:34")
    assert unit(s, "Nosach") == {"hex": "34", "status": 0, "disorganized": False, "acts": 0}
    assert decision(s) == "advance" and decider(s) == PL
    play(s, dice, "hex:23")  # Lianckoroński advances
    assert unit(s, "Lianckoroński")["hex"] == "24" and unit(s, "Lianckoroński")["acts"] == 2
    assert unit(s, "Nadworna")["acts"] == 1


def test_8_2_example_hubaldt_fires_on_kirim_giray_with_artillery():
    """8.2: Hubaldt fires on Kirim Giray (R 8) with artillery: 2d6 + 1d6 = 4, 3, 3 = 10 > 8: losses,
    and a Tatar target retreats one additional hex (8.2.6)."""
    s, dice = start(
        {"Hubaldt": "15", "Lianckoroński": "17", "Kirim Giray": "16"},
        dice=[4, 1, 1],
        commands={"polish_lithuanian": {"reconnaissance": 0, "interaction": 1},
                  "cossack_tatar": {"reconnaissance": 3, "interaction": 0}},
        rolls=[4, 3, 3],
    )
    play(s, dice, "die:4", "unit:Hubaldt", "hex:15", "hex:16")
    # 8.2.1 no retreat before ranged combat; 8.2.2 cavalry cannot join: straight to artillery.
    assert decision(s) == "att_artillery"
    play(s, dice, "artillery")
    assert s.sc[S.ROLL_DIFF] == 10
    assert unit(s, "Kirim Giray")["disorganized"]
    assert s.sc[S.SPIRIT] == 2
    assert decision(s) == "retreat" and decider(s) == CT
    play(s, dice, "hex:25")
    assert unit(s, "Kirim Giray")["hex"] == "25"
    assert decision(s) == "choose_die"  # 8.2.7: no advance after ranged combat


def test_example_of_two_consecutive_throws():
    """The rulebook's closing example, from Marichka's throw 2, 3, 3 to Kirim Giray's escape to 35."""
    s, dice = start(
        {"Wiśniowiecki": "26", "Lubomirski": "17", "Hubaldt": "24", "Zemska": "02",
         "Kirim Giray": "45", "Kalga": "46", "Amurat": {"hex": "57", "disorganized": True}},
        active="cossack_tatar", round=2, dice=[2, 3, 3],
        commands={"polish_lithuanian": {"reconnaissance": 2, "interaction": 1},
                  "cossack_tatar": {"reconnaissance": 2, "interaction": 3}},
        tatar_spirit=3,
        rolls=[3, 3, 3, 3, 3, 3,   # Kalga 3d6 + Kirim Giray 3d6 = 18
               4,                  # Wiśniowiecki 1d8 = 4
               2, 4, 6,            # Hoshka's throw
               4, 3, 2,            # Hubaldt 2d6 + artillery 1d6 = 9
               5, 5, 2, 3],        # Lubomirski 2d8 = 10, Kirim Giray 2d6 = 5
    )
    # Marichka: Kirim Giray 45 -> 25, then 25 -> 16, no combat either time.
    play(s, dice, "die:3", "unit:Kirim Giray", "hex:25")
    assert decision(s) == "target" or decision(s) == "choose_die"
    if decision(s) == "target":
        play(s, dice, "no_combat")
    play(s, dice, "die:3", "unit:Kirim Giray", "hex:16", "no_combat")
    assert unit(s, "Kirim Giray") == {"hex": "16", "status": 0, "disorganized": False, "acts": 2}
    # Two interaction for an additional activation of Kalga, 46 -> 37, close combat on Wiśniowiecki.
    play(s, dice, "buy_activation", "unit:Kalga", "hex:37", "hex:26")
    # Hoshka could retreat before combat (2 reconnaissance) but both rear hexes are occupied: no choice.
    assert decision(s) == "add_unit"
    play(s, dice, "hex:16")  # Kirim Giray joins (activated twice: it does not matter)
    assert s.cmd[CT].tolist() == [2, 0]
    # CR = 18 - 4 = 14 >= 2 x 6: losses and retreat; rear blocked -> side hex, extra loss: destroyed.
    assert s.sc[S.ROLL_DIFF] == 14
    assert decision(s) == "retreat" and decider(s) == PL
    play(s, dice, "hex:25")
    assert unit(s, "Wiśniowiecki")["status"] == DESTROYED
    assert s.sc[S.SPIRIT] == 4  # +1 for a destroyed Polish-Lithuanian unit
    assert decision(s) == "advance"
    play(s, dice, "hex:37")  # Kalga advances into 26
    assert unit(s, "Kalga")["hex"] == "26"
    play(s, dice, "end_throw")

    # Hoshka throws 2, 4, 6. The 4: Hubaldt 24 -> 15, ranged combat on Kirim Giray with artillery.
    assert s.sc[S.ACTIVE] == PL and sorted(s.dice.tolist()) == [2, 4, 6]
    play(s, dice, "die:4", "unit:Hubaldt", "hex:15", "hex:16", "artillery")
    assert s.sc[S.ROLL_DIFF] == 9
    assert unit(s, "Kirim Giray")["disorganized"] and s.sc[S.SPIRIT] == 3
    # One additional hex for a Tatar under fire: rear {25, 26}, 26 holds Kalga.
    play(s, dice, "hex:25")
    assert unit(s, "Kirim Giray")["hex"] == "25"
    # The 2: Lubomirski 17 -> 16 and close combat on the disorganized Kirim Giray (R 3).
    play(s, dice, "die:2", "unit:Lubomirski", "hex:16", "hex:25")
    assert decision(s) == "retreat_before" and decider(s) == CT
    play(s, dice, "stand")
    # No interaction left: no added units, no artillery; 10 - 5 = 5 > 3.
    assert s.sc[S.ROLL_DIFF] == 5
    assert decision(s) == "loss_or_retreat" and decider(s) == PL
    play(s, dice, "choose_loss")  # "She chooses to inflict losses, but Marichka spends one reconnaissance..."
    assert decision(s) == "take_choice"
    play(s, dice, "take_choice", "choose_retreat", "hex:35")
    assert unit(s, "Kirim Giray") == {"hex": "35", "status": 0, "disorganized": True, "acts": 2}
    assert s.cmd[CT].tolist() == [1, 0]
    play(s, dice, "hex:16")  # Lubomirski advances to 25
    assert unit(s, "Lubomirski")["hex"] == "25"
    assert dice.remaining == 0
