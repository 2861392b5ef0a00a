"""How Berestechko looks to people: action strings, the text map and the image scene."""

from __future__ import annotations

from ..core.ansi import view_label
from ..core.render_scene import Counter, Scene
from .state import INTERACTION, ON_MAP, RECON, WITHDRAWN, DESTROYED, Phase, S

SIDE_NAMES = ("Polish-Lithuanian", "Cossack-Tatar")
SIDE_COLORS = ((196, 40, 40), (40, 80, 200))
TATAR_COLOR = (40, 150, 70)
TERRAIN_COLORS = {"open": (226, 221, 178), "Polish camp": (190, 160, 120),
                  "Cossack wagon camp (tabor)": (170, 150, 120), "Plyashivka swamp": (120, 160, 140)}

_OPTION_TEXT = {
    "buy_activation": "spend 2 interaction: additional activation [6.1.3]",
    "buy_recovery": "spend 3 reconnaissance: recover a unit [6.2.1]",
    "end_throw": "end the throw",
    "gain_reconnaissance": "+1 reconnaissance command",
    "gain_interaction": "+1 interaction command",
    "no_combat": "no combat",
    "stand": "stand and fight",
    "done_adding": "no more units in the attack",
    "artillery": "artillery support (1 interaction, +1d6)",
    "no_artillery": "no artillery support",
    "take_choice": "spend 1 reconnaissance: choose loss or retreat yourself [6.2.3]",
    "decline_choice": "accept the attacker's choice",
    "choose_loss": "suffer losses",
    "choose_retreat": "retreat",
    "end_battle": "end the battle now (P-L +2 VP) [9]",
    "continue_battle": "fight on without the Tatars (C-T +1 VP at the end) [9]",
}


def action_to_str(engine, s, action: int) -> str:
    T, g = engine.T, engine.grid
    kind, arg = engine.codec.decode(action)
    names = engine.scenario.names
    phase = int(s.sc[S.PHASE])
    if kind == "option":
        return _OPTION_TEXT[str(arg)]
    if kind == "die":
        return f"use die {arg + 1} (a {int(s.dice[arg])})"
    if kind == "unit":
        verb = "recover" if phase == Phase.SELECT_RECOVERY else "activate"
        return f"{verb} {names[arg]}"
    if kind == "unit_wagon_die":
        return f"activate {names[arg]} with its wagon (second {int(s.sc[S.SOURCE])})"
    if kind == "unit_wagon_cmd":
        return f"activate {names[arg]} with its wagon (2 interaction)"
    h = g.ids[arg]
    u = int(s.sc[S.UNIT])
    if phase == Phase.MOVE:
        start = int(s.hex[u])
        return f"{names[u]} stays at {h}" if arg == start else f"{names[u]} {g.ids[start]}->{h}"
    if phase == Phase.TARGET:
        kind_txt = "close combat" if T.is_cav[u] else "ranged combat"
        return f"{names[u]} {kind_txt} vs {names[int(s.occ[arg])]} at {h}"
    if phase == Phase.RETREAT_BEFORE:
        return f"{names[int(s.sc[S.TARGET])]} retreats before combat to {h} (2 reconnaissance)"
    if phase == Phase.ADD_UNIT:
        return f"add {names[int(s.occ[arg])]} ({h}) to the attack (1 interaction)"
    if phase == Phase.RETREAT:
        return f"{names[int(s.sc[S.RET_UNIT])]} retreats to {h}"
    if phase == Phase.ADVANCE:
        return f"{names[int(s.occ[arg])]} advances from {h}"
    return f"hex {h}"


