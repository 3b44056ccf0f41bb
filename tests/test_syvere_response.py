"""The Syvere best-response solver (agents/solvers/syvere_response.py): its turn model against the
one-turn solver, its values against play on the engine, and the bounds it promises."""

import math

import numpy as np
import pytest

from agents.base import DeterministicAgent
from agents.solvers import syvere as sy
from agents.solvers import syvere_response as sr
from dice_envs.games import syvere
from evaluate.match import play_match

pytest.importorskip("numba")

E = 20  # the slow checks' elimination


def test_roll_tables_are_distributions_over_what_the_rules_leave():
    offs, left, held, prob = sr.roll_tables()
    for k in range(1, 7):
        block = slice(offs[k], offs[k + 1])
        assert math.isclose(prob[block].sum(), 1.0, abs_tol=1e-12)
        assert ((left[block] <= k) & ((k - left[block]) % 2 == 0)).all()  # pairs leave in twos
        assert (held[block] <= 6 * left[block]).all() and (held[block] >= left[block]).all()
    # one die: nothing pairs, six faces
    assert sorted(zip(left[offs[1] : offs[2]], held[offs[1] : offs[2]])) == [(1, f) for f in range(1, 7)]


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_optimal_score_distribution_has_the_exact_turn_value(limit):
    """Read through the agent's act() and the solver's turn model, ``optimal:starter_weight=0``
    scores exactly roll_value(6, L) on average under limit L (the one-turn solver's values)."""
    game = syvere.Game(num_players=2)
    table = sr.turn_table(game, sy.OptimalAgent(game, starter_weight=0))
    PL, PS = sr.score_distributions(table, 3)
    assert math.isclose(PL[limit].sum(), 1.0, abs_tol=1e-12)
    mean = float(np.dot(PL[limit], np.arange(PL.shape[1])))
    assert math.isclose(mean, float(sy.roll_value(6, limit)), rel_tol=1e-12)
    # a plain-optimum starter ends after j rolls as the one-turn solver's trade-off says
    for row in sy.starter_tradeoff(3):
        assert math.isclose(PS[row.rolls].sum(), float(row.probability), rel_tol=1e-12)


def test_turn_table_matches_the_heuristics_rule():
    game = syvere.Game(num_players=4)
    table = sr.turn_table(game, game_agent(game, "heuristic"))
    # SyvereHeuristic: stop at <= 7 with one roll left, <= 4 with two, one point more as starter
    assert table[2, 6, 2, 3, 0] == 1 and table[2, 8, 2, 3, 0] == 0  # two dice never sum to 7
    assert table[3, 4, 1, 3, 0] == 1 and table[3, 5, 1, 3, 0] == 0
    assert table[3, 5, 1, 3, 1] == 1 and table[3, 6, 1, 3, 1] == 0
    assert table[4, 8, 1, 2, 0] == 0 and table[4, 7, 1, 2, 0] == 1


def game_agent(game, spec):
    from agents import spec as agent_spec

    return agent_spec.build(game, spec, seed=0)


class StandingsReader(DeterministicAgent):
    """Stops early when it leads: a policy of the totals, which the solver cannot take."""

    name = "standings"

    def act(self, observation, action_mask):
        n = self.game.num_players
        return syvere.STOP if observation[0] > observation[1:n].min() else syvere.ROLL


def test_an_agent_that_reads_the_totals_is_refused():
    game = syvere.Game(num_players=3)
    with pytest.raises(ValueError, match="decides by the standings"):
        sr.turn_table(game, StandingsReader(game))


def test_a_random_opponent_is_refused_as_not_deterministic():
    # It ignores the standings; what the solver cannot take is a decision drawn at random.
    game = syvere.Game(num_players=2)
    with pytest.raises(ValueError, match=r"RandomAgent\(\) is not deterministic: it stops with probability 0.5"):
        sr.turn_table(game, game_agent(game, "random"))


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="num_players must be 2..4"):
        sr.solve(5, elimination=E)
    with pytest.raises(ValueError, match="ties must be 0"):
        sr.solve(2, elimination=E, ties=0.5)
    with pytest.raises(ValueError, match="elimination"):
        sr.solve(2, elimination=0)
    with pytest.raises(ValueError, match="GiB"):  # refused before any array is made
        sr.solve(4, elimination=1000)
    assert 5 * 2**30 < sr.memory_needed(4, 77, 3) < 8 * 2**30  # the default game fits the limit


SMALL = 12  # the default run's solves: a few seconds each


def _solves(elimination, counts):
    out = {}
    for n in counts:
        for ties in (0, 1):
            out[("teacher", n, ties)] = sr.solve(n, elimination=elimination, policy="optimal:starter_weight=3/4", ties=ties)
            out[("heuristic", n, ties)] = sr.solve(n, elimination=elimination, policy="heuristic", ties=ties)
            out[("best", n, ties)] = sr.solve(n, elimination=elimination, ties=ties)
    return out


@pytest.fixture(scope="module")
def small():
    """Policy values and best responses at elimination 12, both bounds, 2 and 4 players."""
    return _solves(SMALL, (2, 4))


@pytest.fixture(scope="module")
def larger():
    """The same at elimination 20 with 2, 3 and 4 players (slow)."""
    return _solves(E, (2, 3, 4))


def check_fair_share(solved, n):
    low, high = solved[("heuristic", n, 0)].value, solved[("heuristic", n, 1)].value
    assert low - 1e-6 <= 1 / n <= high + 1e-6  # float32 values
    assert high - low < 0.2  # the cases not kept are a minority of games
    if n == 2:  # two players keep the totals before the round: both bounds are the exact value
        for who in ("heuristic", "teacher", "best"):
            assert solved[(who, 2, 0)].by_starter == solved[(who, 2, 1)].by_starter
        # the same agent in both seats: seat 0 starting is the mirror of seat 1 starting
        a, b = solved[("heuristic", 2, 0)].by_starter
        assert a + b == pytest.approx(1.0, abs=1e-6)
        assert a > b  # and starting is worth something


