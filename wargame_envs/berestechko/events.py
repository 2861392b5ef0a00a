"""The events the compiled rules write for the game log, and the sentences the log shows for them.

A rule calls :func:`log` with a code of :data:`EV` and up to four numbers (a side, a unit, a hex, a die...);
:func:`log_lines` turns the rows of one engine call into the log's text (``state.log``). :data:`EVENTS` names
each code and the rulebook case it reports. The combat roll is several rows: each side's dice
(``ATTACK_DICE`` / ``DEFENCE_DICE`` then one ``ROLL`` per die) and the result line
(``CLOSE_COMBAT_ROLL`` / ``RANGED_COMBAT_ROLL``), which the log shows as one sentence.
"""

from __future__ import annotations

from collections import namedtuple

from ..core.events import emit
from ..core.jit import kernel
from .state import Reason

#: (name, rulebook case) of each event code; :data:`EV` gives the codes by name.
EVENTS = (
    ("THROW", "4.1"),                    # side, die 1, die 2, die 3
    ("DIE_AS_COMMAND", "4.1"),           # side, value: no unit of that value left
    ("BUY_ACTIVATION", "6.1.3"),         # side, cost
    ("GAIN_COMMAND", "6"),               # side, track (RECON / INTERACTION), new value
    ("RECOVERS", "6.2.1"),               # unit
    ("ACTIVATES", "5"),                  # side, unit, source (die value or 0), wagon (0 no, 1 second die, 2 commands)
    ("WITHDRAWN_ACTIVATION", "5.1, 9"),  # unit
    ("MOVES", "7"),                      # unit, from, to, with its wagon
    ("NO_ATTACK", "7.1"),                # unit
    ("DECLARES", "8"),                   # attacker, kind (CLOSE / RANGED), defender, hex
    ("RETREATS_BEFORE", "6.2.2, 8.1.1"),  # defender, from, to
    ("TAKES_VACATED", "8.1.1"),          # attacker, hex
    ("JOINS", "6.1.1, 8.1.2"),           # unit
    ("ARTILLERY", "6.1.2, 8.1.3"),       # side
    ("DEF_ARTILLERY", "8.1.3"),          # side
    ("ATTACK_DICE", "8.1.4, 8.2.4"),     # unit (-1: artillery), number, sides; then one ROLL per die
    ("DEFENCE_DICE", "8.1.4"),           # the same for the defender
    ("ROLL", "8.1.4, 8.2.4"),            # value
    ("CLOSE_COMBAT_ROLL", "8.1.4"),      # AV, DV, CR, R
    ("RANGED_COMBAT_ROLL", "8.2.4"),     # AV, 0, CR, R
    ("CLOSE_DOUBLE", "8.1.4"),           # CR >= 2R
    ("CLOSE_ABOVE", "8.1.4"),            # R < CR < 2R
    ("CLOSE_EQUAL", "8.1.4"),            # CR = R
    ("CLOSE_BELOW", "8.1.4"),            # CR < R
    ("RANGED_RETREAT", "8.2.4"),         # CR > R, disorganized defender
    ("RANGED_LOSS", "8.2.4"),            # CR > R
    ("RANGED_NO_EFFECT", "8.2.4"),       # CR <= R
    ("TATAR_UNDER_FIRE", "8.2.6"),       # unit
    ("ATTACKER_CHOOSES", "8.1.4"),       # side, choice (1 loss, 2 retreat)
    ("TAKES_CHOICE", "6.2.3"),           # side
    ("CHOSEN", "8.1.4"),                 # chooser, choice
    ("ADVANCES", "8.1.8"),               # unit, hex
    ("TATARS_END_BATTLE", "9"),
    ("TATARS_FIGHT_ON", "9"),
    ("END_OF_ROUND", "4.2"),             # round
    ("GAME_OVER", "10"),                 # winner, VP P-L, VP C-T, reason
    ("WAGON_DESTROYED", "8.3"),          # wagon
    ("SPIRIT", "9"),                     # change, new value, unit, why (SPIRIT_WHY)
    ("TATARS_WITHDRAW", "9"),
    ("DESTROYED", "8.1.4"),              # unit, why (WHY), hex (-1 none)
    ("LOSS", "8.1.4"),                   # unit, why
    ("WAGON_HOLDS", "8.3"),              # unit: it cannot retreat from its wagons
    ("NO_RETREAT_HEX", "8.1.7"),         # unit, ranged (8.2.5)
    ("RETREATS", "8.1.7"),               # unit, from, to, RETREAT_SIDEWAYS | RETREAT_RANGED (8.2.5)
)
EV = namedtuple("EventCodes", [name for name, _ in EVENTS])(*range(len(EVENTS)))

