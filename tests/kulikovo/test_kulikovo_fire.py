"""Missile fire (9.x), counter-charge against fire (11.3), fire results and leader deaths (12.x, 13.3)."""

from kulikovo_testlib import A, decision, engine, hx, leader, log_text, new, play, player, pos_of


def nb(h: str, d: int) -> str:
    eng = engine()
    return eng.grid.ids[eng.geo.nbr[hx(h)][d]]


def frontal(h: str, f: int) -> list[str]:
    eng = engine()
    return [eng.grid.ids[x] for x in eng.geo.frontal(hx(h), f)]


def _lookout(units, dice, leaders=None, **kw):
    return new(units, leaders if leaders is not None else [leader("Obelenski", "4010")],
               to_move={"player": "russian", "activate": "Lookout"}, dice=dice, **kw)


def test_9_3_bowman_range_one_example():
    """9.3 example: a Bowman firing at range 1 gets +1."""
    tgt = nb("4010", 0)
    s, d = _lookout([{"id": "R01", "hex": "4010", "facing": 0}, {"id": "M03", "hex": tgt, "facing": 3}], [7])
    play(s, d, A("UNIT", "R01"), A("HEX", tgt))
    assert f"Fire B 4010 at R {tgt}: DR 7 +1 (range 1) = 8 -> D [9.3]" in log_text(s)
    assert pos_of(s, "M03")["status"] == "disordered"


def test_9_3_range_two_and_fire_ends_movement():
    t2 = nb(nb("4010", 0), 0)
    s, d = _lookout([{"id": "R01", "hex": "4010", "facing": 0}, {"id": "M03", "hex": t2, "facing": 3}], [6])
    play(s, d, A("UNIT", "R01"), A("HEX", t2))
    assert "DR 6 = 6 -> -" in log_text(s)
    eng = engine()
    assert not any(eng.AL.DIR <= a < eng.AL.DIR + 6 for a in eng.legal_actions(s))  # 9.2: movement over


def test_9_0_fire_through_front_and_flank_not_rear():
    """9.0: fire goes through the frontal and flank hexsides: a unit fires at a target there as it faces, and at
    one in its rear hexsides only after it turns (6.0; C52)."""
    eng = engine()
    flank, rear = nb("4010", 2), nb("4010", 3)   # for facing 0
    for target, facing in ((flank, 0), (rear, 1)):
        s, d = _lookout([{"id": "R01", "hex": "4010", "facing": 0}, {"id": "M03", "hex": rear, "facing": 0},
                         {"id": "M04", "hex": flank, "facing": 0}], [0] * 3)
        play(s, d, A("UNIT", "R01"))
        assert A("HEX", target) in eng.legal_actions(s)
        play(s, d, A("HEX", target))
        assert pos_of(s, "R01")["facing"] == facing
        assert ("turns to face" in log_text(s)) == (target == rear)


def test_9_3_1_horse_through_flank_plus_one():
    # target H faces so that the firer is on its flank
    tgt = nb("4010", 0)
    back = engine().geo.dirs_to[hx(tgt)][hx("4010")][0]
    face = (back - 2) % 6  # direction back = face + 2 -> flank
    s, d = _lookout([{"id": "R01", "hex": "4010", "facing": 0}, {"id": "M38", "hex": tgt, "facing": face}], [5, 9])
    play(s, d, A("UNIT", "R01"), A("HEX", tgt))
    # counter-charge decision first: H attacked through its flank may counter-charge; decline
    assert decision(s) == "counter-charge (fire)" and player(s) == 1
    play(s, d, A("OPT", "NO"))
    assert "+1 (horse flank 9.3.1)" in log_text(s)


def test_9_4_woods_block_line_of_sight():
    # 3019 and 3021 are clear? no: Green Oak Wood is XX 31-35; fire from 3018 across 3119 (woods) into 3220
    eng = engine()
    a = "3018"
    for t in eng.geo.near[hx(a)]:
        pass
    # a range-2 target whose single intervening hex is woods
    found = None
    for (t, dist, dirs, mids) in eng.geo.near[hx("3021")]:
        if dist == 2 and len(mids) == 1 and eng.sc.woods[mids[0]] and not eng.sc.woods[hx("3021")]:
            found = (eng.grid.ids[t], dirs[0])
            break
    assert found
    t, dd = found
    face = dd if dd in (0, 1) else (dd - 1) % 6  # make the target frontal
    s, d = _lookout([{"id": "R01", "hex": "3021", "facing": face}, {"id": "M03", "hex": t, "facing": 0}], [])
    play(s, d, A("UNIT", "R01"))
    assert A("HEX", t) not in eng.legal_actions(s)


