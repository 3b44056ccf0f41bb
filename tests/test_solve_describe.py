"""``dice-envs solve tenthousand --describe / --export`` and the honest bank lines of the summaries.

The values a situation prints are checked against computations that share no table with the
solvers: exhaustive recursions over the engine's own states (``chance_outcomes``, ``legal_actions``,
``apply_action``, the engine's returns at the end of the game) for the expected points of a turn
under an exact target and for the last turn of a game; for the chance of winning, the same
recursion over the rest of the turn with what follows it read from the solved start-of-turn table
``W`` (its Bellman equation, as in ``test_solver_tenthousand_win``). Situations are given in points
and the solver works in units of 50: the checks are in points.
"""

import csv
import json
from fractions import Fraction

import numpy as np
import pytest

from agents.solvers import cli
from agents.solvers import tenthousand as tts
from agents.solvers import tenthousand_win as tw
from dice_envs.games import tenthousand as tt
from tenthousand_turns import best_turn, share, solved

FLOOR = -500  # the penalty tests' floor: a solve at target 1000 in seconds


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("describe-cache"))




def run(capsys, *words):
    assert cli.main(list(words)) == 0
    out = capsys.readouterr().out.strip().splitlines()
    return out, json.loads(out[-1])


def by_action(described: dict) -> dict:
    return {row["action"]: row for row in described["choices"]}


# -- independent computations ------------------------------------------------------------------------
def engine_points(game: tt.Game, state: tt.State, mover: int, own: int) -> Fraction:
    """The expected points the turn of ``mover`` (who had banked ``own`` before it) adds from
    ``state`` under optimal play, exactly, by recursion over the engine's states. Only for
    ``exact_target``: a turn total past what reaches the target can add nothing (a bank past it
    scores 0, TT-9d), so the recursion is finite."""
    memo: dict = {}

    def value(s) -> Fraction:
        if game.is_terminal(s) or s.player != mover:  # the turn is over: what it added (a bust: 0)
            return Fraction(s.totals[mover] - own)
        if game.is_chance(s):
            if s.turn_total > game.target - own:
                return Fraction(0)
            key = (s.turn_total, s.to_roll)
            if key not in memo:
                memo[key] = sum((p * value(game.apply_chance(s, roll)) for roll, p in game.chance_outcomes(s)), Fraction(0))
            return memo[key]
        return max(value(game.apply_action(s, a)) for a in game.legal_actions(s))

    return value(state)


def engine_last_turn(game: tt.Game, state: tt.State) -> float:
    """The mover's chance of winning (a tie: 1/2) from ``state`` in the last turn of the game, by
    recursion over the engine's states to the end of the game and its returns."""
    mover = state.player

    def after(s):
        return share(game, s, mover)

    if game.is_terminal(state):
        return after(state)
    return best_turn(game, state, mover, after, sure=1.0, cap=game.target * 4)


