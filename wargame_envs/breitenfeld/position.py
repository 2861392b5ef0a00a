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
from .events import VIS_NAMES
from .compiled import enter_phase
from .state import (AC_ATT_LEADERS, AC_CHARGE, AC_DEF_LEADERS, D_ART, D_ATTACK, D_COMBAT, D_LEADER, D_LOSS,
                    D_MOVE_DEST, D_MOVE_SELECT, D_NONE, D_SWAP, DECISION_KEYS, F_ATK, F_CHARGE, F_DEF, F_FORCED,
                    F_IN_ATK, F_MOVED, F_MUST_ATK, F_MUST_DEF, F_NOWD, F_OOC, F_SPENT, G_ACTIVE, G_ART_IDX,
                    G_ART_SIDE, G_DEC, G_DEMOR, G_DONE, G_DRAWN, G_ELIM0, G_LOSS_SIDE, G_MAY0, G_MP, G_PHASE,
                    G_PLAYER, G_RES, G_SEL, G_TE_OPT, G_TURN, G_VIS, G_VIS_OPT, GLOBAL_NAMES, LF_MOVED, OFF_ABSENT,
                    OFF_ELIM, OFF_EXIT, PH_ACTIVATION, PH_ARTILLERY, PH_COMBAT, PH_MOVEMENT, PH_OVER, PH_TURN_START,
                    PHASE_NAMES, RESULT_CODES)

FORMAT = "breitenfeld-position/1"
FLAG_NAMES = {"moved": F_MOVED, "spent": F_SPENT, "attacked": F_ATK, "was_attacked": F_DEF,
              "must_attack": F_MUST_ATK, "must_be_attacked": F_MUST_DEF, "in_attack": F_IN_ATK,
              "no_withdraw": F_NOWD, "out_of_command": F_OOC, "forced": F_FORCED, "charging": F_CHARGE}
OFF_NAMES = {OFF_ELIM: "eliminated", OFF_EXIT: "exited"}


def _err(field: str, value: Any, why: str):
    raise ScenarioError(f"position: field '{field}' = {value!r}: {why}")


def _check_keys(field: str, entry: dict, allowed: set[str]) -> None:
    bad = sorted(str(k) for k in entry if k not in allowed)
    if bad:
        _err(f"{field}.{bad[0]}", entry[bad[0]], f"unknown key; expected some of {sorted(allowed)}")


def _piece_entry(table: str, ids, pid, value, unknown: str, keys: set[str]) -> tuple[int, dict]:
    """(index, entry) of piece ``pid`` in position table ``table``: the entry is a hex id or a dict
    with ``hex`` (and only ``keys``), normalised to the dict."""
    if pid not in ids:
        _err(f"{table}.{pid}", value, unknown)
    if isinstance(value, str):
        value = {"hex": value}
    if not isinstance(value, dict) or "hex" not in value:
        _err(f"{table}.{pid}", value, "expected a hex id or a dict with 'hex'")
    _check_keys(f"{table}.{pid}", value, keys)
    return ids.index(pid), value


def _bool(field: str, value) -> bool:
    if not isinstance(value, bool):
        _err(field, value, "expected true or false")
    return value


def _hex(E, field: str, value, off: tuple[int, ...] = (OFF_ELIM, OFF_EXIT)) -> int:
    """The hex index of ``value``: a hex id of the map, or one of the off-map names ``off`` allows."""
    if isinstance(value, str):
        if value in E.grid.index:
            return E.grid.index[value]
        for k in off:
            if value == OFF_NAMES[k]:
                return k
    names = "".join(f", {OFF_NAMES[k]!r}" for k in off)
    _err(field, value, f"expected a hex id XXYY of this map{names}")


def _name(field: str, value, names) -> int:
    """Index of ``value`` in ``names`` (a tuple of strings)."""
    if not isinstance(value, str) or value not in names:
        _err(field, value, f"expected one of {list(names)}")
    return list(names).index(value)


