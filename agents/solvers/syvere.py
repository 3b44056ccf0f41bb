"""Syvere, one turn: the policy that minimises the expected turn score, exactly (issue 8, item 2).

A Syvere turn (SY-3..SY-6) is a short stopping problem. After a roll the player holds the
*remaining* dice (pairs summing to 7 were set aside by rule) and either stops, scoring their sum,
or rolls them all again. What a roll of ``k`` dice is worth with ``r`` rolls left (counting that
roll) does not depend on the sum now held, so the whole policy is one small table, computed by
dynamic programming over (dice left, rolls left) with the engine's exact chance outcomes::

    roll_value(k, r) = sum over rolls of k dice, p(roll) * after(remaining(roll), r - 1)
    after(rem, 0)    = sum(rem)                        (the limit is reached: the turn ends)
    after((), r)     = 0                               (no dice left: the turn ends)
    after(rem, r)    = min(sum(rem), roll_value(len(rem), r))

and the policy after a roll is: stop when the sum held is at most ``roll_value(dice left, rolls
left)`` (ties stop: the same expected score, and a starter who stops sooner leaves the others fewer
rolls). Every value is an exact :class:`fractions.Fraction`. The turn's expected score under roll
limit ``L`` is ``roll_value(6, L)`` (a turn begins with a roll of all six dice).

The game is read through the engine contract only: :meth:`Game.chance_outcomes` lists the rolls
with their probabilities, :meth:`Game.apply_chance` sets the pairs aside and says whether the turn
ended by itself (no dice left or the limit reached), and :meth:`Game.scores` gives what a stop
scores.

Values (limit 1, 2, 3): 1631/144 = 11.3264, 8059277/1119744 = 7.1974 and
269633296219/52242776064 = 5.1612 points.

Example:
    >>> from fractions import Fraction
    >>> solution = solve()
    >>> float(solution.turn_values[1]) == float(roll_value(6, 1))
    True
    >>> solution.stop_threshold(1, 1)  # one die left, one roll left: a roll is worth 3.5
    3
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from agents.base import Agent
from dice_envs.games import syvere

SOLVER = "syvere-turn"
VERSION = 1
NUM_DICE = syvere.NUM_DICE


# -- the engine as a one-turn model ----------------------------------------------------------
@lru_cache(maxsize=None)
def _turn_game(limit: int) -> syvere.Game:
    """A two-player game whose round starter (seat 0) may roll ``limit`` times."""
    return syvere.Game(num_players=2, max_rolls=limit)


@lru_cache(maxsize=None)
def _roll_results(k: int) -> tuple[tuple[Fraction, tuple[int, ...]], ...]:
    """``((probability, remaining dice), ...)`` of one roll of ``k`` dice, merged by what remains.

    Read from the engine: a starter's state with ``k`` dice to roll and a limit high enough that the
    roll cannot end the turn, so the state after the roll shows the dice the rules leave.
    """
    game = _turn_game(NUM_DICE + 1)
    state = game.initial_state()._replace(rolls=1, to_roll=k, remaining=(0,) * k)
    merged: dict[tuple[int, ...], Fraction] = {}
    for dice, p in game.chance_outcomes(state):
        after = game.apply_chance(state, dice)
        # An empty remainder ends the turn (SY-4); the engine then scores 0 and moves on.
        remaining = after.remaining if after.to_roll == 0 and after.turn == 0 else ()
        merged[remaining] = merged.get(remaining, Fraction(0)) + p
    return tuple((p, rem) for rem, p in sorted(merged.items()))


@lru_cache(maxsize=None)
def roll_value(k: int, rolls_left: int) -> Fraction:
    """Exact expected turn score of rolling ``k`` dice with ``rolls_left`` rolls left, played optimally.

    Args:
        k: dice to roll, 1..6.
        rolls_left: rolls the limit still allows, counting this one (>= 1).

    Raises:
        ValueError: ``k`` outside 1..6 or ``rolls_left`` below 1.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= NUM_DICE:
        raise ValueError(f"k (dice to roll) must be an integer in 1..{NUM_DICE}, got {k!r}")
    if isinstance(rolls_left, bool) or not isinstance(rolls_left, (int, np.integer)) or rolls_left < 1:
        raise ValueError(f"rolls_left must be an integer >= 1, got {rolls_left!r}")
    total = Fraction(0)
    for p, remaining in _roll_results(int(k)):
        total += p * _after(remaining, int(rolls_left) - 1)
    return total


def _after(remaining: tuple[int, ...], rolls_left: int) -> Fraction:
    """Expected final score holding ``remaining`` with ``rolls_left`` rolls left, played optimally."""
    held = Fraction(sum(remaining))
    if not remaining or rolls_left == 0:
        return held
    return min(held, roll_value(len(remaining), rolls_left))


