"""Leaders (10.0): combat bonus (10.1), command control (10.3, 10.4) and elimination when caught alone.

A leader is eliminated immediately if it is in an enemy-controlled hex without a friendly unit (10.0);
a leader in a hex an enemy unit enters is eliminated too. Eliminated leaders score 5 victory points for
the enemy (10 for Tilly and Gustavus).
"""

from __future__ import annotations

import numpy as np

from ..core.jit import kernel
from .state import F_OOC, G_VP0, OFF_ELIM
from .zoc import Snap


def check_leaders(D, s) -> None:
    """Eliminate leaders caught without a friendly unit in an enemy ZOC, or sharing a hex with an enemy unit."""
    for l in _caught_leaders(s.l_hex, D.leader_side_array, s.u_hex, s.u_dis, D.unit_side_array,
                             D.grid.neighbors).tolist():
        side = D.leader_side[l]
        h = int(s.l_hex[l])
        s.l_hex[l] = OFF_ELIM
        s.g[G_VP0 + 1 - side] += D.leader_vp[l]
        s.log.append(f"{D.leader_names[l]} caught without a friendly unit in an enemy zone of control at "
                     f"{D.grid.ids[h]}: eliminated [10.0]")


@kernel
def _caught_leaders(l_hex, leader_side, u_hex, u_dis, unit_side, neighbors):
    """The leaders on the map whose hex holds no friendly unit and either holds an enemy unit or is in
    the ZOC of an undisrupted enemy unit (7.1, 10.0). A hex's unit is the last one listed there, as in
    :class:`~.zoc.Snap`."""
    at = np.full(neighbors.shape[0], -1, np.int64)
    for u in range(u_hex.size):
        if u_hex[u] >= 0:
            at[u_hex[u]] = u
    caught = np.empty(l_hex.size, np.int64)
    m = 0
    for l in range(l_hex.size):
        h = l_hex[l]
        if h < 0:
            continue
        side = leader_side[l]
        u = at[h]
        if u >= 0 and unit_side[u] == side:
            continue
        alone = u >= 0
        for d in range(neighbors.shape[1]):
            j = neighbors[h, d]
            if not alone and j >= 0 and at[j] >= 0 and unit_side[at[j]] != side and u_dis[at[j]] == 0:
                alone = True
        if alone:
            caught[m] = l
            m += 1
    return caught[:m]


def command_status(D, s, snap: Snap, corps: int, turn: int) -> list[int]:
    """Units of ``corps`` that are Out of Command (10.31-10.44); none in the first turn (12.6)."""
    members = [u for u in D.corps_units[corps] if snap.uh[u] >= 0 and not snap.ud[u]]
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
    for u in D.corps_units[corps]:
        if u in ooc:
            s.u_flags[u] |= F_OOC
        else:
            s.u_flags[u] &= ~F_OOC
