"""The events the compiled rules emit (``core.events.emit``) and the log sentences they become.

:data:`EVENTS` names each code with the rulebook case that emits it; :func:`format_event` writes the
exact sentence of ``state.log``. Arguments are ints: units, leaders, guns and corps by index, hexes by
index (negative: off the map), dice, and the packed fields documented per code below.
"""

from __future__ import annotations

from .state import RESULT_CODES

#: (name, rulebook case) per event code
EVENTS = (
    ("turn", "4.1"),                  # a: the Game-Turn
    ("visibility_roll", "reference 6, 10.34"),   # a: die, b: visibility
    ("disruption_removal", "9.2, 10.21"),        # a: unit, b: hex, c: die + 16 * total, d: 2 * leader value + undisrupted
    ("artillery_fire", "5.1"),        # a: gun, b: unit, c: 16 * target hex + hits on 1..c, d: 64 * gun hex + 4 * die + FIRE_*
    ("turn_ends_added", "4.1 C"),
    ("turn_ends_drawn", "4.1 C"),
    ("chit_drawn", "4.1 C"),          # a: corps
    ("chit_exchanged", "4.1 C"),      # a: the drawn corps, b: the corps activated instead
    ("game_over", "4.1 D"),
    ("eliminated", "9.0, 8.6, 11.12"),           # a: unit, b: its hex, c: WHY_*
    ("demoralized", "11.0"),          # a: army, b: strength points lost
    ("leader_caught", "10.0"),        # a: leader, b: hex
    ("leaders_choice", "10.11"),      # a: 1 attacker / 0 defender, b: 1 adds / 0 declines
    ("loss_chosen", "8.6"),           # a: unit, b: result (state.RESULT_CODES), c: DISRUPT_*
    ("moved", "6.0"),                 # a: piece, b: hex before, c: disrupted, d: hex
    ("captured", "5.32"),             # a: unit, b: hex before, c: disrupted, d: 1024 * gun + hex
    ("allies_released", "12.4"),
    ("pursuit_exit", "reference 6"),  # a: unit, b: hex
    ("saxon_exit", "20.14"),          # a: unit, b: hex
    ("attack", "8.0, 8.6"),           # see attack_text
    ("charge_disrupted", "12.5"),     # a: unit, b: hex, c: DISRUPT_*, d: result
)
(EV_TURN, EV_VIS_ROLL, EV_REMOVAL, EV_FIRE, EV_TE_ADDED, EV_TE_DRAWN, EV_CHIT, EV_SWAP, EV_GAME_OVER, EV_ELIMINATED,
 EV_DEMORALIZED, EV_LEADER_CAUGHT, EV_LEADERS_CHOICE, EV_LOSS_CHOSEN, EV_MOVED, EV_CAPTURED, EV_RELEASED,
 EV_PURSUIT_EXIT, EV_SAXON_EXIT, EV_ATTACK, EV_CHARGE_DISRUPTED) = range(len(EVENTS))

# disruption.disrupt results
DISRUPT_NONE, DISRUPT_DISRUPTED, DISRUPT_ELIMINATED = 0, 1, 2
DISRUPT_TEXT = ("no effect", "disrupted", "eliminated")
# artillery shot results
FIRE_MISS, FIRE_DISRUPTED, FIRE_NO_EFFECT = 0, 1, 2
FIRE_TEXT = ("no effect", "disrupted", "already disrupted, no effect [5.35]")
# why a unit was disrupted (disruption.disrupt) ...
REASONS = ("artillery", "Ad", "Dd", "Ax", "Dx", "Ax, the defender's unit", "Dx, the attacker's unit", "charge",
           "Ax, chosen by its owner", "Dx, chosen by its owner")
(R_ARTILLERY, R_AD, R_DD, R_AX, R_DX, R_AX_DEFENDER, R_DX_ATTACKER, R_CHARGE, R_AX_CHOSEN,
 R_DX_CHOSEN) = range(len(REASONS))
