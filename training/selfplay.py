"""The learner's single-agent view of a two-player battle, and the opponent pool it plays against.

:class:`SelfPlayEnv` is a Gymnasium env that drives the engine directly (no AEC adapter, so no
per-step dict building). The learner plays one side; every decision that is not the learner's —
the opponent's own throws and the mid-turn decisions the rules give the inactive player (retreat
before combat, defensive artillery, the Tatar decision...) — is taken inside ``step`` by the
opponent drawn for the episode. The learner therefore sees only its own decisions, and each
``step`` returns the reward of *the learner's* side for everything that happened between two of
its decisions, including the end of the game on the opponent's move. This is the fix for
PettingZoo #1147, where the tutorial wrapper returned the reward of the agent to move next (the
opponent) instead of the agent that acted: here the reward is always read as
``engine.returns(state)[learner_side]`` (and the learner's own score difference when shaped), and
the tests check it from both seats of the same game.

Design: one side-conditioned policy. The engine's observation is already from the observer's
point of view and carries a ``me`` one-hot, so one network can learn both sides; the learner side
alternates every episode (env ``i`` starts with side ``i % 2``), which halves the data per side but
shares everything the sides have in common (rules, geometry, combat odds) and lets the learner face
its own past selves from either seat.

Rewards: terminal ``+1/-1`` from ``engine.returns`` for the learner's side; with ``shaped=True``
each step also pays ``shaped_scale`` x the change of (own score - enemy score) over the step
(victory points as if the game ended now), and ``truncation_reward`` on the step a game is cut.
Truncation — ``engine.is_truncated`` or the env's ``max_steps`` guard on the decisions of the game —
is reported as ``truncated``, never as a loss.

:class:`OpponentPool` holds baselines (``random``, ``scripted``) and snapshots of the learner
(numpy copies of the actor weights, :class:`MlpActor`). At each reset the env draws an opponent
with prioritized fictitious self-play weights ``max(floor, (1 - p_win) ** power)``, where
``p_win`` is the learner's running (exponentially decayed) score against that opponent from the
side it plays this episode: opponents that still beat the learner are drawn more often.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from agents.hint import input_size, make_observer
from agents.mlp import MlpActor, SnapshotAgent  # snapshot policies (numpy actors)
from wargame_envs.core.aec import ILLEGAL_ACTION_MODES, action_index, check_options_arg, finite_real, seed_index
from wargame_envs.core.dice import Dice
from wargame_envs.core.engine import refuse_finished
from wargame_envs.core.errors import IllegalActionError
from wargame_envs.registry import make_engine, resolve

# --------------------------------------------------------------------------- baselines

def make_baseline_agent(spec: str, battle: str, seed: int | None = None):
    """A baseline opponent (``random``, ``scripted``, any ``agents.registry`` spec) for ``battle``;
    ``LookupError`` when the battle has no such agent (e.g. no scripted agent yet)."""
    from agents.registry import make_agent

    try:
        return make_agent(spec, battle, seed)
    except ValueError as e:  # AgentUnavailableError and malformed specs
        raise LookupError(str(e)) from None


# --------------------------------------------------------------------------- checks shared with the RLlib env

def check_settings(shaped_scale, truncation_reward, max_steps) -> tuple[float, float, int]:
    """The numeric settings of a self-play env (this module's and ``training.rllib_backend``'s): finite rewards
    and a positive decision cap, or a ``ValueError`` naming the setting and its value."""
    steps = action_index(max_steps)
    if steps is None or steps < 1:
        raise ValueError(f"max_steps = {max_steps!r}: expected a positive integer")
    return finite_real("shaped_scale", shaped_scale), finite_real("truncation_reward", truncation_reward), steps


def split_reset_options(options, pool: "OpponentPool | None") -> tuple[int | None, str | None, Any, dict[str, Any]]:
    """A self-play env's ``reset(options=...)`` as ``(learner_side, opponent name, dice, the engine's own
    options)``, checked before the env changes anything: a ``ValueError`` names the bad option, its value and
    what is allowed. ``pool`` None: both seats are learners, so there is no side or opponent to choose."""
    check_options_arg(options)
    rest = dict(options or {})
    side, name, dice = rest.pop("learner_side", None), rest.pop("opponent", None), rest.pop("dice", None)
    for key, value in (("learner_side", side), ("opponent", name)):
        if value is not None and pool is None:
            raise ValueError(f"options: field '{key}' = {value!r}: both seats are learners here (no opponent pool)")
    if side is not None:
        index = action_index(side)
        if index not in (0, 1):
            raise ValueError(f"options: field 'learner_side' = {side!r}: expected 0 or 1")
        side = index
    if name is not None and (not isinstance(name, str) or name not in pool.entries):
        raise ValueError(f"options: field 'opponent' = {name!r}: expected one of the pool's {sorted(pool.entries)}")
    if dice is not None and not callable(getattr(dice, "roll", None)):
        raise ValueError(f"options: field 'dice' = {dice!r}: expected a Dice (wargame_envs.core.dice)")
    return side, name, dice, rest


# --------------------------------------------------------------------------- opponent pool

@dataclass
class PoolEntry:
    """One opponent and the learner's decayed record against it, per learner side."""

    name: str
    agent: Any
    kind: str  # "baseline" | "snapshot" | "fixed"
    timesteps: int = 0  # learner timesteps when a snapshot was taken
    score: np.ndarray = field(default_factory=lambda: np.zeros(2))  # learner wins (+0.5 per draw)
    games: np.ndarray = field(default_factory=lambda: np.zeros(2))


