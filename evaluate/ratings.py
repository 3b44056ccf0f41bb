"""Ratings, win rates and the leaderboard of a tournament.

* **Two-player tables: Bradley-Terry.** ``P(i beats j) = p_i / (p_i + p_j)``, fitted by maximum
  likelihood with the MM algorithm of D. R. Hunter ("MM algorithms for generalized Bradley-Terry
  models", Annals of Statistics 32, 2004): ``p_i <- W_i / sum_j n_ij / (p_i + p_j)``. A tie counts
  as half a win for each side (win shares). Every pair that met also gets one
  virtual tie, a weak prior that keeps an entrant who never won at a finite rating. It shrinks
  ratings towards each other: a lone pair's difference is ``log((W + 1/2) / (L + 1/2))`` for
  ``log(W / L)``, 2% less at 60 games and a 64% share, 3% at 90%, 0.3% at 400 games and 64%.
  Ratings are on
  the Elo scale, ``400 log10 p_i``, centred on a mean of 0: a difference of 400 means odds of 10
  to 1.
* **More players: Plackett-Luce with openskill** (``openskill.models.PlackettLuce``, Weng and Lin,
  JMLR 12, 2011): each game ranks its winners first (tied) and the others after them (tied, since
  C-3 returns do not order the losers). openskill's ``tau`` (default 25/300) is an additive
  dynamics term for skills that drift (Glickman's and TrueSkill's ``tau``: it keeps ``sigma`` from
  shrinking, so ``mu`` keeps following the latest games however many are played); an agent does
  not change during a tournament, so the rating uses ``tau = 0`` (:data:`TAU`) and the model's
  other defaults. The update is online, so one order's final ``mu`` depends on the order of the
  games: it follows the last games (``sigma`` shrinks slowly), and moves by about 3 times the
  sampling noise from order to order (Syvere, tables of 4, 10 000 games an entrant). The rating
  therefore takes, in each order, ``mu`` averaged over the second half of the games (the iterates
  after each of them: Polyak-Ruppert averaging), centres it on :data:`MU0` (25, openskill's start:
  most of the remaining noise moves the whole field, whose mean ``mu`` drifts) and averages
  :func:`orders_for` orders (10 at 15 000 games, up to 100 for few games). Over 8 order seeds
  (:func:`leaderboard` with ``bootstrap=0`` and seeds 0, 100, ..., 700), the rating's spread (its
  standard deviation) fell from 0.04-0.07 (the former 20 orders of the final ``mu``)
  to 0.01-0.03 in a 15 000-game Syvere field of 6, and from 0.05-0.15 to 0.01-0.06 with 600 games.
  The scale is openskill's: it ranks the entrants, but a difference of ``mu`` is not a log-odds
  (openskill's ``mu / c`` is about 0.2-0.4 times the log-strength a winner-among-the-table model
  fits), so the board's effect size for more players is the two entrants' own share of wins.
* **Intervals** come from a bootstrap over deals: a deal and all its rotations are resampled
  together, because with common dice they are not independent games; the interval is the 2.5 and
  97.5 percentiles of the refitted ratings (Efron and Tibshirani, *An Introduction to the
  Bootstrap*, 1993, ch. 13). A Plackett-Luce replica is the same statistic as the rating (as
  many orders, averaged and centred alike), so the interval holds the order noise left in it.
  Width goes about as 1/sqrt(games).
* **Each entrant against the next** (the row below): the difference of the two ratings, with the
  2.5 and 97.5 percentiles of the replicas' differences (``boot[:, a] - boot[:, b]``: the
  ratings' common noise cancels, so a difference can be clear where the two rating intervals
  overlap), and a two-sided p-value ``2 P(Z > |d| / se)`` with ``se`` the replicas' standard
  deviation of the difference. ``separated`` (the board's ``>``) says that the difference
  interval excludes 0 and that Holm's adjusted p-value (over the board's neighbour pairs) is at
  most :data:`ALPHA`: the marks hold at a family-wise 5% level, while each interval is 95% for
  its own pair (and each rating interval for its own entrant), none simultaneous. The effect
  size against the next, ``ahead_next``: for Bradley-Terry the expected score
  ``1 / (1 + 10^(-d / 400))`` (:func:`expected_score`) of the difference and of its bounds; for
  more players, of the wins the two took in the games both played, the share this one took,
  with a percentile interval over the same resampled deals.
* **Bradley-Terry intervals of a pair that ended alike in every deal** (10-0; or mirrored 1-1
  deals, two copies of one agent under common dice): resampling deals never changes that pair's
  result, so the bootstrap cannot see its uncertainty (every replica can be identical: an interval
  of width 0). The entrants of such a pair get the union of the bootstrap interval and the
  posterior interval under the same prior (one virtual tie per pair): ``rating +- 1.96 sd`` with
  ``sd`` from the Laplace approximation at the posterior mode (the inverse of the Hessian of the
  negative log-posterior, which treats games as independent). Such an interval is marked ``*``
  and its row's ``interval_source`` is ``"bootstrap+posterior"``; a difference involving such an
  entrant is widened by the posterior interval of the difference alike (and its ``se`` is at
  least the posterior's).
* **An anchor** (``leaderboard(..., anchor=LABEL)``, ``tournament --anchor``) pins one entrant at 0
  (AlphaZero's and OpenSpiel's habit of a random player at 0 Elo): every rating, and every bootstrap
  replica, is then its difference from the anchor's, so each interval is that of the difference
  from the anchor, and boards of different fields that share the anchor are on one footing (not
  the same scale for Plackett-Luce's ``mu``, which depends on the field). Without one, ratings are
  centred on the field (Elo's mean 0, ``mu``'s 25). The differences between entrants, their
  intervals, p-values and marks do not depend on it.
* With ``bootstrap=0`` there are no intervals: ``rating_low``, ``rating_high``, ``separated``,
  the difference's bounds and p-values are ``None`` (``null`` in JSON, empty in the report's CSV);
  the last row's ``separated`` and comparisons are ``None`` too (nothing follows it).
* Win rates and mean returns (C-3: the winners share +1 and the losers -1) carry 95% intervals
  over the deals, stratified by table (:class:`evaluate.stats.StratifiedShare`): a deal's
  rotations are not independent games, its deals are; Wilson's over the deals where the deals
  cannot give one (``Row.win_interval_source``).

Example (a Bradley-Terry fit on made-up results: ``a`` beats ``b`` 3 times in 4):

    >>> rating = bradley_terry(["a", "b"], [("a", "b", 1.0)] * 3 + [("a", "b", 0.0)])
    >>> round(rating["a"] - rating["b"])  # 400 log10(3.5 / 1.5): odds 3:1 softened by the prior
    147
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from evaluate.stats import (
    CLUSTERED_SOURCE,
    MIN_CLUSTER_DEALS,
    WILSON_DEALS_SOURCE,
    WILSON_GAMES_SOURCE,
    Z95,
    StratifiedShare,
    deal_clustered_share,
    deal_key,
    return_interval,
    return_share,
    wilson,
)

if TYPE_CHECKING:  # for the annotations only
    from evaluate.tournament import GameRecord

ELO = 400.0 / math.log(10.0)  # Elo points per natural-log unit of strength
PRIOR_TIES = 1.0  # virtual tied games per pair of entrants that met
#: Game orders the Plackett-Luce rating and each of its bootstrap replicas average over (the same
#: statistic): :data:`ORDER_GAMES` games in all, so more orders of fewer games (:func:`orders_for`),
#: from :data:`MIN_ORDERS` to :data:`MAX_ORDERS`.
MIN_ORDERS, MAX_ORDERS, ORDER_GAMES = 10, 100, 150_000
MU0 = 25.0  # openskill's starting mu: the Plackett-Luce ratings are centred on it
#: The family-wise error rate of the leaderboard's separation marks (Holm over the neighbour pairs).
ALPHA = 0.05
BATCH_GAMES = 20_000_000  # games (sequences x games each) refitted in one batch: 80 MB of indices
TAU = 0.0  # openskill's dynamics term: 0, as an agent's skill does not drift during a tournament
#: The fewest bootstrap replicas `leaderboard` and ``--bootstrap`` take for a 95% interval: each
#: 2.5% tail then holds at least one replica (0 is taken too, and leaves the intervals out).
MIN_BOOTSTRAP = 40
NO_INTERVALS = "no rating intervals (bootstrap 0)"
WIDENED_SOURCE = "bootstrap+posterior"  # a row's interval_source when the posterior widened it
ANCHOR_SOURCE = "anchor"  # the anchor's interval_source: its rating is 0 by definition, with no interval
WIDENED = (
    "*: a pair ended alike in every deal, which resampling deals cannot vary: the interval (and a difference "
    "involving this entrant) also covers the Bradley-Terry posterior interval"
)
#: What the intervals of a board are (its legend's line).
NOT_SIMULTANEOUS = (
    "95% intervals hold for each entrant (rating) or each pair (vs next) on its own, not for the whole board at once"
)
#: What the board's win-rate intervals are (its legend's line).
WIN_RATE = (
    "win rate: the share of games won (a k-way tie 1/k), with its 95% interval over the deals (a deal's rotations "
    "share their dice; deals of one table against each other)"
)
#: ... and the mark of a win-rate interval that is Wilson's (over the deals; under independent dice, the games).
WIN_RATE_WILSON = (
    "w: Wilson's interval over the deals (under independent dice, the games), where the deals cannot give theirs "
    "(too few, a table of one deal, a share of 0 or 1, or all alike)"
)
#: What the board's mean return is (its legend's line).
MEAN_RETURN = (
    "mean return: the average C-3 return a game (the winners share +1, the losers -1: +1/-1 with two players; "
    "0 is an even share, the game being zero-sum)"
)


def orders_for(num_games: int) -> int:
    """The game orders a Plackett-Luce rating of ``num_games`` games averages over (and each of its
    bootstrap replicas): :data:`ORDER_GAMES` games in all, between :data:`MIN_ORDERS` and
    :data:`MAX_ORDERS` orders. One order's noise grows as the games get fewer, and so do the
    orders, at about the same cost (a replay's time goes with the games times the orders).

    >>> orders_for(15_000), orders_for(5_000), orders_for(600)
    (10, 30, 100)
    """
    return min(MAX_ORDERS, max(MIN_ORDERS, ORDER_GAMES // max(num_games, 1)))


def default_method(table_sizes: set[int]) -> str:
    """The rating method for games of these sizes: Bradley-Terry for pairs, openskill's
    Plackett-Luce (the ``[report]`` extra) for anything larger."""
    return "bradley-terry" if table_sizes == {2} else "openskill-plackett-luce"


def check_bootstrap(replicas: int) -> None:
    """Refuse a number of bootstrap replicas that is neither 0 nor at least :data:`MIN_BOOTSTRAP`."""
    if replicas < 0 or 0 < replicas < MIN_BOOTSTRAP:
        raise ValueError(
            f"{replicas} bootstrap replicas are too few for a 95% interval: give at least {MIN_BOOTSTRAP} "
            "(then each 2.5% tail holds a replica), or 0 for no rating intervals"
        )


# -- Bradley-Terry ------------------------------------------------------------------------------
def _bt_fit(wins: np.ndarray, iterations: int = 10_000, tol: float = 1e-10) -> np.ndarray:
    """MM fit of Bradley-Terry strengths for one or many win matrices.

    Args:
        wins: ``(..., E, E)``; ``wins[..., i, j]`` is i's win share summed over its games against j.

    Returns:
        Log-strengths ``(..., E)`` centred on mean 0 (natural-log units).
    """
    games = wins + np.swapaxes(wins, -1, -2)
    met = games > 0
    wins = wins + PRIOR_TIES / 2 * met
    games = games + PRIOR_TIES * met
    total_wins = wins.sum(axis=-1)
    p = np.ones(wins.shape[:-1])
    for _ in range(iterations):
        denom = (games / (p[..., :, None] + p[..., None, :])).sum(axis=-1)
        new = np.where(denom > 0, total_wins / np.where(denom > 0, denom, 1.0), p)
        # Strengths are defined up to a common factor: fix their geometric mean at 1.
        new = new / np.exp(np.log(new).mean(axis=-1, keepdims=True))
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    log_p = np.log(p)
    return log_p - log_p.mean(axis=-1, keepdims=True)


def bradley_terry(labels: Sequence[str], results: Iterable[tuple[str, str, float]]) -> dict[str, float]:
    """Bradley-Terry ratings (Elo scale, mean 0) from ``(i, j, share of i)`` results.

    Raises:
        ValueError: a result names an unknown label, or a share outside [0, 1].
    """
    index = {label: k for k, label in enumerate(labels)}
    wins = np.zeros((len(labels), len(labels)))
    for i, j, share in results:
        if i not in index or j not in index:
            raise ValueError(f"result ({i!r}, {j!r}) names an entrant not in {list(labels)}")
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"a win share is in [0, 1], got {share!r}")
        wins[index[i], index[j]] += share
        wins[index[j], index[i]] += 1.0 - share
    strengths = _bt_fit(wins) * ELO
    return {label: float(strengths[k]) for label, k in index.items()}


# -- Plackett-Luce (openskill) ------------------------------------------------------------------
def _openskill_model():
    """openskill's Plackett-Luce model with :data:`TAU` (its other parameters at their defaults).

    ``tau`` is given to the constructor: ``PlackettLuce.rate(tau=0)`` would fall back to the
    model's own tau (openskill 6 tests ``tau if tau else self.tau``).
    """
    from openskill.models import PlackettLuce

    return PlackettLuce(tau=TAU)


def plackett_luce(
    labels: Sequence[str],
    games: Sequence[tuple[Sequence[str], Sequence[int]]],
    order_seed: int = 0,
    order: Sequence[int] | None = None,
    average_from: int | None = None,
) -> dict[str, float]:
    """openskill Plackett-Luce ``mu`` of every entrant from ranked games, in one order.

    Args:
        labels: the entrants.
        games: ``(labels in seat order, rank of each seat)``; rank 0 is first, equal ranks tie.
        order_seed: the fixed shuffle of the games (the online update depends on their order).
        order: the order of the games (indices into ``games``), instead of ``order_seed``'s shuffle.
        average_from: ``None`` for the final ``mu``; a position ``t`` in the order for ``mu``
            averaged over the iterates after each of the games from position ``t`` on (see
            :func:`plackett_luce_batch`).
    """
    model = _openskill_model()
    ratings = {label: model.rating(name=label) for label in labels}
    positions: Sequence[int] | np.ndarray = (
        np.random.default_rng(order_seed).permutation(len(games)) if order is None else order
    )
    if average_from is not None and not 0 <= average_from < len(positions):
        raise ValueError(f"average_from must be a position in [0, {len(positions)}), got {average_from!r}")
    total = dict.fromkeys(ratings, 0.0)
    for t, g in enumerate(positions):
        seats, ranks = games[g]
        new = model.rate([[ratings[label]] for label in seats], ranks=[int(x) for x in ranks])
        for label, team in zip(seats, new):
            ratings[label] = team[0]
        if average_from is not None and t >= average_from:
            for label, r in ratings.items():
                total[label] += r.mu
    if average_from is None:
        return {label: float(r.mu) for label, r in ratings.items()}
    return {label: total[label] / (len(positions) - average_from) for label in ratings}


def plackett_luce_batch(
    num_entrants: int,
    seats: np.ndarray,
    ranks: np.ndarray,
    order: np.ndarray | None = None,
    mu: float = 25.0,
    sigma: float = 25.0 / 3.0,
    tau: float = TAU,
    chunk: int = 64,
    average_from: int | None = None,
) -> np.ndarray:
    """openskill's Plackett-Luce update (one player per team), for many sequences of games at once.

    The bootstrap refits the ratings thousands of times; openskill takes about 0.1 ms a game in
    Python, so this replays its arithmetic (``PlackettLuce._compute`` and ``rate`` of openskill 6,
    Weng and Lin's Algorithm 4, with beta, kappa and gamma at openskill's defaults and the given
    ``tau``) on numpy arrays. ``tests/test_ratings.py`` checks that it matches openskill to 1e-9
    for the default ``tau`` and for :data:`TAU`. Like openskill 6, it leaves tied players' updates
    as they are (its averaging over a rank group is a no-op).

    The arrays are laid out players by sequences, ``(P, B)`` a game, so that every numpy
    operation runs over all sequences at once.

    Args:
        num_entrants: E; entrants are numbered 0..E-1.
        seats: ``(B, G, P)`` int: sequence b's game g seats these entrants; with ``order``,
            ``(N, P)``: the seats of N games.
        ranks: the seats' ranks (lower is better, equal ties), shaped like ``seats``.
        order: ``(B, G)`` int, optional: sequence b's game g is game ``order[b, g]`` of
            ``seats`` and ``ranks`` (many sequences over the same games without copying them).
        tau: openskill's additive dynamics term (:data:`TAU` by default; openskill's own default is
            ``25 / 300``).
        chunk: games prepared at a time (memory: about ``chunk * B * P`` numbers).
        average_from: ``None`` for the final ``mu``; a game index ``t`` (``0 <= t < G``) for the
            average of the ``G - t`` iterates after games ``t, ..., G - 1`` (Polyak-Ruppert
            averaging of an online fit: the leaderboard's rating, see :func:`leaderboard`).

    Returns:
        ``(B, E)`` final (or averaged) ``mu``.
    """
    beta2, kappa, tau2 = (25.0 / 6.0) ** 2, 0.0001, float(tau) ** 2
    seats, ranks = np.asarray(seats), np.asarray(ranks)
    P = seats.shape[-1]
    if order is None:  # sequence b's games are games b * G ... b * G + G - 1 of the flattened arrays
        B, G = seats.shape[:2]
        order = np.arange(B * G).reshape(B, G)
        seats, ranks = seats.reshape(-1, P), ranks.reshape(-1, P)
    B, G = np.shape(order)
    E = num_entrants
    if average_from is not None and not 0 <= average_from < G:
        raise ValueError(f"average_from must be a game index in [0, {G}), got {average_from!r}")
    start = G if average_from is None else int(average_from)
    # acc holds the running average: the iterate at `start`, plus each later update weighted by the
    # share of the averaged iterates that come after it (the update of game t is in G - t of them).
    weight = np.clip((G - np.arange(G)) / max(G - start, 1), 0.0, None) * (np.arange(G) >= start)
    bounds = sorted({*range(0, G, chunk), start} - {G}) + [G]  # chunks, one of them starting at `start`
    mus = np.full(E * B, float(mu))  # entrant-major: entrant k of sequence b at k * B + b
    sig2 = np.full(E * B, float(sigma) ** 2)
    acc = None
    col = np.arange(B)
    seats_t, ranks_t = np.ascontiguousarray(seats.T), np.ascontiguousarray(ranks.T)  # (P, N)
    top = ranks_t == ranks_t.min(axis=0)  # the winners (all, in a full tie)
    if np.all(top | (ranks_t == ranks_t.max(axis=0))):  # two levels at most: every leaderboard's games
        low = ~top
        count_low = low.sum(axis=0)
        inv_a = np.where(top, 1.0 / top.sum(axis=0), 1.0 / np.maximum(count_low, 1))
        no_low = (count_low == 0).astype(float)
        low = low.astype(float)
        for g0, g1 in zip(bounds, bounds[1:]):
            if g0 == start:
                acc = mus.copy()
            games = order[:, g0:g1].T  # (g, B)
            who = seats_t[:, games] * B + col  # (P, g, B): flat indices into mus and sig2
            _two_level_games(
                mus, sig2, who, low[:, games], inv_a[:, games], no_low[games], beta2, kappa, tau2, acc, weight[g0:g1]
            )  # fmt: skip
        return (mus if acc is None else acc).reshape(E, B).T
    for g0, g1 in zip(bounds, bounds[1:]):
        if g0 == start:
            acc = mus.copy()
        games = order[:, g0:g1].T  # (g, B)
        who = np.ascontiguousarray(seats_t[:, games].transpose(1, 0, 2)) * B + col  # (g, P, B)
        r = np.ascontiguousarray(ranks_t[:, games].transpose(1, 0, 2))
        # openskill's sums over q run over the players ranked level with or above player i
        # (r_q <= r_i); sum_q over those level with or below q (r_i >= r_q); a_q counts q's tie group.
        at_or_below = (r[:, :, None, :] >= r[:, None, :, :]).astype(float)  # [g, i, q, b]: r_i >= r_q
        inv_a = 1.0 / (r[:, :, None, :] == r[:, None, :, :]).sum(axis=1)  # [g, q, b]
        weights = at_or_below * inv_a[:, None, :, :]  # [g, i, q, b]: (r_i >= r_q) / a_q
        for k in range(who.shape[0]):
            idx = who[k]
            m = mus[idx]  # (P, B)
            s2 = sig2[idx] + tau2
            c = np.sqrt((s2 + beta2).sum(axis=0))  # (B,)
            e = np.exp(m / c)
            sum_q = np.einsum("iqb,ib->qb", at_or_below[k], e)
            inv_sum = 1.0 / sum_q
            # p_iq = e_i / sum_q[q]: delta_i = sum_q w_iq p_iq (1 - p_iq), omega_i = sum_q w_iq
            # ((i == q) - p_iq), as e_i u_i - e_i^2 v_i and 1 / a_i - e_i u_i.
            u, v = np.einsum("iqb,kqb->kib", weights[k], np.stack((inv_sum, inv_sum * inv_sum)))
            eu = e * u
            omega = (inv_a[k] - eu) * s2 / c
            delta = (eu - e * e * v) * s2 / c**2 * (np.sqrt(s2) / c)
            mus[idx] = m + omega
            sig2[idx] = s2 * np.maximum(1 - delta, kappa)
            if acc is not None:
                acc[idx] += omega * weight[g0 + k]
    return (mus if acc is None else acc).reshape(E, B).T


def _two_level_games(mus, sig2, who, low, inv_a, no_low, beta2, kappa, tau2, acc=None, weight=None) -> None:
    """:func:`plackett_luce_batch`'s update, in place, for games of at most two rank levels
    (winners first, the others tied after them: every game of a leaderboard).

    Then openskill's sums over the players ranked level with or above player i reduce to: for a
    winner, ``u = 1 / S`` and ``v = 1 / S^2`` with ``S`` the sum of ``e`` over all; for the
    others, ``u = 1 / S + 1 / S_low`` and ``v = 1 / S^2 + 1 / S_low^2`` with ``S_low`` the sum
    over the others only; ``1 / a`` is one over the size of the player's own level.

    Args:
        who, low, inv_a: ``(P, g, B)``: flat indices of the players, 1.0 for the others (not
            winners), one over the size of the player's level.
        no_low: ``(g, B)``: 1.0 for a game of winners only (a full tie), else 0.0.
        acc, weight: the running average of the iterates (like ``mus``), if any, and each game's
            weight in it (``(g,)``): ``acc`` takes each update times its game's weight.
    """
    for k in range(who.shape[1]):
        idx = who[:, k]
        m = mus[idx]  # (P, B)
        s2 = sig2[idx] + tau2
        c = np.sqrt((s2 + beta2).sum(axis=0))  # (B,)
        e = np.exp(m / c)
        inv_all = 1.0 / e.sum(axis=0)
        low_k = low[:, k]
        inv_low = 1.0 / ((e * low_k).sum(axis=0) + no_low[k])  # any finite value without others
        u = inv_all + low_k * inv_low
        v = inv_all * inv_all + low_k * (inv_low * inv_low)
        eu = e * u
        omega = (inv_a[:, k] - eu) * s2 / c
        delta = (eu - e * e * v) * s2 / c**2 * (np.sqrt(s2) / c)
        mus[idx] = m + omega
        sig2[idx] = s2 * np.maximum(1 - delta, kappa)
        if acc is not None and weight[k]:
            acc[idx] += omega * weight[k]


# -- the leaderboard ----------------------------------------------------------------------------
def expected_score(diff: float, scale: float = 400.0) -> float:
    """The expected score of a Bradley-Terry rating difference ``diff`` (Elo): ``1 / (1 + 10^(-diff / 400))``,
    the chance of winning a game of the two with a tie counted half (+100 Elo: 0.64, +200: 0.76).

    >>> round(expected_score(100.0), 3), expected_score(0.0)
    (0.64, 0.5)
    """
    return 1.0 / (1.0 + 10.0 ** (-diff / scale))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (S. Holm, Scand. J. Statistics 6, 1979): the k-th smallest
    of m is multiplied by ``m - k + 1`` (k from 1), made non-decreasing and capped at 1. Rejecting
    where the adjusted p-value is at most ``alpha`` keeps the chance of any false rejection among
    the m at most ``alpha``, whatever their dependence.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    m = len(p_values)
    adjusted = [1.0] * m
    running = 0.0
    for k, i in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - k) * p_values[i]))
        adjusted[i] = running
    return adjusted


@dataclass
class Row:
    """One entrant's line of the leaderboard.

    Attributes:
        label: the entrant.
        rating, rating_low, rating_high: the rating and its 95% bootstrap interval.
        games: games played.
        win_rate, win_low, win_high: win share and its 95% interval over the deals, stratified by
            table (:class:`evaluate.stats.StratifiedShare`).
        mean_return, return_low, return_high: mean C-3 return and its 95% interval, the same way
            (of the returns as shares, mapped back: :func:`evaluate.stats.return_share`; with one
            winner a game, the image of the win rate's interval).
        win_interval_source, return_interval_source: ``"deals"`` (clustered by deal) or
            ``"wilson-deals"`` (Wilson's over the deals, where the deals cannot give a clustered
            interval: see :class:`evaluate.stats.StratifiedShare`).
        win_effective_games: the independent games the win-rate interval is worth (Wilson's
            over the deals: the deals).
        separated: whether this entrant's rating differs from the next one's (the row below): the
            95% interval of the difference excludes 0 and Holm's adjusted p-value ``p_next_holm``
            is at most :data:`ALPHA`; ``None`` (unknown) for the last row and without intervals.
            (It used to say whether the two rating intervals did not overlap, which misses
            differences the data resolve.)
        interval_source: ``"bootstrap"``, ``"bootstrap+posterior"`` (Bradley-Terry, widened by
            the posterior interval: see the module docstring), ``"anchor"`` for the anchor (rating
            0, ``rating_low = rating_high = 0``), ``None`` without intervals.
        diff_next, diff_next_low, diff_next_high: this rating minus the next one's, and the 95%
            percentile interval of that difference over the bootstrap replicas (widened by the
            posterior interval when either entrant's interval was); ``None`` for the last row, the
            bounds ``None`` without intervals.
        p_next: the two-sided p-value of "no difference": ``2 P(Z > |diff| / se)`` with ``se`` the
            standard deviation of the difference over the replicas; ``p_next_holm`` it adjusted
            by :func:`holm` over the board's neighbour pairs. ``None`` without intervals.
        ahead_next, ahead_next_low, ahead_next_high: the effect size against the next. Bradley-Terry:
            the expected score against it, :func:`expected_score` of ``diff_next`` and of its
            bounds. Plackett-Luce: of the wins the two took in the games both played (a shared win
            split), the share this entrant took, with a 95% percentile interval over the same
            resampled deals; NaN if neither ever won such a game.

    Without intervals (``bootstrap=0``) ``rating_low`` and ``rating_high`` are ``None``.
    """

    label: str
    rating: float
    rating_low: float | None
    rating_high: float | None
    games: int
    win_rate: float
    win_low: float
    win_high: float
    mean_return: float
    return_low: float
    return_high: float
    separated: bool | None = None
    interval_source: str | None = None
    diff_next: float | None = None
    diff_next_low: float | None = None
    diff_next_high: float | None = None
    p_next: float | None = None
    p_next_holm: float | None = None
    ahead_next: float | None = None
    ahead_next_low: float | None = None
    ahead_next_high: float | None = None
    win_interval_source: str | None = None
    return_interval_source: str | None = None
    win_effective_games: float | None = None

    @property
    def widened(self) -> bool:
        """Whether the rating interval was widened by the posterior interval (the board's ``*``)."""
        return self.interval_source == WIDENED_SOURCE


# -- head to head ---------------------------------------------------------------------------------
#: ``interval_source`` of a head-to-head cell: the deal-clustered interval (:func:`deal_clustered_share`).
DEALS_SOURCE = CLUSTERED_SOURCE
# WILSON_DEALS_SOURCE (evaluate.stats): ``interval_source`` of a head-to-head cell under common dice
# where the deals cannot give a clustered interval: Wilson's over the deals (see :class:`PairCell`).
#: ``interval_source`` of a head-to-head cell under independent dice where the deals cannot give a
#: clustered interval: Wilson's over the games, each rotation an independent game (see :class:`PairCell`).
WILSON_SOURCE = WILSON_GAMES_SOURCE
#: The sources of a Wilson interval (marked ``w`` in the matrix's picture and Markdown table).
WILSON_SOURCES = (WILSON_DEALS_SOURCE, WILSON_SOURCE)

#: The columns of ``head_to_head.csv``: one row per ordered pair that met (``agent`` against
#: ``opponent``, in leaderboard order). ``share_ahead`` is how often ``agent`` finished ahead
#: of ``opponent`` in the games where both sat: a win against a loss counts 1, and a tie
#: (both among the winners) and, at tables of three or more, "both lost" (another player won)
#: count 1/2; ``low``..``high`` its 95% interval, ``interval_source`` which one (:class:`PairCell`);
#: ``effective_games`` the independent games the interval is worth (for Wilson's: the deals, or
#: under independent dice the games). ``wins``, ``losses``, ``ties``, ``both_lost`` count the games
#: (they add up to ``games``; the share is ``(wins + (ties + both_lost) / 2) / games``), ``deals``
#: the deals they came from. ``decided_share`` is ``wins / (wins + losses)``: how often ``agent``
#: won when exactly one of the two did (P(row wins | one of the two wins)), with its interval and
#: source the same way; empty where no game was decided between them.
HEAD_TO_HEAD_CSV_COLUMNS = (
    "agent", "opponent", "share_ahead", "low", "high", "games", "deals", "wins", "losses", "ties", "both_lost",
    "effective_games", "interval_source", "decided_share", "decided_low", "decided_high", "decided_interval_source",
)  # fmt: skip


def _nan_none(x: float):
    """``None`` for NaN (JSON's ``null``), else ``x``."""
    return None if isinstance(x, float) and math.isnan(x) else x


def _cell(value, spec: str) -> str:
    """A CSV cell: the number formatted, or empty for ``None``."""
    return "" if value is None else format(value, spec)


@dataclass(frozen=True)
class PairCell:
    """One entrant against another in the games where both sat (a cell of :class:`PairMatrix`).

    Attributes:
        games: those games; ``deals`` the deals they came from.
        wins: games the entrant won and the opponent did not; ``losses`` the other way round.
        ties: games both were among the winners (a draw, or a shared win).
        both_lost: games neither won (another player did; tables of three or more only).
        share: ``(wins + (ties + both_lost) / 2) / games``, how often the entrant finished ahead.
        low, high: its 95% interval. ``source`` says which: :data:`DEALS_SOURCE`, clustered by
            deal (:func:`deal_clustered_share`; the games of a deal share their dice), or, where
            the deals cannot give one (fewer than :data:`MIN_CLUSTER_DEALS`, a share of 0 or 1,
            or every deal ended alike), Wilson's: :data:`WILSON_DEALS_SOURCE` over the deals
            under common dice (the rotations of a deal can repeat each other, so only a deal is
            sure to be independent: a deal's share varies at most as one game's, so this
            interval is never too narrow), :data:`WILSON_SOURCE` over the games under
            independent dice (every rotation an independent game).
        effective: the independent games the interval is worth (Wilson's: the deals, or the games).
        decided_share, decided_low, decided_high, decided_source: ``wins / (wins + losses)`` with
            its interval, the same way (Wilson's over the deals that had a decided game); NaN
            (source ``""``) when no game was decided between them.
    """

    games: int
    deals: int
    wins: int
    losses: int
    ties: int
    both_lost: int
    share: float
    low: float
    high: float
    effective: float
    source: str
    decided_share: float
    decided_low: float
    decided_high: float
    decided_source: str

    def to_json(self) -> dict:
        return {
            "share": self.share,
            "low": self.low,
            "high": self.high,
            "games": self.games,
            "deals": self.deals,
            "wins": self.wins,
            "losses": self.losses,
            "ties": self.ties,
            "both_lost": self.both_lost,
            "effective_games": self.effective,
            "interval_source": self.source,
            "decided_share": _nan_none(self.decided_share),
            "decided_low": _nan_none(self.decided_low),
            "decided_high": _nan_none(self.decided_high),
            "decided_interval_source": self.decided_source,
        }


def _pair_interval(y_col, n_col, common: bool) -> tuple[float, float, float, float, str]:
    """``(share, low, high, effective, source)`` of ``sum y / sum n`` over the deals (one entry a
    deal); ``common``: some deal was played on common dice (the fallback is then over deals)."""
    y = np.asarray(y_col, dtype=float)
    n = np.asarray(n_col, dtype=float)
    total_y, total_n = float(y.sum()), float(n.sum())
    if total_n <= 0:
        nan = float("nan")
        return nan, nan, nan, 0.0, ""
    found = deal_clustered_share(len(y), total_y, total_n, float(y @ y), float(y @ n), float(n @ n))
    if found is not None:
        return (*found, DEALS_SOURCE)
    if common:  # the deals that counted any game: the independent units
        deals = int(np.count_nonzero(n))
        share = total_y / total_n
        _, low, high = wilson(min(max(share, 0.0), 1.0) * deals, deals)
        return share, low, high, float(deals), WILSON_DEALS_SOURCE
    share, low, high = wilson(total_y, int(round(total_n)))
    return share, low, high, total_n, WILSON_SOURCE


def _pair_cell(per_deal: np.ndarray, common: bool) -> PairCell:
    """A cell from its deals' counts, a row per deal: ``wins, losses, ties, both_lost``."""
    wins, losses, ties, both_lost = (per_deal[:, k] for k in range(4))
    games = wins + losses + ties + both_lost
    share = _pair_interval(wins + (ties + both_lost) / 2.0, games, common)
    decided = _pair_interval(wins, wins + losses, common)
    return PairCell(
        int(games.sum()), len(per_deal), int(wins.sum()), int(losses.sum()), int(ties.sum()), int(both_lost.sum()),
        share[0], share[1], share[2], share[3], share[4], *decided[:3], decided[4],
    )  # fmt: skip


class PairMatrix:
    """The head-to-head matrix: every entrant against every other, from the games where both sat.

    It is the leaderboard's ``head_to_head`` (:attr:`Leaderboard.matrix`), and the report's
    ``head_to_head.csv``, ``head_to_head.png`` and the matrix of ``leaderboard.md``. A cell
    (:class:`PairCell`) counts the pair's wins, losses, ties and "both lost", and gives how often
    the row finished ahead of the column, ties and "both lost" counting 1/2, with a 95% interval
    over the deals (under common dice the rotations of a deal meet the same dice: one deal is the
    unit of independent data), or Wilson's where the deals cannot give one: over the deals under
    common dice, over the games under independent dice. Two-player games have no "both lost": the
    share is the pair's own result.

    Example:
        >>> from evaluate.tournament import run_tournament
        >>> result = run_tournament("syvere", ["heuristic", "random"], games=30, progress=False, workers=1)
        >>> h2h = PairMatrix.of_records(result.records, ["heuristic", "random"])
        >>> cell = h2h.cell("heuristic", "random")
        >>> cell.games, cell.deals, cell.wins + cell.losses + cell.ties + cell.both_lost
        (60, 30, 60)
    """

    def __init__(
        self, labels: Sequence[str], num_players: int, cells: dict[tuple[str, str], PairCell],
        dice: Iterable[str] = ("common",),
    ):  # fmt: skip
        self.labels = list(labels)
        self.num_players = int(num_players)
        self.cells = cells
        #: the dice modes of the games (``"common"``, ``"independent"``): what the fallback counts.
        self.dice = frozenset(dice)

    @classmethod
    def of_records(cls, records: Iterable, labels: Sequence[str]) -> "PairMatrix":
        """The matrix of these game records (``evaluate.tournament.GameRecord``), its rows and
        columns in the order of ``labels`` (the leaderboard's). A deal is :func:`deal_key`'s: a
        table's deal under one seed and dice mode."""
        labels = list(labels)
        index = {label: k for k, label in enumerate(labels)}
        # (i, j) with i < j -> deal -> [i won alone, j won alone, both won, neither won]
        counts: dict[tuple[int, int], dict[tuple, list[int]]] = {}
        common: dict[tuple[int, int], bool] = {}  # (i, j) -> some of its games on common dice
        num_players = 0
        dice: set[str] = set()
        for r in records:
            seats = [index[label] for label in r.seats]
            num_players = max(num_players, len(seats))
            top = max(r.returns)
            won = {e: x == top for e, x in zip(seats, r.returns)}
            deal = deal_key(r.task)
            dice.add(r.task.dice)
            for a, b in itertools.combinations(sorted(seats), 2):
                cell = counts.setdefault((a, b), {}).setdefault(deal, [0, 0, 0, 0])
                cell[0 if won[a] and not won[b] else 1 if won[b] and not won[a] else 2 if won[a] else 3] += 1
                common[a, b] = common.get((a, b), False) or r.task.dice != "independent"
        cells: dict[tuple[str, str], PairCell] = {}
        for (a, b), by_deal in counts.items():
            per_deal = np.array(list(by_deal.values()), dtype=float)
            cells[labels[a], labels[b]] = _pair_cell(per_deal, common[a, b])
            cells[labels[b], labels[a]] = _pair_cell(per_deal[:, [1, 0, 2, 3]], common[a, b])
        return cls(labels, num_players, cells, dice or ("common",))

    def cell(self, agent: str, opponent: str) -> PairCell | None:
        """``agent`` against ``opponent``; ``None`` on the diagonal and for a pair that never met."""
        return self.cells.get((agent, opponent))

    def grid(self) -> list[list[tuple[float, float, float, int] | None]]:
        """``[i][j]`` = ``(share, low, high, games)`` of ``labels[i]`` against ``labels[j]`` (the
        cells in short, :attr:`Leaderboard.head_to_head`); ``None`` on the diagonal and for pairs
        that never met."""
        cells = [[self.cell(a, b) for b in self.labels] for a in self.labels]
        return [[None if c is None else (c.share, c.low, c.high, c.games) for c in row] for row in cells]

    def counting(self) -> str:
        """What the share counts, in words (titles and notes)."""
        if self.num_players > 2:
            return "ties and 'both lost' (another player won) count 1/2"
        return "ties count 1/2"

    def intervals(self) -> str:
        """What the intervals are, in words (titles and notes)."""
        if "common" not in self.dice:
            fallback = "games"
        elif "independent" in self.dice:
            fallback = "deals (games under independent dice)"
        else:
            fallback = "deals"
        return (
            f"95% intervals over deals; 'w': Wilson's over the {fallback} (under {MIN_CLUSTER_DEALS} deals, "
            "a share of 0 or 1, or every deal alike); each holds for its own cell, not for the whole matrix at once"
        )

    def csv_rows(self) -> list[list]:
        """The rows of ``head_to_head.csv`` (:data:`HEAD_TO_HEAD_CSV_COLUMNS`)."""
        rows = []
        for a in self.labels:
            for b in self.labels:
                c = self.cell(a, b)
                if c is None:
                    continue
                decided = [_cell(_nan_none(x), ".5f") for x in (c.decided_share, c.decided_low, c.decided_high)]
                rows.append(
                    [a, b, f"{c.share:.5f}", f"{c.low:.5f}", f"{c.high:.5f}", c.games, c.deals, c.wins, c.losses,
                     c.ties, c.both_lost, f"{c.effective:.1f}", c.source, *decided, c.decided_source]
                )  # fmt: skip
        return rows

    def to_json(self) -> dict:
        """``{agent: {opponent: cell or None}}`` (:meth:`PairCell.to_json`), in leaderboard order."""
        cells = {a: {b: self.cell(a, b) for b in self.labels} for a in self.labels}
        return {a: {b: None if c is None else c.to_json() for b, c in row.items()} for a, row in cells.items()}

    def markdown(self) -> str:
        """The matrix as a Markdown table: each cell the row's share against the column and its
        interval (``w`` marks Wilson's), then a line saying what they count."""
        lines = ["| agent \\ opponent | " + " | ".join(self.labels) + " |", "|---|" + "---|" * len(self.labels)]
        for a in self.labels:
            cells = []
            for b in self.labels:
                c = self.cell(a, b)
                mark = "w" if c is not None and c.source in WILSON_SOURCES else ""
                cells.append("" if c is None else f"{c.share:.3f} [{c.low:.3f}, {c.high:.3f}]{mark}")
            lines.append(f"| {a} | " + " | ".join(cells) + " |")
        lines += ["", f"Share of games the row finished ahead of the column; {self.counting()}; {self.intervals()}."]
        return "\n".join(lines)


@dataclass
class Leaderboard:
    """Ratings, win rates, returns and the head-to-head matrix of a tournament.

    Attributes:
        method: ``"bradley-terry"`` (Elo scale) or ``"openskill-plackett-luce"`` (mu).
        rows: one per entrant, best rating first.
        labels: the entrants in leaderboard order (the head-to-head matrix's order).
        matrix: the head-to-head matrix (:class:`PairMatrix`): how often each entrant finished
            ahead of each other in the games where both sat (a win against a loss; ties and both
            losing or both winning count half), with its 95% interval over deals and the counts;
            the report's ``head_to_head.csv`` and the ``head_to_head`` of :meth:`to_json`.
            :attr:`head_to_head` is the same in short.
        bootstrap: bootstrap replicas behind the rating intervals.
        num_games: games behind it all.
        rating_name: the rating's scale as printed (``"Elo"``, ``"mu"``).
        extra: settings of the method, in :meth:`to_json` too: ``orders``, the game orders a
            Plackett-Luce rating averages (:func:`orders_for`); ``anchor``, the entrant pinned at 0
            (``None``: ratings centred on the field).
    """

    method: str
    rows: list[Row]
    labels: list[str]
    matrix: PairMatrix
    bootstrap: int
    num_games: int
    rating_name: str = "rating"
    extra: dict = field(default_factory=dict)

    @property
    def head_to_head(self) -> list[list[tuple[float, float, float, int] | None]]:
        """``[i][j]`` = ``(share, low, high, games)``: the :attr:`matrix`'s cell of ``labels[i]``
        against ``labels[j]`` (:meth:`PairMatrix.grid`: the interval over deals, or Wilson's where
        the deals cannot give one); ``None`` on the diagonal and for pairs that never met."""
        return self.matrix.grid()

    def overlaps_next(self, row: Row) -> bool:
        """Deprecated: whether ``row``'s rating interval overlaps the next row's (the board's only mark
        before 2026-12-01, ``~ next``). Overlapping intervals do not mean the two are not separated:
        :attr:`Row.separated` tests their difference. ``False`` without intervals and for the last row."""
        warnings.warn("Leaderboard.overlaps_next is deprecated: Row.separated tests the difference to the next row",
                      DeprecationWarning, stacklevel=2)  # fmt: skip
        k = self.rows.index(row)
        if k + 1 >= len(self.rows):
            return False
        below = self.rows[k + 1]
        if row.rating_low is None or below.rating_high is None:
            return False
        return row.rating_low <= below.rating_high

    def overlaps(self) -> bool:
        """Deprecated: whether some row's rating interval overlaps the next one's (:meth:`overlaps_next`)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            found = any(self.overlaps_next(r) for r in self.rows)
        warnings.warn("Leaderboard.overlaps is deprecated: Row.separated tests the difference to the next row",
                      DeprecationWarning, stacklevel=2)  # fmt: skip
        return found

    def ratings(self) -> dict[str, dict]:
        """label -> ``{"rating", "low", "high"}`` (the ``--json`` field ``ratings``)."""
        return {r.label: {"rating": r.rating, "low": r.rating_low, "high": r.rating_high} for r in self.rows}

    def to_json(self) -> dict:
        """The leaderboard as a JSON-able dict (``leaderboard`` in the report's ``report.json`` and
        ``--json``); ``head_to_head`` is :meth:`PairMatrix.to_json`, as in ``head_to_head.csv``."""
        return {
            "method": self.method,
            "rating_scale": self.rating_name,
            "bootstrap": self.bootstrap,
            "games": self.num_games,
            **self.extra,
            "separation": {
                "compares": "each row with the next (diff_next = rating - next rating)",
                "interval": "95% bootstrap percentile interval over deals, per pair",
                "p_value": "two-sided, normal approximation with the bootstrap standard error",
                "correction": "holm",
                "pairs": self.pairs(),
                "alpha": ALPHA,
                "ahead_next": self.ahead_meaning(),
            },
            "rows": [r.__dict__.copy() for r in self.rows],
            "head_to_head": self.matrix.to_json(),
        }

    @property
    def decimals(self) -> int:
        """Decimals of a rating difference as printed (Elo 1, openskill's mu 2)."""
        return 1 if self.method == "bradley-terry" else 2

    @property
    def ahead_name(self) -> str:
        """The heading of the effect-size column (:attr:`Row.ahead_next`)."""
        return "score vs next" if self.method == "bradley-terry" else "wins vs next"

    def ahead_meaning(self) -> str:
        """What :attr:`Row.ahead_next` is, in one legend line."""
        if self.method == "bradley-terry":
            return (
                f"{self.ahead_name}: the expected score against the next in a game of the two (a win 1, a tie 1/2), "
                "1/(1 + 10^(-d/400)) of the Elo difference d and of its bounds (+100 Elo: 0.64, +200: 0.76)"
            )
        return (
            f"{self.ahead_name}: of the wins the two took in the games both played (a shared win split), the share "
            "this entrant took, with its 95% bootstrap interval over deals (their own games, not the model)"
        )

    def pairs(self) -> int:
        """The neighbour pairs compared (the family of the separation marks)."""
        return sum(1 for r in self.rows if r.p_next is not None)

    @property
    def anchor(self) -> str | None:
        """The entrant pinned at rating 0, or ``None`` (ratings centred on the field)."""
        return self.extra.get("anchor")

    def rating_interval(self, row: Row) -> str:
        """A row's rating interval as text, ``-`` when there is none (``bootstrap=0``); ``*`` marks
        one widened by the posterior interval; the anchor's is ``anchor``."""
        if row.label == self.anchor:
            return "anchor"
        if row.rating_low is None or row.rating_high is None:
            return "-"
        mark = "*" if row.widened else ""
        return f"[{row.rating_low:.1f}, {row.rating_high:.1f}]{mark}"

    def win_interval(self, row: Row) -> str:
        """A row's win-rate interval as text, ``w`` after Wilson's over the deals (the legend's)."""
        mark = "w" if row.win_interval_source in WILSON_SOURCES else ""
        return f"[{row.win_low:.3f}, {row.win_high:.3f}]{mark}"

    def vs_next(self, row: Row) -> str:
        """A row's difference from the next as text: ``> +14.4 [4.7, 25.1]``, ``>`` when the two
        are separated (:attr:`Row.separated`), ``*`` after an interval widened by the posterior
        interval; the difference alone without intervals; ``""`` for the last row."""
        if row.diff_next is None:
            return ""
        d = self.decimals
        text = f"{row.diff_next:+.{d}f}"
        if row.diff_next_low is not None and row.diff_next_high is not None:
            k = self.rows.index(row)
            widened = row.widened or (k + 1 < len(self.rows) and self.rows[k + 1].widened)
            text += f" [{row.diff_next_low:.{d}f}, {row.diff_next_high:.{d}f}]{'*' if widened else ''}"
        return ("> " if row.separated else "  ") + text

    def ahead_text(self, row: Row) -> str:
        """A row's effect size against the next as text (``0.521 [0.507, 0.536]``), ``""`` for the
        last row, ``-`` when undefined."""
        if row.ahead_next is None:
            return ""
        if math.isnan(row.ahead_next):
            return "-"
        if row.ahead_next_low is None or row.ahead_next_high is None:
            return f"{row.ahead_next:.3f}"
        return f"{row.ahead_next:.3f} [{row.ahead_next_low:.3f}, {row.ahead_next_high:.3f}]"

    def widened(self) -> bool:
        """Whether some row's interval was widened by the Bradley-Terry posterior interval."""
        return any(r.widened for r in self.rows)

    def legend(self) -> list[str]:
        """The lines that explain the board, as printed under it (plain text and rich alike)."""
        lines = []
        if len(self.rows) > 1:
            lines.append("vs next: this rating minus the next one's" + (
                ", with the 95% bootstrap interval over deals of that difference" if self.bootstrap else ""))
            if self.bootstrap:
                lines.append(
                    f"> : the two differ, at a family-wise {ALPHA:.0%} level over the {self.pairs()} neighbour "
                    "pairs (Holm; p from the difference's bootstrap standard error); no > : not shown to "
                    "differ, which is not evidence that they are equal"
                )
            lines.append(self.ahead_meaning())
        centre = f"centred on {MU0:g}, its start" if self.anchor is None else f"{self.anchor} pinned at 0"
        if self.method != "bradley-terry":
            lines.append(
                f"mu: openskill's Plackett-Luce skill (winners ahead of the rest; averaged over {self.extra.get('orders')} "
                f"game orders, {centre}): it ranks the entrants, but its differences are not win odds, and its "
                "scale depends on the number of games: compare it only within one board"
            )
        if self.anchor is not None:
            lines.append(
                f"anchor: {self.anchor}'s {self.rating_name} is 0; every other rating and its interval is the difference "
                f"from {self.anchor}'s"
            )
        if self.bootstrap:
            lines.append(NOT_SIMULTANEOUS)
        lines.append(WIN_RATE)
        if any(r.win_interval_source in WILSON_SOURCES for r in self.rows):
            lines.append(WIN_RATE_WILSON)
        lines.append(MEAN_RETURN)
        if self.widened():
            lines.append(WIDENED)
        if self.bootstrap == 0:
            lines.append(NO_INTERVALS)
        return lines

    def text(self) -> str:
        """A plain-text table (the leaderboard without rich) and its legend."""
        vs = [self.vs_next(r) for r in self.rows]
        width = max([len("vs next"), *map(len, vs)])
        agent = max([28, *(len(r.label) for r in self.rows)])  # a long label widens the column, not one row
        lines = [
            f"{'#':>2} {'agent':<{agent}} {self.rating_name:>8} {'95% interval':>19} {'games':>6} "
            f"{'win rate':>8} {'95% (deals)':>16} {'mean return':>11}  {'vs next':<{width}}  {self.ahead_name}"
        ]
        for k, (r, v) in enumerate(zip(self.rows, vs), 1):
            lines.append(
                f"{k:>2} {r.label:<{agent}} {r.rating:>8.1f} {self.rating_interval(r):>19} "
                f"{r.games:>6} {r.win_rate:>8.3f} {self.win_interval(r):>16} "
                f"{r.mean_return:>+11.3f}  {v:<{width}}  {self.ahead_text(r)}".rstrip()
            )
        return "\n".join(lines + self.legend())


def _ranks(returns: Sequence[float]) -> list[int]:
    """Plackett-Luce ranks from C-3 returns: winners 0, the others 1 (0 for all in a full tie)."""
    top = max(returns)
    return [0 if r == top else 1 for r in returns]


def leaderboard(
    labels: Sequence[str],
    records: Sequence[GameRecord],
    bootstrap: int = 200,
    seed: int = 0,
    method: str | None = None,
    anchor: str | None = None,
) -> Leaderboard:
    """The leaderboard of a tournament from its game records (``evaluate.tournament.GameRecord``).

    Args:
        labels: every entrant.
        records: the games; each has ``seats`` (labels in seat order), ``returns`` and a ``task``
            (a ``GameTask``), whose deal (:func:`evaluate.stats.deal_key`) is the bootstrap's unit
            and the head-to-head intervals'.
        bootstrap: bootstrap replicas for the rating intervals (0: no intervals: ``rating_low``,
            ``rating_high``, ``separated`` and the difference's bounds and p-values are ``None``,
            and the leaderboard's text shows ``-``).
        seed: seeds the bootstrap and the openskill game orders.
        method: ``"bradley-terry"`` or ``"openskill-plackett-luce"``; default by table size
            (two seats: Bradley-Terry).
        anchor: an entrant whose rating is pinned at 0 (every rating and replica is its difference
            from the anchor's); ``None`` (default): ratings centred on the field.

    Raises:
        ValueError: no games, a game seating an unknown entrant, an anchor that is not an entrant,
            or ``bootstrap`` neither 0 nor at least :data:`MIN_BOOTSTRAP` (fewer leave the 2.5%
            tails of the interval empty).
    """
    labels = list(labels)
    check_bootstrap(bootstrap)
    if not records:
        raise ValueError("a leaderboard needs at least one game")
    index = {label: k for k, label in enumerate(labels)}
    if anchor is not None and anchor not in index:
        raise ValueError(f"the anchor {anchor!r} is not an entrant; the entrants are {', '.join(labels)}")
    sizes = {len(r.seats) for r in records}
    if method is None:
        method = default_method(sizes)
    if method not in ("bradley-terry", "openskill-plackett-luce"):
        raise ValueError(f"unknown rating method {method!r}")
    if method == "bradley-terry" and sizes != {2}:
        raise ValueError("Bradley-Terry ratings need two-player games")
    E = len(labels)
    for r in records:
        for label in r.seats:
            if label not in index:
                raise ValueError(f"a game seats {label!r}, not one of the entrants {labels}")

    # Per-game arrays and the deal (cluster) of each game.
    cluster_of: dict[tuple, int] = {}
    game_cluster = np.array(
        [cluster_of.setdefault(deal_key(r.task), len(cluster_of)) for r in records], dtype=np.int64
    )
    C = len(cluster_of)

    # Win shares and returns (the head-to-head matrix is PairMatrix's).
    played = np.zeros(E, dtype=np.int64)
    # Per deal and entrant: games, win shares and returns as shares (below), for the per-entrant
    # intervals over deals.
    deal_games = np.zeros((C, E))
    deal_wins = np.zeros((C, E))
    # The returns as shares: ((P - 1) r + 1) / P where every table seats P and no game of the
    # entrant's had two or more winners and it among the losers (return_share); else (r + 1) / 2.
    P = next(iter(sizes)) if len(sizes) == 1 else 2
    deal_returns = np.zeros((C, E))
    deal_returns_2 = np.zeros((C, E))
    tie_lost = np.zeros(E, dtype=bool)
    pair_wins_by_cluster = np.zeros((C, E, E)) if method == "bradley-terry" else None
    # Plackett-Luce's effect size: shared_wins[c, i, j] is i's win share in deal c's games where j sat too.
    shared_wins = np.zeros((C, E, E)) if method != "bradley-terry" else None
    for g, r in enumerate(records):
        seats = [index[label] for label in r.seats]
        k = sum(1 for x in r.returns if x == max(r.returns))
        top = max(r.returns)
        win = [1.0 / k if x == top else 0.0 for x in r.returns]
        c = game_cluster[g]
        for s, e in enumerate(seats):
            played[e] += 1
            deal_games[c, e] += 1
            deal_wins[c, e] += win[s]
            u = return_share(float(r.returns[s]), P)
            if u is None:
                tie_lost[e] = True
            else:
                deal_returns[c, e] += u
            deal_returns_2[c, e] += (float(r.returns[s]) + 1.0) / 2.0
        if shared_wins is not None:
            for s, e in enumerate(seats):
                for t, f in enumerate(seats):
                    if s != t:
                        shared_wins[game_cluster[g], e, f] += win[s]
        if pair_wins_by_cluster is not None:
            ea, eb = seats
            pair_wins_by_cluster[game_cluster[g], ea, eb] += ahead_share(r.returns, 0)
            pair_wins_by_cluster[game_cluster[g], eb, ea] += ahead_share(r.returns, 1)

    rng = np.random.default_rng(seed)
    extra: dict = {}
    counts = np.zeros((0, C))  # each replica's count of every deal
    fixed = np.zeros(E, dtype=bool)
    boot = np.zeros((0, E))
    if method == "bradley-terry":
        assert pair_wins_by_cluster is not None  # made above for Bradley-Terry
        point = _bt_fit(pair_wins_by_cluster.sum(axis=0)) * ELO
        if bootstrap > 0:
            counts = rng.multinomial(C, np.full(C, 1.0 / C), size=bootstrap).astype(float)
            boot_wins = np.einsum("bc,cij->bij", counts, pair_wins_by_cluster)
            boot = _bt_fit(boot_wins) * ELO
            fixed = _constant_pairs(pair_wins_by_cluster)
        rating_name = "Elo"
    else:
        ranked = [(list(r.seats), _ranks(r.returns)) for r in records]
        seat_ids = np.array([[index[label] for label in seats] for seats, _ in ranked])
        rank_ids = np.array([ranks for _, ranks in ranked])
        # openskill's online update depends on the order of the games: the rating is the statistic
        # _openskill_mu of K shuffles (the first with openskill itself, the others with its
        # batched replay); the order seeds come from their own stream, apart from the bootstrap's.
        N = len(ranked)
        K = orders_for(N)
        order_rng = np.random.default_rng([seed, 1])
        orders = np.stack([order_rng.permutation(N) for _ in range(K)])
        first = plackett_luce(labels, ranked, order=orders[0], average_from=N // 2)
        fits = np.vstack([
            [first[label] for label in labels],
            plackett_luce_batch(E, seat_ids, rank_ids, order=orders[1:], average_from=N // 2),
        ])  # fmt: skip
        point = _openskill_mu(fits, 1)[0]
        if bootstrap > 0:
            if len({len(m) for m in _members(game_cluster, C)}) != 1:
                raise ValueError("every deal must have the same number of games (all its rotations)")
            members = np.array(_members(game_cluster, C), dtype=np.int32)  # (C, games per deal)
            # A replica is the same statistic on resampled deals, over as many shuffles of its games.
            # Replicas are refitted in groups, to bound the memory.
            boot = np.empty((bootstrap, E))
            counts = np.empty((bootstrap, C))
            group = max(1, min(bootstrap, BATCH_GAMES // (K * len(records))))
            for b0 in range(0, bootstrap, group):
                n = min(group, bootstrap - b0)
                deals = rng.integers(C, size=(n, C))
                counts[b0 : b0 + n] = [np.bincount(row, minlength=C) for row in deals]
                picked = members[deals].reshape(n, -1)
                shuffled = rng.permuted(np.repeat(picked, K, axis=0), axis=1)
                fits = plackett_luce_batch(E, seat_ids, rank_ids, order=shuffled, average_from=N // 2)
                boot[b0 : b0 + n] = _openskill_mu(fits, n)
        rating_name = "mu"
        extra["orders"] = K
    extra["anchor"] = anchor
    a = index[anchor] if anchor is not None else None
    if a is not None:  # every rating, and every replica, as its difference from the anchor's
        point = point - point[a]
        boot = boot - boot[:, [a]]
    sources: list[str | None] = ["bootstrap"] * E
    cov = None
    if bootstrap > 0:
        low, high = np.percentile(boot, [2.5, 97.5], axis=0)
        if method == "bradley-terry" and fixed.any():
            # Resampling deals cannot vary a pair whose every deal ended alike (10-0, or mirrored
            # 1-1 deals): its entrants' intervals also take in the posterior interval (with an
            # anchor, that of the difference from the anchor, widened as a difference is).
            assert pair_wins_by_cluster is not None  # made above for Bradley-Terry
            cov = _bt_posterior_cov(pair_wins_by_cluster.sum(axis=0))
            for e in range(E):
                if e == a or not (fixed[e] or (a is not None and fixed[a])):
                    continue
                var = cov[e, e] if a is None else cov[e, e] + cov[a, a] - 2 * cov[e, a]
                sd = math.sqrt(max(float(var), 0.0))
                low[e] = min(low[e], point[e] - Z95 * sd)
                high[e] = max(high[e], point[e] + Z95 * sd)
                sources[e] = WIDENED_SOURCE
        if a is not None:
            low[a] = high[a] = 0.0
            sources[a] = ANCHOR_SOURCE
    else:
        low = high = [None] * E
        sources = [None] * E
        if a is not None:
            sources[a] = ANCHOR_SOURCE

    rows = []
    tables = [key[:3] for key in cluster_of]  # a deal's table (deal_key without the deal): its stratum
    # Under independent dice every rotation is an independent game: where the deals cannot give an
    # interval, Wilson's over the games (as the head-to-head matrix's cells), not over the deals.
    independent = all(key[1] == "independent" for key in cluster_of)
    for e, label in enumerate(labels):
        wins, rets = StratifiedShare(), StratifiedShare()
        as_shares, players = (deal_returns_2, 2) if tie_lost[e] else (deal_returns, P)
        for c in np.flatnonzero(deal_games[:, e]):
            n_ce = float(deal_games[c, e])
            wins.add_deal(tables[c], min(float(deal_wins[c, e]), n_ce), n_ce)
            rets.add_deal(tables[c], min(max(float(as_shares[c, e]), 0.0), n_ce), n_ce)
        w, wl, wh, w_eff, w_source = wins.interval(independent)
        m, ml, mh, _, m_source = return_interval(rets, players, independent)
        rows.append(
            Row(label, float(point[e]), _float(low[e]), _float(high[e]), int(played[e]), w, wl, wh, m, ml, mh,
                interval_source=sources[e], win_interval_source=w_source if played[e] else None,
                return_interval_source=m_source if played[e] else None,
                win_effective_games=_float(w_eff) if played[e] else None)
        )  # fmt: skip
    rows.sort(key=lambda row: -row.rating)
    order = [index[row.label] for row in rows]
    for row, a, b in zip(rows, order, order[1:]):
        _compare(row, a, b, point, boot, counts, shared_wins, fixed, cov)
    if bootstrap > 0:  # without intervals, and for the last row, separation is unknown (None)
        compared = rows[:-1]  # _compare gave each of them its difference's interval and p-value
        for row, p in zip(compared, holm([_known(row.p_next) for row in compared])):
            row.p_next_holm = p
            row.separated = bool(
                p <= ALPHA and (_known(row.diff_next_low) > 0 or _known(row.diff_next_high) < 0)
            )
    labels_in_order = [labels[i] for i in order]
    matrix = PairMatrix.of_records(records, labels_in_order)
    return Leaderboard(method, rows, labels_in_order, matrix, int(bootstrap), len(records), rating_name, extra)


def _openskill_mu(fits: np.ndarray, n: int) -> np.ndarray:
    """The Plackett-Luce rating of ``n`` data sets from their fits, ``(n * K, E)`` (a data
    set's orders one after another): each order's ``mu`` centred on :data:`MU0`, then averaged over
    the orders.

    A fit is openskill's ``mu`` averaged over the second half of the order (Polyak-Ruppert
    averaging): the final ``mu`` follows the last games, so it moves by about 3 times the
    sampling noise from order to order, and the average over the second half by 1.8 times. Most
    of that is a shift of the whole field (the mean ``mu`` drifts, openskill's updates summing to
    0 only for players of equal ``sigma``); centring removes it, leaving about 0.8 times the
    sampling noise (Syvere, tables of 4, 10 000 games an entrant); the mean of the 10 such orders
    :func:`orders_for` takes there about 0.3 times.
    """
    fits = fits - fits.mean(axis=1, keepdims=True) + MU0
    return fits.reshape(n, -1, fits.shape[1]).mean(axis=1)


def _compare(row: Row, a: int, b: int, point, boot, counts, shared_wins, fixed, cov) -> None:
    """Fill ``row`` (entrant ``a``) with its difference from the next row (entrant ``b``), its
    interval and p-value over the bootstrap replicas ``boot`` (none: only the difference), and
    its effect size (:attr:`Row.ahead_next`)."""
    diff = float(point[a] - point[b])
    row.diff_next = diff
    if shared_wins is None:  # Bradley-Terry: the expected score of the difference
        row.ahead_next = expected_score(diff)
    else:
        mine, theirs = shared_wins[:, a, b], shared_wins[:, b, a]
        total = float(mine.sum() + theirs.sum())
        row.ahead_next = float(mine.sum()) / total if total > 0 else float("nan")
    if len(boot) == 0:
        return
    diffs = boot[:, a] - boot[:, b]
    low, high = (float(x) for x in np.percentile(diffs, [2.5, 97.5]))
    se = float(np.std(diffs, ddof=1))
    if cov is not None and (fixed[a] or fixed[b]):  # resampling cannot vary one of them: the posterior too
        post = math.sqrt(max(cov[a, a] + cov[b, b] - 2 * cov[a, b], 0.0))
        low, high, se = min(low, diff - Z95 * post), max(high, diff + Z95 * post), max(se, post)
    row.diff_next_low, row.diff_next_high = low, high
    row.p_next = math.erfc(abs(diff) / se / math.sqrt(2)) if se > 0 else float(diff == 0)
    if shared_wins is None:
        row.ahead_next_low, row.ahead_next_high = expected_score(low), expected_score(high)
    else:
        mine_b, total_b = counts @ shared_wins[:, a, b], counts @ (shared_wins[:, a, b] + shared_wins[:, b, a])
        shares = mine_b[total_b > 0] / total_b[total_b > 0]
        if len(shares):
            row.ahead_next_low, row.ahead_next_high = (float(x) for x in np.percentile(shares, [2.5, 97.5]))


def _float(x) -> float | None:
    return None if x is None else float(x)


def _known(x: float | None) -> float:
    """``x``, which the caller knows is set (a figure of a leaderboard with intervals)."""
    assert x is not None
    return x


def _constant_pairs(pair_wins_by_cluster: np.ndarray) -> np.ndarray:
    """Which entrants (``(E,)`` bool) met an opponent with the same result in every deal they
    played (every deal 1-0, or every deal 1-1 as in mirrored rotations under common dice).

    Resampling such deals never changes the pair's share, so the deal bootstrap cannot see that
    pair's uncertainty (the percentile interval can be of width 0).
    """
    wins = pair_wins_by_cluster  # (C, E, E)
    games = wins + np.swapaxes(wins, 1, 2)
    met = games > 0
    share = np.where(met, wins / np.where(met, games, 1.0), np.nan)
    high = np.nanmax(np.where(met, share, -np.inf), axis=0)
    low = np.nanmin(np.where(met, share, np.inf), axis=0)
    constant = met.any(axis=0) & (high - low < 1e-12)
    return constant.any(axis=1)


def _bt_posterior_cov(wins: np.ndarray) -> np.ndarray:
    """Covariance (Elo squared) of the Bradley-Terry ratings under the fit's prior (one virtual
    tie per pair that met): the Laplace approximation of the posterior at its mode, whose
    precision is the Hessian of the negative log-posterior, a weighted graph Laplacian
    ``L_ii = sum_j n_ij p_ij p_ji``, ``L_ij = -n_ij p_ij p_ji``; ratings centred on mean 0 have
    the covariance ``pinv(L)`` (a difference ``i - j`` the variance ``C_ii + C_jj - 2 C_ij``).
    Games are taken as independent (common dice are not modelled).
    """
    games = wins + wins.T
    n = games + PRIOR_TIES * (games > 0)
    theta = _bt_fit(wins)
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
    w = n * p * p.T
    laplacian = np.diag(w.sum(axis=1)) - w
    cov = np.linalg.pinv(laplacian) * ELO**2
    d = np.clip(np.diag(cov), 0.0, None)
    np.fill_diagonal(cov, d)
    return cov


def _members(game_cluster: np.ndarray, num_clusters: int) -> list[list[int]]:
    members: list[list[int]] = [[] for _ in range(num_clusters)]
    for g, c in enumerate(game_cluster):
        members[int(c)].append(g)
    return members


def ahead_share(returns: Sequence[float], seat: int) -> float:
    """Seat ``seat``'s share of a two-player game: 1 won, 0 lost, 1/2 tied."""
    other = 1 - seat
    if returns[seat] > returns[other]:
        return 1.0
    if returns[seat] < returns[other]:
        return 0.0
    return 0.5
