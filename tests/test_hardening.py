"""Regression tests of issue 7's engine and env defects, one test per defect, named after what it checks."""

from __future__ import annotations

import pytest

from dice_envs.env import check_options
from dice_envs.games import meyer, syvere, tenthousand

GAMES = {"syvere": syvere.Game, "tenthousand": tenthousand.Game, "meyer": meyer.Game}


# -- item 7: the unknown-option message lists only the names the caller takes -------------------
@pytest.mark.parametrize("name", sorted(GAMES))
def test_unknown_option_message_lists_extras_only_where_the_caller_takes_them(name):
    game_class = GAMES[name]
    with pytest.raises(ValueError, match="'colour'") as env_error:
        check_options(game_class, {"colour": 1})
    assert "render_mode" in str(env_error.value) and "max_cycles" in str(env_error.value)
    assert "num_players" in str(env_error.value)
    with pytest.raises(ValueError, match="'colour'") as play_error:
        check_options(game_class, {"colour": 1}, extras=())
    assert "render_mode" not in str(play_error.value) and "max_cycles" not in str(play_error.value)
    assert "num_players" in str(play_error.value)
    # An extra the caller takes is not unknown; one it does not take is.
    assert check_options(game_class, {"max_cycles": 5}, extras=("max_cycles",)) == {"max_cycles": 5}
    with pytest.raises(ValueError, match="'render_mode'"):
        check_options(game_class, {"render_mode": "ansi"}, extras=())


def test_unknown_tenthousand_option_is_named_with_every_option():
    with pytest.raises(ValueError) as error:
        check_options(tenthousand.Game, {"targte": 500}, extras=())
    message = str(error.value)
    assert "'targte'" in message
    for option in ("target", "exact_target", "bust_penalty_after", "preset", "first_starter"):
        assert option in message


# -- item 1: every game of 10 000 ends (TT-9d) ---------------------------------------------------
def _tt_decision(game, roll, **fields):
    """The state after ``roll`` at the start of a turn, with some public fields set first."""
    return game.apply_chance(game.initial_state()._replace(**fields), roll)


def _can_bank(game, state, faces: str) -> bool:
    legal = {game.action_to_string(state, a) for a in game.legal_actions(state)}
    return f"keep {faces} bank" in legal


