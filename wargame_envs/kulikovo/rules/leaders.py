"""Leaders and command (13.0 - 13.4), the Ambush Regiment (15.2). Compiled kernels over the state (``c``,
see kstate.py) and the scenario tables (``T``).

Leaders stand in a hex; one stacked with a combat unit moves with it (retreat, advance, charge). A leader
moves on his own only when his command is activated (a "move leader" decision, to a hex within 8 of a
unit of his command). Command status (13.1) is traced in hexes from a leader of the unit's command or from
the Overall Commander, not through enemy units or enemy ZOC, then chained through adjacent units of the
same command.
"""

from __future__ import annotations

import numpy as np

from ...core.chance import roll
from ...core.errors import ScenarioError
from ...core.jit import kernel
from ..data import TYPES
from ..events import (
    EV_AMBUSH_PLACED, EV_AMBUSH_SEEN, EV_DMITRI_ESCAPES, EV_DMITRI_KILLED, EV_FALSE_DMITRI, EV_LEADER_CHECK_FIRE,
    EV_LEADER_CHECK_SHOCK, EV_LEADER_KILLED, EV_OC_KILLED, EV_PART, EV_REPL_KILLED, EV_REPL_PLACED,
)
from ..state import (
    F_DORMANT, F_INCMD, G_AMBUSH_PLACED, G_FD, L_ACTIVE, L_GONE, L_HIDDEN, L_PENDING, L_REPL, L_REPL_DEAD, LF_FD, LF_OC,
    LF_REAL, NORMAL, RETIRED,
)
from .kstate import log
from .zoc import adjacent, zoc_fill
from .tables import (
    TV_DMITRI_ESCAPE_MIN, TV_FD_ESCAPED_RATING, TV_FIRE_LEADER_KILLED_MIN, TV_LEADER_SHOCK_KILLED_MIN, TV_REPL_RANGE,
    TV_REPL_RATING, TV_V_LEADER, TV_V_OC,
)


@kernel
def in_play_state(st):
    return st == L_ACTIVE or st == L_REPL or st == L_REPL_DEAD


@kernel
def leader_in_play(c, l):
    return in_play_state(c.l_state[l]) and c.l_hex[l] >= 0


@kernel
def still_at(c, l, h):
    """Leader ``l`` still in play in hex ``h``: a loop over ``leaders_at`` re-checks each, since handling one
    can move another (13.4: a revealed False Dmitri sends the real one to his Standard)."""
    return c.l_hex[l] == h and in_play_state(c.l_state[l])


@kernel
def leaders_at(c, T, h, p, out):
    """Leaders in play in hex ``h`` (of player ``p``; -1: either) into ``out``; returns how many."""
    n = 0
    if h < 0:
        return 0
    for l in range(T.NL):
        if c.l_hex[l] == h and in_play_state(c.l_state[l]) and (p < 0 or T.lplayer[l] == p):
            out[n] = l
            n += 1
    return n


@kernel
def any_leader_at(c, T, h, p):
    for l in range(T.NL):
        if c.l_hex[l] == h and in_play_state(c.l_state[l]) and T.lplayer[l] == p:
            return True
    return False


# ------------------------------------------------------------------ ratings
@kernel
def command_ratings(c, T, out):
    """4.2, 13.2, 13.3: the activation rating of every command into ``out``: its best leader in play, +1
    for a subordinate stacked with or adjacent to the Overall Commander; a command whose leader awaits
    his replacement uses the replacement's rating (a hidden Ambush leader his own)."""
    for cmd in range(T.NC):
        best = -1
        for k in range(T.cmd_leaders.shape[1]):
            l = T.cmd_leaders[cmd, k]
            if l < 0:
                break
            st = c.l_state[l]
            if in_play_state(st) and c.l_hex[l] >= 0:
                best = max(best, activation_rating(c, T, l))
            elif st == L_PENDING:
                best = max(best, T.l_base_rating[l] + T.tv[TV_REPL_RATING])
            elif st == L_HIDDEN:
                best = max(best, c.l_rating[l])
        out[cmd] = best


@kernel
def activation_rating(c, T, l):
    """13.2: the Activation Rating of leader ``l`` on the map: his own, +1 for a subordinate stacked with or
    adjacent to his Overall Commander (also what 13.3's shock check subtracts, clarification C47)."""
    r = c.l_rating[l]
    if c.l_flags[l] & LF_OC:
        return r
    p = T.lplayer[l]
    for o in range(T.side_lfirst[p], T.side_lend[p]):
        ho = c.l_hex[o]
        if c.l_flags[o] & LF_OC and in_play_state(c.l_state[o]) and ho >= 0 \
                and (ho == c.l_hex[l] or adjacent(T, c.l_hex[l], ho)):
            return r + 1
    return r