def engine_win_values(sol: tw.Solution, state: tt.State, role: int) -> dict[str, float]:
    """The mover's chance of winning after each legal action at the decision ``state``, by
    recursion over the engine's states of the rest of the turn (one memo for all the actions);
    what follows the turn is read from the solution: ``W`` at the opponent's start, ``L`` for the
    opponent's last turn, the engine's returns at the end of the game.

    As :func:`tenthousand_turns.best_turn`: rolls are pruned only where an allowed bank is worth at
    least ``1 - P(6 dice bust)(1 - z)``, which no roll can beat, and turn totals past
    ``target + 25 000`` (hot-dice chains under 1e-20 likely) count as won."""
    game = sol.game
    mover = state.player
    a_points, b_points = state.totals[mover], state.totals[1 - mover]
    D1 = sol.L.shape[1] - 1
    pen = sol if isinstance(sol, tw.PenaltySolution) else None
    nxt = 0 if pen else int(sol.nexts[role])

    def opponent_start(s2) -> float:
        b, a = s2.totals[1 - mover] // 50, s2.totals[mover] // 50
        if pen:
            return float(pen.W[pen.index(b, a, (s2.opened[1 - mover], s2.opened[mover]),
                                         (s2.busts[1 - mover], s2.busts[mover]))])  # fmt: skip
        return float(sol.W[nxt, b, a])

    def after(s2) -> float:
        if game.is_terminal(s2):
            return share(game, s2, mover)
        if s2.turns_left is not None:  # the opponent's last turn (TT-8)
            ob = int(s2.opened[1 - mover]) if (pen and pen.FO == 2) else int(pen is not None or b_points > 0)
            return 1.0 - float(sol.L[ob, min((s2.totals[mover] - b_points) // 50, D1)])
        return 1.0 - opponent_start(s2)

    z = after(game.apply_chance(state._replace(roll=(), to_roll=6), (2, 2, 3, 3, 4, 6)))  # a bust
    sure = 1.0 - sol.rt.pbust[6] * (1.0 - z)
    cap = game.target + 500 * 50
    memo: dict = {}

    def chance(s) -> float:
        if s.turn_total > cap:
            return 1.0
        key = (s.turn_total, s.to_roll)
        if key not in memo:
            memo[key] = sum(float(p) * next_value(game.apply_chance(s, roll)) for roll, p in game.chance_outcomes(s))
        return memo[key]

    def next_value(s) -> float:
        if game.is_terminal(s) or s.player != mover:
            return after(s)
        return chance(s) if game.is_chance(s) else decide(s)

    def decide(d) -> float:
        legal = game.legal_actions(d)
        best = max((next_value(game.apply_action(d, x)) for x in legal if x % 2 == tt.BANK), default=-1.0)
        if best >= sure:
            return best
        return max([best] + [next_value(game.apply_action(d, x)) for x in legal if x % 2 == tt.ROLL])

    assert a_points < game.target
    return {game.action_to_string(state, x): next_value(game.apply_action(state, x)) for x in game.legal_actions(state)}


def choice_state(game: tt.Game, state: tt.State, action_text: str) -> tt.State:
    return game.apply_action(state, game.string_to_action(state, action_text))


# -- the situation's form ----------------------------------------------------------------------------
def test_a_situation_is_read_in_points_with_either_form_of_roll():
    s = tts.parse_situation(" own=9000, opp=9500 ,turn=350, roll=1 5 5 2,")
    assert (s.own, s.opp, s.turn, s.roll) == (9000, 9500, 350, (1, 2, 5, 5))
    assert tts.parse_situation("roll=2551,role=1,opened=no,busts=2,opp_opened=YES") == tts.Situation(
        roll=(1, 2, 5, 5), role=1, opened=False, busts=2, opp_opened=True
    )
    assert tts.parse_situation("roll=1,own=-500,turn=950").own == -500


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "no situation given; expected key=value pairs separated by commas, such as own=9000"),
        ("own=9000", "no roll= (the dice just rolled, such as roll=1552)"),
        ("roll=155,colour=red", "unknown key 'colour'; expected key=value pairs"),
        ("roll=155,roll=156", "roll is given twice"),
        ("roll=155,own", "'own' is not key=value"),
        ("roll=155,own=75", "own=75: every score is a multiple of 50 points"),
        ("roll=155,turn=-50", "turn=-50 is not a turn total, a whole number of points at least 0"),
        ("roll=157", "roll=157 is not a roll: 1 to 6 dice, faces 1..6"),
        ("roll=1555555", "roll=1555555 is not a roll"),
        ("roll=155,role=2", "role=2: give role=0 (the mover started the round) or role=1 (second)"),
        ("roll=155,opened=maybe", "opened=maybe: give opened=yes or opened=no"),
        ("roll=155,busts=x", "busts=x is not a number of busts in a row"),
    ],
)
def test_a_bad_situation_says_what_is_wrong_and_what_is_expected(text, message):
    with pytest.raises(ValueError) as caught:
        tts.parse_situation(text, "--describe")
    assert str(caught.value).startswith("--describe: ") and message in str(caught.value)


