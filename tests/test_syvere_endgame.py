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


def heuristic_scores(E):
    """The heuristic's exact turn-score distribution under each roll limit (not as a starter)."""
    game = syvere.Game(num_players=3, elimination=E)
    table = sr.turn_table(game, agent_spec.build(game, "heuristic", seed=0))
    PL, _ = sr.score_distributions(table, game.max_rolls)
    return PL


def reference_values(game, state, tables, PL, counted):
    """Stop and roll values at ``state`` (seat 0 to decide), from the engine's own end of turn and of
    round: every later player of the round scores by the heuristic's distribution, and a round that
    leaves two or three in is read from the solver's round-start values. A round where everyone goes
    out is judged among ``counted`` (the players in at the decision, the agent's convention; with
    three of them a tie on points counts as lost, ``ties=0``)."""
    from agents.solvers import _syvere_response_kernel as kern

    E, M = game.elimination, game.max_rolls

    def ended(st):
        if st.winners is not None and not any(t < E for t in st.totals):
            fewest = min(st.totals[s] for s in counted)
            tied = [s for s in counted if st.totals[s] == fewest]
            if 0 not in tied:
                return 0.0
            if len(tied) > 1 and len(counted) == 3:
                return 0.0
            least = min(st.totals_before_round[s] for s in tied)
            shared = [s for s in tied if st.totals_before_round[s] == least]
            return 1.0 / len(shared) if 0 in shared else 0.0
        if st.winners is not None:
            return 1.0 / len(st.winners) if 0 in st.winners else 0.0
        if st.totals[0] >= E:
            return 0.0
        ins = [s for s in range(game.num_players) if st.totals[s] < E]
        D = sr._axis(len(ins), E)[1]
        idx = sum(st.totals[s] * D**i for i, s in enumerate(ins))
        return float(tables[f"R{len(ins)}"][ins.index(st.round_order[0]), idx])

    def after(st, x, rolls):
        nxt = game._end_turn(st, rolls, (x,) if x else ())
        if nxt.winners is not None or nxt.turn == 0:
            return ended(nxt)
        scores = PL[nxt.starter_rolls]
        return sum(scores[y] * after(nxt, y, 1) for y in range(37) if scores[y] > 0)

    starter = state.turn == 0
    U, Q = np.zeros((M + 1, 37)), np.zeros((7, M + 1))
    for made in range(1, M + 1) if starter else (0,):
        for x in range(37):
            U[made, x] = after(state, x, made if starter else state.rolls)
    limit = M if starter else state.starter_rolls
    kern.turn_value(U, Q, limit, starter, True, sr.no_policy(M), *sr.roll_tables())
    return U[state.rolls if starter else 0, sum(state.remaining)], Q[len(state.remaining), state.rolls]


# (players, round order, index of seat 0 in it, totals, the starter's rolls, rolls made, dice held).
# Seats out before the round are left out of the order; totals of E or more are out.
MID_ROUND = [
    (3, (1, 2, 0), 2, (5, 3, 9), 2, 1, (2, 3)),  # last of three
    (3, (2, 0, 1), 1, (4, 7, 1), 3, 2, (1, 1, 5)),  # middle of three
    (3, (0, 1, 2), 0, (6, 2, 10), 3, 1, (6,)),  # the starter of three
    (3, (1, 2, 0), 2, (3, 14, 8), 2, 1, (4, 4)),  # the starter went out in this round
    (3, (2, 0, 1), 1, (7, 5, 12), 3, 1, (2, 2, 3)),  # the starter went out; seat 0 plays first of those in
    (4, (3, 0, 1, 2), 1, (2, 9, 6, 13), 3, 1, (5, 5)),  # four began the round, the starter went out
    (4, (1, 2, 3, 0), 3, (8, 4, 15, 6), 2, 1, (1, 2)),  # four began, the second went out
    (5, (4, 0, 2), 1, (1, 14, 3, 20, 16), 3, 2, (3, 3)),  # three began, seats 1 and 3 out before
    (4, (2, 3, 0, 1), 2, (9, 6, 12, 13), 3, 2, (6, 6)),  # four began, two went out before seat 0
    (2, (1, 0), 1, (10, 11), 3, 1, (1, 2, 2)),  # near the end with two
]


