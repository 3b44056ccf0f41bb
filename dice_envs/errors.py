"""The exceptions dice-envs raises on purpose, so that a caller can tell them apart.

Every one derives from :class:`DiceEnvsError` and also from the builtin exception the package
raised before it had its own (``ValueError``, or ``ImportError`` for a missing extra), so code
written against the builtin keeps working::

    try:
        env = pettingzoo.make("dice/meyer-v0", lives=0)
    except InvalidOptionError as exc:      # or DiceEnvsError, or ValueError
        print(exc)                         # names the option and its allowed values

Errors a caller cannot act on differently (a bad argument to a helper) stay plain ``ValueError``.
"""

from __future__ import annotations


class DiceEnvsError(Exception):
    """Base of the errors dice-envs raises on purpose."""


class InvalidOptionError(DiceEnvsError, ValueError):
    """A game option that does not exist, has the wrong type, or is out of its range; or options
    that contradict each other. The message names the option and what it takes."""


class IllegalActionError(DiceEnvsError, ValueError):
    """An action that is not legal in the current state (or not an action id of the game at all).

    Attributes:
        action: the action as given.
        legal: the legal action ids of that state, or ``None`` where none are to be taken (the game
            is over, or a chance node is next).
    """

    def __init__(self, message: str, action: object = None, legal: tuple[int, ...] | None = None):
        super().__init__(message)
        self.action = action
        self.legal = legal


class InvalidSpecError(DiceEnvsError, ValueError):
    """An agent SPEC (``NAME[:KEY=VALUE,...]``, ``MODULE:CLASS``, a checkpoint path) or an agent's
    parameter that cannot be read or does not fit the agent; or an agent object that was built for
    another game or other options than the ones it is asked to play."""


class CheckpointError(DiceEnvsError, ValueError):
    """A checkpoint that cannot be loaded: missing, truncated, tampered with, of an unknown format,
    or made for another game, other options or another observation layout.

    Attributes:
        path: the checkpoint as given, or ``None`` where it is not known.
    """

    def __init__(self, message: str, path: object = None):
        super().__init__(message)
        self.path = path


class MissingExtraError(DiceEnvsError, ValueError, ImportError):
    """What was asked needs a package this installation lacks (an extra such as ``[train]``); the
    message gives the pip command. An ``ImportError`` as well as a ``ValueError`` (what the package
    raised for it before). The package raises it as :class:`dice_envs.extras.NotInstalled`, a
    subclass kept under its old name; catch this class."""


__all__ = [
    "CheckpointError", "DiceEnvsError", "IllegalActionError", "InvalidOptionError", "InvalidSpecError",
    "MissingExtraError",
]  # fmt: skip
