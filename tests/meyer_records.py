"""Hand-written game records for report tests: a game from its rolls and action strings."""

from __future__ import annotations

from evaluate.tournament import GameRecord, GameTask, winners_of


def scripted_record(game, seats, events) -> GameRecord:
    """A game record from rolls (digit strings) and action strings, checked by the engine."""
    state = game.initial_state()
    log = []
    for event in events:
        if event.isdigit():
            state = game.apply_chance(state, tuple(int(c) for c in event))
            log.append(event)
        else:
            action = game.string_to_action(state, event)
            state = game.apply_action(state, action)
            log.append(action)
    assert game.is_terminal(state)
    returns = tuple(game.returns(state))
    task = next(t for r in range(2) if (t := GameTask(0, tuple(sorted(seats)), 0, r)).seats == tuple(seats))
    return GameRecord(task, returns, winners_of(returns), game.scores(state), log, 0)
