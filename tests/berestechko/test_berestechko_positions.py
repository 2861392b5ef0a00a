"""Positions at any decision (issue 11 item 12, issue 12 item 7), their validation (issue 12 items 1-2),
decided positions (issue 11 item 3, C29), the reset options (issue 12 item 4) and the state summary
(issue 11 item 14)."""

import copy
import json

import numpy as np
import pytest
from bx_helpers import CT, ENGINE, PL, decision, play, start, unit

from wargame_envs.berestechko.state import DESTROYED, PHASE_NAMES, S
from wargame_envs.core import Dice, ScenarioError


# ------------------------------------------------------------------ round trip at every decision
def _same(a, b, where: str) -> None:
    assert a.digest() == b.digest(), f"{where}: state differs at {np.flatnonzero(a.buf != b.buf).tolist()}"
    assert (ENGINE.legal_mask(a) == ENGINE.legal_mask(b)).all(), f"{where}: mask differs"
    for p in (PL, CT):
        assert np.array_equal(ENGINE.observe(a, p), ENGINE.observe(b, p)), f"{where}: observation of {p} differs"


@pytest.mark.parametrize("variant", [False, True])
def test_position_round_trip_at_every_decision_continues_identically(variant):
    """At every decision of seeded random games: the position (through JSON) rebuilds the same state,
    mask and observations of both players, and the next step under the same dice stays identical."""
    seen = set()
    for seed in range(15):
        dice, rng = Dice(seed), np.random.default_rng(seed)
        s = ENGINE.new_state({"variant": variant}, dice)
        step = 0
        while not ENGINE.is_terminal(s):
            where = f"seed {seed} step {step} ({ENGINE.decision_name(s)})"
            pos = ENGINE.to_position(s)
            assert json.loads(json.dumps(pos)) == pos
            seen.add(pos["decision"])
            again = ENGINE.new_state({"position": pos}, Dice(12345))  # the throw is in the position: no roll
            _same(s, again, where)
            assert ENGINE.to_position(again) == pos, where
            action = int(rng.choice(np.flatnonzero(ENGINE.legal_mask(s))))
            ahead = ENGINE.clone(s)
            ENGINE.apply(ahead, action, copy.deepcopy(dice))
            ENGINE.apply(again, action, copy.deepcopy(dice))
            _same(ahead, again, where + " then one step")
            ENGINE.apply(s, action, dice)
            step += 1
    if not variant:  # every decision kind was met (game_over is no decision)
        assert seen == set(PHASE_NAMES) - {"game_over"}, sorted(set(PHASE_NAMES) - seen)


def test_position_taken_mid_combat_restarts_the_env_there():
    from wargame_envs import berestechko_v0

    env = berestechko_v0.env()
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while env.unwrapped.engine.decision_name(env.unwrapped.game_state) != "retreat":
        obs, _, term, _, _ = env.last()
        assert not term, "seed 3 no longer reaches a retreat: pick another seed"
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    pos, agent = env.unwrapped.position(), env.agent_selection
    obs = env.observe(agent)
    other = berestechko_v0.env()
    other.reset(seed=99, options={"position": pos})
    assert other.agent_selection == agent and other.unwrapped.position() == pos
    again = other.observe(agent)
    assert np.array_equal(obs["observation"], again["observation"])
    assert np.array_equal(obs["action_mask"], again["action_mask"])


