"""The games the web page plays, watches and replays; no web framework in here.

A :class:`PlayGame` seats one person (or nobody: a watched game) and agents built from spec strings
(``agents.registry.make_agent``, seeded like ``wargames play``). After each of the person's actions
the agents move until it is the person's turn again or the game is over. A watched game moves one
decision per :meth:`PlayGame.step`. Undo follows the terminal's rules by using its agent
(``agents.human.HumanAgent``: a snapshot before each of the person's decisions, refused across a die
roll) and a rewind like ``wargames play``'s (the record replayed bit-exactly).

The person sees only his side's view: the map, tracks and events of ``engine.scene(state, viewer)``
with ``viewer`` his player index. Legal options come from the mask; each names the hexes that
``agents.human.Menu`` finds in its words (hex ids, unique counter labels), which the map highlights.

A :class:`ReplayGame` holds every position of an uploaded game record, to scrub through.

Every input is checked here and a bad one raises :class:`WebInputError` (HTTP 400) or
:class:`StaleActionError` (409): the game goes on untouched.
"""

from __future__ import annotations

import secrets
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.human import HumanAgent, Menu, UndoRequest, counter_hexes
from agents.registry import MAX_MCTS_SIMULATIONS, AgentUnavailableError, agent_seed, make_agent
from wargame_envs import registry
from wargame_envs.core.aec import rewind
from wargame_envs.core.errors import RecordError, WargameError
from wargame_envs.core.records import GameRecord, replay
from wargames_web.svg import scene_svg

HUMAN = "human"
MAX_SEED = 2**63 - 1
MAX_STEPS = 50                       # decisions one watch request may advance
MAX_AGENT_MOVES = 20000              # agent decisions between two of the person's (a guard, never reached)
MAX_RECORD_ACTIONS = 20000
EVENTS_SHOWN = 40


class WebInputError(WargameError):
    """Bad input from the page: answered with HTTP 400 and this message; nothing changes."""


class StaleActionError(WebInputError):
    """An action sent for a decision that is no longer pending (another tab, a double click): 409."""


class NotFoundError(WebInputError):
    """No such game (closed, expired, never made): 404."""


