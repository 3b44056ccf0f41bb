"""Policies as distributions (issue 8 item 1): ``action_probabilities`` of every built-in agent.

A hypothesis property test plays random legal games of every game (all player counts, several
option sets) and checks every built-in agent at the decisions reached: the distribution has one
float64 entry per action, sums to 1, is exactly 0 on masked actions, and ``act`` is legal and —
for a deterministic agent — the action of probability 1. The randomising agents' ``act`` is then
checked against its distribution by frequencies, and the distributions against exact values.
"""

import inspect
import math
import typing
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agents.base import Agent, DeterministicAgent, RandomAgent, one_hot, sample_action
from agents.meyer import BayesianDoubter, BlufferAgent, HonestAgent
from agents.syvere import SyvereHeuristic
from agents.tenthousand import GreedyAgent, ThresholdAgent
from dice_envs.games import meyer, syvere
from dice_envs.games import tenthousand as tt

#: Every built-in agent of every game, with parameter sets that change how it randomises.
BUILT_IN = {
    "syvere": [(RandomAgent, {}), (SyvereHeuristic, {}), (SyvereHeuristic, {"stop_at": (3,), "starter_margin": 0})],
    "tenthousand": [(RandomAgent, {}), (GreedyAgent, {}), (ThresholdAgent, {})],
    "meyer": [
        (RandomAgent, {}),
        (HonestAgent, {}),
        (HonestAgent, {"doubt_below": Fraction(1, 4), "reroll": False}),
        (BlufferAgent, {}),
        (BlufferAgent, {"lie_probability": Fraction(1)}),
        (BlufferAgent, {"lie_probability": Fraction(1, 3), "reroll": False}),
        (BayesianDoubter, {}),
        (BayesianDoubter, {"lie_prior": Fraction(0)}),
        (BayesianDoubter, {"rule": "posterior", "threshold": Fraction(2, 3)}),
    ],
}
ENGINES = {"syvere": syvere.Game, "tenthousand": tt.Game, "meyer": meyer.Game}


def options_strategy(game_name: str, num_players: int):
    players = st.just(num_players)
    if game_name == "syvere":
        return st.fixed_dictionaries(
            {
                "num_players": players,
                "elimination": st.sampled_from([77, 20, 5]),
                "max_rolls": st.integers(1, 4),
                "next_starter": st.sampled_from(["right", "left"]),
            }
        )
    if game_name == "tenthousand":
        return st.fixed_dictionaries(
            {
                "num_players": players,
                "preset": st.sampled_from(["dk", "no", "farkle"]),
                "target": st.sampled_from([1000, 2000, 10_000]),
                "confirm_combinations": st.booleans(),
                "over_threshold": st.booleans(),
                "exact_target": st.booleans(),
            }
        )
    return st.fixed_dictionaries(
        {
            "num_players": players,
            "lives": st.integers(1, 3),
            "lille_meyer": st.booleans(),
            "claim_rule": st.sampled_from(["at_least", "higher"]),
            "blind_reroll": st.booleans(),
            "meyer_costs": st.integers(1, 2),
            "history": st.sampled_from([0, 1, 2, 8]),
        }
    )


def mask_of(game, state) -> np.ndarray:
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    return mask


def check_policy(agent: Agent, observation, mask) -> None:
    probabilities = agent.action_probabilities(observation, mask)
    assert probabilities.dtype == np.float64 and probabilities.shape == (agent.game.num_actions,)
    assert np.all(probabilities[mask == 0] == 0.0), (agent, probabilities, mask)
    assert np.all(probabilities >= 0.0)
    assert math.isclose(probabilities.sum(), 1.0, rel_tol=0, abs_tol=1e-12), probabilities
    action = agent.act(observation, mask)
    assert isinstance(action, int) and mask[action] == 1, (agent, action, mask)
    assert probabilities[action] > 0, (agent, action, probabilities)
    if isinstance(agent, DeterministicAgent):
        assert probabilities[action] == 1.0  # a deterministic agent's act is its argmax


