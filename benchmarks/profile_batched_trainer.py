"""Where the batched trainer's time goes: a few rollouts and PPO updates under cProfile.

    python -m benchmarks.profile_batched_trainer [--battle berestechko] [--n-envs 256] [--iterations 4]

Prints, per iteration, the seconds spent collecting the rollout, computing advantages and updating, the
learner samples per second over all iterations, and cProfile's top functions by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np


def main(argv: list[str] | None = None) -> int:
    import torch

    from training.batched import SELF, MaskedActorCritic, SelfPlayGames, advantages, build_network, ppo_update
    from training.train import TrainArgs, check_args, make_pool
    from wargame_envs.registry import make_engine

    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile_batched_trainer", description=__doc__.split("\n\n")[0])
    parser.add_argument("--battle", default="berestechko")
    parser.add_argument("--n-envs", type=int, default=256)
    parser.add_argument("--n-steps", type=int, default=32)
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--precision", choices=("fp32", "bf16"), default="fp32")
    parser.add_argument("--net-arch", default="128,128")
    ns = parser.parse_args(argv)
    torch.set_num_threads(ns.threads)
    args = check_args(TrainArgs(battle=ns.battle, n_envs=ns.n_envs, n_steps=ns.n_steps, batch_size=2048, n_epochs=1,
                                kl_coef=0.05, precision=ns.precision, net_arch=ns.net_arch))
    pool, _ = make_pool(args)
    pool.add(SELF, None, SELF)
    policy = build_network(args, make_engine(args.battle), "cpu")
    net = MaskedActorCritic(policy, "cpu", precision=ns.precision)
    games = SelfPlayGames(args, pool, net.act, net.value, seed=0)
    rng = np.random.default_rng(0)
    games.collect(4)  # warm-up (compiled code, first allocations)
    profile, samples, start = cProfile.Profile(), 0, time.time()
    profile.enable()
    for _ in range(ns.iterations):
        t0 = time.time()
        ro, last = games.collect(args.n_steps)
        t1 = time.time()
        adv, ret = advantages(ro.values, ro.learner, ro.seat, ro.rewards, ro.done, last, args.gamma, args.gae_lambda)
        t2 = time.time()
        ppo_update(net, policy.optimizer, ro, adv, ret, args, args.kl_coef, rng)
        t3 = time.time()
        samples += int(ro.learner.sum())
        print(f"collect {t1 - t0:.2f} s, advantages {t2 - t1:.3f} s, update {t3 - t2:.2f} s, samples {ro.learner.sum()}")
    profile.disable()
    print(f"learner samples per second: {samples / (time.time() - start):,.0f}")
    pstats.Stats(profile).sort_stats("tottime").print_stats(15)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
