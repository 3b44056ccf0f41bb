"""Tournament reports (issue 10, item 6): files, pictures, --json, Meyer bluffing profiles."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest

from dice_envs.cli import main
from dice_envs.games import meyer
from evaluate.ratings import leaderboard
from evaluate.report import DPI, bluffing_profile, figure_size, print_leaderboard, write_report
from evaluate.tournament import build_game, run_tournament
from meyer_records import scripted_record


def png_shape(path: str) -> tuple[int, int]:
    import matplotlib.image

    image = matplotlib.image.imread(path)  # opens it as an image, or raises
    return image.shape[0], image.shape[1]


def expected_shape(kind: str, n: int) -> tuple[int, int]:
    w, h = figure_size(kind, n)
    return round(h * DPI), round(w * DPI)


@pytest.fixture(scope="module")
def meyer_result():
    return run_tournament("meyer", ["doubter", "honest", "bluffer"], games=4, seed=1, workers=1, progress=False)


def test_report_files_exist_and_pictures_have_the_expected_size(tmp_path, meyer_result):
    lb = leaderboard(meyer_result.labels, meyer_result.records, bootstrap=50)
    written = write_report(str(tmp_path), meyer_result, lb)
    names = sorted(os.path.basename(p) for p in written)
    assert names == sorted(
        ["leaderboard.csv", "head_to_head.csv", "seats.csv", "report.json", "leaderboard.md", "head_to_head.png",
         "ratings.png", "bluffing.csv", "bluffing_by_context.csv", "bluffing.png"]
    )  # fmt: skip
    assert sorted(os.listdir(tmp_path)) == names
    for kind in ("head_to_head", "ratings", "bluffing"):
        assert png_shape(str(tmp_path / f"{kind}.png")) == expected_shape(kind, 3)
    with open(tmp_path / "leaderboard.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["agent"] for r in rows] == [r.label for r in lb.rows]
    assert int(rows[0]["games"]) == 2 * 4 * 2  # two opponents, 4 deals, both seatings
    with open(tmp_path / "head_to_head.csv") as handle:
        assert len(list(csv.DictReader(handle))) == 3 * 2
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["games_total"] == 24 and set(data["ratings"]) == {"doubter", "honest", "bluffer"}
    assert set(data["bluffing"]) == {"doubter", "honest", "bluffer"}
    with open(tmp_path / "bluffing.csv") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert reader.fieldnames == ["agent", "measure", "claim", "count", "of", "rate", "low", "high"]
    # lowest claim first, then the rate over all claims
    ladder = ["start", *(meyer.CLAIM_NAMES[c] for c in reversed(meyer.Game().ranking)), "all"]
    for agent in ("doubter", "honest", "bluffer"):
        for measure in {r["measure"] for r in rows}:
            claims = [r["claim"] for r in rows if r["agent"] == agent and r["measure"] == measure]
            assert claims == sorted(claims, key=ladder.index), (agent, measure, claims)
            assert claims[-1] == "all"


def test_a_game_without_bluffing_has_no_bluffing_files(tmp_path):
    result = run_tournament("syvere", ["heuristic", "random", "random"], games=2, num_players=3, workers=1, progress=False)
    lb = leaderboard(result.labels, result.records, bootstrap=40)
    names = sorted(os.path.basename(p) for p in write_report(str(tmp_path), result, lb))
    assert "bluffing.png" not in names and "ratings.png" in names
    assert png_shape(str(tmp_path / "head_to_head.png")) == expected_shape("head_to_head", 3)


_scripted = scripted_record


def test_bluffing_profile_counts_exactly():
    game = meyer.Game(num_players=2, lives=1)
    # Game 1: "liar" rolls 54 and claims 66 (a lie, nothing to beat); "caller" doubts and wins.
    one = _scripted(game, ("liar", "caller"), ["54", "claim 66", "doubt"])
    # Game 2: "caller" (seat 0) rolls 21 and claims it truthfully; "liar" believes, rolls 32,
    # must claim at least 21: claims 21 (a lie); "caller" doubts, right again.
    two = _scripted(game, ("caller", "liar"), ["21", "claim 21", "believe", "32", "claim 21", "doubt"])
    p = bluffing_profile(game, [one, two], ["liar", "caller"])
    liar, caller = p["liar"], p["caller"]
    assert liar.claims_by_beat == {"start": 1, "21": 1} and liar.lies_by_beat == {"start": 1, "21": 1}
    # 54 claimed as 66 with nothing to beat: a voluntary bluff; 32 facing 21: every legal claim a lie.
    assert liar.free_claims_by_beat == {"start": 1} and liar.voluntary_lies_by_beat == {"start": 1}
    assert liar.forced_lies_by_beat == {"21": 1}
    assert liar.voluntary_bluff_rate() == 1.0 and liar.forced_lie_rate() == 0.5
    assert liar.forced_lie_rate("21") == 1.0
    assert caller.free_claims_by_beat == {"start": 1}
    assert caller.voluntary_lies_by_beat == {} == caller.forced_lies_by_beat
    assert liar.believes_by_claim == {"21": 1} and liar.believed_lies_by_claim == {}
    assert liar.responses_by_claim == {"21": 1} and liar.doubt_rate() == 0.0
    assert caller.claims_by_beat == {"start": 1} and caller.lies_by_beat == {}
    assert caller.doubts_by_claim == {"66": 1, "21": 1} == caller.correct_doubts_by_claim
    assert caller.doubt_rate() == 1.0 and caller.doubt_accuracy("66") == 1.0
    assert liar.lie_rate() == 1.0 and caller.lie_rate() == 0.0 and liar.believed_lie_rate() == 0.0


def test_bluffing_profile_of_the_honest_player_never_lies_when_it_can_tell_the_truth(meyer_result):
    game = build_game("meyer", {"num_players": 2})
    profiles = bluffing_profile(game, meyer_result.records, meyer_result.labels)
    honest = profiles["honest"]
    assert honest.lies_by_beat.get("start", 0) == 0  # nothing to beat: the honest claim is the roll
    assert sum(honest.claims_by_beat.values()) > 0
    # It lies only when its dice do not meet the claim to beat: every lie of its is a forced one.
    assert honest.voluntary_lies_by_beat == {} and honest.voluntary_bluff_rate() == 0.0
    assert honest.forced_lies_by_beat == honest.lies_by_beat and honest.forced_lie_rate() > 0
    assert profiles["bluffer"].voluntary_bluff_rate() > 0
    with pytest.raises(ValueError, match="for Meyer"):
        bluffing_profile(build_game("syvere", {}), [], [])


def test_terminal_leaderboard_and_json_line(tmp_path, capsys):
    code = main(
        ["tournament", "meyer", "--lives", "2", "--agents", "honest", "random", "--games", "3", "--seed", "4",
         "--db", str(tmp_path / "m.sqlite"), "--workers", "1", "--json", "--quiet"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out.strip().splitlines()[-1])
    assert data["games_total"] == 6 and data["games_played_now"] == 6
    assert set(data["ratings"]) == {"honest", "random"}
    assert set(data["ratings"]["honest"]) == {"rating", "low", "high"}
    assert data["options"] == {"lives": 2}
    code = main(["tournament", "meyer", "--lives", "2", "--agents", "honest", "random", "--games", "3", "--seed", "4",
                 "--db", str(tmp_path / "m.sqlite"), "--workers", "1", "--json", "--quiet"])  # fmt: skip
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["games_total"] == 6 and data["games_played_now"] == 0


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_print_leaderboard_marks_neighbours_that_differ(meyer_result):
    pytest.importorskip("rich")
    lb = leaderboard(meyer_result.labels, meyer_result.records, bootstrap=40)
    separated = any(r.separated for r in lb.rows[:-1])
    terminal = Terminal()
    print_leaderboard(lb, "title", file=terminal)  # rich's table on a terminal ...
    text = terminal.getvalue()
    assert all(label in text for label in meyer_result.labels)
    assert all(lb.vs_next(r).strip() in text for r in lb.rows[:-1])  # each difference from the next
    assert ("> +" in text) == separated and "┃" in text
    flat = " ".join(text.split())
    assert all(" ".join(line.split()) in flat for line in lb.legend())  # the same legend as the plain text
    assert "not shown to differ, which is not evidence that they are equal" in flat
    log = io.StringIO()
    print_leaderboard(lb, "title", file=log)  # ... plain text in a file or a pipe
    assert log.getvalue() == f"title\n{lb.text()}\n"
    assert ("> +" in log.getvalue()) == separated and "┃" not in log.getvalue()


def _kept_figures(monkeypatch):
    """Keep the figures a plot function closes, to inspect them."""
    import matplotlib.pyplot as plt

    kept = []
    monkeypatch.setattr(plt, "close", lambda fig=None: kept.append(fig))
    return kept


def test_ratings_picture_shows_its_colour_key_under_any_title(tmp_path, monkeypatch, meyer_result):
    pytest.importorskip("matplotlib")
    from evaluate.report import plot_ratings

    kept = _kept_figures(monkeypatch)
    lb = leaderboard(meyer_result.labels, meyer_result.records, bootstrap=40)
    plot_ratings(lb, str(tmp_path / "r.png"), "a title of the caller's")  # as write_report calls it
    ax = kept[-1].axes[0]
    assert ax.get_title() == "a title of the caller's"
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("not shown to differ from the next" in t for t in texts)
    notes = [t.get_text() for t in ax.texts]  # each difference from the next, right of the plot
    assert all(lb.vs_next(r) in notes for r in lb.rows[:-1]) and "vs next" in notes


def test_bluffing_legend_is_clear_of_the_data(tmp_path, monkeypatch, meyer_result):
    pytest.importorskip("matplotlib")
    from evaluate.report import plot_bluffing

    kept = _kept_figures(monkeypatch)
    game = build_game("meyer", {"num_players": 2})
    plot_bluffing(bluffing_profile(game, meyer_result.records, meyer_result.labels), game, str(tmp_path / "b.png"))
    fig = kept[-1]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]
    assert len(legends) == 1 and len(legends[0].get_texts()) == 3
    box = legends[0].get_window_extent(renderer)
    for ax in fig.axes:  # no panel's plotting area under the legend
        assert not box.overlaps(ax.get_window_extent(renderer))


def test_the_rich_table_explains_a_widened_interval():
    pytest.importorskip("rich")
    from evaluate.ratings import WIDENED
    from evaluate.tournament import GameRecord, GameTask, winners_of

    # honest wins all 10 games: its interval is widened by the posterior and marked *
    games = [GameRecord(GameTask(0, ("a", "b"), d, r), ret, winners_of(ret), (0, 0), [], 0)
             for d in range(5) for r in range(2) for ret in [(1.0, -1.0) if r == 0 else (-1.0, 1.0)]]  # fmt: skip
    lb = leaderboard(["a", "b"], games, bootstrap=40)
    terminal = Terminal()
    print_leaderboard(lb, "", file=terminal)
    text = terminal.getvalue()
    assert "*" in text and " ".join(WIDENED.split()) in " ".join(text.split())
