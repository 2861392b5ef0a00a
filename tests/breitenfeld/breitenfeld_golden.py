"""Regenerate ``tests/data/golden_breitenfeld.json`` (only after a deliberate rules change):

    python tests/breitenfeld/breitenfeld_golden.py

Seeded games (random legal play, and scripted-agent play that reaches charges, leaders, demoralization
and pursuit), with the variant options. Per game: the seed, the options, every action, and per step a
short digest of the state buffer and one of (mask, both players' observations, the log lines added);
then a digest over the whole trace and the final returns. ``test_breitenfeld_golden.py`` replays the actions with
the same dice and compares every digest: the differential test of the compiled rules against the
Python rules they replaced.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agents.breitenfeld_scripted import MOVE_STYLE_BEFORE, BreitenfeldScriptedAgent  # noqa: E402
from wargame_envs.breitenfeld.rules import BreitenfeldEngine  # noqa: E402
from wargame_envs.core.dice import Dice  # noqa: E402

PATH = ROOT / "tests" / "data" / "golden_breitenfeld.json"
GAMES = [  # (seed, player kind, options)
    (0, "random", {}), (1, "random", {}), (2, "random", {}), (3, "random", {"turn_ends_chit": True}),
    (4, "random", {"turn_ends_chit": True}), (5, "random", {"visibility": True}),
    (6, "random", {"visibility": True, "turn_ends_chit": True}), (7, "random", {"visibility": True}),
    (10, "scripted", {}), (11, "scripted", {"turn_ends_chit": True}), (12, "scripted", {"visibility": True}),
    (13, "scripted", {"visibility": True, "turn_ends_chit": True}),
]


def short(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:10]


def step_digest(E, s, log_lines: list[str]) -> tuple[str, str]:
    """(state digest, digest of mask + both observations + the log lines)."""
    x = hashlib.sha1(E.legal_mask(s).tobytes())
    for p in (0, 1):
        x.update(E.observe(s, p).tobytes())
    x.update("\n".join(log_lines).encode())
    return short(s.buf.tobytes()), x.hexdigest()[:10]


def play(E, seed: int, kind: str, options: dict, actions: list[int] | None = None) -> dict:
    """Play (``actions`` None: choose them) or replay a game (as far as ``actions`` go); the record of
    :data:`GAMES` format."""
    dice = Dice(seed)
    rng = np.random.default_rng(seed + 1000)
    bots = [BreitenfeldScriptedAgent(seed + i, style=MOVE_STYLE_BEFORE) for i in (0, 1)]   # as recorded
    s = E.new_state(dict(options), dice)
    trace = hashlib.sha1()
    st, xt = step_digest(E, s, list(s.log))
    states, extras, played = [st], [xt], []
    trace.update((st + xt).encode())
    k = 0
    while not E.is_terminal(s) and (actions is None or k < len(actions)):
        if actions is not None:
            a = actions[k]
        else:
            mask = E.legal_mask(s)
            p = E.current_player(s)
            if kind == "random":
                legal = np.flatnonzero(mask)
                a = int(legal[rng.integers(legal.size)])
            else:
                a = bots[p].act(E, s, p, mask)
        n = len(s.log)
        E.apply(s, a, dice)
        played.append(int(a))
        st, xt = step_digest(E, s, s.log[n:])
        states.append(st)
        extras.append(xt)
        trace.update((st + xt).encode())
        k += 1
    return {"seed": seed, "kind": kind, "options": options, "actions": played, "states": " ".join(states),
            "extras": " ".join(extras), "trace": trace.hexdigest(), "returns": E.returns(s).tolist(),
            "log_tail": s.log[-5:]}


def main() -> None:
    E = BreitenfeldEngine()
    games = []
    for seed, kind, options in GAMES:
        g = play(E, seed, kind, options)
        print(f"seed {seed} {kind} {options}: {len(g['actions'])} decisions, returns {g['returns']}")
        games.append(g)
    PATH.write_text(json.dumps({"battle": "breitenfeld_v0", "games": games}, separators=(",", ":")) + "\n")
    print(f"{PATH}: {PATH.stat().st_size} bytes")


if __name__ == "__main__":
    main()
