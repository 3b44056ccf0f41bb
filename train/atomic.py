"""Directories saved whole: a training run's saves that a kill or a power cut cannot leave half done.

:func:`save_checkpoint_atomically` writes a directory beside its place (``<target>.new``), flushes
every file to disk, writes :data:`MARKER` (the files and their sizes) last, then swaps it in by two
renames (the old one waits in ``<target>.old`` between them) and deletes the old one.
:func:`recover_checkpoint`, called when a run starts, tidies whatever a save killed at any point
left: a complete ``.new`` is the newest save and goes in, an incomplete one is deleted, and ``.old``
comes back only if the target is missing. Both trainers use them: the SB3 trainer for ``resume/``
and ``policy/`` (:mod:`train.trainer`), the RLlib trainer for ``rllib/`` and ``policy/``
(:mod:`train.rllib`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Callable

from dice_envs import strict_json

#: The file that marks a saved directory complete: what it holds (``info``) and every file with its size.
MARKER = "dice_envs_checkpoint.json"


def siblings(target: Path) -> tuple[Path, Path]:
    """Where a save is written before it replaces ``target``, and where the replaced one waits."""
    return target.with_name(target.name + ".new"), target.with_name(target.name + ".old")


def complete_checkpoint(path: Path) -> dict | None:
    """The marker of the complete save in ``path``, or None if it is missing or incomplete."""
    try:
        marker = json.loads((path / MARKER).read_text())
        files = marker["files"]
        if not isinstance(files, dict) or not files:
            return None
        for name, size in files.items():
            if (path / name).stat().st_size != size:
                return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return marker


def _has_marker(path: Path) -> bool:
    return (path / MARKER).exists() or (path / MARKER).is_symlink()


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _fsync(path: Path, directory: bool = False) -> None:
    """Flush a file's (or a directory's entries') data to disk, where the system allows it."""
    try:
        fd = os.open(path, os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # (some file systems refuse to sync a directory)
    finally:
        os.close(fd)


class SaveError(OSError):
    """A save the system refused (a full disk, a quota, permissions), said in one line naming the file."""


def save_error(exc: OSError, target: Path, where: Path | None = None) -> OSError:
    """``exc``, raised while saving ``target``, as one line naming the file: ``shutil.Error``'s list of
    failed copies (``copytree``) becomes its first failure, and an error that names no file gets ``where``.
    The result is a :class:`SaveError`, an ``OSError`` (the system refused: exit 1 on the command line)
    with ``exc``'s errno; a ``SaveError`` already (a file of the save) is returned as it is."""
    if isinstance(exc, SaveError):
        return exc
    if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list) and exc.args[0]:
        first = exc.args[0][0]
        _src, dst, why = first if isinstance(first, tuple) and len(first) == 3 else (None, None, first)
        detail = re.sub(r"^\[Errno \d+\] ", "", str(why))
        if dst is not None and str(dst) not in detail:
            detail = f"{detail}: {dst}"
        more = len(exc.args[0]) - 1
        if more:
            detail += f"; and {more} more file(s)"
        errno = None
        match = re.match(r"^\[Errno (\d+)\]", str(why))
        if match:
            errno = int(match[1])
    else:
        detail = exc.strerror or str(exc) or type(exc).__name__
        name = exc.filename if exc.filename is not None else where
        if name is not None:
            detail = f"{detail}: {os.fsdecode(name) if isinstance(name, bytes) else name}"
        errno = exc.errno
    error = SaveError(f"cannot save {target} ({detail})")
    error.errno = errno
    return error


def save_checkpoint_atomically(save: Callable[[Path], object], target: Path, info: dict) -> None:
    """Write a directory with ``save(directory)`` and put it in place of ``target`` only once complete.

    ``save`` gets a path that does not exist yet and creates the directory there. Then every file is
    flushed to disk, :data:`MARKER` (``info`` and every file with its size) is written into it last,
    ``target`` is renamed to ``target.old``, ``target.new`` to ``target``, and ``target.old`` deleted.
    A kill at any point leaves a complete save that :func:`recover_checkpoint` finds.
    """
    new, old = siblings(target)
    _remove(new)
    try:
        save(new)
        files = {p.relative_to(new).as_posix(): p.stat().st_size for p in sorted(new.rglob("*")) if p.is_file()}
        for name in files:  # on disk before the marker says they are (a power loss, not only a kill)
            _fsync(new / name)
        tmp = new / (MARKER + ".tmp")
        with open(tmp, "w") as f:
            f.write(strict_json.dumps({**info, "files": files}, indent=1))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, new / MARKER)
    except OSError as exc:  # a full disk, a quota: the half-written copy goes (it would never be put in)
        try:
            _remove(new)
        except OSError:
            pass
        raise save_error(exc, target, new) from None
    _fsync(new, directory=True)
    if target.exists():
        _remove(old)
        os.replace(target, old)
    os.replace(new, target)
    _fsync(target.parent, directory=True)
    _remove(old)


def recover_checkpoint(target: Path, what: str = "checkpoint", legacy: Callable[[Path], bool] | None = None,
                       hint: str = "delete it to train this run afresh, or use another --run-dir") -> dict | None:
    """Tidy what an interrupted :func:`save_checkpoint_atomically` left; return the marker of the
    complete save now in ``target`` (``{}`` for one ``legacy`` accepts), or None if there is none.

    A complete ``target.new`` is the newest save and takes the place of ``target``; an incomplete one
    is deleted. ``target.old`` is put back if ``target`` is missing (or incomplete), else deleted.

    Args:
        what: what the directory holds, for the message.
        legacy: accepts a ``target`` without a marker (saved by a version that wrote none) when it
            returns True for it; never one whose marker is there but does not match its files (damaged).
        hint: what the message tells the user to do.

    Raises:
        ValueError: ``target`` holds an incomplete save (interrupted by an older version, files
            deleted, truncated or of another size than its marker says), which is never restored.
    """
    new, old = siblings(target)

    def whole(path: Path) -> bool:
        # (legacy: only a save without a marker; one whose marker lists other files or sizes is damaged)
        return complete_checkpoint(path) is not None or (
            legacy is not None and path == target and path.is_dir() and not _has_marker(path) and legacy(path)
        )

    if new.exists():
        if complete_checkpoint(new) is not None:
            if target.exists():
                _remove(old)
                os.replace(target, old)
            os.replace(new, target)
        else:
            _remove(new)
    if old.exists():
        if complete_checkpoint(old) is not None and not whole(target):
            _remove(target)  # (missing, unless something other than a save left it incomplete)
            os.replace(old, target)
        else:
            _remove(old)
    if not target.exists():
        return None
    marker = complete_checkpoint(target)
    if marker is None:
        if whole(target):
            return {}
        raise ValueError(f"{target} holds an incomplete {what} (its save was interrupted, files are missing or "
                         f"damaged, or it was written before dice-envs marked complete saves with {MARKER}): "
                         f"{hint}")
    return marker