def _play_random(game, seed: int, max_steps: int) -> int | None:
    """Play ``game`` with uniformly random legal actions and dice; the steps taken, or ``None``
    if it did not end within ``max_steps``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    state = game.initial_state()
    for step in range(max_steps):
        if game.is_terminal(state):
            return step
        if game.is_chance(state):
            state = game.apply_chance(state, tuple(rng.integers(1, 7, game.num_dice_to_roll(state)).tolist()))
        else:
            legal = game.legal_actions(state)
            state = game.apply_action(state, legal[rng.integers(len(legal))])
    return None


def test_exact_target_bank_that_hits_the_target_is_allowed_below_min_bank():
    game = tenthousand.Game(preset="dk", exact_target=True)
    roll = (1, 2, 3, 3, 4, 6)  # only the 1 scores
    near = {"totals": (9900, 0), "opened": (True, False)}
    assert _can_bank(game, _tt_decision(game, roll, **near), "1")  # 100 < min_bank 300, but exact
    assert game.bank_refusal(_tt_decision(game, roll, **near), (1,)) is None
    # A bank that does not hit the target exactly is still held to min_bank.
    assert not _can_bank(game, _tt_decision(game, roll, totals=(9800, 0), opened=(True, False)), "1")


def test_exact_target_bank_that_hits_the_target_is_allowed_below_the_opening():
    game = tenthousand.Game(preset="dk", exact_target=True, target=500, opening=500)
    state = _tt_decision(game, (1, 2, 3, 3, 4, 6), turn_total=400)
    assert _can_bank(game, state, "1")
    game = tenthousand.Game(preset="no", exact_target=True, target=1000, over_threshold=True)
    state = _tt_decision(game, (2, 2, 3, 3, 4, 5), totals=(950, 0), opened=(False, False))
    assert _can_bank(game, state, "5")  # opening 500 and over_threshold waived: exactly 1000


@pytest.mark.parametrize("seed", range(3))
def test_exact_target_with_dk_defaults_games_end(seed):
    game = tenthousand.Game(num_players=2, preset="dk", exact_target=True)
    assert _play_random(game, seed, max_steps=200_000) is not None


@pytest.mark.parametrize("seed", range(3))
def test_target_500_exact_target_games_end(seed):
    game = tenthousand.Game(num_players=2, preset="dk", target=500, exact_target=True)
    assert _play_random(game, seed, max_steps=200_000) is not None


def test_preset_thresholds_above_a_smaller_target_are_lowered_to_it():
    game = tenthousand.Game(preset="dk", target=500)
    assert (game.opening, game.min_bank) == (500, 300)
    game = tenthousand.Game(preset="farkle", target=250)
    assert (game.opening, game.min_bank) == (250, 250)


@pytest.mark.parametrize(
    "options, names",
    [
        ({"target": 500, "opening": 1000}, ("opening", "target")),
        ({"target": 500, "min_bank": 550}, ("min_bank", "target")),
        ({"exact_target": True, "bust_penalty": 30}, ("bust_penalty", "exact_target")),
    ],
)
def test_options_under_which_a_player_could_never_finish_are_refused(options, names):
    with pytest.raises(ValueError) as error:
        tenthousand.Game(**options)
    for name in names:
        assert name in str(error.value)


# -- item 5: Ten thousand play shows the engine's own reason why a bank is refused ---------------
def test_play_names_the_opening_not_hot_dice_after_122255_at_the_start_of_a_dk_game():
    from dice_envs.play import tenthousand as hooks

    game = tenthousand.Game(preset="dk")
    state = game.apply_chance(game.initial_state(), (1, 2, 2, 2, 5, 5))
    reason = game.bank_refusal(state)
    assert "1000" in reason and "hot dice" not in reason
    lines = [line for line in hooks.describe(game, state, 0).splitlines() if "No bank" in line]
    assert lines == [f"  No bank yet: {reason}"]
    with pytest.raises(ValueError) as error:
        hooks.parse(game, state, "b")
    assert str(error.value) == f"you cannot bank now: {reason}"


def test_engine_bank_refusal_without_a_selection_is_none_when_some_bank_is_open():
    game = tenthousand.Game(preset="dk")
    state = game.apply_chance(game.initial_state()._replace(turn_total=900), (1, 2, 2, 2, 5, 5))
    assert game.bank_refusal(state) is None  # keep 1 bank makes 1000
    assert "hot dice" in game.bank_refusal(state, (1, 2, 2, 2, 5, 5))


# -- item 2: one input rule for actions and dice, in every engine and env ------------------------
import numpy as np  # noqa: E402

from dice_envs.registry import env_module  # noqa: E402

BAD_ACTIONS = [
    1.0, 0.0, True, False, np.float32(0), np.float64(1), 1 + 0j, "0", "roll", None,
    np.array([0]), np.array([1]), np.bool_(True), np.array(0.0), np.array(True), [0], (1,),
]  # fmt: skip


def _decision_state(game, seed=0):
    """The first decision state of a random game."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    while game.is_chance(state):
        state = game.apply_chance(state, tuple(rng.integers(1, 7, game.num_dice_to_roll(state)).tolist()))
    return state


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("bad", BAD_ACTIONS, ids=repr)
def test_apply_action_refuses_every_non_integer_action_with_a_value_error_naming_it(name, bad):
    game = GAMES[name](num_players=3)
    state = _decision_state(game)
    with pytest.raises(ValueError) as error:
        game.apply_action(state, bad)
    assert repr(bad) in str(error.value)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_apply_action_takes_ints_numpy_integers_and_0d_integer_arrays_alike(name):
    game = GAMES[name](num_players=3)
    state = _decision_state(game)
    action = game.legal_actions(state)[-1]
    expected = game.apply_action(state, action)
    for form in (np.int64(action), np.int8(action), np.uint16(action), np.array(action), np.array(action, np.int32)):
        assert game.apply_action(state, form) == expected


def _bad_dice(k):
    return [
        (1.0,) * k, (True,) * k, (1 + 0j,) * k, None, 5, "1" * k, (1,) * (k - 1), (1,) * (k + 1), (7,) * k,
        (0,) * k, (np.float64(2),) * k, np.ones(k), np.array(3), (np.True_,) * k, ((2,),) * k,
        (3, 4.0, 2, 1, 5, 6)[:k] if k > 1 else (4.0,),
    ]  # fmt: skip


