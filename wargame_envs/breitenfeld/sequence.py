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

from . import artillery, combat, movement
from .disruption import removal_phase
from .leaders import check_leaders, mark_command
from .state import (D_ART, D_COMBAT, D_MOVE_SELECT, D_NONE, D_SWAP, F_FORCED, F_MOVED, F_TURN_CLEAR, G_ACTIVE,
                    G_ART_IDX, G_ART_SIDE, G_DEC, G_DONE, G_DRAWN, G_MAY0, G_MAY1, G_MP, G_PHASE, G_PLAYER,
                    G_SEL, G_SWAP_USED, G_TE_ADDED, G_TE_IN_CUP, G_TE_OPT, G_TURN, G_VIS, G_VIS_OPT, PH_ACTIVATION,
                    PH_ARTILLERY, PH_COMBAT, PH_MOVEMENT, PH_OVER, PH_TURN_START)
from .zoc import Snap

VIS_NAMES = ("clear", "moderate", "restricted")


def set_decision(s, kind: int, player: int) -> None:
    s.g[G_DEC] = kind
    s.g[G_PLAYER] = player


def advance(E, s, dice) -> None:
    """Run the automatic parts of the sequence until a decision is pending or the game is over."""
    g = s.g
    while g[G_DEC] == D_NONE:
        ph = int(g[G_PHASE])
        if ph == PH_OVER:
            g[G_PLAYER] = -1
            return
        if ph == PH_TURN_START:
            turn_start(E, s, dice)
        elif ph == PH_ARTILLERY:
            artillery_step(E, s, dice)
        elif ph == PH_ACTIVATION:
            draw_chit(E, s, dice)
        elif ph == PH_MOVEMENT:
            movement_step(E, s)
        elif ph == PH_COMBAT:
            combat_step(E, s)


def update_releases(D, s) -> None:
    turn = int(s.g[G_TURN])
    for side in (0, 1):
        if turn >= D.release_turn[side]:
            s.g[G_MAY0 + side] = 1


def turn_start(E, s, dice) -> None:
    D = E.D
    turn = int(s.g[G_TURN])
    s.log.append(f"--- Game-Turn {turn} ---")
    if s.g[G_VIS_OPT] and turn > 1:
        die = dice.roll(6)
        v = D.vis_rolls[die - 1]
        if v >= 0:
            s.g[G_VIS] = v
        s.log.append(f"Visibility roll {die}: {VIS_NAMES[int(s.g[G_VIS])]} [reference 6, 10.34]")
    update_releases(D, s)
    removal_phase(D, s, dice)
    check_leaders(D, s)
    enter_artillery(s)


def enter_artillery(s) -> None:
    s.g[G_PHASE] = PH_ARTILLERY
    s.g[G_ART_SIDE] = 0
    s.g[G_ART_IDX] = 0
    s.a_target[:] = -1


def artillery_step(E, s, dice) -> None:
    """Offer the next artillery counter of the assigning side that has a target; resolve at the end."""
    D = E.D
    while int(s.g[G_ART_SIDE]) < 2:
        side = int(s.g[G_ART_SIDE])
        a = int(s.g[G_ART_IDX])
        while a < D.n_art:
            if s.a_hex[a] >= 0 and s.a_owner[a] == side and E.art_targets(s, a):
                s.g[G_ART_IDX] = a
                set_decision(s, D_ART, side)
                return
            a += 1
        s.g[G_ART_SIDE] = side + 1
        s.g[G_ART_IDX] = 0
    artillery.resolve_fire(D, s, dice)
    s.g[G_PHASE] = PH_ACTIVATION


def three_leader(D, s, corps: int) -> bool:
    return any(s.l_hex[l] >= 0 and D.leader_value[l] >= 3 for l in D.corps_leaders[corps])


