"""Shared rendering: Pillow images of synthetic scenes and the generic text hex map."""

from __future__ import annotations

import numpy as np
import pytest

from wargame_envs.core import Counter, HexGrid, Scene
from wargame_envs.core.ansi import color, fit, hex_map_text, strip_ansi
from wargame_envs.core.render import MAX_WIDTH, hex_geometry, render_rgb, save_gif, save_png

pytest.importorskip("PIL")

KINDS = ("cavalry", "infantry", "artillery", "leader", "wagon", "standard", "unit")


def pointy_grid() -> HexGrid:
    """Berestechko's 7 x 7 map: hex XY is line X (row), position Y (column), "even-r"."""
    coords = [(y, x) for x in range(7) for y in range(1, 8)]
    return HexGrid([f"{x}{y}" for y, x in coords], coords, "even-r")


def flat_grid(cols: int = 40, rows: int = 25) -> HexGrid:
    """A ~1000-hex flat-top map with XXYY ids, "even-q"."""
    coords = [(c, r) for c in range(1, cols + 1) for r in range(1, rows + 1)]
    return HexGrid([f"{c:02d}{r:02d}" for c, r in coords], coords, "even-q")


def scene_for(grid: HexGrid, counters=(), **kw) -> Scene:
    terrain = ["clear" if i % 5 else "woods" for i in range(grid.n)]
    return Scene(grid, terrain, {"clear": (225, 218, 175), "woods": (115, 155, 95)}, list(counters), **kw)


def hex_box(scene: Scene, image: np.ndarray, hex_index: int) -> np.ndarray:
    """The pixels of a square well inside hex ``hex_index``."""
    centers, size = hex_geometry(scene)
    x, y = centers[hex_index]
    r = int(size * 0.4)
    return image[int(y) - r:int(y) + r, int(x) - r:int(x) + r]


@pytest.mark.parametrize("grid", [pointy_grid(), flat_grid()], ids=["pointy-49", "flat-1000"])
def test_image_shape_and_content(grid):
    counters = [Counter(i * 3, i % 2, f"U{i}", KINDS[i % len(KINDS)], disordered=i % 3 == 0, marks="A",
                        values="3-2", facing_deg=60.0 * i, highlight=i == 1) for i in range(12)]
    counters += [Counter(40, 0, "Stack", "cavalry"), Counter(40, 1, "Leader", "leader", color=(30, 140, 60))]
    scene = scene_for(grid, counters, hexsides=[(0, int(grid.adjacent[0][0]), (30, 60, 200), 4)],
                      hex_marks={7: (255, 0, 200)}, title="Test", tracks=["Round 1"],
                      events=[f"event {k} " + "word " * 30 for k in range(20)])
    image = render_rgb(scene)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[1] <= MAX_WIDTH
    packed = image.astype(np.int32) @ np.array([1 << 16, 1 << 8, 1], dtype=np.int32)
    assert len(np.unique(packed)) > 20  # many colours, not a blank canvas


@pytest.mark.parametrize("grid", [pointy_grid(), flat_grid()], ids=["pointy-49", "flat-1000"])
def test_counters_change_pixels_at_their_hex(grid):
    target, elsewhere = grid.n // 2, 1
    empty = scene_for(grid)
    full = scene_for(grid, [Counter(target, 1, "Hrunka", "cavalry", values="4")])
    before, after = render_rgb(empty), render_rgb(full)
    assert before.shape == after.shape
    assert (hex_box(full, before, target) != hex_box(full, after, target)).any(axis=2).mean() > 0.3
    assert np.array_equal(hex_box(full, before, elsewhere), hex_box(full, after, elsewhere))
    # Counter.color overrides the side colour.
    green = render_rgb(scene_for(grid, [Counter(target, 1, "Tatars", "cavalry", color=(0, 200, 0))]))
    assert ((hex_box(full, green, target) == (0, 200, 0)).all(axis=2)).mean() > 0.2


def test_every_counter_of_a_stack_is_drawn():
    grid = pointy_grid()
    for n in range(1, 7):
        colours = [(40 * k, 250 - 30 * k, 90) for k in range(n)]
        image = render_rgb(scene_for(grid, [Counter(24, 0, "", "unit", color=c) for c in colours]))
        for c in colours:
            assert (image == c).all(axis=2).any(), f"counter {c} of a stack of {n} is hidden"


def test_non_ascii_text_is_folded_for_the_default_font():
    grid = pointy_grid()
    polish = scene_for(grid, [Counter(10, 0, "Wiśniowiecki", "cavalry")], events=["Łoś 52→32"])
    plain = scene_for(grid, [Counter(10, 0, "Wisniowiecki", "cavalry")], events=["Los 52->32"])
    assert np.array_equal(render_rgb(polish), render_rgb(plain))


