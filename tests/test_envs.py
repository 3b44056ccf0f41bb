"""One generic test suite applied to every registered env (PettingZoo API, seeding, rendering)."""

import warnings

import numpy as np
import pettingzoo
import pytest
from api_checks import api_test_without_warnings
from pettingzoo.test import seed_test
from pettingzoo.utils import wrappers

import dice_envs  # noqa: F401  (registers the envs)
from dice_envs.env import ILLEGAL_ACTION_REWARD, DiceGameEnv
from dice_envs.registry import ENVS, env_module

ENV_IDS = sorted(ENVS)
PLAYERS = range(2, 9)


def play_random(env, seed, max_steps=100_000):
    """Play one game with random legal actions; return the steps taken."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    for agent in env.agent_iter(max_steps):
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        steps += 1
    return steps


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("n", PLAYERS)
def test_api_test_passes_without_warnings(env_id, n):
    api_test_without_warnings(pettingzoo.make("aec", env_id, num_players=n))


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("n", PLAYERS)
def test_seed_test(env_id, n):
    seed_test(lambda: pettingzoo.make("aec", env_id, num_players=n), num_cycles=300)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_registered_and_importable(env_id):
    assert env_id in pettingzoo.aec_registry
    module = env_module(env_id)
    assert module.__name__ == ENVS[env_id]
    raw = module.raw_env()
    assert isinstance(raw, DiceGameEnv)
    wrapped = module.env()
    assert isinstance(wrapped, wrappers.OrderEnforcingWrapper)
    assert isinstance(wrapped.env, wrappers.AssertOutOfBoundsWrapper)
    assert isinstance(wrapped.env.env, wrappers.TerminateIllegalWrapper)
    assert raw.metadata["name"] == module.__name__.rsplit(".", 1)[1]
    doc = module.__doc__
    for heading in ("Observation", "Options", "Interpretations", "Version history"):
        assert heading in doc, f"{module.__name__} docstring lacks {heading}"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_reset_with_seed_reproduces_a_game_exactly(env_id):
    a, b = (pettingzoo.make("aec", env_id, num_players=3) for _ in range(2))
    play_random(a, seed=11)
    play_random(b, seed=11)
    assert a.unwrapped.history == b.unwrapped.history
    c = pettingzoo.make("aec", env_id, num_players=3)
    play_random(c, seed=12)
    assert c.unwrapped.history != a.unwrapped.history


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_history_replays_through_the_engine(env_id):
    env = pettingzoo.make("aec", env_id, num_players=3)
    play_random(env, seed=5)
    raw = env.unwrapped
    game = raw.game
    state = game.initial_state()
    for event in raw.history:
        if event[0] == "chance":
            state = game.apply_chance(state, event[1])
        else:
            _, seat, action, text = event
            assert game.current_player(state) == seat
            assert game.action_to_string(state, action) == text
            assert game.string_to_action(state, text) == action
            state = game.apply_action(state, action)
    assert state == raw.game_state and game.is_terminal(state)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_observation_is_the_engine_observation(env_id):
    env = env_module(env_id).raw_env(num_players=4)
    env.reset(seed=3)
    game = env.game
    for _ in range(50):
        if not env.agents or game.is_terminal(env.game_state):
            break
        for agent in env.possible_agents:
            seat = int(agent.rsplit("_", 1)[1])
            obs = env.observe(agent)
            np.testing.assert_array_equal(obs["observation"], game.observe(env.game_state, seat))
            assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
            mask = np.zeros(game.num_actions, dtype=np.int8)
            if agent == env.agent_selection:
                mask[game.legal_actions(env.game_state)] = 1
            np.testing.assert_array_equal(obs["action_mask"], mask)
        obs = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_rewards_only_at_the_end_and_zero_sum(env_id):
    env = pettingzoo.make("aec", env_id, num_players=4)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if not (term or trunc):
            assert reward == 0
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert abs(sum(totals.values())) < 1e-9
    assert max(totals.values()) > 0 or all(v == 0 for v in totals.values())


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_illegal_action_raw_env_raises_and_env_ends_the_game(env_id):
    raw = env_module(env_id).raw_env()
    raw.reset(seed=0)
    n = raw.game.num_actions
    with pytest.raises(ValueError, match=f"illegal action {n}"):
        raw.step(n)  # outside the action space
    mask = raw.observe(raw.agent_selection)["action_mask"]
    masked = np.flatnonzero(mask == 0)
    if len(masked) == 0:
        pytest.skip("every action is legal at the start of this game")
    illegal = int(masked[0])
    with pytest.raises(ValueError, match=f"illegal action {illegal}"):
        raw.step(illegal)

    env = pettingzoo.make("aec", env_id)
    env.reset(seed=0)
    offender = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo logs the illegal move
        env.step(illegal)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == ILLEGAL_ACTION_REWARD
    assert all(env._cumulative_rewards[a] == 0 for a in env.agents if a != offender)


def test_an_action_outside_the_space_in_a_wrapped_env_is_the_raw_envs_illegal_action_error():
    """PettingZoo's wrapper asserted (gone under python -O); the package's raises what raw_env raises."""
    from dice_envs.errors import IllegalActionError

    env = pettingzoo.make("aec", "dice/syvere-v0")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="illegal action 2 in syvere; legal actions: 0 \\(roll\\), 1 \\(stop\\)"):
        env.step(2)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_bad_options_raise_value_error_naming_them(env_id):
    with pytest.raises(ValueError, match="num_players"):
        pettingzoo.make("aec", env_id, num_players=9)
    with pytest.raises(ValueError, match="no_such_option"):
        pettingzoo.make("aec", env_id, no_such_option=1)
    with pytest.raises(ValueError, match="render_mode"):
        pettingzoo.make("aec", env_id, render_mode="rgb_array")
    with pytest.raises(ValueError, match="max_cycles"):
        pettingzoo.make("aec", env_id, max_cycles=0)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_max_cycles_truncates(env_id):
    env = pettingzoo.make("aec", env_id, num_players=2, max_cycles=1)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        actions += 1
    raw = env.unwrapped
    assert actions <= 2
    if not raw.game.is_terminal(raw.game_state):
        assert actions == 2  # truncated after max_cycles * num_players actions


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_render_ansi_and_human(env_id, capsys):
    env = pettingzoo.make("aec", env_id, num_players=3, render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    assert isinstance(text, str) and "player_0" in text
    obs = env.observe(env.agent_selection)
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert "player_" in env.render()
    human = pettingzoo.make("aec", env_id, num_players=3, render_mode="human")
    human.reset(seed=4)
    assert "player_0" in capsys.readouterr().out  # printed by reset itself
    obs = human.observe(human.agent_selection)
    human.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert "player_0" in capsys.readouterr().out  # and by every step, as PettingZoo's classic envs do
    assert human.render() is None
    assert "player_0" in capsys.readouterr().out


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_infos_carry_the_action_and_the_rolls(env_id):
    env = pettingzoo.make("aec", env_id, num_players=2)
    env.reset(seed=9)
    first = env.infos[env.agent_selection]
    assert first["action"] is None and first["actor"] is None and len(first["dice"]) >= 1
    agent = env.agent_selection
    obs = env.observe(agent)
    action = int(np.flatnonzero(obs["action_mask"])[0])
    text = env.unwrapped.game.action_to_string(env.unwrapped.game_state, action)
    env.step(action)
    for info in env.infos.values():
        assert info["action"] == text and info["actor"] == agent


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_wrapped_env_refuses_bookkeeping_before_reset_like_pettingzoo(env_id):
    env = pettingzoo.make("aec", env_id)
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(env, name)
    env.reset(seed=0)
    raw = env.unwrapped
    assert env.agents is raw.agents and env.infos is raw.infos
    assert env.env.terminations is raw.terminations and env.env.env.rewards is raw.rewards
    assert env.action_space(env.agent_selection) is raw.action_space(env.agent_selection)


def _pettingzoo_wrapped(raw):
    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=ILLEGAL_ACTION_REWARD)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))


def _without_marker(value):
    """``value`` with the ``"illegal_action"`` entries of infos taken out (PettingZoo's wrappers have none)."""
    if isinstance(value, dict):
        return {k: _without_marker(v) for k, v in value.items() if k != "illegal_action"}
    if isinstance(value, tuple):
        return tuple(_without_marker(v) for v in value)
    if isinstance(value, list):
        return [_without_marker(v) for v in value]
    return value


def _same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b) and a.dtype == b.dtype
    return a == b


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("seed", range(4))
def test_wrappers_behave_like_pettingzoos_own(env_id, seed):
    """env()'s faster wrappers against PettingZoo's wrappers, over random sequences of calls."""
    module = env_module(env_id)
    ours, theirs = module.env(num_players=3), _pettingzoo_wrapped(module.raw_env(num_players=3))
    assert str(ours) == str(theirs)
    rng = np.random.default_rng(seed)

    def both(call):
        results = []
        for env in (ours, theirs):
            try:
                results.append(("ok", call(env)))
            except Exception as exc:  # the same exception, with the same message
                results.append((type(exc).__name__, str(exc)))
        # Two differences on purpose: an action outside the space (or None for an agent still in the
        # game) raises the raw env's IllegalActionError where PettingZoo's wrapper asserts (gone under
        # python -O), and the offender of an illegal action has info["illegal_action"] = True.
        if results[0][0] == "IllegalActionError" and results[1][0] == "AssertionError":
            return results[0]
        assert _same(_without_marker(results[0]), results[1]), results
        return results[0]

    both(lambda e: e.agents)  # before reset
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo logs illegal and dead steps
        for game in range(3):
            both(lambda e: e.reset(seed=seed * 10 + game))
            for _ in range(400):
                if not both(lambda e: list(e.agents))[1]:
                    break
                choice = rng.integers(6)
                if choice == 0:
                    both(lambda e: e.observe(e.possible_agents[1]))
                    continue
                obs = both(lambda e: e.last())[1][0]
                done = both(lambda e: e.terminations[e.agent_selection] or e.truncations[e.agent_selection])[1]
                mask = obs["action_mask"]
                if done:
                    action = None
                elif choice == 1 and (mask == 0).any():
                    action = int(rng.choice(np.flatnonzero(mask == 0)))  # masked: ends the game
                elif choice == 2:
                    action = ours.unwrapped.game.num_actions  # outside the space
                else:
                    action = int(rng.choice(np.flatnonzero(mask)))
                both(lambda e: e.step(action))
                both(lambda e: (e.rewards, e._cumulative_rewards, e.terminations, e.truncations, e.infos))
                both(lambda e: e.agent_selection)
