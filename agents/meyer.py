"""Agents for Meyer, for research on bluffing: honest, bluffer and a Bayesian doubter.

All three decide from the observation and the action mask only, decoded with the layout that
the engine publishes (``game.obs_slices``, documented in :mod:`dice_envs.meyer_v0`); the engine
itself (its ranking and options) is public knowledge of the rules. Each has two halves:

* *claiming* (after their own roll): the honest agent claims its dice when they meet the claim to
  beat, otherwise the lowest legal claim; the bluffer does the same but, when its dice meet the
  claim, lies with probability ``lie_probability`` by claiming a legal value above its dice,
  uniformly at random. With ``blind_reroll`` on, all three use the blind reroll when their dice do
  not meet the claim to beat (a chance of a true claim instead of a certain lie), unless
  ``reroll=False``; after it they claim the lowest legal value.
* *answering* a claim: the honest agent and the bluffer doubt when a fresh roll meets the claim
  with probability below ``doubt_below`` (the plain dice odds); the Bayesian doubter doubts when
  the posterior probability that the claim is true falls below ``threshold`` (see
  :class:`BayesianDoubter`). Every agent doubts when believing is not allowed.

Probabilities are exact :class:`fractions.Fraction` values.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from agents.base import Agent
from dice_envs.games import meyer


def _fraction(name: str, value, low: Fraction = Fraction(0), high: Fraction = Fraction(1)) -> Fraction:
    """A probability-like parameter as an exact Fraction within ``low..high``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction, np.floating, np.integer)):
        raise ValueError(f"{name} must be a number in {low}..{high}, got {value!r}")
    frac = Fraction(value).limit_denominator(10**9) if isinstance(value, (float, np.floating)) else Fraction(value)
    if not low <= frac <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {value!r}")
    return frac


class MeyerAgent(Agent):
    """Shared decoding and the honest claiming rule; subclasses choose how to answer and lie.

    Args:
        game: a :class:`dice_envs.games.meyer.Game`.
        seed: seed of the agent's generator.
        reroll: use the blind reroll (when allowed) if the own dice do not meet the claim to beat.
    """

    name = "meyer"

    def __init__(self, game, seed: int | None = None, reroll: bool = True):
        if getattr(game, "name", None) != "meyer":
            raise ValueError(f"{type(self).__name__} plays meyer, not {getattr(game, 'name', game)!r}")
        super().__init__(game, seed)
        if not isinstance(reroll, (bool, np.bool_)):
            raise ValueError(f"reroll must be True or False, got {reroll!r}")
        self.reroll = bool(reroll)
        self._at = {name: s.start for name, s in game.obs_slices.items()}

    # -- decoding -------------------------------------------------------------------------
    def _claim_from_rank(self, rank: float) -> int:
        """Claim index of an observation rank (1..21), -1 for 0."""
        r = int(rank)
        return self.game.claim_of_rank[r - 1] if r > 0 else -1

    def claim_to_beat(self, observation: np.ndarray) -> int:
        """The claim to beat (claim index), -1 at a round start."""
        return self._claim_from_rank(observation[self._at["beat_rank"]])

    def own_dice(self, observation: np.ndarray) -> int:
        """The claim index of this player's dice under the cup, -1 if they have not seen any."""
        if not observation[self._at["own_known"]]:
            return -1
        return self._claim_from_rank(observation[self._at["own_rank"]])

    def previous_claim(self, observation: np.ndarray) -> int | None:
        """The claim that the claim to beat had to beat: -1 if it opened the round, ``None`` if
        the observation's history window (``history`` < 2) does not tell."""
        if self.game.history < 2:
            return None
        at = self._at.get("history_1_present")
        if not observation[at]:
            return -1
        return self._claim_from_rank(observation[self._at["history_1_rank"]])

    def claim_was_blind(self, observation: np.ndarray) -> bool:
        """Whether the claim to beat was made after a blind reroll."""
        return bool(observation[self._at["beat_blind"]])

    # -- acting -------------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 0:
            raise ValueError(f"{type(self).__name__}.act: the action mask has no legal action")
        if action_mask[meyer.DOUBT]:  # answering a claim
            if not action_mask[meyer.BELIEVE] or self.doubts(observation):
                return meyer.DOUBT
            return meyer.BELIEVE
        claims = [int(a) - meyer.FIRST_CLAIM for a in legal if a >= meyer.FIRST_CLAIM]
        own = self.own_dice(observation)
        if action_mask[meyer.REROLL] and self.reroll and own not in claims:
            return meyer.REROLL
        return meyer.FIRST_CLAIM + self.choose_claim(own, claims)

    def lowest(self, claims: list[int]) -> int:
        """The lowest-ranked of these claims."""
        return min(claims, key=self.game.rank.__getitem__)

    def choose_claim(self, own: int, claims: list[int]) -> int:
        """Honest: the own dice if they are a legal claim, else the lowest legal claim."""
        return own if own in claims else self.lowest(claims)

    def doubts(self, observation: np.ndarray) -> bool:
        """Whether to doubt the claim to beat (believing being allowed)."""
        raise NotImplementedError


