"""Heuristic advice in a policy's input (agents.hint, ``--hint scripted``): the one-hot of the scripted
agent's choice after the observation, the same in training, for snapshots, checkpoints and shipped
policies."""

import numpy as np
import pytest

from agents import pretrained as P
from agents.hint import HINTS, Observer, input_size, make_observer
from agents.mlp import MlpActor, SnapshotAgent
from agents.registry import make_agent
from wargame_envs.core.dice import Dice
from wargame_envs.registry import make_engine

E = make_engine("berestechko")


def test_the_hint_is_the_scripted_choice_after_the_observation():
    s = E.new_state(None, Dice(3))
    p, mask = E.current_player(s), E.legal_mask(s)
    x = make_observer("scripted", "berestechko", seed=1).observe(E, s, p, mask)
    assert x.shape == (input_size(E.obs_layout.size, E.num_actions, "scripted"),)
    np.testing.assert_array_equal(x[:E.obs_layout.size], E.observe(s, p))
    advice = x[E.obs_layout.size:]
    assert advice.sum() == 1 and mask[int(np.argmax(advice))]
    assert int(np.argmax(advice)) == make_agent("scripted", "berestechko", 1).act(E, s, p, mask)
    assert make_observer("scripted", "berestechko").observe(E, s, p, np.zeros_like(mask))[E.obs_layout.size:].sum() == 0
    assert isinstance(make_observer("", "berestechko"), Observer) and input_size(10, 4, "") == 10


@pytest.mark.parametrize("bad", ["heuristic", None, 1])
def test_unknown_hints_are_refused(bad):
    with pytest.raises(ValueError, match="hint"):
        make_observer(bad, "berestechko")


def test_a_policy_that_copies_the_hint_plays_like_the_scripted_agent():
    """An actor whose logits are its input's advice slots (identity on them) plays the scripted moves."""
    n_obs, n_act = E.obs_layout.size, E.num_actions
    w = np.zeros((n_obs + n_act, n_act), np.float32)
    w[n_obs:] = np.eye(n_act) * 10
    actor = MlpActor([(w, np.zeros(n_act, np.float32))], "relu")
    copier = SnapshotAgent(actor, deterministic=True, seed=5, observer=make_observer("scripted", "berestechko"))
    scripted = make_agent("scripted", "berestechko", 6)  # the same seed the copier's observer gets
    s, dice = E.new_state(None, Dice(9)), Dice(10)
    for _ in range(200):
        if E.is_terminal(s):
            break
        p, mask = E.current_player(s), E.legal_mask(s)
        a = copier.act(E, s, p, mask)
        assert a == scripted.act(E, s, p, mask)
        E.apply(s, a, dice)


def test_selfplay_env_with_a_hint_has_the_wider_observation():
    from training.selfplay import OpponentPool, SelfPlayEnv

    pool = OpponentPool()
    pool.add_baselines("berestechko", ("random",))
    env = SelfPlayEnv("berestechko", pool, hint="scripted", hint_seed=0)
    obs, _ = env.reset(seed=1)
    assert env.observation_space.shape == obs.shape == (E.obs_layout.size + E.num_actions,)
    assert obs[E.obs_layout.size:].sum() == 1 and env.action_masks()[int(np.argmax(obs[E.obs_layout.size:]))]


def test_training_with_a_hint_checkpoints_and_ships_a_policy_that_reads_it(tmp_path):
    pytest.importorskip("sb3_contrib")
    from training.export import export
    from training.train import main

    result = main(["berestechko", "--minutes", "0", "--total-timesteps", "128", "--n-envs", "2", "--n-steps", "64",
                   "--batch-size", "64", "--n-epochs", "1", "--net-arch", "16", "--eval-games", "1", "--out",
                   str(tmp_path / "run"), "--no-progress", "--imitation-games", "4", "--imitation-epochs", "20",
                   "--hint", "scripted", "--baselines", "random"])
    agent = make_agent(f"ckpt:{result.checkpoint}", "berestechko", seed=0)
    assert agent.meta["hint"] == "scripted"
    export(result.checkpoint, tmp_path / "shipped", {}, command="test")
    shipped = P.PretrainedAgent("berestechko", seed=0, directory=tmp_path / "shipped").load(E)
    assert shipped.meta["hint"] == "scripted" and shipped.meta["layers"][0][0] == E.obs_layout.size + E.num_actions
    s = E.new_state(None, Dice(2))
    for _ in range(60):
        p, mask = E.current_player(s), E.legal_mask(s)
        assert mask[agent.act(E, s, p, mask)] and mask[shipped.act(E, s, p, mask)]
        E.apply(s, agent.act(E, s, p, mask), Dice(7))


