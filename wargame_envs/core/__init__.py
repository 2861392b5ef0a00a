"""What every battle shares: hex grid, dice, engine contract, AEC adapter, observations,
scenario loading, game records and rendering."""

from .dice import Dice, ScriptedDice
from .engine import ArrayState, Engine
from .errors import DiceExhaustedError, IllegalActionError, RecordError, ScenarioError, WargameError
from .hexgrid import HexGrid
from .observation import ObservationLayout
from .records import GameRecord, replay, replay_final
from .render_scene import Counter, Scene

__all__ = [
    "ArrayState", "Counter", "Dice", "DiceExhaustedError", "Engine", "GameRecord", "HexGrid",
    "IllegalActionError", "ObservationLayout", "RecordError", "ScenarioError", "Scene", "ScriptedDice",
    "WargameError", "replay", "replay_final",
]
