"""The batched API on Breitenfeld plays the same games as the AEC env: for N = 1, 3 and 8 games (which end
at different decisions and restart on their own), the same seeds and actions give identical observations,
masks, players, rewards and records at every step. Also: skipping, options, positions in and out."""

from __future__ import annotations

import numpy as np
import pytest

from wargame_envs import make
from wargame_envs.breitenfeld.batch import BreitenfeldBackend
from wargame_envs.core.vector import VectorGame

BACKEND = BreitenfeldBackend()


def vector(n: int, seed: int, **options) -> VectorGame:
    return VectorGame(BACKEND, n, seed=seed, options=options)


class Twin:
    """The AEC env playing game ``i`` of a batch (restarted with the batch's seed for that game)."""

    def __init__(self, seed: int, options: dict):
        self.env = make("breitenfeld_v0")
        self.env.reset(seed=seed, options=dict(options))
        self.actions: list[int] = []

    def current(self) -> tuple[int, np.ndarray, np.ndarray]:
        agent = self.env.agent_selection
        o = self.env.observe(agent)
        return self.env.possible_agents.index(agent), o["observation"], o["action_mask"].astype(bool)


def compare_rows(vec: VectorGame, step, twins: list[Twin], where: str) -> None:
    for i, t in enumerate(twins):
        if step.terminated[i]:
            continue
        p, obs, mask = t.current()
        assert step.current_player[i] == p, f"{where} game {i}: player"
        assert np.array_equal(step.action_mask[i], mask), f"{where} game {i}: mask"
        assert np.array_equal(step.observation[i], obs), f"{where} game {i}: observation"
        assert not step.rewards[i].any(), f"{where} game {i}: rewards mid-game"


def play_both(n: int, seed: int, options: dict, restarts: int = 1) -> int:
    """Random legal play of ``n`` batched games against their AEC twins until ``restarts`` games have
    finished and restarted; returns the number of steps."""
    rng = np.random.default_rng(seed)
    vec = vector(n, seed, **options)
    step = vec.reset()
    twins = [Twin(int(s), options) for s in vec.seeds]
    compare_rows(vec, step, twins, "reset")
    finished = steps = 0
    while finished < restarts:
        actions = np.array([int(rng.choice(np.flatnonzero(step.action_mask[i]))) if not step.terminated[i] else 0
                            for i in range(n)], dtype=np.int64)
        was_over = step.terminated.copy()
        step = vec.step(actions)
        steps += 1
        for i, t in enumerate(twins):
            if was_over[i]:                          # auto-reset: the batch started a new game for it
                assert not step.terminated[i] and not step.rewards[i].any()
                twins[i] = Twin(int(vec.seeds[i]), options)
                continue
            t.env.step(int(actions[i]))
            t.actions.append(int(actions[i]))
            if step.terminated[i]:
                finished += 1
                env = t.env
                assert env.terminations[env.agent_selection]
                ret = [env.rewards[a] for a in env.possible_agents]
                assert step.rewards[i].tolist() == ret and sorted(ret) in ([-1.0, 1.0], [0.0, 0.0])
                assert env.unwrapped.record.actions == t.actions
                assert env.unwrapped.record.seed == int(vec.seeds[i])
                assert not step.action_mask[i].any()
        compare_rows(vec, step, twins, f"step {steps}")
    return steps


@pytest.mark.parametrize("n, seed, options", [(1, 0, {}), (3, 1, {"turn_ends_chit": True}),
                                              (8, 2, {"visibility": True})])
def test_vector_plays_the_same_games_as_the_aec_env(n, seed, options):
    assert play_both(n, seed, options, restarts=n if n < 8 else 3) > 500


def test_skipped_games_stay_as_they_were():
    vec = vector(3, 5)
    step = vec.reset()
    before = vec.states.copy()
    obs = step.observation.copy()
    a = np.full(3, -1, dtype=np.int64)
    a[1] = int(np.flatnonzero(step.action_mask[1])[0])
    step = vec.step(a)
    assert np.array_equal(vec.states[[0, 2]], before[[0, 2]]) and not np.array_equal(vec.states[1], before[1])
    assert np.array_equal(step.observation[[0, 2]], obs[[0, 2]])


def test_positions_in_and_out_continue_the_same_games():
    vec = vector(2, 7)
    step = vec.reset()
    rng = np.random.default_rng(7)
    for _ in range(60):
        step = vec.step(np.array([int(rng.choice(np.flatnonzero(m))) for m in step.action_mask]))
    positions = vec.to_positions()
    other = vector(2, 8)
    other.reset()
    step2 = other.from_positions(positions, seed=3)
    assert np.array_equal(step2.action_mask, step.action_mask)
    assert np.array_equal(step2.observation, step.observation)
    assert other.to_positions() == positions


def test_observe_either_seat():
    vec = vector(2, 9)
    vec.reset()
    env = make("breitenfeld_v0")
    env.reset(seed=int(vec.seeds[1]))
    for p, agent in enumerate(env.possible_agents):
        assert np.array_equal(vec.observe(p)[1], env.observe(agent)["observation"])
