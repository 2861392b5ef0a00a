"""The Berestechko observation: named planes over the 49 hexes plus named global features.

Planes are from the observer's point of view ("own" = the observing player's). Berestechko has no
hidden information, so both players see the same facts. All values lie in [0, 1].
"""

from __future__ import annotations

import numpy as np

from ..core.observation import ObservationLayout
from .combat import resistance
from .victory import victory_points
from .state import CLOSE, DESTROYED, INTERACTION, ON_MAP, PHASE_NAMES, RANGED, RECON, WITHDRAWN, S

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
N_UNIT_PLANES = 18


def build_layout(engine) -> ObservationLayout:
    n_units = engine.scenario.n_units
    features = [
        ("me", 2), ("round", 2), ("my_throw", 1), ("decision", len(PHASE_NAMES)),
        ("dice", 18), ("dice_used", 3), ("dice_spent", 1),
        ("commands", 4),          # own recon, own interaction, enemy recon, enemy interaction (/3)
        ("tatar_spirit", 1), ("tatars_withdrawn", 1), ("battle_continued", 1),
        ("combat_kind", 2), ("artillery", 2), ("combat_margin", 1), ("no_attack", 1),
        ("attacker_choice", 2),   # loss / retreat, while the defender may overrule it (6.2.3)
        ("victory_points", 2),    # own, enemy (/30)
        ("roster", 5 * n_units),  # per unit: on map, destroyed, withdrawn, disorganized, activations/2
    ]
    return ObservationLayout(engine.grid.n, PLANES, features)


class _Static:
    """Per-engine constants: each unit's static plane values by perspective, and the terrain."""

    def __init__(self, engine):
        sc, T, L = engine.scenario, engine.T, engine.obs_layout
        U = sc.n_units
        self.unit_table = np.zeros((2, U, N_UNIT_PLANES), dtype=np.float32)
        for p in (0, 1):
            for u in range(U):
                own = sc.side[u] == p
                self.unit_table[p, u, :11] = (
                    own and T.is_cav[u], own and T.is_inf[u], (not own) and T.is_cav[u], (not own) and T.is_inf[u],
                    T.is_tatar[u], own and T.is_wagon[u], (not own) and T.is_wagon[u],
                    sc.attack[u] / 6.0, sc.defence[u] / 6.0, sc.die[u] / 12.0, sc.act[u] / 5.0,
                )
        self.res = sc.resistance.astype(np.float32) / 16.0
        self.cossack_inf = np.asarray(T.is_cossack_inf)
        self.arange = np.arange(U)
        self.hex_onehot = np.vstack([np.eye(engine.grid.n, dtype=np.float32), np.zeros((1, engine.grid.n), np.float32)])
        self.status_onehot = np.zeros((4, 5), dtype=np.float32)  # on map, destroyed, withdrawn (+ 2 filled later)
        self.status_onehot[[ON_MAP, DESTROYED, WITHDRAWN], [0, 1, 2]] = 1.0
        self.base = L.new()
        P = L.planes_view(self.base)
        P[PLANES.index("complex_terrain")] = sc.complex
        P[PLANES.index("camp")] = sc.camp
        self.unit_block = N_UNIT_PLANES * L.n_hexes
        self.features_start = L.slices["me"].start
        self.n_units, self.n_hexes = U, L.n_hexes
        self.decision_width = len(PHASE_NAMES)
        layout = engine.state_class._layout
        span = {name: (a, b) for name, a, b, _ in layout}
        # cache key: the unit arrays but the activation counts (written on top of the cached part)
        self.key_spans = (slice(span["hex"][0], span["disorg"][1]), slice(span["occ"][0], span["wag"][1]))
        self.activation_plane = PLANES.index("activations") * L.n_hexes
        self.cache: list = [None, None]
        self.vp_start, self.roster_start = L.slices["victory_points"].start, L.slices["roster"].start
        plane_start = {name: PLANES.index(name) * L.n_hexes for name in PLANES}
        self.active_plane, self.target_plane = plane_start["active_unit"], plane_start["target"]
        self.attackers_plane, self.retreat_plane = plane_start["attackers"], plane_start["retreating_unit"]


