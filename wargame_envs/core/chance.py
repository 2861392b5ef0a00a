"""Dice inside compiled kernels: the same streams as :class:`~wargame_envs.core.dice.Dice`, read from arrays.

A kernel cannot call a numpy ``Generator`` or raise a formatted error, so a game's dice reach it as two
arrays:

- ``dv`` (float64, 1-D): the uniforms still to be used (a seeded game), or the values a test scripted;
- ``ds`` (int64, ``DS_SIZE``): the stream's state: read position, length, scripted flag and error.

:func:`roll` reads ``low + int(u * sides)`` from the next uniform, exactly as ``Dice.roll`` does, so a
compiled rule and the game's record see the same dice bit for bit. The Python side hands the arrays over
with ``Dice.kernel_stream()`` (which tops the uniforms up to :data:`MIN_LEFT`) and takes them back with
``Dice.kernel_done(ds)``, which raises :class:`DiceExhaustedError` for an exhausted or misfitting scripted
die. :func:`apply_with_dice` wraps a kernel call so that a failed roll leaves the game as it was.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .jit import kernel

# ds fields
DS_POS, DS_LEN, DS_SCRIPTED, DS_ERROR, DS_SIDES, DS_LOW, DS_VALUE = 0, 1, 2, 3, 4, 5, 6
DS_SIZE = 8
# ds[DS_ERROR] codes
ERR_NONE, ERR_EXHAUSTED, ERR_BAD_VALUE, ERR_SHORT = 0, 1, 2, 3
#: uniforms every seeded stream holds before a kernel call: far more than any decision rolls
MIN_LEFT = 1024


@kernel
def roll(dv, ds, sides, low):
    """One die: ``low .. low + sides - 1``. After an error every roll returns ``low`` and the caller
    (``Dice.kernel_done``) raises; the kernel need not stop early."""
    if ds[DS_ERROR] != ERR_NONE:
        return low
    pos = ds[DS_POS]
    if pos >= ds[DS_LEN]:
        ds[DS_ERROR] = ERR_EXHAUSTED if ds[DS_SCRIPTED] else ERR_SHORT
        ds[DS_SIDES] = sides
        ds[DS_LOW] = low
        return low
    if ds[DS_SCRIPTED]:
        v = int(dv[pos])
        if v < low or v >= low + sides:
            ds[DS_ERROR] = ERR_BAD_VALUE
            ds[DS_SIDES] = sides
            ds[DS_LOW] = low
            ds[DS_VALUE] = v
            return low
    else:
        v = low + int(dv[pos] * sides)
    ds[DS_POS] = pos + 1
    return v


def apply_with_dice(buf: np.ndarray, dice, call: Callable[[np.ndarray, np.ndarray], None]) -> None:
    """Run ``call(dv, ds)`` (a compiled rule on ``buf``) with ``dice``; if a scripted die runs out or does
    not fit, ``buf`` is restored and :class:`DiceExhaustedError` raised, so a failed step changes nothing."""
    # a seeded stream hands over more uniforms than any decision rolls: only scripted dice can run out
    backup = None if getattr(dice, "never_runs_out", False) else buf.copy()
    dv, ds = dice.kernel_stream()
    call(dv, ds)
    try:
        dice.kernel_done(ds)
    except Exception:
        if backup is not None:
            buf[:] = backup
        raise


class BatchDice:
    """The dice of ``n`` games for a batched kernel: ``dv`` (n, cap) uniforms and ``ds`` (n, DS_SIZE).

    Game ``i`` rolls the same stream as ``Dice(seed)`` once :meth:`start_game` gave it that seed, so a
    batched game and an AEC game with the same seed and actions are the same game. :meth:`refill` tops
    every stream up to :data:`MIN_LEFT` unread uniforms before each batched step.
    """

    def __init__(self, n: int, cap: int = 4 * MIN_LEFT):
        if cap < 2 * MIN_LEFT:
            raise ValueError(f"cap = {cap}: expected at least {2 * MIN_LEFT}")
        self.cap = cap
        self.dv = np.zeros((n, cap), dtype=np.float64)
        self.ds = np.zeros((n, DS_SIZE), dtype=np.int64)
        self._rngs: list[np.random.Generator | None] = [None] * n

    def start_game(self, i: int, seed: int, skip: int = 0) -> None:
        """Game ``i`` rolls ``Dice(seed)``'s stream from its ``skip``-th roll on."""
        rng = np.random.default_rng(seed)
        if skip:
            rng.random(skip)
        self._rngs[i] = rng
        self.dv[i] = rng.random(self.cap)
        self.ds[i] = 0
        self.ds[i, DS_LEN] = self.cap

    def refill(self) -> None:
        low = np.flatnonzero(self.ds[:, DS_LEN] - self.ds[:, DS_POS] < MIN_LEFT)
        for i in low:
            if self._rngs[i] is None:  # not started yet
                continue
            pos = int(self.ds[i, DS_POS])
            left = self.cap - pos
            self.dv[i, :left] = self.dv[i, pos:]
            self.dv[i, left:] = self._rngs[i].random(pos)
            self.ds[i, DS_POS] = 0

    def check(self) -> None:
        """Raise if any stream ran short inside the last kernel call (a decision that rolled more than
        ``MIN_LEFT`` dice: a rules bug, never a normal game)."""
        bad = np.flatnonzero(self.ds[:, DS_ERROR])
        if bad.size:
            raise RuntimeError(f"games {bad.tolist()[:8]}: a decision rolled more than {MIN_LEFT} dice")
