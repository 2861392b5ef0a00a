"""The shared invariant suite, run on every registered battle (DESIGN principle 12).

Random legal play through the engine, checking after every decision: the battle's own invariants
(stacking, occupancy, track ranges), a non-empty mask until the end, the observation inside its
space for both players, termination within a bound, and the same game for the same seed.
"""

from __future__ import annotations

import numpy as np
import pytest

from wargame_envs import registry
from wargame_envs.core.dice import Dice

# Random games per battle (the issues ask for at least 500 Berestechko and 300 of the others), and
# how often the (costly, on big maps) observations of both players are checked: every k-th decision.
GAMES = {"berestechko_v0": 500, "kulikovo_v0": 300, "breitenfeld_v0": 300}
OBS_EVERY = {"berestechko_v0": 1, "kulikovo_v0": 7, "breitenfeld_v0": 7}
MAX_DECISIONS = 200_000


def play_random_game(engine, seed: int, check: bool = True, obs_every: int = 1) -> tuple[str, int, np.ndarray]:
    dice, rng = Dice(seed), np.random.default_rng(seed + 1)
    state = engine.new_state({}, dice)
    layout = engine.obs_layout
    decisions = 0
    while not (engine.is_terminal(state) or engine.is_truncated(state)):
        mask = engine.legal_mask(state)
        legal = np.flatnonzero(mask)
        assert legal.size > 0, f"seed {seed}: empty mask at decision {decisions} ({engine.decision_name(state)})"
        if check:
            assert mask.shape == (engine.num_actions,) and mask.dtype == bool
            problems = engine.check_invariants(state)
            assert not problems, f"seed {seed}, decision {decisions}: {problems}"
            for player in range(len(engine.agents)) if decisions % obs_every == 0 else ():
                obs = engine.observe(state, player)
                assert obs.shape == (layout.size,) and obs.dtype == np.float32
                assert obs.min() >= layout.low and obs.max() <= layout.high, \
                    f"seed {seed}: observation outside [{layout.low}, {layout.high}]"
            assert 0 <= engine.current_player(state) < len(engine.agents)
        engine.apply(state, int(legal[rng.integers(legal.size)]), dice)
        decisions += 1
        assert decisions < MAX_DECISIONS, f"seed {seed}: game did not end"
    assert engine.current_player(state) == -1 or engine.is_truncated(state)
    return state.digest(), decisions, engine.returns(state)


@pytest.mark.parametrize("battle", sorted(registry.BATTLES))
def test_random_games_keep_every_invariant(battle):
    engine = registry.make_engine(battle)
    lengths, outcomes = [], []
    for seed in range(GAMES.get(battle, 300)):
        _, n, ret = play_random_game(engine, seed, obs_every=OBS_EVERY.get(battle, 7))
        lengths.append(n)
        outcomes.append(tuple(ret))
        if (ret != 0).any():
            assert sorted(ret.tolist()) == [-1.0, 1.0], f"seed {seed}: returns {ret}"
    assert min(lengths) > 0


@pytest.mark.parametrize("battle", sorted(registry.BATTLES))
def test_same_seed_same_game(battle):
    engine = registry.make_engine(battle)
    for seed in (3, 11):
        first = play_random_game(engine, seed, check=False)
        second = play_random_game(registry.make_engine(battle), seed, check=False)
        assert first[0] == second[0] and first[1] == second[1]
    assert play_random_game(engine, 3, check=False)[0] != play_random_game(engine, 4, check=False)[0]
