"""The golden traces (``tests/data/golden_kulikovo.json``, written by ``kulikovo_golden.py`` with the per-game
Python rules before the compiled port): every recorded game replays with the same states, masks,
observations, action strings, log lines, returns and final position."""

from __future__ import annotations

import json

import pytest

from kulikovo_golden import GOLDEN, play
from kulikovo_testlib import engine

DATA = json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("game", DATA["games"], ids=[f"seed{g['seed']}" for g in DATA["games"]])
def test_golden_game_replays(game):
    n = DATA["step_digest"]
    actions, steps, digest, ret = play(engine(), game["seed"], game["options"], game["actions"])
    want = [game["steps"][i:i + n] for i in range(0, len(game["steps"]), n)]
    first = next((i for i, (a, b) in enumerate(zip(steps, want)) if a != b), None)
    assert first is None, f"state differs after step {first} (action {game['actions'][first - 1] if first else 'reset'})"
    assert len(steps) == len(want)
    assert ret == game["returns"]
    assert digest == game["digest"], "masks, observations, action strings, log lines or the final position differ"
