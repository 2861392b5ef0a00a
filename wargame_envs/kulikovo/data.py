"""Loading and validating the Kulikovo scenario data (``data/*.toml``).

:func:`load_scenario` reads ``map.toml``, ``units.toml``, ``charts.toml`` and ``oob.toml`` from a data
directory (the package's own by default) and returns a :class:`Scenario`: plain Python tuples and lists
the rules read in their hot loops. Every error names the file, the field and the bad value
(:class:`~wargame_envs.core.errors.ScenarioError`). Scenarios are cached per directory, so every env of
one process shares one map geometry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import ScenarioError
from ..core.hexgrid import HexGrid
from ..core.scenario import DataNode, load_cached, load_toml

DATA_DIR = Path(__file__).parent / "data"
PLAYERS = ("russian", "mongol")
TYPES = ("H", "M", "L", "R", "B", "C")
H, M, L, R, B, C = range(6)
# hexside features
SLOPE, STEEP, RIVER = 1, 2, 3
# result bits (fire, shock and charge tables)
AD, AR, DD, DR, RT, EL, CA = 1, 2, 4, 8, 16, 32, 64
_CODES = {"AD": AD, "AR": AR, "DD": DD, "DR": DR, "Rt": RT, "E": EL, "CA": CA, "D": DD, "R": DR}


def parse_result(text: str) -> int:
    if text == "-":
        return 0
    bits = 0
    for part in text.split("+"):
        if part not in _CODES:
            raise ValueError(part)
        bits |= _CODES[part]
    return bits


def result_str(bits: int, fire: bool = False) -> str:
    if not bits:
        return "-"
    names = (("AD", AD), ("AR", AR), ("D" if fire else "DD", DD), ("R" if fire else "DR", DR), ("Rt", RT),
             ("E", EL), ("CA", CA))
    return "+".join(n for n, b in names if bits & b)


@dataclass
class Scenario:
    data_dir: str
    grid: HexGrid
    elev: tuple[int, ...]
    woods: tuple[bool, ...]
    col: tuple[int, ...]
    row: tuple[int, ...]
    region_names: dict[str, str]
    terrain: dict[str, int]
    # unit types (index = TYPES order)
    ma: tuple[int, ...]
    defense: tuple[int, ...]
    dis_ma: tuple[int, ...]
    dis_defense: tuple[int, ...]
    horse: tuple[bool, ...]
    missile: tuple[bool, ...]
    can_shock: tuple[bool, ...]
    type_fp: tuple[int, ...]
    elite_defense: int
    elite_dis_defense: int
    leader_move: int           # hexes a leader moves (13.0)
    wsm: tuple[tuple[int, ...] | None, ...]
    fire_range: dict[int, tuple[int, ...]]
    fire_drm: dict[str, int]
    fire_min: int
    fire_leg: tuple[int, ...]
    fire_horse: tuple[int, ...]
    shock_normal: tuple[int, ...]
    shock_dis: tuple[int, ...]
    charge_normal: tuple[int, ...]
    charge_dis: tuple[int, ...]
    shock_drm: dict[str, int]
    tests: dict[str, int]
    victory: dict[str, int]
    # order of battle
    commands: list[dict[str, Any]]          # name, player, leader (index), units (global indices)
    unit_player: tuple[int, ...]
    unit_command: tuple[int, ...]
    unit_type: tuple[int, ...]
    unit_hex: tuple[int, ...]
    unit_elite: tuple[bool, ...]
    leaders: list[dict[str, Any]]
    standards: tuple[int, int]
    historical_facing: tuple[int, int]
    ambush_command: int
    ambush_default: tuple[int, ...]
    replacement: dict[str, int]
    false_dmitri: dict[str, int]
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def n_units(self) -> int:
        return len(self.unit_type)


_CACHE: dict[str, tuple[str | None, Scenario]] = {}


def load_scenario(data_dir: str | Path | None = None) -> Scenario:
    """The scenario in ``data_dir`` (default: the package data), validated and cached until one of its files
    changes (``core.scenario.load_cached``)."""
    return load_cached(_CACHE, data_dir, DATA_DIR, _load)


def _range2(node: DataNode, key: str, lo: int, hi: int) -> tuple[int, int]:
    v = node.get_list(key, int)
    if len(v) != 2 or v[0] > v[1]:
        node.fail(key, "expected [first, last] with first <= last")
    if v[0] < lo or v[1] > hi:
        node.fail(key, f"must lie within {lo}..{hi}")
    return v[0], v[1]


def _load(d: Path) -> Scenario:
    sources: dict[str, str] = {}
    mp = load_toml(d / "map.toml")
    g = mp.table("grid")
    sources["map.grid"] = g.source()
    conv = g.get("convention", str, choices=("even-q", "odd-q", "even-r", "odd-r"))
    c0, c1 = g.get("first_col", int, min=0, max=99), g.get("last_col", int, min=0, max=99)
    r0, r1 = g.get("first_row", int, min=0, max=99), g.get("last_row", int, min=0, max=99)
    if c1 < c0:
        g.fail("last_col", "must be >= first_col")
    if r1 < r0:
        g.fail("last_row", "must be >= first_row")
    default_elev = g.get("default_elevation", int, min=0, max=9)
    ids, coords = [], []
    for c in range(c0, c1 + 1):
        for r in range(r0, r1 + 1):
            ids.append(f"{c:02d}{r:02d}")
            coords.append((c, r))
    grid = HexGrid(ids, coords, conv)
    n = grid.n
    elev = [default_elev] * n
    woods = [False] * n
    region_names = {}
    for reg in mp.rows("region"):
        sources[f"map.region.{reg.get('name', str)}"] = reg.source()
        rc = _range2(reg, "cols", c0, c1)
        rr = _range2(reg, "rows", r0, r1)
        e = reg.get("elevation", int, None, min=0, max=9)
        w = reg.get("woods", bool, None)
        if e is None and w is None:
            reg.fail("elevation", "a region sets elevation and/or woods")
        for i, (c, r) in enumerate(coords):
            if rc[0] <= c <= rc[1] and rr[0] <= r <= rr[1]:
                if e is not None:
                    elev[i] = e
                if w is not None:
                    woods[i] = w
                region_names[ids[i]] = reg.get("name", str)
    steep_bands = []
    for st in mp.rows("steep"):
        sources[f"map.steep.{st.get('name', str)}"] = st.source()
        steep_bands.append((_range2(st, "cols", c0, c1), _range2(st, "rows", r0, r1)))
    for a in range(n):
        for b in grid.adjacent[a]:
            if b < a or elev[a] == elev[b]:
                continue
            feat = SLOPE
            for (cc, rr) in steep_bands:
                if all(cc[0] <= coords[x][0] <= cc[1] and rr[0] <= coords[x][1] <= rr[1] for x in (a, b)):
                    feat = STEEP
            grid.set_hexside(a, b, feat)
    rv = mp.table("rivers")
    sources["map.rivers"] = rv.source()
    for i, pair in enumerate(rv.get("hexsides", list)):
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) and x in grid.index for x in pair)):
            rv._fail(f"hexsides[{i}]", pair, "expected a pair of adjacent hex ids on the map")
        a, b = grid.index[pair[0]], grid.index[pair[1]]
        if b not in grid.adjacent[a]:
            rv._fail(f"hexsides[{i}]", pair, "hexes are not adjacent")
        grid.set_hexside(a, b, RIVER)
    te = mp.table("terrain_effects")
    sources["map.terrain_effects"] = te.source()
    terrain = {k: te.get(k, int, min=-9, max=9) for k in (
        "clear_cost", "woods_cost_horse_hm", "woods_cost_light", "woods_cost_leg", "slope_up_cost",
        "steep_up_cost_hm", "steep_up_cost_other", "steep_down_cost", "woods_shock_drm",
        "woods_shock_drm_horse", "upslope_shock_drm", "steep_upslope_shock_drm", "woods_fire_drm")}
    for k in ("clear_cost", "woods_cost_horse_hm", "woods_cost_light", "woods_cost_leg"):
        if terrain[k] < 1:
            te.fail(k, "a movement cost must be >= 1")

    # ---------------------------------------------------------------- units
    un = load_toml(d / "units.toml")
    rows = un.rows("type")
    by_code = {}
    for row in rows:
        code = row.get("code", str, choices=TYPES)
        if code in by_code:
            row.fail("code", "duplicate unit type")
        by_code[code] = row
        sources[f"units.type.{code}"] = row.source()
    for code in TYPES:
        if code not in by_code:
            raise ScenarioError(f"{un.file}: field 'type' is missing unit type {code!r}")
    tv = {k: [] for k in ("ma", "defense", "dis_ma", "dis_defense", "horse", "missile", "shock", "flight_points")}
    for code in TYPES:
        row = by_code[code]
        for k in ("ma", "dis_ma"):
            tv[k].append(row.get(k, int, min=1, max=20))
        for k in ("defense", "dis_defense"):
            tv[k].append(row.get(k, int, min=-9, max=9))
        for k in ("horse", "missile", "shock"):
            tv[k].append(row.get(k, bool))
        tv["flight_points"].append(row.get("flight_points", int, min=0, max=10))
    if tv["horse"][:3] != [True, True, True] or any(tv["horse"][3:]):
        by_code["H"].fail("horse", "H, M, L are the horse units and R, B, C the leg units (2.4)")
    ldr = un.table("leader")
    sources["units.leader"] = ldr.source()
    el = un.table("elite")
    sources["units.elite"] = el.source()
    elite_cmd = el.get("command", str)
    wm = un.table("weapons_matrix")
    sources["units.weapons_matrix"] = wm.source()
    cols = wm.get_list("columns", str, choices=TYPES)
    if sorted(cols) != sorted(TYPES):
        wm.fail("columns", f"must list each of {TYPES} once")
    wsm: list[tuple[int, ...] | None] = [None] * 6
    for t, code in enumerate(TYPES):
        if tv["shock"][t]:
            vals = wm.get_list(code, int)
            if len(vals) != 6:
                wm.fail(code, "expected 6 values (one per defender column)")
            wsm[t] = tuple(vals[cols.index(c)] for c in TYPES)
        elif wm.has(code):
            wm.fail(code, f"type {code} may not shock (units.toml shock = false) but has a matrix row")

    # --------------------------------------------------------------- charts
    ch = load_toml(d / "charts.toml")
    fr = ch.table("fire_range")
    sources["charts.fire_range"] = fr.source()
    max_range = fr.get("max_range", int, min=1, max=2)
    fire_range = {}
    for t, code in enumerate(TYPES):
        if tv["missile"][t]:
            v = fr.get_list(code, int)
            if len(v) != max_range:
                fr.fail(code, f"expected {max_range} values (range 1..{max_range})")
            fire_range[t] = tuple(v)
    fd = ch.table("fire_drm")
    sources["charts.fire_drm"] = fd.source()
    fire_drm = {k: fd.get(k, int, min=-9, max=20) for k in ("horse_flank", "firer_disordered", "leader_check_at",
                                                           "leader_killed_min")}

    def table(node: DataNode, key: str, length: int | None) -> tuple[int, ...]:
        vals = node.get_list(key, str)
        if length is not None and len(vals) != length:
            node.fail(key, f"expected {length} entries")
        out = []
        for i, v in enumerate(vals):
            try:
                out.append(parse_result(v))
            except ValueError:
                node._fail(f"{key}[{i}]", v, f"unknown result code; expected '-' or codes {sorted(_CODES)} joined by '+'")
        return tuple(out)

    ft = ch.table("fire_table")
    sources["charts.fire_table"] = ft.source()
    fire_min = ft.get("min_dr", int, min=-5, max=20)
    fire_leg = table(ft, "leg", None)
    fire_horse = table(ft, "horse", len(fire_leg))
    for k, tbl in (("leg", fire_leg), ("horse", fire_horse)):
        if any(b & (AD | AR | CA) for b in tbl):
            ft.fail(k, "fire results are D, R, Rt or E")
    st = ch.table("shock_table")
    sources["charts.shock_table"] = st.source()
    cht = ch.table("charge_table")
    sources["charts.charge_table"] = cht.source()
    shock_normal, shock_dis = table(st, "normal", 12), table(st, "disordered", 12)
    charge_normal, charge_dis = table(cht, "normal", 12), table(cht, "disordered", 12)
    sd = ch.table("shock_drm")
    sources["charts.shock_drm"] = sd.source()
    shock_drm = {k: sd.get(k, int, min=-9, max=9) for k in (
        "flank", "rear", "combination", "charge_h", "charge_m", "charger_moved", "leader_attacker",
        "leader_defender", "attacker_disordered", "defender_retired", "continued_attack_per_attack")}
    te2 = ch.table("tests")
    sources["charts.tests"] = te2.source()
    tests = {k: te2.get(k, int, min=-9, max=20) for k in (
        "lc_retreat_ok_max", "reluctance_ok_max", "counter_charge_ok_max", "counter_charge_flank",
        "counter_charge_medium", "leader_shock_killed_min", "standard_move_eliminated_min", "dmitri_escape_min")}
    vi = ch.table("victory")
    sources["charts.victory"] = vi.source()
    victory = {k: vi.get(k, int, min=0, max=200) for k in (
        "flight_level_russian", "flight_level_mongol", "overall_commander", "standard", "leader", "retired",
        "heroic_combat_loss")}

    # ------------------------------------------------------------------ oob
    ob = load_toml(d / "oob.toml")

    def hex_of(node: DataNode, key: str, value: Any) -> int:
        if not isinstance(value, str) or value not in grid.index:
            node._fail(key, value, "not a hex id of this map (XXYY)")
        return grid.index[value]

    sd_ = ob.table("standards")
    sources["oob.standards"] = sd_.source()
    standards = (hex_of(sd_, "russian", sd_.get("russian", str)), hex_of(sd_, "mongol", sd_.get("mongol", str)))
    hf = ob.table("historical_facing")
    sources["oob.historical_facing"] = hf.source()
    hfacing = (hf.get("russian", int, min=0, max=5), hf.get("mongol", int, min=0, max=5))
    commands: list[dict[str, Any]] = []
    unit_player, unit_command, unit_type, unit_hex, unit_elite = [], [], [], [], []
    cmd_rows = ob.rows("command")
    for p in range(2):  # units numbered player by player: all Russian units first
        for row in cmd_rows:
            player = row.get("player", str, choices=PLAYERS)
            if PLAYERS.index(player) != p:
                continue
            name = row.get("name", str)
            if any(c["name"] == name for c in commands):
                row.fail("name", "duplicate command name")
            sources[f"oob.command.{name}"] = row.source()
            ci = len(commands)
            cmd = {"name": name, "player": p, "leader_name": row.get("leader", str), "units": []}
            units = row.get("units", list)
            if not units:
                row.fail("units", "a command needs at least one unit")
            for k, u in enumerate(units):
                if not (isinstance(u, list) and len(u) == 2 and u[0] in TYPES):
                    row._fail(f"units[{k}]", u, f"expected [type, hex] with type one of {TYPES}")
                hx = hex_of(row, f"units[{k}]", u[1])
                if hx in unit_hex:
                    row._fail(f"units[{k}]", u, "hex already holds another unit (8.0: no stacking)")
                cmd["units"].append(len(unit_type))
                unit_player.append(p)
                unit_command.append(ci)
                unit_type.append(TYPES.index(u[0]))
                unit_hex.append(hx)
                unit_elite.append(name == elite_cmd and u[0] == "H")
            commands.append(cmd)
    if sum(1 for p in unit_player if p == 0) > 50 or sum(1 for p in unit_player if p == 1) > 50:
        raise ScenarioError(f"{ob.file}: field 'command' holds more than 50 units for one side")
    per_player_cmds = [sum(1 for c in commands if c["player"] == p) for p in range(2)]
    if max(per_player_cmds) > 8:
        raise ScenarioError(f"{ob.file}: field 'command' holds more than 8 commands for one side")
    names = [c["name"] for c in commands]
    if elite_cmd not in names:
        el.fail("command", f"no such command; commands are {names}")
    amb = ob.table("ambush")
    sources["oob.ambush"] = amb.source()
    acmd = amb.get("command", str)
    if acmd not in names or commands[names.index(acmd)]["player"] != 0:
        amb.fail("command", f"expected a Russian command of {names}")
    ambush_command = names.index(acmd)
    adef = amb.get_list("default_hexes", str)
    n_amb = len(commands[ambush_command]["units"])
    if len(adef) != n_amb:
        amb.fail("default_hexes", f"expected {n_amb} hexes (one per Ambush Regiment unit)")
    ambush_default = tuple(hex_of(amb, f"default_hexes[{i}]", h) for i, h in enumerate(adef))
    if len(set(ambush_default)) != n_amb:
        amb.fail("default_hexes", "hexes must differ")
    leaders: list[dict[str, Any]] = []
    for p in range(2):
        for row in ob.rows("leader"):
            player = row.get("player", str, choices=PLAYERS)
            if PLAYERS.index(player) != p:
                continue
            name = row.get("name", str)
            sources[f"oob.leader.{name}"] = row.source()
            cmd = row.get("command", str)
            if cmd not in names or commands[names.index(cmd)]["player"] != p:
                row.fail("command", f"expected a {player} command of {names}")
            leaders.append({
                "name": name, "player": p, "command": names.index(cmd), "overall": row.get("overall", bool, False),
                "false_dmitri": row.get("false_dmitri", bool, False),
                "rating": row.get("rating", int, min=0, max=9), "range": row.get("range", int, min=0, max=20),
                "hex": hex_of(row, "hex", row.get("hex", str)),
            })
    if len(leaders) > 8 * 2 or sum(1 for l in leaders if l["player"] == 0) > 8 or sum(1 for l in leaders if l["player"] == 1) > 8:
        raise ScenarioError(f"{ob.file}: field 'leader' holds more than 8 leaders for one side")
    for ci, cmd in enumerate(commands):
        ls = [i for i, l in enumerate(leaders) if l["name"] == cmd["leader_name"]]
        if len(ls) != 1:
            raise ScenarioError(f"{ob.file}: field 'command.{cmd['name']}.leader' = {cmd['leader_name']!r}: no such leader")
        cmd["leader"] = ls[0]
    for p in range(2):
        if sum(1 for l in leaders if l["player"] == p and l["overall"] and not l["false_dmitri"]) != 1:
            raise ScenarioError(f"{ob.file}: field 'leader' = {PLAYERS[p]}: needs exactly one overall commander")
    if sum(1 for l in leaders if l["false_dmitri"]) > 1 or any(l["false_dmitri"] and l["player"] != 0 for l in leaders):
        raise ScenarioError(f"{ob.file}: field 'leader.false_dmitri': at most one, Russian")
    rp = ob.table("replacement")
    sources["oob.replacement"] = rp.source()
    replacement = {"rating_delta": rp.get("rating_delta", int, min=-9, max=0),
                   "range_delta": rp.get("range_delta", int, min=-9, max=0)}
    fdm = ob.table("false_dmitri")
    sources["oob.false_dmitri"] = fdm.source()
    false_dmitri = {"rating_while_both": fdm.get("rating_while_both", int, min=0, max=9),
                    "real_start_hex": hex_of(fdm, "real_start_hex", fdm.get("real_start_hex", str)),
                    "escaped_rating": fdm.get("escaped_rating", int, min=0, max=9)}
    return Scenario(
        data_dir=str(d), grid=grid, elev=tuple(elev), woods=tuple(woods),
        col=tuple(c for c, _ in coords), row=tuple(r for _, r in coords), region_names=region_names,
        terrain=terrain, ma=tuple(tv["ma"]), defense=tuple(tv["defense"]), dis_ma=tuple(tv["dis_ma"]),
        dis_defense=tuple(tv["dis_defense"]), horse=tuple(tv["horse"]), missile=tuple(tv["missile"]),
        can_shock=tuple(tv["shock"]), type_fp=tuple(tv["flight_points"]),
        elite_defense=el.get("defense", int, min=-9, max=9), elite_dis_defense=el.get("dis_defense", int, min=-9, max=9),
        leader_move=ldr.get("move", int, min=1, max=99),
        wsm=tuple(wsm), fire_range=fire_range, fire_drm=fire_drm, fire_min=fire_min, fire_leg=fire_leg,
        fire_horse=fire_horse, shock_normal=shock_normal, shock_dis=shock_dis, charge_normal=charge_normal,
        charge_dis=charge_dis, shock_drm=shock_drm, tests=tests, victory=victory, commands=commands,
        unit_player=tuple(unit_player), unit_command=tuple(unit_command), unit_type=tuple(unit_type),
        unit_hex=tuple(unit_hex), unit_elite=tuple(unit_elite), leaders=leaders, standards=standards,
        historical_facing=hfacing, ambush_command=ambush_command, ambush_default=ambush_default,
        replacement=replacement, false_dmitri=false_dmitri, sources=sources,
    )
