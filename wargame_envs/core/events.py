"""Events written by compiled rules, turned into the game log's text in Python.

A kernel cannot build strings, so a rule that the log should mention calls
``emit(ev, evn, code, a, b, c, d)``: one row of five int32 (the battle's event code and four arguments,
such as a unit, a hex or a die). Each battle keeps the table of its codes (name and rulebook case) and a
formatter that writes the exact sentence the log shows. The batched API passes a buffer with no rows,
so in training an event costs one comparison.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel

EV_FIELDS = 5


@kernel
def emit(ev, evn, code, a, b, c, d):
    """Append an event (while ``ev`` has room; ``evn[0]`` counts every event, kept or not)."""
    n = evn[0]
    if n < ev.shape[0]:
        ev[n, 0] = code
        ev[n, 1] = a
        ev[n, 2] = b
        ev[n, 3] = c
        ev[n, 4] = d
    evn[0] = n + 1


class EventBuffer:
    """Room for the events of one engine call: ``ev`` and ``evn`` go to the kernel, :meth:`drain`
    returns the rows written (and resets the count)."""

    def __init__(self, cap: int = 1024):
        self.ev = np.zeros((cap, EV_FIELDS), dtype=np.int32)
        self.evn = np.zeros(1, dtype=np.int64)

    def drain(self) -> np.ndarray:
        n = int(self.evn[0])
        if n > len(self.ev):
            raise RuntimeError(f"{n} events in one call: more than the buffer's {len(self.ev)} rows")
        if n == 0:
            return self.ev[:0]  # nothing to copy (an empty view: nothing to change in it either)
        self.evn[0] = 0
        return self.ev[:n].copy()


def no_events() -> tuple[np.ndarray, np.ndarray]:
    """The (ev, evn) pair for callers that want no log (batched play): nothing is written."""
    return np.zeros((0, EV_FIELDS), dtype=np.int32), np.zeros(1, dtype=np.int64)
