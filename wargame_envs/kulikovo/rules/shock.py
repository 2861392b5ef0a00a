"""Shock (10.x), Charge (11.x) and their results (12.x): declaration, retreat before shock,
counter-charge, charge reluctance, resolution, advance after combat and continued attack. Compiled
kernels (``c``: the state, ``T``: the tables).

Attackers declare one at a time (``D_SHOCK_SELECT`` then ``D_SHOCK_MODE``); a Shock attacks every enemy
unit in the attacker's two frontal hexes (or only those not already attacked, 10.2); a Charge names the
hex the charger moves into (11.1) and attacks every enemy unit frontal to it. The attacker then picks the
defenders to resolve in any order (``D_RESOLVE_PICK``); each defender first decides to stand, retreat
before shock (10.1) or counter-charge (11.3).
"""

from __future__ import annotations

import numpy as np

from ...core.chance import roll
from ...core.jit import kernel
from ..actions import OPT_NO, OPT_PASS, OPT_SHOCK_ALL, OPT_SHOCK_UNATTACKED
from ..data import AD, AR, CA, DD, DR, EL, RT, H, L, M, R, RIVER, SLOPE, STEEP
from ..events import (
    EV_ADVANCE, EV_CA_ADVANCE, EV_CC_ATTACKER, EV_CC_NEGATES, EV_CHARGES, EV_MOD, EV_PART, EV_RBS, EV_RBS_ADVANCE,
    EV_RBS_ROLL, EV_RELUCTANCE, EV_SHOCK, EV_WILL_SHOCK, MOD_ATT_DIS, MOD_CA, MOD_CHARGER_MOVED, MOD_CHARGING,
    MOD_COMBINATION, MOD_DEF_RETIRED, MOD_DEFENSE, MOD_FLANK, MOD_LEADER_ATT, MOD_LEADER_DEF, MOD_REAR,
    MOD_STRENGTH, MOD_UPSLOPE, MOD_WOODS, MOD_WSM,
)
from ..geometry import FLANK, FRONT, REAR
from ..state import (
    A_AFTER_ROLL, A_CC_CHARGE, A_POST, A_RESOLVE, D_ADV_PICK, D_DEFENSE, D_FACE, D_RBS_ADVANCE, D_RETREAT,
    D_SHOCK_MODE, DISORDERED, F_ACTED, F_ADV, F_CA, F_CA_MODE, F_CC_NEGATE, F_CC_WAIT, F_CHARGING, F_DECLARED,
    F_DIS_IN_ATTACK, F_DORMANT, F_INCMD, F_MOVED, F_RBS_DONE, F_RESOLVED, F_START_ZOC, G_SP, NORMAL, RETIRED,
)
from .board import attackers_of, defense, disorder, eliminate, enter, names_target, retire, targeted
from .fire import cat, cc_eligible, cc_roll, charge_barred, charge_step_barred, dir_to, retreat_options
from .kstate import log, pop, push
from .leaders import any_leader_at, leader_check_shock
from .movement import trigger_reaction
from .tables import (
    TV_LC_RETREAT_OK_MAX, TV_RELUCTANCE_OK_MAX, TV_SD_ATT_DIS, TV_SD_CA, TV_SD_CHARGE_H, TV_SD_CHARGE_M,
    TV_SD_CHARGER_MOVED, TV_SD_COMBINATION, TV_SD_DEF_RETIRED, TV_SD_FLANK, TV_SD_LEADER_ATT, TV_SD_LEADER_DEF,
    TV_SD_REAR, TV_STEEP_UPSLOPE_SHOCK, TV_UPSLOPE_SHOCK, TV_WOODS_SHOCK, TV_WOODS_SHOCK_HORSE,
)
from .zoc import adjacent_enemy, zoc_fill



# ------------------------------------------------------------------ declaration
@kernel
def frontal_enemies(c, T, u, h, out):
    """Enemy units in the two frontal hexes of ``u`` (standing in ``h``), not across a river; returns how
    many."""
    p = T.uplayer[u]
    f = c.u_face[u]
    n = 0
    for k in range(2):
        d = (f + k) % 6
        t = T.nbr[h, d]
        if t >= 0:
            v = c.hex_unit[t]
            if v >= 0 and T.uplayer[v] != p and T.hexside[h, d] != RIVER:
                out[n] = v
                n += 1
    return n


