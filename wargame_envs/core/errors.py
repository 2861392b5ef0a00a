"""Exceptions raised by the wargame environments. Each names what is wrong."""


class WargameError(Exception):
    """Base class of every error the suite raises on purpose."""


class IllegalActionError(WargameError, ValueError):
    """An action that the current decision's mask does not allow."""


class ScenarioError(WargameError, ValueError):
    """A malformed scenario/data file or position: names the file, field and value."""


class RecordError(WargameError, ValueError):
    """A corrupt game record, or one that does not match the environment."""


class DiceExhaustedError(WargameError, RuntimeError):
    """A scripted dice sequence ran out, or a scripted value does not fit the die."""
