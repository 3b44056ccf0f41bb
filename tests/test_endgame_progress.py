"""The Syvere endgame build's progress on stderr (outside review): ``solve syvere --describe`` with
``--no-progress`` writes nothing to stderr (it showed a bar per phase), and into ``--cache-dir``; with
progress, a bar in a log ends on its 100% line (it stayed at the 0% it printed when it started); the
``endgame`` agent built by a command (play, match, tournament, train) announces a build in one line,
without bars, like the other solver agents; and bars open at once write no cursor moves into a log."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[1]
E = 10  # the endgame tables at elimination 10 build in about a second (test_syvere_endgame_speed.py)
SITUATION = "totals=5 6,dice=2,limit=2"


def describe(tmp_path, *flags):
    """``dice-envs solve syvere --elimination 10 --describe SITUATION`` in a process of its own (its
    tables not yet in memory), with an empty solver cache and stderr a pipe (not a terminal)."""
    env = {**os.environ, "DICE_ENVS_CACHE_DIR": str(tmp_path / "env-cache")}
    return subprocess.run(
        [sys.executable, "-m", "dice_envs", "solve", "syvere", "--elimination", str(E),
         "--describe", SITUATION, "--json", *flags],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_no_progress_hides_the_endgame_build_and_it_goes_to_the_cache_dir(tmp_path):
    out = describe(tmp_path, "--no-progress", "--cache-dir", str(tmp_path / "given"))
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stderr == ""  # no bar, no announcement
    assert '"win": {' in out.stdout.splitlines()[-1]  # the endgame values were computed
    assert sorted(p.name.split("-v")[0] for p in (tmp_path / "given").iterdir()) == ["syvere-endgame"] * 2
    assert not (tmp_path / "env-cache").exists()  # --cache-dir, not the default cache


def test_with_progress_each_phase_bar_in_a_log_ends_at_100_percent(tmp_path):
    out = describe(tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stderr.splitlines()
    assert lines[0].startswith(f"solving Syvere's best response against heuristic at elimination {E}")
    assert "\r" not in out.stderr and "\x1b" not in out.stderr
    for players in (2, 3):
        bar = [line for line in lines if line.startswith(f"solving {players} players: ")]
        assert bar and " 100% " in bar[-1], out.stderr
    # built once: a second run reads the tables and says nothing
    again = describe(tmp_path)
    assert again.returncode == 0 and again.stderr == ""


def test_the_agent_announces_a_build_without_bars(tmp_path, monkeypatch, capfd):
    from agents import spec as agent_spec
    from agents.solvers import syvere_endgame
    from dice_envs.games import syvere

    monkeypatch.setenv("DICE_ENVS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(syvere_endgame, "_TABLES", {})  # not yet loaded in this process
    agent_spec.build(syvere.Game(num_players=3, elimination=E), "endgame", seed=0)
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("solving Syvere's best response"), err
    assert len(list(tmp_path.iterdir())) == 2  # both phases kept


def test_load_tables_without_progress_says_nothing(tmp_path, monkeypatch, capfd):
    from agents.solvers import syvere_endgame
    from dice_envs.games import syvere

    monkeypatch.setattr(syvere_endgame, "_TABLES", {})
    tables = syvere_endgame.load_tables(syvere.Game(num_players=2, elimination=E), cache_dir=tmp_path)
    assert set(tables) == {"R2", "G2", "R3", "G3"} and capfd.readouterr().err == ""
    with pytest.raises(ValueError, match="next_starter='right'"):  # refused before anything is solved
        syvere_endgame.load_tables(syvere.Game(num_players=2, elimination=E + 1, next_starter="left"))


def test_bars_open_at_once_in_a_log_write_plain_lines(monkeypatch):
    pytest.importorskip("tqdm")
    from dice_envs import progress

    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    outer = progress.progress_bar(total=4, desc="outer", leave=False)
    inner = progress.progress_bar(total=3, desc="inner", leave=False)  # at position 1 on a terminal
    inner.update(3)
    inner.close()
    outer.update(4)
    outer.close()
    lines = stream.getvalue().splitlines()
    assert "\x1b" not in stream.getvalue() and all(line.split(":")[0] in ("outer", "inner") for line in lines)
    assert [line for line in lines if "100%" in line] == [lines[-2], lines[-1]]
    assert lines[-2].startswith("inner: 100% 3/3") and lines[-1].startswith("outer: 100% 4/4")
