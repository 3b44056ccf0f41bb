"""Head-to-head intervals over deals (review F3) and the report's own files (F7, F9).

Under common dice the rotations of a deal meet the same dice, so a deal, not a game, is the
independent unit. The head-to-head share is estimated per deal and its interval comes from the
spread of the deals (:func:`evaluate.stats.deal_clustered_share`); where the deals cannot give one
it is Wilson's over the deals (under independent dice, over the games), and ``interval_source``
says which. The matrix is the leaderboard's own (``Leaderboard.matrix``, its ``head_to_head`` and
``to_json``), the one the report writes. The expected numbers here are recomputed from the games (or
from the store's rows), not read from the code under test.
"""

from __future__ import annotations

import csv
import json
import math
import sqlite3

import numpy as np
import pytest

from dice_envs.cli import main
from evaluate.ratings import (
    DEALS_SOURCE, HEAD_TO_HEAD_CSV_COLUMNS, WILSON_DEALS_SOURCE, WILSON_SOURCE, PairMatrix, leaderboard,
)  # fmt: skip
from evaluate.stats import MIN_CLUSTER_DEALS, deal_clustered_share, t_quantile_975, wilson
from evaluate.tournament import GameRecord, GameTask


# -- the interval on a synthetic paired design ------------------------------------------------------
def _paired_deals(rng, deals: int, theta: float = 0.3, luck: float = 2.0) -> np.ndarray:
    """The row entrant's share summed over each deal's two rotations. A deal's dice favour one seat
    (``luck``, drawn per deal); the row sits in that seat in one rotation and in the other seat in
    the other, as under common dice: its two games pull apart, so a deal says more than two
    independent games."""
    u = rng.normal(0.0, luck, size=(deals, 1)) * np.array([1.0, -1.0])
    won = rng.random((deals, 2)) < 1.0 / (1.0 + np.exp(-(theta + u)))
    return won.sum(axis=1).astype(float)


def _truth(theta: float = 0.3, luck: float = 2.0) -> float:
    x, w = np.polynomial.hermite_e.hermegauss(80)  # E over u ~ N(0, luck) of the win probability
    return float((w / w.sum()) @ (1.0 / (1.0 + np.exp(-(theta + luck * x)))))


def _interval(y: np.ndarray) -> tuple[float, float, float, float]:
    m = len(y)
    found = deal_clustered_share(m, float(y.sum()), 2.0 * m, float(y @ y), 2.0 * float(y.sum()), 4.0 * m)
    assert found is not None
    return found


def test_on_paired_deals_the_interval_is_narrower_than_wilson_and_covers_95_percent():
    rng = np.random.default_rng(7)
    truth = _truth()
    reps, deals = 600, 60
    covered = wilson_covered = 0
    ratios = []
    for _ in range(reps):
        y = _paired_deals(rng, deals)
        _, low, high, n_eff = _interval(y)
        _, wlow, whigh = wilson(float(y.sum()), 2 * deals)
        covered += low <= truth <= high
        wilson_covered += wlow <= truth <= whigh
        ratios.append((high - low) / (whigh - wlow))
    # 600 replicas: a true 95% gives 0.95 +- 0.018 (two standard errors)
    assert 0.925 <= covered / reps <= 0.975, covered / reps
    assert wilson_covered / reps > 0.975  # Wilson over the games is too wide here ...
    assert np.mean(ratios) < 0.9  # ... and the deals' interval narrower (0.8 at this luck)


def test_the_interval_is_the_normal_one_on_the_deals_means_in_the_middle():
    rng = np.random.default_rng(1)
    y = _paired_deals(rng, 400, theta=0.0)
    share, low, high, n_eff = _interval(y)
    means = y / 2
    se = means.std(ddof=1) / math.sqrt(len(means))
    assert share == pytest.approx(means.mean())
    assert n_eff == pytest.approx(share * (1 - share) / se**2)
    assert (low, high) == pytest.approx((share - 1.966 * se, share + 1.966 * se), abs=2e-3)


def test_where_the_deals_cannot_give_an_interval_there_is_none():
    y = np.array([1.0, 2.0, 0.0] * 6)  # 18 deals
    assert len(y) < MIN_CLUSTER_DEALS
    assert deal_clustered_share(18, y.sum(), 36.0, y @ y, 2 * y.sum(), 72.0) is None
    ones = np.full(30, 2.0)  # every game won
    assert deal_clustered_share(30, ones.sum(), 60.0, ones @ ones, 2 * ones.sum(), 120.0) is None
    split = np.full(30, 1.0)  # every deal split 1-1: the deals say nothing of their spread
    assert deal_clustered_share(30, split.sum(), 60.0, split @ split, 2 * split.sum(), 120.0) is None


