"""The scripted Kulikovo agent: plays whole games to a Flight end, ignores hidden information."""

import numpy as np
from kulikovo_testlib import engine

from agents.base import Agent, RandomAgent
from agents.kulikovo_scripted import KulikovoScriptedAgent
from wargame_envs.core.dice import Dice


def _play(agents, seed, options=None):
    eng = engine()
    d = Dice(seed)
    s = eng.new_state(options or {}, d)
    for a in agents:
        a.reset(seed)
    n = 0
    while not (eng.is_terminal(s) or eng.is_truncated(s)):
        p = eng.current_player(s)
        mask = eng.legal_mask(s)
        a = agents[p].act(eng, s, p, mask)
        assert mask[a]
        eng.apply(s, a, d)
        n += 1
    return s, n


def test_scripted_agent_follows_protocol():
    assert isinstance(KulikovoScriptedAgent(), Agent)


def test_scripted_vs_scripted_reaches_flight():
    eng = engine()
    s, n = _play([KulikovoScriptedAgent(), KulikovoScriptedAgent()], 0)
    assert eng.is_terminal(s) and sorted(eng.returns(s).tolist()) == [-1.0, 1.0]
    assert "FLEES [16.0]" in s.log[-2]


def test_random_vs_scripted_reaches_flight():
    eng = engine()
    s, n = _play([RandomAgent(2), KulikovoScriptedAgent()], 2, {"max_activations": 300})
    assert eng.is_terminal(s)


def test_mongol_scripted_agent_ignores_ambush_hexes():
    eng = engine()
    a = eng.new_state({"ambush_hexes": ["3220", "3221", "3320", "3321", "3322", "3421"]}, Dice(2))
    b = eng.new_state({"ambush_hexes": ["3221", "3222", "3321", "3322", "3323", "3422"]}, Dice(2))
    da, db = Dice(5), Dice(5)
    rus, mon_a, mon_b = KulikovoScriptedAgent(1), KulikovoScriptedAgent(1), KulikovoScriptedAgent(1)
    steps = 0
    while not a.g[10] and not eng.is_terminal(a) and steps < 3000:
        p = eng.current_player(a)
        assert p == eng.current_player(b)
        if p == 1:
            x = mon_a.act(eng, a, 1, eng.legal_mask(a))
            y = mon_b.act(eng, b, 1, eng.legal_mask(b))
            assert x == y
        else:
            x = rus.act(eng, a, 0, eng.legal_mask(a))
            if not eng.legal_mask(b)[x]:
                break
        eng.apply(a, x, da)
        eng.apply(b, x, db)
        steps += 1
    assert steps > 100
    assert np.array_equal(eng.observe(a, 1), eng.observe(b, 1)) or a.g[10]
