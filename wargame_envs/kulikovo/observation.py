"""Observations: named planes over the 972 hexes plus named global features, all in [0, 1], from the
observing player's perspective (own / enemy).

Hidden information: the Mongol observation never depends on the Ambush Regiment's hexes (nor on its
leader) until the Regiment is placed (15.2), nor on which Dmitri is the real one (13.4). The
``legal_hex`` plane marks the HEX actions legal for the observer's pending decision (zeros when the
other player decides).
"""

from __future__ import annotations

import numpy as np

from ..core.observation import ObservationLayout
from ..core.planes import PlaneBuffer, plane_buffers
from .actions import N_CMD_SLOTS, N_LEADER_SLOTS
from .data import TYPES
from .state import (
    D_DEFENSE, D_FACE, D_RETREAT, D_SHOCK_MODE, D_UNIT_ACT, DISORDERED, F_DONE, F_INCMD, G_ACTIVATIONS, G_ACTIVE, G_AMBUSH_PLACED, G_CMD, G_FREE, G_MAX_ACT, G_OVER, L_ACTIVE, L_HIDDEN, L_REPL, L_REPL_DEAD,
    LF_REAL, N_DECISION_KINDS, RETIRED,
)

PLANES = ([f"own_{t}" for t in TYPES] + [f"enemy_{t}" for t in TYPES] +
          ["own_disordered", "own_retired", "enemy_disordered", "enemy_retired"] +
          [f"facing_{f}" for f in range(6)] +
          ["own_leader", "enemy_leader", "own_standard", "enemy_standard", "own_zoc", "enemy_zoc",
           "own_in_command", "own_done", "elevation", "woods", "decision_unit", "own_ambush_hidden", "legal_hex"])
FEATURES = [("decision_kind", N_DECISION_KINDS), ("to_decide", 1), ("own_activation", 1),
            ("own_flight_points", 1), ("enemy_flight_points", 1), ("activations", 1), ("free_activation", 1),
            ("own_command_active", N_CMD_SLOTS), ("enemy_command_active", N_CMD_SLOTS),
            ("own_command_rating", N_CMD_SLOTS), ("enemy_command_rating", N_CMD_SLOTS),
            ("own_leader_in_play", N_LEADER_SLOTS), ("enemy_leader_in_play", N_LEADER_SLOTS),
            ("own_leader_real", N_LEADER_SLOTS), ("ambush_placed", 1), ("standard_captured", 2),
            ("decision_unit_mp", 1)]
FP_SCALE = 100.0


def build_layout(eng) -> ObservationLayout:
    return ObservationLayout(eng.N, PLANES, FEATURES)


def observe(eng, s, player: int) -> np.ndarray:
    """The observation of ``player``: board planes from the observer's :class:`PlaneBuffer` (only the
    pieces that changed since the last observation are redrawn), then the decision and global features."""
    pb = plane_buffers(eng, 2, lambda: PlaneBuffer(eng.obs_layout.size, [(eng._static_slice, eng._static_planes)]))[player]
    rows = eng._obs_unit_rows[player]
    # unit keys (hex, facing, status, command flags): one masked copy of the adjacent state arrays
    keys = s.buf[eng._obs_unit_span] & eng._obs_unit_mask
    pb.sync_exclusive("units", keys, eng.U, lambda u, key: _unit_marks(eng, rows, u, key))
    # ZOC fronts overlap (counted), and do not depend on the command marks: keyed on hex, facing, status
    pb.sync("zoc", keys[:3 * eng.U], eng.U, lambda u, key: _unit_zoc(eng, player, u, key))
    leaders = eng.leader_key(s)
    if pb.changed("markers", (leaders, s.buf[eng._obs_std_span].tobytes())):
        pb.sync("markers", np.concatenate((s.l_hex, s.std_hex, s.l_state, s.std_captured)), eng.NL + 2,
                lambda e, key: _marker_bits(eng, player, e, key))
    if player == 0:
        hidden = [] if s.g[G_AMBUSH_PLACED] else s.ambush.tolist()
        pb.layer("ambush", [eng._obs_ambush0 + h for h in hidden])
    pending = None if s.g[G_OVER] else eng.top(s)  # the pending decision's task
    legal, unit_hex = _decision_hexes(eng, s, player, pending)
    pb.layer("legal_hex", legal)
    pb.layer("decision_unit", unit_hex)
    pb.section("leader features", leaders, eng._obs_feature_block, lambda: _leader_features(eng, s, player))
    obs = pb.copy()
    _features(eng, s, player, pending, obs)
    return obs


