"""Observation layouts: named planes over the hex grid plus named global features.

An observation is one flat float32 vector (friendly to MLP policies and SB3). Its layout is
public: ``layout.slices[name]`` gives where each named piece lives, ``layout.unflatten(obs)`` splits a
vector back into named arrays (planes as length-N arrays), and ``layout.describe()`` prints the
table used in each battle's docs. Values lie in ``[low, high]`` (0..1 unless a battle says otherwise).
"""

from __future__ import annotations

import hashlib
import json
from typing import Sequence

import numpy as np


class ObservationLayout:
    def __init__(self, n_hexes: int, planes: Sequence[str], features: Sequence[tuple[str, int]],
                 low: float = 0.0, high: float = 1.0):
        self.n_hexes = n_hexes
        self.planes = tuple(planes)
        self.features = tuple(features)
        self.low, self.high = float(low), float(high)
        self.slices: dict[str, slice] = {}
        off = 0
        for name in self.planes:
            self._add(name, off, n_hexes)
            off += n_hexes
        self.plane_block = slice(0, off)
        for name, width in self.features:
            self._add(name, off, int(width))
            off += int(width)
        self.size = off

    def _add(self, name: str, start: int, width: int) -> None:
        if name in self.slices:
            raise ValueError(f"duplicate observation piece {name!r}")
        self.slices[name] = slice(start, start + width)

    def new(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def planes_view(self, obs: np.ndarray) -> np.ndarray:
        """The planes as a ``(num_planes, n_hexes)`` view."""
        return obs[self.plane_block].reshape(len(self.planes), self.n_hexes)

    def unflatten(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return {name: obs[s] for name, s in self.slices.items()}

    def digest(self) -> str:
        """A short hash of the layout (piece names and places): a policy reads observations by
        position, so a reordered layout of the same size must not pass as the same."""
        pieces = [[name, s.start, s.stop] for name, s in self.slices.items()]
        return hashlib.sha256(json.dumps(pieces).encode()).hexdigest()[:16]

    def describe(self) -> str:
        rows = ["| piece | kind | offset | width |", "|---|---|---|---|"]
        for name, s in self.slices.items():
            kind = "plane" if name in self.planes else "feature"
            rows.append(f"| `{name}` | {kind} | {s.start} | {s.stop - s.start} |")
        return "\n".join(rows)
