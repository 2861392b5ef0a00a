"""The sequence of play as compiled rules: a throw (4.1) cut into atomic decisions, one per AEC step.

:func:`apply` carries out one legal action of the pending decision (``g.sc[S.PHASE]``, see
:data:`~.state.Phase`) and runs the rules up to the next decision: the throw, activations (5, 6.1.3),
movement (7), declared combat (8, 8.1.1-8.1.3), its resolution (8.1.4-8.1.8, 8.2.4-8.2.6), the Tatars'
withdrawal (9) and the end of the round and game (4.2, 10). The functions take ``k`` (the scenario),
``g`` (one game's state) and ``io`` (dice and log) as they need them. Case numbers in comments refer to
the rulebook; decisions taken where it is silent are numbered in ``docs/berestechko.md`` and in the
reference file.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..core.chance import roll
from ..core.jit import kernel
from . import combat as C
from . import queries as Q
from .actions import OPT
from .events import EV, SPIRIT_WHY, WHY, log
from .state import CLOSE, DESTROYED, INTERACTION, ON_MAP, RANGED, RECON, UNUSED, WITHDRAWN, Phase, Reason, S
from .victory import end_game


#: What comes after a rule step: the step functions return one of these (``DONE``: a decision is pending or
#: the game is over), and :func:`apply` runs them in turn. (Steps return their successor rather than call
#: it, which keeps the compiled call graph flat: each step is compiled once, not once per caller.)
NEXT = namedtuple("Next", ["DONE", "TO_ADDING", "TO_ATT_ARTILLERY", "TO_DEF_ARTILLERY", "RESOLVE",
                           "CONTINUE_COMBAT", "FINISH_ACTIVATION", "AFTER_ACTIVATION", "END_ROUND"])(*range(9))


@kernel
def apply(k, g, io, action):
    """Carry out ``action`` (legal at the pending decision) and play on to the next decision."""
    nxt = decide(k, g, io, action)
    while nxt != NEXT.DONE:
        if nxt == NEXT.TO_ADDING:
            nxt = to_adding(k, g)
        elif nxt == NEXT.TO_ATT_ARTILLERY:
            nxt = to_att_artillery(k, g)
        elif nxt == NEXT.TO_DEF_ARTILLERY:
            nxt = to_def_artillery(k, g)
        elif nxt == NEXT.RESOLVE:
            nxt = resolve(k, g, io)
        elif nxt == NEXT.CONTINUE_COMBAT:
            nxt = continue_combat(k, g)
        elif nxt == NEXT.FINISH_ACTIVATION:
            nxt = finish_activation(k, g)
        elif nxt == NEXT.AFTER_ACTIVATION:
            nxt = after_activation(k, g)
        else:
            nxt = end_round(k, g, io)


@kernel
def decide(k, g, io, action):
    """The pending decision's rule for ``action``; returns what comes next."""
    phase = g.sc[S.PHASE]
    if phase == Phase.CHOOSE_DIE:
        return on_choose_die(k, g, io, action)
    if phase == Phase.DIE_COMMAND:
        return on_die_command(k, g, io, action - k.A_OPTION)
    if phase == Phase.SELECT_UNIT:
        return on_select_unit(k, g, io, action)
    if phase == Phase.SELECT_RECOVERY:
        return on_select_recovery(k, g, io, action - k.A_UNIT)
    if phase == Phase.MOVE:
        return on_move(k, g, io, action)
    if phase == Phase.TARGET:
        return on_target(k, g, io, action)
    if phase == Phase.RETREAT_BEFORE:
        return on_retreat_before(k, g, io, action)
    if phase == Phase.ADD_UNIT:
        return on_add_unit(k, g, io, action)
    if phase == Phase.ATT_ARTILLERY:
        return on_att_artillery(k, g, io, action - k.A_OPTION)
    if phase == Phase.DEF_ARTILLERY:
        return on_def_artillery(k, g, io, action - k.A_OPTION)
    if phase == Phase.TAKE_CHOICE:
        return on_take_choice(k, g, io, action - k.A_OPTION)
    if phase == Phase.LOSS_OR_RETREAT:
        return on_loss_or_retreat(k, g, io, action - k.A_OPTION)
    if phase == Phase.RETREAT:
        C.retreat_step(k, g, io, action)
        return NEXT.CONTINUE_COMBAT
    if phase == Phase.ADVANCE:
        return on_advance(k, g, io, action)
    return on_tatar_decision(k, g, io, action - k.A_OPTION)  # Phase.TATAR_DECISION


