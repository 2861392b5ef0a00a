"""Batched self-play masked PPO (CleanRL-style) on the batched games of ``wargame_envs.vector``.

    wargames train berestechko --backend batched --minutes 7

``--backend batched`` trains the same network, warm start, opponent pool and checkpoint format as the
default backend (MaskablePPO on per-game envs), but steps ``n_envs`` games per call and evaluates
everything that decides in them as batches:

- **Games.** One :class:`~wargame_envs.core.vector.VectorGame` of ``n_envs`` games. Each game's episode
  has an opponent drawn from the PFSP pool (``training.selfplay.OpponentPool``), plus ``self``: the
  learner itself in both seats, so that both seats' decisions train it. The learner's seat alternates
  from game to game (with ``--pfsp-sides`` it is drawn together with the opponent by the PFSP weights of both
  sides).
- **One step = one decision in every game.** The policy input of every row is built at once (the
  observation and, with ``hint="scripted"``, a one-hot of the scripted agent's choice, computed for
  all games by one batched call); the rows the learner decides get one forward pass, the others their
  opponent's batched choice (a pool snapshot's numpy forward, the scripted choice already computed
  for the hint, or a random legal action). Every learner row is a sample.
- **Returns per seat.** A game's decisions alternate irregularly between the seats, so advantages are
  computed per (game, seat) chain: rewards that arrive on the other seat's moves (the end of the game)
  are credited to the seat's previous decision (see :func:`advantages`).
- **Network** (the design): the policy and critic are the SB3 ``MlpPolicy`` of the default backend
  (separate actor and critic MLPs of ``net_arch``), so checkpoints, ``ckpt:`` agents, the numpy
  :class:`~agents.mlp.MlpActor` and ``python -m training.export`` work unchanged. One network plays
  both sides: the observation carries a ``me`` one-hot, and the critic reads it, so its value is the
  value of the seat to move.
- **Keeping what the heuristic knows** (piKL / AlphaStar-style): besides the imitation warm start, the
  loss adds ``kl_coef x KL(scripted || policy)``, the cross-entropy of the policy on the scripted
  agent's choice (the hint), whose weight halves every ``kl_half_life`` learner steps, so PPO may leave
  the heuristic only where its returns say so.

- **A prior from the heuristic's ratings** (``--hint scores``, ``agents.hint``): the input's last slots hold
  every legal move's rating by the scripted agent and the logits add their logarithm, so the untrained policy
  plays the heuristic softened (exploring among its near-best moves) and the network learns corrections; the
  KL term is then the cross-entropy on that prior. This is the setting of ``--recipe berestechko``.
- **A curriculum against the heuristic** (``--curriculum-epsilon E --curriculum-steps S``): the scripted
  opponent plays a uniformly random legal move instead of its own at rate E at first, falling linearly to 0 at S
  learner steps (:func:`curriculum_rate`), so that a side that loses most games to the heuristic starts with
  games it wins. Its games are recorded (PFSP, ``selfplay/win_rate_scripted_*``) as against ``scripted``.
- **Sampling temperature** (``--temperature``): the policy trained is softmax(logits / T). Evaluation and the
  shipped agents play the greedy move, which T does not change; below 1 the games played in training
  stay close to that greedy play (at T = 1 a clone of the heuristic keeps ~0.3 nats of entropy a decision,
  a few dozen off-hint moves a game, and wins 5-15% of its training games against the heuristic it
  copies while its greedy play wins 45-51%).
- **Precision** (``--precision bf16``): the network's matrix products run in bfloat16 under torch autocast
  (2-3x faster on CPUs with AVX512-BF16 or AMX); weights, optimizer and losses stay float32. The sample rows
  are then stored in bfloat16 too (the first layer casts them anyway), which halves what the epochs gather.
- **Compact sample rows** (``training.active_inputs``): a sample keeps the hint's slots and only the
  observation columns that some sample has ever set (Kulikovo's 34,110 values are 35 planes x 972 hexes and
  90 features, and units never reach most hexes); the first layers read the matching columns of their weights.
  The network, its gradients and the checkpoints are those of the full input: a column that was always zero adds
  nothing and gets no gradient.
- **Softmax over the legal actions only** (``training.legal_pairs``): the sampler and the update's
  log-probabilities, entropy and hint cross-entropy work on each row's legal (row, action) pairs, about 13 of
  Kulikovo's 1,057 actions, not on full masked rows; the values are the masked softmax's, and the rollout's
  log-probabilities are computed exactly as the update's.
- **Memory**: minibatches are gathered into one buffer kept from update to update, Adam runs torch's fused kernel,
  and glibc keeps freed blocks (:func:`keep_freed_memory`): fresh pages for every tensor of 10-300 MB had
  cost more than the arithmetic.

Throughput is reported as learner samples per second of rollout and update time (the trainer's log).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from training.legal_pairs import LegalPairs

SELF = "self"


# ============================================================================ batched hint

class BatchHint:
    """The scripted agent's choice in every game of a batch (-1 where nothing is legal): the battle's
    compiled batched heuristic where it has one (``agents.scripted.batched_scripted``), else the Python
    agent game by game. ``kind`` is the hint the policy reads (``agents.hint``): with ``"ties"``,
    :attr:`slots` also holds every game's tied-best actions (a multi-hot) and with ``"scores"`` or
    ``"scores-floor"`` the heuristic's rating of every action (``agents.hint.hint_slots``); for all three the
    choice is a uniform draw among the tied-best actions, as the agent's own tie-break."""

    ENTRIES = {"scripted": "scripted_actions", "ties": "scripted_ties"}  # and every rating hint: scripted_gaps

    def __init__(self, vec, battle: str, seed: int, kind: str = "scripted"):
        from agents.hint import has_prior
        from agents.scripted import batched_scripted, make_scripted_agent

        self.vec, self.backend, self.kind = vec, vec.backend, kind
        self.out = np.zeros(vec.num_envs, dtype=np.int64)
        self.rng = np.random.default_rng(seed)
        shape = (vec.num_envs, vec.num_actions)
        self.slots = np.zeros(shape, dtype=np.float32) if kind != "scripted" else None
        self._sets = np.zeros(shape, dtype=bool)
        self._gaps = np.zeros(shape, dtype=np.float64) if has_prior(kind) else None
        self._compiled = batched_scripted(battle, "scripted_gaps" if has_prior(kind) else self.ENTRIES[kind])
        if self._compiled is None:
            self.agent = make_scripted_agent(battle, seed)

    def actions(self, step) -> np.ndarray:
        if self.kind == "ties":
            self._fill_ties(step)
            self.slots[:] = self._sets
        elif self._gaps is not None:
            from agents.hint import TIED_GAP, hint_slots

            self._fill_gaps(step)
            hint_slots(self.kind, self._gaps, step.action_mask, out=self.slots)
            np.greater_equal(self._gaps, -TIED_GAP, out=self._sets)
        elif self._compiled is not None:
            return self._compiled(self.backend, self.vec.states, self.out, masks=step.action_mask, rng=self.rng)
        else:
            return self._per_game(step, lambda agent, *a: agent.act(*a), self.out, -1)
        from wargame_envs.core.vector import pick_legal

        return pick_legal(self._sets, self.rng.random(len(self.out)), self.out)

    def _per_game(self, step, ask, out, empty):
        """``out[i] = ask(agent, engine, state, player, mask)`` for every game with a legal action (else ``empty``)."""
        engine = self.backend.engine
        out[:] = empty
        for i in np.flatnonzero(step.action_mask.any(axis=1)):
            state = self.backend.state_view(self.vec.states[i])
            out[i] = ask(self.agent, engine, state, int(step.current_player[i]), step.action_mask[i])
        return out

    def _fill_ties(self, step) -> None:
        if self._compiled is not None:
            self._compiled(self.backend, self.vec.states, self._sets, masks=step.action_mask)
            return
        self._sets[:] = False
        for i in np.flatnonzero(step.action_mask.any(axis=1)):
            state = self.backend.state_view(self.vec.states[i])
            self._sets[i, self.agent.ties(self.backend.engine, state, int(step.current_player[i]), step.action_mask[i])] = True

    def _fill_gaps(self, step) -> None:
        if self._compiled is not None:
            self._compiled(self.backend, self.vec.states, self._gaps, masks=step.action_mask)
        else:
            self._per_game(step, lambda agent, *a: agent.gaps(*a), self._gaps, -np.inf)


