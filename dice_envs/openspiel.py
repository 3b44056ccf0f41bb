"""The three games as OpenSpiel games, for OpenSpiel's algorithms.

Importing this module registers ``python_dice_syvere``, ``python_dice_tenthousand`` (with
``_no`` and ``_farkle`` for the other presets) and ``python_dice_meyer`` with ``pyspiel`` (the
``[openspiel]`` extra, Python 3.11 and later)::

    >>> import pyspiel
    >>> import dice_envs.openspiel
    >>> game = pyspiel.load_game("python_dice_meyer(lives=1,claim_rule=higher)")
    >>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
    (2, 24, 27)
    >>> state = game.new_initial_state()
    >>> state.is_chance_node(), len(state.chance_outcomes())
    (True, 21)

Each state wraps an engine state (:mod:`dice_envs.games`), so the rules are the engine's, word for
word. What maps to what:

- **Parameters** are the engine's options with their defaults, but for the number of players,
  which is ``players`` as in OpenSpiel (``pyspiel.load_game("python_dice_syvere(players=4,
  max_rolls=2)")``). 10 000 is registered once per preset, with that preset's values as the
  defaults: ``python_dice_tenthousand`` (``dk``), ``python_dice_tenthousand_no`` and
  ``python_dice_tenthousand_farkle``. ``game.get_parameters()`` and ``str(game)`` give the values
  the engine plays by: under a smaller ``target`` a preset's opening is lowered to it (TT-9, as
  the env does), and they say so. pyspiel fills in every default before the game sees them, so an
  opening given equal to the preset's is lowered too, where the env would refuse it.
- **Actions** are the env's action ids (``num_distinct_actions`` is the env's ``Discrete`` size),
  written as the rules write them (``claim 43``, ``keep 15 bank``).
- **Chance** is explicit: a roll is one chance action whose id names its sorted faces whatever the
  state (:func:`chance_action`, :func:`roll_of`: ids 0-5 are one die, 6-26 two dice, up to 922 for
  six), with its exact probability; ``max_chance_outcomes`` is 923 in Syvere and 10 000, 27 in
  Meyer (which rolls two dice), the ids a game can use.
- **Returns** are C-3's: zero-sum, the winners share +1 and the losers -1, paid at the end.
- **Information**: Meyer is an imperfect-information game (a roll is seen by its roller only,
  ME-3); Syvere and 10 000 are perfect-information games with chance. The information state
  string is the env's ``information_state_string`` (perfect recall: every roll as the player saw
  it, every action, every lifted cup); the observation tensor is the env's observation vector
  (``observe(state, player)``, not perfect recall in Meyer: see docs/envs.md), and its string that
  vector's numbers. Observers honour OpenSpiel's observation types: without private information
  (``private_info=NONE``, the public observation) a hidden roll is unseen for every seat; private
  information of all players, or private without public, is refused. No information-state tensor
  is given (a perfect-recall history has no fixed size): asking for one raises, and algorithms that
  need a tensor use the observation (``rl_environment.Environment(game,
  observation_type=ObservationType.OBSERVATION)``).
- **Length**: ``max_game_length`` (decisions, chance left out) is a cap, not a bound of the rules:
  a Meyer round under ``claim_rule="at_least"`` can last for ever, a Syvere turn whose dice all
  pair up scores nothing and can come again, and 10 000 players can bust for ever. A game that
  reaches the cap raises ``RuntimeError`` rather than inventing a result.

Which of OpenSpiel's algorithms suit them (docs/envs.md, "As OpenSpiel games"): no tree here is small
enough to enumerate (each is infinite, or far too large even for one-life Meyer under
``claim_rule="higher"``), so ``TabularPolicy``, CFR, ``exploitability`` and ``expected_game_score``
do not apply; the package's own exploitability tools (``dice-envs solve meyer``) do, for Meyer.
Outcome- and external-sampling MCCFR learn Meyer, whose information states recur. In Syvere and
10 000 an information state is the whole public history, which rarely recurs, so tabular methods
do not generalise there; their long games also drive the product of chance probabilities below
the smallest float, which leaves NaN in outcome-sampling MCCFR's tables. There, use the
observation tensor (RL, NFSP, PSRO) or MCTS (a perfect-information search: in Meyer it would read
the hidden cup). Python games are slower than OpenSpiel's C++ games, as OpenSpiel says of its own.
"""

from __future__ import annotations

import itertools
import re
import time
from functools import lru_cache
from typing import Any

import numpy as np

try:
    import pyspiel
