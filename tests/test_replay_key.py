"""``dice-envs replay DB --table T --deal D --rotation R``: a stored game named by its key, which
names the same game in every run of a tournament, where its id follows the order of storing
(reproducibility review 10, F1)."""

from __future__ import annotations

import sqlite3

import pytest

from dice_envs.cli import main
from evaluate.cli import replay_lines
from evaluate.store import ResultStore
from evaluate.tournament import run_tournament

SPECS = ["honest", "doubter", "bluffer"]


def stored(tmp_path, name="r.sqlite", seed=2, **kw) -> str:
    db = str(tmp_path / name)
    run_tournament("meyer", SPECS, games=4, seed=seed, options={"num_players": 3, "lives": 2}, db=db,
                   workers=1, progress=False, **kw)  # fmt: skip
    return db


def exit_code(args) -> int:
    """``dice-envs`` with these arguments: its exit status, whether it returned or exited."""
    try:
        return main(args)
    except SystemExit as exc:
        return int(exc.code or 0)


def reorder_ids(src: str, dst: str) -> None:
    """A copy of a store whose games got their ids in the reverse order (as another run's
    workers might have stored them)."""
    conn = sqlite3.connect(src)
    conn.execute(f"ATTACH DATABASE '{dst}' AS other")
    conn.execute("CREATE TABLE other.games AS SELECT * FROM games WHERE 0")
    for table in ("meta", "agents"):
        conn.execute(f"CREATE TABLE other.{table} AS SELECT * FROM {table}")
    cols = [r[1] for r in conn.execute("PRAGMA table_info(games)") if r[1] != "id"]
    conn.execute(
        f"INSERT INTO other.games (id, {', '.join(cols)}) SELECT (SELECT COUNT(*) FROM games) + 1 - id, "
        f"{', '.join(cols)} FROM games"
    )
    conn.commit()
    conn.close()


def test_a_key_names_the_same_game_where_ids_differ(tmp_path, capsys):
    db = stored(tmp_path)
    other = str(tmp_path / "other.sqlite")
    reorder_ids(db, other)
    a, b = ResultStore.open_existing(db), ResultStore.open_existing(other)
    key = {"table_key": "bluffer|doubter|honest", "deal": 3, "rotation": 1}
    ia, ib = a.find_game(**key), b.find_game(**key)
    assert ia != ib  # the ids differ ...
    game_a, game_b = a.game(ia), b.game(ib)
    a.close(), b.close()
    assert (game_a["deal"], game_a["rotation"]) == (3, 1)
    assert {k: v for k, v in game_a.items() if k != "id"} == {k: v for k, v in game_b.items() if k != "id"}
    # ... and replay by key shows the same game from either store, id apart.
    lines_a, same_a = replay_lines(db, key=key)
    lines_b, same_b = replay_lines(other, key=key)
    assert same_a and same_b
    assert lines_a[1:] == lines_b[1:] and lines_a[0] != lines_b[0]
    # Through the command, and the key it prints replays the game it printed.
    assert main(["replay", db, "--table", "bluffer|doubter|honest", "--deal", "3", "--rotation", "1"]) == 0
    out = capsys.readouterr().out
    assert f"game {ia} of {db}" in out
    assert "--table 'bluffer|doubter|honest' --deal 3 --rotation 1 --seed 2 --dice common" in out
    assert main(["replay", db, str(ia)]) == 0
    assert capsys.readouterr().out == out


def test_a_store_of_several_seeds_needs_the_seed(tmp_path, capsys):
    db = stored(tmp_path)
    stored(tmp_path, seed=5)
    key = ["--table", "bluffer|doubter|honest", "--deal", "0", "--rotation", "0"]
    assert exit_code(["replay", db, *key]) == 2
    err = capsys.readouterr().err
    assert "several seeds" in err and "--seed 2 --dice common" in err and "--seed 5 --dice common" in err
    assert "Traceback" not in err
    assert main(["replay", db, *key, "--seed", "5"]) == 0
    assert "seed 5, table bluffer|doubter|honest, deal 0, rotation 0" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--table", "a|b", "--deal", "0", "--rotation", "0"], "no table 'a|b'"),
        (["--table", "bluffer|doubter|honest", "--deal", "9", "--rotation", "0"], "no game of table"),
        (["--table", "bluffer|doubter|honest", "--deal", "0", "--rotation", "0", "--seed", "7"], "under seed 2"),
        (["--table", "bluffer|doubter|honest", "--deal", "0"], "--rotation missing"),
        (["1", "--deal", "0"], "not both"),
        ([], "give a GAME_ID"),
        (["--table", "x", "--deal", "-1", "--rotation", "0"], "--deal"),
    ],
)
def test_a_bad_key_is_one_line_naming_what_is_there(tmp_path, capsys, args, message):
    db = stored(tmp_path)
    assert exit_code(["replay", db, *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
