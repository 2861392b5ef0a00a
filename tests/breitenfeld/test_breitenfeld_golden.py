"""The differential test of the compiled rules against the Python rules they replaced: the seeded games
of ``tests/data/golden_breitenfeld.json`` (written by ``breitenfeld_golden.py`` with the Python engine) replay
with the same actions and dice to the same state buffer, mask, observations of both players, log lines
and returns at every step."""

from __future__ import annotations

import json

import pytest
from breitenfeld_golden import GAMES, PATH, play

from wargame_envs.breitenfeld.rules import BreitenfeldEngine

GOLDEN = json.loads(PATH.read_text())["games"]
E = BreitenfeldEngine()


def first_difference(want: dict, got: dict) -> str | None:
    for key in ("states", "extras"):
        a, b = want[key].split(), got[key].split()
        for step, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return f"{key} differ first after step {step} (action {want['actions'][step - 1] if step else None})"
        if len(a) != len(b):
            return f"{key}: {len(b)} steps, want {len(a)}"
    for key in ("trace", "returns", "log_tail"):
        if want[key] != got[key]:
            return f"{key}: {got[key]!r}, want {want[key]!r}"
    return None


def test_the_golden_file_covers_the_listed_games():
    assert [(g["seed"], g["kind"], g["options"]) for g in GOLDEN] == GAMES
    assert sum(len(g["actions"]) for g in GOLDEN) > 10_000


@pytest.mark.parametrize("game", GOLDEN, ids=lambda g: f"{g['kind']}-{g['seed']}")
def test_golden_game_replays_exactly(game):
    got = play(E, game["seed"], game["kind"], game["options"], actions=game["actions"])
    assert first_difference(game, got) is None


def test_a_changed_action_is_caught():
    """Guard: the comparison sees a game that diverges."""
    game = GOLDEN[0]
    actions = list(game["actions"])
    got = play(E, game["seed"], game["kind"], game["options"], actions=actions[:40])
    assert first_difference(game, got) is not None


def test_the_scripted_agent_makes_the_same_decisions():
    """agents/breitenfeld_scripted.py reads the compiled engine (``eligible_attackers``) where it read the
    Python rules: it still plays the recorded game."""
    game = next(g for g in GOLDEN if g["kind"] == "scripted")
    assert play(E, game["seed"], game["kind"], game["options"])["actions"] == game["actions"]
