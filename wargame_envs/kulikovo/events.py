"""The Kulikovo game log: the events the compiled rules emit (``core.events.emit``) and the sentences
they stand for.

:data:`EVENTS` lists every code with its name and rulebook case. Most events are one log line. A line
that names a list (the units of a shock, the modifiers of a die roll, the Ambush Regiment's hexes) is
emitted as *parts* first (``EV_PART``: a unit and its hex, or a hex; ``EV_MOD``: a modifier and its
name) and then the line's own event, which takes the parts emitted since the previous line:
:func:`format_events` turns a call's rows into the log lines.
"""

from __future__ import annotations

from .actions import FACING_NAMES
from .data import TYPES, result_str

EVENTS = (
    ("part", ""),                       # 0 EV_PART: (unit or -1, hex)
    ("modifier", ""),                   # 1 EV_MOD: (value, MOD_NAMES index, arg)
    ("truncated", "activation limit"),  # 2
    ("no_retreat", "12.1"),
    ("leader_captured_alone", "13.3"),
    ("standard_captured", "14.2"),
    ("retired_lost_with_standard", "14.2"),
    ("retire_without_standard", "12.2"),
    ("leader_surrounded", "13.3"),
    ("heroic_rolls", "15.4"),
    ("heroic_loser", "15.4"),           # 10
    ("heroic_tie", "15.4"),
    ("heroic_first", "15.4"),
    ("free_pass", "4.1"),
    ("standard_rally", "12.5.2, 14.0"),
    ("continuity_pass", "4.1"),
    ("continuity_named", "4.2"),
    ("continuity_roll", "4.2"),
    ("seize_roll", "4.3"),
    ("activates", "4.1"),
    ("disorder_rally", "12.5.1"),       # 20
    ("flight_check", "16.0"),
    ("wins", "16.0"),
    ("standard_leaves_retired", "14.1"),
    ("standard_moves", "14.1"),
    ("leader_moves", "13.0"),
    ("leader_check_shock", "13.3"),
    ("leader_check_fire", "13.3"),
    ("false_dmitri_slain", "13.4"),
    ("dmitri_escapes", "13.4"),
    ("dmitri_killed", "13.4"),          # 30
    ("overall_commander_killed", "13.3, 16.0"),
    ("leader_killed", "13.3, 16.0"),
    ("replacement_killed", "13.3"),
    ("replacement_placed", "13.3"),
    ("ambush_seen", "15.2"),
    ("ambush_placed", "15.2"),
    ("counter_charge_roll", "11.3"),
    ("fire", "9.3"),
    ("counter_charge_waits", "11.3"),
    ("charger_disordered", "11.1, 12.1"),  # 40
    ("counter_charge_lapses", "11.3"),
    ("retreats", "12.1"),
    ("retreats_through", "12.1"),
    ("will_shock", "10.0"),
    ("charges", "11.1"),
    ("rbs_roll", "10.1"),
    ("rbs", "10.1"),
    ("cc_negates_charge", "11.3"),
    ("cc_becomes_attacker", "11.3"),
    ("reluctance", "11.2"),             # 50
    ("shock", "10.2"),
    ("continued_attack_advance", "12.4"),
    ("advance", "10.3"),
    ("rbs_advance", "10.1"),
    ("turns_to_fire", "6.0, 9.2"),
)
(EV_PART, EV_MOD, EV_TRUNCATED, EV_NO_RETREAT, EV_LEADER_CAPTURED, EV_STD_CAPTURED, EV_RETIRED_LOST,
 EV_RETIRE_NO_STD, EV_LEADER_SURROUNDED, EV_HEROIC_ROLLS, EV_HEROIC_LOSER, EV_HEROIC_TIE, EV_HEROIC_FIRST,
 EV_FREE_PASS, EV_STD_RALLY, EV_CONT_PASS, EV_CONT_NAMED, EV_CONT_ROLL, EV_SEIZE_ROLL, EV_ACTIVATES,
 EV_DIS_RALLY, EV_FLIGHT_CHECK, EV_WINS, EV_STD_LEAVES_RETIRED, EV_STD_MOVES, EV_LEADER_MOVES,
 EV_LEADER_CHECK_SHOCK, EV_LEADER_CHECK_FIRE, EV_FALSE_DMITRI, EV_DMITRI_ESCAPES, EV_DMITRI_KILLED, EV_OC_KILLED,
 EV_LEADER_KILLED, EV_REPL_KILLED, EV_REPL_PLACED, EV_AMBUSH_SEEN, EV_AMBUSH_PLACED, EV_CC_ROLL, EV_FIRE,
 EV_CC_WAITS, EV_CHARGER_DIS, EV_CC_LAPSES, EV_RETREATS, EV_RETREATS_THROUGH, EV_WILL_SHOCK, EV_CHARGES,
 EV_RBS_ROLL, EV_RBS, EV_CC_NEGATES, EV_CC_ATTACKER, EV_RELUCTANCE, EV_SHOCK, EV_CA_ADVANCE, EV_ADVANCE,
 EV_RBS_ADVANCE, EV_TURNS_TO_FIRE) = range(len(EVENTS))

