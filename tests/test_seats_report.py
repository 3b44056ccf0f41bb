"""Seats (push-your-luck review, findings 4 and 6): the first player's advantage is reported, with
intervals that do not count a deal's alike rotations as independent games; and agents are told
their seat in each game, so that ``winprob`` plays its true role in a ``dk`` round.

The expected numbers are recomputed here from the game records (grouping them into deals, and
Kish's effective sample size of the deals' mean shares), not read from :class:`SeatBreakdown`.
The table's interval is Wilson's with that effective number, at Student's t quantile with
``deals - 1`` degrees of freedom (:func:`_t975`), not capped at the games (review F5), and
Wilson's over the deals below 30 deals (20 before statistics review 10).
"""

from __future__ import annotations

import csv
import json
import re
import statistics

import numpy as np
import pytest

from dice_envs.cli import main
from evaluate.match import play_match
from evaluate.report import SEATS_CSV_COLUMNS, SeatBreakdown, report_json
from evaluate.stats import wilson
from evaluate.tournament import GameRecord, GameTask, build_agents, build_game, play_game, play_table, replay_states, run_tournament


def _t975(df: int) -> float:
    """Student's t 97.5% quantile, from scipy where it is installed (the dev extra), else from the
    package's own expansion (checked against scipy in tests/test_h2h_intervals.py)."""
    try:
        from scipy.stats import t
    except ImportError:
        from evaluate.stats import t_quantile_975

        return t_quantile_975(df)
    return float(t.ppf(0.975, df))


def _clustered(means: list[float]) -> tuple[int, tuple[float, float]]:
    """The effective number of games of the deals' mean shares (sample variance, never fewer than
    the deals) and the interval the table's row must have."""
    m, p = len(means), statistics.fmean(means)
    n_eff = max(m * p * (1 - p) / statistics.variance(means), m)
    count = round(n_eff)
    return count, wilson(p * count, count, z=_t975(m - 1))[1:]


def _deals(records) -> dict[tuple, list]:
    deals: dict[tuple, list] = {}
    for r in records:
        deals.setdefault((r.task.table_key, r.task.deal), []).append(r)
    return deals


# -- the breakdown ---------------------------------------------------------------------------------
def test_copies_of_a_deterministic_agent_on_common_dice_count_deals_not_games():
    """The review's trap: every rotation of a deal is the same game, so 2N games are N samples."""
    result = run_tournament(
        "tenthousand", ["heuristic", "heuristic"], games=60, seed=3, options={"target": 2000}, workers=1, progress=False
    )
    deals = _deals(result.records)
    assert len(deals) == 60 and all(len({json.dumps(r.log) for r in g}) == 1 for g in deals.values())  # premise
    seats = SeatBreakdown.of_result(result)
    assert (seats.games, seats.deals, seats.deals_compared, seats.deals_alike) == (120, 60, 60, 60)
    for s in (0, 1):
        won = sum(r.win_shares()[s] for r in result.records)  # each deal's result twice
        cell = seats.seat_share(s)
        assert cell.share == pytest.approx(won / 120) and cell.games == 120
        assert cell.samples == 60 and cell.unit == "effective"
        assert (cell.low, cell.high) == pytest.approx(wilson(won / 2, 60, z=_t975(59))[1:])
        as_games = wilson(won, 120)  # what counting the games would claim: too narrow
        assert cell.high - cell.low > 1.3 * (as_games[2] - as_games[1])
    # The copies' cells are the same games; the text says so and where to go instead.
    for s in (0, 1):
        assert seats.agent_share("heuristic", s).to_json() == seats.agent_share("heuristic#2", s).to_json()
    text = seats.text()
    assert "60 of 60 deals were the same game in every rotation" in text and "--dice independent" in text
    assert "60 deals, counted as 60" in text


def test_independent_dice_count_the_games():
    result = run_tournament(
        "tenthousand", ["heuristic", "heuristic"], games=60, seed=3, options={"target": 2000}, workers=1,
        progress=False, dice="independent",
    )  # fmt: skip
    seats = SeatBreakdown.of_result(result)
    assert seats.deals_alike == 0  # other dice in every rotation: other games
    for s in (0, 1):
        won = sum(r.win_shares()[s] for r in result.records)
        cell = seats.seat_share(s)
        assert (cell.samples, cell.unit) == (120, "games")
        assert (cell.share, cell.low, cell.high) == pytest.approx(wilson(won, 120))
    assert "independent dice" in seats.text() and "--dice independent" not in seats.text()


