"""dice/tenthousand-v1 through PettingZoo: API and seed tests per preset, observation layout, masks."""

from __future__ import annotations

import warnings

import numpy as np
import pettingzoo
import pytest
from api_checks import api_test_without_warnings
from pettingzoo.test import seed_test

import dice_envs  # noqa: F401  (registers the envs)
from dice_envs import tenthousand_v1
from dice_envs.games import tenthousand as tt

ENV_ID = "dice/tenthousand-v1"
PRESETS = ("dk", "no", "farkle")

# The default preset, dk, with 2..8 players: tests/test_envs.py, as for every env.
OTHER_PRESETS = ("no", "farkle")


@pytest.mark.parametrize("preset", OTHER_PRESETS)
@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_TT10_api_test_per_preset_without_warnings(preset, n):
    api_test_without_warnings(pettingzoo.make("aec", ENV_ID, num_players=n, preset=preset), num_cycles=200)


@pytest.mark.parametrize("preset", OTHER_PRESETS)
@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_TT10_seed_test_per_preset(preset, n):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seed_test(lambda: pettingzoo.make("aec", ENV_ID, num_players=n, preset=preset), num_cycles=200)
    assert [str(w.message) for w in caught] == []


def play_random(env, seed):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards = {a: 0.0 for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter(200_000):
        obs, reward, term, trunc, _ = env.last()
        rewards[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        space = env.observation_space(agent)["observation"]
        assert space.contains(obs["observation"])
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
        steps += 1
    return rewards, steps


@pytest.mark.parametrize(
    "options",
    [
        {"preset": "dk", "num_players": 3},
        {"preset": "no", "num_players": 2, "target": 3000},
        {"preset": "farkle", "num_players": 4, "target": 2000, "end": "immediate"},
        {"preset": "no", "num_players": 2, "target": 2000, "confirm_combinations": True, "over_threshold": True},
        {"preset": "no", "num_players": 2, "target": 1000, "exact_target": True, "bust_penalty": 300},
    ],
)
def test_TT8_C3_random_games_end_zero_sum_within_bounds(options):
    env = pettingzoo.make("aec", ENV_ID, **options)
    for seed in range(3):
        rewards, steps = play_random(env, seed)
        assert steps > 0
        assert sum(rewards.values()) == pytest.approx(0.0)
        assert max(rewards.values()) > 0
        game, state = env.unwrapped.game, env.unwrapped.game_state
        assert game.is_terminal(state)
        best = max(game.scores(state))
        assert {f"player_{s}" for s in state.winners} == {a for a, r in rewards.items() if r > 0}
        if game.end != "immediate":
            assert all(game.scores(state)[s] == best for s in state.winners)
        assert best >= game.target if not game.exact_target else best == game.target


def test_observation_layout_entry_by_entry():
    env = tenthousand_v1.raw_env(num_players=3, preset="no", confirm_combinations=True)
    env.reset(seed=0)
    game = env.game
    state = game.initial_state()._replace(
        totals=(9000, 10_200, 45_000), opened=(True, True, False), busts=(0, 2, 1), player=2, turns_left=2
    )
    state = game.apply_chance(state, (2, 2, 2, 3, 4, 6))
    state = game.apply_action(state, game.string_to_action(state, "keep 222 roll"))
    state = game.apply_chance(state, (1, 5, 5))
    obs = game.observe(state, 1)  # seen from seat 1: seats 1, 2, 0
    n = 3
    assert obs.dtype == np.float32 and obs.shape == (4 * n + 11,)
    assert list(obs[0:n]) == [10_200, 20_000, 9000]  # totals, own first; 45 000 clipped to 2·target
    assert list(obs[n : 2 * n]) == [1, 0, 1]  # på listen
    assert list(obs[2 * n : 3 * n]) == [2, 1, 0]  # busts in a row
    assert list(obs[3 * n : 4 * n]) == [0, 1, 0]  # seat 2 is to act
    k = 4 * n
    assert obs[k] == 200  # turn total
    assert obs[k + 1] == 3  # dice in play
    assert list(obs[k + 2 : k + 8]) == [1, 0, 0, 0, 2, 0]  # roll 155
    assert obs[k + 8] == 1  # 222 awaits confirmation
    assert obs[k + 9] == 1 and obs[k + 10] == 2  # end phase, two turns left
    space = env.observation_space("player_0")["observation"]
    assert space.contains(obs)
    # the same table for everyone, rotated
    for seat in range(n):
        other = game.observe(state, seat)
        assert list(other[: n]) == [min(game.scores(state)[(seat + i) % n], 20_000) for i in range(n)]
        assert list(other[k:]) == list(obs[k:])


@pytest.mark.parametrize("confirm", [False, True])
def test_TT9c_pending_flag_is_observed_under_every_rule_set_and_blocks_only_with_the_option(confirm):
    game = tt.Game(num_players=2, preset="dk", opening=0, min_bank=0, confirm_combinations=confirm)
    s = game.apply_chance(game.initial_state(), (2, 2, 2, 3, 4, 6))
    banks = {game.action_to_string(s, a) for a in game.legal_actions(s) if a % 2 == tt.BANK}
    assert banks == (set() if confirm else {"keep 222 bank"})
    s = game.apply_action(s, game.string_to_action(s, "keep 222 roll"))
    s = game.apply_chance(s, (1, 3, 4))
    assert game.observe(s, 0)[4 * 2 + 8] == 1  # 222 not yet followed by a single 1 or 5
    s = game.apply_action(s, game.string_to_action(s, "keep 1 roll"))
    assert game.observe(s, 0)[4 * 2 + 8] == 0  # confirmed by the single 1


def test_observation_clips_negative_totals_and_huge_turn_totals():
    game = tt.Game(num_players=2, preset="farkle", target=1000)
    state = game.initial_state()._replace(totals=(-5000, 0), turn_total=7000)
    state = game.apply_chance(state, (1, 2, 3, 4, 6, 6))
    obs = game.observe(state, 0)
    assert obs[0] == -1000 and obs[8] == 2000
    assert np.all(obs >= game.observation_low) and np.all(obs <= game.observation_high)


def test_observation_at_game_end_has_no_turn():
    game = tt.Game(num_players=2, end="immediate")
    state = game.initial_state()._replace(totals=(9500, 0), opened=(True, False))
    state = game.apply_chance(state, (1, 1, 1, 2, 3, 4))
    state = game.apply_action(state, game.string_to_action(state, "keep 111 bank"))
    assert game.is_terminal(state)
    obs = game.observe(state, 1)
    assert list(obs[:2]) == [0, 10_500] and not obs[6:].any()


def test_mask_only_for_the_player_to_act_and_matches_legal_actions():
    env = pettingzoo.make("aec", ENV_ID, num_players=3)
    env.reset(seed=3)
    game, state = env.unwrapped.game, env.unwrapped.game_state
    actor = env.agent_selection
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.shape == (tt.NUM_ACTIONS,) and mask.dtype == np.int8
        if agent == actor:
            assert list(np.flatnonzero(mask)) == game.legal_actions(state)
        else:
            assert not mask.any()


def test_infos_name_the_action_and_the_dice():
    env = pettingzoo.make("aec", ENV_ID, num_players=2)
    env.reset(seed=1)
    state = env.unwrapped.game_state
    action = env.unwrapped.game.legal_actions(state)[0]
    env.step(action)
    info = env.infos["player_1"]
    assert info["action"] == tt.ACTION_STRINGS[action] and info["actor"] == "player_0"
    assert all(len(roll) in range(1, 7) for roll in info["dice"])


def test_illegal_action_raw_env_raises_and_wrapped_env_terminates():
    raw = tenthousand_v1.raw_env()
    raw.reset(seed=0)
    illegal = next(a for a in range(tt.NUM_ACTIONS) if a not in raw.game.legal_actions(raw.game_state))
    with pytest.raises(ValueError, match=f"illegal action {illegal}"):
        raw.step(illegal)
    env = tenthousand_v1.env()
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TerminateIllegalWrapper says so
        env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}


def test_options_reach_the_engine_and_bad_ones_raise():
    env = pettingzoo.make("aec", ENV_ID, num_players=5, preset="farkle", target=5000, straight=2500)
    game = env.unwrapped.game
    assert (game.num_players, game.preset, game.target, game.straight, game.three_pairs) == (5, "farkle", 5000, 2500, 750)
    with pytest.raises(ValueError, match="preset"):
        pettingzoo.make("aec", ENV_ID, preset="xx")
    with pytest.raises(ValueError, match="'bogus'"):
        pettingzoo.make("aec", ENV_ID, bogus=1)


def test_render_shows_dice_totals_and_turn():
    env = pettingzoo.make("aec", ENV_ID, num_players=2, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    roll = env.unwrapped.game_state.roll
    assert "Ten thousand (dk)" in text and "<- to play" in text and "turn total: 0" in text
    assert "".join(str(f) for f in roll) in text and "⚀⚁⚂⚃⚄⚅"[roll[0] - 1] in text


def test_max_cycles_truncates():
    env = pettingzoo.make("aec", ENV_ID, num_players=2, max_cycles=3)
    rewards, steps = play_random(env, 0)
    assert steps <= 6
