"""The Berestechko game state: fixed-shape int32 arrays (see ``core.engine.ArrayState``).

Per unit (``U`` = all counters of the scenario, wagons last): ``hex`` (-1 off the map),
``status`` (ON_MAP / DESTROYED / WITHDRAWN / UNUSED), ``disorg`` (0 ordered, 1 disorganized),
``acts`` (activations this round, 0..2), ``part`` (1 while taking part in the current combat).
Per hex: ``occ`` (combat unit there or -1) and ``wag`` (wagon there or -1).
The throw: ``dice`` (3 values) and ``used`` flags; ``cmd[side] = [reconnaissance, interaction]``;
``sc`` holds the scalars named by :data:`S`.
"""

from __future__ import annotations

from collections import namedtuple
from enum import IntEnum

from ..core.engine import ArrayState, sized_state_class

ON_MAP, DESTROYED, WITHDRAWN, UNUSED = 0, 1, 2, 3
STATUS_NAMES = ("on_map", "destroyed", "withdrawn", "unused")
RECON, INTERACTION = 0, 1
CLOSE, RANGED = 1, 2


#: Indices of the scalar block ``state.sc``: a namedtuple of plain ints (not a class or an enum), which
#: Python reads fast and the compiled rules read as constants.
S = namedtuple("Scalars", [
    "ROUND",          # 1 or 2
    "ACTIVE",         # player making the throw
    "PHASE",          # pending decision (Phase)
    "DECIDER",        # player who decides it
    "SPENT",          # dice spent in this throw (0..2)
    "SPIRIT",         # Tatar combat spirit (9)
    "TATARS_OUT",     # 1 once the Tatars have been withdrawn (9)
    "CONTINUED",      # 1 if the C-T player chose to continue after the withdrawal (9)
    "OVER",           # 1 when the game is over
    "WINNER",         # winning player when OVER
    "REASON",         # Reason the game ended
    "UNIT",           # unit being activated (-1 none)
    "WITH_WAGON",     # wagon moving with it (-1 none)
    "NO_ATTACK",      # 1: cavalry entered complex terrain as 2nd hex (7.1)
    "SOURCE",         # what activates: die value 2..5, or 0 for an additional activation (6.1.3)
    "TARGET",         # defending unit (-1 none)
    "KIND",           # CLOSE or RANGED
    "ATT_ARTY",       # attacker artillery support bought (8.1.3)
    "DEF_ARTY",       # defender artillery support bought (8.1.3)
    "ROLL_DIFF",      # CR of the last combat
    "CHOOSER",        # player who picks loss or retreat (8.1.4)
    "RET_UNIT",       # unit retreating (-1 none)
    "RET_LEFT",       # hexes it must still retreat
    "VACATED",        # hex the defender left (-1 none): advance after combat (8.1.8)
    "PENDING_TATAR",  # 1: the C-T stop/continue decision is due after this activation (9)
    "THROWS",         # throws made so far
    "VP0",            # final victory points (set at the end)
    "VP1",
    "DIE_SLOT",       # die chosen for the current step (-1 none)
    "ATT_CHOICE",     # the attacker's loss (1) or retreat (2) choice, open to the defender's 6.2.3
])(*range(30))
N_SCALARS = len(S)

#: Pending decision kinds (plain ints, as :data:`S`; ``PHASE_NAMES`` gives their names).
Phase = namedtuple("Phases", [
    "CHOOSE_DIE",       # active: a die, an additional activation, a recovery, or end the throw
    "DIE_COMMAND",      # active: +1 reconnaissance or +1 interaction (4.1, 6)
    "SELECT_UNIT",      # active: the unit to activate (5, 6.1.3, 7.2)
    "SELECT_RECOVERY",  # active: the unit to recover (6.2.1)
    "MOVE",             # active: destination hex (7)
    "TARGET",           # active: enemy to attack, or no combat (8)
    "RETREAT_BEFORE",   # defender: retreat before close combat, or stand (6.2.2, 8.1.1)
    "ADD_UNIT",         # active: add a unit to the declared attack, or done (6.1.1, 8.1.2, 8.2.2)
    "ATT_ARTILLERY",    # active: artillery support (6.1.2, 8.1.3, 8.2.3)
    "DEF_ARTILLERY",    # defender: artillery support (8.1.3)
    "TAKE_CHOICE",      # defender: overrule the attacker's loss-or-retreat choice (6.2.3)
    "LOSS_OR_RETREAT",  # chooser: loss or retreat (8.1.4)
    "RETREAT",          # owner of the retreating unit: retreat hex (8.1.7, 8.2.5, 8.2.6)
    "ADVANCE",          # active: which cavalry advances (8.1.8)
    "TATAR_DECISION",   # C-T: end the battle now or continue (9)
    "GAME_OVER",
])(*range(16))

PHASE_NAMES = tuple(k.lower() for k in Phase._fields)


class Reason(IntEnum):
    NONE = 0
    AUTOMATIC = 1        # four enemy units destroyed (10)
    POINTS = 2           # end of round 2, victory points (10)
    TATARS_ENDED = 3     # C-T ended the battle after the Tatar withdrawal (9)
    NO_UNITS_LEFT = 4    # every enemy combat unit destroyed, in a position with fewer than four (10, C29)


class BerestechkoState(ArrayState):
    FIELDS = {}  # set by make_state_class for the scenario's sizes


def make_state_class(n_units: int, n_hexes: int) -> type[BerestechkoState]:
    """A state class sized for a scenario (the default has 20 counters and 49 hexes)."""
    fields = {
        "hex": (n_units,), "status": (n_units,), "disorg": (n_units,), "acts": (n_units,),
        "occ": (n_hexes,), "wag": (n_hexes,), "part": (n_units,), "dice": (3,), "used": (3,), "cmd": (2, 2),
        "sc": (N_SCALARS,),
    }
    return sized_state_class(BerestechkoState, f"BerestechkoState_{n_units}_{n_hexes}", fields)
