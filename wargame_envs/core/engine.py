"""The engine contract every battle meets, and the array state it works on.

A battle's rules module knows nothing of PettingZoo. It subclasses :class:`Engine` and keeps its
whole game state in an :class:`ArrayState`: fixed-shape int32 numpy arrays carved out of one buffer,
so ``clone`` is one buffer copy plus a few views. The shared AEC adapter (``core.aec``) wraps any
engine that meets this contract; search agents drive it directly through ``clone``/``apply``.

Chance is injected: ``new_state`` and ``apply`` receive the :class:`~wargame_envs.core.dice.Dice`
to roll with, so the same state can be continued with the game's dice, scripted dice or sampled
dice.
"""

from __future__ import annotations

import abc
import hashlib
import math
import numbers
from typing import Any, ClassVar

import numpy as np

from .dice import Dice
from .errors import ScenarioError
from .observation import ObservationLayout

_PLAIN_INTS = frozenset({int, np.int64, np.int32, np.intp})


def action_index(action) -> int | None:
    """``action`` as an integer index, or ``None`` when it is not one (bool, str, inf, nan, 2.5, an
    array of several values...). Numpy and torch scalars and one-element arrays are read by value."""
    if type(action) in _PLAIN_INTS:  # the common case, without the checks below
        return int(action)
    if hasattr(action, "shape") and hasattr(action, "item"):
        if math.prod(action.shape) != 1:
            return None
        action = action.item()
    if isinstance(action, bool):
        return None
    if isinstance(action, numbers.Integral):
        return int(action)
    if isinstance(action, numbers.Real) and math.isfinite(action) and float(action).is_integer():
        return int(action)
    return None


#: Why a finished game is refused as a start position (every battle says it in these words).
FINISHED_POSITION = "this position is a finished game; there is nothing to play from it"


def refuse_finished(engine: "Engine", state: "ArrayState", to_move: bool = True) -> None:
    """A :class:`ScenarioError` when ``state``, a game built from a start position, is already over (won,
    drawn or cut short by its length limit) or (``to_move``) has no player to move: nothing could be played
    from it, and an env reset to it would step a game that cannot go on. The AEC env, the batched games and the
    self-play envs check every new game with it; a battle's engine checks the position as given (``to_move=False``
    before its opening sequence has named the player to move), so that its rule tests may still start from a
    position whose opening sequence ends the game."""
    if engine.is_terminal(state):
        why = "the game is over"
    elif engine.is_truncated(state):
        why = "the game was cut short by its length limit"
    elif to_move and engine.current_player(state) < 0:
        why = "no player is to move"
    else:
        return
    raise ScenarioError(f"position: {FINISHED_POSITION} ({why})")


