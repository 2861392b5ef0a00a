"""The task stack's driver: which rule function answers each task kind, the settle loop, one decision
applied, and the compiled entry points the Python engine (``engine.py``) and the batched backend
(``batch.py``) call.

Compound turns are a stack of tasks (``state.stack``). Applying a decision runs its handler, then
:func:`settle` runs automatic tasks until the top of the stack is a decision with at least one legal
option (or the game is over). Decisions without options are skipped, except a retreat without a path,
which eliminates the unit (12.1).
"""

from __future__ import annotations

import numpy as np

from ...core.chance import DS_SIZE
from ...core.jit import kernel
from ..events import EV_NO_RETREAT
from ..state import (
    A_ACT_START, A_ACTIVATE, A_AFTER_ROLL, A_CC_CHARGE, A_END_ACT, A_FIRE, A_FLIGHT, A_HEROIC, A_POST, A_RESOLVE,
    D_ADV_PICK, D_CC_FIRE, D_CONTINUITY, D_DEFENSE, D_FACE, D_FREE, D_LEADER_MOVE, D_MF_SELECT, D_PLACE_REPL,
    D_RBS_ADVANCE, D_REACT, D_RESOLVE_PICK, D_RETREAT, D_RETURN, D_SEIZE, D_SETUP_AMBUSH, D_SETUP_DMITRI,
    D_SETUP_FACE, D_SETUP_LEADER, D_SHOCK_MODE, D_SHOCK_SELECT, D_STD_MOVE, D_UNIT_ACT, DECISION_NAMES, G_AMBUSH_PLACED,
    G_DECISIONS, G_OVER, G_SP, G_TRUNC, TASK_WIDTH,
)
# submodules by full name: ``from . import`` would make this module depend on the package's __init__,
# which imports the engine, which imports this module (tests/test_cli.py checks the import graph)
import wargame_envs.kulikovo.rules.activation as act
import wargame_envs.kulikovo.rules.fire as fire
import wargame_envs.kulikovo.rules.movement as movement
import wargame_envs.kulikovo.rules.setup as setup
import wargame_envs.kulikovo.rules.shock as shock
from .board import eliminate
from .handles import load_bound
from .kstate import log, make_ctx, pop
from .leaders import check_ambush_los, command_ratings
from .zoc import zoc_fill

FIRST_AUTO = A_ACTIVATE
#: the decision id of a finished game (``KulikovoEngine.decision_names``: one past the last decision kind)
GAME_OVER = max(DECISION_NAMES) + 1


@kernel
def options(c, T, t, mask):
    """Mark the legal actions of decision task ``t`` in ``mask``; returns how many (0: none)."""
    k = t[0]
    if k == D_UNIT_ACT:
        return movement.opt_unit_act(c, T, t, mask)
    if k == D_MF_SELECT:
        return act.opt_mf_select(c, T, t, mask)
    if k == D_SHOCK_SELECT:
        return shock.opt_shock_select(c, T, t, mask)
    if k == D_RESOLVE_PICK:
        return shock.opt_resolve_pick(c, T, t, mask)
    if k == D_CONTINUITY:
        return act.opt_continuity(c, T, t, mask)
    if k == D_SEIZE:
        return act.opt_seize(c, T, t, mask)
    if k == D_FREE:
        return act.opt_free(c, T, t, mask)
    if k == D_REACT:
        return fire.opt_react(c, T, t, mask)
    if k == D_RETURN:
        return fire.opt_return(c, T, t, mask)
    if k == D_CC_FIRE:
        return fire.opt_cc_fire(c, T, t, mask)
    if k == D_RETREAT:
        return fire.opt_retreat(c, T, t, mask)
    if k == D_FACE:
        return fire.opt_face(c, T, t, mask)
    if k == D_SHOCK_MODE:
        return shock.opt_shock_mode(c, T, t, mask)
    if k == D_DEFENSE:
        return shock.opt_defense(c, T, t, mask)
    if k == D_RBS_ADVANCE:
        return shock.opt_rbs_advance(c, T, t, mask)
    if k == D_ADV_PICK:
        return shock.opt_adv_pick(c, T, t, mask)
    if k == D_LEADER_MOVE:
        return act.opt_leader_move(c, T, t, mask)
    if k == D_STD_MOVE:
        return act.opt_std_move(c, T, t, mask)
    if k == D_PLACE_REPL:
        return act.opt_place_repl(c, T, t, mask)
    if k == D_SETUP_AMBUSH:
        return setup.opt_setup_ambush(c, T, t, mask)
    if k == D_SETUP_FACE:
        return setup.opt_setup_face(c, T, t, mask)
    if k == D_SETUP_LEADER:
        return setup.opt_setup_leader(c, T, t, mask)
    if k == D_SETUP_DMITRI:
        return setup.opt_setup_dmitri(c, T, t, mask)
    return 0


