"""Fuzz suite for the rules engines and the PettingZoo envs (issue 7).

Hypothesis draws a game's options (extremes included, and now and then a combination the rules
refuse), a player count and a seed; a seeded fuzzer then walks the game, trying at every step
inputs of every kind (legal actions in every accepted form, masked ids, ids out of range, values
of the wrong type; good rolls in every accepted form, rolls of the wrong count, faces or type),
and checks after every step:

* bad input raises ``ValueError`` and nothing else (under ``env()`` too: a value outside the action
  space raises the raw env's ``IllegalActionError``, where PettingZoo's wrapper asserted);
* every seat's observation is float32, of the declared shape, inside the declared bounds;
* the env's action mask equals the engine's ``legal_actions`` (all zeros for the others);
* at the end the returns are zero-sum (C-3); the game ends within
  :func:`fuzz_strategies.length_bound` where one is claimed;
* a state (or an env) pickled mid-game continues exactly as the original does.

Budgets: the default run draws a few examples per engine and env (a few seconds each); the
``slow`` run (``pytest -m slow tests/test_fuzz_engines.py -s``) fuzzes for minutes. Both print the
steps fuzzed per game at the end of the module (shown with ``-s``).
"""

from __future__ import annotations

import copy
import pickle
from collections import Counter

import numpy as np
import pytest
from fuzz_strategies import GAMES, OPTIONS, action_form, bad_actions, bad_dice, good_forms, length_bound
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dice_envs.errors import IllegalActionError
from dice_envs.registry import env_module

#: Steps fuzzed, games walked and games played to their end, by (suite, game); option
#: combinations refused by (game): printed when the module ends.
FUZZED: Counter = Counter()
WALKED: Counter = Counter()
FINISHED: Counter = Counter()
REFUSED: Counter = Counter()

DEFAULT = {"examples": 10, "steps": 1500}  # per engine or env: a few seconds each
SLOW = {"examples": 300, "steps": 10_000}  # minutes


@pytest.fixture(scope="module", autouse=True)
def report_steps():
    yield
    if WALKED:
        print("\nfuzzed:")
        for (suite, name), games in sorted(WALKED.items()):
            print(
                f"  {suite:<6} {name:<12} {FUZZED[suite, name]:>10,} steps in {games:,} games "
                f"({FINISHED[suite, name]:,} played to the end; {REFUSED[suite, name]:,} option sets refused)"
            )


# -- engines -------------------------------------------------------------------------------------
def check_state(game, state) -> None:
    """The invariants that hold at every state of every game."""
    low, high = game.observation_low, game.observation_high
    for seat in range(game.num_players):
        obs = game.observe(state, seat)
        assert obs.dtype == np.float32 and obs.shape == low.shape
        assert np.all(obs >= low) and np.all(obs <= high), (seat, obs, low, high)
    whole = game.global_state(state)  # PettingZoo's state(): inside its Box under every option
    assert whole.dtype == np.float32 and whole.shape == game.state_low.shape
    assert np.all(whole >= game.state_low) and np.all(whole <= game.state_high), (whole, game.state_slices)
    legal = game.legal_actions(state)
    assert legal == sorted(set(legal)) and all(0 <= a < game.num_actions for a in legal)
    if game.is_terminal(state):
        assert legal == [] and not game.is_chance(state)
        returns = game.returns(state)
        assert abs(sum(returns)) < 1e-9 and max(returns) >= 0
    elif game.is_chance(state):
        assert legal == []
    else:
        assert legal, "a decision state without legal actions"
        assert 0 <= game.current_player(state) < game.num_players


def engine_step(game, state, rng: np.random.Generator):
    """One fuzz step: maybe a bad input (which must raise ValueError), then a good one."""
    if game.is_chance(state):
        k = game.num_dice_to_roll(state)
        dice = tuple(sorted(rng.integers(1, 7, k).tolist()))
        if rng.random() < 0.25:
            bads = bad_dice(dice)
            bad = bads[int(rng.integers(len(bads)))]
            with pytest.raises(ValueError):
                game.apply_chance(state, bad)
        if rng.random() < 0.05:  # an action at a chance state
            with pytest.raises(ValueError):
                game.apply_action(state, 0)
        return game.apply_chance(state, good_forms(dice, rng) if rng.random() < 0.3 else dice)
    legal = game.legal_actions(state)
    if rng.random() < 0.25:
        bads = bad_actions(game.num_actions, legal)
        bad = bads[int(rng.integers(len(bads)))]
        with pytest.raises(ValueError):
            game.apply_action(state, bad)
    if rng.random() < 0.05:  # dice at a decision
        with pytest.raises(ValueError):
            game.apply_chance(state, (1,) * 6)
    action = legal[int(rng.integers(len(legal)))]
    return game.apply_action(state, action_form(action, rng) if rng.random() < 0.3 else action)


