"""Observations: named planes over the 972 hexes plus named global features, all in [0, 1], from the
observing player's perspective (own / enemy).

Hidden information: the Mongol observation never depends on the Ambush Regiment's hexes (nor on its
leader) until the Regiment is placed (15.2), nor on which Dmitri is the real one (13.4). The
``legal_hex`` plane marks the HEX actions legal for the observer's pending decision (zeros when the
other player decides).
"""

from __future__ import annotations

import numpy as np

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
from .rules.handles import load_bound
from .rules.turn import current_options
from .rules.records import record
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
    """The observation of ``player`` (a new float32 array): the engine's own buffer for that player, updated
    in place by :func:`write_obs` (only what changed since its last write), then copied."""
    player = int(player)
    k_observe(eng.bound(s), player)
    return eng._obs_rows[player].copy()


# ooff indices: plane and feature offsets the kernel writes at
(O_N, O_FACING0, O_INCMD0, O_DONE0, O_AMBUSH0, O_LEGAL0, O_UNIT0, O_FEATURES, O_DECISION_KIND, O_TO_DECIDE,
 O_UNIT_MP, O_OWN_ACT, O_OWN_FP, O_ENEMY_FP, O_ACTIVATIONS, O_FREE, O_OWN_CMD_ACTIVE, O_ENEMY_CMD_ACTIVE,
 O_OWN_RATING, O_ENEMY_RATING, O_OWN_LEADER_IN, O_ENEMY_LEADER_IN, O_OWN_REAL, O_AMBUSH_PLACED,
 O_STD_CAPTURED) = range(25)

ObsKernel = record("ObsKernel", (
    # per observer: per unit its type, disordered and retired plane offsets, whether it is the observer's, its
    # ZOC plane offset (-1: none): units[player][:, u]; per leader / Standard its plane offset:
    # leader_planes[player][l], std_planes[player][side]; ooff: the offsets named O_*
    "units", "leader_planes", "std_planes", "ooff",
    # the vector before any piece is drawn (terrain planes), and the value of a set entry: float32 1.0
    # (scale 1), or the compact uint8 form's 255 (scale 255)
    "template", "scale",
    # scratch of the writer (one write at a time): the entries drawn, the slots changed and their old entries,
    # the entries cleared (all False between writes), the command ratings
    "entries", "changed", "gone", "cleared", "ratings",
))

# The plane entries (flat indices of the 1s) of a view, each in a fixed slot: per unit five of its own hex
# (type, facing, disordered / retired, in command, done: no two units share one) at 5u, and the ZOC of its
# two frontal hexes at 5U + 2u (7.0: shared, as are the leaders'); then per leader, per Standard, per Ambush
# hex and the decision's unit. -1: no entry.
OWN_SLOTS = 5


def n_slots(eng) -> int:
    return (OWN_SLOTS + 2) * eng.U + eng.NL + 2 + len(eng.ambush_units) + 1


def new_marks(rows: int, eng) -> np.ndarray:
    """``marks`` for ``rows`` observation rows not written yet (see :func:`write_obs`): the observer, the
    entry of every slot, a key per unit, the number of legal hexes and the hexes."""
    marks = np.zeros((rows, 1 + n_slots(eng) + eng.U + 1 + eng.N), np.int32)
    marks[:, 0] = -1
    return marks


@kernel
def _value(v, scale):
    """What a feature of value ``v`` is stored as: ``v`` (float32), or for the compact uint8 form (``scale``
    255) ``floor(255 v + 0.5)`` of the float32 value (the fraction dropped by the uint8 store). Scalars
    only: a kernel call counts references to every array it is passed."""
    if scale == 1.0:
        return v
    return np.float64(np.float32(v)) * scale + 0.5


