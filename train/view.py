"""A single-agent Gymnasium view of any dice-envs game, for single-agent learners (SB3, MaskablePPO).

One seat is the *learner*: the agent that calls :meth:`SingleAgentView.step`. Every other seat is
played by an agent drawn per episode from a weighted pool of *opponents* (agent SPEC
strings, checkpoint paths, or agent objects). Between two learner decisions the
view plays the opponents' moves and rolls the dice itself, so the learner sees only its own
decisions.

Conventions (each one designs away a known trap of training on turn-based PettingZoo games):

* **Spaces from the env.** ``observation_space`` is the env's ``observation`` Box, ``action_space``
  its ``Discrete``; the action mask is not in the observation but comes from :meth:`action_masks`
  (what sb3-contrib's ``MaskablePPO`` and its ``ActionMasker`` look for) and, the same booleans, as
  ``info["action_mask"]`` of every ``reset`` and ``step``, for loops of one's own and for vector
  envs: the env that ``gymnasium.make`` returns is wrapped, and Gymnasium's wrappers do not pass
  ``action_masks`` on (``env.unwrapped.action_masks()`` reaches it). Gymnasium's
  ``action_space.sample(mask=...)`` takes ``np.int8``: pass ``info["action_mask"].astype(np.int8)``
  (the PettingZoo envs' masks are int8 already).
* **Works with SB3's** ``make_vec_env``. It asks for ``render_mode="rgb_array"`` and falls back to
  no render mode only on a ``TypeError``; the view's error for a render mode it does not have
  (:class:`RenderModeError`) is a ``TypeError`` as well as a ``ValueError``.
* **Terminal rewards always reach the learner.** The reward of a step is the learner's C-3 return
  (docs/rules.md) when the game ends during that step, whoever's move or roll ended it, and 0 otherwise
  (plus the optional potential-based shaping below, which telescopes to 0 over an episode). So the
  undiscounted episode return is exactly the learner's C-3 return. A learner who is out of the
  game (Syvere's 77, Meyer's last life) never acts again: the view plays the game out and pays the
  final return on that same step.
* **Illegal actions end the episode.** An action outside the mask (Gymnasium's and SB3's env
  checkers sample unmasked actions) does not raise: the episode terminates with reward
  :data:`ILLEGAL_ACTION_PENALTY` (-1, the worst C-3 return) and ``info["illegal_action"] = True``:
  the episode's undiscounted return is -1, with or without shaping. An action outside the action
  space is still a ``ValueError``.
* **No empty masks.** At every observation the view returns the mask has at least one legal
  action. After the episode has ended :meth:`action_masks` returns all ones (no decision is
  pending; any action would be answered by the end-of-episode rule of Gymnasium).
* **Every game is an episode, so returns are not biased.** A game can be settled before the
  learner's first decision: Meyer with ``end="first_out"`` and three or more players ends at the
  first doubt, which may not involve the learner (with four players and one life about a third
  of the games in a random seat, half in seat 2, three quarters in seat 3); 10 000 with a small
  target or ``end="immediate"`` can end before the learner's first turn. Such a game is still one episode, of one step with nothing to decide: :meth:`reset` returns the
  learner's observation of the settled game with ``info["decision"] = False`` and a mask that
  allows only action 0, and the step that follows (any action in the space; it is ignored) pays
  the learner's C-3 return and terminates (truncates, if ``max_cycles`` ran out first). Replaying
  such games instead, as this view once did, conditions every measured return on the learner
  getting a turn (an outside review measured a mean return of -0.14 for random play against random
  play, whose true value is 0). The action is a formality: with a one-action mask a masked policy
  has nothing to learn from it. ``info["decision"]`` says whether the learner decides at the
  observation returned (``False`` there, and at the end of every episode).
  :data:`MAX_FORMAL_EPISODES` such episodes in a row (a seat the opponents never let decide) raise a ``RuntimeError`` from
  :meth:`reset` rather than train or evaluate on nothing.
* **Potential-based shaping (optional, off by default).** With ``shaping=c > 0`` each step adds
  ``Phi(s') - Phi(s)`` where ``Phi`` is ``c`` times the learner's standing against the mean of the
  other seats (:func:`standing`) less its value at the learner's first decision (so ``Phi = 0``
  there), measured at the learner's decisions, with ``Phi = 0`` at the end of the episode. With gamma = 1 this is potential-based shaping (Ng, Harada & Russell 1999): it
  cannot change which policy is optimal, and an episode's shaped return equals its C-3 return.

The view uses the rules engine directly (``env.unwrapped.game``), exactly as the PettingZoo env
does: observations are ``game.observe(state, seat)`` and the masks the engine's legal actions.

Example::

    >>> from train.view import make_meyer
    >>> env = make_meyer(opponents=["honest"], num_players=2)
    >>> obs, info = env.reset(seed=1)
    >>> bool(env.action_masks().any())
    True
"""

