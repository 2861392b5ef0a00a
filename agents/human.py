"""A person at the terminal as an agent: ``wargames play berestechko --p1 human --p2 scripted``.

Before each of the person's decisions :class:`HumanAgent` prints the battle's text map as that
player may see it (``engine.render_ansi(state, viewer=player)``) in colour: units in their side's (or army's) colour, disordered units
faded, the unit being decided about in reverse video, marked hexes (e.g. the combat target) on a
coloured background, hexes named by a legal option underlined, special terrain in its colour; then
the tracks, the dice and the last events with their rule cases (``state.log``) that the battle's
text view holds, and the legal options numbered, in the players' terms (``engine.action_to_str``).

What the person may type at the prompt:

============  ========================================================================================
``3``         option 3 of the list (``#3`` forces this reading where 3 is also a hex id)
``52``        a hex id as the map prints it (its own, or that of a unit the option names), when
              exactly one legal option names that hex (``@52`` forces this reading); otherwise the
              options that name it are listed. A number that is both an option and a hex id is
              ambiguous unless both readings pick the same option; one with a leading zero is a hex
Enter         the only option, when there is just one
``help``      this list of entries (also ``?``)
``map``       show the map again; ``list`` shows the options again
``undo``      take back your last decision (and whatever the other side did since), allowed while no
              die has been rolled since that decision
``save PATH`` write the game record so far (JSON; ``wargames replay PATH`` shows it)
``quit``      stop the game (also end of input, Ctrl-D or Ctrl-C)
============  ========================================================================================

A bad entry is answered with the reason and the prompt comes back; it never ends the game.

The map and the counters are the player's own view (``render_ansi``/``scene`` with ``viewer``): what
he must not see (Kulikovo's unplaced Ambush Regiment and the real Dmitri, for the Mongol player) is
not in it. The colouring is placed by a per-battle hook (:data:`MAP_CELLS`: where each hex sits in
the text map).

Undo and save need the game itself, not just the position: the ``wargames play`` loop
(:func:`wargame_envs.cli.play_game`) calls :meth:`HumanAgent.attach` with the env. Before each of
the person's decisions the agent keeps ``(state clone, dice roll count, decisions so far)``; ``undo``
is refused when the env's ``dice.count`` has moved since the previous such snapshot, otherwise the
agent raises :class:`UndoRequest` naming how many recorded decisions to keep and the digest of the
position they must lead to. The play loop rewinds the env by replaying its own record (same seed,
same options, the kept actions: bit-exact, so the dice stream is exactly where it was and the
record's action list is truncated) and asks again. ``quit`` raises :class:`QuitRequest`, which the
play loop reports. Both derive from :class:`GameControl`; any other loop that seats a human agent
must handle them, or not attach the env (then undo and save answer that they are unavailable).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections import Counter as Tally
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

from wargame_envs.core.ansi import color as ansi_color
from wargame_envs.core.ansi import colors_enabled

# SGR attributes used next to core.ansi.color's colours.
_BOLD, _DIM, _UNDERLINE, _REVERSE, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[4m", "\x1b[7m", "\x1b[0m"
_RULE_CASE = re.compile(r"\[[0-9]+(?:\.[0-9]+)+[^\]\[\x1b]*\]")  # "[6.2.2]", "[8.1.7]", "[4.1]", "[8.3 ...]"
_NUMBER_TOKEN = re.compile(r"(?<![\w.])[0-9A-Za-z]+(?![\w])")
MENU_ONE_COLUMN = 24                                   # longer option lists are laid out in columns


# ============================================================================ game control
class GameControl(Exception):
    """Raised by :meth:`HumanAgent.act` to steer the game instead of choosing an action."""


class UndoRequest(GameControl):
    """Rewind the game to an earlier decision of the same player.

    ``decisions``: how many recorded actions to keep (the env's ``record.actions[:decisions]``);
    ``digest``: ``state.digest()`` of the position those actions must lead to (a check).
    """

    def __init__(self, decisions: int, digest: str):
        super().__init__(f"undo to decision #{decisions + 1}")
        self.decisions, self.digest = int(decisions), digest


class QuitRequest(GameControl):
    """The person stopped the game (``quit``, end of input or Ctrl-C)."""


@dataclass
class Snapshot:
    """The position before one of the person's decisions: a rules-state clone, the dice roll count
    then, and the number of decisions recorded before it."""

    state: object
    dice_count: int
    decisions: int


# ============================================================================ colour map
def hex_map_cells(grid, cell_width: int) -> dict[int, tuple[int, int, int]]:
    """Where ``core.ansi.hex_map_text(grid, cells, cell_width)`` prints each hex:
    ``{hex: (line, column, width)}`` (the same layout rules, see that function)."""
    parity = 0 if grid.convention.startswith("even") else 1
    cols, rows = grid.offset[:, 0], grid.offset[:, 1]
    col0, row0, half = int(cols.min()), int(rows.min()), cell_width // 2
    out = {}
    for i in range(grid.n):
        col, row = int(cols[i]), int(rows[i])
        if grid.pointy:
            shoved = (row & 1) == parity
            out[i] = (row - row0, (col - col0) * cell_width + (half if shoved else 0), cell_width)
        else:
            shoved = (col & 1) == parity
            out[i] = (2 * (row - row0) + (1 if shoved else 0), (col - col0) * cell_width, cell_width)
    return out


def square_map_cells(grid) -> dict[int, tuple[int, int, int]]:
    """Breitenfeld's text map: a header line, then one line per row ``YY``; hex ``XXYY`` at column
    ``4 + 4 * (XX - 1)``, three characters wide."""
    out = {}
    for i, hid in enumerate(grid.ids):
        col, row = int(hid[:2]), int(hid[2:])
        out[i] = (row, 4 + 4 * (col - 1), 3)
    return out


# The per-battle hook: where each hex sits in the battle's ``render_ansi`` map.
MAP_CELLS: dict[str, Callable] = {
    "berestechko_v0": lambda grid: hex_map_cells(grid, 10),
    "kulikovo_v0": lambda grid: hex_map_cells(grid, 3),
    "breitenfeld_v0": square_map_cells,
}


def _paint(text: str, fg=None, bg=None, attrs: str = "") -> str:
    """``text`` with a foreground/background colour (``core.ansi.color``) and SGR attributes."""
    if fg is not None:
        text = ansi_color(text, fg)
    if bg is not None:
        text = ansi_color(text, bg, background=True)
    return f"{attrs}{text}{_RESET}" if attrs else text


def _cell_style(scene, h: int, by_hex: dict, plain_terrain: str, named: set[int]) -> tuple:
    """``(fg, bg, attrs)`` of hex ``h``: its top counter's colour and status, else its terrain."""
    fg, bg, attrs = None, scene.hex_marks.get(h), ""
    counter = by_hex.get(h)
    if counter is not None:
        fg = counter.color or scene.side_colors[counter.side % len(scene.side_colors)]
        attrs += _DIM if counter.disordered else _BOLD
        if counter.highlight:
            attrs += _REVERSE
    elif scene.terrain[h] != plain_terrain:
        fg = scene.terrain_colors.get(scene.terrain[h])
    if h in named:
        attrs += _UNDERLINE
    return fg, bg, attrs


def _top_counters(scene) -> dict[int, object]:
    """The counter that gives each hex its colour: a unit before leaders, standards and markers."""
    out = {}
    for c in scene.counters:
        if c.hex < 0:
            continue
        if c.hex not in out or (out[c.hex].kind in ("leader", "standard") and c.kind not in ("leader", "standard")):
            out[c.hex] = c
    return out


def color_map(engine, state, text: str, named_hexes: set[int] = frozenset(), viewer: int | None = None) -> str:
    """``engine.render_ansi(state, viewer)`` text with colours added (only escape codes are inserted:
    with the codes stripped it is the same text). Battles without a layout in :data:`MAP_CELLS` get
    only the side names and rule cases coloured."""
    scene = engine.scene(state, viewer)
    lines = text.split("\n")
    cells = MAP_CELLS[engine.name](scene.grid) if engine.name in MAP_CELLS else {}
    map_lines = {line for line, _, _ in cells.values()}
    by_hex = _top_counters(scene)
    plain = Tally(scene.terrain).most_common(1)[0][0] if scene.terrain else ""
    spans: dict[int, list[tuple[int, int, tuple]]] = {}
    for h, (line, col, width) in cells.items():
        style = _cell_style(scene, h, by_hex, plain, named_hexes)
        if any(style) and line < len(lines) and col < len(lines[line]):
            spans.setdefault(line, []).append((col, width, style))
    for line, row in spans.items():
        s = lines[line]
        for col, width, (fg, bg, attrs) in sorted(row, reverse=True):  # right to left keeps columns valid
            s = s[:col] + _paint(s[col:col + width], fg, bg, attrs) + s[col + width:]
        lines[line] = s
    for i, s in enumerate(lines):
        if i not in map_lines:
            lines[i] = _color_text_line(s, scene)
    return "\n".join(lines)


def _color_text_line(line: str, scene) -> str:
    """A track or event line: rule cases in cyan, side names in their colours."""
    line = _RULE_CASE.sub(lambda m: _paint(m.group(), "cyan"), line)
    for side, name in enumerate(scene.side_names):
        if name and name in line:
            line = line.replace(name, _paint(name, scene.side_colors[side % len(scene.side_colors)], attrs=_BOLD))
    return line


# ============================================================================ options menu
def counter_hexes(scene) -> dict[str, int]:
    """``{counter label: hex}`` for the counters whose label is unique on the map and at least three
    characters long (unit names, not "wagon" or type letters), so "activate Hubaldt" names the hex
    of the counter labelled "Hubaldt" (labels may be cut short: a label names the words it begins)."""
    labels = Tally(c.label for c in scene.counters if c.hex >= 0)
    return {c.label: c.hex for c in scene.counters
            if c.hex >= 0 and labels[c.label] == 1 and len(c.label) >= 3 and c.label[0].isalpha()}


def _is_number(text: str) -> bool:
    """Plain ASCII digits (``str.isdigit`` also accepts "²", which ``int`` refuses)."""
    return text.isascii() and text.isdigit()


class Menu:
    """The legal options of one decision, numbered from 1, with the hexes each option names: the
    hex ids it prints, and the hexes of the counters it names (``counter_hexes``)."""

    def __init__(self, engine, state, legal: list[int], hex_ids: dict[str, int],
                 counters: dict[str, int] | None = None):
        self.actions = legal
        self.labels = [engine.action_to_str(state, a) for a in legal]
        self.hex_ids = hex_ids
        self.counters = [(re.compile(r"(?<!\w)" + re.escape(label)), h) for label, h in (counters or {}).items()]
        self.by_hex: dict[int, list[int]] = {}
        for item, label in enumerate(self.labels):
            for h in self.hexes_named(label):
                self.by_hex.setdefault(h, []).append(item)

    def hexes_named(self, label: str) -> list[int]:
        """Hexes whose printed id appears as a word of ``label``, then the hexes of the counters it
        names (each once)."""
        found = []
        for token in _NUMBER_TOKEN.findall(label):
            h = self.hex_ids.get(token)
            if h is not None and h not in found:
                found.append(h)
        for pattern, h in self.counters:
            if h not in found and pattern.search(label):
                found.append(h)
        return found

    def line(self, item: int) -> str:
        return f"{item + 1:>3}) {self.labels[item]}"

    def common_prefix(self) -> str:
        """The words every option begins with ("Hepburn's Reserve: horse 0617 "), or ""."""
        prefix = os.path.commonprefix(self.labels) if len(self.labels) > 1 else ""
        prefix = prefix[:prefix.rfind(" ") + 1]
        return prefix if len(prefix) >= 8 and all(len(label) > len(prefix) for label in self.labels) else ""

    def render(self, width: int) -> str:
        """The numbered options; many options are laid out in columns, with the words they all
        begin with printed once above them."""
        if len(self.labels) <= MENU_ONE_COLUMN:
            return "\n".join(self.line(i) for i in range(len(self.labels)))
        prefix = self.common_prefix()
        entries = [f"{i + 1:>3}) {label[len(prefix):]}" for i, label in enumerate(self.labels)]
        head = [f"{prefix}..."] if prefix else []
        col_w = min(max(len(e) for e in entries) + 2, max(20, width))
        n_cols = max(1, width // col_w)
        n_rows = -(-len(entries) // n_cols)
        rows = []
        for r in range(n_rows):
            row = [entries[c * n_rows + r] for c in range(n_cols) if c * n_rows + r < len(entries)]
            rows.append("".join(e[:col_w - 2].ljust(col_w) for e in row).rstrip())
        return "\n".join(head + rows)

    def choose(self, text: str) -> int | str:
        """The action an entry picks (an ``int``), or why it picks none (a ``str``)."""
        n = len(self.labels)
        if text.startswith("#"):
            return self._item(text[1:])
        if text.startswith("@"):
            return self._hex(text[1:].strip())
        is_item = _is_number(text) and not text.startswith("0") and 1 <= int(text) <= n  # "04" is a hex id
        is_hex = text in self.hex_ids and self.hex_ids[text] in self.by_hex
        if is_item and is_hex:
            item, by_hex = int(text) - 1, self.by_hex[self.hex_ids[text]]
            if by_hex == [item]:
                return self.actions[item]
            return (f"'{text}' is both option {text} ({self.labels[item]}) and hex {text}: "
                    f"type #{text} for the option or @{text} for the hex")
        if is_item:
            return self.actions[int(text) - 1]
        if text in self.hex_ids:
            return self._hex(text)
        if _is_number(text):
            return f"there is no option {text}: choose 1-{n}" + (", a hex id" if self.by_hex else "") + " or 'help'"
        return f"not understood: {text!r}; type a number 1-{n}" + (", a hex id" if self.by_hex else "") + " or 'help'"

    def _item(self, text: str) -> int | str:
        text = text.strip()
        if not _is_number(text) or not 1 <= int(text) <= len(self.labels):
            return f"there is no option {text or '(none)'}: choose 1-{len(self.labels)}"
        return self.actions[int(text) - 1]

    def _hex(self, text: str) -> int | str:
        if text not in self.hex_ids:
            return f"there is no hex {text or '(none)'} on this map"
        items = self.by_hex.get(self.hex_ids[text], [])
        if not items:
            return f"no legal option names hex {text}; choose from the list ('list' shows it again)"
        if len(items) == 1:
            return self.actions[items[0]]
        shown = "\n".join("  " + self.line(i) for i in items[:12])
        more = f"\n  ... and {len(items) - 12} more" if len(items) > 12 else ""
        return f"hex {text} is named by {len(items)} options; choose one by its number:\n{shown}{more}"


# ============================================================================ the agent
HELP = """\
Entries:
  3          option 3 of the list (#3 forces this reading where 3 is also a hex id)
  0512       a hex id as the map prints it, when exactly one option names that hex (@0512 forces it)
  Enter      the only option, when there is just one
  map, list  show the map or the options again
  undo       take back your last decision (and what the other side did since); not after a die roll
  save PATH  write the game record so far (replay it with: wargames replay PATH)
  quit       stop the game (also Ctrl-D)
Underlined hexes on the map are named by a legal option; the unit being decided about is in reverse video."""


class HumanAgent:
    """An agent whose decisions a person types at the terminal (see the module docstring).

    ``input_fn(prompt) -> str`` reads one entry (default :func:`input`; tests feed a list);
    ``output`` receives everything shown (default: ``sys.stdout`` at the time of writing);
    ``color``: ANSI colours (also off when ``NO_COLOR`` is set).
    """

    name = "human"

    def __init__(self, input_fn: Callable[[str], str] = input, output: TextIO | None = None, color: bool = True):
        self.input_fn = input_fn
        self.output = output
        self.color = bool(color)
        self._env = None
        self._history: list[Snapshot] = []

    # -------------------------------------------------------------- protocol
    def reset(self, seed: int | None = None) -> None:
        """A new game: forget the undo history (the agent has no randomness; ``seed`` is unused)."""
        self._history.clear()

    def attach(self, env) -> None:
        """Give the agent the game (a ``WargameAECEnv`` or a wrapper of one), for undo and save."""
        self._env = getattr(env, "unwrapped", env)
        self._history.clear()

    def act(self, engine, state, player: int, mask: np.ndarray) -> int:
        """Show the position and the numbered legal options, read entries until one picks an action.
        May raise :class:`UndoRequest` or :class:`QuitRequest` (see the module docstring)."""
        legal = np.flatnonzero(mask).tolist()
        if not legal:
            raise ValueError("no legal action: the game is over or the mask is empty")
        self._remember(state)
        scene = engine.scene(state, player)  # the player's own view: no hidden counter is named
        menu = Menu(engine, state, legal, scene.grid.index, counter_hexes(scene))
        side = engine.agents[player]
        self.show_position(engine, state, menu, player)
        self._write(self._menu_text(engine, state, side, menu))
        prompt = f"{side}, {engine.decision_name(state)} [1-{len(legal)}, hex, help]> "
        while True:
            try:
                entry = self.input_fn(prompt)
            except (EOFError, KeyboardInterrupt):
                self._write("")
                raise QuitRequest(f"{side} stopped the game (end of input)") from None
            result = self._handle(entry.strip(), engine, state, player, menu)
            if isinstance(result, int):
                return result
            self._write(result)

    # -------------------------------------------------------------- display
    def show_position(self, engine, state, menu: Menu | None = None, player: int | None = None) -> None:
        """Print the map, tracks and last events, in colour unless switched off; what ``player``
        may not see is left out (``None``: the omniscient view, e.g. at the end)."""
        text = engine.render_ansi(state, player)
        if self.color and colors_enabled():
            text = color_map(engine, state, text, set(menu.by_hex) if menu else set(), player)
        self._write(text)

    def _menu_text(self, engine, state, side: str, menu: Menu) -> str:
        width = shutil.get_terminal_size((120, 40)).columns
        head = f"{side} to decide ({engine.decision_name(state)}): {len(menu.labels)} option(s)"
        if self.color and colors_enabled():
            head = _paint(head, attrs=_BOLD)
        return f"{head}\n{menu.render(width)}"

    def _write(self, text: str) -> None:
        out = self.output if self.output is not None else sys.stdout
        out.write(text + "\n")
        out.flush()

    # -------------------------------------------------------------- entries
    def _handle(self, entry: str, engine, state, player: int, menu: Menu) -> int | str:
        """One entry: an action (``int``), or a message to show (``str``); raises for undo/quit."""
        side = engine.agents[player]
        word, _, rest = entry.partition(" ")
        word = word.lower()
        if entry == "":
            if len(menu.actions) == 1:
                return menu.actions[0]
            return f"type a number 1-{len(menu.actions)}, a hex id, or 'help'"
        if word in ("help", "?", "h"):
            return HELP
        if word in ("map", "m"):
            self.show_position(engine, state, menu, player)
            return self._menu_text(engine, state, side, menu)
        if word in ("list", "l"):
            return self._menu_text(engine, state, side, menu)
        if word in ("undo", "u"):
            return self._undo()
        if word == "save":
            return self._save(rest.strip())
        if word in ("quit", "q", "exit"):
            raise QuitRequest(f"{side} quit")
        return menu.choose(entry)

    def _remember(self, state) -> None:
        """Keep the position before this decision for undo (only when a game is attached)."""
        env = self._env
        if env is None or env.record is None or env.dice is None:
            return
        decisions = len(env.record.actions)
        while self._history and self._history[-1].decisions >= decisions:
            self._history.pop()  # stale: the game was rewound past it
        self._history.append(Snapshot(state.clone(), env.dice.count, decisions))

    def _undo(self) -> str:
        """Raise :class:`UndoRequest` for the previous decision, or say why it cannot be undone."""
        if self._env is None:
            return "undo is not available here: no game is attached (it is in 'wargames play')"
        if len(self._history) < 2:
            return "nothing to undo: this is your first decision"
        previous = self._history[-2]
        rolled = self._env.dice.count - previous.dice_count
        if rolled:
            return (f"cannot undo: {rolled} die roll(s) since your last decision "
                    f"(undo is allowed only while no die has been rolled)")
        del self._history[-2:]  # act() will remember that position again when it is asked
        raise UndoRequest(previous.decisions, previous.state.digest())

    def _save(self, path: str) -> str:
        """Write the record so far to ``path``; the message says where, or why not."""
        if not path:
            return "save needs a file name, e.g.: save game.json"
        if self._env is None or self._env.record is None:
            return "save is not available here: no game is attached (it is in 'wargames play')"
        target = Path(path).expanduser()
        if target.is_dir():
            return f"cannot save: {target} is a folder; give a file name, e.g. {target / 'game.json'}"
        try:
            written = self._env.record.save(target)
        except OSError as exc:
            return f"cannot save to {target}: {exc.strerror or exc}"
        n = len(self._env.record.actions)
        return f"saved the game record ({n} decisions) to {written}; replay it with: wargames replay {written}"
