"""Training runs when things go wrong (outside review 10): two runs on one run directory (F3; both trainers), a
damaged ``resume/`` (F7), an env process that dies (F8), a run directory that cannot be written, a full disk
during a save and a ``--config`` that is no file (F9, F10).

Tests run as root here, which ignores permission bits: an unwritable run directory is simulated by a
``tempfile.mkstemp`` that refuses it (``test_an_unwritable_part_of_the_run_dir_is_refused_before_anything``);
the real one (``test_a_read_only_run_dir_really_refused``) drops root's capabilities with ``setpriv`` when
it runs as root, and is skipped if ``setpriv`` is missing.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

import train.rundir as rundir  # noqa: E402
import train.trainer as trainer  # noqa: E402
from dice_envs.cli import CommandFailed, run_guarded  # noqa: E402
from permissions import unprivileged_prefix  # noqa: E402
from test_train_cli import ROOT, TINY  # noqa: E402
from train.atomic import MARKER, recover_checkpoint, save_checkpoint_atomically  # noqa: E402
from train.cli import main  # noqa: E402

try:
    import fcntl
except ImportError:  # Windows: the trainer takes no lock
    fcntl = None  # type: ignore[assignment]
needs_flock = pytest.mark.skipif(fcntl is None, reason="no fcntl.flock here (Windows): the trainer takes no lock")


def argv(run: Path, steps: int = 512, *extra: str) -> list[str]:
    return ["meyer", "--lives", "2", "--timesteps", str(steps), "--seed", "1", "--run-dir", str(run), *TINY, *extra]


def args_of(words: list[str]):
    """The Args ``dice-envs train WORDS`` trains with."""
    from train.cli import _overrides, build_parser
    from dice_envs.cli import game_and_options
    from train.config import build_args

    ns, rest = build_parser().parse_known_args(words)
    ns.game, options = game_and_options(ns.game, rest)
    return build_args(ns.game, _overrides(ns, options))


def tree(path: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and directory (None) under ``path``."""
    return {str(p.relative_to(path)): (p.read_bytes() if p.is_file() else None) for p in sorted(path.rglob("*"))}


