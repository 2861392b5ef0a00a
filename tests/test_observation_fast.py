"""Each battle's fast ``observe`` (compiled kernels, caches) equals its from-scratch Python
``observe_reference`` at every step of random games, for both players, also when states are observed
out of order (earlier clones, another game in between), as a search agent would. (The kernels' Python
source against their compiled form: ``test_kernels.py``.)"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from wargame_envs import registry
from wargame_envs.core.dice import Dice


def observation_module(name: str):
    return importlib.import_module(f"wargame_envs.{name.removesuffix('_v0')}.observation")


BATTLES = [name for name in registry.BATTLES if hasattr(observation_module(name), "observe_reference")]


def mismatch(engine, s, player: int) -> str | None:
    """None when the fast and the reference observation agree, else where they differ."""
    fast, slow = engine.observe(s, player), observation_module(engine.name).observe_reference(engine, s, player)
    if np.array_equal(fast, slow):
        return None
    lay = engine.obs_layout
    bad = np.flatnonzero(fast != slow)[:5]
    names = [lay.planes[i // lay.n_hexes] if i < lay.plane_block.stop else f"feature@{i}" for i in bad]
    return f"player {player}: differs at {names} (fast {fast[bad]}, reference {slow[bad]})"


def play_and_compare(engine, seed: int, max_steps: int = 700) -> list[str]:
    """Random game ``seed``: compare both players' observations (every step for the player to move,
    every fifth for both), an earlier clone now and then, and another game's start."""
    rng = np.random.default_rng(seed)
    dice = Dice(seed)
    s = engine.new_state(None, dice)
    earlier, found, step = [], [], 0
    while not (engine.is_terminal(s) or engine.is_truncated(s)) and step < max_steps:
        checks = [(s, (0, 1) if step % 5 == 0 else (engine.current_player(s),), "current")]
        if step % 40 == 0:
            earlier.append(engine.clone(s))
        if step % 97 == 0:
            checks.append((earlier[rng.integers(len(earlier))], (0, 1), "earlier clone"))
        if step % 131 == 0:
            checks.append((engine.new_state(None, Dice(seed + 1000 + step)), (0, 1), "another game"))
        for state, players, what in checks:
            found += [f"seed {seed} step {step} ({what}) {bad}" for p in players if (bad := mismatch(engine, state, p))]
        legal = np.flatnonzero(engine.legal_mask(s))
        engine.apply(s, int(legal[rng.integers(legal.size)]), dice)
        step += 1
    found += [f"seed {seed} end {bad}" for p in (0, 1) if (bad := mismatch(engine, s, p))]
    return found


@pytest.mark.parametrize("name", BATTLES)
def test_fast_observation_matches_reference(name):
    engine = registry.make_engine(name)
    for seed in (100, 101, 102):
        assert play_and_compare(engine, seed) == []


@pytest.mark.parametrize("name", BATTLES)
def test_one_engine_observing_two_games_in_turn_stays_exact(name):
    """Nothing cached for one game leaks into the other's observations."""
    engine = registry.make_engine(name)
    games = [(Dice(seed), np.random.default_rng(seed)) for seed in (5, 6)]
    states = [engine.new_state(None, dice) for dice, _ in games]
    for step in range(300):
        for (dice, rng), s in zip(games, states):
            if engine.is_terminal(s) or engine.is_truncated(s):
                continue
            for p in (0, 1):
                assert mismatch(engine, s, p) is None, f"step {step}"
            legal = np.flatnonzero(engine.legal_mask(s))
            engine.apply(s, int(legal[rng.integers(legal.size)]), dice)


KERNEL_BATTLES = [name for name in BATTLES if hasattr(observation_module(name), "_draw_pieces")]


@pytest.mark.parametrize("name", KERNEL_BATTLES)
def test_the_comparison_catches_a_kernel_that_draws_nothing(name, monkeypatch):
    """Guard for the tests above: with the piece-drawing kernel replaced by one that draws nothing,
    the comparison must report differences."""
    module = observation_module(name)
    monkeypatch.setattr(module, "_draw_pieces", lambda obs, *tables: None)
    assert play_and_compare(registry.make_engine(name), 100, max_steps=50)


@pytest.mark.parametrize("name", BATTLES)
def test_observation_is_a_fresh_array_in_range(name):
    """Each call returns its own float32 array in [0, 1]: changing one does not change the next."""
    engine = registry.make_engine(name)
    s = engine.new_state(None, Dice(0))
    p = engine.current_player(s)
    first = engine.observe(s, p)
    assert first.dtype == np.float32 and first.min() >= 0.0 and first.max() <= 1.0
    first[:] = 0.5
    assert not np.array_equal(engine.observe(s, p), first)