@kernel
def set_phase(g, phase, decider):
    g.sc[S.PHASE] = phase
    g.sc[S.DECIDER] = decider


# ---- the throw (4.1)
@kernel
def throw(k, g, io):
    """4.1: the active player throws three dice."""
    p = g.sc[S.ACTIVE]
    for i in range(3):
        g.dice[i] = roll(io.dv, io.ds, 6, 1)
    g.used[:] = 0
    g.sc[S.SPENT] = 0
    g.sc[S.THROWS] += 1
    set_phase(g, Phase.CHOOSE_DIE, p)
    log(io, EV.THROW, p, g.dice[0], g.dice[1], g.dice[2])


@kernel
def opening_throw_due(g):
    """A new game (or a position given without dice) opens with the first player's throw."""
    return (g.sc[S.PHASE] == Phase.CHOOSE_DIE and g.sc[S.SPENT] == 0 and g.used[0] == 0 and g.used[1] == 0
            and g.used[2] == 0 and g.dice[0] == 0)


@kernel
def on_choose_die(k, g, io, action):
    p = g.sc[S.ACTIVE]
    if action < k.A_UNIT:  # a die
        i = action - k.A_DIE
        value = g.dice[i]
        g.used[i] = 1
        g.sc[S.SPENT] += 1
        g.sc[S.DIE_SLOT] = i
        # 4.1: a 2-5 activates a unit of that value; it may become a 1/6 only if none can be (5.1).
        if 2 <= value <= 5 and Q.any_activatable(k, g, p, value):
            g.sc[S.SOURCE] = value
            set_phase(g, Phase.SELECT_UNIT, p)
        else:
            if 2 <= value <= 5:
                log(io, EV.DIE_AS_COMMAND, p, value, 0, 0)
            set_phase(g, Phase.DIE_COMMAND, p)
        return NEXT.DONE
    opt = action - k.A_OPTION
    if opt == OPT.buy_activation:  # 6.1.3
        g.cmd[p, INTERACTION] -= k.ACTIVATION_COST
        g.sc[S.SOURCE] = 0
        log(io, EV.BUY_ACTIVATION, p, k.ACTIVATION_COST, 0, 0)
        set_phase(g, Phase.SELECT_UNIT, p)
    elif opt == OPT.buy_recovery:  # 6.2.1
        g.cmd[p, RECON] -= k.RECOVERY_COST
        set_phase(g, Phase.SELECT_RECOVERY, p)
    else:  # end_throw
        g.sc[S.ACTIVE] = 1 - p
        throw(k, g, io)
    return NEXT.DONE


@kernel
def on_die_command(k, g, io, opt):
    """4.1, 6: a 1/6 gives one command of the player's choice, up to the cap."""
    p = g.sc[S.ACTIVE]
    track = RECON if opt == OPT.gain_reconnaissance else INTERACTION
    if g.cmd[p, track] < k.COMMAND_CAP:
        g.cmd[p, track] += 1
    log(io, EV.GAIN_COMMAND, p, track, g.cmd[p, track], 0)
    g.sc[S.DIE_SLOT] = -1
    set_phase(g, Phase.CHOOSE_DIE, p)
    return NEXT.DONE


@kernel
def on_select_recovery(k, g, io, u):
    """6.2.1: the unit recovers to the ordered state (a Tatar unit raises the spirit, 9)."""
    g.disorg[u] = 0
    log(io, EV.RECOVERS, u, 0, 0, 0)
    if k.is_tatar[u]:
        C.change_spirit(k, g, io, 1, u, SPIRIT_WHY.RECOVERED)
    set_phase(g, Phase.CHOOSE_DIE, g.sc[S.ACTIVE])
    return NEXT.DONE


