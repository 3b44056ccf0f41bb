"""The engine contract shared by every game (docs/rules.md, "The engine contract").

A game is a pure rules engine: a :class:`Game` built from the game's options, and immutable state
values that its methods map to new states. Chance is explicit, as in OpenSpiel: at a chance state
``num_dice_to_roll(state)`` dice must be rolled; ``chance_outcomes`` lists the exact outcomes and
``apply_chance`` applies the dice, so tests, solvers and replays can script every die. Nothing in
this package imports gymnasium or pettingzoo.

Game facts that the PettingZoo adapter derives its spaces from are declared once, as attributes of
the instance: ``num_players``, ``num_actions`` (the size of the ``Discrete`` action space),
``observation_low`` and ``observation_high`` (float32 bounds; their shape is the observation's),
and ``state_low``, ``state_high`` and ``state_slices`` for the global state (:meth:`Game.global_state`).
"""

from __future__ import annotations

import abc
import inspect
from fractions import Fraction
from typing import Any, Iterable, Sequence

import numpy as np

from dice_envs import dice as dice_mod
from dice_envs.errors import IllegalActionError, InvalidOptionError

MIN_PLAYERS = 2
MAX_PLAYERS = 8


# -- the one input rule for actions and dice (every engine's apply_action and apply_chance) -----
ACTION_RULE = "an int or a numpy integer (a 0-d integer array included), not a bool, float, complex, string or None"
DICE_RULE = "a sequence of {k} dice, each an int or numpy integer 1..6 (not a bool, float or string)"


def action_id(action) -> int:
    """The action as a plain ``int``, by the one rule every engine applies to actions.

    An action is a Python ``int`` or a numpy integer, a 0-d numpy array of integer dtype
    included; never a bool (``True`` is not action 1), a float, a complex number, a string,
    ``None`` or an array with a dimension (``np.array([1])``). Whether the id is legal is the
    engine's question, not this one's.

    >>> action_id(3), action_id(np.int8(3)), action_id(np.array(3))
    (3, 3, 3)

    Raises:
        IllegalActionError: (a ``ValueError``) naming the value and what an action must be; its
            ``legal`` is ``None`` (no state is at hand here; an engine's ``apply_action`` fills it in).
    """
    if type(action) is int:
        return action
    if isinstance(action, np.integer):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    raise IllegalActionError(f"an action must be {ACTION_RULE}; got {action!r} ({type(action).__name__})", action=action)


def seat_index(player, num_players: int) -> int:
    """The seat as a plain ``int``: an int or numpy integer in ``0..num_players-1``.

    Raises:
        ValueError: naming the value, for anything else (a bool, a float, -1, a seat past the
            last): a negative seat must not silently count from the end.
    """
    if type(player) is int or (isinstance(player, np.integer)):
        if 0 <= player < num_players:
            return int(player)
    raise ValueError(f"a seat must be an int 0..{num_players - 1} in this {num_players}-player game; got {player!r}")


# A sorted roll of plain ints maps to itself; the fast path of check_dice.
_SORTED = dice_mod.SORTED_ROLLS


def check_dice(dice, k: int) -> dice_mod.Dice:
    """The roll as a sorted tuple of plain ints, by the one rule every engine applies to dice.

    Dice are a sequence (tuple, list or 1-d array) of exactly ``k`` dice in any order, each a
    Python ``int`` or a numpy integer with a face 1..6; never bools, floats, complex numbers,
    strings or ``None``.

    >>> check_dice((6, 1, 3), 3), check_dice(np.array([2, 2]), 2)
    ((1, 3, 6), (2, 2))

    Raises:
        ValueError: naming the dice and what was expected.
    """
    if type(dice) is tuple:
        try:
            canonical = _SORTED.get(dice)
        except TypeError:  # an unhashable item (a list, a dict): the loop below names it
            canonical = None
        # A tuple equal to a sorted roll of ints may still hold floats or bools (1.0 == True == 1):
        # only the very object handed out by the dice stream, or a tuple of ints, passes here.
        if canonical is not None and len(dice) == k and (canonical is dice or all(type(f) is int for f in dice)):
            return canonical
    if not isinstance(dice, (tuple, list, np.ndarray)) or (isinstance(dice, np.ndarray) and dice.ndim != 1):
        raise ValueError(f"dice must be {DICE_RULE.format(k=k)}; got {dice!r}")
    faces = []
    for face in dice:
        if type(face) is not int and not isinstance(face, np.integer):
            raise ValueError(f"dice must be {DICE_RULE.format(k=k)}; got {dice!r}: {face!r} is not a die")
        if not 1 <= face <= 6:
            raise ValueError(f"dice must be {DICE_RULE.format(k=k)}; got {dice!r}: {face!r} is not a face 1..6")
        faces.append(int(face))
    if len(faces) != k:
        raise ValueError(f"expected {k} dice, got {len(faces)}: {dice!r}; dice must be {DICE_RULE.format(k=k)}")
    return _SORTED[tuple(sorted(faces))]


