"""The batched backend of ``breitenfeld_v0`` for ``wargame_envs.vector`` (see ``core/vector.py``).

:func:`step_batch` steps every game of a batch in one compiled call, over the very rule kernels the
engine (and so the AEC env) runs for one game (``decisions.apply_action``, ``sequence.advance``); nothing is
logged. Breitenfeld has no length limit: ``truncated`` stays False.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..core.dice import Dice
from ..core.events import no_events
from ..core.jit import kernel
from ..core.options import check_options
from ..core.vector import BattleBackend
from . import position
from .decisions import apply_action, legal_options
from . import observation
from .observation import new_memo, write_observation
from .rules import BreitenfeldEngine
from .sequence import advance
from .state import G_DONE, G_PLAYER
from .tables import globals_of, new_work, unpack
from .victory import victory_points, write_returns

SKIP, RESTART, REFRESH = -1, -2, -3


@kernel
def step_batch(tables, obs_tables, states, actions, template, dv, ds, ev, evn, obs, memo, counts, mask, work, player,
               rewards, terminated, truncated):
    """For each game ``i``: skip (``-1``: only its rewards are zeroed), restart from ``template`` and run
    the opening sequence (``-2``), only write its outputs (``-3``), or apply ``actions[i]``; then write its
    row of ``obs`` (the view of the seat to move, or of the seat that moved last once the game is over),
    ``mask``, ``player``, ``rewards`` (the returns on the step that ends the game) and the flags. The
    observation rows are updated in place: ``memo[i]``, ``counts[i]`` remember the last write into row ``i``
    (``observation.write_observation``; ``obs_tables``: its tables)."""
    T = unpack(tables)
    O = unpack(obs_tables)
    for i in range(states.shape[0]):
        a = actions[i]
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        if a == SKIP:
            continue
        buf = states[i]
        g = globals_of(buf, T)
        mover = g[G_PLAYER]
        if a == RESTART:
            buf[:] = template
            advance(buf, T, dv[i], ds[i], ev, evn, work)
        elif a != REFRESH:
            apply_action(buf, T, a, dv[i], ds[i], ev, evn, mask[i], work, True)   # VectorGame checked it
        truncated[i] = False
        terminated[i] = g[G_DONE] != 0
        if terminated[i]:
            if a != RESTART and a != REFRESH:
                write_returns(buf, T, rewards[i])
            player[i] = mover if mover >= 0 else 0
        else:
            player[i] = g[G_PLAYER]
        legal_options(buf, T, mask[i], work, a != REFRESH)
        write_observation(buf, T, O, player[i], obs[i], memo[i], counts[i])


@kernel
def observe_batch_kernel(tables, obs_tables, states, players, obs, memo, counts):
    """Each row of ``obs`` written whole (``memo``, ``counts``: one row of scratch)."""
    T = unpack(tables)
    O = unpack(obs_tables)
    for i in range(states.shape[0]):
        memo[0] = 0                                    # nothing written (observation.M_OBSERVER)
        write_observation(states[i], T, O, players[i], obs[i], memo, counts)


@kernel
def scores_batch_kernel(tables, states, out):
    """Every game's (Allied, Imperial) victory points (``engine.scores``)."""
    T = unpack(tables)
    for i in range(states.shape[0]):
        out[i, 0], out[i, 1] = victory_points(states[i], T)


class BreitenfeldBackend(BattleBackend):
    """What ``core.vector.VectorGame`` needs of Breitenfeld (``wargame_envs.vector.make("breitenfeld", n)``)."""

    KEYWORDS = ("data_dir",)

    def __init__(self, data_dir: str | Path | None = None):
        super().__init__(BreitenfeldEngine(data_dir))
        e = self.engine
        self._obs_tables = observation.tables(e).kernel
        self._work = new_work(e.grid.n)
        self._no_events = no_events()
        self._scratch = tuple(a[0] for a in new_memo(1, e))
        self._memo_for: tuple[np.ndarray | None, tuple[np.ndarray, np.ndarray]] = (None, new_memo(0, e))

    def _memo(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(memo, counts)``: what the last write set in each row of ``obs`` (new, so whole writes first, for
        another array)."""
        seen, memo = self._memo_for
        if seen is not obs:
            memo = new_memo(obs.shape[0], self.engine)
            self._memo_for = (obs, memo)
        return memo

    def template(self, options: dict[str, Any]) -> np.ndarray:
        """A new game (the standard setup with the options, or ``options["position"]``) before its opening
        sequence (checked: a position the rules cannot continue from is refused here)."""
        e = self.engine
        e.new_state(options, Dice(0))
        return position.build_state(e, check_options(e.name, options, e.OPTIONS)).buf.copy()

    def step_batch(self, states, actions, template, dice, obs, mask, player, rewards, terminated, truncated):
        e = self.engine
        step_batch(e.tables, self._obs_tables, states, actions, template, dice.dv, dice.ds,
                   *self._no_events, obs, *self._memo(obs), mask, self._work, player, rewards, terminated, truncated)

    def observe_batch(self, states, players, obs):
        observe_batch_kernel(self.engine.tables, self._obs_tables, states, players, obs, *self._scratch)

    def scores_batch(self, states, out):
        scores_batch_kernel(self.engine.tables, states, out)
