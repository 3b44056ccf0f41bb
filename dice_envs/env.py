"""The one PettingZoo AEC adapter that every game uses.

:class:`DiceGameEnv` turns any rules engine of :mod:`dice_envs.games` into an ``AECEnv`` with no
game-specific code: spaces come from the game's declared sizes, observations from
``game.observe(state, seat)``, and chance is resolved inside the env with its own seeded
``numpy.random.Generator``. An env module (``dice_envs.syvere_v0`` and its siblings) only names
its game:

.. code-block:: python

    class raw_env(DiceGameEnv):
        game_class = syvere.Game
        metadata = env_metadata("syvere_v0")

    def env(**kwargs):
        return wrap(raw_env(**kwargs))

Conventions shared by every env:

* Agents ``player_0`` .. ``player_{N-1}`` in seat order (docs/rules.md C-1). All agents stay in
  ``env.agents`` until the game ends; a player who is out of the game simply never acts.
* Observations ``{"observation": float32 vector, "action_mask": int8 vector}`` from the observing
  player's perspective. The mask is all zeros for players who are not to act.
* Rewards only at the end of the game, the zero-sum returns of C-3. A game can be over when
  ``reset()`` returns, before anyone acts (Syvere with ``max_rolls=1``, or with a small
  ``elimination`` when the first rolls end the round): every agent is then terminated, and
  ``last()`` gives each its return as the usual loop steps it out with ``None``. PettingZoo's
  ``api_test`` refuses such option sets ("terminations must all be False after reset").
* ``copy.deepcopy(env)`` and ``pickle`` continue the same game; the copies share the rules engine
  (its options are fixed and its memo tables are left out of a pickle). Tree search should clone
  ``env.unwrapped.game_state`` instead: engine states are immutable values, so cloning is free.
* ``infos[agent]`` after every step: ``{"action": str | None, "actor": str | None,
  "dice": [tuple | None, ...]}`` — the last action's rule-book string and who took it, and the
  rolls made since then as sorted tuples, ``None`` for a roll this agent did not see. Each agent
  has a dict of its own, so a wrapper may add keys to it.
  ``env.unwrapped.history`` holds every event with nothing hidden, for logs and replays;
  ``env.unwrapped.information_state(agent)`` (and ``information_state_string``) is that history
  as the agent saw it, a perfect-recall information state (hidden rolls as their number of dice).
* ``env.state()``, PettingZoo's optional global state for centralised critics (MAPPO, QMIX): the
  engine's :meth:`~dice_envs.games.base.Game.global_state` of the current game state, a float32
  vector in ``env.state_space`` (a ``Box``), with absolute seats (seat 0 first) and nothing
  hidden (Meyer's cup as it truly is); every agent's observation is a function of it. Each env
  module's docstring lists its entries; ``env.unwrapped.game.state_slices`` names them. After the
  game it is the final state (with the winners), after a truncation or an illegal action under
  ``env()`` the state play stopped in. ``env()``'s wrappers and ``parallel_env()`` forward both.
  It is built only when asked for.
* ``max_cycles=M`` truncates the game (every agent truncated, rewards 0) after ``M * N`` actions.
* ``env()`` wraps the raw env in PettingZoo's ``TerminateIllegalWrapper`` (a masked action ends
  the game: the offender gets ``ILLEGAL_ACTION_REWARD`` = -1.0, everyone else 0.0, and the
  offender's info ``"illegal_action": True``, as the Gymnasium view marks it),
  ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``, as PettingZoo's classic envs do; see
  :func:`wrap` for the changes: faster attribute forwarding, and misuse refused with the raw env's
  own errors instead of PettingZoo's ``AssertionError`` (its asserts ``python -O`` strips). The raw
  env raises :class:`~dice_envs.errors.IllegalActionError` (a ``ValueError``) naming an illegal
  action instead of ending the game.
* Actions follow the engines' one input rule (:func:`dice_envs.games.base.action_id`): a Python
  ``int`` or a numpy integer, a 0-d integer array included (``np.array(3)``); never a bool, float,
  complex number, string, ``None`` (for an agent still playing) or an array with a dimension
  (``np.array([3])``). The raw env raises :class:`~dice_envs.errors.IllegalActionError` naming any
  other value. Under ``env()`` a value outside the ``Discrete`` space (all of those, and ids out of
  range; a bool counts as outside) raises the same ``IllegalActionError`` as the raw env, also
  under ``python -O``; an id inside the space that the mask forbids ends the game as above.
* Calls that need a game before the first ``reset()`` (``step``, ``last``, ``observe``,
  ``state``, ``agent_iter``) raise ``ValueError`` ("... before reset(): call reset() first"), under
  ``env()`` as from the raw env; reading ``agents``, ``rewards`` and the other bookkeeping before
  reset is PettingZoo's ``AttributeError``.
"""

