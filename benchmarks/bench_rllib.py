"""Env steps per second of ``--backend rllib`` training with 1, 2, ... EnvRunners (issue 15 item 2).

    python -m benchmarks.bench_rllib --runners 1 2 --seconds 60 [--address auto] [--out results.json]

For each runner count: builds the PPO algorithm of ``training.rllib_backend`` (default training
arguments: 16 envs spread over the runners, 2,048 steps a PPO iteration), runs one warm-up iteration,
then PPO iterations (sampling + learning, as in training) for ``--seconds``, and reports the
learner env steps sampled per wall-clock second of those iterations. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import uuid


def measure(battle: str, runners: int, seconds: float, address: str, n_envs: int) -> dict:
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    from training.rllib_backend import _POOLS, build_config
    from training.train import TrainArgs, check_args

    args = check_args(TrainArgs(battle=battle, backend="rllib", num_env_runners=runners, address=address,
                                n_envs=n_envs))
    pool_id = uuid.uuid4().hex
    algo = build_config(args, pool_id).build_algo()
    try:
        steps = lambda r: int(r[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME])  # noqa: E731
        first = steps(algo.train())  # warm-up: workers, connectors, first episodes
        t0, iterations = time.time(), 0
        while time.time() - t0 < seconds:
            last = steps(algo.train())
            iterations += 1
        wall = time.time() - t0
    finally:
        algo.stop()
        _POOLS.pop(pool_id, None)
    return {"battle": battle, "env_runners": runners, "n_envs": n_envs, "iterations": iterations,
            "env_steps": last - first, "seconds": round(wall, 1), "env_steps_per_s": round((last - first) / wall, 1)}


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_rllib", description=__doc__.split("\n\n")[0])
    parser.add_argument("--battle", default="berestechko")
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2], help="EnvRunner counts to measure")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured time per runner count")
    parser.add_argument("--n-envs", type=int, default=16, help="envs in all, spread over the runners")
    parser.add_argument("--address", default="", help="Ray cluster (auto or HOST:PORT); empty = a local Ray")
    parser.add_argument("--out", default=None, help="write the rows as JSON here")
    ns = parser.parse_args(argv)
    from benchmarks.bench_envs import check_args

    check_args(parser, ns)  # before Ray starts and the measures run
    import ray

    from training.rllib_backend import start_ray

    start_ray(argparse.Namespace(address=ns.address, num_env_runners=max(ns.runners)))
    try:
        rows = [measure(ns.battle, n, ns.seconds, ns.address, ns.n_envs) for n in ns.runners]
        cpus = int(ray.cluster_resources().get("CPU", 0))
    finally:
        ray.shutdown()
    print(f"\n{ns.battle}, PPO iterations of {ns.n_envs * 128} steps, {os.cpu_count()} cores here, Ray sees {cpus} CPUs\n")
    print("| env runners | env steps/s | iterations | seconds |\n|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['env_runners']} | {r['env_steps_per_s']:.0f} | {r['iterations']} | {r['seconds']} |")
    if ns.out:
        with open(ns.out, "w") as f:
            json.dump({"machine": {"cores": os.cpu_count(), "ray_cpus": cpus, "python": platform.python_version()},
                       "rows": rows}, f, indent=1)
    return rows


if __name__ == "__main__":
    main()
