"""Ten thousand rules (RULES.md TT-1..TT-11), each test named with the rule it checks.

Situations are scripted: dice are applied with ``apply_chance`` and, where a rule needs a
particular standing (totals, who is på listen, a turn total), the public state value is set with
``_replace`` before the roll.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from dice_envs import dice as dice_mod
from dice_envs.games import tenthousand as tt
from dice_envs.games.tenthousand import Game

PRESETS = ("dk", "no", "farkle")
BUST6 = (2, 2, 3, 3, 4, 6)  # no 1 or 5, no triple, two pairs only: a bust in every preset
TRIPLE = {1: 1000, 2: 200, 3: 300, 4: 400, 5: 500, 6: 600}  # TT-5, every preset
KIND_FACTOR = {  # TT-5: four, five, six of a kind as a multiple of the triple
    "dk": {3: 1, 4: 2, 5: 3, 6: 4},
    "no": {3: 1, 4: 2, 5: 4, 6: 8},
    "farkle": {3: 1, 4: 2, 5: 4, 6: 8},
}


def faces(text: str) -> tuple[int, ...]:
    return tuple(int(c) for c in text)


def decision(game: Game, roll, **fields) -> tt.State:
    """The state after ``roll`` at the start of a turn, with some public fields set first."""
    state = game.initial_state()._replace(**fields)
    return game.apply_chance(state, roll)


def act(game: Game, state, text: str):
    return game.apply_action(state, game.string_to_action(state, text))


def legal_strings(game: Game, state) -> set[str]:
    return {game.action_to_string(state, a) for a in game.legal_actions(state)}


def can_bank(game: Game, state, sel: str) -> bool:
    return f"keep {sel} bank" in legal_strings(game, state)


def selection_values(game: Game, roll) -> dict[str, int]:
    return {dice_mod.to_string(sel): value for sel, value in game.selections(roll)}


# -- TT-1 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 9, "2", 2.0, True])
def test_TT1_player_count_out_of_range_names_num_players(n):
    with pytest.raises(ValueError, match="num_players"):
        Game(num_players=n)


@pytest.mark.parametrize("preset", PRESETS)
def test_TT1_six_dice_and_target_ten_thousand_by_default(preset):
    game = Game(num_players=8, preset=preset)
    state = game.initial_state()
    assert game.target == 10_000
    assert game.num_dice_to_roll(state) == 6
    assert game.current_player(state) == 0
    assert game.scores(state) == (0,) * 8


# -- TT-2 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", PRESETS)
def test_TT2_bust_loses_the_turn_total_and_passes_the_dice(preset):
    game = Game(num_players=3, preset=preset)
    state = decision(game, faces("111234"))
    state = act(game, state, "keep 111 roll")
    assert state.turn_total == 1000 and game.num_dice_to_roll(state) == 3
    state = game.apply_chance(state, (2, 3, 4))  # no scoring die: bust
    assert game.current_player(state) == 1
    assert state.turn_total == 0 and game.num_dice_to_roll(state) == 6
    assert game.scores(state) == (0, 0, 0)
    assert state.busts == (1, 0, 0)


def brute_force_bust_probability(n: int) -> Fraction:
    """P(bust) with n dice, counting all 6**n ordered rolls against TT-5 written out here.

    The presets differ on three pairs only where a face shows four times, which scores anyway,
    so the bust probability is the same in every preset.
    """
    busts = 0
    for roll in itertools.product(range(1, 7), repeat=n):
        counts = [roll.count(f) for f in range(1, 7)]
        if counts[0] or counts[4] or max(counts) >= 3:
            continue  # a single 1 or 5, or three of a kind, scores
        if n == 6:
            pairs = [c for c in counts if c == 2]
            if len(pairs) == 3:
                continue  # three pairs (different values; with at most 2 of a face they are)
            if sorted(roll) == [1, 2, 3, 4, 5, 6]:
                continue  # straight (already excluded: it holds a 1)
        busts += 1
    return Fraction(busts, 6**n)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_TT2_exact_bust_probability_from_chance_outcomes(preset, n):
    game = Game(preset=preset)
    state = game.initial_state()
    kept = 6 - n
    if kept:  # set aside `kept` 1s so that n dice are rolled next
        state = game.apply_chance(state, (1,) * kept + (2, 3, 4, 6, 2, 3)[: 6 - kept])
        state = act(game, state, f"keep {'1' * kept} roll")
    assert game.num_dice_to_roll(state) == n
    outcomes = game.chance_outcomes(state)
    assert sum(p for _, p in outcomes) == 1
    bust = sum((p for dice, p in outcomes if not game.selections(dice)), Fraction(0))
    assert bust == brute_force_bust_probability(n)
    # and a bust outcome really ends the turn
    for dice, _ in outcomes:
        after = game.apply_chance(state, dice)
        assert (after.player == 1) == (not game.selections(dice))


def test_TT2_bust_probabilities_match_the_published_farkle_odds():
    # Widely published Farkle odds: 2/3, 4/9, 5/18, 17/108, 25/324, 5/216 for 1..6 dice.
    published = [Fraction(2, 3), Fraction(4, 9), Fraction(5, 18), Fraction(17, 108), Fraction(25, 324), Fraction(5, 216)]
    assert [brute_force_bust_probability(n) for n in range(1, 7)] == published


# -- TT-3 -------------------------------------------------------------------------------------
def test_TT3_selection_must_score_every_die():
    game = Game(preset="dk")
    state = decision(game, faces("122256"))
    with pytest.raises(ValueError, match="never score"):
        tt.encode_action((1, 2, 2, 2, 5, 6), False)  # the 6 does not score
    with pytest.raises(ValueError, match="not a legal action"):
        game.string_to_action(state, "keep 22 roll")
    state = decision(game, faces("446666"))  # in dk the 4s are no pair of three pairs
    with pytest.raises(ValueError, match="illegal action"):
        game.apply_action(state, tt.encode_action((4, 4, 6, 6, 6, 6), False))
    assert game.score((2, 2)) is None and game.score((1, 6)) is None


def test_TT3_selection_must_come_from_this_roll():
    game = Game(preset="dk")
    state = decision(game, faces("122256"))
    with pytest.raises(ValueError, match="illegal action 18 "):  # keep 333: no 3s rolled
        game.apply_action(state, tt.encode_action((3, 3, 3), False))


def test_TT3_roll_rolls_the_dice_not_set_aside_and_adds_the_value():
    game = Game(preset="dk")
    state = decision(game, faces("122256"))
    state = act(game, state, "keep 2225 roll")
    assert state.turn_total == 250 and game.num_dice_to_roll(state) == 2
    state = game.apply_chance(state, (1, 6))
    assert state.roll == (1, 6) and game.current_player(state) == 0
    state = act(game, state, "keep 1 roll")
    assert state.turn_total == 350 and game.num_dice_to_roll(state) == 1


def test_TT3_combinations_count_only_within_one_roll():
    game = Game(preset="dk")
    state = decision(game, faces("122346"))
    state = act(game, state, "keep 1 roll")  # 2, 2 stay behind
    state = game.apply_chance(state, (2, 3, 4, 5, 6))
    # the 2 rolled now does not join the two 2s of the last roll
    assert selection_values(game, state.roll) == {"5": 50}


def test_TT3_bank_adds_the_turn_total_and_ends_the_turn():
    game = Game(num_players=2, preset="dk")
    state = decision(game, faces("111555"))
    state = act(game, state, "keep 111 roll")
    state = game.apply_chance(state, (5, 5, 5))
    state = act(game, state, "keep 555 roll")  # hot dice
    state = game.apply_chance(state, faces("122346"))
    state = act(game, state, "keep 1 bank")
    assert game.scores(state) == (1600, 0)
    assert state.opened == (True, False)
    assert game.current_player(state) == 1 and game.num_dice_to_roll(state) == 6


# -- TT-4 -------------------------------------------------------------------------------------
def test_TT4_dk_hot_dice_must_be_rolled():
    game = Game(preset="dk")
    state = decision(game, faces("111555"))
    legal = legal_strings(game, state)
    assert "keep 111555 roll" in legal and "keep 111555 bank" not in legal
    assert "keep 111 bank" in legal  # 1000: the opening is met while dice remain
    with pytest.raises(ValueError, match="illegal action"):
        game.apply_action(state, tt.encode_action((1, 1, 1, 5, 5, 5), True))
    assert "hot dice" in game.bank_refusal(state, (1, 1, 1, 5, 5, 5))
    state = act(game, state, "keep 111555 roll")
    assert state.turn_total == 1500 and game.num_dice_to_roll(state) == 6


@pytest.mark.parametrize("preset", ["no", "farkle"])
def test_TT4_no_and_farkle_may_bank_or_roll_hot_dice(preset):
    game = Game(preset=preset)
    state = decision(game, faces("111555"))
    assert {"keep 111555 roll", "keep 111555 bank"} <= legal_strings(game, state)
    rolled = act(game, state, "keep 111555 roll")
    assert rolled.turn_total == 1500 and game.num_dice_to_roll(rolled) == 6
    banked = act(game, state, "keep 111555 bank")
    assert game.scores(banked) == (1500, 0)


def test_TT4_hot_dice_turn_total_carries_on_after_a_second_hot_roll():
    game = Game(preset="dk")
    state = decision(game, faces("123456"))
    state = act(game, state, "keep 123456 roll")
    state = game.apply_chance(state, faces("223344"))
    state = act(game, state, "keep 223344 roll")
    assert state.turn_total == 2500 and game.num_dice_to_roll(state) == 6


def test_TT4_option_hot_dice_must_roll_overrides_the_preset():
    assert can_bank(Game(preset="dk", hot_dice_must_roll=False), decision(Game(preset="dk"), faces("111555")), "111555")
    game = Game(preset="farkle", hot_dice_must_roll=True)
    assert not can_bank(game, decision(game, faces("111555")), "111555")


# -- TT-5 -------------------------------------------------------------------------------------
def tt5_cells():
    """Every cell of TT-5's table, per preset: (preset, dice, value or None)."""
    straight = {"dk": 1000, "no": 1500, "farkle": 1500}
    three_pairs = {"dk": 1500, "no": 1500, "farkle": 750}
    for preset in PRESETS:
        yield preset, "1", 100
        yield preset, "5", 50
        for face in range(1, 7):
            for k in range(3, 7):
                yield preset, str(face) * k, KIND_FACTOR[preset][k] * TRIPLE[face]
        yield preset, "123456", straight[preset]
        for pairs in ("112233", "223344", "224466", "334455", "115566", "113355"):
            yield preset, pairs, three_pairs[preset]
        yield preset, "446666", None if preset == "dk" else three_pairs[preset]


