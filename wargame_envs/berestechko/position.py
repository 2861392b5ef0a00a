"""Positions: the standard setups (3.1-3.3) and any position as a JSON-friendly dict.

A position is what ``reset(options={"position": ...})`` and game records accept::

    {
      "round": 1, "active": "polish_lithuanian",
      "units": {"Zemska": {"hex": "02", "disorganized": false, "activations": 0, "status": "on_map"}, ...},
      "commands": {"polish_lithuanian": {"reconnaissance": 0, "interaction": 0}, "cossack_tatar": {...}},
      "tatar_spirit": 3, "tatars_withdrawn": false, "battle_continued": false,
      "dice": [2, 3, 6], "dice_used": [false, false, false]      # optional: the throw in progress
    }

Units left out of ``units`` are not in the game. ``status`` is one of on_map, destroyed, withdrawn
(Tatars only). Without ``dice`` the throw is rolled when the game starts. Positions are taken
between decisions of a throw (when a die is to be chosen); that is where ``to_position`` works.
"""

from __future__ import annotations

from typing import Any

from ..core.errors import ScenarioError
from .data import SIDES
from .state import DESTROYED, INTERACTION, ON_MAP, RECON, STATUS_NAMES, UNUSED, WITHDRAWN, Phase, S

_POSITION_KEYS = {"round", "active", "units", "commands", "tatar_spirit", "tatars_withdrawn", "battle_continued",
                  "dice", "dice_used"}


def _blank(engine):
    s = engine.state_class()
    s.hex[:] = -1
    s.status[:] = UNUSED
    s.occ[:] = -1
    s.wag[:] = -1
    for k in (S.UNIT, S.WITH_WAGON, S.TARGET, S.RET_UNIT, S.VACATED, S.DIE_SLOT, S.WINNER):
        s.sc[k] = -1
    return s


def standard_setup(engine, variant: bool):
    """3.1-3.3: units on their hexes, command tracks, Tatar spirit 3, round 1, P-L throws first."""
    sc, T = engine.scenario, engine.T
    s = _blank(engine)
    hexes = sc.setup[1 if variant else 0]
    for u in range(sc.n_units):
        h = int(hexes[u])
        if h >= 0:
            _put(T, s, u, h)
    s.cmd[:, :] = sc.start_commands
    s.sc[S.SPIRIT] = T.rules["tatar_spirit_start"]
    s.sc[S.ROUND] = 1
    s.sc[S.ACTIVE] = sc.first_player
    s.sc[S.DECIDER] = sc.first_player
    s.sc[S.PHASE] = Phase.CHOOSE_DIE
    return s


def _put(T, s, u: int, h: int) -> None:
    s.hex[u] = h
    s.status[u] = ON_MAP
    if T.is_wagon[u]:
        s.wag[h] = u
    else:
        s.occ[h] = u


