"""Combat (8.0): obligations (8.11, 8.12, 8.21), building attacks (8.13, 8.22, 8.23), odds and the
Combat Results Table (8.0, 8.6), terrain (8.4), leaders (10.1), charges (12.5 + reference 6).

An attack is a set of attacking units and a set of defending units in which every attacker is adjacent to
every defender (8.15, 8.21, 8.22). The active corps' undisrupted units that are in an enemy ZOC when the
combat phase starts must attack (8.12), and every undisrupted enemy unit next to them must be attacked
unless it is also next to an inactive undisrupted friendly unit (8.11, 8.21). The mask keeps every choice
on a path that can still meet all obligations: an attack may only be resolved if each obligated unit left
out still has an unengaged opponent next to it (a cover by "star" attacks then always exists), and a unit
may only be added if the attack can still be completed that way (:func:`closure`).
"""

from __future__ import annotations

from . import demoralization
from .disruption import disrupt, eliminate
from .state import (AC_ATT_LEADERS, AC_CHARGE, AC_DEF_LEADERS, F_ATK, F_CHARGE, F_DEF, F_IN_ATK, F_MOVED,
                    F_MUST_ATK, F_MUST_DEF, F_PHASE_CLEAR, F_SPENT, G_ACTIVE, G_ATTACK, G_VIS, G_VIS_OPT)
from .zoc import Snap, in_enemy_zoc

CTX_CACHE_SIZE = 16
BUILDING_FLAGS = F_IN_ATK | F_CHARGE    # set while an attack is built and rolled; _engagement reads neither


class Ctx:
    """Per-call combat view: who may attack, who is obligated, who is in the attack being built."""

    __slots__ = ("D", "s", "snap", "side", "active", "adj", "elig", "o1", "o2", "sa", "sd", "avail_def")

    def __init__(self, D, s, snap: Snap | None = None):
        self.D, self.s = D, s
        self.snap = snap = snap or Snap(D, s)
        self.active = active = int(s.g[G_ACTIVE])
        self.side = side = D.corps_side[active]
        self.adj = D.adjset
        self.elig, self.o1, self.o2, self.avail_def = _engagement(D, s, snap, active, side)
        unit_side = D.unit_side
        members = [u for u, f in enumerate(snap.uf) if f & F_IN_ATK and snap.uh[u] >= 0]
        self.sa = {u for u in members if unit_side[u] == side}
        self.sd = {u for u in members if unit_side[u] != side}

    def is_active(self, u: int) -> bool:
        return self.D.unit_corps[u] == self.active

    def adjacent(self, u: int, v: int) -> bool:
        return self.snap.uh[v] in self.adj[self.snap.uh[u]]

    def neighbours(self, u: int) -> list[int]:
        at = self.snap.at
        return [at[j] for j in self.D.grid.adjacent[self.snap.uh[u]] if at[j] >= 0]

    # ------------------------------------------------------------------ feasibility
    def closure(self, sa: set[int], sd: set[int]):
        """Add the units any completion must include; None if the attack cannot meet the obligations."""
        sa, sd = set(sa), set(sd)
        while True:
            changed = False
            for o in self.o1:
                if o in sa:
                    continue
                if not any(e in self.avail_def and e not in sd for e in self.neighbours(o)):
                    if not sd or not all(self.adjacent(o, d) for d in sd) or o not in self.elig:
                        return None
                    sa.add(o)
                    changed = True
            for o in self.o2:
                if o in sd:
                    continue
                if not any(a in self.elig and a not in sa and self.is_active(a) for a in self.neighbours(o)):
                    if not all(self.adjacent(a, o) for a in sa):
                        return None
                    sd.add(o)
                    changed = True
            if not changed:
                return sa, sd

    def completable(self, sa: set[int], sd: set[int]) -> bool:
        r = self.closure(sa, sd)
        if r is None:
            return False
        sa2, sd2 = r
        if not sd2:
            return False
        if any(self.is_active(a) for a in sa2):
            return True
        for a in self.elig:
            if a not in sa2 and self.is_active(a) and all(self.adjacent(a, d) for d in sd2):
                if self.closure(sa2 | {a}, sd2) is not None:
                    return True
        return False

    def can_resolve(self) -> bool:
        if not self.sd or not any(self.is_active(a) for a in self.sa):
            return False
        r = self.closure(self.sa, self.sd)
        return r is not None and r[0] == self.sa and r[1] == self.sd

    def obligations_left(self) -> bool:
        return bool(self.o1 or self.o2)

    def start_candidates(self) -> list[int]:
        """Enemy units an attack may be declared on now: next to an eligible unit of the active corps,
        and the attack can still meet every obligation."""
        near = {e for a in self.elig if self.is_active(a) for e in self.neighbours(a) if e in self.avail_def}
        return [e for e in sorted(near) if self.completable(set(), {e})]

    def add_candidates(self) -> list[int]:
        """Units (friendly attackers or enemy defenders) that may join the attack being built."""
        out = []
        seen = set()
        members = list(self.sa) + list(self.sd)
        for m in members:
            for v in self.neighbours(m):
                if v in seen or v in self.sa or v in self.sd:
                    continue
                seen.add(v)
                if self.D.unit_side[v] == self.side:
                    if v in self.elig and all(self.adjacent(v, d) for d in self.sd):
                        if self.completable(self.sa | {v}, self.sd):
                            out.append(v)
                else:
                    if v in self.avail_def and all(self.adjacent(a, v) for a in self.sa):
                        if self.completable(self.sa, self.sd | {v}):
                            out.append(v)
        return out

    def charge_eligible(self) -> list[int]:
        return [a for a in self.sa if can_charge(self.D, self.s, self.snap, a, self.sd)]


