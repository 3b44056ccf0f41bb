"""``dice-envs cache``: the solver cache listed, pruned and cleared (agents/solvers/cache.py, cache_cli.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from agents.solvers import cache, cache_cli


def test_current_versions_are_the_solvers():
    from agents.solvers import meyer, syvere, syvere_response, tenthousand, tenthousand_win

    solvers = {meyer.SOLVER: meyer.VERSION, syvere.SOLVER: syvere.VERSION, tenthousand.SOLVER: tenthousand.VERSION,
               tenthousand_win.SOLVER: tenthousand_win.VERSION,
               syvere_response.ENDGAME_SOLVER: syvere_response.ENDGAME_VERSION}  # fmt: skip
    assert cache.CURRENT_VERSIONS == solvers
    assert set(cache_cli.SOLVER_GAMES) == set(solvers)


@pytest.fixture
def filled(tmp_path):
    """A cache directory with one file of each status, and a file the cache did not write."""
    table = {"v": np.arange(1000)}
    current = cache.save("syvere-turn", 1, {"max_rolls": 3}, table, tmp_path)
    stale = cache.save("syvere-turn", 0, {"max_rolls": 3}, table, tmp_path)
    foreign = cache.save("no-such-solver", 1, {}, table, tmp_path)
    (tmp_path / "meyer_equilibrium-v2-0000000000000000.npz").write_bytes(b"not a zip")
    old_tmp = tmp_path / ".syvere-turn-v1-0123456789abcdef.npz.x1.tmp"
    old_tmp.write_bytes(b"x" * 10)
    two_hours_ago = time.time() - 7200
    os.utime(old_tmp, (two_hours_ago, two_hours_ago))
    (tmp_path / ".syvere-turn-v1-0123456789abcdef.npz.x2.tmp").write_bytes(b"y" * 20)
    (tmp_path / "notes.txt").write_text("mine")
    # A user's own files beside the tables: not the cache's names, so never listed nor removed.
    np.savez(tmp_path / "my_results.npz", a=np.arange(3))
    (tmp_path / ".editor.tmp").write_bytes(b"z")
    os.utime(tmp_path / ".editor.tmp", (two_hours_ago, two_hours_ago))
    return tmp_path, current, stale, foreign


def test_inventory_tells_each_status(filled):
    directory, current, stale, foreign = filled
    status = {e.path.name: e.status for e in cache.inventory(directory)}
    assert status == {
        current.name: "current",
        stale.name: "stale",
        foreign.name: "stale",
        "meyer_equilibrium-v2-0000000000000000.npz": "unreadable",
        ".syvere-turn-v1-0123456789abcdef.npz.x1.tmp": "leftover",
        ".syvere-turn-v1-0123456789abcdef.npz.x2.tmp": "writing",
    }
    entry = next(e for e in cache.inventory(directory) if e.path == current)
    assert (entry.solver, entry.version, entry.options, entry.size) == ("syvere-turn", 1, {"max_rolls": 3},
                                                                       current.stat().st_size)  # fmt: skip


def test_a_renamed_table_is_not_current(tmp_path):
    path = cache.save("syvere-turn", 1, {"max_rolls": 3}, {"v": np.zeros(2)}, tmp_path)
    path.rename(tmp_path / "syvere-turn-v1-ffffffffffffffff.npz")
    assert [e.status for e in cache.inventory(tmp_path)] == ["stale"]


def test_prune_removes_only_what_no_longer_serves(filled, capsys):
    directory, current, stale, foreign = filled
    freed = stale.stat().st_size + foreign.stat().st_size + len(b"not a zip") + 10
    assert cache_cli.main(["--cache-dir", str(directory), "--prune"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"removed 4 files ({cache_cli.size_text(freed)}) from {directory}"
    left = sorted(p.name for p in directory.iterdir())
    assert left == sorted([".syvere-turn-v1-0123456789abcdef.npz.x2.tmp", current.name, "notes.txt", "my_results.npz",
                           ".editor.tmp"])  # fmt: skip
    assert cache.load("syvere-turn", 1, {"max_rolls": 3}, directory)["v"].tolist() == list(range(1000))
    assert "removable" not in out


def test_clear_removes_every_table_but_not_a_file_being_written(filled, capsys):
    directory, *_ = filled
    assert cache_cli.main(["--cache-dir", str(directory), "--clear"]) == 0
    assert capsys.readouterr().out.startswith("removed 5 files")
    assert sorted(p.name for p in directory.iterdir()) == [".editor.tmp", ".syvere-turn-v1-0123456789abcdef.npz.x2.tmp",
                                                           "my_results.npz", "notes.txt"]  # fmt: skip


def test_listing_changes_nothing_and_says_what_is_removable(filled, capsys):
    directory, *_ = filled
    before = sorted(p.name for p in directory.iterdir())
    assert cache_cli.main(["--cache-dir", str(directory)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sorted(p.name for p in directory.iterdir()) == before
    assert lines[0].startswith(f"solver cache {directory}: 6 files, ")
    assert lines[1].split() == ["status", "size", "modified", "table", "options"]
    assert lines[-1].startswith("4 removable (")
    assert sum(line.startswith("current ") for line in lines) == 1


def test_json_lists_the_files(filled, capsys):
    directory, current, *_ = filled
    assert cache_cli.main(["--cache-dir", str(directory), "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out.splitlines()[-1])
    assert data["directory"] == str(directory)
    by_name = {f["file"]: f for f in data["files"]}
    assert by_name[current.name] == {"file": current.name, "status": "current", "bytes": current.stat().st_size,
                                     "modified": current.stat().st_mtime, "solver": "syvere-turn", "version": 1,
                                     "options": {"max_rolls": 3}}  # fmt: skip
    assert "solver cache" in captured.err


def test_a_missing_directory_is_an_empty_cache(tmp_path, capsys):
    assert cache_cli.main(["--cache-dir", str(tmp_path / "none"), "--prune"]) == 0
    assert capsys.readouterr().out.splitlines() == [f"removed 0 files (0 B) from {tmp_path / 'none'}",
                                                    f"solver cache {tmp_path / 'none'}: 0 files, 0 B"]  # fmt: skip


@pytest.mark.parametrize(
    ("solver", "options", "text"),
    [
        ("meyer_equilibrium", {"blind_reroll": False, "claim_rule": "at_least", "lille_meyer": True, "lives": 6,
                               "meyer_costs": 1}, "defaults"),  # fmt: skip
        ("meyer_equilibrium", {"blind_reroll": True, "claim_rule": "higher", "lille_meyer": True, "lives": 1,
                               "meyer_costs": 1}, "blind_reroll=True, claim_rule=higher, lives=1"),  # fmt: skip
        ("syvere-endgame", {"elimination": 77, "max_rolls": 2, "next_starter": "right", "opponent": "heuristic",
                            "players": 3, "ties": 0.0}, "max_rolls=2, opponent=heuristic, players=3, ties=0.0"),
    ],
)
def test_options_are_told_as_differences_from_the_defaults(solver, options, text):
    entry = cache.Entry(cache.cache_path(solver, 1, options), 0, 0.0, "current", solver, 1, options)
    assert cache_cli.options_text(entry) == text


def test_tenthousand_options_name_the_nearest_preset():
    from dice_envs.games.tenthousand import PRESETS

    no = {**PRESETS["no"], "target": 2000, "num_players": 2}
    entry = cache.Entry(cache.cache_path("tenthousand-win", 1, no), 0, 0.0, "current", "tenthousand-win", 1, no)
    assert cache_cli.options_text(entry) == "preset=no, target=2000"
    turn = {"banked": None, "cap": 20000, "opened": True, "options": {**PRESETS["farkle"], "exact_target": True}}
    entry = cache.Entry(cache.cache_path("tenthousand-turn", 1, turn), 0, 0.0, "current", "tenthousand-turn", 1, turn)
    assert cache_cli.options_text(entry) == "preset=farkle, exact_target=True, cap=20000, opened=True"


def test_size_text():
    assert [cache_cli.size_text(n) for n in (0, 1023, 1024, 1536, 60 * 2**20, 3 * 2**30)] == [
        "0 B", "1023 B", "1.0 KiB", "1.5 KiB", "60.0 MiB", "3.0 GiB"]  # fmt: skip


def test_the_command_line(filled):
    directory, *_ = filled
    run = [sys.executable, "-m", "dice_envs", "cache", "--cache-dir", str(directory)]
    listed = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and listed.stdout.startswith("solver cache ") and listed.stderr == ""
    bad = subprocess.run([*run, "syvere"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == [
        "dice-envs: cache takes no game or other arguments: 'syvere' (see `dice-envs cache --help`)"]
    both = subprocess.run([*run, "--prune", "--clear"], capture_output=True, text=True, timeout=120)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    not_dir = subprocess.run([*run[:-1], str(directory / "notes.txt")], capture_output=True, text=True, timeout=120)
    assert not_dir.returncode == 2 and "is not a directory" in not_dir.stderr
