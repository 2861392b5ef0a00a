"""Set-up decisions (15.1 - 15.3, 13.4): the Ambush Regiment's hexes, unit facings and leader hexes of
the free set-up, and the Russian's hidden choice of the Dmitri counter that stands with the Standard
under the False Dmitri rule. Compiled kernels (``c``: the state, ``T``: the tables); the initial state
itself is built in Python (``engine.py``).
"""

from __future__ import annotations

from ...core.jit import kernel
from ..state import D_SETUP_LEADER, G_FD, G_SETUP_FREE, LF_FD
from .kstate import pop, push
from .tables import TV_FD_FALSE_HEX, TV_FD_REAL_HEX


@kernel
def opt_setup_ambush(c, T, t, mask):
    """15.2: the Regiment's hexes, one at a time: contiguous, out of sight of the Mongol set-up, in one
    hidden area large enough for the whole Regiment."""
    k = t[2]
    n = 0
    if k == 0:
        for h in range(T.N):
            r = T.hid_comp[h]
            if r >= 0 and T.hid_size[r] >= T.NAMB:
                mask[h] = True
                n += 1
        return n
    root = T.hid_comp[c.ambush[0]]
    for i in range(k):
        h = c.ambush[i]
        for d in range(6):
            y = T.nbr[h, d]
            if y < 0 or T.hid_comp[y] != root:
                continue
            chosen = False
            for j in range(k):
                if c.ambush[j] == y:
                    chosen = True
            if not chosen:
                mask[y] = True
                n += 1
    return n


@kernel
def do_setup_ambush(c, T, t, a):
    pop(c)
    c.ambush[t[2]] = a


@kernel
def opt_setup_face(c, T, t, mask):
    for f in range(6):
        mask[T.A_FACE + f] = True
    return 6


@kernel
def do_setup_face(c, T, t, a):
    pop(c)
    c.u_face[t[2]] = a - T.A_FACE


@kernel
def opt_setup_leader(c, T, t, mask):
    """15.1, 15.3: a Russian leader with a unit of his command (the Ambush leader in the Regiment's hexes;
    under 13.4 the Dmitri not with the Standard with any other unit; without it Dmitri also with the
    Standard, C61); a Mongol leader atop or within 1
    hex of a unit of his command."""
    p, l = t[1], t[2]
    cmd = T.lcmd[l]
    std = c.std_hex[0]
    n = 0
    if p == 0:
        if cmd == T.ambush_cmd:
            for k in range(T.NAMB):
                mask[c.ambush[k]] = True
                n += 1
            return n
        if T.l_overall[l] and c.g[G_FD]:  # 13.4: the Dmitri not with the Standard goes with another unit
            for u in range(T.side_ufirst[0], T.side_uend[0]):
                h = c.u_hex[u]
                if h >= 0 and h != std:
                    mask[h] = True
                    n += 1
            return n
        for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
            if c.u_hex[u] >= 0:
                mask[c.u_hex[u]] = True
                n += 1
        if T.l_overall[l] and std >= 0 and not mask[std]:
            # 15.1 deploys Dmitri "as per the False Dmitri rule", which puts him with the Standard; 15.0 lets a
            # leader stand with any unit of his formation: without 13.4 he may do either (C61)
            mask[std] = True
            n += 1
        return n
    for u in range(T.cmd_ufirst[cmd], T.cmd_uend[cmd]):
        h = c.u_hex[u]
        if h < 0:
            continue
        mask[h] = True
        n += 1
        for d in range(6):
            y = T.nbr[h, d]
            if y >= 0 and (c.hex_unit[y] < 0 or T.uplayer[c.hex_unit[y]] == 1):
                mask[y] = True
                n += 1
    return n


@kernel
def do_setup_leader(c, T, t, a):
    pop(c)
    c.l_hex[t[2]] = a


# 13.4 (False Dmitri): which counter stands with the Standard is the Russian's hidden choice; both
# counters look alike to the Mongol player, so the choice leaves his observation unchanged.
@kernel
def opt_setup_dmitri(c, T, t, mask):
    n = 0
    for l in range(T.side_lfirst[0], T.side_lend[0]):
        if c.l_flags[l] & LF_FD:
            mask[T.A_LEADER + l - T.side_lfirst[0]] = True
            n += 1
    return n


@kernel
def do_setup_dmitri(c, T, t, a):
    pop(c)
    at_std = T.side_lfirst[0] + a - T.A_LEADER
    other = -1
    for l in range(T.side_lfirst[0], T.side_lend[0]):
        if c.l_flags[l] & LF_FD and l != at_std:
            other = l
            break
    if c.g[G_SETUP_FREE]:
        c.l_hex[at_std] = c.std_hex[0]
        push(c, D_SETUP_LEADER, 0, other)
    else:  # historical: the Standard's hex (15.1) and the False Dmitri's hex of oob.toml
        c.l_hex[at_std] = T.tv[TV_FD_REAL_HEX]
        c.l_hex[other] = T.tv[TV_FD_FALSE_HEX]
