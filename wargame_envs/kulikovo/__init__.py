"""Kulikovo 1380 (``kulikovo_v0``): see ``wargame_envs.kulikovo.env`` and ``docs/kulikovo.md``."""

from .env import env, raw_env

__all__ = ["env", "raw_env"]
