"""Per-entrant win rates and mean returns with intervals over the deals, stratified by table
(`evaluate.stats.StratifiedShare`): the leaderboard's and `match`'s, which counted games as
independent before (statistics review 9, item 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaluate.match import AgentRecord, play_match
from evaluate.ratings import leaderboard
from evaluate.stats import (
    CLUSTERED_SOURCE,
    MIN_CLUSTER_DEALS,
    WILSON_DEALS_SOURCE,
    StratifiedShare,
    deal_clustered_share,
    t_quantile_975,
    wilson,
)
from evaluate.tournament import GameRecord, GameTask, winners_of


def filled(deals) -> StratifiedShare:
    s = StratifiedShare()
    for stratum, y, n in deals:
        s.add_deal(stratum, y, n)
    return s


def textbook(deals) -> tuple[float, float, float]:
    """The stratified CR1 interval written out from its definition, with numpy, deal by deal."""
    strata = sorted({t for t, _, _ in deals})
    y = np.array([d[1] for d in deals], dtype=float)
    n = np.array([d[2] for d in deals], dtype=float)
    p = y.sum() / n.sum()
    v = 0.0
    df = 0
    for t in strata:
        z = np.array([yd - p * nd for s, yd, nd in deals if s == t])
        v += len(z) / (len(z) - 1) * ((z - z.mean()) ** 2).sum()
        df += len(z) - 1
    v /= n.sum() ** 2
    count = round(max(p * (1 - p) / v, n.sum() ** 2 / (n**2).sum()))
    _, low, high = wilson(p * count, count, z=t_quantile_975(df))
    return p, low, high


def test_the_interval_is_the_stratified_cluster_robust_one_written_out():
    rng = np.random.default_rng(0)
    deals = []
    for t, (size, games) in enumerate([(25, 2), (30, 3), (12, 4)]):  # tables of 2, 3 and 4 seats
        for _ in range(size):
            deals.append((f"table{t}", float(rng.integers(0, games + 1)), games))
    share, low, high, n_eff, source = filled(deals).interval()
    assert source == CLUSTERED_SOURCE
    assert (share, low, high) == pytest.approx(textbook(deals), abs=1e-12)
    assert n_eff > 0


def test_one_table_gives_deal_clustered_share_itself():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, size=40).astype(float)
    found = filled([("t", float(v), 2) for v in y]).interval()
    expected = deal_clustered_share(40, y.sum(), 80.0, float(y @ y), 2 * y.sum(), 160.0)
    assert found[:4] == pytest.approx(expected, abs=1e-12)


def test_differences_between_tables_are_not_counted_as_chance():
    # An entrant that wins 20% at one table and 80% at the other, with little spread within each:
    # the pooled share is 0.5 either way, but only the stratified interval knows the tables are
    # fixed by the design; pooling the deals as one table counts the gap between them as noise.
    rng = np.random.default_rng(2)
    deals = [("a", float(rng.binomial(2, 0.2)), 2) for _ in range(100)]
    deals += [("b", float(rng.binomial(2, 0.8)), 2) for _ in range(100)]
    stratified = filled(deals).interval()
    pooled = filled([("one", y, n) for _, y, n in deals]).interval()
    assert stratified[0] == pooled[0]
    assert stratified[2] - stratified[1] < 0.75 * (pooled[2] - pooled[1])


@pytest.mark.parametrize(
    "deals, why",
    [
        ([("t", 1.0, 2)] * 5 + [("t", 2.0, 2)] * 5, "fewer deals than MIN_CLUSTER_DEALS"),
        ([("t", 1.0, 2)] * 15 + [("t", 2.0, 2)] * 15 + [("u", 1.0, 2)], "a table of one deal"),
        ([("t", 0.0, 2)] * 30, "a share of 0"),
        ([("t", 2.0, 2)] * 30, "a share of 1"),
        ([("t", 1.0, 2)] * 30, "every deal alike"),
    ],
)
def test_where_the_deals_cannot_give_an_interval_it_is_wilsons_over_the_deals(deals, why):
    share, low, high, n_eff, source = filled(deals).interval()
    assert source == WILSON_DEALS_SOURCE, why
    m = len(deals)
    assert (share, low, high) == pytest.approx((share, *wilson(share * m, m)[1:]), abs=1e-12)
    assert n_eff == m


def test_degrees_of_freedom_count_within_tables():
    # 2 tables of 16 deals: 32 deals but 30 degrees of freedom, clustered; 2 of 15: 28, too few. One
    # table needs MIN_CLUSTER_DEALS deals (29 degrees of freedom), as deal_clustered_share does.
    make = lambda m, tables=("a", "b"): [(t, float(k % 3), 2) for t in tables for k in range(m)]  # noqa: E731
    assert MIN_CLUSTER_DEALS == 30
    assert filled(make(16)).interval()[4] == CLUSTERED_SOURCE
    assert filled(make(15)).interval()[4] == WILSON_DEALS_SOURCE
    assert filled(make(30, ("a",))).interval()[4] == CLUSTERED_SOURCE
    assert filled(make(29, ("a",))).interval()[4] == WILSON_DEALS_SOURCE
    y = np.array([k % 3 for k in range(30)], dtype=float)
    assert deal_clustered_share(30, y.sum(), 60.0, float(y @ y), 2 * y.sum(), 120.0) is not None
    assert deal_clustered_share(29, y[:29].sum(), 58.0, float(y[:29] @ y[:29]), 2 * y[:29].sum(), 116.0) is None


def test_no_games_is_nan_and_bad_deals_are_refused():
    assert all(math.isnan(x) for x in StratifiedShare().interval()[:4])
    s = StratifiedShare()
    with pytest.raises(ValueError, match="n > 0"):
        s.add_deal("t", 0.0, 0)
    with pytest.raises(ValueError, match=r"\[0, n\]"):
        s.add_deal("t", 3.0, 2)
    with pytest.raises(ValueError, match=r"\[0, n\]"):
        s.add_deal("t", -0.5, 2)


def test_coverage_where_rotations_agree_and_counting_games_falls_short():
    # Two rotations a deal that agree more often than chance (positive within-deal correlation):
    # Wilson over the games takes 2 games where there is less, and covers too little; the deals'
    # interval does not. Seeded, so the figures are fixed: 0.90 against 0.96 here.
    rng = np.random.default_rng(9)
    p, boards, deals = 0.6, 600, 60
    hit_games = hit_deals = 0
    for _ in range(boards):
        agree = rng.random(deals) < 0.5  # half the deals: both rotations one game
        first = rng.random(deals) < p
        second = np.where(agree, first, rng.random(deals) < p)
        y = first.astype(float) + second
        _, low, high = wilson(float(y.sum()), 2 * deals)
        hit_games += low <= p <= high
        _, low, high, _, _ = filled([("t", float(v), 2) for v in y]).interval()
        hit_deals += low <= p <= high
    assert hit_games / boards < 0.92
    assert hit_deals / boards >= 0.935


# -- the leaderboard and match -------------------------------------------------------------------
def record(table, deal, rotation, returns) -> GameRecord:
    task = GameTask(0, tuple(table), deal, rotation)
    returns = tuple(float(r) for r in returns)
    return GameRecord(task, returns, winners_of(returns), (0,) * len(returns), [], 0)


def test_a_two_entrant_boards_win_rate_interval_is_its_head_to_head_cells():
    rng = np.random.default_rng(3)
    games = []
    for deal in range(60):
        for rotation in range(2):
            seats = ("a", "b") if rotation == 0 else ("b", "a")
            a_wins = rng.random() < (0.65 if rotation == 0 else 0.55)
            games.append(record(("a", "b"), deal, rotation, (1, -1) if (seats[0] == "a") == a_wins else (-1, 1)))
    lb = leaderboard(["a", "b"], games, bootstrap=0)
    row = {r.label: r for r in lb.rows}["a"]
    cell = lb.matrix.cell("a", "b")
    assert cell is not None and cell.source == "deals" == row.win_interval_source
    assert (row.win_rate, row.win_low, row.win_high) == pytest.approx((cell.share, cell.low, cell.high), abs=1e-12)
    # two players: the return is 2 * share - 1, and so is its interval
    assert (row.return_low, row.return_high) == pytest.approx((2 * row.win_low - 1, 2 * row.win_high - 1), abs=1e-12)
    assert "95% (deals)" in lb.text() and "Wilson 95%" not in lb.text()


def test_under_independent_dice_a_board_falls_back_as_its_head_to_head_does():
    # Every rotation is an independent game then: where 10 deals cannot give an interval, the board's
    # win rate and the head-to-head cell are both Wilson's over the 20 games (review 10, finding 1).
    games = []
    for deal in range(10):
        for rotation in range(2):
            task = GameTask(0, ("a", "b"), deal, rotation, "independent")
            returns = (1.0, -1.0) if (deal + rotation) % 4 else (-1.0, 1.0)
            games.append(GameRecord(task, returns, winners_of(returns), (0, 0), [], 0))
    lb = leaderboard(["a", "b"], games, bootstrap=0)
    for row in lb.rows:
        cell = lb.matrix.cell(row.label, "b" if row.label == "a" else "a")
        assert cell is not None and cell.source == "wilson-games" == row.win_interval_source
        assert (row.win_low, row.win_high) == pytest.approx((cell.low, cell.high), abs=1e-12)
        assert row.win_effective_games == 20
    assert "under independent dice, the games" in lb.text()


def test_a_boards_win_rate_pools_the_tables_as_strata():
    # Three entrants at tables of two: a's deals at its two tables, each table its own stratum.
    rng = np.random.default_rng(5)
    games, by_table = [], {}
    for table, p in ((("a", "b"), 0.7), (("a", "c"), 0.4)):
        for deal in range(30):
            y = 0.0
            for rotation in range(2):
                seats = table if rotation == 0 else table[::-1]
                a_wins = rng.random() < p
                y += a_wins
                games.append(record(table, deal, rotation, (1, -1) if (seats[0] == "a") == a_wins else (-1, 1)))
            by_table.setdefault(table, []).append(y)
    games.append(record(("b", "c"), 0, 0, (1, -1)))
    games.append(record(("b", "c"), 0, 1, (1, -1)))
    lb = leaderboard(["a", "b", "c"], games, bootstrap=0)
    row = {r.label: r for r in lb.rows}["a"]
    expected = filled([(t, y, 2) for t, ys in by_table.items() for y in ys]).interval()
    assert (row.win_rate, row.win_low, row.win_high) == pytest.approx(expected[:3], abs=1e-12)
    assert row.win_effective_games == pytest.approx(expected[3])


def test_a_match_counts_its_deals_and_says_which_interval_in_json():
    result = play_match("meyer", ["doubter", "honest"], 80, seed=2)
    rec = result.records[0]
    assert rec.interval_source() == CLUSTERED_SOURCE
    agents = result.to_json()["agents"]
    assert [a["interval_source"] for a in agents] == [CLUSTERED_SOURCE] * 2
    assert agents[0]["win_low"] + agents[1]["win_high"] == pytest.approx(1.0, abs=1e-9)  # mirror images


def test_a_deal_cut_short_is_counted_and_the_record_stays_open():
    rec = AgentRecord("x")
    for deal in range(25):
        rec.add(1.0 if deal % 3 else 0.0, 1.0 if deal % 3 else -1.0, deal=deal)
        rec.add(0.0 if deal % 2 else 1.0, -1.0 if deal % 2 else 1.0, deal=deal)
    rec.add(1.0, 1.0, deal=25)  # the last deal, one game of two so far
    before = rec.win_rate()
    assert rec.win_rate() == before  # reading does not close the deal
    rec.add(1.0, 1.0, deal=25)
    expected = filled([("m", float((d % 3 != 0) + (d % 2 == 0)), 2) for d in range(25)] + [("m", 2.0, 2)])
    assert rec.win_rate() == pytest.approx(expected.interval()[:3], abs=1e-12)
    assert rec.win_rate() != before


# -- mean returns at tables of three or more (statistics review 10, finding 4) --------------------
def test_a_return_as_a_share_is_the_win_share_in_a_game_of_one_winner():
    from evaluate.stats import return_share

    assert [return_share(r, 4) for r in (1.0, -1 / 3, 0.0)] == pytest.approx([1.0, 0.0, 0.25])
    assert return_share(0.5, 4) == pytest.approx(5 / 8)  # one of two winners
    assert return_share(-0.5, 4) is None  # a loser when two won: below 0 under this map
    assert return_share(-1.0, 2) == 0.0 and return_share(1.0, 2) == 1.0  # two players: (r + 1) / 2


def test_a_board_of_four_seats_gives_the_mean_returns_interval_the_win_rates_image():
    rng = np.random.default_rng(11)
    labels = ["a", "b", "c", "d", "e"]
    games = []
    import itertools

    for table in itertools.combinations(labels, 4):
        for deal in range(12):
            for rotation in range(4):
                winner = rng.integers(4)  # one winner a game, by seat
                games.append(record(table, deal, rotation, [1 if s == winner else -1 / 3 for s in range(4)]))
    lb = leaderboard(labels, games, bootstrap=0)
    for row in lb.rows:
        image = [(4 * x - 1) / 3 for x in (row.win_rate, row.win_low, row.win_high)]
        assert (row.mean_return, row.return_low, row.return_high) == pytest.approx(image, abs=1e-12)
        assert row.return_interval_source == row.win_interval_source


def test_a_lost_tie_of_two_winners_maps_every_return_by_halves():
    games = [record(("a", "b", "c"), d, 0, (1, -0.5, -0.5) if d % 4 else (-0.5, -0.5, 1)) for d in range(40)]
    games += [record(("a", "b", "c"), 40, 0, (0.5, 0.5, -1))]  # c lost when two won: -1 < -1/2
    lb = leaderboard(["a", "b", "c"], games, bootstrap=0)
    returns = {label: [g.returns[g.seats.index(label)] for g in games] for label in "abc"}  # (seats by deal)
    lost_tie = [label for label, rs in returns.items() if min(rs) < -0.5]
    assert len(lost_tie) == 1
    rows = {r.label: r for r in lb.rows}
    for label, rs in returns.items():
        row = rows[label]
        assert row.mean_return == pytest.approx(sum(rs) / len(rs))
        if label in lost_tie:  # every return as (r + 1) / 2
            expected = [2 * x - 1 for x in filled([("t", (r + 1) / 2, 1) for r in rs]).interval()[:3]]
        else:  # every return as a share at three seats: ((P - 1) r + 1) / P
            expected = [(3 * x - 1) / 2 for x in filled([("t", (2 * r + 1) / 3, 1) for r in rs]).interval()[:3]]
        assert (row.mean_return, row.return_low, row.return_high) == pytest.approx(expected, abs=1e-12), label


def test_a_three_seat_match_gives_the_mean_returns_interval_the_win_rates_image():
    result = play_match("syvere", ["heuristic", "random", "random"], 90, seed=4)
    checked = 0
    for rec in result.records:
        w, wl, wh = rec.win_rate()
        r, rl, rh = rec.mean_return()
        if rec._tie_lost:  # (Syvere can end in a shared win)
            continue
        assert (r, rl, rh) == pytest.approx([(3 * x - 1) / 2 for x in (w, wl, wh)], abs=1e-9)
        checked += 1
    assert checked >= 2
