"""The batched backend of ``kulikovo_v0`` for ``wargame_envs.vector`` (see ``core/vector.py``).

:func:`step_batch` steps every game of a batch in one compiled call, over the very rule functions the
engine (and so the AEC env) runs for one game (``rules/turn.py``); nothing is logged.

Observations: the float32 vector of the AEC env (34,110 values, 136 KB a game), or with
``observation="compact"`` the same values as uint8 (``floor(255 * v + 0.5)`` of the float32 value ``v``:
0/1 planes become 0/255; 34 KB a game, a quarter of the memory traffic). Divide by 255 to recover the float form (exact for every plane
and feature but the fractional ones: elevation, Flight Points, ratings, activations, MP, within 1/510).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..core.chance import DS_SIZE
from ..core.jit import kernel
from .observation import write_obs
from .rules import KulikovoEngine
from .rules.kstate import make_ctx
from .rules.turn import pending_options, settle, step
from .state import G_OVER, G_SP, G_TRUNC, G_WINNER

SKIP, RESTART, REFRESH = -1, -2, -3
OBSERVATIONS = ("float", "compact")


@kernel
def step_batch(T, units, leader_planes, std_planes, ooff, otemplate, scale, states, actions, template,
               dv, ds, obs, mask, player, rewards, terminated, truncated):
    """For each game ``i``: skip (``-1``: only its rewards are zeroed), restart from ``template`` with the
    opening Heroic Combat (``-2``), only write its outputs (``-3``), or apply ``actions[i]``; then write
    its row of ``obs`` (the view of the seat to move, or of the seat that moved last once the game is
    over), ``mask``, ``player``, ``rewards`` (the returns on the step that ends the game) and the flags."""
    zc = np.zeros((2, T.N), np.int64)
    zu = np.empty((2, T.N, 6), np.int64)
    ev = np.zeros((0, 5), np.int32)
    evn = np.zeros(1, np.int64)
    for i in range(states.shape[0]):
        a = actions[i]
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        if a == SKIP:
            continue
        buf = states[i]
        c = make_ctx(buf, T, dv[i], ds[i], ev, evn, zc, zu, mask[i])
        if a == RESTART:
            buf[:] = template
            settle(c, T)
            mover = c.stack[c.g[G_SP] - 1, 1] if not c.g[G_OVER] else 0
        elif a == REFRESH:
            mover = c.stack[c.g[G_SP] - 1, 1] if not c.g[G_OVER] else 0
            pending_options(c, T)
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
            mask[i, :] = False
        else:
            player[i] = c.stack[c.g[G_SP] - 1, 1]
        write_obs(c, T, units, leader_planes, std_planes, ooff, otemplate, mask[i], player[i], obs[i], scale)


@kernel
def observe_batch_kernel(T, units, leader_planes, std_planes, ooff, otemplate, scale, states, players,
                         obs):
    zc = np.zeros((2, T.N), np.int64)
    zu = np.empty((2, T.N, 6), np.int64)
    mask = np.zeros(T.NUM_ACTIONS, np.bool_)
    for i in range(states.shape[0]):
        c = make_ctx(states[i], T, np.zeros(0, np.float64), np.zeros(DS_SIZE, np.int64), np.zeros((0, 5), np.int32),
                     np.zeros(1, np.int64), zc, zu, mask)
        pending_options(c, T)
        write_obs(c, T, units, leader_planes, std_planes, ooff, otemplate, mask, players[i], obs[i], scale)


class KulikovoBackend:
    """What ``core.vector.VectorGame`` needs of Kulikovo (``wargame_envs.vector.make("kulikovo", n)``);
    ``observation="compact"`` selects the uint8 observations (module docstring)."""

    KEYWORDS = ("data_dir", "observation")
    num_players = 2

    def __init__(self, data_dir: str | Path | None = None, observation: str = "float"):
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation = {observation!r}: expected one of {OBSERVATIONS}")
        self.engine = e = KulikovoEngine(data_dir)
        self.num_actions = e.num_actions
        self.obs_size = e.obs_layout.size
        self.state_size = e.state_class._size
        self.obs_dtype = np.uint8 if observation == "compact" else np.float32
        self._otemplate = e._obs_template_u8 if observation == "compact" else e._obs_template
        self._scale = 255.0 if observation == "compact" else 1.0
        self._options: dict[str, Any] = {}

    def template(self, options: dict[str, Any]) -> np.ndarray:
        """A new game (or ``options["position"]``) before its opening Heroic Combat (15.4)."""
        s = self.engine.initial_state(options)
        self._options = dict(options)
        self.engine.tables(s)  # the Ambush LOS rows its games may read (15.2)
        return s.buf.copy()

    def step_batch(self, states, actions, template, dice, obs, mask, player, rewards, terminated, truncated):
        e = self.engine
        step_batch(e.tables(), *e._obs_tables, self._otemplate, self._scale, states, actions, template, dice.dv, dice.ds, obs,
                   mask, player, rewards, terminated, truncated)

    def observe_batch(self, states, players, obs):
        e = self.engine
        observe_batch_kernel(e.tables(), *e._obs_tables, self._otemplate, self._scale, states, players, obs)

    def state_view(self, buf: np.ndarray):
        """One game of the batch as an engine state (its fields are views of ``buf``)."""
        return self.engine.state_class(buf)

    def to_position(self, buf: np.ndarray) -> dict[str, Any]:
        return self.engine.to_position(self.engine.state_class(buf.copy()))

    def from_position(self, position: dict[str, Any], dice) -> np.ndarray:
        s = self.engine.new_state({**self._options, "position": position}, dice)
        self.engine.tables(s)
        return s.buf
