"""``wargames``: list the battles, play a game between agents, replay a game record.

    wargames list
    wargames play berestechko --p1 scripted --p2 random --seed 1 --render ansi --record game.json [--overwrite]
    wargames replay game.json --format gif --out replays/ [--view AGENT] [--overwrite]
    wargames train berestechko --minutes 8 --out runs/berestechko [--resume | --overwrite]
    wargames evaluate berestechko --agents random scripted mcts --games 20 [--out DIR] [--overwrite]
    wargames serve [--host 127.0.0.1] [--port 8000] [--checkpoints DIR]

Agent specs (``agents.registry.AGENT_SPECS``): ``random``, ``scripted`` (the battle's
``agents.<battle>_scripted`` module), ``mcts`` / ``mcts:N``, ``human`` (``play`` only), ``pretrained`` (the
policy shipped in ``agents/pretrained/``) and ``ckpt:PATH``
(``~`` is expanded there and in every path option, where no shell does it: ``--out=~/x``). Outputs are never
replaced unasked: ``play`` refuses an existing ``--record`` file or final image, ``replay`` and ``evaluate`` an
``--out`` that holds earlier images or a report, unless ``--overwrite`` is given, as ``train`` does. User errors
(unknown battle, bad agent spec, corrupt record, negative seed, unwritable folder, missing
checkpoint, a missing optional extra) print one ``error: ...`` line and exit with status 2.

This module is the top of the dependency graph: it imports ``wargame_envs``, ``agents`` and
``training``; none of them imports it.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import math
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from agents.registry import agent_seed
from wargame_envs import registry
from wargame_envs.core.errors import RecordError, WargameError
from wargame_envs.core.records import GameRecord, check_record_path, replay, replay_final
from wargames_cli.progress import Progress

EXIT_USAGE = 2
MAX_GIF_FRAMES = 150  # default --every for GIFs keeps memory bounded on long games
MAX_GIF_DURATION_MS = 65535 * 10 // 3  # a GIF stores a frame's delay in 16 bits of 1/100 s; the last is held 3x
# optional extras (pyproject.toml) and the top-level modules each command needs from them
RENDER_MODULES = ("PIL",)
TRAIN_MODULES = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "tqdm", "openskill", "matplotlib")
EVALUATE_MODULES = ("tqdm", "openskill", "matplotlib")  # torch only for ckpt: agents, checked by agents.registry


class CliError(WargameError):
    """A user error: printed as ``error: <message>``, exit status 2."""


class MissingExtraError(CliError):
    """An optional dependency is not installed; the message names the extra to install."""

    def __init__(self, module: str, extra: str):
        super().__init__(f"{module} is not installed; this needs the optional extra: pip install 'wargame-envs[{extra}]'")


def require(extra: str, modules: Sequence[str]) -> None:
    """Import ``modules`` now, or raise :class:`MissingExtraError` naming ``extra``."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            raise MissingExtraError(exc.name or name, extra) from None


def check_seed(seed: int) -> int:
    if seed < 0:
        raise CliError(f"--seed must be a non-negative integer, got {seed}")
    return seed


# --------------------------------------------------------------------------- battles and agents
def resolve_battle(name: str) -> str:
    """Full env name (``berestechko`` -> ``berestechko_v0``), or a CliError listing the battles."""
    try:
        return registry.resolve(name)
    except KeyError as exc:
        raise CliError(exc.args[0]) from None


def load_engine(name: str):
    try:
        return registry.make_engine(name)
    except KeyError:
        raise CliError(f"no battle {name!r} in this version; available: {sorted(registry.BATTLES)}") from None
    except ImportError as exc:
        raise CliError(f"battle {name} cannot be loaded: {exc}") from None


def resolve_agent(spec: str, battle: str, seed: int | None = None):
    """An agent for ``battle`` from a spec string (see ``agents.registry.AGENT_SPECS``); a bad or
    unavailable spec is a CliError."""
    from agents.registry import make_agent

    try:
        return make_agent(spec, battle, seed)
    except KeyError as exc:  # unknown battle
        raise CliError(exc.args[0]) from None
    except ValueError as exc:  # bad spec, or its agent module is missing
        raise CliError(str(exc)) from None


