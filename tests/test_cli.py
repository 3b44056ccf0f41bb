"""The dice-envs command: play (scripted input), match and bench."""

import sys

import pytest

from dice_envs import cli
from dice_envs.play import play


def scripted(lines):
    answers = iter(lines)

    def read(prompt):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    return read


def test_play_syvere_explains_bad_input_and_asks_again():
    out = []
    returns = play("syvere", {"num_players": 2}, seed=1, read=scripted(["dance", "", "s"] + ["s"] * 200), write=out.append)
    text = "\n".join(out)
    assert "'dance' is not an answer here: type r to roll or s to stop" in text
    assert "Try again" in text
    assert returns is not None and sorted(returns) == [-1.0, 1.0]
    assert "You win!" in text or "You lose." in text
    assert "⚀" in text or "⚁" in text or "⚂" in text or "⚃" in text or "⚄" in text or "⚅" in text


def test_play_quits_cleanly_on_q_and_on_end_of_input():
    out = []
    assert play("syvere", {}, seed=1, read=scripted(["q"]), write=out.append) is None
    assert out[-1] == "You left the game."
    out.clear()
    assert play("syvere", {}, seed=1, read=scripted([]), write=out.append) is None


def test_play_rejects_a_bad_seat():
    with pytest.raises(ValueError, match="seat must be 0..1"):
        play("syvere", {}, seat=2)


def test_cli_play_reports_bad_options_without_a_traceback(capsys):
    assert cli.main(["play", "syvere", "--num-players", "12"]) == 2
    assert "num_players must be 2..8" in capsys.readouterr().err
    assert cli.main(["play", "syvere", "--colour", "red"]) == 2
    assert "unknown option 'colour'" in capsys.readouterr().err


