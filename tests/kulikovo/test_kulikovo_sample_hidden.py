"""Determinization for search (Engine.sample_hidden): the Mongol view is redrawn, never read."""

import numpy as np

from wargame_envs.core.dice import Dice
from wargame_envs.kulikovo.rules.engine import KulikovoEngine
from wargame_envs.kulikovo.state import G_AMBUSH_PLACED, LF_FD, LF_REAL

ENGINE = KulikovoEngine()


def test_15_2_mongol_samples_redraw_the_ambush_hexes_consistently_with_what_he_sees():
    s = ENGINE.new_state({}, Dice(1))
    assert not s.g[G_AMBUSH_PLACED]
    rng = np.random.default_rng(0)
    drawn = set()
    for _ in range(20):
        sample = ENGINE.sample_hidden(s, 1, rng)
        hexes = sample.ambush.tolist()
        drawn.add(tuple(hexes))
        assert len(set(hexes)) == len(hexes)
        assert all(sample.hex_unit[h] < 0 for h in hexes)
        # contiguous: every hex touches another one of the group
        assert all(any(ENGINE.geo.dist[a, b] == 1 for b in hexes if b != a) for a in hexes)
        # the Mongol observation is the same in the real state and in the sample
        assert np.array_equal(ENGINE.observe(sample, 1), ENGINE.observe(s, 1))
    assert len(drawn) > 1
    exact = ENGINE.sample_hidden(s, 0, rng)
    assert exact == s  # the Russian player sees everything


def test_13_4_mongol_samples_do_not_know_the_real_dmitri():
    s = ENGINE.new_state({"false_dmitri": True}, Dice(2))
    dmitris = [l for l in ENGINE.side_leaders[0] if s.l_flags[l] & LF_FD]
    assert len(dmitris) == 2
    rng = np.random.default_rng(1)
    real = set()
    for _ in range(30):
        sample = ENGINE.sample_hidden(s, 1, rng)
        real.add(tuple(bool(sample.l_flags[l] & LF_REAL) for l in dmitris))
    assert real == {(True, False), (False, True)}
