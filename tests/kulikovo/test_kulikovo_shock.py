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
