"""What a policy network reads: the engine's observation, optionally followed by a heuristic's advice.

A policy trained with a *hint* (``--hint scripted``) sees, after the battle's observation, a one-hot
of the action the battle's scripted agent would take at this decision. With ``--hint ties`` it sees
instead a multi-hot of all the actions the heuristic rates best (its tied-best moves, among which the
scripted agent draws at random: 15% of Berestechko's scripted decisions have two or more), so that
reinforcement learning can also learn which of them to prefer; it needs a scripted agent with a
``ties(engine, state, player, mask)`` method (every battle's scripted agent has one).
With ``--hint scores`` it sees every legal
action's rating by the heuristic, ``exp((score - best score) / SCORE_TEMPERATURE)`` (1 for the tied-best
moves, near 0 for the poor ones; the scores are expected victory points), and the policy's logits are
the network's output **plus the logarithm of that slot** (:func:`prior_logits`): a residual policy on top
of the heuristic's judgement (piKL's ``pi ~ prior x exp(Q)``). An untrained network then plays
``softmax((score - best) / SCORE_TEMPERATURE)``, which explores among the near-best moves (9 off-best moves
a game at 0.05 VP for Berestechko, with the heuristic's win rate) and whose greedy move is the heuristic's,
so this hint needs no imitation warm start for the actor; it needs an agent with a ``gaps`` method (Berestechko's
and Breitenfeld's rate their moves; Kulikovo's picks one, so its choice rates 0 and every other legal action
``agents.kulikovo_scripted.OFF_CHOICE_GAP`` below). ``--hint scores-floor`` is ``scores`` with every legal
action rated at least :data:`FLOOR_GAP` below the best (:func:`score_slots`): where the heuristic rates a
move far below the best, or not at all (Breitenfeld's heuristic scores only the moves it considers, the others
rate -inf and their prior weight is 0), the residual policy still samples it now and then (an ``exp(-6)``
weight each) and can learn that it is better. The network starts out by
copying the hint (the imitation warm start teaches it in seconds) and reinforcement learning then
teaches it where to depart from the heuristic: the heuristic's judgement (exact combat odds, command
economy) is kept, not relearnt from scratch. The same observer builds the policy's input in training,
for snapshot opponents, for ``ckpt:`` checkpoints and for the shipped ``pretrained`` policies, whose
metadata name the hint (``"hint": "scripted"``), so a policy always reads what it was trained on.
"""

from __future__ import annotations

import numpy as np

from wargame_envs.core.jit import kernel

HINTS = ("", "scripted", "ties", "scores", "scores-floor")
PRIOR_HINTS = ("scores", "scores-floor")  # hints whose slots are ratings that also enter the policy's logits
FLOORED_HINTS = ("scores-floor",)         # hints that rate every legal action at least FLOOR_GAP below the best
SCORE_TEMPERATURE = 0.05       # victory points: a move this much below the best gets 1/e of its prior weight
TIED_GAP = 1e-9               # a move this close below the best score is one of the tied-best
PRIOR_FLOOR = float(np.exp(-30.0))  # the smallest slot the prior takes the logarithm of (an exp(-30) weight)
FLOOR_GAP = 0.3               # "scores-floor": no legal action rates further below the best (an exp(-6) weight)


def has_prior(hint: str) -> bool:
    """Whether a policy trained with ``hint`` adds :func:`prior_logits` to its network's logits."""
    return hint in PRIOR_HINTS


def prior_logits(x, num_actions: int):
    """The prior term of a ``scores`` policy: the logarithm of the input's last ``num_actions`` slots
    (floored at :data:`PRIOR_FLOOR`); numpy arrays or torch tensors of shape (..., width)."""
    return prior_of(x[..., x.shape[-1] - num_actions:])


def prior_of(slots):
    """The prior term of hint slots (any shape): their logarithm, floored at :data:`PRIOR_FLOOR`."""
    if isinstance(slots, np.ndarray):
        return np.log(np.maximum(slots, PRIOR_FLOOR))
    return slots.clamp(min=PRIOR_FLOOR).log()


