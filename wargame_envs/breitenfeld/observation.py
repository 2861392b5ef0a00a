"""Observations: named planes over the 598 hexes plus named global features, all in [0, 1], from the
observing player's perspective ("own" = the observer's pieces, "enemy" = the other side's).

Breitenfeld has no hidden information: both players see the whole board, the chit cup and the pending
decision. The layout (names, offsets) is ``engine.obs_layout``; ``obs_layout.describe()`` prints it.

:func:`observe` draws the pieces with a compiled kernel (``core.jit``) on a template holding the terrain;
:func:`observe_reference` builds the same vector from scratch in Python (the specification the tests
compare :func:`observe` with at every step of random games).
"""

from __future__ import annotations

import numpy as np

from ..core.jit import kernel
from ..core.observation import ObservationLayout
from .state import (DECISION_KEYS, F_ATK, F_DEF, F_IN_ATK, F_MOVED, F_MUST_ATK, F_MUST_DEF, F_OOC, F_SPENT,
                    G_ACTIVE, G_ATTACK, G_DEC, G_DEMOR, G_ELIM0, G_MAY0, G_MP, G_PHASE, G_PLAYER, G_RES, G_SEL,
                    G_SWAP_USED, G_TE_IN_CUP, G_TE_OPT, G_TURN, G_VIS, G_VIS_OPT, G_VP0, LF_MOVED, PHASE_NAMES,
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


def make_layout(D) -> ObservationLayout:
    features = [
        ("turn", D.turns), ("phase", len(PHASE_NAMES)), ("decision", len(DECISION_KEYS)), ("to_move", 1),
        ("i_am_imperial", 1), ("visibility", 3), ("corps_in_cup", D.n_corps), ("active_corps", D.n_corps),
        ("turn_ends", 2), ("swap_used", 1), ("may_move", 2), ("demoralized", len(D.army_ids)),
        ("demoralization_progress", len(D.army_ids)), ("victory_points", 2), ("mp_left", 1),
        ("pending_result", len(RESULT_CODES)), ("attack_choices", 3),
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
        n = D.n_units
        strength = np.minimum(np.asarray([D.unit_strength, D.unit_dstrength], dtype=np.float32) / MAX_STRENGTH, 1.0)
        layout = {name: (a, b) for name, a, b, _ in E.state_class._layout}
        # --- the tables of the kernel (see _draw_pieces), per observer where they differ
        self.template = E.obs_layout.new()
        self.template[self.terrain_slice] = self.terrain
        self.spans = np.array([layout[name][0] for name in
                               ("u_hex", "u_dis", "u_flags", "l_hex", "l_flags", "a_hex", "a_owner", "a_target")])
        self.units = tuple(np.array([
            [at[("own_" if D.unit_side[u] == p else "enemy_") + ("cavalry" if D.unit_kind[u] else "infantry")] for u in range(n)],
            [int(D.unit_side[u] == p) for u in range(n)], list(D.unit_corps), list(D.unit_side)], dtype=np.int64) for p in (0, 1))
        self.strengths = strength
        self.leaders = tuple(np.array([
            [at["own_leader" if side == p else "enemy_leader"] for side in D.leader_side],
            [int(side == p) for side in D.leader_side], list(D.leader_corps)], dtype=np.int64) for p in (0, 1))
        self.leader_values = np.asarray(D.leader_value, dtype=np.float32) / 3.0
        self.planes = np.array([at[name] for name in KERNEL_PLANES], dtype=np.int64)
        # what the slow features read: guns (hexes, owners), the cup and some globals (the mask keeps those)
        self.features_span = slice(layout["a_hex"][0], layout["g"][1])
        read = set(range(layout["a_hex"][0], layout["a_owner"][1])) | set(range(*layout["cup"]))
        g0 = layout["g"][0]
        read |= {g0 + i for i in (G_TURN, G_PHASE, G_VIS, G_VIS_OPT, G_ACTIVE, G_TE_OPT, G_TE_IN_CUP, G_SWAP_USED,
                                  G_MAY0, G_MAY0 + 1, G_DEMOR, G_VP0, G_VP0 + 1, *(G_ELIM0 + a for a in range(len(D.demor_level))))}
        self.features_mask = np.array([-1 if i in read else 0 for i in range(self.features_span.start, self.features_span.stop)],
                                      dtype=np.int32)
        self.features_cache: dict = {}
        # --- arrays for the vectorised reference
        self.corps = np.asarray(D.unit_corps)
        self.is_inf = np.asarray(D.unit_kind) == 0
        self.strength_array = strength
        self.nb = np.vstack([D.grid.neighbors.astype(np.int64), np.full((1, 6), -1, np.int64)])
        self.inf_at = np.array([at["enemy_infantry"], at["own_infantry"]])
        self.cav_at = np.array([at["enemy_cavalry"], at["own_cavalry"]])
        self.dis_at = np.array([at["enemy_disrupted"], at["own_disrupted"]])
        self.zoc_at_array = np.array([at["enemy_zoc"], at["own_zoc"]])


def tables(E) -> ObsTables:
    T = E.__dict__.get("_obs_tables")
    if T is None:
        T = E._obs_tables = ObsTables(E)
    return T


# ------------------------------------------------------------------ fast
def observe(E, s, player: int) -> np.ndarray:
    """The observation of ``player``: the terrain planes from a template, the pieces drawn by a
    compiled kernel, the selected piece, then the global features."""
    T = tables(E)
    g = s.g.tolist()
    obs = T.template.copy()
    active = g[G_ACTIVE]
    _draw_pieces(obs, s.buf, T.spans, T.units[player], T.strengths, T.leaders[player], T.leader_values, T.planes,
                 E.D.grid.neighbors, player, active, E.D.corps_side[active] if active >= 0 else -1)
    for i in _selected(E, T, s, g):
        obs[i] = 1.0
    obs[T.feature_block] = _cached_slow_features(E, T, s, player, g)
    _write_decision_features(T, player, g, obs, T.feature_block.start)
    return obs


# The plane offsets the kernel reads, in this order (``ObsTables.planes``).
KERNEL_PLANES = ("enemy_disrupted", "own_disrupted", "enemy_zoc", "own_zoc", "own_active_corps", "own_done",
                 "own_must_attack", "own_out_of_command", "enemy_attacked", "enemy_must_be_attacked",
                 "attack_attackers", "attack_defenders", "enemy_artillery", "own_artillery", "artillery_targets")
(P_DISRUPTED, _, P_ZOC, _, P_ACTIVE_CORPS, P_DONE, P_MUST_ATTACK, P_OUT_OF_COMMAND, P_ATTACKED, P_MUST_BE_ATTACKED,
 P_ATTACKERS, P_DEFENDERS, P_ARTILLERY, _, P_TARGETS) = range(len(KERNEL_PLANES))


@kernel
def _draw_pieces(obs, buf, spans, units, strengths, leaders, leader_values, planes, neighbors, player, active,
                 active_side):
    """Set the pieces' marks in ``obs`` (terrain only there).

    ``buf``: the state's buffer; ``spans``: where u_hex, u_dis, u_flags, l_hex, l_flags, a_hex,
    a_owner, a_target start in it; ``units[:, u]``: its strength plane offset, whether it is the
    observer's, its corps and side; ``strengths[d, u]``: its strength (``d``: disrupted) scaled to
    [0, 1]; ``leaders[:, l]``: its plane offset, whether the observer's, its corps; ``leader_values[l]``:
    its value / 3; ``planes``: the offsets of :data:`KERNEL_PLANES` (``P_*`` index them; own planes
    follow their enemy twins); ``neighbors[h]``: the six neighbours (-1 off-map); ``active``: the
    active corps (-1 none), ``active_side`` its side. A hex shows its strongest unit of each kind and
    its best leader.
    """
    for u in range(units.shape[1]):
        h = buf[spans[0] + u]
        if h < 0:
            continue
        disrupted = buf[spans[1] + u] == 1
        flags = buf[spans[2] + u]
        own = units[1, u]
        i = units[0, u] + h
        v = strengths[1 if disrupted else 0, u]
        if v > obs[i]:
            obs[i] = v
        if disrupted:
            obs[planes[P_DISRUPTED + own] + h] = 1.0
        else:  # 7.1: an undisrupted unit's ZOC covers the six hexes around it
            zoc = planes[P_ZOC + own]
            for d in range(6):
                t = neighbors[h, d]
                if t >= 0:
                    obs[zoc + t] = 1.0
        if own:
            if units[2, u] == active:
                obs[planes[P_ACTIVE_CORPS] + h] = 1.0
            if flags & (F_MOVED | F_SPENT | F_ATK):
                obs[planes[P_DONE] + h] = 1.0
            if flags & F_MUST_ATK and not flags & F_ATK:
                obs[planes[P_MUST_ATTACK] + h] = 1.0
            if flags & F_OOC:
                obs[planes[P_OUT_OF_COMMAND] + h] = 1.0
        else:
            if flags & F_DEF:
                obs[planes[P_ATTACKED] + h] = 1.0
            if flags & F_MUST_DEF and not flags & F_DEF:
                obs[planes[P_MUST_BE_ATTACKED] + h] = 1.0
        if active >= 0 and flags & F_IN_ATK:  # the attack being declared
            obs[planes[P_ATTACKERS if units[3, u] == active_side else P_DEFENDERS] + h] = 1.0
    for l in range(leaders.shape[1]):
        h = buf[spans[3] + l]
        if h < 0:
            continue
        i = leaders[0, l] + h
        if leader_values[l] > obs[i]:
            obs[i] = leader_values[l]
        if leaders[1, l] and leaders[2, l] == active and not buf[spans[4] + l] & LF_MOVED:
            obs[planes[P_ACTIVE_CORPS] + h] = 1.0
    n_guns = spans[6] - spans[5]
    for a in range(n_guns):
        h = buf[spans[5] + a]
        if h >= 0:
            obs[planes[P_ARTILLERY + (buf[spans[6] + a] == player)] + h] = 1.0
        target = buf[spans[7] + a]
        if target >= 0:
            obs[planes[P_TARGETS] + target] = 1.0


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
    f = _slow_features(E, T, s, player, g)
    _write_decision_features(T, player, g, f, 0)
    return f


def _slow_features(E, T: ObsTables, s, player: int, g: list) -> list[float]:
    """The features that change at most a few times per activation (all but the pending decision's)."""
    D, F = E.D, T.feature_at
    f = [0.0] * T.n_features
    f[F["turn"] + min(max(g[G_TURN], 1), D.turns) - 1] = 1.0
    f[F["phase"] + g[G_PHASE]] = 1.0
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
    return f


def _write_decision_features(T: ObsTables, player: int, g: list, out, base: int) -> None:
    """Set the pending decision's features (kind, whose, MP left, pending result, the attack's choices made:
    charge, attacker's leaders, defender's leaders) in ``out`` (a feature
    list, ``base`` 0, or the observation, ``base`` the feature block's start), zeros there."""
    F = T.feature_at
    out[base + F["decision"] + g[G_DEC]] = 1.0
    if g[G_PLAYER] == player:
        out[base + F["to_move"]] = 1.0
    if g[G_MP] >= 0:
        out[base + F["mp_left"]] = min(1.0, g[G_MP] / 9.0)
    out[base + F["pending_result"] + g[G_RES]] = 1.0
    for bit in range(3):
        if g[G_ATTACK] >> bit & 1:
            out[base + F["attack_choices"] + bit] = 1.0


def _cached_slow_features(E, T: ObsTables, s, player: int, g: list) -> np.ndarray:
    """:func:`_slow_features` as a float32 array, memoised on what they read (guns, cup, some globals)."""
    key = (player, (s.buf[T.features_span] & T.features_mask).tobytes())
    f = T.features_cache.get(key)
    if f is None:
        if len(T.features_cache) >= FEATURES_CACHE_SIZE:
            T.features_cache.clear()
        f = T.features_cache[key] = np.asarray(_slow_features(E, T, s, player, g), dtype=np.float32)
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
    own = (D.unit_side_array[u] == player).astype(np.int64)
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
        att_side = D.unit_side_array[u] == D.corps_side[active]
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