@pytest.mark.parametrize("preset, sel, value", list(tt5_cells()))
def test_TT5_scoring_table(preset, sel, value):
    game = Game(preset=preset)
    assert game.score(faces(sel)) == value
    values = selection_values(game, faces(sel))
    if value is None:
        assert sel not in values
    else:
        assert values[sel] == value


@pytest.mark.parametrize("preset", PRESETS)
def test_TT5_published_examples(preset):
    game = Game(preset=preset)
    assert game.score(faces("3333")) == 600 and game.score(faces("1111")) == 2000
    if preset == "dk":
        assert game.score(faces("33333")) == 900 and game.score(faces("333333")) == 1200
        assert game.score(faces("111111")) == 4000
    else:
        assert game.score(faces("33333")) == 1200 and game.score(faces("333333")) == 2400
        assert game.score(faces("111111")) == 8000


@pytest.mark.parametrize("preset", PRESETS)
def test_TT5_two_triples_score_as_two_triples(preset):
    game = Game(preset=preset)
    assert game.score(faces("222333")) == 500
    assert game.score(faces("111666")) == 1600
    assert selection_values(game, faces("222333"))["222333"] == 500


@pytest.mark.parametrize("preset", PRESETS)
def test_TT5_dice_in_no_combination_cannot_be_set_aside(preset):
    game = Game(preset=preset)
    for sel in ("2", "3", "4", "6", "22", "66", "12", "56", "1234", "12345", "22334"):
        assert game.score(faces(sel)) is None
    values = selection_values(game, faces("123466"))
    assert values == {"1": 100}