# ... and eliminated (disruption.eliminate): WHY_AGAIN + a reason is "disrupted again (reason) [9.0]"
WHY_AE, WHY_DE, WHY_ROUT, WHY_ROUT_SAXON, WHY_AGAIN = 0, 1, 2, 3, 16
WHY_TEXT = ("Ae [8.6]", "De [8.6]", "moved off the map [11.12]", "moved off the map [11.12], no victory points [20.14]")
VIS_NAMES = ("clear", "moderate", "restricted")
OFF_WHERE = {-1: "eliminated", -2: "off map", -3: "absent"}


def unit_name(D, u: int, h: int) -> str:
    return f"{D.unit_label[u]} {D.grid.ids[h] if h >= 0 else OFF_WHERE[h]}"


def piece_name(D, p: int, h: int, disrupted: int) -> str:
    """A unit (``p`` < n_units) or leader with its corps: "Tilly's Center: tercio 1504 (disrupted)"."""
    if p >= D.n_units:
        l = p - D.n_units
        return f"{D.corps_title[D.leader_corps[l]]}: {D.leader_names[l]} {D.grid.ids[h] if h >= 0 else '(gone)'}"
    where = D.grid.ids[h] if h >= 0 else "(gone)"
    return f"{D.corps_title[D.unit_corps[p]]}: {D.unit_label[p]} {where}{' (disrupted)' if disrupted else ''}"