from __future__ import annotations

import copy
import inspect
import operator
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from dice_envs import dice as dice_mod
from dice_envs.errors import IllegalActionError, InvalidOptionError
from dice_envs.information import all_rolls_public, chance_event, information_events, information_string
from dice_envs.games.base import Game, check_int

ILLEGAL_ACTION_REWARD = -1.0


def check_options(game_class: type[Game], options: dict, extras: tuple[str, ...] = ("render_mode", "max_cycles")) -> dict:
    """Raise :class:`~dice_envs.errors.InvalidOptionError` (a ``ValueError``) naming any option the
    game does not have, and the ones the caller takes.

    Args:
        game_class: the rules engine whose options are checked.
        options: the keyword options given (``num_players`` among them).
        extras: the names the caller accepts besides the game's own options, listed in the message
            after them: the env takes ``render_mode`` and ``max_cycles``; a caller that takes no
            such names (terminal play, matches) passes ``()`` so the message does not offer them.

    Returns:
        ``options`` unchanged.

    Raises:
        InvalidOptionError: an option that is neither the game's nor in ``extras``.
    """
    params = inspect.signature(game_class.__init__).parameters
    known = [name for name, p in params.items() if name != "self" and p.kind is not p.VAR_KEYWORD]
    takes_more = any(p.kind is p.VAR_KEYWORD for p in params.values())
    if takes_more and hasattr(game_class, "option_names"):
        known += [name for name in game_class.option_names() if name not in known]
    elif takes_more:  # an engine that checks its **options itself and cannot list them
        return options
    unknown = [name for name in options if name not in known and name not in extras]
    if unknown:
        raise InvalidOptionError(
            f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} for "
            f"{game_class.name}; options are: {', '.join([*known, *extras])}"
        )
    return options


class ActionSpace(spaces.Discrete):
    """``gymnasium.spaces.Discrete`` with a fast ``contains`` for plain Python ints.

    ``AssertOutOfBoundsWrapper`` checks every action with ``contains``; gymnasium's version
    builds numpy dtype information on each call. For a plain ``int`` the answer is simply whether
    it lies in ``[start, start + n)``, which is what this returns; a bool is not contained (the
    engines' input rule: ``True`` is no action); anything else is checked by gymnasium as before.
    """

    def contains(self, x) -> bool:
        if type(x) is int:
            return int(self.start) <= x < int(self.start) + int(self.n)
        if isinstance(x, bool):  # gymnasium counts True as 1; by the engines' input rule it is no action
            return False
        return super().contains(x)


def env_metadata(name: str) -> dict[str, Any]:
    """The ``metadata`` dict of an env module named ``name`` (e.g. ``"syvere_v0"``)."""
    return {
        "name": name,
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }


