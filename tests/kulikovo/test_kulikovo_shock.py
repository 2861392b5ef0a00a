"""Shock, charge and their results (10.x, 11.x, 12.x)."""

import pytest

from kulikovo_testlib import A, decision, engine, hx, leader, log_text, new, play, player, pos_of


def nb(h: str, d: int) -> str:
    eng = engine()
    return eng.grid.ids[eng.geo.nbr[hx(h)][d]]


def _supreme(units, dice, leaders=None, **kw):
    # Dmitri next to (not stacked with) the attacker: in command, no leader DRM; not free: no flight check
    return new(units, leaders if leaders is not None else [leader("Dmitri", "3910")],
               to_move={"player": "russian", "activate": "Supreme", "free": False}, dice=dice, **kw)


def _to_shock(s, d):
    play(s, d, A("OPT", "PASS"))  # end Move/Fire
    assert decision(s) == "shock: select attacker"


def test_10_2_example_one_strength_disadvantage():
    """10.2 Example One: an H unit attacks two R units: -1 Strength DRM (and the R defense +1, example)."""
    a, b = nb("4010", 0), nb("4010", 1)
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M03", "hex": a, "facing": 3},
                     {"id": "M04", "hex": b, "facing": 3}], [5, 5])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R15"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", a))
    text = log_text(s)
    # 10.2: -1 strength, +1 R defense (example 3), -1 H vs R matrix; 5 - 1 + 1 - 1 = 4: no effect
    assert f"Shock H 4010 vs R {a}: DR 5 -1 (strength) +1 (defense) -1 (weapons matrix) = 4 -> - [10.2]" in text
    play(s, d, A("HEX", b))
    assert f"vs R {b}: DR 5 -1 (strength) +1 (defense) -1 (weapons matrix) = 4" in log_text(s)


def test_10_0_shock_must_attack_all_frontal_units():
    a, b = nb("4010", 0), nb("4010", 1)
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M03", "hex": a, "facing": 3},
                     {"id": "M04", "hex": b, "facing": 3}], [])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R15"))
    eng = engine()
    legal = eng.legal_actions(s)
    assert A("OPT", "SHOCK_ALL") in legal and A("OPT", "SHOCK_UNATTACKED") not in legal
    play(s, d, A("OPT", "SHOCK_ALL"), A("OPT", "PASS"))
    assert set(eng.legal_actions(s)) == {hx(a), hx(b)}


def test_10_2_angle_of_attack_and_leader_presence():
    # two Russian units attack an R from its front and flank: +4 combination; Dmitri with an attacker: +1
    tgt = "4111"
    front_hex = nb(tgt, 3)   # R faces W (3): direction 3 frontal
    flank_hex = nb(tgt, 5)   # direction 5 is flank for facing 3
    f1 = next(f for f in range(6) if tgt in [engine().grid.ids[x] for x in engine().geo.frontal(hx(front_hex), f)])
    f2 = next(f for f in range(6) if tgt in [engine().grid.ids[x] for x in engine().geo.frontal(hx(flank_hex), f)])
    s, d = _supreme([{"id": "R22", "hex": front_hex, "facing": f1}, {"id": "R23", "hex": flank_hex, "facing": f2},
                     {"id": "M03", "hex": tgt, "facing": 3}], [4], leaders=[leader("Dmitri", front_hex)])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R22"), A("OPT", "SHOCK_ALL"), A("UNIT", "R23"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"),
         A("HEX", tgt))
    text = log_text(s)
    # R vs R: +1 strength (2 vs 1), +4 combination, +1 defense, +1 leader, 0 matrix -> 4 + 7 = 11: E+CA
    assert "DR 4 +1 (strength) +4 (angle: combination) +1 (defense) +1 (leader with attacker) = 11 -> E+CA" in text
    assert pos_of(s, "M03")["status"] == "eliminated"