@kernel
def carry_out(c, T, t, a):
    """Carry out legal action ``a`` of decision task ``t``."""
    k = t[0]
    if k == D_UNIT_ACT:
        movement.do_unit_act(c, T, t, a)
    elif k == D_MF_SELECT:
        act.do_mf_select(c, T, t, a)
    elif k == D_SHOCK_SELECT:
        shock.do_shock_select(c, T, t, a)
    elif k == D_RESOLVE_PICK:
        shock.do_resolve_pick(c, T, t, a)
    elif k == D_CONTINUITY:
        act.do_continuity(c, T, t, a)
    elif k == D_SEIZE:
        act.do_seize(c, T, t, a)
    elif k == D_FREE:
        act.do_free(c, T, t, a)
    elif k == D_REACT:
        fire.do_react(c, T, t, a)
    elif k == D_RETURN:
        fire.do_return(c, T, t, a)
    elif k == D_CC_FIRE:
        fire.do_cc_fire(c, T, t, a)
    elif k == D_RETREAT:
        fire.do_retreat(c, T, t, a)
    elif k == D_FACE:
        fire.do_face(c, T, t, a)
    elif k == D_SHOCK_MODE:
        shock.do_shock_mode(c, T, t, a)
    elif k == D_DEFENSE:
        shock.do_defense(c, T, t, a)
    elif k == D_RBS_ADVANCE:
        shock.do_rbs_advance(c, T, t, a)
    elif k == D_ADV_PICK:
        shock.do_adv_pick(c, T, t, a)
    elif k == D_LEADER_MOVE:
        act.do_leader_move(c, T, t, a)
    elif k == D_STD_MOVE:
        act.do_std_move(c, T, t, a)
    elif k == D_PLACE_REPL:
        act.do_place_repl(c, T, t, a)
    elif k == D_SETUP_AMBUSH:
        setup.do_setup_ambush(c, T, t, a)
    elif k == D_SETUP_FACE:
        setup.do_setup_face(c, T, t, a)
    elif k == D_SETUP_LEADER:
        setup.do_setup_leader(c, T, t, a)
    elif k == D_SETUP_DMITRI:
        setup.do_setup_dmitri(c, T, t, a)


@kernel
def auto_step(c, T, t):
    """Carry out automatic task ``t`` (already popped)."""
    k = t[0]
    if k == A_RESOLVE:
        shock.auto_resolve(c, T, t)
    elif k == A_AFTER_ROLL:
        shock.auto_after_roll(c, T, t)
    elif k == A_POST:
        shock.auto_post(c, T, t)
    elif k == A_FIRE:
        fire.auto_fire(c, T, t)
    elif k == A_CC_CHARGE:
        fire.auto_cc_charge(c, T, t)
    elif k == A_ACTIVATE:
        act.auto_activate(c, T, t)
    elif k == A_ACT_START:
        act.auto_act_start(c, T, t)
    elif k == A_END_ACT:
        act.auto_end_act(c, T, t)
    elif k == A_FLIGHT:
        act.auto_flight(c, T, t)
    elif k == A_HEROIC:
        act.auto_heroic(c, T, t)


@kernel
def _top(c, t):
    """The task on top of the stack into ``t``."""
    row = c.stack[c.g[G_SP] - 1]  # (read once: kernel speed)
    for i in range(TASK_WIDTH):
        t[i] = row[i]


@kernel
def settle(c, T):
    """Run automatic tasks until a decision with options is on top (its options then in ``c.opts``) or
    the game is over (``c.opts`` cleared)."""
    t = np.empty(TASK_WIDTH, np.int64)
    while True:
        c.opts[:] = False
        if c.g[G_OVER]:
            return
        if c.g[G_SP] <= 0:
            raise RuntimeError("empty task stack in a running game")
        _top(c, t)
        kind = t[0]
        if kind >= FIRST_AUTO:
            pop(c)
            auto_step(c, T, t)
            continue
        if options(c, T, t, c.opts):
            return
        pop(c)
        if kind == D_RETREAT:
            u = t[2]
            if c.u_hex[u] >= 0:
                log(c, EV_NO_RETREAT, u, c.u_hex[u])
                eliminate(c, T, u)


@kernel
def pending_options(c, T):
    """The options of the pending decision into ``c.opts`` (cleared once the game is over); how many."""
    c.opts[:] = False
    if c.g[G_OVER] or c.g[G_SP] <= 0:
        return 0
    t = np.empty(TASK_WIDTH, np.int64)
    _top(c, t)
    if t[0] >= FIRST_AUTO:
        return 0
    return options(c, T, t, c.opts)


@kernel
def step(c, T, a):
    """Apply action ``a``, legal at the pending decision (the callers check it against the mask: the
    engine's ``apply``, ``VectorGame.step``), and settle."""
    t = np.empty(TASK_WIDTH, np.int64)
    _top(c, t)
    c.g[G_DECISIONS] += 1
    carry_out(c, T, t, a)
    settle(c, T)


# ------------------------------------------------------------------ entry points
@kernel
def _ctx(buf, T, dv, ds, ev, evn, mask):
    zc = np.zeros((2, T.N), np.int64)
    zu = np.empty((2, T.N, 6), np.int64)
    return make_ctx(buf, T, dv, ds, ev, evn, zc, zu, mask)


