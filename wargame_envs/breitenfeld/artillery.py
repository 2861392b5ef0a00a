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

from ..core.chance import roll
from ..core.events import emit
from ..core.hexgrid import line_step
from ..core.jit import kernel
from .disruption import disrupt
from .events import DISRUPT_DISRUPTED, EV_FIRE, FIRE_DISRUPTED, FIRE_MISS, FIRE_NO_EFFECT, R_ARTILLERY
from .state import G_MAY0, G_VIS, G_VIS_OPT
from .tables import fields, unit_at


@kernel
def max_range(T, g):
    """The longest range of the Artillery Fire Table, or the restricted-visibility limit (10.34)."""
    r = T.art_fire[T.art_fire.shape[0] - 1, 0]
    if g[G_VIS_OPT] and g[G_VIS] == 2:
        r = min(r, T.vis_restricted_range)
    return r


@kernel
def targets(buf, T, a, out):
    """5.2: the hexes of the enemy units artillery ``a`` may bombard now, written to ``out``; their
    number returned (in unit order)."""
    u_hex, _, _, _, _, _, a_hex, a_owner, _, _, g = fields(buf, T)
    h0 = a_hex[a]
    if h0 < 0:
        return 0
    occupied = np.zeros(T.nh, np.bool_)                  # 5.23: a unit or an artillery counter
    for u in range(T.nu):
        if u_hex[u] >= 0:
            occupied[u_hex[u]] = True
    for k in range(T.na):
        if a_hex[k] >= 0:
            occupied[a_hex[k]] = True
    blocked = occupied.copy()
    for h in range(T.nh):
        if T.blocks_los[h]:
            blocked[h] = True
    side = a_owner[a]
    rmax = max_range(T, g)
    restricted = g[G_VIS_OPT] != 0 and g[G_VIS] == 2
    cells = np.empty(2, np.int64)
    m = 0
    for u in range(T.nu):
        h = u_hex[u]
        if h < 0 or T.unit_side[u] == side:
            continue
        d = T.dist[h0, h]
        if T.hilltop[h0] and T.hilltop[h]:
            if (d <= rmax or not restricted) and hill_los(T, h0, h, d, occupied, cells):
                out[m] = h
                m += 1
        elif 1 <= d <= rmax and los(T, h0, h, d, blocked, cells):
            out[m] = h
            m += 1
    return m


#: points sampled per hex of a line of sight: a hex whose corner the straight edge cuts intervenes too (5.21)
LOS_SAMPLES = 16


@kernel
def line_blocked(T, a, b, d, block, cells):
    """Whether the line of sight from hex ``a`` to hex ``b`` (``d`` apart) meets a point where every hex blocks
    (``block[hex]``; one hex, or both of a hexside the line runs along: 5.22). The line is sampled
    :data:`LOS_SAMPLES` times a hex, so that a hex it only crosses at a corner intervenes as well (a
    straight-edge laid across the map, 5.21); the end hexes never block (5.26)."""
    n = d * LOS_SAMPLES
    for k in range(1, n):
        m = line_step(T.axial, T.axial_index, T.axial_origin, a, b, n, k, cells)
        every = m > 0
        for i in range(m):
            c = cells[i]
            if c == a or c == b or not block[c]:
                every = False
        if every:
            return True
    return False


@kernel
def los(T, a, b, d, blocked, cells):
    """5.21-5.24, 5.26 from hex ``a`` to hex ``b``: no blocking hex on the line (:func:`line_blocked`); a gun on a
    hilltop ignores the hexes less than half the range from the target (5.24)."""
    if not T.hilltop[a]:
        return not line_blocked(T, a, b, d, blocked, cells)
    far = blocked.copy()
    for h in range(T.nh):
        if 2 * T.dist[h, b] < d:
            far[h] = False
    return not line_blocked(T, a, b, d, far, cells)


@kernel
def hill_los(T, a, b, d, occupied, cells):
    """5.25: hilltop to hilltop, only a unit, an artillery counter or woods in an intervening hilltop hex
    blocks."""
    block = np.zeros(T.nh, np.bool_)
    for h in range(T.nh):
        block[h] = T.hilltop[h] and (occupied[h] or T.woods[h])
    return not line_blocked(T, a, b, d, block, cells)


@kernel
def fire_threshold(T, rng):
    """5.1: the highest die that disrupts at range ``rng`` (5.25: beyond the last column, its value)."""
    for i in range(T.art_fire.shape[0]):
        if rng <= T.art_fire[i, 0]:
            return T.art_fire[i, 1]
    return T.art_fire[T.art_fire.shape[0] - 1, 1]


@kernel
def resolve_fire(buf, T, dv, ds, ev, evn):
    """5.0: roll every assigned shot (Allied first, then Imperial) and apply the results; artillery never
    eliminates (5.35); an Allied unit disrupted by Imperial artillery releases the Allies (12.4)."""
    u_hex, _, _, _, _, _, a_hex, a_owner, a_target, _, g = fields(buf, T)
    at = unit_at(u_hex, T.nh)
    for side in range(2):
        for a in range(T.na):
            t = a_target[a]
            if t < 0 or a_owner[a] != side:
                continue
            a_target[a] = -1
            u = at[t]
            if u < 0:
                continue
            rng = T.dist[a_hex[a], t]
            thr = fire_threshold(T, rng)
            die = roll(dv, ds, 6, 1)
            txt = FIRE_MISS
            if die <= thr:
                res = disrupt(buf, T, u, R_ARTILLERY, False, ev, evn)
                if res == DISRUPT_DISRUPTED:
                    txt = FIRE_DISRUPTED
                    if side == 1:
                        g[G_MAY0] = 1                    # 12.4
                else:
                    txt = FIRE_NO_EFFECT
            emit(ev, evn, EV_FIRE, a, u, 16 * t + thr, 64 * a_hex[a] + 4 * die + txt)
