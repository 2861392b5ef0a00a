"""Views for one player (issue 11 item 13): ``env.unwrapped.render_for(agent)`` and the engines'
``render_ansi(state, viewer)`` / ``scene(state, viewer)``; ``viewer=None`` is the omniscient view."""

from __future__ import annotations

import io

import numpy as np
import pytest

from wargame_envs import make, registry
from wargame_envs.core.render import render_rgb
from wargame_envs.kulikovo.state import G_FD, LF_FD, LF_REAL

BATTLES = sorted(registry.BATTLES)
RUSSIAN, MONGOL = "russian", "mongol"


def kulikovo(**options):
    env = make("kulikovo", options=options)
    env.reset(seed=1)
    return env.unwrapped


def ambush_hex_ids(raw) -> list[str]:
    return [raw.engine.hid(int(h)) for h in raw.game_state.ambush]


def ambush_line(lines) -> str:
    return next(line for line in lines if line.startswith("Ambush Regiment"))


def test_15_2_the_mongol_view_does_not_show_the_unplaced_ambush_hexes():
    raw = kulikovo()
    hexes = ambush_hex_ids(raw)
    assert len(hexes) == 6
    russian = ambush_line(raw.render_for(RUSSIAN).split("\n"))
    mongol = ambush_line(raw.render_for(MONGOL).split("\n"))
    assert all(h in russian for h in hexes)
    assert mongol == "Ambush Regiment: not placed (hidden)"
    # the image is drawn from the scene: its side panel holds the same lines, no counter stands on them
    for viewer, shown in ((0, True), (1, False)):
        scene = raw.engine.scene(raw.game_state, viewer)
        assert all(h in ambush_line(scene.tracks) for h in hexes) == shown
        ambush = {int(h) for h in raw.game_state.ambush}
        assert not [c for c in scene.counters if c.hex in ambush]
    image = raw.render_for(MONGOL, mode="rgb_array")
    assert np.array_equal(image, render_rgb(raw.engine.scene(raw.game_state, 1)))
    assert not np.array_equal(image, raw.render_for(RUSSIAN, mode="rgb_array"))


def test_13_4_the_mongol_view_does_not_mark_the_real_dmitri():
    raw = kulikovo(false_dmitri=True)
    s = raw.game_state
    assert s.g[G_FD]
    dmitris = [l for l in range(raw.engine.NL) if s.l_flags[l] & LF_FD]
    for _ in range(5):                   # the Russian's hidden choice of the counter with the Standard (C34)
        if all(s.l_hex[l] >= 0 for l in dmitris):
            break
        raw.step(raw.legal_actions()[-1])
    real = next(l for l in dmitris if s.l_flags[l] & LF_REAL)
    hexes = {int(s.l_hex[l]): l for l in dmitris}
    assert len(dmitris) == 2 and len(hexes) == 2

    def labels(viewer):
        scene = raw.engine.scene(s, viewer)
        return {hexes[c.hex]: c.label for c in scene.counters if c.kind == "leader" and c.hex in hexes}

    assert labels(1) == {l: "Dmitri?" for l in dmitris}
    for viewer in (0, None):
        assert labels(viewer) == {l: "Dmitri" if l == real else "FalseD" for l in dmitris}
    mongol_text = raw.render_for(MONGOL)
    assert "FalseD" not in mongol_text and "False Dmitri" not in mongol_text


def test_the_views_are_labelled_and_the_omniscient_one_shows_everything():
    env = make("kulikovo", render_mode="ansi")
    env.reset(seed=1)
    raw = env.unwrapped
    omniscient = env.render()
    assert "View: omniscient" in omniscient
    assert all(h in ambush_line(omniscient.split("\n")) for h in ambush_hex_ids(raw))
    assert "View: Russian player" in raw.render_for(RUSSIAN) and "View: Mongol player" in raw.render_for(MONGOL)
    assert "View: omniscient" in raw.engine.scene(raw.game_state).tracks[0]


@pytest.mark.parametrize("battle", ["berestechko", "breitenfeld"])
def test_perfect_information_views_differ_only_by_their_label(battle):
    env = make(battle, render_mode="ansi")
    env.reset(seed=2)
    raw = env.unwrapped
    omniscient = env.render().split("\n")
    for i, agent in enumerate(env.possible_agents):
        mine = raw.render_for(agent).split("\n")
        diff = [(a, b) for a, b in zip(omniscient, mine) if a != b]
        assert len(mine) == len(omniscient) and len(diff) == 1
        assert diff[0][0].startswith("View: omniscient") and diff[0][1].startswith("View: ")
        scene = raw.engine.scene(raw.game_state, i)
        assert scene.counters == raw.engine.scene(raw.game_state).counters


@pytest.mark.parametrize("battle", BATTLES)
def test_render_for_modes_and_bad_arguments(battle):
    env = make(battle, render_mode="rgb_array")
    raw = env.unwrapped
    with pytest.raises(RuntimeError, match="reset"):
        raw.render_for(env.possible_agents[0])
    env.reset(seed=1)
    agent = env.possible_agents[1]
    image = raw.render_for(agent)                              # the env's render mode
    assert image.ndim == 3 and image.dtype == np.uint8
    assert isinstance(raw.render_for(agent, mode="ansi"), str)
    with pytest.raises(ValueError, match="agent = 'nobody'"):
        raw.render_for("nobody")
    with pytest.raises(ValueError, match="mode = 'human'"):
        raw.render_for(agent, mode="human")
    with pytest.raises(ValueError, match="viewer = 2"):
        raw.engine.render_ansi(raw.game_state, 2)


def test_the_human_agent_sees_only_his_own_view():
    from agents.human import HumanAgent

    raw = kulikovo(false_dmitri=True)
    hexes = ambush_hex_ids(raw)
    shown = {}
    for player in (0, 1):
        out = io.StringIO()
        agent = HumanAgent(input_fn=lambda prompt: "1", output=out, color=False)
        agent.act(raw.engine, raw.game_state, player, raw.engine.legal_mask(raw.game_state))
        shown[player] = ambush_line(out.getvalue().split("\n"))
    assert all(h in shown[0] for h in hexes)
    assert shown[1] == "Ambush Regiment: not placed (hidden)"


@pytest.mark.parametrize("battle", BATTLES)
def test_summary_is_the_engines_plain_dict(battle):
    import json

    env = make(battle)
    env.reset(seed=1)
    raw = env.unwrapped
    summary = raw.summary()
    assert summary == raw.engine.summary(raw.game_state)
    assert json.loads(json.dumps(summary)) == summary
    assert summary["to_move"] == env.agent_selection and summary["over"] is False
    assert {"id", "side", "hex", "status"} <= set(summary["units"][0])
    summary["units"].clear()                                   # read-only: the game does not change
    assert raw.summary()["units"]


@pytest.mark.parametrize("side", [0, 1])
def test_the_self_play_view_renders_what_the_learner_may_see(side):
    from training.selfplay import OpponentPool, SelfPlayEnv

    pool = OpponentPool()
    pool.add_baselines("kulikovo", ("random",))
    env = SelfPlayEnv("kulikovo", pool, learner_side=side, render_mode="ansi", hint="")
    env.reset(seed=2)
    assert env.render() == env.engine.render_ansi(env.state, side)
    ambush = ambush_line(env.render().split("\n"))
    assert (ambush == "Ambush Regiment: not placed (hidden)") == (side == 1)