class OpponentPool:
    """Baselines plus the last ``max_snapshots`` snapshots, drawn by PFSP weights.

    ``power`` shapes the priority ``(1 - p_win) ** power`` (0 = uniform, larger = focus on the
    hardest), ``floor`` keeps every opponent in play, ``decay`` forgets old results (the learner
    changes), ``prior`` pseudo-games at 50% keep a new opponent from looking beaten or unbeaten
    after one game. A pool is shared by all envs of a ``DummyVecEnv`` (one process).
    ``observer_factory(seed)`` builds the input of each snapshot's policy (:mod:`agents.hint`; default:
    the plain observation), as the learner's is built.
    """

    def __init__(self, max_snapshots: int = 8, power: float = 1.0, floor: float = 0.05, decay: float = 0.995,
                 prior: float = 2.0, deterministic_snapshots: bool = False,
                 observer_factory: Callable[[int], Any] | None = None):
        self.max_snapshots, self.power, self.floor, self.decay, self.prior = max_snapshots, power, floor, decay, prior
        self.deterministic_snapshots = deterministic_snapshots
        self.observer_factory = observer_factory
        self.entries: dict[str, PoolEntry] = {}

    def __len__(self) -> int:
        return len(self.entries)

    # -- contents
    def add(self, name: str, agent, kind: str = "fixed", timesteps: int = 0) -> PoolEntry:
        if name in self.entries:
            raise ValueError(f"opponent {name!r} already in the pool")
        entry = self.entries[name] = PoolEntry(name, agent, kind, timesteps)
        return entry

    def add_baselines(self, battle: str, specs: tuple[str, ...] = ("random", "scripted"), seed: int = 0) -> list[str]:
        """Adds the available baselines; returns the names of those that are not available."""
        missing = []
        for i, spec in enumerate(specs):
            try:
                self.add(spec, make_baseline_agent(spec, battle, seed + i), "baseline")
            except LookupError as e:
                missing.append(f"{spec}: {e}")
        return missing

    def add_snapshot(self, actor: MlpActor, timesteps: int, seed: int = 0) -> str:
        """Adds a frozen copy of the learner; drops the oldest snapshot beyond ``max_snapshots``."""
        name = f"snapshot@{timesteps}"
        if name in self.entries:
            return name
        self.add(name, self._snapshot_agent(actor, name, seed), "snapshot", timesteps)
        snaps = sorted((e for e in self.entries.values() if e.kind == "snapshot"), key=lambda e: e.timesteps)
        for old in snaps[:max(0, len(snaps) - self.max_snapshots)]:
            del self.entries[old.name]
        return name

    # -- drawing and statistics
    def win_rate(self, name: str, side: int) -> float:
        e = self.entries[name]
        return float((e.score[side] + 0.5 * self.prior) / (e.games[side] + self.prior))

    def weights(self, side: int) -> dict[str, float]:
        return {n: max(self.floor, (1.0 - self.win_rate(n, side)) ** self.power) for n in self.entries}

    def sample(self, side: int, rng: np.random.Generator) -> PoolEntry:
        if not self.entries:
            raise RuntimeError("the opponent pool is empty")
        w = self.weights(side)
        names = list(w)
        p = np.array([w[n] for n in names])
        return self.entries[names[int(rng.choice(len(names), p=p / p.sum()))]]

    def sample_pair(self, rng: np.random.Generator) -> tuple[int, PoolEntry]:
        """A (learner side, opponent) pair drawn by the PFSP weights of both sides: the learner plays the side it
        does worse on more often."""
        if not self.entries:
            raise RuntimeError("the opponent pool is empty")
        weights = [self.weights(side) for side in (0, 1)]
        pairs = [(side, name) for side in (0, 1) for name in weights[side]]
        p = np.array([weights[side][name] for side, name in pairs])
        side, name = pairs[int(rng.choice(len(pairs), p=p / p.sum()))]
        return side, self.entries[name]

    def record(self, name: str, side: int, learner_score: float) -> None:
        """The learner (playing ``side``) scored 1 (win), 0 (loss) or 0.5 (draw, truncation)."""
        e = self.entries.get(name)
        if e is None:  # dropped from the pool while the game was played
            return
        e.score[side] = e.score[side] * self.decay + learner_score
        e.games[side] = e.games[side] * self.decay + 1.0

    def summary(self) -> dict[str, dict[str, float]]:
        """name -> learner win rate per side and PFSP weight per side (for logs)."""
        return {n: {"win_rate_0": self.win_rate(n, 0), "win_rate_1": self.win_rate(n, 1),
                    "weight_0": self.weights(0)[n], "weight_1": self.weights(1)[n],
                    "games": float(e.games.sum())} for n, e in self.entries.items()}

    def _snapshot_agent(self, actor: MlpActor, name: str, seed: int) -> SnapshotAgent:
        observer = self.observer_factory(seed) if self.observer_factory is not None else None
        return SnapshotAgent(actor, name, self.deterministic_snapshots, seed, observer)

    # -- checkpoints: arrays and JSON-friendly stats only (never pickled objects)
    def snapshot_arrays(self) -> dict[str, np.ndarray]:
        out = {}
        for e in self.entries.values():
            if e.kind == "snapshot":
                for k, v in e.agent.actor.arrays().items():
                    out[f"{e.name}/{k}"] = v
        return out

    def stats(self) -> list[dict[str, Any]]:
        return [{"name": e.name, "kind": e.kind, "timesteps": e.timesteps, "score": e.score.tolist(),
                 "games": e.games.tolist()} for e in self.entries.values()]

    def restore(self, stats: list[dict[str, Any]], arrays: dict[str, Any], activation: str, seed: int = 0,
                prior: bool = False) -> None:
        """Re-adds the snapshots of a checkpoint and the learner's record against every opponent (``prior``: the
        policies were trained with a prior hint, ``agents.hint.has_prior``)."""
        for i, st in enumerate(stats):
            name = st["name"]
            if st["kind"] == "snapshot" and name not in self.entries:
                prefix = name + "/"
                actor = MlpActor.from_arrays({k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)},
                                             activation, prior)
                self.add(name, self._snapshot_agent(actor, name, seed + i), "snapshot",
                         int(st["timesteps"]))
            if name in self.entries:
                self.entries[name].score[:] = st["score"]
                self.entries[name].games[:] = st["games"]


