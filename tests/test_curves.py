"""Training curves (``training.curves``): read from a run's log, labelled by opponent and side, drawn at the end of
``wargames train``; a folder without a log is a clear error."""

from __future__ import annotations

import json

import numpy as np
import pytest

from training import curves

PNG = b"\x89PNG\r\n\x1a\n"


def _run(tmp_path, header: str, rows: list[str], battle: str | None = "breitenfeld_v0"):
    run = tmp_path / "run"
    (run / "tb").mkdir(parents=True)
    (run / "tb" / "progress.csv").write_text("\n".join([header, *rows]) + "\n")
    if battle:
        (run / "checkpoints").mkdir()
        (run / "checkpoints" / "latest.json").write_text(json.dumps({"args": {"battle": battle}}))
    return run


def test_a_batched_log_is_drawn_with_each_opponent_and_side_named(tmp_path):
    run = _run(tmp_path, "time/total_timesteps,selfplay/win_rate_scripted_1,time/learner_steps_per_second,"
                         "train/curriculum_epsilon,train/kl_coef",
               ["16384,,5000,0.3,0.05", "32768,0.25,5100,0.2,0.04", "49152,0.5,5200,0.1,inf"])
    data = curves.read_progress(run)
    np.testing.assert_array_equal(data["time/total_timesteps"], [16384, 32768, 49152])
    assert np.isnan(data["selfplay/win_rate_scripted_1"][0]) and np.isnan(data["train/kl_coef"][2])
    assert curves.side_names(run) == ("allied", "imperial")
    assert curves.win_rate_label("selfplay/win_rate_scripted_1", ("allied", "imperial")) == "vs scripted as imperial"
    path = curves.plot_training(run)
    assert path == run / "training.png" and path.read_bytes()[:8] == PNG


def test_the_default_backends_columns_are_named_too(tmp_path):
    sides = ("polish_lithuanian", "cossack_tatar")
    assert curves.win_rate_label("selfplay/win_rate_side0", sides) == "as polish_lithuanian, all opponents"
    assert curves.win_rate_label("selfplay/win_rate_vs_snapshot@50000", sides) == "vs snapshot@50000, both sides"
    run = _run(tmp_path, "time/fps,selfplay/win_rate_side0,selfplay/win_rate_vs_random", ["900,0.5,0.75"], battle=None)
    assert curves.side_names(run) == ("seat 0", "seat 1")  # no checkpoint yet
    assert curves.plot_training(run, tmp_path / "pics" / "c.png").read_bytes()[:8] == PNG


@pytest.mark.parametrize("make, message", [
    (lambda run: None, "no training log at .*progress.csv: is .* the --out of a `wargames train` run"),
    (lambda run: (run / "tb").mkdir(parents=True) or (run / "tb" / "progress.csv").write_text("a,b\n"), "no row yet"),
    (lambda run: (run / "tb").mkdir(parents=True) or (run / "tb" / "progress.csv").write_bytes(b"\xff\xfe\x00"),
     "cannot read the training log"),
])
def test_a_folder_without_a_readable_log_is_a_clear_error(tmp_path, make, message, capsys):
    run = tmp_path / "run"
    make(run)
    with pytest.raises(curves.CurvesError, match=message):
        curves.plot_training(run)
    assert curves.main([str(run)]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert not (run / "training.png").exists()


def test_wargames_train_draws_the_curves_beside_the_checkpoint(tmp_path, capsys):
    from wargames_cli import cli

    out = tmp_path / "run"
    assert cli.main(["train", "berestechko", "--backend", "batched", "--out", str(out), "--minutes", "0",
                     "--total-timesteps", "400", "--n-envs", "8", "--n-steps", "40", "--batch-size", "128",
                     "--n-epochs", "1", "--imitation-games", "0", "--net-arch", "16", "--eval-games", "0",
                     "--no-progress"]) == 0
    assert f"training curves: {out / 'training.png'}" in capsys.readouterr().out
    assert (out / "training.png").read_bytes()[:8] == PNG
    assert np.isfinite(curves.read_progress(out)["time/total_timesteps"]).all()


def test_the_pools_snapshots_make_one_line_per_side():
    """However many snapshots come and go in the pool, they draw one line per side: their mean where logged."""
    nan = np.nan
    data = {"selfplay/win_rate_scripted_1": np.array([0.1, 0.2, nan]),
            "selfplay/win_rate_snapshot@1000_1": np.array([0.4, nan, nan]),
            "selfplay/win_rate_snapshot@2000_1": np.array([0.2, 0.6, nan]),
            "selfplay/win_rate_snapshot@2000_0": np.array([nan, 0.9, 0.7]),
            "selfplay/win_rate_vs_snapshot@3000": np.array([nan, nan, 0.5])}
    lines = curves.win_rate_lines(data, ("allied", "imperial"))
    assert sorted(lines) == ["vs its snapshots (mean) as allied", "vs its snapshots (mean) as imperial",
                             "vs its snapshots (mean), both sides", "vs scripted as imperial"]
    np.testing.assert_allclose(lines["vs its snapshots (mean) as imperial"], [0.3, 0.6, nan])
    np.testing.assert_allclose(lines["vs its snapshots (mean) as allied"], [nan, 0.9, 0.7])


def test_a_resumed_runs_log_goes_on_from_the_old_one(tmp_path):
    """stable-baselines3 opens progress.csv afresh: a resume sets the log so far aside (progress.1.csv, ...) and the
    curves read every part in order, the union of their columns."""
    run = _run(tmp_path, "time/total_timesteps,train/kl_coef", ["100,0.05", "200,0.04"])
    tb = run / "tb"
    assert curves.set_log_aside(tb) == tb / "progress.1.csv" and not (tb / "progress.csv").exists()
    (tb / "progress.csv").write_text("time/total_timesteps,time/learner_steps_per_second\n300,5000\n")
    assert curves.set_log_aside(tb) == tb / "progress.2.csv"
    (tb / "progress.csv").write_text("time/total_timesteps,train/kl_coef\n400,0.01\n")
    data = curves.read_progress(run)
    np.testing.assert_array_equal(data["time/total_timesteps"], [100, 200, 300, 400])
    np.testing.assert_array_equal(data["train/kl_coef"][[0, 1, 3]], [0.05, 0.04, 0.01])
    assert np.isnan(data["train/kl_coef"][2]) and data["time/learner_steps_per_second"][2] == 5000
    (tb / "empty").mkdir()
    assert curves.set_log_aside(tb / "empty") is None
