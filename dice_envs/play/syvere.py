"""Terminal-play hooks for Syvere: ``r`` rolls, ``s`` stops."""

from __future__ import annotations

from dice_envs.games import syvere


def describe(game: syvere.Game, state: syvere.State, seat: int) -> str:
    left = game.roll_limit(state) - state.rolls
    return (
        f"  Your dice add up to {sum(state.remaining)}. "
        f"r = roll the {len(state.remaining)} dice again ({left} roll{'s' if left != 1 else ''} left), "
        f"s = stop and score {sum(state.remaining)}."
    )


def parse(game: syvere.Game, state: syvere.State, text: str) -> int:
    """``r``/``roll`` or ``s``/``stop``."""
    word = text.strip().lower()
    if word in ("r", "roll"):
        return syvere.ROLL
    if word in ("s", "stop"):
        return syvere.STOP
    raise ValueError(f"{text!r} is not an answer here: type r to roll or s to stop")