def global_ranges(D) -> dict[str, tuple[int, int]]:
    """name -> (lowest, highest) value a rule can give each scalar of ``state.GLOBAL_NAMES``."""
    strength = [sum(D.unit_strength[u] for u in range(D.n_units) if D.unit_army[u] == a)
                for a in range(len(D.army_ids))]
    side_strength = [sum(D.unit_strength[u] for u in range(D.n_units) if D.unit_side[u] == k) for k in (0, 1)]
    vp = [side_strength[1 - k] * D.vp_per_sp + side_strength[k] +
          sum(v for l, v in enumerate(D.leader_vp) if D.leader_side[l] != k) for k in (0, 1)]
    r = {"turn": (1, D.turns), "phase": (0, len(PHASE_NAMES) - 1), "decision": (0, len(DECISION_KEYS) - 1),
         "player": (-1, 1), "active_corps": (-1, D.n_corps - 1), "selected": (-1, D.n_units + D.n_leaders - 1),
         "mp_left": (-1, max(max(D.unit_ma), max(D.leader_ma))), "visibility": (0, len(VIS_NAMES) - 1),
         "vp_allied": (0, vp[0]), "vp_imperial": (0, vp[1]), "artillery_side": (0, 2),
         "artillery_index": (0, D.n_art), "pending_result": (0, len(RESULT_CODES) - 1), "loss_side": (-1, 1),
         "drawn_corps": (-1, D.n_corps - 1), "demoralized_bits": (0, (1 << len(D.army_ids)) - 1),
         "exit_vp_allied": (0, side_strength[0]), "exit_vp_imperial": (0, side_strength[1]),
         "decisions": (0, 2 ** 31 - 1), "attack_choices": (0, AC_CHARGE | AC_ATT_LEADERS | AC_DEF_LEADERS)}
    for a, sp in enumerate(strength):
        r[f"eliminated_sp_{a}"] = (0, sp)
    for name in GLOBAL_NAMES:
        r.setdefault(name, (0, 1))           # the flags: swap_used, turn_ends_*, visibility_option, ...
    return r


