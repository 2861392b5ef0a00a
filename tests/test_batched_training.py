"""The batched trainer (``training.batched``): per-seat returns, and a smoke run on each battle's batched games."""

from __future__ import annotations

import dataclasses
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


def test_batched_training_with_the_ties_hint(tmp_path):
    """``--hint ties``: the input marks the tied-best moves; the clone and the KL term take the whole set."""
    from training.batched import train_batched
    from training.checkpoints import load_checkpoint
    from training.train import TrainArgs

    args = TrainArgs(battle="berestechko", hint="ties", minutes=0, total_timesteps=300, n_envs=8, n_steps=40,
                     batch_size=128, n_epochs=1, imitation_games=2, imitation_epochs=2, eval_games=0,
                     net_arch="16", kl_coef=0.1, baselines="scripted", progress=False, out=str(tmp_path / "run"))
    result = train_batched(args)
    assert result.timesteps >= 300
    assert load_checkpoint(result.checkpoint).meta["hint"] == "ties"


def test_batched_training_with_the_scores_hint(tmp_path):
    """``--hint scores``: the heuristic's ratings enter the input and, as a prior, the logits; the checkpoint's
    policy (numpy actor) adds the same prior as the trainer's torch network."""
    import torch

    from agents.policy import PolicyAgent
    from training.batched import MaskedActorCritic, train_batched
    from training.checkpoints import load_checkpoint
    from training.train import TrainArgs
    from wargame_envs.registry import make_engine

    args = TrainArgs(battle="berestechko", hint="scores", backend="batched", minutes=0, total_timesteps=300, n_envs=8,
                     n_steps=40, batch_size=128, n_epochs=1, imitation_games=1, imitation_epochs=1, eval_games=0,
                     net_arch="16", kl_coef=0.1, baselines="scripted", progress=False, out=str(tmp_path / "run"),
                     curriculum_epsilon=0.5, curriculum_steps=200)
    result = train_batched(args)
    ckpt = load_checkpoint(result.checkpoint)
    assert ckpt.meta["hint"] == "scores" and result.timesteps >= 300
    logged = (tmp_path / "run" / "tb" / "progress.csv").read_text().splitlines()
    column = logged[0].split(",").index("train/curriculum_epsilon")
    rates = [float(line.split(",")[column]) for line in logged[1:]]
    assert rates[0] == 0.5 and rates[-1] == 0.0  # 0.5 at first, 0 from 200 learner steps on
    agent, engine = PolicyAgent(result.checkpoint), make_engine("berestechko")
    assert agent.actor.prior
    x = np.zeros((4, agent.actor.layers[0][0].shape[0]), np.float32)
    x[:, -engine.num_actions:] = np.random.default_rng(0).random((4, engine.num_actions))
    mask = np.ones((4, engine.num_actions), bool)
    with torch.no_grad():
        z, _ = MaskedActorCritic(agent.policy, "cpu", prior_actions=engine.num_actions).logits_values(
            torch.as_tensor(x), torch.as_tensor(mask))
    np.testing.assert_allclose(agent.actor.logits(x), z.numpy(), rtol=1e-4, atol=1e-4)


def test_the_kl_term_of_the_scores_hint_is_the_cross_entropy_on_the_prior():
    """With the network's output at zero the policy is the prior q = softmax((score - best) / T): the KL term
    (cross-entropy of the policy on q) is then q's entropy."""
    import torch

    from training.batched import MaskedActorCritic, Rollout, build_network, ppo_update
    from training.train import TrainArgs
    from wargame_envs.registry import make_engine

    engine = make_engine("berestechko")
    A = engine.num_actions
    args = TrainArgs(battle="berestechko", hint="scores", net_arch="8", n_epochs=1, batch_size=64, learning_rate=0.0)
    policy = build_network(args, engine, "cpu")
    with torch.no_grad():
        policy.action_net.weight.zero_()
        policy.action_net.bias.zero_()
    rng = np.random.default_rng(2)
    n = 32
    x = np.zeros((n, policy.observation_space.shape[0]), np.float32)
    mask = rng.random((n, A)) < 0.3
    mask[:, 0] = True
    x[:, -A:] = np.where(mask, np.exp(-rng.random((n, A)) * 3), 0.0)
    q = x[:, -A:] / x[:, -A:].sum(1, keepdims=True)
    entropy = -(q * np.log(np.where(q > 0, q, 1))).sum(1).mean()
    learner = np.ones((1, n), bool)
    zeros = lambda dtype: np.zeros((1, n), dtype)  # noqa: E731
    ro = Rollout(x, mask, n, zeros(np.int64), zeros(np.float32), zeros(np.float32), learner, zeros(np.int64),
                 zeros(np.int64), np.zeros((1, n, 2), np.float32), zeros(bool))
    net = MaskedActorCritic(policy, "cpu", prior_actions=A)
    stats = ppo_update(net, policy.optimizer, ro, zeros(np.float32), zeros(np.float32), args, 1.0, rng)
    assert stats["kl_hint"] == pytest.approx(entropy, rel=1e-4)


