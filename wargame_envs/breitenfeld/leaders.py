"""Leaders (10.0): combat bonus (10.1), command control (10.3, 10.4) and elimination when caught alone.

A leader is eliminated immediately if it is in an enemy-controlled hex without a friendly unit (10.0);
a leader in a hex an enemy unit enters is eliminated too. Eliminated leaders score 5 victory points for
the enemy (10 for Tilly and Gustavus).
"""

from __future__ import annotations

from .state import F_OOC, G_VP0, OFF_ELIM
from .zoc import Snap, in_enemy_zoc


def leader_values_by_hex(D, s, side: int) -> dict[int, int]:
    """hex -> best leadership value of ``side``'s leaders there (10.11, 10.13: at most one counts)."""
    out: dict[int, int] = {}
    for l, h in enumerate(s.l_hex.tolist()):
        if h >= 0 and D.leader_side[l] == side:
            v = D.leader_value[l]
            if v > out.get(h, -1):
                out[h] = v
    return out


def check_leaders(D, s, snap: Snap | None = None) -> None:
    """Eliminate leaders caught without a friendly unit in an enemy ZOC, or sharing a hex with an enemy unit."""
    lh = s.l_hex.tolist()
    if not any(h >= 0 for h in lh):
        return
    snap = snap or Snap(D, s)
    for l, h in enumerate(lh):
        if h < 0:
            continue
        side = D.leader_side[l]
        u = snap.at[h]
        if u >= 0 and D.unit_side[u] == side:
            continue
        if u >= 0 or in_enemy_zoc(D, snap, h, side):
            s.l_hex[l] = OFF_ELIM
            s.g[G_VP0 + 1 - side] += D.leader_vp[l]
            s.log.append(f"{D.leader_names[l]} caught without a friendly unit in an enemy zone of control at "
                         f"{D.grid.ids[h]}: eliminated [10.0]")


def command_status(D, s, snap: Snap, corps: int, turn: int) -> list[int]:
    """Units of ``corps`` that are Out of Command (10.31-10.44); none in the first turn (12.6)."""
    members = [u for u in range(D.n_units) if D.unit_corps[u] == corps and snap.uh[u] >= 0 and not snap.ud[u]]
    if turn <= D.all_in_command_turns:
        return []
    dist = D.grid.dist
    leaders = [(int(s.l_hex[l]), D.leader_value[l]) for l in D.corps_leaders[corps] if s.l_hex[l] >= 0]
    inc = set()
    for u in members:
        h = snap.uh[u]
        if any(dist[lh, h] <= v for lh, v in leaders):       # 10.4, 10.41, 10.42
            inc.add(u)
    # 10.44: a chain of adjacent units of the same corps is in command
    frontier = list(inc)
    pos = {snap.uh[u]: u for u in members}
    adj = D.grid.adjacent
    while frontier:
        u = frontier.pop()
        for j in adj[snap.uh[u]]:
            v = pos.get(j)
            if v is not None and v not in inc:
                inc.add(v)
                frontier.append(v)
    return [u for u in members if u not in inc]


def mark_command(D, s, snap: Snap, corps: int, turn: int) -> None:
    ooc = set(command_status(D, s, snap, corps, turn))
    for u in range(D.n_units):
        if D.unit_corps[u] == corps:
            if u in ooc:
                s.u_flags[u] |= F_OOC
            else:
                s.u_flags[u] &= ~F_OOC
