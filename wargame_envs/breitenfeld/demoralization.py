"""Demoralization (11.0, exclusive rules 20.11 / 20.14 as used by 12.2).

Each army counts the printed strength of its eliminated units; at its Demoralization Level (data:
``rules.toml [[demoralization]]``) it is demoralized for the rest of the game. Saxon losses count only
toward the Saxon level. Effects live where they act: 11.11 (no undisrupting infantry) in
``disruption.py``, 11.12 (forced four-hex moves to the friendly edge) in ``movement.py``, 12.5 (Swedish
charges) in ``combat.py``, 20.14 (Saxons leave the map) in ``movement.py``.
"""

from __future__ import annotations

from .state import G_DEMOR, G_ELIM0


def is_demoralized(s, army: int) -> bool:
    return bool(int(s.g[G_DEMOR]) >> army & 1)


def record_loss(D, s, army: int, strength: int) -> None:
    s.g[G_ELIM0 + army] += strength
    if not is_demoralized(s, army) and int(s.g[G_ELIM0 + army]) >= D.demor_level[army]:
        s.g[G_DEMOR] |= 1 << army
        s.log.append(f"{D.army_names[army]} reach their Demoralization Level "
                     f"({int(s.g[G_ELIM0 + army])} of {D.demor_level[army]} strength points lost) [11.0]")
