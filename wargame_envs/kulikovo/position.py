"""Positions: the state as a JSON-friendly dict (``to_position``) and back (``build_state``).

Readable part: units (id, type, command, hex, facing, status), leaders, Standards, permanent Flight
Points, Ambush Regiment, activation counter, who is to move. ``to_position`` also writes ``internal``
(every state array), so a position taken at any pending decision (mid-activation, a retreat, a
counter-charge, the hidden Dmitri choice of 13.4...) restores exactly. A hand-written position (rule
tests, puzzles) leaves ``internal`` out and names ``to_move``: ``{"player": "russian"}`` (a free
activation) or ``{"player": "russian", "activate": "Supreme", "free": true}`` (start inside that
command's activation). Units a hand-written position does not list are off the map (eliminated, no
Flight Points added: ``flight_points`` is given as is); leaders it does not list are out of play.

Loading never trusts the file: unknown fields, wrong types, ids and hexes not of this map, values out
of their range and states no rule can reach (two units in a hex, a live unit off the map...) raise
``ScenarioError`` naming the field and the value. ``internal`` is checked array by array against each
value's domain (hex, unit, status, flag bits, task kinds of the stack...) before anything - the
compiled observation kernel above all - reads it, then against the readable fields it must agree with.

A position is the whole state, hidden information included (the Ambush Regiment's hexes, which Dmitri
is real): it is for saving, tests and analysis, not for an agent's eyes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.errors import ScenarioError
from .data import PLAYERS, TYPES
from .state import (
    BIG, A_ACT_START, A_AFTER_ROLL, A_CC_CHARGE, A_END_ACT, A_FIRE, A_POST, A_RESOLVE, D_ADV_PICK, D_CC_FIRE,
    D_DEFENSE, D_FACE, D_LEADER_MOVE, D_MF_SELECT, D_PLACE_REPL, D_RBS_ADVANCE, D_REACT, D_RETREAT, D_RETURN, D_SEIZE,
    D_SETUP_AMBUSH, D_SETUP_FACE, D_SETUP_LEADER, D_SHOCK_MODE, D_SHOCK_SELECT, D_UNIT_ACT, A_ACTIVATE,
    ACTIVATION_FLAGS, D_FREE, DECISION_NAMES, ELIMINATED, F_ADV, F_CA, F_DORMANT, F_RETURNED, G_ACTIVATIONS, G_ACTIVE,
    G_AMBUSH_PLACED, G_CMD, G_DECISIONS, G_FD, G_FIRST, G_FREE, G_HEROIC_M, G_HEROIC_R, G_LAST_CMD, G_MAX_ACT, G_OVER,
    G_SETUP_FREE, G_SP, G_TRUNC, G_WINNER, HIDDEN, L_ACTIVE, L_GONE, L_HIDDEN, LEADER_STATE_NAMES, LF_FD, LF_MOVED,
    LF_OC, LF_REAL, STACK_DEPTH, STATUS_NAMES,
)

FORMAT = "kulikovo-position/1"
FIELDS = ("format", "false_dmitri", "units", "leaders", "standards", "flight_points", "ambush", "activations",
          "max_activations", "winner", "to_move", "internal")
UNIT_FIELDS = ("id", "type", "command", "hex", "facing", "status")
LEADER_FIELDS = ("name", "hex", "state", "rating", "range", "overall", "real")
INT32 = (-2 ** 31, 2 ** 31 - 1)


def unit_id(eng, u: int) -> str:
    p = eng.uplayer[u]
    return f"{'RM'[p]}{u - eng.side_first[p] + 1:02d}"


def to_position(eng, s) -> dict[str, Any]:
    ids = eng.grid.ids
    units = []
    for u in range(eng.U):
        h = int(s.u_hex[u])
        units.append({"id": unit_id(eng, u), "type": TYPES[eng.utype[u]],
                      "command": eng.sc.commands[eng.ucmd[u]]["name"], "hex": ids[h] if h >= 0 else None,
                      "facing": int(s.u_face[u]), "status": STATUS_NAMES[int(s.u_status[u])]})
    leaders = []
    for l in range(eng.NL):
        h = int(s.l_hex[l])
        leaders.append({"name": eng.sc.leaders[l]["name"], "hex": ids[h] if h >= 0 else None,
                        "state": LEADER_STATE_NAMES[int(s.l_state[l])], "rating": int(s.l_rating[l]),
                        "range": int(s.l_range[l]), "overall": bool(s.l_flags[l] & LF_OC),
                        "real": bool(s.l_flags[l] & LF_REAL)})
    pos = {
        "format": FORMAT,
        "false_dmitri": bool(s.g[G_FD]),
        "units": units,
        "leaders": leaders,
        "standards": {PLAYERS[p]: {"hex": ids[int(s.std_hex[p])], "captured": bool(s.std_captured[p])} for p in range(2)},
        "flight_points": {PLAYERS[p]: int(s.fp[p]) for p in range(2)},
        "ambush": {"hexes": [ids[int(h)] for h in s.ambush], "placed": bool(s.g[G_AMBUSH_PLACED]),
                   "activated": bool(s.g[G_AMBUSH_PLACED]) and not any(
                       s.u_flags[u] & F_DORMANT for u in eng.ambush_units)},
        "activations": int(s.g[G_ACTIVATIONS]),
        "max_activations": int(s.g[G_MAX_ACT]),
        "winner": PLAYERS[int(s.g[G_WINNER])] if s.g[G_OVER] and s.g[G_WINNER] >= 0 else None,
        "internal": {name: getattr(s, name).tolist() for name, *_ in s._layout},
    }
    return pos


def _fail(field: str, value: Any, why: str):
    raise ScenarioError(f"position: field '{field}' = {value!r}: {why}")


def _record(field: str, rec: Any, allowed: tuple[str, ...]) -> dict:
    if not isinstance(rec, dict):
        _fail(field, rec, f"expected a table with fields {list(allowed)}")
    for k in rec:
        if k not in allowed:
            _fail(f"{field}.{k}", rec[k], f"unknown field; expected one of {list(allowed)}")
    return rec


def _int(field: str, v: Any, lo: int, hi: int) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        _fail(field, v, f"expected an integer {lo}..{hi}")
    return v


def _bool(field: str, v: Any) -> bool:
    if not isinstance(v, bool):
        _fail(field, v, "expected true or false")
    return v


def _hex(eng, field: str, v: Any) -> int:
    if not isinstance(v, str) or v not in eng.grid.index:
        _fail(field, v, "not a hex id of this map (a string XXYY)")
    return eng.grid.index[v]


def _list(field: str, v: Any) -> list:
    if not isinstance(v, list):
        _fail(field, v, "expected a list")
    return v


def build_state(eng, pos: Any):
    """The state of position ``pos`` (checked; ``ScenarioError`` naming the field and value otherwise)."""
    _record("<position>", pos, FIELDS)
    if pos.get("format", FORMAT) != FORMAT:
        _fail("format", pos.get("format"), f"expected {FORMAT!r}")
    s = _from_internal(eng, pos) if "internal" in pos else _from_fields(eng, pos)
    problems = eng.check_invariants(s)
    if problems:
        _fail("internal" if "internal" in pos else "units", problems[0], "no rule reaches this state")
    return s


# ------------------------------------------------------------------ internal arrays
def _domains(eng) -> dict[str, tuple[Any, Any]]:
    """Per state array, the lowest and highest value each element may hold (scalars or arrays)."""
    N, U, NL, NC = eng.N, eng.U, eng.NL, eng.NC
    g_lo = np.full(eng.state_class.FIELDS["g"], INT32[0], dtype=np.int64)  # unnamed globals: unused
    g_hi = np.full_like(g_lo, INT32[1])
    for i, lo, hi in ((G_SP, 0, STACK_DEPTH), (G_ACTIVE, -1, 1), (G_CMD, -1, NC - 1), (G_LAST_CMD, -1, NC - 1),
                      (G_FREE, 0, 1), (G_ACTIVATIONS, 0, BIG), (G_MAX_ACT, 0, BIG), (G_WINNER, -1, 1), (G_OVER, 0, 1),
                      (G_TRUNC, 0, 1), (G_AMBUSH_PLACED, 0, 1), (G_FD, 0, 1), (G_SETUP_FREE, 0, 1), (G_FIRST, -1, 1),
                      (G_HEROIC_R, 0, 9), (G_HEROIC_M, 0, 9), (G_DECISIONS, 0, INT32[1])):
        g_lo[i], g_hi[i] = lo, hi
    hexes, units = (-1, N - 1), (-1, U - 1)
    return {
        "u_hex": hexes, "u_face": (0, 5), "u_status": (0, len(STATUS_NAMES) - 1), "u_flags": (0, INT32[1]),
        "u_mp": (-99, 99), "u_attacks": (0, 99), "u_tgt": units, "u_dtgt": units, "u_left": hexes, "u_react": units,
        "u_vac": hexes, "u_ccv": units, "hex_unit": units,
        "l_hex": hexes, "l_state": (0, len(LEADER_STATE_NAMES) - 1), "l_rating": (-9, 9), "l_range": (-9, 20),
        "l_flags": (0, LF_OC | LF_MOVED | LF_REAL | LF_FD),
        "std_hex": (0, N - 1), "std_captured": (0, 1), "fp": (0, BIG), "ambush": (0, N - 1),
        "g": (g_lo, g_hi), "stack": INT32,
    }


def _from_internal(eng, pos):
    s = eng.state_class()
    internal = _record("internal", pos["internal"], tuple(name for name, *_ in s._layout))
    if "u_dtgt" not in internal and "u_tgt" in internal:  # a position written before 2026-12-05: the declared
        internal = {**internal, "u_dtgt": internal["u_tgt"]}  # battle was the targets then named (C56)
    domains = _domains(eng)
    for name, _, _, shape in s._layout:
        field = f"internal.{name}"
        if name not in internal:
            _fail(field, None, "missing")
        try:
            arr = np.asarray(internal[name])
        except (ValueError, TypeError):
            arr = None
        if arr is None or arr.shape != shape or (arr.size and arr.dtype.kind not in "iu"):
            _fail(field, internal[name] if arr is None or arr.size < 12 else f"<{arr.dtype} array {list(arr.shape)}>",
                  f"expected integers of shape {list(shape)}")
        lo, hi = domains[name]
        bad = np.argwhere((arr < lo) | (arr > hi))
        if bad.size:
            i = tuple(int(x) for x in bad[0])
            at = "".join(f"[{x}]" for x in i)
            low = lo[i] if isinstance(lo, np.ndarray) else lo
            high = hi[i] if isinstance(hi, np.ndarray) else hi
            _fail(field + at, int(arr[i]), f"expected {low}..{high}")
        getattr(s, name)[...] = arr
    known = ACTIVATION_FLAGS | F_RETURNED | F_DORMANT
    bad = np.flatnonzero(s.u_flags & ~known)
    if bad.size:
        _fail(f"internal.u_flags[{bad[0]}]", int(s.u_flags[bad[0]]), f"unknown flag bits (known: {known})")
    dormant = np.flatnonzero(s.u_flags & F_DORMANT)
    if dormant.size and not (s.g[G_AMBUSH_PLACED] and set(dormant.tolist()) <= set(eng.ambush_units)):
        _fail(f"internal.u_flags[{dormant[0]}]", int(s.u_flags[dormant[0]]),
              "only placed Ambush Regiment units can wait for their activation (15.2)")
    _check_stack(eng, s)
    _check_readable(eng, s, pos)
    if eng.check_invariants(s):
        return s  # build_state names the problem
    try:
        if not s.g[G_OVER]:
            eng._pending(s)  # the pending decision's options: a stack no rule wrote fails here
    except (IndexError, KeyError, ValueError, TypeError, AssertionError, StopIteration) as exc:
        _fail(f"internal.stack[{int(s.g[G_SP]) - 1}]", eng.top(s), f"the pending decision cannot be carried out ({type(exc).__name__})")
    return s


def _check_stack(eng, s) -> None:
    """The live tasks: a known kind, a player, arguments that are -1 or an index of this map, and those that the
    rules read as an index (a unit, a leader, a command, a hex...) in their range: -1 only where the rules
    read -1 as "none" (:func:`_task_args`)."""
    sp = int(s.g[G_SP])
    if sp == 0 and not s.g[G_OVER]:
        _fail("internal.g[G_SP]", sp, "a running game has a pending decision")
    kinds = set(DECISION_NAMES) | set(eng.AUTO)
    for i in range(sp):
        row = s.stack[i].tolist()
        if row[0] not in kinds:
            _fail(f"internal.stack[{i}][0]", row[0], "not a task kind")
        if row[1] not in (0, 1):
            _fail(f"internal.stack[{i}][1]", row[1], "expected a player 0..1")
        args = _task_args(eng, row[0])
        for k, v in enumerate(row[2:], 2):
            what = args[k - 2] if k - 2 < len(args) else None
            if what is None:
                if not -1 <= v < eng.N:
                    _fail(f"internal.stack[{i}][{k}]", v, f"expected -1..{eng.N - 1}")
                continue
            if v in what[1]:
                continue
            name, ok = what
            task = f"a task of kind {row[0]}" + (f" ({DECISION_NAMES[row[0]]!r})" if row[0] in DECISION_NAMES else "")
            if isinstance(ok, range):
                need = "" if ok.start < 0 else f"; {task} needs one here, not -1" if v == -1 else ""
                _fail(f"internal.stack[{i}][{k}]", v, f"expected a {name} {ok.start}..{ok.stop - 1}{need}")
            _fail(f"internal.stack[{i}][{k}]", v, f"expected a {name}, one of {list(ok)} ({task})")
    if not s.g[G_OVER] and s.stack[sp - 1, 0] not in DECISION_NAMES:
        _fail(f"internal.stack[{sp - 1}][0]", int(s.stack[sp - 1, 0]), "the top of the stack is a decision")


def _task_args(eng, kind: int) -> tuple:
    """What the arguments of a task of ``kind`` (row[2:]) are: (name, the values allowed), or None (a number the
    rules do not use as an index, an optional hex: -1..N-1, as for the arguments not listed). The compiled rules
    read the arrays at these indices without checking them, so -1 (which would read the last entry) is allowed
    only where the rules test for it ("no unit": an optional counter-charger, a tied attacker's empty slot...)."""
    def need(name, n):
        return name, range(n)

    def opt(name, n):
        return name, range(-1, n)

    U, L, C, H = need("unit", eng.U), need("leader", eng.NL), need("command", eng.NC), need("hex", eng.N)
    K = need("slot of the Ambush Regiment", len(eng.ambush_units))
    u, flag = opt("unit", eng.U), ("flag", range(2))
    return {
        D_SETUP_AMBUSH: (K,), D_SETUP_FACE: (U,), D_SETUP_LEADER: (L,), D_SEIZE: (C,), D_PLACE_REPL: (L,),
        D_MF_SELECT: (C,), D_UNIT_ACT: (U,), D_LEADER_MOVE: (L,), D_REACT: (U, U), D_RETURN: (U, U),
        D_CC_FIRE: (U, U), D_SHOCK_SELECT: (C,), D_SHOCK_MODE: (U,), D_DEFENSE: (U, u),
        D_RBS_ADVANCE: (H, u, u, u, u, u, u, u), D_ADV_PICK: (H, ("flag", (F_ADV, F_CA)), u, u, u, u, u, u),
        D_RETREAT: (U, ("retreat mode", range(2)), H, u), D_FACE: (U,), A_ACTIVATE: (C, flag), A_ACT_START: (C,),
        A_END_ACT: (C, flag), A_FIRE: (U, U, flag), A_RESOLVE: (U, u, flag, u), A_AFTER_ROLL: (U, u, None, flag, u),
        A_POST: (U,), A_CC_CHARGE: (U, U),
    }.get(kind, ())


def _check_readable(eng, s, pos) -> None:
    """The readable fields given beside ``internal`` must say what the arrays say."""
    if not any(k in pos for k in FIELDS if k not in ("format", "internal")):
        return
    mine = to_position(eng, s)
    for k in FIELDS:
        if k in ("format", "internal", "to_move") or k not in pos or pos[k] == mine[k]:
            continue
        if isinstance(pos[k], dict) and isinstance(mine[k], dict) and set(pos[k]) < set(mine[k]) \
                and all(pos[k][f] == mine[k][f] for f in pos[k]):
            continue  # a record given with fewer fields (written before a field was added): those agree
        if isinstance(pos[k], list) and isinstance(mine[k], list) and len(pos[k]) == len(mine[k]):
            i = next(i for i, (a, b) in enumerate(zip(pos[k], mine[k])) if a != b)
            _fail(f"{k}[{i}]", pos[k][i], f"disagrees with 'internal' (which gives {mine[k][i]!r})")
        _fail(k, pos[k], f"disagrees with 'internal' (which gives {mine[k]!r})")


# ------------------------------------------------------------------ readable fields (hand-written)
def _from_fields(eng, pos):
    s = eng.state_class()
    idx = eng.grid.index
    s.u_hex[:] = -1
    s.u_status[:] = ELIMINATED
    s.hex_unit[:] = -1
    s.u_tgt[:] = -1
    s.u_dtgt[:] = -1
    s.u_left[:] = -1
    s.u_react[:] = -1
    s.u_vac[:] = -1
    s.u_ccv[:] = -1
    s.l_hex[:] = -1
    s.l_state[:] = L_GONE
    s.g[G_WINNER] = -1
    by_id = {unit_id(eng, u): u for u in range(eng.U)}
    seen = set()
    units = _list("units", pos.get("units"))
    if not units:
        _fail("units", units, "expected a non-empty list of units (those not listed are eliminated)")
    for i, rec in enumerate(units):
        f = f"units[{i}]"
        _record(f, rec, UNIT_FIELDS)
        if not isinstance(rec.get("id"), str) or rec["id"] not in by_id:
            _fail(f"{f}.id", rec.get("id"), f"unknown unit id (R01..R{len(eng.side_units[0]):02d}, M01..M{len(eng.side_units[1]):02d})")
        if rec["id"] in seen:
            _fail(f"{f}.id", rec["id"], "unit listed twice")
        seen.add(rec["id"])
        u = by_id[rec["id"]]
        if "type" in rec and rec["type"] != TYPES[eng.utype[u]]:
            _fail(f"{f}.type", rec["type"], f"unit {rec['id']} is a {TYPES[eng.utype[u]]}")
        if "command" in rec and rec["command"] != eng.sc.commands[eng.ucmd[u]]["name"]:
            _fail(f"{f}.command", rec["command"], f"unit {rec['id']} belongs to {eng.sc.commands[eng.ucmd[u]]['name']}")
        status = rec.get("status", "normal")
        if status not in STATUS_NAMES:
            _fail(f"{f}.status", status, f"expected one of {STATUS_NAMES}")
        st = STATUS_NAMES.index(status)
        s.u_face[u] = _int(f"{f}.facing", rec.get("facing", 0), 0, 5)
        s.u_status[u] = st
        if st in (ELIMINATED, HIDDEN):
            if st == HIDDEN and u not in eng.ambush_units:
                _fail(f"{f}.status", status, "only Ambush Regiment units can be hidden")
            if rec.get("hex") is not None:
                _fail(f"{f}.hex", rec["hex"], f"a {status} unit is off the map (hex null)")
            continue
        h = _hex(eng, f"{f}.hex", rec.get("hex"))
        if s.hex_unit[h] >= 0:
            _fail(f"{f}.hex", rec["hex"], "hex already holds a unit (8.0)")
        s.u_hex[u] = h
        s.hex_unit[h] = u
    fd = _bool("false_dmitri", pos.get("false_dmitri", False))
    names = [l["name"] for l in eng.sc.leaders]
    listed = set()
    for i, rec in enumerate(_list("leaders", pos.get("leaders", []))):
        f = f"leaders[{i}]"
        _record(f, rec, LEADER_FIELDS)
        if rec.get("name") not in names:
            _fail(f"{f}.name", rec.get("name"), f"expected one of {names}")
        l = names.index(rec["name"])
        if l in listed:
            _fail(f"{f}.name", rec["name"], "leader listed twice")
        listed.add(l)
        base = eng.sc.leaders[l]
        state = rec.get("state", "active")
        if state not in LEADER_STATE_NAMES:
            _fail(f"{f}.state", state, f"expected one of {LEADER_STATE_NAMES}")
        if base["false_dmitri"] and not fd and state != "gone":
            _fail(f"{f}.name", rec["name"], "in play only under the False Dmitri rule (false_dmitri: true, 13.4)")
        s.l_state[l] = LEADER_STATE_NAMES.index(state)
        if rec.get("hex") is not None:
            s.l_hex[l] = _hex(eng, f"{f}.hex", rec["hex"])
        s.l_rating[l] = _int(f"{f}.rating", rec.get("rating", base["rating"]), 0, 9)
        s.l_range[l] = _int(f"{f}.range", rec.get("range", base["range"]), 0, 20)
        flags = 0
        if _bool(f"{f}.overall", rec.get("overall", base["overall"] and not base["false_dmitri"])):
            flags |= LF_OC
        if _bool(f"{f}.real", rec.get("real", base["player"] == 0 and base["overall"] and not base["false_dmitri"])):
            if not (base["player"] == 0 and base["overall"]):
                _fail(f"{f}.real", True, "only a Dmitri counter can be the real Dmitri (13.4)")
            flags |= LF_REAL
        s.l_flags[l] = flags
    if fd:
        s.g[G_FD] = 1
        dmitris = [l for l in eng.side_leaders[0] if eng.sc.leaders[l]["overall"]]
        for l in dmitris:
            s.l_flags[l] |= LF_FD | LF_OC
        if sum(1 for l in dmitris if s.l_flags[l] & LF_REAL) != 1:
            _fail("leaders.real", [names[l] for l in dmitris if s.l_flags[l] & LF_REAL],
                  "exactly one Dmitri counter is the real one (13.4)")
    stds = _record("standards", pos.get("standards", {}), PLAYERS)
    for p in range(2):
        f = f"standards.{PLAYERS[p]}"
        rec = _record(f, stds.get(PLAYERS[p], {}), ("hex", "captured"))
        s.std_hex[p] = _hex(eng, f"{f}.hex", rec.get("hex", eng.grid.ids[eng.sc.standards[p]]))
        s.std_captured[p] = int(_bool(f"{f}.captured", rec.get("captured", False)))
    fp = _record("flight_points", pos.get("flight_points", {}), PLAYERS)
    for p in range(2):
        s.fp[p] = _int(f"flight_points.{PLAYERS[p]}", fp.get(PLAYERS[p], 0), 0, BIG)
    amb = _record("ambush", pos.get("ambush", {}), ("hexes", "placed", "activated"))
    hexes = _list("ambush.hexes", amb.get("hexes", [eng.grid.ids[h] for h in eng.sc.ambush_default]))
    if len(hexes) != len(eng.ambush_units):
        _fail("ambush.hexes", hexes, f"expected {len(eng.ambush_units)} hex ids")
    s.ambush[:] = [_hex(eng, f"ambush.hexes[{k}]", h) for k, h in enumerate(hexes)]
    if len(set(s.ambush.tolist())) != len(hexes):
        _fail("ambush.hexes", hexes, "hexes must differ")
    hidden = [u for u in eng.ambush_units if s.u_status[u] == HIDDEN]
    placed = _bool("ambush.placed", amb.get("placed", not hidden))
    if not placed and len(hidden) != len(eng.ambush_units):
        _fail("ambush.placed", placed, "an unplaced Ambush Regiment has all its units hidden")
    s.g[G_AMBUSH_PLACED] = int(placed)
    # 15.2: placed by a Mongol line of sight, its units do nothing until the Regiment is activated
    activated = _bool("ambush.activated", amb.get("activated", placed))
    if activated and not placed:
        _fail("ambush.activated", activated, "an unplaced Ambush Regiment has not been activated")
    if not activated:
        for u in eng.ambush_units:
            s.u_flags[u] |= F_DORMANT
    if not placed:
        for l in eng.cmd_leaders[eng.ambush_cmd]:
            if s.l_state[l] == L_ACTIVE:
                s.l_state[l] = L_HIDDEN
    s.g[G_ACTIVATIONS] = _int("activations", pos.get("activations", 0), 0, BIG)
    max_act = pos.get("max_activations", eng.DEFAULT_MAX_ACTIVATIONS)
    s.g[G_MAX_ACT] = _int("max_activations", max_act, 0, BIG)
    if pos.get("winner") is not None:
        _fail("winner", pos["winner"], "a hand-written position starts a running game (winner null)")
    tm = _record("to_move", pos.get("to_move", {"player": "russian"}), ("player", "activate", "free"))
    if tm.get("player") not in PLAYERS:
        _fail("to_move.player", tm.get("player"), f"expected one of {PLAYERS}")
    p = PLAYERS.index(tm["player"])
    if "activate" in tm:
        cmds = [c["name"] for c in eng.sc.commands]
        if tm["activate"] not in cmds or eng.cmd_player[cmds.index(tm["activate"])] != p:
            _fail("to_move.activate", tm["activate"], f"expected a {PLAYERS[p]} command")
        free = _bool("to_move.free", tm.get("free", True))
        eng.push(s, A_ACTIVATE, p, cmds.index(tm["activate"]), int(free))
    else:
        if "free" in tm:
            _fail("to_move.free", tm["free"], "only with 'activate'")
        eng.push(s, D_FREE, p)
    return s
