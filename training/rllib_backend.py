"""Self-play training on Ray RLlib's new API stack (RLModule + Learner, EnvRunners): ``--backend rllib``.

    wargames train berestechko --backend rllib --num-env-runners 2 --minutes 4 --out runs/rllib
    wargames train berestechko --backend rllib --address auto ...      # on a running Ray cluster
    python -m training.rllib_backend berestechko --num-env-runners 2 --minutes 4 --out runs/rllib   # same, no tournament

Ray is imported here only, and only when this backend runs (``pip install 'wargame-envs[rllib]'``).
The learning setup is the default trainer's (:mod:`training.train`), ported where RLlib allows:

* **Env** (:class:`WargameSelfPlayEnv`): an RLlib ``MultiAgentEnv`` whose agent ids are the engine's
  player names. Turn-based: only the agent to move gets an observation at a step, a dict with
  ``observations`` (the engine's observation, side-conditioned: it carries a ``me`` one-hot) and
  ``action_mask``. With ``opponents="pool"`` (training) the learner takes one seat per episode (the
  seat alternates) and the opponent drawn for the episode plays the other seat inside ``step``, as in
  :class:`training.selfplay.SelfPlayEnv`; with ``opponents="none"`` both seats are RLlib agents.
  Rewards go to the agent they belong to, delivered with its next observation: the shaped
  reward (``shaped_scale`` x the change of its own minus the enemy's victory points since its
  last observation) and, at the end, ``engine.returns`` for *every* agent of the episode, also the
  one that did not make the last move (PettingZoo #1147). A masked action raises
  :class:`~wargame_envs.core.errors.IllegalActionError`, so a policy that ignored its mask would
  stop the run instead of being quietly corrected.
* **Policy** (:class:`MaskedActorCritic`): one side-conditioned RLModule ``learner`` for both seats;
  separate actor and critic MLPs shaped like SB3's ``MlpPolicy`` (``net_arch``, ``activation``);
  illegal logits are set to ``MASKED_LOGIT`` before sampling, at inference and in the PPO loss.
* **Opponents**: :class:`training.selfplay.OpponentPool` (baselines ``random``/``scripted`` plus
  the last ``pool_size`` snapshots, PFSP weights). Each EnvRunner process holds one pool shared by
  its envs and keeps its own PFSP record from the games it plays; every ``snapshot_every``
  sampled steps the driver sends the current actor (numpy weights) to every EnvRunner.
* **Export**: the actor and critic are copied into a fresh ``training.checkpoints.build_policy``
  state dict and saved with ``save_checkpoint`` as ``OUT/checkpoints/latest.zip``: ``ckpt:PATH``,
  ``wargames evaluate`` and ``wargames play`` load it without Ray. ``OUT/eval.json`` holds the
  evaluation against random and scripted play (:func:`training.train.evaluate`).

The imitation warm start is the default trainer's own (on an SB3 policy of the same layout, copied into
the RLModule). Not ported: ``--resume`` (refused with a message); ``--threads`` is the learner's torch threads. ``n_envs`` is spread over the EnvRunners; a PPO iteration collects
``n_envs * n_steps`` steps.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
import uuid
from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv

import torch
from torch import nn

from agents.hint import input_size, make_observer
from agents.mlp import MlpActor
from training.selfplay import OpponentPool, check_settings, split_reset_options
from wargame_envs.core.aec import action_index, seed_index
from wargame_envs.core.engine import refuse_finished
from wargame_envs.core.dice import Dice
from wargame_envs.core.errors import IllegalActionError
from wargame_envs.registry import make_engine, resolve

MODULE_ID = "shared_policy"
MASKED_LOGIT = -1e9  # not -inf: 0 * log(0) terms of the entropy must stay 0, not nan
# pools of this process, by run id: the envs of one EnvRunner share one (and its PFSP record)
_POOLS: dict[str, OpponentPool] = {}


# =============================================================================== the env

def process_pool(config: dict[str, Any]) -> OpponentPool:
    """This process's opponent pool for the run ``config["pool_id"]`` (made on first use)."""
    pool = _POOLS.get(config["pool_id"])
    if pool is None:
        hint, battle = config.get("hint", ""), resolve(config["battle"])
        observers = (lambda seed: make_observer(hint, battle, seed)) if hint else None
        pool = OpponentPool(max_snapshots=config.get("pool_size", 8), power=config.get("pfsp_power", 1.0),
                            floor=config.get("pfsp_floor", 0.05),
                            deterministic_snapshots=config.get("deterministic_snapshots", False),
                            observer_factory=observers)
        pool.add_baselines(battle, tuple(config.get("baselines", ("random", "scripted"))), config.get("seed", 0))
        if not pool.entries:
            raise ValueError(f"baselines = {config.get('baselines')!r}: none is available for {battle}")
        _POOLS[config["pool_id"]] = pool
    return pool


