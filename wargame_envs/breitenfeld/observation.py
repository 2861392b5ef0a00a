"""Observations: named planes over the 598 hexes plus named global features, all in [0, 1], from the
observing player's perspective ("own" = the observer's pieces, "enemy" = the other side's).

Breitenfeld has no hidden information: both players see the whole board, the chit cup and the pending
decision. The layout (names, offsets) is ``engine.obs_layout``; ``obs_layout.describe()`` prints it.

:func:`write_observation` (compiled) draws the pieces as a list of entries, writes into the observation
only the entries that changed since its last write there (or the whole vector: the terrain template and
the entries), and the global features; the AEC engine and the batched API both call it. :func:`observe_reference`
builds the same vector from scratch in Python (the specification the tests compare it with at every step
of random games).
"""

from __future__ import annotations

import numpy as np

from collections import namedtuple

from ..core.jit import kernel
from ..core.observation import ObservationLayout
from .state import (DECISION_KEYS, F_ATK, F_DEF, F_IN_ATK, F_MOVED, F_MUST_ATK, F_MUST_DEF, F_OOC, F_SPENT,
                    G_ACTIVE, G_ATTACK, G_DEC, G_DEMOR, G_ELIM0, G_MAY0, G_MP, G_PHASE, G_PLAYER, G_RES, G_SEL,
                    G_SWAP_USED, G_TE_IN_CUP, G_TE_OPT, G_TURN, G_VIS, G_VIS_OPT, LF_MOVED, PHASE_NAMES,
                    RESULT_CODES)
from .tables import fields
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


# The plane offsets the kernel reads, in this order (``ObsKernelTables.planes``).
KERNEL_PLANES = ("enemy_disrupted", "own_disrupted", "enemy_zoc", "own_zoc", "own_active_corps", "own_done",
                 "own_must_attack", "own_out_of_command", "enemy_attacked", "enemy_must_be_attacked",
                 "attack_attackers", "attack_defenders", "enemy_artillery", "own_artillery", "artillery_targets",
                 "selected_piece")
(P_DISRUPTED, _, P_ZOC, _, P_ACTIVE_CORPS, P_DONE, P_MUST_ATTACK, P_OUT_OF_COMMAND, P_ATTACKED, P_MUST_BE_ATTACKED,
 P_ATTACKERS, P_DEFENDERS, P_ARTILLERY, _, P_TARGETS, P_SELECTED) = range(len(KERNEL_PLANES))
# The feature offsets the kernel reads, in layout order (``ObsKernelTables.features``).
KERNEL_FEATURES = ("turn", "phase", "decision", "to_move", "i_am_imperial", "visibility", "corps_in_cup",
                   "active_corps", "turn_ends", "swap_used", "may_move", "demoralized", "demoralization_progress",
                   "victory_points", "mp_left", "pending_result", "attack_choices")
(F_TURN, F_PHASE, F_DECISION, F_TO_MOVE, F_IMPERIAL, F_VISIBILITY, F_CUP, F_ACTIVE, F_TURN_ENDS, F_SWAP_USED,
 F_MAY_MOVE, F_DEMORALIZED, F_DEMOR_PROGRESS, F_VP, F_MP_LEFT, F_PENDING, F_CHOICES) = range(len(KERNEL_FEATURES))

ObsKernelTables = namedtuple("ObsKernelTables", (
    "template",      # float32 (size,): the terrain planes, zeros elsewhere
    "unit_plane",    # int64 (2, U): per observer, the offset of the unit's strength plane (own/enemy infantry/cavalry)
    "strengths",     # float32 (2, U): strength (row 1: disrupted) / MAX_STRENGTH, at most 1
    "leader_plane",  # int64 (2, L): per observer, the offset of the leader's plane (own/enemy)
    "leader_values",  # float32 (L,): leadership / 3
    "planes",        # int64: the offsets of KERNEL_PLANES
    "features",      # int64: the offsets of KERNEL_FEATURES
))


