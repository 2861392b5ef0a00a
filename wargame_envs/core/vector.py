"""Batched games: N games of one battle stepped by one compiled call (Pgx-style, numpy).

``wargame_envs.vector.make(name, num_envs, seed=None, **options)`` returns a :class:`VectorGame`.
``reset()`` and ``step(actions)`` return a :class:`Step` whose fields are (N, ...) arrays:

=====================  ===========================================================================
``observation``        (N, obs_size): the view of ``current_player`` (float32, or the battle's compact
                       dtype where one is chosen)
``action_mask``        (N, num_actions) bool: the legal actions of the pending decision
``current_player``     (N,) int64: the seat that must decide (for a finished game, the seat that moved last)
``rewards``            (N, num_players) float32: paid by this step: the terminal returns (+1 / -1 / 0)
                       on the step that ends a game, else 0
``terminated``         (N,) bool: the game ended by the rules on this step
``truncated``          (N,) bool: the game was cut short by a length limit on this step
=====================  ===========================================================================

**Auto-reset.** A game that finished on step *t* keeps its final observation, mask (all False) and
returns in the arrays returned by step *t*. On step *t + 1* it restarts, whatever action is passed for it:
that row then shows the new game's first decision, with zero rewards. Its seed is in :attr:`seeds`.

**Skipping.** An action of ``-1`` leaves that game untouched for this step (its row keeps its values, with
zero rewards), which lets a self-play loop step only the games where one seat is to move.

**Seeds.** Game seeds are drawn from ``seed``; ``vec.seeds[i]`` is the seed of game ``i``'s current game,
and ``wargame_envs.make(name).reset(seed=vec.seeds[i], options=...)`` plays the very same game for the
same actions (tests/test_vector.py checks it, observations, masks, rewards and records).

The arrays returned are the batch's own buffers, overwritten by the next call: copy what you keep.
Rewards are terminal only; :meth:`VectorGame.scores` gives every game's running score (victory points), from
which a trainer builds the AEC env's ``reward="shaped"`` (``training.batched`` does).

Each battle provides a backend (``wargame_envs/<battle>/batch.py``, a :class:`BattleBackend`) with:

- ``engine``: the battle's :class:`~wargame_envs.core.engine.Engine` (the AEC env runs on the same kernels);
- ``num_players``, ``num_actions``, ``obs_size``, ``obs_dtype``, ``state_size``;
- ``template(options) -> int32 (state_size,)``: a new game before its opening dice (positions, checked);
- ``step_batch(states, actions, template, dice, obs, mask, player, rewards, terminated, truncated)``: one
  compiled call that, for every game ``i``: skips ``actions[i] == -1`` (row untouched, rewards zeroed);
  restarts from ``template`` and rolls the opening chance for ``-2``; only rewrites the row's outputs for
  ``-3`` (a game just loaded from a position); applies a legal action otherwise; then writes the row's
  outputs (``dice`` is a :class:`~wargame_envs.core.chance.BatchDice`: pass ``dice.dv``, ``dice.ds``);
- ``observe_batch(states, players, obs)``: the observations of the given seats;
- optionally ``scores_batch(states, out)``: every game's ``engine.scores`` in one call (else asked game by game);
- ``to_position(buf)`` / ``from_position(position, dice) -> buf``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .aec import action_index, seed_index
from .chance import MIN_LEFT, BatchDice
from .engine import refuse_finished
from .errors import IllegalActionError, ScenarioError
from .jit import kernel

SKIP, RESTART, REFRESH = -1, -2, -3
INT64_MAX = np.iinfo(np.int64).max


@kernel
def pick_legal(mask, u, out):
    """For each row, the legal action of rank ``floor(u[i] * number legal)`` (a uniformly random legal
    action from one uniform per row); -1 where nothing is legal."""
    for i in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            n += mask[i, a]
        out[i] = -1
        if n:
            k = int(u[i] * n)
            for a in range(mask.shape[1]):
                if mask[i, a]:
                    if k == 0:
                        out[i] = a
                        break
                    k -= 1
    return out


@dataclass
class Step:
    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


class VectorGame:
    """``num_envs`` games of one battle (see the module docstring)."""

    def __init__(self, backend, num_envs: int, seed: int | None = None, options: dict[str, Any] | None = None):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs = {num_envs!r}: expected a positive integer")
        seed_rng = _seed_rng(seed)
        self.backend = backend
        self.num_envs = n = int(num_envs)
        self.num_players = backend.num_players
        self.num_actions = backend.num_actions
        self.obs_size = backend.obs_size
        self.options = dict(options or {})
        self._template = backend.template(self.options)  # validates the options once, before anything is built
        if self.options.get("position") is not None:  # a finished game is no start position (core.engine)
            from .dice import Dice

            refuse_finished(backend.engine, backend.engine.new_state(self.options, Dice(0)))
        self.states = np.zeros((n, backend.state_size), dtype=np.int32)
        self.dice = BatchDice(n)
        self.seeds = np.zeros(n, dtype=np.uint64)
        self._obs = np.zeros((n, backend.obs_size), dtype=backend.obs_dtype)
        self._mask = np.zeros((n, backend.num_actions), dtype=bool)
        self._player = np.zeros(n, dtype=np.int64)
        self._rewards = np.zeros((n, backend.num_players), dtype=np.float32)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._step = Step(self._obs, self._mask, self._player, self._rewards, self._terminated, self._truncated)
        self._seed_rng = seed_rng
        self._started = False

    # ------------------------------------------------------------------ play
    def reset(self, seed: int | None = None) -> Step:
        """Every game restarts (with seeds drawn from ``seed`` when given)."""
        if seed is not None:
            self._seed_rng = _seed_rng(seed)
        self._started = True
        return self._run(np.full(self.num_envs, RESTART, dtype=np.int64), np.arange(self.num_envs))

    def step(self, actions) -> Step:
        """One decision in every game (``-1``: skip that game). Illegal actions raise
        :class:`IllegalActionError` naming the games, and nothing is stepped."""
        self._require_reset("step")
        given = np.asarray(actions)
        if given.shape != (self.num_envs,) or not np.issubdtype(given.dtype, np.integer):
            raise IllegalActionError(
                f"actions: expected an integer array of shape ({self.num_envs},), got {given.dtype} {given.shape}")
        done = self._terminated | self._truncated
        if given.dtype.kind == "u":  # checked before the int64 cast, which would wrap these to negative numbers
            _refuse(given, np.flatnonzero(~done & (given > INT64_MAX)))
        a = given.astype(np.int64, copy=True)
        play = ~done & (a != SKIP)
        idx = np.flatnonzero(play)
        bad = idx[(a[idx] < 0) | (a[idx] >= self.num_actions)]
        if bad.size == 0:
            bad = idx[~self._mask[idx, a[idx]]]
        _refuse(given, bad)
        a[done] = RESTART
        return self._run(a, np.flatnonzero(done))

    def _run(self, actions: np.ndarray, restarting: np.ndarray) -> Step:
        for i in restarting:
            seed = int(self._seed_rng.integers(0, 2**63 - 1))
            self.seeds[i] = seed
            self.dice.start_game(int(i), seed)
        self.dice.refill()
        self.backend.step_batch(self.states, actions, self._template, self.dice, self._obs, self._mask,
                                self._player, self._rewards, self._terminated, self._truncated)
        self.dice.check()
        return self._step

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action in every game (0 for a finished one, which restarts anyway)."""
        out = pick_legal(self._mask, rng.random(self.num_envs), np.empty(self.num_envs, dtype=np.int64))
        out[out < 0] = 0
        return out

    def observe(self, player: int) -> np.ndarray:
        """(N, obs_size): every game from seat ``player``'s view (a new array)."""
        p = action_index(player)
        if p is None or not 0 <= p < self.num_players:
            raise ValueError(f"player = {player!r}: expected 0..{self.num_players - 1}")
        self._require_reset("observe")
        out = np.zeros_like(self._obs)
        self.backend.observe_batch(self.states, np.full(self.num_envs, p, dtype=np.int64), out)
        return out

    def scores(self, out: np.ndarray | None = None) -> np.ndarray:
        """(N, num_players) float32: every game's running score (``engine.scores``: victory points, the final
        ones for a game that has just ended), into ``out`` when given (a writeable C-contiguous float32 array
        of that shape)."""
        self._require_reset("scores")
        if out is None:
            out = np.zeros((self.num_envs, self.num_players), dtype=np.float32)
        else:
            self._check_out(out)  # the compiled kernel writes into it without bounds checks
        batch = getattr(self.backend, "scores_batch", None)
        if batch is not None:
            batch(self.states, out)
        else:
            engine = self.backend.engine
            for i in range(self.num_envs):
                out[i] = engine.scores(self.backend.state_view(self.states[i]))
        return out

    def _check_out(self, out) -> None:
        want = (self.num_envs, self.num_players)
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out: expected a numpy array of shape {want}, got {type(out).__name__}")
        wrong = [what for what, bad in ((f"shape {out.shape}", out.shape != want),
                                        (f"dtype {out.dtype}", out.dtype != np.float32),
                                        ("not C-contiguous", not out.flags.c_contiguous),
                                        ("read-only", not out.flags.writeable)) if bad]
        if wrong:
            raise ValueError(f"out: {', '.join(wrong)}; expected a writeable C-contiguous float32 array "
                             f"of shape {want}")

    def _require_reset(self, what: str) -> None:
        if not self._started:
            raise RuntimeError(f"call reset() before {what}()")

    # ------------------------------------------------------------- positions
    def to_positions(self) -> list[dict[str, Any]]:
        """Each game's position (the format ``from_positions`` and the AEC env's ``position`` option take)."""
        self._require_reset("to_positions")
        return [self.backend.to_position(self.states[i]) for i in range(self.num_envs)]

    def from_positions(self, positions: list[dict[str, Any]], seed: int | None = None) -> Step:
        """Continue from these positions, one per game (their dice come from ``seed``). All are checked
        before any game is replaced."""
        if not isinstance(positions, (list, tuple)):
            raise TypeError(f"positions: expected a list of {self.num_envs} positions, got {type(positions).__name__}")
        if len(positions) != self.num_envs:
            raise ValueError(f"{len(positions)} positions for {self.num_envs} games")
        from .dice import Dice

        rng = _seed_rng(seed)
        seeds = [int(rng.integers(0, 2**63 - 1)) for _ in positions]
        dice = [Dice(s) for s in seeds]
        bufs = [self.backend.from_position(p, d) for p, d in zip(positions, dice)]
        for i, buf in enumerate(bufs):
            try:
                refuse_finished(self.backend.engine, self.backend.state_view(buf))
            except ScenarioError as exc:
                raise ScenarioError(f"positions[{i}]: {exc}") from None
        for i, (buf, s, d) in enumerate(zip(bufs, seeds, dice)):
            self.states[i] = buf
            self.seeds[i] = s
            self.dice.start_game(i, s, skip=d.count)
        self._started = True
        self._terminated[:] = False
        self._truncated[:] = False
        return self._run(np.full(self.num_envs, REFRESH, dtype=np.int64), np.zeros(0, dtype=np.int64))


