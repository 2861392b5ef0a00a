"""The battles as OpenSpiel games: ``from wargame_envs import openspiel; openspiel.register()``.

Registers ``python_berestechko``, ``python_kulikovo`` and ``python_breitenfeld`` with ``pyspiel``
(``pip install 'wargame-envs[bench]'``); ``pyspiel`` is imported here only, never by ``import
wargame_envs``. Each game wraps the battle's :class:`~wargame_envs.core.engine.Engine`:

* legal actions are the engine's mask, returns the engine's (+1/-1, 0 for a draw or a game cut short);
* chance is **sampled** (``ChanceMode.SAMPLED_STOCHASTIC``): there are no chance nodes, each state rolls
  its own :class:`~wargame_envs.core.dice.Dice` inside ``apply_action``. A state made by
  ``new_initial_state()`` gets a dice seed from the game's generator (parameter ``seed``, -1: random),
  so the same seed and actions replay the same games. Each call draws the next seed: two initial states of
  one game roll different dice, and replaying ``state.history()`` on a new initial state does not give the
  same game back (copy the state: ``clone()``, pickle or ``serialize()``). OpenSpiel's ``clone()`` and
  ``deserialize_state()`` make their state with ``new_initial_state()`` too, so a ``clone()`` advances the
  game's generator (``deserialize_state`` puts it back). ``clone()`` copies the dice too (OpenSpiel's
  contract, checked by ``random_sim_test``: a clone and its original given the same actions stay
  equal). A bot that searches on clones of the real state would therefore search with the rolls the
  game is about to make: hand it ``state.resample_from_infostate(player)`` instead, which has fresh
  dice (IS-MCTS does this itself at every simulation);
* Kulikovo is ``IMPERFECT_INFORMATION``: observation and information-state strings and tensors are made
  from ``engine.observe(state, player)``, which hides the unplaced Ambush Regiment and (with
  ``false_dmitri``) the real Dmitri from the Mongol. ``resample_from_infostate`` (IS-MCTS) redraws what
  the player cannot see with ``engine.sample_hidden`` and gives the sample fresh dice;
* Berestechko and Breitenfeld are perfect information (observation string and tensor only).

Copies (the dice go with the state, so a copy rolls what the original would):

* ``pickle`` works on games and states (``pickle.dumps(game)``, ``pickle.dumps(state)``, ``copy.deepcopy``):
  a game is rebuilt from its name and parameters with its generator's state, a state with its game, its
  history and its engine state, dice and decision count, and plays on exactly as the original;
* ``state.serialize()`` / ``game.deserialize_state(text)`` round-trip a state of that game (OpenSpiel's
  text form of a Python state: history, move number and the pickled Python attributes);
* **not supported**: ``pyspiel.serialize_game_and_state`` / ``deserialize_game_and_state`` and hence
  ``random_sim_test(..., serialize=True)``: for a ``SAMPLED_STOCHASTIC`` game OpenSpiel writes the game's
  RNG state (``Game::GetRNGState``), which pyspiel does not let a Python game provide ("GetRNGState
  unimplemented"). Pickle the game and state instead.

Game parameters: ``seed`` (int, -1 = random), ``max_decisions`` (int, 0 = the battle's own end; else
the game ends as a draw after that many decisions: short games for tests and search budgets) and the
battle's boolean options (Berestechko ``variant``, Kulikovo ``false_dmitri``), e.g.
``pyspiel.load_game("python_kulikovo", {"false_dmitri": True, "max_decisions": 200})``.
"""

from __future__ import annotations

import functools
import hashlib

import numpy as np

from .core.aec import action_index
from .core.dice import Dice
from .core.errors import IllegalActionError, ScenarioError
from .registry import make_engine

#: OpenSpiel name -> (battle, perfect information?, boolean battle options exposed as game parameters)
GAMES: dict[str, tuple[str, bool, tuple[str, ...]]] = {
    "python_berestechko": ("berestechko_v0", True, ("variant",)),
    "python_kulikovo": ("kulikovo_v0", False, ("false_dmitri",)),
    "python_breitenfeld": ("breitenfeld_v0", True, ()),
}
#: Bound on a game's length (decisions) when ``max_decisions`` is 0: several times the longest games seen
#: (Kulikovo's 150 activations run to ~1,900 decisions, Breitenfeld's game to ~1,200).
MAX_GAME_LENGTH = 20_000

_registered: set[str] = set()


