"""An agent that plays a trained policy checkpoint (``training.train`` output).

The checkpoint is verified and read by :mod:`training.checkpoints` (sidecar checked, weights read
with ``torch.load(weights_only=True)``, nothing unpickled). On the CPU the policy's actor runs as
plain numpy matrix products (:class:`agents.mlp.MlpActor`, a few tens of microseconds a
decision, the same logits as the torch policy); on another device (``cuda``) the rebuilt SB3
policy runs there.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


class CheckpointNotFoundError(ValueError):
    """A ``ckpt:`` path that names no file (a ``ValueError``, so agent-spec errors stay one kind)."""


class PolicyAgent:
    """Plays ``path``'s policy: the most likely legal action (``deterministic``) or a sample from
    the masked policy distribution. ``battle``, when given, must be the checkpoint's battle; the
    engine handed to :meth:`act` must match its observation and action sizes. ``backend``:
    ``"auto"`` (numpy on the CPU, torch elsewhere), ``"numpy"`` or ``"torch"``."""

    def __init__(self, path, deterministic: bool = True, device: str = "cpu", seed: int | None = None,
                 battle: str | None = None, backend: str = "auto"):
        path = Path(path).expanduser()  # a ckpt:~/x.zip spec: no shell expands the ~ after "ckpt:"
        if not path.is_file():  # said before torch is looked for (issue 12 item 12)
            raise CheckpointNotFoundError(f"checkpoint file not found: {path}")
        from training.checkpoints import CheckpointError, load_policy
        from agents.mlp import MlpActor

        self.path, self.deterministic, self.device = str(path), bool(deterministic), device
        self.policy, ckpt = load_policy(path, battle=battle, device=device)
        self.meta = ckpt.meta
        self.name = f"policy:{self.meta['env']}@{self.meta['timesteps']}"
        if backend not in ("auto", "numpy", "torch"):
            raise ValueError(f"backend must be auto, numpy or torch, got {backend!r}")
        use_numpy = backend == "numpy" or (backend == "auto" and device == "cpu")
        from agents.hint import has_prior, make_observer

        self.prior = has_prior(self.meta.get("hint", ""))
        self.actor = MlpActor.from_state_dict(ckpt.policy_state, self.meta["activation"], self.prior) if use_numpy else None

        self.observer = make_observer(self.meta.get("hint", ""), self.meta["battle"])
        self._checked_engine = None
        self._error = CheckpointError
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self.observer.reset(None if seed is None else seed + 1)
        if self.actor is None:
            import torch

            self._torch_gen = torch.Generator(device=self.device)
            self._torch_gen.manual_seed(int(self._rng.integers(2**62)))

    def act(self, engine, state, player: int, mask: np.ndarray) -> int:
        if engine is not self._checked_engine:
            self._check_engine(engine)
        mask = np.asarray(mask, dtype=bool)
        if not mask.any():
            raise ValueError("no legal action: the game is over or the mask is empty")
        obs = self.observer.observe(engine, state, player, mask)
        if self.actor is not None:
            return self.actor.act(obs, mask, self.deterministic, self._rng)
        return self._act_torch(obs, mask)

    def _act_torch(self, obs: np.ndarray, mask: np.ndarray) -> int:
        import torch

        with torch.no_grad():
            x = torch.as_tensor(obs, device=self.device).unsqueeze(0)
            logits = self.policy.get_distribution(x).distribution.logits[0]
            if self.prior:
                from agents.hint import prior_logits

                logits = logits + prior_logits(x[0], logits.shape[-1])
            logits = logits.masked_fill(~torch.as_tensor(mask, device=self.device), -torch.inf)
            if self.deterministic:
                return int(logits.argmax().item())
            probs = torch.softmax(logits, dim=-1)
            return int(torch.multinomial(probs, 1, generator=self._torch_gen).item())

    def _check_engine(self, engine) -> None:
        m = self.meta
        if engine.name != m["env"] or engine.obs_layout.size != m["obs_size"] or engine.num_actions != m["num_actions"]:
            raise self._error(
                f"{self.path}: trained on {m['env']} (observation {m['obs_size']}, {m['num_actions']} actions), "
                f"asked to play {engine.name} (observation {engine.obs_layout.size}, {engine.num_actions} actions)")
        from training.checkpoints import layout_digest

        if m.get("obs_layout", layout_digest(engine)) != layout_digest(engine):
            raise self._error(f"{self.path}: {engine.name} now lays its observation out differently from the "
                              f"version the policy was trained on")
        self._checked_engine = engine
