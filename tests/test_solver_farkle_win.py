"""Two-player 10 000 with a bust penalty (the ``farkle`` preset) solved for the chance of winning.

The solver (agents.solvers.tenthousand_win, interval iteration on the floored game) is checked
against computations that share none of its tables or kernels:

* the Bellman equation on the engine's own states: each start value equals the best turn found by
  an exhaustive recursion over the engine's states of one turn (``apply_chance``,
  ``apply_action``, ``legal_actions``, the penalty of TT-9e as the engine applies it), with what
  follows the turn read from the table, at states with busts in a row, off the list, at the floor;
* without a penalty, the old solver's exact values (Newton steps on the cycles of busts, a
  different formulation of the same game);
* play on the engine: self-play scores the solved value, and the agent beats the heuristic.
"""

import numpy as np
import pytest

from agents.solvers import _tenthousand_kernel as kernel
from agents.solvers import _tenthousand_penalty_kernel as penalty_kernel
from agents.solvers import tenthousand_win as tw
from dice_envs.games import tenthousand as tt
from tenthousand_turns import best_turn, share, solved


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("farkle-win-cache"))




FARKLE_1000 = {"preset": "farkle", "target": 1000}
FLOOR = -500  # the tests' floor: one penalty below zero keeps a solve at target 1000 to seconds


