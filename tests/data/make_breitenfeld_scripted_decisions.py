"""Regenerate ``tests/data/breitenfeld_scripted_decisions.npz``: the decisions of Breitenfeld's scripted agent as
it was written in Python, before it became a compiled kernel (issue 14), the oracle of
``tests/breitenfeld/test_breitenfeld_scripted.py``:

    python tests/data/make_breitenfeld_scripted_decisions.py

:class:`PythonBreitenfeldAgent` is that Python agent, kept here unchanged but for one addition: it remembers the
set of tied-best actions it drew its last choice from (``last_ties``; a choice the heuristic makes outright is a
set of one). Seeded games (scripted against scripted, scripted against random, with the variant options) are
played; at every decision with two or more legal actions a sample of the positions is kept (the state buffer)
with the agent's tied-best set for the player to move (at a random player's decision too: the agent is asked
there when it gives a hint).

Arrays: ``states`` (n, S) int32 buffers; ``ties`` (the tied-best actions of every position, concatenated) with
``tie_start`` (n + 1 offsets); ``game`` (the game each position comes from); ``seeds``, ``kinds`` and ``options``
(one per game).

The decisions were re-recorded on 2026-12-05, when the Imperial side's movement judgement changed
(:data:`MOVE_STYLE`: the obliged attack judged against all the adjacent enemies, with a margin, and the line
shifted toward the Saxon flank; docs/breitenfeld.md, "The scripted agent"), and again the same day for the plan
(hold, wall, withdraw, pounce, cavalry behind the wall; the Allies' withdraw).

``--speed`` instead measures decisions per second on the recorded positions: this Python agent and the compiled
agent (``act``, game by game), and the batched ``scripted_actions`` / ``scripted_ties`` on 256 positions a call.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agents.base import RandomAgent  # noqa: E402
from wargame_envs.breitenfeld import actions as A  # noqa: E402
from wargame_envs.breitenfeld.rules import BreitenfeldEngine  # noqa: E402
from wargame_envs.breitenfeld.state import G_ART_IDX, G_MAY0, G_SEL, G_TURN  # noqa: E402
from wargame_envs.breitenfeld.zoc import Snap  # noqa: E402
from wargame_envs.core.dice import Dice  # noqa: E402

PATH = ROOT / "tests" / "data" / "breitenfeld_scripted_decisions.npz"
OPTIONS = ({}, {"turn_ends_chit": True}, {"visibility": True}, {"visibility": True, "turn_ends_chit": True})
#: (seed, players, options): 18 scripted-against-scripted games, 12 against random (each side)
GAMES = ([(100 + i, "scripted-scripted", OPTIONS[i % 4]) for i in range(18)]
         + [(200 + i, "scripted-random" if i % 2 == 0 else "random-scripted", OPTIONS[i % 4]) for i in range(12)])
KEEP = 0.5    # the share of the decisions kept (the file stays under 2 MB)


#: Each side's movement style (together, margin, flank, hold, wall, withdraw, pounce, cav_back), as
#: ``agents.breitenfeld_scripted.MOVE_STYLE`` sets it since 2026-12-05 (before: ``(False, 1.0, 0.0)`` and no plan
#: for both sides; then ``(True, 1.25, 0.01)`` for the Imperial side; then the plan).
MOVE_STYLE = ((False, 1.0, 0.0, 0, False, True, 0.0, 0), (True, 1.25, 0.01, 5, True, True, 3.0, 12))


class PythonBreitenfeldAgent:
    """The Python heuristic (agents/breitenfeld_scripted.py before issue 14), with ``last_ties``, and each side's
    movement style of 2026-12-05 (:data:`MOVE_STYLE`)."""

    name = "breitenfeld_scripted_python"

    def __init__(self, seed: int | None = None):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self.last_ties: list[int] = []

    # ------------------------------------------------------------------ helpers
    def _pick(self, options: list[tuple[float, int]]) -> int:
        best = max(v for v, _ in options)
        top = [a for v, a in options if v >= best - 1e-9]
        self.last_ties = sorted(set(top))
        return int(top[self._rng.integers(len(top))])

    def act(self, engine, state, player: int, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask).tolist()
        if not legal:
            raise ValueError("no legal action")
        self.last_ties = []
        if len(legal) == 1:
            self.last_ties = legal
            return legal[0]
        key = engine.decision_key(state)
        fn = getattr(self, f"_{key}", None)
        a = fn(engine, state, player, legal) if fn else None
        if a is None:
            self.last_ties = legal      # no judgement: a uniform draw
            return int(legal[self._rng.integers(len(legal))])
        if not self.last_ties:
            self.last_ties = [int(a)]   # decided outright, without a draw
        return int(a)
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

    @staticmethod
    def _holding(s, player) -> bool:
        """The side's plan holds: before its hold turn while the enemy may not move yet (12.3, 12.4)."""
        return int(s.g[G_TURN]) < MOVE_STYLE[player][3] and int(s.g[G_MAY0 + 1 - player]) == 0

    def _artillery(self, E, s, player, legal):
        D, c = E.D, E.codec
        if A.END in legal and self._holding(s, player):
            return A.END
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
        together, margin, flank, _, wall, withdraw, pounce, cav_back = MOVE_STYLE[player]
        if snap.ud[p]:
            if withdraw and ed[here] <= 1:
                # the plan's withdraw: out of the enemy's zones of control, staying only where it must
                return self._pick([(ed[h] + (0.5 if h == here else 0.0), c.hex(h)) for h in dests])
            # disrupted: stay if allowed, else the farthest hex from the enemy
            if c.hex(here) in legal:
                return c.hex(here)
            opts = [(ed[h], c.hex(h)) for h in dests]
            return self._pick(opts)
        st = D.unit_strength[p]
        hold = self._holding(s, player)
        opts = []
        for h in dests + [here]:
            d = ed[h]
            contact = 0.0
            if d == 1:
                good = False
                defence = []
                for j in D.grid.adjacent[h]:
                    e = snap.at[j]
                    if e >= 0 and D.unit_side[e] != player:
                        if snap.ud[e]:
                            good = True
                        else:
                            mult = D.defense_mult[j] if not D.defense_needs_slope[j] or D.is_slope[h] else 1
                            defence.append(D.unit_strength[e] * mult)
                bad = st < margin * ((sum if together else max)(defence) if defence else 0)
                contact = (3.0 if good else 0.0) - (10.0 if bad else 0.0)
            step = 0.1 * int(D.grid.dist[here, h])
            if wall:
                if hold and cav_back > 0 and D.unit_kind[p] != 0:
                    score = min(d, cav_back) - step      # the cavalry behind the wall
                elif d != 1:
                    score = -step
                elif contact > 0:
                    score = 10.0 + contact
                elif pounce > 0 and self._pounce_ok(D, snap, player, st, here, h, pounce):
                    score = 10.0
                else:
                    score = contact - 50.0
            else:
                score = contact - float(d)
                if hold and h != here and d <= D.release_distance:
                    score -= 100.0
            if D.hex_terrain_name[h] in ("town", "woods", "hilltop"):
                score += 0.3
            score -= flank * int(D.grid.ids[h][2:])
            opts.append((score, c.hex(h)))
        return self._pick(opts)

    @staticmethod
    def _pounce_ok(D, snap, player, st, here, h, pounce) -> bool:
        """Every undisrupted enemy next to ``h`` faces ``pounce`` times its defence from ``st`` and the undisrupted
        friends already next to it (the moving unit's own hex ``here`` left out)."""
        enemies = [j for j in D.grid.adjacent[h] if snap.at[j] >= 0 and D.unit_side[snap.at[j]] != player
                   and not snap.ud[snap.at[j]]]
        for j in enemies:
            e = snap.at[j]
            mult = D.defense_mult[j] if not D.defense_needs_slope[j] or D.is_slope[h] else 1
            friends = sum(D.unit_strength[snap.at[k]] for k in D.grid.adjacent[j]
                          if k != here and snap.at[k] >= 0 and D.unit_side[snap.at[k]] == player
                          and not snap.ud[snap.at[k]])
            if st + friends < pounce * D.unit_strength[e] * mult:
                return False
        return bool(enemies)

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


