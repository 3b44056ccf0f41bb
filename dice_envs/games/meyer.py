"""Meyer: the pure rules engine (docs/rules.md ME-1..ME-10, source: seed 003).

A bluffing game with two dice under a cup. The round's starter rolls hidden, looks and claims a
value, true or not. The next player still in either doubts (the cup is lifted: a lie costs the
claimer a life, a true claim costs the doubter) or believes: they roll again without seeing the
previous dice, look, and must claim at least as high. A player with no lives left is out.

Example (a true claim of ``54`` doubted; the doubter loses a life and starts the next round):

    >>> g = Game(num_players=2)
    >>> s = g.apply_chance(g.initial_state(), (5, 4))
    >>> g.current_player(s), g.action_to_string(s, g.string_to_action(s, "claim 54"))
    (0, 'claim 54')
    >>> s = g.apply_action(s, g.string_to_action(s, "claim 54"))
    >>> s = g.apply_action(s, DOUBT)
    >>> g.scores(s), g.current_player(s)
    ((6, 5), 1)

The ranking of ME-2 lives in one place, :func:`ranking`; every comparison goes through the
``rank`` table built from it in :class:`Game`.

Hidden information (ME-8): the state holds the true dice under the cup (``State.cup``) and which
seat saw them (``State.seen_by``, -1 for nobody: the blind reroll of ME-5). ``observe`` and
:meth:`Game.render_for` show the cup only to that seat; dice shown by a doubt are public.
:meth:`Game.render` is the omniscient view (it shows the cup to everyone): use it for logs and
replays, and :meth:`Game.render_for` for a person sitting at the table.

Interpretations (docs/rules.md):

* A claim is true when the dice rank at or above it, so an under-claim is not a lie (seed 003
  says only "if the previous player lied").
* The blind reroll (``blind_reroll=True``) is for a believing player who has seen their first
  roll, once per turn; not for a round's starter, who has nothing to beat.
* The game's first round is started by ``first_starter``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

import numpy as np

from dice_envs import dice as dice_mod
from dice_envs.errors import IllegalActionError
from dice_envs.games import base

# -- actions (ME-10) ---------------------------------------------------------------------------
DOUBT = 0
BELIEVE = 1
REROLL = 2
FIRST_CLAIM = 3  # action id of claim index 0; claim index c is action FIRST_CLAIM + c

#: The 21 values as (higher die, lower die), in the order of ME-2 with Lille Meyer: claim index
#: 0 is ``21`` (Meyer), 1 is ``31`` (Lille Meyer), 2 is ``66`` ... 20 is ``32``. This order fixes
#: the action ids (claim index c is action ``3 + c``) whatever the variant; the variant only
#: changes the ranking (:func:`ranking`).
CLAIMS: tuple[tuple[int, int], ...] = (
    (2, 1), (3, 1),
    (6, 6), (5, 5), (4, 4), (3, 3), (2, 2), (1, 1),
    (6, 5), (6, 4), (6, 3), (6, 2), (6, 1),
    (5, 4), (5, 3), (5, 2), (5, 1),
    (4, 3), (4, 2), (4, 1),
    (3, 2),
)  # fmt: skip
NUM_CLAIMS = len(CLAIMS)
CLAIM_NAMES = tuple(f"{high}{low}" for high, low in CLAIMS)
MEYER = 0
LILLE_MEYER = 1
ACTION_STRINGS = ("doubt", "believe", "reroll") + tuple(f"claim {name}" for name in CLAIM_NAMES)
NUM_DICE = 2

#: Claim index of two dice, keyed by the sorted tuple (``(4, 5)`` -> index of ``54``).
CLAIM_OF_DICE: dict[tuple[int, ...], int] = {(low, high): c for c, (high, low) in enumerate(CLAIMS)}
#: Exact chance of rolling each value with two fair dice: 2/36 for mixed values, 1/36 for pairs.
CLAIM_PROBABILITY: tuple[Fraction, ...] = tuple(
    Fraction(1 if high == low else 2, 36) for high, low in CLAIMS
)

# phases
RESPOND = 0  # the actor chooses doubt or believe
CLAIM = 1  # the actor rolls (to_roll == 2) and then claims (or rerolls blind)
OVER = 2

CLAIM_RULES = ("at_least", "higher")
END_RULES = ("last_standing", "first_out")
MAX_HISTORY = 64
#: Upper bound of ``lives`` and ``meyer_costs`` (the seed plays with 6 lives and a cost of 2): far
#: above any game a person plays, and it keeps the observation bounds small exact float32 numbers.
MAX_LIVES = 100


def ranking(lille_meyer: bool = True) -> tuple[int, ...]:
    """ME-2: the claim indices from best to worst.

    With Lille Meyer, ``21 > 31 > 66 > 55 > ... > 11 > 65 > 64 > ... > 32``; without it ``31``
    is an ordinary roll and the lowest of all, below ``32``.

    >>> [CLAIM_NAMES[c] for c in ranking(False)][-3:]
    ['41', '32', '31']
    """
    order = list(range(NUM_CLAIMS))  # CLAIMS is written in the Lille Meyer order
    if not lille_meyer:
        order.remove(LILLE_MEYER)
        order.append(LILLE_MEYER)
    return tuple(order)


def claim_of(dice) -> int:
    """The claim index of two dice given in any order, e.g. ``claim_of((4, 5))`` is ``54``'s."""
    return CLAIM_OF_DICE[dice_mod.normalize(dice, NUM_DICE)]