def should_stop(dice_left: int, held_sum: int, rolls_left: int) -> bool:
    """The optimal decision after a roll: stop (``True``) or roll the remaining dice again.

    Args:
        dice_left: remaining dice, 1..6.
        held_sum: their sum (what a stop scores).
        rolls_left: rolls the limit still allows (>= 1; at 0 the turn has already ended).
    """
    return held_sum <= roll_value(dice_left, rolls_left)


@dataclass(frozen=True)
class StarterRow:
    """One row of the starter's trade-off (SY-6: the starter's rolls set the others' limit).

    Attributes:
        rolls: how many times the starter rolled (1, 2, 3, ...): the limit it leaves the others.
        probability: how likely an optimal starter (limit ``max_rolls``) ends after that many rolls.
        starter_score: the starter's expected turn score given that it ended after that many rolls.
        others_score: each other player's expected turn score under that limit, played optimally.
    """

    rolls: int
    probability: Fraction
    starter_score: Fraction
    others_score: Fraction


@dataclass(frozen=True)
class LimitRow:
    """A starter that plays the optimal turn for a self-imposed limit ``plan`` (at most ``plan`` rolls).

    Attributes:
        plan: the most rolls the starter allows itself.
        starter_score: its expected turn score (``roll_value(6, plan)``).
        limit_distribution: probability that it leaves the others the limit 1, 2, ..., ``plan``.
        others_score: each other player's expected turn score under the limit it leaves.
    """

    plan: int
    starter_score: Fraction
    limit_distribution: tuple[Fraction, ...]
    others_score: Fraction


def _rolls_made(k: int, rolls_left: int, made: int) -> dict[int, tuple[Fraction, Fraction]]:
    """Under the optimal policy from "about to roll ``k`` dice, ``rolls_left`` left, ``made`` made":
    for each final number of rolls, ``(probability, probability-weighted final score)``."""
    out: dict[int, tuple[Fraction, Fraction]] = {}

    def add(rolls: int, p: Fraction, weighted: Fraction) -> None:
        q, w = out.get(rolls, (Fraction(0), Fraction(0)))
        out[rolls] = (q + p, w + weighted)

    for p, remaining in _roll_results(k):
        left = rolls_left - 1
        if not remaining or left == 0 or should_stop(len(remaining), sum(remaining), left):
            add(made + 1, p, p * sum(remaining))
        else:
            for rolls, (q, w) in _rolls_made(len(remaining), left, made + 1).items():
                add(rolls, p * q, p * w)
    return out


def starter_tradeoff(max_rolls: int = 3) -> list[StarterRow]:
    """How an optimal starter's turn ends, and the limit each ending leaves the others (SY-6).

    A starter that stops after fewer rolls accepts a worse hand but holds every other player of the
    round to as few rolls; this table puts the two side by side.
    """
    ends = _rolls_made(NUM_DICE, max_rolls, 0)
    rows = []
    for rolls in range(1, max_rolls + 1):
        p, weighted = ends.get(rolls, (Fraction(0), Fraction(0)))
        rows.append(StarterRow(rolls, p, weighted / p if p else Fraction(0), roll_value(NUM_DICE, rolls)))
    return rows


def planned_limits(max_rolls: int = 3) -> list[LimitRow]:
    """For a starter that caps itself at 1, 2, ... rolls: its expected score and what it leaves the others."""
    rows = []
    for plan in range(1, max_rolls + 1):
        ends = _rolls_made(NUM_DICE, plan, 0)
        dist = tuple(ends.get(j, (Fraction(0), Fraction(0)))[0] for j in range(1, plan + 1))
        others = sum((q * roll_value(NUM_DICE, j) for j, q in enumerate(dist, start=1)), Fraction(0))
        rows.append(LimitRow(plan, roll_value(NUM_DICE, plan), dist, others))
    return rows