def observe_reference(eng, s, player: int) -> np.ndarray:
    """The same observation built from scratch, plane by plane, with the rules' own ZOC map (the
    specification :func:`observe` is tested against)."""
    obs = eng.obs_layout.new()
    N, pi = eng.N, eng._plane_index
    tp, dp, rp, own = eng._obs_unit_rows[player]
    hexes, st, faces, fl = s.u_hex.tolist(), s.u_status.tolist(), s.u_face.tolist(), s.u_flags.tolist()
    on = []
    for u in range(eng.U):
        h = hexes[u]
        if h < 0:
            continue
        on += [tp[u] + h, eng._obs_facing0 + faces[u] * N + h]
        if st[u] == DISORDERED:
            on.append(dp[u] + h)
        elif st[u] == RETIRED:
            on.append(rp[u] + h)
        if own[u] and fl[u] & F_INCMD:
            on.append(eng._obs_in_command0 + h)
        if own[u] and fl[u] & F_DONE:
            on.append(eng._obs_done0 + h)
    for side, plane in ((player, "own_zoc"), (1 - player, "enemy_zoc")):
        on += [pi[plane] * N + h for h in eng.zoc_map(s, 1 - side)]
    for l, (h, state) in enumerate(zip(s.l_hex.tolist(), s.l_state.tolist())):
        if h >= 0 and state in (L_ACTIVE, L_REPL, L_REPL_DEAD):
            on.append(pi["own_leader" if eng.lplayer[l] == player else "enemy_leader"] * N + h)
    for side, plane in ((player, "own_standard"), (1 - player, "enemy_standard")):
        if not s.std_captured[side]:
            on.append(pi[plane] * N + int(s.std_hex[side]))
    if player == 0 and not s.g[G_AMBUSH_PLACED]:
        on += (pi["own_ambush_hidden"] * N + s.ambush).tolist()
    pending = None if s.g[G_OVER] else eng.top(s)  # the pending decision's task
    legal, unit_hex = _decision_hexes(eng, s, player, pending)
    on += legal + unit_hex
    obs[on] = 1.0
    obs[eng._static_slice] = eng._static_planes
    obs[eng._obs_feature_block] = _leader_features(eng, s, player)
    _features(eng, s, player, pending, obs)
    return obs


OBS_UNIT_FLAGS = F_INCMD | F_DONE


def _unit_marks(eng, rows, u: int, key: list[int]) -> list[int]:
    """Unit ``u``'s marks (one unit per hex, so no other unit shares them): type, facing, status and
    own command marks."""
    h, face, status, flags = key
    if h < 0:
        return []
    tp, dp, rp, own = rows
    marks = [tp[u] + h, eng._obs_facing0 + face * eng.N + h]
    if status == DISORDERED:
        marks.append(dp[u] + h)
    elif status == RETIRED:
        marks.append(rp[u] + h)
    if own[u]:
        if flags & F_INCMD:
            marks.append(eng._obs_in_command0 + h)
        if flags & F_DONE:
            marks.append(eng._obs_done0 + h)
    return marks


def _unit_zoc(eng, player: int, u: int, key: list[int]) -> list[tuple[int, float]]:
    """The ZOC unit ``u`` exerts (7.0: its frontal hexes; not Regular Infantry, not Retired)."""
    h, face, status = key
    if h < 0 or not eng.uzoc[u] or status >= RETIRED:
        return []
    base = eng._obs_zoc0[eng.uplayer[u] == player]
    return [(base + t, 1.0) for t in eng.geo.front_nb[h][face] if t >= 0]


