"""Sequence of play (3.0, 4.x), Standards (14.x), Flight (16.x), set-up (15.x) and the Move/Fire unit
selection. Each ``opt_*`` returns the legal actions of a decision, each ``do_*`` carries one out, each
``auto_*`` is an automatic step of the task stack.
"""

from __future__ import annotations

from ..state import (
    A_ACT_START, A_ACTIVATE, A_END_ACT, A_FLIGHT, ACTIVATION_FLAGS, D_CONTINUITY, D_FREE, D_LEADER_MOVE,
    D_MF_SELECT, D_PLACE_REPL, D_RESOLVE_PICK, D_SEIZE, D_SHOCK_SELECT, D_STD_MOVE, D_UNIT_ACT, DISORDERED,
    F_ACTED, F_DONE, F_START_ZOC, G_ACTIVE, G_AMBUSH_PLACED, G_CMD, G_FIRST, G_FREE, G_HEROIC_M, G_HEROIC_R,
    G_LAST_CMD, G_OVER, G_WINNER, L_PENDING, LF_MOVED, LF_OC, NORMAL, RETIRED,
)
from .leaders import IN_PLAY, LEADER_MOVE

PLAYER_NAMES = ("Russian", "Mongol")


class ActivationMixin:
    # ------------------------------------------------------------ commands
    def activatable(self, s, c: int, status: list[int] | None = None) -> bool:
        """A command with a unit on the map (or the Ambush Regiment before it is placed) may be activated;
        ``status``: ``s.u_status`` as a list, when the caller has it."""
        if c == self.ambush_cmd and not s.g[G_AMBUSH_PLACED]:
            return True
        st = status if status is not None else s.u_status.tolist()
        return any(st[u] in (NORMAL, DISORDERED, RETIRED) for u in self.cmd_units[c])

    def cmd_actions(self, s, p: int, exclude: int = -1) -> list[int]:
        base = self.AL.CMD
        first = self.side_cmd_first[p]
        st = s.u_status.tolist()
        return [base + c - first for c in self.side_cmds[p] if c != exclude and self.activatable(s, c, st)]

    def cmd_of_action(self, p: int, a: int) -> int:
        return self.side_cmd_first[p] + a - self.AL.CMD

    # ------------------------------------------------------------- heroic
    def auto_heroic(self, s, t, dice) -> None:
        """15.4 Heroic Combat: high DR goes first, low DR takes 1 FP; ties re-roll without the FP."""
        tie = False
        while True:
            r, m = dice.roll(10, low=0), dice.roll(10, low=0)
            s.log.append(f"Heroic combat: Russian DR {r}, Mongol DR {m} [15.4]")
            if r != m:
                break
            tie = True
        winner = 0 if r > m else 1
        s.g[G_HEROIC_R], s.g[G_HEROIC_M] = r, m
        s.g[G_FIRST] = winner
        if not tie:
            s.fp[1 - winner] += self.sc.victory["heroic_combat_loss"]
            s.log.append(f"{PLAYER_NAMES[1 - winner]} champion falls: +{self.sc.victory['heroic_combat_loss']} FP")
        else:
            s.log.append("after a tie the loser takes no Flight Point [15.4]")
        s.log.append(f"{PLAYER_NAMES[winner]} goes first (free activation) [15.4]")
        self.push(s, D_FREE, winner)

    # -------------------------------------------------------- free choice
    def opt_free(self, s, t) -> list[int]:
        p = t[1]
        opts = self.cmd_actions(s, p)
        if not s.std_captured[p]:
            opts.append(self.AL.option("STD_MOVE"))
            if self.rally_candidates(s, p):
                opts.append(self.AL.option("STD_RALLY"))
        opts.append(self.AL.option("PASS"))
        return opts

    def do_free(self, s, t, a, dice) -> None:
        p = t[1]
        self.pop(s)
        if a == self.AL.option("PASS"):
            s.log.append(f"{PLAYER_NAMES[p]} passes: play passes to the opponent [4.1]")
            if self.count_activation(s):
                return
            self.push(s, D_FREE, 1 - p)
        elif a == self.AL.option("STD_MOVE"):
            self.push(s, D_STD_MOVE, p)
        elif a == self.AL.option("STD_RALLY"):
            if self.count_activation(s):
                return
            s.g[G_ACTIVE] = p
            s.g[G_LAST_CMD] = -1
            for u in self.rally_candidates(s, p):
                s.u_status[u] = DISORDERED
                s.log.append(f"Standard rallies {self.uname(s, u)}: Retired -> Disordered [12.5.2, 14.0]")
            self.push(s, D_CONTINUITY, p)
            self.push(s, A_FLIGHT, p)
        else:
            self.push(s, A_ACTIVATE, p, self.cmd_of_action(p, a), 1)

    # -------------------------------------------------------- continuity
    def opt_continuity(self, s, t) -> list[int]:
        p = t[1]
        return self.cmd_actions(s, p, exclude=int(s.g[G_LAST_CMD])) + [self.AL.option("PASS")]

    def do_continuity(self, s, t, a, dice) -> None:
        p = t[1]
        self.pop(s)
        if a == self.AL.option("PASS"):
            s.log.append(f"{PLAYER_NAMES[p]} passes [4.1]")
            if self.count_activation(s):
                return
            self.push(s, D_FREE, 1 - p)
            return
        c = self.cmd_of_action(p, a)
        s.log.append(f"{PLAYER_NAMES[p]} names {self.sc.commands[c]['name']} for Continuity [4.2]")
        self.push(s, D_SEIZE, 1 - p, c)

    def opt_seize(self, s, t) -> list[int]:
        q = t[1]
        return [self.AL.option("NO")] + self.cmd_actions(s, q)

    def do_seize(self, s, t, a, dice) -> None:
        q, c = t[1], t[2]
        p = 1 - q
        self.pop(s)
        if a == self.AL.option("NO"):
            ok, dr, rating = self._rating_roll(s, c, dice)
            s.log.append(f"Continuity {self.sc.commands[c]['name']}: DR {dr} vs rating {rating} -> "
                         f"{'activates' if ok else 'fails: opponent activates freely'} [4.2]")
            if ok:
                self.push(s, A_ACTIVATE, p, c, 0)
            else:
                self.push(s, D_FREE, q)
            return
        cs = self.cmd_of_action(q, a)
        ok, dr, rating = self._rating_roll(s, cs, dice)
        s.log.append(f"{PLAYER_NAMES[q]} tries to Seize Continuity with {self.sc.commands[cs]['name']}: DR {dr} vs "
                     f"rating {rating} -> {'seized' if ok else 'fails: the phasing player activates freely'} [4.3]")
        if ok:
            self.push(s, A_ACTIVATE, q, cs, 0)
        else:
            self.push(s, D_FREE, p)

    def _rating_roll(self, s, c: int, dice) -> tuple[bool, int, int]:
        """4.2, 4.3: a die roll (0-9) at or under command ``c``'s rating succeeds: (success, roll, rating)."""
        rating = self.command_rating(s, c)
        dr = dice.roll(10, low=0)
        return dr <= rating, dr, rating

    # -------------------------------------------------------- activation
    def auto_activate(self, s, t, dice) -> None:
        p, c, free = t[1], t[2], t[3]
        if self.count_activation(s):
            return
        s.g[G_ACTIVE], s.g[G_CMD], s.g[G_FREE], s.g[G_LAST_CMD] = p, c, free, c
        s.u_flags[:] &= ~ACTIVATION_FLAGS
        s.u_flags[:] &= ~(1024)  # F_RETURNED: once per enemy activation (9.2)
        s.u_attacks[:] = 0
        s.u_tgt[:] = -1
        s.u_left[:] = -1
        s.u_react[:] = -1
        s.u_vac[:] = -1
        s.u_ccv[:] = -1
        s.l_flags[:] &= ~LF_MOVED
        s.log.append(f"{PLAYER_NAMES[p]} activates {self.sc.commands[c]['name']}{' (free)' if free else ''}")
        if c == self.ambush_cmd and not s.g[G_AMBUSH_PLACED]:
            self.place_ambush(s)
        self.push(s, A_END_ACT, p, c, free)
        self.push(s, D_RESOLVE_PICK, p)
        self.push(s, D_SHOCK_SELECT, p, c)
        self.push(s, D_MF_SELECT, p, c)
        self.push(s, A_ACT_START, p, c)
        # 13.3: replacement leaders come in after the command has been chosen
        for l in reversed(self.side_leaders[p]):
            if s.l_state[l] == L_PENDING and self.replacement_hexes(s, l):
                self.push(s, D_PLACE_REPL, p, l)

    def replacement_hexes(self, s, l: int) -> list[int]:
        hexes = s.u_hex.tolist()
        st = s.u_status.tolist()
        return sorted({hexes[u] for u in self.cmd_units[self.lcmd[l]] if hexes[u] >= 0 and st[u] != RETIRED})

    def opt_place_repl(self, s, t) -> list[int]:
        return self.replacement_hexes(s, t[2])

    def do_place_repl(self, s, t, a, dice) -> None:
        self.pop(s)
        self.place_replacement(s, t[2], a)

    def auto_act_start(self, s, t, dice) -> None:
        p, c = t[1], t[2]
        self.compute_command(s, c)
        zoc = self.zoc_map(s, p)
        hexes = s.u_hex.tolist()
        for u in self.cmd_units[c]:
            h = hexes[u]
            if h < 0:
                continue
            s.u_mp[u] = self.unit_ma(s, u)
            if h in zoc:
                s.u_flags[u] |= F_START_ZOC

    def auto_end_act(self, s, t, dice) -> None:
        p, c, free = t[1], t[2], t[3]
        occ = self.occupancy(s)
        for u in self.cmd_units[c]:
            h = int(s.u_hex[u])
            if h >= 0 and s.u_status[u] == DISORDERED and not s.u_flags[u] & F_ACTED \
                    and not self.adjacent_enemy(s, p, h, occ):
                s.u_status[u] = NORMAL
                s.log.append(f"{self.uname(s, u)} did nothing and rallies from Disorder [12.5.1]")
        self.push(s, D_CONTINUITY, p)
        if free:
            self.push(s, A_FLIGHT, p)

    # ------------------------------------------------------------- flight
    def auto_flight(self, s, t, dice) -> None:
        """16.0: after a free activation each army rolls: DR + FP > Flight Level -> it flees."""
        p = t[1]
        for side in (p, 1 - p):
            fp = self.flight_points(s, side)
            dr = dice.roll(10, low=0)
            lvl = self.flight_level[side]
            flees = dr + fp > lvl
            s.log.append(f"Flight check {PLAYER_NAMES[side]}: DR {dr} + {fp} FP = {dr + fp} vs level {lvl} -> "
                         f"{'FLEES' if flees else 'holds'} [16.0]")
            if flees:
                s.g[G_WINNER] = 1 - side
                s.g[G_OVER] = 1
                s.log.append(f"{PLAYER_NAMES[1 - side]} wins")
                return

    # ----------------------------------------------------------- standards
    def rally_candidates(self, s, p: int) -> list[int]:
        h = int(s.std_hex[p])
        st = s.u_status.tolist()
        hexes = s.u_hex.tolist()
        d = self.dist_row(h)
        return [u for u in self.side_units[p] if st[u] == RETIRED and hexes[u] >= 0 and d[hexes[u]] <= 1]

    def opt_std_move(self, s, t) -> list[int]:
        p = t[1]
        occ = self.occupancy(s)
        cur = int(s.std_hex[p])
        up = self.uplayer
        return [h for h in range(self.N) if h != cur and (occ[h] < 0 or up[occ[h]] == p)]

    def do_std_move(self, s, t, a, dice) -> None:
        p = t[1]
        self.pop(s)
        if self.count_activation(s):
            return
        s.g[G_ACTIVE] = p
        s.g[G_LAST_CMD] = -1
        for u in self.rally_candidates(s, p):
            dr = dice.roll(10, low=0)
            adj = dr + self.udef[u]
            dies = adj >= self.sc.tests["standard_move_eliminated_min"]
            s.log.append(f"Standard leaves Retired {self.uname(s, u)}: DR {dr} {self.udef[u]:+d} = {adj} -> "
                         f"{'eliminated' if dies else 'holds'} [14.1]")
            if dies:
                self.eliminate(s, u, dice)
        s.log.append(f"{PLAYER_NAMES[p]} Standard moves {self.hid(int(s.std_hex[p]))} -> {self.hid(a)} [14.1]")
        s.std_hex[p] = a
        self.push(s, D_CONTINUITY, p)
        self.push(s, A_FLIGHT, p)

    # ------------------------------------------------------- move/fire select
    def movable_leaders(self, s, p: int, c: int) -> list[int]:
        """Leaders of command ``c`` (of player ``p``) in play that have not moved this activation."""
        fl, ls, lh = s.l_flags.tolist(), s.l_state.tolist(), s.l_hex.tolist()
        return [l for l in self.cmd_leaders[c] if ls[l] in IN_PLAY and lh[l] >= 0 and not fl[l] & LF_MOVED]

    def opt_mf_select(self, s, t) -> list[int]:
        p, c = t[1], t[2]
        base = self.AL.UNIT - self.side_first[p]
        hexes = s.u_hex.tolist()
        fl = s.u_flags.tolist()
        opts = [base + u for u in self.cmd_units[c] if hexes[u] >= 0 and not fl[u] & F_DONE]
        lb = self.AL.LEADER - self.side_leader_first[p]
        opts += [lb + l for l in self.movable_leaders(s, p, c) if self.leader_can_move(s, l)]
        opts.append(self.AL.option("PASS"))
        return opts

    def do_mf_select(self, s, t, a, dice) -> None:
        p = t[1]
        if a == self.AL.option("PASS"):
            self.pop(s)
            hexes = s.u_hex.tolist()
            for u in self.cmd_units[t[2]]:
                if hexes[u] >= 0:
                    s.u_flags[u] |= F_DONE
            return
        if a >= self.AL.LEADER:
            self.push(s, D_LEADER_MOVE, p, a - self.AL.LEADER + self.side_leader_first[p])
        else:
            self.push(s, D_UNIT_ACT, p, a - self.AL.UNIT + self.side_first[p])

    def leader_destinations(self, s, l: int) -> list[int]:
        """13.0: a leader moves up to 8 hexes to a unit of his command (the Overall Commander: of his
        side) that is not Retired, or to his Standard."""
        return sorted(set(self._leader_targets(s, l)))

    def leader_can_move(self, s, l: int) -> bool:
        return next(iter(self._leader_targets(s, l)), None) is not None

    def _leader_targets(self, s, l: int):
        """The destinations of :meth:`leader_destinations`, lazily and possibly repeated."""
        p = self.lplayer[l]
        h = int(s.l_hex[l])
        d = self.dist_row(h)
        hexes = s.u_hex.tolist()
        st = s.u_status.tolist()
        units = self.side_units[p] if s.l_flags[l] & LF_OC else self.cmd_units[self.lcmd[l]]
        for u in units:
            x = hexes[u]
            if x >= 0 and x != h and st[u] != RETIRED and d[x] <= LEADER_MOVE:
                yield x
        std = int(s.std_hex[p])
        if not s.std_captured[p] and std != h and d[std] <= LEADER_MOVE:
            yield std

    def opt_leader_move(self, s, t) -> list[int]:
        return self.leader_destinations(s, t[2]) + [self.AL.option("PASS")]

    def do_leader_move(self, s, t, a, dice) -> None:
        l = t[2]
        self.pop(s)
        s.l_flags[l] |= LF_MOVED
        if a == self.AL.option("PASS"):
            return
        s.log.append(f"{self.sc.leaders[l]['name']} moves {self.hid(int(s.l_hex[l]))} -> {self.hid(a)}")
        s.l_hex[l] = a

