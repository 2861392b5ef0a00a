"""The batched API (``wargame_envs.vector``): the same games as the AEC env, auto-reset, skipping,
bad actions and positions. Battle-specific checks live in ``tests/<battle>/test_vector.py``."""

from __future__ import annotations

import numpy as np
import pytest

import wargame_envs
import wargame_envs.vector as vector
from wargame_envs.core.errors import IllegalActionError, ScenarioError
from wargame_envs.core.vector import EngineLoopBackend, VectorGame
from wargame_envs.registry import make_engine

COMPILED = sorted(vector.BACKENDS)
# decisions each differential game runs (long enough for Berestechko games to end at different times)
STEPS = {"berestechko_v0": 900, "breitenfeld_v0": 400, "kulikovo_v0": 300}


def loop_game(battle: str, n: int, seed: int, **options) -> VectorGame:
    return VectorGame(EngineLoopBackend(make_engine(battle)), n, seed=seed, options=options)


def random_actions(step, rng) -> np.ndarray:
    """A random legal action per game (0 for a finished game: it restarts whatever is passed)."""
    pick = np.where(step.action_mask, rng.random(step.action_mask.shape), -1.0).argmax(axis=1)
    return pick.astype(np.int64)


def play_and_compare_with_aec(vec: VectorGame, battle: str, steps: int, seed: int) -> int:
    """Plays ``vec`` with random actions and replays every game in the AEC env with the game's seed,
    comparing observations, masks, players and rewards at each decision. Returns the games finished."""
    rng = np.random.default_rng(seed)
    n = vec.num_envs
    step = vec.reset()
    envs, finished = [None] * n, 0

    def fresh(i):
        env = wargame_envs.make(battle, options=vec.options)
        env.reset(seed=int(vec.seeds[i]))
        return env

    def check_row(i, env, step):
        agent = env.agent_selection
        assert env.possible_agents.index(agent) == step.current_player[i]
        o = env.observe(agent)
        np.testing.assert_array_equal(o["observation"], step.observation[i])
        np.testing.assert_array_equal(o["action_mask"].astype(bool), step.action_mask[i])

    for i in range(n):
        envs[i] = fresh(i)
        check_row(i, envs[i], step)
    for _ in range(steps):
        actions = random_actions(step, rng)
        was_done = step.terminated | step.truncated
        step = vec.step(actions)
        for i in range(n):
            if was_done[i]:
                envs[i] = fresh(i)
                check_row(i, envs[i], step)
                assert not step.rewards[i].any()
                continue
            env = envs[i]
            env.step(int(actions[i]))
            rewards = [env.rewards[a] for a in env.possible_agents]
            np.testing.assert_array_equal(step.rewards[i], np.asarray(rewards, np.float32))
            over = all(env.terminations.values()) or all(env.truncations.values())
            assert bool(step.terminated[i] or step.truncated[i]) == over
            if over:
                finished += 1
                assert not step.action_mask[i].any()
                assert env.record.seed == int(vec.seeds[i])
            else:
                check_row(i, env, step)
    return finished


# ------------------------------------------------------------------ the reference loop backend

@pytest.mark.parametrize("n", [1, 3])
def test_engine_loop_backend_plays_the_aec_games(n):
    vec = loop_game("berestechko_v0", n, seed=11)
    assert play_and_compare_with_aec(vec, "berestechko_v0", 700, seed=5) >= 1


# ------------------------------------------------------------------ compiled backends

