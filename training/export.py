"""Export a training checkpoint as a shipped, weights-only ``pretrained`` policy.

    python -m training.export runs/berestechko/checkpoints/latest.zip --eval runs/berestechko/evaluation/result.json \\
        --command "wargames train berestechko ..." --out agents/pretrained --overwrite

Reads the verified checkpoint (``training.checkpoints``), takes its actor as numpy matrices and writes
``<battle>.npz`` + ``<battle>.json`` (format: :mod:`agents.pretrained`). The trainer's evaluation
(``eval.json``: wins and games per opponent and side, or a tournament's ``result.json``, as ``wargames train``
writes in ``OUT/evaluation``) goes into the metadata with Wilson 95%
intervals, beside the training command and the checkpoint's SHA-256, so the file says what it is and
how to reproduce it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from agents import pretrained
from agents.mlp import MlpActor
from training.stats import wilson_interval


def evaluation_with_intervals(report: dict[str, Any]) -> dict[str, Any]:
    """``{opponent: {side: {wins, games}}}`` with the win rate and its Wilson 95% interval added. ``report`` is the
    trainer's ``eval.json`` in that form, or the ``result.json`` of a tournament (``wargames evaluate``, or
    ``wargames train``'s ``OUT/evaluation``), whose first agent is taken to be the exported policy. A report
    from which no opponent can be read, or a malformed entry, is a ``ValueError`` naming it."""
    if not isinstance(report, dict):
        raise ValueError(f"--eval: expected a JSON object (eval.json or a tournament's result.json), got "
                         f"{type(report).__name__}")
    if "games" in report and "agents" in report:
        report = tournament_head_to_head(report)
    out: dict[str, Any] = {}
    for opponent, sides in report.items():
        if not isinstance(sides, dict) or not sides or not all(isinstance(v, dict) and "wins" in v
                                                               for v in sides.values()):
            continue  # the report's header (which checkpoint it describes) and other entries
        out[opponent] = {}
        for side, r in sides.items():
            try:
                wins, games = int(r["wins"]), int(r["games"])
            except (KeyError, TypeError, ValueError):
                raise ValueError(f"--eval: {opponent}/{side} needs integer 'wins' and 'games', got {r!r}") from None
            if not 0 <= wins <= games:
                raise ValueError(f"--eval: {opponent}/{side}: {wins} wins of {games} games")
            lo, hi = wilson_interval(wins, games)
            out[opponent][side] = {"wins": wins, "games": games, "win_rate": round(wins / max(1, games), 4),
                                   "wilson95": [round(lo, 4), round(hi, 4)]}
    if not out:
        raise ValueError("--eval: no opponent's wins and games found in it (want eval.json's {opponent: {side: "
                         "{wins, games}}} or a tournament's result.json)")
    return out


def tournament_head_to_head(result: dict[str, Any]) -> dict[str, Any]:
    """A tournament ``result.json`` as ``{opponent: {side: {wins, games}}}`` for its first agent."""
    try:
        agents, sides = list(result["agents"]), list(result["side_names"])
        me = 0
        table: dict[str, Any] = {}
        for game in result["games"]:
            seats = (int(game["row"]), int(game["col"]))
            if me not in seats:
                continue
            side = seats.index(me)
            row = table.setdefault(agents[seats[1 - side]], {}).setdefault(sides[side], {"wins": 0, "games": 0})
            row["games"] += 1
            row["wins"] += game["winner"] == side
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"--eval: not a readable tournament result.json ({exc!r})") from None
    return table


def export(checkpoint: str | Path, out_dir: str | Path, evaluation: dict[str, Any] | None = None,
           command: str = "", note: str = "", overwrite: bool = False) -> tuple[Path, Path]:
    """Writes the policy of ``checkpoint`` into ``out_dir``; a policy of its battle already there is a
    ``FileExistsError`` unless ``overwrite`` (the shipped ones are replaced only when asked)."""
    from training.checkpoints import load_checkpoint

    ckpt = load_checkpoint(checkpoint)
    m = ckpt.meta
    existing = [p for p in pretrained.files_of(m["env"], out_dir) if p.exists()]
    if existing and not overwrite:
        raise FileExistsError(f"{', '.join(map(str, existing))} already exist(s); pass --overwrite to replace the "
                              f"policy, or choose another --out")
    actor = MlpActor.from_state_dict(ckpt.policy_state, m["activation"])
    meta = {"env": m["env"], "obs_size": m["obs_size"], "obs_layout": m["obs_layout"], "num_actions": m["num_actions"],
            "hint": m.get("hint", ""),
            "timesteps": m["timesteps"], "train_seconds": round(float(m["train_seconds"]), 1),
            "train_args": m.get("args", {}), "checkpoint_sha256": hashlib.sha256(Path(checkpoint).read_bytes()).hexdigest(),
            "train_command": command, "evaluation": evaluation_with_intervals(evaluation) if evaluation else {},
            "note": note}
    return pretrained.write(actor, meta, out_dir)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.export", description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint", help="a training checkpoint (checkpoints/latest.zip)")
    ap.add_argument("--out", default=str(pretrained.DEFAULT_DIR),
                    help="folder for <battle>.npz and <battle>.json (default: the shipped policies' folder)")
    ap.add_argument("--overwrite", action="store_true", help="replace a policy already in --out (refused without it)")
    ap.add_argument("--eval", default=None, help="the evaluation to include: the trainer's eval.json (wins per "
                                                 "opponent and side) or a tournament's result.json")
    ap.add_argument("--command", default="", help="the command that trained the checkpoint")
    ap.add_argument("--note", default="", help="a free note stored with the policy")
    args = ap.parse_args(argv)
    try:
        evaluation = json.loads(Path(args.eval).read_text(encoding="utf-8")) if args.eval else None
        if args.eval:
            evaluation_with_intervals(evaluation)   # an --eval that says nothing is refused, not exported empty
        paths = export(args.checkpoint, args.out, evaluation, args.command, args.note, overwrite=args.overwrite)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("wrote " + " and ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
