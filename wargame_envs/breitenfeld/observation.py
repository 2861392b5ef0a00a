"""Observations: named planes over the 598 hexes plus named global features, all in [0, 1], from the
observing player's perspective ("own" = the observer's pieces, "enemy" = the other side's).

Breitenfeld has no hidden information: both players see the whole board, the chit cup and the pending
decision. The layout (names, offsets) is ``engine.obs_layout``; ``obs_layout.describe()`` prints it.

:func:`write_observation` (compiled) keeps an observation up to date in place: each piece (unit, leader,
gun, the selected piece) is drawn from a small key of what it shows (:func:`piece_keys`); a write redraws
only the pieces whose key changed since the last write into that very vector (a few per decision), and
the global features. The AEC engine and the batched API both call it. :func:`observe_reference` builds
the same vector from scratch in Python (the specification the tests compare it with at every step of
random games).
"""

from __future__ import annotations

import numpy as np

from ..core.jit import kernel
from ..core.kernel_records import borrowed
from ..core.observation import ObservationLayout
from .state import (DECISION_KEYS, F_ATK, F_DEF, F_IN_ATK, F_MOVED, F_MUST_ATK, F_MUST_DEF, F_OOC, F_SPENT,
                    G_ACTIVE, G_ATTACK, G_DEC, G_DEMOR, G_ELIM0, G_MAY0, G_MP, G_PHASE, G_PLAYER, G_RES, G_SEL,
                    G_SWAP_USED, G_TE_IN_CUP, G_TE_OPT, G_TURN, G_VIS, G_VIS_OPT, LF_MOVED, PHASE_NAMES,
                    RESULT_CODES)
from .tables import fields, pack
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

#: The tables of the compiled writer, packed into one record (``ObsTables.kernel``, read with ``tables.unpack``):
#: the int64 fields first, then the float32 ones (each at an aligned offset).
KERNEL_FIELDS = (
    ("unit_plane", np.int64),       # (2, U): per observer, the offset of the unit's strength plane (own/enemy inf/cav)
    ("leader_plane", np.int64),     # (2, L): per observer, the offset of the leader's plane (own/enemy)
    ("planes", np.int64),           # the offsets of KERNEL_PLANES
    ("features", np.int64),         # the offsets of KERNEL_FEATURES
    ("terrain", np.float32),        # the terrain planes (the first planes of the vector)
    ("strengths", np.float32),      # (2, U): strength (row 1: disrupted) / MAX_STRENGTH, at most 1
    ("leader_values", np.float32),  # (L,): leadership / 3
)


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
        #: the compiled writer's tables, packed (:data:`KERNEL_FIELDS`; ``tables.pack``)
        self.kernel = pack(dict(
            terrain=self.terrain,
            unit_plane=np.array([[at[("own_" if D.unit_side[u] == p else "enemy_") +
                                     ("cavalry" if D.unit_kind[u] else "infantry")] for u in range(n)] for p in (0, 1)],
                                dtype=np.int64),
            strengths=strength,
            leader_plane=np.array([[at["own_leader" if side == p else "enemy_leader"] for side in D.leader_side]
                                   for p in (0, 1)], dtype=np.int64).reshape(2, D.n_leaders),
            leader_values=np.asarray(D.leader_value, dtype=np.float32) / 3.0,
            planes=np.array([at[name] for name in KERNEL_PLANES], dtype=np.int64),
            features=np.array([lay.slices[name].start for name in KERNEL_FEATURES], dtype=np.int64),
        ), KERNEL_FIELDS)
        # --- arrays for the vectorised reference
        self.corps = np.asarray(D.unit_corps)
        self.is_inf = np.asarray(D.unit_kind) == 0
        self.strength_array = strength
        self.nb = np.vstack([D.grid.neighbors.astype(np.int64), np.full((1, 6), -1, np.int64)])
        self.inf_at = np.array([at["enemy_infantry"], at["own_infantry"]])
        self.cav_at = np.array([at["enemy_cavalry"], at["own_cavalry"]])
        self.dis_at = np.array([at["enemy_disrupted"], at["own_disrupted"]])
        self.zoc_at_array = np.array([at["enemy_zoc"], at["own_zoc"]])


# A write's memory of one observation vector (``memo``, int32): the pieces' keys when last drawn there.
# memo[0]: the observer of the last write + 1 (0: nothing written); then the keys (and scratch: see
# write_observation)
M_OBSERVER, M_KEYS = 0, 1
# A piece is a unit (0 .. U-1), a leader (U + l), a gun (U + L + a) or the selected piece (U + L + A).
# Its key (-1: nothing drawn) packs the hex (HEX_BITS) and what the piece shows there (K_* bits); a gun's
# key packs its hex + 1 and its target + 1 (shifted by TARGET_SHIFT), 0 for none.
HEX_BITS = 11
HEX_MASK = (1 << HEX_BITS) - 1
TARGET_SHIFT = HEX_BITS + 1
K_OWN, K_DIS, K_ACTIVE, K_DONE, K_MUST_ATTACK, K_OOC, K_ATTACKED, K_MUST_BE_ATTACKED, K_IN_ATTACK, K_ATTACKER = (
    1 << b for b in range(HEX_BITS, HEX_BITS + 10))


