"""What the leaderboard says about significance (outside review 7: F1, F4, F6, F9).

Each entrant is compared with the next one below it by the bootstrap interval of the difference
of their ratings, not by whether their two rating intervals overlap; the marks are Holm-corrected
over the neighbour pairs; the effect size is an expected score (two players) or the pair's own
share of wins (more players); the Plackett-Luce rating barely depends on the order of the games.
"""

from __future__ import annotations

import csv
import itertools
import json
import math

import numpy as np
import pytest

from dice_envs import strict_json
from evaluate.ratings import ALPHA, expected_score, holm, leaderboard
from evaluate.tournament import GameRecord, GameTask, winners_of


def record(table, deal, rotation, returns) -> GameRecord:
    returns = tuple(float(r) for r in returns)
    return GameRecord(GameTask(0, tuple(table), deal, rotation), returns, winners_of(returns), (0,) * len(returns), [], 0)


def paired_games(elo: dict[str, float], deals: int, seed: int) -> list[GameRecord]:
    """Every pair, every deal in both seatings; a deal's luck ``u`` is common to its two games
    (``1 - u`` in the other seating, as common dice favour a seat), and the first of the table
    wins a game with the Bradley-Terry chance of the true Elo difference."""
    rng = np.random.default_rng(seed)
    games = []
    for table in itertools.combinations(sorted(elo), 2):
        p = 1.0 / (1.0 + 10.0 ** ((elo[table[1]] - elo[table[0]]) / 400.0))
        for deal in range(deals):
            u = rng.random()
            for rotation, luck in ((0, u), (1, 1.0 - u)):
                first_wins = (1, -1) if luck < p else (-1, 1)
                games.append(record(table, deal, rotation, first_wins if rotation == 0 else first_wins[::-1]))
    return games


def table_games(strength: dict[str, float], deals: int, seed: int, size: int = 4) -> list[GameRecord]:
    """Every table of ``size``, every deal in its rotations; one winner a game, drawn with
    chances proportional to the strengths, from a luck common to the deal's rotations."""
    rng = np.random.default_rng(seed)
    games = []
    for table in itertools.combinations(sorted(strength), size):
        for deal in range(deals):
            u = rng.random()
            for rotation in range(size):
                seats = GameTask(0, table, deal, rotation).seats  # the seats the leaderboard reads
                w = np.array([strength[x] for x in seats])
                winner = int(np.searchsorted(np.cumsum(w / w.sum()), (u + rotation / size) % 1.0))
                games.append(record(table, deal, rotation, [1 if s == winner else -1 / (size - 1) for s in range(size)]))
    return games


# -- F1: the difference from the next, not the overlap of two intervals -------------------------
@pytest.mark.parametrize("seed", [0, 1])
def test_a_real_margin_is_separated_though_the_two_rating_intervals_overlap(seed):
    # a beats b by 30 Elo; the weak entrant's noisy rating moves both (ratings are centred on their
    # mean), which widens their intervals but cancels in their difference.
    truth = {"a": 15.0, "b": -15.0, "weak": -700.0}
    lb = leaderboard(list(truth), paired_games(truth, 300, seed), bootstrap=200, seed=seed)
    a, b, weak = lb.rows
    assert [a.label, b.label, weak.label] == ["a", "b", "weak"]
    assert a.rating_low <= b.rating_high  # the old rule ("~ next": the intervals overlap) said "not separated"
    assert 0 < a.diff_next_low <= 30.0 <= a.diff_next_high  # the difference excludes 0 and covers the truth
    assert a.separated is True and a.p_next_holm <= ALPHA
    assert lb.vs_next(a).startswith("> +") and f"{a.diff_next:+.1f} [{a.diff_next_low:.1f}, " in lb.vs_next(a)
    assert a.diff_next == a.rating - b.rating and b.diff_next == b.rating - weak.rating
    assert weak.diff_next is None and weak.separated is None and weak.p_next is None  # nothing below the last


def test_difference_intervals_cover_the_true_margin_and_equal_agents_are_rarely_marked():
    covered = marked = 0
    runs = 10
    for seed in range(runs):
        truth = {"a": 0.0, "b": 0.0, "weak": -500.0}  # a and b equal
        lb = leaderboard(list(truth), paired_games(truth, 200, seed), bootstrap=200, seed=seed)
        top = lb.rows[0]
        assert top.label in ("a", "b") and lb.rows[1].label in ("a", "b")
        covered += top.diff_next_low <= 0.0 <= top.diff_next_high
        marked += bool(top.separated)
        assert lb.rows[1].separated  # either of them is clearly above the weak one
    assert covered >= runs - 2, covered  # nominal 95% each
    assert marked <= 1, marked


