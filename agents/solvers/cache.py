"""The on-disk cache of solver tables (docs/solvers.md).

One file per (solver, game options, solver version), an ``.npz`` of named arrays, under one cache
directory: ``$DICE_ENVS_CACHE_DIR`` if set, else the platform's user cache directory for
``dice-envs`` (``$XDG_CACHE_HOME/dice-envs`` or ``~/.cache/dice-envs`` on Linux). A file whose
stored key differs from the one asked for, or that cannot be read, is rebuilt, never trusted.
Files are written to a temporary name and renamed, so a killed build leaves no half file.

Example:
    >>> import numpy as np, shutil, tempfile
    >>> d = tempfile.mkdtemp()
    >>> t = load_or_build("demo", 1, {"n": 3}, lambda: {"v": np.arange(3)}, cache_dir=d)
    >>> t["v"].tolist()
    [0, 1, 2]
    >>> shutil.rmtree(d)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Callable

import numpy as np

ENV_VAR = "DICE_ENVS_CACHE_DIR"
_KEY = "__key__"


def default_cache_dir() -> Path:
    """The cache directory: ``$DICE_ENVS_CACHE_DIR``, else the platform's user cache dir."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "dice-envs"


def cache_key(solver: str, version: int, options: dict) -> str:
    """The canonical text that identifies a table: solver, its version, the options."""
    return json.dumps({"solver": solver, "version": version, "options": options}, sort_keys=True, default=str)


def cache_path(solver: str, version: int, options: dict, cache_dir: str | os.PathLike | None = None) -> Path:
    """Where the table of (solver, version, options) lives."""
    key = cache_key(solver, version, options)
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return Path(cache_dir or default_cache_dir()) / f"{solver}-v{version}-{digest}.npz"


def load(solver: str, version: int, options: dict, cache_dir=None) -> dict[str, np.ndarray] | None:
    """The cached table, or ``None`` if it is missing, unreadable or stored under another key."""
    path = cache_path(solver, version, options, cache_dir)
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data[_KEY]) != cache_key(solver, version, options):
                return None
            return {name: data[name] for name in data.files if name != _KEY}
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, EOFError):
        return None