@kernel
def on_select_unit(k, g, io, action):
    """5: the unit is activated, with its wagon (7.2) for a second die of the same value or 2 interaction."""
    p = g.sc[S.ACTIVE]
    g.sc[S.WITH_WAGON] = -1
    g.sc[S.NO_ATTACK] = 0
    wagon = 0
    if action >= k.A_WAGON_CMD:
        u = action - k.A_WAGON_CMD
        g.cmd[p, INTERACTION] -= k.ACTIVATION_COST
        g.sc[S.WITH_WAGON] = C.wagon_with(k, g, u)
        wagon = 2
    elif action >= k.A_WAGON_DIE:
        u = action - k.A_WAGON_DIE
        value = g.sc[S.SOURCE]
        for i in range(3):
            if not g.used[i] and g.dice[i] == value:
                g.used[i] = 1
                break
        g.sc[S.SPENT] += 1
        g.sc[S.WITH_WAGON] = C.wagon_with(k, g, u)
        wagon = 1
    else:
        u = action - k.A_UNIT
    g.sc[S.UNIT] = u
    log(io, EV.ACTIVATES, p, u, g.sc[S.SOURCE], wagon)
    if g.status[u] == WITHDRAWN:
        log(io, EV.WITHDRAWN_ACTIVATION, u, 0, 0, 0)  # 5.1, 9: an imaginary activation
        return NEXT.FINISH_ACTIVATION
    set_phase(g, Phase.MOVE, p)
    return NEXT.DONE


# ---- movement (7)
@kernel
def on_move(k, g, io, h):
    u = g.sc[S.UNIT]
    start = g.hex[u]
    dest = np.empty(k.H, dtype=np.int32)
    Q.destinations(k, g, u, g.sc[S.WITH_WAGON] >= 0, dest)
    may_attack = dest[h] == 1
    if h != start:
        C.place(k, g, io, u, h)
        w = g.sc[S.WITH_WAGON]
        if w >= 0:
            C.move_wagon(g, w, h)
        log(io, EV.MOVES, u, start, h, 1 if w >= 0 else 0)
    if not may_attack:
        g.sc[S.NO_ATTACK] = 1
        log(io, EV.NO_ATTACK, u, 0, 0, 0)  # 7.1: complex terrain entered as the 2nd hex
        return NEXT.FINISH_ACTIVATION
    if not Q.has_target(k, g, u):
        return NEXT.FINISH_ACTIVATION
    set_phase(g, Phase.TARGET, g.sc[S.ACTIVE])
    return NEXT.DONE


# ---- combat declaration (8)
@kernel
def on_target(k, g, io, action):
    u, p = g.sc[S.UNIT], g.sc[S.ACTIVE]
    if action >= k.A_OPTION:  # no_combat
        return NEXT.FINISH_ACTIVATION
    d = g.occ[action]
    g.sc[S.TARGET] = d
    g.sc[S.KIND] = CLOSE if k.is_cav[u] else RANGED  # 8: cavalry close combat, infantry ranged
    g.sc[S.ATT_ARTY] = 0
    g.sc[S.DEF_ARTY] = 0
    g.part[:] = 0
    g.part[u] = 1
    log(io, EV.DECLARES, u, g.sc[S.KIND], d, action)
    # 6.2.2 / 8.1.1: retreat before close combat (not with wagons, decision 9; not in ranged, 8.2.1).
    if (g.sc[S.KIND] == CLOSE and g.cmd[1 - p, RECON] >= k.RETREAT_BEFORE_COST
            and C.wagon_with(k, g, d) < 0 and Q.any_rear_free(k, g, d)):
        set_phase(g, Phase.RETREAT_BEFORE, 1 - p)
        return NEXT.DONE
    return NEXT.TO_ADDING


@kernel
def on_retreat_before(k, g, io, action):
    """6.2.2, 8.1.1: the defender steps back for 2 reconnaissance; the attacker takes its hex."""
    if action >= k.A_OPTION:  # stand
        return NEXT.TO_ADDING
    p = g.sc[S.ACTIVE]
    d, u = g.sc[S.TARGET], g.sc[S.UNIT]
    vacated = g.hex[d]
    g.cmd[1 - p, RECON] -= k.RETREAT_BEFORE_COST
    C.place(k, g, io, d, action)
    log(io, EV.RETREATS_BEFORE, d, vacated, action, 0)
    C.place(k, g, io, u, vacated)
    log(io, EV.TAKES_VACATED, u, vacated, 0, 0)
    return NEXT.FINISH_ACTIVATION


@kernel
def to_adding(k, g):
    if Q.any_addable(k, g):
        set_phase(g, Phase.ADD_UNIT, g.sc[S.ACTIVE])
        return NEXT.DONE
    return NEXT.TO_ATT_ARTILLERY


