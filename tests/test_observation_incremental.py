"""The incremental observations (``core.planes.PlaneBuffer``) equal each battle's from-scratch
``observe_reference`` at every step of random games, for both players, also when states are observed
out of order (earlier clones, another game in between), as a search agent would."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from wargame_envs import registry
from wargame_envs.core.dice import Dice

BATTLES = [name for name in registry.BATTLES
           if hasattr(importlib.import_module(f"wargame_envs.{name.removesuffix('_v0')}.observation"), "observe_reference")]


def reference(name: str):
    return importlib.import_module(f"wargame_envs.{name.removesuffix('_v0')}.observation").observe_reference


def assert_same(engine, ref, s, player: int, where: str) -> None:
    fast, slow = engine.observe(s, player), ref(engine, s, player)
    if not np.array_equal(fast, slow):
        lay = engine.obs_layout
        bad = np.flatnonzero(fast != slow)[:5]
        names = [lay.planes[i // lay.n_hexes] if i < lay.plane_block.stop else f"feature@{i}" for i in bad]
        pytest.fail(f"{where}, player {player}: incremental observation differs at {names} "
                    f"(incremental {fast[bad]}, reference {slow[bad]})")


@pytest.mark.parametrize("name", BATTLES)
def test_incremental_observation_matches_reference(name):
    engine = registry.make_engine(name)
    ref = reference(name)
    rng = np.random.default_rng(7)
    earlier = []
    for game in range(3):
        dice = Dice(100 + game)
        s = engine.new_state(None, dice)
        step = 0
        while not (engine.is_terminal(s) or engine.is_truncated(s)) and step < 700:
            players = (0, 1) if step % 5 == 0 else (engine.current_player(s),)
            for p in players:
                assert_same(engine, ref, s, p, f"game {game} step {step}")
            if step % 40 == 0:
                earlier.append(engine.clone(s))
            if step % 97 == 0 and earlier:  # jump back to an earlier position, then on again
                old = earlier[rng.integers(len(earlier))]
                for p in (0, 1):
                    assert_same(engine, ref, old, p, f"earlier state at game {game} step {step}")
            legal = np.flatnonzero(engine.legal_mask(s))
            engine.apply(s, int(legal[rng.integers(legal.size)]), dice)
            step += 1
        for p in (0, 1):
            assert_same(engine, ref, s, p, f"end of game {game}")


@pytest.mark.parametrize("name", BATTLES)
def test_observation_is_a_fresh_array(name):
    """Each call returns its own array: changing one does not change the next."""
    engine = registry.make_engine(name)
    s = engine.new_state(None, Dice(0))
    p = engine.current_player(s)
    first = engine.observe(s, p)
    first[:] = 0.5
    assert not np.array_equal(engine.observe(s, p), first)
