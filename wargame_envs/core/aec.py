"""The one PettingZoo AEC adapter every battle uses.

It wraps any :class:`~wargame_envs.core.engine.Engine`: each AEC step is one atomic decision of
the agent the engine names (the inactive player gets ``agent_selection`` for the choices the rules
give him mid-turn). Observations are ``{"observation": float32 vector, "action_mask": int8}``; only the
agent to move has a non-zero mask. Rewards are terminal ``+1/-1`` from ``Engine.returns``; with
``reward="shaped"`` each step also pays the change of (own score - enemy score) times
``shaped_scale`` (scores are victory points where the battle has them). Games are recorded
(:attr:`record`) and replay bit-exactly.

Infos: every agent has the same keys at all times, with numeric values only, so that any RL client
can stack them (TorchRL builds tensors from them):

=================  ======================================================================================
``decision_id``    ``int``: the pending decision, an index into ``engine.decision_names``
                   (``env.unwrapped.decision_name()`` gives its name)
``to_move``        ``int``: 1 for the agent that must decide now, else 0 (0 for both once the game is over)
``returns``        ``float``: the agent's terminal return (+1 win, -1 loss, 0 draw); 0.0 until the game ends
=================  ======================================================================================

Illegal actions (``illegal_action`` constructor option): ``"raise"`` (default) refuses them with an
:class:`IllegalActionError` that lists the legal ones and leaves the game as it was; ``"lose"`` is
PettingZoo's convention for classic games (``TerminateIllegalWrapper``): the game ends at once, the
agent that moved illegally gets -1 and the other +1, a warning says so, and the game record notes it
(``record.illegal_action``), as does ``summary()`` (``over``, ``winner``, ``illegal_action``). An action
is anything that is an integer index (a Python or numpy integer, a one-element array, an integral float);
a bool, a string, ``inf``, ``nan`` or a value out of range is illegal like a masked one.

Player views: ``render()`` is the omniscient view (labelled so); ``render_for(agent)`` shows only what
that agent may see (Kulikovo hides the unplaced Ambush Regiment and the real Dmitri from the Mongol).
``summary()`` is a read-only JSON-friendly dict of the whole (omniscient) state.

A failed ``reset()`` (bad options or position) raises and leaves the env exactly as it was: the game
in progress, its dice, record and agents go on untouched. A finished game given as the start position is
refused (``core.engine.refuse_finished``: every battle alike). An agent that is not one of the battle's is a
``ValueError`` that lists them; a call that needs a game before ``reset()`` is a ``RuntimeError`` saying so, and
so is ``last()`` or a raw ``step()`` once the game is over and every agent has taken its last step.
"""

from __future__ import annotations

import math
import numbers
import secrets
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from .dice import Dice
from .engine import action_index, refuse_finished
from .errors import IllegalActionError, RecordError, ScenarioError
from .records import GameRecord

REWARD_MODES = ("terminal", "shaped")
ILLEGAL_ACTION_MODES = ("raise", "lose")
INFO_KEYS = ("decision_id", "to_move", "returns")


def seed_index(seed, name: str = "seed") -> int:
    """``seed`` as a non-negative integer (read as :func:`action_index` reads an action); a ``ValueError``
    naming ``name`` (the argument or option that holds it) otherwise."""
    index = action_index(seed)
    if index is None or index < 0:
        raise ValueError(f"{name} = {seed!r}: expected a non-negative integer")
    return index


