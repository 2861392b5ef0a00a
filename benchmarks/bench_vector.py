"""Throughput of the batched API (``wargame_envs.vector``) at several batch sizes, beside OpenSpiel chess and
backgammon and PettingZoo connect_four_v3 measured in the same process, and its start-up (compile) cost.

    python -m benchmarks.bench_vector [--seconds S] [--sizes 1 64 256 1024] [--battles NAME ...]
                                      [--out benchmarks/results/vector.json] [--no-startup]

* **vector N**: random legal actions for every game (``VectorGame.random_actions``, one uniform per game and a
  compiled pick from the mask, part of the timed loop),
  ``step`` returning observations, masks, players, rewards and flags: decisions per second summed over
  the N games (a step that only restarts a finished game is not counted).
* **yardsticks**: OpenSpiel ``chess`` and ``backgammon`` through ``pyspiel`` (whole Python loop, random legal
  play incl. chance) and PettingZoo ``connect_four_v3`` (AEC loop), from ``benchmarks.bench_envs``.
* **start-up**: seconds for a fresh process to import, make a batch of 64 and step it once: *cold* with an
  empty numba cache (everything compiled), *warm* with the cache the cold run left on disk.

Each measure runs ``rounds`` times interleaved with the yardsticks and keeps its best round, so a shared
machine's background load hits both sides alike. Writes a JSON report and prints a table with the ratios to
OpenSpiel chess.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.bench_envs import (bench_openspiel, bench_pettingzoo, check_args, guarded, machine_info, versions,
                                   write_json)

DEFAULT_OUT = Path(__file__).parent / "results" / "vector.json"
SIZES = (1, 64, 256, 1024)


def bench_vector(name: str, n: int, seconds: float, seed: int = 0) -> dict[str, Any]:
    import wargame_envs.vector as vector

    vec = vector.make(name, n, seed=seed)
    rng = np.random.default_rng(seed)
    step = vec.reset()
    step = vec.step(vec.random_actions(rng))  # warm-up
    decisions = calls = 0
    start = time.perf_counter()
    while calls == 0 or time.perf_counter() - start < seconds:
        mask = step.action_mask
        decisions += int(mask.any(axis=1).sum())
        step = vec.step(vec.random_actions(rng))
        calls += 1
    elapsed = time.perf_counter() - start
    return {"num_envs": n, "steps_per_s": decisions / elapsed, "calls_per_s": calls / elapsed, "seconds": elapsed,
            "obs_size": vec.obs_size, "obs_dtype": str(np.dtype(vec.backend.obs_dtype))}


STARTUP_SCRIPT = """
import time, numpy as np
t = time.perf_counter()
import wargame_envs.vector as vector
v = vector.make({name!r}, 64, seed=0)
s = v.reset()
v.step(s.action_mask.argmax(axis=1))
print(time.perf_counter() - t)
"""


def startup_seconds(name: str) -> dict[str, float]:
    """Cold (empty numba cache) and warm (cache on disk) start of a fresh process."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = {}
        for label in ("cold", "warm"):
            run = subprocess.run([sys.executable, "-c", STARTUP_SCRIPT.format(name=name)], env=env,
                                 capture_output=True, text=True, check=True)
            out[f"{label}_s"] = float(run.stdout.strip().splitlines()[-1])
        return out


def run(seconds: float, battles: list[str], sizes: list[int], rounds: int, startup: bool, seed: int = 0):
    measures = {}
    for name in battles:
        for n in sizes:
            measures[f"{name}/N={n}"] = lambda name=name, n=n: bench_vector(name, n, seconds, seed)
    measures["openspiel/chess"] = lambda: bench_openspiel("chess", seconds, seed)
    measures["openspiel/backgammon"] = lambda: bench_openspiel("backgammon", seconds, seed)
    measures["pettingzoo/connect_four_v3"] = lambda: bench_pettingzoo("connect_four_v3", seconds, seed)
    every: dict[str, list[dict[str, Any]]] = {k: [] for k in measures}
    for r in range(rounds):
        for key, measure in measures.items():
            print(f"... round {r + 1}/{rounds}: {key}", file=sys.stderr, flush=True)
            every[key].append(guarded(measure))
    best = {k: max(v, key=_rate) for k, v in every.items()}
    chess = _rate(best["openspiel/chess"])
    report = {"machine": machine_info(), "versions": versions(),
              "settings": {"seconds": seconds, "sizes": sizes, "rounds": rounds, "seed": seed},
              "results": best, "ratio_to_openspiel_chess": {k: _rate(v) / chess if chess else None
                                                           for k, v in best.items()}}
    if startup:
        report["startup"] = {name: guarded(lambda name=name: startup_seconds(name)) for name in battles}
    return report


def _rate(result: dict[str, Any]) -> float:
    if "steps_per_s" in result:
        return float(result["steps_per_s"])
    for key in ("play", "aec"):
        if isinstance(result.get(key), dict):
            return float(result[key]["steps_per_s"])
    return 0.0


def print_table(report: dict[str, Any]) -> None:
    print(f"{'measure':34s} {'steps/s':>12s} {'x OpenSpiel chess':>18s}")
    for key, result in report["results"].items():
        ratio = report["ratio_to_openspiel_chess"][key]
        print(f"{key:34s} {_rate(result):12,.0f} {ratio if ratio is not None else float('nan'):18.2f}")
    for name, s in report.get("startup", {}).items():
        if "cold_s" in s:
            print(f"start-up {name}: cold {s['cold_s']:.1f} s (compiling), warm {s['warm_s']:.1f} s (disk cache)")


def main(argv: list[str] | None = None) -> int:
    import wargame_envs.vector as vector
    from wargame_envs.registry import resolve

    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_vector", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time budget of each measure (default 3)")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES), help="batch sizes (default 1 64 256 1024)")
    parser.add_argument("--battles", nargs="*", default=None, help="battles (default: every one with a backend)")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds; each measure keeps its best")
    parser.add_argument("--no-startup", dest="startup", action="store_false", help="skip the cold/warm start-up")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    try:
        battles = [resolve(b) for b in args.battles] if args.battles else sorted(vector.BACKENDS)
    except KeyError as exc:
        parser.error(exc.args[0])
    missing = [b for b in battles if b not in vector.BACKENDS]
    if missing:
        parser.error(f"no batched backend for {', '.join(missing)}")
    check_args(parser, args)
    if not args.sizes or min(args.sizes) < 1:
        parser.error(f"--sizes must be batch sizes of at least 1, got {args.sizes}")
    report = run(args.seconds, battles, args.sizes, args.rounds, args.startup)
    print_table(report)
    write_json(report, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
