"""``dice-envs solve`` (issue 8, items 7-8): summaries, ``--json``'s last line, ``--bench``, errors."""

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

from agents.solvers import cli
from agents.solvers import syvere as sy
from agents.solvers import tenthousand as tts

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *words):
    assert cli.main(list(words)) == 0
    out = capsys.readouterr().out.strip().splitlines()
    return out, json.loads(out[-1])


def test_syvere_json_last_line_holds_the_exact_value(capsys, tmp_path):
    lines, data = run(capsys, "syvere", "--json", "--no-progress", "--cache-dir", str(tmp_path))
    assert data["value"] == float(sy.roll_value(6, 3)) and data["roll_limit"] == 3
    assert data["value_exact"] == f"{sy.roll_value(6, 3).numerator}/{sy.roll_value(6, 3).denominator}"
    assert Path(data["table"]).exists() and Path(data["table"]).parent == tmp_path
    assert any("starter's trade-off" in line for line in lines)
    assert [r["rolls"] for r in data["starter_tradeoff"]] == [1, 2, 3]


@pytest.mark.parametrize("limit", [1, 2])
def test_syvere_roll_limit(capsys, tmp_path, limit):
    _, data = run(capsys, "syvere", "--roll-limit", str(limit), "--json", "--cache-dir", str(tmp_path))
    assert data["value"] == float(sy.roll_value(6, limit))


def test_syvere_game_option_max_rolls_sets_the_default_limit(capsys, tmp_path):
    _, data = run(capsys, "syvere", "--max-rolls", "2", "--json", "--cache-dir", str(tmp_path))
    assert data["roll_limit"] == 2 and data["value"] == float(sy.roll_value(6, 2))


def test_tenthousand_turn_values(capsys, tmp_path):
    lines, data = run(capsys, "tenthousand", "--preset", "no", "--opened", "--json", "--no-progress",
                      "--cache-dir", str(tmp_path))  # fmt: skip
    assert data["value"] == pytest.approx(tts.solve(preset="no", opened=True).value, abs=1e-9)
    assert data["opened"] is True and data["options"]["opening"] == 500
    assert lines[0].startswith("10 000 (no)") and f"{data['value']:.4f}" in lines[0]
    assert Path(data["table"]).exists()


def test_tenthousand_banked_matters_only_where_the_options_say(capsys, tmp_path):
    _, plain = run(capsys, "tenthousand", "--opened", "--banked", "9500", "--json", "--cache-dir", str(tmp_path))
    _, base = run(capsys, "tenthousand", "--opened", "--json", "--cache-dir", str(tmp_path))
    assert plain["value"] == base["value"]
    lines, over = run(capsys, "tenthousand", "--over-threshold", "true", "--opened", "--banked", "9500", "--json",
                      "--cache-dir", str(tmp_path))  # fmt: skip
    assert over["value"] < base["value"]


def test_bench_reports_time_and_memory(capsys, tmp_path):
    lines, data = run(capsys, "syvere", "--bench", "--json", "--cache-dir", str(tmp_path))
    assert any(line.startswith("bench:") for line in lines)
    assert data["bench"]["seconds"] > 0 and data["bench"]["peak_mib"] > 0
    assert data["bench"]["value"] == data["value"]


