"""Kulikovo 1380: The Golden Horde (``kulikovo_v0``), a two-player AEC environment.

The battle of Kulikovo (8 September 1380) as in the LPS/Against the Odds rules: no turns, a chain of
command activations with Continuity, Seizing and free activations, missile fire, shock and charges,
until one army rolls over its Flight Level. Rules, clarifications and the coverage of every case:
``docs/kulikovo.md``.

| | |
|---|---|
| Agents | ``russian`` (player 0), ``mongol`` (player 1) |
| Action space | ``Discrete(1057)`` |
| Observation space | ``Dict(observation=Box(0, 1, (34110,), float32), action_mask=Box(0, 1, (1057,), int8))`` |
| Rewards | +1 win / -1 loss at the end; 0 on truncation; optional shaped Flight Point difference |
| Import | ``from wargame_envs.kulikovo import env`` or ``wargame_envs.make("kulikovo_v0")`` |

Agents
------
``agent_selection`` is whoever decides now. Most decisions belong to the active player, but the rules
give the other player decisions mid-turn (seizing continuity, reaction and return fire, counter-charge,
retreat before shock, retreat paths and facings of his units); the env then selects him for that one
decision.

Action space
------------
One flat ``Discrete(1057)``; the pending decision (``env.unwrapped.decision_name()``, ``infos[agent]["decision_id"]``, and the one-hot
``decision_kind`` feature) gives each block its meaning:

| block | first | last | meaning |
|---|---|---|---|
| HEX | 0 | 971 | a map hex; index = (XX - 22) * 27 + (YY - 1) for hex id XXYY |
| DIR | 972 | 977 | one movement step in direction 0-5 (screen SE, NE, N, NW, SW, S) |
| FACE | 978 | 983 | facing vertex 0-5 (screen E, NE, NW, W, SW, SE; E faces the Mongol side) |
| UNIT | 984 | 1033 | own unit slot (Russian R01-R45, Mongol M01-M50, in ``data/oob.toml`` order) |
| LEADER | 1034 | 1041 | own leader slot |
| CMD | 1042 | 1049 | own command slot |
| OPT | 1050 | 1056 | PASS/END, NO, YES, SHOCK_ALL, SHOCK_UNATTACKED, STD_RALLY, STD_MOVE |

Decisions (``engine.decision_name``): free activation (command, Standard move/rally, pass),
continuity (command or pass), seize continuity (command or no), place replacement leader (hex),
move/fire select (unit, leader, end), unit action (step, fire at hex, stop facing), move leader,
move Standard (hex), reaction fire (yes/no), return fire (yes/no), counter-charge against fire
(facing/no), shock select (unit/end), shock mode (shock all, shock unattacked, charge into hex),
resolve next (defender hex), defence (stand, retreat before shock hex, counter-charge facing),
advance after retreat before shock (unit/no), advance pick on a tie (unit), retreat path (hex), facing,
and in ``setup="free"`` the Ambush Regiment hexes, unit facings and leader hexes; under the False
Dmitri rule (either setup) the first decision is the Russian's hidden choice of the Dmitri counter that
stands with the Standard (a LEADER action, 13.4).

Action masks
------------
``observation["action_mask"]`` holds exactly the legal actions of the pending decision; only the agent
to move has a non-zero mask. Illegal actions raise ``IllegalActionError`` listing legal ones.

Observation space
-----------------
A flat float32 vector in [0, 1]: 35 planes over the 972 hexes then global features, from the
observer's side (own/enemy). ``engine.obs_layout.slices[name]`` gives each piece; ``unflatten`` splits it.
The Mongol observation never depends on the Ambush Regiment's hexes before it is placed, nor on which
Dmitri is real under the False Dmitri rule.

| piece | kind | offset | width |
|---|---|---|---|
| `own_H` .. `own_C`, `enemy_H` .. `enemy_C` | 12 planes | 0 | 972 each |
| `own_disordered`, `own_retired`, `enemy_disordered`, `enemy_retired` | planes | 11664 | 972 each |
| `facing_0` .. `facing_5` | planes (any unit) | 15552 | 972 each |
| `own_leader`, `enemy_leader`, `own_standard`, `enemy_standard` | planes | 21384 | 972 each |
| `own_zoc`, `enemy_zoc`, `own_in_command`, `own_done` | planes | 25272 | 972 each |
| `elevation` (/2), `woods` | planes | 29160 | 972 each |
| `decision_unit`, `own_ambush_hidden` (Russian only), `legal_hex` | planes | 31104 | 972 each |
| `decision_kind` | feature | 34020 | 24 |
| `to_decide`, `own_activation`, `own_flight_points`, `enemy_flight_points` (/100), `activations`, `free_activation` | features | 34044 | 1 each |
| `own_command_active`, `enemy_command_active`, `own_command_rating`, `enemy_command_rating` | features | 34050 | 8 each |
| `own_leader_in_play`, `enemy_leader_in_play`, `own_leader_real` | features | 34082 | 8 each |
| `ambush_placed` (1), `standard_captured` (2), `decision_unit_mp` (1) | features | 34106 | |

(``ObservationLayout.describe()`` prints the full table.)

Rewards
-------
``reward="terminal"`` (default): +1 to the winner and -1 to the loser when an army flees (16.0); 0 to both
on truncation. ``reward="shaped"``: in addition each step pays ``shaped_scale`` x the change of
(enemy Flight Points - own Flight Points).

Options (``reset(options=...)`` or ``env(options=...)``)
-------------------------------------------------------
* ``setup``: ``"historical"`` (default; fixed positions, facings toward the enemy, ambush in Green Oak
  Wood) or ``"free"`` (the players choose the ambush hexes, every facing and leader hexes, 15.x).
* ``false_dmitri``: bool, the optional False Dmitri rule (13.4).
* ``max_activations``: activation (and pass) limit, default 150; reaching it truncates the game (never a
  win). 0 = no limit.
* ``ambush_hexes``: six hex ids for the Ambush Regiment (historical setup).
* ``position``: a dict as ``env.position()`` / ``engine.to_position`` produce (taken at any pending
  decision), or a hand-written one (``position.py``), to start anywhere; every field is checked.

Options are type-checked (``core.options``; ``"false"`` is not a bool); unknown names are ignored with a
warning. ``engine.summary(state)`` gives the whole state (hidden information included) as a plain dict.

Version history
---------------
* ``kulikovo_v0``: first release.
"""

from __future__ import annotations

from ..core.aec import WargameAECEnv, make_env_functions
from .rules import KulikovoEngine


class _RawEnv(WargameAECEnv):
    __doc__ = __doc__
    metadata = {**WargameAECEnv.metadata, "name": "kulikovo_v0"}
    engine_class = KulikovoEngine


raw_env, env = make_env_functions(_RawEnv)