@kernel
def command_rating(c, T, cmd):
    out = np.empty(T.NC, np.int64)
    command_ratings(c, T, out)
    return out[cmd]


# ------------------------------------------------------------------ command
@kernel
def _blocked(c, T, p, h):
    """13.1: a command trace does not go through an enemy unit or an enemy ZOC (``c.zc[p]`` filled)."""
    v = c.hex_unit[h]
    return c.zc[p, h] > 0 or (v >= 0 and T.uplayer[v] != p)


@kernel
def _command_reach(c, T, p, h0, rng, reach):
    """Mark in ``reach`` the hexes within ``rng`` of a leader at ``h0``, traced not through a blocked hex
    (13.1: enemy units and enemy ZOC stop the trace, though they can be reached)."""
    reach[h0] = True
    if rng == 0:
        return
    order = T.bydist[h0]
    clear = True
    for k in range(1, T.N):
        x = order[k]
        if T.dist[h0, x] > rng - 1:
            break
        if _blocked(c, T, p, x):
            clear = False
            break
    if clear:
        for k in range(T.N):
            x = order[k]
            if T.dist[h0, x] > rng:
                break
            reach[x] = True
        return
    seen = np.zeros(T.N, np.bool_)
    seen[h0] = True
    frontier = np.empty(T.N, np.int64)
    nxt = np.empty(T.N, np.int64)
    frontier[0] = h0
    nf = 1
    for _ in range(rng):
        nn = 0
        for i in range(nf):
            h = frontier[i]
            if h != h0 and _blocked(c, T, p, h):
                continue
            for d in range(6):
                t = T.nbr[h, d]
                if t >= 0 and not seen[t]:
                    seen[t] = True
                    reach[t] = True
                    nxt[nn] = t
                    nn += 1
        frontier, nxt = nxt, frontier
        nf = nn


@kernel
def compute_command(c, T, cmd):
    """Set F_INCMD on the units of command ``cmd`` in command at the start of its activation (13.1)."""
    p = T.cmd_player[cmd]
    zoc_fill(c, T, p)
    reach = np.zeros(T.N, np.bool_)
    for k in range(T.cmd_leaders.shape[1]):
        l = T.cmd_leaders[cmd, k]
        if l >= 0 and leader_in_play(c, l):
            _command_reach(c, T, p, c.l_hex[l], c.l_range[l], reach)
    for l in range(T.side_lfirst[p], T.side_lend[p]):  # 13.2: the Overall Commander commands every unit
        if c.l_flags[l] & LF_OC and in_play_state(c.l_state[l]) and c.l_hex[l] >= 0 and T.lcmd[l] != cmd:
            _command_reach(c, T, p, c.l_hex[l], c.l_range[l], reach)
    a, b = T.cmd_ufirst[cmd], T.cmd_uend[cmd]
    incmd = np.zeros(b - a, np.bool_)
    for u in range(a, b):
        if c.u_hex[u] >= 0 and reach[c.u_hex[u]]:
            incmd[u - a] = True
    changed = True
    while changed:  # 13.1 chain: adjacent to a unit in command
        changed = False
        for u in range(a, b):
            h = c.u_hex[u]
            if h < 0 or incmd[u - a]:
                continue
            for v in range(a, b):
                if incmd[v - a] and adjacent(T, h, c.u_hex[v]):
                    incmd[u - a] = True
                    changed = True
                    break
    for u in range(a, b):
        if c.u_hex[u] < 0:
            continue
        if incmd[u - a]:
            c.u_flags[u] |= F_INCMD
        else:
            c.u_flags[u] &= ~F_INCMD


# ------------------------------------------------------------------ deaths
@kernel
def nearest_friend(c, T, h, p, cmd):
    """13.3: the hex of the nearest unit of command ``cmd`` (else of side ``p``) not Retired, other than
    ``h``; -1 if none."""
    best, bd = -1, 1 << 30
    for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
        x = c.u_hex[u]
        if x < 0 or c.u_status[u] == RETIRED or x == h:
            continue
        d = T.dist[h, x]
        if d < bd or (d == bd and x < best):
            best, bd = x, d
    if best >= 0:
        return best
    for u in range(T.side_ufirst[p], T.side_uend[p]):
        x = c.u_hex[u]
        if x < 0 or c.u_status[u] == RETIRED or x == h:
            continue
        d = T.dist[h, x]
        if d < bd or (d == bd and x < best):
            best, bd = x, d
    return best


