"""Training curves: the learner's win rates, its throughput and its schedules over its steps, drawn from a run's log.

    python -m training.curves runs/berestechko            # -> runs/berestechko/training.png

`wargames train` draws them at the end of every run (``OUT/training.png``); run this module to look at a run
while it trains, or at an older one. The data is the run's ``tb/progress.csv`` (the CSV beside the TensorBoard
events, one row per update), whichever backend wrote it:

- win rates: the batched trainer's ``selfplay/win_rate_<opponent>_<seat>`` (its last 400 games against each
  opponent and side), the default backend's ``selfplay/win_rate_side<seat>`` and ``selfplay/win_rate_vs_<opponent>``;
  the pool's snapshots make one line per side (their mean), however many come and go;
- throughput: ``time/learner_steps_per_second`` (batched) or SB3's ``time/fps``, both averages since the run's start;
- schedules: the weight of the pull toward the heuristic (``train/kl_coef``) and the curriculum's rate of random
  scripted moves (``train/curriculum_epsilon``), where logged.

The x axis is the learner's cumulative steps (``time/total_timesteps``), or the update count in logs without it.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
from pathlib import Path

import numpy as np

WIN_PREFIX = "selfplay/win_rate_"
THROUGHPUT = ("time/learner_steps_per_second", "time/fps")
SCHEDULES = {"train/kl_coef": "KL weight toward the heuristic", "train/curriculum_epsilon": "curriculum: random moves"}


class CurvesError(ValueError):
    """A run folder without a readable training log."""


def read_progress(run_dir: str | Path) -> dict[str, np.ndarray]:
    """Every column of the run's training log as a float array (NaN where a row left it empty): ``tb/progress.csv``
    after the logs of the runs it resumed, ``tb/progress.1.csv``, ``tb/progress.2.csv``... (``log_parts``)."""
    tb = Path(run_dir).expanduser() / "tb"
    path = tb / "progress.csv"
    rows: list[dict] = []
    for part in log_parts(tb):
        try:
            with part.open(newline="", encoding="utf-8") as f:
                rows += list(csv.DictReader(f))
        except FileNotFoundError:
            raise CurvesError(f"no training log at {path}: is {run_dir} the --out of a `wargames train` run?") from None
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise CurvesError(f"cannot read the training log {part}: {exc}") from None
    if not rows:
        raise CurvesError(f"the training log {path} has no row yet (the first one comes after the first update)")
    columns = list(dict.fromkeys(key for row in rows for key in row if key))
    return {key: np.array([_number(row.get(key)) for row in rows]) for key in columns}


def log_parts(tb: Path) -> list[Path]:
    """The training log's files in ``tb`` in the order they were written: the logs a ``--resume`` set aside
    (``progress.1.csv``, ``progress.2.csv``...), then ``progress.csv``."""
    parts = sorted((int(p.name.split(".")[1]), p) for p in tb.glob("progress.*.csv") if p.name.split(".")[1].isdigit())
    return [p for _, p in parts] + [tb / "progress.csv"]


def set_log_aside(tb: Path) -> Path | None:
    """Before a resumed run's logger opens ``tb/progress.csv`` (stable-baselines3 opens it afresh), the log so far
    moves to the next ``progress.N.csv``, which :func:`read_progress` reads first; returns where it went."""
    path = tb / "progress.csv"
    if not path.is_file() or path.stat().st_size == 0:
        return None
    n = 1 + max((int(p.name.split(".")[1]) for p in log_parts(tb)[:-1]), default=0)
    return path.rename(tb / f"progress.{n}.csv")


def _number(text) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return math.nan
    return value if math.isfinite(value) else math.nan


def side_names(run_dir: str | Path) -> tuple[str, ...]:
    """The battle's side names from the run's checkpoint sidecar (``seat 0``, ``seat 1`` without one)."""
    meta = Path(run_dir).expanduser() / "checkpoints" / "latest.json"
    try:
        battle = json.loads(meta.read_text(encoding="utf-8"))["args"]["battle"]
        from wargame_envs.registry import make_engine

        return tuple(make_engine(battle).agents)
    except (OSError, ValueError, KeyError, TypeError):
        return ("seat 0", "seat 1")


def win_rate_label(column: str, sides: tuple[str, ...]) -> str:
    """``selfplay/win_rate_scripted_1`` -> ``vs scripted as imperial`` (the default backend's columns too)."""
    name = column[len(WIN_PREFIX):]
    if name.startswith("side") and name[4:].isdigit():
        return f"as {_side(sides, int(name[4:]))}, all opponents"
    if name.startswith("vs_"):
        return f"vs {name[3:]}, both sides"
    opponent, _, seat = name.rpartition("_")
    return f"vs {opponent} as {_side(sides, int(seat))}" if seat.isdigit() and opponent else name


def win_rate_lines(data: dict[str, np.ndarray], sides: tuple[str, ...]) -> dict[str, np.ndarray]:
    """label -> win rates: one line per logged opponent and side, except that the pool's snapshots (``snapshot@N``,
    up to ``--pool-size`` of them, each logged while it is in the pool) make one line per side, their mean."""
    groups: dict[str, list[np.ndarray]] = {}
    for key in sorted(k for k in data if k.startswith(WIN_PREFIX)):
        label = win_rate_label(key, sides)
        label = re.sub(r"^vs snapshot@\d+", "vs its snapshots (mean)", label)
        groups.setdefault(label, []).append(data[key])
    lines = {}
    for label, columns in groups.items():
        stacked = np.vstack(columns)
        seen = np.isfinite(stacked).any(axis=0)
        lines[label] = np.full(stacked.shape[1], np.nan)
        lines[label][seen] = np.nanmean(stacked[:, seen], axis=0)
    return lines


def _side(sides: tuple[str, ...], seat: int) -> str:
    return sides[seat] if 0 <= seat < len(sides) else f"seat {seat}"


def plot_training(run_dir: str | Path, path: str | Path | None = None) -> Path:
    """Draws the run's curves into ``path`` (default ``run_dir/training.png``); returns the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run = Path(run_dir).expanduser()
    data = read_progress(run)
    sides = side_names(run)
    steps = data.get("time/total_timesteps")
    x, x_label = (steps, "learner steps") if steps is not None and np.isfinite(steps).any() else (
        np.arange(1, len(next(iter(data.values()))) + 1), "update")
    wins = win_rate_lines(data, sides)
    speed = next((k for k in THROUGHPUT if k in data), None)
    schedules = [k for k in SCHEDULES if k in data and np.isfinite(data[k]).any()]
    panels = 2 + bool(schedules)
    fig, axes = plt.subplots(panels, 1, figsize=(9, 2.8 * panels + 0.6), sharex=True)
    ax = axes[0]
    for label, rates in wins.items():
        _plot_logged(ax, x, rates, label=label)
    ax.set_ylim(0, 1)
    ax.set_ylabel("learner win rate")
    ax.set_title("Win rate in training games (sampled play; the evaluation plays the greedy move)", fontsize=10)
    if wins:
        ax.legend(fontsize=8, loc="best")
    else:
        ax.text(0.5, 0.5, "no finished game logged yet", ha="center", va="center", transform=ax.transAxes)
    ax.grid(alpha=0.3)
    ax = axes[1]
    if speed is not None:
        _plot_logged(ax, x, data[speed], color="tab:gray")
    ax.set_ylabel("learner steps/s\n(average so far)")
    ax.grid(alpha=0.3)
    if schedules:
        ax = axes[2]
        for key in schedules:
            _plot_logged(ax, x, data[key], label=SCHEDULES[key])
        ax.set_ylabel("schedules")
        ax.legend(fontsize=8, loc="best")
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel(x_label)
    fig.suptitle(f"{run.name}: {len(x)} updates")
    fig.tight_layout()
    out = Path(path).expanduser() if path is not None else run / "training.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def _plot_logged(ax, x: np.ndarray, y: np.ndarray, **style) -> None:
    """``y`` over ``x`` at the rows that logged it (a column is empty in the rows before its first value)."""
    ok = np.isfinite(y)
    ax.plot(x[ok], y[ok], **style)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.curves", description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="the --out folder of a `wargames train` run")
    parser.add_argument("--out", default=None, help="the picture to write (default: RUN/training.png)")
    args = parser.parse_args(argv)
    try:
        print(plot_training(args.run, args.out))
    except CurvesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
