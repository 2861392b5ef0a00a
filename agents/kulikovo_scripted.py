"""A scripted heuristic player for Kulikovo 1380 (``kulikovo_v0``).

It reads the engine and the public state only (never the Ambush Regiment's hexes: its distance
reckoning skips hidden units, which stand off the map until placed, 15.2, and the Russian side activates
the Ambush Regiment by schedule). Each decision: rally at the Standard when two or more Retired units stand
there and its Flight Points come within ten of its Flight Level (14.0, 16.0); else activate the command that
puts the most units to use (those near the enemy fight, the others march up where a step is open; for the
Continuity weighted by the command's rating), move units step by step toward the nearest enemy, fire whenever
a target is in range, stop with the enemy to the front, shock or charge where the odds are fair, react and
return fire, counter-charge with heavy cavalry, retreat away from the enemy; rest Disordered units and move
leaders after their units (the plan, below).

Until 2026-12-04 it activated the command nearest the enemy and its cavalry stopped 2-3 hexes short to charge:
the commands behind the front line then never moved (the Mongol Commands 8, 9, 11 and 12 stood on their set-up
hexes all game in a traced game) and the cavalry waited for charges it could not make; against random play it
won 39 of 100 games as the Russians and 43 as the Mongols, most of the others cut by the activation limit
(docs/training.md, "What is left"). Until 2026-12-05 a unit counted toward its command's value even when it
could only stand (no open step nearer the enemy, nothing in reach): against random play the Russian side then
activated the same blocked command at every free activation, and the activation limit cut 27 games in 100; nor
did it ever rally (docs/kulikovo.md, "The scripted agent").

Both sides play a plan on top of that (2026-12-05, seventh session; docs/kulikovo.md, "The scripted agent"): a
unit shocks and charges only where the odds are fair (:func:`odds_against`, :data:`SHOCK_MIN`); Disordered units
step away from the enemy and rest until they rally (12.5.1) instead of fighting on at -2 and retiring at the next
hit; missile units do not fire at cavalry that could counter-charge them (11.3); and leaders follow their units so
that they stay in command (13.1). The Mongol side, which won 32 of 200 games of the scripted mirror before (dice
seeds 1000-1099 and 5000-5099), wins 93 (and 147 of 300 on seeds 2000-2299): the mirror is about even.

Every decision but one has a single answer (the first of equal options); only where it has no tactic (the
False Dmitri set-up, 13.4) does it draw among the legal actions with its seeded generator, so it is
deterministic for a seed.

The heuristic is one compiled kernel over the state buffer (:func:`choose`), reading the engine's tables
(``rules/tables.py``) and its compiled command ratings (4.2, 13.2, 13.3): the agent asks it for one game,
:func:`scripted_actions` and :func:`scripted_ties` for every game of a batch in one call (issue 14).
"""

from __future__ import annotations

import numpy as np

from wargame_envs.core.chance import DS_SIZE
from wargame_envs.core.jit import kernel
from wargame_envs.kulikovo.actions import OPT_NO, OPT_PASS, OPT_SHOCK_ALL, OPT_STD_RALLY, OPT_YES
from wargame_envs.kulikovo.data import H, M, R
from wargame_envs.kulikovo.geometry import FLANK, REAR
from wargame_envs.kulikovo.rules.activation import leader_targets, rally_candidates
from wargame_envs.kulikovo.rules.board import defense, flight_points, targeted
from wargame_envs.kulikovo.rules.fire import category, cc_fire_facings, near_index
from wargame_envs.kulikovo.rules.kstate import make_ctx
from wargame_envs.kulikovo.rules.leaders import command_ratings
from wargame_envs.kulikovo.rules.shock import charge_hexes, frontal_enemies
from wargame_envs.kulikovo.state import (
    D_ADV_PICK, D_CC_FIRE, D_CONTINUITY, D_DEFENSE, D_FACE, D_FREE, D_LEADER_MOVE, D_MF_SELECT, D_PLACE_REPL,
    D_RBS_ADVANCE, D_REACT, D_RESOLVE_PICK, D_RETREAT, D_RETURN, D_SEIZE, D_SETUP_AMBUSH, D_SETUP_FACE,
    D_SETUP_LEADER, D_SHOCK_MODE, D_SHOCK_SELECT, D_STD_MOVE, D_UNIT_ACT, DISORDERED, F_MOVED, G_ACTIVATIONS,
    G_AMBUSH_PLACED, G_SP, LF_OC, NORMAL, RETIRED,
)