class WargameSelfPlayEnv(MultiAgentEnv):
    """Turn-based two-player battle as an RLlib ``MultiAgentEnv`` (see the module doc).

    ``config`` keys: ``battle``; ``opponents`` ``"pool"`` (default: the learner takes one seat, the
    pool's opponent the other) or ``"none"`` (both seats are RLlib agents); ``pool_id`` (required
    with ``"pool"``) and the pool's ``pool_size``, ``pfsp_power``, ``pfsp_floor``, ``baselines``,
    ``deterministic_snapshots``; ``shaped``, ``shaped_scale``, ``max_steps`` (decisions of both sides
    before truncation), ``truncation_reward`` (each seat's, when a game is cut), ``hint``, ``seed``.
    ``reset(options=...)`` accepts ``learner_side``, ``opponent`` (a pool name), ``dice`` and the engine's
    own options.
    """

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        cfg = dict(config or {})
        self.battle = resolve(cfg.get("battle", "berestechko"))
        self.engine = make_engine(self.battle)
        if len(self.engine.agents) != 2:
            raise ValueError(f"battle = {self.battle!r}: {len(self.engine.agents)} players, self-play needs 2")
        self.opponents = cfg.get("opponents", "pool")
        if self.opponents not in ("pool", "none"):
            raise ValueError(f"opponents = {self.opponents!r}: expected 'pool' or 'none'")
        self.pool = process_pool(cfg) if self.opponents == "pool" else None
        self.shaped = bool(cfg.get("shaped", True))
        self.shaped_scale, self.truncation_reward, self.max_steps = check_settings(
            cfg.get("shaped_scale", 0.1), cfg.get("truncation_reward", 0.0), cfg.get("max_steps", 2000))
        # EnvContext (RLlib) carries the runner and sub-env index: distinct streams and first seats
        worker, vector = int(getattr(config, "worker_index", 0)), int(getattr(config, "vector_index", 0))
        self._rng = np.random.default_rng([seed_index(cfg.get("seed", 0)), worker, vector])
        self._next_side = (worker + vector) % 2
        hint = cfg.get("hint", "")
        self.observer = make_observer(hint, self.battle, int(self._rng.integers(2**31)))
        layout, n = self.engine.obs_layout, self.engine.num_actions
        obs_space = spaces.Dict({
            "observations": spaces.Box(layout.low, layout.high, (input_size(layout.size, n, hint),), np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32)})
        self.agents = self.possible_agents = list(self.engine.agents)
        self.observation_spaces = {a: obs_space for a in self.agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.agents}
        self.state = self.dice = self.opponent = None
        self.seats: tuple[int, ...] = ()
        self._to_move: int | None = None
        self._done = True

    # -- RLlib API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new episode; as :meth:`training.selfplay.SelfPlayEnv.reset`, the seed, options and new game are
        checked and built first, so a reset that fails leaves the env as it was."""
        if seed is not None:
            seed = seed_index(seed)
        side, name, dice, engine_options = split_reset_options(options, self.pool)
        rng = np.random.default_rng(seed) if seed is not None else self._rng
        next_side, opponent, opponent_seed = self._next_side, None, None
        if self.pool is None:
            seats = (0, 1)
        else:
            if side is None:  # alternate; a seed fixes the side (its parity), so that reset(seed=s) replays a game
                side = seed % 2 if seed is not None else next_side
                next_side = 1 - side
            seats = (side,)
            opponent = self.pool.entries[name] if name is not None else self.pool.sample(side, rng)
            opponent_seed = int(rng.integers(2**63 - 1))
        observer_seed = int(rng.integers(2**31))
        dice = dice if dice is not None else Dice(int(rng.integers(2**63 - 1)))
        state = self.engine.new_state(engine_options or None, dice)
        refuse_finished(self.engine, state)
        # Nothing above changed the env: the new episode replaces the old one only now.
        self._rng, self._next_side, self.seats, self.opponent = rng, next_side, seats, opponent
        if opponent is not None:
            opponent.agent.reset(opponent_seed)
        self.observer.reset(observer_seed)
        self.dice, self.state = dice, state
        self._decisions, self._done = 0, False
        self._last_diff = {p: self._score_diff(p) for p in self.seats}
        self._advance()
        if self._done:
            raise RuntimeError(f"{self.battle}: the game ended before any RLlib agent had a decision")
        agent = self.agents[self._to_move]
        info = {"opponent": self.opponent.name} if self.opponent else {}
        return {agent: self._obs(self._to_move)}, {agent: info}

    def step(self, action_dict: dict[str, Any]):
        if self._done:
            raise RuntimeError("step() after the end of the episode; call reset()")
        p = self._to_move
        agent = self.agents[p]
        if set(action_dict) != {agent}:
            raise IllegalActionError(f"action_dict keys {sorted(action_dict)}: only {agent!r} is to move")
        a = action_index(action_dict[agent])
        if a is None or not (0 <= a < self.engine.num_actions and self._mask[a]):
            raise IllegalActionError(
                f"illegal action {action_dict[agent]!r} for {agent} at decision "
                f"'{self.engine.decision_name(self.state)}'; legal: {np.flatnonzero(self._mask).tolist()}")
        self.engine.apply(self.state, a, self.dice)
        self._decisions += 1
        self._trim_log()
        self._advance()
        if not self._done:
            q = self._to_move
            return ({self.agents[q]: self._obs(q)}, {self.agents[q]: self._shaped(q)},
                    {"__all__": False}, {"__all__": False}, {})
        return self._final()

    # -- internals
    def _advance(self) -> None:
        """The pool's opponent decides until an RLlib agent must, or the game is over or cut short."""
        engine, s = self.engine, self.state
        while True:
            if engine.is_terminal(s) or engine.is_truncated(s) or self._decisions >= self.max_steps:
                self._done, self._to_move = True, None
                return
            p, mask = engine.current_player(s), engine.legal_mask(s)
            if p in self.seats:
                self._to_move, self._mask = p, mask
                return
            engine.apply(s, int(self.opponent.agent.act(engine, s, p, mask)), self.dice)
            self._decisions += 1
            self._trim_log()

    def _final(self):
        """Every agent of the episode gets its last observation, its reward and the end flags."""
        terminated = bool(self.engine.is_terminal(self.state))
        returns = self.engine.returns(self.state) if terminated else np.zeros(2)
        obs, rew, infos = {}, {}, {}
        for p in self.seats:
            agent, ret = self.agents[p], float(returns[p])
            obs[agent] = self._obs(p)
            rew[agent] = self._shaped(p) + (ret if terminated else self.truncation_reward)
            outcome = (1.0 if ret > 0 else 0.0 if ret < 0 else 0.5) if terminated else 0.5
            infos[agent] = {"outcome": outcome, "decisions": self._decisions}
            if self.opponent is not None:
                infos[agent]["opponent"] = self.opponent.name
                self.pool.record(self.opponent.name, p, outcome)
        flags = {agent: terminated for agent in obs}
        return obs, rew, {**flags, "__all__": terminated}, {**{a: not terminated for a in obs}, "__all__": not terminated}, infos

    def _shaped(self, p: int) -> float:
        """Seat ``p``'s shaped reward since its last observation (0 without shaping)."""
        if not self.shaped:
            return 0.0
        diff = self._score_diff(p)
        reward, self._last_diff[p] = self.shaped_scale * (diff - self._last_diff[p]), diff
        return float(reward)

    def _score_diff(self, p: int) -> float:
        sc = self.engine.scores(self.state)
        return float(sc[p] - sc[1 - p])

    def _obs(self, p: int) -> dict[str, np.ndarray]:
        mask = self._mask if (not self._done and p == self._to_move) else np.zeros(self.engine.num_actions, bool)
        return {"observations": np.asarray(self.observer.observe(self.engine, self.state, p, mask), np.float32),
                "action_mask": mask.astype(np.float32)}

    def _trim_log(self) -> None:
        if len(self.state.log) > 400:  # the event log is for humans; keep it bounded
            del self.state.log[:-200]


