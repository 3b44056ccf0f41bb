"""``python -m dice_envs.openspiel [SECONDS]`` (outside review): ``--help`` says what SECONDS is, and a
bad value is refused in one line with exit status 2, not a ``float()`` traceback."""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")  # the module needs the [openspiel] extra to be imported at all

ROOT = Path(__file__).resolve().parents[1]


def run(*words):
    return subprocess.run([sys.executable, "-m", "dice_envs.openspiel", *words], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_help_documents_seconds():
    out = run("--help")
    assert out.returncode == 0, out.stderr
    assert "usage: python -m dice_envs.openspiel [-h] [SECONDS]" in out.stdout
    assert "seconds of each of the four measurements" in out.stdout and "default 3" in out.stdout
    assert out.stderr == ""


@pytest.mark.parametrize("bad", ["--help-me", "ten", "0", "-1", "nan", "inf", ""])
def test_a_bad_value_exits_2_without_a_traceback(bad):
    out = run(bad)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""
    assert out.stderr.startswith("python -m dice_envs.openspiel: ")
    if bad != "--help-me":
        assert "argument SECONDS: must be a number of seconds above 0" in out.stderr.splitlines()[0]


def test_main_prints_the_figures_for_the_seconds_given(capsys, monkeypatch):
    from dice_envs import openspiel

    asked = []
    monkeypatch.setattr(openspiel, "bench",
                        lambda seconds: asked.append(seconds) or [f"figures for {seconds}"])
    assert openspiel.main(["10"]) == 0 and openspiel.main([]) == 0 and openspiel.main(["0.5"]) == 0
    assert asked == [10.0, 3.0, 0.5]  # as float(sys.argv[1]) read it; 3 when left out
    assert capsys.readouterr().out.splitlines() == ["figures for 10.0", "figures for 3.0", "figures for 0.5"]