def test_hex_ids_can_be_hidden():
    grid = pointy_grid()
    assert not np.array_equal(render_rgb(scene_for(grid)), render_rgb(scene_for(grid, show_hex_ids=False)))


def test_malformed_scenes_are_named():
    scene = scene_for(pointy_grid())
    scene.terrain = scene.terrain[:-1]
    with pytest.raises(ValueError, match="48 terrain entries for 49 hexes"):
        render_rgb(scene)
    with pytest.raises(ValueError, match="counter 'Gone' is on hex index -1"):
        render_rgb(scene_for(pointy_grid(), [Counter(-1, 0, "Gone")]))
    with pytest.raises(ValueError, match="hex index 49"):
        render_rgb(scene_for(pointy_grid(), hex_marks={49: (255, 0, 0)}))


def test_save_png_and_gif(tmp_path):
    from PIL import Image

    frames = [render_rgb(scene_for(pointy_grid(), [Counter(h, 0, "U", "infantry")])) for h in (3, 4, 5)]
    png = save_png(frames[0], tmp_path / "a" / "map.png")
    assert np.array_equal(np.asarray(Image.open(png).convert("RGB")), frames[0])
    gif = save_gif(iter(frames), tmp_path / "game.gif", duration_ms=100)
    assert Image.open(gif).n_frames == 3
    with pytest.raises(ValueError, match="shape"):
        save_gif([frames[0], frames[0][:10]], tmp_path / "bad.gif")
    assert not (tmp_path / "bad.gif").exists()


# --------------------------------------------------------------------------- text maps
def test_pointy_text_map_indents_shoved_rows():
    grid = pointy_grid()
    text = hex_map_text(grid, list(grid.ids), 4)
    lines = text.splitlines()
    assert len(lines) == 7 and all(h in text for h in grid.ids)
    assert lines[0].startswith("  01  02") and lines[1].startswith("11  12")  # even-r: even rows shoved


def test_flat_text_map_has_two_lines_per_row():
    grid = flat_grid(8, 4)
    lines = hex_map_text(grid, list(grid.ids), 5).splitlines()
    assert len(lines) == 8
    assert lines[0].split() == ["0101", "0301", "0501", "0701"]  # unshifted (odd) columns
    assert lines[1].split() == ["0201", "0401", "0601", "0801"]  # even-q: even columns half a hex lower
    assert lines[1].index("0201") == 5


def test_every_hex_id_in_a_large_text_map():
    grid = flat_grid()
    text = hex_map_text(grid, list(grid.ids), 5)
    assert all(h in text for h in grid.ids)


def test_text_map_cells_with_colour_keep_alignment(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    grid = pointy_grid()
    cells = [color(h, (200, 0, 0)) if i % 2 else h for i, h in enumerate(grid.ids)]
    assert strip_ansi(hex_map_text(grid, cells, 4)) == hex_map_text(grid, list(grid.ids), 4)


def test_color_and_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert color("x", "red") == "\x1b[31mx\x1b[0m"
    assert color("x", (1, 2, 3), background=True) == "\x1b[48;2;1;2;3mx\x1b[0m"
    assert color("x", "red", enable=False) == "x"
    monkeypatch.setenv("NO_COLOR", "1")
    assert color("x", "red") == "x"
    monkeypatch.delenv("NO_COLOR")
    with pytest.raises(ValueError, match="unknown colour name 'mauve'"):
        color("x", "mauve")


def test_fit_pads_and_cuts_visible_characters(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert fit("ab", 4) == "ab  "
    assert fit("abcdef", 3) == "abc"
    red = color("abcdef", "red")
    assert strip_ansi(fit(red, 3)) == "abc" and fit(red, 3).endswith("\x1b[0m")


# --------------------------------------------------------------------------- human mode
def test_show_human_without_display_prints_text(monkeypatch, capsys):
    from wargame_envs.core import render

    monkeypatch.setattr(render, "has_display", lambda: False)
    assert render.show_human(np.zeros((4, 4, 3), np.uint8), "the text map", None) is None
    assert capsys.readouterr().out == "the text map\n"
    render.close_human(None)


def test_show_human_reuses_its_window(monkeypatch):
    matplotlib = pytest.importorskip("matplotlib")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from wargame_envs.core import render

    monkeypatch.setattr(render, "has_display", lambda: True)
    image = np.zeros((40, 60, 3), np.uint8)
    viewer = render.show_human(image, "", None)
    assert render.show_human(image + 50, "", viewer) is viewer
    assert (viewer.image.get_array() == 50).all()
    render.close_human(viewer)
    assert not plt.fignum_exists(viewer.fig.number)
