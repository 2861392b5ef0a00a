"""PettingZoo's own API, seed and render tests on every registered battle."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from wargame_envs import make, registry

BATTLES = sorted(registry.BATTLES)


@pytest.mark.parametrize("battle", BATTLES)
def test_api(battle):
    with pytest.warns(UserWarning):  # api_test passes a dummy reset option; the env warns and ignores it
        api_test(make(battle), num_cycles=300)


@pytest.mark.parametrize("battle", BATTLES)
def test_seed(battle):
    seed_test(lambda: make(battle), num_cycles=300)


@pytest.mark.parametrize("battle", BATTLES)
def test_render_modes(battle, capsys):
    render_test(lambda render_mode=None: make(battle, render_mode=render_mode))
    env = make(battle, render_mode="rgb_array")
    env.reset(seed=1)
    image = env.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8 and image.std() > 0
    env = make(battle, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and len(text.splitlines()) > 5


@pytest.mark.parametrize("battle", BATTLES)
def test_only_the_agent_to_move_has_a_mask_and_records_replay(battle):
    from wargame_envs.core import replay_final

    env = make(battle)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(200):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        for other in env.agents:
            mask = env.observe(other)["action_mask"]
            assert mask.dtype == np.int8
            assert (mask.sum() > 0) == (other == agent)
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(rng.choice(legal)))
    raw = env.unwrapped
    record = raw.record
    _, final = replay_final(record)
    assert final == raw.game_state
