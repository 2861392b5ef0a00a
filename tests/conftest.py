"""Shared fixtures."""

import pytest

from race_game import register_race_battle


@pytest.fixture
def race_battle(monkeypatch):
    """Registers the tiny ``race_v0`` test battle (short name ``race``) for the duration of a test."""
    return register_race_battle(monkeypatch)