@kernel
def _charge_ends(c, T, p, y, f, tgd):
    """11.1: a charge may end in ``y`` (facing ``f``): enemy units frontal, none already attacked, in
    woods or across a steep or river hexside."""
    enemies = 0
    for k in range(2):
        d = (f + k) % 6
        t = T.nbr[y, d]
        if t >= 0:
            v = c.hex_unit[t]
            if v >= 0 and T.uplayer[v] != p:
                if tgd[v] or charge_step_barred(T, y, d):
                    return False
                enemies += 1
    return enemies > 0


@kernel
def charge_hexes(c, T, u, tgd, mask):
    """11.1: hexes ``u`` may charge into (marked in ``mask``): 1-2 steps through its frontal hexes (empty,
    no woods, no steep/river hexside, not through an enemy ZOC), ending with enemy units frontal, none
    of them already attacked (``tgd``); only H/M, not Disordered, in command, not started in an enemy
    ZOC, not adjacent to an enemy unit at the start of the combat part. Returns how many."""
    ut = T.utype[u]
    if (ut != H and ut != M) or c.u_status[u] != NORMAL:
        return 0
    fl = c.u_flags[u]
    if fl & F_START_ZOC or not fl & F_INCMD:
        return 0
    p = T.uplayer[u]
    x = c.u_hex[u]
    if adjacent_enemy(c, T, p, x):
        return 0
    zoc_fill(c, T, p)
    f = c.u_face[u]
    n = 0
    for k in range(2):
        d = (f + k) % 6
        z = T.nbr[x, d]
        if z < 0 or c.hex_unit[z] >= 0 or charge_step_barred(T, x, d):
            continue
        if _charge_ends(c, T, p, z, f, tgd):
            mask[z] = True
            n += 1
        if c.zc[p, z] > 0:
            continue
        for k2 in range(2):
            d2 = (f + k2) % 6
            y = T.nbr[z, d2]
            if y < 0 or c.hex_unit[y] >= 0 or charge_step_barred(T, z, d2) or mask[y]:
                continue
            if _charge_ends(c, T, p, y, f, tgd):
                mask[y] = True
                n += 1
    return n


@kernel
def shock_eligible(c, T, u):
    st = c.u_status[u]
    if c.u_hex[u] < 0 or not T.ushock[u] or (st != NORMAL and st != DISORDERED):
        return False
    return not c.u_flags[u] & (F_DECLARED | F_RBS_DONE)


@kernel
def opt_shock_select(c, T, t, mask):
    p, cmd = t[1], t[2]
    base = T.A_UNIT - T.side_ufirst[p]
    fe = np.empty(2, np.int64)
    tgd = np.zeros(T.U, np.bool_)
    targeted(c, T, p, tgd)
    hexes = np.zeros(T.NUM_ACTIONS, np.bool_)
    n = 0
    for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
        if not shock_eligible(c, T, u):
            continue
        if frontal_enemies(c, T, u, c.u_hex[u], fe):
            mask[base + u] = True
            n += 1
            continue
        hexes[:] = False
        if (T.utype[u] == H or T.utype[u] == M) and charge_hexes(c, T, u, tgd, hexes):
            mask[base + u] = True
            n += 1
    mask[T.A_OPT + OPT_PASS] = True
    return n + 1


@kernel
def do_shock_select(c, T, t, a):
    p = t[1]
    if a == T.A_OPT + OPT_PASS:
        pop(c)
        return
    push(c, D_SHOCK_MODE, p, a - T.A_UNIT + T.side_ufirst[p])


@kernel
def opt_shock_mode(c, T, t, mask):
    u = t[2]
    if not shock_eligible(c, T, u):
        return 0
    p = T.uplayer[u]
    fe = np.empty(2, np.int64)
    nf = frontal_enemies(c, T, u, c.u_hex[u], fe)
    tgd = np.zeros(T.U, np.bool_)
    targeted(c, T, p, tgd)
    n = 0
    if nf:
        mask[T.A_OPT + OPT_SHOCK_ALL] = True
        n += 1
        un = 0
        for i in range(nf):
            if not tgd[fe[i]]:
                un += 1
        if un and un < nf:
            mask[T.A_OPT + OPT_SHOCK_UNATTACKED] = True
            n += 1
    return n + charge_hexes(c, T, u, tgd, mask)


