"""Self-play env (reward attribution, PettingZoo #1147), opponent pool, trainer, checkpoints, policy agent."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from agents.base import RandomAgent  # noqa: E402
from training import checkpoints as C  # noqa: E402
from agents.mlp import MlpActor, SnapshotAgent  # noqa: E402
from training.selfplay import OpponentPool, SelfPlayEnv  # noqa: E402
from wargame_envs.core.dice import Dice, ScriptedDice  # noqa: E402
from wargame_envs.core.errors import IllegalActionError, WargameError  # noqa: E402
from wargame_envs.registry import make_engine  # noqa: E402

ENGINE = make_engine("berestechko")
PL, CT = 0, 1
SCALE = 0.05


# ------------------------------------------------------------------------- helpers

def position(units: dict, active: str = "polish_lithuanian", dice=None, round: int = 1, **extra) -> dict:
    out = {"round": round, "active": active, "units": {k: {"hex": v} if isinstance(v, str) else v for k, v in units.items()},
           "commands": {side: {"reconnaissance": 0, "interaction": 0} for side in ENGINE.agents}}
    if dice is not None:
        out["dice"] = list(dice)
    out.update(extra)
    return out


def action(step: str) -> int:
    """``die:i`` (the i-th die), ``unit:Name``, ``hex:33`` or an option name."""
    kind, _, arg = step.partition(":")
    c = ENGINE.codec
    if kind == "die":
        return c.DIE + int(arg)
    if kind == "unit":
        return c.UNIT + ENGINE.scenario.names.index(arg)
    if kind == "hex":
        return ENGINE.grid.index[arg]
    return c.opt(step)


class SequenceAgent:
    """Plays the listed decisions in order and records who it was asked to decide for."""

    name = "sequence"

    def __init__(self, steps):
        self.steps, self.calls = list(steps), []

    def reset(self, seed=None):
        pass

    def act(self, engine, state, player, mask):
        self.calls.append((player, engine.decision_name(state)))
        a = action(self.steps[len(self.calls) - 1])
        assert mask[a], f"{self.steps[len(self.calls) - 1]} illegal at {engine.decision_name(state)}"
        return a


def env_with(opponent, shaped=True, **kw) -> SelfPlayEnv:
    pool = OpponentPool()
    pool.add("opp", opponent)
    return SelfPlayEnv("berestechko", pool, shaped=shaped, shaped_scale=SCALE, **kw)


def play_episode(env, side, learner_steps, pos, rolls=()):
    """Runs one episode with scripted dice; returns (rewards, terminated, truncated, last info)."""
    obs, info = env.reset(seed=0, options={"learner_side": side, "opponent": "opp", "position": pos,
                                           "dice": ScriptedDice(rolls)})
    assert obs[ENGINE.obs_layout.slices["me"]].tolist() == [float(side == 0), float(side == 1)]
    rewards = []
    for step in learner_steps:
        assert ENGINE.current_player(env.state) == side
        obs, r, term, trunc, info = env.step(action(step))
        rewards.append(r)
        if term or trunc:
            break
    return rewards, term, trunc, info


# Tatar spirit position (9): P-L's Wolff attacks Kalga, the Tatars withdraw, and the C-T player
# (inactive, mid-turn) decides; "end_battle" ends the game with a P-L win, 3-0 in VP.
TATAR = position({"Wolff": "33", "Kalga": "43", "Amurat": "57", "Hrunka": "52"}, dice=[3, 1, 1], tatar_spirit=1)
TATAR_PL = ["die:0", "unit:Wolff", "hex:33", "hex:43"]
TATAR_ROLLS = [6, 6]


# ------------------------------------------------------------------------- reward attribution

def test_reward_goes_to_the_learner_when_the_opponent_ends_the_game_mid_turn():
    opponent = SequenceAgent(["end_battle"])
    rewards, term, trunc, info = play_episode(env_with(opponent), PL, TATAR_PL, TATAR, TATAR_ROLLS)
    assert term and not trunc and len(rewards) == 4
    assert opponent.calls == [(CT, "tatar_decision")]  # the inactive player's decision went to the opponent
    assert rewards[-1] > 0.5  # the learner's last step carries the win it did not take itself
    assert sum(rewards) == pytest.approx(1.0 + SCALE * 3)  # +1 and VP 3-0 (shaped telescopes)
    assert info["outcome"] == 1.0 and info["learner_side"] == PL


def test_the_same_game_from_the_other_seat_is_a_loss_and_opponent_decisions_are_no_learner_steps():
    opponent = SequenceAgent(TATAR_PL)
    env = env_with(opponent)
    rewards, term, trunc, info = play_episode(env, CT, ["end_battle"], TATAR, TATAR_ROLLS)
    # Reset played the opponent's whole throw (4 decisions); the learner's first step is its own decision.
    assert [p for p, _ in opponent.calls] == [PL] * 4
    assert term and len(rewards) == 1
    assert rewards[0] == pytest.approx(-1.0 - SCALE * 3)
    assert info["outcome"] == 0.0 and info["decisions"] == 5
    assert env.pool.win_rate("opp", CT) < 0.5 and env.pool.entries["opp"].games[PL] == 0


@pytest.mark.parametrize("side,pos,steps,expected", [
    # end of round 2 at VP 0-0 after P-L's move: ties go to the C-T player, so the P-L learner loses
    (PL, position({"Zemska": {"hex": "02", "activations": 1}, "Hrunka": "52"}, dice=[5, 1, 1], round=2),
     ["die:0", "unit:Zemska", "hex:02"], -1.0),
    # C-T's last activation ends round 2: the C-T learner wins on its own move
    # (every unit of a side activated twice ends the round, 4.2: P-L keeps one activation here)
    (CT, position({"Zemska": {"hex": "02", "activations": 1}, "Hrunka": {"hex": "52", "activations": 1}},
                  active="cossack_tatar", dice=[3, 1, 1], round=2), ["die:0", "unit:Hrunka", "hex:52"], 1.0),
])
def test_terminal_reward_sign_on_the_learners_own_move(side, pos, steps, expected):
    opponent = SequenceAgent([])
    rewards, term, _, info = play_episode(env_with(opponent, shaped=False), side, steps, pos)
    assert term and rewards == [0.0] * (len(steps) - 1) + [expected]
    assert opponent.calls == [] and info["outcome"] == (expected > 0)


def test_every_learner_step_is_a_learner_decision_in_random_games():
    class Counting(RandomAgent):
        calls = 0

        def act(self, engine, state, player, mask):
            Counting.calls += 1
            assert player != env.side
            return super().act(engine, state, player, mask)

    env = env_with(Counting(3), shaped=False)
    rng = np.random.default_rng(0)
    for episode in range(4):  # alternating sides
        Counting.calls = 0
        env.reset(seed=episode, options={"opponent": "opp"})
        assert env.side == episode % 2
        steps, done = 0, False
        while not done:
            mask = env.action_masks()
            assert ENGINE.current_player(env.state) == env.side
            assert np.array_equal(mask, ENGINE.legal_mask(env.state))
            _, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
            done = term or trunc
            assert r == 0.0 or done
        assert term and r == float(ENGINE.returns(env.state)[env.side]) and r in (1.0, -1.0)
        assert steps + Counting.calls == info["decisions"]


def test_truncation_is_not_a_loss_and_illegal_actions_are_refused():
    env = env_with(RandomAgent(0), shaped=False, max_steps=10)
    env.reset(seed=1, options={"opponent": "opp", "learner_side": PL})
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    done = False
    while not done:
        _, r, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = term or trunc
    assert trunc and not term and r == 0.0 and info["outcome"] == 0.5 and info["decisions"] == 10


def test_the_truncation_reward_is_paid_on_the_cut_step_only():
    env = env_with(RandomAgent(0), shaped=False, max_steps=10, truncation_reward=-1.0)
    env.reset(seed=1, options={"opponent": "opp", "learner_side": PL})
    rewards, done = [], False
    while not done:
        _, r, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        rewards.append(r)
        done = term or trunc
    assert trunc and rewards[-1] == -1.0 and not any(rewards[:-1]) and info["outcome"] == 0.5


def test_bad_reset_options_are_named_and_a_failed_reset_leaves_the_env_as_it_was():
    """audit 2, finding 7: options and settings checked before anything changes; the old game goes on."""
    env = env_with(RandomAgent(0), shaped=False)
    env.reset(seed=1)
    legal = int(np.flatnonzero(env.action_masks())[0])

    def snapshot():
        return env.side, env.opponent, env.dice, env.state.digest(), env._next_side, env.np_random.bit_generator.state

    before = snapshot()
    for options, fragment in [({"learner_side": 2}, "field 'learner_side' = 2: expected 0 or 1"),
                              ({"learner_side": -1}, "field 'learner_side' = -1: expected 0 or 1"),
                              ({"learner_side": "x"}, "field 'learner_side' = 'x': expected 0 or 1"),
                              ({"opponent": "nobody"},
                               r"field 'opponent' = 'nobody': expected one of the pool's \['opp'\]"),
                              ({"dice": 3}, "field 'dice' = 3: expected a Dice"),
                              ({"variant": 1}, "variant"), ({"learner_side": 0, "variant": 1}, "variant")]:
        with pytest.raises(ValueError, match=fragment):
            env.reset(seed=2, options=options)
        assert snapshot() == before, options
    for seed in (-1, 2.5, "x"):
        with pytest.raises(ValueError, match="seed = .*: expected a non-negative integer"):
            env.reset(seed=seed)
        assert snapshot() == before
    _, _, term, _, _ = env.step(legal)  # the old game goes on, with the learner on its seat
    assert not term and env.side == before[0]
    for kw, fragment in [(dict(shaped_scale=float("nan")), "shaped_scale = nan"),
                         (dict(shaped_scale="abc"), "shaped_scale = 'abc'"),
                         (dict(truncation_reward=float("inf")), "truncation_reward = inf"),
                         (dict(max_steps=0), "max_steps = 0: expected a positive integer"),
                         (dict(hint="scripted", hint_seed=-1), "hint_seed = -1: expected a non-negative integer"),
                         (dict(first_side="x"), "first_side = 'x': expected 0 or 1")]:
        with pytest.raises(ValueError, match=fragment):
            SelfPlayEnv("berestechko", env.pool, shaped=True, **kw)


def test_resuming_takes_the_checkpoints_hint_and_architecture(tmp_path, capsys):
    """audit 2, finding 10: a --hint other than the checkpoint's no longer fails in load_state_dict."""
    from training import train as T
    from training.evaluate import UsageError

    meta = {"battle": "berestechko", "env": ENGINE.name, "obs_size": ENGINE.obs_layout.size,
            "obs_layout": C.layout_digest(ENGINE), "num_actions": ENGINE.num_actions,
            "net_arch": {"pi": [16], "vf": [16]}, "activation": "relu", "hint": "scripted", "timesteps": 64,
            "args": {}, "pool": []}
    C.save_checkpoint(tmp_path / "checkpoints" / "latest.zip", meta, C.build_policy(meta).state_dict())
    args = T.check_args(T.TrainArgs(out=str(tmp_path), resume=True, hint="", net_arch="64,64"))
    adopted = T.resume_settings(args)
    assert (adopted.hint, adopted.net_arch, adopted.activation) == ("scripted", "16", "relu")
    err = capsys.readouterr().err
    assert "note: resuming" in err and "--net-arch '16', --activation 'relu', --hint 'scripted'" in err
    fresh = T.dataclasses.replace(args, resume=False)
    assert T.resume_settings(fresh) == fresh  # a fresh run keeps its flags
    meta = {**meta, "hint": "scores"}
    C.save_checkpoint(tmp_path / "checkpoints" / "latest.zip", meta, C.build_policy(meta).state_dict())
    with pytest.raises(UsageError, match="--resume .*latest.zip: it was trained with .*--hint 'scores'.*"
                                         "--backend batched"):
        T.resume_settings(args)


