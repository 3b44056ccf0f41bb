"""The single-agent Gymnasium view (train.view): reward attribution, masks, checkers, bad input."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from train.view import ILLEGAL_ACTION_PENALTY, SingleAgentView, make_meyer, make_syvere, make_tenthousand

# Meyer action ids (ME-10): 0 doubt, 1 believe, 3 + c claim c in the ranking list; 3 = claim 21.
DOUBT, CLAIM_21, CLAIM_32 = 0, 3, 23
# Syvere action ids (SY-12).
ROLL, STOP = 0, 1


class ScriptedDice:
    """Stands in for the view's dice stream: hands out the given rolls in order."""

    def __init__(self, rolls):
        self.rolls = list(rolls)

    def roll(self, k):
        dice = self.rolls.pop(0)
        assert len(dice) == k, f"script gave {dice} for a roll of {k} dice"
        return tuple(sorted(dice))


class ScriptedAgent:
    """An opponent that plays the given actions in order (and checks each is legal)."""

    def __init__(self, actions):
        self.actions = list(actions)

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask):
        action = self.actions.pop(0)
        assert action_mask[action] == 1
        return action


def scripted(env: SingleAgentView, rolls):
    env._dice = ScriptedDice(rolls)
    return env.reset()


@pytest.mark.parametrize(
    "rolls, expected",
    [
        ([(3, 4)], 1.0),  # the claim "21" on 43 was a lie: the claimer loses its only life (ME-4)
        ([(1, 2)], -1.0),  # it was true: the doubter loses
    ],
)
def test_meyer_learner_move_ends_the_game(rolls, expected):
    env = make_meyer(opponents=[ScriptedAgent([CLAIM_21])], learner_seat=1, num_players=2, lives=1)
    obs, info = scripted(env, rolls)
    assert info["learner_seat"] == 1
    assert env.action_masks()[DOUBT]
    obs, reward, terminated, truncated, info = env.step(DOUBT)
    assert (reward, terminated, truncated) == (expected, True, False)
    assert info["learner_return"] == expected == env.engine.returns(env.state)[1]


@pytest.mark.parametrize(
    "rolls, claim, expected",
    [
        ([(1, 2)], CLAIM_32, 1.0),  # the learner claims 32 on Meyer (true); the opponent doubts and loses
        ([(3, 4)], CLAIM_21, -1.0),  # the learner lies; the opponent's doubt ends the game
    ],
)
def test_meyer_other_seats_move_ends_the_game(rolls, claim, expected):
    """The opponent's doubt ends the game: the learner's reward arrives on the learner's own step."""
    env = make_meyer(opponents=[ScriptedAgent([DOUBT])], learner_seat=0, num_players=2, lives=1)
    scripted(env, rolls)
    obs, reward, terminated, truncated, info = env.step(claim)
    assert (reward, terminated, truncated) == (expected, True, False)
    assert env.engine.returns(env.state) == (expected, -expected)


def test_syvere_complete_tie_returns_zero():
    """SY-9: both players pass 1 point with 9 each in the same round, tied before it too: a shared
    win by everyone, C-3's complete tie (return 0)."""
    env = make_syvere(opponents=["random"], learner_seat=0, num_players=2, elimination=1, max_rolls=2)
    scripted(env, [(1, 1, 1, 2, 2, 2), (1, 1, 1, 2, 2, 2)])  # no pair sums to 7: six dice remain
    obs, reward, terminated, truncated, info = env.step(STOP)
    assert env.engine.scores(env.state) == (9, 9)
    assert (reward, terminated, info["learner_return"]) == (0.0, True, 0.0)


def test_syvere_shared_win_of_two_among_three():
    """SY-9: seats 0 and 1 go out with 9, seat 2 with 12: seats 0 and 1 share the win (+1/2 each)."""
    env = make_syvere(opponents=["random"], learner_seat=0, num_players=3, elimination=1, max_rolls=2)
    scripted(env, [(1, 1, 1, 2, 2, 2), (1, 1, 1, 2, 2, 2), (2, 2, 2, 2, 2, 2)])
    obs, reward, terminated, truncated, info = env.step(STOP)
    assert env.engine.scores(env.state) == (9, 9, 12)
    assert (reward, terminated) == (0.5, True)
    assert env.engine.returns(env.state) == (0.5, 0.5, -1.0)


