"""A game settled before the learner's first decision is still an episode of the single-agent view
(one formal step that pays the learner's C-3 return), so returns measured through the view are the
game's, not the game's given that the learner got a turn (outside RL-pipeline review, finding 1)."""

from __future__ import annotations

import numpy as np
import pytest

from train.evaluation import play_against
from train.view import SingleAgentView

FIRST_OUT = {"num_players": 4, "lives": 1, "end": "first_out"}


def _settled_episode(view: SingleAgentView, seat: int, first_seed: int = 0):
    """The first seed from ``first_seed`` on whose game is over before the learner's turn."""
    for seed in range(first_seed, first_seed + 500):
        obs, info = view.reset(seed=seed, options={"learner_seat": seat})
        if not info["decision"]:
            return seed, obs, info
    raise AssertionError("no game settled before the learner's turn in 500 seeds")


def test_a_game_over_before_the_learners_turn_is_one_formal_step_paying_its_return():
    view = SingleAgentView("meyer", opponents=["random"], **FIRST_OUT)
    seed, obs, info = _settled_episode(view, seat=3)
    engine = view.engine
    assert engine.is_terminal(view.state)  # first_out: someone else lost the only life
    expected = float(engine.returns(view.state)[3])
    assert expected == pytest.approx(1 / 3)  # C-3 under first_out: the one out -1, the others share +1
    mask = view.action_masks()
    assert mask.tolist() == [True] + [False] * (engine.num_actions - 1) and info["action_mask"].tolist() == mask.tolist()
    assert view.observation_space.contains(obs)
    obs2, reward, terminated, truncated, info2 = view.step(5)  # any action: nothing is decided
    assert (reward, terminated, truncated) == (expected, True, False)
    assert info2["learner_return"] == expected and info2["decision"] is False
    with pytest.raises(RuntimeError, match="after the end of the episode"):
        view.step(0)
    # the next reset is a fresh game with a decision pending again, as usual
    for s in range(seed + 1, seed + 50):
        _, info3 = view.reset(seed=s, options={"learner_seat": 0})
        if info3["decision"]:
            assert view.action_masks().sum() >= 1 and not engine.is_terminal(view.state)
            break
    else:
        raise AssertionError("no game with a learner's decision")


def test_shaping_still_adds_up_to_the_return_in_a_formal_episode():
    view = SingleAgentView("meyer", opponents=["random"], shaping=0.5, **FIRST_OUT)
    _, _, _ = _settled_episode(view, seat=2)
    expected = float(view.engine.returns(view.state)[2])
    _, reward, terminated, _, _ = view.step(0)
    assert terminated and reward == expected


def test_random_play_against_random_play_scores_its_fair_share():
    # By symmetry a random learner among random players wins 1/4 and returns 0 on average. The view
    # used to replay games that ended before the learner's turn and measured -0.14 here.
    result = play_against(_random_act(np.random.default_rng(5)), "meyer", FIRST_OUT, "random", deals=750, seed=1000)
    assert result.games == 3000
    mean = result.mean_return
    # C-3 returns here are -1 or +1/3: standard deviation sqrt(1/3) ~ 0.577 per game
    assert abs(mean) < 4 * 0.5774 / np.sqrt(result.games), mean


def test_a_teacher_skips_the_formal_steps():
    from types import SimpleNamespace

    from train.teacher import collect

    args = SimpleNamespace(game="meyer", baselines=["random"], learner_seat=None, shaping=0.0,
                           options=dict(FIRST_OUT), teacher="honest")  # fmt: skip
    data = collect(args, n_states=200, seed=3)
    assert len(data["obs"]) >= 200
    assert data["masks"].sum(axis=1).min() >= 1
    # every kept decision has a real choice set: no formal one-action mask on a settled game
    formal = np.zeros(data["masks"].shape[1], dtype=bool)
    formal[0] = True
    assert not any((m == formal).all() for m in data["masks"])


def _random_act(rng):
    def act(obs, mask):
        return int(rng.choice(np.flatnonzero(mask)))

    return act


class _Doubter:
    """Doubts whenever it may, else makes the lowest legal claim; records the seats it is told."""

    def __init__(self):
        self.seats = []

    def reset(self, seed=None):
        self.told = None

    def set_seat(self, seat):
        self.told = seat
        self.seats.append(seat)

    def act(self, observation, action_mask):
        legal = np.flatnonzero(action_mask)
        return 0 if action_mask[0] else int(legal.max())


def test_a_seat_the_opponents_never_let_decide_is_refused_not_looped_on():
    # Three players, one life, first_out: the opponents in seats 0 and 1 doubt at once, so the game
    # is over before seat 2 ever decides (an outside review's hang of the teacher).
    from train.view import MAX_FORMAL_EPISODES

    view = SingleAgentView("meyer", opponents=[_Doubter()], learner_seat=2, num_players=3, lives=1, end="first_out")
    with pytest.raises(RuntimeError, match=f"{MAX_FORMAL_EPISODES} games in a row were over before the learner's "
                                           "first turn \\(learner in seat 2"):  # fmt: skip
        for _ in range(MAX_FORMAL_EPISODES + 1):
            _, info = view.reset()
            assert not info["decision"]
            view.step(0)


def test_the_views_opponents_are_told_their_seats():
    agent = _Doubter()
    view = SingleAgentView("meyer", opponents=[agent], learner_seat=0, num_players=3, lives=2)
    view.reset(seed=1)
    # one agent object plays both other seats here: it is told each in turn, the last one kept
    assert agent.seats == [1, 2]


def test_a_numpy_integer_seeds_the_view_like_the_same_python_int():
    # Gymnasium's seeding refused np.int64 ("Seed must be a python integer"; RL-pipeline review)
    view = SingleAgentView("meyer", opponents=["random"], num_players=2)
    a, _ = view.reset(seed=np.int64(3))
    b, _ = view.reset(seed=3)
    assert (a == b).all()
