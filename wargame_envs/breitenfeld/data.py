"""Load and validate the Breitenfeld data files into precomputed tables.

Everything a user might want to change (map, Terrain Effects Chart, orders of battle, Combat Results
Table, Artillery Fire Table, demoralization levels, victory points, map edges) lives in
``data/*.toml``; each table or row carries a ``source`` provenance tag. :func:`load_data` reads a data
directory (the package's by default), validates every field (errors name file, field and value) and
builds the tables the rules use: the hex grid, per-hex movement costs, neighbour/cost tuples for the hot
loops, unit/leader/artillery arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.errors import ScenarioError
from ..core.hexgrid import HexGrid
from ..core.scenario import DataNode, load_cached, load_toml

DATA_DIR = Path(__file__).parent / "data"
SIDES = ("allied", "imperial")
KINDS = ("infantry", "cavalry")
CRT_RESULTS = ("Ae", "Ad", "Ax", "Dx", "Dd", "De")
VISIBILITY = ("clear", "moderate", "restricted")
INF, CAV, LEADER = 0, 1, 2


@dataclass
class BreitenfeldData:
    data_dir: str
    grid: HexGrid
    columns: int
    rows: int
    terrain_names: tuple[str, ...]
    hex_terrain: tuple[int, ...]                  # terrain index per hex
    hex_terrain_name: tuple[str, ...]
    is_hilltop: tuple[bool, ...]
    is_slope: tuple[bool, ...]
    blocks_los: tuple[bool, ...]
    defense_mult: tuple[int, ...]
    defense_needs_slope: tuple[bool, ...]         # hilltop: doubled only if every attacker is in a slope hex
    mp: tuple[tuple[int, ...], ...]               # [INF/CAV/LEADER][hex] MP to enter
    step: tuple[tuple[tuple[tuple[int, int], ...], ...], ...]  # [kind][hex] -> ((neighbour, cost), ...)
    slope_extra_mp: int
    town_name: dict[int, str]
    # armies / corps
    army_ids: tuple[str, ...]
    army_names: tuple[str, ...]
    army_side: tuple[int, ...]
    corps_ids: tuple[str, ...]
    corps_names: tuple[str, ...]
    corps_army: tuple[int, ...]
    corps_side: tuple[int, ...]
    corps_leaders: tuple[tuple[int, ...], ...]
    corps_title: tuple[str, ...]                  # "Tilly's Center"
    # units
    unit_ids: tuple[str, ...]
    unit_corps: tuple[int, ...]
    unit_army: tuple[int, ...]
    unit_side: tuple[int, ...]
    unit_kind: tuple[int, ...]
    unit_label: tuple[str, ...]
    unit_strength: tuple[int, ...]
    unit_dstrength: tuple[int, ...]
    unit_ma: tuple[int, ...]
    unit_start: tuple[int, ...]
    # leaders
    leader_ids: tuple[str, ...]
    leader_names: tuple[str, ...]
    leader_corps: tuple[int, ...]
    leader_side: tuple[int, ...]
    leader_value: tuple[int, ...]
    leader_ma: tuple[int, ...]
    leader_vp: tuple[int, ...]
    leader_start: tuple[int, ...]
    # artillery
    art_ids: tuple[str, ...]
    art_army: tuple[int, ...]
    art_side: tuple[int, ...]
    art_start: tuple[int, ...]
    # charts
    crt_columns: tuple[str, ...]
    crt: tuple[tuple[str, ...], ...]              # [die-1][column]
    art_fire: tuple[tuple[int, int], ...]         # (max_range, disrupt_on_or_below), ascending
    # rules
    turns: int
    demor_level: tuple[int, ...]                  # per army
    saxon_exit: bool
    vp_per_sp: int
    vp_per_art: int
    exit_scores: bool
    edge_column: tuple[int, int]                  # per side
    edge_step: tuple[tuple[tuple[int, ...], ...], ...]  # [side][hex] neighbours one column nearer the edge
    on_edge: tuple[tuple[bool, ...], ...]         # [side][hex] hex in the side's edge column
    release_turn: tuple[int, int]                 # per side: may move from this turn on
    release_distance: int
    all_in_command_turns: int
    exchange_leadership: int                      # 4.1 C: a corps with a leader this good may swap its chit
    undisrupt_on: int
    max_roll: int
    disrupted_hexes: int
    demoralized_hexes: int
    charge_min_hexes: int
    charge_mult: int
    vis_first: int
    vis_rolls: tuple[int, ...]                    # -1 = same
    vis_moderate_undisrupt_on: int
    vis_restricted_range: int
    sources: dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        # plain attributes (read in hot loops)
        self.n_units = len(self.unit_ids)
        self.n_leaders = len(self.leader_ids)
        self.n_art = len(self.art_ids)
        self.n_corps = len(self.corps_ids)
        self.corps_units = tuple(tuple(u for u in range(self.n_units) if self.unit_corps[u] == c)
                                 for c in range(self.n_corps))
        # movement.cheapest (tables.py): per kind, the steps out of each hex as arrays (target, MP cost; -1 padding)
        width = max((len(row) for rows in self.step for row in rows), default=0)
        self.step_to = tuple(np.array([[j for j, _ in row] + [-1] * (width - len(row)) for row in rows], dtype=np.int64)
                             for rows in self.step)
        self.step_cost = tuple(np.array([[k for _, k in row] + [-1] * (width - len(row)) for row in rows], dtype=np.int64)
                               for rows in self.step)
        self.unit_side_array = np.asarray(self.unit_side, dtype=np.int64)   # observation_reference


_CACHE: dict[str, tuple[tuple | None, BreitenfeldData]] = {}


def load_data(data_dir: str | Path | None = None) -> BreitenfeldData:
    """Load the data files of ``data_dir`` (default: the package's ``data/``), cached until one of them changes
    (``core.scenario.load_cached``)."""
    return load_cached(_CACHE, data_dir, DATA_DIR, _load)


def _hex_of(grid: HexGrid, node: DataNode, key: str, value) -> int:
    if not isinstance(value, str) or value not in grid.index:
        node._fail(key, value, "not a hex of this map (XXYY)")
    return grid.index[value]


def _load(d: Path) -> BreitenfeldData:
    sources: dict[str, str] = {}
    # ------------------------------------------------------------------ map
    mroot = load_toml(d / "map.toml")
    m = mroot.table("map")
    sources["map"] = m.source()
    conv = m.get("convention", str, choices=("even-r", "odd-r", "even-q", "odd-q"))
    ncol = m.get("columns", int, min=1, max=99)
    nrow = m.get("rows", int, min=1, max=99)
    default_t = m.get("default_terrain", str)
    ids = [f"{c:02d}{r:02d}" for c in range(1, ncol + 1) for r in range(1, nrow + 1)]
    grid = HexGrid(ids, [(int(h[:2]), int(h[2:])) for h in ids], conv)

    troot = load_toml(d / "terrain.toml")
    tnames, tinfo = [], {}
    for row in troot.rows("terrain"):
        row.source()
        name = row.get("name", str)
        if name in tinfo:
            row.fail("name", "duplicate terrain")
        tnames.append(name)
        tinfo[name] = dict(
            mp=(row.get("mp_infantry", int, min=1, max=99), row.get("mp_cavalry", int, min=1, max=99),
                row.get("mp_leader", int, min=1, max=99)),
            defense=row.get("defense", int, min=1, max=4),
            slope_cond=row.get("defense_condition", str, choices=("always", "all_attackers_in_slope"))
            == "all_attackers_in_slope",
            blocks=row.get("blocks_los", bool),
        )
    for need in ("clear", "slope", "hilltop"):
        if need not in tinfo:
            raise ScenarioError(f"{troot.file}: field 'terrain' lacks the terrain {need!r}")
    hs = troot.table("hexsides")
    sources["hexsides"] = hs.source()
    slope_extra = hs.get("slope_extra_mp", int, min=0, max=9)
    if default_t not in tinfo:
        m._fail("default_terrain", default_t, f"expected one of {tnames}")
    hex_t = [tnames.index(default_t)] * grid.n
    seen: dict[int, str] = {}
    for row in mroot.rows("terrain_hexes"):
        row.source()
        tname = row.get("terrain", str, choices=tnames)
        for k, h in enumerate(row.get_list("hexes", str)):
            i = _hex_of(grid, row, f"hexes[{k}]", h)
            if i in seen:
                row._fail(f"hexes[{k}]", h, f"hex already has terrain {seen[i]!r}")
            seen[i] = tname
            hex_t[i] = tnames.index(tname)
    town_name = {}
    for row in mroot.rows("town_names"):
        row.source()
        nm = row.get("name", str)
        for k, h in enumerate(row.get_list("hexes", str)):
            i = _hex_of(grid, row, f"hexes[{k}]", h)
            if i in town_name:
                row._fail(f"hexes[{k}]", h, f"hex already has the town name {town_name[i]!r}")
            town_name[i] = nm
    mroot.table("errata").source()
    t_slope, t_hill = tnames.index("slope"), tnames.index("hilltop")
    is_hill = tuple(t == t_hill for t in hex_t)
    is_slope = tuple(t == t_slope for t in hex_t)
    for i in range(grid.n):
        if is_slope[i] and not any(is_hill[j] for j in grid.adjacent[i]):
            raise ScenarioError(f"{mroot.file}: field 'terrain_hexes' = {grid.ids[i]!r}: a slope hex must be adjacent to a hilltop hex")
    mp = tuple(tuple(tinfo[tnames[t]]["mp"][k] for t in hex_t) for k in range(3))
    step = tuple(
        tuple(
            tuple((j, mp[k][j] + (slope_extra if is_slope[i] and is_hill[j] else 0)) for j in grid.adjacent[i])
            for i in range(grid.n)
        )
        for k in range(3)
    )

    # ------------------------------------------------------------------ order of battle
    oroot = load_toml(d / "oob.toml")
    army_ids, army_names, army_side = [], [], []
    for row in oroot.rows("armies"):
        row.source()
        aid = row.get("id", str)
        if aid in army_ids:
            row.fail("id", "duplicate army")
        army_ids.append(aid)
        army_names.append(row.get("name", str))
        army_side.append(SIDES.index(row.get("side", str, choices=SIDES)))
    corps_ids, corps_names, corps_army = [], [], []
    for row in oroot.rows("corps"):
        sources[f"corps:{row.get('id', str)}"] = row.source()
        cid = row.get("id", str)
        if cid in corps_ids:
            row.fail("id", "duplicate corps")
        corps_ids.append(cid)
        corps_names.append(row.get("name", str))
        corps_army.append(army_ids.index(row.get("army", str, choices=army_ids)))
    corps_side = [army_side[a] for a in corps_army]
    l_ids, l_names, l_corps, l_val, l_ma, l_vp, l_hex = [], [], [], [], [], [], []
    for row in oroot.rows("leaders"):
        row.source()
        lid = row.get("id", str)
        if lid in l_ids:
            row.fail("id", "duplicate leader")
        l_ids.append(lid)
        l_names.append(row.get("name", str))
        l_corps.append(corps_ids.index(row.get("corps", str, choices=corps_ids)))
        l_val.append(row.get("leadership", int, min=0, max=9))
        l_ma.append(row.get("movement", int, min=0, max=30))
        l_vp.append(row.get("vp", int, min=0, max=100))
        l_hex.append(_hex_of(grid, row, "hex", row.get("hex", str)))
    corps_leaders = tuple(tuple(i for i, c in enumerate(l_corps) if c == k) for k in range(len(corps_ids)))
    corps_title = []
    for k in range(len(corps_ids)):
        ls = corps_leaders[k]
        if ls:
            main = max(ls, key=lambda i: (l_val[i], -i))
            nm = l_names[main]
            corps_title.append(f"{nm}' {corps_names[k]}" if nm.endswith("s") else f"{nm}'s {corps_names[k]}")
        else:
            corps_title.append(f"{army_names[corps_army[k]]} {corps_names[k]}")
    u_ids, u_corps, u_kind, u_label, u_str, u_dstr, u_ma, u_hex = [], [], [], [], [], [], [], []
    for row in oroot.rows("units"):
        row.source()
        prefix = row.get("id_prefix", str)
        corps = corps_ids.index(row.get("corps", str, choices=corps_ids))
        kind = KINDS.index(row.get("kind", str, choices=KINDS))
        label = row.get("label", str)
        st = row.get("strength", int, min=1, max=99)
        ds = row.get("disrupted_strength", int, min=1, max=99)
        if ds > st:
            row.fail("disrupted_strength", f"must not exceed strength {st}")
        ma = row.get("movement", int, min=1, max=30)
        hexes = row.get_list("hexes", str)
        if not hexes:
            row.fail("hexes", "expected at least one hex")
        for k, h in enumerate(hexes):
            uid = prefix + str(k + 1) if len(hexes) > 1 else prefix
            if uid in u_ids:
                row._fail("id_prefix", prefix, f"makes the duplicate unit id {uid!r}")
            u_ids.append(uid)
            u_corps.append(corps)
            u_kind.append(kind)
            u_label.append(label)
            u_str.append(st)
            u_dstr.append(ds)
            u_ma.append(ma)
            u_hex.append(_hex_of(grid, row, f"hexes[{k}]", h))
    dup = {h for h in u_hex if u_hex.count(h) > 1}
    if dup:
        raise ScenarioError(f"{oroot.file}: field 'units' = {sorted(grid.ids[h] for h in dup)}: more than one unit in a hex (6.32)")
    a_ids, a_army, a_hex = [], [], []
    for row in oroot.rows("artillery"):
        row.source()
        prefix = row.get("id_prefix", str)
        army = army_ids.index(row.get("army", str, choices=army_ids))
        hexes = row.get_list("hexes", str)
        for k, h in enumerate(hexes):
            aid = prefix + str(k + 1) if len(hexes) > 1 else prefix
            if aid in a_ids:
                row._fail("id_prefix", prefix, f"makes the duplicate artillery id {aid!r}")
            a_ids.append(aid)
            a_army.append(army)
            a_hex.append(_hex_of(grid, row, f"hexes[{k}]", h))

    # ------------------------------------------------------------------ charts
    croot = load_toml(d / "charts.toml")
    crt_node = croot.table("crt")
    sources["crt"] = crt_node.source()
    cols = crt_node.get_list("columns", str)
    if not cols:
        crt_node.fail("columns", "expected at least one column")
    for k, c in enumerate(cols):
        parts = c.split("-")
        if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts) or "1" not in parts:
            crt_node._fail(f"columns[{k}]", c, "expected odds like '1-3' or '4-1'")
    ratios = [_col_ratio(c) for c in cols]
    if ratios != sorted(ratios) or len(set(ratios)) != len(ratios):
        crt_node.fail("columns", "columns must run from the lowest odds to the highest")
    crt = [None] * 6
    for row in crt_node.rows("rows"):
        row.source()
        die = row.get("die", int, min=1, max=6)
        if crt[die - 1] is not None:
            row.fail("die", "duplicate die row")
        res = row.get_list("results", str, choices=CRT_RESULTS)
        if len(res) != len(cols):
            row.fail("results", f"expected {len(cols)} results (one per column)")
        crt[die - 1] = tuple(res)
    if any(r is None for r in crt):
        raise ScenarioError(f"{croot.file}: field 'crt.rows' lacks die rows {[i + 1 for i, r in enumerate(crt) if r is None]}")
    af = croot.table("artillery_fire")
    sources["artillery_fire"] = af.source()
    art_fire = []
    for row in af.rows("columns"):
        row.source()
        art_fire.append((row.get("max_range", int, min=1, max=50), row.get("disrupt_on_or_below", int, min=0, max=6)))
    if [r for r, _ in art_fire] != sorted({r for r, _ in art_fire}):
        af.fail("columns", "max_range must increase from column to column")

    # ------------------------------------------------------------------ rules
    rroot = load_toml(d / "rules.toml")
    game = rroot.table("game")
    game.source()
    turns = game.get("turns", int, min=1, max=99)
    demor = [None] * len(army_ids)
    for row in rroot.rows("demoralization"):
        row.source()
        a = army_ids.index(row.get("army", str, choices=army_ids))
        if demor[a] is not None:
            row.fail("army", "duplicate army (one demoralization row per army)")
        demor[a] = row.get("level", int, min=1, max=9999)
    if None in demor:
        raise ScenarioError(f"{rroot.file}: field 'demoralization' lacks armies {[army_ids[i] for i, v in enumerate(demor) if v is None]}")
    sx = rroot.table("saxon_exit")
    sx.source()
    vic = rroot.table("victory")
    sources["victory"] = vic.source()
    edges = [None, None]
    for row in rroot.rows("edges"):
        sources[f"edge:{row.get('side', str)}"] = row.source()
        s = SIDES.index(row.get("side", str, choices=SIDES))
        if edges[s] is not None:
            row.fail("side", "duplicate side (one edges row per side)")
        col = row.get("column", int, min=1, max=ncol)
        if col not in (1, ncol):
            row._fail("column", col, f"a map edge is column 1 or {ncol}")
        edges[s] = col
    if None in edges:
        raise ScenarioError(f"{rroot.file}: field 'edges' needs one row per side {SIDES}")
    off = grid.offset
    edge_step, on_edge = [], []
    for s in range(2):
        dc = -1 if edges[s] == 1 else 1
        edge_step.append(tuple(
            tuple(j for j in grid.adjacent[i] if int(off[j, 0]) == int(off[i, 0]) + dc) for i in range(grid.n)))
        on_edge.append(tuple(int(off[i, 0]) == edges[s] for i in range(grid.n)))
    rel = rroot.table("release")
    rel.source()
    cmd = rroot.table("command")
    cmd.source()
    dis = rroot.table("disruption")
    dis.source()
    ch = rroot.table("charge")
    ch.source()
    vis = rroot.table("visibility")
    vis.source()
    vrolls = vis.get_list("rolls", str, choices=VISIBILITY + ("same",))
    if len(vrolls) != 6:
        vis.fail("rolls", "expected 6 entries, one per die face")

    return BreitenfeldData(
        data_dir=str(d), grid=grid, columns=ncol, rows=nrow,
        terrain_names=tuple(tnames), hex_terrain=tuple(hex_t), hex_terrain_name=tuple(tnames[t] for t in hex_t),
        is_hilltop=is_hill, is_slope=is_slope,
        blocks_los=tuple(tinfo[tnames[t]]["blocks"] for t in hex_t),
        defense_mult=tuple(tinfo[tnames[t]]["defense"] for t in hex_t),
        defense_needs_slope=tuple(tinfo[tnames[t]]["slope_cond"] for t in hex_t),
        mp=mp, step=step, slope_extra_mp=slope_extra, town_name=town_name,
        army_ids=tuple(army_ids), army_names=tuple(army_names), army_side=tuple(army_side),
        corps_ids=tuple(corps_ids), corps_names=tuple(corps_names), corps_army=tuple(corps_army),
        corps_side=tuple(corps_side), corps_leaders=corps_leaders, corps_title=tuple(corps_title),
        unit_ids=tuple(u_ids), unit_corps=tuple(u_corps), unit_army=tuple(corps_army[c] for c in u_corps),
        unit_side=tuple(corps_side[c] for c in u_corps), unit_kind=tuple(u_kind), unit_label=tuple(u_label),
        unit_strength=tuple(u_str), unit_dstrength=tuple(u_dstr), unit_ma=tuple(u_ma), unit_start=tuple(u_hex),
        leader_ids=tuple(l_ids), leader_names=tuple(l_names), leader_corps=tuple(l_corps),
        leader_side=tuple(corps_side[c] for c in l_corps), leader_value=tuple(l_val), leader_ma=tuple(l_ma),
        leader_vp=tuple(l_vp), leader_start=tuple(l_hex),
        art_ids=tuple(a_ids), art_army=tuple(a_army), art_side=tuple(army_side[a] for a in a_army),
        art_start=tuple(a_hex),
        crt_columns=tuple(cols), crt=tuple(crt), art_fire=tuple(art_fire),
        turns=turns, demor_level=tuple(demor), saxon_exit=sx.get("enabled", bool),
        vp_per_sp=vic.get("per_strength_point", int, min=0, max=100),
        vp_per_art=vic.get("per_artillery", int, min=0, max=100),
        exit_scores=vic.get("exit_scores_strength", bool),
        edge_column=(edges[0], edges[1]), edge_step=tuple(edge_step), on_edge=tuple(on_edge),
        release_turn=(rel.get("allied_turn", int, min=1, max=99), rel.get("imperial_turn", int, min=1, max=99)),
        release_distance=rel.get("allied_distance", int, min=0, max=99),
        all_in_command_turns=cmd.get("all_in_command_turns", int, min=0, max=99),
        exchange_leadership=cmd.get("exchange_leadership", int, min=0, max=99),
        undisrupt_on=dis.get("undisrupt_on", int, min=1, max=7),
        max_roll=dis.get("max_roll", int, min=1, max=12),
        disrupted_hexes=dis.get("disrupted_hexes", int, min=0, max=20),
        demoralized_hexes=dis.get("demoralized_hexes", int, min=0, max=20),
        charge_min_hexes=ch.get("min_hexes_moved", int, min=0, max=20),
        charge_mult=ch.get("multiplier", int, min=1, max=4),
        vis_first=VISIBILITY.index(vis.get("first_turn", str, choices=VISIBILITY)),
        vis_rolls=tuple(-1 if v == "same" else VISIBILITY.index(v) for v in vrolls),
        vis_moderate_undisrupt_on=vis.get("moderate_undisrupt_on", int, min=1, max=7),
        vis_restricted_range=vis.get("restricted_artillery_range", int, min=1, max=50),
        sources=sources,
    )


def _col_ratio(label: str) -> float:
    a, b = label.split("-")
    return int(a) / int(b)
