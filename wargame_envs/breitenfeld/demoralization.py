"""Demoralization (11.0, exclusive rules 20.11 / 20.14 as used by 12.2), compiled.

Each army counts the printed strength of its eliminated units; at its Demoralization Level (data:
``rules.toml [[demoralization]]``) it is demoralized for the rest of the game. Saxon losses count only
toward the Saxon level. Effects live where they act: 11.11 (no undisrupting infantry) in
``disruption.py``, 11.12 (forced four-hex moves to the friendly edge) in ``movement.py``, 12.5 (Swedish
charges) in ``combat.py``, 20.14 (Saxons leave the map) in ``movement.py``.
"""

from __future__ import annotations

from ..core.events import emit
from ..core.jit import kernel
from .events import EV_DEMORALIZED
from .state import G_DEMOR, G_ELIM0


@kernel
def is_demoralized(g, army):
    return (g[G_DEMOR] >> army) & 1 == 1


@kernel
def record_loss(T, g, army, strength, ev, evn):
    """11.0: ``strength`` more points lost by ``army``; demoralized at its level."""
    g[G_ELIM0 + army] += strength
    if not is_demoralized(g, army) and g[G_ELIM0 + army] >= T.demor_level[army]:
        g[G_DEMOR] |= 1 << army
        emit(ev, evn, EV_DEMORALIZED, army, g[G_ELIM0 + army], 0, 0)
