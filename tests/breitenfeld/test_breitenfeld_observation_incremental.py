"""The incremental observation (``observation.observe``, per-observer ``PlaneBuffer``) equals the
from-scratch ``observation.observe_reference`` at every step of random games, for both players, also when
the engine is handed states out of order (earlier clones, another game in between), as a search agent
would do."""

from __future__ import annotations

import numpy as np
import pytest

from wargame_envs.breitenfeld import observation
from wargame_envs.breitenfeld.rules import BreitenfeldEngine
from wargame_envs.core.dice import Dice


def mismatch(E, s, player: int) -> str | None:
    """None when both observations agree, else where they differ."""
    fast, slow = E.observe(s, player), observation.observe_reference(E, s, player)
    if np.array_equal(fast, slow):
        return None
    lay = E.obs_layout
    bad = np.flatnonzero(fast != slow)[:5]
    names = [lay.planes[i // lay.n_hexes] if i < lay.plane_block.stop else f"feature@{i}" for i in bad]
    return f"player {player}: differs at {names} (incremental {fast[bad]}, reference {slow[bad]})"


def play_and_compare(E, seed: int, max_steps: int | None = None) -> list[str]:
    """Random game ``seed``; compare both players' observations at every step, plus earlier clones and
    a fresh game's start now and then. Returns the mismatches found."""
    rng = np.random.default_rng(seed)
    dice = Dice(seed)
    s = E.new_state(None, dice)
    earlier, found, step = [], [], 0
    while not E.is_terminal(s) and step != max_steps:
        checks = [(s, "current")]
        if step % 30 == 0:
            earlier.append(E.clone(s))
        if step % 71 == 0 and earlier:
            checks.append((earlier[rng.integers(len(earlier))], "earlier clone"))
        if step % 113 == 0:
            checks.append((E.new_state(None, Dice(seed + 1000 + step)), "another game"))
        for state, what in checks:
            for player in (0, 1):
                bad = mismatch(E, state, player)
                if bad:
                    found.append(f"seed {seed} step {step} ({what}) {bad}")
        legal = np.flatnonzero(E.legal_mask(s))
        E.apply(s, int(legal[rng.integers(legal.size)]), dice)
        step += 1
    found += [f"seed {seed} end {bad}" for p in (0, 1) if (bad := mismatch(E, s, p))]
    return found


@pytest.mark.parametrize("seed", [3, 11])
def test_incremental_observation_equals_reference_through_random_games(seed):
    assert play_and_compare(BreitenfeldEngine(), seed) == []


def test_two_engines_and_interleaved_games_stay_exact():
    """One engine observing two games in alternation (each step redraws what the other game moved)."""
    E = BreitenfeldEngine()
    games = [(Dice(seed), np.random.default_rng(seed)) for seed in (5, 6)]
    states = [E.new_state(None, dice) for dice, _ in games]
    for step in range(400):
        for (dice, rng), s in zip(games, states):
            if E.is_terminal(s):
                continue
            for player in (0, 1):
                assert mismatch(E, s, player) is None, f"step {step}"
            legal = np.flatnonzero(E.legal_mask(s))
            E.apply(s, int(legal[rng.integers(legal.size)]), dice)


def test_the_comparison_catches_a_wrong_incremental_update(monkeypatch):
    """Guard for the tests above: an incremental update that forgets to redraw changed status marks
    must be reported."""
    drawn: dict = {}

    def stale_marks(T, player, u, key):        # draws each unit's marks only the first time it is seen
        return drawn.setdefault((player, u), real_marks(T, player, u, key))

    real_marks = observation._mark_bits
    monkeypatch.setattr(observation, "_mark_bits", stale_marks)
    assert play_and_compare(BreitenfeldEngine(), 3, max_steps=300)


def test_observation_is_a_fresh_array_in_range():
    E = BreitenfeldEngine()
    s = E.new_state(None, Dice(0))
    first = E.observe(s, 0)
    assert first.dtype == np.float32 and first.min() >= 0.0 and first.max() <= 1.0
    first[:] = 0.5
    assert not np.array_equal(E.observe(s, 0), first)
