"""A scripted heuristic player for ``berestechko_v0`` (either side).

It reads only the public position (Berestechko has no hidden information) through the engine's
public pieces: the legal mask, ``engine.codec.decode``, the state arrays, ``engine.destinations``,
``combat.resistance`` and ``combat.retreat_options``. Every judgement is an expected value in
victory points (VP) computed from the exact distribution of the combat result ``CR = AV - DV``
(sums of the dice each side throws, 8.1.4, 8.2.4).

Tactics, decision by decision:

* **Concentrate declared attacks where the odds are good** (6.1.1, 8.1.2, 8.2.2). An attack is
  declared only if its expected VP gain is positive; then adjacent units are added one at a time,
  each for one interaction command, while the added die raises the expected gain by more than the
  command is worth (so units join exactly when they make the expected CR beat the defender's
  resistance). Artillery support (6.1.2) is bought by the same rule.
* **Keep a reserve of commands.** An additional activation (2 interaction, 6.1.3) is bought only
  with spare commands (a full track) and only for a strong attack; a recovery (3 reconnaissance,
  6.2.1) is bought as soon as the track allows it, the Tatars (combat spirit) first. Dice 1/6 raise
  interaction to 2 first, then keep one reconnaissance for the loss-or-retreat choice.
* **Shoot before charging.** Infantry fire costs nothing when it fails (8.2.4): infantry shoots at
  every adjacent enemy it can, and between equal dice the agent activates shooters first.
* **Attack weakened units.** Disorganized units (resistance 3) and units whose retreat is blocked
  (a retreat then costs a loss or destroys them, 8.1.7) give the largest expected gains.
* **Prefer targets on open terrain** (there the attacker chooses loss or retreat, 8.1.4) and
  **avoid attacking into complex terrain with cavalry** (one die, 8.1.6): a penalty on top of the
  expected value.
* **Defence.** Retreat before close combat (2 reconnaissance, 6.2.2) when the attacker's expected
  gain is high; take the loss-or-retreat choice (6.2.3) when a retreat to a free rear hex is
  cheaper than the loss the attacker would pick; as chooser take the smaller evil (attacker: the
  larger); defensive artillery when it lowers the attacker's gain by more than a command is worth;
  retreat into the hex with the fewest enemies around and a free rear behind it.
* **Movement.** Ordered units close in on the enemy; disorganized units keep away from it;
  Cossack infantry stays with its wagons (they double its resistance and are lost alone, 8.3).
  **C-T: late in round 2** ordered units head for the Polish camp hexes 03/04 (+2 VP each, 10).
* **Tatar spirit (9).** When the Tatars withdraw, the C-T player ends the battle if he is ahead
  in VP even after the P-L bonus of 2 (ties go to the C-T, 10); otherwise he fights on.
* Ties between equal options are broken by a seeded generator, so the agent is deterministic for a
  given seed.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from wargame_envs.berestechko import combat as C
from wargame_envs.berestechko.state import CLOSE, INTERACTION, ON_MAP, RANGED, RECON, WITHDRAWN, Phase, S

# Values in victory points.
CMD_VALUE = 0.3            # what one command in hand is worth
CMD_GAIN_VALUE = 0.45      # taking a command with a 1/6 die (below the cap)
DESTROY_BONUS = 0.6        # a destroyed unit also counts toward the automatic victory (10)
SPIRIT_VALUE = 0.4         # one step of the Tatar combat spirit (9)
WITHDRAW_VALUE = 2.0       # the Tatars leaving the battle
DISPLACE_VALUE = 0.15      # pushing an enemy back one hex
ADVANCE_RISK = 0.1         # our cavalry advancing into the vacated hex
COMPLEX_TARGET_PENALTY = 0.4   # cavalry charging into complex terrain
OPEN_TARGET_BONUS = 0.1
RETREAT_BEFORE_THRESHOLD = 0.55  # attacker's expected gain above which the defender retreats
BUY_ACTIVATION_THRESHOLD = 0.9
CAMP_VALUE = 2.0           # VP of an ordered C-T unit in hex 03/04 at the end
WAGON_STAY_VALUE = 3.0


# ------------------------------------------------------------------------- dice arithmetic
@lru_cache(maxsize=None)
def sum_pmf(dice: tuple[tuple[int, int], ...]) -> tuple[float, ...]:
    """Distribution of the sum of ``dice`` (``(count, sides)`` pairs): index = total."""
    pmf = np.ones(1)
    for n, sides in dice:
        face = np.zeros(sides + 1)
        face[1:] = 1.0 / sides
        for _ in range(n):
            pmf = np.convolve(pmf, face)
    return tuple(pmf.tolist())


@lru_cache(maxsize=None)
def outcome_probs(att: tuple[tuple[int, int], ...], dfn: tuple[tuple[int, int], ...], r: int) -> tuple[float, float, float, float]:
    """``(P(CR < R), P(CR = R), P(R < CR < 2R), P(CR >= 2R))`` for attack dice ``att`` against
    defence dice ``dfn`` (empty in ranged combat) and resistance ``r``."""
    a = np.asarray(sum_pmf(att))
    d = np.asarray(sum_pmf(dfn))
    cr = np.convolve(a, d[::-1])        # index i <-> CR = i - (len(d) - 1)
    off = len(d) - 1
    values = np.arange(cr.size) - off
    lt = float(cr[values < r].sum())
    eq = float(cr[values == r].sum())
    mid = float(cr[(values > r) & (values < 2 * r)].sum())
    big = float(cr[values >= 2 * r].sum())
    return lt, eq, mid, big


def _key(dice: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted(dice))


def attack_dice_at(T, u: int, hu: int, d: int, hd: int, kind: int) -> tuple[int, int]:
    """The dice of ``combat.attack_dice`` for ``u`` standing at ``hu`` against ``d`` at ``hd``
    (a hypothetical position: the agent weighs moves before making them). 8.1.5, 8.1.6."""
    if kind == CLOSE and T.is_tatar[u] and T.is_inf[d]:
        return 1, 6
    if T.complex[hu] or T.complex[hd]:
        return 1, T.die[u]
    return T.att[u], T.die[u]


def activatable(T, s, player: int, value: int | None) -> list[int]:
    """Units of ``player`` a die of ``value`` (any value: None) may activate (5, 5.1)."""
    limit = T.rules["activations_per_round"]
    return [u for u in T.combat_units_of[player]
            if s.status[u] in (ON_MAP, WITHDRAWN) and s.acts[u] < limit and (value is None or T.act[u] == value)]


class BerestechkoScriptedAgent:
    """The heuristic player described in the module docstring."""

    name = "berestechko_scripted"

    def __init__(self, seed: int | None = None):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    # ================================================================ entry point
    def act(self, engine, state, player: int, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask).tolist()
        if not legal:
            raise ValueError("no legal action: the game is over or the mask is empty")
        if len(legal) == 1:
            return int(legal[0])
        phase = int(state.sc[S.PHASE])
        handler = self._HANDLERS.get(phase)
        scored = handler(self, engine, state, player, legal) if handler else [(0.0, a) for a in legal]
        return self._best(scored)

    def _best(self, scored: list[tuple[float, int]]) -> int:
        top = max(v for v, _ in scored)
        ties = [a for v, a in scored if v >= top - 1e-9]
        return int(ties[self._rng.integers(len(ties))]) if len(ties) > 1 else int(ties[0])

    # ================================================================ valuations
    @staticmethod
    def loss_value(T, s, u: int) -> float:
        """VP (and more) that ``u``'s enemy gains when ``u`` suffers a loss (8.1.4, 9, 10)."""
        v = 1.0
        if s.disorg[u]:
            v += DESTROY_BONUS  # destroyed: 2 VP instead of 1, and one step to the automatic victory
        if T.is_tatar[u] and not s.sc[S.TATARS_OUT]:
            v += WITHDRAW_VALUE if s.sc[S.SPIRIT] <= 1 else SPIRIT_VALUE
        return v

    def destroy_value(self, T, s, u: int) -> float:
        """Gain of destroying ``u`` outright (an ordered unit takes two losses, 9)."""
        v = 2.0 + DESTROY_BONUS
        if T.is_tatar[u] and not s.sc[S.TATARS_OUT]:
            v += WITHDRAW_VALUE if s.sc[S.SPIRIT] <= 2 - int(s.disorg[u]) else 2 * SPIRIT_VALUE
        return v if not s.disorg[u] else self.loss_value(T, s, u)

    def retreat_value(self, T, s, u: int, after_loss: bool = False) -> float:
        """Gain to the enemy of ``u`` retreating one hex (8.1.7): a side hex costs a loss, no
        free hex destroys it; wagons turn a retreat into a loss (8.3)."""
        if C.wagon_with(T, s, u) >= 0:
            return 0.0 if after_loss else self.loss_value(T, s, u)
        options, sideways = C.retreat_options(T, s, u)
        if not options:
            return 2.0 if after_loss else self.destroy_value(T, s, u)
        if sideways:
            return 1.2 if after_loss else self.loss_value(T, s, u) + DISPLACE_VALUE
        return DISPLACE_VALUE

    def close_value(self, T, s, lead: int, att_dice, d: int, def_arty: bool) -> float:
        """Expected gain of a close combat of the attackers' dice against ``d`` (8.1.4)."""
        dfn = [(T.dfn[d], T.die[d])] + ([(1, 6)] if def_arty else [])
        r = C.resistance(T, s, d)
        lt, _, mid, big = outcome_probs(_key(att_dice), _key(dfn), r)
        loss_d = self.loss_value(T, s, d)
        big_v = loss_d + (0.0 if s.disorg[d] else self.retreat_value(T, s, d, after_loss=True))
        if C.wagon_with(T, s, d) >= 0:
            mid_v = loss_d
        else:
            ret = self.retreat_value(T, s, d)
            defender_picks = T.complex[int(s.hex[d])] or s.cmd[1 - T.side[lead], RECON] >= 1
            mid_v = min(loss_d, ret) if defender_picks else max(loss_d, ret)
        return big * (big_v - ADVANCE_RISK) + mid * (mid_v - ADVANCE_RISK) - lt * self.loss_value(T, s, lead)

    def ranged_value(self, T, s, att_dice, d: int) -> float:
        """Expected gain of ranged fire against ``d`` (8.2.4, 8.2.6); it never hurts the shooter."""
        r = C.resistance(T, s, d)
        lt, eq, mid, big = outcome_probs(_key(att_dice), (), r)
        hit = mid + big
        gain = hit * (self.retreat_value(T, s, d) if s.disorg[d] else self.loss_value(T, s, d))
        if T.is_tatar[d]:
            gain += self.retreat_value(T, s, d)  # one additional hex whatever the result (8.2.6)
        return gain

    def combat_value(self, T, s, lead, lead_hex, d, members, att_arty, def_arty) -> float:
        kind = CLOSE if T.is_cav[lead] else RANGED
        hd = int(s.hex[d])
        dice = [attack_dice_at(T, lead, lead_hex, d, hd, kind)]
        dice += [attack_dice_at(T, m, int(s.hex[m]), d, hd, kind) for m in members]
        if att_arty:
            dice.append((1, 6))
        if kind == RANGED:
            return self.ranged_value(T, s, dice, d)
        v = self.close_value(T, s, lead, dice, d, def_arty)
        v += -COMPLEX_TARGET_PENALTY if T.complex[hd] else OPEN_TARGET_BONUS
        return v

    def plan_attack(self, T, s, player, lead, lead_hex, d, budget, members=(), att_arty=None):
        """Greedy declared attack (6.1.1, 6.1.2): from ``members`` already in, add the adjacent unit
        that raises the expected gain most while the rise beats ``CMD_VALUE`` and ``budget``
        interaction commands last; then artillery by the same rule. Returns (value, members, arty).
        The returned value is net of the commands spent."""
        kind = CLOSE if T.is_cav[lead] else RANGED
        hd = int(s.hex[d])
        members = list(members)
        pool = [v for v in (int(s.occ[n]) for n in T.adj[hd])
                if v >= 0 and v != lead and T.side[v] == player and v not in members
                and (kind == CLOSE or T.is_inf[v])]
        def_arty = kind == CLOSE and T.is_inf[d] and s.cmd[1 - player, INTERACTION] >= 1
        spent = 0
        value = self.combat_value(T, s, lead, lead_hex, d, members, bool(att_arty), def_arty)
        while att_arty is None and pool and spent < budget:
            gains = [(self.combat_value(T, s, lead, lead_hex, d, members + [v], False, def_arty), v) for v in pool]
            best, v = max(gains)
            if best - value <= CMD_VALUE:
                break
            members.append(v)
            pool.remove(v)
            value, spent = best, spent + 1
        arty = bool(att_arty)
        has_inf = T.is_inf[lead] or any(T.is_inf[m] for m in members)
        if att_arty is None and has_inf and spent < budget:
            with_arty = self.combat_value(T, s, lead, lead_hex, d, members, True, def_arty)
            if with_arty - value > CMD_VALUE:
                value, arty, spent = with_arty, True, spent + 1
        return value - CMD_VALUE * spent, members, arty

    # ---------------------------------------------------------------- positions
    def position_value(self, engine, s, player: int, u: int, h: int) -> float:
        """How good it is for ``u`` to stand at ``h`` after its activation."""
        T, dist = engine.T, engine.grid.dist
        v = 0.0
        if T.is_cossack_inf[u]:
            w = int(s.wag[h])
            if w >= 0 and T.side[w] == player and int(s.hex[w]) == h:
                v += WAGON_STAY_VALUE
        enemies = [e for e in T.combat_units_of[1 - player] if s.status[e] == ON_MAP]
        if T.complex[h]:
            v += 0.2
        if s.disorg[u]:
            v -= 0.5 * sum(1 for e in enemies if dist[h, int(s.hex[e])] <= 2)
        elif enemies:
            v -= 0.06 * min(int(dist[h, int(s.hex[e])]) for e in enemies)
        if player == 1 and s.sc[S.ROUND] == 2 and not s.disorg[u]:
            camps = [c for c in range(T.H) if T.camp[c] and (int(s.occ[c]) < 0 or int(s.occ[c]) == u)]
            if T.camp[h]:
                v += CAMP_VALUE
            elif camps:
                v -= 0.35 * min(int(dist[h, c]) for c in camps)
        return v

    def activation_plans(self, engine, s, player: int, u: int):
        """Every (value, destination, target) open to ``u`` if activated now."""
        T = engine.T
        budget = int(s.cmd[player, INTERACTION])
        plans = []
        for h, may_attack in engine.destinations(s, u, False).items():
            pos = self.position_value(engine, s, player, u, h)
            plans.append((pos, h, -1))
            if not may_attack:
                continue
            for n in T.adj[h]:
                d = int(s.occ[n])
                if d < 0 or d == u or T.side[d] == player:
                    continue
                val, _, _ = self.plan_attack(T, s, player, u, h, d, budget)
                if val > 0:
                    plans.append((pos + val, h, d))
        return plans

    def activation_score(self, engine, s, player: int, u: int) -> float:
        """Gain of activating ``u`` now over leaving it where it stands."""
        if s.status[u] != ON_MAP:
            return 0.0
        here = self.position_value(engine, s, player, u, int(s.hex[u]))
        best = max(v for v, _, _ in self.activation_plans(engine, s, player, u))
        bonus = 0.05 if engine.T.is_inf[u] else 0.0  # shoot before charging
        return best - here + bonus

    # ================================================================ decisions
    def _choose_die(self, engine, s, player, legal):
        T, c = engine.T, engine.codec
        opt = c.opt
        if opt("buy_recovery") in legal:
            return [(1.0, opt("buy_recovery"))]
        scored = []
        cmd_full = s.cmd[player, RECON] >= T.rules["command_cap"] and s.cmd[player, INTERACTION] >= T.rules["command_cap"]
        for a in legal:
            kind, arg = c.decode(a)
            if kind == "die":
                value = int(s.dice[arg])
                units = activatable(engine.T, s, player, value) if 2 <= value <= 5 else []
                if units:
                    scored.append((max(self.activation_score(engine, s, player, u) for u in units), a))
                else:
                    scored.append((0.0 if cmd_full else CMD_GAIN_VALUE, a))
            elif arg == "end_throw":
                scored.append((0.0, a))
            elif arg == "buy_activation":
                spare = s.cmd[player, INTERACTION] >= T.rules["command_cap"]
                units = activatable(engine.T, s, player, None)
                best = max((self.activation_score(engine, s, player, u) for u in units), default=0.0)
                scored.append((best - BUY_ACTIVATION_THRESHOLD if spare and s.sc[S.SPENT] >= 2 else -1.0, a))
        return scored

    def _die_command(self, engine, s, player, legal):
        c = engine.codec
        recon, inter = int(s.cmd[player, RECON]), int(s.cmd[player, INTERACTION])
        cap = engine.T.rules["command_cap"]
        if inter < 2:
            pick = "gain_interaction"
        elif recon < 1:
            pick = "gain_reconnaissance"
        elif inter < cap:
            pick = "gain_interaction"
        else:
            pick = "gain_reconnaissance"
        return [(1.0 if a == c.opt(pick) else 0.0, a) for a in legal]

    def _select_unit(self, engine, s, player, legal):
        c = engine.codec
        scored = []
        for a in legal:
            kind, u = c.decode(a)
            if kind != "unit":
                scored.append((-10.0, a))  # keep the wagons in the tabor; never pay for moving them
                continue
            scored.append((self.activation_score(engine, s, player, u), a))
        return scored

    def _select_recovery(self, engine, s, player, legal):
        T, c = engine.T, engine.codec
        scored = []
        for a in legal:
            _, u = c.decode(a)
            scored.append(((2.0 if T.is_tatar[u] else 0.0) + T.res[u][0] + T.att[u] * T.die[u] / 10, a))
        return scored

    def _move(self, engine, s, player, legal):
        u = int(s.sc[S.UNIT])
        best: dict[int, float] = {}
        for v, h, _ in self.activation_plans(engine, s, player, u):
            best[h] = max(best.get(h, -1e9), v)
        return [(best.get(a, -1e9), a) for a in legal]

    def _target(self, engine, s, player, legal):
        T, c = engine.T, engine.codec
        u = int(s.sc[S.UNIT])
        budget = int(s.cmd[player, INTERACTION])
        scored = []
        for a in legal:
            kind, arg = c.decode(a)
            if kind == "option":
                scored.append((0.0, a))
            else:
                val, _, _ = self.plan_attack(T, s, player, u, int(s.hex[u]), int(s.occ[arg]), budget)
                scored.append((val, a))
        return scored

    def _add_unit(self, engine, s, player, legal):
        T, c = engine.T, engine.codec
        lead, d = int(s.sc[S.UNIT]), int(s.sc[S.TARGET])
        members = [v for v in range(T.NC) if s.part[v] and v != lead]
        def_arty = s.sc[S.KIND] == CLOSE and T.is_inf[d] and s.cmd[1 - player, INTERACTION] >= 1
        now = self.combat_value(T, s, lead, int(s.hex[lead]), d, members, False, def_arty)
        scored = []
        for a in legal:
            kind, arg = c.decode(a)
            if kind == "option":
                scored.append((0.0, a))
            else:
                v = int(s.occ[arg])
                gain = self.combat_value(T, s, lead, int(s.hex[lead]), d, members + [v], False, def_arty) - now
                scored.append((gain - CMD_VALUE, a))
        return scored

    def _att_artillery(self, engine, s, player, legal):
        T, c = engine.T, engine.codec
        lead, d = int(s.sc[S.UNIT]), int(s.sc[S.TARGET])
        members = [v for v in range(T.NC) if s.part[v] and v != lead]
        def_arty = s.sc[S.KIND] == CLOSE and T.is_inf[d] and s.cmd[1 - player, INTERACTION] >= 1
        hl = int(s.hex[lead])
        gain = (self.combat_value(T, s, lead, hl, d, members, True, def_arty)
                - self.combat_value(T, s, lead, hl, d, members, False, def_arty))
        return [(gain - CMD_VALUE if a == c.opt("artillery") else 0.0, a) for a in legal]

    def _def_artillery(self, engine, s, player, legal):
        T, c = engine.T, engine.codec
        lead, d = int(s.sc[S.UNIT]), int(s.sc[S.TARGET])
        members = [v for v in range(T.NC) if s.part[v] and v != lead]
        hl, arty = int(s.hex[lead]), bool(s.sc[S.ATT_ARTY])
        saved = (self.combat_value(T, s, lead, hl, d, members, arty, False)
                 - self.combat_value(T, s, lead, hl, d, members, arty, True))
        return [(saved - CMD_VALUE if a == c.opt("artillery") else 0.0, a) for a in legal]

    def _retreat_before(self, engine, s, player, legal):
        T, c = engine.T, engine.codec
        lead, d = int(s.sc[S.UNIT]), int(s.sc[S.TARGET])
        attacker = 1 - player
        threat, _, _ = self.plan_attack(T, s, attacker, lead, int(s.hex[lead]), d, int(s.cmd[attacker, INTERACTION]))
        scored = []
        for a in legal:
            kind, arg = c.decode(a)
            if kind == "option":
                scored.append((0.0, a))
            else:
                scored.append((threat - RETREAT_BEFORE_THRESHOLD + 0.01 * self._refuge(engine, s, player, d, arg), a))
        return scored

    def _refuge(self, engine, s, player: int, u: int, h: int) -> float:
        """How safe hex ``h`` is for ``u`` to retreat into: few enemies around, a free rear behind."""
        T = engine.T
        enemies = sum(1 for n in T.adj[h] if int(s.occ[n]) >= 0 and T.side[int(s.occ[n])] != player and int(s.occ[n]) != u)
        rear_free = sum(1 for n in T.rear[player][h] if C.is_free(T, s, n) or n == int(s.hex[u]))
        return -2.0 * enemies + rear_free

    def _take_choice(self, engine, s, player, legal):
        T, c = engine.T, engine.codec
        d = int(s.sc[S.TARGET])
        loss, ret = self.loss_value(T, s, d), self.retreat_value(T, s, d)
        attacker_pick = max(loss, ret)
        mine = min(loss, ret)
        take = attacker_pick - mine - CMD_VALUE
        return [(take if a == c.opt("take_choice") else 0.0, a) for a in legal]

    def _loss_or_retreat(self, engine, s, player, legal):
        T, c = engine.T, engine.codec
        d = int(s.sc[S.TARGET])
        loss, ret = self.loss_value(T, s, d), self.retreat_value(T, s, d)
        sign = -1.0 if T.side[d] == player else 1.0  # the owner minimises the enemy's gain
        return [(sign * (loss if a == c.opt("choose_loss") else ret), a) for a in legal]

    def _retreat(self, engine, s, player, legal):
        u = int(s.sc[S.RET_UNIT])
        if engine.T.side[u] != player:  # never happens: the owner retreats
            return [(0.0, a) for a in legal]
        return [(self._refuge(engine, s, player, u, a), a) for a in legal]

    def _advance(self, engine, s, player, legal):
        T = engine.T
        scored = []
        for a in legal:
            u = int(s.occ[a])
            scored.append(((0.0 if s.disorg[u] else 10.0) + T.res[u][int(s.disorg[u])] - 0.1 * int(s.acts[u] < 2), a))
        return scored

    def _tatar_decision(self, engine, s, player, legal):
        c = engine.codec
        vp = engine.scores(s)
        bonus = engine.T.sc.victory["tatars_withdrawn_end"]
        end_now = vp[1] >= vp[0] + bonus  # ties go to the C-T player (10)
        return [(1.0 if (a == c.opt("end_battle")) == end_now else 0.0, a) for a in legal]

    _HANDLERS = {
        Phase.CHOOSE_DIE: _choose_die,
        Phase.DIE_COMMAND: _die_command,
        Phase.SELECT_UNIT: _select_unit,
        Phase.SELECT_RECOVERY: _select_recovery,
        Phase.MOVE: _move,
        Phase.TARGET: _target,
        Phase.RETREAT_BEFORE: _retreat_before,
        Phase.ADD_UNIT: _add_unit,
        Phase.ATT_ARTILLERY: _att_artillery,
        Phase.DEF_ARTILLERY: _def_artillery,
        Phase.TAKE_CHOICE: _take_choice,
        Phase.LOSS_OR_RETREAT: _loss_or_retreat,
        Phase.RETREAT: _retreat,
        Phase.ADVANCE: _advance,
        Phase.TATAR_DECISION: _tatar_decision,
    }
