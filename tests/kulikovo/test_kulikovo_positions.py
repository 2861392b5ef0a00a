"""Positions and reset options (issue 11 items 9, 12, 14; issue 12 items 1, 2, 4): checked loading, the
hidden Dmitri choice of 13.4, positions at every decision, the state summary."""

import copy
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from kulikovo_testlib import A, engine, leader, unit

from wargame_envs.core.dice import Dice, ScriptedDice
from wargame_envs.core.errors import ScenarioError
from wargame_envs.kulikovo.state import DECISION_NAMES, G_SP


def start_position():
    eng = engine()
    return eng.to_position(eng.new_state({}, Dice(0)))


# ----------------------------------------------------------------- issue 12 item 1: memory safety
def test_out_of_range_internal_values_give_a_clean_error_in_a_subprocess():
    """Out-of-range array values once made the compiled observation kernel write outside its array
    (signal 11). Each case runs in its own interpreter: a crash shows as a negative return code."""
    cases = [("u_hex", 0, 1_000_000), ("u_face", 3, 99), ("l_hex", 0, -5), ("std_hex", 1, 972),
             ("u_status", 0, 7), ("hex_unit", 10, 500)]
    script = """
import sys
from wargame_envs.core.dice import Dice
from wargame_envs.core.errors import ScenarioError
from wargame_envs.kulikovo.rules import KulikovoEngine
eng = KulikovoEngine()
for name, i, v in {cases!r}:
    pos = eng.to_position(eng.new_state({{}}, Dice(0)))
    pos["internal"][name][i] = v
    try:
        s = eng.new_state({{"position": pos}}, Dice(0))
        eng.observe(s, 0), eng.observe(s, 1)
    except ScenarioError as exc:
        print("refused", name, exc)
        continue
    print("accepted", name)
    sys.exit(3)
""".format(cases=cases)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-2000:])
    lines = r.stdout.strip().splitlines()
    assert len(lines) == len(cases)
    for (name, i, v), line in zip(cases, lines):
        assert line.startswith(f"refused {name} position: field 'internal.{name}[{i}]' = {v}"), line


# ----------------------------------------------------------------- issue 12 item 2: malformed positions
def _internal(edit, readable=True):
    def make():
        pos = start_position()
        edit(pos["internal"])
        return pos if readable else {"internal": pos["internal"]}
    return make


def _mid_game_internal(edit):
    """A position after 60 random decisions of seed 5 (an automatic task at the bottom of its stack), edited."""
    def make():
        eng = engine()
        d = Dice(5)
        s = eng.new_state({}, d)
        rng = np.random.default_rng(5)
        for _ in range(60):
            eng.apply(s, int(rng.choice(eng.legal_actions(s))), d)
        pos = eng.to_position(s)
        edit(pos["internal"])
        return {"internal": pos["internal"]}
    return make


def _readable(**fields):
    def make():
        pos = {"units": [unit("R01", "3309")], "to_move": {"player": "russian"}}
        pos.update(copy.deepcopy(fields))
        return pos
    return make