MAX_ENTRIES = 12   # the most entries a piece draws (a unit: strength, ZOC, four marks, the attack)


def n_pieces(D) -> int:
    return D.n_units + D.n_leaders + D.n_art + 1


def new_memo(rows: int, E) -> tuple[np.ndarray, np.ndarray]:
    """``(memo, counts)`` for ``rows`` observation vectors not written yet (see :func:`write_observation`):
    the keys (then room for a write's keys, a piece's entries and the entries to recompute) and, per entry of
    the planes, how many pieces draw it (int8)."""
    D = E.D
    assert D.grid.n < HEX_MASK
    n = n_pieces(D)
    memo = np.zeros((rows, M_KEYS + 2 * n + MAX_ENTRIES + D.n_units + D.n_leaders), np.int32)
    return memo, np.zeros((rows, E.obs_layout.plane_block.stop), np.int8)


def tables(E) -> ObsTables:
    T = E.__dict__.get("_obs_tables")
    if T is None:
        T = E._obs_tables = ObsTables(E)
    return T


# ------------------------------------------------------------------ compiled
@kernel
def write_observation(buf, T, O, player, obs, memo, counts):
    """Write ``player``'s observation of the state ``buf`` into ``obs``: the terrain, the pieces, the global
    features. ``O``: the writer's tables (``ObsTables.kernel`` read with ``tables.unpack``).

    ``memo`` and ``counts`` (:func:`new_memo`) remember the last write into this very ``obs``: each piece's
    key (:func:`piece_keys`) and, per plane entry, how many pieces draw it. A piece whose key changed is
    taken away (its entries' counts decremented; an entry no piece draws any more cleared), then drawn
    again (:func:`piece_entries`). An entry holds the largest value of the pieces that draw it (a leader's
    value: two leaders may share a hex), so where the one that set it goes and another stays, it is
    recomputed. A change of observer would change every key (6 % of the decisions): then, as when nothing
    was written yet, the vector is cleared, the terrain planes copied and every piece drawn (a sequential write of the row is
    cheaper than taking away and drawing a thousand scattered entries). (The loops call no function with
    arrays but the key and entry lists: numba passes an array as a dozen values.)"""
    obs, memo, counts = borrowed(obs), borrowed(memo), borrowed(counts)   # no reference counting in the calls below
    n = T.nu + T.nl + T.na + 1
    new = M_KEYS + n                                   # memo[new:new + n]: the keys of this write
    ent = new + n                                      # memo[ent:]: a piece's entries
    recheck = ent + MAX_ENTRIES                        # memo[recheck:]: the entries to recompute
    if memo[M_OBSERVER] != player + 1:
        obs[:] = 0.0
        terrain = O.terrain
        for i in range(terrain.size):
            obs[i] = terrain[i]
        counts[:] = 0
        memo[M_KEYS:new] = -1
        memo[M_OBSERVER] = player + 1
    entries = memo[ent:recheck]
    piece_keys(buf, T, player, memo[new:ent])
    m = recheck
    for p in range(n):
        old = memo[M_KEYS + p]
        if memo[new + p] == old or old < 0:
            continue
        k = piece_entries(T, O, p, old, entries)
        for j in range(k):
            e = entries[j]
            c = counts[e] - 1
            counts[e] = c
            if c == 0:
                obs[e] = 0.0
            elif j == 0 and p < T.nu + T.nl and valued_entry(T, O, p, old)[1] == obs[e]:
                memo[m] = e                            # its largest value goes, others stay
                m += 1
    for p in range(n):
        key = memo[new + p]
        if key == memo[M_KEYS + p]:
            continue
        memo[M_KEYS + p] = key
        if key < 0:
            continue
        k = piece_entries(T, O, p, key, entries)
        if p < T.nu + T.nl:
            e, v = valued_entry(T, O, p, key)
            counts[e] += 1
            if v > obs[e]:
                obs[e] = v
        for j in range(1 if p < T.nu + T.nl else 0, k):
            e = entries[j]
            counts[e] += 1
            obs[e] = 1.0
    for k in range(recheck, m):
        e = memo[k]
        h = e % T.nh
        best = 0.0
        for p in range(T.nu + T.nl):
            key = memo[M_KEYS + p]
            if key >= 0 and (key & HEX_MASK) == h:
                e2, v = valued_entry(T, O, p, key)
                if e2 == e and v > best:
                    best = v
        obs[e] = best
    obs[O.features[F_TURN]:] = 0.0
    write_features(buf, T, O, player, obs)


