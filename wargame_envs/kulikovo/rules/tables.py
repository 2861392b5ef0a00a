"""The tables the compiled rules read: one scenario's map geometry, unit and leader values, charts and
the state buffer's field offsets, as numpy arrays and ints in one namedtuple (:class:`Tables`).

Built once per scenario (``data_dir``; :func:`tables_for`) and handed to every kernel as an argument,
so the kernels' on-disk cache holds for any scenario: :func:`pack` lays the values out in four arrays,
:func:`unpack` (compiled) makes the record of views the kernels read (one argument per call, see
``records.py``). The Ambush Regiment's line of sight (15.2) is traced per source hex by
``Geometry.visible_from`` (slow, numpy): ``vis`` holds the rows of the hexes the Regiment may stand in,
added on demand (:meth:`TableBuilder.ensure_vis`).
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel
from .records import record

# state fields the kernels read, in ArrayState order (each becomes a view of the buffer, see kstate.py)
STATE_FIELDS = ("u_hex", "u_face", "u_status", "u_flags", "u_mp", "u_attacks", "u_tgt", "u_left", "u_react",
                "u_vac", "u_ccv", "hex_unit", "l_hex", "l_state", "l_rating", "l_range", "l_flags", "std_hex",
                "std_captured", "fp", "ambush", "g", "stack", "u_dtgt")

NEAR = 18  # hexes at range 1-2

# (name, kind): "s" an int; "1", "2", "3" an int64 array of that many dimensions; "d" an int16 matrix
# (distances); "v" the Ambush LOS rows (bool)
TABLE_SPEC = (
    # sizes
    ("N", "s"), ("U", "s"), ("NL", "s"), ("NC", "s"), ("NAMB", "s"),
    # buffer offsets (one per STATE_FIELDS entry, same order)
    ("offsets", "1"),
    # action layout
    ("A_DIR", "s"), ("A_FACE", "s"), ("A_UNIT", "s"), ("A_LEADER", "s"), ("A_CMD", "s"), ("A_OPT", "s"),
    ("NUM_ACTIONS", "s"),
    # units (per global unit index)
    ("utype", "1"), ("uplayer", "1"), ("ucmd", "1"), ("ucls", "1"), ("uhorse", "1"), ("umissile", "1"),
    ("ushock", "1"), ("uzoc", "1"), ("udef", "1"), ("udis_def", "1"), ("uma", "1"), ("udis_ma", "1"),
    ("ufp", "1"), ("unit_hex0", "1"), ("hist_face", "1"),
    # sides: first unit / one past the last (units of a side are contiguous), same for leaders, commands
    ("side_ufirst", "1"), ("side_uend", "1"), ("side_lfirst", "1"), ("side_lend", "1"), ("side_cfirst", "1"),
    ("side_cend", "1"),
    # commands (units of a command are contiguous)
    ("cmd_player", "1"), ("cmd_ufirst", "1"), ("cmd_uend", "1"), ("cmd_leaders", "2"), ("ambush_cmd", "s"),
    # leaders
    ("lplayer", "1"), ("lcmd", "1"), ("l_base_rating", "1"), ("l_base_range", "1"), ("l_overall", "1"),
    ("l_false_dmitri", "1"), ("l_hex0", "1"),
    # map
    ("nbr", "2"), ("hexside", "2"), ("step_cost", "3"), ("elev", "1"), ("woods", "1"), ("dist", "d"),
    ("bydist", "d"), ("front_nb", "3"),
    ("near_n", "1"), ("near_t", "2"), ("near_nd", "2"), ("near_dirs", "3"), ("near_nmid", "2"),
    ("near_mids", "3"), ("near_los", "2"),
    # 15.2 hidden hexes: component root and size; LOS rows of Ambush hexes
    ("hid_comp", "1"), ("hid_size", "1"), ("vis_index", "1"), ("vis", "v"),
    # charts
    ("fire_range", "2"), ("fire_min", "s"), ("fire_leg", "1"), ("fire_horse", "1"), ("shock_tables", "2"),
    ("wsm", "2"), ("tv", "1"),
    # misc
    ("standards", "1"), ("flight_level", "1"),
)
TABLE_FIELDS = tuple(name for name, _ in TABLE_SPEC)
Tables = record("Tables", TABLE_FIELDS)

# ``tv``: the scalar chart values, by index
TV_NAMES = (
    "fire_horse_flank", "fire_firer_disordered", "fire_leader_check_at", "fire_leader_killed_min",
    "woods_fire_drm", "woods_shock_drm", "woods_shock_drm_horse", "upslope_shock_drm", "steep_upslope_shock_drm",
    "sd_flank", "sd_rear", "sd_combination", "sd_charge_h", "sd_charge_m", "sd_charger_moved",
    "sd_leader_attacker", "sd_leader_defender", "sd_attacker_disordered", "sd_defender_retired",
    "sd_continued_attack_per_attack",
    "lc_retreat_ok_max", "reluctance_ok_max", "counter_charge_ok_max", "counter_charge_flank",
    "counter_charge_medium", "leader_shock_killed_min", "standard_move_eliminated_min", "dmitri_escape_min",
    "v_overall_commander", "v_standard", "v_leader", "v_heroic_combat_loss",
    "repl_rating_delta", "repl_range_delta", "fd_rating_while_both", "fd_real_start_hex", "fd_escaped_rating",
    "fd_false_hex", "v_retired", "leader_move",
)
(TV_FIRE_HORSE_FLANK, TV_FIRE_FIRER_DIS, TV_FIRE_LEADER_CHECK_AT, TV_FIRE_LEADER_KILLED_MIN, TV_WOODS_FIRE,
 TV_WOODS_SHOCK, TV_WOODS_SHOCK_HORSE, TV_UPSLOPE_SHOCK, TV_STEEP_UPSLOPE_SHOCK, TV_SD_FLANK, TV_SD_REAR,
 TV_SD_COMBINATION, TV_SD_CHARGE_H, TV_SD_CHARGE_M, TV_SD_CHARGER_MOVED, TV_SD_LEADER_ATT, TV_SD_LEADER_DEF,
 TV_SD_ATT_DIS, TV_SD_DEF_RETIRED, TV_SD_CA, TV_LC_RETREAT_OK_MAX, TV_RELUCTANCE_OK_MAX, TV_CC_OK_MAX,
 TV_CC_FLANK, TV_CC_MEDIUM, TV_LEADER_SHOCK_KILLED_MIN, TV_STD_MOVE_ELIM_MIN, TV_DMITRI_ESCAPE_MIN,
 TV_V_OC, TV_V_STANDARD, TV_V_LEADER, TV_V_HEROIC, TV_REPL_RATING, TV_REPL_RANGE, TV_FD_RATING_BOTH,
 TV_FD_REAL_HEX, TV_FD_ESCAPED_RATING, TV_FD_FALSE_HEX, TV_V_RETIRED, TV_LEADER_MOVE) = range(len(TV_NAMES))


def _i64(x) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(x, dtype=np.int64))


def tables_for(eng) -> "TableBuilder":
    """The tables of ``eng``'s scenario, built once and shared by every engine (and env) of the process."""
    tb = getattr(eng.sc, "_kernel_tables", None)
    if tb is None:
        tb = TableBuilder(eng)
        object.__setattr__(eng.sc, "_kernel_tables", tb)
    return tb


