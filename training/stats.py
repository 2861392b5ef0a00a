"""Small statistics for evaluations: Wilson intervals, binomial bands, OpenSkill ratings.

Only the standard library and numpy at import time; ``openskill`` is imported by :func:`rate_games`.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Iterable, Sequence


def z_score(confidence: float) -> float:
    """Two-sided normal quantile: 0.95 -> 1.95996..., 0.99 -> 2.57583..."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (sound at 0 and n successes, unlike the
    normal approximation). ``trials == 0`` gives the uninformative ``(0.0, 1.0)``."""
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes}/{trials}")
    if trials == 0:
        return 0.0, 1.0
    z = z_score(confidence)
    n, p = float(trials), successes / trials
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At 0 or n successes the bound is exactly 0 or 1; clamp away float round-off.
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == trials else min(1.0, centre + half)
    return lo, hi


def binomial_band(p_ref: float, trials: int, confidence: float = 0.99, ref_trials: int | None = None) -> tuple[float, float]:
    """Band a fresh run's rate over ``trials`` games should fall in when the true rate is the
    recorded ``p_ref`` (itself estimated from ``ref_trials`` games, whose uncertainty widens the band)."""
    if trials <= 0:
        raise ValueError(f"trials must be positive, got {trials}")
    var = p_ref * (1 - p_ref) * (1.0 / trials + (1.0 / ref_trials if ref_trials else 0.0))
    half = z_score(confidence) * math.sqrt(var)
    return max(0.0, p_ref - half), min(1.0, p_ref + half)


def rate_games(names: Sequence[str], games: Iterable[tuple[str, str, int]]) -> dict[str, dict[str, float]]:
    """OpenSkill (Plackett-Luce) ratings from games in order.

    ``games``: ``(name_of_side_0, name_of_side_1, winner)`` with winner 0, 1, or -1 for a draw
    (truncated games are draws). Mirror games (the same name on both sides) do not change a rating.
    Returns name -> ``{"mu", "sigma", "ordinal"}`` (ordinal = mu - 3 sigma, the conservative rank).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    for a, b, winner in games:
        if a == b:
            continue
        ranks = [0, 0] if winner < 0 else ([0, 1] if winner == 0 else [1, 0])
        (ra,), (rb,) = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
        ratings[a], ratings[b] = ra, rb
    return {n: {"mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal())} for n, r in ratings.items()}