@pytest.mark.parametrize(
    "make, options, opponents",
    [
        (make_meyer, {"num_players": 3, "lives": 2}, ["honest", "bluffer", "random"]),
        (make_syvere, {"num_players": 4}, ["heuristic", "random"]),
        (make_tenthousand, {"num_players": 2, "target": 2000}, ["heuristic", "greedy"]),
    ],
)
@pytest.mark.parametrize("shaping", [0.0, 1.0])
def test_episode_return_is_the_c3_return_and_masks_are_the_engines(make, options, opponents, shaping):
    """In random games, the sum of the rewards of an episode is the learner's C-3 return (shaping
    telescopes to 0), and every mask the learner sees is the engine's legal actions, never empty."""
    env = make(opponents=opponents, shaping=shaping, **options)
    rng = np.random.default_rng(7)
    seats = set()
    for episode in range(12):
        obs, info = env.reset(seed=100 + episode)
        seats.add(info["learner_seat"])
        total = 0.0
        while True:
            assert env.observation_space.contains(obs)
            mask = env.action_masks()
            legal = env.engine.legal_actions(env.state)
            assert env.engine.current_player(env.state) == env.seat
            assert np.flatnonzero(mask).tolist() == sorted(legal) and legal
            np.testing.assert_array_equal(obs, env.engine.observe(env.state, env.seat))
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            total += reward
            if terminated or truncated:
                break
        assert terminated and not truncated
        # The C-3 return: at the end of the game, or once nothing can change it (a Meyer learner
        # out of lives leaves the episode at once, its share of the losers' -1 fixed).
        c3 = env.engine.settled_return(env.state, env.seat)
        if not env.engine.is_terminal(env.state):
            assert env.engine.scores(env.state)[env.seat] == 0 and c3 == -1 / (env.num_players - 1)
        assert info["learner_return"] == c3
        assert total == pytest.approx(c3, abs=1e-9)
        if shaping == 0.0:
            assert total == c3
    assert len(seats) > 1  # the seat is drawn per episode


def test_illegal_action_ends_the_episode_with_the_penalty():
    env = make_meyer(opponents=["honest"], learner_seat=1, num_players=2)
    env.reset(seed=3)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (ILLEGAL_ACTION_PENALTY, True, False, True)
    assert env.action_masks().all()  # no decision pending: never an empty mask
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset()
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(99)


def test_an_illegal_action_returns_the_penalty_under_shaping_too():
    # The shaping paid before the illegal action is taken back, as at any end: the episode's
    # undiscounted return is the penalty whatever the standing was (it used to be Phi - 1).
    env = make_meyer(opponents=["honest"], num_players=3, shaping=1.0)
    rng = np.random.default_rng(5)
    tested = 0
    for episode in range(60):
        env.reset(seed=episode)
        paid = 0.0  # the shaping paid so far
        while True:
            mask = env.action_masks()
            if paid != 0.0 and not mask.all():  # a standing that is not the first one: go illegal
                _, reward, terminated, _, info = env.step(int(np.flatnonzero(~mask)[0]))
                assert info["illegal_action"] and terminated
                assert paid + reward == pytest.approx(ILLEGAL_ACTION_PENALTY, abs=1e-12)
                tested += 1
                break
            _, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            if terminated or truncated:
                break
            paid += reward
    assert tested >= 10


@pytest.mark.parametrize(
    "options, message",
    [
        ({"learner_seat": -1}, r"learner_seat must be None or a seat 0\.\.2, got -1"),
        ({"learner_seat": 3}, r"learner_seat must be None or a seat 0\.\.2, got 3"),
        ({"learner_seat": True}, "learner_seat must be None or a seat"),
        ({"opponents": [0]}, r"the opponents option must be 3 indices into the pool of 1 \(one per seat\)"),
        ({"opponents": [0, 1, 0]}, "the opponents option must be 3 indices"),
        ({"opponents": "000"}, "the opponents option must be 3 indices"),
        ({"learner_seats": 0}, "unknown reset option 'learner_seats'; options are: learner_seat, opponents"),
    ],
)
def test_bad_reset_options_are_value_errors_whatever_the_seed(options, message):
    # Each used to fail only for some seeds (a short opponents list when the learner drew seat 0),
    # as an IndexError, or after 1000 games played without the learner (learner_seat=-1).
    env = make_meyer(opponents=["honest"], num_players=3)
    for seed in range(6):
        with pytest.raises(ValueError, match=message):
            env.reset(seed=seed, options=options)


def test_reset_with_a_seed_is_reproducible():
    env = make_tenthousand(opponents=["heuristic"], num_players=2)
    runs = []
    for _ in range(2):
        obs, info = env.reset(seed=11)
        trace = [obs.tolist()]
        while True:
            obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trace.append(obs.tolist())
            if terminated or truncated:
                break
        runs.append((trace, reward, info["learner_seat"]))
    assert runs[0] == runs[1]