@kernel
def _declare(c, u, fe, nf, continued=False):
    """The targets of ``u``'s attack (10.0): named, not yet resolved; the attack counted (12.4: "each previous
    Attack undertaken", one for a Shock, a Charge or a Continued Attack, whatever the number of its targets).
    The declared battle (``u_dtgt``, 10.2 Strength) keeps the Shock's or Charge's targets through a Continued
    Attack, which is a battle of its own (C26, C56)."""
    c.u_attacks[u] += 1
    c.u_tgt[u, 0] = fe[0] if nf > 0 else -1
    c.u_tgt[u, 1] = fe[1] if nf > 1 else -1
    if not continued:
        c.u_dtgt[u, 0] = c.u_tgt[u, 0]
        c.u_dtgt[u, 1] = c.u_tgt[u, 1]
    for i in range(nf):
        c.u_flags[fe[i]] &= ~F_RESOLVED


@kernel
def do_shock_mode(c, T, t, a):
    p, u = t[1], t[2]
    pop(c)
    c.u_flags[u] |= F_DECLARED | F_ACTED
    fe = np.empty(2, np.int64)
    if a == T.A_OPT + OPT_SHOCK_ALL or a == T.A_OPT + OPT_SHOCK_UNATTACKED:
        nf = frontal_enemies(c, T, u, c.u_hex[u], fe)
        if a == T.A_OPT + OPT_SHOCK_UNATTACKED:
            tgd = np.zeros(T.U, np.bool_)
            targeted(c, T, p, tgd)
            k = 0
            for i in range(nf):
                if not tgd[fe[i]]:
                    fe[k] = fe[i]
                    k += 1
            nf = k
        _declare(c, u, fe, nf)
        for i in range(nf):
            log(c, EV_PART, fe[i], c.u_hex[fe[i]])
        log(c, EV_WILL_SHOCK, u, c.u_hex[u])
        return
    x = c.u_hex[u]
    c.u_flags[u] |= F_CHARGING
    enter(c, T, u, a)
    nf = frontal_enemies(c, T, u, c.u_hex[u], fe)
    _declare(c, u, fe, nf)
    for i in range(nf):
        log(c, EV_PART, fe[i], c.u_hex[fe[i]])
    log(c, EV_CHARGES, u, x, a)
    trigger_reaction(c, T, u, a)


# ------------------------------------------------------------------ resolution
@kernel
def attack_party(c, T, d, ca, out):
    """The units attacking ``d``: its declared attackers (:func:`attackers_of`), or for a Continued
    Attack (12.4) by unit ``ca`` that unit alone: units whose earlier attack named ``d`` (resolved,
    the defender since retreated next to the continuing unit) take no part in it. None once ``d`` is resolved:
    a defender that retreated before shock or counter-charged an L/R attacker stays a declared target of its
    attackers (10.2 Strength, clarification C46) but is not attacked again."""
    if c.u_flags[d] & F_RESOLVED:
        return 0
    if ca < 0:
        return attackers_of(c, T, d, out)
    h, dh = c.u_hex[ca], c.u_hex[d]
    st = c.u_status[ca]
    if h < 0 or dh < 0 or (st != NORMAL and st != DISORDERED) or T.dist[h, dh] != 1 or not names_target(c, ca, d):
        return 0
    out[0] = ca
    return 1


@kernel
def opt_resolve_pick(c, T, t, mask):
    p = t[1]
    tgd = np.zeros(T.U, np.bool_)
    targeted(c, T, p, tgd)
    att = np.empty(T.U, np.int64)
    n = 0
    for d in range(T.U):
        if tgd[d] and c.u_hex[d] >= 0 and attackers_of(c, T, d, att):
            mask[c.u_hex[d]] = True
            n += 1
    return n


@kernel
def do_resolve_pick(c, T, t, a):
    p = t[1]
    d = c.hex_unit[a]
    push(c, A_RESOLVE, p, d, -1, 0)
    push(c, D_DEFENSE, 1 - p, d)


@kernel
def rbs_hexes(c, T, d, att, na, mask):
    """10.1 Retreat Before Shock: horse (not Disordered) attacked by leg units only; light cavalry (not
    Disordered) attacked by horse. One hex away, not into an enemy ZOC or an occupied hex. Marks them in
    ``mask``; returns how many. An Ambush Regiment unit not yet activated stands (15.2)."""
    if c.u_status[d] != NORMAL or not T.uhorse[d] or c.u_flags[d] & F_DORMANT:
        return 0
    horse = False
    for i in range(na):
        if T.uhorse[att[i]]:
            horse = True
    if horse and T.utype[d] != L:
        return 0
    src = np.empty(na, np.int64)
    for i in range(na):
        src[i] = c.u_hex[att[i]]
    ys = np.empty(8, np.int64)
    bcs = np.empty(8, np.int64)
    n = retreat_options(c, T, d, src, na, False, ys, bcs)
    for i in range(n):
        mask[ys[i]] = True
    return n