@pytest.mark.parametrize("preset", PRESETS)
def test_TT5_at_least_three_of_a_kind_together_more_may_be_set_aside(preset):
    game = Game(preset=preset)
    values = selection_values(game, faces("222234"))
    assert set(values) == {"222", "2222"}
    assert values["2222"] == 2 * 200


def test_TT5_dk_three_pairs_need_three_different_values():
    game = Game(preset="dk")
    assert selection_values(game, faces("446666")) == {"666": 600, "6666": 1200}
    assert game.score(faces("222222")) == 800  # six of a kind, not three pairs
    assert game.score(faces("113355")) == 1500


# -- TT-6 -------------------------------------------------------------------------------------
def test_TT6_roll_122256_has_exactly_seven_selections():
    game = Game(preset="dk")
    expected = {"1": 100, "5": 50, "15": 150, "222": 200, "1222": 300, "2225": 250, "12225": 350}
    assert selection_values(game, faces("122256")) == expected
    state = decision(game, faces("122256"))
    assert {game.action_to_string(state, a) for a in game.legal_actions(state)} == {
        f"keep {sel} roll" for sel in expected
    }  # nothing reaches the opening 1000, so no bank yet


def test_TT6_roll_233346_has_only_333():
    game = Game(preset="dk")
    assert selection_values(game, faces("233346")) == {"333": 300}


