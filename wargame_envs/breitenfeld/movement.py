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

from ..core.events import emit
from ..core.jit import kernel
from .demoralization import is_demoralized
from .disruption import eliminate
from .events import EV_CAPTURED, EV_MOVED, EV_PURSUIT_EXIT, EV_RELEASED, EV_SAXON_EXIT, WHY_ROUT, WHY_ROUT_SAXON
from .leaders import check_leaders
from .state import (F_FORCED, F_MOVED, F_NOWD, F_OOC, G_DEMOR, G_EXITVP0, G_MAY0, G_MP, G_VIS, G_VIS_OPT, G_VP0,
                    LF_MOVED, OFF_EXIT)
from .tables import (W_AFTER, W_AT, W_BARRED, W_BEST, W_COST, W_HEAD, W_QUEUED, W_STOP, W_TAIL, block, blocks, fields,
                     place_units, unit_at)
from .zoc import enemy_zoc_kinds, in_enemy_zoc

UNREACHED = 1 << 30   # the cost of a hex not reached
BARRED = -1           # the cost of a hex that may not be entered
EXIT_NONE, EXIT_PURSUIT, EXIT_SAXON, EXIT_ROUT = 0, 1, 2, 3   # exit_mode


@kernel
def unit_budget(T, g, u_dis, u_flags, u):
    """Movement allowance this phase: MP for an undisrupted unit (halved out of command, 10.33, and in
    reduced visibility, 10.34), hexes for a disrupted one (9.16, 11.12)."""
    if u_dis[u]:
        return T.demoralized_hexes if is_demoralized(g, T.unit_army[u]) else T.disrupted_hexes
    div = 1
    if u_flags[u] & F_OOC:
        div *= 2                                         # 10.33
    if g[G_VIS_OPT] and g[G_VIS] >= 1:
        div *= 2                                         # 10.34 (visibility)
    return -(-T.unit_ma[u] // div)


@kernel
def exit_mode(T, g, u_dis, u):
    """How unit ``u`` may leave the map: EXIT_PURSUIT (scores), EXIT_SAXON (20.14), EXIT_ROUT (11.12)
    or EXIT_NONE. Each way out needs a demoralized army."""
    if g[G_DEMOR] == 0:
        return EXIT_NONE
    side, army = T.unit_side[u], T.unit_army[u]
    if u_dis[u]:
        return EXIT_ROUT if is_demoralized(g, army) else EXIT_NONE
    if T.exit_scores:
        own, enemy = T.main_army[side], T.main_army[1 - side]
        if is_demoralized(g, enemy) and not is_demoralized(g, own) and not is_demoralized(g, army):
            return EXIT_PURSUIT
    if T.saxon_exit and army == T.saxon_army and is_demoralized(g, army):
        return EXIT_SAXON
    return EXIT_NONE


@kernel
def piece_budget(buf, T, p):
    """The MP (hexes) piece ``p`` (unit, or n_units + leader) has for its destination decision: what is
    left after a capture (5.32), else its allowance."""
    _, u_dis, u_flags, _, _, _, _, _, _, _, g = fields(buf, T)
    if g[G_MP] >= 0:
        return g[G_MP]
    if p >= T.nu:
        return T.leader_ma[p - T.nu]
    return unit_budget(T, g, u_dis, u_flags, p)


@kernel
def destinations(buf, T, at, piece, budget, cost, work):
    """Where ``piece`` (unit index, or n_units + leader) can move with ``budget`` MP: ``cost[h]`` = the
    MP it takes (hexes moved, for a disrupted unit), -1 where it cannot go (its own hex included).
    Returns whether it can leave the map.

    6.12, 6.31, 6.32: never into another unit's hex; a leader never into an enemy unit or alone into
    an enemy ZOC; 5.32: an enemy artillery hex is a stop (capturing ends the move; it may continue
    after); so is a hex where the unit catches a lone enemy leader (:func:`catches_leader_at`);
    9.16 / 11.12: a disrupted unit moves straight toward its friendly edge. ``work``: scratch
    (``tables.new_work``; ``cost`` may be its ``W_COST`` block)."""
    u_hex, u_dis, _, _, l_hex, _, a_hex, a_owner, _, _, g = fields(buf, T)
    nh = T.nh
    stop = block(work, T, W_STOP)
    barred = block(work, T, W_BARRED)
    stop[:] = 0
    barred[:] = 0
    if piece >= T.nu:
        l = piece - T.nu
        leader_barred(T, at, u_hex, u_dis, T.leader_side[l], barred)
        start = l_hex[l]
        cheapest(T, 2, start, budget, barred, stop, cost, work)
        cost[start] = -1
        return False
    u = piece
    side = T.unit_side[u]
    start = u_hex[u]
    for k in range(T.na):
        if a_hex[k] >= 0 and a_owner[k] != side:
            stop[a_hex[k]] = 1
    for l in range(T.nl):
        lh = lone_enemy_leader(T, l_hex, at, l, side)
        if lh >= 0:
            stop[lh] = 1
            for d in range(6 if u_dis[u] == 0 else 0):
                if T.neighbors[lh, d] >= 0:
                    stop[T.neighbors[lh, d]] = 1
    mode = exit_mode(T, g, u_dis, u)
    can_exit = False
    if u_dis[u]:
        routing_reach(T, at, start, budget, side, stop, cost, work)
        if mode == EXIT_ROUT:
            for h in range(nh):
                if cost[h] >= 0 and T.on_edge[side, h] and cost[h] < budget and (h == start or not stop[h]):
                    can_exit = True
        cost[start] = -1
        return can_exit
    for k in range(T.nu):
        if u_hex[k] >= 0:
            barred[u_hex[k]] = 1
    cheapest(T, T.unit_kind[u], start, budget, barred, stop, cost, work)
    if mode == EXIT_PURSUIT or mode == EXIT_SAXON:
        edge_side = 1 - side if mode == EXIT_PURSUIT else side
        for h in range(nh):
            if cost[h] >= 0 and T.on_edge[edge_side, h] and cost[h] + 1 <= budget and (h == start or not stop[h]):
                can_exit = True
    cost[start] = -1
    return can_exit


@kernel
def cheapest(T, kind, start, budget, barred, stop, cost, work):
    """6.21, 6.24: the cheapest cost of every hex reachable from ``start`` for a mover of ``kind``
    (infantry, cavalry, leader) with at most ``budget`` MP, into ``cost`` (-1 elsewhere): Dijkstra with
    one FIFO queue per cost level (step costs are small positive integers). A ``barred`` hex may not be
    entered; a ``stop`` hex (other than ``start``) may be entered but not left. ``work``: scratch (its
    ``W_BEST`` .. ``W_AFTER`` blocks)."""
    step_to, step_cost = T.step_to[kind], T.step_cost[kind]
    n, width = step_to.shape[0], step_to.shape[1]
    best = block(work, T, W_BEST)
    for h in range(n):
        best[h] = BARRED if barred[h] else UNREACHED     # no step (cost >= 1) improves on a barred hex
    best[start] = 0
    # every hex is queued at most once per step into it: n * width + 1 items (width <= 6 blocks of n + 1)
    queued, after = blocks(work, T, W_QUEUED, width), blocks(work, T, W_AFTER, width)
    head, tail = block(work, T, W_HEAD), block(work, T, W_TAIL)     # budget + 1 <= n items
    head[:budget + 1] = -1
    tail[:budget + 1] = -1
    queued[0], after[0], head[0], tail[0] = start, -1, 0, 0
    m = 1
    for h in range(n):
        cost[h] = -1
    for c in range(budget + 1):
        q = head[c]
        while q >= 0:
            h = queued[q]
            q = after[q]
            if best[h] != c:
                continue                                 # queued by a dearer step, then reached more cheaply
            cost[h] = c
            if c and stop[h]:
                continue
            for d in range(width):
                j = step_to[h, d]
                if j < 0:
                    continue
                nc = c + step_cost[h, d]
                if nc <= budget and nc < best[j]:
                    best[j] = nc
                    queued[m], after[m] = j, -1
                    if tail[nc] >= 0:
                        after[tail[nc]] = m
                    else:
                        head[nc] = m
                    tail[nc] = m
                    m += 1


@kernel
def leader_barred(T, at, u_hex, u_dis, side, barred):
    """Mark the hexes a leader of ``side`` may not enter: an enemy unit (6.12), or an enemy ZOC without
    a friendly unit (clarification 10.0: a leader never walks alone into an enemy ZOC). (Drawn from the
    enemy units, ``at`` naming the unit of each hex, as ``zoc.in_enemy_zoc`` reads it.)"""
    barred[:] = 0
    for u in range(T.nu):
        h = u_hex[u]
        if h < 0 or at[h] != u or T.unit_side[u] == side:
            continue
        barred[h] = 1
        if u_dis[u] == 0:
            for d in range(6):
                j = T.neighbors[h, d]
                if j >= 0 and at[j] < 0:
                    barred[j] = 1


@kernel
def routing_reach(T, at, start, budget, side, stop, cost, work):
    """9.16 / 11.12: a disrupted unit moves one hex at a time straight toward its friendly edge, terrain
    ignored (9.15): ``cost[h]`` = the number of hexes moved (``start``: 0), -1 where it cannot go."""
    for h in range(T.nh):
        cost[h] = -1
    cost[start] = 0
    frontier = block(work, T, W_QUEUED)
    nxt = block(work, T, W_AFTER)
    frontier[0] = start
    nf = 1
    for k in range(1, budget + 1):
        nn = 0
        for i in range(nf):
            h = frontier[i]
            if h != start and stop[h]:
                continue
            for e in range(T.edge_step.shape[2]):
                j = T.edge_step[side, h, e]
                if j >= 0 and cost[j] < 0 and at[j] < 0:
                    cost[j] = k
                    nxt[nn] = j
                    nn += 1
        frontier[:nn] = nxt[:nn]
        nf = nn


@kernel
def selectable_pieces(buf, T, at, active, out):
    """6.11, 6.16, 6.17, 6.33, 12.3, 12.4: the pieces of the active corps that may be picked to move now
    (not moved, not barred from withdrawing, released, with a first step or a way off the map), into
    ``out``; their number returned."""
    u_hex, u_dis, u_flags, _, l_hex, l_flags, _, _, _, _, g = fields(buf, T)
    side = T.corps_side[active]
    if not g[G_MAY0 + side]:
        return 0
    div = 2 if g[G_VIS_OPT] and g[G_VIS] >= 1 else 1
    n = 0
    for k in range(T.corps_n_pieces[active]):
        p = T.corps_pieces[active, k]
        ok = False
        if p >= T.nu:
            l = p - T.nu
            h = l_hex[l]
            if h < 0 or l_flags[l] & LF_MOVED:
                continue
            ma = T.leader_ma[l]
            for d in range(T.step_to.shape[2]):
                j = T.step_to[2, h, d]
                if j >= 0 and T.step_cost[2, h, d] <= ma:
                    u = at[j]
                    if (u >= 0 and T.unit_side[u] == side) or (u < 0 and not in_enemy_zoc(T, at, u_dis, j, side)):
                        ok = True
                        break
        else:
            h = u_hex[p]
            if h < 0 or u_flags[p] & (F_MOVED | F_NOWD):
                continue
            if u_dis[p]:
                for e in range(T.edge_step.shape[2]):
                    j = T.edge_step[side, h, e]
                    if j >= 0 and at[j] < 0:
                        ok = True
                if not ok and T.on_edge[side, h] and (g[G_DEMOR] >> T.unit_army[p]) & 1:
                    ok = True
            else:
                dv = div * 2 if u_flags[p] & F_OOC else div
                budget = -(-T.unit_ma[p] // dv)
                kind = T.unit_kind[p]
                for d in range(T.step_to.shape[2]):
                    j = T.step_to[kind, h, d]
                    if j >= 0 and T.step_cost[kind, h, d] <= budget and at[j] < 0:
                        ok = True
                        break
                if not ok:
                    mode = exit_mode(T, g, u_dis, p)
                    if mode != EXIT_NONE:
                        ok = T.on_edge[1 - side if mode == EXIT_PURSUIT else side, h] != 0
        if ok:
            out[n] = p
            n += 1
    return n


@kernel
def start_phase_flags(buf, T, corps):
    """At the start of the movement phase: no-withdrawal (6.33: infantry in any enemy ZOC, cavalry in an
    enemy cavalry ZOC), forced rout (11.12), the start hexes (charges, reference 6)."""
    u_hex, u_dis, u_flags, u_start, _, _, _, _, _, _, g = fields(buf, T)
    at = unit_at(u_hex, T.nh)
    for k in range(T.corps_n_units[corps]):
        u = T.corps_units[corps, k]
        f = u_flags[u] & ~(F_NOWD | F_FORCED)
        h = u_hex[u]
        u_start[u] = h
        if h >= 0:
            side = T.unit_side[u]
            if u_dis[u]:
                if is_demoralized(g, T.unit_army[u]):
                    f |= F_FORCED
            else:
                inf, cav = enemy_zoc_kinds(T, at, u_dis, h, side)
                if cav or (inf and T.unit_kind[u] == 0):
                    f |= F_NOWD
        u_flags[u] = f


@kernel
def enemy_gun_at(buf, T, h, side):
    """Hex ``h`` holds an artillery counter enemy to ``side`` (5.32: entering it captures it)."""
    _, _, _, _, _, _, a_hex, a_owner, _, _, _ = fields(buf, T)
    for a in range(T.na):
        if a_hex[a] == h and a_owner[a] != side:
            return True
    return False


@kernel
def catches_leader_at(T, l_hex, at, h, side, disrupted):
    """10.0 and clarification C10: a unit of ``side`` entering hex ``h`` catches an enemy leader standing without a
    unit there or, undisrupted (a zone of control, 7.11, 9.12), next to it: he is eliminated "immediately", on
    the way, so the hex is a stop and the move goes on after it, as a capture does (5.32). ``at``: the unit of each
    hex (``tables.place_units``)."""
    for l in range(T.nl):
        lh = lone_enemy_leader(T, l_hex, at, l, side)
        if lh >= 0 and (lh == h or (not disrupted and T.dist[lh, h] == 1)):
            return True
    return False


@kernel
def lone_enemy_leader(T, l_hex, at, l, side):
    """The hex of leader ``l`` if he is an enemy of ``side`` on the map with no unit in his hex, else -1."""
    lh = l_hex[l]
    return lh if lh >= 0 and T.leader_side[l] != side and at[lh] < 0 else -1


@kernel
def capture_artillery(buf, T, h, side, u, h_before, dis_before, ev, evn):
    """5.32: the enemy guns in hex ``h`` become ``side``'s (unit ``u`` entered it); True if there was one."""
    _, _, _, _, _, _, a_hex, a_owner, _, _, _ = fields(buf, T)
    captured = False
    for a in range(T.na):
        if a_hex[a] == h and a_owner[a] != side:
            a_owner[a] = side
            emit(ev, evn, EV_CAPTURED, u, h_before, dis_before, 1024 * a + h)
            captured = True
    return captured


@kernel
def leave_map(buf, T, u, ev, evn):
    """Unit ``u`` leaves the map: a pursuit exit scores its strength (reference 6), demoralized Saxons
    leave for nothing (20.14), a routing unit is eliminated (11.12; Saxons score nothing, 20.14)."""
    u_hex, u_dis, _, _, _, _, _, _, _, _, g = fields(buf, T)
    mode = exit_mode(T, g, u_dis, u)
    h = u_hex[u]
    side = T.unit_side[u]
    if mode == EXIT_PURSUIT:
        u_hex[u] = OFF_EXIT
        g[G_VP0 + side] += T.unit_strength[u]
        g[G_EXITVP0 + side] += T.unit_strength[u]
        emit(ev, evn, EV_PURSUIT_EXIT, u, h, 0, 0)
    elif mode == EXIT_SAXON:
        u_hex[u] = OFF_EXIT
        emit(ev, evn, EV_SAXON_EXIT, u, h, 0, 0)
    else:
        saxon = T.saxon_exit != 0 and T.unit_army[u] == T.saxon_army
        eliminate(buf, T, u, WHY_ROUT_SAXON if saxon else WHY_ROUT, not saxon, ev, evn)


@kernel
def move_piece(buf, T, p, h, left, work, ev, evn):
    """Put piece ``p`` in hex ``h`` with ``left`` MP left: captures (5.32), leaders caught (10.0), the Allied
    release (12.4). True if it captured a gun or caught a leader and may move on (a second destination decision).
    ``work``: scratch."""
    u_hex, u_dis, _, _, l_hex, _, _, _, _, _, g = fields(buf, T)
    if p >= T.nu:
        before = l_hex[p - T.nu]
        l_hex[p - T.nu] = h
        emit(ev, evn, EV_MOVED, p, before, 0, h)
        return False
    before = u_hex[p]
    u_hex[p] = h
    emit(ev, evn, EV_MOVED, p, before, u_dis[p], h)
    side = T.unit_side[p]
    captured = capture_artillery(buf, T, h, side, p, before, u_dis[p], ev, evn)
    caught = check_leaders(buf, T, ev, evn, work) > 0        # caught on the way (C10): the move may go on too
    if side == 1 and not g[G_MAY0]:
        check_allied_release(buf, T, h, ev, evn)
    if not (captured or caught) or left <= 0:
        return False
    g[G_MP] = left
    cost = block(work, T, W_COST)
    can_exit = destinations(buf, T, place_units(u_hex, block(work, T, W_AT)), p, left, cost, work)
    return can_exit or (cost >= 0).any()


@kernel
def check_allied_release(buf, T, h, ev, evn):
    """12.4: an Imperial unit moved within 3 hexes of an Allied unit: the Allies may move."""
    u_hex, _, _, _, _, _, _, _, _, _, g = fields(buf, T)
    for u in range(T.nu):
        if u_hex[u] >= 0 and T.unit_side[u] == 0 and T.dist[h, u_hex[u]] <= T.release_distance:
            g[G_MAY0] = 1
            emit(ev, evn, EV_RELEASED, 0, 0, 0, 0)
            return
