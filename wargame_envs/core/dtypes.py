"""One dtype object per structured layout.

numba's dispatcher types an argument at C speed only when it has seen that very object's type before: a
structured array (packed tables) or a dtype (a state's record layout) whose dtype is *equal* to the one the
kernel was first called with, but a different object, is typed the slow way, about 3.5 µs per argument and
call. Each engine builds its own tables, so every engine after the first in a process observed 3-4x slower
(Berestechko 1.4 -> 5.4 µs, Breitenfeld 2.6 -> 8.4 µs). Building every layout through :func:`interned`
hands all engines the same dtype object.
"""

from __future__ import annotations

import numpy as np

_SEEN: dict[np.dtype, np.dtype] = {}


def interned(spec) -> np.dtype:
    """``np.dtype(spec)``, the first object built for an equal layout in this process (dtypes hash and compare
    by layout)."""
    dt = np.dtype(spec)
    return _SEEN.setdefault(dt, dt)