def claim_index(text: str) -> int:
    """The claim index of a value written ``"54"`` (either order of the digits is accepted)."""
    digits = "".join(str(text).split())
    if len(digits) != 2 or not digits.isdigit() or not all("1" <= d <= "6" for d in digits):
        raise ValueError(f"a claim is two dice faces 1..6 such as '54' or '21', got {text!r}")
    return claim_of((int(digits[0]), int(digits[1])))


class Doubt(NamedTuple):
    """The last lifted cup, seen by everyone (ME-4, ME-8).

    Attributes:
        dice: the dice shown, sorted.
        claim: the claim index that was doubted.
        claim_blind: whether that claim was made after a blind reroll.
        claimer: the seat that made the claim.
        doubter: the seat that doubted.
        loser: the seat that lost the life (lives): the claimer if the claim was a lie.
        lost: how many lives the loser actually lost (``meyer_costs`` for a doubted ``21``, but
            never more than they had).
    """

    dice: tuple[int, int]
    claim: int
    claim_blind: bool
    claimer: int
    doubter: int
    loser: int
    lost: int


class State(NamedTuple):
    """An immutable Meyer state.

    Attributes:
        lives: every seat's lives, in seat order.
        actor: the seat to act (or to roll); -1 once the game is over.
        phase: ``RESPOND`` (doubt or believe), ``CLAIM`` (roll, then claim) or ``OVER``.
        to_roll: 2 when the actor must roll now (a round start, after ``believe``, after
            ``reroll``), else 0.
        blind: the actor made the blind reroll in this turn (ME-5); public.
        cup: the true dice under the cup, sorted; ``()`` when there are none.
        seen_by: the seat that has seen ``cup``; -1 when nobody has (the blind reroll).
        claim: the claim to beat (claim index), -1 at a round start.
        claimer: the seat that made ``claim``, -1 at a round start.
        claim_blind: ``claim`` was made after a blind reroll.
        claims: the last ``history`` claims of this round, oldest first, as
            ``(claim index, seat, blind)``.
        last_doubt: the last lifted cup (:class:`Doubt`), ``None`` before the first doubt.
        winners: the winning seats once the game is over, else ``None``.
        round: the round number, from 1.
    """

    lives: tuple[int, ...]
    actor: int
    phase: int
    to_roll: int
    blind: bool
    cup: tuple[int, ...]
    seen_by: int
    claim: int
    claimer: int
    claim_blind: bool
    claims: tuple[tuple[int, int, bool], ...]
    last_doubt: Doubt | None
    winners: tuple[int, ...] | None
    round: int


def _new_state(*fields) -> State:
    """A :class:`State` from its fields in order (faster than ``State(...)`` or ``_replace``)."""
    return tuple.__new__(State, fields)


