"""The state as the compiled rules see it: :class:`Ctx`, one game's state fields as views of its int32
buffer (same names as ``state.KulikovoState``), with the game's dice, its event buffer and scratch room;
and :class:`Bound`, what the engine's entry kernels take for one game.

Every rule kernel takes ``(c, T, ...)``: ``c`` this context, ``T`` the scenario's
:class:`~wargame_envs.kulikovo.rules.tables.Tables`.
"""

from __future__ import annotations

from ...core.jit import kernel
from ...core.events import emit
from .handles import address_of, load_bound
from .records import record
from ..state import G_SP, N_GLOBALS, STACK_DEPTH, TASK_WIDTH

Ctx = record("Ctx", (
    "buf", "u_hex", "u_face", "u_status", "u_flags", "u_mp", "u_attacks", "u_tgt", "u_left", "u_react", "u_vac",
    "u_ccv", "hex_unit", "l_hex", "l_state", "l_rating", "l_range", "l_flags", "std_hex", "std_captured", "fp",
    "ambush", "g", "stack", "u_dtgt",
    # dice (core.chance), events (core.events)
    "dv", "ds", "ev", "evn",
    # scratch: ZOC against each side (count and units per hex, 7.0), the pending options (a mask)
    "zc", "zu", "opts",
))


@kernel
def make_ctx(buf, T, dv, ds, ev, evn, zc, zu, opts):
    """The context of the game in ``buf`` (``T.offsets``: where each state field starts)."""
    o = T.offsets
    U, N, NL = T.U, T.N, T.NL
    return Ctx(buf, buf[o[0]:o[0] + U], buf[o[1]:o[1] + U], buf[o[2]:o[2] + U], buf[o[3]:o[3] + U],
               buf[o[4]:o[4] + U], buf[o[5]:o[5] + U], buf[o[6]:o[6] + 2 * U].reshape((U, 2)),
               buf[o[7]:o[7] + U], buf[o[8]:o[8] + U], buf[o[9]:o[9] + U], buf[o[10]:o[10] + U],
               buf[o[11]:o[11] + N], buf[o[12]:o[12] + NL], buf[o[13]:o[13] + NL], buf[o[14]:o[14] + NL],
               buf[o[15]:o[15] + NL], buf[o[16]:o[16] + NL], buf[o[17]:o[17] + 2], buf[o[18]:o[18] + 2],
               buf[o[19]:o[19] + 2], buf[o[20]:o[20] + T.NAMB], buf[o[21]:o[21] + N_GLOBALS],
               buf[o[22]:o[22] + STACK_DEPTH * TASK_WIDTH].reshape((STACK_DEPTH, TASK_WIDTH)),
               buf[o[23]:o[23] + 2 * U].reshape((U, 2)), dv, ds, ev, evn, zc, zu, opts)


# One game bound to an engine, the one argument (with the dice) of the engine's entry kernels (``turn.k_step``,
# ``observation.k_observe``...): the game's context ``c``, the tables ``T``, the observation's tables ``O``, the
# engine's observation buffers (per player a row of ``obs`` and of ``marks``), the state for which ``c.opts``
# holds the options (``seen``, see ``turn.current_options``) and a dice stream that rolls nothing (``c``'s between
# two steps). All but ``c`` are the engine's, shared by its games. Made once per state
# (``KulikovoEngine.bound``): building a context costs about a microsecond (a reference count per field).
Bound = record("Bound", ("c", "T", "O", "obs", "marks", "seen", "no_dv", "no_ds"))


@kernel
def bind(buf, T, O, obs, marks, seen, no_dv, no_ds, ev, evn, zc, zu, opts):
    """The :class:`Bound` of the game in ``buf`` (the rest: the engine's tables, buffers and scratch)."""
    return Bound(make_ctx(buf, T, no_dv, no_ds, ev, evn, zc, zu, opts), T, O, obs, marks, seen, no_dv, no_ds)


@kernel
def bind_like(bound, buf):
    """The :class:`Bound` of the game in ``buf`` with what ``bound`` (the address of another game's record:
    ``handles.py``) holds of its engine, and the new record's address: the cheap :func:`bind` of a clone."""
    G = load_bound(bound)
    c = G.c
    rec = Bound(make_ctx(buf, G.T, G.no_dv, G.no_ds, c.ev, c.evn, c.zc, c.zu, c.opts), G.T, G.O, G.obs, G.marks,
                G.seen, G.no_dv, G.no_ds)
    return rec, address_of(rec)



@kernel
def log(c, code, a=0, b=0, x=0, d=0):
    """One event for the game log (events.py formats it)."""
    emit(c.ev, c.evn, code, a, b, x, d)


# ------------------------------------------------------------------ task stack
@kernel
def push(c, kind, player, a=-1, b=-1, x=-1, d=-1, e=-1, f=-1, g=-1, h=-1):
    """Push the task ``(kind, player, args...)`` (unused args -1)."""
    sp = c.g[G_SP]
    if sp >= STACK_DEPTH:
        raise RuntimeError("task stack overflow")
    row = c.stack[sp]
    row[0] = kind
    row[1] = player
    row[2] = a
    row[3] = b
    row[4] = x
    row[5] = d
    row[6] = e
    row[7] = f
    row[8] = g
    row[9] = h
    c.g[G_SP] = sp + 1


@kernel
def insert_below(c, index, kind, player, a=-1, b=-1):
    """Insert a task at stack position ``index`` (entries from there up move one place up)."""
    sp = c.g[G_SP]
    if sp >= STACK_DEPTH:
        raise RuntimeError("task stack overflow")
    for i in range(sp, index, -1):
        c.stack[i, :] = c.stack[i - 1, :]
    row = c.stack[index]
    row[:] = -1
    row[0] = kind
    row[1] = player
    row[2] = a
    row[3] = b
    c.g[G_SP] = sp + 1


@kernel
def pop(c):
    c.g[G_SP] -= 1