def test_11_1_charge_table_and_10_3_advance():
    t2 = nb(nb("4010", 0), 0)
    mid = nb("4010", 0)
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M18", "hex": t2, "facing": 3}], [4])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R15"))
    assert hx(mid) in engine().legal_actions(s)  # charge into the hex adjacent to the target
    play(s, d, A("HEX", mid), A("OPT", "PASS"))
    play(s, d, A("HEX", t2))  # resolve
    assert decision(s) == "defend: stand, retreat or counter-charge" and player(s) == 1
    play(s, d, A("OPT", "NO"))
    # H charging M: +2 charge, -1 M defense, +1 matrix: 4 + 2 = 6 -> DD+DR on the Charge Table
    assert "Charge H " + mid + " vs M " + t2 + ": DR 4 -1 (defense) +2 (charging H) +1 (weapons matrix) = 6 -> DD+DR [11.1]" in log_text(s)
    assert decision(s) == "retreat path" and player(s) == 1
    eng = engine()
    dest = eng.legal_actions(s)[0]
    play(s, d, dest, A("FACE", 3))
    assert pos_of(s, "M18")["status"] == "disordered"
    assert decision(s) == "facing" and player(s) == 0  # the charger advanced (10.3) and may face
    assert pos_of(s, "R15")["hex"] == t2


def test_11_1_charger_that_moved_minus_one_and_no_charge_from_adjacent():
    start = nb("4010", 3)
    t2 = nb(nb("4010", 0), 0)
    s, d = _supreme([{"id": "R15", "hex": start, "facing": 0}, {"id": "M18", "hex": t2, "facing": 3}], [4])
    play(s, d, A("UNIT", "R15"), A("DIR", 0 if nb(start, 0) == "4010" else next(
        dd for dd in range(6) if nb(start, dd) == "4010")), A("FACE", 0), A("OPT", "PASS"))
    play(s, d, A("UNIT", "R15"), A("HEX", nb("4010", 0)), A("OPT", "PASS"), A("HEX", t2), A("OPT", "NO"))
    assert "-1 (charger moved)" in log_text(s)


def test_11_2_charge_reluctance_against_infantry_front():
    t2 = nb(nb("4010", 0), 0)
    mid = nb("4010", 0)
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M03", "hex": t2, "facing": 3}], [5, 4])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R15"), A("HEX", mid), A("OPT", "PASS"), A("HEX", t2))
    text = log_text(s)
    assert "Charge reluctance H " + mid + " vs R: DR 5 -> blunted" in text
    assert "Shock H " + mid + " vs R " + t2 + ": DR 4" in text  # resolved as Shock without the charge DRM


def test_11_3_counter_charge_against_charging_h_negates_bonus():
    t2 = nb(nb("4010", 0), 0)
    mid = nb("4010", 0)
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M38", "hex": t2, "facing": 3}], [2, 6])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R15"), A("HEX", mid), A("OPT", "PASS"), A("HEX", t2))
    eng = engine()
    assert A("FACE", 3) in eng.legal_actions(s)
    play(s, d, A("FACE", 3))
    text = log_text(s)
    assert "Counter-charge by H " + t2 + ": DR 2 -2 = 0 -> succeeds" in text
    assert "charging H" not in text.split("negates")[-1]
    assert "Charge H " + mid + " vs H " + t2 + ": DR 6 -2 (defense) = 4 -> DD [11.1]" in text


def test_10_1_light_cavalry_retreat_before_shock():
    tgt = nb("4010", 0)
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M13", "hex": tgt, "facing": 3}], [5])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R15"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", tgt))
    eng = engine()
    rbs = [a for a in eng.legal_actions(s) if a < eng.N]
    assert rbs and all(eng.geo.dist[a, hx("4010")] == 2 for a in rbs)
    play(s, d, rbs[0])
    assert "retreats before shock: DR 5 +1 = 6 -> Disordered [10.1]" in log_text(s)
    play(s, d, A("FACE", 3))
    assert decision(s) == "advance after retreat before shock" and player(s) == 0
    play(s, d, A("UNIT", "R15"))
    assert pos_of(s, "R15")["hex"] == tgt


def test_10_1_horse_may_not_retreat_before_horse():
    tgt = nb("4010", 0)
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M18", "hex": tgt, "facing": 0}], [5])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R15"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", tgt))
    # M attacked by H through its rear: no retreat before shock (horse vs horse), no counter-charge (rear)
    assert "defend" not in decision(s)


