"""Tournament formats (issue 10, items 1-2): tables, seat balance, common dice, determinism."""

from __future__ import annotations

import itertools
import os
import signal
from collections import Counter

import numpy as np
import pytest

from dice_envs import dice as dice_mod
from evaluate.tournament import (
    GameTask,
    KeyedDice,
    deal_order,
    Moments,
    build_agents,
    build_game,
    make_labels,
    play_game,
    replay_states,
    run_tournament,
    schedule,
    workers_used,
)


def rolls_by_moment(game, log):
    """((turn, roll within the turn), dice) of every roll of a stored log."""
    moments = Moments(game)
    return [
        (moments.next(before), dice_mod.normalize(event))
        for event, before, _ in replay_states(game, log)
        if isinstance(event, str)
    ]


def roller_by_moment(game, log):
    """(turn, roll) -> the seat whose dice they are."""
    moments = Moments(game)
    return {
        moments.next(before): game.current_player(before)
        for event, before, _ in replay_states(game, log)
        if isinstance(event, str)
    }


@pytest.mark.parametrize("entrants, seats", [(5, 3), (4, 2), (4, 4), (6, 4)])
def test_every_entrant_in_every_seat_equally_often_and_every_pair_meets(entrants, seats):
    labels = [f"a{i}" for i in range(entrants)]
    tasks = schedule(labels, seats, games=3, seed=7)
    from math import comb

    assert len(tasks) == comb(entrants, seats) * 3 * seats
    seat_counts = Counter((label, s) for t in tasks for s, label in enumerate(t.seats))
    assert set(seat_counts) == {(label, s) for label in labels for s in range(seats)}
    assert len(set(seat_counts.values())) == 1  # every (entrant, seat) equally often
    pair_counts = Counter(frozenset(p) for t in tasks for p in itertools.combinations(t.seats, 2))
    assert set(pair_counts) == {frozenset(p) for p in itertools.combinations(labels, 2)}
    assert len(set(pair_counts.values())) == 1  # every pair meets equally often
    assert len({t.key for t in tasks}) == len(tasks)


def test_adding_an_entrant_keeps_the_old_games():
    old = {t.key for t in schedule(["a", "b", "c"], 2, games=4, seed=1)}
    new = {t.key for t in schedule(["c", "a", "d", "b"], 2, games=4, seed=1)}
    assert old < new
    assert all("d" in key[2].split("|") for key in new - old)


def test_rotations_seat_entrant_i_of_the_deal_order_at_seat_i_plus_r():
    pair = GameTask(0, ("a", "b"), 0, 1)
    assert pair.seats == ("b", "a")  # two players: the table's own order
    for deal in range(5):
        order = deal_order(0, ("a", "b", "c"), deal)
        for r in range(3):
            seats = GameTask(0, ("a", "b", "c"), deal, r).seats
            assert [seats.index(label) for label in order] == [(i + r) % 3 for i in range(3)]


def test_each_deal_of_a_larger_table_draws_its_order_and_labels_do_not_set_it():
    # Who plays after whom used to be the labels' sort order in every deal: renaming an entrant
    # changed its neighbours, and a 3-player Meyer result moved from 0.85 to 0.52.
    table = ("a", "b", "c", "d")
    orders = [deal_order(7, table, deal) for deal in range(2400)]

    def cyclic(order):
        k = order.index("a")
        return order[k:] + order[:k]

    # every block of 3! = 6 deals plays each cyclic order (24 permutations / 4 rotations) once
    for block in range(0, 2400, 6):
        assert len({cyclic(o) for o in orders[block : block + 6]}) == 6
    counts = Counter(cyclic(o) for o in orders)
    assert len(counts) == 6 and set(counts.values()) == {400}
    # ... in an order that changes from block to block
    assert len({tuple(orders[b : b + 6]) for b in range(0, 2400, 6)}) > 100
    # a renamed entrant gets an unrelated sequence of orders, not one fixed by where it sorts
    renamed = [deal_order(7, ("b", "c", "d", "zz"), deal) for deal in range(2400)]
    assert Counter(cyclic(tuple("a" if x == "zz" else x for x in o)) for o in renamed).keys() == counts.keys()
    # the same key gives the same order in every process (keyed, not drawn from a stream)
    assert deal_order(7, table, 3) == deal_order(7, table, 3)


def test_bad_schedules_are_refused():
    with pytest.raises(ValueError, match="at least 3 agents"):
        schedule(["a", "b"], 3, games=1, seed=0)
    with pytest.raises(ValueError, match="--games"):
        schedule(["a", "b"], 2, games=0, seed=0)
    with pytest.raises(ValueError, match="--seed"):
        schedule(["a", "b"], 2, games=1, seed=-1)
    with pytest.raises(ValueError, match="dice"):
        schedule(["a", "b"], 2, games=1, seed=0, dice="loaded")


