"""Precomputed map geometry of one scenario: neighbours by direction, step costs, range-2 fire
geometry (directions, intervening hexes, terrain line of sight) and long-range visibility (15.2).

Facing (6.0): a unit faces vertex ``f`` (0..5); the vertex lies between neighbour directions ``f`` and
``f+1``. Frontal hexes: directions ``f, f+1``; flank: ``f+2, f+5``; rear: ``f+3, f+4``.
"""

from __future__ import annotations

import numpy as np

from ..core.hexgrid import AXIAL_DIRECTIONS
from .data import RIVER, SLOPE, STEEP, Scenario

FRONT, FLANK, REAR = 0, 1, 2
FRONT_DIRS = tuple((f, (f + 1) % 6) for f in range(6))
# screen angle of each facing vertex (0 = east, counter-clockwise), for rendering
FACING_DEG = tuple(60.0 * f for f in range(6))
# type classes for movement costs
CLS_HM, CLS_L, CLS_LEG = 0, 1, 2


def geometry_for(sc: Scenario) -> "Geometry":
    """The geometry of a scenario, built once and shared by every engine (and env) of the process."""
    g = getattr(sc, "_geometry", None)
    if g is None:
        g = Geometry(sc)
        object.__setattr__(sc, "_geometry", g)
    return g


