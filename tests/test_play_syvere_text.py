"""What a person playing Syvere in the terminal is told (``dice-envs play``): why a turn ended when
nobody chose to stop (every die paired off, SY-3; the roll limit, SY-6), who goes out (SY-8), who
starts each new round with how many rolls (SY-6, SY-10), how the winner was decided (SY-9), and the
roll limit of the person's own turn; the table above the prompt says nothing stale."""

from __future__ import annotations

import re

import pytest

from dice_envs.games.syvere import Game
from dice_envs.play import play
from dice_envs.play import syvere as hooks


def run(game, state, script):
    """Apply a script: dice tuples at chance states, action strings at decisions."""
    for step in script:
        state = last(game, state, [step])[1]
    return state


def last(game, state, script):
    """Apply a script; return the states before and after its last step."""
    before = state
    for step in script:
        before = state
        if isinstance(step, str):
            state = game.apply_action(state, game.string_to_action(state, step))
        else:
            state = game.apply_chance(state, step)
    return before, state


def lines_of_last(game, state, script):
    return game.change_lines(*last(game, state, script))


def with_totals(game, totals, **changes):
    state = game.initial_state()
    return state._replace(totals=tuple(totals), totals_before_round=tuple(totals), **changes)


ONES = (1, 1, 1, 1, 1, 1)
PAIRED = (1, 2, 3, 4, 5, 6)


def test_a_stop_gets_only_its_score_line_and_a_turn_going_on_gets_none():
    g = Game(num_players=3)
    s = g.initial_state()
    assert lines_of_last(g, s, [(1, 1, 2, 2, 3, 3)]) == []  # a decision: the turn goes on
    assert lines_of_last(g, s, [(1, 1, 2, 2, 3, 3), "roll"]) == []
    assert lines_of_last(g, s, [(1, 1, 2, 2, 3, 3), "stop"]) == ["player_0: 0 -> 12 (+12)"]


def test_SY6_a_turn_cut_short_by_the_starters_rolls_says_so():
    """The review's case: the starter stopped after one roll, so the others get one roll each."""
    g = Game(num_players=3)
    s = run(g, g.initial_state(), [(1, 1, 2, 2, 3, 3), "stop"])
    assert lines_of_last(g, s, [ONES]) == [
        "player_1's turn ends: 1 roll, as many as the starter (player_0) made",
        "player_1: 0 -> 6 (+6)",
    ]
    assert lines_of_last(g, s, [ONES, (2, 2, 2, 2, 2, 2)]) == [
        "player_2's turn ends: 1 roll, as many as the starter (player_0) made",
        "player_2: 0 -> 12 (+12)",
        "round 2: player_2 starts, up to 3 rolls",  # SY-10: right of player_0
    ]


def test_SY6_the_starter_at_the_roll_limit():
    g = Game(num_players=2)
    assert lines_of_last(g, g.initial_state(), [ONES, "roll", ONES, "roll", (1, 1, 1, 1, 1, 2)]) == [
        "player_0's turn ends: 3 rolls, the most a starter may make",
        "player_0: 0 -> 7 (+7)",
    ]
    g = Game(num_players=2, max_rolls=1)
    assert lines_of_last(g, g.initial_state(), [ONES]) == [
        "player_0's turn ends: 1 roll, the most a starter may make",
        "player_0: 0 -> 6 (+6)",
    ]
    s = run(g, g.initial_state(), [ONES])
    assert lines_of_last(g, s, [ONES])[-1] == "round 2: player_1 starts, up to 1 roll"


def test_SY6_a_later_player_gets_as_many_rolls_as_the_starter_made():
    g = Game(num_players=2)
    s = run(g, g.initial_state(), [ONES, "roll", ONES, "stop"])
    assert lines_of_last(g, s, [ONES, "roll", (1, 1, 1, 1, 2, 2)]) == [
        "player_1's turn ends: 2 rolls, as many as the starter (player_0) made",
        "player_1: 0 -> 8 (+8)",
        "round 2: player_1 starts, up to 3 rolls",
    ]


