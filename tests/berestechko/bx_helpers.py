"""Build Berestechko positions and play scripted decisions through the public engine API."""

from __future__ import annotations

import numpy as np

from wargame_envs.berestechko.rules import BerestechkoEngine
from wargame_envs.berestechko.state import S
from wargame_envs.core import ScriptedDice

ENGINE = BerestechkoEngine()
PL, CT = 0, 1


def position(units: dict, active: str = "polish_lithuanian", dice=None, commands=None, round: int = 1, **extra) -> dict:
    """``units``: name -> hex id, or name -> dict of the position format."""
    out = {"round": round, "active": active, "units": {}}
    for name, spec in units.items():
        out["units"][name] = {"hex": spec} if isinstance(spec, str) else dict(spec)
    if dice is not None:
        out["dice"] = list(dice)
    out["commands"] = commands or {"polish_lithuanian": {"reconnaissance": 0, "interaction": 0},
                                   "cossack_tatar": {"reconnaissance": 0, "interaction": 0}}
    out.update(extra)
    return out


def start(units: dict, rolls=(), **kw):
    """A game from ``position(units, **kw)`` with scripted dice ``rolls`` for every later roll."""
    dice = ScriptedDice(rolls)
    s = ENGINE.new_state({"position": position(units, **kw)}, dice)
    return s, dice


def action(s, step: str) -> int:
    """``"die:3"`` (a die showing 3), ``"unit:Hrunka"``, ``"wagon_die:Bohun"``, ``"wagon_cmd:Bohun"``,
    ``"hex:32"`` or an option name such as ``"stand"``."""
    c, names = ENGINE.codec, ENGINE.scenario.names
    kind, _, arg = step.partition(":")
    mask = ENGINE.legal_mask(s)
    if kind == "die":
        for i in range(3):
            if s.dice[i] == int(arg) and not s.used[i] and mask[c.DIE + i]:
                return c.DIE + i
        raise AssertionError(f"no legal die {arg} in {s.dice.tolist()} (used {s.used.tolist()})")
    if kind == "unit":
        return c.UNIT + names.index(arg)
    if kind == "wagon_die":
        return c.UNIT_WAGON_DIE + names.index(arg)
    if kind == "wagon_cmd":
        return c.UNIT_WAGON_CMD + names.index(arg)
    if kind == "hex":
        return ENGINE.grid.index[arg]
    return c.opt(step)


def legal(s) -> list[str]:
    return [ENGINE.action_to_str(s, a) for a in np.flatnonzero(ENGINE.legal_mask(s))]


def play(s, dice, *steps: str) -> None:
    """Apply each named decision; fail with the legal options if one is illegal."""
    for step in steps:
        a = action(s, step)
        mask = ENGINE.legal_mask(s)
        assert mask[a], f"{step!r} is illegal at {ENGINE.decision_name(s)}; legal: {legal(s)}"
        ENGINE.apply(s, a, dice)
        assert not ENGINE.check_invariants(s), ENGINE.check_invariants(s)


def unit(s, name: str) -> dict:
    """The unit's hex id (or None), status and activations, as a dict."""
    u = ENGINE.scenario.names.index(name)
    h = int(s.hex[u])
    return {"hex": ENGINE.grid.ids[h] if h >= 0 else None, "status": int(s.status[u]),
            "disorganized": bool(s.disorg[u]), "acts": int(s.acts[u])}


def decision(s) -> str:
    return ENGINE.decision_name(s)


def decider(s) -> int:
    return int(s.sc[S.DECIDER])
