"""A trained actor as plain numpy matrices, and the agent that plays it.

:class:`MlpActor` is the actor half of an SB3 ``MlpPolicy`` (hidden layers, then the action layer)
copied into numpy: fast at batch size 1, picklable, and it needs no torch to play. Snapshots of the
trainer's opponent pool, ``ckpt:`` checkpoints on the CPU and the shipped ``pretrained`` policies all
play through it.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np


ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


class MlpActor:
    """The actor half of an SB3 ``MlpPolicy`` as numpy matrices (fast at batch size 1, picklable,
    no torch needed to play).

    Built from the policy ``state_dict``: the hidden layers ``mlp_extractor.policy_net.<i>`` and the
    output layer ``action_net``; ``activation`` is the policy's activation function name. ``prior``: the
    policy was trained with a prior hint (``agents.hint.has_prior``), whose term its logits add.
    """

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str = "tanh", prior: bool = False):
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation {activation!r} not in {sorted(ACTIVATIONS)}")
        # Copies: a tensor's .numpy() shares its memory, and the live policy keeps training.
        self.layers = [(np.array(w, np.float32, order="C"), np.array(b, np.float32)) for w, b in layers]
        self.activation = activation
        self.prior = bool(prior)
        self._act = ACTIVATIONS[activation]

    @classmethod
    def from_state_dict(cls, state_dict: dict[str, Any], activation: str = "tanh", prior: bool = False) -> "MlpActor":
        prefix = "mlp_extractor.policy_net."
        idx = sorted({int(k[len(prefix):].split(".")[0]) for k in state_dict if k.startswith(prefix)})
        layers = []
        for i in idx + [None]:
            p = "action_net." if i is None else f"{prefix}{i}."
            w, b = state_dict[p + "weight"], state_dict[p + "bias"]
            layers.append((_to_numpy(w).T, _to_numpy(b)))  # stored (in, out) for obs @ W
        return cls(layers, activation, prior)

    def arrays(self) -> dict[str, np.ndarray]:
        """Flat name -> array dict (for checkpoints); :meth:`from_arrays` inverts it."""
        out = {}
        for i, (w, b) in enumerate(self.layers):
            out[f"{i}.weight"], out[f"{i}.bias"] = w, b
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, Any], activation: str, prior: bool = False) -> "MlpActor":
        n = len(arrays) // 2
        return cls([(_to_numpy(arrays[f"{i}.weight"]), _to_numpy(arrays[f"{i}.bias"])) for i in range(n)], activation,
                   prior)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        obs = np.asarray(obs, dtype=np.float32)
        x = obs
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = (sparse_product(x, w) if i == 0 else x @ w) + b
            if i < last:
                x = self._act(x)
        if self.prior:
            from agents.hint import prior_logits

            x = x + prior_logits(obs, x.shape[-1])
        return x

    def act(self, obs: np.ndarray, mask: np.ndarray, deterministic: bool, rng: np.random.Generator) -> int:
        """A legal action: the most likely one, or one sampled from the masked softmax."""
        z = np.where(mask, self.logits(obs).astype(np.float64), -np.inf)
        if deterministic:
            return int(np.argmax(z))
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(rng.choice(p.size, p=p))


def sparse_product(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``x @ w``, reading only the rows of ``w`` whose input is nonzero in some row of ``x``. Most of a large
    observation is zero (Kulikovo: about 1,300 of 35,167 inputs), and at batch size 1 the product is bound by
    reading ``w``: a game's decision then reads a twentieth of it."""
    used = np.flatnonzero(x if x.ndim == 1 else x.any(axis=0))
    if 2 * used.size > x.shape[-1]:
        return x @ w
    return x[..., used] @ w[used]


def _to_numpy(x) -> np.ndarray:
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


class SnapshotAgent:
    """An agent (``agents.base.Agent`` protocol) playing a frozen :class:`MlpActor` on the input that
    ``observer`` (:mod:`agents.hint`; default: the plain observation) builds."""

    def __init__(self, actor: MlpActor, name: str = "snapshot", deterministic: bool = False, seed: int | None = None,
                 observer=None):
        from agents.hint import Observer

        self.actor, self.name, self.deterministic = actor, name, deterministic
        self.observer = observer if observer is not None else Observer()
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self.observer.reset(None if seed is None else seed + 1)

    def act(self, engine, state, player: int, mask: np.ndarray) -> int:
        mask = np.asarray(mask, dtype=bool)
        return self.actor.act(self.observer.observe(engine, state, player, mask), mask, self.deterministic, self._rng)
