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
  the second writer waits for the first instead of failing.
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
import sqlite3
import time
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:  # for the annotations only: the code imports evaluate.tournament where it needs it
    from evaluate.tournament import GameRecord

FORMAT = "dice-envs tournament results"
SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 60_000


class StoreUnwritable(OSError):
    """The results store cannot be written: a read-only file or medium, a full disk, an I/O error
    (an ``OSError``: the command line exits with 1 and this one line). ``reason`` is SQLite's."""

    def __init__(self, message: str, reason: str = ""):
        super().__init__(message)
        self.reason = reason

    @property
    def read_only(self) -> bool:
        """Whether SQLite refused because the file or its medium is read-only (not a full disk,
        an I/O error or a lock held by another run)."""
        return "readonly" in self.reason or "unable to open" in self.reason


@contextlib.contextmanager
def _sqlite_errors(path: str):
    """Turn SQLite's operational errors (read-only database, disk I/O error, full disk, a lock
    held past the busy timeout) into :class:`StoreUnwritable` naming the file."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        raise StoreUnwritable(f"--db {path}: cannot write to it ({exc})", reason=str(exc)) from None


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection, path: str):
    """``BEGIN IMMEDIATE`` ... ``COMMIT``; on any error a rollback, if SQLite has not already rolled
    back (after an I/O error it has, and a second ``ROLLBACK`` would hide the first error)."""
    with _sqlite_errors(path):
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise


def _switch_to_wal(conn: sqlite3.Connection) -> None:
    """Put the file in WAL mode, waiting for another run that holds a lock on it.

    Switching the journal mode needs an exclusive lock, and SQLite may answer "database is
    locked" at once instead of calling the busy handler (two runs opening one new file at the
    same moment: seen in CI). So wait here, up to the busy timeout, as a locked write would.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() >= deadline:
                raise
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


class OutdatedStore(ValueError):
    """A results store of tables of three or more written under another seating of the deals
    (``evaluate.tournament.SEATING``): the same keys hold other seatings there."""


def _uri(path: str, mode: str) -> str:
    """An SQLite URI for ``path`` opened in ``mode`` (``ro``, ``rw``); see sqlite.org/uri.html."""
    quoted = os.path.abspath(path).replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return f"file:{quoted}?mode={mode}"