def from_position(engine, pos: dict[str, Any] | None, variant: bool = False):
    if pos is None:
        return standard_setup(engine, variant)
    where = "position"
    if not isinstance(pos, dict):
        raise ScenarioError(f"{where}: expected a dict, got {type(pos).__name__}")
    extra = set(pos) - _POSITION_KEYS
    if extra:
        raise ScenarioError(f"{where}: unknown field(s) {sorted(extra)}; known: {sorted(_POSITION_KEYS)}")
    sc, T, g = engine.scenario, engine.T, engine.grid
    s = _blank(engine)

    def bad(field: str, value: Any, why: str):
        raise ScenarioError(f"{where}: field '{field}' = {value!r}: {why}")

    units = pos.get("units", {})
    if not isinstance(units, dict) or not units:
        bad("units", units, "expected a non-empty mapping of unit name -> state")
    for name, u_pos in units.items():
        if name not in sc.names:
            bad(f"units.{name}", u_pos, f"no such unit; units: {list(sc.names)}")
        u = sc.names.index(name)
        if not isinstance(u_pos, dict):
            bad(f"units.{name}", u_pos, "expected a table")
        status = u_pos.get("status", "on_map")
        if status not in ("on_map", "destroyed", "withdrawn"):
            bad(f"units.{name}.status", status, "expected on_map, destroyed or withdrawn")
        if status == "withdrawn" and not T.is_tatar[u]:
            bad(f"units.{name}.status", status, "only Tatar units can be withdrawn (9)")
        acts = u_pos.get("activations", 0)
        if not isinstance(acts, int) or not 0 <= acts <= T.rules["activations_per_round"]:
            bad(f"units.{name}.activations", acts, "expected 0, 1 or 2")
        dis = u_pos.get("disorganized", False)
        if not isinstance(dis, bool):
            bad(f"units.{name}.disorganized", dis, "expected true or false")
        if status == "on_map":
            h = u_pos.get("hex")
            if h not in g.index:
                bad(f"units.{name}.hex", h, "not a hex of the map")
            h = g.index[h]
            if T.is_wagon[u]:
                if s.wag[h] >= 0:
                    bad(f"units.{name}.hex", g.ids[h], "two wagons in one hex")
            elif s.occ[h] >= 0:
                bad(f"units.{name}.hex", g.ids[h], f"already holds {sc.names[s.occ[h]]} (no stacking, 7)")
            _put(T, s, u, h)
        else:
            s.status[u] = DESTROYED if status == "destroyed" else WITHDRAWN
        s.disorg[u] = int(dis)
        s.acts[u] = acts
    for w in T.wagons:
        h = int(s.hex[w])
        if h >= 0 and s.occ[h] >= 0 and not T.is_cossack_inf[int(s.occ[h])]:
            bad(f"units.{sc.names[w]}.hex", g.ids[h], "a wagon can share a hex only with Cossack infantry (7.2)")

    rnd = pos.get("round", 1)
    if rnd not in range(1, T.rules["rounds"] + 1):
        bad("round", rnd, f"expected 1..{T.rules['rounds']}")
    active = pos.get("active", SIDES[sc.first_player])
    if active not in SIDES:
        bad("active", active, f"expected one of {list(SIDES)}")
    cmds = pos.get("commands", {})
    if not isinstance(cmds, dict):
        bad("commands", cmds, "expected a table per side")
    cap = T.rules["command_cap"]
    for p, side in enumerate(SIDES):
        c = cmds.get(side, {"reconnaissance": int(sc.start_commands[p, 0]), "interaction": int(sc.start_commands[p, 1])})
        for key, idx in (("reconnaissance", RECON), ("interaction", INTERACTION)):
            v = c.get(key, 0) if isinstance(c, dict) else c
            if not isinstance(v, int) or not 0 <= v <= cap:
                bad(f"commands.{side}.{key}", v, f"expected 0..{cap}")
            s.cmd[p, idx] = v
    spirit = pos.get("tatar_spirit", T.rules["tatar_spirit_start"])
    if not isinstance(spirit, int) or not 0 <= spirit <= T.rules["tatar_spirit_max"]:
        bad("tatar_spirit", spirit, f"expected 0..{T.rules['tatar_spirit_max']}")
    withdrawn = bool(pos.get("tatars_withdrawn", False))
    if withdrawn != any(s.status[u] == WITHDRAWN for u in T.tatars) and any(s.status[u] == ON_MAP for u in T.tatars):
        bad("tatars_withdrawn", withdrawn, "Tatar units on the map contradict a withdrawal (9)")
    s.sc[S.ROUND] = rnd
    s.sc[S.ACTIVE] = s.sc[S.DECIDER] = SIDES.index(active)
    s.sc[S.SPIRIT] = spirit
    s.sc[S.TATARS_OUT] = int(withdrawn)
    s.sc[S.CONTINUED] = int(bool(pos.get("battle_continued", False)))
    s.sc[S.PHASE] = Phase.CHOOSE_DIE
    dice = pos.get("dice")
    if dice is not None:
        if not (isinstance(dice, list) and len(dice) == 3 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice)):
            bad("dice", dice, "expected three values 1..6")
        used = pos.get("dice_used", [False, False, False])
        if not (isinstance(used, list) and len(used) == 3 and all(isinstance(x, bool) for x in used)):
            bad("dice_used", used, "expected three booleans")
        s.dice[:] = dice
        s.used[:] = [int(x) for x in used]
        s.sc[S.SPENT] = sum(used)
        s.sc[S.THROWS] = 1
        if s.sc[S.SPENT] > T.rules["dice_spent_per_throw"]:
            bad("dice_used", used, "at most two dice are spent in a throw (4.1)")
    return s


