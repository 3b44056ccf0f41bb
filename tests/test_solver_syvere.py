"""The Syvere one-turn solver (issue 8, item 2): exact values against independent computations,
its agent against simulation, and the agent against the heuristic (SY-3..SY-6)."""

from fractions import Fraction
from functools import lru_cache
from itertools import product

import numpy as np
import pytest

from agents.base import one_hot
from agents.solvers import syvere as sy
from dice_envs.games import syvere
from evaluate.match import play_match
from evaluate.stats import wilson


# -- a second formulation, written here from the rules: ordered dice, own pair removal ---------
def remaining_after(dice):
    """SY-3, restated: remove disjoint pairs summing to 7, as many as the roll holds."""
    left = list(dice)
    for low in (1, 2, 3):
        while low in left and 7 - low in left:
            left.remove(low)
            left.remove(7 - low)
    return tuple(sorted(left))


@lru_cache(maxsize=None)
def ordered_roll_value(k, rolls_left):
    """Expected final score over the 6**k equally likely ordered rolls, stopping optimally."""
    total = Fraction(0)
    for dice in product(range(1, 7), repeat=k):
        left = remaining_after(dice)
        score = Fraction(sum(left))
        if left and rolls_left > 1:
            score = min(score, ordered_roll_value(len(left), rolls_left - 1))
        total += score
    return total / 6**k


@pytest.mark.parametrize("k", range(1, 7))
def test_roll_values_match_the_ordered_outcome_formulation(k):
    # SY-4/SY-5: every (dice, rolls left) value of the DP equals the second formulation exactly.
    for r in (1, 2, 3):
        assert sy.roll_value(k, r) == ordered_roll_value(k, r)


def test_turn_values_are_exact_fractions_and_decrease_with_the_limit():
    solution = sy.solve(3)
    values = [solution.turn_values[L] for L in (1, 2, 3)]
    assert all(isinstance(v, Fraction) for v in values)
    # One roll: the expected sum of what six dice leave, by direct enumeration.
    one_roll = sum((Fraction(sum(remaining_after(d))) for d in product(range(1, 7), repeat=6)), Fraction(0)) / 6**6
    assert values[0] == one_roll == Fraction(1631, 144)
    assert values[0] > values[1] > values[2]


def _policy_value(policy, states_by_roll, limit):
    """Expected score of one die rolled with ``limit`` rolls, stopping where ``policy`` says."""

    def value(roll_number):
        total = Fraction(0)
        for face in range(1, 7):
            if roll_number == limit or policy[(roll_number, face)]:
                total += Fraction(face)
            else:
                total += value(roll_number + 1)
        return total / 6

    return value(1)


@pytest.mark.parametrize("limit", [2, 3])
def test_one_die_value_is_the_best_over_every_policy(limit):
    # Brute force: a policy says stop/roll for each (roll number, face) before the limit; with one
    # die no pair can form, so these are all the decision states. 2**6 or 2**12 policies.
    states = [(n, f) for n in range(1, limit) for f in range(1, 7)]
    best = min(
        _policy_value(dict(zip(states, choice)), states, limit) for choice in product((True, False), repeat=len(states))
    )
    assert sy.roll_value(1, limit) == best


def test_stop_thresholds_agree_with_should_stop():
    solution = sy.solve(3)
    for k in range(1, 7):
        for r in (1, 2):
            t = solution.stop_threshold(k, r)
            assert sy.should_stop(k, t, r) and not sy.should_stop(k, t + 1, r)


def test_starter_tradeoff_probabilities_and_scores_add_up():
    for weight in (None, 1):
        rows = sy.starter_tradeoff(3, weight)
        assert sum(r.probability for r in rows) == 1
        plan = sy.planned_limits(3, weight)[-1]
        assert plan.limit_distribution == tuple(r.probability for r in rows)
        assert plan.starter_score == sum(r.probability * r.starter_score for r in rows)
    # The plain policy's own expected score is the turn value; the margin policy gives some of it
    # up for a larger margin over the others.
    plain, margin = sy.planned_limits(3)[-1], sy.planned_limits(3, weight=1)[-1]
    assert plain.starter_score == sy.roll_value(6, 3)
    assert margin.starter_score > plain.starter_score
    assert margin.others_score - margin.starter_score > plain.others_score - plain.starter_score
    # weight 0 is the plain problem: the margin cost is then the score itself.
    assert sy.starter_roll_value(6, 0, 3, Fraction(0)) == sy.roll_value(6, 3)