MALFORMED = [
    # (case, position maker, field named, value named)
    ("not a dict", lambda: [1, 2], "<position>", "[1, 2]"),
    ("unknown top field", lambda: {**start_position(), "colour": "red"}, "<position>.colour", "'red'"),
    ("wrong format", lambda: {**start_position(), "format": "chess/1"}, "format", "'chess/1'"),
    ("hex as a list", _readable(units=[{"id": "R01", "hex": ["33", "09"]}]), "units[0].hex", "['33', '09']"),
    ("hex off the map", _readable(units=[unit("R01", "9999")]), "units[0].hex", "'9999'"),
    ("unknown unit id", _readable(units=[unit("R77", "3309")]), "units[0].id", "'R77'"),
    ("unit listed twice", _readable(units=[unit("R01", "3309"), unit("R01", "3310")]), "units[1].id", "'R01'"),
    ("two units in a hex (8.0)", _readable(units=[unit("R01", "3309"), unit("R02", "3309")]), "units[1].hex", "'3309'"),
    ("unknown unit field", _readable(units=[{"id": "R01", "hex": "3309", "strength": 3}]), "units[0].strength", "3"),
    ("negative facing", _readable(units=[unit("R01", "3309", facing=-1)]), "units[0].facing", "-1"),
    ("facing as text", _readable(units=[unit("R01", "3309", facing="E")]), "units[0].facing", "'E'"),
    ("bad status", _readable(units=[unit("R01", "3309", status="tired")]), "units[0].status", "'tired'"),
    ("eliminated unit with a hex", _readable(units=[unit("R01", "3309", status="eliminated")]), "units[0].hex", "'3309'"),
    ("hidden non-ambush unit", _readable(units=[{"id": "R01", "status": "hidden"}]), "units[0].status", "'hidden'"),
    ("negative flight points", _readable(flight_points={"russian": -3}), "flight_points.russian", "-3"),
    ("unknown side in flight points", _readable(flight_points={"tatar": 3}), "flight_points.tatar", "3"),
    ("negative activations", _readable(activations=-1), "activations", "-1"),
    ("bool option as text", _readable(false_dmitri="false"), "false_dmitri", "'false'"),
    ("unknown leader", _readable(leaders=[leader("Napoleon", "3309")]), "leaders[0].name", "'Napoleon'"),
    ("negative rating", _readable(leaders=[leader("Rostovski", "3309", rating=-2)]), "leaders[0].rating", "-2"),
    ("False Dmitri without the rule", _readable(leaders=[leader("False Dmitri", "3309")]), "leaders[0].name", "'False Dmitri'"),
    ("two real Dmitris", _readable(false_dmitri=True, leaders=[leader("Dmitri", "3309"), leader("False Dmitri", "3012", real=True)]),
     "leaders.real", "['Dmitri', 'False Dmitri']"),
    ("leader in play off the map", _readable(leaders=[leader("Rostovski", None)]), "units", "leader Rostovski in play but off the map"),
    ("Standard hex as a number", _readable(standards={"russian": {"hex": 3012}}), "standards.russian.hex", "3012"),
    ("ambush hexes repeated", _readable(ambush={"hexes": ["2401"] * 6}), "ambush.hexes", "['2401'"),
    ("to_move unknown player", _readable(to_move={"player": "tatar"}), "to_move.player", "'tatar'"),
    ("to_move enemy command", _readable(to_move={"player": "russian", "activate": "Guards"}), "to_move.activate", "'Guards'"),
    ("internal missing array", _internal(lambda i: i.pop("u_face")), "internal.u_face", "None"),
    ("internal unknown array", _internal(lambda i: i.update(extra=[1])), "internal.extra", "[1]"),
    ("internal wrong shape", _internal(lambda i: i.update(fp=[0])), "internal.fp", "[0]"),
    ("internal floats", _internal(lambda i: i.update(fp=[0.5, 1.0])), "internal.fp", "[0.5, 1.0]"),
    ("internal negative flight points", _internal(lambda i: i["fp"].__setitem__(0, -4)), "internal.fp[0]", "-4"),
    ("internal unknown flag bits", _internal(lambda i: i["u_flags"].__setitem__(2, 1 << 29)), "internal.u_flags[2]", str(1 << 29)),
    ("internal unknown task kind", _internal(lambda i: i["stack"][i["g"][G_SP] - 1].__setitem__(0, 33)),
     "internal.stack[", "33"),
    ("internal task argument off the map", _internal(lambda i: i["stack"][i["g"][G_SP] - 1].__setitem__(3, 5000)),
     "internal.stack[", "5000"),
    ("internal stacking against 8.0", _internal(lambda i: i["u_hex"].__setitem__(1, i["u_hex"][0]), readable=False),
     "internal", "stacking"),
    ("internal value beyond int32", _internal(lambda i: i["fp"].__setitem__(0, 2 ** 40)), "internal.fp[0]", str(2 ** 40)),
    ("readable field contradicts internal", lambda: {**start_position(), "activations": 12}, "activations", "12"),
    ("readable field of another type beside internal", lambda: {**start_position(), "false_dmitri": []},
     "false_dmitri", "[]"),
    ("unit id as a list", _readable(units=[{"id": [], "hex": "3309"}]), "units[0].id", "[]"),
    ("unit id as a table", _readable(units=[{"id": {}, "hex": "3309"}]), "units[0].id", "{}"),
    ("no units field", lambda: {"to_move": {"player": "russian"}}, "units", "None"),
    ("an empty position", lambda: {}, "units", "None"),
    ("no units listed", _readable(units=[]), "units", "[]"),
    # 17: D_RESOLVE_PICK, a decision with no argument and here no option (a kind whose argument must name something
    # is refused for the -1 there first: test_a_stack_argument_the_rules_read_as_an_index_is_checked)
    ("internal automatic task the rules cannot go on from",
     _mid_game_internal(lambda i: i["stack"][0].__setitem__(0, 17)), "internal.stack", "empty task stack"),
]


