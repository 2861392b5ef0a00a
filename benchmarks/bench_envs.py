"""Throughput of every registered battle, next to PettingZoo and OpenSpiel games measured in the same run.

    python -m benchmarks.bench_envs [--seconds S] [--out benchmarks/results/latest.json] [--battles NAME ...]

Per battle:

* **AEC** random masked play through ``env()`` with the full API (``last()``, observation dict,
  mask, ``step``): steps (decisions) per second, games per second, mean decisions per game;
* **engine** random play with ``legal_mask`` + ``apply`` and a :class:`Dice` only (no observations):
  decisions per second, the ceiling for search agents;
* **clone**: microseconds per ``engine.clone`` of a mid-game state (``timeit``);
* **memory**: MB per env, from ``tracemalloc`` over creating and resetting 20 envs.

Then, per battle, a **paired ratio** to ``connect_four_v3``: one battle game, then 0.2 s of
connect-four, repeated (12 games by default); the median and quartiles of the per-pair ratios are
steadier on a shared machine than the ratio of two separately timed rates.

Yardsticks in the same process: PettingZoo ``connect_four_v3`` and ``chess_v6`` (same AEC loop and
memory measure) and OpenSpiel ``backgammon`` and ``chess`` through ``pyspiel`` (random legal play
including chance nodes, plus state clone time). Missing optional packages are reported as
unavailable. Each timed measure runs whole games until ``--seconds`` have passed (at least one
game), so the default run takes about a minute. Prints a table with ratios and writes every figure,
with machine info and versions, as JSON.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import importlib
import json
import math
import os
import platform
import random
import subprocess
import sys
import time
import timeit
import tracemalloc
import traceback
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

import numpy as np

from wargame_envs import registry
from wargame_envs.core.dice import Dice
from wargame_envs.core.files import atomic_write

DEFAULT_OUT = Path(__file__).parent / "results" / "latest.json"
MEMORY_ENVS = 20
PETTINGZOO_GAMES = ("connect_four_v3", "chess_v6")
OPENSPIEL_GAMES = ("backgammon", "chess")


# --------------------------------------------------------------------------- timed play loops
def run_games(play_one_game: Callable[[int], int], seconds: float) -> dict[str, float]:
    """Play whole games (``play_one_game(seed) -> steps``) until ``seconds`` have passed."""
    steps = games = 0
    start = time.perf_counter()
    while games == 0 or time.perf_counter() - start < seconds:
        steps += play_one_game(games)
        games += 1
    elapsed = time.perf_counter() - start
    return {"steps_per_s": steps / elapsed, "games_per_s": games / elapsed,
            "steps_per_game": steps / games, "games": games, "seconds": elapsed}


def aec_game(env, rng: np.random.Generator, seed: int) -> int:
    """One random masked game through the AEC API; returns the number of decisions."""
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
    return steps


def engine_game(engine, rng: np.random.Generator, seed: int, max_decisions: int | None = None):
    """Random play on the bare engine; returns ``(decisions, state)``."""
    dice = Dice(seed)
    state = engine.new_state(None, dice)
    steps = 0
    while not (engine.is_terminal(state) or engine.is_truncated(state)) and steps != max_decisions:
        legal = np.flatnonzero(engine.legal_mask(state))
        engine.apply(state, int(legal[rng.integers(legal.size)]), dice)
        steps += 1
    return steps, state


def openspiel_game(game, rnd: random.Random, max_steps: int | None = None):
    """Random play incl. chance nodes; returns ``(steps, decisions, state)``."""
    state = game.new_initial_state()
    steps = decisions = 0
    while not state.is_terminal() and steps != max_steps:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rnd.choices(outcomes, weights=probs)[0])
        else:
            state.apply_action(rnd.choice(state.legal_actions()))
            decisions += 1
        steps += 1
    return steps, decisions, state


# --------------------------------------------------------------------------- single measures
def clone_microseconds(clone: Callable[[], Any]) -> float:
    """Best of 5 ``timeit`` repeats, in microseconds per call."""
    timer = timeit.Timer(clone)
    number, _ = timer.autorange()
    return min(timer.repeat(5, number)) / number * 1e6


def memory_per_env_mb(make_env: Callable[[], Any], n: int = MEMORY_ENVS) -> float:
    """Memory held by ``n`` created-and-reset envs, divided by ``n`` (module imports excluded)."""
    make_env().reset(seed=0)  # warm-up: imports, module-level tables
    gc.collect()
    tracemalloc.start()
    envs = [make_env() for _ in range(n)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del envs
    return held / n / 2**20


def bench_battle(name: str, seconds: float, seed: int = 0) -> dict[str, Any]:
    engine = registry.make_engine(name)
    rng = np.random.default_rng(seed)
    env = registry.make(name)
    aec = run_games(lambda g: aec_game(env, rng, seed + g), seconds)
    raw = run_games(lambda g: engine_game(engine, rng, seed + g)[0], seconds)
    _, mid_game = engine_game(engine, rng, seed, max_decisions=int(aec["steps_per_game"] // 2))
    return {
        "agents": list(engine.agents), "num_actions": engine.num_actions, "obs_size": engine.obs_layout.size,
        "aec": aec,
        "engine": raw,
        "clone_us": clone_microseconds(lambda: engine.clone(mid_game)),
        "memory_mb_per_env": memory_per_env_mb(lambda: registry.make(name)),
    }


def bench_pettingzoo(name: str, seconds: float, seed: int = 0) -> dict[str, Any]:
    module = importlib.import_module(f"pettingzoo.classic.{name}")
    rng = np.random.default_rng(seed)
    env = module.env()
    return {"aec": run_games(lambda g: aec_game(env, rng, seed + g), seconds),
            "memory_mb_per_env": memory_per_env_mb(module.env)}


def bench_openspiel(name: str, seconds: float, seed: int = 0) -> dict[str, Any]:
    import pyspiel

    game = pyspiel.load_game(name)
    rnd = random.Random(seed)
    decisions = []

    def one_game(_: int) -> int:
        steps, n_decisions, _state = openspiel_game(game, rnd)
        decisions.append(n_decisions)
        return steps

    play = run_games(one_game, seconds)
    play["decisions_per_game"] = float(np.mean(decisions))
    _, _, mid_game = openspiel_game(game, rnd, max_steps=int(play["steps_per_game"] // 2))
    return {"play": play, "clone_us": clone_microseconds(mid_game.clone)}


def paired_ratio(name: str, rounds: int, yardstick: str = "connect_four_v3", chunk_s: float = 0.2) -> dict[str, Any]:
    """AEC speed of battle ``name`` over a PettingZoo yardstick's, paired: each round plays one battle game
    (seed = round), then the yardstick for ``chunk_s``; the per-round ratios' median and quartiles are
    reported. Drift in the machine's speed (a shared VM's neighbours) hits both sides of a pair alike,
    so this is steadier than comparing two separately timed rates."""
    env = registry.make(name)
    other = importlib.import_module(f"pettingzoo.classic.{yardstick}").env()
    rng_b, rng_y = np.random.default_rng(0), np.random.default_rng(0)
    per_round, y_game = [], 0
    for r in range(rounds):
        start = time.perf_counter()
        battle = aec_game(env, rng_b, r) / (time.perf_counter() - start)
        start, steps = time.perf_counter(), 0
        while steps == 0 or time.perf_counter() - start < chunk_s:
            steps += aec_game(other, rng_y, y_game)
            y_game += 1
        per_round.append(battle / (steps / (time.perf_counter() - start)))
    q1, median, q3 = np.percentile(per_round, [25, 50, 75])
    return {"yardstick": f"pettingzoo/{yardstick}", "rounds": rounds, "median": float(median),
            "q1": float(q1), "q3": float(q3), "per_round": [round(x, 3) for x in per_round]}


def guarded(measure: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run one measure; a missing package or a broken battle becomes ``{"unavailable": reason}``."""
    try:
        return measure()
    except Exception as exc:  # noqa: BLE001 - one bad entry must not end the whole run
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return {"unavailable": f"{type(exc).__name__}: {exc} ({Path(where.filename).name}:{where.lineno})"}