# =============================================================================== the RLModule

def mlp(n_in: int, hidden: list[int], n_out: int, activation: str) -> nn.Sequential:
    """Linear, activation, ..., Linear: the layer indices of SB3's ``policy_net`` + ``action_net``."""
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [nn.Linear(n_in, size), act()]
        n_in = size
    return nn.Sequential(*layers, nn.Linear(n_in, n_out))


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """PPO RLModule for ``{"observations", "action_mask"}`` observations: an actor MLP whose illegal
    logits are ``MASKED_LOGIT`` (exploration, inference and the loss all read the masked logits)
    and a separate critic MLP. ``model_config``: ``hidden`` (sizes), ``activation``."""

    def setup(self):
        hidden, activation = list(self.model_config["hidden"]), self.model_config["activation"]
        n_in = self.observation_space["observations"].shape[0]
        self.pi = mlp(n_in, hidden, self.action_space.n, activation)
        self.vf = mlp(n_in, hidden, 1, activation)  # kept on EnvRunners too: simpler weight syncing

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        logits = self.pi(obs["observations"])
        return {Columns.ACTION_DIST_INPUTS: logits.masked_fill(obs["action_mask"] < 0.5, MASKED_LOGIT)}

    def compute_values(self, batch, embeddings=None):
        return self.vf(batch[Columns.OBS]["observations"]).squeeze(-1)