class ObsTables:
    """Per-engine constants of the observation: plane and feature offsets, the terrain, and the tables
    of the compiled writer (:attr:`kernel`) and of the vectorised reference."""

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
        template = E.obs_layout.new()
        template[self.terrain_slice] = self.terrain
        self.kernel = ObsKernelTables(
            template=template,
            unit_plane=np.array([[at[("own_" if D.unit_side[u] == p else "enemy_") +
                                     ("cavalry" if D.unit_kind[u] else "infantry")] for u in range(n)] for p in (0, 1)],
                                dtype=np.int64),
            strengths=strength,
            leader_plane=np.array([[at["own_leader" if side == p else "enemy_leader"] for side in D.leader_side]
                                   for p in (0, 1)], dtype=np.int64).reshape(2, D.n_leaders),
            leader_values=np.asarray(D.leader_value, dtype=np.float32) / 3.0,
            planes=np.array([at[name] for name in KERNEL_PLANES], dtype=np.int64),
            features=np.array([lay.slices[name].start for name in KERNEL_FEATURES], dtype=np.int64),
        )
        # --- arrays for the vectorised reference
        self.corps = np.asarray(D.unit_corps)
        self.is_inf = np.asarray(D.unit_kind) == 0
        self.strength_array = strength
        self.nb = np.vstack([D.grid.neighbors.astype(np.int64), np.full((1, 6), -1, np.int64)])
        self.inf_at = np.array([at["enemy_infantry"], at["own_infantry"]])
        self.cav_at = np.array([at["enemy_cavalry"], at["own_cavalry"]])
        self.dis_at = np.array([at["enemy_disrupted"], at["own_disrupted"]])
        self.zoc_at_array = np.array([at["enemy_zoc"], at["own_zoc"]])


def max_marks(D) -> int:
    """The most entries :func:`draw_pieces` lists: per unit its strength, its disrupted mark or ZOC (6), four
    own or two enemy marks and the attack; per leader its value and active mark; per gun its hex and
    target; the selected piece."""
    return 12 * D.n_units + 2 * D.n_leaders + 2 * D.n_art + 1


ObsScratch = namedtuple("ObsScratch", (
    "entries",  # int64 (max_marks): the entries drawn (:func:`draw_pieces`), then each listed once
    "values",   # float32 (max_marks): their values (then each entry's largest)
    "stamp",    # int32 (size + 1): per entry, the write that last listed it (STAMP_WRITE) and where (STAMP_AT);
                # the last item: the latest write
))
STAMP_WRITE, STAMP_SAME, STAMP_AT = 1 << 16, 1 << 15, (1 << 15) - 1   # write number, unchanged bit, list position


def new_scratch(E) -> ObsScratch:
    """The working memory of :func:`write_observation` (one per writer: the engine, a batch)."""
    m = max_marks(E.D)
    assert m <= STAMP_AT
    return ObsScratch(np.zeros(m, np.int64), np.zeros(m, np.float32), np.zeros(E.obs_layout.size + 1, np.int32))


def new_marks(rows: int, D) -> tuple[np.ndarray, np.ndarray]:
    """``(marks, marked)`` for ``rows`` observation rows not written yet (see :func:`write_observation`)."""
    marks = np.zeros((rows, 1 + max_marks(D)), np.int32)
    marks[:, 0] = -1
    return marks, np.zeros((rows, max_marks(D)), np.float32)


def tables(E) -> ObsTables:
    T = E.__dict__.get("_obs_tables")
    if T is None:
        T = E._obs_tables = ObsTables(E)
    return T