def play(E, seed: int, players: str, options: dict, keep: np.random.Generator):
    """One game; yields ``(state buffer, tied-best actions)`` at the kept decisions with 2+ legal actions."""
    dice = Dice(seed)
    seats = [PythonBreitenfeldAgent(seed + i) if kind == "scripted" else RandomAgent(seed + i)
             for i, kind in enumerate(players.split("-"))]
    probe = PythonBreitenfeldAgent(seed + 7)     # the agent's judgement where a random player moves
    s = E.new_state(dict(options), dice)
    while not E.is_terminal(s):
        mask = E.legal_mask(s)
        p = E.current_player(s)
        seat = seats[p]
        before = s.buf.copy()
        if isinstance(seat, PythonBreitenfeldAgent):
            a = seat.act(E, s, p, mask)
            ties = seat.last_ties
        else:
            probe.act(E, s, p, mask)
            ties = probe.last_ties
            a = seat.act(E, s, p, mask)
        if mask.sum() >= 2 and keep.random() < KEEP:
            yield before, ties
        E.apply(s, a, dice)


def main() -> None:
    E = BreitenfeldEngine()
    keep = np.random.default_rng(14)
    states, ties, starts, games = [], [], [0], []
    for g, (seed, players, options) in enumerate(GAMES):
        n = len(states)
        for buf, best in play(E, seed, players, options, keep):
            states.append(buf)
            ties.extend(best)
            starts.append(len(ties))
            games.append(g)
        print(f"game {g}: seed {seed} {players} {options}: {len(states) - n} decisions kept")
    np.savez_compressed(
        PATH, states=np.stack(states).astype(np.int32), ties=np.asarray(ties, dtype=np.int16),
        tie_start=np.asarray(starts, dtype=np.int32), game=np.asarray(games, dtype=np.int16),
        seeds=np.asarray([seed for seed, _, _ in GAMES]), kinds=np.asarray([kind for _, kind, _ in GAMES]),
        options=np.asarray([",".join(sorted(o)) for _, _, o in GAMES]))
    print(f"{PATH}: {len(states)} decisions, {PATH.stat().st_size} bytes")


