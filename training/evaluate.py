"""The evaluation harness: round-robin tournaments between agent specs, with intervals and ratings.

    python -m training.evaluate berestechko --agents random scripted mcts:32 --games 50 --out runs/eval
    python -m training.evaluate berestechko --random-baseline 5000 --seed 0 \\
        --baseline-out training/baselines/berestechko_random.json

Schedule: every pair of distinct specs plays ``games`` games with each of the two on side 0
(``--self-play`` adds each spec against itself; those mirror games are reported apart, each side's wins,
and left out of the agents' win rates). Each game is played straight on the engine with a
dice seed derived from (``seed``, row agent, column agent, game number), and agent seeds derived from
the game seed exactly as ``wargames play`` derives them, so any game can be replayed with
``wargames play <battle> --p1 A --p2 B --seed <game seed>``. Games run in a process pool
(``--workers``, default ``min(2, cpu count)``); results do not depend on the worker count.

A game cut short (the engine's ``is_truncated``, or the harness's ``max_decisions`` cap) is a draw,
never a win. Reported: per agent and per side win counts and win rates with Wilson 95% intervals,
OpenSkill (Plackett-Luce) ratings over the games in schedule order, the balance matrix (row agent on
side 0 vs column agent on side 1 -> side-0 win rate), decisions per game, the agents' thinking time
per decision, and truncations. Outputs in ``out_dir``: ``result.json``, ``report.md``, ``plot.png``;
the command line writes them to ``runs/evaluate/<battle>`` unless ``--out`` says otherwise, and refuses a
folder that already holds a report unless ``--overwrite`` is given (as ``train`` refuses a run folder).
The ``human`` agent cannot play here: the games run unattended, in worker processes without a terminal.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from agents.registry import agent_seed
from training.stats import binomial_band, rate_games, wilson_interval
from wargame_envs.core.errors import WargameError

DEFAULT_MAX_DECISIONS = 100_000


# ============================================================================ one game
@dataclass
class GameResult:
    """One game: who sat where, who won (-1: draw or truncated), how long it took."""

    index: int
    row: int                  # agent index on side 0
    col: int                  # agent index on side 1
    seed: int                 # dice seed of the game
    winner: int               # 0, 1, or -1
    truncated: bool
    decisions: int
    think_s: list[float] = field(default_factory=lambda: [0.0, 0.0])   # per side
    choices: list[int] = field(default_factory=lambda: [0, 0])         # per side: decisions with >1 legal action


def game_seed(seed: int, row: int, col: int, game: int) -> int:
    """Dice seed of game ``game`` between ``row`` (side 0) and ``col`` (side 1)."""
    return int(np.random.SeedSequence([seed, row, col, game]).generate_state(1)[0])


class UsageError(WargameError, ValueError):
    """Bad arguments or an output folder that cannot be written: ``wargames`` prints it as one
    ``error:`` line and exits with status 2."""


def ensure_dir(path: str | Path, option: str = "--out") -> Path:
    """``path`` (``~`` expanded: a shell leaves ``--out=~/x`` as it is) as a folder that exists and can be
    written, or a :class:`UsageError` naming it."""
    path = Path(path).expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write there ({exc.strerror or exc})") from None
    return path


def check_file_out(path: str | Path, option: str) -> Path:
    """``path`` (``~`` expanded) as a file that ``option`` can write (its folder made), or a :class:`UsageError`
    naming it: checked before a long run, whose result would otherwise be lost at the end."""
    path = Path(path).expanduser()
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a folder, expected a file path")
    ensure_dir(path.parent, option)
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {path}: cannot write there (permission denied)")
    return path


def check_baseline_out(path: str | Path) -> Path:
    """``path`` as a file that ``--random-baseline`` can write (its folder made), or a :class:`UsageError`."""
    return check_file_out(path, "--baseline-out")


REPORT_FILES = ("result.json", "report.md", "plot.png")  # what a tournament writes to its out folder


def prepare_report_dir(path: str | Path, overwrite: bool = False) -> Path:
    """``path`` (``~`` expanded) as a writable folder for a tournament's report. A folder that already holds one
    is refused unless ``overwrite`` (those files are then replaced), as ``train`` refuses a folder that holds
    a run: a report is never replaced unasked."""
    out = ensure_dir(path)
    found = [name for name in REPORT_FILES if (out / name).exists()]
    if found and not overwrite:
        raise UsageError(f"--out {out} already holds a tournament report ({', '.join(found)}); pass --overwrite to "
                         "replace it, or choose another --out")
    return out


def check_workers(workers, jobs: int | None = None) -> int:
    """``workers`` (None: :func:`default_workers`) as a process count from 1 to :func:`max_workers`, or a
    :class:`UsageError` naming ``--workers``; no more than ``jobs`` (games) when given: a process pool starts
    a process for each task it is handed, up to its size."""
    if workers is None:
        n = default_workers()
    else:
        from wargame_envs.core.aec import action_index

        n = action_index(workers)
        if n is None or not 1 <= n <= max_workers():
            raise UsageError(f"--workers {workers!r}: expected an integer from 1 to {max_workers()} "
                             f"(4 per CPU core of this machine, at least 8)")
    return max(1, min(n, jobs)) if jobs is not None else n


def default_out(battle: str) -> Path:
    """Where ``evaluate`` writes without ``--out``: ``runs/evaluate/<battle>``."""
    return Path("runs") / "evaluate" / battle.rsplit("_v", 1)[0]


_ENGINES: dict[str, object] = {}
_AGENTS: dict[tuple[str, str, int], object] = {}
_TIMED: set[tuple[str, str, int]] = set()  # agents whose first decision in this process (compiling) is behind them


def _engine(battle: str):
    if battle not in _ENGINES:
        from wargame_envs.registry import make_engine

        _ENGINES[battle] = make_engine(battle)
    return _ENGINES[battle]


def _agent(battle: str, spec: str, player: int, seed: int):
    """The (per-process, cached) agent for ``spec`` on ``player``'s side, reset with ``seed``."""
    key = (battle, spec, player)
    if key not in _AGENTS:
        from agents.registry import make_agent

        _AGENTS[key] = make_agent(spec, battle, seed)
    agent = _AGENTS[key]
    agent.reset(seed)
    return agent