def test_hints_listed():
    assert HINTS == ("", "scripted", "ties", "scores", "scores-floor")


def test_the_ties_hint_marks_every_tied_best_move():
    """``hint="ties"``: a multi-hot of the scripted agent's tied-best moves, which hold its choice; a decision
    with tied moves (Berestechko's scripted games have them at 15% of their decisions) shows all of them."""
    from agents.berestechko_scripted import BerestechkoScriptedAgent

    observer, agent = make_observer("ties", "berestechko", seed=1), BerestechkoScriptedAgent(5)
    s, dice, seen_tie = E.new_state(None, Dice(11)), Dice(12), False
    for _ in range(120):
        if E.is_terminal(s):
            break
        p, mask = E.current_player(s), E.legal_mask(s)
        marked = np.flatnonzero(observer.observe(E, s, p, mask)[E.obs_layout.size:])
        np.testing.assert_array_equal(marked, agent.ties(E, s, p, mask))
        assert mask[marked].all() and agent.act(E, s, p, mask) in marked
        seen_tie |= marked.size > 1
        E.apply(s, int(marked[-1]), dice)
    assert seen_tie


class _PlainAgent:
    """A scripted agent that only acts: it reports neither ties nor ratings."""

    def __init__(self, seed=None):
        pass

    def act(self, engine, state, player, mask):
        return int(np.flatnonzero(mask)[0])


def test_the_ties_hint_needs_an_agent_that_reports_ties(monkeypatch):
    import agents.scripted
    from training.evaluate import UsageError
    from training.train import TrainArgs, check_args

    monkeypatch.setattr(agents.scripted, "make_scripted_agent", lambda battle, seed=None: _PlainAgent(seed))
    with pytest.raises(ValueError, match="ties"):
        make_observer("ties", "kulikovo")
    with pytest.raises(UsageError, match="--hint ties"):
        check_args(TrainArgs(battle="kulikovo", hint="ties"))


def test_the_scores_hint_rates_every_move_and_its_prior_plays_the_heuristic():
    """``hint="scores"``: each legal move's slot is exp((score - best) / SCORE_TEMPERATURE) (1 for the tied-best,
    0 where illegal); a policy whose network outputs nothing plays softmax of the prior, whose greedy move is
    one of the heuristic's tied-best moves."""
    from agents.berestechko_scripted import BerestechkoScriptedAgent
    from agents.hint import SCORE_TEMPERATURE

    observer, agent = make_observer("scores", "berestechko", seed=1), BerestechkoScriptedAgent(5)
    o, A = E.obs_layout.size, E.num_actions
    zero = MlpActor([(np.zeros((o + A, A), np.float32), np.zeros(A, np.float32))], "tanh", prior=True)
    s, dice, graded = E.new_state(None, Dice(11)), Dice(12), 0
    for _ in range(120):
        if E.is_terminal(s):
            break
        p, mask = E.current_player(s), E.legal_mask(s)
        x = observer.observe(E, s, p, mask)
        slots = x[o:]
        assert (slots[~mask] == 0).all() and slots.max() == pytest.approx(1.0)  # far worse moves round to 0 too
        if mask.sum() > 1:
            scores = agent.scores(E, s, p, mask)
            expected = np.exp((scores[mask] - scores[mask].max()) / SCORE_TEMPERATURE)
            np.testing.assert_allclose(slots[mask], expected, rtol=1e-5, atol=1e-30)
            graded += ((expected > 1e-3) & (expected < 0.999)).any()
        greedy = zero.act(x, mask, True, np.random.default_rng(0))
        assert greedy in agent.ties(E, s, p, mask)
        E.apply(s, greedy, dice)
    assert graded  # some decisions have near-best moves between 0 and 1


