"""Ratings, win rates and the leaderboard of a tournament.

* **Two-player tables: Bradley-Terry.** ``P(i beats j) = p_i / (p_i + p_j)``, fitted by maximum
  likelihood with the MM algorithm of D. R. Hunter ("MM algorithms for generalized Bradley-Terry
  models", Annals of Statistics 32, 2004): ``p_i <- W_i / sum_j n_ij / (p_i + p_j)``. A tie counts
  as half a win for each side (win shares, CONTRACTS.md). Every pair that met also gets one
  virtual tie, a weak prior that keeps an entrant who never won at a finite rating. Ratings are on
  the Elo scale, ``400 log10 p_i``, centred on a mean of 0: a difference of 400 means odds of 10
  to 1.
* **More players: Plackett-Luce with openskill** (``openskill.models.PlackettLuce``, Weng and Lin,
  JMLR 12, 2011): each game ranks its winners first (tied) and the others after them (tied, since
  C-3 returns do not order the losers); the update is online, so the rating is ``mu`` averaged
  over 20 shuffled orders of the games.
* **Intervals** for both come from a bootstrap over deals: a deal and all its rotations are
  resampled together, because with common dice they are not independent games; the interval is
  the 2.5 and 97.5 percentiles of the refitted ratings. Win rates carry Wilson score intervals
  (:func:`evaluate.stats.wilson`) and mean returns normal intervals.

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
#: The fewest bootstrap replicas `leaderboard` and ``--bootstrap`` take for a 95% interval: each
#: 2.5% tail then holds at least one replica (0 is taken too, and leaves the intervals out).
MIN_BOOTSTRAP = 40
NO_INTERVALS = "no rating intervals (bootstrap 0)"


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
def plackett_luce(
    labels: Sequence[str], games: Sequence[tuple[Sequence[str], Sequence[int]]], order_seed: int = 0
) -> dict[str, float]:
    """openskill Plackett-Luce ``mu`` of every entrant from ranked games.

    Args:
        labels: the entrants.
        games: ``(labels in seat order, rank of each seat)``; rank 0 is first, equal ranks tie.
        order_seed: the fixed shuffle of the games (the online update depends on their order).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    for g in np.random.default_rng(order_seed).permutation(len(games)):
        seats, ranks = games[g]
        new = model.rate([[ratings[label]] for label in seats], ranks=[int(x) for x in ranks])
        for label, team in zip(seats, new):
            ratings[label] = team[0]
    return {label: float(r.mu) for label, r in ratings.items()}


