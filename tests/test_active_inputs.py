"""The batched trainer's compact sample rows (training/active_inputs.py): the same inputs, the same network."""

import numpy as np
import pytest
import torch

from training.active_inputs import ActiveInputs


def _sparse_rows(rng, n, width, density):
    x = np.where(rng.random((n, width)) < density, rng.random((n, width)), 0.0).astype(np.float32)
    return x


def test_compact_rows_expand_to_the_full_rows_while_the_active_set_grows():
    rng = np.random.default_rng(0)
    obs, tail = 300, 7
    active = ActiveInputs(obs, tail)
    buf = torch.zeros((40, obs + tail))
    written = []
    for step in range(4):  # later batches set columns no earlier row set: the set grows between writes
        x = _sparse_rows(rng, 12, obs + tail, 0.02 * (step + 1))
        rows = np.array([0, 3, 5, 6, 11]) if step % 2 else np.arange(12)
        start = sum(len(r) for r in written)
        width = active.write(x[:, :obs], x[:, obs:], rows, buf[start:])
        assert width == active.width == tail + int(np.count_nonzero(active.slot >= 0))
        written.append(x[rows])
    full = np.concatenate(written)
    np.testing.assert_array_equal(active.expand(buf[:len(full), :active.width].numpy()), full)
    # every column set by some row is active, and no other
    np.testing.assert_array_equal(np.sort(active.columns[:active.count[0]]), np.flatnonzero((full[:, :obs] != 0).any(0)))


def test_bfloat16_rows_are_the_float32_rows_as_torch_rounds_them():
    """The rows go straight into a bfloat16 buffer, rounded to nearest even as torch's conversion rounds."""
    rng = np.random.default_rng(3)
    obs, tail = 500, 11
    x = _sparse_rows(rng, 64, obs + tail, 0.1) * np.float32(1e3) - np.float32(1.0) * (rng.random((64, obs + tail)) < 0.05)
    x[0, :8] = np.array([1.00390625, 1.01171875, -2.00390625, 3e-39, -0.0, 1e38, 0.1, 65504.0], np.float32)  # ties, tiny, -0
    rows = np.arange(0, 64, 3)
    f32, b16 = torch.zeros((len(rows), obs + tail)), torch.zeros((len(rows), obs + tail), dtype=torch.bfloat16)
    w32 = ActiveInputs(obs, tail).write(x[:, :obs], x[:, obs:], rows, f32)
    w16 = ActiveInputs(obs, tail).write(x[:, :obs], x[:, obs:], rows, b16)
    assert w32 == w16
    assert torch.equal(b16.view(torch.int16), f32.to(torch.bfloat16).view(torch.int16))
    with pytest.raises(TypeError, match="float32 or bfloat16"):
        ActiveInputs(obs, tail).write(x[:, :obs], x[:, obs:], rows, torch.zeros((len(rows), obs + tail), dtype=torch.float64))


def test_the_network_on_compact_rows_is_the_network_on_full_rows():
    """Logits, values and their gradients through the compact first layer equal the full computation."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from training.batched import MaskedActorCritic

    rng = np.random.default_rng(1)
    obs, actions = 200, 9
    width = obs + actions
    policy = MaskableActorCriticPolicy(spaces.Box(0.0, 1.0, (width,), np.float32), spaces.Discrete(actions),
                                       lambda _: 0.0, net_arch={"pi": [16, 16], "vf": [16, 16]})
    x = _sparse_rows(rng, 30, width, 0.05)
    mask = torch.ones((30, actions), dtype=torch.bool)
    active = ActiveInputs(obs, actions)
    buf = torch.zeros((30, width))
    w = active.write(x[:, :obs], x[:, obs:], np.arange(30), buf)

    def run(net, inputs):
        policy.zero_grad()
        logits, v = net.logits_values(inputs, mask)
        (logits.square().sum() + v.sum()).backward()
        return logits.detach(), v.detach(), [p.grad.clone() for p in policy.parameters()]

    for prior in (0, actions):
        full = run(MaskedActorCritic(policy, "cpu", prior_actions=prior), torch.as_tensor(x))
        compact = run(MaskedActorCritic(policy, "cpu", prior_actions=prior, active=active), buf[:, :w])
        torch.testing.assert_close(compact[0], full[0], rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(compact[1], full[1], rtol=1e-5, atol=1e-5)
        for g_compact, g_full in zip(compact[2], full[2]):
            torch.testing.assert_close(g_compact, g_full, rtol=1e-4, atol=1e-4)  # summation order


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_the_first_layer_columns_kept_for_a_rollout_are_the_current_ones(precision):
    """Inside ``frozen_weights`` (a rollout) the first layers' active columns are kept between calls outside
    autograd, per width as the active set grows; the next rollout, after an optimizer step, reads the new weights:
    the no-grad logits always equal the autograd ones."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from training.batched import MaskedActorCritic, fuse_adam

    rng = np.random.default_rng(4)
    obs, actions = 120, 5
    policy = MaskableActorCriticPolicy(spaces.Box(0.0, 1.0, (obs + actions,), np.float32), spaces.Discrete(actions),
                                       lambda _: 1e-2, net_arch={"pi": [8], "vf": [8]})
    fuse_adam(policy.optimizer)
    active = ActiveInputs(obs, actions)
    net = MaskedActorCritic(policy, "cpu", precision=precision, active=active)
    buf = torch.zeros((16, obs + actions), dtype=torch.bfloat16 if precision == "bf16" else torch.float32)
    mask = torch.ones((16, actions), dtype=torch.bool)
    for rollout in range(3):
        with net.frozen_weights(), net.autocast():
            for step in range(4):  # the active set grows between calls (but not at a rollout's first one)
                if step or not rollout:
                    x = _sparse_rows(rng, 16, obs + actions, 0.01 * (3 * rollout + step + 1))
                    w = active.write(x[:, :obs], x[:, obs:], np.arange(16), buf)
                with torch.no_grad():
                    kept = net.logits_values(buf[:, :w], mask)
                fresh = net.logits_values(buf[:, :w], mask)
                for a, b in zip(kept, fresh):
                    torch.testing.assert_close(a, b.detach())
        (fresh[0].square().sum() + fresh[1].sum()).backward()
        policy.optimizer.step()
        policy.optimizer.zero_grad()
    assert net._frozen is None  # nothing is kept outside a rollout


@pytest.mark.parametrize("battle", ["breitenfeld", "kulikovo"])
def test_a_game_batch_compacts_without_loss(battle):
    import wargame_envs.vector as vector

    vec = vector.make(battle, 8, seed=4)
    step = vec.reset()
    rng = np.random.default_rng(2)
    active = ActiveInputs(vec.obs_size, 0)
    buf = torch.zeros((8, vec.obs_size))
    for _ in range(30):
        step = vec.step(vec.random_actions(rng))
        w = active.write(step.observation, np.zeros((8, 0), np.float32), np.arange(8), buf)
        np.testing.assert_array_equal(active.expand(buf[:, :w].numpy()), step.observation)
    assert active.width < vec.obs_size / 2  # most of a large map's columns stay unset