except ModuleNotFoundError as _exc:  # one line naming the extra, not a bare traceback
    import sys

    from dice_envs.extras import NotInstalled, raise_missing

    if sys.version_info < (3, 11) and _exc.name == "pyspiel":  # the extra installs nothing there
        raise NotInstalled("dice_envs.openspiel needs Python 3.11 or later (OpenSpiel's wheels)") from _exc
    raise_missing(_exc, "dice_envs.openspiel (the games for OpenSpiel)")

from dice_envs.errors import InvalidOptionError
from dice_envs.information import all_rolls_public, chance_event, event_text, step_events
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
MAX_GAME_LENGTH = 100_000  # decisions: a cap, not a bound of the rules


def short_name(variant: str) -> str:
    """The ``pyspiel`` name of a game: ``python_dice_meyer``, ``python_dice_tenthousand_no``."""
    return f"python_dice_{variant}"


@lru_cache(maxsize=None)
def rolls(k: int) -> tuple[tuple[int, ...], ...]:
    """Every roll of ``k`` dice as sorted faces, in order."""
    return tuple(itertools.combinations_with_replacement(range(1, 7), k))


#: The first chance id of a roll of k dice: 0 for one die, 6 for two, ... (923 ids in all).
OFFSET = {k: sum(len(rolls(j)) for j in range(1, k)) for k in range(1, 8)}
_ID_OF = {roll: OFFSET[k] + i for k in range(1, 7) for i, roll in enumerate(rolls(k))}
_ROLL_OF = {i: roll for roll, i in _ID_OF.items()}


def chance_action(dice) -> int:
    """The chance action of a roll, whatever the state: ``chance_action((2, 1)) == 7``."""
    return _ID_OF[tuple(sorted(int(d) for d in dice))]


def roll_of(action: int) -> tuple[int, ...]:
    """The sorted faces of a chance action: ``roll_of(7) == (1, 2)``."""
    try:
        return _ROLL_OF[int(action)]
    except KeyError:
        raise ValueError(f"chance action {action} is not a roll (ids 0 .. {OFFSET[7] - 1})") from None


#: Engine option -> OpenSpiel parameter, where OpenSpiel names it otherwise (and back).
_PARAMETER = {"num_players": "players"}
_OPTION = {parameter: option for option, parameter in _PARAMETER.items()}


def parameter_specification(variant: str) -> dict[str, Any]:
    """A registered game's ``pyspiel`` parameters and their defaults: the engine's options
    (``players`` for ``num_players``), with a 10 000 preset's values for its variant."""
    game, preset = VARIANTS[variant]
    defaults = option_defaults(game)
    if preset is not None:
        from dice_envs.games.tenthousand import PRESETS

        defaults.pop("preset")
        defaults.update(PRESETS[preset])
    return {_PARAMETER.get(name, name): value for name, value in defaults.items()}


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


_CONVERTED: dict[int, tuple[tuple, list[tuple[int, float]]]] = {}


def _converted(outcomes: tuple) -> list[tuple[int, float]]:
    """An engine's exact outcomes as OpenSpiel's ``(chance id, probability)`` pairs. The engines
    hand out one cached tuple per number of dice, so the conversion is kept by that tuple (held
    here, so that its id is not reused while kept)."""
    hit = _CONVERTED.get(id(outcomes))
    if hit is not None and hit[0] is outcomes:
        return hit[1]
    if len(_CONVERTED) >= 64:
        _CONVERTED.clear()
    converted = [(chance_action(dice), float(p)) for dice, p in outcomes]
    _CONVERTED[id(outcomes)] = (outcomes, converted)
    return converted


class DiceGame(pyspiel.Game):
    """One of the games as a ``pyspiel.Game``; its engine is :attr:`engine`."""

    variant = ""
    game_name = ""

    def __init__(self, params: dict | None = None):
        params = dict(params or {})
        options = {_OPTION.get(k, k): v for k, v in params.items()}
        preset = VARIANTS[self.variant][1]
        if preset is not None:
            # What equals the preset's value is left to the preset, as the env takes options:
            # so a smaller target lowers the preset's opening to it (TT-9).
            from dice_envs.games.tenthousand import PRESETS

            table = PRESETS[preset]
            options = {k: v for k, v in options.items() if k not in table or v != table[k]}
            options["preset"] = preset
        try:
            self.engine = game_class(self.game_name)(**options)
        except ValueError as exc:  # OpenSpiel's users see which game refused it, by their parameter names
            message = str(exc)
            for option, parameter in _PARAMETER.items():
                message = re.sub(rf"\b{option}\b", parameter, message)
            raise InvalidOptionError(f"{short_name(self.variant)}: {message}") from None
        engine = self.engine
        # The parameters the engine plays by, for get_parameters() and str(game).
        effective = {k: getattr(engine, _OPTION.get(k, k), v) for k, v in params.items()}
        info = pyspiel.GameInfo(
            num_distinct_actions=engine.num_actions,
            max_chance_outcomes=OFFSET[MAX_DICE[self.game_name] + 1],
            num_players=engine.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPES[self.variant], info, effective)
        self.public_chance = all_rolls_public(engine)

    def new_initial_state(self) -> "DiceState":
        return DiceState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "DiceObserver":
        if params:
            raise ValueError(f"{short_name(self.variant)} takes no observation parameters, got {params}")
        return DiceObserver(self, iig_obs_type)

    def __reduce__(self):  # pickled as pyspiel's own games are: by name and parameters
        return pyspiel.load_game, (short_name(self.variant), self.get_parameters())


