"""Combat (8.0): obligations (8.11, 8.12, 8.21), building attacks (8.13, 8.22, 8.23), odds and the
Combat Results Table (8.0, 8.6), terrain (8.4), leaders (10.1), charges (12.5 + reference 6).

An attack is a set of attacking units and a set of defending units in which every attacker is adjacent to
every defender (8.15, 8.21, 8.22). The active corps' undisrupted units that are in an enemy ZOC when the
combat phase starts must attack (8.12), and every undisrupted enemy unit next to them must be attacked
unless it is also next to an inactive undisrupted friendly unit (8.11, 8.21). The mask keeps every choice
on a path that can still meet all obligations: an attack may only be resolved if each obligated unit left
out still has an unengaged opponent next to it (a cover by "star" attacks then always exists), and a unit
may only be added if the attack can still be completed that way (:func:`closure`).
"""
from __future__ import annotations

import numpy as np

from ..core.chance import roll
from ..core.events import emit
from ..core.jit import kernel
from .demoralization import is_demoralized
from .disruption import disrupt, eliminate
from .events import (EV_ATTACK, EV_CHARGE_DISRUPTED, R_AD, R_AX, R_AX_DEFENDER, R_CHARGE, R_DD, R_DX,
                     R_DX_ATTACKER, WHY_AE, WHY_DE)
from .leaders import check_leaders
from .state import (AC_ATT_LEADERS, AC_CHARGE, AC_DEF_LEADERS, F_ATK, F_CHARGE, F_DEF, F_IN_ATK, F_MOVED,
                    F_MUST_ATK, F_MUST_DEF, F_PHASE_CLEAR, F_SPENT, G_ACTIVE, G_ATTACK, G_VIS, G_VIS_OPT)
from .tables import fields, unit_at
from .zoc import in_enemy_zoc

RES_AE, RES_AD, RES_AX, RES_DX, RES_DD, RES_DE = 1, 2, 3, 4, 5, 6    # state.RESULT_CODES
# the items of context()
C_AT, C_ELIG, C_AVAIL, C_O1, C_N1, C_O2, C_N2, C_ACTIVE, C_SIDE, C_SA, C_SD = range(11)


# ------------------------------------------------------------------ who may attack, who must (8.1, 8.2)
@kernel
def context(buf, T):
    """The combat view of the active corps: ``(at, elig, avail, o1, n1, o2, n2, active, side, sa, sd)``:
    eligible attackers (8.14, 8.23: not attacked yet, of the active corps or of a corps not yet activated
    and not in an enemy ZOC), the attackers obliged to attack (8.12) and the defenders that must be
    attacked (8.11, 8.21) still unmet (``o1[:n1]``, ``o2[:n2]``, unit order), the enemy units not attacked
    yet (8.14), and the attack being built (``sa`` attackers, ``sd`` defenders: bool per unit)."""
    u_hex, u_dis, u_flags, _, _, _, _, _, _, cup, g = fields(buf, T)
    at = unit_at(u_hex, T.nh)
    active = g[G_ACTIVE]
    side = T.corps_side[active]
    nu = T.nu
    elig, avail = np.zeros(nu, np.bool_), np.zeros(nu, np.bool_)
    sa, sd = np.zeros(nu, np.bool_), np.zeros(nu, np.bool_)
    o1, o2 = np.empty(nu, np.int64), np.empty(nu, np.int64)
    n1 = n2 = 0
    for u in range(nu):
        h = u_hex[u]
        if h < 0:
            continue
        f = u_flags[u]
        if f & F_IN_ATK:
            if T.unit_side[u] == side:
                sa[u] = True
            else:
                sd[u] = True
        if T.unit_side[u] == side:
            if u_dis[u]:
                continue
            if not f & (F_ATK | F_SPENT):
                c = T.unit_corps[u]
                if c == active or (cup[c] and not in_enemy_zoc(T, at, u_dis, h, side)):
                    elig[u] = True               # 8.23: not yet activated, not in an enemy ZOC
            if f & F_MUST_ATK and not f & F_ATK:
                o1[n1] = u
                n1 += 1
        elif not f & F_DEF:
            avail[u] = True
            if f & F_MUST_DEF:
                o2[n2] = u
                n2 += 1
    return at, elig, avail, o1, n1, o2, n2, active, side, sa, sd