def describe_result(agents: Sequence[str], returns: Sequence[float] | None) -> str:
    if returns is None:
        return "no result (game truncated)"
    best = max(returns)
    winners = [a for a, r in zip(agents, returns) if r == best]
    if best <= 0 or len(winners) != 1:
        return f"draw (returns {list(returns)})"
    return f"winner: {winners[0]} (returns {list(returns)})"


# --------------------------------------------------------------------------- commands
def cmd_list(args) -> int:
    print(f"{'battle':<18} {'agents':<34} {'actions':>8} {'obs size':>9}")
    for name in sorted(registry.BATTLES):
        try:
            engine = load_engine(name)
        except WargameError as exc:  # not importable, or its data files do not validate
            print(f"{name:<18} unavailable: {exc}")
            continue
        print(f"{name:<18} {', '.join(engine.agents):<34} {engine.num_actions:>8} {engine.obs_layout.size:>9}")
    return 0


def play_game(env, agents: Sequence, verbose: bool = False) -> int:
    """Play ``env`` (already reset) to the end with one agent per player; returns the decision count.

    Interactive agents (those with an ``attach(env)`` method: ``agents.human.HumanAgent``) are given
    the env, and every decision is then printed so the person sees the other side's play. Such an
    agent may raise ``agents.human.UndoRequest``: the game is rewound (:func:`rewind`) and play goes
    on from there; ``agents.human.QuitRequest`` propagates to the caller.
    """
    from agents.human import UndoRequest

    raw = env.unwrapped
    interactive = [a for a in agents if callable(getattr(a, "attach", None))]
    for agent in interactive:
        agent.attach(env)
    verbose = verbose or bool(interactive)
    for name in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        player = raw.possible_agents.index(name)
        mask = obs["action_mask"].astype(bool)
        try:
            action = agents[player].act(raw.engine, raw.game_state, player, mask)
        except UndoRequest as undo:
            rewind(env, undo.decisions, undo.digest)
            if verbose:
                print(f"      {name}: undo, back to decision #{undo.decisions + 1}")
            continue
        if verbose:
            print(f"{len(raw.record.actions) + 1:5d} {name}: {raw.action_to_str(action)}")
        env.step(action)
    return len(raw.record.actions)


def rewind(env, decisions: int, digest: str | None = None) -> None:
    """Take ``env`` back to just before its decision number ``decisions + 1`` (``core.aec.rewind``)."""
    from wargame_envs.core.aec import rewind as rewind_env

    try:
        rewind_env(env, decisions, digest)
    except RecordError as exc:
        raise CliError(str(exc)) from None