def _int(value: Any, field: str, low: int, high: int) -> int:
    """``value`` as an int in ``[low, high]`` (JSON numbers only: no bool, str or float)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise WebInputError(f"{field} = {value!r}: expected an integer")
    if not low <= value <= high:
        raise WebInputError(f"{field} = {value}: expected {low}..{high}")
    return value


# ============================================================================ battles and agents
_ENGINES: dict[str, Any] = {}
_ENGINE_LOCK = threading.Lock()


def engine_for(name: str):
    """The shared engine of battle ``name`` (short or full name); engines hold no game state."""
    if not isinstance(name, str):
        raise WebInputError(f"battle = {name!r}: expected one of {short_names()}")
    try:
        full = registry.resolve(name)
    except KeyError:
        raise WebInputError(f"battle = {name!r}: expected one of {short_names()}") from None
    with _ENGINE_LOCK:
        if full not in _ENGINES:
            _ENGINES[full] = registry.make_engine(full)
        return _ENGINES[full]


def short_names() -> list[str]:
    return sorted(registry.SHORT_NAMES)


@dataclass
class Config:
    """Server settings: ``checkpoints`` is the one folder ``ckpt:NAME`` agents may be read from."""

    checkpoints: Path | None = None
    idle_timeout_s: float = 1800.0
    max_games: int = 64


def checkpoint_files(config: Config) -> list[str]:
    """Names (relative to the checkpoints folder) of the files a ``ckpt:`` spec may name."""
    if config.checkpoints is None or not config.checkpoints.is_dir():
        return []
    root = config.checkpoints.resolve()
    names = sorted(str(p.relative_to(root)) for p in root.rglob("*.zip") if p.is_file())
    return names[:100]


def checkpoint_path(config: Config, name: str) -> Path:
    """The file ``ckpt:name`` reads: inside the configured folder, or a :class:`WebInputError`
    (no folder configured, a path that leaves it, no such file)."""
    if config.checkpoints is None:
        raise WebInputError("ckpt: agents are off: start the server with --checkpoints DIR")
    root = config.checkpoints.resolve()
    if not name or "\x00" in name:
        raise WebInputError(f"ckpt:{name!r}: expected a file name inside the checkpoints folder")
    target = (root / name).resolve()
    if not target.is_relative_to(root):
        raise WebInputError(f"ckpt:{name}: only files inside the checkpoints folder can be read")
    if not target.is_file():
        raise WebInputError(f"ckpt:{name}: no such file in the checkpoints folder")
    return target


def agent_choices(config: Config, battle: str) -> list[str]:
    """The opponent specs the page offers for ``battle``."""
    from agents import pretrained
    from agents.registry import battle_short_name

    specs = ["random", "scripted", "mcts"]
    if battle_short_name(battle) in pretrained.available():
        specs.append("pretrained")
    return specs + [f"ckpt:{name}" for name in checkpoint_files(config)]


def build_agent(config: Config, spec: Any, battle: str, seed: int):
    """An agent from a page's spec string: ``human`` is the person; ``ckpt:NAME`` only from the
    configured folder; ``mcts:N`` at most :data:`MAX_MCTS_SIMULATIONS`."""
    if not isinstance(spec, str) or len(spec) > 300:
        raise WebInputError(f"agent = {spec!r:.60}: expected a spec string such as random, scripted, mcts")
    if spec == HUMAN:
        return None
    kind, _, arg = spec.partition(":")
    if kind == "ckpt":
        spec = f"ckpt:{checkpoint_path(config, arg)}"
    if kind == "mcts" and arg.isdigit() and int(arg) > MAX_MCTS_SIMULATIONS:
        raise WebInputError(f"agent = {spec!r}: at most mcts:{MAX_MCTS_SIMULATIONS} here")
    try:
        return make_agent(spec, battle, seed)
    except (ValueError, AgentUnavailableError, WargameError) as exc:  # bad spec, missing extra, bad checkpoint
        raise WebInputError(f"agent = {spec!r}: {exc}") from None
    except ModuleNotFoundError as exc:
        raise WebInputError(f"agent = {spec!r}: needs an optional extra ({exc.name} is not installed)") from None


# ============================================================================ views
def _result_text(engine, state) -> str | None:
    if engine.is_terminal(state):
        ret = engine.returns(state)
        best = max(ret)
        winners = [a for a, r in zip(engine.agents, ret) if r == best]
        return f"{winners[0]} win" if best > 0 and len(winners) == 1 else "draw"
    if engine.is_truncated(state):
        return "game cut off (turn limit) without a result"
    return None


def position_view(engine, state, viewer: int | None, legal: list[int] | None = None) -> dict[str, Any]:
    """The JSON the page draws: SVG map, tracks, events, and the legal options (when ``legal``)
    with the hexes each names. ``viewer``: the player whose view it is (``None``: omniscient)."""
    scene = engine.scene(state, viewer)
    options, named = [], set()
    if legal:
        menu = Menu(engine, state, legal, scene.grid.index, counter_hexes(scene))
        for action, label in zip(menu.actions, menu.labels):
            hexes = menu.hexes_named(label)
            named.update(hexes)
            options.append({"action": int(action), "label": label, "hexes": [scene.grid.ids[h] for h in hexes]})
    over = bool(engine.is_terminal(state) or engine.is_truncated(state))
    return {
        "title": scene.title,
        "sides": [{"name": name, "agent": engine.agents[i], "color": "#%02x%02x%02x" % tuple(scene.side_colors[i])}
                  for i, name in enumerate(scene.side_names)],
        "svg": scene_svg(scene, named),
        "tracks": list(scene.tracks),
        "events": list(scene.events[-EVENTS_SHOWN:]),
        "over": over,
        "result": _result_text(engine, state),
        "to_move": None if over else engine.agents[engine.current_player(state)],
        "decision_name": None if over else engine.decision_name(state),
        "options": options,
    }


# ============================================================================ played and watched games
class PlayGame:
    """A game in one browser tab: ``seats`` holds one spec per player, at most one ``human``."""

    kind = "play"

    def __init__(self, config: Config, battle: Any, seats: Any, seed: Any, options: Any = None):
        self.engine = engine_for(battle)
        agents = self.engine.agents
        if not isinstance(seats, list) or len(seats) != len(agents):
            raise WebInputError(f"seats = {seats!r:.80}: expected a list of {len(agents)} agent specs, one per "
                                f"player ({', '.join(agents)})")
        if seats.count(HUMAN) > 1:
            raise WebInputError("seats: at most one human player (each player sees only his own side's view)")
        self.seed = _int(seed, "seed", 0, MAX_SEED)
        self.players = [build_agent(config, spec, self.engine.name, agent_seed(self.seed, i))
                        for i, spec in enumerate(seats)]
        self.human = seats.index(HUMAN) if HUMAN in seats else None
        self.env = registry.make(self.engine.name, engine=self.engine)
        self.raw = self.env.unwrapped
        if options is not None and not isinstance(options, dict):
            raise WebInputError(f"options = {options!r:.60}: expected a JSON object of scenario options")
        with warnings.catch_warnings(record=True) as caught:  # the engine checks every option (ScenarioError)
            warnings.simplefilter("always")
            self.env.reset(seed=self.seed, options=options)
        if caught:  # an option the engine ignores with a warning (an unknown name) is refused here
            raise WebInputError(f"options: {caught[0].message}")
        self.raw.record.players = dict(zip(agents, seats))
        self.undo_keeper = HumanAgent(color=False)  # the terminal's undo rules (snapshots, no undo across dice)
        self.undo_keeper.attach(self.env)
        self.message = ""
        if self.human is not None:
            self._agents_move()

    # -------------------------------------------------------------- state
    @property
    def state(self):
        return self.raw.state_

    @property
    def decisions(self) -> int:
        return len(self.raw.record.actions)

    def over(self) -> bool:
        return self.engine.is_terminal(self.state) or self.engine.is_truncated(self.state)

    def _mover(self) -> int:
        return self.engine.current_player(self.state)

    def humans_turn(self) -> bool:
        return self.human is not None and not self.over() and self._mover() == self.human

    # -------------------------------------------------------------- moves
    def _agent_step(self) -> None:
        p = self._mover()
        mask = np.asarray(self.engine.legal_mask(self.state), dtype=bool)
        action = self.players[p].act(self.engine, self.state, p, mask)
        self.env.step(int(action))

    def _agents_move(self) -> None:
        for _ in range(MAX_AGENT_MOVES):
            if self.over() or self._mover() == self.human:
                break
            self._agent_step()
        if self.humans_turn():
            self.undo_keeper._remember(self.state)  # the position before this decision, for undo

    def act(self, action: Any, decision: Any) -> None:
        """The person's action ``action`` for decision number ``decision`` (what the page saw)."""
        if self.human is None:
            raise WebInputError("this is a watched game: nobody plays in it")
        decision = _int(decision, "decision", 0, 10**9)
        if decision != self.decisions:
            raise StaleActionError(f"stale action: it was for decision #{decision + 1}, the game is at decision "
                                   f"#{self.decisions + 1}; the page now shows the current position")
        if self.over():
            raise StaleActionError("the game is over: no more actions")
        if not self.humans_turn():
            raise StaleActionError(f"it is not your turn: {self.engine.agents[self._mover()]} decides")
        a = _int(action, "action", 0, self.engine.num_actions - 1)
        legal = self.raw.legal_actions()
        if a not in legal:
            raise WebInputError(f"action {a} is not legal now ({self.engine.decision_name(self.state)}): "
                                f"choose one of the {len(legal)} options listed")
        self.message = f"you: {self.engine.action_to_str(self.state, a)}"
        self.env.step(a)
        self._agents_move()

    def step(self, count: Any = 1) -> None:
        """A watched game: the agents make up to ``count`` decisions."""
        if self.human is not None:
            raise WebInputError("step is for watched games; in a played game the agents move after you")
        for _ in range(_int(count, "count", 1, MAX_STEPS)):
            if self.over():
                break
            self._agent_step()

    def undo(self) -> None:
        """Take back the person's last decision (and the agents' since), on the terminal's terms."""
        if self.human is None:
            raise WebInputError("undo is for played games")
        if self.over():
            raise WebInputError("the game is over: undo is not available")
        try:
            reason = self.undo_keeper._undo()
        except UndoRequest as req:
            self._rewind(req.decisions, req.digest)
            self.message = f"undone: back to decision #{req.decisions + 1}"
            self._agents_move()
            return
        raise WebInputError(reason)

    def _rewind(self, decisions: int, digest: str) -> None:
        """Back to just before decision ``decisions + 1``, as ``wargames play`` undoes
        (``core.aec.rewind``); the position must have ``digest``."""
        try:
            rewind(self.env, decisions, digest)
        except RecordError as exc:
            raise WebInputError(str(exc)) from None

    def record_json(self) -> str:
        return self.raw.record.to_json()

    def view(self) -> dict[str, Any]:
        legal = self.raw.legal_actions() if self.humans_turn() else None
        out = position_view(self.engine, self.state, self.human, legal)
        out.update(kind=self.kind if self.human is not None else "watch", battle=self.engine.name,
                   decision=self.decisions, seed=self.seed, seats=dict(self.raw.record.players),
                   you=None if self.human is None else self.engine.agents[self.human], message=self.message)
        return out