def _engagement(D, s, snap: Snap, active: int, side: int):
    """(eligible attackers, attackers obliged to attack, defenders that must be attacked, defenders not
    attacked yet) of the active corps: :func:`_find_engagement`, memoised on the unit arrays without
    the marks of the attack being built (the sets stay the same while it is built), the active corps
    and the cup. The results are shared: never modify them."""
    key = (s.buf[:2 * D.n_units].tobytes(), (s.u_flags & ~BUILDING_FLAGS).tobytes(), active, s.cup.tobytes())
    cache = D.ctx_cache
    found = cache.get(key)
    if found is None:
        if len(cache) >= CTX_CACHE_SIZE:
            del cache[next(iter(cache))]     # the oldest
        found = cache[key] = _find_engagement(D, s, snap, active, side)
    return found


def _find_engagement(D, s, snap: Snap, active: int, side: int):
    """:func:`_engagement` computed (8.11, 8.12, 8.14, 8.23)."""
    uh, ud, uf = snap.uh, snap.ud, snap.uf
    unit_corps = D.unit_corps
    cup = s.cup.tolist()
    elig, o1 = set(), []
    for u in D.side_units[side]:
        h = uh[u]
        if h < 0 or ud[u]:
            continue
        f = uf[u]
        if not f & (F_ATK | F_SPENT):
            c = unit_corps[u]
            if c == active or (cup[c] and not in_enemy_zoc(D, snap, h, side)):
                elig.add(u)               # 8.23: not yet activated, not in an enemy ZOC
        if f & F_MUST_ATK and not f & F_ATK:
            o1.append(u)
    avail_def = {u for u in D.side_units[1 - side] if uh[u] >= 0 and not uf[u] & F_DEF}
    o2 = [u for u in D.side_units[1 - side] if u in avail_def and uf[u] & F_MUST_DEF]
    return elig, o1, o2, avail_def


def can_charge(D, s, snap: Snap, a: int, sd) -> bool:
    """Reference 6 (Charge) with 12.5 and the restricted-visibility limit."""
    if D.unit_kind[a] != 1 or snap.ud[a]:
        return False
    st = int(s.u_start[a])
    if D.unit_corps[a] != int(s.g[G_ACTIVE]) or st < 0 or D.grid.dist[st, snap.uh[a]] < D.charge_min_hexes:
        return False
    swede = D.army_ids[D.unit_army[a]] == "swedes"
    for d in sd:
        if D.unit_kind[d] == 1 and not snap.ud[d]:
            continue
        if swede and ((D.unit_kind[d] == 1 and snap.ud[d]) or demoralization.is_demoralized(s, D.unit_army[d])):
            continue                                  # 12.5
        return False
    if s.g[G_VIS_OPT] and s.g[G_VIS] == 2:
        h = snap.uh[a]
        side = D.unit_side[a]
        if not any(lh >= 0 and D.leader_side[l] == side and D.grid.dist[lh, h] <= 1
                   for l, lh in enumerate(s.l_hex.tolist())):
            return False
    return True


