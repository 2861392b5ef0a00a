"""Text and image views of a Breitenfeld position (``render_ansi`` and ``scene``).

Breitenfeld has no hidden information (the visibility option changes ranges and movement, it hides
no unit), so a player's view is the omniscient one apart from its label."""

from __future__ import annotations

from ..core.ansi import view_label
from ..core.render_scene import Counter, Scene
from .events import VIS_NAMES
from .state import (F_IN_ATK, G_ACTIVE, G_DEC, G_DEMOR, G_ELIM0, G_PLAYER, G_SEL, G_TURN, G_VIS, G_VIS_OPT,
                    DECISION_NAMES, PHASE_NAMES, G_PHASE)

TERRAIN_CHAR = {"clear": ".", "slope": "~", "hilltop": "^", "town": "#", "woods": "T"}
TERRAIN_COLORS = {"clear": (222, 214, 170), "slope": (196, 170, 120), "hilltop": (160, 120, 80),
                  "town": (150, 150, 150), "woods": (70, 130, 70)}
ARMY_LETTER = {"swedes": "S", "saxons": "X", "imperial": "I"}
ARMY_COLOR = {"swedes": (40, 80, 200), "saxons": (150, 100, 50), "imperial": (200, 40, 40)}


def tracks(E, s, viewer: int | None = None) -> list[str]:
    D = E.D
    g = s.g.tolist()
    vp = E.victory_points(s)
    lines = [view_label(("Allied", "Imperial"), viewer), f"Game-Turn {g[G_TURN]} of {D.turns}   phase: {PHASE_NAMES[g[G_PHASE]]}"]
    if g[G_ACTIVE] >= 0:
        lines.append(f"Activated: {D.corps_title[g[G_ACTIVE]]}")
    lines.append("Cup: " + ", ".join(D.corps_title[c] for c in range(D.n_corps) if s.cup[c]))
    if g[G_VIS_OPT]:
        lines.append(f"Visibility: {VIS_NAMES[g[G_VIS]]}")
    lines.append(f"Victory points: Allied {vp[0]}, Imperial {vp[1]}")
    lines.append("Losses: " + ", ".join(
        f"{D.army_names[a]} {g[G_ELIM0 + a]}/{D.demor_level[a]}{' DEMORALIZED' if g[G_DEMOR] >> a & 1 else ''}"
        for a in range(len(D.army_ids))))
    if not E.is_terminal(s):
        lines.append(f"To decide: {E.agents[g[G_PLAYER]]}: {DECISION_NAMES[g[G_DEC]]}")
    else:
        r = E.returns(s)
        lines.append("Game over: " + ("Allied win" if r[0] > 0 else "Imperial win" if r[1] > 0 else "draw"))
    return lines


def render_ansi(E, s, viewer: int | None = None) -> str:
    """Rows of the map (YY) down, columns (XX) across; each cell: army letter + i/c (lower case if
    disrupted) or terrain, '*' leader, '@' artillery."""
    D = E.D
    grid = D.grid
    cell = {}
    for u, h in enumerate(s.u_hex.tolist()):
        if h >= 0:
            a = ARMY_LETTER.get(D.army_ids[D.unit_army[u]], "?")
            k = "c" if D.unit_kind[u] else "i"
            cell[h] = (a.lower() if s.u_dis[u] else a) + k
    marks = {}
    for h in s.l_hex.tolist():
        if h >= 0:
            marks[h] = "*"
    for h in s.a_hex.tolist():
        if h >= 0:
            marks[h] = marks.get(h, "") + "@"
    out = ["    " + "".join(f"{c:02d}  " for c in range(1, D.columns + 1))]
    for r in range(1, D.rows + 1):
        row = [f"{r:02d}  "]
        for c in range(1, D.columns + 1):
            h = grid.index[f"{c:02d}{r:02d}"]
            txt = cell.get(h, TERRAIN_CHAR.get(D.hex_terrain_name[h], "."))
            m = marks.get(h, "")
            row.append((txt + m)[:3].ljust(4))
        out.append("".join(row))
    out.append("S/X/I = Swedish/Saxon/Imperial, i/c infantry/cavalry (lower case: disrupted), * leader, @ artillery; "
               "terrain ^ hilltop ~ slope # town T woods")
    out += tracks(E, s, viewer)
    out += ["Last events:"] + ["  " + e for e in s.log[-8:]]
    return "\n".join(out)


def scene(E, s, viewer: int | None = None) -> Scene:
    D = E.D
    counters = []
    sel = int(s.g[G_SEL])
    for u, h in enumerate(s.u_hex.tolist()):
        if h < 0:
            continue
        army = D.army_ids[D.unit_army[u]]
        st = D.unit_dstrength[u] if s.u_dis[u] else D.unit_strength[u]
        counters.append(Counter(hex=h, side=D.unit_side[u], label=D.unit_ids[u],
                                kind="cavalry" if D.unit_kind[u] else "infantry", color=ARMY_COLOR.get(army),
                                disordered=bool(s.u_dis[u]), values=f"{st}-{D.unit_ma[u]}",
                                marks="A" if s.u_flags[u] & F_IN_ATK else "", highlight=(u == sel)))
    for l, h in enumerate(s.l_hex.tolist()):
        if h >= 0:
            counters.append(Counter(hex=h, side=D.leader_side[l], label=D.leader_names[l][:8], kind="leader",
                                    values=f"{D.leader_value[l]}-{D.leader_ma[l]}",
                                    highlight=(sel == D.n_units + l)))
    for a, h in enumerate(s.a_hex.tolist()):
        if h >= 0:
            o = int(s.a_owner[a])
            counters.append(Counter(hex=h, side=o, label=D.art_ids[a], kind="artillery",
                                    marks="cap" if o != D.art_side[a] else ""))
    return Scene(grid=D.grid, terrain=list(D.hex_terrain_name), terrain_colors=dict(TERRAIN_COLORS),
                 counters=counters, side_names=("Allied", "Imperial"),
                 side_colors=((40, 80, 200), (200, 40, 40)), title="Breitenfeld 1631",
                 tracks=tracks(E, s, viewer), events=list(s.log[-8:]))
