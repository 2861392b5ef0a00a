"""``race_v0``: a tiny two-player dice race meeting the engine contract, for battle-independent tests
of records, the CLI and the adapter. The ``race_battle`` fixture (``tests/conftest.py``) registers it.
"""

from __future__ import annotations

import sys
import types

import numpy as np

from agents.base import RandomAgent
from wargame_envs import registry
from wargame_envs.core import ArrayState, Counter, Engine, HexGrid, ObservationLayout, Scene
from wargame_envs.core.aec import WargameAECEnv, make_env_functions
from wargame_envs.core.ansi import hex_map_text

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

    def summary(self, s):
        over = self.is_terminal(s)
        winner = next((a for a, r in zip(self.agents, self.returns(s)) if r > 0), None)
        return {"battle": self.name, "to_move": None if over else self.agents[int(s.misc[0])],
                "decision": "move", "over": over, "winner": winner, "positions": s.pos.tolist(),
                "units": [{"id": a, "side": a, "hex": int(s.pos[p]), "status": "racing"}
                          for p, a in enumerate(self.agents)]}

    def render_ansi(self, s, viewer=None):  # perfect information: every view is the same
        cells = ["." for _ in range(self.grid.n)]
        for p in range(2):
            cells[p * COLS + int(s.pos[p])] = self.agents[p][0].upper()
        return hex_map_text(self.grid, cells, 3) + "\n" + "\n".join(s.log[-3:])

    def scene(self, s, viewer=None):
        counters = [Counter(p * COLS + int(s.pos[p]), p, self.agents[p], "cavalry") for p in range(2)]
        return Scene(self.grid, ["clear"] * self.grid.n, {"clear": (220, 210, 170)}, counters,
                     side_names=self.agents, title="Race", events=list(s.log))


class RaceEnv(WargameAECEnv):
    metadata = {**WargameAECEnv.metadata, "name": "race_v0"}
    engine_class = RaceEngine


def register_race_battle(monkeypatch):
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


