"""The batched API: ``make(name, num_envs, seed=None, **options)`` -> :class:`~wargame_envs.core.vector.VectorGame`.

``options`` are the AEC env's reset options (``variant``, ``position``, ...), applied to every game, plus
the backend's own keywords where a battle has them (``observation="compact"`` for Kulikovo's int8 form,
``data_dir``). See ``wargame_envs/core/vector.py`` for the arrays, auto-reset and seeds.
"""

from __future__ import annotations

import importlib
from typing import Any

from .core.vector import Step, VectorGame
from .registry import resolve

#: env name -> backend class (module:Class)
BACKENDS: dict[str, str] = {
    "berestechko_v0": "wargame_envs.berestechko.batch:BerestechkoBackend",
    "breitenfeld_v0": "wargame_envs.breitenfeld.batch:BreitenfeldBackend",
    "kulikovo_v0": "wargame_envs.kulikovo.batch:KulikovoBackend",
}

__all__ = ["BACKENDS", "Step", "VectorGame", "make"]


def make(name: str, num_envs: int, seed: int | None = None, **options: Any) -> VectorGame:
    full = resolve(name)
    if full not in BACKENDS:
        raise KeyError(f"{full} has no batched backend (available: {sorted(BACKENDS)})")
    mod, _, cls = BACKENDS[full].partition(":")
    backend_class = getattr(importlib.import_module(mod), cls)
    backend_kw = {k: options.pop(k) for k in getattr(backend_class, "KEYWORDS", ()) if k in options}
    return VectorGame(backend_class(**backend_kw), num_envs, seed=seed, options=options)