@pytest.mark.parametrize(
    "options, objective, text, message",
    [
        ({"preset": "dk"}, "turn", "turn=0,roll=15", "turn=0 (the turn's first roll) with 2 dice: a turn begins with all six"),
        ({"preset": "dk"}, "turn", "turn=300,roll=2346", "roll=2346 scores nothing: a bust ends the turn"),
        ({"preset": "dk"}, "turn", "own=10000,turn=300,roll=15", "own=10000: a player at or past the target (10000) plays no more turns"),
        ({"preset": "dk"}, "turn", "own=-500,turn=300,roll=15", "own=-500: a total falls below 0 only through a bust penalty"),
        ({"preset": "dk"}, "turn", "own=500,opened=no,turn=300,roll=15", "without a bust penalty a player is on the list exactly"),
        ({"preset": "farkle"}, "turn", "own=500,opened=no,turn=300,roll=15", "only a bank gives points"),
        ({"preset": "dk"}, "turn", "role=0,turn=300,roll=15", "role= is not used here: the expected points of a turn do not depend"),
        ({"preset": "farkle"}, "turn", "busts=1,turn=300,roll=15", "busts= is not used here: the one-turn solve leaves out the bust penalty"),
        ({"preset": "dk"}, "win", "turn=300,roll=15", "role=0|1 is needed under end=finish_round"),
        ({"preset": "dk"}, "win", "opp=10000,role=0,turn=300,roll=15", "only the second player (role=1) plays a last turn"),
        ({"preset": "no"}, "win", "role=1,turn=300,roll=15", "role= matters only under end=finish_round, not end=last_turn_each"),
        ({"preset": "no"}, "win", "busts=1,turn=300,roll=15", "busts= matters only with a bust penalty (TT-9e)"),
        ({"preset": "farkle"}, "win", "busts=3,turn=300,roll=15", "busts=3: busts in a row run 0..2"),
        ({"preset": "dk", "end": "immediate"}, "win", "opp=10000,turn=300,roll=15", "under end=immediate the game is over"),
    ],
)
def test_a_situation_no_game_reaches_or_a_key_not_used_is_refused(options, objective, text, message):
    game = tt.Game(**options)
    with pytest.raises(ValueError, match="^situation: ") as caught:
        tts.check_situation(game, tts.parse_situation(text), objective)
    assert message in str(caught.value)


def test_the_command_refuses_a_bad_situation_before_any_solve(capsys, tmp_path):
    from dice_envs.cli import main

    words = ["--cache-dir", str(tmp_path), "--no-progress"]
    assert main(["solve", "tenthousand", "--preset", "dk", "--objective", "win", "--describe", "turn=300,roll=15", *words]) == 2
    assert capsys.readouterr().err == (
        "dice-envs: --describe: role=0|1 is needed under end=finish_round: 0 if the mover started the round, "
        "1 if second (the best choice can differ)\n"
    )
    assert main(["solve", "tenthousand", "--describe", "roll=15,turn=300", "--banked", "500", "--opened", *words]) == 2
    assert "--opened with --describe: the situation gives the player's total and list" in capsys.readouterr().err
    assert main(["solve", "tenthousand", "--export", str(tmp_path / "map.txt"), *words]) == 2
    assert "--export writes a .csv or a .json file" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


# -- the expected points of a turn -------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, text",
    [
        ({"preset": "no", "exact_target": True}, "own=9700,turn=100,roll=155"),
        ({"preset": "no", "exact_target": True}, "own=9700,turn=200,roll=15"),  # banks that reach it exactly, or pass it
        ({"preset": "dk", "exact_target": True}, "own=9500,turn=0,roll=115523"),  # the turn's first roll
    ],
)
def test_turn_values_are_the_engines_exact_expected_points(options, text, cache_dir):
    game = tt.Game(**options)
    s = tts.parse_situation(text)
    described = tts.describe_situation(game, s, cache_dir=cache_dir)
    state = tts.situation_state(game, tts.check_situation(game, s), 0)
    assert len(described["choices"]) == len(game.legal_actions(state))
    for row in described["choices"]:
        expected = engine_points(game, choice_state(game, state, row["action"]), 0, state.totals[0])
        assert row["value"] == pytest.approx(float(expected), abs=1e-9), row["action"]
    values = [row["value"] for row in described["choices"]]
    assert values == sorted(values, reverse=True) and described["value"] == values[0]


