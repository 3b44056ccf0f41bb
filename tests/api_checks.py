"""Shared by the env tests: PettingZoo's api_test, failing on any warning but two known notices."""

import warnings

from pettingzoo.test import api_test

# api_test gives these two notices for every env whose observations are {"observation",
# "action_mask"} dicts; it silences them only for PettingZoo's own classic envs, by name
# (``env_obs_dicts`` and ``env_obs_space`` in pettingzoo/test/api_test.py).
DICT_OBSERVATION_NOTICES = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


def api_test_without_warnings(env, num_cycles: int = 300) -> None:
    """Run api_test and fail on any warning other than the two dict-observation notices."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=num_cycles)
    assert [str(w.message) for w in caught if str(w.message) not in DICT_OBSERVATION_NOTICES] == []