def start_phase(D, s) -> None:
    """Combat phase start: clear per-phase marks, fix the obligations (8.11, 8.12)."""
    s.u_flags[:] &= ~F_PHASE_CLEAR
    snap = Snap(D, s)
    active = int(s.g[G_ACTIVE])
    side = D.corps_side[active]
    at, ud, uh = snap.at, snap.ud, snap.uh
    adj = D.grid.adjacent
    must_def = set()
    for u in D.corps_units[active]:
        h = uh[u]
        if h < 0 or ud[u] or snap.uf[u] & F_SPENT:
            continue
        engaged = False
        for j in adj[h]:
            e = at[j]
            if e >= 0 and D.unit_side[e] != side and not ud[e]:
                engaged = True
                must_def.add(e)
        if engaged:
            s.u_flags[u] |= F_MUST_ATK
    for e in must_def:
        # 8.11 exception: an enemy next to an inactive undisrupted friendly unit may be ignored
        if any(at[j] >= 0 and D.unit_side[at[j]] == side and not ud[at[j]] and D.unit_corps[at[j]] != active
               for j in adj[uh[e]]):
            continue
        s.u_flags[e] |= F_MUST_DEF


def combat_leaders(D, s, snap: Snap, units, attacking: bool) -> dict[int, int]:
    """hex -> the best leadership value that may be added to the unit there (10.11, 10.13: one leader per
    unit), for the hexes of ``units``. An attacker gets only leaders of the activated corps (4.1 C: "units
    and Leader counters from an activated Corps" attack); a defender any leader of its side."""
    hexes = {snap.uh[u] for u in units}
    side = D.unit_side[next(iter(units))] if units else -1
    active = int(s.g[G_ACTIVE])
    out: dict[int, int] = {}
    for l, h in enumerate(s.l_hex.tolist()):
        if h in hexes and D.leader_side[l] == side and (not attacking or D.leader_corps[l] == active):
            out[h] = max(out.get(h, 0), D.leader_value[l])
    return out


def strengths(D, s, snap: Snap, sa, sd, charging, leaders=(True, True)) -> tuple[int, int, list[str]]:
    """(attack, defence) in half strength points, and notes. ``leaders``: whether the attacker and the
    defender add their leaders' values (10.11, the owner's option)."""
    lv_a = combat_leaders(D, s, snap, sa, True) if leaders[0] else {}
    lv_d = combat_leaders(D, s, snap, sd, False) if leaders[1] else {}
    any_dis_def = any(snap.ud[d] for d in sd)
    notes = []
    att = 0
    for a in sorted(sa):
        h = snap.uh[a]
        v = D.unit_strength[a] + lv_a.get(h, 0)       # 10.11, 10.12
        if a in charging and not any_dis_def:
            v *= D.charge_mult
        att += 2 * v
    if charging:
        notes.append("charge" + (" (not doubled against disrupted units, 9.13)" if any_dis_def else ""))
    all_slope = all(D.is_slope[snap.uh[a]] for a in sa)
    dfn = 0
    for d in sorted(sd):
        h = snap.uh[d]
        lv = lv_d.get(h, 0)
        v2 = 2 * D.unit_dstrength[d] + lv if snap.ud[d] else 2 * (D.unit_strength[d] + lv)   # 9.13, 10.12
        m = D.defense_mult[h]
        if m > 1 and D.defense_needs_slope[h] and not all_slope:
            m = 1
        if m > 1:
            notes.append(f"{D.grid.ids[h]} {D.hex_terrain_name[h]} x{m}")
        dfn += v2 * m                                 # 8.4
    return att, dfn, notes


def odds_column(D, att2: int, def2: int) -> int:
    """Index of the CRT column: the highest odds not above att:def (rounded for the defender, 8.0)."""
    col = 0
    for i, lab in enumerate(D.crt_columns):
        x, y = lab.split("-")
        if att2 * int(y) >= def2 * int(x):
            col = i
    return col


