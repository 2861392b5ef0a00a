"""Plain-Python lookup tables built once per scenario for the hot rule code.

Reading a Python list is several times faster than indexing a numpy array element by element;
the rules read these, while the game state itself stays in numpy arrays.
"""

from __future__ import annotations

from .data import CAVALRY, INFANTRY, NATIONS, WAGON, Scenario


class Tables:
    def __init__(self, sc: Scenario):
        g = sc.grid
        self.sc = sc
        self.grid = g
        self.H = g.n
        self.U = sc.n_units
        self.NC = sc.n_combat
        self.adj = g.adjacent
        self.side = sc.side.tolist()
        self.typ = sc.type.tolist()
        self.is_cav = [t == CAVALRY for t in self.typ]
        self.is_inf = [t == INFANTRY for t in self.typ]
        self.is_wagon = [t == WAGON for t in self.typ]
        tatar, cossack = NATIONS.index("tatar"), NATIONS.index("cossack")
        self.is_tatar = [n == tatar for n in sc.nation.tolist()]
        self.is_cossack_inf = [n == cossack and t == INFANTRY for n, t in zip(sc.nation.tolist(), self.typ)]
        self.act = sc.act.tolist()
        self.res = sc.resistance.tolist()
        self.die = sc.die.tolist()
        self.att = sc.attack.tolist()
        self.dfn = sc.defence.tolist()
        self.complex = sc.complex.tolist()
        self.camp = sc.camp.tolist()
        self.units_of = [[u for u in range(self.U) if self.side[u] == p] for p in (0, 1)]
        self.combat_units_of = [[u for u in self.units_of[p] if not self.is_wagon[u]] for p in (0, 1)]
        self.tatars = [u for u in range(self.U) if self.is_tatar[u]]
        self.wagons = [u for u in range(self.U) if self.is_wagon[u]]
        r = sc.rules
        self.rules = r
        self.move_allowance = [r["move_cavalry"] if c else r["move_infantry"] for c in self.is_cav]
        # Line of each hex (the X of "XY"): P-L retreat toward lower lines, C-T toward higher (8.1.7).
        line = [int(h[0]) for h in g.ids]
        self.line = line
        self.rear = [
            [tuple(n for n in g.adjacent[h] if line[n] == line[h] + step) for h in range(g.n)]
            for step in (-1, +1)
        ]
        self.beside = [tuple(n for n in g.adjacent[h] if line[n] == line[h]) for h in range(g.n)]
