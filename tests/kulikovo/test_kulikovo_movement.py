"""Movement, facing, ZOC and command restrictions (5.x, 6.0, 7.0, 13.x)."""

import pytest

from kulikovo_testlib import A, decision, engine, hx, leader, legal, log_text, new, play, player, pos_of


def nb(h: str, d: int) -> str:
    eng = engine()
    return eng.grid.ids[eng.geo.nbr[hx(h)][d]]


def frontal(h: str, f: int) -> list[str]:
    eng = engine()
    return [eng.grid.ids[x] for x in eng.geo.frontal(hx(h), f)]


def steps(s) -> set[int]:
    eng = engine()
    return {a - eng.AL.DIR for a in eng.legal_actions(s) if eng.AL.DIR <= a < eng.AL.DIR + 6}


def _supreme(units, extra_leaders=()):
    return new(units, [leader("Dmitri", "4010")] + list(extra_leaders),
               to_move={"player": "russian", "activate": "Supreme"})


def test_5_0_movement_allowance_clear_terrain():
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}])
    play(s, d, A("UNIT", "R15"))
    h = "4010"
    for _ in range(5):  # H: MA 5, clear costs 1
        assert 2 in steps(s)
        play(s, d, A("DIR", 2))
        h = nb(h, 2)
    assert steps(s) == set()
    assert pos_of(s, "R15")["hex"] == h


def test_5_0_woods_cost_and_insufficient_points():
    s, d = new([{"id": "R15", "hex": "3020", "facing": 0}], [leader("Dmitri", "3020")],
               to_move={"player": "russian", "activate": "Supreme"})
    play(s, d, A("UNIT", "R15"))
    assert nb("3020", 1) == "3120"
    play(s, d, A("DIR", 1))  # into woods: 3 MP for H, 2 left
    assert nb("3120", 0) == "3220" and engine().sc.woods[hx("3220")]
    assert 0 not in steps(s)  # another woods hex would cost 3
    assert 3 in steps(s)      # back to clear 3020 costs 1


def test_5_0_steep_slope_costs():
    # 3004 (plateau) -> 3003 (valley) is a steep slope down: 1 + 1; back up: H pays 1 + 3
    s, d = new([{"id": "R15", "hex": "3004", "facing": 0}], [leader("Dmitri", "3004")],
               to_move={"player": "russian", "activate": "Supreme"})
    play(s, d, A("UNIT", "R15"), A("DIR", 2))
    assert pos_of(s, "R15")["hex"] == "3003"
    assert 5 not in steps(s)  # 3 MP left < 4 to climb the steep slope


def test_6_0_facing_free_when_stopping():
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}])
    play(s, d, A("UNIT", "R15"))
    assert {A("FACE", f) for f in range(6)} <= set(engine().legal_actions(s))
    play(s, d, A("FACE", 3))
    assert pos_of(s, "R15")["facing"] == 3


def test_7_0_entering_enemy_zoc_stops_and_draws_reaction_fire():
    # Mongol light cavalry at 4212 facing W: its frontal hexes are a ZOC and reaction-fire hexes
    zoc_hexes = frontal("4212", 3)
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M13", "hex": "4212", "facing": 3}])
    play(s, d, A("UNIT", "R15"))
    h = "4010"
    # walk toward a ZOC hex: 4010 -> 4111 (SE) is adjacent to 4212's frontal hexes
    target = next(z for z in zoc_hexes if engine().geo.dist[hx(z), hx("4010")] == 2)
    mid = next(nb(h, dd) for dd in range(6) if engine().geo.dist[hx(nb(h, dd)), hx(target)] == 1
               and nb(h, dd) not in zoc_hexes)
    d1 = next(dd for dd in range(6) if nb(h, dd) == mid)
    play(s, d, A("DIR", d1))
    d2 = next(dd for dd in range(6) if nb(mid, dd) == target)
    play(s, d, A("DIR", d2))
    assert decision(s) == "reaction fire" and player(s) == 1
    play(s, d, A("OPT", "NO"))
    assert decision(s) == "move/fire: unit action" and player(s) == 0
    assert steps(s) == set()  # 7.0: must stop
    # 6.0 exception does not apply: it moved out of its hex, so any facing
    assert A("FACE", 3) in engine().legal_actions(s)


