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
    rate, low, high = wilson(float(share_sum), n, poisson_ends=False)  # the textbook interval
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


def test_the_poisson_ends_hold_coverage_where_the_rarer_outcome_is_expected_about_once():
    """Brown, Cai and DasGupta's modification (statistics review 10, finding 2): exact binomial
    coverage, enumerated, of the textbook Wilson interval and the package's at true shares where
    the rarer outcome is expected about once."""
    from math import comb

    def coverage(n, p, **kw):
        total = 0.0
        for k in range(n + 1):
            _, low, high = wilson(k, n, **kw)
            if low <= p <= high:
                total += comb(n, k) * p**k * (1 - p) ** (n - k)
        return total

    n, p = 60, 0.99739  # honest against random in Meyer: one loss in 60 games is the usual outcome
    assert coverage(n, p, poisson_ends=False) == pytest.approx(0.855, abs=0.002)  # the textbook interval's
    assert coverage(n, p) > 0.98
    # Over true shares at which 0.02 to 3 wins are expected, the textbook interval's worst coverage
    # is 0.852 at every n; the package's 0.917 (n = 20) to 0.929, its average 0.966-0.971 (was 0.955).
    for n in (20, 60, 200):
        shares = [i / (50 * n) for i in range(1, 150)]
        ours = [coverage(n, p) for p in shares]
        textbook = [coverage(n, p, poisson_ends=False) for p in shares]
        assert min(ours) > 0.91 and min(textbook) < 0.86, n
        assert sum(ours) / len(ours) > 0.965 > sum(textbook) / len(textbook), n


def test_the_poisson_ends_change_only_the_end_of_a_rare_outcome():
    # One loss in 60 games: the top end is the Poisson bound 1 - G_1 / 60, G_1 = -ln(0.975) the 2.5%
    # quantile of Gamma(1); the low end is Wilson's.
    rate, low, high = wilson(59, 60)
    textbook = wilson(59, 60, poisson_ends=False)
    assert (rate, low) == textbook[:2]
    assert high == pytest.approx(1 - (-math.log(0.975)) / 60, abs=1e-12)
    # Two wins in 10 games: the low end is G_2 / 10, G_2 = 0.24220927854 (chi-squared with 4
    # degrees of freedom, 2.5% quantile 0.48441855708, halved); 3 in 10 is Wilson's alone.
    assert wilson(2, 10)[1] == pytest.approx(0.024220927854, abs=1e-10)
    assert wilson(3, 10) == wilson(3, 10, poisson_ends=False)
    assert wilson(3, 60)[1] < wilson(3, 60, poisson_ends=False)[1]  # above 50 games, up to 3
    assert wilson(30, 60) == wilson(30, 60, poisson_ends=False)
