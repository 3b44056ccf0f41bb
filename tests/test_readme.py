"""The README's Quick start, and the Python examples of the README and of the docs/*.md pages."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]  # the README and every documentation page


def code_blocks(language, path=README):
    return re.findall(rf"```{language}\n(.*?)```", path.read_text(), flags=re.S)


def test_quick_start_has_the_main_job_then_the_tests():
    text = README.read_text()
    section = text.split("## Quick start", 1)[1]
    first_block = re.search(r"```\w*\n(.*?)```", section, flags=re.S).group(1)
    commands = [line for line in first_block.splitlines() if line.strip() and not line.startswith("#")]
    assert commands == ["make run", "make test"]
    ci = (README.parent / ".ci" / "run").read_text()
    assert "make test" in ci


def test_python_examples_run(capsys, tmp_path, monkeypatch):
    from dice_envs.cli import main

    monkeypatch.chdir(tmp_path)  # the store example reads results/tenthousand.sqlite: a small one here
    assert main(["tournament", "tenthousand", "--agents", "heuristic", "greedy", "--games", "10", "--workers", "1",
                 "--db", "results/tenthousand.sqlite"]) == 0  # fmt: skip
    capsys.readouterr()
    assert len(code_blocks("python")) >= 1  # the README's first example
    blocks = [(block, path) for path in PAGES for block in code_blocks("python", path)]
    assert len(blocks) >= 6
    for block, path in blocks:
        exec(compile(block, str(path), "exec"), {})
    out = capsys.readouterr().out
    assert "final totals:" in out  # README, Using an env
    assert re.search(r"^\d+ busts in [1-9]\d* rolls$", out, flags=re.M)  # docs/tournaments.md, the results store