# ============================================================================ replays
class ReplayGame:
    """Every position of a game record (checked and replayed bit-exactly), for a timeline."""

    kind = "replay"

    def __init__(self, data: Any):
        record = GameRecord.from_dict(data, "uploaded record")
        if len(record.actions) > MAX_RECORD_ACTIONS:
            raise WebInputError(f"uploaded record: {len(record.actions)} actions, at most {MAX_RECORD_ACTIONS} here")
        try:
            self.engine = engine_for(record.env)
        except WebInputError:
            raise RecordError(f"uploaded record: env {record.env!r} is not one of this version's battles "
                              f"({', '.join(short_names())})") from None
        self.record = record
        self.states, self.moves = [], []
        for _, state, action in replay(record, self.engine):
            snap = state.clone()
            snap.log = list(state.log[-EVENTS_SHOWN:])
            self.states.append(snap)
            if action is not None:
                who = self.engine.agents[self.engine.current_player(state)]
                self.moves.append(f"{who}: {self.engine.action_to_str(state, action)}")

    def view(self, index: Any = 0) -> dict[str, Any]:
        i = _int(index, "index", 0, len(self.states) - 1)
        out = position_view(self.engine, self.states[i], None)
        out.update(kind=self.kind, battle=self.engine.name, index=i, length=len(self.states) - 1,
                   seed=self.record.seed, seats=dict(self.record.players),
                   next_move=self.moves[i] if i < len(self.moves) else None)
        return out