def test_9_2_crossbows_do_not_fire_through_units():
    eng = engine()
    mid = nb("4010", 0)
    t2 = nb(mid, 0)
    s, d = new([{"id": "R12", "hex": "4010", "facing": 0}, {"id": "R06", "hex": mid, "facing": 0},
                {"id": "M03", "hex": t2, "facing": 3}], [leader("Belozerski", "4010")],
               to_move={"player": "russian", "activate": "Advance"})
    play(s, d, A("UNIT", "R12"))
    assert A("HEX", t2) not in eng.legal_actions(s)


def test_9_2_reaction_fire_and_crossbow_once_per_activation():
    # Mongol crossbow M02 at 4212 facing W; two Russian units walk into its frontal hexes
    eng = engine()
    f1, f2 = [eng.grid.ids[x] for x in eng.geo.frontal(hx("4212"), 3)]
    start1 = next(nb(f1, dd) for dd in range(6) if eng.geo.dist[hx(nb(f1, dd)), hx("4212")] == 2)
    start2 = next(nb(f2, dd) for dd in range(6) if eng.geo.dist[hx(nb(f2, dd)), hx("4212")] == 2 and nb(f2, dd) != start1
                  and nb(f2, dd) != f1)
    s, d = new([{"id": "R15", "hex": start1, "facing": 0}, {"id": "R16", "hex": start2, "facing": 0},
                {"id": "M02", "hex": "4212", "facing": 3}], [leader("Dmitri", start1)],
               to_move={"player": "russian", "activate": "Supreme"}, dice=[3])
    play(s, d, A("UNIT", "R15"), A("DIR", next(dd for dd in range(6) if nb(start1, dd) == f1)))
    assert decision(s) == "reaction fire" and player(s) == 1
    play(s, d, A("OPT", "YES"))
    # the moving H, about to be fired upon through its front, may counter-charge (11.3): it declines
    assert decision(s) == "counter-charge (fire)" and player(s) == 0
    play(s, d, A("OPT", "NO"))
    assert "Reaction fire C 4212 at H" in log_text(s)
    play(s, d, A("FACE", 0), A("UNIT", "R16"), A("DIR", next(dd for dd in range(6) if nb(start2, dd) == f2)))
    assert decision(s) != "reaction fire"  # 9.2: a crossbow reacts against one unit per activation


def test_9_2_return_fire_is_simultaneous():
    tgt = nb("4010", 0)
    # Russian bowman fires at Mongol bowman, which returns fire; both results apply
    s, d = _lookout([{"id": "R01", "hex": "4010", "facing": 0}, {"id": "M01", "hex": tgt, "facing": 3}], [7, 7])
    play(s, d, A("UNIT", "R01"), A("HEX", tgt))
    assert decision(s) == "return fire" and player(s) == 1
    play(s, d, A("OPT", "YES"))
    assert pos_of(s, "M01")["status"] == "disordered" and pos_of(s, "R01")["status"] == "disordered"
    assert "Return fire B" in log_text(s)


def test_11_3_counter_charge_against_fire():
    # Mongol H fired upon through its front counter-charges the bowman that fired at range 2
    mid = nb("4010", 0)
    t2 = nb(mid, 0)
    back = engine().geo.dirs_to[hx(t2)][hx(mid)][0]
    face = back  # frontal
    s, d = _lookout([{"id": "R01", "hex": "4010", "facing": 0}, {"id": "M38", "hex": t2, "facing": face}],
                    [1, 3, 5, 9])
    play(s, d, A("UNIT", "R01"), A("HEX", t2))
    assert decision(s) == "counter-charge (fire)"
    play(s, d, A("FACE", face))
    text = log_text(s)
    assert "Counter-charge by H" in text and "= -1 -> succeeds [11.3]" in text
    # fire resolved first (DR 3: no effect), then the H moves adjacent and charges on the Charge Table:
    # 5 +2 (B defense) +2 (charging H) -1 (leader with defender) +2 (matrix) = 10 -> Rt
    assert f"Counter-charge H {mid} vs B 4010: DR 5 +2 (defense) +2 (charging H) -1 (leader with defender) " \
           "+2 (weapons matrix) = 10 -> Rt [11.3]" in text
    assert pos_of(s, "R01")["status"] == "retired"
    assert "Obelenski: DR 9 - 3 = 6 -> killed" in text
    assert pos_of(s, "M38")["hex"] == "4010"  # 10.3: advances into the vacated hex
    assert decision(s) == "facing" and player(s) == 1


