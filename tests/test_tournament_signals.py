"""A tournament stopped by a signal (review F8): SIGTERM to the parent, or to its whole process
group (``timeout``, a scheduler), is handled like Ctrl-C: one line, exit 143, the worker processes
ended without a traceback, the store intact; a rerun plays the rest. A parent killed outright
(SIGKILL) takes its workers with it, silently.

Each case runs a real tournament with two worker processes in a subprocess, in a session of its
own, and signals it once games are being stored.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ["honest", "doubter", "bluffer", "random"]
DEALS = 1500  # 6 tables x 1500 deals x 2 rotations = 18 000 games: seconds of play with 2 workers
TOTAL = 6 * DEALS * 2

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups and signals of Linux")


def _cli(db: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "evaluate", "meyer", "--agents", *AGENTS, "--games", str(DEALS), "--db", str(db),
            "--workers", "2", "--quiet", "--bootstrap", "0", *extra]  # fmt: skip


def _stored(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def _children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in found]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def _signal_midway(db: Path, signum: int, group: bool) -> tuple[subprocess.CompletedProcess, list[int], int]:
    """Start the tournament, wait until it has stored some games and has its workers, signal it;
    return what it printed and its exit code, its workers' ids, and the games stored before."""
    # SIGINT's default action in the child, so that Python raises KeyboardInterrupt on it (a run
    # started in the background inherits SIGINT ignored).
    proc = subprocess.Popen(_cli(db), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    workers: list[int] = []
    try:
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None:
            workers = _children(proc.pid)
            if len(workers) >= 2 and _stored(db) >= 500:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be signalled; raise DEALS"
        before = _stored(db)
        (os.killpg if group else os.kill)(proc.pid, signum)
        out, err = proc.communicate(timeout=60)  # the pipes close once the workers are gone too
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), workers, before


def _rerun_completes(db: Path, stored: int) -> None:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        keys = conn.execute("SELECT seed, dice, table_key, deal, rotation FROM games").fetchall()
    assert len(keys) == len(set(keys)) == stored
    done = subprocess.run(_cli(db, "--json"), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["games_total"] == TOTAL and summary["games_played_now"] == TOTAL - stored
    with sqlite3.connect(db) as conn:
        keys = conn.execute("SELECT seed, dice, table_key, deal, rotation FROM games").fetchall()
    assert len(keys) == len(set(keys)) == TOTAL


@pytest.mark.parametrize("group", [False, True], ids=["parent", "group"])
def test_sigterm_stops_the_tournament_in_one_line_and_a_rerun_completes(tmp_path, group):
    db = tmp_path / "t.sqlite"
    done, workers, before = _signal_midway(db, signal.SIGTERM, group)
    assert done.returncode == 143, done.stderr
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[-1] == (f"dice-envs: terminated (SIGTERM); the games finished so far are kept in {db} and the same "
                         "command plays the rest")  # fmt: skip
    assert len(lines) <= 2  # the line, after the "games to play" line at most
    assert not any(_alive(pid) for pid in workers)
    stored = _stored(db)
    assert before <= stored < TOTAL
    _rerun_completes(db, stored)


def test_ctrl_c_says_what_was_kept_as_sigterm_does(tmp_path):
    """Ctrl-C (SIGINT to the terminal's process group) keeps the games finished so far, as SIGTERM
    does, and says so (robustness review 10, F14: it said only "interrupted")."""
    db = tmp_path / "t.sqlite"
    done, workers, before = _signal_midway(db, signal.SIGINT, group=True)
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[-1] == (f"dice-envs: interrupted; the games finished so far are kept in {db} and the same "
                         "command plays the rest")  # fmt: skip
    assert not any(_alive(pid) for pid in workers)
    stored = _stored(db)
    assert before <= stored < TOTAL
    _rerun_completes(db, stored)


def test_a_parent_killed_outright_takes_its_workers_with_it_silently(tmp_path):
    db = tmp_path / "t.sqlite"
    done, workers, _ = _signal_midway(db, signal.SIGKILL, group=False)
    assert done.returncode == -signal.SIGKILL
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(pid) for pid in workers):
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers)
    _rerun_completes(db, _stored(db))


def test_sigterm_handler_is_only_taken_where_sigterm_has_its_default_action():
    from evaluate.tournament import Terminated, sigterm_as_interrupt

    assert issubclass(Terminated, KeyboardInterrupt)
    before = signal.getsignal(signal.SIGTERM)
    if before != signal.SIG_DFL:
        pytest.skip("SIGTERM has a handler in this test process")
    with pytest.raises(Terminated):
        with sigterm_as_interrupt():
            assert signal.getsignal(signal.SIGTERM) != signal.SIG_DFL
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler raises at the next bytecode
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL

    def mine(signum, frame):
        pass

    signal.signal(signal.SIGTERM, mine)
    try:
        with sigterm_as_interrupt():
            assert signal.getsignal(signal.SIGTERM) is mine  # a program's own handler is kept
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.ray
def test_sigterm_under_ray_stops_the_tournament_in_one_line(tmp_path):
    """ray.init puts its own SIGTERM handler (sys.exit) in place of the tournament's: without
    putting ours back, the run exited with 15 and said nothing."""
    pytest.importorskip("ray")
    db = tmp_path / "t.sqlite"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    proc = subprocess.Popen(_cli(db, "--backend", "ray"), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env=env)  # fmt: skip
    try:
        deadline = time.time() + 180
        while time.time() < deadline and proc.poll() is None and _stored(db) < 500:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be signalled; raise DEALS"
        os.kill(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 143, err
    assert err.strip().splitlines()[-1] == (f"dice-envs: terminated (SIGTERM); the games finished so far are kept in "
                                            f"{db} and the same command plays the rest")  # fmt: skip
    assert "Traceback" not in err
    stored = _stored(db)
    assert 500 <= stored < TOTAL