# -- the Bellman equation on the engine's states ---------------------------------------------------
def engine_turn_value(sol, totals, opened, busts):
    """The mover's (seat 0's) best turn by exhaustive recursion over the engine's states.

    What follows the turn is read from the solution: ``W`` at the opponent's start (its totals
    floored at the solution's floor, the one rule of the solved game that the engine does not
    have), ``L`` for the opponent's last turn. Rolls are pruned only where an allowed bank is worth
    at least ``1 - P(6 dice bust)(1 - z)``, which no roll can beat.
    """
    game = sol.game
    state = game.initial_state()._replace(totals=tuple(totals), opened=tuple(opened), busts=tuple(busts))
    D1 = sol.L.shape[1] - 1
    ob = int(opened[1]) if sol.FO == 2 else 1

    def opponent_start(s2):
        b, a = (t // 50 for t in s2.totals)
        return float(sol.W[sol.index(a, b, s2.opened[::-1], s2.busts[::-1])])

    bust = game.apply_chance(state, (2, 2, 3, 3, 4, 6))  # the engine's bust and penalty; index() floors
    z = 1.0 - opponent_start(bust)
    sure = 1.0 - sol.rt.pbust[6] * (1.0 - z)

    def after(s2):
        if game.is_terminal(s2):
            return share(game, s2, 0)
        if s2.turns_left is not None:  # the opponent's last turn (TT-8)
            return 1.0 - sol.L[ob, min((s2.totals[0] - totals[1]) // 50, D1)]
        return 1.0 - opponent_start(s2)

    return best_turn(game, state, 0, after, sure, cap=40_000)  # hot-dice chains that long: below 1e-20


@pytest.mark.parametrize(
    "options, floor, starts",
    [
        (  # the farkle preset at target 1000: a fresh game, a penalty due, the floor
            FARKLE_1000,
            FLOOR,
            [
                ((0, 0), (False, False), (0, 0)),
                ((300, -300), (True, True), (2, 1)),  # a third bust would fall below the floor
                ((-500, 650), (True, True), (2, 0)),  # a third bust stays at the floor
            ],
        ),
        pytest.param(  # near the end; a player off the list with a negative total
            FARKLE_1000,
            FLOOR,
            [((900, 950), (True, True), (1, 2)), ((-500, 0), (False, True), (0, 2))],
            marks=pytest.mark.slow,
        ),
        pytest.param(  # opening above later banks: the list matters; a small penalty after two busts
            {"preset": "farkle", "target": 1000, "opening": 500, "bust_penalty": 100, "bust_penalty_after": 2},
            FLOOR,
            [
                ((0, 0), (False, False), (0, 0)),
                ((-100, 400), (False, True), (1, 0)),
                ((350, -200), (True, False), (1, 1)),
            ],
            marks=pytest.mark.slow,
        ),
        pytest.param(  # the published floor, at target 1500
            {"preset": "farkle", "target": 1500},
            -2500,
            [
                ((0, 0), (False, False), (0, 0)),
                ((-2500, 1000), (True, True), (2, 2)),
                ((1400, -400), (True, True), (0, 2)),
            ],
            marks=pytest.mark.slow,
        ),
    ],
)
def test_start_values_satisfy_the_bellman_equation_on_engine_states(options, floor, starts, cache_dir):
    sol = solved(options, cache_dir, floor)
    tol = sol.gaps[-1] + 1e-12  # W is the bounds' midpoint; the Bellman step stays within them
    for totals, opened, busts in starts:
        key = sol.index(totals[0] // 50, totals[1] // 50, opened, busts)
        expected = engine_turn_value(sol, totals, opened, busts)
        assert sol.W[key] == pytest.approx(expected, abs=tol), (totals, busts)


def test_bounds_hold_the_value_and_closed_geometrically(cache_dir):
    sol = solved(FARKLE_1000, cache_dir, FLOOR)
    assert np.all(sol.lo <= sol.W) and np.all(sol.W <= sol.hi)
    assert sol.hi.max() - sol.lo.min() > 0.5 and (sol.hi - sol.lo).max() == sol.gaps[-1] <= tw.SWEEP_TOL
    assert sol.gaps[0] > 0.9 and np.all(np.diff(sol.gaps[2:]) < 0)  # from [0, 1], shrinking every sweep
    assert sol.error_bound == pytest.approx(sol.gaps[-1] / 2 + sol.cap_bound, rel=1e-12)


# -- a second formulation: the old solver, without a penalty ---------------------------------------
@pytest.mark.parametrize(
    "options",
    [
        {"preset": "farkle", "target": 1000, "bust_penalty": 0, "bust_penalty_after": 1},
        pytest.param({"preset": "no", "target": 1000}, marks=pytest.mark.slow),
        pytest.param({"preset": "farkle", "target": 1000, "bust_penalty": 0}, marks=pytest.mark.slow),
        pytest.param(
            {"preset": "farkle", "target": 1000, "bust_penalty": 0, "opening": 500, "bust_penalty_after": 2},
            marks=pytest.mark.slow,
        ),
    ],
)
def test_without_a_penalty_the_sweeps_give_the_old_solvers_values(options, cache_dir):
    """The penalty solver run on a game without a penalty (floor 0: totals never fall) against the
    old solver's Newton steps on each pair of states that pass the dice by busts."""
    game = tw.make_game(options)
    old = tw.solve(game, cache_dir=cache_dir, progress=False)
    new = tw.PenaltySolution(game, tw.build_penalty(game, progress=False, floor=0))
    T = game.target // 50
    a, b = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    for i in range(new.K):
        for j in range(new.K):
            if new.FO == 1:
                assert np.abs(new.W[0, 0, i, j] - old.W[0]).max() <= new.error_bound + 1e-12
            else:  # the old solver's flag is "total > 0"; at 0 both are off the list
                got = new.W[(a > 0).astype(int), (b > 0).astype(int), i, j, a, b]
                assert np.abs(got - old.W[0]).max() <= new.error_bound + 1e-12
    assert new.value == pytest.approx(old.value, abs=new.error_bound + 1e-12)


def test_the_fused_bounds_turn_is_two_single_turns():
    game = tw.make_game(FARKLE_1000)
    rt = tw.roll_tables(game)
    thr_open, thr_bank, hot = tw.bank_rules(game)
    _, Ls, _, _ = tw._last_turn_tables(game, rt, (thr_open, thr_bank, hot))
    RA, RB = kernel.reach_table(Ls[1], hot, *rt.args_bust())
    WA, WB = kernel.win_region(hot, rt.cls_start, rt.cls_prob, rt.opt_start, rt.opt_left, rt.pbust)
    rng = np.random.default_rng(8)
    N = 40
    w1, w2 = rng.random((N, N)), rng.random((N, N))
    for a, b, z1, z2 in [(0, 0, 0.2, 0.6), (15, 30, 0.5, 0.1), (39, 2, 0.9, 0.3)]:
        offsets = 6 * rt.opt_v + rt.opt_left
        both = penalty_kernel.turn_bounds(
            a, b, N, thr_bank, hot, z1, z2, w1, w2, 1, Ls[1], RA, RB, WA, WB, rt.maxv,
            rt.cls_start, rt.cls_prob, rt.opt_start, offsets, rt.pbust,
        )
        one = kernel.pair_turn(a, b, N, thr_bank, hot, z1, w1, 1, Ls[1], RA, RB, rt.maxv, *rt.args_bust())
        two = kernel.pair_turn(a, b, N, thr_bank, hot, z2, w2, 1, Ls[1], RA, RB, rt.maxv, *rt.args_bust())
        assert both == (one[0][0, 6], two[0][0, 6])


# -- the floor ---------------------------------------------------------------------------------------
@pytest.mark.slow
def test_each_lower_floor_changes_the_first_players_value_by_far_less(cache_dir):
    """Lowering the floor by one penalty at a time: the start value moves less than 1e-6 from -500
    to -1000 and less than 1e-9 from -1000 to -1500 (measured: 1.2e-7 and 8.9e-11): the floor's
    effect shrinks about a thousandfold with each penalty of room, as reaching it needs three more
    busts in a row."""
    v500, v1000, v1500 = (solved(FARKLE_1000, cache_dir, f).value for f in (-500, -1000, -1500))
    assert abs(v500 - v1000) < 1e-6
    assert abs(v1000 - v1500) < 1e-9


# -- the agent ----------------------------------------------------------------------------------------
def play(game, agents, rng):
    from agents.solvers.tenthousand_win_bench import play_game

    return play_game(game, agents, rng)


def test_self_play_scores_the_solved_value(cache_dir):
    sol = solved(FARKLE_1000, cache_dir, FLOOR)
    agents = [tw.WinProbAgent(sol.game, cache_dir=cache_dir, floor=FLOOR) for _ in range(2)]
    rng = np.random.default_rng(20261129)
    shares = np.array([play(sol.game, agents, rng) for _ in range(600)])
    se = shares.std(ddof=1) / np.sqrt(len(shares))
    assert abs(shares.mean() - sol.value) < 4 * se


def test_agent_beats_the_heuristic_with_legal_moves_only(cache_dir):
    """Pairs of games with the seats swapped on the same dice; play_game applies each action on the
    engine, which refuses an illegal one."""
    from agents.tenthousand import ThresholdAgent

    game = tw.make_game(FARKLE_1000)
    agent = tw.WinProbAgent(game, cache_dir=cache_dir, floor=FLOOR)
    other = ThresholdAgent(game)
    pairs = []
    for g in range(2000):
        first = play(game, [agent, other], np.random.default_rng([7, g]))
        second = 1.0 - play(game, [other, agent], np.random.default_rng([7, g]))
        pairs.append((first + second) / 2)
    pairs = np.array(pairs)
    se = pairs.std(ddof=1) / np.sqrt(len(pairs))  # the pair is the unit: its two games share the dice
    assert pairs.mean() - 0.5 > 4 * se


def test_agent_takes_the_solutions_best_choice_with_busts_and_penalty_due(cache_dir):
    sol = solved(FARKLE_1000, cache_dir, FLOOR)
    game = sol.game
    agent = tw.WinProbAgent(game, cache_dir=cache_dir, floor=FLOOR)
    state = game.initial_state()._replace(totals=(-500, 600), opened=(True, True), busts=(2, 1))
    state = game.apply_chance(state, (1, 1, 5, 5, 2, 3))
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    action = agent.act(game.observe(state, 0), mask)
    values = {}
    for sel, value in game.selections(state.roll):
        roll, bank = sol.choice_values(-10, 12, 0, 0, value // 50, 6 - len(sel), (True, True), (2, 1))
        values[tt.encode_action(sel, False)] = roll
        if bank is not None:
            values[tt.encode_action(sel, True)] = bank
    assert values[action] == max(values.values())
    assert set(values) == set(np.flatnonzero(mask))


# -- refusals and the command line -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, word",
    [
        ({"preset": "farkle", "end": "finish_round"}, "finish_round"),
        ({"preset": "farkle", "bust_penalty": 30}, "multiple of 50"),
        ({"preset": "farkle", "exact_target": True}, "exact_target"),
    ],
)
def test_unsupported_penalty_games_are_refused(options, word):
    with pytest.raises(ValueError, match=word):
        tw.make_game(options)


def test_cli_summary(cache_dir):
    out = tw.cli_summary(FARKLE_1000, cache_dir=cache_dir, progress=False, floor=FLOOR)
    sol = solved(FARKLE_1000, cache_dir, FLOOR)
    assert out["value"] == sol.value and out["error_bound"] == sol.error_bound < 1e-9
    assert any(f"{sol.value:.6f}" in line for line in out["lines"])
    assert any("floored at -500" in line for line in out["lines"])
    assert len(out["lines"]) == 6 and out["peak_memory_mib"] > 0
