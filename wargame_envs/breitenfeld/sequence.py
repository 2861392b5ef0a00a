"""Sequence of play (4.1) and corps activation by chits (4.1 C, reference rule decision 3).

The engine advances through the phases on its own until some player has a choice to make:

A. Mutual Disruption Removal (automatic rolls), B. Mutual Artillery Fire (Allied targets, then Imperial
targets, then all shots rolled, rule decision 4), C. Activation: chits drawn one by one from one cup
(``dice.roll(n_left, low=0)``), each corps' movement phase then combat phase; the leadership-3 leader's
chit may once per turn be exchanged for another corps' chit; optional Turn Ends chit added when two corps
chits are left. D. Game-Turn Record Interphase. Phases with no choice at all (a corps that cannot move,
a combat phase with no possible attack) pass without a decision.
"""
from __future__ import annotations

import numpy as np

from ..core.chance import roll
from ..core.events import emit
from ..core.jit import kernel
from . import combat
from .artillery import resolve_fire, targets
from .disruption import removal_phase
from .events import EV_CHIT, EV_GAME_OVER, EV_SWAP, EV_TE_ADDED, EV_TE_DRAWN, EV_TURN, EV_VIS_ROLL
from .leaders import check_leaders, mark_command
from .movement import selectable_pieces, start_phase_flags
from .state import (D_ART, D_COMBAT, D_MOVE_SELECT, D_NONE, D_SWAP, F_TURN_CLEAR, G_ACTIVE, G_ART_IDX, G_ART_SIDE,
                    G_DEC, G_DONE, G_DRAWN, G_MAY0, G_MP, G_PHASE, G_PLAYER, G_SEL, G_SWAP_USED, G_TE_ADDED,
                    G_TE_IN_CUP, G_TE_OPT, G_TURN, G_VIS, G_VIS_OPT, PH_ACTIVATION, PH_ARTILLERY, PH_COMBAT,
                    PH_MOVEMENT, PH_OVER, PH_TURN_START)
from .tables import W_AT, W_OUT, block, fields, globals_of, note_listed, place_units


@kernel
def set_decision(g, kind, player):
    g[G_DEC] = kind
    g[G_PLAYER] = player


@kernel
def advance(buf, T, dv, ds, ev, evn, work):
    """Run the automatic parts of the sequence until a decision is pending or the game is over. ``work``:
    scratch (``tables.new_work``)."""
    g = globals_of(buf, T)
    note_listed(work, T, D_NONE, 0, 0)
    while g[G_DEC] == D_NONE:
        ph = g[G_PHASE]
        if ph == PH_OVER:
            g[G_PLAYER] = -1
            return
        if ph == PH_TURN_START:
            turn_start(buf, T, dv, ds, ev, evn, work)
        elif ph == PH_ARTILLERY:
            artillery_step(buf, T, dv, ds, ev, evn, work)
        elif ph == PH_ACTIVATION:
            draw_chit(buf, T, dv, ds, ev, evn)
        elif ph == PH_MOVEMENT:
            movement_step(buf, T, work)
        elif ph == PH_COMBAT:
            combat_step(buf, T, work)


@kernel
def update_releases(T, g):
    """12.3, 12.4: each side may move from its release turn on."""
    for side in range(2):
        if g[G_TURN] >= T.release_turn[side]:
            g[G_MAY0 + side] = 1


@kernel
def turn_start(buf, T, dv, ds, ev, evn, work):
    """4.1 A with the visibility roll (reference 6, 10.34): a new Game-Turn begins."""
    g = globals_of(buf, T)
    turn = g[G_TURN]
    emit(ev, evn, EV_TURN, turn, 0, 0, 0)
    if g[G_VIS_OPT] and turn > 1:
        die = roll(dv, ds, 6, 1)
        v = T.vis_rolls[die - 1]
        if v >= 0:
            g[G_VIS] = v
        emit(ev, evn, EV_VIS_ROLL, die, g[G_VIS], 0, 0)
    update_releases(T, g)
    removal_phase(buf, T, dv, ds, ev, evn)
    check_leaders(buf, T, ev, evn, work)
    enter_artillery(buf, T)