def fuzz_engine(game, seed: int, max_steps: int) -> tuple[int, bool]:
    """Walk one game for at most ``max_steps`` steps; return the steps taken and whether it ended."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    check_state(game, state)
    bound = length_bound(game)
    pickle_at = int(rng.integers(1, 200))
    steps = 0
    while not game.is_terminal(state) and steps < max_steps:
        if steps == pickle_at:
            # Pickled mid-game, the game and state continue exactly as the originals do.
            twin_game, twin_state = pickle.loads(pickle.dumps((game, state)))
            assert twin_state == state
            twin_rng = copy.deepcopy(rng)
            original = state
            for _ in range(50):
                if game.is_terminal(state):
                    break
                state = engine_step(game, state, rng)
                twin_state = engine_step(twin_game, twin_state, twin_rng)
                assert twin_state == state
                steps += 1
            assert original is not state or game.is_terminal(state)
            continue
        state = engine_step(game, state, rng)
        steps += 1
        check_state(game, state)
        assert bound is None or steps <= bound, f"not over within {bound} steps"
    if game.is_terminal(state):
        check_state(game, state)
    return steps, game.is_terminal(state)


def run_engine(name: str, data, budget: dict) -> None:
    options = data.draw(OPTIONS[name](), label="options")
    try:
        game = GAMES[name](**options)
    except ValueError:  # a refused combination: refused with ValueError and nothing else
        REFUSED["engine", name] += 1
        return
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    steps, ended = fuzz_engine(game, seed, budget["steps"])
    FUZZED["engine", name] += steps
    WALKED["engine", name] += 1
    FINISHED["engine", name] += ended


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=DEFAULT["examples"], deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_engine(name, data):
    run_engine(name, data, DEFAULT)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=SLOW["examples"], deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_engine_long(name, data):
    run_engine(name, data, SLOW)


# -- envs ---------------------------------------------------------------------------------------
def check_env(env, raw) -> None:
    """Observations inside their space, and the mask equal to the engine's legal actions."""
    game = raw.game
    space = raw.observation_space(raw.possible_agents[0])
    for agent in raw.possible_agents:
        obs = env.observe(agent)
        assert space.contains(obs), (agent, obs)
        mask = obs["action_mask"]
        acting = agent == raw.agent_selection and not (raw.terminations.get(agent, True) or raw.truncations.get(agent, True))
        if acting:
            assert np.flatnonzero(mask).tolist() == game.legal_actions(raw.game_state)
        else:
            assert not mask.any()


def env_step(env, raw, wrapped: bool, rng: np.random.Generator) -> bool:
    """One fuzz step of the env; return False once the game is over and every agent is out."""
    if not raw.agents:
        return False
    obs, _, term, trunc, _ = env.last()
    if term or trunc:
        if rng.random() < 0.2:  # a finished agent given an action
            with pytest.raises(ValueError):  # wrapped or not (a dead step: IllegalActionError)
                env.step(0)
        env.step(None)
        return True
    legal = np.flatnonzero(obs["action_mask"]).tolist()
    if rng.random() < 0.2:
        bads = bad_actions(raw.game.num_actions, legal)
        bad = bads[int(rng.integers(len(bads)))]
        masked_in_space = type(bad) is int and 0 <= bad < raw.game.num_actions
        if not wrapped:
            before = len(raw.history)
            with pytest.raises(ValueError):
                env.step(bad)
            assert len(raw.history) == before
        elif not masked_in_space:  # outside the Discrete space: refused as raw_env refuses it, untouched
            before = len(raw.history)
            with pytest.raises(IllegalActionError):
                env.step(bad)
            assert len(raw.history) == before
    if rng.random() < 0.05:
        with pytest.raises(ValueError, match="unknown agent"):
            env.observe(f"player_{raw.game.num_players}")
    action = legal[int(rng.integers(len(legal)))]
    env.step(action_form(action, rng) if rng.random() < 0.3 else action)
    return True


def fuzz_env(name: str, options: dict, seed: int, wrapped: bool, max_steps: int) -> tuple[int, bool]:
    module = env_module(name)
    make = module.env if wrapped else module.raw_env
    env = make(render_mode="ansi" if seed % 3 == 0 else None, **options)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    bound = length_bound(raw.game)
    pickle_at = int(rng.integers(1, 100))
    steps = 0
    while steps < max_steps:
        if steps == pickle_at and not wrapped and raw.agents:
            twin = pickle.loads(pickle.dumps(raw))
            twin_rng = copy.deepcopy(rng)
            for _ in range(30):
                going = env_step(raw, raw, False, rng)
                assert env_step(twin, twin, False, twin_rng) == going
                assert twin.history == raw.history and twin.game_state == raw.game_state
                steps += 1
                if not going:
                    break
            if not raw.agents:
                break
            continue
        if raw.agents:
            check_env(env, raw)
        if not env_step(env, raw, wrapped, rng):
            break
        steps += 1
        assert bound is None or steps <= bound + raw.game.num_players
        if seed % 3 == 0:
            assert isinstance(env.render(), str)
    ended = raw.game.is_terminal(raw.game_state)
    if ended:
        assert not raw.agents or all(raw.terminations.values())
        assert abs(sum(raw.game.returns(raw.game_state))) < 1e-9
    return steps, ended


def run_env(name: str, data, budget: dict) -> None:
    options = data.draw(OPTIONS[name](), label="options")
    wrapped = data.draw(st.booleans(), label="wrapped")
    try:
        GAMES[name](**options)
    except ValueError:
        with pytest.raises(ValueError):
            env_module(name).raw_env(**options)
        REFUSED["env", name] += 1
        return
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    steps, ended = fuzz_env(name, options, seed, wrapped, budget["steps"])
    FUZZED["env", name] += steps
    WALKED["env", name] += 1
    FINISHED["env", name] += ended


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=DEFAULT["examples"], deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_env(name, data):
    run_env(name, data, DEFAULT)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=SLOW["examples"] // 2, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_env_long(name, data):
    run_env(name, data, SLOW)
