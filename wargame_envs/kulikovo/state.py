"""The Kulikovo game state: fixed-shape int32 arrays in one buffer (``core.engine.ArrayState``).

Per unit (global index; Russian units first): hex, facing, status, per-activation flags, movement
points left, attacks made, shock targets. Per leader: hex, state, current rating and range, flags.
Global counters live in ``g`` (indices ``G_*``). Compound turns are a *task stack* (``stack``, ``G_SP``):
each entry is ``(kind, player, a, b, ...)``; the top entry is either an automatic step, which the
engine carries out, or the pending decision (``D_*`` kinds), which ``current_player`` names.
"""

from __future__ import annotations


from ..core.engine import ArrayState, sized_state_class

# unit status
NORMAL, DISORDERED, RETIRED, ELIMINATED, HIDDEN = 0, 1, 2, 3, 4
STATUS_NAMES = ("normal", "disordered", "retired", "eliminated", "hidden")

# unit flags (per activation unless noted)
F_ACTED = 1            # did something this activation (12.5.1)
F_MOVED = 2            # spent MP this activation (11.1 charger moved)
F_FIRED = 4            # fired this activation (9.2)
F_DONE = 8             # finished its Move/Fire segment
F_INCMD = 16           # in command at the start of the activation (13.1)
F_START_ZOC = 32       # started the activation in an enemy ZOC (11.1)
F_LEFT_HEX = 64        # left its start hex
F_STOPPED = 128        # entered an enemy ZOC: must stop (7.0)
F_CHARGING = 256       # declared a Charge (11.1)
F_DECLARED = 512       # declared a Shock attack or Charge this activation (10.0)
F_RETURNED = 1024      # used Return Fire in this enemy activation (9.2)
F_XBOW_REACTED = 2048  # crossbow used its Reaction Fire in this activation (9.2)
F_RESOLVED = 4096      # as defender: its current combat has been resolved
F_ADV = 8192           # as attacker: must advance into u_vac after its attacks (10.3)
F_CA = 16384           # as attacker: Continued Attack pending (12.4)
F_DIS_IN_ATTACK = 32768  # as attacker: Disordered in one of its attacks (10.3)
F_CC_OK = 65536        # a successful Counter-Charge against fire is pending (11.3)
F_RETURNING = 131072   # will Return Fire at the current firer (9.2)
F_CC_NEGATE = 262144   # as defender: counter-charged attacking H/M (11.3)
F_CA_MODE = 524288     # as attacker: its current targets are a Continued Attack (12.4)
F_RBS_DONE = 1048576   # no more attacks this activation (advanced after a retreat before shock, 10.1)
F_LC_FIRE_CC = 2097152  # deferred counter-charge against this light cavalry (9.1)
F_CC_WAIT = 4194304    # counter-charge waits for the pending attack on its target (11.3)
F_DORMANT = 8388608    # Ambush Regiment unit placed by a Mongol line of sight, not yet activated (15.2; kept)
F_DIS_AT_START = 16777216  # Disordered when its command's activation began (12.5.1: only it may rally)
F_FIRE_TURN_CW = 33554432   # in an enemy ZOC, turned one vertex clockwise (+1) to fire (6.0, 9.2)
F_FIRE_TURN_CCW = 67108864  # in an enemy ZOC, turned one vertex counter-clockwise (-1) to fire (6.0, 9.2)
ACTIVATION_FLAGS = F_ACTED | F_MOVED | F_FIRED | F_DONE | F_INCMD | F_START_ZOC | F_LEFT_HEX | F_STOPPED | \
    F_CHARGING | F_DECLARED | F_XBOW_REACTED | F_RESOLVED | F_ADV | F_CA | F_DIS_IN_ATTACK | F_CC_OK | \
    F_RETURNING | F_CC_NEGATE | F_CA_MODE | F_RBS_DONE | F_LC_FIRE_CC | F_CC_WAIT | F_DIS_AT_START | \
    F_FIRE_TURN_CW | F_FIRE_TURN_CCW

# leader states
L_ACTIVE, L_PENDING, L_REPL, L_REPL_DEAD, L_GONE, L_HIDDEN = 0, 1, 2, 3, 4, 5
LEADER_STATE_NAMES = ("active", "pending_replacement", "replacement", "replacement_killed", "gone", "hidden")
# leader flags
LF_OC = 1          # currently the Overall Commander (13.2)
LF_MOVED = 2       # moved this activation
LF_REAL = 4        # the real Dmitri (hidden from the Mongol player under 13.4)
LF_FD = 8          # a Dmitri counter under the False Dmitri rule (13.4)

