"""Hex grids as the rulebooks print them.

Conventions follow Red Blob Games' hexagon guide: a map names its *offset convention*
(``"even-r"``, ``"odd-r"`` for pointy-top hexes in rows, ``"even-q"``, ``"odd-q"`` for flat-top
hexes in columns; "even-r" means even rows are shoved half a hex toward higher columns) and
every printed hex id maps to an offset coordinate ``(col, row)``. Internally hexes are numbered
``0..N-1`` in the order the map lists them; geometry works in axial/cube coordinates.

Precomputed once per map (shared by every env of that battle, never copied):

* ``neighbors``: ``(N, 6)`` int16, ``-1`` where the neighbour is off-map; column ``d`` is
  direction ``d`` (0..5, counter-clockwise starting at axial ``(+1, 0)``).
* ``dist``: ``(N, N)`` int16 hex distances.
* ``hexside``: ``(N, 6)`` int8 feature codes of each hexside (0 = none), set with
  :meth:`HexGrid.set_hexside`, which writes both sides.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from .jit import kernel

OFFSET_CONVENTIONS = ("even-r", "odd-r", "even-q", "odd-q")
# Axial direction vectors (dq, dr), counter-clockwise.
AXIAL_DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def offset_to_axial(col: int, row: int, convention: str) -> tuple[int, int]:
    if convention == "even-r":
        return col - (row + (row & 1)) // 2, row
    if convention == "odd-r":
        return col - (row - (row & 1)) // 2, row
    if convention == "even-q":
        return col, row - (col + (col & 1)) // 2
    if convention == "odd-q":
        return col, row - (col - (col & 1)) // 2
    raise ValueError(f"unknown offset convention {convention!r}; expected one of {OFFSET_CONVENTIONS}")


def axial_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


class HexGrid:
    """An immutable map geometry: ids, neighbours, distances, line of sight, hexsides."""

    def __init__(self, ids: Sequence[str], coords: Sequence[tuple[int, int]], convention: str):
        if convention not in OFFSET_CONVENTIONS:
            raise ValueError(f"unknown offset convention {convention!r}; expected one of {OFFSET_CONVENTIONS}")
        if len(ids) != len(coords):
            raise ValueError("ids and coords differ in length")
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate hex ids")
        self.convention = convention
        self.pointy = convention.endswith("r")
        self.ids: tuple[str, ...] = tuple(ids)
        self.n = len(ids)
        self.index: dict[str, int] = {h: i for i, h in enumerate(ids)}
        self.offset = np.asarray(coords, dtype=np.int32).reshape(self.n, 2)
        axial = [offset_to_axial(int(c), int(r), convention) for c, r in self.offset]
        self.axial = np.asarray(axial, dtype=np.int32).reshape(self.n, 2)
        by_axial = {a: i for i, a in enumerate(axial)}
        # axial_index[q - q0, r - r0]: the hex at axial (q, r), -1 off-map; axial_origin = (q0, r0)
        self.axial_origin = self.axial.min(axis=0).astype(np.int64) if self.n else np.zeros(2, np.int64)
        span = (self.axial.max(axis=0) - self.axial_origin + 1) if self.n else np.zeros(2, np.int64)
        self.axial_index = np.full(tuple(int(x) for x in span), -1, dtype=np.int32)
        self.axial_index[tuple((self.axial - self.axial_origin).T)] = np.arange(self.n, dtype=np.int32)
        nb = np.full((self.n, 6), -1, dtype=np.int16)
        for i, (q, r) in enumerate(axial):
            for d, (dq, dr) in enumerate(AXIAL_DIRECTIONS):
                nb[i, d] = by_axial.get((q + dq, r + dr), -1)
        self.neighbors = nb
        # Python tuples for hot loops (a numpy scalar read costs ~5x a tuple read).
        self.adjacent: tuple[tuple[int, ...], ...] = tuple(
            tuple(int(j) for j in row if j >= 0) for row in nb
        )
        q, r = self.axial[:, 0], self.axial[:, 1]
        dq = q[:, None] - q[None, :]
        dr = r[:, None] - r[None, :]
        self.dist = ((np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2).astype(np.int16)
        self.hexside = np.zeros((self.n, 6), dtype=np.int8)

    # ----------------------------------------------------------------- lookup
    def hex_index(self, hex_id: str) -> int:
        try:
            return self.index[str(hex_id)]
        except KeyError:
            raise KeyError(f"hex {hex_id!r} is not on this map") from None

    def hex_id(self, i: int) -> str:
        return self.ids[i]

    def distance(self, a: int, b: int) -> int:
        return int(self.dist[a, b])

    def direction(self, a: int, b: int) -> int:
        """Direction 0..5 from ``a`` to its neighbour ``b``; ValueError if not adjacent."""
        for d in range(6):
            if self.neighbors[a, d] == b:
                return d
        raise ValueError(f"hexes {self.ids[a]} and {self.ids[b]} are not adjacent")

    # -------------------------------------------------------------- hexsides
    def set_hexside(self, a: int, b: int, feature: int) -> None:
        self.hexside[a, self.direction(a, b)] = feature
        self.hexside[b, self.direction(b, a)] = feature

    def hexside_between(self, a: int, b: int) -> int:
        return int(self.hexside[a, self.direction(a, b)])

    # ---------------------------------------------------------- line of sight
    def line(self, a: int, b: int) -> list[list[int]]:
        """Hexes a straight line from the centre of ``a`` to the centre of ``b`` crosses.

        Returns one entry per step (``distance + 1`` entries, first ``[a]``, last ``[b]``). Where the
        line runs exactly along a hexside, the entry holds both hexes of that hexside, so callers can
        apply their rulebook's convention (OpenSpiel-style "blocked only if both block", or the
        stricter one). Hexes off-map are omitted.
        """
        n = self.distance(a, b)
        out = []
        cells = np.empty(2, dtype=np.int64)
        for k in range(n + 1):
            m = line_step(self.axial, self.axial_index, self.axial_origin, a, b, n, k, cells)
            out.append(cells[:m].tolist())
        return out

    def line_of_sight(self, a: int, b: int, blocks: Iterable[bool] | np.ndarray, both_block: bool = True) -> bool:
        """True if no intermediate hex of the line ``a -> b`` blocks.

        ``blocks[i]`` says whether hex ``i`` blocks when it lies between the ends. Where the line runs
        along a hexside, it is blocked only if both hexes block (``both_block=True``) or if either does.
        """
        for cells in self.line(a, b)[1:-1]:
            flags = [bool(blocks[c]) for c in cells]
            if flags and (all(flags) if both_block else any(flags)):
                return False
        return True

    # ------------------------------------------------------------- rendering
    def pixel_centers(self, size: float) -> np.ndarray:
        """``(N, 2)`` pixel centres for hexes of circumradius ``size`` (top-left origin)."""
        q = self.axial[:, 0].astype(float)
        r = self.axial[:, 1].astype(float)
        s3 = math.sqrt(3.0)
        if self.pointy:
            x = size * s3 * (q + r / 2.0)
            y = size * 1.5 * r
        else:
            x = size * 1.5 * q
            y = size * s3 * (r + q / 2.0)
        xy = np.stack([x, y], axis=1)
        return xy - xy.min(axis=0) + size * 1.2

    def corners(self, center: tuple[float, float], size: float) -> list[tuple[float, float]]:
        start = 30.0 if self.pointy else 0.0
        cx, cy = center
        return [
            (cx + size * math.cos(math.radians(start + 60 * k)), cy + size * math.sin(math.radians(start + 60 * k)))
            for k in range(6)
        ]


@kernel
def line_step(axial, axial_index, origin, a, b, n, k, cells):
    """The hexes at step ``k`` (0..n) of the straight line from the centre of hex ``a`` to that of ``b``,
    ``n`` apart: written to ``cells`` (length 2), their number returned. Two hexes where the line runs
    exactly along their hexside (the line is nudged to either side of it), none off-map."""
    t = k / n if n else 0.0
    m = 0
    for eps in (1e-6, -1e-6):
        q = axial[a, 0] + (axial[b, 0] - axial[a, 0]) * t + eps
        r = axial[a, 1] + (axial[b, 1] - axial[a, 1]) * t + 2 * eps
        s = -q - r                                   # cube rounding: fix the coordinate rounded furthest
        rq, rr, rs = round(q), round(r), round(s)
        dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
        if dq > dr and dq > ds:
            rq = -rr - rs
        elif dr > ds:
            rr = -rq - rs
        x, y = rq - origin[0], rr - origin[1]
        if 0 <= x < axial_index.shape[0] and 0 <= y < axial_index.shape[1]:
            i = axial_index[x, y]
            if i >= 0 and (m == 0 or cells[0] != i):
                cells[m] = i
                m += 1
    return m
