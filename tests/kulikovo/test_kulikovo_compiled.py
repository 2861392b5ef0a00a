"""What the compiled rules add to the engine contract: a step whose scripted dice run out changes nothing
(state, log, mask), a position whose task stack names an index the kernels would read out of bounds
is refused, ``progress`` answers as the four methods it stands for, and the options the engine keeps
between calls follow whatever state it is handed (several states, a state written from outside)."""

from __future__ import annotations

import numpy as np
import pytest

from wargame_envs.core.dice import Dice, ScriptedDice
from wargame_envs.core.errors import DiceExhaustedError, IllegalActionError, ScenarioError
from wargame_envs.kulikovo.rules import KulikovoEngine
from wargame_envs.kulikovo.state import D_UNIT_ACT, G_SP

from kulikovo_testlib import engine


def random_states(seed: int, n: int) -> list:
    """Copies of the first ``n`` states of a random game."""
    eng, rng = engine(), np.random.default_rng(seed)
    dice = Dice(seed)
    s = eng.new_state({}, dice)
    out = []
    while len(out) < n and not eng.progress(s)[0]:
        out.append(s.clone())
        eng.apply(s, int(rng.choice(np.flatnonzero(eng.legal_mask(s)))), dice)
    return out


def test_a_step_whose_dice_run_out_changes_nothing():
    eng = engine()
    s = eng.new_state({}, Dice(3))
    # random play with no dice to roll: the first decision that rolls one fails and must leave no trace
    rng = np.random.default_rng(0)
    for _ in range(400):
        before, log, mask = s.buf.copy(), list(s.log), eng.legal_mask(s)
        a = int(rng.choice(np.flatnonzero(mask)))
        try:
            eng.apply(s, a, ScriptedDice([]))
        except DiceExhaustedError:
            np.testing.assert_array_equal(s.buf, before)
            assert s.log == log
            np.testing.assert_array_equal(eng.legal_mask(s), mask)
            return
    pytest.fail("no decision rolled a die")


def test_a_position_naming_a_unit_beyond_the_last_is_refused():
    eng = engine()
    s = eng.new_state({}, Dice(1))
    pos = eng.to_position(s)
    sp = pos["internal"]["g"][G_SP]
    pos["internal"]["stack"][sp] = [D_UNIT_ACT, 0, eng.U + 5] + [-1] * 7
    pos["internal"]["g"][G_SP] = sp + 1
    with pytest.raises(ScenarioError, match="expected a unit"):
        eng.new_state({"position": pos}, Dice(1))


def test_progress_answers_as_the_four_methods():
    eng = engine()
    s = eng.new_state({"max_activations": 6}, Dice(5))
    rng = np.random.default_rng(5)
    while True:
        got = eng.progress(s)
        want = (eng.is_terminal(s), eng.is_truncated(s), eng.current_player(s), eng.decision_id(s))
        assert got == want and [type(x) for x in got] == [bool, bool, int, int]
        if got[0] or got[1]:
            break
        eng.apply(s, int(rng.choice(np.flatnonzero(eng.legal_mask(s)))), Dice(int(rng.integers(1 << 30))))
    assert got[1] and got[3] == len(eng.decision_names) - 1


def test_options_follow_the_state_handed_over():
    """One engine, states in turn and a state overwritten in place: masks, observations and legality as a
    fresh engine sees them (the engine keeps the options of the last state it saw, with that state)."""
    eng, fresh = engine(), KulikovoEngine()
    states = random_states(7, 40)
    a, b = states[10], states[30]
    for s in (a, b, a, b):
        np.testing.assert_array_equal(eng.legal_mask(s), fresh.legal_mask(s.clone()))
    target = states[20]
    a.buf[:] = target.buf  # written from outside: the options must follow
    np.testing.assert_array_equal(eng.legal_mask(a), fresh.legal_mask(target.clone()))
    for p in (0, 1):
        np.testing.assert_array_equal(eng.observe(a, p), fresh.observe(target.clone(), p))
    illegal = int(np.flatnonzero(~fresh.legal_mask(target.clone()))[0])
    with pytest.raises(IllegalActionError):
        eng.apply(a, illegal, Dice(1))
    np.testing.assert_array_equal(a.buf, target.buf)
