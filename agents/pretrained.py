"""Shipped opponents: the best trained policy of each battle, as agent spec ``pretrained``.

A pretrained policy is two files in ``agents/pretrained/`` (or any folder given as ``directory``):

* ``<battle>.npz``: the actor's weights (float16 matrices and biases, ``0.weight``, ``0.bias``,
  ``1.weight``, ...), read with ``numpy.load(allow_pickle=False)``: weights only, nothing is unpickled
  and no torch is needed;
* ``<battle>.json``: what it is (``format``, ``env``, ``obs_size``, ``obs_layout`` digest,
  ``num_actions``, ``activation``, ``hint``: the heuristic advice its input carries, :mod:`agents.hint`), the SHA-256 of the ``.npz`` file, how it was trained and its
  evaluation report (the command that reproduces it, win rates with Wilson intervals).

Loading checks everything before the policy plays: the digest (a tampered or truncated file is
refused), the observation layout and action count against the installed engine, the shapes of the
layer chain and that every weight is finite. Any failure is a :class:`PretrainedError` that names the
file and what is wrong. ``python -m training.export`` writes these files from a training checkpoint.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from agents.hint import HINTS, has_prior, input_size, make_observer
from agents.mlp import ACTIVATIONS, MlpActor
from wargame_envs.core.files import atomic_write
from wargame_envs.core.errors import WargameError

FORMAT = "wargame-envs-pretrained/1"
DEFAULT_DIR = Path(__file__).resolve().parent / "pretrained"
MAX_META_BYTES = 1 << 20
MAX_WEIGHT_BYTES = 64 << 20


class PretrainedError(WargameError, ValueError):
    """A missing, corrupt, tampered or mismatched pretrained policy file."""


def files_of(battle_env: str, directory: str | Path | None = None) -> tuple[Path, Path]:
    """The ``(.npz, .json)`` paths of a battle's pretrained policy (``battle_env``: ``berestechko_v0``)."""
    base = Path(directory) if directory is not None else DEFAULT_DIR
    stem = battle_env.rsplit("_v", 1)[0]
    return base / f"{stem}.npz", base / f"{stem}.json"


def available(directory: str | Path | None = None) -> list[str]:
    """Battles (short names) with a pretrained policy in ``directory``."""
    base = Path(directory) if directory is not None else DEFAULT_DIR
    return sorted(p.stem for p in base.glob("*.json") if p.with_suffix(".npz").is_file())


def write(actor: MlpActor, meta: dict[str, Any], directory: str | Path) -> tuple[Path, Path]:
    """Writes ``actor`` and ``meta`` (which must name ``env``, ``obs_size``, ``obs_layout`` and
    ``num_actions``) as a pretrained policy; returns the two paths."""
    npz_path, json_path = files_of(meta["env"], directory)
    npz_path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez_compressed(buf, **{k: np.asarray(v, np.float16) for k, v in actor.arrays().items()})
    data = buf.getvalue()
    full = {"format": FORMAT, **meta, "activation": actor.activation,
            "layers": [list(w.shape) for w, _ in actor.layers], "sha256": hashlib.sha256(data).hexdigest()}
    atomic_write(npz_path, data)   # each file whole or not at all; the sidecar, which names the hash, last
    atomic_write(json_path, (json.dumps(full, indent=1) + "\n").encode("utf-8"))
    return npz_path, json_path


