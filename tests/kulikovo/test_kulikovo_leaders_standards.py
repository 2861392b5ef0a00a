"""Leaders (13.x), False Dmitri (13.4), Standards (14.x), Ambush Regiment (15.2), free setup (15.x)."""

from kulikovo_testlib import A, decision, engine, hx, leader, log_text, new, play, player, pos_of

from wargame_envs.core.dice import Dice, ScriptedDice


def nb(h: str, d: int) -> str:
    eng = engine()
    return eng.grid.ids[eng.geo.nbr[hx(h)][d]]


def test_13_3_leader_killed_in_shock_and_flight_point():
    tgt = nb("4010", 0)
    # R vs R shock: DR 9 +1 defense = 10 -> Rt+CA; the Mongol leader with the defender: DR 6 - 3 = 3 -> killed
    s, d = new([{"id": "R22", "hex": "4010", "facing": 0}, {"id": "M03", "hex": tgt, "facing": 3}],
               [leader("Dmitri", "3910"), leader("Front line commander", tgt)],
               to_move={"player": "russian", "activate": "Supreme", "free": False}, dice=[9, 6])
    play(s, d, A("OPT", "PASS"), A("UNIT", "R22"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", tgt))
    text = log_text(s)
    assert "DR 9 +1 (defense) -1 (leader with defender) = 9 -> Rt+CA" in text
    assert "Leader check Front line commander: DR 6 - 3 = 3 -> killed [13.3]" in text
    eng = engine()
    assert eng.flight_points(s, 1) == 2  # leader 1 + Retired unit 1


def test_13_3_a_leader_next_to_his_overall_commander_checks_with_his_activation_rating_plus_one():
    """13.3 subtracts the leader's Activation Rating, which 13.2 raises by one for a commander stacked with or
    adjacent to his Overall Commander (C47): the same shock and die as above, with Mamai next to the Front line
    commander: DR 6 - (3 + 1) = 2, he survives (until 2026-12-05: 6 - 3 = 3, killed)."""
    tgt, side = nb("4010", 0), nb(nb("4010", 0), 5)
    s, d = new([{"id": "R22", "hex": "4010", "facing": 0}, {"id": "M03", "hex": tgt, "facing": 3},
                {"id": "M04", "hex": side, "facing": 3}],
               [leader("Dmitri", "3910"), leader("Front line commander", tgt), leader("Mamai", side)],
               to_move={"player": "russian", "activate": "Supreme", "free": False}, dice=[9, 6])
    play(s, d, A("OPT", "PASS"), A("UNIT", "R22"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", tgt))
    assert "Leader check Front line commander: DR 6 - 4 = 2 -> survives [13.3]" in log_text(s)
    assert engine().flight_points(s, 1) == 1  # the Retired unit only


def test_13_3_a_killed_substitute_caught_alone_joins_the_nearest_unit_of_his_command():
    """A substitute already killed stays in play (C29) and is not killed again: caught alone by R22's move into
    his hex, his counter goes to the Front line unit at 4512 with no further Flight Point (C49; until 2026-12-05
    it stayed in R22's hex)."""
    eng = engine()
    tgt = nb("4010", 0)
    s, d = new([{"id": "R22", "hex": "4010", "facing": 0}, {"id": "M04", "hex": "4512", "facing": 3}],
               [leader("Dmitri", "3910"), leader("Front line commander", tgt, state="replacement_killed")],
               to_move={"player": "russian", "activate": "Supreme", "free": False})
    fp = eng.flight_points(s, 1)
    play(s, d, A("UNIT", "R22"), A("DIR", 0))
    assert f"Front line commander alone in {tgt} is captured" in log_text(s)
    front = next(ld for ld in eng.summary(s)["leaders"] if ld["name"] == "Front line commander")
    assert front["hex"] == "4512" and front["state"] == "replacement_killed"
    assert eng.flight_points(s, 1) == fp


def test_13_3_overall_commander_killed_five_flight_points():
    tgt = nb("4010", 0)
    s, d = new([{"id": "R22", "hex": "4010", "facing": 0}, {"id": "M03", "hex": tgt, "facing": 3}],
               [leader("Dmitri", "3910"), leader("Mamai", tgt)],
               to_move={"player": "russian", "activate": "Supreme", "free": False}, dice=[9, 9])
    play(s, d, A("OPT", "PASS"), A("UNIT", "R22"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", tgt))
    assert "Overall Commander Mamai killed: +5 FP" in log_text(s)


def test_13_4_false_dmitri_killed_reveals_real():
    tgt = nb("4010", 0)
    s, d = new([{"id": "M03", "hex": "4010", "facing": 0}, {"id": "R22", "hex": tgt, "facing": 3},
                {"id": "R23", "hex": "3512", "facing": 0}],
               [leader("Front line commander", "3910"), leader("False Dmitri", tgt), leader("Dmitri", "3512")],
               false_dmitri=True, to_move={"player": "mongol", "activate": "Front line", "free": False}, dice=[9, 9])
    eng = engine()
    names = [l["name"] for l in eng.sc.leaders]
    assert s.l_rating[names.index("Dmitri")] == 5  # hand-made position keeps given ratings
    play(s, d, A("OPT", "PASS"), A("UNIT", "M03"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", tgt))
    text = log_text(s)
    assert "the False Dmitri: no Flight Points" in text
    assert eng.flight_points(s, 0) == 1  # only the Retired R
    assert eng.to_position(s)["leaders"][names.index("Dmitri")]["hex"] == "3012"


def test_13_4_real_dmitri_escapes_on_5_to_9():
    tgt = nb("4010", 0)
    s, d = new([{"id": "M03", "hex": "4010", "facing": 0}, {"id": "R22", "hex": tgt, "facing": 3},
                {"id": "R23", "hex": "3512", "facing": 0}],
               [leader("Front line commander", "3910"), leader("Dmitri", tgt, rating=4), leader("False Dmitri", "3512", rating=4)],
               false_dmitri=True, to_move={"player": "mongol", "activate": "Front line", "free": False}, dice=[9, 9, 7])
    play(s, d, A("OPT", "PASS"), A("UNIT", "M03"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", tgt))
    text = log_text(s)
    assert "escape DR 7 -> he fights his way out, rating 6 [13.4]" in text
    eng = engine()
    assert eng.flight_points(s, 0) == 1


def test_13_4_false_dmitri_hidden_from_mongol_observation():
    eng = engine()
    d0 = ScriptedDice([7, 2])
    a = eng.new_state({"false_dmitri": True}, d0)
    eng.apply(a, A("LEADER", "Dmitri"), d0)  # 13.4: the real Dmitri with the Standard
    pos = eng.to_position(a)
    names = [l["name"] for l in eng.sc.leaders]
    i, j = names.index("Dmitri"), names.index("False Dmitri")
    # swap which counter is real: same hexes, same ratings
    pos["leaders"][i]["real"], pos["leaders"][j]["real"] = False, True
    del pos["internal"]
    pos["to_move"] = {"player": "russian"}
    b = eng.new_state({"position": pos}, ScriptedDice([]))
    pos2 = eng.to_position(a)
    del pos2["internal"]
    pos2["to_move"] = {"player": "russian"}
    a2 = eng.new_state({"position": pos2}, ScriptedDice([]))
    assert (eng.observe(a2, 1) == eng.observe(b, 1)).all()
    assert not (eng.observe(a2, 0) == eng.observe(b, 0)).all()


def test_14_1_standard_move_may_eliminate_retired_units():
    s, d = new([{"id": "R15", "hex": nb("3012", 0), "facing": 0, "status": "retired"},
                {"id": "R16", "hex": nb("3012", 1), "facing": 0, "status": "retired"}],
               [], dice=[6, 5, 0, 0])
    play(s, d, A("OPT", "STD_MOVE"), A("HEX", "2812"))
    text = log_text(s)
    # H normal defense -2: 6 - 2 = 4 -> eliminated; 5 - 2 = 3 -> holds
    assert "DR 6 -2 = 4 -> eliminated [14.1]" in text and "DR 5 -2 = 3 -> holds [14.1]" in text
    eng = engine()
    assert eng.flight_points(s, 0) == 3 + 1


def test_14_0_standard_rally():
    s, d = new([{"id": "R15", "hex": nb("3012", 0), "facing": 0, "status": "retired"}], [], dice=[0, 0])
    play(s, d, A("OPT", "STD_RALLY"))
    assert pos_of(s, "R15")["status"] == "disordered"
    assert decision(s) == "continuity"


def test_14_1_standard_only_in_free_activation():
    s, d = new([{"id": "R15", "hex": nb("3012", 0), "facing": 0, "status": "retired"},
                {"id": "R22", "hex": "3512", "facing": 0}], [leader("Dmitri", "3512")], dice=[0, 0])
    play(s, d, A("CMD", "Supreme"), A("OPT", "PASS"), A("OPT", "PASS"))
    assert decision(s) == "continuity"
    eng = engine()
    assert A("OPT", "STD_RALLY") not in eng.legal_actions(s)


def test_14_2_capturing_standard():
    x = nb("5020", 3)
    s, d = new([{"id": "R15", "hex": x, "facing": 0}, {"id": "M03", "hex": "4512", "facing": 3, "status": "retired"}],
               [leader("Dmitri", x)], to_move={"player": "russian", "activate": "Supreme", "free": False})
    back = next(dd for dd in range(6) if nb(x, dd) == "5020")
    play(s, d, A("UNIT", "R15"), A("DIR", back))
    text = log_text(s)
    assert "captures the Mongol Standard: +3 FP [14.2]" in text
    assert pos_of(s, "M03")["status"] == "eliminated"
    assert engine().flight_points(s, 1) == 3 + 1


def test_15_2_ambush_placed_when_activated():
    eng = engine()
    s = eng.new_state({}, ScriptedDice([7, 2, 0, 0]))
    assert all(u["status"] == "hidden" for u in eng.to_position(s)["units"] if u["command"] == "Ambush")
    play(s, ScriptedDice([0, 0]), A("CMD", "Ambush"))
    assert "Ambush Regiment placed at 3220, 3221, 3320, 3321, 3322, 3421" in log_text(s)


def test_15_2_ambush_placed_on_mongol_line_of_sight():
    """The inner Green Oak Wood is out of sight from outside; a Mongol unit entering the wood's edge next
    to an ambush hex sees it, and the Regiment is placed at once."""
    eng = engine()
    s, d = new([{"id": "M13", "hex": "3620", "facing": 3}] +
               [{"id": f"R{40 + k}", "status": "hidden"} for k in range(6)],
               [leader("Left Flank commander", "3620")],
               to_move={"player": "mongol", "activate": "Left Flank", "free": False},
               ambush={"hexes": ["3220", "3221", "3320", "3321", "3322", "3421"], "placed": False})
    assert "Ambush" not in log_text(s)
    assert eng.to_position(s)["ambush"]["placed"] is False
    play(s, d, A("UNIT", "M13"))
    edge = next(y for y in eng.geo.adj[hx("3620")] if eng.sc.woods[y] and eng.geo.dist[y, hx("3421")] == 1)
    dd = eng.geo.nbr[hx("3620")].index(edge)
    play(s, d, A("DIR", dd))
    assert "the Ambush Regiment is placed [15.2]" in log_text(s)
    assert eng.to_position(s)["ambush"]["placed"] is True
    assert pos_of(s, "R45")["hex"] == "3421"


def test_13_3_a_leader_on_his_own_standard_joins_the_nearest_unit_when_his_unit_is_lost():
    """13.3 "If he survives, but the combat unit does not, place the leader with the nearest unit from his
    Command": the Front line commander on the Horde Standard (5020), whose Disordered R is eliminated there (E+CA),
    joins the Front line R at 4512 and is not left alone on the Standard hex, where the Russian advance would
    capture him with it (C28)."""
    eng = engine()
    x = eng.grid.ids[eng.geo.nbr[hx("5020")][3]]
    back = next(dd for dd in range(6) if eng.grid.ids[eng.geo.nbr[hx(x)][dd]] == "5020")
    s, d = new([{"id": "R22", "hex": x, "facing": back}, {"id": "M03", "hex": "5020", "status": "disordered"},
                {"id": "M04", "hex": "4512", "facing": 3}],
               [leader("Dmitri", "3012"), leader("Front line commander", "5020")],
               to_move={"player": "russian", "activate": "Supreme", "free": False}, dice=[8, 0, 9, 9, 9, 9])
    play(s, d, A("OPT", "PASS"), A("UNIT", "R22"), A("OPT", "SHOCK_ALL"), A("OPT", "PASS"), A("HEX", "5020"))
    text = log_text(s)
    assert "-> E+CA" in text and "Front line commander: DR 0 - 3 = -3 -> survives" in text
    assert "captures the Mongol Standard" in text
    assert "Front line commander alone in 5020 is captured" not in text
    front = next(ld for ld in eng.summary(s)["leaders"] if ld["name"] == "Front line commander")
    assert front["hex"] == "4512" and front["state"] == "active"


def _ambush_seen_by_m13():
    """M13 steps to the edge of the Green Oak Wood and sees the Regiment, which is placed (not activated)."""
    eng = engine()
    s, d = new([{"id": "M13", "hex": "3620", "facing": 3}] +
               [{"id": f"R{40 + k}", "status": "hidden"} for k in range(6)],
               [leader("Left Flank commander", "3620")],
               to_move={"player": "mongol", "activate": "Left Flank", "free": False},
               ambush={"hexes": ["3220", "3221", "3320", "3321", "3322", "3421"], "placed": False},
               dice=[0, 5, 5, 5, 5, 5])
    play(s, d, A("UNIT", "M13"))
    edge = next(y for y in eng.geo.adj[hx("3620")] if eng.sc.woods[y] and eng.geo.dist[y, hx("3421")] == 1)
    play(s, d, A("DIR", eng.geo.nbr[hx("3620")].index(edge)))
    return s, d


def test_15_2_an_ambush_placed_by_line_of_sight_does_nothing_until_activated():
    """15.2: placed "without being activated", its units "may not do anything ... until activated": the H at
    3421 fired on by the Mongol L that revealed it is offered no counter-charge (11.3)."""
    eng = engine()
    s, d = _ambush_seen_by_m13()
    pos = eng.to_position(s)["ambush"]
    assert pos["placed"] is True and pos["activated"] is False
    assert A("HEX", "3421") in engine().legal_actions(s)
    play(s, d, A("HEX", "3421"))
    assert decision(s) != "counter-charge (fire)"
    assert "counter-charges" not in log_text(s)


def test_15_2_the_ambush_regiment_acts_once_activated():
    """Once the Russian player activates the Regiment, its units are no longer held back, and a position
    written then says so."""
    eng = engine()
    s, d = _ambush_seen_by_m13()
    pos = eng.to_position(s)
    for u in pos["units"]:
        if u["command"] == "Ambush":
            u["status"] = "normal"
    pos.pop("internal")
    pos["to_move"] = {"player": "russian", "activate": "Ambush", "free": False}
    s2 = eng.new_state({"position": pos}, ScriptedDice([5] * 8))
    assert eng.to_position(s2)["ambush"]["activated"] is True
    pos["to_move"] = {"player": "russian"}
    s3 = eng.new_state({"position": pos}, ScriptedDice([5] * 8))
    assert eng.to_position(s3)["ambush"]["activated"] is False
    play(s3, ScriptedDice([5] * 8), A("CMD", "Ambush"))
    assert eng.to_position(s3)["ambush"]["activated"] is True


def test_15_2_hidden_information_mongol_observation():
    """The Mongol observation does not depend on the Ambush Regiment's hexes until it is placed."""
    eng = engine()
    a = eng.new_state({"ambush_hexes": ["3220", "3221", "3320", "3321", "3322", "3421"]}, Dice(5))
    b = eng.new_state({"ambush_hexes": ["3221", "3222", "3321", "3322", "3323", "3422"]}, Dice(5))
    da, db = Dice(9), Dice(9)
    import numpy as np
    rng = np.random.default_rng(3)
    for _ in range(300):
        if eng.is_terminal(a) or eng.is_truncated(a) or a.g[10]:
            break
        assert (eng.observe(a, 1) == eng.observe(b, 1)).all()
        la, lb = eng.legal_actions(a), eng.legal_actions(b)
        if eng.current_player(a) == 1:
            assert la == lb
        act = la[rng.integers(len(la))]
        if act not in lb:
            break
        eng.apply(a, act, da)
        eng.apply(b, act, db)
    assert not (eng.observe(a, 0) == eng.observe(b, 0)).all()


def test_15_0_free_setup_plays_through_setup_decisions():
    eng = engine()
    d = Dice(1)
    s = eng.new_state({"setup": "free", "false_dmitri": True}, d)
    assert decision(s) == "setup: Ambush Regiment hex" and player(s) == 0
    hidden, comp, size = eng.hidden_hexes()
    rng = __import__("numpy").random.default_rng(0)
    n = 0
    while decision(s).startswith("setup"):
        la = eng.legal_actions(s)
        assert la
        if decision(s) == "setup: Ambush Regiment hex":
            assert all(hidden[a] for a in la)
        eng.apply(s, la[rng.integers(len(la))], d)
        n += 1
    assert n == 6 + 45 + 8 + 50 + 6
    assert eng.check_invariants(s) == []
    hexes = {l["name"]: l["hex"] for l in eng.to_position(s)["leaders"]}
    assert "3012" in (hexes["Dmitri"], hexes["False Dmitri"])


def test_13_4_both_dmitris_caught_together_the_real_one_revealed_is_not_killed_in_the_old_hex():
    """13.3, 13.4: both Dmitri counters alone in 3612, the real one being the counter named False Dmitri (C34's
    hidden choice). M13 enters: the other counter is captured first and revealed as the False Dmitri, which sends
    the real one to his Standard. He is no longer in 3612, so he is not captured there as well (until 2026-12-05
    he was, and died with 5 Flight Points and no escape roll; C60)."""
    eng = engine()
    names = [l["name"] for l in eng.sc.leaders]
    lone, start = "3612", "3712"
    step = eng.geo.nbr[hx(start)].index(hx(lone))
    s, d = new([{"id": "M13", "hex": start, "facing": 3}, {"id": "R22", "hex": "3512", "facing": 0}],
               [leader("Left Flank commander", start), leader("Dmitri", lone, rating=4, real=False),
                leader("False Dmitri", lone, rating=4, real=True)],
               false_dmitri=True, to_move={"player": "mongol", "activate": "Left Flank", "free": False}, dice=[])
    play(s, d, A("UNIT", "M13"), A("DIR", step))
    text = log_text(s)
    assert text.count(f"alone in {lone} is captured") == 1
    assert "killed: +5 FP" not in text
    real = eng.to_position(s)["leaders"][names.index("False Dmitri")]
    assert real["hex"] == "3012"
    assert eng.flight_points(s, 0) == 0


def test_15_1_free_setup_without_false_dmitri_offers_dmitri_the_standard_and_his_regiment():
    """15.1 deploys Dmitri "as per the False Dmitri rule" (one counter with the Standard, 3012); 15.0 lets a
    leader stand with any unit of his formation. Without 13.4 the free set-up offers both (C61; until
    2026-12-05 only the Supreme Regiment's hexes)."""
    eng = engine()
    dmitri = [l["name"] for l in eng.sc.leaders].index("Dmitri")
    d = Dice(1)
    s = eng.new_state({"setup": "free"}, d)
    rng = __import__("numpy").random.default_rng(0)
    while decision(s) != "setup: leader hex" or eng.pending(s)["args"][0] != dmitri:
        la = eng.legal_actions(s)
        eng.apply(s, la[rng.integers(len(la))], d)
    offered = {eng.grid.ids[a] for a in eng.legal_actions(s)}
    supreme = {u["hex"] for u in eng.to_position(s)["units"] if u["command"] == "Supreme"}
    assert offered == supreme | {"3012"}
    play(s, d, A("HEX", "3012"))
    assert eng.to_position(s)["leaders"][dmitri]["hex"] == "3012"
