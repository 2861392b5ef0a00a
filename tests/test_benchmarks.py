"""The benchmark script runs end to end and writes a complete report (figures are not checked here:
timings belong to benchmarks, not tests)."""

from __future__ import annotations

import json

import pytest

from benchmarks import bench_envs


def test_bench_envs_writes_every_measure(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert bench_envs.main(["--seconds", "0.02", "--rounds", "1", "--paired-rounds", "2",
                            "--battles", "berestechko", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    battle = report["battles"]["berestechko_v0"]
    assert battle["aec"]["steps_per_s"] > 0 and battle["engine"]["steps_per_s"] > 0
    assert battle["clone_us"] > 0 and battle["memory_mb_per_env"] > 0
    assert "pettingzoo/connect_four_v3" in report["yardsticks"]
    paired = report["paired_aec_ratio"]["berestechko_v0"]
    assert paired["rounds"] == 2 and len(paired["per_round"]) == 2 and paired["median"] > 0
    assert "paired AEC ratio" in capsys.readouterr().out


@pytest.mark.parametrize("module", ["bench_envs", "bench_vector"])
def test_bad_flags_and_an_unwritable_out_are_refused_before_the_run(module, tmp_path, monkeypatch, capsys):
    """audit 2, finding 17: no report that only looks real, no run whose report cannot be written."""
    import importlib

    bench = importlib.import_module(f"benchmarks.{module}")
    monkeypatch.setattr(bench, "run", lambda *a, **k: pytest.fail("the benchmark must not run"))
    folder = tmp_path / "adir"
    folder.mkdir()
    cases = [(["--seconds", "-1"], "--seconds must be a finite number above 0, got -1.0"),
             (["--seconds", "nan"], "--seconds must be a finite number above 0, got nan"),
             (["--rounds", "0"], "--rounds must be at least 1, got 0"),
             (["--out", str(folder)], f"--out {folder}: is a folder, expected a file path")]
    if module == "bench_envs":
        cases.append((["--paired-rounds", "-3"], "--paired-rounds must be at least 0 (0 skips it), got -3"))
    for argv, fragment in cases:
        with pytest.raises(SystemExit) as exit_:
            bench.main(["--battles", "berestechko", "--out", str(tmp_path / "r.json"), *argv])
        assert exit_.value.code == 2 and fragment in capsys.readouterr().err, argv
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"] and list(folder.iterdir()) == []


def test_write_json_leaves_no_temp_file_when_it_fails(tmp_path):
    folder = tmp_path / "adir"
    folder.mkdir()
    with pytest.raises(OSError):
        bench_envs.write_json({"x": 1}, folder)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"]