@pytest.mark.parametrize("name", sorted(GAMES))
def test_apply_chance_refuses_every_bad_roll_with_a_value_error(name):
    game = GAMES[name](num_players=3)
    state = game.initial_state()
    k = game.num_dice_to_roll(state)
    for bad in _bad_dice(k):
        with pytest.raises(ValueError, match="dice"):
            game.apply_chance(state, bad)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_apply_chance_takes_dice_in_any_order_and_integer_form_alike(name):
    game = GAMES[name](num_players=3)
    state = game.initial_state()
    k = game.num_dice_to_roll(state)
    faces = (6, 1, 3, 3, 5, 2)[:k]
    expected = game.apply_chance(state, tuple(sorted(faces)))
    for form in (faces, list(faces), np.array(faces), tuple(np.int8(f) for f in faces), np.array(faces, np.uint8)):
        assert game.apply_chance(state, form) == expected


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("bad", BAD_ACTIONS, ids=repr)
def test_raw_env_step_refuses_every_non_integer_action_with_a_value_error(name, bad):
    env = env_module(name).raw_env(num_players=3)
    env.reset(seed=1)
    with pytest.raises(ValueError):
        env.step(bad)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_wrapped_env_takes_a_legal_0d_array_and_refuses_out_of_space_values(name):
    env = env_module(name).env(num_players=3)
    env.reset(seed=1)
    obs, *_ = env.last()
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    before = len(env.unwrapped.history)
    env.step(np.array(legal))
    assert env.unwrapped.history[before][:3] == ("action", 0, legal)
    assert not any(env.terminations.values()) or env.unwrapped.game.is_terminal(env.unwrapped.game_state)
    # Values outside the Discrete space (a bool, a float, a 1-element array, None for a live
    # agent) stop at the out-of-bounds wrapper with the raw env's IllegalActionError (PettingZoo's
    # asserted, which python -O removes), the game untouched.
    from dice_envs.errors import IllegalActionError

    for bad in (True, 1.0, np.array([0]), None, -1, env.unwrapped.game.num_actions):
        fresh = env_module(name).env(num_players=3)
        fresh.reset(seed=1)
        with pytest.raises(IllegalActionError):
            fresh.step(bad)
        assert len(fresh.unwrapped.history) == 1 and not any(fresh.terminations.values())


# -- item 3: observe with a bad seat ---------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("seat", [2, 5, -1, -2, True, False, 0.0, 1.0, None, "0", np.array([0])], ids=repr)
def test_observe_with_a_bad_seat_raises_a_value_error_naming_it(name, seat):
    game = GAMES[name](num_players=2)
    for state in (game.initial_state(), _decision_state(game)):
        with pytest.raises(ValueError, match="seat") as error:
            game.observe(state, seat)
        assert repr(seat) in str(error.value)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_observe_takes_a_numpy_integer_seat(name):
    game = GAMES[name](num_players=3)
    state = _decision_state(game)
    np.testing.assert_array_equal(game.observe(state, np.int64(2)), game.observe(state, 2))


