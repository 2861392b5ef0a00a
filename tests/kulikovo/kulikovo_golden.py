"""The Kulikovo golden traces: seeded random games recorded step by step (the differential test of
the compiled rules against the per-game Python rules they replaced).

    python tests/kulikovo/kulikovo_golden.py      # rewrites tests/data/golden_kulikovo.json

Per game (seed, reset options): the actions played (random legal ones from a seeded rng), per step a
short digest of the state buffer, and one digest over the whole trace: per step the action, the
state buffer, the legal mask, both players' observations (float32 bytes), the action's string, the
log lines added; at the end the returns and the final position. Run it only after a deliberate rules
change: ``test_kulikovo_golden.py`` replays every game and compares.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from wargame_envs.core.dice import Dice  # noqa: E402
from wargame_envs.kulikovo.rules import KulikovoEngine  # noqa: E402
from wargame_envs.kulikovo.state import G_OVER  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "golden_kulikovo.json"
STEP_DIGEST = 8  # hex characters per step

# (seed, options): historical and free set-up, the False Dmitri rule, written Ambush hexes, short limits
GAMES = (
    (1, {}),
    (2, {}),
    (3, {"false_dmitri": True}),
    (4, {"setup": "free"}),
    (5, {"setup": "free", "false_dmitri": True}),
    (6, {"max_activations": 12}),
    (7, {}),
    (8, {"false_dmitri": True, "max_activations": 40}),
    (9, {"ambush_hexes": ["3221", "3222", "3321", "3322", "3323", "3422"]}),
    (10, {}),
    (11, {"setup": "free", "max_activations": 30}),
    (12, {}),
    # no activation limit, Flight Points near the Flight Levels (poked into the state after the reset):
    # games that end in a flight (16.0)
    (13, {"max_activations": 0, "_fp": [50, 45]}),
    (14, {"max_activations": 0, "false_dmitri": True, "_fp": [40, 38]}),
    (15, {"max_activations": 0, "setup": "free", "_fp": [52, 44]}),
)


def play(eng: KulikovoEngine, seed: int, options: dict, actions: list[int] | None = None):
    """Play one game (random legal actions from ``seed``, or ``actions``): (actions, step digests,
    trace digest, returns)."""
    dice = Dice(seed)
    rng = np.random.default_rng(1000 + seed)
    options = dict(options)
    fp = options.pop("_fp", None)
    s = eng.new_state(options, dice)
    if fp is not None:
        s.fp[:] = fp
    trace = hashlib.sha1()
    steps: list[str] = []
    played: list[int] = []
    seen_log = 0

    def record(tag: str) -> None:
        nonlocal seen_log
        trace.update(tag.encode())
        trace.update(s.buf.tobytes())
        trace.update(eng.legal_mask(s).tobytes())
        for p in (0, 1):
            trace.update(eng.observe(s, p).tobytes())
        trace.update("\n".join(s.log[seen_log:]).encode())
        trace.update(f"{eng.current_player(s)} {eng.decision_name(s)}".encode())
        seen_log = len(s.log)
        steps.append(hashlib.sha1(s.buf.tobytes()).hexdigest()[:STEP_DIGEST])

    record("reset")
    k = 0
    while not s.g[G_OVER]:
        if actions is None:
            a = int(rng.choice(np.flatnonzero(eng.legal_mask(s))))
        else:
            a = actions[k]
        trace.update(eng.action_to_str(s, a).encode())
        eng.apply(s, a, dice)
        played.append(a)
        k += 1
        record(str(a))
    ret = eng.returns(s).tolist()
    trace.update(json.dumps(eng.to_position(s), sort_keys=True).encode())
    trace.update(json.dumps([ret, eng.is_terminal(s), eng.is_truncated(s)]).encode())
    return played, steps, trace.hexdigest(), ret


def main() -> None:
    eng = KulikovoEngine()
    out = []
    for seed, options in GAMES:
        actions, steps, digest, ret = play(eng, seed, options)
        out.append({"seed": seed, "options": options, "actions": actions, "steps": "".join(steps),
                    "digest": digest, "returns": ret})
        print(f"seed {seed} {options}: {len(actions)} decisions, returns {ret}")
    GOLDEN.write_text(json.dumps({"step_digest": STEP_DIGEST, "games": out}, separators=(",", ":")) + "\n")
    print(f"{GOLDEN}: {GOLDEN.stat().st_size} bytes")


if __name__ == "__main__":
    main()
