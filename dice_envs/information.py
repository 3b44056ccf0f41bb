"""Perfect-recall information states from a game's history, shared by the PettingZoo env
(:meth:`dice_envs.env.DiceEnv.information_state`) and the OpenSpiel adapter (:mod:`dice_envs.openspiel`).

A history is the env's list of events: ``("chance", dice, seen_by)`` for a roll (``seen_by`` the
seats that saw it, ``None`` for everyone) and ``("action", seat, action, ...)`` for a move.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator


def information_events(game, seat: int, history: Iterable[tuple]) -> Iterator[tuple[tuple, Any]]:
    """Yield ``(event, state before it)`` of ``seat``'s information state, replaying ``history``
    through the engine: ``("seat", seat)``, then every roll as the seat saw it (``("chance",
    dice)``, or ``("chance", number of dice)`` when hidden from it), every action (``("action",
    seat, action id)``) and the dice an action showed everyone (``("revealed", dice)``)."""
    state = game.initial_state()
    yield ("seat", seat), state
    for event in history:
        if event[0] == "chance":
            _, roll, seen_by = event
            roll = tuple(int(d) for d in roll)
            yield ("chance", roll if seen_by is None or seat in seen_by else len(roll)), state
            state = game.apply_chance(state, roll)
        else:
            actor, action = event[1], event[2]
            yield ("action", actor, action), state
            shown = game.revealed(state, action)
            if shown is not None:
                yield ("revealed", tuple(int(d) for d in shown)), state
            state = game.apply_action(state, action)


def information_string(game, events: Iterable[tuple[tuple, Any]]) -> str:
    """The events of :func:`information_events` as text, ``|`` between them, actions by their
    rule-book strings and dice as the rules write them (Meyer's high die first, ME-2)."""
    fields = []
    for event, state in events:
        kind = event[0]
        if kind == "seat":
            fields.append(f"seat {event[1]}")
        elif kind == "chance":
            seen = isinstance(event[1], tuple)
            fields.append(f"roll {game.roll_to_string(event[1])}" if seen else f"roll {event[1]} dice unseen")
        elif kind == "revealed":
            fields.append(f"revealed {game.roll_to_string(event[1])}")
        else:
            fields.append(f"player_{event[1]}: {game.action_to_string(state, event[2])}")
    return "|".join(fields)
