"""Text rendering helpers shared by the battles' ``render_ansi``.

``hex_map_text`` lays out one short string per hex as a text hex map, following the grid's offset
convention; ``color`` wraps text in ANSI colour codes (off when ``NO_COLOR`` is set, see
https://no-color.org); ``strip_ansi`` removes them again. Cell strings may contain colour codes:
widths are counted in visible characters.
"""

from __future__ import annotations

import os
import re
from typing import Sequence

from .hexgrid import HexGrid

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_RESET = "\x1b[0m"
_NAMED = {
    "black": 30, "red": 31, "green": 32, "yellow": 33, "blue": 34, "magenta": 35, "cyan": 36, "white": 37,
    "grey": 90, "gray": 90, "bright_red": 91, "bright_green": 92, "bright_yellow": 93, "bright_blue": 94,
    "bright_magenta": 95, "bright_cyan": 96, "bright_white": 97,
}


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def colors_enabled() -> bool:
    """False when the ``NO_COLOR`` environment variable is set to anything non-empty."""
    return not os.environ.get("NO_COLOR")


def color(text: str, rgb_or_name: tuple[int, int, int] | str, enable: bool = True, background: bool = False) -> str:
    """``text`` in a foreground (or ``background``) colour: an ``(r, g, b)`` truecolor triple or a
    name from the 16-colour palette (``"red"``, ``"bright_blue"``, ...)."""
    if not enable or not colors_enabled():
        return text
    if isinstance(rgb_or_name, str):
        try:
            code = _NAMED[rgb_or_name]
        except KeyError:
            raise ValueError(f"unknown colour name {rgb_or_name!r}; known: {sorted(_NAMED)}") from None
        start = f"\x1b[{code + 10 if background else code}m"
    else:
        r, g, b = (int(v) for v in rgb_or_name)
        start = f"\x1b[{48 if background else 38};2;{r};{g};{b}m"
    return f"{start}{text}{_RESET}"


def fit(text: str, width: int) -> str:
    """``text`` padded with spaces or cut to exactly ``width`` visible characters, keeping colour codes."""
    visible = len(strip_ansi(text))
    if visible <= width:
        return text + " " * (width - visible)
    out, shown, pos = [], 0, 0
    for m in _ANSI.finditer(text):
        chunk = text[pos:m.start()][: max(0, width - shown)]
        out.append(chunk)
        shown += len(chunk)
        out.append(m.group())
        pos = m.end()
    out.append(text[pos:][: max(0, width - shown)])
    return "".join(out)


def _place(cells: list[tuple[int, str]], width: int) -> str:
    """One text line: each ``(column, text)`` at its character column, ``width`` characters wide."""
    line, at = [], 0
    for col, text in sorted(cells):
        line.append(" " * (col - at))
        line.append(fit(text, width))
        at = col + width
    return "".join(line).rstrip()


def hex_map_text(grid: HexGrid, cell_text: Sequence[str], cell_width: int) -> str:
    """A text hex map with ``cell_text[i]`` (fitted to ``cell_width`` characters) at hex ``i``.

    Pointy-top grids ("-r"): one line per offset row; the shoved rows (even rows for "even-r", odd
    for "odd-r") are indented by half a cell. Flat-top grids ("-q"): two lines per offset row, the
    unshifted columns on the first and the shoved columns (half a hex lower) on the second.
    """
    if len(cell_text) != grid.n:
        raise ValueError(f"{len(cell_text)} cell texts for {grid.n} hexes")
    parity = 0 if grid.convention.startswith("even") else 1
    cols, rows = grid.offset[:, 0], grid.offset[:, 1]
    col0, row0 = int(cols.min()), int(rows.min())
    half = cell_width // 2
    lines: dict[int, list[tuple[int, str]]] = {}
    for i in range(grid.n):
        col, row = int(cols[i]), int(rows[i])
        if grid.pointy:
            shoved = (row & 1) == parity
            key, x = row - row0, (col - col0) * cell_width + (half if shoved else 0)
        else:
            shoved = (col & 1) == parity
            key, x = 2 * (row - row0) + (1 if shoved else 0), (col - col0) * cell_width
        lines.setdefault(key, []).append((x, cell_text[i]))
    n_lines = max(lines) + 1 if lines else 0
    return "\n".join(_place(lines.get(k, []), cell_width) for k in range(n_lines))


def view_label(side_names: Sequence[str], viewer: int | None) -> str:
    """The line that says whose view a text map or image shows (``viewer``: an agent index, or
    ``None`` for the omniscient view that shows hidden information too)."""
    if viewer is None:
        return "View: omniscient (all hidden information shown)"
    if isinstance(viewer, bool) or not isinstance(viewer, int) or not 0 <= viewer < len(side_names):
        raise ValueError(f"viewer = {viewer!r}: expected None or a player index 0-{len(side_names) - 1}")
    return f"View: {side_names[viewer]} player (only what this side may see)"
