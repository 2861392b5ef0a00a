"""The event table of the compiled rules (``berestechko.events``): every code has a rulebook case and a
sentence; the combat roll's rows are joined into the one sentence the log shows."""

from __future__ import annotations

import numpy as np
import pytest
from bx_helpers import ENGINE

from wargame_envs.berestechko.events import EV, EVENTS, format_event, log_lines

ROLL_ROWS = (EV.ATTACK_DICE, EV.DEFENCE_DICE, EV.ROLL, EV.CLOSE_COMBAT_ROLL, EV.RANGED_COMBAT_ROLL)


def test_every_event_has_a_case_and_a_sentence():
    assert list(EV) == list(range(len(EVENTS))) and all(case for _, case in EVENTS)
    for code in range(len(EVENTS)):
        if code in ROLL_ROWS:
            with pytest.raises(ValueError):
                format_event(ENGINE, code, 0, 0, 0, 0)
        else:
            assert isinstance(format_event(ENGINE, code, 1, 1, 1, 1), str)


def test_a_combat_roll_is_one_sentence():
    names = ENGINE.scenario.names
    zemska, hrunka = names.index("Zemska"), names.index("Hrunka")
    rows = np.array([
        (EV.ATTACK_DICE, zemska, 2, 6, 0), (EV.ROLL, 3, 0, 0, 0), (EV.ROLL, 5, 0, 0, 0),
        (EV.ATTACK_DICE, -1, 1, 6, 0), (EV.ROLL, 4, 0, 0, 0),
        (EV.DEFENCE_DICE, hrunka, 1, 6, 0), (EV.ROLL, 2, 0, 0, 0),
        (EV.CLOSE_COMBAT_ROLL, 12, 2, 10, 6), (EV.CLOSE_EQUAL, 0, 0, 0, 0),
    ], dtype=np.int32)
    assert log_lines(ENGINE, rows) == [
        "AV 12 (Zemska 2d6=[3, 5]; artillery 1d6=4) - DV 2 (Hrunka 1d6=[2]) = CR 10 vs R 6 [8.1.4]",
        "CR = R: no effect [8.1.4]",
    ]
