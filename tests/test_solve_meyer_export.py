"""``dice-envs solve meyer --describe BEAT [--lives-pair R O]`` and ``--export PATH``: the solved
equilibrium strategy, readable (``describe_level``) and as a tidy table (``strategy_rows``)."""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from agents.solvers import cli
from agents.solvers import meyer as solver
from dice_envs.games import meyer

NAMES = set(meyer.CLAIM_NAMES)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One solver cache for the module: each variant is solved once (1 or 2 lives: a second or two)."""
    return tmp_path_factory.mktemp("meyer-cache")


def run(capsys, *words):
    assert cli.main(list(words)) == 0
    out = capsys.readouterr().out.strip().splitlines()
    return out, json.loads(out[-1])


def read_csv(path: Path) -> list[dict]:
    """The exported CSV with the types of :func:`solver.strategy_rows` back."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == solver.STRATEGY_COLUMNS
        rows = []
        for raw in reader:
            assert {raw["blind"], raw["off_path"], raw["indifferent"]} <= {"true", "false"}
            rows.append({
                **raw,
                "roller_lives": int(raw["roller_lives"]),
                "responder_lives": int(raw["responder_lives"]),
                "blind": raw["blind"] == "true",
                "dice": raw["dice"] or None,
                "probability": float(raw["probability"]),
                "off_path": raw["off_path"] == "true",
                "indifferent": raw["indifferent"] == "true",
                "value": float(raw["value"]),
                "level_visits": float(raw["level_visits"]),
            })  # fmt: skip
        return rows


def check_table(rows: list[dict], game: meyer.Game) -> None:
    """Every decision of every level is there once, and its probabilities are a distribution."""
    rules = solver.Rules(game)
    names = [meyer.CLAIM_NAMES[c] for c in game.claim_of_rank]
    beats = {"start" if b < 0 else names[b]: b for b in rules.levels()}
    claims = defaultdict(float)
    doubts = defaultdict(list)
    values = defaultdict(set)
    for row in rows:
        assert tuple(row) == solver.STRATEGY_COLUMNS
        level = (row["roller_lives"], row["responder_lives"], row["claim_to_beat"])
        assert 1 <= level[0] <= game.lives and 1 <= level[1] <= game.lives and level[2] in beats
        values[level].add(row["value"])
        b = beats[level[2]]
        legal = {names[y] for y in rules.legal[b]}
        blind_here = game.blind_reroll and b >= 0
        assert row["blind"] is False or blind_here
        if row["role"] == "claim":
            assert 0 < row["probability"] <= 1 + 1e-12  # zero-probability rows are left out
            assert (row["dice"] is None) == row["blind"] and (row["dice"] is None or row["dice"] in NAMES)
            assert row["action"] in legal or (row["action"] == "reroll" and blind_here and not row["blind"])
            assert row["off_path"] is False or row["blind"]
            claims[level + (row["blind"], row["dice"])] += row["probability"]
        else:
            assert row["role"] == "doubt" and row["dice"] is None and row["action"] in legal
            assert 0.0 <= row["probability"] <= 1.0
            doubts[level + (row["blind"],)].append(row["action"])
    lives = range(1, game.lives + 1)
    levels = {(r, o, beat) for r in lives for o in lives for beat in beats}
    assert set(values) == levels and all(len(v) == 1 for v in values.values())  # one value per level
    for r, o, beat in levels:
        blind_here = game.blind_reroll and beats[beat] >= 0
        for dice in [*names, None] if blind_here else names:
            total = claims.pop((r, o, beat, dice is None, dice))
            # the claims (and the reroll) of one decision sum to 1
            assert total == pytest.approx(1.0, abs=1e-9), (r, o, beat, dice)
        for blind in (False, True) if blind_here else (False,):
            answered = doubts.pop((r, o, beat, blind))
            assert sorted(answered) == sorted(names[y] for y in rules.legal[beats[beat]])  # each claim once
    assert not claims and not doubts


@pytest.mark.parametrize(
    "options",
    [{"lives": 2}, {"lives": 1, "blind_reroll": True},
     {"lives": 2, "claim_rule": "higher", "lille_meyer": False}],
)
def test_strategy_rows_are_one_distribution_per_decision(cache, options):
    rows = list(solver.strategy_rows(options, cache_dir=cache))
    check_table(rows, solver.make_game(options))
    if options.get("blind_reroll"):
        assert any(r["action"] == "reroll" for r in rows)
        assert any(r["blind"] and r["role"] == "claim" for r in rows)
        assert any(r["blind"] and r["role"] == "doubt" for r in rows)
    else:
        assert not any(r["blind"] or r["action"] == "reroll" for r in rows)


