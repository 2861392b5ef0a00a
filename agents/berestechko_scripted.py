"""A scripted heuristic player for ``berestechko_v0`` (either side).

It reads only the public position (Berestechko has no hidden information). Every judgement is an
expected value in victory points (VP) computed from the exact distribution of the combat result
``CR = AV - DV`` (sums of the dice each side throws, 8.1.4, 8.2.4).

It is a compiled kernel over the state buffer (:func:`score_actions`) that asks the engine's own compiled
rules what they allow and what they do (destinations, targets, attack dice, resistance, retreat hexes:
``wargame_envs.berestechko.queries`` / ``combat``), so no rule is written twice. It scores every legal
action; the best score wins (ties within 1e-9 broken by the agent's seeded generator, exactly as before
the kernel). :func:`scripted_actions` decides for every game of a batch in one call.

Tactics, decision by decision:

* **Concentrate declared attacks where the odds are good** (6.1.1, 8.1.2, 8.2.2). An attack is
  declared only if its expected VP gain is positive; then adjacent units are added one at a time,
  each for one interaction command, while the added die raises the expected gain by more than the
  command is worth (so units join exactly when they make the expected CR beat the defender's
  resistance). Artillery support (6.1.2) is bought by the same rule.
* **Keep a reserve of commands.** An additional activation (2 interaction, 6.1.3) is bought only
  with spare commands (a full track) and only for a strong attack; a recovery (3 reconnaissance,
  6.2.1) is bought as soon as the track allows it, the Tatars (combat spirit) first. Dice 1/6 raise
  interaction to 2 first, then keep one reconnaissance for the loss-or-retreat choice.
* **Shoot before charging.** Infantry fire costs nothing when it fails (8.2.4): infantry shoots at
  every adjacent enemy it can, and between equal dice the agent activates shooters first.
* **Attack weakened units.** Disorganized units (resistance 3) and units whose retreat is blocked
  (a retreat then costs a loss or destroys them, 8.1.7) give the largest expected gains.
* **Prefer targets on open terrain** (there the attacker chooses loss or retreat, 8.1.4) and
  **avoid attacking into complex terrain with cavalry** (one die, 8.1.6): a penalty on top of the
  expected value.
* **Defence.** Retreat before close combat (2 reconnaissance, 6.2.2) when the attacker's expected
  gain is high; take the loss-or-retreat choice (6.2.3) when a retreat to a free rear hex is
  cheaper than the loss the attacker would pick; as chooser take the smaller evil (attacker: the
  larger); defensive artillery when it lowers the attacker's gain by more than a command is worth;
  retreat into the hex with the fewest enemies around and a free rear behind it.
* **Movement.** Ordered units close in on the enemy; disorganized units keep away from it;
  Cossack infantry stays with its wagons (they double its resistance and are lost alone, 8.3).
  **C-T: late in round 2** ordered units head for the Polish camp hexes 03/04 (+2 VP each, 10).
* **Tatar spirit (9).** When the Tatars withdraw, the C-T player ends the battle if he is ahead
  in VP even after the P-L bonus of 2 (ties go to the C-T, 10); otherwise he fights on.
* Ties between equal options are broken by a seeded generator, so the agent is deterministic for a
  given seed.
"""

from __future__ import annotations

import numpy as np

from wargame_envs.berestechko import combat as C
from wargame_envs.berestechko import queries as Q
from wargame_envs.berestechko.actions import OPT
from wargame_envs.berestechko.state import CLOSE, INTERACTION, ON_MAP, RANGED, RECON, Phase, Reason, S
from agents.scripted_kernels import best_legal_score, legal_count, mark_gaps, mark_lone, mark_ties
from wargame_envs.core.kernel_records import as_record, borrowed
from wargame_envs.berestechko.victory import victory_points
from wargame_envs.core.jit import COMPILED, kernel

# Values in victory points.
CMD_VALUE = 0.3            # what one command in hand is worth
CMD_GAIN_VALUE = 0.45      # taking a command with a 1/6 die (below the cap)
DESTROY_BONUS = 0.6        # a destroyed unit also counts toward the automatic victory (10)
SPIRIT_VALUE = 0.4         # one step of the Tatar combat spirit (9)
WITHDRAW_VALUE = 2.0       # the Tatars leaving the battle
DISPLACE_VALUE = 0.15      # pushing an enemy back one hex
ADVANCE_RISK = 0.1         # our cavalry advancing into the vacated hex
COMPLEX_TARGET_PENALTY = 0.4   # cavalry charging into complex terrain
OPEN_TARGET_BONUS = 0.1
RETREAT_BEFORE_THRESHOLD = 0.55  # attacker's expected gain above which the defender retreats
BUY_ACTIVATION_THRESHOLD = 0.9
CAMP_VALUE = 2.0           # VP of an ordered C-T unit in hex 03/04 at the end
WAGON_STAY_VALUE = 3.0
TIE = 1e-9                 # scores this close to the best are ties
MAX_DICE = 8               # (count, sides) groups of one side of a combat: leader, 5 neighbours, artillery


