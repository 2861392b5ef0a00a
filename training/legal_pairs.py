"""The batched trainer's masked softmax (its sampler and its PPO update) over the legal (row, action) pairs.

A row of Kulikovo's policy has 1,057 actions and about 13 legal ones (Breitenfeld: 699 and about 27), and a
rare row has hundreds (a setup decision), so padding every row to the widest wastes as much as the full mask.
The update's softmax, entropy, log-probabilities and hint cross-entropy are sums over each row's legal
actions: :class:`LegalPairs` keeps those pairs as one flat list, in row order, and does the per-row
reductions with ``index_add`` and ``scatter_reduce``. The full (rows, actions) logits are still produced by
the last layer (one matrix product), but the dozen elementwise passes over them, forward and backward,
shrink to passes over the pairs: for Kulikovo, 13 values a row instead of 1,057. Each value is the one the
masked full softmax gives (an illegal action's probability there is exactly zero).
"""

from __future__ import annotations


class LegalPairs:
    """The legal (row, action) pairs of a boolean ``mask`` (rows, actions): ``rows`` and ``cols``, row-major."""

    def __init__(self, mask):
        import torch

        self.torch = torch
        self.n_rows = mask.shape[0]
        self.rows, self.cols = mask.nonzero(as_tuple=True)

    def pick(self, table):
        """The values of a (rows, actions) ``table`` at the legal pairs (a flat vector)."""
        return table[self.rows, self.cols]

    def row_sum(self, values):
        """Per row, the sum of a flat vector's values over that row's pairs (rows, differentiable)."""
        return self.torch.zeros(self.n_rows, dtype=values.dtype, device=values.device).index_add(0, self.rows, values)

    def row_max(self, values):
        """Per row, the largest of a flat vector's values over that row's pairs (-inf for a row without any)."""
        torch = self.torch
        top = torch.full((self.n_rows,), -torch.inf, dtype=values.dtype, device=values.device)
        return top.scatter_reduce(0, self.rows, values, "amax")

    def log_softmax(self, z):
        """Per pair, the log-probability of its action under the softmax of the row's legal logits ``z``."""
        # the row's largest logit keeps exp() in range; a constant shift of the row, so it takes no gradient
        top = self.row_max(z.detach())[self.rows]
        lse = self.row_sum((z - top).exp()).log()[self.rows] + top
        return z - lse

    def row_argmax(self, values):
        """Per row, the index (into the pairs) of the row's largest value, the first of equal ones; every row
        must have a pair."""
        torch = self.torch
        hit = values == self.row_max(values)[self.rows]
        first = torch.full((self.n_rows,), values.shape[0], dtype=torch.long, device=values.device)
        index = torch.arange(values.shape[0], device=values.device)
        first = first.scatter_reduce(0, self.rows[hit], index[hit], "amin")
        if self.n_rows and int(first.max()) == values.shape[0]:
            raise ValueError("a row has no legal action")
        return first

    def at(self, values, actions):
        """Per row, the flat vector's value at the pair (row, ``actions[row]``); every action must be legal."""
        out = values[self.cols == actions[self.rows]]
        if out.shape[0] != self.n_rows:
            raise ValueError(f"{self.n_rows - out.shape[0]} of {self.n_rows} actions are not legal in their rows' "
                             "masks")
        return out