@kernel
def adjacent(T, u_hex, u, v):
    return T.dist[u_hex[u], u_hex[v]] == 1


@kernel
def adjacent_to_all(T, u_hex, u, group):
    """``u`` is adjacent to every unit of ``group`` (bool per unit): 8.15, 8.21, 8.22."""
    for v in range(group.size):
        if group[v] and T.dist[u_hex[u], u_hex[v]] != 1:
            return False
    return True


@kernel
def closure(T, u_hex, C, sa, sd):
    """Add to ``sa``/``sd`` (in place) the units any completion of the attack must include; False if the
    attack cannot meet the obligations: an obliged attacker left out needs an unengaged defender next to
    it (8.12), a defender that must be attacked left out an unengaged eligible attacker (8.11)."""
    at, elig, avail, o1, n1, o2, n2, active, side, _, _ = C
    while True:
        changed = False
        for i in range(n1):
            o = o1[i]
            if sa[o]:
                continue
            found = False
            for d in range(6):
                j = T.neighbors[u_hex[o], d]
                if j >= 0 and at[j] >= 0 and avail[at[j]] and not sd[at[j]]:
                    found = True
                    break
            if not found:
                if not sd.any() or not adjacent_to_all(T, u_hex, o, sd) or not elig[o]:
                    return False
                sa[o] = True
                changed = True
        for i in range(n2):
            o = o2[i]
            if sd[o]:
                continue
            found = False
            for d in range(6):
                j = T.neighbors[u_hex[o], d]
                if j >= 0:
                    a = at[j]
                    if a >= 0 and elig[a] and not sa[a] and T.unit_corps[a] == active:
                        found = True
                        break
            if not found:
                if not adjacent_to_all(T, u_hex, o, sa):
                    return False
                sd[o] = True
                changed = True
        if not changed:
            return True


@kernel
def has_active(T, group, active):
    for u in range(group.size):
        if group[u] and T.unit_corps[u] == active:
            return True
    return False


@kernel
def completable(T, u_hex, C, sa, sd):
    """The attack ``sa`` on ``sd`` can still be completed (with a unit of the active corps, 4.1 C) so
    that every obligation can be met."""
    elig, active = C[C_ELIG], C[C_ACTIVE]
    sa2, sd2 = sa.copy(), sd.copy()
    if not closure(T, u_hex, C, sa2, sd2) or not sd2.any():
        return False
    if has_active(T, sa2, active):
        return True
    for a in range(T.nu):
        if elig[a] and not sa2[a] and T.unit_corps[a] == active and adjacent_to_all(T, u_hex, a, sd2):
            sa3 = sa2.copy()
            sa3[a] = True
            if closure(T, u_hex, C, sa3, sd2.copy()):
                return True
    return False


@kernel
def can_resolve(T, u_hex, C):
    """The attack being built may be rolled: it has defenders and an attacker of the active corps, and
    leaves every obligation still possible to meet."""
    sa, sd, active = C[C_SA], C[C_SD], C[C_ACTIVE]
    if not sd.any() or not has_active(T, sa, active):
        return False
    sa2, sd2 = sa.copy(), sd.copy()
    return closure(T, u_hex, C, sa2, sd2) and (sa2 == sa).all() and (sd2 == sd).all()


@kernel
def start_candidates(T, u_hex, C, out):
    """8.1: the enemy units an attack may be declared on now (next to an eligible unit of the active
    corps, and the attack can still meet every obligation), into ``out``; their number returned."""
    at, elig, avail, active = C[C_AT], C[C_ELIG], C[C_AVAIL], C[C_ACTIVE]
    near = np.zeros(T.nu, np.bool_)
    for a in range(T.nu):
        if elig[a] and T.unit_corps[a] == active:
            for d in range(6):
                j = T.neighbors[u_hex[a], d]
                if j >= 0 and at[j] >= 0 and avail[at[j]]:
                    near[at[j]] = True
    none = np.zeros(T.nu, np.bool_)
    n = 0
    for e in range(T.nu):
        if near[e]:
            sd = np.zeros(T.nu, np.bool_)
            sd[e] = True
            if completable(T, u_hex, C, none, sd):
                out[n] = e
                n += 1
    return n


