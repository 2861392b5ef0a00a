"""The judgements of Breitenfeld's scripted agent (``agents.breitenfeld_scripted``), compiled.

:func:`score_actions` scores every legal action of the pending decision from the state buffer and the
battle's packed tables (``wargame_envs.breitenfeld.tables``); it asks the compiled rules what they know
(the unit in each hex, the eligible attackers: ``combat.context``) and writes no rule twice. The best score
wins; scores within :data:`TIE` of the best are ties, drawn among at random. A choice the heuristic makes
outright (a forced order, a fixed preference) is the only finite score. The decision kernels below read:
``T`` the tables, ``buf`` the state buffer, ``J`` the movement judgement (:data:`J_COVER` .. :data:`J_FLANK`, see
``agents.breitenfeld_scripted.MoveStyle``), ``player`` the side deciding, ``mask`` the legal actions and write
``scores`` (float per action, -inf for the actions not considered).

One quirk of the Python agent this replaced is kept, so that its seeded games replay unchanged: when an
undisrupted unit chooses its destination, its own hex (staying) was listed twice, so among tied destinations
staying is drawn with twice the weight of each move. :func:`score_actions` returns that action (else -1),
:func:`mark_ties` counts it twice and :func:`drawn` puts its second entry after the tied actions, where the
Python agent's list had it.
"""

from __future__ import annotations

import numpy as np

from agents.scripted_kernels import best_legal_score
from wargame_envs.breitenfeld import combat
from wargame_envs.breitenfeld.actions import ADD_LEADERS, END, EXIT, RESOLVE, RESOLVE_CHARGE
from wargame_envs.breitenfeld.state import (D_ART, D_ATTACK, D_COMBAT, D_LEADER, D_LOSS, D_MOVE_DEST,
                                            D_MOVE_SELECT, D_SWAP, G_ART_IDX, G_DEC, G_MAY0, G_PLAYER, G_SEL, G_TURN)
from wargame_envs.breitenfeld.tables import fields, globals_of, unit_at, view
from wargame_envs.core.jit import kernel

TIE = 1e-9            # scores this close to the best are ties
NO_ENEMY = 99         # the distance to the enemy when he has no unit on the map
NEAR = 4              # 4.1 C: units this close to the enemy count toward activating their corps
DISRUPTED_TARGET = 5  # artillery: hexes of range a disrupted target is worth less than an undisrupted one
GOOD_CONTACT = 3.0    # movement: ending next to a disrupted enemy
BAD_CONTACT = 10.0    # movement: ending next to undisrupted enemies too strong for us (contact_score)
COVER_BONUS = 0.3     # movement: ending in a town, woods or hilltop hex
RANK_STEP = 1 << 20   # selection: disrupted units rank this far ahead (more than any distance)
HOLD_OFF = 100.0      # movement (the plan's hold): ending within the release distance of an enemy unit (12.4)
WALL_STEP = 0.1       # movement (the wall): each hex a unit moves away from where it stands
WALL_POUNCE = 10.0    # movement (the wall): ending next to a disrupted enemy and no undisrupted one too strong
WALL_CONTACT = 50.0   # movement (the wall): ending next to undisrupted enemies
# the movement judgement J, a tuple: per hex (cover: town, woods or hilltop; its hex row), per side (contact rule:
# add the enemies up, margin; the score per hex row nearer row 01; the plan: hold turn, wall, withdraw,
# pounce odds, cavalry draw-back distance)
(J_COVER, J_ROW, J_TOGETHER, J_MARGIN, J_FLANK, J_HOLD, J_WALL, J_WITHDRAW, J_POUNCE,
    J_CAV_BACK) = range(10)


# ------------------------------------------------------------------ the enemy's whereabouts
@kernel
def unit_arrays(buf, T):
    """(``u_hex``, ``u_dis``): the units' hexes and disrupted flags, views of the state buffer."""
    return view(buf, 0, T.nu), view(buf, T.nu, 2 * T.nu)


@kernel
def enemy_hexes(T, u_hex, player, out):
    """The hexes of ``player``'s enemy units on the map into ``out``; returns how many."""
    n = 0
    for u in range(T.nu):
        if u_hex[u] >= 0 and T.unit_side[u] != player:
            out[n] = u_hex[u]
            n += 1
    return n


@kernel
def enemy_distance(T, eh, ne, h):
    """Hexes from ``h`` to the nearest of the enemy hexes ``eh[:ne]`` (:data:`NO_ENEMY` if none)."""
    if ne == 0:
        return NO_ENEMY
    d = T.dist[h, eh[0]]
    for i in range(1, ne):
        d = min(d, T.dist[h, eh[i]])
    return d


@kernel
def only(scores, a):
    """The heuristic chooses ``a`` outright."""
    scores[a] = 0.0


