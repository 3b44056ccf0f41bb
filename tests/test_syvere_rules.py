"""Syvere rules SY-1..SY-12, table-driven, with every die scripted through apply_chance."""

import pytest

from dice_envs.games import syvere
from dice_envs.games.syvere import ROLL, STOP, Game, set_aside_sevens


def run(game, state, script):
    """Apply a script: dice tuples at chance states, action strings at decisions."""
    for step in script:
        if isinstance(step, str):
            assert not game.is_chance(state), f"expected a decision before {step!r}"
            state = game.apply_action(state, game.string_to_action(state, step))
        else:
            assert game.is_chance(state), f"expected a roll before {step!r}"
            state = game.apply_chance(state, step)
    return state


def with_totals(game, totals, **changes):
    state = game.initial_state()
    return state._replace(totals=tuple(totals), totals_before_round=tuple(totals), **changes)


# -- SY-1 ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", range(2, 9))
def test_SY1_two_to_eight_players_start_at_zero_with_six_dice(n):
    g = Game(num_players=n)
    s = g.initial_state()
    assert g.scores(s) == (0,) * n
    assert g.is_chance(s) and g.num_dice_to_roll(s) == 6
    assert len(g.chance_outcomes(s)) == 462


@pytest.mark.parametrize("n", [0, 1, 9, 2.5, "4"])
def test_SY1_bad_player_count_is_refused(n):
    with pytest.raises(ValueError, match="num_players"):
        Game(num_players=n)


# -- SY-2 ------------------------------------------------------------------------------------
def test_SY2_a_round_is_the_starter_then_each_other_player_clockwise():
    g = Game(num_players=4, first_starter=2)
    s = g.initial_state()
    order = []
    for _ in range(4):
        order.append(g.current_player(s))
        s = run(g, s, [(1, 2, 3, 4, 5, 6)])  # all pairs: the turn ends by itself
    assert order == [2, 3, 0, 1]
    assert s.round == 2


# -- SY-3 ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "roll, remaining",
    [
        ((2, 2, 4, 5, 6, 6), (2, 4, 6, 6)),
        ((1, 1, 2, 6), (1, 2)),
        ((1, 2, 3, 4, 5, 6), ()),
        ((1, 1, 6, 6, 3, 3), (3, 3)),
        ((3, 4, 3, 4, 3, 4), ()),
        ((1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1)),
        ((2, 5, 2, 5, 2, 6), (2, 6)),
        ((6,), (6,)),
    ],
)
def test_SY3_pairs_summing_to_seven_are_set_aside(roll, remaining):
    assert set_aside_sevens(tuple(sorted(roll))) == remaining


def test_SY3_pairs_are_set_aside_automatically_after_every_roll():
    g = Game()
    s = run(g, g.initial_state(), [(1, 6, 2, 2, 3, 3)])
    assert s.remaining == (2, 2, 3, 3)
    s = run(g, s, ["roll", (3, 4, 5, 5)])
    assert s.remaining == (5, 5)


# -- SY-4 ------------------------------------------------------------------------------------
def test_SY4_with_dice_left_under_the_limit_the_player_chooses_roll_or_stop():
    g = Game()
    s = run(g, g.initial_state(), [(1, 1, 2, 2, 3, 3)])
    assert g.legal_actions(s) == [ROLL, STOP]
    s = g.apply_action(s, ROLL)
    assert g.is_chance(s) and g.num_dice_to_roll(s) == 6


def test_SY4_no_dice_remaining_ends_the_turn_by_itself():
    g = Game()
    s = run(g, g.initial_state(), [(1, 1, 2, 2, 3, 3), "roll", (1, 6, 2, 5, 3, 4)])
    assert s.last_turn == (0, 0)
    assert g.current_player(s) == 1 and g.is_chance(s)


def test_SY4_reaching_the_roll_limit_ends_the_turn_by_itself():
    g = Game()
    s = run(g, g.initial_state(), [(1, 1, 2, 2, 3, 3), "roll", (1, 1, 2, 2, 3, 3), "roll", (1, 1, 2, 2, 3, 3)])
    assert s.last_turn == (0, 12)
    assert g.current_player(s) == 1


# -- SY-5 ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "script, points",
    [
        ([(2, 2, 4, 5, 6, 6), "stop"], 2 + 4 + 6 + 6),
        ([(1, 6, 2, 5, 3, 4)], 0),
        ([(1, 1, 1, 1, 1, 1), "stop"], 6),
        ([(6, 6, 6, 6, 6, 6), "roll", (1, 1, 1, 1, 1, 1), "stop"], 6),
        ([(1, 1, 2, 2, 3, 3), "roll", (1, 1, 2, 2, 3, 6), "roll", (1, 2, 3, 4)], 3),
    ],
)
def test_SY5_the_turn_scores_the_sum_of_the_remaining_dice(script, points):
    g = Game()
    s = run(g, g.initial_state(), script)
    assert g.scores(s) == (points, 0)
    assert s.last_turn == (0, points)