def finite_real(name: str, value) -> float:
    """``value`` as a float when it is a finite real number (not a bool), else a ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name} = {value!r}: expected a finite real number")
    return float(value)


def check_options_arg(options) -> None:
    """Refuse ``options`` that are neither ``None`` nor a mapping of option name -> value."""
    if options is not None and not isinstance(options, Mapping):
        raise ScenarioError(f"options: expected a dict of option name -> value, got {type(options).__name__}")


class WargameAECEnv(AECEnv):
    """Subclasses set ``metadata`` (with ``name``) and ``engine_class``; nothing else."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array", "human"], "is_parallelizable": False,
                                "render_fps": 2}
    engine_class: type

    def __init__(self, render_mode: str | None = None, reward: str = "terminal", shaped_scale: float = 0.05,
                 options: dict[str, Any] | None = None, engine=None, illegal_action: str = "raise"):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} not in {self.metadata['render_modes']}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward {reward!r} not in {REWARD_MODES}")
        if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action = {illegal_action!r}: expected one of {list(ILLEGAL_ACTION_MODES)}")
        self.render_mode = render_mode
        self._seed_rng: np.random.Generator | None = None  # started by reset(seed=...), for seedless resets
        self.illegal_action = illegal_action
        self.shaped_scale = finite_real("shaped_scale", shaped_scale)
        check_options_arg(options)
        self.reward_mode = reward
        self.default_options = dict(options or {})
        self.engine = engine if engine is not None else self.engine_class()
        self.possible_agents = list(self.engine.agents)
        self._agent_index = {a: i for i, a in enumerate(self.possible_agents)}
        self.agents = self.possible_agents[:]
        n_obs = self.engine.obs_layout.size
        layout = self.engine.obs_layout
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(layout.low, layout.high, (n_obs,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.engine.num_actions,), np.int8),
            })
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.engine.num_actions) for a in self.possible_agents}
        self.state_ = None
        self._running_infos: dict[tuple[int, str], dict[str, dict[str, Any]]] = {}
        self.dice: Dice | None = None
        self.record: GameRecord | None = None
        self._viewer = None

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent):
        return self.observation_spaces[self._check_agent(agent)]

    def action_space(self, agent):
        return self.action_spaces[self._check_agent(agent)]

    def _check_agent(self, agent) -> str:
        """``agent`` when it is one of this battle's agents, else a ``ValueError`` that lists them."""
        if not isinstance(agent, str) or agent not in self._agent_index:
            raise ValueError(f"agent = {agent!r}: expected one of {self.possible_agents}")
        return agent

    # ------------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new game. Everything is built first and assigned only once it all succeeded, so a reset
        that fails (bad seed, options or position) leaves the env exactly as it was. Without a ``seed``
        the game's seed comes from the generator the last ``reset(seed=...)`` started (Gymnasium's
        convention: a seeded env stays reproducible), or from the OS before any seed was given."""
        given = seed is not None
        if not given:
            seed = int(self._seed_rng.integers(2**63)) if self._seed_rng is not None else secrets.randbits(63)
        index = seed_index(seed)
        check_options_arg(options)
        opts = {**self.default_options, **(options or {})}
        dice = Dice(index)
        state = self.engine.new_state(opts, dice)
        refuse_finished(self.engine, state)  # a finished game given as the start position: nothing to play
        scores = self.engine.scores(state)
        # Nothing below can fail: the new game replaces the old one only now.
        if given:
            self._seed_rng = np.random.default_rng(index)
        self.dice, self.state_, self._scores = dice, state, scores
        self.record = GameRecord(env=self.engine.name, seed=index, options=opts)
        self.agents = self.possible_agents[:]
        self.rewards = self._no_rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._returns = np.zeros(len(self.possible_agents), dtype=np.float64)
        self._mask = None
        self.agent_selection = self.possible_agents[0]
        self._select_next()
        if self.render_mode == "human":
            self.render()

    # -------------------------------------------------------------------- step
    def step(self, action):
        if self.state_ is None or not self.agents:  # one test on the hot path; says which it is
            self._require_reset("step")
            raise RuntimeError("step(): the game is over; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        try:
            a = self._check_action(action)
        except IllegalActionError as exc:
            if self.illegal_action == "raise":
                raise
            self._lose_by_illegal_action(agent, action, exc)
            return
        self._cumulative_rewards[agent] = 0.0
        self.engine.apply(self.state_, a, self.dice)
        self.record.actions.append(a)
        if self.state_.log_entries() > 400:  # keep the event log bounded in long games
            self.state_.trim_log(200)
        self._after_transition()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, action) -> int:
        a = action_index(action)
        if a is None:
            raise IllegalActionError(f"action must be an integer index, got {action!r}")
        mask = self._current_mask()
        if not 0 <= a < self.engine.num_actions or not mask[a]:
            legal = np.flatnonzero(mask)
            shown = ", ".join(f"{i} ({self.engine.action_to_str(self.state_, int(i))})" for i in legal[:8])
            more = f" and {len(legal) - 8} more" if len(legal) > 8 else ""
            raise IllegalActionError(
                f"illegal action {a} for {self.agent_selection} at decision "
                f"'{self.engine.decision_name(self.state_)}'; legal: {shown}{more}"
            )
        return a

    def _after_transition(self) -> None:
        engine, s = self.engine, self.state_
        self._mask = None
        terminal, truncated, player, decision = engine.progress(s)
        paid = False  # any non-zero reward this step (terminal rewards pay only at the end)
        # a step that pays nothing shares one all-zero dict (as PettingZoo's classic envs keep theirs)
        self.rewards = dict.fromkeys(self.agents, 0.0) if terminal or self.reward_mode == "shaped" else self._no_rewards
        if self.reward_mode == "shaped":
            scores = engine.scores(s)
            delta = (scores - self._scores) * self.shaped_scale
            self._scores = scores
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] += float(delta[i] - delta[1 - i]) if len(scores) == 2 else float(delta[i])
            paid = True
        if terminal:
            ret = engine.returns(s)
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] += float(ret[i])
            self._returns = np.asarray(ret, dtype=np.float64)
            self.terminations = {a: True for a in self.agents}
            self.record.returns = [float(x) for x in ret]
            self.record.final_digest = s.digest()
            self._set_infos(decision)
            paid = True
        elif truncated:
            self.truncations = {a: True for a in self.agents}
            self.record.final_digest = s.digest()
            self._set_infos(decision)
        else:
            self.agent_selection = self.possible_agents[player]
            self._set_infos(decision, mover=self.agent_selection)
        if paid:
            self._accumulate_rewards()

    def _lose_by_illegal_action(self, agent: str, action, exc: IllegalActionError) -> None:
        """``illegal_action="lose"``: the game ends, ``agent`` gets -1 and the other +1 (PettingZoo's
        ``TerminateIllegalWrapper`` convention); the record notes the illegal action."""
        warnings.warn(f"{exc}; with illegal_action='lose' the game ends and {agent} loses", stacklevel=3)
        mover = self._agent_index[agent]
        ret = np.ones(len(self.possible_agents), dtype=np.float64)
        ret[mover] = -1.0
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(ret[i]) for i, a in enumerate(self.possible_agents)}
        self._returns = ret
        self._mask = None
        self.terminations = {a: True for a in self.agents}
        self.record.returns = [float(x) for x in ret]
        self.record.final_digest = self.state_.digest()
        self.record.illegal_action = {"agent": agent, "action": repr(action),
                                      "decision": self.engine.decision_name(self.state_)}
        self._set_infos()
        self._accumulate_rewards()

    def _select_next(self) -> None:
        self.agent_selection = self.possible_agents[self.engine.current_player(self.state_)]
        self._set_infos(int(self.engine.decision_id(self.state_)), mover=self.agent_selection)

    def _set_infos(self, decision: int | None = None, mover: str | None = None) -> None:
        """The same numeric keys for every agent (see the module docstring); ``mover``: the agent to move
        (None once the game is over). While the game goes on the infos depend only on ``(decision, mover)``
        (returns are 0), so those dicts are built once per env and shared, as PettingZoo's classic envs
        keep theirs."""
        if decision is None:
            decision = int(self.engine.decision_id(self.state_))
        if mover is not None:
            infos = self._running_infos.get((decision, mover))
            if infos is None:
                infos = self._running_infos[(decision, mover)] = {
                    a: {"decision_id": decision, "to_move": int(a == mover), "returns": 0.0}
                    for a in self.possible_agents}
            self.infos = infos
            return
        returns = self._returns.tolist()
        self.infos = {a: {"decision_id": decision, "to_move": int(a == mover), "returns": returns[i]}
                      for i, a in enumerate(self.possible_agents)}

    # ----------------------------------------------------------------- observe
    def _current_mask(self) -> np.ndarray:
        """The pending decision's mask as int8, computed once per decision."""
        if self._mask is None:
            self._mask = np.asarray(self.engine.legal_mask(self.state_), dtype=bool).view(np.int8)
        return self._mask

    def observe(self, agent):
        p = self._agent_index.get(agent) if isinstance(agent, str) else None
        if p is None or self.state_ is None:  # one test on the hot path; says which it is
            self._check_agent(agent)
            self._require_reset("observe")
        obs = self.engine.observe(self.state_, p)
        if agent == self.agent_selection and agent in self.agents and not (self.terminations[agent]
                                                                          or self.truncations[agent]):
            mask = self._current_mask().copy()
        else:
            mask = np.zeros(self.engine.num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    # ------------------------------------------------------------ convenience
    @property
    def game_state(self):
        """The engine state (numpy arrays) of the current game."""
        return self.state_

    def last(self, observe: bool = True):
        """PettingZoo's ``last()``; once the game is over and every agent has taken its dead step (``agents``
        is empty), a ``RuntimeError`` says so instead of a ``KeyError``."""
        self._require_reset("last")
        if not self.agents:
            raise RuntimeError("last(): the game is over; call reset()")
        return super().last(observe)

    def action_to_str(self, action: int) -> str:
        self._require_reset("action_to_str")
        return self.engine.action_to_str(self.state_, self.engine.check_action(action))

    def legal_actions(self) -> list[int]:
        self._require_reset("legal_actions")
        if not self.agents or self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            return []
        return np.flatnonzero(self._current_mask()).tolist()

    def position(self) -> dict[str, Any]:
        """The current position, in the format ``reset(options={"position": ...})`` accepts."""
        self._require_reset("position")
        return self.engine.to_position(self.state_)

    def decision_name(self) -> str:
        """The name of the pending decision (``infos[agent]["decision_id"]`` holds its number)."""
        self._require_reset("decision_name")
        return self.engine.decision_name(self.state_)

    def summary(self) -> dict[str, Any]:
        """A read-only, JSON-friendly dict of the whole (omniscient) state: the battle's
        ``Engine.summary`` (progress, scores, every unit's hex and status...). After a game ended by an
        illegal action (``illegal_action="lose"``) it says so: ``over`` True, ``to_move`` None, ``winner``
        the other agent and ``illegal_action`` as the record notes it ({"agent", "action", "decision"});
        the ``reason`` of a battle that has one is "illegal_action" (the key is there only then)."""
        self._require_reset("summary")
        out = self.engine.summary(self.state_)
        illegal = self.record.illegal_action
        if illegal is not None:
            others = [a for a in self.possible_agents if a != illegal["agent"]]
            out.update(over=True, to_move=None, winner=others[0] if len(others) == 1 else None,
                       illegal_action=dict(illegal))
            if "reason" in out:
                out["reason"] = "illegal_action"
        return out

    def _require_reset(self, what: str) -> None:
        if self.state_ is None:
            raise RuntimeError(f"call reset() before {what}()")

    def save_record(self, path) -> None:
        self._require_reset("save_record")
        self.record.save(path)

    # ------------------------------------------------------------------ render
    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        self._require_reset("render")
        if self.render_mode == "ansi":
            return self.engine.render_ansi(self.state_)
        from .render import render_rgb, show_human

        image = render_rgb(self.engine.scene(self.state_))
        if self.render_mode == "rgb_array":
            return image
        self._viewer = show_human(image, self.engine.render_ansi(self.state_), self._viewer)
        return None

    def render_for(self, agent: str, mode: str | None = None):
        """The position as ``agent`` may see it: only what that player may see (the omniscient view
        is :meth:`render`). ``mode``: ``"ansi"`` (text) or ``"rgb_array"`` (image); default the env's
        ``render_mode`` when it is one of these, else ``"ansi"``."""
        self._check_agent(agent)
        if mode is None:
            mode = self.render_mode if self.render_mode in ("ansi", "rgb_array") else "ansi"
        if mode not in ("ansi", "rgb_array"):
            raise ValueError(f"mode = {mode!r}: expected 'ansi' or 'rgb_array'")
        self._require_reset("render_for")
        viewer = self._agent_index[agent]
        if mode == "ansi":
            return self.engine.render_ansi(self.state_, viewer)
        from .render import render_rgb

        return render_rgb(self.engine.scene(self.state_, viewer))

    def close(self):
        if self._viewer is not None:
            from .render import close_human

            close_human(self._viewer)
            self._viewer = None


def rewind(env, decisions: int, digest: str | None = None) -> None:
    """Take ``env`` (an env of this module, wrapped or not) back to just before its decision number
    ``decisions + 1`` (undo): its record's seed and options and first ``decisions`` actions replayed
    through ``env`` itself, bit-exact, so the dice stream is where it was then and the record keeps
    only those actions (and its players). ``digest``, when given, is the ``state.digest()`` the
    replayed position must have; a :class:`RecordError` says when it has not."""
    raw = env.unwrapped
    record = raw.record
    if record is None:
        raise RecordError("cannot rewind: call reset() first")
    if not 0 <= decisions <= len(record.actions):
        raise RecordError(f"cannot rewind to decision #{decisions + 1}: the game has {len(record.actions)} decisions")
    players, actions = dict(record.players), list(record.actions[:decisions])
    env.reset(seed=record.seed, options=record.options)
    for action in actions:
        env.step(action)
    raw.record.players = players
    if digest is not None and raw.state_.digest() != digest:
        raise RecordError("undo failed: replaying the record did not give back the position of that decision")


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper with direct paths for the calls of every AEC loop.

    Through PettingZoo's wrapper each ``last()``, ``step()`` and ``agent_iter`` step reads the
    adapter's attributes through two ``__getattr__`` hops. Here ``last`` and ``step`` run on the
    wrapped env after the same checks, and ``agents`` / ``agent_selection`` are read directly once
    ``reset`` has been called (before it they raise the same ``AttributeError``).
    """

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    @property
    def agents(self):
        return self.env.agents if self._has_reset else self.__getattr__("agents")

    @property
    def agent_selection(self):
        return self.env.agent_selection if self._has_reset else self.__getattr__("agent_selection")


def make_env_functions(raw_env_class: type[WargameAECEnv]):
    """``(raw_env, env)`` constructors for a battle module, PettingZoo-classic style.

    ``env(**kw)`` wraps ``raw_env`` in an order-enforcing wrapper (illegal actions are refused by the
    adapter itself with an :class:`IllegalActionError` that lists the legal ones).
    """
    def raw_env(**kwargs) -> WargameAECEnv:
        return raw_env_class(**kwargs)

    def env(**kwargs):
        return OrderEnforcingWrapper(raw_env_class(**kwargs))

    raw_env.__doc__ = raw_env_class.__doc__
    env.__doc__ = raw_env_class.__doc__
    return raw_env, env
