"""The decisions, compiled: the legal options of the pending decision (the mask) and carrying out a
chosen one, then the automatic sequence up to the next decision (``sequence.advance``).

The pending decision is part of the state (``g[G_DEC]``, ``g[G_PLAYER]``, the selected piece, the attack
being built); see ``actions.py`` for the action ranges and ``rules.py`` for the engine around these.
"""

from __future__ import annotations

from ..core.events import emit
from ..core.jit import kernel
from . import combat
from .actions import ADD_LEADERS, DECLINE_LEADERS, END, EXIT, RESOLVE, RESOLVE_CHARGE
from .artillery import targets
from .disruption import disrupt
from .events import EV_LEADERS_CHOICE, EV_LOSS_CHOSEN, R_AX_CHOSEN, R_DX_CHOSEN
from .leaders import check_leaders
from .movement import (catches_leader_at, destinations, enemy_gun_at, leave_map, move_piece, piece_budget,
                       selectable_pieces)
from .sequence import advance, enter_combat, end_activation, set_decision, swap
from .state import (AC_ATT_LEADERS, AC_DEF_LEADERS, D_ART, D_ATTACK, D_COMBAT, D_LEADER, D_LOSS, D_MOVE_DEST,
                    D_MOVE_SELECT, D_NONE, D_SWAP, F_FORCED, F_IN_ATK, F_MOVED, G_ACTIVE, G_ART_IDX, G_DEC,
                    G_ATTACK, G_DECISIONS, G_DONE, G_DRAWN, G_LOSS_SIDE, G_MP, G_PLAYER, G_RES, G_SEL, LF_MOVED)
from .tables import W_AT, W_COST, W_OUT, block, fields, listed, note_listed, place_units, unit_at

OK, ILLEGAL, GAME_OVER = 0, 1, 2     # apply_action's status


@kernel
def piece_hex(buf, T, p):
    f = fields(buf, T)
    return f[0][p] if p < T.nu else f[4][p - T.nu]