#: Why a unit suffers a loss or is destroyed (the argument of LOSS and DESTROYED).
WHY_TEXT = ("close combat", "failed attack", "ranged combat", "retreat from wagons", "retreat to the side",
            "retreat impossible")
WHY = namedtuple("Why", ["CLOSE", "FAILED_ATTACK", "RANGED", "WAGONS", "SIDEWAYS", "NO_HEX"])(*range(6))
#: Why the Tatar combat spirit changes (the argument of SPIRIT).
SPIRIT_WHY_TEXT = ("{} recovered", "{} destroyed outright: disorganization and destruction", "{} destroyed",
                   "{} suffers losses")
SPIRIT_WHY = namedtuple("SpiritWhy", ["RECOVERED", "DESTROYED_OUTRIGHT", "DESTROYED", "LOSS"])(*range(4))

REASON_TEXT = {
    Reason.AUTOMATIC: "automatic victory: four enemy units destroyed [10]",
    Reason.POINTS: "end of round 2: victory points [10]",
    Reason.TATARS_ENDED: "the Cossack-Tatar player ended the battle after the Tatar withdrawal [9]",
    Reason.NO_UNITS_LEFT: "automatic victory: every enemy combat unit destroyed [10, C29]",
}
SIDE_TEXT = ("Polish-Lithuanian", "Cossack-Tatar")


@kernel
def log(io, code, a, b, c, d):
    """Write one event (nothing when the buffer has no rows: batched play)."""
    emit(io.ev, io.evn, code, a, b, c, d)


def log_lines(engine, rows) -> list[str]:
    """The log's sentences for the event rows of one engine call."""
    names, ids = engine.scenario.names, engine.grid.ids
    out: list[str] = []
    dice: list[tuple[bool, int, str, list[int]]] = []  # the combat roll being read: (defence, unit, "NdS", rolls)
    for code, a, b, c, d in rows.tolist():
        if not EV.ATTACK_DICE <= code <= EV.RANGED_COMBAT_ROLL:
            out.append(_SENTENCES[code](names, ids, a, b, c, d))
        elif code == EV.ROLL:
            dice[-1][3].append(a)
        elif code != EV.CLOSE_COMBAT_ROLL and code != EV.RANGED_COMBAT_ROLL:
            dice.append((code == EV.DEFENCE_DICE, a, f"{b}d{c}", []))
        else:
            parts: list[list[str]] = [[], []]
            for defence, u, n, rolls in dice:  # the artillery (-1) shows its one die as a number
                parts[defence].append(f"{names[u]} {n}={rolls}" if u >= 0 else f"artillery {n}={rolls[0]}")
            line = f"AV {a} ({'; '.join(parts[0])})"
            if code == EV.CLOSE_COMBAT_ROLL:
                line += f" - DV {b} ({'; '.join(parts[1])})"
            out.append(line + f" = CR {c} vs R {d} [{'8.1.4' if code == EV.CLOSE_COMBAT_ROLL else '8.2.4'}]")
            dice = []
    return out


def format_event(engine, code: int, a: int, b: int, c: int, d: int) -> str:
    """The sentence of one event (all but the combat roll's rows, which :func:`log_lines` joins)."""
    return _SENTENCES[code](engine.scenario.names, engine.grid.ids, a, b, c, d)


