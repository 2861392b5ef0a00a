"""Export a training checkpoint as a shipped, weights-only ``pretrained`` policy.

    python -m training.export runs/berestechko/checkpoints/latest.zip --eval runs/berestechko/eval.json \\
        --command "wargames train berestechko ..." --out agents/pretrained

Reads the verified checkpoint (``training.checkpoints``), takes its actor as numpy matrices and writes
``<battle>.npz`` + ``<battle>.json`` (format: :mod:`agents.pretrained`). The trainer's evaluation
(``eval.json``: wins and games per opponent and side) goes into the metadata with Wilson 95%
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
    """``{opponent: {side: {wins, games}}}`` with the win rate and its Wilson 95% interval added."""
    out: dict[str, Any] = {}
    for opponent, sides in report.items():
        if not isinstance(sides, dict) or not all(isinstance(v, dict) and "wins" in v for v in sides.values()):
            continue  # the report's header (which checkpoint it describes) and other entries
        out[opponent] = {}
        for side, r in sides.items():
            lo, hi = wilson_interval(int(r["wins"]), int(r["games"]))
            out[opponent][side] = {"wins": int(r["wins"]), "games": int(r["games"]),
                                   "win_rate": round(r["wins"] / max(1, r["games"]), 4),
                                   "wilson95": [round(lo, 4), round(hi, 4)]}
    return out


def export(checkpoint: str | Path, out_dir: str | Path, evaluation: dict[str, Any] | None = None,
           command: str = "", note: str = "") -> tuple[Path, Path]:
    from training.checkpoints import load_checkpoint

    ckpt = load_checkpoint(checkpoint)
    m = ckpt.meta
    actor = MlpActor.from_state_dict(ckpt.policy_state, m["activation"])
    meta = {"env": m["env"], "obs_size": m["obs_size"], "obs_layout": m["obs_layout"], "num_actions": m["num_actions"],
            "hint": m.get("hint", ""),
            "timesteps": m["timesteps"], "train_seconds": round(float(m["train_seconds"]), 1),
            "train_args": m.get("args", {}), "checkpoint_sha256": hashlib.sha256(Path(checkpoint).read_bytes()).hexdigest(),
            "train_command": command, "evaluation": evaluation_with_intervals(evaluation or {}), "note": note}
    return pretrained.write(actor, meta, out_dir)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.export", description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint", help="a training checkpoint (checkpoints/latest.zip)")
    ap.add_argument("--out", default=str(pretrained.DEFAULT_DIR), help="folder for <battle>.npz and <battle>.json")
    ap.add_argument("--eval", default=None, help="the trainer's eval.json to include (wins per opponent and side)")
    ap.add_argument("--command", default="", help="the command that trained the checkpoint")
    ap.add_argument("--note", default="", help="a free note stored with the policy")
    args = ap.parse_args(argv)
    try:
        evaluation = json.loads(Path(args.eval).read_text(encoding="utf-8")) if args.eval else None
        paths = export(args.checkpoint, args.out, evaluation, args.command, args.note)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("wrote " + " and ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
