"""The battles as OpenSpiel games (``wargame_envs.openspiel``): registration, OpenSpiel's own game checks,
hidden information of Kulikovo, and OpenSpiel's MCTS / IS-MCTS bots playing through them."""

import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from wargame_envs import openspiel  # noqa: E402
from wargame_envs.core.errors import IllegalActionError, ScenarioError  # noqa: E402
from wargame_envs.kulikovo.state import G_AMBUSH_PLACED, LF_REAL  # noqa: E402

openspiel.register()


def test_import_wargame_envs_does_not_import_pyspiel():
    code = "import sys, wargame_envs, wargame_envs.openspiel; assert 'pyspiel' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_register_is_idempotent_and_games_are_listed():
    openspiel.register()
    names = pyspiel.registered_names()
    assert {"python_berestechko", "python_kulikovo", "python_breitenfeld"} <= set(names)
    kul = pyspiel.load_game("python_kulikovo").get_type()
    assert kul.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kul.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    ber = pyspiel.load_game("python_berestechko").get_type()
    assert ber.information == pyspiel.GameType.Information.PERFECT_INFORMATION


@pytest.mark.parametrize("name, max_decisions", [
    ("python_berestechko", 0),       # full games (about 350 decisions)
    ("python_kulikovo", 250),
    ("python_breitenfeld", 250),
])
def test_random_sim_test(name, max_decisions):
    game = pyspiel.load_game(name, {"seed": 3, "max_decisions": max_decisions})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_same_seed_same_game_and_legal_actions_are_the_engines_mask():
    def play(seed):
        game = pyspiel.load_game("python_berestechko", {"seed": seed})
        state, rng, digests = game.new_initial_state(), np.random.default_rng(0), []
        engine = state._core.shared.engine
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal == np.flatnonzero(engine.legal_mask(state._core.state)).tolist()
            state.apply_action(int(rng.choice(legal)))
            digests.append(state._core.state.digest())
        assert state.returns() == engine.returns(state._core.state).tolist()
        return digests, state.returns()

    assert play(5) == play(5)
    assert play(5)[0] != play(6)[0]


def test_max_decisions_ends_the_game_as_a_draw():
    game = pyspiel.load_game("python_breitenfeld", {"seed": 1, "max_decisions": 7})
    state = game.new_initial_state()
    for _ in range(7):
        state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.returns() == [0.0, 0.0] and state.legal_actions() == []
    assert game.max_game_length() == 7


@pytest.mark.parametrize("name", sorted(openspiel.GAMES))
def test_a_state_cut_by_max_decisions_takes_no_more_moves(name):
    """audit 2, finding 14: OpenSpiel code takes a terminal state to be frozen."""
    state = pyspiel.load_game(name, {"seed": 1, "max_decisions": 3}).new_initial_state()
    for _ in range(3):
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.legal_actions() == []
    engine, core = state._core.shared.engine, state._core
    still = int(np.flatnonzero(engine.legal_mask(core.state))[0])  # what the engine itself would still take
    history, digest = state.history(), core.state.digest()
    with pytest.raises(IllegalActionError, match=f"action {still}: the game is over"):
        state.apply_action(still)
    assert state.history() == history and state._core.state.digest() == digest


@pytest.mark.parametrize("player", [9, -1, 2, 0.5])
def test_resample_from_infostate_refuses_a_player_that_is_not_one(player):
    """audit 2, finding 14: a wrong player id must not hand back the true hidden information."""
    state = pyspiel.load_game("python_kulikovo", {"seed": 4, "false_dmitri": True}).new_initial_state()
    with pytest.raises(ValueError, match=f"player_id = {player!r}: expected a player, 0..1"):
        state.resample_from_infostate(player, None)


@pytest.mark.parametrize("params, field", [({"max_decisions": -1}, "max_decisions"), ({"seed": -2}, "seed")])
def test_bad_parameter_names_field_and_value(params, field):
    with pytest.raises((ScenarioError, pyspiel.SpielError), match=field):
        pyspiel.load_game("python_berestechko", params)


@pytest.mark.parametrize("name", sorted(openspiel.GAMES))
def test_action_to_string_checks_the_action_range(name):
    state = pyspiel.load_game(name, {"seed": 1}).new_initial_state()
    player, n = state.current_player(), state.get_game().num_distinct_actions()
    for bad in (10**6, n, -1):
        with pytest.raises(IllegalActionError, match=rf"action = {bad}: expected an integer in 0\.\.{n - 1}"):
            state.action_to_string(player, bad)
    legal, illegal = state.legal_actions()[0], n - 1
    assert state.action_to_string(player, legal) == state._core.shared.engine.action_to_str(state._core.state, legal)
    if illegal not in state.legal_actions():
        assert state.action_to_string(player, illegal) == f"action {illegal}"


def test_kulikovo_infostate_hides_ambush_and_real_dmitri():
    """The Mongol cannot tell a state from its determinizations (ambush hexes redrawn, real Dmitri swapped):
    his information-state string and tensor are equal in both; the Russian's (who sees all) differ."""
    game = pyspiel.load_game("python_kulikovo", {"seed": 4, "false_dmitri": True})
    state = game.new_initial_state()
    assert not state._core.state.g[G_AMBUSH_PLACED]
    mongol, russian = 1, 0
    changed = 0
    for _ in range(6):
        sample = state.resample_from_infostate(mongol, None)
        a, b = state._core.state, sample._core.state
        if np.array_equal(a.ambush, b.ambush) and np.array_equal(a.l_flags & LF_REAL, b.l_flags & LF_REAL):
            continue
        changed += 1
        assert sample.information_state_string(mongol) == state.information_state_string(mongol)
        assert sample.information_state_tensor(mongol) == state.information_state_tensor(mongol)
        assert sample.observation_string(mongol) == state.observation_string(mongol)
        assert sample.information_state_string(russian) != state.information_state_string(russian)
    assert changed >= 3
    # the Russian's determinization is the state itself (he sees everything)
    same = state.resample_from_infostate(russian, None)
    assert same._core.state == state._core.state


