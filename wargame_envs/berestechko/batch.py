"""The batched backend of ``berestechko_v0`` for ``wargame_envs.vector`` (see ``core/vector.py``).

:func:`step_batch` steps every game of a batch in one compiled call, over the very rule functions the engine
(and so the AEC env) runs for one game; nothing is logged. Berestechko has no length limit: ``truncated``
stays False.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..core.events import no_events
from ..core.jit import kernel
from ..core.options import check_options
from ..core.vector import BattleBackend
from .mask import legal_mask
from .observation import observe
from .position import from_position
from .kernels import scores_one
from .rules import BerestechkoEngine
from .sequence import apply, opening_throw_due, throw
from .state import S
from ..core.kernel_records import as_record, borrowed
from .tables import make_io

SKIP, RESTART, REFRESH = -1, -2, -3


@kernel
def step_batch(kt, kdt, gdt, states, actions, template, dv, ds, ev, evn,
               obs, mask, player, rewards, terminated, truncated):
    """For each game ``i``: skip (``-1``: only its rewards are zeroed), restart from ``template`` with the
    opening throw (``-2``), only write its outputs (``-3``), or apply ``actions[i]``; then write its row of
    ``obs`` (the view of the seat to move, or of the seat that moved last once the game is over), ``mask``,
    ``player``, ``rewards`` (the returns on the step that ends the game) and the flags."""
    k = as_record(kt, kdt)
    for i in range(states.shape[0]):
        a = actions[i]
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        if a == SKIP:
            continue
        g = as_record(states[i], gdt)
        io = make_io(dv[i], ds[i], ev, evn)
        mover = g.sc[S.DECIDER]
        if a == RESTART:
            states[i, :] = template
            if opening_throw_due(g):
                throw(k, g, io)
        elif a != REFRESH:
            apply(k, g, io, a)
        terminated[i] = False
        truncated[i] = False
        if g.sc[S.OVER]:
            w = g.sc[S.WINNER]
            rewards[i, w] = 1.0
            rewards[i, 1 - w] = -1.0
            terminated[i] = True
            player[i] = mover
            mask[i, :] = False
        else:
            player[i] = g.sc[S.DECIDER]
            legal_mask(k, g, borrowed(mask[i]))
        observe(k, g, player[i], borrowed(obs[i]))


@kernel
def observe_batch_kernel(kt, kdt, gdt, states, players, obs):
    k = as_record(kt, kdt)
    for i in range(states.shape[0]):
        observe(k, as_record(states[i], gdt), players[i], borrowed(obs[i]))


@kernel
def scores_batch_kernel(kt, kdt, gdt, states, out):
    for i in range(states.shape[0]):
        out[i, 0], out[i, 1] = scores_one(kt, kdt, states[i], gdt)


class BerestechkoBackend(BattleBackend):
    """What ``core.vector.VectorGame`` needs of Berestechko (``wargame_envs.vector.make("berestechko", n)``)."""

    KEYWORDS = ("data_dir",)

    def __init__(self, data_dir: str | Path | None = None):
        super().__init__(BerestechkoEngine(data_dir))
        self._no_events = no_events()

    def template(self, options: dict[str, Any]) -> np.ndarray:
        """A new game (the standard setup, the variant, or ``options["position"]``) before its opening throw."""
        options = check_options("berestechko", options, self.engine.OPTIONS)
        return from_position(self.engine, options["position"], options["variant"]).buf.copy()

    def step_batch(self, states, actions, template, dice, obs, mask, player, rewards, terminated, truncated):
        e = self.engine
        step_batch(e.kt, e.kdt, e.gdt, states, actions, template, dice.dv, dice.ds, *self._no_events,
                   obs, mask, player, rewards, terminated, truncated)

    def observe_batch(self, states, players, obs):
        e = self.engine
        observe_batch_kernel(e.kt, e.kdt, e.gdt, states, players, obs)

    def scores_batch(self, states, out):
        e = self.engine
        scores_batch_kernel(e.kt, e.kdt, e.gdt, states, out)