# decision -> the phase it belongs to
DECISION_PHASE = {D_SWAP: PH_ACTIVATION, D_ART: PH_ARTILLERY, D_MOVE_SELECT: PH_MOVEMENT, D_MOVE_DEST: PH_MOVEMENT,
                  D_COMBAT: PH_COMBAT, D_ATTACK: PH_COMBAT, D_LOSS: PH_COMBAT, D_LEADER: PH_COMBAT}


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
    _check_keys("position", pos, {"format", "turn", "phase", "active_corps", "visibility", "units", "leaders",
                                  "artillery", "cup", "globals", "victory_points", "decision"})
    if pos.get("format", FORMAT) != FORMAT:
        _err("format", pos["format"], f"expected {FORMAT!r}")
    glob = pos.get("globals", {})
    if not isinstance(glob, dict):
        _err("globals", glob, "expected a dict name -> integer")
    ranges = global_ranges(D)
    for k, v in glob.items():
        if k not in ranges:
            _err(f"globals.{k}", v, f"expected one of {list(GLOBAL_NAMES)}")
        lo, hi = ranges[k]
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            _err(f"globals.{k}", v, f"expected an integer {lo}..{hi}")
    # the named fields; each may also be given (equal) in globals
    named = {}
    if "turn" in pos:
        t = pos["turn"]
        if not isinstance(t, int) or isinstance(t, bool) or not 1 <= t <= D.turns:
            _err("turn", t, f"expected an integer 1..{D.turns}")
        named["turn"] = t
    if "phase" in pos:
        named["phase"] = _name("phase", pos["phase"], PHASE_NAMES)
    if "active_corps" in pos:
        named["active_corps"] = _name("active_corps", pos["active_corps"], D.corps_ids)
    if "visibility" in pos:
        named["visibility"] = _name("visibility", pos["visibility"], VIS_NAMES)
    if "decision" in pos:
        named["decision"] = _name("decision", pos["decision"], DECISION_KEYS)
    for k, v in named.items():
        if k in glob and glob[k] != v:
            _err(f"globals.{k}", glob[k], f"disagrees with the field '{k}' = {pos[k]!r}")
    if "turn" in named or "turn" in glob:
        g[G_TURN] = named.get("turn", glob.get("turn"))
    if "units" in pos:
        units = pos["units"]
        if not isinstance(units, dict):
            _err("units", units, "expected a dict unit id -> hex or {hex, disrupted, flags, start}")
        s.u_hex[:] = OFF_ABSENT
        s.u_start[:] = -1
        for uid, v in units.items():
            u, v = _piece_entry("units", D.unit_ids, uid, v, "no such unit", {"hex", "disrupted", "flags", "start"})
            s.u_hex[u] = _hex(E, f"units.{uid}.hex", v["hex"])
            if _bool(f"units.{uid}.disrupted", v.get("disrupted", False)):
                if s.u_hex[u] < 0:
                    _err(f"units.{uid}.disrupted", True, "a unit off the map is not disrupted (9.0)")
                s.u_dis[u] = 1
            flags = v.get("flags", [])
            if not isinstance(flags, list):
                _err(f"units.{uid}.flags", flags, f"expected a list of {sorted(FLAG_NAMES)}")
            f = 0
            for name in flags:
                if not isinstance(name, str) or name not in FLAG_NAMES:
                    _err(f"units.{uid}.flags", name, f"expected one of {sorted(FLAG_NAMES)}")
                f |= FLAG_NAMES[name]
            s.u_flags[u] = f
            if v.get("start") is None:
                s.u_start[u] = -1 if "start" in v else max(int(s.u_hex[u]), -1)
            else:
                s.u_start[u] = _hex(E, f"units.{uid}.start", v["start"], ())
        hexes = [h for h in s.u_hex.tolist() if h >= 0]
        if len(hexes) != len(set(hexes)):
            dup = sorted({D.grid.ids[h] for h in hexes if hexes.count(h) > 1})
            _err("units", dup, "more than one unit in a hex (6.32)")
    at = {h: u for u, h in enumerate(s.u_hex.tolist()) if h >= 0}
    if "leaders" in pos:
        leaders = pos["leaders"]
        if not isinstance(leaders, dict):
            _err("leaders", leaders, "expected a dict leader id -> hex or {hex, moved}")
        s.l_hex[:] = OFF_ABSENT
        for lid, v in leaders.items():
            l, v = _piece_entry("leaders", D.leader_ids, lid, v, "no such leader", {"hex", "moved"})
            h = s.l_hex[l] = _hex(E, f"leaders.{lid}.hex", v["hex"], (OFF_ELIM,))
            if h >= 0 and h in at and D.unit_side[at[h]] != D.leader_side[l]:
                _err(f"leaders.{lid}.hex", v["hex"], "an enemy unit is there (10.0: the leader would be eliminated)")
            s.l_flags[l] = LF_MOVED if _bool(f"leaders.{lid}.moved", v.get("moved", False)) else 0
    if "artillery" in pos:
        arts = pos["artillery"]
        if not isinstance(arts, dict):
            _err("artillery", arts, "expected a dict artillery id -> hex or {hex, owner, target}")
        s.a_hex[:] = OFF_ABSENT
        for aid, v in arts.items():
            a, v = _piece_entry("artillery", D.art_ids, aid, v, "no such artillery counter", {"hex", "owner", "target"})
            h = s.a_hex[a] = _hex(E, f"artillery.{aid}.hex", v["hex"], ())
            s.a_owner[a] = own = _name(f"artillery.{aid}.owner", v.get("owner", SIDES[D.art_side[a]]), SIDES)
            if h in at and D.unit_side[at[h]] != own:
                _err(f"artillery.{aid}.owner", SIDES[own], "a unit of the other side is in its hex (5.31)")
            t = v.get("target")
            s.a_target[a] = -1 if t is None else _hex(E, f"artillery.{aid}.target", t, ())
    if "cup" in pos:
        cup = pos["cup"]
        if not isinstance(cup, list):
            _err("cup", cup, "expected a list of corps ids")
        s.cup[:] = 0
        for c in cup:
            s.cup[_name("cup", c, D.corps_ids)] = 1
    if "visibility" in named:
        g[G_VIS] = named["visibility"]
    phase = named.get("phase", glob.get("phase", PH_TURN_START))
    active = named.get("active_corps", glob.get("active_corps", -1))
    if active >= 0:
        g[G_ACTIVE] = active
        if "cup" not in pos:
            s.cup[active] = 0
        elif s.cup[active]:
            _err("cup", pos["cup"], f"holds the chit of the activated corps {D.corps_ids[active]!r} (4.1 C)")
    elif phase in (PH_MOVEMENT, PH_COMBAT):
        _err("active_corps", None, f"phase {PHASE_NAMES[phase]!r} needs the activated corps")
    # releases (12.3 / 12.4) from the turn; globals may override
    for side in (0, 1):
        if int(g[G_TURN]) >= D.release_turn[side]:
            g[G_MAY0 + side] = 1
    for k, v in glob.items():
        g[GLOBAL_NAMES.index(k)] = v
    if "decision" in named:
        g[G_DEC] = named["decision"]
    g[G_PHASE] = phase
    if phase == PH_OVER:
        g[G_DONE] = 1
        g[G_PLAYER] = -1
    elif int(g[G_DEC]) == D_NONE:
        g[G_PLAYER] = 0
        enter_phase(s.buf, E.tables, phase)
    else:
        _check_pending(E, s, pos)
    if "victory_points" in pos:
        vp = dict(zip(SIDES, E.victory_points(s)))
        if pos["victory_points"] != vp:
            _err("victory_points", pos["victory_points"], f"disagrees with the pieces and globals, which give {vp}")
    return s


