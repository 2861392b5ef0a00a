"""Load and validate the Berestechko scenario file into read-only tables.

Everything a user might want to change (map, terrain, units, setup, rule constants, victory points)
comes from ``data/scenario.toml``; errors name the file, the field and the bad value.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.errors import ScenarioError
from ..core.hexgrid import HexGrid
from ..core.scenario import DataNode, load_toml

DATA_DIR = Path(__file__).parent / "data"
SIDES = ("polish_lithuanian", "cossack_tatar")
NATIONS = ("polish", "cossack", "tatar")
TYPES = ("cavalry", "infantry", "wagon")
CAVALRY, INFANTRY, WAGON = 0, 1, 2
RULE_KEYS = (
    "rounds", "activations_per_round", "dice_per_throw", "dice_spent_per_throw", "command_cap",
    "additional_activation_cost", "recovery_cost", "retreat_before_combat_cost", "take_choice_cost",
    "declared_attack_cost", "artillery_cost", "move_infantry", "move_cavalry", "tatar_spirit_start",
    "tatar_spirit_max", "automatic_victory_destroyed",
)
#: the largest value a rule or victory number may take: the compiled rules hold them (and the sums of victory
#: points over a game) in 32-bit integers, and no sensible scenario comes near it
RULE_VALUE_MAX = 10 ** 6
#: dice in a throw (4.1): fixed, since the state, the observation and the action layout are built around them
DICE_PER_THROW = 3
VICTORY_KEYS = (
    "destroyed_enemy_unit", "disorganized_enemy_unit", "destroyed_wagon", "unit_in_camp",
    "tatars_withdrawn_end", "battle_continued_end",
)


@dataclass(frozen=True)
class Scenario:
    grid: HexGrid
    complex: np.ndarray          # (H,) bool: complex terrain (2.1)
    terrain_name: tuple[str, ...]  # per hex
    camp: np.ndarray             # (H,) bool: C-T victory hexes 03/04 (10)
    names: tuple[str, ...]       # per unit (combat units first, wagons last)
    side: np.ndarray             # (U,) 0 = P-L, 1 = C-T
    nation: np.ndarray           # (U,) index into NATIONS
    type: np.ndarray             # (U,) CAVALRY / INFANTRY / WAGON
    act: np.ndarray              # (U,) activation value
    resistance: np.ndarray       # (U, 2) ordered, disorganized
    die: np.ndarray              # (U,) die sides
    attack: np.ndarray           # (U,) attack dice
    defence: np.ndarray          # (U,) defence dice
    setup: tuple[np.ndarray, np.ndarray]  # standard, variant: (U,) hex index or -1
    sources: tuple[str, ...]     # per unit provenance
    rules: dict[str, int]
    victory: dict[str, int]
    start_commands: np.ndarray   # (2, 2): [side][reconnaissance, interaction]
    first_player: int
    n_combat: int                # units 0..n_combat-1 are combat units, the rest wagons

    @property
    def n_units(self) -> int:
        return len(self.names)

    def unit_index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no unit named {name!r}; units: {list(self.names)}") from None


def _hex_list(node: DataNode, key: str, grid: HexGrid) -> list[int]:
    out = []
    for i, h in enumerate(node.get_list(key, str)):
        if h not in grid.index:
            raise ScenarioError(f"{node.file}: field '{node.path}.{key}[{i}]' = {h!r}: not a hex of the map")
        out.append(grid.index[h])
    return out


def load_scenario(data_dir: str | Path | None = None) -> Scenario:
    path = Path(data_dir or DATA_DIR) / "scenario.toml"
    root = load_toml(path)

    m = root.table("map")
    m.source()
    conv = m.get("offset_convention", str, choices=("even-r", "odd-r", "even-q", "odd-q"))
    lines = m.get("lines", int, min=1, max=9)
    positions = m.get("positions", int, min=1, max=9)
    ids = [f"{x}{y}" for x in range(lines) for y in range(1, positions + 1)]
    grid = HexGrid(ids, [(int(h[1]), int(h[0])) for h in ids], conv)

    terrain = root.table("terrain")
    terrain.source()
    complex_ = np.zeros(grid.n, dtype=bool)
    tname = ["open"] * grid.n
    for row in terrain.rows("complex"):
        row.source()
        name = row.get("name", str)
        for h in _hex_list(row, "hexes", grid):
            complex_[h] = True
            tname[h] = name

    rules_node = root.table("rules")
    rules_node.source()
    rules = {k: rules_node.get(k, int, min=0, max=RULE_VALUE_MAX) for k in RULE_KEYS}
    # 4.1: the state, the observation and the action layout hold one throw's three dice; of those a throw spends
    # 1..3 (two as printed) before it may end
    rules["dice_per_throw"] = rules_node.get("dice_per_throw", int, choices=(DICE_PER_THROW,))
    rules["dice_spent_per_throw"] = rules_node.get("dice_spent_per_throw", int, min=1, max=DICE_PER_THROW)
    victory_node = root.table("victory")
    victory_node.source()
    victory = {k: victory_node.get(k, int, min=0, max=RULE_VALUE_MAX) for k in VICTORY_KEYS}
    camp = np.zeros(grid.n, dtype=bool)
    camp[_hex_list(victory_node, "camp_hexes", grid)] = True

    setup = root.table("setup")
    setup.source()
    first = SIDES.index(setup.get("first_player", str, choices=SIDES))
    cmds = setup.table("commands")
    start_commands = np.zeros((2, 2), dtype=np.int32)
    cap = rules["command_cap"]
    for s, side in enumerate(SIDES):
        t = cmds.table(side)
        start_commands[s] = [t.get("reconnaissance", int, min=0, max=cap), t.get("interaction", int, min=0, max=cap)]

    rows = root.rows("unit")
    # Combat units first, wagons last, so action ranges over combat units are contiguous.
    rows.sort(key=lambda r: r.get("type", str, choices=TYPES) == "wagon")
    cols: dict[str, list] = {k: [] for k in ("names", "side", "nation", "type", "act", "res", "die", "att", "dfn", "std", "var", "src")}
    for row in rows:
        name = row.get("name", str)
        if name in cols["names"]:
            row.fail("name", "duplicate unit name")
        typ = TYPES.index(row.get("type", str, choices=TYPES))
        cols["names"].append(name)
        cols["side"].append(SIDES.index(row.get("side", str, choices=SIDES)))
        cols["nation"].append(NATIONS.index(row.get("nation", str, choices=NATIONS)))
        cols["type"].append(typ)
        combat = typ != WAGON
        cols["act"].append(row.get("act", int, min=2 if combat else 0, max=5 if combat else 0))
        res = row.get_list("resistance", int)
        if len(res) != 2 or (combat and not res[0] >= res[1] >= 1):
            row.fail("resistance", "expected [ordered, disorganized] with ordered >= disorganized >= 1")
        cols["res"].append(res)
        cols["die"].append(row.get("die", int, choices=(6, 8, 10, 12) if combat else (0,)))
        cols["att"].append(row.get("attack", int, min=1 if combat else 0, max=6))
        cols["dfn"].append(row.get("defence", int, min=1 if combat else 0, max=6))
        for key, col in (("setup", "std"), ("variant_setup", "var")):
            h = row.get(key, str)
            if h and h not in grid.index:
                row.fail(key, "not a hex of the map")
            cols[col].append(grid.index[h] if h else -1)
        if typ == WAGON and cols["nation"][-1] != NATIONS.index("cossack"):
            row.fail("nation", "only Cossack wagons exist (7.2)")
        cols["src"].append(row.source())
    n_combat = sum(1 for t in cols["type"] if t != WAGON)
    _check_setup(path, cols, n_combat, grid.ids)
    arr = lambda k: np.asarray(cols[k], dtype=np.int32)  # noqa: E731
    return Scenario(
        grid=grid, complex=complex_, terrain_name=tuple(tname), camp=camp, names=tuple(cols["names"]),
        side=arr("side"), nation=arr("nation"), type=arr("type"), act=arr("act"),
        resistance=np.asarray(cols["res"], dtype=np.int32).reshape(-1, 2), die=arr("die"), attack=arr("att"),
        defence=arr("dfn"), setup=(arr("std"), arr("var")), sources=tuple(cols["src"]), rules=rules,
        victory=victory, start_commands=start_commands, first_player=first, n_combat=n_combat,
    )


def _check_setup(path: Path, cols: dict, n_combat: int, hex_ids) -> None:
    """No two combat units on one hex; each wagon starts with a Cossack infantry unit, and no two wagons share
    a hex (7.2: the rule the position reader applies too)."""
    for key in ("std", "var"):
        label = "setup" if key == "std" else "variant_setup"
        seen: dict[int, str] = {}
        for u in range(n_combat):
            h = cols[key][u]
            if h < 0:
                continue
            if h in seen:
                raise ScenarioError(f"{path}: field 'unit.{label}' = {hex_ids[h]!r}: {cols['names'][u]} and {seen[h]} "
                                    "share a hex")
            seen[h] = cols["names"][u]
        wagons: dict[int, str] = {}
        for w in range(n_combat, len(cols["names"])):
            h = cols[key][w]
            if h < 0:
                continue
            if h in wagons:
                raise ScenarioError(f"{path}: field 'unit.{label}' of {cols['names'][w]!r} = {hex_ids[h]!r}: already "
                                    f"holds {wagons[h]} (two wagons in one hex, 7.2)")
            wagons[h] = cols["names"][w]
            host = [u for u in range(n_combat) if cols[key][u] == h]
            if not host or cols["type"][host[0]] != INFANTRY or cols["nation"][host[0]] != NATIONS.index("cossack"):
                raise ScenarioError(
                    f"{path}: field 'unit.{label}' of {cols['names'][w]!r}: a wagon must start with Cossack infantry (7.2)"
                )
