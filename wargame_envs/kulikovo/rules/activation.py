"""Sequence of play (3.0, 4.x), Standards (14.x), Flight (16.x), Heroic Combat (15.4) and the Move/Fire
unit selection. Each ``opt_*`` marks the legal actions of a decision (returns how many), each ``do_*``
carries one out, each ``auto_*`` is an automatic step of the task stack. Compiled kernels (``c``: the
state, ``T``: the tables).
"""

from __future__ import annotations

import numpy as np

from ...core.chance import roll
from ...core.jit import kernel
from ..actions import OPT_NO, OPT_PASS, OPT_STD_MOVE, OPT_STD_RALLY
from ..events import (
    EV_ACTIVATES, EV_CONT_NAMED, EV_CONT_PASS, EV_CONT_ROLL, EV_DIS_RALLY, EV_FLIGHT_CHECK, EV_FREE_PASS,
    EV_HEROIC_FIRST, EV_HEROIC_LOSER, EV_HEROIC_ROLLS, EV_HEROIC_TIE, EV_LEADER_MOVES, EV_SEIZE_ROLL,
    EV_STD_LEAVES_RETIRED, EV_STD_MOVES, EV_STD_RALLY, EV_WINS,
)
from ..state import (
    A_ACT_START, A_ACTIVATE, A_END_ACT, A_FLIGHT, ACTIVATION_FLAGS, D_CONTINUITY, D_FREE, D_LEADER_MOVE,
    D_MF_SELECT, D_PLACE_REPL, D_RESOLVE_PICK, D_SEIZE, D_SHOCK_SELECT, D_STD_MOVE, D_UNIT_ACT, DISORDERED,
    F_ACTED, F_DIS_AT_START, F_DONE, F_DORMANT, F_RETURNED, F_START_ZOC, G_ACTIVE, G_AMBUSH_PLACED, G_CMD, G_FIRST,
    G_FREE, G_HEROIC_M, G_HEROIC_R, G_LAST_CMD, G_OVER, G_WINNER, L_PENDING, LF_MOVED, LF_OC, NORMAL, RETIRED,
)
from .board import count_activation, eliminate, flight_points, unit_ma
from .kstate import log, pop, push
from .leaders import command_rating, compute_command, in_play_state, place_ambush, place_replacement
from .tables import TV_LEADER_MOVE, TV_STD_MOVE_ELIM_MIN, TV_V_HEROIC
from .zoc import adjacent_enemy, zoc_fill


# ------------------------------------------------------------------ commands
@kernel
def activatable(c, T, cmd):
    """A command with a unit on the map (or the Ambush Regiment before it is placed) may be activated."""
    if cmd == T.ambush_cmd and not c.g[G_AMBUSH_PLACED]:
        return True
    for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
        st = c.u_status[u]
        if st == NORMAL or st == DISORDERED or st == RETIRED:
            return True
    return False


@kernel
def cmd_actions(c, T, p, exclude, mask):
    n = 0
    for cmd in range(T.side_cfirst[p], T.side_cend[p]):
        if cmd != exclude and activatable(c, T, cmd):
            mask[T.A_CMD + cmd - T.side_cfirst[p]] = True
            n += 1
    return n


@kernel
def cmd_of_action(T, p, a):
    return T.side_cfirst[p] + a - T.A_CMD


# ------------------------------------------------------------------ heroic
@kernel
def auto_heroic(c, T, t):
    """15.4 Heroic Combat: high DR goes first, low DR takes 1 FP; ties re-roll without the FP."""
    tie = False
    while True:
        r = roll(c.dv, c.ds, 10, 0)
        m = roll(c.dv, c.ds, 10, 0)
        log(c, EV_HEROIC_ROLLS, r, m)
        if r != m or c.ds[3]:  # (a failed scripted die returns the same value forever)
            break
        tie = True
    winner = 0 if r > m else 1
    c.g[G_HEROIC_R] = r
    c.g[G_HEROIC_M] = m
    c.g[G_FIRST] = winner
    if not tie:
        c.fp[1 - winner] += T.tv[TV_V_HEROIC]
        log(c, EV_HEROIC_LOSER, 1 - winner)
    else:
        log(c, EV_HEROIC_TIE)
    log(c, EV_HEROIC_FIRST, winner)
    push(c, D_FREE, winner)


