"""The typed packages (dice_envs, agents, evaluate, train) type-check cleanly.

Each ships a ``py.typed`` marker (PEP 561), so users' type checkers read our annotations: they must
hold. The check is the one ``[tool.mypy]`` in pyproject.toml configures (``python -m mypy`` with no
arguments), run in a subprocess from the repository root.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_mypy_reports_no_errors(tmp_path):
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy_cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = result.stdout + result.stderr
    print(output)
    assert result.returncode == 0, f"mypy reported errors:\n{output}"
    assert "Success: no issues found" in result.stdout, output
