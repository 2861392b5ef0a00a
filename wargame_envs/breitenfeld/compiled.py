"""The compiled entry points Python calls: each takes the state buffer and the packed tables
(``tables.pack_tables``), reads the tables (``tables.unpack``) and runs a rule kernel. The engine (``rules.py``), positions
and the batched API (``batch.py``) go through these only."""

from __future__ import annotations

from ..core.jit import kernel
from . import combat, decisions, observation, sequence, victory
from .state import G_DEC, G_DONE, G_PLAYER
from .tables import unpack


@kernel
def advance(buf, tables, dv, ds, ev, evn, mask, work):
    """The automatic sequence up to the next decision (a new game, a position), then the new decision's
    legal options into ``mask`` (``work``: ``tables.new_work``)."""
    T = unpack(tables)
    sequence.advance(buf, T, dv, ds, ev, evn, work)
    decisions.legal_options(buf, T, mask, work, True)
    return decisions.OK


@kernel
def enter_phase(buf, tables, phase):
    sequence.enter_phase(buf, unpack(tables), phase)


@kernel
def legal_options(buf, tables, mask, work):
    """The mask (``work``: ``tables.new_work``)."""
    decisions.legal_options(buf, unpack(tables), mask, work, False)


@kernel
def apply_action(buf, tables, dv, ds, ev, evn, mask, work, action, checked):
    """``action`` and the sequence up to the next decision (``checked``: the caller checked the action
    against this state's mask), then the new decision's legal options into ``mask`` (unless the action was
    refused)."""
    T = unpack(tables)
    status = decisions.apply_action(buf, T, action, dv, ds, ev, evn, mask, work, checked)
    if status == decisions.OK:
        decisions.legal_options(buf, T, mask, work, True)
    return status


@kernel
def progress(g):
    """``Engine.progress`` from the globals ``g``: (over, truncated (never), player to move, decision)."""
    done = g[G_DONE] != 0
    return done, False, -1 if done else g[G_PLAYER], g[G_DEC]


@kernel
def victory_points(buf, tables):
    return victory.victory_points(buf, unpack(tables))


@kernel
def write_returns(buf, tables, out):
    victory.write_returns(buf, unpack(tables), out)


@kernel
def attack_odds(buf, tables, charge_mode, lead_a, lead_d):
    return combat.attack_odds(buf, unpack(tables), charge_mode, lead_a, lead_d)


@kernel
def eligible_attackers(buf, tables):
    """Bool per unit: may attack now (8.14, 8.23)."""
    return combat.context(buf, unpack(tables))[combat.C_ELIG]


@kernel
def write_observation(buf, tables, obs_tables, player, obs, memo, counts):
    """``player``'s observation into ``obs`` (``obs_tables``: ``observation.ObsTables.kernel``; ``memo``,
    ``counts``: see ``observation.write_observation``)."""
    observation.write_observation(buf, unpack(tables), unpack(obs_tables), player, obs, memo, counts)
