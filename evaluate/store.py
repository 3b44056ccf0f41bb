"""The results store: one SQLite file per tournament setting (a game and its options).

One row per game, keyed by (seed, dice mode, table, deal, rotation) with a ``UNIQUE`` constraint,
holding the seats, the returns, the winners, the final scores and the game's log (rolls and
actions, enough to replay it with the engine). Why it is safe to stop and to share:

* **Killed midway.** Games are written in small batches, each in one transaction: a SIGKILL loses
  at most the batch being written, never a written game, and a half-written batch is rolled back
  by SQLite on the next open.
* **Re-runs.** :meth:`ResultStore.existing_keys` tells the runner which games are already there;
  only the others are played. ``INSERT OR IGNORE`` on the unique key means a game written twice
  (two runs at once on the same file) is kept once.
* **Two runs at once.** WAL journal mode (readers never block the writer) and a busy timeout, so
  the second writer waits for the first instead of failing; after :data:`NOTICE_AFTER_MS` of
  waiting it says so once on stderr, and a lock held past :data:`BUSY_TIMEOUT_MS` ends the run
  with one line saying another process holds it.
* **Copies and a killed run.** Committed games may wait in the ``-wal`` file beside the store
  until SQLite merges them (a checkpoint: at most every :data:`CHECKPOINT_EVERY_S` seconds while
  a run writes, and when the last connection closes); a killed run can leave them there, which a
  plain copy of the ``.sqlite`` file alone misses: ``sqlite3 DB ".backup COPY"`` copies them all.
* **Stores that cannot be written** (a write-protected file or directory, read-only media, or a
  write-protected ``-shm``/``-wal`` beside it) are read as immutable, leaving no side files,
  unless games wait in their ``-wal`` file (read then through the existing ``-shm``, or refused
  saying what to do). Writing to one is refused naming the obstacle (:class:`StoreUnwritable`).
* **Damaged or edited files.** A damaged page, a column dropped by hand or bad JSON in a row
  anywhere (opening, reading, writing) is a :class:`StoreDamaged` naming the file and the way out
  (move it aside and rerun; or ``sqlite3 DB .recover``), never an SQLite traceback; a store of
  another results schema says it was written by another version of dice-envs
  (:class:`OtherVersionStore`).
* **The wrong file.** A path that is not a SQLite file, or a SQLite file with tables but not this
  store's, or one written for another game, other options or another env version, is refused
  with a ``ValueError`` before anything is written to it (it is only read to be checked); so is a
  store of tables of three or more written under another seating of the deals (``SEATING``; before
  deals went round the table's cyclic orders, one fixed order seated them all), as
  :class:`OutdatedStore`: its games sit under the same keys with other seatings. An empty
  file or an SQLite database without tables holds nothing to lose and becomes a store (a second
  run starting on a new path may find it so, while the first is creating the store).

**What a row holds.** The ``meta`` table holds the setting (``game``, ``env_id``, ``options`` as
JSON: every option the engine plays by, ``num_players`` included), the ``agents`` table each
entrant's label, SPEC and checkpoint fingerprint, and the ``games`` table one row per game:

* ``seed``, ``dice`` (``common`` or ``independent``), ``table_key`` (the table's labels joined by
  ``|``), ``deal``, ``rotation``: the game's key (``evaluate.tournament.GameTask.key``).
* ``seats``: a JSON list of the entrants' labels by seat (``seats[0]`` played ``player_0``).
* ``returns`` (C-3, by seat), ``winners`` (the winning seats; every seat in a full tie),
  ``scores`` (the final standing by seat: points, or lives in Meyer): JSON lists.
* ``num_actions``: the decisions taken; ``created``: when the row was written (Unix time).
* ``log``: the whole game, a JSON list of its events in order, in which **a string is a roll and
  an integer an action**. A roll is its faces in ascending order, as docs/rules.md writes dice
  (``"224566"``; as many dice as the engine's ``num_dice_to_roll`` at that moment; in Meyer
  every roll in full, the ones hidden under the cup too); an action is the engine's action id
  (``game.action_to_string(state, id)`` names it: ``"keep 15 roll"``). Whose event it is is not
  stored: it is the engine's ``current_player`` in the state before it.

The log replays through the engine built from the store's options:
``evaluate.tournament.replay_states(game, log)`` yields ``(event, state_before, state_after)``
for every event (a ``ValueError`` for a log that does not fit the game), and
``replay_final_state(game, log)`` the end. Any statistic a report does not give (bust rates,
the decisions in chosen situations) is read from the states; ``dice-envs replay DB GAME_ID``
prints them.

Example:
    >>> import os, shutil, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "results.sqlite")
    >>> store = ResultStore.open(path, "syvere", "dice/syvere-v0", {"num_players": 2}, create=True)
    >>> store.count()
    0
    >>> store.close()
    >>> shutil.rmtree(os.path.dirname(path))

    Reading a stored game back, event by event (here: who rolled what in a game of 10 000):

    >>> from evaluate.tournament import build_game, replay_states, run_tournament
    >>> path = os.path.join(tempfile.mkdtemp(), "tt.sqlite")
    >>> _ = run_tournament("tenthousand", ["heuristic", "greedy"], games=1, db=path, workers=1, progress=False)
    >>> store = ResultStore.open_existing(path)
    >>> game = build_game(store.meta()["game"], store.meta()["options"])
    >>> row = store.game(1)
    >>> store.close()
    >>> row["seats"], type(row["log"][0]), type(row["log"][1])
    (['greedy', 'heuristic'], <class 'str'>, <class 'int'>)
    >>> event, before, after = next(replay_states(game, row["log"]))
    >>> game.current_player(before), event == "".join(map(str, after.roll))
    (0, True)
    >>> shutil.rmtree(os.path.dirname(path))
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sqlite3
import sys
import time
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:  # for the annotations only: the code imports evaluate.tournament where it needs it
    from evaluate.tournament import GameRecord

FORMAT = "dice-envs tournament results"
SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 60_000
#: After this long waiting for another process's lock, say so (once) on stderr.
NOTICE_AFTER_MS = 2_000
#: A run that writes merges the -wal file into the store at least this often (a passive checkpoint).
CHECKPOINT_EVERY_S = 10.0


class StoreUnwritable(OSError):
    """The results store cannot be written: a read-only file or medium, a full disk, an I/O error,
    a lock held too long (an ``OSError``: the command line exits with 1 and this one line).
    ``reason`` is SQLite's words, or what stands in the way (a write-protected file)."""

    def __init__(self, message: str, reason: str = "", read_only: bool | None = None):
        super().__init__(message)
        self.reason = reason
        self._read_only = read_only  # None: as the reason says

    @property
    def read_only(self) -> bool:
        """Whether SQLite refused because the file or its medium is read-only (not a full disk,
        an I/O error or a lock held by another run)."""
        if self._read_only is not None:
            return self._read_only
        return "readonly" in self.reason or "unable to open" in self.reason