@kernel
def on_add_unit(k, g, io, action):
    """6.1.1, 8.1.2, 8.2.2: one more unit joins the declared attack for 1 interaction."""
    if action >= k.A_OPTION:  # done_adding
        return NEXT.TO_ATT_ARTILLERY
    p = g.sc[S.ACTIVE]
    v = g.occ[action]
    g.part[v] = 1
    g.cmd[p, INTERACTION] -= k.ATTACK_COST
    log(io, EV.JOINS, v, 0, 0, 0)
    return NEXT.TO_ADDING


@kernel
def to_att_artillery(k, g):
    """6.1.2, 8.1.3: artillery supports an attack with infantry, for 1 interaction."""
    p = g.sc[S.ACTIVE]
    has_inf = False
    for u in range(k.NC):
        if g.part[u] and k.is_inf[u]:
            has_inf = True
    if has_inf and g.cmd[p, INTERACTION] >= k.ARTILLERY_COST:
        set_phase(g, Phase.ATT_ARTILLERY, p)
        return NEXT.DONE
    return NEXT.TO_DEF_ARTILLERY


@kernel
def on_att_artillery(k, g, io, opt):
    if opt == OPT.artillery:
        p = g.sc[S.ACTIVE]
        g.cmd[p, INTERACTION] -= k.ARTILLERY_COST
        g.sc[S.ATT_ARTY] = 1
        log(io, EV.ARTILLERY, p, 0, 0, 0)
    return NEXT.TO_DEF_ARTILLERY


@kernel
def to_def_artillery(k, g):
    """8.1.3: an infantry defender in close combat may have artillery support, for 1 interaction."""
    p = g.sc[S.ACTIVE]
    d = g.sc[S.TARGET]
    if g.sc[S.KIND] == CLOSE and k.is_inf[d] and g.cmd[1 - p, INTERACTION] >= k.ARTILLERY_COST:
        set_phase(g, Phase.DEF_ARTILLERY, 1 - p)
        return NEXT.DONE
    return NEXT.RESOLVE


@kernel
def on_def_artillery(k, g, io, opt):
    if opt == OPT.artillery:
        p = 1 - g.sc[S.ACTIVE]
        g.cmd[p, INTERACTION] -= k.ARTILLERY_COST
        g.sc[S.DEF_ARTY] = 1
        log(io, EV.DEF_ARTILLERY, p, 0, 0, 0)
    return NEXT.RESOLVE


# ---- resolution (8.1.4, 8.2.4)
@kernel
def roll_dice(io, code, u, n, sides):
    """Roll ``n`` dice of ``sides`` for unit ``u`` (-1: artillery) and log them; returns the sum."""
    log(io, code, u, n, sides, 0)
    total = 0
    for _ in range(n):
        r = roll(io.dv, io.ds, sides, 1)
        log(io, EV.ROLL, r, 0, 0, 0)
        total += r
    return total


@kernel
def resolve(k, g, io):
    """Roll: each attacker in the order it joined (the leader first, then scenario order, C22), the
    attacker's artillery d6, then the defender's dice and its artillery d6 (close combat only); then the
    result (8.1.4 or 8.2.4)."""
    lead, d, kind = g.sc[S.UNIT], g.sc[S.TARGET], g.sc[S.KIND]
    n, sides = C.attack_dice_at(k, lead, g.hex[lead], d, g.hex[d], kind)
    av = roll_dice(io, EV.ATTACK_DICE, lead, n, sides)
    for u in range(k.NC):
        if g.part[u] and u != lead:
            n, sides = C.attack_dice_at(k, u, g.hex[u], d, g.hex[d], kind)
            av += roll_dice(io, EV.ATTACK_DICE, u, n, sides)
    if g.sc[S.ATT_ARTY]:
        av += roll_dice(io, EV.ATTACK_DICE, -1, 1, 6)
    dv = 0
    if kind == CLOSE:
        dv += roll_dice(io, EV.DEFENCE_DICE, d, k.dfn[d], k.die[d])
        if g.sc[S.DEF_ARTY]:
            dv += roll_dice(io, EV.DEFENCE_DICE, -1, 1, 6)
    cr, R = av - dv, C.resistance(k, g, d)
    g.sc[S.ROLL_DIFF] = cr
    g.sc[S.VACATED] = g.hex[d]
    if kind == CLOSE:
        log(io, EV.CLOSE_COMBAT_ROLL, av, dv, cr, R)
        return close_result(k, g, io, cr, R)
    log(io, EV.RANGED_COMBAT_ROLL, av, dv, cr, R)
    return ranged_result(k, g, io, cr, R)