class Geometry:
    def __init__(self, sc: Scenario):
        g = sc.grid
        n = g.n
        self.n = n
        self.nbr: tuple[tuple[int, ...], ...] = tuple(tuple(int(x) for x in row) for row in g.neighbors)
        self.adj = g.adjacent
        self.elev = sc.elev
        self.woods = sc.woods
        hs = g.hexside
        self.hexside = tuple(tuple(int(x) for x in row) for row in hs)
        te = sc.terrain
        # step_cost[cls][h][d]: MP to step from h in direction d (-1: impossible)
        costs = []
        for cls in (CLS_HM, CLS_L, CLS_LEG):
            woods_cost = (te["woods_cost_horse_hm"], te["woods_cost_light"], te["woods_cost_leg"])[cls]
            per_hex = []
            for h in range(n):
                row = []
                for d in range(6):
                    t = self.nbr[h][d]
                    if t < 0 or self.hexside[h][d] == RIVER:
                        row.append(-1)
                        continue
                    c = woods_cost if sc.woods[t] else te["clear_cost"]
                    f = self.hexside[h][d]
                    up = sc.elev[t] > sc.elev[h]
                    if f == SLOPE and up:
                        c += te["slope_up_cost"]
                    elif f == STEEP:
                        c += (te["steep_up_cost_hm"] if cls == CLS_HM else te["steep_up_cost_other"]) if up else te["steep_down_cost"]
                    row.append(c)
                per_hex.append(tuple(row))
            costs.append(tuple(per_hex))
        self.step_cost = tuple(costs)
        # range 1-2: near[h] = ((t, dist, dirs_tuple, mids_tuple), ...)
        axial = [tuple(int(v) for v in a) for a in g.axial]
        by_axial = {a: i for i, a in enumerate(axial)}
        near = []
        los_terrain = []
        for h in range(n):
            q, r = axial[h]
            entries, los = [], {}
            for d in range(6):
                t = self.nbr[h][d]
                if t >= 0:
                    entries.append((t, 1, (d,), ()))
                    los[t] = True
            for d in range(6):
                for e in (d, (d + 1) % 6):
                    dq = AXIAL_DIRECTIONS[d][0] + AXIAL_DIRECTIONS[e][0]
                    dr = AXIAL_DIRECTIONS[d][1] + AXIAL_DIRECTIONS[e][1]
                    t = by_axial.get((q + dq, r + dr), -1)
                    if t < 0:
                        continue
                    if e == d:
                        mids = tuple(x for x in (self.nbr[h][d],) if x >= 0)
                        dirs = (d,)
                    else:
                        mids = tuple(x for x in (self.nbr[h][d], self.nbr[h][e]) if x >= 0)
                        dirs = (d, e)
                    entries.append((t, 2, dirs, mids))
                    # 9.4: blocked by an intervening woods hex or one higher than both ends; where the line
                    # runs along a hexside between two hexes, it is blocked only if both block.
                    top = max(sc.elev[h], sc.elev[t])
                    blocks = [sc.woods[m] or sc.elev[m] > top for m in mids]
                    los[t] = not (blocks and all(blocks))
            near.append(tuple(entries))
            los_terrain.append(los)
        self.near = tuple(near)
        self.los_terrain = tuple(los_terrain)
        # direction(s) from a hex to a hex at range <= 2, as seen from the first
        self.dirs_to = tuple({t: dirs for (t, _, dirs, _) in near[h]} for h in range(n))
        self.dist = g.dist
        self._axial = np.asarray(axial, dtype=np.int64)
        qmin, rmin = self._axial.min(axis=0)
        qmax, rmax = self._axial.max(axis=0)
        self._qmin, self._rmin = int(qmin), int(rmin)
        lookup = np.full((int(qmax - qmin) + 3, int(rmax - rmin) + 3), -1, dtype=np.int64)
        lookup[self._axial[:, 0] - qmin + 1, self._axial[:, 1] - rmin + 1] = np.arange(n)
        self._lookup = lookup
        self._elev = np.asarray(sc.elev, dtype=np.int64)
        self._woods = np.asarray(sc.woods, dtype=bool)
        self._vis_cache: dict[int, np.ndarray] = {}
        self.dist_rows: dict[int, tuple[int, ...]] = {}
        # front_nb[h][f]: the two frontal neighbours (or -1) of hex h for facing f
        self.front_nb = tuple(tuple((self.nbr[h][a], self.nbr[h][b]) for (a, b) in FRONT_DIRS) for h in range(n))

    # ------------------------------------------------------------------ facing
    def frontal(self, h: int, face: int) -> tuple[int, int]:
        a, b = FRONT_DIRS[face]
        return self.nbr[h][a], self.nbr[h][b]

    # -------------------------------------------------------------- visibility
    def visible_from(self, src: int) -> np.ndarray:
        """Bool array: hexes with an unblocked terrain LOS from ``src`` (9.4 woods and elevation,
        any range; used for the Ambush Regiment, 15.2). Cached per source hex."""
        v = self._vis_cache.get(src)
        if v is not None:
            return v
        n = self.n
        a = self._axial
        q1, r1 = a[src]
        q2, r2 = a[:, 0].astype(float), a[:, 1].astype(float)
        dist = np.asarray(self.dist[src], dtype=np.int64)
        top = np.maximum(self._elev[src], self._elev)
        blocked = np.zeros(n, dtype=bool)
        for k in range(1, int(dist.max())):
            live = dist > k
            if not live.any():
                break
            t = np.where(live, k / np.maximum(dist, 1), 0.0)
            flags = []
            for eps in (1e-6, -1e-6):
                q = q1 + (q2 - q1) * t + eps
                r = r1 + (r2 - r1) * t + 2 * eps
                s = -q - r
                rq, rr, rs = np.round(q), np.round(r), np.round(s)
                dq, dr, ds = np.abs(rq - q), np.abs(rr - r), np.abs(rs - s)
                fix_q = (dq > dr) & (dq > ds)
                fix_r = ~fix_q & (dr > ds)
                rq = np.where(fix_q, -rr - rs, rq)
                rr = np.where(fix_r, -rq - rs, rr)
                qi = rq.astype(np.int64) - self._qmin + 1
                ri = rr.astype(np.int64) - self._rmin + 1
                ok = (qi >= 0) & (qi < self._lookup.shape[0]) & (ri >= 0) & (ri < self._lookup.shape[1])
                idx = np.where(ok, self._lookup[np.clip(qi, 0, self._lookup.shape[0] - 1),
                                                np.clip(ri, 0, self._lookup.shape[1] - 1)], -1)
                on = idx >= 0
                safe = np.where(on, idx, 0)
                blk = on & (self._woods[safe] | (self._elev[safe] > top))
                flags.append((blk, on))
            (b1, o1), (b2, o2) = flags
            # both candidate hexes block (a line along a hexside), or the only on-map one blocks
            both = np.where(o1 & o2, b1 & b2, b1 | b2)
            blocked |= live & both
        vis = ~blocked
        vis.setflags(write=False)
        self._vis_cache[src] = vis
        return vis
