"""Positions: the game state as a JSON-friendly dict (``to_position``) and back (``build_state``).

Format (every key optional; omitted = standard scenario value)::

    {
      "format": "breitenfeld-position/1",
      "turn": 3,
      "phase": "combat",                     # turn_start | artillery | activation | movement | combat | over
      "active_corps": "imp_center",          # the activated corps (movement / combat)
      "visibility": "clear",                 # clear | moderate | restricted (visibility option)
      "units": {"IC1": "1504", "SC3": {"hex": "1404", "disrupted": true, "flags": ["moved"], "start": "1604"}},
      "leaders": {"tilly": "1504"},
      "artillery": {"SA1": {"hex": "1115", "owner": "imperial"}},
      "cup": ["allied_left", "imp_right"],   # corps chits still in the cup
      "globals": {"eliminated_sp_2": 40},    # any scalar of state.GLOBAL_NAMES
    }

If ``units`` / ``leaders`` / ``artillery`` is given, only the pieces it lists are in play (the others are
absent: not eliminated, no victory points). A unit's hex may be ``"eliminated"`` or ``"exited"``. When the
position names a phase but no pending decision, that phase starts from its beginning (for a combat phase
the obligations are fixed from the position); positions written by ``to_position`` carry the pending
decision and continue exactly.
"""

from __future__ import annotations

from typing import Any

from ..core.errors import ScenarioError
from .data import SIDES
from .sequence import VIS_NAMES, enter_phase
from .state import (D_NONE, DECISION_KEYS, F_ATK, F_CHARGE, F_DEF, F_FORCED, F_IN_ATK, F_MOVED, F_MUST_ATK,
                    F_MUST_DEF, F_NOWD, F_OOC, F_SPENT, G_ACTIVE, G_ART_IDX, G_ART_SIDE, G_DEC, G_DONE, G_DRAWN,
                    G_LOSS_SIDE, G_MAY0, G_MP, G_PHASE, G_PLAYER, G_SEL, G_TE_OPT, G_TURN, G_VIS, G_VIS_OPT,
                    GLOBAL_NAMES, LF_MOVED, OFF_ABSENT, OFF_ELIM, OFF_EXIT, PH_OVER, PH_TURN_START, PHASE_NAMES)

FORMAT = "breitenfeld-position/1"
FLAG_NAMES = {"moved": F_MOVED, "spent": F_SPENT, "attacked": F_ATK, "was_attacked": F_DEF,
              "must_attack": F_MUST_ATK, "must_be_attacked": F_MUST_DEF, "in_attack": F_IN_ATK,
              "no_withdraw": F_NOWD, "out_of_command": F_OOC, "forced": F_FORCED, "charging": F_CHARGE}
OFF_NAMES = {OFF_ELIM: "eliminated", OFF_EXIT: "exited"}


def _err(field: str, value: Any, why: str):
    raise ScenarioError(f"position: field '{field}' = {value!r}: {why}")


def _piece_entry(table: str, ids, pid: str, value, unknown: str) -> tuple[int, dict]:
    """(index, entry) of piece ``pid`` in position table ``table``: the entry is a hex id or a dict
    with ``hex``, normalised to the dict."""
    if pid not in ids:
        _err(f"{table}.{pid}", value, unknown)
    if isinstance(value, str):
        value = {"hex": value}
    if not isinstance(value, dict) or "hex" not in value:
        _err(f"{table}.{pid}", value, "expected a hex id or a dict with 'hex'")
    return ids.index(pid), value


def _hex(E, field: str, value) -> int:
    if isinstance(value, str):
        if value in E.grid.index:
            return E.grid.index[value]
        for k, name in OFF_NAMES.items():
            if value == name:
                return k
    _err(field, value, "expected a hex id XXYY of this map, 'eliminated' or 'exited'")