@pytest.mark.parametrize("case", MID_ROUND, ids=[str(i) for i in range(len(MID_ROUND))])
def test_mid_round_values_match_the_engines_rest_of_the_round(cache_dir, case):
    """SY-2, SY-8..SY-10: wherever seat 0 sits in the round, also after players went out earlier in it
    (the real starter among them), its values are those of playing the rest of the round on the
    engine and reading the solver's values of the round that follows."""
    n, order, turn, totals, limit, made, held = case
    game = syvere.Game(num_players=n, elimination=E)
    agent = agent_spec.build(game, "endgame:before=heuristic", seed=0)
    state = state_at(game, totals, order, turn, limit, made, held)
    state = state._replace(totals_before_round=tuple(min(t, E - 1) for t in totals))
    counted = [s for s in range(n) if totals[s] < E]
    got = agent.values(game.observe(state, 0))
    want = reference_values(game, state, sr.endgame_tables(elimination=E), heuristic_scores(E), counted)
    assert got is not None and np.allclose(got, want, atol=1e-6), (got, want)


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
    """SY-9, every other player out (one in this round): stopping under E wins outright, so the agent
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
    response wins (2 players, elimination 12, within 4 standard errors of 6000 games): the whole path
    through the match runner, a coarse check (the value tests above are the exact ones)."""
    res = sr.solve(num_players=2, elimination=E)
    options = {"num_players": 2, "elimination": E}
    result = play_match("syvere", ["endgame", "heuristic"], 6000, seed=4, options=options)
    rate = result.records[0].win_rate()[0]
    se = (res.value * (1 - res.value) / 6000) ** 0.5
    assert abs(rate - res.value) < 4 * se


def test_a_random_before_stays_a_policy(cache_dir):
    """While four are in, its distribution is ``before``'s (here random), and a reset re-seeds it."""
    game = syvere.Game(num_players=4, elimination=E)
    agent = agent_spec.build(game, "endgame:before=random", seed=1)
    obs = game.observe(state_at(game, (1, 2, 3, 4), (0, 1, 2, 3), 0, 3, 1, (2, 5, 6)), 0)
    mask = np.ones(2, np.int8)
    assert agent.action_probabilities(obs, mask).tolist() == [0.5, 0.5]
    agent.reset(seed=9)
    first = [agent.act(obs, mask) for _ in range(20)]
    agent.reset(seed=9)
    assert [agent.act(obs, mask) for _ in range(20)] == first and len(set(first)) == 2
    # with three in, its own deterministic choice
    three = game.observe(state_at(game, (1, 2, 3, 20), (0, 1, 2), 0, 3, 1, (2, 5, 6)), 0)
    probabilities = agent.action_probabilities(three, mask)
    assert sorted(probabilities.tolist()) == [0.0, 1.0]
    assert agent.act(three, mask) == int(np.argmax(probabilities))


def test_refuses_what_it_cannot_play(cache_dir):
    from agents.solvers.syvere_endgame import EndgameAgent
    from dice_envs.games import meyer

    with pytest.raises(ValueError, match="next_starter"):
        agent_spec.build(syvere.Game(num_players=3, next_starter="left", elimination=8), "endgame", seed=0)
    with pytest.raises(ValueError, match="plays syvere"):
        EndgameAgent(meyer.Game(), seed=0)
    with pytest.raises(ValueError, match="max_rolls above 6"):
        agent_spec.build(syvere.Game(num_players=3, elimination=8, max_rolls=7), "endgame", seed=0)
    with pytest.raises(ValueError, match="standings|ignore"):
        sr.endgame_tables(elimination=E, opponent="endgame")


def test_a_game_without_decisions_builds_no_tables(tmp_path, monkeypatch):
    """With max_rolls=1 every turn plays itself out (SY-4): the agent is never asked to act, so it
    solves nothing (at elimination 77 a build takes minutes) and still sits through whole games."""
    monkeypatch.setenv("DICE_ENVS_CACHE_DIR", str(tmp_path))
    built = []
    monkeypatch.setattr(sr, "endgame_tables", lambda *a, **k: built.append(a))
    game = syvere.Game(num_players=3, max_rolls=1)
    agent_spec.build(game, "endgame", seed=0)  # builds without solving
    assert built == [] and list(tmp_path.iterdir()) == []
    result = play_match("syvere", ["endgame", "heuristic", "random"], 30, seed=5,
                        options={"num_players": 3, "max_rolls": 1})
    assert built == [] and [r.games for r in result.records] == [30, 30, 30]
