"""A scripted heuristic player for ``breitenfeld_v0``.

It reads the public position (no hidden information exists in this battle) and picks, per decision:

* artillery: the target with the best chance to hit (shortest range), undisrupted units first;
* activation choice (4.1 C): the corps with the most undisrupted units near the enemy;
* movement: disrupted (perhaps routing) units move first, then the units nearest the enemy; each unit
  advances toward the nearest enemy, but ends next to undisrupted enemies only where its strength is enough
  for the attack it is then obliged to make (8.12, terrain counted), or next to a disrupted enemy, cover
  preferred (each side's :class:`MoveStyle`; the Imperial line also shifts toward the Saxon flank); disrupted
  units stay (or rout as far as 11.12 forces); leaders join the corps' unit nearest the enemy; units leave the
  map when that scores (pursuit);
* combat: attacks the enemy where the odds are best, voluntary attacks only at 1-1 or better, adds
  every eligible attacker, charges when allowed, meets every obligation (the mask enforces it);
  always adds the leaders' values (10.11);
* Ax/Dx choice: disrupts an undisrupted unit (the weakest) rather than eliminating a disrupted one.

The judgements are compiled kernels over the state buffer (``agents.breitenfeld_scripted_kernels``) that ask the
engine's compiled rules what they know. Ties between equal options are broken by a seeded generator, so the
agent is deterministic for a given seed (and makes the choices the Python agent it replaced made).
:func:`scripted_actions` decides for every game of a batch in one compiled call, :func:`scripted_ties` gives
every game's tied-best actions (the hint ``"ties"``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from agents.breitenfeld_scripted_kernels import COVER_BONUS, decide, mark_ties, score_actions
from agents.scripted_kernels import legal_count, mark_gaps, mark_lone
from wargame_envs.breitenfeld.decisions import legal_options
from wargame_envs.breitenfeld.state import G_PLAYER
from wargame_envs.breitenfeld.tables import globals_of, new_work, unpack
from wargame_envs.core.jit import kernel

COVER_TERRAIN = ("town", "woods", "hilltop")

#: The largest flank score a row (:class:`MoveStyle`): 26 rows of it stay below the cover bonus.
MAX_FLANK = COVER_BONUS / 26


class MoveStyle(NamedTuple):
    """How one side's units judge where to end a move (6.0).

    A unit does not end its move next to undisrupted enemies where its strength is below ``margin`` times their
    defence (terrain counted): the strongest one's, or with ``together`` all of theirs added up, as 8.21 adds
    them up for the attack that 8.12 then obliges. Between destinations otherwise equal, each hex row nearer row
    01 (the Saxon flank) scores ``flank`` more (0: a draw among them). ``flank`` stays below
    :data:`MAX_FLANK`, so that it never outweighs a difference in distance or cover; at 0.01 a row it still
    shapes the ratings prior (``--hint scores``, ``agents.hint.SCORE_TEMPERATURE`` 0.05): each row farther
    from row 01 takes a fifth off the hex's prior weight.

    The plan (2026-12-05, the Imperial side's, and ``withdraw`` the Allies' too; the defaults leave a side's play as
    it was). Before Game-Turn
    ``hold``, while the enemy may not move yet (12.3, 12.4), the side's artillery holds its fire and no unit ends
    within the release distance (3 hexes) of an enemy unit: the Allies stay put until turn 5 (12.4). With
    ``wall`` the side's undisrupted units hold their ground: a unit steps out only to end next to a disrupted enemy
    where no undisrupted one too strong for it (the contact rule above) stands next to that hex, and never ends next
    to undisrupted enemies otherwise (where it cannot help it, the best of those hexes). The enemy's heuristic
    ends next to no stronger unit (``margin`` 1, one enemy at a time), so it does not close in on the tercios
    (12-4) and stands two hexes off, where the guns reach it; the disrupted enemies are then taken on. With
    ``withdraw`` a disrupted unit next to an enemy unit moves as far from the enemy as it may (9.16), out of the
    zones of control where it could neither rally (9.2) nor hold, instead of staying. With ``pounce`` above 0 the
    wall also steps next to undisrupted enemies where each of them faces at least ``pounce`` times its defence from
    the unit and the undisrupted friends already next to it (the attack 8.12 then obliges). With ``cav_back`` above
    0 the side's cavalry, while the plan holds, draws back as far from the enemy as it may (up to ``cav_back``
    hexes), out of the enemy cavalry's and guns' reach, behind the infantry: the enemy must come through the wall.
    (2026-12-05, second round: ``pounce`` 3 and ``cav_back`` 12 took the Imperial side from 67/200 to 132/200
    on dice seeds 1000-1199 and from 121/400 to 255/400 on seeds 5000-5399.)"""

    together: bool
    margin: float
    flank: float
    hold: int = 0
    wall: bool = False
    withdraw: bool = False
    pounce: float = 0.0
    cav_back: int = 0


#: Each side's style (Allied, Imperial): the one that did best for it against the other side's (docs/breitenfeld.md,
#: "The scripted agent"). The Imperial tercios, strong and few, go in only where the whole obliged attack is at
#: better than 1-1, and the line shifts toward the Saxon flank; the Allies close in one enemy at a time. The
#: Imperial army keeps the Allies waiting to turn 5 (hold), then stands on its ground (wall), its disrupted units
#: falling back (withdraw); the wall also steps out at 3-1 or better (pounce), and while the plan holds the
#: cavalry draws back behind the tercios to the rear edge (cav_back). The Allies' disrupted units fall back too
#: (withdraw): against the plan, that left the scripted mirror about even (docs/breitenfeld.md).
MOVE_STYLE = (MoveStyle(together=False, margin=1.0, flank=0.0, withdraw=True),
              MoveStyle(together=True, margin=1.25, flank=0.01, hold=5, wall=True, withdraw=True, pounce=3.0,
                        cav_back=12))
#: Both sides' style before 2026-12-05 (the recorded scripted games of ``tests/data/golden_breitenfeld.json``).
MOVE_STYLE_BEFORE = (MoveStyle(together=False, margin=1.0, flank=0.0),) * 2

# ================================================================ entry points
@kernel
def score_one(tables, buf, J, player, mask, scores, ties):
    """One position's scores into ``scores`` and tied-best actions into ``ties``; returns (how many entries the
    draw is among, the action counted twice in it or -1)."""
    T = unpack(tables)
    doubled = score_actions(T, buf, J, player, mask, scores)
    return mark_ties(scores, mask, doubled, ties), doubled


@kernel
def decide_batch(tables, J, states, masks, u, out):
    """``out[i]``: the choice in game ``i`` at the uniform draw ``u[i]`` (-1 where nothing is legal)."""
    T = unpack(tables)
    scores = np.empty(masks.shape[1])
    ties = np.empty(masks.shape[1], np.bool_)
    for i in range(states.shape[0]):
        out[i] = decide(T, states[i], J, masks[i], scores, ties, u[i])


@kernel
def ties_batch(tables, J, states, masks, out):
    """``out[i]``: the tied-best legal actions of game ``i`` (its only action when it has one; none when over)."""
    T = unpack(tables)
    scores = np.empty(masks.shape[1])
    for i in range(states.shape[0]):
        n = 0
        for a in range(masks.shape[1]):
            out[i, a] = masks[i, a]
            n += 1 if masks[i, a] else 0
        if n > 1:
            buf = states[i]
            doubled = score_actions(T, buf, J, globals_of(buf, T)[G_PLAYER], masks[i], scores)
            mark_ties(scores, masks[i], doubled, out[i])


@kernel
def gaps_batch(tables, J, states, masks, out):
    """``out[i, a]``: how far legal action ``a`` of game ``i`` scores below the best (0 for the best and for a lone
    legal action; -inf for the actions the heuristic does not consider, which include every illegal one)."""
    T = unpack(tables)
    scores = np.empty(masks.shape[1])
    for i in range(states.shape[0]):
        if legal_count(masks[i]) <= 1:
            mark_lone(masks[i], out[i])
            continue
        buf = states[i]
        score_actions(T, buf, J, globals_of(buf, T)[G_PLAYER], masks[i], scores)
        mark_gaps(scores, masks[i], out[i])


@kernel
def masks_batch(tables, states, masks, work):
    """Every game's legal mask (``work``: ``tables.new_work``)."""
    T = unpack(tables)
    for i in range(states.shape[0]):
        legal_options(states[i], T, masks[i], work, False)