def layer_pairs(n_hidden: int) -> list[tuple[str, str]]:
    """(RLModule layer, SB3 ``MaskableActorCriticPolicy`` layer) of an MLP with ``n_hidden`` hidden layers:
    ``pi.<i>`` = ``mlp_extractor.policy_net.<i>`` then ``action_net``, ``vf.<i>`` =
    ``mlp_extractor.value_net.<i>`` then ``value_net``."""
    pairs = []
    for net, hidden, out in (("pi", "mlp_extractor.policy_net", "action_net"), ("vf", "mlp_extractor.value_net", "value_net")):
        pairs += [(f"{net}.{2 * i}", f"{hidden}.{2 * i}") for i in range(n_hidden)] + [(f"{net}.{2 * n_hidden}", out)]
    return pairs


def sb3_state_dict(weights: dict[str, Any], meta: dict[str, Any]) -> dict[str, torch.Tensor]:
    """The RLModule's weights as the state dict of a fresh ``build_policy(meta)`` (our checkpoint format),
    loaded strictly, so a shape or name that does not fit fails here, not when the checkpoint is played."""
    from training.checkpoints import build_policy

    policy = build_policy(meta)
    renamed = {f"{theirs}.{p}": torch.as_tensor(np.asarray(weights[f"{ours}.{p}"]))
               for ours, theirs in layer_pairs(len(meta["net_arch"]["pi"])) for p in ("weight", "bias")}
    policy.load_state_dict(renamed, strict=True)
    return policy.state_dict()


def module_weights(state: dict[str, Any], n_hidden: int) -> dict[str, torch.Tensor]:
    """The inverse of :func:`sb3_state_dict`: an SB3 policy state dict as the RLModule's weights."""
    return {f"{ours}.{p}": torch.as_tensor(state[f"{theirs}.{p}"]).detach().clone()
            for ours, theirs in layer_pairs(n_hidden) for p in ("weight", "bias")}


# =============================================================================== EnvRunner helpers

def _add_snapshot_here(pool_id: str, arrays: dict[str, np.ndarray], activation: str, timesteps: int, seed: int):
    pool = _POOLS.get(pool_id)
    if pool is not None:
        pool.add_snapshot(MlpActor.from_arrays(arrays, activation), timesteps, seed=seed)


def _pool_stats_here(pool_id: str):
    pool = _POOLS.get(pool_id)
    return pool.stats() if pool is not None else None


def merged_pool_stats(per_runner: list) -> list[dict[str, Any]]:
    """The EnvRunners' pool records summed by opponent (each runner keeps its own)."""
    merged: dict[str, dict[str, Any]] = {}
    for stats in per_runner:
        for st in stats or []:
            m = merged.setdefault(st["name"], {**st, "score": [0.0, 0.0], "games": [0.0, 0.0]})
            m["score"] = [a + b for a, b in zip(m["score"], st["score"])]
            m["games"] = [a + b for a, b in zip(m["games"], st["games"])]
    return list(merged.values())


# =============================================================================== training