class TableBuilder:
    """Builds a scenario's :class:`Tables` (``T``) and keeps the Ambush LOS rows up to date."""

    def __init__(self, eng):
        self.eng = eng
        e, sc, geo = eng, eng.sc, eng.geo
        N, U = e.N, e.U
        lay = {name: a for name, a, _, _ in e.state_class._layout}
        offsets = _i64([lay[f] for f in STATE_FIELDS])
        sides = lambda seq: (_i64([seq[p][0] for p in range(2)]), _i64([seq[p][-1] + 1 for p in range(2)]))  # noqa: E731
        for seq in (e.side_units, e.side_leaders, e.side_cmds):
            assert all(list(seq[p]) == list(range(seq[p][0], seq[p][-1] + 1)) for p in range(2))
        for c in range(e.NC):
            us = e.cmd_units[c]
            assert list(us) == list(range(us[0], us[-1] + 1))
        maxl = max(len(x) for x in e.cmd_leaders)
        cmd_leaders = np.full((e.NC, maxl), -1, dtype=np.int64)
        for c, ls in enumerate(e.cmd_leaders):
            cmd_leaders[c, :len(ls)] = ls
        near_n = np.zeros(N, np.int64)
        near_t = np.full((N, NEAR), -1, np.int64)
        near_nd = np.zeros((N, NEAR), np.int64)
        near_dirs = np.full((N, NEAR, 2), -1, np.int64)
        near_nmid = np.zeros((N, NEAR), np.int64)
        near_mids = np.full((N, NEAR, 2), -1, np.int64)
        near_los = np.zeros((N, NEAR), np.bool_)
        for h in range(N):
            for k, (t, _, dirs, mids) in enumerate(geo.near[h]):
                near_t[h, k] = t
                near_nd[h, k] = len(dirs)
                near_dirs[h, k, :len(dirs)] = dirs
                near_nmid[h, k] = len(mids)
                near_mids[h, k, :len(mids)] = mids
                near_los[h, k] = geo.los_terrain[h][t]
            near_n[h] = len(geo.near[h])
        dist = np.ascontiguousarray(geo.dist.astype(np.int16))
        bydist = np.ascontiguousarray(np.argsort(geo.dist, axis=1, kind="stable").astype(np.int16))
        hidden, comp, size = e.hidden_hexes()
        hid_comp = np.full(N, -1, np.int64)
        hid_size = np.zeros(N, np.int64)
        for h, root in comp.items():
            hid_comp[h] = root
        for root, n in size.items():
            hid_size[root] = n
        fire_range = np.zeros((6, 2), np.int64)
        for t, v in sc.fire_range.items():
            fire_range[t, :len(v)] = v
        wsm = np.zeros((6, 6), np.int64)
        for t, row in enumerate(sc.wsm):
            if row is not None:
                wsm[t] = row
        fd, sd, te, ts, vi = sc.fire_drm, sc.shock_drm, sc.terrain, sc.tests, sc.victory
        false_hex = next((ld["hex"] for ld in sc.leaders if ld["false_dmitri"]), -1)
        tv = [fd["horse_flank"], fd["firer_disordered"], fd["leader_check_at"], fd["leader_killed_min"],
              te["woods_fire_drm"], te["woods_shock_drm"], te["woods_shock_drm_horse"], te["upslope_shock_drm"],
              te["steep_upslope_shock_drm"],
              sd["flank"], sd["rear"], sd["combination"], sd["charge_h"], sd["charge_m"], sd["charger_moved"],
              sd["leader_attacker"], sd["leader_defender"], sd["attacker_disordered"], sd["defender_retired"],
              sd["continued_attack_per_attack"],
              ts["lc_retreat_ok_max"], ts["reluctance_ok_max"], ts["counter_charge_ok_max"],
              ts["counter_charge_flank"], ts["counter_charge_medium"], ts["leader_shock_killed_min"],
              ts["standard_move_eliminated_min"], ts["dmitri_escape_min"],
              vi["overall_commander"], vi["standard"], vi["leader"], vi["heroic_combat_loss"],
              sc.replacement["rating_delta"], sc.replacement["range_delta"],
              sc.false_dmitri["rating_while_both"], sc.false_dmitri["real_start_hex"],
              sc.false_dmitri["escaped_rating"], false_hex, vi["retired"], sc.leader_move]
        assert len(tv) == len(TV_NAMES)
        al = e.AL
        ut = sc.unit_type
        self.vis_index = np.full(N, -1, np.int64)
        self.vis = np.zeros((0, N), np.bool_)
        self.fields = dict(
            N=N, U=U, NL=e.NL, NC=e.NC, NAMB=len(e.ambush_units), offsets=offsets,
            A_DIR=al.DIR, A_FACE=al.FACE, A_UNIT=al.UNIT, A_LEADER=al.LEADER, A_CMD=al.CMD, A_OPT=al.OPT,
            NUM_ACTIONS=al.size,
            utype=_i64(ut), uplayer=_i64(e.uplayer), ucmd=_i64(e.ucmd),
            ucls=_i64(e.ucls), uhorse=_i64(e.uhorse), umissile=_i64(e.umissile), ushock=_i64(e.ushock),
            uzoc=_i64(e.uzoc),
            udef=_i64(e.udef), udis_def=_i64(e.udis_def), uma=_i64(e.uma), udis_ma=_i64(e.udis_ma),
            ufp=_i64([sc.type_fp[t] for t in ut]),
            unit_hex0=_i64(sc.unit_hex), hist_face=_i64(sc.historical_facing),
            side_ufirst=sides(e.side_units)[0], side_uend=sides(e.side_units)[1],
            side_lfirst=sides(e.side_leaders)[0], side_lend=sides(e.side_leaders)[1],
            side_cfirst=sides(e.side_cmds)[0], side_cend=sides(e.side_cmds)[1],
            cmd_player=_i64(e.cmd_player), cmd_ufirst=_i64([us[0] for us in e.cmd_units]),
            cmd_uend=_i64([us[-1] + 1 for us in e.cmd_units]), cmd_leaders=cmd_leaders, ambush_cmd=e.ambush_cmd,
            lplayer=_i64(e.lplayer), lcmd=_i64(e.lcmd), l_base_rating=_i64([ld["rating"] for ld in sc.leaders]),
            l_base_range=_i64([ld["range"] for ld in sc.leaders]),
            l_overall=_i64([ld["overall"] for ld in sc.leaders]),
            l_false_dmitri=_i64([ld["false_dmitri"] for ld in sc.leaders]),
            l_hex0=_i64([ld["hex"] for ld in sc.leaders]),
            nbr=_i64(geo.nbr), hexside=_i64(geo.hexside), step_cost=_i64(geo.step_cost), elev=_i64(sc.elev),
            woods=_i64(sc.woods), dist=dist, bydist=bydist, front_nb=_i64(geo.front_nb),
            near_n=near_n, near_t=near_t, near_nd=near_nd, near_dirs=near_dirs, near_nmid=near_nmid,
            near_mids=near_mids, near_los=near_los,
            hid_comp=hid_comp, hid_size=hid_size, vis_index=self.vis_index, vis=self.vis,
            fire_range=fire_range, fire_min=sc.fire_min, fire_leg=_i64(sc.fire_leg), fire_horse=_i64(sc.fire_horse),
            shock_tables=_i64([sc.shock_normal, sc.shock_dis, sc.charge_normal, sc.charge_dis]), wsm=wsm,
            tv=_i64(tv), standards=_i64(sc.standards), flight_level=_i64(e.flight_level),
        )
        self.T = unpack(*pack(self.fields))

    def ensure_vis(self, hexes) -> bool:
        """Add the Ambush LOS rows of ``hexes`` (15.2) that are missing; True if any was."""
        new = sorted({int(h) for h in hexes if 0 <= h < self.eng.N and self.vis_index[int(h)] < 0})
        if not new:
            return False
        rows = np.array([self.eng.geo.visible_from(h) for h in new], dtype=np.bool_)
        self.vis_index[new] = np.arange(len(self.vis), len(self.vis) + len(new))
        self.vis = np.ascontiguousarray(np.concatenate([self.vis, rows]))
        self.fields.update(vis=self.vis, vis_index=self.vis_index)
        self.T = unpack(*pack(self.fields))
        return True

    def ensure_hidden_vis(self) -> bool:
        """Every hex the free set-up may put the Regiment in (15.2)."""
        return self.ensure_vis(np.flatnonzero(self.fields["hid_comp"] >= 0))


