"""A :class:`wargame_envs.core.render_scene.Scene` as an SVG hex map, drawn like the PNG renderer.

The geometry is the PNG renderer's own (``core.render.hex_geometry``: the same hex centres and
size, the same stacking of counters in a hex), so the page and ``wargames replay --format png``
show the same map. Each hex polygon carries ``data-hex="<printed id>"`` and each counter group
``data-hex`` and ``data-label``, which the page uses to map a click to the legal options that
name that hex; the hexes named by a legal option get the class ``legal``. Only the map is drawn:
the tracks and events go to the page's side panel as text.
"""

from __future__ import annotations

import math
from html import escape

from wargame_envs.core.render import HEX_OUTLINE, HIGHLIGHT, STRIPE, UNKNOWN_TERRAIN, _contrast, _stack_slots, hex_geometry
from wargame_envs.core.render_scene import RGB, Counter, Scene


def _rgb(c: RGB) -> str:
    return "#%02x%02x%02x" % tuple(int(x) for x in c[:3])


def _num(x: float) -> str:
    return f"{x:.1f}"


def _points(points) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


def _symbol(kind: str, cx: float, cy: float, t: float, ink: str) -> str:
    """The NATO-like symbol ``core.render._draw_symbol`` draws, as SVG."""
    w, h = t * 0.5, t * 0.28
    x0, y0, x1, y1 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
    lw = _num(max(1.0, t / 28))
    if kind == "leader":
        r = h * 0.8
        pts = [(cx + (r if k % 2 == 0 else r * 0.42) * math.cos(math.radians(-90 + 36 * k)),
                cy + (r if k % 2 == 0 else r * 0.42) * math.sin(math.radians(-90 + 36 * k))) for k in range(10)]
        return f'<polygon points="{_points(pts)}" fill="{ink}"/>'
    if kind == "standard":
        px = x0 + w * 0.3
        return (f'<line x1="{_num(px)}" y1="{_num(y1 + h * 0.2)}" x2="{_num(px)}" y2="{_num(y0 - h * 0.3)}" '
                f'stroke="{ink}" stroke-width="{lw}"/><polygon points="{_points([(px, y0 - h * 0.3), (x1, y0 + h * 0.05), (px, y0 + h * 0.45)])}" fill="{ink}"/>')
    if kind == "wagon":
        r = h * 0.18
        wheels = "".join(f'<circle cx="{_num(wx)}" cy="{_num(y1)}" r="{_num(r)}" fill="{ink}"/>'
                         for wx in (x0 + w * 0.25, x1 - w * 0.25))
        return (f'<rect x="{_num(x0)}" y="{_num(y0)}" width="{_num(w)}" height="{_num(h * 0.75)}" fill="none" '
                f'stroke="{ink}" stroke-width="{lw}"/>{wheels}')
    out = f'<rect x="{_num(x0)}" y="{_num(y0)}" width="{_num(w)}" height="{_num(h)}" fill="none" stroke="{ink}" stroke-width="{lw}"/>'
    if kind in ("cavalry", "infantry"):
        out += f'<line x1="{_num(x0)}" y1="{_num(y1)}" x2="{_num(x1)}" y2="{_num(y0)}" stroke="{ink}" stroke-width="{lw}"/>'
    if kind == "infantry":
        out += f'<line x1="{_num(x0)}" y1="{_num(y0)}" x2="{_num(x1)}" y2="{_num(y1)}" stroke="{ink}" stroke-width="{lw}"/>'
    if kind == "artillery":
        out += f'<circle cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(h * 0.22)}" fill="{ink}"/>'
    return out