def to_position(engine, s) -> dict[str, Any]:
    if s.sc[S.PHASE] != Phase.CHOOSE_DIE:
        raise ValueError(
            f"a position can be taken when a die is to be chosen, not during '{engine.decision_name(s)}'"
        )
    sc, g = engine.scenario, engine.grid
    units = {}
    for u in range(sc.n_units):
        st = int(s.status[u])
        if st == UNUSED:
            continue
        entry: dict[str, Any] = {"status": STATUS_NAMES[st]}
        if st == ON_MAP:
            entry["hex"] = g.ids[int(s.hex[u])]
        entry["disorganized"] = bool(s.disorg[u])
        entry["activations"] = int(s.acts[u])
        units[sc.names[u]] = entry
    return {
        "round": int(s.sc[S.ROUND]),
        "active": SIDES[int(s.sc[S.ACTIVE])],
        "units": units,
        "commands": {side: {"reconnaissance": int(s.cmd[p, RECON]), "interaction": int(s.cmd[p, INTERACTION])}
                     for p, side in enumerate(SIDES)},
        "tatar_spirit": int(s.sc[S.SPIRIT]),
        "tatars_withdrawn": bool(s.sc[S.TATARS_OUT]),
        "battle_continued": bool(s.sc[S.CONTINUED]),
        "dice": [int(x) for x in s.dice],
        "dice_used": [bool(x) for x in s.used],
    }


def invariant_violations(engine, s) -> list[str]:
    """Stacking (7, 7.2), occupancy tables consistent, tracks in range."""
    T, out = engine.T, []
    for h in range(T.H):
        u = int(s.occ[h])
        if u >= 0 and (s.hex[u] != h or s.status[u] != ON_MAP or T.is_wagon[u]):
            out.append(f"occ[{h}] = {u} inconsistent")
        w = int(s.wag[h])
        if w >= 0 and (s.hex[w] != h or not T.is_wagon[w]):
            out.append(f"wag[{h}] = {w} inconsistent")
        if w >= 0 and u >= 0 and not T.is_cossack_inf[u]:
            out.append(f"wagon stacked with non-Cossack-infantry {T.sc.names[u]} at {T.grid.ids[h]}")
    on_map = [u for u in range(T.U) if s.status[u] == ON_MAP]
    for u in on_map:
        h = int(s.hex[u])
        if h < 0 or (s.wag[h] if T.is_wagon[u] else s.occ[h]) != u:
            out.append(f"{T.sc.names[u]} on the map but not in the occupancy table")
    for u in range(T.U):
        if s.status[u] != ON_MAP and s.hex[u] != -1:
            out.append(f"{T.sc.names[u]} off the map with hex {int(s.hex[u])}")
        if not 0 <= s.acts[u] <= T.rules["activations_per_round"]:
            out.append(f"{T.sc.names[u]} activations {int(s.acts[u])}")
    if not ((0 <= s.cmd) & (s.cmd <= T.rules["command_cap"])).all():
        out.append(f"command tracks out of range: {s.cmd.tolist()}")
    if not 0 <= s.sc[S.SPIRIT] <= T.rules["tatar_spirit_max"]:
        out.append(f"Tatar spirit {int(s.sc[S.SPIRIT])}")
    return out