@kernel
def rate_slots(gaps, legal, floor_gap, temperature, out):
    """``out = exp(gap / temperature)`` (0 for a -inf gap), each ``legal`` action's gap raised to at least
    ``-floor_gap`` first (``floor_gap`` inf: no floor). 2-D arrays; only the finite gaps take an ``exp``."""
    for i in range(gaps.shape[0]):
        for a in range(gaps.shape[1]):
            g = gaps[i, a]
            if g < -floor_gap and legal[i, a]:
                g = -floor_gap
            out[i, a] = np.exp(g / temperature) if g > -np.inf else 0.0


def score_slots(gaps: np.ndarray, legal: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """The ``scores`` hint's slots from each action's gap to the best score (0 for the best, negative
    below it, -inf where illegal or not rated): ``exp(gap / SCORE_TEMPERATURE)``, 0 where illegal. Given the
    ``legal`` mask (the hint ``scores-floor``), every legal action's gap counts as at least ``-FLOOR_GAP``.
    Written into ``out`` (a contiguous float32 array of the shape of ``gaps``) when given."""
    gaps = np.asarray(gaps, dtype=np.float64)
    if out is None:
        out = np.empty(gaps.shape, dtype=np.float32)
    rows = gaps.reshape(-1, gaps.shape[-1])
    if legal is None:  # no floor: an infinite one lifts no gap, whatever the mask
        floor, legal = np.inf, np.broadcast_to(np.True_, rows.shape)
    else:
        floor, legal = FLOOR_GAP, np.asarray(legal, dtype=bool).reshape(rows.shape)
    rate_slots(rows, legal, floor, SCORE_TEMPERATURE, out.reshape(rows.shape))
    return out


def hint_slots(hint: str, gaps: np.ndarray, legal: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The slots of a rating hint (``scores`` or ``scores-floor``) from the heuristic's ``gaps``."""
    return score_slots(gaps, legal if hint in FLOORED_HINTS else None, out)


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
    """The observation followed by a one-hot of the scripted agent's choice (``hint="scripted"``), a
    multi-hot of its tied-best actions (``hint="ties"``) or its rating of every action (``hint="scores"`` or
    ``"scores-floor"``, :func:`hint_slots`); zeros when no action is legal. The agent is built
    for ``battle`` with ``seed`` (its tie-breaks)."""

    def __init__(self, hint: str, battle: str, seed: int | None = None):
        if hint not in HINTS[1:]:
            raise ValueError(f"hint = {hint!r}: expected one of {list(HINTS)}")
        from agents.scripted import make_scripted_agent

        self.hint = hint
        self.agent = make_scripted_agent(battle, seed)
        needs = (("ties", "reports its tied-best actions") if hint == "ties" else
                 ("gaps", "rates every action") if has_prior(hint) else None)
        if needs is not None and not hasattr(self.agent, needs[0]):
            raise ValueError(f"hint {hint!r} needs a scripted agent that {needs[1]}; {type(self.agent).__name__} "
                             f"({battle}) has no {needs[0]}() method: use hint 'scripted'")

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def observe(self, engine, state, player: int, mask: np.ndarray) -> np.ndarray:
        obs = engine.observe(state, player)
        out = np.zeros(obs.size + engine.num_actions, dtype=np.float32)
        out[:obs.size] = obs
        if mask.any():
            if self.hint == "ties":
                out[obs.size + self.agent.ties(engine, state, player, mask)] = 1.0
            elif has_prior(self.hint):
                out[obs.size:] = hint_slots(self.hint, self.agent.gaps(engine, state, player, mask), mask)
            else:
                out[obs.size + int(self.agent.act(engine, state, player, mask))] = 1.0
        return out


def make_observer(hint: str, battle: str, seed: int | None = None) -> Observer:
    """The observer of a policy trained with ``hint`` (``""``: the plain observation)."""
    if not isinstance(hint, str) or hint not in HINTS:
        raise ValueError(f"hint = {hint!r}: expected one of {list(HINTS)}")
    return HintObserver(hint, battle, seed) if hint else Observer()
