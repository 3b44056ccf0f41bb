"""``dice-envs train`` refuses flags it would ignore or misread, in one line and before anything is made.

Every command here fails before training starts: the tests run ``train.cli.main`` in-process in an
empty working directory and check that it stayed empty (no run directory, no ``resume/``). The
commands that would train if a check were missing also carry ``--set n_envs=0``, which the trainer
refuses before it creates anything, so a missing check fails the test at once instead of training.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from train.cli import main, rllib_flags

#: The trainer refuses this before creating the run directory: a tripwire if a check is missing.
TRIPWIRE = ["--set", "n_envs=0"]
#: A one-deal benchmark without a progress bar, should a refused --evaluate command run after all.
ONE_DEAL = ["--opponents", "random", "--deals", "1", "--no-progress"]


@pytest.fixture(autouse=True)
def cwd(tmp_path, monkeypatch) -> Path:
    """An empty working directory (default run directories would land here), checked empty after each test."""
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    yield work
    assert not list(work.iterdir()), "the command created files before refusing its flags"


def refused(argv: list[str], message: str) -> str:
    """Run ``main(argv)``, expect a one-line ``ValueError`` matching ``message``; return its text."""
    with pytest.raises(ValueError, match=message) as info:
        main(argv)
    text = str(info.value)
    assert "\n" not in text
    return text


# -- 1: the game, and fields the flags also give ------------------------------------------------------------
def test_set_game_is_refused_as_the_positional_argument(tmp_path):
    run = tmp_path / "run"
    refused(["meyer", "--set", "game=syvere", "--run-dir", str(run), *TRIPWIRE], "game is the positional argument")
    assert not run.exists()


def test_a_config_file_naming_another_game_is_refused_and_its_own_game_accepted(tmp_path):
    other, same = tmp_path / "other.toml", tmp_path / "same.json"
    other.write_text('game = "syvere"\n')
    same.write_text('{"game": "meyer"}')
    refused(["meyer", "--config", str(other), *TRIPWIRE], "sets game 'syvere'.*positional argument")
    # The same game (as a run's saved arguments hold it) passes; the tripwire then stops the run.
    refused(["meyer", "--config", str(same), *TRIPWIRE], "n_envs must be an int >= 1")


@pytest.mark.parametrize(
    "words, flag",
    [
        (["--set", "seed=3", "--seed", "4"], "--seed 4"),
        (["--set", "timesteps=512", "--timesteps", "256"], "--timesteps 256"),
        (["--set", "run_dir=a", "--run-dir", "b"], "--run-dir b"),
        (["--set", "progress=true", "--no-progress"], "--no-progress"),
    ],
)
def test_a_set_field_and_its_flag_that_disagree_are_refused(words, flag):
    text = refused(["meyer", *words, *TRIPWIRE], "disagree: give only one of them")
    assert f"--set {words[1]} and {flag}" in text


def test_a_set_field_and_its_flag_that_agree_pass():
    refused(["meyer", "--set", "seed=3", "--seed", "3", "--set", "progress=false", "--no-progress", *TRIPWIRE],
            "n_envs must be an int >= 1")  # fmt: skip


# -- 2: flags of the other form -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "words", [["--opponents", "honest"], ["--deals", "3"], ["--eval-seed", "5"], ["--eval-seed", "0"], ["--sample"]]
)
def test_evaluation_flags_without_evaluate_are_refused(tmp_path, words):
    run = tmp_path / "run"
    refused(["meyer", *words, "--run-dir", str(run), *TRIPWIRE], f"{words[0]} is used only with --evaluate")
    assert not run.exists()


@pytest.mark.parametrize(
    "words",
    [["--seed", "3"], ["--seed", "0"], ["--timesteps", "256"], ["--run-dir", "r"], ["--config", "c.toml"],
     ["--set", "n_envs=2"]],
)  # fmt: skip
def test_training_flags_with_evaluate_are_refused(words):
    text = refused(["meyer", "--evaluate", "honest", *words, *ONE_DEAL], f"{words[0]} is a training flag")
    assert ("--eval-seed" in text) == (words[0] == "--seed")


# -- 3: flags of one backend given to the other --------------------------------------------------------------
@pytest.mark.parametrize(
    "words",
    [["--set", "n_envs=2"], ["--config", "c.toml"], ["--evaluate", "honest"], ["--opponents", "honest"],
     ["--deals", "3"], ["--deals", "0"], ["--eval-seed", "5"], ["--sample"]],
)  # fmt: skip
def test_sb3_flags_with_the_rllib_backend_are_refused(words):
    text = refused(["meyer", "--backend", "rllib", *words], f"{words[0]} is not supported by the rllib backend")
    assert "python -m train.rllib --help" in text and "unknown option" not in text


@pytest.mark.parametrize(
    "words", [["--env-runners", "2"], ["--envs", "2"], ["--batch=300"], ["--hidden", "8,8"], ["--address", "auto"]]
)
def test_rllib_flags_without_the_rllib_backend_are_refused(words):
    flag = words[0].partition("=")[0]
    refused(["meyer", *words, *TRIPWIRE], f"{flag} is a flag of the rllib backend: it needs --backend rllib")
    refused(["meyer", "--evaluate", "honest", *words, *ONE_DEAL], f"{flag} is a flag of the rllib backend")


def test_help_names_the_rllib_flags_and_where_they_are_explained(capsys):
    assert set(rllib_flags()) == {"--env-runners", "--envs", "--batch", "--hidden", "--address"}
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "python -m train.rllib --help" in out
    assert all(flag in out for flag in rllib_flags())
    # With --backend rllib, --help is the RLlib trainer's.
    with pytest.raises(SystemExit) as info:
        main(["meyer", "--backend", "rllib", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m train.rllib") and "--env-runners" in out


# -- 4: the RLlib budget, in the user's terms, before Ray starts ---------------------------------------------
@pytest.mark.ray
def test_an_rllib_budget_below_one_minibatch_is_refused_before_ray_starts(tmp_path):
    ray = pytest.importorskip("ray")
    from train.rllib import MINIBATCH
    from train.rllib import main as rllib_main

    run = tmp_path / "run"
    text = refused(["meyer", "--backend", "rllib", "--timesteps", "10", "--run-dir", str(run)],
                   f"--timesteps must be >= {MINIBATCH} with the rllib backend")  # fmt: skip
    assert "minibatch" in text and "train_batch_size_per_learner" not in text
    refused(["meyer", "--backend", "rllib", "--batch", "100", "--run-dir", str(run)],
            f"--batch must be .*>= {MINIBATCH}")  # fmt: skip
    # RLlib seeds env runner i with seed + i: with 2 runners the largest seed is 2**32 - 3.
    with pytest.raises(ValueError, match="--seed must be .* = 4294967293, got 4294967294"):
        rllib_main(["meyer", "--seed", str(2**32 - 2), "--env-runners", "2", "--run-dir", str(run)])
    assert not run.exists() and not ray.is_initialized()


# -- 5, 6: seeds -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [str(2**32), "-1"])
def test_a_seed_out_of_range_is_refused_before_the_run_directory_is_made(tmp_path, seed):
    run = tmp_path / "run"
    refused(["meyer", "--seed", seed, "--timesteps", "256", "--run-dir", str(run)],
            f"--seed must be a whole number from 0 to 2\\*\\*32 - 1 = 4294967295, got {seed}")  # fmt: skip
    refused(["meyer", "--backend", "rllib", "--seed", seed, "--run-dir", str(run)], "--seed must be")
    refused(["meyer", "--set", f"seed={seed}", "--run-dir", str(run)], "--set seed must be")
    assert not run.exists()


def test_the_largest_seed_passes():
    refused(["meyer", "--seed", str(2**32 - 1), *TRIPWIRE], "n_envs must be an int >= 1")


def test_a_negative_eval_seed_names_the_flag():
    refused(["meyer", "--evaluate", "honest", "--eval-seed", "-1", *ONE_DEAL],
            "--eval-seed must be a whole number >= 0")  # fmt: skip


# -- 7: opponent SPECs are read before any game ---------------------------------------------------------------
@pytest.mark.parametrize(
    "spec, message",
    [("foo", "unknown agent 'foo' for meyer"), ("./nothere", "no such file or directory"),
     ("bluffer:x=1", "no parameter 'x'")],
)  # fmt: skip
def test_bad_opponent_specs_are_refused_before_a_game_is_played(monkeypatch, capsys, spec, message):
    import train.benchmark

    played = []
    monkeypatch.setattr(train.benchmark, "play_against", lambda *a, **k: played.append(a) or pytest.fail("played"))
    # The good opponent comes first: it must not be played before the bad one is found.
    argv = ["meyer", "--evaluate", "honest", "--opponents", "random", spec, "--deals", "1"]
    refused(argv, f"--opponents: .*{message}")
    assert not played and "vs random" not in capsys.readouterr().err  # no progress bar started


def test_a_bad_evaluated_spec_names_its_flag():
    refused(["meyer", "--evaluate", "nosuchagent", *ONE_DEAL], "--evaluate: unknown agent 'nosuchagent'")


def test_a_valid_evaluation_still_runs(capsys):
    argv = ["meyer", "--lives", "2", "--evaluate", "honest", "--eval-seed", "5", "--sample", *ONE_DEAL]
    assert main(argv) == 0
    assert "meyer: honest vs random: win rate" in capsys.readouterr().out


# -- the trainer's own checks ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "words, message",
    [(["--lives", "0"], "lives"), (["--set", "baselines=['no_such_agent']"], "no_such_agent")],
)
def test_bad_options_and_baselines_leave_no_run_directory(tmp_path, words, message):
    """The trainer checks the game's options and its baseline SPECs before it makes ``RUN/resume/``."""
    run = tmp_path / "run"
    refused(["meyer", *words, "--run-dir", str(run), "--timesteps", "64"], message)
    assert not run.exists()


