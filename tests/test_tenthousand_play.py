"""Terminal play of Ten thousand: the person's input (TT-11 and the short forms) and the messages."""

from __future__ import annotations

import re

import pytest

from dice_envs.games import tenthousand as tt
from dice_envs.play import play
from dice_envs.play import tenthousand as hooks


def at(game, roll, **fields):
    return game.apply_chance(game.initial_state()._replace(to_roll=len(roll), **fields), roll)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1 5", "keep 15 roll"),
        ("15", "keep 15 roll"),
        ("51", "keep 15 roll"),
        ("1, 5 r", "keep 15 roll"),
        ("15 roll", "keep 15 roll"),
        ("1222 b", "keep 1222 bank"),
        ("2 2 2 1 bank", "keep 1222 bank"),
        ("12225 STOP", "keep 12225 bank"),
        ("keep 15 bank", "keep 15 bank"),
        ("b", "keep 12225 bank"),
    ],
)
def test_TT11_parse_short_forms(text, expected):
    game = tt.Game(preset="no")
    state = at(game, (1, 2, 2, 2, 5, 6), turn_total=500)
    assert tt.ACTION_STRINGS[hooks.parse(game, state, text)] == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("4", "there is no 4 in your roll 122256"),
        ("16", "6 does not score: 6s score only three or more together"),
        ("22", "2 2 do not score"),
        ("111", "has only 1 1; you typed 3"),
        ("15 b", "the first bank needs at least 1000"),
        ("b", "you cannot bank now"),
        ("r", "which dice do you keep"),
        ("hello", "neither faces nor r/b"),
        ("17", "7 is not a die face"),
        ("b 15", "faces first"),
        ("15 r b", "once"),
    ],
)
def test_TT3_parse_explains_what_is_wrong(text, message):
    game = tt.Game(preset="dk")
    state = at(game, (1, 2, 2, 2, 5, 6))
    with pytest.raises(ValueError, match=re.escape(message)):
        hooks.parse(game, state, text)


def test_TT4_TT9c_parse_names_the_rule_that_forbids_the_bank():
    game = tt.Game(preset="no", confirm_combinations=True)
    with pytest.raises(ValueError, match="confirmed"):
        hooks.parse(game, at(game, (2, 2, 2, 3, 4, 6), turn_total=400), "222 b")
    dk = tt.Game(preset="dk")
    with pytest.raises(ValueError, match="hot dice"):
        hooks.parse(dk, at(dk, (1, 1, 1, 5, 5, 5)), "111555 b")


def test_TT5_parse_dk_three_pairs_need_different_values():
    game = tt.Game(preset="dk")
    with pytest.raises(ValueError, match="three different values"):
        hooks.parse(game, at(game, (4, 4, 6, 6, 6, 6)), "446666")


def test_TT6_describe_lists_the_scoring_dice_and_the_keeps():
    game = tt.Game(preset="dk")
    text = hooks.describe(game, at(game, (1, 2, 2, 2, 5, 6)), 0)
    assert "12225" in text  # the roll itself is on the table shown above (game.render)
    assert "not scoring: 6" in text
    assert "1 (100), 5 (50), 15 (150), 222 (200), 1222 (300), 2225 (250), 12225 (350)" in text
    assert "No bank yet: the first bank needs at least 1000" in text
    opened = hooks.describe(game, at(game, (1, 2, 2, 2, 5, 6), opened=(True, False)), 0)
    assert "You may bank after keeping: 1222, 12225" in opened


def test_play_loop_runs_a_game_with_typed_faces():
    """A scripted person: a wrong answer first, then the first keep listed, bank or else roll."""
    out: list[str] = []
    person = {"tried_bank": False, "reads": 0}

    def write(text: str) -> None:
        out.extend(text.split("\n"))
        if "You may keep:" in text:  # a new decision
            person["tried_bank"] = False

    def read(prompt: str) -> str:
        person["reads"] += 1
        if person["reads"] == 1:
            return "4 5 6"  # at most the 5 scores: explained, asked again
        if person["reads"] > 500:
            return "q"
        faces = [line for line in out if "You may keep:" in line][-1].split(":", 1)[1].split()[0]
        if person["tried_bank"]:
            return f"{faces} r"
        person["tried_bank"] = True
        return f"{faces} b"

    returns = play("tenthousand", options={"preset": "farkle", "target": 1000}, seed=5, read=read, write=write)
    text = "\n".join(out)
    assert "does not score" in text or "there is no" in text  # the wrong first answer, explained
    assert "you cannot bank after keeping" in text  # a refused bank, explained
    assert returns is not None, text[-2000:]
    assert sorted(returns) == [-1.0, 1.0]