def draw_chit(E, s, dice) -> None:
    D = E.D
    cup = s.cup.tolist()
    left = [c for c, x in enumerate(cup) if x]
    if s.g[G_TE_OPT] and not s.g[G_TE_ADDED] and len(left) == 2:
        s.g[G_TE_ADDED] = 1
        s.g[G_TE_IN_CUP] = 1
        s.log.append("Two corps chits left: the Turn Ends chit goes into the cup [4.1 C]")
    items = left + ([-1] if s.g[G_TE_IN_CUP] else [])
    if not items:
        end_turn(E, s)
        return
    k = dice.roll(len(items), low=0)
    c = items[k]
    if c < 0:
        s.g[G_TE_IN_CUP] = 0
        s.log.append("Turn Ends chit drawn: the Activation Phase ends [4.1 C]")
        end_turn(E, s)
        return
    s.cup[c] = 0
    s.log.append(f"Chit drawn: {D.corps_title[c]} ({D.army_names[D.corps_army[c]]}) [4.1 C]")
    side = D.corps_side[c]
    others = [o for o in left if o != c and D.corps_side[o] == side]
    if three_leader(D, s, c) and not s.g[G_SWAP_USED] and others:
        s.g[G_DRAWN] = c
        set_decision(s, D_SWAP, side)
        return
    start_activation(E, s, c)


def swap(E, s, chosen: int) -> None:
    D = E.D
    drawn = int(s.g[G_DRAWN])
    if chosen != drawn:
        s.cup[drawn] = 1
        s.cup[chosen] = 0
        s.g[G_SWAP_USED] = 1
        s.log.append(f"{D.corps_title[drawn]} chit goes back into the cup; {D.corps_title[chosen]} activated "
                     f"instead [4.1 C]")
    s.g[G_DRAWN] = -1
    start_activation(E, s, chosen)


def start_activation(E, s, corps: int) -> None:
    """Movement Phase of ``corps`` begins: command status (10.3), no-withdrawal and rout marks."""
    D = E.D
    s.g[G_ACTIVE] = corps
    s.g[G_PHASE] = PH_MOVEMENT
    s.g[G_SEL] = -1
    s.g[G_MP] = -1
    snap = Snap(D, s)
    mark_command(D, s, snap, corps, int(s.g[G_TURN]))
    movement.start_phase_flags(D, s, snap, corps)


def movement_step(E, s) -> None:
    D = E.D
    snap = Snap(D, s)
    active = int(s.g[G_ACTIVE])
    if movement.selectable_pieces(D, s, snap, active, E.corps_pieces[active], first_only=True):
        set_decision(s, D_MOVE_SELECT, D.corps_side[active])
        return
    enter_combat(E, s)


def forced_left(E, s, snap, selectable: list[int]) -> bool:
    """11.12: a routing unit of the active corps that has not moved yet and can move."""
    nu = E.D.n_units
    return any(p < nu and snap.uf[p] & F_FORCED and not snap.uf[p] & F_MOVED for p in selectable)


def enter_combat(E, s) -> None:
    s.g[G_PHASE] = PH_COMBAT
    s.g[G_SEL] = -1
    combat.start_phase(E.D, s)


def combat_step(E, s) -> None:
    targets, obligations_left = E.attack_targets(s)
    if targets:
        set_decision(s, D_COMBAT, E.D.corps_side[int(s.g[G_ACTIVE])])
        return
    if obligations_left:
        raise RuntimeError("combat obligations left that no attack can meet (engine bug)")
    end_activation(E, s)


def end_activation(E, s) -> None:
    s.g[G_PHASE] = PH_ACTIVATION
    s.g[G_ACTIVE] = -1


def end_turn(E, s) -> None:
    D = E.D
    turn = int(s.g[G_TURN]) + 1
    s.g[G_ACTIVE] = -1
    if turn > D.turns:
        s.g[G_PHASE] = PH_OVER
        s.g[G_DONE] = 1
        s.g[G_PLAYER] = -1
        s.log.append(f"End of Game-Turn {D.turns}: the game is over")
        return
    s.g[G_TURN] = turn
    s.cup[:] = 1
    s.g[G_TE_ADDED] = 0
    s.g[G_TE_IN_CUP] = 0
    s.g[G_SWAP_USED] = 0
    s.u_flags[:] &= ~F_TURN_CLEAR
    s.l_flags[:] = 0
    s.g[G_PHASE] = PH_TURN_START


def enter_phase(E, s, phase: int) -> None:
    """Start ``phase`` from its beginning (positions that name a phase but no pending decision)."""
    if phase == PH_ARTILLERY:
        enter_artillery(s)
    elif phase == PH_MOVEMENT:
        start_activation(E, s, int(s.g[G_ACTIVE]))
    elif phase == PH_COMBAT:
        enter_combat(E, s)
    else:
        s.g[G_PHASE] = phase


__all__ = ["advance", "enter_phase", "swap", "forced_left", "set_decision", "D_NONE", "G_MAY1"]
