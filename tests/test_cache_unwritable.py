"""A solver cache that cannot be written costs the next run its solve, not this run its result
(robustness review 10, F6): the table is used for this run, and one line says why it was not kept."""

from __future__ import annotations

import numpy as np
import pytest

from agents.solvers import cache
from agents.solvers.cache_cli import main as cache_main


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    monkeypatch.setattr(cache, "_UNWRITABLE_SAID", set())


def build():
    return {"v": np.arange(4)}


def test_a_cache_dir_that_is_a_file_gives_the_table_and_one_line(tmp_path, capsys):
    where = tmp_path / "afile"
    where.write_text("not a directory")
    for _ in range(2):
        table = cache.load_or_build("demo", 1, {"n": 4}, build, cache_dir=where)
        assert table["v"].tolist() == [0, 1, 2, 3]
    err = capsys.readouterr().err
    assert err.count("cannot be written") == 1  # once per directory, not once per table
    assert f"the solver cache {where} cannot be written (it is not a directory)" in err
    assert "DICE_ENVS_CACHE_DIR" in err
    assert where.read_text() == "not a directory"


def test_a_cache_that_refuses_the_write_keeps_nothing_and_says_why(tmp_path, capsys, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cache.tempfile, "mkstemp", refuse)  # as a read-only directory does, even for root
    table = cache.load_or_build("demo", 1, {"n": 4}, build, cache_dir=tmp_path)
    assert table["v"].tolist() == [0, 1, 2, 3]
    assert "cannot be written (Permission denied)" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing half-written left
    assert cache.save_or_warn("demo", 1, {"n": 5}, build(), cache_dir=tmp_path) is None


def test_a_cache_that_can_be_written_keeps_the_table_and_says_nothing(tmp_path, capsys):
    path = cache.save_or_warn("demo", 1, {"n": 4}, build(), cache_dir=tmp_path)
    assert path is not None and path.is_file()
    assert cache.load("demo", 1, {"n": 4}, tmp_path)["v"].tolist() == [0, 1, 2, 3]
    assert capsys.readouterr().err == ""


def test_the_cache_command_says_the_cache_dir_is_not_a_directory(tmp_path, monkeypatch):
    where = tmp_path / "afile"
    where.write_text("x")
    monkeypatch.setenv(cache.ENV_VAR, str(where))
    with pytest.raises(ValueError, match=r"is not a directory"):
        cache_main([])
    with pytest.raises(ValueError, match=r"--cache-dir .* is not a directory"):
        cache_main(["--cache-dir", str(where)])


def test_a_table_is_readable_as_any_new_file(tmp_path):
    import os

    umask = os.umask(0o022)
    try:
        path = cache.save("demo", 1, {"n": 4}, build(), cache_dir=tmp_path)
    finally:
        os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600: a team's shared cache serves everyone


def test_the_default_cache_that_is_not_a_directory_is_not_blamed_on_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(cache.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "dice-envs").write_text("x")  # the default cache directory is a file
    with pytest.raises(ValueError, match=r"the default solver cache .* is not a directory") as refused:
        cache_main([])
    assert "or set $DICE_ENVS_CACHE_DIR to another directory" in str(refused.value)