def save_record(record: GameRecord, path: Path) -> Path:
    """``record`` saved to ``path`` (checked before the game by :func:`check_record_path`). Should that fail now
    all the same (the folder was removed meanwhile, the disk is full), the game is not lost: it is saved in the
    system's temporary folder, and a :class:`CliError` names both paths."""
    try:
        return record.save(path)
    except (OSError, RecordError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        fd, spare = tempfile.mkstemp(prefix="wargames-record-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(record.to_json())
        raise CliError(f"--record {path}: cannot write there ({why}); the game record is saved in {spare}") from None


def cmd_play(args) -> int:
    name = resolve_battle(args.battle)
    check_seed(args.seed)
    from training.evaluate import ensure_dir

    args.out = str(Path(args.out).expanduser())  # a shell leaves --out=~/x as it is
    if args.render == "rgb_array":
        require("render", RENDER_MODULES)
        ensure_dir(args.out)
    record_path = None
    if args.record:  # before the game, which may be long, is played
        record_path = check_record_path(args.record, "--record")
        if record_path.exists() and not args.overwrite:
            raise CliError(f"--record {record_path} already exists; pass --overwrite to replace it, or choose "
                           f"another path")
        ensure_dir(record_path.parent, "--record")
    final_png = final_image_path(args.out, name)
    if args.render == "rgb_array" and final_png.exists() and not args.overwrite:
        raise CliError(f"--out {args.out} already holds {final_png.name}; pass --overwrite to replace it, or choose "
                       f"another --out")
    specs = (args.p1, args.p2)
    players = [resolve_agent(spec, name, agent_seed(args.seed, i)) for i, spec in enumerate(specs)]
    render_mode = None if args.render == "none" else args.render
    env = registry.make(name, render_mode=render_mode, engine=load_engine(name))
    raw = env.unwrapped
    if len(raw.possible_agents) != len(players):
        raise CliError(f"{name} has {len(raw.possible_agents)} players; the CLI seats two")
    env.reset(seed=args.seed)
    raw.record.players = dict(zip(raw.possible_agents, specs))
    try:
        return _play_and_report(env, players, name, specs, args, record_path)
    finally:
        env.close()


def final_image_path(out: str, name: str) -> Path:
    """Where ``play --render rgb_array`` writes the final position."""
    return Path(out) / f"{name}_final.png"


def _play_and_report(env, players, name: str, specs, args, record_path: Path | None) -> int:
    from agents.human import QuitRequest

    raw = env.unwrapped
    try:
        decisions = play_game(env, players, args.verbose)
    except QuitRequest as stop:
        print(f"{name} seed {args.seed}: {stop} after {len(raw.record.actions)} decisions")
        if record_path:
            print(f"record (unfinished game): {save_record(raw.record, record_path)}")
        return 0
    show_final = [p for p in players if callable(getattr(p, "show_position", None))]
    if show_final and args.render != "ansi":
        show_final[0].show_position(raw.engine, raw.game_state)
    if args.render == "ansi":
        print(env.render())
    elif args.render == "rgb_array":
        from wargame_envs.core.render import save_png

        print(f"final image: {save_png(env.render(), final_image_path(args.out, name))}")
    print(f"{name} seed {args.seed}: {specs[0]} vs {specs[1]}, {decisions} decisions")
    print(describe_result(raw.possible_agents, raw.record.returns))
    if record_path:
        print(f"record: {save_record(raw.record, record_path)}")
    return 0


def cmd_replay(args) -> int:
    if not 1 <= args.duration_ms <= MAX_GIF_DURATION_MS:
        raise CliError(f"--duration-ms must be 1..{MAX_GIF_DURATION_MS}, got {args.duration_ms}")
    try:
        record = GameRecord.load(args.record)
    except IsADirectoryError:
        raise CliError(f"{args.record}: is a folder, not a game record") from None
    except PermissionError:
        raise CliError(f"{args.record}: permission denied") from None
    engine = load_engine(record.env)
    n = len(record.actions)
    every = args.every or (max(1, math.ceil(n / MAX_GIF_FRAMES)) if args.format == "gif" else 1)
    if every < 1:
        raise CliError(f"--every must be at least 1, got {every}")
    out = Path(args.out).expanduser()
    if args.format != "text":
        require("render", RENDER_MODULES)
        from training.evaluate import ensure_dir

        old = earlier_images(ensure_dir(out), args.format)
        if old and not args.overwrite:
            shown = ", ".join(p.name for p in old[:3]) + (f" and {len(old) - 3} more" if len(old) > 3 else "")
            raise CliError(f"--out {out} already holds a replay's images ({shown}); pass --overwrite to replace "
                           "them, or choose another --out")
        replay_final(record, engine)  # a corrupt record fails here, fast, before any image is written
        for path in old:  # --overwrite: no image of the earlier replay is left among the new ones
            path.unlink()
        if old:
            print(f"note: removed {len(old)} image(s) of an earlier replay from {out} (--overwrite)", file=sys.stderr)
    view = _View(record, engine, args.view)
    players = ", ".join(f"{a}={s}" for a, s in record.players.items()) or "unknown players"
    print(f"{record.env} seed {record.seed}, {n} decisions ({players}); view: {args.view or 'omniscient'}")
    images = math.ceil(n / every) + 1  # every K-th decision and the final position
    if args.format == "text":
        state = _replay_text(record, engine, view)
    elif args.format == "png":
        with Progress(images, "png replay", enabled=not args.no_progress) as bar:
            state = _replay_png(record, engine, view, out, every, bar)
    else:
        from wargame_envs.core.render import save_gif

        with Progress(images, "gif replay", enabled=not args.no_progress) as bar:
            frames = _ReplayFrames(record, engine, view, every, bar)
            path = save_gif(frames, out / "game.gif", args.duration_ms)
        print(f"gif: {path}")
        state = frames.final_state
    print(describe_result(engine.agents, _returns(engine, state)))
    return 0


REPLAY_IMAGES = {"png": re.compile(r"decision_\d{4,}\.png|final\.png"), "gif": re.compile(r"game\.gif")}


def earlier_images(out: Path, fmt: str) -> list[Path]:
    """The files in ``out`` that ``replay --format fmt`` writes (``decision_NNNN.png`` and ``final.png``, or
    ``game.gif``): those of an earlier replay, which a new one would mix with or replace."""
    pattern = REPLAY_IMAGES[fmt]
    return sorted(p for p in out.iterdir() if pattern.fullmatch(p.name) and p.is_file())


def _returns(engine, state) -> list[float] | None:
    return [float(r) for r in engine.returns(state)] if engine.is_terminal(state) else None


class _View:
    """Draws the replayed positions: omniscient (``engine.render_ansi`` / ``scene``, the default), or
    as one agent may see them (``--view AGENT``: ``env.unwrapped.render_for``, with an env stepped
    alongside the replay)."""

    def __init__(self, record: GameRecord, engine, agent: str | None):
        self.engine, self.agent, self.env = engine, agent, None
        if agent is not None:
            if agent not in engine.agents:
                raise CliError(f"--view {agent!r}: expected one of {', '.join(engine.agents)} (omit it for the "
                               f"omniscient view)")
            self.env = registry.make(record.env, raw=True, engine=engine)
            self.env.reset(seed=record.seed, options=record.options)

    def text(self, state) -> str:
        return self.engine.render_ansi(state) if self.env is None else self.env.render_for(self.agent, "ansi")

    def image(self, state):
        if self.env is not None:
            return self.env.render_for(self.agent, "rgb_array")
        from wargame_envs.core.render import render_rgb

        return render_rgb(self.engine.scene(state))

    def positions(self, record: GameRecord):
        """``(decision index, state, next action or None)`` of the replay, the view kept in step."""
        for i, (_, state, action) in enumerate(replay(record, self.engine)):
            yield i, state, action
            if action is not None and self.env is not None:
                self.env.step(action)


def _replay_text(record: GameRecord, engine, view: _View):
    for i, state, action in view.positions(record):
        if action is None:
            print(view.text(state))
            return state
        print(f"{i + 1:5d} {engine.agents[engine.current_player(state)]}: {engine.action_to_str(state, action)}")


def _replay_png(record: GameRecord, engine, view: _View, out: Path, every: int, bar: Progress):
    from wargame_envs.core.render import save_png

    written = 0
    for i, state, action in view.positions(record):
        if action is None:
            final = save_png(view.image(state), out / "final.png")
            bar.update()
            bar.close()
            print(f"png: {written} decision images and {final}")
            return state
        if i % every == 0:
            save_png(view.image(state), out / f"decision_{i + 1:04d}.png")
            written += 1
            bar.update()


class _ReplayFrames:
    """Images of every ``every``-th decision and of the final position, rendered lazily (for GIFs)."""

    def __init__(self, record: GameRecord, engine, view: _View, every: int, bar: Progress):
        self.record, self.engine, self.view, self.every, self.bar = record, engine, view, every, bar
        self.final_state = None

    def __iter__(self):
        for i, state, action in self.view.positions(self.record):
            if action is None:
                self.final_state = state
            if action is None or i % self.every == 0:
                yield self.view.image(state)
                self.bar.update()


# --------------------------------------------------------------------------- train / evaluate
MAIN_JOB_OPPONENTS = ("random", "scripted")


def cmd_train(args) -> int:
    """Self-play training (``training.train``), then a tournament of the checkpoint against random and
    scripted play on both sides (``training.evaluate``) written beside it: OUT/evaluation/report.md,
    result.json, plot.png, each headed by the checkpoint they describe; the training curves in OUT/training.png
    (``training.curves``)."""
    from training import train as T

    train_args = T.check_args(T.from_namespace(args))  # bad options fail before the extras are looked for
    require("train", TRAIN_MODULES)
    from training.evaluate import run_tournament

    if train_args.backend == "rllib":  # Ray is imported there only
        from training.rllib_backend import train_rllib as run
    elif train_args.backend == "batched":
        from training.batched import train_batched as run
    else:
        run = T.train
    result = run(dataclasses.replace(train_args, eval_games=0))
    T.print_result(result)
    _draw_curves(train_args.out)
    if train_args.eval_games <= 0:
        return 0
    ckpt = f"ckpt:{result.checkpoint}"
    out = Path(train_args.out) / "evaluation"
    opponents = [spec for spec in MAIN_JOB_OPPONENTS if _agent_available(spec, train_args.battle)]
    tournament = run_tournament(train_args.battle, [ckpt, *opponents], train_args.eval_games, seed=train_args.seed,
                                out_dir=out, progress=train_args.progress, about=T.checkpoint_about(result.checkpoint))
    print(f"\nevaluation ({train_args.eval_games} games per side per opponent; Wilson 95% intervals):")
    for opponent in opponents:
        for row in tournament.head_to_head(ckpt, opponent):
            lo, hi = row["ci95"]
            print(f"  trained as {row['side']:<18} vs {opponent:<9} {row['wins']:>3}/{row['games']:<3} "
                  f"= {100 * row['win_rate']:5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]")
    print(f"report: {out / 'report.md'} (also result.json, plot.png); checkpoint: {result.checkpoint}")
    print(f"play against it: wargames play {train_args.battle} --p1 human --p2 {ckpt}")
    return 0


def _draw_curves(out: str) -> None:
    """OUT/training.png (``training.curves``); a run that logged nothing gets a note instead."""
    from training.curves import CurvesError, plot_training

    try:
        print(f"training curves: {plot_training(out)}")
    except CurvesError as exc:
        print(f"note: no training curves: {exc}", file=sys.stderr)


def _agent_available(spec: str, battle: str) -> bool:
    from agents.registry import AgentUnavailableError, make_agent

    try:
        make_agent(spec, battle, 0)
    except AgentUnavailableError as exc:
        print(f"note: {exc}", file=sys.stderr)
        return False
    return True


def cmd_evaluate(args) -> int:
    from training import evaluate

    check_seed(args.seed)
    resolve_battle(args.battle)
    require("train", EVALUATE_MODULES)
    return evaluate.run(args)


def cmd_serve(args) -> int:
    """``wargames serve``: the web app of ``wargames_web`` on HOST:PORT until Ctrl-C."""
    require("web", ("starlette", "uvicorn"))
    from wargames_web.app import serve
    from wargames_web.games import Config

    if not 0 < args.port < 65536:
        raise CliError(f"--port must be 1..65535, got {args.port}")
    if args.idle_minutes <= 0:
        raise CliError(f"--idle-minutes must be positive, got {args.idle_minutes}")
    folder = Path(args.checkpoints).expanduser() if args.checkpoints else None
    if folder is not None and not folder.is_dir():
        raise CliError(f"--checkpoints {args.checkpoints}: not a folder")
    print(f"wargames: serving on http://{args.host}:{args.port}/ (Ctrl-C stops it)", flush=True)
    serve(args.host, args.port, Config(checkpoints=folder, idle_timeout_s=60 * args.idle_minutes))
    return 0


# --------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    from training.evaluate import add_arguments as evaluate_arguments
    from training.train import add_arguments as train_arguments

    parser = argparse.ArgumentParser(prog="wargames", description="Historical hex-and-counter wargames as RL environments.")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("list", help="the registered battles").set_defaults(func=cmd_list)

    play = sub.add_parser("play", help="play one game between two agents")
    play.add_argument("battle", help="env name, e.g. berestechko_v0 or berestechko")
    play.add_argument("--p1", default="random",
                      help="first player's agent: random, scripted, mcts, mcts:N, human, pretrained, ckpt:PATH")
    play.add_argument("--p2", default="random", help="second player's agent (same specs)")
    play.add_argument("--seed", type=int, default=1, help="dice seed, >= 0 (agents get seeds derived from it)")
    play.add_argument("--render", choices=("ansi", "rgb_array", "none"), default="none",
                      help="ansi: print the final text map; rgb_array: write the final PNG to --out")
    play.add_argument("--record", metavar="PATH", help="save the game record (JSON) here")
    play.add_argument("--out", default=".", help="folder for images (default: current folder)")
    play.add_argument("--overwrite", action="store_true",
                      help="replace an existing --record file or final image (refused without it)")
    play.add_argument("--verbose", "-v", action="store_true", help="print every decision")
    play.set_defaults(func=cmd_play)

    rep = sub.add_parser("replay", help="replay a game record (bit-exact)")
    rep.add_argument("record", help="game record JSON written by 'play --record'")
    rep.add_argument("--format", choices=("text", "png", "gif"), default="text",
                     help="text: every decision and the final map; png: decision_NNNN.png + final.png; gif: game.gif")
    rep.add_argument("--out", default=".", help="folder for images (default: current folder)")
    rep.add_argument("--every", type=int, default=0, metavar="K",
                     help=f"image every K-th decision (default 1; GIFs: at most {MAX_GIF_FRAMES} frames)")
    rep.add_argument("--duration-ms", type=int, default=500, help=f"GIF frame duration, 1..{MAX_GIF_DURATION_MS}")
    rep.add_argument("--no-progress", action="store_true", help="no progress bar for png/gif")
    rep.add_argument("--overwrite", action="store_true",
                     help="replace the images of an earlier replay in --out (without it such a folder is refused)")
    rep.add_argument("--view", metavar="AGENT", default=None,
                     help="draw the maps as this player may see them (default: omniscient, everything)")
    rep.set_defaults(func=cmd_replay)

    train = sub.add_parser(
        "train", help="self-play training, then evaluation against random and scripted play",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        description="Masked-PPO self-play training (training.train), then a tournament of the checkpoint against "
                    "random and scripted play on both sides, --eval-games games per side per opponent, written to "
                    "OUT/evaluation (report.md, result.json, plot.png); the training curves to OUT/training.png "
                    "(python -m training.curves OUT draws them during a run). An OUT that already holds a run is "
                    "refused unless --resume or --overwrite is given.")
    train_arguments(train)
    train.set_defaults(func=cmd_train, eval_games=50)
    parser.train_parser = train  # --recipe sets its defaults (training.train.parse_with_recipe)

    evaluate = sub.add_parser(
        "evaluate", help="round-robin tournament between agents (training.evaluate)",
        description="Round-robin tournament between agent specs, every pairing on both sides; writes report.md, "
                    "result.json and plot.png to --out (default runs/evaluate/<battle>).")
    evaluate_arguments(evaluate)
    evaluate.set_defaults(func=cmd_evaluate)

    serve = sub.add_parser("serve", help="play, watch and replay in the browser (needs the [web] extra)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--checkpoints", metavar="DIR", default=None,
                       help="folder whose checkpoints the page may load as ckpt:NAME opponents (none without it)")
    serve.add_argument("--idle-minutes", type=float, default=30.0, help="a tab's game is freed after this idle time")
    serve.set_defaults(func=cmd_serve)
    return parser


def _missing_extra(exc: ModuleNotFoundError, command: str | None) -> MissingExtraError | None:
    """The error to show for a missing optional module, or None when it is not one of ours."""
    root = (exc.name or "").partition(".")[0]
    if root in RENDER_MODULES and command in ("play", "replay"):
        return MissingExtraError(root, "render")
    if root in TRAIN_MODULES or root in RENDER_MODULES:
        return MissingExtraError(root, "train")
    return None


def main(argv: Sequence[str] | None = None) -> int:
    from training.train import parse_with_recipe

    parser = build_parser()
    try:
        args = parse_with_recipe(parser, parser.train_parser, argv)
    except SystemExit as exc:  # --help, or a usage error argparse has already printed
        return int(exc.code or 0)
    except WargameError as exc:  # a bad --recipe
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return args.func(args)
    except WargameError as exc:  # CliError, RecordError, IllegalActionError, ScenarioError, CheckpointError ...
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ModuleNotFoundError as exc:  # an optional extra used deeper down than the checks above
        missing = _missing_extra(exc, args.command)
        if missing is None:
            raise
        print(f"error: {missing}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 1
    except OSError as exc:  # an unwritable --out or --record, a full disk
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
