"""The results store when its file cannot be written, is damaged, edited, of another version, copied
after a killed run, or locked (robustness review 10: F1, F2, F4, F5, F12, F13).

The permission cases (F1, F4) run their commands in a subprocess in which permission bits apply: as
any other user, or, as root (who ignores them), under ``setpriv`` with the capabilities that bypass
them dropped (as the review did); they are skipped where neither is possible. The others run in this
process: a damaged page is a seeded random write into a copy of a store, a read-only store is
SQLite's connection monkeypatched to read-only (as tests/test_store.py does), another process's lock
is another connection's.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time

import pytest

import evaluate.store as store_mod
from dice_envs.cli import main
from evaluate.store import OtherVersionStore, OutdatedStore, ResultStore, StoreDamaged, StoreUnwritable
from evaluate.tournament import run_tournament
from permissions import unprivileged_prefix

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORDS = ["tournament", "meyer", "--agents", "doubter", "honest", "--quiet", "--workers", "1"]


def _count(path: str, immutable: bool = False) -> int:
    """The games in ``path``; ``immutable``: in the file alone, not its -wal."""
    uri = f"file:{path}?mode=ro" + ("&immutable=1" if immutable else "")
    conn = sqlite3.connect(uri, uri=True)
    try:
        return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    finally:
        conn.close()


def _store(path: str, games: int = 2) -> str:
    run_tournament("meyer", ["doubter", "honest"], games=games, db=path, workers=1, progress=False)
    return path


def _as_user(tmp_path, script: str) -> dict:
    """Run ``script`` (Python; it sets ``out``, a dict) where permission bits apply; return ``out``.

    The script gets ``main`` (the CLI, returning its exit code and stderr as ``run(argv)``) and
    ``D`` (the tmp dir). It may set ``out['skip']`` when permissions do not apply after all.
    """
    prefix = unprivileged_prefix()
    head = (
        "import contextlib, io, json, os, sys\n"
        "from dice_envs.cli import main\n"
        f"D = {str(tmp_path)!r}\n"
        "def run(argv):\n"
        "    err, out_ = io.StringIO(), io.StringIO()\n"
        "    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out_):\n"
        "        code = main(argv)\n"
        "    return code, err.getvalue(), out_.getvalue()\n"
        "out = {}\n"
    )
    proc = subprocess.run(
        [*prefix, sys.executable, "-c", head + script + "\nprint(json.dumps(out))\n"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    if proc.returncode != 0 and "setpriv" in proc.stderr:
        pytest.skip(f"setpriv cannot drop capabilities here: {proc.stderr.strip()[:200]}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if out.get("skip"):
        pytest.skip(out["skip"])
    return out


def test_f1_a_store_in_a_directory_that_cannot_be_written_answers_tournament_and_replay(tmp_path):
    """docs/tournaments.md: "A store that cannot be written ... still answers a run whose games it
    holds all, and `replay` reads it" (it used to say "cannot open it (attempt to write a readonly
    database)", exit 2). A run that needs games is refused with exit 1 (a permission problem)."""
    for name in ("both", "dir"):
        (tmp_path / name).mkdir()
        _store(str(tmp_path / name / "s.sqlite"))
    os.chmod(tmp_path / "both" / "s.sqlite", 0o444)
    os.chmod(tmp_path / "both", 0o555)
    os.chmod(tmp_path / "dir", 0o555)
    try:
        out = _as_user(tmp_path, """
if os.access(os.path.join(D, "dir"), os.W_OK):
    out["skip"] = "permission bits do not apply here"
for name in ("both", "dir"):
    db = os.path.join(D, name, "s.sqlite")
    out[name] = {
        "all stored": run([*%r, "--games", "2", "--db", db]),
        "replay": run(["replay", db, "3"]),
        "needs games": run([*%r, "--games", "3", "--db", db]),
        "files": sorted(os.listdir(os.path.dirname(db))),
    }
""" % (WORDS, WORDS))
    finally:
        os.chmod(tmp_path / "both", 0o755)
        os.chmod(tmp_path / "dir", 0o755)
    for name in ("both", "dir"):
        db = str(tmp_path / name / "s.sqlite")
        res = out[name]
        code, err, stdout = res["all stored"]
        assert (code, err) == (0, ""), err
        assert "played 0 new games" in stdout and "4 were already stored" in stdout
        code, err, stdout = res["replay"]
        assert (code, err) == (0, "") and stdout.startswith(f"game 3 of {db}: dice/meyer-v0")
        code, err, _ = res["needs games"]
        assert code == 1 and err.count("\n") == 1
        assert f"--db {db} cannot be written (" in err and "2 games of this tournament are not in it" in err
        assert res["files"] == ["s.sqlite"]  # nothing left beside it
    assert "(the file is write-protected)" in out["both"]["needs games"][1]
    assert f"(its directory {tmp_path / 'dir'} is write-protected" in out["dir"]["needs games"][1]


