"""Zones of Control (7.0) and a cheap snapshot of where the units are.

A :class:`Snap` copies the unit arrays into Python lists once (``.tolist()``) and builds ``at[hex]`` =
unit index or -1, so the hot loops (movement, combat obligations, artillery line of sight) read
plain Python values. Only undisrupted units exert a ZOC (7.22, 9.12), into the six surrounding hexes
(7.1); there are no rivers on this map (12.10), so 7.13 never cuts a ZOC.

``Snap(D, s)`` is memoised on the bytes of the unit arrays: a rules call, the next phase step and the
next mask mostly look at the same units, and a snapshot is a value that no caller changes, so equal
arrays may share it, whichever state (or clone) they come from.
"""

from __future__ import annotations

from .state import F_IN_ATK

SNAP_CACHE_SIZE = 16


class Snap:
    """Read-only view of the unit arrays: ``uh``, ``ud``, ``uf`` (lists), ``at[hex]`` (unit or -1).
    Never modify its lists: equal unit arrays share one snapshot."""

    __slots__ = ("uh", "ud", "uf", "at")

    def __new__(cls, D, s):
        n = D.n_units
        key = s.buf[:3 * n].tobytes()       # u_hex, u_dis, u_flags: the state's first three fields
        cache = D.snap_cache
        snap = cache.get(key)
        if snap is None:
            last = cache[next(reversed(cache))] if cache else None
            if len(cache) >= SNAP_CACHE_SIZE:
                del cache[next(iter(cache))]     # the oldest
            snap = object.__new__(cls)
            snap._fill(D, s, last)
            cache[key] = snap
        return snap

    def _fill(self, D, s, last: Snap | None) -> None:
        n = D.n_units
        units = s.buf[:3 * n].tolist()
        self.uh = uh = units[:n]
        self.ud = units[n:2 * n]
        self.uf = units[2 * n:]
        if last is not None and last.uh == uh:       # often only flags changed: share what hexes give
            self.at = last.at
            return
        at = [-1] * D.grid.n
        for u, h in enumerate(uh):
            if h >= 0:
                at[h] = u
        self.at = at


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


def attack_members(snap: Snap) -> list[int]:
    return [u for u, f in enumerate(snap.uf) if f & F_IN_ATK]