def test_cli_play_help_lists_the_game_options(capsys):
    assert cli.main(["play", "syvere", "--help"]) == 0
    assert "--max-rolls 3" in capsys.readouterr().out
    assert cli.main(["play", "tenthousand", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--preset 'dk'" in out and "--target 10000" in out and "--confirm-combinations False" in out


def test_cli_match_prints_standings(capsys):
    assert cli.main(["match", "syvere", "--agents", "heuristic,random,random", "--games", "30", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "syvere (num_players=3), 30 games" in out
    assert "heuristic" in out and "random#2" in out and "95% (deals)" in out


def test_game_options_parse_by_the_options_declared_type():
    from dice_envs.options import parse_game_options

    assert parse_game_options("meyer", ["--num-players", "4", "--lille-meyer=false", "--claim_rule", "higher"]) == {
        "num_players": 4,
        "lille_meyer": False,
        "claim_rule": "higher",
    }
    # "no" is a preset name here, not a bool: the option's type decides.
    assert parse_game_options("tenthousand", ["--preset", "no", "--target", "5000"]) == {
        "preset": "no",
        "target": 5000,
    }
    with pytest.raises(ValueError, match="--name value"):
        parse_game_options("syvere", ["num_players", "4"])


def test_bench_prints_a_line_per_env_with_the_ratio_to_tictactoe():
    pytest.importorskip("pygame")
    from dice_envs import bench

    lines = []
    results = bench.run(steps=300, rounds=2, write=lines.append)
    labels = [label for label, _, _ in results]
    assert labels[0] == "classic/tictactoe-v3" and "dice/syvere-v0" in labels
    assert "x tictactoe" in lines[0]
    assert lines[1].split()[-1] == "1.00" and results[0][2] == 1.0
    assert len(lines) == len(results) + 1
    assert all(rate > 0 and ratio > 0 for _, rate, ratio in results)


def test_bench_counts_decisions_not_the_end_of_game_steps(monkeypatch):
    import pettingzoo

    from dice_envs import bench

    env = pettingzoo.make("aec", "dice/syvere-v0", num_players=8)
    calls = {"action": 0, "none": 0}
    step = env.step

    def counted(action):
        calls["none" if action is None else "action"] += 1
        step(action)

    monkeypatch.setattr(env, "step", counted)
    clock = iter([0.0, 1.0])
    monkeypatch.setattr(bench.time, "perf_counter", lambda: next(clock))
    rate = bench.steps_per_second(env, 200)
    assert calls["none"] >= 8  # a whole game was played: 8 agents stepped out at its end
    assert rate == calls["action"]  # per (mocked) second: the decisions only


@pytest.mark.parametrize("game", ["syvere", "tenthousand", "meyer"])
def test_play_every_game_against_its_default_opponents_until_the_person_quits(game):
    out = []
    assert play(game, {"num_players": 3}, seed=0, read=scripted(["?!", "q"]), write=out.append) is None
    text = "\n".join(out)
    assert "you are player_0" in text and "Try again" in text and out[-1] == "You left the game."


def test_cli_refuses_what_does_not_fit_without_a_traceback(capsys):
    # Issue 7 item 7: play and match take no render_mode/max_cycles, and their message does not offer them.
    assert cli.main(["play", "syvere", "--render-mode", "human"]) == 2
    err = capsys.readouterr().err
    assert "unknown option 'render_mode'" in err and "max-cycles" not in err and "--max-rolls" in err
    assert cli.main(["match", "syvere", "--max-cycles", "1", "--games", "3"]) == 2
    err = capsys.readouterr().err
    assert "unknown option 'max_cycles'" in err and "render" not in err
    with pytest.raises(ValueError, match="render_mode is not an option of play"):
        play("syvere", {"render_mode": "human"})
    assert cli.main(["bench", "--rounds", "0"]) == 2
    assert "--rounds is a whole number >= 1" in capsys.readouterr().err
    assert cli.main(["play", "syvere", "--seed", "-1"]) == 2
    assert "a seed is a whole number >= 0" in capsys.readouterr().err


def test_match_games_are_keyed_by_seed_and_number_not_drawn_up_front():
    from evaluate.match import game_seeds, play_match

    def per_game(num_games, seed):
        log = []
        play_match("tenthousand", ["heuristic", "greedy"], num_games, seed=seed, on_game=lambda g, r: log.append(r))
        return log

    a = per_game(12, 0)
    assert per_game(5, 0) == a[:5]  # game g does not depend on how many games the match has
    assert per_game(12, 0) == a
    b = per_game(12, 2)
    assert a[2:] != b[:10]
    # Different seeds and games give different keys; a huge game number costs no more than 0.
    keys = {game_seeds(s, g, 2)[0] for s in range(3) for g in range(50)}
    assert len(keys) == 150
    dice, agents = game_seeds(0, 10**11, 3)
    assert len(agents) == 3 and len({dice, *agents}) == 4


# -- issue 7 item 4: CLI tracebacks and slips --------------------------------------------------


@pytest.mark.parametrize("game", ["syvere", "tenthousand", "meyer"])
def test_match_runs_with_its_default_agents_for_every_game(game, capsys):
    from evaluate.match import DEFAULT_AGENTS

    assert cli.main(["match", game, "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in DEFAULT_AGENTS[game]) and "2 games" in out


@pytest.mark.parametrize("words", [["play", "--help"], ["match", "-h"], ["play", "-h"], ["match", "--help"]])
def test_play_and_match_help_without_a_game_list_the_games(words, capsys):
    assert cli.main(words) == 0
    captured = capsys.readouterr()
    assert "usage: dice-envs" in captured.out and not captured.err
    assert all(game in captured.out for game in ("syvere", "tenthousand", "meyer"))


def test_play_and_match_without_a_game_say_that_a_game_is_needed(capsys):
    assert cli.main(["match"]) == 2
    assert "match needs a game: syvere" in capsys.readouterr().err


def test_a_match_of_100_billion_games_starts_at_once_and_stops_on_ctrl_c(monkeypatch, capsys):
    # The seeds of every game used to be drawn up front: 10**11 of them is a 373 GiB array; and a
    # table's tasks or records kept in a list would be as large. The match is interrupted through
    # its on_game callback, the one hook every game of the shared engine-level loop passes.
    import evaluate.match

    play_match = evaluate.match.play_match
    finished = []

    def interrupted_match(*args, **kwargs):
        assert kwargs.get("on_game") is None  # the CLI passes none: ours is the only one

        def on_game(g, returns):
            finished.append((g, returns))
            if len(finished) == 4:
                raise KeyboardInterrupt

        return play_match(*args, **kwargs, on_game=on_game)

    monkeypatch.setattr(evaluate.match, "play_match", interrupted_match)
    assert cli.main(["match", "syvere", "--games", "100000000000"]) == 130
    assert [g for g, _ in finished] == [0, 1, 2, 3]
    assert all(len(returns) == 2 for _, returns in finished)
    assert "interrupted" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["play", "match"])
def test_a_bad_seed_says_what_a_seed_is(command, capsys):
    assert cli.main([command, "syvere", "--seed", "abc"]) == 2
    err = capsys.readouterr().err
    assert "a seed is a whole number >= 0, not 'abc'" in err and "_seed" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    "words, named",
    [
        (["--elimination", "9" * 60], "--elimination"),
        (["--max-rolls", "99999999999999999999"], "--max-rolls"),
        (["--num-players", "[" * 5000], "--num-players"),
        (["--elimination", "1e400"], "--elimination"),
        (["--max-rolls", "10**10**10"], "--max-rolls"),
        (["--next-starter"], "--next-starter"),
    ],
)
def test_huge_or_malformed_option_values_are_refused_by_name(words, named, capsys):
    assert cli.main(["match", "syvere", "--games", "2", *words]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dice-envs: ") and named in err and "Traceback" not in err


def test_help_documents_the_exit_codes(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "exit codes:" in out
    for code in ("0", "1", "2", "130", "141"):
        assert f"  {code:>3}  " in out


def test_a_closed_output_pipe_exits_quietly():
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "dice_envs.cli", "match", "syvere", "--games", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # as `| head -1` does once it has its line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err


# -- issue 7 item 7: one Ctrl-C convention; match --help ---------------------------------------


def test_ctrl_c_in_play_exits_130_like_match(monkeypatch, capsys):
    import io

    class CtrlC(io.StringIO):
        def readline(self, *args):
            raise KeyboardInterrupt

    monkeypatch.setattr("sys.stdin", CtrlC())  # what input() reads when stdin is not a terminal
    assert cli.main(["play", "syvere", "--seed", "1"]) == 130
    assert capsys.readouterr().err.strip().endswith("dice-envs: interrupted")


def test_unknown_option_messages_list_only_the_games_options(capsys):
    assert cli.main(["play", "meyer", "--colour", "red"]) == 2
    err = capsys.readouterr().err
    assert "unknown option 'colour'" in err and "--lille-meyer" in err
    assert "render" not in err and "max_cycles" not in err and "max-cycles" not in err
    assert cli.main(["match", "tenthousand", "--colour", "red"]) == 2
    err = capsys.readouterr().err
    assert "--exact-target" in err and "render" not in err


def test_match_help_names_the_agents_of_each_game_and_explains_games_and_seed(capsys):
    from agents import AGENTS

    assert cli.main(["match", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for game, table in AGENTS.items():
        assert f"{game}: {', '.join(table)}" in out
    assert "--games GAMES games to play" in out
    assert "--seed SEED a whole number >= 0" in out


# -- dispatch of the subcommands other modules own ---------------------------------------------


@pytest.mark.parametrize(
    "command, module, function",
    [
        ("solve", "agents.solvers.cli", "main"),
        ("train", "train.cli", "main"),
        ("tournament", "evaluate.cli", "tournament_main"),
        ("replay", "evaluate.cli", "replay_main"),
        ("cache", "agents.solvers.cache_cli", "main"),
    ],
)
def test_subcommands_go_to_their_modules_under_one_error_handler(command, module, function, monkeypatch, capsys):
    import types

    calls = []
    outcome = {}

    def run(argv):
        calls.append(argv)
        if "raise" in outcome:
            raise outcome["raise"]
        return outcome.get("code", 0)

    fake = types.ModuleType(module)
    setattr(fake, function, run)
    monkeypatch.setitem(sys.modules, module, fake)
    assert cli.main([command, "meyer", "--x", "1"]) == 0
    assert calls == [["meyer", "--x", "1"]]
    outcome["code"] = 3
    assert cli.main([command, "meyer"]) == 3
    outcome["raise"] = ValueError("bad thing named here")
    assert cli.main([command, "meyer"]) == 2
    assert capsys.readouterr().err == "dice-envs: bad thing named here\n"
    outcome["raise"] = KeyboardInterrupt()
    assert cli.main([command, "meyer"]) == 130
    outcome["raise"] = OverflowError("int too large to convert to float")
    assert cli.main([command, "meyer"]) == 2
    assert "too large" in capsys.readouterr().err
    outcome["raise"] = SystemExit(2)  # the module's own argparse
    assert cli.main([command]) == 2
    outcome["raise"] = FileNotFoundError(2, "No such file or directory", "games.db")
    assert cli.main([command, "meyer"]) == 1
    assert "games.db" in capsys.readouterr().err


def test_a_missing_subcommand_module_or_dependency_is_a_clear_message(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "train.cli", None)  # import fails: the module is missing
    assert cli.main(["train", "meyer"]) == 1
    assert "`dice-envs train` is not available in this installation (module train.cli is missing)" in capsys.readouterr().err
    monkeypatch.setitem(cli.DISPATCH, "train", ("dice_envs.tests_no_such_module", "main", "x", "train"))
    assert cli.main(["train", "meyer"]) == 1
    assert "not available" in capsys.readouterr().err


def test_a_subcommand_whose_dependency_is_missing_names_the_extra(monkeypatch, tmp_path, capsys):
    (tmp_path / "h2_needs_torch_cli.py").write_text("import h2_no_such_dependency\n\ndef main(argv):\n    return 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli.DISPATCH, "train", ("h2_needs_torch_cli", "main", "train an agent", "train"))
    assert cli.main(["train", "meyer"]) == 1
    err = capsys.readouterr().err
    assert "`dice-envs train` needs the package 'h2_no_such_dependency', which is not installed: pip install 'dice-envs[train]'" in err


def test_work_that_failed_after_it_started_exits_1_with_its_message(monkeypatch, capsys):
    # As when games fail on a Ray cluster after their retries (evaluate.ray_backend).
    import evaluate.cli

    def fail(argv):
        raise cli.CommandFailed("2 games failed on Ray after 3 retries; running the command again plays only these")

    monkeypatch.setattr(evaluate.cli, "tournament_main", fail)
    assert cli.main(["tournament", "meyer", "--agents", "random", "honest"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("dice-envs: 2 games failed on Ray") and "Traceback" not in err


def test_an_interrupt_that_says_what_was_kept_is_printed_once(capsys):
    def stopped(argv):
        raise KeyboardInterrupt("the run is saved at step 256 in runs/x: the same command resumes")

    assert cli.run_guarded(stopped, ["train", "meyer"]) == 130
    assert capsys.readouterr().err == (
        "\ndice-envs: interrupted; the run is saved at step 256 in runs/x: the same command resumes\n"
    )


def test_a_database_error_no_check_caught_is_one_line_not_a_traceback(capsys):
    # The backstop under every command (robustness review 10, F2): a store damaged where its own
    # checks did not look raises sqlite3.DatabaseError deep in a query.
    import sqlite3

    def damaged(argv):
        raise sqlite3.DatabaseError("database disk image is malformed")

    assert cli.run_guarded(damaged, ["tournament", "meyer"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dice-envs: a results database cannot be read (database disk image is malformed)")
    assert "move it aside" in err and err.count("\n") == 1

    # The system's refusals (a full disk, I/O, a lock) are exit 1, and no advice to discard the store
    # (review 10, finding 2).
    def full(argv):
        raise sqlite3.OperationalError("database or disk is full")

    assert cli.run_guarded(full, ["tournament", "meyer"]) == 1
    err = capsys.readouterr().err
    assert err == "dice-envs: cannot read or write a results database (database or disk is full)\n"
