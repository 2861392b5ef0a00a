"""Game records: scenario options, seed and every action, as JSON; they replay bit-exactly.

A record holds what is needed to reproduce a game with the engine and nothing else: the env name,
the options passed to ``reset`` (which may hold a start ``position`` in the same format as
``Engine.to_position``), the dice seed and the action indices. ``final_digest`` is the hash of the
final rules state, so a replay that diverges (edited record, changed rules) is caught and named.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .dice import Dice
from .errors import RecordError
from .files import atomic_write

RECORD_FORMAT = "wargame-record/1"
MAX_DEPTH = 32  # JSON nesting a record may hold (a start position needs a handful of levels)


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of a JSON value, counted up to ``limit + 1`` at most (no deep recursion)."""
    depth, level = 0, [value]
    while level and depth <= limit:
        level = [v for x in level if isinstance(x, (dict, list)) for v in (x.values() if isinstance(x, dict) else x)]
        depth += 1
    return depth


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# field -> (check, what it must be); every field of a record, checked before it is used (issue 12 item 6)
_FIELDS = {
    "format": (lambda v: v == RECORD_FORMAT, repr(RECORD_FORMAT)),
    "env": (lambda v: isinstance(v, str) and v != "", "a non-empty string"),
    "seed": (lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0, "a non-negative integer"),
    "options": (lambda v: isinstance(v, dict), "a table (JSON object)"),
    "actions": (lambda v: isinstance(v, list), "a list of non-negative integers"),
    "players": (lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
                "a table of agent name -> agent spec (strings)"),
    "returns": (lambda v: v is None or (isinstance(v, list) and all(_is_number(x) for x in v)),
                "null or a list of finite numbers"),
    "final_digest": (lambda v: v is None or isinstance(v, str), "null or a string"),
    "illegal_action": (lambda v: v is None or isinstance(v, dict), "an object or null"),
}
REQUIRED = ("format", "env", "seed", "options", "actions")


@dataclass
class GameRecord:
    env: str
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    actions: list[int] = field(default_factory=list)
    players: dict[str, str] = field(default_factory=dict)
    returns: list[float] | None = None
    final_digest: str | None = None
    format: str = RECORD_FORMAT
    # Set when the game ended on an illegal action under illegal_action="lose" (``core.aec``):
    # {"agent": ..., "action": repr of the action, "decision": decision name}; that action is not in ``actions``.
    illegal_action: dict[str, str] | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=1)

    def save(self, path: str | Path) -> Path:
        """Write atomically (a crash never leaves half a record, and a failed save leaves no temporary file).
        ``~`` is expanded; a ``path`` that is a folder is a :class:`RecordError`."""
        path = check_record_path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, self.to_json().encode("utf-8"))
        return path

    @classmethod
    def from_dict(cls, data: Any, where: str = "record") -> "GameRecord":
        """The record in ``data`` (parsed JSON), or a :class:`RecordError` naming the first bad field
        and its value; ``where`` (the file) starts the message."""
        if not isinstance(data, dict):
            raise RecordError(f"{where}: a game record is a JSON object, got {type(data).__name__}")
        if data.get("format") != RECORD_FORMAT:
            raise RecordError(f"{where}: field 'format' = {_short(data.get('format'))}: expected {RECORD_FORMAT!r}")
        for key in REQUIRED:
            if key not in data:
                raise RecordError(f"{where}: field '{key}' is missing")
        extra = set(data) - set(cls.__dataclass_fields__)
        if extra:
            raise RecordError(f"{where}: unknown fields {_short(sorted(extra))}")
        for key, (ok, what) in _FIELDS.items():
            if key in data and not ok(data[key]):
                raise RecordError(f"{where}: field '{key}' = {_short(data[key])}: expected {what}")
        if _depth(data["options"], MAX_DEPTH) > MAX_DEPTH:
            raise RecordError(f"{where}: field 'options' is nested more than {MAX_DEPTH} levels deep")
        for i, a in enumerate(data["actions"]):
            if not isinstance(a, int) or isinstance(a, bool) or a < 0:
                raise RecordError(f"{where}: field 'actions[{i}]' = {_short(a)}: expected a non-negative integer")
        return cls(**data)

    @classmethod
    def load(cls, path: str | Path) -> "GameRecord":
        path = Path(path).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise RecordError(f"{path}: no such game record") from None
        except UnicodeDecodeError as exc:
            raise RecordError(f"{path}: not a text file ({exc.reason})") from None
        try:
            data = json.loads(text, parse_constant=_refuse_constant)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
        except RecursionError:
            raise RecordError(f"{path}: JSON nested too deeply to be a game record") from None
        except ValueError as exc:  # NaN / Infinity, which strict JSON does not have
            raise RecordError(f"{path}: not valid JSON ({exc})") from None
        return cls.from_dict(data, str(path))