def test_position_carries_the_combat_result_that_the_observation_shows():
    # Issue 12.7: CR 8 vs R 6 -> loss_or_retreat; the combat margin feature must survive the round trip.
    s, dice = start({"Zemska": "22", "Hrunka": "32", "Kalga": "55"}, dice=[5, 1, 1], rolls=[4, 4, 1, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    pos = ENGINE.to_position(s)
    assert pos["decision"] == "loss_or_retreat" and pos["combat"]["result"] == 8
    margin = ENGINE.obs_layout.slices["combat_margin"]
    again = ENGINE.new_state({"position": pos}, Dice(0))
    assert ENGINE.observe(again, PL)[margin] == ENGINE.observe(s, PL)[margin] > 0.5
    assert again == s


# ------------------------------------------------------------------ malformed positions
def _base() -> dict:
    """A valid position at a pending loss-or-retreat choice (Zemska's CR 8 against Hrunka's R 6)."""
    return {
        "round": 1, "active": "polish_lithuanian", "throws": 3,
        "units": {"Zemska": {"hex": "22"}, "Hrunka": {"hex": "32"}, "Kalga": {"hex": "55"}, "Bohun": {"hex": "62"},
                  "Wagon (Bohun)": {"hex": "62"}, "Wolff": {"hex": "13", "activations": 1}},
        "commands": {"polish_lithuanian": {"reconnaissance": 0, "interaction": 1},
                     "cossack_tatar": {"reconnaissance": 0, "interaction": 0}},
        "tatar_spirit": 3, "dice": [5, 1, 1], "dice_used": [True, False, False],
        "decision": "loss_or_retreat", "die_in_use": 0, "activation": {"unit": "Zemska", "with_wagon": False},
        "combat": {"target": "Hrunka", "attackers": ["Zemska"], "artillery": {"attacker": False, "defender": False},
                   "result": 8, "vacated": "32", "chooser": "polish_lithuanian"},
    }


def test_the_base_of_the_malformed_table_is_the_position_play_reaches():
    s, dice = start({"Zemska": "22", "Hrunka": "32", "Kalga": "55", "Bohun": "62", "Wagon (Bohun)": "62",
                     "Wolff": {"hex": "13", "activations": 1}}, dice=[5, 1, 1], rolls=[4, 4, 1, 1],
                    commands={"polish_lithuanian": {"reconnaissance": 0, "interaction": 1},
                              "cossack_tatar": {"reconnaissance": 0, "interaction": 0}}, throws=3)
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert ENGINE.new_state({"position": _base()}, Dice(0)) == s


def _set(path, value):
    def mutate(p):
        *head, last = path
        for k in head:
            p = p[k]
        p[last] = value
    return mutate


def _drop(path):
    def mutate(p):
        *head, last = path
        for k in head:
            p = p[k]
        del p[last]
    return mutate


def _at_choose_die(p):
    for k in ("decision", "die_in_use", "activation", "combat"):
        del p[k]
    p["dice_used"] = [False, False, False]


MALFORMED = [
    # top level
    (_set(("colour",), "red"), "colour", "unknown field"),
    (_set(("winner",), "cossack_tatar"), "winner", "finished game"),
    (_set(("decision",), "game_over"), "decision", "finished game"),
    (_set(("round",), 3), "round", "1..2"),
    (_set(("round",), 0), "round", None),
    (_set(("round",), "1"), "round", None),
    (_set(("round",), True), "round", None),
    (_set(("round",), 1.0), "round", None),
    (_set(("active",), "prussia"), "active", None),
    (_set(("active",), ["polish_lithuanian"]), "active", None),
    (_set(("throws",), -1), "throws", None),
    (_set(("throws",), "3"), "throws", None),
    # units
    (_set(("units",), []), "units", None),
    (_set(("units",), {}), "units", None),
    (_set(("units", "Nobody"), {"hex": "01"}), "units.Nobody", "no such unit"),
    (_set(("units", "Kalga"), "55"), "units.Kalga", "table"),
    (_set(("units", "Kalga", "colour"), "green"), "units.Kalga.colour", "unknown field"),
    (_set(("units", "Kalga", "hex"), "99"), "units.Kalga.hex", "hex id"),
    (_set(("units", "Kalga", "hex"), ["5", "5"]), "units.Kalga.hex", "hex id"),
    (_set(("units", "Kalga", "hex"), 55), "units.Kalga.hex", "hex id"),
    (_drop(("units", "Kalga", "hex")), "units.Kalga.hex", "hex id"),
    (_set(("units", "Kalga", "hex"), "32"), "units.Kalga.hex", "no stacking"),
    (_set(("units", "Kalga", "status"), "fled"), "units.Kalga.status", None),
    (_set(("units", "Wolff", "status"), "withdrawn"), "units.Wolff.status", "only Tatar"),
    (_set(("units", "Kalga", "status"), "destroyed"), "units.Kalga.hex", "on no hex"),
    (_set(("units", "Kalga", "activations"), 3), "units.Kalga.activations", "0..2"),
    (_set(("units", "Kalga", "activations"), -1), "units.Kalga.activations", None),
    (_set(("units", "Kalga", "activations"), True), "units.Kalga.activations", None),
    (_set(("units", "Kalga", "activations"), "1"), "units.Kalga.activations", None),
    (_set(("units", "Kalga", "disorganized"), "false"), "units.Kalga.disorganized", None),
    (_set(("units", "Kalga", "disorganized"), 0), "units.Kalga.disorganized", None),
    (_set(("units", "Wagon (Dzhelalii)"), {"hex": "13"}), "units.Wagon (Dzhelalii).hex", "Cossack infantry"),
    (_set(("units", "Wagon (Dzhelalii)"), {"hex": "62"}), "units.Wagon (Dzhelalii).hex", "two wagons"),
    (_set(("units", "Wagon (Bohun)", "disorganized"), True), "units.Wagon (Bohun)", "wagons"),
    (_set(("units", "Radziwiłł"), {"hex": "17"}), None, None),  # no standard-only unit in the base: fine
    (_set(("units", "Lubomirski"), {"hex": "17", "status": "on_map"}), None, None),
    # commands and tracks
    (_set(("commands",), "many"), "commands", "table"),
    (_set(("commands", "prussia"), {}), "commands.prussia", "unknown field"),
    (_set(("commands", "cossack_tatar", "orders"), 1), "commands.cossack_tatar.orders", "unknown field"),
    (_set(("commands", "cossack_tatar"), 3), "commands.cossack_tatar", "table"),
    (_set(("commands", "polish_lithuanian", "interaction"), 4), "commands.polish_lithuanian.interaction", "0..3"),
    (_set(("commands", "polish_lithuanian", "interaction"), -1), "commands.polish_lithuanian.interaction", None),
    (_set(("commands", "polish_lithuanian", "reconnaissance"), "1"), "commands.polish_lithuanian.reconnaissance", None),
    (_set(("tatar_spirit",), 5), "tatar_spirit", "0..4"),
    (_set(("tatar_spirit",), -1), "tatar_spirit", None),
    (_set(("tatar_spirit",), 0), "tatar_spirit", "withdraw"),
    (_set(("tatars_withdrawn",), "yes"), "tatars_withdrawn", None),
    (_set(("tatars_withdrawn",), True), "tatars_withdrawn", "still on the map"),
    (_set(("battle_continued",), True), "battle_continued", "withdrawal"),
    # the throw
    (_set(("dice",), [0, 7, 1]), "dice[0]", "1..6"),
    (_set(("dice",), [5, 1]), "dice", "three"),
    (_set(("dice",), "511"), "dice", "three"),
    (_set(("dice",), [5.0, 1, 1]), "dice[0]", None),
    (_set(("dice_used",), [True, True, True]), "dice_used", "at most two"),
    (_set(("dice_used",), ["yes", False, False]), "dice_used[0]", None),
    (_set(("dice_used",), True), "dice_used", None),
    (_drop(("dice",)), "dice_used", "dice"),
    # the pending decision
    (_set(("decision",), "attack"), "decision", None),
    (_set(("decision",), 11), "decision", None),
    (_drop(("activation",)), "decision", "activation"),
    (_set(("die_in_use",), 3), "die_in_use", "0..2"),
    (_set(("die_in_use",), 1), "die_in_use", "dice_used"),
    (_set(("activation",), "Zemska"), "activation", "table"),
    (_set(("activation", "unit"), "Nadworna"), "activation.unit", "not in the position"),
    (_set(("activation", "unit"), "Hrunka"), "activation.unit", "active player"),
    (_set(("activation", "unit"), "Wagon (Bohun)"), "activation.unit", "wagon"),
    (_set(("activation", "unit"), "Wolff"), "activation.unit", "activation value"),
    (_set(("activation", "with_wagon"), True), "activation.with_wagon", "not combined"),
    (_set(("activation", "speed"), 2), "activation.speed", "unknown field"),
    (_set(("combat",), None), "decision", "combat"),
    (_set(("combat", "target"), "Wolff"), "combat.target", "enemy"),
    (_set(("combat", "target"), 7), "combat.target", "no such unit"),
    (_set(("combat", "attackers"), "Zemska"), "combat.attackers", "list"),
    (_set(("combat", "attackers"), ["Zemska", "Zemska"]), "combat.attackers[1]", "named once"),
    (_set(("combat", "attackers"), ["Wolff"]), "combat.attackers", "must include"),
    (_set(("combat", "artillery", "attacker"), True), "combat.artillery.attacker", "infantry"),
    (_set(("combat", "artillery", "defender"), "no"), "combat.artillery.defender", None),
    (_set(("combat", "result"), 10**9), "combat.result", None),
    (_set(("combat", "result"), 20), "combat.result", "R < CR < 2R"),
    (_set(("combat", "result"), "8"), "combat.result", None),
    (_set(("combat", "vacated"), "77"), "combat.vacated", "hex id"),
    (_set(("combat", "vacated"), "33"), "combat.vacated", "still on its hex"),
    (_set(("combat", "chooser"), "nobody"), "combat.chooser", None),
    (_drop(("combat", "chooser")), "combat", "needs combat.chooser"),
    (_set(("combat", "attacker_choice"), "flee"), "combat.attacker_choice", None),
    (_set(("combat", "morale"), 1), "combat.morale", "unknown field"),
    (_set(("retreat",), {"unit": "Hrunka", "hexes_left": 1}), "retreat", "no retreat"),
    (_set(("tatar_decision_due",), "no"), "tatar_decision_due", None),
    (_set(("tatar_decision_due",), True), "tatar_decision_due", "withdrawal"),
    # positions no rule reaches (C29, 4.2, 10)
    (lambda p: (_at_choose_die(p), p["units"].update({"Hrunka": {"status": "destroyed"}, "Kalga": {"status": "destroyed"},
                                                      "Bohun": {"status": "destroyed"}})), "units", "no combat unit left"),
    (lambda p: (_at_choose_die(p), p["units"].update({n: {"status": "destroyed"} for n in
                                                      ("Nosach", "Dzhelalii", "Nureddin", "Amurat")})),
     "units", "automatic victory"),
    (lambda p: (_at_choose_die(p), p["units"]["Zemska"].update(activations=2),
                p["units"]["Wolff"].update(activations=2)), "units.Zemska.activations", "round is over"),
]


@pytest.mark.parametrize("mutate, field, why", MALFORMED, ids=[f"{i}-{m[1]}" for i, m in enumerate(MALFORMED)])
def test_malformed_positions_raise_scenario_error_naming_field_and_value(mutate, field, why):
    pos = _base()
    mutate(pos)
    if field is None:  # a valid variation: it loads
        ENGINE.new_state({"position": pos}, Dice(0))
        return
    with pytest.raises(ScenarioError) as err:
        ENGINE.new_state({"position": pos}, Dice(0))
    message = str(err.value)
    assert f"field '{field}'" in message, message
    assert why is None or why in message, message


def test_a_position_that_is_not_a_table_is_refused():
    with pytest.raises(ScenarioError, match="expected a dict"):
        ENGINE.new_state({"position": [1, 2]}, Dice(0))


def test_3_3_the_variant_units_do_not_mix_with_those_they_replace():
    pos = _base()
    pos["units"].update({"Radziwiłł": {"hex": "17"}, "Nosach": {"hex": "53"}})
    with pytest.raises(ScenarioError, match=r"field 'units.Radziwiłł'.*replaces"):
        ENGINE.new_state({"position": pos}, Dice(0))


# ------------------------------------------------------------------ decided positions (C29)
def test_10_c29_a_position_where_a_side_has_no_unit_left_is_refused():
    with pytest.raises(ScenarioError, match=r"field 'units'.*cossack_tatar has no combat unit left"):
        start({"Zemska": "02", "Wagon (Bohun)": "62", "Hrunka": {"status": "destroyed"}}, dice=[5, 1, 1])
    with pytest.raises(ScenarioError, match=r"polish_lithuanian has no combat unit left"):
        start({"Hrunka": "52"}, dice=[5, 1, 1])
    # withdrawn Tatars are not destroyed (9): their side still has units
    s, _ = start({"Zemska": "02", "Kalga": {"status": "withdrawn"}}, dice=[5, 1, 1], tatar_spirit=0,
                 tatars_withdrawn=True, battle_continued=True)
    assert not ENGINE.is_terminal(s)


def test_10_c29_destroying_the_last_enemy_unit_wins_at_once():
    # Hrunka is the last C-T combat unit (the lone wagon does not count): his destruction ends the game.
    s, dice = start({"Zemska": "22", "Hrunka": {"hex": "32", "disorganized": True}, "Wagon (Bohun)": "62"},
                    dice=[5, 1, 1], rolls=[6, 6, 6, 1])
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert unit(s, "Hrunka")["status"] == DESTROYED
    assert ENGINE.is_terminal(s) and s.sc[S.WINNER] == PL
    summary = ENGINE.summary(s)
    assert summary["over"] and summary["winner"] == "polish_lithuanian" and summary["reason"] == "no_units_left"
    final = ENGINE.to_position(s)
    assert final["winner"] == "polish_lithuanian" and final["decision"] == "game_over"
    with pytest.raises(ScenarioError, match="finished game"):
        ENGINE.new_state({"position": final}, Dice(0))


def test_10_c29_a_side_left_with_withdrawn_tatars_plays_on():
    # The last Cossack is destroyed but the withdrawn Tatars are still in the battle (9): no end.
    s, dice = start({"Zemska": "22", "Hrunka": {"hex": "32", "disorganized": True}, "Kalga": {"status": "withdrawn"},
                     "Wolff": "13"}, dice=[5, 1, 1], rolls=[6, 6, 6, 1], tatar_spirit=0, tatars_withdrawn=True,
                    battle_continued=True)
    play(s, dice, "die:5", "unit:Zemska", "hex:22", "hex:32")
    assert unit(s, "Hrunka")["status"] == DESTROYED and not ENGINE.is_terminal(s)
    assert decision(s) == "advance"


# ------------------------------------------------------------------ options (issue 12 item 4)
@pytest.mark.parametrize("value", ["false", "true", 0, 1, "yes"])
def test_options_variant_must_be_a_real_bool(value):
    with pytest.raises(ScenarioError, match="field 'variant'"):
        ENGINE.new_state({"variant": value}, Dice(0))


def test_options_through_the_env_and_unknown_names_warn():
    from wargame_envs import berestechko_v0

    env = berestechko_v0.env()
    with pytest.raises(ScenarioError, match=r"options: field 'variant' = 'false'"):
        env.reset(seed=0, options={"variant": "false"})
    with pytest.warns(UserWarning, match=r"ignoring unknown berestechko option\(s\) \['colour'\]"):
        env.reset(seed=0, options={"colour": "red", "variant": True})
    assert "Radziwiłł" in env.unwrapped.position()["units"]
    with pytest.raises(ScenarioError, match=r"position: field 'units'"):
        env.reset(seed=0, options={"position": {"units": "all"}})


# ------------------------------------------------------------------ summary (issue 11 item 14)
def test_summary_is_plain_json_with_round_throws_vp_spirit_and_every_unit():
    s, dice = start({"Zemska": {"hex": "02", "activations": 1}, "Kalga": {"hex": "03", "disorganized": True},
                     "Hrunka": {"status": "destroyed"}, "Wagon (Bohun)": "62"},
                    round=2, dice=[5, 1, 1], tatar_spirit=2, throws=7,
                    commands={"polish_lithuanian": {"reconnaissance": 1, "interaction": 2},
                              "cossack_tatar": {"reconnaissance": 3, "interaction": 0}})
    out = ENGINE.summary(s)
    assert json.loads(json.dumps(out)) == out
    assert out["battle"] == "berestechko_v0" and out["to_move"] == "polish_lithuanian"
    assert out["decision"] == "choose_die" and not out["over"] and out["winner"] is None
    assert out["round"] == 2 and out["throws"] == 7 and out["tatar_spirit"] == 2
    # P-L: Hrunka destroyed 2 + Kalga disorganized 1; C-T: Kalga in the camp 2 (C28)
    assert out["victory_points"] == {"polish_lithuanian": 3, "cossack_tatar": 2}
    assert out["commands"]["cossack_tatar"] == {"reconnaissance": 3, "interaction": 0}
    units = {u["id"]: u for u in out["units"]}
    assert set(units) == {"Zemska", "Kalga", "Hrunka", "Wagon (Bohun)"}
    assert units["Kalga"] == {"id": "Kalga", "side": "cossack_tatar", "type": "cavalry", "tatar": True, "hex": "03",
                              "status": "on_map", "disorganized": True, "activations": 0}
    assert units["Hrunka"]["hex"] is None and units["Hrunka"]["status"] == "destroyed"
    assert units["Zemska"]["activations"] == 1 and units["Wagon (Bohun)"]["type"] == "wagon"
    play(s, dice, "die:5", "unit:Zemska", "hex:02", "no_combat")  # the 2nd activation ends round 2
    out = ENGINE.summary(s)
    assert out["over"] and out["to_move"] is None and out["winner"] == "polish_lithuanian"
    assert out["final_victory_points"] and out["reason"] == "points"


def test_fuzzed_positions_load_soundly_or_raise_scenario_error():
    """Positions of random games with random fields replaced: each is refused with ScenarioError or
    loads into a sound state whose play goes on soundly (issue 12.2: no TypeError/IndexError/...)."""
    import random

    rnd = random.Random(0)
    values = [None, -1, 0, 1, 2, 3, 7, 10**6, True, False, "x", "02", "32", "Kalga", "Zemska", "Bohun", [], {},
              [1, 2], 1.5, "polish_lithuanian", "cossack_tatar", "loss", "retreat", "move", "advance"]
    positions = []
    for seed in range(3):
        dice, rng = Dice(seed), np.random.default_rng(seed)
        s = ENGINE.new_state(None, dice)
        while not ENGINE.is_terminal(s):
            positions.append(ENGINE.to_position(s))
            ENGINE.apply(s, int(rng.choice(np.flatnonzero(ENGINE.legal_mask(s)))), dice)

    def paths(o, pre=()):
        if pre:
            yield pre
        items = o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else ()
        for k, v in items:
            yield from paths(v, pre + (k,))

    loaded = 0
    for n in range(3000):
        pos = copy.deepcopy(rnd.choice(positions))
        where = rnd.choice(list(paths(pos)))
        holder = pos
        for k in where[:-1]:
            holder = holder[k]
        if isinstance(holder, dict) and rnd.random() < 0.2:
            del holder[where[-1]]
        else:
            holder[where[-1]] = rnd.choice(values)
        try:
            s = ENGINE.new_state({"position": pos}, Dice(n))
        except ScenarioError:
            continue
        loaded += 1
        dice = Dice(n)
        for _ in range(20):
            if ENGINE.is_terminal(s):
                break
            assert not ENGINE.check_invariants(s), (where, ENGINE.check_invariants(s))
            ENGINE.observe(s, PL)
            ENGINE.apply(s, int(rnd.choice(list(np.flatnonzero(ENGINE.legal_mask(s))))), dice)
    assert loaded > 100  # the harmless mutations still load


def test_c30_a_position_inside_an_activation_after_the_round_is_used_up_restores():
    """4.2 ends the round after an activation: when a close combat destroys the inactive side's last unit not yet
    activated twice, the game waits at the advance with every C-T unit left at two activations. That position is
    reachable, so it is restored (it used to be refused as "the round is over"), and the game goes on the same."""
    s, d = start({"Kalinowski": "22", "Zemska": "02", "Hrunka": {"hex": "32", "disorganized": True},
                  "Nosach": {"hex": "55", "activations": 2}}, rolls=[8, 8, 1, 3, 4, 5], dice=[2, 6, 6])
    play(s, d, "die:2", "unit:Kalinowski", "hex:22", "hex:32")
    assert decision(s) == "advance" and unit(s, "Hrunka")["status"] == DESTROYED
    restored = ENGINE.new_state({"position": ENGINE.to_position(s)}, Dice(0))
    _same(s, restored, "at the advance")
    play(s, d, "hex:22")
    assert decision(s) == "choose_die" and int(s.sc[S.ROUND]) == 2