def _play(game, choose, max_steps=10_000):
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        action = legal[0] if len(legal) == 1 else choose(state)
        assert action in legal
        state.apply_action(int(action))
        steps += 1
        assert steps <= max_steps
    return state, steps


@pytest.mark.parametrize("name", ["python_berestechko", "python_breitenfeld"])
def test_mcts_bot_plays_a_full_game(name):
    game = pyspiel.load_game(name, {"seed": 7})
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng, max_length=10)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=4, evaluator=evaluator, random_state=rng)
    # the bot searches on a copy with fresh dice: on the state itself it would know the coming rolls
    state, steps = _play(game, lambda s: bot.step(s.resample_from_infostate(s.current_player(), None)))
    assert sorted(state.returns()) == [-1.0, 1.0] and steps > 300  # a full game, won by one side


def test_ismcts_bot_plays_kulikovo():
    game = pyspiel.load_game("python_kulikovo", {"seed": 8, "false_dmitri": True, "max_decisions": 300})
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng, max_length=5)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=rng)
    state, steps = _play(game, bot.step)
    assert steps == 300 and state.returns() == [0.0, 0.0]


def test_readme_openspiel_snippet_runs(capsys):
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = text.split("## OpenSpiel\n", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    exec(compile(code, "README.md OpenSpiel snippet", "exec"), {"__name__": "__readme__"})
    assert capsys.readouterr().out.strip() in ("[1.0, -1.0]", "[-1.0, 1.0]")


# ---------------------------------------------------------------- copies: pickle, deepcopy, serialize
def _continue(state, rng, steps):
    """Plays ``steps`` random decisions (or to the end) and returns what each player saw at each one."""
    game, out = state.get_game(), []
    imperfect = game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        seen = [state.observation_string(p) for p in range(2)] + [tuple(state.observation_tensor(p)) for p in range(2)]
        if imperfect:
            seen += [state.information_state_string(p) for p in range(2)]
        action = int(rng.choice(legal))
        out.append((state.current_player(), legal, action, seen, state.action_to_string(action)))
        state.apply_action(action)
    out.append((state.is_terminal(), state.returns(), state.history(), state.move_number(), state._core.decisions,
                state._core.state.digest(), str(state)))
    return out


@pytest.mark.parametrize("name", sorted(openspiel.GAMES))
def test_games_and_states_pickle_and_continue_the_same_game(name):
    """pickle round trips of a game and of a mid-game state (alone, with its game, and by deepcopy): the copy plays
    on exactly as the original (same dice), and the copied game makes the initial states the original would."""
    import copy
    import pickle

    game = pyspiel.load_game(name, {"seed": 5, "max_decisions": 120})
    state = game.new_initial_state()
    _continue(state, np.random.default_rng(0), 30)
    g2, s2 = pickle.loads(pickle.dumps((game, state)))
    assert g2 == game and g2.get_parameters() == game.get_parameters() and s2.get_game() is g2
    assert s2._core.shared is g2._shared and g2._shared is not game._shared
    assert s2.history() == state.history() and s2._core.state == state._core.state
    alone = pickle.loads(pickle.dumps(state))
    deep = copy.deepcopy(state)
    # the copied game's generator is where the original's was: the same next initial state
    first, again = g2.new_initial_state(), game.new_initial_state()
    assert first._core.state == again._core.state
    assert _continue(first, np.random.default_rng(9), 20) == _continue(again, np.random.default_rng(9), 20)
    expected = _continue(state, np.random.default_rng(1), 1000)
    assert expected[-1][0] and len(expected) > 80  # to the end (max_decisions)
    for copied in (s2, alone, deep):
        assert _continue(copied, np.random.default_rng(1), 1000) == expected


@pytest.mark.parametrize("name", sorted(openspiel.GAMES))
def test_serialize_round_trip_shares_the_game_and_leaves_its_generator(name):
    game = pyspiel.load_game(name, {"seed": 2, "max_decisions": 60})
    state = game.new_initial_state()
    _continue(state, np.random.default_rng(0), 15)
    before = game._shared.rng.bit_generator.state
    copied = game.deserialize_state(state.serialize())
    assert game._shared.rng.bit_generator.state == before
    assert copied._core.shared is game._shared and copied.history() == state.history()
    assert _continue(copied, np.random.default_rng(3), 100) == _continue(state, np.random.default_rng(3), 100)


def test_serialize_game_and_state_is_not_supported():
    """Documented in wargame_envs/openspiel.py: OpenSpiel writes a sampled-stochastic game's RNG state, which a
    Python game cannot provide (pickle works instead)."""
    game = pyspiel.load_game("python_berestechko", {"seed": 1})
    with pytest.raises(pyspiel.SpielError, match="GetRNGState"):
        pyspiel.serialize_game_and_state(game, game.new_initial_state())