@pytest.mark.parametrize("case,make,field,value", MALFORMED, ids=[c[0] for c in MALFORMED])
def test_malformed_position_names_field_and_value(case, make, field, value):
    with pytest.raises(ScenarioError) as exc:
        engine().new_state({"position": make()}, Dice(0))
    msg = str(exc.value)
    assert f"field '{field}" in msg and value in msg, msg


def test_position_of_a_new_game_round_trips_through_json():
    eng = engine()
    s = eng.new_state({"false_dmitri": True}, Dice(3))
    pos = json.loads(json.dumps(eng.to_position(s)))
    assert eng.new_state({"position": pos}, Dice(0)) == s


# ----------------------------------------------------------------- issue 12 item 4: options
@pytest.mark.parametrize("options,field", [
    ({"false_dmitri": "false"}, "false_dmitri"), ({"false_dmitri": 1}, "false_dmitri"),
    ({"setup": "random"}, "setup"), ({"max_activations": -1}, "max_activations"),
    ({"max_activations": True}, "max_activations"), ({"max_activations": 1.5}, "max_activations"),
    ({"max_activations": 2 ** 31}, "max_activations"), ({"max_activations": 10 ** 30}, "max_activations"),
])
def test_options_are_type_checked(options, field):
    with pytest.raises(ScenarioError, match=f"options: field '{field}'"):
        engine().new_state(options, Dice(0))


