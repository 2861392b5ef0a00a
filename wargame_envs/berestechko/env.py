"""
# Berestechko 1651 (``berestechko_v0``)

The Polish-Lithuanian army against the Cossack-Tatar army, 1651: two rounds of dice throws,
activations, interaction and reconnaissance commands, wagons and the Tatars' combat spirit.
Rules: ``shared/rulebooks/berestechko-1651.txt``; data and decisions: ``docs/berestechko.md``.

| Import | `from wargame_envs import berestechko_v0` |
|---|---|
| Actions | Discrete(122) |
| Parallel API | No (AEC; the turn order follows the rules) |
| Agents | `agents= ['polish_lithuanian', 'cossack_tatar']` |
| Action shape | () (a scalar Discrete action) |
| Observation | Dict: `observation` float32 Box(0, 1, (1140,)), `action_mask` int8 Box(0, 1, (122,)) |

## Turn structure

Each AEC step is one decision. The player who throws (the active player) picks dice, units,
destinations, targets and extras; the other player gets ``agent_selection`` for the decisions the
rules give the defender: retreat before close combat (6.2.2), defensive artillery (8.1.3),
overruling the attacker's loss-or-retreat choice (6.2.3) and the choice itself, the hex of each retreat of his unit, and
(Cossack-Tatar) ending or continuing the battle after the Tatar withdrawal (9). The pending decision
is named by ``env.unwrapped.decision_name()`` (its number: ``infos[agent]["decision_id"]``) and is in the
observation's ``decision`` one-hot. A decision with
no real choice is skipped only when its single option is "no combat" (no enemy adjacent) or when the
rules give the choice no meaning (a wagon-bound defender, whose retreat is a loss anyway).

## Action space (the codec of ``wargame_envs.berestechko.actions``)

| range | size | meaning |
|---|---|---|
| 0-48 | 49 | a hex (in map order 01..07, 11..17, ..., 61..67): move destination, combat target, retreat hex, retreat-before-combat hex, unit added to the attack (its hex), cavalry that advances (its hex) |
| 49-51 | 3 | use die 1, 2 or 3 of the throw (of identical dice only the first is offered) |
| 52-69 | 18 | activate (or recover) combat unit u (scenario order) |
| 70-87 | 18 | activate Cossack infantry u with its wagon, pairing a second die of the same value (7.2) |
| 88-105 | 18 | the same, paying 2 interaction commands (7.2, 6.1.3) |
| 106-121 | 16 | named options: buy_activation, buy_recovery, end_throw, gain_reconnaissance, gain_interaction, no_combat, stand, done_adding, artillery, no_artillery, take_choice, decline_choice, choose_loss, choose_retreat, end_battle, continue_battle |

``env.unwrapped.action_to_str(a)`` prints an action in the players' terms ("Hrunka 52->32",
"Kalga close combat vs Wiśniowiecki at 26"). Sizes grow with a scenario that adds units.

## Observation

``observation`` is one float32 vector in [0, 1]: 20 planes of 49 hexes from the observer's point
of view, in this order (plane k at offset 49 k): own_cavalry, own_infantry, enemy_cavalry, enemy_infantry,
tatar, own_wagon, enemy_wagon, attack_dice, defence_dice, die_sides, activation_value, disorganized,
activations, resistance, active_unit, target, attackers, retreating_unit, complex_terrain, camp; then global
features (from offset 980): me,
round, my_throw, decision (one-hot of 16), dice (3 x one-hot of 6), dice_used, dice_spent,
commands (own recon, own interaction, enemy recon, enemy interaction), tatar_spirit,
tatars_withdrawn, battle_continued, combat_kind, artillery, combat_margin, no_attack, attacker_choice,
victory_points, roster (5 values per counter). ``engine.obs_layout.slices`` names every slice;
``engine.obs_layout.unflatten(obs)`` splits a vector. ``action_mask`` is non-zero only for the
agent to move.

## Rewards

Terminal: +1 to the winner, -1 to the loser (ties in victory points go to the Cossack-Tatar player,
10, so there are no draws). With ``reward="shaped"`` each step also pays
``shaped_scale`` x the change of (own VP - enemy VP), the VP counted as if the game ended now.

## Options

``env(render_mode=None | "ansi" | "rgb_array" | "human", reward="terminal" | "shaped",
shaped_scale=0.05, options={...})`` and ``reset(seed=None, options={...})`` with
``variant`` (a real bool: the optional setup 3.3; ``'false'`` is refused) and ``position`` (a dict as
``env.unwrapped.position()`` returns at any decision, named fields only: start from any position, for
curricula, puzzles and analysis; every field is checked and a bad one raises ``ScenarioError`` naming
it). Unknown option names are ignored with a warning. ``env.unwrapped.summary()`` gives the whole state
as a plain dict (round, throws, VP, Tatar spirit, every unit's hex and status; ``docs/berestechko.md``).
Every game is recorded in ``env.unwrapped.record`` (``GameRecord``: seed, options, actions; JSON) and
replays bit-exactly.

## Version history

* v0: first release.
"""

from __future__ import annotations

from ..core.aec import WargameAECEnv, make_env_functions
from .rules import BerestechkoEngine


class _RawEnv(WargameAECEnv):
    __doc__ = __doc__
    metadata = {**WargameAECEnv.metadata, "name": "berestechko_v0"}
    engine_class = BerestechkoEngine


raw_env, env = make_env_functions(_RawEnv)
