"""The Breitenfeld 1631 rules engine (``breitenfeld_v0``): the :class:`~wargame_envs.core.engine.Engine`
contract on top of the compiled rules.

Agents: ``allied`` (player 0: Swedes and Saxons) and ``imperial`` (player 1). Each call of
:meth:`BreitenfeldEngine.apply` carries out one atomic decision and then runs the automatic parts of the
sequence up to the next decision, in one compiled call (``decisions.apply_action``): the same kernel
the batched API (``batch.py``) steps N games with. The pending decision is part of the state
(``g[G_DEC]``, ``g[G_PLAYER]``, the selected piece, the attack being built). This module adds what stays
in Python: options and positions, the log's sentences (``events.py``), action texts, views.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.chance import apply_with_dice
from ..core.dice import ScriptedDice
from ..core.engine import Engine, refuse_finished
from ..core.errors import IllegalActionError, ScenarioError
from ..core.events import EventBuffer
from ..core.options import Option, check_options
from ..core.scenario import check_data_dir
from . import actions as A
from . import combat, observation, position, view
from . import compiled
from .decisions import ILLEGAL, OK
from .events import log_lines, piece_name
from .state import (AC_ATT_LEADERS, AC_CHARGE, D_ART, D_ATTACK, D_COMBAT, D_LEADER, D_LOSS, D_MOVE_DEST,
                    D_MOVE_SELECT, D_NONE, DECISION_KEYS, DECISION_NAMES, F_IN_ATK, G_ACTIVE, G_ART_IDX, G_ATTACK, G_DEC,
                    G_DONE, G_PLAYER, G_RES, G_SEL, RESULT_CODES, make_state_class)
from .data import load_data
from .tables import kernel_tables, new_work, pack_tables
from .zoc import Snap


class BreitenfeldEngine(Engine):
    name = "breitenfeld_v0"
    agents = ("allied", "imperial")

    def __init__(self, data_dir=None):
        check_data_dir(data_dir)
        self.D = D = load_data(data_dir)
        self.T = kernel_tables(D)
        self.tables = pack_tables(self.T)   # what the compiled entry points read (compiled.py)
        self.grid = D.grid
        self.codec = A.ActionCodec(D.n_corps, D.n_units, D.n_leaders, D.grid.n)
        self.num_actions = self.codec.size
        assert self.num_actions == self.T.n_actions and self.codec.hex0 == self.T.hex0
        self.state_class = make_state_class(D.n_units, D.n_leaders, D.n_art, D.n_corps)
        self.corps_units = D.corps_units
        self.corps_pieces = tuple(
            self.corps_units[c] + tuple(D.n_units + l for l in D.corps_leaders[c]) for c in range(D.n_corps))
        self.obs_layout = observation.make_layout(D)
        self._events = EventBuffer()
        self._work = new_work(D.grid.n)
        # the mask of the last position a rule call left or legal_mask computed (state bytes, mask), and the
        # scratch the next call writes
        self._mask = np.zeros(self.num_actions, dtype=np.bool_)
        self._last_mask: tuple[bytes, np.ndarray] = (b"", np.zeros(self.num_actions, dtype=np.bool_))
        # observe: the observation buffer and what its last write set (observation.write_observation)
        self._obs_kernel = observation.tables(self).kernel
        self._obs = self.obs_layout.new()
        self._obs_memo, self._obs_counts = (a[0] for a in observation.new_memo(1, self))

    # ------------------------------------------------------------------ lifecycle
    #: ``reset(options=...)``: checked by ``core.options.check_options`` (see the env docstring)
    OPTIONS = {"turn_ends_chit": Option(bool, False), "visibility": Option(bool, False),
               "position": Option(dict)}

    def new_state(self, options: dict[str, Any] | None, dice) -> Any:
        options = check_options(self.name, options, self.OPTIONS)
        s = position.build_state(self, options)
        if options["position"] is not None:  # a finished game as given (the AEC env refuses more: core.engine)
            refuse_finished(self, s, to_move=False)
        self._run(s, dice, compiled.advance)
        if options["position"] is not None:
            problems = self.check_invariants(s)
            if problems:
                raise ScenarioError(f"position: not a position the rules can reach: {problems[0]}")
        return s

    def _run(self, s, dice, entry, *args):
        """``entry(buf, tables, dv, ds, ev, evn, mask, work, *args)``, a compiled rule on ``s.buf`` with
        ``dice``, which leaves the new decision's mask in ``mask`` (kept for :meth:`legal_mask`); its events go
        to ``s.log``. A scripted die that runs out or does not fit leaves ``s`` as it was (and raises);
        ``dice`` None (a decision that rolls nothing) reads as no dice at all. Returns what ``entry`` returns."""
        ev, buf, mask = self._events, s.buf, self._mask
        out = []
        try:
            apply_with_dice(buf, ScriptedDice(()) if dice is None else dice, lambda dv, ds: out.append(
                entry(buf, self.tables, dv, ds, ev.ev, ev.evn, mask, self._work, *args)))
        finally:
            if ev.evn[0]:
                s.defer_log(self._sentences, ev.drain())   # a copy of the events
        if out[0] == OK:
            self._keep_mask(buf)
        return out[0]

    def _keep_mask(self, buf) -> None:
        """The mask scratch holds ``buf``'s legal options: it becomes the kept mask (``legal_mask`` hands out
        copies of it), the previous one the scratch."""
        self._mask, self._last_mask = self._last_mask[1], (buf.tobytes(), self._mask)

    def _sentences(self, rows) -> list[str]:
        return log_lines(self, rows)

    def progress(self, state) -> tuple[bool, bool, int, int]:
        return compiled.progress(state.g)

    def current_player(self, state) -> int:
        return -1 if state.g[G_DONE] else int(state.g[G_PLAYER])

    def is_terminal(self, state) -> bool:
        return bool(state.g[G_DONE])

    def returns(self, state) -> np.ndarray:
        out = np.zeros(2, dtype=np.float32)
        compiled.write_returns(state.buf, self.tables, out)
        return out

    def victory_points(self, state) -> tuple[int, int]:
        """(Allied, Imperial) victory points (reference section 6, 5.33)."""
        a, i = compiled.victory_points(state.buf, self.tables)
        return int(a), int(i)

    def scores(self, state) -> np.ndarray:
        return np.asarray(self.victory_points(state), dtype=np.float32)

    def decision_name(self, state) -> str:
        return DECISION_NAMES[int(state.g[G_DEC])]

    decision_names = DECISION_NAMES

    def decision_id(self, state) -> int:
        return int(state.g[G_DEC])

    def decision_key(self, state) -> str:
        return DECISION_KEYS[int(state.g[G_DEC])]

    # ------------------------------------------------------------------ masks
    def legal_mask(self, state) -> np.ndarray:
        """A new array: the kept mask when it is this very position's (each rule call leaves its new decision's
        mask: ``_run``), else computed."""
        key, mask = self._last_mask
        buf = state.buf
        if key != buf.tobytes():
            compiled.legal_options(buf, self.tables, self._mask, self._work)
            self._keep_mask(buf)
            mask = self._last_mask[1]
        return mask.copy()

    def legal_actions(self, state) -> list[int]:
        return np.flatnonzero(self.legal_mask(state)).tolist()

    def _piece_hex(self, s, p: int) -> int:
        return int(s.u_hex[p]) if p < self.D.n_units else int(s.l_hex[p - self.D.n_units])

    # ------------------------------------------------------------------ apply
    def apply(self, state, action: int, dice) -> None:
        s = state
        if s.g[G_DONE]:
            raise IllegalActionError("the game is over")
        action = int(action)
        # the mask kept for this very position (the AEC loop asks for it first) spares the kernel computing it
        key, mask = self._last_mask
        checked = key == s.buf.tobytes()
        if checked and not (0 <= action < self.num_actions and mask[action]):
            status = ILLEGAL
        else:
            status = self._run(s, dice, compiled.apply_action, action, checked)
        if status == ILLEGAL:
            raise IllegalActionError(
                f"illegal action {action} ({self._describe(s, action)}) at decision '{self.decision_name(s)}'")

    # ------------------------------------------------------------------ text
    def _piece_name(self, s, p: int) -> str:
        return piece_name(self.D, p, self._piece_hex(s, p), int(s.u_dis[p]) if p < self.D.n_units else 0)

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
        active = int(s.g[G_ACTIVE])
        members = [u for u, (h, f) in enumerate(zip(s.u_hex.tolist(), s.u_flags.tolist())) if f & F_IN_ATK and h >= 0]
        sa = [u for u in members if active >= 0 and D.unit_side[u] == D.corps_side[active]]
        sd = [u for u in members if u not in sa]
        if not sa or not sd:
            return "resolve attack"
        mode = combat.CHARGE_MARKED if int(s.g[G_DEC]) == D_LEADER else (
            combat.CHARGE_ELIGIBLE if charge else combat.CHARGE_NONE)
        _, _, col, charging = compiled.attack_odds(s.buf, self.tables, mode, leaders[0],
                                                   leaders[1])
        dh = "+".join(sorted(D.grid.ids[int(s.u_hex[d])] for d in sd))
        ah = "+".join(sorted(D.grid.ids[int(s.u_hex[a])] for a in sa))
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
        return self._describe(state, self.check_action(action))

    # ------------------------------------------------------------------ views
    def observe(self, state, player: int) -> np.ndarray:
        """A new array: the engine's own observation buffer, updated in place for ``state`` (only what
        changed since its last write: ``observation.write_observation``), then copied."""
        compiled.write_observation(state.buf, self.tables, self._obs_kernel, int(player), self._obs,
                                   self._obs_memo, self._obs_counts)
        return self._obs.copy()

    def eligible_attackers(self, state) -> set[int]:
        """The units that may attack now (8.14, 8.23), for Python readers (agents)."""
        return set(np.flatnonzero(compiled.eligible_attackers(state.buf, self.tables)).tolist())

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
            elif not self.legal_mask(s).any():
                out.append(f"empty mask at decision '{self.decision_name(s)}'")
            if int(s.g[G_PLAYER]) not in (0, 1):
                out.append(f"player {int(s.g[G_PLAYER])} to move")
        return out
