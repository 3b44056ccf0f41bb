"""The Syvere endgame agent (agents/solvers/syvere_endgame.py): from engine observations it plays the
best response the solver's 2- and 3-player values describe, and ``before`` while four are in."""

import os

import numpy as np
import pytest

from agents import spec as agent_spec
from agents.solvers import syvere_response as sr
from dice_envs.games import syvere
from evaluate.match import play_match

pytest.importorskip("numba")

E = 12  # one elimination for the whole file: its tables are built once (about 20 s, mostly 2 players)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """The agent reads its tables from the solver cache: a private one for this module."""
    path = tmp_path_factory.mktemp("endgame-cache")
    old = os.environ.get("DICE_ENVS_CACHE_DIR")
    os.environ["DICE_ENVS_CACHE_DIR"] = str(path)
    yield path
    if old is None:
        del os.environ["DICE_ENVS_CACHE_DIR"]
    else:
        os.environ["DICE_ENVS_CACHE_DIR"] = old


def state_at(game, totals, order, turn, limit, made, remaining):
    """An engine state at a decision: ``order`` is the round's order, ``turn`` the index in it."""
    return game.initial_state()._replace(
        totals=tuple(totals), round_order=tuple(order), turn=turn, starter_rolls=0 if turn == 0 else limit,
        rolls=made, remaining=tuple(remaining), to_roll=0,
    )  # fmt: skip


def first_roll_value(game, agent, totals, order, turn, limit, automatic):
    """The value of a turn before its first roll, from the agent's own values after that roll:
    the better of stop and roll where it has a choice, ``automatic(x)`` where the turn ends by itself."""
    offs, left, held, prob = sr.roll_tables()
    examples = {}
    for _, remaining in sr.sv._roll_results(6):
        examples.setdefault((len(remaining), sum(remaining)), remaining)
    value = 0.0
    for i in range(offs[6], offs[7]):
        k2, x = int(left[i]), int(held[i])
        if k2 == 0 or limit == 1:
            value += prob[i] * automatic(x)
            continue
        obs = game.observe(state_at(game, totals, order, turn, limit, 1, examples[(k2, x)]), order[turn])
        stop, roll = agent.values(obs)
        value += prob[i] * max(stop, roll)
    return value


@pytest.mark.parametrize("learner_starts", [True, False])
def test_two_players_agent_values_are_the_solvers_round_values(cache_dir, learner_starts):
    """At every pair of totals, the agent's stop/roll values after the first roll (read through the
    engine's observation) average to the solver's value of that stage: it plays the solved turn."""
    game = syvere.Game(num_players=2, elimination=E)
    agent = agent_spec.build(game, "endgame", seed=0)
    tables = sr.endgame_tables(elimination=E)
    D = sr._axis(2, E)[1]
    R2, G2 = tables["R2"], tables["G2"]
    M = game.max_rolls
    worst = 0.0
    for t0 in range(0, E, 2):
        for t1 in range(0, E, 3):
            if learner_starts:
                # Stage 0 of a round the learner starts: R2[0]; a turn ending by itself after one roll
                # (all dice paired away, x = 0) leaves the other player limit 1: stage 1, limit 1.
                want = float(R2[0, t0 + t1 * D])
                got = first_roll_value(game, agent, (t0, t1), (0, 1), 0, M,
                                       lambda x: float(G2[0 * M + 0, t0 + x + t1 * D]))  # fmt: skip
            else:
                # Stage 1 of a round the other player started with limit 2.
                L = 2
                want = float(G2[(1 * 1 + 0) * M + L - 1, t0 + t1 * D])
                got = first_roll_value(game, agent, (t0, t1), (1, 0), 1, L,
                                       lambda x: float(R2[0, t0 + x + t1 * D]))  # fmt: skip
            worst = max(worst, abs(got - want))
    assert worst < 1e-5


