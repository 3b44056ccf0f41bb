"""The three games as OpenSpiel games, for OpenSpiel's algorithms (MCCFR, NFSP, PSRO, MCTS, ...).

Importing this module registers ``python_dice_syvere``, ``python_dice_tenthousand`` (with
``_no`` and ``_farkle`` for the other presets) and ``python_dice_meyer`` with ``pyspiel`` (the ``[openspiel]`` extra, Python 3.11 and later)::

    >>> import pyspiel
    >>> import dice_envs.openspiel
    >>> game = pyspiel.load_game("python_dice_meyer(lives=1,claim_rule=higher)")
    >>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
    (2, 24, 21)
    >>> state = game.new_initial_state()
    >>> state.is_chance_node(), len(state.chance_outcomes())
    (True, 21)

Each state wraps an engine state (:mod:`dice_envs.games`), so the rules are the engine's, word for
word. What maps to what:

- **Parameters** are the engine's options, with their defaults (``pyspiel.load_game(
  "python_dice_syvere(num_players=4,max_rolls=2)")``). 10 000 is registered once per preset, with
  that preset's values as the defaults: ``python_dice_tenthousand`` (``dk``),
  ``python_dice_tenthousand_no`` and ``python_dice_tenthousand_farkle``
  (``"python_dice_tenthousand_no(target=5000,exact_target=true)"``).
- **Actions** are the env's action ids (``num_distinct_actions`` is the env's ``Discrete`` size),
  written as the rules write them (``claim 43``, ``keep 15 bank``).
- **Chance** is explicit: a roll of *k* dice is one chance action, the index of the sorted faces
  among all sorted rolls of *k* dice (:func:`roll_of` and :func:`chance_action`), with its exact
  probability; ``max_chance_outcomes`` is 462 (six dice) in Syvere and 10 000, 21 in Meyer.
- **Returns** are C-3's: zero-sum, the winners share +1 and the losers -1, paid at the end.
- **Information**: Meyer is an imperfect-information game (a roll is seen by its roller only,
  ME-3); Syvere and 10 000 are perfect-information games with chance. The information state
  string is the env's ``information_state_string`` (perfect recall: every roll as the player saw
  it, every action, every lifted cup); the observation tensor is the env's observation vector
  (``observe(state, player)``), and its string that vector's numbers. No information-state tensor
  is given (a perfect-recall history has no fixed size): algorithms that need one can use the
  observation tensor (``rl_environment.Environment(game, observation_type=ObservationType.
  OBSERVATION)``), which in Meyer is not perfect recall (see the README).
- **Length**: ``max_game_length`` is a cap, not a bound of the rules (a Meyer round under
  ``claim_rule="at_least"`` can last for ever, and so can a 10 000 game of players who never
  bank): a game that reaches it raises ``RuntimeError`` rather than inventing a result.

Python games are slower than OpenSpiel's C++ games, as OpenSpiel says of its own: about
a few thousand actions per second here, so sampling algorithms (outcome-sampling MCCFR, NFSP) suit
these games, and full-tree ones (tabular CFR, ``get_all_states``) only tiny settings.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Any

import numpy as np

try:
    import pyspiel
except ModuleNotFoundError as _exc:  # one line naming the extra, not a bare traceback
    from dice_envs.extras import raise_missing

    raise_missing(_exc, "dice_envs.openspiel (the games for OpenSpiel)")

from dice_envs.information import information_events, information_string
from dice_envs.options import game_class, option_defaults

# The registered games: short name after "python_dice_" -> (game, 10 000 preset).
VARIANTS: dict[str, tuple[str, str | None]] = {
    "syvere": ("syvere", None),
    "tenthousand": ("tenthousand", "dk"),
    "tenthousand_no": ("tenthousand", "no"),
    "tenthousand_farkle": ("tenthousand", "farkle"),
    "meyer": ("meyer", None),
}
MAX_DICE = {"syvere": 6, "tenthousand": 6, "meyer": 2}
MAX_GAME_LENGTH = 100_000  # actions of the players and of chance: a cap, not a bound of the rules


def short_name(variant: str) -> str:
    """The ``pyspiel`` name of a game: ``python_dice_meyer``, ``python_dice_tenthousand_no``."""
    return f"python_dice_{variant}"


@lru_cache(maxsize=None)
def rolls(k: int) -> tuple[tuple[int, ...], ...]:
    """Every roll of ``k`` dice as sorted faces, in order: the chance actions of a ``k``-dice roll."""
    return tuple(itertools.combinations_with_replacement(range(1, 7), k))


@lru_cache(maxsize=None)
def _roll_index(k: int) -> dict[tuple[int, ...], int]:
    return {roll: i for i, roll in enumerate(rolls(k))}


def roll_of(k: int, action: int) -> tuple[int, ...]:
    """The sorted faces of chance action ``action`` when ``k`` dice are rolled."""
    table = rolls(k)
    if not 0 <= action < len(table):
        raise ValueError(f"chance action {action} is not a roll of {k} dice (0 .. {len(table) - 1})")
    return table[action]


def chance_action(dice) -> int:
    """The chance action of a roll: ``chance_action((1, 2)) == 1``."""
    roll = tuple(sorted(int(d) for d in dice))
    return _roll_index(len(roll))[roll]


def parameter_specification(variant: str) -> dict[str, Any]:
    """A registered game's ``pyspiel`` parameters and their defaults: the engine's options, with
    a 10 000 preset's values for its variant (the preset itself is not a parameter)."""
    game, preset = VARIANTS[variant]
    defaults = option_defaults(game)
    if preset is not None:
        from dice_envs.games.tenthousand import PRESETS

        defaults.pop("preset")
        defaults.update(PRESETS[preset])
    return defaults