class StoreDamaged(ValueError):
    """A results store that SQLite finds damaged (a malformed page), or that was changed by hand
    (a dropped column, a row that is not JSON): exit 2 with one line naming the file and the way out."""


class OtherVersionStore(ValueError):
    """A results store written by another version of dice-envs (another results schema)."""


class OutdatedStore(OtherVersionStore):
    """A results store written by an older dice-envs: another results schema, or tables of three or
    more under another seating of the deals (``evaluate.tournament.SEATING``), whose keys hold
    other seatings there."""


def _errorname(exc: BaseException) -> str:
    return getattr(exc, "sqlite_errorname", None) or ""


def _is_busy(exc: BaseException) -> bool:
    """A lock held by another connection (SQLITE_BUSY, SQLITE_LOCKED)."""
    name = _errorname(exc)
    if name:
        return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))
    return "locked" in str(exc) or "busy" in str(exc)


def _is_read_only_error(exc: BaseException) -> bool:
    """SQLite could not open or write the file for want of write access (SQLITE_READONLY_*,
    SQLITE_CANTOPEN): the read-only-media and write-protected cases."""
    name = _errorname(exc)
    if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")):
        return True
    return "readonly" in str(exc) or "unable to open" in str(exc)


def _kind_of(exc: sqlite3.Error) -> str:
    """What an SQLite error says about the store: ``damaged`` (a malformed page), ``edited`` (its
    tables are not as this version writes them: a column or table dropped by hand), ``busy`` (a
    lock held past the timeout), ``bug`` (a programming error: shown as it is) or ``system``
    (read-only, full disk, I/O error)."""
    if isinstance(exc, (sqlite3.ProgrammingError, sqlite3.InterfaceError)):
        return "bug"
    if not isinstance(exc, sqlite3.DatabaseError):
        return "bug"
    name, text = _errorname(exc), str(exc)
    if name.startswith("SQLITE_CORRUPT") or name == "SQLITE_NOTADB":
        return "damaged"
    if "malformed" in text or "not a database" in text:  # Python < 3.11: no sqlite_errorname
        return "damaged"
    if any(words in text for words in ("no such column", "no such table", "has no column", "no such index")):
        return "edited"
    if isinstance(exc, sqlite3.IntegrityError):  # a constraint this store's tables do not have
        return "edited"
    if _is_busy(exc):
        return "busy"
    if isinstance(exc, sqlite3.OperationalError):
        return "system"
    return "damaged"  # another DatabaseError (DataError, InternalError): SQLite could not use the file


def _damaged(name: str, path: str, detail: str) -> StoreDamaged:
    quoted = shlex.quote(path)
    return StoreDamaged(
        f"{name} is damaged ({detail}): move it aside and rerun the tournament, which plays its games again; "
        f"or first rescue the games it still holds into a new store, with `sqlite3 {quoted} .recover | sqlite3 "
        f"NEW.sqlite` (where sqlite3 lacks .recover: `sqlite3 {quoted} .dump | sed 's/^ROLLBACK; -- due to "
        "errors/COMMIT;/' | sqlite3 NEW.sqlite`), and rerun with --db NEW.sqlite, which plays only the rest"
    )


