"""Zones of Control (7.0), compiled, and a plain Python view of where the units are.

Only undisrupted units exert a ZOC (7.22, 9.12), into the six surrounding hexes (7.1); there are no
rivers on this map (12.10), so 7.13 never cuts a ZOC. The kernels take ``at`` (``tables.unit_at``: the
unit in each hex) and the unit arrays.

:class:`Snap` is a read-only Python view of the unit arrays (``uh``, ``ud``, ``uf`` lists and ``at``) for
code that reads positions in Python (the scripted agent, action texts); the rules never use it.
"""

from __future__ import annotations

from ..core.jit import kernel


@kernel
def in_enemy_zoc(T, at, u_dis, h, side):
    """7.11: hex ``h`` is controlled by an undisrupted unit of the side opposing ``side``."""
    for d in range(6):
        j = T.neighbors[h, d]
        if j >= 0:
            u = at[j]
            if u >= 0 and T.unit_side[u] != side and u_dis[u] == 0:
                return True
    return False


@kernel
def enemy_zoc_kinds(T, at, u_dis, h, side):
    """(controlled by enemy infantry, controlled by enemy cavalry), for 6.33."""
    inf = cav = False
    for d in range(6):
        j = T.neighbors[h, d]
        if j >= 0:
            u = at[j]
            if u >= 0 and T.unit_side[u] != side and u_dis[u] == 0:
                if T.unit_kind[u]:
                    cav = True
                else:
                    inf = True
    return inf, cav


class Snap:
    """The unit arrays as Python lists (``uh``, ``ud``, ``uf``) and ``at[hex]`` (unit or -1)."""

    __slots__ = ("uh", "ud", "uf", "at")

    def __init__(self, D, s):
        self.uh = uh = s.u_hex.tolist()
        self.ud = s.u_dis.tolist()
        self.uf = s.u_flags.tolist()
        at = [-1] * D.grid.n
        for u, h in enumerate(uh):
            if h >= 0:
                at[h] = u
        self.at = at
