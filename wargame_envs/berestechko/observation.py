"""The Berestechko observation: named planes over the 49 hexes plus named global features.

Planes are from the observer's point of view ("own" = the observing player's). Berestechko has no
hidden information, so both players see the same facts. All values lie in [0, 1]. :func:`observe` is a
compiled kernel that writes the whole vector in place (about a microsecond: nothing is cached).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..core.jit import kernel
from ..core.observation import ObservationLayout
from .combat import resistance
from .state import CLOSE, DESTROYED, INTERACTION, ON_MAP, PHASE_NAMES, RANGED, RECON, WITHDRAWN, Reason, S
from .victory import victory_points

PLANES = (
    # per-unit planes (the unit's value on its hex), own = the observer's side
    "own_cavalry", "own_infantry", "enemy_cavalry", "enemy_infantry", "tatar", "own_wagon", "enemy_wagon",
    "attack_dice", "defence_dice",  # counts / 6
    "die_sides",          # / 12
    "activation_value",   # / 5
    "disorganized",
    "activations",        # activations this round / 2
    "resistance",         # current R (doubled by wagons) / 16
    "active_unit", "target", "attackers", "retreating_unit",
    # terrain
    "complex_terrain", "camp",
)
#: plane indices by name (plain ints for the kernel)
P = namedtuple("Planes", PLANES)(*range(len(PLANES)))
N_DECISIONS = len(PHASE_NAMES)


def build_layout(engine) -> ObservationLayout:
    n_units = engine.scenario.n_units
    features = [
        ("me", 2), ("round", 2), ("my_throw", 1), ("decision", N_DECISIONS),
        ("dice", 18), ("dice_used", 3), ("dice_spent", 1),
        ("commands", 4),          # own recon, own interaction, enemy recon, enemy interaction (/3)
        ("tatar_spirit", 1), ("tatars_withdrawn", 1), ("battle_continued", 1),
        ("combat_kind", 2), ("artillery", 2), ("combat_margin", 1), ("no_attack", 1),
        ("attacker_choice", 2),   # loss / retreat, while the defender may overrule it (6.2.3)
        ("victory_points", 2),    # own, enemy (/30)
        ("roster", 5 * n_units),  # per unit: on map, destroyed, withdrawn, disorganized, activations/2
    ]
    return ObservationLayout(engine.grid.n, PLANES, features)


@kernel
def observe(k, g, p, obs):
    """Write player ``p``'s observation of game ``g`` into ``obs`` (float32, ``k.OBS_SIZE``)."""
    H = k.H
    obs[:] = 0.0
    for h in range(H):
        obs[P.complex_terrain * H + h] = k.complex[h]
        obs[P.camp * H + h] = k.camp[h]
    # Units: each unit's values on its hex (a wagon and its infantry add up without clashing: wagons
    # only have wagon-plane values), and the roster.
    for u in range(k.U):
        h = g.hex[u]
        st = g.status[u]
        r = k.OBS_ROSTER + 5 * u
        if st == ON_MAP:
            obs[r] = 1.0
        elif st == DESTROYED:
            obs[r + 1] = 1.0
        elif st == WITHDRAWN:
            obs[r + 2] = 1.0
        obs[r + 3] = g.disorg[u]
        if g.acts[u]:
            obs[r + 4] = g.acts[u] * 0.5
        if h < 0:
            continue
        own = k.side[u] == p
        if k.is_cav[u]:
            obs[(P.own_cavalry if own else P.enemy_cavalry) * H + h] += 1.0
        if k.is_inf[u]:
            obs[(P.own_infantry if own else P.enemy_infantry) * H + h] += 1.0
        if k.is_wagon[u]:
            obs[(P.own_wagon if own else P.enemy_wagon) * H + h] += 1.0
        if k.is_tatar[u]:
            obs[P.tatar * H + h] += 1.0
        obs[P.attack_dice * H + h] += np.float32(k.att[u] / 6.0)
        obs[P.defence_dice * H + h] += np.float32(k.dfn[u] / 6.0)
        obs[P.die_sides * H + h] += np.float32(k.die[u] / 12.0)
        obs[P.activation_value * H + h] += np.float32(k.act[u] / 5.0)
        obs[P.disorganized * H + h] += g.disorg[u]
        walled = 2.0 if k.is_cossack_inf[u] and g.wag[h] >= 0 else 1.0
        obs[P.resistance * H + h] += min(k.res[u, g.disorg[u]] / 16.0 * walled, 1.0)
        if g.acts[u]:
            obs[P.activations * H + h] = g.acts[u] * 0.5
    # Combat focus: active unit, target, retreating unit, attackers.
    for plane, u in ((P.active_unit, g.sc[S.UNIT]), (P.target, g.sc[S.TARGET]), (P.retreating_unit, g.sc[S.RET_UNIT])):
        if u >= 0 and g.hex[u] >= 0:
            obs[plane * H + g.hex[u]] = 1.0
    if g.sc[S.KIND]:
        for u in range(k.U):
            if g.part[u] and g.hex[u] >= 0:
                obs[P.attackers * H + g.hex[u]] = 1.0
    # Global features, in the order of build_layout.
    f = k.OBS_FEATURES
    obs[f + p] = 1.0
    obs[f + 2 + g.sc[S.ROUND] - 1] = 1.0
    obs[f + 4] = g.sc[S.ACTIVE] == p
    if not g.sc[S.OVER]:
        obs[f + 5 + g.sc[S.PHASE]] = 1.0
    f += 5 + N_DECISIONS
    for i in range(3):
        if g.dice[i]:
            obs[f + 6 * i + g.dice[i] - 1] = 1.0
        obs[f + 18 + i] = g.used[i]
    f += 21
    obs[f] = g.sc[S.SPENT] / k.DICE_SPENT
    obs[f + 1] = g.cmd[p, RECON] / 3.0
    obs[f + 2] = g.cmd[p, INTERACTION] / 3.0
    obs[f + 3] = g.cmd[1 - p, RECON] / 3.0
    obs[f + 4] = g.cmd[1 - p, INTERACTION] / 3.0
    obs[f + 5] = g.sc[S.SPIRIT] * 0.25
    obs[f + 6] = g.sc[S.TATARS_OUT]
    obs[f + 7] = g.sc[S.CONTINUED]
    obs[f + 8] = g.sc[S.KIND] == CLOSE
    obs[f + 9] = g.sc[S.KIND] == RANGED
    obs[f + 10] = g.sc[S.ATT_ARTY]
    obs[f + 11] = g.sc[S.DEF_ARTY]
    t = g.sc[S.TARGET]
    if t >= 0 and g.status[t] == ON_MAP:
        obs[f + 12] = min(max((g.sc[S.ROLL_DIFF] - resistance(k, g, t)) / 20.0 + 0.5, 0.0), 1.0)
    obs[f + 13] = g.sc[S.NO_ATTACK]
    obs[f + 14] = g.sc[S.ATT_CHOICE] == 1
    obs[f + 15] = g.sc[S.ATT_CHOICE] == 2
    # Victory points: counted as if the game ended now, or the final ones with the end bonuses of 9/10.
    if g.sc[S.OVER]:
        vp0, vp1 = g.sc[S.VP0], g.sc[S.VP1]
    else:
        vp0, vp1 = victory_points(k, g, Reason.NONE)
    own, enemy = (vp0, vp1) if p == 0 else (vp1, vp0)
    obs[k.OBS_VP] = min(own / 30.0, 1.0)
    obs[k.OBS_VP + 1] = min(enemy / 30.0, 1.0)