def test_12_4_continued_attack_minus_one():
    # H charges an L: DR 7 -> E+CA... then continues against the next unit with -1
    mid = nb("4010", 0)
    t2 = nb(mid, 0)
    t3 = nb(t2, 0)
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M03", "hex": t2, "facing": 3},
                     {"id": "M04", "hex": t3, "facing": 3}], [3, 8, 6])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R15"), A("HEX", mid), A("OPT", "PASS"), A("HEX", t2))
    text = log_text(s)
    # reluctance DR 3 ok; 8 +1 (R defense) +2 (charge) -1 (matrix) = 10 -> Rt+CA
    assert "= 10 -> Rt+CA [11.1]" in text
    assert "advances to " + t2 + " to continue the attack [12.4]" in text
    assert "Shock H " + t2 + " vs R " + t3 + ": DR 6 +1 (defense) -1 (weapons matrix) -1 (continued attack) = 5 -> DD [10.2]" in log_text(s)


def test_12_1_retreat_blocked_is_elimination():
    # Mongol R surrounded: must retreat, cannot: eliminated
    tgt = nb("4010", 0)
    others = [nb(tgt, dd) for dd in range(6) if nb(tgt, dd) != "4010"]
    units = [{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M03", "hex": tgt, "facing": 3}]
    ids = ["M04", "M05", "M06", "M09", "M10"]
    for uid, h in zip(ids, others):
        units.append({"id": uid, "hex": h, "facing": 3})
    s, d = _supreme(units, [8])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R15"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", tgt))
    # 8 + 1 - 1 - 1 (strength: the other units are not attacked -> 1 vs 1 = 0) ... -> DD+DR
    assert pos_of(s, "M03")["status"] == "eliminated"
    assert "cannot retreat: eliminated [12.1]" in log_text(s)


def test_12_1_retreat_through_friendly_bowman():
    tgt = nb("4010", 0)
    units = [{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M03", "hex": tgt, "facing": 3}]
    eng = engine()
    away = [nb(tgt, dd) for dd in range(6) if eng.geo.dist[hx(nb(tgt, dd)), hx("4010")] == 2]
    fillers = ["M04", "M05", "M01"]
    for uid, h in zip(fillers, away):
        units.append({"id": uid, "hex": h, "facing": 3})
    s, d = _supreme(units, [8])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R15"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", tgt))
    assert decision(s) == "retreat path"
    dests = eng.legal_actions(s)
    assert dests and all(eng.geo.dist[a, hx(tgt)] == 2 for a in dests)
    play(s, d, dests[0])
    assert "retreats through B" in log_text(s)
    assert pos_of(s, "M01")["status"] == "disordered"


def _facing_toward(frm: str, to: str) -> int:
    eng = engine()
    return next(f for f in range(6) if hx(to) in eng.geo.frontal(hx(frm), f))


def test_10_2_shock_only_units_not_already_attacked():
    eng = engine()
    a, b = nb("4010", 0), nb("4010", 1)
    other = next(eng.grid.ids[y] for y in eng.geo.adj[hx(a)]
                 if eng.geo.dist[y, hx(b)] > 1 and eng.geo.dist[y, hx("4010")] > 1 and eng.grid.ids[y] != a)
    f = next(f for f in range(6) if hx(a) in eng.geo.frontal(hx(other), f) and hx(b) not in eng.geo.frontal(hx(other), f))
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "R16", "hex": other, "facing": f},
                     {"id": "M03", "hex": a, "facing": 3}, {"id": "M04", "hex": b, "facing": 3}], [])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R16"), A("OPT", "SHOCK_ALL"), A("UNIT", "R15"))
    assert {A("OPT", "SHOCK_ALL"), A("OPT", "SHOCK_UNATTACKED")} <= set(eng.legal_actions(s))
    play(s, d, A("OPT", "SHOCK_UNATTACKED"))
    assert f"H 4010 will Shock R {b} [10.0]" in log_text(s)


