"""Ratings, win rates and the leaderboard of a tournament.

* **Two-player tables: Bradley-Terry.** ``P(i beats j) = p_i / (p_i + p_j)``, fitted by maximum
  likelihood with the MM algorithm of D. R. Hunter ("MM algorithms for generalized Bradley-Terry
  models", Annals of Statistics 32, 2004): ``p_i <- W_i / sum_j n_ij / (p_i + p_j)``. A tie counts
  as half a win for each side (win shares, CONTRACTS.md). Every pair that met also gets one
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
  other defaults. The update is online, so the rating is ``mu`` averaged over :data:`ORDERS` (20)
  shuffled orders of the games; with ``tau = 0`` one order's ``mu`` still moves by about 3 times
  the sampling noise from order to order (Syvere, 6400 games an entrant), the average of 20 by
  about 0.7 times.
* **Intervals** come from a bootstrap over deals: a deal and all its rotations are resampled
  together, because with common dice they are not independent games; the interval is the 2.5 and
  97.5 percentiles of the refitted ratings (Efron and Tibshirani, *An Introduction to the
  Bootstrap*, 1993, ch. 13). A Plackett-Luce replica refits the same statistic: ``mu`` averaged
  over :data:`REPLICA_ORDERS` (10) shuffles of its games (one shuffle would put that order's noise
  in the interval: it used to stop the interval narrowing beyond a few hundred games). With 10
  orders where the rating averages 20 the interval is a little wider than the rating's spread
  (about 10% at 6400 games an entrant), never narrower. Width goes about as 1/sqrt(games).
* **Bradley-Terry intervals of a pair that ended alike in every deal** (10-0; or mirrored 1-1
  deals, two copies of one agent under common dice): resampling deals never changes that pair's
  result, so the bootstrap cannot see its uncertainty (every replica can be identical: an interval
  of width 0). The entrants of such a pair get the union of the bootstrap interval and the
  posterior interval under the same prior (one virtual tie per pair): ``rating +- 1.96 sd`` with
  ``sd`` from the Laplace approximation at the posterior mode (the inverse of the Hessian of the
  negative log-posterior, which treats games as independent). Such an interval is marked ``*``
  and its row's ``interval_source`` is ``"bootstrap+posterior"``.
* With ``bootstrap=0`` there are no intervals: ``rating_low``, ``rating_high`` and ``separated``
  are ``None`` (``null`` in JSON, empty in the report's CSV); the last row's ``separated`` is
  ``None`` too (nothing follows it).
* Win rates carry Wilson score intervals (:func:`evaluate.stats.wilson`) and mean returns normal
  intervals.

Example (a Bradley-Terry fit on made-up results: ``a`` beats ``b`` 3 times in 4):

    >>> rating = bradley_terry(["a", "b"], [("a", "b", 1.0)] * 3 + [("a", "b", 0.0)])
    >>> round(rating["a"] - rating["b"])  # 400 log10(3.5 / 1.5): odds 3:1 softened by the prior
    147
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from evaluate.stats import Z95, mean_ci, wilson

ELO = 400.0 / math.log(10.0)  # Elo points per natural-log unit of strength
PRIOR_TIES = 1.0  # virtual tied games per pair of entrants that met
ORDERS = 20  # game orders the Plackett-Luce rating is averaged over
REPLICA_ORDERS = 10  # ... and each of its bootstrap replicas (fewer, for speed: a little conservative)
BATCH_GAMES = 20_000_000  # games (sequences x games each) refitted in one batch: 80 MB of indices
TAU = 0.0  # openskill's dynamics term: 0, as an agent's skill does not drift during a tournament
#: The fewest bootstrap replicas `leaderboard` and ``--bootstrap`` take for a 95% interval: each
#: 2.5% tail then holds at least one replica (0 is taken too, and leaves the intervals out).
MIN_BOOTSTRAP = 40
NO_INTERVALS = "no rating intervals (bootstrap 0)"
WIDENED_SOURCE = "bootstrap+posterior"  # a row's interval_source when the posterior widened it
WIDENED = (
    "*: a pair ended alike in every deal, which resampling deals cannot vary: the interval also covers "
    "the Bradley-Terry posterior interval"
)


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
    labels: Sequence[str], games: Sequence[tuple[Sequence[str], Sequence[int]]], order_seed: int = 0
) -> dict[str, float]:
    """openskill Plackett-Luce ``mu`` of every entrant from ranked games, in one order.

    Args:
        labels: the entrants.
        games: ``(labels in seat order, rank of each seat)``; rank 0 is first, equal ranks tie.
        order_seed: the fixed shuffle of the games (the online update depends on their order).
    """
    model = _openskill_model()
    ratings = {label: model.rating(name=label) for label in labels}
    for g in np.random.default_rng(order_seed).permutation(len(games)):
        seats, ranks = games[g]
        new = model.rate([[ratings[label]] for label in seats], ranks=[int(x) for x in ranks])
        for label, team in zip(seats, new):
            ratings[label] = team[0]
    return {label: float(r.mu) for label, r in ratings.items()}


def plackett_luce_batch(
    num_entrants: int,
    seats: np.ndarray,
    ranks: np.ndarray,
    order: np.ndarray | None = None,
    mu: float = 25.0,
    sigma: float = 25.0 / 3.0,
    tau: float = TAU,
    chunk: int = 64,
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

    Returns:
        ``(B, E)`` final ``mu``.
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
    mus = np.full(E * B, float(mu))  # entrant-major: entrant k of sequence b at k * B + b
    sig2 = np.full(E * B, float(sigma) ** 2)
    col = np.arange(B)
    seats_t, ranks_t = np.ascontiguousarray(seats.T), np.ascontiguousarray(ranks.T)  # (P, N)
    top = ranks_t == ranks_t.min(axis=0)  # the winners (all, in a full tie)
    if np.all(top | (ranks_t == ranks_t.max(axis=0))):  # two levels at most: every leaderboard's games
        low = ~top
        count_low = low.sum(axis=0)
        inv_a = np.where(top, 1.0 / top.sum(axis=0), 1.0 / np.maximum(count_low, 1))
        no_low = (count_low == 0).astype(float)
        low = low.astype(float)
        for g0 in range(0, G, chunk):
            games = order[:, g0 : g0 + chunk].T  # (g, B)
            who = seats_t[:, games] * B + col  # (P, g, B): flat indices into mus and sig2
            _two_level_games(
                mus, sig2, who, low[:, games], inv_a[:, games], no_low[games], beta2, kappa, tau2
            )  # fmt: skip
        return mus.reshape(E, B).T
    for g0 in range(0, G, chunk):
        games = order[:, g0 : g0 + chunk].T  # (g, B)
        who = np.ascontiguousarray(seats_t[:, games].transpose(1, 0, 2)) * B + col  # (g, P, B)
        r = np.ascontiguousarray(ranks_t[:, games].transpose(1, 0, 2))
        # openskill's sums over q run over the players ranked level with or above player i
        # (r_q <= r_i); sum_q over those level with or below q (r_i >= r_q); a_q counts q's tie group.
        at_or_below = (r[:, :, None, :] >= r[:, None, :, :]).astype(float)  # [g, i, q, b]: r_i >= r_q
        inv_a = 1.0 / (r[:, :, None, :] == r[:, None, :, :]).sum(axis=1)  # [g, q, b]
        weight = at_or_below * inv_a[:, None, :, :]  # [g, i, q, b]: (r_i >= r_q) / a_q
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
            u, v = np.einsum("iqb,kqb->kib", weight[k], np.stack((inv_sum, inv_sum * inv_sum)))
            eu = e * u
            omega = (inv_a[k] - eu) * s2 / c
            delta = (eu - e * e * v) * s2 / c**2 * (np.sqrt(s2) / c)
            mus[idx] = m + omega
            sig2[idx] = s2 * np.maximum(1 - delta, kappa)
    return mus.reshape(E, B).T


def _two_level_games(mus, sig2, who, low, inv_a, no_low, beta2, kappa, tau2) -> None:
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


# -- the leaderboard ----------------------------------------------------------------------------
@dataclass
class Row:
    """One entrant's line of the leaderboard.

    Attributes:
        label: the entrant.
        rating, rating_low, rating_high: the rating and its 95% bootstrap interval.
        games: games played.
        win_rate, win_low, win_high: win share and its Wilson interval.
        mean_return, return_low, return_high: mean C-3 return and its normal interval.
        separated: whether this entrant's rating interval is clear of the next one's; ``None``
            (unknown) for the last row and without intervals.
        interval_source: ``"bootstrap"``, ``"bootstrap+posterior"`` (Bradley-Terry, widened by
            the posterior interval: see the module docstring), ``None`` without intervals.

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

    @property
    def widened(self) -> bool:
        """Whether the rating interval was widened by the posterior interval (the board's ``*``)."""
        return self.interval_source == WIDENED_SOURCE