def test_holm_adjusts_the_neighbour_p_values_and_the_marks_follow_it():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.2, 0.001]) == pytest.approx([0.2, 0.002])
    assert holm([]) == []
    truth = {"a": 150.0, "b": 140.0, "c": 100.0, "d": 0.0, "e": -300.0}
    lb = leaderboard(list(truth), paired_games(truth, 60, 5), bootstrap=200, seed=5)
    compared = lb.rows[:-1]
    assert [r.p_next_holm for r in compared] == pytest.approx(holm([r.p_next for r in compared]))
    for r in compared:
        assert 0.0 <= r.p_next <= r.p_next_holm <= 1.0
        assert r.separated == (r.p_next_holm <= ALPHA and (r.diff_next_low > 0 or r.diff_next_high < 0))
    assert lb.pairs() == 4
    assert any(r.separated for r in compared) and not all(r.separated for r in compared)
    # Here a pair whose 95% interval alone excludes 0 is left unmarked: the marks hold family-wise.
    assert any(r.diff_next_low > 0 and not r.separated and r.p_next <= ALPHA < r.p_next_holm for r in compared)
    assert lb.to_json()["separation"]["correction"] == "holm" and lb.to_json()["separation"]["pairs"] == 4


# -- F6: effect sizes and what the legend says --------------------------------------------------
def test_expected_score_against_the_next_is_the_elo_formula_of_the_rows_ratings():
    truth = {"strong": 200.0, "mid": 100.0, "low": 50.0, "weak": -300.0}
    lb = leaderboard(list(truth), paired_games(truth, 80, 7), bootstrap=100, seed=7)
    for row, below in zip(lb.rows, lb.rows[1:]):
        diff = row.rating - below.rating
        assert row.diff_next == diff
        assert row.ahead_next == 1.0 / (1.0 + 10.0 ** (-diff / 400.0))
        assert row.ahead_next_low == 1.0 / (1.0 + 10.0 ** (-row.diff_next_low / 400.0))
        assert row.ahead_next_high == 1.0 / (1.0 + 10.0 ** (-row.diff_next_high / 400.0))
        assert f"{row.ahead_next:.3f} [{row.ahead_next_low:.3f}, {row.ahead_next_high:.3f}]" in lb.text()
    assert round(expected_score(100.0), 2) == 0.64 and round(expected_score(200.0), 2) == 0.76
    assert expected_score(-100.0) == pytest.approx(1.0 - expected_score(100.0))
    text = lb.text()
    assert "score vs next" in text.splitlines()[0]
    for words in ("1/(1 + 10^(-d/400))", "+100 Elo: 0.64", "family-wise 5%", "Holm", "3 neighbour pairs",
                  "not for the whole board at once", "not evidence that they are equal"):  # fmt: skip
        assert words in text, words
    assert "mean return: the average C-3 return a game (the winners share +1, the losers -1" in text  # F9


def test_the_share_of_wins_against_the_next_is_counted_from_the_games():
    strength = {"a": 3.0, "b": 2.0, "c": 1.5, "d": 1.0, "e": 0.5}
    games = table_games(strength, 30, 4)
    lb = leaderboard(list(strength), games, bootstrap=60, seed=4)
    assert lb.method == "openskill-plackett-luce"
    for row, below in zip(lb.rows, lb.rows[1:]):
        mine = theirs = 0.0
        for g in games:
            if row.label in g.seats and below.label in g.seats:
                share = 1.0 / len(g.winners)
                mine += share * (g.seats.index(row.label) in g.winners)
                theirs += share * (g.seats.index(below.label) in g.winners)
        assert row.ahead_next == pytest.approx(mine / (mine + theirs), abs=1e-12)
        assert row.ahead_next_low <= row.ahead_next <= row.ahead_next_high
        assert row.diff_next == row.rating - below.rating
    text = lb.text()
    assert "wins vs next" in text.splitlines()[0]
    assert "wins vs next: of the wins the two took in the games both played" in text
    assert f"mu: openskill's Plackett-Luce skill (winners ahead of the rest; averaged over {lb.extra['orders']}" in text
    assert "its differences are not win odds" in text


def test_without_intervals_the_difference_stands_alone_and_nothing_is_marked():
    truth = {"a": 100.0, "b": 0.0, "c": -100.0}
    lb = leaderboard(list(truth), paired_games(truth, 20, 1), bootstrap=0)
    for row in lb.rows[:-1]:
        assert row.diff_next is not None and row.ahead_next == expected_score(row.diff_next)
        assert row.diff_next_low is row.diff_next_high is row.p_next is row.separated is None
        assert row.ahead_next_low is None and lb.vs_next(row) == f"  {row.diff_next:+.1f}"
    assert "> :" not in lb.text() and "family-wise" not in lb.text()


def test_a_difference_with_a_pair_that_ended_alike_in_every_deal_is_widened():
    # a won all 10 games against b: resampling deals cannot vary it, so the posterior widens the
    # difference as it widens the two ratings.
    games = [record(("a", "b"), d, r, (1, -1) if r == 0 else (-1, 1)) for d in range(5) for r in range(2)]
    lb = leaderboard(["a", "b"], games, bootstrap=40)
    top = lb.rows[0]
    assert top.diff_next_high - top.diff_next_low > 100  # Elo: not the bootstrap's width 0
    assert top.diff_next_low <= top.diff_next <= top.diff_next_high
    assert lb.vs_next(top).endswith("]*")


