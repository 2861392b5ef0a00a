"""Compiled kernels for the hot loops over every piece or hex that Python runs slowly: drawing the
pieces onto observation planes, and in Breitenfeld the movement search, artillery line of sight and the
leaders caught in a zone of control.

:func:`kernel` compiles a function with numba (a dependency of the package) and caches the machine code
next to the source, so a process pays the compilation once per kernel and machine (about a second).
Where numba is missing, or disabled with ``NUMBA_DISABLE_JIT=1``, the same source runs as plain
Python: results never depend on numba, only speed does (``tests/test_kernels.py`` plays every battle
both ways and compares). A kernel takes numpy arrays and numbers only; the rules around it stay in
Python.
"""

from __future__ import annotations

import warnings
from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)

try:
    from numba import njit as _njit
except ImportError:  # pragma: no cover - numba is a dependency; this keeps odd platforms working
    _njit = None

COMPILED = _njit is not None


def kernel(fn: F) -> F:
    """``fn`` compiled (numba ``njit``, cached on disk), or ``fn`` itself without numba."""
    if _njit is None:
        return fn
    return _njit(cache=True, nogil=True)(fn)


if not COMPILED:  # pragma: no cover
    warnings.warn("numba is not installed: wargame_envs kernels run as plain Python (correct, but slow); "
                  "pip install numba", RuntimeWarning, stacklevel=2)
