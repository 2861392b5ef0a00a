"""The event log of a game state (``core.engine.ArrayState``): sentences formatted when read, and trimmed
without formatting what is dropped (the AEC env keeps long games' logs bounded this way)."""

from __future__ import annotations

from wargame_envs.core.engine import ArrayState


class LogState(ArrayState):
    FIELDS = {"x": (1,)}


def test_deferred_events_are_formatted_when_read_and_trimmed_unformatted():
    s = LogState()
    formatted = []

    def fmt(rows):
        formatted.append(rows)
        return [f"event {r}" for r in rows]

    s.log.extend(["a", "b", "c"])
    for call in range(5):
        s.defer_log(fmt, [call, call])  # one engine call, two sentences
    assert s.log_entries() == 8 and not formatted
    s.trim_log(4)  # the three lines and the oldest call go, unformatted
    assert s.log_entries() == 4 and not formatted
    assert s.log == ["event 1", "event 1", "event 2", "event 2", "event 3", "event 3", "event 4", "event 4"]
    assert formatted == [[1, 1], [2, 2], [3, 3], [4, 4]]
    s.trim_log(3)
    assert s.log == ["event 3", "event 4", "event 4"]
    s.trim_log(10)  # nothing beyond: unchanged
    assert s.log_entries() == 3
