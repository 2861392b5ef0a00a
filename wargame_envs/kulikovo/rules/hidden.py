"""Determinization for search agents (``Engine.sample_hidden``): what the Mongol player cannot see.

Two facts are hidden from the Mongol player: the Ambush Regiment's hexes until it is placed (15.2)
and, under the optional False Dmitri rule, which Dmitri counter is the real one (13.4). A search agent
playing the Mongols gets a clone in which both are redrawn from what the Mongol player could believe:
the Regiment on contiguous hexes hidden from the Mongols' starting positions that no Mongol unit
sees now (it would have been placed otherwise) and that no unit occupies; the real Dmitri either
counter with equal chance. The Russian player sees everything, so his clone is exact.
"""

from __future__ import annotations

from ..state import G_AMBUSH_PLACED, G_FD, HIDDEN, LF_FD, LF_REAL

MONGOL = 1


class HiddenInfoMixin:
    def sample_hidden(self, state, player: int, rng):
        s = state.clone()
        if player != MONGOL:
            return s
        if not s.g[G_AMBUSH_PLACED] and any(s.u_status[u] == HIDDEN for u in self.ambush_units):
            hexes = self._sample_ambush_hexes(s, rng)
            if hexes is not None:
                s.ambush[:] = hexes
        if s.g[G_FD]:
            dmitris = [l for l in self.side_leaders[0] if s.l_flags[l] & LF_FD]
            if len(dmitris) == 2 and rng.random() < 0.5:
                for l in dmitris:
                    s.l_flags[l] ^= LF_REAL
        return s

    def _sample_ambush_hexes(self, s, rng) -> list[int] | None:
        """A random connected group of hexes the Mongols cannot see now, grown from a random seed hex."""
        hidden, comp, size = self.hidden_hexes()
        occupied = s.hex_unit
        seen = self._mongol_sight(s)
        n = len(self.ambush_units)
        allowed = [h for h in comp if size[comp[h]] >= n and occupied[h] < 0 and not seen[h]]
        for _ in range(20):
            if not allowed:
                return None
            group = [allowed[int(rng.integers(len(allowed)))]]
            frontier = set()
            while len(group) < n:
                frontier.update(y for y in self.geo.adj[group[-1]]
                                if y in comp and occupied[y] < 0 and not seen[y] and y not in group)
                frontier.difference_update(group)
                if not frontier:
                    break
                pick = sorted(frontier)[int(rng.integers(len(frontier)))]
                group.append(pick)
            if len(group) == n:
                return group
        return None

    def _mongol_sight(self, s):
        """Bool per hex: seen (terrain LOS) by at least one Mongol unit on the map now."""
        import numpy as np

        seen = np.zeros(self.N, dtype=bool)
        hexes = s.u_hex.tolist()
        for u in self.side_units[MONGOL]:
            if hexes[u] >= 0:
                seen |= self.geo.visible_from(hexes[u])
        return seen
