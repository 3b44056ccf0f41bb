"""Terminal play after the seventh outside review (``/tmp/review_play7.md``): a rules summary of the
game as configured, only legal choices offered in Meyer, options help per preset, ASCII output where
the terminal cannot show dice, printed seeds and "play again", Syvere's decisive last turn, 10 000's
wording, forgiving input, echoed piped answers and the rest of its smaller findings."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from dice_envs import cli
from dice_envs.games import meyer, syvere, tenthousand as tt
from dice_envs.play import meyer as meyer_hooks
from dice_envs.play import play, play_series
from dice_envs.play import syvere as syvere_hooks
from dice_envs.play import tenthousand as tt_hooks

DICE_SYMBOLS = "".join(chr(0x2680 + i) for i in range(6))


def scripted(answers, prompts: list[str] | None = None):
    """A ``read`` that gives the answers in order, then end of input; records the prompts."""
    queue = iter(answers)

    def read(prompt: str) -> str:
        if prompts is not None:
            prompts.append(prompt)
        try:
            return next(queue)
        except StopIteration:
            raise EOFError from None

    return read


def transcript(game_name, options=None, answers=(), **kwargs) -> tuple[object, str]:
    out: list[str] = []
    returns = play(game_name, options or {}, read=scripted(answers), write=out.append, **kwargs)
    return returns, "\n".join(out)


def dice_envs(*words, stdin: str = "", env=None, timeout=120) -> subprocess.CompletedProcess:
    """``dice-envs WORDS`` in a subprocess with piped input, output as bytes."""
    return subprocess.run(
        [sys.executable, "-m", "dice_envs", *words],
        input=stdin.encode(),
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


# -- finding 1: a rules summary of the game as configured ------------------------------------------------
def test_rules_at_the_prompt_print_the_rules_and_the_opening_lines_and_help_name_the_command():
    returns, text = transcript("syvere", {"elimination": 50, "max_rolls": 2}, ["rules", "?", "q"], seed=1)
    assert returns is None
    opening = text.splitlines()[1]
    assert "rules" in opening and "?" in opening and "q" in opening
    summary = syvere_hooks.rules(syvere.Game(elimination=50, max_rolls=2))
    assert summary in text
    assert "At 50 points or more you are out" in summary and "up to 2 times" in summary
    assert "(1+6, 2+5, 3+4) are set aside" in summary and "low totals are good" in summary
    assert "  (rules: the rules of this game; q: quit)" in text.splitlines()  # after `?`


@pytest.mark.parametrize("game_name", ["meyer", "tenthousand"])
def test_rules_work_at_every_games_prompt(game_name):
    _, text = transcript(game_name, {}, ["RULES", "q"], seed=2)
    hooks = {"meyer": meyer_hooks, "tenthousand": tt_hooks}[game_name]
    game = {"meyer": meyer.Game, "tenthousand": tt.Game}[game_name]()
    assert hooks.rules(game) in text
    assert "is not an answer here" not in text


def test_SY10_the_syvere_rules_follow_next_starter():
    assert "to the right of the last starter" in syvere_hooks.rules(syvere.Game())
    left = syvere_hooks.rules(syvere.Game(next_starter="left"))
    assert "to the left of the last starter" in left and "right" not in left


def test_TT5_TT7_TT8_the_10000_rules_are_the_presets():
    dk = tt_hooks.rules(tt.Game(preset="dk"))
    for part in ("straight 1-6 = 1000", "three pairs = 1500 (three different values: 4-4-6-6-6-6 does not)",
                 "3s 600/900/1200", "1s 2000/3000/4000", "you may not bank then", "needs 1000 points",
                 "later banks need 300", "the rest of that round is played", "på listen"):  # fmt: skip
        assert part in dk, part
    no = tt_hooks.rules(tt.Game(preset="no"))
    for part in ("straight 1-6 = 1500", "3s 600/1200/2400", "4-4-6-6-6-6 counts too", "or you bank",
                 "needs 500 points", "later banks need no minimum", "everyone else gets one last turn"):  # fmt: skip
        assert part in no, part
    farkle = tt_hooks.rules(tt.Game(preset="farkle"))
    for part in ("three pairs = 750", "Every bank needs 300 points", "3 busts in a row cost 500"):
        assert part in farkle, part
    assert "first bank" not in farkle


def test_TT9_the_10000_rules_take_the_options_given():
    text = tt_hooks.rules(tt.Game(preset="dk", target=5000, straight=2500, end="immediate", exact_target=True,
                                  over_threshold=True, confirm_combinations=True, bust_penalty=100,
                                  bust_penalty_after=1))  # fmt: skip
    for part in ("the goal is 5000", "straight 1-6 = 2500", "the first to reach 5000 wins at once",
                 "At 4000 or more you may bank only to reach 5000", "a later single 1 or 5",
                 "a bank that would pass 5000 scores 0", "A bust costs 100 points",
                 "A bank that reaches 5000 exactly is always allowed"):  # TT-9d  # fmt: skip
        assert part in text, part


def test_ME2_ME4_ME6_ME7_the_meyer_rules_are_the_options():
    text = meyer_hooks.rules(meyer.Game(num_players=3))
    for part in ("6 lives each", "21 (Meyer) > 31 (Lille Meyer) > 66", "at least as high",
                 "the claimer loses a life; otherwise the", "doubter loses one", "last player with lives wins"):  # fmt: skip
        assert part in text, part
    text = meyer_hooks.rules(meyer.Game(num_players=3, lives=3, claim_rule="higher", lille_meyer=False,
                                        meyer_costs=2, end="first_out", blind_reroll=True))  # fmt: skip
    for part in ("3 lives each", "strictly higher", "Nothing beats 21", "costs whoever loses the doubt 2 lives",
                 "Blind reroll",
                 "first player to lose all their lives loses", "31 is an ordinary roll", "> 32 > 31"):  # fmt: skip
        assert part in text, part
    assert "Lille Meyer" not in text.replace("31 is an ordinary roll", "")


@pytest.mark.parametrize(
    "rules",
    [
        lambda: syvere_hooks.rules(syvere.Game(num_players=8, next_starter="left")),
        lambda: tt_hooks.rules(tt.Game(preset="no", over_threshold=True, confirm_combinations=True,
                                       exact_target=True, bust_penalty=500, target=20000)),  # fmt: skip
        lambda: meyer_hooks.rules(meyer.Game(claim_rule="higher", blind_reroll=True, meyer_costs=2)),
    ],
)
def test_a_rules_summary_fits_one_screen(rules):
    lines = rules().splitlines()
    assert len(lines) <= 20 and max(map(len, lines)) <= 110, [(len(line), line) for line in lines]


# -- finding 2: Meyer under claim_rule=higher offers only the doubt of 21 --------------------------------
def claimed(game: meyer.Game, roll, said: str) -> meyer.State:
    state = game.apply_chance(game.initial_state(), roll)
    return game.apply_action(state, game.string_to_action(state, f"claim {said}"))


def test_ME4_facing_21_under_higher_only_the_doubt_is_offered_and_believing_is_refused_with_the_rule():
    game = meyer.Game(num_players=2, claim_rule="higher")
    state = claimed(game, (1, 2), "21")
    text = meyer_hooks.describe(game, state, 1)
    assert "believe" not in text and "b =" not in text
    assert "You must doubt it: nothing beats 21" in text and "strictly higher" in text
    with pytest.raises(ValueError) as error:
        meyer_hooks.parse(game, state, "b")
    message = str(error.value)
    assert "nothing beats 21" in message and "claim rule 'higher'" in message and "b =" not in message
    assert meyer_hooks.parse(game, state, "d") == meyer.DOUBT


def test_ME4_under_at_least_21_may_still_be_believed():
    game = meyer.Game(num_players=2)
    text = meyer_hooks.describe(game, claimed(game, (1, 2), "21"), 1)
    assert "doubt or believe it" in text and "b = believe" in text


def test_ME3_ME4_ME5_refusals_say_why():
    game = meyer.Game(num_players=2, blind_reroll=True)
    start = game.apply_chance(game.initial_state(), (1, 2))
    with pytest.raises(ValueError, match="there is no claim to doubt or believe"):
        meyer_hooks.parse(game, start, "d")
    with pytest.raises(ValueError, match="the starter of a round has nothing to beat"):
        meyer_hooks.parse(game, start, "r")
    state = claimed(game, (6, 2), "62")
    with pytest.raises(ValueError, match=r"first doubt \(d\) or believe \(b\)"):
        meyer_hooks.parse(game, state, "54")
    believed = game.apply_chance(game.apply_action(state, meyer.BELIEVE), (1, 3))
    with pytest.raises(ValueError, match="a claim must be at least as high as 62"):
        meyer_hooks.parse(game, believed, "54")
    plain = meyer.Game(num_players=2)
    with pytest.raises(ValueError, match="no blind reroll"):
        meyer_hooks.parse(plain, plain.apply_chance(plain.initial_state(), (1, 2)), "r")


# -- finding 3: the options help of a preset, and the choices ---------------------------------------------
def test_options_help_under_a_preset_lists_that_presets_values(capsys):
    assert cli.main(["play", "tenthousand", "--preset", "farkle", "--help"]) == 0
    out = capsys.readouterr().out
    assert "(with --preset farkle)" in out
    for part in ("--opening 300", "--straight 1500", "--three-pairs 750", "--bust-penalty 500",
                 "--end 'last_turn_each' {finish_round,last_turn_each,immediate}", "--n-of-a-kind 'doubling'"):  # fmt: skip
        assert part in out, part
    assert "--opening 1000" not in out
    assert cli.main(["play", "farkle", "--help"]) == 0
    assert "(with --preset farkle)" in capsys.readouterr().out
    assert cli.main(["play", "tenthousand", "--help"]) == 0
    out = capsys.readouterr().out
    assert "(defaults)" in out and "--opening 1000" in out and "--preset 'dk' {dk,no,farkle}" in out


def test_options_help_lists_the_choices_the_engine_checks(capsys):
    from dice_envs.options import option_choices

    assert option_choices("meyer") == {"claim_rule": meyer.CLAIM_RULES, "end": meyer.END_RULES}
    assert option_choices("tenthousand") == {"preset": tuple(tt.PRESETS), "end": tt.ENDS, "n_of_a_kind": tt.N_OF_A_KIND}
    assert cli.main(["play", "meyer", "--help"]) == 0
    assert "--claim-rule 'at_least' {at_least,higher}" in capsys.readouterr().out
    assert cli.main(["play", "syvere", "--help"]) == 0
    assert "--next-starter 'right' {right,left}" in capsys.readouterr().out


def test_options_help_with_a_bad_preset_still_shows_the_defaults(capsys):
    assert cli.main(["play", "tenthousand", "--preset", "nope", "--help"]) == 0
    assert "(defaults)" in capsys.readouterr().out


# -- finding 4: a terminal that cannot show the dice ------------------------------------------------------
@pytest.mark.parametrize("encoding", ["cp1252", "ascii"])
def test_play_works_where_stdout_cannot_encode_the_dice(encoding):
    done = dice_envs("play", "syvere", "--seed", "1", stdin="s\nq\n", env={"PYTHONIOENCODING": encoding})
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode(encoding)
    assert "player_0 rolled 1 1 3 4 5 6  (113456)" in out
    assert "dice left: 1 5 = 6" in out
    meyer_run = dice_envs("play", "meyer", "--seed", "1", stdin="q\n", env={"PYTHONIOENCODING": encoding})
    assert meyer_run.returncode == 0, meyer_run.stderr
    assert re.search(r"under the cup: \d \d \(\d\d\), you saw them", meyer_run.stdout.decode(encoding))


def test_help_works_where_stdout_cannot_encode_its_symbols():
    done = dice_envs("play", "tenthousand", "--help", env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr
    assert b"game options of tenthousand" in done.stdout


def test_output_the_encoding_cannot_carry_exits_1_not_2(capsys):
    def command(argv):
        "\u2680".encode("ascii")  # as a print to a stream without the stand-ins would fail

    assert cli.run_guarded(command, ["play"]) == 1
    assert "encoding" in capsys.readouterr().err


def test_the_ascii_stand_ins():
    cli.fit_output_to_terminal()  # registers the error handler
    assert f"{DICE_SYMBOLS} på → x".encode("ascii", errors="dice_envs_ascii") == b"123456 pa -> x"
    assert "Ærø".encode("ascii", errors="dice_envs_ascii") == b"AEro"


# -- finding 5: the seed of an unseeded game; play again only at a terminal ---------------------------------
def test_an_unseeded_game_prints_its_seed_and_that_seed_replays_it():
    answers = ["s"] * 60
    _, first = transcript("syvere", {}, answers, seed=None)
    match = re.search(r"^seed (\d+) \(to play this game again: --seed (\d+)\)$", first, re.M)
    assert match is not None and match.group(1) == match.group(2)
    _, again = transcript("syvere", {}, answers, seed=int(match.group(1)))
    assert again == first.replace(match.group(0) + "\n", "")
    _, seeded = transcript("syvere", {}, ["q"], seed=5)
    assert "--seed" not in seeded


def test_play_again_is_asked_after_each_game_and_a_new_seed_is_drawn():
    prompts: list[str] = []
    out: list[str] = []
    results = play_series("syvere", {"max_rolls": 1}, seed=3, read=scripted(["y", "n"], prompts),
                          write=out.append, again=True)  # fmt: skip
    assert len(results) == 2 and prompts == ["Play again? [y/N] "] * 2
    text = "\n".join(out)
    assert len(re.findall(r"^seed \d+ ", text, re.M)) == 1  # the second game's seed is drawn and printed
    assert re.search(r"You have won [0-2] of 2 games\.", text)


def test_without_again_a_series_is_one_game():
    prompts: list[str] = []
    results = play_series("syvere", {"max_rolls": 1}, seed=3, read=scripted(["y"], prompts), write=lambda _: None)
    assert len(results) == 1 and prompts == []


def test_a_piped_game_ends_without_asking_to_play_again():
    done = dice_envs("play", "syvere", "--max-rolls", "1", "--seed", "3", stdin="y\ny\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "Play again" not in out and out.count("syvere: you are player_0") == 1


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_at_a_terminal_the_command_offers_another_game():
    import pty
    import select
    import time

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "dice_envs", "play", "syvere", "--max-rolls", "1", "--seed", "3"],
                            stdin=slave, stdout=slave, stderr=slave, close_fds=True)  # fmt: skip
    os.close(slave)
    seen = b""

    def wait_for(token: bytes, count: int = 1) -> None:
        nonlocal seen
        deadline = time.time() + 60
        while seen.count(token) < count and time.time() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
        assert seen.count(token) >= count, seen[-2000:]

    try:
        wait_for(b"Play again? [y/N]")
        os.write(master, b"y\n")
        wait_for(b"Play again? [y/N]", 2)
        os.write(master, b"n\n")
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert seen.count(b"syvere: you are player_0") == 2 and b"of 2 games" in seen


# -- finding 6: Syvere's decisive last turn --------------------------------------------------------------
def last_of_round(game: syvere.Game, totals, before, roll, starter_rolls=3) -> syvere.State:
    """The last player of round 1 (seat 1 of 2, or the last seat) at a decision after ``roll``."""
    state = game.initial_state()._replace(totals=tuple(totals), totals_before_round=tuple(before),
                                          turn=game.num_players - 1, starter_rolls=starter_rolls)  # fmt: skip
    return game.apply_chance(state, roll)


def test_SY9_the_reviewers_case_everyone_else_is_out_stay_under_77():
    game = syvere.Game(num_players=2)
    state = last_of_round(game, (77, 68), (67, 68), (2, 2, 3, 3, 1, 6))
    text = syvere_hooks.describe(game, state, 1)
    assert "Everyone else went out this round: finish below 77 (score at most 8) and you win." in text
    assert "player_0 has 77; at exactly 77 you would lose on more points before this round (68 against 67)" in text


def test_SY9_going_out_beside_a_larger_total_can_still_win():
    game = syvere.Game(num_players=2)
    state = last_of_round(game, (90, 70), (75, 60), (2, 2, 3, 3, 1, 6))
    text = syvere_hooks.describe(game, state, 1)
    assert "below 90 you still win" in text and "at exactly 90 you would win on fewer points" in text


def test_SY9_one_other_player_still_in_reaching_77_loses():
    game = syvere.Game(num_players=2)
    state = last_of_round(game, (60, 70), (60, 70), (1, 1, 2, 2, 3, 3), starter_rolls=2)
    assert (
        "only player_0 is still in besides you: finish below 77 (score at most 6) and the game goes on; "
        "reach 77 and player_0 wins." in syvere_hooks.describe(game, state, 1)
    )


def test_SY9_no_hint_when_nothing_is_decided():
    game = syvere.Game(num_players=3)
    far = last_of_round(game, (10, 12, 8), (10, 12, 8), (1, 1, 2, 2, 3, 3))  # cannot reach 77 this turn
    assert "77" not in syvere_hooks.describe(game, far, 2)
    state = game.apply_chance(game.initial_state()._replace(totals=(70, 76, 76)), (1, 1, 2, 2, 3, 3))
    assert "77" not in syvere_hooks.describe(game, state, 0)  # others play after the person


def test_SY9_the_hint_reaches_the_person_in_a_played_game():
    _, text = transcript("syvere", {}, ["s"] * 100, seed=1)  # the reviewer's game: player_1 goes out first
    assert "Everyone else went out this round: finish below 77 (score at most 8) and you win." in text


# -- finding 7: 10 000's wording -------------------------------------------------------------------------
def decision(game: tt.Game, roll, **fields) -> tt.State:
    return game.apply_chance(game.initial_state()._replace(**fields), roll)


def test_TT7_the_table_says_not_opened_and_what_opening_needs():
    game = tt.Game(preset="dk")
    table = tt_hooks.render_for(game, game.initial_state()._replace(busts=(2, 0)), 0)
    assert "  player_0:      0  <- to play, not opened yet (first bank needs 1000)" in table.splitlines()
    assert "on the list" not in table
    farkle = tt.Game(preset="farkle")
    assert "opened" not in tt_hooks.render_for(farkle, farkle.initial_state(), 0)
    _, text = transcript("tenthousand", {}, ["q"], seed=4)
    assert "on the list" not in text and "not opened yet" in text


def test_TT7_farkle_says_every_bank_needs_300():
    game = tt.Game(preset="farkle")
    state = decision(game, (1, 2, 3, 3, 4, 6))
    assert "No bank yet: a bank needs at least 300 points in the turn; you would have 100 (TT-7)" in (
        tt_hooks.describe(game, state, 0)
    )
    for answer in ("1 b", "b"):
        with pytest.raises(ValueError) as error:
            tt_hooks.parse(game, state, answer)
        assert "first bank" not in str(error.value) and "a bank needs at least 300" in str(error.value)
    dk = tt.Game(preset="dk")
    with pytest.raises(ValueError, match="the first bank needs at least 1000"):
        tt_hooks.parse(dk, decision(dk, (1, 2, 3, 3, 4, 6)), "1 b")


def test_TT4_keeps_of_all_six_are_marked_hot_dice_and_dk_says_why_they_cannot_be_banked():
    game = tt.Game(preset="dk")
    state = decision(game, (1, 1, 5, 5, 5, 5), opened=(True, False), totals=(2000, 0))
    lines = tt_hooks.describe(game, state, 0).splitlines()
    assert any("115555 (1200, hot dice)" in line for line in lines if line.startswith("  You may keep:"))
    assert [line for line in lines if "Not bankable" in line][0].startswith(
        "  Not bankable: keeping 115555: hot dice must be rolled again (TT-4)"
    )
    no = tt.Game(preset="no")
    lines = tt_hooks.describe(no, decision(no, (1, 1, 5, 5, 5, 5), opened=(True, False)), 0).splitlines()
    assert not any("Not bankable" in line for line in lines)
    assert any("115555" in line for line in lines if line.startswith("  You may bank after keeping:"))


# -- finding 8: forgiving input --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [("15b", "keep 15 bank"), ("15r", "keep 15 roll"), ("15B", "keep 15 bank"), ("1,5b", "keep 15 bank"),
     ("keep15bank", "keep 15 bank"), ("15 b", "keep 15 bank"), ("1 5", "keep 15 roll")],  # fmt: skip
)
def test_TT11_faces_and_r_or_b_without_a_space(text, expected):
    game = tt.Game(preset="no")
    state = decision(game, (1, 2, 2, 2, 5, 6), turn_total=500, opened=(True, True))
    assert tt.ACTION_STRINGS[tt_hooks.parse(game, state, text)] == expected


@pytest.mark.parametrize("text", ["54", "45", "5 4", "5,4", "4-5", "claim 5,4", "Claim 54"])
def test_ME10_a_claim_in_any_of_its_forms(text):
    game = meyer.Game(num_players=2)
    state = game.apply_chance(game.initial_state(), (5, 4))
    assert meyer.ACTION_STRINGS[meyer_hooks.parse(game, state, text)] == "claim 54"


def test_ME10_more_words_for_doubt_believe_and_lille_meyer():
    game = meyer.Game(num_players=2)
    start = game.apply_chance(game.initial_state(), (3, 1))
    assert meyer_hooks.parse(game, start, "lille-meyer") == meyer.FIRST_CLAIM + meyer.LILLE_MEYER
    state = claimed(game, (6, 2), "62")
    for text in ("løft", "lift the cup", "D"):
        assert meyer_hooks.parse(game, state, text) == meyer.DOUBT
    assert meyer_hooks.parse(game, state, "tror") == meyer.BELIEVE


@pytest.mark.parametrize(
    "words, header",
    [
        (["Meyer"], "Meyer, round 1"),
        (["SYVERE"], "Syvere, round 1"),
        (["farkle"], "Ten thousand (farkle)"),
        (["10000"], "Ten thousand (dk)"),
        (["ti-tusen", "--preset", "NO"], "Ten thousand (no)"),
        (["tenthousand", "--preset", "DK", "--end", "Last-Turn-Each"], "at the target everyone else gets one last turn"),
        (["meyer", "--claim-rule", "HIGHER"], "claims strictly higher"),
    ],
)
def test_game_names_aliases_and_choice_values_in_any_case(words, header, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert cli.main(["play", *words, "--seed", "1"]) == 0
    assert header in capsys.readouterr().out


def test_an_alias_that_clashes_with_an_option_is_refused(capsys):
    assert cli.main(["play", "farkle", "--preset", "dk"]) == 2
    assert "farkle is tenthousand with --preset farkle" in capsys.readouterr().err
    assert cli.main(["play", "yahtzee"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_match_takes_a_game_name_in_any_case(capsys):
    assert cli.main(["match", "Syvere", "--games", "2"]) == 0
    assert "2 games" in capsys.readouterr().out


# -- finding 9: smaller ones -----------------------------------------------------------------------------
def test_piped_answers_are_echoed_after_their_prompt():
    done = dice_envs("play", "syvere", "--seed", "1", stdin="dance\ns\nq\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "> dance\n" in out and "> s\n" in out and "> q\n" in out


def test_the_play_help_says_trained_plays_only_its_own_options(capsys):
    assert cli.main(["play", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "`trained` plays only with the game options it was trained with" in out
    assert "`rules`" in out and "prints the seed" in out


@pytest.mark.parametrize("starter", [0, 2])
def test_the_first_round_of_meyer_and_syvere_is_announced(starter):
    _, text = transcript("meyer", {"num_players": 3, "first_starter": starter}, ["q"], seed=1)
    assert f"  round 1: player_{starter} starts" in text.splitlines()
    _, text = transcript("syvere", {"num_players": 3, "first_starter": starter}, ["q"], seed=1)
    assert f"  round 1: player_{starter} starts, up to 3 rolls" in text.splitlines()


def test_a_syvere_roll_says_which_pairs_were_set_aside():
    game = syvere.Game()
    line = "player_0 rolled x  (113456)"
    assert syvere_hooks.annotate(game, line) == line + ": set aside 1+6, 3+4; left 1 5"
    assert syvere_hooks.annotate(game, "player_0 rolled x  (112233)") == "player_0 rolled x  (112233)"
    assert syvere_hooks.annotate(game, "player_0: stop") == "player_0: stop"


def out_in_meyer(answer_after_out: list[str]) -> tuple[object, list[str]]:
    """Three players with one life each; the person claims 21 and is caught lying (seed 0)."""
    out: list[str] = []
    returns = play("meyer", {"num_players": 3, "lives": 1}, seat=0, seed=0,
                   read=scripted(["21", *answer_after_out]), write=out.append)  # fmt: skip
    return returns, "\n".join(out).splitlines()


def test_a_person_out_of_a_three_player_game_may_skip_to_the_result():
    returns, lines = out_in_meyer(["s"])
    asked = lines.index("You are out: you have no more turns. Press Enter to watch the rest, or s to skip to the result.")
    assert returns is not None and lines[-1] == "You lose."
    assert not any("lifts the cup" in line for line in lines[asked:])
    assert any("WINNER" in line for line in lines[asked:])


def test_watching_shows_the_rest_and_end_of_input_skips():
    _, watched = out_in_meyer([""])
    asked = watched.index("You are out: you have no more turns. Press Enter to watch the rest, or s to skip to the result.")
    assert any("lifts the cup" in line for line in watched[asked:])
    returns, skipped = out_in_meyer([])
    assert returns is not None and skipped[-1] == "You lose."


def test_a_two_player_game_does_not_ask_once_the_person_is_out():
    _, text = transcript("syvere", {"num_players": 2}, ["s"] * 100, seed=1)
    assert "You are out" not in text


def test_agents_left_alone_are_stopped_after_the_decision_limit(monkeypatch):
    """Once the person is out nobody can stop the agents: a game they keep going is cut off, no result."""
    import dice_envs.play as play_module

    monkeypatch.setattr(play_module, "MAX_DECISIONS_WITHOUT_YOU", 1)
    returns, lines = out_in_meyer([""])
    assert returns is None
    assert lines[-1].startswith("The others have taken 1 decisions since you went out and the game is not over")
    monkeypatch.setattr(play_module, "MAX_DECISIONS_WITHOUT_YOU", 10_000)
    returns, lines = out_in_meyer([""])
    assert returns is not None and lines[-1] == "You lose."
