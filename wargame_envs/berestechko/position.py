"""Positions: the standard setups (3.1-3.3) and any position as a JSON-friendly dict of named fields.

A position is what ``reset(options={"position": ...})`` and game records accept::

    {
      "round": 1, "active": "polish_lithuanian", "throws": 1,
      "units": {"Zemska": {"hex": "02", "disorganized": false, "activations": 0, "status": "on_map"}, ...},
      "commands": {"polish_lithuanian": {"reconnaissance": 0, "interaction": 0}, "cossack_tatar": {...}},
      "tatar_spirit": 3, "tatars_withdrawn": false, "battle_continued": false,
      "dice": [2, 3, 6], "dice_used": [false, false, false],   # the throw in progress (optional)
      "decision": "choose_die",                                # the pending decision (optional)
      # only while a die, an activation, a combat or a retreat is under way:
      "die_in_use": 0,                                         # the die (0..2) that is being used
      "activation": {"unit": "Hrunka", "with_wagon": false},
      "combat": {"target": "Wiśniowiecki", "attackers": ["Hrunka", "Nosach"],
                 "artillery": {"attacker": false, "defender": false},
                 "result": 11, "vacated": "26",               # once the dice are rolled (8.1.4, 8.2.4)
                 "chooser": "cossack_tatar", "attacker_choice": "retreat"},   # loss_or_retreat / take_choice
      "retreat": {"unit": "Wiśniowiecki", "hexes_left": 1},
      "tatar_decision_due": false                              # spirit 0 reached during this activation (9)
    }

Units left out of ``units`` are not in the game; ``status`` is on_map, destroyed or withdrawn (Tatars
only). Without ``dice`` the throw is rolled when the game starts. :func:`to_position` works at every
decision (and at the end, adding ``winner``, ``reason`` and ``victory_points``); :func:`from_position`
checks every field (type, range, hex and unit names, unknown fields, and the rules' constraints:
stacking, what the pending decision needs) and raises :class:`ScenarioError` naming the field and the
value. A position at which the battle is already decided (a side with no unit left, four enemy units
destroyed, ``decision`` = game_over) is refused: there is nothing to play from it.
"""

from __future__ import annotations

from typing import Any

from ..core.engine import FINISHED_POSITION
from ..core.errors import ScenarioError
from .combat import resistance, wagon_with
from .data import SIDES
from .state import (CLOSE, DESTROYED, INTERACTION, ON_MAP, PHASE_NAMES, RANGED, RECON, STATUS_NAMES, UNUSED,
                    WITHDRAWN, Phase, Reason, S)

_POSITION_KEYS = ("round", "active", "throws", "units", "commands", "tatar_spirit", "tatars_withdrawn",
                  "battle_continued", "dice", "dice_used", "decision", "die_in_use", "activation", "combat",
                  "retreat", "tatar_decision_due")
_OUTPUT_ONLY = ("winner", "reason", "victory_points")  # written at the end of a game, refused on load
_UNIT_KEYS = ("hex", "status", "disorganized", "activations")
_COMBAT_KEYS = ("target", "attackers", "artillery", "result", "vacated", "chooser", "attacker_choice")
_CHOICES = ("loss", "retreat")  # sc[S.ATT_CHOICE] 1, 2
_TRANSIENT = (S.UNIT, S.WITH_WAGON, S.TARGET, S.RET_UNIT, S.VACATED, S.DIE_SLOT, S.WINNER)

# What each pending decision needs: (die_in_use, activation, combat declared, combat resolved).
# "req" required, "opt" optional, "no" refused. The retreat block is required exactly at RETREAT.
_NEEDS = {
    Phase.CHOOSE_DIE: ("no", "no", "no", "no"),
    Phase.DIE_COMMAND: ("req", "no", "no", "no"),
    Phase.SELECT_UNIT: ("opt", "no", "no", "no"),
    Phase.SELECT_RECOVERY: ("no", "no", "no", "no"),
    Phase.MOVE: ("opt", "req", "no", "no"),
    Phase.TARGET: ("opt", "req", "no", "no"),
    Phase.RETREAT_BEFORE: ("opt", "req", "req", "no"),
    Phase.ADD_UNIT: ("opt", "req", "req", "no"),
    Phase.ATT_ARTILLERY: ("opt", "req", "req", "no"),
    Phase.DEF_ARTILLERY: ("opt", "req", "req", "no"),
    Phase.TAKE_CHOICE: ("opt", "req", "req", "req"),
    Phase.LOSS_OR_RETREAT: ("opt", "req", "req", "req"),
    Phase.RETREAT: ("opt", "req", "req", "req"),
    Phase.ADVANCE: ("opt", "req", "req", "req"),
    Phase.TATAR_DECISION: ("no", "no", "no", "no"),
}


