"""The batched backend of ``kulikovo_v0`` for ``wargame_envs.vector`` (see ``core/vector.py``).

:func:`step_batch` steps every game of a batch in one compiled call, over the very rule functions the
engine (and so the AEC env) runs for one game (``rules/turn.py``); nothing is logged. Each game's rules
context (``rules/kstate.Ctx``: views of its rows) is built once for the batch's arrays (:func:`contexts`),
not on every step.

Observations: the float32 vector of the AEC env (34,110 values, 136 KB a game), or with
``observation="compact"`` the same values as uint8 (``floor(255 * v + 0.5)`` of the float32 value ``v``:
0/1 planes become 0/255; 34 KB a game). Divide by 255 to recover the float form (exact for every plane
and feature but the fractional ones: elevation, Flight Points, ratings, activations, MP, within 1/510).
Either way a row is updated in place, only where it changed since the step before
(``observation.write_obs``; what each row holds is remembered in ``marks``): a decision touches a few
dozen entries, not the whole row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

try:
    from numba.typed import List  # a plain list where numba's JIT is disabled
except ImportError:  # pragma: no cover - numba is a dependency
    List = list

from ..core.chance import DS_SIZE
from ..core.jit import kernel
from ..core.vector import BattleBackend
from .observation import new_marks, obs_kernel, write_obs
from .rules import KulikovoEngine
from .rules.board import flight_points
from .rules.kstate import make_ctx
from .rules.turn import pending_options, settle, step
from .state import G_OVER, G_SP, G_TRUNC, G_WINNER

SKIP, RESTART, REFRESH = -1, -2, -3
OBSERVATIONS = ("float", "compact")


@kernel
def contexts(T, states, dv, ds, ev, evn, zc, zu, mask):
    """The rules' context of every game of a batch (views of its rows of ``states``, ``dv``, ``ds`` and
    ``mask``; the event buffer and the ZOC room shared), built once for a batch's arrays."""
    out = List()
    for i in range(states.shape[0]):
        out.append(make_ctx(states[i], T, dv[i], ds[i], ev, evn, zc, zu, mask[i]))
    return out


@kernel
def step_batch(T, O, ctxs, actions, template, obs, marks, player, rewards, terminated, truncated):
    """For each game ``i`` (context ``ctxs[i]``): skip (``-1``: only its rewards are zeroed), restart from
    ``template`` with the opening Heroic Combat (``-2``), only write its outputs (``-3``), or apply
    ``actions[i]``; then write its row of ``obs`` (the view of the seat to move, or of the seat that moved
    last once the game is over), its mask (``c.opts``), ``player``, ``rewards`` (the returns on the step
    that ends the game) and the flags. The observation rows are updated in place: ``marks[i]`` says what
    the last write set in row ``i`` (``observation.write_obs``); a restart or a refresh writes the whole
    row."""
    for i in range(actions.shape[0]):
        a = actions[i]
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        if a == SKIP:
            continue
        c = ctxs[i]
        if a == RESTART:
            c.buf[:] = template
            settle(c, T)
            mover = c.stack[c.g[G_SP] - 1, 1] if not c.g[G_OVER] else 0
            marks[i, 0] = -1
        elif a == REFRESH:
            mover = c.stack[c.g[G_SP] - 1, 1] if not c.g[G_OVER] else 0
            pending_options(c, T)
            marks[i, 0] = -1
        else:
            mover = c.stack[c.g[G_SP] - 1, 1]
            step(c, T, a)
        over = c.g[G_OVER] != 0
        terminated[i] = over and not c.g[G_TRUNC]
        truncated[i] = over and c.g[G_TRUNC] != 0
        if over:
            w = c.g[G_WINNER]
            if terminated[i] and w >= 0:
                rewards[i, w] = 1.0
                rewards[i, 1 - w] = -1.0
            player[i] = mover
            c.opts[:] = False
        else:
            player[i] = c.stack[c.g[G_SP] - 1, 1]
        write_obs(c, T, O, c.opts, player[i], obs[i], marks[i])


