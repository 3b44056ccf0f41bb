"""Syvere: the solvers' view of one decision (``dice-envs solve syvere --describe SITUATION``).

A Syvere decision is: stop with the dice held (their sum is the turn's score) or roll them all
again. This module values both choices of one situation, as the solvers see them:

* **one turn** (:mod:`agents.solvers.syvere`): the expected turn score of stopping (the sum held)
  and of rolling on with the rolls left (lower is better), and what ``optimal`` plays (it also
  weighs, as the round's starter, the limit its rolls leave the others);
* **the game** (:mod:`agents.solvers.syvere_endgame`), with three or fewer players in: the chance
  of winning of stopping and of rolling on against ``heuristic`` in every other seat, with the best
  response from then on, and what ``endgame`` plays. With four or more players in, that needs the
  4-player phase (6.3 GB), which the agent does not hold: only the one-turn values are shown.

A situation is ``key=value`` pairs separated by commas:

* ``totals``: every seat's total, the mover's first, then the others in the order of play
  (clockwise), separated by spaces or ``/`` (``totals=60 70 78``); a total at or above the
  elimination is a player who is out (before this round: the observation cannot tell a player who
  went out earlier in this round apart, and the solvers treat both alike).
* ``dice``: the dice held after this roll, pairs summing to 7 set aside (``dice=2666``); none of
  them can make 7 with another.
* ``rolls``: the rolls made in this turn (default 1).
* ``starter``: ``yes`` if the mover started the round (its roll limit is ``max_rolls``, and
  everyone else in plays after it), else ``no`` (default).
* ``limit``: a player who did not start the round may roll as often as the starter did (SY-6):
  that number (default ``max_rolls``); not with ``starter=yes``.
* ``after``: how many players still in play after the mover in this round (default 0: the mover
  ends the round); not with ``starter=yes``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dice_envs.games import syvere

#: The keys of a situation.
KEYS = ("totals", "dice", "rolls", "starter", "limit", "after")
EXAMPLE = "totals=60 70 78,dice=2666,rolls=1,limit=2"


@dataclass(frozen=True)
class Situation:
    """A Syvere decision (see the module docstring); ``None``: not given."""

    totals: tuple[int, ...]
    dice: tuple[int, ...]
    rolls: int = 1
    starter: bool = False
    limit: int | None = None
    after: int | None = None


def parse_situation(text: str, name: str = "situation") -> Situation:
    """A :class:`Situation` from ``key=value`` pairs separated by commas.

    Raises:
        ValueError: an unknown or repeated key, a value of the wrong form, or a missing ``totals``
            or ``dice``; the message says what is expected.
    """
    from agents.solvers.situation_text import key_value_pairs

    values = key_value_pairs(text, KEYS, name, EXAMPLE)
    for key in ("totals", "dice"):
        if key not in values:
            raise ValueError(f"{name}: {key}= is needed; expected key=value pairs separated by commas, such as "
                             f"{EXAMPLE} (keys: {', '.join(KEYS)})")

    def whole(key: str, low: int) -> int | None:
        if key not in values:
            return None
        try:
            number = int(values[key])
        except ValueError:
            raise ValueError(f"{name}: {key}= takes a whole number, got {values[key]!r}") from None
        if number < low:
            raise ValueError(f"{name}: {key}= must be at least {low}, got {number}")
        return number

    try:
        totals = tuple(int(t) for t in values["totals"].replace("/", " ").split())
    except ValueError:
        raise ValueError(f"{name}: totals= takes every seat's total, the mover's first, separated by spaces or /, "
                         f"such as totals=60 70 78; got {values['totals']!r}") from None  # fmt: skip
    if any(t < 0 for t in totals):
        raise ValueError(f"{name}: totals= must be 0 or more, got {values['totals']!r}")
    digits = values["dice"].replace(" ", "")
    if not digits.isdigit() or not all("1" <= d <= "6" for d in digits) or len(digits) > syvere.NUM_DICE:
        raise ValueError(f"{name}: dice= takes the faces held, 1 to {syvere.NUM_DICE} dice of 1 to 6, such as "
                         f"dice=2666; got {values['dice']!r}")  # fmt: skip
    from agents.solvers.situation_text import NO, YES

    starter = values.get("starter", "no").lower()
    if starter not in YES + NO:
        raise ValueError(f"{name}: starter= takes yes or no, got {values['starter']!r}")
    rolls = whole("rolls", 1)
    return Situation(totals, tuple(sorted(int(d) for d in digits)), 1 if rolls is None else rolls,
                     starter in YES, whole("limit", 1), whole("after", 0))  # fmt: skip


def situation_state(game: syvere.Game, s: Situation, name: str = "situation") -> syvere.State:
    """The engine's state of a situation, the mover in seat 0 and the others clockwise.

    Raises:
        ValueError: a situation the rules rule out, with the reason: totals not one per seat, the
            mover out, dice that make 7 with each other (SY-3 sets such pairs aside), no decision
            left (the roll limit reached), a limit above ``max_rolls``, more players after the
            mover than are in, or a key that does not go with ``starter=yes``.
    """
    n, E, M = game.num_players, game.elimination, game.max_rolls
    if len(s.totals) != n:
        raise ValueError(f"{name}: totals= gives {len(s.totals)} totals for a game of {n} players (one per seat)")
    if s.totals[0] >= E:
        raise ValueError(f"{name}: the mover's total {s.totals[0]} is at or above the elimination {E}: it is out")
    if syvere.set_aside_sevens(s.dice) != s.dice:
        raise ValueError(f"{name}: dice={''.join(map(str, s.dice))} holds a pair summing to 7, which SY-3 sets aside "
                         "at once: give the dice left after that")  # fmt: skip
    ins = [seat for seat in range(n) if s.totals[seat] < E]
    if s.starter:
        for key in ("limit", "after"):
            if getattr(s, key) is not None:
                raise ValueError(f"{name}: {key}= is for a player who did not start the round; the starter's limit "
                                 "is max_rolls and every other player still in plays after it")  # fmt: skip
        limit, after = M, len(ins) - 1
    else:
        limit = M if s.limit is None else s.limit
        after = 0 if s.after is None else s.after
        if limit > M:
            raise ValueError(f"{name}: limit={limit}: the starter may roll at most max_rolls={M} times")
        # The round's starter played before the mover: a player still in, or one who went out this round.
        most = len(ins) - 1 if len(ins) < n else len(ins) - 2
        if after > most:
            raise ValueError(f"{name}: after={after}: {len(ins) - 1} other player(s) are in, and the round's starter "
                             f"played before the mover, so at most {most} can play after it")  # fmt: skip
    if s.rolls >= limit:
        raise ValueError(f"{name}: rolls={s.rolls} of a limit of {limit}: the turn has ended (SY-4), there is no "
                         "decision")  # fmt: skip
    later = ins[1:1 + after]  # clockwise after the mover
    earlier = ins[1 + after:]  # the round's starter first, then up to the mover
    if not s.starter and not earlier:
        # Everyone else in plays after the mover, so the starter went out in this round: the players
        # who are out played before the mover (the observation, and so the solvers, cannot tell
        # which of them went out in this round).
        earlier = [seat for seat in range(1, n) if s.totals[seat] >= E]
    order = tuple(ins) if s.starter else (*earlier, 0, *later)
    return game.initial_state()._replace(
        totals=tuple(s.totals), totals_before_round=tuple(s.totals), round_order=order, turn=order.index(0),
        starter_rolls=0 if s.starter else limit, rolls=s.rolls, remaining=tuple(s.dice), to_roll=0,
    )  # fmt: skip


def describe_situation(options: dict, text: str, name: str = "situation", progress: bool = True,
                       cache_dir=None) -> dict:  # fmt: skip
    """Both choices of one Syvere decision valued by the one-turn solve and, with three or fewer
    players in, by the best response against ``heuristic``; see the module docstring.

    Args:
        progress: when the best response's tables are solved (the first time, with three or fewer
            players in), say so on stderr and show a progress bar per phase; ``False``: nothing on stderr.
        cache_dir: the solver cache those tables are read from and kept in (default: the package's).

    Returns:
        ``{"lines", "situation": {totals, dice, held, rolls, limit, starter, after, players_in},
        "turn": {"stop", "roll", "optimal"}`` (expected turn scores and ``optimal``'s choice)
        ``, "win": {"stop", "roll", "endgame"}`` (or ``None`` with four or more players in)``}``.

    Raises:
        ValueError: bad options or situation (checked before any solve).
    """
    from fractions import Fraction

    from agents.solvers import syvere as sy

    s = parse_situation(text, name)
    if len(s.totals) < 2:
        raise ValueError(f"{name}: totals= needs at least two seats (one total per seat), got {len(s.totals)}")
    if options.get("num_players", len(s.totals)) != len(s.totals):
        raise ValueError(f"{name}: totals= gives {len(s.totals)} totals for a game of {options['num_players']} players "
                         "(one per seat; or leave out --num-players)")  # fmt: skip
    game = syvere.Game(**{**options, "num_players": len(s.totals)})
    state = situation_state(game, s, name)
    limit = game.roll_limit(state)
    ins = sum(1 for t in s.totals if t < game.elimination)
    after = len(state.round_order) - 1 - state.turn
    obs = game.observe(state, 0)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[list(game.legal_actions(state))] = 1
    held = sum(s.dice)
    rolls_left = limit - s.rolls
    roll_on = sy.roll_value(len(s.dice), rolls_left)
    choice = {syvere.STOP: "stop", syvere.ROLL: "roll"}
    optimal = sy.OptimalAgent(game)
    turn = {"stop": held, "roll": float(roll_on), "optimal": choice[optimal.act(obs, mask)]}
    win = None
    if ins <= 3:
        from agents.solvers.syvere_endgame import EndgameAgent, load_tables

        # built here with the command's progress and cache (the agent alone announces a build without bars)
        load_tables(game, "heuristic", Fraction(0), cache_dir=cache_dir, progress=progress, bar=progress)
        agent = EndgameAgent(game, opponent="heuristic", ties=Fraction(0))
        values = agent.values(obs)
        assert values is not None  # three or fewer in, the mover among them
        win = {"stop": values[0], "roll": values[1], "endgame": choice[agent.act(obs, mask)]}
    shown = " ".join(f"{t}{' (out)' if t >= game.elimination else ''}" for t in s.totals)
    role = "started the round" if s.starter else f"did not start the round; {after} still to play after it"
    lines = [
        f"Syvere (elimination {game.elimination}, max_rolls {game.max_rolls}), {len(s.totals)} seats, {ins} in: "
        f"totals {shown} (the mover first, then in the order of play); the mover {role}",
        f"the mover holds {''.join(map(str, s.dice))} = {held} after roll {s.rolls} of at most {limit}",
        "one turn (expected turn score, lower is better):",
        f"  stop   {held:>9.4f}",
        f"  roll   {turn['roll']:>9.4f}  ({rolls_left} roll(s) left)",
        f"optimal plays {turn['optimal']}" + (" (as the starter it also weighs the limit its rolls leave the others)"
                                              if s.starter else ""),  # fmt: skip
    ]
    if ins == 1:
        lines.append("with everyone else out, endgame counts every player who is out (also those out before this round) "
                     "and values a tie on points at 1/2: a guess, as the totals before the round are not observed")
    if win is None:
        lines.append("the chance of winning needs the 4-player phase of the best response with four or more players "
                     "in (6.3 GB), which the endgame agent does not hold; it plays optimal:starter_weight=3/4 here")
    else:
        best = max(("stop", "roll"), key=lambda c: (win[c], c == "stop"))
        tied = (" (a tie on points when all three go out in one round counted as lost, as the solver's 3-player "
                "phase does)" if ins == 3 else "")  # fmt: skip
        lines += [
            f"the chance of winning against heuristic in every other seat, the best response after{tied}:",
            *(f"  {c:<5}  {win[c]:>9.6f}" + ("  <- best" if c == best else "") for c in ("stop", "roll")),
            f"endgame plays {win['endgame']}",
        ]
    return {
        "lines": lines,
        "situation": {"totals": list(s.totals), "dice": "".join(map(str, s.dice)), "held": held, "rolls": s.rolls,
                      "limit": limit, "starter": s.starter, "after": after, "players_in": ins},  # fmt: skip
        "turn": turn,
        "win": win,
    }


__all__ = ["KEYS", "Situation", "describe_situation", "parse_situation", "situation_state"]