def test_the_last_turn_is_valued_by_the_chance_of_ending_ahead(cache_dir):
    game = tt.Game(preset="no")
    s = tts.parse_situation("own=9000,opp=10000,turn=400,roll=15")
    described = tts.describe_situation(game, s, cache_dir=cache_dir)
    assert described["end_phase"] and "the chance of ending this last turn ahead of 10000" in described["lines"][1]
    state = tts.situation_state(game, tts.check_situation(game, s), 0)
    for row in described["choices"]:
        expected = engine_last_turn(game, choice_state(game, state, row["action"]))
        assert row["value"] == pytest.approx(expected, abs=1e-9), row["action"]
    assert by_action(described)["keep 15 bank"]["value"] == 0.0  # 9600 against 10 000: lost


# -- the chance of winning ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, text, role",
    [
        ({"preset": "dk", "target": 1000}, "own=500,opp=600,turn=100,roll=1255,role=0", 0),
        ({"preset": "dk", "target": 1000}, "own=500,opp=600,turn=100,roll=1255,role=1", 1),
        ({"preset": "dk", "target": 1000}, "own=850,opp=0,turn=0,roll=112345,role=0", 0),  # a bank reaches the target
        ({"preset": "no", "target": 1000}, "own=0,opp=900,turn=450,roll=15", 0),  # not on the list: 500 to open
        ({"preset": "no", "target": 1000}, "own=700,opp=1050,turn=100,roll=155", 0),  # the last turn
    ],
)
def test_win_values_satisfy_the_bellman_equation_on_engine_states(options, text, role, cache_dir):
    sol = solved(options, cache_dir)
    game = sol.game
    s = tts.parse_situation(text)
    described = tw.describe_situation(options, s, cache_dir=cache_dir)
    state = tts.situation_state(game, tts.check_situation(game, s, "win"), (game.first_starter + role) % 2)
    expected = engine_win_values(sol, state, role)
    assert {row["action"]: row["value"] for row in described["choices"]} == {
        action: pytest.approx(value, abs=1e-10) for action, value in expected.items()}


def test_win_values_with_a_bust_penalty_count_the_busts_and_the_floor(cache_dir):
    options = {"preset": "farkle", "target": 1000}
    sol = solved(options, cache_dir, FLOOR)
    game = sol.game
    s = tts.parse_situation("own=300,opp=-300,busts=2,opp_busts=1,turn=200,roll=1552")  # a third bust costs 500
    described = tw.describe_situation(options, s, cache_dir=cache_dir, floor=FLOOR)
    state = tts.situation_state(game, tts.check_situation(game, s, "win"), 0)
    expected = engine_win_values(sol, state, 0)
    tol = sol.gaps[-1] + 1e-12  # W is the bounds' midpoint
    assert {row["action"]: row["value"] for row in described["choices"]} == {
        action: pytest.approx(value, abs=tol) for action, value in expected.items()}
    # Below the floor the solved game is not the engine's (a total of -800 counts as -500): said.
    below = tw.describe_situation(options, tts.parse_situation("own=-800,opp=650,busts=1,roll=115523"),
                                  cache_dir=cache_dir, floor=FLOOR)  # fmt: skip
    assert below["lines"][2] == "  (the solved game floors totals at -500: a total below it counts as -500)"
    floored = tw.describe_situation(options, tts.parse_situation("own=-500,opp=650,busts=1,roll=115523"),
                                    cache_dir=cache_dir, floor=FLOOR)  # fmt: skip
    assert [row["value"] for row in below["choices"]] == [row["value"] for row in floored["choices"]]


def test_a_bank_is_worth_the_opponents_start_read_in_points(cache_dir):
    """The situation is in points and the table in units of 50: a bank of T from a total of A
    against B is worth 1 - start_value(B, A + T) for the opponent (start_value takes points)."""
    options = {"preset": "dk", "target": 1000}
    sol = solved(options, cache_dir)
    described = tw.describe_situation(options, tts.parse_situation("own=300,opp=450,turn=250,roll=1 5 5 2,role=0"),
                                      cache_dir=cache_dir)  # fmt: skip
    rows = by_action(described)
    assert rows["keep 155 bank"]["value"] == 1.0 - sol.start_value(450, 300 + 450, role=1)
    assert rows["keep 1 bank"]["value"] == 1.0 - sol.start_value(450, 300 + 350, role=1)
    assert rows["keep 155 bank"]["adds"] == 450 and rows["keep 155 bank"]["turn_total"] == 450