# ============================================================================ advantages

def advantages(values, learner, seat, rewards, done, last_values, gamma: float, lam: float):
    """GAE per (game, seat) chain over a rollout of T batched steps.

    ``values``/``learner``/``seat``: (T, N) value estimates, learner-decision flags and the seat that
    decided; ``rewards``: (T, N, 2) paid by step t; ``done``: (T, N) the game ended on step t;
    ``last_values``: (N, 2) bootstrap values after the rollout. Rewards between two decisions of a seat
    (including the end of the game on the other seat's move) belong to the earlier decision. Returns
    (advantages, returns), (T, N), zero where ``learner`` is False."""
    T, N = values.shape
    adv = np.zeros((T, N), dtype=np.float32)
    next_v = last_values.astype(np.float32).copy()
    next_adv = np.zeros((N, 2), dtype=np.float32)
    r_acc = np.zeros((N, 2), dtype=np.float32)
    rows = np.arange(N)
    for t in range(T - 1, -1, -1):
        ended = done[t]
        next_v[ended] = 0.0
        next_adv[ended] = 0.0
        r_acc[ended] = 0.0
        r_acc += rewards[t]
        i = rows[learner[t]]
        s = seat[t, i]
        delta = r_acc[i, s] + gamma * next_v[i, s] - values[t, i]
        a = delta + gamma * lam * next_adv[i, s]
        adv[t, i] = a
        next_adv[i, s], next_v[i, s], r_acc[i, s] = a, values[t, i], 0.0
    return adv, adv + values


# ============================================================================ self-play games

@dataclass
class Rollout:
    inputs: Any          # (S, W) torch tensor: the learner samples' policy inputs, in (t, game) order; rows [:samples] used
    masks: np.ndarray    # (S, A) their masks
    samples: int         # learner samples collected (= learner.sum())
    actions: np.ndarray  # (T, N)
    logp: np.ndarray
    values: np.ndarray
    learner: np.ndarray  # (T, N) bool: a learner decision (a sample)
    seat: np.ndarray     # (T, N) seat that decided
    hints: np.ndarray    # (T, N) the scripted choice
    rewards: np.ndarray  # (T, N, 2)
    done: np.ndarray     # (T, N)
    width: int | None = None  # compact inputs (training.active_inputs): the columns used; None: full rows