def _tracks(engine, s, viewer: int | None = None) -> list[str]:
    """Perfect information: every player's view is the omniscient one, apart from its label."""
    sc = s.sc
    lines = [
        view_label(SIDE_NAMES, viewer),
        f"Round {int(sc[S.ROUND])}  throw #{int(sc[S.THROWS])}: {SIDE_NAMES[int(sc[S.ACTIVE])]}",
        "Dice: " + " ".join(f"[{int(d)}]" if u else f" {int(d)} " for d, u in zip(s.dice, s.used))
        + "  ([x] = spent)",
    ]
    for p in (0, 1):
        lines.append(f"{SIDE_NAMES[p]}: reconnaissance {int(s.cmd[p, RECON])}, interaction {int(s.cmd[p, INTERACTION])}")
    spirit = "withdrawn" + (" (battle continued)" if sc[S.CONTINUED] else "") if sc[S.TATARS_OUT] else str(int(sc[S.SPIRIT]))
    lines.append(f"Tatar combat spirit: {spirit}")
    vp = engine.scores(s)
    lines.append(f"Victory points now: P-L {int(vp[0])}, C-T {int(vp[1])}")
    if sc[S.OVER]:
        lines.append(f"GAME OVER: {SIDE_NAMES[int(sc[S.WINNER])]} win")
    else:
        lines.append(f"To decide: {SIDE_NAMES[int(sc[S.DECIDER])]}, {engine.decision_name(s)}")
    off = [engine.scenario.names[u] + ("" if s.status[u] == DESTROYED else " (withdrawn)")
           for u in range(engine.T.NC) if s.status[u] in (DESTROYED, WITHDRAWN)]
    if off:
        lines.append("Off the map: " + ", ".join(off))
    return lines


def _abbrev(name: str) -> str:
    return name.replace("Wagon (", "W:").replace(")", "")[:5]


def render_ansi(engine, s, viewer: int | None = None) -> str:
    from ..core.ansi import hex_map_text

    T, g, names = engine.T, engine.grid, engine.scenario.names
    cells = []
    for h in range(g.n):
        u, w = int(s.occ[h]), int(s.wag[h])
        if u >= 0:
            tag = _abbrev(names[u]) + ("*" if s.disorg[u] else "") + str(int(s.acts[u]) or "")
            tag = ("+" if T.side[u] == 0 else "-") + tag
            if w >= 0:
                tag += "w"
        elif w >= 0:
            tag = "-wagon"
        else:
            tag = g.ids[h] + ("#" if T.complex[h] else "")
        cells.append(tag)
    legend = "+ Polish-Lithuanian, - Cossack-Tatar, * disorganized, 1/2 activations, w wagon, # complex terrain"
    events = s.log[-8:]
    return "\n".join([hex_map_text(g, cells, 10), legend, *_tracks(engine, s, viewer), "Last events:", *("  " + e for e in events)])


def scene(engine, s, viewer: int | None = None) -> Scene:
    T, g, sc = engine.T, engine.grid, engine.scenario
    counters = []
    active = int(s.sc[S.UNIT])
    for u in range(T.U):
        if s.status[u] != ON_MAP:
            continue
        wagon = T.is_wagon[u]
        counters.append(Counter(
            hex=int(s.hex[u]), side=T.side[u], label="wagon" if wagon else sc.names[u][:10],
            kind="wagon" if wagon else ("cavalry" if T.is_cav[u] else "infantry"),
            color=TATAR_COLOR if T.is_tatar[u] else None, disordered=bool(s.disorg[u]),
            marks="" if wagon else "x" * int(s.acts[u]),
            values="" if wagon else f"{T.act[u]} R{T.res[u][int(s.disorg[u])]} {T.att[u]}/{T.dfn[u]}d{T.die[u]}",
            highlight=(u == active),
        ))
    marks = {}
    if s.sc[S.TARGET] >= 0 and s.hex[s.sc[S.TARGET]] >= 0:
        marks[int(s.hex[s.sc[S.TARGET]])] = (230, 30, 30)
    return Scene(
        grid=g, terrain=list(sc.terrain_name), terrain_colors=TERRAIN_COLORS, counters=counters,
        hex_marks=marks, side_names=SIDE_NAMES, side_colors=SIDE_COLORS, title="Berestechko 1651",
        tracks=_tracks(engine, s, viewer), events=list(s.log[-12:]),
    )