@pytest.mark.parametrize("battle", ["berestechko", "breitenfeld", "kulikovo"])
@pytest.mark.parametrize("compiled", [True, False])  # the backend's scores_batch, and the engine game by game
def test_vector_scores_are_the_engines(battle, compiled):
    vec = vector.make(battle, 4, seed=3)
    if not compiled:
        vec.backend.scores_batch = None
    vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(60):
        vec.step(vec.random_actions(rng))
    engine = vec.backend.engine
    expected = np.stack([engine.scores(vec.backend.state_view(row)) for row in vec.states])
    np.testing.assert_array_equal(vec.scores(), expected)


def self_play_games(args, seed: int):
    """``SelfPlayGames`` of ``args`` in which one uniformly random legal policy plays both seats (values 0)."""
    from training.batched import SELF, SelfPlayGames
    from training.selfplay import OpponentPool

    pool = OpponentPool()
    pool.add(SELF, None, SELF)
    rng = np.random.default_rng(seed)

    def policy(x, mask):
        a = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
        return a, np.zeros(len(a), np.float32), np.zeros(len(a), np.float32)

    return SelfPlayGames(args, pool, policy, lambda x: np.zeros(len(x), np.float32), seed=0)


def test_shaped_rewards_are_the_change_of_the_score_difference():
    """Over a rollout, each game's shaped rewards add up to ``shaped_scale`` x the change of (own - enemy) score
    from the rollout's start to its end (the game below runs long enough not to finish inside it); the other
    seat gets the opposite."""
    from training.train import TrainArgs

    games = self_play_games(TrainArgs(battle="berestechko", n_envs=3, shaped=True, shaped_scale=0.5, hint=""), 1)
    start = games.vec.scores().copy()
    ro, _ = games.collect(30)
    assert not ro.done.any()
    end = games.vec.scores()
    swing = 0.5 * ((end[:, 0] - start[:, 0]) - (end[:, 1] - start[:, 1]))
    np.testing.assert_allclose(ro.rewards[:, :, 0].sum(axis=0), swing, atol=1e-5)
    np.testing.assert_allclose(ro.rewards[:, :, 1].sum(axis=0), -swing, atol=1e-5)
    assert np.abs(swing).max() > 0  # the test sees scores move


def test_a_game_cut_by_the_activation_limit_pays_the_truncation_reward_to_both_seats(monkeypatch):
    """``truncation_reward``: Kulikovo games limited to 2 activations end cut (no army flees so soon); the step
    that cuts each one pays both seats the reward, every other step nothing (terminal rewards only)."""
    import functools

    from training.train import TrainArgs

    monkeypatch.setattr(vector, "make", functools.partial(vector.make, max_activations=2))
    games = self_play_games(TrainArgs(battle="kulikovo", n_envs=4, shaped=False, hint="", truncation_reward=-0.75), 2)
    ro, _ = games.collect(120)
    assert ro.done.sum() >= 4
    np.testing.assert_array_equal(ro.rewards[ro.done], np.full((ro.done.sum(), 2), -0.75, np.float32))
    assert not ro.rewards[~ro.done].any()
    assert all(score == 0.5 for _, _, score in games.finished)  # still not a loss in the pool's record


