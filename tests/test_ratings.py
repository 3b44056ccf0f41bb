"""Ratings (issue 10, item 3): Bradley-Terry and openskill Plackett-Luce on synthetic results."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from evaluate.ratings import ELO, bradley_terry, leaderboard, plackett_luce, plackett_luce_batch
from evaluate.stats import wilson
from evaluate.tournament import GameRecord, GameTask, winners_of


def record(table, deal, rotation, returns) -> GameRecord:
    task = GameTask(0, tuple(table), deal, rotation)
    returns = tuple(float(r) for r in returns)
    return GameRecord(task, returns, winners_of(returns), (0,) * len(returns), [], 0)


def two_player_records(elo: dict[str, float], deals: int, rng) -> list[GameRecord]:
    """Both seatings of every deal of every pair; the row player wins with Bradley-Terry odds."""
    out = []
    for table in itertools.combinations(sorted(elo), 2):
        for deal in range(deals):
            for rotation in range(2):
                seats = (table[0], table[1]) if rotation == 0 else (table[1], table[0])
                p = 1 / (1 + 10 ** ((elo[seats[1]] - elo[seats[0]]) / 400))
                out.append(record(table, deal, rotation, (1, -1) if rng.random() < p else (-1, 1)))
    return out


def test_bradley_terry_exact_values():
    # Ties are half wins; every pair that met gets one virtual tie (PRIOR_TIES): the fit is the
    # ratio of the win shares, 3 wins + 2 ties + 1/2 against 0 + 2 ties... exactly:
    r = bradley_terry(["a", "b"], [("a", "b", 1.0)] * 3 + [("a", "b", 0.5)] * 2)
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10((3 + 1 + 0.5) / (0 + 1 + 0.5)), abs=1e-6)
    assert r["a"] + r["b"] == pytest.approx(0, abs=1e-9)
    even = bradley_terry(["a", "b"], [("a", "b", 0.5)] * 4)
    assert even["a"] == pytest.approx(0, abs=1e-9)
    with pytest.raises(ValueError, match="not in"):
        bradley_terry(["a"], [("a", "z", 1.0)])
    # A three-way cycle of equal results leaves everyone level.
    cyc = bradley_terry(["a", "b", "c"], [("a", "b", 1.0), ("b", "c", 1.0), ("c", "a", 1.0)])
    assert max(abs(v) for v in cyc.values()) < 1e-6


def test_bradley_terry_recovers_a_known_order_and_its_intervals_cover_the_truth():
    truth = {"strong": 300.0, "good": 100.0, "fair": 0.0, "weak": -400.0}  # mean 0, as fitted
    covered = total = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        lb = leaderboard(list(truth), two_player_records(truth, 150, rng), bootstrap=200, seed=seed)
        assert lb.method == "bradley-terry"
        assert [row.label for row in lb.rows] == ["strong", "good", "fair", "weak"]
        for row in lb.rows:
            assert row.rating_low <= row.rating <= row.rating_high
            covered += row.rating_low <= truth[row.label] <= row.rating_high
            total += 1
    # Nominal 95%: over 48 intervals at least 40 must cover (fewer would be a biased fit).
    assert covered >= 40, f"{covered}/{total}"


def test_head_to_head_and_win_rates_are_win_shares_with_wilson_intervals():
    games = [record(("a", "b"), 0, 0, (1, -1)), record(("a", "b"), 0, 1, (0, 0)), record(("a", "b"), 1, 0, (1, -1))]
    lb = leaderboard(["a", "b"], games, bootstrap=0)
    assert lb.labels == ["a", "b"]
    # The head to head is the matrix's (lb.matrix, the report's): 2.5 of 3 games, and with two
    # deals (common dice), too few for their spread, Wilson's interval over the 2 deals.
    share, low, high, played = lb.head_to_head[0][1]
    assert (share, played) == (pytest.approx(2.5 / 3), 3)
    assert (low, high) == pytest.approx(wilson(2.5 / 3 * 2, 2)[1:])
    share, low, high, played = lb.head_to_head[1][0]
    assert (share, played) == (pytest.approx(0.5 / 3), 3)
    assert (low, high) == pytest.approx(wilson(0.5 / 3 * 2, 2)[1:])
    assert lb.matrix.cell("a", "b").source == "wilson-deals"  # type: ignore[union-attr]
    a = lb.rows[0]
    # The win rate's interval too is over the deals: Wilson's over the 2 deals here.
    assert (a.win_rate, a.win_low, a.win_high) == pytest.approx(wilson(2.5 / 3 * 2, 2))
    assert a.win_interval_source == "wilson-deals" and a.win_effective_games == 2
    assert a.mean_return == pytest.approx(2 / 3)


def test_the_leaderboard_flags_neighbours_it_cannot_separate():
    truth = {"twin1": 50.0, "twin2": 50.0, "weak": -100.0}
    lb = leaderboard(list(truth), two_player_records(truth, 100, np.random.default_rng(5)), seed=1)
    top, second, third = lb.rows
    assert {top.label, second.label} == {"twin1", "twin2"}
    assert not top.separated  # the twins' difference is not shown to be other than 0 ...
    assert top.diff_next_low < 0 < top.diff_next_high
    assert lb.vs_next(top).startswith("  +") and lb.vs_next(second).startswith("> +")  # ... the weak one's is
    assert "no > : not shown to differ" in lb.text()
    assert third.separated is None  # the last row has nobody below it: unknown


def test_plackett_luce_batch_is_openskill():
    from openskill.models import PlackettLuce

    from evaluate.ratings import TAU

    rng = np.random.default_rng(0)
    labels = [str(i) for i in range(6)]
    games, two_level = [], []
    for g in range(250):
        seats = [str(x) for x in rng.choice(6, 4, replace=False)]
        w = int(rng.integers(4))
        two_level.append((seats, [0, 0, 0, 0] if g % 11 == 0 else [0 if i == w else 1 for i in range(4)]))
        if g % 3 == 0:
            ranks = [int(x) for x in rng.permutation(4)]
        elif g % 7 == 0:
            ranks = [0, 0, 0, 0]
        else:
            ranks = [0 if i == w else 1 for i in range(4)]
        games.append((seats, ranks))

    def openskill_mu(games, order, tau):
        model = PlackettLuce(tau=tau)
        ratings = {label: model.rating(name=label) for label in labels}
        for g in order:
            seats, ranks = games[g]
            for label, team in zip(seats, model.rate([[ratings[x]] for x in seats], ranks=ranks)):
                ratings[label] = team[0]
        return [ratings[label].mu for label in labels]

    # Any ranks (the general path) and the leaderboard's winners-first ranks (the two-level path),
    # with openskill's default tau and the leaderboard's TAU = 0.
    for data in (games, two_level):
        for tau in (25.0 / 300.0, TAU):
            for order_seed in (0, 1):
                order = np.random.default_rng(order_seed).permutation(len(data))
                seats = np.array([[int(x) for x in data[g][0]] for g in order])[None]
                ranks = np.array([data[g][1] for g in order])[None]
                batch = plackett_luce_batch(6, seats, ranks, tau=tau)[0]
                assert np.max(np.abs(batch - openskill_mu(data, order, tau))) < 1e-9
                # The same sequences as game indices (how the leaderboard calls it).
                flat_seats = np.array([[int(x) for x in s] for s, _ in data])
                flat_ranks = np.array([r for _, r in data])
                by_index = plackett_luce_batch(6, flat_seats, flat_ranks, order=np.stack([order, order[::-1]]), tau=tau)
                assert np.max(np.abs(by_index[0] - batch)) < 1e-12
                assert np.max(np.abs(by_index[1] - openskill_mu(data, order[::-1], tau))) < 1e-9
        mus = plackett_luce(labels, data, order_seed=3)  # the leaderboard's openskill fit uses TAU
        order = np.random.default_rng(3).permutation(len(data))
        assert np.max(np.abs(np.array([mus[x] for x in labels]) - openskill_mu(data, order, TAU))) < 1e-12


def test_plackett_luce_recovers_a_known_order_and_win_rates_cover_the_truth():
    strength = {"e": 8.0, "d": 4.0, "c": 2.0, "b": 1.0, "a": 0.5}
    rng = np.random.default_rng(11)
    games = []
    for table in itertools.combinations(sorted(strength), 4):
        for deal in range(60):
            for rotation in range(4):
                seats = GameTask(0, tuple(table), deal, rotation).seats  # the deal's drawn order
                w = np.array([strength[x] for x in seats])
                winner = int(rng.choice(4, p=w / w.sum()))
                games.append(record(table, deal, rotation, [1 if s == winner else -1 / 3 for s in range(4)]))
    lb = leaderboard(list(strength), games, bootstrap=100, seed=2)
    assert lb.method == "openskill-plackett-luce" and lb.rating_name == "mu"
    assert [row.label for row in lb.rows] == ["e", "d", "c", "b", "a"]
    for row in lb.rows:
        tables = [t for t in itertools.combinations(sorted(strength), 4) if row.label in t]
        p = np.mean([strength[row.label] / sum(strength[x] for x in t) for t in tables])
        assert row.win_low <= p <= row.win_high, (row.label, p, row.win_low, row.win_high)
        assert row.rating_low <= row.rating <= row.rating_high
    assert lb.rows[0].separated  # the strongest, twice the next, stands clear


def test_leaderboard_refuses_bad_input():
    with pytest.raises(ValueError, match="at least one game"):
        leaderboard(["a"], [])
    with pytest.raises(ValueError, match="not one of the entrants"):
        leaderboard(["a", "b"], [record(("a", "z"), 0, 0, (1, -1))])
    with pytest.raises(ValueError, match="two-player"):
        leaderboard(["a", "b", "c"], [record(("a", "b", "c"), 0, 0, (1, -0.5, -0.5))], method="bradley-terry")
    games = [record(("a", "b"), 0, 0, (1, -1))]
    for replicas in (-1, 1, 39):  # as `--bootstrap` on the command line
        with pytest.raises(ValueError, match=f"{replicas} bootstrap replicas are too few .* at least 40 .* or 0 for no"):
            leaderboard(["a", "b"], games, bootstrap=replicas)
    assert leaderboard(["a", "b"], games, bootstrap=0).rows[0].rating_low is None


def test_elo_scale_constant():
    assert ELO == pytest.approx(400 / math.log(10))


def test_a_long_label_widens_the_agent_column_instead_of_pushing_its_row_out_of_line():
    truth = {"custom_agent:Cautious:bluff=1/4,doubt_from=5": 50.0, "honest": 0.0, "random": -100.0}
    lb = leaderboard(list(truth), two_player_records(truth, 60, np.random.default_rng(2)), seed=1)
    table = lb.text().splitlines()[: 1 + len(truth)]
    columns = {line.index(f"{row.rating:>8.1f}") for line, row in zip(table[1:], lb.rows)}
    assert len(columns) == 1  # every row's rating starts in the same column ...
    assert table[0].index(lb.rating_name) < min(columns) + 8  # ... under its heading
