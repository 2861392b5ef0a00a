"""The compiled scripted agent (issue 14) takes the decisions of the Python agent it replaced: at every decision
of the scripted games of ``tests/data/golden_berestechko.json`` (written by the Python agent, see
``berestechko_golden.py``) it finds the same tied-best actions and, with the same seed, makes the same choices; its
batched entry point agrees with it game by game. (The dice arithmetic on known dice: ``tests/test_agents.py``.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from berestechko_golden import GOLDEN

from agents.berestechko_scripted import TIE, BerestechkoScriptedAgent, scripted_actions, scripted_gaps, scripted_ties
from wargame_envs.berestechko.batch import BerestechkoBackend
from wargame_envs.core.dice import Dice

GAMES = json.loads(GOLDEN.read_text(encoding="utf-8"))["scripted"]
BACKEND = BerestechkoBackend()
ENGINE = BACKEND.engine


def ties(agent, s, player, mask) -> list[int]:
    legal = np.flatnonzero(mask)
    if legal.size == 1:
        return legal.tolist()
    scores = agent.scores(ENGINE, s, player, mask)[legal]
    return legal[scores >= scores.max() - TIE].tolist()


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"seed{g['seed']}")
def test_scripted_agent_decides_as_before(game):
    agent, probe = BerestechkoScriptedAgent(game["seed"]), BerestechkoScriptedAgent(0)
    dice = Dice(game["seed"])
    s = ENGINE.new_state({"variant": game["variant"]}, dice)
    for i, action in enumerate(game["actions"]):
        mask = ENGINE.legal_mask(s)
        player = ENGINE.current_player(s)
        assert ties(probe, s, player, mask) == game["ties"][i], f"decision {i} ({ENGINE.decision_name(s)})"
        assert agent.act(ENGINE, s, player, mask) == game["choices"][i], f"decision {i}"
        ENGINE.apply(s, action, dice)
    assert ENGINE.is_terminal(s)


def test_batched_choices_are_among_the_agents_best():
    """``scripted_actions`` decides every game of a batch in one call: each choice is one of the agent's
    tied-best actions, and a forced action is taken as is."""
    game = GAMES[0]
    dice = Dice(game["seed"])
    s = ENGINE.new_state({"variant": game["variant"]}, dice)
    rows, expected = [], []
    for i, action in enumerate(game["actions"]):
        rows.append(s.buf.copy())
        expected.append(game["ties"][i])
        ENGINE.apply(s, action, dice)
    rows.append(s.buf.copy())  # the finished game: nothing is legal
    states = np.stack(rows)
    out = np.zeros(len(states), dtype=np.int64)
    scripted_actions(BACKEND, states, out, rng=np.random.default_rng(0))
    for i, best in enumerate(expected):
        assert out[i] in best, f"decision {i}"
    assert out[-1] == -1
    masks = np.stack([ENGINE.legal_mask(ENGINE.state_class(r)) for r in states])
    again = np.zeros_like(out)
    scripted_actions(ENGINE, states, again, masks=masks, rng=np.random.default_rng(1))
    assert all(again[i] in best for i, best in enumerate(expected))
    sets = np.zeros(masks.shape, dtype=bool)
    scripted_ties(BACKEND, states, sets, masks)  # the hint "ties": every game's tied-best set at once
    for i, best in enumerate(expected):
        assert np.flatnonzero(sets[i]).tolist() == best, f"decision {i}"
    assert not sets[-1].any()
    gaps = np.zeros(masks.shape)
    scripted_gaps(BACKEND, states, gaps, masks)  # the hint "scores": every game's ratings at once
    probe = BerestechkoScriptedAgent(0)
    for i, best in enumerate(expected):
        s = ENGINE.state_class(states[i])
        np.testing.assert_array_equal(gaps[i], probe.gaps(ENGINE, s, ENGINE.current_player(s), masks[i]),
                                      err_msg=f"decision {i}")
        assert np.flatnonzero(gaps[i] >= -TIE).tolist() == best
    assert np.isneginf(gaps[-1]).all()


def first_choices(decisions: int = 25) -> list[int]:
    """The agent's choices over the first decisions of the first scripted game."""
    game = GAMES[0]
    agent, dice = BerestechkoScriptedAgent(game["seed"]), Dice(game["seed"])
    s = ENGINE.new_state({"variant": game["variant"]}, dice)
    out = []
    for action in game["actions"][:decisions]:
        out.append(agent.act(ENGINE, s, ENGINE.current_player(s), ENGINE.legal_mask(s)))
        ENGINE.apply(s, action, dice)
    return out


def test_the_agent_kernel_runs_the_same_as_plain_python():
    """With numba's JIT disabled the agent is the same code run as Python, with the same choices."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    here = os.path.dirname(os.path.abspath(__file__))
    code = "from test_berestechko_scripted import first_choices; print(first_choices())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=here)
    assert out.stdout.strip() == str(first_choices()) == str(GAMES[0]["choices"][:25])
