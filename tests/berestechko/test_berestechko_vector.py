"""The batched Berestechko (``wargame_envs.vector``, backend ``berestechko.batch``) plays the very games of the
AEC env: for the same seeds and actions, at several batch sizes, with games ending (and restarting) at
different times and some games skipped, every step's observation, mask, player, rewards and flags equal the
AEC env's, and each finished game's record replays to the batch's final state."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from wargame_envs import berestechko_v0
from wargame_envs.berestechko.batch import BerestechkoBackend
from wargame_envs.berestechko.state import S
from wargame_envs.core import GameRecord
from wargame_envs.core.records import replay_final
from wargame_envs.core.vector import VectorGame

from vector_mirror import Mirror

BACKEND = BerestechkoBackend()


def make(n: int, seed: int, **options) -> VectorGame:
    return VectorGame(BACKEND, n, seed=seed, options=options)


def play_and_compare(n: int, seed: int, steps: int, options: dict | None = None, skip: float = 0.1) -> int:
    """Random play of a batch of ``n`` against its mirror; returns how many games ended."""
    options = options or {}
    vec = make(n, seed, **options)
    step = vec.reset()
    mirror = Mirror(vec, berestechko_v0.env, options)
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(steps):
        for i in range(n):
            mirror.check_row(step, i)
        done = step.terminated.copy()
        for i in np.flatnonzero(done):
            # the batch's game as a record (its seed, options and actions) is the AEC env's record, and
            # replays to the batch's final state
            record = GameRecord(env="berestechko_v0", seed=int(vec.seeds[i]), options=options,
                                actions=list(mirror.actions[i]), returns=[float(r) for r in step.rewards[i]])
            aec = mirror.envs[i].unwrapped.record
            assert (aec.seed, aec.options, aec.actions, aec.returns) == (
                record.seed, record.options, record.actions, record.returns)
            _, final = replay_final(GameRecord.from_dict(json.loads(record.to_json())))
            np.testing.assert_array_equal(final.buf, vec.states[i])
            assert final.digest() == aec.final_digest
        mask = step.action_mask
        actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
        actions[(rng.random(n) < skip) & ~done] = -1
        step = vec.step(actions)
        for i in range(n):
            if done[i]:
                ended += 1
                mirror.restart(i)  # auto-reset: the new game's seed is vec.seeds[i]
            elif actions[i] >= 0:
                mirror.step(i, int(actions[i]))
        rewards_skipped = step.rewards[actions == -1]
        assert not rewards_skipped.any()
    return ended


@pytest.mark.parametrize("n", [1, 3, 8])
def test_vector_plays_the_aec_games(n):
    ended = play_and_compare(n, seed=n, steps=900)
    assert ended >= n  # every game slot ended at least once (and restarted)


def test_vector_plays_the_aec_games_of_the_variant():
    assert play_and_compare(3, seed=11, steps=400, options={"variant": True}) >= 1


def test_observe_either_seat_matches_the_engine():
    vec = make(4, 5)
    step = vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        mask = step.action_mask
        step = vec.step(np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1))
    engine = BACKEND.engine
    for p in (0, 1):
        obs = vec.observe(p)
        for i in range(4):
            np.testing.assert_array_equal(obs[i], engine.observe(BACKEND.state_view(vec.states[i]), p))


def test_positions_move_in_and_out_of_the_batch():
    vec = make(3, 7)
    step = vec.reset()
    rng = np.random.default_rng(7)
    for _ in range(25):
        mask = step.action_mask
        step = vec.step(np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1))
    positions = vec.to_positions()
    engine = BACKEND.engine
    for i, pos in enumerate(positions):
        assert pos == engine.to_position(BACKEND.state_view(vec.states[i]))
    other = make(3, 8)
    step = other.from_positions(positions, seed=3)
    np.testing.assert_array_equal(other.states, vec.states)
    mirror = [berestechko_v0.env() for _ in range(3)]
    for i, env in enumerate(mirror):
        env.reset(seed=int(other.seeds[i]), options={"position": positions[i]})
    for _ in range(40):  # the continued games roll the dice of their new seeds, as the AEC env does
        mask = step.action_mask
        actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
        actions[step.terminated] = -1
        for i, env in enumerate(mirror):
            if actions[i] >= 0:
                obs = env.observe(env.agent_selection)
                np.testing.assert_array_equal(step.observation[i], obs["observation"])
                env.step(int(actions[i]))
        step = other.step(actions)
    for i, env in enumerate(mirror):
        np.testing.assert_array_equal(other.states[i], env.unwrapped.state_.buf)


def test_a_position_option_starts_every_game_there():
    env = berestechko_v0.env()
    env.reset(seed=1)
    while env.unwrapped.decision_name() != "choose_die" or env.unwrapped.state_.sc[S.SPENT] != 2:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    pos = env.unwrapped.position()
    del pos["dice"], pos["dice_used"]  # the games open with a throw of their own dice
    vec = make(2, 4, position=pos)
    vec.reset()
    assert [p["units"] for p in vec.to_positions()] == [pos["units"]] * 2
    assert play_and_compare(2, seed=4, steps=120, options={"position": pos}, skip=0.0) == 0


def batch_digest(n: int = 3, steps: int = 60) -> str:
    """Digest of a short batched random game (states, observations, masks, rewards)."""
    vec = make(n, 9)
    step = vec.reset()
    rng = np.random.default_rng(9)
    h = hashlib.sha1()
    for _ in range(steps):
        for a in (vec.states, step.observation, step.action_mask, step.rewards, step.current_player):
            h.update(a.tobytes())
        mask = step.action_mask
        step = vec.step(np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1))
    return h.hexdigest()


def test_batched_kernels_run_the_same_as_plain_python():
    """With numba's JIT disabled the batched step is the same code run as Python, with the same result."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.pathsep.join([os.path.dirname(here), os.environ.get("PYTHONPATH", "")])  # tests/: vector_mirror
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": path}
    code = "from test_berestechko_vector import batch_digest; print(batch_digest())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=here)
    assert out.stdout.strip() == batch_digest()