def test_unknown_option_warns_and_is_ignored():
    eng = engine()
    with pytest.warns(UserWarning, match="unknown kulikovo option.*'colour'"):
        s = eng.new_state({"colour": "red"}, Dice(0))
    assert s == eng.new_state({}, Dice(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eng.new_state({"setup": "historical", "false_dmitri": False, "max_activations": 10}, Dice(0))


def test_max_activations_option_overrides_the_position():
    eng = engine()
    pos = eng.to_position(eng.new_state({"max_activations": 40}, Dice(0)))
    assert eng.to_position(eng.new_state({"position": pos}, Dice(0)))["max_activations"] == 40
    assert eng.to_position(eng.new_state({"position": pos, "max_activations": 7}, Dice(0)))["max_activations"] == 7


# ----------------------------------------------------------------- issue 11 item 9: 13.4 hidden choice
def _dmitris(eng):
    names = [l["name"] for l in eng.sc.leaders]
    return names.index("Dmitri"), names.index("False Dmitri")


def test_13_4_russian_chooses_which_dmitri_stands_with_the_standard():
    eng = engine()
    real, false = _dmitris(eng)
    states = {}
    for with_std in ("Dmitri", "False Dmitri"):
        d = ScriptedDice([7, 2])
        s = eng.new_state({"false_dmitri": True}, d)
        assert eng.decision_name(s) == "setup: Dmitri counter with the Standard" and eng.current_player(s) == 0
        assert set(eng.legal_actions(s)) == {A("LEADER", "Dmitri"), A("LEADER", "False Dmitri")}
        assert not eng.legal_mask(s)[A("LEADER", "Dmitri") + 2]
        eng.apply(s, A("LEADER", with_std), d)
        assert eng.decision_name(s) == "free activation"
        hexes = {l["name"]: l["hex"] for l in eng.to_position(s)["leaders"]}
        other = ({"Dmitri", "False Dmitri"} - {with_std}).pop()
        assert hexes[with_std] == "3012" and hexes[other] == "3912"  # the Standard's hex; oob.toml's
        assert s.l_flags[real] & 4 and not s.l_flags[false] & 4  # the "Dmitri" counter stays the real one
        states[with_std] = s
    a, b = states.values()
    assert np.array_equal(eng.observe(a, 1), eng.observe(b, 1))  # the Mongol cannot tell


def test_13_4_mongol_observation_same_during_the_hidden_choice():
    eng = engine()
    s = eng.new_state({"false_dmitri": True}, Dice(0))
    obs = eng.observe(s, 1)
    lay = eng.obs_layout.unflatten(obs)
    assert lay["legal_hex"].sum() == 0 and lay["to_decide"][0] == 0
    assert lay["enemy_leader_in_play"][:2].tolist() == [1.0, 1.0]


def test_13_4_free_setup_order_of_placement_does_not_reveal_the_real_dmitri():
    eng = engine()
    seen = []
    for with_std in ("Dmitri", "False Dmitri"):
        d = Dice(5)
        s = eng.new_state({"setup": "free", "false_dmitri": True}, d)
        trace = []
        while eng.decision_name(s).startswith("setup"):
            if eng.decision_name(s) == "setup: Dmitri counter with the Standard":
                a = A("LEADER", with_std)
            else:
                a = eng.legal_actions(s)[0]
            eng.apply(s, a, d)
            trace.append(eng.observe(s, 1).tobytes())
        real_hex = eng.to_position(s)["leaders"][_dmitris(eng)[0]]["hex"]
        assert (real_hex == "3012") == (with_std == "Dmitri")
        seen.append(trace)
    assert seen[0] == seen[1]  # every Mongol observation along the set-up is the same


def test_13_4_a_position_fixes_the_real_dmitri():
    eng = engine()
    pos = {"false_dmitri": True, "units": [unit("R01", "3309"), unit("M01", "5020")],
           "leaders": [leader("Dmitri", "3309", real=False), leader("False Dmitri", "3012", real=True),
                       leader(eng.sc.leaders[eng.side_leaders[1][0]]["name"], "5020")], "max_activations": 0}
    s = eng.new_state({"position": pos}, Dice(0))
    real, false = _dmitris(eng)
    assert s.l_flags[false] & 4 and not s.l_flags[real] & 4
    assert eng.to_position(s)["leaders"][false]["real"] is True


def test_13_4_the_random_agent_draws_either_counter():
    from wargame_envs.kulikovo import raw_env
    picks = set()
    for seed in range(12):
        e = raw_env(options={"false_dmitri": True})
        e.reset(seed=seed)
        mask = e.observe("russian")["action_mask"]
        rng = np.random.default_rng(seed)
        e.step(int(rng.choice(np.flatnonzero(mask))))
        picks.add(e.position()["leaders"][0]["hex"])
    assert picks == {"3012", "3912"}


# ----------------------------------------------------------------- issue 11 item 12: any decision
def _same_decision(e1, s1, e2, s2):
    assert s1.digest() == s2.digest()
    assert np.array_equal(e1.legal_mask(s1), e2.legal_mask(s2))
    for p in (0, 1):
        assert np.array_equal(e1.observe(s1, p), e2.observe(s2, p))


@pytest.mark.parametrize("seed,options", [(0, {"false_dmitri": True}), (1, {"setup": "free", "false_dmitri": True}),
                                          (2, {}), (3, {"ambush_hexes": ["5727", "5627", "5527", "5427", "5327", "5227"]})])
def test_position_at_every_decision_restores_exactly(seed, options):
    from wargame_envs.kulikovo.rules import KulikovoEngine
    eng, fresh = engine(), KulikovoEngine()
    d = Dice(seed)
    s = eng.new_state({**options, "max_activations": 25}, d)
    rng = np.random.default_rng(seed)
    kinds = set()
    while not (eng.is_terminal(s) or eng.is_truncated(s)):
        kinds.add(eng.decision_name(s))
        pos = json.loads(json.dumps(eng.to_position(s)))
        s2 = fresh.new_state({"position": pos}, Dice(0))
        _same_decision(eng, s, fresh, s2)
        a, b = s.clone(), s2
        da, db = Dice(1000 + seed), Dice(1000 + seed)
        for _ in range(3):  # continuation under identical dice
            if eng.is_terminal(a) or eng.is_truncated(a):
                break
            act = int(rng.choice(eng.legal_actions(a)))
            eng.apply(a, act, da)
            fresh.apply(b, act, db)
            assert a.digest() == b.digest()
        la = eng.legal_actions(s)
        eng.apply(s, la[rng.integers(len(la))], d)
    assert len(kinds) >= 8, kinds


def test_reset_with_a_mid_game_position_through_the_env():
    from wargame_envs.kulikovo import raw_env
    e = raw_env(options={"false_dmitri": True, "max_activations": 20})
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(60):
        la = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(la[rng.integers(la.size)]))
    pos = e.position()
    e2 = raw_env()
    e2.reset(seed=9, options={"position": pos})
    assert e2.game_state == e.game_state and e2.agent_selection == e.agent_selection
    for agent in e.agents:
        assert np.array_equal(e.observe(agent)["observation"], e2.observe(agent)["observation"])


# ----------------------------------------------------------------- issue 11 item 14: summary
def test_summary_is_plain_json_and_matches_the_state():
    eng = engine()
    d = Dice(6)
    s = eng.new_state({"false_dmitri": True, "max_activations": 30}, d)
    rng = np.random.default_rng(6)
    for _ in range(80):
        if eng.is_terminal(s) or eng.is_truncated(s):
            break
        la = eng.legal_actions(s)
        eng.apply(s, la[rng.integers(len(la))], d)
    summ = eng.summary(s)
    assert json.loads(json.dumps(summ)) == summ
    pos = eng.to_position(s)
    assert summ["battle"] == "kulikovo_v0" and summ["decision"] == eng.decision_name(s)
    assert summ["to_move"] == (eng.agents[eng.current_player(s)] if eng.current_player(s) >= 0 else None)
    assert summ["activations"] == pos["activations"] and summ["max_activations"] == 30
    fp = eng.both_flight_points(s)
    assert summ["flight_points"] == {"russian": fp[0], "mongol": fp[1]}
    assert [(u["id"], u["hex"], u["status"], u["facing"]) for u in summ["units"]] == \
        [(u["id"], u["hex"], u["status"], u["facing"]) for u in pos["units"]]
    assert {u["side"] for u in summ["units"]} == {"russian", "mongol"}
    assert [(l["name"], l["hex"], l["state"]) for l in summ["leaders"]] == [(l["name"], l["hex"], l["state"]) for l in pos["leaders"]]
    assert summ["standards"] == pos["standards"] and summ["false_dmitri"] == pos["false_dmitri"]
    assert eng.summary(s) == summ  # read only


def test_a_finished_game_is_no_start_position_for_the_engine():
    """A game cut by its activation limit, given back as a start position: refused by the engine itself (the env,
    vector and self-play resets refuse it through core.engine.refuse_finished too)."""
    eng = engine()
    dice, rng = Dice(4), np.random.default_rng(4)
    s = eng.new_state({"max_activations": 3}, dice)
    while not (eng.is_terminal(s) or eng.is_truncated(s)):
        legal = eng.legal_actions(s)
        eng.apply(s, legal[rng.integers(len(legal))], dice)
    with pytest.raises(ScenarioError, match="finished game"):
        eng.new_state({"position": eng.to_position(s)}, Dice(0))


def test_a_step_the_rules_cannot_take_from_a_hand_made_stack_is_named_and_leaves_the_game_as_it_was():
    """A task kind no rule puts at the bottom of the stack gets through reset (the stack is only read when the
    game unwinds to it); the step that reaches it raises a ScenarioError and the game is left as it was."""
    import wargame_envs as W
    env = W.make("kulikovo")
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(60):
        env.step(int(rng.choice(env.legal_actions())))
    pos = copy.deepcopy(env.unwrapped.position())
    assert pos["internal"]["stack"][0][:2] == [4, 1]  # the Mongol's free activation, alone on the stack
    # 15: D_SHOCK_SELECT, of a Mongol command (its -1 of the free activation is refused at reset: audit 8, finding 7)
    pos["internal"]["stack"][0][0] = 15
    pos["internal"]["stack"][0][2] = env.unwrapped.engine.cmd_player.index(1)
    env.reset(seed=1, options={"position": pos})
    failed = False
    for _ in range(400):
        before = copy.deepcopy(env.unwrapped.position())
        try:
            env.step(int(rng.choice(env.legal_actions())))
        except ScenarioError as exc:
            assert "task stack" in str(exc)
            assert env.unwrapped.position() == before and env.legal_actions()
            failed = True
            break
    assert failed


def _position_at(seed: int, decisions: int) -> dict:
    eng = engine()
    d = Dice(seed)
    s = eng.new_state({}, d)
    rng = np.random.default_rng(0)
    for _ in range(decisions):
        eng.apply(s, int(rng.choice(eng.legal_actions(s))), d)
    return json.loads(json.dumps(eng.to_position(s)))


def test_a_stack_argument_the_rules_read_as_an_index_is_checked():
    """audit 8, finding 7: a task argument the rules index with may not be -1 (the compiled rules would read the
    last unit: the audit's position then broke hex_unit on its first step) nor out of its range, on top of the
    stack or below it; a flag is 0 or 1. Positions the engine writes, with their -1s for "none", still load
    (test_position_at_every_decision_restores_exactly)."""
    from wargame_envs.kulikovo.state import A_END_ACT, D_UNIT_ACT
    eng = engine()
    pos = _position_at(5, 11)  # the audit's position: move/fire of a unit, an activation's tasks below it
    stack = pos["internal"]["stack"]
    top = pos["internal"]["g"][G_SP] - 1
    assert stack[top][0] == D_UNIT_ACT and stack[top][2] >= 0 and stack[0][0] == A_END_ACT
    eng.new_state({"position": copy.deepcopy(pos)}, Dice(0))  # unedited: loads
    cases = [
        (top, 2, -1, f"expected a unit 0..{eng.U - 1}; a task of kind 9 ('move/fire: unit action') needs one here, "
                     "not -1"),
        (top, 2, eng.U, f"expected a unit 0..{eng.U - 1}"),
        (0, 2, -1, f"expected a command 0..{eng.NC - 1}; a task of kind {A_END_ACT} needs one here, not -1"),
        (0, 3, 2, "expected a flag 0..1"),
    ]
    for row, arg, bad, why in cases:
        edited = copy.deepcopy(pos)
        edited["internal"]["stack"][row][arg] = bad
        with pytest.raises(ScenarioError) as exc:
            eng.new_state({"position": edited}, Dice(0))
        assert f"field 'internal.stack[{row}][{arg}]' = {bad}: {why}" in str(exc.value)


def test_a_position_at_the_pick_of_the_unit_that_advances_loads():
    """Found with audit 8, finding 7: D_ADV_PICK carries its flag (F_ADV 8192 or F_CA 16384), which the check of
    every argument against -1..N-1 refused: a position the engine wrote at that decision did not load."""
    from agents.kulikovo_scripted import KulikovoScriptedAgent
    from wargame_envs.kulikovo.state import D_ADV_PICK, F_CA
    eng = engine()
    agents = [KulikovoScriptedAgent(seed=11), KulikovoScriptedAgent(seed=111)]
    d = Dice(11)
    s = eng.new_state({}, d)
    while eng.top(s)[0] != D_ADV_PICK:
        p = eng.current_player(s)
        eng.apply(s, agents[p].act(eng, s, p, eng.legal_mask(s)), d)
    pos = json.loads(json.dumps(eng.to_position(s)))
    top = pos["internal"]["g"][G_SP] - 1
    assert pos["internal"]["stack"][top][3] == F_CA
    s2 = engine().new_state({"position": pos}, Dice(0))
    assert s2.digest() == s.digest() and np.array_equal(eng.legal_mask(s2), eng.legal_mask(s))
    pos["internal"]["stack"][top][3] = 5
    with pytest.raises(ScenarioError, match=rf"'internal.stack\[{top}\]\[3\]' = 5: expected a flag, one of"):
        eng.new_state({"position": pos}, Dice(0))


def test_an_edited_data_file_is_read_again(tmp_path):
    """The data of a folder is cached only until one of its files changes (core.scenario.load_cached)."""
    import shutil

    from wargame_envs.kulikovo.data import DATA_DIR
    from wargame_envs.kulikovo.rules.engine import KulikovoEngine
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    KulikovoEngine(data_dir=d)
    p = d / "oob.toml"
    text = p.read_text()
    first = text.index('hex = "') + len('hex = "')
    p.write_text(text[:first] + "9999" + text[first + 4:])  # the same size, within the same second
    with pytest.raises(ScenarioError, match="9999"):
        KulikovoEngine(data_dir=d)


def test_action_to_str_names_an_action_that_is_no_index():
    eng = engine()
    s = eng.new_state({}, Dice(0))
    with pytest.raises(ValueError, match="'x'"):
        eng.action_to_str(s, "x")
    with pytest.raises(ValueError, match="out of range"):
        eng.action_to_str(s, eng.num_actions)