@kernel
def _remember(G):
    """``G.c.opts`` holds the options of the game's state as it is now (:func:`current_options`)."""
    buf, seen = G.c.buf, G.seen
    n = buf.size
    for i in range(n):  # (a loop: ``seen[:n] = buf`` checks for overlap and copies ten times slower)
        seen[i] = buf[i]
    seen[n] = 1


@kernel
def _differ(a, b):
    """Whether the first ``a.size`` entries of ``b`` differ from ``a`` (no early exit: the compiler vectorizes
    the loop)."""
    d = 0
    for i in range(a.size):
        d |= a[i] ^ b[i]
    return d != 0


@kernel
def current_options(G):
    """Make ``G.c.opts`` hold the pending decision's options of the game bound as ``G``: computed only when
    ``G.seen`` (the state they were computed for, then a 1) holds another state, or none (the engine's
    options and ``seen`` are shared by its games, and anyone may write to a state)."""
    buf, seen = G.c.buf, G.seen
    if seen[buf.size] != 1 or _differ(buf, seen):
        pending_options(G.c, G.T)
        _remember(G)


@kernel
def _with_dice(G, dv, ds):
    """The context of the game bound as ``G`` rolling with ``dv``, ``ds`` (``core.chance``)."""
    c = G.c
    c.dv = dv
    c.ds = ds
    return c


@kernel
def _done(G):
    """After a step: its options remembered (:func:`current_options`), the context back to rolling nothing;
    how many events the step logged."""
    _remember(G)
    c = G.c
    c.dv = G.no_dv
    c.ds = G.no_ds
    return c.evn[0]


@kernel
def k_settle(bound, dv, ds):
    """Settle a new state, bound as ``bound`` (the address of its ``kstate.Bound``: ``handles.py``), rolling
    with ``dv``, ``ds`` (its opening chance); the pending decision's options into ``G.c.opts``; returns how
    many events it logged."""
    G = load_bound(bound)
    settle(_with_dice(G, dv, ds), G.T)
    return _done(G)


@kernel
def k_step(bound, dv, ds, a):
    """:func:`step` on the game bound as ``bound`` (see :func:`k_settle`) if action ``a`` is legal, rolling
    with ``dv``, ``ds``; the next decision's options into ``G.c.opts``; returns how many events it logged,
    or -1 if ``a`` is not legal (nothing done)."""
    G = load_bound(bound)
    current_options(G)
    if not G.c.opts[a]:
        return -1
    step(_with_dice(G, dv, ds), G.T, a)
    return _done(G)


@kernel
def k_options(bound):
    """The pending decision's options of the game bound as ``bound`` (see :func:`k_settle`) into
    ``G.c.opts`` (:func:`current_options`)."""
    current_options(load_bound(bound))


@kernel
def k_progress(g, stack):
    """``Engine.progress`` of a game (its ``g`` and ``stack`` fields): whether it ended (not by the activation
    limit), whether it was truncated, the player to move and the pending decision kind (-1 and
    ``GAME_OVER`` once it is over)."""
    if g[G_OVER]:
        return bool(g[G_TRUNC] == 0), bool(g[G_TRUNC] != 0), -1, GAME_OVER
    top = stack[g[G_SP] - 1]
    return False, False, int(top[1]), int(top[0])


@kernel
def k_ratings(buf, T, out):
    """Every command's activation rating (4.2, 13.2, 13.3) into ``out``."""
    dv = np.zeros(0, np.float64)
    ds = np.zeros(DS_SIZE, np.int64)
    ev = np.zeros((0, 5), np.int32)
    evn = np.zeros(1, np.int64)
    mask = np.zeros(1, np.bool_)
    c = _ctx(buf, T, dv, ds, ev, evn, mask)
    command_ratings(c, T, out)


@kernel
def k_zoc(buf, T, p, zc, zu):
    """The ZOC against player ``p`` (7.0) into ``zc[p]`` / ``zu[p]`` (for views and tests)."""
    dv = np.zeros(0, np.float64)
    ds = np.zeros(DS_SIZE, np.int64)
    ev = np.zeros((0, 5), np.int32)
    evn = np.zeros(1, np.int64)
    mask = np.zeros(1, np.bool_)
    c = make_ctx(buf, T, dv, ds, ev, evn, zc, zu, mask)
    zoc_fill(c, T, p)


@kernel
def k_reveal(buf, T, ev, evn):
    """15.2: a hand-written position whose Mongol units see a hex of the hidden Ambush Regiment places
    it."""
    dv = np.zeros(0, np.float64)
    ds = np.zeros(DS_SIZE, np.int64)
    mask = np.zeros(1, np.bool_)
    c = _ctx(buf, T, dv, ds, ev, evn, mask)
    for u in range(T.side_ufirst[1], T.side_uend[1]):
        if c.u_hex[u] >= 0 and not c.g[G_AMBUSH_PLACED]:
            check_ambush_los(c, T, c.u_hex[u], u)