@kernel
def holding(J, g, player):
    """The side's plan holds (``MoveStyle.hold``): before its hold turn while the enemy may not move yet (12.3,
    12.4), so that its artillery holds fire and its units keep beyond the release distance."""
    return g[G_TURN] < J[J_HOLD][player] and g[G_MAY0 + 1 - player] == 0


@kernel
def pounce_ok(T, at, u_dis, player, strength, here, h, J):
    """The wall's pounce: every undisrupted enemy next to ``h`` faces at least ``pounce`` times its defence
    (terrain counted) from ``strength`` and the undisrupted friends already next to it."""
    any_enemy = False
    for d in range(6):
        j = T.neighbors[h, d]
        if j < 0:
            continue
        e = at[j]
        if e < 0 or T.unit_side[e] == player or u_dis[e]:
            continue
        any_enemy = True
        mult = T.defense_mult[j] if not T.defense_needs_slope[j] or T.is_slope[h] else 1
        att = strength * 1.0
        for d2 in range(6):
            k = T.neighbors[j, d2]
            if k >= 0 and k != here and at[k] >= 0 and T.unit_side[at[k]] == player and not u_dis[at[k]]:
                att += T.unit_strength[at[k]]
        if att < J[J_POUNCE][player] * T.unit_strength[e] * mult:
            return False
    return any_enemy


# ------------------------------------------------------------------ decisions
@kernel
def score_swap(T, buf, player, mask, scores):
    """4.1 C: each corps by its undisrupted units within :data:`NEAR` hexes of the enemy."""
    u_hex, u_dis = unit_arrays(buf, T)
    eh = np.empty(T.nu, np.int64)
    ne = enemy_hexes(T, u_hex, player, eh)
    for k in range(T.nc):
        if not mask[T.corps0 + k]:
            continue
        n = 0
        for i in range(T.corps_n_units[k]):
            u = T.corps_units[k, i]
            h = u_hex[u]
            if h >= 0 and not u_dis[u] and enemy_distance(T, eh, ne, h) <= NEAR:
                n += 1
        scores[T.corps0 + k] = n


@kernel
def score_artillery(T, buf, J, player, mask, scores):
    """5.0: the target at the shortest range (the best chance to hit), undisrupted units first; no fire while the
    side's plan holds (:func:`holding`: an Allied unit disrupted by Imperial artillery releases the Allies, 12.4)."""
    u_hex, u_dis, _, _, _, _, a_hex, _, _, _, g = fields(buf, T)
    if mask[END] and holding(J, g, player):
        only(scores, END)
        return
    h0 = a_hex[g[G_ART_IDX]]
    at = unit_at(u_hex, T.nh)
    any_target = False
    for h in range(T.nh):
        if mask[T.hex0 + h]:
            u = at[h]
            scores[T.hex0 + h] = -T.dist[h0, h] - (DISRUPTED_TARGET if u >= 0 and u_dis[u] else 0)
            any_target = True
    if not any_target:
        only(scores, END)


@kernel
def score_move_select(T, buf, player, mask, scores):
    """6.0: disrupted (perhaps routing, 11.12) units first, then the unit nearest the enemy; else the first
    leader; else end the phase. Between equals the first in action order."""
    u_hex, u_dis = unit_arrays(buf, T)
    eh = np.empty(T.nu, np.int64)
    ne = enemy_hexes(T, u_hex, player, eh)
    best, best_rank, first_leader = -1, 2 * RANK_STEP, -1
    for p in range(T.nu + T.nl):
        if not mask[T.piece0 + p]:
            continue
        if p >= T.nu:
            if first_leader < 0:
                first_leader = p
            continue
        rank = (0 if u_dis[p] else RANK_STEP) + enemy_distance(T, eh, ne, u_hex[p])
        if rank < best_rank:
            best, best_rank = p, rank
    if best < 0:
        best = first_leader
    only(scores, END if best < 0 else T.piece0 + best)


@kernel
def contact_score(T, at, u_dis, player, strength, h, J):
    """6.0: ending in ``h`` next to the enemy: + :data:`GOOD_CONTACT` next to a disrupted enemy, -
    :data:`BAD_CONTACT` where ``strength`` is below the side's margin times the undisrupted enemy's defence there
    (terrain counted, 8.4): the strongest one's, or (the side's ``together``) all of theirs added up, as the
    attack that 8.12 then obliges must take them all on together (8.21)."""
    good = False
    defence = 0.0
    for d in range(6):
        j = T.neighbors[h, d]
        if j < 0:
            continue
        e = at[j]
        if e < 0 or T.unit_side[e] == player:
            continue
        if u_dis[e]:
            good = True
        else:
            mult = T.defense_mult[j] if not T.defense_needs_slope[j] or T.is_slope[h] else 1
            one = T.unit_strength[e] * mult * 1.0
            defence = defence + one if J[J_TOGETHER][player] else max(defence, one)
    bad = strength < J[J_MARGIN][player] * defence
    return (GOOD_CONTACT if good else 0.0) - (BAD_CONTACT if bad else 0.0)


