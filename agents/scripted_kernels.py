"""Compiled helpers that every battle's scripted kernels share: reading a row of action scores against the
legal mask (the best legal score, the tied-best set, each action's gap to the best)."""

from __future__ import annotations

import numpy as np

from wargame_envs.core.jit import kernel


@kernel
def legal_count(mask):
    """How many actions ``mask`` allows."""
    n = 0
    for a in range(mask.shape[0]):
        n += 1 if mask[a] else 0
    return n


@kernel
def best_legal_score(scores, mask):
    """The highest score among the legal actions (-inf when none is legal)."""
    top = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and scores[a] > top:
            top = scores[a]
    return top


@kernel
def mark_ties(scores, mask, tie, out):
    """``out[a]``: legal ``a`` scores within ``tie`` of the best legal score."""
    top = best_legal_score(scores, mask)
    for a in range(mask.shape[0]):
        out[a] = mask[a] and scores[a] >= top - tie


@kernel
def mark_gaps(scores, mask, out):
    """``out[a]``: legal ``a``'s score minus the best legal score; -inf where illegal."""
    top = best_legal_score(scores, mask)
    for a in range(mask.shape[0]):
        out[a] = scores[a] - top if mask[a] else -np.inf


@kernel
def mark_lone(mask, out):
    """A decision that needs no judgement (at most one legal action): its legal action rates 0, the rest -inf."""
    for a in range(mask.shape[0]):
        out[a] = 0.0 if mask[a] else -np.inf