def play_game(job: tuple) -> GameResult:
    """Play one scheduled game on the engine (the process-pool task)."""
    from wargame_envs.core.dice import Dice

    battle, index, row, col, specs, seed, max_decisions = job
    engine = _engine(battle)
    agents = [_agent(battle, spec, p, agent_seed(seed, p)) for p, spec in enumerate(specs)]
    dice = Dice(seed)
    state = engine.new_state(None, dice)
    result = GameResult(index, row, col, seed, -1, False, 0)
    clock = time.perf_counter
    while not engine.is_terminal(state):
        if engine.is_truncated(state) or result.decisions >= max_decisions:
            result.truncated = True
            break
        p = engine.current_player(state)
        mask = engine.legal_mask(state)
        t0 = clock()
        action = agents[p].act(engine, state, p, mask)
        key = (battle, specs[p], p)
        if key in _TIMED:  # an agent's first decision in a process compiles its kernels: not thinking time
            result.think_s[p] += clock() - t0
        else:
            _TIMED.add(key)
        if not mask[action]:
            raise RuntimeError(f"{specs[p]} chose illegal action {action} in game {index} (seed {seed})")
        result.choices[p] += int(mask.sum() > 1)
        engine.apply(state, int(action), dice)
        result.decisions += 1
    if not result.truncated:
        returns = np.asarray(engine.returns(state))
        best = returns.max()
        if best > 0 and (returns == best).sum() == 1:
            result.winner = int(returns.argmax())
    return result


# ============================================================================ tournament
def schedule(n_agents: int, games: int, seed: int, self_play: bool = False) -> list[tuple[int, int, int, int]]:
    """``(row, col, game, dice seed)`` for every game: each ordered pair of distinct agents (and
    each agent against itself with ``self_play``) plays ``games`` games."""
    out = []
    for row in range(n_agents):
        for col in range(n_agents):
            if row == col and not self_play:
                continue
            out += [(row, col, g, game_seed(seed, row, col, g)) for g in range(games)]
    return out


def short_label(spec: str) -> str:
    """A plot label for an agent spec: ``ckpt:runs/x/checkpoints/latest.zip`` -> ``ckpt:x``."""
    if not spec.startswith("ckpt:"):
        return spec
    path = Path(spec[5:])
    run = path.parent.parent.name if path.parent.name == "checkpoints" else path.stem
    return f"ckpt:{run or path.name}"