@dataclass
class Leaderboard:
    """Ratings, win rates, returns and the head-to-head matrix of a tournament.

    Attributes:
        method: ``"bradley-terry"`` (Elo scale) or ``"openskill-plackett-luce"`` (mu).
        rows: one per entrant, best rating first.
        labels: the entrants in leaderboard order (the head-to-head matrix's order).
        head_to_head: ``[i][j]`` = (share, low, high, games): how often ``labels[i]`` finished ahead of
            ``labels[j]`` in games where both sat (a win against a loss; ties and both losing or both
            winning count half), with its Wilson interval; ``None`` on the diagonal and for pairs
            that never met.
        bootstrap: bootstrap replicas behind the rating intervals.
        num_games: games behind it all.
    """

    method: str
    rows: list[Row]
    labels: list[str]
    head_to_head: list[list[tuple[float, float, float, int] | None]]
    bootstrap: int
    num_games: int
    rating_name: str = "rating"
    extra: dict = field(default_factory=dict)

    def ratings(self) -> dict[str, dict]:
        """label -> ``{"rating", "low", "high"}`` (the ``--json`` field ``ratings``)."""
        return {r.label: {"rating": r.rating, "low": r.rating_low, "high": r.rating_high} for r in self.rows}

    def to_json(self) -> dict:
        """The leaderboard as a JSON-able dict."""
        return {
            "method": self.method,
            "rating_scale": self.rating_name,
            "bootstrap": self.bootstrap,
            "games": self.num_games,
            "rows": [r.__dict__.copy() for r in self.rows],
            "head_to_head": {
                a: {
                    b: None if cell is None else {"share": cell[0], "low": cell[1], "high": cell[2], "games": cell[3]}
                    for b, cell in zip(self.labels, row)
                }
                for a, row in zip(self.labels, self.head_to_head)
            },
        }

    def rating_interval(self, row: Row) -> str:
        """A row's rating interval as text, ``-`` when there is none (``bootstrap=0``); ``*`` marks
        one widened by the posterior interval."""
        if row.rating_low is None or row.rating_high is None:
            return "-"
        mark = "*" if row.widened else ""
        return f"[{row.rating_low:.1f}, {row.rating_high:.1f}]{mark}"

    def overlaps_next(self, row: Row) -> bool:
        """Whether a row's rating interval overlaps the next one's (never without intervals)."""
        return row.separated is False

    def widened(self) -> bool:
        """Whether some row's interval was widened by the Bradley-Terry posterior interval."""
        return any(r.widened for r in self.rows)

    def overlaps(self) -> bool:
        """Whether some row's rating interval overlaps the next one's."""
        return any(self.overlaps_next(r) for r in self.rows)

    def text(self) -> str:
        """A plain-text table (the leaderboard without rich)."""
        lines = [
            f"{'#':>2} {'agent':<28} {self.rating_name:>8} {'95% interval':>19} {'games':>6} "
            f"{'win rate':>8} {'Wilson 95%':>15} {'mean return':>11}"
        ]
        for k, r in enumerate(self.rows, 1):
            mark = "  ~ next" if self.overlaps_next(r) else ""
            lines.append(
                f"{k:>2} {r.label:<28} {r.rating:>8.1f} {self.rating_interval(r):>19} "
                f"{r.games:>6} {r.win_rate:>8.3f} {f'[{r.win_low:.3f}, {r.win_high:.3f}]':>15} "
                f"{r.mean_return:>+11.3f}{mark}"
            )
        if self.overlaps():
            lines.append("~ next: the rating intervals of this entrant and the next overlap (not separated)")
        if self.widened():
            lines.append(WIDENED)
        if self.bootstrap == 0:
            lines.append(NO_INTERVALS)
        return "\n".join(lines)


