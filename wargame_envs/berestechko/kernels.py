"""The compiled entry points the engine calls for one game (``rules.py``); ``batch.py`` has the batched ones.

Each takes the packed tables ``kt`` and a state buffer ``buf`` with their layouts ``kdt`` and ``gdt`` (plain
arrays and dtypes: a call from Python costs well under a microsecond, see ``tables.py``) and runs the same
rule functions as the batched kernels.
"""

from __future__ import annotations

from ..core.jit import kernel
from .mask import legal_mask
from .observation import observe
from .sequence import apply, opening_throw_due, throw
from .state import Reason, S
from ..core.kernel_records import as_record, borrowed
from .tables import make_io
from .victory import victory_points


@kernel
def apply_one(kt, kdt, buf, gdt, action, dv, ds, ev, evn):
    apply(as_record(kt, kdt), as_record(buf, gdt), make_io(dv, ds, ev, evn), action)


@kernel
def open_one(kt, kdt, buf, gdt, dv, ds, ev, evn):
    """A new game (or a position without dice) opens with the throw (4.1)."""
    g = as_record(buf, gdt)
    if opening_throw_due(g):
        throw(as_record(kt, kdt), g, make_io(dv, ds, ev, evn))


@kernel
def mask_one(kt, kdt, buf, gdt, mask):
    legal_mask(as_record(kt, kdt), as_record(buf, gdt), borrowed(mask))


@kernel
def observe_one(kt, kdt, buf, gdt, player, obs):
    observe(as_record(kt, kdt), as_record(buf, gdt), player, borrowed(obs))


@kernel
def scores_one(kt, kdt, buf, gdt):
    """(P-L, C-T) victory points: the final ones once the game is over, else as if it ended now."""
    k, g = as_record(kt, kdt), as_record(buf, gdt)
    if g.sc[S.OVER]:
        return g.sc[S.VP0], g.sc[S.VP1]
    return victory_points(k, g, Reason.NONE)
