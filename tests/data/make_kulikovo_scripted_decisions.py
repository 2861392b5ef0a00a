"""Record the Kulikovo scripted agent's decisions as test data (``kulikovo_scripted_decisions.npz``):

    python tests/data/make_kulikovo_scripted_decisions.py

The committed file holds the decisions of the heuristic as it has been since 2026-12-05 (it rallies two or more
Retired units at its Standard when its Flight Points near its Flight Level, and activates the command that puts
the most units to use, counting only units that can fight or have an open step toward the enemy; its cavalry no
longer stops short to charge; and, re-recorded the same day, both sides play the plan of fair-odds attacks, resting
Disordered units, fire discipline and leaders that follow their units: docs/kulikovo.md), so
``tests/kulikovo/test_kulikovo_scripted.py`` checks that the compiled kernel, its batched entry points and the
agent keep taking them. (The first file, made by the Python agent that the kernel replaced, the agent of git
93c3247, showed that the kernel took the same decisions as that agent: it made the same file byte for byte.) Each game (scripted against scripted, scripted against random
on either side, a free set-up and the False Dmitri rule) is played to its end; at every decision with two or
more legal actions, whoever decides, the file holds the state buffer, the player to move, the legal actions, the
action played and the scripted agent's tied-best set there: the actions among which it draws with its generator
(``agent.ties`` where the agent has it; for the old agent, which drew only in its fallback branch, all legal
actions when it drew and its one choice when it did not, found by a generator that reports the draw).

Arrays (``D`` recorded decisions):

* ``change_start`` (D + 1,), ``change_word``, ``change_value``: the state buffers, each as its changes from
  the one recorded before it (the first from zeros): decision ``i``'s state is the previous one with the words
  ``change_word[change_start[i]:change_start[i + 1]]`` set to ``change_value[...]`` (a decision changes a few
  words, so 60,000 states take well under a megabyte; ``state_size`` words a state). :func:`states` replays
  them.
* ``player``, ``played``, ``game`` (D,): the player to move, the action played, the game's index.
* ``legal_start`` (D + 1,), ``legal_actions``: decision ``i``'s legal actions (ascending), laid out like the ties.
* ``tie_start`` (D + 1,), ``tie_actions``: decision ``i``'s tied-best actions (ascending) are
  ``tie_actions[tie_start[i]:tie_start[i + 1]]``.
* ``games`` (G, 5): per game its seed, options index (``OPTIONS``), seats (0 scripted, 1 random, for the
  Russian and the Mongol player) and the number of recorded decisions; ``options``: the JSON of ``OPTIONS``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agents.base import RandomAgent  # noqa: E402
from agents.kulikovo_scripted import KulikovoScriptedAgent  # noqa: E402
from wargame_envs.core.dice import Dice  # noqa: E402
from wargame_envs.kulikovo.rules import KulikovoEngine  # noqa: E402

PATH = Path(__file__).parent / "kulikovo_scripted_decisions.npz"
OPTIONS = ({}, {"setup": "free"}, {"false_dmitri": True})
SCRIPTED, RANDOM = 0, 1
# (seed, options index, Russian seat, Mongol seat)
GAMES = tuple(
    [(seed, 0, SCRIPTED, SCRIPTED) for seed in range(10)]
    + [(seed, 0, SCRIPTED, RANDOM) for seed in range(10, 16)]
    + [(seed, 0, RANDOM, SCRIPTED) for seed in range(16, 22)]
    + [(seed, 1, SCRIPTED, SCRIPTED) for seed in range(22, 26)]
    + [(seed, 2, SCRIPTED, SCRIPTED) for seed in range(26, 30)]
)


class DrawReport:
    """A stand-in generator that records the draw ``integers(n)`` of an agent and takes the first option."""

    def __init__(self):
        self.drawn = 0

    def integers(self, n):
        self.drawn = int(n)
        return 0


def tied_best(probe, eng, s, player: int, mask: np.ndarray) -> list[int]:
    """The agent's tied-best legal actions (ascending) at ``s``."""
    if hasattr(probe, "ties"):
        return [int(a) for a in probe.ties(eng, s, player, mask)]
    probe._rng = report = DrawReport()
    choice = probe.act(eng, s, player, mask)
    legal = np.flatnonzero(mask).tolist()
    if report.drawn:
        assert report.drawn == len(legal)
        return legal
    assert mask[choice], "the agent chose an illegal action"
    return [int(choice)]


def play(eng, seed: int, options: dict, seats: tuple[int, int], rows: dict) -> int:
    """Play one game, appending its decisions to ``rows``; returns how many it recorded."""
    dice = Dice(seed)
    s = eng.new_state(options, dice)
    agents = [KulikovoScriptedAgent(seed + p) if seat == SCRIPTED else RandomAgent(seed + p)
              for p, seat in enumerate(seats)]
    probe = KulikovoScriptedAgent(0)
    n = 0
    while not (eng.is_terminal(s) or eng.is_truncated(s)):
        p = eng.current_player(s)
        mask = eng.legal_mask(s)
        a = agents[p].act(eng, s, p, mask)
        if mask.sum() >= 2:
            words = np.flatnonzero(s.buf != rows["last"])
            rows["words"].append(words.astype(np.int16))
            rows["values"].append(s.buf[words])
            rows["last"] = s.buf.copy()
            rows["player"].append(p)
            rows["legal"].append(np.flatnonzero(mask).astype(np.int16))
            rows["ties"].append(tied_best(probe, eng, s, p, mask))
            rows["played"].append(a)
            n += 1
        eng.apply(s, a, dice)
    return n


def offsets(parts: list) -> np.ndarray:
    """Where each part starts in their concatenation, and the total."""
    return np.concatenate([[0], np.cumsum([len(x) for x in parts])]).astype(np.int32)


def states(data) -> Iterator[np.ndarray]:
    """The recorded state buffers in order (one array, updated in place: copy what you keep)."""
    start, words, values = data["change_start"], data["change_word"], data["change_value"]
    buf = np.zeros(int(data["state_size"]), np.int32)
    for i in range(len(start) - 1):
        buf[words[start[i]:start[i + 1]]] = values[start[i]:start[i + 1]]
        yield buf


def main() -> None:
    eng = KulikovoEngine()
    rows = {"last": np.zeros(eng.state_class._size, np.int32), "words": [], "values": [], "player": [],
            "legal": [], "ties": [], "played": []}
    games, game_of = [], []
    for i, (seed, opt, rus, mon) in enumerate(GAMES):
        n = play(eng, seed, OPTIONS[opt], (rus, mon), rows)
        games.append((seed, opt, rus, mon, n))
        game_of += [i] * n
        print(f"game {i}: seed {seed} options {OPTIONS[opt]} seats {rus, mon}: {n} decisions")
    np.savez_compressed(
        PATH, change_start=offsets(rows["words"]), change_word=np.concatenate(rows["words"]),
        change_value=np.concatenate(rows["values"]).astype(np.int32), player=np.array(rows["player"], np.int8),
        played=np.array(rows["played"], np.int16), game=np.array(game_of, np.int16),
        legal_start=offsets(rows["legal"]), legal_actions=np.concatenate(rows["legal"]),
        tie_start=offsets(rows["ties"]), tie_actions=np.concatenate([np.asarray(t, np.int16) for t in rows["ties"]]),
        games=np.array(games, np.int32), options=np.array(json.dumps(OPTIONS)), state_size=eng.state_class._size)
    sizes = np.diff(offsets(rows["ties"]))
    print(f"{PATH}: {len(sizes)} decisions, {int((sizes > 1).sum())} with 2+ tied-best actions, "
          f"{PATH.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
