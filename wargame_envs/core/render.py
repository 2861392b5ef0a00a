"""Pillow renderer shared by every battle: a :class:`~wargame_envs.core.render_scene.Scene` -> RGB image.

The image is the hex map on the left (terrain fill, hex outlines, hex ids, hexside features, outlined
hex marks, unit counters) and a side panel on the right (title, sides, tracks, last events). The hex
size is picked so the whole image stays within about ``MAX_WIDTH`` x ``MAX_HEIGHT`` pixels, from a
49-hex pointy-top map (big hexes) to a ~1000-hex flat-top one (small hexes).

Pillow and matplotlib are imported inside the functions only, so ``wargame_envs.core`` imports
without them. ``show_human`` opens a matplotlib window where a display exists and prints the text
render otherwise.
"""

from __future__ import annotations

import math
import os
import sys
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .render_scene import RGB, Counter, Scene

MAX_WIDTH = 1600            # whole image, map + panel
MAX_HEIGHT = 1600
PANEL_WIDTH = 340
MAX_HEX_SIZE = 56           # circumradius in pixels; small maps stop growing here
MIN_HEX_SIZE = 12
MAX_EVENTS = 12
MIN_HEIGHT = 600           # room for the panel on short maps

BACKGROUND: RGB = (236, 230, 214)
PANEL_BACKGROUND: RGB = (248, 246, 240)
HEX_OUTLINE: RGB = (110, 105, 95)
UNKNOWN_TERRAIN: RGB = (205, 205, 205)
TEXT: RGB = (25, 25, 25)
HIGHLIGHT: RGB = (255, 200, 0)
STRIPE: RGB = (255, 255, 255)


# --------------------------------------------------------------------------- fonts
@lru_cache(maxsize=64)
def _font(size: int):
    """Pillow's default font at ``size`` px (Pillow>=10.1 with FreeType), else the fixed bitmap font."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=max(6, int(size)))
    except (TypeError, ImportError, OSError):
        return ImageFont.load_default()


# Pillow's default font has ASCII glyphs only (and is the same on every machine, so images are
# reproducible): other characters are folded to ASCII before drawing.
_ASCII_FOLD = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ß": "ss", "æ": "ae",
                             "Æ": "AE", "œ": "oe", "Œ": "OE", "—": "-", "–": "-", "→": "->", "←": "<-", "’": "'",
                             "‘": "'", "“": '"', "”": '"', "…": "...", "×": "x", "·": "."})


def _printable(text: str) -> str:
    """``text`` in ASCII: accents dropped ("Wiśniowiecki" -> "Wisniowiecki"), a few symbols spelled out."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKD", text.translate(_ASCII_FOLD))
    return "".join(ch for ch in text if not unicodedata.combining(ch)).encode("ascii", "replace").decode("ascii")


def _text_width(draw, text: str, font) -> float:
    return draw.textlength(text, font=font)


def _text_height(font) -> int:
    box = font.getbbox("Hg")
    return int(box[3] - box[1])


def _draw_centered(draw, xy: tuple[float, float], text: str, font, fill: RGB, stroke: RGB | None = None):
    """Text centred on ``xy``; with ``stroke`` a 1 px outline in that colour (FreeType fonts only)."""
    from PIL import ImageFont

    kw: dict[str, Any] = {}
    if stroke is not None and isinstance(font, ImageFont.FreeTypeFont):
        kw = {"stroke_width": 1, "stroke_fill": stroke}
    try:
        draw.text(xy, text, font=font, fill=fill, anchor="mm", **kw)
    except ValueError:  # bitmap fonts have no anchors
        w, h = _text_width(draw, text, font), _text_height(font)
        draw.text((xy[0] - w / 2, xy[1] - h / 2), text, font=font, fill=fill)


def _contrast(rgb: RGB) -> RGB:
    """Black or white, whichever reads better on ``rgb``."""
    r, g, b = rgb
    return TEXT if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (255, 255, 255)


# --------------------------------------------------------------------------- layout
@dataclass
class _Layout:
    size: float                 # hex circumradius in px
    centers: np.ndarray         # (N, 2) pixel centres
    map_w: int
    map_h: int
    width: int                  # whole image
    height: int


