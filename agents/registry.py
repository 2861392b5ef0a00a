"""Agent specs -> agents: the one place the CLI, the evaluation harness and notebooks build agents.

``AGENT_SPECS`` (a spec is a string; ``battle`` is any name ``wargame_envs.registry`` resolves):

==============  =====================================================================================
spec            agent
==============  =====================================================================================
``random``      :class:`agents.base.RandomAgent`, uniform over the legal actions
``scripted``    the battle's heuristic: the one ``*ScriptedAgent`` class of ``agents.<battle>_scripted``
``mcts``        :class:`agents.mcts.MCTSAgent` with ``DEFAULT_MCTS_SIMULATIONS`` simulations a decision
``mcts:N``      the same with ``N`` simulations (1 <= N <= ``MAX_MCTS_SIMULATIONS``)
``human``       ``agents.human.HumanAgent`` (terminal play)
``ckpt:PATH``   ``agents.policy.PolicyAgent`` loading a trained policy checkpoint from ``PATH`` (``~`` expanded)
``pretrained``  :class:`agents.pretrained.PretrainedAgent`, the policy that ships for the battle
                (``agents/pretrained/``; weights only, no torch needed)
==============  =====================================================================================

Errors: an unknown or malformed spec raises ``ValueError`` naming the spec and the choices; a spec
whose agent module is missing (no scripted agent for the battle, no human or policy agent installed)
raises :class:`AgentUnavailableError` (also a ``ValueError``) that says what is missing (as does
``pretrained`` for a battle with no shipped policy); so does a
``ckpt:`` spec without the ``train`` extra (torch), naming ``pip install 'wargame-envs[train]'``. A
``ckpt:`` path that is not a file is a ``ValueError`` saying "checkpoint file not found" (from
:class:`agents.policy.PolicyAgent`). Modules are
imported only when their spec is asked for, so ``random`` never pulls in torch.
"""

from __future__ import annotations

import importlib

import numpy as np

from agents.scripted import AgentUnavailableError, battle_short_name, construct, make_scripted_agent, scripted_agent_class

__all__ = ["AGENT_SPECS", "DEFAULT_MCTS_SIMULATIONS", "INTERACTIVE_SPECS", "MAX_MCTS_SIMULATIONS",
           "AgentUnavailableError", "agent_seed", "battle_short_name", "check_unattended", "make_agent",
           "scripted_agent_class"]

AGENT_SPECS = ("random", "scripted", "mcts", "mcts:N", "human", "pretrained", "ckpt:PATH")
DEFAULT_MCTS_SIMULATIONS = 64
MAX_MCTS_SIMULATIONS = 1000  # mcts:N above this would take minutes a decision (the web server's cap too)
# top-level modules of the ``train`` extra (pyproject.toml) that policy checkpoints need
TRAIN_EXTRA_MODULES = ("torch", "stable_baselines3", "sb3_contrib")


def agent_seed(game_seed: int, player: int) -> int:
    """The seed of player ``player``'s agent in a game whose dice are seeded ``game_seed``: independent
    of the dice stream; ``wargames play`` and the evaluation harness both use it, so any evaluated game
    replays with ``wargames play <battle> --p1 A --p2 B --seed <game seed>``."""
    return int(np.random.SeedSequence([game_seed, player + 1]).generate_state(1)[0])


def _bad_spec(spec: str, why: str = "") -> ValueError:
    return ValueError(f"bad agent spec {spec!r}{': ' + why if why else ''}; expected one of {', '.join(AGENT_SPECS)}")


def _import_optional(module_name: str, spec: str, what: str):
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name not in (module_name, module_name.rpartition(".")[0]):
            raise  # the module exists but one of its own imports is missing: show the real error
        raise AgentUnavailableError(f"agent {spec!r} is not available yet: {what} ({module_name}) is not installed") from None


INTERACTIVE_SPECS = ("human",)  # agents a person plays through the terminal: never in unattended games


def check_unattended(spec: str, where: str) -> None:
    """A ``ValueError`` when ``spec`` is an agent a person plays (``human``): ``where`` (e.g. ``--agents``) plays
    its games unattended, with no terminal to ask; people play with ``wargames play``."""
    if isinstance(spec, str) and spec.partition(":")[0] in INTERACTIVE_SPECS:
        raise ValueError(f"{where} {spec}: a person cannot play in these games (they run unattended, with no "
                         f"terminal to ask); play against an agent with: wargames play BATTLE --p1 {spec} --p2 AGENT")


def make_agent(spec: str, battle: str, seed: int | None = None):
    """A fresh agent for ``battle`` from ``spec`` (see ``AGENT_SPECS``), seeded with ``seed`` (``None``: from the
    OS; else a non-negative integer, or a ``ValueError`` naming ``seed``)."""
    battle_short_name(battle)  # KeyError naming the battles for an unknown one
    if not isinstance(spec, str):
        raise _bad_spec(str(spec), "a spec is a string")
    if seed is not None:
        from wargame_envs.core.aec import seed_index

        seed = seed_index(seed)
    kind, colon, arg = spec.partition(":")
    if kind == "random" and not colon:
        from agents.base import RandomAgent

        return RandomAgent(seed)
    if kind == "scripted" and not colon:
        return make_scripted_agent(battle, seed)
    if kind == "mcts":
        from agents.mcts import MCTSAgent

        if not colon:
            return MCTSAgent(DEFAULT_MCTS_SIMULATIONS, seed=seed)
        try:
            n = int(arg)
        except ValueError:
            n = 0
        if not 1 <= n <= MAX_MCTS_SIMULATIONS:
            raise _bad_spec(spec, f"the simulation count {arg!r} is not an integer from 1 to {MAX_MCTS_SIMULATIONS}")
        return MCTSAgent(n, seed=seed)
    if kind == "human" and not colon:
        module = _import_optional("agents.human", spec, "the human (terminal) agent")
        return construct(module.HumanAgent, seed=seed)
    if kind == "pretrained" and not colon:
        from agents import pretrained

        short = battle_short_name(battle)
        if short not in pretrained.available():
            raise AgentUnavailableError(f"no pretrained policy ships for {short} (available: "
                                        f"{', '.join(pretrained.available()) or 'none'})")
        return pretrained.PretrainedAgent(short, seed=seed)
    if kind == "ckpt" and arg:
        module = _import_optional("agents.policy", spec, "loading trained-policy checkpoints")
        try:
            return construct(module.PolicyAgent, arg, seed=seed, battle=battle)
        except ModuleNotFoundError as exc:
            if (exc.name or "").partition(".")[0] not in TRAIN_EXTRA_MODULES:
                raise
            raise AgentUnavailableError(f"agent {spec!r} needs the optional training extra ({exc.name} is not "
                                        f"installed): pip install 'wargame-envs[train]'") from None
    raise _bad_spec(spec)
