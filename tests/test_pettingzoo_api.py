"""PettingZoo's own API, seed and render tests on every registered battle."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from wargame_envs import make, registry

BATTLES = sorted(registry.BATTLES)


@pytest.mark.parametrize("battle", BATTLES)
def test_api(battle):
    with pytest.warns(UserWarning):  # api_test passes a dummy reset option; the env warns and ignores it
        api_test(make(battle), num_cycles=300)


@pytest.mark.parametrize("battle", BATTLES)
def test_seed(battle):
    seed_test(lambda: make(battle), num_cycles=300)


@pytest.mark.parametrize("battle", BATTLES)
def test_a_seeded_env_stays_reproducible_through_seedless_resets(battle):
    """Gymnasium's convention: after reset(seed=...), a plain reset() continues a seeded generator, so two envs
    seeded alike play the same games; an env never seeded draws from the OS."""
    import pickle

    def games(env, seeds):
        out = []
        for seed in seeds:
            env.reset(seed=seed)
            out.append(env.unwrapped.record.seed)
        return out

    a, b = make(battle), make(battle)
    assert games(a, [7, None, None]) == games(b, [7, None, None])
    assert len(set(games(a, [7, None, None]))) == 3
    assert games(make(battle), [None])[0] != games(make(battle), [None])[0]
    c = pickle.loads(pickle.dumps(a))  # an env from make() pickles, its generator included
    assert games(c, [None]) == games(a, [None])


@pytest.mark.parametrize("battle", BATTLES)
def test_human_render_mode_draws_on_reset_and_on_step(battle, monkeypatch):
    env = make(battle, render_mode="human")
    calls = []
    monkeypatch.setattr(type(env.unwrapped), "render", lambda self: calls.append(1))
    env.reset(seed=1)
    assert calls == [1]
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert calls == [1, 1]


@pytest.mark.parametrize("battle", BATTLES)
def test_render_modes(battle, capsys):
    render_test(lambda render_mode=None: make(battle, render_mode=render_mode))
    env = make(battle, render_mode="rgb_array")
    env.reset(seed=1)
    image = env.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8 and image.std() > 0
    env = make(battle, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and len(text.splitlines()) > 5


@pytest.mark.parametrize("battle", BATTLES)
def test_only_the_agent_to_move_has_a_mask_and_records_replay(battle):
    from wargame_envs.core import replay_final

    env = make(battle)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(200):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        for other in env.agents:
            mask = env.observe(other)["action_mask"]
            assert mask.dtype == np.int8
            assert (mask.sum() > 0) == (other == agent)
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(rng.choice(legal)))
    raw = env.unwrapped
    record = raw.record
    _, final = replay_final(record)
    assert final == raw.game_state


# ---------------------------------------------------------------------------- issue 17 item 1: infos
def _random_steps(env, n: int, rng) -> None:
    for _ in range(n):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))


@pytest.mark.parametrize("battle", BATTLES)
def test_infos_have_the_same_numeric_keys_for_every_agent_at_all_times(battle):
    from wargame_envs.core.aec import INFO_KEYS

    env = make(battle)
    env.reset(seed=3)
    raw = env.unwrapped
    rng = np.random.default_rng(1)
    for _ in range(150):
        for a in env.agents:
            info = env.infos[a]
            assert tuple(info) == INFO_KEYS
            assert all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in info.values())
            assert info["to_move"] == int(a == env.agent_selection)
            assert info["returns"] == 0.0
        decision = env.infos[env.agent_selection]["decision_id"]
        assert raw.engine.decision_names[decision] == raw.decision_name() == raw.engine.decision_name(raw.game_state)
        _random_steps(env, 1, rng)


@pytest.mark.parametrize("battle", BATTLES)
def test_the_final_infos_carry_the_returns(battle):
    env = make(battle, illegal_action="lose")
    env.reset(seed=3)
    with pytest.warns(UserWarning, match="loses"):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0]))
    mover = env.agent_selection
    other = next(a for a in env.agents if a != mover)
    assert env.infos[mover]["returns"] == -1.0 and env.infos[other]["returns"] == 1.0
    assert all(info["to_move"] == 0 for info in env.infos.values())


# ---------------------------------------------------------------------------- issue 17 item 2: illegal_action
@pytest.mark.parametrize("battle", BATTLES)
def test_illegal_action_lose_ends_the_game_and_the_record_notes_it(battle, tmp_path):
    from wargame_envs.core import GameRecord, replay_final

    env = make(battle, illegal_action="lose")
    env.reset(seed=8)
    _random_steps(env, 20, np.random.default_rng(2))
    mover = env.agent_selection
    other = next(a for a in env.agents if a != mover)
    before = env.unwrapped.game_state.digest()
    with pytest.warns(UserWarning, match=f"{mover} loses"):
        env.step("3")
    assert all(env.terminations.values())
    assert env.rewards == {mover: -1.0, other: 1.0}
    _, reward, terminated, _, _ = env.last()
    assert terminated and reward == -1.0
    record = env.unwrapped.record
    assert record.illegal_action == {"agent": mover, "action": "'3'",
                                     "decision": record.illegal_action["decision"]}
    assert record.returns == [1.0 if a == other else -1.0 for a in env.possible_agents]
    record.save(tmp_path / "game.json")
    loaded = GameRecord.load(tmp_path / "game.json")
    assert loaded.illegal_action == record.illegal_action
    assert replay_final(loaded)[1].digest() == before          # the illegal action changed nothing
    for agent in list(env.agents):                             # the AEC end of game: each agent steps None
        env.step(None)
    assert env.agents == []


@pytest.mark.parametrize("battle", BATTLES)
def test_the_summary_after_an_illegal_action_ending_describes_the_finished_game(battle):
    """audit 8, finding 8: summary() agrees with the env: over, the other agent won, nobody to move, the illegal
    action named as the record has it. Before it (and after a reset) it is the engine's summary."""
    import json

    env = make(battle, illegal_action="lose")
    env.reset(seed=0)
    raw = env.unwrapped
    assert raw.summary() == raw.engine.summary(raw.game_state) and "illegal_action" not in raw.summary()
    mover = env.agent_selection
    other = next(a for a in env.agents if a != mover)
    decision = raw.decision_name()
    with pytest.warns(UserWarning, match=f"{mover} loses"):
        env.step(-5)
    summary = raw.summary()
    assert summary["over"] is True and summary["winner"] == other and summary["to_move"] is None
    assert summary["illegal_action"] == raw.record.illegal_action == {"agent": mover, "action": "-5",
                                                                       "decision": decision}
    assert summary.get("reason", "illegal_action") == "illegal_action"
    assert json.loads(json.dumps(summary)) == summary
    summary["illegal_action"]["agent"] = "x"                   # read-only: the record does not change
    assert raw.record.illegal_action["agent"] == mover
    env.reset(seed=0)
    assert raw.summary()["over"] is False and "illegal_action" not in raw.summary()


