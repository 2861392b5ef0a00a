"""Leaders and command (13.0, 13.4), the Ambush Regiment (15.2).

Leaders stand in a hex; one stacked with a combat unit moves with it (retreat, advance, charge). A leader
moves on his own only when his command is activated (a "move leader" decision, to a hex within 8 of a
unit of his command). Command status (13.1) is traced in hexes from a leader of the unit's command or from
the Overall Commander, not through enemy units or enemy ZOC, then chained through adjacent units of the
same command.
"""

from __future__ import annotations

from ...core.errors import ScenarioError
from ..data import TYPES
from ..state import (
    F_INCMD, G_AMBUSH_PLACED, G_FD, L_ACTIVE, L_GONE, L_HIDDEN, L_PENDING, L_REPL, L_REPL_DEAD, LF_FD, LF_OC,
    LF_REAL, NORMAL,
)

IN_PLAY = (L_ACTIVE, L_REPL, L_REPL_DEAD)
LEADER_MOVE = 8


class LeaderMixin:
    def leader_in_play(self, s, l: int) -> bool:
        return s.l_state[l] in IN_PLAY and s.l_hex[l] >= 0

    def overall_commanders(self, s, p: int) -> list[int]:
        fl = s.l_flags.tolist()
        ls = s.l_state.tolist()
        lh = s.l_hex.tolist()
        return [l for l in self.side_leaders[p] if fl[l] & LF_OC and ls[l] in IN_PLAY and lh[l] >= 0]

    def command_rating(self, s, c: int) -> int:
        """Activation rating of command ``c`` (4.2): its best leader in play, +1 for a subordinate stacked
        with or adjacent to the Overall Commander (13.2); a command whose leader awaits his replacement
        uses the replacement's rating (13.3)."""
        return self.all_command_ratings(s)[c]

    def leader_key(self, s) -> bytes:
        """The leader arrays as far as ratings and what a player sees of leaders go (hex, state, rating,
        Overall Commander and real-Dmitri marks; not the per-activation marks): a cache key."""
        return (s.buf[self._leader_span] & self._leader_key_mask).tobytes()

    def all_command_ratings(self, s) -> list[int]:
        """Ratings (:meth:`command_rating`) of every command; they depend on the leader arrays only
        (cached on :meth:`leader_key`)."""
        key = self.leader_key(s)
        hit = self._rating_cache.get(key)
        if hit is None:
            if len(self._rating_cache) > 256:
                self._rating_cache.clear()
            hit = self._rating_cache[key] = self._ratings(s.l_state.tolist(), s.l_hex.tolist(), s.l_rating.tolist(),
                                                          s.l_flags.tolist())
        return hit

    def _ratings(self, ls: list[int], lh: list[int], lr: list[int], lf: list[int]) -> list[int]:
        oc_hexes = [[lh[l] for l in self.side_leaders[p] if lf[l] & LF_OC and ls[l] in IN_PLAY and lh[l] >= 0]
                    for p in (0, 1)]
        out = []
        for c in range(self.NC):
            best = -1
            for l in self.cmd_leaders[c]:
                st = ls[l]
                if st in IN_PLAY and lh[l] >= 0:
                    r = lr[l]
                    if not lf[l] & LF_OC:
                        near = self.dist_row(lh[l])
                        if any(near[o] <= 1 for o in oc_hexes[self.cmd_player[c]]):
                            r += 1
                    best = max(best, r)
                elif st in (L_PENDING, L_HIDDEN):
                    base = self.sc.leaders[l]["rating"]
                    r = base + self.sc.replacement["rating_delta"] if st == L_PENDING else lr[l]
                    best = max(best, r)
            out.append(best)
        return out

    def compute_command(self, s, c: int) -> None:
        """Set F_INCMD on the units of command ``c`` in command at the start of its activation (13.1)."""
        p = self.cmd_player[c]
        occ = self.occupancy(s)
        zoc = self.zoc_map(s, p)
        up = self.uplayer
        sources = []
        for l in self.cmd_leaders[c]:
            if self.leader_in_play(s, l):
                sources.append((int(s.l_hex[l]), int(s.l_range[l])))
        for l in self.overall_commanders(s, p):
            if self.lcmd[l] != c:
                sources.append((int(s.l_hex[l]), int(s.l_range[l])))
        blocked = lambda h: h in zoc or (occ[h] >= 0 and up[occ[h]] != p)  # noqa: E731
        reach: set[int] = set()
        for h0, rng in sources:
            reach.update(self._command_reach(h0, rng, blocked))
        nbr = self.geo.adj
        hexes = s.u_hex.tolist()
        units = [u for u in self.cmd_units[c] if hexes[u] >= 0]
        incmd = {u for u in units if hexes[u] in reach}
        changed = True
        while changed:  # 13.1 chain: adjacent to a unit in command
            changed = False
            inhex = {hexes[u] for u in incmd}
            for u in units:
                if u not in incmd and any(t in inhex for t in nbr[hexes[u]]):
                    incmd.add(u)
                    changed = True
        for u in units:
            if u in incmd:
                s.u_flags[u] |= F_INCMD
            else:
                s.u_flags[u] &= ~F_INCMD

    def _command_reach(self, h0: int, rng: int, blocked) -> set[int] | tuple[int, ...]:
        """Hexes within ``rng`` of a leader at ``h0``, traced not through a ``blocked`` hex (13.1: enemy
        units and enemy ZOC stop the trace, though they can be reached). When no hex closer than ``rng``
        is blocked this is the whole ball, precomputed."""
        if not rng:
            return (h0,)
        inner = self._ball(h0, rng - 1)
        if not any(blocked(h) for h in inner[1:]):
            return self._ball(h0, rng)
        nbr = self.geo.adj
        seen = {h0}
        frontier = [h0]
        for _ in range(rng):
            nxt = []
            for h in frontier:
                if h != h0 and blocked(h):
                    continue
                for t in nbr[h]:
                    if t not in seen:
                        seen.add(t)
                        nxt.append(t)
            frontier = nxt
        return seen

    def _ball(self, h: int, r: int) -> tuple[int, ...]:
        """Hexes within distance ``r`` of ``h``, ``h`` first (cached)."""
        key = (h, r)
        hit = self._balls.get(key)
        if hit is None:
            order = self.hexes_by_distance(h)
            d = self.dist_row(h)
            hit = self._balls[key] = tuple(x for x in order if d[x] <= r)
        return hit

    # ------------------------------------------------------------- deaths
    def leader_check_shock(self, s, u: int, dice) -> None:
        """13.3: a leader stacked with a unit that is Disordered, Retired or Eliminated in Shock/Charge
        dies on DR - rating >= 3."""
        h = int(s.u_hex[u])
        if h < 0:
            return
        for l in self.leaders_at(s, h, self.uplayer[u]):
            if s.l_state[l] == L_REPL_DEAD:
                continue
            dr = dice.roll(10, low=0)
            adj = dr - int(s.l_rating[l])
            killed = adj >= self.sc.tests["leader_shock_killed_min"]
            s.log.append(f"Leader check {self.sc.leaders[l]['name']}: DR {dr} - {int(s.l_rating[l])} = {adj} -> "
                         f"{'killed' if killed else 'survives'} [13.3]")
            if killed:
                self.kill_leader(s, l, dice)

    def leader_check_fire(self, s, h: int, p: int, dice) -> None:
        """13.3: adjusted fire DR >= 9 with a leader in the target hex: DR 8-9 kills him."""
        for l in self.leaders_at(s, h, p):
            if s.l_state[l] == L_REPL_DEAD:
                continue
            dr = dice.roll(10, low=0)
            killed = dr >= self.sc.fire_drm["leader_killed_min"]
            s.log.append(f"Leader check {self.sc.leaders[l]['name']} (fire): DR {dr} -> {'killed' if killed else 'survives'} [13.3]")
            if killed:
                self.kill_leader(s, l, dice)

    def kill_leader(self, s, l: int, dice) -> None:
        p = self.lplayer[l]
        name = self.sc.leaders[l]["name"]
        vic = self.sc.victory
        flags = int(s.l_flags[l])
        std = int(s.std_hex[p]) if not s.std_captured[p] else -1
        if flags & LF_FD and s.g[G_FD]:
            # 13.4 False Dmitri: flip the counter
            other = [o for o in self.side_leaders[p] if o != l and s.l_flags[o] & LF_FD][0]
            s.l_flags[l] &= ~LF_FD
            s.l_flags[other] &= ~LF_FD
            s.g[G_FD] = 0
            if not flags & LF_REAL:
                s.l_state[l] = L_GONE
                s.l_hex[l] = -1
                s.l_flags[l] &= ~LF_OC
                s.l_hex[other] = std if std >= 0 else s.l_hex[other]
                s.l_rating[other] = self.sc.leaders[other]["rating"]
                s.log.append("The slain Dmitri was Brenko, the False Dmitri: no Flight Points; the real Dmitri "
                             "goes to his Standard [13.4]")
                return
            s.l_state[other] = L_GONE
            s.l_hex[other] = -1
            s.l_flags[other] &= ~LF_OC
            # 13.4: every death of the real Dmitri gets the escape roll (in shock, by fire, captured alone
            # or surrounded, 13.3)
            dr = dice.roll(10, low=0)
            if dr >= self.sc.tests["dmitri_escape_min"]:
                # atop his Standard; with the Standard lost, with the nearest unit of his (13.3)
                dest = std if std >= 0 else self.nearest_friend(s, int(s.l_hex[l]), p, self.lcmd[l])
                s.l_hex[l] = dest if dest >= 0 else s.l_hex[l]
                s.l_rating[l] = self.sc.false_dmitri["escaped_rating"]
                s.log.append(f"The slain Dmitri was the real one: escape DR {dr} -> he fights his way out, "
                             f"rating {int(s.l_rating[l])} [13.4]")
                return
            s.log.append(f"The slain Dmitri was the real one: escape DR {dr} -> killed [13.4]")
        if s.l_flags[l] & LF_OC:
            s.l_flags[l] &= ~LF_OC
            s.fp[p] += vic["overall_commander"]
            s.l_state[l] = L_PENDING
            s.l_hex[l] = -1
            s.log.append(f"Overall Commander {name} killed: +{vic['overall_commander']} FP; his command awaits a "
                         f"replacement leader [13.3, 16.0]")
        elif s.l_state[l] == L_ACTIVE:
            s.fp[p] += vic["leader"]
            s.l_state[l] = L_PENDING
            s.l_hex[l] = -1
            s.log.append(f"Leader {name} killed: +{vic['leader']} FP [13.3, 16.0]")
        elif s.l_state[l] == L_REPL:
            s.fp[p] += vic["leader"]
            s.l_state[l] = L_REPL_DEAD
            s.log.append(f"Replacement leader of {self.sc.commands[self.lcmd[l]]['name']} killed: +{vic['leader']} FP; "
                         f"he has no substitute and stays in play [13.3]")

    def place_replacement(self, s, l: int, h: int) -> None:
        d = self.sc.replacement
        base = self.sc.leaders[l]
        s.l_state[l] = L_REPL
        s.l_hex[l] = h
        s.l_rating[l] = max(0, base["rating"] + d["rating_delta"])
        s.l_range[l] = max(0, base["range"] + d["range_delta"])
        s.log.append(f"Replacement leader of {self.sc.commands[self.lcmd[l]]['name']} placed in {self.hid(h)} "
                     f"(rating {int(s.l_rating[l])}, range {int(s.l_range[l])}) [13.3]")

    # ---------------------------------------------------------------- ambush
    def check_ambush_hexes(self, hexes: list[int]) -> None:
        """15.2: the written hexes of the Ambush Regiment (the ``ambush_hexes`` option) must be legal for
        stacking (8.0: no combat unit of the set-up in them), out of the line of sight of every Mongol
        unit at the start (its set-up hex; LOS as for the Regiment, C12) and contiguous. Otherwise a
        ScenarioError names the hex and the reason."""
        ids = self.grid.ids
        sc = self.sc

        def fail(h: int, why: str) -> None:
            raise ScenarioError(f"options: field 'ambush_hexes' = {ids[h]!r}: {why}")

        ambush = set(self.ambush_units)
        start = {sc.unit_hex[u]: u for u in range(self.U) if u not in ambush and sc.unit_hex[u] >= 0}
        for h in hexes:
            if h in start:
                u = start[h]
                fail(h, f"occupied at the start by the {('Russian', 'Mongol')[self.uplayer[u]]} "
                        f"{TYPES[self.utype[u]]} of {sc.commands[self.ucmd[u]]['name']} (8.0: no stacking)")
        mongol = [sc.unit_hex[u] for u in self.side_units[1] if sc.unit_hex[u] >= 0]
        for h in hexes:
            vis = self.geo.visible_from(h)
            seer = next((m for m in mongol if vis[m]), None)
            if seer is not None:
                fail(h, f"the Mongol unit at {ids[seer]} can trace a line of sight to it at the start (15.2)")
        group, todo = {hexes[0]}, [hexes[0]]
        while todo:
            x = todo.pop()
            for y in self.geo.adj[x]:
                if y in hexes and y not in group:
                    group.add(y)
                    todo.append(y)
        for h in hexes:
            if h not in group:
                fail(h, f"not contiguous with {ids[hexes[0]]} (15.2: the Regiment's hexes are contiguous)")

    def check_ambush_los(self, s, h: int, u: int) -> None:
        amb = tuple(s.ambush.tolist())
        if self.geo.seen_from_any(amb)[h]:
            a = next(a for a in amb if self.geo.visible_from(a)[h])
            s.log.append(f"Mongol {self.uname(s, u)} has LOS to {self.hid(a)}: the Ambush Regiment is placed [15.2]")
            self.place_ambush(s)

    def place_ambush(self, s) -> None:
        if s.g[G_AMBUSH_PLACED]:
            return
        s.g[G_AMBUSH_PLACED] = 1
        occ = s.hex_unit.tolist()
        first = -1
        for k, u in enumerate(self.ambush_units):
            h = int(s.ambush[k])
            if occ[h] >= 0:  # written hex taken meanwhile: nearest empty hex
                h = next(x for x in self.hexes_by_distance(h) if occ[x] < 0)
            s.u_status[u] = NORMAL
            s.u_hex[u] = h
            s.hex_unit[h] = u
            occ[h] = u
            if first < 0:
                first = h
        for l in self.cmd_leaders[self.ambush_cmd]:
            if s.l_state[l] == L_HIDDEN:
                s.l_state[l] = L_ACTIVE
                if s.l_hex[l] < 0 or s.hex_unit[s.l_hex[l]] not in self.ambush_units:
                    s.l_hex[l] = first
        s.log.append("Ambush Regiment placed at " + ", ".join(self.hid(int(s.u_hex[u])) for u in self.ambush_units))
