"""The flat action codec of ``breitenfeld_v0``: one ``Discrete(num_actions)`` space.

Index ranges (C corps, U units, L leaders, N hexes; standard scenario C=9, U=76, L=10, N=598):

| range | name | meaning by decision |
|---|---|---|
| 0 | ``END`` | end the movement phase / end the combat phase / hold fire (artillery) |
| 1 | ``RESOLVE`` | roll for the attack being built |
| 2 | ``RESOLVE_CHARGE`` | roll for it with the eligible cavalry charging |
| 3 | ``EXIT`` | move the selected unit off the map |
| 4 | ``ADD_LEADERS`` | add the leadership values of the eligible leaders to the combat (10.11) |
| 5 | ``DECLINE_LEADERS`` | do not add them |
| 6 .. 6+C-1 | ``CORPS[c]`` | activate corps c (the 4.1 C choice when a leadership-3 leader's chit is drawn) |
| 6+C .. 6+C+U+L-1 | ``PIECE[p]`` | select unit p (p < U) or leader p-U to move |
| 6+C+U+L .. +N-1 | ``HEX[h]`` | destination / artillery target / attack a hex / add the unit in a hex to the attack / the unit to disrupt |
"""

from __future__ import annotations

from dataclasses import dataclass, field

END, RESOLVE, RESOLVE_CHARGE, EXIT, ADD_LEADERS, DECLINE_LEADERS = range(6)
NAMED = ("END", "RESOLVE", "RESOLVE_CHARGE", "EXIT", "ADD_LEADERS", "DECLINE_LEADERS")


@dataclass(frozen=True)
class ActionCodec:
    n_corps: int
    n_units: int
    n_leaders: int
    n_hexes: int
    # the first index of each range, and the number of actions (plain attributes: read at every decision)
    corps0: int = field(init=False, repr=False, compare=False, default=len(NAMED))
    piece0: int = field(init=False, repr=False, compare=False)
    hex0: int = field(init=False, repr=False, compare=False)
    size: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "piece0", self.corps0 + self.n_corps)      # frozen: set once here
        object.__setattr__(self, "hex0", self.piece0 + self.n_units + self.n_leaders)
        object.__setattr__(self, "size", self.hex0 + self.n_hexes)

    def corps(self, c: int) -> int:
        return self.corps0 + c

    def piece(self, p: int) -> int:
        return self.piece0 + p

    def hex(self, h: int) -> int:
        return self.hex0 + h

    def encode(self, kind: str, index: int = 0) -> int:
        if kind in NAMED:
            return NAMED.index(kind)
        if kind == "CORPS" and 0 <= index < self.n_corps:
            return self.corps0 + index
        if kind == "PIECE" and 0 <= index < self.n_units + self.n_leaders:
            return self.piece0 + index
        if kind == "HEX" and 0 <= index < self.n_hexes:
            return self.hex0 + index
        raise ValueError(f"no action {kind}[{index}]")

    def decode(self, action: int) -> tuple[str, int]:
        a = int(action)
        if 0 <= a < len(NAMED):
            return NAMED[a], 0
        if a < self.piece0:
            return "CORPS", a - self.corps0
        if a < self.hex0:
            return "PIECE", a - self.piece0
        if a < self.size:
            return "HEX", a - self.hex0
        raise ValueError(f"action {a} is outside 0..{self.size - 1}")

    def describe(self) -> str:
        rows = ["| range | kind |", "|---|---|"]
        for i, n in enumerate(NAMED):
            rows.append(f"| {i} | `{n}` |")
        rows.append(f"| {self.corps0}..{self.piece0 - 1} | `CORPS[c]` |")
        rows.append(f"| {self.piece0}..{self.piece0 + self.n_units - 1} | `PIECE[unit]` |")
        rows.append(f"| {self.piece0 + self.n_units}..{self.hex0 - 1} | `PIECE[leader]` |")
        rows.append(f"| {self.hex0}..{self.size - 1} | `HEX[h]` |")
        return "\n".join(rows)
