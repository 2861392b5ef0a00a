"""The ``wargames`` console script, called through ``main([...])`` (exit codes, files, messages)."""

from __future__ import annotations

import json
import sys
import types

import pytest

from wargame_envs import cli
from wargame_envs.core.records import GameRecord


def test_help_and_usage_errors(capsys):
    assert cli.main(["--help"]) == 0
    assert "play" in capsys.readouterr().out
    assert cli.main([]) == 2
    assert cli.main(["play", "race_v0", "--render", "pdf"]) == 2


def test_list(race_battle, capsys):
    assert cli.main(["list"]) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("race_v0"))
    assert "north, south" in line and line.split()[-2:] == ["2", "21"]


def test_unknown_battle(capsys):
    assert cli.main(["play", "waterloo"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown environment 'waterloo'") and "Traceback" not in err


@pytest.mark.parametrize("spec, fragment", [
    ("alphago", "bad agent spec 'alphago'"),
    ("random:3", "bad agent spec 'random:3'"),
    ("scripted", "no scripted agent for race_v0: module agents.race_scripted does not exist"),
    ("mcts:0", "bad agent spec 'mcts:0'"),
    ("ckpt:runs/missing.zip", "runs/missing.zip"),
    ("ckpt", "bad agent spec 'ckpt'"),
])
def test_bad_agent_specs(race_battle, capsys, spec, fragment):
    assert cli.main(["play", "race", "--p2", spec]) == 2
    assert fragment in capsys.readouterr().err


class RaceScriptedAgent:
    """Always steps (action 0): the scripted agent of the test battle."""

    name = "race-scripted"

    def __init__(self, seed=None):
        self.seed = seed

    def reset(self, seed=None):
        pass

    def act(self, engine, state, player, mask):
        return 0


def test_scripted_agent_is_found_by_battle_name(race_battle, monkeypatch, tmp_path, capsys):
    module = types.ModuleType("agents.race_scripted")
    RaceScriptedAgent.__module__ = module.__name__
    module.RaceScriptedAgent = RaceScriptedAgent
    monkeypatch.setitem(sys.modules, module.__name__, module)
    agent = cli.resolve_agent("scripted", "race", seed=3)
    assert isinstance(agent, RaceScriptedAgent) and agent.seed == 3
    assert cli.main(["play", "race", "--p1", "scripted", "--p2", "scripted", "--record", str(tmp_path / "g.json")]) == 0
    assert GameRecord.load(tmp_path / "g.json").actions == [0] * 7  # north steps first and reaches column 5
    assert "winner: north" in capsys.readouterr().out


def test_play_and_replay_round_trip(race_battle, tmp_path, capsys):
    record = tmp_path / "game.json"
    assert cli.main(["play", "race", "--seed", "5", "--render", "ansi", "--verbose", "--record", str(record)]) == 0
    out = capsys.readouterr().out
    saved = GameRecord.load(record)
    assert saved.players == {"north": "random", "south": "random"} and saved.returns is not None
    assert f"race_v0 seed 5: random vs random, {len(saved.actions)} decisions" in out
    assert "winner: " in out and str(record) in out

    assert cli.main(["replay", str(record)]) == 0
    text = capsys.readouterr().out
    assert text.count("north ") + text.count("south ") >= len(saved.actions)

    assert cli.main(["replay", str(record), "--format", "png", "--out", str(tmp_path / "png"), "--every", "2"]) == 0
    pngs = sorted(p.name for p in (tmp_path / "png").iterdir())
    assert pngs[0] == "decision_0001.png" and "final.png" in pngs
    assert len(pngs) == (len(saved.actions) + 1) // 2 + 1

    assert cli.main(["replay", str(record), "--format", "gif", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "game.gif").stat().st_size > 0


def test_play_writes_final_png(race_battle, tmp_path, capsys):
    assert cli.main(["play", "race_v0", "--render", "rgb_array", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "race_v0_final.png").stat().st_size > 0
    assert "not saved" not in capsys.readouterr().out


def test_same_seed_same_game(race_battle, tmp_path):
    for name in ("a.json", "b.json"):
        assert cli.main(["play", "race", "--seed", "11", "--record", str(tmp_path / name)]) == 0
    assert GameRecord.load(tmp_path / "a.json") == GameRecord.load(tmp_path / "b.json")


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "not valid JSON"),
    (json.dumps({"format": "wargame-record/1", "env": "race_v0", "seed": 1, "options": {}}), "'actions' is missing"),
    (json.dumps({"format": "wargame-record/1", "env": "race_v0", "seed": 1, "options": {}, "actions": [0, 0, 0, 0, 0, 0, 1]}),
     "action #6 (1) is illegal"),
    (json.dumps({"format": "wargame-record/1", "env": "nowhere_v0", "seed": 1, "options": {}, "actions": []}),
     "no battle 'nowhere_v0'"),
])
@pytest.mark.parametrize("fmt", ["text", "png"])
def test_corrupt_record(race_battle, tmp_path, capsys, content, fragment, fmt):
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert cli.main(["replay", str(path), "--format", fmt, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and fragment in err and "Traceback" not in err


def test_missing_record_and_folder(tmp_path, capsys):
    assert cli.main(["replay", str(tmp_path / "absent.json")]) == 2
    assert cli.main(["replay", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no such game record" in err and "is a folder" in err


def test_berestechko_play_and_replay(tmp_path, capsys):
    record = tmp_path / "b.json"
    assert cli.main(["play", "berestechko", "--seed", "1", "--render", "ansi", "--record", str(record)]) == 0
    assert cli.main(["replay", str(record), "--format", "png", "--every", "1000000", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "decision_0001.png").exists() and (tmp_path / "final.png").exists()
    assert "error" not in capsys.readouterr().err
