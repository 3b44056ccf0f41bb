"""The agent protocol, the random agent and the Syvere heuristic."""

from functools import lru_cache

import numpy as np
import pytest

from agents import AGENTS, RandomAgent, make_agent
from agents.syvere import SyvereHeuristic
from dice_envs import dice
from dice_envs.games import syvere
from evaluate.match import mean_ci, play_match


@lru_cache(maxsize=None)
def expected_final(k, rolls_left):
    """Exact expected score of rolling k dice with rolls_left rolls, stopping optimally."""
    total = 0
    for roll, p in dice.chance_outcomes(k):
        left = syvere.set_aside_sevens(roll)
        value = sum(left)
        if left and rolls_left > 1:
            value = min(value, expected_final(len(left), rolls_left - 1))
        total += p * value
    return total


def test_heuristic_defaults_sit_within_the_exact_one_roll_values():
    # With one roll left, rolling k dice is worth 3.5 (k=1) .. 11.3 (k=6) on average; the
    # heuristic's single threshold for one roll left lies inside that range, and the two-roll
    # threshold inside the two-roll range, 2.75 .. 7.2.
    one = [expected_final(k, 1) for k in range(1, 7)]
    two = [expected_final(k, 2) for k in range(1, 7)]
    assert one[0] == pytest.approx(3.5) and one == sorted(one)
    stop_one, stop_two = SyvereHeuristic(syvere.Game()).stop_at
    assert min(one) <= stop_one <= max(one)
    assert min(two) <= stop_two <= max(two)


def test_heuristic_beats_random_in_a_seeded_four_player_match():
    result = play_match("dice/syvere-v0", ["heuristic", "random", "random", "random"], num_games=500, seed=0)
    heuristic = result.records[0]
    rate, low, _ = heuristic.win_rate()
    assert heuristic.games == 500
    assert low > 0.25, result.table()  # random play would win a quarter of the games
    for rec in result.records[1:]:
        assert rec.win_rate()[0] < rate


def test_heuristic_stops_on_a_low_hand_and_rolls_a_high_one():
    g = syvere.Game(num_players=2)
    agent = SyvereHeuristic(g)
    low = g.apply_chance(g.initial_state(), (1, 1, 2, 2, 3, 3))._replace(remaining=(1, 2))
    high = g.apply_chance(g.initial_state(), (4, 4, 5, 5, 6, 6))
    mask = np.ones(2, dtype=np.int8)
    assert agent.act(g.observe(low, 0), mask) == syvere.STOP
    assert agent.act(g.observe(high, 0), mask) == syvere.ROLL


def test_random_agent_is_seeded_and_legal():
    g = syvere.Game()
    mask = np.array([0, 1], dtype=np.int8)
    a = RandomAgent(g, seed=1)
    assert all(a.act(None, mask) == 1 for _ in range(20))
    mask = np.ones(2, dtype=np.int8)
    b, c = RandomAgent(g, seed=3), RandomAgent(g, seed=3)
    assert [b.act(None, mask) for _ in range(50)] == [c.act(None, mask) for _ in range(50)]
    with pytest.raises(ValueError, match="no legal action"):
        a.act(None, np.zeros(2, dtype=np.int8))


def test_make_agent_names_the_choices():
    g = syvere.Game()
    assert isinstance(make_agent(g, "heuristic"), SyvereHeuristic)
    with pytest.raises(ValueError, match="choose from endgame, heuristic, optimal, random, trained"):
        make_agent(g, "oracle")
    for game_name, table in AGENTS.items():
        assert "random" in table, game_name


def test_mean_ci():
    mean, low, high = mean_ci([0, 1, 0, 1])
    assert mean == 0.5 and low < 0.5 < high
    assert mean_ci([1.0]) == (1.0, 1.0, 1.0)
