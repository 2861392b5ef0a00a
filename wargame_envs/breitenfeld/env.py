"""Breitenfeld 1631 (``breitenfeld_v0``): the Thirty Years War QuadriGame battle, standard rules 1-11
with chit activation and the Breitenfeld exclusive rules 12.x, as a PettingZoo AEC environment.

    from wargame_envs.breitenfeld.env import env
    e = env(render_mode="ansi", options={"turn_ends_chit": False, "visibility": False})

| | |
|---|---|
| Agents | ``allied`` (player 0: Swedes and Saxons), ``imperial`` (player 1) |
| Actions | ``Discrete(699)`` (one flat space, see *Action layout*) |
| Observations | ``{"observation": Box(0, 1, (15620,), float32), "action_mask": Box(0, 1, (699,), int8)}`` |
| Game length | 10 Game-Turns; about 1,100 decisions in a random game |
| Import | ``from wargame_envs.breitenfeld.env import env, raw_env`` or ``wargame_envs.make("breitenfeld_v0")`` |

The rules engine is :class:`wargame_envs.breitenfeld.rules.BreitenfeldEngine` (pure, numpy state); this
module only binds it to the shared adapter ``wargame_envs.core.aec.WargameAECEnv``. The rules themselves
are compiled (numba, nopython; ``NUMBA_DISABLE_JIT=1`` runs the same code as Python) and shared with the
batched API: ``wargame_envs.vector.make("breitenfeld_v0", num_envs)`` steps N games in one compiled call
(backend ``wargame_envs.breitenfeld.batch.BreitenfeldBackend``), with the same observations, masks and
rewards as this env for the same seeds and actions. Rules coverage, rule
clarifications and data provenance: ``docs/breitenfeld.md``.

Turn structure
--------------
Each Game-Turn: disruption removal (automatic rolls), artillery fire (the Allied player assigns a target
to each of his guns that has one, then the Imperial player, then all shots are rolled together), then
corps activation: chits are drawn from one cup for both armies; the owner of the drawn corps moves it
(select a piece, then its destination) and fights with it (declare attacks, add units, resolve). Every
choice is one AEC step of the player who makes it, including the mid-combat choices of the other player
(which defending unit takes an Ax result, whether the defender adds his leaders' values) and Gustavus' once-per-turn chit exchange. Phases without any
choice pass on their own.

Observation layout
------------------
One flat float32 vector in [0, 1]: 26 planes over the 598 hexes (index = hex order 0101, 0102, ..., 2326)
then global features; "own"/"enemy" are from the observing player's side. ``engine.obs_layout.slices``
gives each piece; ``engine.obs_layout.unflatten(obs)`` splits a vector.

| piece | kind | offset | width |
|---|---|---|---|
| `terrain_hilltop` | plane | 0 | 598 |
| `terrain_slope` | plane | 598 | 598 |
| `terrain_town` | plane | 1196 | 598 |
| `terrain_woods` | plane | 1794 | 598 |
| `own_infantry` | plane | 2392 | 598 |
| `own_cavalry` | plane | 2990 | 598 |
| `own_disrupted` | plane | 3588 | 598 |
| `own_leader` | plane | 4186 | 598 |
| `own_artillery` | plane | 4784 | 598 |
| `own_active_corps` | plane | 5382 | 598 |
| `own_done` | plane | 5980 | 598 |
| `own_must_attack` | plane | 6578 | 598 |
| `own_out_of_command` | plane | 7176 | 598 |
| `own_zoc` | plane | 7774 | 598 |
| `enemy_infantry` | plane | 8372 | 598 |
| `enemy_cavalry` | plane | 8970 | 598 |
| `enemy_disrupted` | plane | 9568 | 598 |
| `enemy_leader` | plane | 10166 | 598 |
| `enemy_artillery` | plane | 10764 | 598 |
| `enemy_attacked` | plane | 11362 | 598 |
| `enemy_must_be_attacked` | plane | 11960 | 598 |
| `enemy_zoc` | plane | 12558 | 598 |
| `selected_piece` | plane | 13156 | 598 |
| `attack_attackers` | plane | 13754 | 598 |
| `attack_defenders` | plane | 14352 | 598 |
| `artillery_targets` | plane | 14950 | 598 |
| `turn` | feature | 15548 | 10 |
| `phase` | feature | 15558 | 6 |
| `decision` | feature | 15564 | 9 |
| `to_move` | feature | 15573 | 1 |
| `i_am_imperial` | feature | 15574 | 1 |
| `visibility` | feature | 15575 | 3 |
| `corps_in_cup` | feature | 15578 | 9 |
| `active_corps` | feature | 15587 | 9 |
| `turn_ends` | feature | 15596 | 2 |
| `swap_used` | feature | 15598 | 1 |
| `may_move` | feature | 15599 | 2 |
| `demoralized` | feature | 15601 | 3 |
| `demoralization_progress` | feature | 15604 | 3 |
| `victory_points` | feature | 15607 | 2 |
| `mp_left` | feature | 15609 | 1 |
| `pending_result` | feature | 15610 | 7 |
| `attack_choices` | feature | 15617 | 3 |

Action layout
-------------
| range | kind |
|---|---|
| 0 | `END` |
| 1 | `RESOLVE` |
| 2 | `RESOLVE_CHARGE` |
| 3 | `EXIT` |
| 4 | `ADD_LEADERS` |
| 5 | `DECLINE_LEADERS` |
| 6..14 | `CORPS[c]` |
| 15..90 | `PIECE[unit]` |
| 91..100 | `PIECE[leader]` |
| 101..698 | `HEX[h]` |

By decision: *artillery target*: ``HEX`` of a target in range and line of sight, or ``END`` (hold fire);
*activation choice*: ``CORPS`` (the drawn corps, or another corps whose chit is still in the cup);
*movement: select piece*: ``PIECE`` of a unit or leader of the activated corps, or ``END`` (to combat);
*movement: destination*: ``HEX`` of a reachable hex (its own hex = stays), ``EXIT`` (leave the map where a
rule allows it); *combat: declare attack*: ``HEX`` of an enemy unit, or ``END``; *combat: build attack*:
``HEX`` of a friendly unit (attacker) or enemy unit (defender) to add, ``RESOLVE`` or ``RESOLVE_CHARGE``;
*combat: add leaders' values* (10.11, asked of the attacker, then of the defender, where that side has a
leader that may add: for the attacker a leader of the activated corps stacked with an attacking unit, for
the defender any of his leaders stacked with a defending unit): ``ADD_LEADERS`` or ``DECLINE_LEADERS``;
*choose unit to disrupt*: ``HEX`` of one of the player's units in the combat. ``action_to_str`` names
actions in the players' terms ("Tilly's Center: tercio 1806 -> 1706", "attack 1410 with 1310+1409+1411 at
3-1").

Masks
-----
``action_mask`` holds exactly the legal options of the pending decision (zeros for the agent not to move).
The mask enforces every prohibition (6.1-6.3, 6.33, 8.14, 8.15, 8.23, 9.14, 12.3, 12.4) and every
obligation: ``END`` of a combat phase is masked while an obligated unit (8.12) or an enemy that must be
attacked (8.11, 8.21) is unmet, and attacks that would leave an obligation impossible to meet are masked;
``END`` of a movement phase is masked while a routing unit of a demoralized army must still move (11.12).

Rewards
-------
``reward="terminal"`` (default): +1 / -1 to the player with more / fewer victory points at the end, 0 each
for a draw. ``reward="shaped"``: also, every step, ``shaped_scale`` times the change of (own - enemy)
victory points (1 per enemy strength point eliminated, 5 per enemy gun held, 5 or 10 per enemy leader
eliminated, pursuit exits). ``engine.scores(state)`` returns the running victory points.

Options (``reset(options=...)`` or ``env(options=...)``)
--------------------------------------------------------
* ``turn_ends_chit`` (bool, default False): the optional "Turn Ends" chit of 4.1 C.
* ``visibility`` (bool, default False): the optional visibility rule (turn 1 moderate, then a roll per turn).
* ``position`` (dict): start from any position, in the format ``env.position()`` /
  ``engine.to_position(state)`` returns at any pending decision (see ``wargame_envs.breitenfeld.position``);
  every value is checked, a bad one raises ``ScenarioError`` naming the field and the value.

Options are type-checked (``core.options.check_options``: a bool given as ``'false'`` is refused); unknown
options are ignored with a warning. ``engine.summary(state)`` returns the whole state as a plain dict
(``docs/breitenfeld.md``).

Version history
---------------
* v0: first release.
* v0, issue 11: leaders add their value only to attacks of their activated corps, and only by the owner's
  choice (a new decision, actions ``ADD_LEADERS``/``DECLINE_LEADERS``): 699 actions (was 697), 15,620
  observation floats (was 15,616). Policies trained before do not fit.
* v0, issue 13: the rules run compiled (one implementation for this env and the batched API); games,
  observations, masks and logs are unchanged (``tests/breitenfeld/test_breitenfeld_golden.py``).
"""

from __future__ import annotations

from ..core.aec import WargameAECEnv, make_env_functions
from .rules import BreitenfeldEngine


class _RawEnv(WargameAECEnv):
    """Breitenfeld 1631 (``breitenfeld_v0``): see the module docstring."""

    metadata = {**WargameAECEnv.metadata, "name": "breitenfeld_v0"}
    engine_class = BreitenfeldEngine


raw_env, env = make_env_functions(_RawEnv)