# -- SY-6 ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "starter_script, limit",
    [
        ([(1, 1, 2, 2, 3, 3), "stop"], 1),
        ([(1, 1, 2, 2, 3, 3), "roll", (1, 1, 2, 2, 3, 3), "stop"], 2),
        ([(1, 1, 2, 2, 3, 3), "roll", (1, 1, 2, 2, 3, 3), "roll", (1, 1, 2, 2, 3, 3)], 3),
        ([(1, 1, 2, 2, 3, 3), "roll", (1, 6, 2, 5, 3, 4)], 2),  # ran out of dice after 2 rolls
    ],
)
def test_SY6_others_may_roll_as_often_as_the_starter_did(starter_script, limit):
    g = Game(num_players=3)
    s = run(g, g.initial_state(), starter_script)
    assert g.current_player(s) == 1
    for _ in range(limit - 1):
        s = run(g, s, [(1, 1, 2, 2, 3, 3)])
        assert g.legal_actions(s) == [ROLL, STOP]
        assert g.roll_limit(s) == limit
        s = g.apply_action(s, ROLL)
    s = run(g, s, [(1, 1, 2, 2, 3, 3)])  # the limit is reached: the turn ends by itself
    assert g.current_player(s) == 2 and s.last_turn == (1, 12)


def test_SY6_the_starter_may_roll_max_rolls_times():
    g = Game(max_rolls=4)
    s = g.initial_state()
    for _ in range(3):
        s = run(g, s, [(1, 1, 2, 2, 3, 3), "roll"])
    s = run(g, s, [(1, 1, 2, 2, 3, 3)])
    assert g.current_player(s) == 1 and s.starter_rolls == 4


# -- SY-7 ------------------------------------------------------------------------------------
def test_SY7_worked_example_from_the_source():
    g = Game(num_players=2)
    s = g.apply_chance(g.initial_state(), (2, 2, 4, 5, 6, 6))
    assert s.remaining == (2, 4, 6, 6)  # 2+5 set aside
    s = g.apply_action(s, g.string_to_action(s, "roll"))
    s = g.apply_chance(s, (1, 6, 1, 2))  # the source lists them in this order
    assert s.remaining == (1, 2)  # 1+6 set aside
    s = g.apply_action(s, g.string_to_action(s, "stop"))
    assert g.scores(s) == (3, 0)
    assert s.last_turn == (0, 3)


# -- SY-8 ------------------------------------------------------------------------------------
# A starter who stops after one roll limits everyone else to one roll, so the other players'
# turns below end by themselves after their roll.
def test_SY8_a_player_at_77_takes_no_more_turns_but_the_round_finishes():
    g = Game(num_players=3)
    s = with_totals(g, (70, 10, 10))
    s = run(g, s, [(1, 1, 1, 2, 3, 3), "stop"])  # player 0: 70 + 11 = 81, out
    assert g.scores(s) == (81, 10, 10)
    assert g.current_player(s) == 1  # the round goes on
    s = run(g, s, [(1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1)])
    assert not g.is_terminal(s)
    assert s.round == 2 and s.round_order == (2, 1)  # player 0 takes no further turns
    assert g.still_in(s) == (1, 2)


def test_SY8_reaching_exactly_77_is_out():
    g = Game(num_players=2)
    s = with_totals(g, (71, 0))
    s = run(g, s, [(1, 1, 1, 1, 1, 1), "stop", (1, 2, 3, 4, 5, 6)])
    assert g.scores(s) == (77, 0) and s.winners == (1,)


# -- SY-9 ------------------------------------------------------------------------------------
def test_SY9_the_last_player_still_in_wins_at_the_end_of_the_round():
    g = Game(num_players=3)
    s = with_totals(g, (70, 70, 10))
    s = run(g, s, [(1, 1, 1, 2, 3, 3), "stop", (1, 1, 1, 2, 3, 3)])
    assert g.scores(s) == (81, 81, 10)
    assert not g.is_terminal(s)  # the round is not over: player 2 still plays
    s = run(g, s, [(1, 1, 1, 2, 3, 3)])
    assert g.is_terminal(s) and s.winners == (2,)
    assert g.returns(s) == (-0.5, -0.5, 1.0)