class SelfPlayGames:
    """``n_envs`` games against the pool; :meth:`collect` plays ``n_steps`` batched steps."""

    def __init__(self, args, pool, policy_fn, value_fn, seed: int, active=None, frozen=contextlib.nullcontext):
        import torch

        import wargame_envs.vector as vector
        from agents.hint import input_size

        self.args, self.pool, self.policy_fn, self.value_fn, self.torch = args, pool, policy_fn, value_fn, torch
        self.active = active  # training.active_inputs.ActiveInputs: the sample rows are compact (None: full rows)
        self.frozen = frozen  # the context of a rollout, in which the policy's weights do not change
        self.vec = vector.make(args.battle, args.n_envs, seed=seed)
        self.engine = self.vec.backend.engine
        n, self.obs_size, self.num_actions = args.n_envs, self.vec.obs_size, self.vec.num_actions
        self.width = input_size(self.obs_size, self.num_actions, args.hint)
        self.hint = (BatchHint(self.vec, args.battle, seed + 1, kind=args.hint or "scripted")
                     if args.hint or "scripted" in pool.entries else None)
        self.rng = np.random.default_rng(seed + 2)
        self.opponent: list[str] = [SELF] * n
        self.learner_seat = np.zeros(n, dtype=np.int64)  # -1: both seats (self-play game)
        self.games_started = 0
        self.step = self.vec.reset()
        # shaped reward (as the AEC env's reward="shaped"): shaped_scale x the change of (own - enemy) score
        self.shaped_scale = float(args.shaped_scale) if args.shaped else 0.0
        self.scores = self.vec.scores() if self.shaped_scale else None
        for i in range(n):
            self._draw(i)
        self.inputs = np.zeros((n, self.width), dtype=np.float32)
        self._no_slots = np.zeros((n, 0), dtype=np.float32)
        self._one_hot = np.zeros((n, self.width - self.obs_size), dtype=np.float32)
        self._sample_buffers: tuple[np.ndarray, np.ndarray] | None = None
        self._last_rows = None  # the inputs of the bootstrap values (a torch buffer like the samples)
        self.finished: list[tuple[str, int, float]] = []  # (opponent, learner seat, learner score)
        self.scripted_noise = 0.0  # the scripted opponent's rate of random moves (curriculum_rate)

    def _draw(self, i: int) -> None:
        if self.args.pfsp_sides:
            side, entry = self.pool.sample_pair(self.rng)
        else:
            side = self.games_started % 2
            entry = self.pool.sample(side, self.rng)
        self.games_started += 1
        self.opponent[i] = entry.name
        self.learner_seat[i] = -1 if entry.kind == SELF else side

    def _hint_slots(self, hints: np.ndarray) -> np.ndarray:
        """(N, width - obs_size): the input's values after the observation (the hint's slots; none without one)."""
        if self.width == self.obs_size:
            return self._no_slots
        if self.hint.slots is not None:
            return self.hint.slots
        slots = self._one_hot
        slots[:] = 0.0
        legal = self.step.action_mask.any(axis=1)
        slots[np.flatnonzero(legal), hints[legal]] = 1.0
        return slots

    def _build_inputs(self, slots: np.ndarray) -> np.ndarray:
        """(N, width): every game's full policy input (the observation, then ``slots``)."""
        x, o = self.inputs, self.obs_size
        x[:, :o] = self.step.observation
        x[:, o:] = slots
        return x

    def _write_rows(self, out, rows: np.ndarray, slots: np.ndarray, full):
        """The policy inputs of games ``rows`` into the torch buffer ``out`` (compact rows with ``active``, else the
        rows of ``full()``, the full inputs); returns the part of ``out`` the network reads."""
        if self.active is not None:
            return out[:len(rows), :self.active.write(self.step.observation, slots, rows, out)]
        x = full()
        out[:len(rows)].copy_(self.torch.from_numpy(x if len(rows) == len(x) else x[rows]))
        return out[:len(rows)]

    def _opponent_actions(self, rows: np.ndarray, inputs, mask, hints, out) -> None:
        """The opponents' actions in games ``rows``; ``inputs()``: the full inputs (N, width), for snapshots."""
        by_name: dict[str, list[int]] = {}
        for i in rows:
            by_name.setdefault(self.opponent[i], []).append(int(i))
        for name, idx in by_name.items():
            idx = np.asarray(idx)
            entry = self.pool.entries.get(name)
            kind = "random" if entry is None else (entry.kind if entry.kind == "snapshot" else name)
            if kind == "scripted":
                out[idx] = hints[idx]
                if self.scripted_noise > 0:  # the curriculum (--curriculum-epsilon): some moves at random
                    noisy = idx[self.rng.random(idx.size) < self.scripted_noise]
                    out[noisy] = self._random_legal(mask[noisy])
            elif kind == "snapshot":
                z = np.where(mask[idx], entry.agent.actor.logits(inputs()[idx]).astype(np.float64), -np.inf)
                if self.pool.deterministic_snapshots:
                    out[idx] = z.argmax(axis=1)
                else:
                    g = self.rng.gumbel(size=z.shape)
                    out[idx] = (z + g).argmax(axis=1)
            else:  # random, or an opponent dropped from the pool while its game went on
                out[idx] = self._random_legal(mask[idx])

    def _random_legal(self, mask: np.ndarray) -> np.ndarray:
        """A uniformly random legal action of each row of ``mask``."""
        return np.where(mask, self.rng.random(mask.shape), -1.0).argmax(axis=1)

    def collect(self, n_steps: int) -> tuple[Rollout, np.ndarray]:
        with self.frozen():
            return self._collect(n_steps)

    def _collect(self, n_steps: int) -> tuple[Rollout, np.ndarray]:
        n, A = self.args.n_envs, self.num_actions
        buffers = self._buffers(n_steps * n)
        ro = Rollout(buffers[0], buffers[1], 0, np.zeros((n_steps, n), np.int64), np.zeros((n_steps, n), np.float32),
                     np.zeros((n_steps, n), np.float32), np.zeros((n_steps, n), bool), np.zeros((n_steps, n), np.int64),
                     np.zeros((n_steps, n), np.int64), np.zeros((n_steps, n, 2), np.float32),
                     np.zeros((n_steps, n), bool))
        actions = np.zeros(n, dtype=np.int64)
        for t in range(n_steps):
            st = self.step
            legal = st.action_mask.any(axis=1)
            hints = self.hint.actions(st) if self.hint is not None else np.zeros(n, np.int64)
            slots = self._hint_slots(hints)
            full = functools.cache(functools.partial(self._build_inputs, slots))  # built only if something reads it
            player = st.current_player
            mine = legal & ((self.learner_seat < 0) | (self.learner_seat == player))
            rows = np.flatnonzero(mine)
            actions[:] = 0
            if rows.size:  # the learner's rows go straight into the sample buffers, then through the network
                xs, ms = ro.inputs[ro.samples:ro.samples + rows.size], ro.masks[ro.samples:ro.samples + rows.size]
                xs = self._write_rows(xs, rows, slots, full)
                np.take(st.action_mask, rows, axis=0, out=ms)
                ro.samples += rows.size
                a, logp, v = self.policy_fn(xs, ms)
                actions[rows], ro.logp[t, rows], ro.values[t, rows] = a, logp, v
            self._opponent_actions(np.flatnonzero(legal & ~mine), full, st.action_mask, hints, actions)
            ro.actions[t] = actions
            ro.learner[t], ro.seat[t], ro.hints[t] = mine, player, hints
            restarted = self.step.terminated | self.step.truncated  # these rows start a new game now
            self.step = st = self.vec.step(actions)
            ro.rewards[t] = st.rewards
            if self.args.truncation_reward:  # both seats of a game cut short (activation limit)
                ro.rewards[t][st.truncated & ~st.terminated] += self.args.truncation_reward
            if self.shaped_scale:
                ro.rewards[t] += self._shaped_rewards(restarted)
            ro.done[t] = ended = st.terminated | st.truncated
            for i in np.flatnonzero(ended):
                self._finish(int(i), st)
        if self.active is not None:
            ro.width = self.active.width
        return ro, self._last_values()

    def _shaped_rewards(self, restarted: np.ndarray) -> np.ndarray:
        """(N, 2): each seat's shaped reward for the step just played (0 in games that restarted on it)."""
        before = self.scores
        after = self.vec.scores()
        delta = (after - before) * self.shaped_scale
        delta[restarted] = 0.0
        self.scores = after
        return np.stack([delta[:, 0] - delta[:, 1], delta[:, 1] - delta[:, 0]], axis=1)

    def _buffers(self, size: int):
        """Sample buffers (inputs, masks) of ``size`` rows, reused from one rollout to the next (the
        update of a rollout ends before the next collection starts). The inputs are a torch tensor, in
        bfloat16 with ``precision="bf16"``: the network casts its input to bfloat16 anyway, and the PPO
        epochs read every row several times, so half the bytes is half the gather and no cast per epoch."""
        if self._sample_buffers is None or self._sample_buffers[0].shape[0] != size:
            self._sample_buffers = (self.torch.zeros((size, self.width), dtype=self._input_dtype()),
                                    np.zeros((size, self.num_actions), bool))
        return self._sample_buffers

    def _input_dtype(self):
        return self.torch.bfloat16 if self.args.precision == "bf16" else self.torch.float32

    def _finish(self, i: int, st) -> None:
        seat = int(self.learner_seat[i])
        if seat >= 0:
            r = float(st.rewards[i, seat])
            score = 1.0 if r > 0 else (0.0 if r < 0 else 0.5)
            self.pool.record(self.opponent[i], seat, score)
            self.finished.append((self.opponent[i], seat, score))
        self._draw(i)

    def _last_values(self) -> np.ndarray:
        """Bootstrap values (N, 2): the critic's value for the seat to move; for the other seat, 0 with
        ``done`` handling in :func:`advantages` taking care of finished games (a seat's unfinished tail
        is bootstrapped from the mover's value, negated: the game is zero-sum)."""
        st, n = self.step, self.args.n_envs
        hints = self.hint.actions(st) if self.hint is not None else np.zeros(n, np.int64)
        slots = self._hint_slots(hints)
        if self._last_rows is None:
            self._last_rows = self.torch.zeros((n, self.width), dtype=self._input_dtype())
        v = self.value_fn(self._write_rows(self._last_rows, np.arange(n), slots,
                                           functools.partial(self._build_inputs, slots)))
        out = np.zeros((n, 2), dtype=np.float32)
        rows = np.arange(n)
        p = st.current_player
        out[rows, p] = v
        out[rows, 1 - p] = -v
        return out