def _blank(engine):
    s = engine.state_class()
    s.hex[:] = -1
    s.status[:] = UNUSED
    s.occ[:] = -1
    s.wag[:] = -1
    for k in _TRANSIENT:
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


# ================================================================================ loading
class _Reader:
    """Typed reads of position fields; every failure is a ScenarioError naming the field and value."""

    def __init__(self, engine):
        self.engine, self.T, self.names, self.grid = engine, engine.T, engine.scenario.names, engine.grid

    def bad(self, field: str, value: Any, why: str):
        raise ScenarioError(f"position: field '{field}' = {value!r}: {why}")

    def table(self, field: str, value: Any, keys) -> dict:
        if not isinstance(value, dict):
            self.bad(field, value, "expected a table (dict)")
        for k in value:
            if k not in keys:
                self.bad(f"{field}.{k}" if field else str(k), value[k], f"unknown field; known: {list(keys)}")
        return value

    def int(self, field: str, value: Any, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.bad(field, value, f"expected an integer {low}..{high}")
        return value

    def bool(self, field: str, value: Any) -> bool:
        if not isinstance(value, bool):
            self.bad(field, value, "expected true or false")
        return value

    def choice(self, field: str, value: Any, choices) -> int:
        if not isinstance(value, str) or value not in choices:
            self.bad(field, value, f"expected one of {list(choices)}")
        return list(choices).index(value)

    def hex(self, field: str, value: Any) -> int:
        if not isinstance(value, str) or value not in self.grid.index:
            self.bad(field, value, "expected a hex id of the map as a string, e.g. \"02\" or \"45\"")
        return self.grid.index[value]

    def unit(self, field: str, value: Any, s=None, *, on_map: bool = False) -> int:
        if not isinstance(value, str) or value not in self.names:
            self.bad(field, value, f"no such unit; units: {list(self.names)}")
        u = self.names.index(value)
        if self.T.is_wagon[u]:
            self.bad(field, value, "a wagon cannot be activated, attack, be attacked or retreat (2.2.2, 8.3)")
        if s is not None and s.status[u] == UNUSED:
            self.bad(field, value, "this unit is not in the position's units")
        if on_map and s.status[u] != ON_MAP:
            self.bad(field, value, f"the unit is {STATUS_NAMES[int(s.status[u])]}, not on the map")
        return u


def from_position(engine, pos: dict[str, Any] | None, variant: bool = False):
    if pos is None:
        return standard_setup(engine, variant)
    r = _Reader(engine)
    if not isinstance(pos, dict):
        raise ScenarioError(f"position: expected a dict, got {type(pos).__name__}")
    over = [k for k in _OUTPUT_ONLY if k in pos]
    if over or pos.get("decision") == "game_over":
        r.bad(over[0] if over else "decision", pos[over[0]] if over else "game_over",
              FINISHED_POSITION)
    r.table("", pos, _POSITION_KEYS)
    s = _blank(engine)
    _read_units(r, s, pos.get("units"))
    _read_tracks(r, s, pos)
    _read_throw(r, s, pos)
    _read_pending(r, s, pos)
    _check_reachable(r, s, pos)
    return s


def _read_units(r: _Reader, s, units: Any) -> None:
    sc, T, g = r.engine.scenario, r.T, r.grid
    if not isinstance(units, dict) or not units:
        r.bad("units", units, "expected a non-empty table of unit name -> state")
    for name, u_pos in units.items():
        if name not in sc.names:
            r.bad(f"units.{name}", u_pos, f"no such unit; units: {list(sc.names)}")
        u = sc.names.index(name)
        f = f"units.{name}"
        r.table(f, u_pos, _UNIT_KEYS)
        status = u_pos.get("status", "on_map")
        if status not in ("on_map", "destroyed", "withdrawn"):
            r.bad(f"{f}.status", status, "expected on_map, destroyed or withdrawn")
        if status == "withdrawn" and not T.is_tatar[u]:
            r.bad(f"{f}.status", status, "only Tatar units can be withdrawn (9)")
        acts = r.int(f"{f}.activations", u_pos.get("activations", 0), 0, T.rules["activations_per_round"])
        dis = r.bool(f"{f}.disorganized", u_pos.get("disorganized", False))
        if T.is_wagon[u] and (acts or dis):
            r.bad(f, u_pos, "wagons have no activations and no disorganized side (2.2.2, 7.2)")
        if status == "on_map":
            h = r.hex(f"{f}.hex", u_pos.get("hex"))
            if T.is_wagon[u]:
                if s.wag[h] >= 0:
                    r.bad(f"{f}.hex", g.ids[h], f"already holds {sc.names[s.wag[h]]} (two wagons in one hex, 7.2)")
            elif s.occ[h] >= 0:
                r.bad(f"{f}.hex", g.ids[h], f"already holds {sc.names[s.occ[h]]} (no stacking, 7)")
            _put(T, s, u, h)
        else:
            if "hex" in u_pos:
                r.bad(f"{f}.hex", u_pos["hex"], f"a {status} unit is on no hex")
            s.status[u] = DESTROYED if status == "destroyed" else WITHDRAWN
        s.disorg[u] = int(dis)
        s.acts[u] = acts
    for w in T.wagons:
        h = int(s.hex[w])
        if h >= 0 and s.occ[h] >= 0 and not T.is_cossack_inf[int(s.occ[h])]:
            r.bad(f"units.{sc.names[w]}.hex", g.ids[h], "a wagon can share a hex only with Cossack infantry (7.2)")
    # 3.3: the variant's units replace standard ones; a position holds one set or the other.
    std_only = [u for u in range(sc.n_units) if sc.setup[0][u] >= 0 > sc.setup[1][u] and s.status[u] != UNUSED]
    var_only = [u for u in range(sc.n_units) if sc.setup[1][u] >= 0 > sc.setup[0][u] and s.status[u] != UNUSED]
    if std_only and var_only:
        r.bad(f"units.{sc.names[var_only[0]]}", units[sc.names[var_only[0]]],
              f"a unit of the optional setup (3.3) cannot play beside {sc.names[std_only[0]]}, whom the variant replaces")


def _read_tracks(r: _Reader, s, pos: dict) -> None:
    sc, T = r.engine.scenario, r.T
    s.sc[S.ROUND] = r.int("round", pos.get("round", 1), 1, T.rules["rounds"])
    active = r.choice("active", pos.get("active", SIDES[sc.first_player]), SIDES)
    s.sc[S.ACTIVE] = s.sc[S.DECIDER] = active
    cmds = r.table("commands", pos.get("commands", {}), SIDES)
    cap = T.rules["command_cap"]
    for p, side in enumerate(SIDES):
        default = {"reconnaissance": int(sc.start_commands[p, 0]), "interaction": int(sc.start_commands[p, 1])}
        c = r.table(f"commands.{side}", cmds.get(side, default), ("reconnaissance", "interaction"))
        for key, idx in (("reconnaissance", RECON), ("interaction", INTERACTION)):
            s.cmd[p, idx] = r.int(f"commands.{side}.{key}", c.get(key, 0), 0, cap)
    spirit = r.int("tatar_spirit", pos.get("tatar_spirit", T.rules["tatar_spirit_start"]), 0, T.rules["tatar_spirit_max"])
    withdrawn = r.bool("tatars_withdrawn", pos.get("tatars_withdrawn", False))
    continued = r.bool("battle_continued", pos.get("battle_continued", False))
    tatar_status = [int(s.status[u]) for u in T.tatars]
    if withdrawn and ON_MAP in tatar_status:
        r.bad("tatars_withdrawn", withdrawn, "a Tatar unit is still on the map; the withdrawal takes them all (9)")
    if not withdrawn and WITHDRAWN in tatar_status:
        r.bad("tatars_withdrawn", withdrawn, "a Tatar unit is withdrawn, so the Tatars have left the battle (9)")
    if withdrawn and spirit:
        r.bad("tatar_spirit", spirit, "the Tatars withdraw when the spirit reaches 0 and it is no longer tracked (9)")
    if not withdrawn and not spirit:
        r.bad("tatar_spirit", spirit, "at 0 the Tatars withdraw at once (9): give tatars_withdrawn true")
    if continued and not withdrawn:
        r.bad("battle_continued", continued, "the battle is continued only after the Tatar withdrawal (9)")
    s.sc[S.SPIRIT] = spirit
    s.sc[S.TATARS_OUT] = int(withdrawn)
    s.sc[S.CONTINUED] = int(continued)


def _read_throw(r: _Reader, s, pos: dict) -> None:
    dice = pos.get("dice")
    s.sc[S.THROWS] = r.int("throws", pos.get("throws", 0 if dice is None else 1), 0 if dice is None else 1, 10_000)
    if dice is None:
        for key in ("dice_used", "die_in_use"):
            if key in pos:
                r.bad(key, pos[key], "needs the throw's dice (field 'dice')")
        return
    if not (isinstance(dice, list) and len(dice) == 3):
        r.bad("dice", dice, "expected a list of three values 1..6")
    for i, d in enumerate(dice):
        r.int(f"dice[{i}]", d, 1, 6)
    used = pos.get("dice_used", [False, False, False])
    if not (isinstance(used, list) and len(used) == 3):
        r.bad("dice_used", used, "expected a list of three booleans")
    for i, x in enumerate(used):
        r.bool(f"dice_used[{i}]", x)
    s.dice[:] = dice
    s.used[:] = [int(x) for x in used]
    s.sc[S.SPENT] = sum(used)
    if s.sc[S.SPENT] > r.T.rules["dice_spent_per_throw"]:
        r.bad("dice_used", used, "at most two dice are spent in a throw (4.1)")


def _read_pending(r: _Reader, s, pos: dict) -> None:
    """The pending decision and whatever the activation under way has fixed so far."""
    T = r.T
    names = [n for n in PHASE_NAMES if n != "game_over"]
    phase = PHASE_NAMES.index(names[r.choice("decision", pos.get("decision", "choose_die"), names)])
    s.sc[S.PHASE] = phase
    if phase != Phase.CHOOSE_DIE and "dice" not in pos:
        r.bad("decision", PHASE_NAMES[phase], "a decision inside a throw needs the throw's dice (field 'dice')")
    need_die, need_act, need_combat, need_result = _NEEDS[phase]
    p = int(s.sc[S.ACTIVE])

    def presence(field: str, need: str) -> bool:
        here = pos.get(field) is not None
        if need == "req" and not here:
            r.bad("decision", PHASE_NAMES[phase], f"this decision needs the field '{field}'")
        if need == "no" and here:
            r.bad(field, pos[field], f"nothing of the kind is under way at decision {PHASE_NAMES[phase]}")
        return here

    if presence("die_in_use", need_die):
        i = r.int("die_in_use", pos["die_in_use"], 0, 2)
        if not s.used[i]:
            r.bad("die_in_use", i, "the die in use must be marked in dice_used")
        s.sc[S.DIE_SLOT] = i
        value = int(s.dice[i])
        if phase != Phase.DIE_COMMAND:  # the die activates a unit of its value (4.1)
            if not 2 <= value <= 5:
                r.bad("die_in_use", i, f"die {i} shows {value}, which activates no unit (4.1)")
            s.sc[S.SOURCE] = value
    if presence("activation", need_act):
        a = r.table("activation", pos["activation"], ("unit", "with_wagon"))
        u = r.unit("activation.unit", a.get("unit"), s, on_map=True)
        if T.side[u] != p:
            r.bad("activation.unit", a.get("unit"), f"not a unit of the active player {SIDES[p]}")
        if s.acts[u] >= T.rules["activations_per_round"]:
            r.bad("activation.unit", a.get("unit"), "already activated twice this round (5)")
        if s.sc[S.SOURCE] and T.act[u] != s.sc[S.SOURCE]:
            r.bad("activation.unit", a.get("unit"), f"its activation value is {T.act[u]}, the die shows {int(s.sc[S.SOURCE])}")
        s.sc[S.UNIT] = u
        if r.bool("activation.with_wagon", a.get("with_wagon", False)):
            w = wagon_with(r.engine.K, r.engine.views(s), u)
            if w < 0:
                r.bad("activation.with_wagon", True, "the unit is not combined with a wagon (7.2)")
            s.sc[S.WITH_WAGON] = w
    if presence("combat", need_combat):
        _read_combat(r, s, pos["combat"], phase, need_result == "req")
    if need_combat == "req" and need_result == "no":
        _check_combat_step(r, s, phase)
    if phase == Phase.RETREAT or "retreat" in pos:
        if phase != Phase.RETREAT:
            r.bad("retreat", pos["retreat"], f"no retreat is under way at decision {PHASE_NAMES[phase]}")
        ret = r.table("retreat", pos.get("retreat"), ("unit", "hexes_left"))
        u = r.unit("retreat.unit", ret.get("unit"), s, on_map=True)
        if u != s.sc[S.TARGET]:
            r.bad("retreat.unit", ret.get("unit"), "only the defender of the combat retreats (8.1.7, 8.2.5)")
        s.sc[S.RET_UNIT] = u
        s.sc[S.RET_LEFT] = r.int("retreat.hexes_left", ret.get("hexes_left"), 1, 2)
    due = r.bool("tatar_decision_due", pos.get("tatar_decision_due", phase == Phase.TATAR_DECISION))
    if due or phase == Phase.TATAR_DECISION:
        if not due or not s.sc[S.TATARS_OUT] or s.sc[S.CONTINUED]:
            r.bad("tatar_decision_due", due, "the C-T decision follows the Tatar withdrawal, once (9): "
                  "it needs tatars_withdrawn true and battle_continued false")
        if phase != Phase.TATAR_DECISION and need_result != "req":
            r.bad("tatar_decision_due", due, "the spirit falls to 0 only through a combat's result (9)")
        s.sc[S.PENDING_TATAR] = 1
    s.sc[S.DECIDER] = _decider(T, s, phase)


def _read_combat(r: _Reader, s, combat: Any, phase: int, resolved: bool) -> None:
    T, p = r.T, int(s.sc[S.ACTIVE])
    lead = int(s.sc[S.UNIT])
    c = r.table("combat", combat, _COMBAT_KEYS)
    d = r.unit("combat.target", c.get("target"), s, on_map=not resolved)
    if T.side[d] == p:
        r.bad("combat.target", c.get("target"), "the target must be an enemy unit (8)")
    s.sc[S.TARGET] = d
    s.sc[S.KIND] = CLOSE if T.is_cav[lead] else RANGED  # 8: cavalry close combat, infantry ranged
    attackers = c.get("attackers", [T.sc.names[lead]])
    if not isinstance(attackers, list):
        r.bad("combat.attackers", attackers, "expected a list of unit names")
    for i, name in enumerate(attackers):
        v = r.unit(f"combat.attackers[{i}]", name, s, on_map=not resolved)
        if T.side[v] != p or s.part[v]:
            r.bad(f"combat.attackers[{i}]", name, "an attacker is a unit of the active player, named once")
        if not resolved and (int(s.hex[d]) not in T.adj[int(s.hex[v])]):
            r.bad(f"combat.attackers[{i}]", name, "not adjacent to the target (8, 8.1.2)")
        if s.sc[S.KIND] == RANGED and not T.is_inf[v]:
            r.bad(f"combat.attackers[{i}]", name, "only infantry takes part in ranged combat (8.2.2)")
        s.part[v] = 1
    if not s.part[lead]:
        r.bad("combat.attackers", attackers, f"must include the activated unit {T.sc.names[lead]}")
    arty = r.table("combat.artillery", c.get("artillery", {}), ("attacker", "defender"))
    s.sc[S.ATT_ARTY] = r.bool("combat.artillery.attacker", arty.get("attacker", False))
    s.sc[S.DEF_ARTY] = r.bool("combat.artillery.defender", arty.get("defender", False))
    if s.sc[S.ATT_ARTY] and not any(s.part[u] and T.is_inf[u] for u in range(T.NC)):
        r.bad("combat.artillery.attacker", True, "artillery supports infantry only (8.1.3)")
    if s.sc[S.DEF_ARTY] and (s.sc[S.KIND] != CLOSE or not T.is_inf[d]):
        r.bad("combat.artillery.defender", True, "only an infantry defender in close combat has artillery (8.1.3)")
    if s.sc[S.DEF_ARTY] and phase <= Phase.DEF_ARTILLERY or s.sc[S.ATT_ARTY] and phase <= Phase.ATT_ARTILLERY:
        r.bad("combat.artillery", arty, f"artillery is bought after decision {PHASE_NAMES[phase]} (8.1.3)")
    if phase == Phase.RETREAT_BEFORE and (s.sc[S.KIND] != CLOSE or attackers != [T.sc.names[lead]]):
        r.bad("combat", c, "retreat before combat comes before units join a close combat (8.1.1, 8.2.1)")
    keys_after = ("result", "vacated", "chooser", "attacker_choice")
    if not resolved:
        for k in keys_after:
            if k in c:
                r.bad(f"combat.{k}", c[k], f"the dice are not rolled yet at decision {PHASE_NAMES[phase]}")
        return
    bound = sum(T.att[u] * T.die[u] for u in range(T.NC)) + 6  # the largest AV (and DV) the dice allow
    s.sc[S.ROLL_DIFF] = r.int("combat.result", c.get("result"), -bound, bound)
    s.sc[S.VACATED] = r.hex("combat.vacated", c.get("vacated"))
    choosing = phase in (Phase.TAKE_CHOICE, Phase.LOSS_OR_RETREAT)
    for k in ("chooser", "attacker_choice"):
        if k not in c and (k == "chooser" and choosing or phase == Phase.TAKE_CHOICE):
            r.bad("combat", c, f"decision {PHASE_NAMES[phase]} needs combat.{k}")
        if k in c and not choosing:
            r.bad(f"combat.{k}", c[k], f"no loss-or-retreat choice is pending at decision {PHASE_NAMES[phase]}")
    if choosing:
        from .combat import resistance, wagon_with

        if s.status[d] != ON_MAP or s.hex[d] != s.sc[S.VACATED]:
            r.bad("combat.vacated", c.get("vacated"), "before the choice the defender is still on its hex")
        k, g = r.engine.K, r.engine.views(s)
        R = resistance(k, g, d)
        if not R < s.sc[S.ROLL_DIFF] < 2 * R or s.sc[S.KIND] != CLOSE or wagon_with(k, g, d) >= 0:
            r.bad("combat.result", c.get("result"), f"a loss-or-retreat choice follows R < CR < 2R in close combat "
                  f"against a unit without wagons (8.1.4; R = {R})")
        chooser = r.choice("combat.chooser", c.get("chooser"), SIDES)
        if T.complex[int(s.hex[d])] and chooser == p:
            r.bad("combat.chooser", c.get("chooser"), "on complex terrain the defender chooses (8.1.4)")
        s.sc[S.CHOOSER] = chooser
        # 6.2.3: the attacker's choice stands while the defender may overrule it (take_choice), and is
        # still known while the defender who overruled it chooses (loss_or_retreat).
        if "attacker_choice" in c:
            s.sc[S.ATT_CHOICE] = 1 + r.choice("combat.attacker_choice", c["attacker_choice"], _CHOICES)
            if phase == Phase.LOSS_OR_RETREAT and chooser == p:
                r.bad("combat.attacker_choice", c["attacker_choice"], "the attacker is still to choose")
        if phase == Phase.TAKE_CHOICE and (chooser != p or s.cmd[1 - p, RECON] < T.rules["take_choice_cost"]):
            r.bad("combat.chooser", c.get("chooser"), "the defender overrules the attacker's own choice, "
                  "paying 1 reconnaissance (6.2.3)")
    if phase == Phase.ADVANCE and s.occ[s.sc[S.VACATED]] >= 0:
        r.bad("combat.vacated", c.get("vacated"), "the attacker advances into an empty hex (8.1.8)")


# The decisions that a command pays for, and what the rules ask before offering them.
_PAID = {
    Phase.RETREAT_BEFORE: (1, RECON, "retreat_before_combat_cost", "6.2.2"),
    Phase.ATT_ARTILLERY: (0, INTERACTION, "artillery_cost", "8.1.3"),
    Phase.DEF_ARTILLERY: (1, INTERACTION, "artillery_cost", "8.1.3"),
    Phase.TAKE_CHOICE: (1, RECON, "take_choice_cost", "6.2.3"),
}


def _check_combat_step(r: _Reader, s, phase: int) -> None:
    """Before the dice: the offer pending must be one the rules make (6.2.2, 8.1.1, 8.1.3)."""
    T, p, d = r.T, int(s.sc[S.ACTIVE]), int(s.sc[S.TARGET])
    if phase in _PAID:
        defender, track, cost, case = _PAID[phase]
        who = 1 - p if defender else p
        have = int(s.cmd[who, track])
        if have < T.rules[cost]:
            key = ("reconnaissance", "interaction")[track]
            r.bad(f"commands.{SIDES[who]}.{key}", have, f"decision {PHASE_NAMES[phase]} costs {T.rules[cost]} ({case})")
    if phase == Phase.RETREAT_BEFORE and wagon_with(r.engine.K, r.engine.views(s), d) >= 0:
        r.bad("combat.target", T.sc.names[d], "infantry with its wagons cannot retreat before combat (8.3, C9)")
    if phase == Phase.ATT_ARTILLERY and not any(s.part[u] and T.is_inf[u] for u in range(T.NC)):
        r.bad("combat.attackers", [T.sc.names[u] for u in range(T.NC) if s.part[u]],
              "artillery support needs infantry among the attackers (8.1.3)")
    if phase == Phase.DEF_ARTILLERY and (s.sc[S.KIND] != CLOSE or not T.is_inf[d]):
        r.bad("combat.target", T.sc.names[d], "defensive artillery needs an infantry defender in close combat (8.1.3)")


def _decider(T, s, phase: int) -> int:
    p = int(s.sc[S.ACTIVE])
    if phase in (Phase.RETREAT_BEFORE, Phase.DEF_ARTILLERY, Phase.TAKE_CHOICE):
        return 1 - p
    if phase == Phase.LOSS_OR_RETREAT:
        return int(s.sc[S.CHOOSER])
    if phase == Phase.RETREAT:
        return T.side[int(s.sc[S.RET_UNIT])]
    if phase == Phase.TATAR_DECISION:
        return 1
    return p


def _check_reachable(r: _Reader, s, pos: dict) -> None:
    """Refuse positions no rule can reach: a decided battle, a round that should be over, a decision with
    no legal option, broken stacking or tracks."""
    engine, T = r.engine, r.T
    sides_left = [[u for u in T.combat_units_of[p] if s.status[u] in (ON_MAP, WITHDRAWN)] for p in (0, 1)]
    for p in (0, 1):
        if not sides_left[p]:
            r.bad("units", sorted(pos["units"]), f"{SIDES[p]} has no combat unit left: the battle is over "
                  "(10; see docs/berestechko.md C29) and there is nothing to play")
        lost = sum(1 for u in T.combat_units_of[p] if s.status[u] == DESTROYED)
        if lost >= T.rules["automatic_victory_destroyed"]:
            r.bad("units", sorted(pos["units"]), f"{lost} {SIDES[p]} units are destroyed: automatic victory (10), "
                  "the battle is over")
        limit = T.rules["activations_per_round"]
        # the round ends after an activation (4.2), so only a position between activations can be past its end:
        # inside one, the last unit not yet activated twice may just have been destroyed
        between = s.sc[S.UNIT] < 0 and s.sc[S.PHASE] != Phase.TATAR_DECISION
        if between and all(s.acts[u] >= limit for u in sides_left[p]):
            r.bad(f"units.{T.sc.names[sides_left[p][0]]}.activations", limit,
                  f"every {SIDES[p]} unit is activated twice: the round is over (4, 4.2)")
    bad = engine.check_invariants(s)
    if bad:
        r.bad("units", sorted(pos["units"]), "; ".join(bad))
    if s.sc[S.PHASE] != Phase.CHOOSE_DIE and not engine.legal_mask(s).any():
        r.bad("decision", PHASE_NAMES[int(s.sc[S.PHASE])], "no legal option at this decision in this position")


# ================================================================================ writing
def to_position(engine, s) -> dict[str, Any]:
    """The state as named fields, at any decision (see the module docstring)."""
    sc, g, T = engine.scenario, engine.grid, engine.T
    names = sc.names
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
        units[names[u]] = entry
    pos: dict[str, Any] = {
        "round": int(s.sc[S.ROUND]),
        "active": SIDES[int(s.sc[S.ACTIVE])],
        "throws": int(s.sc[S.THROWS]),
        "units": units,
        "commands": {side: {"reconnaissance": int(s.cmd[p, RECON]), "interaction": int(s.cmd[p, INTERACTION])}
                     for p, side in enumerate(SIDES)},
        "tatar_spirit": int(s.sc[S.SPIRIT]),
        "tatars_withdrawn": bool(s.sc[S.TATARS_OUT]),
        "battle_continued": bool(s.sc[S.CONTINUED]),
        "dice": [int(x) for x in s.dice],
        "dice_used": [bool(x) for x in s.used],
        "decision": PHASE_NAMES[int(s.sc[S.PHASE])],
    }
    if s.sc[S.OVER]:
        pos["winner"] = SIDES[int(s.sc[S.WINNER])]
        pos["reason"] = Reason(int(s.sc[S.REASON])).name.lower()
        pos["victory_points"] = {SIDES[0]: int(s.sc[S.VP0]), SIDES[1]: int(s.sc[S.VP1])}
        return pos
    if s.sc[S.DIE_SLOT] >= 0:
        pos["die_in_use"] = int(s.sc[S.DIE_SLOT])
    u = int(s.sc[S.UNIT])
    if u >= 0:
        pos["activation"] = {"unit": names[u], "with_wagon": bool(s.sc[S.WITH_WAGON] >= 0)}
    d = int(s.sc[S.TARGET])
    if d >= 0:
        lead = int(s.sc[S.UNIT])
        combat: dict[str, Any] = {
            "target": names[d],
            # the leader first, then the others in scenario order (the order of their dice, C22)
            "attackers": [names[lead]] + [names[v] for v in range(T.NC) if s.part[v] and v != lead],
            "artillery": {"attacker": bool(s.sc[S.ATT_ARTY]), "defender": bool(s.sc[S.DEF_ARTY])},
        }
        if s.sc[S.VACATED] >= 0:  # the dice are rolled
            combat["result"] = int(s.sc[S.ROLL_DIFF])
            combat["vacated"] = g.ids[int(s.sc[S.VACATED])]
        phase = int(s.sc[S.PHASE])
        if phase in (Phase.TAKE_CHOICE, Phase.LOSS_OR_RETREAT):
            combat["chooser"] = SIDES[int(s.sc[S.CHOOSER])]
        if s.sc[S.ATT_CHOICE]:
            combat["attacker_choice"] = _CHOICES[int(s.sc[S.ATT_CHOICE]) - 1]
        pos["combat"] = combat
    if s.sc[S.RET_UNIT] >= 0:
        pos["retreat"] = {"unit": names[int(s.sc[S.RET_UNIT])], "hexes_left": int(s.sc[S.RET_LEFT])}
    if s.sc[S.PENDING_TATAR]:
        pos["tatar_decision_due"] = True
    return pos


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


# ================================================================================ summary
def summary(engine, s) -> dict[str, Any]:
    """The whole state for a researcher (omniscient, read-only, plain JSON types): see docs/berestechko.md."""
    sc, g, T = engine.scenario, engine.grid, engine.T
    over = bool(s.sc[S.OVER])
    vp = engine.scores(s)
    units = []
    for u in range(sc.n_units):
        st = int(s.status[u])
        if st == UNUSED:
            continue
        units.append({
            "id": sc.names[u], "side": SIDES[T.side[u]], "type": ("cavalry", "infantry", "wagon")[int(sc.type[u])],
            "tatar": bool(T.is_tatar[u]), "hex": g.ids[int(s.hex[u])] if st == ON_MAP else None,
            "status": STATUS_NAMES[st], "disorganized": bool(s.disorg[u]), "activations": int(s.acts[u]),
        })
    player = engine.current_player(s)
    return {
        "battle": engine.name,
        "to_move": SIDES[player] if player >= 0 else None,
        "decision": PHASE_NAMES[int(s.sc[S.PHASE])],
        "over": over,
        "winner": SIDES[int(s.sc[S.WINNER])] if over else None,
        "reason": Reason(int(s.sc[S.REASON])).name.lower() if over else None,
        "round": int(s.sc[S.ROUND]),
        "throws": int(s.sc[S.THROWS]),
        "active": SIDES[int(s.sc[S.ACTIVE])],
        "dice": [int(x) for x in s.dice],
        "dice_used": [bool(x) for x in s.used],
        "victory_points": {SIDES[0]: int(vp[0]), SIDES[1]: int(vp[1])},
        "final_victory_points": over,  # False: counted as if the game ended now, without the end bonuses
        "tatar_spirit": int(s.sc[S.SPIRIT]),
        "tatars_withdrawn": bool(s.sc[S.TATARS_OUT]),
        "battle_continued": bool(s.sc[S.CONTINUED]),
        "commands": {side: {"reconnaissance": int(s.cmd[p, RECON]), "interaction": int(s.cmd[p, INTERACTION])}
                     for p, side in enumerate(SIDES)},
        "destroyed": {SIDES[p]: sum(1 for u in T.combat_units_of[p] if s.status[u] == DESTROYED) for p in (0, 1)},
        "units": units,
    }
