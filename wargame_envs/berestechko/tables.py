"""Tables built once per scenario, for the compiled rules and for the Python code around them.

* :func:`pack_tables` packs the scenario (unit values, map, rule constants, victory points), the action
  codec and the observation layout into ONE int32 array ``kt``, laid out by a structured dtype ``kdt``
  (:func:`k_dtype`: the scalars of :data:`K_SCALARS` in upper case, then the arrays in lower case).
  A compiled rule reads it as a numba record, ``k = as_record(kt, kdt)`` (``k.H``, ``k.side[u]``,
  ``k.adj[h, j]``), and a game's state buffer the same way with the state's dtype
  (:func:`state_dtype`: ``g.hex[u]``, ``g.sc[S.PHASE]``, ``g.cmd[p, RECON]``). A record is passed by
  reference, so handing ``k`` and ``g`` to every rule function costs nothing, and the plain arrays keep a
  call from Python cheap; the scenario stays out of module globals, so the on-disk compiled cache holds
  for any ``data_dir``. Rules that roll dice or write the log also take an :class:`IO`.
* :class:`Tables` holds the same facts as Python lists, for positions, views and summaries.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..core.dtypes import interned
from ..core.jit import kernel
from ..core.kernel_records import borrowed
from .data import CAVALRY, INFANTRY, NATIONS, WAGON, Scenario

#: The scalars of the packed tables, in order.
K_SCALARS = (
    "H", "U", "NC",                         # hexes, counters, combat units (wagons are NC .. U - 1)
    # rules constants (data/scenario.toml [rules])
    "ROUNDS", "ACTS_LIMIT", "COMMAND_CAP", "ACTIVATION_COST", "RECOVERY_COST", "RETREAT_BEFORE_COST",
    "TAKE_CHOICE_COST", "ATTACK_COST", "ARTILLERY_COST", "SPIRIT_MAX", "AUTO_VICTORY", "DICE_SPENT",
    # victory points (data/scenario.toml [victory], 10)
    "VP_DESTROYED_UNIT", "VP_DISORGANIZED_UNIT", "VP_DESTROYED_WAGON", "VP_CAMP", "VP_TATARS_END",
    "VP_CONTINUED_END",
    # the action codec (actions.py): start of each range, and the size
    "A_DIE", "A_UNIT", "A_WAGON_DIE", "A_WAGON_CMD", "A_OPTION", "N_ACTIONS",
    # the observation (observation.py): size, start of the global features, victory points, roster
    "OBS_SIZE", "OBS_FEATURES", "OBS_VP", "OBS_ROSTER",
)
#: The per-unit arrays of the packed tables (each (U,)): side and kind, then activation value, die sides,
#: attack and defence dice, and hexes of movement.
K_UNIT_ARRAYS = ("side", "is_cav", "is_inf", "is_wagon", "is_tatar", "is_cossack_inf",
                 "act", "die", "att", "dfn", "move")

#: What a rule that rolls or logs needs: the dice stream (``core.chance.roll``: uniforms or scripted values,
#: and its state) and the event buffer (``core.events.emit``; a (0, 5) buffer when nobody reads the log).
IO = namedtuple("IO", ["dv", "ds", "ev", "evn"])


def k_dtype(H: int, U: int) -> np.dtype:
    """The layout of the packed tables for ``H`` hexes and ``U`` counters (every field int32)."""
    return interned([(name, np.int32) for name in K_SCALARS] + [
        ("adj", np.int32, (H, 6)),      # neighbours in the grid's order, -1 padded
        ("rear", np.int32, (2, H, 6)),  # neighbours one line back for side p (P-L toward lower lines, 8.1.7)
        ("beside", np.int32, (H, 6)),   # neighbours on the same line
        ("complex", np.int32, (H,)),    # complex terrain (2.1)
        ("camp", np.int32, (H,)),       # C-T victory hexes 03/04 (10)
    ] + [(name, np.int32, (U,)) for name in K_UNIT_ARRAYS] + [
        ("res", np.int32, (U, 2)),      # resistance ordered, disorganized
    ])


def state_dtype(state_class) -> np.dtype:
    """The state buffer's fields (``state.make_state_class``) as a structured dtype, for :func:`as_record`."""
    return interned([(name, np.int32, shape) for name, _, _, shape in state_class._layout])


def _padded(rows, n: int) -> np.ndarray:
    out = np.full((n, 6), -1, dtype=np.int32)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