# ------------------------------------------------------------------ free choice
@kernel
def opt_free(c, T, t, mask):
    p = t[1]
    n = cmd_actions(c, T, p, -1, mask)
    if not c.std_captured[p]:
        mask[T.A_OPT + OPT_STD_MOVE] = True
        n += 1
        if rally_candidates(c, T, p, np.empty(T.U, np.int64)):
            mask[T.A_OPT + OPT_STD_RALLY] = True
            n += 1
    mask[T.A_OPT + OPT_PASS] = True
    return n + 1


@kernel
def do_free(c, T, t, a):
    p = t[1]
    pop(c)
    if a == T.A_OPT + OPT_PASS:
        log(c, EV_FREE_PASS, p)
        if count_activation(c):
            return
        push(c, D_FREE, 1 - p)
    elif a == T.A_OPT + OPT_STD_MOVE:
        push(c, D_STD_MOVE, p)
    elif a == T.A_OPT + OPT_STD_RALLY:
        if count_activation(c):
            return
        c.g[G_ACTIVE] = p
        c.g[G_LAST_CMD] = -1
        us = np.empty(T.U, np.int64)
        n = rally_candidates(c, T, p, us)
        for i in range(n):
            c.u_status[us[i]] = DISORDERED
            log(c, EV_STD_RALLY, us[i], c.u_hex[us[i]])
        push(c, D_CONTINUITY, p)
        push(c, A_FLIGHT, p)
    else:
        push(c, A_ACTIVATE, p, cmd_of_action(T, p, a), 1)


# ------------------------------------------------------------------ continuity
@kernel
def opt_continuity(c, T, t, mask):
    p = t[1]
    mask[T.A_OPT + OPT_PASS] = True
    return cmd_actions(c, T, p, c.g[G_LAST_CMD], mask) + 1


@kernel
def do_continuity(c, T, t, a):
    p = t[1]
    pop(c)
    if a == T.A_OPT + OPT_PASS:
        log(c, EV_CONT_PASS, p)
        if count_activation(c):
            return
        push(c, D_FREE, 1 - p)
        return
    cmd = cmd_of_action(T, p, a)
    log(c, EV_CONT_NAMED, p, cmd)
    push(c, D_SEIZE, 1 - p, cmd)


@kernel
def opt_seize(c, T, t, mask):
    mask[T.A_OPT + OPT_NO] = True
    return cmd_actions(c, T, t[1], -1, mask) + 1


@kernel
def do_seize(c, T, t, a):
    """4.2 Continuity (the phasing player's roll) or 4.3 Seizing it (the opponent's)."""
    q, cmd = t[1], t[2]
    p = 1 - q
    pop(c)
    if a == T.A_OPT + OPT_NO:
        rating = command_rating(c, T, cmd)
        dr = roll(c.dv, c.ds, 10, 0)
        ok = dr <= rating
        log(c, EV_CONT_ROLL, cmd, dr, rating, ok)
        if ok:
            push(c, A_ACTIVATE, p, cmd, 0)
        else:
            push(c, D_FREE, q)
        return
    cs = cmd_of_action(T, q, a)
    rating = command_rating(c, T, cs)
    dr = roll(c.dv, c.ds, 10, 0)
    ok = dr <= rating
    log(c, EV_SEIZE_ROLL, cs, dr, rating, q * 2 + int(ok))
    if ok:
        push(c, A_ACTIVATE, q, cs, 0)
    else:
        push(c, D_FREE, p)


