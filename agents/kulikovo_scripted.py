"""A scripted heuristic player for Kulikovo 1380 (``kulikovo_v0``).

It reads the engine and the public state only (never the Ambush Regiment's hexes: its distance
reckoning skips hidden units, and the Russian side activates the Ambush Regiment by schedule). Each
decision: activate the command closest to the enemy (Continuity with the best-rated other command
near the enemy), move units step by step toward the nearest enemy, fire whenever a target is in range,
stop with the enemy to the front, shock with every eligible unit (charging where it can), react and
return fire, counter-charge with heavy cavalry, retreat away from the enemy.
"""

from __future__ import annotations

import numpy as np

from wargame_envs.kulikovo.state import (
    D_ADV_PICK, D_CC_FIRE, D_CONTINUITY, D_DEFENSE, D_FACE, D_FREE, D_LEADER_MOVE, D_MF_SELECT, D_PLACE_REPL,
    D_RBS_ADVANCE, D_REACT, D_RESOLVE_PICK, D_RETREAT, D_RETURN, D_SEIZE, D_SETUP_AMBUSH, D_SETUP_FACE,
    D_SETUP_LEADER, D_SHOCK_MODE, D_SHOCK_SELECT, D_STD_MOVE, D_UNIT_ACT, G_ACTIVATIONS, G_AMBUSH_PLACED,
    RETIRED,
)
from wargame_envs.kulikovo.data import H, M

AMBUSH_AFTER = 25  # activations before the Russian side springs the Ambush Regiment


