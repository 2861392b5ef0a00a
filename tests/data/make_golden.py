"""Regenerate the golden game records (run after a deliberate rules change):

    python tests/data/make_golden.py

Each record is a complete game between two seeded random agents; the tests replay it and compare
the final position's digest, so any unintended change of the rules or of the dice stream shows up.
"""

from __future__ import annotations

from pathlib import Path

from agents.base import RandomAgent
from wargame_envs import make

GOLDEN = {"berestechko_v0": 1651}


def record_game(battle: str, seed: int):
    env = make(battle)
    env.reset(seed=seed)
    agents = {a: RandomAgent(seed + i) for i, a in enumerate(env.possible_agents)}
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        raw = env.unwrapped
        env.step(agents[agent].act(raw.engine, raw.game_state, env.possible_agents.index(agent), obs["action_mask"]))
    record = env.unwrapped.record
    record.players = {a: f"random:{seed + i}" for i, a in enumerate(env.possible_agents)}
    return record


if __name__ == "__main__":
    for battle, seed in GOLDEN.items():
        path = Path(__file__).parent / f"{battle.rsplit('_v', 1)[0]}_golden.json"
        record = record_game(battle, seed)
        record.save(path)
        print(f"{path}: {len(record.actions)} decisions, returns {record.returns}")
