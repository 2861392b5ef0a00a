"""Rule fixes of issue 11 (Kulikovo items 4-8): each test is a hand-written position played with
scripted dice, named by its rulebook case."""

import pytest
from kulikovo_testlib import A, decision, engine, hx, leader, log_text, new, play, player, pos_of

from wargame_envs.core.dice import ScriptedDice
from wargame_envs.core.errors import ScenarioError


def nb(h: str, d: int) -> str:
    eng = engine()
    return eng.grid.ids[eng.geo.nbr[hx(h)][d]]


def _facing_toward(frm: str, to: str) -> int:
    eng = engine()
    return next(f for f in range(6) if hx(to) in eng.geo.frontal(hx(frm), f))


def _supreme(units, dice, leaders=None):
    # Dmitri next to (not stacked with) the Russian H: in command, no leader DRM; not free: no Flight check
    return new(units, leaders if leaders is not None else [leader("Dmitri", "3910")],
               to_move={"player": "russian", "activate": "Supreme", "free": False}, dice=dice)


# The Russian H R15 at 4010 faces 0; 4111 is its frontal hex, 4211 the hex beyond. The Mongol bowman M01
# at 4112 faces 2: 4111 is one of its frontal hexes (its ZOC), and it lies on the flank of a unit in 4111
# facing 0, not adjacent to 4010.
CHARGER, MID, FAR, BOW = "4010", "4111", "4211", "4112"


def test_11_1_charger_disordered_by_reaction_fire_shocks_without_charging():
    """11.1 / 12.1: "Disordered units may not Charge": reaction fire that Disorders the charger during its
    charge move leaves a normal Shock: no charge DRM, no Charge Table (as 11.3 says for a counter-charger)."""
    assert (nb(CHARGER, 0), nb(MID, 0), nb(MID, 5)) == (MID, FAR, BOW)
    s, d = _supreme([{"id": "R15", "hex": CHARGER, "facing": 0}, {"id": "M18", "hex": FAR, "facing": 3},
                     {"id": "M01", "hex": BOW, "facing": 2}], [5, 6])
    play(s, d, A("OPT", "PASS"), A("UNIT", "R15"), A("HEX", MID))
    assert decision(s) == "reaction fire" and player(s) == 1
    play(s, d, A("OPT", "YES"))
    text = log_text(s)
    # 5 +1 (bowman range 1) +1 (horse through its flank) = 7 -> D against horse
    assert f"Reaction fire B {BOW} at H {MID}: DR 5 +1 (range 1) +1 (horse flank 9.3.1) = 7 -> D [9.3]" in text
    assert f"H {MID} is Disordered during its charge: it will Shock without charging [11.1, 12.1]" in text
    assert pos_of(s, "R15")["status"] == "disordered"
    play(s, d, A("OPT", "PASS"), A("HEX", FAR), A("OPT", "NO"))
    # Shock Table, no +2 for charging H, no -1 for a charger that moved, -2 for the Disordered attacker:
    # 6 -1 (M defense) +1 (H vs M) -2 = 4 -> no effect (the Charge Table would give DD at 4)
    assert f"Shock H {MID} vs M {FAR}: DR 6 -1 (defense) +1 (weapons matrix) -2 (attacker disordered) = 4 -> - [10.2]" \
        in log_text(s)
    assert pos_of(s, "M18")["status"] == "normal"


def test_11_3_charger_may_not_counter_charge_the_reaction_fire_it_draws():
    """11.3: a charge is the unit's attack of the activation (10.0); counter-charging the reaction fire the
    charge move drew would be a second attack: it is not offered."""
    # M18 faces away: the charger in 4111 is in no other enemy's ZOC (11.3 would forbid it anyway)
    s, d = _supreme([{"id": "R15", "hex": CHARGER, "facing": 0}, {"id": "M18", "hex": FAR, "facing": 0},
                     {"id": "M01", "hex": BOW, "facing": 2}], [0])
    play(s, d, A("OPT", "PASS"), A("UNIT", "R15"), A("HEX", MID), A("OPT", "YES"))
    # fire through the H's flank would allow a counter-charge to a non-phasing H: not to the charger
    assert "Counter-charge by" not in log_text(s)
    assert decision(s) == "shock: select attacker" and player(s) == 0
    assert f"Reaction fire B {BOW} at H {MID}: DR 0" in log_text(s)


