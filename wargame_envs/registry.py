"""Name -> battle lookup, so ``wargame_envs.make("berestechko_v0")`` and records find their engine."""

from __future__ import annotations

import importlib

# env name -> (module with raw_env/env, engine class path)
BATTLES: dict[str, tuple[str, str]] = {
    "berestechko_v0": ("wargame_envs.berestechko.env", "wargame_envs.berestechko.rules:BerestechkoEngine"),
    "kulikovo_v0": ("wargame_envs.kulikovo.env", "wargame_envs.kulikovo.rules:KulikovoEngine"),
    "breitenfeld_v0": ("wargame_envs.breitenfeld.env", "wargame_envs.breitenfeld.rules:BreitenfeldEngine"),
}
SHORT_NAMES = {name.rsplit("_v", 1)[0]: name for name in BATTLES}


def resolve(name: str) -> str:
    name = SHORT_NAMES.get(name, name)
    if name not in BATTLES:
        raise KeyError(f"unknown environment {name!r}; available: {sorted(BATTLES)}")
    return name


def make_engine(name: str, **kwargs):
    mod, _, cls = BATTLES[resolve(name)][1].partition(":")
    return getattr(importlib.import_module(mod), cls)(**kwargs)


def make(name: str, raw: bool = False, **kwargs):
    module = importlib.import_module(BATTLES[resolve(name)][0])
    return (module.raw_env if raw else module.env)(**kwargs)