# ============================================================================ network and update

class MaskedActorCritic:
    """The SB3 ``MlpPolicy`` of the default backend, driven directly: masked logits (divided by
    ``temperature``), values, samples; the matrix products in bfloat16 with ``precision="bf16"``."""

    def __init__(self, policy, device: str, temperature: float = 1.0, precision: str = "fp32", prior_actions: int = 0,
                 active=None):
        import torch

        self.policy, self.device, self.torch = policy, device, torch
        self.active = active  # training.active_inputs.ActiveInputs: inputs are its compact rows (None: full rows)
        self.prior_actions = prior_actions  # > 0: the input's last slots are a prior hint (agents.hint.prior_logits)
        self.inv_temperature = 1.0 / float(temperature)
        self._frozen: dict | None = None  # inside frozen_weights: (first layer, width, device) -> its columns
        self._minibatch = None  # the update's minibatch rows (:meth:`minibatch_buffer`)
        self._autocast = dict(device_type=torch.device(device).type, dtype=torch.bfloat16,
                              enabled=precision == "bf16")
        from stable_baselines3.common.torch_layers import FlattenExtractor

        if not isinstance(policy.pi_features_extractor, FlattenExtractor):
            raise TypeError("MaskedActorCritic drives an MlpPolicy (a FlattenExtractor before the MLPs)")

    def minibatch_buffer(self, rows: int, width: int, dtype):
        """A (rows, width) view of one buffer for the update's minibatch inputs, the same memory from one update to
        the next: its pages are touched once per run, not once per update (a fresh 90 MB buffer cost 240 ms in page
        faults, the gather into it 6 ms). Both sizes grow by half again when too small, so that the active width
        growing early in a run seldom moves it."""
        buf = self._minibatch
        if buf is None or buf.dtype != dtype or buf.shape[0] < rows or buf.shape[1] < width:
            kept = buf.shape if buf is not None and buf.dtype == dtype else (0, 0)
            shape = tuple(have if have >= need else need * 3 // 2 for have, need in zip(kept, (rows, width)))
            buf = self._minibatch = self.torch.empty(shape, dtype=dtype, device=self.device)
        return buf[:rows, :width]

    def autocast(self):
        """The context in which forward passes run (autocast to bfloat16, or a no-op)."""
        return self.torch.autocast(**self._autocast)

    def _latent(self, x):
        # SB3's extract_features would cast a bfloat16 input to float32 (preprocess_obs) only for autocast
        # to cast it back; the extractor is a flatten, and the inputs are already rows
        m = self.policy.mlp_extractor
        if self.active is None:
            return m(x)
        # compact rows: the first layers read only the weight columns of the active inputs
        sel = self.active.selection(x.shape[1], self.device)
        return self._through(m.policy_net, x, sel), self._through(m.value_net, x, sel)

    def _through(self, net, x, sel):
        first = net[0]
        h = self.torch.nn.functional.linear(x, self._first_weight(first, sel), first.bias)
        return net[1:](h)

    @contextlib.contextmanager
    def frozen_weights(self):
        """A block in which the weights do not change (a rollout: many small batches between two updates). In it
        the first layers' active columns are selected once per width, already in the dtype of the products,
        instead of at every call outside autograd."""
        self._frozen = {}
        try:
            yield self
        finally:
            self._frozen = None

    def _first_weight(self, first, sel):
        """Columns ``sel`` of the first layer's weight (kept inside :meth:`frozen_weights`)."""
        torch = self.torch
        if self._frozen is None or torch.is_grad_enabled():
            return first.weight.index_select(1, sel)
        key = (id(first), len(sel), sel.device)
        if key not in self._frozen:
            w = first.weight.index_select(1, sel)
            self._frozen[key] = w.to(torch.bfloat16) if self._autocast["enabled"] else w
        return self._frozen[key]

    def hint_slots(self, x):
        """The hint's slots of input rows ``x`` (the last ``num_actions`` values of a full row; the first of a
        compact one)."""
        a = self.policy.action_space.n
        return x[:, :a] if self.active is not None else x[:, x.shape[1] - a:]

    def legal_logits_values(self, x, legal):
        """Float32 logits of the legal pairs ``legal`` (:class:`~training.legal_pairs.LegalPairs` of the rows ``x``)
        and the values of the rows (call inside :meth:`autocast`)."""
        pi, vf = self._latent(x)
        z = legal.pick(self.policy.action_net(pi)).float()
        if self.prior_actions:
            from agents.hint import prior_of

            z = z + prior_of(legal.pick(self.hint_slots(x)).float())
        if self.inv_temperature != 1.0:
            z = z * self.inv_temperature
        return z, self.policy.value_net(vf).squeeze(-1).float()

    def logits_values(self, x, mask):
        """Float32 masked logits and values of a batch (call inside :meth:`autocast`)."""
        pi, vf = self._latent(x)
        logits = self.policy.action_net(pi).float()
        if self.prior_actions:
            from agents.hint import prior_logits

            logits = logits + prior_logits(self.hint_slots(x).float(), self.prior_actions)
        if self.inv_temperature != 1.0:
            logits = logits * self.inv_temperature
        return logits.masked_fill(~mask, -1e8), self.policy.value_net(vf).squeeze(-1).float()

    def act(self, x: np.ndarray, mask: np.ndarray):
        """A sample of every row's masked policy (each row has a legal action), its log-probability (computed as
        the update computes it, over the legal pairs) and the row's value."""
        torch = self.torch
        with torch.no_grad(), self.autocast():
            legal = LegalPairs(torch.as_tensor(mask, device=self.device))
            z, v = self.legal_logits_values(torch.as_tensor(x, device=self.device), legal)
            logp_legal = legal.log_softmax(z)
            # a sample of the softmax by the Gumbel-max trick (one pass, no distribution object)
            u = torch.rand_like(logp_legal).clamp_(1e-12, 1.0)
            pick = legal.row_argmax(logp_legal - torch.log(-torch.log(u)))
        return legal.cols[pick].cpu().numpy(), logp_legal[pick].cpu().numpy(), v.cpu().numpy()

    def value(self, x: np.ndarray) -> np.ndarray:
        torch = self.torch
        with torch.no_grad(), self.autocast():
            _, vf = self._latent(torch.as_tensor(x, device=self.device))
            return self.policy.value_net(vf).squeeze(-1).float().cpu().numpy()


def ppo_update(net: MaskedActorCritic, optimizer, ro: Rollout, adv: np.ndarray, ret: np.ndarray, args,
               kl_coef: float, rng: np.random.Generator) -> dict[str, float]:
    """Clipped PPO over the rollout's learner samples, plus ``kl_coef`` x cross-entropy on the hint."""
    torch = net.torch
    sel = ro.learner
    dev = net.device
    n = ro.samples
    data = {k: torch.as_tensor(v[sel], device=dev) for k, v in
            (("a", ro.actions), ("logp", ro.logp), ("adv", adv), ("ret", ret), ("hint", ro.hints))}
    data["x"] = torch.as_tensor(ro.inputs[:n] if ro.width is None else ro.inputs[:n, :ro.width], device=dev)  # a view
    data["mask"] = torch.as_tensor(ro.masks[:n], device=dev)
    stats = {"pg_loss": 0.0, "v_loss": 0.0, "entropy": 0.0, "kl_hint": 0.0, "approx_kl": 0.0, "clip_frac": 0.0}
    if n == 0:
        return stats
    batches = 0
    splits = max(1, n // args.batch_size)
    # a minibatch is a random set of rows, gathered in ascending order into one buffer kept from update to update
    x_rows = net.minibatch_buffer(-(-n // splits), data["x"].shape[1], data["x"].dtype)
    for _ in range(args.n_epochs):
        for idx in np.array_split(rng.permutation(n), splits):
            i = torch.as_tensor(np.sort(idx), device=dev)
            x = torch.index_select(data["x"], 0, i, out=x_rows[:len(i)])
            legal = LegalPairs(data["mask"][i])
            with net.autocast():
                z, v = net.legal_logits_values(x, legal)
            logp_legal = legal.log_softmax(z)
            logp = legal.at(logp_legal, data["a"][i])
            ratio = torch.exp(logp - data["logp"][i])
            a = data["adv"][i]
            a = (a - a.mean()) / (a.std() + 1e-8) if len(idx) > 1 else a
            pg = torch.max(-a * ratio, -a * torch.clamp(ratio, 1 - args.clip_range, 1 + args.clip_range)).mean()
            v_loss = 0.5 * ((v - data["ret"][i]) ** 2).mean()
            entropy = -legal.row_sum(logp_legal.exp() * logp_legal).mean()
            if net.prior_actions:  # the hint "scores": cross-entropy on the prior softmax((score - best) / temperature)
                slots = legal.pick(net.hint_slots(x)).float()
                q = slots / legal.row_sum(slots)[legal.rows].clamp(min=1e-12)
                kl_hint = -legal.row_sum(q * logp_legal.masked_fill(q <= 0, 0.0)).mean()
            elif args.hint:  # the hint's actions as the input marks them (one, or the tied-best set)
                marked = legal.pick(net.hint_slots(x)) > 0.5
                kl_hint = -legal.row_sum(logp_legal.exp().masked_fill(~marked, 0.0)).log().mean()
            else:
                kl_hint = -legal.at(logp_legal, data["hint"][i]).mean()
            loss = pg + args.vf_coef * v_loss - args.ent_coef * entropy + kl_coef * kl_hint
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.policy.parameters(), 0.5)
            optimizer.step()
            with torch.no_grad():
                stats["pg_loss"] += float(pg)
                stats["v_loss"] += float(v_loss)
                stats["entropy"] += float(entropy)
                stats["kl_hint"] += float(kl_hint)
                stats["approx_kl"] += float(((ratio - 1) - torch.log(ratio)).mean())
                stats["clip_frac"] += float(((ratio - 1).abs() > args.clip_range).float().mean())
            batches += 1
    return {k: v / max(batches, 1) for k, v in stats.items()}


# ============================================================================ training run

class _ModelShim:
    """What ``training.train``'s warm start and checkpoint helpers read from a model."""

    def __init__(self, policy, device: str):
        self.policy, self.device = policy, device
        self.num_timesteps, self._n_updates = 0, 0


def build_network(args, engine, device: str):
    from agents.hint import input_size
    from training.checkpoints import build_policy
    from training.train import hidden_sizes

    sizes = hidden_sizes(args.net_arch)
    meta = {"obs_size": input_size(engine.obs_layout.size, engine.num_actions, args.hint),
            "num_actions": engine.num_actions, "net_arch": {"pi": sizes, "vf": sizes}, "activation": args.activation}
    policy = build_policy(meta, device=device)
    for g in policy.optimizer.param_groups:
        g["lr"] = args.learning_rate
    fuse_adam(policy.optimizer)
    return policy


def fuse_adam(optimizer) -> None:
    """Step ``optimizer`` (SB3's Adam) with torch's fused kernel: the same update, about 3-6x faster on a
    CPU over the first layers' millions of weights. Call again after ``load_state_dict``, which brings
    back the saved groups' settings."""
    for g in optimizer.param_groups:
        g["fused"], g["foreach"] = True, False


def network_and_games(args, policy, pool, engine, device: str, seed: int) -> tuple[MaskedActorCritic, SelfPlayGames]:
    """The trainer's driver of ``policy`` and its games, sharing one set of active input columns
    (``training.active_inputs``: the sample rows keep only the observation columns ever set)."""
    from agents.hint import has_prior, input_size
    from training.active_inputs import ActiveInputs

    obs_size = engine.obs_layout.size
    active = ActiveInputs(obs_size, input_size(obs_size, engine.num_actions, args.hint) - obs_size)
    net = MaskedActorCritic(policy, device, args.temperature, args.precision,
                            engine.num_actions if has_prior(args.hint) else 0, active)
    return net, SelfPlayGames(args, pool, net.act, net.value, seed=seed, active=active, frozen=net.frozen_weights)


def checkpoint_meta(args, engine, shim: _ModelShim, pool, train_seconds: float) -> dict[str, Any]:
    from training.checkpoints import layout_digest
    from training.train import hidden_sizes
    from wargame_envs.registry import resolve

    sizes = hidden_sizes(args.net_arch)
    return {"battle": args.battle.rsplit("_v", 1)[0], "env": resolve(args.battle), "obs_size": engine.obs_layout.size,
            "obs_layout": layout_digest(engine), "num_actions": engine.num_actions,
            "net_arch": {"pi": sizes, "vf": sizes}, "activation": args.activation, "hint": args.hint,
            "timesteps": int(shim.num_timesteps), "n_updates": int(shim._n_updates),
            "train_seconds": float(train_seconds), "args": dataclasses.asdict(args), "pool": pool.stats()}


def train_batched(args):
    """``wargames train --backend batched``: see the module docstring. Returns a ``TrainResult``."""
    import torch
    from stable_baselines3.common.logger import configure

    from agents.hint import has_prior
    from agents.mlp import MlpActor
    from training.checkpoints import load_checkpoint, save_checkpoint
    from training.curves import set_log_aside
    from training.train import (TrainResult, check_args, checkpoint_about, checkpoint_interval, checkpoint_path,
                                evaluate, imitation_warm_start, make_pool, prepare_out, resolve_device,
                                resume_settings)

    args = check_args(args)
    args = resume_settings(args)   # before prepare_out: a run that cannot resume changes nothing
    out = prepare_out(args)
    keep_freed_memory()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device = resolve_device(args.device)
    pool, missing = make_pool(args)
    for m in missing:
        print(f"note: baseline opponent left out of the pool: {m}", file=sys.stderr)
    if args.self_play > 0:
        pool.add(SELF, None, SELF)
    from wargame_envs.registry import make_engine

    engine = make_engine(args.battle)
    policy = build_network(args, engine, device)
    shim = _ModelShim(policy, device)
    ckpt, prior_seconds = checkpoint_path(args), 0.0
    if args.resume and ckpt.exists():
        c = load_checkpoint(ckpt, engine=engine, device=device)
        policy.load_state_dict(c.policy_state, strict=True)
        policy.optimizer.load_state_dict(c.optimizer_state)
        fuse_adam(policy.optimizer)
        shim.num_timesteps, shim._n_updates = int(c.meta["timesteps"]), int(c.meta.get("n_updates", 0))
        pool.restore(c.meta["pool"], c.pool_arrays, c.meta["activation"], seed=shim.num_timesteps,
                     prior=has_prior(args.hint))
        prior_seconds = float(c.meta.get("train_seconds", 0.0))
        print(f"resumed from {ckpt} at {shim.num_timesteps} timesteps", file=sys.stderr)
    t0 = time.time()
    deadline = t0 + args.minutes * 60 if args.minutes > 0 else float("inf")
    if shim.num_timesteps == 0 and args.imitation_games > 0 and "scripted" in pool.entries:
        t = time.time()
        bc = imitation_warm_start(shim, args)
        print(f"imitation warm start: {bc['decisions']:.0f} scripted decisions, actor accuracy "
              f"{bc['accuracy']:.2f}, {time.time() - t:.0f} s", file=sys.stderr)
    set_log_aside(out / "tb")   # a resumed run's log goes on from the old one (training.curves reads both)
    logger = configure(str(out / "tb"), ["tensorboard", "csv"])
    net, games = network_and_games(args, policy, pool, engine, device, seed=args.seed + shim.num_timesteps)
    kl_on = bool(args.hint) or "scripted" in pool.entries
    rng = np.random.default_rng(args.seed)
    cap = args.total_timesteps if args.total_timesteps is not None else 10**15
    start_steps, t_learn, busy = shim.num_timesteps, time.time(), 0.0
    next_snapshot = (shim.num_timesteps // args.snapshot_every + 1) * args.snapshot_every
    next_ckpt = time.time() + checkpoint_interval(args)

    def save_now() -> Path:
        meta = checkpoint_meta(args, engine, shim, pool, prior_seconds + time.time() - t0)
        return save_checkpoint(ckpt, meta, policy.state_dict(), policy.optimizer.state_dict(), pool.snapshot_arrays())

    bar = _progress(args, deadline, cap, start_steps)
    try:
        while time.time() < deadline and shim.num_timesteps < cap:
            t_iter = time.time()
            games.scripted_noise = curriculum_rate(args, shim.num_timesteps)
            ro, last_v = games.collect(args.n_steps)
            adv, ret = advantages(ro.values, ro.learner, ro.seat, ro.rewards, ro.done, last_v, args.gamma,
                                  args.gae_lambda)
            kl_coef = args.kl_coef * 0.5 ** ((shim.num_timesteps - start_steps) / args.kl_half_life) if kl_on else 0.0
            stats = ppo_update(net, policy.optimizer, ro, adv, ret, args, kl_coef, rng)
            busy += time.time() - t_iter
            samples = int(ro.learner.sum())
            shim.num_timesteps += samples
            shim._n_updates += 1
            logger.record("time/total_timesteps", shim.num_timesteps)
            _log(logger, games, stats, kl_coef, shim.num_timesteps - start_steps, busy)
            logger.dump(shim.num_timesteps)
            if shim.num_timesteps >= next_snapshot:
                actor = MlpActor.from_state_dict(policy.state_dict(), args.activation, has_prior(args.hint))
                pool.add_snapshot(actor, shim.num_timesteps, seed=args.seed + shim.num_timesteps)
                next_snapshot += args.snapshot_every
            if time.time() >= next_ckpt:
                save_now()
                next_ckpt = time.time() + checkpoint_interval(args)
            if bar is not None:
                bar.update(shim.num_timesteps, time.time())
    except KeyboardInterrupt:
        print("\ninterrupted: saving a checkpoint", file=sys.stderr)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.time() - t_learn
    path = save_now()
    steps = shim.num_timesteps - start_steps
    actor = MlpActor.from_state_dict(policy.state_dict(), args.activation, has_prior(args.hint))
    evaluation = evaluate(actor, args) if args.eval_games > 0 else {}
    if evaluation:
        (out / "eval.json").write_text(json.dumps({"about": checkpoint_about(path), **evaluation}, indent=1))
    return TrainResult(path, int(shim.num_timesteps), int(steps), seconds, steps / max(busy, 1e-9), evaluation,
                       missing)


def curriculum_rate(args, steps: int) -> float:
    """The scripted opponent's rate of random moves after ``steps`` learner steps: ``curriculum_epsilon`` at first,
    falling linearly to 0 at ``curriculum_steps``."""
    return float(args.curriculum_epsilon) * max(0.0, 1.0 - steps / args.curriculum_steps)


def keep_freed_memory() -> None:
    """Let glibc keep freed blocks of up to 1 GiB for reuse. By default it hands out every block over a few
    MB as fresh pages and returns them on free, and the update's tensors are 10-300 MB each: zeroing those
    pages (page faults) cost more than the arithmetic on them (a 4,096-row gather took 60 ms instead of 6).
    A no-op outside glibc."""
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is not None:
        m_trim_threshold, m_mmap_threshold = -1, -3
        if mallopt(m_mmap_threshold, 1 << 30) or mallopt(m_mmap_threshold, 1 << 25):  # glibc may cap it at 32 MB
            mallopt(m_trim_threshold, 1 << 30)


def _log(logger, games: SelfPlayGames, stats: dict[str, float], kl_coef: float, steps: int, busy: float) -> None:
    for k, v in stats.items():
        logger.record(f"train/{k}", v)
    logger.record("train/kl_coef", kl_coef)
    if games.args.curriculum_epsilon:
        logger.record("train/curriculum_epsilon", games.scripted_noise)
    logger.record("time/learner_steps_per_second", steps / max(busy, 1e-9))
    recent = games.finished[-400:]
    for name in {o for o, _, _ in recent}:
        for seat in (0, 1):
            scores = [s for o, p, s in recent if o == name and p == seat]
            if scores:
                logger.record(f"selfplay/win_rate_{name}_{seat}", float(np.mean(scores)))
    del games.finished[:-400]


class _progress:
    """A tqdm bar over the time budget (or the step cap), when ``args.progress``."""

    def __new__(cls, args, deadline, cap, start):
        if not args.progress:
            return None
        return super().__new__(cls)

    def __init__(self, args, deadline, cap, start):
        from tqdm import tqdm

        self.by_time = deadline != float("inf")
        self.t0, self.deadline, self.cap, self.start = time.time(), deadline, cap, start
        total = round(deadline - self.t0) if self.by_time else cap - start
        self.bar = tqdm(total=total, unit="s" if self.by_time else "step", desc="training", file=sys.stderr,
                        mininterval=2.0)

    def update(self, steps: int, now: float) -> None:
        done = round(min(now, self.deadline) - self.t0 if self.by_time else steps - self.start)
        self.bar.set_postfix(steps=steps, refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        self.bar.close()