def test_the_t_quantile_matches_scipy():
    t = pytest.importorskip("scipy.stats").t
    for df in (9, 19, 20, 59, 200, 10_000):
        assert t_quantile_975(df) == pytest.approx(t.ppf(0.975, df), abs=2e-5)


# -- the matrix: counts, shares, sources ------------------------------------------------------------
def _record(table, deal, rotation, seats, winners, dice="common", seed=0):
    returns = tuple(1.0 if s in winners else -1.0 for s in range(len(seats)))
    if len(winners) == len(seats):
        returns = tuple(0.0 for _ in seats)
    task = GameTask(seed, tuple(table), deal, rotation, dice)
    assert task.seats == tuple(seats)  # the seating the tournament draws for that game
    return GameRecord(task, returns, tuple(winners), (0,) * len(seats), [], 1)


_THREE = [  # (deal, rotation, seats, winning seats)
    (0, 0, ("a", "b", "c"), (0,)),  # a alone: a beats b and c; b and c both lost
    (0, 1, ("c", "a", "b"), (0, 1)),  # c and a share the win: a-c a tie; both beat b
    (0, 2, ("b", "c", "a"), (0,)),  # b alone
    (1, 0, ("a", "c", "b"), (2,)),  # b alone
    (1, 1, ("b", "a", "c"), (0, 1, 2)),  # a full tie: every pair tied
    (1, 2, ("c", "b", "a"), (0,)),  # c alone
]


def test_three_player_counts_ties_and_both_lost_exactly():
    records = [_record(("a", "b", "c"), d, r, seats, won) for d, r, seats, won in _THREE]
    h2h = PairMatrix.of_records(records, ["a", "b", "c"])
    ab, ba, ac = h2h.cell("a", "b"), h2h.cell("b", "a"), h2h.cell("a", "c")
    assert ab is not None and ba is not None and ac is not None
    assert (ab.wins, ab.losses, ab.ties, ab.both_lost, ab.games, ab.deals) == (2, 2, 1, 1, 6, 2)
    assert (ba.wins, ba.losses, ba.ties, ba.both_lost) == (2, 2, 1, 1)
    assert (ac.wins, ac.losses, ac.ties, ac.both_lost) == (1, 1, 2, 2)
    assert ab.share == pytest.approx((2 + (1 + 1) / 2) / 6) and ab.share + ba.share == pytest.approx(1.0)
    assert ab.decided_share == pytest.approx(0.5)
    # two deals: too few for the deals' spread, so Wilson's over the two deals (common dice), not the 6 games
    assert ab.source == WILSON_DEALS_SOURCE and ab.effective == 2
    assert (ab.low, ab.high) == pytest.approx(wilson(0.5 * 2, 2)[1:])
    assert ab.decided_source == WILSON_DEALS_SOURCE  # a-b decided in both deals (1-1, 1-1)
    assert (ab.decided_low, ab.decided_high) == pytest.approx(wilson(1.0, 2)[1:])
    assert h2h.cell("a", "a") is None
    assert "both lost" in h2h.counting()
    assert "Wilson's over the deals" in h2h.intervals()


def test_under_independent_dice_the_fallback_counts_the_games():
    records = [_record(("a", "b", "c"), d, r, seats, won, dice="independent") for d, r, seats, won in _THREE]
    h2h = PairMatrix.of_records(records, ["a", "b", "c"])
    ab = h2h.cell("a", "b")
    assert ab is not None and ab.source == WILSON_SOURCE and ab.effective == 6
    assert (ab.low, ab.high) == pytest.approx(wilson(3.0, 6)[1:])
    assert "Wilson's over the games" in h2h.intervals()
    assert f"{ab.share:.3f} [{ab.low:.3f}, {ab.high:.3f}]w" in h2h.markdown()


def test_a_pair_that_ended_alike_in_every_deal_falls_back_to_wilson_over_the_deals():
    def alike(dice):
        return [_record(("a", "b"), d, r, ("a", "b") if r == 0 else ("b", "a"), (r,), dice=dice)
                for d in range(30) for r in (0, 1)]  # fmt: skip

    cell = PairMatrix.of_records(alike("common"), ["a", "b"]).cell("a", "b")  # a wins every game
    assert cell is not None and (cell.wins, cell.share, cell.effective) == (60, 1.0, 30)
    assert cell.source == WILSON_DEALS_SOURCE
    # 30 deals, not 60 games: [0.886, 1] (review 4), where the games' Wilson said [0.940, 1]
    assert (cell.low, cell.high) == pytest.approx(wilson(30, 30)[1:])
    assert cell.low == pytest.approx(0.886, abs=1e-3)
    cell = PairMatrix.of_records(alike("independent"), ["a", "b"]).cell("a", "b")
    assert cell is not None and (cell.source, cell.effective) == (WILSON_SOURCE, 60)
    assert (cell.low, cell.high) == pytest.approx(wilson(60, 60)[1:])