# ============================================================================ sessions
class Sessions:
    """The games of the open tabs, by random id; one lock per game; idle ones are dropped."""

    def __init__(self, config: Config, clock=time.monotonic):
        self.config, self.clock = config, clock
        self._games: dict[str, tuple[Any, threading.Lock]] = {}
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def add(self, game) -> str:
        with self._lock:
            self.expire()
            if len(self._games) >= self.config.max_games:
                raise WebInputError(f"the server holds {len(self._games)} games, its limit; close a tab and try again")
            sid = secrets.token_urlsafe(16)
            self._games[sid] = (game, threading.Lock())
            self._last[sid] = self.clock()
            return sid

    def get(self, sid: str):
        """``(game, its lock)``, or :class:`NotFoundError`."""
        with self._lock:
            self.expire()
            if sid not in self._games:
                raise NotFoundError(f"no game {sid[:40]!r} here: it was closed, it expired after "
                                    f"{self.config.idle_timeout_s / 60:g} idle minutes, or the server restarted")
            self._last[sid] = self.clock()
            return self._games[sid]

    def close(self, sid: str) -> bool:
        with self._lock:
            self._last.pop(sid, None)
            return self._games.pop(sid, None) is not None

    def expire(self) -> None:
        """Drop the games idle longer than the timeout (called with the lock held)."""
        now = self.clock()
        for sid in [s for s, t in self._last.items() if now - t > self.config.idle_timeout_s]:
            self._games.pop(sid, None)
            self._last.pop(sid, None)
