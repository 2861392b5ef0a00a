"""Movement (5.x), facing (6.0), ZOC (7.0), stacking (8.0) and the command restrictions on movement
(4.1, 5.1, 13.2). A unit acts in single steps (the path matters: ZOC, Light Cavalry fire on the move,
reaction fire), then stops and takes its final facing. Compiled kernels (``c``: the state, ``T``: the
tables).
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel
from ..data import L
from ..state import (
    D_REACT, DISORDERED, F_ACTED, F_DONE, F_FIRED, F_INCMD, F_LEFT_HEX, F_MOVED, F_START_ZOC, F_STOPPED,
    F_XBOW_REACTED, NORMAL, RETIRED,
)
from .board import enter
from .fire import facing_options, fire_targets, start_fire
from .kstate import pop, push
from .zoc import adjacent, adjacent_enemy, zoc_fill

C_TYPE = 5


@kernel
def _left_zoc_of(c, p, y, left):
    """7.0: hex ``y`` is in the ZOC of an enemy unit the mover has just left: one whose ZOC covers ``left``,
    the last hex in an enemy ZOC that it stepped out of (or the one it is stepping out of now), -1 for none
    (clarification C5: every such unit, whatever the order of the counters)."""
    if left < 0:
        return False
    for i in range(c.zc[p, y]):
        e = c.zu[p, y, i]
        for j in range(c.zc[p, left]):
            if c.zu[p, left, j] == e:
                return True
    return False


@kernel
def step_options(c, T, u, d0, d1, out_y, out_cost):
    """Legal single steps of unit ``u`` in directions ``d0 .. d1 - 1``: ``out_y[d]`` the target hex and
    ``out_cost[d]`` its MP cost (-1: no step that way). Fills the ZOC against ``u``'s side. Returns
    how many."""
    out_y[:] = -1
    out_cost[:] = -1
    p = T.uplayer[u]
    zoc_fill(c, T, p)
    fl = c.u_flags[u]
    mp = c.u_mp[u]
    if fl & (F_STOPPED | F_DONE) or mp <= 0:
        return 0
    if fl & F_FIRED and T.utype[u] != L:
        return 0  # 9.2: firing ends the movement of B and C
    x = c.u_hex[u]
    status = c.u_status[u]
    incmd = fl & F_INCMD
    in_zoc = c.zc[p, x] > 0
    if not incmd:
        # 4.1, 5.1: out of command: may not leave an enemy ZOC nor move away from an adjacent enemy
        if in_zoc or (not fl & F_LEFT_HEX and adjacent_enemy(c, T, p, x)):
            return 0
    is_l = T.utype[u] == L
    if in_zoc and not is_l and fl & F_LEFT_HEX:
        return 0  # 7.0: entered an enemy ZOC: must stop
    leave = 0
    if in_zoc:
        if not fl & F_LEFT_HEX:
            if not fl & F_START_ZOC and not is_l:
                return 0
            horse = False
            for i in range(c.zc[p, x]):
                if T.uhorse[c.zu[p, x, i]]:
                    horse = True
            if horse:
                leave = 1  # 7.0: leaving an enemy Horse unit's ZOC costs 1 MP
            elif is_l and not fl & F_START_ZOC:
                leave = 1
        elif is_l:
            leave = 1  # 7.0, 9.1: light cavalry leaving a ZOC it entered this turn
    left = x if in_zoc else c.u_left[u]
    n = 0
    for d in range(d0, d1):
        y = T.nbr[x, d]
        cost = T.step_cost[T.ucls[u], x, d]
        if y < 0 or cost < 0 or c.hex_unit[y] >= 0:
            continue
        if status == RETIRED:
            std = c.std_hex[p]
            if T.dist[std, y] >= T.dist[std, x]:
                continue
            cost = mp
        else:
            cost += leave
            if cost > mp:
                continue
            if c.zc[p, y] > 0 and _left_zoc_of(c, p, y, left):
                continue  # 7.0: may not return to a ZOC of the enemy unit it just left
        if not incmd and adjacent_enemy(c, T, p, y):
            continue
        out_y[d] = y
        out_cost[d] = cost
        n += 1
    return n


@kernel
def opt_unit_act(c, T, t, mask):
    u = t[2]
    if c.u_hex[u] < 0 or c.u_flags[u] & F_DONE:
        return 0
    ys = np.empty(6, np.int64)
    costs = np.empty(6, np.int64)
    n = 0
    step_options(c, T, u, 0, 6, ys, costs)  # (fills the ZOC against u's side: fire_targets and facing_options read it)
    for d in range(6):
        if ys[d] >= 0:
            mask[T.A_DIR + d] = True
            n += 1
    n += fire_targets(c, T, u, mask)
    faces = facing_options(c, T, u)
    for f in range(6):
        if faces >> f & 1:
            mask[T.A_FACE + f] = True
            n += 1
    return n


@kernel
def do_unit_act(c, T, t, a):
    u = t[2]
    if a >= T.A_FACE:
        f = a - T.A_FACE
        if f != c.u_face[u]:
            c.u_flags[u] |= F_ACTED
        c.u_face[u] = f
        c.u_flags[u] |= F_DONE
        pop(c)
        return
    if a >= T.A_DIR:
        d = a - T.A_DIR
        ys = np.empty(6, np.int64)
        costs = np.empty(6, np.int64)
        step_options(c, T, u, d, d + 1, ys, costs)
        move_step(c, T, u, ys[d], costs[d])
        return
    start_fire(c, T, u, c.hex_unit[a], False)


@kernel
def move_step(c, T, u, y, cost):
    p = T.uplayer[u]
    x = c.u_hex[u]
    zoc_fill(c, T, p)
    if c.zc[p, x] > 0:
        c.u_left[u] = x  # 7.0: the enemy ZOC just left (C5)
    into_zoc = c.zc[p, y] > 0  # the ZOC as it was before the step (an Ambush revealed by it comes later)
    c.u_mp[u] -= cost
    c.u_flags[u] |= F_MOVED | F_ACTED | F_LEFT_HEX
    enter(c, T, u, y)
    if c.u_status[u] == RETIRED:
        c.u_mp[u] = 0
    if into_zoc:
        if T.utype[u] != L:
            c.u_flags[u] |= F_STOPPED
            c.u_mp[u] = 0
    trigger_reaction(c, T, u, y)


@kernel
def trigger_reaction(c, T, m, y):
    """9.2 Reaction Fire: enemy missile units with ``y`` in their frontal hexes may fire at the unit
    that moved or charged there (crossbows at one unit per activation)."""
    p = T.uplayer[m]
    q = 1 - p
    elig = np.empty(T.U, np.int64)
    n = 0
    for r in range(T.side_ufirst[q], T.side_uend[q]):
        if not T.umissile[r]:
            continue
        h = c.u_hex[r]
        if h < 0 or not adjacent(T, h, y):  # off the map or not next to y
            continue
        st = c.u_status[r]
        if (st != NORMAL and st != DISORDERED) or c.u_react[r] == m:
            continue
        if T.front_nb[h, c.u_face[r], 0] != y and T.front_nb[h, c.u_face[r], 1] != y:
            continue
        if T.utype[r] == C_TYPE and c.u_flags[r] & F_XBOW_REACTED:
            continue
        elig[n] = r
        n += 1
    for i in range(n - 1, -1, -1):
        push(c, D_REACT, q, elig[i], m)
