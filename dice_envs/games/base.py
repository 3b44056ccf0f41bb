"""The engine contract shared by every game (RULES.md, "The engine contract").

A game is a pure rules engine: a :class:`Game` built from the game's options, and immutable state
values that its methods map to new states. Chance is explicit, as in OpenSpiel: at a chance state
``num_dice_to_roll(state)`` dice must be rolled; ``chance_outcomes`` lists the exact outcomes and
``apply_chance`` applies the dice, so tests, solvers and replays can script every die. Nothing in
this package imports gymnasium or pettingzoo.

Game facts that the PettingZoo adapter derives its spaces from are declared once, as attributes of
the instance: ``num_players``, ``num_actions`` (the size of the ``Discrete`` action space),
``observation_low`` and ``observation_high`` (float32 bounds; their shape is the observation's).
"""

from __future__ import annotations

import abc
from fractions import Fraction
from typing import Any, Iterable, Sequence

import numpy as np

from dice_envs import dice as dice_mod

MIN_PLAYERS = 2
MAX_PLAYERS = 8


class Game(abc.ABC):
    """Base class of the three rules engines.

    Subclasses set ``name``, ``num_players``, ``num_actions``, ``observation_low`` and
    ``observation_high`` in ``__init__`` and implement the abstract methods. Their states carry
    ``winners`` (``None`` until the game is over) and ``to_roll`` (dice to roll now), from which
    this class answers ``is_terminal``, ``returns``, ``num_dice_to_roll`` and ``is_chance``.
    """

    name: str
    num_players: int
    num_actions: int
    observation_low: np.ndarray
    observation_high: np.ndarray

    # -- state -------------------------------------------------------------------------------
    @abc.abstractmethod
    def initial_state(self) -> Any:
        """A new game. States are immutable values (hashable, comparable)."""

    # The three games keep the winners in the state: ``state.winners`` is ``None`` until the game
    # is over, then the tuple of winning seats. An engine without that field overrides these two.
    def is_terminal(self, state) -> bool:
        """Whether the game is over."""
        return state.winners is not None

    def returns(self, state) -> tuple[float, ...]:
        """Per-seat returns: C-3 at a terminal state, zeros before it."""
        if state.winners is None:
            return (0.0,) * self.num_players
        return zero_sum_returns(self.num_players, state.winners)

    @abc.abstractmethod
    def scores(self, state) -> tuple[int, ...]:
        """Per-seat public standing: points or lives."""

    # -- chance ------------------------------------------------------------------------------
    # Likewise the three games keep ``state.to_roll``, the dice to roll now.
    def num_dice_to_roll(self, state) -> int:
        """How many dice must be rolled now; 0 at a decision or a terminal state."""
        return state.to_roll

    def is_chance(self, state) -> bool:
        """Whether dice must be rolled before anyone acts."""
        return state.to_roll > 0

    def chance_outcomes(self, state) -> tuple[tuple[dice_mod.Dice, Fraction], ...]:
        """Exact outcomes at a chance state: ``((sorted dice, Fraction), ...)`` summing to 1."""
        k = self.num_dice_to_roll(state)
        if k == 0:
            raise ValueError("chance_outcomes: the state is not a chance state")
        return dice_mod.chance_outcomes(k)

    @abc.abstractmethod
    def apply_chance(self, state, dice) -> Any:
        """The state after the given dice (any order); ``ValueError`` for a wrong roll."""

    def chance_seen_by(self, state) -> tuple[int, ...] | None:
        """Seats that see the dice about to be rolled; ``None`` means every seat (public)."""
        return None

    # -- decisions ---------------------------------------------------------------------------
    @abc.abstractmethod
    def current_player(self, state) -> int:
        """The seat to act at a decision state; at a chance state, the seat whose dice are rolled."""

    @abc.abstractmethod
    def legal_actions(self, state) -> list[int]:
        """Sorted ids of the legal actions at a decision state (empty elsewhere)."""

    @abc.abstractmethod
    def apply_action(self, state, action: int) -> Any:
        """The next state; ``ValueError`` naming the action if it is illegal."""

    @abc.abstractmethod
    def action_to_string(self, state, action: int) -> str:
        """The rule book's string for an action id (RULES.md action strings)."""

    def string_to_action(self, state, text: str) -> int:
        """The legal action whose string is ``text`` (surrounding space and case ignored)."""
        wanted = " ".join(text.lower().split())
        legal = self.legal_actions(state)
        for action in legal:
            if self.action_to_string(state, action) == wanted:
                return action
        choices = ", ".join(repr(self.action_to_string(state, a)) for a in legal) or "none"
        raise ValueError(f"{text!r} is not a legal action here; legal actions: {choices}")

    # -- observation -------------------------------------------------------------------------
    @abc.abstractmethod
    def observe(self, state, player: int) -> np.ndarray:
        """That player's observation: a float32 vector within the declared bounds."""

    def render(self, state) -> str:
        """A human-readable picture of the table (unicode dice, totals, whose turn)."""
        return repr(state)

    # -- helpers for subclasses -------------------------------------------------------------
    def _illegal(self, state, action) -> ValueError:
        legal = self.legal_actions(state)
        names = ", ".join(f"{a} ({self.action_to_string(state, a)})" for a in legal) or "none"
        return ValueError(f"illegal action {action!r} in {self.name}; legal actions: {names}")

    def _check_action(self, state, action) -> int:
        """Return ``action`` as an int if it is legal, else raise ``ValueError`` naming it."""
        if self.is_terminal(state):
            raise ValueError(f"illegal action {action!r} in {self.name}: the game is over")
        if self.is_chance(state):
            raise ValueError(
                f"illegal action {action!r} in {self.name}: dice must be rolled first (chance state)"
            )
        try:
            a = int(action)
        except (TypeError, ValueError):
            raise self._illegal(state, action) from None
        if a != action or a not in self.legal_actions(state):
            raise self._illegal(state, action)
        return a


# -- option checking -------------------------------------------------------------------------
def check_int(name: str, value, low: int, high: int | None = None) -> int:
    """Validate an integer option, naming it and its allowed range in the error."""
    allowed = f"{low}..{high}" if high is not None else f">= {low}"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer ({allowed}), got {value!r}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return int(value)


def check_choice(name: str, value, allowed: Sequence) -> Any:
    """Validate an option that takes one of a few values."""
    if value not in allowed or isinstance(value, bool) != any(isinstance(a, bool) for a in allowed):
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def check_bool(name: str, value) -> bool:
    """Validate a True/False option."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_num_players(value) -> int:
    """Validate ``num_players`` (2..8 for every game)."""
    return check_int("num_players", value, MIN_PLAYERS, MAX_PLAYERS)


def zero_sum_returns(num_players: int, winners: Iterable[int]) -> tuple[float, ...]:
    """C-3: the winners share +1, the losers share -1; all 0 when everyone wins."""
    winners = set(winners)
    if not winners or len(winners) == num_players:
        return (0.0,) * num_players
    win = 1.0 / len(winners)
    lose = -1.0 / (num_players - len(winners))
    return tuple(win if s in winners else lose for s in range(num_players))


def bounds(*pieces: tuple[int, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Build float32 ``(low, high)`` arrays from ``(length, low, high)`` pieces."""
    low = np.concatenate([np.full(n, lo, dtype=np.float32) for n, lo, _ in pieces])
    high = np.concatenate([np.full(n, hi, dtype=np.float32) for n, _, hi in pieces])
    return low, high