def test_7_0_light_cavalry_may_leave_a_zoc_it_entered():
    zoc_hexes = frontal("4212", 3)
    target = zoc_hexes[0]
    start = next(nb(target, dd) for dd in range(6) if nb(target, dd) not in zoc_hexes and nb(target, dd) != "4212"
                 and engine().geo.dist[hx(nb(target, dd)), hx("4212")] == 2)
    s, d = new([{"id": "R21", "hex": start, "facing": 0}, {"id": "M38", "hex": "4212", "facing": 3}],
               [leader("Dmitri", start)], to_move={"player": "russian", "activate": "Supreme"})
    play(s, d, A("UNIT", "R21"), A("DIR", next(dd for dd in range(6) if nb(start, dd) == target)))
    # M38 is heavy cavalry: no reaction fire; L continues, paying 1 MP to leave the ZOC
    assert decision(s) == "move/fire: unit action"
    assert steps(s), "light cavalry may leave the ZOC it entered"


def test_7_0_leaving_horse_zoc_at_start_costs_one_and_stops_in_next_zoc():
    # R15 starts in the ZOC of Mongol H at 4212 (facing W) and leaves it
    z = frontal("4212", 3)[0]
    s, d = new([{"id": "R15", "hex": z, "facing": 3}, {"id": "M38", "hex": "4212", "facing": 3}],
               [leader("Dmitri", z)], to_move={"player": "russian", "activate": "Supreme"})
    play(s, d, A("UNIT", "R15"))
    st = steps(s)
    assert st, "an in-command unit may leave an enemy ZOC at the start of its activation"
    # it may not step into the other frontal hex of the same enemy (7.0: no return to that ZOC)
    other = frontal("4212", 3)[1]
    assert all(nb(z, dd) != other for dd in st)


def _dir(a: str, b: str) -> int:
    return next(dd for dd in range(6) if nb(a, dd) == b)


@pytest.mark.parametrize("first, second", [("M38", "M39"), ("M39", "M38")])
def test_7_0_no_return_to_the_zoc_of_any_enemy_unit_left_whatever_the_counter_order(first, second):
    """R15 starts in the ZOCs of two Mongol horse (4111 facing NW, 4110 facing W), steps out to 3910, then may
    not step into 4009, which only the second one's ZOC covers: it just left that ZOC too (C5). The counters'
    order (which unit comes first in the arrays) must not matter."""
    assert "4010" in frontal("4111", 2) and "4010" in frontal("4110", 3)
    assert "4009" in frontal("4110", 3) and "4009" not in frontal("4111", 2)
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}, {"id": first, "hex": "4111", "facing": 2},
                     {"id": second, "hex": "4110", "facing": 3}])
    play(s, d, A("UNIT", "R15"), A("DIR", _dir("4010", "3910")))
    assert pos_of(s, "R15")["hex"] == "3910"
    assert _dir("3910", "4009") not in steps(s)
    assert steps(s), "steps that enter neither ZOC stay open"


def test_7_0_light_cavalry_may_not_return_to_the_zoc_it_just_left_after_leaving_another():
    """9.1: an L leaves the ZOC it started in (M38's), enters M39's, leaves it, and may not step straight
    back into it: the unit it just left is M39, not only the first one it left."""
    eng = engine()
    s, d = _supreme([{"id": "R21", "hex": "4210", "facing": 0}, {"id": "M38", "hex": "4111", "facing": 0},
                     {"id": "M39", "hex": "4411", "facing": 2}])
    assert "4210" in frontal("4111", 0) and "4311" in frontal("4411", 2) and "4410" in frontal("4411", 2)
    play(s, d, A("UNIT", "R21"), A("DIR", _dir("4210", "4311")), A("DIR", _dir("4311", "4310")))
    assert pos_of(s, "R21")["hex"] == "4310"
    assert eng.geo.dist[hx("4310"), hx("4411")] == 2
    assert _dir("4310", "4410") not in steps(s)