# ------------------------------------------------------------------ activation
@kernel
def auto_activate(c, T, t):
    p, cmd, free = t[1], t[2], t[3]
    if count_activation(c):
        return
    c.g[G_ACTIVE] = p
    c.g[G_CMD] = cmd
    c.g[G_FREE] = free
    c.g[G_LAST_CMD] = cmd
    c.u_flags[:] &= ~(ACTIVATION_FLAGS | F_RETURNED)  # F_RETURNED: once per enemy activation (9.2)
    c.u_attacks[:] = 0
    c.u_tgt[:] = -1
    c.u_dtgt[:] = -1
    c.u_left[:] = -1
    c.u_react[:] = -1
    c.u_vac[:] = -1
    c.u_ccv[:] = -1
    c.l_flags[:] &= ~LF_MOVED
    log(c, EV_ACTIVATES, p, cmd, free)
    if cmd == T.ambush_cmd:
        if not c.g[G_AMBUSH_PLACED]:
            place_ambush(c, T)
        for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
            c.u_flags[u] &= ~F_DORMANT  # 15.2: activated at last
    push(c, A_END_ACT, p, cmd, free)
    push(c, D_RESOLVE_PICK, p)
    push(c, D_SHOCK_SELECT, p, cmd)
    push(c, D_MF_SELECT, p, cmd)
    push(c, A_ACT_START, p, cmd)
    # 13.3: replacement leaders come in after the command has been chosen
    hexes = np.zeros(T.N, np.bool_)
    for l in range(T.side_lend[p] - 1, T.side_lfirst[p] - 1, -1):
        if c.l_state[l] == L_PENDING and replacement_hexes(c, T, l, hexes):
            push(c, D_PLACE_REPL, p, l)


@kernel
def replacement_hexes(c, T, l, mask):
    """13.3: a replacement leader comes in with a unit of his command that is not Retired."""
    cmd = T.lcmd[l]
    n = 0
    for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
        if c.u_hex[u] >= 0 and c.u_status[u] != RETIRED:
            mask[c.u_hex[u]] = True
            n += 1
    return n


@kernel
def opt_place_repl(c, T, t, mask):
    return replacement_hexes(c, T, t[2], mask)


@kernel
def do_place_repl(c, T, t, a):
    pop(c)
    place_replacement(c, T, t[2], a)


@kernel
def auto_act_start(c, T, t):
    p, cmd = t[1], t[2]
    compute_command(c, T, cmd)
    zoc_fill(c, T, p)
    for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
        h = c.u_hex[u]
        if h < 0:
            continue
        c.u_mp[u] = unit_ma(c, T, u)
        if c.zc[p, h] > 0:
            c.u_flags[u] |= F_START_ZOC
        if c.u_status[u] == DISORDERED:
            c.u_flags[u] |= F_DIS_AT_START


@kernel
def auto_end_act(c, T, t):
    """12.5.1: a Disordered unit of the command that spent the whole activation Disordered doing nothing, not
    next to an enemy, rallies (one Disordered during it, e.g. by a friendly retreat through it (12.1), does not)."""
    p, cmd, free = t[1], t[2], t[3]
    for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
        h = c.u_hex[u]
        if h >= 0 and c.u_status[u] == DISORDERED and c.u_flags[u] & F_DIS_AT_START \
                and not c.u_flags[u] & F_ACTED and not adjacent_enemy(c, T, p, h):
            c.u_status[u] = NORMAL
            log(c, EV_DIS_RALLY, u, h)
    push(c, D_CONTINUITY, p)
    if free:
        push(c, A_FLIGHT, p)


# ------------------------------------------------------------------ flight
@kernel
def auto_flight(c, T, t):
    """16.0: after a free activation each army rolls: DR + FP > Flight Level -> it flees."""
    p = t[1]
    for side in (p, 1 - p):
        fp = flight_points(c, T, side)
        dr = roll(c.dv, c.ds, 10, 0)
        flees = dr + fp > T.flight_level[side]
        log(c, EV_FLIGHT_CHECK, side, dr, fp, flees)
        if flees:
            c.g[G_WINNER] = 1 - side
            c.g[G_OVER] = 1
            log(c, EV_WINS, 1 - side)
            return


# ------------------------------------------------------------------ standards
@kernel
def rally_candidates(c, T, p, out):
    """12.5.2, 14.0: the side's Retired units in or next to its Standard's hex; returns how many."""
    h = c.std_hex[p]
    n = 0
    for u in range(T.side_ufirst[p], T.side_uend[p]):
        if c.u_status[u] == RETIRED and c.u_hex[u] >= 0 and T.dist[h, c.u_hex[u]] <= 1:
            out[n] = u
            n += 1
    return n


