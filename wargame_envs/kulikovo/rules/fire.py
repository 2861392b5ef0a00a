"""Missile fire (9.x): phasing, reaction and return fire, line of sight, the Fire Table, counter-charge
against fire (11.3), and the retreat and facing decisions every combat result may call for (12.1).
Compiled kernels (``c``: the state, ``T``: the tables).
"""

from __future__ import annotations

import numpy as np

from ...core.chance import roll
from ...core.jit import kernel
from ..actions import OPT_NO, OPT_YES
from ..data import DD, DR, EL, RT, H, L, M, RIVER, STEEP
from ..events import (
    EV_CC_LAPSES, EV_CC_ROLL, EV_CC_WAITS, EV_CHARGER_DIS, EV_FIRE, EV_MOD, EV_PART, EV_RETREATS,
    EV_RETREATS_THROUGH, EV_TURNS_TO_FIRE, MOD_FIRER_DIS, MOD_HORSE_FLANK, MOD_RANGE, MOD_WOODS,
)
from ..geometry import FLANK, FRONT, REAR
from ..state import (
    A_CC_CHARGE, A_FIRE, A_RESOLVE, D_CC_FIRE, D_FACE, D_RETREAT, D_RETURN, D_UNIT_ACT, DISORDERED, F_ACTED,
    F_CC_OK, F_CC_WAIT, F_CHARGING, F_DECLARED, F_DONE, F_DORMANT, F_FIRE_TURN_CCW, F_FIRE_TURN_CW, F_FIRED,
    F_LEFT_HEX, F_RETURNED, F_RETURNING, F_STOPPED,
    F_XBOW_REACTED, G_ACTIVE, G_SP, NORMAL, RETIRED,
)
from .board import attackers_of, disorder, eliminate, enter, retire, targeted
from .kstate import insert_below, log, pop, push
from .leaders import leader_check_fire
from .tables import (
    TV_CC_FLANK, TV_CC_MEDIUM, TV_CC_OK_MAX, TV_FIRE_FIRER_DIS, TV_FIRE_HORSE_FLANK, TV_FIRE_LEADER_CHECK_AT,
    TV_WOODS_FIRE,
)
from .zoc import zoc_fill

C_TYPE = 5
B_TYPE = 4
RIVER = 3
FRONT_FLANK = (1 << FRONT) | (1 << FLANK)
RETREAT_MAX = 48


# ------------------------------------------------------------------ facing geometry (6.0)
@kernel
def cat(face, d):
    """Hexside category (FRONT/FLANK/REAR) of neighbour direction ``d`` for a unit facing vertex ``face``."""
    k = (d - face) % 6
    if k < 2:
        return FRONT
    if k == 2 or k == 5:
        return FLANK
    return REAR


@kernel
def near_index(T, x, t):
    """The entry of hex ``t`` among the hexes at range 1-2 of ``x`` (-1: farther)."""
    for k in range(T.near_n[x]):
        if T.near_t[x, k] == t:
            return k
    return -1


@kernel
def category(T, x, k, face):
    """Hexside category of the hex in entry ``k`` of ``x``'s range 1-2 hexes for a unit in ``x`` facing
    ``face``; a line along a vertex between two categories counts as the better one."""
    best = REAR
    for i in range(T.near_nd[x, k]):
        best = min(best, cat(face, T.near_dirs[x, k, i]))
    return best


@kernel
def fire_range_of(T, x, k, t):
    return 1 if T.near_nd[x, k] == 1 and T.nbr[x, T.near_dirs[x, k, 0]] == t else 2


# ------------------------------------------------------------------ targets
@kernel
def can_fire_at(c, T, f, tgt_hex, arcs):
    """Range (1-2) if missile unit ``f`` may fire at ``tgt_hex`` through the hexside categories in the
    bit set ``arcs`` of its own facing, with LOS (9.4); 0 otherwise."""
    return can_fire_facing(c, T, f, tgt_hex, arcs, c.u_face[f])