def test_10_3_advance_tie_is_the_attackers_choice():
    eng = engine()
    tgt = "4111"
    h1, h2 = nb(tgt, 3), nb(tgt, 4)
    s, d = _supreme([{"id": "R15", "hex": h1, "facing": _facing_toward(h1, tgt)},
                     {"id": "R16", "hex": h2, "facing": _facing_toward(h2, tgt)},
                     {"id": "M03", "hex": tgt, "facing": 3}], [9])
    _to_shock(s, d)
    play(s, d, A("UNIT", "R15"), A("OPT", "SHOCK_ALL"), A("UNIT", "R16"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"),
         A("HEX", tgt))
    assert "-> E+CA" in log_text(s) or "-> Rt+CA" in log_text(s)
    assert decision(s) == "advance after shock: which unit" and player(s) == 0
    assert set(eng.legal_actions(s)) == {A("UNIT", "R15"), A("UNIT", "R16")}
    play(s, d, A("UNIT", "R16"))
    assert pos_of(s, "R16")["hex"] == tgt


def test_11_1_11_3_a_counter_charge_up_a_steep_slope_is_resolved_as_a_shock():
    """11.3 resolves a counter-charge "as if it were a normal Charge", and 11.1 allows no charge across a steep
    slope hexside (nor into woods): the H below the steep slope (3003) that counter-charges the R shocking it
    from the plateau (3004) fights a Shock, with no charging DRM and on the Shock Table (clarification C41)."""
    from wargame_envs.kulikovo.data import STEEP

    eng = engine()
    up, down = hx("3004"), hx("3003")
    d_down, d_up = eng.geo.nbr[up].index(down), eng.geo.nbr[down].index(up)
    assert eng.geo.hexside[up][d_down] == STEEP
    s, d = new([{"id": "M03", "hex": "3004", "facing": d_down}, {"id": "R15", "hex": "3003", "facing": d_up}],
               [leader("Front line commander", "3004"), leader("Dmitri", "2803")],
               to_move={"player": "mongol", "activate": "Front line", "free": False}, dice=[0, 5, 9, 9, 9])
    play(s, d, A("OPT", "PASS"), A("UNIT", "M03"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", "3003"))
    assert A("FACE", d_up) in engine().legal_actions(s)
    play(s, d, A("FACE", d_up))
    text = log_text(s)
    assert "Counter-charge by H 3003: DR 0 -2 = -2 -> succeeds [11.3]" in text
    assert ("Counter-charge H 3003 vs R 3004: DR 5 -2 (upslope) +1 (defense) -1 (leader with defender) "
            "-1 (weapons matrix) = 2 -> AD [11.3]") in text
    assert "charging H" not in text


def _drive(s, d, prefs, limit=30):
    """Play the first legal action whose text contains the first matching preference, until the Continuity."""
    eng = engine()
    for _ in range(limit):
        if "continuity" in decision(s) or not eng.legal_actions(s):
            return
        names = {a: eng.action_to_str(s, a).lower() for a in eng.legal_actions(s)}
        pick = next((a for p in prefs for a, n in names.items() if p in n), min(names))
        play(s, d, pick)


@pytest.mark.parametrize("first", ["4111", "4110"])
def test_12_4_the_continued_attack_goes_where_it_was_won_whatever_the_order_of_resolution(first):
    """R15 (H, 4010) shocks the two frontal R: 4111 gives Rt+CA (die 9), 4110 DD+DR (die 7). Resolved in
    either order, R15 advances into 4111, the hex the Continued Attack was won in, and attacks the R beyond it
    (4211) with -1 for its one previous attack; the other result's plain advance does not take its place."""
    second = "4110" if first == "4111" else "4111"
    dice = [9, 7] if first == "4111" else [7, 9]
    s, d = new([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M03", "hex": "4111", "facing": 3},
                {"id": "M04", "hex": "4110", "facing": 3}, {"id": "M05", "hex": "4211", "facing": 3}],
               [leader("Dmitri", "4010")], to_move={"player": "russian", "activate": "Supreme"},
               dice=dice + [5] * 6)
    _drive(s, d, ["end move/fire", "attack with", "shock all", "end shock", f"resolve the attack on {first}",
                  f"resolve the attack on {second}", "no", "pass"])
    text = log_text(s)
    assert "vs R 4111: DR 9" in text and "= 9 -> Rt+CA" in text and "vs R 4110: DR 7" in text
    assert "H 4010 advances to 4111 to continue the attack [12.4]" in text
    assert "Shock H 4111 vs R 4211: DR 5" in text and "-1 (continued attack)" in text
    assert pos_of(s, "R15")["hex"] == "4111"


def test_12_4_a_continued_attack_on_two_enemies_is_one_attack():
    """The Continued Attack after R15's first Shock meets two enemies: each is resolved with -1 (one previous
    attack undertaken), not -1 and then -2."""
    y = nb("4010", 0)
    s, d = new([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M03", "hex": y, "facing": 3},
                {"id": "M04", "hex": nb(y, 0), "facing": 3}, {"id": "M05", "hex": nb(y, 1), "facing": 4}],
               [leader("Dmitri", "4010")], to_move={"player": "russian", "activate": "Supreme"},
               dice=[9, 5, 5, 5, 5, 5])
    _drive(s, d, ["end move/fire", "attack with", "shock all", "end shock", "resolve", "no", "pass"])
    text = log_text(s)
    assert f"H 4010 advances to {y} to continue the attack [12.4]" in text
    continued = [line for line in s.log if line.startswith(f"Shock H {y} vs")]
    assert len(continued) == 2, continued
    assert all("-1 (continued attack)" in line for line in continued), continued


def _h_shocks_r_and_l(first):
    """R15 (H, 4010) shocks M03 (R, 4111) and M13 (L, 4110), resolving ``first`` first: M03 gets DD+DR+CA (die 9
    with -1 Strength), retreats to 4112; M13 retreats before shock to 4109 (die 0) and R15 declines the 10.1
    advance when it is offered. The Continued Attack hits M05 (R, 4211) with die 5."""
    s, d = _supreme([{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M03", "hex": "4111", "facing": 3},
                     {"id": "M13", "hex": "4110", "facing": 3}, {"id": "M05", "hex": "4211", "facing": 3}],
                    ([9, 0] if first == "4111" else [0, 9]) + [5] * 4)
    _to_shock(s, d)
    play(s, d, A("UNIT", "R15"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"))
    for target in (first, "4110" if first == "4111" else "4111"):
        play(s, d, A("HEX", target))
        if target == "4111":
            play(s, d, A("HEX", "4112"), A("FACE", 3))  # M03's retreat (12.1) and facing
        else:
            play(s, d, A("HEX", "4109"), A("FACE", 3))  # M13's retreat before shock (10.1) and facing
            if first == "4110":
                play(s, d, A("OPT", "NO"))  # no 10.1 advance
            else:  # 10.3: R15 must continue into 4111: no 10.1 advance offered besides
                assert decision(s) != "advance after retreat before shock"
    return s


def _r_shocks_r_and_h(first):
    """R22 (R, 4010) shocks M03 (R, 4111) and M38 (H, 4110), resolving ``first`` first: M03 gets DD+DR (die 7
    with -1 Strength) and retreats to 4112; M38 counter-charges (11.3, die 0: against an R it becomes the
    attacker) and gets AD (die 0)."""
    s, d = _supreme([{"id": "R22", "hex": "4010", "facing": 0}, {"id": "M03", "hex": "4111", "facing": 3},
                     {"id": "M38", "hex": "4110", "facing": 3}],
                    ([7, 0, 0] if first == "4111" else [0, 0, 7]) + [5] * 4)
    _to_shock(s, d)
    play(s, d, A("UNIT", "R22"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"))
    for target in (first, "4110" if first == "4111" else "4111"):
        play(s, d, A("HEX", target))
        if target == "4111":
            play(s, d, A("HEX", "4112"), A("FACE", 3))
        else:
            play(s, d, A("FACE", 3))  # M38 counter-charges R22 facing W
    return s


@pytest.mark.parametrize("first", ["4111", "4110"])
def test_10_3_advance_kept_when_the_other_target_retreats_before_shock_in_either_order(first):
    """10.3 / 12.4: R15 wins a Continued Attack against M03; its other target, the L M13, retreats before shock.
    Whichever it resolves first, R15 advances into 4111 once both are done and attacks M05 beyond (until
    2026-12-05, M13 resolved last left R15 standing: clarification C43)."""
    s = _h_shocks_r_and_l(first)
    text = log_text(s)
    assert "= 8 -> DD+DR+CA" in text and "L 4110 retreats before shock" in text
    assert "H 4010 advances to 4111 to continue the attack [12.4]" in text
    assert "Shock H 4111 vs R 4211: DR 5" in text and "-1 (continued attack)" in text
    assert pos_of(s, "R15")["hex"] == "4111"


@pytest.mark.parametrize("first", ["4111", "4110"])
def test_10_3_advance_kept_when_the_other_target_counter_charges_in_either_order(first):
    """10.3: R22 Disorders and drives M03 out of 4111; the H M38, its other target, counter-charges it and
    becomes the attacker (11.3). Whichever R22 resolves first, it advances into 4111 (until 2026-12-05, M38
    resolved last left the hex empty: clarification C43)."""
    s = _r_shocks_r_and_h(first)
    text = log_text(s)
    assert "H 4110 counter-charges R 4010 and becomes the attacker [11.3]" in text
    assert "Shock R 4010 vs R 4111: DR 7 -1 (strength) +1 (defense) = 7 -> DD+DR [10.2]" in text
    assert "R 4010 advances to 4111 [10.3]" in text
    assert pos_of(s, "R22")["hex"] == "4111" and pos_of(s, "M03")["hex"] == "4112"


@pytest.mark.parametrize("scenario", ["retreat before shock", "counter-charge"])
@pytest.mark.parametrize("first", ["4111", "4110"])
def test_10_2_strength_counts_a_declared_defender_that_left_in_either_order(scenario, first):
    """10.2 Strength (play note: 1 unit attacking 2 rolls twice, each with -1; C14): the defender in 4110, which
    retreats before shock (the L M13) or counter-charges and becomes the attacker (the H M38), still counts for
    the attack on M03, resolved before or after it (until 2026-12-05 only before: clarification C46)."""
    s = _h_shocks_r_and_l(first) if scenario == "retreat before shock" else _r_shocks_r_and_h(first)
    attacker = "H 4010" if scenario == "retreat before shock" else "R 4010"
    assert f"Shock {attacker} vs R 4111: DR {9 if attacker[0] == 'H' else 7} -1 (strength)" in log_text(s)


@pytest.mark.parametrize("blocked", [False, True])
def test_12_1_a_unit_retreats_away_from_the_counter_charger(blocked):
    """12.1: the R M03 shocks the H R15, which counter-charges it (11.3: against an R it becomes the attacker) and
    inflicts DD+DR: M03 retreats away from R15 (4010), not sideways next to it (4011, 4110); with the three hexes
    away from R15 taken, it cannot retreat and is eliminated (until 2026-12-05 it might retreat in any
    direction: clarification C44)."""
    units = [{"id": "M03", "hex": "4111", "facing": 3}, {"id": "R15", "hex": "4010", "facing": 0}]
    if blocked:
        units += [{"id": uid, "hex": h, "facing": 3} for uid, h in zip(("M04", "M05", "M06"), ("4112", "4210", "4211"))]
    s, d = new(units, [], to_move={"player": "mongol", "activate": "Front line", "free": False}, dice=[0, 4, 5, 5])
    play(s, d, A("OPT", "PASS"), A("UNIT", "M03"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", "4010"),
         A("FACE", 0))
    text = log_text(s)
    assert "Counter-charge H 4010 vs R 4111: DR 4 +1 (defense) +2 (charging H) -1 (weapons matrix) = 6 -> DD+DR" in text
    if blocked:
        assert "R 4111 cannot retreat: eliminated [12.1]" in log_text(s)
        assert pos_of(s, "M03")["status"] == "eliminated"
        return
    assert decision(s) == "retreat path" and player(s) == 1
    assert set(engine().legal_actions(s)) == {hx("4112"), hx("4210"), hx("4211")}


@pytest.mark.parametrize("blocked", [False, True])
def test_12_2_a_retired_defender_retreats_on_a_dr_result_and_the_attacker_advances(blocked):
    """12.2: a Retired unit attacked is treated as Disordered (+2): the Disordered column's DR makes the Retired R22
    retreat one hex away from M03 (12.1), or be eliminated when it cannot, and M03 advances into 3112 (10.3)
    (until 2026-12-05 a DR did nothing to a Retired unit: clarification C45)."""
    units = [{"id": "M03", "hex": "3212", "facing": 3}, {"id": "R22", "hex": "3112", "facing": 0, "status": "retired"}]
    away = ("3111", "3011", "3012")
    if blocked:
        units += [{"id": uid, "hex": h, "facing": 0} for uid, h in zip(("R23", "R24", "R06"), away)]
    s, d = new(units, [], to_move={"player": "mongol", "activate": "Front line", "free": False}, dice=[0, 5, 5])
    play(s, d, A("OPT", "PASS"), A("UNIT", "M03"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", "3112"))
    assert "Shock R 3212 vs R 3112: DR 0 +2 (defense) +2 (defender retired) = 4 -> DR [10.2]" in log_text(s)
    if blocked:
        assert "R 3112 cannot retreat: eliminated [12.1]" in log_text(s)
        assert pos_of(s, "R22")["status"] == "eliminated"
    else:
        assert decision(s) == "retreat path" and player(s) == 0
        assert set(engine().legal_actions(s)) == {hx(h) for h in away}
        play(s, d, A("HEX", "3011"))
        assert pos_of(s, "R22")["hex"] == "3011" and pos_of(s, "R22")["status"] == "retired"
    assert "R 3212 advances to 3112 [10.3]" in log_text(s)
    assert pos_of(s, "M03")["hex"] == "3112"


def _shocked_front_and_rear(rear: bool, dice):
    """A Mongol H at 4010 facing 0 shocked by a Russian R in its front hex and, with ``rear``, by another in its
    rear hex; returns the game at the H's defence decision (or past it)."""
    front = nb("4010", 0)
    units = [{"id": "M38", "hex": "4010", "facing": 0}, {"id": "R02", "hex": front, "facing": 3}]
    if rear:
        units.append({"id": "R03", "hex": nb("4010", 3), "facing": 0})
    s, d = new(units, [leader("Obelenski", front)], to_move={"player": "russian", "activate": "Lookout"}, dice=dice)
    play(s, d, A("OPT", "PASS"), A("UNIT", "R02"), A("OPT", "SHOCK_ALL"))
    if rear:
        play(s, d, A("UNIT", "R03"), A("OPT", "SHOCK_ALL"))
    play(s, d, A("OPT", "PASS"), A("HEX", "4010"))
    return s, d


def test_11_3_attacked_front_and_rear_may_counter_charge_without_turning():
    """11.3: an H/M attacked through its front and its rear at once may still counter-charge the frontal
    attacker, with its present facing (the rear attack forbids only the turn; C51)."""
    eng = engine()
    s, _ = _shocked_front_and_rear(False, [9] * 5)
    assert {A("FACE", 0), A("FACE", 5)} <= set(eng.legal_actions(s))   # alone in front: it may turn to charge
    s, d = _shocked_front_and_rear(True, [0] + [9] * 5)
    assert decision(s).startswith("defend") and player(s) == 1
    faces = {a - eng.AL.FACE for a in eng.legal_actions(s) if eng.AL.FACE <= a < eng.AL.FACE + 6}
    assert faces == {0}
    play(s, d, A("FACE", 0))
    text = log_text(s)
    assert "Counter-charge by H 4010: DR 0 -2 = -2 -> succeeds" in text
    assert pos_of(s, "M38")["facing"] == 0


def test_11_3_attacked_from_the_rear_only_may_not_counter_charge():
    rear = nb("4010", 3)
    s, d = new([{"id": "M38", "hex": "4010", "facing": 0}, {"id": "R03", "hex": rear, "facing": 0}],
               [leader("Obelenski", rear)], to_move={"player": "russian", "activate": "Lookout"}, dice=[9] * 5)
    play(s, d, A("OPT", "PASS"), A("UNIT", "R03"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", "4010"))
    eng = engine()
    assert decision(s).startswith("defend")   # it may retreat before the foot's shock (10.1), not counter-charge
    assert not [a for a in eng.legal_actions(s) if eng.AL.FACE <= a < eng.AL.FACE + 6]


def test_10_2_strength_is_the_declared_battles_after_a_continued_attack_in_either_order():
    """10.2: R06 (3912) shocks 4011 and 4012, R07 (3913) 4012 and 4013, R08 (3914) 4013: one battle, three against
    three, no Strength modifier on any roll. R06's Continued Attack (12.4, a battle of its own: C26) does not change
    that battle, whichever defender is resolved first (C46, C56)."""
    from kulikovo_testlib import legal

    eng = engine()

    def face_toward(h, a, b):
        return next(f for f in range(6) if set(eng.geo.frontal(hx(h), f)) == {hx(a), hx(b)})

    fr, fm = face_toward("3912", "4011", "4012"), face_toward("4012", "3912", "3913")
    units = [{"id": "R06", "hex": "3912", "facing": fr}, {"id": "R07", "hex": "3913", "facing": fr},
             {"id": "R08", "hex": "3914", "facing": fr}, {"id": "M03", "hex": "4011", "facing": fm},
             {"id": "M04", "hex": "4012", "facing": fm}, {"id": "M05", "hex": "4013", "facing": fm}]
    for order, dice in ((["4011", "4012", "4013"], [2, 7, 0, 2, 9, 9, 9]), (["4011", "4013", "4012"], [2, 2, 7, 0, 9])):
        s, d = new(units, [], to_move={"player": "russian", "activate": "Advance"}, dice=dice)
        script = [A("OPT", "PASS"), A("UNIT", "R06"), A("OPT", "SHOCK_ALL"), A("UNIT", "R07"), A("OPT", "SHOCK_ALL"),
                  A("UNIT", "R08"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS")] + [A("HEX", h) for h in order]
        while script:
            mine = player(s) == 0 and decision(s) not in ("facing", "retreat path", "advance after shock: which unit")
            play(s, d, script.pop(0) if mine else min(legal(s)))
        shocks = [line for line in s.log if line.startswith("Shock") and "vs R 4013" in line]
        assert shocks == ["Shock R 3913+R 3914 vs R 4013: DR 2 +1 (defense) = 3 -> - [10.2]"], shocks


def test_12_1_a_defender_retreats_away_from_the_attackers_that_rolled_not_one_driven_off():
    """12.1: the retreat goes away from the units inflicting it. R15 (4010) shocks M03 and M04, R16 (4209) M04;
    R15's roll against M03 (AD+AR) drives it off to 3910, so M04 is shocked by R16 alone (DD+DR) and may retreat
    to 4010, away from R16: R15's old claim on it no longer narrows its way out (C59)."""
    from kulikovo_testlib import legal

    units = [{"id": "R15", "hex": "4010", "facing": 0}, {"id": "M03", "hex": "4111", "facing": 3},
             {"id": "M04", "hex": "4110", "facing": 3}, {"id": "R16", "hex": "4209", "facing": 3}]
    s, d = new(units, [leader("Dmitri", "3909")], to_move={"player": "russian", "activate": "Supreme", "free": False},
               dice=[0, 4])
    play(s, d, A("OPT", "PASS"), A("UNIT", "R15"), A("OPT", "SHOCK_ALL"), A("UNIT", "R16"), A("OPT", "SHOCK_ALL"),
         A("OPT", "PASS"), A("HEX", "4111"), A("HEX", "3910"), A("FACE", 0), A("HEX", "4110"))
    assert "Shock H 4209 vs R 4110: DR 4" in log_text(s) and "-> DD+DR [10.2]" in log_text(s)
    assert pos_of(s, "M04")["status"] == "disordered" and player(s) == 1
    assert A("HEX", "4010") in legal(s)
