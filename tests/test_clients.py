"""The RL clients users bring (issue 17 item 3): TorchRL's ``PettingZooWrapper`` and Tianshou's
``PettingZooEnv`` each play a full game of every battle with masked random actions; SB3's and
Gymnasium's env checkers pass on the single-agent self-play view with ``illegal_action="lose"``; SB3
MaskablePPO drives that view for a few hundred steps. The clients are in the ``dev`` extra."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from wargame_envs import make, registry

BATTLES = sorted(registry.BATTLES)
MAX_DECISIONS = 20_000  # far above the longest random game of any battle


def check_final_returns(env, rewards: dict[str, float]) -> None:
    """The rewards the client saw at the end are the game's returns: +1/-1, or 0/0 for a draw; 0/0 when
    the game was truncated (random Kulikovo games reach the 150-activation limit)."""
    raw = env.unwrapped
    assert raw.record.final_digest is not None, "the game did not reach its end"
    returns = raw.record.returns if raw.record.returns is not None else [0.0, 0.0]
    assert raw.record.returns is not None or raw.engine.is_truncated(raw.game_state)
    assert [rewards[a] for a in raw.possible_agents] == pytest.approx(returns)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize("battle", BATTLES)
def test_torchrl_pettingzoo_wrapper_plays_a_full_game(battle):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    aec = make(battle)  # a random Kulikovo game runs ~1,700 decisions to the 150-activation limit
    env = PettingZooWrapper(aec, use_mask=True, categorical_actions=True, seed=0)
    generator = torch.Generator().manual_seed(0)
    td = env.reset()
    for _ in range(MAX_DECISIONS):
        for group in env.group_map:
            mask = td[group, "action_mask"].float()
            mask[mask.sum(-1) == 0] = 1.0                      # an agent that does not move: any action
            td[group, "action"] = torch.multinomial(mask, 1, generator=generator).squeeze(-1)
        td = env.step(td)["next"]
        if td["done"].all():
            break
    else:
        pytest.fail("no end of game")
    rewards = {agent: float(td[group, "reward"][i]) for group, agents in env.group_map.items()
               for i, agent in enumerate(agents)}
    check_final_returns(aec, rewards)
    for group in env.group_map:
        assert set(td[group, "info"].keys()) == {"decision_id", "to_move", "returns"}


@pytest.mark.parametrize("battle", BATTLES)
def test_tianshou_pettingzoo_env_plays_a_full_game(battle):
    pytest.importorskip("tianshou")
    from tianshou.env import PettingZooEnv

    aec = make(battle)
    env = PettingZooEnv(aec)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(MAX_DECISIONS):
        obs, rewards, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
        if terminated or truncated:
            break
    else:
        pytest.fail("no end of game")
    check_final_returns(aec, dict(zip(aec.possible_agents, rewards)))


def selfplay_env(battle: str, side: int, **kw):
    from training.selfplay import OpponentPool, SelfPlayEnv

    pool = OpponentPool()
    pool.add_baselines(battle, ("random",), seed=0)
    return SelfPlayEnv(battle, pool, learner_side=side, **kw)


@pytest.mark.parametrize("side", [0, 1, "alternate"])
@pytest.mark.parametrize("battle", BATTLES)
def test_sb3_and_gymnasium_env_checkers_pass_with_illegal_action_lose(battle, side):
    pytest.importorskip("stable_baselines3")
    from gymnasium.utils.env_checker import check_env as gymnasium_check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = selfplay_env(battle, side, illegal_action="lose")  # "alternate": the README's default (a seed fixes the side)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*illegal_action='lose'")
        sb3_check_env(env)
        gymnasium_check_env(env)


@pytest.mark.parametrize("battle", BATTLES)
def test_selfplay_illegal_action_lose_ends_the_episode_with_minus_one(battle):
    from wargame_envs.core.errors import IllegalActionError

    env = selfplay_env(battle, 0)
    env.reset(seed=1)
    with pytest.raises(IllegalActionError):
        env.step(float("inf"))
    env = selfplay_env(battle, 0, illegal_action="lose")
    env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.warns(UserWarning, match="learner loses"):
        _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["outcome"], info["illegal_action"]) == (-1.0, True, False, 0.0, True)
    with pytest.raises(ValueError, match="illegal_action"):
        selfplay_env(battle, 0, illegal_action="forfeit")


@pytest.mark.parametrize("battle", BATTLES)
def test_sb3_maskable_ppo_drives_the_single_agent_view(battle):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    env = selfplay_env(battle, "alternate")
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    obs, _ = env.reset(seed=3)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