@dataclass(frozen=True)
class Solution:
    """The solved one-turn problem for roll limits 1..``max_rolls``.

    Attributes:
        max_rolls: the largest roll limit solved.
        roll_values: ``roll_values[(k, r)]``: a roll of ``k`` dice with ``r`` rolls left, exact.
        turn_values: ``turn_values[L]``: the expected turn score under limit ``L`` (= ``roll_values[(6, L)]``).
    """

    max_rolls: int
    roll_values: dict[tuple[int, int], Fraction]
    turn_values: dict[int, Fraction]

    def stop_threshold(self, dice_left: int, rolls_left: int) -> int:
        """The largest held sum at which the optimal policy stops (it stops at and below it)."""
        return int(self.roll_values[(dice_left, rolls_left)])  # floor: sums are whole numbers

    def table(self) -> dict[str, np.ndarray]:
        """The policy table as arrays (for the cache): values as exact numerator/denominator pairs."""
        ks, rs = np.arange(1, NUM_DICE + 1), np.arange(1, self.max_rolls + 1)
        vals = [[self.roll_values[(k, r)] for r in rs] for k in ks]
        return {
            "numerator": np.array([[v.numerator for v in row] for row in vals], dtype=np.int64),
            "denominator": np.array([[v.denominator for v in row] for row in vals], dtype=np.int64),
            "stop_threshold": np.array([[int(v) for v in row] for row in vals], dtype=np.int64),
        }

    @classmethod
    def from_table(cls, table: dict[str, np.ndarray]) -> "Solution":
        """Rebuild a solution from :meth:`table`'s arrays."""
        num, den = table["numerator"], table["denominator"]
        values = {
            (k + 1, r + 1): Fraction(int(num[k, r]), int(den[k, r]))
            for k in range(num.shape[0])
            for r in range(num.shape[1])
        }
        max_rolls = num.shape[1]
        return cls(max_rolls, values, {L: values[(NUM_DICE, L)] for L in range(1, max_rolls + 1)})


def solve(max_rolls: int = 3, cache_dir=None, use_cache: bool = False) -> Solution:
    """Solve the one-turn problem for every roll limit 1..``max_rolls``.

    Args:
        max_rolls: the largest roll limit (the game's ``max_rolls``), >= 1.
        cache_dir: where :mod:`agents.solvers.cache` keeps the table (with ``use_cache``).
        use_cache: read the table from the cache if it is there, and save it after a build.

    Raises:
        ValueError: ``max_rolls`` is not a positive integer.
    """
    if isinstance(max_rolls, bool) or not isinstance(max_rolls, (int, np.integer)) or max_rolls < 1:
        raise ValueError(f"max_rolls must be an integer >= 1, got {max_rolls!r}")
    max_rolls = int(max_rolls)

    def build() -> dict[str, np.ndarray]:
        values = {(k, r): roll_value(k, r) for k in range(1, NUM_DICE + 1) for r in range(1, max_rolls + 1)}
        return Solution(max_rolls, values, {}).table()

    from agents.solvers import cache

    table = cache.load_or_build(SOLVER, VERSION, {"max_rolls": max_rolls}, build, cache_dir, use_cache)
    return Solution.from_table(table)


class OptimalAgent(Agent):
    """Plays the turn that minimises the expected score, at the round's current roll limit.

    From its own observation (:mod:`dice_envs.syvere_v0`'s layout: the turn block from ``3N``:
    rolls made, roll limit, dice left, dice by face, their sum) it stops exactly when the sum held is
    at most what rolling the remaining dice is worth with the rolls left. It is deterministic:
    :meth:`action_probabilities` puts probability 1 on the action :meth:`act` takes.

    Args:
        game: a :class:`dice_envs.games.syvere.Game`.
        seed: unused (the agent is deterministic); kept for the agent protocol.
    """

    name = "optimal"

    def __init__(self, game, seed: int | None = None):
        super().__init__(game, seed)
        if not isinstance(game, syvere.Game):
            raise ValueError(f"OptimalAgent (syvere) plays syvere, not {getattr(game, 'name', game)!r}")
        self._k = 3 * game.num_players  # start of the turn block
        self._thresholds = {}  # (dice left, rolls left) -> largest sum that stops

    def _threshold(self, dice_left: int, rolls_left: int) -> int:
        key = (dice_left, rolls_left)
        if key not in self._thresholds:
            self._thresholds[key] = int(roll_value(dice_left, rolls_left))
        return self._thresholds[key]

    def _choice(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 0:
            raise ValueError("OptimalAgent.act: the action mask has no legal action")
        if len(legal) == 1:
            return int(legal[0])
        k = self._k
        rolls, limit, dice_left = int(observation[k]), int(observation[k + 1]), int(observation[k + 2])
        held = int(round(float(observation[k + 9])))
        if dice_left < 1 or rolls >= limit:
            raise ValueError(
                f"OptimalAgent.act: no decision in this observation (dice left {dice_left}, roll {rolls} of {limit})"
            )
        return syvere.STOP if held <= self._threshold(dice_left, limit - rolls) else syvere.ROLL

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Probability 1 on the optimal action (the agent is deterministic), 0 elsewhere."""
        probs = np.zeros(self.game.num_actions, dtype=np.float64)
        probs[self._choice(observation, action_mask)] = 1.0
        return probs

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self._choice(observation, action_mask)