@kernel
def score_move_dest(T, buf, J, player, mask, scores):
    """6.0: the destination of the selected piece; returns the action drawn with double weight (-1: none).

    Off the map whenever allowed (pursuit). A leader joins the undisrupted unit of its corps nearest the enemy
    (the stronger between equals), else stays. A disrupted unit stays if allowed, else flees as far from the
    enemy as it can (with the side's ``withdraw``, it flees too when it stands next to an enemy unit). An
    undisrupted unit closes in on the enemy (:func:`contact_score`), cover preferred; between hexes otherwise
    equal, the side's flank score per hex row nearer row 01. The side's plan (``MoveStyle``): while it holds
    (:func:`holding`), no unit ends within the release distance of an enemy unit; with ``wall``, an undisrupted
    unit stays where it is unless it can end next to a disrupted enemy and no undisrupted one too strong for it
    (or, with ``pounce``, next to undisrupted enemies at those odds: :func:`pounce_ok`), and ends next to
    undisrupted enemies only where it must; with ``cav_back``, the cavalry draws back while the plan holds."""
    if mask[EXIT]:
        only(scores, EXIT)
        return -1
    u_hex, u_dis, _, _, l_hex, _, _, _, _, _, g = fields(buf, T)
    p = g[G_SEL]
    at = unit_at(u_hex, T.nh)
    eh = np.empty(T.nu, np.int64)
    ne = enemy_hexes(T, u_hex, player, eh)
    if p >= T.nu:
        corps, joined = T.leader_corps[p - T.nu], False
        for h in range(T.nh):
            u = at[h]
            if mask[T.hex0 + h] and u >= 0 and T.unit_corps[u] == corps and not u_dis[u]:
                scores[T.hex0 + h] = -enemy_distance(T, eh, ne, h) + T.unit_strength[u] / 100.0
                joined = True
        if not joined:
            only(scores, T.hex0 + l_hex[p - T.nu])
        return -1
    here = u_hex[p]
    if u_dis[p]:
        if J[J_WITHDRAW][player] and enemy_distance(T, eh, ne, here) <= 1:
            for h in range(T.nh):   # out of the enemy's zones of control, staying only where it must
                if mask[T.hex0 + h]:
                    scores[T.hex0 + h] = enemy_distance(T, eh, ne, h) + (0.5 if h == here else 0.0)
            return -1
        if mask[T.hex0 + here]:
            only(scores, T.hex0 + here)
        else:
            for h in range(T.nh):
                if mask[T.hex0 + h]:
                    scores[T.hex0 + h] = enemy_distance(T, eh, ne, h)
        return -1
    strength = T.unit_strength[p]
    hold = holding(J, g, player)
    for h in range(T.nh):
        if mask[T.hex0 + h]:
            d = enemy_distance(T, eh, ne, h)
            contact = contact_score(T, at, u_dis, player, strength, h, J) if d == 1 else 0.0
            if J[J_WALL][player]:
                if hold and J[J_CAV_BACK][player] > 0 and T.unit_kind[p] != 0:   # cavalry behind the wall
                    score = min(d, J[J_CAV_BACK][player]) - WALL_STEP * T.dist[here, h]
                elif d != 1:
                    score = -WALL_STEP * T.dist[here, h]
                elif contact > 0:       # next to a disrupted enemy, no undisrupted one too strong for us
                    score = WALL_POUNCE + contact
                elif J[J_POUNCE][player] > 0 and pounce_ok(T, at, u_dis, player, strength, here, h, J):   # odds
                    score = WALL_POUNCE
                else:
                    score = contact - WALL_CONTACT
            else:
                score = contact - float(d)
                if hold and h != here and d <= T.release_distance:
                    score -= HOLD_OFF
            if J[J_COVER][h]:
                score += COVER_BONUS
            score -= J[J_FLANK][player] * J[J_ROW][h]
            scores[T.hex0 + h] = score
    return T.hex0 + here


