"""The envs under PettingZoo's parallel API: registered (``pettingzoo.make("parallel", id)``), each
module's ``parallel_env``, and PettingZoo's own parallel tests (outside RL-pipeline review: the registry
said the namespace did not exist)."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

import dice_envs  # noqa: F401  (registers the ids)
from dice_envs import meyer_v0, syvere_v0, tenthousand_v1

CASES = [
    ("dice/syvere-v0", syvere_v0, {"num_players": 3}),
    ("dice/tenthousand-v1", tenthousand_v1, {"num_players": 2, "target": 2000}),
    ("dice/meyer-v0", meyer_v0, {"num_players": 3, "lives": 2}),
]


@pytest.mark.parametrize("env_id, module, options", CASES)
def test_the_parallel_env_passes_pettingzoos_parallel_tests(env_id, module, options):
    env = pettingzoo.make("parallel", env_id, **options)
    assert env.possible_agents == [f"player_{i}" for i in range(options["num_players"])]
    parallel_api_test(env, num_cycles=200)
    parallel_seed_test(lambda: module.parallel_env(**options))


@pytest.mark.parametrize("env_id, module, options", CASES)
def test_a_parallel_game_plays_to_the_end_with_the_aec_envs_returns(env_id, module, options):
    env = module.parallel_env(**options)
    observations, infos = env.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(100_000):
        actors = [a for a in env.agents if observations[a]["action_mask"].any()]
        assert len(actors) == 1  # turn-based: one agent to act per step, the others' masks all zeros
        actions = {a: 0 for a in env.agents}
        actions[actors[0]] = int(rng.choice(np.flatnonzero(observations[actors[0]]["action_mask"])))
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
        if not env.agents:
            break
    else:
        raise AssertionError("the game did not end")
    raw = env.aec_env.unwrapped
    returns = raw.game.returns(raw.game_state)  # the engine's C-3 returns of the game played
    assert [totals[a] for a in env.possible_agents] == pytest.approx(list(returns), abs=1e-12)
    assert max(totals.values()) > 0