def pack_tables(sc: Scenario, codec, obs_layout) -> tuple[np.ndarray, np.dtype]:
    """``(kt, kdt)``: the scenario's tables as one read-only int32 array and its layout."""
    T = Tables(sc)
    r, v = sc.rules, sc.victory
    kdt = k_dtype(T.H, T.U)
    rec = np.zeros(1, dtype=kdt)
    values = dict(
        H=T.H, U=T.U, NC=T.NC,
        ROUNDS=r["rounds"], ACTS_LIMIT=r["activations_per_round"], COMMAND_CAP=r["command_cap"],
        ACTIVATION_COST=r["additional_activation_cost"], RECOVERY_COST=r["recovery_cost"],
        RETREAT_BEFORE_COST=r["retreat_before_combat_cost"], TAKE_CHOICE_COST=r["take_choice_cost"],
        ATTACK_COST=r["declared_attack_cost"], ARTILLERY_COST=r["artillery_cost"], SPIRIT_MAX=r["tatar_spirit_max"],
        AUTO_VICTORY=r["automatic_victory_destroyed"], DICE_SPENT=r["dice_spent_per_throw"],
        VP_DESTROYED_UNIT=v["destroyed_enemy_unit"], VP_DISORGANIZED_UNIT=v["disorganized_enemy_unit"],
        VP_DESTROYED_WAGON=v["destroyed_wagon"], VP_CAMP=v["unit_in_camp"], VP_TATARS_END=v["tatars_withdrawn_end"],
        VP_CONTINUED_END=v["battle_continued_end"],
        A_DIE=codec.DIE, A_UNIT=codec.UNIT, A_WAGON_DIE=codec.UNIT_WAGON_DIE, A_WAGON_CMD=codec.UNIT_WAGON_CMD,
        A_OPTION=codec.OPTION, N_ACTIONS=codec.size,
        OBS_SIZE=obs_layout.size, OBS_FEATURES=obs_layout.slices["me"].start,
        OBS_VP=obs_layout.slices["victory_points"].start, OBS_ROSTER=obs_layout.slices["roster"].start,
        adj=_padded(T.adj, T.H), rear=np.stack([_padded(T.rear[0], T.H), _padded(T.rear[1], T.H)]),
        beside=_padded(T.beside, T.H), complex=T.complex, camp=T.camp,
        side=T.side, is_cav=T.is_cav, is_inf=T.is_inf, is_wagon=T.is_wagon, is_tatar=T.is_tatar,
        is_cossack_inf=T.is_cossack_inf, act=T.act, die=T.die, att=T.att, dfn=T.dfn, move=T.move_allowance,
        res=T.res,
    )
    assert sorted(values) == sorted(kdt.names)
    for name, value in values.items():
        rec[0][name] = value
    kt = rec.view(np.int32)
    kt.setflags(write=False)
    return kt, kdt


@kernel
def make_io(dv, ds, ev, evn):
    """The :class:`IO` of a call, its arrays :func:`borrowed` (they are the entry kernel's arguments)."""
    return IO(borrowed(dv), borrowed(ds), borrowed(ev), borrowed(evn))


class Tables:
    """The scenario as Python lists (fast to read element by element in Python)."""

    def __init__(self, sc: Scenario):
        g = sc.grid
        self.sc = sc
        self.grid = g
        self.H = g.n
        self.U = sc.n_units
        self.NC = sc.n_combat
        self.adj = g.adjacent
        self.side = sc.side.tolist()
        self.typ = sc.type.tolist()
        self.is_cav = [t == CAVALRY for t in self.typ]
        self.is_inf = [t == INFANTRY for t in self.typ]
        self.is_wagon = [t == WAGON for t in self.typ]
        tatar, cossack = NATIONS.index("tatar"), NATIONS.index("cossack")
        self.is_tatar = [n == tatar for n in sc.nation.tolist()]
        self.is_cossack_inf = [n == cossack and t == INFANTRY for n, t in zip(sc.nation.tolist(), self.typ)]
        self.act = sc.act.tolist()
        self.res = sc.resistance.tolist()
        self.die = sc.die.tolist()
        self.att = sc.attack.tolist()
        self.dfn = sc.defence.tolist()
        self.complex = sc.complex.tolist()
        self.camp = sc.camp.tolist()
        self.units_of = [[u for u in range(self.U) if self.side[u] == p] for p in (0, 1)]
        self.combat_units_of = [[u for u in self.units_of[p] if not self.is_wagon[u]] for p in (0, 1)]
        self.tatars = [u for u in range(self.U) if self.is_tatar[u]]
        self.wagons = [u for u in range(self.U) if self.is_wagon[u]]
        r = sc.rules
        self.rules = r
        self.move_allowance = [r["move_cavalry"] if c else r["move_infantry"] for c in self.is_cav]
        # Line of each hex (the X of "XY"): P-L retreat toward lower lines, C-T toward higher (8.1.7).
        line = [int(h[0]) for h in g.ids]
        self.line = line
        self.rear = [
            [tuple(n for n in g.adjacent[h] if line[n] == line[h] + step) for h in range(g.n)]
            for step in (-1, +1)
        ]
        self.beside = [tuple(n for n in g.adjacent[h] if line[n] == line[h]) for h in range(g.n)]