@kernel
def facing_options(c, T, u):
    """6.0: free facing, except a unit in an enemy ZOC that stays in its hex turns one vertex in all (counted
    from its facing before it turned to fire, C52). A bit per facing. Reads the ZOC against ``u``'s side
    (filled by the caller)."""
    f = c.u_face[u]
    if not c.u_flags[u] & F_LEFT_HEX and c.zc[T.uplayer[u], c.u_hex[u]] > 0:
        if c.u_flags[u] & F_FIRE_TURN_CW:
            f = (f + 5) % 6
        elif c.u_flags[u] & F_FIRE_TURN_CCW:
            f = (f + 1) % 6
        return (1 << ((f + 5) % 6)) | (1 << f) | (1 << ((f + 1) % 6))
    return 63


@kernel
def fire_facing(c, T, f, tgt_hex):
    """The facing an activated missile unit ``f`` fires at ``tgt_hex`` from: its own if the target lies in its
    frontal or flank hexsides, else the nearest (clockwise first) it may turn to (6.0: free facing when
    activated, one vertex in an enemy ZOC) that brings it there, as turning is not movement for "fire or
    Movement" (C52); -1 if none. Reads the ZOC against ``f``'s side (filled by the caller)."""
    faces = facing_options(c, T, f)
    face = c.u_face[f]
    for k in range(6):
        g = (face + (k + 1) // 2 * (1 if k % 2 else -1)) % 6   # 0, +1, -1, +2, -2, +3
        if faces >> g & 1 and can_fire_facing(c, T, f, tgt_hex, FRONT_FLANK, g):
            return g
    return -1


@kernel
def can_fire_facing(c, T, f, tgt_hex, arcs, face):
    """:func:`can_fire_at` with missile unit ``f`` facing ``face``."""
    x = c.u_hex[f]
    k = near_index(T, x, tgt_hex)
    if k < 0:
        return 0
    ok = False
    for i in range(T.near_nd[x, k]):
        if arcs >> cat(face, T.near_dirs[x, k, i]) & 1:
            ok = True
    if not ok:
        return 0
    rng = fire_range_of(T, x, k, tgt_hex)
    if rng == 2:
        if not T.near_los[x, k]:
            return 0
        if T.utype[f] == C_TYPE:  # 9.4: crossbows do not fire through units
            nm = T.near_nmid[x, k]
            if nm > 0:
                full = True
                for i in range(nm):
                    if c.hex_unit[T.near_mids[x, k, i]] < 0:
                        full = False
                if full:
                    return 0
    return rng


@kernel
def fire_targets(c, T, u, mask):
    """Phasing fire (9.2): once per activation, through frontal and flank hexsides, turning first where it
    may (C52); light cavalry in an enemy ZOC pay 1 MP (9.1). Marks the target hexes in ``mask``; reads the ZOC
    against ``u``'s side (filled by the caller). Returns how many."""
    st = c.u_status[u]
    if not T.umissile[u] or c.u_flags[u] & (F_FIRED | F_DONE) or (st != NORMAL and st != DISORDERED):
        return 0
    x = c.u_hex[u]
    p = T.uplayer[u]
    if T.utype[u] == L and c.zc[p, x] > 0 and c.u_mp[u] < 1:
        return 0
    n = 0
    for k in range(T.near_n[x]):
        t = T.near_t[x, k]
        v = c.hex_unit[t]
        if v >= 0 and T.uplayer[v] != p and fire_facing(c, T, u, t) >= 0:
            mask[t] = True
            n += 1
    return n


@kernel
def turn_to_fire(c, T, f, x, face):
    """6.0: the activated missile unit ``f`` in hex ``x`` turns to ``face`` to fire (C52); in an enemy ZOC,
    where it turns one vertex in all, the turn is remembered (:func:`facing_options`)."""
    old = c.u_face[f]
    if face == old:
        return
    if not c.u_flags[f] & F_LEFT_HEX and c.zc[T.uplayer[f], x] > 0:
        c.u_flags[f] |= F_FIRE_TURN_CW if face == (old + 1) % 6 else F_FIRE_TURN_CCW
    c.u_face[f] = face
    log(c, EV_TURNS_TO_FIRE, f, x, face)


@kernel
def start_fire(c, T, f, target, reaction):
    p = T.uplayer[f]
    q = 1 - p
    x = c.u_hex[f]
    if not reaction:
        zoc_fill(c, T, p)
        turn_to_fire(c, T, f, x, fire_facing(c, T, f, c.u_hex[target]))
    c.u_flags[f] |= F_FIRED | F_ACTED
    if not reaction:
        if T.utype[f] == L:
            if c.zc[p, x] > 0:
                c.u_mp[f] -= 1
        else:
            c.u_mp[f] = 0
            c.u_flags[f] |= F_STOPPED
    push(c, A_FIRE, p, f, target, int(reaction))
    # 9.2 Return Fire: L or B fired at by a missile unit within its range, once per enemy activation
    tt = T.utype[target]
    ts = c.u_status[target]
    if (tt == L or tt == B_TYPE) and (ts == NORMAL or ts == DISORDERED) and not c.u_flags[target] & F_RETURNED \
            and q != c.g[G_ACTIVE] and can_fire_at(c, T, target, x, FRONT_FLANK):
        push(c, D_RETURN, q, target, f)
    if cc_fire_facings(c, T, target, f):
        push(c, D_CC_FIRE, q, target, f)


# ------------------------------------------------------------------ counter-charge
@kernel
def cc_eligible(c, T, d, attackers, na):
    """11.3: H/M neither Disordered nor in the ZOC of another enemy unit. A phasing unit that has
    declared its Shock or Charge (its one attack of the activation, 10.0) may not counter-charge the
    reaction fire its charge move draws: that would be a second attack (clarification C37)."""
    ut = T.utype[d]
    if (ut != H and ut != M) or c.u_status[d] != NORMAL or c.u_flags[d] & (F_DECLARED | F_DORMANT):
        return False  # F_DORMANT: an Ambush Regiment unit not yet activated does nothing (15.2)
    p = T.uplayer[d]
    zoc_fill(c, T, p)
    x = c.u_hex[d]
    for i in range(c.zc[p, x]):
        e = c.zu[p, x, i]
        other = True
        for j in range(na):
            if attackers[j] == e:
                other = False
        if other:
            return False
    return True


@kernel
def dir_to(T, x, y):
    """Direction from hex ``x`` to its neighbour ``y``; -1 if they are not neighbours."""
    for d in range(6):
        if T.nbr[x, d] == y:
            return d
    return -1


@kernel
def charge_step_barred(T, x, d):
    """11.1: no charge from hex ``x`` into its neighbour in direction ``d`` when that is a woods hex or the
    hexside between them is a steep slope or a river (a counter-charge is resolved as a Charge, 11.3, so the
    same limits hold for it: clarification C41)."""
    hs = T.hexside[x, d]
    return T.woods[T.nbr[x, d]] or hs == STEEP or hs == RIVER


@kernel
def charge_barred(T, x, y):
    """:func:`charge_step_barred` from hex ``x`` into its neighbour ``y``."""
    return charge_step_barred(T, x, dir_to(T, x, y))


@kernel
def cc_destination(c, T, cc, enemy, face):
    """Hex from which ``cc`` (facing ``face``) charges ``enemy``: its own hex if the enemy is frontal,
    else an empty frontal hex with the enemy frontal from it (11.3: no facing change once started), not
    across a river from the enemy (no shock across it, 10.0) and not reached by a move a charge may not make
    (11.1: into woods, across a steep slope or river hexside); -1: none."""
    x, e = c.u_hex[cc], c.u_hex[enemy]
    a, b = face, (face + 1) % 6
    if T.nbr[x, a] == e or T.nbr[x, b] == e:
        return x if T.hexside[x, dir_to(T, x, e)] != RIVER else -1
    for y in (T.nbr[x, a], T.nbr[x, b]):
        if y >= 0 and c.hex_unit[y] < 0 and (T.nbr[y, a] == e or T.nbr[y, b] == e) \
                and not charge_barred(T, x, y) and T.hexside[y, dir_to(T, y, e)] != RIVER:
            return y
    return -1


@kernel
def cc_fire_facings(c, T, tgt, firer):
    """Facings (a bit each) from which ``tgt`` could counter-charge ``firer`` (fire through its front or
    flank)."""
    att = np.empty(1, np.int64)
    att[0] = firer
    if not cc_eligible(c, T, tgt, att, 1):
        return 0
    x, fh = c.u_hex[tgt], c.u_hex[firer]
    k = near_index(T, x, fh)
    if k < 0:
        return 0
    if category(T, x, k, c.u_face[tgt]) == REAR:
        return 0
    out = 0
    for f in range(6):
        if cc_destination(c, T, tgt, firer, f) >= 0:
            out |= 1 << f
    return out


@kernel
def opt_cc_fire(c, T, t, mask):
    tgt, firer = t[2], t[3]
    if c.u_hex[tgt] < 0 or c.u_hex[firer] < 0:
        return 0
    fs = cc_fire_facings(c, T, tgt, firer)
    if not fs:
        return 0
    n = 1
    mask[T.A_OPT + OPT_NO] = True
    for f in range(6):
        if fs >> f & 1:
            mask[T.A_FACE + f] = True
            n += 1
    return n


@kernel
def cc_roll(c, T, d, flank):
    """11.3: the counter-charge succeeds on DR + defense (+1 from the flank, +1 for M) <= 3
    (``counter_charge_ok_max``)."""
    dr = roll(c.dv, c.ds, 10, 0)
    adj = dr + T.udef[d] + (T.tv[TV_CC_FLANK] if flank else 0) + (T.tv[TV_CC_MEDIUM] if T.utype[d] == M else 0)
    ok = adj <= T.tv[TV_CC_OK_MAX]
    log(c, EV_CC_ROLL, d, c.u_hex[d], int(flank) | int(ok) << 1, dr)
    return ok


@kernel
def do_cc_fire(c, T, t, a):
    tgt, firer = t[2], t[3]
    pop(c)
    if a == T.A_OPT + OPT_NO:
        return
    f = a - T.A_FACE
    x = c.u_hex[tgt]
    k = near_index(T, x, c.u_hex[firer])
    flank = category(T, x, k, c.u_face[tgt]) == FLANK
    if cc_roll(c, T, tgt, flank):
        c.u_flags[tgt] |= F_CC_OK
        c.u_ccv[tgt] = firer
        # 11.3: the fire is resolved against the unit as it stands; it turns to counter-charge after (C55)
        for i in range(c.g[G_SP] - 1, -1, -1):
            if c.stack[i, 0] == A_FIRE and c.stack[i, 2] == firer and c.stack[i, 3] == tgt:
                c.stack[i, 5] = f
                break


# ------------------------------------------------------------------ return / reaction
@kernel
def opt_return(c, T, t, mask):
    if c.u_hex[t[2]] < 0 or c.u_hex[t[3]] < 0:
        return 0
    mask[T.A_OPT + OPT_YES] = True
    mask[T.A_OPT + OPT_NO] = True
    return 2


@kernel
def do_return(c, T, t, a):
    pop(c)
    if a == T.A_OPT + OPT_YES:
        c.u_flags[t[2]] |= F_RETURNING | F_RETURNED


@kernel
def opt_react(c, T, t, mask):
    r, m = t[2], t[3]
    st = c.u_status[r]
    if c.u_hex[r] < 0 or c.u_hex[m] < 0 or (st != NORMAL and st != DISORDERED):
        return 0
    x = c.u_hex[r]
    mh = c.u_hex[m]
    if mh != T.front_nb[x, c.u_face[r], 0] and mh != T.front_nb[x, c.u_face[r], 1]:
        return 0
    if T.utype[r] == C_TYPE and c.u_flags[r] & F_XBOW_REACTED:
        return 0
    mask[T.A_OPT + OPT_YES] = True
    mask[T.A_OPT + OPT_NO] = True
    return 2


@kernel
def do_react(c, T, t, a):
    r, m = t[2], t[3]
    pop(c)
    if a == T.A_OPT + OPT_NO:
        return
    c.u_react[r] = m
    if T.utype[r] == C_TYPE:
        c.u_flags[r] |= F_XBOW_REACTED
    start_fire(c, T, r, m, True)


# ------------------------------------------------------------------ resolve
@kernel
def fire_dr(c, T, f, tgt):
    """9.3: the fire die roll of ``f`` at ``tgt`` with its modifiers (emitted as parts of the log line):
    (adjusted DR, DR)."""
    x, y = c.u_hex[f], c.u_hex[tgt]
    k = near_index(T, x, y)
    rng = fire_range_of(T, x, k, y)
    dr = roll(c.dv, c.ds, 10, 0)
    total = dr
    m = T.fire_range[T.utype[f], rng - 1]
    log(c, EV_MOD, m, MOD_RANGE, rng)
    total += m
    back = near_index(T, y, x)
    if T.uhorse[tgt] and category(T, y, back, c.u_face[tgt]) == FLANK:
        log(c, EV_MOD, T.tv[TV_FIRE_HORSE_FLANK], MOD_HORSE_FLANK)
        total += T.tv[TV_FIRE_HORSE_FLANK]
    if T.woods[y]:
        log(c, EV_MOD, T.tv[TV_WOODS_FIRE], MOD_WOODS)
        total += T.tv[TV_WOODS_FIRE]
    if c.u_status[f] != NORMAL:
        log(c, EV_MOD, T.tv[TV_FIRE_FIRER_DIS], MOD_FIRER_DIS)
        total += T.tv[TV_FIRE_FIRER_DIS]
    return total, dr


@kernel
def fire_result(T, tgt, adj):
    """9.3: the Fire Table (horse or leg column)."""
    tbl = T.fire_horse if T.uhorse[tgt] else T.fire_leg
    i = min(max(adj - T.fire_min, 0), len(tbl) - 1)
    return tbl[i]


@kernel
def auto_fire(c, T, t):
    """9.3: fire ``(firer, target, reaction, counter-charge facing or -1)`` resolved; a target whose counter-charge
    against it succeeded then turns to that facing (C55) and counter-charges."""
    f, tgt, reaction = t[2], t[3], t[4]
    if c.u_hex[f] < 0 or c.u_hex[tgt] < 0:
        c.u_flags[tgt] &= ~F_RETURNING
        return
    fx, tx = c.u_hex[f], c.u_hex[tgt]
    adj, dr = fire_dr(c, T, f, tgt)
    res = fire_result(T, tgt, adj)
    log(c, EV_PART, f, fx)
    log(c, EV_PART, tgt, tx)
    log(c, EV_FIRE, dr, 1 if reaction else 0, res)
    back = c.u_flags[tgt] & F_RETURNING
    adj2, res2 = 0, 0
    if back:  # 9.2: Return Fire, simultaneous
        c.u_flags[tgt] &= ~F_RETURNING
        adj2, dr2 = fire_dr(c, T, tgt, f)
        res2 = fire_result(T, f, adj2)
        log(c, EV_PART, tgt, tx)
        log(c, EV_PART, f, fx)
        log(c, EV_FIRE, dr2, 2, res2)
    apply_fire_result(c, T, tgt, res, adj, fx)  # results applied together (9.2 simultaneous)
    if back:
        apply_fire_result(c, T, f, res2, adj2, tx)
    if c.u_flags[tgt] & F_CC_OK:
        c.u_flags[tgt] &= ~F_CC_OK
        if t[5] >= 0 and c.u_hex[tgt] >= 0 and c.u_status[tgt] != RETIRED:
            c.u_face[tgt] = t[5]
        q = T.uplayer[tgt]
        mark = np.zeros(T.U, np.bool_)
        targeted(c, T, q, mark)
        if c.u_hex[f] >= 0 and mark[f]:
            # 11.3: the target of the counter-charge is under an unresolved attack: that one first
            c.u_flags[tgt] |= F_CC_WAIT
            c.u_ccv[tgt] = f
            log(c, EV_CC_WAITS, f, c.u_hex[f])
        elif T.utype[f] == L and not reaction:
            # 9.1: the counter-charge comes after the light cavalry has finished its movement
            sp = c.g[G_SP]
            done = False
            for i in range(sp - 1, -1, -1):
                if c.stack[i, 0] == D_UNIT_ACT and c.stack[i, 2] == f:
                    insert_below(c, i, A_CC_CHARGE, q, tgt, f)
                    done = True
                    break
            if not done:
                push(c, A_CC_CHARGE, q, tgt, f)
        else:
            push(c, A_CC_CHARGE, q, tgt, f)


@kernel
def apply_fire_result(c, T, u, res, adj, src_hex):
    if c.u_hex[u] < 0:
        return
    h = c.u_hex[u]
    if adj >= T.tv[TV_FIRE_LEADER_CHECK_AT]:
        leader_check_fire(c, T, h, T.uplayer[u])
    if res & EL:
        eliminate(c, T, u)
    elif res & RT:
        retire(c, T, u)
    else:
        if res & DD:
            was = c.u_status[u]
            disorder(c, T, u)
            if was == NORMAL and c.u_mp[u] > 0:
                c.u_mp[u] = max(0, c.u_mp[u] - (T.uma[u] - T.udis_ma[u]))
            if c.u_flags[u] & F_CHARGING:
                # 11.1, 12.1: Disordered units may not Charge: reaction fire that Disorders a charger
                # during its charge move turns its charge into a normal Shock (as 11.3 does for a
                # Disordered counter-charger): no charge DRM, no Charge Table, no reluctance roll
                c.u_flags[u] &= ~F_CHARGING
                log(c, EV_CHARGER_DIS, u, c.u_hex[u])
        # fire's R always comes with a D, which Retires a Disordered or Retired target (C18): placed by its
        # Standard, it does not also retreat
        if res & DR and c.u_hex[u] >= 0 and c.u_status[u] != RETIRED:
            push(c, D_RETREAT, T.uplayer[u], u, 0, src_hex)


@kernel
def auto_cc_charge(c, T, t):
    q, cc, enemy = t[1], t[2], t[3]
    st = c.u_status[cc]
    if c.u_hex[cc] < 0 or c.u_hex[enemy] < 0 or (st != NORMAL and st != DISORDERED):
        return
    y = cc_destination(c, T, cc, enemy, c.u_face[cc])
    if y < 0:
        log(c, EV_CC_LAPSES, cc, c.u_hex[cc], enemy, c.u_hex[enemy])
        return
    if y != c.u_hex[cc]:
        enter(c, T, cc, y)
    if q == c.g[G_ACTIVE]:
        # 11.3: a phasing unit counter-charging the reaction fire its move drew has made its attack
        # of the activation ("resolved as if it were a normal Charge"; 10.0: one Shock or Charge per
        # unit): it declares no Shock or Charge later, and its Move/Fire is over, in its
        # counter-charge facing (11.3 play note) (clarification C37)
        c.u_flags[cc] |= F_DECLARED | F_DONE | F_ACTED
    push(c, A_RESOLVE, q, enemy, cc, 1)


# ------------------------------------------------------------------ retreat
@kernel
def retreat_options(c, T, u, sources, ns, allow_zoc, out_y, out_bc):
    """12.1: one hex away from the inflicting unit(s) in ``sources[:ns]`` (distance to each grows), not
    into an occupied hex; through a friendly B/C an extra hex when blocked. Writes (hex, the B/C unit
    passed through or -1) pairs; returns how many."""
    x = c.u_hex[u]
    p = T.uplayer[u]
    if not allow_zoc:
        zoc_fill(c, T, p)
    n = 0
    by = np.empty(6, np.int64)
    bv = np.empty(6, np.int64)
    nb = 0
    for d in range(6):
        y = T.nbr[x, d]
        if y < 0 or T.hexside[x, d] == RIVER:
            continue
        away = True
        for i in range(ns):
            if T.dist[y, sources[i]] <= T.dist[x, sources[i]]:
                away = False
        if not away:
            continue
        v = c.hex_unit[y]
        if v >= 0:
            if T.uplayer[v] == p and (T.utype[v] == B_TYPE or T.utype[v] == C_TYPE):
                by[nb] = y
                bv[nb] = v
                nb += 1
            continue
        if not allow_zoc and c.zc[p, y] > 0:
            continue
        out_y[n] = y
        out_bc[n] = -1
        n += 1
    if n or not allow_zoc:
        return n
    for j in range(nb):
        y = by[j]
        for d in range(6):
            y2 = T.nbr[y, d]
            if y2 < 0 or T.hexside[y, d] == RIVER or c.hex_unit[y2] >= 0:
                continue
            away = True
            for i in range(ns):
                if T.dist[y2, sources[i]] <= T.dist[y, sources[i]]:
                    away = False
            dup = False
            for i in range(n):
                if out_y[i] == y2:
                    dup = True
            if away and not dup:
                out_y[n] = y2
                out_bc[n] = bv[j]
                n += 1
    return n


@kernel
def retreat_sources(c, T, t, out):
    """Hexes of the units inflicting the retreat (12.1): task (player, unit, mode, ref hex, the one unit
    inflicting it or -1); mode 0: away from ``ref``; mode 1 (a defender): away from its attackers: the one
    named (a Counter-Charger, 11.3, or a unit making a Continued Attack, 12.4) or else the units whose
    declared attack on it is still on (:func:`~.board.attackers_of`: next to it, able to fight; not one already
    driven off, C59). ``ref`` (mode 1: an attacker's hex when the result was rolled) stands in only if none of
    them is. Returns how many."""
    u, mode, ref, one = t[2], t[3], t[4], t[5]
    if mode == 0:
        out[0] = ref
        return 1
    if one >= 0:
        out[0] = c.u_hex[one] if c.u_hex[one] >= 0 else ref
        return 1
    att = np.empty(T.U, np.int64)
    n = attackers_of(c, T, u, att)
    for i in range(n):
        out[i] = c.u_hex[att[i]]
    if n == 0:
        out[0] = ref
        n = 1
    return n


@kernel
def _retreats(c, T, t, out_y, out_bc):
    src = np.empty(T.U, np.int64)
    ns = retreat_sources(c, T, t, src)
    return retreat_options(c, T, t[2], src, ns, True, out_y, out_bc)


@kernel
def opt_retreat(c, T, t, mask):
    u = t[2]
    if c.u_hex[u] < 0:  # a Retired unit retreats too (12.2: "treat as Disordered", C45)
        return 0
    ys = np.empty(RETREAT_MAX, np.int64)
    bcs = np.empty(RETREAT_MAX, np.int64)
    n = _retreats(c, T, t, ys, bcs)
    for i in range(n):
        mask[ys[i]] = True
    return n


@kernel
def do_retreat(c, T, t, a):
    q, u = t[1], t[2]
    pop(c)
    ys = np.empty(RETREAT_MAX, np.int64)
    bcs = np.empty(RETREAT_MAX, np.int64)
    n = _retreats(c, T, t, ys, bcs)
    v = -1
    for i in range(n):
        if ys[i] == a:
            v = bcs[i]
            break
    log(c, EV_RETREATS, u, c.u_hex[u], a)
    enter(c, T, u, a)
    if v >= 0:
        log(c, EV_RETREATS_THROUGH, v, c.u_hex[v], c.u_status[v] == NORMAL)
        disorder(c, T, v)
    if c.u_hex[u] >= 0:
        push(c, D_FACE, q, u)


# ------------------------------------------------------------------ facing
@kernel
def opt_face(c, T, t, mask):
    u = t[2]
    if c.u_hex[u] < 0 or c.u_status[u] == RETIRED:
        return 0
    for f in range(6):
        mask[T.A_FACE + f] = True
    return 6


@kernel
def do_face(c, T, t, a):
    pop(c)
    c.u_face[t[2]] = a - T.A_FACE