@kernel
def kill_leader(c, T, l):
    """13.3: a leader killed or captured: Flight Points, and his command awaits a replacement; 13.4 False
    Dmitri: the first Dmitri to die is revealed, and the real one gets an escape roll."""
    p = T.lplayer[l]
    flags = c.l_flags[l]
    std = c.std_hex[p] if not c.std_captured[p] else -1
    if flags & LF_FD and c.g[G_FD]:
        other = -1
        for o in range(T.side_lfirst[p], T.side_lend[p]):
            if o != l and c.l_flags[o] & LF_FD:
                other = o
                break
        c.l_flags[l] &= ~LF_FD
        c.l_flags[other] &= ~LF_FD
        c.g[G_FD] = 0
        if not flags & LF_REAL:
            c.l_state[l] = L_GONE
            c.l_hex[l] = -1
            c.l_flags[l] &= ~LF_OC
            if std >= 0:
                c.l_hex[other] = std
            c.l_rating[other] = T.l_base_rating[other]
            log(c, EV_FALSE_DMITRI)
            return
        c.l_state[other] = L_GONE
        c.l_hex[other] = -1
        c.l_flags[other] &= ~LF_OC
        # 13.4: every death of the real Dmitri gets the escape roll (in shock, by fire, captured alone
        # or surrounded, 13.3)
        dr = roll(c.dv, c.ds, 10, 0)
        if dr >= T.tv[TV_DMITRI_ESCAPE_MIN]:
            # atop his Standard; with the Standard lost, with the nearest unit of his (13.3)
            dest = std if std >= 0 else nearest_friend(c, T, c.l_hex[l], p, T.lcmd[l])
            if dest >= 0:
                c.l_hex[l] = dest
            c.l_rating[l] = T.tv[TV_FD_ESCAPED_RATING]
            log(c, EV_DMITRI_ESCAPES, dr, c.l_rating[l])
            return
        log(c, EV_DMITRI_KILLED, dr)
    if c.l_flags[l] & LF_OC:
        c.l_flags[l] &= ~LF_OC
        c.fp[p] += T.tv[TV_V_OC]
        c.l_state[l] = L_PENDING
        c.l_hex[l] = -1
        log(c, EV_OC_KILLED, l)
    elif c.l_state[l] == L_ACTIVE:
        c.fp[p] += T.tv[TV_V_LEADER]
        c.l_state[l] = L_PENDING
        c.l_hex[l] = -1
        log(c, EV_LEADER_KILLED, l)
    elif c.l_state[l] == L_REPL:
        c.fp[p] += T.tv[TV_V_LEADER]
        c.l_state[l] = L_REPL_DEAD
        log(c, EV_REPL_KILLED, l)
    elif c.l_state[l] == L_REPL_DEAD:
        # a substitute killed before (his Flight Point counted) is not killed again, and his counter stays in
        # play (C29): caught alone or surrounded, it goes to the nearest unit of his command (C49)
        c.l_hex[l] = nearest_friend(c, T, c.l_hex[l], p, T.lcmd[l])


@kernel
def leader_check_shock(c, T, u):
    """13.3: a leader stacked with a unit that is Disordered, Retired or Eliminated in Shock/Charge
    dies on DR - his Activation Rating >= 3 (with 13.2's +1 next to the Overall Commander: C47)."""
    h = c.u_hex[u]
    if h < 0:
        return
    ls = np.empty(T.NL, np.int64)
    n = leaders_at(c, T, h, T.uplayer[u], ls)
    for i in range(n):
        l = ls[i]
        if c.l_state[l] == L_REPL_DEAD or not still_at(c, l, h):
            continue
        dr = roll(c.dv, c.ds, 10, 0)
        rating = activation_rating(c, T, l)
        killed = dr - rating >= T.tv[TV_LEADER_SHOCK_KILLED_MIN]
        log(c, EV_LEADER_CHECK_SHOCK, l, dr, rating, killed)
        if killed:
            kill_leader(c, T, l)


@kernel
def leader_check_fire(c, T, h, p):
    """13.3: adjusted fire DR >= 9 with a leader in the target hex: DR 8-9 kills him."""
    ls = np.empty(T.NL, np.int64)
    n = leaders_at(c, T, h, p, ls)
    for i in range(n):
        l = ls[i]
        if c.l_state[l] == L_REPL_DEAD or not still_at(c, l, h):
            continue
        dr = roll(c.dv, c.ds, 10, 0)
        killed = dr >= T.tv[TV_FIRE_LEADER_KILLED_MIN]
        log(c, EV_LEADER_CHECK_FIRE, l, dr, killed)
        if killed:
            kill_leader(c, T, l)


