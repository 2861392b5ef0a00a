"""The differential test against the per-game Python rules that came before the compiled ones (issue 13):
the games of ``tests/data/golden_berestechko.json`` (written by ``berestechko_golden.py`` with the old engine) replay
with the same state buffer, legal mask, both players' observations, scores and log lines after every decision,
and the same returns."""

from __future__ import annotations

import json

import pytest
from berestechko_golden import GOLDEN, play

from wargame_envs.berestechko.rules import BerestechkoEngine

GAMES = json.loads(GOLDEN.read_text(encoding="utf-8"))["games"]
ENGINE = BerestechkoEngine()
PARTS = ("state", "mask", "observations", "log")


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"seed{g['seed']}{'-variant' if g['variant'] else ''}")
def test_golden_game_replays_step_for_step(game):
    s = None
    for i, (_, digest, s) in enumerate(play(ENGINE, game["seed"], game["variant"], actions=game["actions"])):
        if digest != game["steps"][i]:
            bad = [name for name, a, b in zip(PARTS, digest.split(":"), game["steps"][i].split(":")) if a != b]
            pytest.fail(f"step {i} (after action {game['actions'][i - 1] if i else None}): {bad} differ; "
                        f"log: {s.log[-5:]}")
    assert i == len(game["actions"]) and ENGINE.returns(s).tolist() == game["returns"]
