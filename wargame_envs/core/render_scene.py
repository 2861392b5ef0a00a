"""What a battle hands the shared renderer: a :class:`Scene` of plain data.

Engines build a Scene from their state (``Engine.scene``); ``core.render`` turns it into an RGB
image (Pillow) for ``rgb_array``/``human`` modes and replays. Nothing here imports a drawing library.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .hexgrid import HexGrid

RGB = tuple[int, int, int]


@dataclass
class Counter:
    """One counter on the map (or a leader/marker), drawn as a square token in its hex."""

    hex: int                      # grid index
    side: int                     # player index; picks Scene.side_colors unless ``color`` is set
    label: str                    # short name printed on the counter
    kind: str = "unit"            # symbol: cavalry, infantry, wagon, leader, artillery, standard, unit
    color: RGB | None = None      # override of the side colour (e.g. Tatars green)
    disordered: bool = False      # disorganized / disordered / disrupted: drawn with a white stripe
    marks: str = ""               # small text at the top right (activation marks, "R" retired, ...)
    values: str = ""              # small text at the bottom (strength, dice, ...)
    facing_deg: float | None = None  # screen angle of the facing arrow (0 = east, 90 = north)
    highlight: bool = False       # e.g. the unit now activated


@dataclass
class Scene:
    grid: HexGrid
    terrain: list[str]                       # terrain name per hex
    terrain_colors: dict[str, RGB]           # terrain name -> fill colour
    counters: list[Counter] = field(default_factory=list)
    hexsides: list[tuple[int, int, RGB, int]] = field(default_factory=list)  # (a, b, colour, width)
    hex_marks: dict[int, RGB] = field(default_factory=dict)  # hexes to outline (legal targets, ...)
    side_names: tuple[str, ...] = ("side 0", "side 1")
    side_colors: tuple[RGB, ...] = ((200, 40, 40), (40, 70, 200))
    title: str = ""
    tracks: list[str] = field(default_factory=list)   # lines of the side panel (round, commands, ...)
    events: list[str] = field(default_factory=list)   # last events, newest last
    show_hex_ids: bool = True