def _seed_rng(seed) -> np.random.Generator:
    """The generator game seeds are drawn from: ``seed`` checked as the AEC env checks its reset seeds."""
    return np.random.default_rng(None if seed is None else seed_index(seed))


def _refuse(actions: np.ndarray, bad: np.ndarray) -> None:
    """Raise an :class:`IllegalActionError` naming the games ``bad`` and their ``actions`` (if any)."""
    if bad.size:
        shown = ", ".join(f"game {i}: action {actions[i]}" for i in bad[:8])
        raise IllegalActionError(f"illegal actions ({bad.size} games): {shown}; see step.action_mask")


class BattleBackend:
    """What every battle's batched backend shares: the sizes read from its engine, and rows of the batch seen
    as engine states (for views, positions and agents that read a state). A battle's backend subclasses it
    and adds ``template``, ``step_batch`` and ``observe_batch`` over its own kernels."""

    num_players = 2
    obs_dtype = np.float32

    def __init__(self, engine):
        self.engine = engine
        self.num_actions = engine.num_actions
        self.obs_size = engine.obs_layout.size
        self.state_size = engine.state_class._size

    def state_view(self, buf: np.ndarray):
        """One game of the batch as an engine state (its fields are views of ``buf``)."""
        return self.engine.state_class(buf)

    def to_position(self, buf: np.ndarray) -> dict[str, Any]:
        return self.engine.to_position(self.engine.state_class(buf.copy()))

    def from_position(self, position: dict[str, Any], dice) -> np.ndarray:
        return self.engine.new_state({"position": position}, dice).buf