# -- the agent's choice is the best ------------------------------------------------------------------
def random_situations(game: tt.Game, rng, count: int, objective: str):
    """Situations of these rules at random: totals, turn totals and rolls (busts drawn again)."""
    T = game.target // 50
    found = 0
    while found < count:
        k = int(rng.integers(1, 7))
        turn = 0 if k == 6 and rng.random() < 0.5 else int(rng.integers(1, 30)) * 50
        roll = tuple(sorted(int(f) for f in rng.integers(1, 7, size=k)))
        if not game.selections(roll):
            continue
        low = -10 if game.bust_penalty else 0
        own, opp = (int(rng.integers(low, T)) * 50 for _ in range(2))
        if rng.random() < 0.15 and game.end != "immediate":
            opp = game.target + int(rng.integers(0, 20)) * 50  # the last turn
        parts = [f"own={own}", f"opp={opp}", f"turn={turn}", f"roll={tt.to_string(roll)}"]
        if objective == "win" and game.end == "finish_round" and opp < game.target:
            parts.append(f"role={int(rng.integers(0, 2))}")
        if objective == "win" and game.bust_penalty:
            parts += [f"busts={int(rng.integers(0, game.bust_penalty_after))}",
                      f"opp_busts={int(rng.integers(0, game.bust_penalty_after))}"]  # fmt: skip
        found += 1
        yield tts.parse_situation(",".join(parts))


@pytest.mark.parametrize(
    "options",
    [{"preset": "dk"}, {"preset": "no"}, {"preset": "farkle"}, {"preset": "no", "exact_target": True},
     {"preset": "dk", "over_threshold": True}, {"preset": "dk", "confirm_combinations": True},
     {"preset": "no", "num_players": 3}],
    ids=str,
)  # fmt: skip
def test_optimal_plays_the_best_choice_of_the_expected_points_turn(options, cache_dir):
    game = tt.Game(**options)
    rng = np.random.default_rng(5)
    for s in random_situations(game, rng, 12, "turn"):
        described = tts.describe_situation(game, s, cap=4000, cache_dir=cache_dir)
        played = [row for row in described["choices"] if row["agent"]]
        assert len(played) == 1 and played[0]["best"], (s, described["lines"])
        assert described["agent_choice"] == played[0]["action"]
        assert described["lines"][-1].startswith(f"optimal plays {played[0]['action']}, the best choice")


@pytest.mark.parametrize(
    "options, floor",
    [({"preset": "dk", "target": 1000}, tw.FLOOR), ({"preset": "no", "target": 1000}, tw.FLOOR),
     ({"preset": "dk", "target": 1000, "end": "immediate"}, tw.FLOOR), ({"preset": "farkle", "target": 1000}, FLOOR)],
    ids=str,
)  # fmt: skip
def test_winprob_plays_the_best_choice_for_the_chance_of_winning(options, floor, cache_dir):
    solved(options, cache_dir, floor)
    game = tw.make_game(options)
    rng = np.random.default_rng(11)
    for s in random_situations(game, rng, 25, "win"):
        described = tw.describe_situation(options, s, cache_dir=cache_dir, floor=floor)
        played = [row for row in described["choices"] if row["agent"]]
        assert len(played) == 1 and played[0]["best"], (s, described["lines"])


