"""Berestechko geometry, action codec, positions, data validation and the golden game record."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from bx_helpers import ENGINE, start

from wargame_envs.berestechko.data import DATA_DIR, load_scenario
from wargame_envs.berestechko.rules import BerestechkoEngine
from wargame_envs.core import GameRecord, RecordError, ScenarioError, replay_final
from wargame_envs.core.dice import Dice

G = ENGINE.grid
T = ENGINE.T
GOLDEN = Path(__file__).parent.parent / "data" / "berestechko_golden.json"


def h(hex_id: str) -> int:
    return G.index[hex_id]


# ----------------------------------------------------------------------- geometry (reference 1)
@pytest.mark.parametrize("a, b", [("25", "16"), ("46", "37"), ("37", "26"), ("16", "26"), ("15", "16"),
                                  ("16", "25"), ("14", "24"), ("15", "24")])
def test_reference_adjacent_pairs(a, b):
    assert G.distance(h(a), h(b)) == 1


def test_reference_distances_neighbours_and_rear_hexes():
    assert G.distance(h("45"), h("25")) == 2
    assert G.distance(h("52"), h("32")) == 2
    assert {G.ids[n] for n in G.adjacent[h("24")]} == {"23", "25", "14", "15", "34", "35"}
    assert {G.ids[n] for n in T.rear[0][h("26")]} == {"16", "17"}   # P-L retreat toward line X-1
    assert {G.ids[n] for n in T.rear[1][h("16")]} == {"25", "26"}   # C-T retreat toward line X+1
    assert {G.ids[n] for n in T.rear[1][h("24")]} == {"34", "35"}
    assert T.rear[0][h("03")] == () and T.rear[1][h("63")] == ()    # lines 0 / 6 have no rear


def test_the_other_row_shift_fails_the_reference():
    from wargame_envs.core.hexgrid import HexGrid

    odd = HexGrid(G.ids, [(int(x[1]), int(x[0])) for x in G.ids], "odd-r")
    assert odd.distance(odd.index["46"], odd.index["37"]) != 1


def test_every_hex_has_a_neighbour_table_row_with_minus_one_off_map():
    assert G.neighbors.shape == (49, 6)
    assert (G.neighbors[h("01")] == -1).sum() == 3   # corner: 3 neighbours off the map
    assert (G.neighbors[h("34")] >= 0).all()


# ------------------------------------------------------------------------------ action codec
def test_action_codec_round_trip_covers_every_action():
    c = ENGINE.codec
    seen = set()
    for a in range(c.size):
        kind, arg = c.decode(a)
        assert c.encode(kind, arg) == a
        seen.add(kind)
    assert seen == {"hex", "die", "unit", "unit_wagon_die", "unit_wagon_cmd", "option"}
    assert c.size == ENGINE.num_actions == 122
    with pytest.raises(ValueError):
        c.decode(c.size)


def test_every_legal_action_has_a_players_terms_string():
    dice = Dice(3)
    s = ENGINE.new_state(None, dice)
    rng = np.random.default_rng(0)
    for _ in range(300):
        if ENGINE.is_terminal(s):
            break
        legal = np.flatnonzero(ENGINE.legal_mask(s))
        for a in legal:
            text = ENGINE.action_to_str(s, int(a))
            assert text and not text.startswith("hex ")
        ENGINE.apply(s, int(rng.choice(legal)), dice)


# ------------------------------------------------------------------------------ positions
def test_position_round_trip_and_start_from_it():
    s, dice = start({"Zemska": "02", "Hrunka": {"hex": "52", "disorganized": True, "activations": 1}},
                    dice=[1, 2, 3], commands={"polish_lithuanian": {"reconnaissance": 1, "interaction": 2},
                                              "cossack_tatar": {"reconnaissance": 3, "interaction": 0}})
    pos = ENGINE.to_position(s)
    again = ENGINE.new_state({"position": pos}, Dice(0))
    assert again == s and ENGINE.to_position(again) == pos
    assert json.loads(json.dumps(pos)) == pos


@pytest.mark.parametrize("mutate, message", [
    (lambda p: p["units"]["Zemska"].update(hex="99"), "units.Zemska.hex"),
    (lambda p: p["units"].update({"Nobody": {"hex": "01"}}), "units.Nobody"),
    (lambda p: p["units"]["Hrunka"].update(hex="02"), "no stacking"),
    (lambda p: p.update(round=3), "round"),
    (lambda p: p.update(dice=[0, 7, 1]), "dice"),
    (lambda p: p["commands"]["cossack_tatar"].update(interaction=4), "commands.cossack_tatar.interaction"),
    (lambda p: p["units"]["Zemska"].update(status="withdrawn"), "only Tatar units"),
    (lambda p: p.update(colour="red"), "unknown field"),
])
def test_bad_positions_name_the_field(mutate, message):
    pos = {"units": {"Zemska": {"hex": "02"}, "Hrunka": {"hex": "52"}},
           "commands": {"polish_lithuanian": {"reconnaissance": 0, "interaction": 0},
                        "cossack_tatar": {"reconnaissance": 0, "interaction": 0}}}
    mutate(pos)
    with pytest.raises(ScenarioError, match=message):
        ENGINE.new_state({"position": pos}, Dice(0))


# ------------------------------------------------------------------------------ data files
def _broken_copy(tmp_path: Path, old: str, new: str) -> Path:
    shutil.copy(DATA_DIR / "scenario.toml", tmp_path / "scenario.toml")
    path = tmp_path / "scenario.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("old, new, message", [
    ('offset_convention = "even-r"', 'offset_convention = "diagonal"', r"map\.offset_convention.*'diagonal'"),
    ('act = 5\nresistance = [5, 2]', 'act = 9\nresistance = [5, 2]', r"unit\[0\]\.act.* = 9.*<= 5"),
    ('resistance = [5, 2]', 'resistance = [2, 5]', r"unit\[0\]\.resistance"),
    ('setup = "02"', 'setup = "08"', r"unit\[0\]\.setup.*'08'.*not a hex"),
    ('hexes = ["03", "04"]', 'hexes = ["03", "4"]', r"terrain\.complex\[0\]\.hexes\[1\]"),
    ('source = "PROPOSED; setup RULEBOOK 3.1"', 'source = "GUESSED"', r"unit\[0\]\.source.*provenance"),
    ('die = 6\nattack = 3', 'die = "six"\nattack = 3', r"unit\[0\]\.die.*expected int"),
    ('setup = "11"', 'setup = "02"', r"share a hex"),
    # audit 2, finding 18: the rule the position reader applies (7.2), at load time
    ('defence = 0\nsetup = "63"', 'defence = 0\nsetup = "62"',
     r"'unit\.setup' of 'Wagon \(Dzhelalii\)' = '62': already holds Wagon \(Bohun\) \(two wagons in one hex, 7\.2\)"),
    ("rounds = 2 ", "rounds = 99999999999 ", r"rules\.rounds.*99999999999.*<= 1000000"),
    ("automatic_victory_destroyed = 4", "automatic_victory_destroyed = 99999999999",
     r"rules\.automatic_victory_destroyed.*<= 1000000"),
    ("destroyed_enemy_unit = 2", "destroyed_enemy_unit = 3000000000", r"victory\.destroyed_enemy_unit.*<= 1000000"),
])
def test_malformed_data_file_names_file_field_and_value(tmp_path, old, new, message):
    data_dir = _broken_copy(tmp_path, old, new)
    with pytest.raises(ScenarioError, match=message) as err:
        load_scenario(data_dir)
    assert str(tmp_path) in str(err.value)


def test_invalid_toml_and_missing_file(tmp_path):
    (tmp_path / "scenario.toml").write_text("[map\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="not valid TOML"):
        load_scenario(tmp_path)
    with pytest.raises(ScenarioError, match="not found"):
        load_scenario(tmp_path / "nowhere")


def test_a_user_data_file_changes_the_game_without_code(tmp_path):
    data_dir = _broken_copy(tmp_path, "command_cap = 3", "command_cap = 5")
    engine = BerestechkoEngine(data_dir)
    assert engine.T.rules["command_cap"] == 5


def test_every_unit_carries_provenance():
    sc = load_scenario()
    assert all(src.split()[0].rstrip(":;") in ("RULEBOOK", "DERIVED", "PROPOSED") for src in sc.sources)


# ------------------------------------------------------------------------------ golden record
def test_golden_game_record_replays_bit_exactly():
    record = GameRecord.load(GOLDEN)
    engine, final = replay_final(record)
    assert final.digest() == record.final_digest
    assert engine.returns(final).tolist() == record.returns


def test_corrupt_or_mismatched_record_names_the_problem(tmp_path):
    record = GameRecord.load(GOLDEN)
    record.actions[40] = 0 if record.actions[40] != 0 else 1
    with pytest.raises(RecordError, match="action #"):
        replay_final(record)
    record = GameRecord.load(GOLDEN)
    record.seed += 1
    with pytest.raises(RecordError):
        replay_final(record)
    broken = tmp_path / "broken.json"
    broken.write_text(GOLDEN.read_text()[:500], encoding="utf-8")
    with pytest.raises(RecordError, match="not valid JSON"):
        GameRecord.load(broken)



def test_4_1_the_dice_a_throw_spends_come_from_the_data_file(tmp_path):
    """``rules.dice_spent_per_throw`` (2 as printed, 4.1) is how many dice a throw spends before it may end:
    two dice used, the printed rules let the throw end; with 3 in the data file the third die must be used too.
    ``dice_per_throw`` is fixed at three (the state, observation and action layout hold three dice): another
    value is refused by name."""
    pos = {"round": 1, "active": "polish_lithuanian", "throws": 1,
           "units": {"Zemska": {"hex": "22"}, "Hrunka": {"hex": "32"}, "Kalga": {"hex": "55"}, "Bohun": {"hex": "62"},
                     "Wagon (Bohun)": {"hex": "62"}, "Wolff": {"hex": "13"}},
           "commands": {"polish_lithuanian": {"reconnaissance": 0, "interaction": 0},
                        "cossack_tatar": {"reconnaissance": 0, "interaction": 0}},
           "dice": [5, 1, 4], "dice_used": [True, True, False], "decision": "choose_die"}
    three = BerestechkoEngine(_broken_copy(tmp_path, "dice_spent_per_throw = 2", "dice_spent_per_throw = 3"))
    for eng, may_end in ((ENGINE, True), (three, False)):
        s = eng.new_state({"position": pos}, Dice(0))
        moves = [eng.action_to_str(s, a) for a in eng.legal_actions(s)]
        assert ("end the throw" in moves) == may_end, moves
        assert may_end or moves, "the third die is to be used"
        assert 0.0 <= eng.observe(s, 0).min() and eng.observe(s, 0).max() <= 1.0
    (tmp_path / "four").mkdir()
    with pytest.raises(ScenarioError, match=r"rules\.dice_per_throw"):
        load_scenario(_broken_copy(tmp_path / "four", "dice_per_throw = 3", "dice_per_throw = 4"))