@kernel
def cc_shock_facings(c, T, d, att, na):
    """11.3: H/M attacked through front or flank may counter-charge (changing facing once): a bit per
    facing. Attacked from the rear as well, it may not turn (11.3): it counter-charges with its present facing
    when an attacker stands in its front, else not at all (C51)."""
    if na == 0 or not cc_eligible(c, T, d, att, na):
        return 0
    x = c.u_hex[d]
    face = c.u_face[d]
    rear, front_or_flank = False, False
    for i in range(na):
        if cat(face, dir_to(T, x, c.u_hex[att[i]])) == REAR:
            rear = True
        else:
            front_or_flank = True
    if not front_or_flank:
        return 0
    out = 0
    for f in range(6):
        if rear and f != face:
            continue
        for i in range(na):
            h = c.u_hex[att[i]]
            if T.nbr[x, f] == h or T.nbr[x, (f + 1) % 6] == h:
                out |= 1 << f
                break
    return out


@kernel
def opt_defense(c, T, t, mask):
    d = t[2]
    att = np.empty(T.U, np.int64)
    na = attack_party(c, T, d, t[3], att)
    if not na:
        return 0
    n = rbs_hexes(c, T, d, att, na, mask)
    faces = cc_shock_facings(c, T, d, att, na)
    for f in range(6):
        if faces >> f & 1:
            mask[T.A_FACE + f] = True
            n += 1
    if n:
        mask[T.A_OPT + OPT_NO] = True
        n += 1
    return n


@kernel
def do_defense(c, T, t, a):
    q, d = t[1], t[2]
    pop(c)
    if a == T.A_OPT + OPT_NO:
        return
    att = np.full(max(T.U, 6), -1, np.int64)
    na = attack_party(c, T, d, t[3], att)
    x = c.u_hex[d]
    if a < T.N:
        dis = False
        horse = False
        for i in range(na):
            if T.uhorse[att[i]]:
                horse = True
        if T.utype[d] == L and horse:
            dr = roll(c.dv, c.ds, 10, 0)
            dis = dr + T.udef[d] > T.tv[TV_LC_RETREAT_OK_MAX]
            log(c, EV_RBS_ROLL, d, x, dr, dis)
        else:
            log(c, EV_RBS, d, x)
        c.u_flags[d] |= F_RESOLVED
        enter(c, T, d, a)
        if dis:
            c.u_status[d] = DISORDERED
        push(c, D_RBS_ADVANCE, 1 - q, x, att[0], att[1] if na > 1 else -1, att[2] if na > 2 else -1,
             att[3] if na > 3 else -1, att[4] if na > 4 else -1, att[5] if na > 5 else -1)
        push(c, D_FACE, q, d)
        return
    f = a - T.A_FACE
    face = c.u_face[d]
    flank = False
    for i in range(na):
        if cat(face, dir_to(T, x, c.u_hex[att[i]])) == FLANK:
            flank = True
    if not cc_roll(c, T, d, flank):
        return
    c.u_face[d] = f
    for i in range(na):
        if T.utype[att[i]] == H or T.utype[att[i]] == M:
            c.u_flags[d] |= F_CC_NEGATE
            log(c, EV_CC_NEGATES)
            return
    enemy = -1
    for i in range(na):
        h = c.u_hex[att[i]]
        if T.nbr[x, f] == h or T.nbr[x, (f + 1) % 6] == h:
            enemy = att[i]
            break
    c.u_flags[d] |= F_RESOLVED
    log(c, EV_CC_ATTACKER, d, c.u_hex[d], enemy, c.u_hex[enemy])
    push(c, A_RESOLVE, q, enemy, d, 1)