# -- the command -------------------------------------------------------------------------------------
def test_describe_prints_the_situation_instead_of_the_summary_and_gives_it_as_data(capsys, cache_dir):
    words = ["--preset", "dk", "--target", "1000", "--objective", "win", "--no-progress", "--cache-dir", cache_dir]
    lines, data = run(capsys, "tenthousand", *words, "--describe", "own=500,opp=600,turn=100,roll=1255,role=0", "--json")
    sol = solved({"preset": "dk", "target": 1000}, cache_dir)
    assert data["value"] == sol.value  # the summary's value, as with Meyer's --describe
    assert lines[:-1] == data["describe"] and lines[0].startswith("Two-player 10 000 (dk, target 1000): own 500, opponent 600")
    situation = data["situation"]
    assert (situation["own"], situation["opp"], situation["turn"], situation["roll"], situation["role"]) == (500, 600, 100, "1255", 0)
    assert situation["measure"] == "win probability" and situation["agent"] == "winprob"
    assert situation["opened"] is True and situation["busts"] is None  # no bust penalty: not part of the state
    choices = situation["choices"]
    assert [c["value"] for c in choices] == sorted((c["value"] for c in choices), reverse=True)
    assert situation["value"] == choices[0]["value"] and choices[0]["best"]
    # 500 banked: a bank needs 300 in the turn (TT-7), so only keep 155 (100 + 200) may bank
    assert {c["action"] for c in choices} == {"keep 1 roll", "keep 5 roll", "keep 15 roll", "keep 55 roll", "keep 155 roll",
                                              "keep 155 bank"}  # fmt: skip
    bank = next(c for c in choices if c["action"] == "keep 155 bank")
    assert (bank["keep"], bank["then"], bank["points"], bank["turn_total"], bank["dice_to_roll"], bank["adds"]) == (
        "155", "bank", 200, 300, None, 300)
    roll = next(c for c in choices if c["action"] == "keep 1 roll")
    assert (roll["then"], roll["turn_total"], roll["dice_to_roll"], roll["adds"]) == ("roll", 200, 3, None)
    line = next(line for line in lines if line.startswith("  keep 155 bank "))
    assert f"bank 300 " in line and f" {bank['value']:.6f}" in line


def test_describe_of_the_turn_sets_the_summarys_player(capsys, cache_dir):
    _, data = run(capsys, "tenthousand", "--preset", "no", "--exact-target", "true", "--describe",
                  "own=9500,turn=400,roll=15", "--json", "--no-progress", "--cache-dir", cache_dir)  # fmt: skip
    assert data["opened"] is True and data["banked"] == 9500
    assert data["value"] == pytest.approx(tts.solve(preset="no", exact_target=True, opened=True, banked=9500).value)
    rows = by_action(data["situation"])
    assert rows["keep 1 bank"]["value"] == 500 and rows["keep 1 bank"]["best"] and rows["keep 1 bank"]["agent"]
    assert rows["keep 15 bank"]["adds"] == 0 and rows["keep 15 bank"]["value"] == 0  # past the target: 0
    assert any("bank 550 (passes the target: scores 0)" in line for line in data["describe"])


# -- the bank lines of the one-turn summary (finding 9) ------------------------------------------------
def test_hot_dice_that_must_be_rolled_are_never_banked(capsys, cache_dir):
    lines, data = run(capsys, "tenthousand", "--preset", "dk", "--opened", "--json", "--no-progress", "--cache-dir", cache_dir)
    assert data["bank_from"]["6"] is None and data["bank_ranges"]["6"] == []
    assert "6 dice: never banked (six dice follow only hot dice, which must be rolled)" in lines[3]
    assert data["bank_from"]["1"] == 300 and data["bank_ranges"]["1"] == [[300, None]]
    _, no = run(capsys, "tenthousand", "--preset", "no", "--opened", "--json", "--no-progress", "--cache-dir", cache_dir)
    assert no["bank_from"]["6"] is not None  # no: a bank after hot dice is allowed


def engine_bank_ranges(game: tt.Game, banked: int) -> dict[int, list[tuple[int, int]]]:
    """Where a bank is worth at least as much as rolling on, by brute force on the engine (exact
    target: turn totals up to what reaches it)."""
    base = game.initial_state()._replace(totals=(banked, 0), opened=(True, False))
    out = {}
    for k in range(1, 7):
        banks = []
        for total in range(50, game.target - banked + 1, 50):
            roll_on = engine_points(game, base._replace(turn_total=total, to_roll=k), 0, banked)
            bank = total  # allowed: no opening for an opened player, min_bank 0
            if bank >= roll_on:
                banks.append(total)
        ranges: list[tuple[int, int]] = []
        for total in banks:
            if ranges and ranges[-1][1] == total - 50:
                ranges[-1] = (ranges[-1][0], total)
            else:
                ranges.append((total, total))
        out[k] = ranges
    return out


