"""``core.planes.PlaneBuffer``: entity contributions combine as a maximum, only changed entities are
redrawn, layers replace their indices, and static values stay."""

from __future__ import annotations

import numpy as np

from wargame_envs.core.planes import PlaneBuffer


def stack_contrib(e: int, key: list[int]):
    """Entity ``e`` at hex ``key[0]`` (-1: off the board) shows strength ``key[1] / 10`` there and 1.0 on
    the neighbouring index (a zone)."""
    h, strength = key
    if h < 0:
        return []
    return [(h, strength / 10), (10 + h + 1, 1.0)]


def keys(hexes, strengths):
    return np.array(list(hexes) + list(strengths), dtype=np.int32)


def expected(hexes, strengths, size=24):
    out = np.zeros(size, np.float32)
    for h, st in zip(hexes, strengths):
        if h >= 0:
            out[h] = max(out[h], np.float32(st / 10))
            out[10 + h + 1] = 1.0
    return out


def test_stacked_entities_show_the_largest_value_and_leaving_restores_the_other():
    pb = PlaneBuffer(24)
    pb.sync("units", keys([3, 3, 5], [4, 7, 2]), 3, stack_contrib)
    assert np.array_equal(pb.buf, expected([3, 3, 5], [4, 7, 2]))
    pb.sync("units", keys([3, 6, 5], [4, 7, 2]), 3, stack_contrib)   # the strong one leaves hex 3
    assert np.array_equal(pb.buf, expected([3, 6, 5], [4, 7, 2]))
    pb.sync("units", keys([-1, 6, 5], [4, 7, 2]), 3, stack_contrib)  # and the other is eliminated
    assert np.array_equal(pb.buf, expected([-1, 6, 5], [4, 7, 2]))


def test_unchanged_keys_touch_nothing():
    pb = PlaneBuffer(24)
    calls = []

    def contrib(e, key):
        calls.append(e)
        return stack_contrib(e, key)

    pb.sync("units", keys([1, 2], [5, 5]), 2, contrib)
    assert calls == [0, 1]
    pb.sync("units", keys([1, 2], [5, 5]), 2, contrib)
    assert calls == [0, 1]
    pb.sync("units", keys([1, 4], [5, 5]), 2, contrib)
    assert calls == [0, 1, 1]


def test_a_new_entity_count_redraws_the_group():
    pb = PlaneBuffer(24)
    pb.sync("units", keys([1, 2], [5, 5]), 2, stack_contrib)
    pb.sync("units", keys([7], [3]), 1, stack_contrib)
    assert np.array_equal(pb.buf, expected([7], [3]))


def test_layers_replace_their_indices_and_static_values_stay():
    static = np.array([0.25, 0.5], np.float32)
    pb = PlaneBuffer(24, [(slice(22, 24), static)])
    pb.layer("legal", [3, 4])
    pb.layer("legal", [4, 9])
    out = np.zeros(24, np.float32)
    out[[4, 9]] = 1.0
    out[22:] = static
    assert np.array_equal(pb.buf, out)
    arr = np.array([1, 2])
    pb.layer("legal", arr)
    pb.layer("legal", arr)  # the same array again: kept as it is
    assert pb.buf[[1, 2]].tolist() == [1.0, 1.0] and pb.buf[[4, 9]].tolist() == [0.0, 0.0]


def test_copy_is_independent():
    pb = PlaneBuffer(4)
    pb.layer("x", [1])
    out = pb.copy()
    out[:] = 7
    assert pb.buf.tolist() == [0.0, 1.0, 0.0, 0.0]


def test_exclusive_group_clears_old_marks_and_sets_new_ones():
    def marks(e, key):
        h, face = key
        return [] if h < 0 else [h, 10 + face]

    pb = PlaneBuffer(16)
    pb.sync_exclusive("units", np.array([1, 2, 3, 4], np.int32), 2, marks)   # unit 0 at 1 facing 3, unit 1 at 2 facing 4
    assert np.flatnonzero(pb.buf).tolist() == [1, 2, 13, 14]
    pb.sync_exclusive("units", np.array([2, -1, 5, 4], np.int32), 2, marks)  # 1 is gone, 0 steps into its hex
    assert np.flatnonzero(pb.buf).tolist() == [2, 15]
    pb.sync_exclusive("units", np.array([7, 5], np.int32), 1, marks)         # another entity count: redrawn
    assert np.flatnonzero(pb.buf).tolist() == [7, 15]


def test_a_section_is_rewritten_only_when_its_key_changes():
    pb = PlaneBuffer(6)
    calls = []

    def values(v):
        calls.append(v)
        return [v, v]

    pb.section("leaders", b"k1", slice(4, 6), lambda: values(0.5))
    pb.section("leaders", b"k1", slice(4, 6), lambda: values(0.7))
    assert calls == [0.5] and pb.buf[4:].tolist() == [0.5, 0.5]
    pb.section("leaders", b"k2", slice(4, 6), lambda: values(0.25))
    assert calls == [0.5, 0.25] and pb.buf[4:].tolist() == [0.25, 0.25]