def test_TT6_roll_124466_has_only_1():
    game = Game(preset="dk")
    assert selection_values(game, faces("124466")) == {"1": 100}


# -- TT-7 -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "preset, opening, min_bank",
    [("dk", 1000, 300), ("no", 500, 0), ("farkle", 300, 300)],
)
def test_TT7_bank_thresholds(preset, opening, min_bank):
    game = Game(preset=preset)
    roll = faces("122346")  # only "1" (100) scores
    # not yet på listen: the opening threshold
    assert not can_bank(game, decision(game, roll, turn_total=opening - 150), "1")
    assert can_bank(game, decision(game, roll, turn_total=opening - 100), "1")
    assert "first bank needs at least" in game.bank_refusal(decision(game, roll, turn_total=opening - 150), (1,))
    # på listen: the later minimum
    opened = {"opened": (True, False)}
    if min_bank:
        assert not can_bank(game, decision(game, roll, turn_total=min_bank - 150, **opened), "1")
    assert can_bank(game, decision(game, roll, turn_total=max(0, min_bank - 100), **opened), "1")
    # the other player is still held to the opening
    other = decision(game, roll, turn_total=max(0, min_bank - 100), player=1, **opened)
    assert can_bank(game, other, "1") == (min_bank >= opening)


def test_TT7_opening_applies_to_the_first_bank_only():
    game = Game(preset="dk")
    state = decision(game, faces("111234"))
    state = act(game, state, "keep 111 bank")  # 1000 opens player 0
    state = game.apply_chance(state, BUST6)  # player 1 busts
    state = game.apply_chance(state, faces("155234"))  # player 0 again
    assert can_bank(game, state, "155") is False  # 200 < 300
    state = act(game, state, "keep 155 roll")
    state = game.apply_chance(state, (1, 2, 3))
    assert can_bank(game, state, "1")  # 300 after opening


def test_TT7_options_opening_and_min_bank_override():
    game = Game(preset="dk", opening=500, min_bank=0)
    roll = faces("122346")
    assert can_bank(game, decision(game, roll, turn_total=400), "1")
    assert not can_bank(game, decision(game, roll, turn_total=350), "1")
    assert can_bank(game, decision(game, roll, opened=(True, False)), "1")


# -- TT-8 -------------------------------------------------------------------------------------
def bank_1000(game, state):
    """The player to act rolls 111234 and banks the three 1s (1000)."""
    state = game.apply_chance(state, faces("111234"))
    return act(game, state, "keep 111 bank")


def bust(game, state):
    return game.apply_chance(state, BUST6)


def near_target(game, player=0):
    return game.initial_state()._replace(totals=(9000, 9200, 8600), opened=(True,) * 3, player=player)


def test_TT8_dk_finish_round_the_rest_of_the_round_plays():
    game = Game(num_players=3, preset="dk")
    state = bank_1000(game, near_target(game, player=1))  # player 1 reaches 10200
    assert not game.is_terminal(state)
    assert game.current_player(state) == 2 and state.turns_left == 1
    state = bank_1000(game, state)  # player 2 plays: 9600
    assert game.is_terminal(state)  # player 0 began the round and had as many turns
    assert state.winners == (1,)
    assert game.returns(state) == (-0.5, 1.0, -0.5)


def test_TT8_dk_finish_round_a_later_player_can_overtake():
    game = Game(num_players=3, preset="dk")
    state = near_target(game, player=0)._replace(totals=(9000, 9900, 8600))
    state = bank_1000(game, state)  # player 0: 10000
    assert state.turns_left == 2
    state = bank_1000(game, state)  # player 1: 10900
    assert not game.is_terminal(state) and game.current_player(state) == 2
    state = bust(game, state)
    assert state.winners == (1,)


def test_TT8_dk_finish_round_last_seat_ends_the_game_at_once():
    game = Game(num_players=3, preset="dk")
    state = near_target(game, player=2)._replace(totals=(9000, 9200, 9600))
    state = bank_1000(game, state)
    assert game.is_terminal(state) and state.winners == (2,)