@pytest.mark.parametrize(
    "words, message",
    [
        (["syvere", "--roll-limit", "4"], "roll-limit"),
        (["syvere", "--opened"], "--opened"),
        (["meyer", "--roll-limit", "2"], "--roll-limit"),
        (["tenthousand", "--banked", "75"], "multiple of 50"),
        (["tenthousand", "--objective", "win", "--opened"], "--opened"),
        (["tenthousand", "--colour", "red"], "colour"),
        (["tenthousand", "--preset", "xx"], "preset"),
        (["chess"], "chess"),
        (["syvere", "--roll-limit", "two"], "roll-limit"),
    ],
)
def test_bad_input_is_a_value_error_naming_it(words, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        cli.main([*words, "--cache-dir", str(tmp_path)])


def _fake(monkeypatch, name, function):
    module = types.ModuleType(name)
    calls = []

    def summary(*args, **kwargs):
        calls.append((args, kwargs))
        return {"value": 0.25, "lines": [f"{name} says 0.25"]}

    setattr(module, function, summary)
    monkeypatch.setitem(sys.modules, name, module)
    return calls


@pytest.mark.parametrize(
    "words, module, expected_args",
    [
        (["tenthousand", "--preset", "no", "--objective", "win"], "agents.solvers.tenthousand_win", ({"preset": "no"},)),
        (["meyer", "--lives", "1"], "agents.solvers.meyer", ({"lives": 1},)),
        (["meyer", "--exploitability", "bluffer:lie_probability=0.3"], "evaluate.exploitability",
         ({}, "bluffer:lie_probability=0.3")),
    ],
)  # fmt: skip
def test_other_solvers_are_called_with_the_options(capsys, monkeypatch, tmp_path, words, module, expected_args):
    calls = _fake(monkeypatch, module, "cli_summary")
    lines, data = run(capsys, *words, "--json", "--no-progress", "--cache-dir", str(tmp_path))
    (args, kwargs), = calls
    assert args == expected_args and kwargs == {"cache_dir": tmp_path, "progress": False}
    assert data["value"] == 0.25 and lines[0] == f"{module} says 0.25"


def test_a_missing_solver_module_says_so(monkeypatch):
    from dice_envs.cli import CommandUnavailable

    monkeypatch.setitem(sys.modules, "agents.solvers.meyer", None)  # as if not installed
    with pytest.raises(CommandUnavailable, match="agents.solvers.meyer"):
        cli.main(["meyer"])


def test_command_line_entry_points(tmp_path):
    env = {"DICE_ENVS_CACHE_DIR": str(tmp_path), "PATH": ""}
    done = subprocess.run([sys.executable, "-m", "agents.solvers", "syvere", "--roll-limit", "1", "--json"],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1])["value"] == float(sy.roll_value(6, 1))
    bad = subprocess.run([sys.executable, "-m", "dice_envs", "solve", "syvere", "--roll-limit", "9"],
                         cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.startswith("dice-envs:") and "roll-limit" in bad.stderr


@pytest.mark.parametrize("cap", ["10", "0", "-50", "75"])
def test_a_bad_cap_is_refused_before_the_solve_starts(capsys, tmp_path, cap):
    from dice_envs.cli import main

    assert main(["solve", "tenthousand", "--cap", cap, "--cache-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"dice-envs: --cap must be a positive multiple of 50 points, got {cap}\n"  # no bar before it
    assert not list(tmp_path.iterdir())


def test_points_banked_without_opened_is_refused(capsys, tmp_path):
    from dice_envs.cli import main

    # TT-7: only a bank opens, so a positive banked total means the player has opened ...
    assert main(["solve", "tenthousand", "--preset", "dk", "--banked", "9500", "--cache-dir", str(tmp_path)]) == 2
    assert "--banked 9500 without --opened: a player with points banked has opened (TT-7); add --opened" in capsys.readouterr().err
    # ... while a total below zero (TT-9e bust penalties) can come first, and without an opening
    # threshold there is nothing to open.
    words = ["--json", "--no-progress", "--cache-dir", str(tmp_path)]
    assert main(["solve", "tenthousand", "--preset", "farkle", "--banked", "-500", *words]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["banked"] == -500
    assert main(["solve", "tenthousand", "--preset", "dk", "--opening", "0", "--banked", "500", *words]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["opened"] is False


def test_solve_takes_game_names_in_any_case_and_the_aliases(capsys):
    """As `play` does: `solve MEYER`, `solve Farkle` (= tenthousand --preset farkle); a contradiction is refused."""
    from dice_envs.cli import main as cli_main

    assert cli_main(["solve", "MEYER", "--lives", "1", "--no-progress"]) == 0
    assert capsys.readouterr().out.startswith("Meyer, two players, 1 life")
    assert cli_main(["solve", "farkle", "--preset", "dk"]) == 2
    assert capsys.readouterr().err.strip() == "dice-envs: farkle is tenthousand with --preset farkle; it cannot take --preset dk"
    assert cli_main(["solve", "Farkle", "--cap", "300", "--no-progress", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert (summary["options"]["opening"], summary["options"]["three_pairs"]) == (300, 750)  # farkle's, not dk's
