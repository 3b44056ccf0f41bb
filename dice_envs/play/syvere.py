"""Terminal-play hooks for Syvere: ``r`` rolls, ``s`` stops."""

from __future__ import annotations

from dice_envs.games import syvere


def describe(game: syvere.Game, state: syvere.State, seat: int) -> str:
    """The roll limit of this turn and why (SY-6), then the choice (SY-4)."""
    limit = game.roll_limit(state)
    left = limit - state.rolls
    if state.turn == 0:
        why = (
            f"  You started round {state.round}: you may roll up to {_times(limit)}, "
            "and the others as often as you do."
        )
    else:
        why = (
            f"  player_{state.round_order[0]} started round {state.round} and rolled {_times(limit)}, "
            f"so you may roll up to {_times(limit)}."
        )
    return why + "\n" + (
        f"  Your dice add up to {sum(state.remaining)}. "
        f"r = roll the {len(state.remaining)} dice again ({left} roll{'s' if left != 1 else ''} left), "
        f"s = stop and score {sum(state.remaining)}."
    )


def _times(n: int) -> str:
    return f"{n} time{'s' if n != 1 else ''}"


def parse(game: syvere.Game, state: syvere.State, text: str) -> int:
    """``r``/``roll`` or ``s``/``stop``."""
    word = text.strip().lower()
    if word in ("r", "roll"):
        return syvere.ROLL
    if word in ("s", "stop"):
        return syvere.STOP
    raise ValueError(f"{text!r} is not an answer here: type r to roll or s to stop")
