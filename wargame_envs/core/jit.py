"""Compiling the rules: every battle's rules, masks and observations are numba kernels over the state buffer.

:func:`kernel` compiles a function with numba (a dependency of the package) in nopython mode and caches the
machine code on disk, so a process pays the compilation once per machine (a cold cache costs a minute or two
per battle, a warm one a second or two). Where numba is missing, or disabled with ``NUMBA_DISABLE_JIT=1``,
the same source runs as plain Python, for debugging and coverage: results never depend on numba, only speed
does (``tests/test_kernels.py`` plays every battle both ways and compares). A kernel takes numpy arrays,
records and numbers only. :func:`drop_stale_cache` runs once per process and clears the cache after any edit
of the sources (numba alone would miss an edit to a rule in another file than the kernel that calls it).
"""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path
from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)

try:
    from numba import njit as _njit
except ImportError:  # pragma: no cover - numba is a dependency; this keeps odd platforms working
    _njit = None

COMPILED = _njit is not None


_STAMPS = "wargame_kernels.json"


def _groups(root: Path) -> dict[str, list[Path]]:
    """Source folders whose kernels call one another: ``core`` (used by all), each battle, and ``agents``."""
    pkg = root / "wargame_envs"
    groups = {"core": [pkg / "core"], "agents": [root / "agents"]}
    for d in sorted(pkg.iterdir()):
        if d.is_dir() and (d / "__init__.py").is_file() and d.name != "core":
            groups[d.name] = [d]
    return {k: [p for p in v if p.is_dir()] for k, v in groups.items()}


def _stamp(folders: list[Path]) -> str:
    h = hashlib.sha1()
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            st = path.stat()
            h.update(f"{path}:{st.st_mtime_ns}:{st.st_size}\n".encode())
    return h.hexdigest()


def drop_stale_cache(root: Path | None = None) -> list[str]:
    """Delete the on-disk compiled code of the kernels whose sources, or whose callees' sources, changed.

    Numba keys a cached kernel on its own file only, so a kernel that calls a rule in another file would
    keep running the old rule after that file is edited. Here one stamp per group of sources (``core``,
    each battle, ``agents``; paths, sizes and modification times) decides: an edit in a battle clears that
    battle's and the agents' compiled code, an edit in ``core`` clears everything. Returns the groups
    cleared. Read-only installs and ``NUMBA_CACHE_DIR`` caches are left alone."""
    import json

    if os.environ.get("NUMBA_CACHE_DIR"):
        return []
    root = Path(__file__).resolve().parents[2] if root is None else root
    groups = _groups(root)
    stamps = {name: _stamp(folders) for name, folders in groups.items()}
    record = root / "wargame_envs" / "__pycache__" / _STAMPS
    try:
        old = json.loads(record.read_text()) if record.is_file() else {}
    except (OSError, ValueError):
        old = {}
    changed = {name for name in stamps if old.get(name) != stamps[name]}
    if not changed:
        return []
    clear = set(groups) if "core" in changed else changed | ({"agents"} if changed - {"agents"} else set())
    try:
        for name in clear:
            for folder in groups[name]:
                for f in [*folder.rglob("*.nbi"), *folder.rglob("*.nbc")]:
                    f.unlink(missing_ok=True)
        record.parent.mkdir(parents=True, exist_ok=True)
        tmp = record.with_name(f"{_STAMPS}.{os.getpid()}")
        tmp.write_text(json.dumps(stamps))
        os.replace(tmp, record)
    except OSError:  # a read-only install: its cache (if any) came with it
        return []
    return sorted(clear)


if COMPILED and os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0"):
    drop_stale_cache()


def kernel(fn: F) -> F:
    """``fn`` compiled (numba ``njit``, cached on disk), or ``fn`` itself without numba."""
    if _njit is None:
        return fn
    return _njit(cache=True, nogil=True)(fn)


if not COMPILED:  # pragma: no cover
    warnings.warn("numba is not installed: wargame_envs kernels run as plain Python (correct, but slow); "
                  "pip install numba", RuntimeWarning, stacklevel=2)