#: What ``current_player`` answers once the game is over: no seat.
TERMINAL = -1


class Game(abc.ABC):
    """Base class of the three rules engines.

    Subclasses set ``name``, ``num_players``, ``num_actions``, ``observation_low``,
    ``observation_high``, ``state_low``, ``state_high`` and ``state_slices`` in ``__init__`` and
    implement the abstract methods. Their states carry
    ``winners`` (``None`` until the game is over) and ``to_roll`` (dice to roll now), from which
    this class answers ``is_terminal``, ``returns``, ``num_dice_to_roll`` and ``is_chance``.
    """

    name: str
    num_players: int
    num_actions: int
    observation_low: np.ndarray
    observation_high: np.ndarray
    #: Bounds of :meth:`global_state` (float32; their shape is the state vector's) and the name of
    #: each part of it mapped to its slice (:func:`layout`).
    state_low: np.ndarray
    state_high: np.ndarray
    state_slices: dict[str, slice]
    #: Attributes that only memoise (filled as states are met, rebuilt on demand). A pickled game
    #: leaves them out, so its size does not grow with how much it has been played.
    _MEMOS: tuple[str, ...] = ()
    #: The options that take one of a few values, with those values (what ``check_choice`` is
    #: given, and what ``dice-envs play GAME --help`` lists).
    CHOICES: dict[str, tuple] = {}

    # A game is its options, fixed when it is built, and memo tables: ``copy.deepcopy`` (of a game,
    # or of an env or agent that holds one) shares it instead of copying tables that grow with use.
    # Tree search clones states, which are immutable values, never the game.
    def __deepcopy__(self, memo) -> "Game":
        return self

    def option_values(self) -> dict[str, Any]:
        """Every option of this engine, resolved to its value (a preset expanded): two engines built
        from different spellings of the same options give the same dict (what checkpoints compare,
        ``agents.checkpoint.engine_options``)."""
        cls = type(self)
        option_names = getattr(cls, "option_names", None)
        if option_names is not None:
            names = list(option_names())
        else:
            params = inspect.signature(cls.__init__).parameters.values()
            names = [p.name for p in params if p.name != "self" and p.kind is p.POSITIONAL_OR_KEYWORD]
        values = {}
        for key in names:
            value = getattr(self, key)
            values[key] = value.item() if isinstance(value, np.generic) else value
        return values

    def __repr__(self) -> str:
        """The engine as the call that builds it: ``meyer.Game(num_players=2, lives=6, ...)``."""
        shown = ", ".join(f"{k}={v!r}" for k, v in self.option_values().items())
        return f"{self.name}.Game({shown})"

    def has_decisions(self) -> bool:
        """Whether any player ever decides anything under these options (Syvere with
        ``max_rolls=1`` plays itself out: every turn ends with its one roll)."""
        return True

    def check_decisions(self, options: dict) -> None:
        """Refuse (:class:`~dice_envs.errors.InvalidOptionError`, a ``ValueError``) options under which nobody ever decides: a learner would have
        nothing to learn, and every reset would play whole games without a decision."""
        if not self.has_decisions():
            raise InvalidOptionError(f"{self.name} with options {options} has no decisions to learn (every turn plays itself out)")

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for name in self._MEMOS:
            state[name] = {}
        return state

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

    def settled_return(self, state, seat: int) -> float | None:
        """``seat``'s C-3 return when nothing left in the game can change it (Meyer: a player out
        of lives under ``last_standing``), else ``None``; at a terminal state, ``returns``."""
        if self.is_terminal(state):
            return self.returns(state)[seat]
        return None

    def revealed(self, state, action: int) -> tuple[int, ...] | None:
        """Hidden dice that ``action`` at ``state`` shows every seat (Meyer's doubt lifts the cup);
        ``None`` when it shows none. Information states (``DiceGameEnv.information_state``) read it."""
        return None

    # -- decisions ---------------------------------------------------------------------------
    @abc.abstractmethod
    def current_player(self, state) -> int:
        """The seat to act at a decision state; at a chance state, the seat whose dice are rolled;
        :data:`TERMINAL` (-1) once the game is over (as OpenSpiel's ``kTerminalPlayerId``, -4,
        this is no seat)."""

    @abc.abstractmethod
    def legal_actions(self, state) -> list[int]:
        """Sorted ids of the legal actions at a decision state (empty elsewhere)."""

    @abc.abstractmethod
    def apply_action(self, state, action: int) -> Any:
        """The next state; :class:`~dice_envs.errors.IllegalActionError` (a ``ValueError``) naming
        the action if it is illegal."""

    @abc.abstractmethod
    def action_to_string(self, state, action: int) -> str:
        """The rule book's string for an action id (docs/rules.md action strings)."""

    def roll_to_string(self, dice) -> str:
        """A roll as the rules write it: faces ascending (``224566``); Meyer names it high die
        first (``51``, ME-2)."""
        return dice_mod.to_string(dice)

    def string_to_action(self, state, text: str) -> int:
        """The legal action whose string is ``text`` (surrounding space and case ignored).

        Raises:
            ValueError: ``text`` is not a string; :class:`~dice_envs.errors.IllegalActionError` (a
                ``ValueError``): no legal action has that string.
        """
        if not isinstance(text, str):
            legal = self.legal_actions(state)
            example = f" such as {self.action_to_string(state, legal[0])!r}" if legal else ""
            raise ValueError(f"an action string must be a str{example}; got {text!r}")
        wanted = " ".join(text.lower().split())
        legal = self.legal_actions(state)
        for action in legal:
            if self.action_to_string(state, action) == wanted:
                return action
        choices = ", ".join(repr(self.action_to_string(state, a)) for a in legal) or "none"
        raise IllegalActionError(
            f"{text!r} is not a legal action here; legal actions: {choices}", action=text, legal=self._legal_ids(state)
        )

    # -- observation -------------------------------------------------------------------------
    @abc.abstractmethod
    def observe(self, state, player: int) -> np.ndarray:
        """That player's observation: a float32 vector within the declared bounds.

        Raises:
            ValueError: ``player`` is not a seat of this game (:func:`seat_index`).
        """

    def global_state(self, state) -> np.ndarray:
        """The global state: one float32 vector within ``state_low`` .. ``state_high``, for
        centralised critics (PettingZoo's ``state()``, as for MAPPO or QMIX).

        Seats are absolute (seat 0 first), not seen from an observer, and nothing is hidden: the
        vector holds the seat to act, every hidden quantity as it truly is, and what the game's
        future depends on beyond what the observations show. It is built so that

        * every seat's observation (:meth:`observe`) is a function of it, and
        * two states with equal vectors have the same legal actions and, after the same action or
          the same dice, again equal vectors (a Markov state for everything the rules decide),
          except where the game's docstring names a clipped quantity.

        Bookkeeping the future does not depend on (round and turn counters, the last turn's line
        for the log) is left out. At a terminal state it is the final state, with the winners.
        ``state_slices`` names its parts; each game's docstring lists them. It is computed only
        when asked for: nothing in ``apply_action``, ``apply_chance`` or ``observe`` builds it.

        Not abstract, so that a game written before it existed still builds: such a game raises
        here, and its env has no ``state_space``.

        Raises:
            NotImplementedError: the game defines no global state.
        """
        raise NotImplementedError(f"{type(self).__name__} defines no global state (global_state, state_low, state_high)")

    def observe_public(self, state, player: int) -> np.ndarray:
        """:meth:`observe` without what only ``player`` may know: the same layout, with what is
        private left as if unseen (OpenSpiel's public observation). Games whose rolls are all
        public hide nothing, so this is :meth:`observe`."""
        return self.observe(state, player)

    def render(self, state) -> str:
        """A human-readable picture of the table (unicode dice, totals, whose turn)."""
        return repr(state)

    def score_changes(self, before, after) -> list[tuple[int, int, int]]:
        """``(seat, old, new)`` for each score line of the text log (``render``) between two states.

        The seats whose :meth:`scores` changed; a game whose turns can end without changing the
        score (Syvere's turn of 0 points) lists those turns too.
        """
        old, new = self.scores(before), self.scores(after)
        if old == new:
            return []
        return [(seat, a, b) for seat, (a, b) in enumerate(zip(old, new)) if a != b]

    def change_lines(self, before, after) -> list[str]:
        """The text log's lines (``render``, ``dice-envs play``) for what changed between two
        states beyond the action and the rolls, which the env writes itself: by default one score
        line per :meth:`score_changes` entry, ``player_1: 12 -> 20 (+8)``. A game adds what a
        person at the table would be told (a lifted cup, a bust, a player going out)."""
        return [f"player_{seat}: {a} -> {b} ({b - a:+d})" for seat, a, b in self.score_changes(before, after)]

    # -- helpers for subclasses -------------------------------------------------------------
    def _legal_ids(self, state) -> tuple[int, ...] | None:
        """The legal action ids of ``state`` as a tuple of ints for :class:`IllegalActionError`'s
        ``legal``; ``None`` when nobody is to act (the game is over, or dice are to be rolled).
        Only called once an action has been refused."""
        if self.is_terminal(state) or self.is_chance(state):
            return None
        return tuple(int(a) for a in self.legal_actions(state))

    def _illegal(self, state, action) -> IllegalActionError:
        legal = self.legal_actions(state)
        names = ", ".join(f"{a} ({self.action_to_string(state, a)})" for a in legal) or "none"
        return IllegalActionError(
            f"illegal action {action!r} in {self.name}; legal actions: {names}", action=action, legal=self._legal_ids(state)
        )

    def _not_an_action(self, state, error: IllegalActionError) -> IllegalActionError:
        """``error`` (from :func:`action_id`) with the legal actions of ``state`` filled in."""
        error.legal = self._legal_ids(state)
        return error

    def _check_action(self, state, action) -> int:
        """Return ``action`` as an int if it is legal, else raise
        :class:`~dice_envs.errors.IllegalActionError` (a ``ValueError``) naming it.

        The slow path of every engine's ``apply_action``: the one input rule (:func:`action_id`)
        first, then whether anyone may act, then legality.
        """
        try:
            a = action_id(action)
        except IllegalActionError as exc:
            raise self._not_an_action(state, exc) from None
        if self.is_terminal(state):
            raise IllegalActionError(f"illegal action {action!r} in {self.name}: the game is over", action=action)
        if self.is_chance(state):
            raise IllegalActionError(
                f"illegal action {action!r} in {self.name}: dice must be rolled first (chance state)", action=action
            )
        if a not in self.legal_actions(state):
            raise self._illegal(state, action)
        return a


