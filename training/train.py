"""Self-play PPO with action masking for any two-player battle of the suite (CleanRL-style file).

    python -m training.train berestechko --minutes 5 --out runs/x
    python -m training.train berestechko --minutes 5 --out runs/x --resume   # continue that run

What it does, top to bottom:

1. **Arguments**: :class:`TrainArgs`, one field per option with its docstring; ``--help`` prints
   them (the docstrings are read from this file).
2. **Environments**: ``n_envs`` copies of :class:`training.selfplay.SelfPlayEnv` in a
   ``DummyVecEnv``. One process on purpose: an env step costs ~0.1 ms (engine + opponent), less
   than shipping a 1 k-float observation and a mask through a pipe twice per step
   (``SubprocVecEnv`` calls ``action_masks`` as a second round trip), the two CPU cores of the
   reference machine are better spent on the policy's matrix products, and the opponent pool
   (snapshots and win statistics) is a single in-process object every env draws from.
3. **Model**: ``sb3_contrib.MaskablePPO`` with an MLP (separate actor and critic networks of
   ``net_arch``); one side-conditioned policy plays both sides (the learner side alternates per
   episode; see ``training.selfplay``).
4. **Warm start** (optional, fresh runs): behaviour cloning of the battle's scripted agent from
   ``imitation_games`` of its games against itself (the actor learns its moves, the critic the
   outcomes), so PPO starts from a sound player instead of a random one; skipped where the battle
   has no scripted agent. With ``hint="scripted"`` (:mod:`agents.hint`) the policy's input also
   carries a one-hot of the scripted agent's choice: cloning then reaches ~100% agreement in a few
   games (without the hint, 72-80%, and a policy that disagrees with the heuristic on one decision in
   five loses nearly every game to it), so PPO starts at the heuristic's strength and learns where to
   depart from it, at a lower learning rate so that it does not forget what the imitation taught.
5. **Loop**: ``model.learn`` with a callback that stops at the wall-clock budget (``minutes``)
   or the ``total_timesteps`` cap, shows a tqdm bar, adds a snapshot of the policy to the opponent
   pool every ``snapshot_every`` steps, logs win rates per side and per opponent to TensorBoard
   (``out/tb``), and writes ``out/checkpoints/latest.zip`` (+ ``latest.json``) every
   ``checkpoint_minutes`` and at the end, atomically (``training.checkpoints``).
6. **Evaluation**: ``eval_games`` games per side against ``random`` and ``scripted`` (when the
   battle has a scripted agent), the policy playing its most likely action; written to
   ``out/eval.json`` (headed by the checkpoint it describes: path, timesteps, hash) and printed
   with the checkpoint path and the throughput.

``--resume`` continues from ``out/checkpoints/latest.zip`` when it exists (policy, optimizer,
timesteps, opponent pool and its statistics; the network architecture, activation and ``hint``, which shape
the network and its input, are taken from the checkpoint, with a note where the flags differ), otherwise starts
afresh; ``minutes`` is the budget of this invocation and
``total_timesteps`` caps the cumulative count. An ``out`` that already holds a run (checkpoints/,
tb/, eval.json, evaluation/) is refused unless ``--resume`` or ``--overwrite`` (which deletes those
first) is given, so training never destroys earlier work unasked; a resumed run removes the old
evaluation, which described the checkpoint it replaces.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import math
import shutil
import sys
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


# =============================================================================== 1. arguments

@dataclass
class TrainArgs:
    battle: str = "berestechko"
    """battle to train on: short name (berestechko) or env name (berestechko_v0)"""
    minutes: float = 7.0
    """wall-clock budget of this run (imitation warm start + PPO; the evaluation comes after), in minutes
    (0 = no time limit; then total_timesteps is needed)"""
    total_timesteps: int | None = None
    """optional cap on the learner's cumulative environment steps (counted across resumes)"""
    n_envs: int = 16
    """parallel self-play games (default backend: a DummyVecEnv in one process; batched: the games stepped
    together in each call; rllib: shared by the env runners)"""
    n_steps: int = 128
    """steps per env per rollout; a rollout is n_envs * n_steps learner decisions"""
    batch_size: int = 512
    """minibatch size of the PPO update"""
    n_epochs: int = 4
    """passes over each rollout in the PPO update"""
    learning_rate: float = 1e-4
    """Adam learning rate of PPO (constant; low, so that PPO refines the imitated play instead of forgetting it)"""
    gamma: float = 0.99
    """discount factor (a Berestechko game is ~170 learner decisions; the shaped reward carries the long-range credit)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_range: float = 0.1
    """PPO clipping of the probability ratio"""
    ent_coef: float = 0.001
    """entropy bonus coefficient"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    net_arch: str = "128,128"
    """hidden layer sizes, comma-separated, of both the actor and the critic network"""
    activation: str = "tanh"
    """activation function of the hidden layers: tanh or relu"""
    shaped: bool = True
    """add a shaped reward: shaped_scale x the change of (own - enemy) victory points per step"""
    shaped_scale: float = 0.1
    """scale of the shaped reward (a destroyed unit is 2 VP = 0.2 at 0.1; the win is 1)"""
    truncation_reward: float = 0.0
    """reward to each seat of a game cut short (activation limit, --max-steps), on its last step: 0 keeps
    a cut game neutral; -1 makes it as costly as a loss, which teaches winning inside the limit"""
    snapshot_every: int = 50_000
    """learner steps between snapshots of the policy added to the opponent pool"""
    pool_size: int = 8
    """snapshots kept in the opponent pool (the oldest leave first); random and scripted always stay"""
    pfsp_power: float = 1.0
    """PFSP priority exponent: opponents are drawn with weight (1 - learner win rate) ** power"""
    pfsp_floor: float = 0.05
    """minimum PFSP weight, so that every opponent keeps being played"""
    baselines: str = "random,scripted"
    """baseline opponents in the pool (comma-separated agent specs; unavailable ones are skipped, but one must be left
    unless the batched trainer's learner plays itself)"""
    deterministic_snapshots: bool = False
    """snapshots play their most likely action (default: they sample from the masked policy)"""
    max_steps: int = 2000
    """decisions of both sides after which a game is truncated (a guard; not a loss)"""
    seed: int = 0
    """seed of the envs, the opponent draws, the policy initialisation and the evaluation"""
    out: str = ""
    """output folder (default runs/BATTLE, e.g. runs/kulikovo): tb/ (TensorBoard, progress.csv),
    checkpoints/latest.zip + latest.json, and the evaluation: eval.json (python -m training.train) or evaluation/
    and training.png (wargames train)"""
    device: str = "auto"
    """torch device: auto (cuda if available), cpu or cuda"""
    threads: int = 1
    """torch CPU threads (1 avoids contention with the env loop on small machines)"""
    resume: bool = False
    """continue the run in out from out/checkpoints/latest.zip if it exists (its old evaluation is removed)"""
    overwrite: bool = False
    """replace the run in out: its checkpoints, TensorBoard logs and evaluation are deleted first (without
    --resume or --overwrite, an out that already holds a run is refused)"""
    checkpoint_minutes: float = 2.0
    """minutes between periodic checkpoints (0: none; one is always written at the end)"""
    imitation_games: int = 100
    """warm start: games of the scripted agent against itself to clone before PPO (Berestechko, 100 games: ~35 s
    on one core, 100% move accuracy with the hint, 72-80% without; 0 = none; fresh runs only; skipped where the battle has no scripted agent). Collection stops
    early once the observations would take imitation_max_mb"""
    imitation_max_mb: int = 1500
    """memory cap of the imitation data in MB (a Kulikovo decision is a 140 kB observation)"""
    imitation_epochs: int = 8
    """passes over the imitation data (policy: cross-entropy on the scripted moves; critic: game outcomes)"""
    imitation_lr: float = 1e-3
    """Adam learning rate of the imitation warm start (PPO then uses learning_rate)"""
    imitation_batch_size: int = 512
    """minibatch size of the imitation warm start (its own, so that a large PPO batch does not starve the clone of
    gradient steps)"""
    hint: str = "scripted"
    """heuristic advice in the policy's input: "scripted" appends a one-hot of the scripted agent's choice to the
    observation (agents.hint: the network starts by copying it and learns where to depart from it); "ties" a
    multi-hot of all its tied-best moves, so that PPO also learns which of them to prefer; "scores"
    (--backend batched) every move's rating by the heuristic, which also enters the policy's logits as a
    prior (a residual policy that starts as the heuristic and explores among its near-best moves); "scores-floor"
    the same with every legal move rated at least agents.hint.FLOOR_GAP below the best, so that the policy also
    tries the moves the heuristic rates poorly or not at all; "" = none"""
    eval_games: int = 100
    """games per side against each baseline after training (0 = skip the evaluation)"""
    progress: bool = True
    """show a tqdm progress bar over the budget"""
    recipe: str = ""
    """a tuned set of these arguments (training/recipes/NAME.json, or a path to such a file, with the run that measured
    it); the flags given on the command line override it; "" = none"""
    backend: str = "default"
    """training engine: default (MaskablePPO on per-game envs in this process), batched (masked PPO on the batched
    compiled games of wargame_envs.vector, training.batched) or rllib (Ray RLlib, training.rllib_backend; needs
    pip install 'wargame-envs[rllib]')"""
    self_play: bool = True
    """--backend batched: the learner itself is in the pool (both seats of such a game train it)"""
    pfsp_sides: bool = False
    """--backend batched: draw the learner's side together with its opponent, by the PFSP weights of both sides (the
    side it does worse on gets more of the games), instead of alternating the sides game by game"""
    kl_coef: float = 0.0
    """--backend batched: weight of KL(scripted || policy), the policy's cross-entropy on the scripted agent's choice,
    which keeps PPO close to the heuristic it imitated (0 = off)"""
    kl_half_life: int = 1_000_000
    """--backend batched: learner steps over which the KL weight halves"""
    curriculum_epsilon: float = 0.0
    """--backend batched: a curriculum against the scripted baseline: at first it plays a uniformly random legal move
    instead of its own at this rate, which falls linearly to 0 over curriculum_steps learner steps, so that the side
    that loses to the heuristic starts with games it can win (0 = off)"""
    curriculum_steps: int = 5_000_000
    """--backend batched: learner steps (counted across resumes) over which the scripted baseline's rate of random
    moves falls to 0"""
    temperature: float = 1.0
    """--backend batched: the policy trained is softmax(logits / temperature); below 1 its samples stay closer to its
    greedy play, which is what evaluation and the shipped agents use (the argmax does not depend on it)"""
    precision: str = "fp32"
    """--backend batched: fp32, or bf16 to run the network's matrix products in bfloat16 (torch autocast; 2-3x faster
    on CPUs with AVX512-BF16 or AMX, and on GPUs); weights and the optimizer stay in float32"""
    num_env_runners: int = 2
    """--backend rllib: Ray EnvRunner processes sampling games (0 = sample in the trainer's process)"""
    address: str = ""
    """--backend rllib: Ray cluster to join (auto, or HOST:PORT of `ray start --head`); empty = a local Ray"""


