"""The batched Kulikovo (``wargame_envs.vector``, backend ``kulikovo.batch``) plays the very games of the AEC
env: for the same seeds and actions, at several batch sizes, with games ending (flights and the activation
limit) and restarting at different times and some games skipped, every step's observation, mask, player,
rewards and flags equal the AEC env's, and each finished game's record holds the batch's actions. The
compact observations are the float ones x 255, rounded."""

from __future__ import annotations

import numpy as np
import pytest

from wargame_envs.core.dice import Dice
from wargame_envs.core.vector import VectorGame
from wargame_envs.kulikovo import env as kulikovo_env
from wargame_envs.kulikovo.batch import KulikovoBackend

from kulikovo_testlib import engine
from vector_mirror import Mirror

BACKEND = KulikovoBackend()


def near_flight_position(fp=(57, 52)) -> dict:
    """The opening position with Flight Points near both Flight Levels (16.0): games end early, by flight."""
    eng = engine()
    pos = eng.to_position(eng.new_state({"max_activations": 0}, Dice(0)))
    pos["internal"]["fp"] = list(fp)
    pos["flight_points"] = {"russian": fp[0], "mongol": fp[1]}
    return pos


def play_and_compare(n: int, seed: int, steps: int, options: dict, skip: float = 0.1) -> tuple[int, int]:
    """Random play of a batch of ``n`` against its mirror: (games won, games truncated)."""
    vec = VectorGame(BACKEND, n, seed=seed, options=options)
    step = vec.reset()
    mirror = Mirror(vec, kulikovo_env, options)
    rng = np.random.default_rng(seed)
    won = truncated = 0
    for _ in range(steps):
        for i in range(n):
            mirror.check_row(step, i)
        done = step.terminated | step.truncated
        won += int(step.terminated.sum())
        truncated += int(step.truncated.sum())
        actions = np.full(n, -1, dtype=np.int64)
        for i in range(n):
            legal = np.flatnonzero(step.action_mask[i])
            if done[i] or (legal.size and rng.random() >= skip):
                actions[i] = 0 if done[i] else int(rng.choice(legal))
        step = vec.step(actions)
        for i in range(n):
            if done[i]:
                mirror.restart(i)
            elif actions[i] >= 0:
                mirror.step(i, int(actions[i]))
            else:
                assert not step.rewards[i].any()
    return won, truncated


@pytest.mark.parametrize("n", [1, 3, 8])
def test_batch_plays_the_aec_games_to_the_activation_limit(n):
    won, truncated = play_and_compare(n, seed=20 + n, steps=260 // n + 60, options={"max_activations": 4})
    assert truncated >= 1


@pytest.mark.parametrize("n", [1, 3, 8])
def test_batch_plays_the_aec_games_to_a_flight(n):
    won, _ = play_and_compare(n, seed=40 + n, steps=200 // n + 40,
                              options={"position": near_flight_position(), "max_activations": 0})
    assert won >= 1


def test_batch_plays_free_setup_and_false_dmitri_games():
    play_and_compare(3, seed=7, steps=150, options={"setup": "free", "false_dmitri": True, "max_activations": 6})


def as_compact(obs: np.ndarray) -> np.ndarray:
    return np.floor(obs.astype(np.float64) * 255.0 + 0.5).astype(np.uint8)


def test_compact_observation_is_the_float_one_times_255():
    opts = {"max_activations": 3}
    a = VectorGame(BACKEND, 4, seed=5, options=opts)
    b = VectorGame(KulikovoBackend(observation="compact"), 4, seed=5, options=opts)
    sa, sb = a.reset(), b.reset()
    rng = np.random.default_rng(0)
    for _ in range(60):
        assert sb.observation.dtype == np.uint8
        np.testing.assert_array_equal(as_compact(sa.observation), sb.observation)
        np.testing.assert_array_equal(sa.action_mask, sb.action_mask)
        actions = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in sa.action_mask])
        sa, sb = a.step(actions), b.step(actions)
    np.testing.assert_array_equal(as_compact(a.observe(1)), b.observe(1))


def test_unknown_observation_form_is_refused():
    with pytest.raises(ValueError, match="observation"):
        KulikovoBackend(observation="int4")


def test_rows_written_in_place_equal_the_reference_observation():
    """Each row is updated only where it changed, also when the seat it shows changes from one step to the
    next: at every step it equals the from-scratch ``observe_reference`` of its game for its seat."""
    from wargame_envs.kulikovo.observation import observe_reference

    vec = VectorGame(BACKEND, 4, seed=11, options={"max_activations": 5})
    step = vec.reset()
    eng = BACKEND.engine
    rng = np.random.default_rng(11)
    switched = 0
    for _ in range(250):
        for i in range(vec.num_envs):
            s = BACKEND.state_view(vec.states[i])
            np.testing.assert_array_equal(step.observation[i], observe_reference(eng, s, int(step.current_player[i])))
        before = step.current_player.copy()
        actions = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in step.action_mask])
        step = vec.step(actions)
        switched += int((step.current_player != before).sum())
    assert switched >= 10
