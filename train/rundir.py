"""A training run's directory, for both trainers (:mod:`train.trainer`, :mod:`train.rllib`): its lock, the checks
that it can be written, and the library versions a run records.

:func:`locked_run_dir` is the whole protocol: the run directory (or, for a new one, the nearest directory above
it) is checked and probed, made if missing, locked (:class:`RunLock`), and only then are its parts (``resume/``,
``policy/``, ...) looked at, so that a process refused by the lock never writes in a directory another process
is training. When the run ends the lock goes, and a directory the run made is removed if it is empty (a
refused run leaves nothing behind).
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

#: The lock file of a run directory, held (``fcntl.flock``) by the process that trains it.
LOCK = ".lock"


class RunDirBusy(OSError):
    """Another process trains the run directory (an ``OSError``: the command cannot run now; exit 1)."""


class RunLock:
    """An exclusive, non-blocking ``fcntl.flock`` on ``RUN/.lock``, held while a process trains the run: a
    second run of the same directory is refused (:class:`RunDirBusy`) instead of mixing its saves, checkpoints
    and TensorBoard files with the first's (outside review 10, F3).

    The holder writes its pid into the file, for the refusal, and removes the file when it lets go (still
    holding the lock, and only the file it locked); :meth:`acquire` checks that the file it locked is still
    the one at the path, so a file removed meanwhile is never held by two. The system lets go of a killed
    process's lock: a file it leaves blocks nothing. Without ``fcntl`` (Windows), or on a file system that
    refuses ``flock``, there is no lock.
    """

    def __init__(self, run: Path):
        self.path = run / LOCK
        self.fd: int | None = None

    def acquire(self) -> None:
        try:
            import fcntl
        except ImportError:  # Windows
            return
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                pid = self._holder(fd)
                os.close(fd)
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    held = f" (pid {pid})" if pid is not None else ""
                    raise RunDirBusy(f"{self.path.parent} is being trained by another process{held}: wait for "
                                     "it, or use another --run-dir") from None  # fmt: skip
                try:  # a file system without flock (some network mounts): train without a lock
                    os.unlink(self.path)
                except OSError:
                    pass
                return
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except OSError:
                same = False
            if same:
                break
            os.close(fd)  # its holder removed the file as it let go: lock the one at the path now
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd

    @staticmethod
    def _holder(fd: int) -> int | None:
        try:
            text = os.pread(fd, 32, 0).decode("ascii").strip()
            return int(text) if text.isdigit() else None
        except (OSError, ValueError, AttributeError):  # (os.pread: not on every system)
            return None

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            if os.path.samestat(os.fstat(self.fd), os.stat(self.path)):
                os.unlink(self.path)  # while held: a process that opened it meanwhile sees it gone (acquire)
        except OSError:
            pass
        os.close(self.fd)  # lets go of the lock
        self.fd = None


def path_kind(path: str | os.PathLike) -> str | None:
    """What is at ``path``, for messages: ``"a file"``, ``"a directory"``, ``"a FIFO (named pipe)"``, ``"a device
    or socket"`` or ``"a broken symbolic link"``; ``None`` if nothing is there (or it cannot be looked at)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "a broken symbolic link" if os.path.islink(path) else None
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    return "a device or socket"


def _probe(place: Path, run: Path) -> None:
    """:func:`dice_envs.cli.check_writable` of ``place`` (a file made and removed in it), said with the way out."""
    from dice_envs.cli import check_writable

    try:
        check_writable(place, f"--run-dir {run}")
    except OSError as exc:
        raise OSError(f"{exc}: make it writable, or use another --run-dir") from None


def check_run_dir(run: Path) -> None:
    """Refuse a run directory that cannot be written, before it is locked or anything is built or read
    (outside review 10, F9 and F10): a ``ValueError`` when it, or the nearest existing directory above it, is
    not a directory; an ``OSError`` (exit 1) naming ``--run-dir`` and the directory that refuses new files
    (read-only, another user's, a read-only mount). Only that one directory is probed (a file made and
    removed in it, as permission bits do not tell: root, mounts); its parts are :func:`check_run_parts`'s,
    once the run is locked.
    """
    flag = f"--run-dir {run}"
    if run.exists() or run.is_symlink():
        if not run.is_dir():
            raise ValueError(f"{flag} is {path_kind(run) or 'not a directory'}, not a directory: give a directory "
                             "for the run (made if it does not exist)")  # fmt: skip
        _probe(run, run)
    else:
        ancestor = next((a for a in run.parents if a.exists() or a.is_symlink()), Path("."))
        if not ancestor.is_dir():
            raise ValueError(f"{flag}: {ancestor} is {path_kind(ancestor) or 'not a directory'}, not a directory")
        _probe(ancestor, run)


def check_run_parts(run: Path, parts: Iterable[str]) -> None:
    """Refuse a run directory one of whose ``parts`` (``tb``, ``resume``, ...) is there but is no directory
    (``ValueError``) or refuses new files (``OSError``), as :func:`check_run_dir` does for the directory."""
    for name in parts:
        sub = run / name
        if sub.exists() or sub.is_symlink():
            if not sub.is_dir():
                raise ValueError(f"--run-dir {run}: {sub} is {path_kind(sub) or 'not a directory'}, not a "
                                 "directory: move it aside, or use another --run-dir")  # fmt: skip
            _probe(sub, run)


@contextmanager
def locked_run_dir(run: Path, parts: Iterable[str] = ()) -> Iterator[None]:
    """Hold the run directory ``run`` for the block: checked (:func:`check_run_dir`), made if missing, locked
    (:class:`RunLock`; :class:`RunDirBusy` if another process holds it), and then its ``parts`` checked
    (:func:`check_run_parts`). Nothing inside the directory is probed or written before the lock is held.

    When the block ends (or the lock is refused) the lock goes, and the directories this call made (``run``
    and missing ones above it) are removed if they are empty: a refused run leaves nothing behind.
    """
    check_run_dir(run)
    missing = [run, *(a for a in run.parents if not (a.exists() or a.is_symlink()))]
    lock = RunLock(run)
    made = False
    try:
        for attempt in range(10):
            try:
                run.mkdir(parents=True)
                made = True
            except FileExistsError:
                pass
            try:
                lock.acquire()
                break
            except FileNotFoundError:  # a refused run that had made the directory removed it meanwhile
                if attempt == 9:
                    raise
        check_run_parts(run, parts)
        yield
    finally:
        lock.release()
        if made:
            for directory in missing:
                try:
                    directory.rmdir()  # (only an empty one: a run that saved anything keeps its directory)
                except OSError:
                    break


#: The distributions whose versions a run records (``summary.json``'s ``versions``).
VERSIONED = ("dice-envs", "numpy", "torch", "stable-baselines3", "sb3-contrib", "gymnasium", "pettingzoo", "ray")


def versions() -> dict[str, str | None]:
    """Python's version and those of :data:`VERSIONED` (``None``: not installed): what a run's
    weights depend on besides its settings and machine."""
    import platform
    from importlib import metadata

    found: dict[str, str | None] = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found
