"""Rules of Kulikovo 1380 (one module per job; the engine class assembles them)."""

from .engine import KulikovoEngine

__all__ = ["KulikovoEngine"]