class KulikovoScriptedAgent:
    name = "kulikovo_scripted"

    def __init__(self, seed: int | None = None):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    # ----------------------------------------------------------------- helpers
    @staticmethod
    def _enemy_hexes(eng, s, player: int) -> list[int]:
        hexes = s.u_hex.tolist()
        return [hexes[u] for u in eng.side_units[1 - player] if hexes[u] >= 0]

    @staticmethod
    def _near(eng, h: int, enemy: list[int]) -> int:
        if not enemy:
            return 99
        row = eng.dist_row(h)
        return min(row[e] for e in enemy)

    def _face_toward(self, eng, s, h: int, enemy: list[int], options: list[int]) -> int:
        best, key = options[0], None
        for a in options:
            f = a - eng.AL.FACE
            fr = [x for x in eng.geo.frontal(h, f) if x >= 0]
            k = min((self._near(eng, x, enemy) for x in fr), default=99)
            if key is None or k < key:
                best, key = a, k
        return best

    def _command_score(self, eng, s, player: int, c: int, enemy: list[int]) -> float:
        if c == eng.ambush_cmd and not s.g[G_AMBUSH_PLACED]:
            return -1.0 if s.g[G_ACTIVATIONS] >= AMBUSH_AFTER else 1e9
        hexes = s.u_hex.tolist()
        st = s.u_status.tolist()
        ds = [self._near(eng, hexes[u], enemy) for u in eng.cmd_units[c] if hexes[u] >= 0 and st[u] != RETIRED]
        if not ds:
            return 1e9
        return float(np.mean(sorted(ds)[:4]))

    # -------------------------------------------------------------------- act
    def act(self, eng, state, player: int, mask: np.ndarray) -> int:
        s = state
        legal = np.flatnonzero(mask).tolist()
        if len(legal) == 1:
            return legal[0]
        al = eng.AL
        t = eng.top(s)
        kind = t[0]
        enemy = self._enemy_hexes(eng, s, player)
        opt = al.option
        if kind in (D_FREE, D_CONTINUITY):
            cmds = [a for a in legal if al.CMD <= a < al.OPT]
            if not cmds:
                return opt("PASS") if opt("PASS") in legal else legal[0]
            scored = []
            for a in cmds:
                c = eng.cmd_of_action(player, a)
                score = self._command_score(eng, s, player, c, enemy)
                if kind == D_CONTINUITY:
                    score -= 2.0 * eng.command_rating(s, c)
                scored.append((score, a))
            scored.sort()
            if kind == D_CONTINUITY and scored[0][0] > 1e8:
                return opt("PASS")
            return scored[0][1]
        if kind == D_SEIZE:
            cmds = [a for a in legal if al.CMD <= a < al.OPT]
            best = max(cmds, key=lambda a: eng.command_rating(s, eng.cmd_of_action(player, a)), default=None)
            if best is not None and eng.command_rating(s, eng.cmd_of_action(player, best)) >= 5:
                return best
            return opt("NO")
        if kind == D_MF_SELECT:
            units = [a for a in legal if al.UNIT <= a < al.LEADER]
            return units[0] if units else opt("PASS")
        if kind == D_UNIT_ACT:
            return self._unit_act(eng, s, t[2], legal, enemy)
        if kind in (D_REACT, D_RETURN):
            return opt("YES") if opt("YES") in legal else legal[0]
        if kind == D_CC_FIRE:
            faces = [a for a in legal if al.FACE <= a < al.FACE + 6]
            return faces[0] if faces and eng.utype[t[2]] == H else opt("NO")
        if kind == D_DEFENSE:
            d = t[2]
            faces = [a for a in legal if al.FACE <= a < al.FACE + 6]
            hexes = [a for a in legal if a < eng.N]
            if faces and eng.utype[d] == H:
                return faces[0]
            if hexes and eng.utype[d] != M:
                return max(hexes, key=lambda h: self._near(eng, h, enemy))
            return opt("NO")
        if kind == D_SHOCK_SELECT:
            units = [a for a in legal if al.UNIT <= a < al.LEADER]
            return units[0] if units else opt("PASS")
        if kind == D_SHOCK_MODE:
            charges = [a for a in legal if a < eng.N]
            if charges:
                return charges[0]
            return opt("SHOCK_ALL") if opt("SHOCK_ALL") in legal else legal[0]
        if kind in (D_RESOLVE_PICK, D_ADV_PICK, D_PLACE_REPL, D_SETUP_AMBUSH, D_SETUP_LEADER):
            return legal[0]
        if kind == D_RBS_ADVANCE:
            return next((a for a in legal if al.UNIT <= a < al.LEADER), legal[0])
        if kind == D_RETREAT:
            return max(legal, key=lambda h: (self._near(eng, h, enemy), -eng.dist_row(int(s.std_hex[player]))[h]))
        if kind in (D_FACE, D_SETUP_FACE):
            u = t[2]
            h = int(s.u_hex[u]) if s.u_hex[u] >= 0 else eng.sc.unit_hex[u]
            return self._face_toward(eng, s, h, enemy, legal)
        if kind == D_LEADER_MOVE:
            return opt("PASS")
        if kind == D_STD_MOVE:
            return legal[0]
        return legal[int(self._rng.integers(len(legal)))]

    def _unit_act(self, eng, s, u: int, legal: list[int], enemy: list[int]) -> int:
        al = eng.AL
        h = int(s.u_hex[u])
        fires = [a for a in legal if a < eng.N]
        if fires:
            return min(fires, key=lambda x: eng.dist_row(h)[x])
        steps = [a for a in legal if al.DIR <= a < al.DIR + 6]
        faces = [a for a in legal if al.FACE <= a < al.FACE + 6]
        if s.u_status[u] == RETIRED:
            return steps[0] if steps else faces[0]
        here = self._near(eng, h, enemy)
        charger = eng.utype[u] in (H, M)
        if here <= 1 or (charger and here in (2, 3) and not s.u_flags[u] & 2):
            return self._face_toward(eng, s, h, enemy, faces)
        best, bkey = None, here
        for a in steps:
            y = eng.geo.nbr[h][a - al.DIR]
            k = self._near(eng, y, enemy)
            if k < bkey:
                best, bkey = a, k
        if best is not None:
            return best
        return self._face_toward(eng, s, h, enemy, faces)

