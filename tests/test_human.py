"""The terminal agent: entries (numbers, hex ids, commands, bad input), colour map, undo and save
through the ``wargames play`` loop. Input is scripted: ``input_fn`` fed from a list or a function
of the game, or ``sys.stdin`` replaced for the real CLI."""

from __future__ import annotations

import io
import types

import numpy as np
import pytest

from agents.base import RandomAgent
from agents.human import (
    HELP,
    MAP_CELLS,
    HumanAgent,
    Menu,
    QuitRequest,
    UndoRequest,
    color_map,
)
from wargame_envs import registry
from wargames_cli import cli
from wargame_envs.core.ansi import strip_ansi
from wargame_envs.core.dice import Dice
from wargame_envs.core.records import GameRecord, replay_final


class Script:
    """``input_fn`` answering from a list; keeps the prompts it was shown."""

    def __init__(self, entries):
        self.entries, self.prompts = list(entries), []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.entries:
            raise EOFError
        return self.entries.pop(0)


def start(battle: str):
    engine = registry.make_engine(battle)
    return engine, engine.new_state({}, Dice(1))


def ask(engine, state, entries, player=None):
    """Run one decision with scripted entries; returns (action, output text, script)."""
    out, script = io.StringIO(), Script(entries)
    agent = HumanAgent(script, out, color=False)
    player = engine.current_player(state) if player is None else player
    action = agent.act(engine, state, player, engine.legal_mask(state))
    return action, out.getvalue(), script


# ---------------------------------------------------------------------------- entries
def test_number_entry_after_bad_entries_and_help_never_raises():
    engine, state = start("berestechko")
    legal = engine.legal_actions(state)
    action, out, script = ask(engine, state, ["", "xyz", "99", "0", "#", "@", "@77", "help", "map", "list", "save", "2"])
    assert action == legal[1]
    assert "type a number 1-3" in out                       # empty entry with several options
    assert "not understood: 'xyz'" in out
    assert "there is no option 99: choose 1-3" in out and "there is no option 0" in out
    assert "there is no option (none)" in out and "there is no hex (none)" in out and "no hex 77" in out
    assert HELP in out
    assert out.count("Tatar combat spirit") == 2                    # the map and tracks, shown again by 'map'
    assert out.count("1) use die 1") == 3                            # listed at first, after 'map' and after 'list'
    assert "save needs a file name" in out
    assert "Traceback" not in out and len(script.prompts) == 12
    assert script.prompts[0].startswith("polish_lithuanian, choose_die [1-3")


@pytest.mark.parametrize("entry", ["²", "#²", "@²", "-1", "1.5", "1e3", "#-2", "@ ", "\x00", "x" * 500, "save ",
                                   "undo now", "ünïcödé", "3 4", "#99999999999999999999"])
def test_odd_entries_are_answered_not_raised(entry):
    engine, state = start("berestechko")
    _, shown, _ = ask(engine, state, ["1"])
    action, out, script = ask(engine, state, [entry, "1"])
    assert action == engine.legal_actions(state)[0] and len(script.prompts) == 2
    assert out.startswith(shown) and out[len(shown):].strip()        # a reply to the odd entry
    assert "Traceback" not in out


def test_the_position_and_the_options_are_shown_in_the_players_terms():
    engine, state = start("berestechko")
    _, out, _ = ask(engine, state, ["1"])
    assert engine.render_ansi(state, 0) in out                        # his view: map, tracks, dice, last events
    assert "[4.1]" in out                                             # the event's rule case
    for i, a in enumerate(engine.legal_actions(state)):
        assert f"{i + 1}) {engine.action_to_str(state, a)}" in out