def _rate(k: int, n: int) -> dict:
    lo, hi = wilson_interval(k, n)
    return {"wins": k, "games": n, "win_rate": (k / n) if n else None, "ci95": [lo, hi]}


@dataclass
class TournamentResult:
    """Everything a tournament measured; ``to_dict`` is the JSON written as ``result.json``."""

    battle: str
    side_names: list[str]
    agents: list[str]
    games_per_side: int
    seed: int
    workers: int
    max_decisions: int
    elapsed_s: float
    games: list[GameResult]
    about: dict[str, str] = field(default_factory=dict)   # e.g. the checkpoint evaluated: path, timesteps, hash

    # ------------------------------------------------------------------ summaries
    def agent_summary(self) -> list[dict]:
        """Per agent: overall and per-side wins, draws, losses with Wilson 95% intervals, against the
        other agents. A mirror game (``self_play``) would be one win in two games for the same agent, so
        mirror games are left out of those figures and given apart as ``mirror``: each side's wins."""
        out = []
        for i, name in enumerate(self.agents):
            sides, wins, draws, n = [], 0, 0, 0
            for side in (0, 1):
                mine = [g for g in self.games if (g.row if side == 0 else g.col) == i and g.row != g.col]
                w = sum(1 for g in mine if g.winner == side)
                d = sum(1 for g in mine if g.winner < 0)
                sides.append({**_rate(w, len(mine)), "draws": d, "losses": len(mine) - w - d})
                wins, draws, n = wins + w, draws + d, n + len(mine)
            think = sum(g.think_s[s] for g in self.games for s in (0, 1) if (g.row, g.col)[s] == i)
            choices = sum(g.choices[s] for g in self.games for s in (0, 1) if (g.row, g.col)[s] == i)
            mirror = [g for g in self.games if g.row == g.col == i]
            out.append({"agent": name, **_rate(wins, n), "draws": draws, "losses": n - wins - draws,
                        "sides": sides, "ms_per_choice": 1000 * think / choices if choices else None,
                        "mirror": {"games": len(mirror), "side_wins": [sum(1 for g in mirror if g.winner == s)
                                                                       for s in (0, 1)],
                                   "draws": sum(1 for g in mirror if g.winner < 0)}})
        return out

    def side_summary(self) -> list[dict]:
        """Per side, over all games: how often side 0 / side 1 won."""
        n = len(self.games)
        return [{"side": self.side_names[s], **_rate(sum(1 for g in self.games if g.winner == s), n)} for s in (0, 1)]

    def balance(self) -> list[list[dict | None]]:
        """``[row][col]``: side-0 win rate of row agent (side 0) against col agent (side 1)."""
        k = len(self.agents)
        cells: list[list[dict | None]] = [[None] * k for _ in range(k)]
        for r in range(k):
            for c in range(k):
                games = [g for g in self.games if g.row == r and g.col == c]
                if games:
                    cells[r][c] = _rate(sum(1 for g in games if g.winner == 0), len(games))
        return cells

    def head_to_head(self, agent: str, opponent: str) -> list[dict]:
        """Per side of ``agent``: its wins against ``opponent`` with a Wilson 95% interval."""
        a, b = self.agents.index(agent), self.agents.index(opponent)
        out = []
        for side in (0, 1):
            row, col = (a, b) if side == 0 else (b, a)
            games = [g for g in self.games if g.row == row and g.col == col]
            out.append({"side": self.side_names[side], **_rate(sum(1 for g in games if g.winner == side), len(games))})
        return out

    def ratings(self) -> dict[str, dict[str, float]]:
        games = sorted(self.games, key=lambda g: g.index)
        return rate_games(self.agents, [(self.agents[g.row], self.agents[g.col], g.winner) for g in games])

    def decisions(self) -> dict:
        d = np.asarray([g.decisions for g in self.games], dtype=float)
        return {"mean": float(d.mean()) if d.size else 0.0, "min": int(d.min()) if d.size else 0,
                "max": int(d.max()) if d.size else 0}

    @property
    def truncations(self) -> int:
        return sum(1 for g in self.games if g.truncated)

    def to_dict(self) -> dict:
        return {
            "battle": self.battle, "side_names": self.side_names, "agents": self.agents,
            "games_per_side": self.games_per_side, "seed": self.seed, "workers": self.workers,
            "max_decisions": self.max_decisions, "elapsed_s": self.elapsed_s, "total_games": len(self.games),
            "truncations": self.truncations, "decisions_per_game": self.decisions(),
            "per_agent": self.agent_summary(), "per_side": self.side_summary(), "balance": self.balance(),
            "ratings": self.ratings(), "about": self.about, "games": [asdict(g) for g in self.games],
        }

    # ------------------------------------------------------------------ outputs
    def markdown(self) -> str:
        def pct(cell: dict | None) -> str:
            if not cell or not cell["games"]:
                return "-"
            lo, hi = cell["ci95"]
            return f"{100 * cell['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] (n={cell['games']})"

        s0, s1 = self.side_names
        lines = [f"# Tournament: {self.battle}", "",
                 f"{len(self.games)} games ({self.games_per_side} per pairing per side), seed {self.seed}, "
                 f"{self.workers} worker(s), {self.elapsed_s:.1f} s. Truncated (draws): {self.truncations}. "
                 f"Decisions per game: mean {self.decisions()['mean']:.1f}.", "",
                 *[f"- {key}: {value}" for key, value in self.about.items()], *([""] if self.about else []),
                 "Win rates with Wilson 95% intervals against the other agents (mirror games apart); draws and "
                 "truncations are not wins.", "",
                 f"| agent | overall | as {s0} | as {s1} | draws | ms per choice | mirror: {s0}-{s1}-draws |",
                 "|---|---|---|---|---|---|---|"]
        for a in self.agent_summary():
            ms = f"{a['ms_per_choice']:.2f}" if a["ms_per_choice"] is not None else "-"
            m = a["mirror"]
            mirror = f"{m['side_wins'][0]}-{m['side_wins'][1]}-{m['draws']}" if m["games"] else "-"
            lines.append(f"| {a['agent']} | {pct(a)} | {pct(a['sides'][0])} | {pct(a['sides'][1])} | {a['draws']} "
                         f"| {ms} | {mirror} |")
        lines += ["", "## Sides", "", "| side | win rate |", "|---|---|"]
        lines += [f"| {s['side']} | {pct(s)} |" for s in self.side_summary()]
        lines += ["", "## Ratings (OpenSkill Plackett-Luce)", "", "| agent | mu | sigma | ordinal |", "|---|---|---|---|"]
        for name, r in sorted(self.ratings().items(), key=lambda kv: -kv[1]["ordinal"]):
            lines.append(f"| {name} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} |")
        lines += ["", f"## Balance matrix: {s0} win rate, row agent as {s0} vs column agent as {s1}", "",
                  "| side 0 \\ side 1 | " + " | ".join(self.agents) + " |", "|---" * (len(self.agents) + 1) + "|"]
        for r, row in enumerate(self.balance()):
            lines.append(f"| {self.agents[r]} | " + " | ".join(pct(c) for c in row) + " |")
        return "\n".join(lines) + "\n"

    def plot(self, path: Path) -> Path:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        summary = self.agent_summary()
        k = len(self.agents)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6 + 1.6 * k, 4.5))
        x = np.arange(k)
        for side, offset in ((0, -0.2), (1, 0.2)):
            rates = [a["sides"][side]["win_rate"] or 0.0 for a in summary]
            lo = [r - a["sides"][side]["ci95"][0] for r, a in zip(rates, summary)]
            hi = [a["sides"][side]["ci95"][1] - r for r, a in zip(rates, summary)]
            ax1.bar(x + offset, rates, 0.4, yerr=[lo, hi], capsize=4, label=f"as {self.side_names[side]}")
        labels = [short_label(a) for a in self.agents]
        ax1.set_xticks(x, labels, rotation=20)
        ax1.set_ylim(0, 1)
        ax1.set_ylabel("win rate (Wilson 95%)")
        ax1.set_title("Win rate per agent and side")
        ax1.legend(fontsize=8)
        grid = np.full((k, k), np.nan)
        for r, row in enumerate(self.balance()):
            for c, cell in enumerate(row):
                if cell and cell["games"]:
                    grid[r, c] = cell["win_rate"]
                    ax2.text(c, r, f"{100 * cell['win_rate']:.0f}%", ha="center", va="center", fontsize=9)
        im = ax2.imshow(grid, vmin=0, vmax=1, cmap="coolwarm")
        ax2.set_xticks(range(k), labels, rotation=20)
        ax2.set_yticks(range(k), labels)
        ax2.set_xlabel(f"as {self.side_names[1]}")
        ax2.set_ylabel(f"as {self.side_names[0]}")
        ax2.set_title(f"{self.side_names[0]} win rate")
        fig.colorbar(im, ax=ax2, fraction=0.046)
        fig.suptitle(f"{self.battle}: {len(self.games)} games")
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return path

    def save(self, out_dir: str | Path) -> dict[str, Path]:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {"json": out / "result.json", "markdown": out / "report.md", "plot": out / "plot.png"}
        paths["json"].write_text(json.dumps(self.to_dict(), indent=1))
        paths["markdown"].write_text(self.markdown())
        self.plot(paths["plot"])
        return paths


