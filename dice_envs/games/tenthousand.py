"""Ten thousand (10 000 / Ti tusen / Farkle): the pure rules engine (docs/rules.md TT-1..TT-11).

Sources: seed 004 (Danish, preset ``dk``) and seed 002 (Norwegian, preset ``no``); preset
``farkle`` follows the widely played English rules of docs/rules.md's table.

Push your luck with six dice: after every roll set aside a *selection* of scoring dice, then
``roll`` the rest or ``bank`` the turn total. A roll without scoring dice is a bust and the turn's
points are lost. The first to the target (10 000) triggers the end of the game.

Example (TT-6, the worked example of seed 004):

    >>> g = Game(num_players=2, preset="dk")
    >>> [(to_string(sel), value) for sel, value in g.selections((1, 2, 2, 2, 5, 6))]
    [('1', 100), ('5', 50), ('15', 150), ('222', 200), ('1222', 300), ('2225', 250), ('12225', 350)]
    >>> s = g.apply_chance(g.initial_state(), (1, 2, 2, 2, 5, 6))
    >>> a = g.string_to_action(s, "keep 1222 roll")
    >>> s = g.apply_action(s, a)
    >>> s.turn_total, g.num_dice_to_roll(s)
    (300, 2)

Scoring is data: :data:`PRESETS` holds one table per preset (every option, the scoring numbers
among them); keyword options override single entries (TT-9f, TT-10). Singles and triples
(:data:`SINGLES`, :func:`triple_value`) are the same in every preset.

Actions: one fixed ``Discrete(308)`` space, the same for every preset and option. :data:`SELECTIONS`
lists the 154 multisets of dice that can ever be a legal selection (every die in a combination,
under any scoring options), ordered by size and then by faces; the action id is
``2 * index + ROLL`` (``keep <faces> roll``) or ``2 * index + BANK`` (``keep <faces> bank``)
(TT-11). Ids 0..5 are ``keep 1 roll``, ``keep 1 bank``, ``keep 5 roll``, ``keep 5 bank``,
``keep 11 roll``, ``keep 11 bank``; see :func:`encode_action` and :func:`decode_action`.

Interpretations (docs/rules.md, and decisions where it is silent):

* TT-7: the opening threshold (``opening``) applies to a player's first bank of the game ("første
  gang man skal på listen"); ``min_bank`` to every later bank.
* TT-8 ``finish_round``: the round runs from ``first_starter`` clockwise (seat 0 .. N-1 by
  default); after the bank that reaches the target, the rest of that round is played.
  ``last_turn_each``: every other player gets exactly one more turn, clockwise from the one who
  reached the target; reaching the target again in those turns changes nothing.
* TT-9b: "overstiger 10 000" reads as reaching at least the target. It applies while the total is
  at least ``target - 1000``, and there it replaces ``min_bank`` (seed 004: the 300 rule
  "bortfalder" above 9 000).
* TT-9c: a single 1 or 5 in the same selection as the combination does not confirm it. So after
  any selection the confirmation is pending exactly when the selection's best split holds a
  combination of two or more dice (a selection of 1s and 5s only, scored as singles, confirms).
  When equally valued splits differ, the one without a combination counts.
* TT-9d: banking past the target is allowed and scores 0 for the turn; nothing is written on the
  list, so such a bank does not put an unopened player på listen. It is not a bust (TT-9e). A bank
  that hits the target exactly is always allowed by the thresholds (``min_bank``, the opening,
  TT-9b), so every game can end; hot dice (TT-4) and confirmation (TT-9c) still apply to it.
* TT-9: an ``opening`` or ``min_bank`` given above the target, and ``exact_target`` with a
  ``bust_penalty`` off the grid of 50s, are refused (some player could never finish); a preset's
  opening or minimum bank above a smaller target given by the user is lowered to the target.
* TT-9e: seed 002 names the penalty ("straff for tre bom på rad") but not its size: ``no`` has no
  penalty unless ``bust_penalty`` is set; ``farkle`` takes 500 points after 3 busts in a row. A bank
  (even one scoring 0 under TT-9d) ends a run of busts.
* TT-4: whether the hot-dice roll is compulsory is the preset's ``hot_dice_must_roll`` entry
  (``dk``: True; ``no``, ``farkle``: False); docs/rules.md names no option for it, so it is one here.
* TT-9f ``four_and_pair_is_three_pairs``: pairs need not be of different values, so a four of a
  kind counts as two pairs (4-4-6-6-6-6) and so does a six of a kind as three; the best split
  decides which value it gets.
* The ``no`` preset fixes seed 002's open choices: opening 500, sluttrunde on
  (``last_turn_each``), 4-4-6-6-6-6 counts as three pairs, straight 1500, three pairs 1500, no bust
  penalty unless set.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, combinations_with_replacement, product
from typing import NamedTuple, cast

import numpy as np

from dice_envs import dice as dice_mod
from dice_envs.dice import to_string
from dice_envs.errors import IllegalActionError, InvalidOptionError
from dice_envs.games import base

NUM_DICE = 6
ROLL = 0
BANK = 1
MODES = ("roll", "bank")  # TT-11: ``keep <faces> roll`` / ``keep <faces> bank``
ENDS = ("finish_round", "last_turn_each", "immediate")
N_OF_A_KIND = ("linear", "doubling")
LEGAL_CACHE_SIZE = 50_000  # entries kept per game before the caches of legal actions start over
#: Upper bound of ``target`` (100 times the seeds' 10 000): far above any game a person plays, and
#: low enough that every observation bound (up to twice the target) is an exact float32 integer.
MAX_TARGET = 1_000_000
#: Upper bound of the other point options (``straight``, ``three_pairs``, ``bust_penalty``).
MAX_POINTS = 1_000_000
#: Upper bound of ``bust_penalty_after`` (the seeds count three busts).
MAX_BUSTS = 100

#: TT-5: single dice that score, the same in every preset.
SINGLES = {1: 100, 5: 50}

#: TT-10: one table per preset: every option, the scoring numbers of TT-5 among them.
PRESETS: dict[str, dict] = {
    "dk": {  # seed 004
        "target": 10_000,
        "opening": 1000,
        "min_bank": 300,
        "end": "finish_round",
        "hot_dice_must_roll": True,
        "over_threshold": False,
        "confirm_combinations": False,
        "exact_target": False,
        "bust_penalty": 0,
        "bust_penalty_after": 3,
        "straight": 1000,
        "three_pairs": 1500,
        "four_and_pair_is_three_pairs": False,
        "n_of_a_kind": "linear",
    },
    "no": {  # seed 002, with sluttrunde
        "target": 10_000,
        "opening": 500,
        "min_bank": 0,
        "end": "last_turn_each",
        "hot_dice_must_roll": False,
        "over_threshold": False,
        "confirm_combinations": False,
        "exact_target": False,
        "bust_penalty": 0,
        "bust_penalty_after": 3,
        "straight": 1500,
        "three_pairs": 1500,
        "four_and_pair_is_three_pairs": True,
        "n_of_a_kind": "doubling",
    },
    "farkle": {  # the widely played English rules
        "target": 10_000,
        "opening": 300,
        "min_bank": 300,
        "end": "last_turn_each",
        "hot_dice_must_roll": False,
        "over_threshold": False,
        "confirm_combinations": False,
        "exact_target": False,
        "bust_penalty": 500,
        "bust_penalty_after": 3,
        "straight": 1500,
        "three_pairs": 750,
        "four_and_pair_is_three_pairs": True,
        "n_of_a_kind": "doubling",
    },
}

Counts = tuple[int, int, int, int, int, int]


def triple_value(face: int) -> int:
    """TT-5: three 1s score 1000, three of face N (2..6) score 100·N."""
    return 1000 if face == 1 else 100 * face


def _counts(faces) -> Counts:
    return dice_mod.face_counts(faces)


def _faces(counts) -> tuple[int, ...]:
    return tuple(face for face in dice_mod.FACES for _ in range(counts[face - 1]))


def _pairs_shapes(same_values_allowed: bool) -> list[Counts]:
    """Face counts of three pairs: three different values, or (option) pairs of equal values too."""
    picks = combinations_with_replacement if same_values_allowed else combinations
    shapes = []
    for trio in picks(range(6), 3):
        counts = [0] * 6
        for i in trio:
            counts[i] += 2
        shapes.append(cast(Counts, tuple(counts)))
    return shapes


def _sub_counts(counts) -> list[Counts]:
    """Every sub-multiset of ``counts`` (face counts), the empty one first."""
    return cast("list[Counts]", list(product(*(range(c + 1) for c in counts))))


def kind_value(face: int, k: int, n_of_a_kind: str) -> int:
    """Value of ``k`` (3..6) dice showing ``face`` (TT-5, TT-9f).

    ``"linear"`` (seed 004): (k-2) × the triple; ``"doubling"`` (seed 002): 2^(k-3) × the triple.

    >>> kind_value(3, 5, "linear"), kind_value(1, 6, "linear"), kind_value(3, 5, "doubling")
    (900, 4000, 1200)
    """
    factor = k - 2 if n_of_a_kind == "linear" else 2 ** (k - 3)
    return factor * triple_value(face)


@lru_cache(maxsize=None)
def _scoring(straight: int, three_pairs: int, four_and_pair: bool, n_of_a_kind: str):
    """The scoring tables of one set of scoring numbers, shared by every game that uses them.

    Returns:
        ``(value, combo, rolls)``: ``value`` maps the face counts of every multiset of <= 6 dice
        that splits completely into combinations to its best split's value (TT-3); ``combo``
        tells whether every best split holds a combination of two or more dice (TT-9c);
        ``rolls`` is the cache of :meth:`Game._roll_entries`.
    """
    combinations_ = {_counts((face,)): points for face, points in SINGLES.items()}
    for face in dice_mod.FACES:
        for k in range(3, NUM_DICE + 1):
            combinations_[_counts((face,) * k)] = kind_value(face, k, n_of_a_kind)
    combinations_[_counts(dice_mod.FACES)] = straight
    for shape in _pairs_shapes(four_and_pair):
        combinations_[shape] = max(combinations_.get(shape, 0), three_pairs)  # six alike: the better
    # Extend every scorable multiset by every combination, smallest first: when the multisets of
    # one size are extended, all the splits that make them have been seen.
    shapes = [(shape, sum(shape), points) for shape, points in combinations_.items()]
    value: dict[Counts, int] = {(0,) * 6: 0}
    by_size: list[list[Counts]] = [[(0,) * 6]] + [[] for _ in range(NUM_DICE)]
    for size in range(NUM_DICE):
        for counts in by_size[size]:
            start = value[counts]
            for shape, k, points in shapes:
                if size + k <= NUM_DICE:
                    new = cast(Counts, tuple(a + b for a, b in zip(counts, shape)))
                    old = value.get(new)
                    if old is None:
                        by_size[size + k].append(new)
                    if old is None or start + points > old:
                        value[new] = start + points
    combo = {}
    for counts, points in value.items():
        singles_only = sum(counts) == counts[0] + counts[4]
        combo[counts] = not (singles_only and points == counts[0] * SINGLES[1] + counts[4] * SINGLES[5])
    return value, combo, {}


#: Every multiset of dice that can be a legal selection under some options, in action-id order
#: (by size, then by faces): 154 of them. Which multisets split into combinations does not depend
#: on the scoring numbers, only on ``four_and_pair_is_three_pairs``, which admits the most.
SELECTIONS: tuple[tuple[int, ...], ...] = tuple(
    sorted(
        (_faces(c) for c in _scoring(1000, 1500, True, "linear")[0] if sum(c)),
        key=lambda faces: (len(faces), faces),
    )
)
SELECTION_INDEX: dict[tuple[int, ...], int] = {sel: i for i, sel in enumerate(SELECTIONS)}
NUM_ACTIONS = 2 * len(SELECTIONS)
#: TT-11: the string of every action id.
ACTION_STRINGS: tuple[str, ...] = tuple(f"keep {to_string(sel)} {mode}" for sel in SELECTIONS for mode in MODES)


def encode_action(selection, bank: bool) -> int:
    """The action id of ``keep <selection> bank`` (``bank=True``) or ``... roll``.

    >>> encode_action((1,), False), encode_action((5, 1), True), encode_action((2, 2, 2, 1), False)
    (0, 7, 32)

    Raises:
        ValueError: the dice can never be a legal selection.
    """
    sel = dice_mod.normalize(selection)
    if sel not in SELECTION_INDEX:
        raise ValueError(f"no scoring selection {to_string(sel) or '(none)'}: some die in it can never score")
    return 2 * SELECTION_INDEX[sel] + (BANK if bank else ROLL)


def decode_action(action: int) -> tuple[tuple[int, ...], bool]:
    """``(selection, bank)`` of an action id.

    >>> decode_action(7)
    ((1, 5), True)
    """
    a = base.action_id(action)
    if not 0 <= a < NUM_ACTIONS:
        raise IllegalActionError(f"unknown tenthousand action id {action!r}; ids are 0..{NUM_ACTIONS - 1}", action=action)
    return SELECTIONS[a // 2], bool(a % 2)


class State(NamedTuple):
    """An immutable Ten thousand state.

    Attributes:
        totals: every seat's banked total (the list), in seat order; may be negative (TT-9e).
        opened: whether each seat has banked yet (is "på listen", TT-7).
        busts: each seat's busts in a row since its last bank or penalty (TT-9e).
        player: the seat whose turn it is.
        turn_total: points gathered in this turn so far (lost on a bust).
        roll: the roll to choose a selection from; ``()`` while dice are to be rolled.
        to_roll: dice that must be rolled now; 0 at a decision or at the end.
        pending: TT-9c: a combination set aside in this turn is not yet confirmed.
        turns_left: in the end phase (TT-8), the turns still to be played including the current
            one; ``None`` before anyone has reached the target.
        winners: the winning seats once the game is over, else ``None``.
        turn: the number of the current turn, from 1.
    """

    totals: tuple[int, ...]
    opened: tuple[bool, ...]
    busts: tuple[int, ...]
    player: int
    turn_total: int
    roll: tuple[int, ...]
    to_roll: int
    pending: bool
    turns_left: int | None
    winners: tuple[int, ...] | None
    turn: int


def _check_points(name: str, value, low: int, high: int = MAX_POINTS) -> int:
    value = base.check_int(name, value, low, high)
    if value % 50:
        raise InvalidOptionError(f"{name} must be a multiple of 50 ({low}..{high}), got {value!r}")
    return value


class Game(base.Game):
    """Ten thousand for 2..8 players.

    Args:
        num_players: 2..8 (TT-1).
        preset: ``"dk"`` (seed 004, default), ``"no"`` (seed 002) or ``"farkle"`` (TT-10).
        **options: override single entries of the preset's table (:data:`PRESETS`):
            ``target`` (multiple of 50, 50..1 000 000), ``opening``, ``min_bank`` (points,
            0..target, TT-7),
            ``end`` (``"finish_round"``, ``"last_turn_each"``, ``"immediate"``, TT-8),
            ``hot_dice_must_roll`` (TT-4), ``over_threshold``, ``confirm_combinations``,
            ``exact_target`` (TT-9b..d), ``bust_penalty`` (points, 0..1 000 000) and
            ``bust_penalty_after`` (busts, 1..100, TT-9e), ``straight``, ``three_pairs``
            (multiples of 50, 50..1 000 000), ``four_and_pair_is_three_pairs``, ``n_of_a_kind`` (``"linear"`` or
            ``"doubling"``, TT-9f), and ``first_starter`` (the seat that starts, C-4; default 0).

    Raises:
        InvalidOptionError: (a ``ValueError``) an unknown preset or option, or a bad value, naming it
            and the allowed values;
            option combinations under which some player could never finish (TT-9), naming them.
    """

    name = "tenthousand"

    _MEMOS = ("_legal", "_tables", "_rolls")
    CHOICES = {"preset": tuple(PRESETS), "end": tuple(ENDS), "n_of_a_kind": tuple(N_OF_A_KIND)}

    @classmethod
    def option_names(cls) -> list[str]:
        """Every keyword option the engine takes (those of ``__init__`` and the preset tables)."""
        names = ["num_players", "preset", "first_starter"]
        for table in PRESETS.values():
            names += [name for name in table if name not in names]
        return names

    def __init__(self, num_players: int = 2, preset: str = "dk", first_starter: int = 0, **options):
        self.num_players = base.check_num_players(num_players)
        self.preset = base.check_choice("preset", preset, self.CHOICES["preset"])
        unknown = sorted(set(options) - set(PRESETS[preset]))
        if unknown:
            allowed = ", ".join(["num_players", "preset", "first_starter", *PRESETS[preset]])
            raise InvalidOptionError(f"unknown tenthousand option {unknown[0]!r}; options are {allowed}")
        o = {**PRESETS[preset], **options}
        self.target = _check_points("target", o["target"], 50, MAX_TARGET)
        # TT-9: an opening above the target is refused; so is a minimum bank above it (such a game
        # would be one bank long). A preset's numbers are for its 10 000 target: under a smaller
        # target given by the user they are lowered to it instead.
        for name in ("opening", "min_bank"):
            if name not in options:
                o[name] = min(o[name], self.target)
            elif base.check_int(name, o[name], 0) > self.target:
                raise InvalidOptionError(
                    f"{name} {o[name]} is above the target {self.target}: every bank it allows would pass "
                    f"the target; give {name} <= target"
                )
        self.opening = base.check_int("opening", o["opening"], 0, self.target)
        self.min_bank = base.check_int("min_bank", o["min_bank"], 0, self.target)
        self.end = base.check_choice("end", o["end"], self.CHOICES["end"])
        self.hot_dice_must_roll = base.check_bool("hot_dice_must_roll", o["hot_dice_must_roll"])
        self.over_threshold = base.check_bool("over_threshold", o["over_threshold"])
        self.confirm_combinations = base.check_bool("confirm_combinations", o["confirm_combinations"])
        self.exact_target = base.check_bool("exact_target", o["exact_target"])
        self.bust_penalty = base.check_int("bust_penalty", o["bust_penalty"], 0, MAX_POINTS)
        self.bust_penalty_after = base.check_int("bust_penalty_after", o["bust_penalty_after"], 1, MAX_BUSTS)
        if self.exact_target and self.bust_penalty % 50:
            # Every score is a multiple of 50 (TT-5, TT-9a); a penalty that is not would leave a
            # player off the grid of totals from which the target can be hit exactly.
            raise InvalidOptionError(
                f"bust_penalty {self.bust_penalty} with exact_target=True: a penalised player could "
                "never reach the target exactly; give a bust_penalty that is a multiple of 50"
            )
        self.straight = _check_points("straight", o["straight"], 50)
        self.three_pairs = _check_points("three_pairs", o["three_pairs"], 50)
        self.four_and_pair_is_three_pairs = base.check_bool(
            "four_and_pair_is_three_pairs", o["four_and_pair_is_three_pairs"]
        )
        self.n_of_a_kind = base.check_choice("n_of_a_kind", o["n_of_a_kind"], self.CHOICES["n_of_a_kind"])
        self.first_starter = base.check_int("first_starter", first_starter, 0, self.num_players - 1)
        self.options = {key: getattr(self, key) for key in PRESETS[preset]}
        self.num_actions = NUM_ACTIONS

        # Best splits (TT-3) and the per-roll cache: roll -> ((action index, value, left, combo), ...)
        self._value, self._combo, self._rolls = _scoring(
            self.straight, self.three_pairs, self.four_and_pair_is_three_pairs, self.n_of_a_kind
        )
        self._legal: dict[tuple, list[int]] = {}  # legal actions by what they depend on
        # Whether a bank's legality depends on the player's total (TT-9b, TT-9d).
        self._total_matters = self.over_threshold or self.exact_target
        self._tables: dict[tuple, list] = {}  # observation prefix by (totals, opened, busts, seat)

        n = self.num_players
        self.total_low, self.total_high = -self.target, 2 * self.target
        self.observation_low, self.observation_high = base.bounds(
            (n, self.total_low, self.total_high),  # totals, own first, clipped
            (n, 0, 1),  # på listen (has banked)
            (n, 0, self.bust_penalty_after - 1),  # busts in a row
            (n, 0, 1),  # whose turn (one-hot, own first)
            (1, 0, self.total_high),  # turn total, clipped
            (1, 0, NUM_DICE),  # dice in play
            (6, 0, NUM_DICE),  # current roll by face 1..6
            (1, 0, 1),  # confirmation pending (TT-9c)
            (1, 0, 1),  # end phase
            (1, 0, n - 1),  # turns left in the end phase
        )
        self._size = len(self.observation_low)
        # The global state (global_state): seat 0's observation, whose seats are absolute, then
        # what the observations leave out. Names as in the module docstring's table.
        self.state_slices, self.state_low, self.state_high = base.layout([
            ("totals", n, self.total_low, self.total_high),
            ("opened", n, 0, 1),
            # max(1, ...): no part of the state space has equal bounds (PettingZoo's state_test)
            ("busts", n, 0, max(1, self.bust_penalty_after - 1)),
            ("to_act", n, 0, 1),
            ("turn_total", 1, 0, self.total_high),
            ("dice_in_play", 1, 0, NUM_DICE),
            ("roll", 6, 0, NUM_DICE),
            ("pending", 1, 0, 1),
            ("end_phase", 1, 0, 1),
            ("turns_left", 1, 0, n - 1),
            ("to_roll", 1, 0, NUM_DICE),
            ("game_over", 1, 0, 1),
            ("winners", n, 0, 1),
        ])  # fmt: skip

    # -- scoring (TT-5) ----------------------------------------------------------------------
    def kind_value(self, face: int, k: int) -> int:
        """Value of ``k`` (3..6) dice showing ``face``: TT-5's n of a kind under ``n_of_a_kind``."""
        return kind_value(face, k, self.n_of_a_kind)

    def score(self, selection) -> int | None:
        """The value of dice set aside together: their best split into combinations (TT-3, TT-5).

        Returns ``None`` if some die belongs to no combination (the dice cannot be set aside).

        >>> Game(preset="dk").score((2, 2, 2, 1)), Game(preset="dk").score((2, 2))
        (300, None)
        """
        return self._value.get(_counts(dice_mod.normalize(selection)))

    def selections(self, roll) -> tuple[tuple[tuple[int, ...], int], ...]:
        """Every distinct legal selection from ``roll`` with its exact value, in action-id order.

        A selection is a non-empty part of the roll in which every die belongs to a scoring
        combination; its value is the best split into combinations (TT-3). An empty result means
        the roll is a bust (TT-2).

        Raises:
            ValueError: not a roll of 1..6 dice with faces 1..6 (strings of digits are accepted).
        """
        dice = dice_mod.normalize(roll)
        if not dice:
            raise ValueError("a roll holds 1 to 6 dice, got none")
        return tuple((SELECTIONS[i], value) for i, value, _, _ in self._roll_entries(dice))

    def _roll_entries(self, roll: tuple[int, ...]) -> tuple:
        """Cached ``(selection index, value, dice left, needs confirmation)`` of a sorted roll."""
        cached = self._rolls.get(roll)
        if cached is None:
            cached = self._cache_roll(roll)
        return cached[0]

    def _cache_roll(self, roll: tuple[int, ...]) -> tuple[tuple, dict, tuple[int, ...]]:
        """Enumerate a sorted roll's legal selections once: the entries, a by-action-id index and
        the roll itself (as plain ints)."""
        found = []
        for sub in _sub_counts(_counts(roll))[1:]:
            if sub in self._value:
                index = SELECTION_INDEX[_faces(sub)]
                found.append((index, self._value[sub], len(roll) - sum(sub), self._combo[sub]))
        entries = tuple(sorted(found))
        by_action = {}
        for entry in entries:
            by_action[2 * entry[0]] = by_action[2 * entry[0] + 1] = entry
        cached = self._rolls[roll] = (entries, by_action, roll)
        return cached

    # -- state ------------------------------------------------------------------------------
    def initial_state(self) -> State:
        n = self.num_players
        return State((0,) * n, (False,) * n, (0,) * n, self.first_starter, 0, (), NUM_DICE, False, None, None, 1)

    def scores(self, state: State) -> tuple[int, ...]:
        return state.totals

    def score_changes(self, before: State, after: State) -> list[tuple[int, int, int]]:
        """The score line of every turn that ended between the two states (a bank, or a bust, which
        changes no total unless it brings the bust penalty), and of any other change of a total."""
        changes = super().score_changes(before, after)
        ended = after.turn != before.turn or (after.winners is not None and before.winners is None)
        seat = before.player
        if ended and all(s != seat for s, _, _ in changes):
            changes.append((seat, before.totals[seat], after.totals[seat]))
        return changes

    def change_lines(self, before: State, after: State) -> list[str]:
        """The text log: a bust with the points it lost (TT-2) and the bust penalty (TT-9e), a bank
        past an exact target (TT-9d), the score line of every turn that ended, and the start of the
        end phase when a player reaches the target (TT-8)."""
        lines = []
        seat = before.player
        ended = before.winners is None and (after.turn != before.turn or after.winners is not None)
        if ended and before.to_roll:  # a roll ended the turn: a bust (TT-2)
            lost = before.turn_total
            lines.append(f"player_{seat}: bust, {lost} points lost" if lost else f"player_{seat}: bust")
            penalty = before.totals[seat] - after.totals[seat]
            if penalty > 0:  # TT-9e
                k = self.bust_penalty_after
                # The count starts again after a penalty: the 4th bust in a row is the 2nd of a new count.
                why = "bust penalty" if k == 1 else f"bust penalty, {k} busts in a row"
                lines.append(f"player_{seat}: {why}: -{penalty}")
        elif ended and self.exact_target and after.totals[seat] == before.totals[seat]:  # TT-9d
            lines.append(f"player_{seat}: past the target {self.target}, the bank scores 0")
        lines += super().change_lines(before, after)
        if ended and before.turns_left is None and after.totals[seat] >= self.target > before.totals[seat]:
            total = after.totals[seat]
            if after.winners is not None:
                lines.append(f"player_{seat} reached {total}: the game ends")
            elif self.end == "last_turn_each":
                lines.append(f"player_{seat} reached {total}: everyone else gets one last turn")
            else:  # finish_round: the rest of the round plays
                n = self.num_players
                rest = [(seat + i) % n for i in range(1, (after.turns_left or 0) + 1)]
                verb = "plays" if len(rest) == 1 else "play"
                lines.append(
                    f"player_{seat} reached {total}: the round is played out, {base.seat_names(rest)} {verb} a last turn"
                )
        return lines

    # -- chance -----------------------------------------------------------------------------
    def apply_chance(self, state: State, dice) -> State:
        if state.to_roll == 0:
            raise ValueError("apply_chance: no dice are to be rolled in this state")
        roll = base.check_dice(dice, state.to_roll)  # the input rule: plain ints, sorted
        cached = self._rolls.get(roll) or self._cache_roll(roll)
        if not cached[0]:  # TT-2: a bust
            return self._bust(state._replace(roll=roll, to_roll=0))
        t = state  # built field by field: _replace costs more than the rest of a step
        return State(t.totals, t.opened, t.busts, t.player, t.turn_total, roll, 0, t.pending, t.turns_left, None, t.turn)

    # -- decisions --------------------------------------------------------------------------
    def current_player(self, state: State) -> int:
        return state.player if state.winners is None else base.TERMINAL

    def bank_refusal(self, state: State, selection=None) -> str | None:
        """Why a bank is not allowed now, in the rule book's words, or ``None`` if it is.

        This is the one place that says why: terminal play shows exactly this text.

        Args:
            state: a decision state.
            selection: the dice to keep before banking (a legal selection of the current roll).
                Without it: ``None`` if some ``keep ... bank`` is legal now, else the reason that
                holds for the most valuable selection (the one a player would most like to bank).

        Raises:
            ValueError: not a decision state, or ``selection`` is not a legal selection of the roll.
        """
        if state.winners is not None or state.to_roll:
            raise ValueError("bank_refusal: no decision is to be made in this state")
        entries = self._roll_entries(state.roll)
        if selection is None:
            reasons = [(value, self._bank_block(state, value, left, combo)) for _, value, left, combo in entries]
            if any(reason is None for _, reason in reasons):
                return None
            value, reason = max(reasons, key=lambda vr: vr[0])
            assert reason is not None  # every reason is a string here: the any() above returned
            return self._explain(state, reason, value)
        sel = dice_mod.normalize(selection)
        for index, value, left, combo in entries:
            if SELECTIONS[index] == sel:
                reason = self._bank_block(state, value, left, combo)
                return None if reason is None else self._explain(state, reason, value)
        raise ValueError(f"{to_string(sel)} is not a legal selection of the roll {to_string(state.roll)}")

    def bank_refusals(self, state: State) -> list[tuple[tuple[int, ...], int, str | None]]:
        """Text helper for terminal play: every legal selection of the roll with its value and the
        key of the rule that forbids banking after it (``None`` if the bank is allowed):
        ``"hot_dice"``, ``"opening"``, ``"min_bank"``, ``"confirm"`` or ``"over_threshold"``.

        Raises:
            ValueError: not a decision state.
        """
        if state.winners is not None or state.to_roll:
            raise ValueError("bank_refusals: no decision is to be made in this state")
        return [
            (SELECTIONS[index], value, self._bank_block(state, value, left, combo))
            for index, value, left, combo in self._roll_entries(state.roll)
        ]

    def bank_gain(self, state: State, value: int) -> int:
        """Text helper: what banking now, after a selection worth ``value``, adds to the player's
        total: the turn total, or 0 under TT-9d when it would pass the target."""
        turn_total = state.turn_total + value
        if self.exact_target and state.totals[state.player] + turn_total > self.target:
            return 0
        return turn_total

    def _bank_block(self, state: State, value: int, left: int, combo: bool) -> str | None:
        """The rule that forbids banking after a selection (its key), or ``None`` (TT-4, TT-7, TT-9).

        The thresholds are checked before hot dice, so that a player who could not bank even
        without hot dice is told the threshold, the rule that really holds them back.
        """
        turn_total = state.turn_total + value
        seat = state.player
        total = state.totals[seat]
        if self.exact_target and total + turn_total == self.target:
            # TT-9d: a bank that hits the target exactly is always allowed by the thresholds, so
            # every game can end. Hot dice (TT-4) and confirmation (TT-9c) still hold: a later
            # single 1 or 5 with dice left can always make the same total.
            pass
        else:
            # TT-9b (seed 004: above 9 000 the 300 rule "bortfalder"): reaching the target
            # replaces the minimum bank.
            over = self.over_threshold and total >= self.target - 1000
            if state.opened[seat]:
                if turn_total < self.min_bank and not over:
                    return "min_bank"
            elif turn_total < self.opening:
                return "opening"
            if over and total + turn_total < self.target:
                return "over_threshold"
        if combo and self.confirm_combinations:
            return "confirm"
        if left == 0 and self.hot_dice_must_roll:
            return "hot_dice"
        return None

    def _explain(self, state: State, reason: str, value: int) -> str:
        turn_total = state.turn_total + value
        return {
            "hot_dice": "all six dice are set aside: hot dice must be rolled again (TT-4)",
            "opening": f"the first bank needs at least {self.opening} points in the turn; you would have {turn_total} (TT-7)",
            "min_bank": f"a bank needs at least {self.min_bank} points in the turn; you would have {turn_total} (TT-7)",
            "confirm": "a combination must be confirmed by a later single 1 or 5 before you bank (TT-9c)",
            "over_threshold": f"at {self.target - 1000} or more you may bank only to reach {self.target} (TT-9b)",
        }[reason]

    def legal_actions(self, state: State) -> list[int]:
        if state.winners is not None or state.to_roll:
            return []
        seat = state.player
        # Everything the legal actions depend on (TT-4, TT-7, TT-9b; TT-9c is per selection).
        key = (state.roll, state.turn_total, state.opened[seat], state.totals[seat] if self._total_matters else 0)
        actions = self._legal.get(key)
        if actions is None:
            actions = []
            for index, value, left, combo in self._roll_entries(state.roll):
                actions.append(2 * index)
                if self._bank_block(state, value, left, combo) is None:
                    actions.append(2 * index + 1)
            if len(self._legal) >= LEGAL_CACHE_SIZE:
                self._legal.clear()
            self._legal[key] = actions
        return list(actions)

    def apply_action(self, state: State, action: int) -> State:
        if state.winners is not None or state.to_roll:
            self._check_action(state, action)  # raises, naming the action
        if type(action) is not int:
            try:
                action = base.action_id(action)  # the input rule; raises, naming the value
            except IllegalActionError as exc:
                raise self._not_an_action(state, exc) from None
        # The roll cache is per process: a state built elsewhere (unpickled, by hand) fills it.
        entry = (self._rolls.get(state.roll) or self._cache_roll(state.roll))[1].get(action)
        if entry is None:
            raise self._illegal(state, action)
        _, value, left, combo = entry
        bank = action % 2 == BANK
        if bank and self._bank_block(state, value, left, combo) is not None:
            raise self._illegal(state, action)
        turn_total = state.turn_total + value
        if not bank:  # TT-3 / TT-4: roll the dice not set aside, all six after hot dice
            t = state
            return State(t.totals, t.opened, t.busts, t.player, turn_total, (), left or NUM_DICE, combo, t.turns_left, None, t.turn)
        return self._bank(state, turn_total)

    def action_to_string(self, state: State, action: int) -> str:
        if type(action) is not int:
            decode_action(action)  # raises for anything but an action id
            action = base.action_id(action)
        elif not 0 <= action < NUM_ACTIONS:
            decode_action(action)
        return ACTION_STRINGS[action]

    # -- turn ends --------------------------------------------------------------------------
    def _bank(self, state: State, turn_total: int) -> State:
        seat = state.player
        totals = list(state.totals)
        opened = list(state.opened)
        if not (self.exact_target and totals[seat] + turn_total > self.target):  # TT-9d
            totals[seat] += turn_total
            opened[seat] = True
        busts = list(state.busts)
        busts[seat] = 0
        state = state._replace(totals=tuple(totals), opened=tuple(opened), busts=tuple(busts))
        return self._end_turn(state, reached=totals[seat] >= self.target)

    def _bust(self, state: State) -> State:
        seat = state.player
        busts = list(state.busts)
        busts[seat] += 1
        if busts[seat] == self.bust_penalty_after:  # TT-9e
            busts[seat] = 0
            totals = list(state.totals)
            totals[seat] -= self.bust_penalty
            state = state._replace(totals=tuple(totals))
        return self._end_turn(state._replace(busts=tuple(busts)), reached=False)

    def _end_turn(self, state: State, reached: bool) -> State:
        """Pass the dice on, or end the game (TT-8)."""
        n = self.num_players
        seat = state.player
        turns_left = state.turns_left
        if turns_left is not None:
            turns_left -= 1
        elif reached:
            if self.end == "immediate":
                return self._finish(state, (seat,))
            if self.end == "finish_round":
                turns_left = n - 1 - (seat - self.first_starter) % n
            else:  # last_turn_each
                turns_left = n - 1
        if turns_left == 0:
            best = max(state.totals)
            return self._finish(state, tuple(s for s in range(n) if state.totals[s] == best))
        return state._replace(
            player=(seat + 1) % n,
            turn_total=0,
            roll=(),
            to_roll=NUM_DICE,
            pending=False,
            turns_left=turns_left,
            turn=state.turn + 1,
        )

    def _finish(self, state: State, winners: tuple[int, ...]) -> State:
        return state._replace(turn_total=0, roll=(), to_roll=0, pending=False, turns_left=None, winners=winners)

    # -- observation ------------------------------------------------------------------------
    def observe(self, state: State, player: int) -> np.ndarray:
        n = self.num_players
        if type(player) is not int or not 0 <= player < n:
            player = base.seat_index(player, n)
        key = (state.totals, state.opened, state.busts, player)
        table = self._tables.get(key)
        if table is None:  # totals, på listen, busts: they change only when a turn ends
            low, high = self.total_low, self.total_high
            totals = state.totals[player:] + state.totals[:player]
            table = [low if t < low else high if t > high else t for t in totals]
            table += state.opened[player:] + state.opened[:player]
            table += state.busts[player:] + state.busts[:player]
            if len(self._tables) >= LEGAL_CACHE_SIZE:
                self._tables.clear()
            self._tables[key] = table
        turn = [0] * (n + 11)
        if state.winners is None:
            turn[(state.player - player) % n] = 1
            turn[n] = min(state.turn_total, self.total_high)
            roll = state.roll
            turn[n + 1] = len(roll) or state.to_roll
            for face in roll:
                turn[n + 1 + face] += 1
            turn[n + 8] = state.pending
            if state.turns_left is not None:
                turn[n + 9] = 1
                turn[n + 10] = state.turns_left
        return np.array(table + turn, dtype=np.float32)

    def global_state(self, state: State) -> np.ndarray:
        """The global state (:meth:`base.Game.global_state`): ``observe(state, 0)``, whose seats
        are absolute (everything in 10 000 is public), then the dice to roll now (0 at a decision)
        and, once the game is over, a flag and the winners. Layout: ``state_slices`` and the table
        in :mod:`dice_envs.tenthousand_v1`.

        It is a Markov state while every total lies in ``-target .. 2·target`` and the turn total
        is at most ``2·target``: beyond, they are clipped to those bounds, as in the observation.
        """
        n = self.num_players
        tail = [0] * (n + 2)
        tail[0] = state.to_roll
        if state.winners is not None:
            tail[1] = 1
            for seat in state.winners:
                tail[2 + seat] = 1
        return np.concatenate((self.observe(state, 0), np.array(tail, dtype=np.float32)))

    def rules_line(self) -> str:
        """The variants in force, for the table's header: the end rule (TT-8) and every TT-9 variant
        that is on."""
        parts = [
            {
                "finish_round": "at the target the round is played out",
                "last_turn_each": "at the target everyone else gets one last turn",
                "immediate": "the first to the target wins",
            }[self.end]
        ]
        if self.exact_target:
            parts.append(f"exact target (a bank past {self.target} scores 0)")
        if self.over_threshold:
            start = f"from {self.target - 1000} " if self.target > 1000 else ""
            parts.append(f"{start}bank only to reach {self.target}")
        if self.confirm_combinations:
            parts.append("a combination needs a later 1 or 5 before a bank")
        if self.bust_penalty:
            if self.bust_penalty_after == 1:
                parts.append(f"a bust costs {self.bust_penalty}")
            else:
                parts.append(f"{self.bust_penalty_after} busts in a row cost {self.bust_penalty}")
        return "rules: " + "; ".join(parts)

    def render(self, state: State) -> str:
        # Everyone plays every round (nobody leaves a game of 10 000): round r holds turns (r-1)N+1 .. rN.
        rnd = (state.turn - 1) // self.num_players + 1
        lines = [f"Ten thousand ({self.preset}), target {self.target}, round {rnd} (turn {state.turn})"]
        lines.append("  " + self.rules_line())
        acting = None if state.winners is not None else state.player
        for seat, total in enumerate(state.totals):
            marks = []
            if seat == acting:
                marks.append("<- to play")
            if not state.opened[seat]:
                marks.append("not on the list yet")
            if state.busts[seat] and self.bust_penalty:  # TT-9e: the count matters only with a penalty
                marks.append(f"busts in a row: {state.busts[seat]} of {self.bust_penalty_after}")
            if state.winners is not None and seat in state.winners:
                marks.append("WINNER")
            lines.append(f"  player_{seat}: {total:6d}  {', '.join(marks)}".rstrip())
        if acting is not None:
            line = f"  turn total: {state.turn_total}"
            if state.roll:
                line += f"   roll: {dice_mod.to_unicode(state.roll)}  ({to_string(state.roll)})"
            else:
                line += f"   {state.to_roll} {'die' if state.to_roll == 1 else 'dice'} to roll"
            lines.append(line)
            if state.pending and self.confirm_combinations:
                lines.append("  a combination waits for a single 1 or 5 to confirm it")
            if state.turns_left is not None:
                lines.append(f"  final turns: {state.turns_left} left, this one included")
        return "\n".join(lines)
