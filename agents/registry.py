"""Agent specs -> agents: the one place the CLI, the evaluation harness and notebooks build agents.

``AGENT_SPECS`` (a spec is a string; ``battle`` is any name ``wargame_envs.registry`` resolves):

==============  =====================================================================================
spec            agent
==============  =====================================================================================
``random``      :class:`agents.base.RandomAgent`, uniform over the legal actions
``scripted``    the battle's heuristic: the one ``*ScriptedAgent`` class of ``agents.<battle>_scripted``
``mcts``        :class:`agents.mcts.MCTSAgent` with ``DEFAULT_MCTS_SIMULATIONS`` simulations a decision
``mcts:N``      the same with ``N`` simulations (N >= 1)
``human``       ``agents.human.HumanAgent`` (terminal play)
``ckpt:PATH``   ``agents.policy.PolicyAgent`` loading a trained policy checkpoint from ``PATH``
==============  =====================================================================================

Errors: an unknown or malformed spec raises ``ValueError`` naming the spec and the choices; a spec
whose agent module is missing (no scripted agent for the battle, no human or policy agent installed)
raises :class:`AgentUnavailableError` (also a ``ValueError``) that says what is missing. Modules are
imported only when their spec is asked for, so ``random`` never pulls in torch.
"""

from __future__ import annotations

import importlib
import inspect

AGENT_SPECS = ("random", "scripted", "mcts", "mcts:N", "human", "ckpt:PATH")
DEFAULT_MCTS_SIMULATIONS = 64


class AgentUnavailableError(ValueError):
    """The spec is well formed but the module that provides its agent is missing."""


def battle_short_name(battle: str) -> str:
    """``berestechko_v0`` / ``berestechko`` -> ``berestechko``; KeyError for an unknown battle."""
    from wargame_envs import registry

    return registry.resolve(battle).rsplit("_v", 1)[0]


def _bad_spec(spec: str, why: str = "") -> ValueError:
    return ValueError(f"bad agent spec {spec!r}{': ' + why if why else ''}; expected one of {', '.join(AGENT_SPECS)}")


def _import_optional(module_name: str, spec: str, what: str):
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name not in (module_name, module_name.rpartition(".")[0]):
            raise  # the module exists but one of its own imports is missing: show the real error
        raise AgentUnavailableError(f"agent {spec!r} is not available yet: {what} ({module_name}) is not installed") from None


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


def _construct(cls, *args, **optional):
    """``cls(*args, **kw)`` with the keyword arguments of ``optional`` that ``cls`` accepts."""
    params = inspect.signature(cls).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    return cls(*args, **{k: v for k, v in optional.items() if takes_any or k in params})


def make_agent(spec: str, battle: str, seed: int | None = None):
    """A fresh agent for ``battle`` from ``spec`` (see ``AGENT_SPECS``), seeded with ``seed``."""
    battle_short_name(battle)  # KeyError naming the battles for an unknown one
    if not isinstance(spec, str):
        raise _bad_spec(str(spec), "a spec is a string")
    kind, colon, arg = spec.partition(":")
    if kind == "random" and not colon:
        from agents.base import RandomAgent

        return RandomAgent(seed)
    if kind == "scripted" and not colon:
        return _construct(scripted_agent_class(battle), seed=seed)
    if kind == "mcts":
        from agents.mcts import MCTSAgent

        if not colon:
            return MCTSAgent(DEFAULT_MCTS_SIMULATIONS, seed=seed)
        try:
            n = int(arg)
        except ValueError:
            n = 0
        if n < 1:
            raise _bad_spec(spec, f"the simulation count {arg!r} is not a positive integer")
        return MCTSAgent(n, seed=seed)
    if kind == "human" and not colon:
        module = _import_optional("agents.human", spec, "the human (terminal) agent")
        return _construct(module.HumanAgent, seed=seed)
    if kind == "ckpt" and arg:
        module = _import_optional("agents.policy", spec, "loading trained-policy checkpoints")
        return _construct(module.PolicyAgent, arg, seed=seed, battle=battle)
    raise _bad_spec(spec)