def fmt_sp(v2: int) -> str:
    return str(v2 // 2) if v2 % 2 == 0 else f"{v2 / 2:g}"


def declare(D, s, charge: bool) -> None:
    """The attacker resolves the attack being built, with (``RESOLVE_CHARGE``) or without a charge: the
    charging units are marked; the leaders' choices (10.11) come next, then :func:`resolve`."""
    ctx = Ctx(D, s)
    if charge:
        for a in ctx.charge_eligible():
            s.u_flags[a] |= F_CHARGE
    s.g[G_ATTACK] = AC_CHARGE if charge else 0


def resolve(D, s, dice) -> tuple[str, int]:
    """Roll for the attack declared (:func:`declare`) with the leaders' values the players chose to add.
    Returns (result, side that must choose a unit to disrupt or -1)."""
    snap = Snap(D, s)
    ctx = Ctx(D, s, snap)
    sa, sd = set(ctx.sa), set(ctx.sd)
    charging = {a for a in sa if snap.uf[a] & F_CHARGE}
    choices = int(s.g[G_ATTACK])
    s.g[G_ATTACK] = 0
    att, dfn, notes = strengths(D, s, snap, sa, sd, charging,
                                (bool(choices & AC_ATT_LEADERS), bool(choices & AC_DEF_LEADERS)))
    col = odds_column(D, att, dfn)
    die = dice.roll(6)
    res = D.crt[die - 1][col]
    active = int(s.g[G_ACTIVE])
    for a in sa:
        f = F_ATK | (F_CHARGE if a in charging else 0)
        if D.unit_corps[a] != active:
            f |= F_SPENT | F_MOVED                       # 8.23
        s.u_flags[a] |= f
    for d in sd:
        s.u_flags[d] |= F_DEF
    dh = "+".join(sorted(D.grid.ids[snap.uh[d]] for d in sd))
    ah = "+".join(sorted(D.grid.ids[snap.uh[a]] for a in sa))
    extra = f" ({'; '.join(notes)})" if notes else ""
    s.log.append(f"Attack on {dh} by {ah}: {fmt_sp(att)} vs {fmt_sp(dfn)} = {D.crt_columns[col]}{extra}, "
                 f"die {die} -> {res} [8.0, 8.6]")
    side = D.unit_side[next(iter(sa))]
    if res == "Ae":
        for a in sorted(sa):
            eliminate(D, s, a, "Ae [8.6]")
    elif res == "De":
        for d in sorted(sd):
            eliminate(D, s, d, "De [8.6]")
    elif res == "Ad":
        for a in sorted(sa):
            disrupt(D, s, a, "Ad")
    elif res == "Dd":
        for d in sorted(sd):
            disrupt(D, s, d, "Dd")
    elif res == "Ax":
        for a in sorted(sa):
            disrupt(D, s, a, "Ax")
        left = [d for d in sorted(sd) if s.u_hex[d] >= 0]
        if len(left) > 1:
            return res, 1 - side
        for d in left:
            disrupt(D, s, d, "Ax, the defender's unit")
    elif res == "Dx":
        for d in sorted(sd):
            disrupt(D, s, d, "Dx")
        left = [a for a in sorted(sa) if s.u_hex[a] >= 0]
        if len(left) > 1:
            return res, side
        for a in left:
            disrupt(D, s, a, "Dx, the attacker's unit")
    return res, -1


def loss_candidates(D, s, loss_side: int) -> list[int]:
    return [u for u in range(D.n_units)
            if s.u_flags[u] & F_IN_ATK and s.u_hex[u] >= 0 and D.unit_side[u] == loss_side]


def finish(D, s, res: str) -> None:
    """After the result (and any Ax/Dx choice): charge disruption, clear the attack marks."""
    if res not in ("Dd", "De"):
        for u, f in enumerate(s.u_flags.tolist()):   # disrupt() never changes flags
            if f & F_CHARGE and s.u_hex[u] >= 0 and not s.u_dis[u]:
                r = disrupt(D, s, u, "charge")
                s.log.append(f"{D.unit_label[u]} {D.grid.ids[int(s.u_hex[u])] if s.u_hex[u] >= 0 else ''} "
                             f"{r} after its charge (result {res}) [12.5]")
    s.u_flags[:] &= ~(F_IN_ATK | F_CHARGE)