@pytest.mark.parametrize("bad", ["lost", None, 1, "RAISE"])
def test_illegal_action_option_is_validated(bad):
    with pytest.raises(ValueError, match="illegal_action"):
        make("berestechko", illegal_action=bad)


@pytest.mark.parametrize("battle", BATTLES)
@pytest.mark.parametrize("kwargs, message", [
    (dict(shaped_scale=float("nan")), "shaped_scale = nan"), (dict(shaped_scale=float("inf")), "shaped_scale = inf"),
    (dict(shaped_scale="abc"), "shaped_scale = 'abc'"), (dict(shaped_scale=None), "shaped_scale = None"),
    (dict(shaped_scale=True), "shaped_scale = True"), (dict(options=5), "options: expected a dict.*got int"),
    (dict(options=["variant"]), "options: expected a dict.*got list"),
])
def test_constructor_arguments_are_checked(battle, kwargs, message):
    with pytest.raises(ValueError, match=message):  # ScenarioError (options) is a ValueError too
        make(battle, reward="shaped", **kwargs)


def test_constructor_accepts_numpy_scales_and_mappings():
    from types import MappingProxyType

    env = make("berestechko", reward="shaped", shaped_scale=np.float32(0.5), options=MappingProxyType({}))
    assert env.unwrapped.shaped_scale == 0.5 and env.unwrapped.default_options == {}


# ---------------------------------------------------------------------------- issue 12 item 5: odd actions
@pytest.mark.parametrize("battle", BATTLES)
def test_bad_actions_raise_illegal_action_error_and_change_nothing(battle):
    from wargame_envs.core.errors import IllegalActionError

    env = make(battle)
    env.reset(seed=4)
    raw = env.unwrapped
    digest, n = raw.game_state.digest(), len(raw.record.actions)
    legal = raw.legal_actions()
    illegal = int(np.flatnonzero(raw._current_mask() == 0)[0])
    for bad in (float("inf"), float("-inf"), float("nan"), 10**30, -1, raw.engine.num_actions, "3", b"3", True,
                2.5, None, [legal[0]], np.array(legal[:2] * 2), np.float64("inf"), illegal, np.int64(illegal)):
        with pytest.raises(IllegalActionError):
            env.step(bad)
        assert raw.game_state.digest() == digest and len(raw.record.actions) == n
    env.step(np.int64(legal[0]))                               # numpy integers and
    assert raw.record.actions == [legal[0]] and isinstance(raw.record.actions[0], int)
    env.step(np.array([raw.legal_actions()[0]]))               # one-element arrays are read by value
    env.step(float(raw.legal_actions()[0]))                    # so is an integral float
    assert len(raw.record.actions) == 3