def test_different_agents_count_between_the_deals_and_the_games_by_how_the_rotations_differ():
    result = run_tournament(
        "tenthousand", ["heuristic", "greedy"], games=300, seed=1, options={"target": 3000}, workers=1, progress=False
    )
    seats = SeatBreakdown.of_result(result)
    deals = _deals(result.records)
    different = sum(len({json.dumps(r.log) for r in g}) for g in deals.values())  # a deal's alike rotations once
    assert seats.distinct_games == different
    for s in (0, 1):
        means = [sum(r.win_shares()[s] for r in g) / len(g) for g in deals.values()]
        p = statistics.fmean(means)
        expected, interval = _clustered(means)
        cell = seats.seat_share(s)
        assert cell.samples == expected and 300 < expected < 600  # the rotations differ, but not as independent games
        assert cell.share == pytest.approx(p)
        assert (cell.low, cell.high) == pytest.approx(interval)
    # An entrant's games in one seat are one per deal: independent, counted as games.
    for label in result.labels:
        for s in (0, 1):
            mine = [r.win_shares()[s] for r in result.records if r.seats[s] == label]
            cell = seats.agent_share(label, s)
            assert cell.games == len(mine) == 300 and cell.unit == "games"
            assert (cell.share, cell.low, cell.high) == pytest.approx(wilson(sum(mine), len(mine)))
    assert seats.seat_share(0).share + seats.seat_share(1).share == pytest.approx(1.0)


def _records(outcomes, vary: bool = False) -> list[GameRecord]:
    """Two rotations per deal, ending as ``outcomes[deal]`` says: the winning seats of both, or a
    pair of them (rotation 0's, rotation 1's); the rotations are one game (the same log) unless
    ``vary`` or their results differ."""
    records = []
    for deal, winners in enumerate(outcomes):
        pair = winners if isinstance(winners[0], tuple) else (winners, winners)
        for rotation in (0, 1):
            log = ["6", deal, *([rotation] if vary or pair[0] != pair[1] else [])]
            records.append(GameRecord(GameTask(0, ("a", "b"), deal, rotation), (0.0, 0.0), pair[rotation], (0, 0), log, 1))
    return records


def _seat0_means(outcomes) -> list[float]:
    def share(w):
        return 0.5 if len(w) == 2 else float(w == (0,))

    return [(share(w[0]) + share(w[1])) / 2 if isinstance(w[0], tuple) else share(w) for w in outcomes]


def test_the_table_interval_is_over_the_deals_and_not_capped_at_the_games():
    """The interval comes from the spread of the deals' averages (review F5: a cap at the different
    games printed a real first-player advantage as insignificant). Below 30 deals the spread is too
    uncertain, and the interval is Wilson's over the deals."""
    outcomes = [(0,)] * 4 + [(1,)] * 3 + [(0, 1)] * 3  # seat 0 wins, seat 1 wins, a tie
    for vary in (False, True):
        seats = SeatBreakdown.of_records(_records(outcomes, vary), ["a", "b"], 2)
        cell = seats.seat_share(0)
        assert (seats.deals_alike, seats.distinct_games) == ((0, 20) if vary else (10, 10))
        assert (cell.samples, cell.unit) == (10, "deals")  # 10 deals: Wilson's over them
        assert (cell.low, cell.high) == pytest.approx(wilson(cell.share * 10, 10)[1:])
    # 40 deals of those kinds, each one game in both rotations: a tie varies less than a win or a
    # loss, so the deals are worth more than themselves, and more than the 40 different games.
    outcomes = outcomes * 4
    expected, interval = _clustered(_seat0_means(outcomes))
    seats = SeatBreakdown.of_records(_records(outcomes), ["a", "b"], 2)
    cell = seats.seat_share(0)
    assert seats.distinct_games == 40 < expected < 80
    assert (cell.samples, cell.unit) == (expected, "effective")
    assert (cell.low, cell.high) == pytest.approx(interval)
    # Deals whose rotations split (each seat wins once: the dice favoured seat 0 in neither) are
    # worth more than their games: the interval is narrower than Wilson's over the games.
    split = [((0,), (1,))] * 30 + [(0,)] * 6 + [(1,)] * 4
    expected, interval = _clustered(_seat0_means(split))
    cell = SeatBreakdown.of_records(_records(split), ["a", "b"], 2).seat_share(0)
    assert expected > 80 and (cell.samples, cell.unit) == (expected, "effective")
    assert (cell.low, cell.high) == pytest.approx(interval)
    as_games = wilson(cell.share * 80, 80)
    assert cell.high - cell.low < as_games[2] - as_games[1]