@kernel
def legal_options(buf, T, mask, work, fresh):
    """Write the legal options of the pending decision into ``mask`` (bool, num_actions; all False once
    the game is over) and, for a destination decision, the MP each hex costs into ``work``'s ``W_COST``
    block (-1: not reachable). The mask enforces every prohibition and every obligation (see ``env.py``,
    *Masks*). ``work``: scratch (``tables.new_work``). ``fresh``: ``buf`` is the state the last rule call on
    ``work`` left (``sequence.advance``), so the options it listed on the way (``tables.note_listed``) are
    this decision's: they are taken from there."""
    u_hex, _, u_flags, _, _, _, _, _, _, cup, g = fields(buf, T)
    dec = g[G_DEC]
    n, end = -1, 0                                     # the options listed in W_OUT (-1: not listed)
    if fresh:
        kind, k, e = listed(work, T)
        if kind == dec:
            n, end = k, e
        note_listed(work, T, D_NONE, 0, 0)             # used once
    mask[:] = False
    if g[G_DONE]:
        return
    hex0 = T.hex0
    if dec == D_SWAP:                                  # 4.1 C: the drawn corps or another of its side in the cup
        drawn = g[G_DRAWN]
        side = T.corps_side[drawn]
        mask[T.corps0 + drawn] = True
        for k in range(T.nc):
            if cup[k] and T.corps_side[k] == side:
                mask[T.corps0 + k] = True
    elif dec == D_ART:                                 # 5.2: a target in range and line of sight, or hold fire
        out = block(work, T, W_OUT)
        mask[END] = True
        if n < 0:
            n = targets(buf, T, g[G_ART_IDX], out)
        for i in range(n):
            mask[hex0 + out[i]] = True
    elif dec == D_MOVE_SELECT:                         # 6.1: a piece of the activated corps; END unless 11.12 forces
        out = block(work, T, W_OUT)
        if n < 0:
            n = selectable_pieces(buf, T, place_units(u_hex, block(work, T, W_AT)), g[G_ACTIVE], out)
        forced_left = False
        for i in range(n):
            p = out[i]
            mask[T.piece0 + p] = True
            if p < T.nu and u_flags[p] & F_FORCED and not u_flags[p] & F_MOVED:
                forced_left = True                     # 11.12: a routing unit must still move
        if not forced_left:
            mask[END] = True
    elif dec == D_MOVE_DEST:                           # 6.0: a reachable hex, its own (stays) or off the map
        p = g[G_SEL]
        cost = block(work, T, W_COST)
        can_exit = destinations(buf, T, place_units(u_hex, block(work, T, W_AT)), p, piece_budget(buf, T, p), cost,
                                work)
        reach = False
        for h in range(T.nh):
            if cost[h] >= 0:
                mask[hex0 + h] = True
                reach = True
        forced = p < T.nu and u_flags[p] & F_FORCED and g[G_MP] < 0 and (reach or can_exit)
        if not forced:
            mask[hex0 + piece_hex(buf, T, p)] = True
        if can_exit:
            mask[EXIT] = True
    elif dec == D_COMBAT:                              # 8.1: declare an attack, or END once obligations are met
        out = block(work, T, W_OUT)
        if n < 0:
            C = combat.context(buf, T)
            n = combat.start_candidates(T, u_hex, C, out)
            end = 1 if C[combat.C_N1] == 0 and C[combat.C_N2] == 0 else 0
        for i in range(n):
            mask[hex0 + u_hex[out[i]]] = True
        if end:
            mask[END] = True
    elif dec == D_ATTACK:                              # 8.2: add a unit, or resolve (with a charge, 12.5)
        C = combat.context(buf, T)
        if combat.can_resolve(T, u_hex, C):
            mask[RESOLVE] = True
            if combat.any_charge_eligible(buf, T, C[combat.C_SA], C[combat.C_SD]):
                mask[RESOLVE_CHARGE] = True
        out = block(work, T, W_OUT)
        for i in range(combat.add_candidates(T, u_hex, C, out)):
            mask[hex0 + u_hex[out[i]]] = True
    elif dec == D_LOSS:                                # 8.6: the unit to disrupt for an Ax / Dx result
        for u in range(T.nu):
            if combat.is_loss_candidate(T, u_hex, u_flags, u, g[G_LOSS_SIDE]):
                mask[hex0 + u_hex[u]] = True
    elif dec == D_LEADER:                              # 10.11: add the leaders' values or not
        mask[ADD_LEADERS] = True
        mask[DECLINE_LEADERS] = True


