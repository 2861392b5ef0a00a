"""The compiled scripted agent (issue 14) judges as the Python agent it replaced: at every decision recorded in
``tests/data/breitenfeld_scripted_decisions.npz`` (the Python agent's tied-best actions in 30 seeded games, see
``make_breitenfeld_scripted_decisions.py``) it finds the same tied-best actions; its batched entry points agree
with it game by game; it is deterministic for a seed and runs the same as plain Python. (That it still plays the
scripted games of ``golden_breitenfeld.json`` move for move: ``test_breitenfeld_golden.py``.)"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from bf_helpers import adjacent, hexa, piece, start
from bf_helpers import play as apply_actions

from agents.breitenfeld_scripted import (MOVE_STYLE, MOVE_STYLE_BEFORE, BreitenfeldScriptedAgent, MoveStyle,
                                        scripted_actions, scripted_gaps, scripted_ties)
from agents.scripted import batched_scripted
from wargame_envs.breitenfeld import actions as A
from wargame_envs.breitenfeld.batch import BreitenfeldBackend
from wargame_envs.core.dice import Dice
from wargame_envs.core.vector import VectorGame

DATA = Path(__file__).resolve().parents[1] / "data" / "breitenfeld_scripted_decisions.npz"
BACKEND = BreitenfeldBackend()
ENGINE = BACKEND.engine


def recorded():
    """(state buffers, the Python agent's tied-best actions per position)."""
    d = np.load(DATA)
    starts, ties = d["tie_start"], d["ties"]
    return d["states"], [ties[starts[i]:starts[i + 1]].tolist() for i in range(len(starts) - 1)]


STATES, TIES = recorded()


def masks_of(states: np.ndarray) -> np.ndarray:
    return np.stack([ENGINE.legal_mask(ENGINE.state_class(row.copy())) for row in states])


@functools.cache
def recorded_masks() -> np.ndarray:
    return masks_of(STATES)


def test_the_recorded_decisions_cover_every_judgement():
    keys = {ENGINE.decision_key(ENGINE.state_class(row.copy())) for row in STATES}
    assert keys == {"swap", "artillery", "move_select", "move_dest", "combat", "attack", "loss", "leader"}
    assert sum(len(t) > 1 for t in TIES) > 1000   # many with tied options


def test_the_ratings_put_the_tied_best_at_zero():
    """``scripted_gaps`` (the hint "scores"): 0 exactly on the tied-best actions, below 0 on the other legal actions
    the heuristic rates, -inf on the rest; the agent's ``gaps`` agree with the batched call."""
    masks = recorded_masks()[:400]
    gaps = np.zeros(masks.shape)
    scripted_gaps(BACKEND, STATES[:400], gaps, masks)
    agent = BreitenfeldScriptedAgent(0)
    for i, best in enumerate(TIES[:400]):
        assert np.flatnonzero(gaps[i] >= -1e-9).tolist() == best, f"position {i}"
        assert np.isneginf(gaps[i][~masks[i]]).all() and (gaps[i] <= 0).all()
    for i in range(0, 400, 40):
        s = ENGINE.state_class(STATES[i].copy())
        np.testing.assert_array_equal(agent.gaps(ENGINE, s, ENGINE.current_player(s), masks[i]), gaps[i])


def test_the_batched_ties_are_the_python_agents():
    """``scripted_ties`` on every recorded position at once: the Python agent's tied-best set each time."""
    masks = recorded_masks()
    sets = np.zeros(masks.shape, dtype=bool)
    scripted_ties(BACKEND, STATES, sets, masks)
    wrong = [i for i, best in enumerate(TIES) if np.flatnonzero(sets[i]).tolist() != best]
    first = ENGINE.decision_key(ENGINE.state_class(STATES[wrong[0]].copy())) if wrong else None
    assert not wrong, f"{len(wrong)} positions differ, the first at decision {first!r}"


def sample_ties(step: int) -> tuple[list[list[int]], list[list[int]]]:
    """The agent's ``ties`` at every ``step``-th recorded position, and the recorded ones."""
    agent = BreitenfeldScriptedAgent(0)
    got, want = [], []
    for i in range(0, len(STATES), step):
        s = ENGINE.state_class(STATES[i].copy())
        got.append(agent.ties(ENGINE, s, ENGINE.current_player(s), ENGINE.legal_mask(s)).tolist())
        want.append(TIES[i])
    return got, want


def test_the_agents_ties_are_the_python_agents():
    got, want = sample_ties(1)
    assert got == want


def test_scripted_actions_picks_among_the_ties_and_nothing_in_a_finished_game():
    """``scripted_actions`` decides every game of a batch in one call: each choice one of the tied-best actions
    (a lone legal action as is), -1 for a finished game; with masks given or computed."""
    finished = ENGINE.new_state({}, Dice(0))
    agent, dice = BreitenfeldScriptedAgent(0), Dice(0)
    while not ENGINE.is_terminal(finished):
        p = ENGINE.current_player(finished)
        ENGINE.apply(finished, agent.act(ENGINE, finished, p, ENGINE.legal_mask(finished)), dice)
    states = np.concatenate([STATES, finished.buf[None]])
    out = np.zeros(len(states), dtype=np.int64)
    scripted_actions(BACKEND, states, out, rng=np.random.default_rng(0))
    assert all(out[i] in best for i, best in enumerate(TIES))
    assert out[-1] == -1
    again = np.zeros_like(out)
    masks = np.concatenate([recorded_masks(), np.zeros((1, ENGINE.num_actions), dtype=bool)])
    scripted_actions(ENGINE, states, again, masks=masks, rng=np.random.default_rng(1))
    assert all(again[i] in best for i, best in enumerate(TIES)) and again[-1] == -1
    drawn = {(i, a) for i, a in enumerate(out[:-1])} | {(i, a) for i, a in enumerate(again[:-1])}
    assert len(drawn) > len(TIES)        # the draws differ where there are ties
    sets = np.ones(masks.shape, dtype=bool)
    assert not scripted_ties(BACKEND, states, sets, masks)[-1].any()


def test_the_batched_entry_points_are_found_and_read_a_vector_batch():
    """``agents.scripted.batched_scripted`` finds them; on the rows of ``wargame_envs.vector`` games they choose
    among the agent's ties."""
    assert batched_scripted("breitenfeld") is scripted_actions
    assert batched_scripted("breitenfeld_v0", "scripted_ties") is scripted_ties
    vec, rng = VectorGame(BACKEND, 16, seed=3), np.random.default_rng(3)
    step = vec.reset()
    agent, out, sets = BreitenfeldScriptedAgent(0), np.zeros(16, dtype=np.int64), np.zeros((16, vec.num_actions), bool)
    for _ in range(40):
        scripted_actions(BACKEND, vec.states, out, masks=step.action_mask, rng=rng)
        scripted_ties(BACKEND, vec.states, sets, step.action_mask)
        for i in range(16):
            s = BACKEND.state_view(vec.states[i])
            best = agent.ties(ENGINE, s, int(step.current_player[i]), step.action_mask[i])
            assert np.flatnonzero(sets[i]).tolist() == best.tolist() and out[i] in best
        step = vec.step(out)


def play(seeds: tuple[int, int], decisions: int) -> list[int]:
    """The first choices of two seeded agents playing each other."""
    agents, dice = [BreitenfeldScriptedAgent(x) for x in seeds], Dice(7)
    s, out = ENGINE.new_state({}, dice), []
    for _ in range(decisions):
        p = ENGINE.current_player(s)
        out.append(agents[p].act(ENGINE, s, p, ENGINE.legal_mask(s)))
        ENGINE.apply(s, out[-1], dice)
    return out


def test_the_agent_is_deterministic_for_a_seed():
    assert play((1, 2), 300) == play((1, 2), 300)
    assert play((1, 2), 300) != play((3, 4), 300)


def test_reset_restarts_the_draws():
    """Choices at the tied positions recorded: a reset agent draws them again."""
    agent = BreitenfeldScriptedAgent(5)
    tied = [i for i, best in enumerate(TIES) if len(best) > 1][:200]
    states = [ENGINE.state_class(STATES[i].copy()) for i in tied]

    def choices():
        return [agent.act(ENGINE, s, ENGINE.current_player(s), ENGINE.legal_mask(s)) for s in states]

    first = choices()
    agent.reset(5)
    assert choices() == first and all(a in TIES[i] for i, a in zip(tied, first))


def test_a_lone_legal_action_is_taken_and_an_empty_mask_refused():
    agent = BreitenfeldScriptedAgent(0)
    s = ENGINE.state_class(STATES[0].copy())
    mask = np.zeros(ENGINE.num_actions, dtype=bool)
    with pytest.raises(ValueError):
        agent.act(ENGINE, s, 0, mask)
    mask[np.flatnonzero(ENGINE.legal_mask(s))[-1]] = True
    assert agent.act(ENGINE, s, ENGINE.current_player(s), mask) == np.flatnonzero(mask)[0]


def test_the_agent_kernel_runs_the_same_as_plain_python():
    """With numba's JIT disabled the kernels are the same code run as Python, with the same tied-best sets."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    here = os.path.dirname(os.path.abspath(__file__))
    code = ("from test_breitenfeld_scripted import sample_ties; "
            "got, want = sample_ties(40); print(got == want, len(got))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=here)
    assert out.stdout.split() == ["True", str(len(range(0, len(STATES), 40)))]


# ------------------------------------------------------------------ each side's movement style (MOVE_STYLE)
def destination_gaps(units: dict, mover: str, active: str, leader: str, style=MOVE_STYLE,
                     turn: int = 6) -> dict[str, float]:
    """The scripted agent's rating of each destination of ``mover`` (its leader stacked with it, so in command),
    below the best (0 for the tied-best)."""
    home = units[mover]["hex"] if isinstance(units[mover], dict) else units[mover]
    s, d = start(units, leaders={leader: home}, phase="movement", active=active, turn=turn)
    apply_actions(s, d, piece(mover))
    assert ENGINE.decision_key(s) == "move_dest"
    gaps = BreitenfeldScriptedAgent(0, style).gaps(ENGINE, s, ENGINE.current_player(s), ENGINE.legal_mask(s))
    return {ENGINE.grid.ids[a - ENGINE.codec.hex0]: float(gaps[a]) for a in np.flatnonzero(np.isfinite(gaps))
            if a >= ENGINE.codec.hex0}


def destination_ties(units: dict, mover: str, active: str, leader: str, style=MOVE_STYLE, turn: int = 6) -> set[str]:
    """The scripted agent's tied-best destinations for ``mover``."""
    ties = {h for h, gap in destination_gaps(units, mover, active, leader, style, turn).items() if gap >= -1e-9}
    assert ties and str(units[mover]) not in ties     # it moves rather than stays
    return ties


#: Each side's style without the plan of 2026-12-05 (hold, wall, withdraw, pounce, cavalry back): the contact rule
#: and the flank alone.
NO_PLAN = tuple(side._replace(hold=0, wall=False, withdraw=False, pounce=0.0, cav_back=0) for side in MOVE_STYLE)


def next_to(h: str, *others: str) -> int:
    """How many of the hexes ``others`` are next to ``h``."""
    return sum(adjacent(h, o) for o in others)


def test_an_imperial_tercio_does_not_close_in_where_the_obliged_attack_is_against_two_brigades():
    """8.12 / 8.21: a tercio (12) ending next to two brigades (8 + 8) must attack both at 12 against 16. The
    Imperial style adds them up (with a margin of 1.25: 12 may take on one brigade, 8 x 1.25 = 10), so the tercio
    ends next to one of them, in the hex row nearest row 01 among those (the flank). Before, it judged them one at
    a time and closed in next to both as readily."""
    units = {"IC1": "1510", "SC1": "1210", "SC2": "1211"}
    ties = destination_ties(units, "IC1", "imp_center", "tilly", NO_PLAN)
    assert ties and all(next_to(h, "1210", "1211") == 1 for h in ties)
    assert len({h[2:] for h in ties}) == 1           # one hex row: the flank decides between equals
    before = destination_ties(units, "IC1", "imp_center", "tilly", MOVE_STYLE_BEFORE)
    assert any(next_to(h, "1210", "1211") == 2 for h in before)
    assert min(h[2:] for h in before if next_to(h, "1210", "1211") == 1) == next(iter(ties))[2:]
    # the ratings prior (--hint scores) sees the flank too: each row farther from row 01, 0.01 lower
    gaps = destination_gaps(units, "IC1", "imp_center", "tilly", NO_PLAN)
    row = int(next(iter(ties))[2:])
    for h in before:
        if next_to(h, "1210", "1211") == 1:
            assert gaps[h] == pytest.approx(-MOVE_STYLE[1].flank * (int(h[2:]) - row))


def test_an_allied_brigade_still_judges_the_enemies_one_at_a_time():
    """The Allied style (MOVE_STYLE[0]) is the rule of before: a brigade (8) closes in next to two cuirassiers
    (7 each), each no stronger than it, and draws among equal hexes without a flank."""
    units = {"SC1": "1510", "IL1": "1210", "IL2": "1211"}
    ties = destination_ties(units, "SC1", "allied_center", "teuffel")
    assert ties == destination_ties(units, "SC1", "allied_center", "teuffel", NO_PLAN)  # its withdraw: not here
    assert any(next_to(h, "1210", "1211") == 2 for h in ties)
    assert len({h[2:] for h in ties}) > 1
    assert ties == destination_ties(units, "SC1", "allied_center", "teuffel", MOVE_STYLE_BEFORE)


# ------------------------------------------------------------------ the plan (docs/breitenfeld.md, "The scripted agent")
def test_the_imperial_guns_hold_fire_while_the_allies_may_not_move():
    """12.4 releases the Allies when Imperial artillery disrupts one of their units. Before turn 5 (``hold``), while
    the Allies may not move, the Imperial guns hold their fire; from turn 5 they fire at the nearest target, as the
    Allied guns always do."""
    units, arts = {"SC1": "1110", "IC1": "1410", "IC2": "1106"}, {"SA1": "1110", "IA1": "1106"}
    for turn, imperial in ((2, {A.END}), (5, {hexa("1110")})):
        s, d = start(units, artillery=arts, phase="artillery", turn=turn, cup=[])
        allied = BreitenfeldScriptedAgent(0).ties(ENGINE, s, 0, ENGINE.legal_mask(s))
        assert set(allied.tolist()) == {hexa("1410")}
        apply_actions(s, d, hexa("1410"))
        assert ENGINE.current_player(s) == 1
        assert set(BreitenfeldScriptedAgent(0).ties(ENGINE, s, 1, ENGINE.legal_mask(s)).tolist()) == imperial


def distance(h: str, other: str) -> int:
    return int(ENGINE.grid.dist[ENGINE.grid.index[h], ENGINE.grid.index[other]])


def test_the_imperial_wall_stands_and_steps_out_only_at_the_odds_of_its_pounce():
    """``wall``: a tercio (12) three hexes from two brigades (8 each) does not close in: it stands, or takes the
    cover of the hill behind it (1808; cover and flank break the ties). It steps out next to a disrupted brigade;
    next to an undisrupted one only at 3-1 or better (``pounce``), counting the undisrupted friends already next
    to it: with IC2 (12) there, 12 + 12 against 8 x 3."""
    for units in ({"IC1": "1510", "SC1": "1210", "SC2": "1211"}, {"IC1": "1510", "SC1": "1210"}):
        ties = destination_ties(units, "IC1", "imp_center", "tilly")
        assert ties == {"1808"} and distance("1808", "1210") > distance("1510", "1210")
        assert destination_ties(units, "IC1", "imp_center", "tilly", NO_PLAN) != ties   # it closed in
    ties = destination_ties({"IC1": "1510", "SC1": {"hex": "1210", "disrupted": True}}, "IC1", "imp_center",
                            "tilly")
    assert all(next_to(h, "1210") for h in ties)
    ties = destination_ties({"IC1": "1510", "SC1": "1210", "IC2": "1110"}, "IC1", "imp_center", "tilly")
    assert all(next_to(h, "1210") for h in ties)


def test_disrupted_units_next_to_the_enemy_withdraw():
    """``withdraw`` (both sides): a disrupted unit next to an enemy unit moves as far from the enemy as it may
    instead of staying in its zone of control, where it could not be undisrupted (9.2)."""
    units = {"SC1": {"hex": "1210", "disrupted": True}, "IC1": "1310"}
    ties = destination_ties(units, "SC1", "allied_center", "teuffel")
    far = max(distance(h, "1310") for h in ties)
    assert far > 1 and all(distance(h, "1310") == far for h in ties)
    gaps = destination_gaps(units, "SC1", "allied_center", "teuffel", NO_PLAN)
    assert gaps["1210"] == 0                          # before: it stayed


def test_the_imperial_cavalry_draws_back_behind_the_wall_while_the_plan_holds():
    """``cav_back``: on turn 4 the Imperialists may move and the Allies not yet (12.3, 12.4): a cuirassier moves as
    far from the enemy as it may, to the rear edge (column 23). From turn 5 the wall keeps it from closing in: it
    takes the cover of the hill next to it."""
    units = {"IR1": "1802", "SC1": "1402"}
    assert destination_ties(units, "IR1", "imp_right", "furstenberg", turn=4) == {"2301"}
    ties = destination_ties(units, "IR1", "imp_right", "furstenberg")
    assert ties == {"1804", "1904"} and all(distance(h, "1402") >= distance("1802", "1402") for h in ties)


def test_a_move_style_must_give_each_side_a_positive_margin():
    with pytest.raises(ValueError, match="MoveStyle per side"):
        BreitenfeldScriptedAgent(0, (MOVE_STYLE[0],))
    with pytest.raises(ValueError, match="margins above 0"):
        BreitenfeldScriptedAgent(0, (MOVE_STYLE[0], MoveStyle(True, 0.0, 0.0)))
    with pytest.raises(ValueError, match="flanks from 0"):      # it would outweigh the cover bonus
        BreitenfeldScriptedAgent(0, (MOVE_STYLE[0], MoveStyle(True, 1.25, 0.012)))
