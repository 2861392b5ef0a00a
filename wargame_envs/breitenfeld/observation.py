"""Observations: named planes over the 598 hexes plus named global features, all in [0, 1], from the
observing player's perspective ("own" = the observer's pieces, "enemy" = the other side's).

Breitenfeld has no hidden information: both players see the whole board, the chit cup and the pending
decision. The layout (names, offsets) is ``engine.obs_layout``; ``obs_layout.describe()`` prints it.
"""

from __future__ import annotations

import numpy as np

from ..core.observation import ObservationLayout
from .state import (DECISION_KEYS, F_ATK, F_DEF, F_IN_ATK, F_MOVED, F_MUST_ATK, F_MUST_DEF, F_OOC,
                    F_SPENT, G_ACTIVE, G_DEC, G_DEMOR, G_ELIM0, G_MAY0, G_MP, G_PHASE, G_PLAYER, G_RES, G_SEL,
                    G_SWAP_USED, G_TE_IN_CUP, G_TE_OPT, G_TURN, G_VIS, G_VIS_OPT, LF_MOVED, PHASE_NAMES,
                    RESULT_CODES)
from .victory import victory_points

PLANES = (
    "terrain_hilltop", "terrain_slope", "terrain_town", "terrain_woods",
    "own_infantry", "own_cavalry", "own_disrupted", "own_leader", "own_artillery", "own_active_corps",
    "own_done", "own_must_attack", "own_out_of_command", "own_zoc",
    "enemy_infantry", "enemy_cavalry", "enemy_disrupted", "enemy_leader", "enemy_artillery", "enemy_attacked",
    "enemy_must_be_attacked", "enemy_zoc",
    "selected_piece", "attack_attackers", "attack_defenders", "artillery_targets",
)
MAX_STRENGTH = 16.0   # strengths (with a leader) are scaled by this and clipped to 1
VP_SCALE = 200.0


def make_layout(D) -> ObservationLayout:
    features = [
        ("turn", D.turns), ("phase", len(PHASE_NAMES)), ("decision", len(DECISION_KEYS)), ("to_move", 1),
        ("i_am_imperial", 1), ("visibility", 3), ("corps_in_cup", D.n_corps), ("active_corps", D.n_corps),
        ("turn_ends", 2), ("swap_used", 1), ("may_move", 2), ("demoralized", len(D.army_ids)),
        ("demoralization_progress", len(D.army_ids)), ("victory_points", 2), ("mp_left", 1),
        ("pending_result", len(RESULT_CODES)),
    ]
    return ObservationLayout(D.grid.n, PLANES, features)


def unit_tables(D) -> dict[str, np.ndarray]:
    """Per-unit constants as arrays (vectorised observation)."""
    return {
        "side": np.asarray(D.unit_side), "kind": np.asarray(D.unit_kind), "corps": np.asarray(D.unit_corps),
        "str": np.asarray(D.unit_strength, dtype=np.float32), "dstr": np.asarray(D.unit_dstrength, dtype=np.float32),
        "nb": D.grid.neighbors.astype(np.int64),
    }


def static_planes(E) -> dict[str, np.ndarray]:
    D = E.D
    out = {}
    for name, t in (("terrain_hilltop", "hilltop"), ("terrain_slope", "slope"), ("terrain_town", "town"),
                    ("terrain_woods", "woods")):
        out[name] = np.array([1.0 if x == t else 0.0 for x in D.hex_terrain_name], dtype=np.float32)
    return out


def observe(E, s, player: int) -> np.ndarray:
    """The observation of ``player``.

    The planes depend only on the pieces' arrays (the state's buffer up to ``a_target``), the active
    corps and the selected piece; many decisions leave those alone, so the planes are cached per
    observer, keyed by those bytes, and only the global features are written each time.
    """
    g = s.g.tolist()
    key = (s.buf[:E._obs_pieces_end].tobytes(), g[G_ACTIVE], g[G_SEL])
    cache = E.__dict__.setdefault("_obs_cache", [None, None])
    if cache[player] is None or cache[player][0] != key:
        cache[player] = (key, _planes(E, s, player, g))
    obs = cache[player][1].copy()
    _features(E, s, player, g, obs)
    return obs


class PlaneIndex:
    """Flat offsets of each plane, per-unit constants and the terrain-only base vector."""

    def __init__(self, E):
        D, lay = E.D, E.obs_layout
        H = lay.n_hexes
        self.H = H
        self.at = {name: i * H for i, name in enumerate(lay.planes)}
        self.planes_end = len(lay.planes) * H
        self.base = lay.new()
        P = lay.planes_view(self.base)
        for name, arr in static_planes(E).items():
            P[lay.planes.index(name)] = arr
        T = unit_tables(D)
        self.side, self.corps = T["side"], T["corps"]
        self.is_inf = T["kind"] == 0
        self.strength = np.minimum(np.stack([T["str"], T["dstr"]]) / MAX_STRENGTH, 1.0)  # [disrupted][unit]
        self.nb = np.vstack([D.grid.neighbors.astype(np.int64), np.full((1, 6), -1, np.int64)])
        at = self.at
        # [own?] -> plane offsets, so a unit's planes are picked by its side relative to the observer
        self.inf_at = np.array([at["enemy_infantry"], at["own_infantry"]])
        self.cav_at = np.array([at["enemy_cavalry"], at["own_cavalry"]])
        self.dis_at = np.array([at["enemy_disrupted"], at["own_disrupted"]])
        self.zoc_at = np.array([at["enemy_zoc"], at["own_zoc"]])