class DiceGameEnv(AECEnv):
    """Generic AEC env over a :class:`~dice_envs.games.base.Game`.

    Args:
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"``
            (the text is printed after every ``reset`` and ``step``, as PettingZoo's classic
            envs and Gymnasium do, and by ``render()``, which returns ``None``).
        max_cycles: truncate after ``max_cycles * num_players`` actions; ``None`` for no limit.
        **options: the game's options, passed to ``game_class`` (``num_players`` among them).
    """

    game_class: ClassVar[type[Game]]
    metadata: dict[str, Any] = env_metadata("dice_game")

    def __init__(self, render_mode: str | None = None, max_cycles: int | None = None, **options):
        super().__init__()
        # Each env its own copy: a wrapper that edits it (PettingZoo's CaptureStdoutWrapper adds a
        # render mode) must not change the class's, and so every later env's.
        self.metadata = {**type(self).metadata, "render_modes": list(type(self).metadata["render_modes"])}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidOptionError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        if max_cycles is not None:
            max_cycles = check_int("max_cycles", max_cycles, 1)
        self.game = self.game_class(**check_options(self.game_class, options))
        self.render_mode = render_mode
        # The text log (render, log_lines) costs time on every step: only kept when rendering.
        self._logging = render_mode is not None
        self.max_cycles = max_cycles
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        # One space object per agent, the same on every call (api_test checks identity), and not
        # shared between agents: seeding one agent's space leaves the others' generators alone.
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(
                        low=self.game.observation_low,
                        high=self.game.observation_high,
                        dtype=np.float32,
                    ),
                    "action_mask": spaces.Box(low=0, high=1, shape=(self.game.num_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: ActionSpace(self.game.num_actions) for agent in self.possible_agents}
        # PettingZoo's optional global state (state()); an attribute, as PettingZoo's own envs
        # have it and as turn_based_aec_to_parallel reads it.
        if hasattr(self.game, "state_low"):  # a game of its own that defines no global state has none
            self.state_space = spaces.Box(low=self.game.state_low, high=self.game.state_high, dtype=np.float32)
        self._rng: np.random.Generator | None = None
        self._dice: dice_mod.DiceStream | None = None
        self._masks: dict[tuple[int, ...], np.ndarray] = {}
        self._public_chance = all_rolls_public(self.game)
        self.game_state: Any = None  # the engine's state; None before reset()
        self.history: list[tuple] = []
        self._last_lines: list[str] = []

    # -- copies -------------------------------------------------------------------------------
    #: Attributes a deep copy shares with the original, being immutable: the rules engine, the
    #: mask cache (its arrays are copied before they are handed out).
    _SHARED_ON_COPY = ("game", "_masks")

    def __deepcopy__(self, memo) -> "DiceGameEnv":
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            if name in self._SHARED_ON_COPY:
                new.__dict__[name] = value
            elif name == "history":  # a list of immutable event tuples
                new.__dict__[name] = list(value)
            else:
                new.__dict__[name] = copy.deepcopy(value, memo)
        return new

    def __getstate__(self) -> dict:
        # A pickle leaves out the mask cache (rebuilt on demand), as the game leaves out its memos.
        return {**self.__dict__, "_masks": {}}

    # -- spaces -------------------------------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # -- AEC API ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; ``seed`` re-seeds the dice. ``options`` is accepted and unused: the game's
        options are the env's own, given when it is made; refusing a key would fail PettingZoo's
        own ``api_test`` and ``parallel_api_test``, which reset with ``options={"options": 1}``."""
        if seed is not None:
            try:
                check_int("seed", seed, 0)
            except InvalidOptionError as exc:  # a seed is an argument, not a game option
                raise ValueError(str(exc)) from None
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
            self._dice = dice_mod.DiceStream(self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._num_actions_taken = 0
        self.history = []
        self.game_state = self.game.initial_state()
        self._last_lines = ["new game"]
        self._after_transition(None, None, *self._resolve_chance())
        if self.terminations[self.agent_selection]:
            # Over before anyone acted (Syvere with max_rolls=1, or a small elimination): the
            # returns are paid now, and last() gives each agent its own as it is stepped out.
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def step(self, action) -> None:
        try:
            agent = self.agent_selection
            done = self.terminations[agent] or self.truncations[agent]
        except (AttributeError, KeyError):  # before reset, or every agent already stepped out
            raise self._not_playing("step()") from None
        if done:
            self._was_dead_step(action)  # refuses any action but None
            return
        seat = self._seat[agent]
        state = self.game_state
        # Raises IllegalActionError naming the action when it is illegal (the engine checks it).
        next_state = self.game.apply_action(state, action)
        action = int(action)
        text = self.game.action_to_string(state, action)
        self.game_state = next_state
        self.history.append(("action", seat, action, text))
        self._num_actions_taken += 1
        if self._logging:
            self._last_lines = [f"{agent}: {text}"]
            self._log_changes(state, next_state)
        rolls, hidden = self._resolve_chance()
        self._cumulative_rewards[agent] = 0.0
        self._after_transition(agent, text, rolls, hidden)
        if self.terminations[agent]:  # rewards are zero before the end (C-3)
            self._accumulate_rewards()
        if self.render_mode == "human":  # as PettingZoo's classic envs and Gymnasium do
            self.render()

    def observe(self, agent):
        game = self.game
        state = self.game_state
        seat = self._seat.get(agent) if type(agent) is str else None
        if seat is None or state is None:
            if seat is None:
                raise self._unknown_agent(agent)
            raise self._not_playing(f"observe({agent!r})")
        # Between steps the dice are rolled, so the agent selected is the one to act, unless
        # the game is over (or truncated) and every agent is terminated (or truncated).
        if agent == self.agent_selection and not (
            self.terminations.get(agent, True) or self.truncations.get(agent, True)
        ):
            legal = tuple(game.legal_actions(state))
            mask = self._masks.get(legal)
            if mask is None:
                mask = self._masks[legal] = np.zeros(game.num_actions, dtype=np.int8)
                mask[list(legal)] = 1
            mask = mask.copy()  # the caller may write to it; the cached one stays intact
        else:
            mask = np.zeros(game.num_actions, dtype=np.int8)
        return {"observation": game.observe(state, seat), "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state: ``game.global_state(game_state)``, a new float32 array in
        :attr:`state_space` (see the module docstring). Once the game is over it is the final
        state, also after every agent has been stepped out.

        Raises:
            ValueError: before ``reset()``.
        """
        if self.game_state is None:
            raise self._not_playing("state()")
        return self.game.global_state(self.game_state)

    def last(self, observe: bool = True):
        """``(observation, reward, termination, truncation, info)`` of the agent to act (AECEnv).

        Raises:
            ValueError: before ``reset()``, or after the game once every agent has been stepped
                out of it (``agents`` is empty), saying so.
        """
        if self.game_state is None or self.agent_selection not in self.terminations:
            raise self._not_playing("last()")
        return super().last(observe)

    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode. "
                'Pass render_mode="ansi" or "human" to the env.'
            )
            return None
        if self.game_state is None:
            text = "(call reset() first)"
        else:
            text = "\n".join(self._last_lines + [self.game.render(self.game_state)])
        if self.render_mode == "human":
            print(text, flush=True)
            return None
        return text

    def close(self) -> None:
        pass

    def information_state(self, agent: str) -> tuple:
        """``agent``'s perfect-recall information state: everything it has seen since ``reset()``.

        A tuple of events: ``("seat", seat)`` first, then in order every roll as the agent saw it
        (``("chance", dice)``, or ``("chance", number of dice)`` for a roll hidden from it),
        every action (``("action", seat, action id)``; actions are public in these games) and the
        dice an action showed everyone (``("revealed", dice)``: Meyer's doubt lifts the cup). Two
        histories give equal values exactly when the agent cannot tell them apart, the agent's
        observation is a function of it (``tests/test_information_state.py`` checks both in every
        game), and it is hashable and the same in every process: a key for CFR-style tables.
        It replays the game so far through the engine, in time linear in its length.

        Raises:
            ValueError: an unknown agent, or before ``reset()``.
        """
        return tuple(event for event, _ in self._information_events(agent, "information_state"))

    def information_state_string(self, agent: str) -> str:
        """:meth:`information_state` as text, ``|`` between events, actions by their rule-book
        strings and dice as the rules write them (Meyer's high die first, ME-2):
        ``seat 1|roll 2 dice unseen|player_0: claim 31|player_1: doubt|revealed 31``."""
        return information_string(self.game, self._information_events(agent, "information_state_string"))

    def _information_events(self, agent: str, call: str):
        """Yield ``(event, state before it)`` of :meth:`information_state`, replaying the game."""
        seat = self._seat.get(agent) if type(agent) is str else None
        if seat is None:
            raise self._unknown_agent(agent)
        if self.game_state is None:
            raise self._not_playing(f"{call}({agent!r})")
        return information_events(self.game, seat, self.history)

    @property
    def log_lines(self) -> list[str]:
        """What the last step did, as text: the action, the rolls (hidden rolls unnamed) and the
        engine's :meth:`~dice_envs.games.base.Game.change_lines` (score lines, and what a person at
        the table is told: a lifted cup, a bust, a player out). Kept only when the env has a
        ``render_mode``."""
        return list(self._last_lines)

    def _was_dead_step(self, action) -> None:
        """PettingZoo's step of a terminated or truncated agent, refusing any action but ``None``
        with :class:`~dice_envs.errors.IllegalActionError` (``env()``'s wrappers call it too)."""
        if action is not None:
            raise IllegalActionError(
                f"step({action!r}): the game is over for {self.agent_selection}; PettingZoo steps a terminated or "
                "truncated agent with None (call reset() to play another game)",
                action=action,
            )
        super()._was_dead_step(action)

    def _clear_rewards(self) -> None:
        # AECEnv's sets int zeros (after a dead agent's step): the rewards stay floats.
        for agent in self.rewards:
            self.rewards[agent] = 0.0

    def agent_iter(self, max_iter: int = 2**63):
        """PettingZoo's ``agent_iter``; before the first ``reset()`` a ``ValueError`` at once (it
        failed on a missing ``agent_selection`` when iterated), as under ``env()``."""
        if self.game_state is None:
            raise self._before_reset("agent_iter()")
        return super().agent_iter(max_iter)

    # -- helpers ------------------------------------------------------------------------------
    def _unknown_agent(self, agent) -> ValueError:
        return ValueError(f"unknown agent {agent!r}; the agents are {', '.join(self.possible_agents)}")

    @staticmethod
    def _before_reset(call: str) -> ValueError:
        """The error for a call that needs a game, made before the first ``reset()``."""
        return ValueError(f"{call} before reset(): call reset() first")

    def _not_playing(self, call: str) -> ValueError:
        """The error for a call that needs a game in progress: before reset, or after the end."""
        if self.game_state is None:
            return self._before_reset(call)
        return ValueError(
            f"{call}: the game is over and every agent has been stepped out of it (agents is empty); "
            "call reset() to play another game"
        )

    def _resolve_chance(self) -> tuple[list[tuple], bool]:
        """Roll dice until someone must act or the game ends; return the rolls as history
        events ``("chance", dice, seen_by)`` and whether any was hidden from someone."""
        game = self.game
        rolls = []
        hidden = False
        state = self.game_state
        public = self._public_chance
        while k := game.num_dice_to_roll(state):
            roll = self._dice.roll(k)  # type: ignore[union-attr]  # set by reset(); a hot path, no assert
            event = chance_event(game, state, roll, public)
            seen_by = event[2]
            before, state = state, game.apply_chance(state, roll)
            self.history.append(event)
            rolls.append(event)
            if seen_by is not None:
                hidden = True
            if not self._logging:
                continue
            who = f"player_{game.current_player(before)}"
            if seen_by is None:
                self._last_lines.append(f"{who} rolled {dice_mod.to_unicode(roll)}  ({dice_mod.to_string(roll)})")
            else:
                self._last_lines.append(f"{who} rolled {len(roll)} dice under the cup")
            self._log_changes(before, state)
        self.game_state = state
        return rolls, hidden

    def _log_changes(self, before, after) -> None:
        self._last_lines.extend(self.game.change_lines(before, after))

    def _after_transition(self, actor: str | None, text: str | None, rolls, hidden: bool) -> None:
        game = self.game
        state = self.game_state
        agents = self.agents
        if not hidden:
            dice = [event[1] for event in rolls]
            # A dict per agent (wrappers write to infos), with the same contents.
            self.infos = {a: {"action": text, "actor": actor, "dice": dice.copy()} for a in agents}
        else:
            self.infos = {
                a: {
                    "action": text,
                    "actor": actor,
                    "dice": [
                        roll if seen_by is None or self._seat[a] in seen_by else None
                        for _, roll, seen_by in rolls
                    ],
                }
                for a in agents
            }
        if game.is_terminal(state):
            returns = game.returns(state)
            self.rewards = {a: float(returns[self._seat[a]]) for a in agents}
            self.terminations = dict.fromkeys(agents, True)
            self._last_lines.append("game over")
            if actor is None:  # over before anyone acted (a game of chance only)
                self.agent_selection = agents[0]
            return
        # self.rewards stays as reset left it, all zeros: nothing is paid before the end (C-3).
        if self.max_cycles is not None and self._num_actions_taken >= self.max_cycles * game.num_players:
            self.truncations = dict.fromkeys(agents, True)
            self._last_lines.append(f"truncated after {self._num_actions_taken} actions")
            return
        self.agent_selection = self.possible_agents[game.current_player(state)]