def checked_style(style) -> tuple:
    """``style`` as a tuple, refused unless it is a :class:`MoveStyle` per side with a margin above 0."""
    style = tuple(style)
    if len(style) != 2 or any(not isinstance(side, MoveStyle) or not side.margin > 0
                              or not 0 <= side.flank < MAX_FLANK or not 0 <= side.hold
                              or not 0 <= side.pounce or not 0 <= side.cav_back for side in style):
        raise ValueError(f"move style {style!r}: want a MoveStyle per side (Allied, Imperial), margins above 0, "
                         f"flanks from 0 to below {MAX_FLANK:.4f}, hold turns, pounce odds and cav_back from 0")
    return style


def judgement(engine, style=MOVE_STYLE) -> tuple:
    """The movement judgement the kernels read (``J``, ``agents.breitenfeld_scripted_kernels``): per hex, cover (town,
    woods, hilltop) and its hex row (cached on the engine); per side, ``style`` (a :class:`MoveStyle` each: the
    contact rule, the flank, the plan)."""
    style = tuple(style)
    cache = engine.__dict__.setdefault("_scripted_judgement", {})
    if style not in cache:      # checked once per style (a hot path: every decision asks)
        checked_style(style)
        per_hex = cache.get("per_hex")
        if per_hex is None:
            per_hex = cache["per_hex"] = (
                np.array([t in COVER_TERRAIN for t in engine.D.hex_terrain_name], dtype=np.bool_),
                engine.grid.offset[:, 1].astype(np.float64))
        cache[style] = (*per_hex, np.array([side.together for side in style], dtype=np.bool_),
                        np.array([side.margin for side in style], dtype=np.float64),
                        np.array([side.flank for side in style], dtype=np.float64),
                        np.array([side.hold for side in style], dtype=np.int64),
                        np.array([side.wall for side in style], dtype=np.bool_),
                        np.array([side.withdraw for side in style], dtype=np.bool_),
                        np.array([side.pounce for side in style], dtype=np.float64),
                        np.array([side.cav_back for side in style], dtype=np.int64))
    return cache[style]