@kernel
def add_candidates(T, u_hex, C, out):
    """8.13, 8.22, 8.23: the units (friendly attackers or enemy defenders) that may join the attack being
    built, into ``out``; their number returned."""
    at, elig, avail, side, sa, sd = C[C_AT], C[C_ELIG], C[C_AVAIL], C[C_SIDE], C[C_SA], C[C_SD]
    seen = np.zeros(T.nu, np.bool_)
    n = 0
    for m in range(T.nu):
        if not (sa[m] or sd[m]):
            continue
        for d in range(6):
            j = T.neighbors[u_hex[m], d]
            if j < 0 or at[j] < 0:
                continue
            v = at[j]
            if seen[v] or sa[v] or sd[v]:
                continue
            seen[v] = True
            if T.unit_side[v] == side:
                if elig[v] and adjacent_to_all(T, u_hex, v, sd):
                    sa2 = sa.copy()
                    sa2[v] = True
                    if completable(T, u_hex, C, sa2, sd):
                        out[n] = v
                        n += 1
            elif avail[v]:
                ok = True
                for a in range(T.nu):
                    if sa[a] and not adjacent(T, u_hex, a, v):
                        ok = False
                if ok:
                    sd2 = sd.copy()
                    sd2[v] = True
                    if completable(T, u_hex, C, sa, sd2):
                        out[n] = v
                        n += 1
    return n


# ------------------------------------------------------------------ charges (12.5, reference 6)
@kernel
def can_charge(buf, T, a, sd):
    """Reference 6 (Charge) with 12.5 and the restricted-visibility limit: undisrupted cavalry of the
    active corps that moved far enough this phase, against undisrupted cavalry only (Swedish cavalry:
    also disrupted cavalry or a demoralized army's units); in restricted visibility only with a friendly
    leader within one hex."""
    u_hex, u_dis, _, u_start, l_hex, _, _, _, _, _, g = fields(buf, T)
    if T.unit_kind[a] != 1 or u_dis[a]:
        return False
    st = u_start[a]
    if T.unit_corps[a] != g[G_ACTIVE] or st < 0 or T.dist[st, u_hex[a]] < T.charge_min_hexes:
        return False
    swede = T.unit_army[a] == T.swede_army
    for d in range(T.nu):
        if not sd[d]:
            continue
        if T.unit_kind[d] == 1 and not u_dis[d]:
            continue
        if swede and ((T.unit_kind[d] == 1 and u_dis[d]) or is_demoralized(g, T.unit_army[d])):
            continue                                  # 12.5
        return False
    if g[G_VIS_OPT] and g[G_VIS] == 2:
        h = u_hex[a]
        side = T.unit_side[a]
        for l in range(T.nl):
            if l_hex[l] >= 0 and T.leader_side[l] == side and T.dist[l_hex[l], h] <= 1:
                return True
        return False
    return True


@kernel
def any_charge_eligible(buf, T, sa, sd):
    for a in range(T.nu):
        if sa[a] and can_charge(buf, T, a, sd):
            return True
    return False


# ------------------------------------------------------------------ the combat phase
@kernel
def start_phase(buf, T):
    """Combat phase start: clear the per-phase marks, fix the obligations: the active corps' undisrupted
    units in an enemy ZOC must attack (8.12); the undisrupted enemies next to them must be attacked
    (8.11), unless also next to an inactive undisrupted friendly unit (8.11 exception)."""
    u_hex, u_dis, u_flags, _, _, _, _, _, _, _, g = fields(buf, T)
    for u in range(T.nu):
        u_flags[u] &= ~F_PHASE_CLEAR
    at = unit_at(u_hex, T.nh)
    active = g[G_ACTIVE]
    side = T.corps_side[active]
    must_def = np.zeros(T.nu, np.bool_)
    for k in range(T.corps_n_units[active]):
        u = T.corps_units[active, k]
        h = u_hex[u]
        if h < 0 or u_dis[u] or u_flags[u] & F_SPENT:
            continue
        engaged = False
        for d in range(6):
            j = T.neighbors[h, d]
            if j >= 0:
                e = at[j]
                if e >= 0 and T.unit_side[e] != side and not u_dis[e]:
                    engaged = True
                    must_def[e] = True
        if engaged:
            u_flags[u] |= F_MUST_ATK
    for e in range(T.nu):
        if not must_def[e]:
            continue
        covered = False
        for d in range(6):
            j = T.neighbors[u_hex[e], d]
            if j >= 0:
                f = at[j]
                if f >= 0 and T.unit_side[f] == side and not u_dis[f] and T.unit_corps[f] != active:
                    covered = True
        if not covered:
            u_flags[e] |= F_MUST_DEF


