"""Policy checkpoints that load without unpickling anything.

A checkpoint is two files side by side:

* ``<name>.zip`` with exactly these members:

  ===================  =====================================================================
  ``meta.json``        what the checkpoint is (same content as the sidecar, less the hash)
  ``policy.pt``        the policy ``state_dict`` (``torch.save`` of a dict of tensors)
  ``optimizer.pt``     the Adam ``state_dict`` (tensors and numbers), for resuming
  ``pool.pt``          the opponent pool's snapshots: ``"<name>/<layer>.weight"`` -> tensor
  ===================  =====================================================================

* ``<name>.json``, the sidecar: format and version, battle and env name, observation size,
  layout digest (:func:`layout_digest`) and action count, architecture (``net_arch``, ``activation``), timesteps, the training arguments,
  the opponent pool's statistics, library versions and the zip's SHA-256.

Why not ``MaskablePPO.save``/``load``: SB3 stores parts of the model (``data``: spaces, schedules,
policy class...) as cloudpickle inside the zip and ``load`` unpickles them, so loading a file from
elsewhere runs whatever code it carries. Here the loader

1. reads and validates the JSON sidecar (format, version, battle, sizes, architecture),
2. checks the zip's hash against the sidecar (catches truncation, corruption and a zip/sidecar
   pair that do not belong together), its CRCs and its member list, and that the copy of the
   metadata inside the zip agrees with the sidecar,
3. reads each ``.pt`` member with ``torch.load(..., weights_only=True)`` (PyTorch's restricted
   unpickler: tensors, numbers, strings and containers only; anything else is refused),
4. rebuilds the policy from the sidecar's architecture and loads the weights with
   ``strict=True``.

Every failure raises :class:`CheckpointError` naming the file and what is wrong. Writes are atomic
(temp file in the same folder + ``os.replace``): the zip first, then the sidecar; a crash between
the two leaves a pair whose hash does not match, which the loader reports.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import platform
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from wargame_envs.core.errors import WargameError
from wargame_envs.core.files import atomic_write

FORMAT = "wargame-envs-policy"
FORMAT_VERSION = 1
MEMBERS = ("meta.json", "policy.pt", "optimizer.pt", "pool.pt")
MAX_MEMBER_BYTES = 1 << 30
REQUIRED_META = {"format": str, "format_version": int, "battle": str, "env": str, "obs_size": int,
                 "num_actions": int, "net_arch": dict, "activation": str, "timesteps": int, "args": dict,
                 "pool": list, "versions": dict}


class CheckpointError(WargameError, ValueError):
    """A checkpoint that is missing, corrupt, truncated, foreign or for another environment."""


@dataclass
class Checkpoint:
    """A verified checkpoint: its metadata and tensors (nothing unpickled beyond tensors)."""

    path: Path
    meta: dict[str, Any]
    policy_state: dict[str, torch.Tensor]
    optimizer_state: dict[str, Any]
    pool_arrays: dict[str, torch.Tensor]


def layout_digest(engine) -> str:
    """The engine's observation layout digest (``ObservationLayout.digest``)."""
    return engine.obs_layout.digest()


def sidecar_path(path: str | os.PathLike) -> Path:
    return Path(path).with_suffix(".json")