def test_SY3_every_die_paired_off_ends_the_turn_with_0_points():
    g = Game(num_players=2)
    assert lines_of_last(g, g.initial_state(), [PAIRED]) == [
        "player_0's turn ends: all dice paired off, 0 points",
        "player_0: 0 -> 0 (+0)",
    ]
    # At the roll limit too, no dice left is the reason given.
    s = run(g, g.initial_state(), [PAIRED])
    ends = lines_of_last(g, s, [(3, 3, 4, 4, 5, 2)])[0]
    assert ends == "player_1's turn ends: all dice paired off, 0 points"


def test_SY8_going_out_is_told_and_SY10_the_next_starter_skips_the_player_out():
    g = Game(num_players=4)
    s = run(g, with_totals(g, (0, 0, 0, 75)), [PAIRED] * 3)
    assert lines_of_last(g, s, [ONES]) == [
        "player_3's turn ends: 1 roll, as many as the starter (player_0) made",
        "player_3: 75 -> 81 (+6)",
        "player_3 is out (77 or more)",
        "round 2: player_2 starts, up to 3 rolls",
    ]


def test_SY9_the_last_player_still_in_wins():
    g = Game(num_players=2, elimination=20)
    s = run(g, g.initial_state(), [(4, 4, 4, 4, 4, 6)])
    assert lines_of_last(g, s, ["stop"]) == ["player_0: 0 -> 26 (+26)", "player_0 is out (20 or more)"]
    assert lines_of_last(g, s, ["stop", ONES]) == [
        "player_1's turn ends: 1 roll, as many as the starter (player_0) made",
        "player_1: 0 -> 6 (+6)",
        "player_1 wins: the only player still in",
    ]


def test_SY9_everyone_out_in_one_round_the_fewest_points_wins():
    g = Game(num_players=3)
    s = with_totals(g, (70, 70, 72))
    assert lines_of_last(g, s, [(1, 1, 1, 2, 3, 3), "stop", (2, 2, 2, 2, 3, 3), (1, 1, 1, 1, 3, 3)]) == [
        "player_2's turn ends: 1 roll, as many as the starter (player_0) made",
        "player_2: 72 -> 82 (+10)",
        "player_2 is out (77 or more)",
        "every player still in went out this round: the fewest points wins, player_0 with 81",
    ]


def test_SY9_a_player_out_before_the_round_is_left_out_of_the_verdict():
    g = Game(num_players=3)
    s = with_totals(g, (70, 70, 77), round_order=(0, 1))
    assert lines_of_last(g, s, [(1, 1, 1, 2, 3, 3), "stop", (1, 1, 1, 1, 2, 2)])[-1] == (
        "every player still in went out this round: the fewest points wins, player_1 with 78"
    )


@pytest.mark.parametrize(
    "before, first_roll, second_roll, verdict",
    [
        ((70, 74), (1, 1, 1, 1, 3, 3), ONES, "player_0 with 70 (player_1 had 74)"),
        ((74, 70), ONES, (1, 1, 1, 1, 3, 3), "player_1 with 70 (player_0 had 74)"),
    ],
)
def test_SY9_a_tie_on_points_is_broken_by_the_points_before_the_round(before, first_roll, second_roll,
                                                                      verdict):  # fmt: skip
    g = Game(num_players=2)
    after = run(g, with_totals(g, before), [first_roll, "stop", second_roll])
    assert after.winners is not None and g.scores(after) == (80, 80)
    assert lines_of_last(g, with_totals(g, before), [first_roll, "stop", second_roll])[-1] == (
        "every player still in went out this round: player_0 and player_1 tie at 80 points; "
        f"the fewest before the round wins, {verdict}"
    )