class _Shared:
    """Holds what every state of a game shares (engine, parameters); OpenSpiel's clone deep-copies a
    state's attributes, and this one is shared, not copied."""

    def __init__(self, battle: str, params: dict):
        self.battle, self.params = battle, dict(params)
        self.engine = make_engine(battle)
        self.options = {k: v for k, v in params.items() if k not in ("seed", "max_decisions")}
        self.max_decisions = int(params["max_decisions"])
        seed = int(params["seed"])
        self.rng = np.random.default_rng(None if seed < 0 else seed)  # seeds new games' and samples' dice

    def new_seed(self) -> int:
        return int(self.rng.integers(0, 2**63 - 1))

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        # pickled (a state's ``serialize()``) as what rebuilds it: battle, parameters and the generator's state
        return _Shared, (self.battle, self.params), {"rng": self.rng.bit_generator.state}

    def __setstate__(self, state: dict) -> None:
        self.rng.bit_generator.state = state["rng"]


class _Core:
    """A state's own data: the engine state, its dice and the decision count. Deep-copying it (what
    OpenSpiel's ``clone`` does) copies all three: the copy rolls what the original would."""

    def __init__(self, shared: _Shared, state, dice: Dice, decisions: int = 0):
        self.shared, self.state, self.dice, self.decisions = shared, state, dice, decisions

    def __deepcopy__(self, memo):
        return _Core(self.shared, _copy_state(self.state), _copy_dice(self.dice), self.decisions)


def _copy_dice(dice: Dice) -> Dice:
    """A dice object that rolls exactly what ``dice`` will roll (its block of uniforms is never changed in
    place, so the copy shares it)."""
    copy = Dice.__new__(Dice)
    copy.__dict__.update(dice.__dict__)
    copy._rng = np.random.Generator(type(dice._rng.bit_generator)())
    copy._rng.bit_generator.state = dice._rng.bit_generator.state
    return copy


def _copy_state(state):
    """``state.clone()`` with its event log (which ``ArrayState.clone`` leaves out): the text view shows it."""
    copy = state.clone()
    copy.log = list(state.log)
    return copy


def _load_game(short_name: str, params: dict, rng_state: dict):
    """Unpickles a game (``WargameGame.__reduce__``): the game of these parameters, its generator where the
    pickled game's was."""
    import pyspiel

    register()
    game = pyspiel.load_game(short_name, params)
    game._shared.rng.bit_generator.state = rng_state
    return game


def _load_state(game, data: str):
    """Unpickles a state (``State.__reduce__``): ``data`` is its ``serialize()``."""
    return game.deserialize_state(data)


def register() -> None:
    """Register the three games with ``pyspiel`` (idempotent)."""
    import pyspiel

    for short_name in GAMES:
        if short_name not in _registered:
            pyspiel.register_game(*_game_class(pyspiel, short_name))
            _registered.add(short_name)


def _game_class(pyspiel, short_name: str):
    battle, perfect, flags = GAMES[short_name]
    probe = make_engine(battle)
    params = {"seed": -1, "max_decisions": 0, **{f: False for f in flags}}
    game_type = pyspiel.GameType(
        short_name=short_name,
        long_name=f"Python {probe.name} (wargame_envs)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=(pyspiel.GameType.Information.PERFECT_INFORMATION if perfect
                     else pyspiel.GameType.Information.IMPERFECT_INFORMATION),
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=not perfect,
        provides_information_state_tensor=not perfect,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )

    class WargameGame(pyspiel.Game):
        def __init__(self, params=None):
            params = {**game_type.parameter_specification, **(params or {})}
            _check_params(short_name, params)
            length = int(params["max_decisions"]) or MAX_GAME_LENGTH
            info = pyspiel.GameInfo(num_distinct_actions=probe.num_actions, max_chance_outcomes=0, num_players=2,
                                    min_utility=-1.0, max_utility=1.0, utility_sum=0.0, max_game_length=length)
            super().__init__(game_type, info, params)
            self._shared = _Shared(battle, params)

        def new_initial_state(self):
            state = _state_class()(self)
            shared = self._shared
            dice = Dice(shared.new_seed())
            state._core = _Core(shared, shared.engine.new_state(shared.options, dice), dice)
            return state

        def deserialize_state(self, data: str):
            """``state.serialize()`` back to a state of this game, sharing its engine and generator (OpenSpiel
            makes it with ``new_initial_state()``: the generator's draw for it is undone)."""
            rng = self._shared.rng.bit_generator
            before = rng.state
            state = super().deserialize_state(data)
            rng.state = before
            state._core.shared = self._shared
            return state

        def __reduce__(self):
            # pyspiel pickles a game with its RNG state (Game::GetRNGState), which a Python game cannot provide
            return _load_game, (short_name, dict(self._shared.params), self._shared.rng.bit_generator.state)

        def make_py_observer(self, iig_obs_type=None, params=None):
            if params:
                raise ScenarioError(f"{short_name}: observer parameters are not supported, got {params!r}")
            return _Observer(self._shared.engine, perfect_recall=bool(iig_obs_type and iig_obs_type.perfect_recall))

    WargameGame.__name__ = WargameGame.__qualname__ = f"{battle.split('_')[0].title()}Game"
    return game_type, WargameGame


