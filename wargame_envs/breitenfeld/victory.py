"""Victory points and the result (reference section 6).

Each side scores: 1 per enemy strength point eliminated (printed strength), 5 per enemy artillery
counter it holds (5.33: a captured counter is friendly to its captor), 5 per enemy leader eliminated
(10 for Tilly or Gustavus), and the strength of its units that left the map through a demoralized enemy
army's rear edge (pursuit). The higher total wins; equal totals are a draw.
"""

from __future__ import annotations

import numpy as np

from .state import G_VP0


def artillery_vp(D, s, side: int) -> int:
    return artillery_vps(D, s)[side]


def artillery_vps(D, s) -> tuple[int, int]:
    """Both sides' points for the enemy guns they hold (5.33)."""
    n = [0, 0]
    for a, (h, o) in enumerate(zip(s.a_hex.tolist(), s.a_owner.tolist())):
        if h >= 0 and D.art_side[a] != o:
            n[o] += 1
    return n[0] * D.vp_per_art, n[1] * D.vp_per_art


def victory_points(D, s) -> tuple[int, int]:
    art = artillery_vps(D, s)
    return int(s.g[G_VP0]) + art[0], int(s.g[G_VP0 + 1]) + art[1]


def returns(D, s, over: bool) -> np.ndarray:
    out = np.zeros(2, dtype=np.float32)
    if not over:
        return out
    a, i = victory_points(D, s)
    if a > i:
        out[:] = (1.0, -1.0)
    elif i > a:
        out[:] = (-1.0, 1.0)
    return out