def pack(fields: dict) -> tuple:
    """The tables as four arrays: int64 values, int16 matrices, the LOS rows and a directory (per field:
    offset or value, shape), from which :func:`unpack` builds :class:`Tables`."""
    i64, i16 = [], []
    n64 = n16 = 0
    directory = np.zeros((len(TABLE_SPEC), 4), np.int64)
    for k, (name, kind) in enumerate(TABLE_SPEC):
        v = fields[name]
        if kind == "s":
            directory[k, 0] = int(v)
            continue
        if kind == "v":
            directory[k, 1:3] = v.shape
            continue
        a = np.asarray(v)
        directory[k, 1:1 + a.ndim] = a.shape
        if kind == "d":
            directory[k, 0] = n16
            i16.append(a.astype(np.int16).ravel())
            n16 += a.size
        else:
            directory[k, 0] = n64
            i64.append(a.astype(np.int64).ravel())
            n64 += a.size
    return (np.ascontiguousarray(np.concatenate(i64)), np.ascontiguousarray(np.concatenate(i16)),
            np.ascontiguousarray(fields["vis"]), directory)


@kernel
def _a1(b, D, k):
    o = D[k, 0]
    return b[o:o + D[k, 1]]


@kernel
def _a2(b, D, k):
    o = D[k, 0]
    return b[o:o + D[k, 1] * D[k, 2]].reshape((D[k, 1], D[k, 2]))


