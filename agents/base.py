"""The one small protocol every agent follows, and the mask-uniform random agent."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """An agent picks a legal action for ``player`` in ``state``.

    It may read the engine and the state (scripted and search agents do), but it must not read
    hidden information of the other side: search agents sample it instead.
    """

    name: str

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, engine, state, player: int, mask: np.ndarray) -> int: ...


class RandomAgent:
    """Uniform over the legal actions of the pending decision."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def act(self, engine, state, player: int, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action: the game is over or the mask is empty")
        return int(legal[self._rng.integers(legal.size)])