def test_labels_are_unique_and_readable():
    assert make_labels("meyer", ["bluffer: lie_probability=0.3", "random", "random", "random"]) == [
        "bluffer:lie_probability=0.3",
        "random",
        "random#2",
        "random#3",
    ]
    with pytest.raises(ValueError, match="choose from"):
        make_labels("syvere", ["heuristic", "no_such_agent"])


def test_keyed_dice_are_fair_and_a_function_of_the_moment():
    dice = KeyedDice("test", 1)
    assert dice.roll(6, (3, 1)) == KeyedDice("test", 1).roll(6, (3, 1))
    assert len({dice.roll(6, (3, r)) for r in range(5)}) > 1
    faces = Counter(f for t in range(10_000) for f in dice.roll(6, (t, 0)))
    n = 60_000
    # each face: n/6 = 10000, sd = sqrt(n * 1/6 * 5/6) ~ 91; 5 sd is a fixed-key check, not a flake
    assert all(abs(faces[f] - n / 6) < 5 * 91 for f in range(1, 7)), faces


@pytest.mark.parametrize(
    "game_name, specs, options",
    [
        ("syvere", ["heuristic", "random"], {}),
        ("tenthousand", ["heuristic", "greedy"], {}),
        ("meyer", ["doubter", "bluffer"], {"blind_reroll": True}),
    ],
)
def test_common_dice_replay_the_same_rolls_in_permuted_seats(game_name, specs, options):
    game = build_game(game_name, {**options, "num_players": 2})
    labels = make_labels(game_name, specs)
    agents = build_agents(game, specs, labels)
    table = tuple(sorted(labels))
    shared_turn_starts = 0
    for deal in range(6):
        games = [play_game(game, agents, GameTask(5, table, deal, r)) for r in range(2)]
        assert games[0].seats == games[1].seats[::-1]
        rolls = [dict(rolls_by_moment(game, g.log)) for g in games]
        common = set(rolls[0]) & set(rolls[1])
        assert (0, 0) in common
        # Two players: turn t is the same seat's in both seatings, so the entrants swap dice.
        rollers = [roller_by_moment(game, g.log) for g in games]
        assert all(rollers[0][m] == rollers[1][m] for m in common)
        for moment in common:
            a, b = rolls[0][moment], rolls[1][moment]
            if moment[1] == 0:
                # a turn's first roll: the same dice in both seatings
                assert a == b, (moment, a, b)
                shared_turn_starts += 1
        independent = [
            play_game(game, agents, GameTask(5, table, deal, r, dice="independent")) for r in range(2)
        ]
        if deal < 3:
            other = [dict(rolls_by_moment(game, g.log)) for g in independent]
            # With independent dice each rotation has its own (over the first few turns).
            starts = [m for m in set(other[0]) & set(other[1]) if m[1] == 0]
            assert any(other[0][m] != other[1][m] for m in starts)
    assert shared_turn_starts >= 12


def test_turns_are_numbered_as_the_rules_have_them():
    # Syvere: every turn begins with a roll of six dice (SY-3), at most 3 rolls a turn (SY-6).
    game = build_game("syvere", {"num_players": 3})
    agents = build_agents(game, ["random"] * 3, ["a", "b", "c"])
    record = play_game(game, agents, GameTask(0, ("a", "b", "c"), 0, 0))
    moments = rolls_by_moment(game, record.log)
    for (turn, roll), dice in moments:
        if roll == 0:
            assert len(dice) == 6
        assert roll < 3
    turns = [m[0] for m, _ in moments]
    assert sorted(set(turns)) == list(range(max(turns) + 1))
    # 10 000: a turn begins with six dice; hot dice (six again) stay in the same turn (TT-4).
    game = build_game("tenthousand", {"num_players": 2})
    agents = build_agents(game, ["greedy", "heuristic"], ["a", "b"])
    for deal in range(4):
        record = play_game(game, agents, GameTask(0, ("a", "b"), deal, 0))
        for (turn, roll), dice in rolls_by_moment(game, record.log):
            if roll == 0:
                assert len(dice) == 6


