"""Syvere agents: a stop-threshold heuristic."""

import numpy as np

from agents.base import DeterministicAgent, legal_of
from dice_envs.games import syvere


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


class SyvereHeuristic(DeterministicAgent):
    """Stop when the dice left are low enough for the rolls left (SY-4, SY-6).

    Deterministic: :meth:`action_probabilities` puts probability 1 on the action :meth:`act`
    returns.

    After a roll the agent knows the sum of the remaining dice (what the turn scores if it stops)
    and how many rolls the round's limit still allows. It stops when that sum is at most
    ``stop_at[rolls_left - 1]``; with more rolls left it is pickier, because a later roll can
    still improve a bad hand. The round's starter sets everyone's roll limit (SY-6), so a starter
    with a decent hand stops ``starter_margin`` points earlier to leave the others fewer rolls.

    The defaults come from the exact expected score of one more roll with k dice and one roll
    left, 3.5 (k=1) .. 11.3 (k=6), rounded to a single threshold, and the same with two rolls
    left, 2.8 .. 7.2 (computed from ``dice.chance_outcomes``; see ``tests/test_agents.py``).

    Args:
        stop_at: stop thresholds for 1, 2, 3, ... rolls left; the last entry serves for more.
        starter_margin: extra points a round's starter accepts before stopping.
    """

    name = "heuristic"

    def __init__(
        self,
        game: syvere.Game,
        seed: int | None = None,
        stop_at: tuple[int, ...] = (7, 4),
        starter_margin: int = 1,
    ):
        super().__init__(game, seed)
        if not isinstance(game, syvere.Game):
            raise ValueError(f"SyvereHeuristic plays syvere, not {getattr(game, 'name', game)!r}")
        stop_at = tuple(stop_at) if isinstance(stop_at, (tuple, list, np.ndarray)) else (stop_at,)
        if not stop_at or not all(_is_number(x) for x in stop_at):
            raise ValueError(f"stop_at must be one or more numbers (for 1, 2, ... rolls left), got {stop_at!r}")
        if not _is_number(starter_margin):
            raise ValueError(f"starter_margin must be a number, got {starter_margin!r}")
        self.stop_at = stop_at
        self.starter_margin = starter_margin
        n = game.num_players
        self._k = 3 * n  # start of the turn block in the observation (see syvere_v0)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        k = self._k
        rolls, limit = int(observation[k]), int(observation[k + 1])
        remaining_sum = observation[k + 9]
        rolls_left = limit - rolls
        threshold = self.stop_at[min(rolls_left, len(self.stop_at)) - 1]
        if observation[k + 10]:  # this player started the round
            threshold += self.starter_margin
        action = syvere.STOP if remaining_sum <= threshold else syvere.ROLL
        if not action_mask[action]:
            return int(legal_of(action_mask, "SyvereHeuristic.act")[0])
        return action
