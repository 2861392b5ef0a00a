"""The compiled entry points Python calls: each takes the state buffer and the tables' blob and layout
(``tables.pack_tables``), reads the tables (``tables.unpack``) and runs a rule kernel. The engine (``rules.py``), positions
and the batched API (``batch.py``) go through these only."""

from __future__ import annotations

from ..core.jit import kernel
from . import combat, decisions, observation, sequence, victory
from .tables import unpack


@kernel
def advance(buf, blob, dt, dv, ds, ev, evn, work):
    """The automatic sequence up to the next decision (a new game, a position; ``work``: ``tables.new_work``)."""
    sequence.advance(buf, unpack(blob, dt), dv, ds, ev, evn, work)


@kernel
def enter_phase(buf, blob, dt, phase):
    sequence.enter_phase(buf, unpack(blob, dt), phase)


@kernel
def legal_options(buf, blob, dt, mask, work):
    """The mask (``work``: ``tables.new_work``)."""
    decisions.legal_options(buf, unpack(blob, dt), mask, work)


@kernel
def apply_action(buf, blob, dt, action, dv, ds, ev, evn, mask, work, checked):
    """``action`` and the sequence up to the next decision (``checked``: the caller checked the action
    against this state's mask)."""
    return decisions.apply_action(buf, unpack(blob, dt), action, dv, ds, ev, evn, mask, work, checked)


@kernel
def victory_points(buf, blob, dt):
    return victory.victory_points(buf, unpack(blob, dt))


@kernel
def write_returns(buf, blob, dt, out):
    victory.write_returns(buf, unpack(blob, dt), out)


@kernel
def attack_odds(buf, blob, dt, charge_mode, lead_a, lead_d):
    return combat.attack_odds(buf, unpack(blob, dt), charge_mode, lead_a, lead_d)


@kernel
def eligible_attackers(buf, blob, dt):
    """Bool per unit: may attack now (8.14, 8.23)."""
    return combat.context(buf, unpack(blob, dt))[combat.C_ELIG]


@kernel
def write_observation(buf, blob, dt, template, unit_plane, strengths, leader_plane, leader_values, planes, features,
                      entries, values, stamp, player, obs, marks, marked):
    """``player``'s observation into ``obs`` (the arguments after ``blob``: ``observation.ObsKernelTables``,
    then ``observation.ObsScratch``; ``marks``, ``marked``: see ``observation.write_observation``)."""
    O = observation.ObsKernelTables(template, unit_plane, strengths, leader_plane, leader_values, planes, features)
    S = observation.ObsScratch(entries, values, stamp)
    observation.write_observation(buf, unpack(blob, dt), O, S, player, obs, marks, marked)