@kernel
def enter_artillery(buf, T):
    _, _, _, _, _, _, _, _, a_target, _, g = fields(buf, T)
    g[G_PHASE] = PH_ARTILLERY
    g[G_ART_SIDE] = 0
    g[G_ART_IDX] = 0
    a_target[:] = -1


@kernel
def artillery_step(buf, T, dv, ds, ev, evn, work):
    """4.1 B (rule decision 4): offer the next gun of the assigning side (Allied, then Imperial) that has
    a target; once all are assigned, resolve every shot."""
    _, _, _, _, _, _, a_hex, a_owner, _, _, g = fields(buf, T)
    out = block(work, T, W_OUT)
    while g[G_ART_SIDE] < 2:
        side = g[G_ART_SIDE]
        a = g[G_ART_IDX]
        while a < T.na:
            n = targets(buf, T, a, out) if a_hex[a] >= 0 and a_owner[a] == side else 0
            if n > 0:
                g[G_ART_IDX] = a
                set_decision(g, D_ART, side)
                note_listed(work, T, D_ART, n, 1)
                return
            a += 1
        g[G_ART_SIDE] = side + 1
        g[G_ART_IDX] = 0
    resolve_fire(buf, T, dv, ds, ev, evn)
    g[G_PHASE] = PH_ACTIVATION


@kernel
def three_leader(buf, T, corps):
    """4.1 C: the corps has a "3" leader (``exchange_leadership``) on the map (Gustavus: the chit exchange)."""
    l_hex = fields(buf, T)[4]
    for k in range(T.corps_n_leaders[corps]):
        l = T.corps_leaders[corps, k]
        if l_hex[l] >= 0 and T.leader_value[l] >= T.exchange_leadership:
            return True
    return False


@kernel
def draw_chit(buf, T, dv, ds, ev, evn):
    """4.1 C: draw a chit from the cup (``roll(items, low=0)``); the optional Turn Ends chit goes in when
    two corps chits are left; a leadership-3 leader's corps may be exchanged once per turn."""
    _, _, _, _, _, _, _, _, _, cup, g = fields(buf, T)
    items = np.empty(T.nc + 1, np.int64)
    n = 0
    for c in range(T.nc):
        if cup[c]:
            items[n] = c
            n += 1
    if g[G_TE_OPT] and not g[G_TE_ADDED] and n == 2:
        g[G_TE_ADDED] = 1
        g[G_TE_IN_CUP] = 1
        emit(ev, evn, EV_TE_ADDED, 0, 0, 0, 0)
    left = n
    if g[G_TE_IN_CUP]:
        items[n] = -1
        n += 1
    if n == 0:
        end_turn(buf, T, ev, evn)
        return
    c = items[roll(dv, ds, n, 0)]
    if c < 0:
        g[G_TE_IN_CUP] = 0
        emit(ev, evn, EV_TE_DRAWN, 0, 0, 0, 0)
        end_turn(buf, T, ev, evn)
        return
    cup[c] = 0
    emit(ev, evn, EV_CHIT, c, 0, 0, 0)
    side = T.corps_side[c]
    others = False
    for k in range(left):
        if items[k] != c and T.corps_side[items[k]] == side:
            others = True
    if three_leader(buf, T, c) and not g[G_SWAP_USED] and others:
        g[G_DRAWN] = c
        set_decision(g, D_SWAP, side)
        return
    start_activation(buf, T, c)


