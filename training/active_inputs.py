"""Policy inputs that keep only the observation columns a game has ever set (the batched trainer's sample rows).

Most of a large observation is zero in every game ever played: Kulikovo's 34,110 values are 972 hexes times
35 planes, and units never reach most hexes (in 190,000 random decisions 19,850 columns stayed constant,
nearly all at zero). A column that is zero in every sample adds nothing to the first layer's output and gets
a zero gradient, so the first layer may skip it without changing the network's function or its training.

:class:`ActiveInputs` keeps the set of observation columns seen nonzero so far. It only grows: a column gets
the next free *slot* the first time a sample sets it, and keeps it. A compact row holds the hint's slots
(``tail`` values, the input's last ones) first, then the observation's value in each slot; the first layer
reads the matching columns of its weight matrix (:meth:`ActiveInputs.selection`). Rows written earlier hold
zeros in the slots added after them, which is what they held in those columns: the rows of one buffer stay
valid while the set grows, provided each buffer is written only through one :class:`ActiveInputs` (and was
zero when it started).
"""

from __future__ import annotations

import numpy as np

from wargame_envs.core.jit import kernel


@kernel
def narrowed(bits, to_bf16):
    """A float32's bit pattern, or with ``to_bf16`` its bfloat16's: the upper half, rounded to nearest even
    (as torch converts)."""
    if to_bf16:
        return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits


@kernel
def stage_rows(x, tail, rows, slot, unseen, columns, count, out, to_bf16):
    """Games ``rows`` of observations ``x`` and their ``tail`` values compacted into ``out[:len(rows)]``: first
    the tail, then the value of every active column in slot order. A column that a row sets for the first time
    (``slot`` -1) becomes active first: the next slot (``count[0]``) is its, ``columns`` records it and its
    ``unseen`` bits clear. ``x`` and ``tail`` are float32 bit patterns (uint32 views); ``out`` holds float32 bit
    patterns (uint32) or, with ``to_bf16``, bfloat16 ones (uint16): the rows go straight into a torch buffer,
    with no float32 copy between. ``unseen[j]``: 0x7FFFFFFF while column ``j`` is inactive, else 0."""
    width = tail.shape[1]
    for r in range(rows.shape[0]):
        i = rows[r]
        # new columns are rare: first one branch-free pass over the row (an OR of the inactive columns' bits,
        # the sign bit cleared so that -0.0 counts as zero), then the search only where it found one
        new = np.uint32(0)
        for j in range(x.shape[1]):
            new |= x[i, j] & unseen[j]
        if new != 0:
            for j in range(x.shape[1]):
                if (x[i, j] & unseen[j]) != 0:
                    slot[j] = count[0]
                    unseen[j] = 0
                    columns[count[0]] = j
                    count[0] += 1
        for t in range(width):
            out[r, t] = narrowed(tail[i, t], to_bf16)
        for s in range(count[0]):
            out[r, width + s] = narrowed(x[i, columns[s]], to_bf16)


def _bits(values: np.ndarray) -> np.ndarray:
    """The bit patterns (uint32) of ``values`` as float32."""
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def _torch_bits(out) -> tuple[np.ndarray, bool]:
    """A numpy view of the bits of the CPU torch tensor ``out`` (float32 or bfloat16) and whether it is bfloat16."""
    import torch

    if out.dtype == torch.bfloat16:
        return out.view(torch.int16).numpy().view(np.uint16), True
    if out.dtype == torch.float32:
        return out.numpy().view(np.uint32), False
    raise TypeError(f"compact rows are float32 or bfloat16, not {out.dtype}")


class ActiveInputs:
    """The active observation columns of one training run, and the compact rows built from them (module
    docstring). ``obs_size``: the observation's width; ``tail``: the hint's slots after it (0 without a hint)."""

    def __init__(self, obs_size: int, tail: int):
        self.obs_size, self.tail = int(obs_size), int(tail)
        self.slot = np.full(self.obs_size, -1, dtype=np.int64)
        self.unseen = np.full(self.obs_size, 0x7FFFFFFF, dtype=np.uint32)  # the bits that make a new column
        self.columns = np.zeros(self.obs_size, dtype=np.int64)
        self.count = np.zeros(1, dtype=np.int64)
        self._selection: tuple[int, object] = (-1, None)

    @property
    def full_width(self) -> int:
        """A compact row's room: every observation column may become active."""
        return self.tail + self.obs_size

    @property
    def width(self) -> int:
        """The used part of a compact row now: the tail and the active columns."""
        return self.tail + int(self.count[0])

    def write(self, obs: np.ndarray, tail: np.ndarray, rows: np.ndarray, out) -> int:
        """Compact games ``rows`` of observations ``obs`` (N, obs_size) and their ``tail`` values (N, tail) into the
        CPU torch tensor ``out``, float32 or bfloat16 (whose first ``len(rows)`` rows are written up to
        :attr:`width`, which this call may grow). Returns the width."""
        bits, to_bf16 = _torch_bits(out[:len(rows)])
        stage_rows(_bits(obs), _bits(tail), np.asarray(rows, dtype=np.int64), self.slot, self.unseen, self.columns,
                   self.count, bits, to_bf16)
        return self.width

    def selection(self, width: int, device=None):
        """The full input's column behind each of the first ``width`` compact columns (a torch index tensor):
        the tail's columns, then the active observation columns in slot order."""
        import torch

        cached_width, sel = self._selection
        if cached_width != width or (device is not None and sel.device != torch.device(device)):
            cols = np.concatenate([np.arange(self.obs_size, self.full_width), self.columns[:width - self.tail]])
            sel = torch.as_tensor(cols, device=device)
            self._selection = (width, sel)
        return sel

    def expand(self, compact: np.ndarray) -> np.ndarray:
        """The full inputs (N, obs_size + tail) of compact rows (N, width): for checks and tests."""
        w = compact.shape[1]
        out = np.zeros((compact.shape[0], self.full_width), dtype=np.float32)
        out[:, self.obs_size:] = compact[:, :self.tail]
        out[:, self.columns[:w - self.tail]] = compact[:, self.tail:w]
        return out
