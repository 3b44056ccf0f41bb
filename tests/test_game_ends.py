"""Every game ends (issue 7 item 1, RULES.md TT-9d): random-legal games over random option combinations.

For each game, hypothesis draws option combinations (tests/fuzz_strategies.py) and a seed, and a
game played by uniformly random legal actions and fair dice must end within
:func:`fuzz_strategies.length_bound` steps; the docstring there justifies each bound. For 10 000
the options range over every flag and scoring option, ``exact_target`` with every threshold up to
the target (target at most 2000), the case in which games never ended before TT-9d.
"""

from __future__ import annotations

import numpy as np
import pytest
from fuzz_strategies import GAMES, OPTIONS, length_bound
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dice_envs.games import tenthousand


def play_random(game, seed: int, max_steps: int):
    """``(steps, final state)`` of a random-legal game (steps are decisions plus rolls), or
    ``None`` if it has not ended within ``max_steps``."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    for step in range(max_steps + 1):
        if game.is_terminal(state):
            return step, state
        if game.is_chance(state):
            state = game.apply_chance(state, tuple(rng.integers(1, 7, game.num_dice_to_roll(state)).tolist()))
        else:
            legal = game.legal_actions(state)
            state = game.apply_action(state, legal[rng.integers(len(legal))])
    return None


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_random_legal_game_ends_within_its_bound(name, data):
    options = data.draw(OPTIONS[name](extremes=False), label="options")
    game = GAMES[name](**options)
    bound = length_bound(game)
    assert bound is not None, options  # the tame range always has a bound
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    played = play_random(game, seed, bound)
    assert played is not None, f"{name} {options} seed {seed} did not end within {bound} steps"
    returns = game.returns(played[1])
    assert abs(sum(returns)) < 1e-9 and max(returns) >= 0


@pytest.mark.parametrize(
    "options",
    [
        {"preset": "dk", "exact_target": True},  # the hang: within 300 of the target
        {"preset": "dk", "target": 500, "exact_target": True},  # the 1000 opening over a 500 target
        {"preset": "farkle", "target": 300, "exact_target": True, "num_players": 8},
        {"preset": "no", "target": 1000, "exact_target": True, "over_threshold": True, "confirm_combinations": True},
    ],
)
def test_exact_target_games_that_never_ended_before_end_now(options):
    game = tenthousand.Game(**options)
    for seed in range(5):
        assert play_random(game, seed, max_steps=200_000) is not None