@kernel
def draw_units(c, T, O, player, e, marks, again, changed):
    """The units' entries in ``player``'s view: each unit's type, facing, disordered / retired status, own
    command marks (in command, done) and the ZOC of its frontal hexes (7.0), into its slots of ``e``.
    With ``marks`` (size > 1, see :func:`write_obs`) only the units whose key (what their entries depend
    on: hex, facing, status, command marks) changed, unless ``again``: their keys go into ``marks``, their
    slots whose entry changed into ``changed``; returns how many."""
    U = T.U
    keys = 1 + e.size
    keep = marks.size > 1
    ut = O.units[player]
    ooff = O.ooff
    n, facing0, incmd0, done0 = ooff[O_N], ooff[O_FACING0], ooff[O_INCMD0], ooff[O_DONE0]
    u_hex, u_face, u_status, u_flags = c.u_hex, c.u_face, c.u_status, c.u_flags  # (read once: kernel speed)
    front_nb = T.front_nb
    nch = 0
    for u in range(U):
        h, face, status, fl = u_hex[u], u_face[u], u_status[u], u_flags[u]
        if keep:
            key = (((h + 1) * 8 + face) * 8 + status) * 4 + ((fl & F_INCMD) != 0) * 2 + ((fl & F_DONE) != 0)
            if not again and key == marks[keys + u]:
                continue
            marks[keys + u] = key
        k, z = OWN_SLOTS * u, OWN_SLOTS * U + 2 * u
        for j in range(OWN_SLOTS):
            e[k + j] = -1
        e[z] = -1
        e[z + 1] = -1
        if h >= 0:
            e[k] = ut[0, u] + h
            e[k + 1] = facing0 + face * n + h
            if status == DISORDERED:
                e[k + 2] = ut[1, u] + h
            elif status == RETIRED:
                e[k + 2] = ut[2, u] + h
            if ut[3, u]:
                if fl & F_INCMD:
                    e[k + 3] = incmd0 + h
                if fl & F_DONE:
                    e[k + 4] = done0 + h
            zoc = ut[4, u]
            if zoc >= 0 and status < RETIRED:
                for j in range(2):
                    x = front_nb[h, face, j]
                    if x >= 0:
                        e[z + j] = zoc + x
        if keep:
            for j in range(k, k + OWN_SLOTS):
                if e[j] != marks[1 + j]:
                    changed[nch] = j
                    nch += 1
            for j in range(z, z + 2):
                if e[j] != marks[1 + j]:
                    changed[nch] = j
                    nch += 1
    return nch


@kernel
def draw_others(c, T, O, player, e):
    """The entries after the units' in ``player``'s view into their slots of ``e``: per leader shown his
    mark, per Standard not captured its mark, the hidden Ambush hexes for the Russian, the unit of the
    observer's pending decision."""
    k = (OWN_SLOTS + 2) * T.U
    for j in range(k, e.size):
        e[j] = -1
    for l in range(T.NL):
        h = c.l_hex[l]
        st = c.l_state[l]
        if h >= 0 and (st == L_ACTIVE or st == L_REPL or st == L_REPL_DEAD):  # hidden leaders are not shown
            e[k + l] = O.leader_planes[player, l] + h
    k += T.NL
    for side in range(2):
        if not c.std_captured[side]:
            e[k + side] = O.std_planes[player, side] + c.std_hex[side]
    k += 2
    if player == 0 and not c.g[G_AMBUSH_PLACED]:
        for j in range(T.NAMB):
            e[k + j] = O.ooff[O_AMBUSH0] + c.ambush[j]
    k += T.NAMB
    if not c.g[G_OVER]:
        sp = c.g[G_SP]
        kind, who, u = c.stack[sp - 1, 0], c.stack[sp - 1, 1], c.stack[sp - 1, 2]
        if who == player and (kind == D_UNIT_ACT or kind == D_SHOCK_MODE or kind == D_RETREAT or kind == D_FACE
                              or kind == D_DEFENSE) and 0 <= u < T.U and c.u_hex[u] >= 0:
            e[k] = O.ooff[O_UNIT0] + c.u_hex[u]