def _marker_bits(eng, player: int, e: int, key: list[int]) -> list[tuple[int, float]]:
    """Leader ``e`` (``e < NL``) or the Standard of side ``e - NL``: ``key`` is (hex, leader state /
    Standard captured)."""
    h, state = key
    if e < eng.NL:
        if h < 0 or state not in (L_ACTIVE, L_REPL, L_REPL_DEAD):  # hidden (Ambush) leaders are not shown
            return []
        plane = "own_leader" if eng.lplayer[e] == player else "enemy_leader"
    else:
        if state:  # captured
            return []
        plane = "own_standard" if e - eng.NL == player else "enemy_standard"
    return [(eng._plane_index[plane] * eng.N + h, 1.0)]


def _decision_hexes(eng, s, player: int, t: list[int] | None) -> tuple[list[int], list[int]]:
    """Flat indices of the observer's pending decision (task ``t``, None once the game is over): its
    legal HEX actions on the ``legal_hex`` plane, and the unit it concerns on ``decision_unit``."""
    if t is None or t[1] != player:
        return [], []
    base, n = eng._obs_legal0, eng.N
    legal = [base + a for a in eng._options(s, t) if a < n]
    u = t[2]
    if t[0] in UNIT_DECISIONS and 0 <= u < eng.U and s.u_hex[u] >= 0:
        return legal, [eng._obs_unit0 + int(s.u_hex[u])]
    return legal, []


UNIT_DECISIONS = (D_UNIT_ACT, D_SHOCK_MODE, D_RETREAT, D_FACE, D_DEFENSE)


def _features(eng, s, player: int, t: list[int] | None, obs: np.ndarray) -> None:
    """Write the global features that follow the turn (the pending task ``t``, activation, Flight
    Points...) into ``obs``, whose feature block already holds :func:`_leader_features` and zeros."""
    at = eng._obs_feature_at            # feature name -> flat offset
    q = 1 - player
    g = s.g.tolist()
    if t is not None:
        obs[at["decision_kind"] + t[0]] = 1.0
        if t[1] == player:
            obs[at["to_decide"]] = 1.0
            u = t[2]
            if t[0] in UNIT_DECISIONS and 0 <= u < eng.U and s.u_hex[u] >= 0:
                obs[at["decision_unit_mp"]] = min(1.0, max(0, int(s.u_mp[u])) / 10.0)
    if g[G_ACTIVE] == player:
        obs[at["own_activation"]] = 1.0
    fp = eng.both_flight_points(s)
    obs[at["own_flight_points"]] = min(1.0, fp[player] / FP_SCALE)
    obs[at["enemy_flight_points"]] = min(1.0, fp[q] / FP_SCALE)
    obs[at["activations"]] = min(1.0, g[G_ACTIVATIONS] / (g[G_MAX_ACT] or 1000))
    if g[G_FREE]:
        obs[at["free_activation"]] = 1.0
    c = g[G_CMD]
    if 0 <= c < eng.NC:
        p = eng.cmd_player[c]
        obs[at["own_command_active" if p == player else "enemy_command_active"] + c - eng.side_cmd_first[p]] = 1.0
    if g[G_AMBUSH_PLACED]:
        obs[at["ambush_placed"]] = 1.0
    captured = s.std_captured.tolist()
    if captured[player]:
        obs[at["standard_captured"]] = 1.0
    if captured[q]:
        obs[at["standard_captured"] + 1] = 1.0