def scripted_actions(backend_or_engine, states: np.ndarray, out: np.ndarray, masks: np.ndarray | None = None,
                     rng: np.random.Generator | None = None) -> np.ndarray:
    """The scripted agent's action in every game of ``states`` ((N, S) int32 buffers) into ``out`` ((N,) int64),
    in one compiled call: -1 where no action is legal. ``masks`` ((N, num_actions) bool) are the games' legal
    masks (computed when not given); ties are broken by ``rng`` (a fresh unseeded one when not given), so a
    game's choice is the agent's whenever its best action is unique."""
    engine = getattr(backend_or_engine, "engine", backend_or_engine)
    if masks is None:
        masks = np.zeros((len(states), engine.num_actions), dtype=bool)
        masks_batch(engine.tables, states, masks, new_work(engine.grid.n))
    u = (rng if rng is not None else np.random.default_rng()).random(len(states))
    decide_batch(engine.tables, judgement(engine), states, masks, u, out)
    return out


def scripted_ties(backend_or_engine, states: np.ndarray, out: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The scripted agent's tied-best actions in every game of ``states`` ((N, S) int32 buffers) into ``out``
    ((N, num_actions) bool), in one compiled call, given the games' legal ``masks``: the actions among which
    :func:`scripted_actions` and the agent draw their choice (the hint ``"ties"``, ``agents.hint``)."""
    engine = getattr(backend_or_engine, "engine", backend_or_engine)
    ties_batch(engine.tables, judgement(engine), states, masks, out)
    return out


def scripted_gaps(backend_or_engine, states: np.ndarray, out: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Every game's action ratings into ``out`` ((N, num_actions) float64) in one compiled call: each legal action's
    score minus the best one (0 for the tied-best and a lone legal action; -inf for the actions the heuristic does
    not consider, as for the illegal ones), given the games' legal ``masks`` (the hint ``"scores"``, ``agents.hint``).
    The scores mix units (hexes of distance, odds), so the hint's prior is in practice one over the tied-best moves."""
    engine = getattr(backend_or_engine, "engine", backend_or_engine)
    gaps_batch(engine.tables, judgement(engine), states, masks, out)
    return out


class BreitenfeldScriptedAgent:
    """The heuristic player described in the module docstring; ``style`` is each side's :class:`MoveStyle`
    (:data:`MOVE_STYLE`, the default; :data:`MOVE_STYLE_BEFORE` plays as the agent did before 2026-12-05)."""

    name = "breitenfeld_scripted"

    def __init__(self, seed: int | None = None, style=MOVE_STYLE):
        self.style = checked_style(style)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def _draw(self, engine, state, player: int, mask: np.ndarray) -> tuple[np.ndarray, int, int]:
        """(the tied-best legal actions ascending, how many entries the draw is among, the action counted
        twice in it or -1)."""
        mask = np.asarray(mask, dtype=bool)
        legal = np.flatnonzero(mask)
        if not legal.size:
            raise ValueError("no legal action: the game is over or the mask is empty")
        if legal.size == 1:
            return legal, 1, -1
        scores, ties = np.empty(engine.num_actions), np.empty(engine.num_actions, dtype=bool)
        J = judgement(engine, self.style)
        n, doubled = score_one(engine.tables, state.buf, J, int(player), mask, scores, ties)
        return np.flatnonzero(ties), int(n), int(doubled)

    def gaps(self, engine, state, player: int, mask: np.ndarray) -> np.ndarray:
        """Every action's score minus the best legal score (see :func:`scripted_gaps`)."""
        out = np.zeros((1, engine.num_actions))
        J = judgement(engine, self.style)
        gaps_batch(engine.tables, J, state.buf[None], np.asarray(mask, dtype=bool)[None], out)
        return out[0]

    def ties(self, engine, state, player: int, mask: np.ndarray) -> np.ndarray:
        """The tied-best legal actions (ascending), among which :meth:`act` draws."""
        return self._draw(engine, state, player, mask)[0]

    def act(self, engine, state, player: int, mask: np.ndarray) -> int:
        ties, n, doubled = self._draw(engine, state, player, mask)
        if n == 1:
            return int(ties[0])
        i = int(self._rng.integers(n))
        return int(ties[i]) if i < len(ties) else doubled