# ---------------------------------------------------------------------------- issue 12 item 3: failed reset
@pytest.mark.parametrize("battle", BATTLES)
def test_a_failed_reset_leaves_the_game_as_it_was(battle):
    from wargame_envs.core import replay_final

    env = make(battle)
    env.reset(seed=6)
    raw = env.unwrapped
    rng = np.random.default_rng(3)
    _random_steps(env, 40, rng)

    def snapshot():
        return (raw.game_state.digest(), raw.dice.count, list(raw.record.actions), raw.record.seed,
                list(env.agents), env.agent_selection, {a: dict(i) for a, i in env.infos.items()},
                raw.legal_actions(), raw.render_for(env.possible_agents[0]))

    before = snapshot()
    bad_resets = [dict(seed=7, options={"position": {"bogus": 1}}), dict(seed=7, options={"position": "x"}),
                  dict(seed="x"), dict(seed=-1), dict(seed=7, options=["position"])]
    for kwargs in bad_resets:
        with pytest.raises(ValueError):                       # ScenarioError is a ValueError
            env.reset(**kwargs)
        assert snapshot() == before, kwargs
    _random_steps(env, 40, rng)                                # the game goes on
    assert replay_final(raw.record)[1] == raw.game_state        # and its record still replays


# ---------------------------------------------------------------------------- audit 2, finding 12
@pytest.mark.parametrize("battle", BATTLES)
def test_unknown_agents_and_calls_before_reset_or_after_the_end_say_what_is_wrong(battle):
    raw = make(battle, raw=True)
    for call in (lambda: raw.observe(raw.possible_agents[0]), raw.position, raw.legal_actions, raw.last,
                 lambda: raw.action_to_str(0), lambda: raw.save_record("never.json"), lambda: raw.step(0)):
        with pytest.raises(RuntimeError, match=r"call reset\(\) before \w+\(\)"):
            call()
    env = make(battle)
    env.reset(seed=3)
    for call in (lambda: env.observe("nobody"), lambda: env.observe(0), lambda: env.action_space("x"),
                 lambda: env.observation_space("x")):
        with pytest.raises(ValueError, match=r"agent = .*: expected one of \["):
            call()
    with pytest.raises(ValueError, match="action 'x': expected an integer index"):
        env.unwrapped.action_to_str("x")
    env.unwrapped.illegal_action = "lose"
    with pytest.warns(UserWarning):
        env.step(-1)  # the game ends at once
    for agent in list(env.agents):
        env.step(None)
    assert env.agents == [] and env.unwrapped.legal_actions() == []
    assert env.observe(env.possible_agents[0])["action_mask"].sum() == 0
    for call in (env.last, env.unwrapped.last, lambda: env.unwrapped.step(0)):
        with pytest.raises(RuntimeError, match="the game is over; call reset"):
            call()


def test_a_finished_game_is_no_start_position_for_any_battle(race_battle):
    """audit 2, finding 5: the AEC env and the batched games refuse a finished position whatever the battle's own
    reader accepts (the race game's accepts any columns)."""
    from wargame_envs.core import ScenarioError
    from wargame_envs.core.vector import EngineLoopBackend, VectorGame
    from race_game import RaceEngine

    env = make("race")
    env.reset(seed=1)
    for finished in ({"pos": [4, 0]}, {"pos": [1, 4]}):
        with pytest.raises(ScenarioError, match="this position is a finished game; there is nothing to play from it"):
            env.reset(seed=2, options={"position": finished})
        with pytest.raises(ScenarioError, match="finished game"):
            VectorGame(EngineLoopBackend(RaceEngine()), 2, options={"position": finished})
        vec = VectorGame(EngineLoopBackend(RaceEngine()), 2)
        vec.reset(seed=1)
        with pytest.raises(ScenarioError, match=r"positions\[1\]: position: this position is a finished game"):
            vec.from_positions([{"pos": [0, 0]}, finished])
    assert env.unwrapped.record.seed == 1 and env.agents  # the game in progress is untouched