# --------------------------------------------------------------------------- report
def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _git_commit() -> str | None:
    try:
        root = Path(__file__).resolve().parent.parent
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    if commit.returncode != 0:
        return None
    return commit.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    return {
        "platform": platform.platform(), "cpu": _cpu_model(), "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0], "git_commit": _git_commit(),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    }


def versions() -> dict[str, str | None]:
    return {d: _version(d) for d in ("wargame-envs", "numpy", "numba", "gymnasium", "pettingzoo", "chess", "open_spiel")}


def ratios(battle: dict[str, Any], yardsticks: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Battle AEC steps/s over the PettingZoo games', battle engine decisions/s over OpenSpiel's steps/s."""
    out = {}
    for key, other in yardsticks.items():
        if "unavailable" in battle or "unavailable" in other:
            continue
        if "aec" in other:
            out[f"aec_vs_{key}"] = battle["aec"]["steps_per_s"] / other["aec"]["steps_per_s"]
        else:
            out[f"engine_vs_{key}"] = battle["engine"]["steps_per_s"] / other["play"]["steps_per_s"]
    return out


def _fmt(x: float | None, digits: int = 0) -> str:
    return "-" if x is None else f"{x:,.{digits}f}"


def print_table(report: dict[str, Any]) -> None:
    head = f"{'env':<26} {'AEC steps/s':>12} {'games/s':>9} {'steps/game':>11} {'engine dec/s':>13} {'clone us':>9} {'MB/env':>8}"
    print(head)
    print("-" * len(head))
    for name, r in {**report["battles"], **report["yardsticks"]}.items():
        if "unavailable" in r:
            print(f"{name:<26} unavailable: {r['unavailable'][:90]}")
            continue
        play = r.get("aec") or r["play"]
        aec = r.get("aec", {}).get("steps_per_s")
        engine = r["engine"]["steps_per_s"] if "engine" in r else (None if "aec" in r else play["steps_per_s"])
        print(f"{name:<26} {_fmt(aec):>12} {_fmt(play['games_per_s'], 2):>9} {_fmt(play['steps_per_game'], 1):>11} "
              f"{_fmt(engine):>13} {_fmt(r.get('clone_us'), 2):>9} {_fmt(r.get('memory_mb_per_env'), 3):>8}")
    print("(OpenSpiel rows: steps include chance nodes and sit in the 'engine' column: no observations are built)")
    for name, rs in report["ratios"].items():
        if rs:
            print(f"{name}: " + ", ".join(f"{k} = {v:.2f}x" for k, v in rs.items()))
    for name, p in report.get("paired_aec_ratio", {}).items():
        if "unavailable" in p:
            print(f"{name}: paired AEC ratio unavailable: {p['unavailable'][:90]}")
        else:
            print(f"{name}: paired AEC ratio to {p['yardstick']} = {p['median']:.2f}x "
                  f"(quartiles {p['q1']:.2f}-{p['q3']:.2f} over {p['rounds']} games)")


def write_json(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, (json.dumps(report, indent=1) + "\n").encode("utf-8"))


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse, before the run (minutes), what would give a report that only looks real or could not be
    written at its end (the flags of this script, ``bench_vector`` and ``bench_rllib``, where each has them):
    ``--seconds`` finite and above 0, ``--rounds`` at least 1, ``--paired-rounds`` at least 0, and an
    ``--out`` file that can be written."""
    from training.evaluate import UsageError, check_file_out

    if not (math.isfinite(args.seconds) and args.seconds > 0):
        parser.error(f"--seconds must be a finite number above 0, got {args.seconds}")
    if getattr(args, "rounds", 1) < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    if getattr(args, "paired_rounds", 0) < 0:
        parser.error(f"--paired-rounds must be at least 0 (0 skips it), got {args.paired_rounds}")
    if args.out is not None:
        try:
            args.out = check_file_out(args.out, "--out")
        except UsageError as exc:
            parser.error(str(exc))


def _primary(result: dict[str, Any]) -> float:
    """The throughput a round is ranked by: AEC steps/s, or the OpenSpiel play rate."""
    for key in ("aec", "play"):
        if isinstance(result.get(key), dict):
            return result[key].get("steps_per_s", 0.0)
    return 0.0


def run(seconds: float, battles: list[str], seed: int = 0, rounds: int = 3, paired_rounds: int = 12) -> dict[str, Any]:
    """Measure every env ``rounds`` times, interleaved (battle, yardsticks, next round ...), and keep each
    env's best round: a shared machine's background load then hits battles and yardsticks alike, and
    the ratios compare like with like. Then each battle's :func:`paired_ratio` to connect-four
    (``paired_rounds`` games; 0 skips it)."""
    measures: dict[str, Callable[[], dict[str, Any]]] = {}
    for name in battles:
        measures[name] = lambda name=name: bench_battle(name, seconds, seed)
    for game in PETTINGZOO_GAMES:
        measures[f"pettingzoo/{game}"] = lambda game=game: bench_pettingzoo(game, seconds, seed)
    for game in OPENSPIEL_GAMES:
        measures[f"openspiel/{game}"] = lambda game=game: bench_openspiel(game, seconds, seed)
    every: dict[str, list[dict[str, Any]]] = {key: [] for key in measures}
    for r in range(rounds):
        for key, measure in measures.items():
            print(f"... round {r + 1}/{rounds}: {key}", file=sys.stderr, flush=True)
            every[key].append(guarded(measure))
    best = {}
    for key, results in every.items():
        best[key] = max(results, key=_primary)
        best[key]["rounds_primary_steps_per_s"] = [round(_primary(x), 1) for x in results]
    results = {name: best[name] for name in battles}
    yardsticks = {key: best[key] for key in measures if key not in battles}
    paired = {}
    if paired_rounds:
        for name in battles:
            print(f"... paired rounds: {name} / connect_four_v3", file=sys.stderr, flush=True)
            paired[name] = guarded(lambda name=name: paired_ratio(name, paired_rounds))
    return {
        "machine": machine_info(), "versions": versions(),
        "settings": {"seconds": seconds, "seed": seed, "rounds": rounds, "paired_rounds": paired_rounds},
        "battles": results, "yardsticks": yardsticks,
        "ratios": {name: ratios(r, yardsticks) for name, r in results.items()},
        "paired_aec_ratio": paired,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_envs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time budget of each timed measure (default 2)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON report (default {DEFAULT_OUT})")
    parser.add_argument("--battles", nargs="*", default=None, help="subset of registry.BATTLES (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; each env keeps its best (default 3)")
    parser.add_argument("--paired-rounds", type=int, default=12,
                        help="games per battle in the paired ratio to connect_four_v3 (default 12; 0 skips it)")
    args = parser.parse_args(argv)
    try:
        battles = [registry.resolve(b) for b in args.battles] if args.battles else sorted(registry.BATTLES)
    except KeyError as exc:
        parser.error(exc.args[0])
    check_args(parser, args)
    report = run(args.seconds, battles, args.seed, args.rounds, args.paired_rounds)
    print_table(report)
    write_json(report, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