def _check_pending(E, s, pos) -> None:
    """Refuse a pending decision that no rule can reach or that the engine could not carry on from."""
    D, g = E.D, s.g
    dec, player, phase, active = int(g[G_DEC]), int(g[G_PLAYER]), int(g[G_PHASE]), int(g[G_ACTIVE])
    key = DECISION_KEYS[dec]
    if DECISION_PHASE[dec] != phase:
        _err("globals.decision", dec, f"decision {key!r} is not taken in phase {PHASE_NAMES[phase]!r}")
    if dec == D_SWAP:
        drawn = int(g[G_DRAWN])
        if drawn < 0 or s.cup[drawn]:
            _err("globals.drawn_corps", drawn, "the activation choice needs the drawn corps, out of the cup")
        want = D.corps_side[drawn]
    elif dec == D_ART:
        side, a = int(g[G_ART_SIDE]), int(g[G_ART_IDX])
        if side > 1 or a >= D.n_art or s.a_hex[a] < 0 or s.a_owner[a] != side:
            _err("globals.artillery_index", a, f"no gun of side {side} on the map to assign a target to")
        want = side
    else:
        if active < 0:
            _err("active_corps", None, f"decision {key!r} needs the activated corps")
        want = D.corps_side[active]
    if dec == D_MOVE_DEST:
        sel = int(g[G_SEL])
        if sel not in E.corps_pieces[active] or E._piece_hex(s, sel) < 0:
            _err("globals.selected", sel, "the destination decision needs a piece of the activated corps on the map")
    members = [u for u in range(D.n_units) if s.u_flags[u] & F_IN_ATK and s.u_hex[u] >= 0]
    sides = {D.unit_side[u] for u in members}
    need = {D_ATTACK: {1 - want}, D_LEADER: {0, 1}, D_LOSS: set()}.get(dec)
    if need is None and members or need is not None and not need <= sides:
        _err("units", sorted(D.unit_ids[u] for u in members),
             f"decision {key!r} {'needs' if need else 'has no'} units of an attack (flag 'in_attack')")
    if dec == D_LOSS:
        want = int(g[G_LOSS_SIDE])
        if want < 0 or RESULT_CODES[int(g[G_RES])] not in ("Ax", "Dx"):
            _err("globals.loss_side", want, "the choice of a unit to disrupt needs an Ax/Dx result and its side")
    if dec == D_LEADER:
        want = player if player in (0, 1) else want
    if player != want:
        _err("globals.player", player, f"decision {key!r} is taken by player {want}")
    if not E.legal_actions(s):
        _err("globals.decision", key, "no legal action at that decision in this position")


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
    pos["victory_points"] = dict(zip(SIDES, E.victory_points(s)))
    return pos