def test_11_3_phasing_counter_charge_against_reaction_fire_is_its_attack():
    """11.3: a phasing H that moves into a bowman's ZOC, draws reaction fire and counter-charges it has made
    its attack (a counter-charge is resolved as a normal Charge): it is offered neither further movement nor
    a Shock or Charge against the same bowman afterwards."""
    s, d = _supreme([{"id": "R15", "hex": CHARGER, "facing": 0}, {"id": "M01", "hex": BOW, "facing": 2}],
                    [4, 0, 0])
    play(s, d, A("UNIT", "R15"), A("DIR", 0))
    assert decision(s) == "reaction fire" and player(s) == 1
    play(s, d, A("OPT", "YES"))
    assert decision(s) == "counter-charge (fire)" and player(s) == 0
    cc_face = _facing_toward(MID, BOW)
    play(s, d, A("FACE", cc_face))
    text = log_text(s)
    # 4 -2 (H defense) +1 (fired at through its flank) = 3 -> succeeds; the fire (DR 0 +2 = 2) misses
    assert f"Counter-charge by H {MID}: DR 4 -2 +1 flank = 3 -> succeeds [11.3]" in text
    # 0 +2 (B defense) +2 (charging H) -1 (it moved) +2 (H vs B) = 5 -> DD on the Charge Table
    assert f"Counter-charge H {MID} vs B {BOW}: DR 0 +2 (defense) +2 (charging H) -1 (charger moved) " \
           "+2 (weapons matrix) = 5 -> DD [11.3]" in text
    # its Move/Fire is over, in its counter-charge facing; back to the unit selection without R15
    assert decision(s) == "move/fire: select unit"
    assert A("UNIT", "R15") not in engine().legal_actions(s)
    assert pos_of(s, "R15")["facing"] == cc_face
    play(s, d, A("OPT", "PASS"))
    assert decision(s) == "shock: select attacker"
    assert hx(BOW) in engine().geo.frontal(hx(MID), cc_face)  # the bowman is still in its front
    assert engine().legal_actions(s) == [A("OPT", "PASS")]   # no second attack


def test_12_4_continued_attack_strength_counts_only_its_own_units():
    """12.4 / 10.2 item 1: the Strength DRM of a Continued Attack counts the units taking part in it: the
    continuing unit against the enemies it now attacks. R16 has already shocked M04 (which retreated, and
    R16 advanced after it); R15's Continued Attack against M04 is 1 against 1: no Strength DRM (not +1)."""
    x, y0, y1, b = "4111", "4312", "4211", "4412"
    s, d = _supreme([{"id": "R15", "hex": CHARGER, "facing": 0}, {"id": "R16", "hex": b, "facing": 3},
                     {"id": "M03", "hex": x, "facing": 3}, {"id": "M04", "hex": y0, "facing": _facing_toward(y0, b)}],
                    [7, 9, 4])
    play(s, d, A("OPT", "PASS"), A("UNIT", "R15"), A("OPT", "SHOCK_ALL"), A("UNIT", "R16"), A("OPT", "SHOCK_ALL"),
         A("OPT", "PASS"))
    # R16 vs M04: 7 +1 (R defense) -1 (H vs R) = 7 -> DD+DR; M04 retreats to 4211, R16 advances into 4312
    play(s, d, A("HEX", y0))
    assert f"Shock H {b} vs R {y0}: DR 7 +1 (defense) -1 (weapons matrix) = 7 -> DD+DR [10.2]" in log_text(s)
    play(s, d, A("HEX", y1), A("FACE", _facing_toward(y1, x)), A("FACE", 3))
    assert pos_of(s, "R16")["hex"] == y0 and pos_of(s, "M04")["hex"] == y1
    # R15 vs M03: 9 +1 -1 = 9 -> Rt+CA; R15 advances into 4111 and continues against M04 (now frontal)
    play(s, d, A("HEX", x))
    text = log_text(s)
    assert f"Shock H {CHARGER} vs R {x}: DR 9 +1 (defense) -1 (weapons matrix) = 9 -> Rt+CA [10.2]" in text
    assert f"advances to {x} to continue the attack [12.4]" in text
    # 4 +2 (Disordered R defense) -1 (H vs R) -1 (one previous attack) = 4 -> DR on the Disordered column
    assert f"Shock H {x} vs R {y1}: DR 4 +2 (defense) -1 (weapons matrix) -1 (continued attack) = 4 -> DR [10.2]" \
        in log_text(s)
    # the retreat is away from the continuing unit only
    eng = engine()
    assert decision(s) == "retreat path" and player(s) == 1
    assert all(eng.geo.dist[a, hx(x)] == 2 for a in eng.legal_actions(s))
    assert any(eng.geo.dist[a, hx(y0)] == 1 for a in eng.legal_actions(s))


