"""The results store (issue 10, item 4): re-runs, new entrants, SIGKILL, two runs at once, bad files."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from dice_envs.cli import main
from evaluate.store import ResultStore
from evaluate.tournament import run_tournament

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def digest(path: str) -> tuple[str, float]:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest(), os.stat(path).st_mtime


def rows(path: str) -> list[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT seed, dice, table_key, deal, rotation, log, returns FROM games").fetchall()
    finally:
        conn.close()


def outcome(result) -> dict:
    return {r.task.key: (r.returns, r.log) for r in result.records}


def test_rerun_plays_only_missing_games_and_a_new_entrant_only_its_own(tmp_path):
    db = str(tmp_path / "r.sqlite")
    kw = dict(games=5, seed=2, db=db, workers=1, progress=False)
    first = run_tournament("meyer", ["honest", "bluffer"], **kw)
    assert first.played_now == 10 and len(first.records) == 10
    again = run_tournament("meyer", ["honest", "bluffer"], **kw)
    assert again.played_now == 0 and outcome(again) == outcome(first)
    more = run_tournament("meyer", ["bluffer", "honest", "random"], **kw)
    # two new pairs (random against each), 5 deals each, both seatings
    assert more.played_now == 20 and len(more.records) == 30
    assert {k: v for k, v in outcome(more).items() if k in outcome(first)} == outcome(first)
    longer = run_tournament("meyer", ["bluffer", "honest", "random"], **{**kw, "games": 7})
    assert longer.played_now == 3 * 2 * 2
    assert len(rows(db)) == 42
    # A store's contents equal what a run without a store plays.
    fresh = run_tournament("meyer", ["honest", "bluffer", "random"], games=7, seed=2, workers=1, progress=False)
    assert outcome(fresh) == outcome(longer)


@pytest.mark.parametrize("kind", ["text", "other_sqlite", "other_options", "other_game", "directory"])
def test_a_bad_db_is_a_clear_error_and_the_file_is_left_untouched(tmp_path, capsys, kind):
    path = str(tmp_path / "x.db")
    if kind == "text":
        with open(path, "w") as handle:
            handle.write("not a database\n")
    elif kind == "other_sqlite":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE people (name TEXT)")
        conn.execute("INSERT INTO people VALUES ('ada')")
        conn.commit()
        conn.close()
    elif kind in ("other_options", "other_game"):
        run_tournament("meyer", ["honest", "bluffer"], games=1, db=path, workers=1, progress=False, options={"lives": 2})
        for suffix in ("-wal", "-shm"):
            assert not os.path.exists(path + suffix)  # the store checkpoints and removes its WAL on close
    elif kind == "directory":
        os.mkdir(path)
    before = None if kind == "directory" else digest(path)
    game = "syvere" if kind == "other_game" else "meyer"
    code = main(["tournament", game, "--agents", "honest", "bluffer", "--games", "2", "--db", path, "--quiet"]
                if game == "meyer" else
                ["tournament", game, "--agents", "heuristic", "random", "--games", "2", "--db", path, "--quiet"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("dice-envs: --db") and "Traceback" not in err
    expected = {
        "text": "not a dice-envs results database",
        "other_sqlite": "not a dice-envs results database",
        "other_options": "lives 2 there, 6 here",
        "other_game": "game 'meyer', not 'syvere'",
        "directory": "is a directory",
    }[kind]
    assert expected in err
    if before is not None:
        assert digest(path) == before
    assert sorted(os.listdir(tmp_path)) == ["x.db"]


def test_an_unknown_spec_is_a_clear_error_listing_the_known_names(tmp_path, capsys):
    path = str(tmp_path / "new.sqlite")
    code = main(["tournament", "meyer", "--agents", "honest", "bluffr", "--games", "2", "--db", path])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "unknown agent 'bluffr' for meyer; choose from bluffer, doubter" in err
    assert not os.path.exists(path)  # nothing was created


def test_a_label_that_stands_for_another_agent_is_refused(tmp_path):
    path = str(tmp_path / "r.sqlite")
    run_tournament("meyer", ["bluffer", "honest"], games=1, db=path, workers=1, progress=False)
    store = ResultStore.open(path, "meyer", "dice/meyer-v0", ResultStore.open_existing(path).meta()["options"])
    store.register_agents({"bluffer": (" bluffer", None), "final": ("runs/a/final", "f" * 64)})
    with pytest.raises(ValueError, match="the label 'bluffer' stands for other SPEC 'bluffer'"):
        store.register_agents({"bluffer": ("honest", None)})
    # A retrained checkpoint under the same name: other files, same label.
    with pytest.raises(ValueError, match="the label 'final' stands for other checkpoint files"):
        store.register_agents({"final": ("runs/b/final", "0" * 64)})
    store.register_agents({"final": ("elsewhere/final", "f" * 64)})  # the same files moved: fine
    assert store.count() == 2
    store.close()


def _cli(db: str, games: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "evaluate", "syvere", "--agents", "heuristic", "random", "--games", str(games),
            "--seed", "11", "--db", db, "--workers", "1", "--quiet", "--bootstrap", "0", *extra]  # fmt: skip


def test_a_run_killed_with_sigkill_resumes_without_losing_or_duplicating_games(tmp_path):
    db = str(tmp_path / "killed.sqlite")
    games = 700  # 1400 games: about a second of play or more, so the kill lands midway
    proc = subprocess.Popen(_cli(db, games), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stored = 0
    deadline = time.time() + 60
    try:
        while time.time() < deadline and proc.poll() is None:
            if os.path.exists(db):
                try:
                    stored = len(rows(db))
                except sqlite3.Error:
                    stored = 0
                if stored >= 50:
                    break
            time.sleep(0.005)
        assert proc.poll() is None, "the run ended before it could be killed; raise `games`"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    at_kill = rows(db)
    assert 50 <= len(at_kill) < 2 * games
    done = subprocess.run(_cli(db, games, "--json"), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["games_total"] == 2 * games
    assert summary["games_played_now"] == 2 * games - len(at_kill)
    after = rows(db)
    keys = [r[:5] for r in after]
    assert len(keys) == len(set(keys)) == 2 * games
    assert set(at_kill) <= set(after)  # nothing written before the kill was lost or changed
    uninterrupted = run_tournament("syvere", ["heuristic", "random"], games=games, seed=11, workers=1, progress=False)
    assert {r.task.key: (r.returns, r.log) for r in uninterrupted.records} == {
        r[:5]: (tuple(json.loads(r[6])), json.loads(r[5])) for r in after
    }


def test_an_empty_file_becomes_a_store(tmp_path):
    path = tmp_path / "empty.sqlite"
    path.touch()
    result = run_tournament("meyer", ["honest", "bluffer"], games=1, db=str(path), workers=1, progress=False)
    assert result.played_now == 2 and len(rows(str(path))) == 2


def test_two_runs_at_once_on_one_file(tmp_path):
    db = str(tmp_path / "shared.sqlite")
    procs = [
        subprocess.Popen(_cli(db, 150), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1] for o in outs]
    keys = [r[:5] for r in rows(db)]
    assert len(keys) == len(set(keys)) == 300
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_opening_waits_for_another_run_that_holds_the_write_lock(tmp_path):
    """SQLite answers the switch to WAL with "database is locked" at once, without waiting,
    while another connection holds the write lock (CI saw it when two runs made one new file)."""
    import threading

    path = str(tmp_path / "new.sqlite")
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.5, lambda: other.execute("ROLLBACK"))
    release.start()
    started = time.monotonic()
    try:
        store = ResultStore.open(path, "meyer", "dice/meyer-v0", {"num_players": 2})
    finally:
        release.join()
        other.close()
    assert time.monotonic() - started >= 0.4  # it waited for the lock rather than racing past it
    try:
        assert store.meta()["game"] == "meyer"
        assert store.conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        store.close()


def _checkpoint(path, seed: int) -> str:
    import numpy as np

    from agents.checkpoint import save_checkpoint
    from dice_envs.games import meyer

    engine = meyer.Game(num_players=2)
    rng = np.random.default_rng(seed)
    size = len(engine.observation_low)
    layers = [(rng.normal(size=(8, size)), rng.normal(size=8))]
    action = (rng.normal(size=(engine.num_actions, 8)), rng.normal(size=engine.num_actions))
    return str(save_checkpoint(path, engine, layers, action))


def test_a_retrained_checkpoint_under_the_same_name_is_refused(tmp_path):
    import shutil

    db = str(tmp_path / "ck.sqlite")
    first = _checkpoint(tmp_path / "runs" / "a" / "final", seed=1)
    kw = dict(games=1, db=db, workers=1, progress=False)
    result = run_tournament("meyer", [first, "honest"], **kw)
    assert result.labels == ["final", "honest"] and result.played_now == 2
    moved = str(tmp_path / "elsewhere" / "final")
    shutil.copytree(first, moved)
    assert run_tournament("meyer", [moved + "/policy.safetensors", "honest"], **kw).played_now == 0
    other = _checkpoint(tmp_path / "runs" / "b" / "final", seed=2)
    with pytest.raises(ValueError, match="the label 'final' stands for other checkpoint files"):
        run_tournament("meyer", [other, "honest"], **kw)


def _as_written_before_seating(path: str) -> None:
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM meta WHERE key = 'seating'")
    conn.commit()
    conn.close()


def test_a_store_of_larger_tables_from_before_the_drawn_orders_is_refused_and_pairs_are_kept(tmp_path, capsys):
    from evaluate.store import OutdatedStore

    three = str(tmp_path / "three.sqlite")
    run_tournament("syvere", ["heuristic", "random", "optimal"], games=1, db=three, num_players=3, workers=1,
                   progress=False)  # fmt: skip
    _as_written_before_seating(three)
    before = digest(three)
    with pytest.raises(OutdatedStore, match="seated the deals of a table of three or more otherwise"):
        run_tournament("syvere", ["heuristic", "random", "optimal"], games=2, db=three, num_players=3, workers=1,
                       progress=False)  # fmt: skip
    assert digest(three) == before  # refused before anything was written
    # ... and so is one of another seating (uniform draws per deal, for a few hours of one session)
    conn = sqlite3.connect(three)
    conn.execute("INSERT INTO meta (key, value) VALUES ('seating', 'order drawn per deal')")
    conn.commit()
    conn.close()
    with pytest.raises(OutdatedStore):
        run_tournament("syvere", ["heuristic", "random", "optimal"], games=2, db=three, num_players=3, workers=1,
                       progress=False)  # fmt: skip
    _as_written_before_seating(three)
    before = digest(three)
    assert main(["tournament", "syvere", "--num-players", "3", "--agents", "heuristic", "random", "optimal",
                 "--games", "2", "--db", three, "--quiet"]) == 2  # fmt: skip
    assert "give another --db" in capsys.readouterr().err
    # Pairs are seated as they always were: an old two-player store goes on.
    two = str(tmp_path / "two.sqlite")
    run_tournament("meyer", ["honest", "bluffer"], games=1, db=two, workers=1, progress=False)
    _as_written_before_seating(two)
    again = run_tournament("meyer", ["honest", "bluffer"], games=2, db=two, workers=1, progress=False)
    assert again.played_now == 2 and len(rows(two)) == 4


def test_the_main_job_keeps_an_outdated_store_aside_and_starts_afresh(tmp_path, capsys):
    from evaluate.mainjob import run_game

    db = tmp_path / "syvere.sqlite"
    specs = ["heuristic", "random", "optimal"]
    run_tournament("syvere", specs, games=1, db=str(db), num_players=3, workers=1, progress=False)
    _as_written_before_seating(str(db))
    result, _, _ = run_game("syvere", specs, 1, str(tmp_path), 1, 0, {"num_players": 3})
    assert result.played_now == 3
    kept = [p for p in tmp_path.glob("syvere-*.sqlite")]
    assert len(kept) == 1 and len(rows(str(kept[0]))) == 3  # nothing lost
    assert "the old database is kept as" in capsys.readouterr().err


def test_a_store_that_cannot_be_written_is_one_line_and_exit_1(tmp_path, monkeypatch, capsys):
    """A read-only store (its file or its medium) or a path SQLite cannot open: one line naming the
    --db and SQLite's reason, exit 1 (the system refused), never a traceback."""
    import evaluate.store as store_mod

    db = str(tmp_path / "frozen.sqlite")
    words = ["tournament", "meyer", "--agents", "doubter", "honest", "--games", "3", "--quiet", "--workers", "1"]
    assert main([*words, "--db", db]) == 0
    before = rows(db)
    real = sqlite3.connect

    def read_only(path, **kw):  # as a file the user may not write, or a read-only mount
        if kw.get("uri"):  # the checks that only read
            return real(path, **kw)
        return real(f"file:{path}?mode=ro", uri=True, **kw)

    monkeypatch.setattr(store_mod.sqlite3, "connect", read_only)
    capsys.readouterr()
    # Every game stored: the frozen store answers the run, which prints its board.
    assert main([*words, "--db", db]) == 0
    out = capsys.readouterr().out
    assert "played 0 new games" in out and "6 were already stored" in out and "doubter" in out
    # A game to play: refused before any is played, saying why.
    assert main([*words, "--games", "4", "--db", db]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"dice-envs: --db {db} cannot be written (attempt to write a readonly database), and 2 games of this "
        "tournament are not in it: give a --db that can be written (a copy of this one plays only what it lacks)\n"
    )
    assert main([*words, "--agents", "bluffer", "honest", "--db", db]) == 1
    assert "and 'bluffer' never played in it" in capsys.readouterr().err
    monkeypatch.undo()
    assert rows(db) == before
    dangling = tmp_path / "link.sqlite"
    dangling.symlink_to(tmp_path / "no-such-dir" / "x.sqlite")
    assert main([*words, "--db", str(dangling)]) == 1
    assert "cannot write to it (unable to open database file)" in capsys.readouterr().err
    assert main([*words, "--db", "/dev/null"]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_a_full_disk_midway_keeps_the_games_written_and_says_so_in_one_line(tmp_path):
    """The file-size limit stands in for a full disk: SQLite's disk I/O error is reported, not hidden
    behind a failed ROLLBACK, and what was committed before stays intact."""
    import resource

    db = tmp_path / "full.sqlite"

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (600_000, 600_000))

    proc = subprocess.run(_cli(str(db), 2000), cwd=ROOT, preexec_fn=limit, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr[-2000:]
    assert f"--db {db}: cannot write to it (" in proc.stderr
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert 0 < conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] < 4000


