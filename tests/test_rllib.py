"""The Ray RLlib backend (issue 15 items 1, 2): the multi-agent env's rewards and masks, the masked
RLModule, its export to our checkpoint format, a tiny self-play training on a local Ray, and that
nothing else imports Ray."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from wargame_envs.core.dice import ScriptedDice
from wargame_envs.core.errors import IllegalActionError
from wargame_envs.registry import make_engine

HAVE_RAY = importlib.util.find_spec("ray") is not None and importlib.util.find_spec("torch") is not None
needs_ray = pytest.mark.skipif(not HAVE_RAY, reason="Ray RLlib is not installed: pip install 'wargame-envs[rllib]'")

ENGINE = make_engine("berestechko")
PL, CT = ENGINE.agents
SCALE = 0.05


def action(step: str) -> int:
    """``die:i``, ``unit:Name``, ``hex:33`` or an option name (as in tests/test_training.py)."""
    kind, _, arg = step.partition(":")
    c = ENGINE.codec
    return {"die": lambda: c.DIE + int(arg), "unit": lambda: c.UNIT + ENGINE.scenario.names.index(arg),
            "hex": lambda: ENGINE.grid.index[arg]}.get(kind, lambda: c.opt(step))()


# Tatar spirit position (9): P-L's Wolff attacks Kalga, the Tatars withdraw, and the C-T player
# (inactive, mid-turn) ends the battle: a P-L win 3-0 in VP, on C-T's move.
TATAR = {"round": 1, "active": PL, "dice": [3, 1, 1], "tatar_spirit": 1,
         "units": {"Wolff": {"hex": "33"}, "Kalga": {"hex": "43"}, "Amurat": {"hex": "57"}, "Hrunka": {"hex": "52"}},
         "commands": {side: {"reconnaissance": 0, "interaction": 0} for side in ENGINE.agents}}
TATAR_GAME = [(PL, "die:0"), (PL, "unit:Wolff"), (PL, "hex:33"), (PL, "hex:43"), (CT, "end_battle")]


class SequenceAgent:
    name = "sequence"

    def __init__(self, steps):
        self.steps, self.calls = list(steps), 0

    def reset(self, seed=None):
        pass

    def act(self, engine, state, player, mask):
        self.calls += 1
        return action(self.steps[self.calls - 1])


def tatar_reset(env, **options):
    return env.reset(options={"position": TATAR, "dice": ScriptedDice([6, 6]), **options})


# ------------------------------------------------------------------------- env: rewards and turns

@needs_ray
def test_both_seats_get_the_terminal_reward_when_the_other_side_ends_the_game():
    from training.rllib_backend import WargameSelfPlayEnv

    env = WargameSelfPlayEnv({"battle": "berestechko", "opponents": "none", "shaped": True, "shaped_scale": SCALE})
    obs, _ = tatar_reset(env)
    totals = {PL: 0.0, CT: 0.0}
    for i, (agent, step) in enumerate(TATAR_GAME):
        assert list(obs) == [agent]  # only the agent to move observes, with its own mask
        assert obs[agent]["action_mask"][action(step)] == 1.0
        obs, rew, term, trunc, infos = env.step({agent: action(step)})
        for a, r in rew.items():
            totals[a] += r
        if i < len(TATAR_GAME) - 1:
            assert not term["__all__"] and not trunc["__all__"]
    # C-T made the last move; P-L, who did not, still gets its win (PettingZoo #1147)
    assert term == {PL: True, CT: True, "__all__": True} and trunc["__all__"] is False
    assert set(obs) == {PL, CT} and rew[PL] > 0.5 and rew[CT] < -0.5
    assert totals[PL] == pytest.approx(1.0 + SCALE * 3) and totals[CT] == pytest.approx(-1.0 - SCALE * 3)
    assert infos[PL]["outcome"] == 1.0 and infos[CT]["outcome"] == 0.0


@needs_ray
def test_both_seats_get_the_truncation_reward_when_the_game_is_cut():
    from training.rllib_backend import WargameSelfPlayEnv

    env = WargameSelfPlayEnv({"battle": "berestechko", "opponents": "none", "shaped": False, "max_steps": 6,
                              "truncation_reward": -0.5})
    obs, _ = env.reset(seed=3)
    totals, done = {PL: 0.0, CT: 0.0}, False
    while not done:
        (agent, o), = obs.items()
        obs, rew, term, trunc, infos = env.step({agent: int(np.flatnonzero(o["action_mask"])[0])})
        for a, r in rew.items():
            totals[a] += r
        done = term["__all__"] or trunc["__all__"]
    assert trunc["__all__"] and not term["__all__"] and totals == {PL: -0.5, CT: -0.5}
    assert infos[PL]["outcome"] == infos[CT]["outcome"] == 0.5


@needs_ray
@pytest.mark.parametrize("seat,opponent_steps,learner_steps,expected", [
    (0, ["end_battle"], TATAR_GAME[:4], 1.0),       # the opponent ends the game: the learner's win reaches it
    (1, [s for _, s in TATAR_GAME[:4]], TATAR_GAME[4:], -1.0),  # the learner ends it itself, as the loser
])
def test_pool_opponent_plays_inside_the_env_and_the_reward_goes_to_the_learners_seat(seat, opponent_steps,
                                                                                  learner_steps, expected):
    from training.rllib_backend import WargameSelfPlayEnv, _POOLS

    env = WargameSelfPlayEnv({"battle": "berestechko", "pool_id": "test-seat", "baselines": ["random"],
                              "shaped": False})
    try:
        opponent = SequenceAgent(opponent_steps)
        env.pool.add("seq", opponent)
        obs, _ = tatar_reset(env, learner_side=seat, opponent="seq")
        learner = ENGINE.agents[seat]
        rewards = []
        for agent, step in learner_steps:
            assert list(obs) == [learner] and agent == learner
            obs, rew, term, _, infos = env.step({learner: action(step)})
            assert set(rew) <= {learner}
            rewards.append(rew.get(learner, 0.0))
        assert term["__all__"] and rewards == [0.0] * (len(learner_steps) - 1) + [expected]
        assert opponent.calls == len(opponent_steps) and infos[learner]["opponent"] == "seq"
        assert env.pool.entries["seq"].games[seat] == 1
    finally:
        _POOLS.pop("test-seat", None)


@needs_ray
def test_a_masked_action_is_refused():
    from training.rllib_backend import WargameSelfPlayEnv

    env = WargameSelfPlayEnv({"battle": "berestechko", "opponents": "none"})
    obs, _ = tatar_reset(env)
    illegal = int(np.flatnonzero(obs[PL]["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step({PL: illegal})
    with pytest.raises(IllegalActionError, match="only"):
        env.step({CT: action("die:0")})


# ------------------------------------------------------------------------- the RLModule

def masked_module(hidden=(16, 16)):
    import gymnasium as gym

    from training.rllib_backend import MaskedActorCritic

    space = gym.spaces.Dict({"observations": gym.spaces.Box(0.0, 1.0, (7,), np.float32),
                             "action_mask": gym.spaces.Box(0.0, 1.0, (5,), np.float32)})
    return MaskedActorCritic(observation_space=space, action_space=gym.spaces.Discrete(5),
                             model_config={"hidden": list(hidden), "activation": "tanh"})


@needs_ray
def test_module_never_samples_a_masked_action_and_the_loss_sees_the_masked_logits():
    import torch
    from ray.rllib.core.columns import Columns

    module = masked_module()
    with torch.no_grad():  # the masked action 4 is by far the most likely one unmasked
        module.pi[-1].bias[:] = torch.tensor([0.0, 0.0, 0.0, 0.0, 50.0])
    mask = torch.tensor([[1, 0, 1, 0, 0], [0, 1, 0, 0, 0]], dtype=torch.float32).repeat(500, 1)
    batch = {Columns.OBS: {"observations": torch.rand(1000, 7), "action_mask": mask}}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        dist = module.get_exploration_action_dist_cls().from_logits(logits)
        actions = dist.sample()
        assert mask[torch.arange(1000), actions].all()
        assert torch.isfinite(dist.entropy()).all() and torch.isfinite(dist.logp(actions)).all()
    assert set(torch.unique(actions[1::2]).tolist()) == {1}  # the only legal action of row 2
    assert module.compute_values(batch).shape == (1000,)


@needs_ray
def test_export_maps_the_actor_and_critic_onto_the_sb3_policy_layout():
    import torch

    from agents.mlp import MlpActor
    from training.rllib_backend import module_weights, sb3_state_dict

    module = masked_module((16, 8))
    meta = {"obs_size": 7, "num_actions": 5, "hint": "", "net_arch": {"pi": [16, 8], "vf": [16, 8]},
            "activation": "tanh"}
    state = sb3_state_dict({k: v.numpy() for k, v in module.state_dict().items()}, meta)
    back = module_weights(state, 2)  # the way back (the imitation warm start)
    assert back.keys() == module.state_dict().keys()
    assert all(torch.equal(back[k], v) for k, v in module.state_dict().items())
    x = torch.rand(3, 7)
    actor = MlpActor.from_state_dict(state, "tanh")
    np.testing.assert_allclose(actor.logits(x.numpy()), module.pi(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    from training.checkpoints import build_policy

    policy = build_policy(meta)
    policy.load_state_dict(state)
    np.testing.assert_allclose(policy.predict_values(x).squeeze(-1).detach().numpy(),
                               module.vf(x).squeeze(-1).detach().numpy(), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------- training on a local Ray

@needs_ray
def test_tiny_rllib_selfplay_exports_a_checkpoint_that_plays_without_ray(tmp_path):
    import ray

    from agents.registry import make_agent
    from training.selfplay import play_games
    from training.rllib_backend import train_rllib
    from training.train import TrainArgs

    out = tmp_path / "run"
    args = TrainArgs(battle="berestechko", backend="rllib", num_env_runners=1, minutes=0, total_timesteps=400,
                     n_envs=2, n_steps=100, batch_size=100, n_epochs=1, net_arch="32,32", snapshot_every=200,
                     imitation_games=2, imitation_epochs=1, eval_games=2, progress=False, out=str(out))
    try:
        result = train_rllib(args)  # an illegal action anywhere would raise IllegalActionError in the env
    finally:
        ray.shutdown()
    assert result.checkpoint == out / "checkpoints" / "latest.zip" and result.timesteps >= 400
    meta = json.loads(result.checkpoint.with_suffix(".json").read_text())
    assert meta["backend"] == "rllib" and meta["net_arch"] == {"pi": [32, 32], "vf": [32, 32]}
    names = {e["name"] for e in meta["pool"]}
    assert {"random", "scripted"} <= names and any(n.startswith("snapshot@") for n in names)  # pushed to the runner
    assert sum(sum(e["games"]) for e in meta["pool"]) >= 1
    report = json.loads((out / "eval.json").read_text())
    assert report["about"]["checkpoint"] == str(result.checkpoint) and set(report["random"]) == {PL, CT}

    agent = make_agent(f"ckpt:{result.checkpoint}", "berestechko", seed=0)
    wins = play_games(ENGINE, [agent, make_agent("random", "berestechko", 1)], 1, seed=3)
    assert wins.shape == (2,)  # a full game, every decision of the exported policy legal


def test_check_args_refuses_a_bad_backend_and_rllib_resume(tmp_path):
    from training.evaluate import UsageError
    from training.train import TrainArgs, check_args, train

    with pytest.raises(UsageError, match="--backend must be one of default, batched, rllib, got 'tune'"):
        check_args(TrainArgs(backend="tune", out=str(tmp_path)))
    with pytest.raises(UsageError, match="--num-env-runners must be at least 0, got -1"):
        check_args(TrainArgs(backend="rllib", num_env_runners=-1, out=str(tmp_path)))
    with pytest.raises(UsageError, match="--backend rllib (runs from `wargames train`|needs Ray RLlib)"):
        train(TrainArgs(backend="rllib", out=str(tmp_path)))  # training.train never imports the backend
    if HAVE_RAY:
        from training.rllib_backend import train_rllib

        with pytest.raises(UsageError, match="--resume is not supported with --backend rllib"):
            train_rllib(TrainArgs(resume=True, out=str(tmp_path)))


def test_the_package_and_the_default_backend_never_import_ray(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        import wargame_envs, agents.registry, training.train, wargames_cli.cli
        assert "ray" not in sys.modules, "import"
        from training.train import TrainArgs, train
        train(TrainArgs(battle="berestechko", minutes=0, total_timesteps=32, n_envs=1, n_steps=32, batch_size=32,
                        n_epochs=1, net_arch="8", imitation_games=0, eval_games=0, progress=False,
                        out={str(tmp_path)!r}))
        assert "ray" not in sys.modules, "training"
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


@needs_ray
def test_bad_reset_options_and_config_are_named_and_a_failed_reset_changes_nothing():
    """audit 2, finding 7 (the RLlib env): the checks of training.selfplay, before anything changes."""
    from training.rllib_backend import WargameSelfPlayEnv, _POOLS

    env = WargameSelfPlayEnv({"battle": "berestechko", "pool_id": "test-bad-reset", "baselines": ["random"]})
    try:
        obs, _ = env.reset(seed=3)
        before = (env.seats, env.opponent, env.dice, env.state.digest(), env._rng.bit_generator.state, env._next_side)
        for options, fragment in [({"learner_side": 2}, "field 'learner_side' = 2: expected 0 or 1"),
                                  ({"learner_side": -1}, "field 'learner_side' = -1"),
                                  ({"learner_side": "x"}, "field 'learner_side' = 'x'"),
                                  ({"opponent": "nobody"}, r"field 'opponent' = 'nobody': expected one of the pool's"),
                                  ({"variant": 1}, "variant")]:
            with pytest.raises(ValueError, match=fragment):
                env.reset(seed=4, options=options)
            assert (env.seats, env.opponent, env.dice, env.state.digest(), env._rng.bit_generator.state,
                    env._next_side) == before, options
        with pytest.raises(ValueError, match="seed = -1: expected a non-negative integer"):
            env.reset(seed=-1)
        agent = next(iter(obs))
        env.step({agent: int(np.flatnonzero(obs[agent]["action_mask"])[0])})  # the old game goes on
    finally:
        _POOLS.pop("test-bad-reset", None)
    both = WargameSelfPlayEnv({"battle": "berestechko", "opponents": "none"})
    with pytest.raises(ValueError, match="field 'opponent' = 'random': both seats are learners here"):
        both.reset(options={"opponent": "random"})
    for config, fragment in [({"shaped_scale": float("nan")}, "shaped_scale = nan"),
                             ({"shaped_scale": "abc"}, "shaped_scale = 'abc'"),
                             ({"max_steps": -3}, "max_steps = -3"), ({"seed": -1}, "seed = -1")]:
        with pytest.raises(ValueError, match=fragment):
            WargameSelfPlayEnv({"battle": "berestechko", "opponents": "none", **config})
