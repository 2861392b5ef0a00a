"""The benchmark script runs end to end and writes a complete report (figures are not checked here:
timings belong to benchmarks, not tests)."""

from __future__ import annotations

import json

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
