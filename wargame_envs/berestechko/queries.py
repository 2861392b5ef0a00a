"""What the rules allow at a decision (5, 6.2.1, 7, 8): compiled queries that change nothing.

The legal mask (``mask.py``), the sequence of decisions (``sequence.py``) and the scripted agent all ask
these, so each rule of who may do what is written once.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import kernel
from .combat import is_free
from .state import INTERACTION, ON_MAP, RANGED, S, WITHDRAWN


@kernel
def can_activate(k, g, u, value):
    """5, 5.1: a combat unit on the map or withdrawn, not yet activated twice, whose activation value is
    ``value`` (0: any value, an additional activation, 6.1.3)."""
    st = g.status[u]
    return ((st == ON_MAP or st == WITHDRAWN) and g.acts[u] < k.ACTS_LIMIT
            and (value == 0 or k.act[u] == value))


@kernel
def any_activatable(k, g, p, value):
    for u in range(k.NC):
        if k.side[u] == p and can_activate(k, g, u, value):
            return True
    return False


@kernel
def can_recover(k, g, u):
    """6.2.1: a disorganized unit on the map (withdrawn units cannot be recovered, 9)."""
    return g.status[u] == ON_MAP and g.disorg[u] == 1


@kernel
def any_recoverable(k, g, p):
    for u in range(k.NC):
        if k.side[u] == p and can_recover(k, g, u):
            return True
    return False


@kernel
def destinations(k, g, u, with_wagon, out):
    """Hexes ``u`` may end its move in (7, 7.1, 7.2, 8.3): ``out[h]`` is 1 where it may still attack
    after moving there, 0 where it may not, -1 where it cannot go.

    No stacking even in passing; entering complex terrain ends the move, and a cavalry unit whose 2nd
    hex was complex cannot attack; entering enemy wagons (destroying them, 8.3) ends the move (decision
    15); Cossack infantry moving alone may join its own lone wagons.
    """
    side = k.side[u]
    start = g.hex[u]
    joins_wagon = k.is_cossack_inf[u] and not with_wagon
    out[:] = -1
    out[start] = 1
    frontier = np.empty(k.H, dtype=np.int32)
    nxt = np.empty(k.H, dtype=np.int32)
    frontier[0] = start
    nf = 1
    for step in range(k.move[u]):
        nn = 0
        for i in range(nf):
            h = frontier[i]
            for j in range(6):
                n = k.adj[h, j]
                if n < 0 or out[n] >= 0 or g.occ[n] >= 0:
                    continue
                w = g.wag[n]
                if w >= 0 and k.side[w] == side and not joins_wagon:
                    continue
                out[n] = 1 if step == 0 or not k.complex[n] else 0
                if not k.complex[n] and w < 0:
                    nxt[nn] = n
                    nn += 1
        frontier, nxt = nxt, frontier
        nf = nn


@kernel
def is_target(k, g, u, h):
    """8: hex ``h`` (adjacent to ``u``) holds an enemy combat unit."""
    v = g.occ[h]
    return v >= 0 and k.side[v] != k.side[u]


@kernel
def has_target(k, g, u):
    h = g.hex[u]
    for j in range(6):
        n = k.adj[h, j]
        if n >= 0 and is_target(k, g, u, n):
            return True
    return False


@kernel
def any_rear_free(k, g, u):
    """6.2.2, 8.1.1: a free hex behind ``u`` to retreat into before combat."""
    h = g.hex[u]
    for i in range(6):
        x = k.rear[k.side[u], h, i]
        if x >= 0 and is_free(g, x):
            return True
    return False


@kernel
def can_add(k, g, v):
    """8.1.2 / 8.2.2: unit ``v`` (next to the defender) may join the declared attack: the active player's,
    not in it yet, infantry only in ranged combat, and he has the interaction command it costs (6.1.1)."""
    p = g.sc[S.ACTIVE]
    return (v >= 0 and k.side[v] == p and not g.part[v] and (k.is_inf[v] or g.sc[S.KIND] != RANGED)
            and g.cmd[p, INTERACTION] >= k.ATTACK_COST)


@kernel
def any_addable(k, g):
    h = g.hex[g.sc[S.TARGET]]
    for j in range(6):
        n = k.adj[h, j]
        if n >= 0 and can_add(k, g, g.occ[n]):
            return True
    return False


@kernel
def can_advance(k, g, u):
    """8.1.8: cavalry of the attack still on the map."""
    return g.part[u] == 1 and k.is_cav[u] and g.status[u] == ON_MAP


@kernel
def any_advancer(k, g):
    for u in range(k.NC):
        if can_advance(k, g, u):
            return True
    return False