# -- wrappers ----------------------------------------------------------------------------------
# PettingZoo's wrappers forward every attribute they lack through ``__getattr__``, which runs only
# after a failed normal look-up; the AEC loop reads ``agent_selection``, ``terminations`` and
# friends several times a step, through three wrappers, and that forwarding cost more time than a
# whole step of the game. These subclasses keep the wrappers' behaviour and give those attributes
# direct properties that read and write the unwrapped env.
_BOOKKEEPING = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")


def _forward(name: str) -> property:
    def set_(self, value):
        setattr(self._raw, name, value)

    # attrgetter runs in C: no Python frame for the hottest reads of the loop. ``_view`` is the
    # unwrapped env, except in an OrderEnforcingWrapper before reset (see there).
    return property(operator.attrgetter(f"_view.{name}"), set_)


class _DirectBookkeeping:
    """Mixin for a PettingZoo wrapper: the AEC bookkeeping read from the unwrapped env directly."""

    # Declared for the type checker only: the wrapper class this is mixed into provides them
    # (agent_selection as one of the forwarding properties set up below).
    agent_selection: Any
    observe: Any

    def __init__(self, env, *args, **kwargs):
        self._raw = self._view = env.unwrapped
        super().__init__(env, *args, **kwargs)

    def action_space(self, agent):
        # No wrapper changes the spaces: ask the unwrapped env instead of each layer in turn.
        return self._raw.action_space(agent)

    @property
    def state_space(self):
        # The global state's space, before reset too (a critic is built before the first game);
        # state() itself goes through each layer (BaseWrapper.state), and OrderEnforcingWrapper's
        # refuses it before reset.
        return self._raw.state_space

    def last(self, observe: bool = True):
        # AECEnv.last, written out so that the per-step loop pays no extra call for the check, and
        # reading the bookkeeping from the unwrapped env directly. After the game, once every
        # agent has been stepped out, the emptied dicts raise KeyError: say why instead. Before
        # reset, reading agent_selection fails (OrderEnforcingWrapper's AttributeError): the raw
        # env's "call reset() first" ValueError instead.
        try:
            agent = self.agent_selection
        except AttributeError:
            raise self._raw._before_reset("last()") from None
        observation = self.observe(agent) if observe else None
        raw = self._raw
        try:
            return (
                observation,
                raw._cumulative_rewards[agent],
                raw.terminations[agent],
                raw.truncations[agent],
                raw.infos[agent],
            )
        except KeyError:
            raise raw._not_playing("last()") from None