@kernel
def opt_std_move(c, T, t, mask):
    p = t[1]
    cur = c.std_hex[p]
    n = 0
    for h in range(T.N):
        v = c.hex_unit[h]
        if h != cur and (v < 0 or T.uplayer[v] == p):
            mask[h] = True
            n += 1
    return n


@kernel
def do_std_move(c, T, t, a):
    """14.1: the Standard moves anywhere; each Retired unit it leaves behind may be eliminated."""
    p = t[1]
    pop(c)
    if count_activation(c):
        return
    c.g[G_ACTIVE] = p
    c.g[G_LAST_CMD] = -1
    us = np.empty(T.U, np.int64)
    n = rally_candidates(c, T, p, us)
    for i in range(n):
        u = us[i]
        dr = roll(c.dv, c.ds, 10, 0)
        dies = dr + T.udef[u] >= T.tv[TV_STD_MOVE_ELIM_MIN]
        log(c, EV_STD_LEAVES_RETIRED, u, c.u_hex[u], dr, dies)
        if dies:
            eliminate(c, T, u)
    log(c, EV_STD_MOVES, p, c.std_hex[p], a)
    c.std_hex[p] = a
    push(c, D_CONTINUITY, p)
    push(c, A_FLIGHT, p)


# ------------------------------------------------------------------ move/fire select
@kernel
def leader_targets(c, T, l, mask):
    """13.0: a leader moves up to 8 hexes (``units.toml [leader] move``) to a unit of his command (the Overall
    Commander: of his side) that is not Retired, or to his Standard. Marks them in ``mask`` (may be None: just
    count); returns how many (with repeats)."""
    p = T.lplayer[l]
    h = c.l_hex[l]
    if c.l_flags[l] & LF_OC:
        a, b = T.side_ufirst[p], T.side_uend[p]
    else:
        a, b = T.cmd_ufirst[T.lcmd[l]], T.cmd_uend[T.lcmd[l]]
    n = 0
    for u in range(a, b):
        x = c.u_hex[u]
        if x >= 0 and x != h and c.u_status[u] != RETIRED and T.dist[h, x] <= T.tv[TV_LEADER_MOVE]:
            mask[x] = True
            n += 1
    std = c.std_hex[p]
    if not c.std_captured[p] and std != h and T.dist[h, std] <= T.tv[TV_LEADER_MOVE]:
        mask[std] = True
        n += 1
    return n


@kernel
def opt_mf_select(c, T, t, mask):
    p, cmd = t[1], t[2]
    base = T.A_UNIT - T.side_ufirst[p]
    n = 0
    for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
        if c.u_hex[u] >= 0 and not c.u_flags[u] & F_DONE:
            mask[base + u] = True
            n += 1
    lb = T.A_LEADER - T.side_lfirst[p]
    scratch = np.zeros(T.N, np.bool_)
    for k in range(T.cmd_leaders.shape[1]):  # leaders of the command in play that have not moved
        l = T.cmd_leaders[cmd, k]
        if l < 0:
            break
        if in_play_state(c.l_state[l]) and c.l_hex[l] >= 0 and not c.l_flags[l] & LF_MOVED \
                and leader_targets(c, T, l, scratch):
            mask[lb + l] = True
            n += 1
    mask[T.A_OPT + OPT_PASS] = True
    return n + 1


@kernel
def do_mf_select(c, T, t, a):
    p = t[1]
    if a == T.A_OPT + OPT_PASS:
        pop(c)
        cmd = t[2]
        for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
            if c.u_hex[u] >= 0:
                c.u_flags[u] |= F_DONE
        return
    if a >= T.A_LEADER:
        push(c, D_LEADER_MOVE, p, a - T.A_LEADER + T.side_lfirst[p])
    else:
        push(c, D_UNIT_ACT, p, a - T.A_UNIT + T.side_ufirst[p])


@kernel
def opt_leader_move(c, T, t, mask):
    mask[T.A_OPT + OPT_PASS] = True
    return leader_targets(c, T, t[2], mask) + 1


@kernel
def do_leader_move(c, T, t, a):
    l = t[2]
    pop(c)
    c.l_flags[l] |= LF_MOVED
    if a == T.A_OPT + OPT_PASS:
        return
    log(c, EV_LEADER_MOVES, l, c.l_hex[l], a)
    c.l_hex[l] = a
