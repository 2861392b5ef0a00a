"""The compiled scripted agent (issue 14) keeps its recorded judgement: at every decision recorded in
``tests/data/kulikovo_scripted_decisions.npz`` (the heuristic's tied-best actions at 74,549 decisions of 30
seeded games, see ``make_kulikovo_scripted_decisions.py``; the first recording, by the Python agent the kernel
replaced, showed the kernel equal to it) it finds the same tied-best actions; its batched entry
points agree with it game by game and answer -1 for finished games; it is deterministic for a seed (it plays the
recorded games move for move) and runs the same as plain Python."""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from agents.kulikovo_scripted import KulikovoScriptedAgent, scripted_actions, scripted_ties
from agents.scripted import batched_scripted
from wargame_envs import vector
from wargame_envs.core.dice import Dice
from wargame_envs.kulikovo.rules import KulikovoEngine
from wargame_envs.kulikovo.state import DECISION_NAMES, G_SP

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
CHUNK = 4096  # states decoded at once (15 KB each)


@functools.cache
def maker():
    """``make_kulikovo_scripted_decisions.py`` as a module (its :func:`states` decodes the recorded buffers)."""
    spec = importlib.util.spec_from_file_location("make_kulikovo_scripted_decisions",
                                                  DATA_DIR / "make_kulikovo_scripted_decisions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def engine() -> KulikovoEngine:
    return KulikovoEngine()


@functools.cache
def record():
    return dict(np.load(maker().PATH))


def listed(name: str, i: int) -> np.ndarray:
    """Decision ``i``'s recorded ``name`` (``"tie"``, ``"legal"``): a slice of ``<name>_actions``."""
    d = record()
    start = d[f"{name}_start"]
    return d[f"{name}_actions"][start[i]:start[i + 1]].astype(np.int64)


def as_rows(name: str, lo: int, hi: int) -> np.ndarray:
    """Decisions ``lo:hi``'s recorded ``name`` as (hi - lo, num_actions) bool rows."""
    out = np.zeros((hi - lo, engine().num_actions), dtype=bool)
    for i in range(lo, hi):
        out[i - lo, listed(name, i)] = True
    return out


def chunks():
    """``(lo, states)``: the recorded states in blocks of :data:`CHUNK`, from decision ``lo`` on."""
    block = np.empty((CHUNK, int(record()["state_size"])), np.int32)
    n = 0
    for i, buf in enumerate(maker().states(record())):
        block[n] = buf
        n += 1
        if n == CHUNK:
            yield i + 1 - n, block
            n = 0
    if n:
        yield len(record()["player"]) - n, block[:n]


def decision_kind(buf: np.ndarray) -> int:
    s = engine().state_class(buf)
    return int(s.stack[s.g[G_SP] - 1, 0])


def test_the_recorded_decisions_cover_every_decision_kind():
    kinds, draws = set(), 0
    for lo, block in chunks():
        kinds.update(decision_kind(buf) for buf in block)
        draws += sum(len(listed("tie", i)) > 1 for i in range(lo, lo + len(block)))
    assert kinds == set(DECISION_NAMES)
    assert draws == 4   # the agent draws only at the False Dmitri set-up (13.4)


def test_the_batched_ties_are_the_python_agents():
    """``scripted_ties`` on every recorded decision: the recorded tied-best set each time."""
    for lo, block in chunks():
        hi = lo + len(block)
        sets = np.zeros((len(block), engine().num_actions), dtype=bool)
        scripted_ties(engine(), block, sets, as_rows("legal", lo, hi))
        wrong = np.flatnonzero((sets != as_rows("tie", lo, hi)).any(axis=1))
        if wrong.size:
            kind = DECISION_NAMES[decision_kind(block[wrong[0]])]
            raise AssertionError(f"decisions {(wrong + lo)[:10].tolist()} differ, the first a {kind!r}")


def test_the_agent_finds_the_recorded_ties_under_the_engines_masks():
    """Every 25th decision asked of the agent, game by game, with the engine's own legal mask."""
    agent, player = KulikovoScriptedAgent(0), record()["player"]
    for lo, block in chunks():
        for i in range(lo, lo + len(block), 25):
            s = engine().state_class(block[i - lo].copy())
            mask = engine().legal_mask(s)
            assert np.flatnonzero(mask).tolist() == listed("legal", i).tolist(), f"decision {i}"
            assert agent.ties(engine(), s, int(player[i]), mask).tolist() == listed("tie", i).tolist(), f"decision {i}"


def replay(game: int) -> list[int]:
    """The choices of agents seeded as in recorded ``game`` at its recorded decisions (their seats only)."""
    d = record()
    seed, _, *seats, _ = d["games"][game].tolist()
    agents = [KulikovoScriptedAgent(seed + p) if seats[p] == 0 else None for p in range(2)]
    picks = []
    for i, buf in enumerate(maker().states(d)):
        if d["game"][i] != game:
            if d["game"][i] > game:
                break
            continue
        p = int(d["player"][i])
        if agents[p] is not None:
            picks.append(agents[p].act(engine(), engine().state_class(buf.copy()), p, as_rows("legal", i, i + 1)[0]))
    return picks


def test_the_agent_plays_the_recorded_games_move_for_move():
    """Deterministic for a seed: seeded as in the recorded games (one with the False Dmitri draw), the agent takes
    the recorded choices, its generator drawing exactly as when they were recorded."""
    d = record()
    for game in (0, 26):
        assert replay(game) == d["played"][d["game"] == game].tolist()


def played_to_the_end() -> np.ndarray:
    """The state buffer of a finished scripted game."""
    eng, dice = engine(), Dice(3)
    s = eng.new_state({}, dice)
    agents = (KulikovoScriptedAgent(1), KulikovoScriptedAgent(2))
    while not (eng.is_terminal(s) or eng.is_truncated(s)):
        p = eng.current_player(s)
        eng.apply(s, agents[p].act(eng, s, p, eng.legal_mask(s)), dice)
    return s.buf.copy()


def test_batched_choices_are_the_agents_and_minus_one_when_over():
    """``scripted_actions`` decides every game of a batch in one call: each choice is in the agent's tied-best set
    (draws spread over the legal actions), with masks given or computed, and -1 for a finished game."""
    d = record()
    draws = np.flatnonzero(np.diff(d["tie_start"]) > 1)
    sample = np.arange(0, len(d["player"]), 997)
    picked = np.r_[sample, draws]
    wanted = set(picked.tolist())
    rows = {i: buf.copy() for i, buf in enumerate(maker().states(d)) if i in wanted}
    states = np.stack([rows[int(i)] for i in picked] + [played_to_the_end()])
    ties = [listed("tie", int(i)).tolist() for i in picked]
    assert batched_scripted("kulikovo") is scripted_actions
    out = np.zeros(len(states), dtype=np.int64)
    scripted_actions(vector.make("kulikovo", 1).backend, states, out, rng=np.random.default_rng(0))
    assert all(out[k] in best for k, best in enumerate(ties)) and out[-1] == -1
    masks = np.stack([engine().legal_mask(engine().state_class(r.copy())) for r in states])
    again = np.zeros_like(out)
    drawn = set()
    for seed in range(8):
        scripted_actions(engine(), states, again, masks=masks, rng=np.random.default_rng(seed))
        assert all(again[k] in best for k, best in enumerate(ties)) and again[-1] == -1
        drawn.add(int(again[len(sample)]))
    assert len(drawn) > 1   # the first draw took more than one of its options
    sets = np.zeros(masks.shape, dtype=bool)
    scripted_ties(engine(), states, sets, masks)
    assert [np.flatnonzero(r).tolist() for r in sets[:-1]] == ties and not sets[-1].any()


def test_batched_choices_in_a_vector_game_are_the_agents():
    """In live batched games, stepped by its own choices: game by game the agent's (its one choice, or a legal
    draw), and -1 where a game just ended."""
    vec = vector.make("kulikovo", 4, seed=3, observation="compact")
    step, agent, rng = vec.reset(), KulikovoScriptedAgent(0), np.random.default_rng(0)
    out, ended = np.zeros(4, dtype=np.int64), False
    for _ in range(5000):
        scripted_actions(vec.backend, vec.states, out, masks=step.action_mask, rng=rng)
        for i in range(4):
            if not step.action_mask[i].any():  # the game ended on the last step
                assert out[i] == -1
                ended = True
                continue
            state = vec.backend.state_view(vec.states[i])
            assert out[i] in agent.ties(vec.backend.engine, state, int(step.current_player[i]), step.action_mask[i])
        if ended:
            return
        step = vec.step(out)
    raise AssertionError("no game ended in 5000 steps")


PLAIN_SAMPLE = 331  # every this many recorded decisions, checked with numba's JIT disabled


def sample_ties() -> list[list[int]]:
    """The agent's and ``scripted_ties``' tied-best sets at a sample of the recorded decisions (and at the draws)."""
    d, agent = record(), KulikovoScriptedAgent(0)
    draws = set(np.flatnonzero(np.diff(d["tie_start"]) > 1).tolist())
    rows, out = [], []
    for i, buf in enumerate(maker().states(d)):
        if i % PLAIN_SAMPLE == 0 or i in draws:
            mask = as_rows("legal", i, i + 1)[0]
            out.append(agent.ties(engine(), engine().state_class(buf.copy()), int(d["player"][i]), mask).tolist())
            rows.append((buf.copy(), mask))
    sets = np.zeros((len(rows), engine().num_actions), dtype=bool)
    scripted_ties(engine(), np.stack([r for r, _ in rows]), sets, np.stack([m for _, m in rows]))
    assert [np.flatnonzero(s).tolist() for s in sets] == out
    return out


def test_the_agent_kernel_runs_the_same_as_plain_python():
    """With numba's JIT disabled the kernels are the same code run as Python, with the same answers."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    here = os.path.dirname(os.path.abspath(__file__))
    code = "from test_kulikovo_scripted import sample_ties; print(sample_ties())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=here)
    d = record()
    draws = set(np.flatnonzero(np.diff(d["tie_start"]) > 1).tolist())
    expected = [listed("tie", i).tolist() for i in range(len(d["player"])) if i % PLAIN_SAMPLE == 0 or i in draws]
    assert out.stdout.strip() == str(sample_ties()) == str(expected)