class Game(base.Game):
    """Meyer for 2..8 players.

    Args:
        num_players: 2..8 (ME-1).
        lives: lives of every player at the start, 1..100 (ME-1); default 6.
        lille_meyer: ``31`` ranks second (True, default) or lowest of all (ME-2).
        claim_rule: ``"at_least"`` (default: a claim at least as high as the previous one) or
            ``"higher"`` (strictly higher; a claim of ``21`` can then only be doubted) (ME-4).
        blind_reroll: allow a believing player one unseen second roll (ME-5); default False.
        meyer_costs: lives lost by whoever loses the doubt of a ``21`` claim (ME-6), 1..100;
            default 1.
        end: ``"last_standing"`` (default: the last player with lives wins) or ``"first_out"``
            (the first player to lose their last life loses, all others win) (ME-7).
        first_starter: the seat that starts the first round (C-4); default 0.
        history: how many of the current round's claims the observation lists, most recent
            first (0..64); default 8. Older claims of the round drop out of the window.
    """

    name = "meyer"

    _MEMOS = ("_cache_lives", "_cache_turn", "_cache_history", "_cache_doubt")
    CHOICES = {"claim_rule": tuple(CLAIM_RULES), "end": tuple(END_RULES)}

    def __init__(
        self,
        num_players: int = 2,
        lives: int = 6,
        lille_meyer: bool = True,
        claim_rule: str = "at_least",
        blind_reroll: bool = False,
        meyer_costs: int = 1,
        end: str = "last_standing",
        first_starter: int = 0,
        history: int = 8,
    ):
        self.num_players = base.check_num_players(num_players)
        self.lives = base.check_int("lives", lives, 1, MAX_LIVES)
        self.lille_meyer = base.check_bool("lille_meyer", lille_meyer)
        self.claim_rule = base.check_choice("claim_rule", claim_rule, self.CHOICES["claim_rule"])
        self.blind_reroll = base.check_bool("blind_reroll", blind_reroll)
        self.meyer_costs = base.check_int("meyer_costs", meyer_costs, 1, MAX_LIVES)
        self.end = base.check_choice("end", end, self.CHOICES["end"])
        self.first_starter = base.check_int("first_starter", first_starter, 0, self.num_players - 1)
        self.history = base.check_int("history", history, 0, MAX_HISTORY)
        self.num_actions = len(ACTION_STRINGS)
        n = self.num_players

        # The ranking, as a table: rank[c] is 0 for the worst value .. 20 for Meyer.
        self.ranking = ranking(self.lille_meyer)
        rank = [0] * NUM_CLAIMS
        for position, c in enumerate(self.ranking):
            rank[c] = NUM_CLAIMS - 1 - position
        self.rank: tuple[int, ...] = tuple(rank)
        self.claim_of_rank: tuple[int, ...] = tuple(reversed(self.ranking))  # worst first
        strict = self.claim_rule == "higher"
        # Legal claims given the claim to beat (index; key -1 is a round start).
        self._claims_after: dict[int, tuple[int, ...]] = {-1: tuple(range(NUM_CLAIMS))}
        for b in range(NUM_CLAIMS):
            self._claims_after[b] = tuple(
                c for c in range(NUM_CLAIMS) if (rank[c] > rank[b] if strict else rank[c] >= rank[b])
            )
        # Legal action lists: responses by claim to beat; claims by (claim to beat, may reroll).
        self._respond_actions = {
            b: (DOUBT, BELIEVE) if self._claims_after[b] else (DOUBT,) for b in range(NUM_CLAIMS)
        }
        self._claim_actions = {
            (b, reroll): ((REROLL,) if reroll else ()) + tuple(FIRST_CLAIM + c for c in claims)
            for b, claims in self._claims_after.items()
            for reroll in (False, True)
        }
        self._claim_action_sets = {key: frozenset(v) for key, v in self._claim_actions.items()}
        self._respond_action_sets = {key: frozenset(v) for key, v in self._respond_actions.items()}
        # P(a fresh roll ranks at or above claim c), exact.
        self.probability_at_least: tuple[Fraction, ...] = tuple(
            sum((CLAIM_PROBABILITY[d] for d in range(NUM_CLAIMS) if rank[d] >= rank[c]), Fraction(0))
            for c in range(NUM_CLAIMS)
        )
        self._next_seat = tuple((s + 1) % n for s in range(n))

        # -- observation layout (documented in dice_envs.meyer_v0) ----------------------------
        max_lost = max(1, min(self.meyer_costs, self.lives))
        pieces = [
            ("lives", n, 0, self.lives),
            ("in_game", n, 0, 1),
            ("to_act", n, 0, 1),
            ("respond", 1, 0, 1),
            ("claim_phase", 1, 0, 1),
            ("actor_rerolled", 1, 0, 1),
            ("beat_rank", 1, 0, NUM_CLAIMS),
            ("beat_claim", NUM_CLAIMS, 0, 1),
            ("beat_by", n, 0, 1),
            ("beat_blind", 1, 0, 1),
            ("own_known", 1, 0, 1),
            ("own_dice", 2, 0, 6),
            ("own_rank", 1, 0, NUM_CLAIMS),
            ("own_claim", NUM_CLAIMS, 0, 1),
        ]
        for h in range(self.history):
            pieces += [
                (f"history_{h}_present", 1, 0, 1),
                (f"history_{h}_rank", 1, 0, NUM_CLAIMS),
                (f"history_{h}_blind", 1, 0, 1),
                (f"history_{h}_by", n, 0, 1),
            ]
        pieces += [
            ("doubt_seen", 1, 0, 1),
            ("doubt_dice", 2, 0, 6),
            ("doubt_rank", 1, 0, NUM_CLAIMS),
            ("doubt_claim_rank", 1, 0, NUM_CLAIMS),
            ("doubt_claim_blind", 1, 0, 1),
            ("doubt_claimer", n, 0, 1),
            ("doubt_doubter", n, 0, 1),
            ("doubt_loser", n, 0, 1),
            ("doubt_lie", 1, 0, 1),
            ("doubt_lost", 1, 0, max_lost),
        ]
        #: name -> slice of the observation vector (the table in dice_envs.meyer_v0).
        self.obs_slices: dict[str, slice] = {}
        start = 0
        for name, length, _, _ in pieces:
            self.obs_slices[name] = slice(start, start + length)
            start += length
        self.observation_low, self.observation_high = base.bounds(*((k, lo, hi) for _, k, lo, hi in pieces))
        self._size = start
        self._o = {name: s.start for name, s in self.obs_slices.items()}
        self._history_stride = n + 3
        # The global state (global_state): the observation's layout as seat 0 would see it if it
        # had seen the cup (own_* become cup_*), then what the observations leave out. Names as
        # in dice_envs.meyer_v0's table.
        renamed = {"own_known": "cup_present", "own_dice": "cup_dice", "own_rank": "cup_rank"}
        renamed["own_claim"] = "cup_claim"
        state_pieces = [(renamed.get(name, name), k, lo, hi) for name, k, lo, hi in pieces]
        state_pieces += [
            ("to_roll", 1, 0, NUM_DICE),
            ("cup_seen_by", n, 0, 1),
            ("game_over", 1, 0, 1),
            ("winners", n, 0, 1),
        ]
        self.state_slices, self.state_low, self.state_high = base.layout(state_pieces)
        self._cache_lives: dict = {}
        self._cache_turn: dict = {}
        self._cache_history: dict = {}
        self._cache_doubt: dict = {}

    # -- state ------------------------------------------------------------------------------
    def initial_state(self) -> State:
        return State(
            lives=(self.lives,) * self.num_players,
            actor=self.first_starter,
            phase=CLAIM,
            to_roll=NUM_DICE,
            blind=False,
            cup=(),
            seen_by=-1,
            claim=-1,
            claimer=-1,
            claim_blind=False,
            claims=(),
            last_doubt=None,
            winners=None,
            round=1,
        )

    def scores(self, state: State) -> tuple[int, ...]:
        return state.lives

    def still_in(self, state: State) -> tuple[int, ...]:
        """Seats with lives left (ME-7)."""
        return tuple(s for s, life in enumerate(state.lives) if life > 0)

    def legal_claims(self, claim_to_beat: int) -> tuple[int, ...]:
        """Claim indices allowed over ``claim_to_beat`` (-1: a round start, anything goes)."""
        return self._claims_after[claim_to_beat]

    def is_true(self, dice, claim: int) -> bool:
        """Whether a claim is true of these dice: they rank at or above it (Interpretation)."""
        return self.rank[claim_of(dice)] >= self.rank[claim]

    def may_reroll(self, state: State) -> bool:
        """ME-5: a believing player who has seen their first roll may roll once more, blind."""
        return (
            self.blind_reroll
            and state.phase == CLAIM
            and state.to_roll == 0
            and state.claim >= 0
            and not state.blind
        )

    # -- chance -----------------------------------------------------------------------------
    def chance_seen_by(self, state: State) -> tuple[int, ...] | None:
        """The roller sees a normal roll; nobody sees the blind reroll (ME-3, ME-5)."""
        if state.to_roll == 0:
            raise ValueError("chance_seen_by: no dice are to be rolled in this state")
        return () if state.blind else (state.actor,)

    def settled_return(self, state: State, seat: int) -> float | None:
        """A player out of lives can no longer win: under ``last_standing`` the game goes on without
        it and ends with one winner, so its return is already the losers' share, -1/(N-1)."""
        if state.winners is None and state.lives[seat] == 0:
            return -1.0 / (self.num_players - 1)
        return super().settled_return(state, seat)

    def revealed(self, state: State, action: int) -> tuple[int, ...] | None:
        """A doubt lifts the cup: every seat sees the dice under it (ME-4)."""
        return state.cup if action == DOUBT and state.phase == RESPOND else None

    def apply_chance(self, state: State, dice) -> State:
        if state.to_roll == 0:
            raise ValueError("apply_chance: no dice are to be rolled in this state")
        dice = base.check_dice(dice, NUM_DICE)  # the input rule: plain ints, sorted
        lives, actor, phase, _, blind, _, _, claim, claimer, claim_blind, claims, last, winners, rnd = state
        seen_by = -1 if blind else actor  # ME-3: the roller sees the dice; ME-5: blind, nobody
        return _new_state(lives, actor, phase, 0, blind, dice, seen_by, claim, claimer, claim_blind, claims, last, winners, rnd)

    # -- decisions --------------------------------------------------------------------------
    def current_player(self, state: State) -> int:
        return state.actor  # base.TERMINAL (-1) once the game is over

    def _legal_set(self, state: State) -> frozenset:
        phase = state.phase
        if phase == RESPOND:
            return self._respond_action_sets[state.claim]
        if phase == CLAIM and not state.to_roll:
            claim = state.claim
            return self._claim_action_sets[(claim, self.blind_reroll and claim >= 0 and not state.blind)]
        return frozenset()

    def legal_actions(self, state: State) -> list[int]:
        if state.phase == RESPOND:
            return list(self._respond_actions[state.claim])
        if state.phase == CLAIM and state.to_roll == 0:
            return list(self._claim_actions[(state.claim, self.may_reroll(state))])
        return []

    def apply_action(self, state: State, action: int) -> State:
        if action.__class__ is not int or action not in self._legal_set(state):
            action = self._check_action(state, action)  # raises, naming the action
        if action == DOUBT:
            return self._doubt(state)
        lives, actor, _, _, blind, cup, seen_by, claim, claimer, claim_blind, claims, last, _, rnd = state
        if action == BELIEVE:  # ME-4: roll again; the previous dice are never shown
            return _new_state(lives, actor, CLAIM, NUM_DICE, False, (), -1, claim, claimer, claim_blind, claims, last, None, rnd)
        if action == REROLL:  # ME-5: the second roll is seen by nobody
            return _new_state(lives, actor, CLAIM, NUM_DICE, True, (), -1, claim, claimer, claim_blind, claims, last, None, rnd)
        c = action - FIRST_CLAIM
        if self.history:
            claims = (claims + ((c, actor, blind),))[-self.history :]
        # The cup keeps the claimer's dice (and who saw them) until the next player answers.
        return _new_state(
            lives, self._next_in(lives, actor), RESPOND, 0, False, cup, seen_by, c, actor, blind, claims, last, None, rnd
        )

    def action_to_string(self, state: State, action: int) -> str:
        if action.__class__ is int and 0 <= action < len(ACTION_STRINGS):
            return ACTION_STRINGS[action]
        action = base.action_id(action)
        if not 0 <= action < len(ACTION_STRINGS):
            raise IllegalActionError(
                f"unknown meyer action id {action!r}; ids are 0 (doubt), 1 (believe), 2 (reroll) "
                f"and 3..{len(ACTION_STRINGS) - 1} (claim 21 .. claim 32)",
                action=action,
            )
        return ACTION_STRINGS[action]

    def string_to_action(self, state: State, text: str) -> int:
        """The legal action whose string is ``text``, as :meth:`base.Game.string_to_action`; a
        claim may also be written as :func:`claim_index` reads it: either order of the digits
        and spaces between them (``"claim 12"``, ``"claim 4 5"``). :meth:`action_to_string`
        stays canonical (``"claim 21"``, ``"claim 54"``).

        >>> g = Game(num_players=2)
        >>> s = g.apply_chance(g.initial_state(), (5, 4))
        >>> g.action_to_string(s, g.string_to_action(s, "Claim 45"))
        'claim 54'
        """
        words = text.lower().split() if isinstance(text, str) else []
        if len(words) > 1 and words[0] == "claim":
            try:
                c = claim_index("".join(words[1:]))
            except ValueError:
                pass  # not a claim: the base method refuses it with the legal actions
            else:
                try:
                    return super().string_to_action(state, ACTION_STRINGS[FIRST_CLAIM + c])
                except ValueError:
                    pass  # an illegal claim: refused below in the person's own spelling
        return super().string_to_action(state, text)

    # -- doubts and rounds ------------------------------------------------------------------
    def _next_in(self, lives: tuple[int, ...], seat: int) -> int:
        """C-1: the next seat clockwise after ``seat`` that still has lives."""
        for _ in range(self.num_players):
            seat = self._next_seat[seat]
            if lives[seat] > 0:
                return seat
        raise AssertionError("no player still in")  # unreachable: the game ends first

    def _doubt(self, state: State) -> State:
        doubter = state.actor
        claimer = state.claimer
        dice = state.cup
        lie = self.rank[CLAIM_OF_DICE[dice]] < self.rank[state.claim]
        loser = claimer if lie else doubter
        cost = self.meyer_costs if state.claim == MEYER else 1  # ME-6
        left = list(state.lives)
        lost = min(cost, left[loser])
        left[loser] -= lost
        lives = tuple(left)
        # A doubted cup always holds two dice; State.cup is typed for the empty cup too.
        doubt = Doubt(dice, state.claim, state.claim_blind, claimer, doubter, loser, lost)  # type: ignore[arg-type]
        winners = None
        if self.end == "first_out" and lives[loser] == 0:  # ME-7
            winners = tuple(s for s in range(self.num_players) if s != loser)
        elif lives[loser] == 0 and sum(life > 0 for life in lives) == 1:
            winners = tuple(s for s, life in enumerate(lives) if life > 0)
        if winners is not None:
            return _new_state(lives, -1, OVER, 0, False, (), -1, -1, -1, False, (), doubt, winners, state.round)
        # ME-4: the doubter starts the next round; if out, the next player still in clockwise.
        starter = doubter if lives[doubter] > 0 else self._next_in(lives, doubter)
        return _new_state(
            lives, starter, CLAIM, NUM_DICE, False, (), -1, -1, -1, False, (), doubt, None, state.round + 1
        )

    # -- observation ------------------------------------------------------------------------
    def observe(self, state: State, player: int) -> np.ndarray:
        if type(player) is not int or not 0 <= player < self.num_players:
            player = base.seat_index(player, self.num_players)
        # The vector is four segments, each a pure function of a few public fields (and, for the
        # middle one, of the dice this player has seen); they are built once and cached, so an
        # observation costs four dictionary look-ups and one concatenation.
        own = state.cup if state.seen_by == player else None  # ME-8: only dice this player saw
        key = (state.actor, state.phase, state.blind, state.claim, state.claimer, state.claim_blind, own, player)
        try:
            return np.concatenate(
                (
                    self._cache_lives[(state.lives, player)],
                    self._cache_turn[key],
                    self._cache_history[(state.claims, player)],
                    self._cache_doubt[(state.last_doubt, player)],
                )
            )
        except KeyError:
            pass
        segments = (
            self._segment(self._cache_lives, (state.lives, player), self._lives_segment),
            self._segment(self._cache_turn, key, self._turn_segment),
            self._segment(self._cache_history, (state.claims, player), self._history_segment),
            self._segment(self._cache_doubt, (state.last_doubt, player), self._doubt_segment),
        )
        return np.concatenate(segments)

    def observe_public(self, state: State, player: int) -> np.ndarray:
        """The observation with the dice under the cup unseen, as after the blind reroll (the
        ``own_*`` entries zero): what every seat knows of the table."""
        return self.observe(state._replace(seen_by=-1), player)

    def global_state(self, state: State) -> np.ndarray:
        """The global state (:meth:`base.Game.global_state`): the observation's layout for seat 0,
        so with absolute seats, but with the dice under the cup shown whoever has seen them
        (``cup_*`` in place of ``own_*``: ``cup_present`` is 1 whenever the cup holds dice, after
        a blind reroll too), then the dice to roll now (2 at a roll, else 0), who has seen the cup
        (one-hot; all 0 for nobody), and, once the game is over, a flag and the winners. Layout:
        ``state_slices`` and the table in :mod:`dice_envs.meyer_v0`.

        Every seat's observation is a function of it (the claims window and the last lifted cup
        are in it for that, though the rules never look back at them), and nothing is clipped:
        it is a Markov state exactly.
        """
        n = self.num_players
        s = state
        turn_key = (s.actor, s.phase, s.blind, s.claim, s.claimer, s.claim_blind, s.cup or None, 0)
        tail = np.zeros(2 * n + 2, dtype=np.float32)
        tail[0] = state.to_roll
        if state.cup and state.seen_by >= 0:
            tail[1 + state.seen_by] = 1.0
        if state.winners is not None:
            tail[1 + n] = 1.0
            for seat in state.winners:
                tail[2 + n + seat] = 1.0
        # The segments are pure functions of their keys, so they share observe()'s caches.
        return np.concatenate(
            (
                self._segment(self._cache_lives, (state.lives, 0), self._lives_segment),
                self._segment(self._cache_turn, turn_key, self._turn_segment),
                self._segment(self._cache_history, (state.claims, 0), self._history_segment),
                self._segment(self._cache_doubt, (state.last_doubt, 0), self._doubt_segment),
                tail,
            )
        )

    _CACHE_LIMIT = 50_000

    def _segment(self, cache: dict, key, build) -> np.ndarray:
        segment = cache.get(key)
        if segment is None:
            if len(cache) >= self._CACHE_LIMIT:
                cache.clear()
            segment = cache[key] = build(*key)
            segment.flags.writeable = False
        return segment

    def _lives_segment(self, lives: tuple[int, ...], player: int) -> np.ndarray:
        n = self.num_players
        seg = np.zeros(2 * n, dtype=np.float32)
        for s, life in enumerate(lives):
            rel = (s - player) % n
            seg[rel] = life
            seg[n + rel] = life > 0
        return seg

    def _turn_segment(self, actor, phase, blind, claim, claimer, claim_blind, own, player) -> np.ndarray:
        n = self.num_players
        base_index = self._o["to_act"]
        o = {name: i - base_index for name, i in self._o.items()}
        seg = np.zeros(self._o["own_claim"] + NUM_CLAIMS - base_index, dtype=np.float32)
        if phase != OVER:
            seg[o["to_act"] + (actor - player) % n] = 1.0
            seg[o["respond"]] = phase == RESPOND
            seg[o["claim_phase"]] = phase == CLAIM
            seg[o["actor_rerolled"]] = blind
        if claim >= 0:
            seg[o["beat_rank"]] = self.rank[claim] + 1
            seg[o["beat_claim"] + claim] = 1.0
            seg[o["beat_by"] + (claimer - player) % n] = 1.0
            seg[o["beat_blind"]] = claim_blind
        if own:
            low, high = own
            c = CLAIM_OF_DICE[own]
            k = o["own_known"]
            seg[k] = 1.0
            seg[k + 1] = high
            seg[k + 2] = low
            seg[k + 3] = self.rank[c] + 1
            seg[o["own_claim"] + c] = 1.0
        return seg

    def _history_segment(self, claims, player: int) -> np.ndarray:
        n = self.num_players
        stride = self._history_stride
        seg = np.zeros(self.history * stride, dtype=np.float32)
        k = 0
        for c, seat, blind in reversed(claims):  # the latest claim first
            seg[k] = 1.0
            seg[k + 1] = self.rank[c] + 1
            seg[k + 2] = blind
            seg[k + 3 + (seat - player) % n] = 1.0
            k += stride
        return seg

    def _doubt_segment(self, d: Doubt | None, player: int) -> np.ndarray:
        n = self.num_players
        seg = np.zeros(3 * n + 8, dtype=np.float32)
        if d is not None:
            seg[0] = 1.0
            seg[1] = d.dice[1]
            seg[2] = d.dice[0]
            seg[3] = self.rank[CLAIM_OF_DICE[d.dice]] + 1
            seg[4] = self.rank[d.claim] + 1
            seg[5] = d.claim_blind
            seg[6 + (d.claimer - player) % n] = 1.0
            seg[6 + n + (d.doubter - player) % n] = 1.0
            seg[6 + 2 * n + (d.loser - player) % n] = 1.0
            seg[6 + 3 * n] = d.loser == d.claimer
            seg[7 + 3 * n] = d.lost
        return seg

    # -- rendering --------------------------------------------------------------------------
    def ranking_string(self) -> str:
        """The ranking of this variant, best first: ``21 > 31 > 66 > ... > 32``."""
        return " > ".join(CLAIM_NAMES[c] for c in self.ranking)

    def roll_to_string(self, dice) -> str:
        """A roll by its name, high die first (ME-2): ``(1, 5)`` is ``"51"``."""
        return CLAIM_NAMES[claim_of(dice)]

    def change_lines(self, before: State, after: State) -> list[str]:
        """A lifted cup is shown to all (ME-4, ME-8): the log names its dice and verdict, then the
        lives lines, who is out and who starts the next round."""
        lines = []
        d = after.last_doubt
        if d is not None and after.lives != before.lives:  # every doubt costs a life (ME-4, ME-6)
            said = CLAIM_NAMES[d.claim]
            shown = CLAIM_NAMES[CLAIM_OF_DICE[d.dice]]
            verdict = "a lie" if d.loser == d.claimer else "true"
            lines.append(
                f"player_{d.doubter} lifts the cup: {dice_mod.to_unicode(d.dice[::-1])} ({shown}); "
                f"{said} by player_{d.claimer} was {verdict}"
            )
        lines += [
            f"player_{s}: {a} -> {b} {'life' if b == 1 else 'lives'} ({b - a:+d})"
            for s, a, b in self.score_changes(before, after)
        ]
        lines += [f"player_{s} is out" for s in range(self.num_players) if before.lives[s] > 0 == after.lives[s]]
        if after.round != before.round and after.winners is None:
            lines.append(f"round {after.round}: player_{after.actor} starts")
        return lines

    def render(self, state: State) -> str:
        """The omniscient view: everything, including the dice under the cup nobody may see.

        For logs, replays and debugging. A person playing a seat must see
        :meth:`render_for` instead.
        """
        return self._render(state, None)

    def render_for(self, state: State, seat: int) -> str:
        """The table as ``seat`` sees it: the cup's dice only if that seat has seen them (ME-8)."""
        base.check_int("seat", seat, 0, self.num_players - 1)
        return self._render(state, seat)

    def _render(self, state: State, seat: int | None) -> str:
        rules = [
            "claims at least as high" if self.claim_rule == "at_least" else "claims strictly higher",
            "Lille Meyer" if self.lille_meyer else "no Lille Meyer",
        ]
        if self.blind_reroll:
            rules.append("blind reroll")
        if self.meyer_costs != 1:
            rules.append(f"a doubted 21 costs {self.meyer_costs}")
        lines = [f"Meyer, round {state.round} ({', '.join(rules)})"]
        for s, life in enumerate(state.lives):
            marks = []
            if s == seat:
                marks.append("(you)")
            if s == state.actor:
                marks.append("<- to roll" if state.to_roll else "<- to act")
            if life == 0:
                marks.append("out")
            if state.winners is not None and s in state.winners:
                marks.append("WINNER")
            lines.append(f"  player_{s}: {life} {'life' if life == 1 else 'lives'}  {' '.join(marks)}".rstrip())
        if state.claim >= 0:
            after = " after a blind reroll" if state.claim_blind else ""
            lines.append(f"  claim to beat: {CLAIM_NAMES[state.claim]} by player_{state.claimer}{after}")
        elif state.winners is None:
            lines.append("  a new round: nothing to beat")
        if state.cup:
            c = CLAIM_NAMES[CLAIM_OF_DICE[state.cup]]
            owner = "nobody" if state.seen_by < 0 else f"player_{state.seen_by}"
            if seat is None:
                lines.append(
                    f"  under the cup: {dice_mod.to_unicode(state.cup[::-1])} ({c}), seen by {owner}"
                )
            elif state.seen_by == seat:
                lines.append(f"  under the cup: {dice_mod.to_unicode(state.cup[::-1])} ({c}), you saw them")
            else:
                who = "nobody has" if state.seen_by < 0 else f"only {owner} has"
                lines.append(f"  under the cup: two dice; {who} seen them")
        if state.blind and state.winners is None:
            lines.append(f"  player_{state.actor} made the blind reroll")
        if state.claims:
            said = ", ".join(
                f"player_{s} {CLAIM_NAMES[c]}{' (blind)' if b else ''}" for c, s, b in state.claims
            )
            lines.append(f"  claims this round: {said}")
        d = state.last_doubt
        if d is not None:
            verdict = "a lie" if d.loser == d.claimer else "true"
            lines.append(
                f"  last doubt: player_{d.doubter} doubted {CLAIM_NAMES[d.claim]} by player_{d.claimer}; "
                f"the cup showed {dice_mod.to_unicode(d.dice[::-1])} ({CLAIM_NAMES[CLAIM_OF_DICE[d.dice]]}), "
                f"{verdict}: player_{d.loser} lost {d.lost} {'life' if d.lost == 1 else 'lives'}"
            )
        return "\n".join(lines)
