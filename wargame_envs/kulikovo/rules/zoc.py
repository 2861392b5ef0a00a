"""Zones of control (7.0) and adjacency, as the compiled rules read them.

``c.zc[p, h]`` counts the enemy units (of ``1 - p``) exerting a ZOC on hex ``h`` against player ``p``,
``c.zu[p, h, :count]`` lists them (by unit index): every unit but Regular Infantry (R) and Retired units
exerts a ZOC into its two frontal hexes. :func:`zoc_fill` recomputes them from the board; callers fill
the side they read right before reading it.
"""

from __future__ import annotations

from ...core.jit import kernel
from ..state import RETIRED


@kernel
def zoc_fill(c, T, p):
    """7.0: the ZOC against player ``p`` into ``c.zc[p]`` / ``c.zu[p]``."""
    zc = c.zc[p]
    zu = c.zu[p]
    zc[:] = 0
    q = 1 - p
    u_hex, u_face, u_status, uzoc, front_nb = c.u_hex, c.u_face, c.u_status, T.uzoc, T.front_nb
    for u in range(T.side_ufirst[q], T.side_uend[q]):
        h = u_hex[u]
        if h < 0 or not uzoc[u] or u_status[u] >= RETIRED:
            continue
        f = u_face[u]
        for k in range(2):
            t = front_nb[h, f, k]
            if t >= 0:
                zu[t, zc[t]] = u
                zc[t] += 1


@kernel
def adjacent(T, a, b):
    """Hex ``b`` is next to hex ``a`` (distance 1; ``b`` -1: no). Read from the neighbour table, a cache line,
    rather than the distance matrix, a row of 2 KB per hex."""
    if b < 0:
        return False
    for d in range(6):
        if T.nbr[a, d] == b:
            return True
    return False


@kernel
def adjacent_enemy(c, T, p, h):
    """An enemy unit (of ``1 - p``) next to hex ``h``."""
    for d in range(6):
        t = T.nbr[h, d]
        if t >= 0:
            v = c.hex_unit[t]
            if v >= 0 and T.uplayer[v] != p:
                return True
    return False
