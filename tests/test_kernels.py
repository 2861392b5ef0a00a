"""The compiled kernels (``core.jit.kernel``) and their Python source agree: random play of every battle
(legal sets, actions, final state, both players' observations along the way) gives the same digest
compiled and with numba disabled (``NUMBA_DISABLE_JIT=1``, what runs where numba is missing)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

from wargame_envs import registry
from wargame_envs.core.dice import Dice

STEPS = 300


def play_digest(name: str, seed: int = 0, steps: int = STEPS) -> str:
    """Digest of ``steps`` random decisions of battle ``name`` from ``seed``."""
    engine = registry.make_engine(name)
    rng, dice = np.random.default_rng(seed), Dice(seed)
    s = engine.new_state(None, dice)
    h = hashlib.sha1()
    for step in range(steps):
        if engine.is_terminal(s) or engine.is_truncated(s):
            break
        legal = np.flatnonzero(engine.legal_mask(s))
        h.update(legal.tobytes())
        if step % 10 == 0:
            for p in (0, 1):
                h.update(engine.observe(s, p).tobytes())
        engine.apply(s, int(legal[rng.integers(legal.size)]), dice)
    h.update(s.digest().encode())
    return h.hexdigest()


@pytest.mark.parametrize("name", registry.BATTLES)
def test_kernels_compiled_and_uncompiled_agree(name):
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    code = f"from tests.test_kernels import play_digest; print(play_digest({name!r}))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert out.stdout.strip() == play_digest(name)