def load(engine, directory: str | Path | None = None) -> tuple[MlpActor, dict[str, Any]]:
    """The verified actor and metadata of ``engine``'s battle."""
    npz_path, json_path = files_of(engine.name, directory)
    if not json_path.is_file() or not npz_path.is_file():
        raise PretrainedError(f"no pretrained policy for {engine.name}: file not found: "
                              f"{json_path if not json_path.is_file() else npz_path}")
    meta = _read_meta(json_path)
    expected = {"format": FORMAT, "env": engine.name, "obs_size": engine.obs_layout.size,
                "obs_layout": engine.obs_layout.digest(), "num_actions": engine.num_actions}
    for key, want in expected.items():
        if meta.get(key) != want:
            raise PretrainedError(f"{json_path}: field '{key}' = {meta.get(key)!r}, but the installed "
                                  f"{engine.name} needs {want!r} (retrain or re-export the policy)")
    if not isinstance(meta.get("hint", ""), str) or meta.get("hint", "") not in HINTS:
        raise PretrainedError(f"{json_path}: field 'hint' = {meta.get('hint')!r}: expected one of {list(HINTS)}")
    if not isinstance(meta.get("activation"), str) or meta["activation"] not in ACTIVATIONS:
        raise PretrainedError(f"{json_path}: field 'activation' = {meta.get('activation')!r}: expected one of "
                              f"{sorted(ACTIVATIONS)}")
    data = npz_path.read_bytes() if npz_path.stat().st_size <= MAX_WEIGHT_BYTES else None
    if data is None:
        raise PretrainedError(f"{npz_path}: larger than {MAX_WEIGHT_BYTES} bytes")
    if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
        raise PretrainedError(f"{npz_path}: SHA-256 does not match {json_path.name} (the file was changed or "
                              "is truncated)")
    return _read_actor(data, meta, npz_path, engine), meta


def _read_meta(path: Path) -> dict[str, Any]:
    if path.stat().st_size > MAX_META_BYTES:
        raise PretrainedError(f"{path}: larger than {MAX_META_BYTES} bytes")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise PretrainedError(f"{path}: not valid JSON ({exc.__class__.__name__})") from None
    if not isinstance(meta, dict):
        raise PretrainedError(f"{path}: expected a JSON object, got {type(meta).__name__}")
    return meta


def _read_actor(data: bytes, meta: dict[str, Any], path: Path, engine) -> MlpActor:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        raise PretrainedError(f"{path}: not a weights-only .npz file ({exc})") from None
    n = len(arrays) // 2
    names = {f"{i}.{part}" for i in range(n) for part in ("weight", "bias")}
    if n == 0 or set(arrays) != names:
        raise PretrainedError(f"{path}: expected arrays {sorted(names) or ['0.weight', '0.bias']}, got {sorted(arrays)}")
    width = input_size(engine.obs_layout.size, engine.num_actions, meta.get("hint", ""))
    for i in range(n):
        w, b = arrays[f"{i}.weight"], arrays[f"{i}.bias"]
        out = engine.num_actions if i == n - 1 else None
        if w.ndim != 2 or b.ndim != 1 or w.shape[0] != width or w.shape[1] != b.shape[0] or \
                (out is not None and w.shape[1] != out) or w.dtype.kind != "f" or b.dtype.kind != "f":
            raise PretrainedError(f"{path}: layer {i} has shapes {w.shape} / {b.shape} ({w.dtype}); expected "
                                  f"({width}, {out if out is not None else 'k'}) float weights and a matching bias")
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise PretrainedError(f"{path}: layer {i} holds non-finite weights")
        width = w.shape[1]
    return MlpActor.from_arrays(arrays, meta["activation"], has_prior(meta.get("hint", "")))


class PretrainedAgent:
    """Plays the shipped policy of its battle: the most likely legal action (``deterministic``) or a
    sample from the masked policy. The files are read and verified on the first move (the battle's
    engine is needed to check them) or by :meth:`load`."""

    def __init__(self, battle: str, seed: int | None = None, deterministic: bool = True,
                 directory: str | Path | None = None):
        self.battle, self.deterministic, self.directory = battle, bool(deterministic), directory
        self.name = f"pretrained:{battle}"
        self.actor: MlpActor | None = None
        self.meta: dict[str, Any] = {}
        self._engine_name = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        if self.actor is not None:
            self.observer.reset(None if seed is None else seed + 1)

    def load(self, engine) -> "PretrainedAgent":
        self.actor, self.meta = load(engine, self.directory)
        self.observer = make_observer(self.meta.get("hint", ""), self.battle, None if self._seed is None else self._seed + 1)
        self._engine_name = engine.name
        return self

    def act(self, engine, state, player: int, mask: np.ndarray) -> int:
        if self._engine_name != engine.name:
            self.load(engine)
        mask = np.asarray(mask, bool)
        return self.actor.act(self.observer.observe(engine, state, player, mask), mask, self.deterministic, self._rng)
