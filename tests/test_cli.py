"""The ``wargames`` console script, called through ``main([...])`` (exit codes, files, messages)."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from training import train as T
from wargames_cli import cli
from wargame_envs.core.records import RECORD_FORMAT, GameRecord

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("wargame_envs", "agents", "training", "wargames_cli")


def run_python(code: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def one_error_line(err: str, fragment: str) -> None:
    """``err`` is exactly one ``error: ...`` line holding ``fragment``, and no traceback."""
    assert err.startswith("error: ") and err.count("\n") == 1 and fragment in err and "Traceback" not in err, err


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


def test_play_never_replaces_a_record_or_image_unasked(race_battle, tmp_path, capsys):
    record = tmp_path / "precious.json"
    record.write_text('{"precious": true}')
    assert cli.main(["play", "race", "--seed", "3", "--record", str(record)]) == 2
    assert "already exists; pass --overwrite" in capsys.readouterr().err
    assert record.read_text() == '{"precious": true}'
    assert cli.main(["play", "race", "--seed", "3", "--record", str(record), "--overwrite"]) == 0
    assert GameRecord.load(record).seed == 3
    png = tmp_path / "race_v0_final.png"
    png.write_bytes(b"keep")
    assert cli.main(["play", "race", "--render", "rgb_array", "--out", str(tmp_path)]) == 2
    assert "already holds race_v0_final.png" in capsys.readouterr().err and png.read_bytes() == b"keep"
    assert cli.main(["play", "race", "--render", "rgb_array", "--out", str(tmp_path), "--overwrite"]) == 0
    assert png.read_bytes() != b"keep"


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
    (json.dumps({"format": "wargame-record/1", "env": "race_v0", "seed": -1, "options": {}, "actions": []}),
     "field 'seed' = -1"),
    (json.dumps({"format": "wargame-record/1", "env": "race_v0", "seed": 1, "options": {}, "actions": [],
                 "players": ["north"]}), "field 'players' = ['north']"),
    ('{"format": "wargame-record/1", "options": ' + "[" * 50_000 + "]" * 50_000 + "}", "nested too deeply"),
])
@pytest.mark.parametrize("fmt", ["text", "png"])
def test_corrupt_record(race_battle, tmp_path, capsys, content, fragment, fmt):
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert cli.main(["replay", str(path), "--format", fmt, "--out", str(tmp_path)]) == 2
    one_error_line(capsys.readouterr().err, fragment)


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


# --------------------------------------------------------------------------- structure (issue 12 item 14)
def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports anywhere in its source (functions included)."""
    graph = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_init = parts[-1] == "__init__"
            name = ".".join(parts[:-1] if is_init else parts)
            here = name if is_init else name.rpartition(".")[0]
            deps = set()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    deps |= {a.name for a in node.names}
                elif isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    if node.level:
                        up = here.split(".")[: len(here.split(".")) - node.level + 1]
                        base = ".".join(up + ([base] if base else []))
                    deps |= {base} | {f"{base}.{a.name}" for a in node.names}
            graph[name] = {d for d in deps if d.split(".")[0] in PACKAGES}
    return {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state and (found := visit(d)):
                return found
        stack.pop()
        state[m] = 2
        return None

    return next((c for m in sorted(graph) if m not in state and (c := visit(m))), None)


def test_import_graph_has_no_cycle_and_the_library_depends_on_nothing_above_it():
    graph = import_graph()
    assert {"agents.mcts", "agents.registry", "training.evaluate", "wargames_cli.cli"} <= set(graph)
    assert find_cycle(graph) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]  # the check can fail
    upward = {m: sorted(d for d in deps if not d.startswith("wargame_envs"))
              for m, deps in graph.items() if m.startswith("wargame_envs")}
    assert {m: d for m, d in upward.items() if d} == {}
    assert [m for m, deps in graph.items() if not m.startswith("wargames_cli") and any(
        d.startswith("wargames_cli") for d in deps)] == []


