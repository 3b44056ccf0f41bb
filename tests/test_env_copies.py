"""What a multi-agent pipeline or a tree search expects of the envs beyond PettingZoo's api_test:
copies that continue the same game and stay cheap after long use, one space and one info dict per
agent, the returns of a game that is over before anyone acts, and one answer for "who acts" at the
end of every game."""

import copy
import pickle

import numpy as np
import pettingzoo
import pytest

import dice_envs  # noqa: F401  (registers the envs)
from dice_envs.games import base, meyer, syvere
from dice_envs.games import tenthousand as tt
from dice_envs.registry import ENVS

ENV_IDS = sorted(ENVS)


def play_steps(env, steps: int, seed: int) -> None:
    """Random legal play for ``steps`` env steps, starting new games as they end."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset()
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def trajectory(env, seed: int, steps: int = 300) -> list:
    """What the env shows over ``steps`` random legal steps (actions drawn from ``seed``)."""
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(steps):
        obs, reward, term, trunc, info = env.last()
        seen.append((env.agent_selection, obs["observation"].tolist(), reward, term, trunc, info["dice"]))
        if term or trunc:
            env.reset()
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_deepcopy_and_pickle_continue_the_same_game_and_share_the_engine(env_id):
    env = pettingzoo.make("aec", env_id, num_players=3)
    env.reset(seed=5)
    play_steps(env, 3000, seed=1)  # fills the engine's memo tables
    twin = copy.deepcopy(env)
    thawed = pickle.loads(pickle.dumps(env))
    assert twin.unwrapped.game is env.unwrapped.game  # the rules engine is shared, not copied
    expected = trajectory(env, seed=9)
    assert trajectory(twin, seed=9) == expected  # the same dice and the same game from here on
    assert trajectory(thawed, seed=9) == expected


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_pickle_leaves_the_engines_memo_tables_out(env_id):
    env = pettingzoo.make("aec", env_id, num_players=3)
    env.reset(seed=0)
    game = env.unwrapped.game
    assert game._MEMOS
    play_steps(env, 3000, seed=2)
    assert any(getattr(game, name) for name in game._MEMOS)  # they did fill
    thawed = pickle.loads(pickle.dumps(game))
    assert all(getattr(thawed, name) == {} for name in game._MEMOS)
    fresh = pettingzoo.make("aec", env_id, num_players=3)
    fresh.reset(seed=0)
    # The env's own size does not grow with the memo tables: within 2 KB of a fresh env's (the
    # mask cache and the game's history differ a little).
    assert len(pickle.dumps(env)) < len(pickle.dumps(fresh)) + 2048 + 64 * len(env.unwrapped.history)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_agent_has_its_own_spaces_and_info_dict(env_id):
    env = pettingzoo.make("aec", env_id, num_players=3)
    env.reset(seed=0)
    a, b = env.possible_agents[:2]
    assert env.action_space(a) is env.action_space(a) and env.action_space(a) is not env.action_space(b)
    assert env.observation_space(a) is not env.observation_space(b)
    env.action_space(a).seed(1)
    env.action_space(b).seed(2)
    draws = [env.action_space(a).sample() for _ in range(20)]
    env.action_space(a).seed(1)
    assert [env.action_space(a).sample() for _ in range(20)] == draws  # b's seed did not touch a's
    env.infos[a]["episode"] = 1
    assert "episode" not in env.infos[b]
    env.unwrapped.metadata["render_modes"].append("extra")  # as PettingZoo's CaptureStdoutWrapper does
    assert "extra" not in type(env.unwrapped).metadata["render_modes"]


def test_a_game_over_before_anyone_acts_pays_its_returns_through_last():
    # Syvere with max_rolls=1: every turn is one roll, so the whole game is chance (SY-6).
    for seed in range(5):
        env = pettingzoo.make("aec", "dice/syvere-v0", num_players=3, max_rolls=1)
        env.reset(seed=seed)
        assert all(env.terminations.values())
        final = env.unwrapped.game.returns(env.unwrapped.game_state)
        got = {}
        for agent in env.agent_iter():
            _, reward, term, _, _ = env.last()
            assert term
            got[agent] = reward
            env.step(None)
        assert got == {f"player_{i}": final[i] for i in range(3)}
        assert sum(got.values()) == 0 and max(got.values()) > 0


@pytest.mark.parametrize("game", [syvere.Game(), tt.Game(), meyer.Game()], ids=lambda g: g.name)
def test_current_player_is_TERMINAL_once_the_game_is_over(game):
    rng = np.random.default_rng(3)
    state = game.initial_state()
    while not game.is_terminal(state):
        assert 0 <= game.current_player(state) < game.num_players
        if game.is_chance(state):
            state = game.apply_chance(state, tuple(rng.integers(1, 7, game.num_dice_to_roll(state)).tolist()))
        else:
            state = game.apply_action(state, int(rng.choice(game.legal_actions(state))))
    assert game.current_player(state) == base.TERMINAL == -1