def plackett_luce_batch(
    num_entrants: int, seats: np.ndarray, ranks: np.ndarray, mu: float = 25.0, sigma: float = 25.0 / 3.0
) -> np.ndarray:
    """openskill's Plackett-Luce update (default model, one player per team), for many sequences.

    The bootstrap refits the ratings hundreds of times; openskill takes about 0.1 ms a game in
    Python, so this replays its arithmetic (``PlackettLuce._compute`` of openskill 6, Weng and Lin's
    Algorithm 4 with tau, beta, kappa and gamma at their defaults) on numpy arrays, one row per
    sequence. ``tests/test_ratings.py`` checks that it matches openskill to 1e-9. Like openskill 6,
    it leaves tied players' updates as they are (its averaging over a rank group is a no-op).

    Args:
        num_entrants: E; entrants are numbered 0..E-1.
        seats: ``(B, G, P)`` int: sequence b's game g seats these entrants.
        ranks: ``(B, G, P)``: their ranks (lower is better, equal ties).

    Returns:
        ``(B, E)`` final ``mu``.
    """
    beta2, kappa, tau2 = (25.0 / 6.0) ** 2, 0.0001, (25.0 / 300.0) ** 2
    B, G, P = seats.shape
    mus = np.full((B, num_entrants), mu)
    sig2 = np.full((B, num_entrants), sigma * sigma)
    rows = np.arange(B)[:, None]
    eye = np.eye(P)
    for g in range(G):
        who = seats[:, g, :]
        r = ranks[:, g, :]
        m = mus[rows, who]
        s2 = sig2[rows, who] + tau2
        c = np.sqrt((s2 + beta2).sum(axis=1, keepdims=True))  # (B, 1)
        e = np.exp(m / c)  # (B, P)
        worse_or_equal = r[:, :, None] >= r[:, None, :]  # [b, i, q]: r_i >= r_q
        sum_q = (e[:, :, None] * worse_or_equal).sum(axis=1)  # (B, P): over i with r_i >= r_q
        a = (r[:, :, None] == r[:, None, :]).sum(axis=1)  # (B, P)
        p = e[:, :, None] / sum_q[:, None, :]  # [b, i, q]
        delta = (worse_or_equal * p * (1 - p) / a[:, None, :]).sum(axis=2)
        omega = (worse_or_equal * (eye[None] - p) / a[:, None, :]).sum(axis=2)
        omega = omega * s2 / c
        delta = delta * s2 / c**2 * (np.sqrt(s2) / c)
        mus[rows, who] = m + omega
        sig2[rows, who] = s2 * np.maximum(1 - delta, kappa)
    return mus


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
        separated: whether this entrant's rating interval is clear of the next one's (the last
            row is always ``True``).
    """

    label: str
    rating: float
    rating_low: float
    rating_high: float
    games: int
    win_rate: float
    win_low: float
    win_high: float
    mean_return: float
    return_low: float
    return_high: float
    separated: bool = True


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
        """A row's rating interval as text, ``-`` when there is none (``bootstrap=0``)."""
        return f"[{row.rating_low:.1f}, {row.rating_high:.1f}]" if self.bootstrap > 0 else "-"

    def overlaps_next(self, row: Row) -> bool:
        """Whether a row's rating interval overlaps the next one's (never without intervals)."""
        return self.bootstrap > 0 and not row.separated

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
        bootstrap: bootstrap replicas for the rating intervals (0: no intervals: ``rating_low`` and
            ``rating_high`` are the rating, and the leaderboard's text shows no interval).
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
        others = plackett_luce_batch(E, seat_ids[orders], rank_ids[orders])
        point = (np.array([mus[label] for label in labels]) + others.sum(axis=0)) / ORDERS
        if bootstrap > 0:
            if len({len(m) for m in _members(game_cluster, C)}) != 1:
                raise ValueError("every deal must have the same number of games (all its rotations)")
            members = np.array(_members(game_cluster, C))  # (C, games per deal)
            picked = members[rng.integers(C, size=(bootstrap, C))].reshape(bootstrap, -1)
            # Each replica plays its resampled games in its own shuffled order, as the point fit does.
            picked = rng.permuted(picked, axis=1)
            boot = plackett_luce_batch(E, seat_ids[picked], rank_ids[picked])
        rating_name = "mu"
    if bootstrap > 0:
        low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    else:
        low = high = point

    rows = []
    for e, label in enumerate(labels):
        if played[e]:
            w, wl, wh = wilson(share_sum[e], int(played[e]))
            m, ml, mh = mean_ci(returns[e], Z95)
        else:
            w = wl = wh = m = ml = mh = float("nan")
        rows.append(
            Row(label, float(point[e]), float(low[e]), float(high[e]), int(played[e]), w, wl, wh, m, ml, mh)
        )
    rows.sort(key=lambda row: -row.rating)
    for a, b in zip(rows, rows[1:]):
        a.separated = a.rating_low > b.rating_high
    order = [index[row.label] for row in rows]
    h2h = [
        [
            None if i == j or met[i, j] == 0 else (*wilson(ahead[i, j], int(met[i, j])), int(met[i, j]))
            for j in order
        ]
        for i in order
    ]
    return Leaderboard(method, rows, [labels[i] for i in order], h2h, int(bootstrap), len(records), rating_name)


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
