"""Losses, destruction, Tatar combat spirit, retreats and combat resolution (8, 8.3, 9, 10).

Functions here change a :class:`BerestechkoState` in place; the engine in ``rules.py`` decides when
they run. ``T`` is the scenario's :class:`~.tables.Tables`.
"""

from __future__ import annotations

from .state import CLOSE, DESTROYED, ON_MAP, WITHDRAWN, BerestechkoState, S
from .tables import Tables


def name(T: Tables, u: int) -> str:
    return T.sc.names[u]


def hexid(T: Tables, h: int) -> str:
    return T.grid.ids[h]


# ----------------------------------------------------------------------------- occupancy
def is_free(T: Tables, s: BerestechkoState, h: int) -> bool:
    """A hex with no combat unit and no wagon (8.1.7: retreat hexes must be free)."""
    return s.occ[h] < 0 and s.wag[h] < 0


def wagon_with(T: Tables, s: BerestechkoState, u: int) -> int:
    """The wagon combined with Cossack infantry ``u`` (same hex), or -1 (7.2)."""
    if not T.is_cossack_inf[u] or s.status[u] != ON_MAP:
        return -1
    return int(s.wag[s.hex[u]])


def remove_from_map(s: BerestechkoState, u: int, status: int) -> None:
    h = int(s.hex[u])
    if h >= 0 and s.occ[h] == u:
        s.occ[h] = -1
    s.hex[u] = -1
    s.status[u] = status


def place(T: Tables, s: BerestechkoState, u: int, h: int) -> None:
    """Move combat unit ``u`` to ``h``; enemy wagons alone there are destroyed (8.3)."""
    old = int(s.hex[u])
    if old >= 0 and s.occ[old] == u:
        s.occ[old] = -1
    s.hex[u] = h
    s.occ[h] = u
    w = int(s.wag[h])
    if w >= 0 and T.side[w] != T.side[u]:
        destroy_wagon(T, s, w)


def move_wagon(s: BerestechkoState, w: int, h: int) -> None:
    s.wag[s.hex[w]] = -1
    s.hex[w] = h
    s.wag[h] = w


def destroy_wagon(T: Tables, s: BerestechkoState, w: int) -> None:
    s.wag[s.hex[w]] = -1
    s.hex[w] = -1
    s.status[w] = DESTROYED
    s.log.append(f"{name(T, w)} destroyed by an enemy entering its hex [8.3]")


# ------------------------------------------------------------------- losses and spirit
def spirit_tracked(s: BerestechkoState) -> bool:
    return not s.sc[S.TATARS_OUT]


def change_spirit(T: Tables, s: BerestechkoState, delta: int, why: str) -> None:
    if not spirit_tracked(s):
        return
    new = min(max(int(s.sc[S.SPIRIT]) + delta, 0), T.rules["tatar_spirit_max"])
    s.sc[S.SPIRIT] = new
    s.log.append(f"Tatar combat spirit {delta:+d} ({why}) -> {new} [9]")
    if new == 0:
        withdraw_tatars(T, s)


def withdraw_tatars(T: Tables, s: BerestechkoState) -> None:
    """Spirit 0: every Tatar unit leaves the battle at once, keeping its state (9)."""
    s.sc[S.TATARS_OUT] = 1
    s.sc[S.PENDING_TATAR] = 1
    for u in T.tatars:
        if s.status[u] == ON_MAP:
            remove_from_map(s, u, WITHDRAWN)
    if s.sc[S.RET_UNIT] >= 0 and s.status[s.sc[S.RET_UNIT]] == WITHDRAWN:
        s.sc[S.RET_UNIT] = -1
        s.sc[S.RET_LEFT] = 0
    s.log.append("The Tatars withdraw from the battle [9]")


def destroyed_count(T: Tables, s: BerestechkoState, side: int) -> int:
    st = s.status
    return sum(1 for u in T.combat_units_of[side] if st[u] == DESTROYED)


def destroy(T: Tables, s: BerestechkoState, u: int, why: str) -> None:
    h = int(s.hex[u])
    outright = not s.disorg[u]  # an ordered unit destroyed at once (an impossible retreat)
    remove_from_map(s, u, DESTROYED)
    s.log.append(f"{name(T, u)} destroyed ({why})" + (f" at {hexid(T, h)}" if h >= 0 else ""))
    if T.is_tatar[u]:
        # 9 and reference decision 11: destroyed outright "counts as disorganization plus destruction".
        if outright:
            change_spirit(T, s, -2, f"{name(T, u)} destroyed outright: disorganization and destruction")
        else:
            change_spirit(T, s, -1, f"{name(T, u)} destroyed")
    elif T.side[u] == 0:
        change_spirit(T, s, +1, f"{name(T, u)} destroyed")
    check_automatic_victory(T, s)


