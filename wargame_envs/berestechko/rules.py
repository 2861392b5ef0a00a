"""The Berestechko 1651 rules engine (no PettingZoo here): the :class:`~wargame_envs.core.engine.Engine`
API around the compiled rules.

A throw (4.1) is cut into atomic decisions, each one AEC step of the player named by
``current_player``; the state's ``sc[S.PHASE]`` says which decision is pending (see
:data:`~.state.Phase`). The rules themselves are compiled kernels over the state buffer: the sequence of
play in ``sequence.py``, combat results and retreats in ``combat.py``, what is legal in ``queries.py``
and ``mask.py``, victory in ``victory.py``, the observation in ``observation.py``. The engine is one game
of them (``kernels.py``); ``batch.py`` steps many games in one call over the same functions.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from ..core.chance import apply_with_dice
from ..core.dice import Dice
from ..core.engine import Engine
from ..core.errors import IllegalActionError
from ..core.events import EventBuffer
from ..core.options import Option, check_options
from ..core.scenario import check_data_dir
from .actions import ActionCodec
from .data import SIDES, load_scenario
from .events import log_lines
from .kernels import apply_one, mask_one, observe_one, open_one, scores_one
from .observation import build_layout
from .position import from_position, summary, to_position
from .state import PHASE_NAMES, BerestechkoState, S, make_state_class
from ..core.kernel_records import record
from .tables import Tables, pack_tables, state_dtype


class BerestechkoEngine(Engine):
    name = "berestechko_v0"
    agents = SIDES

    def __init__(self, data_dir: str | Path | None = None):
        check_data_dir(data_dir)
        self.scenario = load_scenario(data_dir)
        self.T = Tables(self.scenario)
        self.grid = self.scenario.grid
        self.codec = ActionCodec(self.grid.n, self.scenario.n_combat)
        self.num_actions = self.codec.size
        self.state_class = make_state_class(self.scenario.n_units, self.grid.n)
        self.obs_layout = build_layout(self)
        #: the packed tables every kernel reads and their layout; the state buffer's layout (tables.py)
        self.kt, self.kdt = pack_tables(self.scenario, self.codec, self.obs_layout)
        self.gdt = state_dtype(self.state_class)
        #: the tables as the record a rule takes (to call a rule from Python: ``rule(engine.K, engine.views(s))``)
        self.K = record(self.kt, self.kdt)
        self._local = threading.local()  # each thread's event buffer (the kernels run without the GIL)

    # ================================================================ lifecycle
    #: reset options (core.options: a bool must be a bool; unknown names are warned about and ignored)
    OPTIONS = {"variant": Option(bool, False), "position": Option(object, None)}

    def new_state(self, options: dict[str, Any] | None, dice: Dice) -> BerestechkoState:
        options = check_options("berestechko", options, self.OPTIONS)
        s = from_position(self, options["position"], options["variant"])
        kt, kdt, buf, gdt, ev = self.kt, self.kdt, s.buf, self.gdt, self._events()
        self._restoring(buf, dice, ev, lambda dv, ds: open_one(kt, kdt, buf, gdt, dv, ds, ev.ev, ev.evn))
        self._log(s, ev)
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
        """Victory points: the final ones once the game is over, else as if it ended now (10)."""
        return np.array(scores_one(self.kt, self.kdt, s.buf, self.gdt), dtype=np.float32)

    def observe(self, s: BerestechkoState, player: int) -> np.ndarray:
        obs = np.empty(self.obs_layout.size, dtype=np.float32)
        observe_one(self.kt, self.kdt, s.buf, self.gdt, player, obs)
        return obs

    def legal_mask(self, s: BerestechkoState) -> np.ndarray:
        return self._legal(s).copy()

    def _legal(self, s: BerestechkoState) -> np.ndarray:
        """The mask of ``s``, computed once per position: ``apply`` checks its action against the mask the
        caller has usually just asked for (the compiled rules trust their action)."""
        local = self._local.__dict__
        key = s.buf.tobytes()
        if local.get("mask_key") != key:
            mask = local.get("mask")
            if mask is None:
                mask = local["mask"] = np.empty(self.num_actions, dtype=bool)
            mask_one(self.kt, self.kdt, s.buf, self.gdt, mask)
            local["mask_key"] = key
        return local["mask"]

    def apply(self, s: BerestechkoState, action: int, dice: Dice) -> None:
        """Carry out ``action`` (an illegal one raises :class:`IllegalActionError` and changes nothing), rolling
        with ``dice``; a scripted die that runs out or does not fit changes nothing."""
        if not 0 <= action < self.num_actions or not self._legal(s)[action]:
            raise IllegalActionError(f"action {action} is not legal at decision '{self.decision_name(s)}'")
        ev = self._events()
        if getattr(dice, "never_runs_out", False):
            # Seeded dice cannot run out (kernel_stream hands over plenty): no backup needed.
            dv, ds = dice.kernel_stream()
            apply_one(self.kt, self.kdt, s.buf, self.gdt, action, dv, ds, ev.ev, ev.evn)
            dice.kernel_done(ds)
        else:
            kt, kdt, buf, gdt = self.kt, self.kdt, s.buf, self.gdt
            self._restoring(buf, dice, ev, lambda dv, ds: apply_one(kt, kdt, buf, gdt, action, dv, ds, ev.ev, ev.evn))
        self._log(s, ev)

    @staticmethod
    def _restoring(buf, dice: Dice, ev: EventBuffer, call) -> None:
        """``call(dv, ds)`` with ``dice``; if a die runs out or does not fit, ``buf`` and the log are as before."""
        try:
            apply_with_dice(buf, dice, call)
        except BaseException:
            ev.evn[0] = 0
            raise

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("_local", "K")}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.K = record(self.kt, self.kdt)
        self._local = threading.local()

    def _events(self) -> EventBuffer:
        ev = self._local.__dict__.get("events")
        if ev is None:
            ev = self._local.events = EventBuffer()
        return ev

    def _log(self, s: BerestechkoState, ev: EventBuffer) -> None:
        """Append the events of the last kernel call to the state's log."""
        n = int(ev.evn[0])
        if n:
            if n > len(ev.ev):
                raise RuntimeError(f"{n} events in one call: more than the buffer's {len(ev.ev)} rows")
            ev.evn[0] = 0
            s.defer_log(self._format, ev.ev[:n].copy())

    def _format(self, rows) -> list[str]:
        return log_lines(self, rows)

    def views(self, s: BerestechkoState) -> np.record:
        """The state as the record a rule takes (its fields are views of ``s.buf``), to call a rule from Python."""
        return record(s.buf, self.gdt)

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