from __future__ import annotations

import os
import re
from typing import Any, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from dice_envs import dice as dice_mod
from dice_envs.env import check_options
from dice_envs.extras import import_own
from dice_envs.registry import env_module

#: Reward of an episode ended by an action outside the mask: the worst C-3 return.
ILLEGAL_ACTION_PENALTY = -1.0

#: The short names of the games this view knows.
GAMES = ("syvere", "tenthousand", "meyer")

#: The view's own arguments, besides the game's options (named when an unknown one is refused).
#: The most decisions the other seats may take within one step before the episode is truncated
#: (see :class:`SingleAgentView`'s ``max_cycles``).
MAX_OPPONENT_DECISIONS = 100_000
#: ``reset`` refuses to go on when this many games in a row were over before the learner's first
#: decision: a seat and opponents that never let the learner decide (a run would train on nothing).
MAX_FORMAL_EPISODES = 1000
VIEW_ARGUMENTS = ("opponents", "weights", "learner_seat", "shaping", "max_cycles", "render_mode")


def observation_layout_version(game: str) -> int:
    """The version of the env of ``game`` (``tenthousand_v1`` -> 1): the observation layout's version.

    Checkpoints record it, and refuse to load into an env of another version.
    """
    module = env_module(game).__name__
    match = re.search(r"_v(\d+)$", module)
    if match is None:
        raise ValueError(f"cannot read the version of env module {module!r}")
    return int(match.group(1))


def standing(game: Any, state: Any, seat: int) -> float:
    """The learner's public standing, about -1 .. 1: the potential of the optional reward shaping.

    Scores are points (Syvere: low is good, scaled by ``elimination``; 10 000: high is good, scaled
    by ``target``) or lives (Meyer, scaled by ``lives``); the standing is the seat's score minus the
    mean of the other seats' scores, signed so that higher is better.
    """
    scores = game.scores(state)
    n = len(scores)
    diff = scores[seat] - (sum(scores) - scores[seat]) / (n - 1)
    name = game.name
    if name == "syvere":
        return -diff / game.elimination
    if name == "tenthousand":
        return diff / game.target
    if name == "meyer":
        return diff / game.lives
    return 0.0


def resolve_agent(game_name: str, engine: Any, spec: Any, seed: int | None = None) -> Any:
    """Build an agent from a SPEC string (a checkpoint path among them), or return an agent as it is.

    Args:
        game_name: the short name of the game (named in error messages).
        engine: the rules engine the agent plays in.
        spec: a SPEC string (``honest``, ``bluffer:lie_probability=0.3``, a checkpoint path), or
            an object with an ``act(observation, action_mask)`` method.
        seed: seed of a newly built agent.
    """
    if hasattr(spec, "act"):
        from agents.base import check_fits

        check_fits(spec, engine, f"an opponent in {game_name}")  # built for this game and these options
        return spec
    if not isinstance(spec, (str, os.PathLike)):
        raise ValueError(
            f"an opponent in {game_name} must be a SPEC string, a checkpoint path or an agent, got {spec!r}"
        )
    # One SPEC parser for every command: agents.make_agent reads names, parameters and paths.
    return import_own("agents").make_agent(engine, os.fspath(spec), seed=seed)