def apply_loss(T: Tables, s: BerestechkoState, u: int, why: str) -> None:
    """An ordered unit is disorganized; a disorganized one is destroyed (8.1.4).

    Tatar spirit (9): -1 when a Tatar unit is disorganized, -1 when one is destroyed; a unit destroyed
    outright (its loss then an impossible retreat) thus counts both, as 9 says.
    """
    if s.status[u] != ON_MAP:
        return
    if s.disorg[u]:
        destroy(T, s, u, why)
        return
    s.disorg[u] = 1
    s.log.append(f"{name(T, u)} suffers losses: disorganized ({why})")
    if T.is_tatar[u]:
        change_spirit(T, s, -1, f"{name(T, u)} suffers losses")


def check_automatic_victory(T: Tables, s: BerestechkoState) -> None:
    """Four destroyed enemy combat units win at once (10); so does destroying the enemy's last unit
    in a position with fewer units (C29: withdrawn Tatars are not destroyed, 9, and still count)."""
    if s.sc[S.OVER]:
        return
    from .state import Reason
    from .victory import end_game  # local: victory imports this module

    need = T.rules["automatic_victory_destroyed"]
    st = s.status
    for side in (0, 1):
        if destroyed_count(T, s, side) >= need:
            end_game(T, s, 1 - side, Reason.AUTOMATIC)
            return
        if not any(st[u] == ON_MAP or st[u] == WITHDRAWN for u in T.combat_units_of[side]):
            end_game(T, s, 1 - side, Reason.NO_UNITS_LEFT)
            return


# -------------------------------------------------------------------------- retreats
def retreat_options(T: Tables, s: BerestechkoState, u: int) -> tuple[tuple[int, ...], bool]:
    """Free hexes ``u`` may retreat to, and whether they are side hexes (an extra loss, 8.1.7)."""
    h = int(s.hex[u])
    rear = [x for x in T.rear[T.side[u]][h] if is_free(T, s, x)]
    if rear:
        return tuple(rear), False
    side = [x for x in T.beside[h] if is_free(T, s, x)]
    return tuple(side), True


def start_retreat(T: Tables, s: BerestechkoState, u: int, hexes: int) -> None:
    """Order ``u`` to retreat ``hexes`` hexes; the engine asks its owner for each hex."""
    if hexes <= 0 or s.status[u] != ON_MAP:
        return
    if wagon_with(T, s, u) >= 0:
        # 8.3: wagons cannot retreat and hold their infantry: a loss instead.
        s.log.append(f"{name(T, u)} cannot retreat from its wagons: losses instead [8.3]")
        apply_loss(T, s, u, "retreat from wagons")
        return
    s.sc[S.RET_UNIT] = u
    s.sc[S.RET_LEFT] = hexes
    settle_retreat(T, s)


def settle_retreat(T: Tables, s: BerestechkoState) -> None:
    """Destroy a unit with no free hex; otherwise leave the retreat pending for its owner."""
    while s.sc[S.RET_UNIT] >= 0 and s.sc[S.RET_LEFT] > 0:
        u = int(s.sc[S.RET_UNIT])
        if s.status[u] != ON_MAP:
            break
        options, _ = retreat_options(T, s, u)
        if options:
            return
        s.log.append(f"{name(T, u)} has no free hex to retreat to [8.1.7]")
        destroy(T, s, u, "retreat impossible")
        break
    s.sc[S.RET_UNIT] = -1
    s.sc[S.RET_LEFT] = 0


def retreat_step(T: Tables, s: BerestechkoState, h: int) -> None:
    """The owner moves the retreating unit to ``h`` (one of :func:`retreat_options`)."""
    u = int(s.sc[S.RET_UNIT])
    _, sideways = retreat_options(T, s, u)
    frm = int(s.hex[u])
    place(T, s, u, h)
    s.log.append(f"{name(T, u)} retreats {hexid(T, frm)} -> {hexid(T, h)}" + (" (to the side) [8.1.7]" if sideways else " [8.1.7]"))
    s.sc[S.RET_LEFT] -= 1
    if sideways:
        apply_loss(T, s, u, "retreat to the side")
    settle_retreat(T, s)


# -------------------------------------------------------------------------- combat dice
def attack_dice(T: Tables, s: BerestechkoState, u: int, target: int, kind: int) -> tuple[int, int]:
    """(number, sides) of the dice unit ``u`` throws against ``target``.

    8.1.5: in close combat Tatars throw exactly 1d6 against infantry. 8.1.6 / terrain table: a unit
    attacking from or into complex terrain throws one die of its type. The two do not stack.
    """
    if kind == CLOSE and T.is_tatar[u] and T.is_inf[target]:
        return 1, 6
    if T.complex[s.hex[u]] or T.complex[s.hex[target]]:
        return 1, T.die[u]
    return T.att[u], T.die[u]


def resistance(T: Tables, s: BerestechkoState, u: int) -> int:
    """R of the unit, doubled by its wagons (8.3)."""
    r = T.res[u][int(s.disorg[u])]
    return 2 * r if wagon_with(T, s, u) >= 0 else r
