"""The Berestechko action codec: one flat ``Discrete(N)`` space.

With the default scenario (49 hexes, 18 combat units) ``N = 122``:

======================  =========  ==========================================================
range                   size       meaning (the pending decision says which applies)
======================  =========  ==========================================================
``HEX + h``             49         hex ``h``: move destination, combat target, retreat hex,
                                   retreat-before-combat hex, unit added to the attack (by its
                                   hex), cavalry that advances (by its hex)
``DIE + i``             3          use die ``i`` of the throw
``UNIT + u``            18         activate (or recover) combat unit ``u``
``UNIT_WAGON_DIE + u``  18         activate Cossack infantry ``u`` with its wagon, pairing a second
                                   die of the same value (7.2)
``UNIT_WAGON_CMD + u``  18         the same, paying 2 interaction commands (7.2, 6.1.3)
``OPTION + k``          16         the named options of :data:`OPTIONS`
======================  =========  ==========================================================
"""

from __future__ import annotations

from collections import namedtuple

OPTIONS = (
    "buy_activation",     # 6.1.3: 2 interaction, activate any unit not activated twice
    "buy_recovery",       # 6.2.1: 3 reconnaissance, recover a disorganized unit
    "end_throw",          # after both dice are spent
    "gain_reconnaissance",  # die 1/6 (4.1, 6)
    "gain_interaction",
    "no_combat",          # 5: activate and not fight
    "stand",              # 8.1.1: do not retreat before combat
    "done_adding",        # 8.1.2 / 8.2.2: no more units in the declared attack
    "artillery",          # 8.1.3 / 8.2.3: 1 interaction, +1d6
    "no_artillery",
    "take_choice",        # 6.2.3: 1 reconnaissance, the defender chooses loss or retreat
    "decline_choice",
    "choose_loss",        # 8.1.4
    "choose_retreat",
    "end_battle",         # 9: the C-T player ends the battle after the Tatar withdrawal
    "continue_battle",
)
#: The options by name (``OPT.stand`` = 6): plain ints that compiled rules read as constants.
OPT = namedtuple("Options", OPTIONS)(*range(len(OPTIONS)))


class ActionCodec:
    """Range starts are plain int attributes: ``HEX``, ``DIE``, ``UNIT``, ``UNIT_WAGON_DIE``,
    ``UNIT_WAGON_CMD``, ``OPTION``; ``size`` is the number of actions."""

    def __init__(self, n_hexes: int, n_units: int):
        self.n_hexes, self.n_units = n_hexes, n_units  # n_units: combat units
        self.HEX = 0
        self.DIE = n_hexes
        self.UNIT = self.DIE + 3
        self.UNIT_WAGON_DIE = self.UNIT + n_units
        self.UNIT_WAGON_CMD = self.UNIT_WAGON_DIE + n_units
        self.OPTION = self.UNIT_WAGON_CMD + n_units
        self.size = self.OPTION + len(OPTIONS)

    def opt(self, name: str) -> int:
        return self.OPTION + OPTIONS.index(name)

    def encode(self, kind: str, arg: int | str) -> int:
        """``encode("hex", 12)``, ``encode("die", 0)``, ``encode("unit", 3)``, ``encode("option", "stand")``."""
        if kind == "option":
            return self.opt(str(arg))
        base, size = {
            "hex": (self.HEX, self.n_hexes), "die": (self.DIE, 3), "unit": (self.UNIT, self.n_units),
            "unit_wagon_die": (self.UNIT_WAGON_DIE, self.n_units), "unit_wagon_cmd": (self.UNIT_WAGON_CMD, self.n_units),
        }[kind]
        if not 0 <= int(arg) < size:
            raise ValueError(f"{kind} argument {arg} out of range 0..{size - 1}")
        return base + int(arg)

    def decode(self, action: int) -> tuple[str, int | str]:
        a = int(action)
        if not 0 <= a < self.size:
            raise ValueError(f"action {a} out of range 0..{self.size - 1}")
        if a < self.DIE:
            return "hex", a
        if a < self.UNIT:
            return "die", a - self.DIE
        if a < self.UNIT_WAGON_DIE:
            return "unit", a - self.UNIT
        if a < self.UNIT_WAGON_CMD:
            return "unit_wagon_die", a - self.UNIT_WAGON_DIE
        if a < self.OPTION:
            return "unit_wagon_cmd", a - self.UNIT_WAGON_CMD
        return "option", OPTIONS[a - self.OPTION]