def test_SY9_two_or_more_still_in_start_a_new_round():
    g = Game(num_players=3)
    s = with_totals(g, (70, 70, 75))
    s = run(g, s, [(1, 1, 1, 1, 1, 1), "stop", (1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1)])
    assert g.scores(s) == (76, 76, 81)
    assert not g.is_terminal(s) and s.round == 2 and s.totals_before_round == (76, 76, 81)


def test_SY9_everyone_out_in_one_round_fewest_points_wins():
    g = Game(num_players=3)
    s = with_totals(g, (70, 70, 72))
    s = run(g, s, [(1, 1, 1, 2, 3, 3), "stop", (2, 2, 2, 2, 3, 3), (1, 1, 1, 1, 3, 3)])
    assert g.scores(s) == (81, 84, 82)
    assert s.winners == (0,)
    assert g.returns(s) == (1.0, -0.5, -0.5)


@pytest.mark.parametrize(
    "before, first_roll, second_roll, winner",
    [
        ((70, 74), (1, 1, 1, 1, 3, 3), (1, 1, 1, 1, 1, 1), 0),
        ((74, 70), (1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 3, 3), 1),
    ],
)
def test_SY9_a_tie_on_points_goes_to_fewest_points_before_the_round(before, first_roll, second_roll, winner):
    g = Game(num_players=2)
    s = run(g, with_totals(g, before), [first_roll, "stop", second_roll])
    assert g.scores(s) == (80, 80)
    assert s.winners == (winner,)


def test_SY9_players_still_tied_share_the_win():
    g = Game(num_players=3)
    s = with_totals(g, (72, 72, 75))
    s = run(g, s, [(1, 1, 1, 1, 1, 1), "stop", (1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1)])
    assert g.scores(s) == (78, 78, 81)
    assert s.winners == (0, 1)
    assert g.returns(s) == (0.5, 0.5, -1.0)


def test_SY9_the_game_ends_only_at_the_end_of_a_round():
    g = Game(num_players=2)
    s = with_totals(g, (0, 76))
    s = run(g, s, [(1, 1, 1, 1, 1, 1), "stop"])  # player 0 is not out; player 1 still to play
    assert not g.is_terminal(s)
    s = run(g, s, [(1, 1, 1, 1, 1, 1)])
    assert g.is_terminal(s) and s.winners == (0,)


# -- SY-10 -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "option, first, expected",
    [("right", 0, 3), ("right", 2, 1), ("left", 0, 1), ("left", 3, 0)],
)
def test_SY10_next_round_starts_right_of_the_previous_starter(option, first, expected):
    g = Game(num_players=4, next_starter=option, first_starter=first)
    s = g.initial_state()
    for _ in range(4):
        s = run(g, s, [(1, 2, 3, 4, 5, 6)])
    assert s.round == 2 and g.current_player(s) == expected


def test_SY10_the_next_starter_skips_players_who_are_out():
    g = Game(num_players=4, first_starter=0)
    s = with_totals(g, (0, 0, 0, 75))
    s = run(g, s, [(1, 2, 3, 4, 5, 6)] * 3 + [(1, 1, 1, 1, 1, 1)])  # player 3 goes out
    assert g.current_player(s) == 2  # right of 0 is 3, who is out, so 2


# -- SY-11 -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, name",
    [
        ({"elimination": 0}, "elimination"),
        ({"max_rolls": 0}, "max_rolls"),
        ({"next_starter": "up"}, "next_starter"),
        ({"first_starter": 2}, "first_starter"),
        ({"first_starter": -1}, "first_starter"),
        ({"num_players": 9}, "num_players"),
    ],
)
def test_SY11_bad_options_name_the_option(options, name):
    with pytest.raises(ValueError, match=name):
        Game(**options)


def test_SY11_elimination_option_changes_when_players_are_out():
    g = Game(num_players=2, elimination=20)
    s = run(g, g.initial_state(), [(4, 4, 4, 4, 4, 6), "stop", (1, 1, 1, 1, 1, 1)])
    assert g.is_terminal(s) and s.winners == (1,)


# -- SY-12 -----------------------------------------------------------------------------------
def test_SY12_action_strings():
    g = Game()
    s = run(g, g.initial_state(), [(1, 1, 2, 2, 3, 3)])
    assert [g.action_to_string(s, a) for a in g.legal_actions(s)] == ["roll", "stop"]
    assert g.string_to_action(s, " ROLL ") == ROLL
    with pytest.raises(ValueError, match="legal actions: 'roll', 'stop'"):
        g.string_to_action(s, "pass")