class DiceState(pyspiel.State):
    """A ``pyspiel.State`` over an immutable engine state (:attr:`engine_state`); each seat's
    information state grows with every action (as text, for a string in constant time)."""

    def __init__(self, game: DiceGame):
        super().__init__(game)
        self.engine = game.engine
        self._public_chance = game.public_chance
        self.engine_state = self.engine.initial_state()
        self.decisions = 0
        n = self.engine.num_players
        self._seen: list[list[str]] = [[f"seat {seat}"] for seat in range(n)]  # perfect recall, private
        self._public: list[str] = []  # the same without private rolls (identical for every seat)

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
        return list(_converted(self.engine.chance_outcomes(self.engine_state)))

    def _apply_action(self, action: int) -> None:
        engine, state = self.engine, self.engine_state
        if engine.is_chance(state):
            dice, k = roll_of(action), engine.num_dice_to_roll(state)
            if len(dice) != k:
                raise ValueError(f"chance action {action} rolls {len(dice)} dice; {k} are rolled here")
            event = chance_event(engine, state, dice, self._public_chance)
            self.engine_state = engine.apply_chance(state, dice)
        else:
            if self.decisions >= MAX_GAME_LENGTH:
                raise RuntimeError(
                    f"{self.get_game()}: the game is not over after {MAX_GAME_LENGTH} decisions "
                    "(max_game_length, a cap: see dice_envs.openspiel)"
                )
            event = ("action", engine.current_player(state), int(action))
            self.engine_state = engine.apply_action(state, int(action))
            self.decisions += 1
        # Every seat sees the same action (and the same roll, unless it is hidden): each distinct
        # event is written once.
        texts: dict[tuple, str] = {}

        def text(e: tuple) -> str:
            if e not in texts:
                texts[e] = event_text(engine, e, state)
            return texts[e]

        for seat, seen in enumerate(self._seen):
            seen.extend(text(e) for e in step_events(engine, seat, event, state))
        self._public.extend(text(e) for e in step_events(engine, 0, event, state, private=False))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            try:
                return f"roll {self.engine.roll_to_string(roll_of(action))}"
            except ValueError:
                return f"chance {action}"
        try:
            return self.engine.action_to_string(self.engine_state, int(action))
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
    def information_string(self, player: int, private: bool = True) -> str:
        """``player``'s perfect-recall information state, as ``env.information_state_string``;
        with ``private`` false, the public one (no seat's hidden roll shown)."""
        if private:
            return "|".join(self._seen[player])
        return "|".join([f"seat {player}", *self._public])


class DiceObserver:
    """OpenSpiel's observer interface (``open_spiel.python.observation``) over the engine's views."""

    def __init__(self, game: DiceGame, iig_obs_type=None):
        private_type = pyspiel.PrivateInfoType
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        name = short_name(game.variant)
        if iig_obs_type.private_info == private_type.ALL_PLAYERS:
            raise ValueError(f"{name}: no observation holds every player's private information")
        if not iig_obs_type.public_info:
            raise ValueError(f"{name}: no observation without the public information")
        self.name = name
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == private_type.SINGLE_PLAYER
        size = 0 if self.perfect_recall else len(game.engine.observation_low)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: DiceState, player: int) -> None:
        if self.perfect_recall:
            raise NotImplementedError(
                f"{self.name}: no information-state tensor (a perfect-recall history has no fixed size); "
                "use the information state string, or the observation tensor"
            )
        engine = state.engine
        observe = engine.observe if self.private else engine.observe_public
        self.tensor[:] = observe(state.engine_state, player)

    def string_from(self, state: DiceState, player: int) -> str:
        if self.perfect_recall:
            return state.information_string(player, private=self.private)
        engine = state.engine
        values = (engine.observe if self.private else engine.observe_public)(state.engine_state, player)
        return f"seat {player}: " + " ".join(f"{v:g}" for v in values)