def _ranks(returns: Sequence[float]) -> list[int]:
    """Plackett-Luce ranks from C-3 returns: winners 0, the others 1 (0 for all in a full tie)."""
    top = max(returns)
    return [0 if r == top else 1 for r in returns]


def leaderboard(
    labels: Sequence[str],
    records: Sequence,
    bootstrap: int = 200,
    seed: int = 0,
    method: str | None = None,
) -> Leaderboard:
    """The leaderboard of a tournament from its game records (``evaluate.tournament.GameRecord``).

    Args:
        labels: every entrant.
        records: the games; each has ``seats`` (labels in seat order), ``returns`` and a ``task``
            with ``table`` and ``deal`` (the bootstrap's unit).
        bootstrap: bootstrap replicas for the rating intervals (0: no intervals: ``rating_low``,
            ``rating_high`` and ``separated`` are ``None``, and the leaderboard's text shows ``-``).
        seed: seeds the bootstrap and the openskill game order.
        method: ``"bradley-terry"`` or ``"openskill-plackett-luce"``; default by table size
            (two seats: Bradley-Terry).

    Raises:
        ValueError: no games, a game seating an unknown entrant, or ``bootstrap`` neither 0 nor at
            least :data:`MIN_BOOTSTRAP` (fewer leave the 2.5% tails of the interval empty).
    """
    labels = list(labels)
    check_bootstrap(bootstrap)
    if not records:
        raise ValueError("a leaderboard needs at least one game")
    index = {label: k for k, label in enumerate(labels)}
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
        [cluster_of.setdefault((r.task.table, r.task.deal), len(cluster_of)) for r in records], dtype=np.int64
    )
    C = len(cluster_of)

    # Win shares, returns, head-to-head.
    share_sum = np.zeros(E)
    played = np.zeros(E, dtype=np.int64)
    returns: list[list[float]] = [[] for _ in range(E)]
    ahead = np.zeros((E, E))  # ahead[i, j]: i finished ahead of j (ties half)
    met = np.zeros((E, E), dtype=np.int64)
    pair_wins_by_cluster = np.zeros((C, E, E)) if method == "bradley-terry" else None
    for g, r in enumerate(records):
        seats = [index[label] for label in r.seats]
        k = sum(1 for x in r.returns if x == max(r.returns))
        top = max(r.returns)
        win = [1.0 / k if x == top else 0.0 for x in r.returns]
        for s, e in enumerate(seats):
            share_sum[e] += win[s]
            played[e] += 1
            returns[e].append(float(r.returns[s]))
        for s, e in enumerate(seats):
            for t, f in enumerate(seats):
                if s == t:
                    continue
                won_s, won_t = r.returns[s] == top, r.returns[t] == top
                ahead[e, f] += 1.0 if (won_s and not won_t) else 0.0 if (won_t and not won_s) else 0.5
                met[e, f] += 1
        if pair_wins_by_cluster is not None:
            a, b = seats
            pair_wins_by_cluster[game_cluster[g], a, b] += ahead_share(r.returns, 0)
            pair_wins_by_cluster[game_cluster[g], b, a] += ahead_share(r.returns, 1)

    rng = np.random.default_rng(seed)
    if method == "bradley-terry":
        point = _bt_fit(pair_wins_by_cluster.sum(axis=0)) * ELO
        if bootstrap > 0:
            counts = rng.multinomial(C, np.full(C, 1.0 / C), size=bootstrap).astype(float)
            boot_wins = np.einsum("bc,cij->bij", counts, pair_wins_by_cluster)
            boot = _bt_fit(boot_wins) * ELO
            fixed = _constant_pairs(pair_wins_by_cluster)
        rating_name = "Elo"
    else:
        ranked = [(list(r.seats), _ranks(r.returns)) for r in records]
        # openskill's online update depends on the order of the games: the rating is its mu
        # averaged over ORDERS shuffles of them (the first with openskill itself, the others with
        # its batched replay), which keeps one lucky order from moving the leaderboard.
        mus = plackett_luce(labels, ranked, order_seed=seed)
        seat_ids = np.array([[index[label] for label in seats] for seats, _ in ranked])
        rank_ids = np.array([ranks for _, ranks in ranked])
        orders = np.stack([np.random.default_rng(seed + 1000 + k).permutation(len(ranked)) for k in range(ORDERS - 1)])
        others = plackett_luce_batch(E, seat_ids, rank_ids, order=orders)
        point = (np.array([mus[label] for label in labels]) + others.sum(axis=0)) / ORDERS
        if bootstrap > 0:
            if len({len(m) for m in _members(game_cluster, C)}) != 1:
                raise ValueError("every deal must have the same number of games (all its rotations)")
            members = np.array(_members(game_cluster, C), dtype=np.int32)  # (C, games per deal)
            # A replica is the statistic on resampled deals: mu averaged over REPLICA_ORDERS shuffles
            # of its games (one shuffle would add that order's noise, several times the sampling
            # noise, to the interval). Replicas are refitted in groups, to bound the memory.
            boot = np.empty((bootstrap, E))
            group = max(1, min(bootstrap, BATCH_GAMES // (REPLICA_ORDERS * len(records))))
            for b0 in range(0, bootstrap, group):
                n = min(group, bootstrap - b0)
                picked = members[rng.integers(C, size=(n, C))].reshape(n, -1)
                shuffled = rng.permuted(np.repeat(picked, REPLICA_ORDERS, axis=0), axis=1)
                fits = plackett_luce_batch(E, seat_ids, rank_ids, order=shuffled)
                boot[b0 : b0 + n] = fits.reshape(n, REPLICA_ORDERS, E).mean(axis=1)
        rating_name = "mu"
    sources = ["bootstrap"] * E
    if bootstrap > 0:
        low, high = np.percentile(boot, [2.5, 97.5], axis=0)
        if method == "bradley-terry" and fixed.any():
            # Resampling deals cannot vary a pair whose every deal ended alike (10-0, or mirrored
            # 1-1 deals): its entrants' intervals also take in the posterior interval.
            sd = _bt_posterior_sd(pair_wins_by_cluster.sum(axis=0))
            for e in np.flatnonzero(fixed):
                low[e] = min(low[e], point[e] - Z95 * sd[e])
                high[e] = max(high[e], point[e] + Z95 * sd[e])
                sources[e] = WIDENED_SOURCE
    else:
        low = high = [None] * E
        sources = [None] * E

    rows = []
    for e, label in enumerate(labels):
        if played[e]:
            w, wl, wh = wilson(share_sum[e], int(played[e]))
            m, ml, mh = mean_ci(returns[e], Z95)
        else:
            w = wl = wh = m = ml = mh = float("nan")
        rows.append(
            Row(label, float(point[e]), _float(low[e]), _float(high[e]), int(played[e]), w, wl, wh, m, ml, mh,
                interval_source=sources[e])
        )  # fmt: skip
    rows.sort(key=lambda row: -row.rating)
    if bootstrap > 0:  # without intervals, and for the last row, separation is unknown (None)
        for a, b in zip(rows, rows[1:]):
            a.separated = bool(a.rating_low > b.rating_high)
    order = [index[row.label] for row in rows]
    h2h = [
        [
            None if i == j or met[i, j] == 0 else (*wilson(ahead[i, j], int(met[i, j])), int(met[i, j]))
            for j in order
        ]
        for i in order
    ]
    return Leaderboard(method, rows, [labels[i] for i in order], h2h, int(bootstrap), len(records), rating_name)


def _float(x) -> float | None:
    return None if x is None else float(x)


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


def _bt_posterior_sd(wins: np.ndarray) -> np.ndarray:
    """Standard deviations (Elo) of the Bradley-Terry ratings under the fit's prior (one virtual
    tie per pair that met): the Laplace approximation of the posterior at its mode, whose
    precision is the Hessian of the negative log-posterior, a weighted graph Laplacian
    ``L_ii = sum_j n_ij p_ij p_ji``, ``L_ij = -n_ij p_ij p_ji``; ratings centred on mean 0 have
    the covariance ``pinv(L)``. Games are taken as independent (common dice are not modelled).
    """
    games = wins + wins.T
    n = games + PRIOR_TIES * (games > 0)
    theta = _bt_fit(wins)
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
    w = n * p * p.T
    laplacian = np.diag(w.sum(axis=1)) - w
    return np.sqrt(np.clip(np.diag(np.linalg.pinv(laplacian)), 0.0, None)) * ELO


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