def _facing(cx: float, cy: float, t: float, deg: float) -> str:
    ux, uy = math.cos(math.radians(deg)), -math.sin(math.radians(deg))
    tip = (cx + ux * t * 0.78, cy + uy * t * 0.78)
    base = (cx + ux * t * 0.5, cy + uy * t * 0.5)
    back = (tip[0] - ux * t * 0.2, tip[1] - uy * t * 0.2)
    px, py = -uy * t * 0.11, ux * t * 0.11
    return (f'<line x1="{_num(base[0])}" y1="{_num(base[1])}" x2="{_num(back[0])}" y2="{_num(back[1])}" '
            f'stroke="#191919" stroke-width="{_num(max(2.0, t / 14))}"/>'
            f'<polygon points="{_points([tip, (back[0] + px, back[1] + py), (back[0] - px, back[1] - py)])}" fill="#191919"/>')


def _counter(scene: Scene, c: Counter, hex_id: str, cx: float, cy: float, t: float) -> str:
    fill_rgb = tuple(c.color) if c.color is not None else tuple(scene.side_colors[c.side % len(scene.side_colors)])
    fill, ink = _rgb(fill_rgb), _rgb(_contrast(fill_rgb))
    half = t / 2
    parts = [f'<g class="counter{" active" if c.highlight else ""}" data-hex="{escape(hex_id)}" '
             f'data-label="{escape(c.label)}" data-side="{c.side}"><title>{escape(c.label)}'
             f'{" " + escape(c.values) if c.values else ""}{" (disordered)" if c.disordered else ""}</title>']
    if c.highlight:
        parts.append(f'<circle cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(half * 1.42)}" fill="none" '
                     f'stroke="{_rgb(HIGHLIGHT)}" stroke-width="{_num(max(3.0, t / 10))}"/>')
    parts.append(f'<rect x="{_num(cx - half + 2)}" y="{_num(cy - half + 2)}" width="{_num(t)}" height="{_num(t)}" fill="#3c3732"/>')
    parts.append(f'<rect x="{_num(cx - half)}" y="{_num(cy - half)}" width="{_num(t)}" height="{_num(t)}" '
                 f'fill="{fill}" stroke="#141414" stroke-width="1"/>')
    if c.disordered:
        parts.append(f'<rect class="stripe" x="{_num(cx - half + 1)}" y="{_num(cy - t * 0.1)}" width="{_num(t - 2)}" '
                     f'height="{_num(max(2.0, t * 0.16))}" fill="{_rgb(STRIPE)}"/>')
    parts.append(_symbol(c.kind, cx, cy - t * 0.17, t, ink))
    text = f'text-anchor="middle" dominant-baseline="central" fill="{ink}"'
    if c.label:
        parts.append(f'<text x="{_num(cx)}" y="{_num(cy + t * 0.12)}" font-size="{_num(t * 0.27)}" {text} '
                     f'textLength="{_num(t * 0.92)}" lengthAdjust="spacingAndGlyphs">{escape(c.label[:12])}</text>'
                     if len(c.label) > 6 else
                     f'<text x="{_num(cx)}" y="{_num(cy + t * 0.12)}" font-size="{_num(t * 0.27)}" {text}>{escape(c.label)}</text>')
    if c.values:
        fit = f' textLength="{_num(t * 0.92)}" lengthAdjust="spacingAndGlyphs"' if len(c.values) > 8 else ""
        parts.append(f'<text x="{_num(cx)}" y="{_num(cy + t * 0.36)}" font-size="{_num(t * 0.22)}" {text}{fit}>'
                     f'{escape(c.values)}</text>')
    if c.marks:
        parts.append(f'<text x="{_num(cx + half - 2)}" y="{_num(cy - half + t * 0.12)}" font-size="{_num(t * 0.22)}" '
                     f'text-anchor="end" dominant-baseline="central" fill="{ink}">{escape(c.marks)}</text>')
    if c.facing_deg is not None:
        parts.append(_facing(cx, cy, t, float(c.facing_deg)))
    parts.append("</g>")
    return "".join(parts)