@kernel
def battle_group(c, T, d, att, na, ga, gd):
    """Attackers (``ga``) and defenders (``gd``, bool per unit) linked to ``d`` through declared targets
    (10.2 Strength Advantage). Declared defenders count even once resolved (10.2 play note: 1 unit
    attacking 2 rolls twice, each with -1), and a unit's Continued Attack changes nothing here: the battle is
    the one declared, whatever the order of resolution (``u_dtgt``; C14, C46, C56)."""
    p = 1 - T.uplayer[d]
    for i in range(na):
        ga[att[i]] = True
    gd[d] = True
    changed = True
    while changed:
        changed = False
        for a in range(T.side_ufirst[p], T.side_uend[p]):
            if c.u_hex[a] < 0 or c.u_flags[a] & F_RBS_DONE:
                continue
            if ga[a]:
                for k in range(2):
                    v = c.u_dtgt[a, k]
                    if v >= 0 and not gd[v]:
                        gd[v] = True
                        changed = True
            else:
                for k in range(2):
                    v = c.u_dtgt[a, k]
                    if v >= 0 and gd[v]:
                        ga[a] = True
                        changed = True
                        break


@kernel
def _mod(c, value, name, arg=0):
    log(c, EV_MOD, value, name, arg)
    return value


@kernel
def auto_resolve(c, T, t):
    """Resolve the attack on ``d`` (task: player, defender, counter-charger or -1, flag, unit making a
    Continued Attack or -1): 10.2 Shock, 11.1 Charge, 11.2 reluctance, 11.3 counter-charge, 12.x
    results."""
    p, d, cc, ca = t[1], t[2], t[3], t[5]
    if c.u_hex[d] < 0:
        if cc < 0:
            post_ready(c, T, p)
        return
    U = T.U
    att = np.empty(U, np.int64)
    charging = np.zeros(U, np.bool_)
    ga = np.zeros(U, np.bool_)
    gd = np.zeros(U, np.bool_)
    if cc >= 0:
        if c.u_hex[cc] < 0 or T.dist[c.u_hex[cc], c.u_hex[d]] != 1:
            return
        na = 1
        att[0] = cc
        # 11.3 "as if it were a normal Charge": a Disordered counter-charger, or one that would charge into
        # woods or across a steep slope (11.1), resolves a Shock (clarification C41)
        if c.u_status[cc] == NORMAL and (T.utype[cc] == H or T.utype[cc] == M) \
                and not charge_barred(T, c.u_hex[cc], c.u_hex[d]):
            charging[cc] = True
        ga[cc] = True
        gd[d] = True
    else:
        na = attack_party(c, T, d, ca, att)
        if not na:
            # nothing left to resolve (the defender retreated before shock or counter-charged): the
            # attackers it leaves with all their attacks done make their held advance (10.3, 12.4; C43)
            c.u_flags[d] |= F_RESOLVED
            post_ready(c, T, p)
            return
        for i in range(na):
            if c.u_flags[att[i]] & F_CHARGING:
                charging[att[i]] = True
        if ca >= 0:
            # 12.4, 10.2 item 1: a Continued Attack is its own battle: the continuing unit against
            # the enemies it now attacks (clarification C26)
            ga[ca] = True
            for k in range(2):
                if c.u_tgt[ca, k] >= 0:
                    gd[c.u_tgt[ca, k]] = True
        else:
            battle_group(c, T, d, att, na, ga, gd)
    x = c.u_hex[d]
    face = c.u_face[d]
    dstat = c.u_status[d]
    # 11.2 Charge Reluctance
    if cc < 0 and T.utype[d] == R:
        for a in range(U):
            if charging[a] and (c.u_hex[a] == T.nbr[x, face] or c.u_hex[a] == T.nbr[x, (face + 1) % 6]):
                dr = roll(c.dv, c.ds, 10, 0)
                ok = dr <= T.tv[TV_RELUCTANCE_OK_MAX]
                log(c, EV_RELUCTANCE, a, c.u_hex[a], dr, ok)
                if not ok:
                    charging[a] = False
                    c.u_flags[a] &= ~F_CHARGING
    negate = c.u_flags[d] & F_CC_NEGATE != 0
    any_charging = False
    for a in range(U):
        if charging[a]:
            any_charging = True
    use_charge = any_charging or negate
    total = 0
    diff = 0
    for a in range(U):
        diff += int(ga[a]) - int(gd[a])
    if diff:
        total += _mod(c, diff, MOD_STRENGTH)
    cats = 0
    for i in range(na):
        cats |= 1 << cat(face, dir_to(T, x, c.u_hex[att[i]]))
    if cats != 1 << FRONT and cats != 1 << FLANK and cats != 1 << REAR:
        total += _mod(c, T.tv[TV_SD_COMBINATION], MOD_COMBINATION)
    elif cats == 1 << FLANK:
        total += _mod(c, T.tv[TV_SD_FLANK], MOD_FLANK)
    elif cats == 1 << REAR:
        total += _mod(c, T.tv[TV_SD_REAR], MOD_REAR)
    if T.woods[x]:
        horse = True
        for i in range(na):
            if not T.uhorse[att[i]]:
                horse = False
        total += _mod(c, T.tv[TV_WOODS_SHOCK_HORSE] if horse else T.tv[TV_WOODS_SHOCK], MOD_WOODS)
    up = 0
    for i in range(na):
        ah = c.u_hex[att[i]]
        f = T.hexside[ah, dir_to(T, ah, x)]
        if T.elev[x] > T.elev[ah]:
            v = T.tv[TV_STEEP_UPSLOPE_SHOCK] if f == STEEP else T.tv[TV_UPSLOPE_SHOCK] if f == SLOPE else 0
            up = min(up, v)
    if up:
        total += _mod(c, up, MOD_UPSLOPE)
    total += _mod(c, defense(c, T, d), MOD_DEFENSE)
    if use_charge and not negate and any_charging:
        best, bv = -1, -1 << 30
        for a in range(U):
            if charging[a]:
                v = T.tv[TV_SD_CHARGE_H] if T.utype[a] == H else T.tv[TV_SD_CHARGE_M]
                if v > bv:
                    best, bv = a, v
        total += _mod(c, bv, MOD_CHARGING, T.utype[best])
        if c.u_flags[best] & F_MOVED:
            total += _mod(c, T.tv[TV_SD_CHARGER_MOVED], MOD_CHARGER_MOVED)
    lead_a, lead_d = False, False
    for a in range(U):
        if ga[a] and c.u_hex[a] >= 0 and any_leader_at(c, T, c.u_hex[a], p):
            lead_a = True
        if gd[a] and c.u_hex[a] >= 0 and any_leader_at(c, T, c.u_hex[a], 1 - p):
            lead_d = True
    if lead_a:
        total += _mod(c, T.tv[TV_SD_LEADER_ATT], MOD_LEADER_ATT)
    if lead_d:
        total += _mod(c, T.tv[TV_SD_LEADER_DEF], MOD_LEADER_DEF)
    wsm = -1 << 30
    for i in range(na):
        wsm = max(wsm, T.wsm[T.utype[att[i]], T.utype[d]])
    if wsm:
        total += _mod(c, wsm, MOD_WSM)
    all_dis = True
    for i in range(na):
        if c.u_status[att[i]] == NORMAL:
            all_dis = False
    if all_dis:
        total += _mod(c, T.tv[TV_SD_ATT_DIS], MOD_ATT_DIS)
    if dstat == RETIRED:
        total += _mod(c, T.tv[TV_SD_DEF_RETIRED], MOD_DEF_RETIRED)
    if cc < 0:
        prev = 0  # 12.4: the continuing unit's attacks before this one
        for i in range(na):
            if c.u_flags[att[i]] & F_CA_MODE:
                prev = max(prev, c.u_attacks[att[i]] - 1)
        if prev:
            total += _mod(c, T.tv[TV_SD_CA] * prev, MOD_CA)
    dr = roll(c.dv, c.ds, 10, 0)
    total += dr
    row = min(max(total, 0), 11)
    table = (2 if use_charge else 0) + (1 if dstat != NORMAL else 0)
    res = T.shock_tables[table, row]
    if cc >= 0:
        res &= ~CA  # counter-charge: no continued attack (clarification 11.3)
    for i in range(na):
        log(c, EV_PART, att[i], c.u_hex[att[i]])
    log(c, EV_PART, d, x)
    log(c, EV_SHOCK, dr, res, 2 if cc >= 0 else 1 if use_charge else 0)
    c.u_flags[d] |= F_RESOLVED
    c.u_flags[d] &= ~F_CC_NEGATE
    # defender results
    vacated = -1
    if res & (DD | RT | EL):
        leader_check_shock(c, T, d)
    if res & EL:
        eliminate(c, T, d)
        vacated = x
    elif res & RT:
        retire(c, T, d)
        vacated = x
    elif res & DD:
        disorder(c, T, d)
        if c.u_hex[d] != x:
            vacated = x
    rt = np.empty((na + 1, 5), np.int64)
    nr = 0
    # 12.2: a Retired defender is treated as Disordered: a DR result makes it retreat (C45); a unit that this
    # result Retired (placed by its Standard) does not also retreat
    if res & DR and c.u_hex[d] == x and (dstat == RETIRED or c.u_status[d] != RETIRED):
        # 12.1: away from the units inflicting it: a counter-charger or a unit continuing the attack alone
        # (C26, C44); the first attacker's hex stands in if none of them is on the map any more
        rt[nr, 0], rt[nr, 1], rt[nr, 2], rt[nr, 3] = 1 - p, d, 1, c.u_hex[att[0]]
        rt[nr, 4] = cc if cc >= 0 else ca
        nr += 1
        vacated = x
    # attacker results
    for i in range(na):
        a = att[i]
        if res & AD:
            c.u_flags[a] |= F_DIS_IN_ATTACK
            leader_check_shock(c, T, a)
            disorder(c, T, a)
        if res & AR and c.u_hex[a] >= 0 and c.u_status[a] != RETIRED:
            rt[nr, 0], rt[nr, 1], rt[nr, 2], rt[nr, 3], rt[nr, 4] = p, a, 0, x, -1
            nr += 1
    push(c, A_AFTER_ROLL, p, d, cc, vacated, 1 if res & CA else 0, ca)
    for i in range(nr - 1, -1, -1):
        push(c, D_RETREAT, rt[i, 0], rt[i, 1], rt[i, 2], rt[i, 3], rt[i, 4])