def test_solution_table_round_trips_through_the_cache(tmp_path):
    first = sy.solve(3, cache_dir=tmp_path, use_cache=True)
    assert len(list(tmp_path.glob("syvere-turn-*.npz"))) == 1
    again = sy.solve(3, cache_dir=tmp_path, use_cache=True)
    assert again.roll_values == first.roll_values and again.turn_values[3] == sy.roll_value(6, 3)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3"])
def test_bad_arguments_are_value_errors(bad):
    with pytest.raises(ValueError):
        sy.solve(bad)
    with pytest.raises(ValueError):
        sy.roll_value(bad if bad != 0 else 7, 1)


# -- the agent ---------------------------------------------------------------------------------
def _play_round(game, agents, rng):
    """One round of a two-player game from its start: each seat's points and the starter's rolls."""
    state = game.initial_state()
    starter_rolls = None
    while state.round == 1 and state.winners is None:
        if game.is_chance(state):
            state = game.apply_chance(state, rng.integers(1, 7, size=game.num_dice_to_roll(state)))
        else:
            seat = game.current_player(state)
            mask = np.zeros(game.num_actions, dtype=np.int8)
            mask[game.legal_actions(state)] = 1
            state = game.apply_action(state, agents[seat].act(game.observe(state, seat), mask))
        if state.round == 1 and state.turn == 1:  # the starter's turn is over: SY-6's limit is set
            starter_rolls = state.starter_rolls
    return state.totals, starter_rolls


def _within(samples, expected, sigmas=4):
    x = np.asarray(samples, dtype=float)
    se = x.std(ddof=1) / np.sqrt(len(x))
    assert abs(x.mean() - float(expected)) <= sigmas * se, (x.mean(), float(expected), se)


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_agent_scores_the_turn_value_in_simulation(limit):
    # A plain (weight 0) starter under limit L scores roll_value(6, L) on average; the other
    # player, held to the starter's rolls, scores the others' expected score.
    game = syvere.Game(num_players=2, max_rolls=limit, elimination=1000)
    agents = [sy.OptimalAgent(game, starter_weight=0), sy.OptimalAgent(game, starter_weight=0)]
    rng = np.random.default_rng(limit)
    starter, other = [], []
    for _ in range(3000):
        totals, _ = _play_round(game, agents, rng)
        starter.append(totals[0])
        other.append(totals[1])
    plan = sy.planned_limits(limit)[-1]
    _within(starter, plan.starter_score)
    _within(other, plan.others_score)


def test_margin_starter_in_simulation():
    game = syvere.Game(num_players=2, elimination=1000)
    agents = [sy.OptimalAgent(game), sy.OptimalAgent(game)]
    rng = np.random.default_rng(7)
    starter, other, rolls = [], [], []
    for _ in range(3000):
        totals, starter_rolls = _play_round(game, agents, rng)
        starter.append(totals[0])
        other.append(totals[1])
        rolls.append(starter_rolls)
    plan = sy.planned_limits(3, weight=1)[-1]
    _within(starter, plan.starter_score)
    _within(other, plan.others_score)
    for j, p in enumerate(plan.limit_distribution, start=1):
        _within([r == j for r in rolls], p)


