"""The Breitenfeld 1631 rules engine (``breitenfeld_v0``): the :class:`~wargame_envs.core.engine.Engine`
contract on top of the rule modules.

Agents: ``allied`` (player 0: Swedes and Saxons) and ``imperial`` (player 1). Each call of
:meth:`BreitenfeldEngine.apply` carries out one atomic decision and then runs the automatic parts of the
sequence (``sequence.advance``) up to the next decision. The pending decision is part of the state
(``g[G_DEC]``, ``g[G_PLAYER]``, the selected piece, the attack being built).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.engine import Engine
from ..core.errors import IllegalActionError, ScenarioError
from ..core.options import Option, check_options
from . import actions as A
from . import artillery, combat, movement, observation, position, sequence, view
from .data import load_data
from .disruption import disrupt
from .leaders import check_leaders
from .state import (AC_ATT_LEADERS, AC_CHARGE, AC_DEF_LEADERS, D_ART, D_ATTACK, D_COMBAT, D_LEADER, D_LOSS,
                    D_MOVE_DEST, D_MOVE_SELECT, D_NONE, D_SWAP, DECISION_KEYS, DECISION_NAMES, F_CHARGE, F_FORCED,
                    F_IN_ATK, F_MOVED, G_ACTIVE, G_ART_IDX, G_ATTACK, G_DEC, G_DECISIONS, G_DONE,
                    G_DRAWN, G_LOSS_SIDE, G_MAY0, G_MP, G_PLAYER, G_RES, G_SEL, G_VIS, G_VIS_OPT,
                    LF_MOVED, RESULT_CODES, make_state_class)
from .victory import returns as vp_returns
from .victory import victory_points
from .zoc import Snap


class BreitenfeldEngine(Engine):
    name = "breitenfeld_v0"
    agents = ("allied", "imperial")

    def __init__(self, data_dir=None):
        self.D = D = load_data(data_dir)
        self.grid = D.grid
        self.codec = A.ActionCodec(D.n_corps, D.n_units, D.n_leaders, D.grid.n)
        self.num_actions = self.codec.size
        self.state_class = make_state_class(D.n_units, D.n_leaders, D.n_art, D.n_corps)
        self.corps_units = D.corps_units
        self.corps_pieces = tuple(
            self.corps_units[c] + tuple(D.n_units + l for l in D.corps_leaders[c]) for c in range(D.n_corps))
        self.obs_layout = observation.make_layout(D)
        self._tg_cache: dict = {}
        self._planes_key, self._planes = None, None
        self._cache_key = None
        self._cache_val = None
        self._attack_key, self._attack_val = None, None
        self._units_end = 3 * D.n_units             # u_hex, u_dis, u_flags lead the state buffer

    # ------------------------------------------------------------------ lifecycle
    #: ``reset(options=...)``: checked by ``core.options.check_options`` (see the env docstring)
    OPTIONS = {"turn_ends_chit": Option(bool, False), "visibility": Option(bool, False),
               "position": Option(dict)}

    def new_state(self, options: dict[str, Any] | None, dice) -> Any:
        options = check_options(self.name, options, self.OPTIONS)
        s = position.build_state(self, options)
        sequence.advance(self, s, dice)
        if options["position"] is not None:
            problems = self.check_invariants(s)
            if problems:
                raise ScenarioError(f"position: not a position the rules can reach: {problems[0]}")
        return s

    def current_player(self, state) -> int:
        return -1 if state.g[G_DONE] else int(state.g[G_PLAYER])

    def is_terminal(self, state) -> bool:
        return bool(state.g[G_DONE])

    def returns(self, state) -> np.ndarray:
        return vp_returns(self.D, state, bool(state.g[G_DONE]))

    def scores(self, state) -> np.ndarray:
        return np.asarray(victory_points(self.D, state), dtype=np.float32)

    def decision_name(self, state) -> str:
        return DECISION_NAMES[int(state.g[G_DEC])]

    decision_names = DECISION_NAMES

    def decision_id(self, state) -> int:
        return int(state.g[G_DEC])

    def decision_key(self, state) -> str:
        return DECISION_KEYS[int(state.g[G_DEC])]

    # ------------------------------------------------------------------ masks
    def _options(self, s) -> tuple[list[int], dict]:
        """Legal action indices of the pending decision (unordered), plus what apply needs (cached per
        state bytes)."""
        key = s.buf.tobytes()
        if key == self._cache_key:
            return self._cache_val
        D, c = self.D, self.codec
        dec = int(s.g[G_DEC])
        legal: list[int] = []
        info: dict = {}
        if dec == D_SWAP:
            drawn = int(s.g[G_DRAWN])
            side = D.corps_side[drawn]
            legal.append(c.corps(drawn))
            legal += [c.corps(k) for k in range(D.n_corps) if s.cup[k] and D.corps_side[k] == side and k != drawn]
        elif dec == D_ART:
            tg = self.art_targets(s, int(s.g[G_ART_IDX]))
            legal.append(A.END)
            h0 = c.hex0
            legal += [h0 + h for h, _ in tg]
        elif dec == D_MOVE_SELECT:
            snap = Snap(D, s)
            active = int(s.g[G_ACTIVE])
            sel = movement.selectable_pieces(D, s, snap, active, self.corps_pieces[active])
            if not sequence.forced_left(self, s, snap, sel):
                legal.append(A.END)
            p0 = c.piece0
            legal += [p0 + p for p in sel]
        elif dec == D_MOVE_DEST:
            snap = Snap(D, s)
            p = int(s.g[G_SEL])
            budget = self._budget(s, p)
            reach = movement.destinations(D, s, snap, p, budget)
            info = {"reach": reach, "budget": budget}
            here = self._piece_hex(s, p)
            forced = p < D.n_units and s.u_flags[p] & F_FORCED and s.g[G_MP] < 0 and (reach.hexes or reach.can_exit)
            if not forced:
                legal.append(c.hex(here))
            if reach.can_exit:
                legal.append(A.EXIT)
            h0 = c.hex0
            legal += [h0 + h for h in reach.hexes]
        elif dec == D_COMBAT:
            targets, obligations_left = self.attack_targets(s)
            if not obligations_left:
                legal.append(A.END)
            uh = Snap(D, s).uh
            legal += [c.hex(uh[e]) for e in targets]
        elif dec == D_ATTACK:
            ctx = combat.Ctx(D, s)
            if ctx.can_resolve():
                legal.append(A.RESOLVE)
                if ctx.charge_eligible():
                    legal.append(A.RESOLVE_CHARGE)
            legal += [c.hex(ctx.snap.uh[u]) for u in ctx.add_candidates()]
        elif dec == D_LOSS:
            legal += [c.hex(int(s.u_hex[u])) for u in combat.loss_candidates(D, s, int(s.g[G_LOSS_SIDE]))]
        elif dec == D_LEADER:
            legal += [A.ADD_LEADERS, A.DECLINE_LEADERS]
        self._cache_key, self._cache_val = key, (legal, info)
        return legal, info

    def attack_targets(self, s) -> tuple[list[int], bool]:
        """(enemy units an attack may be declared on, obligations left) in the combat phase
        (``combat.Ctx``): the combat step asks, then the mask. Remembered for the last unit arrays,
        active corps and cup (bytes, not the state object: the engine may be handed clones or unrelated
        states in turn); callers never modify the list."""
        key = (s.buf[:self._units_end].tobytes(), int(s.g[G_ACTIVE]), s.cup.tobytes())
        if key != self._attack_key:
            ctx = combat.Ctx(self.D, s)
            self._attack_key, self._attack_val = key, (ctx.start_candidates(), ctx.obligations_left())
        return self._attack_val

    def art_targets(self, s, a: int) -> list[tuple[int, int]]:
        """Targets of artillery ``a`` (cached: nothing moves during the artillery phase)."""
        key = (s.u_hex.tobytes(), s.a_owner.tobytes(), s.a_hex.tobytes(), int(s.g[G_VIS]), int(s.g[G_VIS_OPT]), a)
        tg = self._tg_cache.get(key)
        if tg is None:
            if len(self._tg_cache) > 256:
                self._tg_cache.clear()
            pkey = key[0] + key[2]
            if self._planes_key != pkey:
                self._planes_key, self._planes = pkey, artillery.blocking_planes(self.D, s)
            tg = artillery.targets(self.D, s, a, self._planes)
            self._tg_cache[key] = tg
        return tg

    def legal_mask(self, state) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        if not state.g[G_DONE]:
            mask[self._options(state)[0]] = True
        return mask

    def legal_actions(self, state) -> list[int]:
        return [] if state.g[G_DONE] else sorted(self._options(state)[0])

    def _piece_hex(self, s, p: int) -> int:
        return int(s.u_hex[p]) if p < self.D.n_units else int(s.l_hex[p - self.D.n_units])

    def _budget(self, s, p: int) -> int:
        if s.g[G_MP] >= 0:
            return int(s.g[G_MP])
        if p >= self.D.n_units:
            return self.D.leader_ma[p - self.D.n_units]
        return movement.unit_budget(self.D, s, p)

    # ------------------------------------------------------------------ apply
    def apply(self, state, action: int, dice) -> None:
        s = state
        if s.g[G_DONE]:
            raise IllegalActionError("the game is over")
        legal, info = self._options(s)
        action = int(action)
        if action not in legal:
            raise IllegalActionError(
                f"illegal action {action} ({self._describe(s, action)}) at decision '{self.decision_name(s)}'")
        D, c = self.D, self.codec
        kind, idx = c.decode(action)
        dec = int(s.g[G_DEC])
        s.g[G_DECISIONS] += 1
        s.g[G_DEC] = D_NONE
        if dec == D_SWAP:
            sequence.swap(self, s, idx)
        elif dec == D_ART:
            a = int(s.g[G_ART_IDX])
            if kind == "HEX":
                s.a_target[a] = idx
            s.g[G_ART_IDX] = a + 1
        elif dec == D_MOVE_SELECT:
            if kind == "END":
                sequence.enter_combat(self, s)
            else:
                s.g[G_SEL] = idx
                s.g[G_MP] = -1
                sequence.set_decision(s, D_MOVE_DEST, int(s.g[G_PLAYER]))
        elif dec == D_MOVE_DEST:
            self._apply_move(s, kind, idx, info)
        elif dec == D_COMBAT:
            if kind == "END":
                sequence.end_activation(self, s)
            else:
                u = Snap(D, s).at[idx]
                s.u_flags[u] |= F_IN_ATK
                sequence.set_decision(s, D_ATTACK, int(s.g[G_PLAYER]))
        elif dec == D_ATTACK:
            if kind == "HEX":
                u = Snap(D, s).at[idx]
                s.u_flags[u] |= F_IN_ATK
                sequence.set_decision(s, D_ATTACK, int(s.g[G_PLAYER]))
            else:
                combat.declare(D, s, charge=(kind == "RESOLVE_CHARGE"))
                self._leaders_or_roll(s, dice, attacker=True)
        elif dec == D_LEADER:
            attacker = int(s.g[G_PLAYER]) == D.corps_side[int(s.g[G_ACTIVE])]
            if kind == "ADD_LEADERS":
                s.g[G_ATTACK] |= AC_ATT_LEADERS if attacker else AC_DEF_LEADERS
            s.log.append(f"The {'attacker' if attacker else 'defender'} "
                         f"{'adds' if kind == 'ADD_LEADERS' else 'declines'} the leaders' values [10.11]")
            if attacker:
                self._leaders_or_roll(s, dice, attacker=False)
            else:
                self._roll(s, dice)
        elif dec == D_LOSS:
            u = Snap(D, s).at[idx]
            res = RESULT_CODES[int(s.g[G_RES])]
            r = disrupt(D, s, u, f"{res}, chosen by its owner")
            s.log.append(f"{D.unit_label[u]} chosen for the {res} result: {r} [8.6]")
            s.g[G_RES] = 0
            s.g[G_LOSS_SIDE] = -1
            combat.finish(D, s, res)
            check_leaders(D, s)
        sequence.advance(self, s, dice)

    def _leaders_or_roll(self, s, dice, attacker: bool) -> None:
        """10.11: the attacker's, then the defender's choice to add the leaders' values, where a side has
        an eligible leader; then the roll."""
        D = self.D
        snap = Snap(D, s)
        ctx = combat.Ctx(D, s, snap)
        for role in ((True, False) if attacker else (False,)):
            if combat.combat_leaders(D, s, snap, ctx.sa if role else ctx.sd, role):
                sequence.set_decision(s, D_LEADER, ctx.side if role else 1 - ctx.side)
                return
        self._roll(s, dice)

    def _roll(self, s, dice) -> None:
        D = self.D
        res, loss_side = combat.resolve(D, s, dice)
        if loss_side >= 0:
            s.g[G_RES] = RESULT_CODES.index(res)
            s.g[G_LOSS_SIDE] = loss_side
            sequence.set_decision(s, D_LOSS, loss_side)
        else:
            combat.finish(D, s, res)
            check_leaders(D, s)

    def _apply_move(self, s, kind: str, idx: int, info: dict) -> None:
        D = self.D
        p = int(s.g[G_SEL])
        moved = kind != "EXIT" and idx != self._piece_hex(s, p)
        done = True
        if kind == "EXIT":
            movement.leave_map(D, s, p)
        elif moved:
            done = not self._move_piece(s, p, idx, info["budget"] - info["reach"].cost(idx))
        if done:
            if p >= D.n_units:
                s.l_flags[p - D.n_units] |= LF_MOVED
            else:
                s.u_flags[p] |= F_MOVED
            s.g[G_SEL] = -1
            s.g[G_MP] = -1
        else:
            sequence.set_decision(s, D_MOVE_DEST, int(s.g[G_PLAYER]))
        if moved:
            check_leaders(D, s)   # after the marks (it reads no flags)

    def _move_piece(self, s, p: int, h: int, left: int) -> bool:
        """Put piece ``p`` in hex ``h`` with ``left`` MP left: captures (5.32), the Allied release (12.4).
        True if it captured a gun and may move on (a second destination decision)."""
        D = self.D
        who = self._piece_name(s, p)
        if p >= D.n_units:
            s.l_hex[p - D.n_units] = h
        else:
            s.u_hex[p] = h
        s.log.append(f"{who} -> {D.grid.ids[h]}")
        if p >= D.n_units:
            return False
        side = D.unit_side[p]
        captured = movement.capture_artillery(D, s, h, side, who)
        if side == 1 and not s.g[G_MAY0]:
            self._check_allied_release(s, h)
        if not captured or left <= 0:
            return False
        s.g[G_MP] = left
        further = movement.destinations(D, s, Snap(D, s), p, left)
        return bool(further.hexes) or further.can_exit

    def _check_allied_release(self, s, h: int) -> None:
        """12.4: an Imperial unit moved within 3 hexes of an Allied unit."""
        D = self.D
        drow = D.grid.dist[h]
        for u, uh in enumerate(s.u_hex.tolist()):
            if uh >= 0 and D.unit_side[u] == 0 and drow[uh] <= D.release_distance:
                s.g[G_MAY0] = 1
                s.log.append(f"An Imperial unit is within {D.release_distance} hexes of an Allied unit: the Allies "
                             f"may move [12.4]")
                return

    # ------------------------------------------------------------------ text
    def _piece_name(self, s, p: int) -> str:
        D = self.D
        if p >= D.n_units:
            l = p - D.n_units
            h = int(s.l_hex[l])
            return f"{D.corps_title[D.leader_corps[l]]}: {D.leader_names[l]} {D.grid.ids[h] if h >= 0 else '(gone)'}"
        h = int(s.u_hex[p])
        where = D.grid.ids[h] if h >= 0 else "(gone)"
        dis = " (disrupted)" if s.u_dis[p] else ""
        return f"{D.corps_title[D.unit_corps[p]]}: {D.unit_label[p]} {where}{dis}"

    def _describe(self, s, action: int) -> str:
        D, c = self.D, self.codec
        try:
            kind, idx = c.decode(action)
        except ValueError as exc:
            return str(exc)
        dec = int(s.g[G_DEC])
        if kind == "CORPS":
            return f"activate {D.corps_title[idx]}"
        if kind == "PIECE":
            return f"select {self._piece_name(s, idx)}"
        if kind == "END":
            return {D_ART: "hold fire", D_MOVE_SELECT: "end movement phase", D_COMBAT: "end combat phase"}.get(dec, "end")
        if kind in ("RESOLVE", "RESOLVE_CHARGE"):
            return self._attack_text(s, charge=kind == "RESOLVE_CHARGE")
        if kind in ("ADD_LEADERS", "DECLINE_LEADERS"):
            return self._leader_text(s, kind == "ADD_LEADERS")
        if kind == "EXIT":
            p = int(s.g[G_SEL])
            return f"{self._piece_name(s, p) if p >= 0 else 'selected unit'} leaves the map"
        hid = D.grid.ids[idx]
        snap = Snap(D, s)
        if dec == D_MOVE_DEST:
            p = int(s.g[G_SEL])
            if p < 0:
                return f"move to {hid}"
            if idx == self._piece_hex(s, p):
                return f"{self._piece_name(s, p)} stays"
            return f"{self._piece_name(s, p)} -> {hid}"
        if dec == D_ART:
            a = int(s.g[G_ART_IDX])
            u = snap.at[idx]
            rng = int(D.grid.dist[int(s.a_hex[a]), idx])
            tgt = D.unit_label[u] if u >= 0 else "hex"
            return f"artillery {D.art_ids[a]} {D.grid.ids[int(s.a_hex[a])]} fires at {tgt} {hid} (range {rng})"
        if dec == D_COMBAT:
            return f"attack {hid}"
        if dec == D_ATTACK:
            u = snap.at[idx]
            if u >= 0 and D.unit_side[u] == int(s.g[G_PLAYER]):
                return f"add {D.unit_label[u]} {hid} to the attack"
            return f"add {hid} to the defenders"
        if dec == D_LOSS:
            return f"disrupt {D.unit_label[snap.at[idx]] if snap.at[idx] >= 0 else ''} {hid} ({RESULT_CODES[int(s.g[G_RES])]})"
        return f"{kind} {hid}"

    def _attack_text(self, s, charge: bool, leaders=(True, True)) -> str:
        """The attack being built, and its odds with the leaders' values in ``leaders`` (attacker,
        defender) added (10.11; before their choices: as if both add them)."""
        D = self.D
        snap = Snap(D, s)
        ctx = combat.Ctx(D, s, snap)
        if not ctx.sa or not ctx.sd:
            return "resolve attack"
        if int(s.g[G_DEC]) == D_LEADER:
            charging = {a for a in ctx.sa if snap.uf[a] & F_CHARGE}
        else:
            charging = set(ctx.charge_eligible()) if charge else set()
        att, dfn, _ = combat.strengths(D, s, snap, ctx.sa, ctx.sd, charging, leaders)
        col = combat.odds_column(D, att, dfn)
        dh = "+".join(sorted(D.grid.ids[snap.uh[d]] for d in ctx.sd))
        ah = "+".join(sorted(D.grid.ids[snap.uh[a]] for a in ctx.sa))
        ch = " charging" if charging else ""
        return f"attack {dh} with {ah}{ch} at {D.crt_columns[col]}"

    def _leader_text(self, s, add: bool) -> str:
        D = self.D
        attacker = int(s.g[G_PLAYER]) == D.corps_side[int(s.g[G_ACTIVE])]
        choices = int(s.g[G_ATTACK])
        leaders = (add, True) if attacker else (bool(choices & AC_ATT_LEADERS), add)
        verb = "add the leaders' values" if add else "decline the leaders' values"
        return f"{verb}: {self._attack_text(s, bool(choices & AC_CHARGE), leaders)}"

    def action_to_str(self, state, action: int) -> str:
        return self._describe(state, int(action))

    # ------------------------------------------------------------------ views
    def observe(self, state, player: int) -> np.ndarray:
        return observation.observe(self, state, player)

    def to_position(self, state) -> dict[str, Any]:
        return position.to_position(self, state)

    def summary(self, state) -> dict[str, Any]:
        """Read-only omniscient summary (turn, phase, cup, victory points, eliminated strength,
        demoralization, every piece's hex, strength and status) as a plain dict; see docs/breitenfeld.md."""
        return position.summary(self, state)

    def render_ansi(self, state, viewer: int | None = None) -> str:
        return view.render_ansi(self, state, viewer)

    def scene(self, state, viewer: int | None = None):
        return view.scene(self, state, viewer)

    # ------------------------------------------------------------------ invariants
    def check_invariants(self, state) -> list[str]:
        D = self.D
        s = state
        out = []
        uh = s.u_hex.tolist()
        seen = {}
        for u, h in enumerate(uh):
            if h >= D.grid.n or h < -3:
                out.append(f"unit {D.unit_ids[u]} has hex index {h} out of range")
            elif h >= 0:
                if h in seen:
                    out.append(f"units {D.unit_ids[seen[h]]} and {D.unit_ids[u]} stacked in {D.grid.ids[h]} (6.32)")
                seen[h] = u
            if s.u_dis[u] not in (0, 1):
                out.append(f"unit {D.unit_ids[u]} disrupted flag {int(s.u_dis[u])}")
            if h < 0 and s.u_dis[u]:
                out.append(f"unit {D.unit_ids[u]} off the map but disrupted")
        for l, h in enumerate(s.l_hex.tolist()):
            if h >= D.grid.n or h < -3:
                out.append(f"leader {D.leader_ids[l]} has hex index {h} out of range")
            elif h >= 0:
                u = seen.get(h)
                if u is not None and D.unit_side[u] != D.leader_side[l]:
                    out.append(f"leader {D.leader_ids[l]} shares {D.grid.ids[h]} with an enemy unit")
        for a, (h, o) in enumerate(zip(s.a_hex.tolist(), s.a_owner.tolist())):
            if o not in (0, 1):
                out.append(f"artillery {D.art_ids[a]} owner {o}")
            if h >= 0 and h in seen and D.unit_side[seen[h]] != o:
                out.append(f"artillery {D.art_ids[a]} at {D.grid.ids[h]} not friendly to the unit there (5.31)")
        turn = int(s.g[0])
        if not 1 <= turn <= D.turns:
            out.append(f"turn {turn} outside 1..{D.turns}")
        if any(x not in (0, 1) for x in s.cup.tolist()):
            out.append("cup holds values other than 0/1")
        if not s.g[G_DONE]:
            if int(s.g[G_DEC]) == D_NONE:
                out.append("no pending decision in a running game")
            elif not self._options(s)[0]:
                out.append(f"empty mask at decision '{self.decision_name(s)}'")
            if int(s.g[G_PLAYER]) not in (0, 1):
                out.append(f"player {int(s.g[G_PLAYER])} to move")
        return out