# -- F4: the Plackett-Luce rating does not hang on the order of the games -----------------------
def test_plackett_luce_ratings_barely_move_with_the_order_seed_and_copies_stay_together():
    # Two equal entrants ("copies"); the spread of every rating over four order seeds stays under
    # 0.1 mu (the printed precision) and a fifth of its interval's half-width. The former rating
    # (final mu averaged over 20 orders) spread 0.10-0.37 on these games.
    strength = {"best": 2.0, "good": 1.4, "twin": 1.0, "twin#2": 1.0, "weak": 0.5}
    games = table_games(strength, 100, 0)
    labels = list(strength)
    points = []
    for seed in (0, 100, 200, 300):
        rating = {r.label: r.rating for r in leaderboard(labels, games, bootstrap=0, seed=seed).rows}
        points.append([rating[label] for label in labels])
    spread = np.ptp(np.array(points), axis=0)
    lb = leaderboard(labels, games, bootstrap=100, seed=0)
    half = {r.label: (r.rating_high - r.rating_low) / 2 for r in lb.rows}
    for label, s in zip(labels, spread):
        assert s < 0.1 and s < 0.2 * half[label], (label, s, half[label])
    twins = np.array(points)[:, 2] - np.array(points)[:, 3]
    assert np.ptp(twins) < 0.1
    rows = {r.label: r for r in lb.rows}
    upper, lower = sorted(("twin", "twin#2"), key=lambda x: -rows[x].rating)
    assert rows[upper].diff_next_low < 0 < rows[upper].diff_next_high and not rows[upper].separated
    for r in lb.rows:  # the point is the replicas' statistic: inside its interval, away from the ends
        assert 0.2 < (r.rating - r.rating_low) / (r.rating_high - r.rating_low) < 0.8, r
    assert abs(np.mean([r.rating for r in lb.rows]) - 25.0) < 1e-9  # centred on openskill's start


# -- the files: report.json and leaderboard.csv carry the comparisons ---------------------------
def test_report_json_and_csv_carry_the_comparison_with_the_next(tmp_path):
    from evaluate.report import LEADERBOARD_NEXT_COLUMNS, write_report
    from evaluate.tournament import run_tournament

    result = run_tournament("meyer", ["doubter", "honest", "random"], games=20, seed=0, workers=1, progress=False)
    lb = leaderboard(result.labels, result.records, bootstrap=50, seed=0)
    write_report(str(tmp_path), result, lb)
    with open(tmp_path / "leaderboard.csv") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert reader.fieldnames is not None
    assert {"separated_from_next", "interval_source", *LEADERBOARD_NEXT_COLUMNS} <= set(reader.fieldnames)
    assert list(LEADERBOARD_NEXT_COLUMNS) == ["diff_next", "diff_next_low", "diff_next_high", "p_next",
                                              "p_next_holm", "ahead_next", "ahead_next_low", "ahead_next_high"]
    for csv_row, row in zip(rows[:-1], lb.rows):
        assert float(csv_row["diff_next"]) == pytest.approx(row.diff_next, abs=1e-3)
        assert float(csv_row["ahead_next_low"]) == pytest.approx(row.ahead_next_low, abs=1e-5)
        assert csv_row["separated_from_next"] == str(row.separated)
    assert all(rows[-1][c] == "" for c in LEADERBOARD_NEXT_COLUMNS)  # nothing below the last row
    data = json.loads((tmp_path / "report.json").read_text())["leaderboard"]
    for key in ("separated", "diff_next", "diff_next_low", "diff_next_high", "p_next", "p_next_holm",
                "ahead_next", "ahead_next_low", "ahead_next_high"):  # fmt: skip
        assert all(key in r for r in data["rows"]), key
    assert data["separation"]["alpha"] == ALPHA and "expected score" in data["separation"]["ahead_next"]
    assert json.loads(strict_json.dumps(lb.to_json()))["rows"][0]["p_next"] == lb.rows[0].p_next
    assert math.isfinite(lb.rows[0].p_next)


def test_the_old_overlap_calls_still_answer_with_a_deprecation_warning():
    """Leaderboard.overlaps_next/overlaps (the board's mark before the difference test) keep
    working for code that called them: whether two rating intervals overlap, said to be deprecated."""
    from evaluate.ratings import Leaderboard, Row

    def row(label, rating, low, high):
        return Row(label=label, rating=rating, rating_low=low, rating_high=high, games=10, win_rate=0.5,
                   win_low=0.2, win_high=0.8, mean_return=0.0, return_low=-1.0, return_high=1.0)  # fmt: skip

    rows = [row("a", 30.0, 10.0, 50.0), row("b", 0.0, -20.0, 15.0), row("c", -30.0, -60.0, -25.0)]
    board = Leaderboard(method="bt", rows=rows, labels=["a", "b", "c"], matrix=None, bootstrap=200,  # type: ignore[arg-type]
                        num_games=30)  # fmt: skip
    with pytest.warns(DeprecationWarning, match="Row.separated"):
        assert [board.overlaps_next(r) for r in rows] == [True, False, False]
    with pytest.warns(DeprecationWarning):
        assert board.overlaps() is True
