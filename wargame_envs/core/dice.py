"""Every die roll of every battle goes through one of these objects.

The engine never owns randomness: the caller hands it a :class:`Dice` on each ``apply``. In play it
is a seeded ``numpy.random.Generator``; in rule tests and puzzles it is :class:`ScriptedDice`, which
returns exactly the values the test lists; search agents pass their own sampling dice, so searching
never disturbs the game's dice. Same seed + same actions = same game, bit for bit.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from .errors import DiceExhaustedError

_BLOCK = 512


class Dice:
    """Seeded dice. ``roll(sides)`` returns ``1..sides``; ``roll(sides, low=0)`` returns ``0..sides-1``."""

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self._buf: list[float] = []
        self._pos = 0
        self.count = 0  # rolls made so far (for logs and records)

    def roll(self, sides: int, low: int = 1) -> int:
        if self._pos >= len(self._buf):
            # Drawing uniforms in blocks keeps a roll at ~100 ns; the stream depends only on the seed.
            self._buf = self._rng.random(_BLOCK).tolist()
            self._pos = 0
        u = self._buf[self._pos]
        self._pos += 1
        self.count += 1
        return low + int(u * sides)

    def roll_many(self, sides: int, n: int, low: int = 1) -> list[int]:
        return [self.roll(sides, low) for _ in range(n)]

    def spawn(self) -> "Dice":
        """An independent dice stream derived from this one (for search rollouts)."""
        return Dice(int(self._rng.integers(0, 2**63 - 1)))


class ScriptedDice(Dice):
    """Returns the listed values in order; raises if they run out or do not fit the die rolled."""

    def __init__(self, values: Iterable[int]):
        super().__init__(0)
        self.values = [int(v) for v in values]
        self.count = 0

    def roll(self, sides: int, low: int = 1) -> int:
        if self.count >= len(self.values):
            raise DiceExhaustedError(
                f"scripted dice exhausted after {self.count} rolls (a d{sides} was asked for)"
            )
        v = self.values[self.count]
        if not low <= v < low + sides:
            raise DiceExhaustedError(
                f"scripted roll #{self.count + 1} is {v}, which a d{sides} reading {low}..{low + sides - 1} cannot show"
            )
        self.count += 1
        return v

    @property
    def remaining(self) -> int:
        return len(self.values) - self.count
