"""Leaders (10.0): elimination when caught alone, and command control (10.3, 10.4), compiled. (The
combat bonus, 10.1, is in ``combat.py``.)

A leader is eliminated immediately if it is in an enemy-controlled hex without a friendly unit (10.0);
a leader in a hex an enemy unit enters is eliminated too. Eliminated leaders score 5 victory points for
the enemy (10 for Tilly and Gustavus).
"""

from __future__ import annotations

import numpy as np

from ..core.events import emit
from ..core.jit import kernel
from .events import EV_LEADER_CAUGHT
from .state import F_OOC, G_VP0, OFF_ELIM
from .tables import W_AT, W_OUT, block, fields, place_units


@kernel
def check_leaders(buf, T, ev, evn, work):
    """10.0: eliminate the leaders on the map whose hex holds no friendly unit and either holds an enemy
    unit or is in the ZOC of an undisrupted enemy unit (7.1); returns how many. ``work``: scratch."""
    u_hex, u_dis, _, _, l_hex, _, _, _, _, _, g = fields(buf, T)
    at = place_units(u_hex, block(work, T, W_AT))
    caught = block(work, T, W_OUT)
    m = 0
    for l in range(T.nl):
        h = l_hex[l]
        if h < 0:
            continue
        side = T.leader_side[l]
        u = at[h]
        if u >= 0 and T.unit_side[u] == side:
            continue
        alone = u >= 0
        for d in range(6):
            j = T.neighbors[h, d]
            if not alone and j >= 0 and at[j] >= 0 and T.unit_side[at[j]] != side and u_dis[at[j]] == 0:
                alone = True
        if alone:
            caught[m] = l
            m += 1
    for k in range(m):
        l = caught[k]
        h = l_hex[l]
        l_hex[l] = OFF_ELIM
        g[G_VP0 + 1 - T.leader_side[l]] += T.leader_vp[l]
        emit(ev, evn, EV_LEADER_CAUGHT, l, h, 0, 0)
    return m


@kernel
def mark_command(buf, T, corps, turn):
    """10.31-10.44: mark the units of ``corps`` Out of Command (``F_OOC``) or clear the mark; all are in
    command in the first turns (12.6). In command: within a leader's value of one of the corps' leaders
    (10.4, 10.41, 10.42), or linked to such a unit by a chain of adjacent units of the corps (10.44). A disrupted
    unit is not affected by command (10.36), never marked, but it is In Command where 10.31 and 10.44 say so, and
    links the chain (C18)."""
    u_hex, u_dis, u_flags, _, l_hex, _, _, _, _, _, _ = fields(buf, T)
    n = T.corps_n_units[corps]
    inc = np.zeros(T.nu, np.bool_)
    member = np.zeros(T.nu, np.bool_)
    frontier = np.empty(T.nu, np.int64)
    top = 0
    at = np.full(T.nh, -1, np.int64)
    for k in range(n):
        u = T.corps_units[corps, k]
        if u_hex[u] >= 0:
            member[u] = True
            at[u_hex[u]] = u
    if turn <= T.all_in_command_turns:
        for k in range(n):
            inc[T.corps_units[corps, k]] = True
    else:
        for k in range(n):
            u = T.corps_units[corps, k]
            if not member[u]:
                continue
            for i in range(T.corps_n_leaders[corps]):
                l = T.corps_leaders[corps, i]
                if l_hex[l] >= 0 and T.dist[l_hex[l], u_hex[u]] <= T.leader_value[l]:
                    inc[u] = True
                    frontier[top] = u
                    top += 1
                    break
        while top > 0:                                   # 10.44: the chains
            top -= 1
            u = frontier[top]
            for d in range(6):
                j = T.neighbors[u_hex[u], d]
                if j >= 0 and at[j] >= 0 and not inc[at[j]]:
                    inc[at[j]] = True
                    frontier[top] = at[j]
                    top += 1
    for k in range(n):
        u = T.corps_units[corps, k]
        if member[u] and not inc[u] and u_dis[u] == 0:
            u_flags[u] |= F_OOC
        else:
            u_flags[u] &= ~F_OOC