@kernel
def observe_batch_kernel(T, O, states, players, obs, mask, whole, dv, ds, ev, evn, zc, zu):
    """Each game's observation for ``players[i]`` into ``obs[i]``, written whole (``whole``: a marks of size
    1); ``mask``: room for the pending options."""
    for i in range(states.shape[0]):
        c = make_ctx(states[i], T, dv, ds, ev, evn, zc, zu, mask)
        pending_options(c, T)
        write_obs(c, T, O, mask, players[i], obs[i], whole)


@kernel
def scores_batch_kernel(T, states, out, dv, ds, ev, evn, zc, zu, mask):
    """Every game's ``engine.scores``: the Flight Points of the enemy of each seat (16.0)."""
    for i in range(states.shape[0]):
        c = make_ctx(states[i], T, dv, ds, ev, evn, zc, zu, mask)
        out[i, 0] = flight_points(c, T, 1)
        out[i, 1] = flight_points(c, T, 0)


class KulikovoBackend(BattleBackend):
    """What ``core.vector.VectorGame`` needs of Kulikovo (``wargame_envs.vector.make("kulikovo", n)``);
    ``observation="compact"`` selects the uint8 observations (module docstring)."""

    KEYWORDS = ("data_dir", "observation")

    def __init__(self, data_dir: str | Path | None = None, observation: str = "float"):
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation = {observation!r}: expected one of {OBSERVATIONS}")
        super().__init__(KulikovoEngine(data_dir))
        e = self.engine
        self.obs_dtype = np.uint8 if observation == "compact" else np.float32
        self._obs_kernel = obs_kernel(e, observation)
        self._options: dict[str, Any] = {}
        self._scratch = (np.zeros((0, 5), np.int32), np.zeros(1, np.int64), np.zeros((2, e.N), np.int64),
                         np.empty((2, e.N, 6), np.int64))  # no events; the ZOC room
        self._marks_for: tuple[np.ndarray | None, np.ndarray] = (None, new_marks(0, e))
        self._ctxs_for: tuple[tuple, Any] = ((), None)

    def _contexts(self, states: np.ndarray, dice, mask: np.ndarray):
        """The games' contexts (:func:`contexts`), built again only for other arrays."""
        key, ctxs = self._ctxs_for
        arrays = (states, dice.dv, dice.ds, mask)
        if len(key) != len(arrays) or any(a is not b for a, b in zip(key, arrays)):
            ctxs = contexts(self.engine.tables(), *arrays[:3], *self._scratch, mask)
            self._ctxs_for = (arrays, ctxs)
        return ctxs

    def _marks(self, obs: np.ndarray) -> np.ndarray:
        """What the last write set in each row of ``obs`` (new, so whole writes first, for another array)."""
        seen, marks = self._marks_for
        if seen is not obs:
            marks = new_marks(obs.shape[0], self.engine)
            self._marks_for = (obs, marks)
        return marks

    def template(self, options: dict[str, Any]) -> np.ndarray:
        """A new game (or ``options["position"]``) before its opening Heroic Combat (15.4)."""
        s = self.engine.initial_state(options)
        self._options = dict(options)
        self.engine.tables(s)  # the Ambush LOS rows its games may read (15.2)
        return s.buf.copy()

    def step_batch(self, states, actions, template, dice, obs, mask, player, rewards, terminated, truncated):
        e = self.engine
        step_batch(e.tables(), self._obs_kernel, self._contexts(states, dice, mask), actions, template, obs,
                   self._marks(obs), player, rewards, terminated, truncated)

    def observe_batch(self, states, players, obs):
        e = self.engine
        observe_batch_kernel(e.tables(), self._obs_kernel, states, players, obs, np.zeros(e.num_actions, np.bool_),
                             np.full(1, -1, np.int32), np.zeros(0, np.float64), np.zeros(DS_SIZE, np.int64),
                             *self._scratch)

    def scores_batch(self, states, out):
        e = self.engine
        scores_batch_kernel(e.tables(), states, out, np.zeros(0, np.float64), np.zeros(DS_SIZE, np.int64),
                            *self._scratch, np.zeros(e.num_actions, np.bool_))

    def from_position(self, position: dict[str, Any], dice) -> np.ndarray:
        s = self.engine.new_state({**self._options, "position": position}, dice)
        self.engine.tables(s)
        return s.buf