def test_results_do_not_depend_on_the_number_of_workers():
    kwargs = dict(games=6, seed=3, progress=False)
    one = run_tournament("meyer", ["honest", "bluffer", "random"], workers=1, **kwargs)
    two = run_tournament("meyer", ["honest", "bluffer", "random"], workers=2, **kwargs)
    assert [r.task for r in one.records] == [r.task for r in two.records]
    assert [(r.log, r.returns) for r in one.records] == [(r.log, r.returns) for r in two.records]
    assert one.played_now == two.played_now == 3 * 6 * 2
    assert (one.workers, two.workers) == (1, 2)  # 36 games are enough for a pool of 2


def test_the_result_counts_the_workers_that_played_not_those_asked_for(tmp_path):
    db = str(tmp_path / "m.sqlite")
    kwargs = dict(games=2, seed=3, progress=False, db=db)
    first = run_tournament("meyer", ["honest", "bluffer"], workers=8, **kwargs)
    assert first.played_now == 4 and first.workers == 1  # a pool is not worth it for 4 games
    again = run_tournament("meyer", ["honest", "bluffer"], workers=8, **kwargs)
    assert again.played_now == 0 and again.workers == 0
    assert workers_used(8, 100) == 6 and workers_used(8, 100, backend="ray") == 8
    assert workers_used(8, 3, backend="ray") == 3 and workers_used(2, 0) == 0


def test_multi_player_tables_default_to_the_number_of_entrants_if_fewer():
    result = run_tournament("syvere", ["heuristic", "random", "random"], games=2, num_players=3, workers=1, progress=False)
    assert result.num_players == 3 and len(result.records) == 2 * 3
    assert all(sorted(r.seats) == sorted(result.labels) for r in result.records)
    two = run_tournament("syvere", ["heuristic", "random", "random"], games=1, workers=1, progress=False)
    assert two.num_players == 2 and len(two.records) == 3 * 1 * 2


def test_win_shares_follow_the_returns():
    game = build_game("syvere", {"num_players": 3})
    agents = build_agents(game, ["random"] * 3, ["a", "b", "c"])
    for deal in range(5):
        record = play_game(game, agents, GameTask(1, ("a", "b", "c"), deal, 0))
        shares = record.win_shares()
        assert sum(shares) == pytest.approx(1.0)
        assert [s > 0 for s in shares] == [r > 0 or not any(record.returns) for r in record.returns]