def _leader_features(eng, s, player: int) -> list[float]:
    """The feature block with only the leader-derived features set (command ratings, leaders in play,
    the real Dmitri); they depend on the leader arrays alone (:meth:`leader_key`), so they are cached on
    those. Read only."""
    key = (player, eng.leader_key(s))
    cache = eng.__dict__.setdefault("_obs_leader_cache", {})
    hit = cache.get(key)
    if hit is not None:
        return hit
    if len(cache) > 256:
        cache.clear()
    F = eng._obs_features
    f = [0.0] * eng._obs_feature_block_size
    ratings = eng.all_command_ratings(s)
    ls = s.l_state.tolist()
    for side, kind in ((player, "own"), (1 - player, "enemy")):
        b = F[f"{kind}_command_rating"] - eng.side_cmd_first[side]
        for c in eng.side_cmds[side]:
            f[b + c] = max(0, ratings[c]) / 10.0
        b = F[f"{kind}_leader_in_play"] - eng.side_leader_first[side]
        for l in eng.side_leaders[side]:
            if ls[l] in LEADERS_IN_PLAY:  # a hidden leader's existence is public
                f[b + l] = 1.0
    if player == 0:
        b = F["own_leader_real"] - eng.side_leader_first[0]
        lf = s.l_flags.tolist()
        for l in eng.side_leaders[0]:
            if lf[l] & LF_REAL:
                f[b + l] = 1.0
    cache[key] = f
    return f


LEADERS_IN_PLAY = (L_ACTIVE, L_REPL, L_REPL_DEAD, L_HIDDEN)


def prepare(eng) -> None:
    """Per-engine constants of the observation (plane indices, static terrain planes)."""
    lay = eng.obs_layout
    eng._plane_index = {name: i for i, name in enumerate(lay.planes)}
    eng._own_type_plane = tuple(eng._plane_index[f"own_{t}"] for t in TYPES)
    eng._enemy_type_plane = tuple(eng._plane_index[f"enemy_{t}"] for t in TYPES)
    e0 = lay.slices["elevation"].start
    w1 = lay.slices["woods"].stop
    assert w1 - e0 == 2 * eng.N
    eng._static_slice = slice(e0, w1)
    elev = np.asarray(eng.sc.elev, dtype=np.float32) / max(1, max(eng.sc.elev))
    eng._static_planes = np.concatenate([elev, np.asarray(eng.sc.woods, dtype=np.float32)])
    pi = eng._plane_index
    planes = []
    for player in (0, 1):
        own = np.asarray([eng.uplayer[u] == player for u in range(eng.U)])
        tp = np.asarray([(eng._own_type_plane if own[u] else eng._enemy_type_plane)[eng.utype[u]] for u in range(eng.U)], dtype=np.int64)
        dp = np.where(own, pi["own_disordered"], pi["enemy_disordered"]).astype(np.int64)
        rp = np.where(own, pi["own_retired"], pi["enemy_retired"]).astype(np.int64)
        planes.append((tp, dp, rp, own))
    eng._obs_unit_rows = tuple((tuple((tp * eng.N).tolist()), tuple((dp * eng.N).tolist()), tuple((rp * eng.N).tolist()),
                                tuple(own.tolist())) for (tp, dp, rp, own) in planes)
    block = slice(lay.plane_block.stop, lay.size)
    eng._obs_feature_block, eng._obs_feature_block_size = block, block.stop - block.start
    eng._obs_features = {name: lay.slices[name].start - block.start for name, _ in FEATURES}
    eng._obs_feature_at = {name: lay.slices[name].start for name, _ in FEATURES}
    eng._obs_unit_span = eng.state_class.span("u_hex", "u_flags")  # u_hex, u_face, u_status, u_flags (state.py)
    assert eng._obs_unit_span.stop - eng._obs_unit_span.start == 4 * eng.U
    eng._obs_unit_mask = np.array([-1] * (3 * eng.U) + [OBS_UNIT_FLAGS] * eng.U, dtype=np.int32)
    eng._obs_std_span = eng.state_class.span("std_hex", "std_captured")
    eng._obs_legal0, eng._obs_unit0 = pi["legal_hex"] * eng.N, pi["decision_unit"] * eng.N
    eng._obs_ambush0 = pi["own_ambush_hidden"] * eng.N
    eng._obs_zoc0 = (pi["enemy_zoc"] * eng.N, pi["own_zoc"] * eng.N)  # [unit is the observer's]
    eng._obs_facing0 = pi["facing_0"] * eng.N
    eng._obs_in_command0 = pi["own_in_command"] * eng.N
    eng._obs_done0 = pi["own_done"] * eng.N

