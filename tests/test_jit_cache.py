"""The compiled-code cache is cleared for exactly the groups of sources that changed (core.jit)."""

from __future__ import annotations

import os

from wargame_envs.core.jit import drop_stale_cache


def make_tree(root, sources: bool = True):
    """Sources (``__init__.py``) and a compiled kernel's cache files in each group's folder."""
    for folder in ("wargame_envs/core", "wargame_envs/alpha", "wargame_envs/beta", "agents"):
        (root / folder / "__pycache__").mkdir(parents=True, exist_ok=True)
        if sources:
            (root / folder / "__init__.py").write_text("")
        (root / folder / "__pycache__" / "k.nbi").write_text("index")
        (root / folder / "__pycache__" / "k.nbc").write_text("code")


def cached(root):
    return sorted(str(p.relative_to(root).parent.parent) for p in root.rglob("*.nbi"))


def touch(path):
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


def test_an_edit_clears_its_group_and_the_agents_and_core_clears_all(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    make_tree(tmp_path)
    assert drop_stale_cache(tmp_path) == ["agents", "alpha", "beta", "core"]  # no record yet: everything
    make_tree(tmp_path, sources=False)
    assert drop_stale_cache(tmp_path) == []  # nothing changed
    assert len(cached(tmp_path)) == 4
    touch(tmp_path / "wargame_envs/alpha/__init__.py")
    assert drop_stale_cache(tmp_path) == ["agents", "alpha"]
    assert cached(tmp_path) == ["wargame_envs/beta", "wargame_envs/core"]
    make_tree(tmp_path, sources=False)
    touch(tmp_path / "wargame_envs/core/__init__.py")
    assert drop_stale_cache(tmp_path) == ["agents", "alpha", "beta", "core"]
    assert cached(tmp_path) == []


def test_a_cache_elsewhere_is_left_alone(tmp_path, monkeypatch):
    make_tree(tmp_path)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert drop_stale_cache(tmp_path) == []
    assert len(cached(tmp_path)) == 4