def test_opponents_are_drawn_by_weight_and_can_be_fixed():
    env = make_meyer(opponents=["honest", "bluffer"], weights=[0, 1], num_players=3)
    for seed in range(5):
        _, info = env.reset(seed=seed)
        assert sorted(i for i in info["opponents"] if i is not None) == [1, 1]
    _, info = env.reset(seed=9, options={"learner_seat": 2, "opponents": [0, 0, 0]})
    assert (info["learner_seat"], info["opponents"]) == (2, [0, 0, None])
    env.set_opponents(["doubter"])
    _, info = env.reset(seed=1)
    assert type(env.seat_agents[(info["learner_seat"] + 1) % 3]).__name__ == "BayesianDoubter"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": "meyer", "opponents": []}, "at least one"),
        ({"game": "meyer", "opponents": ["honest"], "weights": [-1]},
         r"weights must be one non-negative number per opponent \(1\), not all 0, got \[-1\]"),
        ({"game": "meyer", "opponents": [3]}, "SPEC string"),
        ({"game": "meyer", "learner_seat": 2}, "learner_seat"),
        ({"game": "meyer", "shaping": -1}, "shaping"),
        # SY-4 with a limit of one roll: no turn has a choice, so no reset() could ever reach one.
        ({"game": "syvere", "max_rolls": 1}, "no decisions to learn"),
        # The view's own arguments are listed beside the game's options.
        ({"game": "meyer", "colour": "red"},
         "unknown option 'colour' for meyer; options are: num_players, .*, history, opponents, weights, "
         "learner_seat, shaping, max_cycles, render_mode$"),
    ],
)
def test_bad_input_is_a_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SingleAgentView(**kwargs)


def test_unknown_opponent_spec_is_a_value_error():
    with pytest.raises(ValueError, match="no_such_agent"):
        make_meyer(opponents=["no_such_agent"])  # when the pool is set, not at the first reset


@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("dice/Meyer-v0", {"opponents": ["honest", "doubter"], "num_players": 2}),
        ("dice/Syvere-v0", {"opponents": ["heuristic"], "num_players": 4}),
        ("dice/TenThousand-v0", {"opponents": ["heuristic"], "num_players": 2, "preset": "dk"}),
    ],
)
def test_env_checkers(env_id, kwargs):
    """Gymnasium's and SB3's env checkers pass (they send unmasked actions: the view ends those
    episodes with the penalty instead of raising)."""
    import dice_envs  # noqa: F401 - registers the Gymnasium ids
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    env = gymnasium.make(env_id, **kwargs)
    gym_check(env.unwrapped)
    sb3_check(env.unwrapped, warn=True)
    obs, _ = env.reset(seed=0)
    assert env.unwrapped.action_masks().any()


def test_info_carries_the_mask_of_every_decision():
    """``info["action_mask"]`` of reset and of every step is the engine's legal actions (all ones
    after the end), the same booleans as ``action_masks()``, and reachable through the wrappers
    that ``gymnasium.make`` adds, which do not pass ``action_masks`` on."""
    import dice_envs  # noqa: F401 - registers the Gymnasium ids

    env = gymnasium.make("dice/Syvere-v0", opponents="heuristic", num_players=3)
    rng = np.random.default_rng(3)
    for episode in range(5):
        obs, info = env.reset(seed=episode)
        while True:
            view = env.unwrapped
            legal = sorted(view.engine.legal_actions(view.state))
            assert info["action_mask"].dtype == bool and view.action_masks().dtype == bool
            assert np.flatnonzero(info["action_mask"]).tolist() == legal
            np.testing.assert_array_equal(info["action_mask"], view.action_masks())
            # Gymnasium's own idiom for a masked random move (it takes int8), as the docs say.
            action = env.action_space.sample(mask=info["action_mask"].astype(np.int8))
            assert action in legal
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            if terminated or truncated:
                break
        assert info["action_mask"].all()
    # A copy at a decision: changing it changes neither the view's answer nor the next info's mask.
    obs, info = env.reset(seed=9)
    legal = sorted(env.unwrapped.engine.legal_actions(env.unwrapped.state))
    info["action_mask"][:] = False
    assert np.flatnonzero(env.unwrapped.action_masks()).tolist() == legal
    mask = env.unwrapped.action_masks()
    mask[:] = False
    assert np.flatnonzero(env.unwrapped.action_masks()).tolist() == legal