@kernel
def auto_after_roll(c, T, t):
    """10.3 / 12.4: name the unit that advances (or continues the attack) into the vacated hex; units
    that have finished all their attacks then advance (``A_POST``)."""
    p, d, cc, vac, ca, ca_unit = t[1], t[2], t[3], t[4], t[5], t[6]
    for w in range(T.side_ufirst[p], T.side_uend[p]):
        if c.u_flags[w] & F_CC_WAIT and c.u_ccv[w] == d:
            c.u_flags[w] &= ~F_CC_WAIT
            if c.u_hex[d] >= 0:
                push(c, A_CC_CHARGE, p, w, d)
    att = np.empty(T.U, np.int64)
    na = 0
    if cc >= 0:
        att[0] = cc
        na = 1
    elif ca_unit >= 0:
        att[0] = ca_unit  # 12.4: only the continuing unit took part
        na = 1
    else:
        for a in range(T.side_ufirst[p], T.side_uend[p]):
            if names_target(c, a, d):
                att[na] = a
                na += 1
    if vac >= 0 and c.hex_unit[vac] < 0:
        tied = np.full(max(na, 6), -1, np.int64)
        nt = 0
        best = 1 << 30
        for i in range(na):
            a = att[i]
            h = c.u_hex[a]
            st = c.u_status[a]
            if h >= 0 and (st == NORMAL or st == DISORDERED) and T.dist[h, vac] == 1 \
                    and (ca or not c.u_flags[a] & F_DIS_IN_ATTACK):
                if T.udef[a] < best:
                    best = T.udef[a]
                    nt = 0
                if T.udef[a] == best:
                    tied[nt] = a
                    nt += 1
        if nt:
            flag = F_CA if ca else F_ADV
            if nt == 1:
                mark_post(c, tied[0], flag, vac)
            else:
                push(c, A_AFTER_ROLL, p, d, cc, -1, 0, ca_unit)  # re-run for the posts after the pick
                push(c, D_ADV_PICK, p, vac, flag, tied[0], tied[1], tied[2], tied[3], tied[4], tied[5])
                return
    post_ready(c, T, p)