def test_12_2_retire_places_unit_near_standard_and_13_3_leader_fire_check():
    tgt = nb("4010", 0)
    # C at range 1: +2; DR 9 -> 11: Retire vs leg. Adjusted >= 9 and a leader there: leader DR 9 -> killed
    s, d = new([{"id": "R12", "hex": "4010", "facing": 0}, {"id": "M03", "hex": tgt, "facing": 3}],
               [leader("Belozerski", "4010"), leader("Front line commander", tgt)],
               to_move={"player": "russian", "activate": "Advance"}, dice=[9, 9])
    play(s, d, A("UNIT", "R12"), A("HEX", tgt))
    text = log_text(s)
    assert "= 11 -> Rt" in text and "Front line commander (fire): DR 9 -> killed" in text
    rec = pos_of(s, "M03")
    assert rec["status"] == "retired"
    eng = engine()
    assert eng.geo.dist[hx(rec["hex"]), hx("5020")] <= 1
    assert eng.flight_points(s, 1) == 2  # 1 leader + 1 retired unit


def test_13_3_replacement_leader_placed_at_next_activation():
    tgt = nb("4010", 0)
    s, d = new([{"id": "R12", "hex": "4010", "facing": 0}, {"id": "M03", "hex": tgt, "facing": 3},
                {"id": "M04", "hex": "4512", "facing": 3}],
               [leader("Belozerski", "4010"), leader("Front line commander", tgt)],
               to_move={"player": "russian", "activate": "Advance"}, dice=[9, 9, 0, 0])
    play(s, d, A("UNIT", "R12"), A("HEX", tgt), A("FACE", 0), A("OPT", "PASS"), A("OPT", "PASS"),
         A("OPT", "PASS"))
    assert decision(s) == "free activation" and player(s) == 1
    play(s, d, A("CMD", "Front line"))
    assert decision(s) == "place replacement leader"
    play(s, d, A("HEX", "4512"))
    assert "(rating 2, range 1) [13.3]" in log_text(s)


def test_9_1_light_cavalry_fire_in_zoc_costs_mp_and_draws_counter_charge_after_its_move():
    eng = engine()
    f1 = eng.grid.ids[eng.geo.frontal(hx("4212"), 3)[0]]
    face = next(f for f in range(6) if hx("4212") in eng.geo.frontal(hx(f1), f))
    s, d = new([{"id": "R21", "hex": f1, "facing": face}, {"id": "M38", "hex": "4212", "facing": 3}],
               [leader("Dmitri", nb(f1, (face + 3) % 6))],
               to_move={"player": "russian", "activate": "Supreme", "free": False}, dice=[0, 0, 5])
    play(s, d, A("UNIT", "R21"), A("HEX", "4212"))
    assert decision(s) == "counter-charge (fire)" and player(s) == 1
    play(s, d, A("FACE", 3))
    assert "Counter-charge by H 4212: DR 0 -2 = -2 -> succeeds" in log_text(s)
    assert "Fire L " + f1 + " at H 4212: DR 0 +1 (range 1) = 1 -> -" in log_text(s)
    # the light cavalry is still moving: its counter-charge waits (9.1); firing in the ZOC cost 1 MP
    assert decision(s) == "move/fire: unit action" and player(s) == 0
    assert "Counter-charge H 4212 vs" not in log_text(s)
    lay = eng.obs_layout
    assert lay.unflatten(eng.observe(s, 0))["decision_unit_mp"][0] == 0.7
    play(s, d, A("FACE", face))
    # 5 +1 (L defense) +2 (charging H) +2 (matrix) = 10 -> Rt (no continued attack for a counter-charge)
    assert "Counter-charge H 4212 vs L " + f1 + ": DR 5 +1 (defense) +2 (charging H) +2 (weapons matrix) = 10 -> Rt [11.3]" in log_text(s)
    assert pos_of(s, "R21")["status"] == "retired"


def test_12_1_a_unit_retreats_away_from_the_counter_charge_against_its_fire():
    """12.1 with 11.3: the H M38 counter-charges the bowman R01 that fires at it, moving to 4111 next to it; its
    DD+DR sends R01 one hex away from M38 (4009, 3910, 3911), not along its front (until 2026-12-05 any empty
    neighbour was offered: clarification C44)."""
    mid = nb("4010", 0)
    t2 = nb(mid, 0)
    face = engine().geo.dirs_to[hx(t2)][hx(mid)][0]
    # counter-charge DR 1 (succeeds), fire DR 3 (no effect), charge DR 1 +5 = 6 (DD+DR), leader check DR 0
    s, d = _lookout([{"id": "R01", "hex": "4010", "facing": 0}, {"id": "M38", "hex": t2, "facing": face}],
                    [1, 3, 1, 0, 5, 5])
    play(s, d, A("UNIT", "R01"), A("HEX", t2), A("FACE", face))
    assert f"Counter-charge H {mid} vs B 4010: DR 1 +2 (defense) +2 (charging H) -1 (leader with defender) " \
           "+2 (weapons matrix) = 6 -> DD+DR [11.3]" in log_text(s)
    assert decision(s) == "retreat path" and player(s) == 0
    assert set(engine().legal_actions(s)) == {hx("4009"), hx("3910"), hx("3911")}