def _layout(scene: Scene) -> _Layout:
    unit = scene.grid.pixel_centers(1.0)
    span_x = float(unit[:, 0].max()) + 1.2      # pixel_centers leaves a 1.2-size margin at the top left
    span_y = float(unit[:, 1].max()) + 1.2
    size = min(MAX_HEX_SIZE, (MAX_WIDTH - PANEL_WIDTH) / span_x, MAX_HEIGHT / span_y)
    size = max(MIN_HEX_SIZE, size)
    centers = scene.grid.pixel_centers(size)
    map_w, map_h = int(math.ceil(span_x * size)), int(math.ceil(span_y * size))
    return _Layout(size, centers, map_w, map_h, map_w + PANEL_WIDTH, max(map_h, MIN_HEIGHT))


def _hex_polygons(scene: Scene, lay: _Layout, scale: float = 1.0) -> np.ndarray:
    """``(N, 6, 2)`` corner points of every hex (``scale`` < 1 insets them)."""
    start = 30.0 if scene.grid.pointy else 0.0
    ang = np.radians(start + 60.0 * np.arange(6))
    ring = np.stack([np.cos(ang), np.sin(ang)], axis=1) * lay.size * scale
    return lay.centers[:, None, :] + ring[None, :, :]


# --------------------------------------------------------------------------- the map
def _draw_terrain(draw, scene: Scene, lay: _Layout, polys: np.ndarray) -> None:
    width = 1 if lay.size < 24 else 2
    for i in range(scene.grid.n):
        fill = scene.terrain_colors.get(scene.terrain[i], UNKNOWN_TERRAIN)
        draw.polygon([tuple(p) for p in polys[i]], fill=tuple(fill), outline=HEX_OUTLINE, width=width)


def _draw_hexsides(draw, scene: Scene, lay: _Layout) -> None:
    """A thick line along the edge hexes ``a`` and ``b`` share (perpendicular to a->b, one hex side long)."""
    for a, b, rgb, width in scene.hexsides:
        ca, cb = lay.centers[a], lay.centers[b]
        d = cb - ca
        norm = float(np.hypot(*d))
        if norm == 0:
            continue
        mid, perp = (ca + cb) / 2, np.array([-d[1], d[0]]) / norm * lay.size / 2
        draw.line([tuple(mid - perp), tuple(mid + perp)], fill=tuple(rgb), width=max(1, int(width)))


def _draw_hex_marks(draw, scene: Scene, lay: _Layout) -> None:
    inset = _hex_polygons(scene, lay, 0.86)
    width = max(2, int(lay.size / 12))
    for i, rgb in scene.hex_marks.items():
        draw.polygon([tuple(p) for p in inset[i]], outline=tuple(rgb), width=width)


def _draw_hex_ids(draw, scene: Scene, lay: _Layout) -> None:
    font = _font(max(7, int(lay.size * 0.25)))
    # Just inside the top of the hex, above a single counter: below the top vertex (pointy) or edge (flat).
    dy = lay.size * (0.74 if scene.grid.pointy else 0.71)
    for i, hex_id in enumerate(scene.grid.ids):
        x, y = lay.centers[i]
        _draw_centered(draw, (x, y - dy), _printable(hex_id), font, (70, 70, 70))


# --------------------------------------------------------------------------- counters
def _stack_slots(n: int, size: float) -> list[tuple[float, float, float]]:
    """``(dx, dy, token side)`` for ``n`` counters sharing a hex, so each stays visible."""
    if n == 1:
        return [(0.0, 0.0, size * 1.1)]   # the inscribed square has side 1.27 * size
    if n == 2:
        t = size * 0.74
        return [(-0.40 * size, 0.0, t), (0.40 * size, 0.0, t)]
    if n <= 4:
        t, o = size * 0.62, size * 0.34
        return [(dx, dy, t) for dy in (-o, o) for dx in (-o, o)][:n]
    # Larger stacks: a diagonal cascade, like a real stack of counters.
    t = size * 0.6
    step = min(size * 0.8 / (n - 1), t * 0.35)
    first = -step * (n - 1) / 2
    return [(first + k * step, first + k * step, t) for k in range(n)]