def test_TT8_finish_round_runs_from_the_first_starter():
    game = Game(num_players=3, preset="dk", first_starter=1)
    assert game.current_player(game.initial_state()) == 1  # C-4
    state = bank_1000(game, near_target(game, player=2)._replace(totals=(0, 0, 9000)))  # the round's 2nd player
    assert state.turns_left == 1 and game.current_player(state) == 0
    state = bust(game, state)
    assert game.is_terminal(state) and state.winners == (2,)


@pytest.mark.parametrize("preset", ["no", "farkle"])
def test_TT8_last_turn_each_every_other_player_gets_one_turn(preset):
    game = Game(num_players=3, preset=preset)
    state = bank_1000(game, near_target(game, player=1))  # player 1: 10200
    assert state.turns_left == 2 and game.current_player(state) == 2
    state = bank_1000(game, state)  # player 2: 9600
    assert not game.is_terminal(state) and game.current_player(state) == 0
    state = bank_1000(game, state)  # player 0: 10000
    assert game.is_terminal(state)  # player 1 does not play again
    assert state.winners == (1,)


def test_TT8_last_turn_each_reaching_the_target_again_gives_no_more_turns():
    game = Game(num_players=3, preset="no")
    state = near_target(game, player=0)._replace(totals=(9000, 9900, 8600))
    state = bank_1000(game, state)  # player 0: 10000
    state = bank_1000(game, state)  # player 1: 10900
    assert state.turns_left == 1 and game.current_player(state) == 2
    state = bust(game, state)
    assert game.is_terminal(state) and state.winners == (1,)


def test_TT8_immediate_first_to_reach_the_target_wins_at_once():
    game = Game(num_players=3, preset="dk", end="immediate")
    state = bank_1000(game, near_target(game, player=1)._replace(totals=(9000, 9000, 9900)))
    assert game.is_terminal(state)
    assert state.winners == (1,)  # even level with player 2's 9900 + nothing
    assert game.returns(state) == (-0.5, 1.0, -0.5)


def test_TT8_players_level_on_the_highest_total_share_the_win():
    game = Game(num_players=3, preset="no")
    state = near_target(game, player=1)._replace(totals=(9000, 9000, 9000))
    state = bank_1000(game, state)  # 10000
    state = bank_1000(game, state)  # 10000
    state = bust(game, state)
    assert game.is_terminal(state) and state.winners == (1, 2)
    assert game.returns(state) == (-1.0, 0.5, 0.5)


def test_TT8_bust_in_the_end_phase_counts_as_the_turn():
    game = Game(num_players=3, preset="farkle")
    state = bank_1000(game, near_target(game, player=0))
    state = bust(game, state)
    state = bust(game, state)
    assert game.is_terminal(state) and state.winners == (0,)


# -- TT-9 -------------------------------------------------------------------------------------
def test_TT9a_target_option():
    """TT-9a: the target is an option."""
    game = Game(num_players=2, preset="dk", target=5000, end="immediate")
    state = bank_1000(game, game.initial_state()._replace(totals=(4000, 0), opened=(True, False)))
    assert game.is_terminal(state) and state.winners == (0,)
    assert Game(target=20_000).target == 20_000


@pytest.mark.parametrize("target", [0, -50, 125, 10_001, "10000", None])
def test_TT9a_target_must_be_a_positive_multiple_of_50(target):
    """TT-9a: any positive multiple of 50 (up to the engine's cap); anything else is refused."""
    with pytest.raises(ValueError, match="target"):
        Game(target=target)


def test_TT9b_over_threshold_bank_only_to_reach_the_target():
    game = Game(preset="dk", over_threshold=True)
    roll = faces("111234")
    at_9000 = {"totals": (9000, 0), "opened": (True, False)}
    assert can_bank(game, decision(game, roll, turn_total=0, **at_9000), "111")  # 10000 reaches
    assert not can_bank(game, decision(game, faces("155234"), turn_total=500, **at_9000), "155")  # 9700
    assert "9000 or more" in game.bank_refusal(decision(game, faces("155234"), turn_total=500, **at_9000), (1, 5, 5))
    below = {"totals": (8950, 0), "opened": (True, False)}
    assert can_bank(game, decision(game, faces("155234"), turn_total=500, **below), "155")
    plain = Game(preset="dk")
    assert can_bank(plain, decision(plain, faces("155234"), turn_total=500, **at_9000), "155")