def test_rotations_that_repeat_each_other_count_once():
    # 10 deals, each 2-0 or 0-2 (the rotations one game): share 1/2 over 10 deals, [0.24, 0.76]
    # (review 4), not the [0.30, 0.70] of 20 independent games
    records = [_record(("a", "b"), d, r, ("a", "b") if r == 0 else ("b", "a"), (r if d % 2 else 1 - r,))
               for d in range(10) for r in (0, 1)]  # fmt: skip
    cell = PairMatrix.of_records(records, ["a", "b"]).cell("a", "b")
    assert cell is not None and (cell.share, cell.source) == (0.5, WILSON_DEALS_SOURCE)
    assert (cell.low, cell.high) == pytest.approx(wilson(5, 10)[1:])
    assert (cell.low, cell.high) == pytest.approx((0.237, 0.763), abs=1e-3)


def _drawn(seed, table, deals, winner=0):
    """The rotations of ``deals`` deals of ``table`` under ``seed``, seated as drawn; seat ``winner`` wins."""
    return [_record(table, d, r, GameTask(seed, table, d, r).seats, (winner,), seed=seed)
            for d in range(deals) for r in range(len(table))]  # fmt: skip


def test_deals_of_different_seeds_are_kept_apart():
    # One deal key everywhere (evaluate.stats.deal_key): seed, dice, table, deal.
    merged = _drawn(0, ("a", "b"), 3) + _drawn(1, ("a", "b"), 3)
    assert PairMatrix.of_records(merged, ["a", "b"]).cell("a", "b").deals == 6  # type: ignore[union-attr]
    # The leaderboard's bootstrap too: 3 deals of seed 0 and 2 of seed 1 are 5 deals of 3 games
    # each (a deal of 6 games and one of 3 would be refused: every deal must have all its rotations).
    pytest.importorskip("openskill")
    table = ("a", "b", "c")
    lb = leaderboard(list(table), _drawn(0, table, 3) + _drawn(1, table, 2, winner=1), bootstrap=40)
    assert lb.method == "openskill-plackett-luce" and lb.rows[0].rating_low is not None
    assert lb.matrix.cell("a", "b").deals == 5  # type: ignore[union-attr]


def test_the_leaderboard_and_the_report_have_one_head_to_head():
    # review 5: Leaderboard.head_to_head and to_json()["head_to_head"] are the report's matrix
    pytest.importorskip("openskill")  # tables of three: Plackett-Luce
    records = [_record(("a", "b", "c"), d, r, seats, won) for d, r, seats, won in _THREE]
    lb = leaderboard(["a", "b", "c"], records, bootstrap=0)
    matrix = PairMatrix.of_records(records, lb.labels)
    assert lb.to_json()["head_to_head"] == matrix.to_json()
    assert lb.matrix.csv_rows() == matrix.csv_rows()
    for i, a in enumerate(lb.labels):
        for j, b in enumerate(lb.labels):
            cell = matrix.cell(a, b)
            expected = None if cell is None else (cell.share, cell.low, cell.high, cell.games)
            assert lb.head_to_head[i][j] == expected


@pytest.fixture(scope="module")
def known_store(tmp_path_factory):
    """A small tournament's store and report: 10 000 to 2000 points, three entrants, 25 deals."""
    where = tmp_path_factory.mktemp("h2h")
    db, report = where / "t.sqlite", where / "report"
    code = main(["tournament", "tenthousand", "--target", "2000", "--agents", "heuristic", "greedy", "random",
                 "--games", "25", "--db", str(db), "--report", str(report), "--workers", "1", "--quiet",
                 "--bootstrap", "0"])  # fmt: skip
    assert code == 0
    return db, report