@kernel
def close_result(k, g, io, cr, R):
    """8.1.4: the close combat table."""
    p = g.sc[S.ACTIVE]
    lead, d = g.sc[S.UNIT], g.sc[S.TARGET]
    if cr >= 2 * R:
        log(io, EV.CLOSE_DOUBLE, 0, 0, 0, 0)
        C.apply_loss(k, g, io, d, WHY.CLOSE)
        C.start_retreat(k, g, io, d, 1)
    elif cr > R:
        log(io, EV.CLOSE_ABOVE, 0, 0, 0, 0)
        if C.wagon_with(k, g, d) >= 0:
            C.apply_loss(k, g, io, d, WHY.CLOSE)  # a retreat would be a loss too (8.3)
        else:
            # 8.1.4: the attacker chooses on open terrain, the defender on complex terrain.
            chooser = 1 - p if k.complex[g.hex[d]] else p
            g.sc[S.CHOOSER] = chooser
            set_phase(g, Phase.LOSS_OR_RETREAT, chooser)
            return NEXT.DONE
    elif cr == R:
        log(io, EV.CLOSE_EQUAL, 0, 0, 0, 0)
    else:
        log(io, EV.CLOSE_BELOW, 0, 0, 0, 0)
        C.apply_loss(k, g, io, lead, WHY.FAILED_ATTACK)
    return NEXT.CONTINUE_COMBAT


@kernel
def ranged_result(k, g, io, cr, R):
    """8.2.4: the ranged combat table; 8.2.6: a Tatar unit under fire retreats one more hex."""
    d = g.sc[S.TARGET]
    retreat = 0
    if cr > R:
        if g.disorg[d]:
            log(io, EV.RANGED_RETREAT, 0, 0, 0, 0)
            retreat = 1
        else:
            log(io, EV.RANGED_LOSS, 0, 0, 0, 0)
            C.apply_loss(k, g, io, d, WHY.RANGED)
    else:
        log(io, EV.RANGED_NO_EFFECT, 0, 0, 0, 0)
    if k.is_tatar[d] and g.status[d] == ON_MAP:
        log(io, EV.TATAR_UNDER_FIRE, d, 0, 0, 0)
        retreat += 1
    C.start_retreat(k, g, io, d, retreat)
    return NEXT.CONTINUE_COMBAT


@kernel
def on_loss_or_retreat(k, g, io, opt):
    p, chooser = g.sc[S.ACTIVE], g.sc[S.CHOOSER]
    choice = 1 if opt == OPT.choose_loss else 2
    # 6.2.3, as in the example of two throws: once the attacker has chosen, the defender may pay
    # 1 reconnaissance to make the choice himself.
    if chooser == p and g.cmd[1 - p, RECON] >= k.TAKE_CHOICE_COST:
        g.sc[S.ATT_CHOICE] = choice
        log(io, EV.ATTACKER_CHOOSES, p, choice, 0, 0)
        set_phase(g, Phase.TAKE_CHOICE, 1 - p)
        return NEXT.DONE
    return loss_or_retreat(k, g, io, chooser, choice)


@kernel
def on_take_choice(k, g, io, opt):
    p = g.sc[S.ACTIVE]
    if opt == OPT.take_choice:
        g.cmd[1 - p, RECON] -= k.TAKE_CHOICE_COST
        log(io, EV.TAKES_CHOICE, 1 - p, 0, 0, 0)
        g.sc[S.CHOOSER] = 1 - p
        set_phase(g, Phase.LOSS_OR_RETREAT, 1 - p)
        return NEXT.DONE
    return loss_or_retreat(k, g, io, p, g.sc[S.ATT_CHOICE])


@kernel
def loss_or_retreat(k, g, io, chooser, choice):
    """8.1.4: R < CR < 2R: the defender suffers losses (``choice`` 1) or retreats (2)."""
    d = g.sc[S.TARGET]
    g.sc[S.ATT_CHOICE] = 0  # the choice is made: nothing of it stays pending
    g.sc[S.CHOOSER] = 0
    log(io, EV.CHOSEN, chooser, choice, 0, 0)
    if choice == 1:
        C.apply_loss(k, g, io, d, WHY.CLOSE)
    else:
        C.start_retreat(k, g, io, d, 1)
    return NEXT.CONTINUE_COMBAT