def test_hex_id_entry_picks_the_only_option_naming_that_hex_and_lists_ambiguous_ones():
    engine, state = start("breitenfeld")          # first decision: a gun's target, "... 1115 fires at tercio 1810"
    legal = engine.legal_actions(state)
    labels = {engine.action_to_str(state, a): a for a in legal}
    target = next(label for label in labels if "1810" in label)
    action, out, _ = ask(engine, state, ["1115", "1810"])
    assert action == labels[target]
    assert "hex 1115 is named by" in out and "choose one by its number" in out


def test_menu_resolves_numbers_and_hex_ids_and_names_every_ambiguity():
    labels = {10: "A 01->02", 11: "A 01->11", 12: "B stays at 12"}
    engine = types.SimpleNamespace(action_to_str=lambda state, a: labels[a])
    menu = Menu(engine, None, [10, 11, 12], {"01": 0, "02": 1, "11": 2, "12": 3, "13": 4})
    assert menu.choose("3") == 12 and menu.choose("#1") == 10 and menu.choose("@11") == 11
    assert menu.choose("12") == 12                  # no option 12: the hex
    assert menu.choose("11") == 11                  # no option 11: the hex
    assert menu.choose("02") == 10                  # a leading zero: hex 02, named only by option 1
    many = menu.choose("@01")
    assert "hex 01 is named by 2 options" in many and "1) A 01->02" in many and "2) A 01->11" in many
    assert "no legal option names hex 13" in menu.choose("13")
    assert "there is no option 9" in menu.choose("#9")
    assert "there is no hex 99" in menu.choose("@99")


def test_menu_entry_that_is_both_an_option_and_a_hex_is_ambiguous_unless_both_agree():
    labels = {10: "A 1->2", 11: "A 1->11", 12: "B stays at 3"}
    engine = types.SimpleNamespace(action_to_str=lambda state, a: labels[a])
    menu = Menu(engine, None, [10, 11, 12], {"1": 0, "2": 1, "3": 2, "11": 3})
    both = menu.choose("2")                         # option 2 (A 1->11) and hex 2 (named by option 1)
    assert "'2' is both option 2 (A 1->11) and hex 2" in both and "#2" in both and "@2" in both
    assert "both option 1" in menu.choose("1")      # hex 1 is named by two options
    assert menu.choose("3") == 12                   # option 3 and hex 3 agree
    assert menu.choose("#2") == 11 and menu.choose("@2") == 10


def test_an_option_naming_a_unit_names_its_hex():
    engine, state = start("berestechko")
    dice = Dice(1)
    while engine.decision_name(state) != "select_unit":   # use a die, take its command: then a unit
        engine.apply(state, engine.legal_actions(state)[0], dice)
    scene = engine.scene(state)
    legal = engine.legal_actions(state)
    unit = engine.action_to_str(state, legal[-1]).split()[-1]                 # "activate Hubaldt"
    hex_id = next(scene.grid.ids[c.hex] for c in scene.counters if unit.startswith(c.label))
    action, out, _ = ask(engine, state, [hex_id])
    assert action == legal[-1], out


def test_long_menus_print_the_shared_words_once_and_go_in_columns():
    labels = {a: f"Horn's Left Wing: horse 0610 -> {1000 + a}" for a in range(40)}
    labels[40] = "Horn's Left Wing: horse 0610 stays"
    engine = types.SimpleNamespace(action_to_str=lambda state, a: labels[a])
    text = Menu(engine, None, list(labels), {}).render(width=100)
    lines = text.split("\n")
    assert lines[0] == "Horn's Left Wing: horse 0610 ..."
    assert "  1) -> 1000" in lines[1] and " 41) stays" in text
    assert len(lines) < 15 and max(len(line) for line in lines) <= 100
    short = Menu(engine, None, [0, 1], {}).render(width=100)
    assert short == "  1) Horn's Left Wing: horse 0610 -> 1000\n  2) Horn's Left Wing: horse 0610 -> 1001"


