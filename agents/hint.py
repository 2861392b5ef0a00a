"""What a policy network reads: the engine's observation, optionally followed by a heuristic's advice.

A policy trained with a *hint* (``--hint scripted``) sees, after the battle's observation, a one-hot
of the action the battle's scripted agent would take at this decision. With ``--hint ties`` it sees
instead a multi-hot of all the actions the heuristic rates best (its tied-best moves, among which the
scripted agent draws at random: 15% of Berestechko's scripted decisions have two or more), so that
reinforcement learning can also learn which of them to prefer; it needs a scripted agent with a
``ties(engine, state, player, mask)`` method (Berestechko's). The network starts out by
copying the hint (the imitation warm start teaches it in seconds) and reinforcement learning then
teaches it where to depart from the heuristic: the heuristic's judgement (exact combat odds, command
economy) is kept, not relearnt from scratch. The same observer builds the policy's input in training,
for snapshot opponents, for ``ckpt:`` checkpoints and for the shipped ``pretrained`` policies, whose
metadata name the hint (``"hint": "scripted"``), so a policy always reads what it was trained on.
"""

from __future__ import annotations

import numpy as np

HINTS = ("", "scripted", "ties")


def input_size(obs_size: int, num_actions: int, hint: str) -> int:
    """The width of a policy's input: the observation, plus one slot per action with a hint."""
    return obs_size + (num_actions if hint else 0)


class Observer:
    """``observe(engine, state, player, mask)``: the policy input of ``player`` at ``state``."""

    hint = ""

    def observe(self, engine, state, player: int, mask: np.ndarray) -> np.ndarray:
        return engine.observe(state, player)

    def reset(self, seed: int | None = None) -> None:
        """Reseeds the hint's tie-breaks (nothing to do without a hint)."""


class HintObserver(Observer):
    """The observation followed by a one-hot of the scripted agent's choice (``hint="scripted"``) or a
    multi-hot of its tied-best actions (``hint="ties"``); zeros when no action is legal. The agent is built
    for ``battle`` with ``seed`` (its tie-breaks)."""

    def __init__(self, hint: str, battle: str, seed: int | None = None):
        if hint not in HINTS[1:]:
            raise ValueError(f"hint = {hint!r}: expected one of {list(HINTS)}")
        from agents.scripted import make_scripted_agent

        self.hint = hint
        self.agent = make_scripted_agent(battle, seed)
        if hint == "ties" and not hasattr(self.agent, "ties"):
            raise ValueError(f"hint 'ties' needs a scripted agent that reports its tied-best actions; "
                             f"{type(self.agent).__name__} ({battle}) has no ties() method: use hint 'scripted'")

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def observe(self, engine, state, player: int, mask: np.ndarray) -> np.ndarray:
        obs = engine.observe(state, player)
        out = np.zeros(obs.size + engine.num_actions, dtype=np.float32)
        out[:obs.size] = obs
        if mask.any():
            if self.hint == "ties":
                out[obs.size + self.agent.ties(engine, state, player, mask)] = 1.0
            else:
                out[obs.size + int(self.agent.act(engine, state, player, mask))] = 1.0
        return out


def make_observer(hint: str, battle: str, seed: int | None = None) -> Observer:
    """The observer of a policy trained with ``hint`` (``""``: the plain observation)."""
    if not isinstance(hint, str) or hint not in HINTS:
        raise ValueError(f"hint = {hint!r}: expected one of {list(HINTS)}")
    return HintObserver(hint, battle, seed) if hint else Observer()