@kernel
def continue_combat(k, g):
    """After each result or retreat hex: the next pending retreat hex, the advance, or the end."""
    if g.sc[S.OVER]:
        return NEXT.DONE
    if g.sc[S.RET_UNIT] >= 0 and g.sc[S.RET_LEFT] > 0:
        set_phase(g, Phase.RETREAT, k.side[g.sc[S.RET_UNIT]])
        return NEXT.DONE
    if g.sc[S.KIND] == CLOSE:
        d, vacated = g.sc[S.TARGET], g.sc[S.VACATED]
        if g.hex[d] != vacated and g.occ[vacated] < 0 and Q.any_advancer(k, g):
            set_phase(g, Phase.ADVANCE, g.sc[S.ACTIVE])
            return NEXT.DONE
    return NEXT.FINISH_ACTIVATION


@kernel
def on_advance(k, g, io, h):
    """8.1.8: a cavalry unit of the attack takes the hex the defender left."""
    u, to = g.occ[h], g.sc[S.VACATED]
    C.place(k, g, io, u, to)
    log(io, EV.ADVANCES, u, to, 0, 0)
    return NEXT.FINISH_ACTIVATION


# ---- end of an activation, round and game (4, 4.2, 9, 10)
@kernel
def clear_activation(g):
    """Forget everything about the activation and combat just finished (the state between activations
    is then the same however it was reached, so a position taken there restores it exactly)."""
    g.part[:] = 0
    g.sc[S.UNIT] = -1
    g.sc[S.WITH_WAGON] = -1
    g.sc[S.TARGET] = -1
    g.sc[S.RET_UNIT] = -1
    g.sc[S.VACATED] = -1
    g.sc[S.DIE_SLOT] = -1
    g.sc[S.KIND] = 0
    g.sc[S.NO_ATTACK] = 0
    g.sc[S.RET_LEFT] = 0
    g.sc[S.SOURCE] = 0
    g.sc[S.ATT_ARTY] = 0
    g.sc[S.DEF_ARTY] = 0
    g.sc[S.ROLL_DIFF] = 0
    g.sc[S.CHOOSER] = 0
    g.sc[S.ATT_CHOICE] = 0


@kernel
def finish_activation(k, g):
    u = g.sc[S.UNIT]
    if u >= 0 and g.status[u] != DESTROYED and g.status[u] != UNUSED:
        g.acts[u] = min(g.acts[u] + 1, k.ACTS_LIMIT)
    clear_activation(g)
    if g.sc[S.OVER]:
        return NEXT.DONE
    if g.sc[S.PENDING_TATAR]:
        set_phase(g, Phase.TATAR_DECISION, 1)
        return NEXT.DONE
    return NEXT.AFTER_ACTIVATION


@kernel
def on_tatar_decision(k, g, io, opt):
    """9: after the Tatar withdrawal the C-T player ends the battle or fights on."""
    g.sc[S.PENDING_TATAR] = 0
    if opt == OPT.end_battle:
        log(io, EV.TATARS_END_BATTLE, 0, 0, 0, 0)
        end_game(k, g, io, -1, Reason.TATARS_ENDED)
        return NEXT.DONE
    g.sc[S.CONTINUED] = 1
    log(io, EV.TATARS_FIGHT_ON, 0, 0, 0, 0)
    return NEXT.AFTER_ACTIVATION


@kernel
def after_activation(k, g):
    """4: the round ends once every unit of one player has been activated twice."""
    for p in range(2):
        units, done = 0, 0
        for u in range(k.NC):
            if k.side[u] == p and (g.status[u] == ON_MAP or g.status[u] == WITHDRAWN):
                units += 1
                if g.acts[u] >= k.ACTS_LIMIT:
                    done += 1
        if units and done == units:
            return NEXT.END_ROUND
    set_phase(g, Phase.CHOOSE_DIE, g.sc[S.ACTIVE])
    return NEXT.DONE


@kernel
def end_round(k, g, io):
    """4.2: recovery removes activation markers; round 2 opens with last throw's inactive player."""
    g.acts[:] = 0
    log(io, EV.END_OF_ROUND, g.sc[S.ROUND], 0, 0, 0)
    if g.sc[S.ROUND] >= k.ROUNDS:
        end_game(k, g, io, -1, Reason.POINTS)
    else:
        g.sc[S.ROUND] += 1
        g.sc[S.ACTIVE] = 1 - g.sc[S.ACTIVE]
        throw(k, g, io)
    return NEXT.DONE
