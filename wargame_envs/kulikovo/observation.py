"""Observations: named planes over the 972 hexes plus named global features, all in [0, 1], from the
observing player's perspective (own / enemy).

Hidden information: the Mongol observation never depends on the Ambush Regiment's hexes (nor on its
leader) until the Regiment is placed (15.2), nor on which Dmitri is the real one (13.4). The
``legal_hex`` plane marks the HEX actions legal for the observer's pending decision (zeros when the
other player decides).
"""

from __future__ import annotations

import numpy as np

from ..core.chance import DS_SIZE
from ..core.jit import kernel
from ..core.observation import ObservationLayout
from .actions import N_CMD_SLOTS, N_LEADER_SLOTS
from .data import TYPES
from .state import (
    D_DEFENSE, D_FACE, D_RETREAT, D_SHOCK_MODE, D_UNIT_ACT, DISORDERED, F_DONE, F_INCMD, G_ACTIVATIONS, G_ACTIVE,
    G_AMBUSH_PLACED, G_CMD, G_FREE, G_MAX_ACT, G_OVER, G_SP, L_ACTIVE, L_HIDDEN, L_REPL, L_REPL_DEAD, LF_REAL,
    N_DECISION_KINDS, RETIRED,
)
from .rules.board import flight_points
from .rules.kstate import make_ctx
from .rules.leaders import command_ratings

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
    """The observation of ``player`` (float32), written by the compiled :func:`write_obs`."""
    obs = np.empty(eng.obs_layout.size, dtype=np.float32)
    k_observe(s.buf, eng.tables(s), *eng._obs_tables, eng._obs_template, eng._options(s), int(player), obs)
    return obs


# ooff indices: plane and feature offsets the kernel writes at
(O_N, O_FACING0, O_INCMD0, O_DONE0, O_AMBUSH0, O_LEGAL0, O_UNIT0, O_DECISION_KIND, O_TO_DECIDE, O_UNIT_MP,
 O_OWN_ACT, O_OWN_FP, O_ENEMY_FP, O_ACTIVATIONS, O_FREE, O_OWN_CMD_ACTIVE, O_ENEMY_CMD_ACTIVE, O_OWN_RATING,
 O_ENEMY_RATING, O_OWN_LEADER_IN, O_ENEMY_LEADER_IN, O_OWN_REAL, O_AMBUSH_PLACED, O_STD_CAPTURED) = range(24)


@kernel
def _set(obs, i, v, scale):
    """``obs[i] = v`` (float32), or for the compact uint8 form (``scale`` 255) ``floor(255 v + 0.5)`` of the
    float32 value."""
    if scale == 1.0:
        obs[i] = v
    else:
        obs[i] = np.float64(np.float32(v)) * scale + 0.5


