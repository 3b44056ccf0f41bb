"""A run killed outright (SIGKILL, the OOM killer, a power cut) in the middle of a save loses nothing.

``resume/`` (model, statistics, state) and ``policy/`` are each written whole beside their place and
swapped in by two renames; between the renames neither name exists. The next ``train`` puts the newer
whole copy back (``train.trainer._recover``). The kills here are real: a child process dies by SIGKILL
at each point of the swap.
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

    trainer.os.replace = replace
    trainer._save_resume(resume, Model(), Venv(), {"timesteps": 512})
    """
)


def _old_resume(resume: Path) -> None:
    resume.mkdir()
    (resume / "model.zip").write_text("model at 256")
    (resume / "vecnormalize.pkl").write_text("statistics at 256")
    (resume / "state.json").write_text('{"timesteps": 256}')


def _killed_save(tmp_path: Path, kill_after: int) -> subprocess.CompletedProcess:
    resume = tmp_path / "resume"
    _old_resume(resume)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", CHILD, str(resume), str(kill_after)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip


@pytest.mark.parametrize("kill_after", [1, 2, 3])
def test_a_save_killed_at_any_rename_leaves_or_recovers_one_whole_resume(tmp_path, kill_after):
    """Renames, in order: state.json into resume.tmp/ (1), resume/ aside to resume.old/ (2), resume.tmp/
    into place (3). Killed after the 2nd, no resume/ exists until _recover puts the new one in."""
    from train.trainer import _recover

    child = _killed_save(tmp_path, kill_after)
    assert child.returncode == -signal.SIGKILL, child.stderr
    resume = tmp_path / "resume"
    assert resume.exists() == (kill_after != 2)
    _recover(resume)
    state = json.loads((resume / "state.json").read_text())["timesteps"]
    # killed before the swap began: the old whole set; after its first rename: the new whole set
    expected = 256 if kill_after == 1 else 512
    assert state == expected
    assert (resume / "model.zip").read_text() == f"model at {expected}"
    assert (resume / "vecnormalize.pkl").read_text() == f"statistics at {expected}"


def test_recover_leaves_a_whole_directory_and_a_never_swapped_one_alone(tmp_path):
    from train.trainer import _recover

    _old_resume(tmp_path / "resume")
    (tmp_path / "resume.tmp").mkdir()  # a save killed while writing aside: maybe half written
    assert _recover(tmp_path / "resume") is False
    assert json.loads((tmp_path / "resume" / "state.json").read_text()) == {"timesteps": 256}
    first = tmp_path / "first"
    (first.with_name("policy.tmp")).mkdir(parents=True)  # the first policy, killed while being copied
    assert _recover(first / "policy") is False and not (first / "policy").exists()


def test_only_the_old_copy_left_goes_back(tmp_path):
    from train.trainer import _recover

    _old_resume(tmp_path / "resume.old")  # (a .tmp removed by hand, say)
    assert _recover(tmp_path / "resume") is True
    assert json.loads((tmp_path / "resume" / "state.json").read_text()) == {"timesteps": 256}


def test_train_resumes_a_run_killed_between_the_renames(tmp_path, monkeypatch, capsys):
    """The whole path: a run saved at step 256, then killed with resume/ and policy/ renamed aside and
    the new copies beside them (the state between _swap_in's renames); the same command resumes."""
    pytest.importorskip("sb3_contrib")
    from test_train_cli import TINY
    from test_train_resume import interrupted_after_first_period
    from train.cli import main

    run = tmp_path / "run"
    argv = ["meyer", "--lives", "2", "--timesteps", "512", "--run-dir", str(run), *TINY]
    interrupted_after_first_period(monkeypatch, argv)
    for name in ("resume", "policy"):
        os.rename(run / name, run / f"{name}.tmp")  # the new whole copy, not yet in place
        (run / f"{name}.old").mkdir()  # the old one, moved aside
    capsys.readouterr()
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"{run / 'resume'}: put back from resume.tmp/.old" in err and f"{run / 'policy'}: put back" in err
    summary = json.loads((run / "summary.json").read_text())
    assert summary["resumed"] is True and summary["timesteps"] == 512
    assert sorted(p.name for p in run.iterdir()) == ["checkpoints", "policy", "resume", "summary.json", "tb"]
