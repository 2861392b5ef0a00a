"""Movement (6.0), command effects on movement (10.33-10.36), disrupted movement (9.15, 9.16, 11.12),
artillery capture by movement (5.32) and leaving the map (11.12, 20.14, pursuit exits).

A move is decided as a destination: :func:`destinations` computes every hex the selected piece can
reach with its Movement Points (Dijkstra over the per-terrain costs, 6.21, 6.24), never entering or
passing an enemy unit (6.12) or another friendly unit (6.31), ending alone (6.32). The path matters in
one case only, capturing an enemy artillery counter by passing through its hex (5.32): an enemy
artillery hex is a stop on the way, so a unit that captures may then continue with its remaining
Movement Points (a second destination decision). Zones of Control never slow movement (6.33); the one
exception (no withdrawal from an enemy ZOC) is decided when the movement phase starts (``F_NOWD``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.jit import kernel
from . import demoralization
from .disruption import eliminate, unit_name
from .state import (F_FORCED, F_MOVED, F_NOWD, F_OOC, G_DEMOR, G_EXITVP0, G_MAY0, G_VIS, G_VIS_OPT, G_VP0, LF_MOVED,
                    OFF_EXIT)
from .zoc import Snap, in_enemy_zoc

EXIT = -100   # pseudo-destination: off the map
UNREACHED = 1 << 30   # cheapest(): the cost of a hex not reached yet
BARRED = -1           # cheapest(): the cost of a hex that may not be entered
NO_HEXES = np.empty(0, np.int32)


def main_army(D, side: int) -> int:
    return next(a for a, sd in enumerate(D.army_side) if sd == side)


def unit_budget(D, s, u: int) -> int:
    """Movement allowance this phase: MP for an undisrupted unit, hexes for a disrupted one."""
    if s.u_dis[u]:
        return D.demoralized_hexes if demoralization.is_demoralized(s, D.unit_army[u]) else D.disrupted_hexes
    div = 1
    if s.u_flags[u] & F_OOC:
        div *= 2                                         # 10.33
    if s.g[G_VIS_OPT] and s.g[G_VIS] >= 1:
        div *= 2                                         # 10.34 (visibility)
    ma = D.unit_ma[u]
    return -(-ma // div)


def exit_mode(D, s, u: int) -> str:
    """How unit ``u`` may leave the map: "pursuit" (scores), "saxon" (20.14), "rout" (11.12) or ""."""
    if not s.g[G_DEMOR]:
        return ""                                        # each way out needs a demoralized army
    side, army = D.unit_side[u], D.unit_army[u]
    if s.u_dis[u]:
        return "rout" if demoralization.is_demoralized(s, army) else ""
    if D.exit_scores:
        own, enemy = main_army(D, side), main_army(D, 1 - side)
        if (demoralization.is_demoralized(s, enemy) and not demoralization.is_demoralized(s, own)
                and not demoralization.is_demoralized(s, army)):
            return "pursuit"
    if D.saxon_exit and D.army_ids[army] == "saxons" and demoralization.is_demoralized(s, army):
        return "saxon"
    return ""


def enemy_art_hexes(D, s, side: int) -> set[int]:
    return {h for h, o in zip(s.a_hex.tolist(), s.a_owner.tolist()) if h >= 0 and o != side}


class Reach(NamedTuple):
    """Where a piece can move this decision: ``hexes`` (in the order the search settles them, its own hex
    excluded) with their MP ``costs`` (hexes moved, for a disrupted unit), and whether it can leave the map."""
    hexes: list[int]
    costs: list[int]
    can_exit: bool

    def cost(self, h: int) -> int:
        return self.costs[self.hexes.index(h)]


def destinations(D, s, snap: Snap, piece: int, budget: int) -> Reach:
    """The :class:`Reach` of ``piece`` (unit index, or n_units + leader) with ``budget`` MP."""
    nu = D.n_units
    if piece >= nu:
        l = piece - nu
        barred = leader_barred(D, snap, D.leader_side[l])
        hexes, costs = cheapest(D, 2, int(s.l_hex[l]), budget, np.fromiter(barred, np.int32, len(barred)), NO_HEXES)
        return Reach(hexes[1:], costs[1:], False)
    u = piece
    side = D.unit_side[u]
    start = snap.uh[u]
    stops = enemy_art_hexes(D, s, side)
    mode = exit_mode(D, s, u)
    if snap.ud[u]:
        best = _routing_reach(D, snap.at, start, budget, side, stops)
        can_exit = mode == "rout" and any(
            D.on_edge[side][h] and c < budget and (h == start or h not in stops) for h, c in best.items())
        del best[start]
        return Reach(list(best), list(best.values()), can_exit)
    # 6.12, 6.31, 6.32: never into another unit; 5.32: capturing stops the move (it may continue after)
    hexes, costs = cheapest(D, D.unit_kind[u], start, budget, s.u_hex, np.array(sorted(stops), dtype=np.int32))
    can_exit = False
    if mode in ("pursuit", "saxon"):
        edge_side = 1 - side if mode == "pursuit" else side
        on = D.on_edge[edge_side]
        can_exit = any(on[h] and c + 1 <= budget and (h == start or h not in stops) for h, c in zip(hexes, costs))
    return Reach(hexes[1:], costs[1:], can_exit)


def cheapest(D, kind: int, start: int, budget: int, barred: np.ndarray, stops: np.ndarray) -> tuple[list[int], list[int]]:
    """Every hex reachable from ``start`` (first, cost 0) for a mover of ``kind`` (infantry, cavalry,
    leader: the rows of ``D.step``) with at most ``budget`` MP, in the order Dijkstra settles them, and
    its cheapest cost. A hex in ``barred`` may not be entered (6.12, 6.31: for a unit, every unit's hex:
    ``u_hex`` itself, whose negative entries are off-map units); a hex in ``stops`` (other than
    ``start``) may be entered but not left (int32 arrays of hexes)."""
    hexes, costs = _settle_costs(D.step_to[kind], D.step_cost[kind], start, budget, barred, stops)
    return hexes.tolist(), costs.tolist()


@kernel
def _settle_costs(step_to, step_cost, start, budget, barred, stops):
    """:func:`cheapest` compiled: Dijkstra with one FIFO queue per cost level (step costs are small
    positive integers). ``step_to[h, d]`` / ``step_cost[h, d]``: the steps out of ``h`` (-1: none).
    Returns the settled hexes and their costs."""
    n = step_to.shape[0]
    cost = np.full(n, UNREACHED, np.int64)
    for h in barred:
        if h >= 0:
            cost[h] = BARRED                             # no step (cost >= 1) improves on it
    stop = np.zeros(n, np.bool_)
    for h in stops:
        stop[h] = True
    cost[start] = 0
    cap = n * step_to.shape[1] + 1                       # every hex is queued at most once per step into it
    queued, after = np.empty(cap, np.int64), np.empty(cap, np.int64)
    head, tail = np.full(budget + 1, -1, np.int64), np.full(budget + 1, -1, np.int64)
    queued[0], after[0], head[0], tail[0] = start, -1, 0, 0
    m = 1
    out_h, out_c = np.empty(n, np.int64), np.empty(n, np.int64)
    k = 0
    for c in range(budget + 1):
        q = head[c]
        while q >= 0:
            h = queued[q]
            q = after[q]
            if cost[h] != c:
                continue                                 # queued by a dearer step, then reached more cheaply
            out_h[k], out_c[k] = h, c
            k += 1
            if c and stop[h]:
                continue
            for d in range(step_to.shape[1]):
                j = step_to[h, d]
                if j < 0:
                    continue
                nc = c + step_cost[h, d]
                if nc <= budget and nc < cost[j]:
                    cost[j] = nc
                    queued[m], after[m] = j, -1
                    if tail[nc] >= 0:
                        after[tail[nc]] = m
                    else:
                        head[nc] = m
                    tail[nc] = m
                    m += 1
    return out_h[:k], out_c[:k]


def leader_barred(D, snap: Snap, side: int) -> set[int]:
    """Hexes a leader of ``side`` may not enter: an enemy unit (6.12), or an enemy ZOC without a friendly
    unit (clarification 10.0: a leader never walks alone into an enemy ZOC)."""
    us, ud, adj = D.unit_side, snap.ud, D.grid.adjacent
    friendly, enemy, enemy_zoc = set(), set(), set()
    for u, h in enumerate(snap.uh):
        if h >= 0:
            if us[u] == side:
                friendly.add(h)
            else:
                enemy.add(h)
                if not ud[u]:
                    enemy_zoc.update(adj[h])
    return enemy | (enemy_zoc - friendly)


def _routing_reach(D, at: list[int], start: int, budget: int, side: int, stops) -> dict[int, int]:
    """9.16 / 11.12: a disrupted unit moves one hex at a time straight toward its friendly edge, terrain
    ignored (9.15); hex -> number of hexes moved (``start`` included, 0)."""
    es = D.edge_step[side]
    best = {start: 0}
    frontier = [start]
    for k in range(1, budget + 1):
        nxt = []
        for h in frontier:
            if h != start and h in stops:
                continue
            for j in es[h]:
                if j not in best and at[j] < 0:
                    best[j] = k
                    nxt.append(j)
        frontier = nxt
    return best


def piece_can_move(D, s, snap: Snap, piece: int, budget: int) -> bool:
    """Cheap test that ``piece`` has at least one destination (a first step exists)."""
    nu = D.n_units
    at, us = snap.at, D.unit_side
    if piece >= nu:
        l = piece - nu
        side = D.leader_side[l]
        for j, k in D.step[2][int(s.l_hex[l])]:
            if k <= budget:
                u = at[j]
                if u >= 0:
                    if us[u] == side:
                        return True
                elif not in_enemy_zoc(D, snap, j, side):
                    return True
        return False
    u = piece
    h = snap.uh[u]
    side = us[u]
    if snap.ud[u]:
        if budget <= 0:
            return False
        if any(at[j] < 0 for j in D.edge_step[side][h]):
            return True
        return D.on_edge[side][h] and exit_mode(D, s, u) == "rout"
    for j, k in D.step[D.unit_kind[u]][h]:
        if k <= budget and at[j] < 0:
            return True
    mode = exit_mode(D, s, u)
    if mode and budget >= 1:
        return D.on_edge[1 - side if mode == "pursuit" else side][h]
    return False


def selectable(D, s, snap: Snap, piece: int, active: int) -> bool:
    """May ``piece`` be picked to move now (6.11, 6.16, 6.17, 6.33, 12.3, 12.4)?"""
    nu = D.n_units
    if piece >= nu:
        l = piece - nu
        if D.leader_corps[l] != active or s.l_hex[l] < 0 or s.l_flags[l] & LF_MOVED:
            return False
        if not s.g[G_MAY0 + D.leader_side[l]]:
            return False
        return piece_can_move(D, s, snap, piece, D.leader_ma[l])
    u = piece
    if D.unit_corps[u] != active or snap.uh[u] < 0 or snap.uf[u] & (F_MOVED | F_NOWD):
        return False
    if not s.g[G_MAY0 + D.unit_side[u]]:
        return False
    return piece_can_move(D, s, snap, u, unit_budget(D, s, u))


def selectable_pieces(D, s, snap: Snap, active: int, pieces, first_only: bool = False) -> list[int]:
    """The pieces of ``pieces`` (the active corps') that may be picked to move now; same test as
    :func:`selectable`, written for the hot loop."""
    g = s.g.tolist()
    side = D.corps_side[active]
    if not g[G_MAY0 + side]:
        return []
    nu = D.n_units
    at, uh, ud, uf = snap.at, snap.uh, snap.ud, snap.uf
    us = D.unit_side
    div = 2 if g[G_VIS_OPT] and g[G_VIS] >= 1 else 1
    demor = g[G_DEMOR]
    lh = s.l_hex.tolist()
    lf = s.l_flags.tolist()
    out = []
    for p in pieces:
        if p >= nu:
            l = p - nu
            h = lh[l]
            if h < 0 or lf[l] & LF_MOVED:
                continue
            ma = D.leader_ma[l]
            for j, k in D.step[2][h]:
                if k <= ma:
                    u = at[j]
                    if (u >= 0 and us[u] == side) or (u < 0 and not in_enemy_zoc(D, snap, j, side)):
                        out.append(p)
                        break
        else:
            h = uh[p]
            if h < 0 or uf[p] & (F_MOVED | F_NOWD):
                continue
            ok = False
            if ud[p]:
                if any(at[j] < 0 for j in D.edge_step[side][h]):
                    ok = True
                elif D.on_edge[side][h] and demor >> D.unit_army[p] & 1:
                    ok = True
            else:
                d = div * 2 if uf[p] & F_OOC else div
                budget = -(-D.unit_ma[p] // d)
                for j, k in D.step[D.unit_kind[p]][h]:
                    if k <= budget and at[j] < 0:
                        ok = True
                        break
                if not ok:
                    mode = exit_mode(D, s, p)
                    ok = bool(mode) and D.on_edge[1 - side if mode == "pursuit" else side][h]
            if ok:
                out.append(p)
        if out and first_only:
            return out
    return out


def start_phase_flags(D, s, snap: Snap, corps: int) -> None:
    """At the start of the movement phase: no-withdrawal (6.33), forced rout (11.12), start hexes."""
    for u in D.corps_units[corps]:
        f = int(s.u_flags[u]) & ~(F_NOWD | F_FORCED)
        h = snap.uh[u]
        s.u_start[u] = h
        if h >= 0:
            side = D.unit_side[u]
            if snap.ud[u]:
                if demoralization.is_demoralized(s, D.unit_army[u]):
                    f |= F_FORCED
            else:
                # 6.33: infantry in any enemy ZOC, cavalry in an enemy cavalry ZOC, may not withdraw
                from .zoc import enemy_zoc_kinds
                inf, cav = enemy_zoc_kinds(D, snap, h, side)
                if cav or (inf and D.unit_kind[u] == 0):
                    f |= F_NOWD
        s.u_flags[u] = f


def capture_artillery(D, s, h: int, side: int, who: str) -> bool:
    """5.32: the enemy guns in hex ``h`` become ``side``'s; True if there was one."""
    captured = False
    for a, (ah, o) in enumerate(zip(s.a_hex.tolist(), s.a_owner.tolist())):
        if ah == h and o != side:
            s.a_owner[a] = side
            s.log.append(f"{who} captures the artillery {D.art_ids[a]} at {D.grid.ids[h]} [5.32]")
            captured = True
    return captured


def leave_map(D, s, u: int) -> None:
    mode = exit_mode(D, s, u)
    name = unit_name(D, s, u)
    side = D.unit_side[u]
    if mode == "pursuit":
        s.u_hex[u] = OFF_EXIT
        s.g[G_VP0 + side] += D.unit_strength[u]
        s.g[G_EXITVP0 + side] += D.unit_strength[u]
        s.log.append(f"{name} leaves the map through the demoralized enemy's rear edge: +{D.unit_strength[u]} VP")
    elif mode == "saxon":
        s.u_hex[u] = OFF_EXIT
        s.log.append(f"{name} (demoralized Saxons) leaves the map by its friendly edge, no victory points [20.14]")
    else:  # rout
        saxon = D.saxon_exit and D.army_ids[D.unit_army[u]] == "saxons"
        eliminate(D, s, u, "moved off the map [11.12]" + (", no victory points [20.14]" if saxon else ""),
                  score=not saxon)