def test_games_another_run_stored_first_are_not_counted_as_stored_now(tmp_path, monkeypatch, capsys):
    """Two runs at once on one file both play a game; only the first write counts, and the summary
    says how many of this run's games the other had stored (both runs used to claim them all)."""
    db = str(tmp_path / "m.sqlite")
    first = run_tournament("meyer", ["doubter", "honest"], games=5, db=db, workers=1, progress=False)
    assert first.played_now == first.stored_now == 10
    # The other run's games arrive after this run looked for them: it plays them all again.
    monkeypatch.setattr(ResultStore, "existing_keys", lambda self, seed, dice: set())
    again = run_tournament("meyer", ["doubter", "honest"], games=6, db=db, workers=1, progress=False)
    assert (again.played_now, again.stored_now) == (12, 2)
    assert [r.log for r in again.records[:10]] == [r.log for r in first.records]
    capsys.readouterr()
    assert main(["tournament", "meyer", "--agents", "doubter", "honest", "--games", "6", "--db", db, "--quiet"]) == 0
    assert "played 12 new games" in (out := capsys.readouterr().out)
    assert "(12 of the new ones were stored first by another run on the same file)" in out


def test_a_store_on_read_only_media_is_read_by_replay_and_a_run_it_answers(tmp_path, capsys):
    """Where not even SQLite's -shm file can be made (read-only media; here an immutable directory,
    which needs root's CAP_LINUX_IMMUTABLE), the store is read as immutable."""
    import shutil

    if shutil.which("chattr") is None:
        pytest.skip("no chattr")
    frozen = tmp_path / "frozen"
    frozen.mkdir()
    db = str(frozen / "m.sqlite")
    words = ["tournament", "meyer", "--agents", "doubter", "honest", "--games", "3", "--quiet", "--workers", "1"]
    assert main([*words, "--db", db]) == 0
    if subprocess.run(["chattr", "+i", db, str(frozen)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not permitted here")
    try:
        capsys.readouterr()
        assert main(["replay", db, "1"]) == 0
        assert capsys.readouterr().out.startswith(f"game 1 of {db}: dice/meyer-v0")
        assert main([*words, "--db", db]) == 0
        assert "6 were already stored" in capsys.readouterr().out
        assert main([*words, "--games", "4", "--db", db]) == 1
        assert "cannot be written (the file is write-protected)" in capsys.readouterr().err
        assert sorted(os.listdir(frozen)) == ["m.sqlite"]
    finally:
        subprocess.run(["chattr", "-i", db, str(frozen)], capture_output=True)
    # Games a killed run committed to the -wal file: reading the store as immutable would miss
    # them, so it is refused, saying what to do.
    # (The writer is a process of its own that ends without closing, as a killed run; no file may
    # be made immutable while a process has it mapped. The store is copied without its -shm.)
    killed = "import os, sqlite3, sys\nc = sqlite3.connect(sys.argv[1], isolation_level=None)\n" \
        "c.execute('PRAGMA wal_autocheckpoint = 0')\nc.execute('DELETE FROM games WHERE deal = 2')\nos._exit(0)\n"
    subprocess.run([sys.executable, "-c", killed, db], check=True)
    assert os.path.getsize(db + "-wal") > 0
    os.remove(db + "-shm")
    subprocess.run(["chattr", "+i", db, db + "-wal", str(frozen)], capture_output=True, check=True)
    try:
        assert main(["replay", db, "1"]) == 1  # the system's permissions: exit 1 (docs/cli.md)
        assert "its -wal file holds games not yet merged into it" in capsys.readouterr().err
    finally:
        subprocess.run(["chattr", "-i", db, db + "-wal", str(frozen)], capture_output=True)


def test_a_full_disk_or_a_busy_store_is_said_as_it_is_not_as_read_only(tmp_path, monkeypatch):
    """Only a store SQLite calls read-only is read as one: a full disk while a new store is made, or
    a lock held past the busy timeout, stop the run saying so (exit 1)."""
    import resource

    import evaluate.store as store_mod

    def no_room():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    new = tmp_path / "new.sqlite"
    proc = subprocess.run(_cli(str(new), 50), cwd=ROOT, preexec_fn=no_room, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert f"--db {new}: cannot write to it (" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1

    db = str(tmp_path / "busy.sqlite")
    run_tournament("meyer", ["doubter", "honest"], games=2, db=db, workers=1, progress=False)
    monkeypatch.setattr(store_mod, "BUSY_TIMEOUT_MS", 300)
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(store_mod.StoreUnwritable, match=r"cannot write to it \(database is locked\)"):
            run_tournament("meyer", ["doubter", "honest"], games=3, db=db, workers=1, progress=False)
    finally:
        other.execute("ROLLBACK")
        other.close()