def test_kulikovo_rates_its_choice_and_puts_every_other_legal_action_a_fixed_gap_below():
    """Kulikovo's heuristic rates no alternative: its choice rates 0, the other legal actions OFF_CHOICE_GAP
    below, the illegal ones -inf; batched and game by game alike, and the prior's greedy move is the choice."""
    import wargame_envs.vector as vector
    from agents.kulikovo_scripted import OFF_CHOICE_GAP, KulikovoScriptedAgent, scripted_gaps
    from agents.hint import score_slots

    vec = vector.make("kulikovo", 6, seed=2)
    step, rng, agent = vec.reset(), np.random.default_rng(3), KulikovoScriptedAgent(0)
    engine, checked = vec.backend.engine, 0
    for _ in range(40):
        gaps = scripted_gaps(vec.backend, vec.states, np.zeros(step.action_mask.shape), step.action_mask)
        for i in np.flatnonzero(step.action_mask.any(axis=1)):
            mask = step.action_mask[i]
            state = vec.backend.state_view(vec.states[i])
            ties = agent.ties(engine, state, int(step.current_player[i]), mask)
            assert set(np.flatnonzero(gaps[i] == 0.0)) == set(ties)
            others = mask.copy()
            others[ties] = False
            assert (gaps[i][others] == -OFF_CHOICE_GAP).all() and np.isneginf(gaps[i][~mask]).all()
            np.testing.assert_array_equal(agent.gaps(engine, state, int(step.current_player[i]), mask), gaps[i])
            assert int(np.argmax(np.log(np.maximum(score_slots(gaps[i]), 1e-30)))) in ties
            checked += 1
        step = vec.step(vec.random_actions(rng))
    assert checked > 100


def test_the_floored_scores_hint_rates_every_legal_move_batched_and_game_by_game():
    """``hint="scores-floor"``: the ``scores`` slots, with every legal action (Breitenfeld's heuristic leaves most
    unrated: slot 0 under ``scores``) at least exp(-FLOOR_GAP / SCORE_TEMPERATURE); illegal ones stay 0. The
    batched trainer's hint and the game-by-game observer give the same slots, and the prior's greedy move is
    still one of the heuristic's tied-best moves."""
    import wargame_envs.vector as vector
    from agents.hint import FLOOR_GAP, SCORE_TEMPERATURE, prior_logits
    from training.batched import BatchHint

    vec = vector.make("breitenfeld", 6, seed=4)
    floored, plain = BatchHint(vec, "breitenfeld", 0, "scores-floor"), BatchHint(vec, "breitenfeld", 0, "scores")
    observer = make_observer("scores-floor", "breitenfeld", seed=0)
    engine, A = vec.backend.engine, vec.num_actions
    floor = np.float32(np.exp(-FLOOR_GAP / SCORE_TEMPERATURE))
    step, rng, raised = vec.reset(), np.random.default_rng(5), 0
    for _ in range(60):
        floored.actions(step)
        plain.actions(step)
        mask = step.action_mask
        np.testing.assert_allclose(floored.slots, np.where(mask, np.maximum(plain.slots, floor), 0), rtol=1e-6)
        raised += int(((plain.slots == 0) & mask).sum())
        for i in np.flatnonzero(mask.any(axis=1)):
            state = vec.backend.state_view(vec.states[i])
            x = observer.observe(engine, state, int(step.current_player[i]), mask[i])
            np.testing.assert_allclose(x[-A:], floored.slots[i], rtol=1e-6)
            assert plain.slots[i, int(np.argmax(prior_logits(x, A)))] == pytest.approx(1.0)
        step = vec.step(vec.random_actions(rng))
    assert raised > 100  # legal moves the plain ratings leave at 0


def test_the_scores_hint_needs_a_rating_agent_and_the_batched_trainer(monkeypatch):
    import agents.scripted
    from training.evaluate import UsageError
    from training.train import TrainArgs, check_args

    with pytest.raises(UsageError, match="--backend batched"):
        check_args(TrainArgs(battle="berestechko", hint="scores"))
    monkeypatch.setattr(agents.scripted, "make_scripted_agent", lambda battle, seed=None: _PlainAgent(seed))
    with pytest.raises(ValueError, match="gaps"):
        make_observer("scores", "kulikovo")
    with pytest.raises(UsageError, match="--hint scores"):
        check_args(TrainArgs(battle="kulikovo", hint="scores", backend="batched"))
    with pytest.raises(UsageError, match="--hint scores-floor"):
        check_args(TrainArgs(battle="kulikovo", hint="scores-floor", backend="batched"))