def _star(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    pts = []
    for k in range(10):
        rad = r if k % 2 == 0 else r * 0.42
        ang = math.radians(-90 + 36 * k)
        pts.append((cx + rad * math.cos(ang), cy + rad * math.sin(ang)))
    return pts


def _draw_symbol(draw, kind: str, cx: float, cy: float, t: float, ink: RGB) -> None:
    """A small NATO-like symbol for ``kind``, centred on ``(cx, cy)`` within a token of side ``t``."""
    w, h = t * 0.5, t * 0.28
    x0, y0, x1, y1 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
    lw = max(1, int(t / 28))
    if kind == "leader":
        draw.polygon(_star(cx, cy, h * 0.8), fill=ink)
        return
    if kind == "standard":  # a pole and a pennant
        draw.line([(x0 + w * 0.3, y1 + h * 0.2), (x0 + w * 0.3, y0 - h * 0.3)], fill=ink, width=lw)
        draw.polygon([(x0 + w * 0.3, y0 - h * 0.3), (x1, y0 + h * 0.05), (x0 + w * 0.3, y0 + h * 0.45)], fill=ink)
        return
    if kind == "wagon":  # a wagon body on two wheels
        draw.rectangle([x0, y0, x1, y1 - h * 0.25], outline=ink, width=lw)
        r = h * 0.18
        for wx in (x0 + w * 0.25, x1 - w * 0.25):
            draw.ellipse([wx - r, y1 - r, wx + r, y1 + r], fill=ink)
        return
    draw.rectangle([x0, y0, x1, y1], outline=ink, width=lw)
    if kind in ("cavalry", "infantry"):
        draw.line([(x0, y1), (x1, y0)], fill=ink, width=lw)
    if kind == "infantry":
        draw.line([(x0, y0), (x1, y1)], fill=ink, width=lw)
    if kind == "artillery":
        r = h * 0.22
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=ink)


def _draw_facing(draw, cx: float, cy: float, t: float, deg: float) -> None:
    """An arrow from the token centre out past its edge, pointing ``deg`` (0 = east, 90 = north)."""
    ux, uy = math.cos(math.radians(deg)), -math.sin(math.radians(deg))
    tip = (cx + ux * t * 0.78, cy + uy * t * 0.78)
    base = (cx + ux * t * 0.5, cy + uy * t * 0.5)
    back = (tip[0] - ux * t * 0.2, tip[1] - uy * t * 0.2)
    px, py = -uy * t * 0.11, ux * t * 0.11
    draw.line([base, back], fill=TEXT, width=max(2, int(t / 14)))
    draw.polygon([tip, (back[0] + px, back[1] + py), (back[0] - px, back[1] - py)], fill=TEXT)


def _draw_counter(draw, scene: Scene, c: Counter, cx: float, cy: float, t: float) -> None:
    fill = tuple(c.color) if c.color is not None else tuple(scene.side_colors[c.side % len(scene.side_colors)])
    ink = _contrast(fill)
    half = t / 2
    box = [cx - half, cy - half, cx + half, cy + half]
    if c.highlight:
        r = half * 1.42
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=HIGHLIGHT, width=max(3, int(t / 10)))
    draw.rectangle([box[0] + 2, box[1] + 2, box[2] + 2, box[3] + 2], fill=(60, 55, 50))  # drop shadow
    draw.rectangle(box, fill=fill, outline=(20, 20, 20), width=1)
    if c.disordered:
        draw.line([(box[0] + 1, cy - t * 0.02), (box[2] - 1, cy - t * 0.02)], fill=STRIPE, width=max(2, int(t * 0.16)))
    _draw_symbol(draw, c.kind, cx, cy - t * 0.17, t, ink)
    big, small = _font(max(7, int(t * 0.27))), _font(max(6, int(t * 0.22)))
    stroke = _contrast(ink) if t >= 40 else None  # an outline only helps text big enough to carry it
    label, values, marks = _printable(c.label), _printable(c.values), _printable(c.marks)
    if label:
        _draw_centered(draw, (cx, cy + t * 0.12), _fit(draw, label, big, t * 0.96), big, ink, stroke)
    if values:
        _draw_centered(draw, (cx, cy + t * 0.36), _fit(draw, values, small, t * 0.96), small, ink, stroke)
    if marks:
        mw = _text_width(draw, marks, small)
        _draw_centered(draw, (box[2] - mw / 2 - 2, box[1] + t * 0.12), marks, small, ink, stroke)
    if c.facing_deg is not None:
        _draw_facing(draw, cx, cy, t, float(c.facing_deg))


