"""Every die roll of every battle goes through one of these objects.

The engine never owns randomness: the caller hands it a :class:`Dice` on each ``apply``. In play it
is a seeded ``numpy.random.Generator``; in rule tests and puzzles it is :class:`ScriptedDice`, which
returns exactly the values the test lists; search agents pass their own sampling dice, so searching
never disturbs the game's dice. Same seed + same actions = same game, bit for bit.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from .chance import DS_ERROR, DS_LEN, DS_LOW, DS_POS, DS_SCRIPTED, DS_SIDES, DS_SIZE, DS_VALUE, ERR_BAD_VALUE, \
    ERR_EXHAUSTED, ERR_NONE, MIN_LEFT
from .errors import DiceExhaustedError

_BLOCK = 512


class Dice:
    """Seeded dice. ``roll(sides)`` returns ``1..sides``; ``roll(sides, low=0)`` returns ``0..sides-1``.

    Compiled rules read the same uniforms through :meth:`kernel_stream` / :meth:`kernel_done`
    (see ``core.chance``): the stream depends only on the seed, however it is read."""

    #: :meth:`kernel_stream` always hands over more uniforms than one decision rolls, so a compiled rule
    #: never fails for want of dice and callers need no backup of the state (``core.chance.apply_with_dice``)
    never_runs_out = True

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self._buf = np.zeros(0, dtype=np.float64)
        self._pos = 0
        self._ds = np.zeros(DS_SIZE, dtype=np.int64)
        self.count = 0  # rolls made so far (for logs and records)

    def roll(self, sides: int, low: int = 1) -> int:
        if self._pos >= len(self._buf):
            # Drawing uniforms in blocks keeps a roll cheap; the stream depends only on the seed.
            self._buf = self._rng.random(_BLOCK)
            self._pos = 0
        u = float(self._buf[self._pos])
        self._pos += 1
        self.count += 1
        return low + int(u * sides)

    def kernel_stream(self) -> tuple[np.ndarray, np.ndarray]:
        """``(dv, ds)`` for a compiled rule: at least ``MIN_LEFT`` unread uniforms from the position."""
        left = len(self._buf) - self._pos
        if left < MIN_LEFT:
            self._buf = np.concatenate([self._buf[self._pos:], self._rng.random(MIN_LEFT + _BLOCK - left)])
            self._pos = 0
        ds = self._ds
        ds[:] = 0
        ds[DS_POS], ds[DS_LEN] = self._pos, len(self._buf)
        return self._buf, ds

    def kernel_done(self, ds: np.ndarray) -> None:
        """Take the stream back after the kernel: advance past the dice it rolled, or raise."""
        if ds[DS_ERROR] != ERR_NONE:
            self._raise(ds)
        used = int(ds[DS_POS]) - self._pos
        self._pos += used
        self.count += used

    def _raise(self, ds: np.ndarray) -> None:
        raise RuntimeError(f"a decision rolled more than {MIN_LEFT} dice (a rules bug)")

    def roll_many(self, sides: int, n: int, low: int = 1) -> list[int]:
        return [self.roll(sides, low) for _ in range(n)]

    def spawn(self) -> "Dice":
        """An independent dice stream derived from this one (for search rollouts)."""
        return Dice(int(self._rng.integers(0, 2**63 - 1)))


class ScriptedDice(Dice):
    """Returns the listed values in order; raises if they run out or do not fit the die rolled."""

    never_runs_out = False

    def __init__(self, values: Iterable[int]):
        super().__init__(0)
        self.values = [int(v) for v in values]
        self._values = np.asarray(self.values, dtype=np.float64)
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

    def kernel_stream(self) -> tuple[np.ndarray, np.ndarray]:
        ds = self._ds
        ds[:] = 0
        ds[DS_POS], ds[DS_LEN], ds[DS_SCRIPTED] = self.count, len(self.values), 1
        return self._values, ds

    def kernel_done(self, ds: np.ndarray) -> None:
        if ds[DS_ERROR] == ERR_EXHAUSTED:
            raise DiceExhaustedError(
                f"scripted dice exhausted after {int(ds[DS_POS])} rolls (a d{int(ds[DS_SIDES])} was asked for)")
        if ds[DS_ERROR] == ERR_BAD_VALUE:
            sides, low = int(ds[DS_SIDES]), int(ds[DS_LOW])
            raise DiceExhaustedError(
                f"scripted roll #{int(ds[DS_POS]) + 1} is {int(ds[DS_VALUE])}, which a d{sides} reading "
                f"{low}..{low + sides - 1} cannot show")
        self.count = int(ds[DS_POS])

    @property
    def remaining(self) -> int:
        return len(self.values) - self.count