def build_config(args, pool_id: str):
    """The ``PPOConfig`` of a run (``args``: :class:`training.train.TrainArgs`)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.train import hidden_sizes

    runners = args.num_env_runners
    env_config = {"battle": args.battle, "opponents": "pool", "pool_id": pool_id, "pool_size": args.pool_size,
                  "pfsp_power": args.pfsp_power, "pfsp_floor": args.pfsp_floor,
                  "baselines": [b.strip() for b in args.baselines.split(",") if b.strip()],
                  "deterministic_snapshots": args.deterministic_snapshots, "shaped": args.shaped,
                  "shaped_scale": args.shaped_scale, "max_steps": args.max_steps, "hint": args.hint,
                  "truncation_reward": args.truncation_reward,
                  "seed": args.seed}
    batch = args.n_envs * args.n_steps
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(WargameSelfPlayEnv, env_config=env_config, disable_env_checking=True)  # its checker plays unmasked
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=lambda agent_id, episode, **kw: MODULE_ID)
        .env_runners(num_env_runners=runners, num_envs_per_env_runner=max(1, args.n_envs // max(1, runners)),
                     num_cpus_per_env_runner=1, rollout_fragment_length="auto")
        .learners(num_learners=0, num_gpus_per_learner=1 if args.device == "cuda" else 0)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: RLModuleSpec(
            module_class=MaskedActorCritic,
            model_config={"hidden": hidden_sizes(args.net_arch), "activation": args.activation})}))
        .training(lr=args.learning_rate, gamma=args.gamma, lambda_=args.gae_lambda, clip_param=args.clip_range,
                  entropy_coeff=args.ent_coef, vf_loss_coeff=args.vf_coef, train_batch_size_per_learner=batch,
                  minibatch_size=min(args.batch_size, batch), num_epochs=args.n_epochs, use_kl_loss=False,
                  grad_clip=0.5, vf_clip_param=1e6)
        .debugging(seed=args.seed, log_level="ERROR")
    )


def arch_meta(args, engine) -> dict[str, Any]:
    """The checkpoint metadata that ``training.checkpoints.build_policy`` needs."""
    from training.train import hidden_sizes

    sizes = hidden_sizes(args.net_arch)
    return {"obs_size": engine.obs_layout.size, "num_actions": engine.num_actions, "hint": args.hint,
            "net_arch": {"pi": sizes, "vf": sizes}, "activation": args.activation}


def missing_scripted(missing: list[str]) -> bool:
    return any(m.startswith("scripted:") for m in missing)


def warm_start(algo, args, meta: dict[str, Any]) -> None:
    """The default trainer's imitation warm start (``training.train.imitation_warm_start``: behaviour
    cloning of the scripted agent) on an SB3 policy of the same layout, whose weights then go to the
    Learner and every EnvRunner."""
    from types import SimpleNamespace

    from training.checkpoints import build_policy
    from training.train import imitation_warm_start

    t = time.time()
    shim = SimpleNamespace(policy=build_policy(meta), device="cpu")
    shim.policy.load_state_dict(sb3_state_dict(algo.learner_group.get_weights([MODULE_ID])[MODULE_ID], meta))
    bc = imitation_warm_start(shim, args)
    algo.learner_group.set_weights({MODULE_ID: module_weights(shim.policy.state_dict(), len(meta["net_arch"]["pi"]))})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True,
                                       timeout_seconds=None)
    print(f"imitation warm start: {bc['decisions']:.0f} scripted decisions, actor accuracy {bc['accuracy']:.2f}, "
          f"{time.time() - t:.0f} s", file=sys.stderr)


def start_ray(args) -> bool:
    """Connects to ``--address`` or starts a local Ray; True when this call started it."""
    import ray

    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if args.address:
        ray.init(address=args.address, logging_level="ERROR", log_to_driver=False)
    else:  # room for every runner even on a small machine (they then share its cores)
        ray.init(num_cpus=max(os.cpu_count() or 1, args.num_env_runners + 1), include_dashboard=False,
                 logging_level="ERROR", log_to_driver=False, object_store_memory=200 * 1024**2)
    return True


def train_rllib(args):
    """:func:`training.train.train` on RLlib (``args``: :class:`training.train.TrainArgs`; its ``backend``
    is taken to be ``rllib``). Returns a :class:`training.train.TrainResult`."""
    from training.checkpoints import layout_digest, save_checkpoint
    from training.evaluate import UsageError
    from training.train import (TrainResult, check_args, checkpoint_about, checkpoint_interval, checkpoint_path,
                                evaluate, hidden_sizes, prepare_out)

    args = check_args(dataclasses.replace(args, backend="rllib"))
    if args.resume:
        raise UsageError("--resume is not supported with --backend rllib (start a new run, or use the default backend)")
    out = prepare_out(args)
    torch.set_num_threads(args.threads)
    import ray
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    specs = tuple(s.strip() for s in args.baselines.split(",") if s.strip())
    missing = OpponentPool().add_baselines(args.battle, specs, args.seed)  # the runners' pools leave out the same
    for m in missing:
        print(f"note: baseline opponent left out of the pool: {m}", file=sys.stderr)
    started = start_ray(args)
    pool_id = uuid.uuid4().hex
    engine = make_engine(args.battle)
    sizes = hidden_sizes(args.net_arch)
    try:
        t0 = time.time()  # the budget covers the warm start and PPO (not the evaluation), as in training.train
        deadline = t0 + args.minutes * 60 if args.minutes > 0 else float("inf")
        algo = build_config(args, pool_id).build_algo()
        runners = algo.env_runner_group
        if args.imitation_games > 0 and not missing_scripted(missing):
            warm_start(algo, args, arch_meta(args, engine))
        elif args.imitation_games > 0:
            print("note: no scripted agent: imitation warm start skipped", file=sys.stderr)
        steps, iterations, last_snapshot, last_checkpoint, last_print = 0, 0, 0, time.time(), 0.0

        def weights():
            return algo.learner_group.get_weights(module_ids=[MODULE_ID])[MODULE_ID]

        def export() -> Any:
            per_runner = runners.foreach_env_runner(lambda r: _pool_stats_here(pool_id))
            meta = {"battle": args.battle.rsplit("_v", 1)[0], "env": args.battle, "obs_size": engine.obs_layout.size,
                    "obs_layout": layout_digest(engine), "num_actions": engine.num_actions,
                    "net_arch": {"pi": sizes, "vf": sizes}, "activation": args.activation, "hint": args.hint,
                    "timesteps": int(steps), "n_updates": iterations, "train_seconds": time.time() - t0,
                    "args": dataclasses.asdict(args), "pool": merged_pool_stats(per_runner), "backend": "rllib",
                    "ray_version": ray.__version__}
            return save_checkpoint(checkpoint_path(args), meta, sb3_state_dict(weights(), meta))

        while time.time() < deadline and (args.total_timesteps is None or steps < args.total_timesteps):
            result = algo.train()
            iterations += 1
            steps = int(result[ENV_RUNNER_RESULTS].get(NUM_ENV_STEPS_SAMPLED_LIFETIME, steps))
            if steps - last_snapshot >= args.snapshot_every:
                arrays = MlpActor.from_state_dict(sb3_state_dict(weights(), arch_meta(args, engine)),
                                                  args.activation).arrays()
                runners.foreach_env_runner(
                    lambda r, a=arrays, t=steps: _add_snapshot_here(pool_id, a, args.activation, t, args.seed + t))
                last_snapshot = steps
            if time.time() - last_checkpoint >= checkpoint_interval(args):
                export()
                last_checkpoint = time.time()
            if args.progress and time.time() - last_print >= 10:
                last_print = time.time()
                ret = result[ENV_RUNNER_RESULTS].get("agent_episode_returns_mean", {})
                print(f"[rllib] {time.time() - t0:5.0f} s  steps {steps}  ({steps / max(time.time() - t0, 1e-9):.0f}/s)"
                      f"  mean return {' '.join(f'{k} {v:+.2f}' for k, v in ret.items())}", file=sys.stderr)
        seconds = time.time() - t0
        path = export()
        algo.stop()
    finally:
        _POOLS.pop(pool_id, None)
        if started:
            ray.shutdown()
    evaluation = {}
    if args.eval_games > 0:
        from training.checkpoints import load_checkpoint

        actor = MlpActor.from_state_dict(load_checkpoint(path, engine=engine).policy_state, args.activation)
        evaluation = evaluate(actor, args)
        (out / "eval.json").write_text(json.dumps({"about": checkpoint_about(path), **evaluation}, indent=1))
    return TrainResult(path, steps, steps, seconds, steps / max(seconds, 1e-9), evaluation, missing)


def main(argv: list[str] | None = None):
    """``python -m training.rllib_backend``: the options of ``python -m training.train``, on RLlib."""
    from training.train import build_parser, from_namespace, print_result

    result = train_rllib(from_namespace(build_parser().parse_args(argv)))
    print_result(result)
    return result


if __name__ == "__main__":
    from wargame_envs.core.errors import WargameError

    try:
        main()
    except WargameError as exc:  # bad arguments, a run already in --out
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