class ArrayState:
    """Named int32 arrays in one contiguous buffer.

    Subclasses declare ``FIELDS = {"name": shape, ...}``; each field becomes an attribute that is a
    view into ``buf``. ``log`` holds the human-readable events of the game so far (render, replay);
    it is not part of the rules state and is not copied by :meth:`clone`. Compiled rules hand their events
    over raw (:meth:`defer_log`); they become sentences only when someone reads ``log``, so a game nobody
    watches never formats one.
    """

    FIELDS: ClassVar[dict[str, tuple[int, ...]]] = {}
    _layout: ClassVar[list[tuple[str, int, int, tuple[int, ...]]]]
    _size: ClassVar[int]

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        layout, off = [], 0
        for name, shape in cls.FIELDS.items():
            shape = tuple(shape)
            n = int(np.prod(shape)) if shape else 1
            layout.append((name, off, off + n, shape))
            off += n
        cls._layout, cls._size = layout, off

    def __init__(self, buf: np.ndarray | None = None):
        self.buf = np.zeros(self._size, dtype=np.int32) if buf is None else buf
        for name, a, b, shape in self._layout:
            setattr(self, name, self.buf[a:b].reshape(shape) if len(shape) != 1 else self.buf[a:b])
        self._log: list[str] = []
        self._pending: list[tuple[Any, Any]] = []  # (formatter, raw events) not yet turned into sentences

    @property
    def log(self) -> list[str]:
        """The game's event sentences, oldest first."""
        if self._pending:
            pending, self._pending = self._pending, []
            for formatter, rows in pending:
                self._log.extend(formatter(rows))
        return self._log

    @log.setter
    def log(self, lines: list[str]) -> None:
        self._log, self._pending = list(lines), []

    def defer_log(self, formatter, rows) -> None:
        """Events of one engine call, to be turned into sentences by ``formatter(rows)`` when ``log`` is
        read (``rows`` must not change afterwards: pass a copy)."""
        self._pending.append((formatter, rows))

    def log_entries(self) -> int:
        """Lines in the log plus engine calls whose events are not formatted yet (a cheap bound on its
        size, for callers that trim it)."""
        return len(self._log) + len(self._pending)

    def trim_log(self, keep: int) -> None:
        """Drops the oldest log entries (:meth:`log_entries`' count) beyond the newest ``keep``, without
        formatting the engine calls it drops: the log then still holds at least ``keep`` sentences."""
        drop = self.log_entries() - keep
        if drop <= 0:
            return
        lines = min(drop, len(self._log))
        del self._log[:lines]
        del self._pending[:drop - lines]

    def clone(self) -> "ArrayState":
        return type(self)(self.buf.copy())

    @classmethod
    def span(cls, first: str, last: str) -> slice:
        """The slice of ``buf`` from field ``first`` through field ``last`` (in ``FIELDS`` order): one
        cheap key over several adjacent fields."""
        where = {name: (a, b) for name, a, b, _ in cls._layout}
        start, stop = where[first][0], where[last][1]
        if start >= stop:
            raise ValueError(f"field {first!r} does not come before {last!r}")
        return slice(start, stop)

    def __reduce__(self):
        # Pickle the buffer only: the field views are rebuilt on load (a pickled view would be a copy).
        return type(self), (self.buf.copy(),), {"log": list(self.log)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.log = state.get("log", [])

    def digest(self) -> str:
        """A hash of the rules state (equal digests = identical positions)."""
        return hashlib.sha1(self.buf.tobytes()).hexdigest()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and np.array_equal(self.buf, other.buf)

    __hash__ = None  # mutable


def sized_state_class(base: type[ArrayState], name: str, fields: dict[str, tuple[int, ...]]) -> type[ArrayState]:
    """The subclass of ``base`` with these ``fields``, created once and registered in ``base``'s module
    under ``name``, so two engines of one scenario share the class (equal states compare equal) and
    states pickle (evaluation workers)."""
    import sys

    module = sys.modules[base.__module__]
    cls = getattr(module, name, None)
    if cls is None:
        cls = type(name, (base,), {"FIELDS": fields, "__module__": base.__module__, "__qualname__": name})
        setattr(module, name, cls)
    elif cls.FIELDS != fields:
        raise ValueError(f"state class {name} already exists with other fields")
    return cls


class Engine(abc.ABC):
    """Pure rules of one battle. All methods are deterministic given the dice they are handed.

    Attributes every engine sets: ``name`` (``"<battle>_v0"``), ``agents`` (tuple of agent names,
    index = player number), ``num_actions`` (size of the flat ``Discrete`` action space) and
    ``obs_layout`` (:class:`ObservationLayout`).
    """

    name: str
    agents: tuple[str, ...]
    num_actions: int
    obs_layout: ObservationLayout

    # -- lifecycle
    @abc.abstractmethod
    def new_state(self, options: dict[str, Any] | None, dice: Dice) -> ArrayState:
        """A fresh game (or the position in ``options['position']``), ready for the first decision."""

    @abc.abstractmethod
    def current_player(self, state: ArrayState) -> int:
        """Index of the agent who must decide now; -1 once the game is over."""

    @abc.abstractmethod
    def legal_mask(self, state: ArrayState) -> np.ndarray:
        """Bool array of length ``num_actions``: exactly the legal options of the pending decision."""

    @abc.abstractmethod
    def apply(self, state: ArrayState, action: int, dice: Dice) -> None:
        """Carry out a legal ``action`` in place, rolling with ``dice``, up to the next decision."""

    @abc.abstractmethod
    def is_terminal(self, state: ArrayState) -> bool: ...

    def is_truncated(self, state: ArrayState) -> bool:
        """True when the game was cut short by a length limit (never reported as a win)."""
        return False

    @abc.abstractmethod
    def returns(self, state: ArrayState) -> np.ndarray:
        """Per-agent terminal returns (+1 win, -1 loss, 0 draw or unfinished)."""

    def scores(self, state: ArrayState) -> np.ndarray:
        """Per-agent running score (e.g. victory points) for shaped rewards; zeros by default."""
        return np.zeros(len(self.agents), dtype=np.float32)

    @abc.abstractmethod
    def observe(self, state: ArrayState, player: int) -> np.ndarray:
        """Float32 observation of ``player`` (no hidden information of the other side)."""

    @abc.abstractmethod
    def action_to_str(self, state: ArrayState, action: int) -> str:
        """The action in the players' own terms, for the pending decision of ``state``."""

    def check_action(self, action) -> int:
        """``action`` as an index of the action space, or a ``ValueError`` naming it and the range (for
        ``action_to_str`` and other readers of one action; a bool, a string or ``2.5`` is no index)."""
        a = action_index(action)
        if a is None:
            raise ValueError(f"action {action!r}: expected an integer index in 0..{self.num_actions - 1}")
        if not 0 <= a < self.num_actions:
            raise ValueError(f"action {a} out of range 0..{self.num_actions - 1}")
        return a

    def decision_name(self, state: ArrayState) -> str:
        """Short name of the pending decision (for logs, errors and the human agent)."""
        return "decision"

    #: Names of the decision kinds, indexed by :meth:`decision_id` (the AEC infos carry the id).
    decision_names: tuple[str, ...] = ("decision",)

    def decision_id(self, state: ArrayState) -> int:
        """Index in :attr:`decision_names` of the pending decision (a number any RL client can hold)."""
        return 0

    def progress(self, state: ArrayState) -> tuple[bool, bool, int, int]:
        """``(is_terminal, is_truncated, current_player, decision_id)`` of ``state`` in one call: what the AEC
        env reads after every action. This default asks the four methods; a battle whose rules are compiled
        answers from one kernel call (a call from Python into compiled code costs about a microsecond)."""
        return (bool(self.is_terminal(state)), bool(self.is_truncated(state)), int(self.current_player(state)),
                int(self.decision_id(state)))

    def check_invariants(self, state: ArrayState) -> list[str]:
        """Battle-specific invariant violations of ``state`` (stacking, ranges); empty when sound.
        The shared invariant test suite calls it after every step of its random games."""
        return []

    def clone(self, state: ArrayState) -> ArrayState:
        return state.clone()

    def sample_hidden(self, state: ArrayState, player: int, rng) -> ArrayState:
        """A clone of ``state`` in which whatever ``player`` cannot see is redrawn at random from what
        he could believe (a determinization, for search agents that must not peek). Battles without
        hidden information return a plain clone."""
        return state.clone()

    def legal_actions(self, state: ArrayState) -> list[int]:
        return np.flatnonzero(self.legal_mask(state)).tolist()

    # -- positions (same format as saved games)
    @abc.abstractmethod
    def to_position(self, state: ArrayState) -> dict[str, Any]:
        """The state as a JSON-friendly dict that ``new_state(options={"position": ...})`` accepts."""

    @abc.abstractmethod
    def summary(self, state: ArrayState) -> dict[str, Any]:
        """A read-only view of the whole (omniscient) state as a plain JSON-friendly dict (python
        ints, strs, bools, lists and dicts only), for researchers and notebooks; the AEC env's
        ``summary()`` returns it. At least ``battle``, ``to_move`` (agent name or ``None``),
        ``decision`` (its name), ``over``, ``winner`` (agent or ``None``), the battle's progress
        (round / activations / turn), scores (victory or flight points), and ``units``: a list of
        ``{"id", "side" (agent name), "hex" (hex id or None), "status"}``. Mutating it changes nothing."""

    # -- rendering
    @abc.abstractmethod
    def render_ansi(self, state: ArrayState, viewer: int | None = None) -> str:
        """Text map, tracks and last events as player ``viewer`` (an agent index) may see them;
        ``None`` is the omniscient view, labelled as such."""

    @abc.abstractmethod
    def scene(self, state: ArrayState, viewer: int | None = None):
        """A :class:`~wargame_envs.core.render.Scene` for image rendering, as player ``viewer`` may
        see it (``None``: omniscient, labelled as such)."""