@kernel
def _a3(b, D, k):
    o = D[k, 0]
    return b[o:o + D[k, 1] * D[k, 2] * D[k, 3]].reshape((D[k, 1], D[k, 2], D[k, 3]))


@kernel
def unpack(i64, i16, vis, D):
    """:class:`Tables` from :func:`pack`'s arrays (views of them), in TABLE_SPEC order."""
    return Tables(
        D[0, 0], D[1, 0], D[2, 0], D[3, 0], D[4, 0],
        _a1(i64, D, 5),
        D[6, 0], D[7, 0], D[8, 0], D[9, 0], D[10, 0], D[11, 0], D[12, 0],
        _a1(i64, D, 13), _a1(i64, D, 14), _a1(i64, D, 15), _a1(i64, D, 16), _a1(i64, D, 17), _a1(i64, D, 18),
        _a1(i64, D, 19), _a1(i64, D, 20), _a1(i64, D, 21), _a1(i64, D, 22), _a1(i64, D, 23), _a1(i64, D, 24),
        _a1(i64, D, 25), _a1(i64, D, 26), _a1(i64, D, 27),
        _a1(i64, D, 28), _a1(i64, D, 29), _a1(i64, D, 30), _a1(i64, D, 31), _a1(i64, D, 32), _a1(i64, D, 33),
        _a1(i64, D, 34), _a1(i64, D, 35), _a1(i64, D, 36), _a2(i64, D, 37), D[38, 0],
        _a1(i64, D, 39), _a1(i64, D, 40), _a1(i64, D, 41), _a1(i64, D, 42), _a1(i64, D, 43), _a1(i64, D, 44),
        _a1(i64, D, 45),
        _a2(i64, D, 46), _a2(i64, D, 47), _a3(i64, D, 48), _a1(i64, D, 49), _a1(i64, D, 50), _a2(i16, D, 51),
        _a2(i16, D, 52), _a3(i64, D, 53),
        _a1(i64, D, 54), _a2(i64, D, 55), _a2(i64, D, 56), _a3(i64, D, 57), _a2(i64, D, 58),
        _a3(i64, D, 59), _a2(i64, D, 60),
        _a1(i64, D, 61), _a1(i64, D, 62), _a1(i64, D, 63), vis,
        _a2(i64, D, 65), D[66, 0], _a1(i64, D, 67), _a1(i64, D, 68), _a2(i64, D, 69),
        _a2(i64, D, 70), _a1(i64, D, 71),
        _a1(i64, D, 72), _a1(i64, D, 73),
    )