@pytest.mark.parametrize("num_players", range(2, 9))
@pytest.mark.parametrize("game_name", sorted(BUILT_IN))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_policies_are_distributions_over_the_legal_actions(game_name, num_players, data):
    options = data.draw(options_strategy(game_name, num_players), label="options")
    try:
        game = ENGINES[game_name](**options)
    except ValueError:  # a combination the engine refuses (say an unfinishable 10 000)
        assume(False)
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    steps = data.draw(st.integers(1, 120), label="decisions")
    rng = np.random.default_rng(seed)
    agents = [cls(game, seed=seed, **params) for cls, params in BUILT_IN[game_name]]
    state = game.initial_state()
    decisions = 0
    while not game.is_terminal(state) and decisions < steps:
        if game.is_chance(state):
            outcomes = game.chance_outcomes(state)
            weights = np.array([float(p) for _, p in outcomes])
            state = game.apply_chance(state, outcomes[rng.choice(len(outcomes), p=weights / weights.sum())][0])
            continue
        player = game.current_player(state)
        observation, mask = game.observe(state, player), mask_of(game, state)
        for agent in agents:
            check_policy(agent, observation, mask)
        legal = game.legal_actions(state)
        state = game.apply_action(state, legal[rng.integers(len(legal))])  # random play
        decisions += 1


# -- act samples from action_probabilities --------------------------------------------------------
def meyer_situation(game, *events):
    state = game.initial_state()
    for event in events:
        if isinstance(event, tuple):
            state = game.apply_chance(state, event)
        else:
            state = game.apply_action(state, game.string_to_action(state, event))
    return game.observe(state, game.current_player(state)), mask_of(game, state)


def assert_frequencies_match(agent: Agent, observation, mask, draws: int) -> None:
    """Every action's count within 4 standard errors of ``draws * p`` (a binomial), and no
    draw at all of an action of probability 0."""
    probabilities = agent.action_probabilities(observation, mask)
    counts = np.bincount([agent.act(observation, mask) for _ in range(draws)], minlength=len(probabilities))
    for action, (count, p) in enumerate(zip(counts, probabilities)):
        if p == 0:
            assert count == 0, (action, count)
        else:
            error = math.sqrt(draws * p * (1 - p))
            assert abs(count - draws * p) <= 4 * error, (action, count, draws * p, error)


@pytest.mark.parametrize("lie_probability", [Fraction(1, 4), Fraction(1)])
def test_bluffer_act_follows_its_distribution(lie_probability):
    game = meyer.Game()
    agent = BlufferAgent(game, seed=11, lie_probability=lie_probability)
    observation, mask = meyer_situation(game, (5, 4))  # 54 at a round start: 13 values above it
    assert_frequencies_match(agent, observation, mask, draws=5000)
    observation, mask = meyer_situation(game, (6, 3), "claim 63", "believe", (1, 1))  # 11 over 63
    assert_frequencies_match(agent, observation, mask, draws=2000)


def test_bluffer_act_is_sample_action_of_its_distribution():
    # act's fast path makes the very draws sample_action makes from action_probabilities.
    game = meyer.Game()
    observation, mask = meyer_situation(game, (4, 3))
    agent = BlufferAgent(game, seed=3, lie_probability=Fraction(1, 2))
    rng = np.random.default_rng(3)
    probabilities = agent.action_probabilities(observation, mask)
    assert [agent.act(observation, mask) for _ in range(200)] == [sample_action(rng, probabilities) for _ in range(200)]


@pytest.mark.parametrize("game", [syvere.Game(), meyer.Game(num_players=3), tt.Game()], ids=lambda g: g.name)
def test_random_agent_act_follows_its_distribution(game):
    state = game.initial_state()
    rng = np.random.default_rng(5)
    while game.is_chance(state):
        outcomes = game.chance_outcomes(state)
        state = game.apply_chance(state, outcomes[rng.integers(len(outcomes))][0])
    observation, mask = game.observe(state, game.current_player(state)), mask_of(game, state)
    assert_frequencies_match(RandomAgent(game, seed=2), observation, mask, draws=4000)


