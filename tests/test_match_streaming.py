"""Issue 10: a match is one table of a tournament, played by the same engine-level loop, streamed.

``evaluate.match.play_match`` plays through ``evaluate.tournament.play_table``, which makes each
game's task, plays it with ``play_game`` (keyed dice) and hands its record on before making the
next one, keeping nothing when asked to.
"""

from __future__ import annotations

import itertools
import sys

import pytest

from evaluate.match import play_match
from evaluate.stats import wilson
from evaluate.tournament import GameTask, build_agents, deal_order, build_game, make_labels, play_game, play_table, run_tournament, table_tasks


def test_match_game_g_is_the_tournament_game_of_deal_g_div_n_and_rotation_g_mod_n():
    # match's labels are the tournament's: a repeated SPEC is NAME, NAME#2, ...
    labels = make_labels("syvere", ["heuristic", "random", "random"])
    assert labels == ["heuristic", "random", "random#2"]
    per_game = []
    result = play_match(
        "syvere", ["heuristic", "random", "random"], 7, seed=5, on_game=lambda g, r: per_game.append((g, r))
    )
    assert [g for g, _ in per_game] == list(range(7))
    game = build_game("syvere", {"num_players": 3})
    agents = build_agents(game, ["heuristic", "random", "random"], labels)
    for g, returns in per_game:
        record = play_game(game, agents, GameTask(5, tuple(labels), g // 3, g % 3))
        # The entrants' returns, in the order given; entrant i of the deal's order sat at seat (i + g) % 3.
        assert returns == tuple(record.returns[record.seats.index(label)] for label in labels)
        assert record.seats.index(deal_order(5, tuple(labels), g // 3)[0]) == g % 3
    # The records are the running sums of exactly those games.
    for i, rec in enumerate(result.records):
        assert rec.label == labels[i] and rec.games == 7
        assert rec.return_sum == pytest.approx(sum(r[i] for _, r in per_game))
    # So a match is the tournament's table of the same SPECs, game for game.
    tournament = run_tournament("syvere", ["heuristic", "random", "random"], 3, seed=5, num_players=3, progress=False)
    assert tournament.labels == labels


def test_the_rotations_of_a_deal_meet_the_same_first_roll_and_deals_differ():
    game = build_game("syvere", {"num_players": 2})
    labels = ["heuristic", "random"]
    agents = build_agents(game, labels, labels)
    records = play_table(game, agents, labels, 6, seed=3)
    first_rolls = [r.log[0] for r in records]
    assert first_rolls[0] == first_rolls[1] and first_rolls[2] == first_rolls[3] and first_rolls[4] == first_rolls[5]
    # Independent dice key the rotation too; the deals of a common-dice table are not one deal repeated.
    assert len({tuple(r.log) for r in records}) == 6
    independent = play_table(game, agents, labels, 2, seed=3, dice="independent")
    assert independent[0].log[0] != independent[1].log[0]


def test_play_table_streams_and_keeps_nothing_when_asked():
    game = build_game("meyer", {})
    labels = ["doubter", "honest"]
    agents = build_agents(game, labels, labels)
    seen = []
    kept = play_table(game, agents, labels, 9, seed=1, on_game=lambda g, r: seen.append((g, r)))
    assert [g for g, _ in seen] == list(range(9)) and [r for _, r in seen] == kept
    streamed = []
    assert play_table(game, agents, labels, 9, seed=1, keep=False, on_game=lambda g, r: streamed.append(r)) == []
    assert [r.log for r in streamed] == [r.log for r in kept]  # same games, none of them kept


def test_a_table_of_100_billion_games_is_made_one_game_at_a_time():
    tasks = table_tasks(["a", "b", "c"], 10**11, seed=0)
    assert not isinstance(tasks, (list, tuple))
    first = list(itertools.islice(tasks, 4))
    x, y, z = deal_order(0, ("a", "b", "c"), 0)
    assert [(t.deal, t.rotation, t.seats) for t in first] == [
        (0, 0, (x, y, z)),
        (0, 1, (z, x, y)),
        (0, 2, (y, z, x)),
        (1, 0, deal_order(0, ("a", "b", "c"), 1)),
    ]
    assert sys.getsizeof(tasks) < 1000


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_games": 0}, "num_games must be a whole number >= 1"),
        ({"seed": -1}, "seed must be a whole number >= 0"),
        ({"dice": "loaded"}, "dice must be one of common, independent"),
        ({"labels": ["a", "a"]}, "unique labels"),
    ],
)
def test_table_tasks_refuses_bad_input_at_the_call(kwargs, message):
    args = {"labels": ["a", "b"], "num_games": 3, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        table_tasks(**args)  # not first when iterated


def test_play_table_names_an_entrant_without_an_agent():
    game = build_game("syvere", {"num_players": 2})
    agents = build_agents(game, ["random"], ["random"])
    with pytest.raises(ValueError, match="no agent for heuristic"):
        play_table(game, agents, ["random", "heuristic"], 2, seed=0)


def test_match_table_shows_the_wilson_interval_of_the_shared_wins(capsys):
    result = play_match("meyer", ["doubter", "random"], 10, seed=0, progress=True)
    assert "10/10 games" in capsys.readouterr().err
    table = result.table()
    for rec in result.records:
        # 5 deals of 2 games: too few for their spread, so Wilson's over the 5 deals (marked w)
        rate, low, high = wilson(rec.share_sum / 2, 5)
        assert f"{rate:.3f}" in table and f"[{low:.3f}, {high:.3f}]w" in table
    assert "w: Wilson's over the deals" in table
    assert sum(rec.share_sum for rec in result.records) == pytest.approx(10)  # one win per game, ties shared


def test_a_match_of_one_agent_says_it_needs_one_agent_per_seat():
    """Review of issue 7: one agent used to give "num_players must be 2..8, got 1"."""
    import pytest

    from evaluate.match import play_match

    with pytest.raises(ValueError, match="at least two agents, one per seat; got 1 \\('heuristic'\\)"):
        play_match("tenthousand", ["heuristic"], num_games=1)


def test_a_training_runs_latest_checkpoint_is_labelled_by_its_run(tmp_path):
    from evaluate.tournament import base_label

    run = tmp_path / "new-ppo" / "policy"
    run.mkdir(parents=True)
    (run / "policy.json").write_text("{}")
    (run / "policy.safetensors").write_bytes(b"")
    assert base_label("meyer", str(run)) == "new-ppo"