def test_games_drawn_by_side_and_opponent_favour_the_side_the_learner_loses_on():
    """``pfsp_sides``: each new game's learner seat is drawn with its opponent (``OpponentPool.sample_pair``)."""
    from training.batched import SelfPlayGames
    from training.selfplay import OpponentPool
    from training.train import TrainArgs

    pool = OpponentPool(floor=0.05)
    pool.add("random", None, "baseline")
    for _ in range(300):
        pool.record("random", 0, 1.0)
        pool.record("random", 1, 0.0)
    args = TrainArgs(battle="berestechko", n_envs=64, hint="", pfsp_sides=True)
    games = SelfPlayGames(args, pool, None, None, seed=0)
    assert (games.learner_seat == 1).sum() > 50
    args = dataclasses.replace(args, pfsp_sides=False)
    assert (SelfPlayGames(args, pool, None, None, seed=0).learner_seat == 1).sum() == 32  # alternating


def test_temperature_sharpens_the_policy_and_bf16_stays_close():
    """``--temperature T`` trains softmax(logits / T): the logits scale by 1 / T (the greedy move is the same);
    ``--precision bf16`` computes them in bfloat16, close to the float32 ones."""
    import torch

    from training.batched import MaskedActorCritic, build_network
    from training.train import TrainArgs
    from wargame_envs.registry import make_engine

    args = TrainArgs(battle="berestechko", net_arch="32")
    policy = build_network(args, make_engine("berestechko"), "cpu")
    x = torch.as_tensor(np.random.default_rng(0).random((16, policy.observation_space.shape[0]), dtype=np.float32))
    mask = torch.ones((16, policy.action_space.n), dtype=torch.bool)
    mask[:, ::3] = False
    with torch.no_grad():
        z1, v1 = MaskedActorCritic(policy, "cpu").logits_values(x, mask)
        z2, v2 = MaskedActorCritic(policy, "cpu", temperature=0.5).logits_values(x, mask)
        net = MaskedActorCritic(policy, "cpu", precision="bf16")
        with net.autocast():
            zb, vb = net.logits_values(x, mask)
    legal = mask.numpy()
    np.testing.assert_allclose(z2.numpy()[legal], 2 * z1.numpy()[legal], rtol=1e-5)
    np.testing.assert_array_equal(z2.argmax(-1).numpy(), z1.argmax(-1).numpy())
    np.testing.assert_allclose(v2.numpy(), v1.numpy())
    assert zb.dtype == torch.float32 and vb.dtype == torch.float32
    assert not np.array_equal(zb.numpy(), z1.numpy())  # bfloat16 products did run
    np.testing.assert_allclose(zb.numpy()[legal], z1.numpy()[legal], atol=0.05)
    np.testing.assert_allclose(vb.numpy(), v1.numpy(), atol=0.05)


def test_act_samples_the_masked_policy_and_returns_its_log_probabilities():
    """The rollout's sampler draws from the masked softmax (frequencies within a few standard errors), never an
    illegal action, and returns the log-probability the full masked softmax gives the drawn action."""
    import torch

    from training.batched import MaskedActorCritic, build_network
    from training.train import TrainArgs
    from wargame_envs.registry import make_engine

    args = TrainArgs(battle="berestechko", net_arch="8")
    policy = build_network(args, make_engine("berestechko"), "cpu")
    with torch.no_grad():
        policy.action_net.weight.zero_()
        policy.action_net.bias.copy_(torch.linspace(-1.0, 1.0, policy.action_space.n))
    rows, width, A = 20000, policy.observation_space.shape[0], policy.action_space.n
    x = np.zeros((rows, width), np.float32)
    mask = np.zeros((rows, A), bool)
    mask[:, [3, 40, 41, 100]] = True
    net = MaskedActorCritic(policy, "cpu")
    a, logp, _ = net.act(x, mask)
    z = policy.action_net.bias.detach().numpy()[[3, 40, 41, 100]]
    p = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    counts = np.array([(a == k).sum() for k in (3, 40, 41, 100)])
    assert counts.sum() == rows                                     # only legal actions
    np.testing.assert_allclose(counts / rows, p, atol=4 * np.sqrt(p * (1 - p) / rows).max())
    np.testing.assert_allclose(logp, np.log(p)[np.searchsorted([3, 40, 41, 100], a)], rtol=1e-5)


