"""Movement (5.x), facing (6.0), ZOC (7.0), stacking (8.0) and the command restrictions on movement
(4.1, 5.1, 13.2). A unit acts in single steps (the path matters: ZOC, Light Cavalry fire on the move,
reaction fire), then stops and takes its final facing.
"""

from __future__ import annotations

from ..data import L
from ..geometry import FRONT_DIRS
from ..state import (
    D_REACT, DISORDERED, F_ACTED, F_DONE, F_FIRED, F_INCMD, F_LEFT_HEX, F_MOVED, F_START_ZOC, F_STOPPED,
    F_XBOW_REACTED, NORMAL, RETIRED,
)


class MovementMixin:
    def step_options(self, s, u: int, zoc=None, occ=None, directions=range(6)) -> list[tuple[int, int, int]]:
        """Legal single steps of unit ``u`` (in ``directions``): (direction, target hex, MP cost)."""
        fl = int(s.u_flags[u])
        mp = int(s.u_mp[u])
        if fl & (F_STOPPED | F_DONE) or mp <= 0:
            return []
        if fl & F_FIRED and self.utype[u] != L:
            return []  # 9.2: firing ends the movement of B and C
        p = self.uplayer[u]
        x = int(s.u_hex[u])
        occ = occ if occ is not None else self.occupancy(s)
        zoc = zoc if zoc is not None else self.zoc_map(s, p)
        status = int(s.u_status[u])
        incmd = fl & F_INCMD
        nbr = self.geo.nbr[x]
        in_zoc = x in zoc
        if not incmd:
            # 4.1, 5.1: out of command: may not leave an enemy ZOC nor move away from an adjacent enemy
            if in_zoc or (not fl & F_LEFT_HEX and self.adjacent_enemy(s, p, x, occ)):
                return []
        is_l = self.utype[u] == L
        if in_zoc and not is_l and fl & F_LEFT_HEX:
            return []  # 7.0: entered an enemy ZOC: must stop
        leave = 0
        if in_zoc:
            if not fl & F_LEFT_HEX:
                if not fl & F_START_ZOC and not is_l:
                    return []
                if any(self.uhorse[e] for e in zoc[x]):
                    leave = 1  # 7.0: leaving an enemy Horse unit's ZOC costs 1 MP
                elif is_l and not fl & F_START_ZOC:
                    leave = 1
            elif is_l:
                leave = 1  # 7.0, 9.1: light cavalry leaving a ZOC it entered this turn
        costs = self.geo.step_cost[self.ucls[u]][x]
        left = int(s.u_left[u])
        left_set = (left,) if left >= 0 else (tuple(zoc[x]) if in_zoc and not fl & F_LEFT_HEX else ())
        out = []
        if status == RETIRED:
            std = int(s.std_hex[p])
            dr = self.dist_row(std)
            for d in directions:
                y = nbr[d]
                if y < 0 or costs[d] < 0 or occ[y] >= 0 or dr[y] >= dr[x]:
                    continue
                if not incmd and self.adjacent_enemy(s, p, y, occ):
                    continue
                out.append((d, y, mp))
            return out
        for d in directions:
            y = nbr[d]
            if y < 0 or costs[d] < 0 or occ[y] >= 0:
                continue
            c = costs[d] + leave
            if c > mp:
                continue
            if left_set and y in zoc and any(e in left_set for e in zoc[y]):
                continue  # 7.0: may not return to a ZOC of the enemy unit it just left
            if not incmd and self.adjacent_enemy(s, p, y, occ):
                continue
            out.append((d, y, c))
        return out

    def facing_options(self, s, u: int, zoc=None) -> list[int]:
        """6.0: free facing, except a unit in an enemy ZOC that stays in its hex turns one vertex."""
        f = int(s.u_face[u])
        fl = int(s.u_flags[u])
        if not fl & F_LEFT_HEX:
            zoc = zoc if zoc is not None else self.zoc_map(s, self.uplayer[u])
            if int(s.u_hex[u]) in zoc:
                return [(f + 5) % 6, f, (f + 1) % 6]
        return [0, 1, 2, 3, 4, 5]

    def opt_unit_act(self, s, t) -> list[int]:
        u = t[2]
        if s.u_hex[u] < 0 or s.u_flags[u] & F_DONE:
            return []
        occ = self.occupancy(s)
        zoc = self.zoc_map(s, self.uplayer[u])
        al = self.AL
        opts = [al.DIR + d for d, _, _ in self.step_options(s, u, zoc, occ)]
        opts += self.fire_targets(s, u, zoc, occ)
        opts += [al.FACE + f for f in self.facing_options(s, u, zoc)]
        return opts

    def do_unit_act(self, s, t, a, dice) -> None:
        u = t[2]
        al = self.AL
        if a >= al.FACE:
            f = a - al.FACE
            if f != s.u_face[u]:
                s.u_flags[u] |= F_ACTED
            s.u_face[u] = f
            s.u_flags[u] |= F_DONE
            self.pop(s)
            return
        if a >= al.DIR:
            for _, y, c in self.step_options(s, u, directions=(a - al.DIR,)):
                self.move_step(s, u, y, c, dice)
                return
            raise AssertionError("step not legal")
        self.start_fire(s, u, int(s.hex_unit[a]), reaction=False)

    def move_step(self, s, u: int, y: int, cost: int, dice) -> None:
        p = self.uplayer[u]
        x = int(s.u_hex[u])
        zoc = self.zoc_map(s, p)
        if x in zoc and s.u_left[u] < 0:
            s.u_left[u] = zoc[x][0]
        s.u_mp[u] -= cost
        s.u_flags[u] |= F_MOVED | F_ACTED | F_LEFT_HEX
        self.enter(s, u, y, dice)
        if s.u_status[u] == RETIRED:
            s.u_mp[u] = 0
        if y in zoc:
            if self.utype[u] != L:
                s.u_flags[u] |= F_STOPPED
                s.u_mp[u] = 0
        self.trigger_reaction(s, u, y)

    def trigger_reaction(self, s, m: int, y: int) -> None:
        """9.2 Reaction Fire: enemy missile units with ``y`` in their frontal hexes may fire at the unit
        that moved or charged there (crossbows at one unit per activation)."""
        p = self.uplayer[m]
        q = 1 - p
        hexes = s.u_hex.tolist()
        around = self.geo.adj[y]
        elig = []
        for r in self.side_missile_units[q]:
            h = hexes[r]
            if h not in around:  # off the map or not next to y (the common case: read nothing else)
                continue
            if s.u_status[r] not in (NORMAL, DISORDERED) or s.u_react[r] == m:
                continue
            a, b = FRONT_DIRS[int(s.u_face[r])]
            nbr = self.geo.nbr[h]
            if nbr[a] != y and nbr[b] != y:
                continue
            if self.utype[r] == 5 and s.u_flags[r] & F_XBOW_REACTED:  # C
                continue
            elig.append(r)
        for r in reversed(elig):
            self.push(s, D_REACT, q, r, m)
