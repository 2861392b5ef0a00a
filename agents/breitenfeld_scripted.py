"""A scripted heuristic player for ``breitenfeld_v0``.

It reads the public position (no hidden information exists in this battle) and picks, per decision:

* artillery: the target with the best chance to hit (shortest range), undisrupted units first;
* activation choice (4.1 C): the corps with the most undisrupted units near the enemy;
* movement: each unit advances toward the nearest enemy, but ends next to an undisrupted enemy only
  where its strength is at least that enemy's defence (terrain counted) or the enemy is disrupted;
  disrupted units stay (or rout as far as 11.12 forces); leaders join the corps' unit nearest the enemy;
  units leave the map when that scores (pursuit);
* combat: attacks the enemy where the odds are best, voluntary attacks only at 1-1 or better, adds
  every eligible attacker, charges when allowed, meets every obligation (the mask enforces it);
* Ax/Dx choice: disrupts an undisrupted unit (the weakest) rather than eliminating a disrupted one.
"""

from __future__ import annotations

import numpy as np

from wargame_envs.breitenfeld import actions as A
from wargame_envs.breitenfeld.state import G_ART_IDX, G_SEL
from wargame_envs.breitenfeld.zoc import Snap


class BreitenfeldScriptedAgent:
    name = "breitenfeld_scripted"

    def __init__(self, seed: int | None = None):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    # ------------------------------------------------------------------ helpers
    def _pick(self, options: list[tuple[float, int]]) -> int:
        best = max(v for v, _ in options)
        top = [a for v, a in options if v >= best - 1e-9]
        return int(top[self._rng.integers(len(top))])

    def act(self, engine, state, player: int, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask).tolist()
        if not legal:
            raise ValueError("no legal action")
        if len(legal) == 1:
            return legal[0]
        key = engine.decision_key(state)
        fn = getattr(self, f"_{key}", None)
        a = fn(engine, state, player, legal) if fn else None
        return int(a if a is not None else legal[self._rng.integers(len(legal))])

    # ------------------------------------------------------------------ decisions
    @staticmethod
    def _enemy_distance(E, snap, player) -> list[int]:
        """Per hex: distance to the nearest enemy unit (99 if none)."""
        D = E.D
        eh = [h for u, h in enumerate(snap.uh) if h >= 0 and D.unit_side[u] != player]
        if not eh:
            return [99] * D.grid.n
        return D.grid.dist[:, eh].min(axis=1).tolist()

    def _swap(self, E, s, player, legal):
        D, c = E.D, E.codec
        snap = Snap(D, s)
        ed = self._enemy_distance(E, snap, player)
        opts = []
        for a in legal:
            k = a - c.corps0
            n = 0
            for u in E.corps_units[k]:
                h = snap.uh[u]
                if h >= 0 and not snap.ud[u] and ed[h] <= 4:
                    n += 1
            opts.append((n, a))
        return self._pick(opts)

    def _artillery(self, E, s, player, legal):
        D, c = E.D, E.codec
        snap = Snap(D, s)
        a_idx = int(s.g[G_ART_IDX])
        h0 = int(s.a_hex[a_idx])
        opts = []
        for a in legal:
            if a == A.END:
                continue
            h = a - c.hex0
            u = snap.at[h]
            rng = int(D.grid.dist[h0, h])
            opts.append((-rng - (5 if u >= 0 and snap.ud[u] else 0), a))
        return self._pick(opts) if opts else A.END

    def _move_select(self, E, s, player, legal):
        D, c = E.D, E.codec
        pieces = [a - c.piece0 for a in legal if c.piece0 <= a < c.hex0]
        units = [p for p in pieces if p < D.n_units]
        if units:
            snap = Snap(D, s)
            # routing/disrupted units first (they may be forced), then the ones nearest the enemy move first
            ed = self._enemy_distance(E, snap, player)
            units.sort(key=lambda p: (not snap.ud[p], ed[snap.uh[p]]))
            return c.piece(units[0])
        if pieces:
            return c.piece(pieces[0])
        return A.END

    def _move_dest(self, E, s, player, legal):
        D, c = E.D, E.codec
        if A.EXIT in legal:
            return A.EXIT
        snap = Snap(D, s)
        p = int(s.g[G_SEL])
        dests = [a - c.hex0 for a in legal if a >= c.hex0]
        ed = self._enemy_distance(E, snap, player)
        if p >= D.n_units:
            # leader: join the friendly unit of its corps nearest the enemy (stacked, safe)
            corps = D.leader_corps[p - D.n_units]
            best = []
            for h in dests:
                u = snap.at[h]
                if u >= 0 and D.unit_corps[u] == corps and not snap.ud[u]:
                    d = ed[h]
                    best.append((-d + D.unit_strength[u] / 100.0, c.hex(h)))
            here = int(s.l_hex[p - D.n_units])
            return self._pick(best) if best else c.hex(here)
        here = snap.uh[p]
        if snap.ud[p]:
            # disrupted: stay if allowed, else the farthest hex from the enemy
            if c.hex(here) in legal:
                return c.hex(here)
            opts = [(ed[h], c.hex(h)) for h in dests]
            return self._pick(opts)
        st = D.unit_strength[p]
        opts = []
        for h in dests + [here]:
            d = ed[h]
            score = -float(d)
            if d == 1:
                bad = False
                good = False
                for j in D.grid.adjacent[h]:
                    e = snap.at[j]
                    if e >= 0 and D.unit_side[e] != player:
                        if snap.ud[e]:
                            good = True
                        else:
                            mult = D.defense_mult[j] if not D.defense_needs_slope[j] or D.is_slope[h] else 1
                            if D.unit_strength[e] * mult > st * 1.0:
                                bad = True
                score += (3.0 if good else 0.0) - (10.0 if bad else 0.0)
            if D.hex_terrain_name[h] in ("town", "woods", "hilltop"):
                score += 0.3
            opts.append((score, c.hex(h)))
        return self._pick(opts)

    def _combat(self, E, s, player, legal):
        D, c = E.D, E.codec
        snap = Snap(D, s)
        elig = E.eligible_attackers(s)
        opts = []
        for a in legal:
            if a == A.END:
                continue
            h = a - c.hex0
            e = snap.at[h]
            att = sum(D.unit_strength[u] for u in (snap.at[j] for j in D.grid.adjacent[h]) if u in elig)
            dfn = (D.unit_dstrength[e] if snap.ud[e] else D.unit_strength[e]) * D.defense_mult[h]
            opts.append((att / max(dfn, 1), a))
        if not opts:
            return A.END
        best = max(v for v, _ in opts)
        if A.END in legal and best < 1.0:
            return A.END
        return self._pick(opts)

    def _attack(self, E, s, player, legal):
        D, c = E.D, E.codec
        snap = Snap(D, s)
        friends = [a for a in legal if a >= c.hex0 and D.unit_side[snap.at[a - c.hex0]] == player]
        if friends:
            return self._pick([(D.unit_strength[snap.at[a - c.hex0]], a) for a in friends])
        if A.RESOLVE_CHARGE in legal:
            return A.RESOLVE_CHARGE
        if A.RESOLVE in legal:
            return A.RESOLVE
        foes = [a for a in legal if a >= c.hex0]
        return self._pick([(-D.unit_strength[snap.at[a - c.hex0]], a) for a in foes])

    def _leader(self, E, s, player, legal):
        return A.ADD_LEADERS      # 10.11: a leader's value only ever helps its unit

    def _loss(self, E, s, player, legal):
        D, c = E.D, E.codec
        snap = Snap(D, s)
        opts = []
        for a in legal:
            u = snap.at[a - c.hex0]
            opts.append(((0 if snap.ud[u] else 100) - D.unit_strength[u], a))
        return self._pick(opts)