def _check_params(short_name: str, params: dict) -> None:
    for name in ("seed", "max_decisions"):
        value = params[name]
        low = -1 if name == "seed" else 0
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise ScenarioError(f"{short_name}: parameter '{name}' = {value!r}: expected an integer >= {low}")


@functools.cache
def _state_class():
    """The pyspiel state class, built on first use (pyspiel is imported lazily)."""
    import pyspiel

    class State(pyspiel.State):
        """One battle position; ``_core`` holds the engine state, its dice and the decision count."""

        def __init__(self, game):
            super().__init__(game)
            self._core = None  # set by new_initial_state; OpenSpiel's clone copies it over

        # -- shortcuts
        @property
        def _engine(self):
            return self._core.shared.engine

        def _over(self) -> bool:
            c = self._core
            return c.shared.engine.current_player(c.state) < 0 or (
                0 < c.shared.max_decisions <= c.decisions)

        # -- OpenSpiel API
        def current_player(self):
            if self._over():
                return pyspiel.PlayerId.TERMINAL
            return int(self._engine.current_player(self._core.state))

        def _legal_actions(self, player):
            if self._over() or player != self._engine.current_player(self._core.state):
                return []
            return np.flatnonzero(self._engine.legal_mask(self._core.state)).tolist()

        def _apply_action(self, action):
            c = self._core
            if self._over():  # also a game cut by max_decisions, where the engine would still take the move
                raise IllegalActionError(f"action {action!r}: the game is over (a terminal state takes no action)")
            c.shared.engine.apply(c.state, int(action), c.dice)
            c.decisions += 1
            if len(c.state.log) > 400:  # the event log is for display only: keep it bounded
                del c.state.log[:-200]

        def _action_to_string(self, player, action):
            engine, s = self._engine, self._core.state
            a = action_index(action)
            if a is None or not 0 <= a < engine.num_actions:
                raise IllegalActionError(f"action = {action!r}: expected an integer in 0..{engine.num_actions - 1}")
            if not self._over() and engine.legal_mask(s)[a]:
                return engine.action_to_str(s, a)
            return f"action {a}"

        def is_terminal(self):
            return self._over()

        def returns(self):
            c = self._core
            if c.shared.engine.is_terminal(c.state):
                return [float(x) for x in c.shared.engine.returns(c.state)]
            return [0.0, 0.0]  # game going on, truncated by the battle's limit or by max_decisions: a draw

        def resample_from_infostate(self, player_id, probability_sampler=None):
            """A state that ``player_id`` cannot tell from this one: the engine's determinization of what
            he cannot see (``sample_hidden``), with fresh dice (the future rolls are unknown too)."""
            c = self._core
            players = len(c.shared.engine.agents)
            p = action_index(player_id)
            if p is None or not 0 <= p < players:
                raise ValueError(f"player_id = {player_id!r}: expected a player, 0..{players - 1}")
            rng = np.random.default_rng(c.shared.new_seed())
            sample = c.shared.engine.sample_hidden(c.state, p, rng)
            sample.log = list(c.state.log)
            clone = self.clone()  # the OpenSpiel side (history, move number); its core is replaced
            clone._core = _Core(c.shared, sample, Dice(c.shared.new_seed()), c.decisions)
            return clone

        def __str__(self):
            return self._engine.render_ansi(self._core.state)

        def __reduce__(self):
            # pyspiel pickles a state with serialize_game_and_state, which needs the game's RNG state (unsupported)
            return _load_state, (self.get_game(), self.serialize())

    return State


class _Observer:
    """PyObserver over ``engine.observe``: the tensor is the battle's observation vector of the player
    (which never holds the other side's secrets), for both the observation and the information state;
    the string names the player, the pending decision (the information state adds the number of
    decisions so far) and a digest of that vector and, for the player to move, of his legal actions: two
    states give one string exactly when the player sees the same thing in them."""

    def __init__(self, engine, perfect_recall: bool):
        self.engine = engine
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(engine.obs_layout.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        self.tensor[:] = self.engine.observe(state._core.state, int(player))

    def string_from(self, state, player):
        engine, c = self.engine, state._core
        obs = engine.observe(c.state, int(player))
        h = hashlib.sha1(obs.tobytes())
        to_move = not state.is_terminal() and engine.current_player(c.state) == player
        if to_move:
            h.update(np.asarray(engine.legal_mask(c.state), dtype=bool).tobytes())
        head = engine.agents[int(player)] + (f" decision #{c.decisions}" if self.perfect_recall else "")
        pending = "game over" if state.is_terminal() else engine.decision_name(c.state)
        return f"{head} | {pending}{' (to move)' if to_move else ''} | {h.hexdigest()[:20]}"