@kernel
def _post_queued(c, u):
    """Whether an ``A_POST`` task of unit ``u`` is on the stack."""
    for i in range(c.g[G_SP]):
        if c.stack[i, 0] == A_POST and c.stack[i, 2] == u:
            return True
    return False


@kernel
def post_ready(c, T, p):
    """10.3 / 12.4: every unit of ``p`` holding an advance or Continued Attack (``F_ADV`` / ``F_CA``) whose
    attacks are all done (no target left unresolved next to it) makes it (``A_POST``, the lowest index first),
    however its targets were finished: resolved, or retreated before shock / counter-charged (clarification
    C43). A unit that took the 10.1 advance makes no other."""
    for a in range(T.side_uend[p] - 1, T.side_ufirst[p] - 1, -1):
        h = c.u_hex[a]
        fl = c.u_flags[a]
        if h < 0 or not fl & (F_ADV | F_CA) or fl & F_RBS_DONE or _post_queued(c, a):
            continue
        pending = False
        for k in range(2):
            v = c.u_tgt[a, k]
            if v >= 0 and c.u_hex[v] >= 0 and not c.u_flags[v] & F_RESOLVED and T.dist[h, c.u_hex[v]] == 1:
                pending = True
        if not pending:
            push(c, A_POST, p, a)


