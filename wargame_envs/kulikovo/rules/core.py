"""The engine skeleton: scenario tables, the task stack, the settle loop, and the board helpers every
rule module uses (occupancy, ZOC, entering a hex, disorder / retire / eliminate, flight points).

Compound turns are a stack of tasks (``state.stack``). ``apply`` carries out the pending decision's
handler, then :meth:`CoreMixin._settle` runs automatic tasks until the top of the stack is a decision
with at least one legal option (or the game is over). Decisions without options are skipped, except a
retreat without a path, which eliminates the unit (12.1).
"""

from __future__ import annotations

import numpy as np

from ..actions import N_CMD_SLOTS, N_LEADER_SLOTS, N_UNIT_SLOTS, ActionLayout
from ..data import TYPES, H, L, M, R, Scenario
from ..geometry import CLS_HM, CLS_L, CLS_LEG, geometry_for
from ..state import (
    DISORDERED, ELIMINATED, F_DONE, G_ACTIVATIONS, G_AMBUSH_PLACED, G_MAX_ACT, G_OVER, G_SP, G_TRUNC,
    L_ACTIVE, L_REPL, L_REPL_DEAD, NORMAL, RETIRED, STACK_DEPTH, TASK_WIDTH, D_RETREAT,
)


class CoreMixin:
    # ------------------------------------------------------------------ setup
    def _init_tables(self, sc: Scenario) -> None:
        self.sc = sc
        self.geo = geometry_for(sc)
        self.grid = sc.grid
        self.N = sc.grid.n
        self.U = sc.n_units
        self.AL = ActionLayout(self.N)
        self.num_actions = self.AL.size
        ut = sc.unit_type
        self.utype = ut
        self.uplayer = sc.unit_player
        self.ucmd = sc.unit_command
        self.ucls = tuple(CLS_HM if t in (H, M) else CLS_L if t == L else CLS_LEG for t in ut)
        self.uhorse = tuple(sc.horse[t] for t in ut)
        self.umissile = tuple(sc.missile[t] for t in ut)
        self.ushock = tuple(sc.can_shock[t] for t in ut)
        self.uzoc = tuple(t != R for t in ut)  # 7.0: all but Regular Infantry exert a ZOC
        self.udef = tuple(sc.elite_defense if sc.unit_elite[u] else sc.defense[t] for u, t in enumerate(ut))
        self.udis_def = tuple(sc.elite_dis_defense if sc.unit_elite[u] else sc.dis_defense[t] for u, t in enumerate(ut))
        self.uma = tuple(sc.ma[t] for t in ut)
        self.udis_ma = tuple(sc.dis_ma[t] for t in ut)
        self.side_units = tuple(tuple(u for u in range(self.U) if self.uplayer[u] == p) for p in range(2))
        self.side_missile_units = tuple(tuple(u for u in self.side_units[p] if self.umissile[u]) for p in range(2))
        self.side_first = tuple(self.side_units[p][0] for p in range(2))
        ncmd = len(sc.commands)
        self.NC = ncmd
        self.cmd_player = tuple(c["player"] for c in sc.commands)
        self.cmd_units = tuple(tuple(c["units"]) for c in sc.commands)
        self.side_cmds = tuple(tuple(c for c in range(ncmd) if self.cmd_player[c] == p) for p in range(2))
        self.side_cmd_first = tuple(self.side_cmds[p][0] for p in range(2))
        self.NL = len(sc.leaders)
        self.lplayer = tuple(l["player"] for l in sc.leaders)
        self.lcmd = tuple(l["command"] for l in sc.leaders)
        self.side_leaders = tuple(tuple(i for i in range(self.NL) if self.lplayer[i] == p) for p in range(2))
        self.side_leader_first = tuple(self.side_leaders[p][0] for p in range(2))
        self.cmd_leaders = tuple(tuple(i for i in range(self.NL) if self.lcmd[i] == c) for c in range(ncmd))
        assert all(len(x) <= N_UNIT_SLOTS for x in self.side_units)
        assert all(len(x) <= N_LEADER_SLOTS for x in self.side_leaders)
        assert all(len(x) <= N_CMD_SLOTS for x in self.side_cmds)
        self.ambush_cmd = sc.ambush_command
        self.ambush_units = self.cmd_units[self.ambush_cmd]
        self.flight_level = (sc.victory["flight_level_russian"], sc.victory["flight_level_mongol"])
        self._dist_rows = self.geo.dist_rows
        self._std_order = self.geo.by_distance
        self._zoc_cache: dict = {}
        self._rating_cache: dict = {}
        self._balls: dict[tuple[int, int], tuple[int, ...]] = {}
        self._occ_key, self._occ = b"", []
        self._fp_key, self._fp = b"", (0, 0)
        self._leader_span = None  # set with the state class (the leader arrays' stretch of the buffer)
        # units of a side are contiguous (data.py numbers all Russian units first)
        self._side_span = tuple((self.side_units[p][0], self.side_units[p][-1] + 1) for p in range(2))
        assert all(len(self.side_units[p]) == b - a for p, (a, b) in enumerate(self._side_span))

    def dist_row(self, h: int) -> tuple[int, ...]:
        r = self._dist_rows.get(h)
        if r is None:
            r = self._dist_rows[h] = tuple(self.geo.dist[h].tolist())
        return r

    def hexes_by_distance(self, h: int) -> tuple[int, ...]:
        r = self._std_order.get(h)
        if r is None:
            r = self._std_order[h] = tuple(np.argsort(self.geo.dist[h], kind="stable").tolist())
        return r

    # ------------------------------------------------------------- task stack
    def push(self, s, kind: int, player: int, *args: int) -> None:
        sp = int(s.g[G_SP])
        if sp >= STACK_DEPTH:
            raise RuntimeError("task stack overflow")
        row = [kind, player, *args]
        row += [-1] * (TASK_WIDTH - len(row))
        s.stack[sp] = row
        s.g[G_SP] = sp + 1

    def insert_below(self, s, index: int, kind: int, player: int, *args: int) -> None:
        """Insert a task at stack position ``index`` (entries from there up move one place up)."""
        sp = int(s.g[G_SP])
        if sp >= STACK_DEPTH:
            raise RuntimeError("task stack overflow")
        s.stack[index + 1:sp + 1] = s.stack[index:sp].copy()
        row = [kind, player, *args]
        row += [-1] * (TASK_WIDTH - len(row))
        s.stack[index] = row
        s.g[G_SP] = sp + 1

    def top(self, s) -> list[int] | None:
        sp = int(s.g[G_SP])
        return s.stack[sp - 1].tolist() if sp else None

    def pop(self, s) -> None:
        s.g[G_SP] -= 1

    def _settle(self, s, dice) -> None:
        while True:
            if s.g[G_OVER]:
                return
            t = self.top(s)
            if t is None:
                raise RuntimeError("empty task stack in a running game")
            kind = t[0]
            if kind >= 40:
                self.pop(s)
                self.AUTO[kind](self, s, t, dice)
                continue
            _, opts = self._pending(s, t)
            if opts:
                return
            self.pop(s)
            if kind == D_RETREAT:
                u = t[2]
                if s.u_hex[u] >= 0 and s.u_status[u] != RETIRED:
                    s.log.append(f"{self.uname(s, u)} cannot retreat: eliminated [12.1]")
                    self.eliminate(s, u, dice)

    def _pending(self, s, t: list[int] | None = None) -> tuple[list[int], list[int]]:
        """The pending decision: its task (the top of the stack; ``t`` when the caller has just read it)
        and its legal actions, memoised on the whole state, so the rules, the mask and the observation of
        one decision compute them once. Read only."""
        key = s.buf.tobytes()
        if self._opt_key != key:
            t = t if t is not None else self.top(s)
            self._opt_key, self._opt_val = key, (t, self.OPTIONS[t[0]](self, s, t))
        return self._opt_val

    def count_activation(self, s) -> bool:
        """Count one activation (or pass); True when the activation limit truncates the game here."""
        s.g[G_ACTIVATIONS] += 1
        if s.g[G_MAX_ACT] > 0 and s.g[G_ACTIVATIONS] > s.g[G_MAX_ACT]:
            s.g[G_TRUNC] = 1
            s.g[G_OVER] = 1
            s.log.append(f"activation limit {int(s.g[G_MAX_ACT])} reached: game truncated")
            return True
        return False

    # ---------------------------------------------------------------- names
    def uname(self, s, u: int) -> str:
        h = int(s.u_hex[u])
        where = self.grid.ids[h] if h >= 0 else "off-map"
        return f"{TYPES[self.utype[u]]} {where}"

    def hid(self, h: int) -> str:
        return self.grid.ids[h] if 0 <= h < self.N else "--"

    # ------------------------------------------------------------ board info
    def on_map(self, s, u: int) -> bool:
        return s.u_hex[u] >= 0

    def zoc_map(self, s, enemy_of: int) -> dict[int, list[int]]:
        """hex -> enemy units (of ``enemy_of``) exerting a ZOC there (7.0: frontal hexes; not R, not
        Retired units). Cached on the hexes, facings and statuses of that side's units (callers must not mutate it)."""
        a, b = self._side_span[1 - enemy_of]
        key = (s.u_hex[a:b].tobytes() + s.u_face[a:b].tobytes() + s.u_status[a:b].tobytes(), enemy_of)
        hit = self._zoc_cache.get(key)
        if hit is not None:
            return hit
        if len(self._zoc_cache) > 256:
            self._zoc_cache.clear()
        out: dict[int, list[int]] = {}
        hexes = s.u_hex.tolist()
        faces = s.u_face.tolist()
        status = s.u_status.tolist()
        fnb = self.geo.front_nb
        uzoc = self.uzoc
        for u in self.side_units[1 - enemy_of]:
            h = hexes[u]
            if h < 0 or not uzoc[u] or status[u] >= RETIRED:
                continue
            for t in fnb[h][faces[u]]:
                if t >= 0:
                    lst = out.get(t)
                    if lst is None:
                        out[t] = [u]
                    else:
                        lst.append(u)
        self._zoc_cache[key] = out
        return out

    def occupancy(self, s) -> list[int]:
        """``hex_unit`` as a list (hex -> unit, -1 empty), shared by every caller while the board is
        unchanged: read it, never write it."""
        key = s.hex_unit.tobytes()
        if key != self._occ_key:
            self._occ_key, self._occ = key, s.hex_unit.tolist()
        return self._occ

    def adjacent_enemy(self, s, p: int, h: int, occ: list[int] | None = None) -> bool:
        occ = occ if occ is not None else self.occupancy(s)
        up = self.uplayer
        for t in self.geo.adj[h]:
            v = occ[t]
            if v >= 0 and up[v] != p:
                return True
        return False

    def defense(self, s, u: int) -> int:
        return self.udis_def[u] if s.u_status[u] != NORMAL else self.udef[u]

    def unit_ma(self, s, u: int) -> int:
        st = s.u_status[u]
        if st == RETIRED:
            return 1
        return self.udis_ma[u] if st == DISORDERED else self.uma[u]

    def leaders_at(self, s, h: int, p: int | None = None) -> list[int]:
        lh = s.l_hex.tolist()
        if h not in lh:
            return []
        ls = s.l_state.tolist()
        return [l for l in range(self.NL) if lh[l] == h and ls[l] in (L_ACTIVE, L_REPL, L_REPL_DEAD)
                and (p is None or self.lplayer[l] == p)]

    def flight_points(self, s, p: int) -> int:
        """16.0: the side's Flight Points so far, each of its Retired units counting one more."""
        return self.both_flight_points(s)[p]

    def both_flight_points(self, s) -> tuple[int, int]:
        """:meth:`flight_points` of both sides, from one read of the arrays (kept while the statuses
        and Flight Points are unchanged)."""
        key = s.u_status.tobytes() + s.fp.tobytes()
        if key != self._fp_key:
            status, fp = s.u_status.tolist(), s.fp.tolist()
            (a0, b0), (a1, b1) = self._side_span
            self._fp_key = key
            self._fp = fp[0] + status[a0:b0].count(RETIRED), fp[1] + status[a1:b1].count(RETIRED)
        return self._fp

    # ------------------------------------------------------ moving counters
    def enter(self, s, u: int, y: int, dice, carry_leaders: bool = True) -> None:
        """Put unit ``u`` into hex ``y`` (movement, retreat, advance, charge, placement): leaders stacked
        with it go along; a lone enemy Standard or leader there is captured (14.2, 13.3; a captured real
        Dmitri under 13.4 gets his escape roll with ``dice``); a Mongol unit that gains LOS to the Ambush
        Regiment reveals it (15.2)."""
        x = int(s.u_hex[u])
        p = self.uplayer[u]
        if x >= 0:
            s.hex_unit[x] = -1
            if carry_leaders:
                for l in self.leaders_at(s, x, p):
                    s.l_hex[l] = y
        s.u_hex[u] = y
        s.hex_unit[y] = u
        q = 1 - p
        if s.std_hex[q] == y and not s.std_captured[q]:
            self.capture_standard(s, q, u, dice)
        for l in self.leaders_at(s, y, q):
            s.log.append(f"{self.sc.leaders[l]['name']} alone in {self.hid(y)} is captured by {self.uname(s, u)} [13.3]")
            self.kill_leader(s, l, dice)
        if p == 1 and not s.g[G_AMBUSH_PLACED]:
            self.check_ambush_los(s, y, u)

    def capture_standard(self, s, q: int, u: int, dice) -> None:
        s.std_captured[q] = 1
        s.fp[q] += self.sc.victory["standard"]
        s.log.append(f"{self.uname(s, u)} captures the {('Russian', 'Mongol')[q]} Standard: +{self.sc.victory['standard']} FP [14.2]")
        st = s.u_status.tolist()
        for v in self.side_units[q]:
            if st[v] == RETIRED:
                s.log.append(f"{self.uname(s, v)} (Retired) is eliminated: Standard lost [14.2]")
                self.eliminate(s, v, dice)

    def eliminate(self, s, u: int, dice) -> None:
        x = int(s.u_hex[u])
        p = self.uplayer[u]
        s.u_status[u] = ELIMINATED
        s.u_flags[u] |= F_DONE
        if x >= 0:
            s.hex_unit[x] = -1
        s.u_hex[u] = -1
        s.fp[p] += self.sc.type_fp[self.utype[u]]
        if x >= 0:
            self.displace_leaders(s, x, p, dice)

    def disorder(self, s, u: int, dice) -> None:
        """12.1; a Disordered (or Retired) unit that is Disordered again Retires (precedent 12.1)."""
        if s.u_status[u] == NORMAL:
            s.u_status[u] = DISORDERED
        else:
            self.retire(s, u, dice)

    def retire(self, s, u: int, dice) -> None:
        """12.2: placed as close to its Standard as possible and marked Retired; Eliminated instead when
        the Standard has been captured (12.2, 14.2)."""
        p = self.uplayer[u]
        if s.std_captured[p]:
            s.log.append(f"{self.uname(s, u)} would Retire but its Standard is lost: eliminated [12.2]")
            self.eliminate(s, u, dice)
            return
        x = int(s.u_hex[u])
        s.u_status[u] = RETIRED
        s.u_flags[u] |= F_DONE
        s.u_tgt[u] = -1
        occ = self.occupancy(s)
        std = int(s.std_hex[p])
        dx = self.dist_row(x) if x >= 0 else None
        best, key = -1, None
        drow = self.dist_row(std)
        for h in self.hexes_by_distance(std):
            if key is not None and drow[h] > key[0]:
                break
            if occ[h] >= 0 and h != x:
                continue
            k = (drow[h], dx[h] if dx else 0, h)
            if key is None or k < key:
                best, key = h, k
        if best < 0:
            self.eliminate(s, u, dice)
            return
        if x >= 0:
            s.hex_unit[x] = -1
            self.displace_leaders(s, x, p, dice)
            s.u_hex[u] = -1
        self.enter(s, u, best, dice, carry_leaders=False)

    def displace_leaders(self, s, h: int, p: int, dice) -> None:
        """13.3: a surviving leader whose unit is gone joins the nearest unit of his command; if he is
        surrounded by enemy units and/or ZOC he is captured (a real Dmitri under 13.4 then gets his
        escape roll with ``dice``)."""
        ls = self.leaders_at(s, h, p)
        if not ls:
            return
        occ = self.occupancy(s)
        if s.std_hex[p] == h and not s.std_captured[p]:
            return  # leaders with their own Standard stay there
        zoc = None
        for l in ls:
            nbrs = self.geo.nbr[h]
            if zoc is None:
                zoc = self.zoc_map(s, p)
            surrounded = all(t < 0 or (occ[t] >= 0 and self.uplayer[occ[t]] != p) or t in zoc for t in nbrs)
            if surrounded:
                s.log.append(f"{self.sc.leaders[l]['name']} is surrounded in {self.hid(h)}: captured [13.3]")
                self.kill_leader(s, l, dice)
                continue
            target = self.nearest_friend(s, h, p, self.lcmd[l])
            if target < 0:
                target = int(s.std_hex[p]) if not s.std_captured[p] else -1
            if target < 0:
                self.kill_leader(s, l, dice)
            else:
                s.l_hex[l] = target

    def nearest_friend(self, s, h: int, p: int, cmd: int) -> int:
        hexes = s.u_hex.tolist()
        st = s.u_status.tolist()
        drow = self.dist_row(h)
        best, bk = -1, None
        for pref in (True, False):
            for u in (self.cmd_units[cmd] if pref else self.side_units[p]):
                x = hexes[u]
                if x < 0 or st[u] == RETIRED or x == h:
                    continue
                k = (drow[x], x)
                if bk is None or k < bk:
                    best, bk = x, k
            if best >= 0:
                return best
        return best