for _name in _BOOKKEEPING:
    setattr(_DirectBookkeeping, _name, _forward(_name))


class TerminateIllegalWrapper(_DirectBookkeeping, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` with direct access to the AEC bookkeeping.

    After the masked action that ends the game, every reward is a float (PettingZoo's sets int
    zeros beside the offender's -1.0) and the offender's info says ``"illegal_action": True``, the
    key the Gymnasium view (``train.view``) uses.
    """

    def step(self, action) -> None:
        if self._terminated:  # already ended by an illegal action: the dead agents step out
            super().step(action)
            return
        raw = self._raw
        agent = raw.agent_selection
        super().step(action)
        if self._terminated:  # this action was the illegal one
            raw.rewards = {a: float(r) for a, r in raw.rewards.items()}
            info = raw.infos.get(agent)
            if info is not None:
                info["illegal_action"] = True


class AssertOutOfBoundsWrapper(_DirectBookkeeping, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with direct access to the AEC bookkeeping, and
    with the raw env's errors instead of an ``assert`` (which ``python -O`` strips, letting the
    action reach the mask as an index).

    An action outside the space (or ``None`` for an agent still playing) raises the
    :class:`~dice_envs.errors.IllegalActionError` the raw env raises for it; a terminated or
    truncated agent given an action other than ``None`` raises the raw env's error too.
    """

    def step(self, action) -> None:
        raw = self._raw
        try:
            agent = raw.agent_selection
            if action is None:
                ok = raw.terminations[agent] or raw.truncations[agent]
            else:
                ok = raw.action_space(agent).contains(action)
        except (AttributeError, KeyError):  # before reset, or every agent already stepped out
            raise raw._not_playing("step()") from None
        if not ok:
            raise _refusal(raw, agent, action)
        self.env.step(action)  # BaseWrapper.step: past PettingZoo's assert


def _refusal(raw: DiceGameEnv, agent: str, action) -> Exception:
    """The error ``raw.step(action)`` raises for an action outside the space, without stepping."""
    if raw.terminations[agent] or raw.truncations[agent]:
        try:
            raw._was_dead_step(action)  # raises for any action but None, before changing anything
        except IllegalActionError as exc:
            return exc
    try:
        raw.game._check_action(raw.game_state, action)
    except IllegalActionError as exc:
        return exc
    space = raw.action_space(agent)
    return IllegalActionError(f"action {action!r} is outside the action space {space}", action=action)


class OrderEnforcingWrapper(_DirectBookkeeping, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with direct access to the AEC bookkeeping.

    Before the first reset its reads go through an empty object, so they fail into the wrapper's
    own ``__getattr__`` and its "cannot be accessed before reset" error, as in PettingZoo.
    """

    def __init__(self, env):
        super().__init__(env)
        self._view = object()

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        self._view = self._raw

    # Before reset: the raw env's ValueError, where PettingZoo raises AssertionError.
    # step and observe are PettingZoo's, written out (no extra call on the per-step path).
    def step(self, action) -> None:
        if not self._has_reset:
            raise self._raw._before_reset("step()")
        self._has_updated = True
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self.env.step(action)

    def observe(self, agent):
        if not self._has_reset:
            raw = self._raw
            if type(agent) is not str or agent not in raw.possible_agents:
                raise raw._unknown_agent(agent)
            raise raw._before_reset(f"observe({agent!r})")
        return self.env.observe(agent)

    def state(self) -> np.ndarray:
        if not self._has_reset:
            raise self._raw._before_reset("state()")
        return super().state()

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            raise self._raw._before_reset("agent_iter()")
        return super().agent_iter(max_iter)

    def __str__(self) -> str:
        return str(self.env)  # as PettingZoo's own OrderEnforcingWrapper prints itself


def wrap(raw: DiceGameEnv):
    """PettingZoo's standard wrappers, as the classic envs apply them, in the subclasses above: the
    same behaviour with faster attribute forwarding, except that misuse raises the raw env's errors
    (:class:`~dice_envs.errors.IllegalActionError` for an action outside the space or ``None`` for
    an agent still playing; ``ValueError`` for ``step``, ``last``, ``observe``, ``state`` and
    ``agent_iter`` before reset) where PettingZoo's raise ``AssertionError``, and that the illegal
    action ending a game leaves float rewards and ``infos[offender]["illegal_action"] = True``."""
    env = TerminateIllegalWrapper(raw, illegal_reward=ILLEGAL_ACTION_REWARD)
    env = AssertOutOfBoundsWrapper(env)
    return OrderEnforcingWrapper(env)


def to_parallel(aec_env):
    """The env under PettingZoo's parallel API: ``turn_based_aec_to_parallel`` of the wrapped AEC env
    (each step takes an action for the one agent to act; the others' masks are all zeros). What
    ``pettingzoo.make("parallel", "dice/meyer-v0")`` and each module's ``parallel_env`` return."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    return turn_based_aec_to_parallel(aec_env)