def test_illegal_actions_raise_naming_the_action():
    g = Game()
    s = g.initial_state()
    with pytest.raises(ValueError, match="dice must be rolled first"):
        g.apply_action(s, ROLL)
    s = run(g, s, [(1, 1, 2, 2, 3, 3)])
    with pytest.raises(ValueError, match="illegal action 7"):
        g.apply_action(s, 7)
    with pytest.raises(ValueError, match="no dice are to be rolled"):
        g.apply_chance(s, (1, 2))
    with pytest.raises(ValueError, match="expected 6 dice"):
        g.apply_chance(g.apply_action(s, ROLL), (1, 2))


def test_states_are_immutable_values():
    g = Game()
    s = g.initial_state()
    t = g.apply_chance(s, (1, 1, 2, 2, 3, 3))
    assert s == g.initial_state() and s != t
    assert hash(t) == hash(g.apply_chance(g.initial_state(), (3, 3, 2, 2, 1, 1)))
    with pytest.raises(AttributeError):
        t.rolls = 5
    assert syvere.State is type(t)


def test_SY9_a_player_out_before_the_round_is_not_among_the_winners():
    g = Game(num_players=3)
    s = with_totals(g, (70, 70, 77), round_order=(0, 1))  # seat 2 went out in an earlier round
    s = run(g, s, [(1, 1, 1, 2, 3, 3), "stop", (1, 1, 1, 1, 2, 2)])
    assert g.scores(s) == (81, 78, 77)
    assert s.winners == (1,)  # fewest points among the players who began the round


# -- C-1, C-3, C-4 ---------------------------------------------------------------------------
def test_C1_play_passes_clockwise_and_agents_are_named_by_seat():
    g = Game(num_players=5, first_starter=3)
    assert g.initial_state().round_order == (3, 4, 0, 1, 2)
    from dice_envs import syvere_v0

    assert syvere_v0.raw_env(num_players=5).possible_agents == [f"player_{i}" for i in range(5)]


def test_C3_a_complete_tie_gives_everyone_zero():
    g = Game(num_players=2)
    s = run(g, with_totals(g, (72, 72)), [(1, 1, 1, 1, 1, 1), "stop", (1, 1, 1, 1, 1, 1)])
    assert s.winners == (0, 1)
    assert g.returns(s) == (0.0, 0.0)


@pytest.mark.parametrize("n, first", [(2, 1), (4, 3), (8, 5)])
def test_C4_first_starter_acts_first(n, first):
    g = Game(num_players=n, first_starter=first)
    assert g.current_player(g.initial_state()) == first
    assert g.current_player(Game(num_players=n).initial_state()) == 0


# -- observation (syvere_v0's table, entry by entry) ------------------------------------------
def test_observation_entry_by_entry():
    g = Game(num_players=3)
    # Seat 2 is out; seat 1 started this round and rolled three times; seat 0 plays now.
    s = with_totals(g, (10, 32, 80))._replace(round_order=(1, 0), turn=1, starter_rolls=3)
    s = run(g, s, [(1, 1, 2, 4, 4, 6), "roll", (1, 2, 2, 4)])  # 1+6 set aside, then no pair
    assert g.current_player(s) == 0 and s.rolls == 2 and s.remaining == (1, 2, 2, 4)
    expected_for_0 = [
        10, 32, 80,  # totals: own, then clockwise
        1, 1, 0,  # still in
        1, 0, 0,  # whose turn: the observer's
        2, 3,  # rolls made, this turn's roll limit
        4, 1, 2, 0, 1, 0, 0,  # dice remaining, then how many show 1..6
        9,  # their sum
        0,  # the player to act did not start the round
        0,  # nobody plays after them in this round
    ]  # fmt: skip
    assert g.observe(s, 0).tolist() == expected_for_0
    assert g.observe(s, 1).tolist() == [32, 80, 10, 1, 0, 1, 0, 0, 1] + expected_for_0[9:]
    assert g.observe(s, 0).dtype.name == "float32"
    low, high = g.observation_low, g.observation_high
    assert len(low) == 3 * 3 + 12 and (g.observe(s, 2) >= low).all() and (g.observe(s, 2) <= high).all()
    # Before a turn's first roll: six dice, nothing counted yet; at the end: only the table.
    fresh = g.initial_state()
    assert g.observe(fresh, 0).tolist()[9:] == [0, 3, 6, 0, 0, 0, 0, 0, 0, 0, 1, 2]
    over = run(g, with_totals(g, (76, 76, 76)), [(1, 1, 1, 1, 1, 1), "stop"] + [(1, 1, 1, 1, 1, 1)] * 2)
    assert g.is_terminal(over) and g.observe(over, 0).tolist()[6:] == [0] * 15