@kernel
def write_obs(c, T, units, leader_planes, std_planes, ooff, template, mask, player, obs, scale):
    """The observation of ``player`` into ``obs``: the terrain planes from ``template``, then per unit its
    type, facing, disordered / retired status, own command marks and the ZOC of its frontal hexes (7.0);
    per leader shown and Standard not captured its mark; the hidden Ambush hexes for the Russian; the
    pending decision's legal hexes (``mask``) and unit; the global features. ``units[player][:, u]``:
    type, disordered and retired plane offsets, whether the observer's, ZOC plane offset (-1: none);
    ``leader_planes[player][l]``, ``std_planes[player][side]``: plane offsets; ``ooff``: the offsets
    named O_*. ``obs`` float32 (``scale`` 1), or uint8 (the compact form: ``scale`` 255)."""
    obs[:] = template
    n = ooff[O_N]
    ut = units[player]
    u_hex, u_face, u_status, u_flags = c.u_hex, c.u_face, c.u_status, c.u_flags  # (read once: kernel speed)
    front_nb = T.front_nb
    for u in range(T.U):
        h = u_hex[u]
        if h < 0:
            continue
        face = u_face[u]
        status = u_status[u]
        _set(obs, ut[0, u] + h, 1.0, scale)
        _set(obs, ooff[O_FACING0] + face * n + h, 1.0, scale)
        if status == DISORDERED:
            _set(obs, ut[1, u] + h, 1.0, scale)
        elif status == RETIRED:
            _set(obs, ut[2, u] + h, 1.0, scale)
        if ut[3, u]:
            if u_flags[u] & F_INCMD:
                _set(obs, ooff[O_INCMD0] + h, 1.0, scale)
            if u_flags[u] & F_DONE:
                _set(obs, ooff[O_DONE0] + h, 1.0, scale)
        zoc = ut[4, u]
        if zoc >= 0 and status < RETIRED:
            for k in range(2):
                x = front_nb[h, face, k]
                if x >= 0:
                    _set(obs, zoc + x, 1.0, scale)
    l_hex, l_state = c.l_hex, c.l_state
    for l in range(T.NL):
        h = l_hex[l]
        st = l_state[l]
        if h >= 0 and (st == L_ACTIVE or st == L_REPL or st == L_REPL_DEAD):  # hidden leaders are not shown
            _set(obs, leader_planes[player, l] + h, 1.0, scale)
    for side in range(2):
        if not c.std_captured[side]:
            _set(obs, std_planes[player, side] + c.std_hex[side], 1.0, scale)
    if player == 0 and not c.g[G_AMBUSH_PLACED]:
        for k in range(T.NAMB):
            _set(obs, ooff[O_AMBUSH0] + c.ambush[k], 1.0, scale)
    q = 1 - player
    if not c.g[G_OVER]:
        sp = c.g[G_SP]
        kind, who, u = c.stack[sp - 1, 0], c.stack[sp - 1, 1], c.stack[sp - 1, 2]
        _set(obs, ooff[O_DECISION_KIND] + kind, 1.0, scale)
        if who == player:
            for h in range(T.N):
                if mask[h]:
                    _set(obs, ooff[O_LEGAL0] + h, 1.0, scale)
            _set(obs, ooff[O_TO_DECIDE], 1.0, scale)
            if (kind == D_UNIT_ACT or kind == D_SHOCK_MODE or kind == D_RETREAT or kind == D_FACE
                    or kind == D_DEFENSE) and 0 <= u < T.U and c.u_hex[u] >= 0:
                _set(obs, ooff[O_UNIT0] + c.u_hex[u], 1.0, scale)
                _set(obs, ooff[O_UNIT_MP], min(1.0, max(0, c.u_mp[u]) / 10.0), scale)
    if c.g[G_ACTIVE] == player:
        _set(obs, ooff[O_OWN_ACT], 1.0, scale)
    _set(obs, ooff[O_OWN_FP], min(1.0, flight_points(c, T, player) / FP_SCALE), scale)
    _set(obs, ooff[O_ENEMY_FP], min(1.0, flight_points(c, T, q) / FP_SCALE), scale)
    mx = c.g[G_MAX_ACT]
    _set(obs, ooff[O_ACTIVATIONS], min(1.0, c.g[G_ACTIVATIONS] / (mx if mx else 1000)), scale)
    if c.g[G_FREE]:
        _set(obs, ooff[O_FREE], 1.0, scale)
    cmd = c.g[G_CMD]
    if 0 <= cmd < T.NC:
        p = T.cmd_player[cmd]
        _set(obs, ooff[O_OWN_CMD_ACTIVE if p == player else O_ENEMY_CMD_ACTIVE] + cmd - T.side_cfirst[p], 1.0,
             scale)
    if c.g[G_AMBUSH_PLACED]:
        _set(obs, ooff[O_AMBUSH_PLACED], 1.0, scale)
    if c.std_captured[player]:
        _set(obs, ooff[O_STD_CAPTURED], 1.0, scale)
    if c.std_captured[q]:
        _set(obs, ooff[O_STD_CAPTURED] + 1, 1.0, scale)
    ratings = np.empty(T.NC, np.int64)
    command_ratings(c, T, ratings)
    for side in range(2):
        own = side == player
        for cmd in range(T.side_cfirst[side], T.side_cend[side]):
            r = ratings[cmd]
            v = (r if r > 0 else 0) / 10.0
            if v:
                _set(obs, ooff[O_OWN_RATING if own else O_ENEMY_RATING] + cmd - T.side_cfirst[side], v, scale)
        for l in range(T.side_lfirst[side], T.side_lend[side]):
            st = c.l_state[l]
            if st == L_ACTIVE or st == L_REPL or st == L_REPL_DEAD or st == L_HIDDEN:  # a hidden leader's existence is public
                _set(obs, ooff[O_OWN_LEADER_IN if own else O_ENEMY_LEADER_IN] + l - T.side_lfirst[side], 1.0, scale)
    if player == 0:
        for l in range(T.side_lfirst[0], T.side_lend[0]):
            if c.l_flags[l] & LF_REAL:
                _set(obs, ooff[O_OWN_REAL] + l - T.side_lfirst[0], 1.0, scale)


