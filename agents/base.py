"""The agent protocol: act from an observation and an action mask.

Every agent is built as ``AgentClass(game, seed=None, **params)`` where ``game`` is the rules
engine of the env it plays in (``env.unwrapped.game``), so that an agent can read the layout of the
game's observation vector. It acts only from what the env gives the player — the observation and
the action mask — never from the hidden state.
"""

from __future__ import annotations

import numpy as np

from dice_envs.games.base import Game


class Agent:
    """Base class of all agents.

    Args:
        game: the engine of the env the agent plays in.
        seed: seed of the agent's own random generator (agents never use global random state).
    """

    #: Short name used in tournaments and on the command line.
    name = "agent"

    def __init__(self, game: Game, seed: int | None = None):
        self.game = game
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; a given seed re-seeds the agent's generator."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Choose a legal action id (``action_mask[a] == 1``)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class RandomAgent(Agent):
    """Uniformly random legal actions."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action")
        return int(legal[self.rng.integers(len(legal))])
