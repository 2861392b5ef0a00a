"""Agents: the Berestechko scripted heuristic, generic MCTS and the agent-spec registry."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from agents.base import RandomAgent
from agents.berestechko_scripted import BerestechkoScriptedAgent, outcome_probs
from agents.mcts import MCTSAgent
from agents.registry import AGENT_SPECS, AgentUnavailableError, make_agent
from race_game import RaceEngine  # race_v0: a second, tiny battle (fixture race_battle in conftest)
from wargames_cli import cli
from wargame_envs.berestechko.state import S
from wargame_envs.core.dice import Dice

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent / "berestechko"))
from bx_helpers import ENGINE, play, start  # noqa: E402

PL, CT = 0, 1


def play_match(engine, agents, seed: int, check=None) -> np.ndarray:
    """Play one game on the engine; every chosen action must be legal. Returns the returns."""
    dice = Dice(seed)
    s = engine.new_state(None, dice)
    while not engine.is_terminal(s):
        p = engine.current_player(s)
        mask = engine.legal_mask(s)
        a = agents[p].act(engine, s, p, mask)
        assert mask[a], f"illegal action {a} ({engine.decision_name(s)})"
        if check:
            check(engine, s, p, a)
        engine.apply(s, a, dice)
    return engine.returns(s)


def wins_per_side(engine, make, games: int, seed0: int) -> list[int]:
    """Wins of the agent ``make(seed)`` on each side against RandomAgent, fixed seeds."""
    wins = [0, 0]
    for side in (0, 1):
        for g in range(games):
            agents = [RandomAgent(seed0 + 500 + g), RandomAgent(seed0 + 500 + g)]
            agents[side] = make(seed0 + g)
            wins[side] += play_match(engine, agents, seed0 + 1000 * side + g)[side] > 0
    return wins


# ------------------------------------------------------------------------ combat arithmetic
def test_outcome_probabilities_of_known_dice():
    # 1d6 fire against R 3 (ranged: no defence dice): CR 1-2 < R, 3 = R, 4-5 in (R, 2R), 6 >= 2R.
    lt, eq, mid, big = outcome_probs(((1, 6),), (), 3)
    assert (lt, eq, mid, big) == pytest.approx((2 / 6, 1 / 6, 2 / 6, 1 / 6))
    # 1d6 against 1d6, R 1: CR < 1 in 21/36, CR = 1 in 5/36, never 1 < CR < 2, CR >= 2 in 10/36.
    assert outcome_probs(((1, 6),), ((1, 6),), 1) == pytest.approx((21 / 36, 5 / 36, 0.0, 10 / 36))


# ------------------------------------------------------------------------ scripted tactics
def test_scripted_concentrates_a_declared_attack_when_it_pays():
    # Nadworna (2d10) attacks Nosach (R6, 1d6) alone: about even. Lianckoroński (2d8) and Hubaldt
    # (2d6) stand next to Nosach; with interaction commands the agent adds them (6.1.1, 8.1.2).
    cmds = {"polish_lithuanian": {"reconnaissance": 0, "interaction": 3},
            "cossack_tatar": {"reconnaissance": 0, "interaction": 0}}
    s, dice = start({"Nadworna": "14", "Hubaldt": "15", "Lianckoroński": "25", "Nosach": "24"},
                    dice=[5, 1, 1], commands=cmds)
    play(s, dice, "die:5", "unit:Nadworna", "hex:14")
    agent = BerestechkoScriptedAgent(0)
    a = agent.act(ENGINE, s, PL, ENGINE.legal_mask(s))
    assert a == ENGINE.grid.index["24"], ENGINE.action_to_str(s, a)  # attack Nosach
    ENGINE.apply(s, a, dice)
    assert ENGINE.decision_name(s) == "add_unit"
    a = agent.act(ENGINE, s, PL, ENGINE.legal_mask(s))
    assert a == ENGINE.grid.index["25"], ENGINE.action_to_str(s, a)  # Lianckoroński's 2d8 first


def test_scripted_defender_retreats_before_a_strong_attack_and_stands_against_a_weak_one():
    strong = {"polish_lithuanian": {"reconnaissance": 0, "interaction": 3},
              "cossack_tatar": {"reconnaissance": 2, "interaction": 0}}
    s, dice = start({"Nadworna": "14", "Hubaldt": "15", "Lianckoroński": "25", "Nosach": "24"},
                    dice=[5, 1, 1], commands=strong)
    play(s, dice, "die:5", "unit:Nadworna", "hex:14", "hex:24")
    assert ENGINE.decision_name(s) == "retreat_before" and int(s.sc[S.DECIDER]) == CT
    a = BerestechkoScriptedAgent(0).act(ENGINE, s, CT, ENGINE.legal_mask(s))
    assert ENGINE.codec.decode(a)[0] == "hex", ENGINE.action_to_str(s, a)  # retreats
    # Lubomirski (2d8) alone, without commands, against an ordered Tatar (R8, 2d6): he will fail.
    weak = {"polish_lithuanian": {"reconnaissance": 0, "interaction": 0},
            "cossack_tatar": {"reconnaissance": 2, "interaction": 0}}
    s, dice = start({"Lubomirski": "14", "Kalga": "24"}, dice=[2, 1, 1], commands=weak)
    play(s, dice, "die:2", "unit:Lubomirski", "hex:14")
    # The scripted attacker itself would not attack at these odds ...
    assert BerestechkoScriptedAgent(0).act(ENGINE, s, PL, ENGINE.legal_mask(s)) == ENGINE.codec.opt("no_combat")
    play(s, dice, "hex:24")
    # ... and the scripted defender stands.
    assert BerestechkoScriptedAgent(0).act(ENGINE, s, CT, ENGINE.legal_mask(s)) == ENGINE.codec.opt("stand")


@pytest.mark.parametrize("destroyed, expected", [((), "continue_battle"), (("Zemska", "Kalinowski"), "end_battle")])
def test_scripted_tatar_decision_ends_the_battle_only_when_ahead(destroyed, expected):
    units = {"Hubaldt": "15", "Kirim Giray": "25", "Hrunka": "55"}
    units.update({name: {"status": "destroyed"} for name in destroyed})
    s, dice = start(units, dice=[4, 1, 1], rolls=[6, 6], tatar_spirit=1)
    play(s, dice, "die:4", "unit:Hubaldt", "hex:15", "hex:25")  # 12 > R8: loss, spirit 0 (9)
    assert ENGINE.decision_name(s) == "tatar_decision"
    a = BerestechkoScriptedAgent(0).act(ENGINE, s, CT, ENGINE.legal_mask(s))
    assert a == ENGINE.codec.opt(expected)


def test_scripted_agent_is_legal_and_deterministic_in_self_play():
    engine = ENGINE
    digests = []
    for _ in range(2):
        dice = Dice(7)
        s = engine.new_state(None, dice)
        agents = [BerestechkoScriptedAgent(1), BerestechkoScriptedAgent(2)]
        while not engine.is_terminal(s):
            p = engine.current_player(s)
            mask = engine.legal_mask(s)
            a = agents[p].act(engine, s, p, mask)
            assert mask[a]
            engine.apply(s, a, dice)
        digests.append(s.digest())
    assert digests[0] == digests[1]


def test_scripted_beats_random_on_both_sides():
    # Measured 200/200 on each side over 200 games; 8 fixed-seed games per side here.
    wins = wins_per_side(ENGINE, BerestechkoScriptedAgent, 8, seed0=40_000)
    assert wins[0] >= 7 and wins[1] >= 7, wins


# ------------------------------------------------------------------------ MCTS
@pytest.mark.parametrize("rollout, decisions", [("random", 30), ("scripted", 6)])
def test_mcts_never_touches_the_game_state_or_its_dice(rollout, decisions):
    dice = Dice(3)
    s = ENGINE.new_state(None, dice)
    agent = MCTSAgent(simulations=8, seed=0, rollout=rollout, rollout_depth=6)
    for _ in range(decisions):
        before, count = s.digest(), dice.count
        mask = ENGINE.legal_mask(s)
        a = agent.act(ENGINE, s, ENGINE.current_player(s), mask)
        assert mask[a] and s.digest() == before and dice.count == count
        ENGINE.apply(s, a, dice)


class _CountingEngine:
    """Wraps an engine and counts the determinizations a search asks for."""

    def __init__(self, engine):
        self._engine, self.sampled = engine, []

    def sample_hidden(self, state, player, rng):
        self.sampled.append(player)
        return self._engine.sample_hidden(state, player, rng)

    def __getattr__(self, name):
        return getattr(self._engine, name)


def test_mcts_determinizes_every_simulation_for_the_deciding_player():
    engine = _CountingEngine(ENGINE)
    s = ENGINE.new_state(None, Dice(1))
    player = ENGINE.current_player(s)
    MCTSAgent(simulations=12, seed=0, rollout_depth=4).act(engine, s, player, ENGINE.legal_mask(s))
    assert engine.sampled == [player] * 12


def test_mcts_is_generic_and_finds_the_only_winning_chance():
    # race_v0: north at column 3, south at column 4 and about to step to the goal. Stepping loses
    # for sure; the dash wins two times in three.
    engine = RaceEngine()
    s = engine.new_state({"position": {"pos": [2, 3]}}, Dice(0))
    agent = MCTSAgent(simulations=60, seed=0)
    assert agent.act(engine, s, 0, engine.legal_mask(s)) == 1


def test_mcts_beats_random_at_berestechko():
    # A small budget (16 simulations, rollouts cut at 6 decisions) on fixed seeds; a larger budget
    # is measured in the evaluation report.
    wins = wins_per_side(ENGINE, lambda seed: MCTSAgent(16, seed=seed, rollout_depth=6), 3, seed0=70_000)
    assert sum(wins) >= 5, wins  # random against random wins half its games on average


# ------------------------------------------------------------------------ registry
def test_registry_builds_every_available_spec():
    assert isinstance(make_agent("random", "berestechko", 1), RandomAgent)
    assert isinstance(make_agent("scripted", "berestechko_v0", 1), BerestechkoScriptedAgent)
    mcts = make_agent("mcts:7", "berestechko", 1)
    assert isinstance(mcts, MCTSAgent) and mcts.simulations == 7
    assert isinstance(make_agent("mcts", "berestechko", 1), MCTSAgent)


@pytest.mark.parametrize("spec", ["alphago", "random:3", "mcts:0", "mcts:x", "mcts:", "ckpt", "ckpt:", "scripted:1", ""])
def test_registry_rejects_bad_specs_naming_spec_and_choices(spec):
    with pytest.raises(ValueError) as err:
        make_agent(spec, "berestechko")
    assert repr(spec) in str(err.value) and all(choice in str(err.value) for choice in AGENT_SPECS)


def test_registry_caps_the_mcts_simulation_count_and_says_the_maximum():
    """Audit finding 12: ``mcts:99999999999999999999`` hung the CLI; the web server's cap is now the registry's."""
    from agents import registry

    for spec in ("mcts:99999999999999999999", "mcts:1001", "mcts:-1"):
        with pytest.raises(ValueError, match=f"{spec!r}: the simulation count .* is not an integer from 1 to 1000;"):
            make_agent(spec, "berestechko")
    assert make_agent(f"mcts:{registry.MAX_MCTS_SIMULATIONS}", "berestechko").simulations == 1000
    games = pytest.importorskip("wargames_web.games")
    assert games.MAX_MCTS_SIMULATIONS is registry.MAX_MCTS_SIMULATIONS


def test_registry_says_what_is_missing(race_battle, monkeypatch):
    with pytest.raises(AgentUnavailableError, match="no scripted agent for race"):
        make_agent("scripted", "race", 0)
    monkeypatch.setitem(sys.modules, "agents.human", None)  # as if the module did not exist
    monkeypatch.setitem(sys.modules, "agents.policy", None)
    with pytest.raises(AgentUnavailableError, match="agent 'human' is not available yet"):
        make_agent("human", "berestechko", 0)
    with pytest.raises(AgentUnavailableError, match="agent 'ckpt:runs/x.pt' is not available yet"):
        make_agent("ckpt:runs/x.pt", "berestechko", 0)
    with pytest.raises(KeyError):
        make_agent("random", "waterloo", 0)


def test_registry_loads_human_and_policy_agents_lazily(monkeypatch):
    class HumanAgent:
        def __init__(self, seed=None):
            self.seed = seed

    class PolicyAgent:
        def __init__(self, path, seed=None, battle=None):
            self.path, self.seed, self.battle = path, seed, battle

    monkeypatch.setitem(sys.modules, "agents.human", types.SimpleNamespace(HumanAgent=HumanAgent))
    monkeypatch.setitem(sys.modules, "agents.policy", types.SimpleNamespace(PolicyAgent=PolicyAgent))
    assert make_agent("human", "berestechko", 4).seed == 4
    policy = make_agent("ckpt:runs/best.pt", "berestechko", 5)
    assert (policy.path, policy.seed, policy.battle) == ("runs/best.pt", 5, "berestechko")


@pytest.mark.parametrize("spec", ["random", "scripted", "mcts:2", "pretrained"])
def test_registry_checks_the_seed_and_names_it(spec):
    """audit 2, finding 11: not numpy's "expected non-negative integer" from deep inside the agent."""
    for bad in (-1, 2.5, "x", True):
        with pytest.raises(ValueError, match=f"seed = {bad!r}: expected a non-negative integer"):
            make_agent(spec, "berestechko", bad)
    assert make_agent(spec, "berestechko", np.int64(3)) is not None and make_agent(spec, "berestechko", None)


def test_cli_resolve_agent_delegates_and_keeps_cli_errors():
    assert isinstance(cli.resolve_agent("mcts:3", "berestechko", 0), MCTSAgent)
    with pytest.raises(cli.CliError, match="bad agent spec 'alphago'"):
        cli.resolve_agent("alphago", "berestechko", 0)
    with pytest.raises(cli.CliError, match="unknown environment 'waterloo'"):
        cli.resolve_agent("random", "waterloo", 0)