class RenderModeError(ValueError, TypeError):
    """A render mode the view does not have. Also a ``TypeError``, so that SB3's ``make_vec_env``
    (which asks for ``"rgb_array"`` and retries without it on a ``TypeError``) builds the view."""


class SingleAgentView(gymnasium.Env):
    """One seat of a dice game as a Gymnasium env; the other seats are played by agents.

    Args:
        game: the game's short name: ``"syvere"``, ``"tenthousand"`` or ``"meyer"``.
        opponents: the pool the other seats are drawn from, once per seat per episode: SPEC
            strings, checkpoint paths or agent objects; a single one stands for a pool of one.
            Default ``["random"]``. A SPEC or path is built once per seat; an object is shared by
            every seat that draws it and every view it is given to, generator and all, so views in
            one process (a ``DummyVecEnv``) then play otherwise than in separate ones: pass SPECs
            or paths where runs must not depend on how the envs are vectorised.
        weights: the pool's drawing weights (any non-negative numbers, not all 0); default equal.
        learner_seat: the learner's seat, or ``None`` for a seat drawn uniformly each episode.
        shaping: scale ``c`` of the potential-based shaping (0 = off); see the module docstring.
        max_cycles: truncate after ``max_cycles * num_players`` actions of all seats (``None``:
            no limit); a truncated episode pays 0. An episode ends (terminated) as soon as the
            learner's return is settled (``engine.settled_return``: a Meyer learner out of lives),
            without playing the rest of the game. Whatever ``max_cycles`` is, a step in which the
            other seats take :data:`MAX_OPPONENT_DECISIONS` decisions without the learner's turn
            coming ends the episode truncated, with ``info["truncated_by"] = "opponents"``: ``step``
            never hangs (a safety net for custom games and agents; in the built-in games the
            learner's turn always comes while it is in the game).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the engine's text of the state; it
            shows every seat's dice, Meyer's hidden ones too: it is for debugging, not for play)
            or ``"human"`` (that text printed after every ``reset`` and ``step``).
        **options: the game's options (``num_players=4``, ``preset="dk"``, ...).

    Raises:
        RenderModeError: another render mode (a ``ValueError`` and a ``TypeError``).
        ValueError: an unknown game, bad options, opponents or weights.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        game: str,
        opponents: Sequence[Any] | None = None,
        weights: Sequence[float] | None = None,
        learner_seat: int | None = None,
        shaping: float = 0.0,
        max_cycles: int | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; choose from {', '.join(GAMES)}")
        if render_mode not in (None, "ansi", "human"):
            raise RenderModeError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        self.game_name = game
        self.options = dict(options)
        # An unknown name is refused with the view's own arguments listed beside the game's options;
        # the raw env then checks the values and declares the spaces.
        raw_class = env_module(game).raw_env
        check_options(raw_class.game_class, options, extras=VIEW_ARGUMENTS)
        raw = raw_class(**options)
        self.engine = raw.game
        self.engine.check_decisions(options)  # refused now, not at every reset()
        self.num_players = self.engine.num_players
        self.observation_space: spaces.Box = raw.observation_space("player_0")["observation"]
        self.action_space = spaces.Discrete(self.engine.num_actions)
        if learner_seat is not None and (
            isinstance(learner_seat, (bool, np.bool_))
            or not (isinstance(learner_seat, (int, np.integer)) and 0 <= learner_seat < self.num_players)
        ):
            raise ValueError(f"learner_seat must be None or a seat 0..{self.num_players - 1}, got {learner_seat!r}")
        self.learner_seat = None if learner_seat is None else int(learner_seat)
        if isinstance(shaping, bool) or not (isinstance(shaping, (int, float, np.integer, np.floating)) and shaping >= 0):
            raise ValueError(f"shaping must be a number >= 0, got {shaping!r}")
        self.shaping = float(shaping)
        if max_cycles is not None and (
            isinstance(max_cycles, (bool, np.bool_)) or not (isinstance(max_cycles, (int, np.integer)) and max_cycles >= 1)
        ):
            raise ValueError(f"max_cycles must be None or an int >= 1, got {max_cycles!r}")
        self.max_cycles = None if max_cycles is None else int(max_cycles)
        self.render_mode = render_mode
        self._agent_cache: dict[tuple[int, int], Any] = {}
        self.set_opponents(["random"] if opponents is None else opponents, weights)
        self._rng = np.random.default_rng()
        self._dice = dice_mod.DiceStream(self._rng)
        self.state = None
        self.seat = 0
        self.seat_agents: list[Any] = []
        self.seat_specs: list[int | None] = []
        self._done = True
        self._potential = 0.0
        self._start_standing = 0.0
        self._actions = 0
        self._truncated_by: str | None = None  # why _advance truncated the episode, for info
        self._all_ones = np.ones(self.engine.num_actions, dtype=bool)
        self._mask_of = None  # the state whose legal actions self._mask holds
        self._mask = self._all_ones
        # (return, truncated) of a game over before the learner's turn; None while a decision is pending
        self._settled: tuple[float, bool] | None = None
        self._formal_mask = np.zeros(self.engine.num_actions, dtype=bool)
        self._formal_mask[0] = True
        self._formal_in_a_row = 0  # episodes in a row with nothing to decide (MAX_FORMAL_EPISODES)

    # -- the opponent pool --------------------------------------------------------------------
    def set_opponents(self, opponents: Sequence[Any], weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool (from the next episode on); agents are built once and kept.

        Args:
            opponents: SPEC strings, checkpoint paths or agent objects (a single one: a pool of one).
            weights: drawing weights, one per opponent; default equal.
        """
        if isinstance(opponents, (str, os.PathLike)) or hasattr(opponents, "act"):
            opponents = [opponents]  # one SPEC, path or agent (a string is not a pool of letters)
        opponents = list(opponents)
        if not opponents:
            raise ValueError("opponents must name at least one agent")
        if weights is None:
            weights = [1.0] * len(opponents)
        given = list(weights)
        drawn = np.asarray(given, dtype=float)
        if drawn.shape != (len(opponents),) or (drawn < 0).any() or drawn.sum() <= 0:
            raise ValueError(
                f"weights must be one non-negative number per opponent ({len(opponents)}), not all 0, got {given}"
            )
        # Keep built agents of specs still in the pool, so that a growing pool does not reload them.
        old = getattr(self, "opponents", [])
        keep = {}
        for (index, seat), agent in self._agent_cache.items():
            spec = old[index]
            if isinstance(spec, str) and spec in opponents:
                keep[(opponents.index(spec), seat)] = agent
        for index, spec in enumerate(opponents):  # fail now, not in the middle of training
            if not hasattr(spec, "act") and not isinstance(spec, (str, os.PathLike)):
                raise ValueError(f"an opponent must be a SPEC string, a checkpoint path or an agent, got {spec!r}")
            if not hasattr(spec, "act") and not any(key[0] == index for key in keep):
                # Built once and dropped: a mistyped name, a bad parameter or a missing checkpoint
                # is refused here, not when the pool first draws it, maybe hours into a run.
                resolve_agent(self.game_name, self.engine, spec, 0)
        # Only a pool that passed replaces the old one.
        self._agent_cache = keep
        self.opponents = opponents
        self.weights = drawn / drawn.sum()

    def _agent(self, index: int, seat: int) -> Any:
        key = (index, seat)
        agent = self._agent_cache.get(key)
        if agent is None:
            # Not drawn from self._rng: building an agent (first episode only) must not shift the
            # episode's random stream; reset() re-seeds every agent's generator each episode.
            agent = self._agent_cache[key] = resolve_agent(
                self.game_name, self.engine, self.opponents[index], 1000 * index + seat
            )
        return agent

    # -- Gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game: draw the learner's seat (unless fixed) and the opponents, and play
        until the learner's first decision.

        Args:
            seed: re-seeds the dice, the seat and opponent draws and the opponents' generators.
            options: may hold ``{"learner_seat": s, "opponents": [index per seat]}`` to fix this
                episode's seating (the evaluation uses it): ``s`` a seat, and one index into the
                pool for every seat, the learner's included (any valid index there; it is not used);
                ``None`` otherwise.

        Raises:
            ValueError: an unknown key in ``options``, a seat out of range, or ``opponents`` that
                is not one pool index per seat.
        """
        if isinstance(seed, np.integer) and not isinstance(seed, bool):
            seed = int(seed)  # a numpy int (drawn with a Generator, say): Gymnasium takes only Python's
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._dice = dice_mod.DiceStream(self._rng)
        seat, fixed = self._seating(options or {})
        n = self.num_players
        self.seat = int(self._rng.integers(n)) if seat is None else seat
        self.seat_specs = [None] * n
        self.seat_agents = [None] * n
        for s in range(n):
            if s == self.seat:
                continue
            index = int(fixed[s]) if fixed is not None else int(self._rng.choice(len(self.opponents), p=self.weights))
            agent = self._agent(index, s)
            if hasattr(agent, "reset"):
                agent.reset(seed=int(self._rng.integers(2**31)))
            if hasattr(agent, "set_seat"):  # the optional seat hook (agents.base.Agent.set_seat)
                agent.set_seat(s)
            self.seat_specs[s] = index
            self.seat_agents[s] = agent
        self.state = self.engine.initial_state()
        self._actions = 0
        self._truncated_by = None
        self._done = False
        # A game settled before the learner's first decision is an episode of one formal step.
        self._settled = self._advance()
        others = ", ".join(str(self.opponents[i]) for i in self.seat_specs if i is not None)
        if self._truncated_by == "opponents":
            raise RuntimeError(
                f"the other seats ({others}) took {MAX_OPPONENT_DECISIONS} decisions before the learner's first "
                "turn: they may never end the game"
            )
        self._formal_in_a_row = self._formal_in_a_row + 1 if self._settled is not None else 0
        if self._formal_in_a_row >= MAX_FORMAL_EPISODES:
            raise RuntimeError(
                f"{MAX_FORMAL_EPISODES} games in a row were over before the learner's first turn (learner in seat "
                f"{self.seat}, other seats {others}): the learner never gets to decide here; give it another seat "
                "(learner_seat) or other opponents"
            )
        # Phi is measured from the standing at the learner's first decision, so it starts at 0 and
        # the shaping of an episode adds up to exactly 0 (a constant shift of Phi changes nothing).
        self._start_standing = 0.0
        self._start_standing = self._phi()
        self._potential = 0.0
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def _seating(self, options: dict) -> tuple[int | None, list[int] | None]:
        """``(learner_seat, opponents)`` of ``reset``'s options, checked before anything is drawn."""
        unknown = sorted(set(options) - {"learner_seat", "opponents"})
        if unknown:
            raise ValueError(f"unknown reset option {unknown[0]!r}; options are: learner_seat, opponents")
        n = self.num_players
        seat = options.get("learner_seat", self.learner_seat)
        if seat is not None and not (
            isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and 0 <= seat < n
        ):
            raise ValueError(f"learner_seat must be None or a seat 0..{n - 1}, got {seat!r}")
        fixed = options.get("opponents")
        if fixed is None:
            return (None if seat is None else int(seat)), None
        pool = len(self.opponents)
        if isinstance(fixed, (str, bytes)) or not hasattr(fixed, "__len__") or len(fixed) != n or not all(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool) and 0 <= i < pool for i in fixed
        ):
            raise ValueError(
                f"the opponents option must be {n} indices into the pool of {pool} (one per seat), got {fixed!r}"
            )
        return (None if seat is None else int(seat)), [int(i) for i in fixed]

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        result = self._step(action)
        if self.render_mode == "human":
            self.render()
        return result

    def _step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            if self.state is None:
                raise RuntimeError("step() before reset(): call reset() first")
            raise RuntimeError("step() after the end of the episode: call reset()")
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is outside the action space {self.action_space}")
        action = int(action)
        engine = self.engine
        if self._settled is not None:  # nothing to decide: the game was over before the learner's turn
            self._done = True
            final, truncated = self._settled
            self._settled = None
            info = self._info()
            info["decision"] = False
            info["learner_return"] = final
            return self._obs(), final - self._potential, not truncated, truncated, info
        if action not in engine.legal_actions(self.state):
            self._done = True
            info = self._info()
            info["illegal_action"] = True
            info["learner_return"] = ILLEGAL_ACTION_PENALTY
            # Less the shaping paid so far, as at any end (Phi = 0 there): the return is the penalty.
            return self._obs(), ILLEGAL_ACTION_PENALTY - self._potential, True, False, info
        self.state = engine.apply_action(self.state, action)
        self._actions += 1
        outcome = self._advance()
        if outcome is None:
            phi = self._phi()
            reward = phi - self._potential
            self._potential = phi
            return self._obs(), reward, False, False, self._info()
        self._done = True
        final, truncated = outcome
        # Phi is 0 at the end: the shaping terms of the episode add up to 0.
        reward = final - self._potential
        info = self._info()
        info["learner_return"] = final
        if self._truncated_by is not None:
            info["truncated_by"], self._truncated_by = self._truncated_by, None
        return self._obs(), reward, not truncated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (all ones when no decision is pending)."""
        if self._done:
            return self._all_ones.copy()
        if self._settled is not None:
            return self._formal_mask.copy()
        if self._mask_of is not self.state:  # once per decision: info["action_mask"] and the learner ask
            self._mask = np.zeros(self.engine.num_actions, dtype=bool)
            self._mask[self.engine.legal_actions(self.state)] = True
            self._mask_of = self.state
        return self._mask.copy()

    def render(self) -> Any:  # (the text of an "ansi" view, else None)
        if self.render_mode is None or self.state is None:
            return None
        text = self.engine.render(self.state)
        if self.render_mode == "human":
            print(text, flush=True)
            return None
        return text

    # -- internals ----------------------------------------------------------------------------
    def _roll(self) -> None:
        engine = self.engine
        state = self.state
        while k := engine.num_dice_to_roll(state):
            state = engine.apply_chance(state, self._dice.roll(k))
        self.state = state

    def _advance(self) -> tuple[float, bool] | None:
        """Roll and play the other seats until the learner must act or the game ends.

        Returns ``None`` at a learner decision, else ``(learner's return, truncated)``.
        """
        engine = self.engine
        limit = None if self.max_cycles is None else self.max_cycles * self.num_players
        others = 0
        while True:
            self._roll()
            state = self.state
            settled = engine.settled_return(state, self.seat)
            if settled is not None:  # the game is over, or nothing left in it can change the return
                return float(settled), False
            if limit is not None and self._actions >= limit:
                return 0.0, True
            player = engine.current_player(state)
            if player == self.seat:
                return None
            if others >= MAX_OPPONENT_DECISIONS:
                self._truncated_by = "opponents"
                return 0.0, True
            others += 1
            legal = engine.legal_actions(state)
            mask = np.zeros(engine.num_actions, dtype=np.int8)
            mask[legal] = 1
            action = int(self.seat_agents[player].act(engine.observe(state, player), mask))
            self.state = engine.apply_action(state, action)
            self._actions += 1

    def _phi(self) -> float:
        if not self.shaping:
            return 0.0
        return self.shaping * standing(self.engine, self.state, self.seat) - self._start_standing

    def _obs(self) -> np.ndarray:
        return np.asarray(self.engine.observe(self.state, self.seat), dtype=np.float32)

    def _info(self) -> dict:
        return {"learner_seat": self.seat, "opponents": list(self.seat_specs), "action_mask": self.action_masks(),
                "decision": self._settled is None and not self._done}  # fmt: skip


def make_syvere(**kwargs: Any) -> SingleAgentView:
    """The single-agent view of Syvere (``gymnasium.make("dice/Syvere-v0", ...)``)."""
    return SingleAgentView("syvere", **kwargs)


def make_tenthousand(**kwargs: Any) -> SingleAgentView:
    """The single-agent view of 10 000 (``gymnasium.make("dice/TenThousand-v0", ...)``)."""
    return SingleAgentView("tenthousand", **kwargs)


def make_meyer(**kwargs: Any) -> SingleAgentView:
    """The single-agent view of Meyer (``gymnasium.make("dice/Meyer-v0", ...)``)."""
    return SingleAgentView("meyer", **kwargs)
