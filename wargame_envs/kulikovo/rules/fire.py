"""Missile fire (9.x): phasing, reaction and return fire, line of sight, the Fire Table, counter-charge
against fire (11.3), and the retreat and facing decisions every combat result may call for (12.1).
"""

from __future__ import annotations

from ..data import DD, DR, EL, RT, H, L, M, result_str
from ..geometry import CAT, FLANK, FRONT, FRONT_DIRS, REAR
from ..state import (
    F_CC_WAIT,
    A_CC_CHARGE, A_FIRE, A_RESOLVE, D_CC_FIRE, D_FACE, D_RETREAT, D_RETURN, D_UNIT_ACT, DISORDERED,
    F_ACTED, F_CC_OK, F_CHARGING, F_DECLARED, F_DONE, F_FIRED, F_RETURNED, F_RETURNING, F_STOPPED, F_XBOW_REACTED, G_ACTIVE, G_SP,
    NORMAL, RETIRED,
)

C_TYPE = 5
B_TYPE = 4


class FireMixin:
    # ------------------------------------------------------------- targets
    def can_fire_at(self, s, f: int, tgt_hex: int, occ, arcs: tuple[int, ...]) -> int:
        """Range (1-2) if missile unit ``f`` may fire at ``tgt_hex`` through the given hexside categories
        of its own facing, with LOS (9.4); 0 otherwise."""
        x = int(s.u_hex[f])
        geo = self.geo
        dirs = geo.dirs_to[x].get(tgt_hex)
        if dirs is None:
            return 0
        face = int(s.u_face[f])
        if not any(CAT[face][d] in arcs for d in dirs):
            return 0
        rng = 1 if len(dirs) == 1 and geo.nbr[x][dirs[0]] == tgt_hex else 2
        if rng == 2:
            if not geo.los_terrain[x][tgt_hex]:
                return 0
            if self.utype[f] == C_TYPE:  # 9.4: crossbows do not fire through units
                mids = [m for (t, _, _, mm) in geo.near[x] if t == tgt_hex for m in mm]
                if mids and all(occ[m] >= 0 for m in mids):
                    return 0
        return rng

    def fire_targets(self, s, u: int, zoc, occ) -> list[int]:
        """Phasing fire (9.2): once per activation, through frontal and flank hexsides; light cavalry in an
        enemy ZOC pay 1 MP (9.1)."""
        if not self.umissile[u] or s.u_flags[u] & (F_FIRED | F_DONE) or s.u_status[u] not in (NORMAL, DISORDERED):
            return []
        x = int(s.u_hex[u])
        if self.utype[u] == L and x in zoc and s.u_mp[u] < 1:
            return []
        p = self.uplayer[u]
        up = self.uplayer
        out = []
        for (t, _, _, _) in self.geo.near[x]:
            v = occ[t]
            if v >= 0 and up[v] != p and self.can_fire_at(s, u, t, occ, (FRONT, FLANK)):
                out.append(t)
        return out

    def start_fire(self, s, f: int, target: int, reaction: bool) -> None:
        p = self.uplayer[f]
        q = 1 - p
        x = int(s.u_hex[f])
        s.u_flags[f] |= F_FIRED | F_ACTED
        if not reaction:
            if self.utype[f] == L:
                if x in self.zoc_map(s, p):
                    s.u_mp[f] -= 1
            else:
                s.u_mp[f] = 0
                s.u_flags[f] |= F_STOPPED
        self.push(s, A_FIRE, p, f, target, int(reaction))
        occ = self.occupancy(s)
        # 9.2 Return Fire: L or B fired at by a missile unit within its range, once per enemy activation
        if self.utype[target] in (L, B_TYPE) and s.u_status[target] in (NORMAL, DISORDERED) \
                and not s.u_flags[target] & F_RETURNED and q != int(s.g[G_ACTIVE]) \
                and self.can_fire_at(s, target, x, occ, (FRONT, FLANK)):
            self.push(s, D_RETURN, q, target, f)
        if self.cc_fire_facings(s, target, f):
            self.push(s, D_CC_FIRE, q, target, f)

    # --------------------------------------------------------- counter-charge
    def cc_eligible(self, s, d: int, attackers: list[int]) -> bool:
        """11.3: H/M neither Disordered nor in the ZOC of another enemy unit. A phasing unit that has
        declared its Shock or Charge (its one attack of the activation, 10.0) may not counter-charge the
        reaction fire its charge move draws: that would be a second attack (clarification C37)."""
        if self.utype[d] not in (H, M) or s.u_status[d] != NORMAL or s.u_flags[d] & F_DECLARED:
            return False
        zoc = self.zoc_map(s, self.uplayer[d])
        others = [e for e in zoc.get(int(s.u_hex[d]), []) if e not in attackers]
        return not others

    def cc_fire_facings(self, s, tgt: int, firer: int) -> list[int]:
        """Facings from which ``tgt`` could counter-charge ``firer`` (fire through its front or flank)."""
        if not self.cc_eligible(s, tgt, [firer]):
            return []
        x, fh = int(s.u_hex[tgt]), int(s.u_hex[firer])
        dirs = self.geo.dirs_to[x].get(fh)
        if dirs is None:
            return []
        face = int(s.u_face[tgt])
        cat = self.geo.category(face, dirs)
        if cat == REAR:
            return []
        out = []
        for f in range(6):
            if self.cc_destination(s, tgt, firer, f) is not None:
                out.append(f)
        return out

    def cc_destination(self, s, cc: int, enemy: int, face: int) -> int | None:
        """Hex from which ``cc`` (facing ``face``) charges ``enemy``: its own hex if the enemy is frontal,
        else an empty frontal hex with the enemy frontal from it (11.3: no facing change once started)."""
        x, e = int(s.u_hex[cc]), int(s.u_hex[enemy])
        nbr = self.geo.nbr
        a, b = FRONT_DIRS[face]
        if nbr[x][a] == e or nbr[x][b] == e:
            return x
        for y in (nbr[x][a], nbr[x][b]):
            if y >= 0 and s.hex_unit[y] < 0 and (nbr[y][a] == e or nbr[y][b] == e):
                return y
        return None

    def opt_cc_fire(self, s, t) -> list[int]:
        tgt, firer = t[2], t[3]
        if s.u_hex[tgt] < 0 or s.u_hex[firer] < 0:
            return []
        fs = self.cc_fire_facings(s, tgt, firer)
        return [self.AL.FACE + f for f in fs] + [self.AL.option("NO")] if fs else []

    def cc_roll(self, s, d: int, flank: bool, dice) -> bool:
        dr = dice.roll(10, low=0)
        te = self.sc.tests
        adj = dr + self.udef[d] + (te["counter_charge_flank"] if flank else 0) + (te["counter_charge_medium"] if self.utype[d] == M else 0)
        ok = adj <= te["counter_charge_ok_max"]
        s.log.append(f"Counter-charge by {self.uname(s, d)}: DR {dr} {self.udef[d]:+d}{' +1 flank' if flank else ''}"
                     f"{' +1 M' if self.utype[d] == M else ''} = {adj} -> {'succeeds' if ok else 'fails'} [11.3]")
        return ok

    def do_cc_fire(self, s, t, a, dice) -> None:
        tgt, firer = t[2], t[3]
        self.pop(s)
        if a == self.AL.option("NO"):
            return
        f = a - self.AL.FACE
        dirs = self.geo.dirs_to[int(s.u_hex[tgt])][int(s.u_hex[firer])]
        flank = self.geo.category(int(s.u_face[tgt]), dirs) == FLANK
        if self.cc_roll(s, tgt, flank, dice):
            s.u_face[tgt] = f
            s.u_flags[tgt] |= F_CC_OK
            s.u_ccv[tgt] = firer

    # -------------------------------------------------------------- return
    def opt_return(self, s, t) -> list[int]:
        tgt, firer = t[2], t[3]
        if s.u_hex[tgt] < 0 or s.u_hex[firer] < 0:
            return []
        return [self.AL.option("YES"), self.AL.option("NO")]

    def do_return(self, s, t, a, dice) -> None:
        self.pop(s)
        if a == self.AL.option("YES"):
            s.u_flags[t[2]] |= F_RETURNING | F_RETURNED

    # ------------------------------------------------------------ reaction
    def opt_react(self, s, t) -> list[int]:
        r, m = t[2], t[3]
        if s.u_hex[r] < 0 or s.u_hex[m] < 0 or s.u_status[r] not in (NORMAL, DISORDERED):
            return []
        x = int(s.u_hex[r])
        a, b = FRONT_DIRS[int(s.u_face[r])]
        if int(s.u_hex[m]) not in (self.geo.nbr[x][a], self.geo.nbr[x][b]):
            return []
        if self.utype[r] == C_TYPE and s.u_flags[r] & F_XBOW_REACTED:
            return []
        return [self.AL.option("YES"), self.AL.option("NO")]

    def do_react(self, s, t, a, dice) -> None:
        r, m = t[2], t[3]
        self.pop(s)
        if a == self.AL.option("NO"):
            return
        s.u_react[r] = m
        if self.utype[r] == C_TYPE:
            s.u_flags[r] |= F_XBOW_REACTED
        self.start_fire(s, r, m, reaction=True)

    # ------------------------------------------------------------- resolve
    def fire_dr(self, s, f: int, tgt: int, dice) -> tuple[int, int, str]:
        x, y = int(s.u_hex[f]), int(s.u_hex[tgt])
        dirs = self.geo.dirs_to[x][y]
        rng = 1 if len(dirs) == 1 and self.geo.nbr[x][dirs[0]] == y else 2
        dr = dice.roll(10, low=0)
        mods = [(self.sc.fire_range[self.utype[f]][rng - 1], f"range {rng}")]
        back = self.geo.dirs_to[y][x]
        if self.uhorse[tgt] and self.geo.category(int(s.u_face[tgt]), back) == FLANK:
            mods.append((self.sc.fire_drm["horse_flank"], "horse flank 9.3.1"))
        if self.sc.woods[y]:
            mods.append((self.sc.terrain["woods_fire_drm"], "woods"))
        if s.u_status[f] != NORMAL:
            mods.append((self.sc.fire_drm["firer_disordered"], "firer disordered"))
        total = dr + sum(m for m, _ in mods)
        txt = f"DR {dr}" + "".join(f" {m:+d} ({n})" for m, n in mods if m) + f" = {total}"
        return total, dr, txt

    def fire_result(self, s, tgt: int, adj: int) -> int:
        tbl = self.sc.fire_horse if self.uhorse[tgt] else self.sc.fire_leg
        i = min(max(adj - self.sc.fire_min, 0), len(tbl) - 1)
        return tbl[i]

    def auto_fire(self, s, t, dice) -> None:
        f, tgt, reaction = t[2], t[3], t[4]
        if s.u_hex[f] < 0 or s.u_hex[tgt] < 0:
            s.u_flags[tgt] &= ~F_RETURNING
            return
        kind = "Reaction fire" if reaction else "Fire"
        adj, _, txt = self.fire_dr(s, f, tgt, dice)
        res = self.fire_result(s, tgt, adj)
        fx, tx = int(s.u_hex[f]), int(s.u_hex[tgt])
        lines = [(f"{kind} {self.uname(s, f)} at {self.uname(s, tgt)}: {txt} -> {result_str(res, True)} [9.3]", tgt, res, adj, fx)]
        if s.u_flags[tgt] & F_RETURNING:
            s.u_flags[tgt] &= ~F_RETURNING
            adj2, _, txt2 = self.fire_dr(s, tgt, f, dice)
            res2 = self.fire_result(s, f, adj2)
            lines.append((f"Return fire {self.uname(s, tgt)} at {self.uname(s, f)}: {txt2} -> {result_str(res2, True)} [9.2]",
                          f, res2, adj2, tx))
        for text, _, _, _, _ in lines:
            s.log.append(text)
        for _, unit, res, adj_, src in lines:  # results applied together (9.2 simultaneous)
            self.apply_fire_result(s, unit, res, adj_, src, dice)
        if s.u_flags[tgt] & F_CC_OK:
            s.u_flags[tgt] &= ~F_CC_OK
            q = self.uplayer[tgt]
            if s.u_hex[f] >= 0 and f in self.targeted(s, q):
                # 11.3: the target of the counter-charge is under an unresolved attack: that one first
                s.u_flags[tgt] |= F_CC_WAIT
                s.u_ccv[tgt] = f
                s.log.append(f"the counter-charge waits until the attack on {self.uname(s, f)} is resolved [11.3]")
            elif self.utype[f] == L and not reaction:
                # 9.1: the counter-charge comes after the light cavalry has finished its movement
                sp = int(s.g[G_SP])
                for i in range(sp - 1, -1, -1):
                    row = s.stack[i].tolist()
                    if row[0] == D_UNIT_ACT and row[2] == f:
                        self.insert_below(s, i, A_CC_CHARGE, q, tgt, f)
                        break
                else:
                    self.push(s, A_CC_CHARGE, q, tgt, f)
            else:
                self.push(s, A_CC_CHARGE, q, tgt, f)

    def apply_fire_result(self, s, u: int, res: int, adj: int, src_hex: int, dice) -> None:
        if s.u_hex[u] < 0:
            return
        h = int(s.u_hex[u])
        if adj >= self.sc.fire_drm["leader_check_at"]:
            self.leader_check_fire(s, h, self.uplayer[u], dice)
        if res & EL:
            self.eliminate(s, u, dice)
        elif res & RT:
            self.retire(s, u, dice)
        else:
            if res & DD:
                was = int(s.u_status[u])
                self.disorder(s, u, dice)
                if was == NORMAL and s.u_mp[u] > 0:
                    s.u_mp[u] = max(0, int(s.u_mp[u]) - (self.uma[u] - self.udis_ma[u]))
                if s.u_flags[u] & F_CHARGING:
                    # 11.1, 12.1: Disordered units may not Charge: reaction fire that Disorders a charger
                    # during its charge move turns its charge into a normal Shock (as 11.3 does for a
                    # Disordered counter-charger): no charge DRM, no Charge Table, no reluctance roll
                    s.u_flags[u] &= ~F_CHARGING
                    s.log.append(f"{self.uname(s, u)} is Disordered during its charge: it will Shock without "
                                 f"charging [11.1, 12.1]")
            if res & DR and s.u_hex[u] >= 0 and s.u_status[u] != RETIRED:
                self.push(s, D_RETREAT, self.uplayer[u], u, 0, src_hex)

    def auto_cc_charge(self, s, t, dice) -> None:
        q, cc, enemy = t[1], t[2], t[3]
        if s.u_hex[cc] < 0 or s.u_hex[enemy] < 0 or s.u_status[cc] not in (NORMAL, DISORDERED):
            return
        y = self.cc_destination(s, cc, enemy, int(s.u_face[cc]))
        if y is None:
            s.log.append(f"{self.uname(s, cc)} finds no way to reach {self.uname(s, enemy)}: counter-charge lapses [11.3]")
            return
        if y != s.u_hex[cc]:
            self.enter(s, cc, y, dice)
        if q == s.g[G_ACTIVE]:
            # 11.3: a phasing unit counter-charging the reaction fire its move drew has made its attack
            # of the activation ("resolved as if it were a normal Charge"; 10.0: one Shock or Charge per
            # unit): it declares no Shock or Charge later, and its Move/Fire is over, in its
            # counter-charge facing (11.3 play note) (clarification C37)
            s.u_flags[cc] |= F_DECLARED | F_DONE | F_ACTED
        self.push(s, A_RESOLVE, q, enemy, cc, 1)

    # -------------------------------------------------------------- retreat
    def retreat_options(self, s, u: int, sources: list[int], allow_zoc: bool = True) -> list[tuple[int, int]]:
        """12.1: one hex away from the inflicting unit(s) (distance to each grows), not into an occupied
        hex; through a friendly B/C an extra hex when blocked. Returns (hex, bc unit or -1)."""
        x = int(s.u_hex[u])
        p = self.uplayer[u]
        occ = self.occupancy(s)
        dist = self.geo.dist
        nbr = self.geo.nbr[x]
        hs = self.geo.hexside[x]
        zoc = None if allow_zoc else self.zoc_map(s, p)
        out = []
        blockers = []
        for d in range(6):
            y = nbr[d]
            if y < 0 or hs[d] == 3:
                continue
            if not all(dist[y, z] > dist[x, z] for z in sources):
                continue
            if occ[y] >= 0:
                v = occ[y]
                if self.uplayer[v] == p and self.utype[v] in (B_TYPE, C_TYPE):
                    blockers.append((y, v))
                continue
            if zoc is not None and y in zoc:
                continue
            out.append((y, -1))
        if out or not allow_zoc:
            return out
        for (y, v) in blockers:
            for d in range(6):
                y2 = self.geo.nbr[y][d]
                if y2 < 0 or self.geo.hexside[y][d] == 3 or occ[y2] >= 0:
                    continue
                if all(dist[y2, z] > dist[y, z] for z in sources) and all(y2 != o for o, _ in out):
                    out.append((y2, v))
        return out

    def retreat_sources(self, s, t) -> list[int]:
        """Hexes of the units inflicting the retreat (12.1): task (player, unit, mode, ref hex, unit making a
        Continued Attack or -1); mode 0: away from ``ref``; mode 1 (a defender): away from its attackers
        (in a Continued Attack, the continuing unit alone, 12.4)."""
        u, mode, ref, ca = t[2], t[3], t[4], t[5]
        if mode == 0:
            return [ref]
        if ca >= 0:
            return [int(s.u_hex[ca])] if s.u_hex[ca] >= 0 else [ref]
        hexes = s.u_hex.tolist()
        tg = s.u_tgt.tolist()
        src = [hexes[a] for a in range(self.U) if hexes[a] >= 0 and u in tg[a]]
        return src or [ref]

    def opt_retreat(self, s, t) -> list[int]:
        u = t[2]
        if s.u_hex[u] < 0 or s.u_status[u] == RETIRED:
            return []
        return sorted({y for y, _ in self.retreat_options(s, u, self.retreat_sources(s, t))})

    def do_retreat(self, s, t, a, dice) -> None:
        q, u = t[1], t[2]
        self.pop(s)
        opts = self.retreat_options(s, u, self.retreat_sources(s, t))
        v = next(bc for y, bc in opts if y == a)
        s.log.append(f"{self.uname(s, u)} retreats to {self.hid(a)} [12.1]")
        self.enter(s, u, a, dice)
        if v >= 0:
            s.log.append(f"it retreats through {self.uname(s, v)}, which is {'Disordered' if s.u_status[v] == NORMAL else 'Retired'} [12.1]")
            self.disorder(s, v, dice)
        if s.u_hex[u] >= 0:
            self.push(s, D_FACE, q, u)

    # ---------------------------------------------------------------- facing
    def opt_face(self, s, t) -> list[int]:
        u = t[2]
        if s.u_hex[u] < 0 or s.u_status[u] == RETIRED:
            return []
        return [self.AL.FACE + f for f in range(6)]

    def do_face(self, s, t, a, dice) -> None:
        self.pop(s)
        s.u_face[t[2]] = a - self.AL.FACE


