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


def nested(depth: int):
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def record_dict(**changes) -> dict:
    data = {"env": "race_v0", "seed": 1, "options": {}, "actions": [0, 0], "format": RECORD_FORMAT}
    data.update(changes)
    return data


@pytest.mark.parametrize("text, fragment", [
    ('{"env": "race_v0", "seed": 1,', "not valid JSON (line 1"),
    ("[1, 2]", "a game record is a JSON object, got list"),
    (json.dumps(record_dict(format="other/9")), "field 'format' = 'other/9'"),
    (json.dumps({k: v for k, v in record_dict().items() if k != "seed"}), "field 'seed' is missing"),
    (json.dumps(record_dict(seed="1")), "field 'seed' = '1': expected a non-negative integer"),
    (json.dumps(record_dict(seed=True)), "field 'seed' = True: expected a non-negative integer"),
    (json.dumps(record_dict(seed=-1)), "field 'seed' = -1: expected a non-negative integer"),
    (json.dumps(record_dict(seed=1.0)), "field 'seed' = 1.0"),
    (json.dumps(record_dict(seed=None)), "field 'seed' = None"),
    (json.dumps(record_dict(env=7)), "field 'env' = 7: expected a non-empty string"),
    (json.dumps(record_dict(env="")), "field 'env' = ''"),
    (json.dumps(record_dict(options=[1])), "field 'options' = [1]: expected a table"),
    (json.dumps(record_dict(options="none")), "field 'options' = 'none'"),
    (json.dumps(record_dict(actions={"0": 1})), "field 'actions'"),
    (json.dumps(record_dict(actions=None)), "field 'actions' = None"),
    (json.dumps(record_dict(actions=[0, -1])), "field 'actions[1]' = -1"),
    (json.dumps(record_dict(actions=[0, "1"])), "field 'actions[1]' = '1'"),
    (json.dumps(record_dict(actions=[0, 1.5])), "field 'actions[1]' = 1.5"),
    (json.dumps(record_dict(actions=[[0]])), "field 'actions[0]' = [0]"),
    (json.dumps(record_dict(players=["north", "south"])), "field 'players' = ['north', 'south']: expected a table"),
    (json.dumps(record_dict(players="random")), "field 'players' = 'random'"),
    (json.dumps(record_dict(players={"north": 3})), "field 'players' = {'north': 3}"),
    (json.dumps(record_dict(returns="1,-1")), "field 'returns' = '1,-1': expected null or a list of finite numbers"),
    (json.dumps(record_dict(returns=[1, True])), "field 'returns' = [1, True]"),
    (json.dumps(record_dict(returns=[1, "x"])), "field 'returns'"),
    (json.dumps(record_dict(final_digest=5)), "field 'final_digest' = 5: expected null or a string"),
    (json.dumps(record_dict(illegal_action="yes")), "field 'illegal_action' = 'yes'"),
    (json.dumps(record_dict(format=None)), "field 'format' = None"),
    (json.dumps({k: v for k, v in record_dict().items() if k != "format"}), "field 'format' = None"),
    (json.dumps({k: v for k, v in record_dict().items() if k != "env"}), "field 'env' is missing"),
    (json.dumps({k: v for k, v in record_dict().items() if k != "options"}), "field 'options' is missing"),
    (json.dumps(record_dict(winner="north")), "unknown fields ['winner']"),
    (json.dumps(record_dict(returns=[1.0, 0.0])).replace("1.0", "NaN"), "NaN is not a JSON number"),
    (json.dumps(record_dict(returns=[1.0, 0.0])).replace("1.0", "Infinity"), "Infinity is not a JSON number"),
    (json.dumps(record_dict(returns=[1.0, 0.0])).replace("1.0", "1e999"), "field 'returns' = [inf, 0.0]"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"options": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    (json.dumps(record_dict(options={"position": nested(40)})), "field 'options' is nested more than 32 levels"),
    (json.dumps(record_dict(seed="x" * 500)), "..."),  # a huge bad value is cut in the message
])
def test_corrupt_record_names_the_problem(tmp_path, text, fragment):
    path = write(tmp_path, text)
    with pytest.raises(RecordError) as info:
        GameRecord.load(path)
    assert fragment in str(info.value)
    assert str(path) in str(info.value) and len(str(info.value)) < len(str(path)) + 150  # one short line


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


def test_deeply_nested_options_built_in_code_are_refused():
    with pytest.raises(RecordError, match="field 'options' is nested more than 32 levels deep"):
        GameRecord.from_dict(record_dict(options={"position": nested(10_000)}))
    GameRecord.from_dict(record_dict(options={"position": nested(30)}))  # deep but within the limit: accepted


# --------------------------------------------------------------------------- where a record is saved (audit 2, 1)
def test_saving_into_a_folder_is_refused_and_leaves_no_temp_file(tmp_path):
    env = play_random(3)
    folder = tmp_path / "replays"
    folder.mkdir()
    with pytest.raises(RecordError, match=f"{folder}: is a folder; give the path of the record's JSON file"):
        env.save_record(folder)
    assert list(folder.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["replays"]
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    with pytest.raises(RecordError, match=f"{blocker}: cannot write there \\(a file, not a folder\\)"):
        env.record.save(blocker / "sub" / "g.json")


def test_a_failed_save_removes_its_temp_file(tmp_path, monkeypatch):
    import os

    env = play_random(3)

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space left"):
        env.record.save(tmp_path / "game.json")
    assert list(tmp_path.iterdir()) == []


def test_save_and_load_expand_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    env = play_random(3)
    assert env.record.save("~/games/g.json") == tmp_path / "games" / "g.json"
    assert GameRecord.load("~/games/g.json") == env.record


# --------------------------------------------------------------------------- what a record claims (audit 2, 15)
def test_replay_checks_the_recorded_result(race_battle):
    env = play_random(2)
    winner = env.record.returns
    assert winner in ([1.0, -1.0], [-1.0, 1.0])
    for returns, fragment in [([-r for r in winner], "the replayed game ends with returns"),
                              ([1.0], "the replayed game ends with returns"),
                              (None, "the replayed game ends with returns")]:
        forged = GameRecord.from_dict({**json.loads(env.record.to_json()), "returns": returns})
        with pytest.raises(RecordError, match=f"field 'returns' = {re_escape(returns)}, but {fragment}"):
            replay_final(forged)
    unfinished = GameRecord(env="race_v0", seed=2, actions=env.record.actions[:2], returns=[1.0, -1.0])
    with pytest.raises(RecordError, match="ends without a result"):
        replay_final(unfinished)
    replay_final(GameRecord(env="race_v0", seed=2, actions=env.record.actions[:2]))  # no result claimed: fine


def re_escape(value) -> str:
    import re

    return re.escape(repr(value))


def test_replay_checks_players_and_the_illegal_action(race_battle):
    env = play_random(2)
    data = json.loads(env.record.to_json())
    with pytest.raises(RecordError, match=r"field 'players' = .*\['napoleon'\] are not agents of race_v0"):
        replay_final(GameRecord.from_dict({**data, "players": {"north": "random", "napoleon": "human"}}))
    with pytest.raises(RecordError, match=r"field 'illegal_action' = \{'agent': 5\}: expected"):
        replay_final(GameRecord.from_dict({**data, "illegal_action": {"agent": 5}}))
    # a game lost by an illegal action (illegal_action="lose") replays, and its result is checked too
    lost = {"env": "race_v0", "seed": 1, "actions": [], "returns": [-1.0, 1.0], "format": RECORD_FORMAT,
            "options": {}, "illegal_action": {"agent": "north", "action": "7", "decision": "move"}}
    replay_final(GameRecord.from_dict(lost))
    with pytest.raises(RecordError, match="field 'returns'"):
        replay_final(GameRecord.from_dict({**lost, "returns": [1.0, -1.0]}))


def test_a_short_env_name_replays(race_battle):
    env = play_random(2)
    short = GameRecord.from_dict({**json.loads(env.record.to_json()), "env": "race"})
    _, final = replay_final(short)
    assert final.digest() == env.record.final_digest
    replay_final(short, RaceEngine())
