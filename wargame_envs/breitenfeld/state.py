"""The Breitenfeld game state: fixed-shape int32 arrays (one buffer) plus named constants.

Per unit: ``u_hex`` (hex index; ``OFF_ELIM`` eliminated, ``OFF_EXIT`` left the map, ``OFF_ABSENT`` not in
play), ``u_dis`` (1 = disrupted), ``u_flags`` (bits ``F_*``), ``u_start`` (hex at the start of its
activation, for the charge). Per leader: ``l_hex``, ``l_flags``. Per artillery counter: ``a_hex``,
``a_owner`` (side it is friendly to, 5.31), ``a_target`` (hex assigned in the artillery phase, -1 none).
``cup`` holds 1 for each corps chit still in the opaque container. ``g`` holds the scalars (``G_*``).
"""

from __future__ import annotations

from ..core.engine import ArrayState, sized_state_class

OFF_ELIM, OFF_EXIT, OFF_ABSENT = -1, -2, -3

# unit flags
F_MOVED = 1 << 0        # moved (or passed) this turn (6.16, 6.17)
F_SPENT = 1 << 1        # joined a coordinated attack (8.23): may not move or attack again this turn
F_ATK = 1 << 2          # attacked in the current combat phase (8.14)
F_DEF = 1 << 3          # was attacked in the current combat phase (8.14)
F_MUST_ATK = 1 << 4     # obligation 8.12: ended movement in an enemy ZOC
F_MUST_DEF = 1 << 5     # obligation 8.11: must be attacked by the active corps
F_IN_ATK = 1 << 6       # member of the attack being declared
F_NOWD = 1 << 7         # may not withdraw (6.33): began the movement phase in a barring enemy ZOC
F_OOC = 1 << 8          # out of command for this movement phase (10.3)
F_FORCED = 1 << 9       # must move toward its friendly edge (11.12)
F_CHARGE = 1 << 10      # charging in the current attack
F_TURN_CLEAR = F_MOVED | F_SPENT
F_PHASE_CLEAR = F_ATK | F_DEF | F_MUST_ATK | F_MUST_DEF | F_IN_ATK | F_CHARGE

# leader flags
LF_MOVED = 1

# phases
PH_TURN_START, PH_ARTILLERY, PH_ACTIVATION, PH_MOVEMENT, PH_COMBAT, PH_OVER = range(6)
PHASE_NAMES = ("turn_start", "artillery", "activation", "movement", "combat", "over")

# decisions
D_NONE, D_SWAP, D_ART, D_MOVE_SELECT, D_MOVE_DEST, D_COMBAT, D_ATTACK, D_LOSS, D_LEADER = range(9)
DECISION_NAMES = ("none", "activation choice (4.1 C)", "artillery target (5.0)", "movement: select piece (6.0)",
                  "movement: destination (6.0)", "combat: declare attack (8.1)", "combat: build attack (8.2)",
                  "combat: choose unit to disrupt (Ax/Dx, 8.6)", "combat: add leaders' values (10.11)")
DECISION_KEYS = ("none", "swap", "artillery", "move_select", "move_dest", "combat", "attack", "loss", "leader")

# globals (indices into g)
(G_TURN, G_PHASE, G_DEC, G_PLAYER, G_ACTIVE, G_SEL, G_MP, G_SWAP_USED, G_TE_OPT, G_TE_ADDED, G_TE_IN_CUP,
 G_VIS_OPT, G_VIS, G_MAY0, G_MAY1, G_ELIM0, G_ELIM1, G_ELIM2, G_VP0, G_VP1, G_ART_SIDE, G_ART_IDX, G_RES,
 G_LOSS_SIDE, G_DRAWN, G_DEMOR, G_DONE, G_EXITVP0, G_EXITVP1, G_DECISIONS, G_ATTACK) = range(31)
N_GLOBALS = 31
GLOBAL_NAMES = ("turn", "phase", "decision", "player", "active_corps", "selected", "mp_left", "swap_used",
                "turn_ends_option", "turn_ends_added", "turn_ends_in_cup", "visibility_option", "visibility",
                "allied_may_move", "imperial_may_move", "eliminated_sp_0", "eliminated_sp_1", "eliminated_sp_2",
                "vp_allied", "vp_imperial", "artillery_side", "artillery_index", "pending_result", "loss_side",
                "drawn_corps", "demoralized_bits", "game_over", "exit_vp_allied", "exit_vp_imperial", "decisions",
                "attack_choices")

# bits of g[G_ATTACK], the choices made for the attack being resolved (12.5 charge, 10.11 leaders)
AC_CHARGE, AC_ATT_LEADERS, AC_DEF_LEADERS = 1, 2, 4

RESULT_CODES = ("", "Ae", "Ad", "Ax", "Dx", "Dd", "De")


class BreitenfeldState(ArrayState):
    FIELDS = {}  # sized per order of battle by make_state_class


def make_state_class(n_units: int, n_leaders: int, n_art: int, n_corps: int):
    """The :class:`ArrayState` subclass sized for one order of battle (shared, picklable)."""
    fields = {   # the order tables.fields slices (keep it)
        "u_hex": (n_units,), "u_dis": (n_units,), "u_flags": (n_units,), "u_start": (n_units,),
        "l_hex": (n_leaders,), "l_flags": (n_leaders,),
        "a_hex": (n_art,), "a_owner": (n_art,), "a_target": (n_art,),
        "cup": (n_corps,), "g": (N_GLOBALS,),
    }
    return sized_state_class(BreitenfeldState, f"BreitenfeldState_{n_units}_{n_leaders}_{n_art}_{n_corps}", fields)
