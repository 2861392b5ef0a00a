"""Game records: scenario options, seed and every action, as JSON; they replay bit-exactly.

A record holds what is needed to reproduce a game with the engine and nothing else: the env name,
the options passed to ``reset`` (which may hold a start ``position`` in the same format as
``Engine.to_position``), the dice seed and the action indices. ``final_digest`` is the hash of the
final rules state, so a replay that diverges (edited record, changed rules) is caught and named.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .dice import Dice
from .errors import RecordError

RECORD_FORMAT = "wargame-record/1"


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

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=1)

    def save(self, path: str | Path) -> Path:
        """Write atomically (a crash never leaves half a record)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(self.to_json())
        os.replace(tmp, path)
        return path

    @classmethod
    def from_dict(cls, data: Any, where: str = "record") -> "GameRecord":
        if not isinstance(data, dict):
            raise RecordError(f"{where}: a game record is a JSON object, got {type(data).__name__}")
        fmt = data.get("format")
        if fmt != RECORD_FORMAT:
            raise RecordError(f"{where}: field 'format' = {fmt!r}: expected {RECORD_FORMAT!r}")
        for key, kind in (("env", str), ("seed", int), ("options", dict), ("actions", list)):
            if key not in data:
                raise RecordError(f"{where}: field '{key}' is missing")
            if not isinstance(data[key], kind) or isinstance(data[key], bool):
                raise RecordError(f"{where}: field '{key}' = {data[key]!r}: expected {kind.__name__}")
        for i, a in enumerate(data["actions"]):
            if not isinstance(a, int) or isinstance(a, bool) or a < 0:
                raise RecordError(f"{where}: field 'actions[{i}]' = {a!r}: expected a non-negative integer")
        known = {f for f in cls.__dataclass_fields__}
        extra = set(data) - known
        if extra:
            raise RecordError(f"{where}: unknown fields {sorted(extra)}")
        return cls(**data)

    @classmethod
    def load(cls, path: str | Path) -> "GameRecord":
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise RecordError(f"{path}: no such game record") from None
        except UnicodeDecodeError as exc:
            raise RecordError(f"{path}: not a text file ({exc.reason})") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
        return cls.from_dict(data, str(path))


def replay(record: GameRecord, engine=None) -> Iterator[tuple[Any, Any, int | None]]:
    """Yield ``(engine, state, next_action)`` for every decision of the record, then the final state
    with ``None``. Raises :class:`RecordError` naming the first action that is illegal where it stands,
    or a final state that differs from the recorded one."""
    from .. import registry

    if engine is None:
        try:
            engine = registry.make_engine(record.env)
        except KeyError as exc:
            raise RecordError(f"record is for env {record.env!r}, which this version does not have") from exc
    elif engine.name != record.env:
        raise RecordError(f"record is for env {record.env!r}, not {engine.name!r}")
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
    yield engine, state, None


def replay_final(record: GameRecord, engine=None):
    """Replay a whole record and return ``(engine, final_state)``."""
    last = None
    for last in replay(record, engine):
        pass
    return last[0], last[1]
