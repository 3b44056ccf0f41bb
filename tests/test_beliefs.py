"""agents.beliefs: the posterior over the cup after a claim, checked exactly against the
BayesianDoubter's closed-form claimer model (an independent computation of the same numbers)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from agents import make_agent
from agents.beliefs import claim_likelihoods, cup_posterior, truth_probability
from dice_envs.dice import chance_outcomes
from dice_envs.games import meyer

PRIOR = {tuple(d): p for d, p in chance_outcomes(2)}


def decision_state(game, beat: int, dice=(6, 5)):
    """Seat 1's claim decision over seat 0's claim ``beat`` (-1: seat 0 at a round start)."""
    state = game.apply_chance(game.initial_state(), (2, 1) if beat >= 0 else dice)
    if beat < 0:
        return state
    state = game.apply_action(state, meyer.FIRST_CLAIM + beat)
    state = game.apply_action(state, meyer.BELIEVE)
    return game.apply_chance(state, dice)


@pytest.mark.parametrize("lie", [Fraction(0), Fraction(1, 4), Fraction(3, 5)])
@pytest.mark.parametrize("claim_rule", ["at_least", "higher"])
def test_posterior_truth_matches_the_bayesian_doubters_model_exactly(lie, claim_rule):
    """The BayesianDoubter's q(c, b) is, by its docstring, the bluffer's policy at lie probability
    lie_prior pushed through Bayes' rule in closed form; cup_posterior gets it from the engine's
    observations and the bluffer's own policy. They agree to the last digit, for every claim to
    beat and every claim the bluffer can make."""
    game = meyer.Game(num_players=2, claim_rule=claim_rule)
    bluffer = make_agent(game, "honest" if lie == 0 else f"bluffer:lie_probability={lie}")
    model = make_agent(game, f"doubter:lie_prior={lie}")
    checked = 0
    for beat in [-1, *range(meyer.NUM_CLAIMS)]:
        if beat >= 0 and (beat == meyer.MEYER or not game.legal_claims(beat)):
            continue
        state = decision_state(game, beat)
        for c in game.legal_claims(beat):
            action = meyer.FIRST_CLAIM + c
            if all(w == 0 for w in claim_likelihoods(game, state, action, bluffer).values()):
                continue  # never claimed over this beat
            posterior = cup_posterior(game, state, action, bluffer)
            assert sum(posterior.values()) == 1 and all(isinstance(p, Fraction) for p in posterior.values())
            assert truth_probability(game, posterior, c) == model.posterior(c, beat)
            checked += 1
    assert checked > 100


def test_an_honest_opening_gives_the_dice_away_and_a_blind_claim_gives_nothing():
    """ME-3 / ME-4: a claimer rolled afresh and saw the dice, so the prior is a fresh roll's; ME-5:
    after the blind reroll nobody saw them, so the claim tells nothing."""
    game = meyer.Game(num_players=2)
    honest = make_agent(game, "honest")
    state = decision_state(game, -1, dice=(4, 2))
    posterior = cup_posterior(game, state, meyer.FIRST_CLAIM + meyer.claim_index("42"), honest)
    assert posterior == {d: Fraction(int(d == (2, 4))) for d in PRIOR}
    # After a blind reroll the claimer saw nothing: the claim says nothing about the dice.
    blind = meyer.Game(num_players=2, blind_reroll=True)
    state = decision_state(blind, meyer.claim_index("54"), dice=(2, 1))
    state = blind.apply_action(state, meyer.REROLL)
    state = blind.apply_chance(state, (3, 3))
    bluffer = make_agent(blind, "bluffer")
    made = [a for a in blind.legal_actions(state) if any(claim_likelihoods(blind, state, a, bluffer).values())]
    assert made
    for action in made:
        assert cup_posterior(blind, state, action, bluffer) == PRIOR
    never = next(a for a in blind.legal_actions(state) if a >= meyer.FIRST_CLAIM and a not in made)
    with pytest.raises(ValueError, match="never claims .* probability 0 and no posterior"):
        cup_posterior(blind, state, never, bluffer)


def test_a_float_policy_gives_a_float_posterior_that_sums_to_one(tmp_path):
    game = meyer.Game(num_players=2, lives=1)
    equilibrium = make_agent(game, "equilibrium", cache_dir=str(tmp_path))
    state = decision_state(game, meyer.claim_index("54"))
    for c in game.legal_claims(meyer.claim_index("54")):
        action = meyer.FIRST_CLAIM + c
        if sum(claim_likelihoods(game, state, action, equilibrium).values()) == 0:
            continue
        posterior = cup_posterior(game, state, action, equilibrium)
        assert all(isinstance(p, float) and p >= 0 for p in posterior.values())
        assert sum(posterior.values()) == pytest.approx(1, abs=1e-12)
        assert 0 <= truth_probability(game, posterior, c) <= 1


def test_what_cannot_have_a_posterior_is_refused():
    game = meyer.Game(num_players=2)
    honest = make_agent(game, "honest")
    state = decision_state(game, meyer.claim_index("54"))
    with pytest.raises(ValueError, match="decision state"):
        cup_posterior(game, game.initial_state(), meyer.FIRST_CLAIM, honest)  # dice not rolled yet
    with pytest.raises(ValueError, match="decision state"):
        cup_posterior(game, game.apply_action(state, meyer.FIRST_CLAIM + meyer.claim_index("61")), meyer.FIRST_CLAIM, honest)
    with pytest.raises(ValueError, match="must be a claim"):
        cup_posterior(game, state, meyer.DOUBT, honest)
    with pytest.raises(ValueError, match="not a legal claim"):
        cup_posterior(game, state, meyer.FIRST_CLAIM + meyer.claim_index("32"), honest)
    # Honest never claims 66 over 54 with dice that do not meet it, nor with dice that do (it
    # claims its dice, and 66 only with 66): the claim 66 has the posterior of rolled 66.
    assert cup_posterior(game, state, meyer.FIRST_CLAIM + meyer.claim_index("66"), honest)[(6, 6)] == 1
    never = meyer.FIRST_CLAIM + meyer.claim_index("21")
    opener = make_agent(game, "honest")
    start = decision_state(game, -1)
    likelihoods = claim_likelihoods(game, start, never, opener)
    assert likelihoods[(1, 2)] == 1 and sum(likelihoods.values()) == 1
    with pytest.raises(ValueError, match="beliefs are defined for Meyer"):
        cup_posterior(make_game_syvere(), start, never, opener)


def make_game_syvere():
    from dice_envs.games import syvere

    return syvere.Game(num_players=2)


def test_the_env_loop_of_the_docstring():
    """The recipe of the module docstring: keep the claimer's state before stepping its claim."""
    from pettingzoo import make as pz_make  # noqa: F401  (registered envs)

    import dice_envs  # noqa: F401
    from dice_envs.registry import env_module

    env = env_module("meyer").env(num_players=2)
    env.reset(seed=3)
    honest = make_agent(env.unwrapped.game, "honest")
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = observation["action_mask"]
        action = honest.act(observation["observation"], mask)
        before = env.unwrapped.game_state
        env.step(action)
        if action >= meyer.FIRST_CLAIM:
            posterior = cup_posterior(env.unwrapped.game, before, action, honest)
            assert posterior[tuple(before.cup)] > 0  # the true dice are never ruled out
            assert sum(posterior.values()) == 1
            break
    else:
        raise AssertionError("no claim was made")
    env.close()
