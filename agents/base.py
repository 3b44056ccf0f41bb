"""The agent protocol: a policy over the legal actions, from an observation and an action mask.

Every agent is built as ``AgentClass(game, seed=None, **params)`` where ``game`` is the rules
engine of the env it plays in (``env.unwrapped.game``), so that an agent can read the layout of the
game's observation vector. It acts only from what the env gives the player — the observation and
the action mask — never from the hidden state.

An agent is a policy, and says so in two ways that always agree:

* :meth:`Agent.action_probabilities` gives the whole distribution over the action space
  (float64, length ``game.num_actions``, summing to 1, exactly 0 on masked actions), computed,
  never estimated: exploitability and tournaments read it;
* :meth:`Agent.act` draws one action from that distribution with the agent's own generator
  ``self.rng`` — or, for a deterministic agent (probability 1 on one action), returns that action
  without touching the generator.

Every parameter of an agent's ``__init__`` after ``game`` and ``seed`` carries a type annotation
(``int``, ``float``, ``bool``, ``Fraction``, ``tuple[int, ...]`` or ``str``): the SPEC parser
(``agents.spec``) reads them to turn ``NAME:KEY=VALUE`` text into arguments. The agent modules do
not use ``from __future__ import annotations``, so the annotations are the types themselves.

Example:
    >>> import numpy as np
    >>> from dice_envs.games import syvere
    >>> agent = RandomAgent(syvere.Game(), seed=0)
    >>> agent.action_probabilities(None, np.array([1, 1], dtype=np.int8))
    array([0.5, 0.5])
    >>> agent.act(None, np.array([0, 1], dtype=np.int8))
    1
"""

import inspect

import numpy as np

from dice_envs.games.base import Game


def legal_of(action_mask: np.ndarray, who: str) -> np.ndarray:
    """The legal action ids of a mask; ``ValueError`` naming ``who`` if there is none."""
    legal = np.flatnonzero(action_mask)
    if len(legal) == 0:
        raise ValueError(f"{who}: the action mask has no legal action")
    return legal


def check_seed(seed, who: str) -> int | None:
    """``seed`` if it is ``None`` or a whole number >= 0 (what numpy's generators take), else a
    ``ValueError`` naming ``who``."""
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)) and seed >= 0):
        return None if seed is None else int(seed)
    raise ValueError(f"{who}: a seed is a whole number >= 0 or None, got {seed!r}")


def check_fits(agent, game: Game, where: str) -> None:
    """Refuse an agent object built for another game, or for other options of it, than ``game``.

    An agent reads the observation by the layout of the engine it was built on (``agent.game``);
    in a game of other options (more players, other lives) it would read the wrong numbers, play
    on silently or fail deep inside. Objects without a ``game`` of their own (a user's agent
    that reads nothing of the layout) pass.

    Args:
        agent: the agent object.
        game: the engine of the game it is to play.
        where: what asks (``"play_match"``), for the message.

    Raises:
        dice_envs.errors.InvalidSpecError: (a ``ValueError``) naming what differs and how to build it.
    """
    from dice_envs.errors import InvalidSpecError

    own = getattr(agent, "game", None)
    if own is game or not isinstance(own, Game):  # no engine of its own (a user's attribute): nothing to check
        return
    hint = "build it for this game's engine, e.g. agents.make_agent(env.unwrapped.game, SPEC)"
    if own.name != game.name:
        raise InvalidSpecError(f"{where}: {type(agent).__name__} was built for {own.name}, not {game.name}; {hint}")
    if not getattr(agent, "reads_observation", True):  # it reads the mask alone: the action ids must agree
        if own.num_actions != game.num_actions:
            raise InvalidSpecError(f"{where}: {type(agent).__name__} was built for {own.num_actions} actions, this game "
                                   f"has {game.num_actions}; {hint}")  # fmt: skip
        return
    ours, theirs = game.option_values(), own.option_values()
    # A preset's name is only a name: the same rules under another one (or none) are the same game.
    differ = [f"{k}={theirs.get(k)!r} (this game: {ours.get(k)!r})" for k in ours
              if k != "preset" and ours.get(k) != theirs.get(k)]  # fmt: skip
    if differ:
        raise InvalidSpecError(
            f"{where}: {type(agent).__name__} was built for {game.name} with {', '.join(differ)}; {hint}"
        )


def one_hot(num_actions: int, action: int) -> np.ndarray:
    """The distribution that puts probability 1 on ``action``."""
    probabilities = np.zeros(num_actions, dtype=np.float64)
    probabilities[action] = 1.0
    return probabilities