def field_docs(cls) -> dict[str, str]:
    """The docstring under each field of a dataclass defined in this file, read from the source."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__).body
    docs = {}
    for node, nxt in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
            docs[node.target.id] = " ".join(str(nxt.value.value).split())
    return docs


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """One option per :class:`TrainArgs` field, its docstring as help (shared by ``python -m
    training.train`` and ``wargames train``)."""
    docs = {name: doc.replace("%", "%%") for name, doc in field_docs(TrainArgs).items()}  # argparse formats help with %
    types = {"str": str, "int": int, "float": float, "int | None": int}
    for f in dataclasses.fields(TrainArgs):
        if f.name == "battle":
            parser.add_argument("battle", nargs="?", default=f.default, help=docs[f.name])
        elif f.type == "bool":
            parser.add_argument(f"--{f.name.replace('_', '-')}", dest=f.name, default=f.default,
                                action=argparse.BooleanOptionalAction, help=docs[f.name])
        else:
            parser.add_argument(f"--{f.name.replace('_', '-')}", dest=f.name, type=types[f.type], default=f.default,
                                help=docs[f.name])
    return parser


def build_parser() -> argparse.ArgumentParser:
    return add_arguments(argparse.ArgumentParser(prog="python -m training.train", description=__doc__.split("\n\n")[0],
                                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter))


def parse_args(argv: list[str] | None = None) -> TrainArgs:
    parser = build_parser()
    return from_namespace(parse_with_recipe(parser, parser, argv))


RECIPES = Path(__file__).parent / "recipes"
NOT_IN_RECIPES = ("battle", "recipe", "out", "resume", "overwrite")  # what one run, not a recipe, decides


def load_recipe(spec: str, battle: str | None = None) -> dict[str, Any]:
    """The argument values of recipe ``spec``: ``training/recipes/<spec>.json``, or the JSON file at path ``spec``,
    holding ``{"battle": ..., "about": ..., "args": {field: value}}``. A :class:`~training.evaluate.UsageError`
    names what is wrong: a missing or malformed file, a recipe for another battle than ``battle``, an unknown
    field or a value of the wrong type."""
    from training.evaluate import UsageError
    from wargame_envs.registry import resolve

    path = Path(spec).expanduser() if spec.endswith(".json") or "/" in spec else RECIPES / f"{spec}.json"
    if not path.is_file():
        known = sorted(p.stem for p in RECIPES.glob("*.json"))
        raise UsageError(f"--recipe {spec}: no such file {path} (recipes here: {', '.join(known) or 'none'})")
    try:
        recipe = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"--recipe {spec}: {path} is not valid JSON ({exc})") from None
    if not isinstance(recipe, dict) or not isinstance(recipe.get("args"), dict):
        raise UsageError(f"--recipe {spec}: {path} must hold a JSON object with an 'args' object")
    try:
        wanted = resolve(battle) if battle else None
    except KeyError as exc:  # the battle on the command line
        raise UsageError(exc.args[0]) from None
    if recipe.get("battle") is not None:
        try:
            recipe_battle = resolve(str(recipe["battle"]))
        except KeyError as exc:
            raise UsageError(f"--recipe {spec}: field 'battle' = {recipe['battle']!r} in {path}: "
                             f"{exc.args[0]}") from None
        if wanted and recipe_battle != wanted:
            raise UsageError(f"--recipe {spec} is for {recipe['battle']}, not {battle}")
    fields = {f.name: f.type for f in dataclasses.fields(TrainArgs) if f.name not in NOT_IN_RECIPES}
    kinds = {"str": (str,), "int": (int,), "float": (int, float), "bool": (bool,), "int | None": (int, type(None))}
    for name, value in recipe["args"].items():
        if name not in fields:
            raise UsageError(f"--recipe {spec}: unknown argument {name!r} in {path} (a recipe may set: "
                             f"{', '.join(sorted(fields))})")
        if not isinstance(value, kinds[fields[name]]) or (isinstance(value, bool) and fields[name] != "bool"):
            raise UsageError(f"--recipe {spec}: {name} = {value!r} in {path}: expected {fields[name]}")
    return dict(recipe["args"])


def parse_with_recipe(parser: argparse.ArgumentParser, train_parser: argparse.ArgumentParser, argv):
    """Parse ``argv``; with ``--recipe``, parse again with the recipe's values as ``train_parser``'s defaults, so
    the flags given explicitly still win."""
    ns = parser.parse_args(argv)
    if getattr(ns, "recipe", ""):
        train_parser.set_defaults(**load_recipe(ns.recipe, ns.battle))
        ns = parser.parse_args(argv)
    return ns


def from_namespace(ns: argparse.Namespace) -> TrainArgs:
    """The :class:`TrainArgs` fields of a parsed namespace (which may hold other options too)."""
    return TrainArgs(**{f.name: getattr(ns, f.name) for f in dataclasses.fields(TrainArgs)})


BACKENDS = ("default", "batched", "rllib")
# (field, smallest allowed value) of the numeric arguments
MINIMUMS = (("minutes", 0), ("total_timesteps", 1), ("n_envs", 1), ("n_steps", 1), ("batch_size", 1), ("n_epochs", 1),
            ("snapshot_every", 1), ("pool_size", 0), ("max_steps", 1), ("seed", 0), ("threads", 1),
            ("checkpoint_minutes", 0), ("imitation_games", 0), ("imitation_epochs", 0), ("eval_games", 0),
            ("imitation_lr", 0), ("num_env_runners", 0), ("imitation_max_mb", 1), ("imitation_batch_size", 1), ("kl_coef", 0), ("kl_half_life", 1),
            ("temperature", 1e-3), ("ent_coef", 0), ("vf_coef", 0), ("shaped_scale", 0), ("pfsp_power", 0),
            ("pfsp_floor", 0), ("curriculum_epsilon", 0), ("curriculum_steps", 1))
# (field, largest allowed value) of the arguments that must be above 0
ABOVE_ZERO = (("learning_rate", math.inf), ("clip_range", math.inf), ("gamma", 1), ("gae_lambda", 1))


def check_args(args: TrainArgs) -> TrainArgs:
    """``args`` with the battle resolved, or a :class:`~training.evaluate.UsageError` naming the bad one."""
    from training.evaluate import UsageError
    from wargame_envs.registry import resolve

    try:
        battle = resolve(args.battle)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None
    for f in dataclasses.fields(TrainArgs):
        if f.type == "float" and not math.isfinite(getattr(args, f.name)):
            raise UsageError(f"--{f.name.replace('_', '-')} must be a finite number, got {getattr(args, f.name)}")
    for name, low in MINIMUMS:
        value = getattr(args, name)
        if value is not None and not value >= low:  # also refuses nan
            raise UsageError(f"--{name.replace('_', '-')} must be at least {low}, got {value}")
    for name, high in ABOVE_ZERO:
        value = getattr(args, name)
        if not 0 < value <= high:
            bound = "" if high == math.inf else f" and at most {high}"
            raise UsageError(f"--{name.replace('_', '-')} must be above 0{bound}, got {value}")
    if args.minutes <= 0 and args.total_timesteps is None:
        raise UsageError("give a time budget (--minutes > 0) or --total-timesteps")
    from agents.hint import HINTS

    if args.hint not in HINTS:
        raise UsageError(f"--hint must be one of {list(HINTS)}, got {args.hint!r}")
    from agents.hint import has_prior

    if args.hint == "ties" or has_prior(args.hint):
        from agents.hint import make_observer

        try:
            make_observer(args.hint, battle)
        except ValueError as exc:
            raise UsageError(f"--hint {args.hint}: {exc}") from None
    if has_prior(args.hint) and args.backend != "batched":
        raise UsageError(f"--hint {args.hint} adds the heuristic's ratings to the policy's logits, which only the batched "
                         "trainer does: use --backend batched")
    try:
        hidden_sizes(args.net_arch)
    except ValueError as exc:
        raise UsageError(f"--net-arch: {exc}") from None
    for name, choices in (("activation", ("tanh", "relu")), ("device", ("auto", "cpu", "cuda")),
                          ("precision", ("fp32", "bf16"))):
        if getattr(args, name) not in choices:
            raise UsageError(f"--{name} must be one of {', '.join(choices)}, got {getattr(args, name)!r}")
    if args.resume and args.overwrite:
        raise UsageError("give --resume (continue the run in --out) or --overwrite (replace it), not both")
    if args.backend not in BACKENDS:
        raise UsageError(f"--backend must be one of {', '.join(BACKENDS)}, got {args.backend!r}")
    if args.backend == "rllib":
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            raise UsageError("--backend rllib needs Ray RLlib: pip install 'wargame-envs[rllib]'")
    check_baselines(args, battle)
    check_curriculum(args)
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise UsageError("--device cuda, but torch sees no CUDA device (use --device auto or cpu)")
    out = args.out or f"runs/{battle.rsplit('_v', 1)[0]}"
    return dataclasses.replace(args, battle=battle, out=str(Path(out).expanduser()))


def check_curriculum(args: TrainArgs) -> None:
    """A :class:`~training.evaluate.UsageError` for a curriculum (``--curriculum-epsilon``) that cannot take effect."""
    from training.evaluate import UsageError

    if args.curriculum_epsilon > 1:
        raise UsageError(f"--curriculum-epsilon is a rate of random moves: at most 1, got {args.curriculum_epsilon}")
    if args.curriculum_epsilon > 0 and args.backend != "batched":
        raise UsageError("--curriculum-epsilon weakens the scripted opponent of the batched trainer: "
                         "use --backend batched")
    if args.curriculum_epsilon > 0 and "scripted" not in baseline_specs(args):
        raise UsageError("--curriculum-epsilon weakens the scripted baseline, which --baselines leaves out: "
                         f"add scripted to --baselines (got {args.baselines!r})")


def baseline_specs(args: TrainArgs) -> tuple[str, ...]:
    """The agent specs of ``--baselines``."""
    return tuple(s.strip() for s in args.baselines.split(",") if s.strip())


def check_baselines(args: TrainArgs, battle: str) -> None:
    """A :class:`~training.evaluate.UsageError` for a ``--baselines`` spec that is malformed or cannot be built,
    or for baselines that leave the learner no opponent (one that is unavailable for ``battle``, such as
    ``scripted`` where the battle has none, is left out of the pool with a note)."""
    from agents.registry import AgentUnavailableError, check_unattended, make_agent
    from training.evaluate import UsageError

    available, missing = [], []
    for spec in baseline_specs(args):
        try:
            check_unattended(spec, "--baselines")  # opponents play inside the training loop, unattended
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        try:
            make_agent(spec, battle, 0)
        except AgentUnavailableError as exc:
            missing.append(str(exc))
            continue
        except ValueError as exc:  # a malformed spec, a missing or corrupt checkpoint
            raise UsageError(f"--baselines {spec}: {exc}") from None
        available.append(spec)
    if not available and not (args.backend == "batched" and args.self_play):
        why = f" ({'; '.join(missing)})" if missing else ""
        raise UsageError(f"--baselines {args.baselines!r}: no opponent available for {battle}{why}")


# what a run leaves in its out folder; --overwrite deletes exactly these
RUN_ENTRIES = ("checkpoints", "tb", "eval.json", "evaluation")
# what describes a checkpoint and goes stale once training changes it
EVALUATION_ENTRIES = ("eval.json", "evaluation")


def prepare_out(args: TrainArgs) -> Path:
    """The run folder, ready for this run (issue 12 item 8: training never destroys earlier work
    unasked). A folder that already holds a run is refused unless ``--resume`` (continue it; its old
    evaluation, which describes the checkpoint about to change, is removed) or ``--overwrite`` (its
    run entries are deleted first). Other files in the folder are never touched."""
    from training.evaluate import UsageError, ensure_dir

    out = ensure_dir(args.out)
    found = [name for name in RUN_ENTRIES if (out / name).exists()]
    if found and not (args.resume or args.overwrite):
        raise UsageError(f"{out} already holds a training run ({', '.join(found)}); pass --resume to continue it "
                         f"or --overwrite to replace it, or choose another --out")
    stale = found if args.overwrite else [name for name in found if name in EVALUATION_ENTRIES]
    for name in stale:
        path = out / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    if stale:
        print(f"note: removed {', '.join(stale)} from {out} "
              f"({'--overwrite' if args.overwrite else 'they describe the checkpoint this run replaces'})",
              file=sys.stderr)
    return out


def resume_settings(args: TrainArgs) -> TrainArgs:
    """``args`` for a ``--resume`` of the checkpoint in ``--out``: what shapes the network is the checkpoint's
    (hidden sizes, activation, and the hint, which sets the policy's input), each one that differs from the flags
    noted on stderr; the settings are checked again with it (``args`` as they are without a checkpoint). A
    checkpoint this run cannot continue (another battle's, corrupt) is a :class:`~training.evaluate.UsageError`,
    raised before :func:`prepare_out` touches the folder."""
    from training.checkpoints import load_checkpoint
    from training.evaluate import UsageError

    ckpt = checkpoint_path(args)
    if not (args.resume and ckpt.exists()):
        return args
    try:
        meta = load_checkpoint(ckpt, battle=args.battle).meta   # the whole file checked: hash, battle, tensors
    except ValueError as exc:
        raise UsageError(f"--resume: {exc}; nothing in {args.out} was changed") from None
    theirs = {"net_arch": ",".join(map(str, meta["net_arch"]["pi"])), "activation": meta["activation"],
              "hint": meta.get("hint", "")}
    mine = {"net_arch": ",".join(map(str, hidden_sizes(args.net_arch))), "activation": args.activation,
            "hint": args.hint}
    changed = {key: value for key, value in theirs.items() if mine[key] != value}
    if not changed:
        return args
    flags = ", ".join(f"--{key.replace('_', '-')} {value!r}" for key, value in changed.items())
    print(f"note: resuming {ckpt} with the settings it was trained with: {flags}", file=sys.stderr)
    try:
        return check_args(dataclasses.replace(args, **changed))
    except UsageError as exc:
        raise UsageError(f"--resume {ckpt}: it was trained with {flags}, which this run cannot continue: "
                         f"{exc}") from None


def checkpoint_interval(args: TrainArgs) -> float:
    """Seconds between periodic checkpoints: ``--checkpoint-minutes``, none at 0 (infinite)."""
    return args.checkpoint_minutes * 60 if args.checkpoint_minutes > 0 else math.inf


def checkpoint_about(path: Path) -> dict[str, str]:
    """What identifies a checkpoint in the reports written beside it: path, timesteps and hash."""
    from training.checkpoints import read_meta

    meta = read_meta(path)
    return {"checkpoint": str(path), "timesteps": str(meta["timesteps"]), "zip_sha256": meta["zip_sha256"]}


def hidden_sizes(net_arch: str) -> list[int]:
    try:
        sizes = [int(x) for x in net_arch.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"net_arch must be comma-separated integers, got {net_arch!r}") from None
    if not sizes or min(sizes) <= 0:
        raise ValueError(f"net_arch must name at least one positive layer size, got {net_arch!r}")
    return sizes


# =============================================================================== 2. environments

def make_pool(args: TrainArgs):
    from training.selfplay import OpponentPool

    from agents.hint import make_observer

    observers = (lambda seed: make_observer(args.hint, args.battle, seed)) if args.hint else None
    pool = OpponentPool(max_snapshots=args.pool_size, power=args.pfsp_power, floor=args.pfsp_floor,
                        deterministic_snapshots=args.deterministic_snapshots, observer_factory=observers)
    missing = pool.add_baselines(args.battle, baseline_specs(args), seed=args.seed)
    return pool, missing


def make_vec_env(args: TrainArgs, pool):
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from training.selfplay import SelfPlayEnv

    def factory(i: int):
        return lambda: SelfPlayEnv(args.battle, pool, shaped=args.shaped, shaped_scale=args.shaped_scale,
                                   truncation_reward=args.truncation_reward, first_side=i % 2, max_steps=args.max_steps, hint=args.hint,
                                   hint_seed=args.seed * 1000 + i)

    venv = VecMonitor(DummyVecEnv([factory(i) for i in range(args.n_envs)]))
    venv.seed(args.seed)
    return venv


# =============================================================================== 3. model

def resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("--device cuda, but torch sees no CUDA device")
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device must be auto, cpu or cuda, got {device!r}")
    return device


def make_model(args: TrainArgs, venv, device: str):
    from sb3_contrib import MaskablePPO

    from training.checkpoints import policy_kwargs

    sizes = hidden_sizes(args.net_arch)
    return MaskablePPO(
        "MlpPolicy", venv, learning_rate=args.learning_rate, n_steps=args.n_steps, batch_size=args.batch_size,
        n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_range,
        ent_coef=args.ent_coef, vf_coef=args.vf_coef, seed=args.seed, device=device, verbose=0,
        policy_kwargs=policy_kwargs({"pi": sizes, "vf": sizes}, args.activation),
    )


def actor_of(model):
    """The model's current actor as a frozen numpy :class:`~agents.mlp.MlpActor`."""
    from agents.mlp import MlpActor

    return MlpActor.from_state_dict(model.policy.state_dict(), activation_name(model))


def activation_name(model) -> str:
    import torch

    fn = model.policy.activation_fn
    return {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}[fn]


# =============================================================================== 3b. imitation warm start

def scripted_decisions(args: TrainArgs):
    """Observations, masks, actions and final outcomes (of the player deciding) of the scripted
    agent playing both sides, ``imitation_games`` games; decisions with one legal option are left out."""
    from training.selfplay import make_baseline_agent
    from wargame_envs.core.dice import Dice
    from wargame_envs.registry import make_engine

    from agents.hint import input_size, make_observer

    engine = make_engine(args.battle)
    teacher = make_baseline_agent("scripted", args.battle, args.seed)
    observer = make_observer(args.hint, args.battle, args.seed + 1)
    obs, masks, actions, outcomes = [], [], [], []
    width = input_size(engine.obs_layout.size, engine.num_actions, args.hint)
    max_decisions = max(1, args.imitation_max_mb * 2**20 // (4 * width))
    for g in range(args.imitation_games):
        if len(actions) >= max_decisions:
            break
        teacher.reset(args.seed * 100_003 + g)
        observer.reset(args.seed * 100_019 + g)
        dice = Dice(args.seed * 1_000_003 + 7 * g + 1)
        s, players = engine.new_state(None, dice), []
        for _ in range(args.max_steps):
            if engine.is_terminal(s) or engine.is_truncated(s):
                break
            p, mask = engine.current_player(s), engine.legal_mask(s)
            x = observer.observe(engine, s, p, mask)
            # With a hint the teacher's move is the hint itself: where the heuristic has tied-best moves, a
            # second copy of it would break the tie otherwise and teach the network to split between them
            # (with the hint "ties", the first of them; the loss then takes the whole set).
            a = int(np.argmax(x[width - engine.num_actions:])) if args.hint else int(teacher.act(engine, s, p, mask))
            if mask.sum() > 1:
                obs.append(x)
                masks.append(mask)
                actions.append(a)
                players.append(p)
            engine.apply(s, a, dice)
        ret = engine.returns(s)
        outcomes += [float(ret[p]) for p in players]
    return (np.asarray(obs, np.float32), np.asarray(masks, bool), np.asarray(actions, np.int64),
            np.asarray(outcomes, np.float32))


def imitation_warm_start(model, args: TrainArgs) -> dict[str, float]:
    """Behaviour cloning of the scripted agent (AlphaStar-style supervised start): the actor learns
    the scripted moves, the critic the outcomes, so PPO starts from a sound player instead of a
    random one. Returns the final loss and the actor's accuracy on the data."""
    import torch

    from agents.hint import has_prior, prior_logits

    obs, masks, actions, outcomes = scripted_decisions(args)
    policy = model.policy
    opt = torch.optim.Adam(policy.parameters(), lr=args.imitation_lr)
    rng = np.random.default_rng(args.seed)
    to = lambda x: torch.as_tensor(x, device=model.device)  # noqa: E731
    policy.set_training_mode(True)
    loss = torch.tensor(float("nan"))
    # hint "ties": the target is the set of tied-best moves the input marks (their total probability)
    # (with "scores", the tied-best moves rate 1: the set the accuracy is measured against)
    targets = obs[:, -masks.shape[1]:] > (0.5 if args.hint == "ties" else 1 - 1e-6) \
        if args.hint == "ties" or has_prior(args.hint) else None
    # hint "scores": the prior in the logits already plays the heuristic (agents.hint); only the critic learns here
    actor_weight = 0.0 if has_prior(args.hint) else 1.0
    for _ in range(args.imitation_epochs):
        for idx in np.array_split(rng.permutation(len(actions)), max(1, len(actions) // args.imitation_batch_size)):
            values, log_prob, _ = policy.evaluate_actions(to(obs[idx]), to(actions[idx]), action_masks=to(masks[idx]))
            if targets is not None:
                logits = policy.get_distribution(to(obs[idx]), action_masks=masks[idx]).distribution.logits
                log_prob = torch.logsumexp(logits.masked_fill(~to(targets[idx]), -torch.inf), dim=-1)
            loss = -actor_weight * log_prob.mean() + args.vf_coef * torch.nn.functional.mse_loss(values.flatten(),
                                                                                                to(outcomes[idx]))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
    policy.set_training_mode(False)
    with torch.no_grad():
        logits = policy.get_distribution(to(obs)).distribution.logits
        if has_prior(args.hint):
            logits = logits + prior_logits(to(obs), masks.shape[1])
        mode = logits.masked_fill(~to(masks), -torch.inf).argmax(dim=-1).cpu().numpy()
        accuracy = float((targets[np.arange(len(mode)), mode] if targets is not None else mode == actions).mean())
    return {"decisions": float(len(actions)), "loss": float(loss.detach()), "accuracy": accuracy}


# =============================================================================== 4. checkpoints

def checkpoint_path(args: TrainArgs) -> Path:
    return Path(args.out) / "checkpoints" / "latest.zip"


def save(model, pool, args: TrainArgs, train_seconds: float) -> Path:
    from training.checkpoints import layout_digest, save_checkpoint
    from wargame_envs.registry import resolve

    engine = model.get_env().get_attr("engine", [0])[0]
    sizes = hidden_sizes(args.net_arch)
    meta = {
        "battle": args.battle.rsplit("_v", 1)[0], "env": resolve(args.battle), "obs_size": engine.obs_layout.size,
        "obs_layout": layout_digest(engine), "num_actions": engine.num_actions, "net_arch": {"pi": sizes, "vf": sizes}, "activation": args.activation,
        "hint": args.hint, "timesteps": int(model.num_timesteps), "n_updates": int(model._n_updates),
        "train_seconds": float(train_seconds), "args": dataclasses.asdict(args), "pool": pool.stats(),
    }
    return save_checkpoint(checkpoint_path(args), meta, model.policy.state_dict(),
                           model.policy.optimizer.state_dict(), pool.snapshot_arrays())


def restore(model, pool, path: Path, engine) -> dict[str, Any]:
    """Loads a verified checkpoint into ``model`` and ``pool``; returns its metadata."""
    from training.checkpoints import CheckpointError, load_checkpoint

    ckpt = load_checkpoint(path, engine=engine, device=str(model.device))
    try:
        model.policy.load_state_dict(ckpt.policy_state, strict=True)
        model.policy.optimizer.load_state_dict(ckpt.optimizer_state)
    except (RuntimeError, ValueError, KeyError) as e:
        raise CheckpointError(f"{path}: does not fit the model ({str(e).splitlines()[0]})") from None
    model.num_timesteps = int(ckpt.meta["timesteps"])
    model._n_updates = int(ckpt.meta.get("n_updates", 0))
    try:
        pool.restore(ckpt.meta["pool"], ckpt.pool_arrays, ckpt.meta["activation"], seed=model.num_timesteps)
    except (KeyError, TypeError, ValueError) as e:
        raise CheckpointError(f"{path}: the opponent pool cannot be restored ({type(e).__name__}: {e})") from None
    return ckpt.meta


# =============================================================================== 5. the training loop

def make_callback(args: TrainArgs, pool, deadline: float, cap: int | None, on_checkpoint):
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """Budget, progress bar, pool snapshots, win-rate logging and periodic checkpoints."""

        def _on_training_start(self) -> None:
            self.t0 = time.time()
            self.start_steps = self.num_timesteps
            self.last_snapshot = self.num_timesteps
            self.last_checkpoint = time.time()
            self.results = {0: deque(maxlen=200), 1: deque(maxlen=200)}
            self.by_opponent: dict[str, deque] = {}
            self.bar = None
            if args.progress:
                from tqdm import tqdm

                self.bar = tqdm(total=1000, bar_format="{l_bar}{bar}| {elapsed}<{remaining} {postfix}", file=sys.stderr)
                self.last_bar = 0.0

        def fraction_done(self) -> float:
            f_time = (time.time() - self.t0) / max(deadline - self.t0, 1e-9) if np.isfinite(deadline) else 0.0
            f_steps = (self.num_timesteps - self.start_steps) / max(cap - self.start_steps, 1) if cap else 0.0
            return min(1.0, max(f_time, f_steps))

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                if "outcome" in info:
                    self.results[info["learner_side"]].append(info["outcome"])
                    self.by_opponent.setdefault(info["opponent"], deque(maxlen=200)).append(info["outcome"])
            if self.num_timesteps - self.last_snapshot >= args.snapshot_every:
                pool.add_snapshot(actor_of(self.model), self.num_timesteps, seed=args.seed + self.num_timesteps)
                self.last_snapshot = self.num_timesteps
            if time.time() - self.last_checkpoint >= checkpoint_interval(args):
                on_checkpoint()
                self.last_checkpoint = time.time()
            if self.bar is not None and time.time() - self.last_bar >= 1.0:
                self.update_bar()
            return time.time() < deadline and (cap is None or self.num_timesteps < cap)

        def update_bar(self) -> None:
            self.last_bar = time.time()
            self.bar.n = int(1000 * self.fraction_done())
            rate = (self.num_timesteps - self.start_steps) / max(time.time() - self.t0, 1e-9)
            wins = [np.mean(self.results[s]) if self.results[s] else float("nan") for s in (0, 1)]
            self.bar.set_postfix_str(f"steps {self.num_timesteps} ({rate:.0f}/s) win {wins[0]:.2f}/{wins[1]:.2f} "
                                     f"pool {len(pool)}", refresh=True)

        def _on_rollout_end(self) -> None:
            for side in (0, 1):
                if self.results[side]:
                    self.logger.record(f"selfplay/win_rate_side{side}", float(np.mean(self.results[side])))
            for name, res in self.by_opponent.items():
                if name in pool.entries and not name.startswith("snapshot"):
                    self.logger.record(f"selfplay/win_rate_vs_{name}", float(np.mean(res)))
            for name, st in pool.summary().items():
                if not name.startswith("snapshot"):
                    self.logger.record(f"pool/weight_{name}", (st["weight_0"] + st["weight_1"]) / 2)
            self.logger.record("pool/size", len(pool))

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.update_bar()
                self.bar.close()

    return SelfPlayCallback()


# =============================================================================== 6. evaluation

def evaluate(actor, args: TrainArgs) -> dict[str, dict[str, Any]]:
    """Win counts of the policy (most likely action) against each available baseline, per side."""
    from agents.hint import make_observer
    from training.selfplay import SnapshotAgent, make_baseline_agent, play_games
    from wargame_envs.registry import make_engine

    engine = make_engine(args.battle)
    me = SnapshotAgent(actor, "policy", deterministic=True, observer=make_observer(args.hint, args.battle, args.seed + 2))
    results: dict[str, dict[str, Any]] = {}
    for spec in ("random", "scripted"):
        try:
            opponent = make_baseline_agent(spec, args.battle, args.seed)
        except LookupError as e:
            results[spec] = {"unavailable": str(e)}
            continue
        per_side = {}
        for side in (0, 1):
            seats = [opponent, opponent]
            seats[side] = me
            outcome = play_games(engine, seats, args.eval_games, seed=args.seed * 1000 + side, max_steps=args.max_steps)
            per_side[engine.agents[side]] = {"wins": int(outcome[side]), "games": args.eval_games,
                                             "win_rate": outcome[side] / args.eval_games}
        results[spec] = per_side
    return results


# =============================================================================== main

@dataclass
class TrainResult:
    checkpoint: Path
    timesteps: int
    steps_this_run: int
    seconds: float  # PPO wall-clock time of this run
    steps_per_second: float  # learner env steps per PPO wall-clock second (rollouts and updates)
    evaluation: dict[str, Any]
    missing_baselines: list[str]


def train(args: TrainArgs) -> TrainResult:
    args = check_args(args)
    if args.backend != "default":  # training.rllib_backend builds on this module, not the other way round
        from training.evaluate import UsageError

        raise UsageError(f"--backend {args.backend} runs from `wargames train` or `python -m training.rllib_backend`")
    args = resume_settings(args)   # before prepare_out: a run that cannot resume changes nothing
    out = prepare_out(args)
    import torch
    from stable_baselines3.common.logger import configure

    from training.curves import set_log_aside

    torch.set_num_threads(args.threads)
    device = resolve_device(args.device)

    pool, missing = make_pool(args)
    for m in missing:
        print(f"note: baseline opponent left out of the pool: {m}", file=sys.stderr)
    ckpt = checkpoint_path(args)
    prior_seconds = 0.0
    venv = make_vec_env(args, pool)
    model = make_model(args, venv, device)
    if args.resume and ckpt.exists():
        meta = restore(model, pool, ckpt, venv.get_attr("engine", [0])[0])
        prior_seconds = float(meta.get("train_seconds", 0.0))
        model.set_random_seed(args.seed + model.num_timesteps)  # fresh games and samples, not a replay
        print(f"resumed from {ckpt} at {model.num_timesteps} timesteps", file=sys.stderr)
    elif args.resume:
        print(f"note: --resume but no {ckpt}; starting afresh", file=sys.stderr)
    t0 = time.time()  # the budget covers the warm start and PPO (not the evaluation)
    deadline = t0 + args.minutes * 60 if args.minutes > 0 else float("inf")
    if model.num_timesteps == 0 and args.imitation_games > 0:
        if "scripted" in pool.entries:
            t = time.time()
            bc = imitation_warm_start(model, args)
            print(f"imitation warm start: {bc['decisions']:.0f} scripted decisions, actor accuracy "
                  f"{bc['accuracy']:.2f}, {time.time() - t:.0f} s", file=sys.stderr)
        else:
            print("note: no scripted agent: imitation warm start skipped", file=sys.stderr)
    set_log_aside(out / "tb")   # a resumed run's log goes on from the old one (training.curves reads both)
    model.set_logger(configure(str(out / "tb"), ["tensorboard", "csv"]))

    start_steps, t_learn = model.num_timesteps, time.time()
    cap = args.total_timesteps
    budget = (cap - start_steps) if cap is not None else 10**12
    save_now = lambda: save(model, pool, args, prior_seconds + time.time() - t0)  # noqa: E731
    if budget > 0:
        try:
            model.learn(total_timesteps=budget, reset_num_timesteps=False,
                        callback=make_callback(args, pool, deadline, cap, save_now))
        except KeyboardInterrupt:
            print("\ninterrupted: saving a checkpoint", file=sys.stderr)
    seconds = time.time() - t_learn
    path = save_now()
    steps = model.num_timesteps - start_steps
    venv.close()

    evaluation = evaluate(actor_of(model), args) if args.eval_games > 0 else {}
    if evaluation:  # beside the checkpoint it describes
        (out / "eval.json").write_text(json.dumps({"about": checkpoint_about(path), **evaluation}, indent=1))
    return TrainResult(path, int(model.num_timesteps), int(steps), seconds, steps / max(seconds, 1e-9), evaluation,
                       missing)


def main(argv: list[str] | None = None) -> TrainResult:
    result = train(parse_args(argv))
    print_result(result)
    return result


def print_result(result: TrainResult) -> None:
    print(f"checkpoint: {result.checkpoint}")
    print(f"timesteps: {result.timesteps} ({result.steps_this_run} this run in {result.seconds:.0f} s, "
          f"{result.steps_per_second:.0f} env steps/s)")
    for spec, per_side in result.evaluation.items():
        if "unavailable" in per_side:
            print(f"vs {spec}: not evaluated ({per_side['unavailable']})")
        else:
            print(f"vs {spec}: " + ", ".join(f"as {side} {r['wins']}/{r['games']}" for side, r in per_side.items()))


if __name__ == "__main__":
    from wargame_envs.core.errors import WargameError

    try:
        main()
    except WargameError as exc:  # bad arguments, a run already in --out, a bad checkpoint
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
