"""Disruption (9.0), elimination, and the Mutual Disruption Removal Phase (9.2, 10.2, 11.11).

An undisrupted unit that is disrupted is flipped; a disrupted unit disrupted again is eliminated
(9.0) -- except by artillery, which never eliminates (5.35 / the 5.11 exception). Eliminated strength
counts toward the army's Demoralization Level and scores for the enemy.
"""

from __future__ import annotations

from . import demoralization
from .state import G_DEMOR, G_MAY1, G_VIS, G_VIS_OPT, G_VP0, OFF_ELIM
from .zoc import Snap, in_enemy_zoc


def unit_name(D, s, u: int) -> str:
    h = int(s.u_hex[u])
    where = D.grid.ids[h] if h >= 0 else {-1: "eliminated", -2: "off map", -3: "absent"}[h]
    return f"{D.unit_label[u]} {where}"


def eliminate(D, s, u: int, why: str, score: bool = True) -> None:
    """Remove unit ``u``; its printed strength counts as lost and (if ``score``) scores for the enemy."""
    name = unit_name(D, s, u)
    s.u_hex[u] = OFF_ELIM
    s.u_dis[u] = 0
    army = D.unit_army[u]
    demoralization.record_loss(D, s, army, D.unit_strength[u])
    if score:
        s.g[G_VP0 + 1 - D.unit_side[u]] += D.unit_strength[u] * D.vp_per_sp
    s.log.append(f"{name} ({D.army_names[army]}) eliminated: {why}")


def disrupt(D, s, u: int, why: str, can_eliminate: bool = True) -> str:
    """Apply one disruption result to ``u``: returns "disrupted", "eliminated" or "no effect"."""
    if s.u_hex[u] < 0:
        return "no effect"
    # 12.3: the Imperialists may move as soon as any unit is disrupted.
    s.g[G_MAY1] = 1
    if not s.u_dis[u]:
        s.u_dis[u] = 1
        return "disrupted"
    if can_eliminate:
        eliminate(D, s, u, f"disrupted again ({why}) [9.0]")
        return "eliminated"
    return "no effect"


def best_leader_within(D, s, h: int, side: int, radius: int) -> int:
    """Highest leadership value of a friendly leader within ``radius`` hexes of ``h`` (10.21, 10.23)."""
    best = 0
    dist = D.grid.dist
    for l, lh in enumerate(s.l_hex.tolist()):
        if lh >= 0 and D.leader_side[l] == side and D.leader_value[l] > best:
            if lh == h or (radius and dist[lh, h] <= radius):
                best = D.leader_value[l]
    return best


def undisrupt_needed(D, s) -> int:
    """The adjusted roll that undisrupts: 5 (9.2), or 6 in moderate or restricted visibility."""
    if s.g[G_VIS_OPT] and s.g[G_VIS] >= 1:
        return D.vis_moderate_undisrupt_on
    return D.undisrupt_on


def removal_phase(D, s, dice) -> None:
    """4.1 A: roll for every eligible disrupted unit, Allied units first, then Imperial."""
    snap = Snap(D, s)
    eligible = []
    for side in (0, 1):
        for u, h in enumerate(snap.uh):
            if h < 0 or not snap.ud[u] or D.unit_side[u] != side:
                continue
            if in_enemy_zoc(D, snap, h, side):      # 9.2, 7.23, 10.25: snapshot at the start of the turn
                continue
            if D.unit_kind[u] == 0 and int(s.g[G_DEMOR]) >> D.unit_army[u] & 1:
                continue                            # 11.11
            eligible.append(u)
    need = undisrupt_needed(D, s)
    for u in eligible:
        h = snap.uh[u]
        side = D.unit_side[u]
        die = dice.roll(6)
        lv = best_leader_within(D, s, h, side, 1)
        total = min(die + lv, D.max_roll)
        ok = total >= need
        extra = f" + leader {lv} = {total}" if lv else ""
        s.log.append(f"Disruption removal {unit_name(D, s, u)}: die {die}{extra} -> "
                     f"{'undisrupted' if ok else 'stays disrupted'} [9.2{', 10.21' if lv else ''}]")
        if ok:
            s.u_dis[u] = 0
