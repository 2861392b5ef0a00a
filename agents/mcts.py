"""Open-loop Monte Carlo tree search for any battle of the suite.

The search drives the engine contract only (``sample_hidden``, ``clone``, ``apply``, ``legal_mask``,
``current_player``, ``is_terminal``, ``is_truncated``, ``returns``, ``scores``), so it plays every
battle. Per decision:

1. **Determinize.** Each simulation starts from ``engine.sample_hidden(state, player, rng)``: a copy
   in which whatever ``player`` cannot see is redrawn (a plain clone in battles without hidden
   information). The agent never reads the other side's hidden information.
2. **Sampled chance.** Simulations roll the search's own :class:`~wargame_envs.core.dice.Dice`,
   never the game's, so searching leaves the game's dice stream untouched.
3. **Open loop.** The same action can lead to different positions (dice), so the tree is keyed by
   the action sequence from the root, not by positions: a simulation re-applies the path's actions
   to a fresh root copy. Edges are keyed ``(player, action)`` because the player who decides after
   a given sequence can differ between simulations (a combat may or may not give the defender a
   decision).
4. **UCT selection** among the actions legal in the simulation's current position: untried actions
   first, then ``mean + c_uct * sqrt(ln(N) / n)``, where ``mean`` is the value of the edge for the
   player who took it (each node is seen from its deciding player's perspective).
5. **Rollout** from the new leaf with the rollout policy (uniform random, or any agent, e.g. the
   battle's scripted agent) for at most ``rollout_depth`` decisions. A finished game is valued by
   ``engine.returns``; a game cut at the depth limit by its running score difference squashed
   into [-1, 1]: ``tanh((score_p - mean score of the others) / value_scale)`` (zero where the
   battle keeps no score); a truncated game counts as a draw.
6. **Backup** of the value vector along the path; the root move is the most visited legal action.
"""

from __future__ import annotations

import math

import numpy as np

from wargame_envs.core.dice import Dice


class _Node:
    __slots__ = ("children", "n", "w")

    def __init__(self):
        self.children: dict[tuple[int, int], _Node] = {}
        self.n = 0      # visits of the edge leading here
        self.w = 0.0    # total value of those visits for the player who took the edge


class MCTSAgent:
    """UCT search over the engine; see the module docstring.

    ``simulations``: simulations per decision. ``c_uct``: exploration constant (values lie in
    [-1, 1]). ``rollout``: ``"random"``, ``"scripted"`` (the battle's scripted agent, found through
    ``agents.scripted`` on the first decision) or any agent (``act(engine, state, player, mask)``)
    used to play out simulations. ``rollout_depth``: decisions a rollout may play before the heuristic
    value is taken. ``value_scale``: score difference that maps to tanh(1) at the cut.
    """

    name = "mcts"

    def __init__(self, simulations: int = 64, c_uct: float = 1.4, rollout="random", seed: int | None = None,
                 rollout_depth: int = 10, value_scale: float = 4.0):
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        if rollout_depth < 0:
            raise ValueError(f"rollout_depth must be >= 0, got {rollout_depth}")
        self.simulations = int(simulations)
        self.c_uct = float(c_uct)
        if isinstance(rollout, str) and rollout not in ("random", "scripted"):
            raise ValueError(f"rollout must be 'random', 'scripted' or an agent, got {rollout!r}")
        self.rollout = rollout
        self.rollout_depth = int(rollout_depth)
        self.value_scale = float(value_scale)
        self.name = f"mcts:{self.simulations}"
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self._dice = Dice(int(self._rng.integers(0, 2**63 - 1)))
        # The rollout agent's seed comes from its own stream, so the search's stream is the same
        # whatever the rollout policy.
        side_rng = np.random.default_rng(None if seed is None else [seed, 1])
        self._rollout_seed = int(side_rng.integers(0, 2**31 - 1))
        self._policy = None if isinstance(self.rollout, str) else self.rollout
        if self._policy is not None and hasattr(self._policy, "reset"):
            self._policy.reset(self._rollout_seed)

    def _rollout_policy(self, engine):
        """None for uniform random rollouts, else the agent that plays them out."""
        if self._policy is None and self.rollout == "scripted":
            from agents.scripted import make_scripted_agent

            self._policy = make_scripted_agent(engine.name, self._rollout_seed)
        return self._policy

    # ------------------------------------------------------------------ search
    def act(self, engine, state, player: int, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action: the game is over or the mask is empty")
        if legal.size == 1:
            return int(legal[0])
        root = _Node()
        for _ in range(self.simulations):
            self._simulate(engine, engine.sample_hidden(state, player, self._rng), root)
        visits = [(root.children[(player, int(a))].n if (player, int(a)) in root.children else 0, int(a))
                  for a in legal]
        top = max(n for n, _ in visits)
        best = [a for n, a in visits if n == top]
        return best[0] if len(best) == 1 else int(best[self._rng.integers(len(best))])

    def _simulate(self, engine, s, root: _Node) -> None:
        node, path = root, []
        dice, rng, c = self._dice, self._rng, self.c_uct
        while True:
            if engine.is_terminal(s) or engine.is_truncated(s):
                values = self._final_values(engine, s)
                break
            p = engine.current_player(s)
            legal = engine.legal_mask(s).nonzero()[0].tolist()
            children = node.children
            untried = [a for a in legal if (p, a) not in children]
            if untried:
                a = untried[rng.integers(len(untried))] if len(untried) > 1 else untried[0]
                child = children[(p, a)] = _Node()
                path.append((child, p))
                engine.apply(s, a, dice)
                values = self._rollout(engine, s)
                break
            edges = [children[(p, a)] for a in legal]
            log_total = math.log(sum(e.n for e in edges))
            best, best_i = -math.inf, 0
            for i, e in enumerate(edges):
                u = e.w / e.n + c * math.sqrt(log_total / e.n)
                if u > best:
                    best, best_i = u, i
            node = edges[best_i]
            path.append((node, p))
            engine.apply(s, legal[best_i], dice)
        for child, p in path:
            child.n += 1
            child.w += float(values[p])

    def _rollout(self, engine, s) -> np.ndarray:
        dice, rng, policy = self._dice, self._rng, self._rollout_policy(engine)
        for _ in range(self.rollout_depth):
            if engine.is_terminal(s) or engine.is_truncated(s):
                return self._final_values(engine, s)
            mask = engine.legal_mask(s)
            if policy is None:
                legal = mask.nonzero()[0]
                a = int(legal[rng.integers(legal.size)])
            else:
                a = int(policy.act(engine, s, engine.current_player(s), mask))
            engine.apply(s, a, dice)
        if engine.is_terminal(s) or engine.is_truncated(s):
            return self._final_values(engine, s)
        return self.heuristic_values(engine, s)

    # ------------------------------------------------------------------ values
    @staticmethod
    def _final_values(engine, s) -> np.ndarray:
        if engine.is_terminal(s):
            return np.asarray(engine.returns(s), dtype=np.float64)
        return np.zeros(len(engine.agents))  # truncated: a draw, never a win

    def heuristic_values(self, engine, s) -> np.ndarray:
        """Running scores squashed to [-1, 1]: each player's score minus the others' mean."""
        scores = np.asarray(engine.scores(s), dtype=np.float64)
        n = scores.size
        if n < 2:
            return np.zeros(n)
        others = (scores.sum() - scores) / (n - 1)
        return np.tanh((scores - others) / self.value_scale)
