"""Victory points and the result (reference section 6).

Each side scores: 1 per enemy strength point eliminated (printed strength), 5 per enemy artillery
counter it holds (5.33: a captured counter is friendly to its captor), 5 per enemy leader eliminated
(10 for Tilly or Gustavus), and the strength of its units that left the map through a demoralized enemy
army's rear edge (pursuit). The higher total wins; equal totals are a draw.
"""

from __future__ import annotations

from ..core.jit import kernel
from .state import G_DONE, G_VP0
from .tables import fields


@kernel
def victory_points(buf, T):
    """(Allied, Imperial) victory points: the scored points plus 5 per enemy gun held (5.33)."""
    _, _, _, _, _, _, a_hex, a_owner, _, _, g = fields(buf, T)
    vp0, vp1 = g[G_VP0], g[G_VP0 + 1]
    for a in range(T.na):
        if a_hex[a] >= 0 and T.art_side[a] != a_owner[a]:
            if a_owner[a] == 0:
                vp0 += T.vp_per_art
            else:
                vp1 += T.vp_per_art
    return vp0, vp1


@kernel
def write_returns(buf, T, out):
    """Terminal returns into ``out``: +1 / -1 to the side with more / fewer points, 0 each for a draw
    (zeros while the game runs)."""
    out[0] = 0.0
    out[1] = 0.0
    if fields(buf, T)[10][G_DONE]:
        a, i = victory_points(buf, T)
        if a > i:
            out[0], out[1] = 1.0, -1.0
        elif i > a:
            out[0], out[1] = -1.0, 1.0

