"""Perfect-recall information states from a game's history, shared by the PettingZoo env
(:meth:`dice_envs.env.DiceGameEnv.information_state`) and the OpenSpiel adapter (:mod:`dice_envs.openspiel`).

A history is the env's list of events: ``("chance", dice, seen_by)`` for a roll (``seen_by`` the
seats that saw it, ``None`` for everyone) and ``("action", seat, action, ...)`` for a move.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator


def all_rolls_public(game) -> bool:
    """Whether every seat sees every roll of ``game``: its engine keeps the base class's
    ``chance_seen_by`` (so callers on a hot path may skip calling it)."""
    from dice_envs.games.base import Game

    return type(game).chance_seen_by is Game.chance_seen_by


def chance_event(game, state, dice, public: bool) -> tuple:
    """The history event of rolling ``dice`` at ``state``: ``("chance", dice, seen_by)``, with
    ``seen_by`` ``None`` when everyone sees it (``public``: :func:`all_rolls_public`)."""
    return ("chance", dice, None if public else game.chance_seen_by(state))


def step_events(game, seat: int, event: tuple, state, private: bool = True) -> list[tuple]:
    """What ``seat`` learns from one history ``event`` played at ``state``: ``("chance", dice)``,
    or ``("chance", number of dice)`` for a roll hidden from it; ``("action", seat, action id)``
    and, when the action shows dice to everyone, ``("revealed", dice)``. With ``private`` false,
    a roll counts as seen only when everyone saw it (the public information state)."""
    if event[0] == "chance":
        _, roll, seen_by = event
        roll = tuple(int(d) for d in roll)
        seen = seen_by is None or (private and seat in seen_by)
        return [("chance", roll if seen else len(roll))]
    actor, action = event[1], event[2]
    shown = game.revealed(state, action)
    events: list[tuple] = [("action", actor, action)]
    if shown is not None:
        events.append(("revealed", tuple(int(d) for d in shown)))
    return events


def information_events(game, seat: int, history: Iterable[tuple]) -> Iterator[tuple[tuple, Any]]:
    """Yield ``(event, state before it)`` of ``seat``'s information state, replaying ``history``
    through the engine: ``("seat", seat)``, then :func:`step_events` of every history event."""
    state = game.initial_state()
    yield ("seat", seat), state
    for event in history:
        for seen in step_events(game, seat, event, state):
            yield seen, state
        if event[0] == "chance":
            state = game.apply_chance(state, tuple(int(d) for d in event[1]))
        else:
            state = game.apply_action(state, event[2])


def event_text(game, event: tuple, state) -> str:
    """One event as text: actions by their rule-book strings, dice as the rules write them
    (Meyer's high die first, ME-2)."""
    kind = event[0]
    if kind == "seat":
        return f"seat {event[1]}"
    if kind == "chance":
        if isinstance(event[1], tuple):
            return f"roll {game.roll_to_string(event[1])}"
        return f"roll {event[1]} dice unseen"
    if kind == "revealed":
        return f"revealed {game.roll_to_string(event[1])}"
    return f"player_{event[1]}: {game.action_to_string(state, event[2])}"


def information_string(game, events: Iterable[tuple[tuple, Any]]) -> str:
    """The events of :func:`information_events` as text, ``|`` between them (:func:`event_text`)."""
    return "|".join(event_text(game, event, state) for event, state in events)
