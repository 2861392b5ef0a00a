"""Loading scenario data files (TOML) with validation errors that name file, field and value.

Every number a user might want to change lives in a battle's ``data/*.toml``. Each table (or each
row of an array of tables) carries a ``source`` field with its provenance tag:

* ``RULEBOOK``: stated in the rulebook text;
* ``DERIVED``: forced by a worked example of the rulebook;
* ``PROPOSED``: a reconstruction (the printed chart is not available);
* ``SOURCED``: from a public summary of the original game.

A source may add detail after the tag (``"DERIVED: example of two throws"``).
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

from .errors import ScenarioError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

T = TypeVar("T")
PROVENANCE_TAGS = ("RULEBOOK", "DERIVED", "PROPOSED", "SOURCED")
_MISSING = object()


def check_data_dir(data_dir: Any) -> None:
    """Refuse a ``data_dir`` argument that is neither ``None`` (the package data) nor a path."""
    if data_dir is not None and not isinstance(data_dir, (str, os.PathLike)):
        raise TypeError(f"data_dir = {data_dir!r}: expected a str or os.PathLike path to a data folder")


def load_cached(cache: dict, data_dir: str | Path | None, default_dir: Path, load: Callable[[Path], T]) -> T:
    """``load(folder)`` of the data folder ``data_dir`` (default ``default_dir``), cached per folder in ``cache``.
    The cache is keyed on the folder and on the names and contents (a hash) of its ``*.toml`` files, so an edited
    data file is read and validated again by the next engine built from it: modification times alone could miss
    an edit made within the same clock tick as the previous load."""
    d = Path(data_dir) if data_dir is not None else default_dir
    key, stamp = str(d.resolve()), _toml_digest(d)
    hit = cache.get(key)
    if hit is None or hit[0] != stamp:
        hit = cache[key] = (stamp, load(d))
    return hit[1]


def _toml_digest(folder: Path) -> str | None:
    """A hash of the names and bytes of the ``*.toml`` files in ``folder`` (a few kB each); ``None`` when they
    cannot be read (then ``load`` reports why)."""
    digest = hashlib.sha256()
    try:
        for path in sorted(folder.glob("*.toml")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    except OSError:
        return None
    return digest.hexdigest()


def load_toml(path: str | Path) -> "DataNode":
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ScenarioError(f"{path}: data file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML: not UTF-8 text ({exc})") from None
    except RecursionError:
        raise ScenarioError(f"{path}: not valid TOML: nested too deeply") from None
    except OSError as exc:  # a folder, a path through a file, no permission...
        raise ScenarioError(f"{path}: cannot read the data file: {exc.strerror or exc}") from None
    return DataNode(str(path), "", data)


class DataNode:
    """A table inside a data file; every accessor validates and names ``file: field`` on error."""

    def __init__(self, file: str, path: str, value: Any):
        self.file, self.path, self.value = file, path, value
        if not isinstance(value, dict):
            self._fail("", value, "expected a table")

    def _where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path and key else (self.path or key or "<top>")

    def _fail(self, key: str, value: Any, why: str):
        raise ScenarioError(f"{self.file}: field '{self._where(key)}' = {value!r}: {why}")

    def fail(self, key: str, why: str):
        """Raise a ScenarioError about ``key`` of this table (for cross-field checks)."""
        self._fail(key, self.value.get(key, "<missing>"), why)

    def has(self, key: str) -> bool:
        return key in self.value

    def keys(self) -> list[str]:
        return list(self.value.keys())

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = _MISSING, *,
            choices: Iterable[Any] | None = None, min: float | None = None, max: float | None = None) -> Any:
        if key not in self.value:
            if default is _MISSING:
                raise ScenarioError(f"{self.file}: field '{self._where(key)}' is missing")
            return default
        v = self.value[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(v, bool) and bool not in kinds:
            self._fail(key, v, f"expected {'/'.join(k.__name__ for k in kinds)}")
        if not isinstance(v, kinds):
            self._fail(key, v, f"expected {'/'.join(k.__name__ for k in kinds)}")
        if choices is not None:
            choices = list(choices)
            if v not in choices:
                self._fail(key, v, f"expected one of {choices}")
        if min is not None and v < min:
            self._fail(key, v, f"must be >= {min}")
        if max is not None and v > max:
            self._fail(key, v, f"must be <= {max}")
        return v

    def get_list(self, key: str, item: type, default: Any = _MISSING, *, choices: Iterable[Any] | None = None) -> list:
        v = self.get(key, list, default)
        allowed = list(choices) if choices is not None else None
        for i, x in enumerate(v):
            if not isinstance(x, item) or isinstance(x, bool) and item is not bool:
                self._fail(f"{key}[{i}]", x, f"expected {item.__name__}")
            if allowed is not None and x not in allowed:
                self._fail(f"{key}[{i}]", x, f"expected one of {allowed}")
        return v

    def table(self, key: str) -> "DataNode":
        return DataNode(self.file, self._where(key), self.get(key, dict))

    def rows(self, key: str) -> list["DataNode"]:
        """An array of tables (``[[key]]``)."""
        v = self.get(key, list)
        return [DataNode(self.file, f"{self._where(key)}[{i}]", row) for i, row in enumerate(v)]

    def source(self) -> str:
        """The provenance tag of this table (validated)."""
        src = self.get("source", str)
        if re.match(r"[A-Z]*", src.strip()).group(0) not in PROVENANCE_TAGS:
            self._fail("source", src, f"provenance must start with one of {PROVENANCE_TAGS}")
        return src
