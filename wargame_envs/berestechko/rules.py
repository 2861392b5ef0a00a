"""The Berestechko 1651 rules engine (pure rules; no PettingZoo here).

A throw (4.1) is cut into atomic decisions, each one AEC step of the player named by
``current_player``; the state's ``sc[S.PHASE]`` says which decision is pending (see
:class:`~.state.Phase`). Case numbers in comments refer to the rulebook; decisions taken where it
is silent are numbered in ``docs/berestechko.md`` and in the reference file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..core.dice import Dice
from ..core.engine import Engine
from ..core.options import Option, check_options
from . import combat as C
from .actions import OPTIONS, ActionCodec
from .data import SIDES, load_scenario
from .observation import build_layout, observe
from .position import clear_activation, from_position, summary, to_position
from .state import (CLOSE, DESTROYED, INTERACTION, ON_MAP, RANGED, RECON, UNUSED, WITHDRAWN, BerestechkoState,
                    PHASE_NAMES, Phase, Reason, S, make_state_class)
from .tables import Tables
from .victory import end_game, victory_points



class BerestechkoEngine(Engine):
    name = "berestechko_v0"
    agents = SIDES

    def __init__(self, data_dir: str | Path | None = None):
        self.scenario = load_scenario(data_dir)
        self.T = Tables(self.scenario)
        self.grid = self.scenario.grid
        self.codec = ActionCodec(self.grid.n, self.scenario.n_combat)
        self.num_actions = self.codec.size
        self.state_class = make_state_class(self.scenario.n_units, self.grid.n)
        self.obs_layout = build_layout(self)
        c = self.codec
        self._opt = {name: c.opt(name) for name in OPTIONS}
        self._handlers = [getattr(self, f"_on_{name}", None) for name in PHASE_NAMES]

    # ================================================================ lifecycle
    #: reset options (core.options: a bool must be a bool; unknown names are warned about and ignored)
    OPTIONS = {"variant": Option(bool, False), "position": Option(object, None)}

    def new_state(self, options: dict[str, Any] | None, dice: Dice) -> BerestechkoState:
        options = check_options("berestechko", options, self.OPTIONS)
        s = from_position(self, options["position"], options["variant"])
        if s.sc[S.PHASE] == Phase.CHOOSE_DIE and s.sc[S.SPENT] == 0 and not s.used.any() and s.dice[0] == 0:
            self._throw(s, dice)
        return s

    def current_player(self, s: BerestechkoState) -> int:
        return -1 if s.sc[S.OVER] else int(s.sc[S.DECIDER])

    def is_terminal(self, s: BerestechkoState) -> bool:
        return bool(s.sc[S.OVER])

    def returns(self, s: BerestechkoState) -> np.ndarray:
        r = np.zeros(2, dtype=np.float32)
        if s.sc[S.OVER]:
            w = int(s.sc[S.WINNER])
            r[w], r[1 - w] = 1.0, -1.0
        return r

    def scores(self, s: BerestechkoState) -> np.ndarray:
        if s.sc[S.OVER]:
            return np.array([s.sc[S.VP0], s.sc[S.VP1]], dtype=np.float32)
        return np.asarray(victory_points(self.T, s), dtype=np.float32)

    def observe(self, s: BerestechkoState, player: int) -> np.ndarray:
        return observe(self, s, player)

    def decision_name(self, s: BerestechkoState) -> str:
        return PHASE_NAMES[int(s.sc[S.PHASE])]

    decision_names = PHASE_NAMES

    def decision_id(self, s: BerestechkoState) -> int:
        return int(s.sc[S.PHASE])

    def to_position(self, s: BerestechkoState) -> dict[str, Any]:
        return to_position(self, s)

    def summary(self, s: BerestechkoState) -> dict[str, Any]:
        """Round, throws, VP, Tatar spirit, commands and every unit's hex and status, as a plain dict
        (omniscient; see docs/berestechko.md, "State summary")."""
        return summary(self, s)

    def action_to_str(self, s: BerestechkoState, action: int) -> str:
        from .view import action_to_str

        return action_to_str(self, s, action)

    def render_ansi(self, s: BerestechkoState, viewer: int | None = None) -> str:
        from .view import render_ansi

        return render_ansi(self, s, viewer)

    def scene(self, s: BerestechkoState, viewer: int | None = None):
        from .view import scene

        return scene(self, s, viewer)

    def check_invariants(self, s: BerestechkoState) -> list[str]:
        from .position import invariant_violations

        return invariant_violations(self, s)

    # ==================================================================== masks
    def legal_mask(self, s: BerestechkoState) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        phase = int(s.sc[S.PHASE])
        c, o = self.codec, self._opt
        if phase == Phase.CHOOSE_DIE:
            seen = set()
            if s.sc[S.SPENT] < 2:
                for i in range(3):
                    v = int(s.dice[i])
                    if not s.used[i] and v not in seen:  # identical dice are one choice
                        seen.add(v)
                        mask[c.DIE + i] = True
            p = int(s.sc[S.ACTIVE])
            if s.cmd[p, INTERACTION] >= self.T.rules["additional_activation_cost"] and self._activatable(s, p, None):
                mask[o["buy_activation"]] = True
            if s.cmd[p, RECON] >= self.T.rules["recovery_cost"] and self._recoverable(s, p):
                mask[o["buy_recovery"]] = True
            if s.sc[S.SPENT] >= 2:
                mask[o["end_throw"]] = True
        elif phase == Phase.DIE_COMMAND:
            mask[o["gain_reconnaissance"]] = mask[o["gain_interaction"]] = True
        elif phase == Phase.SELECT_UNIT:
            self._mask_select_unit(s, mask)
        elif phase == Phase.SELECT_RECOVERY:
            for u in self._recoverable(s, int(s.sc[S.ACTIVE])):
                mask[c.UNIT + u] = True
        elif phase == Phase.MOVE:
            u = int(s.sc[S.UNIT])
            for h in self.destinations(s, u, s.sc[S.WITH_WAGON] >= 0):
                mask[h] = True
        elif phase == Phase.TARGET:
            for h in self._targets(s, int(s.sc[S.UNIT])):
                mask[h] = True
            mask[o["no_combat"]] = True
        elif phase == Phase.RETREAT_BEFORE:
            for h in self._rear_free(s, int(s.sc[S.TARGET])):
                mask[h] = True
            mask[o["stand"]] = True
        elif phase == Phase.ADD_UNIT:
            for u in self._addable(s):
                mask[int(s.hex[u])] = True
            mask[o["done_adding"]] = True
        elif phase in (Phase.ATT_ARTILLERY, Phase.DEF_ARTILLERY):
            mask[o["artillery"]] = mask[o["no_artillery"]] = True
        elif phase == Phase.TAKE_CHOICE:
            mask[o["take_choice"]] = mask[o["decline_choice"]] = True
        elif phase == Phase.LOSS_OR_RETREAT:
            mask[o["choose_loss"]] = mask[o["choose_retreat"]] = True
        elif phase == Phase.RETREAT:
            for h in C.retreat_options(self.T, s, int(s.sc[S.RET_UNIT]))[0]:
                mask[h] = True
        elif phase == Phase.ADVANCE:
            for u in self._advancers(s):
                mask[int(s.hex[u])] = True
        elif phase == Phase.TATAR_DECISION:
            mask[o["end_battle"]] = mask[o["continue_battle"]] = True
        return mask

    def _mask_select_unit(self, s: BerestechkoState, mask: np.ndarray) -> None:
        c, T = self.codec, self.T
        p, value = int(s.sc[S.ACTIVE]), int(s.sc[S.SOURCE])
        inter = int(s.cmd[p, INTERACTION])
        cost = T.rules["additional_activation_cost"]
        for u in self._activatable(s, p, value or None):
            mask[c.UNIT + u] = True
            if C.wagon_with(T, s, u) < 0:
                continue
            # 7.2: moving with the wagon needs a second die of the same value or 2 interaction.
            if value and s.sc[S.SPENT] < 2 and any(
                not s.used[i] and s.dice[i] == value for i in range(3)
            ):
                mask[c.UNIT_WAGON_DIE + u] = True
            if inter >= cost:
                mask[c.UNIT_WAGON_CMD + u] = True

    # ------------------------------------------------------------ rule queries
    def _activatable(self, s: BerestechkoState, p: int, value: int | None) -> list[int]:
        """Units of ``p`` that may be activated (5, 5.1): on the map or withdrawn, not twice yet."""
        T, status, acts = self.T, s.status.tolist(), s.acts.tolist()
        limit = T.rules["activations_per_round"]
        return [
            u for u in T.combat_units_of[p]
            if (status[u] == ON_MAP or status[u] == WITHDRAWN) and acts[u] < limit
            and (value is None or T.act[u] == value)
        ]

    def _recoverable(self, s: BerestechkoState, p: int) -> list[int]:
        """6.2.1: disorganized units on the map (withdrawn units cannot be recovered, 9)."""
        return [u for u in self.T.combat_units_of[p] if s.status[u] == ON_MAP and s.disorg[u]]

    def destinations(self, s: BerestechkoState, u: int, with_wagon: bool) -> dict[int, bool]:
        """Hexes ``u`` may end its move in -> whether it may still attack (7, 7.1, 7.2, 8.3).

        No stacking even in passing; entering complex terrain ends the move, and a cavalry unit
        whose 2nd hex was complex cannot attack; entering enemy wagons (destroying them, 8.3) ends
        the move (decision 15); Cossack infantry moving alone may join its own lone wagons.
        """
        T = self.T
        occ, wag = s.occ.tolist(), s.wag.tolist()
        side = T.side[u]
        start = int(s.hex[u])
        joins_wagon = T.is_cossack_inf[u] and not with_wagon

        def enterable(h: int) -> bool:
            if occ[h] >= 0:
                return False
            w = wag[h]
            return w < 0 or T.side[w] != side or joins_wagon

        out = {start: True}
        frontier = [start]
        for step in range(T.move_allowance[u]):
            nxt = []
            for h in frontier:
                for n in T.adj[h]:
                    if n in out or not enterable(n):
                        continue
                    out[n] = step == 0 or not T.complex[n]
                    if not T.complex[n] and wag[n] < 0:
                        nxt.append(n)
            frontier = nxt
        return out

    def _targets(self, s: BerestechkoState, u: int) -> list[int]:
        """Adjacent hexes holding an enemy combat unit (8)."""
        T, occ = self.T, s.occ
        side = T.side[u]
        out = []
        for n in T.adj[int(s.hex[u])]:
            v = occ[n]
            if v >= 0 and T.side[v] != side:
                out.append(n)
        return out

    def _rear_free(self, s: BerestechkoState, u: int) -> list[int]:
        T = self.T
        return [h for h in T.rear[T.side[u]][int(s.hex[u])] if C.is_free(T, s, h)]

    def _addable(self, s: BerestechkoState) -> list[int]:
        """Own units adjacent to the defender, not yet in the attack (8.1.2; 8.2.2 infantry only)."""
        T = self.T
        p = int(s.sc[S.ACTIVE])
        if s.cmd[p, INTERACTION] < T.rules["declared_attack_cost"]:
            return []
        ranged = s.sc[S.KIND] == RANGED
        occ, part = s.occ, s.part
        out = []
        for n in T.adj[int(s.hex[s.sc[S.TARGET]])]:
            v = int(occ[n])
            if v >= 0 and T.side[v] == p and not part[v] and (T.is_inf[v] or not ranged):
                out.append(v)
        return out

    def _advancers(self, s: BerestechkoState) -> list[int]:
        T = self.T
        return [u for u in range(T.NC) if s.part[u] and T.is_cav[u] and s.status[u] == ON_MAP]

    # ==================================================================== apply
    def apply(self, s: BerestechkoState, action: int, dice: Dice) -> None:
        kind, arg = self.codec.decode(action)
        self._handlers[int(s.sc[S.PHASE])](s, kind, arg, dice)

    # ---- the throw (4.1)
    def _throw(self, s: BerestechkoState, dice: Dice) -> None:
        p = int(s.sc[S.ACTIVE])
        for i in range(3):
            s.dice[i] = dice.roll(6)
        s.used[:] = 0
        s.sc[S.SPENT] = 0
        s.sc[S.THROWS] += 1
        self._set_phase(s, Phase.CHOOSE_DIE, p)
        s.log.append(f"{_side(p)} throws {int(s.dice[0])}, {int(s.dice[1])}, {int(s.dice[2])} [4.1]")

    def _set_phase(self, s: BerestechkoState, phase: int, decider: int) -> None:
        s.sc[S.PHASE] = phase
        s.sc[S.DECIDER] = decider

    def _on_choose_die(self, s, kind, arg, dice):
        T, p = self.T, int(s.sc[S.ACTIVE])
        if kind == "die":
            value = int(s.dice[arg])
            s.used[arg] = 1
            s.sc[S.SPENT] += 1
            s.sc[S.DIE_SLOT] = arg
            # 4.1: a 2-5 activates a unit of that value; it may become a 1/6 only if none can be (5.1).
            if 2 <= value <= 5 and self._activatable(s, p, value):
                s.sc[S.SOURCE] = value
                self._set_phase(s, Phase.SELECT_UNIT, p)
            else:
                if 2 <= value <= 5:
                    s.log.append(f"{_side(p)}: no unit with activation {value} left; the die counts as 1/6 [4.1]")
                self._set_phase(s, Phase.DIE_COMMAND, p)
        elif arg == "buy_activation":
            s.cmd[p, INTERACTION] -= T.rules["additional_activation_cost"]
            s.sc[S.SOURCE] = 0
            s.log.append(f"{_side(p)} spends {T.rules['additional_activation_cost']} interaction: additional activation [6.1.3]")
            self._set_phase(s, Phase.SELECT_UNIT, p)
        elif arg == "buy_recovery":
            s.cmd[p, RECON] -= T.rules["recovery_cost"]
            self._set_phase(s, Phase.SELECT_RECOVERY, p)
        elif arg == "end_throw":
            s.sc[S.ACTIVE] = 1 - p
            self._throw(s, dice)

    def _on_die_command(self, s, kind, arg, dice):
        p = int(s.sc[S.ACTIVE])
        track = RECON if arg == "gain_reconnaissance" else INTERACTION
        cap = self.T.rules["command_cap"]
        if s.cmd[p, track] < cap:
            s.cmd[p, track] += 1
        s.log.append(f"{_side(p)}: +1 {('reconnaissance', 'interaction')[track]} -> {int(s.cmd[p, track])} [6]")
        s.sc[S.DIE_SLOT] = -1
        self._set_phase(s, Phase.CHOOSE_DIE, p)

    def _on_select_recovery(self, s, kind, arg, dice):
        u = int(arg)
        s.disorg[u] = 0
        s.log.append(f"{C.name(self.T, u)} recovers to the ordered state [6.2.1]")
        if self.T.is_tatar[u]:
            C.change_spirit(self.T, s, +1, f"{C.name(self.T, u)} recovered")
        self._set_phase(s, Phase.CHOOSE_DIE, int(s.sc[S.ACTIVE]))

    def _on_select_unit(self, s, kind, arg, dice):
        T, u, p = self.T, int(arg), int(s.sc[S.ACTIVE])
        s.sc[S.UNIT] = u
        s.sc[S.WITH_WAGON] = -1
        s.sc[S.NO_ATTACK] = 0
        how = "additional activation" if s.sc[S.SOURCE] == 0 else f"die {int(s.sc[S.SOURCE])}"
        if kind == "unit_wagon_die":
            value = int(s.sc[S.SOURCE])
            i = next(i for i in range(3) if not s.used[i] and s.dice[i] == value)
            s.used[i] = 1
            s.sc[S.SPENT] += 1
            s.sc[S.WITH_WAGON] = C.wagon_with(T, s, u)
            how += f" + second {value} for the wagon [7.2]"
        elif kind == "unit_wagon_cmd":
            s.cmd[p, INTERACTION] -= T.rules["additional_activation_cost"]
            s.sc[S.WITH_WAGON] = C.wagon_with(T, s, u)
            how += " + 2 interaction for the wagon [7.2, 6.1.3]"
        s.log.append(f"{_side(p)} activates {C.name(T, u)} ({how}) [5]")
        if s.status[u] == WITHDRAWN:
            s.log.append(f"{C.name(T, u)} is withdrawn: an imaginary activation [5.1, 9]")
            self._finish_activation(s, dice)
        else:
            self._set_phase(s, Phase.MOVE, p)

    # ---- movement (7)
    def _on_move(self, s, kind, h, dice):
        T, u = self.T, int(s.sc[S.UNIT])
        start = int(s.hex[u])
        may_attack = self.destinations(s, u, s.sc[S.WITH_WAGON] >= 0)[h]
        if h != start:
            C.place(T, s, u, h)
            w = int(s.sc[S.WITH_WAGON])
            if w >= 0:
                C.move_wagon(s, w, h)
            s.log.append(f"{C.name(T, u)} moves {C.hexid(T, start)} -> {C.hexid(T, h)}" + (" with its wagon" if w >= 0 else "") + " [7]")
        if not may_attack:
            s.sc[S.NO_ATTACK] = 1
            s.log.append(f"{C.name(T, u)} entered complex terrain as its 2nd hex: no attack [7.1]")
            self._finish_activation(s, dice)
        elif not self._targets(s, u):
            self._finish_activation(s, dice)
        else:
            self._set_phase(s, Phase.TARGET, int(s.sc[S.ACTIVE]))

    # ---- combat declaration (8)
    def _on_target(self, s, kind, arg, dice):
        T, u, p = self.T, int(s.sc[S.UNIT]), int(s.sc[S.ACTIVE])
        if kind == "option":  # no_combat
            self._finish_activation(s, dice)
            return
        d = int(s.occ[arg])
        s.sc[S.TARGET] = d
        s.sc[S.KIND] = CLOSE if T.is_cav[u] else RANGED
        s.sc[S.ATT_ARTY] = s.sc[S.DEF_ARTY] = 0
        s.part[:] = 0
        s.part[u] = 1
        s.log.append(f"{C.name(T, u)} declares {'close' if s.sc[S.KIND] == CLOSE else 'ranged'} combat against "
                     f"{C.name(T, d)} at {C.hexid(T, arg)} [8]")
        # 6.2.2 / 8.1.1: retreat before close combat (not with wagons, decision 9; not in ranged, 8.2.1).
        if (s.sc[S.KIND] == CLOSE and s.cmd[1 - p, RECON] >= T.rules["retreat_before_combat_cost"]
                and C.wagon_with(T, s, d) < 0 and self._rear_free(s, d)):
            self._set_phase(s, Phase.RETREAT_BEFORE, 1 - p)
        else:
            self._to_adding(s, dice)

    def _on_retreat_before(self, s, kind, arg, dice):
        T, p = self.T, int(s.sc[S.ACTIVE])
        if kind == "option":  # stand
            self._to_adding(s, dice)
            return
        d, u = int(s.sc[S.TARGET]), int(s.sc[S.UNIT])
        vacated = int(s.hex[d])
        s.cmd[1 - p, RECON] -= T.rules["retreat_before_combat_cost"]
        C.place(T, s, d, arg)
        s.log.append(f"{C.name(T, d)} retreats before combat {C.hexid(T, vacated)} -> {C.hexid(T, arg)} (2 reconnaissance) [6.2.2, 8.1.1]")
        C.place(T, s, u, vacated)
        s.log.append(f"{C.name(T, u)} advances to {C.hexid(T, vacated)} [8.1.1]")
        self._finish_activation(s, dice)

    def _to_adding(self, s, dice):
        if self._addable(s):
            self._set_phase(s, Phase.ADD_UNIT, int(s.sc[S.ACTIVE]))
        else:
            self._to_att_artillery(s, dice)

    def _on_add_unit(self, s, kind, arg, dice):
        T, p = self.T, int(s.sc[S.ACTIVE])
        if kind == "option":  # done_adding
            self._to_att_artillery(s, dice)
            return
        v = int(s.occ[arg])
        s.part[v] = 1
        s.cmd[p, INTERACTION] -= T.rules["declared_attack_cost"]
        s.log.append(f"{C.name(T, v)} joins the attack (1 interaction) [6.1.1, 8.1.2]")
        self._to_adding(s, dice)

    def _to_att_artillery(self, s, dice):
        T, p = self.T, int(s.sc[S.ACTIVE])
        has_inf = any(s.part[u] and T.is_inf[u] for u in range(T.NC))
        if has_inf and s.cmd[p, INTERACTION] >= T.rules["artillery_cost"]:
            self._set_phase(s, Phase.ATT_ARTILLERY, p)
        else:
            self._to_def_artillery(s, dice)

    def _on_att_artillery(self, s, kind, arg, dice):
        if arg == "artillery":
            p = int(s.sc[S.ACTIVE])
            s.cmd[p, INTERACTION] -= self.T.rules["artillery_cost"]
            s.sc[S.ATT_ARTY] = 1
            s.log.append(f"{_side(p)} adds artillery support (1 interaction) [6.1.2, 8.1.3]")
        self._to_def_artillery(s, dice)

    def _to_def_artillery(self, s, dice):
        T, p = self.T, int(s.sc[S.ACTIVE])
        d = int(s.sc[S.TARGET])
        if s.sc[S.KIND] == CLOSE and T.is_inf[d] and s.cmd[1 - p, INTERACTION] >= T.rules["artillery_cost"]:
            self._set_phase(s, Phase.DEF_ARTILLERY, 1 - p)
        else:
            self._resolve(s, dice)

    def _on_def_artillery(self, s, kind, arg, dice):
        if arg == "artillery":
            p = 1 - int(s.sc[S.ACTIVE])
            s.cmd[p, INTERACTION] -= self.T.rules["artillery_cost"]
            s.sc[S.DEF_ARTY] = 1
            s.log.append(f"{_side(p)} adds defensive artillery support (1 interaction) [8.1.3]")
        self._resolve(s, dice)

    # ---- resolution (8.1.4, 8.2.4)
    def _resolve(self, s, dice):
        """Roll: each attacker in the order it joined (the leader first), the attacker's artillery d6,
        then the defender's dice and its artillery d6 (close combat only)."""
        T = self.T
        lead, d, kind = int(s.sc[S.UNIT]), int(s.sc[S.TARGET]), int(s.sc[S.KIND])
        attackers = [lead] + [u for u in range(T.NC) if s.part[u] and u != lead]
        av, parts = 0, []
        for u in attackers:
            n, sides = C.attack_dice(T, s, u, d, kind)
            rolls = [dice.roll(sides) for _ in range(n)]
            av += sum(rolls)
            parts.append(f"{C.name(T, u)} {n}d{sides}={rolls}")
        if s.sc[S.ATT_ARTY]:
            r = dice.roll(6)
            av += r
            parts.append(f"artillery 1d6={r}")
        dv, dparts = 0, []
        if kind == CLOSE:
            n, sides = T.dfn[d], T.die[d]
            rolls = [dice.roll(sides) for _ in range(n)]
            dv = sum(rolls)
            dparts.append(f"{C.name(T, d)} {n}d{sides}={rolls}")
            if s.sc[S.DEF_ARTY]:
                r = dice.roll(6)
                dv += r
                dparts.append(f"artillery 1d6={r}")
        cr, R = av - dv, C.resistance(T, s, d)
        s.sc[S.ROLL_DIFF] = cr
        s.sc[S.VACATED] = int(s.hex[d])
        s.log.append(f"AV {av} ({'; '.join(parts)})" + (f" - DV {dv} ({'; '.join(dparts)})" if kind == CLOSE else "")
                     + f" = CR {cr} vs R {R} [{'8.1.4' if kind == CLOSE else '8.2.4'}]")
        if kind == CLOSE:
            self._close_result(s, cr, R, dice)
        else:
            self._ranged_result(s, cr, R, dice)

    def _close_result(self, s, cr, R, dice):
        T, p = self.T, int(s.sc[S.ACTIVE])
        lead, d = int(s.sc[S.UNIT]), int(s.sc[S.TARGET])
        if cr >= 2 * R:
            s.log.append("CR >= 2R: the defender suffers losses and retreats [8.1.4]")
            C.apply_loss(T, s, d, "close combat")
            C.start_retreat(T, s, d, 1)
            self._continue_combat(s, dice)
        elif cr > R:
            s.log.append("CR > R: the defender suffers losses or retreats [8.1.4]")
            if C.wagon_with(T, s, d) >= 0:
                C.apply_loss(T, s, d, "close combat")  # a retreat would be a loss too (8.3)
                self._continue_combat(s, dice)
            else:
                # 8.1.4: the attacker chooses on open terrain, the defender on complex terrain.
                chooser = 1 - p if T.complex[s.hex[d]] else p
                s.sc[S.CHOOSER] = chooser
                self._set_phase(s, Phase.LOSS_OR_RETREAT, chooser)
        elif cr == R:
            s.log.append("CR = R: no effect [8.1.4]")
            self._continue_combat(s, dice)
        else:
            s.log.append("CR < R: the attacker suffers losses [8.1.4]")
            C.apply_loss(T, s, lead, "failed attack")
            self._continue_combat(s, dice)

    def _ranged_result(self, s, cr, R, dice):
        T, d = self.T, int(s.sc[S.TARGET])
        retreat = 0
        if cr > R:
            if s.disorg[d]:
                s.log.append("CR > R: the disorganized defender retreats [8.2.4]")
                retreat = 1
            else:
                s.log.append("CR > R: the defender suffers losses [8.2.4]")
                C.apply_loss(T, s, d, "ranged combat")
        else:
            s.log.append("CR <= R: no effect [8.2.4]")
        if T.is_tatar[d] and s.status[d] == ON_MAP:
            s.log.append(f"{C.name(T, d)} is a Tatar unit under fire: one additional hex of retreat [8.2.6]")
            retreat += 1
        C.start_retreat(T, s, d, retreat)
        self._continue_combat(s, dice)

    def _on_loss_or_retreat(self, s, kind, arg, dice):
        p, chooser = int(s.sc[S.ACTIVE]), int(s.sc[S.CHOOSER])
        choice = 1 if arg == "choose_loss" else 2
        # 6.2.3, as in the example of two throws: once the attacker has chosen, the defender may pay
        # 1 reconnaissance to make the choice himself.
        if chooser == p and s.cmd[1 - p, RECON] >= self.T.rules["take_choice_cost"]:
            s.sc[S.ATT_CHOICE] = choice
            s.log.append(f"{_side(p)} chooses {('losses', 'a retreat')[choice - 1]} [8.1.4]")
            self._set_phase(s, Phase.TAKE_CHOICE, 1 - p)
            return
        self._loss_or_retreat(s, chooser, choice, dice)

    def _on_take_choice(self, s, kind, arg, dice):
        p = int(s.sc[S.ACTIVE])
        if arg == "take_choice":
            s.cmd[1 - p, RECON] -= self.T.rules["take_choice_cost"]
            s.log.append(f"{_side(1 - p)} spends 1 reconnaissance to choose loss or retreat himself [6.2.3]")
            s.sc[S.CHOOSER] = 1 - p
            self._set_phase(s, Phase.LOSS_OR_RETREAT, 1 - p)
        else:
            self._loss_or_retreat(s, p, int(s.sc[S.ATT_CHOICE]), dice)

    def _loss_or_retreat(self, s, chooser: int, choice: int, dice) -> None:
        T, d = self.T, int(s.sc[S.TARGET])
        s.sc[S.ATT_CHOICE] = s.sc[S.CHOOSER] = 0  # the choice is made: nothing of it stays pending
        if choice == 1:
            s.log.append(f"{_side(chooser)}: the defender suffers losses [8.1.4]")
            C.apply_loss(T, s, d, "close combat")
        else:
            s.log.append(f"{_side(chooser)}: the defender retreats [8.1.4]")
            C.start_retreat(T, s, d, 1)
        self._continue_combat(s, dice)

    def _on_retreat(self, s, kind, arg, dice):
        C.retreat_step(self.T, s, arg)
        self._continue_combat(s, dice)

    def _continue_combat(self, s, dice):
        """After each result or retreat hex: the next pending retreat hex, the advance, or the end."""
        if s.sc[S.OVER]:
            return
        if s.sc[S.RET_UNIT] >= 0 and s.sc[S.RET_LEFT] > 0:
            u = int(s.sc[S.RET_UNIT])
            self._set_phase(s, Phase.RETREAT, self.T.side[u])
            return
        if s.sc[S.KIND] == CLOSE:
            d, vacated = int(s.sc[S.TARGET]), int(s.sc[S.VACATED])
            if s.hex[d] != vacated and s.occ[vacated] < 0 and self._advancers(s):
                self._set_phase(s, Phase.ADVANCE, int(s.sc[S.ACTIVE]))
                return
        self._finish_activation(s, dice)

    def _on_advance(self, s, kind, arg, dice):
        T = self.T
        u, to = int(s.occ[arg]), int(s.sc[S.VACATED])
        C.place(T, s, u, to)
        s.log.append(f"{C.name(T, u)} advances to {C.hexid(T, to)} [8.1.8]")
        self._finish_activation(s, dice)

    # ---- end of an activation, round and game (4, 4.2, 9, 10)
    def _finish_activation(self, s, dice):
        T = self.T
        u = int(s.sc[S.UNIT])
        if u >= 0 and s.status[u] != DESTROYED and s.status[u] != UNUSED:
            s.acts[u] = min(s.acts[u] + 1, T.rules["activations_per_round"])
        clear_activation(s)
        if s.sc[S.OVER]:
            return
        if s.sc[S.PENDING_TATAR]:
            self._set_phase(s, Phase.TATAR_DECISION, 1)
            return
        self._after_activation(s, dice)

    def _on_tatar_decision(self, s, kind, arg, dice):
        s.sc[S.PENDING_TATAR] = 0
        if arg == "end_battle":
            s.log.append("The Cossack-Tatar player ends the battle [9]")
            end_game(self.T, s, None, Reason.TATARS_ENDED)
            return
        s.sc[S.CONTINUED] = 1
        s.log.append("The Cossack-Tatar player fights on without the Tatars [9]")
        self._after_activation(s, dice)

    def _after_activation(self, s, dice):
        """4: the round ends once every unit of one player has been activated twice."""
        T = self.T
        limit = T.rules["activations_per_round"]
        for p in (0, 1):
            units = [u for u in T.combat_units_of[p] if s.status[u] in (ON_MAP, WITHDRAWN)]
            if units and all(s.acts[u] >= limit for u in units):
                self._end_round(s, dice)
                return
        self._set_phase(s, Phase.CHOOSE_DIE, int(s.sc[S.ACTIVE]))

    def _end_round(self, s, dice):
        """4.2: recovery removes activation markers; round 2 opens with last throw's inactive player."""
        T = self.T
        s.acts[:] = 0
        s.log.append(f"End of round {int(s.sc[S.ROUND])}: activation markers removed [4.2]")
        if s.sc[S.ROUND] >= T.rules["rounds"]:
            end_game(T, s, None, Reason.POINTS)
            return
        s.sc[S.ROUND] += 1
        s.sc[S.ACTIVE] = 1 - int(s.sc[S.ACTIVE])
        self._throw(s, dice)


def _side(p: int) -> str:
    return ("Polish-Lithuanian", "Cossack-Tatar")[p]