# -- item 7: the env after the game ends, and unknown agents ----------------------------------------
def _play_out(env, seed=0):
    """Play random legal actions until agent_iter stops (every agent stepped with None at the end)."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in env.agent_iter(100_000):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.agents == []


@pytest.mark.parametrize("name", sorted(GAMES))
def test_raw_env_step_and_last_after_the_game_say_it_is_over(name):
    env = env_module(name).raw_env(num_players=2)
    _play_out(env)
    for call in (lambda: env.step(0), lambda: env.step(None), env.last):
        with pytest.raises(ValueError, match="game is over.*reset"):
            call()
    env.reset(seed=1)  # and the env plays on after a reset
    assert env.last()[0]["observation"].shape == env.game.observation_low.shape


@pytest.mark.parametrize("name", sorted(GAMES))
def test_wrapped_env_last_after_the_game_says_it_is_over(name):
    env = env_module(name).env(num_players=2)
    _play_out(env)
    with pytest.raises(ValueError, match="game is over.*reset"):
        env.last()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_dead_agents_are_still_stepped_with_none(name):
    env = env_module(name).raw_env(num_players=3)
    _play_out(env)  # steps every terminated agent with None, as PettingZoo's convention asks


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("agent", ["player_9", "player_-1", 0, None, "PLAYER_0"], ids=repr)
def test_observe_an_unknown_agent_raises_a_value_error_naming_it(name, agent):
    for env in (env_module(name).raw_env(num_players=2), env_module(name).env(num_players=2)):
        env.reset(seed=0)
        with pytest.raises(ValueError, match="agent") as error:
            env.observe(agent)
        assert repr(agent) in str(error.value) and "player_0" in str(error.value)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_raw_env_before_reset_says_to_reset(name):
    env = env_module(name).raw_env()
    for call in (lambda: env.step(0), env.last, lambda: env.observe("player_0")):
        with pytest.raises(ValueError, match="reset"):
            call()


# -- item 7: string_to_action of a non-string ------------------------------------------------------
@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("text", [None, 0, 1.0, b"roll", ["roll"]], ids=repr)
def test_string_to_action_of_a_non_string_raises_a_value_error_naming_it(name, text):
    game = GAMES[name]()
    state = _decision_state(game)
    with pytest.raises(ValueError, match="string") as error:
        game.string_to_action(state, text)
    assert repr(text) in str(error.value)


# -- item 7: selections of a roll that cannot be ---------------------------------------------------
@pytest.mark.parametrize(
    "roll", [(1, 1, 1, 1, 1, 1, 1), (), (1, 2, 7), (0, 1), (1.0, 5), (True,), None, 5, "1234567"], ids=repr
)
def test_selections_of_an_impossible_roll_raise_a_value_error(roll):
    game = tenthousand.Game()
    with pytest.raises(ValueError, match="dice"):
        game.selections(roll)


# -- item 7: every unbounded option has an upper bound ----------------------------------------------
UPPER_BOUNDS = [
    ("syvere", "elimination", 1000),
    ("syvere", "max_rolls", 100),
    ("meyer", "lives", 100),
    ("meyer", "meyer_costs", 100),
    ("tenthousand", "target", 1_000_000),
    ("tenthousand", "bust_penalty", 1_000_000),
    ("tenthousand", "bust_penalty_after", 100),
    ("tenthousand", "straight", 1_000_000),
    ("tenthousand", "three_pairs", 1_000_000),
]


@pytest.mark.parametrize("name, option, high", UPPER_BOUNDS)
def test_every_unbounded_option_has_an_upper_bound_and_finite_observation_bounds(name, option, high):
    game = GAMES[name](**{option: high})
    for bound in (game.observation_low, game.observation_high):
        assert bound.dtype == np.float32 and np.all(np.isfinite(bound))
        assert np.array_equal(bound, bound.astype(np.float64).round())  # exact integers in float32
    step = 50 if name == "tenthousand" and option != "bust_penalty_after" else 1
    for too_big in (high + step, int(3.4e38), 10**400):
        with pytest.raises(ValueError, match=option) as error:
            GAMES[name](**{option: too_big})
        assert str(high) in str(error.value)


def test_tenthousand_opening_and_min_bank_are_bounded_by_the_target():
    game = tenthousand.Game(target=1_000_000, opening=1_000_000, min_bank=1_000_000)
    assert np.all(np.isfinite(game.observation_high))
    with pytest.raises(ValueError, match="opening"):
        tenthousand.Game(target=1000, opening=int(3.4e38))


# -- item 7: the Syvere docs' tie-break wording (SY-9) ----------------------------------------------
def test_syvere_docs_say_only_the_players_of_the_final_round_count_in_the_tie_break():
    for module in (env_module("syvere"), syvere):
        doc = " ".join(module.__doc__.split())
        assert "only the players of that final round count" in doc, module.__name__
        assert "a player out in an earlier round cannot win" in doc, module.__name__


# -- item 9: env modules as lazy attributes of the package; Gymnasium ids ---------------------------
def _run_python(code: str) -> str:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_env_modules_are_lazy_attributes_of_the_package_and_import_stays_light():
    out = _run_python(
        "import sys\n"
        "import dice_envs\n"
        "heavy = ['dice_envs.env', 'dice_envs.syvere_v0', 'dice_envs.meyer_v0', 'dice_envs.tenthousand_v1',\n"
        "         'dice_envs.games', 'train', 'agents', 'evaluate',\n"
        "         'torch', 'stable_baselines3', 'scipy', 'numba', 'matplotlib']\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "module = dice_envs.syvere_v0\n"
        "print(module.__name__, 'dice_envs.syvere_v0' in sys.modules, module.raw_env().game.name)\n"
        "print(dice_envs.tenthousand_v1.__name__, dice_envs.meyer_v0.__name__)\n"
        "print(all(name in dir(dice_envs) for name in ('syvere_v0', 'meyer_v0', 'tenthousand_v1')))\n"
    )
    assert out.splitlines() == [
        "[]",
        "dice_envs.syvere_v0 True syvere",
        "dice_envs.tenthousand_v1 dice_envs.meyer_v0",
        "True",
    ]


def test_an_unknown_or_old_env_attribute_says_what_exists():
    import dice_envs

    with pytest.raises(AttributeError, match="tenthousand_v1"):
        dice_envs.tenthousand_v0  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'chess_v0'"):
        dice_envs.chess_v0  # noqa: B018


def test_gymnasium_ids_are_registered_on_import_with_lazy_string_entry_points():
    out = _run_python(
        "import sys\n"
        "import gymnasium\n"
        "import dice_envs\n"
        "for name in ('Syvere', 'TenThousand', 'Meyer'):\n"
        "    spec = gymnasium.spec(f'dice/{name}-v0')\n"
        "    print(spec.id, spec.entry_point)\n"
        "print('train.view' in sys.modules)\n"
    )
    assert out.splitlines() == [
        "dice/Syvere-v0 dice_envs.registry:make_syvere_view",
        "dice/TenThousand-v0 dice_envs.registry:make_tenthousand_view",
        "dice/Meyer-v0 dice_envs.registry:make_meyer_view",
        "False",  # string entry points: nothing of train is imported until gymnasium.make
    ]