@kernel
def write_obs(c, T, O, mask, player, obs, marks):
    """The observation of ``player`` into ``obs``: the terrain planes (``O.template``), the plane entries
    (:func:`draw_units`, :func:`draw_others`), the pending decision's legal hexes (``mask``: the
    ``legal_hex`` plane, when the observer decides) and the global features (:func:`write_features`).
    ``obs`` float32, or uint8 (the compact form: ``O.scale`` 255).

    ``marks`` (int32, :func:`new_marks`) remembers what the last write put into this very ``obs``; its
    observer -1 when nothing (then the whole vector is written). A write then touches only the entries
    that changed (a row is 136 KB, a decision changes a few dozen entries): the units whose key changed
    are drawn again (:func:`draw_units`; all of them for another observer), with the other
    entries, and the old entries of the slots that changed are cleared, then their new ones set. Only
    the ZOC and leader planes may hold an entry twice: there an entry still held by a slot that did not
    change is set again if a change cleared it. ``marks`` of size 1: the whole vector, nothing
    remembered."""
    e = O.entries
    ns = e.size
    U = T.U
    legal = 1 + ns + U              # marks[legal]: number of legal hexes, the hexes after it
    one = O.scale
    legal0 = O.ooff[O_LEGAL0]
    deciding = not c.g[G_OVER] and c.stack[c.g[G_SP] - 1, 1] == player
    keep = marks.size > 1
    draw_others(c, T, O, player, e)
    changed = O.changed
    if not keep or marks[0] < 0:
        draw_units(c, T, O, player, e, marks, True, changed)
        obs[:] = O.template
        for k in range(ns):
            if e[k] >= 0:
                obs[e[k]] = one
            if keep:
                marks[1 + k] = e[k]
    else:
        nch = draw_units(c, T, O, player, e, marks, marks[0] != player, changed)
        for k in range((OWN_SLOTS + 2) * U, ns):
            if e[k] != marks[1 + k]:
                changed[nch] = k
                nch += 1
        gone, cleared = O.gone, O.cleared
        shared = False               # an entry of the ZOC or leader planes cleared
        for j in range(nch):
            k = changed[j]
            gone[j] = old = marks[1 + k]
            if old >= 0:
                obs[old] = 0
                cleared[old] = True
                shared |= k >= OWN_SLOTS * U
        for j in range(nch):
            k = changed[j]
            x = e[k]
            if x >= 0:
                obs[x] = one
            marks[1 + k] = x
        if shared:
            for k in range(OWN_SLOTS * U, ns):
                x = marks[1 + k]
                if x >= 0 and cleared[x]:
                    obs[x] = one
        for j in range(nch):
            if gone[j] >= 0:
                cleared[gone[j]] = False
        for j in range(marks[legal]):
            h = marks[legal + 1 + j]
            if not (deciding and mask[h]):
                obs[legal0 + h] = 0
    if keep:
        marks[0] = player
    nl = 0
    if deciding:
        n8 = T.N // 8
        words = mask[:8 * n8].view(np.uint64)  # eight hexes at a time: few are legal
        for b in range((T.N + 7) // 8):
            if b < n8 and not words[b]:
                continue
            for h in range(8 * b, min(8 * b + 8, T.N)):
                if mask[h]:
                    obs[legal0 + h] = one
                    if keep:
                        marks[legal + 1 + nl] = h
                    nl += 1
    if keep:
        marks[legal] = nl
    obs[O.ooff[O_FEATURES]:] = 0
    write_features(c, T, O, player, obs)


@kernel
def write_features(c, T, O, player, obs):
    """The global features of ``player``'s view into ``obs`` (zeros there): the pending decision's kind, the
    decider's unit's MP, the active side, Flight Points (16.0), activations, the command ratings (4.2, 13.2,
    13.3), leaders in play, the real Dmitri (13.4, the Russian only), the Ambush and the Standards."""
    ooff, scale = O.ooff, O.scale
    one = scale  # a set entry: 1.0, or 255
    g, l_state, std_captured = c.g, c.l_state, c.std_captured  # (read once: kernel speed)
    q = 1 - player
    if not g[G_OVER]:
        sp = g[G_SP]
        kind, who, u = c.stack[sp - 1, 0], c.stack[sp - 1, 1], c.stack[sp - 1, 2]
        obs[ooff[O_DECISION_KIND] + kind] = one
        if who == player:
            obs[ooff[O_TO_DECIDE]] = one
            if (kind == D_UNIT_ACT or kind == D_SHOCK_MODE or kind == D_RETREAT or kind == D_FACE
                    or kind == D_DEFENSE) and 0 <= u < T.U and c.u_hex[u] >= 0:
                obs[ooff[O_UNIT_MP]] = _value(min(1.0, max(0, c.u_mp[u]) / 10.0), scale)
    if g[G_ACTIVE] == player:
        obs[ooff[O_OWN_ACT]] = one
    obs[ooff[O_OWN_FP]] = _value(min(1.0, flight_points(c, T, player) / FP_SCALE), scale)
    obs[ooff[O_ENEMY_FP]] = _value(min(1.0, flight_points(c, T, q) / FP_SCALE), scale)
    mx = g[G_MAX_ACT]
    obs[ooff[O_ACTIVATIONS]] = _value(min(1.0, g[G_ACTIVATIONS] / (mx if mx else 1000)), scale)
    if g[G_FREE]:
        obs[ooff[O_FREE]] = one
    cmd = g[G_CMD]
    if 0 <= cmd < T.NC:
        p = T.cmd_player[cmd]
        obs[ooff[O_OWN_CMD_ACTIVE if p == player else O_ENEMY_CMD_ACTIVE] + cmd - T.side_cfirst[p]] = one
    if g[G_AMBUSH_PLACED]:
        obs[ooff[O_AMBUSH_PLACED]] = one
    if std_captured[player]:
        obs[ooff[O_STD_CAPTURED]] = one
    if std_captured[q]:
        obs[ooff[O_STD_CAPTURED] + 1] = one
    ratings = O.ratings
    command_ratings(c, T, ratings)
    cfirst, cend, lfirst, lend = T.side_cfirst, T.side_cend, T.side_lfirst, T.side_lend
    for side in range(2):
        own = side == player
        at = ooff[O_OWN_RATING if own else O_ENEMY_RATING] - cfirst[side]
        for cmd in range(cfirst[side], cend[side]):
            r = ratings[cmd]
            if r > 0:
                obs[at + cmd] = _value(r / 10.0, scale)
        at = ooff[O_OWN_LEADER_IN if own else O_ENEMY_LEADER_IN] - lfirst[side]
        for l in range(lfirst[side], lend[side]):
            st = l_state[l]
            if st == L_ACTIVE or st == L_REPL or st == L_REPL_DEAD or st == L_HIDDEN:  # a hidden leader's existence is public
                obs[at + l] = one
    if player == 0:
        l_flags = c.l_flags
        at = ooff[O_OWN_REAL] - lfirst[0]
        for l in range(lfirst[0], lend[0]):
            if l_flags[l] & LF_REAL:
                obs[at + l] = one


@kernel
def k_observe(bound, player):
    """:func:`write_obs` for the game bound as ``bound`` (the address of its ``rules/kstate.Bound`` ``G``:
    ``rules/handles.py``): the view of ``player`` into the engine's buffer ``G.obs[player]`` (what it holds:
    ``G.marks[player]``), with the pending options (``G.c.opts``, made current)."""
    G = load_bound(bound)
    current_options(G)
    c = G.c
    write_obs(c, G.T, G.O, c.opts, player, G.obs[player], G.marks[player])


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
    """The tables :func:`write_obs` reads (:class:`ObsKernel`, float form) and the engine's buffers: per
    player a row of observation and of marks."""
    N, pi = eng.N, eng._plane_index
    template = eng.obs_layout.new()
    template[eng._static_slice] = eng._static_planes
    zoc_plane = (pi["enemy_zoc"] * N, pi["own_zoc"] * N)  # [unit is the observer's]
    units = np.array([[tp, dp, rp, own, [zoc_plane[o] if eng.uzoc[u] else -1 for u, o in enumerate(own)]]
                      for tp, dp, rp, own in eng._obs_unit_rows], dtype=np.int64)
    leader_planes = np.array([[pi["own_leader" if eng.lplayer[l] == player else "enemy_leader"] * N
                               for l in range(eng.NL)] for player in (0, 1)], dtype=np.int64)
    std_planes = np.array([[pi["own_standard" if side == player else "enemy_standard"] * N for side in (0, 1)]
                           for player in (0, 1)], dtype=np.int64)
    at = eng._obs_feature_at
    ooff = np.array([N, eng._obs_facing0, eng._obs_in_command0, eng._obs_done0, eng._obs_ambush0, eng._obs_legal0,
                     eng._obs_unit0, eng._obs_feature_block.start] + [at[name] for name in (
                         "decision_kind", "to_decide", "decision_unit_mp", "own_activation", "own_flight_points",
                         "enemy_flight_points", "activations", "free_activation", "own_command_active",
                         "enemy_command_active", "own_command_rating", "enemy_command_rating",
                         "own_leader_in_play", "enemy_leader_in_play", "own_leader_real", "ambush_placed",
                         "standard_captured")], dtype=np.int64)
    eng._obs_tables = (units, leader_planes, std_planes, ooff, template)
    eng._obs_kernel = obs_kernel(eng, "float")
    eng._obs = np.zeros((2, eng.obs_layout.size), np.float32)
    eng._obs_rows = tuple(eng._obs)
    eng._obs_marks = new_marks(2, eng)


def obs_kernel(eng, form: str):
    """A new :class:`ObsKernel` (its own scratch) for the ``"float"`` or the ``"compact"`` (uint8) form."""
    units, leader_planes, std_planes, ooff, template = eng._obs_tables
    scale = 255.0 if form == "compact" else 1.0
    if form == "compact":
        template = np.floor(template.astype(np.float64) * 255.0 + 0.5).astype(np.uint8)
    return ObsKernel(units, leader_planes, std_planes, ooff, template, scale, np.full(n_slots(eng), -1, np.int64),
                     np.zeros(n_slots(eng), np.int64), np.zeros(n_slots(eng), np.int64),
                     np.zeros(eng.obs_layout.size, np.bool_), np.zeros(eng.NC, np.int64))