def _unit_planes(st: _Static, s, p: int) -> tuple[np.ndarray, np.ndarray]:
    """The unit planes block and the roster values.

    A (units x planes) table is placed on the hexes by a one-hot (units x hexes) matrix; off-map
    units get an all-zero row. Wagons only have wagon-plane values, so a wagon and its infantry add up
    without clashing.
    """
    disorg, hexes = s.disorg, s.hex
    F = st.unit_table[p].copy()
    F[:, 11] = disorg
    walled = st.cossack_inf & (s.wag[hexes] >= 0)
    F[:, 13] = np.minimum(st.res[st.arange, disorg] * (1.0 + walled), 1.0)
    planes = (F.T @ st.hex_onehot[hexes]).ravel()
    roster = st.status_onehot[s.status]
    roster[:, 3] = disorg
    return planes, roster.ravel()


def _unit_part(engine, st: _Static, s, p: int) -> np.ndarray:
    """An observation holding only what depends on the units' places and states: terrain, unit
    planes, victory points and roster (everything else zero)."""
    obs = st.base.copy()
    planes, roster = _unit_planes(st, s, p)
    obs[:st.unit_block] = planes
    vp = victory_points(engine.T, s)
    obs[st.vp_start:st.vp_start + 2] = (min(vp[p] / 30.0, 1.0), min(vp[1 - p] / 30.0, 1.0))
    obs[st.roster_start:] = roster
    return obs


def observe(engine, s, p: int) -> np.ndarray:
    st = engine.__dict__.get("_obs_static")
    if st is None:
        st = engine._obs_static = _Static(engine)
    # What depends on the units' places and states changes only when units move or change state;
    # most decisions (dice, commands, targets, artillery) leave it alone, so it is cached per
    # observer (keyed by the unit arrays' bytes).
    a, b = st.key_spans
    key = s.buf[a].tobytes() + s.buf[b].tobytes()
    cached = st.cache[p]
    if cached is None or cached[0] != key:
        cached = st.cache[p] = (key, _unit_part(engine, st, s, p))
    obs = cached[1].copy()
    sc = s.sc.tolist()
    # Activation counts (plane and roster): they change after every activation, so not cached.
    hex_list = s.hex.tolist()
    roster_acts = st.roster_start + 4
    for u, n in enumerate(s.acts.tolist()):
        if n:
            obs[roster_acts + 5 * u] = n * 0.5
            if hex_list[u] >= 0:
                obs[st.activation_plane + hex_list[u]] = n * 0.5
    # Combat-focus planes: active unit, target, retreating unit, attackers.
    hexes = s.hex
    for u, plane in ((sc[S.UNIT], st.active_plane), (sc[S.TARGET], st.target_plane), (sc[S.RET_UNIT], st.retreat_plane)):
        if u >= 0 and hexes[u] >= 0:
            obs[plane + hexes[u]] = 1.0
    if sc[S.KIND]:
        for u in np.flatnonzero(s.part).tolist():
            if hexes[u] >= 0:
                obs[st.attackers_plane + hexes[u]] = 1.0

    # Global features up to combat_margin/no_attack, built as one Python list and written once.
    g = [0.0] * (5 + st.decision_width + 18)
    g[p] = 1.0
    g[2 + sc[S.ROUND] - 1] = 1.0
    g[4] = float(sc[S.ACTIVE] == p)
    if not sc[S.OVER]:
        g[5 + sc[S.PHASE]] = 1.0
    base = 5 + st.decision_width
    for i, v in enumerate(s.dice.tolist()):
        if v:
            g[base + 6 * i + v - 1] = 1.0
    g += s.used.tolist()
    g.append(sc[S.SPENT] * 0.5)
    cmd = s.cmd.tolist()
    g += (cmd[p][RECON] / 3.0, cmd[p][INTERACTION] / 3.0, cmd[1 - p][RECON] / 3.0, cmd[1 - p][INTERACTION] / 3.0)
    g += (sc[S.SPIRIT] * 0.25, sc[S.TATARS_OUT], sc[S.CONTINUED])
    g += (sc[S.KIND] == CLOSE, sc[S.KIND] == RANGED, sc[S.ATT_ARTY], sc[S.DEF_ARTY])
    t = sc[S.TARGET]
    margin = 0.0
    if t >= 0 and s.status[t] == ON_MAP:
        margin = min(max((sc[S.ROLL_DIFF] - resistance(engine.T, s, t)) / 20.0 + 0.5, 0.0), 1.0)
    g += (margin, sc[S.NO_ATTACK], sc[S.ATT_CHOICE] == 1, sc[S.ATT_CHOICE] == 2)
    obs[st.features_start:st.vp_start] = g
    if sc[S.OVER]:  # final VP include the end bonuses of 9/10
        obs[st.vp_start:st.vp_start + 2] = (min(sc[S.VP0 + p] / 30.0, 1.0), min(sc[S.VP0 + 1 - p] / 30.0, 1.0))
    return obs