# ------------------------------------------------------------------------- dice arithmetic
# The sums and convolutions follow numpy's order of operations (``np.convolve``, pairwise ``sum``), the
# arithmetic the agent used before it was compiled, so its values and decisions are unchanged.
@kernel
def block_sum(x, lo, n):
    """numpy's float64 sum of ``x[lo:lo + n]`` for ``n <= 128``: eight accumulators, from 0.0 below 8."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += x[i]
        return res
    r = np.empty(8)
    for j in range(8):
        r[j] = x[lo + j]
    i = 8
    while i < n - n % 8:
        for j in range(8):
            r[j] += x[lo + i + j]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        res += x[lo + i]
        i += 1
    return res


@kernel
def pairwise_sum(x, lo, hi):
    """``x[lo:hi].sum()`` as numpy adds float64: blocks of at most 128 summed by :func:`block_sum`, split in
    halves (a multiple of 8 on the left) and added pairwise (numpy's recursion, unrolled with a stack)."""
    los, ns, stage = np.empty(64, np.int64), np.empty(64, np.int64), np.empty(64, np.int64)
    vals = np.empty(64)
    top, nv = 0, 0
    los[0], ns[0], stage[0] = lo, hi - lo, 0
    while top >= 0:
        start, n = los[top], ns[top]
        if n <= 128:
            vals[nv] = block_sum(x, start, n)
            nv += 1
            top -= 1
            continue
        half = n // 2
        half -= half % 8
        if stage[top] == 0:  # the left half first
            stage[top] = 1
            top += 1
            los[top], ns[top], stage[top] = start, half, 0
        elif stage[top] == 1:  # then the right half
            stage[top] = 2
            top += 1
            los[top], ns[top], stage[top] = start + half, n - half, 0
        else:  # then their sum
            vals[nv - 2] = vals[nv - 2] + vals[nv - 1]
            nv -= 1
            top -= 1
    return vals[0]


@kernel
def convolve(a, na, v, nv, out):
    """``np.convolve(a[:na], v[:nv])`` into ``out``; returns its length."""
    if nv > na:
        a, na, v, nv = v, nv, a, na
    for i in range(na + nv - 1):
        s = 0.0
        for j in range(max(0, i - nv + 1), min(i, na - 1) + 1):
            s += a[j] * v[i - j]
        out[i] = s
    return na + nv - 1


@kernel
def sum_pmf(count, sides, m, pmf, tmp):
    """Distribution of the sum of dice groups ``(count[i], sides[i])``, ``i < m``, into ``pmf`` (index =
    total); returns its length."""
    face = np.zeros(13)
    pmf[0] = 1.0
    n = 1
    for g in range(m):
        s = sides[g]
        face[0] = 0.0
        for f in range(1, s + 1):
            face[f] = 1.0 / s
        for _ in range(count[g]):
            n = convolve(pmf, n, face, s + 1, tmp)
            for i in range(n):
                pmf[i] = tmp[i]
    return n


@kernel
def sort_dice(count, sides, m):
    """Sort the groups by (count, sides): the distribution's key."""
    for i in range(1, m):
        c, s = count[i], sides[i]
        j = i - 1
        while j >= 0 and (count[j] > c or (count[j] == c and sides[j] > s)):
            count[j + 1], sides[j + 1] = count[j], sides[j]
            j -= 1
        count[j + 1], sides[j + 1] = c, s


@kernel
def dice_key(count, sides, m):
    """The sorted groups as one number (5 bits a group: count 1..6, sides 6/8/10/12)."""
    key = 0
    for i in range(m):
        key = key * 32 + (count[i] - 1) * 4 + (sides[i] - 6) // 2 + 1
    return key


@kernel
def combat_outcomes(cache, acount, asides, na, dcount, dsides, nd, r):
    """``(P(CR < R), P(CR = R), P(R < CR < 2R), P(CR >= 2R))`` for the attack dice groups against the
    defence dice groups (none in ranged combat) and resistance ``r``; memoised in ``cache``."""
    sort_dice(acount, asides, na)
    sort_dice(dcount, dsides, nd)
    key = (dice_key(acount, asides, na) * 1024 + dice_key(dcount, dsides, nd)) * 64 + r
    keyed = 0 <= r < 64  # the key holds R in 6 bits
    if keyed and key in cache:
        return cache[key]
    size = 6 * 12 * MAX_DICE + 1
    a, d, tmp = np.empty(size), np.empty(size), np.empty(size)
    la = sum_pmf(acount, asides, na, a, tmp)
    ld = sum_pmf(dcount, dsides, nd, d, tmp)
    for i in range(ld):  # the defence distribution reversed: CR = AV - DV
        tmp[i] = d[ld - 1 - i]
    cr = np.empty(la + ld)
    n = convolve(a, la, tmp, ld, cr)   # index i <-> CR = i - off
    off = ld - 1
    lo, eq, hi = min(max(r + off, 0), n), r + off, min(max(2 * r + off, 0), n)
    lt = pairwise_sum(cr, 0, lo)
    e = cr[eq] if 0 <= eq < n else 0.0
    mid = pairwise_sum(cr, min(max(eq + 1, 0), n), max(hi, min(max(eq + 1, 0), n)))
    big = pairwise_sum(cr, hi, n)
    out = (lt, 0.0 + e, mid, big)
    if keyed:
        cache[key] = out
    return out


def new_cache():
    """An empty memo for :func:`combat_outcomes` (a pure function of the dice: one memo serves every game)."""
    if not COMPILED:
        return {}
    from numba import typed, types  # a plain dict where the JIT is disabled

    return typed.Dict.empty(types.int64, types.UniTuple(types.float64, 4))


_CACHE = new_cache()


# ================================================================ valuations
@kernel
def loss_value(k, g, u):
    """VP (and more) that ``u``'s enemy gains when ``u`` suffers a loss (8.1.4, 9, 10)."""
    v = 1.0
    if g.disorg[u]:
        v += DESTROY_BONUS  # destroyed: 2 VP instead of 1, and one step to the automatic victory
    if k.is_tatar[u] and not g.sc[S.TATARS_OUT]:
        v += WITHDRAW_VALUE if g.sc[S.SPIRIT] <= 1 else SPIRIT_VALUE
    return v


@kernel
def destroy_value(k, g, u):
    """Gain of destroying ``u`` outright (an ordered unit takes two losses, 9)."""
    if g.disorg[u]:
        return loss_value(k, g, u)
    v = 2.0 + DESTROY_BONUS
    if k.is_tatar[u] and not g.sc[S.TATARS_OUT]:
        v += WITHDRAW_VALUE if g.sc[S.SPIRIT] <= 2 - g.disorg[u] else 2 * SPIRIT_VALUE
    return v


@kernel
def retreat_value(k, g, u, after_loss):
    """Gain to the enemy of ``u`` retreating one hex (8.1.7): a side hex costs a loss, no free hex
    destroys it; wagons turn a retreat into a loss (8.3)."""
    if C.wagon_with(k, g, u) >= 0:
        return 0.0 if after_loss else loss_value(k, g, u)
    options = np.empty(12, dtype=np.int32)
    n, sideways = C.retreat_options(k, g, u, options)
    if n == 0:
        return 2.0 if after_loss else destroy_value(k, g, u)
    if sideways:
        return 1.2 if after_loss else loss_value(k, g, u) + DISPLACE_VALUE
    return DISPLACE_VALUE


@kernel
def close_value(k, g, cache, lead, acount, asides, na, d, def_arty):
    """Expected gain of a close combat of the attackers' dice against ``d`` (8.1.4)."""
    dcount, dsides = np.empty(2, dtype=np.int64), np.empty(2, dtype=np.int64)
    dcount[0], dsides[0] = k.dfn[d], k.die[d]
    dcount[1], dsides[1] = 1, 6
    r = C.resistance(k, g, d)
    lt, _, mid, big = combat_outcomes(cache, acount, asides, na, dcount, dsides, 2 if def_arty else 1, r)
    loss_d = loss_value(k, g, d)
    big_v = loss_d + (0.0 if g.disorg[d] else retreat_value(k, g, d, True))
    if C.wagon_with(k, g, d) >= 0:
        mid_v = loss_d
    else:
        ret = retreat_value(k, g, d, False)
        defender_picks = k.complex[g.hex[d]] or g.cmd[1 - k.side[lead], RECON] >= 1
        mid_v = min(loss_d, ret) if defender_picks else max(loss_d, ret)
    return big * (big_v - ADVANCE_RISK) + mid * (mid_v - ADVANCE_RISK) - lt * loss_value(k, g, lead)


@kernel
def ranged_value(k, g, cache, acount, asides, na, d):
    """Expected gain of ranged fire against ``d`` (8.2.4, 8.2.6); it never hurts the shooter."""
    r = C.resistance(k, g, d)
    none = np.empty(1, dtype=np.int64)
    lt, eq, mid, big = combat_outcomes(cache, acount, asides, na, none, none, 0, r)
    hit = mid + big
    gain = hit * (retreat_value(k, g, d, False) if g.disorg[d] else loss_value(k, g, d))
    if k.is_tatar[d]:
        gain += retreat_value(k, g, d, False)  # one additional hex whatever the result (8.2.6)
    return gain


@kernel
def combat_value(k, g, cache, lead, lead_hex, d, members, nm, att_arty, def_arty):
    """Expected gain of ``lead`` (standing at ``lead_hex``) and ``members[:nm]`` attacking ``d``."""
    kind = CLOSE if k.is_cav[lead] else RANGED
    hd = g.hex[d]
    acount, asides = np.empty(MAX_DICE, dtype=np.int64), np.empty(MAX_DICE, dtype=np.int64)
    acount[0], asides[0] = C.attack_dice_at(k, lead, lead_hex, d, hd, kind)
    for i in range(nm):
        m = members[i]
        acount[i + 1], asides[i + 1] = C.attack_dice_at(k, m, g.hex[m], d, hd, kind)
    na = nm + 1
    if att_arty:
        acount[na], asides[na] = 1, 6
        na += 1
    if kind == RANGED:
        return ranged_value(k, g, cache, acount, asides, na, d)
    v = close_value(k, g, cache, lead, acount, asides, na, d, def_arty)
    v += -COMPLEX_TARGET_PENALTY if k.complex[hd] else OPEN_TARGET_BONUS
    return v


@kernel
def plan_attack(k, g, cache, player, lead, lead_hex, d, budget):
    """Greedy declared attack (6.1.1, 6.1.2): add the adjacent unit that raises the expected gain most
    while the rise beats ``CMD_VALUE`` and ``budget`` interaction commands last; then artillery by the
    same rule. Returns the value net of the commands spent."""
    kind = CLOSE if k.is_cav[lead] else RANGED
    hd = g.hex[d]
    pool = np.empty(6, dtype=np.int64)
    npool = 0
    for j in range(6):
        n = k.adj[hd, j]
        if n < 0:
            continue
        v = g.occ[n]
        if v >= 0 and v != lead and k.side[v] == player and (kind == CLOSE or k.is_inf[v]):
            pool[npool] = v
            npool += 1
    def_arty = kind == CLOSE and k.is_inf[d] and g.cmd[1 - player, INTERACTION] >= 1
    members = np.empty(MAX_DICE, dtype=np.int64)
    nm, spent = 0, 0
    value = combat_value(k, g, cache, lead, lead_hex, d, members, 0, False, def_arty)
    while npool and spent < budget:
        best, bi = -np.inf, -1
        for i in range(npool):  # the highest value; between equal values the higher unit (max of tuples)
            members[nm] = pool[i]
            gain = combat_value(k, g, cache, lead, lead_hex, d, members, nm + 1, False, def_arty)
            if gain > best or (gain == best and pool[i] > pool[bi]):
                best, bi = gain, i
        if best - value <= CMD_VALUE:
            break
        members[nm] = pool[bi]
        nm += 1
        pool[bi] = pool[npool - 1]  # the pool's order does not matter: ties go to the higher unit
        npool -= 1
        value, spent = best, spent + 1
    has_inf = k.is_inf[lead]
    for i in range(nm):
        has_inf = has_inf or k.is_inf[members[i]]
    if has_inf and spent < budget:
        with_arty = combat_value(k, g, cache, lead, lead_hex, d, members, nm, True, def_arty)
        if with_arty - value > CMD_VALUE:
            value, spent = with_arty, spent + 1
    return value - CMD_VALUE * spent


# ---------------------------------------------------------------- positions
@kernel
def position_value(k, g, dist, player, u, h):
    """How good it is for ``u`` to stand at ``h`` after its activation."""
    v = 0.0
    if k.is_cossack_inf[u]:
        w = g.wag[h]
        if w >= 0 and k.side[w] == player and g.hex[w] == h:
            v += WAGON_STAY_VALUE
    if k.complex[h]:
        v += 0.2
    near, closest = 0, -1
    for e in range(k.NC):
        if k.side[e] != player and g.status[e] == ON_MAP:
            de = dist[h, g.hex[e]]
            if de <= 2:
                near += 1
            if closest < 0 or de < closest:
                closest = de
    if g.disorg[u]:
        v -= 0.5 * near
    elif closest >= 0:
        v -= 0.06 * closest
    if player == 1 and g.sc[S.ROUND] == 2 and not g.disorg[u]:
        if k.camp[h]:
            v += CAMP_VALUE
        else:
            to_camp = -1
            for c in range(k.H):
                if k.camp[c] and (g.occ[c] < 0 or g.occ[c] == u) and (to_camp < 0 or dist[h, c] < to_camp):
                    to_camp = dist[h, c]
            if to_camp >= 0:
                v -= 0.35 * to_camp
    return v


@kernel
def activation_plans(k, g, dist, cache, player, u, best):
    """``best[h]``: the value of the best plan (a destination, and a target or none) ending at hex ``h``
    if ``u`` is activated now (-inf where it cannot go); returns the best of all."""
    budget = g.cmd[player, INTERACTION]
    dest = np.empty(k.H, dtype=np.int32)
    Q.destinations(k, g, u, False, dest)
    top = -np.inf
    for h in range(k.H):
        best[h] = -np.inf
        if dest[h] < 0:
            continue
        pos = position_value(k, g, dist, player, u, h)
        best[h] = pos
        if dest[h] == 1:
            for j in range(6):
                n = k.adj[h, j]
                if n < 0:
                    continue
                d = g.occ[n]
                if d < 0 or d == u or k.side[d] == player:
                    continue
                val = plan_attack(k, g, cache, player, u, h, d, budget)
                if val > 0:
                    best[h] = max(best[h], pos + val)
        top = max(top, best[h])
    return top


@kernel
def activation_score(k, g, dist, cache, player, u):
    """Gain of activating ``u`` now over leaving it where it stands."""
    if g.status[u] != ON_MAP:
        return 0.0
    here = position_value(k, g, dist, player, u, g.hex[u])
    best = activation_plans(k, g, dist, cache, player, u, np.empty(k.H))
    bonus = 0.05 if k.is_inf[u] else 0.0  # shoot before charging
    return best - here + bonus


@kernel
def refuge(k, g, player, u, h):
    """How safe hex ``h`` is for ``u`` to retreat into: few enemies around, a free rear behind."""
    enemies, rear_free = 0, 0
    for j in range(6):
        n = k.adj[h, j]
        if n >= 0:
            v = g.occ[n]
            if v >= 0 and k.side[v] != player and v != u:
                enemies += 1
        x = k.rear[player, h, j]
        if x >= 0 and (C.is_free(g, x) or x == g.hex[u]):
            rear_free += 1
    return -2.0 * enemies + rear_free


@kernel
def attack_members(k, g, members):
    """The units in the declared attack besides its leader, in scenario order; returns how many."""
    lead, nm = g.sc[S.UNIT], 0
    for v in range(k.NC):
        if g.part[v] and v != lead:
            members[nm] = v
            nm += 1
    return nm


# ================================================================ decisions
@kernel
def score_actions(k, g, dist, cache, player, mask, scores):
    """``scores[a]``: how good each legal action ``a`` is for ``player`` (-inf for the others)."""
    scores[:] = -np.inf
    phase = g.sc[S.PHASE]
    o = k.A_OPTION
    if phase == Phase.CHOOSE_DIE:
        score_choose_die(k, g, dist, cache, player, mask, scores)
    elif phase == Phase.DIE_COMMAND:
        recon, inter = g.cmd[player, RECON], g.cmd[player, INTERACTION]
        if inter < 2:
            pick = OPT.gain_interaction
        elif recon < 1:
            pick = OPT.gain_reconnaissance
        elif inter < k.COMMAND_CAP:
            pick = OPT.gain_interaction
        else:
            pick = OPT.gain_reconnaissance
        for a in (o + OPT.gain_reconnaissance, o + OPT.gain_interaction):
            if mask[a]:
                scores[a] = 1.0 if a == o + pick else 0.0
    elif phase == Phase.SELECT_UNIT:
        for u in range(k.NC):
            if mask[k.A_UNIT + u]:
                scores[k.A_UNIT + u] = activation_score(k, g, dist, cache, player, u)
            for a in (k.A_WAGON_DIE + u, k.A_WAGON_CMD + u):
                if mask[a]:
                    scores[a] = -10.0  # keep the wagons in the tabor; never pay for moving them
    elif phase == Phase.SELECT_RECOVERY:
        for u in range(k.NC):
            if mask[k.A_UNIT + u]:
                scores[k.A_UNIT + u] = (2.0 if k.is_tatar[u] else 0.0) + k.res[u, 0] + k.att[u] * k.die[u] / 10
    elif phase == Phase.MOVE:
        best = np.empty(k.H)
        activation_plans(k, g, dist, cache, player, g.sc[S.UNIT], best)
        for h in range(k.H):
            if mask[h]:
                scores[h] = best[h] if best[h] > -np.inf else -1e9
    elif phase == Phase.TARGET:
        u = g.sc[S.UNIT]
        for h in range(k.H):
            if mask[h]:
                scores[h] = plan_attack(k, g, cache, player, u, g.hex[u], g.occ[h], g.cmd[player, INTERACTION])
        scores[o + OPT.no_combat] = 0.0
    elif phase == Phase.RETREAT_BEFORE:
        lead, d = g.sc[S.UNIT], g.sc[S.TARGET]
        attacker = 1 - player
        threat = plan_attack(k, g, cache, attacker, lead, g.hex[lead], d, g.cmd[attacker, INTERACTION])
        for h in range(k.H):
            if mask[h]:
                scores[h] = threat - RETREAT_BEFORE_THRESHOLD + 0.01 * refuge(k, g, player, d, h)
        scores[o + OPT.stand] = 0.0
    elif phase == Phase.ADD_UNIT:
        lead, d = g.sc[S.UNIT], g.sc[S.TARGET]
        members = np.empty(MAX_DICE, dtype=np.int64)
        nm = attack_members(k, g, members)
        def_arty = g.sc[S.KIND] == CLOSE and k.is_inf[d] and g.cmd[1 - player, INTERACTION] >= 1
        now = combat_value(k, g, cache, lead, g.hex[lead], d, members, nm, False, def_arty)
        for h in range(k.H):
            if mask[h]:
                members[nm] = g.occ[h]
                gain = combat_value(k, g, cache, lead, g.hex[lead], d, members, nm + 1, False, def_arty) - now
                scores[h] = gain - CMD_VALUE
        scores[o + OPT.done_adding] = 0.0
    elif phase == Phase.ATT_ARTILLERY or phase == Phase.DEF_ARTILLERY:
        lead, d = g.sc[S.UNIT], g.sc[S.TARGET]
        members = np.empty(MAX_DICE, dtype=np.int64)
        nm = attack_members(k, g, members)
        hl = g.hex[lead]
        if phase == Phase.ATT_ARTILLERY:
            def_arty = g.sc[S.KIND] == CLOSE and k.is_inf[d] and g.cmd[1 - player, INTERACTION] >= 1
            gain = (combat_value(k, g, cache, lead, hl, d, members, nm, True, def_arty)
                    - combat_value(k, g, cache, lead, hl, d, members, nm, False, def_arty))
        else:  # the defender: what his artillery saves
            arty = g.sc[S.ATT_ARTY] == 1
            gain = (combat_value(k, g, cache, lead, hl, d, members, nm, arty, False)
                    - combat_value(k, g, cache, lead, hl, d, members, nm, arty, True))
        scores[o + OPT.artillery] = gain - CMD_VALUE
        scores[o + OPT.no_artillery] = 0.0
    elif phase == Phase.TAKE_CHOICE or phase == Phase.LOSS_OR_RETREAT:
        d = g.sc[S.TARGET]
        loss, ret = loss_value(k, g, d), retreat_value(k, g, d, False)
        if phase == Phase.TAKE_CHOICE:
            scores[o + OPT.take_choice] = max(loss, ret) - min(loss, ret) - CMD_VALUE
            scores[o + OPT.decline_choice] = 0.0
        else:
            sign = -1.0 if k.side[d] == player else 1.0  # the owner minimises the enemy's gain
            scores[o + OPT.choose_loss] = sign * loss
            scores[o + OPT.choose_retreat] = sign * ret
    elif phase == Phase.RETREAT:
        u = g.sc[S.RET_UNIT]
        for h in range(k.H):
            if mask[h]:
                scores[h] = refuge(k, g, player, u, h) if k.side[u] == player else 0.0
    elif phase == Phase.ADVANCE:
        for h in range(k.H):
            if mask[h]:
                u = g.occ[h]
                scores[h] = ((0.0 if g.disorg[u] else 10.0) + k.res[u, g.disorg[u]]
                             - 0.1 * (1 if g.acts[u] < 2 else 0))
    elif phase == Phase.TATAR_DECISION:
        vp0, vp1 = victory_points(k, g, Reason.NONE)
        end_now = vp1 >= vp0 + k.VP_TATARS_END  # ties go to the C-T player (10)
        scores[o + OPT.end_battle] = 1.0 if end_now else 0.0
        scores[o + OPT.continue_battle] = 0.0 if end_now else 1.0


@kernel
def score_choose_die(k, g, dist, cache, player, mask, scores):
    o = k.A_OPTION
    if mask[o + OPT.buy_recovery]:  # recover as soon as the track allows it (6.2.1)
        scores[o + OPT.buy_recovery] = 1.0
        return
    memo = np.full(k.NC, np.nan)  # activation scores, each unit's at most once
    cmd_full = g.cmd[player, RECON] >= k.COMMAND_CAP and g.cmd[player, INTERACTION] >= k.COMMAND_CAP
    for i in range(3):
        if not mask[k.A_DIE + i]:
            continue
        value = g.dice[i]
        best, any_unit = -np.inf, False
        if 2 <= value <= 5:
            for u in range(k.NC):
                if k.side[u] == player and Q.can_activate(k, g, u, value):
                    if np.isnan(memo[u]):
                        memo[u] = activation_score(k, g, dist, cache, player, u)
                    best = max(best, memo[u])
                    any_unit = True
        if any_unit:
            scores[k.A_DIE + i] = best
        else:
            scores[k.A_DIE + i] = 0.0 if cmd_full else CMD_GAIN_VALUE
    if mask[o + OPT.end_throw]:
        scores[o + OPT.end_throw] = 0.0
    if mask[o + OPT.buy_activation]:
        spare = g.cmd[player, INTERACTION] >= k.COMMAND_CAP
        best = 0.0
        first = True
        for u in range(k.NC):
            if k.side[u] == player and Q.can_activate(k, g, u, 0):
                if np.isnan(memo[u]):
                    memo[u] = activation_score(k, g, dist, cache, player, u)
                best = memo[u] if first else max(best, memo[u])
                first = False
        thrown_out = g.sc[S.SPENT] >= k.DICE_SPENT
        scores[o + OPT.buy_activation] = best - BUY_ACTIVATION_THRESHOLD if spare and thrown_out else -1.0


@kernel
def pick(scores, mask, u):
    """The best legal action; between ties (within :data:`TIE`), the one at ``u`` (in [0, 1)) of their list."""
    top = best_legal_score(scores, mask)
    n = 0
    for a in range(mask.shape[0]):
        if mask[a] and scores[a] >= top - TIE:
            n += 1
    i = int(u * n)
    for a in range(mask.shape[0]):
        if mask[a] and scores[a] >= top - TIE:
            if i == 0:
                return a
            i -= 1
    return -1


# ================================================================ entry points
@kernel
def score_one(kt, kdt, buf, gdt, dist, cache, player, mask, scores):
    score_actions(as_record(kt, kdt), as_record(buf, gdt), borrowed(dist), cache, player, borrowed(mask),
                  borrowed(scores))


@kernel
def decide_batch(kt, kdt, gdt, states, masks, dist, cache, u, out):
    k = as_record(kt, kdt)
    dist = borrowed(dist)
    scores = np.empty(masks.shape[1])
    for i in range(states.shape[0]):
        out[i] = -1
        n, only = 0, -1
        for a in range(masks.shape[1]):
            if masks[i, a]:
                n += 1
                only = a
        if n <= 1:
            out[i] = only
            continue
        g = as_record(states[i], gdt)
        score_actions(k, g, dist, cache, g.sc[S.DECIDER], borrowed(masks[i]), scores)
        out[i] = pick(scores, masks[i], u[i])


@kernel
def ties_batch(kt, kdt, gdt, states, masks, dist, cache, out):
    """``out[i]``: the tied-best legal actions of game ``i`` (its only action when it has one; none when over)."""
    k = as_record(kt, kdt)
    dist = borrowed(dist)
    scores = np.empty(masks.shape[1])
    for i in range(states.shape[0]):
        if legal_count(masks[i]) <= 1:
            out[i] = masks[i]
            continue
        g = as_record(states[i], gdt)
        score_actions(k, g, dist, cache, g.sc[S.DECIDER], borrowed(masks[i]), scores)
        mark_ties(scores, masks[i], TIE, out[i])


@kernel
def gaps_batch(kt, kdt, gdt, states, masks, dist, cache, out):
    """``out[i, a]``: how far legal action ``a`` of game ``i`` scores below the best (0 for the best, and for the
    only legal action); -inf for illegal actions (all of them when the game is over)."""
    k = as_record(kt, kdt)
    dist = borrowed(dist)
    scores = np.empty(masks.shape[1])
    for i in range(states.shape[0]):
        if legal_count(masks[i]) <= 1:
            mark_lone(masks[i], out[i])
            continue
        g = as_record(states[i], gdt)
        score_actions(k, g, dist, cache, g.sc[S.DECIDER], borrowed(masks[i]), scores)
        mark_gaps(scores, masks[i], out[i])


def _dist(engine) -> np.ndarray:
    d = engine.__dict__.get("_scripted_dist")
    if d is None:
        d = engine._scripted_dist = np.ascontiguousarray(engine.grid.dist, dtype=np.int32)
    return d


def scripted_actions(backend_or_engine, states: np.ndarray, out: np.ndarray, masks: np.ndarray | None = None,
                     rng: np.random.Generator | None = None) -> np.ndarray:
    """The scripted agent's action in every game of ``states`` ((N, S) int32 buffers) into ``out`` ((N,) int64),
    in one compiled call: -1 where no action is legal. ``masks`` ((N, num_actions) bool) are the games' legal
    masks (computed when not given); ties are broken by ``rng`` (a fresh unseeded one when not given), so a
    game's choice is the Python agent's whenever its best action is unique."""
    engine = getattr(backend_or_engine, "engine", backend_or_engine)
    if masks is None:
        masks = np.zeros((len(states), engine.num_actions), dtype=bool)
        for i, row in enumerate(states):
            masks[i] = engine.legal_mask(engine.state_class(row))
    u = (rng if rng is not None else np.random.default_rng()).random(len(states))
    decide_batch(engine.kt, engine.kdt, engine.gdt, states, masks, _dist(engine), _CACHE, u, out)
    return out


def scripted_ties(backend_or_engine, states: np.ndarray, out: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The scripted agent's tied-best actions in every game of ``states`` ((N, S) int32 buffers) into ``out``
    ((N, num_actions) bool), in one compiled call, given the games' legal ``masks``: the actions among which
    :func:`scripted_actions` and the agent draw their choice (the hint ``"ties"``, ``agents.hint``)."""
    engine = getattr(backend_or_engine, "engine", backend_or_engine)
    ties_batch(engine.kt, engine.kdt, engine.gdt, states, masks, _dist(engine), _CACHE, out)
    return out


def scripted_gaps(backend_or_engine, states: np.ndarray, out: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Every game's action ratings into ``out`` ((N, num_actions) float64) in one compiled call: each legal action's
    score minus the best one (0 for the tied-best and for a lone legal action, -inf where illegal), given the
    games' legal ``masks`` (the hint ``"scores"``, ``agents.hint``)."""
    engine = getattr(backend_or_engine, "engine", backend_or_engine)
    gaps_batch(engine.kt, engine.kdt, engine.gdt, states, masks, _dist(engine), _CACHE, out)
    return out


class BerestechkoScriptedAgent:
    """The heuristic player described in the module docstring."""

    name = "berestechko_scripted"

    def __init__(self, seed: int | None = None):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def scores(self, engine, state, player: int, mask: np.ndarray) -> np.ndarray:
        """Every action's score for ``player`` (-inf for the illegal ones)."""
        scores = np.empty(engine.num_actions)
        score_one(engine.kt, engine.kdt, state.buf, engine.gdt, _dist(engine), _CACHE, player,
                  np.asarray(mask, dtype=bool), scores)
        return scores

    def gaps(self, engine, state, player: int, mask: np.ndarray) -> np.ndarray:
        """Every action's score minus the best legal score (0 for a lone legal action, -inf where illegal)."""
        mask = np.asarray(mask, dtype=bool)
        out = np.where(mask, 0.0, -np.inf)
        if mask.sum() > 1:
            scores = self.scores(engine, state, player, mask)
            out[mask] = scores[mask] - scores[mask].max()
        return out

    def ties(self, engine, state, player: int, mask: np.ndarray) -> np.ndarray:
        """The tied-best legal actions (ascending), among which :meth:`act` draws."""
        legal = np.flatnonzero(mask)
        if not legal.size:
            raise ValueError("no legal action: the game is over or the mask is empty")
        if legal.size == 1:
            return legal
        scores = self.scores(engine, state, player, mask)[legal]
        return legal[scores >= scores.max() - TIE]

    def act(self, engine, state, player: int, mask: np.ndarray) -> int:
        ties = self.ties(engine, state, player, mask)
        return int(ties[self._rng.integers(len(ties))]) if len(ties) > 1 else int(ties[0])


def outcome_probs(att: tuple, dfn: tuple, r: int) -> tuple[float, float, float, float]:
    """:func:`combat_outcomes` from Python: ``att`` and ``dfn`` are tuples of ``(count, sides)`` dice groups."""
    ac = np.array([c for c, _ in att] + [0], dtype=np.int64)
    asd = np.array([s for _, s in att] + [0], dtype=np.int64)
    dc = np.array([c for c, _ in dfn] + [0], dtype=np.int64)
    dsd = np.array([s for _, s in dfn] + [0], dtype=np.int64)
    return combat_outcomes(new_cache(), ac, asd, len(att), dc, dsd, len(dfn), int(r))