@pytest.mark.parametrize("battle", COMPILED)
@pytest.mark.parametrize("n", [1, 3, 8])
def test_compiled_backend_plays_the_aec_games(battle, n):
    vec = vector.make(battle, n, seed=100 + n)
    play_and_compare_with_aec(vec, battle, STEPS[battle] // max(1, n // 3), seed=n)


@pytest.mark.parametrize("battle", COMPILED)
def test_compiled_backend_matches_engine_loop(battle):
    """The batched kernel and the engine's own apply, game by game, give the same arrays."""
    a, b = vector.make(battle, 16, seed=3), loop_game(battle, 16, seed=3)
    rng = np.random.default_rng(0)
    sa, sb = a.reset(), b.reset()
    for _ in range(STEPS[battle]):
        for field in ("observation", "action_mask", "current_player", "rewards", "terminated", "truncated"):
            np.testing.assert_array_equal(getattr(sa, field), getattr(sb, field), err_msg=field)
        np.testing.assert_array_equal(a.states, b.states)
        actions = random_actions(sa, rng)
        sa, sb = a.step(actions), b.step(actions)


# ------------------------------------------------------------------ API behaviour (any backend)

def some_game():
    return vector.make("berestechko", 4, seed=1) if "berestechko_v0" in vector.BACKENDS else \
        loop_game("berestechko_v0", 4, seed=1)


def test_shapes_and_dtypes():
    vec = some_game()
    s = vec.reset()
    assert s.observation.shape == (4, vec.obs_size) and s.observation.dtype == np.float32
    assert s.action_mask.shape == (4, vec.num_actions) and s.action_mask.dtype == bool
    assert s.current_player.shape == (4,) and s.rewards.shape == (4, 2)
    assert s.terminated.shape == s.truncated.shape == (4,)
    assert s.action_mask.any(axis=1).all()


def test_skip_leaves_a_game_untouched():
    vec = some_game()
    s = vec.reset()
    before = vec.states.copy()
    obs0 = s.observation[0].copy()
    actions = random_actions(s, np.random.default_rng(0))
    actions[0] = -1
    s = vec.step(actions)
    np.testing.assert_array_equal(vec.states[0], before[0])
    np.testing.assert_array_equal(s.observation[0], obs0)
    assert not s.rewards[0].any()


def test_illegal_actions_raise_and_step_nothing():
    vec = some_game()
    s = vec.reset()
    before = vec.states.copy()
    bad = random_actions(s, np.random.default_rng(0))
    bad[2] = int(np.flatnonzero(~s.action_mask[2])[0])
    with pytest.raises(IllegalActionError, match="game 2"):
        vec.step(bad)
    for wrong in (np.zeros(3, np.int64), np.zeros(4, np.float64), np.full(4, vec.num_actions)):
        with pytest.raises(IllegalActionError):
            vec.step(wrong)
    np.testing.assert_array_equal(vec.states, before)


def test_step_before_reset_and_bad_sizes():
    vec = some_game()
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="num_envs"):
        loop_game("berestechko_v0", 0, seed=0)
    with pytest.raises(ValueError, match="player"):
        vec.reset()
        vec.observe(2)


def test_auto_reset_after_the_end():
    vec = some_game()
    rng = np.random.default_rng(2)
    s = vec.reset()
    for _ in range(3000):
        s = vec.step(random_actions(s, rng))
        if s.terminated.any():
            break
    i = int(np.flatnonzero(s.terminated)[0])
    assert s.rewards[i].sum() == 0 and abs(s.rewards[i]).max() == 1
    assert not s.action_mask[i].any()
    old_seed = int(vec.seeds[i])
    s = vec.step(random_actions(s, rng))
    assert int(vec.seeds[i]) != old_seed and s.action_mask[i].any() and not s.rewards[i].any()
    assert not s.terminated[i]


def test_observe_either_seat_matches_the_engine():
    vec = some_game()
    vec.reset()
    engine = vec.backend.engine
    for p in (0, 1):
        obs = vec.observe(p)
        for i in range(vec.num_envs):
            state = type(engine.new_state(None, wargame_envs.core.dice.Dice(0)))(vec.states[i].copy())
            np.testing.assert_array_equal(obs[i], engine.observe(state, p))


def test_positions_round_trip():
    vec = some_game()
    rng = np.random.default_rng(4)
    s = vec.reset()
    for _ in range(25):
        s = vec.step(random_actions(s, rng))
    positions = vec.to_positions()
    masks, states = s.action_mask.copy(), vec.states.copy()
    other = some_game()
    s2 = other.from_positions(positions, seed=9)
    np.testing.assert_array_equal(s2.action_mask, masks)
    np.testing.assert_array_equal(other.states, states)
    with pytest.raises(ValueError, match="positions"):
        other.from_positions(positions[:2])
    with pytest.raises(ScenarioError):
        other.from_positions([{"units": "nonsense"}] * 4)
    np.testing.assert_array_equal(other.states, states)  # a bad position replaced nothing


def test_unknown_battle_and_bad_options():
    with pytest.raises(KeyError):
        vector.make("waterloo", 2)
    with pytest.raises(ScenarioError):
        loop_game("berestechko_v0", 2, seed=0, position={"round": 99})


