"""Victory points and the end of the game (9, 10): compiled rules."""

from __future__ import annotations

from ..core.jit import kernel
from .events import EV, log
from .state import DESTROYED, UNUSED, Phase, Reason, S


@kernel
def victory_points(k, g, reason):
    """(P-L, C-T) VP by the table of 10 (the end bonuses only for the matching ``reason``)."""
    vp0, vp1 = 0, 0
    for u in range(k.U):
        st = g.status[u]
        if st == UNUSED:
            continue
        gain = 0
        if st == DESTROYED:
            gain = k.VP_DESTROYED_WAGON if k.is_wagon[u] else k.VP_DESTROYED_UNIT
        else:
            if g.disorg[u]:
                gain = k.VP_DISORGANIZED_UNIT
            # 10: "each Cossack/Tatar unit in hexes 03 or 04" scores its +2 whatever its state (issue 11.1).
            h = g.hex[u]
            if k.side[u] == 1 and h >= 0 and k.camp[h] and not k.is_wagon[u]:
                vp1 += k.VP_CAMP
        if k.side[u] == 0:
            vp1 += gain
        else:
            vp0 += gain
    if reason == Reason.TATARS_ENDED:
        vp0 += k.VP_TATARS_END
    if reason == Reason.POINTS and g.sc[S.CONTINUED]:
        vp1 += k.VP_CONTINUED_END
    return vp0, vp1


@kernel
def end_game(k, g, io, winner, reason):
    """Finish the game; with ``winner`` -1 the victory points decide (ties to the C-T player, 10)."""
    vp0, vp1 = victory_points(k, g, reason)
    if winner < 0:
        winner = 0 if vp0 > vp1 else 1
    g.sc[S.VP0] = vp0
    g.sc[S.VP1] = vp1
    g.sc[S.OVER] = 1
    g.sc[S.WINNER] = winner
    g.sc[S.REASON] = reason
    g.sc[S.PHASE] = Phase.GAME_OVER
    g.sc[S.DECIDER] = -1
    log(io, EV.GAME_OVER, winner, vp0, vp1, reason)