class HonestAgent(MeyerAgent):
    """Claims the truth when it meets the claim to beat, otherwise the lowest legal claim.

    Args:
        doubt_below: doubt a claim that a fresh roll meets with probability below this (the
            plain dice odds, e.g. 1/2 doubts ``63`` and above: 16/36 < 1/2); default 1/2.
        reroll: see :class:`MeyerAgent`.
    """

    name = "honest"

    def __init__(self, game, seed: int | None = None, doubt_below=Fraction(1, 2), reroll: bool = True):
        super().__init__(game, seed, reroll=reroll)
        self.doubt_below = _fraction("doubt_below", doubt_below, high=Fraction(2))

    def doubts(self, observation: np.ndarray) -> bool:
        return self.game.probability_at_least[self.claim_to_beat(observation)] < self.doubt_below

    def __repr__(self) -> str:
        return f"{type(self).__name__}(doubt_below={self.doubt_below})"


class BlufferAgent(HonestAgent):
    """Honest, except that with probability ``lie_probability`` it lies when it need not.

    When its dice meet the claim to beat it claims, with probability ``lie_probability``, a legal
    value ranked above its dice, uniformly at random (its own dice if there is none); otherwise
    its dice. When they do not, it claims the lowest legal value (a forced lie).

    Args:
        lie_probability: 0..1; default 1/4.
        doubt_below, reroll: as for :class:`HonestAgent`.
    """

    name = "bluffer"

    def __init__(
        self,
        game,
        seed: int | None = None,
        lie_probability=Fraction(1, 4),
        doubt_below=Fraction(1, 2),
        reroll: bool = True,
    ):
        super().__init__(game, seed, doubt_below=doubt_below, reroll=reroll)
        self.lie_probability = _fraction("lie_probability", lie_probability)
        self._lie = float(self.lie_probability)

    def choose_claim(self, own: int, claims: list[int]) -> int:
        if own not in claims:
            return self.lowest(claims)
        rank = self.game.rank
        above = [c for c in claims if rank[c] > rank[own]]
        if above and self.rng.random() < self._lie:
            return above[self.rng.integers(len(above))]
        return own

    def __repr__(self) -> str:
        return f"{type(self).__name__}(lie_probability={self.lie_probability}, doubt_below={self.doubt_below})"


class BayesianDoubter(MeyerAgent):
    """Doubts when the posterior probability that the claim is true falls below ``threshold``.

    The posterior comes from the exact dice odds, the claim to beat and a model of the claimer:
    the claimer rolled dice D (two fair dice) that had to meet the previous claim b. If D meets b,
    they claim D with probability ``1 - lie_prior`` and otherwise a legal value above D, uniformly
    (D itself if none is above); if D does not meet b, they claim the lowest legal value. So for a
    claim c::

        P(true | c, b) = sum over D ranking >= c of P(D) P(c | D, b)  /  sum over all D of P(D) P(c | D, b)

    This is exactly the behaviour of :class:`BlufferAgent` with ``lie_probability = lie_prior``
    (of :class:`HonestAgent` with ``lie_prior = 0``). Two cases use the plain odds P(D ranks >= c)
    instead: a claim made after a blind reroll (the claimer did not know D), and an observation
    whose ``history`` window is shorter than 2 (b is not observed). A claim no D could produce
    under the model is treated as true with the plain odds too.

    Claims like :class:`HonestAgent`.

    Args:
        threshold: doubt when the posterior is below this; 0..1, default 1/2.
        lie_prior: the model's lie probability, 0..1; default 1/4.
        reroll: see :class:`MeyerAgent`.
    """

    name = "doubter"

    def __init__(
        self,
        game,
        seed: int | None = None,
        threshold=Fraction(1, 2),
        lie_prior=Fraction(1, 4),
        reroll: bool = True,
    ):
        super().__init__(game, seed, reroll=reroll)
        self.threshold = _fraction("threshold", threshold, high=Fraction(2))
        self.lie_prior = _fraction("lie_prior", lie_prior)
        self._posteriors: dict[tuple[int, int], Fraction] = {}

    def posterior(self, claim: int, previous: int | None, blind: bool = False) -> Fraction:
        """P(the claim is true), exactly; ``previous`` is the claim it had to beat (-1: none,
        ``None``: unknown)."""
        game = self.game
        if blind or previous is None:
            return game.probability_at_least[claim]
        key = (claim, previous)
        cached = self._posteriors.get(key)
        if cached is not None:
            return cached
        rank = game.rank
        legal = game.legal_claims(previous)
        lowest = self.lowest(list(legal))
        lam = self.lie_prior
        joint_true = joint = Fraction(0)
        for d in range(meyer.NUM_CLAIMS):
            if d in legal:
                above = [c for c in legal if rank[c] > rank[d]]
                if above:
                    p = (1 - lam) * (claim == d) + (lam / len(above) if claim in above else 0)
                else:
                    p = Fraction(claim == d)
            else:
                p = Fraction(claim == lowest)
            weight = meyer.CLAIM_PROBABILITY[d] * p
            joint += weight
            if rank[d] >= rank[claim]:
                joint_true += weight
        result = joint_true / joint if joint else game.probability_at_least[claim]
        self._posteriors[key] = result
        return result

    def doubts(self, observation: np.ndarray) -> bool:
        claim = self.claim_to_beat(observation)
        p = self.posterior(claim, self.previous_claim(observation), self.claim_was_blind(observation))
        return p < self.threshold

    def __repr__(self) -> str:
        return f"{type(self).__name__}(threshold={self.threshold}, lie_prior={self.lie_prior})"


__all__ = ["BayesianDoubter", "BlufferAgent", "HonestAgent", "MeyerAgent"]
