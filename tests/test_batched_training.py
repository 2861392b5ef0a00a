"""The batched trainer (``training.batched``): per-seat returns, and a smoke run on each battle's batched games."""

from __future__ import annotations

import json

import numpy as np
import pytest

import wargame_envs.vector as vector
from training.batched import advantages


def test_returns_follow_each_seat_and_credit_the_end_to_both():
    """Seat 0 decides at t0, t1; seat 1 at t2, t3; the game ends on seat 1's move (seat 0 wins).
    With gamma = lambda = 1 each decision's return is its seat's outcome, whoever moved last."""
    values = np.array([[0.1], [0.2], [0.3], [0.4]], np.float32)
    learner = np.ones((4, 1), bool)
    seat = np.array([[0], [0], [1], [1]])
    rewards = np.zeros((4, 1, 2), np.float32)
    rewards[3, 0] = [1.0, -1.0]
    done = np.array([[False], [False], [False], [True]])
    adv, ret = advantages(values, learner, seat, rewards, done, np.zeros((1, 2)), 1.0, 1.0)
    np.testing.assert_allclose(ret[:, 0], [1.0, 1.0, -1.0, -1.0], atol=1e-6)
    np.testing.assert_allclose(adv[:, 0], [0.9, 0.8, -1.3, -1.4], atol=1e-6)


def test_no_credit_leaks_across_games_and_opponent_rows_are_not_samples():
    """Game 1 ends at t1; t2.. is a new game whose bootstrap is the last values. Rows of the opponent
    (learner False) get nothing and pass their seat's rewards on to the learner's decisions."""
    values = np.array([[0.5], [0.0], [0.2], [0.0]], np.float32)
    learner = np.array([[True], [False], [True], [False]])
    seat = np.array([[0], [1], [0], [1]])
    rewards = np.zeros((4, 1, 2), np.float32)
    rewards[1, 0] = [-1.0, 1.0]
    done = np.array([[False], [True], [False], [False]])
    last = np.array([[0.7, -0.7]], np.float32)
    adv, ret = advantages(values, learner, seat, rewards, done, last, 0.9, 0.8)
    assert ret[0, 0] == pytest.approx(-1.0)  # the loss of the first game, nothing from the second
    assert ret[2, 0] == pytest.approx(0.9 * 0.7)  # bootstrapped from the seat's last value
    assert adv[1, 0] == 0 and adv[3, 0] == 0


@pytest.mark.parametrize("battle", sorted(vector.BACKENDS))
def test_batched_training_smoke(battle, tmp_path):
    from training.batched import train_batched
    from training.checkpoints import load_checkpoint
    from training.train import TrainArgs
    from wargame_envs.registry import make_engine

    out = tmp_path / "run"
    args = TrainArgs(battle=battle, minutes=0, total_timesteps=600, n_envs=8, n_steps=40, batch_size=128,
                     n_epochs=1, imitation_games=1, imitation_epochs=1, eval_games=1, snapshot_every=300,
                     net_arch="16", kl_coef=0.1, progress=False, out=str(out), max_steps=300)
    result = train_batched(args)
    assert result.timesteps >= 600 and result.steps_per_second > 0
    ckpt = load_checkpoint(result.checkpoint, engine=make_engine(battle))
    assert ckpt.meta["timesteps"] == result.timesteps and ckpt.meta["args"]["backend"] == "default"
    assert any(e["kind"] == "snapshot" for e in ckpt.meta["pool"])
    assert json.loads((out / "eval.json").read_text())["about"]["checkpoint"] == str(result.checkpoint)