def test_importing_and_playing_the_envs_loads_no_trainer_agents_or_torch():
    result = run_python("""
import sys
import wargame_envs
for name in sorted(wargame_envs.BATTLES):
    env = wargame_envs.make(name, render_mode="ansi")
    env.reset(seed=1)
    for agent in env.agent_iter(max_iter=60):
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(obs["action_mask"].nonzero()[0][0]))
    env.render()
print(sorted(m for m in sys.modules if m.split(".")[0] in ("training", "agents", "torch", "wargames_cli")))
""")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


# --------------------------------------------------------------------------- help (issue 12 item 9)
def test_train_help_lists_every_training_option(capsys):
    assert cli.main(["train", "--help"]) == 0
    out = capsys.readouterr().out
    options = [f"--{f.name.replace('_', '-')}" for f in dataclasses.fields(T.TrainArgs) if f.name != "battle"]
    assert len(options) > 30 and [o for o in options if o not in out] == []
    assert "100% move accuracy" in " ".join(out.split()) and "python -m training.train --help" not in out
    assert "100% move accuracy" in " ".join(T.build_parser().format_help().split())  # a % in a help string no longer crashes


def test_evaluate_help_needs_no_battle(capsys):
    assert cli.main(["evaluate", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--agents" in out and "--games" in out and "runs/evaluate/<battle>" in out


def test_evaluate_writes_report_result_and_plot_by_default(race_battle, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["evaluate", "race", "--agents", "random", "mcts:2", "--games", "1", "--workers", "1",
                     "--no-progress"]) == 0
    folder = Path("runs") / "evaluate" / "race"
    assert sorted(p.name for p in folder.iterdir()) == ["plot.png", "report.md", "result.json"]
    assert f"written: {folder / 'report.md'}, {folder / 'result.json'}, {folder / 'plot.png'}" in capsys.readouterr().out


# --------------------------------------------------------------------------- errors (issue 12 items 11, 12)
def test_bad_input_gives_one_error_line(race_battle, tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    unwritable = str(blocker / "sub")  # below a regular file: no folder can be made there
    record = tmp_path / "game.json"
    record.write_text(json.dumps({"format": RECORD_FORMAT, "env": "race_v0", "seed": 1, "options": {}, "actions": []}))
    cases = [
        (["play", "race", "--seed", "-1"], "--seed must be a non-negative integer, got -1"),
        (["evaluate", "race", "--seed", "-3"], "--seed must be a non-negative integer, got -3"),
        (["train", "berestechko", "--seed", "-2"], "--seed must be at least 0, got -2"),
        (["train", "waterloo"], "unknown environment 'waterloo'"),
        (["train", "berestechko", "--n-envs", "0"], "--n-envs must be at least 1, got 0"),
        (["train", "berestechko", "--truncation-reward", "inf"], "--truncation-reward must be a finite number, got inf"),
        (["train", "berestechko", "--resume", "--overwrite"], "not both"),
        (["train", "berestechko", "--out", unwritable, "--eval-games", "0"], f"--out {unwritable}: cannot write there"),
        (["evaluate", "race", "--agents", "random", "mcts:1", "--out", unwritable], "cannot write there"),
        (["replay", str(record), "--format", "png", "--out", unwritable], "cannot write there"),
        (["play", "race", "--record", str(blocker / "g.json")], f"--record {blocker}: cannot write there"),
        (["play", "race", "--render", "rgb_array", "--out", unwritable], "cannot write there"),
        (["play", "race", "--p2", "ckpt:runs/absent/latest.zip"], "file not found: runs/absent/latest.zip"),
        (["evaluate", "race", "--agents", "random", f"ckpt:{tmp_path / 'x.zip'}"], f"file not found: {tmp_path / 'x.zip'}"),
    ]
    for argv, fragment in cases:
        assert cli.main(argv) == 2, argv
        one_error_line(capsys.readouterr().err, fragment)


# Without the optional extras: every module of [train] and [render] fails to import, as in a plain
# `pip install wargame-envs`; the base commands still work.
WITHOUT_EXTRAS = r"""
import contextlib, io, json, sys
for name in ("torch", "PIL", "tqdm", "matplotlib", "openskill", "stable_baselines3", "sb3_contrib", "tensorboard"):
    sys.modules[name] = None
from wargames_cli.cli import main
results = []
for argv in json.loads(sys.argv[1]):
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        rc = main(argv)
    results.append([rc, err.getvalue()])
print(json.dumps(results))
"""


def test_without_the_optional_extras_commands_name_the_extra_to_install(tmp_path):
    record = tmp_path / "game.json"
    ckpt = tmp_path / "latest.zip"
    ckpt.write_bytes(b"")
    cases = [
        (["list"], 0, ""),
        (["play", "berestechko", "--seed", "1", "--record", str(record)], 0, ""),
        (["replay", str(record)], 0, ""),
        (["replay", str(record), "--format", "png", "--out", str(tmp_path)], 2, "pip install 'wargame-envs[render]'"),
        (["replay", str(record), "--format", "gif", "--out", str(tmp_path)], 2, "pip install 'wargame-envs[render]'"),
        (["play", "berestechko", "--render", "rgb_array", "--out", str(tmp_path)], 2, "pip install 'wargame-envs[render]'"),
        (["evaluate", "berestechko", "--games", "1", "--out", str(tmp_path)], 2, "pip install 'wargame-envs[train]'"),
        (["play", "berestechko", "--p2", f"ckpt:{ckpt}"], 2, "pip install 'wargame-envs[train]'"),
        (["train", "berestechko", "--out", str(tmp_path / "run")], 2, "pip install 'wargame-envs[train]'"),
    ]
    result = run_python(WITHOUT_EXTRAS.replace("sys.argv[1]", repr(json.dumps([c[0] for c in cases]))), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    for (argv, rc, fragment), (got_rc, err) in zip(cases, json.loads(result.stdout)):
        assert got_rc == rc, (argv, err)
        if rc:
            one_error_line(err, fragment)
    assert not (tmp_path / "run").exists()


# --------------------------------------------------------------------------- runs are kept (issue 12 item 8)
def fake_run(out: Path) -> Path:
    (out / "checkpoints").mkdir(parents=True)
    for name in ("checkpoints/latest.zip", "checkpoints/latest.json", "eval.json", "evaluation/report.md", "notes.txt"):
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(name)
    return out


def test_train_refuses_a_folder_that_holds_a_run_unless_resume_or_overwrite(tmp_path, capsys):
    out = fake_run(tmp_path / "run")
    assert cli.main(["train", "berestechko", "--out", str(out), "--eval-games", "0"]) == 2
    one_error_line(capsys.readouterr().err, f"{out} already holds a training run (checkpoints, eval.json, evaluation); "
                                            "pass --resume to continue it or --overwrite to replace it")
    assert (out / "checkpoints" / "latest.zip").read_text() == "checkpoints/latest.zip"  # untouched

    T.prepare_out(T.TrainArgs(out=str(out), resume=True))  # resuming: the old evaluation describes the old checkpoint
    assert sorted(p.name for p in out.iterdir()) == ["checkpoints", "notes.txt"]
    assert (out / "checkpoints" / "latest.zip").exists()

    fake_run(tmp_path / "run2")
    T.prepare_out(T.TrainArgs(out=str(tmp_path / "run2"), overwrite=True))  # everything of the run, nothing else
    assert [p.name for p in (tmp_path / "run2").iterdir()] == ["notes.txt"]
    assert "--overwrite" in capsys.readouterr().err
    T.prepare_out(T.TrainArgs(out=str(tmp_path / "fresh")))  # a new or empty folder needs neither
    T.prepare_out(T.TrainArgs(out=str(tmp_path / "fresh")))


# --------------------------------------------------------------------------- progress (issue 12 item 13)
@pytest.mark.parametrize("tqdm_installed", [True, False])
def test_image_replays_show_progress(race_battle, tmp_path, monkeypatch, capsys, tqdm_installed):
    record = tmp_path / "game.json"
    assert cli.main(["play", "race", "--seed", "5", "--record", str(record)]) == 0
    images = len(GameRecord.load(record).actions) + 1
    if not tqdm_installed:
        monkeypatch.setitem(sys.modules, "tqdm", None)
    capsys.readouterr()
    assert cli.main(["replay", str(record), "--format", "gif", "--every", "1", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "gif replay" in err and (f"{images}/{images}" in err)
    assert ("it/s" in err or "image/s" in err) == tqdm_installed
    assert cli.main(["replay", str(record), "--format", "png", "--no-progress", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().err == ""


# --------------------------------------------------------------------------- player views in replays
def test_replay_draws_the_map_as_one_player_sees_it(tmp_path, capsys):
    record_path = tmp_path / "b.json"
    assert cli.main(["play", "berestechko", "--seed", "3", "--record", str(record_path)]) == 0
    record = GameRecord.load(record_path)
    agent = list(record.players)[1]
    env = cli.registry.make(record.env, raw=True)
    env.reset(seed=record.seed, options=record.options)
    for action in record.actions:
        env.step(action)
    capsys.readouterr()
    assert cli.main(["replay", str(record_path), "--view", agent]) == 0
    out = capsys.readouterr().out
    assert f"view: {agent}" in out and env.render_for(agent, "ansi") in out
    assert cli.main(["replay", str(record_path), "--format", "png", "--every", "1000000", "--view", agent,
                     "--out", str(tmp_path)]) == 0
    assert (tmp_path / "final.png").exists()
    capsys.readouterr()
    assert cli.main(["replay", str(record_path), "--view", "napoleon"]) == 2
    one_error_line(capsys.readouterr().err, "--view 'napoleon': expected one of")


# --------------------------------------------------------------------------- bad input (audit findings 9-11)
def test_evaluate_random_baseline_refuses_zero_and_an_unwritable_out_before_playing(race_battle, tmp_path, monkeypatch,
                                                                                    capsys):
    from training import evaluate

    monkeypatch.chdir(tmp_path)
    played = []
    real = evaluate.random_baseline
    monkeypatch.setattr(evaluate, "random_baseline", lambda *a, **k: played.append(a) or real(*a, **k))
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    cases = [
        (["--random-baseline", "0"], "--random-baseline must be at least 1 game, got 0"),
        (["--random-baseline", "-3"], "--random-baseline must be at least 1 game, got -3"),
        (["--random-baseline", "1", "--baseline-out", str(blocker / "sub" / "b.json")],
         f"--baseline-out {blocker / 'sub'}: cannot write there"),
        (["--random-baseline", "1", "--baseline-out", str(tmp_path)], f"--baseline-out {tmp_path}: is a folder"),
    ]
    for argv, fragment in cases:
        assert cli.main(["evaluate", "race", "--no-progress", *argv]) == 2, argv
        one_error_line(capsys.readouterr().err, fragment)
    assert not played and not (tmp_path / "runs").exists()  # no game played, no default out dir written
    out = tmp_path / "ref" / "race.json"
    assert cli.main(["evaluate", "race", "--random-baseline", "2", "--workers", "1", "--no-progress",
                     "--baseline-out", str(out)]) == 0
    assert len(played) == 1 and json.loads(out.read_text())["games"] == 2


@pytest.mark.parametrize("argv, fragment", [
    (["--learning-rate", "nan"], "--learning-rate must be a finite number, got nan"),
    (["--learning-rate", "0"], "--learning-rate must be above 0, got 0.0"),
    (["--gamma", "2"], "--gamma must be above 0 and at most 1, got 2.0"),
    (["--gamma", "nan"], "--gamma must be a finite number, got nan"),
    (["--gae-lambda", "0"], "--gae-lambda must be above 0 and at most 1, got 0.0"),
    (["--clip-range", "-1"], "--clip-range must be above 0, got -1.0"),
    (["--shaped-scale", "nan"], "--shaped-scale must be a finite number, got nan"),
    (["--shaped-scale", "-1"], "--shaped-scale must be at least 0, got -1.0"),
    (["--ent-coef", "-0.5"], "--ent-coef must be at least 0, got -0.5"),
    (["--vf-coef", "inf"], "--vf-coef must be a finite number, got inf"),
    (["--kl-coef", "inf"], "--kl-coef must be a finite number, got inf"),
    (["--pfsp-power", "nan"], "--pfsp-power must be a finite number, got nan"),
    (["--temperature", "0"], "--temperature must be at least 0.001, got 0.0"),
    (["--baselines", "foo"], "--baselines foo: bad agent spec 'foo'"),
    (["--baselines", "random,mcts:0"], "--baselines mcts:0: bad agent spec 'mcts:0'"),
    (["--baselines", ","], "--baselines ',': no opponent available for berestechko_v0"),
    (["--baselines", ",", "--backend", "batched", "--no-self-play"], "no opponent available"),
])
def test_train_refuses_bad_float_options_and_baselines(argv, fragment):
    from training.evaluate import UsageError

    with pytest.raises(UsageError) as err:
        T.check_args(T.parse_args(["berestechko", *argv]))
    assert fragment in str(err.value), str(err.value)


def test_train_bad_options_are_one_error_line_and_valid_baselines_pass(race_battle, tmp_path, capsys):
    out = tmp_path / "run"
    for argv, fragment in [(["berestechko", "--gamma", "2"], "--gamma must be above 0 and at most 1, got 2.0"),
                           (["race", "--baselines", "scripted"], "--baselines 'scripted': no opponent available for "
                                                                 "race_v0 (no scripted agent for race_v0")]:
        assert cli.main(["train", *argv, "--out", str(out), "--minutes", "0.01", "--imitation-games", "0",
                         "--eval-games", "0", "--n-envs", "2", "--n-steps", "8", "--batch-size", "16",
                         "--no-progress"]) == 2, argv
        one_error_line(capsys.readouterr().err, fragment)
    assert not out.exists()  # refused before the run folder is made
    for baselines in ("random,scripted", "scripted", "random, scripted"):
        assert T.check_args(T.TrainArgs(baselines=baselines)).baselines == baselines
    assert T.check_args(T.TrainArgs(battle="race", baselines="random,scripted")).battle == "race_v0"  # no scripted
    assert T.check_args(T.TrainArgs(baselines="", backend="batched")).self_play  # the learner is its own opponent


@pytest.mark.parametrize("duration", ["-5", "0", "1000000"])
def test_replay_refuses_a_bad_gif_frame_duration(race_battle, tmp_path, capsys, duration):
    record = tmp_path / "game.json"
    assert cli.main(["play", "race", "--seed", "5", "--record", str(record)]) == 0
    capsys.readouterr()
    out = tmp_path / "gif"
    assert cli.main(["replay", str(record), "--format", "gif", "--duration-ms", duration, "--out", str(out)]) == 2
    one_error_line(capsys.readouterr().err, f"--duration-ms must be 1..{cli.MAX_GIF_DURATION_MS}, got {duration}")
    assert not out.exists()


# --------------------------------------------------------------------------- bad input, round 2 of the audit
def test_play_checks_the_record_path_before_the_game(race_battle, tmp_path, monkeypatch, capsys):
    """A --record that is a folder is refused before a (possibly long, human) game is played, and nothing is
    left behind (audit 2, finding 1)."""
    played = []
    monkeypatch.setattr(cli, "play_game", lambda *a, **k: played.append(a) or 0)
    folder = tmp_path / "replays"
    folder.mkdir()
    assert cli.main(["play", "race", "--record", str(folder)]) == 2
    one_error_line(capsys.readouterr().err, f"--record {folder}: is a folder; give the path of the record's JSON file")
    assert not played and list(folder.iterdir()) == [] and [p.name for p in tmp_path.iterdir()] == ["replays"]


def test_a_record_that_cannot_be_saved_after_the_game_is_kept(race_battle, tmp_path, monkeypatch, capsys):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()

    def disk_full(self, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(GameRecord, "save", disk_full)
    assert cli.main(["play", "race", "--seed", "5", "--record", str(tmp_path / "g.json")]) == 2
    err = capsys.readouterr().err
    one_error_line(err, f"--record {tmp_path / 'g.json'}: cannot write there (No space left on device); the game "
                        f"record is saved in {tmp_path / 'tmp'}")
    spare = Path(err.rsplit(" ", 1)[1].strip())
    assert GameRecord.from_dict(json.loads(spare.read_text())).returns is not None


def test_train_with_a_mistyped_battle_or_recipe_battle_is_one_error_line(tmp_path, capsys):
    """audit 2, finding 2: the README's main command with the battle mistyped."""
    recipe = tmp_path / "r1.json"
    recipe.write_text(json.dumps({"battle": "nope", "args": {}}))
    for argv, fragment in [(["berestechk", "--recipe", "berestechko"], "unknown environment 'berestechk'"),
                           (["berestechko", "--recipe", str(recipe)],
                            f"--recipe {recipe}: field 'battle' = 'nope' in {recipe}: unknown environment 'nope'")]:
        assert cli.main(["train", *argv, "--out", str(tmp_path / "x")]) == 2, argv
        one_error_line(capsys.readouterr().err, fragment)
    assert not (tmp_path / "x").exists()


def test_paths_given_with_a_tilde_are_in_the_home_folder(race_battle, tmp_path, monkeypatch, capsys):
    """audit 2, finding 4: no shell expands the ~ of ckpt:~/x or --record=~/x; the CLI does, and never makes a
    folder named ~."""
    from training.evaluate import ensure_dir

    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    assert cli.main(["play", "race", "--seed", "5", "--record=~/games/g.json", "--render", "rgb_array",
                     "--out=~/img"]) == 0
    assert GameRecord.load(home / "games" / "g.json").returns is not None
    assert (home / "img" / "race_v0_final.png").exists()
    assert cli.main(["replay", "~/games/g.json", "--format", "png", "--every", "1000", "--out=~/frames",
                     "--no-progress"]) == 0
    assert (home / "frames" / "final.png").exists()
    assert cli.main(["play", "race", "--p2", "ckpt:~/absent.zip"]) == 2
    one_error_line(capsys.readouterr().err, f"checkpoint file not found: {home / 'absent.zip'}")
    assert ensure_dir("~/ev") == home / "ev" and (home / "ev").is_dir()
    assert T.check_args(T.TrainArgs(out="~/runs/x")).out == str(home / "runs" / "x")
    assert list(work.iterdir()) == []  # no folder named ~


def test_replay_refuses_a_folder_with_an_earlier_replays_images_unless_overwrite(race_battle, tmp_path, capsys):
    """audit 2, finding 6: the frames of two replays never mix."""
    long, short = tmp_path / "long.json", tmp_path / "short.json"
    for path, seed in ((long, 5), (short, 5)):
        assert cli.main(["play", "race", "--seed", str(seed), "--record", str(path)]) == 0
    record = GameRecord.load(long)
    GameRecord(env=record.env, seed=record.seed, actions=record.actions[:2]).save(short)
    out = tmp_path / "pngs"
    assert cli.main(["replay", str(long), "--format", "png", "--out", str(out)]) == 0
    before = sorted(p.name for p in out.iterdir())
    assert len(before) == len(record.actions) + 1 > 4
    (out / "notes.txt").write_text("mine")
    capsys.readouterr()
    assert cli.main(["replay", str(short), "--format", "png", "--out", str(out)]) == 2
    one_error_line(capsys.readouterr().err, f"--out {out} already holds a replay's images (decision_0001.png, "
                                            f"decision_0002.png, decision_0003.png and {len(before) - 3} more); pass "
                                            "--overwrite to replace them")
    assert sorted(p.name for p in out.iterdir()) == sorted([*before, "notes.txt"])  # untouched
    assert cli.main(["replay", str(short), "--format", "png", "--out", str(out), "--overwrite"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["decision_0001.png", "decision_0002.png", "final.png", "notes.txt"]
    assert "removed" in capsys.readouterr().err
    assert cli.main(["replay", str(short), "--format", "gif", "--out", str(out)]) == 0  # other files: no conflict
    capsys.readouterr()
    assert cli.main(["replay", str(short), "--format", "gif", "--out", str(out), "--no-progress"]) == 2
    one_error_line(capsys.readouterr().err, "already holds a replay's images (game.gif)")


def test_evaluate_refuses_human_and_bad_worker_counts(race_battle, tmp_path, monkeypatch, capsys):
    """audit 2, findings 3 and 19: a person cannot play in worker processes; --workers is 1 to a sane maximum."""
    from training import evaluate

    monkeypatch.chdir(tmp_path)
    cases = [(["--agents", "random", "human"], "--agents human: a person cannot play in these games"),
             (["--workers", "0"], "--workers 0: expected an integer from 1 to"),
             (["--workers", "-5"], "--workers -5: expected an integer from 1 to"),
             (["--workers", "100000"], f"--workers 100000: expected an integer from 1 to {evaluate.max_workers()}")]
    for argv, fragment in cases:
        assert cli.main(["evaluate", "race", "--games", "1", "--no-progress", *argv]) == 2, argv
        one_error_line(capsys.readouterr().err, fragment)
    assert not (tmp_path / "runs").exists()
    assert cli.main(["evaluate", "--help"]) == 0
    assert "human" not in capsys.readouterr().out.split("--agents", 1)[1].split("--games", 1)[0]


def test_evaluate_refuses_to_replace_a_report_unless_overwrite(race_battle, tmp_path, monkeypatch, capsys):
    """audit 2, finding 19: as train refuses an out that holds a run."""
    monkeypatch.chdir(tmp_path)
    argv = ["evaluate", "race", "--agents", "random", "mcts:1", "--games", "1", "--workers", "1", "--no-progress"]
    assert cli.main(argv) == 0
    report = tmp_path / "runs" / "evaluate" / "race" / "report.md"
    report.write_text("kept")
    capsys.readouterr()
    assert cli.main(argv) == 2
    one_error_line(capsys.readouterr().err, "--out runs/evaluate/race already holds a tournament report (result.json, "
                                            "report.md, plot.png); pass --overwrite to replace it")
    assert report.read_text() == "kept"
    assert cli.main([*argv, "--overwrite"]) == 0 and report.read_text().startswith("# Tournament")


def test_a_run_that_cannot_resume_changes_nothing(tmp_path, capsys):
    """audit 8, finding 1: --resume of another battle's checkpoint, or --device cuda without a GPU, is refused
    before the run's evaluation (or anything else) is removed; each battle's run has its own default folder."""
    pytest.importorskip("torch")
    import torch

    from training import checkpoints as C
    from wargame_envs.registry import make_engine

    engine = make_engine("berestechko")
    meta = {"battle": "berestechko", "env": engine.name, "obs_size": engine.obs_layout.size,
            "obs_layout": engine.obs_layout.digest(), "num_actions": engine.num_actions,
            "net_arch": {"pi": [16], "vf": [16]}, "activation": "tanh", "timesteps": 64, "n_updates": 1,
            "train_seconds": 1.0, "args": {}, "pool": []}
    out = tmp_path / "run"
    C.save_checkpoint(out / "checkpoints" / "latest.zip", meta, C.build_policy(meta).state_dict())
    (out / "evaluation").mkdir()
    (out / "evaluation" / "report.md").write_text("report")
    assert cli.main(["train", "kulikovo", "--resume", "--out", str(out), "--minutes", "0.1"]) == 2
    one_error_line(capsys.readouterr().err, "trained on berestechko_v0, not kulikovo_v0")
    assert (out / "evaluation" / "report.md").read_text() == "report"
    if not torch.cuda.is_available():
        assert cli.main(["train", "berestechko", "--resume", "--out", str(out), "--device", "cuda"]) == 2
        one_error_line(capsys.readouterr().err, "--device cuda, but torch sees no CUDA device")
        assert (out / "evaluation" / "report.md").exists()
    assert T.check_args(T.TrainArgs(battle="kulikovo")).out == "runs/kulikovo"
    assert T.check_args(T.TrainArgs(battle="breitenfeld_v0", out="x")).out == "x"
    assert T.checkpoint_interval(T.TrainArgs(checkpoint_minutes=0)) == float("inf")
    assert T.checkpoint_interval(T.TrainArgs(checkpoint_minutes=0.5)) == 30