def fmt_sp(v2: int) -> str:
    """Half strength points as the log shows them (``7`` or ``7.5``)."""
    return str(v2 // 2) if v2 % 2 == 0 else f"{v2 / 2:g}"


def _around(D, anchor: int, bits: int) -> list[int]:
    return [int(D.grid.neighbors[anchor, k]) for k in range(6) if bits >> k & 1]


def attack_text(D, a: int, b: int, c: int, d: int) -> str:
    """EV_ATTACK: ``a`` = the lowest defender hex + 1024 * (attacker hexes around it, a bit per direction)
    + 65536 * (defender hexes around the lowest attacker hex); ``b`` = 4096 * attack + defence (half
    strength points); ``c`` = column + 16 * die + 256 * result + 2048 * charge note (1 charge, 2 not
    doubled); ``d`` = the lowest attacker hex + 1024 * (defender hexes with a terrain multiple, around it)."""
    d0, a0 = a & 1023, d & 1023
    attackers = sorted(_around(D, d0, a >> 10 & 63))
    defenders = sorted(_around(D, a0, a >> 16 & 63))
    noted = _around(D, a0, d >> 10 & 63)
    att, dfn = b >> 12, b & 4095
    col, die, res, charge = c & 15, c >> 4 & 15, c >> 8 & 7, c >> 11 & 3
    notes = []
    if charge:
        notes.append("charge" + (" (not doubled against disrupted units, 9.13)" if charge == 2 else ""))
    for h in defenders:
        if h in noted:
            notes.append(f"{D.grid.ids[h]} {D.hex_terrain_name[h]} x{D.defense_mult[h]}")
    extra = f" ({'; '.join(notes)})" if notes else ""
    return (f"Attack on {'+'.join(D.grid.ids[h] for h in defenders)} by {'+'.join(D.grid.ids[h] for h in attackers)}: "
            f"{fmt_sp(att)} vs {fmt_sp(dfn)} = {D.crt_columns[col]}{extra}, die {die} -> {RESULT_CODES[res]} [8.0, 8.6]")


def format_event(E, code: int, a: int, b: int, c: int, d: int) -> str:
    """The log sentence of one event."""
    D = E.D
    ids = D.grid.ids
    if code == EV_MOVED:   # the most frequent event first
        return f"{piece_name(D, a, b, c)} -> {ids[d]}"
    if code == EV_TURN:
        return f"--- Game-Turn {a} ---"
    if code == EV_VIS_ROLL:
        return f"Visibility roll {a}: {VIS_NAMES[b]} [reference 6, 10.34]"
    if code == EV_REMOVAL:
        die, total, lv, ok = c & 15, c >> 4, d >> 1, d & 1
        extra = f" + leader {lv} = {total}" if lv else ""
        return (f"Disruption removal {unit_name(D, a, b)}: die {die}{extra} -> "
                f"{'undisrupted' if ok else 'stays disrupted'} [9.2{', 10.21' if lv else ''}]")
    if code == EV_FIRE:
        t, thr, ah, die, txt = c >> 4, c & 15, d >> 6, d >> 2 & 15, d & 3
        return (f"Artillery {D.art_ids[a]} at {ids[ah]} fires at {unit_name(D, b, t)} (range {int(D.grid.dist[ah, t])}, "
                f"hits on 1-{thr}): die {die} -> {FIRE_TEXT[txt]} [5.1]")
    if code == EV_TE_ADDED:
        return "Two corps chits left: the Turn Ends chit goes into the cup [4.1 C]"
    if code == EV_TE_DRAWN:
        return "Turn Ends chit drawn: the Activation Phase ends [4.1 C]"
    if code == EV_CHIT:
        return f"Chit drawn: {D.corps_title[a]} ({D.army_names[D.corps_army[a]]}) [4.1 C]"
    if code == EV_SWAP:
        return f"{D.corps_title[a]} chit goes back into the cup; {D.corps_title[b]} activated instead [4.1 C]"
    if code == EV_GAME_OVER:
        return f"End of Game-Turn {D.turns}: the game is over"
    if code == EV_ELIMINATED:
        why = f"disrupted again ({REASONS[c - WHY_AGAIN]}) [9.0]" if c >= WHY_AGAIN else WHY_TEXT[c]
        return f"{unit_name(D, a, b)} ({D.army_names[D.unit_army[a]]}) eliminated: {why}"
    if code == EV_DEMORALIZED:
        return (f"{D.army_names[a]} reach their Demoralization Level ({b} of {D.demor_level[a]} strength points "
                f"lost) [11.0]")
    if code == EV_LEADER_CAUGHT:
        return f"{D.leader_names[a]} caught without a friendly unit in an enemy zone of control at {ids[b]}: eliminated [10.0]"
    if code == EV_LEADERS_CHOICE:
        return f"The {'attacker' if a else 'defender'} {'adds' if b else 'declines'} the leaders' values [10.11]"
    if code == EV_LOSS_CHOSEN:
        return f"{D.unit_label[a]} chosen for the {RESULT_CODES[b]} result: {DISRUPT_TEXT[c]} [8.6]"
    if code == EV_CAPTURED:
        return f"{piece_name(D, a, b, c)} captures the artillery {D.art_ids[d >> 10]} at {ids[d & 1023]} [5.32]"
    if code == EV_RELEASED:
        return (f"An Imperial unit is within {D.release_distance} hexes of an Allied unit: the Allies may move "
                f"[12.4]")
    if code == EV_PURSUIT_EXIT:
        return (f"{unit_name(D, a, b)} leaves the map through the demoralized enemy's rear edge: "
                f"+{D.unit_strength[a]} VP")
    if code == EV_SAXON_EXIT:
        return f"{unit_name(D, a, b)} (demoralized Saxons) leaves the map by its friendly edge, no victory points [20.14]"
    if code == EV_ATTACK:
        return attack_text(D, a, b, c, d)
    if code == EV_CHARGE_DISRUPTED:
        return f"{D.unit_label[a]} {ids[b] if b >= 0 else ''} {DISRUPT_TEXT[c]} after its charge (result {RESULT_CODES[d]}) [12.5]"
    raise ValueError(f"unknown Breitenfeld event code {code}")


def log_lines(E, rows) -> list[str]:
    """The sentences of the event rows an engine call wrote (``core.events.EventBuffer.drain``)."""
    return [format_event(E, *r) for r in rows.tolist()]
