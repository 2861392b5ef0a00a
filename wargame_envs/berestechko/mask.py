"""The legal actions of the pending decision, as a compiled kernel writing a bool mask."""

from __future__ import annotations

import numpy as np

from ..core.jit import kernel
from . import combat as C
from . import queries as Q
from .actions import OPT
from .state import INTERACTION, RECON, Phase, S


@kernel
def legal_mask(k, g, mask):
    """Write the legal actions of ``g``'s pending decision into ``mask`` (cleared first)."""
    mask[:] = False
    phase = g.sc[S.PHASE]
    o = k.A_OPTION
    p = g.sc[S.ACTIVE]
    if phase == Phase.CHOOSE_DIE:
        if g.sc[S.SPENT] < k.DICE_SPENT:
            for i in range(3):
                if g.used[i]:
                    continue
                first = True  # identical dice are one choice: only the first is offered
                for j in range(i):
                    if not g.used[j] and g.dice[j] == g.dice[i]:
                        first = False
                mask[k.A_DIE + i] = first
        if g.cmd[p, INTERACTION] >= k.ACTIVATION_COST and Q.any_activatable(k, g, p, 0):
            mask[o + OPT.buy_activation] = True
        if g.cmd[p, RECON] >= k.RECOVERY_COST and Q.any_recoverable(k, g, p):
            mask[o + OPT.buy_recovery] = True
        if g.sc[S.SPENT] >= k.DICE_SPENT:
            mask[o + OPT.end_throw] = True
    elif phase == Phase.DIE_COMMAND:
        mask[o + OPT.gain_reconnaissance] = True
        mask[o + OPT.gain_interaction] = True
    elif phase == Phase.SELECT_UNIT:
        mask_select_unit(k, g, mask)
    elif phase == Phase.SELECT_RECOVERY:
        for u in range(k.NC):
            if k.side[u] == p and Q.can_recover(k, g, u):
                mask[k.A_UNIT + u] = True
    elif phase == Phase.MOVE:
        dest = np.empty(k.H, dtype=np.int32)
        Q.destinations(k, g, g.sc[S.UNIT], g.sc[S.WITH_WAGON] >= 0, dest)
        for h in range(k.H):
            mask[h] = dest[h] >= 0
    elif phase == Phase.TARGET:
        u = g.sc[S.UNIT]
        for j in range(6):
            n = k.adj[g.hex[u], j]
            if n >= 0 and Q.is_target(k, g, u, n):
                mask[n] = True
        mask[o + OPT.no_combat] = True
    elif phase == Phase.RETREAT_BEFORE:
        d = g.sc[S.TARGET]
        for i in range(6):
            x = k.rear[k.side[d], g.hex[d], i]
            if x >= 0 and C.is_free(g, x):
                mask[x] = True
        mask[o + OPT.stand] = True
    elif phase == Phase.ADD_UNIT:
        h = g.hex[g.sc[S.TARGET]]
        for j in range(6):
            n = k.adj[h, j]
            if n >= 0 and Q.can_add(k, g, g.occ[n]):
                mask[n] = True
        mask[o + OPT.done_adding] = True
    elif phase == Phase.ATT_ARTILLERY or phase == Phase.DEF_ARTILLERY:
        mask[o + OPT.artillery] = True
        mask[o + OPT.no_artillery] = True
    elif phase == Phase.TAKE_CHOICE:
        mask[o + OPT.take_choice] = True
        mask[o + OPT.decline_choice] = True
    elif phase == Phase.LOSS_OR_RETREAT:
        mask[o + OPT.choose_loss] = True
        mask[o + OPT.choose_retreat] = True
    elif phase == Phase.RETREAT:
        options = np.empty(12, dtype=np.int32)
        n, _ = C.retreat_options(k, g, g.sc[S.RET_UNIT], options)
        for i in range(n):
            mask[options[i]] = True
    elif phase == Phase.ADVANCE:
        for u in range(k.NC):
            if Q.can_advance(k, g, u):
                mask[g.hex[u]] = True
    elif phase == Phase.TATAR_DECISION:
        mask[o + OPT.end_battle] = True
        mask[o + OPT.continue_battle] = True


@kernel
def mask_select_unit(k, g, mask):
    """5, 6.1.3: the units the die (or the additional activation) may activate; 7.2: Cossack infantry
    with its wagon, paying a second die of the same value or 2 interaction."""
    p, value = g.sc[S.ACTIVE], g.sc[S.SOURCE]
    second_die = False
    if value and g.sc[S.SPENT] < k.DICE_SPENT:
        for i in range(3):
            if not g.used[i] and g.dice[i] == value:
                second_die = True
    for u in range(k.NC):
        if k.side[u] != p or not Q.can_activate(k, g, u, value):
            continue
        mask[k.A_UNIT + u] = True
        if C.wagon_with(k, g, u) < 0:
            continue
        if second_die:
            mask[k.A_WAGON_DIE + u] = True
        if g.cmd[p, INTERACTION] >= k.ACTIVATION_COST:
            mask[k.A_WAGON_CMD + u] = True