def test_a_toml_config_reads_with_the_tomli_backport_where_tomllib_is_missing(tmp_path, monkeypatch):
    """Python 3.10 has no tomllib; pyproject declares tomli for it, and the reader falls back to it."""
    import sys

    from train.config import read_config_file

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the backport itself stands in for the module
        import tomli as tomllib

    path = tmp_path / "run.toml"
    path.write_text("timesteps = 5000\nseed = 3\n")
    monkeypatch.setitem(sys.modules, "tomllib", None)  # import tomllib now fails, as on 3.10
    monkeypatch.setitem(sys.modules, "tomli", tomllib)  # the backport has the same API
    assert read_config_file(str(path)) == {"timesteps": 5000, "seed": 3}
    monkeypatch.setitem(sys.modules, "tomli", None)
    with pytest.raises(ValueError, match="cannot be read: .*tomli"):
        read_config_file(str(path))


# -- game names as the other commands read them ----------------------------------------------------------------
class Reached(Exception):
    """Raised by a stand-in trainer: the command got as far as training, with the arguments it recorded."""


@pytest.mark.parametrize(
    "word, game, preset", [("Meyer", "meyer", None), ("SYVERE", "syvere", None), ("farkle", "tenthousand", "farkle"),
                           ("10000", "tenthousand", "dk"), ("Ti-Tusen", "tenthousand", "dk")],
)
def test_train_reads_game_names_in_any_case_and_the_aliases(monkeypatch, word, game, preset):
    """``train`` takes a game's name as ``play``, ``match`` and ``tournament`` do; an alias brings its options
    (farkle: its preset; 10 000 otherwise trains its recipe's dk)."""
    import train.trainer

    seen = []

    def stand_in(args):
        seen.append(args)
        raise Reached

    monkeypatch.setattr(train.trainer, "train", stand_in)
    with pytest.raises(Reached):
        main([word, "--timesteps", "64", "--run-dir", "ignored"])
    (args,) = seen
    assert args.game == game and args.options.get("preset") == preset


def test_an_alias_that_contradicts_its_option_is_refused():
    refused(["farkle", "--preset", "dk", *TRIPWIRE], "farkle is tenthousand with --preset farkle")


def test_the_rllib_trainer_reads_the_aliases_too(monkeypatch, capsys):
    import train.rllib

    seen = []

    def stand_in(game, options, **kwargs):
        seen.append((game, options))
        raise Reached

    monkeypatch.setattr(train.rllib, "train", stand_in)
    with pytest.raises(Reached):
        main(["Farkle", "--backend", "rllib", "--num-players", "3"])
    assert seen == [("tenthousand", {"num_players": 3, "preset": "farkle"})]