AMBUSH_OK = ["3220", "3221", "3320", "3420", "3322", "3421"]


@pytest.mark.parametrize("hexes,bad,reason", [
    (AMBUSH_OK[:5] + ["3309"], "3309", "occupied at the start by the Russian H of Supreme (8.0: no stacking)"),
    (AMBUSH_OK[:5] + ["4309"], "4309", "occupied at the start by the Mongol B of Front line (8.0: no stacking)"),
    (AMBUSH_OK[:5] + ["3519"], "3519", "the Mongol unit at 4309 can trace a line of sight to it at the start (15.2)"),
    (["3220", "3221", "3222", "3420", "3421", "3422"], "3420",
     "not contiguous with 3220 (15.2: the Regiment's hexes are contiguous)"),
], ids=["stacking-russian", "stacking-mongol", "mongol-line-of-sight", "not-contiguous"])
def test_15_2_ambush_hexes_option_is_validated(hexes, bad, reason):
    """15.2: the written ambush hexes are contiguous, out of every Mongol unit's line of sight at the start
    and legal for stacking; otherwise a ScenarioError names the hex and the reason."""
    eng = engine()
    with pytest.raises(ScenarioError) as exc:
        eng.new_state({"ambush_hexes": hexes}, ScriptedDice([7, 2]))
    assert str(exc.value) == f"options: field 'ambush_hexes' = '{bad}': {reason}"
    # with the offending hex moved to a good one (3321: inner Green Oak Wood, next to 3220 and 3422) the
    # option is accepted
    ok = [("3321" if h == bad else h) for h in hexes]
    s = eng.new_state({"ambush_hexes": ok}, ScriptedDice([7, 2]))
    assert [eng.grid.ids[h] for h in s.ambush.tolist()] == ok


@pytest.mark.parametrize("escape_dr,escapes", [(7, True), (2, False)], ids=["escapes", "captured"])
def test_13_4_lone_real_dmitri_captured_gets_escape_roll(escape_dr, escapes):
    """13.3 / C7: a leader alone in a hex an enemy unit enters is captured (killed); 13.4: when the Mongols
    kill the real Dmitri, the Russian rolls for his escape: 5-9 he goes to his Standard with rating 6,
    0-4 he is dead (5 FP, the Supreme Regiment's replacement awaits). Either way the False Dmitri goes."""
    eng = engine()
    lone, start = "3612", "3712"
    step = eng.geo.nbr[hx(start)].index(hx(lone))
    s, d = new([{"id": "M13", "hex": start, "facing": 3}, {"id": "R22", "hex": "3512", "facing": 0}],
               [leader("Left Flank commander", start), leader("Dmitri", lone, rating=4),
                leader("False Dmitri", "3512", rating=4)],
               false_dmitri=True, to_move={"player": "mongol", "activate": "Left Flank", "free": False},
               dice=[escape_dr])
    play(s, d, A("UNIT", "M13"), A("DIR", step))
    text = log_text(s)
    assert f"Dmitri alone in {lone} is captured by L {lone} [13.3]" in text
    names = [l["name"] for l in eng.sc.leaders]
    dmitri = eng.to_position(s)["leaders"][names.index("Dmitri")]
    false = eng.to_position(s)["leaders"][names.index("False Dmitri")]
    assert false["hex"] is None
    if escapes:
        assert f"escape DR {escape_dr} -> he fights his way out, rating 6 [13.4]" in text
        assert dmitri["hex"] == "3012" and s.l_rating[names.index("Dmitri")] == 6
        assert eng.flight_points(s, 0) == 0
    else:
        assert f"escape DR {escape_dr} -> killed [13.4]" in text
        assert "Overall Commander Dmitri killed: +5 FP" in text
        assert dmitri["hex"] is None and eng.flight_points(s, 0) == 5