def check_best_at_least_every_policy(solved, n):
    for ties in (0, 1):
        best = solved[("best", n, ties)]
        assert best.best_response
        for who in ("teacher", "heuristic"):
            pol = solved[(who, n, ties)]
            assert not pol.best_response
            for b, p in zip(best.by_starter, pol.by_starter):
                assert b >= p - 1e-6
    assert solved[("best", n, 0)].value <= solved[("best", n, 1)].value


def check_engine_agrees(solved, n, elimination, games):
    """The teacher against heuristics on the engine, seats rotated, falls between the bounds
    (4 standard errors of slack)."""
    result = play_match("syvere", ["optimal:starter_weight=3/4"] + ["heuristic"] * (n - 1), num_games=games, seed=5,
                        options={"elimination": elimination})  # fmt: skip
    rate = result.records[0].share_sum / games
    slack = 4 * math.sqrt(rate * (1 - rate) / games)
    low, high = solved[("teacher", n, 0)].value, solved[("teacher", n, 1)].value
    assert low - slack <= rate <= high + slack, (low, rate, high)


@pytest.mark.parametrize("n", [2, 4])
def test_the_heuristic_against_itself_gets_its_fair_share_between_the_bounds(small, n):
    check_fair_share(small, n)


@pytest.mark.parametrize("n", [2, 4])
def test_the_best_response_is_at_least_every_policy(small, n):
    check_best_at_least_every_policy(small, n)


@pytest.mark.parametrize("n", [2, 4])
def test_policy_value_agrees_with_play_on_the_engine(small, n):
    check_engine_agrees(small, n, SMALL, 8000)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_larger_game_bounds_and_best_response(larger, n):
    check_fair_share(larger, n)
    check_best_at_least_every_policy(larger, n)
    check_engine_agrees(larger, n, E, 20_000)


def test_an_exact_endgame_lies_between_the_policy_and_the_best_response():
    """``endgame=K``: the best response from the first round that begins with at most K players in,
    the policy before."""
    teacher = "optimal:starter_weight=3/4"
    values = [sr.solve(3, elimination=SMALL, policy=teacher, endgame=k).by_starter for k in range(4)]
    best = sr.solve(3, elimination=SMALL).by_starter
    assert values[0] == values[1]  # a game never has fewer than 2 players left
    assert values[3] == best  # best response throughout
    for k in range(1, 4):  # each phase played better can only help, seat by seat
        assert all(b >= a - 1e-6 for a, b in zip(values[k - 1], values[k]))
    assert sum(values[2]) > sum(values[1]) + 1e-3 and sum(values[3]) > sum(values[2]) + 1e-3
    with pytest.raises(ValueError, match="endgame must be"):
        sr.solve(3, elimination=SMALL, policy=teacher, endgame=4)
    with pytest.raises(ValueError, match="endgame needs a policy"):
        sr.solve(3, elimination=SMALL, endgame=2)


def test_everyone_out_with_two_players_is_settled_exactly():
    """SY-9 in the 2-player phase: fewest points, then fewest points before the round, else shared."""
    from agents.solvers import _syvere_response_kernel as kern

    E_, A, D = 30, 2, sr._axis(2, 30)[1]
    assert sr._axis(2, 30)[0] == kern.PAIRS
    R = np.zeros((2, D * D), np.float32)
    dummy = np.zeros((1, 1), np.float32)

    def end(*turns):  # (total before the round, points scored) of the learner and its opponent
        t = np.array([kern.reach(before, x, E_, kern.PAIRS) for before, x in turns] + [0, 0], np.int64)
        return kern.round_end(t, A, D, E_, kern.PAIRS, True, 0, R, dummy, 1, dummy, 1, -1.0)

    assert end((25, 10), (28, 8)) == 1.0  # 35 against 36
    assert end((28, 8), (25, 10)) == 0.0
    assert end((26, 9), (28, 7)) == 1.0  # 35 each: 26 before against 28
    assert end((28, 7), (26, 9)) == 0.0
    assert end((28, 7), (28, 7)) == 0.5  # still tied: shared
    assert end((29, 36), (0, 36)) == 0.0  # 65 against 36
    assert end((29, 1), (29, 5)) == 1.0  # one point over against five
    assert kern.reach(29, 0, E_, kern.PAIRS) == 29  # still in
    axis = sorted(kern.reach(b, x, E_, kern.PAIRS) for b in range(E_) for x in range(37) if b + x >= E_)
    assert len(set(axis)) == len(axis) and axis[-1] < D  # every (reached, before) pair has its own place


def test_cli_prints_the_value_and_refuses_bad_input(capsys):
    assert sr.main(["--num-players", "3", "--elimination", str(SMALL), "--policy", "heuristic", "--ties", "0"]) == 0
    out = capsys.readouterr().out
    value = sr.solve(3, elimination=SMALL, policy="heuristic", ties=0).value
    assert f"win rate {value:.6f} (a lower bound: those rounds lost)" in out
    assert "by first starter" in out
    assert sr.main(["--num-players", "2", "--elimination", str(SMALL), "--ties", "1"]) == 0
    out = capsys.readouterr().out
    value = sr.solve(2, elimination=SMALL, ties=0).value  # the other bound: the same value
    assert f"win rate {value:.6f} (exact: two players keep what the tie-break needs)" in out
    assert sr.main(["--num-players", "9"]) == 2
    assert "num_players must be 2..4" in capsys.readouterr().err