def test_rows_follow_the_tables(cache):
    options = {"lives": 1, "blind_reroll": True}
    tables = solver.load_tables(options, cache_dir=cache)
    game = solver.make_game(options)
    rank = {meyer.CLAIM_NAMES[c]: r for r, c in enumerate(game.claim_of_rank)}
    seen = 0
    for row in solver.strategy_rows(options, cache_dir=cache):
        b = -1 if row["claim_to_beat"] == "start" else rank[row["claim_to_beat"]]
        k = (row["roller_lives"] - 1, row["responder_lives"] - 1, b + 1)
        assert row["value"] == tables["value"][k]
        if row["role"] == "doubt":
            expected = tables["doubt"][k + (rank[row["action"]], int(row["blind"]))]
        elif row["blind"]:
            expected = tables["blind_claim"][k + (rank[row["action"]],)]
        elif row["action"] == "reroll":
            expected = tables["reroll"][k + (rank[row["dice"]],)]
        else:
            expected = tables["claim"][k + (rank[row["dice"]], rank[row["action"]])]
        assert row["probability"] == expected
        seen += 1
    assert seen > 500


def test_export_csv_holds_the_solvers_value(capsys, tmp_path, cache):
    path = tmp_path / "new" / "dir" / "meyer.csv"  # missing directories are made
    lines, data = run(capsys, "meyer", "--lives", "2", "--export", str(path), "--json", "--no-progress",
                      "--cache-dir", str(cache))  # fmt: skip
    rows = read_csv(path)
    assert data["export"] == {"path": str(path), "format": "csv", "rows": len(rows),
                              "columns": list(solver.STRATEGY_COLUMNS)}  # fmt: skip
    assert lines[-2].startswith(f"equilibrium strategy: {len(rows)} rows written to {path} (csv")
    assert lines[0].startswith("Meyer, two players, 2 lives")  # the summary is printed too
    check_table(rows, solver.make_game({"lives": 2}))
    (start,) = {r["value"] for r in rows
                if (r["roller_lives"], r["responder_lives"], r["claim_to_beat"]) == (2, 2, "start")}
    assert start == data["value"] == float(solver.load_tables({"lives": 2}, cache_dir=cache)["game_value"])
    assert start == solver.cli_summary({"lives": 2}, cache_dir=cache, progress=False)["value"]
    assert sorted(p.name for p in path.parent.iterdir()) == ["meyer.csv"]  # no temporary file left
    assert rows == list(solver.strategy_rows({"lives": 2}, cache_dir=cache))  # floats written in full


def test_export_json_is_an_array_of_the_same_rows(capsys, tmp_path, cache):
    path = tmp_path / "meyer.JSON"
    _, data = run(capsys, "meyer", "--lives", "1", "--export", str(path), "--json", "--cache-dir", str(cache))
    rows = json.loads(path.read_text())
    assert isinstance(rows, list) and len(rows) == data["export"]["rows"]
    assert data["export"]["format"] == "json"
    assert rows == list(solver.strategy_rows({"lives": 1}, cache_dir=cache))
    assert any(r["dice"] is None for r in rows)  # JSON null where the CSV cell is empty