def guarded(words: list[str], capsys) -> tuple[int, str]:
    """``dice-envs train WORDS`` as the command line runs it: its exit code and stderr."""
    capsys.readouterr()
    code = run_guarded(main, words, prog="dice-envs train")
    return code, capsys.readouterr().err


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A tiny Meyer run saved at step 256 (copied by the tests that damage or resume it)."""
    run = tmp_path_factory.mktemp("robust10") / "run"
    assert main(argv(run, 256)) == 0
    assert (run / "resume" / MARKER).is_file() and not (run / rundir.LOCK).exists()
    return run


@pytest.fixture
def run_copy(trained, tmp_path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(trained, run)
    return run


def never_train(monkeypatch):
    """Make reaching the training itself a failure (the refusals come before it)."""

    def fail(*_args, **_kwargs):
        raise AssertionError("the run was trained")

    monkeypatch.setattr(trainer, "_train", fail)


def hold_lock(run: Path) -> int:
    """Hold RUN/.lock as a training process does (this process's pid in it); returns the descriptor."""
    fd = os.open(run / rundir.LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


# -- F3: one run at a time in a run directory ------------------------------------------------------------------
def probed_dirs(monkeypatch) -> list[Path]:
    """The directories the write probes (``tempfile.mkstemp``) make a file in, as they are made."""
    real, probed = tempfile.mkstemp, []

    def mkstemp(*a, dir=None, **k):
        probed.append(Path(dir))
        return real(*a, dir=dir, **k)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    return probed


@needs_flock
def test_a_second_run_on_a_locked_run_dir_is_refused_and_touches_nothing(run_copy, monkeypatch, capsys):
    """Refused with exit 1 (the command cannot run now, as a results store held by another process), having
    probed only the run directory itself: nothing written in the held run's resume/, policy/, checkpoints/."""
    never_train(monkeypatch)
    (run_copy / "resume.new").mkdir()  # what the first run's save is writing (recovery would delete it)
    (run_copy / "resume.new" / "model.zip").write_bytes(b"half written")
    fd = hold_lock(run_copy)
    try:
        before = tree(run_copy)
        probed = probed_dirs(monkeypatch)
        code, err = guarded(argv(run_copy), capsys)
        assert code == 1
        assert err.strip() == (f"dice-envs train: {run_copy} is being trained by another process (pid {os.getpid()}): "
                               "wait for it, or use another --run-dir")  # fmt: skip
        assert tree(run_copy) == before  # nothing tidied, read or written
        assert probed == [run_copy]  # (its parts are probed once the lock is held)
    finally:
        os.close(fd)


@needs_flock
def test_the_lock_of_another_process_is_refused_with_its_pid(run_copy, monkeypatch):
    never_train(monkeypatch)
    code = ("import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
            "fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB); os.write(fd, b'%d' % os.getpid()); "
            "print('locked', flush=True); sys.stdin.read()")  # fmt: skip
    holder = subprocess.Popen([sys.executable, "-c", code, str(run_copy / rundir.LOCK)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(rundir.RunDirBusy, match=rf"being trained by another process \(pid {holder.pid}\)"):
            trainer.train(args_of(argv(run_copy)))
    finally:
        holder.communicate("")
    # once the holder has gone, its lock has too (the file it leaves blocks nothing): the run is trained
    monkeypatch.setattr(trainer, "_train", lambda *a, **k: {"trained": True})
    assert trainer.train(args_of(argv(run_copy))) == {"trained": True}
    assert not (run_copy / rundir.LOCK).exists()  # removed by the run that held it last


@needs_flock
def test_a_new_run_dir_is_made_and_locked_before_the_run_is_built(tmp_path, monkeypatch):
    """A new run directory is made and locked first, then checked and built (one order for a new directory and
    an existing one): the view is built under the lock, and the parts are probed once the lock is held."""
    run = tmp_path / "new"
    real_view, seen = trainer.SingleAgentView, []

    def view(*a, **k):
        seen.append((run / rundir.LOCK).read_text())
        return real_view(*a, **k)

    monkeypatch.setattr(trainer, "SingleAgentView", view)
    monkeypatch.setattr(trainer, "_train", lambda *a, **k: {"trained": True})
    probed = probed_dirs(monkeypatch)
    assert trainer.train(args_of(argv(run))) == {"trained": True}
    assert seen == [f"{os.getpid()}\n"]
    assert probed == [tmp_path]  # the directory above it, before it was made; none of its parts exist yet
    assert not run.exists()  # (the fake run wrote nothing: the directory it made went with the lock)


@needs_flock
def test_a_new_run_dir_made_and_locked_by_another_run_meanwhile_is_refused_and_left_to_it(tmp_path, monkeypatch):
    """Two runs started at once on a new directory: the other one makes and locks it between this one's check
    and its mkdir. This one is refused, and leaves the directory (which it did not make) to the other run."""

    never_train(monkeypatch)
    run = tmp_path / "new"
    real_check, held = rundir.check_run_dir, []

    def check_then_other_run_starts(path):
        real_check(path)
        run.mkdir()
        held.append(hold_lock(run))

    monkeypatch.setattr(rundir, "check_run_dir", check_then_other_run_starts)
    try:
        with pytest.raises(rundir.RunDirBusy, match=f"{run} is being trained by another process"):
            trainer.train(args_of(argv(run)))
    finally:
        os.close(held[0])
    assert [p.name for p in run.iterdir()] == [rundir.LOCK]  # the other run's


def test_a_refused_new_run_leaves_nothing_behind_not_even_the_directories_above(tmp_path, capsys):
    """The run directory is made before the settings are checked against the game; a refusal (a bad option)
    removes it again, and the missing directories above it that it made."""
    code, err = guarded(argv(tmp_path / "a" / "b" / "run", 512, "--set", "learner_seat=5"), capsys)
    assert code == 2 and "learner_seat" in err, err
    assert list(tmp_path.iterdir()) == []


@needs_flock
def test_a_stale_lock_file_blocks_nothing_and_goes_with_the_run(run_copy, monkeypatch):
    """A run killed with SIGKILL leaves RUN/.lock (the system lets go of its lock): listing and checking the
    run dir is not upset by it, the next run resumes and removes it when it ends, also when interrupted."""
    from train.exploitability_curve import snapshots

    (run_copy / rundir.LOCK).write_text("12345\n")
    assert [p.name for p in (run_copy / "checkpoints").iterdir()] == ["step_000000256"]
    assert len(snapshots(run_copy)) == 1
    trainer._recover_saves(run_copy)
    assert main(argv(run_copy, 512)) == 0
    summary = json.loads((run_copy / "summary.json").read_text())
    assert summary["resumed"] is True and summary["timesteps"] == 512
    assert sorted(p.name for p in run_copy.iterdir()) == ["checkpoints", "policy", "resume", "summary.json", "tb"]

    def interrupted(*_a, **_k):
        assert (run_copy / rundir.LOCK).read_text() == f"{os.getpid()}\n"  # held while the run trains
        raise KeyboardInterrupt

    monkeypatch.setattr(trainer, "_train", interrupted)
    with pytest.raises(KeyboardInterrupt):
        trainer.train(args_of(argv(run_copy, 768)))
    assert not (run_copy / rundir.LOCK).exists()


@needs_flock
def test_rllib_refuses_a_locked_run_dir_before_ray_starts_and_leaves_only_what_was_there(tmp_path, monkeypatch):
    """The RLlib trainer takes the same lock (train.rundir) before Ray starts: a held run directory is refused
    with the holder's pid, nothing in it tidied or written; a new one it made is removed again when refused."""
    ray = pytest.importorskip("ray")
    import train.rllib as rllib

    run = tmp_path / "run"
    (run / "rllib.new").mkdir(parents=True)  # what the holder's save is writing (recovery would delete it)
    (run / "rllib.new" / "half").write_bytes(b"half written")
    fd = hold_lock(run)
    try:
        before = tree(run)
        probed = probed_dirs(monkeypatch)
        with pytest.raises(rundir.RunDirBusy, match=rf"{run} is being trained by another process \(pid {os.getpid()}\)"):
            rllib.train("meyer", {"lives": 2}, timesteps=500, run_dir=str(run), progress=False)
        assert tree(run) == before and probed == [run]
    finally:
        os.close(fd)
    assert not ray.is_initialized()

    new, seen = tmp_path / "new", []

    def refused(run_, *_a, **_k):
        seen.append((run_ / rundir.LOCK).read_text())  # held while the run is read
        raise ValueError("refused")

    monkeypatch.setattr(rllib, "_train_locked", refused)
    with pytest.raises(ValueError, match="refused"):
        rllib.train("meyer", {"lives": 2}, timesteps=500, run_dir=str(new), progress=False)
    assert seen == [f"{os.getpid()}\n"] and not new.exists()


# -- F7: a damaged resume/ gets the designed message -----------------------------------------------------------
def test_a_marker_that_does_not_match_is_never_taken_for_a_legacy_save(tmp_path):
    resume = tmp_path / "resume"
    save_checkpoint_atomically(lambda new: (new.mkdir(), (new / "state.json").write_text("{}")), resume, {})
    assert recover_checkpoint(resume, legacy=lambda _p: True) is not None
    (resume / "state.json").write_text("{} ")  # another size than its marker says
    with pytest.raises(ValueError, match="holds an incomplete checkpoint"):
        recover_checkpoint(resume, legacy=lambda _p: True)
    (resume / MARKER).unlink()  # no marker: a save of a version that wrote none, as before
    assert recover_checkpoint(resume, legacy=lambda _p: True) == {}


def _flip(path: Path, start: int = 20, count: int = 64) -> None:
    data = bytearray(path.read_bytes())
    for i in range(start, min(start + count, len(data))):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))  # (the same size: the marker does not see it)


HINT = "to train this run afresh (its checkpoints/ stay), or use another --run-dir"


@pytest.mark.parametrize("damage, named", [
    ("truncated model.zip", "resume holds an incomplete resume directory"),
    ("model.zip", "resume/model.zip cannot be read"),
    ("vecnormalize.pkl", "resume/vecnormalize.pkl cannot be read"),
    ("state.json", "resume/state.json cannot be read"),
    ("state.json of a list, no marker", "resume/state.json cannot be read"),
])  # fmt: skip
def test_a_damaged_resume_dir_says_which_file_and_what_to_do(run_copy, damage, named, capsys):
    resume = run_copy / "resume"
    if damage == "truncated model.zip":
        os.truncate(resume / "model.zip", 1000)
    elif damage == "state.json of a list, no marker":
        (resume / MARKER).unlink()
        (resume / "state.json").write_text("[1, 2]")
    else:
        _flip(resume / damage, start=20 if damage == "vecnormalize.pkl" else (resume / damage).stat().st_size // 3)
    before = tree(run_copy)
    code, err = guarded(argv(run_copy), capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert named in err and HINT in err and "delete" in err, err
    assert "too large" not in err and "Traceback" not in err
    assert tree(run_copy) == before


# -- F8: an env process that dies ------------------------------------------------------------------------------
def test_a_dead_env_process_says_where_the_run_is_saved(run_copy, monkeypatch, capsys):
    """A SubprocVecEnv env process killed (as by the OOM killer) after a period: one line with the saved
    step and the way on, exit 1 (before: ``[Errno 104] Connection reset by peer``)."""
    real_timed, real_save, processes = trainer._timed_vec_env, trainer._save_resume, []

    def timed(venv):
        inner = venv
        while not hasattr(inner, "processes"):
            inner = inner.venv  # VecNormalize, VecMonitor, SubprocVecEnv
        processes.extend(inner.processes)
        return real_timed(venv)

    def save_then_kill_an_env(resume_dir, model, venv, state):
        real_save(resume_dir, model, venv, state)
        if state["timesteps"] == 512:
            os.kill(processes[0].pid, signal.SIGKILL)
            processes[0].join(10)

    monkeypatch.setattr(trainer, "_timed_vec_env", timed)
    monkeypatch.setattr(trainer, "_save_resume", save_then_kill_an_env)
    code, err = guarded(argv(run_copy, 1024, "--set", "vec_env=subproc"), capsys)
    assert code == 1, err
    line = err.strip().splitlines()[-1]
    assert line.startswith("dice-envs train: an env process died (killed, or out of memory?)"), err
    assert line.endswith(f"the run is saved at step 512 in {run_copy}: the same command resumes"), err
    assert "Traceback" not in err
    assert not (run_copy / rundir.LOCK).exists()


def _pipe_of_a_dead_env():
    """Raise what SubprocVecEnv.step_wait raises when its env process has died: the other end of its pipe is gone."""
    from multiprocessing import Pipe

    from stable_baselines3.common.vec_env import SubprocVecEnv

    ours, theirs = Pipe()
    theirs.close()
    venv = SubprocVecEnv.__new__(SubprocVecEnv)  # (only its pipes: no process is started)
    venv.remotes, venv.waiting = [ours], True
    try:
        venv.step_wait()
    finally:
        ours.close()


def test_an_env_pipe_error_is_said_only_for_subprocess_envs(run_copy, monkeypatch):
    monkeypatch.setattr(trainer, "_train", lambda *_a, **_k: _pipe_of_a_dead_env())
    with pytest.raises(CommandFailed, match=rf"env process died \(.*EOFError.*saved at step 256 in {run_copy}: the same"):
        trainer.train(args_of(argv(run_copy, 512, "--set", "vec_env=subproc")))
    with pytest.raises(EOFError):  # in-process envs: not an env process
        trainer.train(args_of(argv(run_copy, 512)))


def test_a_closed_stdout_is_no_dead_env_process(run_copy, monkeypatch, capsys):
    """A BrokenPipeError that is not the envs' (``print`` to a closed pipe: ``dice-envs train ... | head`` with
    the kickstart's lines) is not reported as a dead env: the command line ends quietly with 141."""

    def closed_stdout(*_a, **_k):
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")  # (as print to a closed pipe raises it)

    monkeypatch.setattr(trainer, "_train", closed_stdout)
    with pytest.raises(BrokenPipeError):
        trainer.train(args_of(argv(run_copy, 512, "--set", "vec_env=subproc")))
    code, err = guarded(argv(run_copy, 512, "--set", "vec_env=subproc"), capsys)
    assert code == 141 and "env process died" not in err, err


# -- F9, F10: run directories that cannot be written, full disks, --config of another kind -----------------------
def test_a_run_dir_that_is_a_file_or_under_one_is_refused(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    code, err = guarded(argv(afile), capsys)
    assert code == 2 and err.strip() == (f"dice-envs train: --run-dir {afile} is a file, not a directory: give a "
                                         "directory for the run (made if it does not exist)")  # fmt: skip
    code, err = guarded(argv(afile / "r"), capsys)
    assert code == 2 and err.strip() == f"dice-envs train: --run-dir {afile / 'r'}: {afile} is a file, not a directory"
    assert afile.read_text() == "x" and sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize("refusing", ["run", "tb", "parent"])
def test_an_unwritable_part_of_the_run_dir_is_refused_before_anything(run_copy, refusing, monkeypatch, capsys):
    """Simulated (root writes anywhere): tempfile.mkstemp refuses the directory, as the system would."""
    never_train(monkeypatch)
    built = []
    monkeypatch.setattr(trainer, "SingleAgentView", lambda *a, **k: built.append(1))
    run = run_copy if refusing != "parent" else run_copy / "new"
    place = {"run": run_copy, "tb": run_copy / "tb", "parent": run_copy}[refusing]
    real = tempfile.mkstemp

    def mkstemp(*a, dir=None, **k):
        if dir is not None and Path(dir) == place:
            raise PermissionError(errno.EACCES, "Permission denied", str(Path(dir) / ".dice-envs-probe-x"))
        return real(*a, dir=dir, **k)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    before = tree(run_copy)
    code, err = guarded(argv(run), capsys)
    assert code == 1
    assert err.strip() == (f"dice-envs train: --run-dir {run}: cannot write in {place} (Permission denied): make "
                           "it writable, or use another --run-dir")  # fmt: skip
    assert not built and tree(run_copy) == before


def test_a_read_only_run_dir_really_refused(run_copy):
    """The real thing: a read-only run directory, refused in one line before any env is built (no TensorBoard
    thread traceback). As root, root's capabilities to ignore permissions are dropped with setpriv."""
    prefix = unprivileged_prefix()
    for path in [run_copy, *run_copy.rglob("*")]:
        if path.is_dir():
            path.chmod(0o555)
    try:
        out = subprocess.run([*prefix, sys.executable, "-m", "train", *argv(run_copy)], cwd=ROOT, text=True,
                             capture_output=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    finally:
        for path in [run_copy, *run_copy.rglob("*")]:
            if path.is_dir():
                path.chmod(0o755)
    assert out.returncode == 1, out.stderr
    assert out.stderr.strip() == (f"dice-envs train: --run-dir {run_copy}: cannot write in {run_copy} (Permission "
                                  "denied): make it writable, or use another --run-dir")


def test_a_full_disk_while_copying_the_policy_names_the_file(tmp_path):
    checkpoint = tmp_path / "checkpoints" / "step_000000256"
    checkpoint.mkdir(parents=True)
    (checkpoint / "policy.json").write_text("{}")
    (checkpoint / "policy.safetensors").write_bytes(b"x" * 100)
    target = tmp_path / "policy.new" / "policy.safetensors"
    real = shutil.copytree

    def full(src, dst, *a, **k):  # what copytree raises on a full disk: a list of the failed copies
        real(src, dst, *a, **k)
        raise shutil.Error([(str(checkpoint / "policy.safetensors"), str(target),
                             f"[Errno 28] No space left on device: '{target}'")])

    shutil.copytree = full
    try:
        with pytest.raises(OSError) as caught:
            trainer._refresh_policy(tmp_path, str(checkpoint))
    finally:
        shutil.copytree = real
    assert str(caught.value) == f"cannot save {tmp_path / 'policy'} (No space left on device: '{target}')"
    assert caught.value.errno == errno.ENOSPC
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoints"]  # the half-written copy went


def test_a_full_disk_while_saving_resume_names_the_file(tmp_path):
    class Model:
        def save(self, path):
            Path(path).write_bytes(b"half")
            raise OSError(errno.ENOSPC, "No space left on device")  # (as zipfile says it: no file named)

    with pytest.raises(OSError) as caught:
        trainer._save_resume(tmp_path / "resume", Model(), Model(), {"timesteps": 256})
    assert str(caught.value) == (f"cannot save {tmp_path / 'resume'} (No space left on device: "
                                 f"{tmp_path / 'resume.new' / 'model.zip'})")  # fmt: skip
    assert list(tmp_path.iterdir()) == []


def test_a_config_that_is_a_directory_or_a_fifo_says_so(tmp_path, capsys):
    (tmp_path / "dir.toml").mkdir()
    code, err = guarded(["meyer", "--config", str(tmp_path / "dir.toml")], capsys)
    assert code == 2 and err.strip() == (f"dice-envs train: --config {tmp_path / 'dir.toml'} is a directory: give a "
                                         "JSON or TOML file of training fields")  # fmt: skip
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.toml")
        code, err = guarded(["meyer", "--config", str(tmp_path / "fifo.toml")], capsys)  # (never opened: no hang)
        assert code == 2 and f"--config {tmp_path / 'fifo.toml'} is a FIFO (named pipe)" in err