def library_versions() -> dict[str, str]:
    import sb3_contrib
    import stable_baselines3

    return {"torch": torch.__version__, "stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__, "numpy": np.__version__, "python": platform.python_version()}


# --------------------------------------------------------------------------- policy architecture

def activation_class(name: str):
    classes = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
    if name not in classes:
        raise ValueError(f"activation {name!r} not in {sorted(classes)}")
    return classes[name]


def policy_kwargs(net_arch: dict[str, list[int]], activation: str) -> dict[str, Any]:
    """The ``policy_kwargs`` of ``MaskablePPO`` for this architecture (the trainer uses the same)."""
    return {"net_arch": {"pi": list(net_arch["pi"]), "vf": list(net_arch["vf"])},
            "activation_fn": activation_class(activation)}


def build_policy(meta: dict[str, Any], device: str = "cpu"):
    """A fresh ``MaskableActorCriticPolicy`` with the checkpoint's spaces and architecture."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents.hint import input_size

    width = input_size(meta["obs_size"], meta["num_actions"], meta.get("hint", ""))
    obs_space = spaces.Box(0.0, 1.0, (width,), np.float32)
    policy = MaskableActorCriticPolicy(obs_space, spaces.Discrete(meta["num_actions"]), lambda _: 0.0,
                                       **policy_kwargs(meta["net_arch"], meta["activation"]))
    return policy.to(device)


# --------------------------------------------------------------------------- saving

def save_checkpoint(path: str | os.PathLike, meta: dict[str, Any], policy_state: dict[str, torch.Tensor],
                    optimizer_state: dict[str, Any] | None = None,
                    pool_arrays: dict[str, Any] | None = None) -> Path:
    """Writes ``path`` (zip) and its sidecar atomically; returns the zip path.

    ``meta`` must hold the fields of ``REQUIRED_META`` other than ``format``, ``format_version``
    and ``versions``, which are filled in here.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {**meta, "format": FORMAT, "format_version": FORMAT_VERSION, "versions": library_versions(),
            "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    _check_meta(meta, path)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("meta.json", json.dumps(meta, indent=1, sort_keys=True))
        z.writestr("policy.pt", _tensor_bytes({k: v.detach().cpu() for k, v in policy_state.items()}))
        z.writestr("optimizer.pt", _tensor_bytes(optimizer_state or {}))
        z.writestr("pool.pt", _tensor_bytes({k: torch.as_tensor(np.asarray(v)) for k, v in (pool_arrays or {}).items()}))
    data = buf.getvalue()
    atomic_write(path, data)
    sidecar = {**meta, "zip_sha256": hashlib.sha256(data).hexdigest()}
    atomic_write(sidecar_path(path), json.dumps(sidecar, indent=1, sort_keys=True).encode())
    return path


def _tensor_bytes(obj) -> bytes:
    b = io.BytesIO()
    torch.save(obj, b)
    return b.getvalue()


# --------------------------------------------------------------------------- loading

def read_meta(path: str | os.PathLike) -> dict[str, Any]:
    """The validated sidecar of checkpoint ``path`` (no zip read)."""
    path = Path(path)
    side = sidecar_path(path)
    if side == path:  # the .json beside the .zip given for the checkpoint itself
        zip_path = path.with_suffix(".zip")
        there = "" if zip_path.is_file() else ", which is not there"
        raise CheckpointError(f"{path} is a checkpoint's sidecar (its metadata); give the checkpoint's .zip "
                              f"({zip_path}{there})")
    if not path.is_file():
        raise CheckpointError(f"{path}: checkpoint file not found")
    if not side.is_file():
        raise CheckpointError(f"{path}: no sidecar {side.name} next to it (not a wargame-envs checkpoint, "
                              f"or an incomplete save)")
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{path}: sidecar {side.name} is not valid JSON ({e})") from None
    if not isinstance(meta, dict):
        raise CheckpointError(f"{path}: sidecar {side.name} holds a {type(meta).__name__}, not an object")
    _check_meta(meta, path)
    if not isinstance(meta.get("zip_sha256"), str):
        raise CheckpointError(f"{path}: sidecar {side.name} has no zip_sha256")
    return meta


def _check_meta(meta: dict[str, Any], path: Path) -> None:
    for key, typ in REQUIRED_META.items():
        if key not in meta:
            raise CheckpointError(f"{path}: metadata lacks {key!r}")
        if not isinstance(meta[key], typ) or (typ is int and isinstance(meta[key], bool)):
            raise CheckpointError(f"{path}: metadata field {key!r} is {meta[key]!r}, expected {typ.__name__}")
    if meta["format"] != FORMAT:
        raise CheckpointError(f"{path}: format {meta['format']!r} is not {FORMAT!r}")
    if meta["format_version"] != FORMAT_VERSION:
        raise CheckpointError(f"{path}: format version {meta['format_version']} (this code reads {FORMAT_VERSION})")
    from wargame_envs.registry import resolve

    try:
        battle_env = resolve(meta["battle"])
    except KeyError:
        battle_env = None
    if battle_env != meta["env"]:  # the agent builds its observer from "battle", the engine check reads "env"
        raise CheckpointError(f"{path}: metadata field 'battle' = {meta['battle']!r} does not name the battle of "
                              f"field 'env' = {meta['env']!r}")
    arch = meta["net_arch"]
    if set(arch) != {"pi", "vf"} or not all(
            isinstance(v, list) and all(isinstance(n, int) and n > 0 for n in v) for v in arch.values()):
        raise CheckpointError(f"{path}: net_arch {arch!r} is not {{'pi': [ints], 'vf': [ints]}}")
    try:
        activation_class(meta["activation"])
    except ValueError as e:
        raise CheckpointError(f"{path}: {e}") from None
    from agents.hint import HINTS

    if meta.get("hint", "") not in HINTS:  # absent in checkpoints from before hints: no hint
        raise CheckpointError(f"{path}: metadata field 'hint' is {meta['hint']!r}, expected one of {list(HINTS)}")


def load_checkpoint(path: str | os.PathLike, battle: str | None = None, engine=None,
                    device: str = "cpu") -> Checkpoint:
    """Verifies and reads checkpoint ``path``.

    With ``battle`` (a name) the checkpoint must be for that battle; with ``engine`` its
    observation size and action count must match the engine's.
    """
    path = Path(path)
    meta = read_meta(path)
    if battle is not None:
        from wargame_envs.registry import resolve

        if resolve(battle) != meta["env"]:
            raise CheckpointError(f"{path}: trained on {meta['env']}, not {resolve(battle)}")
    if engine is not None:
        if engine.name != meta["env"]:
            raise CheckpointError(f"{path}: trained on {meta['env']}, not {engine.name}")
        if engine.obs_layout.size != meta["obs_size"] or engine.num_actions != meta["num_actions"]:
            raise CheckpointError(
                f"{path}: observation size {meta['obs_size']} and {meta['num_actions']} actions in the checkpoint, "
                f"but {engine.name} has {engine.obs_layout.size} and {engine.num_actions} (a different version "
                f"or scenario)")
        if "obs_layout" in meta and meta["obs_layout"] != layout_digest(engine):
            raise CheckpointError(f"{path}: observation layout {meta['obs_layout']} in the checkpoint, but "
                                  f"{engine.name} now lays its observation out as {layout_digest(engine)}")
    members = _read_zip(path, meta)
    inner = _parse_json_member(members["meta.json"], path)
    if inner != {k: v for k, v in meta.items() if k != "zip_sha256"}:
        raise CheckpointError(f"{path}: meta.json inside the zip differs from the sidecar {sidecar_path(path).name}")
    policy_state = _load_tensors(members["policy.pt"], path, "policy.pt", device, tensors_only=True)
    optimizer_state = _load_tensors(members["optimizer.pt"], path, "optimizer.pt", device, tensors_only=False)
    pool_arrays = _load_tensors(members["pool.pt"], path, "pool.pt", "cpu", tensors_only=True)
    return Checkpoint(path, meta, policy_state, optimizer_state, pool_arrays)


def _read_zip(path: Path, meta: dict[str, Any]) -> dict[str, bytes]:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise CheckpointError(f"{path}: cannot be read ({e.strerror})") from None
    if hashlib.sha256(data).hexdigest() != meta["zip_sha256"]:
        raise CheckpointError(f"{path}: contents do not match the hash in {sidecar_path(path).name} "
                              f"(truncated, corrupt, or not the zip this sidecar describes)")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = z.namelist()
            if sorted(names) != sorted(MEMBERS):
                raise CheckpointError(f"{path}: zip members {sorted(names)}, expected {sorted(MEMBERS)}")
            for info in z.infolist():
                if info.file_size > MAX_MEMBER_BYTES:
                    raise CheckpointError(f"{path}: member {info.filename} is {info.file_size} bytes (too large)")
            bad = z.testzip()
            if bad is not None:
                raise CheckpointError(f"{path}: member {bad} fails its CRC check")
            return {name: z.read(name) for name in MEMBERS}
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as e:
        raise CheckpointError(f"{path}: not a valid zip ({e})") from None


def _parse_json_member(raw: bytes, path: Path) -> dict[str, Any]:
    try:
        out = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{path}: meta.json is not valid JSON ({e})") from None
    if not isinstance(out, dict):
        raise CheckpointError(f"{path}: meta.json holds a {type(out).__name__}, not an object")
    return out


def _load_tensors(raw: bytes, path: Path, member: str, device: str, tensors_only: bool):
    try:
        obj = torch.load(io.BytesIO(raw), map_location=device, weights_only=True)
    except Exception as e:  # torch raises UnpicklingError, RuntimeError, ... for refused or broken data
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CheckpointError(f"{path}: {member} cannot be read as weights only ({type(e).__name__}: {first})") from None
    if not isinstance(obj, dict) or not all(isinstance(k, str) for k in obj):
        raise CheckpointError(f"{path}: {member} is not a dict with string keys")
    if tensors_only and not all(isinstance(v, torch.Tensor) for v in obj.values()):
        raise CheckpointError(f"{path}: {member} holds values that are not tensors")
    return obj


def policy_shapes(meta: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """The tensor shapes of the state dict of :func:`build_policy` ``(meta)``, from the metadata alone."""
    from agents.hint import input_size

    width = input_size(meta["obs_size"], meta["num_actions"], meta.get("hint", ""))
    shapes = {}
    for net, arch, head, outputs in (("policy_net", "pi", "action_net", meta["num_actions"]),
                                     ("value_net", "vf", "value_net", 1)):
        fan_in = width
        for i, size in enumerate(meta["net_arch"][arch]):
            layer = f"mlp_extractor.{net}.{2 * i}"  # Linear, activation, Linear, ...
            shapes[f"{layer}.weight"], shapes[f"{layer}.bias"] = (size, fan_in), (size,)
            fan_in = size
        shapes[f"{head}.weight"], shapes[f"{head}.bias"] = (outputs, fan_in), (outputs,)
    return shapes


def _check_policy_shapes(ckpt: Checkpoint) -> None:
    """A :class:`CheckpointError` unless ``policy.pt`` holds exactly the tensors the sidecar's architecture needs
    (checked before the network is built, so a forged ``net_arch`` cannot make it allocate more than was read)."""
    expected = policy_shapes(ckpt.meta)
    found = {name: tuple(t.shape) for name, t in ckpt.policy_state.items()}
    if found == expected:
        return
    name = next(n for n in [*expected, *found] if found.get(n) != expected.get(n))  # the first layer that differs
    if name not in expected:
        problem = f"policy.pt has a tensor {name} that it has no place for"
    elif name not in found:
        problem = f"policy.pt lacks {name}"
    else:
        problem = f"{name} is {list(found[name])} in policy.pt, but it needs {list(expected[name])}"
    raise CheckpointError(f"{ckpt.path}: weights do not fit the architecture in the sidecar (net_arch "
                          f"{ckpt.meta['net_arch']}, {ckpt.meta['num_actions']} actions): {problem}")


def load_policy(path: str | os.PathLike, battle: str | None = None, engine=None, device: str = "cpu"):
    """``(policy, checkpoint)``: a verified checkpoint's policy, rebuilt and in eval mode."""
    ckpt = load_checkpoint(path, battle=battle, engine=engine, device=device)
    _check_policy_shapes(ckpt)
    try:
        policy = build_policy(ckpt.meta, device)
        policy.load_state_dict(ckpt.policy_state, strict=True)
    except RuntimeError as e:  # also an allocation that fails
        raise CheckpointError(f"{path}: weights do not fit the architecture in the sidecar ({str(e).splitlines()[0]})") from None
    policy.set_training_mode(False)
    return policy, ckpt