@kernel
def mark_post(c, u, flag, vac):
    """Unit ``u`` moves into ``vac`` after its attacks: ``flag`` F_CA (12.4 Continued Attack) or F_ADV (10.3
    advance). Of several results of one attack the Continued Attack wins: a later result's plain advance never
    takes its hex, whatever order the attacker resolved its targets in."""
    if flag == F_ADV and c.u_flags[u] & F_CA:
        return
    c.u_flags[u] |= flag
    c.u_vac[u] = vac


@kernel
def opt_adv_pick(c, T, t, mask):
    p = t[1]
    base = T.A_UNIT - T.side_ufirst[p]
    n = 0
    for k in range(4, 10):
        u = t[k]
        if u >= 0 and c.u_hex[u] >= 0:
            mask[base + u] = True
            n += 1
    return n


@kernel
def do_adv_pick(c, T, t, a):
    p, vac, flag = t[1], t[2], t[3]
    pop(c)
    u = a - T.A_UNIT + T.side_ufirst[p]
    mark_post(c, u, flag, vac)


@kernel
def auto_post(c, T, t):
    p, a = t[1], t[2]
    fl = c.u_flags[a]
    vac = c.u_vac[a]
    c.u_flags[a] &= ~(F_ADV | F_CA)
    st = c.u_status[a]
    if c.u_hex[a] < 0 or (st != NORMAL and st != DISORDERED) or vac < 0 or c.hex_unit[vac] >= 0 \
            or T.dist[c.u_hex[a], vac] != 1:
        return
    if fl & F_CA:
        log(c, EV_CA_ADVANCE, a, c.u_hex[a], vac)
        enter(c, T, a, vac)
        tgd = np.zeros(T.U, np.bool_)
        targeted(c, T, p, tgd)
        fe = np.empty(2, np.int64)
        nf = frontal_enemies(c, T, a, c.u_hex[a], fe)
        k = 0
        for i in range(nf):
            if not tgd[fe[i]]:
                fe[k] = fe[i]
                k += 1
        nf = k
        if not nf:
            return
        c.u_flags[a] |= F_CA_MODE
        c.u_flags[a] &= ~F_CHARGING  # 11.1: a continued attack is regular Shock
        _declare(c, a, fe, nf, True)
        for i in range(nf - 1, -1, -1):
            push(c, A_RESOLVE, p, fe[i], -1, 0, a)
            push(c, D_DEFENSE, 1 - p, fe[i], a)
        return
    if fl & F_ADV and not fl & F_DIS_IN_ATTACK:
        log(c, EV_ADVANCE, a, c.u_hex[a], vac)
        enter(c, T, a, vac)
        push(c, D_FACE, p, a)


@kernel
def opt_rbs_advance(c, T, t, mask):
    p, vac = t[1], t[2]
    if c.hex_unit[vac] >= 0:
        return 0
    base = T.A_UNIT - T.side_ufirst[p]
    n = 0
    for k in range(3, 10):
        u = t[k]
        if u < 0 or c.u_hex[u] < 0:
            continue
        st = c.u_status[u]
        # 10.3: a unit already bound to advance or continue into a hex its attack emptied does that instead
        if (st == NORMAL or st == DISORDERED) and T.dist[c.u_hex[u], vac] == 1 and not c.u_flags[u] & (F_ADV | F_CA):
            mask[base + u] = True
            n += 1
    if n:
        mask[T.A_OPT + OPT_NO] = True
        n += 1
    return n


@kernel
def do_rbs_advance(c, T, t, a):
    p, vac = t[1], t[2]
    pop(c)
    if a == T.A_OPT + OPT_NO:
        return
    u = a - T.A_UNIT + T.side_ufirst[p]
    log(c, EV_RBS_ADVANCE, u, c.u_hex[u], vac)
    enter(c, T, u, vac)
    c.u_flags[u] |= F_RBS_DONE
    c.u_tgt[u, 0] = -1
    c.u_tgt[u, 1] = -1