def default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def max_workers() -> int:
    """The most worker processes a tournament may start: 4 per CPU core, at least 8 (each loads numba)."""
    return max(8, 4 * (os.cpu_count() or 1))


def _run_jobs(jobs: list[tuple], workers: int, progress: bool, desc: str) -> list[GameResult]:
    from tqdm import tqdm

    bar = tqdm(total=len(jobs), desc=desc, unit="game", disable=not progress, file=sys.stderr)
    results = []
    try:
        if workers <= 1:
            for job in jobs:
                results.append(play_game(job))
                bar.update()
        else:
            chunk = max(1, min(16, len(jobs) // (workers * 8)))
            # spawn, not fork: a forked child of a process whose torch or numba thread pools are running can
            # wait forever on a lock one of those threads held (seen after training with --threads 2)
            with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
                for r in pool.map(play_game, jobs, chunksize=chunk):
                    results.append(r)
                    bar.update()
    finally:
        bar.close()
    return results


def run_tournament(battle: str, agent_specs: Sequence[str], games: int, workers: int | None = None, seed: int = 0,
                   out_dir: str | Path | None = None, self_play: bool = False,
                   max_decisions: int = DEFAULT_MAX_DECISIONS, progress: bool = True,
                   about: dict[str, str] | None = None, overwrite: bool = True) -> TournamentResult:
    """Round-robin of ``agent_specs`` on ``battle``: ``games`` games per pairing per side.

    Agent specs are those of :mod:`agents.registry` and must be distinct (use ``self_play`` for
    mirror matches); ``human`` cannot play (the games run unattended). ``workers``: 1 to :func:`max_workers`
    processes (default :func:`default_workers`). With ``out_dir`` the JSON, Markdown report and plot are
    written there (the folder is checked to be writable before any game is played; with ``overwrite=False``
    a folder that already holds a report is refused, as the command line does without ``--overwrite``).
    ``about`` (e.g. the checkpoint evaluated) is written at the head of the report and in the JSON.
    """
    from agents.registry import check_unattended, make_agent
    from wargame_envs import registry

    battle = registry.resolve(battle)
    specs = list(agent_specs)
    if len(set(specs)) != len(specs):
        raise ValueError(f"agent specs must be distinct, got {specs} (use self_play for mirror games)")
    if len(specs) < (1 if self_play else 2):
        raise ValueError("a tournament needs at least two agent specs (or one with self_play)")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if not isinstance(seed, int) or seed < 0:
        raise UsageError(f"seed must be a non-negative integer, got {seed!r}")
    if max_decisions < 1:
        raise UsageError(f"max_decisions must be at least 1, got {max_decisions}")
    for spec in specs:  # a person cannot answer from a worker process
        check_unattended(spec, "--agents")
    plan = schedule(len(specs), games, seed, self_play)
    workers = check_workers(workers, len(plan))
    if out_dir is not None:
        out_dir = prepare_report_dir(out_dir, overwrite)
    for spec in specs:  # fail fast on a bad spec, before any process starts
        make_agent(spec, battle, 0)
    engine = _engine(battle)
    jobs = [(battle, i, r, c, (specs[r], specs[c]), s, max_decisions) for i, (r, c, _, s) in enumerate(plan)]
    t0 = time.perf_counter()
    results = _run_jobs(jobs, workers, progress, f"{battle} tournament")
    result = TournamentResult(battle, list(engine.agents), specs, games, seed, workers, max_decisions,
                              time.perf_counter() - t0, sorted(results, key=lambda g: g.index), dict(about or {}))
    if out_dir is not None:
        result.save(out_dir)
    return result


# ============================================================================ baseline
def random_baseline(battle: str, games: int, seed: int = 0, workers: int | None = None, progress: bool = True) -> dict:
    """Random-vs-random per-side win rates over ``games`` games (the reference value tests check)."""
    result = run_tournament(battle, ["random"], games, workers=workers, seed=seed, self_play=True, progress=progress)
    sides = result.side_summary()
    return {
        "battle": result.battle, "agents": ["random", "random"], "games": games, "seed": seed,
        "side_win_rates": {s["side"]: s["win_rate"] for s in sides},
        "side_wins": {s["side"]: s["wins"] for s in sides},
        "ci95": {s["side"]: s["ci95"] for s in sides},
        "draws": sum(1 for g in result.games if g.winner < 0), "truncations": result.truncations,
        "decisions_per_game": result.decisions(),
        "command": f"python -m training.evaluate {result.battle.rsplit('_v', 1)[0]} --random-baseline {games} --seed {seed}",
    }


def check_against_baseline(reference: dict, fresh: dict, confidence: float = 0.99) -> list[str]:
    """Sides whose fresh random-vs-random win rate lies outside the ``confidence`` band of the
    recorded one (empty when the fresh run agrees)."""
    problems = []
    for side, p_ref in reference["side_win_rates"].items():
        lo, hi = binomial_band(p_ref, fresh["games"], confidence, reference["games"])
        p = fresh["side_win_rates"][side]
        if not lo <= p <= hi:
            problems.append(f"{side}: {p:.3f} outside [{lo:.3f}, {hi:.3f}] (recorded {p_ref:.3f} over {reference['games']} games)")
    return problems


# ============================================================================ CLI
def add_arguments(ap: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The evaluation options (shared by ``python -m training.evaluate`` and ``wargames evaluate``)."""
    ap.add_argument("battle", help="battle name, e.g. berestechko or berestechko_v0")
    ap.add_argument("--agents", nargs="+", default=["random", "scripted"],
                    help="agent specs: random, scripted, mcts, mcts:N, pretrained, ckpt:PATH (see agents.registry; "
                         "a person plays with 'wargames play', not here)")
    ap.add_argument("--games", type=int, default=20, help="games per pairing per side")
    ap.add_argument("--workers", type=int, default=None,
                    help=f"processes, 1 to {max_workers()} (default min(2, cpu count))")
    ap.add_argument("--seed", type=int, default=0, help="tournament seed, >= 0 (game seeds derive from it)")
    ap.add_argument("--out", default=None,
                    help="folder for result.json, report.md and plot.png (default: runs/evaluate/<battle>); one that "
                         "already holds a report is refused unless --overwrite is given")
    ap.add_argument("--overwrite", action="store_true", help="replace the report already in --out")
    ap.add_argument("--self-play", action="store_true", help="also play each agent against itself")
    ap.add_argument("--max-decisions", type=int, default=DEFAULT_MAX_DECISIONS, help="cut games longer than this (draws)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--random-baseline", type=int, metavar="GAMES", default=None,
                    help="instead of a tournament: random vs random over GAMES games; writes --baseline-out")
    ap.add_argument("--baseline-out", default=None, help="JSON file for --random-baseline (default: print only)")
    return ap


def build_parser() -> argparse.ArgumentParser:
    return add_arguments(argparse.ArgumentParser(prog="python -m training.evaluate", description=__doc__.split("\n\n")[0]))


def run(args: argparse.Namespace) -> int:
    """Run the evaluation that parsed ``args`` ask for; bad input prints one ``error:`` line, status 2."""
    try:
        if args.random_baseline is not None:
            if args.random_baseline < 1:
                raise UsageError(f"--random-baseline must be at least 1 game, got {args.random_baseline}")
            baseline_out = check_baseline_out(args.baseline_out) if args.baseline_out else None  # before the games
            ref = random_baseline(args.battle, args.random_baseline, args.seed, args.workers, not args.no_progress)
            text = json.dumps(ref, indent=1)
            if baseline_out:
                baseline_out.write_text(text + "\n")
            print(text)
            return 0
        out = Path(args.out).expanduser() if args.out else default_out(args.battle)
        result = run_tournament(args.battle, args.agents, args.games, args.workers, args.seed, out,
                                args.self_play, args.max_decisions, not args.no_progress, overwrite=args.overwrite)
    except (KeyError, ValueError) as exc:  # unknown battle, bad spec or count, CheckpointError, UsageError
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    print(result.markdown())
    print(f"written: {out / 'report.md'}, {out / 'result.json'}, {out / 'plot.png'}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