__all__ = ["build_state", "to_position", "summary", "FORMAT", "G_ART_IDX", "G_ART_SIDE", "G_PLAYER", "G_PHASE"]


def summary(E, s) -> dict[str, Any]:
    """The omniscient state as a plain JSON-friendly dict (``engine.summary``; docs/breitenfeld.md)."""
    D, g = E.D, s.g.tolist()
    vp = E.victory_points(s)
    over = bool(g[G_DONE])
    player = -1 if over else g[G_PLAYER]
    winner = None
    if over and vp[0] != vp[1]:
        winner = SIDES[0 if vp[0] > vp[1] else 1]
    units = []
    for u, uid in enumerate(D.unit_ids):
        h = int(s.u_hex[u])
        if h == OFF_ABSENT:
            continue
        status = OFF_NAMES[h] if h < 0 else ("disrupted" if s.u_dis[u] else "ok")
        units.append({"id": uid, "side": SIDES[D.unit_side[u]], "army": D.army_ids[D.unit_army[u]],
                      "corps": D.corps_ids[D.unit_corps[u]], "hex": D.grid.ids[h] if h >= 0 else None,
                      "strength": int(D.unit_dstrength[u] if s.u_dis[u] else D.unit_strength[u]),
                      "status": status})
    leaders = [{"id": lid, "side": SIDES[D.leader_side[l]], "corps": D.corps_ids[D.leader_corps[l]],
                "hex": D.grid.ids[h] if h >= 0 else None, "value": int(D.leader_value[l]),
                "status": "eliminated" if h == OFF_ELIM else "ok"}
               for l, (lid, h) in enumerate(zip(D.leader_ids, s.l_hex.tolist())) if h != OFF_ABSENT]
    guns = [{"id": aid, "owner": SIDES[o], "hex": D.grid.ids[h]}
            for aid, h, o in zip(D.art_ids, s.a_hex.tolist(), s.a_owner.tolist()) if h >= 0]
    return {
        "battle": E.name, "to_move": SIDES[player] if player >= 0 else None, "decision": DECISION_KEYS[g[G_DEC]],
        "over": over, "winner": winner, "turn": g[G_TURN], "turns": D.turns, "phase": PHASE_NAMES[g[G_PHASE]],
        "active_corps": D.corps_ids[g[G_ACTIVE]] if g[G_ACTIVE] >= 0 else None,
        "cup": [c for k, c in enumerate(D.corps_ids) if s.cup[k]],
        "visibility": VIS_NAMES[g[G_VIS]] if g[G_VIS_OPT] else None,
        "victory_points": dict(zip(SIDES, (int(v) for v in vp))),
        "eliminated_strength": {a: g[G_ELIM0 + k] for k, a in enumerate(D.army_ids)},
        "demoralization_level": {a: int(D.demor_level[k]) for k, a in enumerate(D.army_ids)},
        "demoralized": {a: bool(g[G_DEMOR] >> k & 1) for k, a in enumerate(D.army_ids)},
        "units": units, "leaders": leaders, "artillery": guns,
    }