def test_a_failed_export_leaves_the_old_file_and_no_temporary(tmp_path, cache, monkeypatch):
    path = tmp_path / "meyer.csv"
    path.write_text("old\n")

    rows = solver._strategy_rows

    def broken(game, tables):
        yield from list(rows(game, tables))[:3]
        raise RuntimeError("disk full")

    monkeypatch.setattr(solver, "_strategy_rows", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        solver.export_strategy(path, {"lives": 1}, cache_dir=cache)
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["meyer.csv"]


def _describe_numbers(lines: list[str]):
    """(value, {dice: {action: p}}, {claim: (P(doubt), off the path)}) as describe_level prints them."""
    value = float(re.search(r"value ([+-]\d\.\d{6})$", lines[0]).group(1))
    dice = {}
    doubts = {}
    for line in lines[1:]:
        if m := re.match(r"  dice (\d\d): (.*?)(  \[indifferent.*)?$", line):
            dice[m.group(1)] = {a: float(p) for a, p in re.findall(r"(\d\d|reroll) (\d\.\d{3})", m.group(2))}
        elif line.startswith("  P(doubt) by claim: "):
            for name, star, p in re.findall(r"(\d\d)(\*?) (\d\.\d{3})", line):
                doubts[name] = (float(p), star == "*")
    return value, dice, doubts


@pytest.mark.parametrize(
    "options, lives, beat",
    [({"lives": 1}, (1, 1), "54"), ({"lives": 2}, (1, 2), "start"), ({"lives": 2}, (2, 1), "63"),
     ({"lives": 1, "blind_reroll": True}, (1, 1), "43")],
)  # fmt: skip
def test_rows_match_describe_level(cache, options, lives, beat):
    lines = solver.describe_level(options, lives=lives, beat=None if beat == "start" else beat,
                                  cache_dir=cache)  # fmt: skip
    value, dice, doubts = _describe_numbers(lines)
    level = [r for r in solver.strategy_rows(options, cache_dir=cache)
             if (r["roller_lives"], r["responder_lives"], r["claim_to_beat"]) == (*lives, beat)]  # fmt: skip
    assert level and round(level[0]["value"], 6) == value
    shown = defaultdict(dict)
    for r in level:
        if r["role"] == "claim" and not r["blind"] and r["probability"] > 5e-4:
            shown[r["dice"]][r["action"]] = round(r["probability"], 3)
    assert shown == dice and len(dice) == meyer.NUM_CLAIMS
    answered = {r["action"]: (round(r["probability"], 3), r["off_path"]) for r in level
                if r["role"] == "doubt" and not r["blind"]}  # fmt: skip
    assert answered == doubts


@pytest.mark.parametrize(
    "words, options, lives, beat",
    [(["--lives", "2", "--describe", "45", "--lives-pair", "1", "2"], {"lives": 2}, (1, 2), "54"),
     (["--lives", "2", "--describe", "start"], {"lives": 2}, (2, 2), None),
     (["--lives", "1", "--describe", "21"], {"lives": 1}, (1, 1), "21")],
)  # fmt: skip
def test_describe_prints_describe_level(capsys, cache, words, options, lives, beat):
    lines, data = run(capsys, "meyer", *words, "--json", "--no-progress", "--cache-dir", str(cache))
    expected = solver.describe_level(options, lives=lives, beat=beat, cache_dir=cache)
    assert lines[:-1] == expected and data["describe"] == expected
    tables = solver.load_tables(options, cache_dir=cache)
    b = -1 if beat is None else solver.make_game(options).rank[meyer.claim_index(beat)]
    value = tables["value"][lives[0] - 1, lives[1] - 1, b + 1]
    assert data["level"] == {"roller_lives": lives[0], "responder_lives": lives[1],
                             "claim_to_beat": beat or "start", "value": value}  # fmt: skip
    assert data["value"] == float(tables["game_value"])  # still the game's value
    # without --json: the same lines and nothing else
    assert cli.main(["meyer", *words, "--cache-dir", str(cache)]) == 0
    assert capsys.readouterr().out.splitlines() == expected


def test_describe_and_export_together(capsys, tmp_path, cache):
    path = tmp_path / "s.json"
    lines, data = run(capsys, "meyer", "--lives", "1", "--describe", "54", "--export", str(path), "--json",
                      "--cache-dir", str(cache))  # fmt: skip
    assert lines[:-2] == solver.describe_level({"lives": 1}, beat="54", cache_dir=cache)
    assert lines[-2].startswith("equilibrium strategy:")
    assert path.exists() and data["export"]["path"] == str(path)


def test_bench_times_the_solve_only(capsys, tmp_path, cache):
    path = tmp_path / "s.csv"
    _, data = run(capsys, "meyer", "--lives", "1", "--export", str(path), "--bench", "--json",
                  "--cache-dir", str(cache))  # fmt: skip
    assert data["bench"]["value"] == data["value"] and data["export"]["rows"] == len(read_csv(path))


@pytest.mark.parametrize(
    "words, message",
    [
        (["--describe", "77"], "--describe takes the claim to beat, such as 54, or start"),
        (["--describe", "5"], "--describe takes the claim to beat"),
        (["--describe", "21", "--claim-rule", "higher"], "--describe: nothing can be claimed over 21"),
        (["--lives", "2", "--describe", "54", "--lives-pair", "3", "1"],
         "--lives-pair takes the roller's and the responder's lives, two numbers in 1..2"),
        (["--describe", "54", "--lives-pair", "0", "1"], "--lives-pair takes"),
        (["--describe", "54", "--lives-pair", "1", "x"], "--lives-pair: invalid int value"),
        (["--describe", "54", "--lives-pair", "1"], "--lives-pair: expected 2 arguments"),
        (["--lives-pair", "1", "1"], "--lives-pair says which lives --describe shows"),
        (["--export", "out.txt"], "--export writes a .csv or a .json file"),
        (["--export", "out.csv", "--exploitability", "bluffer"], "--export writes the equilibrium's strategy"),
        (["--describe", "99", "--exploitability", "bluffer"], "--describe takes the claim to beat, such as 54"),
        (["--describe", "54", "--lives", "0"], "lives"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_with_one_line_before_any_solve(capsys, tmp_path, words, message):
    from dice_envs.cli import main

    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    assert main(["solve", "meyer", *words, "--cache-dir", str(cache_dir)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("dice-envs: ")
    assert message in captured.err
    assert not list(cache_dir.iterdir())  # refused before the solve
    assert not (Path.cwd() / "out.csv").exists()


def test_export_to_a_directory_is_refused(capsys, tmp_path):
    from dice_envs.cli import main

    (tmp_path / "d.json").mkdir()
    words = ["--lives", "1", "--export", str(tmp_path / "d.json"), "--cache-dir", str(tmp_path)]
    assert main(["solve", "meyer", *words]) == 2
    assert "is a directory" in capsys.readouterr().err


@pytest.mark.parametrize(
    "game, words, flag, games",
    [("syvere", ["--export", "x.csv"], "--export", "`solve meyer` and of `solve tenthousand`"),
     ("syvere", ["--lives-pair", "1", "1"], "--lives-pair", "`solve meyer`"),
     ("tenthousand", ["--lives-pair", "1", "1"], "--lives-pair", "`solve meyer`")],
)  # fmt: skip
def test_other_games_refuse_the_meyer_flags(capsys, tmp_path, game, words, flag, games):
    from dice_envs.cli import main

    assert main(["solve", game, *words, "--cache-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"dice-envs: {flag} is an option of {games}, not of `solve {game}`\n"
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("options", [{"lives": 1}, {"lives": 2}, {"lives": 1, "blind_reroll": True}], ids=str)
def test_indifferent_rows_are_the_ones_describe_marks(cache, options):
    """The export's ``indifferent`` flags the decisions --describe marks: a dice row listing equally good
    actions, a pure doubt among equals (bluffing-research review, finding 3: the CSV could not tell the
    equilibrium's pinned-down play from the linear programme's pick)."""
    game = solver.make_game(options)
    rows = list(solver.strategy_rows(options, cache_dir=cache))
    names = [meyer.CLAIM_NAMES[c] for c in game.claim_of_rank]
    marked = 0
    for r in range(1, game.lives + 1):
        for o in range(1, game.lives + 1):
            for b in solver.Rules(game).levels():
                beat = "start" if b < 0 else names[b]
                lines = solver.describe_level(options, lives=(r, o), beat=None if b < 0 else beat, cache_dir=cache)
                here = [row for row in rows if (row["roller_lives"], row["responder_lives"], row["claim_to_beat"]) == (r, o, beat)]
                for line in lines[1:]:
                    if m := re.match(r"  dice (\d\d): ", line):
                        flags = {row["indifferent"] for row in here if row["role"] == "claim" and row["dice"] == m.group(1)}
                        assert flags == {"[indifferent" in line}, (r, o, beat, line)
                        marked += "[indifferent" in line
                    elif line.startswith("  P(doubt) by claim: "):
                        tied = set(re.findall(r"(\d\d)\*? \d\.\d{3} \(indifferent", line))
                        flagged = {row["action"] for row in here if row["role"] == "doubt" and not row["blind"] and row["indifferent"]}
                        assert flagged == tied, (r, o, beat, line)
    assert marked > 0
    if options == {"lives": 1}:  # the round start: 7 of the 21 hands have equally good claims (the review's count)
        start = {row["dice"] for row in rows if row["claim_to_beat"] == "start" and row["role"] == "claim" and row["indifferent"]}
        assert len(start) == 7
