"""Confidence intervals for win rates and mean returns, and for shares over deals.

Win rates are win shares (a k-way tie gives each of the k players 1/k, as docs/tournaments.md defines
them). :func:`wilson` is the Wilson score interval on a share (with Poisson ends, see there). Unlike the normal
approximation (``p ± z·sqrt(p(1-p)/n)``), the Wilson interval stays inside [0, 1] and has a
non-zero width when every game goes one way: over 5 games won out of 5 it is [0.566, 1], not
[1, 1]. (E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
JASA 22, 1927; the formula as in R. G. Newcombe, Statistics in Medicine 17, 1998, method 3.)

>>> rate, low, high = wilson(5, 5)
>>> rate, round(low, 4), high
(1.0, 0.5655, 1.0)

A tournament's games come in deals (:func:`deal_key`), whose rotations share their dice under
common dice; :func:`deal_clustered_share` gives a share's interval from the spread of the deals
(the head-to-head matrix's and the seats'), with Wilson's as the fallback where deals cannot, and
:class:`StratifiedShare` an entrant's over several tables, each table a stratum (the leaderboard's
and ``match``'s win rates and mean returns).
"""

from __future__ import annotations

import functools
import math

import numpy as np

#: The two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054


#: Brown, Cai and DasGupta's modification of the Wilson interval (Statistical Science 16, 2001,
#: section 4.1.1): where the rarer outcome was seen at most this often, its end of the interval is
#: the Poisson (Garwood) bound; ``(games up to which, count)``, then :data:`POISSON_ENDS_ABOVE`.
POISSON_ENDS = (50, 2)
#: ... and the count for more games.
POISSON_ENDS_ABOVE = 3


def _gamma_cdf(shape: float, x: float) -> float:
    """The regularized lower incomplete gamma function P(shape, x), by its power series (for the
    small ``x`` of :func:`_gamma_quantile`; Abramowitz and Stegun 6.5.29)."""
    if x <= 0:
        return 0.0
    term = total = 1.0 / shape
    k = 1
    while term > total * 1e-17 and k < 10_000:
        term *= x / (shape + k)
        total += term
        k += 1
    return math.exp(shape * math.log(x) - x - math.lgamma(shape)) * total