@kernel
def score_combat(T, buf, player, mask, scores):
    """8.1: each attack by its odds (every eligible attacker next to the defender against its defence,
    terrain counted); the phase ends (if it may) rather than attack below 1-1."""
    u_hex, u_dis = unit_arrays(buf, T)
    C = combat.context(buf, T)
    at, elig = C[combat.C_AT], C[combat.C_ELIG]
    best = -np.inf
    for h in range(T.nh):
        if not mask[T.hex0 + h]:
            continue
        e = at[h]
        att = 0
        for d in range(6):
            j = T.neighbors[h, d]
            if j >= 0 and at[j] >= 0 and elig[at[j]]:
                att += T.unit_strength[at[j]]
        dfn = (T.unit_dstrength[e] if u_dis[e] else T.unit_strength[e]) * T.defense_mult[h]
        scores[T.hex0 + h] = att / max(dfn, 1)
        best = max(best, scores[T.hex0 + h])
    if best == -np.inf or (mask[END] and best < 1.0):
        scores[:] = -np.inf
        only(scores, END)


@kernel
def score_attack(T, buf, player, mask, scores):
    """8.2: add the strongest friendly unit that may join; then roll, charging (12.5) when allowed; else add
    the weakest enemy unit."""
    u_hex = unit_arrays(buf, T)[0]
    at = unit_at(u_hex, T.nh)
    friends = False
    for h in range(T.nh):
        if mask[T.hex0 + h] and T.unit_side[at[h]] == player:
            scores[T.hex0 + h] = T.unit_strength[at[h]]
            friends = True
    if friends:
        return
    if mask[RESOLVE_CHARGE]:
        only(scores, RESOLVE_CHARGE)
    elif mask[RESOLVE]:
        only(scores, RESOLVE)
    else:
        for h in range(T.nh):
            if mask[T.hex0 + h]:
                scores[T.hex0 + h] = -T.unit_strength[at[h]]


@kernel
def score_loss(T, buf, player, mask, scores):
    """8.6, Ax/Dx: disrupt an undisrupted unit (the weakest) rather than eliminate a disrupted one."""
    u_hex, u_dis = unit_arrays(buf, T)
    at = unit_at(u_hex, T.nh)
    for h in range(T.nh):
        if mask[T.hex0 + h]:
            u = at[h]
            scores[T.hex0 + h] = (0 if u_dis[u] else 100) - T.unit_strength[u]


@kernel
def score_actions(T, buf, J, player, mask, scores):
    """``scores[a]``: how good each action ``a`` is for ``player`` at the pending decision (-inf for the
    actions not considered); returns the action drawn with double weight among ties (-1: none)."""
    scores[:] = -np.inf
    dec = globals_of(buf, T)[G_DEC]
    if dec == D_SWAP:
        score_swap(T, buf, player, mask, scores)
    elif dec == D_ART:
        score_artillery(T, buf, J, player, mask, scores)
    elif dec == D_MOVE_SELECT:
        score_move_select(T, buf, player, mask, scores)
    elif dec == D_MOVE_DEST:
        return score_move_dest(T, buf, J, player, mask, scores)
    elif dec == D_COMBAT:
        score_combat(T, buf, player, mask, scores)
    elif dec == D_ATTACK:
        score_attack(T, buf, player, mask, scores)
    elif dec == D_LOSS:
        score_loss(T, buf, player, mask, scores)
    elif dec == D_LEADER:
        only(scores, ADD_LEADERS)   # 10.11: a leader's value only ever helps its unit
    else:
        for a in range(mask.shape[0]):   # no judgement: every legal action ties
            if mask[a]:
                scores[a] = 0.0
    return -1


# ------------------------------------------------------------------ choosing
@kernel
def mark_ties(scores, mask, doubled, out):
    """``out[a]``: legal ``a`` scores within :data:`TIE` of the best legal score; returns how many entries the
    draw is among (``doubled``, when tied, counts twice)."""
    top = best_legal_score(scores, mask)
    n = 0
    for a in range(mask.shape[0]):
        out[a] = mask[a] and scores[a] >= top - TIE
        n += 1 if out[a] else 0
    if doubled >= 0 and out[doubled]:
        n += 1
    return n


@kernel
def drawn(ties, doubled, i):
    """Entry ``i`` (below :func:`mark_ties`' count) of the draw: the ``i``-th tied action in ascending order, ``doubled`` after them."""
    for a in range(ties.shape[0]):
        if ties[a]:
            if i == 0:
                return a
            i -= 1
    return doubled


@kernel
def decide(T, buf, J, mask, scores, ties, u):
    """The choice at one game's pending decision: the action at ``u`` (in [0, 1)) of its draw; -1 if nothing
    is legal; the only legal action as is."""
    n, only_action = 0, -1
    for a in range(mask.shape[0]):
        if mask[a]:
            n += 1
            only_action = a
    if n <= 1:
        return only_action
    player = globals_of(buf, T)[G_PLAYER]
    doubled = score_actions(T, buf, J, player, mask, scores)
    n = mark_ties(scores, mask, doubled, ties)
    return drawn(ties, doubled, int(u * n))
