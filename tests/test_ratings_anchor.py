"""``leaderboard(..., anchor=...)`` and ``tournament --anchor``: one entrant pinned at rating 0.

An anchor only moves the board's zero: every rating and every bootstrap replica becomes its
difference from the anchor's, so the anchor reads 0 with no interval of its own, the others'
intervals are those of their difference from it, and what compares entrants with each other
(differences, their intervals, p-values, marks, effect sizes) is the same as without one.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from evaluate.cli import anchor_label, tournament_main
from evaluate.ratings import ANCHOR_SOURCE, leaderboard
from tests.test_leaderboard_significance import paired_games, record, table_games

COMPARED = ("diff_next", "diff_next_low", "diff_next_high", "p_next", "p_next_holm", "separated",
            "ahead_next", "ahead_next_low", "ahead_next_high")  # fmt: skip


def _boards(records, labels, anchor, **kw):
    return leaderboard(labels, records, seed=3, **kw), leaderboard(labels, records, seed=3, anchor=anchor, **kw)


@pytest.mark.parametrize("kind", ["bradley-terry", "plackett-luce"])
def test_an_anchor_moves_the_zero_and_nothing_else(kind):
    if kind == "bradley-terry":
        labels = ["a", "b", "c", "d"]
        records = paired_games({"a": 0, "b": 60, "c": 120, "d": 300}, deals=150, seed=1)
    else:
        labels = ["a", "b", "c", "d", "e"]
        records = table_games({"a": 1.0, "b": 1.3, "c": 1.6, "d": 2.0, "e": 2.5}, deals=40, seed=2)
    free, pinned = _boards(records, labels, "b")
    assert [r.label for r in free.rows] == [r.label for r in pinned.rows]
    zero = next(r.rating for r in free.rows if r.label == "b")
    for f, p in zip(free.rows, pinned.rows):
        assert p.rating == pytest.approx(f.rating - zero, abs=1e-9)
        for name in COMPARED:
            assert getattr(p, name) == pytest.approx(getattr(f, name), abs=1e-9), name
        if p.label == "b":
            assert (p.rating, p.rating_low, p.rating_high, p.interval_source) == (0.0, 0.0, 0.0, ANCHOR_SOURCE)
        else:
            assert p.interval_source == "bootstrap" and p.rating_low < p.rating < p.rating_high
    assert pinned.anchor == "b" and pinned.to_json()["anchor"] == "b" and free.to_json()["anchor"] is None
    assert "anchor: b's" in pinned.text() and "anchor: " not in free.text()


def test_an_anchored_interval_is_the_interval_of_the_difference_from_the_anchor():
    """An entrant who always beats the anchor by about the same margin gets a narrow interval next
    to it, though the field's centring gives both wide ones: the common noise cancels."""
    labels = ["a", "b", "c"]
    records = paired_games({"a": 0, "b": 200, "c": 210}, deals=200, seed=5)
    free, pinned = _boards(records, labels, "b")
    row = {r.label: r for r in pinned.rows}
    boot_free = {r.label: r for r in free.rows}
    # c - b: the pinned interval is the difference's, the one the board's "vs next" prints for the pair.
    c, b = boot_free["c"], boot_free["b"]
    if c.diff_next is not None and free.rows[free.rows.index(c) + 1].label == "b":
        assert (row["c"].rating_low, row["c"].rating_high) == pytest.approx((c.diff_next_low, c.diff_next_high))
    else:
        assert (row["b"].rating - row["c"].rating) == pytest.approx(b.diff_next)
        assert (-row["c"].rating_high, -row["c"].rating_low) == pytest.approx((b.diff_next_low, b.diff_next_high))


def test_a_pair_that_ended_alike_widens_the_difference_from_the_anchor():
    """a lost every deal to b (10-0): the difference b - a is widened by the posterior interval."""
    records = [record(("a", "b"), deal, rot, (-1, 1) if rot == 0 else (1, -1)) for deal in range(30) for rot in (0, 1)]
    records += paired_games({"b": 0, "c": 50}, deals=60, seed=9)
    pinned = leaderboard(["a", "b", "c"], records, seed=0, anchor="a")
    row = {r.label: r for r in pinned.rows}
    assert row["a"].interval_source == ANCHOR_SOURCE
    assert row["b"].widened and row["b"].rating_low < row["b"].rating < row["b"].rating_high
    assert row["b"].rating_high - row["b"].rating_low > 100  # the posterior's width, not the bootstrap's 0


def test_without_intervals_the_anchor_is_still_zero():
    records = paired_games({"a": 0, "b": 100}, deals=50, seed=4)
    board = leaderboard(["a", "b"], records, bootstrap=0, anchor="a")
    row = {r.label: r for r in board.rows}
    assert row["a"].rating == 0.0 and row["a"].rating_low is None
    assert board.rating_interval(row["a"]) == "anchor" and board.rating_interval(row["b"]) == "-"


def test_an_anchor_that_is_not_an_entrant_is_refused():
    with pytest.raises(ValueError, match="the anchor 'z' is not an entrant; the entrants are a, b"):
        leaderboard(["a", "b"], paired_games({"a": 0, "b": 1}, deals=5, seed=0), anchor="z")


def test_the_anchor_is_named_by_label_or_spec():
    specs = ["random", "bluffer: lie_probability=0.3", "random"]
    assert anchor_label("meyer", specs, None) is None
    assert anchor_label("meyer", specs, "random#2") == "random#2"
    assert anchor_label("meyer", specs, "bluffer: lie_probability=0.3") == "bluffer:lie_probability=0.3"
    with pytest.raises(ValueError, match="--anchor 'honest' is not an entrant; the entrants are random, "):
        anchor_label("meyer", specs, "honest")


def test_tournament_anchor_before_any_game_and_in_the_json(tmp_path, capsys, monkeypatch):
    import evaluate.tournament

    monkeypatch.setattr(evaluate.tournament, "run_tournament", lambda *a, **k: pytest.fail("played"))
    with pytest.raises(ValueError, match="--anchor 'nobody' is not an entrant"):
        tournament_main(["meyer", "--agents", "random", "honest", "--games", "5", "--no-db", "--anchor", "nobody"])
    monkeypatch.undo()
    argv = ["meyer", "--agents", "random", "honest", "doubter", "--games", "20", "--no-db", "--quiet",
            "--json", "--anchor", "random"]  # fmt: skip
    assert tournament_main(argv) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    rows = {r["label"]: r for r in data["leaderboard"]["rows"]}
    assert data["leaderboard"]["anchor"] == "random"
    assert rows["random"]["rating"] == 0.0 and rows["random"]["interval_source"] == ANCHOR_SOURCE
    assert np.isfinite(rows["honest"]["rating"]) and rows["honest"]["rating"] > 0