class RowDice:
    """A :class:`~wargame_envs.core.dice.Dice` reading game ``i``'s stream of a :class:`BatchDice`, so an
    engine call made for one game of a batch rolls exactly what the batched kernel would."""

    def __init__(self, dv: np.ndarray, ds: np.ndarray):
        self.dv, self.ds = dv, ds

    def roll(self, sides: int, low: int = 1) -> int:
        from .chance import roll

        v = int(roll(self.dv, self.ds, sides, low))
        self._check()
        return v

    def kernel_stream(self):
        return self.dv, self.ds

    def kernel_done(self, ds) -> None:
        self._check()

    def _check(self) -> None:
        from .chance import DS_ERROR

        if self.ds[DS_ERROR]:
            raise RuntimeError(f"a decision rolled more than {MIN_LEFT} dice")


class EngineLoopBackend:
    """A backend that plays each game with the battle engine's own ``apply`` in a Python loop.

    It implements no rule: it is the reference the batched kernels are tested against (same seeds and
    actions, same arrays), and it lets any battle be driven through :class:`VectorGame`."""

    KEYWORDS = ()

    def __init__(self, engine):
        self.engine = engine
        self.num_players = len(engine.agents)
        self.num_actions = engine.num_actions
        self.obs_size = engine.obs_layout.size
        self.obs_dtype = np.float32
        self._options: dict[str, Any] = {}
        self._state_class = None

    def template(self, options: dict[str, Any]) -> np.ndarray:
        from .dice import Dice

        state = self.engine.new_state(options, Dice(0))  # checks the options
        self._options, self._state_class = dict(options), type(state)
        self.state_size = state.buf.size
        return state.buf.copy()

    def state_view(self, row: np.ndarray):
        """The engine's state object over one row of the batch (writes go to the row)."""
        return self._state_class(row)

    def step_batch(self, states, actions, template, dice, obs, mask, player, rewards, terminated, truncated):
        e = self.engine
        for i, a in enumerate(actions):
            rewards[i] = 0.0
            if a == SKIP:
                continue
            rd = RowDice(dice.dv[i], dice.ds[i])
            if a == RESTART:
                states[i] = e.new_state(self._options, rd).buf
            s = self._state_class(states[i])
            if a >= 0:
                mover = e.current_player(s)
                e.apply(s, int(a), rd)
            else:
                mover = e.current_player(s)
            terminated[i], truncated[i] = e.is_terminal(s), e.is_truncated(s)
            if terminated[i] or truncated[i]:
                rewards[i] = e.returns(s)
                player[i] = mover
                mask[i] = False
            else:
                player[i] = e.current_player(s)
                mask[i] = e.legal_mask(s)
            obs[i] = e.observe(s, int(player[i]))

    def observe_batch(self, states, players, obs):
        for i, p in enumerate(players):
            obs[i] = self.engine.observe(self._state_class(states[i]), int(p))

    def to_position(self, row):
        return self.engine.to_position(self._state_class(row.copy()))

    def from_position(self, position, dice):
        return self.engine.new_state({**self._options, "position": position}, dice).buf.copy()
