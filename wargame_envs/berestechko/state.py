"""The Berestechko game state: fixed-shape int32 arrays (see ``core.engine.ArrayState``).

Per unit (``U`` = all counters of the scenario, wagons last): ``hex`` (-1 off the map),
``status`` (ON_MAP / DESTROYED / WITHDRAWN / UNUSED), ``disorg`` (0 ordered, 1 disorganized),
``acts`` (activations this round, 0..2), ``part`` (1 while taking part in the current combat).
Per hex: ``occ`` (combat unit there or -1) and ``wag`` (wagon there or -1).
The throw: ``dice`` (3 values) and ``used`` flags; ``cmd[side] = [reconnaissance, interaction]``;
``sc`` holds the scalars named by :class:`S`.
"""

from __future__ import annotations

from enum import IntEnum

from ..core.engine import ArrayState, sized_state_class

ON_MAP, DESTROYED, WITHDRAWN, UNUSED = 0, 1, 2, 3
STATUS_NAMES = ("on_map", "destroyed", "withdrawn", "unused")
RECON, INTERACTION = 0, 1
CLOSE, RANGED = 1, 2


class S:
    """Indices of the scalar block ``state.sc`` (plain ints: enum attribute access is slow)."""

    ROUND = 0          # 1 or 2
    ACTIVE = 1         # player making the throw
    PHASE = 2          # pending decision (Phase)
    DECIDER = 3        # player who decides it
    SPENT = 4          # dice spent in this throw (0..2)
    SPIRIT = 5         # Tatar combat spirit (9)
    TATARS_OUT = 6     # 1 once the Tatars have been withdrawn (9)
    CONTINUED = 7      # 1 if the C-T player chose to continue after the withdrawal (9)
    OVER = 8           # 1 when the game is over
    WINNER = 9         # winning player when OVER
    REASON = 10        # Reason the game ended
    UNIT = 11          # unit being activated (-1 none)
    WITH_WAGON = 12    # wagon moving with it (-1 none)
    NO_ATTACK = 13     # 1: cavalry entered complex terrain as 2nd hex (7.1)
    SOURCE = 14        # what activates: die value 2..5, or 0 for an additional activation (6.1.3)
    TARGET = 15        # defending unit (-1 none)
    KIND = 16          # CLOSE or RANGED
    ATT_ARTY = 17      # attacker artillery support bought (8.1.3)
    DEF_ARTY = 18      # defender artillery support bought (8.1.3)
    ROLL_DIFF = 19     # CR of the last combat
    CHOOSER = 20       # player who picks loss or retreat (8.1.4)
    RET_UNIT = 21      # unit retreating (-1 none)
    RET_LEFT = 22      # hexes it must still retreat
    VACATED = 23       # hex the defender left (-1 none): advance after combat (8.1.8)
    PENDING_TATAR = 24 # 1: the C-T stop/continue decision is due after this activation (9)
    THROWS = 25        # throws made so far
    VP0 = 26           # final victory points (set at the end)
    VP1 = 27
    DIE_SLOT = 28      # die chosen for the current step (-1 none)
    ATT_CHOICE = 29    # the attacker's loss (1) or retreat (2) choice, open to the defender's 6.2.3
    N = 30


class Phase:
    """Pending decision kinds (plain ints; ``PHASE_NAMES`` gives their names)."""

    CHOOSE_DIE = 0        # active: a die, an additional activation, a recovery, or end the throw
    DIE_COMMAND = 1       # active: +1 reconnaissance or +1 interaction (4.1, 6)
    SELECT_UNIT = 2       # active: the unit to activate (5, 6.1.3, 7.2)
    SELECT_RECOVERY = 3   # active: the unit to recover (6.2.1)
    MOVE = 4              # active: destination hex (7)
    TARGET = 5            # active: enemy to attack, or no combat (8)
    RETREAT_BEFORE = 6    # defender: retreat before close combat, or stand (6.2.2, 8.1.1)
    ADD_UNIT = 7          # active: add a unit to the declared attack, or done (6.1.1, 8.1.2, 8.2.2)
    ATT_ARTILLERY = 8     # active: artillery support (6.1.2, 8.1.3, 8.2.3)
    DEF_ARTILLERY = 9     # defender: artillery support (8.1.3)
    TAKE_CHOICE = 10      # defender: overrule the attacker's loss-or-retreat choice (6.2.3)
    LOSS_OR_RETREAT = 11  # chooser: loss or retreat (8.1.4)
    RETREAT = 12          # owner of the retreating unit: retreat hex (8.1.7, 8.2.5, 8.2.6)
    ADVANCE = 13          # active: which cavalry advances (8.1.8)
    TATAR_DECISION = 14   # C-T: end the battle now or continue (9)
    GAME_OVER = 15


PHASE_NAMES = tuple(k.lower() for k, v in sorted(
    ((k, v) for k, v in vars(Phase).items() if not k.startswith("_")), key=lambda kv: kv[1]))


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
        "occ": (n_hexes,), "wag": (n_hexes,), "part": (n_units,), "dice": (3,), "used": (3,), "cmd": (2, 2), "sc": (int(S.N),),
    }
    return sized_state_class(BerestechkoState, f"BerestechkoState_{n_units}_{n_hexes}", fields)