AMBUSH_AFTER = 25   # activations before the Russian side springs the Ambush Regiment
FAR = 99            # the distance to the enemy when no enemy unit is on the map
FIRE_RANGE = 2      # hexes: missile units fire this far (9.0)
FIGHT_RANGE = 3     # hexes: a unit this near the enemy fights when its command activates; a farther one marches
AMBUSH_FIRST = 1e9  # the value of the Ambush Regiment once its schedule is due (activated before any other)
RALLY_AT = 2        # Retired units at the Standard worth a free activation to rally (14.0) ...
RALLY_DANGER = 10   # ... once its Flight Points stand this near its Flight Level (a 0-9 roll could end it, 16.0)
SEIZE_RATING = 5    # the least rating worth seizing the Continuity with (4.4)
DRAW = -2           # :func:`choose`: no tactic, draw among the legal actions
SHOCK_MIN = -1      # a unit shocks or charges only at these net odds or better (:func:`odds_against`)
FIRE_DISCIPLINE_UNTIL = 100  # ... and holds fire at cavalry that could counter-charge it until this activation
# The heuristic picks one action and rates no other. For the ratings hint (``--hint scores``, agents.hint) its
# choice rates 0 and every other legal action this many Flight Points below: at the hint's temperature (0.05)
# each other action gets exp(-6) = 0.25% of the choice's prior weight, so the untrained residual policy plays
# the heuristic and tries another legal action at ~2% of its decisions (8 legal actions on average).
OFF_CHOICE_GAP = 0.3


# ------------------------------------------------------------------ reading the board
@kernel
def nearest_enemy(c, T, player, h):
    """Hexes from ``h`` to the nearest enemy unit on the map (hidden units are off it); :data:`FAR` if none."""
    best = -1
    for v in range(T.side_ufirst[1 - player], T.side_uend[1 - player]):
        e = c.u_hex[v]
        if e >= 0 and (best < 0 or T.dist[h, e] < best):
            best = T.dist[h, e]
    return FAR if best < 0 else best


@kernel
def first_legal(mask, lo, hi):
    """The first legal action in ``[lo, hi)``, or -1."""
    for a in range(lo, hi):
        if mask[a]:
            return a
    return -1


@kernel
def legal_or_first(mask, a):
    """``a`` if it is legal, else the first legal action."""
    return a if mask[a] else first_legal(mask, 0, mask.shape[0])


@kernel
def face_toward(c, T, player, h, mask):
    """The first legal facing of a unit in ``h`` whose frontal hexes (6.0) are nearest the enemy; -1 if none."""
    best, key = -1, 0
    for f in range(6):
        if not mask[T.A_FACE + f]:
            continue
        k = -1
        for j in range(2):
            x = T.front_nb[h, f, j]
            if x >= 0:
                d = nearest_enemy(c, T, player, x)
                k = d if k < 0 else min(k, d)
        k = FAR if k < 0 else k
        if best < 0 or k < key:
            best, key = T.A_FACE + f, k
    return best


@kernel
def open_step(c, T, player, u, h, d):
    """Whether unit ``u`` in ``h``, ``d`` hexes from the enemy, has a passable empty neighbour nearer it."""
    for k in range(6):
        y = T.nbr[h, k]
        if y >= 0 and T.step_cost[T.ucls[u], h, k] >= 0 and c.hex_unit[y] < 0 and nearest_enemy(c, T, player, y) < d:
            return True
    return False


@kernel
def command_value(c, T, player, cmd):
    """What activating ``cmd`` puts to use (higher is better), over its units on the map and not Retired: two for
    each that can fight (next to the enemy, or a missile unit within :data:`FIRE_RANGE`), two for each within
    :data:`FIGHT_RANGE` hexes and one for each farther off that has an open step nearer the enemy
    (:func:`open_step`), none for one that could only stand; the Ambush Regiment waits for its schedule
    (:data:`AMBUSH_AFTER` activations, 15.2), then goes first."""
    if cmd == T.ambush_cmd and not c.g[G_AMBUSH_PLACED]:
        return AMBUSH_FIRST if c.g[G_ACTIVATIONS] >= AMBUSH_AFTER else 0.0
    value = 0.0
    for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
        h = c.u_hex[u]
        if h < 0 or c.u_status[u] == RETIRED:
            continue
        d = nearest_enemy(c, T, player, h)
        if d <= 1 or (d <= FIRE_RANGE and T.umissile[u]):
            value += 2.0
        elif open_step(c, T, player, u, h, d):
            value += 2.0 if d <= FIGHT_RANGE else 1.0
    return value