# ------------------------------------------------------------------ leaders (10.1)
@kernel
def may_add_leader(T, l, side, attacking, active):
    """10.11: a leader of ``side`` may add his value to a unit he is stacked with: an attacker only
    leaders of the activated corps (4.1 C), a defender any of his side's."""
    return T.leader_side[l] == side and (not attacking or T.leader_corps[l] == active)


@kernel
def leader_bonus(T, l_hex, h, side, attacking, active):
    """10.11, 10.13: the best value a leader may add to the unit in hex ``h`` (one leader per unit)."""
    best = 0
    for l in range(T.nl):
        if l_hex[l] == h and may_add_leader(T, l, side, attacking, active):
            best = max(best, T.leader_value[l])
    return best


@kernel
def has_combat_leaders(buf, T, group, attacking):
    """10.11: some leader may add his value to a unit of ``group`` (the owner is then asked)."""
    u_hex, _, _, _, l_hex, _, _, _, _, _, g = fields(buf, T)
    for u in range(T.nu):
        if group[u]:
            side = T.unit_side[u]
            for l in range(T.nl):
                if l_hex[l] >= 0 and l_hex[l] == u_hex[u] and may_add_leader(T, l, side, attacking, g[G_ACTIVE]):
                    return True
    return False


# ------------------------------------------------------------------ odds (8.0, 8.4, 9.13, 10.12)
@kernel
def terrain_multiple(T, h, all_slope):
    """8.4: the defence multiple of hex ``h`` (hilltop: doubled only if every attacker is on a slope)."""
    m = T.defense_mult[h]
    if m > 1 and T.defense_needs_slope[h] and not all_slope:
        m = 1
    return m


@kernel
def all_on_slope(T, u_hex, sa):
    for a in range(T.nu):
        if sa[a] and not T.is_slope[u_hex[a]]:
            return False
    return True


@kernel
def strengths(buf, T, sa, sd, charging, lead_a, lead_d):
    """(attack, defence) in half strength points: printed strengths plus the leaders' values where their
    owners add them (10.11, 10.12), charging cavalry multiplied unless a defender is disrupted (9.13),
    disrupted defenders at their back value (9.13), defenders times their terrain (8.4)."""
    u_hex, u_dis, _, _, l_hex, _, _, _, _, _, g = fields(buf, T)
    active = g[G_ACTIVE]
    any_dis_def = False
    for d in range(T.nu):
        if sd[d] and u_dis[d]:
            any_dis_def = True
    att = 0
    for a in range(T.nu):
        if sa[a]:
            v = T.unit_strength[a]
            if lead_a:
                v += leader_bonus(T, l_hex, u_hex[a], T.unit_side[a], True, active)
            if charging[a] and not any_dis_def:
                v *= T.charge_mult
            att += 2 * v
    all_slope = all_on_slope(T, u_hex, sa)
    dfn = 0
    for d in range(T.nu):
        if sd[d]:
            h = u_hex[d]
            lv = leader_bonus(T, l_hex, h, T.unit_side[d], False, active) if lead_d else 0
            v2 = 2 * T.unit_dstrength[d] + lv if u_dis[d] else 2 * (T.unit_strength[d] + lv)
            dfn += v2 * terrain_multiple(T, h, all_slope)
    return att, dfn


