"""Beliefs in Meyer: what a claim says about the dice under the cup, given the claimer's policy.

When a player claims, the others see the claim, not the dice. Knowing (or assuming) the claimer's
policy, Bayes' rule gives the distribution of the dice under the cup::

    P(cup = d | claim c) = P(d) * pi(c | observation with dice d) / sum over d' of the same

where ``P(d)`` is the chance of the roll (the claimer rolled afresh this turn, ME-4) and ``pi`` the
claimer's policy, asked about the claimer's observation as it would have been with each possible
roll, everything else as it was. After a blind reroll (ME-5) the claimer saw nothing, so the
observation does not change with the dice and the posterior is the prior.

The policy is any object with ``action_probabilities(observation, action_mask)`` (the protocol of
:mod:`agents.base`): a built-in agent, ``equilibrium`` (the solved game), a trained checkpoint, a
class of your own. An agent with ``exact_action_probabilities`` (the hand-written Meyer agents)
gives an exact posterior in :class:`fractions.Fraction`; any other gives floats. The policy is
taken as a memoryless function of the observation: an agent with memory is asked as it is now.

The claimer's decision state is needed, not the state after the claim: the claimer's observation
depended on the claim to beat, which the state after the claim keeps only in its history window.
In a PettingZoo loop, keep ``env.unwrapped.game_state`` before stepping a claim::

    before = env.unwrapped.game_state
    env.step(action)
    posterior = cup_posterior(env.unwrapped.game, before, action, policy)

>>> from agents import make_agent
>>> from dice_envs.games import meyer
>>> game = meyer.Game(num_players=2)
>>> state = game.apply_chance(game.initial_state(), (3, 1))  # seat 0 rolled 31, the lowest
>>> honest = make_agent(game, "honest")
>>> post = cup_posterior(game, state, meyer.FIRST_CLAIM + meyer.claim_index("31"), honest)
>>> post[(1, 3)]  # honest claims its dice at a round start: the claim gives them away
Fraction(1, 1)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dice_envs.dice import chance_outcomes
from dice_envs.games import meyer


def _check(game: meyer.Game, state: meyer.State, action: int) -> None:
    if getattr(game, "name", None) != "meyer":
        raise ValueError(f"beliefs are defined for Meyer, not {getattr(game, 'name', game)!r}")
    if state.phase != meyer.CLAIM or state.to_roll:
        raise ValueError(
            "give the claimer's decision state (phase CLAIM, dice rolled), as it was before the claim; "
            f"got phase {state.phase} with {state.to_roll} dice to roll"
        )
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not meyer.FIRST_CLAIM <= action < game.num_actions:
        raise ValueError(f"action must be a claim (action id {meyer.FIRST_CLAIM}..{game.num_actions - 1}), got {action!r}")
    if int(action) not in game.legal_actions(state):
        raise ValueError(f"{game.action_to_string(state, int(action))!r} is not a legal claim in this state")


def claim_likelihoods(game: meyer.Game, state: meyer.State, action: int, policy) -> dict[tuple[int, ...], Any]:
    """``{dice: pi(action | the claimer's observation with those dice)}`` for every roll.

    Args:
        game: the Meyer engine.
        state: the claimer's decision state (phase ``CLAIM``, dice rolled), before the claim.
        action: the claim's action id.
        policy: the claimer's policy (``action_probabilities``; ``exact_action_probabilities`` is
            used when present, giving Fractions).

    Raises:
        ValueError: not Meyer, not a claim decision, or a claim that is not legal there.
    """
    _check(game, state, action)
    action = int(action)
    seat = state.actor
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    exact = hasattr(policy, "exact_action_probabilities")
    likelihoods: dict[tuple[int, ...], Any] = {}
    for dice, _ in chance_outcomes(meyer.NUM_DICE):
        observation = game.observe(state._replace(cup=tuple(dice)), seat)
        if exact:
            likelihoods[tuple(dice)] = Fraction(policy.exact_action_probabilities(observation, mask).get(action, 0))
        else:
            likelihoods[tuple(dice)] = float(policy.action_probabilities(observation, mask)[action])
    return likelihoods


def cup_posterior(game: meyer.Game, state: meyer.State, action: int, policy) -> dict[tuple[int, ...], Any]:
    """``{dice: P(the cup holds them | the claimer at state made action)}``, by Bayes' rule over
    the roll's exact chances (see the module docstring); the values sum to 1.

    Raises:
        ValueError: as :func:`claim_likelihoods`, or a claim the policy never makes in that state
            with any dice (probability 0: no posterior exists).
    """
    likelihoods = claim_likelihoods(game, state, action, policy)
    prior = {tuple(dice): p for dice, p in chance_outcomes(meyer.NUM_DICE)}
    exact = all(isinstance(v, Fraction) for v in likelihoods.values())
    joint = {d: (prior[d] if exact else float(prior[d])) * w for d, w in likelihoods.items()}
    total = sum(joint.values())
    if total <= 0:
        raise ValueError(
            f"the policy never claims {game.action_to_string(state, int(action))!r} in this state, whatever the "
            "dice: the claim has probability 0 and no posterior"
        )
    return {d: w / total for d, w in joint.items()}


def truth_probability(game: meyer.Game, posterior: dict[tuple[int, ...], Any], claim: int) -> Any:
    """P(the claim is true) under ``posterior`` (claim index, as ``meyer.claim_index("54")``):
    the chance that the dice rank at or above it."""
    return sum((p for d, p in posterior.items() if game.is_true(d, claim)), start=0 * next(iter(posterior.values())))


__all__ = ["claim_likelihoods", "cup_posterior", "truth_probability"]