def test_sample_action_draws_each_action_with_its_probability():
    rng = np.random.default_rng(0)
    probabilities = np.array([0.0, 0.5, 0.0, 0.125, 0.375, 0.0])
    counts = np.bincount([sample_action(rng, probabilities) for _ in range(8000)], minlength=6)
    for count, p in zip(counts, probabilities):
        assert abs(count - 8000 * p) <= 4 * math.sqrt(8000 * p * (1 - p))
    assert sample_action(rng, one_hot(6, 4)) == 4
    with pytest.raises(ValueError, match="no action of positive probability"):
        sample_action(rng, np.zeros(6))


# -- exact values -------------------------------------------------------------------------------
def test_bluffer_distribution_is_exact():
    game = meyer.Game()
    observation, mask = meyer_situation(game, (5, 4))
    exact = BlufferAgent(game, lie_probability=Fraction(1, 4)).exact_action_probabilities(observation, mask)
    above = [c for c in range(meyer.NUM_CLAIMS) if game.rank[c] > game.rank[meyer.claim_index("54")]]
    assert len(above) == 13  # 21, 31, six pairs, 65 .. 61
    assert exact == {meyer.FIRST_CLAIM + meyer.claim_index("54"): Fraction(3, 4)} | {
        meyer.FIRST_CLAIM + c: Fraction(1, 52) for c in above
    }
    assert sum(exact.values()) == 1
    # A forced lie is certain, whatever the lie probability.
    observation, mask = meyer_situation(game, (6, 3), "claim 63", "believe", (5, 4))
    assert BlufferAgent(game).exact_action_probabilities(observation, mask) == {
        meyer.FIRST_CLAIM + meyer.claim_index("63"): 1
    }


def test_random_and_deterministic_distributions():
    game = syvere.Game()
    mask = np.array([1, 1], dtype=np.int8)
    assert RandomAgent(game).action_probabilities(None, mask).tolist() == [0.5, 0.5]
    assert RandomAgent(game).action_probabilities(None, np.array([0, 1], dtype=np.int8)).tolist() == [0.0, 1.0]
    high = game.apply_chance(game.initial_state(), (4, 4, 5, 5, 6, 6))
    agent = SyvereHeuristic(game)
    assert agent.action_probabilities(game.observe(high, 0), mask).tolist() == [1.0, 0.0]  # roll


@pytest.mark.parametrize("agent_class", [RandomAgent, SyvereHeuristic])
def test_bad_masks_are_value_errors(agent_class):
    agent = agent_class(syvere.Game())
    with pytest.raises(ValueError, match="no legal action"):
        agent.action_probabilities(None, np.zeros(2, dtype=np.int8))
    with pytest.raises(ValueError, match="shape"):
        agent.action_probabilities(None, np.ones(3, dtype=np.int8))


# -- parameters are typed for SPECs -------------------------------------------------------------
SPEC_TYPES = {int, float, bool, str, Fraction, tuple[int, ...]}


@pytest.mark.parametrize(
    "agent_class", [RandomAgent, SyvereHeuristic, GreedyAgent, ThresholdAgent, HonestAgent, BlufferAgent, BayesianDoubter]
)
def test_every_parameter_carries_a_spec_type(agent_class):
    hints = typing.get_type_hints(agent_class.__init__)
    parameters = list(inspect.signature(agent_class.__init__).parameters.values())[1:]
    assert [p.name for p in parameters[:2]] == ["game", "seed"]
    for parameter in parameters[2:]:
        assert not isinstance(parameter.annotation, str) and parameter.annotation == hints[parameter.name]
        assert hints[parameter.name] in SPEC_TYPES, (agent_class, parameter.name, hints[parameter.name])
        assert parameter.default is not inspect.Parameter.empty
