"""What the compiled rules add to the engine contract: a step whose scripted dice run out changes nothing
(state, log, mask), and a position whose task stack names an index the kernels would read out of bounds
is refused."""

from __future__ import annotations

import numpy as np
import pytest

from wargame_envs.core.dice import Dice, ScriptedDice
from wargame_envs.core.errors import DiceExhaustedError, ScenarioError
from wargame_envs.kulikovo.state import D_UNIT_ACT, G_SP

from kulikovo_testlib import engine


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