class SyvereGame(DiceGame):
    """Syvere as a ``pyspiel.Game`` (``python_dice_syvere``)."""

    variant = game_name = "syvere"


class TenthousandGame(DiceGame):
    """10 000, Danish rules by default, as a ``pyspiel.Game`` (``python_dice_tenthousand``)."""

    variant, game_name = "tenthousand", "tenthousand"


class TenthousandNoGame(DiceGame):
    """10 000, Norwegian rules, as a ``pyspiel.Game`` (``python_dice_tenthousand_no``)."""

    variant, game_name = "tenthousand_no", "tenthousand"


class TenthousandFarkleGame(DiceGame):
    """10 000, Farkle rules, as a ``pyspiel.Game`` (``python_dice_tenthousand_farkle``)."""

    variant, game_name = "tenthousand_farkle", "tenthousand"


class MeyerGame(DiceGame):
    """Meyer as a ``pyspiel.Game`` (``python_dice_meyer``)."""

    variant = game_name = "meyer"


GAME_CLASSES: dict[str, type[DiceGame]] = {
    cls.variant: cls for cls in (SyvereGame, TenthousandGame, TenthousandNoGame, TenthousandFarkleGame, MeyerGame)
}
_GAME_TYPES = {variant: _game_type(variant) for variant in VARIANTS}
for _variant, _class in GAME_CLASSES.items():
    pyspiel.register_game(_GAME_TYPES[_variant], _class)

def bench(seconds: float = 3.0, seed: int = 0) -> list[str]:
    """Random play through each game (chance drawn by its probabilities, moves uniformly among the
    legal ones) for ``seconds`` each, and outcome-sampling MCCFR on one-life Meyer for as long:
    the figures of docs/envs.md, "As OpenSpiel games"."""
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    rng = np.random.default_rng(seed)
    lines = []
    for name in ("python_dice_meyer", "python_dice_tenthousand", "python_dice_syvere(players=4)"):
        game = pyspiel.load_game(name)
        actions, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    ids, probabilities = zip(*state.chance_outcomes())
                    state.apply_action(int(rng.choice(ids, p=probabilities)))
                else:
                    state.apply_action(int(rng.choice(state.legal_actions())))
                actions += 1
        lines.append(f"{name}: {actions / (time.perf_counter() - start):,.0f} random actions/s")
    np.random.seed(seed)  # the solver samples with numpy's global generator
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(pyspiel.load_game("python_dice_meyer(lives=1,claim_rule=higher)"))
    iterations, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        solver.iteration()
        iterations += 1
    lines.append(f"outcome-sampling MCCFR, python_dice_meyer(lives=1,claim_rule=higher): {iterations:,} iterations "
                 f"in {seconds:g} s")  # fmt: skip
    return lines


__all__ = ["DiceGame", "DiceObserver", "DiceState", "GAME_CLASSES", "OFFSET", "VARIANTS", "chance_action", "roll_of",
           "rolls", "short_name"]  # fmt: skip


def _seconds(text: str) -> float:
    """An argparse type: a number of seconds, finite and above 0 (``3``, ``0.5``, ``1e1``)."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds above 0 (such as 3 or 0.5), not {text[:30]!r}"
        )
    return value


_seconds.__name__ = "SECONDS"  # argparse names the type in some messages


def main(argv: list[str] | None = None) -> int:
    """``python -m dice_envs.openspiel [SECONDS]``: print the speed figures of :func:`bench`; returns 0.

    A bad ``SECONDS`` exits 2 with a one-line message (:class:`dice_envs.cli.Parser`).
    """
    import sys

    from dice_envs.cli import Parser

    parser = Parser(
        prog="python -m dice_envs.openspiel",
        description="The speed figures of docs/envs.md (\"As OpenSpiel games\"): random play through "
        "python_dice_meyer, python_dice_tenthousand and python_dice_syvere(players=4) (random actions per "
        "second), then outcome-sampling MCCFR on python_dice_meyer(lives=1,claim_rule=higher) (iterations "
        "done), each for SECONDS: about 4 x SECONDS in all, with seed 0.",
    )  # fmt: skip
    parser.add_argument(
        "seconds", nargs="?", type=_seconds, default=3.0, metavar="SECONDS",
        help="seconds of each of the four measurements, a number above 0 (default 3; docs/envs.md's "
        "figures: 10)",
    )  # fmt: skip
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    for line in bench(args.seconds):
        print(line, flush=True)
    return 0


if __name__ == "__main__":  # python -m dice_envs.openspiel [SECONDS]: the speed figures
    import sys

    from dice_envs.cli import run_guarded

    sys.exit(run_guarded(main, sys.argv[1:], prog="python -m dice_envs.openspiel"))
