"""Terminal-play hooks for Syvere: ``r`` rolls, ``s`` stops."""

from __future__ import annotations

import re

from dice_envs import dice as dice_mod
from dice_envs.games import base, syvere

_ROLLED = re.compile(r"player_\d+ rolled .*\(([1-6]+)\)")


def rules(game: syvere.Game) -> str:
    """The rules in force (SY-1..SY-10), from the game's options."""
    out = game.elimination
    side = (
        "right of the last starter\n  (the seat before theirs), so the last player of a round starts the next."
        if game.next_starter == "right"
        else "left of the last starter\n  (the seat after theirs)."
    )
    lines = [
        f"Syvere (Sevens), {game.num_players} players: low totals are good. At {out} points or more you are out;",
        "  the last player still in wins.",
        f"- Your turn starts with a roll of all {syvere.NUM_DICE} dice. After every roll the pairs that add up to 7",
        "  (1+6, 2+5, 3+4) are set aside by themselves; the other dice are left.",
        "- Then roll the dice left again (r) or stop (s). When your turn ends, the dice left are added to your",
        "  total (no dice left: 0 points).",
        f"- The player who starts a round may roll up to {_times(game.max_rolls)}; every other player in that round",
        "  at most as many times as the starter did.",
        "- A round is always played to its end. If all players still in go out in the same round, the fewest",
        "  points wins; on a tie, the fewest points before that round (still tied: a shared win).",
        f"- The next round is started by the nearest player still in to the {side}",
        "Type r to roll, s to stop.",
    ]
    return "\n".join(lines)


def start_lines(game: syvere.Game) -> list[str]:
    """The first round's starter, as the log tells every later round's."""
    starter = game.initial_state().round_order[0]
    rolls = game.max_rolls
    return [f"round 1: player_{starter} starts, up to {rolls} roll{'s' if rolls != 1 else ''}"]


def annotate(game: syvere.Game, line: str) -> str:
    """A roll's log line with the pairs it set aside (SY-3)."""
    match = _ROLLED.fullmatch(line)
    if match is None:
        return line
    roll = dice_mod.normalize(match.group(1))
    left = list(syvere.set_aside_sevens(roll))
    pairs = []
    for low in (1, 2, 3):
        pairs += [f"{low}+{7 - low}"] * min(roll.count(low), roll.count(7 - low))
    if not pairs:
        return line
    kept = " ".join(map(str, left)) if left else "none"
    return f"{line}: set aside {', '.join(pairs)}; left {kept}"


def describe(game: syvere.Game, state: syvere.State, seat: int) -> str:
    """The roll limit of this turn and why (SY-6), what a decisive turn takes (SY-9), then the
    choice (SY-4)."""
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
    stake = _last_turn(game, state, seat)
    return why + ("\n  " + stake if stake else "") + "\n" + (
        f"  Your dice add up to {sum(state.remaining)}. "
        f"r = roll the {len(state.remaining)} dice again ({left} roll{'s' if left != 1 else ''} left), "
        f"s = stop and score {sum(state.remaining)}."
    )


def _last_turn(game: syvere.Game, state: syvere.State, seat: int) -> str | None:
    """SY-9: when the person plays last in a round that may end the game, what they must stay under
    to win or go on, and what happens if they go out too; ``None`` if the turn decides nothing yet."""
    if state.turn != len(state.round_order) - 1:
        return None  # others play after the person in this round
    out = game.elimination
    own = state.totals[seat]
    room = out - 1 - own  # the most this turn may score with the person still in
    others_in = [s for s in game.still_in(state) if s != seat]
    if len(others_in) > 1:
        return None
    if others_in:
        rolls_left = game.roll_limit(state) - state.rolls
        most = max(sum(state.remaining), max(dice_mod.FACES) * len(state.remaining) if rolls_left else 0)
        if most <= room:
            return None  # the person cannot go out this turn: nothing is decided
        return (
            f"You play last this round and only player_{others_in[0]} is still in besides you: finish below {out} "
            f"(score at most {room}) and the game goes on; reach {out} and player_{others_in[0]} wins."
        )
    others = [s for s in state.round_order if s != seat]
    fewest = min(state.totals[s] for s in others)
    tied = [s for s in others if state.totals[s] == fewest]
    names = base.seat_names(tied)
    text = (
        f"Everyone else went out this round: finish below {out} (score at most {room}) and you win. "
        f"If you reach {out} too, the fewest points wins: {names} {'has' if len(tied) == 1 else 'have'} {fewest}"
    )
    if fewest > out:
        text += f"; below {fewest} you still win"
    before = state.totals_before_round
    theirs = min(before[s] for s in tied)
    mine = before[seat]
    if mine < theirs:
        tie = f"you would win on fewer points before this round ({mine} against {theirs})"
    elif mine == theirs:
        tie = f"you would share the win (both {mine} before this round)"
    else:
        tie = f"you would lose on more points before this round ({mine} against {theirs})"
    return text + f"; at exactly {fewest} {tie}; above {fewest} you lose."


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
