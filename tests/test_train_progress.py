"""Training's progress bars: redrawn on a terminal, a plain line at a time in a log (train.progress)."""

import io
import sys

import pytest

pytest.importorskip("tqdm")

from dice_envs import progress  # noqa: E402
from test_train_cli import TINY, run_train  # noqa: E402


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("terminal", [True, False])
def test_a_bar_redraws_on_a_terminal_and_writes_lines_in_a_log(monkeypatch, terminal):
    stream = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(progress, "LOG_EVERY", 0.0)  # every update a line, for the test
    with progress.progress_bar(total=3, desc="train meyer", unit="step") as bar:
        for _ in range(3):
            bar.update(1)
            bar.set_postfix(honest=0.5)
    text = stream.getvalue()
    if terminal:
        assert "\r" in text  # tqdm redraws in place
    else:
        lines = text.splitlines()
        assert "\r" not in text and all(line.startswith("train meyer: ") for line in lines)
        counts = [line.split(" [")[0].split()[-1] for line in lines]
        assert counts == sorted(set(counts), key=counts.index) and counts[-1] == "3/3"  # no count twice
        assert "honest=0.5" in lines[-1] and "|" not in text  # the figures, without the bar


def test_a_training_run_logged_to_a_file_has_no_carriage_returns(tmp_path):
    words = [w for w in TINY if w != "--no-progress"]
    out = run_train("meyer", "--lives", "2", "--timesteps", "256", "--seed", "1", "--run-dir", str(tmp_path / "run"), *words)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "\r" not in out.stderr
    assert any(line.startswith("train meyer: 100% 256/256") for line in out.stderr.splitlines()), out.stderr


def test_new_figures_in_a_log_wait_for_the_next_line(monkeypatch):
    """set_postfix once a period printed a line each period in a log (outside review 8): now the
    figures go out with the next line, at most every LOG_EVERY seconds, and at the end."""
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    with progress.progress_bar(total=100, desc="train meyer", unit="step") as bar:
        for k in range(100):
            bar.update(1)
            bar.set_postfix(honest=k / 100)
            bar.set_postfix_str(f"gap {k}")
    lines = stream.getvalue().splitlines()
    assert len(lines) <= 2, lines  # the start (maybe) and the end, not a line per figure
    assert lines[-1].startswith("train meyer: 100% 100/100") and "gap 99" in lines[-1]