def test_enter_takes_the_only_option_and_end_of_input_quits():
    engine = types.SimpleNamespace(
        name="stub_v0", agents=("a", "b"), action_to_str=lambda s, a: "pass",
        decision_name=lambda s: "only", render_ansi=lambda s, viewer=None: "a map",
        scene=lambda s, viewer=None: types.SimpleNamespace(grid=types.SimpleNamespace(index={}), counters=[], terrain=[],
                                              side_names=("a", "b"), side_colors=((1, 1, 1), (2, 2, 2)),
                                              hex_marks={}, terrain_colors={}))
    mask = np.array([False, True])
    agent = HumanAgent(Script([""]), io.StringIO())
    assert agent.act(engine, None, 0, mask) == 1
    with pytest.raises(QuitRequest):
        HumanAgent(Script([]), io.StringIO()).act(engine, None, 0, mask)
    with pytest.raises(QuitRequest, match="a quit"):
        HumanAgent(Script(["quit"]), io.StringIO()).act(engine, None, 0, mask)


def test_undo_and_save_say_they_need_a_game_when_none_is_attached():
    engine, state = start("berestechko")
    _, out, _ = ask(engine, state, ["undo", "save x.json", "1"])
    assert "undo is not available here" in out and "save is not available here" in out


def test_the_other_sides_hidden_information_is_not_shown():
    engine, state = start("kulikovo")
    secret = "Ambush Regiment: not placed (Russian eyes only"
    assert secret in engine.render_ansi(state)
    _, as_mongol, _ = ask(engine, state, ["map", "1"], player=1)
    _, as_russian, _ = ask(engine, state, ["1"], player=0)
    assert secret not in as_mongol and as_mongol.count("Ambush Regiment: not placed (hidden)") == 2
    assert secret in as_russian


