"""Rule-faithful PettingZoo AEC environments of historical hex-and-counter wargames.

    from wargame_envs import berestechko_v0
    env = berestechko_v0.env(render_mode="ansi")

or ``wargame_envs.make("berestechko_v0")``. Importing this package never imports torch or a
drawing library.
"""

from __future__ import annotations

import importlib

from .registry import BATTLES, make, make_engine

__version__ = "0.1.0"
__all__ = ["BATTLES", "make", "make_engine", *BATTLES]


def __getattr__(name: str):
    # ``from wargame_envs import berestechko_v0`` loads the battle's env module on demand.
    if name in BATTLES:
        return importlib.import_module(BATTLES[name][0])
    raise AttributeError(f"module 'wargame_envs' has no attribute {name!r}")