def _connect_to_read(path: str) -> sqlite3.Connection:
    """A connection that reads ``path`` and never creates it.

    Read-write but not create, and only read: a read-only connection to a WAL database would leave
    -wal and -shm files behind, while this one removes them on close as SQLite does (and SQLite
    opens a write-protected file read-only by itself). On read-only media, where not even the -shm
    file can be made, the file is read as immutable, unless games wait in its -wal file (a killed
    run's), which immutable reading would miss: then it is refused.
    """
    try:
        conn = sqlite3.connect(_uri(path, "rw"), uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            conn.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
        except BaseException:
            conn.close()
            raise
        return conn
    except sqlite3.OperationalError as exc:
        if "unable to open" not in str(exc):
            raise
    wal = path + "-wal"
    if os.path.isfile(wal) and os.path.getsize(wal) > 0:  # immutable would read past its games
        raise sqlite3.OperationalError(
            "unable to open database file, and its -wal file holds games not yet merged into it (a run "
            "was killed): open it once where it can be written"
        )
    return sqlite3.connect(_uri(path, "ro") + "&immutable=1", uri=True)


def _check_existing(path: str, expected: dict[str, str]) -> None:
    """Refuse a file that is not a results store of this setting, touching nothing."""
    what = f"--db {path}"
    if not os.path.isfile(path):
        raise ValueError(f"{what} is not a dice-envs results database (not a regular file)")
    try:
        with open(path, "rb") as handle:
            header = handle.read(16)
    except OSError as exc:
        raise ValueError(f"{what}: cannot read it ({exc.strerror})") from None
    if header == b"":
        return  # an empty file is an empty SQLite database (another run may just have made it)
    if header != b"SQLite format 3\x00":
        raise ValueError(f"{what} is not a dice-envs results database (not an SQLite file)")
    try:
        conn = _connect_to_read(path)
    except sqlite3.Error as exc:
        raise ValueError(f"{what}: cannot open it ({exc})") from None
    try:
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{what} is not a dice-envs results database (not an SQLite file: {exc})") from None
        if not tables:
            return  # an empty database: nothing to lose (or another run is creating the store now)
        if "meta" not in tables or "games" not in tables:
            raise ValueError(
                f"{what} is not a dice-envs results database (an SQLite file without its tables); "
                "give a new path or a results database"
            )
        meta = dict(conn.execute("SELECT key, value FROM meta"))
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"{what} is not a dice-envs results database ({exc})") from None
    finally:
        conn.close()
    if meta.get("format") != FORMAT:
        raise ValueError(f"{what} is not a dice-envs results database (format {meta.get('format')!r})")
    for key in ("schema_version", "game", "env_id", "options"):
        if meta.get(key) != expected[key]:
            if key == "options":
                theirs, ours = json.loads(meta[key]), json.loads(expected[key])
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

    def __init__(self, conn: sqlite3.Connection, path: str, read_only: str | None = None):
        self.conn = conn
        self.path = path
        #: why the store cannot be written (SQLite's words), or None: see :meth:`open_read_only`.
        self.read_only = read_only

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
            ValueError: the file is not a results store, or holds another setting; it is left as
                it was.
            StoreUnwritable: it cannot be written (read-only, full disk, I/O error); so do
                :meth:`register_agents` and :meth:`add`.
        """
        expected = _expected(game, env_id, options)
        exists = os.path.exists(path)
        if os.path.isdir(path):
            raise ValueError(f"--db {path} is a directory; give a file path")
        if exists:
            _check_existing(path, expected)
        elif not create:
            raise ValueError(f"--db {path} does not exist")
        else:
            parent = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(parent):
                os.makedirs(parent, exist_ok=True)
        with _sqlite_errors(path):
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            with _sqlite_errors(path):
                conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                _switch_to_wal(conn)
                conn.execute("PRAGMA synchronous = NORMAL")
            # Two runs creating the same new file: the first to take the write lock makes the
            # tables and the meta rows; the other then finds them and checks them.
            with _transaction(conn, path):
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
        return cls(conn, path)

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
        store.read_only = reason
        return store

    def refuse_writes(self, what: str) -> None:
        """Raise :class:`StoreUnwritable` if this store is read-only, saying ``what`` needed a write."""
        if self.read_only is not None:
            raise StoreUnwritable(
                f"--db {self.path} cannot be written ({self.read_only}), and {what}: give a --db that "
                "can be written (a copy of this one plays only what it lacks)",
                reason=self.read_only,
            )

    @classmethod
    def open_existing(cls, path: str) -> "ResultStore":
        """Open a store to read it (``replay``, reports), whatever its setting."""
        if os.path.isdir(path):
            raise ValueError(f"{path} is a directory, not a results database (give the SQLite file)")
        if not os.path.exists(path):
            raise ValueError(f"{path}: no such file (give the results database a tournament wrote with --db)")
        if not os.path.isfile(path):
            raise ValueError(f"{path} is not a results database (not a regular file)")
        with open(path, "rb") as handle:
            if handle.read(16) != b"SQLite format 3\x00":
                raise ValueError(f"{path} is not a dice-envs results database (not an SQLite file)")
        try:
            conn = _connect_to_read(path)
        except sqlite3.Error as exc:
            raise ValueError(f"{path}: cannot open it ({exc})") from None
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            conn.execute("SELECT id FROM games LIMIT 1").fetchall()
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise ValueError(f"{path} is not a dice-envs results database ({exc})") from None
        if meta.get("format") != FORMAT:
            conn.close()
            raise ValueError(f"{path} is not a dice-envs results database")
        return cls(conn, path)

    # -- reading ----------------------------------------------------------------------------
    def meta(self) -> dict:
        """The store's setting: ``game``, ``env_id``, ``options`` (a dict) and the format."""
        meta = dict(self.conn.execute("SELECT key, value FROM meta"))
        meta["options"] = json.loads(meta["options"])
        return meta

    def count(self) -> int:
        """How many games the store holds."""
        return self.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def agents(self) -> dict[str, tuple[str, str | None]]:
        """label -> (spec, fingerprint) of every entrant that ever played in this store."""
        return {label: (spec, fp) for label, spec, fp in self.conn.execute("SELECT label, spec, fingerprint FROM agents")}

    def existing_keys(self, seed: int, dice: str) -> set[tuple]:
        """The keys (as ``GameTask.key``) of the stored games with this seed and dice mode."""
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
        for seed, dice in seeds_dice:
            rows = self.conn.execute(
                "SELECT seed, dice, table_key, deal, rotation, returns, winners, scores, log, num_actions "
                "FROM games WHERE seed = ? AND dice = ?",
                (seed, dice),
            )
            for row in rows:
                key = tuple(row[:5])
                task = wanted.get(key)
                if task is None:
                    continue
                returns, winners, scores, log = (json.loads(x) for x in row[5:9])
                result[key] = GameRecord(task, tuple(returns), tuple(winners), tuple(scores), log, row[9])
        return result

    def game(self, game_id: int) -> dict:
        """One stored game by its id, with its columns decoded."""
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
            game[key] = json.loads(game[key])
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
        rows = self.conn.execute(query, params).fetchall()
        if len(rows) == 1:
            return int(rows[0][0])
        if len(rows) > 1:
            found = ", ".join(f"--seed {s} --dice {d}" for _, s, d in sorted(rows, key=lambda r: (r[1], r[2])))
            raise ValueError(f"{self.path} holds this game under several seeds or dice modes ({found}): give one")
        tables = [t for (t,) in self.conn.execute("SELECT DISTINCT table_key FROM games ORDER BY table_key")]
        if table_key not in tables:
            shown = ", ".join(repr(t) for t in tables[:10]) + (f" and {len(tables) - 10} more" if len(tables) > 10 else "")
            raise ValueError(f"no table {table_key!r} in {self.path}; its tables are {shown or 'none'}")
        settings = sorted(set(self.conn.execute("SELECT seed, dice FROM games WHERE table_key = ?", (table_key,))))
        held = ", ".join(f"seed {s} ({d} dice)" for s, d in settings)
        raise ValueError(
            f"no game of table {table_key!r} with deal {deal}, rotation {rotation}"
            + ("" if seed is None else f", seed {seed}") + ("" if dice is None else f", {dice} dice")
            + f" in {self.path} (it holds that table under {held})"
        )

    def game_id(self, key: tuple) -> int | None:
        """The id of the stored game with this key, if any."""
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
        with _transaction(self.conn, self.path) if self.read_only is None else contextlib.nullcontext():
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
        with _transaction(self.conn, self.path):
            self.conn.executemany(
                "INSERT OR IGNORE INTO games (seed, dice, table_key, deal, rotation, seats, returns, winners, "
                "scores, num_actions, log, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        return self.conn.total_changes - before

    def close(self) -> None:
        self.conn.close()