def _faces(s) -> set[int]:
    eng = engine()
    return {a - eng.AL.FACE for a in eng.legal_actions(s) if eng.AL.FACE <= a < eng.AL.FACE + 6}


def test_6_0_an_activated_missile_unit_turns_to_fire_at_a_target_behind_it():
    """6.0: an activated unit turns freely, and turning is not movement for "fire or Movement"; 9.2: missile units
    fire at any time during their Move/Fire. A Bowman with a target in its rear hexsides turns (the nearest facing
    that brings it to its front or flank) and fires (C52)."""
    tgt = nb("4010", 3)   # rear of a unit facing 0 (front 0, 1; flank 2, 5; rear 3, 4)
    s, d = _lookout([{"id": "R01", "hex": "4010", "facing": 0}, {"id": "M03", "hex": tgt, "facing": 0}], [7])
    play(s, d, A("UNIT", "R01"), A("HEX", tgt))
    text = log_text(s)
    assert "B 4010 turns to face NE to fire [6.0, 9.2]" in text
    assert f"Fire B 4010 at R {tgt}: DR 7 +1 (range 1) = 8 -> D [9.3]" in text
    assert pos_of(s, "R01")["facing"] == 1
    assert _faces(s) == set(range(6))   # it may still end facing anywhere (not in an enemy ZOC)


def test_6_0_in_an_enemy_zoc_the_turn_to_fire_counts_toward_the_one_vertex():
    """6.0: a unit in an enemy ZOC that stays in its hex turns one vertex: it may turn one vertex to fire, and it
    then ends its activation within one vertex of the facing it began with (C52)."""
    z = frontal("4212", 3)[0]   # in the Mongol H's ZOC
    back = nb(z, 4)               # a rear hexside of facing 0, a flank one of facing 5
    assert "4212" not in (back, nb(z, 3))
    s, d = _lookout([{"id": "R01", "hex": z, "facing": 0}, {"id": "M38", "hex": "4212", "facing": 3},
                     {"id": "M03", "hex": back, "facing": 0}], [0] * 4, leaders=[leader("Obelenski", z)])
    play(s, d, A("UNIT", "R01"))
    assert _faces(s) == {5, 0, 1}
    assert A("HEX", back) in engine().legal_actions(s)
    play(s, d, A("HEX", back))
    assert f"B {z} turns to face SE to fire [6.0, 9.2]" in log_text(s)
    assert f"Fire B {z} at R {back}: DR 0 +1 (range 1) = 1 -> - [9.3]" in log_text(s)
    assert pos_of(s, "R01")["facing"] == 5 and decision(s) == "move/fire: unit action"
    assert _faces(s) == {5, 0, 1}   # still one vertex from facing 0, not from facing 5



def test_11_3_fire_at_a_horse_that_counter_charges_it_is_resolved_as_the_horse_stood():
    """11.3: the counter-charge DR comes before the fire, the fire is resolved, then the horse turns and charges
    (C21, C55): a shot through its flank keeps the +1 of 9.3.1 although the counter-charge succeeds."""
    eng = engine()
    mid = nb("4010", 0)
    t2 = nb(mid, 0)
    back = eng.geo.dirs_to[hx(t2)][hx(mid)][0]
    lines = {}
    for cc in (False, True):
        s, d = _lookout([{"id": "R01", "hex": "4010", "facing": 0},
                         {"id": "M38", "hex": t2, "facing": (back - 2) % 6}],   # the bowman across its flank
                        [0, 6] + [9] * 6 if cc else [6] + [9] * 6)
        play(s, d, A("UNIT", "R01"), A("HEX", t2))
        assert decision(s) == "counter-charge (fire)"
        play(s, d, A("FACE", back) if cc else A("OPT", "NO"))
        lines[cc] = [line for line in s.log if line.startswith(("Fire", "Counter-charge by"))]
        if cc:
            assert pos_of(s, "M38")["facing"] == back   # it turned to counter-charge, after the fire
    fire = f"Fire B 4010 at H {t2}: DR 6 +1 (horse flank 9.3.1) = 7 -> D [9.3]"
    assert lines[False] == [fire]
    assert lines[True][0].startswith(f"Counter-charge by H {t2}: DR 0") and "succeeds" in lines[True][0]
    assert lines[True][1] == fire