def _planes(E, s, player: int, g: list) -> np.ndarray:
    """An observation vector holding only the planes (features zero).

    Vectorised: every unit on the map contributes (plane offset + hex) indices; strengths are
    scattered in ascending order (a stack shows its strongest unit) and the 0/1 planes are set with
    one scatter.
    """
    X = E.__dict__.get("_obs_index")
    if X is None:
        X = E._obs_index = PlaneIndex(E)
    D, at = E.D, X.at
    obs = X.base.copy()
    uh, ud, uf = s.u_hex, s.u_dis, s.u_flags
    u = np.flatnonzero(uh >= 0)
    h, d, f = uh[u], ud[u] == 1, uf[u]
    own = (X.side[u] == player).astype(np.int64)
    strength_at = np.where(X.is_inf[u], X.inf_at[own], X.cav_at[own]) + h
    strength = X.strength[d.astype(np.int64), u]
    order = np.argsort(strength, kind="stable")
    obs[strength_at[order]] = strength[order]

    ones = [X.dis_at[own[d]] + h[d]]
    zoc = X.nb[h[~d]]                              # (n, 6) neighbours of undisrupted units
    ones.append((X.zoc_at[own[~d]][:, None] + zoc)[zoc >= 0])
    mine, foe = own == 1, own == 0
    active = g[G_ACTIVE]
    if active >= 0:
        ones.append(at["own_active_corps"] + h[mine & (X.corps[u] == active)])
    ones.append(at["own_done"] + h[mine & ((f & (F_MOVED | F_SPENT | F_ATK)) != 0)])
    ones.append(at["own_must_attack"] + h[mine & ((f & F_MUST_ATK) != 0) & ((f & F_ATK) == 0)])
    ones.append(at["own_out_of_command"] + h[mine & ((f & F_OOC) != 0)])
    ones.append(at["enemy_attacked"] + h[foe & ((f & F_DEF) != 0)])
    ones.append(at["enemy_must_be_attacked"] + h[foe & ((f & F_MUST_DEF) != 0) & ((f & F_DEF) == 0)])
    in_atk = (f & F_IN_ATK) != 0
    if active >= 0 and in_atk.any():
        att_side = X.side[u] == D.corps_side[active]
        ones.append(at["attack_attackers"] + h[in_atk & att_side])
        ones.append(at["attack_defenders"] + h[in_atk & ~att_side])
    obs[np.concatenate(ones)] = 1.0

    for l, lh in enumerate(s.l_hex.tolist()):
        if lh >= 0:
            i = at["own_leader" if D.leader_side[l] == player else "enemy_leader"] + lh
            obs[i] = max(obs[i], D.leader_value[l] / 3.0)
            if D.leader_corps[l] == active and D.leader_side[l] == player and not s.l_flags[l] & LF_MOVED:
                obs[at["own_active_corps"] + lh] = 1.0
    for ah, owner, target in zip(s.a_hex.tolist(), s.a_owner.tolist(), s.a_target.tolist()):
        if ah >= 0:
            obs[at["own_artillery" if owner == player else "enemy_artillery"] + ah] = 1.0
        if target >= 0:
            obs[at["artillery_targets"] + target] = 1.0
    sel = g[G_SEL]
    if sel >= 0:
        sh = int(uh[sel]) if sel < D.n_units else int(s.l_hex[sel - D.n_units])
        if sh >= 0:
            obs[at["selected_piece"] + sh] = 1.0
    return obs


def _features(E, s, player: int, g: list, obs: np.ndarray) -> None:
    """Write the global features into ``obs``."""
    D = E.D
    sl = E.obs_layout.slices
    active = g[G_ACTIVE]

    def put(name, k, v=1.0):
        obs[sl[name].start + k] = v

    put("turn", min(max(g[G_TURN], 1), D.turns) - 1)
    put("phase", g[G_PHASE])
    put("decision", g[G_DEC])
    if g[G_PLAYER] == player:
        put("to_move", 0)
    if player == 1:
        put("i_am_imperial", 0)
    if g[G_VIS_OPT]:
        put("visibility", g[G_VIS])
    else:
        put("visibility", 0)
    for c, x in enumerate(s.cup.tolist()):
        if x:
            put("corps_in_cup", c)
    if active >= 0:
        put("active_corps", active)
    if g[G_TE_OPT]:
        put("turn_ends", 0)
    if g[G_TE_IN_CUP]:
        put("turn_ends", 1)
    if g[G_SWAP_USED]:
        put("swap_used", 0)
    put("may_move", 0, float(g[G_MAY0 + player]))
    put("may_move", 1, float(g[G_MAY0 + 1 - player]))
    for a in range(len(D.army_ids)):
        if g[G_DEMOR] >> a & 1:
            put("demoralized", a)
        put("demoralization_progress", a, min(1.0, g[G_ELIM0 + a] / D.demor_level[a]))
    vp = victory_points(D, s)
    put("victory_points", 0, min(1.0, vp[player] / VP_SCALE))
    put("victory_points", 1, min(1.0, vp[1 - player] / VP_SCALE))
    if g[G_MP] >= 0:
        put("mp_left", 0, min(1.0, g[G_MP] / 9.0))
    put("pending_result", g[G_RES])
