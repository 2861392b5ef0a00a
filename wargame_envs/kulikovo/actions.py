"""The flat action space of Kulikovo: index ranges, encode/decode.

One ``Discrete(NUM_ACTIONS)`` space; the pending decision gives each range its meaning:

=============  ==========================  =====================================================
range          block                       used by
=============  ==========================  =====================================================
0 .. N-1       ``HEX`` (one per map hex)   fire target, charge hex, retreat / advance hex, Standard
                                           move, leader move, replacement leader, ambush hex,
                                           next combat to resolve, retreat before shock
N .. N+5       ``DIR`` step direction 0-5  one movement step (7.0, 9.1 need single steps)
N+6 .. N+11    ``FACE`` vertex 0-5         stop and face / face after retreat, advance, setup;
                                           counter-charge facing
N+12 ..        ``UNIT`` slot 0-49          own unit (per-side index): select for move/fire or shock,
                                           pick the advancing unit
then           ``LEADER`` slot 0-7         own leader: move it (13.0)
then           ``CMD`` 0-7                 own command: activate / continuity / seize (4.x)
then           ``OPT``                     PASS/END, NO, YES, SHOCK_ALL, SHOCK_UNATTACKED,
                                           STD_RALLY, STD_MOVE
=============  ==========================  =====================================================

Facing vertices (screen directions): 0 E (toward the Mongol side), 1 NE, 2 NW, 3 W, 4 SW, 5 SE.
"""

from __future__ import annotations

N_UNIT_SLOTS = 50
N_LEADER_SLOTS = 8
N_CMD_SLOTS = 8
OPTIONS = ("PASS", "NO", "YES", "SHOCK_ALL", "SHOCK_UNATTACKED", "STD_RALLY", "STD_MOVE")
# their offsets in the OPT block (the compiled rules add them to the block's start)
OPT_PASS, OPT_NO, OPT_YES, OPT_SHOCK_ALL, OPT_SHOCK_UNATTACKED, OPT_STD_RALLY, OPT_STD_MOVE = range(len(OPTIONS))
FACING_NAMES = ("E", "NE", "NW", "W", "SW", "SE")


class ActionLayout:
    """Block offsets of the action space for a map of ``n_hexes`` (plain attributes: read in every
    decision of the rules)."""

    def __init__(self, n_hexes: int):
        self.n_hexes = n_hexes
        self.DIR = n_hexes
        self.FACE = self.DIR + 6
        self.UNIT = self.FACE + 6
        self.LEADER = self.UNIT + N_UNIT_SLOTS
        self.CMD = self.LEADER + N_LEADER_SLOTS
        self.OPT = self.CMD + N_CMD_SLOTS
        self.size = self.OPT + len(OPTIONS)
        self._options = {name: self.OPT + i for i, name in enumerate(OPTIONS)}

    def __eq__(self, other) -> bool:
        return isinstance(other, ActionLayout) and other.n_hexes == self.n_hexes

    def __hash__(self) -> int:
        return hash(self.n_hexes)

    def __repr__(self) -> str:
        return f"ActionLayout(n_hexes={self.n_hexes})"

    def option(self, name: str) -> int:
        return self._options[name]

    def encode(self, block: str, value: int | str) -> int:
        if block == "OPT":
            return self.option(str(value))
        limits = {"HEX": self.n_hexes, "DIR": 6, "FACE": 6, "UNIT": N_UNIT_SLOTS, "LEADER": N_LEADER_SLOTS,
                  "CMD": N_CMD_SLOTS}
        if block not in limits:
            raise ValueError(f"unknown action block {block!r}")
        v = int(value)
        if not 0 <= v < limits[block]:
            raise ValueError(f"{block} value {v} out of range 0..{limits[block] - 1}")
        base = {"HEX": 0, "DIR": self.DIR, "FACE": self.FACE, "UNIT": self.UNIT, "LEADER": self.LEADER,
                "CMD": self.CMD}[block]
        return base + v

    def decode(self, action: int) -> tuple[str, int | str]:
        a = int(action)
        if 0 <= a < self.n_hexes:
            return "HEX", a
        for block, base, width in (("DIR", self.DIR, 6), ("FACE", self.FACE, 6), ("UNIT", self.UNIT, N_UNIT_SLOTS),
                                   ("LEADER", self.LEADER, N_LEADER_SLOTS), ("CMD", self.CMD, N_CMD_SLOTS)):
            if base <= a < base + width:
                return block, a - base
        if self.OPT <= a < self.size:
            return "OPT", OPTIONS[a - self.OPT]
        raise ValueError(f"action {a} out of range 0..{self.size - 1}")

    def describe(self) -> str:
        rows = ["| block | first | last | meaning |", "|---|---|---|---|"]
        rows.append(f"| HEX | 0 | {self.n_hexes - 1} | a map hex (grid index; id XXYY) |")
        rows.append(f"| DIR | {self.DIR} | {self.DIR + 5} | one movement step in direction 0-5 |")
        rows.append(f"| FACE | {self.FACE} | {self.FACE + 5} | facing vertex 0-5 ({', '.join(FACING_NAMES)}) |")
        rows.append(f"| UNIT | {self.UNIT} | {self.UNIT + N_UNIT_SLOTS - 1} | own unit slot |")
        rows.append(f"| LEADER | {self.LEADER} | {self.LEADER + N_LEADER_SLOTS - 1} | own leader slot |")
        rows.append(f"| CMD | {self.CMD} | {self.CMD + N_CMD_SLOTS - 1} | own command slot |")
        for i, o in enumerate(OPTIONS):
            rows.append(f"| OPT | {self.OPT + i} | {self.OPT + i} | {o} |")
        return "\n".join(rows)