@kernel
def k_observe(buf, T, units, leader_planes, std_planes, ooff, template, mask, player, obs):
    """:func:`write_obs` for one game."""
    c = make_ctx(buf, T, np.zeros(0, np.float64), np.zeros(DS_SIZE, np.int64), np.zeros((0, 5), np.int32),
                 np.zeros(1, np.int64), np.zeros((2, 1), np.int64), np.zeros((2, 1, 6), np.int64), mask)
    write_obs(c, T, units, leader_planes, std_planes, ooff, template, mask, player, obs, 1.0)


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
        if h >= 0 and state in LEADERS_SHOWN:
            on.append(pi["own_leader" if eng.lplayer[l] == player else "enemy_leader"] * N + h)
    for side, plane in ((player, "own_standard"), (1 - player, "enemy_standard")):
        if not s.std_captured[side]:
            on.append(pi[plane] * N + int(s.std_hex[side]))
    if player == 0 and not s.g[G_AMBUSH_PLACED]:
        on += (pi["own_ambush_hidden"] * N + s.ambush).tolist()
    pending, opts = (None, ()) if s.g[G_OVER] else eng._pending(s)  # the pending decision's task, its options
    legal, unit_hex = _decision_hexes(eng, s, player, pending, opts)
    on += legal + unit_hex
    obs[on] = 1.0
    obs[eng._static_slice] = eng._static_planes
    obs[eng._obs_feature_block] = _leader_features(eng, s, player)
    _features(eng, s, player, pending, obs)
    return obs


def _decision_hexes(eng, s, player: int, t: list[int] | None, opts) -> tuple[list[int], list[int]]:
    """Flat indices of the observer's pending decision (task ``t`` with legal actions ``opts``; None once
    the game is over): its legal HEX actions on the ``legal_hex`` plane, and the unit it concerns on
    ``decision_unit``."""
    if t is None or t[1] != player:
        return [], []
    base, n = eng._obs_legal0, eng.N
    legal = [base + a for a in opts if a < n]
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


def _leader_features(eng, s, player: int) -> np.ndarray:
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
    f = cache[key] = np.asarray(f, dtype=np.float32)
    return f


LEADERS_IN_PLAY = (L_ACTIVE, L_REPL, L_REPL_DEAD, L_HIDDEN)
LEADERS_SHOWN = (L_ACTIVE, L_REPL, L_REPL_DEAD)  # on the board; hidden (Ambush) leaders are not


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
    # per observer: per unit its type / disordered / retired plane offsets and whether it is the observer's
    eng._obs_unit_rows = tuple((tuple((tp * eng.N).tolist()), tuple((dp * eng.N).tolist()), tuple((rp * eng.N).tolist()),
                                tuple(own.tolist())) for (tp, dp, rp, own) in planes)
    block = slice(lay.plane_block.stop, lay.size)
    eng._obs_feature_block, eng._obs_feature_block_size = block, block.stop - block.start
    eng._obs_features = {name: lay.slices[name].start - block.start for name, _ in FEATURES}
    eng._obs_feature_at = {name: lay.slices[name].start for name, _ in FEATURES}
    eng._obs_legal0, eng._obs_unit0 = pi["legal_hex"] * eng.N, pi["decision_unit"] * eng.N
    eng._obs_ambush0 = pi["own_ambush_hidden"] * eng.N
    eng._obs_facing0 = pi["facing_0"] * eng.N
    eng._obs_in_command0 = pi["own_in_command"] * eng.N
    eng._obs_done0 = pi["own_done"] * eng.N
    _prepare_kernel(eng)


def _prepare_kernel(eng) -> None:
    """The tables :func:`write_obs` reads (see its docstring) and the templates it starts from."""
    N, pi = eng.N, eng._plane_index
    eng._obs_template = eng.obs_layout.new()
    eng._obs_template[eng._static_slice] = eng._static_planes
    eng._obs_template_u8 = np.floor(eng._obs_template.astype(np.float64) * 255.0 + 0.5).astype(np.uint8)
    zoc_plane = (pi["enemy_zoc"] * N, pi["own_zoc"] * N)  # [unit is the observer's]
    units = np.array([[tp, dp, rp, own, [zoc_plane[o] if eng.uzoc[u] else -1 for u, o in enumerate(own)]]
                      for tp, dp, rp, own in eng._obs_unit_rows], dtype=np.int64)
    leader_planes = np.array([[pi["own_leader" if eng.lplayer[l] == player else "enemy_leader"] * N
                               for l in range(eng.NL)] for player in (0, 1)], dtype=np.int64)
    std_planes = np.array([[pi["own_standard" if side == player else "enemy_standard"] * N for side in (0, 1)]
                           for player in (0, 1)], dtype=np.int64)
    at = eng._obs_feature_at
    ooff = np.array([N, eng._obs_facing0, eng._obs_in_command0, eng._obs_done0, eng._obs_ambush0, eng._obs_legal0,
                     eng._obs_unit0] + [at[name] for name in (
                         "decision_kind", "to_decide", "decision_unit_mp", "own_activation", "own_flight_points",
                         "enemy_flight_points", "activations", "free_activation", "own_command_active",
                         "enemy_command_active", "own_command_rating", "enemy_command_rating",
                         "own_leader_in_play", "enemy_leader_in_play", "own_leader_real", "ambush_placed",
                         "standard_captured")], dtype=np.int64)
    eng._obs_tables = (units, leader_planes, std_planes, ooff)
