"""Slow soak checks (``pytest -m slow``): many random games of every env and player count."""

import numpy as np
import pytest

from dice_envs.registry import ENVS, env_module

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("env_id", sorted(ENVS))
@pytest.mark.parametrize("n", range(2, 9))
def test_many_random_games_end_with_zero_sum_returns(env_id, n):
    env = env_module(env_id).raw_env(num_players=n)
    game = env.game
    rng = np.random.default_rng(n)
    low, high = game.observation_low, game.observation_high
    for g in range(300):
        env.reset(seed=g)
        for agent in env.agent_iter(100_000):
            obs, _, term, trunc, _ = env.last()
            o = obs["observation"]
            assert np.all(o >= low) and np.all(o <= high), (env_id, agent, o)
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        returns = game.returns(env.game_state)
        assert game.is_terminal(env.game_state)
        assert abs(sum(returns)) < 1e-9 and max(returns) >= 0
