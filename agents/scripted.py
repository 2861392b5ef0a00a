"""Finding a battle's scripted agent: the one ``*ScriptedAgent`` class of ``agents.<battle>_scripted``.

Shared by :mod:`agents.registry` (the ``scripted`` spec) and :mod:`agents.mcts` (scripted rollouts),
so neither imports the other for it (issue 12 item 14: no import cycles).
"""

from __future__ import annotations

import importlib
import inspect


class AgentUnavailableError(ValueError):
    """The spec is well formed but the module that provides its agent is missing."""


def battle_short_name(battle: str) -> str:
    """``berestechko_v0`` / ``berestechko`` -> ``berestechko``; KeyError for an unknown battle."""
    from wargame_envs import registry

    return registry.resolve(battle).rsplit("_v", 1)[0]


def scripted_agent_class(battle: str):
    """The ``*ScriptedAgent`` class defined in ``agents.<battle>_scripted``."""
    short = battle_short_name(battle)
    module_name = f"agents.{short}_scripted"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name not in (module_name, "agents"):
            raise
        raise AgentUnavailableError(
            f"no scripted agent for {battle}: module {module_name} does not exist") from None
    classes = [obj for name, obj in vars(module).items()
               if name.endswith("ScriptedAgent") and inspect.isclass(obj) and obj.__module__ == module.__name__]
    if len(classes) != 1:
        found = [c.__name__ for c in classes] or "none"
        raise AgentUnavailableError(f"{module_name} should define exactly one *ScriptedAgent class, found {found}")
    return classes[0]


def construct(cls, *args, **optional):
    """``cls(*args, **kw)`` with the keyword arguments of ``optional`` that ``cls`` accepts."""
    params = inspect.signature(cls).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    return cls(*args, **{k: v for k, v in optional.items() if takes_any or k in params})


def make_scripted_agent(battle: str, seed: int | None = None):
    """A fresh scripted agent for ``battle`` seeded with ``seed``."""
    return construct(scripted_agent_class(battle), seed=seed)


def batched_scripted(battle: str, entry: str = "scripted_actions"):
    """The battle's compiled batched heuristic when ``agents.<battle>_scripted`` defines one, else ``None``
    (callers then ask the agent game by game): ``scripted_actions(backend, states, out, masks=, rng=)``, the
    same decisions as its agent for every game in one call, or (``entry="scripted_ties"``)
    ``scripted_ties(backend, states, out, masks=)``, every game's tied-best actions."""
    module = importlib.import_module(scripted_agent_class(battle).__module__)
    return getattr(module, entry, None)
