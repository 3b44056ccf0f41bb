"""Rules of Meyer (RULES.md ME-1..ME-10) on the pure engine, every die scripted."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dice_envs.games import meyer
from dice_envs.games.meyer import BELIEVE, DOUBT, REROLL, Game

# ME-2 as RULES.md writes it, best first.
ME2_WITH_LILLE = "21 31 66 55 44 33 22 11 65 64 63 62 61 54 53 52 51 43 42 41 32".split()
ME2_WITHOUT_LILLE = [v for v in ME2_WITH_LILLE if v != "31"] + ["31"]


def dice(value: str) -> tuple[int, int]:
    """``"54"`` -> the dice (4, 5), given in the order a person would write them."""
    return (int(value[0]), int(value[1]))


def run(game: Game, *events, state=None):
    """Apply events in order: a tuple of dice is a roll, a string an action string."""
    state = game.initial_state() if state is None else state
    for event in events:
        if isinstance(event, tuple):
            assert game.is_chance(state), f"expected a roll before {event}"
            state = game.apply_chance(state, event)
        else:
            state = game.apply_action(state, game.string_to_action(state, event))
    return state


def claim(value: str) -> str:
    return f"claim {value}"


def actions(game: Game, state) -> list[str]:
    return [game.action_to_string(state, a) for a in game.legal_actions(state)]


# -- ME-1, ME-2 --------------------------------------------------------------------------------
def test_ME1_players_start_with_the_same_lives():
    for n in range(2, 9):
        g = Game(num_players=n, lives=4)
        assert g.scores(g.initial_state()) == (4,) * n


@pytest.mark.parametrize("lille_meyer, expected", [(True, ME2_WITH_LILLE), (False, ME2_WITHOUT_LILLE)])
def test_ME2_ranking_is_the_rule_book_order(lille_meyer, expected):
    g = Game(lille_meyer=lille_meyer)
    assert [meyer.CLAIM_NAMES[c] for c in g.ranking] == expected
    assert g.ranking_string() == " > ".join(expected)


@pytest.mark.parametrize(
    "lille_meyer, better, worse",
    [(True, a, b) for a, b in zip(ME2_WITH_LILLE, ME2_WITH_LILLE[1:])]
    + [(False, a, b) for a, b in zip(ME2_WITHOUT_LILLE, ME2_WITHOUT_LILLE[1:])],
)
def test_ME2_adjacent_pair_by_playing_out_a_doubt(lille_meyer, better, worse):
    g = Game(lille_meyer=lille_meyer)
    # Claiming the better value with the worse dice is a lie: the claimer (seat 0) loses.
    s = run(g, dice(worse), claim(better), "doubt")
    assert s.last_doubt.loser == 0 and g.scores(s) == (5, 6)
    # Claiming the worse value with the better dice is true (an under-claim): the doubter loses.
    s = run(g, dice(better), claim(worse), "doubt")
    assert s.last_doubt.loser == 1 and g.scores(s) == (6, 5)
    # The exact value is true.
    s = run(g, dice(worse), claim(worse), "doubt")
    assert s.last_doubt.loser == 1


def test_ME2_a_roll_is_named_by_its_higher_die_first():
    g = Game()
    s = run(g, (4, 5))
    assert g.render_for(s, 0).count("(54)") == 1
    assert meyer.claim_index("45") == meyer.claim_index("54") == meyer.ACTION_STRINGS.index("claim 54") - 3


def test_ME2_chance_outcomes_and_exact_odds():
    g = Game()
    outcomes = g.chance_outcomes(g.initial_state())
    assert len(outcomes) == 21 and sum(p for _, p in outcomes) == 1
    for lille in (True, False):
        g = Game(lille_meyer=lille)
        for c in range(21):
            ways = sum(g.is_true((a, b), c) for a, b in product(range(1, 7), repeat=2))
            assert g.probability_at_least[c] == Fraction(ways, 36)
    assert Game().probability_at_least[meyer.MEYER] == Fraction(1, 18)
    assert Game(lille_meyer=False).probability_at_least[meyer.LILLE_MEYER] == 1


# -- ME-3, ME-4 --------------------------------------------------------------------------------
def test_ME3_the_starter_rolls_hidden_and_may_claim_anything():
    g = Game(num_players=3, blind_reroll=True)
    s = g.initial_state()
    assert g.is_chance(s) and g.num_dice_to_roll(s) == 2 and g.chance_seen_by(s) == (0,)
    s = g.apply_chance(s, (1, 1))
    assert g.current_player(s) == 0
    assert actions(g, s) == [claim(v) for v in ME2_WITH_LILLE]  # no doubt, no reroll
    assert s.cup == (1, 1) and s.seen_by == 0


def test_ME4_believe_rolls_again_seen_only_by_the_believer():
    g = Game(num_players=3)
    s = run(g, (3, 2), claim("43"))
    assert g.current_player(s) == 1 and actions(g, s) == ["doubt", "believe"]
    s = run(g, "believe", state=s)
    assert g.is_chance(s) and g.chance_seen_by(s) == (1,) and s.cup == ()  # old dice never shown
    s = g.apply_chance(s, (6, 6))
    assert s.seen_by == 1 and s.claim == meyer.claim_index("43")


@pytest.mark.parametrize("rule", ["at_least", "higher"])
def test_ME4_at_least_against_higher(rule):
    g = Game(claim_rule=rule)
    s = run(g, (5, 4), claim("54"), "believe", (1, 1))
    legal = [a.split()[1] for a in actions(g, s)]
    beaten = ME2_WITH_LILLE[: ME2_WITH_LILLE.index("54") + (rule == "at_least")]
    assert legal == beaten
    if rule == "higher":
        with pytest.raises(ValueError, match="illegal action 16"):
            g.apply_action(s, meyer.FIRST_CLAIM + meyer.claim_index("54"))
    # A claim of 21: at_least -> believe, then only 21 again; higher -> doubt only.
    s = run(g, (2, 1), claim("21"))
    if rule == "at_least":
        assert actions(g, s) == ["doubt", "believe"]
        assert actions(g, run(g, "believe", (6, 6), state=s)) == ["claim 21"]
    else:
        assert actions(g, s) == ["doubt"]
        with pytest.raises(ValueError, match="illegal action 1"):
            g.apply_action(s, BELIEVE)


def test_ME4_higher_rule_without_lille_meyer():
    g = Game(claim_rule="higher", lille_meyer=False)
    s = run(g, (3, 2), claim("32"), "believe", (1, 3))
    assert "claim 31" not in actions(g, s) and "claim 32" not in actions(g, s)
    assert "claim 41" in actions(g, s)


def test_ME4_the_doubter_starts_the_next_round():
    g = Game(num_players=3)
    for cup, loser in (((6, 5), 0), ((2, 1), 1)):  # a lie of 66 / a true claim (21 >= 66)
        s = run(g, cup, claim("66"), "doubt")
        assert s.last_doubt.loser == loser and s.last_doubt.doubter == 1
        assert g.current_player(s) == 1 and g.is_chance(s) and g.chance_seen_by(s) == (1,)
        assert s.claim == -1 and s.claims == ()  # a new round: nothing to beat
        s = g.apply_chance(s, (3, 2))
        assert actions(g, s)[0] == "claim 21" and len(actions(g, s)) == 21


def test_ME4_when_the_doubter_is_out_the_next_player_clockwise_starts():
    g = Game(num_players=4, lives=1)
    s = run(g, (2, 1), claim("21"), "doubt")  # seat 1 doubts a true 21 and is out
    assert g.scores(s) == (1, 0, 1, 1) and g.current_player(s) == 2
    # Seat 3 doubts seat 2's true claim and goes out too: the next in after seat 3 is seat 0.
    s = run(g, (6, 6), claim("66"), "doubt", state=s)
    assert g.scores(s) == (1, 0, 1, 0) and g.current_player(s) == 0
    # Players out are skipped: seat 0's claim is answered by seat 2.
    s = run(g, (4, 1), claim("41"), state=s)
    assert g.current_player(s) == 2


def test_ME4_players_out_are_skipped():
    g = Game(num_players=3, lives=1)
    s = run(g, (2, 1), claim("21"), "doubt")  # seat 1 out
    s = run(g, (3, 2), claim("22"), "doubt", state=s)  # seat 2 claims, seat 0 answers
    assert g.is_terminal(s) and s.winners == (0,)


# -- ME-5 --------------------------------------------------------------------------------------
def test_ME5_reroll_only_with_the_option_and_only_for_a_believer():
    s_args = ((5, 4), claim("54"), "believe", (3, 2))
    g = Game()
    assert "reroll" not in actions(g, run(g, *s_args))
    g = Game(blind_reroll=True)
    assert "reroll" not in actions(g, run(g, (5, 4)))  # the round's starter
    s = run(g, *s_args)
    assert actions(g, s)[0] == "reroll"
    s = run(g, "reroll", state=s)
    assert g.is_chance(s) and g.chance_seen_by(s) == ()  # nobody sees the second roll
    s = g.apply_chance(s, (1, 2))
    assert s.seen_by == -1 and s.blind
    assert "reroll" not in actions(g, s)  # once
    assert [a.split()[1] for a in actions(g, s)] == ME2_WITH_LILLE[: ME2_WITH_LILLE.index("54") + 1]


def test_ME5_the_rollers_observation_does_not_change_with_the_dice_under_the_cup():
    g = Game(num_players=3, blind_reroll=True)
    before = run(g, (5, 4), claim("54"), "believe", (3, 2), "reroll")
    reference = g.apply_chance(before, (1, 1))
    reference_claimed = run(g, claim("65"), state=reference)
    for d in meyer.CLAIM_OF_DICE:
        s = g.apply_chance(before, d)
        for p in range(3):
            np.testing.assert_array_equal(g.observe(s, p), g.observe(reference, p))
        # Still unchanged after the blind claim, for everyone including the claimer.
        claimed = run(g, claim("65"), state=s)
        for p in range(3):
            np.testing.assert_array_equal(g.observe(claimed, p), g.observe(reference_claimed, p))
    # The reroll is public: every player sees it was made, and later that the claim was blind.
    s = g.apply_chance(before, (6, 6))
    at = g.obs_slices
    assert all(g.observe(s, p)[at["actor_rerolled"]][0] == 1 for p in range(3))
    s = run(g, claim("65"), state=s)
    assert all(g.observe(s, p)[at["beat_blind"]][0] == 1 for p in range(3))
    assert g.observe(s, 2)[at["history_0_blind"]][0] == 1


def test_ME5_a_blind_claim_is_judged_on_the_unseen_dice():
    g = Game(blind_reroll=True)
    s = run(g, (5, 4), claim("54"), "believe", (3, 2), "reroll", (6, 6), claim("65"), "doubt")
    assert s.last_doubt.loser == 0 and s.last_doubt.claim_blind  # 66 >= 65: true, the doubter loses


# -- ME-6, ME-7 --------------------------------------------------------------------------------
@pytest.mark.parametrize("costs", [1, 2, 3])
def test_ME6_meyer_costs(costs):
    g = Game(meyer_costs=costs)
    s = run(g, (2, 1), claim("21"), "doubt")  # true: the doubter loses
    assert g.scores(s) == (6, 6 - costs) and s.last_doubt.lost == costs
    s = run(g, (6, 5), claim("21"), "doubt")  # a lie: the claimer loses
    assert g.scores(s) == (6 - costs, 6)
    s = run(g, (6, 5), claim("66"), "doubt")  # other claims cost 1
    assert g.scores(s) == (5, 6)
    s = run(g, (2, 1), claim("66"), "doubt")  # dice of 21 under a smaller claim: 1
    assert g.scores(s) == (6, 5)


def test_ME6_lives_never_go_below_zero():
    g = Game(num_players=3, lives=1, meyer_costs=3)
    s = run(g, (2, 1), claim("21"), "doubt")
    assert g.scores(s) == (1, 0, 1) and s.last_doubt.lost == 1


def test_ME7_last_standing():
    g = Game(num_players=3, lives=1)
    s = run(g, (6, 5), claim("66"), "doubt")  # seat 0 lied: out
    assert not g.is_terminal(s) and g.current_player(s) == 1
    assert g.returns(s) == (0.0, 0.0, 0.0)
    s = run(g, (4, 4), claim("33"), "doubt", state=s)  # seat 2 doubts a true claim: out
    assert g.is_terminal(s) and s.winners == (1,)
    assert g.returns(s) == (-0.5, 1.0, -0.5)
    assert g.legal_actions(s) == [] and g.current_player(s) == -1
    with pytest.raises(ValueError, match="game is over"):
        g.apply_action(s, DOUBT)


def test_ME7_first_out():
    g = Game(num_players=3, lives=2, end="first_out")
    s = run(g, (6, 5), claim("66"), "doubt")
    assert not g.is_terminal(s)
    s = run(g, (6, 5), claim("66"), "doubt", state=s)  # seat 1 lies to seat 2
    s = run(g, (6, 5), claim("66"), "doubt", state=s)  # seat 2 lies to seat 0
    assert g.scores(s) == (1, 1, 1) and not g.is_terminal(s)
    s = run(g, (6, 5), claim("66"), "believe", (1, 2), claim("66"), "doubt", state=s)  # seat 1's 21 is true
    assert g.is_terminal(s) and g.scores(s) == (1, 1, 0) and s.winners == (0, 1)
    assert g.returns(s) == (0.5, 0.5, -1.0)


def test_ME7_two_players_end_rules_agree():
    for end in ("last_standing", "first_out"):
        g = Game(lives=1, end=end)
        s = run(g, (6, 5), claim("66"), "doubt")
        assert g.is_terminal(s) and g.returns(s) == (-1.0, 1.0)


# -- ME-8 --------------------------------------------------------------------------------------
OPTION_SETS = [
    {},
    {"num_players": 3, "blind_reroll": True},
    {"num_players": 5, "lives": 2, "claim_rule": "higher", "lille_meyer": False, "history": 3},
    {"num_players": 4, "blind_reroll": True, "meyer_costs": 2, "end": "first_out", "first_starter": 2},
    {"num_players": 8, "lives": 1, "history": 0, "blind_reroll": True},
]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), option_set=st.integers(0, len(OPTION_SETS) - 1))
def test_ME8_no_leak_unseen_dice_never_change_an_observation(seed, option_set):
    g = Game(**OPTION_SETS[option_set])
    rng = np.random.default_rng(seed)
    s = g.initial_state()
    checked_seen = False
    while not g.is_terminal(s):
        if g.is_chance(s):
            s = g.apply_chance(s, tuple(int(x) for x in rng.integers(1, 7, size=2)))
            continue
        for p in range(g.num_players):
            obs = g.observe(s, p)
            assert obs.dtype == np.float32
            assert np.all(obs >= g.observation_low) and np.all(obs <= g.observation_high)
            for other in meyer.CLAIM_OF_DICE:
                changed = g.observe(s._replace(cup=other), p)
                if s.seen_by == p:  # the test can fail: seen dice do show
                    assert np.array_equal(changed, obs) == (other == s.cup)
                    checked_seen = True
                else:
                    np.testing.assert_array_equal(changed, obs)
                assert g.legal_actions(s._replace(cup=other)) == g.legal_actions(s)
        legal = g.legal_actions(s)
        s = g.apply_action(s, legal[rng.integers(len(legal))])
    assert checked_seen


def test_ME8_render_for_hides_the_cup_but_render_shows_it():
    g = Game(num_players=3)
    s = run(g, (4, 5), claim("61"))
    assert "⚄ ⚃ (54)" in g.render(s)
    assert "⚄ ⚃ (54)" in g.render_for(s, 0)
    for seat in (1, 2):
        assert "54" not in g.render_for(s, seat) and "⚄" not in g.render_for(s, seat)
    s = run(g, "doubt", state=s)  # a doubt shows the dice to all
    for seat in range(3):
        assert "(54)" in g.render_for(s, seat)
        assert g.observe(s, seat)[g.obs_slices["doubt_rank"]][0] == g.rank[meyer.claim_index("54")] + 1


# -- ME-9, ME-10 -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, name",
    [
        ({"num_players": 9}, "num_players"),
        ({"num_players": 1}, "num_players"),
        ({"lives": 0}, "lives"),
        ({"lives": 2.5}, "lives"),
        ({"lille_meyer": "yes"}, "lille_meyer"),
        ({"claim_rule": "strict"}, "claim_rule"),
        ({"blind_reroll": 1}, "blind_reroll"),
        ({"meyer_costs": 0}, "meyer_costs"),
        ({"end": "sudden_death"}, "end"),
        ({"first_starter": 2}, "first_starter"),
        ({"history": -1}, "history"),
        ({"history": 65}, "history"),
    ],
)
def test_ME9_bad_options_name_the_option(options, name):
    with pytest.raises(ValueError, match=name):
        Game(**options)


def test_ME9_first_starter():
    g = Game(num_players=4, first_starter=3)
    s = g.initial_state()
    assert g.current_player(s) == 3 and g.chance_seen_by(s) == (3,)


def test_ME10_action_strings():
    g = Game(blind_reroll=True)
    s = g.initial_state()
    assert [g.action_to_string(s, a) for a in range(g.num_actions)] == (
        ["doubt", "believe", "reroll"] + [f"claim {v}" for v in ME2_WITH_LILLE]
    )
    s = run(g, (1, 1), claim("11"), "believe", (2, 2))
    for a in g.legal_actions(s):
        assert g.string_to_action(s, g.action_to_string(s, a)) == a
    with pytest.raises(ValueError, match="unknown meyer action"):
        g.action_to_string(s, 24)
    with pytest.raises(ValueError, match="'doubt' is not a legal action"):
        g.string_to_action(s, "doubt")
    with pytest.raises(ValueError, match="illegal action 0"):
        g.apply_action(s, DOUBT)
    with pytest.raises(ValueError, match="dice must be rolled"):
        g.apply_action(run(g, "reroll", state=s), REROLL)


def test_states_are_immutable_values():
    g = Game()
    s = run(g, (5, 4), claim("54"))
    assert hash(s) == hash(run(g, (4, 5), claim("54")))
    with pytest.raises(AttributeError):
        s.claim = 3