def test_under_an_exact_target_the_bank_range_ends_at_the_target(capsys, cache_dir):
    game = tt.Game(preset="no", exact_target=True)
    expected = engine_bank_ranges(game, 9500)
    lines, data = run(capsys, "tenthousand", "--preset", "no", "--exact-target", "true", "--opened", "--banked", "9500",
                      "--json", "--no-progress", "--cache-dir", cache_dir)  # fmt: skip
    assert {int(k): [tuple(r) for r in v] for k, v in data["bank_ranges"].items()} == expected
    assert expected[1] == [(150, 500)]  # the reviewer's reading: a bank from 150, but only up to the target
    assert "1 die: 150 to 500" in lines[3]
    assert lines[4] == ("  past 500 a bank passes the target and scores 0 (exact_target), and so does rolling on: "
                        "neither is counted as better there")  # fmt: skip


def test_export_of_the_turn_writes_the_bank_table(capsys, cache_dir, tmp_path):
    path = tmp_path / "sub" / "turn.csv"
    lines, data = run(capsys, "tenthousand", "--preset", "dk", "--opened", "--export", str(path), "--json", "--no-progress",
                      "--cache-dir", cache_dir)  # fmt: skip
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["dice"] for r in rows] == ["1", "2", "3", "4", "5", "6"]
    assert rows[0] == {"opened": "true", "banked": "0", "dice": "1", "bank_from": "300", "bank": "300+"}
    assert rows[5]["bank_from"] == "" and rows[5]["bank"] == ""
    assert data["export"]["rows"] == 6 and lines[-2].startswith(f"bank table: 6 rows written to {path}")