def test_TT9b_reaching_the_target_replaces_the_minimum_bank():
    game = Game(preset="dk", over_threshold=True)
    at_9900 = {"totals": (9900, 0), "opened": (True, False)}
    assert can_bank(game, decision(game, faces("122346"), turn_total=0, **at_9900), "1")  # 100 reaches
    plain = Game(preset="dk")
    assert not can_bank(plain, decision(plain, faces("122346"), turn_total=0, **at_9900), "1")  # < 300


def test_TT9c_confirm_combinations_needs_a_later_single_1_or_5():
    game = Game(preset="no", confirm_combinations=True)
    state = decision(game, faces("222346"), turn_total=400)
    assert not can_bank(game, state, "222")  # 600 would open, but 222 is unconfirmed
    assert "confirmed" in game.bank_refusal(state, (2, 2, 2))
    state = act(game, state, "keep 222 roll")
    assert state.pending
    state = game.apply_chance(state, (1, 4, 6))
    assert can_bank(game, state, "1")  # the later single 1 confirms
    state = act(game, state, "keep 1 roll")
    assert not state.pending
    state = game.apply_chance(state, (2, 5))
    assert can_bank(game, state, "5")
    plain = Game(preset="no")
    assert can_bank(plain, decision(plain, faces("222346"), turn_total=400), "222")


def test_TT9c_a_single_in_the_same_selection_does_not_confirm():
    game = Game(preset="no", confirm_combinations=True)
    state = decision(game, faces("122256"), turn_total=400)
    legal = legal_strings(game, state)
    assert "keep 1222 bank" not in legal and "keep 12225 bank" not in legal
    assert "keep 15 bank" in legal  # singles only: nothing to confirm
    state = act(game, state, "keep 1222 roll")
    assert state.pending
    state = game.apply_chance(state, (1, 3))
    state = act(game, state, "keep 1 roll")
    assert not state.pending


def test_TT9c_a_new_combination_needs_its_own_confirmation():
    game = Game(preset="no", confirm_combinations=True)
    state = decision(game, faces("222346"), turn_total=400)
    state = act(game, state, "keep 222 roll")
    state = game.apply_chance(state, (3, 3, 3))  # hot dice, a new combination
    assert not can_bank(game, state, "333")
    state = act(game, state, "keep 333 roll")
    state = game.apply_chance(state, faces("155555"))
    assert not can_bank(game, state, "155555")  # 1 and five 5s together: no confirmation
    assert can_bank(game, state, "1") and can_bank(game, state, "15")


def test_TT9d_exact_target_a_bank_past_the_target_scores_nothing():
    game = Game(num_players=3, preset="no", exact_target=True)
    state = near_target(game, player=0)._replace(totals=(9500, 9200, 8600), busts=(2, 0, 0))
    after = bank_1000(game, state)  # 10500: too much
    assert game.scores(after) == (9500, 9200, 8600)
    assert after.busts == (0, 0, 0)  # not a bust
    assert game.current_player(after) == 1 and after.turns_left is None
    state = game.apply_chance(state, faces("155234"))
    state = act(game, state, "keep 155 roll")
    state = game.apply_chance(state, (1, 5, 5))
    state = act(game, state, "keep 155 bank")  # 9500 + 400: allowed, no min_bank in "no"
    assert game.scores(state)[0] == 9900
    state = game.initial_state()._replace(totals=(9500, 0, 0), opened=(True, False, False))
    state = game.apply_chance(state, faces("555234"))
    state = act(game, state, "keep 555 bank")  # exactly 10000
    assert game.scores(state)[0] == 10_000 and state.turns_left == 2


def test_TT9d_overshooting_bank_does_not_open_the_player():
    game = Game(preset="dk", exact_target=True, target=500, opening=500)
    state = decision(game, faces("111234"))
    state = act(game, state, "keep 111 bank")
    assert game.scores(state) == (0, 0) and state.opened == (False, False)


