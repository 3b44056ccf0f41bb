"""The on-disk cache of solver tables (CONTRACTS.md, "Solver tables").

One file per (solver, game options, solver version), an ``.npz`` of named arrays, under one cache
directory: ``$DICE_ENVS_CACHE_DIR`` if set, else the platform's user cache directory for
``dice-envs`` (``$XDG_CACHE_HOME/dice-envs`` or ``~/.cache/dice-envs`` on Linux). A file whose
stored key differs from the one asked for, or that cannot be read, is rebuilt, never trusted.
Files are written to a temporary name and renamed, so a killed build leaves no half file.

Example:
    >>> import numpy as np, tempfile
    >>> d = tempfile.mkdtemp()
    >>> t = load_or_build("demo", 1, {"n": 3}, lambda: {"v": np.arange(3)}, cache_dir=d)
    >>> t["v"].tolist()
    [0, 1, 2]
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
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
    """Write the table atomically (:func:`atomic_open`); returns its path."""
    path = cache_path(solver, version, options, cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path) as f:
        # numpy's stubs fear a key named allow_pickle in **table; the keys are array names.
        np.savez(f, **{_KEY: np.array(cache_key(solver, version, options))}, **table)  # type: ignore[arg-type]
    return path


def load_or_build(
    solver: str,
    version: int,
    options: dict,
    build: Callable[[], dict[str, np.ndarray]],
    cache_dir=None,
    use_cache: bool = True,
) -> dict[str, np.ndarray]:
    """The cached table if it is valid, else ``build()``, saved for next time."""
    if use_cache:
        table = load(solver, version, options, cache_dir)
        if table is not None:
            return table
    table = build()
    if use_cache:
        save(solver, version, options, table, cache_dir)
    return table