def _game_type(variant: str) -> pyspiel.GameType:
    info = pyspiel.GameType.Information
    game, preset = VARIANTS[variant]
    name = {"syvere": "Syvere", "tenthousand": "10 000", "meyer": "Meyer"}[game]
    return pyspiel.GameType(
        short_name=short_name(variant),
        long_name=f"{name}{f' ({preset} rules)' if preset else ''}, dice-envs",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=info.IMPERFECT_INFORMATION if game == "meyer" else info.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=8,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(variant),
    )


class DiceGame(pyspiel.Game):
    """One of the three games as a ``pyspiel.Game``; its engine is :attr:`engine`."""

    variant = ""
    game_name = ""

    def __init__(self, params: dict | None = None):
        params = dict(params or {})
        preset = VARIANTS[self.variant][1]
        options = params
        if preset is not None:
            # Only what differs from the preset, as the env takes it: so a smaller target lowers
            # the preset's opening to it (TT-9) rather than refusing an opening the user never gave.
            from dice_envs.games.tenthousand import PRESETS

            table = PRESETS[preset]
            options = {k: v for k, v in params.items() if k not in table or v != table[k]}
            options["preset"] = preset
        try:
            self.engine = game_class(self.game_name)(**options)
        except ValueError as exc:  # OpenSpiel's users see which game refused it
            raise ValueError(f"{short_name(self.variant)}: {exc}") from None
        engine = self.engine
        info = pyspiel.GameInfo(
            num_distinct_actions=engine.num_actions,
            max_chance_outcomes=len(rolls(MAX_DICE[self.game_name])),
            num_players=engine.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPES[self.variant], info, params)
        self._public_chance = type(engine).chance_seen_by is _base_chance_seen_by()

    def new_initial_state(self) -> "DiceState":
        return DiceState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "DiceObserver":
        if params:
            raise ValueError(f"{short_name(self.variant)} takes no observation parameters, got {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return DiceObserver(self, perfect_recall)


def _base_chance_seen_by():
    from dice_envs.games.base import Game

    return Game.chance_seen_by


class DiceState(pyspiel.State):
    """A ``pyspiel.State`` over an immutable engine state (:attr:`engine_state`), with the history
    of events the information state is read from."""

    def __init__(self, game: DiceGame):
        super().__init__(game)
        self.engine = game.engine
        self._public_chance = game._public_chance
        self.engine_state = self.engine.initial_state()
        self.events: list[tuple] = []  # ("chance", dice, seen_by) / ("action", seat, action)

    # -- the pyspiel.State interface ----------------------------------------------------------
    def current_player(self) -> int:
        engine, state = self.engine, self.engine_state
        if engine.is_terminal(state):
            return pyspiel.PlayerId.TERMINAL
        if engine.is_chance(state):
            return pyspiel.PlayerId.CHANCE
        return engine.current_player(state)

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(int(a) for a in self.engine.legal_actions(self.engine_state))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(chance_action(dice), float(p)) for dice, p in self.engine.chance_outcomes(self.engine_state)]

    def _apply_action(self, action: int) -> None:
        engine, state = self.engine, self.engine_state
        if len(self.events) >= MAX_GAME_LENGTH:
            raise RuntimeError(
                f"{self.get_game()}: the game is not over after {MAX_GAME_LENGTH} actions "
                "(max_game_length, a cap: see dice_envs.openspiel)"
            )
        if engine.is_chance(state):
            dice = roll_of(engine.num_dice_to_roll(state), int(action))
            seen_by = None if self._public_chance else engine.chance_seen_by(state)
            self.engine_state = engine.apply_chance(state, dice)
            self.events.append(("chance", dice, seen_by))
        else:
            seat = engine.current_player(state)
            self.engine_state = engine.apply_action(state, int(action))
            self.events.append(("action", seat, int(action)))

    def _action_to_string(self, player: int, action: int) -> str:
        engine, state = self.engine, self.engine_state
        if player == pyspiel.PlayerId.CHANCE:
            k = engine.num_dice_to_roll(state) if engine.is_chance(state) else None
            if k:
                return f"roll {engine.roll_to_string(roll_of(k, int(action)))}"
            return f"chance {action}"
        try:
            return engine.action_to_string(state, int(action))
        except ValueError:  # an action that is not legal here (pyspiel may ask of any id)
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self.engine.is_terminal(self.engine_state)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.engine.num_players
        return [float(r) for r in self.engine.returns(self.engine_state)]

    def __str__(self) -> str:
        return self.engine.render(self.engine_state)

    # -- the views ------------------------------------------------------------------------------
    def information_string(self, player: int) -> str:
        """``player``'s perfect-recall information state, as ``env.information_state_string``."""
        return information_string(self.engine, information_events(self.engine, player, self.events))


