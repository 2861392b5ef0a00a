"""Losses, destruction, Tatar combat spirit, retreats and combat dice (8, 8.3, 9, 10): compiled rules.

Every function takes ``k`` (the scenario's tables) and ``g`` (one game's state), both records (see
``tables.py``), and changes the game in place; those that write the log also take ``io`` (:class:`~.tables.IO`).
The sequence in ``sequence.py`` decides when they run.
"""

from __future__ import annotations

from ..core.jit import kernel
from .events import EV, RETREAT_RANGED, RETREAT_SIDEWAYS, SPIRIT_WHY, WHY, log
from .state import CLOSE, DESTROYED, ON_MAP, RANGED, WITHDRAWN, Reason, S
from .victory import end_game


# ----------------------------------------------------------------------------- occupancy
@kernel
def is_free(g, h):
    """A hex with no combat unit and no wagon (8.1.7: retreat hexes must be free)."""
    return g.occ[h] < 0 and g.wag[h] < 0


@kernel
def wagon_with(k, g, u):
    """The wagon combined with Cossack infantry ``u`` (same hex), or -1 (7.2)."""
    if not k.is_cossack_inf[u] or g.status[u] != ON_MAP:
        return -1
    return g.wag[g.hex[u]]


@kernel
def remove_from_map(g, u, status):
    h = g.hex[u]
    if h >= 0 and g.occ[h] == u:
        g.occ[h] = -1
    g.hex[u] = -1
    g.status[u] = status


@kernel
def place(k, g, io, u, h):
    """Move combat unit ``u`` to ``h``; enemy wagons alone there are destroyed (8.3)."""
    old = g.hex[u]
    if old >= 0 and g.occ[old] == u:
        g.occ[old] = -1
    g.hex[u] = h
    g.occ[h] = u
    w = g.wag[h]
    if w >= 0 and k.side[w] != k.side[u]:
        destroy_wagon(g, io, w)


@kernel
def move_wagon(g, w, h):
    g.wag[g.hex[w]] = -1
    g.hex[w] = h
    g.wag[h] = w


@kernel
def destroy_wagon(g, io, w):
    g.wag[g.hex[w]] = -1
    g.hex[w] = -1
    g.status[w] = DESTROYED
    log(io, EV.WAGON_DESTROYED, w, 0, 0, 0)


# ------------------------------------------------------------------- losses and spirit
@kernel
def change_spirit(k, g, io, delta, u, why):
    """9: the Tatar combat spirit moves by ``delta`` (``u`` and ``why`` for the log); at 0 the Tatars go."""
    if g.sc[S.TATARS_OUT]:
        return  # no longer tracked
    new = min(max(g.sc[S.SPIRIT] + delta, 0), k.SPIRIT_MAX)
    g.sc[S.SPIRIT] = new
    log(io, EV.SPIRIT, delta, new, u, why)
    if new == 0:
        withdraw_tatars(k, g, io)


@kernel
def withdraw_tatars(k, g, io):
    """Spirit 0: every Tatar unit leaves the battle at once, keeping its state (9)."""
    g.sc[S.TATARS_OUT] = 1
    g.sc[S.PENDING_TATAR] = 1
    for u in range(k.U):
        if k.is_tatar[u] and g.status[u] == ON_MAP:
            remove_from_map(g, u, WITHDRAWN)
    if g.sc[S.RET_UNIT] >= 0 and g.status[g.sc[S.RET_UNIT]] == WITHDRAWN:
        g.sc[S.RET_UNIT] = -1
        g.sc[S.RET_LEFT] = 0
    log(io, EV.TATARS_WITHDRAW, 0, 0, 0, 0)


@kernel
def destroyed_count(k, g, side):
    n = 0
    for u in range(k.NC):
        if k.side[u] == side and g.status[u] == DESTROYED:
            n += 1
    return n


@kernel
def destroy(k, g, io, u, why):
    h = g.hex[u]
    outright = not g.disorg[u]  # an ordered unit destroyed at once (an impossible retreat)
    remove_from_map(g, u, DESTROYED)
    log(io, EV.DESTROYED, u, why, h, 0)
    if k.is_tatar[u]:
        # 9 and reference decision 11: destroyed outright "counts as disorganization plus destruction".
        if outright:
            change_spirit(k, g, io, -2, u, SPIRIT_WHY.DESTROYED_OUTRIGHT)
        else:
            change_spirit(k, g, io, -1, u, SPIRIT_WHY.DESTROYED)
    elif k.side[u] == 0:
        change_spirit(k, g, io, 1, u, SPIRIT_WHY.DESTROYED)
    check_automatic_victory(k, g, io)


@kernel
def apply_loss(k, g, io, u, why):
    """An ordered unit is disorganized; a disorganized one is destroyed (8.1.4).

    Tatar spirit (9): -1 when a Tatar unit is disorganized, -1 when one is destroyed; a unit destroyed
    outright (its loss then an impossible retreat) thus counts both, as 9 says.
    """
    if g.status[u] != ON_MAP:
        return
    if g.disorg[u]:
        destroy(k, g, io, u, why)
        return
    g.disorg[u] = 1
    log(io, EV.LOSS, u, why, 0, 0)
    if k.is_tatar[u]:
        change_spirit(k, g, io, -1, u, SPIRIT_WHY.LOSS)