def test_13_1_out_of_command_unit_may_not_move_adjacent_to_enemy():
    # Dmitri far away (range 4): R15 at 4010 is out of command; Mongol R at 4212
    s, d = new([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M03", "hex": "4212", "facing": 3}],
               [leader("Dmitri", "2810")], to_move={"player": "russian", "activate": "Supreme"})
    play(s, d, A("UNIT", "R15"))
    eng = engine()
    for dd in steps(s):
        assert eng.geo.dist[hx(nb("4010", dd)), hx("4212")] > 1
    assert steps(s)


def test_13_1_command_chain_through_adjacent_unit():
    # R16 out of range of Dmitri but adjacent to R15 which is in range: in command
    s, d = new([{"id": "R15", "hex": "3510", "facing": 0}, {"id": "R16", "hex": "3610", "facing": 0},
                {"id": "M03", "hex": "3812", "facing": 3}],
               [leader("Dmitri", "3110")], to_move={"player": "russian", "activate": "Supreme"})
    p = engine().observe(s, 0)
    lay = engine().obs_layout
    incmd = lay.unflatten(p)["own_in_command"]
    assert incmd[hx("3510")] == 1.0 and incmd[hx("3610")] == 1.0


def test_12_2_retired_unit_moves_one_hex_toward_standard():
    s, d = new([{"id": "R15", "hex": "3512", "facing": 0, "status": "retired"}], [leader("Dmitri", "3512")],
               to_move={"player": "russian", "activate": "Supreme"})
    play(s, d, A("UNIT", "R15"))
    eng = engine()
    st = steps(s)
    assert st
    for dd in st:
        assert eng.geo.dist[hx(nb("3512", dd)), hx("3012")] < eng.geo.dist[hx("3512"), hx("3012")]
    play(s, d, A("DIR", min(st)))
    assert steps(s) == set()


def test_12_5_1_disordered_unit_that_does_nothing_rallies():
    s, d = new([{"id": "R15", "hex": "3512", "facing": 0, "status": "disordered"},
                {"id": "R16", "hex": "3514", "facing": 0, "status": "disordered"}], [leader("Dmitri", "3512")],
               to_move={"player": "russian", "activate": "Supreme"}, dice=[0, 0])
    play(s, d, A("UNIT", "R16"), A("DIR", 2), A("FACE", 0), A("OPT", "PASS"), A("OPT", "PASS"))
    assert pos_of(s, "R15")["status"] == "normal"
    assert pos_of(s, "R16")["status"] == "disordered"
    assert "rallies from Disorder [12.5.1]" in log_text(s)


def test_6_0_in_enemy_zoc_staying_turns_one_vertex():
    z = frontal("4212", 3)[0]
    s, d = new([{"id": "R15", "hex": z, "facing": 0}, {"id": "M38", "hex": "4212", "facing": 3}],
               [leader("Dmitri", z)], to_move={"player": "russian", "activate": "Supreme"})
    play(s, d, A("UNIT", "R15"))
    eng = engine()
    faces = {a - eng.AL.FACE for a in eng.legal_actions(s) if eng.AL.FACE <= a < eng.AL.FACE + 6}
    assert faces == {5, 0, 1}


def test_15_1_15_3_historical_setup():
    from wargame_envs.core.dice import ScriptedDice
    eng = engine()
    s = eng.new_state({}, ScriptedDice([7, 2]))
    pos = eng.to_position(s)
    on = [u for u in pos["units"] if u["hex"]]
    assert len(on) == 45 - 6 + 50 and eng.check_invariants(s) == []
    by_hex = {u["hex"]: u for u in on}
    # corrections (reference 6): Lookout gets 4110, Reserve fills 2812-2815; Orda has 12 distinct hexes
    assert by_hex["4110"]["command"] == "Lookout"
    assert [by_hex[h]["command"] for h in ("2812", "2813", "2814", "2815")] == ["Reserve"] * 4
    assert sum(1 for u in on if u["command"] == "Center Orda") == 12
    assert all(u["facing"] == (0 if u["id"][0] == "R" else 3) for u in on)
    assert pos["standards"]["russian"]["hex"] == "3012" and pos["standards"]["mongol"]["hex"] == "5020"


def test_12_5_1_a_unit_disordered_during_the_activation_does_not_rally_in_it():
    """A Bowman Disordered by a friendly retreat through it (12.1) did not spend the activation Disordered: it
    stays Disordered at its end, and rallies at a later activation in which it does nothing (C50)."""
    x = nb("4010", 0)
    units = [{"id": "M38", "hex": "4010", "facing": 3}, {"id": "R02", "hex": x, "facing": 3},
             {"id": "R03", "hex": nb(x, 5), "facing": 3}, {"id": "R04", "hex": nb(x, 1), "facing": 3},
             {"id": "R01", "hex": nb(x, 0), "facing": 0}]
    s, d = new(units, [leader("Obelenski", nb(x, 5))], to_move={"player": "russian", "activate": "Lookout"},
               dice=[0] * 6)
    play(s, d, A("OPT", "PASS"), A("UNIT", "R02"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", "4010"),
         A("OPT", "NO"))
    play(s, d, next(iter(legal(s))))  # R02 retreats, through the Bowman R01 (AD + AR at DR 0)
    play(s, d, A("FACE", 3))
    assert "it retreats through B" in log_text(s) and "Disordered [12.1]" in log_text(s)
    assert "rallies from Disorder [12.5.1]" not in log_text(s)
    assert pos_of(s, "R01")["status"] == "disordered"