def test_three_players_last_seat_reads_the_round_end(cache_dir):
    """The last player of a 3-player round: its values average to the solver's stage value, through
    the round's end (who is out, the next starter, the 2-player values)."""
    game = syvere.Game(num_players=3, elimination=E)
    agent = agent_spec.build(game, "endgame", seed=0)
    tables = sr.endgame_tables(elimination=E)
    D = sr._axis(3, E)[1]
    G3 = tables["G3"]
    M, L = game.max_rolls, 3
    worst = 0.0
    checked = 0
    for totals in [(0, 0, 0), (3, 5, 1), (11, 2, 7), (9, 9, 9), (1, 11, 11), (10, 0, 4)]:
        # the learner (seat 0) plays last in a round started by seat 1: stage 2 of starter 1
        stage = (1 * 2 + 1) * M + L - 1
        want = float(G3[stage, totals[0] + totals[1] * D + totals[2] * D * D])

        def ended(x, totals=totals):  # the turn ended by itself with x: read the round's end from the solver
            t = np.array([min(totals[0] + x, E + 35), totals[1], totals[2], 0], np.int64)
            from agents.solvers import _syvere_response_kernel as kern

            R2 = tables["R2"]
            return kern.round_end(t, 3, D, E, kern.TOTALS, True, 1, tables["R3"], tables["R3"], D, R2,
                                  sr._axis(2, E)[1], 0.0)  # fmt: skip

        got = first_roll_value(game, agent, totals, (1, 2, 0), 2, L, ended)
        worst = max(worst, abs(got - want))
        checked += 1
    assert checked == 6 and worst < 1e-5


def test_with_four_players_in_it_plays_before(cache_dir):
    """While four are in, every decision is the ``before`` agent's."""
    game = syvere.Game(num_players=4, elimination=E)
    agent = agent_spec.build(game, "endgame:before=heuristic", seed=0)
    other = agent_spec.build(game, "heuristic", seed=0)
    mask = np.ones(2, np.int8)
    rng = np.random.default_rng(3)
    for _ in range(200):
        totals = tuple(int(v) for v in rng.integers(0, E, 4))
        size = int(rng.integers(1, 5))
        remaining = tuple(sorted(int(v) for v in rng.choice([1, 2, 3, 4, 5, 6], size=size)))
        obs = game.observe(state_at(game, totals, (0, 1, 2, 3), 0, 3, 1, remaining), 0)
        assert agent.values(obs) is None
        assert agent.act(obs, mask) == other.act(obs, mask)


def test_alone_in_it_stays_under_the_elimination(cache_dir):
    """Every other player is out (one in this round): stopping under E wins outright, so the agent
    stops on any sum that keeps it under E and rolls when stopping would put it out."""
    game = syvere.Game(num_players=2, elimination=E)
    agent = agent_spec.build(game, "endgame", seed=0)
    mask = np.ones(2, np.int8)
    state = state_at(game, (4, 12), (1, 0), 1, 3, 1, (3, 3))  # holds 6: 10 < 12 wins
    stop, roll = agent.values(game.observe(state, 0))
    assert stop == 1.0 and roll < 1.0  # a reroll of two dice can reach 12
    assert agent.act(game.observe(state, 0), mask) == syvere.STOP
    state = state_at(game, (7, 12), (1, 0), 1, 3, 1, (2, 3))  # holds 5: 12, as many points as the other
    stop, roll = agent.values(game.observe(state, 0))
    assert stop == 0.5  # the totals before the round decide: not seen, valued 1/2
    state = state_at(game, (7, 12), (1, 0), 1, 3, 1, (3, 3))  # holds 6: 13, more points: lost
    stop, roll = agent.values(game.observe(state, 0))
    assert stop == 0.0 and roll > 0.0
    assert agent.act(game.observe(state, 0), mask) == syvere.ROLL


def test_two_players_win_rate_is_the_best_responses(cache_dir):
    """Played on the engine against the heuristic, the agent wins what the solver says the best
    response wins (2 players, elimination 12, within 4 standard errors of 6000 games)."""
    res = sr.solve(num_players=2, elimination=E)
    options = {"num_players": 2, "elimination": E}
    result = play_match("syvere", ["endgame", "heuristic"], 6000, seed=4, options=options)
    rate = result.records[0].win_rate()[0]
    se = (res.value * (1 - res.value) / 6000) ** 0.5
    assert abs(rate - res.value) < 4 * se


def test_refuses_what_it_cannot_play(cache_dir):
    with pytest.raises(ValueError, match="next_starter"):
        agent_spec.build(syvere.Game(num_players=3, next_starter="left", elimination=8), "endgame", seed=0)
    with pytest.raises(ValueError, match="standings|ignore"):
        sr.endgame_tables(elimination=E, opponent="endgame")
