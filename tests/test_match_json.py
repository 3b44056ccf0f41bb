"""``dice-envs match --json``: the standings on stderr, and one JSON object on stdout that agrees with
them (the agents' win rates and the seat breakdown)."""

from __future__ import annotations

import json

from dice_envs.cli import main


def test_match_json_is_the_last_line_and_agrees_with_the_table(capsys):
    assert main(["match", "meyer", "--agents", "doubter", "honest", "--games", "120", "--seed", "4", "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out.strip().splitlines()[-1])
    assert [a["label"] for a in data["agents"]] == ["doubter", "honest"]
    assert data["games"] == 120 and data["seed"] == 4
    assert sum(a["win_rate"] for a in data["agents"]) == 1.0  # two players, no ties in Meyer
    for agent in data["agents"]:
        assert agent["win_low"] <= agent["win_rate"] <= agent["win_high"]
        assert f"{agent['win_rate']:.3f}" in captured.err  # the same standings, printed to stderr
    assert data["seats"]["games"] == 120 and data["seats"]["num_players"] == 2
    assert "by seat" in captured.err and "by seat" not in captured.out


def test_without_json_the_table_is_on_stdout(capsys):
    assert main(["match", "meyer", "--agents", "doubter", "honest", "--games", "20"]) == 0
    captured = capsys.readouterr()
    assert "doubter" in captured.out and not captured.out.strip().splitlines()[-1].startswith("{")


def test_match_json_names_the_game_as_tournament_json_does(capsys):
    """``game`` is the short name whatever the match was given (an alias, a registered id)."""
    from evaluate.match import play_match

    assert main(["match", "farkle", "--games", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["game"] == "tenthousand" and data["options"]["preset"] == "farkle"
    result = play_match("dice/meyer-v0", ["honest", "random"], num_games=2)
    assert result.to_json()["game"] == "meyer" and result.to_json()["env_id"] == "dice/meyer-v0"


def test_games_that_are_not_whole_rotations_are_played_with_a_note(capsys):
    """Seats are balanced over whole rotations of the seats (statistics review 9): --games 7 for two
    agents says so on stderr and still plays 7 games; --games 8 says nothing."""
    assert main(["match", "meyer", "--agents", "doubter", "honest", "--games", "7", "--json"]) == 0
    captured = capsys.readouterr()
    assert "note: --games 7 is not a multiple of the 2 seats" in captured.err
    assert "(--games 6 or 8 balances them)" in captured.err
    assert json.loads(captured.out.strip().splitlines()[-1])["games"] == 7
    assert main(["match", "meyer", "--agents", "doubter", "honest", "--games", "8"]) == 0
    assert "note:" not in capsys.readouterr().err
    assert main(["match", "meyer", "--agents", "doubter", "honest", "--games", "1"]) == 0
    assert "(--games 2 balances them)" in capsys.readouterr().err  # not "2 or 2"