# ------------------------------------------------------------------ the plan
# Measured for the Mongol side alone against the heuristic of before (dice seeds 1000-1099 and 5000-5099 / 2000-2299),
# Mongol wins: the heuristic alone 32 / 49; shocking only at fair odds 54 / 74; with leaders following their units
# 61 / 82; with Disordered units resting away from the enemy 89 / 110, stepping away first 82 / 143; with fire
# discipline 98 / 179. Both sides playing it: 94 / 147; with fire discipline until activation 100, 93 / 147, and
# against random play 190 of 200 instead of 182 (docs/kulikovo.md).
@kernel
def odds_against(c, T, u, v, x, n, bonus):
    """Net shock DRM of ``u`` from hex ``x`` against ``v``, one of ``n`` defenders, ``bonus`` for a charge:
    Weapons System Matrix, the defender's Defense DRM, strength, Retired (10.2); the angle of attack (flank +2,
    rear +3); -2 for a Disordered attacker; +3 against a Disordered or Retired defender (the Disordered column of
    the Shock and Charge Tables is about three better). Terrain and leaders left out."""
    drm = T.wsm[T.utype[u], T.utype[v]] + defense(c, T, v) + 1 - n + bonus
    if c.u_status[u] != NORMAL:
        drm -= 2
    if c.u_status[v] == RETIRED:
        drm += 2
    if c.u_status[v] != NORMAL:
        drm += 3
    k = near_index(T, c.u_hex[v], x)
    if k >= 0:
        cg = category(T, c.u_hex[v], k, c.u_face[v])
        drm += 2 if cg == FLANK else 3 if cg == REAR else 0
    return drm


@kernel
def shock_odds(c, T, u):
    """The worst net odds (:func:`odds_against`) of ``u`` shocking the enemies in its frontal hexes (10.2: it
    must shock them all); 99 if none."""
    fe = np.empty(2, np.int64)
    n = frontal_enemies(c, T, u, c.u_hex[u], fe)
    worst = 99
    for i in range(n):
        worst = min(worst, odds_against(c, T, u, fe[i], c.u_hex[u], n, 0))
    return worst