def test_f4_reading_a_write_protected_store_leaves_no_side_files_and_leftovers_are_named(tmp_path):
    """Reading a 0444 store in a writable directory used to leave 0444 -shm/-wal files, which
    then blocked writes after the store was made writable again, under a message naming only the
    store. Now nothing is left; side files another reader left are named, with what to do."""
    db = _store(str(tmp_path / "x.sqlite"))
    os.chmod(db, 0o444)
    left = _store(str(tmp_path / "y.sqlite"))
    os.chmod(left, 0o444)
    out = _as_user(tmp_path, """
x, y = os.path.join(D, "x.sqlite"), os.path.join(D, "y.sqlite")
if os.access(x, os.W_OK):
    out["skip"] = "permission bits do not apply here"
out["replay"] = run(["replay", x, "2"])[0]
out["all stored"] = run([*%r, "--games", "2", "--db", x])[0]
out["files after reading"] = sorted(n for n in os.listdir(D) if n.startswith("x."))
import sqlite3  # another program reads y while it is write-protected: SQLite leaves its side files so
c = sqlite3.connect(y); c.execute("SELECT COUNT(*) FROM games").fetchall(); c.close()
out["left"] = sorted(n for n in os.listdir(D) if n.startswith("y."))
os.chmod(y, 0o644)  # the user makes the store writable again
out["refused"] = run([*%r, "--games", "3", "--db", y])
for side in ("-shm", "-wal"):  # as the message says
    os.remove(y + side)
out["after removing them"] = run([*%r, "--games", "3", "--db", y])
""" % (WORDS, WORDS, WORDS))
    assert out["replay"] == 0 and out["all stored"] == 0
    assert out["files after reading"] == ["x.sqlite"]
    assert out["left"] == ["y.sqlite", "y.sqlite-shm", "y.sqlite-wal"]
    code, err, _ = out["refused"]
    assert code == 1 and err.count("\n") == 1
    assert f"{left}-shm and {left}-wal beside it are write-protected" in err
    assert "remove them while no run uses the store" in err and "no games wait in them" in err
    code, err, stdout = out["after removing them"]
    assert code == 0 and "played 2 new games" in stdout, err


def _damage(src: str, dst: str, page: int, seed: int) -> None:
    shutil.copyfile(src, dst)
    with open(dst, "r+b") as handle:
        handle.seek((page - 1) * 4096)
        handle.write(random.Random(seed).randbytes(4096))