@kernel
def place_replacement(c, T, l, h):
    """13.3: the replacement leader (lower rating and range) placed with a unit of his command."""
    c.l_state[l] = L_REPL
    c.l_hex[l] = h
    c.l_rating[l] = max(0, T.l_base_rating[l] + T.tv[TV_REPL_RATING])
    c.l_range[l] = max(0, T.l_base_range[l] + T.tv[TV_REPL_RANGE])
    log(c, EV_REPL_PLACED, l, h, c.l_rating[l], c.l_range[l])


# ------------------------------------------------------------------ ambush
def check_ambush_hexes(eng, hexes: list[int]) -> None:
    """15.2: the written hexes of the Ambush Regiment (the ``ambush_hexes`` option) must be legal for
    stacking (8.0: no combat unit of the set-up in them), out of the line of sight of every Mongol
    unit at the start (its set-up hex; LOS as for the Regiment, C12) and contiguous. Otherwise a
    ScenarioError names the hex and the reason."""
    ids = eng.grid.ids
    sc = eng.sc

    def fail(h: int, why: str) -> None:
        raise ScenarioError(f"options: field 'ambush_hexes' = {ids[h]!r}: {why}")

    ambush = set(eng.ambush_units)
    start = {sc.unit_hex[u]: u for u in range(eng.U) if u not in ambush and sc.unit_hex[u] >= 0}
    for h in hexes:
        if h in start:
            u = start[h]
            fail(h, f"occupied at the start by the {('Russian', 'Mongol')[eng.uplayer[u]]} "
                    f"{TYPES[eng.utype[u]]} of {sc.commands[eng.ucmd[u]]['name']} (8.0: no stacking)")
    mongol = [sc.unit_hex[u] for u in eng.side_units[1] if sc.unit_hex[u] >= 0]
    for h in hexes:
        vis = eng.geo.visible_from(h)
        seer = next((m for m in mongol if vis[m]), None)
        if seer is not None:
            fail(h, f"the Mongol unit at {ids[seer]} can trace a line of sight to it at the start (15.2)")
    group, todo = {hexes[0]}, [hexes[0]]
    while todo:
        x = todo.pop()
        for y in eng.geo.adj[x]:
            if y in hexes and y not in group:
                group.add(y)
                todo.append(y)
    for h in hexes:
        if h not in group:
            fail(h, f"not contiguous with {ids[hexes[0]]} (15.2: the Regiment's hexes are contiguous)")


@kernel
def check_ambush_los(c, T, h, u):
    """15.2: a Mongol unit entering hex ``h`` with a line of sight to a hex of the hidden Ambush Regiment
    reveals it."""
    for k in range(T.NAMB):
        a = c.ambush[k]
        if T.vis[T.vis_index[a], h]:
            log(c, EV_AMBUSH_SEEN, u, c.u_hex[u], a)
            if not c.g[G_AMBUSH_PLACED]:
                place_ambush(c, T)
                # 15.2: placed "without being activated": its units "may not do anything ... until activated"
                for k in range(T.NAMB):
                    c.u_flags[T.cmd_ufirst[T.ambush_cmd] + k] |= F_DORMANT
            return


@kernel
def place_ambush(c, T):
    """15.2: the Ambush Regiment comes on the map in its written hexes (a hex taken meanwhile: the nearest
    empty one), with its leader."""
    if c.g[G_AMBUSH_PLACED]:
        return
    c.g[G_AMBUSH_PLACED] = 1
    a0 = T.cmd_ufirst[T.ambush_cmd]
    first = -1
    for k in range(T.NAMB):
        u = a0 + k
        h = c.ambush[k]
        if c.hex_unit[h] >= 0:  # written hex taken meanwhile: nearest empty hex
            for i in range(T.N):
                x = T.bydist[h, i]
                if c.hex_unit[x] < 0:
                    h = x
                    break
        c.u_status[u] = NORMAL
        c.u_hex[u] = h
        c.hex_unit[h] = u
        if first < 0:
            first = h
    for k in range(T.cmd_leaders.shape[1]):
        l = T.cmd_leaders[T.ambush_cmd, k]
        if l < 0:
            break
        if c.l_state[l] == L_HIDDEN:
            c.l_state[l] = L_ACTIVE
            lh = c.l_hex[l]
            if lh < 0 or not (a0 <= c.hex_unit[lh] < a0 + T.NAMB):
                c.l_hex[l] = first
    for k in range(T.NAMB):
        log(c, EV_PART, -1, c.u_hex[a0 + k])
    log(c, EV_AMBUSH_PLACED)