@kernel
def check_automatic_victory(k, g, io):
    """Four destroyed enemy combat units win at once (10); so does destroying the enemy's last unit
    in a position with fewer units (C29: withdrawn Tatars are not destroyed, 9, and still count)."""
    if g.sc[S.OVER]:
        return
    for side in range(2):
        if destroyed_count(k, g, side) >= k.AUTO_VICTORY:
            end_game(k, g, io, 1 - side, Reason.AUTOMATIC)
            return
        left = False
        for u in range(k.NC):
            if k.side[u] == side and (g.status[u] == ON_MAP or g.status[u] == WITHDRAWN):
                left = True
        if not left:
            end_game(k, g, io, 1 - side, Reason.NO_UNITS_LEFT)
            return


# -------------------------------------------------------------------------- retreats
@kernel
def retreat_options(k, g, u, out):
    """8.1.7: the free hexes ``u`` may retreat to, written to ``out`` (returns how many), and whether they
    are side hexes (an extra loss): the rear hexes when any is free, else the free side hexes."""
    h = g.hex[u]
    n = 0
    for i in range(6):
        x = k.rear[k.side[u], h, i]
        if x >= 0 and is_free(g, x):
            out[n] = x
            n += 1
    if n:
        return n, False
    for i in range(6):
        x = k.beside[h, i]
        if x >= 0 and is_free(g, x):
            out[n] = x
            n += 1
    return n, True


@kernel
def can_retreat(k, g, u):
    """Whether ``u`` has a free hex to retreat to, rear or side (8.1.7)."""
    h = g.hex[u]
    for i in range(6):
        x = k.rear[k.side[u], h, i]
        if x >= 0 and is_free(g, x):
            return True
        x = k.beside[h, i]
        if x >= 0 and is_free(g, x):
            return True
    return False


@kernel
def retreat_sideways(k, g, u):
    """Whether ``u``'s retreat goes to the side: no rear hex is free (8.1.7)."""
    h = g.hex[u]
    for i in range(6):
        x = k.rear[k.side[u], h, i]
        if x >= 0 and is_free(g, x):
            return False
    return True


@kernel
def start_retreat(k, g, io, u, hexes):
    """Order ``u`` to retreat ``hexes`` hexes; its owner is asked for each hex."""
    if hexes <= 0 or g.status[u] != ON_MAP:
        return
    if wagon_with(k, g, u) >= 0:
        # 8.3: wagons cannot retreat and hold their infantry: a loss instead.
        log(io, EV.WAGON_HOLDS, u, 0, 0, 0)
        apply_loss(k, g, io, u, WHY.WAGONS)
        return
    g.sc[S.RET_UNIT] = u
    g.sc[S.RET_LEFT] = hexes
    settle_retreat(k, g, io)


@kernel
def settle_retreat(k, g, io):
    """Destroy a unit with no free hex (8.1.7); otherwise leave the retreat pending for its owner."""
    if g.sc[S.RET_UNIT] >= 0 and g.sc[S.RET_LEFT] > 0:
        u = g.sc[S.RET_UNIT]
        if g.status[u] == ON_MAP:
            if can_retreat(k, g, u):
                return
            log(io, EV.NO_RETREAT_HEX, u, 1 if g.sc[S.KIND] == RANGED else 0, 0, 0)
            destroy(k, g, io, u, WHY.NO_HEX)
    g.sc[S.RET_UNIT] = -1
    g.sc[S.RET_LEFT] = 0


@kernel
def retreat_step(k, g, io, h):
    """The owner moves the retreating unit to ``h`` (one of :func:`retreat_options`); a side hex costs
    a loss (8.1.7)."""
    u = g.sc[S.RET_UNIT]
    sideways = retreat_sideways(k, g, u)
    frm = g.hex[u]
    place(k, g, io, u, h)
    log(io, EV.RETREATS, u, frm, h, (RETREAT_SIDEWAYS if sideways else 0)
        | (RETREAT_RANGED if g.sc[S.KIND] == RANGED else 0))
    g.sc[S.RET_LEFT] -= 1
    if sideways:
        apply_loss(k, g, io, u, WHY.SIDEWAYS)
    settle_retreat(k, g, io)


# -------------------------------------------------------------------------- combat dice
@kernel
def attack_dice_at(k, u, hu, d, hd, kind):
    """(number, sides) of the dice unit ``u`` at hex ``hu`` throws against ``d`` at ``hd``.

    8.1.5: in close combat Tatars throw exactly 1d6 against infantry. 8.1.6 / terrain table: a unit
    attacking from or into complex terrain throws one die of its type. The two do not stack.
    """
    if kind == CLOSE and k.is_tatar[u] and k.is_inf[d]:
        return 1, 6
    if k.complex[hu] or k.complex[hd]:
        return 1, k.die[u]
    return k.att[u], k.die[u]


@kernel
def resistance(k, g, u):
    """R of the unit, doubled by its wagons (8.3)."""
    r = k.res[u, g.disorg[u]]
    return 2 * r if wagon_with(k, g, u) >= 0 else r
