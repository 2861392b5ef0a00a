"""Rendering: a text map (``render_ansi``) and a :class:`~wargame_envs.core.render_scene.Scene` for
images, as one player sees them (``viewer`` 0 Russian, 1 Mongol) or omniscient (``viewer=None``).

What the Mongol player may not see is left out of his view: the hexes of the unplaced Ambush
Regiment (15.2) and, under the False Dmitri rule, which Dmitri counter is the real one (13.4: both
are labelled "Dmitri?"). The Russian player's view and the omniscient one show both."""

from __future__ import annotations

from ..core.ansi import hex_map_text, view_label
from ..core.render_scene import Counter, Scene
from .data import TYPES
from .geometry import FACING_DEG
from .state import (
    D_DEFENSE, D_FACE, D_RETREAT, D_SHOCK_MODE, D_UNIT_ACT, DISORDERED, G_ACTIVATIONS, G_AMBUSH_PLACED, G_FD, G_OVER,
    G_TRUNC, G_WINNER, LF_FD, LF_REAL, RETIRED,
)

SIDE_COLORS = ((200, 40, 40), (40, 70, 200))
ARROWS = ">/\\<\\/"  # rough facing glyphs for E, NE, NW, W, SW, SE
SIDE_NAMES = ("Russian", "Mongol")
MONGOL = 1


def _tracks(eng, s, viewer: int | None = None) -> list[str]:
    out = [view_label(SIDE_NAMES, viewer)]
    for p, name in enumerate(("Russian", "Mongol")):
        out.append(f"{name}: FP {eng.flight_points(s, p)} / level {eng.flight_level[p]}"
                   + ("  (Standard captured)" if s.std_captured[p] else ""))
    out.append(f"activations: {int(s.g[G_ACTIVATIONS])}")
    if not s.g[G_AMBUSH_PLACED]:
        if viewer == MONGOL:
            out.append("Ambush Regiment: not placed (hidden)")  # its hexes are the Russian secret [15.2]
        else:
            out.append("Ambush Regiment: not placed (Russian eyes only: " + ", ".join(eng.hid(int(h)) for h in s.ambush) + ")")
    if s.g[G_OVER]:
        out.append("game truncated" if s.g[G_TRUNC] else f"winner: {('Russian', 'Mongol')[int(s.g[G_WINNER])]}")
    else:
        out.append(f"to decide: {('Russian', 'Mongol')[eng.current_player(s)]} - {eng.decision_name(s)}")
    return out


def render_ansi(eng, s, viewer: int | None = None) -> str:
    cells = []
    occ = s.hex_unit.tolist()
    lead = {int(s.l_hex[l]) for l in range(eng.NL) if s.l_state[l] in (0, 2, 3)}
    for h in range(eng.N):
        u = occ[h]
        if u >= 0:
            t = TYPES[eng.utype[u]]
            t = t if eng.uplayer[u] == 0 else t.lower()
            st = int(s.u_status[u])
            mark = "r" if st == RETIRED else "'" if st == DISORDERED else ARROWS[int(s.u_face[u])]
            cells.append(t + mark + ("*" if h in lead else ""))
        elif h in (int(s.std_hex[0]), int(s.std_hex[1])):
            cells.append("STD")
        elif h in lead:
            cells.append(" * ")
        else:
            cells.append(" ~ " if eng.sc.woods[h] else (" ^ " if eng.sc.elev[h] == 2 else " . " if eng.sc.elev[h] else " _ "))
    text = hex_map_text(eng.grid, cells, 3)
    legend = ("Russian units upper case, Mongol lower case; glyph after the type: facing (> E, / NE or SW, \\ NW or "
              "SE, < W), ' Disordered, r Retired; * leader; STD Standard; ~ woods, ^ Red Hill, _ valley")
    lines = [text, legend] + _tracks(eng, s, viewer) + ["events:"] + ["  " + e for e in s.log[-12:]]
    return "\n".join(lines)


def _leader_label(eng, s, l: int, viewer: int | None) -> str:
    """The leader's counter label; the two Dmitri counters of the False Dmitri rule (13.4) say which
    one is real to the Russian player only, while the Mongol player cannot tell them apart."""
    if s.g[G_FD] and s.l_flags[l] & LF_FD:
        if viewer == MONGOL:
            return "Dmitri?"
        return "Dmitri" if s.l_flags[l] & LF_REAL else "FalseD"
    return eng.sc.leaders[l]["name"][:6]


def scene(eng, s, viewer: int | None = None) -> Scene:
    terrain = []
    for h in range(eng.N):
        if eng.sc.woods[h]:
            terrain.append("woods")
        elif eng.sc.elev[h] == 0:
            terrain.append("valley")
        elif eng.sc.elev[h] == 2:
            terrain.append("hill")
        else:
            terrain.append("clear")
    counters = []
    hexes = s.u_hex.tolist()
    top = eng.top(s) if not s.g[G_OVER] else None
    focus = top[2] if top is not None and top[0] in (D_UNIT_ACT, D_SHOCK_MODE, D_RETREAT, D_FACE, D_DEFENSE) else -1
    for u in range(eng.U):
        h = hexes[u]
        if h < 0:
            continue
        t = eng.utype[u]
        kind = "cavalry" if eng.uhorse[u] else "infantry"
        st = int(s.u_status[u])
        counters.append(Counter(hex=h, side=eng.uplayer[u], label=TYPES[t], kind=kind,
                                disordered=st == DISORDERED, marks="R" if st == RETIRED else "",
                                facing_deg=FACING_DEG[int(s.u_face[u])], highlight=u == focus))
    for l in range(eng.NL):
        if s.l_state[l] in (0, 2, 3) and s.l_hex[l] >= 0:
            counters.append(Counter(hex=int(s.l_hex[l]), side=eng.lplayer[l], label=_leader_label(eng, s, l, viewer),
                                    kind="leader"))
    for p in range(2):
        if not s.std_captured[p]:
            counters.append(Counter(hex=int(s.std_hex[p]), side=p, label="STD", kind="standard"))
    hexsides = []
    geo = eng.geo
    colors = {1: ((150, 110, 60), 2), 2: ((90, 50, 20), 4), 3: ((40, 90, 220), 4)}
    for h in range(eng.N):
        for d in range(6):
            f = geo.hexside[h][d]
            y = geo.nbr[h][d]
            if f and y > h:
                c, w = colors[f]
                hexsides.append((h, y, c, w))
    return Scene(grid=eng.grid, terrain=terrain,
                 terrain_colors={"clear": (214, 206, 160), "woods": (90, 140, 70), "valley": (170, 190, 140),
                                 "hill": (190, 160, 110)},
                 counters=counters, hexsides=hexsides, side_names=("Russian", "Mongol"), side_colors=SIDE_COLORS,
                 title="Kulikovo 1380", tracks=_tracks(eng, s, viewer), events=list(s.log[-12:]), show_hex_ids=True)
