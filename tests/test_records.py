"""Game records: save/load round trip, bit-exact replay, and corrupt records named precisely.

The battle-independent parts are tested on ``RaceEngine``, a tiny dice game defined here and
registered as ``race_v0`` by the ``race_battle`` fixture (``tests/test_cli.py`` uses it too).
"""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pytest

from agents.base import RandomAgent
from wargame_envs import registry
from wargame_envs.core import ArrayState, Counter, Engine, GameRecord, HexGrid, ObservationLayout, RecordError, Scene
from wargame_envs.core.aec import WargameAECEnv, make_env_functions
from wargame_envs.core.ansi import hex_map_text
from wargame_envs.core.records import RECORD_FORMAT, replay, replay_final

COLS = 5
MAX_PLIES = 40


class RaceState(ArrayState):
    FIELDS = {"pos": (2,), "misc": (2,)}  # misc: [player to move, plies played]


class RaceEngine(Engine):
    """Two runners race along their own row of a 2 x 5 hex map. Action 0: step 1 hex; action 1:
    dash 2 hexes, which fails on a d6 roll of 1-2. First to the last column wins."""

    name = "race_v0"
    agents = ("north", "south")
    num_actions = 2

    def __init__(self):
        ids = [f"{r}{c}" for r in range(2) for c in range(1, COLS + 1)]
        self.grid = HexGrid(ids, [(c, r) for r in range(2) for c in range(1, COLS + 1)], "even-r")
        self.obs_layout = ObservationLayout(self.grid.n, ["own", "enemy"], [("to_move", 1)])

    def new_state(self, options, dice):
        s = RaceState()
        pos = (options or {}).get("position", {}).get("pos", [0, 0])
        if len(pos) != 2 or not all(0 <= p < COLS for p in pos):
            raise ValueError(f"position 'pos' = {pos!r}: expected two columns in 0..{COLS - 1}")
        s.pos[:] = pos
        return s

    def current_player(self, s):
        return -1 if self.is_terminal(s) else int(s.misc[0])

    def legal_mask(self, s):
        p = int(s.misc[0])
        return np.array([True, s.pos[p] + 2 < COLS], dtype=bool)

    def apply(self, s, action, dice):
        p = int(s.misc[0])
        if action == 0:
            s.pos[p] += 1
            s.log.append(f"{self.agents[p]} steps to column {s.pos[p] + 1}")
        else:
            roll = dice.roll(6)
            s.pos[p] += 2 if roll > 2 else 0
            s.log.append(f"{self.agents[p]} dashes, rolls {roll}, column {s.pos[p] + 1}")
        s.misc[0] = 1 - p
        s.misc[1] += 1

    def is_terminal(self, s):
        return bool((s.pos == COLS - 1).any())

    def is_truncated(self, s):
        return not self.is_terminal(s) and s.misc[1] >= MAX_PLIES

    def returns(self, s):
        if not self.is_terminal(s):
            return np.zeros(2, dtype=np.float32)
        won = s.pos == COLS - 1
        return np.where(won, 1.0, -1.0).astype(np.float32)

    def observe(self, s, player):
        obs = self.obs_layout.new()
        planes = self.obs_layout.planes_view(obs)
        planes[0, player * COLS + s.pos[player]] = 1
        planes[1, (1 - player) * COLS + s.pos[1 - player]] = 1
        obs[self.obs_layout.slices["to_move"]] = float(s.misc[0] == player)
        return obs

    def action_to_str(self, s, action):
        return f"{self.agents[int(s.misc[0])]} {'steps' if action == 0 else 'dashes'}"

    def to_position(self, s):
        return {"pos": s.pos.tolist()}

    def render_ansi(self, s):
        cells = ["." for _ in range(self.grid.n)]
        for p in range(2):
            cells[p * COLS + int(s.pos[p])] = self.agents[p][0].upper()
        return hex_map_text(self.grid, cells, 3) + "\n" + "\n".join(s.log[-3:])

    def scene(self, s):
        counters = [Counter(p * COLS + int(s.pos[p]), p, self.agents[p], "cavalry") for p in range(2)]
        return Scene(self.grid, ["clear"] * self.grid.n, {"clear": (220, 210, 170)}, counters,
                     side_names=self.agents, title="Race", events=list(s.log))


class RaceEnv(WargameAECEnv):
    metadata = {**WargameAECEnv.metadata, "name": "race_v0"}
    engine_class = RaceEngine


@pytest.fixture
def race_battle(monkeypatch):
    """Registers ``race_v0`` (short name ``race``) for the duration of a test."""
    module = types.ModuleType("race_battle_env")
    module.raw_env, module.env = make_env_functions(RaceEnv)
    module.RaceEngine = RaceEngine
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(registry.BATTLES, "race_v0", (module.__name__, f"{module.__name__}:RaceEngine"))
    monkeypatch.setitem(registry.SHORT_NAMES, "race", "race_v0")
    return "race_v0"


def play_random(seed: int) -> WargameAECEnv:
    env = RaceEnv()
    env.reset(seed=seed)
    agent = RandomAgent(seed)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        p = env.possible_agents.index(env.agent_selection)
        env.step(agent.act(env.engine, env.state_, p, env.observe(env.agent_selection)["action_mask"]))
    return env


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