# EV_MOD names (fire and shock die roll modifiers); "range" and "charging" take an argument
(MOD_RANGE, MOD_HORSE_FLANK, MOD_WOODS, MOD_FIRER_DIS, MOD_STRENGTH, MOD_COMBINATION, MOD_FLANK, MOD_REAR,
 MOD_UPSLOPE, MOD_DEFENSE, MOD_CHARGING, MOD_CHARGER_MOVED, MOD_LEADER_ATT, MOD_LEADER_DEF, MOD_WSM, MOD_ATT_DIS,
 MOD_DEF_RETIRED, MOD_CA) = range(18)
MOD_NAMES = ("range {}", "horse flank 9.3.1", "woods", "firer disordered", "strength", "angle: combination",
             "angle: flank", "angle: rear", "upslope", "defense", "charging {}", "charger moved",
             "leader with attacker", "leader with defender", "weapons matrix", "attacker disordered",
             "defender retired", "continued attack")
# EV_FIRE kinds, EV_SHOCK kinds
FIRE_KINDS = (("Fire", "9.3"), ("Reaction fire", "9.3"), ("Return fire", "9.2"))
SHOCK_KINDS = (("Shock", "10.2"), ("Charge", "11.1"), ("Counter-charge", "11.3"))
PLAYER_NAMES = ("Russian", "Mongol")


def format_events(eng, rows) -> list[str]:
    """The log lines of a call's event rows (``EventBuffer.drain()``)."""
    out, parts = [], []
    for code, a, b, c, d in rows.tolist():
        if code <= EV_MOD:
            parts.append((code, a, b, c, d))
            continue
        out.append(format_event(eng, code, a, b, c, d, parts))
        parts = []
    return out


def _unit(eng, u: int, h: int) -> str:
    return f"{TYPES[eng.utype[u]]} {eng.grid.ids[h] if h >= 0 else 'off-map'}"


def _mods(parts) -> tuple[int, str]:
    """The modifiers among ``parts``: their sum and their text (zeros left out)."""
    vals = [(a, MOD_NAMES[b].format(TYPES[c] if b == MOD_CHARGING else c)) for code, a, b, c, _ in parts
            if code == EV_MOD]
    return sum(v for v, _ in vals), "".join(f" {v:+d} ({n})" for v, n in vals if v)