def _activation(c: int, d: int) -> str:
    how = "additional activation" if c == 0 else f"die {c}"
    return how + ("", f" + second {c} for the wagon [7.2]", " + 2 interaction for the wagon [7.2, 6.1.3]")[d]


def _fixed(text: str):
    return lambda names, ids, a, b, c, d: text


def _combat_roll(names, ids, a, b, c, d):
    raise ValueError("combat roll rows are joined by log_lines")


#: Flags of a RETREATS event's last argument: to the side (8.1.7), after ranged combat (8.2.5).
RETREAT_SIDEWAYS, RETREAT_RANGED = 1, 2


def _retreat_rule(ranged: int) -> str:
    """The case a retreat follows: 8.1.7 after close combat, 8.2.5 after ranged combat (with 8.2.6's extra
    hex for Tatars)."""
    return "8.2.5" if ranged else "8.1.7"


#: code -> sentence(names, ids, a, b, c, d), in the order of EVENTS
_SENTENCES = dict([
    (EV.THROW, lambda n, i, a, b, c, d: f"{SIDE_TEXT[a]} throws {b}, {c}, {d} [4.1]"),
    (EV.DIE_AS_COMMAND, lambda n, i, a, b, c, d:
        f"{SIDE_TEXT[a]}: no unit with activation {b} left; the die counts as 1/6 [4.1]"),
    (EV.BUY_ACTIVATION, lambda n, i, a, b, c, d:
        f"{SIDE_TEXT[a]} spends {b} interaction: additional activation [6.1.3]"),
    (EV.GAIN_COMMAND, lambda n, i, a, b, c, d: f"{SIDE_TEXT[a]}: +1 {('reconnaissance', 'interaction')[b]} -> {c} [6]"),
    (EV.RECOVERS, lambda n, i, a, b, c, d: f"{n[a]} recovers to the ordered state [6.2.1]"),
    (EV.ACTIVATES, lambda n, i, a, b, c, d: f"{SIDE_TEXT[a]} activates {n[b]} ({_activation(c, d)}) [5]"),
    (EV.WITHDRAWN_ACTIVATION, lambda n, i, a, b, c, d: f"{n[a]} is withdrawn: an imaginary activation [5.1, 9]"),
    (EV.MOVES, lambda n, i, a, b, c, d: f"{n[a]} moves {i[b]} -> {i[c]}" + (" with its wagon" if d else "") + " [7]"),
    (EV.NO_ATTACK, lambda n, i, a, b, c, d: f"{n[a]} entered complex terrain as its 2nd hex: no attack [7.1]"),
    (EV.DECLARES, lambda n, i, a, b, c, d:
        f"{n[a]} declares {'close' if b == 1 else 'ranged'} combat against {n[c]} at {i[d]} [8]"),
    (EV.RETREATS_BEFORE, lambda n, i, a, b, c, d:
        f"{n[a]} retreats before combat {i[b]} -> {i[c]} (2 reconnaissance) [6.2.2, 8.1.1]"),
    (EV.TAKES_VACATED, lambda n, i, a, b, c, d: f"{n[a]} advances to {i[b]} [8.1.1]"),
    (EV.JOINS, lambda n, i, a, b, c, d: f"{n[a]} joins the attack (1 interaction) [6.1.1, 8.1.2]"),
    (EV.ARTILLERY, lambda n, i, a, b, c, d: f"{SIDE_TEXT[a]} adds artillery support (1 interaction) [6.1.2, 8.1.3]"),
    (EV.DEF_ARTILLERY, lambda n, i, a, b, c, d:
        f"{SIDE_TEXT[a]} adds defensive artillery support (1 interaction) [8.1.3]"),
    (EV.ATTACK_DICE, _combat_roll),
    (EV.DEFENCE_DICE, _combat_roll),
    (EV.ROLL, _combat_roll),
    (EV.CLOSE_COMBAT_ROLL, _combat_roll),
    (EV.RANGED_COMBAT_ROLL, _combat_roll),
    (EV.CLOSE_DOUBLE, _fixed("CR >= 2R: the defender suffers losses and retreats [8.1.4]")),
    (EV.CLOSE_ABOVE, _fixed("CR > R: the defender suffers losses or retreats [8.1.4]")),
    (EV.CLOSE_EQUAL, _fixed("CR = R: no effect [8.1.4]")),
    (EV.CLOSE_BELOW, _fixed("CR < R: the attacker suffers losses [8.1.4]")),
    (EV.RANGED_RETREAT, _fixed("CR > R: the disorganized defender retreats [8.2.4]")),
    (EV.RANGED_LOSS, _fixed("CR > R: the defender suffers losses [8.2.4]")),
    (EV.RANGED_NO_EFFECT, _fixed("CR <= R: no effect [8.2.4]")),
    (EV.TATAR_UNDER_FIRE, lambda n, i, a, b, c, d:
        f"{n[a]} is a Tatar unit under fire: one additional hex of retreat [8.2.6]"),
    (EV.ATTACKER_CHOOSES, lambda n, i, a, b, c, d: f"{SIDE_TEXT[a]} chooses {('losses', 'a retreat')[b - 1]} [8.1.4]"),
    (EV.TAKES_CHOICE, lambda n, i, a, b, c, d:
        f"{SIDE_TEXT[a]} spends 1 reconnaissance to choose loss or retreat himself [6.2.3]"),
    (EV.CHOSEN, lambda n, i, a, b, c, d:
        f"{SIDE_TEXT[a]}: the defender {('suffers losses', 'retreats')[b - 1]} [8.1.4]"),
    (EV.ADVANCES, lambda n, i, a, b, c, d: f"{n[a]} advances to {i[b]} [8.1.8]"),
    (EV.TATARS_END_BATTLE, _fixed("The Cossack-Tatar player ends the battle [9]")),
    (EV.TATARS_FIGHT_ON, _fixed("The Cossack-Tatar player fights on without the Tatars [9]")),
    (EV.END_OF_ROUND, lambda n, i, a, b, c, d: f"End of round {a}: activation markers removed [4.2]"),
    (EV.GAME_OVER, lambda n, i, a, b, c, d: f"Game over: {SIDE_TEXT[a]} win, VP {b}-{c}; {REASON_TEXT[Reason(d)]}"),
    (EV.WAGON_DESTROYED, lambda n, i, a, b, c, d: f"{n[a]} destroyed by an enemy entering its hex [8.3]"),
    (EV.SPIRIT, lambda n, i, a, b, c, d: f"Tatar combat spirit {a:+d} ({SPIRIT_WHY_TEXT[d].format(n[c])}) -> {b} [9]"),
    (EV.TATARS_WITHDRAW, _fixed("The Tatars withdraw from the battle [9]")),
    (EV.DESTROYED, lambda n, i, a, b, c, d: f"{n[a]} destroyed ({WHY_TEXT[b]})" + (f" at {i[c]}" if c >= 0 else "")),
    (EV.LOSS, lambda n, i, a, b, c, d: f"{n[a]} suffers losses: disorganized ({WHY_TEXT[b]})"),
    (EV.WAGON_HOLDS, lambda n, i, a, b, c, d: f"{n[a]} cannot retreat from its wagons: losses instead [8.3]"),
    (EV.NO_RETREAT_HEX, lambda n, i, a, b, c, d: f"{n[a]} has no free hex to retreat to [{_retreat_rule(b)}]"),
    (EV.RETREATS, lambda n, i, a, b, c, d: f"{n[a]} retreats {i[b]} -> {i[c]}"
        + (" (to the side)" if d & RETREAT_SIDEWAYS else "") + f" [{_retreat_rule(d & RETREAT_RANGED)}]"),
])
assert sorted(_SENTENCES) == list(range(len(EVENTS))), "every event code has a sentence"
_SENTENCES = tuple(_SENTENCES[code] for code in range(len(EVENTS)))