# -- option checking -------------------------------------------------------------------------
def check_int(name: str, value, low: int, high: int | None = None) -> int:
    """Validate an integer option, naming it and its allowed range in the error.

    Raises:
        InvalidOptionError: (a ``ValueError``) not an int or numpy integer (a bool is not one), or
            out of ``low..high``.
    """
    allowed = f"{low}..{high}" if high is not None else f">= {low}"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidOptionError(f"{name} must be an integer ({allowed}), got {value!r}")
    if value < low or (high is not None and value > high):
        raise InvalidOptionError(f"{name} must be {allowed}, got {value!r}")
    return int(value)


def check_choice(name: str, value, allowed: Sequence) -> Any:
    """Validate an option that takes one of a few values (:class:`InvalidOptionError` if not)."""
    if value not in allowed or isinstance(value, bool) != any(isinstance(a, bool) for a in allowed):
        raise InvalidOptionError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def check_bool(name: str, value) -> bool:
    """Validate a True/False option (:class:`InvalidOptionError` if not)."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidOptionError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_num_players(value) -> int:
    """Validate ``num_players`` (2..8 for every game)."""
    return check_int("num_players", value, MIN_PLAYERS, MAX_PLAYERS)


def seat_names(seats: Iterable[int]) -> str:
    """Seats as the text log names them, in the order given: ``player_0``, ``player_0 and
    player_2``, ``player_0, player_1 and player_2``."""
    names = [f"player_{s}" for s in seats]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def zero_sum_returns(num_players: int, winners: Iterable[int]) -> tuple[float, ...]:
    """C-3: the winners share +1, the losers share -1; all 0 when everyone wins."""
    winners = set(winners)
    if not winners or len(winners) == num_players:
        return (0.0,) * num_players
    win = 1.0 / len(winners)
    lose = -1.0 / (num_players - len(winners))
    return tuple(win if s in winners else lose for s in range(num_players))


def layout(
    pieces: Sequence[tuple[str, int, float, float]],
) -> tuple[dict[str, slice], np.ndarray, np.ndarray]:
    """Name each part of a vector: from ``(name, length, low, high)`` pieces in order, the slices
    ``{name: slice}`` and the float32 ``(low, high)`` bounds of the whole vector.

    >>> slices, low, high = layout([("totals", 2, 0, 99), ("over", 1, 0, 1)])
    >>> slices["over"], high.tolist()
    (slice(2, 3, None), [99.0, 99.0, 1.0])
    """
    slices = {}
    start = 0
    for name, length, _, _ in pieces:
        if name in slices:
            raise ValueError(f"layout: the name {name!r} is used twice")
        slices[name] = slice(start, start + length)
        start += length
    low, high = bounds(*((length, lo, hi) for _, length, lo, hi in pieces))
    return slices, low, high


def bounds(*pieces: tuple[int, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Build float32 ``(low, high)`` arrays from ``(length, low, high)`` pieces."""
    low = np.concatenate([np.full(n, lo, dtype=np.float32) for n, lo, _ in pieces])
    high = np.concatenate([np.full(n, hi, dtype=np.float32) for n, _, hi in pieces])
    return low, high
