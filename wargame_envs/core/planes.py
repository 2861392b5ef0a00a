"""Observation planes kept up to date incrementally, one buffer per observer.

Rebuilding every plane of a large map each step costs more than the rules themselves, yet one
decision moves, faces or marks only a few pieces. A :class:`PlaneBuffer` holds one observer's planes
and is brought up to date from the state it is handed:

* **entity groups** (:meth:`PlaneBuffer.sync`): every entity (unit, leader, gun...) is described by a
  row of small integers (its *key*: hex, status, facing, relevant flags...). ``contribute(entity,
  key)`` lists the ``(flat index, value)`` pairs that entity sets. ``sync`` compares the keys with those
  of the previous call and re-contributes only the entities whose key changed. Each index shows the
  largest value contributed there, 0 when none, so stacked pieces and overlapping zones of control
  combine as a maximum (a 0/1 plane is an "or").
  :meth:`PlaneBuffer.sync_exclusive` is the cheaper form for 0/1 marks no two entities share (one unit
  per hex: its type, facing, status).
* **layers** (:meth:`PlaneBuffer.layer`): a set of indices written whole each time (legal hexes of
  the pending decision, the selected piece). A layer owns its indices: nothing else may write them.
* **sections** (:meth:`PlaneBuffer.section`): a slice rewritten only when its key changes (features
  that follow slowly changing arrays); :meth:`PlaneBuffer.changed` is the same gate for any work.

Correctness does not depend on which state was observed before (a search agent may observe unrelated
states in turn): the diff is against the keys last seen, whatever state they came from. Each battle
keeps a from-scratch reference observation, and the tests compare the two at every step of random games.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

import numpy as np

Contribution = Iterable[tuple[int, float]]

# Above this many touched indices one fancy assignment beats per-item writes.
_SCATTER_MIN = 24


class PlaneBuffer:
    def __init__(self, size: int, static: Sequence[tuple[slice, np.ndarray]] = ()):
        """``static``: ``(slice, values)`` pairs written once (terrain); entities and layers must not
        touch those indices."""
        self.buf = np.zeros(size, dtype=np.float32)
        for where, values in static:
            self.buf[where] = values
        self._values: dict[int, list[float]] = {}           # index -> values contributed there
        self._groups: dict[str, tuple[np.ndarray, bytes, list]] = {}  # name -> (keys, their bytes, contributions)
        self._layers: dict[str, np.ndarray] = {}
        self._sections: dict[str, object] = {}

    # ------------------------------------------------------------------ entity groups
    def sync(self, group: str, keys: np.ndarray, n: int, contribute: Callable[[int, list[int]], Contribution]) -> None:
        """Bring ``group`` (``n`` entities) up to date.

        ``keys`` is a fresh 1-D integer array of ``k`` columns of ``n`` values each (e.g.
        ``np.concatenate((hex, status, facing))``; it is kept until the next call), so entity ``e``'s
        key is ``keys[e::n]``; ``contribute(e, key_row)`` gives entity ``e``'s ``(index, value)`` pairs,
        each index at most once.
        """
        diff = self._diff(group, keys, n)
        if diff is None:
            return
        raw, old, changed, stale = diff
        touched = self._retract([pair for pairs in stale for pair in pairs])
        values = self._values
        for e in changed:
            was = old[e]
            pairs = old[e] = tuple(contribute(e, keys[e::n].tolist()))
            if was:  # only the pairs that differ are retracted and added
                kept = set(was).intersection(pairs)
                if kept:
                    was = [pair for pair in was if pair not in kept]
                    pairs = [pair for pair in pairs if pair not in kept]
                touched |= self._retract(was)
            for i, v in pairs:
                lst = values.get(i)
                if lst is None:
                    values[i] = [v]
                else:
                    lst.append(v)
                touched.add(i)
        self._groups[group] = (keys, raw, old)
        self._write(touched)

    def sync_exclusive(self, group: str, keys: np.ndarray, n: int, indices: Callable[[int, list[int]], list[int]]) -> None:
        """:meth:`sync` for 0/1 marks that no two entities share (one unit per hex: its type, facing,
        status...): ``indices(e, key_row)`` lists the indices entity ``e`` sets to 1, which no other
        entity, group or layer writes. Changed entities are cleared and redrawn with two scatters."""
        diff = self._diff(group, keys, n)
        if diff is None:
            return
        raw, old, changed, stale = diff
        off = [i for entry in stale for i in entry]
        on = []
        for e in changed:
            off += old[e]
            mine = old[e] = tuple(indices(e, keys[e::n].tolist()))
            on += mine
        self.buf[off] = 0.0
        self.buf[on] = 1.0
        self._groups[group] = (keys, raw, old)

    def _diff(self, group: str, keys: np.ndarray, n: int):
        """``None`` when ``group``'s keys are unchanged; else ``(key bytes, per-entity entries, entities
        to redraw, stale entries to clear first)``. The first call, or a call with another entity
        count, redraws everything: the entries start empty and the old ones are all stale."""
        prev = self._groups.get(group)
        raw = keys.tobytes()
        if prev is not None and prev[0].shape == keys.shape:
            prev_keys, prev_raw, old = prev
            if raw == prev_raw:
                return None
            return raw, old, sorted({i % n for i in (keys != prev_keys).nonzero()[0].tolist()}), []
        return raw, [()] * n, list(range(n)), (prev[2] if prev is not None else [])

    def _retract(self, pairs: list[tuple[int, float]]) -> set[int]:
        values = self._values
        touched = set()
        for i, v in pairs:
            lst = values[i]
            lst.remove(v)
            if not lst:
                del values[i]
            touched.add(i)
        return touched

    def _write(self, touched: set[int]) -> None:
        values, buf = self._values, self.buf
        if len(touched) < _SCATTER_MIN:
            for i in touched:
                lst = values.get(i)
                buf[i] = max(lst) if lst else 0.0
            return
        idx = list(touched)
        buf[idx] = [max(values[i]) if i in values else 0.0 for i in idx]

    # ------------------------------------------------------------------------ layers
    def layer(self, name: str, indices: np.ndarray | list[int], value: float = 1.0) -> None:
        """Replace layer ``name`` by ``value`` at ``indices``: an int array (unchanged when it is the
        very array of the previous call, so callers may cache it) or a list (unchanged when equal)."""
        old = self._layers.get(name)
        if old is not None:
            if old is indices or (type(indices) is list and type(old) is list and old == indices):
                return
            self.buf[old] = 0.0
        self.buf[indices] = value
        self._layers[name] = indices

    def section(self, name: str, key, where: slice, values: Callable[[], Sequence[float]]) -> None:
        """Write ``values()`` into ``buf[where]`` unless ``key`` equals the key of the previous call for
        ``name`` (a block of features that changes rarely, e.g. derived from the leaders' arrays)."""
        if self.changed(name, key):
            self.buf[where] = values()

    def changed(self, name: str, key) -> bool:
        """Whether ``key`` differs from the one recorded under ``name`` by the previous call (and record
        it): a cheap gate in front of a group whose keys are costlier to build."""
        if self._sections.get(name) == key:
            return False
        self._sections[name] = key
        return True

    def copy(self) -> np.ndarray:
        return self.buf.copy()


def plane_buffers(owner, n_players: int, make: Callable[[], PlaneBuffer]) -> list[PlaneBuffer]:
    """The per-observer buffers cached on ``owner`` (an engine), created on first use."""
    bufs = owner.__dict__.get("_plane_buffers")
    if bufs is None:
        bufs = owner._plane_buffers = [make() for _ in range(n_players)]
    return bufs