def test_a_table_of_three_and_a_match_cut_short_inside_a_deal():
    game = build_game("syvere", {"num_players": 3})
    labels = ["heuristic", "random", "random#2"]
    agents = build_agents(game, ["heuristic", "random", "random"], labels)
    records = play_table(game, agents, labels, 20, seed=2)  # 6 deals of 3 and 2 games of a 7th
    seats = SeatBreakdown.of_records(records, labels, 3)
    assert (seats.games, seats.deals, seats.deals_compared) == (20, 7, 7)
    for label in labels:
        games = [seats.agent_share(label, s).games for s in range(3)]
        assert sum(games) == 20 and max(games) - min(games) <= 1
    assert sum(seats.seat_share(s).share for s in range(3)) == pytest.approx(1.0)
    # A match counts its games as they come, keeping only the deal it is in: the same breakdown.
    match = play_match("syvere", ["heuristic", "random", "random"], 20, seed=2)
    assert match.seats is not None and match.seats.to_json() == seats.to_json()
    assert not seats._pending and not match.seats._pending
    with pytest.raises(ValueError, match="finished"):
        seats.add(records[0])


def test_the_match_prints_and_returns_its_seats():
    result = play_match("syvere", ["heuristic", "random"], 11, seed=0)
    text = result.table()
    assert "by seat (win share, 95% Wilson interval; player_0 starts the game):" in text
    rows = {line.split()[0]: line for line in text.splitlines()[-8:]}
    for label, games in (("heuristic", "6/5"), ("random", "5/6")):  # 11 games: 6 in one seat, 5 in the other
        cells = [result.seats.agent_share(label, s) for s in (0, 1)]
        assert rows[label].startswith(f"{label} ") and all(c.text() in rows[label] for c in cells)
        assert rows[label].endswith(games)
    assert "table" in rows and "6 deals, counted as" in rows["table"]
    data = result.to_json()
    assert [a["label"] for a in data["agents"]] == ["heuristic", "random"] and data["games"] == 11
    assert data["seats"]["games"] == 11 and len(data["seats"]["by_seat"]) == 2
    json.dumps(data)  # JSON-able


