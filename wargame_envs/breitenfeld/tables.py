"""The scenario's tables as the compiled rules read them: the ints and int64 arrays of :class:`Tables`,
packed into one structured numpy array of one element (the *packed tables*, a field per name).

:func:`kernel_tables` builds them from the loaded data (``data.BreitenfeldData``), :func:`pack_tables`
packs them once per engine; the compiled entry points (``compiled.py``, ``batch.py``) take the packed
tables as one argument (never a module global, so the on-disk cache of the compiled code stays valid for
any ``data_dir``; one argument, because numba checks the type of each argument of every call from Python)
and :func:`unpack` reads them as one numba record ``T`` (``T.nu``, ``T.neighbors[h, d]``), which every
rule function takes. Flags are 0/1 ints. :func:`fields` slices the state buffer into its
fields.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..core.dtypes import interned
from ..core.jit import kernel
from ..core.kernel_records import as_record, borrowed_view
from .state import RESULT_CODES

#: the int fields of :class:`Tables`, then its arrays with their number of dimensions
SCALARS = (
    "nu", "nl", "na", "nc", "nh", "n_armies", "corps0", "piece0", "hex0", "n_actions", "turns", "saxon_army",
    "swede_army", "saxon_exit", "vp_per_sp", "vp_per_art", "exit_scores", "release_distance",
    "all_in_command_turns", "exchange_leadership", "undisrupt_on", "max_roll", "disrupted_hexes", "demoralized_hexes", "charge_min_hexes",
    "charge_mult", "vis_moderate_undisrupt_on", "vis_restricted_range",
)
ARRAYS = (
    "neighbors", "dist", "step_to", "step_cost", "edge_step", "on_edge", "is_slope", "hilltop", "woods",
    "blocks_los", "defense_mult", "defense_needs_slope", "axial", "axial_index", "axial_origin", "unit_side",
    "unit_army", "unit_corps", "unit_kind", "unit_strength", "unit_dstrength", "unit_ma", "leader_side",
    "leader_corps", "leader_value", "leader_ma", "leader_vp", "art_side", "corps_side", "corps_units",
    "corps_n_units", "corps_leaders", "corps_n_leaders", "corps_pieces", "corps_n_pieces", "main_army", "crt",
    "crt_x", "crt_y", "art_fire", "demor_level", "release_turn", "vis_rolls",
)
NDIM = {"neighbors": 2, "dist": 2, "step_to": 3, "step_cost": 3, "edge_step": 3, "on_edge": 2, "is_slope": 1, "hilltop": 1, "woods": 1, "blocks_los": 1, "defense_mult": 1, "defense_needs_slope": 1, "axial": 2, "axial_index": 2, "axial_origin": 1, "unit_side": 1, "unit_army": 1, "unit_corps": 1, "unit_kind": 1, "unit_strength": 1, "unit_dstrength": 1, "unit_ma": 1, "leader_side": 1, "leader_corps": 1, "leader_value": 1, "leader_ma": 1, "leader_vp": 1, "art_side": 1, "corps_side": 1, "corps_units": 2, "corps_n_units": 1, "corps_leaders": 2, "corps_n_leaders": 1, "corps_pieces": 2, "corps_n_pieces": 1, "main_army": 1, "crt": 2, "crt_x": 1, "crt_y": 1, "art_fire": 2, "demor_level": 1, "release_turn": 1, "vis_rolls": 1}
Tables = namedtuple("Tables", SCALARS + ARRAYS)


def _padded(rows, width: int = 1) -> np.ndarray:
    """Ragged int rows as a -1 padded (n, width) array."""
    width = max([len(r) for r in rows] + [width])
    out = np.full((len(rows), width), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


def kernel_tables(D) -> Tables:
    """The tables of the data ``D`` (arrays as numpy int64)."""
    g = D.grid
    corps_pieces = [tuple(D.corps_units[c]) + tuple(D.n_units + l for l in D.corps_leaders[c]) for c in range(D.n_corps)]
    ratios = [c.split("-") for c in D.crt_columns]
    army = lambda name: D.army_ids.index(name) if name in D.army_ids else -1  # noqa: E731
    t = dict(
        nu=D.n_units, nl=D.n_leaders, na=D.n_art, nc=D.n_corps, nh=g.n, n_armies=len(D.army_ids),
        corps0=6, piece0=6 + D.n_corps, hex0=6 + D.n_corps + D.n_units + D.n_leaders,
        n_actions=6 + D.n_corps + D.n_units + D.n_leaders + g.n, turns=D.turns,
        saxon_army=army("saxons"), swede_army=army("swedes"), saxon_exit=int(D.saxon_exit),
        vp_per_sp=D.vp_per_sp, vp_per_art=D.vp_per_art, exit_scores=int(D.exit_scores),
        release_distance=D.release_distance, all_in_command_turns=D.all_in_command_turns,
        exchange_leadership=D.exchange_leadership,
        undisrupt_on=D.undisrupt_on, max_roll=D.max_roll, disrupted_hexes=D.disrupted_hexes,
        demoralized_hexes=D.demoralized_hexes, charge_min_hexes=D.charge_min_hexes, charge_mult=D.charge_mult,
        vis_moderate_undisrupt_on=D.vis_moderate_undisrupt_on, vis_restricted_range=D.vis_restricted_range,
        neighbors=g.neighbors, dist=g.dist, step_to=np.stack(D.step_to), step_cost=np.stack(D.step_cost),
        edge_step=np.stack([_padded(D.edge_step[s], 2) for s in (0, 1)]), on_edge=D.on_edge,
        is_slope=D.is_slope, hilltop=D.is_hilltop, woods=[t == "woods" for t in D.hex_terrain_name],
        blocks_los=D.blocks_los, defense_mult=D.defense_mult, defense_needs_slope=D.defense_needs_slope,
        axial=g.axial, axial_index=g.axial_index, axial_origin=g.axial_origin,
        unit_side=D.unit_side, unit_army=D.unit_army, unit_corps=D.unit_corps, unit_kind=D.unit_kind,
        unit_strength=D.unit_strength, unit_dstrength=D.unit_dstrength, unit_ma=D.unit_ma,
        leader_side=D.leader_side, leader_corps=D.leader_corps, leader_value=D.leader_value,
        leader_ma=D.leader_ma, leader_vp=D.leader_vp, art_side=D.art_side, corps_side=D.corps_side,
        corps_units=_padded(D.corps_units), corps_n_units=[len(r) for r in D.corps_units],
        corps_leaders=_padded(D.corps_leaders), corps_n_leaders=[len(r) for r in D.corps_leaders],
        corps_pieces=_padded(corps_pieces), corps_n_pieces=[len(r) for r in corps_pieces],
        main_army=[next(a for a, sd in enumerate(D.army_side) if sd == side) for side in (0, 1)],
        crt=[[RESULT_CODES.index(r) for r in row] for row in D.crt],
        crt_x=[int(x) for x, _ in ratios], crt_y=[int(y) for _, y in ratios],
        art_fire=np.asarray(D.art_fire, dtype=np.int64).reshape(-1, 2), demor_level=D.demor_level,
        release_turn=D.release_turn, vis_rolls=D.vis_rolls,
    )
    for name in ARRAYS:
        t[name] = np.asarray(t[name]).astype(np.int64)
        assert t[name].ndim == NDIM[name], name
    return Tables(**t)


def pack_tables(T: Tables) -> np.ndarray:
    """The tables as one read-only structured array of one element, a field per name of :class:`Tables`
    (arrays as sub-arrays)."""
    return pack({name: getattr(T, name) for name in SCALARS + ARRAYS},
                [(name, np.int64) for name in SCALARS + ARRAYS])


def pack(arrays: dict, kinds: list) -> np.ndarray:
    """``arrays`` as one read-only structured array of one element: a field per ``(name, dtype)`` of ``kinds``,
    shaped as its value."""
    rec = np.zeros(1, dtype=interned([(name, kind, np.shape(arrays[name])) for name, kind in kinds]))
    for name, _ in kinds:
        rec[0][name] = arrays[name]
    rec.setflags(write=False)
    return rec


@kernel
def unpack(packed):
    """Packed tables (:func:`pack`) read as one record, a pointer: no reference counting (core.kernel_records)."""
    return as_record(packed, packed.dtype)


# borrowed 1-D views of the state buffer: no reference counting (core.kernel_records)
view = borrowed_view


@kernel
def fields(buf, T):
    """The state buffer's fields as (borrowed) views, in ``state.make_state_class`` order: u_hex, u_dis,
    u_flags, u_start, l_hex, l_flags, a_hex, a_owner, a_target, cup, g."""
    nu, nl, na, nc = T.nu, T.nl, T.na, T.nc
    o1 = 4 * nu
    o2 = o1 + 2 * nl
    o3 = o2 + 3 * na
    return (view(buf, 0, nu), view(buf, nu, 2 * nu), view(buf, 2 * nu, 3 * nu), view(buf, 3 * nu, o1),
            view(buf, o1, o1 + nl), view(buf, o1 + nl, o2), view(buf, o2, o2 + na), view(buf, o2 + na, o2 + 2 * na),
            view(buf, o2 + 2 * na, o3), view(buf, o3, o3 + nc), view(buf, o3 + nc, buf.size))


@kernel
def globals_of(buf, T):
    """The view ``g`` of the scalars (``state.G_*``)."""
    return view(buf, 4 * T.nu + 2 * T.nl + 3 * T.na + T.nc, buf.size)


#: ``work``: the int64 scratch the compiled entry points take (``new_work``), cut into blocks of ``nh + 1``:
#: MP costs (``cost``, what ``legal_options`` leaves for a destination decision), the unit of each hex, a list of
#: pieces, the working arrays of the movement search (``movement.cheapest``: two queues of 6 blocks each), and
#: what the ``W_OUT`` list holds (``W_LISTED``: see :func:`note_listed`).
W_COST, W_AT, W_OUT, W_BEST, W_STOP, W_BARRED, W_HEAD, W_TAIL, W_QUEUED, W_AFTER, W_LISTED = (
    0, 1, 2, 3, 4, 5, 6, 7, 8, 14, 20)
WORK_BLOCKS = 21


def new_work(nh: int) -> np.ndarray:
    """A ``work`` array for a map of ``nh`` hexes (one per caller: the engine, a batch)."""
    return np.zeros(WORK_BLOCKS * (nh + 1), dtype=np.int64)


@kernel
def block(work, T, k):
    """Block ``k`` of ``work``: ``nh`` items (a borrowed view)."""
    return view(work, k * (T.nh + 1), k * (T.nh + 1) + T.nh)


@kernel
def blocks(work, T, k, count):
    """Blocks ``k`` .. ``k + count - 1`` of ``work`` as one borrowed view."""
    return view(work, k * (T.nh + 1), (k + count) * (T.nh + 1))


@kernel
def note_listed(work, T, decision, n, end):
    """The sequence set ``decision`` after listing its options in the ``W_OUT`` block (``n`` of them; ``end``:
    END is one too), so that the mask written next for this very state need not list them again
    (``decisions.legal_options``); ``decision`` D_NONE (0): nothing listed."""
    k = W_LISTED * (T.nh + 1)
    work[k] = decision
    work[k + 1] = n
    work[k + 2] = end


@kernel
def listed(work, T):
    """(decision, number of options, END too) last noted by :func:`note_listed`."""
    k = W_LISTED * (T.nh + 1)
    return work[k], work[k + 1], work[k + 2]


@kernel
def place_units(u_hex, at):
    """``at[hex]``: the unit in each hex (-1 none; the last listed where a position stacks two); returns ``at``."""
    at[:] = -1
    for u in range(u_hex.size):
        if u_hex[u] >= 0:
            at[u_hex[u]] = u
    return at


@kernel
def unit_at(u_hex, nh):
    """:func:`place_units` into a new array."""
    return place_units(u_hex, np.empty(nh, np.int64))