def _edited(name: str, detail: str) -> StoreDamaged:
    return StoreDamaged(
        f"{name} is not a results store as dice-envs writes it ({detail}): it was changed by hand or by "
        "another program; move it aside and rerun the tournament, which plays its games again"
    )


def _store_error(exc: sqlite3.Error, name: str, path: str, doing: str) -> Exception:
    """The error to raise for SQLite's ``exc`` met while ``doing`` (``"write to"``, ``"read"``) the
    store at ``path``, called ``name`` in messages (``--db PATH`` or ``PATH``); ``exc`` itself for
    a programming error."""
    kind = _kind_of(exc)
    if kind == "bug":
        return exc
    if kind == "damaged":
        return _damaged(name, path, str(exc))
    if kind == "edited":
        return _edited(name, str(exc))
    if kind == "busy":
        return StoreUnwritable(
            f"{name}: cannot {doing} it ({exc}): another process has held a lock on it for "
            f"{BUSY_TIMEOUT_MS / 1000:g} s (another run on this file, or an open sqlite3 shell); run again "
            "when it has ended, or give another --db",
            reason=str(exc),
            read_only=False,
        )
    return StoreUnwritable(f"{name}: cannot {doing} it ({exc})", reason=str(exc))


@contextlib.contextmanager
def _sqlite_errors(path: str, name: str | None = None, doing: str = "write to"):
    """Turn SQLite's errors into one line naming the file: :class:`StoreUnwritable` for a read-only
    database, a disk I/O error, a full disk or a lock held past the busy timeout;
    :class:`StoreDamaged` for a damaged or hand-edited store."""
    try:
        yield
    except sqlite3.Error as exc:
        error = _store_error(exc, name or f"--db {path}", path, doing)
        if error is exc:
            raise
        raise error from None


def _bad_json(name: str, what: str, exc: Exception) -> StoreDamaged:
    return _edited(name, f"bad data in {what}: {exc}")


class _Waiting:
    """Says once, on stderr, that a lock held by another process is being waited for."""

    def __init__(self, path: str):
        self.path = path
        self.said = False

    def say(self) -> None:
        if not self.said:
            self.said = True
            print(
                f"waiting for another process's lock on {self.path} (up to {BUSY_TIMEOUT_MS / 1000:g} s) ...",
                file=sys.stderr,
                flush=True,
            )


def _wait_for_lock(conn: sqlite3.Connection, action, waiting: _Waiting):
    """``action()`` (a statement that may wait for another process's lock), waiting up to the busy
    timeout as SQLite does, but saying so after :data:`NOTICE_AFTER_MS`."""
    total = BUSY_TIMEOUT_MS
    first = min(NOTICE_AFTER_MS, total)
    if first >= total:
        return action()
    conn.execute(f"PRAGMA busy_timeout = {int(first)}")
    try:
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc):
                raise
        waiting.say()
        conn.execute(f"PRAGMA busy_timeout = {int(total - first)}")
        return action()
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.execute(f"PRAGMA busy_timeout = {int(total)}")


@contextlib.contextmanager
def _transaction(
    conn: sqlite3.Connection, path: str, waiting: _Waiting | None = None, name: str | None = None
):
    """``BEGIN IMMEDIATE`` ... ``COMMIT``; on any error a rollback, if SQLite has not already rolled
    back (after an I/O error it has, and a second ``ROLLBACK`` would hide the first error)."""
    with _sqlite_errors(path, name):
        _wait_for_lock(conn, lambda: conn.execute("BEGIN IMMEDIATE"), waiting or _Waiting(path))
        try:
            yield
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise


