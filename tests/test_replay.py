"""``dice-envs replay`` (issue 10, item 7): a stored game replays to exactly its stored outcome."""

from __future__ import annotations

import sqlite3

import pytest

from dice_envs.cli import main
from evaluate.cli import replay_lines
from evaluate.store import ResultStore
from evaluate.tournament import build_game, replay_final_state, run_tournament


@pytest.mark.parametrize(
    "game_name, specs, options",
    [
        ("syvere", ["heuristic", "random", "random"], {"num_players": 3}),
        ("tenthousand", ["heuristic", "greedy"], {"preset": "no", "target": 3000}),
        ("meyer", ["doubter", "bluffer"], {"blind_reroll": True, "lives": 3}),
    ],
)
def test_every_stored_game_replays_to_its_outcome(tmp_path, game_name, specs, options):
    db = str(tmp_path / "r.sqlite")
    result = run_tournament(game_name, specs, games=3, seed=9, options=options, db=db, workers=1, progress=False)
    store = ResultStore.open_existing(db)
    game = build_game(game_name, {**store.meta()["options"]})
    assert store.count() == len(result.records)
    for game_id in range(1, store.count() + 1):
        stored = store.game(game_id)
        state = replay_final_state(game, stored["log"])
        assert game.is_terminal(state)
        assert list(game.returns(state)) == stored["returns"]
        assert list(game.scores(state)) == stored["scores"]
        lines, same = replay_lines(db, game_id)
        assert same
        assert sum(line.startswith("-- step ") for line in lines) == len(stored["log"])
    store.close()


def test_replay_command_shows_every_step_and_says_the_outcome_is_reproduced(tmp_path, capsys):
    db = str(tmp_path / "m.sqlite")
    run_tournament("meyer", ["honest", "bluffer"], games=1, seed=0, options={"lives": 1}, db=db, workers=1, progress=False)
    assert main(["replay", db, "2"]) == 0
    out = capsys.readouterr().out
    assert "player_0 = " in out and "the stored outcome, reproduced" in out
    assert "rolls" in out and "claim" in out
    # A roll is named as the rules name it, high die first (ME-2), as the table under it shows.
    import re

    from dice_envs.games import meyer

    for faces, name in re.findall(r"rolls ([⚀-⚅ ]+)  \((\d\d)\)", out):
        assert name in meyer.CLAIM_NAMES and int(name[0]) >= int(name[1])
        assert faces == " ".join("⚀⚁⚂⚃⚄⚅"[int(d) - 1] for d in name)
    assert any(a != b for a, b in re.findall(r"rolls [⚀-⚅ ]+  \((\d)(\d)\)", out))  # not only pairs


def test_replay_detects_a_changed_outcome_and_refuses_bad_input(tmp_path, capsys):
    db = str(tmp_path / "m.sqlite")
    run_tournament("meyer", ["honest", "bluffer"], games=1, seed=0, options={"lives": 1}, db=db, workers=1, progress=False)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE games SET returns = '[0.0, 0.0]' WHERE id = 1")
    conn.commit()
    conn.close()
    assert main(["replay", db, "1"]) == 1
    assert "DIFFERS from the stored" in capsys.readouterr().out
    assert main(["replay", db, "99"]) == 2
    err = capsys.readouterr().err
    assert "no game with id 99" in err and "Traceback" not in err
    not_db = tmp_path / "notes.txt"
    not_db.write_text("hello")
    assert main(["replay", str(not_db), "1"]) == 2
    assert "not a dice-envs results database" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.sqlite"), "1"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["replay", str(tmp_path), "1"]) == 2
    assert "is a directory, not a results database" in capsys.readouterr().err
    # A log changed so that it does not fit the game: one line naming the store and the game.
    conn = sqlite3.connect(db)
    conn.execute("""UPDATE games SET log = '["999999"]' WHERE id = 2""")
    conn.commit()
    conn.close()
    assert main(["replay", db, "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dice-envs: {db}: game 2 does not replay (") and "Traceback" not in err


def test_a_name_after_a_specs_parameters_is_refused_with_the_spelling_that_works(capsys):
    # `bluffer:lie_probability=0.3,honest` is one SPEC whose second parameter is not KEY=VALUE:
    # neither command may read it as two agents or drop `honest` silently.
    assert main(["match", "meyer", "--agents", "bluffer:lie_probability=0.3,honest", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "--agents bluffer:lie_probability=0.3 honest" in err
    assert main(["tournament", "meyer", "--agents", "bluffer:lie_probability=0.3,honest", "random", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "if 'honest' is another agent, give it as a SPEC of its own" in err