@kernel
def piece_keys(buf, T, player, keys):
    """What each piece shows ``player``, into ``keys`` (see :data:`HEX_BITS`): for a unit, its strength and
    disrupted mark or ZOC (7.1: an undisrupted unit's ZOC covers the six hexes around it), four own marks
    (of the active corps, done, must attack, out of command) or two enemy marks (attacked, must be
    attacked), and its side in the attack being declared; for a leader, his value and the active corps
    mark; for a gun, its hex and target; the selected piece's hex."""
    u_hex, u_dis, u_flags, _, l_hex, l_flags, a_hex, a_owner, a_target, _, g = fields(buf, T)
    nu, nl, na = T.nu, T.nl, T.na
    active = g[G_ACTIVE]
    active_side = T.corps_side[active] if active >= 0 else -1
    for u in range(nu):
        h = u_hex[u]
        if h < 0:
            keys[u] = -1
            continue
        flags = u_flags[u]
        key = h
        if u_dis[u] == 1:
            key |= K_DIS
        if T.unit_side[u] == player:
            key |= K_OWN
            if T.unit_corps[u] == active:
                key |= K_ACTIVE
            if flags & (F_MOVED | F_SPENT | F_ATK):
                key |= K_DONE
            if flags & F_MUST_ATK and not flags & F_ATK:
                key |= K_MUST_ATTACK
            if flags & F_OOC:
                key |= K_OOC
        else:
            if flags & F_DEF:
                key |= K_ATTACKED
            if flags & F_MUST_DEF and not flags & F_DEF:
                key |= K_MUST_BE_ATTACKED
        if active >= 0 and flags & F_IN_ATK:
            key |= K_IN_ATTACK
            if T.unit_side[u] == active_side:
                key |= K_ATTACKER
        keys[u] = key
    for l in range(nl):
        h = l_hex[l]
        key = -1
        if h >= 0:
            key = h
            if T.leader_side[l] == player:
                key |= K_OWN
                if T.leader_corps[l] == active and not l_flags[l] & LF_MOVED:
                    key |= K_ACTIVE
        keys[nu + l] = key
    for a in range(na):
        h, t = a_hex[a], a_target[a]
        key = -1
        if h >= 0 or t >= 0:
            key = (t + 1) << TARGET_SHIFT if t >= 0 else 0
            if h >= 0:
                key |= h + 1
                if a_owner[a] == player:
                    key |= K_OWN
        keys[nu + nl + a] = key
    sel = g[G_SEL]
    h = -1
    if sel >= 0:
        h = u_hex[sel] if sel < nu else l_hex[sel - nu]
    keys[nu + nl + na] = h if h >= 0 else -1


@kernel
def valued_entry(T, O, p, key):
    """(entry, value) of the one entry of unit or leader ``p`` (drawn with ``key >= 0``) whose value is not
    1: the unit's strength, the leader's value."""
    h = key & HEX_MASK
    own = 1 if key & K_OWN else 0
    if p < T.nu:
        seat = T.unit_side[p] if own else 1 - T.unit_side[p]
        return O.unit_plane[seat, p] + h, O.strengths[1 if key & K_DIS else 0, p]
    l = p - T.nu
    seat = T.leader_side[l] if own else 1 - T.leader_side[l]
    return O.leader_plane[seat, l] + h, O.leader_values[l]


@kernel
def piece_entries(T, O, p, key, entries):
    """The entries of piece ``p`` as its ``key`` (>= 0) shows it, into ``entries``; their number returned.
    A unit's or leader's first entry is :func:`valued_entry`, every other entry's value is 1. Own planes
    follow their enemy twins in :data:`KERNEL_PLANES`."""
    planes = O.planes
    own = 1 if key & K_OWN else 0
    if p >= T.nu + T.nl + T.na:
        entries[0] = planes[P_SELECTED] + key
        return 1
    if p >= T.nu + T.nl:
        h1, t1 = key & HEX_MASK, (key >> TARGET_SHIFT) & HEX_MASK
        n = 0
        if h1:
            entries[n] = planes[P_ARTILLERY + own] + h1 - 1
            n += 1
        if t1:
            entries[n] = planes[P_TARGETS] + t1 - 1
            n += 1
        return n
    h = key & HEX_MASK
    entries[0] = valued_entry(T, O, p, key)[0]
    n = 1
    if key & K_ACTIVE:
        entries[n] = planes[P_ACTIVE_CORPS] + h
        n += 1
    if p >= T.nu:
        return n
    if key & K_DIS:
        entries[n] = planes[P_DISRUPTED + own] + h
        n += 1
    else:
        zoc = planes[P_ZOC + own]
        for d in range(6):
            t = T.neighbors[h, d]
            if t >= 0:
                entries[n] = zoc + t
                n += 1
    if key & K_DONE:
        entries[n] = planes[P_DONE] + h
        n += 1
    if key & K_MUST_ATTACK:
        entries[n] = planes[P_MUST_ATTACK] + h
        n += 1
    if key & K_OOC:
        entries[n] = planes[P_OUT_OF_COMMAND] + h
        n += 1
    if key & K_ATTACKED:
        entries[n] = planes[P_ATTACKED] + h
        n += 1
    if key & K_MUST_BE_ATTACKED:
        entries[n] = planes[P_MUST_BE_ATTACKED] + h
        n += 1
    if key & K_IN_ATTACK:
        entries[n] = planes[P_ATTACKERS if key & K_ATTACKER else P_DEFENDERS] + h
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
