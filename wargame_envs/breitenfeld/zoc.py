"""Zones of Control (7.0) and a cheap snapshot of where the units are.

A :class:`Snap` copies the unit arrays into Python lists once (``.tolist()``) and builds ``at[hex]`` =
unit index or -1, so the hot loops (movement, combat obligations, artillery line of sight) read
plain Python values. Only undisrupted units exert a ZOC (7.22, 9.12), into the six surrounding hexes
(7.1); there are no rivers on this map (12.10), so 7.13 never cuts a ZOC.
"""

from __future__ import annotations

from .state import F_IN_ATK


# (unit hexes, at-list, map size) of the last snapshot: consecutive snapshots mostly see the same hexes.
# The at-list is never mutated after it is built, so sharing it is safe.
_AT_CACHE: list = [None, None, 0]


class Snap:
    __slots__ = ("uh", "ud", "uf", "at")

    def __init__(self, D, s):
        self.uh = uh = s.u_hex.tolist()
        self.ud = s.u_dis.tolist()
        self.uf = s.u_flags.tolist()
        key = tuple(uh)
        if key == _AT_CACHE[0] and _AT_CACHE[2] == D.grid.n:
            self.at = _AT_CACHE[1]
            return
        at = [-1] * D.grid.n
        for u, h in enumerate(uh):
            if h >= 0:
                at[h] = u
        self.at = at
        _AT_CACHE[:] = [key, at, D.grid.n]


def in_enemy_zoc(D, snap: Snap, h: int, side: int) -> bool:
    """True if hex ``h`` is controlled by an undisrupted unit of the side opposing ``side`` (7.11)."""
    at, ud, us = snap.at, snap.ud, D.unit_side
    for j in D.grid.adjacent[h]:
        u = at[j]
        if u >= 0 and us[u] != side and not ud[u]:
            return True
    return False


def enemy_zoc_kinds(D, snap: Snap, h: int, side: int) -> tuple[bool, bool]:
    """(controlled by enemy infantry, controlled by enemy cavalry) for 6.33."""
    inf = cav = False
    at, ud, us, uk = snap.at, snap.ud, D.unit_side, D.unit_kind
    for j in D.grid.adjacent[h]:
        u = at[j]
        if u >= 0 and us[u] != side and not ud[u]:
            if uk[u]:
                cav = True
            else:
                inf = True
    return inf, cav


def zoc_plane(D, snap: Snap, side: int) -> list[bool]:
    """Per hex: controlled by an undisrupted unit of ``side``."""
    out = [False] * D.grid.n
    adj = D.grid.adjacent
    for u, h in enumerate(snap.uh):
        if h >= 0 and not snap.ud[u] and D.unit_side[u] == side:
            for j in adj[h]:
                out[j] = True
    return out


def attack_members(snap: Snap) -> list[int]:
    return [u for u, f in enumerate(snap.uf) if f & F_IN_ATK]
