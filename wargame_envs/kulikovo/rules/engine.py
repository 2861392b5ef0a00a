"""``KulikovoEngine``: the rules of Kulikovo 1380 behind the shared engine contract.

The rules are compiled kernels over the state buffer, one module per job: ``leaders`` (command, leader
deaths, Ambush Regiment), ``board`` (entering hexes, Disorder / Retire / Eliminate), ``zoc``,
``activation`` (sequence of play, Standards, Flight), ``movement``, ``fire`` (missile fire,
counter-charge against fire, retreats), ``shock`` (shock, charge, results), ``setup`` and ``turn`` (the
task stack's driver and the entry points). This class holds the scenario's tables, builds initial
states, calls the kernels (one call per decision, on the state bound once to the engine's tables and
scratch: :meth:`KulikovoEngine.bound`) and hands their events to the log, which formats them when read; the
batched backend (``kulikovo/batch.py``) calls the same kernels for N games at once.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ...core.chance import DS_SIZE
from ...core.engine import Engine, refuse_finished
from ...core.errors import DiceExhaustedError, IllegalActionError, ScenarioError
from ...core.events import EventBuffer
from ...core.options import Option, check_options
from ...core.scenario import check_data_dir
from ..actions import FACING_NAMES, N_CMD_SLOTS, N_LEADER_SLOTS, N_UNIT_SLOTS, ActionLayout
from ..data import PLAYERS, TYPES, H, L, M, R, Scenario, load_scenario
from ..events import PLAYER_NAMES, format_events
from ..geometry import CLS_HM, CLS_L, CLS_LEG, geometry_for
from ..state import (
    BIG, A_ACT_START, A_ACTIVATE, A_AFTER_ROLL, A_CC_CHARGE, A_END_ACT, A_FIRE, A_FLIGHT, A_HEROIC, A_POST, A_RESOLVE,
    D_ADV_PICK, D_CC_FIRE, D_CONTINUITY, D_DEFENSE, D_FACE, D_FREE, D_LEADER_MOVE, D_MF_SELECT, D_PLACE_REPL,
    D_RBS_ADVANCE, D_REACT, D_RESOLVE_PICK, D_RETREAT, D_RETURN, D_SEIZE, D_SETUP_AMBUSH, D_SETUP_DMITRI,
    D_SETUP_FACE, D_SETUP_LEADER, D_SHOCK_MODE, D_SHOCK_SELECT, D_STD_MOVE, D_UNIT_ACT, DECISION_NAMES, DISORDERED,
    ELIMINATED, G_AMBUSH_PLACED, G_FD, G_MAX_ACT, G_OVER, G_SETUP_FREE, G_SP, G_ACTIVATIONS, G_TRUNC, G_WINNER,
    HIDDEN, L_ACTIVE, L_GONE, L_HIDDEN, LEADER_STATE_NAMES, LF_FD, LF_OC, LF_REAL, NORMAL, RETIRED, STACK_DEPTH,
    STATUS_NAMES, TASK_WIDTH, state_class,
)
from .hidden import HiddenInfoMixin
from .handles import bound_address
from .kstate import bind, bind_like
from .leaders import check_ambush_hexes
from .tables import tables_for
from .turn import GAME_OVER, k_options, k_progress, k_ratings, k_reveal, k_settle, k_step, k_zoc

# reset options (core.options: type-checked; unknown names warned about and ignored)
RESET_OPTIONS = {
    "setup": Option(str, "historical", choices=("historical", "free")),
    "false_dmitri": Option(bool, False),
    # None: the position's, else DEFAULT_MAX_ACTIVATIONS; 0: no limit
    "max_activations": Option(int, None, low=0, high=BIG),
    "ambush_hexes": Option(object, None),  # six hex ids; their content is checked by _initial (15.2)
    "position": Option(object, None),  # checked by position.build_state
}
#: the automatic task kinds (the stack's steps the engine carries out itself)
AUTO = frozenset((A_HEROIC, A_ACTIVATE, A_ACT_START, A_END_ACT, A_FLIGHT, A_FIRE, A_CC_CHARGE, A_RESOLVE,
                  A_AFTER_ROLL, A_POST))


class KulikovoEngine(HiddenInfoMixin, Engine):
    name = "kulikovo_v0"
    agents = ("russian", "mongol")
    DEFAULT_MAX_ACTIVATIONS = 150
    AUTO = AUTO

    def __init__(self, data_dir: str | Path | None = None):
        check_data_dir(data_dir)
        sc = load_scenario(data_dir)
        # what __reduce__ rebuilds the engine from: None (the package data) or the folder's absolute path
        self.data_dir = None if data_dir is None else str(Path(data_dir).resolve())
        self._init_tables(sc)
        self.state_class = state_class(self.N, self.U, self.NL, len(self.ambush_units))
        self._hidden_cache = None
        self._tables = tables_for(self)
        self._vis_ready: set[tuple[bool, bytes]] = set()  # the Ambush hexes whose LOS rows ``T`` holds
        self._events = EventBuffer()
        # the options last computed, and the state they are for (then a 1; turn.current_options)
        self._mask = np.zeros(self.num_actions, dtype=bool)
        self._seen = np.zeros(self.state_class._size + 1, dtype=np.int32)
        self._last_bound = (None, None, None)  # the tables, address and record of the last state bound
        # kernel scratch, allocated once: the ZOC room (7.0), and no dice (for reading kernels)
        self._zoc = (np.zeros((2, self.N), dtype=np.int64), np.empty((2, self.N, 6), dtype=np.int64))
        self._no_roll = (np.zeros(0, dtype=np.float64), np.zeros(DS_SIZE, dtype=np.int64))
        self._leader_span = self.state_class.span("l_hex", "l_flags")  # l_hex, l_state, l_rating, l_range, l_flags
        keep = [-1] * (3 * self.NL) + [0] * self.NL + [LF_OC | LF_REAL] * self.NL
        self._leader_key_mask = np.array(keep, dtype=np.int32)
        self._unit_index = np.arange(self.U, dtype=np.int32)
        self._ambush_index = np.asarray(self.ambush_units, dtype=np.int64)
        from ..observation import build_layout, observe, prepare
        self.obs_layout = build_layout(self)
        prepare(self)
        self._observe = observe
        self._format_log = partial(format_events, self)  # the log lines of a call's events (one object, reused)

    def __reduce__(self):
        """Pickle and deep-copy an engine as its scenario folder: the copy is a new engine of that scenario.

        The engine holds no game (states carry the game); what it holds are the scenario's compiled tables
        (numba StructRefs, which neither pickle nor deep-copy), kernel scratch and caches, all rebuilt by the
        constructor: cheaply, since the scenario and its tables are cached per data folder
        (``load_scenario``, ``tables_for``), and shared again by the copy. A state bound to this engine
        (``s._bound``) is bound to the copy on its first use (:meth:`bound`; states never pickle the binding).
        """
        return type(self), (self.data_dir,)

    def _init_tables(self, sc: Scenario) -> None:
        self.sc = sc
        self.geo = geometry_for(sc)
        self.grid = sc.grid
        self.N = sc.grid.n
        self.U = sc.n_units
        self.AL = ActionLayout(self.N)
        self.num_actions = self.AL.size
        ut = sc.unit_type
        self.utype = ut
        self.uplayer = sc.unit_player
        self.ucmd = sc.unit_command
        self.ucls = tuple(CLS_HM if t in (H, M) else CLS_L if t == L else CLS_LEG for t in ut)
        self.uhorse = tuple(sc.horse[t] for t in ut)
        self.umissile = tuple(sc.missile[t] for t in ut)
        self.ushock = tuple(sc.can_shock[t] for t in ut)
        self.uzoc = tuple(t != R for t in ut)  # 7.0: all but Regular Infantry exert a ZOC
        self.udef = tuple(sc.elite_defense if sc.unit_elite[u] else sc.defense[t] for u, t in enumerate(ut))
        self.udis_def = tuple(sc.elite_dis_defense if sc.unit_elite[u] else sc.dis_defense[t] for u, t in enumerate(ut))
        self.uma = tuple(sc.ma[t] for t in ut)
        self.udis_ma = tuple(sc.dis_ma[t] for t in ut)
        self.side_units = tuple(tuple(u for u in range(self.U) if self.uplayer[u] == p) for p in range(2))
        self.side_missile_units = tuple(tuple(u for u in self.side_units[p] if self.umissile[u]) for p in range(2))
        self.side_first = tuple(self.side_units[p][0] for p in range(2))
        ncmd = len(sc.commands)
        self.NC = ncmd
        self.cmd_player = tuple(c["player"] for c in sc.commands)
        self.cmd_units = tuple(tuple(c["units"]) for c in sc.commands)
        self.side_cmds = tuple(tuple(c for c in range(ncmd) if self.cmd_player[c] == p) for p in range(2))
        self.side_cmd_first = tuple(self.side_cmds[p][0] for p in range(2))
        self.NL = len(sc.leaders)
        self.lplayer = tuple(l["player"] for l in sc.leaders)
        self.lcmd = tuple(l["command"] for l in sc.leaders)
        self.side_leaders = tuple(tuple(i for i in range(self.NL) if self.lplayer[i] == p) for p in range(2))
        self.side_leader_first = tuple(self.side_leaders[p][0] for p in range(2))
        self.cmd_leaders = tuple(tuple(i for i in range(self.NL) if self.lcmd[i] == c) for c in range(ncmd))
        assert all(len(x) <= N_UNIT_SLOTS for x in self.side_units)
        assert all(len(x) <= N_LEADER_SLOTS for x in self.side_leaders)
        assert all(len(x) <= N_CMD_SLOTS for x in self.side_cmds)
        self.ambush_cmd = sc.ambush_command
        self.ambush_units = self.cmd_units[self.ambush_cmd]
        self.flight_level = (sc.victory["flight_level_russian"], sc.victory["flight_level_mongol"])
        self._dist_rows = self.geo.dist_rows
        # units of a side are contiguous (data.py numbers all Russian units first)
        self._side_span = tuple((self.side_units[p][0], self.side_units[p][-1] + 1) for p in range(2))
        assert all(len(self.side_units[p]) == b - a for p, (a, b) in enumerate(self._side_span))

    def dist_row(self, h: int) -> tuple[int, ...]:
        r = self._dist_rows.get(h)
        if r is None:
            r = self._dist_rows[h] = tuple(self.geo.dist[h].tolist())
        return r

    # ------------------------------------------------------------- kernels
    def tables(self, s=None):
        """The scenario's tables for a kernel call (``rules/tables.py``), with the Ambush LOS rows ``s``
        may read (15.2)."""
        tb = self._tables
        if s is not None and not s.g[G_AMBUSH_PLACED]:
            key = (bool(s.g[G_SETUP_FREE]), s.ambush.tobytes())
            if key not in self._vis_ready:  # (rows are only ever added: checked once per set of hexes)
                if key[0]:
                    tb.ensure_hidden_vis()
                tb.ensure_vis(s.ambush)
                self._vis_ready.add(key)
        return tb.T

    def bound(self, s):
        """``s`` bound to this engine: the address of its ``rules/kstate.Bound`` record (``rules/handles.py``),
        the one argument of the entry kernels besides dice and action. The record is made once per state and
        kept on it with its address, the tables it was made with and the Ambush hexes whose LOS rows they
        hold (15.2, :meth:`tables`); it is made again once the tables grew or the hexes changed."""
        got = getattr(s, "_bound", None)
        if (got is None or got[0] is not self or got[1] is not self._tables.T
                or not (s.g[G_AMBUSH_PLACED] or got[2] == s.ambush.tobytes())):
            T = self.tables(s)
            if self._last_bound[0] is T:  # a record of these tables to copy the engine's part from
                rec, address = bind_like(self._last_bound[1], s.buf)
            else:
                rec = bind(s.buf, T, self._obs_kernel, self._obs, self._obs_marks, self._seen, *self._no_roll,
                           self._events.ev, self._events.evn, *self._zoc, self._mask)
                address = bound_address(rec)
            got = s._bound = (self, T, s.ambush.tobytes(), rec, address)
            self._last_bound = (T, address, rec)
        return got[4]

    def _run(self, s, dice, kernel, *args) -> int:
        """Run ``kernel(bound, dv, ds, *args)`` (a compiled rule on ``s`` that leaves the next decision's
        options in ``self._mask`` and returns how many events it logged) with ``dice``: its events go to the
        log (formatted when read); a die that runs out or does not fit (scripted dice) restores the state
        and raises. Returns what the kernel returned."""
        # seeded dice cannot run out (kernel_stream hands over plenty): only other dice need a backup
        backup = None if getattr(dice, "never_runs_out", False) else s.buf.copy()
        bound = self.bound(s)
        dv, ds = dice.kernel_stream()
        try:
            n = kernel(bound, dv, ds, *args)
            dice.kernel_done(ds)
        except Exception:
            if backup is not None:
                s.buf[:] = backup
            self._seen[-1] = 0  # the options are for no known state
            self._events.evn[0] = 0
            raise
        if n > 0:
            s.defer_log(self._format_log, self._events.drain())
        return n

    def _settle(self, s, dice) -> None:
        self._run(s, dice, k_settle)

    def _options(self, s) -> np.ndarray:
        """The pending decision's legal actions as a mask (the engine's own array: read only), computed
        only when it holds another state's (``turn.current_options``)."""
        k_options(self.bound(s))
        return self._mask

    def _pending(self, s) -> tuple[list[int], list[int]]:
        """The pending decision: its task (the top of the stack) and its legal actions."""
        return self.top(s), np.flatnonzero(self._options(s)).tolist()

    def all_command_ratings(self, s) -> list[int]:
        """Activation ratings of every command (4.2, 13.2, 13.3)."""
        out = np.zeros(self.NC, dtype=np.int64)
        k_ratings(s.buf, self.tables(s), out)
        return out.tolist()

    def leader_key(self, s) -> bytes:
        """The leader arrays as far as ratings and what a player sees of leaders go (hex, state, rating,
        Overall Commander and real-Dmitri marks; not the per-activation marks): a cache key."""
        return (s.buf[self._leader_span] & self._leader_key_mask).tobytes()

    def command_rating(self, s, c: int) -> int:
        return self.all_command_ratings(s)[c]

    def zoc_map(self, s, enemy_of: int) -> dict[int, list[int]]:
        """hex -> enemy units (of ``1 - enemy_of``) exerting a ZOC there against ``enemy_of`` (7.0)."""
        zc = np.zeros((2, self.N), dtype=np.int64)
        zu = np.zeros((2, self.N, 6), dtype=np.int64)
        k_zoc(s.buf, self.tables(s), int(enemy_of), zc, zu)
        return {int(h): zu[enemy_of, h, :zc[enemy_of, h]].tolist() for h in np.flatnonzero(zc[enemy_of])}

    def cmd_of_action(self, p: int, a: int) -> int:
        return self.side_cmd_first[p] + a - self.AL.CMD

    # ----------------------------------------------------------- lifecycle
    def new_state(self, options: dict[str, Any] | None, dice):
        s = self.initial_state(options)
        if isinstance(options, dict) and options.get("position") is not None:
            refuse_finished(self, s, to_move=False)  # a finished game given as the start position
            s.from_position = True
        try:
            self._settle(s, dice)
        except RuntimeError as e:  # the compiled rules' own guard, reached from a hand-made task stack
            if not isinstance(options, dict) or options.get("position") is None:
                raise
            raise ScenarioError(f"position: field 'internal.stack': the rules cannot go on from this task stack "
                                f"({e})") from None
        return s

    def initial_state(self, options: dict[str, Any] | None):
        """A new game (or the position in ``options``) before its opening chance: the batched
        backend's template."""
        opts = check_options("kulikovo", options, RESET_OPTIONS)
        max_act = opts["max_activations"]
        if opts["position"] is not None:
            from ..position import build_state
            pos = opts["position"]
            s = build_state(self, pos)
            if max_act is not None:  # the option overrides the position's limit
                s.g[G_MAX_ACT] = max_act
            if "internal" not in pos and not s.g[G_AMBUSH_PLACED]:
                self._reveal_by_setup(s)
            return s
        max_act = self.DEFAULT_MAX_ACTIVATIONS if max_act is None else max_act
        return self._initial(opts["setup"], opts["false_dmitri"], max_act, opts["ambush_hexes"])

    def _reveal_by_setup(self, s) -> None:
        """15.2: a hand-written position whose Mongol units already see an Ambush hex places it."""
        ev = self._events
        k_reveal(s.buf, self.tables(s), ev.ev, ev.evn)
        rows = ev.drain()
        if len(rows):
            s.defer_log(self._format_log, rows)

    def _initial(self, setup: str, fd: bool, max_act: int, ambush_hexes):
        sc = self.sc
        s = self.state_class()
        s.hex_unit[:] = -1
        s.u_hex[:] = -1
        s.l_hex[:] = -1
        s.u_tgt[:] = -1
        s.u_dtgt[:] = -1
        s.u_left[:] = -1
        s.u_react[:] = -1
        s.u_vac[:] = -1
        s.u_ccv[:] = -1
        s.g[G_WINNER] = -1
        s.g[G_MAX_ACT] = max_act
        s.g[G_FD] = int(fd)
        s.g[G_SETUP_FREE] = int(setup == "free")
        amb = sc.ambush_default
        if ambush_hexes is not None:
            amb = self._parse_ambush(ambush_hexes)
        s.ambush[:] = amb
        for u in range(self.U):
            s.u_face[u] = sc.historical_facing[self.uplayer[u]]
            if u in self.ambush_units:
                s.u_status[u] = HIDDEN
                continue
            h = sc.unit_hex[u]
            s.u_hex[u] = h
            s.hex_unit[h] = u
        for l, ld in enumerate(sc.leaders):
            s.l_rating[l] = ld["rating"]
            s.l_range[l] = ld["range"]
            s.l_hex[l] = ld["hex"]
            s.l_state[l] = L_HIDDEN if ld["command"] == self.ambush_cmd else L_ACTIVE
            if ld["overall"]:
                s.l_flags[l] |= LF_OC
            if ld["false_dmitri"]:
                if not fd:
                    s.l_state[l] = L_GONE
                    s.l_hex[l] = -1
                    s.l_flags[l] = 0
                    continue
            elif ld["overall"] and ld["player"] == 0:
                s.l_flags[l] |= LF_REAL
            if fd and ld["overall"] and ld["player"] == 0:
                s.l_flags[l] |= LF_FD
                s.l_rating[l] = sc.false_dmitri["rating_while_both"]
                s.l_hex[l] = -1  # placed by the Russian's hidden choice (D_SETUP_DMITRI, 13.4)
        if self.ambush_units:
            first = int(s.ambush[0])
            for l in self.cmd_leaders[self.ambush_cmd]:
                if s.l_hex[l] not in [int(h) for h in s.ambush]:
                    s.l_hex[l] = first
        for p in range(2):
            s.std_hex[p] = sc.standards[p]
        self.push(s, A_HEROIC, 0)
        if fd and setup == "historical":
            self.push(s, D_SETUP_DMITRI, 0)
        if setup == "free":
            for l in reversed(self.side_leaders[1]):
                self.push(s, D_SETUP_LEADER, 1, l)
            for u in reversed(self.side_units[1]):
                self.push(s, D_SETUP_FACE, 1, u)
            for l in reversed(self._russian_leader_order(fd)):
                self.push(s, D_SETUP_LEADER, 0, l)
            if fd:
                self.push(s, D_SETUP_DMITRI, 0)
            for u in reversed(self.side_units[0]):
                self.push(s, D_SETUP_FACE, 0, u)
            for k in reversed(range(len(self.ambush_units))):
                self.push(s, D_SETUP_AMBUSH, 0, k)
            for l in self.side_leaders[0] + self.side_leaders[1]:
                if s.l_state[l] != L_GONE:
                    s.l_hex[l] = -1
        return s

    def _russian_leader_order(self, fd: bool) -> list[int]:
        """Free set-up order of the Russian leaders; under 13.4 the Dmitri counters are placed through
        D_SETUP_DMITRI instead, in an order that does not depend on which one is real."""
        real = [] if fd else [l for l in self.side_leaders[0] if self.sc.leaders[l]["overall"] and not self.sc.leaders[l]["false_dmitri"]]
        rest = [l for l in self.side_leaders[0] if not self.sc.leaders[l]["overall"]]
        return real + rest

    def _parse_ambush(self, hexes) -> list[int]:
        if not isinstance(hexes, (list, tuple)) or len(hexes) != len(self.ambush_units):
            raise ScenarioError(f"options: field 'ambush_hexes' = {hexes!r}: expected {len(self.ambush_units)} hex ids")
        out = []
        for h in hexes:
            if h not in self.grid.index:
                raise ScenarioError(f"options: field 'ambush_hexes' = {h!r}: not a hex id of this map")
            out.append(self.grid.index[h])
        if len(set(out)) != len(out):
            raise ScenarioError(f"options: field 'ambush_hexes' = {hexes!r}: hexes must differ")
        check_ambush_hexes(self, out)  # 15.2 (rules/leaders.py)
        return out

    def hidden_hexes(self) -> tuple[np.ndarray, dict[int, int], dict[int, int]]:
        """15.2: hexes no Mongol unit could see at the start (historical Mongol positions), with their
        connected components and component sizes."""
        if self._hidden_cache is None:
            seen = np.zeros(self.N, dtype=bool)
            for u in self.side_units[1]:
                seen |= self.geo.visible_from(self.sc.unit_hex[u])
            hidden = ~seen
            occupied = {self.sc.unit_hex[u] for u in self.side_units[0] if u not in self.ambush_units}
            comp, size = {}, {}
            for h in range(self.N):
                if not hidden[h] or h in occupied or h in comp:
                    continue
                stack, members = [h], []
                comp[h] = h
                while stack:
                    x = stack.pop()
                    members.append(x)
                    for y in self.geo.adj[x]:
                        if hidden[y] and y not in occupied and y not in comp:
                            comp[y] = h
                            stack.append(y)
                size[h] = len(members)
            self._hidden_cache = (hidden, comp, size)
        return self._hidden_cache

    # ------------------------------------------------------------- contract
    def current_player(self, s) -> int:
        if s.g[G_OVER]:
            return -1
        sp = int(s.g[G_SP])
        return int(s.stack[sp - 1, 1])

    def legal_mask(self, s) -> np.ndarray:
        return self._options(s).copy()

    def legal_actions(self, s) -> list[int]:
        return np.flatnonzero(self._options(s)).tolist()

    def apply(self, s, action: int, dice) -> None:
        if s.g[G_OVER]:
            raise ValueError("the game is over")
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise IllegalActionError(f"action {a} is not legal at decision '{DECISION_NAMES[self.top(s)[0]]}'")
        # a game from a hand-made position may hold a task no rule writes: its steps keep a copy to fall back on
        saved = s.buf.copy() if getattr(s, "from_position", False) else None
        try:
            done = self._run(s, dice, k_step, a)
        except DiceExhaustedError:  # scripted dice that ran out: the step already left no trace
            raise
        except RuntimeError as e:  # the compiled rules' own guard: a task no rule writes, from a hand-made position
            if saved is not None:
                s.buf[:] = saved
            raise ScenarioError(f"the rules cannot go on from this state: its task stack holds a task no rule "
                                f"writes there (from a start position?): {e}") from None
        if done < 0:  # (k_step: -1, nothing done)
            raise IllegalActionError(f"action {a} is not legal at decision '{DECISION_NAMES[self.top(s)[0]]}'")

    def progress(self, s) -> tuple[bool, bool, int, int]:
        return k_progress(s.g, s.stack)

    def is_terminal(self, s) -> bool:
        return bool(s.g[G_OVER]) and not s.g[G_TRUNC]

    def is_truncated(self, s) -> bool:
        return bool(s.g[G_TRUNC])

    def returns(self, s) -> np.ndarray:
        r = np.zeros(2, dtype=np.float32)
        if s.g[G_OVER] and not s.g[G_TRUNC] and s.g[G_WINNER] >= 0:
            w = int(s.g[G_WINNER])
            r[w], r[1 - w] = 1.0, -1.0
        return r

    def scores(self, s) -> np.ndarray:
        """Flight Points of the enemy (shaped reward: change of enemy FP minus own FP)."""
        return np.array([self.flight_points(s, 1), self.flight_points(s, 0)], dtype=np.float32)

    def flight_points(self, s, p: int) -> int:
        """16.0: the side's Flight Points so far, each of its Retired units counting ``victory.retired`` (1) more."""
        return self.both_flight_points(s)[p]

    def both_flight_points(self, s) -> tuple[int, int]:
        (a0, b0), (a1, b1) = self._side_span
        st, per = s.u_status, self.sc.victory["retired"]
        return (int(s.fp[0]) + per * int(np.count_nonzero(st[a0:b0] == RETIRED)),
                int(s.fp[1]) + per * int(np.count_nonzero(st[a1:b1] == RETIRED)))

    def decision_name(self, s) -> str:
        if s.g[G_OVER]:
            return "game over"
        return DECISION_NAMES[self.top(s)[0]]

    # Indexed by decision kind (kind 0 is unused); the last name, GAME_OVER's, is "game over".
    decision_names = tuple(DECISION_NAMES.get(k, "none") for k in range(GAME_OVER)) + ("game over",)

    def decision_id(self, s) -> int:
        return GAME_OVER if s.g[G_OVER] else int(self.top(s)[0])

    def pending(self, s) -> dict[str, Any]:
        """The pending decision: kind name, player and the unit/leader/hex it concerns (public)."""
        if s.g[G_OVER]:
            return {"decision": "game over"}
        t = self.top(s)
        return {"decision": DECISION_NAMES[t[0]], "kind": t[0], "player": t[1], "args": t[2:]}

    # ------------------------------------------------------------- task stack (building states)
    def push(self, s, kind: int, player: int, *args: int) -> None:
        sp = int(s.g[G_SP])
        if sp >= STACK_DEPTH:
            raise RuntimeError("task stack overflow")
        row = [kind, player, *args]
        s.stack[sp] = row + [-1] * (TASK_WIDTH - len(row))
        s.g[G_SP] = sp + 1

    def top(self, s) -> list[int] | None:
        sp = int(s.g[G_SP])
        return s.stack[sp - 1].tolist() if sp else None

    def summary(self, s) -> dict[str, Any]:
        """The whole state as a plain JSON-friendly dict, hidden information included (an analysis tool,
        not a player's view): activation count and limit, Flight Points (16.0, Retired units counted) and
        Flight Levels, every unit, leader and Standard, the Ambush Regiment and the False Dmitri rule."""
        from ..position import unit_id
        ids = self.grid.ids
        cp = self.current_player(s)
        fp = self.both_flight_points(s)
        return {
            "battle": self.name,
            "to_move": self.agents[cp] if cp >= 0 else None,
            "decision": self.decision_name(s),
            "over": bool(s.g[G_OVER]),
            "truncated": bool(s.g[G_TRUNC]),
            "winner": self.agents[int(s.g[G_WINNER])] if s.g[G_OVER] and s.g[G_WINNER] >= 0 else None,
            "activations": int(s.g[G_ACTIVATIONS]),
            "max_activations": int(s.g[G_MAX_ACT]),
            "flight_points": {self.agents[p]: int(fp[p]) for p in range(2)},
            "flight_levels": {self.agents[p]: int(self.flight_level[p]) for p in range(2)},
            "units": [{"id": unit_id(self, u), "side": self.agents[self.uplayer[u]], "type": TYPES[self.utype[u]],
                       "command": self.sc.commands[self.ucmd[u]]["name"],
                       "hex": ids[int(s.u_hex[u])] if s.u_hex[u] >= 0 else None, "facing": int(s.u_face[u]),
                       "status": STATUS_NAMES[int(s.u_status[u])]} for u in range(self.U)],
            "leaders": [{"name": ld["name"], "side": self.agents[ld["player"]],
                         "command": self.sc.commands[ld["command"]]["name"],
                         "hex": ids[int(s.l_hex[l])] if s.l_hex[l] >= 0 else None,
                         "state": LEADER_STATE_NAMES[int(s.l_state[l])], "rating": int(s.l_rating[l]),
                         "range": int(s.l_range[l]), "overall_commander": bool(s.l_flags[l] & LF_OC),
                         "real_dmitri": bool(s.l_flags[l] & LF_REAL)} for l, ld in enumerate(self.sc.leaders)],
            "standards": {self.agents[p]: {"hex": ids[int(s.std_hex[p])], "captured": bool(s.std_captured[p])}
                          for p in range(2)},
            "ambush": {"placed": bool(s.g[G_AMBUSH_PLACED]), "hexes": [ids[int(h)] for h in s.ambush]},
            "false_dmitri": bool(s.g[G_FD]),
        }

    def observe(self, s, player: int) -> np.ndarray:
        return self._observe(self, s, player)

    def to_position(self, s) -> dict[str, Any]:
        from ..position import to_position
        return to_position(self, s)

    def render_ansi(self, s, viewer: int | None = None) -> str:
        from ..view import render_ansi
        return render_ansi(self, s, viewer)

    def scene(self, s, viewer: int | None = None):
        from ..view import scene
        return scene(self, s, viewer)

    def check_invariants(self, s) -> list[str]:
        if self._invariants_fast_ok(s):
            return []
        return self._invariant_messages(s)

    def _invariants_fast_ok(self, s) -> bool:
        """Vectorised screen of the invariants; the detailed (slow) check runs only when it fails."""
        h = s.u_hex
        live = h >= 0
        hl = h[live]
        idx = self._unit_index[live]
        st = s.u_status
        if hl.size and (np.bincount(hl, minlength=self.N).max() > 1 or (s.hex_unit[hl] != idx).any()):
            return False
        occ = s.hex_unit
        used = occ >= 0
        if int(used.sum()) != int(live.sum()):
            return False
        if (st[live] >= ELIMINATED).any() or (st[~live] <= RETIRED).any():
            return False
        if ((s.u_face < 0) | (s.u_face > 5)).any() or (s.fp < 0).any():
            return False
        if ((s.std_hex < 0) | (s.std_hex >= self.N)).any():
            return False
        amb = st[self._ambush_index]
        placed = bool(s.g[G_AMBUSH_PLACED])
        if (placed and (amb == HIDDEN).any()) or (not placed and (amb != HIDDEN).any()):
            return False
        ls = s.l_state
        inplay = (ls == 0) | (ls == 2) | (ls == 3)
        if ((s.l_hex[inplay] < 0) | (s.l_hex[inplay] >= self.N)).any() and not self._in_setup(s):
            return False
        over = bool(s.g[G_OVER])
        if not over and s.g[G_SP] <= 0:
            return False
        if over and not s.g[G_TRUNC] and s.g[G_WINNER] not in (0, 1):
            return False
        return True

    def _in_setup(self, s) -> bool:
        """Set-up decisions pending (the heroic combat that starts the game still on the stack): leaders
        may still be off the map."""
        return bool((s.stack[:max(0, int(s.g[G_SP])), 0] == A_HEROIC).any())

    def _invariant_messages(self, s) -> list[str]:
        out = []
        hexes = s.u_hex.tolist()
        occ = s.hex_unit.tolist()
        st = s.u_status.tolist()
        seen = {}
        for u in range(self.U):
            h = hexes[u]
            if h >= 0:
                if h in seen:
                    out.append(f"stacking: units {seen[h]} and {u} in {self.hid(h)} [8.0]")
                seen[h] = u
                if occ[h] != u:
                    out.append(f"hex_unit[{self.hid(h)}] = {occ[h]}, but unit {u} stands there")
                if st[u] in (ELIMINATED, HIDDEN):
                    out.append(f"unit {u} is {st[u]} but on the map")
            elif st[u] in (NORMAL, DISORDERED, RETIRED):
                out.append(f"unit {u} is live (status {st[u]}) but off the map")
            if not 0 <= s.u_face[u] <= 5:
                out.append(f"unit {u} facing {int(s.u_face[u])} out of range")
        for h, u in enumerate(occ):
            if u >= 0 and hexes[u] != h:
                out.append(f"hex_unit[{self.hid(h)}] = {u} but the unit is in {self.hid(hexes[u])}")
        if not s.g[G_AMBUSH_PLACED]:
            if any(st[u] != HIDDEN for u in self.ambush_units):
                out.append("Ambush Regiment not placed but some of its units are not hidden")
        elif any(st[u] == HIDDEN for u in self.ambush_units):
            out.append("Ambush Regiment placed but some of its units are hidden")
        for p in range(2):
            if s.fp[p] < 0:
                out.append(f"negative flight points for {PLAYERS[p]}")
            if not 0 <= s.std_hex[p] < self.N:
                out.append(f"{PLAYERS[p]} Standard off the map")
        for l in range(self.NL):
            if s.l_state[l] in (0, 2, 3) and not 0 <= s.l_hex[l] < self.N and not self._in_setup(s):
                out.append(f"leader {self.sc.leaders[l]['name']} in play but off the map")
        sp = int(s.g[G_SP])
        if not s.g[G_OVER] and not 0 < sp:
            out.append("running game with an empty task stack")
        if s.g[G_OVER] and not s.g[G_TRUNC] and s.g[G_WINNER] not in (0, 1):
            out.append("finished game without a winner")
        return out

    def uname(self, s, u: int) -> str:
        h = int(s.u_hex[u])
        where = self.grid.ids[h] if h >= 0 else "off-map"
        return f"{TYPES[self.utype[u]]} {where}"

    def hid(self, h: int) -> str:
        return self.grid.ids[h] if 0 <= h < self.N else "--"

    # ------------------------------------------------------------ describing
    def action_to_str(self, s, action: int) -> str:
        a = self.check_action(action)
        block, v = self.AL.decode(a)
        if s.g[G_OVER]:
            return f"{block} {v}"
        t = self.top(s)
        kind, p = t[0], t[1]
        who = PLAYER_NAMES[p]
        hid = self.hid

        def unit_slot(x):
            u = self.side_first[p] + x
            if u >= self.U or self.uplayer[u] != p:
                return f"unit slot {x}"
            where = hid(int(s.u_hex[u])) if s.u_hex[u] >= 0 else "(off)"
            return f"{self.sc.commands[self.ucmd[u]]['name']} {TYPES[self.utype[u]]} {where}"

        if block == "OPT":
            label = {"PASS": {D_FREE: "pass", D_CONTINUITY: "pass (end the turn)", D_MF_SELECT: "end Move/Fire",
                              D_SHOCK_SELECT: "end shock declarations", D_LEADER_MOVE: "leader stays"}.get(kind, "pass"),
                     "NO": {D_SEIZE: "no seizure", D_DEFENSE: "stand", D_CC_FIRE: "no counter-charge",
                            D_REACT: "hold fire", D_RETURN: "no return fire", D_RBS_ADVANCE: "no advance"}.get(kind, "no"),
                     "YES": "fire", "SHOCK_ALL": "Shock all frontal enemies",
                     "SHOCK_UNATTACKED": "Shock the frontal enemies not already attacked",
                     "STD_RALLY": "activate the Standard: rally", "STD_MOVE": "activate the Standard: move it"}[v]
            return f"{who}: {label}"
        if block == "CMD":
            c = self.side_cmd_first[p] + v
            name = self.sc.commands[c]["name"] if c < self.NC and self.cmd_player[c] == p else f"command slot {v}"
            verb = {D_FREE: "activate", D_CONTINUITY: "continuity with", D_SEIZE: "seize with"}.get(kind, "command")
            return f"{who}: {verb} {name}"
        if block == "UNIT":
            verb = {D_MF_SELECT: "move/fire", D_SHOCK_SELECT: "attack with", D_ADV_PICK: "advance with",
                    D_RBS_ADVANCE: "advance with"}.get(kind, "unit")
            return f"{who}: {verb} {unit_slot(v)}"
        if block == "LEADER":
            l = self.side_leader_first[p] + v
            if kind == D_SETUP_DMITRI:
                return f"{who}: {self.sc.leaders[l]['name'] if l < self.NL else v} with the Standard [13.4]"
            return f"{who}: move leader {self.sc.leaders[l]['name'] if l < self.NL else v}"
        subj = ""
        if kind in (D_UNIT_ACT, D_SHOCK_MODE, D_RETREAT, D_FACE, D_SETUP_FACE, D_DEFENSE, D_CC_FIRE):
            u = t[2]
            where = self.uname(s, u) if kind != D_SETUP_FACE else f"{TYPES[self.utype[u]]} {hid(self.sc.unit_hex[u])}"
            subj = f"{self.sc.commands[self.ucmd[u]]['name']} {where}"
        if block == "DIR":
            u = t[2]
            y = self.geo.nbr[int(s.u_hex[u])][v]
            return f"{who}: {subj} steps to {hid(y)}"
        if block == "FACE":
            verb = {D_UNIT_ACT: "stops facing", D_DEFENSE: "counter-charges facing", D_CC_FIRE: "counter-charges facing"}.get(kind, "faces")
            return f"{who}: {subj} {verb} {FACING_NAMES[v]}"
        # HEX
        occ = int(s.hex_unit[v])
        tgt = f" ({self.uname(s, occ)})" if occ >= 0 else ""
        text = {
            D_UNIT_ACT: f"{subj} fires at {hid(v)}{tgt}", D_SHOCK_MODE: f"{subj} charges into {hid(v)}",
            D_RETREAT: f"{subj} retreats to {hid(v)}", D_DEFENSE: f"{subj} retreats before shock to {hid(v)}",
            D_STD_MOVE: f"Standard to {hid(v)}", D_RESOLVE_PICK: f"resolve the attack on {hid(v)}{tgt}",
            D_SETUP_AMBUSH: f"Ambush Regiment hex {t[2] + 1}: {hid(v)}",
        }.get(kind)
        if text is None:
            if kind in (D_LEADER_MOVE, D_SETUP_LEADER, D_PLACE_REPL):
                text = f"{self.sc.leaders[t[2]]['name']} to {hid(v)}"
            else:
                text = f"hex {hid(v)}"
        return f"{who}: {text}"

