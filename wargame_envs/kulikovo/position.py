"""Positions: the state as a JSON-friendly dict (``to_position``) and back (``build_state``).

Readable part: units (id, type, command, hex, facing, status), leaders, Standards, permanent Flight
Points, Ambush Regiment, activation counter, who is to move. ``to_position`` also writes ``internal``
(every state array), so a position taken mid-activation restores exactly. A hand-written position (rule
tests, puzzles) leaves ``internal`` out and names ``to_move``: ``{"player": "russian"}`` (a free
activation) or ``{"player": "russian", "activate": "Supreme", "free": true}`` (start inside that
command's activation). Units a hand-written position does not list are off the map (eliminated, no
Flight Points added: ``flight_points`` is given as is); leaders it does not list are out of play.

A position is the whole state, hidden information included (the Ambush Regiment's hexes, which Dmitri
is real): it is for saving, tests and analysis, not for an agent's eyes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.errors import ScenarioError
from .data import PLAYERS, TYPES
from .state import (
    A_ACTIVATE, D_FREE, ELIMINATED, G_ACTIVATIONS, G_AMBUSH_PLACED, G_FD, G_MAX_ACT, G_OVER, G_WINNER,
    HIDDEN, L_ACTIVE, L_GONE, L_HIDDEN, LEADER_STATE_NAMES, LF_FD, LF_OC, LF_REAL, STATUS_NAMES,
)

FORMAT = "kulikovo-position/1"


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
        "ambush": {"hexes": [ids[int(h)] for h in s.ambush], "placed": bool(s.g[G_AMBUSH_PLACED])},
        "activations": int(s.g[G_ACTIVATIONS]),
        "max_activations": int(s.g[G_MAX_ACT]),
        "winner": PLAYERS[int(s.g[G_WINNER])] if s.g[G_OVER] and s.g[G_WINNER] >= 0 else None,
        "internal": {name: getattr(s, name).tolist() for name, *_ in s._layout},
    }
    return pos


def _fail(field: str, value: Any, why: str):
    raise ScenarioError(f"position: field '{field}' = {value!r}: {why}")


def build_state(eng, pos: dict[str, Any], options: dict[str, Any]):
    if not isinstance(pos, dict):
        _fail("<top>", type(pos).__name__, "a position is a dict")
    if pos.get("format", FORMAT) != FORMAT:
        _fail("format", pos.get("format"), f"expected {FORMAT!r}")
    s = eng.state_class()
    if "internal" in pos:
        internal = pos["internal"]
        for name, a, b, shape in s._layout:
            if name not in internal:
                _fail(f"internal.{name}", None, "missing")
            arr = np.asarray(internal[name], dtype=np.int32)
            if arr.shape != (shape if shape else ()):
                _fail(f"internal.{name}", list(arr.shape), f"expected shape {shape}")
            getattr(s, name)[...] = arr
        return s
    idx = eng.grid.index
    s.u_hex[:] = -1
    s.u_status[:] = ELIMINATED
    s.hex_unit[:] = -1
    s.u_tgt[:] = -1
    s.u_left[:] = -1
    s.u_react[:] = -1
    s.u_vac[:] = -1
    s.u_ccv[:] = -1
    s.l_hex[:] = -1
    s.l_state[:] = L_GONE
    s.g[G_WINNER] = -1
    by_id = {unit_id(eng, u): u for u in range(eng.U)}
    for i, rec in enumerate(pos.get("units", [])):
        f = f"units[{i}]"
        if not isinstance(rec, dict) or rec.get("id") not in by_id:
            _fail(f"{f}.id", rec.get("id") if isinstance(rec, dict) else rec, f"unknown unit id (R01..R{len(eng.side_units[0]):02d}, M01..M{len(eng.side_units[1]):02d})")
        u = by_id[rec["id"]]
        if "type" in rec and rec["type"] != TYPES[eng.utype[u]]:
            _fail(f"{f}.type", rec["type"], f"unit {rec['id']} is a {TYPES[eng.utype[u]]}")
        if "command" in rec and rec["command"] != eng.sc.commands[eng.ucmd[u]]["name"]:
            _fail(f"{f}.command", rec["command"], f"unit {rec['id']} belongs to {eng.sc.commands[eng.ucmd[u]]['name']}")
        status = rec.get("status", "normal")
        if status not in STATUS_NAMES:
            _fail(f"{f}.status", status, f"expected one of {STATUS_NAMES}")
        st = STATUS_NAMES.index(status)
        face = rec.get("facing", 0)
        if not isinstance(face, int) or not 0 <= face <= 5:
            _fail(f"{f}.facing", face, "expected 0..5")
        s.u_face[u] = face
        s.u_status[u] = st
        if st in (ELIMINATED, HIDDEN):
            if st == HIDDEN and u not in eng.ambush_units:
                _fail(f"{f}.status", status, "only Ambush Regiment units can be hidden")
            continue
        h = rec.get("hex")
        if h not in idx:
            _fail(f"{f}.hex", h, "not a hex id of this map")
        h = idx[h]
        if s.hex_unit[h] >= 0:
            _fail(f"{f}.hex", rec["hex"], "hex already holds a unit (8.0)")
        s.u_hex[u] = h
        s.hex_unit[h] = u
    names = [l["name"] for l in eng.sc.leaders]
    for i, rec in enumerate(pos.get("leaders", [])):
        f = f"leaders[{i}]"
        if not isinstance(rec, dict) or rec.get("name") not in names:
            _fail(f"{f}.name", rec.get("name") if isinstance(rec, dict) else rec, f"expected one of {names}")
        l = names.index(rec["name"])
        base = eng.sc.leaders[l]
        state = rec.get("state", "active")
        if state not in LEADER_STATE_NAMES:
            _fail(f"{f}.state", state, f"expected one of {LEADER_STATE_NAMES}")
        s.l_state[l] = LEADER_STATE_NAMES.index(state)
        h = rec.get("hex")
        if h is not None:
            if h not in idx:
                _fail(f"{f}.hex", h, "not a hex id of this map")
            s.l_hex[l] = idx[h]
        s.l_rating[l] = rec.get("rating", base["rating"])
        s.l_range[l] = rec.get("range", base["range"])
        flags = 0
        if rec.get("overall", base["overall"] and not base["false_dmitri"]):
            flags |= LF_OC
        if rec.get("real", base["player"] == 0 and base["overall"] and not base["false_dmitri"]):
            flags |= LF_REAL
        s.l_flags[l] = flags
    fd = bool(pos.get("false_dmitri", False))
    if fd:
        s.g[G_FD] = 1
        for l in eng.side_leaders[0]:
            if eng.sc.leaders[l]["overall"]:
                s.l_flags[l] |= LF_FD | LF_OC
    stds = pos.get("standards", {})
    for p in range(2):
        rec = stds.get(PLAYERS[p], {})
        h = rec.get("hex", eng.grid.ids[eng.sc.standards[p]])
        if h not in idx:
            _fail(f"standards.{PLAYERS[p]}.hex", h, "not a hex id of this map")
        s.std_hex[p] = idx[h]
        s.std_captured[p] = int(bool(rec.get("captured", False)))
    fp = pos.get("flight_points", {})
    for p in range(2):
        v = fp.get(PLAYERS[p], 0)
        if not isinstance(v, int) or v < 0:
            _fail(f"flight_points.{PLAYERS[p]}", v, "expected a non-negative integer")
        s.fp[p] = v
    amb = pos.get("ambush", {})
    hexes = amb.get("hexes", [eng.grid.ids[h] for h in eng.sc.ambush_default])
    if len(hexes) != len(eng.ambush_units) or any(h not in idx for h in hexes):
        _fail("ambush.hexes", hexes, f"expected {len(eng.ambush_units)} hex ids")
    s.ambush[:] = [idx[h] for h in hexes]
    hidden = [u for u in eng.ambush_units if s.u_status[u] == HIDDEN]
    placed = amb.get("placed", not hidden)
    if not placed and len(hidden) != len(eng.ambush_units):
        _fail("ambush.placed", placed, "an unplaced Ambush Regiment has all its units hidden")
    s.g[G_AMBUSH_PLACED] = int(bool(placed))
    if not placed:
        for l in eng.cmd_leaders[eng.ambush_cmd]:
            if s.l_state[l] == L_ACTIVE:
                s.l_state[l] = L_HIDDEN
    s.g[G_ACTIVATIONS] = pos.get("activations", 0)
    s.g[G_MAX_ACT] = options.get("max_activations", pos.get("max_activations", eng.DEFAULT_MAX_ACTIVATIONS))
    tm = pos.get("to_move", {"player": "russian"})
    if tm.get("player") not in PLAYERS:
        _fail("to_move.player", tm.get("player"), f"expected one of {PLAYERS}")
    p = PLAYERS.index(tm["player"])
    if "activate" in tm:
        cmds = [c["name"] for c in eng.sc.commands]
        if tm["activate"] not in cmds or eng.cmd_player[cmds.index(tm["activate"])] != p:
            _fail("to_move.activate", tm["activate"], f"expected a {PLAYERS[p]} command")
        eng.push(s, A_ACTIVATE, p, cmds.index(tm["activate"]), int(bool(tm.get("free", True))))
    else:
        eng.push(s, D_FREE, p)
    return s


