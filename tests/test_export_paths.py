"""``solve --export PATH`` checks PATH can be written before it solves (robustness review 10, F10):
the solve took seconds to minutes and was then lost to an errno naming a hidden temporary file."""

from __future__ import annotations

import pytest

from agents.solvers.export import export_format
from dice_envs.cli import main


def test_an_export_under_a_file_is_refused_before_the_solve(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DICE_ENVS_CACHE_DIR", str(tmp_path / "empty-cache"))
    (tmp_path / "afile").write_text("x")
    assert main(["solve", "meyer", "--lives", "1", "--export", str(tmp_path / "afile" / "s.csv")]) == 2
    err = capsys.readouterr().err
    assert f"--export {tmp_path / 'afile' / 's.csv'}: {tmp_path / 'afile'} is a file, not a directory" in err
    assert "solving" not in err  # refused before the solve
    assert not (tmp_path / "empty-cache").exists()


def test_an_export_where_nothing_can_be_written_is_an_os_error_naming_the_flag(tmp_path, monkeypatch):
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)  # as a read-only directory does, even for root
    with pytest.raises(OSError, match=r"--export .*s\.json: cannot write in .* \(Permission denied\)"):
        export_format(tmp_path / "s.json")


def test_an_export_into_missing_directories_is_accepted(tmp_path):
    assert export_format(tmp_path / "new" / "sub" / "s.csv") == "csv"
    assert not (tmp_path / "new").exists()  # made by the writer, not by the check
    assert list(tmp_path.iterdir()) == []  # the probe file is gone
