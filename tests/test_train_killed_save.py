"""A run killed outright (SIGKILL, the OOM killer, a power cut) in the middle of a save loses nothing.

``resume/`` (model, statistics, state) and ``policy/`` are saved whole beside their place, marked
complete last and swapped in by two renames (:mod:`train.atomic`, which the RLlib trainer's saves use
too). The next ``train`` tidies what a killed save left: the newest whole save goes in. The kills here
are real: a child process dies by SIGKILL after each rename of a save of ``resume/``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from train.atomic import MARKER, complete_checkpoint, recover_checkpoint

ROOT = Path(__file__).resolve().parent.parent

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    import train.trainer as trainer

    class Model:
        def save(self, path):
            Path(path).write_text("model at 512")

    class Venv:
        def save(self, path):
            Path(path).write_text("statistics at 512")

    resume, kill_after = Path(sys.argv[1]), int(sys.argv[2])
    real_replace, renames = os.replace, []

    def replace(src, dst):
        real_replace(src, dst)
        renames.append(Path(dst).name)
        if len(renames) == kill_after:
            os.kill(os.getpid(), signal.SIGKILL)

    os.replace = replace
    trainer._save_resume(resume, Model(), Venv(), {"timesteps": 512})
    print(renames)
    """
)


def _resume_at(path: Path, step: int) -> None:
    """A whole resume directory as a version before the marker saved it (state.json last)."""
    path.mkdir()
    (path / "model.zip").write_text(f"model at {step}")
    (path / "vecnormalize.pkl").write_text(f"statistics at {step}")
    (path / "state.json").write_text(json.dumps({"timesteps": step}))


def _recover(resume: Path) -> dict | None:
    from train.trainer import _recover_saves

    _recover_saves(resume.parent)
    return None if not resume.exists() else json.loads((resume / "state.json").read_text())


def _killed_save(tmp_path: Path, kill_after: int) -> subprocess.CompletedProcess:
    _resume_at(tmp_path / "resume", 256)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "resume"), str(kill_after)], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)  # fmt: skip


@pytest.mark.parametrize("kill_after, expected", [(1, 256), (2, 512), (3, 512), (4, 512)])
def test_a_save_killed_after_any_rename_leaves_one_whole_save(tmp_path, kill_after, expected):
    """Renames, in order: state.json into resume.new/ (1), the marker into place (2: resume.new is now
    whole), resume/ aside to resume.old/ (3), resume.new/ into place (4). Whatever the kill left, the
    next start keeps one whole save, the newest one that was whole, and nothing beside it."""
    child = _killed_save(tmp_path, kill_after)
    assert child.returncode == -signal.SIGKILL, child.stderr
    resume = tmp_path / "resume"
    assert resume.exists() == (kill_after != 3)  # between the two renames there is no resume/
    assert _recover(resume) == {"timesteps": expected}
    assert (resume / "model.zip").read_text() == f"model at {expected}"
    assert (resume / "vecnormalize.pkl").read_text() == f"statistics at {expected}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["resume"]  # nothing left beside it
    assert (complete_checkpoint(resume) is None) == (expected == 256)  # the old one had no marker


def test_a_whole_save_beside_which_an_old_copy_was_left_is_kept_and_the_old_copy_goes(tmp_path):
    """A kill while the replaced copy was being deleted leaves it (maybe half deleted) beside a whole
    save: it is deleted at the next start, so that deleting resume/ by hand later does not bring it back."""
    from train.trainer import _save_resume

    class Saves:
        def __init__(self, text):
            self.text = text

        def save(self, path):
            Path(path).write_text(self.text)

    resume = tmp_path / "resume"
    _save_resume(resume, Saves("model at 512"), Saves("statistics at 512"), {"timesteps": 512})
    _resume_at(tmp_path / "resume.old", 256)
    (tmp_path / "resume.old" / "model.zip").unlink()  # half deleted
    assert _recover(resume) == {"timesteps": 512}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["resume"]
    import shutil

    shutil.rmtree(resume)  # the user starts afresh
    assert _recover(resume) is None


def test_a_half_written_save_is_never_put_in(tmp_path):
    """A save killed before its marker: with no resume/ and a whole old copy beside, the old copy goes
    back; with nothing else, the half-written one is deleted and the run starts afresh."""
    from train.atomic import save_checkpoint_atomically

    _resume_at(tmp_path / "resume.new", 512)  # all three files, but no marker: not known to be whole
    save_checkpoint_atomically(lambda new: _resume_at(new, 256), tmp_path / "resume.old", {})
    assert _recover(tmp_path / "resume") == {"timesteps": 256}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["resume"]
    lone = tmp_path / "lone"
    lone.mkdir()
    _resume_at(lone / "resume.new", 512)
    assert _recover(lone / "resume") is None and list(lone.iterdir()) == []


def test_an_incomplete_resume_directory_is_refused_with_what_to_do(tmp_path):
    resume = tmp_path / "resume"
    resume.mkdir()
    (resume / "model.zip").write_text("half a run")  # no state.json and no marker
    with pytest.raises(ValueError, match="holds an incomplete resume directory .* delete it to train this run afresh"):
        recover_checkpoint(resume, "resume directory", legacy=lambda p: (p / "state.json").is_file(),
                           hint="delete it to train this run afresh")  # fmt: skip


def test_train_resumes_a_run_killed_between_the_renames(tmp_path, monkeypatch, capsys):
    """The whole path: a run saved at step 256, then killed with resume/ and policy/ renamed aside and the
    new whole copies beside them (the state between the swap's renames); the same command resumes."""
    pytest.importorskip("sb3_contrib")
    from test_train_cli import TINY
    from test_train_resume import interrupted_after_first_period
    from train.cli import main

    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--timesteps", "512", "--run-dir", str(run), *TINY]
    interrupted_after_first_period(monkeypatch, argv)
    assert complete_checkpoint(run / "resume") is not None and complete_checkpoint(run / "policy") is not None
    for name in ("resume", "policy"):
        os.rename(run / name, run / f"{name}.new")  # the new whole copy, not yet in place
        (run / f"{name}.old").mkdir()  # the old one, moved aside (here: empty)
    capsys.readouterr()
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"{run / 'resume'}: tidied what an interrupted save left (resume.new, resume.old)" in err
    assert f"{run / 'policy'}: tidied what an interrupted save left" in err
    summary = json.loads((run / "summary.json").read_text())
    assert summary["resumed"] is True and summary["timesteps"] == 512
    assert sorted(p.name for p in run.iterdir()) == ["checkpoints", "policy", "resume", "summary.json", "tb"]
