"""Where the batched trainer's time goes: a few rollouts and PPO updates under cProfile.

    python -m benchmarks.profile_batched_trainer [--battle berestechko] [--n-envs 256] [--iterations 4]
        [--hint scores] [--baselines scripted] [--n-epochs 4] [--batch-size 4096] [--threads 2] [--precision bf16]

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

    from training.batched import SELF, advantages, build_network, keep_freed_memory, network_and_games, ppo_update
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
    parser.add_argument("--hint", default="scripted", help="as wargames train --hint")
    parser.add_argument("--baselines", default="random,scripted", help="the pool's baselines (and self-play)")
    parser.add_argument("--no-self-play", action="store_true")
    parser.add_argument("--n-epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=2048)
    ns = parser.parse_args(argv)
    keep_freed_memory()
    torch.set_num_threads(ns.threads)
    args = check_args(TrainArgs(battle=ns.battle, n_envs=ns.n_envs, n_steps=ns.n_steps, batch_size=ns.batch_size,
                                n_epochs=ns.n_epochs, kl_coef=0.05, precision=ns.precision, net_arch=ns.net_arch,
                                hint=ns.hint, baselines=ns.baselines, self_play=not ns.no_self_play, backend="batched"))
    pool, _ = make_pool(args)
    if args.self_play:
        pool.add(SELF, None, SELF)
    engine = make_engine(args.battle)
    policy = build_network(args, engine, "cpu")
    net, games = network_and_games(args, policy, pool, engine, "cpu", seed=0)
    rng = np.random.default_rng(0)
    games.collect(args.n_steps)  # warm-up: compiled code, and the sample buffers (allocated once per rollout size)
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