# -- the bank threshold map ----------------------------------------------------------------------------
def test_the_bank_map_says_where_a_bank_is_at_least_as_good_as_a_roll(capsys, cache_dir, tmp_path):
    options = {"preset": "dk", "target": 1000}
    sol = solved(options, cache_dir)
    words = ["--preset", "dk", "--target", "1000", "--objective", "win", "--no-progress", "--cache-dir", cache_dir]
    lines, data = run(capsys, "tenthousand", *words, "--export", str(tmp_path / "map.json"), "--json")
    assert data["export"]["rows"] == 2 * 20 * 20 == tw.bank_map_size(sol)
    assert lines[-2].startswith(f"bank threshold map: 800 rows written to {tmp_path / 'map.json'} (json;")
    rows = json.loads((tmp_path / "map.json").read_text())
    assert list(rows[0]) == list(tw.BANK_MAP_COLUMNS)
    run(capsys, "tenthousand", *words, "--export", str(tmp_path / "map.csv"), "--json")
    with open(tmp_path / "map.csv", newline="") as f:
        as_csv = list(csv.DictReader(f))
    assert [r["bank_2"] for r in as_csv] == [r["bank_2"] for r in rows]

    gaps = 0
    for row in rows:
        a, b, role = row["own"] // 50, row["opp"] // 50, row["role"]
        assert row["opened"] is None and row["busts"] is None
        assert row["bank_6"] == "" and row["bank_from_6"] is None  # dk: hot dice are rolled
        for n in range(1, 6):
            cell = row[f"bank_{n}"].split()
            gaps += len(cell) > 1
            banks = set()
            for part in cell:  # "700", "650-800", "950+"
                first, _, last = part.rstrip("+").partition("-")
                last = "100000" if part.endswith("+") else last or first
                banks.update(range(int(first), int(last) + 1, 50))
            assert row[f"bank_from_{n}"] == min(banks)
            # Against the solution's choice values (units of 50), one turn total at a time: a bank
            # of t made by keeping a single 5 (worth one unit) with n dice left.
            for t in range(row[f"bank_from_{n}"] // 50 - 3, row[f"bank_from_{n}"] // 50 + 35):
                if t < 1:
                    continue
                roll, bank = sol.choice_values(a, b, role, t - 1, 1, n)
                assert (t * 50 in banks) == (bank is not None and bank >= roll), (row, n, t)
    assert gaps > 0  # near the target the region has a gap: bank_from alone would mislead


def test_the_bank_map_of_a_penalty_game_has_a_row_per_busts_and_totals(cache_dir):
    options = {"preset": "farkle", "target": 1000}
    sol = solved(options, cache_dir, FLOOR)
    rows = list(tw.bank_map_rows(sol))
    assert len(rows) == tw.bank_map_size(sol) == 9 * 30 * 30  # busts 0..2 each, totals -500..950
    assert {(r["busts"], r["opp_busts"]) for r in rows} == {(i, j) for i in range(3) for j in range(3)}
    assert min(r["own"] for r in rows) == -500 and max(r["opp"] for r in rows) == 950
    row = next(r for r in rows if (r["own"], r["opp"], r["busts"], r["opp_busts"]) == (300, -300, 2, 1))
    for n in (1, 3, 6):
        t = row[f"bank_from_{n}"] // 50
        roll, bank = sol.choice_values(6, -6, 0, t - 1, 1, n % 6, busts=(2, 1))
        assert bank is not None and bank >= roll
        roll, bank = sol.choice_values(6, -6, 0, t - 2, 1, n % 6, busts=(2, 1))
        assert bank is None or bank < roll


def test_the_bank_map_keeps_the_lists_where_the_opening_differs_from_later_banks(tmp_path):
    options = {"preset": "no", "target": 500, "opening": 200, "bust_penalty": 100, "bust_penalty_after": 2}
    sol = tw.solve(options, cache_dir=str(tmp_path), progress=False, floor=-200)
    assert sol.FO == 2
    rows = list(tw.bank_map_rows(sol))
    # On the list: totals -200..450 (14); off it: only totals up to 0 (5), for each of 2 x 2 busts.
    assert len(rows) == tw.bank_map_size(sol) == 4 * (14 + 5) ** 2
    assert all(r["opened"] or r["own"] <= 0 for r in rows) and all(r["opp_opened"] or r["opp"] <= 0 for r in rows)
    for flags in ((False, True), (True, True)):
        row = next(r for r in rows if (r["own"], r["opp"], r["busts"], r["opp_busts"], r["opened"], r["opp_opened"])
                   == (0, 300, 1, 0, *flags))  # fmt: skip
        t = row["bank_from_1"] // 50
        assert row["bank_from_1"] >= (200 if not flags[0] else 50)  # the opening threshold, or any bank
        roll, bank = sol.choice_values(0, 6, 0, t - 1, 1, 1, opened=flags, busts=(1, 0))
        assert bank is not None and bank >= roll
        roll, bank = sol.choice_values(0, 6, 0, t - 2, 1, 1, opened=flags, busts=(1, 0))
        assert bank is None or bank < roll


# -- Syvere: no decision under a roll limit of 1 (finding 12) -------------------------------------------
def test_syvere_with_a_roll_limit_of_one_says_there_is_no_decision(capsys, tmp_path):
    lines, data = run(capsys, "syvere", "--roll-limit", "1", "--json", "--cache-dir", str(tmp_path))
    assert "stop thresholds: none: with a roll limit of 1 the turn ends after its one roll, there is no decision" in lines
    assert not any("rolls left" in line for line in lines) and data["stop_thresholds"] == {}
    lines, _ = run(capsys, "syvere", "--roll-limit", "2", "--json", "--cache-dir", str(tmp_path))
    assert any("rolls left" in line for line in lines)


# -- progress bars (dice_envs.progress.optional_progress_bar) ------------------------------------------
def test_the_win_solvers_bar_is_tqdm_when_installed_and_quiet_without(monkeypatch):
    import sys

    pytest.importorskip("tqdm")
    from tqdm import tqdm

    bar = tw._progress(10, "x", True)
    assert isinstance(bar, tqdm)
    bar.close()
    assert not isinstance(tw._progress(10, "x", False), tqdm)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # as if not installed
    quiet = tw._progress(10, "x", True)
    assert not isinstance(quiet, tqdm)
    quiet.update(1)
    quiet.close()


def test_the_turn_solve_shows_a_bar_only_when_asked_and_tqdm_is_there(capsys, monkeypatch, tmp_path):
    import sys

    pytest.importorskip("tqdm")
    assert cli.main(["tenthousand", "--cap", "1000", "--cache-dir", str(tmp_path)]) == 0
    assert "solving turn totals" in capsys.readouterr().err
    assert cli.main(["tenthousand", "--cap", "1050", "--no-progress", "--cache-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setitem(sys.modules, "tqdm", None)
    assert cli.main(["tenthousand", "--cap", "1100", "--cache-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().err == ""
