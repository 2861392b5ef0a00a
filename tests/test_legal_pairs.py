"""training.legal_pairs: the update's softmax over the legal (row, action) pairs equals the full masked softmax."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from training.legal_pairs import LegalPairs  # noqa: E402


def _batch(seed: int, rows: int = 12, actions: int = 40):
    rng = np.random.default_rng(seed)
    mask = rng.random((rows, actions)) < 0.2
    mask[:, rng.integers(actions)] = True          # every row has a legal action
    mask[0] = True                                 # and one row has all of them (a setup decision)
    logits = torch.tensor(rng.normal(size=(rows, actions)) * 5, dtype=torch.float32, requires_grad=True)
    slots = torch.tensor(np.where(mask, rng.random((rows, actions)), 0.0), dtype=torch.float32)
    taken = torch.tensor([rng.choice(np.flatnonzero(m)) for m in mask])
    return torch.as_tensor(mask), logits, slots, taken


def _full_terms(mask, logits, slots, taken):
    """The terms as the update computed them before: over every action, illegal ones masked."""
    logp_all = torch.log_softmax(logits.masked_fill(~mask, -1e8), dim=-1)
    logp = logp_all.gather(1, taken[:, None]).squeeze(1)
    probs = logp_all.masked_fill(~mask, -torch.inf).exp()
    entropy = -(probs * logp_all.masked_fill(~mask, 0.0)).sum(-1)
    q = slots / slots.sum(-1, keepdim=True)
    cross = -(q * logp_all.masked_fill(q <= 0, 0.0)).sum(-1)
    marked = slots > 0.5
    ties = -torch.logsumexp(logp_all.masked_fill(~marked, -torch.inf), dim=-1)
    return logp, entropy, cross, ties


def _pair_terms(mask, logits, slots, taken):
    legal = LegalPairs(mask)
    logp_legal = legal.log_softmax(legal.pick(logits))
    logp = legal.at(logp_legal, taken)
    entropy = -legal.row_sum(logp_legal.exp() * logp_legal)
    s = legal.pick(slots)
    q = s / legal.row_sum(s)[legal.rows]
    cross = -legal.row_sum(q * logp_legal.masked_fill(q <= 0, 0.0))
    ties = -legal.row_sum(logp_legal.exp().masked_fill(~(s > 0.5), 0.0)).log()
    return logp, entropy, cross, ties


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_pair_terms_and_their_gradients_are_the_full_masked_softmax(seed):
    mask, logits, slots, taken = _batch(seed)
    slots[torch.arange(len(taken)), taken] = 0.9   # every row marks at least one action (the ties hint)
    for full, pair in zip(_full_terms(mask, logits, slots, taken), _pair_terms(mask, logits, slots, taken)):
        np.testing.assert_allclose(pair.detach().numpy(), full.detach().numpy(), rtol=1e-5, atol=1e-5)
        g_full, = torch.autograd.grad(full.sum(), logits, retain_graph=True)
        g_pair, = torch.autograd.grad(pair.sum(), logits, retain_graph=True)
        np.testing.assert_allclose(g_pair.numpy(), g_full.numpy(), rtol=1e-5, atol=1e-6)


def test_a_taken_action_outside_the_mask_is_refused():
    mask, logits, _, taken = _batch(3)
    mask[1] = False
    mask[1, 0] = True
    taken[1] = 1
    legal = LegalPairs(mask)
    with pytest.raises(ValueError, match="1 of 12 actions are not legal"):
        legal.at(legal.log_softmax(legal.pick(logits)), taken)


def test_row_argmax_is_the_first_largest_legal_value_of_each_row():
    mask, logits, _, _ = _batch(4)
    logits = logits.detach()
    logits[2, :] = 7.0                              # a tie across the row: the first legal action wins
    legal = LegalPairs(mask)
    pick = legal.row_argmax(legal.pick(logits))
    expected = logits.masked_fill(~mask, -torch.inf).argmax(dim=1)
    assert torch.equal(legal.rows[pick], torch.arange(len(mask)))
    assert torch.equal(legal.cols[pick], expected)
    mask[5] = False
    with pytest.raises(ValueError, match="no legal action"):
        LegalPairs(mask).row_argmax(LegalPairs(mask).pick(logits))
