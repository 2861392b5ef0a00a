"""Observations: named planes over the 598 hexes plus named global features, all in [0, 1], from the
observing player's perspective ("own" = the observer's pieces, "enemy" = the other side's).

Breitenfeld has no hidden information: both players see the whole board, the chit cup and the pending
decision. The layout (names, offsets) is ``engine.obs_layout``; ``obs_layout.describe()`` prints it.

:func:`observe` keeps each observer's planes in a :class:`~wargame_envs.core.planes.PlaneBuffer` and
redraws only the units, leaders and guns whose key changed since that observer's last call;
:func:`observe_reference` builds the same vector from scratch (the specification the tests compare
:func:`observe` with at every step of random games).
"""

from __future__ import annotations

import numpy as np

from ..core.observation import ObservationLayout
from ..core.planes import PlaneBuffer, plane_buffers
from .state import (DECISION_KEYS, F_ATK, F_DEF, F_IN_ATK, F_MOVED, F_MUST_ATK, F_MUST_DEF, F_OOC, F_SPENT,
                    G_ACTIVE, G_DEC, G_DECISIONS, G_DEMOR, G_ELIM0, G_MAY0, G_MP, G_PHASE, G_PLAYER, G_RES, G_SEL,
                    G_SWAP_USED, G_TE_IN_CUP, G_TE_OPT, G_TURN, G_VIS, G_VIS_OPT, LF_MOVED, N_GLOBALS, PHASE_NAMES,
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
TERRAIN_PLANES = (("terrain_hilltop", "hilltop"), ("terrain_slope", "slope"), ("terrain_town", "town"),
                  ("terrain_woods", "woods"))
FEATURES_CACHE_SIZE = 256
MAX_STRENGTH = 16.0   # strengths (with a leader) are scaled by this and clipped to 1
VP_SCALE = 200.0

# The unit flags the status planes show, for the observer's units and for the enemy's.
OWN_MARK_FLAGS = F_MOVED | F_SPENT | F_ATK | F_MUST_ATK | F_OOC
ENEMY_MARK_FLAGS = F_DEF | F_MUST_DEF


def make_layout(D) -> ObservationLayout:
    features = [
        ("turn", D.turns), ("phase", len(PHASE_NAMES)), ("decision", len(DECISION_KEYS)), ("to_move", 1),
        ("i_am_imperial", 1), ("visibility", 3), ("corps_in_cup", D.n_corps), ("active_corps", D.n_corps),
        ("turn_ends", 2), ("swap_used", 1), ("may_move", 2), ("demoralized", len(D.army_ids)),
        ("demoralization_progress", len(D.army_ids)), ("victory_points", 2), ("mp_left", 1),
        ("pending_result", len(RESULT_CODES)),
    ]
    return ObservationLayout(D.grid.n, PLANES, features)


class ObsTables:
    """Per-engine constants of the observation: flat plane offsets, per-piece tables (Python values for
    the per-piece contributions, arrays for the vectorised reference) and the feature offsets."""

    def __init__(self, E):
        D, lay = E.D, E.obs_layout
        H = lay.n_hexes
        self.at = at = {name: i * H for i, name in enumerate(lay.planes)}
        self.terrain = np.concatenate([[1.0 if x == t else 0.0 for x in D.hex_terrain_name] for _, t in TERRAIN_PLANES]
                                      ).astype(np.float32)
        self.terrain_slice = slice(0, len(TERRAIN_PLANES) * H)
        assert [lay.planes.index(name) for name, _ in TERRAIN_PLANES] == list(range(len(TERRAIN_PLANES)))
        self.feature_block = slice(lay.plane_block.stop, lay.size)
        self.n_features = lay.size - lay.plane_block.stop
        self.feature_at = {name: lay.slices[name].start - lay.plane_block.stop for name, _ in lay.features}
        self.adjacent = D.grid.adjacent
        n = D.n_units
        strength = np.minimum(np.asarray([D.unit_strength, D.unit_dstrength], dtype=np.float32) / MAX_STRENGTH, 1.0)
        # --- per unit, per observer (index [player][unit]) / per "own?" (index [own])
        self.unit_own = tuple(tuple(D.unit_side[u] == p for u in range(n)) for p in (0, 1))
        self.strength_at = tuple(tuple(at[("own_" if own else "enemy_") + ("cavalry" if D.unit_kind[u] else "infantry")]
                                       for u, own in enumerate(owns)) for owns in self.unit_own)
        self.strength = tuple(tuple(row) for row in strength.tolist())          # [disrupted][unit]
        self.disrupted_at = (at["enemy_disrupted"], at["own_disrupted"])
        self.zoc_at = (at["enemy_zoc"], at["own_zoc"])
        self.leader_at = (at["enemy_leader"], at["own_leader"])
        self.artillery_at = (at["enemy_artillery"], at["own_artillery"])
        self.leader_value = tuple(v / 3.0 for v in D.leader_value)
        self.leader_side = D.leader_side
        self.unit_side, self.corps_side = D.unit_side, D.corps_side
        # --- per observer and corps: (its units, its leaders) on the observer's side
        self.corps_pieces = tuple(tuple(
            (np.asarray([u for u in range(n) if D.unit_corps[u] == c and D.unit_side[u] == p], dtype=np.int64),
             tuple(l for l in range(D.n_leaders) if D.leader_corps[l] == c and D.leader_side[l] == p))
            for c in range(D.n_corps)) for p in (0, 1))
        # per observer, "& mask" of the unit arrays (hex, disrupted, flags) -> the key of the unit marks
        # (hex, 0, the flags its marks show)
        self.mark_key_mask = tuple(np.concatenate([np.full(n, -1), np.zeros(n), [
            OWN_MARK_FLAGS if own else ENEMY_MARK_FLAGS for own in owns]]).astype(np.int32) for owns in self.unit_own)
        layout = {name: (a, b) for name, a, b, _ in E.state_class._layout}
        self.unit_span = slice(layout["u_hex"][0], layout["u_flags"][1])
        self.body_span = slice(layout["u_hex"][0], layout["u_dis"][1])
        assert self.unit_span == slice(0, 3 * n)
        self.artillery_span = slice(layout["a_hex"][0], layout["a_target"][1])
        self.pieces_span = slice(0, layout["a_target"][1])                  # every piece array
        assert G_DECISIONS == N_GLOBALS - 1
        self.features_span = slice(layout["a_hex"][0], layout["g"][0] + G_DECISIONS)  # guns, cup, globals
        self.synced: list = [None, None]           # per observer: what its plane buffer shows
        self.features_cache: dict = {}
        # --- arrays for the vectorised reference
        self.side, self.corps = np.asarray(D.unit_side), np.asarray(D.unit_corps)
        self.is_inf = np.asarray(D.unit_kind) == 0
        self.strength_array = strength
        self.nb = np.vstack([D.grid.neighbors.astype(np.int64), np.full((1, 6), -1, np.int64)])
        self.inf_at = np.array([at["enemy_infantry"], at["own_infantry"]])
        self.cav_at = np.array([at["enemy_cavalry"], at["own_cavalry"]])
        self.dis_at = np.array(self.disrupted_at)
        self.zoc_at_array = np.array(self.zoc_at)


def tables(E) -> ObsTables:
    T = E.__dict__.get("_obs_tables")
    if T is None:
        T = E._obs_tables = ObsTables(E)
    return T


# ------------------------------------------------------------------ incremental
def observe(E, s, player: int) -> np.ndarray:
    """The observation of ``player``: planes from the observer's :class:`PlaneBuffer` (only the pieces
    whose key changed since its last call are redrawn), then the global features."""
    T = tables(E)
    g = s.g.tolist()
    obs = _synced_planes(E, T, s, player, g).copy()
    obs[T.feature_block] = _cached_features(E, T, s, player, g)
    return obs


def _synced_planes(E, T: ObsTables, s, player: int, g: list) -> PlaneBuffer:
    """The observer's plane buffer brought up to date with ``s``."""
    pb = plane_buffers(E, 2, lambda: PlaneBuffer(E.obs_layout.size, [(T.terrain_slice, T.terrain)]))[player]
    active = g[G_ACTIVE]
    pieces = (s.buf[T.pieces_span].tobytes(), active)
    if T.synced[player] != pieces:       # else the buffer already shows these pieces
        _sync_pieces(E, T, pb, s, player, active)
        T.synced[player] = pieces
    pb.layer("selected_piece", _selected(E, T, s, g))
    return pb


def _sync_pieces(E, T: ObsTables, pb: PlaneBuffer, s, player: int, active: int) -> None:
    D = E.D
    pb.sync("units", s.buf[T.body_span].copy(), D.n_units, lambda u, key: _unit_bits(T, player, u, key))
    pb.sync("unit_marks", s.buf[T.unit_span] & T.mark_key_mask[player], D.n_units,
            lambda u, key: _mark_bits(T, player, u, key))
    pb.sync("leaders", s.l_hex.copy(), D.n_leaders, lambda l, key: _leader_bits(T, player, l, key))
    pb.sync("artillery", s.buf[T.artillery_span].copy(), D.n_art, lambda a, key: _artillery_bits(T, player, key))
    pb.layer("own_active_corps", _active_corps_hexes(T, s, player, active))
    attackers, defenders = _attack_hexes(T, s, active)
    pb.layer("attack_attackers", attackers)
    pb.layer("attack_defenders", defenders)


def _unit_bits(T: ObsTables, player: int, u: int, key: list[int]) -> list[tuple[int, float]]:
    """Unit ``u``'s strength, and its disrupted mark or its ZOC."""
    h, dis = key
    if h < 0:
        return []
    own = T.unit_own[player][u]
    disrupted = dis == 1
    bits = [(T.strength_at[player][u] + h, T.strength[disrupted][u])]
    if disrupted:
        bits.append((T.disrupted_at[own] + h, 1.0))
    else:
        zoc = T.zoc_at[own]
        bits += [(zoc + j, 1.0) for j in T.adjacent[h]]
    return bits


def _mark_bits(T: ObsTables, player: int, u: int, key: list[int]) -> list[tuple[int, float]]:
    """Unit ``u``'s status marks (done, obligations, command; attacked)."""
    h, _, flags = key
    if h < 0:
        return []
    return [(T.at[plane] + h, 1.0) for plane in _unit_marks(T.unit_own[player][u], flags)]


def _unit_marks(own: bool, flags: int) -> list[str]:
    """The 0/1 planes a unit with these flags marks in its own hex."""
    marks = []
    if own:
        if flags & (F_MOVED | F_SPENT | F_ATK):
            marks.append("own_done")
        if flags & F_MUST_ATK and not flags & F_ATK:
            marks.append("own_must_attack")
        if flags & F_OOC:
            marks.append("own_out_of_command")
    else:
        if flags & F_DEF:
            marks.append("enemy_attacked")
        if flags & F_MUST_DEF and not flags & F_DEF:
            marks.append("enemy_must_be_attacked")
    return marks


def _leader_bits(T: ObsTables, player: int, l: int, key: list[int]) -> list[tuple[int, float]]:
    """A leader shows its value/3 (the best leader of a hex wins)."""
    h, = key
    if h < 0:
        return []
    return [(T.leader_at[T.leader_side[l] == player] + h, T.leader_value[l])]


def _artillery_bits(T: ObsTables, player: int, key: list[int]) -> list[tuple[int, float]]:
    h, owner, target = key
    bits = []
    if h >= 0:
        bits.append((T.artillery_at[owner == player] + h, 1.0))
    if target >= 0:
        bits.append((T.at["artillery_targets"] + target, 1.0))
    return bits


def _active_corps_hexes(T: ObsTables, s, player: int, active: int) -> list[int]:
    """The ``own_active_corps`` indices: the observer's units of the active corps and its leaders that
    have not moved yet."""
    if active < 0:
        return []
    base = T.at["own_active_corps"]
    units, leaders = T.corps_pieces[player][active]
    out = [base + h for h in s.u_hex[units].tolist() if h >= 0]
    for l in leaders:
        h = int(s.l_hex[l])
        if h >= 0 and not s.l_flags[l] & LF_MOVED:
            out.append(base + h)
    return out


def _attack_hexes(T: ObsTables, s, active: int) -> tuple[list[int], list[int]]:
    """The ``attack_attackers`` and ``attack_defenders`` indices of the attack being declared (units
    marked ``F_IN_ATK`` while a corps is active)."""
    members = (s.u_flags & F_IN_ATK).nonzero()[0].tolist() if active >= 0 else ()
    attackers, defenders = [], []
    for u in members:
        h = int(s.u_hex[u])
        if h >= 0:
            if T.unit_side[u] == T.corps_side[active]:
                attackers.append(T.at["attack_attackers"] + h)
            else:
                defenders.append(T.at["attack_defenders"] + h)
    return attackers, defenders


def _selected(E, T: ObsTables, s, g: list) -> list[int]:
    """The ``selected_piece`` index of the piece being moved (empty when none)."""
    sel = g[G_SEL]
    if sel < 0:
        return []
    nu = E.D.n_units
    h = int(s.u_hex[sel]) if sel < nu else int(s.l_hex[sel - nu])
    return [T.at["selected_piece"] + h] if h >= 0 else []


# ------------------------------------------------------------------ global features
def _features(E, T: ObsTables, s, player: int, g: list) -> list[float]:
    """The global features, as the list written into the feature block."""
    D, F = E.D, T.feature_at
    f = [0.0] * T.n_features
    f[F["turn"] + min(max(g[G_TURN], 1), D.turns) - 1] = 1.0
    f[F["phase"] + g[G_PHASE]] = 1.0
    f[F["decision"] + g[G_DEC]] = 1.0
    if g[G_PLAYER] == player:
        f[F["to_move"]] = 1.0
    if player == 1:
        f[F["i_am_imperial"]] = 1.0
    f[F["visibility"] + (g[G_VIS] if g[G_VIS_OPT] else 0)] = 1.0
    for c, x in enumerate(s.cup.tolist()):
        if x:
            f[F["corps_in_cup"] + c] = 1.0
    if g[G_ACTIVE] >= 0:
        f[F["active_corps"] + g[G_ACTIVE]] = 1.0
    if g[G_TE_OPT]:
        f[F["turn_ends"]] = 1.0
    if g[G_TE_IN_CUP]:
        f[F["turn_ends"] + 1] = 1.0
    if g[G_SWAP_USED]:
        f[F["swap_used"]] = 1.0
    f[F["may_move"]] = float(g[G_MAY0 + player])
    f[F["may_move"] + 1] = float(g[G_MAY0 + 1 - player])
    for a, level in enumerate(D.demor_level):
        if g[G_DEMOR] >> a & 1:
            f[F["demoralized"] + a] = 1.0
        f[F["demoralization_progress"] + a] = min(1.0, g[G_ELIM0 + a] / level)
    vp = victory_points(D, s)
    f[F["victory_points"]] = min(1.0, vp[player] / VP_SCALE)
    f[F["victory_points"] + 1] = min(1.0, vp[1 - player] / VP_SCALE)
    if g[G_MP] >= 0:
        f[F["mp_left"]] = min(1.0, g[G_MP] / 9.0)
    f[F["pending_result"] + g[G_RES]] = 1.0
    return f


def _cached_features(E, T: ObsTables, s, player: int, g: list) -> np.ndarray:
    """:func:`_features` as a float32 array, memoised on the arrays they are read from (guns, cup and
    globals; the decision counter aside): many decisions change none of them."""
    key = (player, s.buf[T.features_span].tobytes())
    f = T.features_cache.get(key)
    if f is None:
        if len(T.features_cache) >= FEATURES_CACHE_SIZE:
            T.features_cache.clear()
        f = T.features_cache[key] = np.asarray(_features(E, T, s, player, g), dtype=np.float32)
    return f


# ------------------------------------------------------------------ reference
def observe_reference(E, s, player: int) -> np.ndarray:
    """The same observation built from scratch (the specification :func:`observe` is tested against)."""
    T = tables(E)
    g = s.g.tolist()
    obs = _reference_planes(E, T, s, player, g)
    obs[T.feature_block] = _features(E, T, s, player, g)
    return obs


def _reference_planes(E, T: ObsTables, s, player: int, g: list) -> np.ndarray:
    """An observation vector holding only the planes (features zero).

    Vectorised: every unit on the map contributes (plane offset + hex) indices; strengths are
    scattered in ascending order (a stack shows its strongest unit) and the 0/1 planes are set with
    one scatter.
    """
    D, at = E.D, T.at
    obs = E.obs_layout.new()
    obs[T.terrain_slice] = T.terrain
    uh, ud, uf = s.u_hex, s.u_dis, s.u_flags
    u = np.flatnonzero(uh >= 0)
    h, d, f = uh[u], ud[u] == 1, uf[u]
    own = (T.side[u] == player).astype(np.int64)
    strength_at = np.where(T.is_inf[u], T.inf_at[own], T.cav_at[own]) + h
    strength = T.strength_array[d.astype(np.int64), u]
    order = np.argsort(strength, kind="stable")
    obs[strength_at[order]] = strength[order]

    ones = [T.dis_at[own[d]] + h[d]]
    zoc = T.nb[h[~d]]                              # (n, 6) neighbours of undisrupted units
    ones.append((T.zoc_at_array[own[~d]][:, None] + zoc)[zoc >= 0])
    mine, foe = own == 1, own == 0
    active = g[G_ACTIVE]
    if active >= 0:
        ones.append(at["own_active_corps"] + h[mine & (T.corps[u] == active)])
    ones.append(at["own_done"] + h[mine & ((f & (F_MOVED | F_SPENT | F_ATK)) != 0)])
    ones.append(at["own_must_attack"] + h[mine & ((f & F_MUST_ATK) != 0) & ((f & F_ATK) == 0)])
    ones.append(at["own_out_of_command"] + h[mine & ((f & F_OOC) != 0)])
    ones.append(at["enemy_attacked"] + h[foe & ((f & F_DEF) != 0)])
    ones.append(at["enemy_must_be_attacked"] + h[foe & ((f & F_MUST_DEF) != 0) & ((f & F_DEF) == 0)])
    in_atk = (f & F_IN_ATK) != 0
    if active >= 0 and in_atk.any():
        att_side = T.side[u] == D.corps_side[active]
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
