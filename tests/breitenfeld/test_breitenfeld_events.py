"""The log sentences the compiled rules' events become (``events.format_event``) for the exits and captures
the golden games do not reach; the expected texts are those the Python rules wrote."""

from __future__ import annotations

import pytest
from bf_helpers import A, E, hexa, piece, play, start

from wargame_envs.breitenfeld.events import EVENTS, format_event


@pytest.mark.parametrize("units, active, bits, acts, kw, want", [
    ({"SC1": {"hex": "0310", "disrupted": True}, "SC2": "0810"}, "allied_center", 1, ("SC1", "EXIT"), {},
     ["brigade 0310 (Swedes) eliminated: moved off the map [11.12]"]),
    ({"XC1": "0210"}, "saxons", 2, ("XC1", "EXIT"), {},
     ["Saxon horse 0210 (demoralized Saxons) leaves the map by its friendly edge, no victory points [20.14]"]),
    ({"XC1": {"hex": "0210", "disrupted": True}}, "saxons", 2, ("XC1", "EXIT"), {},
     ["Saxon horse 0210 (Saxons) eliminated: moved off the map [11.12], no victory points [20.14]"]),
    ({"SC1": "2310"}, "allied_center", 4, ("SC1", "EXIT"), {},
     ["brigade 2310 leaves the map through the demoralized enemy's rear edge: +8 VP"]),
    ({"SL1": "1010"}, "allied_left", 0, ("SL1", "1210", "1610"),
     {"leaders": {"horn": "1010"}, "artillery": {"IA1": "1210"}},
     ["Horn's Left Wing: horse 1010 -> 1210", "Horn's Left Wing: horse 1010 captures the artillery IA1 at 1210 [5.32]",
      "Horn's Left Wing: horse 1210 -> 1610"]),
])
def test_exit_and_capture_sentences(units, active, bits, acts, kw, want):
    s, d = start(units, phase="movement", active=active, globals={"demoralized_bits": bits}, **kw)
    play(s, d, *[piece(x) if i == 0 else A.EXIT if x == "EXIT" else hexa(x) for i, x in enumerate(acts)])
    assert s.log[:len(want)] == want


def test_every_event_code_has_a_sentence():
    for code in range(len(EVENTS)):
        assert isinstance(format_event(E, code, 0, 0, 1, 0), str)
    with pytest.raises(ValueError):
        format_event(E, len(EVENTS), 0, 0, 0, 0)