def play_games(engine, seats, games: int, seed: int = 0, max_steps: int = 2000) -> np.ndarray:
    """Plays ``games`` games with ``seats[p]`` deciding for player ``p`` (mid-turn decisions
    included); returns the wins of each player (a truncated game counts for nobody)."""
    wins = np.zeros(len(seats), dtype=np.int64)
    for g in range(games):
        for i, agent in enumerate(seats):
            agent.reset(seed * 7919 + g * len(seats) + i)
        dice = Dice(seed * 1_000_003 + g)
        s = engine.new_state(None, dice)
        for _ in range(max_steps):
            if engine.is_terminal(s) or engine.is_truncated(s):
                break
            p = engine.current_player(s)
            engine.apply(s, int(seats[p].act(engine, s, p, engine.legal_mask(s))), dice)
            if len(s.log) > 400:
                del s.log[:-200]
        if engine.is_terminal(s):
            wins += engine.returns(s) > 0
    return wins


# --------------------------------------------------------------------------- the env

class SelfPlayEnv(gym.Env):
    """One learner side against an opponent drawn from ``pool`` at each reset (see module doc).

    ``learner_side``: ``"alternate"`` (``first_side``, then the other, ...; a ``reset(seed=s)`` plays side ``s % 2``, so
    that the same seed replays the same game) or a fixed ``0``/``1``.
    ``max_steps`` bounds the decisions of one game (both sides): past it the episode is truncated.
    ``reset(options=...)`` accepts ``learner_side`` (0/1), ``opponent`` (a pool name), ``dice`` (a
    :class:`Dice`, e.g. scripted) and the engine's own options (``position``, ``variant``...); a bad one is a
    ``ValueError`` naming it and the allowed values, and a reset that fails leaves the env as it was.

    ``info`` of the final step holds ``learner_side``, ``opponent``, ``outcome`` (1 win, 0 loss,
    0.5 draw or truncation) and ``decisions`` (both sides' decisions in the game).

    ``hint``: ``"scripted"`` appends to the learner's observation a one-hot of the action the battle's
    scripted agent would take (:mod:`agents.hint`; ``hint_seed`` seeds its tie-breaks); ``""`` (default):
    the plain observation.

    ``illegal_action``: ``"raise"`` (default) refuses an action outside the learner's mask with an
    :class:`IllegalActionError`; ``"lose"`` ends the episode instead (PettingZoo's convention, which
    the env checkers of SB3 and Gymnasium need, as they step with unmasked random actions): reward -1,
    ``terminated``, a warning, ``outcome`` 0 and ``info["illegal_action"] = True``.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, battle: str, pool: OpponentPool, shaped: bool = False, shaped_scale: float = 0.05,
                 learner_side: str | int = "alternate", first_side: int = 0, max_steps: int = 2000,
                 engine=None, engine_options: dict[str, Any] | None = None, render_mode: str | None = None,
                 illegal_action: str = "raise", hint: str = "", hint_seed: int | None = None,
                 truncation_reward: float = 0.0):
        super().__init__()
        if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action = {illegal_action!r}: expected one of {list(ILLEGAL_ACTION_MODES)}")
        self.illegal_action = illegal_action
        self.battle = resolve(battle)
        self.engine = engine if engine is not None else make_engine(self.battle)
        if len(self.engine.agents) != 2:
            raise ValueError(f"{self.battle} has {len(self.engine.agents)} agents; self-play needs 2")
        if learner_side not in ("alternate", 0, 1):
            raise ValueError(f"learner_side must be 'alternate', 0 or 1, got {learner_side!r}")
        self.shaped_scale, self.truncation_reward, self.max_steps = check_settings(shaped_scale, truncation_reward,
                                                                                   max_steps)
        if action_index(first_side) is None:
            raise ValueError(f"first_side = {first_side!r}: expected 0 or 1")
        hint_seed = None if hint_seed is None else seed_index(hint_seed, "hint_seed")
        self.pool, self.shaped = pool, bool(shaped)
        self.learner_side_mode, self._next_side = learner_side, action_index(first_side) % 2
        self.engine_options = dict(engine_options or {})
        self.render_mode = render_mode
        layout = self.engine.obs_layout
        self.observer = make_observer(hint, self.battle, hint_seed)
        size = input_size(layout.size, self.engine.num_actions, hint)
        self.observation_space = spaces.Box(layout.low, layout.high, (size,), np.float32)
        self.action_space = spaces.Discrete(self.engine.num_actions)
        self.state = None
        self.dice: Dice | None = None
        self.side = 0
        self.opponent: PoolEntry | None = None
        self._mask: np.ndarray | None = None
        self._decisions = 0
        self._done = True

    # -- gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new episode. The seed, the options and the new game are all checked and built first and assigned
        only then, so a reset that fails (a bad option, a refused position) leaves the env as it was."""
        if seed is not None:
            seed = seed_index(seed)
        side, name, dice, engine_options = split_reset_options(options, self.pool)
        rng = seeding.np_random(seed)[0] if seed is not None else self.np_random
        next_side = self._next_side
        if side is None and self.learner_side_mode != "alternate":
            side = self.learner_side_mode
        elif side is None:  # alternate; a seed fixes the side (its parity), so that reset(seed=s) replays a game
            side = seed % 2 if seed is not None else next_side
            next_side = 1 - side
        opponent = self.pool.entries[name] if name is not None else self.pool.sample(side, rng)
        dice = dice if dice is not None else Dice(int(rng.integers(2**63 - 1)))
        # reset(seed=...) replays the same episode: the opponent's own draws too
        opponent_seed = int(rng.integers(2**63 - 1)) if seed is not None else None
        state = self.engine.new_state({**self.engine_options, **engine_options}, dice)
        refuse_finished(self.engine, state)
        # Nothing above changed the env: the new episode replaces the old one only now.
        if seed is not None:
            self._np_random, self._np_random_seed = rng, seed
        if opponent_seed is not None:
            opponent.agent.reset(opponent_seed)
        self.side, self.opponent, self.dice, self.state, self._next_side = int(side), opponent, dice, state, next_side
        self._decisions = 0
        self._done = False
        self._score_diff = self._own_score_diff()
        self._play_opponent()
        if self._done:
            raise RuntimeError(f"the game ended before the learner ({self.engine.agents[self.side]}) had a decision")
        return self._obs(), {"learner_side": self.side, "opponent": self.opponent.name}

    def step(self, action):
        if self._done:
            raise RuntimeError("step() after the end of the episode; call reset()")
        a = action_index(action)
        if a is None or not (0 <= a < self.action_space.n and self._mask[a]):
            exc = IllegalActionError(
                f"illegal action {action!r} for the learner ({self.engine.agents[self.side]}) at decision "
                f"'{self.engine.decision_name(self.state)}'; legal: {np.flatnonzero(self._mask).tolist()}")
            if self.illegal_action == "raise":
                raise exc
            return self._lose_by_illegal_action(exc)
        self.engine.apply(self.state, a, self.dice)
        self._decisions += 1
        self._trim_log()
        self._play_opponent()
        return self._finish_step()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (for MaskablePPO); all ones once the episode is over (no
        decision is pending and ``step`` refuses any action then)."""
        if self._done or self._mask is None:
            return np.ones(self.action_space.n, dtype=bool)
        return self._mask.copy()

    def render(self):
        """The learner's own view (what its side may see), as text."""
        return self.engine.render_ansi(self.state, self.side) if self.render_mode == "ansi" else None

    # -- internals
    def _play_opponent(self) -> None:
        """Opponent decisions until the learner must decide or the game is over or cut short."""
        engine, s = self.engine, self.state
        while True:
            if engine.is_terminal(s) or engine.is_truncated(s) or self._decisions >= self.max_steps:
                self._done, self._mask = True, None
                return
            player = engine.current_player(s)
            mask = engine.legal_mask(s)
            if player == self.side:
                self._mask = mask
                return
            engine.apply(s, int(self.opponent.agent.act(engine, s, player, mask)), self.dice)
            self._decisions += 1
            self._trim_log()

    def _finish_step(self):
        engine, s = self.engine, self.state
        reward = 0.0
        if self.shaped:
            diff = self._own_score_diff()
            reward += self.shaped_scale * (diff - self._score_diff)
            self._score_diff = diff
        terminated = engine.is_terminal(s)
        truncated = self._done and not terminated
        info: dict[str, Any] = {}
        if terminated:
            ret = float(engine.returns(s)[self.side])
            reward += ret
            outcome = 1.0 if ret > 0 else 0.0 if ret < 0 else 0.5
        elif truncated:
            reward += self.truncation_reward
            outcome = 0.5
        if self._done:
            self.pool.record(self.opponent.name, self.side, outcome)
            info = {"learner_side": self.side, "opponent": self.opponent.name, "outcome": outcome,
                    "decisions": self._decisions}
        return self._obs(), float(reward), terminated, truncated, info

    def _lose_by_illegal_action(self, exc: IllegalActionError):
        """``illegal_action="lose"``: the episode ends with -1 for the learner (the state is unchanged)."""
        warnings.warn(f"{exc}; with illegal_action='lose' the episode ends and the learner loses", stacklevel=3)
        self._done, self._mask = True, None
        self.pool.record(self.opponent.name, self.side, 0.0)
        info = {"learner_side": self.side, "opponent": self.opponent.name, "outcome": 0.0,
                "decisions": self._decisions, "illegal_action": True}
        return self._obs(), -1.0, True, False, info

    def _own_score_diff(self) -> float:
        sc = self.engine.scores(self.state)
        return float(sc[self.side] - sc[1 - self.side])

    def _obs(self) -> np.ndarray:
        mask = self._mask if self._mask is not None else np.zeros(self.engine.num_actions, dtype=bool)
        return self.observer.observe(self.engine, self.state, self.side, mask)

    def _trim_log(self) -> None:
        log = self.state.log
        if len(log) > 400:  # the event log is for humans; keep it bounded in long runs
            del log[:-200]
