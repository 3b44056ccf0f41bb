"""Syvere ("Sevens"): the pure rules engine (docs/rules.md SY-1..SY-12, source: seed 000).

Push your luck with six dice: after every roll the pairs that sum to 7 are set aside, and the dice
that remain when the turn ends are added to your total. Low totals are good; at 77 you are out.

Example (SY-7, the worked example of the source):

    >>> g = Game(num_players=2)
    >>> s = g.apply_chance(g.initial_state(), (2, 2, 4, 5, 6, 6))
    >>> s.remaining
    (2, 4, 6, 6)
    >>> s = g.apply_chance(g.apply_action(s, ROLL), (1, 1, 2, 6))
    >>> s.remaining
    (1, 2)
    >>> g.scores(g.apply_action(s, STOP))
    (3, 0)

Interpretations (docs/rules.md):

* SY-9: the game ends only at the end of a round, so a round is always finished for the players
  yet to play in it even after someone reaches 77. If nobody is still in at its end, only the
  players of that final round count (a player out in an earlier round cannot win): the fewest
  points wins, then the fewest points before that round; players still tied share the win.
* SY-10: seats sit clockwise and play passes clockwise, so the player "to the right" of the
  previous starter is the previous seat (s-1, s-2, ... still in the game).
* SY-3: pairs summing to 7 are set aside by rule after every roll, not by choice.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from dice_envs import dice as dice_mod
from dice_envs.errors import IllegalActionError
from dice_envs.games import base

ROLL = 0
STOP = 1
ACTION_STRINGS = ("roll", "stop")  # SY-12
NUM_DICE = 6
MAX_TURN_SCORE = 6 * NUM_DICE
#: Upper bounds of the options (13 times the seed's 77; 33 times its 3 rolls): far above any game a
#: person plays, and they keep every observation bound a small exact float32 number.
MAX_ELIMINATION = 1000
MAX_ROLLS = 100


class State(NamedTuple):
    """An immutable Syvere state.

    Attributes:
        totals: every seat's total, in seat order.
        totals_before_round: the totals when this round began (the SY-9 tie-break).
        round_order: the seats that play this round, the round's starter first, clockwise.
        turn: index in ``round_order`` of the player whose turn it is.
        starter_rolls: how many times this round's starter rolled (0 while the starter plays).
        rolls: rolls made in the current turn.
        remaining: the dice left after the last roll's pairs were set aside (``()`` before the
            first roll of a turn).
        to_roll: dice that must be rolled now; 0 at a decision or at the end.
        winners: the winning seats once the game is over, else ``None``.
        round: the round number, from 1.
        last_turn: ``(seat, points)`` of the last finished turn, or ``None``.
    """

    totals: tuple[int, ...]
    totals_before_round: tuple[int, ...]
    round_order: tuple[int, ...]
    turn: int
    starter_rolls: int
    rolls: int
    remaining: tuple[int, ...]
    to_roll: int
    winners: tuple[int, ...] | None
    round: int
    last_turn: tuple[int, int] | None = None


_make = State._make


@lru_cache(maxsize=None)
def set_aside_sevens(dice) -> tuple[int, ...]:
    """SY-3: remove every disjoint pair summing to 7 and return the remaining dice, sorted.

    >>> set_aside_sevens((1, 1, 2, 6))
    (1, 2)
    >>> set_aside_sevens((1, 2, 3, 4, 5, 6))
    ()
    """
    counts = list(dice_mod.face_counts(dice))
    for low in (1, 2, 3):  # pairs (1,6), (2,5), (3,4)
        pairs = min(counts[low - 1], counts[6 - low])
        counts[low - 1] -= pairs
        counts[6 - low] -= pairs
    return tuple(face for face in dice_mod.FACES for _ in range(counts[face - 1]))


def _times(rolls: int) -> str:
    return f"{rolls} roll{'s' if rolls != 1 else ''}"


class Game(base.Game):
    """Syvere for 2..8 players.

    Args:
        num_players: 2..8 (SY-1).
        elimination: a total at or above this is out (SY-8), 1..1000; default 77.
        max_rolls: the starter's roll limit (SY-6), 1..100; default 3.
        next_starter: ``"right"`` (SY-10, default) or ``"left"``.
        first_starter: the seat that starts the first round (C-4); default 0.
    """

    name = "syvere"

    _MEMOS = ("_heads",)
    CHOICES = {"next_starter": ("right", "left")}

    def __init__(
        self,
        num_players: int = 2,
        elimination: int = 77,
        max_rolls: int = 3,
        next_starter: str = "right",
        first_starter: int = 0,
    ):
        self.num_players = base.check_num_players(num_players)
        self.elimination = base.check_int("elimination", elimination, 1, MAX_ELIMINATION)
        self.max_rolls = base.check_int("max_rolls", max_rolls, 1, MAX_ROLLS)
        self.next_starter = base.check_choice("next_starter", next_starter, self.CHOICES["next_starter"])
        self.first_starter = base.check_int("first_starter", first_starter, 0, self.num_players - 1)
        self.num_actions = len(ACTION_STRINGS)
        n = self.num_players
        max_total = self.elimination - 1 + MAX_TURN_SCORE
        self.observation_low, self.observation_high = base.bounds(
            (n, 0, max_total),  # totals, own first
            (n, 0, 1),  # still in
            (n, 0, 1),  # who acts (one-hot, own first)
            (1, 0, self.max_rolls),  # rolls made this turn
            (1, 0, self.max_rolls),  # roll limit of this turn
            (1, 0, NUM_DICE),  # remaining dice
            (6, 0, NUM_DICE),  # remaining dice by face 1..6
            (1, 0, MAX_TURN_SCORE),  # sum of the remaining dice
            (1, 0, 1),  # the acting player started this round
            (1, 0, n - 1),  # players still to play in this round after the acting one
        )
        # The global state (global_state): seat 0's observation, whose seats are absolute, then
        # what the observations leave out. Names as in the module docstring's table.
        self.state_slices, self.state_low, self.state_high = base.layout([
            ("totals", n, 0, max_total),
            ("still_in", n, 0, 1),
            ("to_act", n, 0, 1),
            ("rolls", 1, 0, self.max_rolls),
            ("roll_limit", 1, 0, self.max_rolls),
            ("dice_left", 1, 0, NUM_DICE),
            ("remaining", 6, 0, NUM_DICE),
            ("remaining_sum", 1, 0, MAX_TURN_SCORE),
            ("actor_started", 1, 0, 1),
            ("still_to_play", 1, 0, n - 1),
            ("to_roll", 1, 0, NUM_DICE),
            ("in_round", n, 0, 1),
            ("starter", n, 0, 1),
            ("totals_before_round", n, 0, max_total),
            ("game_over", 1, 0, 1),
            ("winners", n, 0, 1),
        ])  # fmt: skip
        self._observation_size = len(self.observation_low)
        # Precomputed pieces of observe(): seats listed from each observer, one-hot rows.
        self._rotations = [[(p + i) % n for i in range(n)] for p in range(n)]
        self._one_hot = [[1 if i == j else 0 for i in range(n)] for j in range(n)]
        self._zeros_after_totals = [0] * (len(self.observation_low) - 2 * n)
        self._heads: dict[tuple, list[int]] = {}

    # -- state ------------------------------------------------------------------------------
    def initial_state(self) -> State:
        zeros = (0,) * self.num_players
        order = tuple((self.first_starter + i) % self.num_players for i in range(self.num_players))
        return State(zeros, zeros, order, 0, 0, 0, (), NUM_DICE, None, 1)

    def scores(self, state: State) -> tuple[int, ...]:
        return state.totals

    def still_in(self, state: State) -> tuple[int, ...]:
        """Seats whose total is below the elimination mark (SY-8)."""
        return tuple(s for s, t in enumerate(state.totals) if t < self.elimination)

    def has_decisions(self) -> bool:
        """SY-4: a choice comes only after a roll below the limit, so ``max_rolls=1`` has none."""
        return self.max_rolls > 1

    def roll_limit(self, state: State) -> int:
        """SY-6: the starter may roll ``max_rolls`` times, the others as often as the starter did."""
        return self.max_rolls if state.turn == 0 else state.starter_rolls

    # -- chance -----------------------------------------------------------------------------
    def apply_chance(self, state: State, dice) -> State:
        if state.to_roll == 0:
            raise ValueError("apply_chance: no dice are to be rolled in this state")
        remaining = set_aside_sevens(base.check_dice(dice, state.to_roll))
        rolls = state.rolls + 1
        limit = self.max_rolls if state.turn == 0 else state.starter_rolls
        if not remaining or rolls >= limit:
            return self._end_turn(state, rolls, remaining)  # SY-4: the turn ends by itself
        # The two hot transitions build the tuple directly: NamedTuple._replace costs
        # several times more, and these run on every roll and every decision.
        return _make((*state[:5], rolls, remaining, 0, *state[8:]))

    # -- decisions --------------------------------------------------------------------------
    def current_player(self, state: State) -> int:
        return state.round_order[state.turn] if state.winners is None else base.TERMINAL

    def legal_actions(self, state: State) -> list[int]:
        if state.winners is not None or state.to_roll:
            return []
        return [ROLL, STOP]

    def apply_action(self, state: State, action: int) -> State:
        if type(action) is not int or state.winners is not None or state.to_roll or action not in (ROLL, STOP):
            action = self._check_action(state, action)  # the input rule; raises, naming the action
        if action == ROLL:
            return _make((*state[:7], len(state.remaining), *state[8:]))
        return self._end_turn(state, state.rolls, state.remaining)

    def action_to_string(self, state: State, action: int) -> str:
        if type(action) is not int:
            action = base.action_id(action)
        if action not in (ROLL, STOP):
            raise IllegalActionError(f"unknown syvere action id {action!r}; ids are 0 (roll) and 1 (stop)", action=action)
        return ACTION_STRINGS[action]

    # -- turn and round ends ----------------------------------------------------------------
    def _end_turn(self, state: State, rolls: int, remaining: tuple[int, ...]) -> State:
        """Score the turn (SY-5) and pass play to the next player of the round, or end it."""
        seat = state.round_order[state.turn]
        points = sum(remaining)
        totals = list(state.totals)
        totals[seat] += points
        turn = state.turn + 1
        starter_rolls = rolls if state.turn == 0 else state.starter_rolls
        # Positional, in State's field order: this runs at the end of every turn.
        state = _make((tuple(totals), state.totals_before_round, state.round_order, turn, starter_rolls,
                       0, (), NUM_DICE, None, state.round, (seat, points)))  # fmt: skip
        if turn < len(state.round_order):  # SY-2: the next player of this round
            return state
        return self._end_round(state)

    def _end_round(self, state: State) -> State:
        still_in = self.still_in(state)
        if len(still_in) == 1:  # SY-9
            return state._replace(winners=still_in, to_roll=0)
        if not still_in:
            played = state.round_order
            fewest = min(state.totals[s] for s in played)
            tied = [s for s in played if state.totals[s] == fewest]
            fewest_before = min(state.totals_before_round[s] for s in tied)
            winners = tuple(sorted(s for s in tied if state.totals_before_round[s] == fewest_before))
            return state._replace(winners=winners, to_roll=0)
        starter = self._next_starter(state.round_order[0], still_in)
        n = self.num_players
        order = tuple((starter + i) % n for i in range(n) if (starter + i) % n in still_in)
        return State(
            totals=state.totals,
            totals_before_round=state.totals,
            round_order=order,
            turn=0,
            starter_rolls=0,
            rolls=0,
            remaining=(),
            to_roll=NUM_DICE,
            winners=None,
            round=state.round + 1,
            last_turn=state.last_turn,
        )

    def _next_starter(self, previous: int, still_in: tuple[int, ...]) -> int:
        """SY-10: the nearest seat still in to the right (counter-clockwise) or left."""
        step = -1 if self.next_starter == "right" else 1
        seat = previous
        for _ in range(self.num_players):
            seat = (seat + step) % self.num_players
            if seat in still_in:
                return seat
        raise AssertionError("no player still in")  # unreachable: callers check still_in

    # -- observation ------------------------------------------------------------------------
    def observe(self, state: State, player: int) -> np.ndarray:
        if type(player) is not int or not 0 <= player < self.num_players:
            player = base.seat_index(player, self.num_players)
        # The totals part changes once a turn: it is kept per (totals, observer).
        key = (state.totals, player)
        head = self._heads.get(key)
        if head is None:
            if len(self._heads) > 50_000:
                self._heads.clear()
            seats = self._rotations[player]
            totals = state.totals
            head = [totals[s] for s in seats] + [1 if totals[s] < self.elimination else 0 for s in seats]
            self._heads[key] = head
        obs = head.copy()
        if state.winners is not None:
            obs += self._zeros_after_totals
            return np.array(obs, dtype=np.float32)
        acting = self._one_hot[(state.round_order[state.turn] - player) % self.num_players]
        if state.rolls:
            remaining = state.remaining
            obs += acting
            obs += (state.rolls, self.roll_limit(state), len(remaining))
            obs += dice_mod.face_counts(remaining)
            obs.append(sum(remaining))
        else:
            obs += acting
            obs += (0, self.roll_limit(state), NUM_DICE, 0, 0, 0, 0, 0, 0, 0)
        obs += (1 if state.turn == 0 else 0, len(state.round_order) - 1 - state.turn)
        return np.array(obs, dtype=np.float32)

    def global_state(self, state: State) -> np.ndarray:
        """The global state (:meth:`base.Game.global_state`): ``observe(state, 0)``, whose seats
        are absolute, then the dice to roll now, which seats play this round and who started it
        (together they give the round's order, hence whose turn follows, and the next round's
        starter, SY-10), the totals before the round (SY-9's tie-break when everyone left goes
        out) and, once the game is over, the winners. Layout: ``state_slices`` and the table in
        :mod:`dice_envs.syvere_v0`. Nothing is clipped: it is a Markov state exactly.
        """
        n = self.num_players
        tail = [0] * (len(self.state_low) - self._observation_size)
        tail[0] = state.to_roll
        for seat in state.round_order:  # the final round's, once the game is over
            tail[1 + seat] = 1
        tail[1 + n + state.round_order[0]] = 1
        tail[1 + 2 * n : 1 + 3 * n] = state.totals_before_round
        if state.winners is not None:
            tail[1 + 3 * n] = 1
            for seat in state.winners:
                tail[2 + 3 * n + seat] = 1
        return np.concatenate((self.observe(state, 0), np.array(tail, dtype=np.float32)))

    def score_changes(self, before: State, after: State) -> list[tuple[int, int, int]]:
        """The score line of every turn that ended between the two states, however it ended: a
        stop, the roll limit, or every die set aside (a turn of 0 points, which changes no total)."""
        if after.turn == before.turn and after.round == before.round:
            return []  # the same turn goes on
        assert after.last_turn is not None  # set by every turn end (_end_turn)
        seat = after.last_turn[0]
        return [(seat, before.totals[seat], after.totals[seat])]

    def change_lines(self, before: State, after: State) -> list[str]:
        """The score line of a turn that ended, with what a person at the table would be told around
        it: why the turn ended when nobody chose to stop (every die paired off, SY-3; the roll limit,
        SY-6), who went out (SY-8), how the winner was decided (SY-9) and who starts the next round
        with how many rolls (SY-6, SY-10)."""
        changes = self.score_changes(before, after)
        if not changes:
            return []
        seat, old, new = changes[0]
        points = new - old
        lines = []
        if before.to_roll:  # the turn ended on a roll, not on a stop
            rolls = before.rolls + 1
            if not points:
                lines.append(f"player_{seat}'s turn ends: all dice paired off, 0 points")
            elif before.turn == 0:
                lines.append(f"player_{seat}'s turn ends: {_times(rolls)}, the most a starter may make")
            else:
                lines.append(
                    f"player_{seat}'s turn ends: {_times(rolls)}, as many as the starter "
                    f"(player_{before.round_order[0]}) made"
                )
        lines.append(f"player_{seat}: {old} -> {new} ({points:+d})")
        if old < self.elimination <= new:
            lines.append(f"player_{seat} is out ({self.elimination} or more)")
        if after.winners is not None:
            lines.append(self._winner_line(after))
        elif after.round != before.round:
            lines.append(
                f"round {after.round}: player_{after.round_order[0]} starts, up to {_times(self.max_rolls)}"
            )
        return lines

    def _winner_line(self, state: State) -> str:
        """How the winners of a finished game were decided (SY-9)."""
        winners = state.winners
        assert winners is not None  # called only once the game is over
        if len(winners) == 1 and state.totals[winners[0]] < self.elimination:
            return f"player_{winners[0]} wins: the only player still in"
        said = "every player still in went out this round"
        fewest = min(state.totals[s] for s in state.round_order)
        tied = sorted(s for s in state.round_order if state.totals[s] == fewest)
        if len(tied) == 1:
            return f"{said}: the fewest points wins, player_{tied[0]} with {fewest}"
        said += f": {base.seat_names(tied)} tie at {fewest} points"
        before = state.totals_before_round
        if len(winners) == len(tied):
            return f"{said} and had {before[tied[0]]} each before the round: they share the win"
        others = ", ".join(f"player_{s} had {before[s]}" for s in tied if s not in winners)
        if len(winners) == 1:
            best = winners[0]
            return f"{said}; the fewest before the round wins, player_{best} with {before[best]} ({others})"
        return (
            f"{said}; the fewest before the round wins: {base.seat_names(sorted(winners))} share the win with "
            f"{before[winners[0]]} each ({others})"
        )

    def render(self, state: State) -> str:
        # The last turn's score is in the text log (change_lines), not here: a line "player_1's turn
        # scored 6" above the table would stay while the next player rolls again.
        lines = [f"Syvere, round {state.round} (out at {self.elimination})"]
        acting = None if state.winners is not None else state.round_order[state.turn]
        for seat, total in enumerate(state.totals):
            marks = []
            if seat == acting:
                marks.append("<- to play")
            if state.winners is None and seat == state.round_order[0]:
                marks.append("started the round")
            if total >= self.elimination:
                marks.append("out")
            if state.winners is not None and seat in state.winners:
                marks.append("WINNER")
            lines.append(f"  player_{seat}: {total:3d}  {', '.join(marks)}".rstrip())
        if acting is not None and state.rolls:
            left = self.roll_limit(state) - state.rolls
            lines.append(
                f"  dice left: {dice_mod.to_unicode(state.remaining)} = {sum(state.remaining)}"
                f"  (roll {state.rolls} of {self.roll_limit(state)}, {left} left)"
            )
        return "\n".join(lines)
