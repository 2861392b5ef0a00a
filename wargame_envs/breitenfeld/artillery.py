"""Artillery (5.0): targets in range and Line of Sight (5.2), the Artillery Fire Table (5.1), and the
simultaneous Mutual Artillery Fire Phase (reference rule decision 4).

Line of sight (5.21-5.26): the straight line between hex centres; an intervening hex blocks if it is
woods, town or hilltop or holds any unit or artillery counter (5.23); where the line runs along a
hexside it is blocked only if both hexes block (5.22); the end hexes never block (5.26). A gun on a
hilltop ignores blocking hexes less than half the range from the target hex (5.24, read as printed), and
fires at any unit on a hilltop hex at any range unless a unit, artillery counter or woods in an
intervening hilltop hex is in the way (5.25).
"""

from __future__ import annotations

import numpy as np

from ..core.hexgrid import line_step
from ..core.jit import kernel
from .disruption import disrupt, unit_name
from .state import G_MAY0, G_VIS, G_VIS_OPT
from .zoc import Snap


def max_range(D, s) -> int:
    r = D.art_fire[-1][0]
    if s.g[G_VIS_OPT] and s.g[G_VIS] == 2:
        r = min(r, D.vis_restricted_range)
    return r


def blocking_planes(D, s) -> tuple[np.ndarray, np.ndarray]:
    """(hexes that block a line of sight between its ends, hexes holding a unit or an artillery counter)
    as bool arrays (5.23)."""
    occupied = np.zeros(D.grid.n, dtype=np.bool_)
    occupied[s.u_hex[s.u_hex >= 0]] = True
    occupied[s.a_hex[s.a_hex >= 0]] = True
    return occupied | D.blocks_los_array, occupied


def targets(D, s, a: int, planes: tuple[np.ndarray, np.ndarray] | None = None) -> list[tuple[int, int]]:
    """[(target hex, range)] that artillery ``a`` may bombard now (``planes``: :func:`blocking_planes`)."""
    h0 = int(s.a_hex[a])
    if h0 < 0:
        return []
    blocked, occupied = planes or blocking_planes(D, s)
    g = D.grid
    hexes, ranges = _targets(h0, int(s.a_owner[a]), max_range(D, s), bool(s.g[G_VIS_OPT] and s.g[G_VIS] == 2),
                             s.u_hex, D.unit_side_array, blocked, occupied, D.hilltop_array, D.woods_array, g.dist,
                             g.axial, g.axial_index, g.axial_origin)
    return sorted(zip(hexes.tolist(), ranges.tolist()))


@kernel
def _targets(h0, side, rmax, restricted, unit_hex, unit_side, blocked, occupied, hilltop, woods, dist, axial,
             axial_index, origin):
    """:func:`targets` compiled: every enemy unit in range with a line of sight (5.2; ``restricted``: the
    restricted visibility, which also limits hilltop-to-hilltop fire); (hexes, ranges) per unit."""
    hexes, ranges = np.empty(unit_hex.size, np.int64), np.empty(unit_hex.size, np.int64)
    cells = np.empty(2, np.int64)
    m = 0
    for u in range(unit_hex.size):
        h = unit_hex[u]
        if h < 0 or unit_side[u] == side:
            continue
        d = dist[h0, h]
        if hilltop[h0] and hilltop[h]:
            if (d <= rmax or not restricted) and _hill_los(h0, h, d, occupied, hilltop, woods, axial, axial_index,
                                                           origin, cells):
                hexes[m], ranges[m] = h, d
                m += 1
        elif 1 <= d <= rmax and _los(h0, h, d, blocked, hilltop, dist, axial, axial_index, origin, cells):
            hexes[m], ranges[m] = h, d
            m += 1
    return hexes[:m], ranges[:m]


@kernel
def _los(a, b, d, blocked, hilltop, dist, axial, axial_index, origin, cells):
    """5.21-5.24, 5.26 from hex ``a`` to hex ``b`` (``d`` apart): blocked where every hex of a step of the
    line blocks (one hex, or both of a hexside the line runs along: 5.22); the end hexes never block; a
    gun on a hilltop ignores the steps less than half the range from the target (5.24)."""
    for k in range(1, d):
        m = line_step(axial, axial_index, origin, a, b, d, k, cells)
        if m == 0:
            continue
        if hilltop[a] and (2 * dist[cells[0], b] < d or (m == 2 and 2 * dist[cells[1], b] < d)):
            continue
        if blocked[cells[0]] and (m == 1 or blocked[cells[1]]):
            return False
    return True


@kernel
def _hill_los(a, b, d, occupied, hilltop, woods, axial, axial_index, origin, cells):
    """5.25: hilltop to hilltop, only a unit, an artillery counter or woods in an intervening hilltop hex
    blocks (every hex of a step must)."""
    for k in range(1, d):
        m = line_step(axial, axial_index, origin, a, b, d, k, cells)
        if m == 0:
            continue
        blocks = True
        for i in range(m):
            c = cells[i]
            if not (hilltop[c] and (occupied[c] or woods[c])):
                blocks = False
        if blocks:
            return False
    return True


def fire_threshold(D, rng: int) -> int:
    for mr, thr in D.art_fire:
        if rng <= mr:
            return thr
    return D.art_fire[-1][1]                       # 5.25 beyond the last column


def resolve_fire(D, s, dice) -> None:
    """Roll every assigned shot (Allied first, then Imperial) and apply the results (5.0)."""
    snap = Snap(D, s)
    dist = D.grid.dist
    for side in (0, 1):
        for a in range(D.n_art):
            t = int(s.a_target[a])
            if t < 0 or s.a_owner[a] != side:
                continue
            s.a_target[a] = -1
            u = snap.at[t]
            if u < 0:
                continue
            rng = int(dist[int(s.a_hex[a]), t])
            thr = fire_threshold(D, rng)
            die = dice.roll(6)
            name = unit_name(D, s, u)
            if die <= thr:
                res = disrupt(D, s, u, "artillery", can_eliminate=False)
                if res == "disrupted" and side == 1:
                    s.g[G_MAY0] = 1               # 12.4: an Allied unit disrupted by Imperial artillery
                txt = "disrupted" if res == "disrupted" else "already disrupted, no effect [5.35]"
            else:
                txt = "no effect"
            s.log.append(f"Artillery {D.art_ids[a]} at {D.grid.ids[int(s.a_hex[a])]} fires at {name} "
                         f"(range {rng}, hits on 1-{thr}): die {die} -> {txt} [5.1]")