def test_a_match_is_one_table_played_in_rotation_order():
    from evaluate.tournament import play_table

    game = build_game("syvere", {"num_players": 3})
    labels = ["heuristic", "random", "random#2"]
    agents = build_agents(game, ["heuristic", "random", "random"], labels)
    seen = []
    five = play_table(game, agents, labels, 5, seed=4, on_game=lambda g, r: seen.append(g))
    assert seen == [0, 1, 2, 3, 4]
    for g, record in enumerate(five):
        order = deal_order(4, tuple(labels), g // 3)
        assert record.seats.index(order[0]) == g % 3  # entrant i of the deal's order at seat (i + g) % n
        assert (record.task.deal, record.task.rotation) == (g // 3, g % 3)
    two = play_table(game, agents, labels, 2, seed=4)
    assert [r.log for r in two] == [r.log for r in five[:2]]  # game g does not depend on the count
    # ... and is the tournament's game of that deal and rotation.
    assert five[4].log == play_game(game, agents, GameTask(4, tuple(labels), 1, 1)).log


class _AlwaysDoubt:
    """A broken Meyer agent: it doubts even when there is nothing to doubt."""

    def __init__(self, game, seed=None):
        pass

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask):
        return 0


def test_an_illegal_action_names_the_agent_its_seat_and_game(monkeypatch, tmp_path):
    import agents
    from dice_envs.cli import main

    monkeypatch.setitem(agents.AGENTS["meyer"], "alwaysdoubt", _AlwaysDoubt)
    with pytest.raises(Exception) as caught:
        run_tournament("meyer", ["honest", "alwaysdoubt"], 2, seed=0, workers=1, progress=False)
    assert isinstance(caught.value, RuntimeError)
    message = str(caught.value)
    assert message.startswith("agent 'alwaysdoubt' at seat ")
    assert "(table alwaysdoubt|honest, deal 0, rotation " in message
    assert "played an illegal action: illegal action 0 in meyer" in message
    # the command line: one line naming the agent, exit 1 (the command could not finish)
    db = str(tmp_path / "m.sqlite")
    assert main(["tournament", "meyer", "--agents", "honest", "alwaysdoubt", "--games", "2", "--db", db, "--quiet"]) == 1


class _IllegalInOneGame:
    """Plays like ``random`` but doubts at the start of the one game whose agent seed it is given."""

    target_seed: int | None = None

    def __init__(self, game, seed=None):
        self.rng = np.random.default_rng(seed)
        self.broken = False

    def reset(self, seed=None):
        self.rng = np.random.default_rng(seed)
        self.broken = seed == type(self).target_seed

    def act(self, observation, action_mask):
        if self.broken:
            return 0  # no claim to doubt at the start of a round: illegal
        return int(self.rng.choice(np.flatnonzero(action_mask)))


@pytest.mark.parametrize("workers", [1, 2])
def test_with_several_workers_every_game_finished_before_an_illegal_action_is_kept(monkeypatch, workers):
    import agents
    from evaluate.tournament import AgentFailed, keyed_seed, play_tasks, schedule

    monkeypatch.setitem(agents.AGENTS["meyer"], "illegalonce", _IllegalInOneGame)
    labels = ["honest", "illegalonce"]
    tasks = schedule(labels, 2, games=300, seed=3)
    failing = next(i for i, t in enumerate(tasks) if t.deal == 95 and t.rotation == 0)
    task = tasks[failing]
    monkeypatch.setattr(
        _IllegalInOneGame, "target_seed", keyed_seed("agent", task.seed, task.table_key, task.deal, "illegalonce")
    )
    stored: list = []
    with pytest.raises(AgentFailed, match=r"deal 95, rotation 0\) played an illegal action"):
        play_tasks("meyer", {"num_players": 2}, labels, labels, tasks, workers=workers, on_records=stored.extend)
    keys = {r.task.key for r in stored}
    assert len(keys) == len(stored)
    assert task.key not in keys
    # Every game before it in the schedule was finished and is kept (the pool's chunk of 18 games
    # used to be lost with the failure, and so were chunks finished alongside it).
    assert {t.key for t in tasks[:failing]} <= keys


class _Odd(Exception):
    def __init__(self, a, b):  # pickle cannot rebuild it from its args
        super().__init__(f"{a}-{b}")


class _BuggyInOneGame(_IllegalInOneGame):
    """A user's agent with a bug that shows in one game: a KeyError, an exception pickle cannot
    rebuild, or the process killed (as out of memory would)."""

    how = "keyerror"

    def act(self, observation, action_mask):
        if self.broken:
            if self.how == "keyerror":
                raise KeyError("a bug in the agent")
            if self.how == "odd":
                raise _Odd(1, 2)
            os.kill(os.getpid(), signal.SIGKILL)
        return super().act(observation, action_mask)


@pytest.mark.parametrize("how", ["keyerror", "odd", "killed"])
def test_a_bug_in_a_worker_is_reported_with_its_traceback_and_never_hangs(monkeypatch, how):
    import agents
    from dice_envs.cli import CommandFailed
    from evaluate.tournament import keyed_seed, play_tasks, schedule

    monkeypatch.setitem(agents.AGENTS["meyer"], "buggy", _BuggyInOneGame)
    monkeypatch.setattr(_BuggyInOneGame, "how", how)
    labels = ["buggy", "honest"]
    tasks = schedule(labels, 2, games=300, seed=3)
    task = next(t for t in tasks if t.deal == 120)
    monkeypatch.setattr(
        _BuggyInOneGame, "target_seed", keyed_seed("agent", task.seed, task.table_key, task.deal, "buggy")
    )
    expected = {"keyerror": KeyError, "odd": RuntimeError, "killed": CommandFailed}[how]
    with pytest.raises(expected) as caught:
        play_tasks("meyer", {"num_players": 2}, labels, labels, tasks, workers=2)
    if how == "keyerror":  # the worker's frames travel with it, as the pool would send them
        assert "in act" in str(caught.value.__cause__) and "a bug in the agent" in str(caught.value.__cause__)
    elif how == "odd":
        assert str(caught.value) == "_Odd: 1-2"
    else:
        assert "a worker process died" in str(caught.value)


def test_a_pool_that_played_every_game_is_closed_not_terminated(monkeypatch):
    """Pool.terminate sends SIGTERM, which a worker still starting can lose (Python clears signals
    that reach a child before its after-fork setup): it then waited for games for ever on a lock
    terminate holds, and the run hung (about 1 run in 8 of these tests on 2 cores). A pool whose
    games are all played is sent the end of its work instead: every worker leaves by itself."""
    import multiprocessing.pool

    def no_terminate(self):
        raise AssertionError("Pool.terminate called after every game was played")

    monkeypatch.setattr(multiprocessing.pool.Pool, "terminate", no_terminate)
    result = run_tournament("meyer", ["honest", "bluffer", "random"], games=6, seed=3, workers=2, progress=False)
    assert result.workers == 2 and result.played_now == 36