@kernel
def charge_odds(c, T, u, y):
    """The worst net odds of ``u`` charging into hex ``y`` (its facing kept, 11.1) against the enemies frontal
    there: +2 for H, +1 for M, one less if it moved, half of it against Regular Infantry (reluctance, 11.2)."""
    p, f = T.uplayer[u], c.u_face[u]
    fe = np.empty(2, np.int64)
    n = 0
    for k in range(2):
        t = T.nbr[y, (f + k) % 6]
        if t >= 0 and c.hex_unit[t] >= 0 and T.uplayer[c.hex_unit[t]] != p:
            fe[n] = c.hex_unit[t]
            n += 1
    bonus = (2 if T.utype[u] == H else 1) - (1 if c.u_flags[u] & F_MOVED else 0)
    worst = 99
    for i in range(n):
        v = fe[i]
        worst = min(worst, odds_against(c, T, u, v, y, n, bonus // 2 if T.utype[v] == R else bonus))
    return worst


@kernel
def best_charge(c, T, u):
    """(hex, odds) of ``u``'s best charge (:func:`charge_odds`); (-1, -99) if it has none."""
    tgd = np.zeros(T.U, np.bool_)
    targeted(c, T, T.uplayer[u], tgd)
    hexes = np.zeros(T.N, np.bool_)
    best, odds = -1, -99
    if charge_hexes(c, T, u, tgd, hexes):
        for y in range(T.N):
            if hexes[y]:
                o = charge_odds(c, T, u, y)
                if o > odds:
                    best, odds = y, o
    return best, odds


@kernel
def plan_shock_select(c, T, player, mask):
    """Shock (10.0): the first unit whose shock, or else best charge, has odds of :data:`SHOCK_MIN` or better;
    else no more attacks. (An L shocking H or R starts at -5 or -2 and is Disordered and pushed back more often
    than not: the heuristic alone attacks with every unit that may.)"""
    base = T.A_UNIT - T.side_ufirst[player]
    fe = np.empty(2, np.int64)
    for a in range(T.A_UNIT, T.A_LEADER):
        if mask[a]:
            u = a - base
            if frontal_enemies(c, T, u, c.u_hex[u], fe):
                odds = shock_odds(c, T, u)
            else:
                odds = best_charge(c, T, u)[1]
            if odds >= SHOCK_MIN:
                return a
    return T.A_OPT + OPT_PASS


@kernel
def units_in_range(c, T, l, h):
    """Units of leader ``l``'s command, not Retired, within his Command Range of hex ``h`` (13.1)."""
    cmd = T.lcmd[l]
    n = 0
    for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
        x = c.u_hex[u]
        if x >= 0 and c.u_status[u] != RETIRED and T.dist[h, x] <= c.l_range[l]:
            n += 1
    return n


@kernel
def leader_hex(c, T, l):
    """Where leader ``l`` may move (13.0) with more of his units in range than where he stands, not next to the
    enemy (13.3): the hex with the most; -1 if none."""
    mask = np.zeros(T.N, np.bool_)
    leader_targets(c, T, l, mask)
    best, key = -1, units_in_range(c, T, l, c.l_hex[l])
    for h in range(T.N):
        if mask[h] and nearest_enemy(c, T, T.lplayer[l], h) >= 2:
            k = units_in_range(c, T, l, h)
            if k > key:
                best, key = h, k
    return best


@kernel
def plan_mf_select(c, T, player, mask):
    """Move/Fire: every unit in turn but a Disordered one away from the enemy, which does nothing and so rallies
    (12.5.1); then a leader (not the Overall Commander) whose move brings more of his units in command
    (:func:`leader_hex`: the heuristic's units marched out of their leaders' range and could then not close
    with the enemy, 13.1); then the end of Move/Fire."""
    base = T.A_UNIT - T.side_ufirst[player]
    for a in range(T.A_UNIT, T.A_LEADER):
        if mask[a]:
            u = a - base
            if c.u_status[u] != DISORDERED or nearest_enemy(c, T, player, c.u_hex[u]) <= 1:
                return a
    lb = T.A_LEADER - T.side_lfirst[player]
    for a in range(T.A_LEADER, T.A_CMD):
        if mask[a] and not c.l_flags[a - lb] & LF_OC and leader_hex(c, T, a - lb) >= 0:
            return a
    return T.A_OPT + OPT_PASS


@kernel
def step_away(c, T, player, h, mask):
    """The legal step from ``h`` that leaves the unit farthest from the enemy, at least two hexes; -1 if none."""
    best, key = -1, 1
    for d in range(6):
        if mask[T.A_DIR + d]:
            k = nearest_enemy(c, T, player, T.nbr[h, d])
            if k > key:
                best, key = T.A_DIR + d, k
    return best


# ------------------------------------------------------------------ decisions
@kernel
def command_of(T, player, a):
    """The command that ``player``'s command action ``a`` names."""
    return T.side_cfirst[player] + a - T.A_CMD


@kernel
def choose_command(c, T, player, mask, continuity, ratings):
    """Free activation or Continuity (4.2, 4.3): the command that puts the most units to use
    (:func:`command_value`), for the Continuity times its rating (the chance its die roll succeeds), so
    commands far from the enemy march up in turn instead of waiting all game, and a command whose units are all
    blocked is not activated again and again; the turn ends (or, at a free activation, passes) when no command
    has a unit to use."""
    best, key = -1, 0.0
    for a in range(T.A_CMD, T.A_OPT):
        if not mask[a]:
            continue
        cmd = command_of(T, player, a)
        value = command_value(c, T, player, cmd)
        if continuity:
            value *= ratings[cmd]
        if value > key:
            best, key = a, value
    return best if best >= 0 else legal_or_first(mask, T.A_OPT + OPT_PASS)


@kernel
def choose_seizure(T, player, mask, ratings):
    """Seize the Continuity (4.4) with the best-rated command if it is rated :data:`SEIZE_RATING` or more."""
    best, top = -1, 0
    for a in range(T.A_CMD, T.A_OPT):
        if mask[a]:
            r = ratings[command_of(T, player, a)]
            if best < 0 or r > top:
                best, top = a, r
    return best if best >= 0 and top >= SEIZE_RATING else T.A_OPT + OPT_NO


@kernel
def unit_act(c, T, player, u, mask):
    """Move/Fire (9.0, 11.0): fire at the nearest target; else step toward the nearest enemy and stop facing
    it when adjacent (cavalry does not stop short to charge, 11.1: the charge it waits for is often not open to
    it, and it would wait again at every activation); a Retired unit takes the first step the rules leave it.
    Until activation :data:`FIRE_DISCIPLINE_UNTIL` (after it the clock matters more: the activation limit cuts the
    game), no fire at a unit that could counter-charge the firer (11.3: H or M through their front or
    flank, neither Disordered nor in another ZOC; a Charge at +2 that retires or eliminates most missile units),
    and a Disordered unit next to the enemy that does not fire steps away from it (to rest and rally next time)."""
    h = c.u_hex[u]
    fire, key = -1, 0
    for x in range(T.N):
        if mask[x] and (fire < 0 or T.dist[h, x] < key):
            if c.g[G_ACTIVATIONS] < FIRE_DISCIPLINE_UNTIL and c.hex_unit[x] >= 0 and \
                    cc_fire_facings(c, T, c.hex_unit[x], u):
                continue
            fire, key = x, T.dist[h, x]
    if fire >= 0:
        return fire
    if c.u_status[u] == RETIRED:
        step = first_legal(mask, T.A_DIR, T.A_DIR + 6)
        return step if step >= 0 else first_legal(mask, T.A_FACE, T.A_FACE + 6)
    here = nearest_enemy(c, T, player, h)
    if here <= 1 and c.u_status[u] == DISORDERED:
        away = step_away(c, T, player, h, mask)
        if away >= 0:
            return away
    if here <= 1:
        return face_toward(c, T, player, h, mask)
    best, bkey = -1, here
    for d in range(6):
        if mask[T.A_DIR + d]:
            k = nearest_enemy(c, T, player, T.nbr[h, d])
            if k < bkey:
                best, bkey = T.A_DIR + d, k
    return best if best >= 0 else face_toward(c, T, player, h, mask)


@kernel
def farthest_from_enemy(c, T, player, mask, std):
    """The legal hex farthest from the enemy; between equals, the one nearest hex ``std`` (when ``std >= 0``)."""
    best, key, near_std = -1, 0, 0
    for h in range(T.N):
        if not mask[h]:
            continue
        k = nearest_enemy(c, T, player, h)
        s = T.dist[std, h] if std >= 0 else 0
        if best < 0 or k > key or (k == key and s < near_std):
            best, key, near_std = h, k, s
    return best


@kernel
def defend(c, T, player, d, mask):
    """Defending against shock (11.3, 10.1): heavy cavalry counter-charges, other units but medium cavalry
    retreat before shock as far from the enemy as they can, the rest stand."""
    face = first_legal(mask, T.A_FACE, T.A_FACE + 6)
    if face >= 0 and T.utype[d] == H:
        return face
    if T.utype[d] != M:
        away = farthest_from_enemy(c, T, player, mask, -1)
        if away >= 0:
            return away
    return T.A_OPT + OPT_NO


@kernel
def choose_in(c, T, player, mask, ratings):
    """The agent's action at the pending decision of the game ``c`` with two or more legal actions in
    ``mask``: one action, or :data:`DRAW` (draw among the legal actions). ``ratings``: room for the command
    ratings."""
    t = c.stack[c.g[G_SP] - 1]
    kind, arg = t[0], t[2]
    o = T.A_OPT
    if kind == D_FREE and mask[o + OPT_STD_RALLY] and \
            rally_candidates(c, T, player, np.empty(T.U, np.int64)) >= RALLY_AT and \
            flight_points(c, T, player) >= T.flight_level[player] - RALLY_DANGER:
        return o + OPT_STD_RALLY
    if kind == D_FREE or kind == D_CONTINUITY:
        if kind == D_CONTINUITY:
            command_ratings(c, T, ratings)
        return choose_command(c, T, player, mask, kind == D_CONTINUITY, ratings)
    if kind == D_SEIZE:
        command_ratings(c, T, ratings)
        return choose_seizure(T, player, mask, ratings)
    if kind == D_MF_SELECT:
        return plan_mf_select(c, T, player, mask)
    if kind == D_SHOCK_SELECT:
        return plan_shock_select(c, T, player, mask)
    if kind == D_UNIT_ACT:
        return unit_act(c, T, player, arg, mask)
    if kind == D_REACT or kind == D_RETURN:
        return legal_or_first(mask, o + OPT_YES)
    if kind == D_CC_FIRE:  # heavy cavalry counter-charges the firer (11.3)
        face = first_legal(mask, T.A_FACE, T.A_FACE + 6)
        return face if face >= 0 and T.utype[arg] == H else o + OPT_NO
    if kind == D_DEFENSE:
        return defend(c, T, player, arg, mask)
    if kind == D_SHOCK_MODE:  # the best charge if its odds are fair (or the only choice), else shock
        y, odds = best_charge(c, T, arg)
        if y >= 0 and mask[y] and (odds >= SHOCK_MIN or not mask[o + OPT_SHOCK_ALL]):
            return y
        return legal_or_first(mask, o + OPT_SHOCK_ALL)
    if kind == D_RBS_ADVANCE:
        unit = first_legal(mask, T.A_UNIT, T.A_LEADER)
        return unit if unit >= 0 else first_legal(mask, 0, mask.shape[0])
    if kind == D_RETREAT:  # away from the enemy, toward the own Standard
        return farthest_from_enemy(c, T, player, mask, c.std_hex[player])
    if kind == D_FACE or kind == D_SETUP_FACE:
        h = c.u_hex[arg] if c.u_hex[arg] >= 0 else T.unit_hex0[arg]
        return face_toward(c, T, player, h, mask)
    if kind == D_LEADER_MOVE:
        h = leader_hex(c, T, arg)
        return h if h >= 0 and mask[h] else o + OPT_PASS
    if (kind == D_RESOLVE_PICK or kind == D_ADV_PICK or kind == D_PLACE_REPL or kind == D_SETUP_AMBUSH
            or kind == D_SETUP_LEADER or kind == D_STD_MOVE):
        return first_legal(mask, 0, mask.shape[0])
    return DRAW


@kernel
def choose(c, T, player, mask, ratings):
    """:func:`choose_in` for any mask: the only legal action when there is one, -1 when none is, the first
    legal one where the heuristic finds none (a unit to face with no facing allowed: never seen in play)."""
    n, first = 0, -1
    for a in range(mask.shape[0]):
        if mask[a]:
            n += 1
            first = a if first < 0 else first
    if n <= 1:
        return first
    a = choose_in(c, T, player, mask, ratings)
    return first if a == -1 else a


# ------------------------------------------------------------------ entry points
@kernel
def reading_ctx(buf, T, scratch):
    """The rules' context of the game in ``buf`` for reading (no dice, events or ZOC room: ``scratch``)."""
    dv, ds, ev, evn, zc, zu, opts = scratch
    return make_ctx(buf, T, dv, ds, ev, evn, zc, zu, opts)


@kernel
def new_scratch(T):
    """What :func:`reading_ctx` needs besides the state: no dice, no events, no options; room for the ZOC
    (the plan's charges and counter-charges read it, 7.0)."""
    return (np.zeros(0, np.float64), np.zeros(DS_SIZE, np.int64), np.zeros((0, 5), np.int32), np.zeros(1, np.int64),
            np.zeros((2, T.N), np.int64), np.zeros((2, T.N, 6), np.int64), np.zeros(1, np.bool_))


@kernel
def choose_one(T, buf, player, mask):
    """:func:`choose` for the game in ``buf`` (the agent's call)."""
    return choose(reading_ctx(buf, T, new_scratch(T)), T, player, mask, np.empty(T.NC, np.int64))


@kernel
def draw(mask, u):
    """The legal action at ``u`` (in [0, 1)) of their ascending list (Berestechko's ``pick`` among ties)."""
    n = 0
    for a in range(mask.shape[0]):
        n += 1 if mask[a] else 0
    i = int(u * n)
    for a in range(mask.shape[0]):
        if mask[a]:
            if i == 0:
                return a
            i -= 1
    return -1


@kernel
def decide_batch(T, states, masks, u, out):
    """``out[i]``: the agent's action in game ``i`` (-1 when none is legal; a draw at ``u[i]`` where it draws)."""
    ratings, scratch = np.empty(T.NC, np.int64), new_scratch(T)
    for i in range(states.shape[0]):
        c = reading_ctx(states[i], T, scratch)
        player = c.stack[c.g[G_SP] - 1, 1] if c.g[G_SP] > 0 else 0
        a = choose(c, T, player, masks[i], ratings)
        out[i] = draw(masks[i], u[i]) if a == DRAW else a


@kernel
def ties_batch(T, states, masks, out):
    """``out[i]``: the actions among which the agent draws in game ``i`` (its one choice, or every legal
    action where it draws; none when the game is over)."""
    ratings, scratch = np.empty(T.NC, np.int64), new_scratch(T)
    for i in range(states.shape[0]):
        c = reading_ctx(states[i], T, scratch)
        player = c.stack[c.g[G_SP] - 1, 1] if c.g[G_SP] > 0 else 0
        a = choose(c, T, player, masks[i], ratings)
        for b in range(masks.shape[1]):
            out[i, b] = masks[i, b] and (a == DRAW or b == a)


def _legal_masks(engine, states: np.ndarray) -> np.ndarray:
    masks = np.zeros((len(states), engine.num_actions), dtype=bool)
    for i, row in enumerate(states):
        masks[i] = engine.legal_mask(engine.state_class(row))
    return masks


def scripted_actions(backend_or_engine, states: np.ndarray, out: np.ndarray, masks: np.ndarray | None = None,
                     rng: np.random.Generator | None = None) -> np.ndarray:
    """The scripted agent's action in every game of ``states`` ((N, S) int32 buffers) into ``out`` ((N,) int64),
    in one compiled call: -1 where no action is legal. ``masks`` ((N, num_actions) bool) are the games' legal
    masks (computed when not given); where the agent draws, ``rng`` draws (a fresh unseeded one when not
    given)."""
    engine = getattr(backend_or_engine, "engine", backend_or_engine)
    if masks is None:
        masks = _legal_masks(engine, states)
    u = (rng if rng is not None else np.random.default_rng()).random(len(states))
    decide_batch(engine.tables(), states, masks, u, out)
    return out


def scripted_ties(backend_or_engine, states: np.ndarray, out: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The scripted agent's tied-best actions in every game of ``states`` ((N, S) int32 buffers) into ``out``
    ((N, num_actions) bool), in one compiled call, given the games' legal ``masks``: the actions among which
    :func:`scripted_actions` and the agent draw their choice (the hint ``"ties"``, ``agents.hint``)."""
    engine = getattr(backend_or_engine, "engine", backend_or_engine)
    ties_batch(engine.tables(), states, masks, out)
    return out


def scripted_gaps(backend_or_engine, states: np.ndarray, out: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Every game's action ratings into ``out`` ((N, num_actions) float64), given the legal ``masks``: 0 for the
    heuristic's choice (every legal action where it draws), -:data:`OFF_CHOICE_GAP` for the other legal actions,
    -inf for the illegal ones (the hint ``"scores"``, ``agents.hint``)."""
    ties = scripted_ties(backend_or_engine, states, np.zeros(masks.shape, dtype=bool), masks)
    return _gaps_of(ties, masks, out)


def _gaps_of(ties: np.ndarray, masks: np.ndarray, out: np.ndarray) -> np.ndarray:
    out[:] = -np.inf
    out[masks] = -OFF_CHOICE_GAP
    out[ties] = 0.0
    return out


class KulikovoScriptedAgent:
    """The heuristic player described in the module docstring."""

    name = "kulikovo_scripted"

    def __init__(self, seed: int | None = None):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def ties(self, engine, state, player: int, mask: np.ndarray) -> np.ndarray:
        """The tied-best legal actions (ascending), among which :meth:`act` draws: its one choice, or every
        legal action where it has no tactic."""
        legal = np.flatnonzero(mask)
        if not legal.size:
            raise ValueError("no legal action: the game is over or the mask is empty")
        if legal.size == 1:
            return legal
        a = choose_one(engine.tables(), state.buf, int(player), np.asarray(mask, dtype=bool))
        return legal if a == DRAW else np.array([a], dtype=np.int64)

    def gaps(self, engine, state, player: int, mask: np.ndarray) -> np.ndarray:
        """Every action's rating (see :func:`scripted_gaps`)."""
        mask = np.asarray(mask, dtype=bool)
        ties = np.zeros(mask.shape, dtype=bool)
        ties[self.ties(engine, state, player, mask)] = True
        return _gaps_of(ties, mask, np.empty(mask.shape))

    def act(self, engine, state, player: int, mask: np.ndarray) -> int:
        ties = self.ties(engine, state, player, mask)
        return int(ties[self._rng.integers(len(ties))]) if len(ties) > 1 else int(ties[0])