@kernel
def odds_column(T, att2, def2):
    """8.0: the CRT column: the highest odds not above attack : defence (rounded for the defender)."""
    col = 0
    for i in range(T.crt_x.size):
        if att2 * T.crt_y[i] >= def2 * T.crt_x[i]:
            col = i
    return col


CHARGE_NONE, CHARGE_ELIGIBLE, CHARGE_MARKED = 0, 1, 2


@kernel
def charging_units(buf, T, sa, sd, mode):
    """The charging attackers: none, every eligible one (``CHARGE_ELIGIBLE``) or those marked when the
    attack was declared (``CHARGE_MARKED``)."""
    _, _, u_flags, _, _, _, _, _, _, _, _ = fields(buf, T)
    charging = np.zeros(T.nu, np.bool_)
    for a in range(T.nu):
        if sa[a]:
            if mode == CHARGE_MARKED:
                charging[a] = u_flags[a] & F_CHARGE != 0
            elif mode == CHARGE_ELIGIBLE:
                charging[a] = can_charge(buf, T, a, sd)
    return charging


@kernel
def attack_odds(buf, T, charge_mode, lead_a, lead_d):
    """(attack, defence, column, any charging) of the attack being built (for its description)."""
    C = context(buf, T)
    sa, sd = C[C_SA], C[C_SD]
    charging = charging_units(buf, T, sa, sd, charge_mode)
    att, dfn = strengths(buf, T, sa, sd, charging, lead_a, lead_d)
    return att, dfn, odds_column(T, att, dfn), charging.any()


# ------------------------------------------------------------------ resolution (8.0, 8.6)
@kernel
def declare(buf, T, charge):
    """The attacker resolves the attack being built, with (``RESOLVE_CHARGE``) or without a charge: the
    charging units are marked; the leaders' choices (10.11) come next, then :func:`resolve`."""
    _, _, u_flags, _, _, _, _, _, _, _, g = fields(buf, T)
    if charge:
        C = context(buf, T)
        charging = charging_units(buf, T, C[C_SA], C[C_SD], CHARGE_ELIGIBLE)
        for a in range(T.nu):
            if charging[a]:
                u_flags[a] |= F_CHARGE
    g[G_ATTACK] = AC_CHARGE if charge else 0


@kernel
def around(T, anchor, hexes):
    """The directions (bits) around hex ``anchor`` of the hexes marked in ``hexes`` (for the log)."""
    bits = 0
    for k in range(6):
        j = T.neighbors[anchor, k]
        if j >= 0 and hexes[j]:
            bits |= 1 << k
    return bits


@kernel
def emit_attack(buf, T, sa, sd, att, dfn, col, die, res, charging, ev, evn):
    """The attack's log line (events.attack_text): its hexes, odds, notes, die and result."""
    u_hex, u_dis, _, _, _, _, _, _, _, _, _ = fields(buf, T)
    ah, dh, noted = np.zeros(T.nh, np.bool_), np.zeros(T.nh, np.bool_), np.zeros(T.nh, np.bool_)
    a0 = d0 = T.nh
    any_dis_def = False
    all_slope = all_on_slope(T, u_hex, sa)
    for u in range(T.nu):
        if sa[u]:
            ah[u_hex[u]] = True
            a0 = min(a0, u_hex[u])
        if sd[u]:
            dh[u_hex[u]] = True
            d0 = min(d0, u_hex[u])
            noted[u_hex[u]] = terrain_multiple(T, u_hex[u], all_slope) > 1
            any_dis_def |= u_dis[u] != 0
    note = 0
    if charging.any():
        note = 2 if any_dis_def else 1
    emit(ev, evn, EV_ATTACK, d0 + 1024 * around(T, d0, ah) + 65536 * around(T, a0, dh), 4096 * att + dfn,
         col + 16 * die + 256 * res + 2048 * note, a0 + 1024 * around(T, a0, noted))