def test_f2_a_damaged_or_hand_edited_store_is_one_line_naming_it_never_an_sqlite_error(tmp_path, capsys):
    """A damaged page anywhere: every way of using the store gives a ValueError or an OSError
    naming the file (a StoreDamaged saying what to do), never sqlite3.DatabaseError (which used to
    reach the user as a traceback from open, existing_keys, records and game)."""
    clean = _store(str(tmp_path / "clean.sqlite"), games=40)
    pages = os.path.getsize(clean) // 4096
    assert pages >= 8
    specs, setting = ["doubter", "honest"], ("meyer", "dice/meyer-v0")
    options = ResultStore.open_existing(clean).meta()["options"]
    damaged_seen = 0
    for page in range(2, pages + 1):
        db = str(tmp_path / f"p{page}.sqlite")
        _damage(clean, db, page, seed=page)
        errors = []
        for step in (
            lambda: run_tournament("meyer", specs, games=40, db=db, workers=1, progress=False),
            lambda: run_tournament("meyer", specs, games=41, db=db, workers=1, progress=False),
            lambda: [ResultStore.open_existing(db).game(i) for i in range(1, 81)],
            lambda: ResultStore.open_existing(db).count(),
            lambda: ResultStore.open(db, *setting, options).existing_keys(0, "common"),
        ):
            try:
                step()
            except (ValueError, OSError) as exc:
                errors.append(exc)
            except sqlite3.Error as exc:  # the failure this test is about
                pytest.fail(f"page {page}: sqlite3 error reached the caller: {exc!r}")
        for exc in errors:
            assert db in str(exc) and "\n" not in str(exc), str(exc)
            if isinstance(exc, StoreDamaged) and "is damaged" in str(exc):
                damaged_seen += 1
                assert "move it aside and rerun the tournament" in str(exc) and ".recover" in str(exc)
    assert damaged_seen >= 3
    # Through the command line: one line, exit 2.
    db = str(tmp_path / "p8.sqlite")
    capsys.readouterr()
    codes = [main([*WORDS, "--games", "41", "--db", db])] + [main(["replay", db, str(i)]) for i in range(1, 81, 7)]
    err = capsys.readouterr().err
    assert set(codes) <= {0, 2} and 2 in codes
    assert "Traceback" not in err and all(line.startswith("dice-envs: ") for line in err.splitlines())
    # Edited by hand: a dropped column, a row or the options that are not JSON.
    edits = {
        "nocol": ["ALTER TABLE games DROP COLUMN log"],
        "badrow": ["UPDATE games SET returns = 'oops' WHERE id = 3"],
        "badmeta": ["UPDATE meta SET value = '{bad' WHERE key = 'options'"],
    }
    for name, sql in edits.items():
        db = str(tmp_path / f"{name}.sqlite")
        shutil.copyfile(clean, db)
        conn = sqlite3.connect(db)
        for statement in sql:
            conn.execute(statement)
        conn.commit()
        conn.close()
        assert main([*WORDS, "--games", "40", "--db", db]) == 2
        assert main(["replay", db, "3"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 2 and err.count(f"{db} is not a results store as dice-envs writes it (") == 2, err
        assert "changed by hand or by another program" in err


_KILLED_WRITER = """
import os, sys
import evaluate.store as store_mod
from evaluate.store import ResultStore
from evaluate.tournament import run_tournament
store_mod.CHECKPOINT_EVERY_S = 1e9
db = sys.argv[1]
more = run_tournament("meyer", ["doubter", "honest"], games=4, workers=1, progress=False).records
store = ResultStore.open(db, "meyer", "dice/meyer-v0", ResultStore.open_existing(db).meta()["options"])
store.conn.execute("PRAGMA wal_autocheckpoint = 0")
store.add(more)
os._exit(0)  # killed: its games stay in the -wal file
"""


def test_f5_the_advised_copy_holds_the_games_in_the_wal_and_a_writer_merges_it_now_and_then(tmp_path, monkeypatch):
    """After a killed run, games wait in -wal: "a copy of this one", made by cp of the file alone,
    missed them. The refusal now says how to copy (`sqlite3 DB ".backup COPY"`), and a run that
    writes merges the -wal into the file at least every CHECKPOINT_EVERY_S."""
    db = _store(str(tmp_path / "kw.sqlite"), games=2)
    subprocess.run([sys.executable, "-c", _KILLED_WRITER, db], cwd=ROOT, check=True, timeout=120)
    assert (_count(db), _count(db, immutable=True)) == (8, 4)  # the file alone lacks 4 of them
    os.chmod(db, 0o444)
    out = _as_user(tmp_path, """
import shlex, shutil, sqlite3, subprocess
db = os.path.join(D, "kw.sqlite")
if os.access(db, os.W_OK):
    out["skip"] = "permission bits do not apply here"
code, err, _ = run([*%r, "--games", "5", "--db", db])
out["refused"] = [code, err]
command = shlex.split(err.split("`")[1]) if "`" in err else ["(none)"]
if command[0] != "sqlite3":
    pass
elif shutil.which(command[0]):
    subprocess.run(command, cwd=D, check=True)
else:  # the same, by Python's sqlite3
    source, copy = sqlite3.connect(db), sqlite3.connect(os.path.join(D, "COPY.sqlite"))
    source.backup(copy)
    source.close(), copy.close()
out["command"] = command
shutil.copyfile(db, os.path.join(D, "plain.sqlite"))
""" % (WORDS,))
    code, err = out["refused"]
    assert code == 1 and err.count("\n") == 1
    assert "(the file is write-protected), and 2 games of this tournament are not in it" in err
    assert "a plain copy of the file misses the games a killed run left in its -wal file" in err
    assert out["command"] == ["sqlite3", db, ".backup COPY.sqlite"]
    assert _count(str(tmp_path / "COPY.sqlite")) == 8 and _count(str(tmp_path / "plain.sqlite"), immutable=True) == 4
    # A writer merges the -wal now and then, so that the file alone is rarely far behind.
    monkeypatch.setattr(store_mod, "CHECKPOINT_EVERY_S", 0.0, raising=False)
    fresh = _store(str(tmp_path / "fresh.sqlite"), games=1)
    more = run_tournament("meyer", ["doubter", "honest"], games=4, workers=1, progress=False).records
    reader = ResultStore.open_existing(fresh)
    writer = ResultStore.open(fresh, "meyer", "dice/meyer-v0", reader.meta()["options"])
    reader.close()
    writer.conn.execute("PRAGMA wal_autocheckpoint = 0")
    assert writer.add(more) == 6
    assert _count(fresh, immutable=True) == 8
    writer.close()


def test_f12_a_lock_held_by_another_process_is_said_while_waiting_and_at_the_end(tmp_path, monkeypatch, capsys):
    """Waiting for another process's lock used to be a silent minute, then "database is locked".
    Now it says so once after NOTICE_AFTER_MS, and the error says who holds it; the wait is still
    BUSY_TIMEOUT_MS in all."""
    db = _store(str(tmp_path / "lock.sqlite"))
    monkeypatch.setattr(store_mod, "BUSY_TIMEOUT_MS", 800)
    monkeypatch.setattr(store_mod, "NOTICE_AFTER_MS", 150, raising=False)
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    try:
        capsys.readouterr()
        start = time.monotonic()
        with pytest.raises(StoreUnwritable) as info:
            run_tournament("meyer", ["doubter", "honest"], games=3, db=db, workers=1, progress=False)
        elapsed = time.monotonic() - start
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert f"--db {db}: cannot write to it (database is locked): another process has held a lock on it" in str(info.value)
    assert not info.value.read_only  # not a read-only store: not answered from what it holds
    err = capsys.readouterr().err
    assert err == f"waiting for another process's lock on {db} (up to 0.8 s) ...\n"
    assert 0.7 <= elapsed < 5
    # A short wait says nothing.
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    store = ResultStore.open_existing(db)
    store.conn.isolation_level = None
    monkeypatch.setattr(store_mod, "BUSY_TIMEOUT_MS", 5000)
    monkeypatch.setattr(store_mod, "NOTICE_AFTER_MS", 2000, raising=False)
    import threading

    threading.Timer(0.3, lambda: other.execute("ROLLBACK")).start()
    with store_mod._transaction(store.conn, db, store._waiting):
        pass
    other.close()
    store.close()
    assert capsys.readouterr().err == ""


def test_f13_a_store_of_another_schema_version_says_which_version_wrote_it(tmp_path, capsys):
    """It used to say "holds results of another setting: schema_version '2', not '1'", and replay
    read it unchecked. Now a newer store says to upgrade, an older one is an OutdatedStore (which
    `make run` keeps aside), both for tournaments and for replay."""
    setting = ("meyer", "dice/meyer-v0")
    for version, kind, words in (("2", OtherVersionStore, "newer"), ("0", OutdatedStore, "older")):
        db = _store(str(tmp_path / f"v{version}.sqlite"))
        options = ResultStore.open_existing(db).meta()["options"]
        conn = sqlite3.connect(db)
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (version,))
        conn.commit()
        conn.close()
        for call in (ResultStore.check, ResultStore.open):
            with pytest.raises(kind, match=f"--db {db} was written by an? {words} version of dice-envs "
                                           f"\\(results schema {version}; this one reads 1\\)"):  # fmt: skip
                call(db, *setting, options)
        with pytest.raises(kind, match=f"{db} was written by an? {words} version of dice-envs"):
            ResultStore.open_existing(db)
        capsys.readouterr()
        assert main(["replay", db, "1"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{words} version of dice-envs" in err and "another setting" not in err
