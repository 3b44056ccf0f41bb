"""The training benchmark and ``--set`` lists (outside training review 8: D1, D2, the deal interval).

``train --evaluate`` refuses an agent that plays an illegal action instead of counting a silent
loss; a result carries the interval over the deals beside Wilson's over the games; ``--set
baselines=`` reads SPECs that hold commas of their own.
"""

from __future__ import annotations

import numpy as np
import pytest

from evaluate.stats import wilson
from train.cli import main, split_specs
from train.evaluation import Result, play_against


class Bad:
    """Always action 0: never legal at Meyer's opening claim."""

    def __init__(self, game, seed=None):
        self.game = game

    def act(self, observation, action_mask):
        return 0


def test_an_illegal_action_of_the_evaluated_agent_is_refused_not_counted_a_loss():
    bad = Bad(None)
    with pytest.raises(ValueError, match=r"the evaluated agent played an illegal action \(0\) in meyer against random, seat 0"):
        play_against(bad.act, "meyer", {"lives": 2}, "random", deals=3, seed=5)


def test_the_benchmark_names_a_checkpoint_and_gives_both_intervals(capsys):
    assert main(["meyer", "--evaluate", "agents/trained/meyer", "--opponents", "honest", "--deals", "40", "--no-progress"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("meyer: agents/trained/meyer vs honest: win rate ")
    assert "(95% Wilson) over 80 games, [" in line and "] over the 40 deals" in line


def _deal_result(deal_shares, per_deal):
    y = np.asarray(deal_shares, dtype=float)
    return Result("x", per_deal * len(y), float(y.sum()), 0.0, list(y))


def test_repeating_seatings_are_worth_the_deals_not_the_games():
    """40 deals of two seatings, 20 won twice and 20 lost twice: the deal interval is Wilson's width
    for 40 independent games (the seatings repeat each other), wider than Wilson's over the 80."""
    result = _deal_result([2.0] * 20 + [0.0] * 20, 2)
    rate, low, high, effective = result.deal_interval()
    assert rate == 0.5 and effective == pytest.approx(40.0)
    _, wlow, whigh = result.interval()
    assert high - low > whigh - wlow
    assert result.as_dict()["deals"] == 40 and result.as_dict()["effective_games"] == pytest.approx(40.0)


def test_too_few_deals_fall_back_on_wilson_over_the_deals():
    result = _deal_result([1.0, 2.0, 0.0, 1.0], 2)  # 4 deals: below the clustered interval's minimum
    rate, low, high, effective = result.deal_interval()
    assert (rate, effective) == (0.5, 4.0)
    assert (low, high) == pytest.approx(wilson(2.0, 4)[1:])


@pytest.mark.parametrize(
    "text, specs",
    [
        ("honest,doubter", ("honest", "doubter")),
        ("bluffer:lie_probability=0.3,reroll=false,honest", ("bluffer:lie_probability=0.3,reroll=false", "honest")),
        ("heuristic:stop_at=(8,5)", ("heuristic:stop_at=(8,5)",)),
        ("heuristic:stop_at=(8,5),starter_margin=2,random", ("heuristic:stop_at=(8,5),starter_margin=2", "random")),
        ("runs/a=1/policy,honest", ("runs/a=1/policy", "honest")),
        ("bluffer:lie_probability=0.3,reroll=false; honest", ("bluffer:lie_probability=0.3,reroll=false", "honest")),
    ],
)
def test_set_baselines_reads_specs_with_commas(text, specs):
    assert split_specs(text) == specs


def test_a_bad_list_entry_names_the_field():
    with pytest.raises(ValueError, match="--set hidden: a layer size must be int"):
        main(["meyer", "--set", "hidden=64,abc", "--set", "n_envs=0"])
    with pytest.raises(ValueError, match="--set baseline_weights: a weight must be float"):
        main(["meyer", "--set", "baseline_weights=1,x", "--set", "n_envs=0"])