def test_head_to_head_csv_counts_the_stores_games_exactly(known_store):
    db, report = known_store
    with open(report / "head_to_head.csv") as handle:
        reader = csv.DictReader(handle)
        rows = {(r["agent"], r["opponent"]): r for r in reader}
    assert tuple(reader.fieldnames or ()) == HEAD_TO_HEAD_CSV_COLUMNS
    assert len(rows) == 6
    # Recounted from the store's rows (seats and returns), as an outside reader would.
    counts: dict[tuple[str, str], list[int]] = {}
    per_deal: dict[tuple[str, str], dict[tuple, float]] = {}
    with sqlite3.connect(db) as conn:
        for table, deal, seats, returns in conn.execute("SELECT table_key, deal, seats, returns FROM games"):
            seats, returns = json.loads(seats), json.loads(returns)
            for i, a in enumerate(seats):
                for j, b in enumerate(seats):
                    if i == j:
                        continue
                    c = counts.setdefault((a, b), [0, 0, 0])
                    k = 0 if returns[i] > returns[j] else 1 if returns[i] < returns[j] else 2
                    c[k] += 1
                    d = per_deal.setdefault((a, b), {})
                    d[(table, deal)] = d.get((table, deal), 0.0) + (1.0, 0.0, 0.5)[k]
    for pair, (w, l, t) in counts.items():
        row = rows[pair]
        assert (int(row["wins"]), int(row["losses"]), int(row["ties"]), int(row["both_lost"])) == (w, l, t, 0)
        assert int(row["games"]) == w + l + t == 50 and int(row["deals"]) == 25
        assert float(row["share_ahead"]) == pytest.approx((w + t / 2) / 50, abs=1e-5)
        y = np.array(list(per_deal[pair].values()))
        if row["interval_source"] == DEALS_SOURCE:
            # the normal interval on the 25 deals' means, in Wilson's form at t(24)
            means = y / 2
            n_eff = max(means.mean() * (1 - means.mean()) / (means.var(ddof=1) / 25), 25)
            assert float(row["effective_games"]) == pytest.approx(n_eff, abs=0.05)
            got = (float(row["low"]), float(row["high"]))
            # Wilson's with the effective number of games, rounded (either way at a half)
            assert any(
                got == pytest.approx(wilson(means.mean() * k, k, z=t_quantile_975(24))[1:], abs=1e-5)
                for k in {math.floor(n_eff), math.ceil(n_eff)}
            )
        else:  # common dice: Wilson's over the 25 deals, not the 50 games
            assert row["interval_source"] == WILSON_DEALS_SOURCE and float(row["effective_games"]) == 25
            share = (w + t / 2) / 50
            got = (float(row["low"]), float(row["high"]))
            assert got == pytest.approx(wilson(share * 25, 25)[1:], abs=1e-5)
    data = json.loads((report / "report.json").read_text())
    cell = data["leaderboard"]["head_to_head"]["heuristic"]["random"]
    assert cell["wins"] == int(rows["heuristic", "random"]["wins"])
    assert cell["interval_source"] in (DEALS_SOURCE, WILSON_DEALS_SOURCE)
    assert f"{cell['low']:.5f}" == rows["heuristic", "random"]["low"]
    assert data["setting"] == (
        "tenthousand (preset=dk, target=2000), tables of 2, 3 agents, common dice, seed 0, 150 games "
        "(25 deals per table x 2 rotations x 3 tables)"
    )


def test_leaderboard_md_is_the_printed_board(known_store, tmp_path, capsys):
    db, _ = known_store
    report = tmp_path / "again"
    assert main(["tournament", "tenthousand", "--target", "2000", "--agents", "heuristic", "greedy", "random",
                 "--games", "25", "--db", str(db), "--report", str(report), "--quiet", "--bootstrap", "40"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    board, rest = out.split("\n\nby seat", 1)  # the title and the leaderboard with its legends, as printed
    assert board.startswith("tenthousand (preset=dk, target=2000), tables of 2, 3 agents")
    assert "heuristic" in board
    text = (report / "leaderboard.md").read_text()
    assert f"```text\n{board}\n```" in text
    assert text.startswith(f"# Tournament: {board.splitlines()[0]}\n")  # the setting is the printed title
    seats = "by seat" + rest.split("\nplayed 0 new games")[0]
    assert f"```text\n{seats}\n```" in text  # the seats as printed too
    assert "| agent \\ opponent |" in text and "ties count 1/2" in text
    # The seats come in leaderboard order (review F9), as the board's rows.
    order = [line.split()[1] for line in board.splitlines()[2:5]]
    seat_rows = [line.split()[0] for line in seats.splitlines()[2:5]]
    assert seat_rows == order and sorted(order) == ["greedy", "heuristic", "random"]


def test_the_setting_names_the_preset_and_counts_the_tables():
    # review 8: the preset and what differs from it (not every option that differs from dk's),
    # "1 deal", and the tables the games were played at
    from evaluate.report import setting_text
    from evaluate.tournament import run_tournament

    options = {"preset": "farkle", "target": 1000}
    agents = ["heuristic", "greedy", "random"]
    result = run_tournament("tenthousand", agents, games=1, workers=1, progress=False, options=options)
    assert setting_text(result) == (
        "tenthousand (preset=farkle, target=1000), tables of 2, 3 agents, common dice, seed 0, 6 games "
        "(1 deal per table x 2 rotations x 3 tables)"
    )
