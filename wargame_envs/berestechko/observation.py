"""The Berestechko observation: named planes over the 49 hexes plus named global features.

Planes are from the observer's point of view ("own" = the observing player's). Berestechko has no
hidden information, so both players see the same facts. All values lie in [0, 1].
"""

from __future__ import annotations

import numpy as np

from ..core.observation import ObservationLayout
from .state import CLOSE, INTERACTION, ON_MAP, RANGED, RECON, WITHDRAWN, Phase, S, DESTROYED

PLANES = (
    "own_cavalry", "own_infantry", "enemy_cavalry", "enemy_infantry", "tatar", "disorganized",
    "activations",        # activations this round / 2
    "own_wagon", "enemy_wagon",
    "resistance",         # current R (wagons included) / 16
    "attack_dice", "defence_dice",  # counts / 6
    "die_sides",          # / 12
    "activation_value",   # / 5
    "complex_terrain", "camp",
    "active_unit", "target", "attackers", "retreating_unit",
)


def build_layout(engine) -> ObservationLayout:
    n_units = engine.scenario.n_units
    features = [
        ("me", 2), ("round", 2), ("my_throw", 1), ("decision", len(Phase)),
        ("dice", 18), ("dice_used", 3), ("dice_spent", 1),
        ("commands", 4),          # own recon, own interaction, enemy recon, enemy interaction (/3)
        ("tatar_spirit", 1), ("tatars_withdrawn", 1), ("battle_continued", 1),
        ("combat_kind", 2), ("artillery", 2), ("combat_margin", 1), ("no_attack", 1),
        ("victory_points", 2),    # own, enemy (/30)
        ("roster", 5 * n_units),  # per unit: on map, destroyed, withdrawn, disorganized, activations/2
    ]
    return ObservationLayout(engine.grid.n, PLANES, features)


class _Static:
    """Per-engine numpy constants for vectorised observation building."""

    def __init__(self, engine):
        sc = engine.scenario
        T = engine.T
        self.side = sc.side
        self.cav = np.asarray(T.is_cav)
        self.inf = np.asarray(T.is_inf)
        self.wagon = np.asarray(T.is_wagon)
        self.tatar = np.asarray(T.is_tatar)
        self.att = sc.attack / 6.0
        self.dfn = sc.defence / 6.0
        self.die = sc.die / 12.0
        self.act = sc.act / 5.0
        self.complex = sc.complex.astype(np.float32)
        self.camp = sc.camp.astype(np.float32)
        L = engine.obs_layout
        self.plane = {name: i for i, name in enumerate(L.planes)}
        self.sl = L.slices


def observe(engine, s, p: int) -> np.ndarray:
    st = engine.__dict__.get("_obs_static")
    if st is None:
        st = engine._obs_static = _Static(engine)
    L = engine.obs_layout
    obs = L.new()
    P = L.planes_view(obs)
    pl, sl = st.plane, st.sl
    T = engine.T

    on = s.status == ON_MAP
    units = np.flatnonzero(on & ~st.wagon)
    h = s.hex[units]
    own = st.side[units] == p
    cav, inf = st.cav[units], st.inf[units]
    P[pl["own_cavalry"], h[own & cav]] = 1
    P[pl["own_infantry"], h[own & inf]] = 1
    P[pl["enemy_cavalry"], h[~own & cav]] = 1
    P[pl["enemy_infantry"], h[~own & inf]] = 1
    P[pl["tatar"], h[st.tatar[units]]] = 1
    P[pl["disorganized"], h] = s.disorg[units]
    P[pl["activations"], h] = s.acts[units] / 2.0
    P[pl["attack_dice"], h] = st.att[units]
    P[pl["defence_dice"], h] = st.dfn[units]
    P[pl["die_sides"], h] = st.die[units]
    P[pl["activation_value"], h] = st.act[units]
    from .combat import resistance

    P[pl["resistance"], h] = [min(resistance(T, s, int(u)) / 16.0, 1.0) for u in units]
    wagons = np.flatnonzero(on & st.wagon)
    wh = s.hex[wagons]
    own_w = st.side[wagons] == p
    P[pl["own_wagon"], wh[own_w]] = 1
    P[pl["enemy_wagon"], wh[~own_w]] = 1
    P[pl["complex_terrain"]] = st.complex
    P[pl["camp"]] = st.camp
    for key, plane in ((S.UNIT, "active_unit"), (S.TARGET, "target"), (S.RET_UNIT, "retreating_unit")):
        u = int(s.sc[key])
        if u >= 0 and s.hex[u] >= 0:
            P[pl[plane], s.hex[u]] = 1
    parts = np.flatnonzero(s.part & on)
    P[pl["attackers"], s.hex[parts]] = 1

    sc = s.sc
    obs[sl["me"].start + p] = 1
    obs[sl["round"].start + int(sc[S.ROUND]) - 1] = 1
    obs[sl["my_throw"]] = float(sc[S.ACTIVE] == p)
    if not sc[S.OVER]:
        obs[sl["decision"].start + int(sc[S.PHASE])] = 1
    for i in range(3):
        if s.dice[i]:
            obs[sl["dice"].start + 6 * i + int(s.dice[i]) - 1] = 1
    obs[sl["dice_used"]] = s.used
    obs[sl["dice_spent"]] = sc[S.SPENT] / 2.0
    c = sl["commands"].start
    obs[c:c + 4] = np.array([s.cmd[p, RECON], s.cmd[p, INTERACTION], s.cmd[1 - p, RECON], s.cmd[1 - p, INTERACTION]]) / 3.0
    obs[sl["tatar_spirit"]] = sc[S.SPIRIT] / 4.0
    obs[sl["tatars_withdrawn"]] = sc[S.TATARS_OUT]
    obs[sl["battle_continued"]] = sc[S.CONTINUED]
    if sc[S.KIND] in (CLOSE, RANGED):
        obs[sl["combat_kind"].start + int(sc[S.KIND]) - 1] = 1
    obs[sl["artillery"]] = (sc[S.ATT_ARTY], sc[S.DEF_ARTY])
    if sc[S.TARGET] >= 0 and s.status[sc[S.TARGET]] == ON_MAP:
        R = resistance(T, s, int(sc[S.TARGET]))
        obs[sl["combat_margin"]] = np.clip((sc[S.ROLL_DIFF] - R) / 20.0 + 0.5, 0.0, 1.0)
    obs[sl["no_attack"]] = sc[S.NO_ATTACK]
    vp = engine.scores(s)
    obs[sl["victory_points"]] = np.clip(np.array([vp[p], vp[1 - p]]) / 30.0, 0.0, 1.0)
    r = obs[sl["roster"]].reshape(-1, 5)
    r[:, 0] = on
    r[:, 1] = s.status == DESTROYED
    r[:, 2] = s.status == WITHDRAWN
    r[:, 3] = s.disorg
    r[:, 4] = s.acts / 2.0
    return obs