@kernel
def swap(buf, T, chosen, ev, evn):
    """4.1 C: the drawn chit goes back into the cup and ``chosen`` is activated instead (or the drawn
    corps itself)."""
    _, _, _, _, _, _, _, _, _, cup, g = fields(buf, T)
    drawn = g[G_DRAWN]
    if chosen != drawn:
        cup[drawn] = 1
        cup[chosen] = 0
        g[G_SWAP_USED] = 1
        emit(ev, evn, EV_SWAP, drawn, chosen, 0, 0)
    g[G_DRAWN] = -1
    start_activation(buf, T, chosen)


@kernel
def start_activation(buf, T, corps):
    """Movement Phase of ``corps`` begins: command status (10.3), no-withdrawal and rout marks."""
    g = globals_of(buf, T)
    g[G_ACTIVE] = corps
    g[G_PHASE] = PH_MOVEMENT
    g[G_SEL] = -1
    g[G_MP] = -1
    mark_command(buf, T, corps, g[G_TURN])
    start_phase_flags(buf, T, corps)


@kernel
def movement_step(buf, T, work):
    """A movement decision while the active corps has a piece that may move; else on to combat."""
    u_hex, _, _, _, _, _, _, _, _, _, g = fields(buf, T)
    at = place_units(u_hex, block(work, T, W_AT))
    out = block(work, T, W_OUT)
    active = g[G_ACTIVE]
    n = selectable_pieces(buf, T, at, active, out)
    if n > 0:
        set_decision(g, D_MOVE_SELECT, T.corps_side[active])
        note_listed(work, T, D_MOVE_SELECT, n, 0)
        return
    enter_combat(buf, T)


@kernel
def enter_combat(buf, T):
    g = globals_of(buf, T)
    g[G_PHASE] = PH_COMBAT
    g[G_SEL] = -1
    combat.start_phase(buf, T)


@kernel
def combat_step(buf, T, work):
    """A combat decision while an attack can be declared; else the activation ends."""
    g = globals_of(buf, T)
    C = combat.context(buf, T)
    out = block(work, T, W_OUT)
    n = combat.start_candidates(T, fields(buf, T)[0], C, out)
    if n > 0:
        set_decision(g, D_COMBAT, T.corps_side[g[G_ACTIVE]])
        note_listed(work, T, D_COMBAT, n, 1 if C[combat.C_N1] == 0 and C[combat.C_N2] == 0 else 0)
        return
    if C[combat.C_N1] > 0 or C[combat.C_N2] > 0:
        raise RuntimeError("combat obligations left that no attack can meet (engine bug)")
    end_activation(buf, T)


@kernel
def end_activation(buf, T):
    g = globals_of(buf, T)
    g[G_PHASE] = PH_ACTIVATION
    g[G_ACTIVE] = -1


@kernel
def end_turn(buf, T, ev, evn):
    """4.1 D: the Game-Turn Record Interphase (the game ends after the last turn)."""
    _, _, u_flags, _, _, l_flags, _, _, _, cup, g = fields(buf, T)
    turn = g[G_TURN] + 1
    g[G_ACTIVE] = -1
    if turn > T.turns:
        g[G_PHASE] = PH_OVER
        g[G_DONE] = 1
        g[G_PLAYER] = -1
        emit(ev, evn, EV_GAME_OVER, 0, 0, 0, 0)
        return
    g[G_TURN] = turn
    cup[:] = 1
    g[G_TE_ADDED] = 0
    g[G_TE_IN_CUP] = 0
    g[G_SWAP_USED] = 0
    for u in range(T.nu):
        u_flags[u] &= ~F_TURN_CLEAR
    l_flags[:] = 0
    g[G_PHASE] = PH_TURN_START


@kernel
def enter_phase(buf, T, phase):
    """Start ``phase`` from its beginning (positions that name a phase but no pending decision)."""
    g = globals_of(buf, T)
    if phase == PH_ARTILLERY:
        enter_artillery(buf, T)
    elif phase == PH_MOVEMENT:
        start_activation(buf, T, g[G_ACTIVE])
    elif phase == PH_COMBAT:
        enter_combat(buf, T)
    else:
        g[G_PHASE] = phase