# ------------------------------------------------------------------ compiled
@kernel
def write_observation(buf, T, O, S, player, obs, marks, marked):
    """Write ``player``'s observation of the state ``buf`` into ``obs``: the terrain, the pieces, the
    selected piece, the global features. ``S``: the writer's scratch (:class:`ObsScratch`).

    The pieces are drawn as a list of entries (:func:`draw_pieces`), then each entry is listed once with
    its largest value. ``marks`` (int32) and ``marked`` (float32) remember the list of the last write into
    this very ``obs``: ``marks[0]`` its length (-1: not written yet), the entries after it, their values
    in ``marked``. The two lists' common head and tail are unchanged; an entry of one list's middle is
    nowhere else in the other list (each lists an entry once), so only the middles are cleared or
    written (a row is 62 KB; most decisions change a few entries). ``marks[0] == -1``, or a ``marks`` of
    size 1 (nothing remembered), writes the whole vector. (The loops call no function with arrays:
    numba counts references to arrays passed to a call.)"""
    drawn = draw_pieces(buf, T, O, player, S.entries, S.values)
    entries, values, stamp = S.entries, S.values, S.stamp
    gen = stamp[stamp.size - 1] + 1                    # this write's number (15 bits; then the stamps restart)
    if gen * STAMP_WRITE >= 1 << 31:
        stamp[:] = 0
        gen = 1
    stamp[stamp.size - 1] = gen
    tag = gen * STAMP_WRITE
    n = 0
    for k in range(drawn):                             # each entry once, with its largest value
        i = entries[k]
        st = stamp[i]
        if st - (st & (STAMP_WRITE - 1)) != tag:
            stamp[i] = tag + n
            entries[n] = i
            values[n] = values[k]
            n += 1
        elif values[k] > values[st & STAMP_AT]:
            values[st & STAMP_AT] = values[k]
    old = marks[0] if marks.size > 1 else -1
    lo, stored = 0, n                                  # marks[1 + lo:1 + stored] to rewrite
    if old >= 0:
        top = min(old, n)
        while lo < top and marks[1 + lo] == entries[lo] and marked[lo] == values[lo]:
            lo += 1
        hi = 0
        while hi < top - lo and marks[old - hi] == entries[n - 1 - hi] and marked[old - 1 - hi] == values[n - 1 - hi]:
            hi += 1
        for k in range(lo, old - hi):                  # the last write's middle: gone (cleared) or unchanged
            i = marks[1 + k]
            st = stamp[i]
            if st - (st & (STAMP_WRITE - 1)) != tag:
                obs[i] = 0.0
            elif values[st & STAMP_AT] == marked[k]:
                stamp[i] = st | STAMP_SAME
        for k in range(lo, n - hi):
            if not stamp[entries[k]] & STAMP_SAME:
                obs[entries[k]] = values[k]
        if n == old:
            stored = n - hi                            # the tail stays where it is in ``marks``
    else:
        obs[:] = O.template
        for k in range(n):
            obs[entries[k]] = values[k]
    if marks.size > 1:
        for k in range(lo, stored):
            marks[1 + k] = entries[k]
            marked[k] = values[k]
        marks[0] = n
    obs[O.features[F_TURN]:] = 0.0
    write_features(buf, T, O, player, obs)


@kernel
def draw_pieces(buf, T, O, player, entries, values):
    """The pieces' entries (plane offset + hex) and values into ``entries``, ``values`` (an entry may come
    more than once: a hex shows its strongest unit of each kind and its best leader, and a hex in two
    ZOCs is set once); returns their number. Own planes follow their enemy twins in :data:`KERNEL_PLANES`."""
    u_hex, u_dis, u_flags, _, l_hex, l_flags, a_hex, a_owner, a_target, _, g = fields(buf, T)
    planes = O.planes
    n = 0
    active = g[G_ACTIVE]
    active_side = T.corps_side[active] if active >= 0 else -1
    for u in range(T.nu):
        h = u_hex[u]
        if h < 0:
            continue
        disrupted = u_dis[u] == 1
        flags = u_flags[u]
        own = 1 if T.unit_side[u] == player else 0
        entries[n], values[n] = O.unit_plane[player, u] + h, O.strengths[1 if disrupted else 0, u]
        n += 1
        if disrupted:
            entries[n], values[n] = planes[P_DISRUPTED + own] + h, 1.0
            n += 1
        else:  # 7.1: an undisrupted unit's ZOC covers the six hexes around it
            zoc = planes[P_ZOC + own]
            for d in range(6):
                t = T.neighbors[h, d]
                if t >= 0:
                    entries[n], values[n] = zoc + t, 1.0
                    n += 1
        if own:
            if T.unit_corps[u] == active:
                entries[n], values[n] = planes[P_ACTIVE_CORPS] + h, 1.0
                n += 1
            if flags & (F_MOVED | F_SPENT | F_ATK):
                entries[n], values[n] = planes[P_DONE] + h, 1.0
                n += 1
            if flags & F_MUST_ATK and not flags & F_ATK:
                entries[n], values[n] = planes[P_MUST_ATTACK] + h, 1.0
                n += 1
            if flags & F_OOC:
                entries[n], values[n] = planes[P_OUT_OF_COMMAND] + h, 1.0
                n += 1
        else:
            if flags & F_DEF:
                entries[n], values[n] = planes[P_ATTACKED] + h, 1.0
                n += 1
            if flags & F_MUST_DEF and not flags & F_DEF:
                entries[n], values[n] = planes[P_MUST_BE_ATTACKED] + h, 1.0
                n += 1
        if active >= 0 and flags & F_IN_ATK:  # the attack being declared
            entries[n] = planes[P_ATTACKERS if T.unit_side[u] == active_side else P_DEFENDERS] + h
            values[n] = 1.0
            n += 1
    for l in range(T.nl):
        h = l_hex[l]
        if h < 0:
            continue
        entries[n], values[n] = O.leader_plane[player, l] + h, O.leader_values[l]
        n += 1
        if T.leader_side[l] == player and T.leader_corps[l] == active and not l_flags[l] & LF_MOVED:
            entries[n], values[n] = planes[P_ACTIVE_CORPS] + h, 1.0
            n += 1
    for a in range(T.na):
        h = a_hex[a]
        if h >= 0:
            entries[n], values[n] = planes[P_ARTILLERY + (1 if a_owner[a] == player else 0)] + h, 1.0
            n += 1
        if a_target[a] >= 0:
            entries[n], values[n] = planes[P_TARGETS] + a_target[a], 1.0
            n += 1
    sel = g[G_SEL]
    if sel >= 0:
        h = u_hex[sel] if sel < T.nu else l_hex[sel - T.nu]
        if h >= 0:
            entries[n], values[n] = planes[P_SELECTED] + h, 1.0
            n += 1
    return n


