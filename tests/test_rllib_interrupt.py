"""Ctrl-C in a terminal during RLlib self-play with a remote env runner (marked ``ray``).

A terminal's Ctrl-C sends SIGINT to the whole foreground process group, the driver and whatever it
started; the run must still save after its train batch, exit 130, and resume from there. The test
runs the command in a session of its own and signals that group, as a terminal does. It starts
its own local Ray instance (no ``ray_instance`` fixture: a second Ray in the same test process
is not wanted).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.ray
def test_ctrl_c_with_a_remote_env_runner_saves_and_the_same_command_resumes(tmp_path):
    pytest.importorskip("ray")
    from train.rllib import MARKER

    run = tmp_path / "run"
    log = tmp_path / "log.txt"
    command = [sys.executable, "-m", "train.rllib", "meyer", "--timesteps", "1000000", "--env-runners", "1",
               "--batch", "500", "--seed", "3", "--run-dir", str(run)]  # fmt: skip
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    with log.open("w") as out:
        # (restore_signals does not restore SIGINT: a test run started in the background would pass it on
        # ignored, and the trainer rightly keeps an ignored Ctrl-C ignored)
        process = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True,
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
        try:
            deadline = time.monotonic() + 180
            while not re.search(r"self-play:\s+\d+%\s+[1-9]\d*/", log.read_text()):  # steps are counted
                assert process.poll() is None, log.read_text()[-2000:]
                assert time.monotonic() < deadline, "no training step within 180 s"
                time.sleep(0.5)
            os.killpg(process.pid, signal.SIGINT)
            assert process.wait(timeout=180) == 130, log.read_text()[-2000:]
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
    text = log.read_text()
    saved = re.search(r"interrupted: saved (\d+) env steps in (\S+); run the same command to resume", text)
    assert saved, text[-2000:]
    steps = int(saved.group(1))
    assert json.loads((run / "rllib" / MARKER).read_text())["steps"] == steps
    assert 0 < steps < 1_000_000
    resumed = subprocess.run([*command[:5], str(steps + 500), *command[6:], "--no-progress"], cwd=REPO, env=env,
                             capture_output=True, text=True, timeout=300)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"resumed at {steps}," in resumed.stdout + resumed.stderr
    assert (run / "policy").is_dir()