@kernel
def apply_action(buf, T, action, dv, ds, ev, evn, mask, work, checked):
    """Carry out ``action`` at the pending decision and run the sequence up to the next one. Returns
    OK, ILLEGAL (nothing changed) or GAME_OVER (nothing changed). ``mask``, ``work``: scratch arrays.
    ``checked``: the caller already checked the action against this state's mask (the batched API)."""
    u_hex, u_dis, u_flags, _, l_hex, l_flags, _, _, a_target, _, g = fields(buf, T)
    if g[G_DONE]:
        return GAME_OVER
    if not checked:
        legal_options(buf, T, mask, work, False)
        if action < 0 or action >= T.n_actions or not mask[action]:
            return ILLEGAL
    dec = g[G_DEC]
    g[G_DECISIONS] += 1
    g[G_DEC] = D_NONE
    idx = action - T.hex0                              # the hex of a HEX action
    if dec == D_SWAP:
        swap(buf, T, action - T.corps0, ev, evn)
    elif dec == D_ART:
        a = g[G_ART_IDX]
        if action >= T.hex0:
            a_target[a] = idx
        g[G_ART_IDX] = a + 1
    elif dec == D_MOVE_SELECT:
        if action == END:
            enter_combat(buf, T)
        else:
            g[G_SEL] = action - T.piece0
            g[G_MP] = -1
            set_decision(g, D_MOVE_DEST, g[G_PLAYER])
    elif dec == D_MOVE_DEST:
        p = g[G_SEL]
        moved = action != EXIT and idx != piece_hex(buf, T, p)
        done = True
        if action == EXIT:
            leave_map(buf, T, p, ev, evn)
        elif moved:
            left = 0                    # MP left: only a capture (5.32) or a leader caught (C10) lets it move on
            if p < T.nu and (enemy_gun_at(buf, T, idx, T.unit_side[p]) or catches_leader_at(
                    T, l_hex, place_units(u_hex, block(work, T, W_AT)), idx, T.unit_side[p], u_dis[p])):
                budget = piece_budget(buf, T, p)
                cost = block(work, T, W_COST)
                if checked:                            # the reach costs (legal_options wrote them otherwise)
                    destinations(buf, T, place_units(u_hex, block(work, T, W_AT)), p, budget, cost, work)
                left = budget - cost[idx]
            done = not move_piece(buf, T, p, idx, left, work, ev, evn)
        if done:
            if p >= T.nu:
                l_flags[p - T.nu] |= LF_MOVED
            else:
                u_flags[p] |= F_MOVED
            g[G_SEL] = -1
            g[G_MP] = -1
        else:
            set_decision(g, D_MOVE_DEST, g[G_PLAYER])
        if moved or action == EXIT:  # 10.0: a leader the exiting unit leaves alone in an enemy ZOC is caught
            check_leaders(buf, T, ev, evn, work)
    elif dec == D_COMBAT or dec == D_ATTACK:
        if action == END:
            end_activation(buf, T)
        elif action >= T.hex0:
            u_flags[unit_at(u_hex, T.nh)[idx]] |= F_IN_ATK
            set_decision(g, D_ATTACK, g[G_PLAYER])
        else:
            combat.declare(buf, T, action == RESOLVE_CHARGE)
            leaders_or_roll(buf, T, True, dv, ds, ev, evn, work)
    elif dec == D_LEADER:
        attacker = g[G_PLAYER] == T.corps_side[g[G_ACTIVE]]
        if action == ADD_LEADERS:
            g[G_ATTACK] |= AC_ATT_LEADERS if attacker else AC_DEF_LEADERS
        emit(ev, evn, EV_LEADERS_CHOICE, 1 if attacker else 0, 1 if action == ADD_LEADERS else 0, 0, 0)
        if attacker:
            leaders_or_roll(buf, T, False, dv, ds, ev, evn, work)
        else:
            roll_attack(buf, T, dv, ds, ev, evn, work)
    elif dec == D_LOSS:
        u = unit_at(u_hex, T.nh)[idx]
        res = g[G_RES]
        r = disrupt(buf, T, u, R_AX_CHOSEN if res == combat.RES_AX else R_DX_CHOSEN, True, ev, evn)
        emit(ev, evn, EV_LOSS_CHOSEN, u, res, r, 0)
        g[G_RES] = 0
        g[G_LOSS_SIDE] = -1
        finish_attack(buf, T, res, ev, evn, work)
    advance(buf, T, dv, ds, ev, evn, work)
    return OK


@kernel
def leaders_or_roll(buf, T, attacker, dv, ds, ev, evn, work):
    """10.11: the attacker's, then the defender's choice to add the leaders' values, where a side has an
    eligible leader; then the roll."""
    g = fields(buf, T)[10]
    C = combat.context(buf, T)
    side, sa, sd = C[combat.C_SIDE], C[combat.C_SA], C[combat.C_SD]
    if attacker and combat.has_combat_leaders(buf, T, sa, True):
        set_decision(g, D_LEADER, side)
        return
    if combat.has_combat_leaders(buf, T, sd, False):
        set_decision(g, D_LEADER, 1 - side)
        return
    roll_attack(buf, T, dv, ds, ev, evn, work)


@kernel
def roll_attack(buf, T, dv, ds, ev, evn, work):
    """8.0, 8.6: roll; an Ax / Dx result against several units waits for its owner's choice."""
    g = fields(buf, T)[10]
    res, loss_side = combat.resolve(buf, T, dv, ds, ev, evn, work)
    if loss_side >= 0:
        g[G_RES] = res
        g[G_LOSS_SIDE] = loss_side
        set_decision(g, D_LOSS, loss_side)
    else:
        finish_attack(buf, T, res, ev, evn, work)


@kernel
def finish_attack(buf, T, res, ev, evn, work):
    """After the result (and any Ax/Dx choice): 10.0's leader check comes "immediately", so before the charging
    cavalry is disrupted (12.5) and loses its zone of control; then the charge aftermath (``combat.finish``)."""
    check_leaders(buf, T, ev, evn, work)
    combat.finish(buf, T, res, ev, evn)
    check_leaders(buf, T, ev, evn, work)
