"""The board changes every rule module makes: entering a hex (captures of Standards and lone leaders,
the Ambush Regiment's discovery), Disorder, Retirement and Elimination (12.x) with the displaced
leaders (13.3), Flight Points (16.0), the activation count, and the enemy units under attack.
Compiled kernels over the state (``c``) and the scenario tables (``T``).
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel
from ..events import EV_LEADER_CAPTURED, EV_LEADER_SURROUNDED, EV_RETIRE_NO_STD, EV_RETIRED_LOST, \
    EV_STD_CAPTURED, EV_TRUNCATED
from ..state import (
    DISORDERED, ELIMINATED, F_DONE, F_RBS_DONE, F_RESOLVED, G_ACTIVATIONS, G_AMBUSH_PLACED, G_MAX_ACT, G_OVER,
    G_TRUNC, NORMAL, RETIRED,
)
from .kstate import log
from .leaders import check_ambush_los, kill_leader, leaders_at, nearest_friend, still_at
from .tables import TV_V_RETIRED, TV_V_STANDARD
from .zoc import zoc_fill


@kernel
def count_activation(c):
    """Count one activation (or pass); True when the activation limit truncates the game here."""
    c.g[G_ACTIVATIONS] += 1
    if c.g[G_MAX_ACT] > 0 and c.g[G_ACTIVATIONS] > c.g[G_MAX_ACT]:
        c.g[G_TRUNC] = 1
        c.g[G_OVER] = 1
        log(c, EV_TRUNCATED, c.g[G_MAX_ACT])
        return True
    return False


@kernel
def flight_points(c, T, p):
    """16.0: the side's Flight Points so far, each of its Retired units counting ``victory.retired`` (1) more."""
    n = c.fp[p]
    for u in range(T.side_ufirst[p], T.side_uend[p]):
        if c.u_status[u] == RETIRED:
            n += T.tv[TV_V_RETIRED]
    return n


@kernel
def defense(c, T, u):
    return T.udis_def[u] if c.u_status[u] != NORMAL else T.udef[u]


@kernel
def unit_ma(c, T, u):
    st = c.u_status[u]
    if st == RETIRED:
        return 1
    return T.udis_ma[u] if st == DISORDERED else T.uma[u]


@kernel
def targeted(c, T, p, mark):
    """Mark in ``mark`` (bool per unit, cleared here) the enemy units named as targets of unresolved
    attacks by ``p``'s units."""
    mark[:] = False
    for a in range(T.side_ufirst[p], T.side_uend[p]):
        if c.u_hex[a] < 0:
            continue
        for k in range(2):
            d = c.u_tgt[a, k]
            if d >= 0 and not c.u_flags[d] & F_RESOLVED:
                mark[d] = True


# ------------------------------------------------------------ moving counters
@kernel
def enter(c, T, u, y, carry_leaders=True):
    """Put unit ``u`` into hex ``y`` (movement, retreat, advance, charge, placement): leaders stacked
    with it go along; a lone enemy Standard or leader there is captured (14.2, 13.3; a captured real
    Dmitri under 13.4 gets his escape roll); a Mongol unit that gains LOS to the Ambush Regiment
    reveals it (15.2)."""
    x = c.u_hex[u]
    p = T.uplayer[u]
    ls = np.empty(T.NL, np.int64)
    if x >= 0:
        c.hex_unit[x] = -1
        if carry_leaders:
            n = leaders_at(c, T, x, p, ls)
            for i in range(n):
                c.l_hex[ls[i]] = y
    c.u_hex[u] = y
    c.hex_unit[y] = u
    q = 1 - p
    if c.std_hex[q] == y and not c.std_captured[q]:
        capture_standard(c, T, q, u)
    n = leaders_at(c, T, y, q, ls)
    for i in range(n):
        if not still_at(c, ls[i], y):
            continue
        log(c, EV_LEADER_CAPTURED, ls[i], y, u)
        kill_leader(c, T, ls[i])
    if p == 1 and not c.g[G_AMBUSH_PLACED]:
        check_ambush_los(c, T, y, u)


@kernel
def capture_standard(c, T, q, u):
    """14.2: the Standard of side ``q`` captured by unit ``u``: Flight Points, and ``q``'s Retired units
    are eliminated."""
    c.std_captured[q] = 1
    c.fp[q] += T.tv[TV_V_STANDARD]
    log(c, EV_STD_CAPTURED, u, c.u_hex[u], q)
    for v in range(T.side_ufirst[q], T.side_uend[q]):
        if c.u_status[v] == RETIRED:
            log(c, EV_RETIRED_LOST, v, c.u_hex[v])
            eliminate(c, T, v)


