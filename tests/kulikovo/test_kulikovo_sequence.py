"""Sequence of play: activation, continuity, seizing, passing, heroic combat, flight (4.x, 15.4, 16.x)."""

from kulikovo_testlib import A, decision, engine, leader, log_text, new, play, player, unit

from wargame_envs.core.dice import ScriptedDice


def _armies():
    units = [unit("M33", "4911", 3), unit("M09", "4512", 3), unit("R01", "4108", 0), unit("R02", "4110", 0)]
    leaders = [leader("Orda commander", "4911"), leader("Mercenary commander", "4512"), leader("Obelenski", "4110"),
               leader("Mamai", "5021")]
    return units, leaders


def test_4_3_seize_example():
    """4.3 example: Mongol activates Orda, names Mercenary for continuity; the Russian tries to seize with
    the Lookout Regiment (rating 3), rolls an 8 and fails; the Mongol then freely activates Orda again."""
    units, leaders = _armies()
    # dice: flight checks after the free Orda activation (Mongol, Russian), then the seize DR 8
    s, d = new(units, leaders, to_move={"player": "mongol"}, dice=[0, 0, 8, 0, 0])
    eng = engine()
    assert decision(s) == "free activation" and player(s) == 1
    play(s, d, A("CMD", "Center Orda"), A("OPT", "PASS"), A("OPT", "PASS"))
    assert decision(s) == "continuity" and player(s) == 1
    play(s, d, A("CMD", "Mercenary"))
    assert decision(s) == "seize continuity" and player(s) == 0
    assert eng.command_rating(s, [c["name"] for c in eng.sc.commands].index("Lookout")) == 3
    play(s, d, A("CMD", "Lookout"))
    assert "DR 8 vs rating 3 -> fails" in log_text(s)
    assert decision(s) == "free activation" and player(s) == 1
    assert A("CMD", "Center Orda") in eng.legal_actions(s)  # even the one that just went
    play(s, d, A("CMD", "Center Orda"))
    assert "Mongol activates Center Orda (free)" in log_text(s)


def test_4_3_seize_succeeds_on_rating_or_lower():
    units, leaders = _armies()
    s, d = new(units, leaders, to_move={"player": "mongol"}, dice=[0, 0, 3])
    play(s, d, A("CMD", "Center Orda"), A("OPT", "PASS"), A("OPT", "PASS"), A("CMD", "Mercenary"), A("CMD", "Lookout"))
    assert "DR 3 vs rating 3 -> seized" in log_text(s)
    assert player(s) == 0 and decision(s) == "move/fire: select unit"
    assert "Russian activates Lookout" in log_text(s) and "Lookout (free)" not in log_text(s)


def test_4_2_continuity_roll():
    units, leaders = _armies()
    s, d = new(units, leaders, to_move={"player": "mongol"}, dice=[0, 0, 3, 5])
    play(s, d, A("CMD", "Center Orda"), A("OPT", "PASS"), A("OPT", "PASS"), A("CMD", "Mercenary"))
    eng = engine()
    assert A("CMD", "Center Orda") not in eng.legal_actions(s) or decision(s) == "seize continuity"
    play(s, d, A("OPT", "NO"))
    # Mercenary commander rating 3: DR 3 activates
    assert "Continuity Mercenary: DR 3 vs rating 3 -> activates" in log_text(s)
    play(s, d, A("OPT", "PASS"), A("OPT", "PASS"))
    # after the (non-free) activation no flight check; continuity again, not with Mercenary
    assert decision(s) == "continuity"
    assert A("CMD", "Mercenary") not in engine().legal_actions(s)
    play(s, d, A("CMD", "Center Orda"), A("OPT", "NO"))
    assert "DR 5 vs rating 4 -> fails" in log_text(s)
    assert decision(s) == "free activation" and player(s) == 0


def test_4_1_pass_is_a_failed_activation():
    units, leaders = _armies()
    s, d = new(units, leaders, to_move={"player": "russian"})
    play(s, d, A("OPT", "PASS"))
    assert decision(s) == "free activation" and player(s) == 1


def test_13_2_subordinate_next_to_overall_commander_rates_one_higher():
    units, leaders = _armies()
    eng = engine()
    cmds = [c["name"] for c in eng.sc.commands]
    s, _ = new(units, leaders)
    assert eng.command_rating(s, cmds.index("Center Orda")) == 4
    leaders2 = [l if l["name"] != "Mamai" else leader("Mamai", "4912") for l in leaders]
    s2, _ = new(units, leaders2)
    assert eng.command_rating(s2, cmds.index("Center Orda")) == 5


def test_15_4_heroic_combat_and_first_free_activation():
    eng = engine()
    s = eng.new_state({}, ScriptedDice([7, 2]))
    assert player(s) == 0 and decision(s) == "free activation"
    assert eng.flight_points(s, 1) == 1 and eng.flight_points(s, 0) == 0


def test_15_4_heroic_combat_tie_rerolls_without_flight_point():
    eng = engine()
    s = eng.new_state({}, ScriptedDice([4, 4, 1, 6]))
    assert player(s) == 1
    assert eng.flight_points(s, 0) == 0 and eng.flight_points(s, 1) == 0


def test_16_0_flight_check_after_free_activation():
    units, leaders = _armies()
    # Mongol has 50 FP: after its free activation it rolls 6 -> 56 > 55: flees, Russian wins
    s, d = new(units, leaders, to_move={"player": "mongol"}, dice=[6], flight_points={"russian": 0, "mongol": 50})
    play(s, d, A("CMD", "Center Orda"), A("OPT", "PASS"), A("OPT", "PASS"))
    eng = engine()
    assert eng.is_terminal(s) and list(eng.returns(s)) == [1.0, -1.0]
    assert "56 vs level 55 -> FLEES" in log_text(s)


def test_16_0_flight_check_holds_at_level():
    units, leaders = _armies()
    s, d = new(units, leaders, to_move={"player": "mongol"}, dice=[5, 0], flight_points={"russian": 0, "mongol": 50})
    play(s, d, A("CMD", "Center Orda"), A("OPT", "PASS"), A("OPT", "PASS"))
    assert not engine().is_terminal(s) and decision(s) == "continuity"


def test_truncation_by_activation_limit_is_not_a_win():
    units, leaders = _armies()
    s, d = new(units, leaders, max_activations=2)
    play(s, d, A("OPT", "PASS"), A("OPT", "PASS"))
    assert not engine().is_truncated(s)
    play(s, d, A("OPT", "PASS"))
    eng = engine()
    assert eng.is_truncated(s) and not eng.is_terminal(s) and list(eng.returns(s)) == [0.0, 0.0]
