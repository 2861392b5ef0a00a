"""``wargames``: list the battles, play a game between agents, replay a game record.

    wargames list
    wargames play berestechko --p1 scripted --p2 random --seed 1 --render ansi --record game.json
    wargames replay game.json --format gif --out replays/

Agent specs (``agents.registry.AGENT_SPECS``): ``random``, ``scripted`` (the battle's
``agents.<battle>_scripted`` module), ``mcts`` / ``mcts:N``, ``human`` and ``ckpt:PATH``. User errors (unknown battle, bad agent spec,
corrupt record) print ``error: ...`` and exit with status 2.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from . import registry
from .core.errors import WargameError
from .core.records import GameRecord, replay

EXIT_USAGE = 2
MAX_GIF_FRAMES = 150  # default --every for GIFs keeps memory bounded on long games


class CliError(WargameError):
    """A user error: printed as ``error: <message>``, exit status 2."""


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


def agent_seed(game_seed: int, player: int) -> int:
    """A seed for player ``player``'s agent, independent of the dice stream seeded with ``game_seed``."""
    return int(np.random.SeedSequence([game_seed, player + 1]).generate_state(1)[0])


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
    """Take ``env`` back to just before its decision number ``decisions + 1`` by replaying its own
    record (same seed and options, the first ``decisions`` actions): bit-exact, so the dice stream
    is where it was then, and the record keeps only those actions. ``digest``, when given, is the
    ``state.digest()`` the replayed position must have."""
    raw = env.unwrapped
    record = raw.record
    if not 0 <= decisions <= len(record.actions):
        raise CliError(f"cannot rewind to decision #{decisions + 1}: the game has {len(record.actions)} decisions")
    players, actions = dict(record.players), list(record.actions[:decisions])
    env.reset(seed=record.seed, options=record.options)
    for action in actions:
        env.step(action)
    raw.record.players = players
    if digest is not None and raw.game_state.digest() != digest:
        raise CliError("undo failed: replaying the record did not give back the position of that decision")


def cmd_play(args) -> int:
    from agents.human import QuitRequest

    name = resolve_battle(args.battle)
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
        decisions = play_game(env, players, args.verbose)
    except QuitRequest as stop:
        print(f"{name} seed {args.seed}: {stop} after {len(raw.record.actions)} decisions")
        if args.record:
            print(f"record (unfinished game): {raw.record.save(args.record)}")
        env.close()
        return 0
    show_final = [p for p in players if callable(getattr(p, "show_position", None))]
    if show_final and args.render != "ansi":
        show_final[0].show_position(raw.engine, raw.game_state)
    if args.render == "ansi":
        print(env.render())
    elif args.render == "rgb_array":
        from .core.render import save_png

        print(f"final image: {save_png(env.render(), Path(args.out) / f'{name}_final.png')}")
    print(f"{name} seed {args.seed}: {specs[0]} vs {specs[1]}, {decisions} decisions")
    print(describe_result(raw.possible_agents, raw.record.returns))
    if args.record:
        print(f"record: {raw.record.save(args.record)}")
    env.close()
    return 0


def cmd_replay(args) -> int:
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
    out = Path(args.out)
    players = ", ".join(f"{a}={s}" for a, s in record.players.items()) or "unknown players"
    print(f"{record.env} seed {record.seed}, {n} decisions ({players})")
    if args.format == "text":
        state = _replay_text(record, engine)
    elif args.format == "png":
        state = _replay_png(record, engine, out, every)
    else:
        from .core.render import save_gif

        frames = _ReplayFrames(record, engine, every)
        print(f"gif: {save_gif(frames, out / 'game.gif', args.duration_ms)}")
        state = frames.final_state
    print(describe_result(engine.agents, _returns(engine, state)))
    return 0


def _returns(engine, state) -> list[float] | None:
    return [float(r) for r in engine.returns(state)] if engine.is_terminal(state) else None


def _replay_text(record: GameRecord, engine):
    for i, (_, state, action) in enumerate(replay(record, engine)):
        if action is None:
            print(engine.render_ansi(state))
            return state
        print(f"{i + 1:5d} {engine.agents[engine.current_player(state)]}: {engine.action_to_str(state, action)}")


def _replay_png(record: GameRecord, engine, out: Path, every: int):
    from .core.render import render_rgb, save_png

    written = 0
    for i, (_, state, action) in enumerate(replay(record, engine)):
        if action is None:
            print(f"png: {written} decision images and {save_png(render_rgb(engine.scene(state)), out / 'final.png')}")
            return state
        if i % every == 0:
            save_png(render_rgb(engine.scene(state)), out / f"decision_{i + 1:04d}.png")
            written += 1


class _ReplayFrames:
    """Images of every ``every``-th decision and of the final position, rendered lazily (for GIFs)."""

    def __init__(self, record: GameRecord, engine, every: int):
        self.record, self.engine, self.every = record, engine, every
        self.final_state = None

    def __iter__(self):
        from .core.render import render_rgb

        for i, (_, state, action) in enumerate(replay(self.record, self.engine)):
            if action is None:
                self.final_state = state
            if action is None or i % self.every == 0:
                yield render_rgb(self.engine.scene(state))