@functools.lru_cache(maxsize=4096)
def _gamma_quantile(shape: float, tail: float) -> float:
    """The ``tail`` quantile of Gamma(shape, 1), by bisection: the Poisson mean's lower bound
    after ``shape`` events (Garwood, Biometrika 28, 1936)."""
    low, high = 0.0, shape + 10.0 * math.sqrt(shape) + 10.0
    for _ in range(80):  # the bracket's width falls below a double's resolution
        mid = (low + high) / 2
        if _gamma_cdf(shape, mid) < tail:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def wilson(share_sum: float, n: int, z: float = Z95, poisson_ends: bool = True) -> tuple[float, float, float]:
    """The win rate and its Wilson score interval ``(rate, low, high)``, inside [0, 1].

    Near 0 and 1 the Wilson interval covers too little where the rarer outcome is expected about
    once: after one loss in 60 games its top end, 0.99705, misses a true 0.99739 (coverage 0.855,
    computed exactly). So, by Brown, Cai and DasGupta's modification (Statistical Science 16,
    2001, section 4.1.1), where the rarer outcome was seen ``x`` times, ``0 < x <= 2`` up to 50
    games and ``x <= 3`` above (:data:`POISSON_ENDS`), that end of the interval is the Poisson
    (Garwood) bound ``G_x / n``, ``G_x`` the lower quantile of Gamma(x) at the interval's tail
    (0.025 for ``z`` at 95%): a wider end (0.989 coverage there), the other end and every other
    count unchanged. ``poisson_ends=False`` gives the textbook interval.

    Args:
        share_sum: the sum of the win shares over the games (wins, plus 1/k per k-way tie).
        n: the number of games (>= 1).
        z: the normal quantile of the interval (default: 95%, two-sided).
        poisson_ends: apply Brown, Cai and DasGupta's modification at the ends (default).

    Raises:
        ValueError: ``n`` < 1, ``share_sum`` outside [0, n], or ``z`` not positive and finite.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"wilson needs a number of games n >= 1, got {n!r}")
    share_sum = float(share_sum)
    if not math.isfinite(share_sum) or not 0 <= share_sum <= n:
        raise ValueError(f"wilson: share_sum must be in [0, n] = [0, {n}], got {share_sum!r}")
    if not math.isfinite(z) or z <= 0:
        raise ValueError(f"wilson: z must be a positive number, got {z!r}")
    p = share_sum / n
    z2 = z * z
    # At p = 0 and p = 1 the formula reduces to bounds rational in z^2; computing them so keeps
    # the closed end exactly at 0 or 1 (the general form leaves rounding there, e.g. 2e-19).
    if share_sum == 0:
        return 0.0, 0.0, z2 / (n + z2)
    if share_sum == n:
        return 1.0, n / (n + z2), 1.0
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # The exact bounds lie in [0, 1]; clipping only removes rounding.
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    if poisson_ends:
        most = POISSON_ENDS[1] if n <= POISSON_ENDS[0] else POISSON_ENDS_ABOVE
        tail = 0.5 * math.erfc(z / math.sqrt(2.0))  # the interval's tail on each side
        if share_sum <= most:  # few wins: the low end
            low = min(low, _gamma_quantile(share_sum, tail) / n)
        if n - share_sum <= most:  # few losses: the high end
            high = max(high, 1.0 - _gamma_quantile(n - share_sum, tail) / n)
    return p, low, high


def mean_ci(values, z: float = Z95) -> tuple[float, float, float]:
    """Mean and a normal-approximation confidence interval ``(mean, low, high)``.

    For mean returns, which are not bounded to [0, 1] in general; use :func:`wilson` for rates.
    """
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        raise ValueError("mean_ci needs at least one value")
    mean = float(x.mean())
    if len(x) == 1:
        return mean, mean, mean
    half = z * float(x.std(ddof=1)) / math.sqrt(len(x))
    return mean, mean - half, mean + half


# -- intervals over deals -------------------------------------------------------------------------
def deal_key(task) -> tuple:
    """The deal a game belongs to (a tournament's ``GameTask``): its table's deal under one seed and
    dice mode, ``task.key`` without the rotation. The rotations of a deal are the games that share
    its dice under common dice, so this is the unit every interval over deals counts (the
    leaderboard's bootstrap, the head-to-head matrix, the seats), records merged from several seeds
    or dice modes kept apart."""
    return (task.seed, task.dice, task.table_key, task.deal)


#: The fewest deals a deal-clustered interval (:func:`deal_clustered_share`) is estimated from (for
#: :class:`StratifiedShare`, one fewer degrees of freedom: as many deals on one table). With fewer,
#: the spread between deals is itself too uncertain, and the interval falls back to Wilson's over the
#: deals. (It was 20 until statistics review 10: where 80% of deals split 1-1, 18% are won and 2%
#: lost, 21 deals covered 0.916 and 25 deals 0.938-0.951, as the rare lost deals often do not come up.)
MIN_CLUSTER_DEALS = 30


def t_quantile_975(df: float) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (the normal's for ``df``
    infinite): the Cornish-Fisher expansion of Abramowitz and Stegun 26.7.5, within 1e-5 of the
    exact value from ``df`` 9 up (3e-7 at 19), so scipy is not needed."""
    if df < 1:
        raise ValueError(f"t_quantile_975 needs df >= 1, got {df!r}")
    z = Z95
    terms = (
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
    )
    return z + sum(g / df ** (k + 1) for k, g in enumerate(terms))


def deal_clustered_share(
    deals: int, y: float, n: float, yy: float, yn: float, nn: float
) -> tuple[float, float, float, float] | None:
    """A share over games grouped in independent deals, with its deal-clustered 95% interval.

    Under common dice the rotations of a deal are not independent games (they meet the same dice),
    but deals are: their dice are keyed apart. So the share ``y / n`` (``y_d`` the share summed
    over deal ``d``'s games, ``n_d`` its games) is a ratio of sums over independent deals, and its
    variance is estimated from the spread of the deals around it (the cluster-robust, CR1, variance
    of a ratio): ``v = m / (m - 1) * sum_d (y_d - p n_d)^2 / n^2`` over the ``m`` deals. The
    interval is Wilson's score interval with the *effective number of games* ``p (1 - p) / v``
    (what Wilson would need to be as precise), at Student's ``t`` quantile with ``m - 1`` degrees
    of freedom instead of the normal's: the normal interval on the deals' means in the middle of
    [0, 1], kept inside it and skewed towards the middle near its ends, and a little wider for the
    uncertainty of ``v`` itself. (Simulated paired deals, 20 to 300 of them: it covered 0.92-0.98,
    where the plain normal interval covered 0.90-0.95 in the middle and down to 0.25 at a share of
    0.99; but 0.916 at 21 deals where most deals split and a few are lost, which is why
    :data:`MIN_CLUSTER_DEALS` is 30. Real games, 400 matches of 100 deals against 40 000-deal values: 0.95-0.96 for head to
    head and 0.93-0.95 for the first seat's share, 0.94 at tables of three.) It is never worth
    fewer than the deals, and not capped at the games: rotations of a deal that pull
    apart (one entrant's good dice are its opponent's in the other seating) make a deal worth
    more than its games counted apart, which is what common dice are for.

    Args:
        deals: ``m``, the deals (clusters); a deal with no games of the kind counted (``n_d`` 0)
            counts too.
        y, n: the sums of ``y_d`` and ``n_d``.
        yy, yn, nn: the sums of ``y_d ** 2``, ``y_d * n_d`` and ``n_d ** 2``.

    Returns:
        ``(share, low, high, effective_games)``, or ``None`` where the deals cannot give an
        interval: fewer than :data:`MIN_CLUSTER_DEALS` deals, a share of 0 or 1, or no spread
        between the deals (every deal ended alike: nothing says how much they can vary). The
        callers fall back on a Wilson interval then.

    Two rotations a deal, 40 deals: 20 won 2-0 and 20 lost 0-2, the rotations repeating each
    other, are worth the 40 deals, not the 80 games; 20 split 1-1 and 20 lost 0-2 are worth more
    than the games, the split deals leaving little to chance:

    >>> [round(deal_clustered_share(40, 40.0, 80.0, 80.0, 80.0, 160.0)[k], 3) for k in (0, 3)]
    [0.5, 40.0]
    >>> [round(deal_clustered_share(40, 20.0, 80.0, 20.0, 40.0, 160.0)[k], 3) for k in (0, 3)]
    [0.25, 117.0]
    """
    if deals < MIN_CLUSTER_DEALS or n <= 0:
        return None
    p = y / n
    if not 0.0 < p < 1.0:
        return None
    spread = yy - 2.0 * p * yn + p * p * nn  # sum_d (y_d - p n_d)^2, without the deals themselves
    if spread <= 1e-12 * nn:
        return None
    return _clustered(p, deals / (deals - 1) * spread / (n * n), n, nn, deals - 1)


def _clustered(p: float, variance: float, n: float, nn: float, df: int) -> tuple[float, float, float, float]:
    """The interval of a share ``p`` of ``n`` games whose estimated variance over the deals is
    ``variance`` (``nn`` the sum of the deals' games squared, ``df`` the degrees of freedom):
    Wilson's with the effective number of games at Student's ``t`` quantile."""
    # A deal's share varies at most as one game's (``y_d / n_d`` is in [0, 1]), so the deals are
    # worth at least ``n^2 / sum n_d^2`` games (the deals, when they are of one size) whatever
    # their sample spread says; the floor only lifts deals that are all 0 or 1 (m - 1 to m).
    n_eff = max(p * (1.0 - p) / variance, n * n / nn)
    count = max(1, round(n_eff))
    _, low, high = wilson(p * count, count, z=t_quantile_975(df))
    return p, low, high, n_eff


#: ``StratifiedShare.interval``'s source: the deal-clustered interval, stratified by table.
CLUSTERED_SOURCE = "deals"
#: ... and where the deals cannot give one: Wilson's interval over the deals (never too narrow: a
#: deal's average share varies at most as one game's).
WILSON_DEALS_SOURCE = "wilson-deals"
#: ... or, under independent dice (every rotation an independent game), Wilson's over the games.
WILSON_GAMES_SOURCE = "wilson-games"


class StratifiedShare:
    """An entrant's share over games that come in deals, the deals in tables, with its 95% interval.

    A tournament's per-entrant win rate pools the entrant's games at every table it sits at. The
    games of a deal are not independent (under common dice its rotations meet the same dice), but
    deals are, and each table plays a fixed number of them: the tables are strata of a stratified
    design. So the share ``Y / N`` (``y_d`` the entrant's share summed over deal ``d``'s games,
    ``n_d`` its games there) has the stratified cluster-robust (CR1) variance
    ``v = sum_t m_t / (m_t - 1) * sum_{d in t} (z_d - mean_t z)^2 / N^2``, ``z_d = y_d - p n_d``,
    over the ``m_t`` deals of each table ``t``: the spread of the deals within their table, not
    the differences between tables (the entrant meets other opponents there, which is the design,
    not chance). The interval is :func:`deal_clustered_share`'s: Wilson's with the effective number
    of games ``p (1 - p) / v`` at Student's ``t`` quantile with ``sum_t (m_t - 1)`` degrees of
    freedom. With one table it is :func:`deal_clustered_share` itself.

    Where the deals cannot give it (fewer than ``MIN_CLUSTER_DEALS - 1`` degrees of freedom, as
    :func:`deal_clustered_share` needs with one table; a table of one deal, a share of 0 or 1, or no spread within the tables) the interval is
    Wilson's over the deals, which is never too narrow. Counting the games as independent instead
    is too wide when a deal's rotations pull apart (common dice: up to 2x in 10 000) and too
    narrow when they agree.

    A share need not be a win: :func:`return_share` maps a C-3 return to [0, 1] (at a table of
    ``P`` in a game of one winner, to the win share itself) and :func:`return_interval` back.

    Deals are added whole (:meth:`add_deal`), so a caller that streams its games keeps only the
    deal it is in.

    One table, two rotations a deal: 10 deals won 2-0 and 20 split 1-1 are worth 116 independent
    games, not 60, the split deals leaving little to chance (the same as :func:`deal_clustered_share`):

    >>> s = StratifiedShare()
    >>> for d in range(30):
    ...     s.add_deal("table", 2.0 if d < 10 else 1.0, 2)
    >>> share, low, high, n_eff, source = s.interval()
    >>> round(share, 3), round(low, 3), round(high, 3), round(n_eff, 1), source
    (0.667, 0.573, 0.749, 116.0, 'deals')
    """

    def __init__(self) -> None:
        #: stratum -> [deals, sum y, sum n, sum y^2, sum y n, sum n^2]
        self._strata: dict = {}

    def add_deal(self, stratum, y: float, n: float) -> None:
        """Count one deal of table ``stratum``: the entrant's summed share ``y`` over its ``n`` games there."""
        if n <= 0:
            raise ValueError(f"StratifiedShare.add_deal: a deal needs games (n > 0), got {n!r}")
        if not 0.0 <= y <= n:
            raise ValueError(f"StratifiedShare.add_deal: the summed share y must be in [0, n] = [0, {n}], got {y!r}")
        s = self._strata.setdefault(stratum, [0, 0.0, 0.0, 0.0, 0.0, 0.0])
        s[0] += 1
        s[1] += y
        s[2] += n
        s[3] += y * y
        s[4] += y * n
        s[5] += n * n

    @property
    def deals(self) -> int:
        """The deals counted, over every table."""
        return sum(s[0] for s in self._strata.values())

    @property
    def games(self) -> float:
        """The games counted (the sum of ``n``)."""
        return sum(s[2] for s in self._strata.values())

    def interval(self, independent: bool = False) -> tuple[float, float, float, float, str]:
        """``(share, low, high, effective_games, source)``: the share, its 95% interval, the
        independent games it is worth, and :data:`CLUSTERED_SOURCE` or, where the deals cannot
        give a clustered interval, :data:`WILSON_DEALS_SOURCE` (effective games: the deals) or,
        for games played with ``independent`` dice, whose rotations are independent games,
        :data:`WILSON_GAMES_SOURCE` (over the games, as the head-to-head matrix's cells then).
        NaN for all four numbers without games."""
        deals = self.deals
        games = self.games
        if deals == 0:
            nan = float("nan")
            return nan, nan, nan, nan, WILSON_GAMES_SOURCE if independent else WILSON_DEALS_SOURCE
        total = sum(s[1] for s in self._strata.values())
        p = total / games
        df = sum(s[0] - 1 for s in self._strata.values())
        spread = 0.0  # sum over the tables of m_t / (m_t - 1) * the within-table spread of z_d
        for m, y, n, yy, yn, nn in self._strata.values():
            if m < 2:
                df = -1  # a table of one deal: its spread is unknown
                break
            zz = yy - 2.0 * p * yn + p * p * nn  # sum of z_d^2
            z = y - p * n  # sum of z_d
            spread += m / (m - 1) * max(zz - z * z / m, 0.0)
        nn_total = sum(s[5] for s in self._strata.values())
        if df >= MIN_CLUSTER_DEALS - 1 and 0.0 < p < 1.0 and spread > 1e-12 * nn_total:
            return (*_clustered(p, spread / (games * games), games, nn_total, df), CLUSTERED_SOURCE)
        if independent:  # every game independent: Wilson's over the games
            count = max(1, round(games))
            _, low, high = wilson(min(max(p, 0.0), 1.0) * count, count)
            return p, low, high, float(games), WILSON_GAMES_SOURCE
        _, low, high = wilson(min(max(p, 0.0), 1.0) * deals, deals)
        return p, low, high, float(deals), WILSON_DEALS_SOURCE


def return_share(r: float, players: int) -> float | None:
    """A C-3 return ``r`` at a table of ``players`` as a share in [0, 1]: ``((P - 1) r + 1) / P``.

    In a game of one winner that is the win share itself (the winner's +1 is 1, a loser's
    ``-1/(P - 1)`` is 0), so a mean return's interval is the exact image of the win rate's; a
    complete tie (every return 0) is ``1/P``. ``None`` for a loser's return when two or more won
    (``-1/(P - k)``, below ``-1/(P - 1)``), which the map would send below 0: then the caller maps
    every return with ``players=2``, ``(r + 1) / 2``, which takes any return in [-1, 1].
    """
    if r < -1.0 / (players - 1) - 1e-12:
        return None
    return min(max(((players - 1) * r + 1.0) / players, 0.0), 1.0)


def return_interval(
    shares: StratifiedShare, players: int = 2, independent: bool = False
) -> tuple[float, float, float, float, str]:
    """The mean C-3 return and its interval from a :class:`StratifiedShare` of the returns as shares
    (:func:`return_share` with these ``players``), mapped back: ``(mean, low, high,
    effective_games, source)`` (``independent``: as :meth:`StratifiedShare.interval`'s)."""
    u, low, high, n_eff, source = shares.interval(independent)
    back = lambda x: (players * x - 1.0) / (players - 1)  # noqa: E731
    return back(u), back(low), back(high), n_eff, source


__all__ = [
    "CLUSTERED_SOURCE",
    "MIN_CLUSTER_DEALS",
    "StratifiedShare",
    "WILSON_DEALS_SOURCE",
    "WILSON_GAMES_SOURCE",
    "Z95",
    "deal_clustered_share",
    "deal_key",
    "mean_ci",
    "return_interval",
    "return_share",
    "t_quantile_975",
    "wilson",
]
