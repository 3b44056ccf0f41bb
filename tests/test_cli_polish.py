"""Defects a reviewer found acting as a new user of `dice-envs`, each with the check that pins its fix:
--version, the equilibrium agent's build announcement, --agents messages, the order of the match's
checks, one wording of whole-number arguments, --bootstrap, the output paths of a tournament checked
before its games, and Syvere's score line of a turn that scored 0."""

import os
import re
from importlib import metadata

import numpy as np
import pytest

import dice_envs
from dice_envs import cli


def _err(capsys) -> str:
    return capsys.readouterr().err


# -- 1. --version -------------------------------------------------------------------------------
def test_version_prints_the_installed_distributions_version(capsys):
    assert cli.main(["--version"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"dice-envs {metadata.version('dice-envs')}\n" and not captured.err


def test_version_falls_back_to_the_packages_version_when_not_installed(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    assert cli.version() == dice_envs.__version__


# -- 2. the equilibrium agent announces a build, not a cache load -------------------------------
def test_the_equilibrium_agent_announces_building_its_table_once(tmp_path, monkeypatch, capsys):
    from agents.solvers import meyer as solver
    from dice_envs.games import meyer

    monkeypatch.setenv("DICE_ENVS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(solver, "_MEMO", {})  # no tables from an earlier test of this process
    game = meyer.Game(num_players=2, lives=1)  # one life: the solve takes a fraction of a second
    solver.EquilibriumAgent(game)
    err = _err(capsys)
    lines = [line for line in re.split(r"[\r\n]", err) if "solving" in line]
    assert len(lines) == 1, lines
    assert "%|" not in err  # no progress bar from an agent: its caller's bar (or --quiet) keeps stderr
    assert "Meyer's equilibrium at 1 life" in lines[0]
    assert "a few seconds" in lines[0] and "kept in the solver cache" in lines[0]
    assert list(tmp_path.glob("meyer_equilibrium-*.npz"))
    # A new process (no tables in memory) loads them from the cache: nothing to announce.
    monkeypatch.setattr(solver, "_MEMO", {})
    solver.EquilibriumAgent(game)
    assert "solving" not in _err(capsys)


def test_the_announced_time_grows_with_the_lives():
    from agents.solvers.meyer import make_game, solve_time

    assert solve_time(make_game({"lives": 1})) == "a few seconds"
    assert solve_time(make_game({"lives": 6})) == "about 6 s"
    assert solve_time(make_game({"lives": 20})).endswith("min")


# -- 3. --agents: a parameter without a value ---------------------------------------------------
def test_a_parameter_without_a_value_is_told_to_take_one(capsys):
    assert cli.main(["match", "syvere", "--agents", "heuristic:stop_at", "random"]) == 2
    err = _err(capsys)
    assert "stop_at needs a value, as heuristic:stop_at=VALUE" in err
    assert "heuristic: stop_at" not in err and "own word" not in err


def test_another_agent_after_a_colon_is_told_to_take_its_own_word():
    from evaluate.match import split_agent_words

    with pytest.raises(ValueError, match=r"own word: --agents heuristic random$"):
        split_agent_words(["heuristic:random"])
    with pytest.raises(ValueError, match=r"as bluffer:lie_probability=0\.3,doubt_below=VALUE$"):
        split_agent_words(["bluffer:lie_probability=0.3,doubt_below"])


# -- 4. the game's options are checked before the agents are counted ----------------------------
def test_match_refuses_num_players_out_of_range_before_counting_agents(capsys):
    assert cli.main(["match", "syvere", "--num-players", "9"]) == 2
    err = _err(capsys)
    assert "num_players must be 2..8, got 9" in err and "agents given" not in err
    assert cli.main(["match", "syvere", "--elimination", "0", "--agents", "heuristic"]) == 2
    assert "elimination must be" in _err(capsys)


def test_a_match_of_three_with_a_third_starter_is_still_fine(capsys):
    words = ["match", "syvere", "--first-starter", "2", "--agents", "heuristic", "random", "random", "--games", "3"]
    assert cli.main(words) == 0
    assert "3 games" in capsys.readouterr().out


def test_tournament_refuses_num_players_out_of_range_before_counting_agents(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    words = ["tournament", "syvere", "--agents", "heuristic", "--games", "1", "--no-db", "--quiet"]
    assert cli.main([*words, "--num-players", "9"]) == 2
    err = _err(capsys)
    assert "num_players must be 2..8, got 9" in err and "at least 2 agents" not in err
    assert cli.main([*words, "--elimination", "0"]) == 2
    assert "elimination must be" in _err(capsys)


# -- 5. one wording for whole numbers -----------------------------------------------------------
def test_match_and_tournament_word_a_bad_games_count_alike(capsys, tmp_path, monkeypatch):
    import evaluate.cli

    monkeypatch.chdir(tmp_path)
    assert evaluate.cli.whole_number is cli.whole_number and not hasattr(evaluate.cli, "_whole")
    assert cli.main(["match", "syvere", "--games", "-5"]) == 2
    match_err = _err(capsys)
    assert cli.main(["tournament", "syvere", "--agents", "heuristic", "random", "--games", "-5"]) == 2
    tournament_err = _err(capsys)
    shape = r"^dice-envs (match|tournament): argument --games: the number of [a-z ]+ is a whole number >= 1, not -5$"
    for err in (match_err, tournament_err):
        assert re.match(shape, err.splitlines()[0]), err
        assert "usage:" not in err and "at most" not in err


# -- 6. --bootstrap -----------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["-1", "1", "39"])
def test_tournament_refuses_bootstrap_counts_that_give_no_interval(value, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    words = ["tournament", "syvere", "--agents", "heuristic", "random", "--games", "2", "--no-db", "--quiet"]
    assert cli.main([*words, "--bootstrap", value]) == 2
    err = _err(capsys)
    assert "argument --bootstrap" in err
    if value != "-1":
        assert "at least 40" in err and "or 0 for no rating intervals" in err


def test_bootstrap_0_leaves_the_rating_intervals_out(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    words = ["tournament", "syvere", "--agents", "heuristic", "random", "--games", "3", "--no-db", "--quiet",
             "--workers", "1", "--bootstrap", "0"]  # fmt: skip
    assert cli.main(words) == 0
    out = capsys.readouterr().out
    assert "no rating intervals (bootstrap 0)" in out
    assert not re.search(r"\[(-?\d+\.\d), \1\]", out), out  # no zero-width "interval"
    assert "> :" not in out  # no marks of separation without intervals


def test_the_plain_leaderboard_shows_no_interval_without_bootstrap():
    from evaluate.ratings import NO_INTERVALS, leaderboard
    from evaluate.tournament import run_tournament

    result = run_tournament("syvere", ["heuristic", "random"], games=3, workers=1, progress=False)
    text = leaderboard(result.labels, result.records, bootstrap=0).text()
    assert NO_INTERVALS in text and "> :" not in text
    assert not re.search(r"\[(-?\d+\.\d), \1\]", text), text
    assert re.search(r"\[-?\d+\.\d, -?\d+\.\d\]", leaderboard(result.labels, result.records, bootstrap=40).text())


def test_tournament_help_says_what_bootstrap_takes(capsys):
    assert cli.main(["tournament", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "at least 40" in help_text and "0 leaves the intervals out" in help_text


# -- 7. output paths are checked before any game is played --------------------------------------
class Played(Exception):
    """Raised by a stand-in run_tournament: the command went on to play games."""


@pytest.fixture
def no_games(monkeypatch, tmp_path):
    import evaluate.tournament

    def refuse(*args, **kwargs):
        raise Played

    monkeypatch.setattr(evaluate.tournament, "run_tournament", refuse)
    monkeypatch.chdir(tmp_path)
    return ["tournament", "syvere", "--agents", "heuristic", "random", "--games", "2", "--quiet"]


def test_a_report_in_missing_directories_goes_on_to_play_but_a_db_there_is_refused(no_games, tmp_path, capsys):
    """Missing directories of ``--report`` are made by the writer, as the README's ``--report
    reports/meyer`` needs, and so is the default store's ``results/``; a ``--db`` in a directory
    that does not exist is refused before any game (review F9: a typo scattered stores around),
    and nothing is created."""
    with pytest.raises(Played):
        cli.main([*no_games, "--report", "reports/meyer"])
    with pytest.raises(Played):
        cli.main([*no_games, "--db", "results/other.sqlite"])  # the default stores' directory
    db = tmp_path / "missing" / "x.sqlite"
    assert cli.main([*no_games, "--db", str(db)]) == 2
    assert _err(capsys) == (f"dice-envs: --db {db}: the directory {tmp_path / 'missing'} does not exist; "
                            "create it first, or give another path\n")  # fmt: skip
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("where", ["proc", "under a file", "a file", "db under a file"])
def test_a_report_or_db_that_cannot_be_written_is_refused_before_the_games(where, no_games, tmp_path, capsys):
    if where == "proc":
        if not os.path.isdir("/proc/self"):
            pytest.skip("no /proc")
        report = "/proc/x"
    else:
        (tmp_path / "file").write_text("")
        report = {"under a file": tmp_path / "file" / "r", "a file": tmp_path / "file",
                  "db under a file": None}[where]  # fmt: skip
    if report is None:
        db = tmp_path / "file" / "d" / "x.sqlite"
        assert cli.main([*no_games, "--db", str(db)]) == 2
        assert _err(capsys).startswith(f"dice-envs: --db {db}: {tmp_path / 'file'} is a file")
        return
    # /proc refuses new files (the system: exit 1); a file in the way is bad usage (exit 2)
    assert cli.main([*no_games, "--no-db", "--report", str(report)]) == (1 if where == "proc" else 2)
    assert _err(capsys).startswith(f"dice-envs: --report {report}")


@pytest.mark.parametrize("flag", ["--db", "--report"])
def test_an_empty_db_or_report_path_is_refused(flag, no_games, capsys):
    # it used to mean the default store, or no report at all, silently
    assert cli.main([*no_games, flag, ""]) == 2
    assert _err(capsys) == f"dice-envs: {flag} needs a path, got an empty one\n"


def test_a_writable_report_and_db_go_on_to_play(no_games, tmp_path):
    with pytest.raises(Played):
        cli.main([*no_games, "--db", str(tmp_path / "x.sqlite"), "--report", str(tmp_path / "new")])
    with pytest.raises(Played):  # the default store's directory (results/) is created by the store
        cli.main([*no_games, "--report", str(tmp_path)])


# -- 8. Syvere's log shows the score line of every turn ------------------------------------------
class ScriptedDice:
    def __init__(self, rolls):
        self.rolls = list(rolls)

    def roll(self, k):
        roll = self.rolls.pop(0)
        assert len(roll) == k, (roll, k)
        return roll


def test_syvere_logs_the_score_line_of_a_turn_whose_dice_all_paired_off():
    from dice_envs import syvere_v0

    env = syvere_v0.env(render_mode="ansi")
    raw = env.unwrapped
    raw._rng = np.random.default_rng(0)  # reset() keeps these dice (no seed given)
    raw._dice = ScriptedDice([(1, 1, 1, 1, 2, 5), (3, 3, 4, 4), (1, 2, 3, 4, 5, 6), (2, 2, 2, 2, 2, 2),
                              (6, 6, 6, 6, 6, 6), (1, 1, 2, 2, 3, 3)])  # fmt: skip
    env.reset()
    assert raw.log_lines == ["new game", "player_0 rolled ⚀ ⚀ ⚀ ⚀ ⚁ ⚄  (111125)"]
    env.step(0)  # roll 1111: 3+4 and 3+4 pair off, nothing is left; then player_1's 1+6, 2+5, 3+4
    assert raw.log_lines == [
        "player_0: roll",
        "player_0 rolled ⚂ ⚂ ⚃ ⚃  (3344)",
        "player_0's turn ends: all dice paired off, 0 points",
        "player_0: 0 -> 0 (+0)",
        "player_1 rolled ⚀ ⚁ ⚂ ⚃ ⚄ ⚅  (123456)",
        "player_1's turn ends: all dice paired off, 0 points",
        "player_1: 0 -> 0 (+0)",
        "round 2: player_1 starts, up to 3 rolls",
        "player_1 rolled ⚁ ⚁ ⚁ ⚁ ⚁ ⚁  (222222)",
    ]
    env.step(1)  # stop: 12 points; player_0 then reaches the roll limit of 1 (player_1 rolled once)
    assert raw.log_lines == [
        "player_1: stop",
        "player_1: 0 -> 12 (+12)",
        "player_0 rolled ⚅ ⚅ ⚅ ⚅ ⚅ ⚅  (666666)",
        "player_0's turn ends: 1 roll, as many as the starter (player_1) made",
        "player_0: 0 -> 36 (+36)",
        "round 3: player_0 starts, up to 3 rolls",
        "player_0 rolled ⚀ ⚀ ⚁ ⚁ ⚂ ⚂  (112233)",
    ]


@pytest.mark.parametrize("seed", range(5))
def test_every_syvere_turn_has_one_score_line(seed):
    from dice_envs import syvere_v0

    env = syvere_v0.env(render_mode="ansi", num_players=3, elimination=30)
    raw, game = env.unwrapped, env.unwrapped.game
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lines = list(raw.log_lines)
    for _ in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)  # stepping out of a finished game logs nothing new
            continue
        env.step(int(rng.integers(2)))
        lines += raw.log_lines
    score_lines = [line for line in lines if re.fullmatch(r"player_\d: \d+ -> \d+ \(\+\d+\)", line)]
    # Turns started: the first roll of a turn (no roll made yet in it), replayed on the engine.
    state, started = game.initial_state(), 0
    for event in raw.history:
        if event[0] == "chance":
            started += state.rolls == 0
            state = game.apply_chance(state, event[1])
        else:
            state = game.apply_action(state, event[2])
    assert game.is_terminal(state) and len(score_lines) == started


def test_tenthousand_logs_the_score_line_of_a_bust():
    """A bust ends the turn without changing the total: its score line is there all the same, as
    is a bank's."""
    from dice_envs import tenthousand_v1

    env = tenthousand_v1.env(render_mode="ansi", preset="dk")
    raw = env.unwrapped
    raw._rng = np.random.default_rng(0)  # reset() keeps these dice (no seed given)
    raw._dice = ScriptedDice([(2, 2, 3, 4, 6, 6), (1, 1, 1, 2, 3, 4)])  # no 1, 5, triple or three pairs: a bust
    env.reset()
    assert raw.log_lines[-4:] == [
        "player_0 rolled ⚁ ⚁ ⚂ ⚃ ⚅ ⚅  (223466)",
        "player_0: bust",
        "player_0: 0 -> 0 (+0)",
        "player_1 rolled ⚀ ⚀ ⚀ ⚁ ⚂ ⚃  (111234)",
    ]
    assert raw.game_state.player == 1


def test_play_with_two_opponent_specs_says_it_takes_one(capsys):
    """``play --opponents honest doubter`` named 'doubter' a bad game option; it is a second SPEC."""
    assert cli.main(["play", "meyer", "--opponents", "honest", "doubter"]) == 2
    err = _err(capsys)
    assert "--opponents takes one SPEC" in err and "'doubter'" in err and "game option" not in err
