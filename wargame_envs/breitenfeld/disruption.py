"""Disruption (9.0), elimination, and the Mutual Disruption Removal Phase (9.2, 10.2, 11.11), compiled.

An undisrupted unit that is disrupted is flipped; a disrupted unit disrupted again is eliminated
(9.0) -- except by artillery, which never eliminates (5.35 / the 5.11 exception). Eliminated strength
counts toward the army's Demoralization Level and scores for the enemy.
"""

from __future__ import annotations

import numpy as np

from ..core.chance import roll
from ..core.events import emit
from ..core.jit import kernel
from .demoralization import record_loss
from .events import DISRUPT_DISRUPTED, DISRUPT_ELIMINATED, DISRUPT_NONE, EV_ELIMINATED, EV_REMOVAL, WHY_AGAIN
from .state import G_DEMOR, G_MAY1, G_VIS, G_VIS_OPT, G_VP0, OFF_ELIM
from .tables import fields, unit_at
from .zoc import in_enemy_zoc


@kernel
def eliminate(buf, T, u, why, score, ev, evn):
    """Remove unit ``u`` (``why``: events.WHY_*); its printed strength counts as lost (11.0) and, if
    ``score``, scores for the enemy."""
    u_hex, u_dis, _, _, _, _, _, _, _, _, g = fields(buf, T)
    h = u_hex[u]
    u_hex[u] = OFF_ELIM
    u_dis[u] = 0
    record_loss(T, g, T.unit_army[u], T.unit_strength[u], ev, evn)
    if score:
        g[G_VP0 + 1 - T.unit_side[u]] += T.unit_strength[u] * T.vp_per_sp
    emit(ev, evn, EV_ELIMINATED, u, h, why, 0)


@kernel
def disrupt(buf, T, u, reason, can_eliminate, ev, evn):
    """9.0: one disruption result on ``u`` (``reason``: events.R_*); returns events.DISRUPT_*."""
    u_hex, u_dis, _, _, _, _, _, _, _, _, g = fields(buf, T)
    if u_hex[u] < 0:
        return DISRUPT_NONE
    if u_dis[u] == 0:
        u_dis[u] = 1
        g[G_MAY1] = 1                    # 12.3: the Imperialists may move as soon as any unit is disrupted
        return DISRUPT_DISRUPTED
    if can_eliminate:
        g[G_MAY1] = 1                    # (a hit on a disrupted unit without effect, 5.35, releases no one)
        eliminate(buf, T, u, WHY_AGAIN + reason, True, ev, evn)
        return DISRUPT_ELIMINATED
    return DISRUPT_NONE


@kernel
def best_leader_within(T, l_hex, h, side, radius):
    """10.21, 10.23: the highest leadership value of a friendly leader within ``radius`` hexes of ``h``."""
    best = 0
    for l in range(l_hex.size):
        lh = l_hex[l]
        if lh >= 0 and T.leader_side[l] == side and T.leader_value[l] > best:
            if lh == h or (radius and T.dist[lh, h] <= radius):
                best = T.leader_value[l]
    return best


@kernel
def undisrupt_needed(T, g):
    """9.2: the adjusted roll that undisrupts: 5, or 6 in moderate or restricted visibility (10.34)."""
    if g[G_VIS_OPT] and g[G_VIS] >= 1:
        return T.vis_moderate_undisrupt_on
    return T.undisrupt_on


@kernel
def removal_phase(buf, T, dv, ds, ev, evn):
    """4.1 A: roll for every eligible disrupted unit, Allied units first, then Imperial (eligibility
    fixed at the start of the phase: 9.2, 7.23, 10.25, 11.11)."""
    u_hex, u_dis, _, _, l_hex, _, _, _, _, _, g = fields(buf, T)
    at = unit_at(u_hex, T.nh)
    eligible = np.empty(T.nu, np.int64)
    n = 0
    for side in range(2):
        for u in range(T.nu):
            h = u_hex[u]
            if h < 0 or u_dis[u] == 0 or T.unit_side[u] != side:
                continue
            if in_enemy_zoc(T, at, u_dis, h, side):     # 9.2, 7.23, 10.25
                continue
            if T.unit_kind[u] == 0 and (g[G_DEMOR] >> T.unit_army[u]) & 1:
                continue                                # 11.11
            eligible[n] = u
            n += 1
    need = undisrupt_needed(T, g)
    for k in range(n):
        u = eligible[k]
        h = u_hex[u]
        die = roll(dv, ds, 6, 1)
        lv = best_leader_within(T, l_hex, h, T.unit_side[u], 1)
        total = min(die + lv, T.max_roll)
        ok = total >= need
        emit(ev, evn, EV_REMOVAL, u, h, die + 16 * total, 2 * lv + (1 if ok else 0))
        if ok:
            u_dis[u] = 0
