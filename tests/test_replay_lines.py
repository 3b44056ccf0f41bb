"""``dice-envs replay`` shows what each step changed (push-your-luck review, finding 8).

A replay used to print only the table after every step, so a bust showed only as a turn total back
at 0. Now the engine's ``change_lines`` follow each step's line: a bust and the points it lost, a
bust penalty, the start of the end phase (10 000), a lifted cup (Meyer), a turn's score (Syvere).
The tests find where those events happened from the game's states by the rules themselves (a
roll with no scoring dice is a bust, TT-2), not from ``change_lines``, and check the line is
printed right under that step and nowhere else.
"""

from __future__ import annotations

import pytest

from dice_envs.cli import main
from evaluate.cli import replay_lines
from evaluate.store import ResultStore
from evaluate.tournament import build_game, replay_states, run_tournament


def _steps(lines: list[str]) -> dict[int, list[str]]:
    """step number -> the indented lines printed right under its ``-- step N:`` line."""
    steps: dict[int, list[str]] = {}
    current = None
    for line in lines:
        if line.startswith("-- step "):
            current = int(line.split()[2].rstrip(":"))
            steps[current] = []
        elif current is not None and line.startswith("   "):
            steps[current].append(line.strip())
        else:
            current = None  # the table (or a blank line) ends the step's own lines
    return steps


def _stored(tmp_path, options: dict, specs=("heuristic", "greedy"), games: int = 3):
    db = str(tmp_path / "tt.sqlite")
    run_tournament("tenthousand", list(specs), games=games, seed=4, options=options, db=db, workers=1, progress=False)
    store = ResultStore.open_existing(db)
    try:
        game = build_game("tenthousand", store.meta()["options"])
        stored = [store.game(i) for i in range(1, store.count() + 1)]
    finally:
        store.close()
    return db, game, stored


def test_a_bust_is_shown_right_under_the_roll_that_made_it_and_nowhere_else(tmp_path):
    db, game, stored = _stored(tmp_path, {"preset": "dk", "target": 2000})
    seen_busts = 0
    for row in stored:
        # By the rules (TT-2): a roll that offers no scoring selection ends the turn, a bust.
        busts = {}
        for step, (event, before, after) in enumerate(replay_states(game, row["log"]), 1):
            if isinstance(event, str) and not game.selections(tuple(int(d) for d in event)):
                busts[step] = (before.player, before.turn_total)
        lines, same = replay_lines(db, row["id"])
        assert same
        steps = _steps(lines)
        assert len(steps) == len(row["log"])
        for step, shown in steps.items():
            bust_lines = [line for line in shown if ": bust" in line]
            if step in busts:
                seat, lost = busts[step]
                expected = f"player_{seat}: bust, {lost} points lost" if lost else f"player_{seat}: bust"
                assert bust_lines == [expected], (row["id"], step, shown)
            else:
                assert bust_lines == [], (row["id"], step, shown)
        seen_busts += len(busts)
        # TT-8 under dk (finish_round): the first to reach the target has the round played out,
        # so if the round's starter reaches it the other plays a last turn, else the game ends.
        for step, (_, before, after) in enumerate(replay_states(game, row["log"]), 1):
            seat = before.player
            said = [line for line in steps[step] if " reached " in line]
            if after.totals[seat] >= game.target > max(before.totals):
                then = "the game ends" if seat == 1 else "the round is played out, player_1 plays a last turn"
                assert said == [f"player_{seat} reached {after.totals[seat]}: {then}"], (row["id"], step, said)
            else:
                assert said == []
    assert seen_busts >= 5  # the games stored do have busts to show


def test_a_bust_penalty_and_the_start_of_the_end_phase_are_shown_where_they_happen(tmp_path):
    db, game, stored = _stored(
        tmp_path, {"preset": "no", "target": 2000, "bust_penalty": 200, "bust_penalty_after": 1}, games=2
    )
    penalties = reached = 0
    for row in stored:
        lines, same = replay_lines(db, row["id"])
        assert same
        steps = _steps(lines)
        for step, (event, before, after) in enumerate(replay_states(game, row["log"]), 1):
            seat = before.player
            shown = steps[step]
            # TT-9e: with bust_penalty_after 1 every bust costs 200 from the total.
            lost = before.totals[seat] - after.totals[seat]
            assert (f"player_{seat}: bust penalty: -200" in shown) == (lost == 200), (row["id"], step, shown)
            penalties += lost == 200
            # TT-8: the first turn to reach the target starts the end phase; under "no" every
            # other player then has one last turn.
            first_time = after.totals[seat] >= game.target > max(before.totals)
            said = [line for line in shown if f"player_{seat} reached" in line]
            assert bool(said) == first_time, (row["id"], step, shown)
            if first_time and after.winners is None:
                assert said == [f"player_{seat} reached {after.totals[seat]}: everyone else gets one last turn"]
                reached += 1
    assert penalties >= 3 and reached >= 1


def test_the_replay_command_prints_the_bust_line(tmp_path, capsys):
    db, game, stored = _stored(tmp_path, {"preset": "dk", "target": 2000})
    game_id = next(
        row["id"]
        for row in stored
        if any(isinstance(e, str) and not game.selections(tuple(map(int, e))) for e, _, _ in replay_states(game, row["log"]))
    )
    assert main(["replay", db, str(game_id)]) == 0
    out = capsys.readouterr().out
    assert ": bust" in out and "the stored outcome, reproduced" in out


def _replayed(tmp_path, game_name: str, specs: list[str], options: dict):
    db = str(tmp_path / "g.sqlite")
    run_tournament(game_name, specs, games=2, seed=1, options=options, db=db, workers=1, progress=False)
    store = ResultStore.open_existing(db)
    game = build_game(game_name, store.meta()["options"])
    row = store.game(1)
    store.close()
    lines, same = replay_lines(db, 1)
    assert same
    return game, list(enumerate(replay_states(game, row["log"]), 1)), _steps(lines)


def test_a_lifted_cup_in_meyer_is_shown_under_the_answer_that_lifted_it(tmp_path):
    """Every engine has ``change_lines``, and a replay shows each game's alike: in Meyer every
    doubt lifts the cup and costs someone a life (ME-4, ME-6)."""
    game, events, steps = _replayed(tmp_path, "meyer", ["doubter", "bluffer"], {"lives": 2})
    lifted = 0
    for step, (_, before, after) in events:
        lost = [s for s in range(game.num_players) if after.lives[s] < before.lives[s]]
        shown = steps[step]
        assert any("lifts the cup" in line for line in shown) == bool(lost), (step, shown)
        for s in lost:
            assert f"player_{s}: {before.lives[s]} -> {after.lives[s]} " in " ".join(shown) + " "
        lifted += bool(lost)
    assert lifted >= 2  # two lives: at least two cups lifted


def test_a_syvere_turns_score_is_shown_under_the_step_that_ended_it(tmp_path):
    game, events, steps = _replayed(tmp_path, "syvere", ["heuristic", "random"], {})
    for step, (_, before, after) in events:
        shown = steps[step]
        ended = (after.round, after.turn) != (before.round, before.turn) or after.winners is not None
        if not ended:
            assert shown == [], (step, shown)
            continue
        seat = before.round_order[before.turn]
        score = f"player_{seat}: {before.totals[seat]} -> {after.totals[seat]} ({after.totals[seat] - before.totals[seat]:+d})"
        assert score in shown, (step, shown)