def test_a_checkpoint_whose_battle_and_env_disagree_is_refused(tmp_path):
    """audit 2, finding 16: the agent builds its observer from 'battle', the engine check reads 'env'."""
    import hashlib

    from agents.registry import make_agent

    meta = {"battle": "berestechko", "env": ENGINE.name, "obs_size": ENGINE.obs_layout.size,
            "obs_layout": C.layout_digest(ENGINE), "num_actions": ENGINE.num_actions,
            "net_arch": {"pi": [16], "vf": [16]}, "activation": "tanh", "hint": "scripted", "timesteps": 64,
            "args": {}, "pool": []}
    with pytest.raises(C.CheckpointError, match="metadata field 'battle' = 'kulikovo' does not name the battle of "
                                                "field 'env' = 'berestechko_v0'"):
        C.save_checkpoint(tmp_path / "bad.zip", {**meta, "battle": "kulikovo"}, C.build_policy(meta).state_dict())
    good = C.save_checkpoint(tmp_path / "good.zip", meta, C.build_policy(meta).state_dict())
    forged = tmp_path / "forged.zip"
    with zipfile.ZipFile(good) as z:
        members = {n: z.read(n) for n in z.namelist()}
    inner = {**json.loads(members["meta.json"]), "battle": "kulikovo"}
    members["meta.json"] = json.dumps(inner).encode()
    with zipfile.ZipFile(forged, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    digest = hashlib.sha256(forged.read_bytes()).hexdigest()
    C.sidecar_path(forged).write_text(json.dumps({**inner, "zip_sha256": digest}))
    with pytest.raises(C.CheckpointError, match="forged.zip: metadata field 'battle' = 'kulikovo'"):
        make_agent(f"ckpt:{forged}", "berestechko", 0)


# ------------------------------------------------------------------------- opponent pool

def test_pfsp_draws_opponents_that_still_beat_the_learner_more_often():
    pool = OpponentPool(power=2.0, floor=0.05)
    pool.add("beaten", RandomAgent(0))
    pool.add("strong", RandomAgent(1))
    for _ in range(200):
        pool.record("beaten", PL, 1.0)
        pool.record("strong", PL, 0.0)
    w = pool.weights(PL)
    assert w["beaten"] == 0.05 and w["strong"] > 0.9
    assert pool.weights(CT) == {"beaten": 0.25, "strong": 0.25}  # per side: no games as C-T yet
    draws = [pool.sample(PL, np.random.default_rng(i)).name for i in range(400)]
    assert draws.count("strong") > 300


@pytest.mark.parametrize("density", [0.01, 0.3, 0.9])
def test_the_numpy_actor_reads_only_the_nonzero_inputs_with_the_same_result(density):
    """``agents.mlp.sparse_product``: the first layer skips the weight rows of inputs that are zero (in every row
    of a batch); one input or a batch, sparse or dense, the product is the dense one."""
    from agents.mlp import sparse_product

    rng = np.random.default_rng(7)
    w = rng.standard_normal((500, 16)).astype(np.float32)
    x = np.where(rng.random((6, 500)) < density, rng.random((6, 500)), 0.0).astype(np.float32)
    np.testing.assert_allclose(sparse_product(x, w), x @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sparse_product(x[2], w), x[2] @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(sparse_product(np.zeros(500, np.float32), w), np.zeros(16, np.float32))


def test_a_pair_draw_gives_the_side_the_learner_does_worse_on_more_games():
    """``sample_pair`` (``--pfsp-sides``): (side, opponent) pairs by the PFSP weights of both sides."""
    pool = OpponentPool(power=1.0, floor=0.05)
    pool.add("scripted", RandomAgent(0))
    for _ in range(300):
        pool.record("scripted", PL, 1.0)   # the learner wins every game as P-L
        pool.record("scripted", CT, 0.25)  # and a quarter as C-T
    rng = np.random.default_rng(0)
    sides = [pool.sample_pair(rng)[0] for _ in range(2000)]
    share = sides.count(CT) / len(sides)
    expected = (1 - pool.win_rate("scripted", CT)) / ((1 - pool.win_rate("scripted", CT)) + 0.05)
    assert abs(share - expected) < 0.03 and share > 0.9
    with pytest.raises(RuntimeError, match="empty"):
        OpponentPool().sample_pair(rng)


def test_snapshots_are_capped_and_numpy_actor_matches_the_torch_policy():
    meta = {"obs_size": ENGINE.obs_layout.size, "num_actions": ENGINE.num_actions,
            "net_arch": {"pi": [16, 8], "vf": [16]}, "activation": "tanh"}
    policy = C.build_policy(meta)
    actor = MlpActor.from_state_dict(policy.state_dict(), "tanh")
    s = ENGINE.new_state(None, Dice(0))
    obs, mask = ENGINE.observe(s, PL), ENGINE.legal_mask(s)
    with torch.no_grad():
        probs = policy.get_distribution(torch.as_tensor(obs)[None], action_masks=mask[None]).distribution.probs[0]
    z = np.where(mask, actor.logits(obs), -np.inf)
    np_probs = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    np.testing.assert_allclose(np_probs, probs.numpy(), atol=1e-5)
    frozen = actor.logits(obs)
    with torch.no_grad():
        for p in policy.parameters():
            p.add_(1.0)  # the live policy trains on; the snapshot must not follow
    np.testing.assert_array_equal(actor.logits(obs), frozen)
    pool = OpponentPool(max_snapshots=2)
    for t in (10, 20, 30):
        pool.add_snapshot(actor, t)
    assert sorted(pool.entries) == ["snapshot@20", "snapshot@30"]
    agent = pool.entries["snapshot@30"].agent
    assert isinstance(agent, SnapshotAgent) and mask[agent.act(ENGINE, s, PL, mask)]


# ------------------------------------------------------------------------- training and checkpoints

def tiny_args(out: Path) -> list[str]:
    return ["berestechko", "--minutes", "0", "--total-timesteps", "256", "--n-envs", "2", "--n-steps", "64",
            "--batch-size", "64", "--n-epochs", "1", "--net-arch", "32,32", "--snapshot-every", "128",
            "--eval-games", "1", "--out", str(out), "--no-progress", "--checkpoint-minutes", "100",
            "--imitation-games", "1", "--imitation-epochs", "1"]


def test_imitation_warm_start_learns_the_scripted_moves(tmp_path):
    from training import train as T

    args = T.parse_args(tiny_args(tmp_path)[:-4] + ["--imitation-games", "2", "--baselines", "random",
                                                    "--imitation-batch-size", "64"])
    venv = T.make_vec_env(args, T.make_pool(args)[0])
    model = T.make_model(args, venv, "cpu")
    before = T.imitation_warm_start(model, T.dataclasses.replace(args, imitation_epochs=0))
    after = T.imitation_warm_start(model, T.dataclasses.replace(args, imitation_epochs=6))
    assert before["decisions"] == after["decisions"] > 300
    assert after["accuracy"] > before["accuracy"] + 0.2


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny training run via the CLI entry point, then resumed to 512 timesteps."""
    from training.train import main

    out = tmp_path_factory.mktemp("run")
    first = main(tiny_args(out))
    first_meta = json.loads(C.sidecar_path(first.checkpoint).read_text())
    second = main(tiny_args(out)[:4] + ["512"] + tiny_args(out)[5:] + ["--resume"])
    return out, first, first_meta, second


def test_training_smoke_writes_a_checkpoint_tensorboard_and_evaluation(trained):
    out, first, meta, _ = trained
    assert first.checkpoint == out / "checkpoints" / "latest.zip" and first.timesteps >= 256
    assert first.steps_per_second > 0
    assert meta["env"] == "berestechko_v0" and meta["obs_size"] == ENGINE.obs_layout.size
    assert meta["obs_layout"] == C.layout_digest(ENGINE)
    assert meta["num_actions"] == ENGINE.num_actions and meta["net_arch"] == {"pi": [32, 32], "vf": [32, 32]}
    assert {"torch", "stable_baselines3", "sb3_contrib"} <= set(meta["versions"])
    assert any(e["name"].startswith("snapshot@") for e in meta["pool"])
    assert any(p.name.startswith("events.out.tfevents") for p in (out / "tb").iterdir())
    assert set(json.loads((out / "eval.json").read_text())) == {"about", "random", "scripted"}
    assert not [p for p in (out / "checkpoints").iterdir() if p.name.endswith(".tmp")]


def test_resume_continues_timesteps_optimizer_and_pool(trained):
    out, first, first_meta, second = trained
    meta = C.read_meta(second.checkpoint)
    assert meta["timesteps"] >= 512 and second.steps_this_run == meta["timesteps"] - first_meta["timesteps"] > 0
    assert meta["n_updates"] > first_meta["n_updates"]
    snaps = {e["name"] for e in meta["pool"] if e["kind"] == "snapshot"}
    assert {e["name"] for e in first_meta["pool"] if e["kind"] == "snapshot"} <= snaps
    ckpt = C.load_checkpoint(second.checkpoint, battle="berestechko", engine=ENGINE)
    assert ckpt.optimizer_state["state"]  # Adam moments were saved and reloaded
    # issue 12 item 8: the evaluation beside the checkpoint describes that checkpoint, not the first run's
    about = json.loads((out / "eval.json").read_text())["about"]
    assert about == {"checkpoint": str(second.checkpoint), "timesteps": str(meta["timesteps"]),
                     "zip_sha256": meta["zip_sha256"]}
    assert about["timesteps"] != str(first_meta["timesteps"])


def test_a_missing_checkpoint_file_is_named(tmp_path):
    with pytest.raises(C.CheckpointError, match="absent.zip: checkpoint file not found"):
        C.load_checkpoint(tmp_path / "absent.zip")


def test_the_sidecar_given_for_the_checkpoint_is_named_as_such(tmp_path):
    """audit 8, finding 9: the .json beside the .zip is no corrupt checkpoint: the error names the .zip to give."""
    side = tmp_path / "latest.json"
    side.write_text("{}")
    with pytest.raises(C.CheckpointError, match="not there"):
        C.read_meta(side)
    (tmp_path / "latest.zip").write_bytes(b"PK")
    for read in (C.read_meta, C.load_checkpoint, C.load_policy):
        with pytest.raises(C.CheckpointError) as e:
            read(str(side))
        assert str(e.value) == (f"{side} is a checkpoint's sidecar (its metadata); give the checkpoint's .zip "
                                f"({tmp_path / 'latest.zip'})")


def broken_copy(src: Path, dst: Path, data: bytes | None = None, sidecar: dict | None = None) -> Path:
    dst.write_bytes(src.read_bytes() if data is None else data)
    side = json.loads(C.sidecar_path(src).read_text()) if sidecar is None else sidecar
    C.sidecar_path(dst).write_text(json.dumps(side))
    return dst


def test_truncated_corrupt_and_foreign_checkpoints_raise_checkpoint_error(trained, tmp_path):
    src = trained[1].checkpoint
    raw = src.read_bytes()
    flipped = bytearray(raw)
    flipped[len(raw) // 2] ^= 0xFF
    cases = {
        "truncated.zip": (broken_copy(src, tmp_path / "truncated.zip", raw[: len(raw) // 2]), "hash"),
        "corrupt.zip": (broken_copy(src, tmp_path / "corrupt.zip", bytes(flipped)), "hash"),
    }
    lone = tmp_path / "foreign.zip"
    with zipfile.ZipFile(lone, "w") as z:
        z.writestr("data", "{}")
    cases["foreign.zip"] = (lone, "no sidecar")
    bad_json = broken_copy(src, tmp_path / "badjson.zip")
    C.sidecar_path(bad_json).write_text("{not json")
    cases["badjson.zip"] = (bad_json, "not valid JSON")
    meta = json.loads(C.sidecar_path(src).read_text())
    cases["othersize.zip"] = (broken_copy(src, tmp_path / "othersize.zip", sidecar={**meta, "obs_size": 7}),
                              "observation size 7")
    cases["otherlayout.zip"] = (broken_copy(src, tmp_path / "otherlayout.zip", sidecar={**meta, "obs_layout": "0" * 16}),
                                "observation layout")
    for name, (path, why) in cases.items():
        with pytest.raises(C.CheckpointError, match=why) as e:
            C.load_checkpoint(path, battle="berestechko", engine=ENGINE)
        assert name in str(e.value) and isinstance(e.value, WargameError)
    with pytest.raises(C.CheckpointError, match="not breitenfeld_v0"):
        C.load_checkpoint(src, battle="breitenfeld")


class _Payload:
    """Unpickling this would create ``marker``: a stand-in for arbitrary code in a pickle."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def test_checkpoint_with_a_code_carrying_pickle_is_refused_without_running_it(trained, tmp_path):
    src = trained[1].checkpoint
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(src) as z:
        members = {n: z.read(n) for n in z.namelist()}
    members["policy.pt"] = C._tensor_bytes({"mlp_extractor.policy_net.0.weight": _Payload(str(marker))})
    with zipfile.ZipFile(evil, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    import hashlib

    meta = json.loads(C.sidecar_path(src).read_text())
    meta["zip_sha256"] = hashlib.sha256(evil.read_bytes()).hexdigest()  # a consistent, deliberate forgery
    C.sidecar_path(evil).write_text(json.dumps(meta))
    with pytest.raises(C.CheckpointError, match="evil.zip: policy.pt cannot be read as weights only"):
        C.load_checkpoint(evil)
    assert not marker.exists()


def test_a_forged_net_arch_is_refused_before_the_network_is_built(tmp_path):
    """Audit finding 15: a self-consistent checkpoint whose sidecar claims huge layers must not make torch try to
    allocate them; it is a CheckpointError naming the file and the layer that does not fit."""
    import hashlib

    from agents.registry import make_agent

    meta = {"battle": "berestechko", "env": ENGINE.name, "obs_size": ENGINE.obs_layout.size,
            "obs_layout": C.layout_digest(ENGINE), "num_actions": ENGINE.num_actions,
            "net_arch": {"pi": [16], "vf": [8]}, "activation": "tanh", "hint": "", "timesteps": 64, "args": {},
            "pool": []}
    good = C.save_checkpoint(tmp_path / "good.zip", meta, C.build_policy(meta).state_dict())
    forged = tmp_path / "forged.zip"
    with zipfile.ZipFile(good) as z:
        members = {n: z.read(n) for n in z.namelist()}
    inner = {**json.loads(members["meta.json"]), "net_arch": {"pi": [10**9], "vf": [10**9]}}
    members["meta.json"] = json.dumps(inner).encode()
    with zipfile.ZipFile(forged, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    side = {**inner, "zip_sha256": hashlib.sha256(forged.read_bytes()).hexdigest()}
    C.sidecar_path(forged).write_text(json.dumps(side))
    with pytest.raises(C.CheckpointError, match=r"forged.zip: weights do not fit .*net_arch .*"
                                                r"mlp_extractor.policy_net.0.weight is \[16, \d+\] in policy.pt"):
        make_agent(f"ckpt:{forged}", "berestechko", 0)
    policy, _ = C.load_policy(good, battle="berestechko")  # a genuine checkpoint still loads
    assert {k: tuple(v.shape) for k, v in policy.state_dict().items()} == C.policy_shapes(C.read_meta(good))


def test_policy_agent_plays_legal_actions_with_both_backends(trained):
    from agents.policy import PolicyAgent
    from agents.registry import make_agent

    path = trained[3].checkpoint
    agent = make_agent(f"ckpt:{path}", "berestechko", seed=1)
    assert isinstance(agent, PolicyAgent)
    torch_agent = PolicyAgent(path, backend="torch", seed=1)  # the same hint tie-breaks as agent
    sampled = PolicyAgent(path, deterministic=False, seed=0, backend="torch")
    opponent = RandomAgent(2)
    dice = Dice(5)
    s = ENGINE.new_state(None, dice)
    while not ENGINE.is_terminal(s):  # a whole game as P-L; both backends agree on every decision
        p, mask = ENGINE.current_player(s), ENGINE.legal_mask(s)
        if p == PL:
            a = agent.act(ENGINE, s, p, mask)
            assert mask[a] and torch_agent.act(ENGINE, s, p, mask) == a and mask[sampled.act(ENGINE, s, p, mask)]
        else:
            a = opponent.act(ENGINE, s, p, mask)
        ENGINE.apply(s, a, dice)
    with pytest.raises(C.CheckpointError, match="not breitenfeld_v0"):
        PolicyAgent(path, battle="breitenfeld")


@pytest.mark.parametrize("battle", ["kulikovo", "breitenfeld"])
def test_training_smoke_on_every_other_battle(tmp_path, battle):
    """A tiny-budget run on each further battle writes a checkpoint that a PolicyAgent can play."""
    from training.train import main as train_main

    argv = ["--minutes", "0", "--total-timesteps", "128", "--n-envs", "2", "--n-steps", "64", "--batch-size", "64",
            "--n-epochs", "1", "--net-arch", "16", "--snapshot-every", "64", "--eval-games", "0",
            "--out", str(tmp_path), "--no-progress", "--checkpoint-minutes", "100", "--baselines", "random"]
    result = train_main([battle, *argv])
    assert result.checkpoint.exists() and result.timesteps >= 128
    from agents.policy import PolicyAgent

    engine = make_engine(battle)
    agent = PolicyAgent(result.checkpoint, battle=battle)
    state = engine.new_state({}, Dice(3))
    mask = engine.legal_mask(state)
    assert mask[agent.act(engine, state, engine.current_player(state), mask)]


def test_a_resumed_runs_log_keeps_the_first_runs_rows(trained):
    """audit 8, finding 2: stable-baselines3 reopens progress.csv; the first run's rows are set aside and read first."""
    from training.curves import read_progress

    out, _, first_meta, second = trained
    steps = read_progress(out)["time/total_timesteps"]
    assert (out / "tb" / "progress.1.csv").is_file()
    assert steps.min() <= first_meta["timesteps"] < steps.max() and list(steps) == sorted(steps)