def test_tournament_text_json_and_report_have_the_seats(tmp_path, capsys):
    report = tmp_path / "report"
    words = ["tournament", "syvere", "--agents", "heuristic", "random", "--games", "6", "--no-db", "--quiet",
             "--first-starter", "1", "--bootstrap", "0"]  # fmt: skip
    assert main([*words, "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "by seat (win share, 95% Wilson interval; player_1 starts the game):" in out
    assert re.search(r"\nagent +seat 0 +seat 1 \(starts\) +games per seat\n", out)
    assert "seats.csv" in out
    with open(report / "seats.csv") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert tuple(reader.fieldnames or ()) == SEATS_CSV_COLUMNS
    assert [(r["scope"], r["agent"], r["seat"], r["starts"]) for r in rows] == [
        ("agent", "heuristic", "0", "False"), ("agent", "heuristic", "1", "True"),
        ("agent", "random", "0", "False"), ("agent", "random", "1", "True"),
        ("table", "", "0", "False"), ("table", "", "1", "True"),
    ]  # fmt: skip
    assert all(r["games"] == "6" for r in rows[:4]) and rows[4]["games"] == "12" and rows[4]["deals"] == "6"
    data = json.loads((report / "report.json").read_text())
    assert data["seats"]["first_starter"] == 1 and set(data["seats"]["by_agent"]) == {"heuristic", "random"}
    assert float(rows[4]["win_share"]) == pytest.approx(data["seats"]["by_seat"][0]["share"], abs=1e-5)
    # --json: the same object on the last line, the text on stderr; no field of before is gone.
    assert main([*words, "--json"]) == 0
    captured = capsys.readouterr()
    last = json.loads(captured.out.strip().splitlines()[-1])
    assert "by seat" in captured.err
    assert last["seats"] == data["seats"]
    assert {"game", "ratings", "leaderboard", "games_total", "games_played_now"} <= set(last)


def test_report_json_makes_the_seats_itself_when_not_given():
    result = run_tournament("syvere", ["heuristic", "random"], games=3, workers=1, progress=False)
    from evaluate.ratings import leaderboard

    data = report_json(result, leaderboard(result.labels, result.records, bootstrap=0))
    assert data["seats"] == SeatBreakdown.of_result(result).to_json()


# -- agents told their seat --------------------------------------------------------------------------
class _Recorder:
    """The agent protocol's act and reset, and the optional set_seat: it records the calls."""

    def __init__(self, label: str, calls: list):
        self.label, self.calls = label, calls

    def reset(self, seed=None):
        self.calls.append((self.label, "reset"))

    def set_seat(self, seat):
        self.calls.append((self.label, "seat", seat))

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


class _NoHook:
    """An agent with only act and reset (as user classes may be): still played."""

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[-1])


def test_every_game_tells_each_agent_its_seat_after_resetting_it():
    game = build_game("syvere", {"num_players": 3})
    calls: list = []
    labels = ["a", "b", "c"]
    agents = {label: _Recorder(label, calls) for label in labels}
    records = play_table(game, agents, labels, 7, seed=0)
    per_game = len(calls) // 7
    assert per_game == 6
    for g, record in enumerate(records):
        these = calls[g * per_game : (g + 1) * per_game]
        assert [c for c in these if c[1] == "reset"] == these[:3]  # every reset first
        assert sorted(c for c in these if c[1] == "seat") == sorted((label, "seat", record.seats.index(label)) for label in labels)
    # An agent without the hook is played as before.
    plain = {"a": _NoHook(), "b": _NoHook()}
    assert len(play_table(build_game("syvere", {}), plain, ["a", "b"], 2, seed=0)) == 2


def test_dice_envs_play_tells_the_other_seats_their_seat(monkeypatch):
    import dice_envs.play as play_module

    calls: list = []
    monkeypatch.setattr(play_module, "make_agent", lambda game, spec, seed=None: _Recorder(spec, calls))
    play_module.play("syvere", {"num_players": 3}, seat=1, opponents=["x", "y"], seed=0, read=lambda _: "q",
                     write=lambda _: None)  # fmt: skip
    assert ("x", "seat", 0) in calls and ("y", "seat", 2) in calls


#: Deal 1431 of the table (optimal, winprob), seed 0, dk to 2000: in rotation 1 winprob sits at seat
#: 0, busts on its first roll, and optimal opens at once (found by playing the table's deals).
CASE = GameTask(0, ("optimal", "winprob"), 1431, 1)
DK_2000 = {"preset": "dk", "target": 2000, "num_players": 2}


@pytest.fixture(scope="module")
def dk_agents():
    from agents import make_agent
    from agents.solvers.tenthousand_win import WinProbAgent

    game = build_game("tenthousand", DK_2000)
    return game, {"optimal": make_agent(game, "optimal"), "winprob": WinProbAgent(game)}


def test_winprob_in_a_tournament_plays_its_true_role_after_a_first_roll_bust(dk_agents):
    """Review finding 6: seat 0 busts on its first roll, seat 1 opens; the agent inferred from its
    observation that it was second in the round. Told its seat, it plays as the round's starter:
    move for move as an agent built with ``seat=0``."""
    from agents.solvers.tenthousand_win import WinProbAgent

    game, agents = dk_agents
    assert CASE.seats == ("winprob", "optimal")
    record = play_game(game, agents, CASE)
    events = list(replay_states(game, record.log))
    # The premise: a first roll without scoring dice by seat 0, then seat 1 opens in its first turn.
    assert isinstance(events[0][0], str) and not game.selections(tuple(map(int, events[0][0])))
    first_of_seat_0 = next(k for k, (e, b, _) in enumerate(events) if not isinstance(e, str) and b.player == 0)
    before = events[first_of_seat_0][1]
    assert before.opened == (False, True) and before.totals[0] == 0
    # From that observation alone an agent would take itself for the second in the round.
    guessing = WinProbAgent(game)
    assert guessing._infer_role(game.observe(before, 0)) == 1
    # In the tournament's game it plays as the starter, as an agent constructed with seat=0 does.
    assert agents["winprob"]._role == 0
    told = play_game(game, {**agents, "winprob": WinProbAgent(game, seat=0)}, CASE)
    assert told.log == record.log
    # ... which is not how it played when it guessed: here the role changes the game (and its winner).
    try:
        agents["winprob"].set_seat = lambda seat: None  # the hook off, as before
        guessed = play_game(game, agents, CASE)
        assert agents["winprob"]._role == 1
    finally:
        del agents["winprob"].set_seat
    assert guessed.log != record.log
    assert record.returns == (1.0, -1.0) and guessed.returns == (-1.0, 1.0)


def test_the_seat_hook_holds_for_one_game_and_overrides_the_constructors_seat(dk_agents):
    from agents.solvers.tenthousand_win import WinProbAgent

    game, agents = dk_agents
    agent = WinProbAgent(game, seat=1)  # told once, at construction
    play_game(game, {**agents, "winprob": agent}, CASE)  # the game's seat is 0: it wins over seat=1
    assert agent._role == 0
    agent.reset()
    assert agent._game_seat is None  # forgotten: the next game uses seat=1 again unless told
    with pytest.raises(ValueError, match="seat must be 0 or 1, got 2"):
        agent.set_seat(2)
