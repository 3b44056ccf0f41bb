"""A report written into a directory that holds an earlier one (robustness review 10, F11): it
does not leave the earlier report's files beside its own, and a file it fails to write keeps the
earlier whole file, not half a new one."""

from __future__ import annotations

import json
import os

import pytest

from evaluate import report as report_mod
from evaluate.ratings import leaderboard
from evaluate.report import REPORT_FILES, write_report
from evaluate.tournament import run_tournament


def written(directory, game, specs):
    result = run_tournament(game, specs, games=3, seed=1, workers=1, progress=False)
    lb = leaderboard(result.labels, result.records, bootstrap=0)
    return write_report(str(directory), result, lb)


def test_a_syvere_report_over_a_meyer_one_leaves_no_bluffing_files(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    meyer = {os.path.basename(p) for p in written(tmp_path, "meyer", ["honest", "doubter"])}
    assert {"bluffing.csv", "bluffing_by_context.csv"} <= meyer
    syvere = {os.path.basename(p) for p in written(tmp_path, "syvere", ["heuristic", "random"])}
    assert "bluffing.csv" not in syvere
    on_disk = {p.name for p in tmp_path.iterdir()}
    assert on_disk == syvere | {"notes.txt"}  # the user's own file stays; nothing of the Meyer report
    assert set(syvere) <= set(REPORT_FILES)
    assert json.loads((tmp_path / "report.json").read_text())["game"] == "syvere"


def test_a_report_that_fails_leaves_the_earlier_one_as_it_was(tmp_path, monkeypatch):
    # A Syvere report over a Meyer one fails midway (a full disk): the directory still holds the
    # Meyer report, every file as it was, and no temporary file (review 10, finding 3).
    written(tmp_path, "meyer", ["honest", "doubter"])
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report_mod, "leaderboard_markdown", broken)
    with pytest.raises(OSError, match="No space"):
        written(tmp_path, "syvere", ["heuristic", "random"])
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_report_that_cannot_be_written_names_the_file(tmp_path, monkeypatch):
    import tempfile

    real = tempfile.mkstemp

    def full(*args, **kwargs):
        if str(kwargs.get("prefix", "")).startswith(".seats.csv"):
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", full)
    with pytest.raises(OSError, match=r"cannot write .*seats\.csv \(No space left on device\)") as failed:
        written(tmp_path, "meyer", ["honest", "doubter"])
    assert f"cannot write {tmp_path / 'seats.csv'} (" in str(failed.value)  # where it was to go
    assert list(tmp_path.iterdir()) == []
