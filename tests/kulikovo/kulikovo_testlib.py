"""Helpers for the Kulikovo rule tests: positions built through the public position format, actions
named by block, and play through ``engine.apply`` with scripted dice."""

from __future__ import annotations

from functools import lru_cache

from wargame_envs.core.dice import Dice, ScriptedDice
from wargame_envs.kulikovo.rules import KulikovoEngine


@lru_cache(maxsize=1)
def engine() -> KulikovoEngine:
    return KulikovoEngine()


def hx(h: str) -> int:
    return engine().grid.index[h]


def unit(uid: str, h: str, facing: int = 0, status: str = "normal") -> dict:
    return {"id": uid, "hex": h, "facing": facing, "status": status}


def leader(name: str, h: str | None, **kw) -> dict:
    return {"name": name, "hex": h, **kw}


def new(units, leaders=(), to_move=None, dice=(), **extra):
    """A state from a hand-made position; ``to_move`` e.g. {"player": "russian", "activate": "Supreme"}."""
    pos = {"units": list(units), "leaders": list(leaders), "to_move": to_move or {"player": "russian"}, **extra}
    d = ScriptedDice(dice)
    s = engine().new_state({"position": pos, "max_activations": extra.get("max_activations", 0)}, d)
    return s, d


def A(block: str, value) -> int:
    eng = engine()
    if block == "HEX":
        return hx(value)
    if block == "UNIT":
        p = 0 if value[0] == "R" else 1
        return eng.AL.UNIT + int(value[1:]) - 1 if p == 0 else eng.AL.UNIT + int(value[1:]) - 1
    if block == "CMD":
        names = [c["name"] for c in eng.sc.commands]
        c = names.index(value)
        p = eng.cmd_player[c]
        return eng.AL.CMD + c - eng.side_cmd_first[p]
    if block == "LEADER":
        names = [l["name"] for l in eng.sc.leaders]
        l = names.index(value)
        return eng.AL.LEADER + l - eng.side_leader_first[eng.lplayer[l]]
    return eng.AL.encode(block, value)


def legal(s) -> set[int]:
    return set(engine().legal_actions(s))


def play(s, dice, *actions):
    eng = engine()
    for a in actions:
        assert a in legal(s), (eng.decision_name(s), eng.action_to_str(s, a) if a < eng.num_actions else a,
                               [eng.action_to_str(s, x) for x in sorted(legal(s))][:20])
        eng.apply(s, a, dice)
    return s


def decision(s) -> str:
    return engine().decision_name(s)


def player(s) -> int:
    return engine().current_player(s)


def uid_at(s, h: str) -> int:
    return int(s.hex_unit[hx(h)])


def pos_of(s, uid: str):
    p = engine().to_position(s)
    rec = next(u for u in p["units"] if u["id"] == uid)
    return rec


def log_text(s) -> str:
    return "\n".join(s.log)


def random_dice(seed=0):
    return Dice(seed)