@contextmanager
def atomic_open(path: Path, mode: str = "wb", shared: bool = False, **kwargs) -> Iterator[IO]:
    """Open a temporary file beside ``path`` for writing; on a clean exit it replaces ``path``
    (``os.replace``), on an error it is removed: a reader never sees half a file. The parent
    directory must exist. ``shared``: the file gets an ordinary new file's permissions (the umask's),
    not ``mkstemp``'s 0600. ``kwargs`` go to ``open`` (``newline``, ``encoding``)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if shared:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, mode, **kwargs) as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save(solver: str, version: int, options: dict, table: dict[str, np.ndarray], cache_dir=None) -> Path:
    """Write the table atomically (:func:`atomic_open`), readable as any new file (the umask's
    permissions, so a cache shared by a team serves everyone); returns its path."""
    path = cache_path(solver, version, options, cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, shared=True) as f:
        # numpy's stubs fear a key named allow_pickle in **table; the keys are array names.
        np.savez(f, **{_KEY: np.array(cache_key(solver, version, options))}, **table)  # type: ignore[arg-type]
    return path


#: The cache directories this process has said it cannot write (it says so once for each).
_UNWRITABLE_SAID: set[str] = set()


def save_or_warn(solver: str, version: int, options: dict, table: dict[str, np.ndarray], cache_dir=None) -> Path | None:
    """:func:`save`, and where the cache cannot be written (read-only, full, not a directory) one
    line on stderr instead of an error: the table is used for this run only, and the run goes on
    (a cache is there to save time, not to make a run fail after its solve). Returns the path, or
    ``None`` where nothing was saved."""
    try:
        return save(solver, version, options, table, cache_dir)
    except OSError as exc:
        directory = str(Path(cache_dir or default_cache_dir()))
        if directory not in _UNWRITABLE_SAID:
            _UNWRITABLE_SAID.add(directory)
            if isinstance(exc, (FileExistsError, NotADirectoryError)) or (
                os.path.exists(directory) and not os.path.isdir(directory)
            ):
                why = "it is not a directory"
            else:
                why = exc.strerror or str(exc)
            print(
                f"dice-envs: the solver cache {directory} cannot be written ({why}): the table is used for this "
                f"run only; set {ENV_VAR} (or --cache-dir, where the command takes it) to a directory that can be written",
                file=sys.stderr,
                flush=True,
            )
        return None


def load_or_build(
    solver: str,
    version: int,
    options: dict,
    build: Callable[[], dict[str, np.ndarray]],
    cache_dir=None,
    use_cache: bool = True,
) -> dict[str, np.ndarray]:
    """The cached table if it is valid, else ``build()``, saved for next time (where the cache can
    be written: :func:`save_or_warn`)."""
    if use_cache:
        table = load(solver, version, options, cache_dir)
        if table is not None:
            return table
    table = build()
    if use_cache:
        save_or_warn(solver, version, options, table, cache_dir)
    return table


# -- what the cache holds (``dice-envs cache``) ----------------------------------------------
#: Each solver's current table version. A table of an older version is never read again (its
#: file name differs); ``dice-envs cache --prune`` removes it. Kept here, not imported from the
#: solvers, so that listing the cache does not load numba; a test holds it to the solvers'.
CURRENT_VERSIONS = {
    "meyer_equilibrium": 2,
    "syvere-endgame": 2,
    "syvere-turn": 1,
    "tenthousand-turn": 1,
    "tenthousand-win": 1,
}

#: A temporary file left this long unchanged is a killed build's, not one being written (a table is
#: written in one go, after its build, in seconds).
LEFTOVER_SECONDS = 3600


@dataclass(frozen=True)
class Entry:
    """One file in the cache directory. ``status``: ``current`` (read by this version), ``stale``
    (an older version of its solver, or a solver this version does not have), ``unreadable``
    (not a table, or its key is missing), ``leftover`` (a killed build's temporary file) or
    ``writing`` (a temporary file changed within :data:`LEFTOVER_SECONDS`)."""

    path: Path
    size: int
    modified: float
    status: str
    solver: str = ""
    version: int = 0
    options: dict = field(default_factory=dict)

    @property
    def removable(self) -> bool:
        """Whether ``--prune`` removes it: everything but current tables and files being written."""
        return self.status in ("stale", "unreadable", "leftover")


def _read_key(path: Path) -> dict | None:
    try:
        with np.load(path, allow_pickle=False) as data:
            key = json.loads(str(data[_KEY]))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, EOFError):
        return None
    if not isinstance(key, dict) or not {"solver", "version", "options"} <= key.keys():
        return None
    return key


#: The names the cache writes (:func:`cache_path`) and its temporary files (:func:`atomic_open`):
#: nothing else in the directory is looked at, let alone removed (a user's own ``.npz`` beside them).
TABLE_NAME = re.compile(r"[a-z][a-z0-9_-]*-v\d+-[0-9a-f]{16}\.npz")
TEMPORARY_NAME = re.compile(r"\.([a-z][a-z0-9_-]*-v\d+-[0-9a-f]{16}\.npz)\.[^/]+\.tmp")


def inventory(cache_dir: str | os.PathLike | None = None, now: float | None = None) -> list[Entry]:
    """Every table and temporary file in the cache directory, sorted by solver and name (no
    directory yet: an empty list). Only names the cache writes are looked at
    (:data:`TABLE_NAME`, :data:`TEMPORARY_NAME`); other files are left out."""
    directory = Path(cache_dir or default_cache_dir())
    if not directory.is_dir():
        return []
    now = time.time() if now is None else now
    entries = []
    for path in sorted(directory.iterdir()):
        if not path.is_file():
            continue
        stat = path.stat()
        if TEMPORARY_NAME.fullmatch(path.name):
            status = "leftover" if now - stat.st_mtime > LEFTOVER_SECONDS else "writing"
            entries.append(Entry(path, stat.st_size, stat.st_mtime, status))
            continue
        if not TABLE_NAME.fullmatch(path.name):
            continue
        key = _read_key(path)
        if key is None:
            entries.append(Entry(path, stat.st_size, stat.st_mtime, "unreadable"))
            continue
        solver, version = str(key["solver"]), int(key["version"])
        current = CURRENT_VERSIONS.get(solver) == version and path == cache_path(solver, version, key["options"], directory)
        entries.append(Entry(path, stat.st_size, stat.st_mtime, "current" if current else "stale", solver, version,
                             dict(key["options"])))  # fmt: skip
    return sorted(entries, key=lambda e: (e.solver, e.path.name))


def remove(entries: list[Entry]) -> tuple[int, int]:
    """Delete those files; returns (files removed, bytes freed). A file already gone is skipped."""
    count = freed = 0
    for entry in entries:
        try:
            entry.path.unlink()
        except FileNotFoundError:
            continue
        count += 1
        freed += entry.size
    return count, freed
