"""Shock (10.x), Charge (11.x) and their results (12.x): declaration, retreat before shock,
counter-charge, charge reluctance, resolution, advance after combat and continued attack.

Attackers declare one at a time (``D_SHOCK_SELECT`` then ``D_SHOCK_MODE``); a Shock attacks every enemy
unit in the attacker's two frontal hexes (or only those not already attacked, 10.2); a Charge names the
hex the charger moves into (11.1) and attacks every enemy unit frontal to it. The attacker then picks the
defenders to resolve in any order (``D_RESOLVE_PICK``); each defender first decides to stand, retreat
before shock (10.1) or counter-charge (11.3).
"""

from __future__ import annotations

from ..data import AD, AR, CA, DD, DR, EL, RT, TYPES, H, L, M, R, RIVER, SLOPE, STEEP, result_str
from ..geometry import CAT, FLANK, FRONT_DIRS, REAR
from ..state import (
    A_CC_CHARGE, F_CC_WAIT,
    A_AFTER_ROLL, A_POST, A_RESOLVE, D_ADV_PICK, D_DEFENSE, D_FACE, D_RBS_ADVANCE, D_RETREAT, D_SHOCK_MODE,
    DISORDERED, F_ACTED, F_ADV, F_CA, F_CA_MODE, F_CC_NEGATE, F_CHARGING, F_DECLARED, F_DIS_IN_ATTACK, F_INCMD,
    F_MOVED, F_RBS_DONE, F_RESOLVED, F_START_ZOC, NORMAL, RETIRED,
)


