"""The single-agent view, from an SB3/CleanRL user's review: a bad opponent is refused when the
pool is set, a step never hangs, and the arguments are checked by their types."""

from __future__ import annotations

import numpy as np
import pytest

import train.view as view
from dice_envs.games import meyer
from train.view import SingleAgentView


@pytest.mark.parametrize(
    ("opponents", "message"),
    [(["honest", "honnest"], "unknown agent 'honnest'"), (["honest", "runs/none/policy"], "runs/none/policy"),
     (["bluffer:lie_probability=2"], "lie_probability")],
)  # fmt: skip
def test_a_bad_opponent_is_refused_when_the_pool_is_set(opponents, message):
    """It once passed the constructor and the first resets, and stopped training when first drawn."""
    with pytest.raises(ValueError, match=message):
        SingleAgentView("meyer", opponents=opponents, weights=[200, 1][: len(opponents)])
    env = SingleAgentView("meyer", opponents=["honest"])
    with pytest.raises(ValueError, match=message):
        env.set_opponents(opponents)


def test_a_meyer_learner_out_of_lives_leaves_the_episode_with_its_settled_return():
    """ME-7 and C-3: three players, one life, opponents that never doubt: once the learner is out they would
    equal each other's claims for ever. The episode ends there, terminated, with the learner's
    share of the losers' -1 (it used to play on, and after the cap pay 0)."""
    env = SingleAgentView("meyer", num_players=3, lives=1, learner_seat=0, opponents="honest:doubt_below=0")
    for episode in range(20):
        env.reset(seed=episode)
        while True:
            mask = env.action_masks()
            action = meyer.DOUBT if mask[meyer.DOUBT] else int(np.flatnonzero(mask)[-1])  # doubt, claim high
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        if not env.engine.is_terminal(env.state):  # the game goes on without the learner
            assert terminated and not truncated and info["learner_return"] == reward == -0.5
            return
    raise AssertionError("the learner was never out before the end of a game")


def test_opponents_that_never_end_a_round_truncate_the_step(monkeypatch):
    """A safety net for custom games and agents: a step in which the other seats take
    MAX_OPPONENT_DECISIONS decisions ends truncated and says why (here the settled return is
    switched off, so the never-doubting opponents play on after the learner is out)."""
    monkeypatch.setattr(view, "MAX_OPPONENT_DECISIONS", 2000)
    env = SingleAgentView("meyer", num_players=3, lives=1, learner_seat=0, opponents="honest:doubt_below=0")
    engine = env.engine
    monkeypatch.setattr(engine, "settled_return", lambda state, seat: engine.returns(state)[seat]
                        if engine.is_terminal(state) else None)  # fmt: skip
    for episode in range(20):
        obs, info = env.reset(seed=episode)
        while True:
            mask = env.action_masks()
            action = meyer.DOUBT if mask[meyer.DOUBT] else int(np.flatnonzero(mask)[-1])
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        if truncated:
            assert info["truncated_by"] == "opponents" and reward == 0
            return
    raise AssertionError("no episode reached the never-ending round")


def test_a_refused_pool_leaves_the_old_one():
    env = SingleAgentView("meyer", opponents=["honest"])
    with pytest.raises(ValueError, match="honnest"):
        env.set_opponents(["honest", "honnest"])
    assert env.opponents == ["honest"]
    env.reset(seed=0)


def test_the_views_arguments_are_checked_by_type():
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentView("meyer", learner_seat=True)
    with pytest.raises(ValueError, match="shaping"):
        SingleAgentView("meyer", shaping=True)
    with pytest.raises(ValueError, match="max_cycles"):
        SingleAgentView("meyer", max_cycles=True)
    assert SingleAgentView("meyer", max_cycles=np.int64(5)).max_cycles == 5
    with pytest.raises(RuntimeError, match="before reset"):
        SingleAgentView("meyer").step(0)