@kernel
def eliminate(c, T, u):
    x = c.u_hex[u]
    p = T.uplayer[u]
    c.u_status[u] = ELIMINATED
    c.u_flags[u] |= F_DONE
    if x >= 0:
        c.hex_unit[x] = -1
    c.u_hex[u] = -1
    c.fp[p] += T.ufp[u]
    if x >= 0:
        displace_leaders(c, T, x, p)


@kernel
def disorder(c, T, u):
    """12.1; a Disordered (or Retired) unit that is Disordered again Retires (precedent 12.1)."""
    if c.u_status[u] == NORMAL:
        c.u_status[u] = DISORDERED
    else:
        retire(c, T, u)


@kernel
def retire(c, T, u):
    """12.2: placed as close to its Standard as possible and marked Retired; Eliminated instead when
    the Standard has been captured (12.2, 14.2)."""
    p = T.uplayer[u]
    if c.std_captured[p]:
        log(c, EV_RETIRE_NO_STD, u, c.u_hex[u])
        eliminate(c, T, u)
        return
    x = c.u_hex[u]
    c.u_status[u] = RETIRED
    c.u_flags[u] |= F_DONE
    c.u_tgt[u, 0] = -1
    c.u_tgt[u, 1] = -1
    c.u_dtgt[u, 0] = -1
    c.u_dtgt[u, 1] = -1
    std = c.std_hex[p]
    best, bd, bx = -1, 1 << 30, 1 << 30
    for i in range(T.N):
        h = T.bydist[std, i]
        d = T.dist[std, h]
        if best >= 0 and d > bd:
            break
        if c.hex_unit[h] >= 0 and h != x:
            continue
        dx = T.dist[x, h] if x >= 0 else 0
        if d < bd or (d == bd and (dx < bx or (dx == bx and h < best))):
            best, bd, bx = h, d, dx
    if best < 0:
        eliminate(c, T, u)
        return
    if x >= 0:
        c.hex_unit[x] = -1
        displace_leaders(c, T, x, p)
        c.u_hex[u] = -1
    enter(c, T, u, best, False)


@kernel
def displace_leaders(c, T, h, p):
    """13.3: a surviving leader whose unit is gone joins the nearest unit of his command; if he is
    surrounded by enemy units and/or ZOC he is captured (a real Dmitri under 13.4 then gets his
    escape roll)."""
    ls = np.empty(T.NL, np.int64)
    n = leaders_at(c, T, h, p, ls)
    if n == 0:
        return
    zoc_fill(c, T, p)  # (a leader on his own Standard's hex is no exception: 13.3 knows none; C28)
    for i in range(n):
        l = ls[i]
        if not still_at(c, l, h):
            continue
        surrounded = True
        for d in range(6):
            t = T.nbr[h, d]
            if t < 0:
                continue
            v = c.hex_unit[t]
            if not ((v >= 0 and T.uplayer[v] != p) or c.zc[p, t] > 0):
                surrounded = False
                break
        if surrounded:
            log(c, EV_LEADER_SURROUNDED, l, h)
            kill_leader(c, T, l)
            continue
        target = nearest_friend(c, T, h, p, T.lcmd[l])
        if target < 0:
            target = c.std_hex[p] if not c.std_captured[p] else -1
        if target < 0:
            kill_leader(c, T, l)
        else:
            c.l_hex[l] = target


# ------------------------------------------------------------ attacks
@kernel
def names_target(c, a, d):
    """Whether unit ``a``'s declared attack names ``d``."""
    return c.u_tgt[a, 0] == d or c.u_tgt[a, 1] == d


@kernel
def attackers_of(c, T, d, out):
    """The units whose declared attack on ``d`` is still on (next to it, able to fight); returns how
    many."""
    dh = c.u_hex[d]
    if dh < 0:
        return 0
    q = 1 - T.uplayer[d]
    n = 0
    for a in range(T.side_ufirst[q], T.side_uend[q]):
        h = c.u_hex[a]
        st = c.u_status[a]
        if h < 0 or (st != NORMAL and st != DISORDERED) or c.u_flags[a] & F_RBS_DONE:
            continue
        if names_target(c, a, d) and T.dist[h, dh] == 1:
            out[n] = a
            n += 1
    return n
