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

from .disruption import disrupt, unit_name
from .state import G_MAY0, G_VIS, G_VIS_OPT
from .zoc import Snap


class LineCache:
    """Intervening cells of the line between two hexes, computed once per pair (artillery never moves).

    ``groups(a, b)`` returns one tuple per step of the line: one hex, or the two hexes of a hexside the
    line runs along (5.22). For a gun on a hilltop (5.24) the steps less than half the range from the
    target are dropped, since nothing there can block.
    """

    def __init__(self, D):
        self.D = D
        self.grid = D.grid
        self.cache: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}

    def cells(self, a: int, b: int) -> tuple[tuple[int, ...], ...]:
        key = (a, b, 0)
        c = self.cache.get(key)
        if c is None:
            c = tuple(tuple(x) for x in self.grid.line(a, b)[1:-1] if x)
            self.cache[key] = c
        return c

    def groups(self, a: int, b: int) -> tuple[tuple[int, ...], ...]:
        key = (a, b, 1)
        c = self.cache.get(key)
        if c is None:
            c = self.cells(a, b)
            if self.D.is_hilltop[a]:
                dist = self.grid.dist
                d = int(dist[a, b])
                c = tuple(grp for grp in c if all(2 * int(dist[x, b]) >= d for x in grp))   # 5.24
            self.cache[key] = c
        return c


def line_cache(D) -> LineCache:
    """The :class:`LineCache` of these data, shared by all their engines (lines never change)."""
    if D.line_cache is None:
        D.line_cache = LineCache(D)
    return D.line_cache


def max_range(D, s) -> int:
    r = D.art_fire[-1][0]
    if s.g[G_VIS_OPT] and s.g[G_VIS] == 2:
        r = min(r, D.vis_restricted_range)
    return r


def has_los(D, lines: LineCache, blocked: list[bool], a: int, b: int, dist: int = 0) -> bool:
    """5.21-5.24, 5.26 from hex ``a`` to hex ``b``."""
    for grp in lines.groups(a, b):
        for c in grp:
            if not blocked[c]:
                break
        else:
            return False                           # every hex of this step blocks (5.22)
    return True


def has_hill_los(D, lines: LineCache, occupied: list[bool], a: int, b: int) -> bool:
    """5.25: hilltop to hilltop; only units, artillery or woods in intervening hilltop hexes block."""
    for cells in lines.cells(a, b):
        flags = [D.is_hilltop[c] and (occupied[c] or D.hex_terrain_name[c] == "woods") for c in cells]
        if flags and all(flags):
            return False
    return True


def blocking_planes(D, s, snap: Snap) -> tuple[list[bool], list[bool]]:
    occupied = [u >= 0 for u in snap.at]
    for h in s.a_hex.tolist():
        if h >= 0:
            occupied[h] = True
    blocked = [o or t for o, t in zip(occupied, D.blocks_los)]
    return blocked, occupied


def targets(D, s, snap: Snap, lines: LineCache, a: int, planes=None) -> list[tuple[int, int]]:
    """[(target hex, range)] that artillery ``a`` may bombard now."""
    h0 = int(s.a_hex[a])
    if h0 < 0:
        return []
    side = int(s.a_owner[a])
    blocked, occupied = planes or blocking_planes(D, s, snap)
    rmax = max_range(D, s)
    drow = D.grid.dist[h0].tolist()
    hill0 = D.is_hilltop[h0]
    out = []
    for u, h in enumerate(snap.uh):
        if h < 0 or D.unit_side[u] == side:
            continue
        d = drow[h]
        if hill0 and D.is_hilltop[h]:
            if d <= rmax or not (s.g[G_VIS_OPT] and s.g[G_VIS] == 2):
                if has_hill_los(D, lines, occupied, h0, h):
                    out.append((h, d))
            continue
        if 1 <= d <= rmax and has_los(D, lines, blocked, h0, h, d):
            out.append((h, d))
    out.sort()
    return out


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
