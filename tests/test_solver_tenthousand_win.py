"""Two-player 10 000 solved for the chance of winning (issue 8, item 4): agents.solvers.tenthousand_win.

The solver's values are checked against independent computations on the engine's own states
(``apply_chance``, ``apply_action``, ``legal_actions``, ``returns``), never against its own tables:

* the last-turn tables by an exhaustive recursion over the engine's states of that turn (TT-8);
* the start-of-turn table by the Bellman equation, each side recomputed by an exhaustive
  recursion over the engine's states of one turn (the table is optimal exactly when it is the
  fixed point of that equation);
* the agent, by an exact evaluation of its play over every engine state the game can reach
  (``slow``), and by simulation: its self-play score within 4 standard errors of the value.
"""

from fractions import Fraction

import numpy as np
import pytest

from agents.solvers import tenthousand_win as tw
from dice_envs.games import tenthousand as tt
from tenthousand_turns import best_turn, share

TOL = 1e-12


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("win-cache"))


_SOLVED: dict = {}


def solved(options: dict, cache_dir: str) -> tw.Solution:
    key = tuple(sorted(options.items()))
    if key not in _SOLVED:
        _SOLVED[key] = tw.solve(options, cache_dir=cache_dir, progress=False)
    return _SOLVED[key]


# -- the game as tables ---------------------------------------------------------------------------
def test_roll_tables_are_the_engines_exact_chances():
    game = tt.Game(preset="dk")
    rt = tw.roll_tables(game)
    start = game.initial_state()
    for n in range(1, 7):
        busts = sum(p for roll, p in game.chance_outcomes(start._replace(to_roll=n)) if not game.selections(roll))
        assert rt.pbust[n] == float(busts)
        classes = rt.cls_prob[rt.cls_start[n] : rt.cls_start[n + 1]]
        assert classes.sum() + rt.pbust[n] == pytest.approx(1.0, abs=1e-15)
    assert rt.pbust[6] == float(Fraction(5, 216))  # 60 of the 2 592 ordered... rolls with no score
    assert rt.pbust[1] == float(Fraction(2, 3))
    assert rt.maxv == 4000 // 50  # six 1s, linear: 4 x 1000 (TT-5)


@pytest.mark.parametrize(
    "options, expected",
    [
        ({"preset": "dk"}, (20, 6, True)),  # TT-7: 1000 to open, then 300; TT-4: hot dice roll on
        ({"preset": "no"}, (10, 1, False)),  # 500 to open, then anything
        ({"preset": "no", "min_bank": 350, "hot_dice_must_roll": True}, (10, 7, True)),
    ],
)
def test_bank_rules_are_read_from_the_engine(options, expected):
    assert tw.bank_rules(tt.Game(**options)) == expected


@pytest.mark.parametrize(
    "options, word",
    [
        ({"preset": "farkle", "end": "finish_round"}, "bust penalty"),  # farkle itself: test_solver_farkle_win
        ({"preset": "dk", "num_players": 3}, "num_players=3"),
        ({"preset": "no", "exact_target": True}, "exact_target"),
        ({"preset": "dk", "over_threshold": True}, "over_threshold"),
        ({"preset": "dk", "confirm_combinations": True}, "confirm_combinations"),
    ],
)
def test_unsupported_rules_are_refused_by_name(options, word):
    with pytest.raises(ValueError, match=word):
        tw.make_game(options)