def build_state(E, options: dict) -> Any:
    D = E.D
    s = E.state_class()
    g = s.g
    g[:] = 0
    g[G_TURN] = 1
    g[G_ACTIVE] = -1
    g[G_SEL] = -1
    g[G_MP] = -1
    g[G_DRAWN] = -1
    g[G_LOSS_SIDE] = -1
    g[G_TE_OPT] = 1 if options.get("turn_ends_chit", False) else 0
    g[G_VIS_OPT] = 1 if options.get("visibility", False) else 0
    g[G_VIS] = D.vis_first if g[G_VIS_OPT] else 0
    s.u_hex[:] = D.unit_start
    s.u_start[:] = D.unit_start
    s.l_hex[:] = D.leader_start
    s.a_hex[:] = D.art_start
    s.a_owner[:] = D.art_side
    s.a_target[:] = -1
    s.cup[:] = 1
    g[G_PHASE] = PH_TURN_START
    pos = options.get("position")
    if pos is None:
        return s
    if not isinstance(pos, dict):
        _err("position", type(pos).__name__, "expected a dict (as to_position returns)")
    unknown = set(pos) - {"format", "turn", "phase", "active_corps", "visibility", "units", "leaders", "artillery",
                          "cup", "globals", "victory_points", "decision"}
    if unknown:
        _err(sorted(unknown)[0], pos[sorted(unknown)[0]], "unknown position key")
    if pos.get("format", FORMAT) != FORMAT:
        _err("format", pos["format"], f"expected {FORMAT!r}")
    if "turn" in pos:
        t = pos["turn"]
        if not isinstance(t, int) or isinstance(t, bool) or not 1 <= t <= D.turns:
            _err("turn", t, f"expected an integer 1..{D.turns}")
        g[G_TURN] = t
    if "units" in pos:
        units = pos["units"]
        if not isinstance(units, dict):
            _err("units", units, "expected a dict unit id -> hex or {hex, disrupted, flags, start}")
        s.u_hex[:] = OFF_ABSENT
        s.u_start[:] = -1
        for uid, v in units.items():
            if uid not in D.unit_ids:
                _err(f"units.{uid}", v, "no such unit")
            u = D.unit_ids.index(uid)
            if isinstance(v, str):
                v = {"hex": v}
            if not isinstance(v, dict) or "hex" not in v:
                _err(f"units.{uid}", v, "expected a hex id or a dict with 'hex'")
            bad = set(v) - {"hex", "disrupted", "flags", "start"}
            if bad:
                _err(f"units.{uid}.{sorted(bad)[0]}", v[sorted(bad)[0]], "unknown unit key")
            s.u_hex[u] = _hex(E, f"units.{uid}.hex", v["hex"])
            dis = v.get("disrupted", False)
            if not isinstance(dis, bool):
                _err(f"units.{uid}.disrupted", dis, "expected true/false")
            s.u_dis[u] = int(dis and s.u_hex[u] >= 0)
            f = 0
            for name in v.get("flags", []):
                if name not in FLAG_NAMES:
                    _err(f"units.{uid}.flags", name, f"expected one of {sorted(FLAG_NAMES)}")
                f |= FLAG_NAMES[name]
            s.u_flags[u] = f
            if v.get("start") is None:
                s.u_start[u] = -1 if "start" in v else max(int(s.u_hex[u]), -1)
            else:
                s.u_start[u] = _hex(E, f"units.{uid}.start", v["start"])
        hexes = [h for h in s.u_hex.tolist() if h >= 0]
        if len(hexes) != len(set(hexes)):
            dup = sorted({D.grid.ids[h] for h in hexes if hexes.count(h) > 1})
            _err("units", dup, "more than one unit in a hex (6.32)")
    if "leaders" in pos:
        leaders = pos["leaders"]
        if not isinstance(leaders, dict):
            _err("leaders", leaders, "expected a dict leader id -> hex or {hex, moved}")
        s.l_hex[:] = OFF_ABSENT
        for lid, v in leaders.items():
            l, v = _piece_entry("leaders", D.leader_ids, lid, v, "no such leader")
            s.l_hex[l] = _hex(E, f"leaders.{lid}.hex", v["hex"])
            s.l_flags[l] = LF_MOVED if v.get("moved", False) else 0
    if "artillery" in pos:
        arts = pos["artillery"]
        if not isinstance(arts, dict):
            _err("artillery", arts, "expected a dict artillery id -> hex or {hex, owner, target}")
        s.a_hex[:] = OFF_ABSENT
        for aid, v in arts.items():
            a, v = _piece_entry("artillery", D.art_ids, aid, v, "no such artillery counter")
            h = v["hex"]
            if h not in E.grid.index:
                _err(f"artillery.{aid}.hex", h, "expected a hex id of this map")
            s.a_hex[a] = E.grid.index[h]
            own = v.get("owner", SIDES[D.art_side[a]])
            if own not in SIDES:
                _err(f"artillery.{aid}.owner", own, f"expected one of {SIDES}")
            s.a_owner[a] = SIDES.index(own)
            t = v.get("target")
            s.a_target[a] = -1 if t is None else _hex(E, f"artillery.{aid}.target", t)
    if "cup" in pos:
        cup = pos["cup"]
        if not isinstance(cup, list):
            _err("cup", cup, "expected a list of corps ids")
        s.cup[:] = 0
        for c in cup:
            if c not in D.corps_ids:
                _err("cup", c, f"expected corps ids from {list(D.corps_ids)}")
            s.cup[D.corps_ids.index(c)] = 1
    if "visibility" in pos:
        v = pos["visibility"]
        if v not in VIS_NAMES:
            _err("visibility", v, f"expected one of {VIS_NAMES}")
        g[G_VIS] = VIS_NAMES.index(v)
    phase = PH_TURN_START
    if "phase" in pos:
        if pos["phase"] not in PHASE_NAMES:
            _err("phase", pos["phase"], f"expected one of {PHASE_NAMES}")
        phase = PHASE_NAMES.index(pos["phase"])
    if "active_corps" in pos:
        c = pos["active_corps"]
        if c not in D.corps_ids:
            _err("active_corps", c, f"expected one of {list(D.corps_ids)}")
        g[G_ACTIVE] = D.corps_ids.index(c)
        s.cup[D.corps_ids.index(c)] = 0 if "cup" not in pos else s.cup[D.corps_ids.index(c)]
    elif phase in (PHASE_NAMES.index("movement"), PHASE_NAMES.index("combat")):
        _err("active_corps", None, f"phase {pos['phase']!r} needs the activated corps")
    # releases (12.3 / 12.4) from the turn; globals may override
    for side in (0, 1):
        if int(g[G_TURN]) >= D.release_turn[side]:
            g[G_MAY0 + side] = 1
    glob = pos.get("globals", {})
    if not isinstance(glob, dict):
        _err("globals", glob, "expected a dict name -> integer")
    for k, v in glob.items():
        if k not in GLOBAL_NAMES:
            _err(f"globals.{k}", v, f"expected one of {GLOBAL_NAMES}")
        if not isinstance(v, int) or isinstance(v, bool):
            _err(f"globals.{k}", v, "expected an integer")
        g[GLOBAL_NAMES.index(k)] = v
    g[G_PHASE] = phase
    if phase == PH_OVER:
        g[G_DONE] = 1
        g[G_PLAYER] = -1
    elif int(g[G_DEC]) == D_NONE:
        g[G_PLAYER] = 0
        enter_phase(E, s, phase)
    return s