def _fit(draw, text: str, font, width: float) -> str:
    """``text`` cut (with a trailing '.') so it fits ``width`` pixels."""
    if _text_width(draw, text, font) <= width:
        return text
    while len(text) > 1 and _text_width(draw, text + ".", font) > width:
        text = text[:-1]
    return text + "."


def _draw_counters(draw, scene: Scene, lay: _Layout) -> None:
    by_hex: dict[int, list[Counter]] = {}
    for c in scene.counters:
        by_hex.setdefault(c.hex, []).append(c)
    for h, stack in by_hex.items():
        x, y = lay.centers[h]
        for c, (dx, dy, t) in zip(stack, _stack_slots(len(stack), lay.size)):
            _draw_counter(draw, scene, c, x + dx, y + dy, t)


# --------------------------------------------------------------------------- side panel
def _wrap(draw, text: str, font, width: float) -> list[str]:
    """Greedy word wrap to ``width`` pixels (over-long words are cut); folds ``text`` to ASCII."""
    lines, line = [], ""
    for word in _printable(text).split():
        trial = f"{line} {word}" if line else word
        if _text_width(draw, trial, font) <= width:
            line = trial
            continue
        if line:
            lines.append(line)
        line = _fit(draw, word, font, width)
    if line:
        lines.append(line)
    return lines or [""]


