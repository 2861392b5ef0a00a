"""Victory points and the end of the game (9, 10)."""

from __future__ import annotations

from .state import DESTROYED, UNUSED, BerestechkoState, Phase, Reason, S
from .tables import Tables

REASON_TEXT = {
    Reason.AUTOMATIC: "automatic victory: four enemy units destroyed [10]",
    Reason.POINTS: "end of round 2: victory points [10]",
    Reason.TATARS_ENDED: "the Cossack-Tatar player ended the battle after the Tatar withdrawal [9]",
    Reason.NO_UNITS_LEFT: "automatic victory: every enemy combat unit destroyed [10, C29]",
}


def victory_points(T: Tables, s: BerestechkoState, reason: int = Reason.NONE) -> list[int]:
    """VP of each side by the table of 10 (end bonuses only for the matching ``reason``)."""
    v = T.sc.victory
    vp = [0, 0]
    status, disorg, hexes = s.status.tolist(), s.disorg.tolist(), s.hex.tolist()
    destroyed_unit, disorganized_unit = v["destroyed_enemy_unit"], v["disorganized_enemy_unit"]
    for u in range(T.U):
        st = status[u]
        if st == UNUSED:
            continue
        enemy = 1 - T.side[u]
        if st == DESTROYED:
            vp[enemy] += v["destroyed_wagon"] if T.is_wagon[u] else destroyed_unit
            continue
        if disorg[u]:
            vp[enemy] += disorganized_unit
        # 10: "each Cossack/Tatar unit in hexes 03 or 04" scores its +2 whatever its state (issue 11.1).
        if enemy == 0 and hexes[u] >= 0 and T.camp[hexes[u]] and not T.is_wagon[u]:
            vp[1] += v["unit_in_camp"]
    if reason == Reason.TATARS_ENDED:
        vp[0] += v["tatars_withdrawn_end"]
    if reason == Reason.POINTS and s.sc[S.CONTINUED]:
        vp[1] += v["battle_continued_end"]
    return vp


def end_game(T: Tables, s: BerestechkoState, winner: int | None, reason: int) -> None:
    """Finish the game; with ``winner=None`` the victory points decide (ties to the C-T player)."""
    vp = victory_points(T, s, reason)
    if winner is None:
        winner = 0 if vp[0] > vp[1] else 1
    s.sc[S.VP0], s.sc[S.VP1] = vp
    s.sc[S.OVER] = 1
    s.sc[S.WINNER] = winner
    s.sc[S.REASON] = reason
    s.sc[S.PHASE] = Phase.GAME_OVER
    s.sc[S.DECIDER] = -1
    s.log.append(f"Game over: {('Polish-Lithuanian', 'Cossack-Tatar')[winner]} win, "
                 f"VP {vp[0]}-{vp[1]}; {REASON_TEXT[Reason(reason)]}")