# --------------------------------------------------------------------------- train / evaluate
MAIN_JOB_OPPONENTS = ("random", "scripted")


def cmd_train(args) -> int:
    """Self-play training (``training.train``), then a tournament of the checkpoint against random and
    scripted play on both sides (``training.evaluate``): checkpoint, report.md, result.json, plot.png."""
    from training.evaluate import run_tournament
    from training.train import main as train_main, parse_args

    train_argv = [args.battle, *args.train_args]
    train_args = parse_args(train_argv)
    result = train_main([*train_argv, "--eval-games", "0"])
    if args.eval_games <= 0:
        return 0
    ckpt = f"ckpt:{result.checkpoint}"
    out = Path(train_args.out) / "evaluation"
    opponents = [spec for spec in MAIN_JOB_OPPONENTS if _agent_available(spec, train_args.battle)]
    tournament = run_tournament(train_args.battle, [ckpt, *opponents], args.eval_games, seed=train_args.seed,
                                out_dir=out, progress=train_args.progress)
    print(f"\nevaluation ({args.eval_games} games per side per opponent; Wilson 95% intervals):")
    for opponent in opponents:
        for row in tournament.head_to_head(ckpt, opponent):
            lo, hi = row["ci95"]
            print(f"  trained as {row['side']:<18} vs {opponent:<9} {row['wins']:>3}/{row['games']:<3} "
                  f"= {100 * row['win_rate']:5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]")
    print(f"report: {out / 'report.md'} (also result.json, plot.png); checkpoint: {result.checkpoint}")
    print(f"play against it: wargames play {train_args.battle} --p1 human --p2 {ckpt}")
    return 0


def _agent_available(spec: str, battle: str) -> bool:
    from agents.registry import AgentUnavailableError, make_agent

    try:
        make_agent(spec, battle, 0)
    except AgentUnavailableError as exc:
        print(f"note: {exc}", file=sys.stderr)
        return False
    return True


def cmd_evaluate(args) -> int:
    from training.evaluate import main as evaluate_main

    return evaluate_main([args.battle, *args.evaluate_args])


# --------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="wargames", description="Historical hex-and-counter wargames as RL environments.")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("list", help="the registered battles").set_defaults(func=cmd_list)

    play = sub.add_parser("play", help="play one game between two agents")
    play.add_argument("battle", help="env name, e.g. berestechko_v0 or berestechko")
    play.add_argument("--p1", default="random", help="first player's agent: random, scripted, mcts, mcts:N, human, ckpt:PATH")
    play.add_argument("--p2", default="random", help="second player's agent (same specs)")
    play.add_argument("--seed", type=int, default=1, help="dice seed (agents get seeds derived from it)")
    play.add_argument("--render", choices=("ansi", "rgb_array", "none"), default="none",
                      help="ansi: print the final text map; rgb_array: write the final PNG to --out")
    play.add_argument("--record", metavar="PATH", help="save the game record (JSON) here")
    play.add_argument("--out", default=".", help="folder for images (default: current folder)")
    play.add_argument("--verbose", "-v", action="store_true", help="print every decision")
    play.set_defaults(func=cmd_play)

    rep = sub.add_parser("replay", help="replay a game record (bit-exact)")
    rep.add_argument("record", help="game record JSON written by 'play --record'")
    rep.add_argument("--format", choices=("text", "png", "gif"), default="text",
                     help="text: every decision and the final map; png: decision_NNNN.png + final.png; gif: game.gif")
    rep.add_argument("--out", default=".", help="folder for images (default: current folder)")
    rep.add_argument("--every", type=int, default=0, metavar="K",
                     help=f"image every K-th decision (default 1; GIFs: at most {MAX_GIF_FRAMES} frames)")
    rep.add_argument("--duration-ms", type=int, default=500, help="GIF frame duration")
    rep.set_defaults(func=cmd_replay)

    train = sub.add_parser(
        "train", help="self-play training, then evaluation against random and scripted play",
        description="Masked-PPO self-play training (python -m training.train; every option of it is accepted "
                    "here, see 'python -m training.train --help'), then a tournament of the checkpoint against "
                    "random and scripted play on both sides, written to OUT/evaluation.")
    train.add_argument("battle", help="env name, e.g. berestechko")
    train.add_argument("--eval-games", type=int, default=50,
                       help="evaluation games per side against each opponent (0: no evaluation)")
    train.set_defaults(func=cmd_train)

    evaluate = sub.add_parser("evaluate", help="round-robin tournament between agents (python -m training.evaluate)",
                              add_help=False)
    evaluate.add_argument("battle")
    evaluate.set_defaults(func=cmd_evaluate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        # train / evaluate pass the options they do not know on to training.train / training.evaluate
        args, rest = build_parser().parse_known_args(argv)
        if rest and getattr(args, "func", None) not in (cmd_train, cmd_evaluate):
            build_parser().parse_args(argv)  # reports the unknown options and exits
        args.train_args = args.evaluate_args = rest
    except SystemExit as exc:  # --help, or a usage error argparse has already printed
        return int(exc.code or 0)
    try:
        return args.func(args)
    except WargameError as exc:  # CliError, RecordError, IllegalActionError, ScenarioError ...
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 1


if __name__ == "__main__":
    sys.exit(main())