# globals
(G_SP, G_ACTIVE, G_CMD, G_LAST_CMD, G_FREE, G_ACTIVATIONS, G_MAX_ACT, G_WINNER, G_OVER, G_TRUNC,
 G_AMBUSH_PLACED, G_FD, G_SETUP_FREE, G_FIRST, G_HEROIC_R, G_HEROIC_M, G_DECISIONS, G_STD_ACT,
 G_AMBUSH_REVEALED_BY) = range(19)
N_GLOBALS = 24

# ------------------------------------------------------------------ task kinds
# decisions (the top of the stack waits for the named player's action)
D_SETUP_AMBUSH, D_SETUP_FACE, D_SETUP_LEADER, D_FREE, D_CONTINUITY, D_SEIZE, D_PLACE_REPL, D_MF_SELECT, \
    D_UNIT_ACT, D_LEADER_MOVE, D_STD_MOVE, D_REACT, D_RETURN, D_CC_FIRE, D_SHOCK_SELECT, D_SHOCK_MODE, \
    D_RESOLVE_PICK, D_DEFENSE, D_RBS_ADVANCE, D_ADV_PICK, D_RETREAT, D_FACE, D_SETUP_DMITRI = range(1, 24)
DECISION_NAMES = {
    D_SETUP_AMBUSH: "setup: Ambush Regiment hex", D_SETUP_FACE: "setup: unit facing",
    D_SETUP_LEADER: "setup: leader hex", D_FREE: "free activation", D_CONTINUITY: "continuity",
    D_SEIZE: "seize continuity", D_PLACE_REPL: "place replacement leader", D_MF_SELECT: "move/fire: select unit",
    D_UNIT_ACT: "move/fire: unit action", D_LEADER_MOVE: "move leader", D_STD_MOVE: "move Standard",
    D_REACT: "reaction fire", D_RETURN: "return fire", D_CC_FIRE: "counter-charge (fire)",
    D_SHOCK_SELECT: "shock: select attacker", D_SHOCK_MODE: "shock: attack or charge",
    D_RESOLVE_PICK: "shock: resolve next", D_DEFENSE: "defend: stand, retreat or counter-charge",
    D_RBS_ADVANCE: "advance after retreat before shock", D_ADV_PICK: "advance after shock: which unit",
    D_RETREAT: "retreat path", D_FACE: "facing",
    D_SETUP_DMITRI: "setup: Dmitri counter with the Standard",  # 13.4, hidden from the Mongol player
}
N_DECISION_KINDS = 24
# automatic steps
A_ACTIVATE, A_ACT_START, A_END_ACT, A_FLIGHT, A_FIRE, A_RESOLVE, A_AFTER_ROLL, A_POST, A_CC_CHARGE, \
    A_HEROIC, A_SETUP_DONE = range(40, 51)

STACK_DEPTH = 160
BIG = 10 ** 6  # counters (activations, decisions, Flight Points) far above any game's (positions, options)
TASK_WIDTH = 10


class KulikovoState(ArrayState):
    FIELDS = {}  # sized per scenario by state_class


def state_class(n_hexes: int, n_units: int, n_leaders: int, n_ambush: int) -> type:
    """The ArrayState subclass sized for one scenario (shared by engines, picklable)."""
    fields = {
        "u_hex": (n_units,), "u_face": (n_units,), "u_status": (n_units,), "u_flags": (n_units,),
        "u_mp": (n_units,), "u_attacks": (n_units,), "u_tgt": (n_units, 2), "u_left": (n_units,),
        "u_react": (n_units,), "u_vac": (n_units,), "u_ccv": (n_units,),
        "hex_unit": (n_hexes,),
        "l_hex": (n_leaders,), "l_state": (n_leaders,), "l_rating": (n_leaders,), "l_range": (n_leaders,),
        "l_flags": (n_leaders,),
        "std_hex": (2,), "std_captured": (2,), "fp": (2,), "ambush": (n_ambush,),
        "g": (N_GLOBALS,), "stack": (STACK_DEPTH, TASK_WIDTH),
        "u_dtgt": (n_units, 2),  # the targets its Shock or Charge declared (10.0), kept through a Continued Attack
    }
    return sized_state_class(KulikovoState, f"KulikovoState_{n_hexes}_{n_units}_{n_leaders}_{n_ambush}", fields)