def test_TT9d_the_exact_bank_is_freed_from_the_thresholds_not_from_hot_dice_or_confirmation():
    """The engine's reading of "always allowed": min_bank, TT-9b and the opening do not apply to
    a bank that hits the target exactly; TT-4's hot dice and TT-9c's confirmation still do (the
    game can end all the same: the turn goes on, and a later 1 or 5 may bank)."""
    game = Game(preset="dk", exact_target=True)
    state = decision(game, faces("123456"), totals=(9000, 0), opened=(True, False))
    assert not any(s.endswith("bank") for s in legal_strings(game, state))  # straight 1000: hot dice
    assert game.bank_refusal(state, faces("123456")) == "all six dice are set aside: hot dice must be rolled again (TT-4)"
    state = decision(game, faces("522346"), totals=(9950, 0), opened=(True, False))
    assert can_bank(game, state, "5")  # 50 points: under min_bank 300, but exactly 10 000
    game = Game(preset="no", exact_target=True, confirm_combinations=True)
    state = decision(game, faces("222346"), totals=(9800, 0), opened=(True, False))
    assert not can_bank(game, state, "222")  # exactly 10 000, but the 222 is not confirmed
    assert "TT-9c" in game.bank_refusal(state, faces("222"))


def test_TT9e_bust_penalty_after_three_busts_in_a_row():
    game = Game(num_players=2, preset="farkle")
    state = game.initial_state()._replace(totals=(300, 0), opened=(True, False))
    for _ in range(2):
        state = bust(game, bust(game, state))
    assert state.busts == (2, 2) and game.scores(state) == (300, 0)
    state = bust(game, state)
    assert game.scores(state) == (-200, 0) and state.busts == (0, 2)  # below zero; count restarts
    state = bank_1000(game, state)  # a bank ends player 1's run
    assert state.busts == (0, 0)
    for _ in range(3):
        state = bust(game, bust(game, state))
    assert game.scores(state) == (-700, 500)


def test_TT9e_no_penalty_by_default_in_dk_and_no_options_override():
    for preset in ("dk", "no"):
        game = Game(preset=preset)
        state = game.initial_state()
        for _ in range(6):
            state = bust(game, state)
        assert game.scores(state) == (0, 0)
    game = Game(preset="no", bust_penalty=1000, bust_penalty_after=2)
    state = bust(game, bust(game, bust(game, game.initial_state())))
    assert game.scores(state) == (-1000, 0) and state.busts == (0, 1)


@pytest.mark.parametrize("bad", [{"bust_penalty": -1}, {"bust_penalty_after": 0}, {"opening": -50}, {"min_bank": 1.5}])
def test_TT9e_TT7_bad_numbers_name_the_option(bad):
    (name,) = bad
    with pytest.raises(ValueError, match=name):
        Game(**bad)


def test_TT9f_scoring_options_override_single_entries():
    """TT-9f: each scoring option overrides its own entry of the preset's TT-5 table."""
    assert Game(preset="no", straight=2500).score(faces("123456")) == 2500
    assert Game(preset="no", three_pairs=750).score(faces("224466")) == 750
    assert Game(preset="dk", n_of_a_kind="doubling").score(faces("33333")) == 1200
    assert Game(preset="no", n_of_a_kind="linear").score(faces("33333")) == 900
    dk_pairs = Game(preset="dk", four_and_pair_is_three_pairs=True)
    assert dk_pairs.score(faces("446666")) == 1500
    assert Game(preset="no", four_and_pair_is_three_pairs=False).score(faces("446666")) is None
    # the rest of the preset's table stays
    assert Game(preset="no", straight=2500).score(faces("224466")) == 1500


def test_TT9f_six_alike_as_three_pairs_takes_the_better_value():
    """TT-9f with four_and_pair_is_three_pairs: six of a kind may score as three pairs (interpretation)."""
    game = Game(preset="dk", four_and_pair_is_three_pairs=True)
    assert game.score(faces("222222")) == 1500  # three pairs beats 800 for six 2s (linear)
    assert game.score(faces("111111")) == 4000


@pytest.mark.parametrize(
    "option, value",
    [("end", "sudden"), ("n_of_a_kind", "triple"), ("straight", 0), ("three_pairs", 1234), ("exact_target", 1),
     ("confirm_combinations", "yes"), ("over_threshold", None), ("four_and_pair_is_three_pairs", 0),
     ("hot_dice_must_roll", "no"), ("first_starter", 2)],
)
def test_TT9_bad_option_values_name_the_option(option, value):
    with pytest.raises(ValueError, match=option):
        Game(num_players=2, **{option: value})


# -- TT-10 ------------------------------------------------------------------------------------
def test_TT10_unknown_preset_names_the_allowed_presets():
    with pytest.raises(ValueError, match=r"preset.*'dk', 'no', 'farkle'"):
        Game(preset="se")


def test_TT10_unknown_option_names_it_and_the_options():
    with pytest.raises(ValueError, match="'opening_bid'.*opening"):
        Game(opening_bid=500)


