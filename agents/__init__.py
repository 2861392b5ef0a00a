"""Agents that play any battle of the suite through its engine.

Every agent follows :class:`agents.base.Agent`: ``act(engine, state, player, mask) -> action``.
"""

from .base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
