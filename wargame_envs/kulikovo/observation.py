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
    lay = eng.obs_layout
    obs = lay.new()
    N = eng.N
    pi = eng._plane_index
    q = 1 - player
    hexes = s.u_hex.tolist()
    st = s.u_status.tolist()
    faces = s.u_face.tolist()
    fl = s.u_flags.tolist()
    tp, dp, rp, ownp = eng._obs_unit_rows[player]
    fbase = pi["facing_0"] * N
    icb, dnb = pi["own_in_command"] * N, pi["own_done"] * N
    on = []
    app = on.append
    for u in range(eng.U):
        h = hexes[u]
        if h < 0:
            continue
        app(tp[u] + h)
        x = st[u]
        if x == DISORDERED:
            app(dp[u] + h)
        elif x == RETIRED:
            app(rp[u] + h)
        app(fbase + faces[u] * N + h)
        if ownp[u]:
            f = fl[u]
            if f & F_INCMD:
                app(icb + h)
            if f & F_DONE:
                app(dnb + h)
    on_arr = []
    for side, plane in ((player, "own_zoc"), (q, "enemy_zoc")):
        on_arr.append(pi[plane] * N + eng.zoc_hexes(s, 1 - side))
    lh = s.l_hex.tolist()
    ls = s.l_state.tolist()
    p_ol, p_el = pi["own_leader"] * N, pi["enemy_leader"] * N
    for l in range(eng.NL):
        h = lh[l]
        if h >= 0 and ls[l] in (L_ACTIVE, L_REPL, L_REPL_DEAD):  # hidden (Ambush) leaders are not shown
            on.append((p_ol if eng.lplayer[l] == player else p_el) + h)
    for side, plane in ((player, "own_standard"), (q, "enemy_standard")):
        if not s.std_captured[side]:
            on.append(pi[plane] * N + int(s.std_hex[side]))
    if player == 0 and not s.g[G_AMBUSH_PLACED]:
        on.extend(pi["own_ambush_hidden"] * N + h for h in s.ambush.tolist())
    F = lay.slices
    if not s.g[G_OVER]:
        t = eng.top(s)
        obs[F["decision_kind"].start + t[0]] = 1.0
        if t[1] == player:
            obs[F["to_decide"].start] = 1.0
            opts = np.asarray(eng._options(s, t), dtype=np.int64)
            on_arr.append(pi["legal_hex"] * N + opts[opts < N])
            u = t[2]
            if t[0] in (D_UNIT_ACT, D_SHOCK_MODE, D_RETREAT, D_FACE, D_DEFENSE) and 0 <= u < eng.U and hexes[u] >= 0:
                on.append(pi["decision_unit"] * N + hexes[u])
                obs[F["decision_unit_mp"].start] = min(1.0, max(0, int(s.u_mp[u])) / 10.0)
    if on_arr:
        obs[np.concatenate(on_arr)] = 1.0
    obs[on] = 1.0
    obs[eng._static_slice] = eng._static_planes
    if s.g[G_ACTIVE] == player:
        obs[F["own_activation"].start] = 1.0
    obs[F["own_flight_points"].start] = min(1.0, eng.flight_points(s, player) / FP_SCALE)
    obs[F["enemy_flight_points"].start] = min(1.0, eng.flight_points(s, q) / FP_SCALE)
    mx = int(s.g[G_MAX_ACT]) or 1000
    obs[F["activations"].start] = min(1.0, int(s.g[G_ACTIVATIONS]) / mx)
    obs[F["free_activation"].start] = float(bool(s.g[G_FREE]))
    c = int(s.g[G_CMD])
    if 0 <= c < eng.NC:
        p = eng.cmd_player[c]
        slot = c - eng.side_cmd_first[p]
        obs[F["own_command_active" if p == player else "enemy_command_active"].start + slot] = 1.0
    ratings = eng.all_command_ratings(s)
    for side, name in ((player, "own_command_rating"), (q, "enemy_command_rating")):
        b = F[name].start - eng.side_cmd_first[side]
        for c in eng.side_cmds[side]:
            obs[b + c] = max(0, ratings[c]) / 10.0
    for side, name in ((player, "own_leader_in_play"), (q, "enemy_leader_in_play")):
        b = F[name].start - eng.side_leader_first[side]
        for l in eng.side_leaders[side]:
            if ls[l] in (L_ACTIVE, L_REPL, L_REPL_DEAD, L_HIDDEN):  # a hidden leader's existence is public
                obs[b + l] = 1.0
    if player == 0:
        b = F["own_leader_real"].start - eng.side_leader_first[0]
        for l in eng.side_leaders[0]:
            if s.l_flags[l] & LF_REAL:
                obs[b + l] = 1.0
    obs[F["ambush_placed"].start] = float(bool(s.g[G_AMBUSH_PLACED]))
    obs[F["standard_captured"].start] = float(bool(s.std_captured[player]))
    obs[F["standard_captured"].start + 1] = float(bool(s.std_captured[q]))
    return obs


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
    eng._obs_unit_planes = tuple(planes)
    eng._obs_unit_rows = tuple((tuple((tp * eng.N).tolist()), tuple((dp * eng.N).tolist()), tuple((rp * eng.N).tolist()),
                                tuple(own.tolist())) for (tp, dp, rp, own) in planes)
