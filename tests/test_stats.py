"""Wilson score intervals on win shares (issue 7 item 6; CONTRACTS.md "Values and intervals")."""

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import pytest

from evaluate.match import AgentRecord, play_match
from evaluate.stats import Z95, wilson


def ulps_apart(a: float, b: float) -> int:
    """How many representable floats lie between a and b (0 when equal)."""
    return abs(round((a - b) / math.ulp(max(abs(a), abs(b), 1e-300))))


def wilson_decimal(share_sum: Fraction, n: int, z: float) -> tuple[Decimal, Decimal]:
    """The Wilson bounds by the textbook formula, in 60-digit decimals from the exact inputs."""
    getcontext().prec = 60
    p = Decimal(share_sum.numerator) / Decimal(share_sum.denominator) / n
    z = Decimal(z)  # the float's exact value
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * (p * (1 - p) / n + z2 / (4 * n * n)).sqrt()
    return centre - half, centre + half


def test_all_won_and_all_lost_give_the_exact_rational_bounds():
    # For p = 1 the formula reduces to low = n / (n + z^2), high = 1; for p = 0 to low = 0,
    # high = z^2 / (n + z^2): rational in z^2, so exact with Fractions of the float z.
    z2 = Fraction(Z95) ** 2
    for n in (1, 5, 20, 1000):
        rate, low, high = wilson(n, n)
        assert rate == 1.0 and high == 1.0
        assert ulps_apart(low, float(Fraction(n) / (n + z2))) <= 2
        rate, low, high = wilson(0, n)
        assert rate == 0.0 and low == 0.0
        assert ulps_apart(high, float(z2 / (n + z2))) <= 2
    # The figures of the example: 5 of 5 is [0.5655, 1], not [0.408, 1.192] or [1, 1].
    assert round(wilson(5, 5)[1], 4) == 0.5655 and round(wilson(0, 5)[2], 4) == 0.4345


@pytest.mark.parametrize(
    "share_sum, n",
    [(Fraction(3), 5), (Fraction(1), 10), (Fraction(5, 2), 5), (Fraction(7, 3), 4), (Fraction(517), 1000)],
)
def test_wilson_matches_the_formula_in_high_precision(share_sum, n):
    rate, low, high = wilson(float(share_sum), n)
    exact_low, exact_high = wilson_decimal(share_sum, n, Z95)
    assert rate == float(share_sum / n)
    assert abs(Decimal(low) - exact_low) < Decimal("1e-15")
    assert abs(Decimal(high) - exact_high) < Decimal("1e-15")
    assert 0 <= low <= rate <= high <= 1


def test_a_half_share_is_centred_and_intervals_narrow_with_more_games():
    rate, low, high = wilson(2.5, 5)  # e.g. five two-way ties
    assert rate == 0.5 and math.isclose(low + high, 1.0, abs_tol=1e-15)
    widths = [wilson(n / 2, n)[2] - wilson(n / 2, n)[1] for n in (4, 16, 64, 256)]
    assert widths == sorted(widths, reverse=True)


@pytest.mark.parametrize("share_sum, n", [(1, 0), (6, 5), (-0.5, 5), (float("nan"), 5), (1, 2.5), (1, True)])
def test_wilson_refuses_impossible_counts(share_sum, n):
    with pytest.raises(ValueError, match="wilson"):
        wilson(share_sum, n)


def test_match_win_rates_over_five_games_have_wilson_intervals_inside_0_1():
    # Issue 7 item 6: over 5 games the normal approximation gave [0.408, 1.192], and zero width
    # when all games went one way.
    # Five games are three deals (2 + 2 + 1 games): too few for their spread, so the interval is
    # Wilson's over the 3 deals (a deal's rotations share their dice).
    result = play_match("syvere", ["heuristic", "random"], 5, seed=3)
    for record in result.records:
        rate, low, high = record.win_rate()
        assert 0.0 <= low < high <= 1.0
        assert (rate, low, high) == pytest.approx(wilson(rate * 3, 3), abs=1e-15)
        assert record.interval_source() == "wilson-deals"
    assert "1.192" not in result.table()


def test_agent_records_keep_running_sums():
    rec = AgentRecord("x")
    for share in (1.0, 0.5, 1.0, 0.0, 1.0):
        rec.add(share, 1.0)
    assert rec.games == 5 and rec.share_sum == 3.5
    assert rec.win_rate() == wilson(3.5, 5)


def test_running_mean_return_interval_is_the_deal_clustered_one_of_the_returns_as_shares():
    import numpy as np

    from evaluate.stats import StratifiedShare, deal_clustered_share

    rng = np.random.default_rng(4)
    values = rng.choice([1.0, -1.0, 0.5, -0.5, -1.0 / 3], size=(30, 2))  # 30 deals of two games
    rec = AgentRecord("x")
    for d, deal in enumerate(values):
        for v in deal:
            rec.add(0.0, float(v), deal=d)
    mean, low, high = rec.mean_return()
    assert math.isclose(mean, values.mean(), abs_tol=1e-15)
    u = ((values + 1) / 2).sum(axis=1)  # each deal's returns as shares, summed
    _, u_low, u_high, _ = deal_clustered_share(30, u.sum(), 60.0, u @ u, 2 * u.sum(), 120.0)
    assert (low, high) == pytest.approx((2 * u_low - 1, 2 * u_high - 1), abs=1e-12)
    assert low < mean < high
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        rec.add(0.0, 1.5)
    assert isinstance(rec._wins, StratifiedShare)