def sample_action(rng: np.random.Generator, probabilities: np.ndarray) -> int:
    """One action drawn from ``probabilities`` with one uniform number from ``rng``.

    Inverse-CDF sampling over the actions of positive probability only, so that rounding in the
    cumulative sum can never land on an action of probability 0.

    Args:
        rng: the generator to draw from.
        probabilities: a distribution over the action space (non-negative, summing to 1).

    Returns:
        The action id drawn.
    """
    support = np.flatnonzero(probabilities > 0)
    if len(support) == 0:
        raise ValueError("sample_action: the distribution has no action of positive probability")
    if len(support) == 1:
        return int(support[0])
    cdf = np.cumsum(probabilities[support])
    i = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
    return int(support[min(i, len(support) - 1)])


class Agent:
    """Base class of all agents.

    Subclasses implement :meth:`action_probabilities`; the default :meth:`act` samples from it.
    A subclass may override :meth:`act` with a faster path, provided it draws from exactly the
    same distribution (deterministic agents: see :class:`DeterministicAgent`).

    Before each game a runner calls :meth:`reset`, then :meth:`set_seat` with the agent's seat in
    that game (tournaments, on Ray too, and ``match`` through ``evaluate.tournament.play_game``;
    the Gymnasium view for its opponents, a training run's teacher, and ``dice-envs play`` for the
    agents at the other seats). The seat is what the observation
    may not show (in 10 000 under ``finish_round``, whether the agent started the round); the
    default ignores it, and an agent that uses it holds it for that game only, until the next
    :meth:`reset`. A runner of agents without these methods (any object with ``act``) calls them
    only where they exist.

    Args:
        game: the engine of the env the agent plays in.
        seed: seed of the agent's own random generator (agents never use global random state).
    """

    #: Short name used in tournaments and on the command line.
    name = "agent"

    def __init__(self, game: Game, seed: int | None = None):
        self.game = game
        self.rng = np.random.default_rng(check_seed(seed, type(self).__name__))

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; a given seed re-seeds the agent's generator.

        A subclass that keeps state during a game clears it here (and calls this method): the
        tournament resets each agent before every game, and its results do not depend on the
        number of workers or on a resume only if nothing carries over from earlier games.
        """
        if seed is not None:
            self.rng = np.random.default_rng(check_seed(seed, f"{type(self).__name__}.reset"))

    def set_seat(self, seat: int) -> None:
        """Be told the seat this agent plays in the game about to start (after :meth:`reset`).

        Optional knowledge: nothing here uses it. An agent whose play depends on its seat and that
        would otherwise infer it from its observations (``winprob`` in 10 000's ``dk`` rounds)
        overrides this and uses the seat until the next :meth:`reset`. A runner that does not
        know the seat does not call it, so an agent must still play without it.
        """

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The agent's policy at this observation.

        Args:
            observation: the player's observation vector.
            action_mask: 1 for the legal actions, 0 for the others (length ``game.num_actions``).

        Returns:
            float64 probabilities of length ``game.num_actions``, summing to 1, exactly 0 where
            ``action_mask`` is 0.
        """
        raise NotImplementedError

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Choose a legal action id (``action_mask[a] == 1``): a draw from
        :meth:`action_probabilities` with ``self.rng``."""
        return sample_action(self.rng, self.action_probabilities(observation, action_mask))

    def check_mask(self, action_mask: np.ndarray) -> None:
        """``ValueError`` unless the mask has one entry per action and a legal action."""
        if np.shape(action_mask) != (self.game.num_actions,):
            raise ValueError(
                f"{type(self).__name__}: the action mask must have shape ({self.game.num_actions},), "
                f"got {np.shape(action_mask)}"
            )
        legal_of(action_mask, type(self).__name__)

    def __repr__(self) -> str:
        """The class and the parameters its constructor took (those it keeps under their own names)."""
        shown = []
        for name, parameter in inspect.signature(type(self).__init__).parameters.items():
            if name in ("self", "game", "seed") or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            if name in vars(self):
                shown.append(f"{name}={vars(self)[name]!r}")
        return f"{type(self).__name__}({', '.join(shown)})"


class DeterministicAgent(Agent):
    """An agent that puts probability 1 on one action in every situation.

    Subclasses implement :meth:`act` (without using ``self.rng``); :meth:`action_probabilities`
    is the one-hot distribution of the action it returns, so the two agree by construction.
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NotImplementedError

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        self.check_mask(action_mask)
        return one_hot(self.game.num_actions, self.act(observation, action_mask))


class RandomAgent(Agent):
    """Uniformly random legal actions.

    :meth:`act` draws a uniform index into the legal actions directly (one generator call, the
    fastest draw from the uniform distribution that :meth:`action_probabilities` returns).
    """

    name = "random"
    #: It reads the action mask alone, never the observation (:func:`check_fits`).
    reads_observation = False

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        self.check_mask(action_mask)
        legal = np.flatnonzero(action_mask)
        probabilities = np.zeros(self.game.num_actions, dtype=np.float64)
        probabilities[legal] = 1.0 / len(legal)
        return probabilities

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_of(action_mask, "RandomAgent.act")
        return int(legal[self.rng.integers(len(legal))])