class DiceObserver:
    """OpenSpiel's observer interface: the observation vector, or the perfect-recall string."""

    def __init__(self, game: DiceGame, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        size = 0 if perfect_recall else len(game.engine.observation_low)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: DiceState, player: int) -> None:
        if not self.perfect_recall:
            self.tensor[:] = state.engine.observe(state.engine_state, player)

    def string_from(self, state: DiceState, player: int) -> str:
        if self.perfect_recall:
            return state.information_string(player)
        values = state.engine.observe(state.engine_state, player)
        return f"seat {player}: " + " ".join(f"{v:g}" for v in values)


def _make_class(variant: str) -> type[DiceGame]:
    game = VARIANTS[variant][0]
    name = "".join(part.capitalize() for part in variant.split("_")) + "Game"
    return type(name, (DiceGame,), {"variant": variant, "game_name": game, "__doc__": DiceGame.__doc__})


_GAME_TYPES = {variant: _game_type(variant) for variant in VARIANTS}
GAME_CLASSES = {variant: _make_class(variant) for variant in VARIANTS}
for _variant in VARIANTS:
    pyspiel.register_game(_GAME_TYPES[_variant], GAME_CLASSES[_variant])

__all__ = ["DiceGame", "DiceObserver", "DiceState", "GAME_CLASSES", "VARIANTS", "chance_action", "roll_of", "rolls",
           "short_name"]  # fmt: skip