def check_record_path(path: str | Path, option: str = "") -> Path:
    """``path`` (``~`` expanded) as where a game record may be written: a :class:`RecordError` naming it
    (and ``option``, e.g. ``--record``, when given) for an existing folder, for a parent that is a file or
    cannot be written. The CLI calls it before a game is played, so
    that a long game is never lost to a bad path; :meth:`GameRecord.save` calls it again."""
    path = Path(path).expanduser()
    flag = f"{option} " if option else ""
    if path.is_dir():
        raise RecordError(f"{flag}{path}: is a folder; give the path of the record's JSON file "
                          f"(e.g. {path / 'game.json'})")
    parent = next((p for p in (path.parent, *path.parent.parents) if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise RecordError(f"{flag}{parent}: cannot write there (a file, not a folder)")
    if parent is not None and not os.access(parent, os.W_OK | os.X_OK):
        raise RecordError(f"{flag}{parent}: cannot write there (permission denied)")
    return path


def _short(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters (a corrupt field can be huge or deeply nested)."""
    try:
        text = repr(value)
    except RecursionError:
        text = f"<deeply nested {type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def replay(record: GameRecord, engine=None) -> Iterator[tuple[Any, Any, int | None]]:
    """Yield ``(engine, state, next_action)`` for every decision of the record, then the final state
    with ``None``. Raises :class:`RecordError` naming the first action that is illegal where it stands,
    or a final state that differs from the recorded one."""
    from .. import registry

    try:
        env = registry.resolve(record.env)  # a short name ("berestechko") is the battle's env too
    except KeyError:
        env = None
    if engine is None:
        if env is None:
            raise RecordError(f"record is for env {record.env!r}, which this version does not have")
        engine = registry.make_engine(env)
    elif engine.name not in (record.env, env):
        raise RecordError(f"record is for env {record.env!r}, not {engine.name!r}")
    _check_seats(record, engine)
    dice = Dice(record.seed)
    try:
        state = engine.new_state(record.options, dice)
    except Exception as exc:
        raise RecordError(f"record options do not make a valid game: {exc}") from exc
    for i, action in enumerate(record.actions):
        if engine.is_terminal(state) or engine.is_truncated(state):
            raise RecordError(f"record has {len(record.actions) - i} action(s) after the game ended (from action #{i})")
        if action >= engine.num_actions or not engine.legal_mask(state)[action]:
            raise RecordError(
                f"action #{i} ({action}) is illegal at this point ({engine.decision_name(state)}); "
                "the record is corrupt or from another rules version"
            )
        yield engine, state, action
        engine.apply(state, action, dice)
    if record.final_digest is not None and state.digest() != record.final_digest:
        raise RecordError("replay diverged: the final position differs from the one recorded")
    _check_returns(record, engine, state)
    yield engine, state, None


def _check_seats(record: GameRecord, engine) -> None:
    """The record's ``players`` and ``illegal_action`` name agents of ``engine``'s battle."""
    agents = list(engine.agents)
    foreign = [a for a in record.players if a not in agents]
    if foreign:
        raise RecordError(f"field 'players' = {_short(record.players)}: {_short(foreign)} are not agents of "
                          f"{engine.name} (expected some of {agents})")
    bad = record.illegal_action
    if bad is not None and (bad.get("agent") not in agents or not all(isinstance(bad.get(k), str)
                                                                      for k in ("action", "decision"))):
        raise RecordError(f"field 'illegal_action' = {_short(bad)}: expected {{'agent': one of {agents}, "
                          "'action': str, 'decision': str}")


def _check_returns(record: GameRecord, engine, final) -> None:
    """The record's ``returns`` against the replayed game's: those of its end by the rules, those of the
    illegal action that ended it (``illegal_action``: -1 for that agent, +1 for the others), or none for a
    game that did not end (cut short, or stopped)."""
    if record.illegal_action is not None:
        loser = list(engine.agents).index(record.illegal_action["agent"])
        expected = [-1.0 if i == loser else 1.0 for i in range(len(engine.agents))]
    elif engine.is_terminal(final):
        expected = [float(x) for x in engine.returns(final)]
    else:
        expected = None
    recorded = record.returns
    if recorded is None and expected is None:
        return
    if (recorded is None or expected is None or len(recorded) != len(expected)
            or not all(math.isclose(a, b, abs_tol=1e-6) for a, b in zip(recorded, expected))):
        ends = f"with returns {expected}" if expected is not None else "without a result (cut short or unfinished)"
        raise RecordError(f"field 'returns' = {_short(recorded)}, but the replayed game ends {ends}: the record "
                          "is corrupt or from another rules version")


def replay_final(record: GameRecord, engine=None):
    """Replay a whole record and return ``(engine, final_state)``."""
    last = None
    for last in replay(record, engine):
        pass
    return last[0], last[1]