def format_event(eng, code: int, a: int, b: int, c: int, d: int, parts=()) -> str:
    """The log line of one event (with the parts emitted just before it)."""
    sc = eng.sc
    hid, P = eng.hid, PLAYER_NAMES
    units = [_unit(eng, x, y) for k, x, y, _, _ in parts if k == EV_PART]
    lname = lambda l: sc.leaders[l]["name"]  # noqa: E731
    cname = lambda cmd: sc.commands[cmd]["name"]  # noqa: E731
    vic = sc.victory
    if code == EV_TRUNCATED:
        return f"activation limit {a} reached: game truncated"
    if code == EV_NO_RETREAT:
        return f"{_unit(eng, a, b)} cannot retreat: eliminated [12.1]"
    if code == EV_LEADER_CAPTURED:
        return f"{lname(a)} alone in {hid(b)} is captured by {_unit(eng, c, b)} [13.3]"
    if code == EV_STD_CAPTURED:
        return f"{_unit(eng, a, b)} captures the {P[c]} Standard: +{vic['standard']} FP [14.2]"
    if code == EV_RETIRED_LOST:
        return f"{_unit(eng, a, b)} (Retired) is eliminated: Standard lost [14.2]"
    if code == EV_RETIRE_NO_STD:
        return f"{_unit(eng, a, b)} would Retire but its Standard is lost: eliminated [12.2]"
    if code == EV_LEADER_SURROUNDED:
        return f"{lname(a)} is surrounded in {hid(b)}: captured [13.3]"
    if code == EV_HEROIC_ROLLS:
        return f"Heroic combat: Russian DR {a}, Mongol DR {b} [15.4]"
    if code == EV_HEROIC_LOSER:
        return f"{P[a]} champion falls: +{vic['heroic_combat_loss']} FP"
    if code == EV_HEROIC_TIE:
        return "after a tie the loser takes no Flight Point [15.4]"
    if code == EV_HEROIC_FIRST:
        return f"{P[a]} goes first (free activation) [15.4]"
    if code == EV_FREE_PASS:
        return f"{P[a]} passes: play passes to the opponent [4.1]"
    if code == EV_STD_RALLY:
        return f"Standard rallies {_unit(eng, a, b)}: Retired -> Disordered [12.5.2, 14.0]"
    if code == EV_CONT_PASS:
        return f"{P[a]} passes [4.1]"
    if code == EV_CONT_NAMED:
        return f"{P[a]} names {cname(b)} for Continuity [4.2]"
    if code == EV_CONT_ROLL:
        return (f"Continuity {cname(a)}: DR {b} vs rating {c} -> "
                f"{'activates' if d else 'fails: opponent activates freely'} [4.2]")
    if code == EV_SEIZE_ROLL:
        q, ok = d >> 1, d & 1
        return (f"{P[q]} tries to Seize Continuity with {cname(a)}: DR {b} vs rating {c} -> "
                f"{'seized' if ok else 'fails: the phasing player activates freely'} [4.3]")
    if code == EV_ACTIVATES:
        return f"{P[a]} activates {cname(b)}{' (free)' if c else ''}"
    if code == EV_TURNS_TO_FIRE:
        return f"{_unit(eng, a, b)} turns to face {FACING_NAMES[c]} to fire [6.0, 9.2]"
    if code == EV_DIS_RALLY:
        return f"{_unit(eng, a, b)} did nothing and rallies from Disorder [12.5.1]"
    if code == EV_FLIGHT_CHECK:
        lvl = eng.flight_level[a]
        return (f"Flight check {P[a]}: DR {b} + {c} FP = {b + c} vs level {lvl} -> "
                f"{'FLEES' if d else 'holds'} [16.0]")
    if code == EV_WINS:
        return f"{P[a]} wins"
    if code == EV_STD_LEAVES_RETIRED:
        df = eng.udef[a]
        return (f"Standard leaves Retired {_unit(eng, a, b)}: DR {c} {df:+d} = {c + df} -> "
                f"{'eliminated' if d else 'holds'} [14.1]")
    if code == EV_STD_MOVES:
        return f"{P[a]} Standard moves {hid(b)} -> {hid(c)} [14.1]"
    if code == EV_LEADER_MOVES:
        return f"{lname(a)} moves {hid(b)} -> {hid(c)}"
    if code == EV_LEADER_CHECK_SHOCK:
        return f"Leader check {lname(a)}: DR {b} - {c} = {b - c} -> {'killed' if d else 'survives'} [13.3]"
    if code == EV_LEADER_CHECK_FIRE:
        return f"Leader check {lname(a)} (fire): DR {b} -> {'killed' if c else 'survives'} [13.3]"
    if code == EV_FALSE_DMITRI:
        return ("The slain Dmitri was Brenko, the False Dmitri: no Flight Points; the real Dmitri "
                "goes to his Standard [13.4]")
    if code == EV_DMITRI_ESCAPES:
        return f"The slain Dmitri was the real one: escape DR {a} -> he fights his way out, rating {b} [13.4]"
    if code == EV_DMITRI_KILLED:
        return f"The slain Dmitri was the real one: escape DR {a} -> killed [13.4]"
    if code == EV_OC_KILLED:
        return (f"Overall Commander {lname(a)} killed: +{vic['overall_commander']} FP; his command awaits a "
                f"replacement leader [13.3, 16.0]")
    if code == EV_LEADER_KILLED:
        return f"Leader {lname(a)} killed: +{vic['leader']} FP [13.3, 16.0]"
    if code == EV_REPL_KILLED:
        return (f"Replacement leader of {cname(eng.lcmd[a])} killed: +{vic['leader']} FP; "
                f"he has no substitute and stays in play [13.3]")
    if code == EV_REPL_PLACED:
        return (f"Replacement leader of {cname(eng.lcmd[a])} placed in {hid(b)} "
                f"(rating {c}, range {d}) [13.3]")
    if code == EV_AMBUSH_SEEN:
        return f"Mongol {_unit(eng, a, b)} has LOS to {hid(c)}: the Ambush Regiment is placed [15.2]"
    if code == EV_AMBUSH_PLACED:
        return "Ambush Regiment placed at " + ", ".join(hid(y) for k, _, y, _, _ in parts if k == EV_PART)
    if code == EV_CC_ROLL:
        u, flank, ok, dr = a, c & 1, c >> 1, d
        df = eng.udef[u]
        m = eng.utype[u] == 1  # M
        adj = dr + df + (sc.tests["counter_charge_flank"] if flank else 0) + (sc.tests["counter_charge_medium"] if m else 0)
        return (f"Counter-charge by {_unit(eng, u, b)}: DR {dr} {df:+d}{' +1 flank' if flank else ''}"
                f"{' +1 M' if m else ''} = {adj} -> {'succeeds' if ok else 'fails'} [11.3]")
    if code == EV_FIRE:
        total, txt = _mods(parts)
        kind, case = FIRE_KINDS[b]
        return f"{kind} {units[0]} at {units[1]}: DR {a}{txt} = {a + total} -> {result_str(c, True)} [{case}]"
    if code == EV_CC_WAITS:
        return f"the counter-charge waits until the attack on {_unit(eng, a, b)} is resolved [11.3]"
    if code == EV_CHARGER_DIS:
        return f"{_unit(eng, a, b)} is Disordered during its charge: it will Shock without charging [11.1, 12.1]"
    if code == EV_CC_LAPSES:
        return f"{_unit(eng, a, b)} finds no way to reach {_unit(eng, c, d)}: counter-charge lapses [11.3]"
    if code == EV_RETREATS:
        return f"{_unit(eng, a, b)} retreats to {hid(c)} [12.1]"
    if code == EV_RETREATS_THROUGH:
        return f"it retreats through {_unit(eng, a, b)}, which is {'Disordered' if c else 'Retired'} [12.1]"
    if code == EV_WILL_SHOCK:
        return f"{_unit(eng, a, b)} will Shock " + ", ".join(units) + " [10.0]"
    if code == EV_CHARGES:
        return f"{TYPES[eng.utype[a]]} {hid(b)} Charges into {hid(c)} against " + ", ".join(units) + " [11.1]"
    if code == EV_RBS_ROLL:
        df = eng.udef[a]
        return (f"{_unit(eng, a, b)} retreats before shock: DR {c} {df:+d} = {c + df} -> "
                f"{'Disordered' if d else 'clean'} [10.1]")
    if code == EV_RBS:
        return f"{_unit(eng, a, b)} retreats before shock [10.1]"
    if code == EV_CC_NEGATES:
        return "the counter-charge negates the attackers' charge bonus [11.3]"
    if code == EV_CC_ATTACKER:
        return f"{_unit(eng, a, b)} counter-charges {_unit(eng, c, d)} and becomes the attacker [11.3]"
    if code == EV_RELUCTANCE:
        return (f"Charge reluctance {_unit(eng, a, b)} vs R: DR {c} -> "
                f"{'charges home' if d else 'blunted: shocks without the charge'} [11.2]")
    if code == EV_SHOCK:
        total, txt = _mods(parts)
        kind, case = SHOCK_KINDS[c]
        return (f"{kind} {'+'.join(units[:-1])} vs {units[-1]}: DR {a}{txt} = {a + total} -> {result_str(b)} "
                f"[{case}]")
    if code == EV_CA_ADVANCE:
        return f"{_unit(eng, a, b)} advances to {hid(c)} to continue the attack [12.4]"
    if code == EV_ADVANCE:
        return f"{_unit(eng, a, b)} advances to {hid(c)} [10.3]"
    if code == EV_RBS_ADVANCE:
        return f"{_unit(eng, a, b)} advances into {hid(c)}; it may not shock this activation [10.1]"
    raise ValueError(f"unknown Kulikovo event code {code}")