def rate(fn, count: int, repeat: int = 3) -> float:
    """Calls of ``fn`` (each ``count`` decisions) per second, the best of ``repeat`` runs, in decisions/s."""
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return count / best


def speed(batch: int = 256, sample: int = 4000) -> None:
    """Decisions per second of the Python agent and of the compiled one on the recorded positions."""
    from agents.breitenfeld_scripted import BreitenfeldScriptedAgent, scripted_actions, scripted_ties

    E = BreitenfeldEngine()
    d = np.load(PATH)
    rng = np.random.default_rng(0)
    rows = d["states"][rng.choice(len(d["states"]), sample, replace=False)]
    states = [E.state_class(row.copy()) for row in rows]
    masks = np.stack([E.legal_mask(s) for s in states])
    players = [E.current_player(s) for s in states]
    for name, agent in (("python agent", PythonBreitenfeldAgent(0)), ("compiled agent", BreitenfeldScriptedAgent(0))):
        agent.act(E, states[0], players[0], masks[0])    # compiled before the clock starts
        r = rate(lambda: [agent.act(E, s, p, m) for s, p, m in zip(states, players, masks)], sample)
        print(f"{name:>24}: {r:10.0f} decisions/s ({1e6 / r:.1f} us a decision)")
    out, sets = np.zeros(sample, dtype=np.int64), np.zeros(masks.shape, dtype=bool)
    calls = [(rows[i:i + batch], masks[i:i + batch]) for i in range(0, sample - batch + 1, batch)]
    n = batch * len(calls)
    for name, entry in (("scripted_actions", lambda b, m: scripted_actions(E, b, out[:batch], masks=m, rng=rng)),
                        ("scripted_ties", lambda b, m: scripted_ties(E, b, sets[:batch], m))):
        entry(*calls[0])
        r = rate(lambda: [entry(b, m) for b, m in calls], n)
        print(f"{name + f' N={batch}':>24}: {r:10.0f} decisions/s ({1e6 / r:.2f} us a decision)")


if __name__ == "__main__":
    speed() if "--speed" in sys.argv[1:] else main()