def test_agent_policy_is_one_hot_and_follows_the_thresholds():
    game = syvere.Game(num_players=3)
    agent = sy.OptimalAgent(game, starter_weight=0)
    state = game.apply_chance(game.initial_state(), (1, 1, 2, 2, 3, 3))  # nothing pairs: sum 12
    mask = np.array([1, 1], dtype=np.int8)
    probs = agent.action_probabilities(game.observe(state, 0), mask)
    assert probs.dtype == np.float64 and probs.sum() == 1
    assert np.array_equal(probs, one_hot(2, syvere.ROLL))  # 12 > what six dice with two rolls are worth
    state = game.apply_chance(game.initial_state(), (1, 2, 3, 4, 5, 5))  # 2+5, 3+4 set aside
    assert state.remaining == (1, 5) and not sy.should_stop(2, 6, 2)  # two dice, two rolls: 4.35
    assert agent.act(game.observe(state, 0), mask) == syvere.ROLL
    state = game.apply_chance(game.initial_state(), (1, 1, 1, 1, 1, 6))  # 1+6 set aside: four 1s, sum 4
    assert agent.act(game.observe(state, 0), mask) == syvere.STOP
    with pytest.raises(ValueError):
        sy.OptimalAgent(game, starter_weight=-1)
    with pytest.raises(ValueError):
        agent.act(game.observe(state, 0), np.array([0, 0], dtype=np.int8))


def test_optimal_agent_beats_the_heuristic_head_to_head():
    result = play_match("syvere", ["optimal", "heuristic"], num_games=1500, seed=11)
    rec = result.records[0]
    rate, low, _ = wilson(rec.share_sum, rec.games)
    assert rec.games == 1500 and low > 0.5, result.table()


def heuristic_turn_value(limit: int) -> Fraction:
    """The heuristic's exact expected turn score under roll limit ``limit``, from the engine.

    Every roll's outcomes come from ``chance_outcomes``, every decision from the agent's own ``act``
    on the engine's observation; the agent plays the starter's turn of a game whose limit is
    ``limit``, with no starter margin, which is exactly how it plays any other turn at that limit.
    """
    from agents.syvere import SyvereHeuristic

    game = syvere.Game(num_players=2, max_rolls=limit)
    agent = SyvereHeuristic(game, starter_margin=0)
    mask = np.array([1, 1], dtype=np.int8)
    memo = {}

    def value(state):
        if state.turn != 0 or game.is_terminal(state):  # the turn is over: what it added
            return Fraction(state.totals[0])
        if game.is_chance(state):
            key = (state.rolls, state.to_roll)
            if key not in memo:
                memo[key] = sum(Fraction(p) * value(game.apply_chance(state, roll))
                                for roll, p in game.chance_outcomes(state))
            return memo[key]
        return value(game.apply_action(state, agent.act(game.observe(state, 0), mask)))

    return value(game.initial_state())


def test_the_heuristic_plays_each_turn_nearly_as_well_as_the_optimum():
    """Why a learner finds little to win against it (docs/training.md): 0.06 points a turn at most."""
    assert heuristic_turn_value(1) == sy.roll_value(6, 1)  # one roll: no decision
    for limit, points in ((2, 7.25), (3, 5.20)):
        h, best = heuristic_turn_value(limit), sy.roll_value(6, limit)
        assert best < h < best + Fraction(6, 100) and round(float(h), 2) == points


def test_five_rolls_and_more_solve_and_reload_exactly(tmp_path):
    """From 5 rolls the exact values' numerators and denominators outgrow 64-bit integers: the table
    keeps them as decimal digits (solve syvere --max-rolls 5 stopped with 'a value is too large')."""
    from fractions import Fraction

    from agents.solvers import syvere as sy

    built = sy.solve(6, cache_dir=tmp_path, use_cache=True)
    assert max(v.denominator for v in built.roll_values.values()) > 2**63
    loaded = sy.solve(6, cache_dir=tmp_path, use_cache=True)
    assert loaded.roll_values == built.roll_values and all(isinstance(v, Fraction) for v in loaded.roll_values.values())
    # a table written as 64-bit integers (before) still reads
    old = {k: (v.astype(np.int64) if k in ("numerator", "denominator") else v) for k, v in sy.solve(3).table().items()}
    assert sy.Solution.from_table(old).roll_values == sy.solve(3).roll_values
