"""Test library: a batch of ``wargame_envs.vector`` games mirrored by one AEC env per game (the battle tests'
``test_<battle>_vector.py`` use it to check that both play the very same games)."""

from __future__ import annotations

from typing import Callable

import numpy as np


class Mirror:
    """One AEC env per game of the batch ``vec`` (``make_env()`` builds one), replaying the batch's actions."""

    def __init__(self, vec, make_env: Callable[[], object], options: dict):
        self.vec, self.options = vec, options
        self.envs = [make_env() for _ in range(vec.num_envs)]
        self.actions: list[list[int]] = [[] for _ in range(vec.num_envs)]
        for i in range(vec.num_envs):
            self.restart(i)

    def restart(self, i: int) -> None:
        self.envs[i].reset(seed=int(self.vec.seeds[i]), options=self.options)
        self.actions[i] = []

    def check_row(self, step, i: int) -> None:
        """Row ``i`` of the batch's ``step`` is the AEC env's: flags, rewards, player, observation, mask."""
        env = self.envs[i]
        raw = env.unwrapped
        agents = env.possible_agents
        term, trunc = bool(step.terminated[i]), bool(step.truncated[i])
        assert term == all(raw.terminations.values())
        assert trunc == all(raw.truncations.values())
        if term or trunc:
            # the final row is the view of the seat that moved last, with an empty mask
            mover = agents[int(step.current_player[i])]
            assert raw.record.actions == self.actions[i]
            assert [float(r) for r in step.rewards[i]] == [raw.rewards[a] for a in agents]
        else:
            mover = env.agent_selection
            assert agents[int(step.current_player[i])] == mover
        obs = env.observe(mover)
        np.testing.assert_array_equal(step.observation[i], obs["observation"])
        np.testing.assert_array_equal(step.action_mask[i], obs["action_mask"].astype(bool))

    def step(self, i: int, action: int) -> None:
        self.envs[i].step(action)
        self.actions[i].append(action)
