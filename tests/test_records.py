"""Game records: save/load round trip, bit-exact replay, and corrupt records named precisely.

The battle-independent parts are tested on ``RaceEngine`` (``tests/race_game.py``), a tiny dice game
registered as ``race_v0`` by the ``race_battle`` fixture.
"""

from __future__ import annotations

import json

import pytest

from wargame_envs.core import GameRecord, RecordError
from wargame_envs.core.records import RECORD_FORMAT, replay, replay_final
from race_game import RaceEngine, play_random

# --------------------------------------------------------------------------- save / load
def test_save_load_round_trip(tmp_path):
    env = play_random(3)
    env.record.players = {"north": "random", "south": "scripted"}
    path = env.record.save(tmp_path / "sub" / "game.json")
    loaded = GameRecord.load(path)
    assert loaded == env.record
    assert loaded.format == RECORD_FORMAT
    assert [p.name for p in tmp_path.joinpath("sub").iterdir()] == ["game.json"]  # no temp file left


def test_replay_is_bit_exact(race_battle):
    for seed in range(5):
        env = play_random(seed)
        _, final = replay_final(env.record)
        assert final == env.state_ and final.digest() == env.record.final_digest


def test_replay_yields_every_decision_then_the_end():
    env = play_random(7)
    steps = list(replay(env.record, RaceEngine()))
    assert [a for _, _, a in steps] == env.record.actions + [None]


# --------------------------------------------------------------------------- corrupt records
def write(tmp_path, text: str):
    path = tmp_path / "game.json"
    path.write_text(text, encoding="utf-8")
    return path


def record_dict(**changes) -> dict:
    data = {"env": "race_v0", "seed": 1, "options": {}, "actions": [0, 0], "format": RECORD_FORMAT}
    data.update(changes)
    return data


@pytest.mark.parametrize("text, fragment", [
    ('{"env": "race_v0", "seed": 1,', "not valid JSON (line 1"),
    ("[1, 2]", "a game record is a JSON object, got list"),
    (json.dumps(record_dict(format="other/9")), "field 'format' = 'other/9'"),
    (json.dumps({k: v for k, v in record_dict().items() if k != "seed"}), "field 'seed' is missing"),
    (json.dumps(record_dict(seed="1")), "field 'seed' = '1': expected int"),
    (json.dumps(record_dict(seed=True)), "field 'seed' = True: expected int"),
    (json.dumps(record_dict(actions={"0": 1})), "field 'actions'"),
    (json.dumps(record_dict(actions=[0, -1])), "field 'actions[1]' = -1"),
    (json.dumps(record_dict(actions=[0, "1"])), "field 'actions[1]' = '1'"),
    (json.dumps(record_dict(winner="north")), "unknown fields ['winner']"),
])
def test_corrupt_record_names_the_problem(tmp_path, text, fragment):
    path = write(tmp_path, text)
    with pytest.raises(RecordError) as info:
        GameRecord.load(path)
    assert fragment in str(info.value)
    assert str(path) in str(info.value)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(RecordError, match="no such game record"):
        GameRecord.load(tmp_path / "absent.json")
    path = tmp_path / "game.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RecordError, match="not a text file"):
        GameRecord.load(path)


def test_unknown_env_is_named():
    record = GameRecord.from_dict(record_dict(env="waterloo_v3"))
    with pytest.raises(RecordError, match="'waterloo_v3', which this version does not have"):
        replay_final(record)


def test_record_for_another_engine():
    with pytest.raises(RecordError, match="not 'race_v0'"):
        replay_final(GameRecord(env="other_v0", seed=1), RaceEngine())


def test_illegal_action_is_named():
    # Both runners step to column index 3; north may not dash past the last column.
    record = GameRecord(env="race_v0", seed=1, actions=[0, 0, 0, 0, 0, 0, 1])
    with pytest.raises(RecordError, match=r"action #6 \(1\) is illegal"):
        replay_final(record, RaceEngine())


def test_action_out_of_range_is_named():
    with pytest.raises(RecordError, match=r"action #0 \(7\) is illegal"):
        replay_final(GameRecord(env="race_v0", seed=1, actions=[7]), RaceEngine())


def test_actions_after_the_end():
    env = play_random(2)
    extra = GameRecord(env="race_v0", seed=2, actions=env.record.actions + [0])
    with pytest.raises(RecordError, match="1 action\\(s\\) after the game ended"):
        replay_final(extra, RaceEngine())


def test_diverging_replay_is_caught():
    env = play_random(4)
    env.record.final_digest = "0" * 40
    with pytest.raises(RecordError, match="replay diverged"):
        replay_final(env.record, RaceEngine())


def test_bad_options_are_named():
    record = GameRecord(env="race_v0", seed=1, options={"position": {"pos": [9, 0]}})
    with pytest.raises(RecordError, match="record options do not make a valid game: position 'pos'"):
        replay_final(record, RaceEngine())