def _switch_to_wal(conn: sqlite3.Connection, waiting: _Waiting | None = None) -> None:
    """Put the file in WAL mode, waiting for another run that holds a lock on it.

    Switching the journal mode needs an exclusive lock, and SQLite may answer "database is
    locked" at once instead of calling the busy handler (two runs opening one new file at the
    same moment: seen in CI). So wait here, up to the busy timeout, as a locked write would.
    """
    start = time.monotonic()
    deadline = start + BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc):
                raise
            if time.monotonic() >= deadline:
                raise
            if waiting is not None and time.monotonic() - start >= NOTICE_AFTER_MS / 1000:
                waiting.say()
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS agents (
    label TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    fingerprint TEXT
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    seed INTEGER NOT NULL,
    dice TEXT NOT NULL,
    table_key TEXT NOT NULL,
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seats TEXT NOT NULL,
    returns TEXT NOT NULL,
    winners TEXT NOT NULL,
    scores TEXT NOT NULL,
    num_actions INTEGER NOT NULL,
    log TEXT NOT NULL,
    created REAL NOT NULL,
    UNIQUE (seed, dice, table_key, deal, rotation)
);
"""


#: One encoder for every row: ``json.dumps`` would build a new one per call, which was a tenth
#: of the parent's time in a tournament of short games.
_dumps = json.JSONEncoder(separators=(",", ":"), sort_keys=True).encode
_dumps_log = json.JSONEncoder(separators=(",", ":")).encode


def _uri(path: str, mode: str) -> str:
    """An SQLite URI for ``path`` opened in ``mode`` (``ro``, ``rw``); see sqlite.org/uri.html."""
    quoted = os.path.abspath(path).replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return f"file:{quoted}?mode={mode}"


def _pending_wal(path: str) -> bool:
    """Whether committed pages may wait in ``path``'s -wal file (a killed run's games, or a run
    writing now): a non-empty -wal, which an immutable reading would not see."""
    wal = path + "-wal"
    return os.path.isfile(wal) and os.path.getsize(wal) > 0


def _on_read_only_media(path: str) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows)
        return False


def _write_obstacle(path: str) -> tuple[str, str | None] | None:
    """What keeps this process from writing the existing store at ``path``, as the system's
    permissions tell (``os.access``: read-only media and immutable files too): ``(reason, advice)``,
    the advice ``None`` where it is "give a --db that can be written"; ``None`` if nothing does.

    Asked before SQLite opens the file: a read-only SQLite connection to a WAL database would make
    -wal and -shm files beside a write-protected file, and leave them there, write-protected too.
    """

    directory = os.path.dirname(os.path.abspath(path))
    if _on_read_only_media(directory):
        return "it is on a read-only file system", None
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return "the file is write-protected", None
    side = [path + "-shm", path + "-wal"]
    protected = [name for name in side if os.path.exists(name) and not os.access(name, os.W_OK)]
    if protected:
        names = " and ".join(protected)
        quoted = " ".join(shlex.quote(name) for name in protected)
        them, files, are = ("them", "files", "are") if len(protected) > 1 else ("it", "file", "is")
        if _pending_wal(path):
            advice = f"make {them} writable (`chmod u+w {quoted}`; games wait in the -wal file) and run again"
        else:
            advice = (
                f"remove {them} while no run uses the store (`rm {quoted}`; no games wait in them) and run again"
            )
        return f"SQLite's side {files} {names} beside it {are} write-protected", advice
    if not os.access(directory, os.W_OK) and not all(os.path.exists(name) for name in side):
        reason = f"its directory {directory} is write-protected, and SQLite makes its -wal and -shm files there"
        return reason, None
    return None


def _connect_to_read(path: str) -> sqlite3.Connection:
    """A connection that reads ``path`` and never creates it, nor leaves files beside it.

    Where this process may write the store (:func:`_write_obstacle`): read-write but not create,
    and only read (SQLite removes the -wal and -shm files on close). Where it may not (a
    write-protected file, directory or side file, read-only media), or SQLite finds so: read as
    immutable, which makes no -shm file, unless games wait in its -wal file (a killed run's), which
    immutable reading would miss: those are read through SQLite's read-only WAL access where the
    -shm file is there, and otherwise refused (:class:`StoreUnwritable`) saying what to do.
    """
    obstacle = _write_obstacle(path)
    if obstacle is None:
        conn = sqlite3.connect(_uri(path, "rw"), uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            _wait_for_lock(
                conn, lambda: conn.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall(), _Waiting(path)
            )
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if not _is_read_only_error(exc):
                raise
            reason = str(exc)
        except BaseException:
            conn.close()
            raise
    else:
        reason = obstacle[0]
    if not _pending_wal(path):
        return sqlite3.connect(_uri(path, "ro") + "&immutable=1", uri=True)
    try:
        conn = sqlite3.connect(_uri(path, "ro"), uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            conn.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
        except BaseException:
            conn.close()
            raise
        return conn
    except sqlite3.OperationalError as exc:
        if not _is_read_only_error(exc):
            raise

    quoted = shlex.quote(path)
    raise StoreUnwritable(
        f"{path} cannot be read here: its -wal file holds games not yet merged into it (a run was killed), "
        f"which SQLite cannot read where it cannot write ({reason}): open it once where it can be written, "
        f"or copy it together with its -wal file (`cp {quoted} {quoted}-wal DIR/`, keeping their names) "
        "and use the copy",
        reason=reason,
        read_only=True,
    )


def _other_version(name: str, found) -> OtherVersionStore:
    """The error for a store whose ``schema_version`` is ``found``, not :data:`SCHEMA_VERSION`:
    written by a newer dice-envs (:class:`OtherVersionStore`), an older one (:class:`OutdatedStore`:
    ``make run`` keeps such a store aside and starts afresh), or another."""
    tournament = name.startswith("--db ")
    try:
        theirs = int(found)
    except (TypeError, ValueError):
        theirs = None
    schema = f"results schema {found if found is not None else '(none)'}; this one reads {SCHEMA_VERSION}"
    if theirs is not None and theirs > SCHEMA_VERSION:
        return OtherVersionStore(
            f"{name} was written by a newer version of dice-envs ({schema}): upgrade dice-envs to "
            + ("use it, or give another --db" if tournament else "read it")
        )
    instead = "give another --db" if tournament else "read it with the dice-envs that wrote it"
    if found is None or theirs is not None:
        return OutdatedStore(
            f"{name} was written by an older version of dice-envs ({schema}), which laid out its rows "
            f"otherwise: {instead}"
        )
    return OtherVersionStore(f"{name} was written by another version of dice-envs ({schema}): {instead}")


def _check_existing(path: str, expected: dict[str, str]) -> None:
    """Refuse a file that is not a results store of this setting, touching nothing."""
    what = f"--db {path}"
    if not os.path.isfile(path):
        raise ValueError(f"{what} is not a dice-envs results database (not a regular file)")
    try:
        with open(path, "rb") as handle:
            header = handle.read(16)
    except OSError as exc:  # permissions: the system refuses (exit 1)
        raise OSError(f"{what}: cannot read it ({exc.strerror or exc})") from None
    if header == b"":
        return  # an empty file is an empty SQLite database (another run may just have made it)
    if header != b"SQLite format 3\x00":
        raise ValueError(f"{what} is not a dice-envs results database (not an SQLite file)")
    try:
        conn = _connect_to_read(path)
    except sqlite3.Error as exc:
        if _kind_of(exc) in ("damaged", "busy"):
            raise _store_error(exc, what, path, "read") from None
        raise ValueError(f"{what}: cannot open it ({exc})") from None
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            return  # an empty database: nothing to lose (or another run is creating the store now)
        if "meta" not in tables or "games" not in tables:
            raise ValueError(
                f"{what} is not a dice-envs results database (an SQLite file without its tables); "
                "give a new path or a results database"
            )
        meta = dict(conn.execute("SELECT key, value FROM meta"))
    except sqlite3.Error as exc:  # an SQLite header, then a damaged page
        error = _store_error(exc, what, path, "read")
        if error is exc:
            raise
        raise error from None
    finally:
        conn.close()
    if meta.get("format") != FORMAT:
        raise ValueError(f"{what} is not a dice-envs results database (format {meta.get('format')!r})")
    if meta.get("schema_version") != expected["schema_version"]:
        raise _other_version(what, meta.get("schema_version"))
    for key in ("game", "env_id", "options"):
        if meta.get(key) != expected[key]:
            if key == "options":
                try:
                    theirs, ours = json.loads(meta[key]), json.loads(expected[key])
                    if not isinstance(theirs, dict):
                        raise TypeError(f"not a JSON object: {meta[key][:60]!r}")
                except (KeyError, TypeError, ValueError) as exc:
                    raise _bad_json(what, "the options in its meta table", exc) from None
                diff = ", ".join(
                    f"{name} {theirs.get(name, '(none)')!r} there, {ours.get(name, '(none)')!r} here"
                    for name in sorted(set(theirs) | set(ours))
                    if theirs.get(name) != ours.get(name)
                )
                found = f"other game options ({diff})"
            else:
                found = f"{key} {meta.get(key)!r}, not {expected[key]!r}"
            raise ValueError(
                f"{what} holds results of another setting: {found}; give another --db "
                "(a results database holds one game with one set of options)"
            )
    if json.loads(expected["options"]).get("num_players", 2) > 2 and meta.get("seating") != expected["seating"]:
        # Pairs are seated as they always were; larger tables go round their orders (SEATING).
        raise OutdatedStore(
            f"{what} was written by an older dice-envs, which seated the deals of a table of three or more "
            "otherwise; its games would be mixed with differently seated ones: give another --db"
        )


def _expected(game: str, env_id: str, options: dict) -> dict[str, str]:
    from evaluate.tournament import SEATING

    return {
        "format": FORMAT,
        "schema_version": str(SCHEMA_VERSION),
        "game": game,
        "env_id": env_id,
        "options": _dumps(options),
        "seating": SEATING,
    }


class ResultStore:
    """A results store on one SQLite file (see the module docstring)."""

    def __init__(
        self, conn: sqlite3.Connection, path: str, read_only: str | None = None, name: str | None = None
    ):
        self.conn = conn
        self.path = path
        #: why the store cannot be written (SQLite's words), or None: see :meth:`open_read_only`.
        self.read_only = read_only
        #: how messages name it: ``--db PATH`` in a tournament, the path in ``replay``
        self.name = name or f"--db {path}"
        self._waiting = _Waiting(path)
        self._writer = False  # opened by :meth:`open`: merges its -wal file now and then
        self._checkpointed = time.monotonic()

    @contextlib.contextmanager
    def _reading(self):
        """SQLite's errors while reading, as one line naming the file (:func:`_store_error`)."""
        with _sqlite_errors(self.path, self.name, "read"):
            yield

    @classmethod
    def check(cls, path: str, game: str, env_id: str, options: dict) -> None:
        """Refuse (``ValueError``) an existing ``path`` that is not this setting's store; read-only.

        A missing path passes: :meth:`open` will create it.
        """
        if os.path.isdir(path):
            raise ValueError(f"--db {path} is a directory; give a file path")
        if os.path.exists(path):
            _check_existing(path, _expected(game, env_id, options))

    @classmethod
    def open(cls, path: str, game: str, env_id: str, options: dict, create: bool = True) -> "ResultStore":
        """Open (or create) the store of ``game`` with ``options`` at ``path``.

        Args:
            path: the SQLite file.
            game: the game's short name.
            env_id: its env's registry id, version included (a new version plays other games).
            options: the engine's effective options (``evaluate.tournament.effective_options``).
            create: create the file if it does not exist.

        Raises:
            ValueError: the file is not a results store, or holds another setting
                (:class:`OtherVersionStore`: written by another version), or is damaged
                (:class:`StoreDamaged`); it is left as it was.
            StoreUnwritable: it cannot be written (a write-protected file, directory or side
                file, read-only media: refused before SQLite opens it, so that it leaves no side
                files; a full disk, an I/O error, a lock held too long); so do
                :meth:`register_agents` and :meth:`add`.
        """
        expected = _expected(game, env_id, options)
        exists = os.path.exists(path)
        if os.path.isdir(path):
            raise ValueError(f"--db {path} is a directory; give a file path")
        if exists:
            _check_existing(path, expected)
            obstacle = _write_obstacle(path)
            if obstacle is not None:
                reason, advice = obstacle
                raise StoreUnwritable(
                    f"--db {path}: cannot write to it ({reason})" + (f": {advice}" if advice else ""),
                    reason=reason,
                    read_only=True,
                )
        elif not create:
            raise ValueError(f"--db {path} does not exist")
        else:
            parent = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(parent):
                os.makedirs(parent, exist_ok=True)
        waiting = _Waiting(path)
        with _sqlite_errors(path):
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            with _sqlite_errors(path):
                conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                _switch_to_wal(conn, waiting)
                conn.execute("PRAGMA synchronous = NORMAL")
            # Two runs creating the same new file: the first to take the write lock makes the
            # tables and the meta rows; the other then finds them and checks them.
            with _transaction(conn, path, waiting):
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.executemany("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", expected.items())
                meta = dict(conn.execute("SELECT key, value FROM meta"))
        except BaseException:
            conn.close()
            raise
        for key, value in expected.items():
            if meta.get(key) != value:
                conn.close()
                raise ValueError(f"--db {path}: another run wrote {key}={meta.get(key)} into it at the same time")
        store = cls(conn, path)
        store._waiting = waiting
        store._writer = True
        return store

    @classmethod
    def open_read_only(cls, path: str, game: str, env_id: str, options: dict, reason: str) -> "ResultStore":
        """Open an existing store of this setting that cannot be written (a write-protected file,
        read-only media), to read the games it holds: a tournament whose games are all stored
        prints its board from it. ``reason`` says why it cannot be written.

        Raises:
            ValueError: it is not this setting's store.
        """
        _check_existing(path, _expected(game, env_id, options))
        store = cls.open_existing(path)
        store.name = f"--db {path}"
        store.read_only = reason
        return store

    def refuse_writes(self, what: str) -> None:
        """Raise :class:`StoreUnwritable` if this store is read-only, saying ``what`` needed a write,
        and what to do: remove or free what stands in the way where that is a side file SQLite
        left, or else write to a copy, made so as to hold every game (:func:`_pending_wal`)."""
        if self.read_only is None:
            return
        obstacle = _write_obstacle(self.path)
        advice = obstacle[1] if obstacle is not None else None
        if advice is None:
            advice = "give a --db that can be written (a copy of this one plays only what it lacks"
            if _pending_wal(self.path):
                command = f'sqlite3 {shlex.quote(self.path)} ".backup COPY.sqlite"'
                advice += (
                    f": make it with `{command}`, as a plain copy of the file misses the games a killed run "
                    "left in its -wal file)"
                )
            else:
                advice += ")"
        raise StoreUnwritable(
            f"--db {self.path} cannot be written ({self.read_only}), and {what}: {advice}",
            reason=self.read_only,
            read_only=True,
        )

    @classmethod
    def open_existing(cls, path: str) -> "ResultStore":
        """Open a store to read it (``replay``, reports), whatever its setting.

        Raises:
            ValueError: not a results store, a damaged one (:class:`StoreDamaged`), or one written
                by another version of dice-envs (:class:`OtherVersionStore`).
            OSError: it cannot be read (permissions; games waiting in the -wal file of a store
                that cannot be written, :class:`StoreUnwritable`).
        """
        if os.path.isdir(path):
            raise ValueError(f"{path} is a directory, not a results database (give the SQLite file)")
        if not os.path.exists(path):
            raise ValueError(f"{path}: no such file (give the results database a tournament wrote with --db)")
        if not os.path.isfile(path):
            raise ValueError(f"{path} is not a results database (not a regular file)")
        try:
            with open(path, "rb") as handle:
                header = handle.read(16)
        except OSError as exc:  # permissions: the system refuses (exit 1)
            raise OSError(f"{path}: cannot read it ({exc.strerror or exc})") from None
        if header != b"SQLite format 3\x00":
            raise ValueError(f"{path} is not a dice-envs results database (not an SQLite file)")
        try:
            conn = _connect_to_read(path)
        except sqlite3.Error as exc:
            if _kind_of(exc) in ("damaged", "busy"):
                raise _store_error(exc, path, path, "read") from None
            raise ValueError(f"{path}: cannot open it ({exc})") from None
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            conn.execute("SELECT id FROM games LIMIT 1").fetchall()
        except sqlite3.Error as exc:
            conn.close()
            if "no such table" in str(exc):
                raise ValueError(f"{path} is not a dice-envs results database ({exc})") from None
            error = _store_error(exc, path, path, "read")
            if error is exc:
                raise
            raise error from None
        if meta.get("format") != FORMAT:
            conn.close()
            raise ValueError(f"{path} is not a dice-envs results database")
        if meta.get("schema_version") != str(SCHEMA_VERSION):  # its rows may be laid out otherwise
            conn.close()
            raise _other_version(path, meta.get("schema_version"))
        return cls(conn, path, name=path)

    # -- reading ----------------------------------------------------------------------------
    def meta(self) -> dict:
        """The store's setting: ``game``, ``env_id``, ``options`` (a dict) and the format."""
        with self._reading():
            meta = dict(self.conn.execute("SELECT key, value FROM meta"))
        try:
            meta["options"] = json.loads(meta["options"])
            if not isinstance(meta["options"], dict):
                raise TypeError("not a JSON object")
        except (KeyError, TypeError, ValueError) as exc:
            raise _bad_json(self.name, "the options in its meta table", exc) from None
        return meta

    def count(self) -> int:
        """How many games the store holds."""
        with self._reading():
            return self.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def agents(self) -> dict[str, tuple[str, str | None]]:
        """label -> (spec, fingerprint) of every entrant that ever played in this store."""
        with self._reading():
            rows = self.conn.execute("SELECT label, spec, fingerprint FROM agents").fetchall()
        return {label: (spec, fp) for label, spec, fp in rows}

    def existing_keys(self, seed: int, dice: str) -> set[tuple]:
        """The keys (as ``GameTask.key``) of the stored games with this seed and dice mode."""
        with self._reading():
            rows = self.conn.execute(
                "SELECT seed, dice, table_key, deal, rotation FROM games WHERE seed = ? AND dice = ?", (seed, dice)
            )
            return {tuple(row) for row in rows}

    def records(self, tasks: Sequence) -> dict[tuple, GameRecord]:
        """The stored games of these tasks, as ``GameRecord``s keyed by ``task.key``."""
        from evaluate.tournament import GameRecord

        wanted = {task.key: task for task in tasks}
        seeds_dice = {(task.seed, task.dice) for task in tasks}
        result = {}
        with self._reading():
            for seed, dice in seeds_dice:
                rows = self.conn.execute(
                    "SELECT seed, dice, table_key, deal, rotation, returns, winners, scores, log, num_actions, id "
                    "FROM games WHERE seed = ? AND dice = ?",
                    (seed, dice),
                )
                for row in rows:
                    key = tuple(row[:5])
                    task = wanted.get(key)
                    if task is None:
                        continue
                    try:
                        returns, winners, scores, log = (json.loads(x) for x in row[5:9])
                        record = GameRecord(task, tuple(returns), tuple(winners), tuple(scores), log, row[9])
                    except (TypeError, ValueError) as exc:
                        raise _bad_json(self.name, f"the row of game {row[10]}", exc) from None
                    result[key] = record
        return result

    def game(self, game_id: int) -> dict:
        """One stored game by its id, with its columns decoded."""
        with self._reading():
            row = self.conn.execute(
                "SELECT id, seed, dice, table_key, deal, rotation, seats, returns, winners, scores, num_actions, log "
                "FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
        if row is None:
            total = self.count()
            raise ValueError(f"no game with id {game_id} in {self.path} (it holds {total} games, ids from 1)")
        names = ("id", "seed", "dice", "table_key", "deal", "rotation", "seats", "returns", "winners", "scores",
                 "num_actions", "log")  # fmt: skip
        game = dict(zip(names, row))
        for key in ("seats", "returns", "winners", "scores", "log"):
            try:
                game[key] = json.loads(game[key])
                if not isinstance(game[key], list):
                    raise TypeError(f"not a JSON list: {str(row[names.index(key)])[:60]!r}")
            except (TypeError, ValueError) as exc:
                raise _bad_json(self.name, f"the {key} of game {game_id}", exc) from None
        return game

    def find_game(
        self, table_key: str, deal: int, rotation: int, seed: int | None = None, dice: str | None = None
    ) -> int:
        """The id of the stored game with this key: its table (``table_key``, the labels joined by
        ``|``), deal and rotation, and its ``seed`` and ``dice`` where the store holds more than one.

        A game's id is the order it was stored in, which the number of workers and interruptions
        change; its key names the same game in every run of the same tournament.

        Raises:
            ValueError: no such game (naming the tables, or the seeds and dice modes, there are), or
                several (seeds or dice modes) match.
        """
        query = "SELECT id, seed, dice FROM games WHERE table_key = ? AND deal = ? AND rotation = ?"
        params: list = [table_key, int(deal), int(rotation)]
        if seed is not None:
            query += " AND seed = ?"
            params.append(int(seed))
        if dice is not None:
            query += " AND dice = ?"
            params.append(dice)
        with self._reading():
            rows = self.conn.execute(query, params).fetchall()
        if len(rows) == 1:
            return int(rows[0][0])
        if len(rows) > 1:
            found = ", ".join(f"--seed {s} --dice {d}" for _, s, d in sorted(rows, key=lambda r: (r[1], r[2])))
            raise ValueError(f"{self.path} holds this game under several seeds or dice modes ({found}): give one")
        with self._reading():
            tables = [t for (t,) in self.conn.execute("SELECT DISTINCT table_key FROM games ORDER BY table_key")]
        if table_key not in tables:
            shown = ", ".join(repr(t) for t in tables[:10]) + (f" and {len(tables) - 10} more" if len(tables) > 10 else "")
            raise ValueError(f"no table {table_key!r} in {self.path}; its tables are {shown or 'none'}")
        with self._reading():
            settings = sorted(set(self.conn.execute("SELECT seed, dice FROM games WHERE table_key = ?", (table_key,))))
        held = ", ".join(f"seed {s} ({d} dice)" for s, d in settings)
        raise ValueError(
            f"no game of table {table_key!r} with deal {deal}, rotation {rotation}"
            + ("" if seed is None else f", seed {seed}") + ("" if dice is None else f", {dice} dice")
            + f" in {self.path} (it holds that table under {held})"
        )

    def game_id(self, key: tuple) -> int | None:
        """The id of the stored game with this key, if any."""
        with self._reading():
            row = self.conn.execute(
                "SELECT id FROM games WHERE seed = ? AND dice = ? AND table_key = ? AND deal = ? AND rotation = ?", key
            ).fetchone()
        return None if row is None else row[0]

    # -- writing ----------------------------------------------------------------------------
    def register_agents(self, agents: dict[str, tuple[str, str | None]]) -> None:
        """Record label -> (spec, fingerprint); refuse a label that stands for another agent.

        Raises:
            ValueError: a label already stored with another SPEC or another checkpoint file.
        """
        if self.read_only is not None:
            new = sorted(set(agents) - set(self.agents()))
            if new:
                self.refuse_writes(f"{', '.join(map(repr, new))} never played in it")
        writing = _transaction(self.conn, self.path, self._waiting, self.name)
        with writing if self.read_only is None else contextlib.nullcontext():
            stored = self.agents()
            for label, (spec, fp) in agents.items():
                if label in stored:
                    old_spec, old_fp = stored[label]
                    same = (fp == old_fp) if (fp or old_fp) else ("".join(spec.split()) == "".join(old_spec.split()))
                    if not same:
                        what = "checkpoint files" if (fp or old_fp) else f"SPEC {old_spec!r}"
                        raise ValueError(
                            f"--db {self.path}: the label {label!r} stands for other {what} there than "
                            f"{spec!r}; give another --db for a changed agent"
                        )
                else:
                    self.conn.execute(
                        "INSERT INTO agents (label, spec, fingerprint) VALUES (?, ?, ?)", (label, spec, fp)
                    )

    def add(self, records: Iterable) -> int:
        """Write finished games in one transaction; games already stored are kept as they are.

        Returns:
            How many rows were new.
        """
        now = time.time()
        rows = [
            (
                *r.task.key,
                _dumps(list(r.seats)),
                _dumps(list(r.returns)),
                _dumps(list(r.winners)),
                _dumps(list(r.scores)),
                r.num_actions,
                _dumps_log(r.log),
                now,
            )
            for r in records
        ]
        if not rows:
            return 0
        self.refuse_writes(f"{len(rows)} games are to be stored")
        before = self.conn.total_changes
        with _transaction(self.conn, self.path, self._waiting, self.name):
            self.conn.executemany(
                "INSERT OR IGNORE INTO games (seed, dice, table_key, deal, rotation, seats, returns, winners, "
                "scores, num_actions, log, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        new = self.conn.total_changes - before
        if time.monotonic() - self._checkpointed >= CHECKPOINT_EVERY_S:
            self._checkpoint()
        return new

    def _checkpoint(self) -> None:
        """Merge the -wal file into the store as far as no reader needs it (a passive checkpoint:
        it waits for nobody), so that the file alone is rarely far behind a run killed later."""
        self._checkpointed = time.monotonic()
        with _sqlite_errors(self.path, self.name):
            self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def close(self) -> None:
        """Close the connection; a store opened to write is merged with its -wal file first, as
        far as other connections let (SQLite merges it all when the last one closes)."""
        if self._writer:
            with contextlib.suppress(sqlite3.Error, OSError, ValueError):
                self._checkpoint()
        self.conn.close()
