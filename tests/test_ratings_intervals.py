"""Rating intervals: openskill's narrow with more games, Bradley-Terry's never collapse to a point,
and no intervals (``bootstrap=0``) are unknown (None), not the rating itself."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from dice_envs import strict_json
from evaluate.ratings import leaderboard
from evaluate.tournament import GameRecord, GameTask, winners_of


def record(table, deal, rotation, returns) -> GameRecord:
    returns = tuple(float(r) for r in returns)
    return GameRecord(GameTask(0, tuple(table), deal, rotation), returns, winners_of(returns), (0,) * len(returns), [], 0)


def four_player_games(deals: int, seed: int = 0) -> list[GameRecord]:
    """One table of four, every deal in its four rotations; the winner drawn by Plackett-Luce odds."""
    strength = {"a": 1.0, "b": 1.5, "c": 2.0, "d": 3.0}
    table = tuple(strength)
    rng = np.random.default_rng(seed)
    games = []
    for deal in range(deals):
        for rotation in range(4):
            seats = GameTask(0, table, deal, rotation).seats  # the seats the leaderboard reads
            w = np.array([strength[x] for x in seats])
            winner = int(rng.choice(4, p=w / w.sum()))
            games.append(record(table, deal, rotation, [1 if s == winner else -1 / 3 for s in range(4)]))
    return games


def mean_width(lb) -> float:
    return float(np.mean([r.rating_high - r.rating_low for r in lb.rows]))


def test_openskill_intervals_narrow_like_one_over_root_games():
    # 4x the games: 1/sqrt(4) = 0.5 of the width; it used to stay near 1 (openskill's tau kept
    # sigma up, and each replica measured the noise of one game order).
    labels = ["a", "b", "c", "d"]
    small = leaderboard(labels, four_player_games(60), bootstrap=40, seed=1)
    large = leaderboard(labels, four_player_games(240), bootstrap=40, seed=1)
    assert small.method == "openskill-plackett-luce"
    assert mean_width(large) < 0.65 * mean_width(small), (mean_width(small), mean_width(large))
    assert [row.label for row in large.rows] == ["d", "c", "b", "a"]  # the strengths the games were drawn by
    for row in large.rows:
        assert row.rating_low <= row.rating <= row.rating_high


def test_openskill_point_depends_little_on_the_game_order():
    # A guard, not a test of the tau fix (the point averaged orders before it too): refitting the
    # same games in other orders (other seeds) moves the rating less than the interval's half-width.
    labels = ["a", "b", "c", "d"]
    games = four_player_games(240)
    points = np.array([[r.rating for r in sorted(leaderboard(labels, games, bootstrap=0, seed=100 * s).rows,
                                                   key=lambda r: r.label)] for s in range(4)])  # fmt: skip
    half = mean_width(leaderboard(labels, games, bootstrap=40, seed=0)) / 2
    spread = np.max(points.max(axis=0) - points.min(axis=0))
    assert spread < half, (spread, half)


@pytest.mark.parametrize("returns", [(1, -1), (0, 0)], ids=["one-sided", "mirrored-ties"])
def test_bradley_terry_interval_of_a_pair_that_ended_alike_in_every_deal_is_not_a_point(returns):
    # 5 deals x 2 rotations: one entrant wins all 10 games (or every deal is the same tie), so
    # every bootstrap replica is the same: the interval must still have a positive width.
    games = [record(("a", "b"), d, r, returns if r == 0 else returns[::-1]) for d in range(5) for r in range(2)]
    lb = leaderboard(["a", "b"], games, bootstrap=40)
    for row in lb.rows:
        assert row.rating_high - row.rating_low > 50  # Elo: 10 games cannot pin a rating down
        assert row.rating_low <= row.rating <= row.rating_high
        assert row.interval_source == "bootstrap+posterior"
    assert "*" in lb.text()
    # A pair with mixed results keeps the plain bootstrap interval.
    mixed = games + [record(("a", "b"), 5, 0, (-1, 1)), record(("a", "b"), 5, 1, (1, -1))]  # b wins both
    assert {r.interval_source for r in leaderboard(["a", "b"], mixed, bootstrap=40).rows} == {"bootstrap"}


def test_no_intervals_and_the_last_row_are_unknown_not_separated():
    games = [record(("a", "b"), d, r, (1, -1) if (d + r) % 3 else (-1, 1)) for d in range(6) for r in range(2)]
    lb = leaderboard(["a", "b"], games, bootstrap=0)
    data = json.loads(strict_json.dumps(lb.to_json()))
    for row in data["rows"]:
        assert row["rating_low"] is None and row["rating_high"] is None and row["separated"] is None
    assert all(v["low"] is None and v["high"] is None for v in lb.ratings().values())
    assert "-" in lb.text() and "> :" not in lb.text()  # no intervals, and no marks of separation either
    assert lb.vs_next(lb.rows[0]) == f"  {lb.rows[0].diff_next:+.1f}"  # the difference alone
    with_intervals = leaderboard(["a", "b"], games, bootstrap=40)
    assert with_intervals.rows[-1].separated is None  # nothing follows the last row
    assert isinstance(with_intervals.rows[0].separated, bool)


def test_report_csv_leaves_unknown_intervals_empty(tmp_path):
    from evaluate.report import write_report
    from evaluate.tournament import run_tournament

    result = run_tournament("meyer", ["honest", "random"], games=2, seed=0, workers=1, progress=False)
    lb = leaderboard(result.labels, result.records, bootstrap=0)
    write_report(str(tmp_path), result, lb)
    with open(tmp_path / "leaderboard.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert all(r["rating_low"] == r["rating_high"] == r["separated_from_next"] == "" for r in rows)
    report = json.loads((tmp_path / "report.json").read_text())
    assert all(r["separated"] is None and r["rating_low"] is None for r in report["leaderboard"]["rows"])


def test_report_csv_names_each_intervals_source():
    """The text board's ``*`` (an interval widened by the posterior) reaches the CSV too."""
    import os
    import tempfile

    from evaluate.report import write_report
    from evaluate.tournament import run_tournament

    result = run_tournament("meyer", ["doubter", "honest", "bluffer", "random"], games=100, seed=0, workers=1,
                            progress=False)  # fmt: skip
    lb = leaderboard(result.labels, result.records, bootstrap=100, seed=0)
    assert lb.widened()  # this field widens some intervals (and not others)
    with tempfile.TemporaryDirectory() as directory:
        write_report(directory, result, lb)
        with open(os.path.join(directory, "leaderboard.csv")) as handle:
            rows = list(csv.DictReader(handle))
    assert [r["interval_source"] for r in rows] == [r.interval_source for r in lb.rows]
    assert {"bootstrap", "bootstrap+posterior"} == {r["interval_source"] for r in rows}
    marked = [r["agent"] for r in rows if r["interval_source"] == "bootstrap+posterior"]
    assert all(lb.rating_interval(r).endswith("*") == (r.label in marked) for r in lb.rows)