def to_position(E, s) -> dict[str, Any]:
    D = E.D
    units = {}
    for u, uid in enumerate(D.unit_ids):
        h = int(s.u_hex[u])
        if h == OFF_ABSENT:
            continue
        f = int(s.u_flags[u])
        st = int(s.u_start[u])
        units[uid] = {"hex": D.grid.ids[h] if h >= 0 else OFF_NAMES[h], "disrupted": bool(s.u_dis[u]),
                      "flags": [n for n, b in FLAG_NAMES.items() if f & b],
                      "start": D.grid.ids[st] if st >= 0 else None}
    leaders = {}
    for l, lid in enumerate(D.leader_ids):
        h = int(s.l_hex[l])
        if h == OFF_ABSENT:
            continue
        leaders[lid] = {"hex": D.grid.ids[h] if h >= 0 else OFF_NAMES[h], "moved": bool(s.l_flags[l] & LF_MOVED)}
    arts = {}
    for a, aid in enumerate(D.art_ids):
        h = int(s.a_hex[a])
        if h == OFF_ABSENT:
            continue
        t = int(s.a_target[a])
        arts[aid] = {"hex": D.grid.ids[h], "owner": SIDES[int(s.a_owner[a])],
                     "target": D.grid.ids[t] if t >= 0 else None}
    g = s.g.tolist()
    pos = {
        "format": FORMAT,
        "turn": g[G_TURN],
        "phase": PHASE_NAMES[g[G_PHASE]],
        "decision": DECISION_KEYS[g[G_DEC]],
        "visibility": VIS_NAMES[g[G_VIS]],
        "units": units,
        "leaders": leaders,
        "artillery": arts,
        "cup": [c for k, c in enumerate(D.corps_ids) if s.cup[k]],
        "globals": {name: int(v) for name, v in zip(GLOBAL_NAMES, g)},
    }
    if g[G_ACTIVE] >= 0:
        pos["active_corps"] = D.corps_ids[g[G_ACTIVE]]
    from .victory import victory_points
    pos["victory_points"] = dict(zip(SIDES, victory_points(D, s)))
    return pos


__all__ = ["build_state", "to_position", "FORMAT", "G_ART_IDX", "G_ART_SIDE", "G_PLAYER", "G_PHASE"]