@kernel
def write_features(buf, T, O, player, obs):
    """The global features (zeros in ``obs`` before): the turn, phase, pending decision and whose it is,
    the cup, the tracks (see :func:`make_layout`)."""
    _, _, _, _, _, _, _, _, _, cup, g = fields(buf, T)
    F = O.features
    obs[F[F_TURN] + min(max(g[G_TURN], 1), T.turns) - 1] = 1.0
    obs[F[F_PHASE] + g[G_PHASE]] = 1.0
    if player == 1:
        obs[F[F_IMPERIAL]] = 1.0
    obs[F[F_VISIBILITY] + (g[G_VIS] if g[G_VIS_OPT] else 0)] = 1.0
    for c in range(T.nc):
        if cup[c]:
            obs[F[F_CUP] + c] = 1.0
    if g[G_ACTIVE] >= 0:
        obs[F[F_ACTIVE] + g[G_ACTIVE]] = 1.0
    if g[G_TE_OPT]:
        obs[F[F_TURN_ENDS]] = 1.0
    if g[G_TE_IN_CUP]:
        obs[F[F_TURN_ENDS] + 1] = 1.0
    if g[G_SWAP_USED]:
        obs[F[F_SWAP_USED]] = 1.0
    obs[F[F_MAY_MOVE]] = g[G_MAY0 + player]
    obs[F[F_MAY_MOVE] + 1] = g[G_MAY0 + 1 - player]
    for a in range(T.n_armies):
        if (g[G_DEMOR] >> a) & 1:
            obs[F[F_DEMORALIZED] + a] = 1.0
        obs[F[F_DEMOR_PROGRESS] + a] = min(1.0, g[G_ELIM0 + a] / T.demor_level[a])
    vp0, vp1 = victory_points(buf, T)
    own, enemy = (vp0, vp1) if player == 0 else (vp1, vp0)
    obs[F[F_VP]] = min(1.0, own / VP_SCALE)
    obs[F[F_VP] + 1] = min(1.0, enemy / VP_SCALE)
    obs[F[F_DECISION] + g[G_DEC]] = 1.0
    if g[G_PLAYER] == player:
        obs[F[F_TO_MOVE]] = 1.0
    if g[G_MP] >= 0:
        obs[F[F_MP_LEFT]] = min(1.0, g[G_MP] / 9.0)
    obs[F[F_PENDING] + g[G_RES]] = 1.0
    for bit in range(3):
        if (g[G_ATTACK] >> bit) & 1:
            obs[F[F_CHOICES] + bit] = 1.0


# ------------------------------------------------------------------ reference: global features
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
    vp = E.victory_points(s)
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