# -- the last turn (TT-8) against the engine --------------------------------------------------------
def engine_last_turn(game, need_points, opened):
    """Optimal chance of the player with the last turn who is ``need_points`` behind, by recursion
    over the engine's states (seat 0 plays its last turn against seat 1's total)."""
    b = 1000 if opened else 0
    state = game.initial_state()._replace(
        totals=(b, b + need_points), opened=(opened, True), turns_left=1
    )
    memo = {}

    def chance(s):
        key = (s.turn_total, s.to_roll)
        if s.turn_total > need_points + 20_000:
            # Only hot dice rolled again and again get here (at least 13 in a row, each under 1/30
            # likely): the player is far ahead; 1 is off by less than 1e-19.
            return 1.0
        if key not in memo:
            total = 0.0
            for roll, p in game.chance_outcomes(s):
                d = game.apply_chance(s, roll)
                total += float(p) * (share(game, d, 0) if game.is_terminal(d) else decide(d))
            memo[key] = total
        return memo[key]

    def decide(d):
        best = 0.0
        # Banks first: once a bank wins outright, no roll needs a look (and none can beat it).
        for action in sorted(game.legal_actions(d), key=lambda x: x % 2 != tt.BANK):
            s2 = game.apply_action(d, action)
            value = share(game, s2, 0) if game.is_terminal(s2) else chance(s2)
            best = max(best, value)
            if best == 1.0:
                break
        return best

    return chance(state)