@pytest.mark.parametrize("preset", PRESETS)
def test_TT10_preset_tables_hold_every_option(preset):
    game = Game(preset=preset)
    assert game.options == tt.PRESETS[preset]
    overridden = Game(preset=preset, target=5000, end="immediate")
    assert overridden.options == {**tt.PRESETS[preset], "target": 5000, "end": "immediate"}


# -- TT-11 ------------------------------------------------------------------------------------
def test_TT11_action_strings_round_trip():
    game = Game(preset="no")
    state = decision(game, faces("122256"), turn_total=400)
    for action in game.legal_actions(state):
        text = game.action_to_string(state, action)
        assert text.startswith("keep ") and text.split()[2] in ("roll", "bank")
        assert game.string_to_action(state, text) == action
        assert game.string_to_action(state, "  " + text.upper() + " ") == action
    assert game.string_to_action(state, "keep 1222 roll") == tt.encode_action((1, 2, 2, 2), False)
    assert game.string_to_action(state, "keep 15 bank") == tt.encode_action((5, 1), True)
    with pytest.raises(ValueError, match="not a legal action"):
        game.string_to_action(state, "keep 51 bank")  # faces must be ascending


def test_TT11_action_ids_are_stable_and_documented():
    assert tt.NUM_ACTIONS == 308 and len(tt.SELECTIONS) == 154
    assert [tt.ACTION_STRINGS[i] for i in (0, 1, 2, 3, 6, 7, 16, 32, 306, 307)] == [
        "keep 1 roll", "keep 1 bank", "keep 5 roll", "keep 5 bank", "keep 15 roll", "keep 15 bank",
        "keep 222 roll", "keep 1222 roll", "keep 666666 roll", "keep 666666 bank",
    ]
    for action in range(tt.NUM_ACTIONS):
        sel, bank = tt.decode_action(action)
        assert tt.encode_action(sel, bank) == action
    assert len(set(tt.ACTION_STRINGS)) == tt.NUM_ACTIONS
    with pytest.raises(ValueError, match="action id"):
        tt.decode_action(308)
    with pytest.raises(ValueError, match="never score"):
        tt.encode_action((2, 2), False)


# -- engine contract ------------------------------------------------------------------------------
def test_engine_contract_chance_and_terminal_states_have_no_actions():
    game = Game()
    state = game.initial_state()
    assert game.is_chance(state) and game.legal_actions(state) == []
    with pytest.raises(ValueError, match="chance"):
        game.apply_action(state, 0)
    with pytest.raises(ValueError, match="apply_chance"):
        game.apply_chance(decision(game, faces("111234")), faces("123456"))
    with pytest.raises(ValueError, match="expected 6 dice"):
        game.apply_chance(state, (1, 2, 3))
    over = game.initial_state()._replace(winners=(0,), to_roll=0)
    assert game.legal_actions(over) == []
    with pytest.raises(ValueError, match="over"):
        game.apply_action(over, 0)


def test_engine_contract_apply_chance_takes_any_order():
    game = Game()
    assert game.apply_chance(game.initial_state(), [6, 1, 2, 2, 5, 2]) == decision(game, faces("122256"))
    numpy_dice = tuple(np.array([1, 2, 2, 2, 5, 6]))  # a sorted tuple seen before, of numpy ints
    state = game.apply_chance(game.initial_state(), numpy_dice)
    assert state.roll == faces("122256") and all(type(d) is int for d in state.roll)


@pytest.mark.parametrize("bad", [-1, 308, 1.5, "0", None, True])
def test_engine_contract_bad_action_ids_raise_naming_them(bad):
    game = Game()
    state = decision(game, faces("122256"))
    with pytest.raises(ValueError, match="illegal action|an action must be") as error:
        game.apply_action(state, bad)
    assert repr(bad) in str(error.value)


def test_engine_contract_a_state_from_elsewhere_accepts_its_legal_actions():
    # The engine caches per roll; a state it never produced (unpickled, built by hand, or from
    # another Game) must still take its legal actions.
    import pickle

    maker = Game(preset="dk")
    state = maker.apply_chance(maker.initial_state(), (1, 2, 2, 2, 5, 6))
    action = maker.string_to_action(state, "keep 1222 roll")
    fresh = Game(preset="dk", straight=1100)  # other scoring numbers: caches of its own
    after = fresh.apply_action(pickle.loads(pickle.dumps(state)), action)
    assert after.turn_total == 300 and fresh.num_dice_to_roll(after) == 2