def test_a_single_spec_is_a_pool_of_one():
    env = make_meyer(opponents="honest", num_players=3)
    assert env.opponents == ["honest"]
    _, info = env.reset(seed=0)
    assert sorted(i for i in info["opponents"] if i is not None) == [0, 0]
    assert {type(a).__name__ for a in env.seat_agents if a is not None} == {"HonestAgent"}


def test_sb3_make_vec_env_builds_the_view():
    """SB3's ``make_vec_env`` asks for ``render_mode="rgb_array"`` and retries without it only on a
    ``TypeError``: the view's render-mode error is one (and still a ``ValueError``)."""
    import dice_envs  # noqa: F401 - registers the Gymnasium ids
    from stable_baselines3.common.env_util import make_vec_env

    from train.view import RenderModeError

    with pytest.raises(TypeError, match="render_mode"):
        SingleAgentView("meyer", render_mode="rgb_array")
    assert issubclass(RenderModeError, ValueError)
    venv = make_vec_env("dice/Meyer-v0", n_envs=2, seed=0, env_kwargs={"opponents": ["honest"], "num_players": 2})
    obs = venv.reset()
    assert obs.shape[0] == 2
    masks = np.stack(venv.env_method("action_masks"))
    assert masks.shape == (2, venv.action_space.n) and masks.any(axis=1).all()
    venv.close()


def test_gym_ids_by_game():
    from dice_envs.registry import GYM_ENVS, gym_id

    assert [gym_id(game) for game in ("syvere", "tenthousand", "meyer")] == list(GYM_ENVS)
    assert gym_id("dice/Meyer-v0") == "dice/Meyer-v0"
    with pytest.raises(ValueError, match="unknown game 'chess'; the single-agent views are dice/Syvere-v0"):
        gym_id("chess")
    env = gymnasium.make(gym_id("tenthousand"), num_players=3)
    assert env.unwrapped.game_name == "tenthousand" and env.unwrapped.num_players == 3


@pytest.mark.parametrize("name", ["agents", "train"])
def test_a_module_of_the_users_that_hides_ours_is_named(tmp_path, name):
    # agents and train are top-level packages (the layout); a user's agents.py used to fail as
    # "module 'agents' has no attribute 'make_agent'", a train.py as "No module named 'train.view'".
    import subprocess
    import sys

    (tmp_path / f"{name}.py").write_text("print('the user module ran')\nx = 1\n")
    code = "import gymnasium, dice_envs\ngymnasium.make('dice/Meyer-v0', opponents='honest').reset(seed=0)\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "ran" not in done.stdout  # named without being run (a script would have run twice)
    assert done.stderr.strip().splitlines()[-1] == (
        f"ImportError: dice-envs' package '{name}' is hidden by {tmp_path.resolve() / name}.py, which comes "
        "first on sys.path (often a file in the working directory): rename it, or run from another directory"
    )


def test_the_trained_agent_names_a_train_py_of_the_users_without_running_it(tmp_path):
    # make_agent(..., "trained") imported train.view plainly: a user's train.py ran, then
    # "No module named 'train.view'; 'train' is not a package" (outside API review 8).
    import subprocess
    import sys

    (tmp_path / "train.py").write_text("print('the user module ran')\n")
    code = "import agents\nagents.make_agent('meyer', 'trained')\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "ran" not in done.stdout
    assert done.stderr.strip().splitlines()[-1].startswith(
        f"ImportError: dice-envs' package 'train' is hidden by {tmp_path.resolve() / 'train'}.py"
    )


def test_a_folder_of_the_users_that_hides_ours_is_named(tmp_path):
    # An empty agents/ folder in the working directory is a namespace package to Python, and with an
    # editable install it comes first; the message named "None" (outside RL-pipeline review).
    import subprocess
    import sys

    (tmp_path / "agents").mkdir()
    code = "import gymnasium, dice_envs\ngymnasium.make('dice/Meyer-v0', opponents='honest').reset(seed=0)\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"ImportError: dice-envs' package 'agents' is hidden by the folder {tmp_path.resolve() / 'agents'} (a folder "
        "without __init__.py is a package to Python), which comes first on sys.path (often a file in the working "
        "directory): rename it, or run from another directory"
    )


def test_human_render_prints_after_reset_and_every_step(capsys):
    env = gymnasium.make("dice/Syvere-v0", opponents="heuristic", num_players=2, render_mode="human")
    env.reset(seed=0)
    assert "player_0" in capsys.readouterr().out
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert "player_" in capsys.readouterr().out
    assert env.render() is None and "player_" in capsys.readouterr().out
    ansi = make_syvere(opponents="heuristic", num_players=2, render_mode="ansi")
    ansi.reset(seed=0)
    assert capsys.readouterr().out == "" and "player_0" in ansi.render()