# ---------------------------------------------------------------------------- colour
@pytest.mark.parametrize("battle", sorted(MAP_CELLS))
def test_colour_map_only_adds_codes_and_paints_each_unit_in_its_colour(battle, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    engine, state = start(battle)
    text = engine.render_ansi(state)
    colored = color_map(engine, state, text)
    assert colored != text and strip_ansi(colored) == text
    scene = engine.scene(state)
    cells = MAP_CELLS[engine.name](scene.grid)
    units = [c for c in scene.counters if c.kind not in ("leader", "standard", "artillery")]
    lines = colored.split("\n")
    for c in units[:: max(1, len(units) // 12)]:
        line, _, _ = cells[c.hex]
        r, g, b = c.color or scene.side_colors[c.side]
        assert f"38;2;{r};{g};{b}m" in lines[line], (battle, scene.grid.ids[c.hex])


def test_no_colour_when_switched_off_or_no_color_is_set(monkeypatch):
    engine, state = start("kulikovo")
    _, out, _ = ask(engine, state, ["1"])           # color=False
    assert "\x1b[" not in out
    monkeypatch.setenv("NO_COLOR", "1")
    out2 = io.StringIO()
    HumanAgent(Script(["1"]), out2, color=True).act(engine, state, engine.current_player(state), engine.legal_mask(state))
    assert "\x1b[" not in out2.getvalue()


# ---------------------------------------------------------------------------- through the play loop
def new_game(seed: int = 3):
    env = registry.make("berestechko", engine=registry.make_engine("berestechko"))
    env.reset(seed=seed)
    return env


def test_undo_rewinds_the_game_and_truncates_the_record():
    env = new_game()
    raw = env.unwrapped
    seen = []  # (entry, decisions recorded, digest) at each prompt

    def entries(prompt):
        n = len(raw.record.actions)
        seen.append((n, raw.game_state.digest()))
        if len(seen) == 3:                         # third prompt: the second decision, no die rolled yet
            return "undo"
        if len(seen) >= 6:
            raise EOFError
        return "1"

    out = io.StringIO()
    human = HumanAgent(entries, out, color=False)
    with pytest.raises(QuitRequest):
        cli.play_game(env, [human, RandomAgent(0)])
    (n1, _), (n2, d2), (n3, _), (n4, d4) = seen[:4]
    assert (n1, n2, n3) == (0, 1, 2)
    assert (n4, d4) == (n2, d2)                    # after undo: the second decision again, same position
    assert "cannot undo" not in out.getvalue()
    # the rewound game is the game played without the undone decision
    record = GameRecord(**{**raw.record.__dict__, "final_digest": None})
    _, state = replay_final(record)
    assert state.digest() == raw.game_state.digest()


def test_undo_is_refused_once_a_die_was_rolled_and_its_own_first_decision_cannot_be_undone():
    env = new_game()
    raw = env.unwrapped
    first_count, out = raw.dice.count, io.StringIO()
    answers = []

    def entries(prompt):
        if not answers:
            answers.append("undo")                 # the first decision: nothing to undo
        elif "cannot undo" in out.getvalue():
            raise EOFError
        elif raw.dice.count > first_count:         # the first decision after a roll: refused
            answers.append("undo")
        else:
            answers.append("1")
        return answers[-1]

    with pytest.raises(QuitRequest):
        cli.play_game(env, [HumanAgent(entries, out, color=False), RandomAgent(0)])
    text = out.getvalue()
    assert "nothing to undo: this is your first decision" in text
    assert "cannot undo:" in text and "die roll(s) since your last decision" in text
    assert answers.count("undo") == 2


def test_save_writes_the_record_so_far_and_it_replays(tmp_path):
    env = new_game()
    raw = env.unwrapped
    out = io.StringIO()
    path = tmp_path / "sub" / "partial.json"
    human = HumanAgent(Script(["1", "1", f"save {path}", f"save {tmp_path}", "quit"]), out, color=False)
    with pytest.raises(QuitRequest):
        cli.play_game(env, [human, RandomAgent(0)])
    text = out.getvalue()
    assert f"saved the game record (2 decisions) to {path}" in text
    assert "is a folder" in text
    saved = GameRecord.load(path)
    assert saved.actions == raw.record.actions[:2] and saved.returns is None
    _, state = replay_final(saved)
    assert state.digest() == raw.game_state.digest()


def test_cli_play_a_full_game_as_a_human_from_stdin(tmp_path, monkeypatch, capsys):
    record = tmp_path / "game.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 5000))
    assert cli.main(["play", "berestechko", "--p1", "human", "--p2", "random", "--seed", "2",
                     "--record", str(record)]) == 0
    out = capsys.readouterr().out
    saved = GameRecord.load(record)
    assert saved.returns is not None and "winner:" in out
    assert saved.players == {"polish_lithuanian": "human", "cossack_tatar": "random"}
    assert "cossack_tatar: " in out                          # the other side's decisions are shown
    assert out.count("polish_lithuanian to decide") >= 20
    assert "GAME OVER" in out                                 # the final position is shown


def test_cli_quit_ends_cleanly_and_keeps_the_unfinished_record(tmp_path, monkeypatch, capsys):
    record = tmp_path / "game.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("2\nbogus\nundo\nquit\n"))
    assert cli.main(["play", "kulikovo", "--p1", "random", "--p2", "human", "--record", str(record)]) == 0
    captured = capsys.readouterr()
    assert "mongol quit after" in captured.out and "not understood: 'bogus'" in captured.out
    assert "Traceback" not in captured.out + captured.err
    assert GameRecord.load(record).returns is None


def test_rewind_refuses_impossible_targets_and_checks_the_position():
    env = new_game()
    with pytest.raises(cli.CliError, match="cannot rewind"):
        cli.rewind(env, 5)

    class BadUndo:
        """Asks to go back to the start but names the wrong position."""

        name = "bad-undo"

        def act(self, engine, state, player, mask):
            raise UndoRequest(0, "0" * 40)

    with pytest.raises(cli.CliError, match="undo failed"):
        cli.play_game(env, [BadUndo(), RandomAgent(0)])