@pytest.mark.parametrize(
    "preset, need, opened",
    [
        ("no", 300, True),
        ("no", 1550, True),
        ("no", 1200, False),  # the opening threshold (500) applies
        ("dk", 300, True),
        pytest.param("dk", 50, True, marks=pytest.mark.slow),  # ahead at once, but 300 to bank
        pytest.param("dk", 1000, True, marks=pytest.mark.slow),
        pytest.param("dk", 1550, True, marks=pytest.mark.slow),
        pytest.param("dk", 1200, False, marks=pytest.mark.slow),  # 1000 to open
        pytest.param("no", 50, True, marks=pytest.mark.slow),
    ],
)
def test_last_turn_table_matches_the_engine(preset, need, opened, cache_dir):
    sol = solved({"preset": preset, "target": 1000}, cache_dir)
    expected = engine_last_turn(sol.game, need, opened)
    assert sol.L[int(opened), need // 50] == pytest.approx(expected, abs=TOL)


# -- the Bellman equation on the engine's states ---------------------------------------------------
def engine_turn_value(sol, a_points, b_points, role):
    """The best value of one turn for the mover, by exhaustive recursion over the engine's states,
    with the value of whatever follows the turn taken from the solution's tables (``W`` for the
    opponent's turn, ``L`` for their last turn).

    Rolls are pruned only where a bank is allowed that is worth at least ``1 - P(6 dice bust)(1 - z)``:
    no roll can beat it, as a roll busts (value ``z``) with at least that chance.
    """
    game = sol.game
    mover = role  # role 0 is the round's starter, seat first_starter = 0 (one role: seat 0)
    totals = [0, 0]
    totals[mover], totals[1 - mover] = a_points, b_points
    opened = [t > 0 for t in totals]
    state = game.initial_state()._replace(totals=tuple(totals), opened=tuple(opened), player=mover)
    a, b = a_points // 50, b_points // 50
    nxt = int(sol.nexts[role])
    z = 1.0 - sol.W[nxt, b, a]
    ob = int(b > 0)
    D1 = sol.L.shape[1] - 1
    sure = 1.0 - sol.rt.pbust[6] * (1.0 - z)

    def after(s2):
        if game.is_terminal(s2):
            return share(game, s2, mover)
        own = s2.totals[mover]
        if s2.turns_left is not None:  # the opponent's last turn (TT-8)
            return 1.0 - sol.L[ob, min((own - b_points) // 50, D1)]
        return 1.0 - sol.W[nxt, b, own // 50]

    return best_turn(game, state, mover, after, sure, cap=game.target + 500 * 50)  # longer: below 1e-20


@pytest.mark.parametrize(
    "options, starts",
    [
        ({"preset": "no", "target": 1000, "end": "immediate"}, [(0, 0, 0), (600, 850, 0)]),
    ],
)
def test_start_values_satisfy_the_bellman_equation_on_engine_states(options, starts, cache_dir):
    sol = solved(options, cache_dir)
    for a, b, role in starts:
        assert sol.W[role, a // 50, b // 50] == pytest.approx(engine_turn_value(sol, a, b, role), abs=1e-10)


@pytest.mark.slow
@pytest.mark.parametrize(
    "options, starts",
    [
        ({"preset": "dk", "target": 1000}, [(0, 0, 0), (0, 0, 1)]),  # finish_round, both roles
        ({"preset": "dk", "target": 1000, "end": "immediate"}, [(0, 0, 0)]),
        ({"preset": "no", "target": 1000}, [(0, 0, 0), (500, 0, 0), (900, 950, 0), (950, 500, 0)]),
        ({"preset": "dk", "target": 1500}, [(0, 1000, 0), (1000, 0, 1), (1400, 1450, 0), (1450, 1450, 1)]),
        ({"preset": "dk", "target": 2000, "end": "immediate"}, [(0, 0, 0), (1000, 1950, 0)]),
        ({"preset": "no", "target": 2000}, [(0, 0, 0), (1500, 1950, 0), (1950, 1900, 0)]),
    ],
)
def test_more_start_values_satisfy_the_bellman_equation(options, starts, cache_dir):
    sol = solved(options, cache_dir)
    for a, b, role in starts:
        assert sol.W[role, a // 50, b // 50] == pytest.approx(engine_turn_value(sol, a, b, role), abs=1e-10)


# -- the agent ------------------------------------------------------------------------------------
def play(game, agents, rng):
    """One game between two agents on the engine, dice from ``rng``; returns seat 0's share."""
    from agents.solvers.tenthousand_win_bench import play_game

    return play_game(game, agents, rng)


@pytest.mark.parametrize("options, games", [({"preset": "dk", "target": 1000}, 600), ({"preset": "no", "target": 1000}, 600)])
def test_self_play_scores_the_solved_value(options, games, cache_dir):
    """Both seats play ``winprob`` (inferring their role in the round): seat 0's mean share is
    within 4 standard errors of the first player's solved chance."""
    sol = solved(options, cache_dir)
    agents = [tw.WinProbAgent(sol.game, cache_dir=cache_dir) for _ in range(2)]
    rng = np.random.default_rng(20261129)
    shares = np.array([play(sol.game, agents, rng) for _ in range(games)])
    se = shares.std(ddof=1) / np.sqrt(games)
    assert abs(shares.mean() - sol.value) < 4 * se


def test_agent_infers_its_role_in_the_round(cache_dir):
    sol = solved({"preset": "dk", "target": 1000}, cache_dir)
    game = sol.game
    agent = tw.WinProbAgent(game, cache_dir=cache_dir)
    start = game.initial_state()
    first = game.apply_chance(start, (1, 1, 1, 2, 3, 4))  # seat 0's first roll: it started
    legal = game.legal_actions(first)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[legal] = 1
    agent.act(game.observe(first, 0), mask)
    assert agent._role == 0
    agent.reset()
    second = game.apply_chance(game.apply_chance(start, (2, 2, 3, 3, 4, 6)), (1, 1, 1, 2, 3, 4))  # seat 0 bust
    agent.act(game.observe(second, 1), mask)
    assert agent._role == 1


def test_action_probabilities_put_everything_on_the_action(cache_dir):
    sol = solved({"preset": "no", "target": 1000}, cache_dir)
    game = sol.game
    agent = tw.WinProbAgent(game, cache_dir=cache_dir)
    rng = np.random.default_rng(3)
    state = game.initial_state()
    seen = 0
    while not game.is_terminal(state) and seen < 30:
        if game.is_chance(state):
            state = game.apply_chance(state, tuple(rng.integers(1, 7, game.num_dice_to_roll(state)).tolist()))
            continue
        seat = game.current_player(state)
        legal = game.legal_actions(state)
        mask = np.zeros(game.num_actions, dtype=np.int8)
        mask[legal] = 1
        obs = game.observe(state, seat)
        probs = agent.action_probabilities(obs, mask)
        action = agent.act(obs, mask)
        assert probs.dtype == np.float64 and probs.sum() == 1.0 and probs[action] == 1.0
        assert action in legal
        state = game.apply_action(state, action)
        seen += 1


def test_agent_takes_the_solutions_best_choice(cache_dir):
    """At a decision, the agent's action is the selection and roll/bank of greatest value."""
    sol = solved({"preset": "no", "target": 1000}, cache_dir)
    game = sol.game
    agent = tw.WinProbAgent(game, cache_dir=cache_dir)
    state = game.initial_state()._replace(totals=(600, 800), opened=(True, True))
    state = game.apply_chance(state, (1, 1, 1, 5, 5, 6))
    legal = game.legal_actions(state)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[legal] = 1
    action = agent.act(game.observe(state, 0), mask)
    values = {}
    for sel, value in game.selections(state.roll):
        roll, bank = sol.choice_values(12, 16, 0, 0, value // 50, 6 - len(sel))
        values[tt.encode_action(sel, False)] = roll
        if bank is not None:
            values[tt.encode_action(sel, True)] = bank
    assert values[action] == max(values.values())


# -- the command line's summary -------------------------------------------------------------------
def test_cli_summary(cache_dir):
    out = tw.cli_summary({"preset": "no", "target": 1000}, cache_dir=cache_dir, progress=False)
    sol = solved({"preset": "no", "target": 1000}, cache_dir)
    assert out["value"] == sol.value
    assert 0.5 < out["value"] < 0.7  # the first mover's edge
    assert any(f"{sol.value:.6f}" in line for line in out["lines"])
    assert out["error_bound"] < 1e-15 and out["peak_memory_mib"] > 0
    with pytest.raises(ValueError, match="num_players"):
        tw.cli_summary({"preset": "no", "num_players": 4}, cache_dir=cache_dir, progress=False)


def test_the_agent_announces_a_first_solve_in_one_line_and_a_cached_one_not_at_all(tmp_path, capsys):
    game = tw.make_game({"preset": "dk", "target": 500})
    tw.WinProbAgent(game, cache_dir=str(tmp_path))
    err = capsys.readouterr().err
    assert err.startswith("winprob: solving two-player 10 000 (dk, target 500) for the chance of winning once (")
    assert err.count("\n") == 1 and "\r" not in err  # no bar: a match's own bar and --quiet rule stderr
    tw.WinProbAgent(game, cache_dir=str(tmp_path))
    assert capsys.readouterr().err == ""


def test_a_solution_dropped_by_its_user_is_freed(cache_dir):
    # The last-turn tables a solution derives are cached on it, not in a process-wide cache
    # that would keep every solution it saw (and its tables) alive.
    import gc
    import weakref

    sol = tw.solve({"preset": "dk", "target": 1000}, cache_dir=cache_dir, progress=False)
    first = sol._below(10, 6)
    assert sol._below(10, 6) is first  # cached
    ref = weakref.ref(sol)
    del sol, first
    gc.collect()
    assert ref() is None


def test_a_penalty_solve_is_announced_with_its_own_time(tmp_path, capsys, monkeypatch):
    """farkle's bust-penalty solve takes about 40 minutes at 10 000; it was announced as the quick one's."""

    class Stop(Exception):
        pass

    def stop(*args, **kwargs):
        raise Stop

    monkeypatch.setattr(tw, "build_penalty", stop)
    with pytest.raises(Stop):
        tw.solve({"preset": "farkle"}, cache_dir=str(tmp_path), progress=True, bar=False)
    err = capsys.readouterr().err
    assert err.startswith("winprob: solving two-player 10 000 (farkle, target 10000) for the chance of winning once (")
    assert "with the bust penalty: about 1 min at target 1000, 4 at 2000, 15 at 5000, 40 at 10 000" in err
    assert "under a minute" not in err