def test_readme_example_runs():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = text.split("## Batched games at compiled speed", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    exec(compile(code, "README.md batched example", "exec"), {"__name__": "__readme__"})


def test_random_actions_are_legal_and_uniform():
    from wargame_envs.core.vector import pick_legal

    vec = some_game()
    s = vec.reset()
    a = vec.random_actions(np.random.default_rng(0))
    assert s.action_mask[np.arange(vec.num_envs), a].all()
    mask = np.zeros((1, 6), bool)
    mask[0, [1, 4, 5]] = True
    picks = [pick_legal(mask, np.array([u]), np.empty(1, np.int64))[0] for u in np.linspace(0, 0.999, 300)]
    assert np.bincount(picks, minlength=6).tolist() == [0, 100, 0, 0, 100, 100]
    assert pick_legal(np.zeros((1, 3), bool), np.array([0.5]), np.empty(1, np.int64))[0] == -1


# ------------------------------------------------------------------ bad inputs (audit findings 1 and 14)
@pytest.mark.parametrize("battle", COMPILED)
def test_scores_out_is_checked_before_the_kernel_writes_into_it(battle):
    vec = vector.make(battle, 8, seed=0)
    vec.reset(seed=1)
    big = np.full(64, -7.0, np.float32)
    read_only = np.zeros((8, 2), np.float32)
    read_only.flags.writeable = False
    for out, message in [(big[:2].reshape(1, 2), r"shape \(1, 2\)"), (np.zeros((8, 2), np.int8), "dtype int8"),
                         (np.zeros((2, 8), np.float32).T, "not C-contiguous"), (read_only, "read-only")]:
        with pytest.raises(ValueError, match=rf"out: {message}.*float32 array of shape \(8, 2\)"):
            vec.scores(out)
    with pytest.raises(TypeError, match="out: expected a numpy array"):
        vec.scores([[0.0, 0.0]] * 8)
    assert (big == -7.0).all() and not read_only.any()  # nothing was written
    out = np.zeros((8, 2), np.float32)
    assert vec.scores(out) is out
    np.testing.assert_array_equal(out, vec.scores())


def test_reads_before_reset_raise_like_step():
    vec = some_game()
    for what, call in [("to_positions", vec.to_positions), ("observe", lambda: vec.observe(0)),
                       ("scores", vec.scores)]:
        with pytest.raises(RuntimeError, match=rf"reset\(\) before {what}\(\)"):
            call()


@pytest.mark.parametrize("bad", [-1, "a", 2.5, True])
def test_seeds_are_checked_like_the_aec_envs(bad):
    with pytest.raises(ValueError, match="seed"):
        vector.make("berestechko", 2, seed=bad)
    vec = some_game()
    vec.reset(seed=np.int64(5))
    positions, states, seeds = vec.to_positions(), vec.states.copy(), vec.seeds.copy()
    for call in [lambda: vec.reset(seed=bad), lambda: vec.from_positions(positions, seed=bad)]:
        with pytest.raises(ValueError, match=f"seed = {bad!r}: expected a non-negative integer"):
            call()
        np.testing.assert_array_equal(vec.states, states)  # nothing was replaced
        np.testing.assert_array_equal(vec.seeds, seeds)


def test_positions_and_player_of_the_wrong_type():
    vec = some_game()
    vec.reset()
    states = vec.states.copy()
    with pytest.raises(TypeError, match="positions: expected a list of 4 positions, got int"):
        vec.from_positions(5)
    with pytest.raises(ValueError, match="player = 'a'"):
        vec.observe("a")
    np.testing.assert_array_equal(vec.states, states)


def test_huge_unsigned_actions_are_reported_as_given():
    vec = some_game()
    s = vec.reset()
    before = vec.states.copy()
    actions = random_actions(s, np.random.default_rng(0)).astype(np.uint64)
    actions[1], actions[3] = 2**64 - 1, 2**63  # int64 would wrap these to -1 (skip) and a negative number
    with pytest.raises(IllegalActionError, match="game 1: action 18446744073709551615, "
                                                 "game 3: action 9223372036854775808"):
        vec.step(actions)
    np.testing.assert_array_equal(vec.states, before)
