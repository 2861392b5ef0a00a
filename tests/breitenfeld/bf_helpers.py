"""Build Breitenfeld positions and play decisions through the public engine API (no private fields)."""

from __future__ import annotations

from wargame_envs.breitenfeld import actions as A
from wargame_envs.breitenfeld.rules import BreitenfeldEngine
from wargame_envs.core import ScriptedDice

E = BreitenfeldEngine()
ALLIED, IMPERIAL = 0, 1


def position(units: dict, leaders: dict | None = None, artillery: dict | None = None, phase: str = "combat",
             active: str | None = None, turn: int = 10, cup: list | None = None, **extra) -> dict:
    """``units``: id -> hex, or id -> {"hex", "disrupted", "flags", "start"}. Only listed pieces are in play."""
    pos = {"turn": turn, "phase": phase, "units": dict(units), "leaders": dict(leaders or {}),
           "artillery": dict(artillery or {})}
    if active is not None:
        pos["active_corps"] = active
    pos["cup"] = list(cup) if cup is not None else []
    pos.update(extra)
    return pos


def start(units: dict, rolls=(), options: dict | None = None, **kw):
    dice = ScriptedDice(rolls)
    s = E.new_state({**(options or {}), "position": position(units, **kw)}, dice)
    return s, dice


def hexa(h: str) -> int:
    return E.codec.hex(E.grid.index[h])


def piece(pid: str) -> int:
    D = E.D
    if pid in D.unit_ids:
        return E.codec.piece(D.unit_ids.index(pid))
    return E.codec.piece(D.n_units + D.leader_ids.index(pid))


def corps(cid: str) -> int:
    return E.codec.corps(E.D.corps_ids.index(cid))


def legal(s) -> list[int]:
    return E.legal_actions(s)


def legal_hexes(s) -> set[str]:
    c = E.codec
    return {E.grid.ids[a - c.hex0] for a in legal(s) if a >= c.hex0}


def legal_pieces(s) -> set[str]:
    c, D = E.codec, E.D
    out = set()
    for a in legal(s):
        if c.piece0 <= a < c.hex0:
            p = a - c.piece0
            out.add(D.unit_ids[p] if p < D.n_units else D.leader_ids[p - D.n_units])
    return out


def play(s, dice, *actions) -> None:
    for a in actions:
        assert a in legal(s), f"{E.action_to_str(s, a)} ({a}) not legal at {E.decision_name(s)}: " \
                              f"{[E.action_to_str(s, x) for x in legal(s)]}"
        E.apply(s, a, dice)


def unit(s, uid: str) -> dict:
    return E.to_position(s)["units"][uid]


def leader(s, lid: str) -> dict:
    return E.to_position(s)["leaders"][lid]


def decision(s) -> str:
    return E.decision_key(s)


def move(s, dice, pid: str, dest: str) -> None:
    play(s, dice, piece(pid), hexa(dest))


def attack(s, dice, defenders, attackers, charge: bool = False, leaders: bool = True) -> None:
    """Declare an attack on ``defenders[0]``, add the rest and the attackers, then resolve; both players
    add (``leaders``) or decline their leaders' values where they are asked (10.11)."""
    play(s, dice, hexa(defenders[0]))
    for h in list(defenders[1:]) + list(attackers):
        play(s, dice, hexa(h))
    play(s, dice, A.RESOLVE_CHARGE if charge else A.RESOLVE)
    while decision(s) == "leader":
        play(s, dice, A.ADD_LEADERS if leaders else A.DECLINE_LEADERS)


def adjacent(a: str, b: str) -> bool:
    return E.grid.index[b] in E.grid.adjacent[E.grid.index[a]]