def test_the_minibatch_buffer_is_kept_and_grows_by_half_again():
    import torch

    from training.batched import MaskedActorCritic, build_network
    from training.train import TrainArgs
    from wargame_envs.registry import make_engine

    net = MaskedActorCritic(build_network(TrainArgs(battle="berestechko", net_arch="8"), make_engine("berestechko"),
                                          "cpu"), "cpu")
    a = net.minibatch_buffer(100, 40, torch.bfloat16)
    assert a.shape == (100, 40) and net._minibatch.shape == (150, 60)
    b = net.minibatch_buffer(120, 50, torch.bfloat16)      # fits: the same memory
    assert b.shape == (120, 50) and b.data_ptr() == a.data_ptr()
    c = net.minibatch_buffer(90, 70, torch.bfloat16)       # wider: only the width grows
    assert c.shape == (90, 70) and net._minibatch.shape == (150, 105)
    d = net.minibatch_buffer(10, 10, torch.float32)        # another dtype: a new buffer of the asked size
    assert d.dtype == torch.float32 and net._minibatch.shape == (15, 15)


def test_the_curriculum_rate_falls_linearly_to_zero():
    """``--curriculum-epsilon E --curriculum-steps S``: the scripted opponent's rate of random moves is E at first,
    E/2 halfway, and 0 from S on."""
    from training.batched import curriculum_rate
    from training.train import TrainArgs

    args = TrainArgs(curriculum_epsilon=0.4, curriculum_steps=1000)
    assert [curriculum_rate(args, s) for s in (0, 500, 1000, 5000)] == pytest.approx([0.4, 0.2, 0.0, 0.0])
    assert curriculum_rate(TrainArgs(), 0) == 0.0


def test_the_curriculum_replaces_some_scripted_moves_by_random_legal_ones():
    """Against ``scripted``, each of the opponent's moves is a uniformly random legal one at the curriculum's rate
    (and the scripted choice, the hint, otherwise); other opponents are not touched."""
    from training.batched import SelfPlayGames
    from training.selfplay import OpponentPool
    from training.train import TrainArgs

    pool = OpponentPool()
    pool.add("scripted", None, "baseline")
    args = TrainArgs(battle="berestechko", n_envs=2000, hint="", curriculum_epsilon=0.5)
    games = SelfPlayGames(args, pool, None, None, seed=0)
    mask = np.zeros((2000, games.num_actions), bool)
    mask[:, [3, 5, 7, 9]] = True
    hints = np.full(2000, 5)
    rows = np.arange(2000)
    out = np.full(2000, -1)
    games._opponent_actions(rows, None, mask, hints, out)
    assert (out == 5).all()  # rate 0 until the trainer sets it
    games.scripted_noise = 0.5
    games._opponent_actions(rows, None, mask, hints, out)
    assert set(np.unique(out)) == {3, 5, 7, 9}
    assert 0.55 < (out == 5).mean() < 0.7  # 0.5 kept + 0.5 x 1/4 drawn again: 0.625
    games.opponent = ["random"] * 2000
    games._opponent_actions(rows, None, mask, hints, out)
    assert set(np.unique(out)) == {3, 5, 7, 9} and 0.2 < (out == 5).mean() < 0.3


@pytest.mark.parametrize("changes, message", [
    (dict(curriculum_epsilon=1.5), "--curriculum-epsilon is a rate of random moves: at most 1, got 1.5"),
    (dict(curriculum_epsilon=-0.1), "--curriculum-epsilon must be at least 0"),
    (dict(curriculum_epsilon=0.3, backend="default"), "use --backend batched"),
    (dict(curriculum_epsilon=0.3, baselines="random"), "add scripted to --baselines .got 'random'."),
    (dict(curriculum_steps=0), "--curriculum-steps must be at least 1"),
])
def test_a_curriculum_that_cannot_take_effect_is_refused(changes, message):
    from training.evaluate import UsageError
    from training.train import TrainArgs, check_args

    args = TrainArgs(battle="breitenfeld", **{"backend": "batched", **changes})
    with pytest.raises(UsageError, match=message):
        check_args(args)