def _draw_panel(draw, scene: Scene, lay: _Layout) -> None:
    x0, pad = lay.map_w, 14
    draw.rectangle([x0, 0, lay.width, lay.height], fill=PANEL_BACKGROUND)
    draw.line([(x0, 0), (x0, lay.height)], fill=HEX_OUTLINE, width=2)
    text_w = PANEL_WIDTH - 2 * pad
    title_font, font = _font(18), _font(13)
    line_h = _text_height(font) + 5
    x, y = x0 + pad, pad
    for line in _wrap(draw, scene.title, title_font, text_w) if scene.title else []:
        draw.text((x, y), line, font=title_font, fill=TEXT)
        y += _text_height(title_font) + 6
    y += 4
    for side, name in enumerate(scene.side_names):
        rgb = scene.side_colors[side % len(scene.side_colors)]
        draw.rectangle([x, y + 1, x + 12, y + 13], fill=tuple(rgb), outline=TEXT)
        draw.text((x + 20, y), _fit(draw, _printable(name), font, text_w - 20), font=font, fill=TEXT)
        y += line_h + 2
    y += 6
    for track in scene.tracks:
        for line in _wrap(draw, track, font, text_w):
            draw.text((x, y), line, font=font, fill=TEXT)
            y += line_h
    if not scene.events:
        return
    y += 10
    draw.text((x, y), "Events", font=title_font, fill=TEXT)
    y += _text_height(title_font) + 8
    # Newest events win when space runs out; an event is shown whole or not at all.
    room = max(0, (lay.height - pad - y) // line_h)
    shown: list[list[str]] = []
    for event in reversed(scene.events[-MAX_EVENTS:]):
        wrapped = _wrap(draw, event, font, text_w - 10)
        lines = ["- " + wrapped[0]] + ["  " + w for w in wrapped[1:]]
        if len(lines) > room:
            break
        shown.insert(0, lines)
        room -= len(lines)
    for line in (line for lines in shown for line in lines):
        draw.text((x, y), line, font=font, fill=(55, 55, 55))
        y += line_h


# --------------------------------------------------------------------------- public API
def _check_scene(scene: Scene) -> None:
    """Hex indices must be on the map: an off-map -1 would silently draw at the last hex."""
    n = scene.grid.n
    if len(scene.terrain) != n:
        raise ValueError(f"scene has {len(scene.terrain)} terrain entries for {n} hexes")
    for c in scene.counters:
        if not 0 <= c.hex < n:
            raise ValueError(f"counter {c.label!r} is on hex index {c.hex}, not one of the map's {n} hexes "
                             "(leave off-map units out of the scene)")
    for h in [*scene.hex_marks, *(i for a, b, *_ in scene.hexsides for i in (a, b))]:
        if not 0 <= h < n:
            raise ValueError(f"hex mark or hexside on hex index {h}, not one of the map's {n} hexes")


def render_rgb(scene: Scene) -> np.ndarray:
    """The scene as an ``(H, W, 3)`` uint8 RGB array (map on the left, panel on the right)."""
    from PIL import Image, ImageDraw

    _check_scene(scene)
    lay = _layout(scene)
    img = Image.new("RGB", (lay.width, lay.height), BACKGROUND)
    draw = ImageDraw.Draw(img)
    polys = _hex_polygons(scene, lay)
    _draw_terrain(draw, scene, lay, polys)
    _draw_hexsides(draw, scene, lay)
    if scene.show_hex_ids:
        _draw_hex_ids(draw, scene, lay)
    _draw_counters(draw, scene, lay)
    _draw_hex_marks(draw, scene, lay)  # over the counters: a marked hex may be occupied
    _draw_panel(draw, scene, lay)
    return np.asarray(img, dtype=np.uint8)


def hex_geometry(scene: Scene) -> tuple[np.ndarray, float]:
    """``(centres (N, 2), hex circumradius)`` in pixels of the image :func:`render_rgb` draws for
    ``scene`` (to test pixels, or to map a mouse click to a hex)."""
    lay = _layout(scene)
    return lay.centers, lay.size


def has_display() -> bool:
    """Whether a window can be opened: any non-Linux OS, or Linux with X11/Wayland."""
    return not sys.platform.startswith("linux") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


@dataclass
class _Window:
    fig: Any
    image: Any


def show_human(image: np.ndarray, text: str, viewer=None):
    """Show ``image`` in a matplotlib window (created on first call, updated after); without a
    display print ``text`` instead. Returns the viewer to pass back next time."""
    if not has_display():
        print(text, flush=True)
        return viewer
    import matplotlib.pyplot as plt

    if isinstance(viewer, _Window) and plt.fignum_exists(viewer.fig.number):
        viewer.image.set_data(image)
    else:
        plt.ion()
        h, w = image.shape[:2]
        fig = plt.figure(figsize=(w / 100, h / 100), dpi=100)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        viewer = _Window(fig, ax.imshow(image))
    viewer.fig.canvas.draw_idle()
    plt.pause(0.001)
    return viewer


def close_human(viewer) -> None:
    if isinstance(viewer, _Window):
        import matplotlib.pyplot as plt

        plt.close(viewer.fig)


def save_png(image: np.ndarray, path: str | Path) -> Path:
    from PIL import Image

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.asarray(image, dtype=np.uint8)).save(path, format="PNG")
    return path


def save_gif(images: Iterable[np.ndarray], path: str | Path, duration_ms: int = 500) -> Path:
    """An animated, looping GIF of same-shaped frames; the last frame is held three times as long.

    ``images`` may be a generator: frames are converted one at a time, and the file is written
    atomically (an error mid-way leaves no half-written GIF)."""
    from PIL import Image

    def frames():
        shape, last = None, None
        for k, im in enumerate(images):
            im = np.asarray(im, dtype=np.uint8)
            if shape is None:
                shape = im.shape
            elif im.shape != shape:
                raise ValueError(f"GIF frame {k} has shape {im.shape}, the first frame {shape}")
            if last is not None:
                yield last
            last = Image.fromarray(im)
            last.info["duration"] = int(duration_ms)
        if last is None:
            raise ValueError("save_gif needs at least one image")
        last.info["duration"] = 3 * int(duration_ms)
        yield last

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    it = frames()
    try:
        first = next(it)
        first.save(tmp, format="GIF", save_all=True, append_images=it, loop=0)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