def test_SY9_players_still_tied_share_the_win():
    g = Game(num_players=3)
    lines = lines_of_last(g, with_totals(g, (72, 72, 75)), [ONES, "stop", ONES, ONES])
    assert lines[-1] == (
        "every player still in went out this round: player_0 and player_1 tie at 78 points "
        "and had 72 each before the round: they share the win"
    )
    eights = (1, 1, 1, 1, 2, 2)
    lines = lines_of_last(g, with_totals(g, (72, 72, 74)), [eights, "stop", eights, ONES])
    assert lines[-1] == (
        "every player still in went out this round: player_0, player_1 and player_2 tie at 80 points; "
        "the fewest before the round wins: player_0 and player_1 share the win with 72 each (player_2 had 74)"
    )
    g = Game(num_players=2)
    lines = lines_of_last(g, with_totals(g, (72, 72)), [ONES, "stop", ONES])
    assert lines[-1] == (
        "every player still in went out this round: player_0 and player_1 tie at 78 points "
        "and had 72 each before the round: they share the win"
    )


def test_the_table_has_no_stale_line_about_the_last_turn():
    """The last turn's score is in the log; the table shows only what holds now."""
    g = Game(num_players=3)
    twelve = (1, 1, 2, 2, 3, 3)
    s = run(g, g.initial_state(), [twelve, "stop", ONES, (2, 2, 2, 2, 2, 2), twelve, "roll", twelve])
    assert g.render(s) == "\n".join(
        [
            "Syvere, round 2 (out at 77)",
            "  player_0:  12",
            "  player_1:   6",
            "  player_2:  12  <- to play, started the round",
            "  dice left: ⚀ ⚀ ⚁ ⚁ ⚂ ⚂ = 12  (roll 2 of 3, 1 left)",
        ]
    )
    assert "scored" not in g.render(run(g, s, ["stop"]))


def test_the_person_is_told_their_roll_limit_and_why():
    g = Game(num_players=3)
    s = run(g, g.initial_state(), [(1, 1, 2, 2, 3, 3), "stop", ONES, (2, 2, 2, 2, 2, 2), (1, 1, 2, 2, 3, 3)])
    assert hooks.describe(g, s, 2) == (
        "  You started round 2: you may roll up to 3 times, and the others as often as you do.\n"
        "  Your dice add up to 12. r = roll the 6 dice again (2 rolls left), s = stop and score 12."
    )
    s = run(g, s, ["roll", (1, 1, 2, 2, 3, 3), "stop", (1, 1, 1, 1, 1, 2)])
    assert hooks.describe(g, s, 0) == (
        "  player_2 started round 2 and rolled 2 times, so you may roll up to 2 times.\n"
        "  Your dice add up to 7. r = roll the 6 dice again (1 roll left), s = stop and score 7."
    )


def test_a_played_game_marks_every_round_and_explains_its_winner():
    """Through the terminal loop: a marker for each new round, in order, and the verdict's reason
    just before the game ends."""
    answers = iter(["r"] * 500)
    out: list[str] = []
    returns = play("syvere", {"num_players": 3, "elimination": 40}, seat=1, seed=2,
                   read=lambda _: next(answers), write=out.append)  # fmt: skip
    assert returns is not None
    marker = re.compile(r"  round (\d+): player_\d starts, up to 3 rolls")
    rounds = [int(m.group(1)) for line in out if (m := marker.fullmatch(line))]
    out = "\n".join(out).splitlines()  # a table is written at once, lines and all
    table = re.compile(r"Syvere, round (\d+) \(out at 40\)")
    tables = [int(m.group(1)) for line in out if (m := table.fullmatch(line))]
    assert rounds == list(range(1, tables[-1] + 1))  # round 1 is announced too (review 7, finding 9)
    end = out.index("  game over")
    verdict = r"  (player_\d wins: the only player still in|every player still in went out this round: .*)"
    assert re.fullmatch(verdict, out[end - 1])
    assert not any("scored" in line for line in out)
