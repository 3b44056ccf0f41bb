"""A command that needs a package of an extra this installation lacks says which extra to install.

The core install is gymnasium + pettingzoo + numpy (CONTRACTS.md, "Extras"). Solver agents, trained
checkpoints, training and report pictures import their packages only when used; each such import
failing must end in one line naming the ``pip install``, exit 1, never a traceback. The tests run
the command line in a subprocess in which the named packages cannot be imported.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from dice_envs.extras import EXTRA_OF, NotInstalled, install_hint, missing_package

ROOT = Path(__file__).resolve().parent.parent

BLOCKER = """
import sys, importlib.abc
blocked = set(sys.argv[1].split(","))
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Block())
from dice_envs import cli
sys.exit(cli.main(sys.argv[2:]))
"""


def run_without(packages, *args, cwd=None):
    proc = subprocess.run(
        [sys.executable, "-c", BLOCKER, ",".join(packages), *args], capture_output=True, text=True, cwd=cwd, check=False
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_every_optional_package_of_pyproject_has_its_extra():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for extra, requirements in project["optional-dependencies"].items():
        for requirement in requirements:
            name = requirement.split(";")[0].split("[")[0].split("=")[0].split(">")[0].split("<")[0].strip()
            module = {"stable-baselines3": "stable_baselines3", "sb3-contrib": "sb3_contrib", "pygame-ce": "pygame",
                      "open-spiel": "open_spiel"}.get(name, name)
            if module == "tomli":  # only for Python < 3.11, imported under another name
                continue
            assert module in EXTRA_OF, f"{name} of [{extra}] is not in dice_envs.extras.EXTRA_OF"
            assert extra == EXTRA_OF[module] or module in ("tqdm", "scipy"), (name, extra, EXTRA_OF[module])


def test_the_hint_names_the_extra_or_the_package():
    assert install_hint("numba") == "pip install 'dice-envs[solve]'"
    assert install_hint("torch.nn") == "pip install 'dice-envs[train]'"
    assert install_hint("openskill.models") == "pip install 'dice-envs[report]'"
    assert install_hint("unheard_of") == "pip install unheard_of"


def test_only_a_package_of_an_extra_that_cannot_be_imported_counts_as_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)  # as if scipy were not installed
    foreign = missing_package(ModuleNotFoundError("x", name="scipy.optimize"), "agent 'equilibrium' for meyer")
    assert isinstance(foreign, NotInstalled) and isinstance(foreign, ValueError)
    assert str(foreign) == (
        "agent 'equilibrium' for meyer needs the package 'scipy', which is not installed: pip install 'dice-envs[solve]'"
    )
    own = ModuleNotFoundError("x", name="agents.gone")
    assert str(missing_package(own, "agent 'x' for syvere", own=True)) == (
        "agent 'x' for syvere is not available: its module agents.gone is missing from this installation"
    )
    # Bugs and broken installations keep their traceback: a module of our own not imported by
    # name, a package of no extra (a typo), a missing part of an installed package, no name at all.
    assert missing_package(own, "x") is None
    assert missing_package(ModuleNotFoundError("x", name="jsonn"), "x") is None
    assert missing_package(ModuleNotFoundError("x", name="numpy.no_such_part"), "x") is None
    assert missing_package(ModuleNotFoundError("x", name="torch.no_such_part"), "x") is None  # torch is installed
    assert missing_package(ModuleNotFoundError("No module named 'numba'"), "x") is None
    # A package of no extra counts when the caller names the extra to suggest (a subcommand's own).
    assert "pip install 'dice-envs[train]'" in str(missing_package(ModuleNotFoundError("x", name="h2_gone"), "x", extra="train"))


def test_a_bug_that_imports_a_missing_module_keeps_its_traceback(monkeypatch):
    from dice_envs import cli

    def buggy(argv):
        import jsonn  # noqa: F401  (a typo in our own code, not a missing extra)

    with pytest.raises(ModuleNotFoundError, match="jsonn"):
        cli.run_guarded(buggy, ["match"])


def test_a_solver_agent_without_numba():
    proc = run_without(["numba"], "match", "syvere", "--agents", "endgame", "heuristic", "--games", "2")
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "dice-envs: agent 'endgame' for syvere needs the package 'numba', which is not installed: "
        "pip install 'dice-envs[solve]'"
    )


def test_the_trained_agent_without_safetensors():
    proc = run_without(["safetensors"], "match", "meyer", "--agents", "trained", "honest", "--games", "2")
    assert proc.returncode == 1
    assert "needs the package 'safetensors', which is not installed: pip install 'dice-envs[train]'" in proc.stderr


def test_solve_without_scipy():
    proc = run_without(["scipy"], "solve", "meyer")
    assert proc.returncode == 1
    assert "`dice-envs solve` needs the package 'scipy', which is not installed: pip install 'dice-envs[solve]'" in proc.stderr


def test_train_without_torch_creates_nothing(tmp_path):
    run = tmp_path / "run"
    proc = run_without(["torch"], "train", "meyer", "--timesteps", "100", "--run-dir", str(run))
    assert proc.returncode == 1
    assert "`dice-envs train` needs the package 'torch', which is not installed: pip install 'dice-envs[train]'" in proc.stderr
    assert not run.exists()


@pytest.mark.parametrize("blocked", [["matplotlib"], []])
def test_a_report_without_matplotlib_has_its_files_but_no_pictures(tmp_path, blocked):
    report = tmp_path / "report"
    proc = run_without(
        blocked, "tournament", "meyer", "--agents", "honest", "doubter", "--games", "2",
        "--db", str(tmp_path / "t.sqlite"), "--report", str(report),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    files = {p.name for p in report.iterdir()}
    assert {"leaderboard.csv", "head_to_head.csv", "bluffing.csv", "report.json"} <= files
    pictures = {"head_to_head.png", "ratings.png", "bluffing.png"}
    if blocked:
        assert not files & pictures
        assert "the report will have no pictures, as matplotlib is not installed (pip install 'dice-envs[report]')" in proc.stderr
    else:
        assert pictures <= files
        assert "no pictures" not in proc.stderr


def test_a_tournament_of_four_player_tables_without_openskill_refuses_before_any_game(tmp_path):
    db = tmp_path / "t.sqlite"
    proc = run_without(
        ["openskill"], "tournament", "syvere", "--num-players", "4", "--agents", "heuristic", "random", "optimal",
        "heuristic:stop_at=9", "--games", "2", "--db", str(db),
    )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "dice-envs: rating 4-player tables (Plackett-Luce) needs the package 'openskill', which is not installed: "
        "pip install 'dice-envs[report]'"
    )
    assert "games to play" not in proc.stderr
    # Two-player tables are rated by Bradley-Terry, which needs no openskill.
    proc = run_without(["openskill"], "tournament", "syvere", "--agents", "heuristic", "random", "--games", "2", "--no-db")
    assert proc.returncode == 0, proc.stderr
    assert "heuristic" in proc.stdout


def test_bench_without_pygame_names_the_dev_extra():
    proc = run_without(["pygame"], "bench", "--steps", "10", "--rounds", "1")
    assert proc.returncode == 1
    assert proc.stderr == (
        "dice-envs: the bench compares with PettingZoo's tictactoe_v3, which needs pygame-ce: pip install 'dice-envs[dev]'\n"
    )


@pytest.mark.parametrize("progress", [[], ["--no-progress"]])
def test_evaluating_a_built_in_agent_needs_no_extra(progress):
    # `train --evaluate` of a registered agent plays games only: no torch, and no tqdm (then no bar).
    proc = run_without(
        ["torch", "tqdm", "safetensors"], "train", "syvere", "--evaluate", "optimal", "--opponents", "heuristic",
        "--deals", "5", *progress,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "syvere: optimal vs heuristic: win rate" in proc.stdout


def test_a_checkpoint_path_is_checked_before_safetensors_is_needed(tmp_path):
    proc = run_without(["safetensors"], "match", "meyer", "--agents", str(tmp_path / "nope"), "honest", "--games", "2")
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"dice-envs: checkpoint '{tmp_path / 'nope'}': no such file or directory"
    proc = run_without(["safetensors"], "play", "meyer", "--opponents", "agents/trained/meyer", cwd=ROOT)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        "dice-envs: checkpoint 'agents/trained/meyer' needs the package 'safetensors', which is not installed: "
        "pip install 'dice-envs[train]'"
    )


def test_the_openspiel_games_without_open_spiel_name_the_extra():
    code = BLOCKER.replace("from dice_envs import cli\nsys.exit(cli.main(sys.argv[2:]))\n", "import dice_envs.openspiel\n")
    proc = subprocess.run([sys.executable, "-c", code, "pyspiel,open_spiel"], capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "dice_envs.extras.NotInstalled: dice_envs.openspiel (the games for OpenSpiel) needs the package 'pyspiel', "
        "which is not installed: pip install 'dice-envs[openspiel]'"
    )
