"""Checking the ``reset(options=...)`` of any battle: one rule for every env.

Each battle declares its options as a table ``name -> Option``. :func:`check_options` refuses a value of
the wrong type with a :class:`ScenarioError` that names the option and the value (a bool given as the
string ``'false'`` is refused, not read as true), and warns once about names it does not know: PettingZoo's
``api_test`` passes a dummy option, so unknown names are ignored with a warning in every battle alike.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .errors import ScenarioError


@dataclass(frozen=True)
class Option:
    """One reset option: its expected ``kind`` and default.

    ``kind`` is ``bool``, ``int`` (a non-bool integer within ``low``..``high`` when given), ``str`` (one of
    ``choices`` when given) or ``object`` (anything; the battle checks it itself, e.g. ``position``).
    """

    kind: type
    default: Any = None
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] | None = None
    check: Callable[[Any], str | None] | None = None  # extra check: returns why the value is wrong, or None

    def describe(self) -> str:
        if self.kind is bool:
            return "a bool (True or False)"
        if self.kind is int:
            bounds = ("" if self.low is None else f" >= {self.low}") + ("" if self.high is None else f" <= {self.high}")
            return f"an integer{bounds}"
        if self.kind is str and self.choices:
            return f"one of {list(self.choices)}"
        return f"a {self.kind.__name__}"

    def validate(self, name: str, value: Any) -> Any:
        ok = True
        if self.kind is bool:
            ok = isinstance(value, (bool, np.bool_))
            value = bool(value) if ok else value
        elif self.kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
            if isinstance(value, np.integer):
                value, ok = int(value), True
            ok = ok and (self.low is None or value >= self.low) and (self.high is None or value <= self.high)
        elif self.kind is str:
            ok = isinstance(value, str) and (not self.choices or value in self.choices)
        elif self.kind is not object:
            ok = isinstance(value, self.kind)
        if not ok:
            raise ScenarioError(f"options: field '{name}' = {value!r}: expected {self.describe()}")
        if self.check is not None:
            why = self.check(value)
            if why:
                raise ScenarioError(f"options: field '{name}' = {value!r}: {why}")
        return value


def check_options(battle: str, options: dict[str, Any] | None, table: dict[str, Option]) -> dict[str, Any]:
    """``options`` checked against ``table``: every known option with its value or default.

    Options whose value is ``None`` take their default. Unknown names are dropped with a warning naming
    them and the known ones.
    """
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ScenarioError(f"options: expected a dict of option name -> value, got {type(options).__name__}")
    unknown = sorted(str(k) for k in options if k not in table)
    if unknown:
        warnings.warn(f"ignoring unknown {battle} option(s) {unknown}; known: {sorted(table)}", stacklevel=4)
    out = {}
    for name, spec in table.items():
        value = options.get(name)
        out[name] = spec.default if value is None else spec.validate(name, value)
    return out