def scene_svg(scene: Scene, legal_hexes: set[int] = frozenset()) -> str:
    """The map of ``scene`` as one ``<svg>`` element; ``legal_hexes`` (grid indices) are outlined
    as choosable (class ``legal``)."""
    centers, size = hex_geometry(scene)
    grid = scene.grid
    width = float(centers[:, 0].max()) + size * 1.2
    height = float(centers[:, 1].max()) + size * 1.2
    start = 30.0 if grid.pointy else 0.0
    ring = [(math.cos(math.radians(start + 60 * k)), math.sin(math.radians(start + 60 * k))) for k in range(6)]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="hexmap" viewBox="0 0 {_num(width)} {_num(height)}" '
           f'font-family="sans-serif">']
    out.append('<g class="hexes">')
    for i in range(grid.n):
        cx, cy = centers[i]
        fill = _rgb(scene.terrain_colors.get(scene.terrain[i], UNKNOWN_TERRAIN))
        cls = "hex legal" if i in legal_hexes else "hex"
        out.append(f'<polygon class="{cls}" data-hex="{escape(grid.ids[i])}" points="'
                   f'{_points((cx + size * dx, cy + size * dy) for dx, dy in ring)}" fill="{fill}" '
                   f'stroke="{_rgb(HEX_OUTLINE)}"><title>{escape(grid.ids[i])} {escape(scene.terrain[i])}</title></polygon>')
    out.append("</g>")
    for a, b, rgb, w in scene.hexsides:
        (ax, ay), (bx, by) = centers[a], centers[b]
        dx, dy = bx - ax, by - ay
        norm = math.hypot(dx, dy)
        if norm == 0:
            continue
        mx, my, px, py = (ax + bx) / 2, (ay + by) / 2, -dy / norm * size / 2, dx / norm * size / 2
        out.append(f'<line x1="{_num(mx - px)}" y1="{_num(my - py)}" x2="{_num(mx + px)}" y2="{_num(my + py)}" '
                   f'stroke="{_rgb(rgb)}" stroke-width="{max(1, int(w))}" pointer-events="none"/>')
    if scene.show_hex_ids:
        dy_id = size * (0.74 if grid.pointy else 0.71)
        out.append(f'<g class="hexids" font-size="{_num(max(5.0, size * 0.25))}" fill="#464646" text-anchor="middle" '
                   f'dominant-baseline="central" pointer-events="none">')
        out.extend(f'<text x="{_num(centers[i][0])}" y="{_num(centers[i][1] - dy_id)}">{escape(grid.ids[i])}</text>'
                   for i in range(grid.n))
        out.append("</g>")
    by_hex: dict[int, list[Counter]] = {}
    for c in scene.counters:
        if 0 <= c.hex < grid.n:  # an off-map counter is not drawn (the PNG renderer refuses it)
            by_hex.setdefault(c.hex, []).append(c)
    out.append('<g class="counters">')
    for h, stack in by_hex.items():
        x, y = centers[h]
        for c, (dx, dy, t) in zip(stack, _stack_slots(len(stack), size)):
            out.append(_counter(scene, c, grid.ids[h], x + dx, y + dy, t))
    out.append("</g>")
    inset = size * 0.86
    out.append(f'<g class="marks" fill="none" pointer-events="none" stroke-width="{_num(max(2.0, size / 12))}">')
    for h, rgb in scene.hex_marks.items():
        if 0 <= h < grid.n:
            cx, cy = centers[h]
            out.append(f'<polygon points="{_points((cx + inset * dx, cy + inset * dy) for dx, dy in ring)}" stroke="{_rgb(rgb)}"/>')
    out.append("</g>")
    # The choosable hexes outlined on top of everything; clicks go through to the hex or counter below.
    out.append('<g class="legal-marks" fill="none" pointer-events="none">')
    for h in sorted(legal_hexes):
        cx, cy = centers[h]
        out.append(f'<polygon class="legal-outline" points="{_points((cx + inset * dx, cy + inset * dy) for dx, dy in ring)}"/>')
    out.append("</g></svg>")
    return "".join(out)