@kernel
def resolve(buf, T, dv, ds, ev, evn, work):
    """Roll for the attack declared (:func:`declare`) with the leaders' values the players chose to add
    (8.0), mark the units (8.14, 8.23) and apply the result (8.6). Returns (result, side that must choose
    a unit to disrupt or -1). Ax and Dx hit one side's units, then one unit of the other side: a leader
    their first part leaves alone is caught "immediately" (10.0), before the other side's unit is disrupted
    and loses its zone of control (9.12). ``work``: scratch."""
    u_hex, _, u_flags, _, _, _, _, _, _, _, g = fields(buf, T)
    C = context(buf, T)
    sa, sd, active, side = C[C_SA], C[C_SD], C[C_ACTIVE], C[C_SIDE]
    charging = charging_units(buf, T, sa, sd, CHARGE_MARKED)
    choices = g[G_ATTACK]
    g[G_ATTACK] = 0
    att, dfn = strengths(buf, T, sa, sd, charging, choices & AC_ATT_LEADERS != 0, choices & AC_DEF_LEADERS != 0)
    col = odds_column(T, att, dfn)
    die = roll(dv, ds, 6, 1)
    res = T.crt[die - 1, col]
    for a in range(T.nu):
        if sa[a]:
            f = F_ATK | (F_CHARGE if charging[a] else 0)
            if T.unit_corps[a] != active:
                f |= F_SPENT | F_MOVED                   # 8.23
            u_flags[a] |= f
        if sd[a]:
            u_flags[a] |= F_DEF
    emit_attack(buf, T, sa, sd, att, dfn, col, die, res, charging, ev, evn)
    if res == RES_AE:
        for a in range(T.nu):
            if sa[a]:
                eliminate(buf, T, a, WHY_AE, True, ev, evn)
    elif res == RES_DE:
        for d in range(T.nu):
            if sd[d]:
                eliminate(buf, T, d, WHY_DE, True, ev, evn)
    elif res == RES_AD:
        for a in range(T.nu):
            if sa[a]:
                disrupt(buf, T, a, R_AD, True, ev, evn)
    elif res == RES_DD:
        for d in range(T.nu):
            if sd[d]:
                disrupt(buf, T, d, R_DD, True, ev, evn)
    elif res == RES_AX:
        for a in range(T.nu):
            if sa[a]:
                disrupt(buf, T, a, R_AX, True, ev, evn)
        check_leaders(buf, T, ev, evn, work)
        if count_on_map(u_hex, sd) > 1:
            return res, 1 - side
        for d in range(T.nu):
            if sd[d] and u_hex[d] >= 0:
                disrupt(buf, T, d, R_AX_DEFENDER, True, ev, evn)
    elif res == RES_DX:
        for d in range(T.nu):
            if sd[d]:
                disrupt(buf, T, d, R_DX, True, ev, evn)
        check_leaders(buf, T, ev, evn, work)
        if count_on_map(u_hex, sa) > 1:
            return res, side
        for a in range(T.nu):
            if sa[a] and u_hex[a] >= 0:
                disrupt(buf, T, a, R_DX_ATTACKER, True, ev, evn)
    return res, -1


@kernel
def count_on_map(u_hex, group):
    n = 0
    for u in range(group.size):
        if group[u] and u_hex[u] >= 0:
            n += 1
    return n


@kernel
def is_loss_candidate(T, u_hex, u_flags, u, loss_side):
    """Ax/Dx (8.6): the owner picks the unit to disrupt among his units in the combat."""
    return u_flags[u] & F_IN_ATK != 0 and u_hex[u] >= 0 and T.unit_side[u] == loss_side


@kernel
def finish(buf, T, res, ev, evn):
    """After the result (and any Ax/Dx choice): charging cavalry is disrupted unless the defender was
    (Dd, De: 12.5); the attack marks are cleared."""
    u_hex, u_dis, u_flags, _, _, _, _, _, _, _, _ = fields(buf, T)
    if res != RES_DD and res != RES_DE:
        for u in range(T.nu):
            if u_flags[u] & F_CHARGE and u_hex[u] >= 0 and not u_dis[u]:
                r = disrupt(buf, T, u, R_CHARGE, True, ev, evn)
                emit(ev, evn, EV_CHARGE_DISRUPTED, u, u_hex[u], r, res)
    for u in range(T.nu):
        u_flags[u] &= ~(F_IN_ATK | F_CHARGE)