class ShockMixin:
    # ---------------------------------------------------------- declaration
    def frontal_enemies(self, s, u: int, h: int | None = None, occ=None) -> list[int]:
        h = int(s.u_hex[u]) if h is None else h
        occ = occ if occ is not None else self.occupancy(s)
        p = self.uplayer[u]
        nbr = self.geo.nbr[h]
        out = []
        for d in FRONT_DIRS[int(s.u_face[u])]:
            t = nbr[d]
            if t >= 0 and occ[t] >= 0 and self.uplayer[occ[t]] != p and self.geo.hexside[h][d] != RIVER:
                out.append(occ[t])
        return out

    def targeted(self, s, p: int) -> set[int]:
        """Enemy units already named as targets of unresolved attacks by ``p``'s units."""
        tg = s.u_tgt.tolist()
        hexes = s.u_hex.tolist()
        fl = s.u_flags.tolist()
        out = set()
        for a in self.side_units[p]:
            if hexes[a] < 0:
                continue
            for d in tg[a]:
                if d >= 0 and not fl[d] & F_RESOLVED:
                    out.add(d)
        return out

    def charge_hexes(self, s, u: int, occ=None, zoc=None, targeted=None) -> list[int]:
        """11.1: hexes ``u`` may charge into: 1-2 steps through its frontal hexes (empty, no woods, no
        steep/river hexside, not through an enemy ZOC), ending with enemy units frontal, none of them
        already attacked; only H/M, not Disordered, in command, not started in an enemy ZOC, not adjacent
        to an enemy unit at the start of the combat part."""
        if self.utype[u] not in (H, M) or s.u_status[u] != NORMAL:
            return []
        fl = int(s.u_flags[u])
        if fl & F_START_ZOC or not fl & F_INCMD:
            return []
        p = self.uplayer[u]
        occ = occ if occ is not None else self.occupancy(s)
        x = int(s.u_hex[u])
        if self.adjacent_enemy(s, p, x, occ):
            return []
        zoc = zoc if zoc is not None else self.zoc_map(s, p)
        targeted = targeted if targeted is not None else self.targeted(s, p)
        geo = self.geo
        face = int(s.u_face[u])
        fd = FRONT_DIRS[face]
        woods = self.sc.woods
        out = []

        def ok_side(h: int, d: int) -> bool:
            return geo.hexside[h][d] not in (STEEP, RIVER)

        def ends(y: int) -> bool:
            enemies = []
            for d in fd:
                t = geo.nbr[y][d]
                if t >= 0 and occ[t] >= 0 and self.uplayer[occ[t]] != p:
                    if occ[t] in targeted or woods[t] or not ok_side(y, d):
                        return False
                    enemies.append(t)
            return bool(enemies)

        for d in fd:
            z = geo.nbr[x][d]
            if z < 0 or occ[z] >= 0 or woods[z] or not ok_side(x, d):
                continue
            if ends(z):
                out.append(z)
            if z in zoc:
                continue
            for d2 in fd:
                y = geo.nbr[z][d2]
                if y < 0 or occ[y] >= 0 or woods[y] or not ok_side(z, d2) or y in out:
                    continue
                if ends(y):
                    out.append(y)
        return out

    def shock_eligible(self, s, u: int) -> bool:
        if s.u_hex[u] < 0 or not self.ushock[u] or s.u_status[u] not in (NORMAL, DISORDERED):
            return False
        return not s.u_flags[u] & (F_DECLARED | F_RBS_DONE)

    def opt_shock_select(self, s, t) -> list[int]:
        p, c = t[1], t[2]
        base = self.AL.UNIT - self.side_first[p]
        occ = self.occupancy(s)
        zoc = None
        tgd = None
        opts = []
        for u in self.cmd_units[c]:
            if not self.shock_eligible(s, u):
                continue
            if self.frontal_enemies(s, u, occ=occ):
                opts.append(base + u)
                continue
            if self.utype[u] in (H, M):
                if zoc is None:
                    zoc = self.zoc_map(s, p)
                    tgd = self.targeted(s, p)
                if self.charge_hexes(s, u, occ, zoc, tgd):
                    opts.append(base + u)
        opts.append(self.AL.option("PASS"))
        return opts

    def do_shock_select(self, s, t, a, dice) -> None:
        p = t[1]
        if a == self.AL.option("PASS"):
            self.pop(s)
            return
        self.push(s, D_SHOCK_MODE, p, a - self.AL.UNIT + self.side_first[p])

    def opt_shock_mode(self, s, t) -> list[int]:
        u = t[2]
        if not self.shock_eligible(s, u):
            return []
        p = self.uplayer[u]
        fe = self.frontal_enemies(s, u)
        tgd = self.targeted(s, p)
        opts = []
        if fe:
            opts.append(self.AL.option("SHOCK_ALL"))
            un = [d for d in fe if d not in tgd]
            if un and len(un) < len(fe):
                opts.append(self.AL.option("SHOCK_UNATTACKED"))
        opts += self.charge_hexes(s, u, targeted=tgd)
        return opts

    def do_shock_mode(self, s, t, a, dice) -> None:
        p, u = t[1], t[2]
        self.pop(s)
        s.u_flags[u] |= F_DECLARED | F_ACTED
        if a == self.AL.option("SHOCK_ALL") or a == self.AL.option("SHOCK_UNATTACKED"):
            fe = self.frontal_enemies(s, u)
            if a == self.AL.option("SHOCK_UNATTACKED"):
                tgd = self.targeted(s, p)
                fe = [d for d in fe if d not in tgd]
            s.u_tgt[u] = (fe + [-1, -1])[:2]
            for d in fe:
                s.u_flags[d] &= ~F_RESOLVED
            s.log.append(f"{self.uname(s, u)} will Shock " + ", ".join(self.uname(s, d) for d in fe) + " [10.0]")
            return
        x = int(s.u_hex[u])
        s.u_flags[u] |= F_CHARGING
        self.enter(s, u, a, dice)
        fe = self.frontal_enemies(s, u)
        s.u_tgt[u] = (fe + [-1, -1])[:2]
        for d in fe:
            s.u_flags[d] &= ~F_RESOLVED
        s.log.append(f"{TYPES[self.utype[u]]} {self.hid(x)} Charges into {self.hid(a)} against "
                     + ", ".join(self.uname(s, d) for d in fe) + " [11.1]")
        self.trigger_reaction(s, u, a)

    # ------------------------------------------------------------ resolution
    def attackers_of(self, s, d: int) -> list[int]:
        if s.u_hex[d] < 0:
            return []
        hexes = s.u_hex.tolist()
        st = s.u_status.tolist()
        fl = s.u_flags.tolist()
        dist = self.geo.dist
        dh = hexes[d]
        out = []
        for a in self.side_units[1 - self.uplayer[d]]:
            h = hexes[a]
            if h < 0 or st[a] not in (NORMAL, DISORDERED) or fl[a] & F_RBS_DONE:
                continue
            if d in s.u_tgt[a].tolist() and dist[h, dh] == 1:
                out.append(a)
        return out

    def attack_party(self, s, d: int, ca: int) -> list[int]:
        """The units attacking ``d``: its declared attackers (:meth:`attackers_of`), or for a Continued
        Attack (12.4) by unit ``ca`` that unit alone: units whose earlier attack named ``d`` (resolved,
        the defender since retreated next to the continuing unit) take no part in it."""
        if ca < 0:
            return self.attackers_of(s, d)
        h, dh = int(s.u_hex[ca]), int(s.u_hex[d])
        if h < 0 or dh < 0 or s.u_status[ca] not in (NORMAL, DISORDERED) or self.geo.dist[h, dh] != 1 \
                or d not in s.u_tgt[ca].tolist():
            return []
        return [ca]

    def opt_resolve_pick(self, s, t) -> list[int]:
        p = t[1]
        hexes = s.u_hex.tolist()
        out = set()
        for d in self.targeted(s, p):
            if hexes[d] >= 0 and self.attackers_of(s, d):
                out.add(hexes[d])
        return sorted(out)

    def do_resolve_pick(self, s, t, a, dice) -> None:
        p = t[1]
        d = int(s.hex_unit[a])
        self.push(s, A_RESOLVE, p, d, -1, 0)
        self.push(s, D_DEFENSE, 1 - p, d)

    def rbs_hexes(self, s, d: int, attackers: list[int]) -> list[int]:
        """10.1 Retreat Before Shock: horse (not Disordered) attacked by leg units only; light cavalry (not
        Disordered) attacked by horse. One hex away, not into an enemy ZOC or an occupied hex."""
        if s.u_status[d] != NORMAL or not self.uhorse[d]:
            return []
        if self.utype[d] == L and any(self.uhorse[a] for a in attackers):
            pass
        elif all(not self.uhorse[a] for a in attackers):
            pass
        else:
            return []
        hexes = s.u_hex.tolist()
        return [y for y, bc in self.retreat_options(s, d, [hexes[a] for a in attackers], allow_zoc=False) if bc < 0]

    def cc_shock_facings(self, s, d: int, attackers: list[int]) -> list[int]:
        """11.3: H/M attacked through front or flank may counter-charge (changing facing once)."""
        if not attackers or not self.cc_eligible(s, d, attackers):
            return []
        x = int(s.u_hex[d])
        face = int(s.u_face[d])
        for a in attackers:
            if CAT[face][self.geo.dirs_to[x][int(s.u_hex[a])][0]] == REAR:
                return []
        out = []
        for f in range(6):
            fr = self.geo.frontal(x, f)
            if any(int(s.u_hex[a]) in fr for a in attackers):
                out.append(f)
        return out

    def opt_defense(self, s, t) -> list[int]:
        d = t[2]
        att = self.attack_party(s, d, t[3])
        if not att:
            return []
        opts = self.rbs_hexes(s, d, att) + [self.AL.FACE + f for f in self.cc_shock_facings(s, d, att)]
        return opts + [self.AL.option("NO")] if opts else []

    def do_defense(self, s, t, a, dice) -> None:
        q, d = t[1], t[2]
        self.pop(s)
        if a == self.AL.option("NO"):
            return
        att = self.attack_party(s, d, t[3])
        x = int(s.u_hex[d])
        if a < self.N:
            dis = False
            if self.utype[d] == L and any(self.uhorse[u] for u in att):
                dr = dice.roll(10, low=0)
                adj = dr + self.udef[d]
                dis = adj > self.sc.tests["lc_retreat_ok_max"]
                s.log.append(f"{self.uname(s, d)} retreats before shock: DR {dr} {self.udef[d]:+d} = {adj} -> "
                             f"{'Disordered' if dis else 'clean'} [10.1]")
            else:
                s.log.append(f"{self.uname(s, d)} retreats before shock [10.1]")
            for u in att:
                tg = s.u_tgt[u].tolist()
                s.u_tgt[u] = [-1 if v == d else v for v in tg]
            s.u_flags[d] |= F_RESOLVED
            self.enter(s, d, a, dice)
            if dis:
                s.u_status[d] = DISORDERED
            self.push(s, D_RBS_ADVANCE, 1 - q, x, *att[:6])
            self.push(s, D_FACE, q, d)
            return
        f = a - self.AL.FACE
        face = int(s.u_face[d])
        flank = any(CAT[face][self.geo.dirs_to[x][int(s.u_hex[u])][0]] == FLANK for u in att)
        if not self.cc_roll(s, d, flank, dice):
            return
        s.u_face[d] = f
        if any(self.utype[u] in (H, M) for u in att):
            s.u_flags[d] |= F_CC_NEGATE
            s.log.append("the counter-charge negates the attackers' charge bonus [11.3]")
            return
        fr = self.geo.frontal(x, f)
        enemy = next(u for u in att if int(s.u_hex[u]) in fr)
        for u in att:
            tg = s.u_tgt[u].tolist()
            s.u_tgt[u] = [-1 if v == d else v for v in tg]
        s.u_flags[d] |= F_RESOLVED
        s.log.append(f"{self.uname(s, d)} counter-charges {self.uname(s, enemy)} and becomes the attacker [11.3]")
        self.push(s, A_RESOLVE, q, enemy, d, 1)

    def battle_group(self, s, d: int, attackers: list[int]) -> tuple[set[int], set[int]]:
        """Attackers and defenders linked to ``d`` through declared targets (10.2 Strength Advantage).
        Declared defenders count even once resolved (10.2 play note: 1 unit attacking 2 rolls twice,
        each with -1)."""
        p = 1 - self.uplayer[d]
        tg = s.u_tgt.tolist()
        hexes = s.u_hex.tolist()
        fl = s.u_flags.tolist()
        atk, dfn = set(attackers), {d}
        live = [a for a in self.side_units[p] if hexes[a] >= 0 and not fl[a] & F_RBS_DONE]
        changed = True
        while changed:
            changed = False
            for a in live:
                ts = [v for v in tg[a] if v >= 0]
                if a in atk:
                    for v in ts:
                        if v not in dfn:
                            dfn.add(v)
                            changed = True
                elif any(v in dfn for v in ts):
                    atk.add(a)
                    changed = True
        return atk, dfn

    def auto_resolve(self, s, t, dice) -> None:
        """Resolve the attack on ``d`` (task: player, defender, counter-charger or -1, flag, unit making a
        Continued Attack or -1)."""
        p, d, cc, ca = t[1], t[2], t[3], t[5]
        if s.u_hex[d] < 0:
            return
        if cc >= 0:
            if s.u_hex[cc] < 0 or self.geo.dist[int(s.u_hex[cc]), int(s.u_hex[d])] != 1:
                return
            att = [cc]
            charging = {cc} if s.u_status[cc] == NORMAL and self.utype[cc] in (H, M) else set()
            group_a, group_d = {cc}, {d}
        else:
            att = self.attack_party(s, d, ca)
            if not att:
                s.u_flags[d] |= F_RESOLVED
                return
            charging = {a for a in att if s.u_flags[a] & F_CHARGING}
            if ca >= 0:
                # 12.4, 10.2 item 1: a Continued Attack is its own battle: the continuing unit against
                # the enemies it now attacks (clarification C26)
                group_a, group_d = {ca}, {v for v in s.u_tgt[ca].tolist() if v >= 0}
            else:
                group_a, group_d = self.battle_group(s, d, att)
        sc = self.sc
        sd = sc.shock_drm
        x = int(s.u_hex[d])
        face = int(s.u_face[d])
        dstat = int(s.u_status[d])
        # 11.2 Charge Reluctance
        if cc < 0 and self.utype[d] == R:
            fr = self.geo.frontal(x, face)
            for a in sorted(charging):
                if int(s.u_hex[a]) in fr:
                    dr = dice.roll(10, low=0)
                    ok = dr <= sc.tests["reluctance_ok_max"]
                    s.log.append(f"Charge reluctance {self.uname(s, a)} vs R: DR {dr} -> {'charges home' if ok else 'blunted: shocks without the charge'} [11.2]")
                    if not ok:
                        charging.discard(a)
                        s.u_flags[a] &= ~F_CHARGING
        negate = bool(s.u_flags[d] & F_CC_NEGATE)
        use_charge = bool(charging) or negate
        mods: list[tuple[int, str]] = []
        diff = len(group_a) - len(group_d)
        if diff:
            mods.append((diff, "strength"))
        cats = {CAT[face][self.geo.dirs_to[x][int(s.u_hex[a])][0]] for a in att}
        if len(cats) >= 2:
            mods.append((sd["combination"], "angle: combination"))
        elif FLANK in cats:
            mods.append((sd["flank"], "angle: flank"))
        elif REAR in cats:
            mods.append((sd["rear"], "angle: rear"))
        te = sc.terrain
        if sc.woods[x]:
            horse = all(self.uhorse[a] for a in att)
            mods.append((te["woods_shock_drm_horse"] if horse else te["woods_shock_drm"], "woods"))
        up = 0
        for a in att:
            ah = int(s.u_hex[a])
            f = self.geo.hexside[ah][self.geo.dirs_to[ah][x][0]]
            if sc.elev[x] > sc.elev[ah]:
                up = min(up, te["steep_upslope_shock_drm"] if f == STEEP else te["upslope_shock_drm"] if f == SLOPE else 0)
        if up:
            mods.append((up, "upslope"))
        mods.append((self.defense(s, d), "defense"))
        if use_charge and not negate and charging:
            best = max(charging, key=lambda a: (sd["charge_h"] if self.utype[a] == H else sd["charge_m"], -a))
            mods.append((sd["charge_h"] if self.utype[best] == H else sd["charge_m"], f"charging {TYPES[self.utype[best]]}"))
            if s.u_flags[best] & F_MOVED:
                mods.append((sd["charger_moved"], "charger moved"))
        hexes_a = {int(s.u_hex[a]) for a in group_a}
        hexes_d = {int(s.u_hex[v]) for v in group_d if s.u_hex[v] >= 0}
        if any(self.leaders_at(s, h, p) for h in hexes_a):
            mods.append((sd["leader_attacker"], "leader with attacker"))
        if any(self.leaders_at(s, h, 1 - p) for h in hexes_d):
            mods.append((sd["leader_defender"], "leader with defender"))
        wsm = max(sc.wsm[self.utype[a]][self.utype[d]] for a in att)
        if wsm:
            mods.append((wsm, "weapons matrix"))
        if all(s.u_status[a] != NORMAL for a in att):
            mods.append((sd["attacker_disordered"], "attacker disordered"))
        if dstat == RETIRED:
            mods.append((sd["defender_retired"], "defender retired"))
        if cc < 0:
            prev = max((int(s.u_attacks[a]) for a in att if s.u_flags[a] & F_CA_MODE), default=0)
            if prev:
                mods.append((sd["continued_attack_per_attack"] * prev, "continued attack"))
        dr = dice.roll(10, low=0)
        total = dr + sum(m for m, _ in mods)
        row = min(max(total, 0), 11)
        col_dis = dstat != NORMAL
        table = (sc.charge_dis if col_dis else sc.charge_normal) if use_charge else (sc.shock_dis if col_dis else sc.shock_normal)
        res = table[row]
        if cc >= 0:
            res &= ~CA  # counter-charge: no continued attack (clarification 11.3)
        kind = "Counter-charge" if cc >= 0 else ("Charge" if use_charge else "Shock")
        s.log.append(f"{kind} {'+'.join(self.uname(s, a) for a in att)} vs {self.uname(s, d)}: DR {dr}"
                     + "".join(f" {m:+d} ({n})" for m, n in mods if m) + f" = {total} -> {result_str(res)} "
                     f"[{'11.3' if cc >= 0 else '11.1' if use_charge else '10.2'}]")
        for a in att:
            s.u_attacks[a] += 1
        s.u_flags[d] |= F_RESOLVED
        s.u_flags[d] &= ~F_CC_NEGATE
        # defender results
        vacated = -1
        if res & (DD | RT | EL):
            self.leader_check_shock(s, d, dice)
        if res & EL:
            self.eliminate(s, d, dice)
            vacated = x
        elif res & RT:
            self.retire(s, d, dice)
            vacated = x
        elif res & DD:
            self.disorder(s, d, dice)
            if s.u_hex[d] != x:
                vacated = x
        retreats = []
        if res & DR and s.u_hex[d] == x and s.u_status[d] != RETIRED:
            retreats.append((1 - p, d, 1, x, ca))
            vacated = x
        # attacker results
        for a in att:
            if res & AD:
                s.u_flags[a] |= F_DIS_IN_ATTACK
                self.leader_check_shock(s, a, dice)
                self.disorder(s, a, dice)
            if res & AR and s.u_hex[a] >= 0 and s.u_status[a] != RETIRED:
                retreats.append((p, a, 0, x, -1))
        self.push(s, A_AFTER_ROLL, p, d, cc, vacated, int(bool(res & CA)), ca)
        for (who, u, mode, ref, by) in reversed(retreats):
            self.push(s, D_RETREAT, who, u, mode, ref, by)

    def auto_after_roll(self, s, t, dice) -> None:
        """10.3 / 12.4: name the unit that advances (or continues the attack) into the vacated hex; units
        that have finished all their attacks then advance (``A_POST``)."""
        p, d, cc, vac, ca, ca_unit = t[1], t[2], t[3], t[4], t[5], t[6]
        fl_all = s.u_flags.tolist()
        ccv = s.u_ccv.tolist()
        for w in self.side_units[p]:
            if fl_all[w] & F_CC_WAIT and ccv[w] == d:
                s.u_flags[w] &= ~F_CC_WAIT
                if s.u_hex[d] >= 0:
                    self.push(s, A_CC_CHARGE, p, w, d)
        if cc >= 0:
            att = [cc]
        elif ca_unit >= 0:
            att = [ca_unit]  # 12.4: only the continuing unit took part
        else:
            att = [a for a in self.side_units[p] if d in s.u_tgt[a].tolist()]
        if vac >= 0 and s.hex_unit[vac] < 0:
            cands = [a for a in att if s.u_hex[a] >= 0 and s.u_status[a] in (NORMAL, DISORDERED)
                     and self.geo.dist[int(s.u_hex[a]), vac] == 1 and (ca or not s.u_flags[a] & F_DIS_IN_ATTACK)]
            if cands:
                best = min(self.udef[a] for a in cands)
                tied = [a for a in cands if self.udef[a] == best]
                flag = F_CA if ca else F_ADV
                if len(tied) == 1:
                    s.u_flags[tied[0]] |= flag
                    s.u_vac[tied[0]] = vac
                else:
                    self.push(s, A_AFTER_ROLL, p, d, cc, -1, 0, ca_unit)  # re-run for the posts after the pick
                    self.push(s, D_ADV_PICK, p, vac, flag, *tied[:6])
                    return
        tg = s.u_tgt.tolist()
        hexes = s.u_hex.tolist()
        fl = s.u_flags.tolist()
        for a in reversed(att):
            if hexes[a] < 0:
                continue
            pending = [v for v in tg[a] if v >= 0 and hexes[v] >= 0 and not fl[v] & F_RESOLVED]
            if not pending and fl[a] & (F_ADV | F_CA):
                self.push(s, A_POST, p, a)

    def opt_adv_pick(self, s, t) -> list[int]:
        p = t[1]
        base = self.AL.UNIT - self.side_first[p]
        return [base + u for u in t[4:] if u >= 0 and s.u_hex[u] >= 0]

    def do_adv_pick(self, s, t, a, dice) -> None:
        p, vac, flag = t[1], t[2], t[3]
        self.pop(s)
        u = a - self.AL.UNIT + self.side_first[p]
        s.u_flags[u] |= flag
        s.u_vac[u] = vac

    def auto_post(self, s, t, dice) -> None:
        p, a = t[1], t[2]
        fl = int(s.u_flags[a])
        vac = int(s.u_vac[a])
        s.u_flags[a] &= ~(F_ADV | F_CA)
        if s.u_hex[a] < 0 or s.u_status[a] not in (NORMAL, DISORDERED) or vac < 0 or s.hex_unit[vac] >= 0 \
                or self.geo.dist[int(s.u_hex[a]), vac] != 1:
            return
        if fl & F_CA:
            s.log.append(f"{self.uname(s, a)} advances to {self.hid(vac)} to continue the attack [12.4]")
            self.enter(s, a, vac, dice)
            tgd = self.targeted(s, p)
            fe = [v for v in self.frontal_enemies(s, a) if v not in tgd]
            if not fe:
                return
            s.u_flags[a] |= F_CA_MODE
            s.u_flags[a] &= ~F_CHARGING  # 11.1: a continued attack is regular Shock
            s.u_tgt[a] = (fe + [-1, -1])[:2]
            for v in reversed(fe):
                s.u_flags[v] &= ~F_RESOLVED
                self.push(s, A_RESOLVE, p, v, -1, 0, a)
                self.push(s, D_DEFENSE, 1 - p, v, a)
            return
        if fl & F_ADV and not fl & F_DIS_IN_ATTACK:
            s.log.append(f"{self.uname(s, a)} advances to {self.hid(vac)} [10.3]")
            self.enter(s, a, vac, dice)
            self.push(s, D_FACE, p, a)

    def opt_rbs_advance(self, s, t) -> list[int]:
        p, vac = t[1], t[2]
        if s.hex_unit[vac] >= 0:
            return []
        base = self.AL.UNIT - self.side_first[p]
        opts = [base + u for u in t[3:] if u >= 0 and s.u_hex[u] >= 0 and s.u_status[u] in (NORMAL, DISORDERED)
                and self.geo.dist[int(s.u_hex[u]), vac] == 1]
        return opts + [self.AL.option("NO")] if opts else []

    def do_rbs_advance(self, s, t, a, dice) -> None:
        p, vac = t[1], t[2]
        self.pop(s)
        if a == self.AL.option("NO"):
            return
        u = a - self.AL.UNIT + self.side_first[p]
        s.log.append(f"{self.uname(s, u)} advances into {self.hid(vac)}; it may not shock this activation [10.1]")
        self.enter(s, u, vac, dice)
        s.u_flags[u] |= F_RBS_DONE
        s.u_tgt[u] = -1

