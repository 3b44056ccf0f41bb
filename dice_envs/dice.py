"""Dice: exact chance outcomes, seeded sampling and unicode faces.

A roll of ``k`` fair six-sided dice is a multiset, written as a sorted tuple of faces (docs/rules.md
C-2). Its exact outcomes are the sorted tuples with multinomial probabilities; there are
``C(k + 5, 5)`` of them (462 for six dice) and their probabilities sum to exactly 1.

Randomness always comes from a :class:`numpy.random.Generator` that the caller passes in; nothing
here touches global random state.

Example:
    >>> outcomes = chance_outcomes(2)
    >>> len(outcomes), outcomes[0]
    (21, ((1, 1), Fraction(1, 36)))
    >>> sum(p for _, p in chance_outcomes(6))
    Fraction(1, 1)
"""

from __future__ import annotations

import copy
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial

import numpy as np

FACES = (1, 2, 3, 4, 5, 6)
MAX_DICE = 6
UNICODE_FACES = {1: "⚀", 2: "⚁", 3: "⚂", 4: "⚃", 5: "⚄", 6: "⚅"}

Dice = tuple[int, ...]


def _check_count(k: int) -> None:
    if not isinstance(k, (int, np.integer)) or not 0 <= k <= MAX_DICE:
        raise ValueError(f"number of dice must be an integer in 0..{MAX_DICE}, got {k!r}")


def chance_outcomes(k: int) -> tuple[tuple[Dice, Fraction], ...]:
    """Exact outcomes of rolling ``k`` dice.

    Args:
        k: number of dice, 0..6. Zero dice have one outcome, the empty roll.

    Returns:
        ``((dice, probability), ...)`` with ``dice`` a sorted tuple and ``probability`` an exact
        :class:`fractions.Fraction`; the outcomes are in lexicographic order.
    """
    _check_count(k)  # before the cache: 2.0 == 2 would otherwise find 2's entry
    return _outcomes(int(k))


@lru_cache(maxsize=None)
def _outcomes(k: int) -> tuple[tuple[Dice, Fraction], ...]:
    total = 6**k
    outcomes = []
    for dice in combinations_with_replacement(FACES, k):
        ways = factorial(k)
        for count in Counter(dice).values():
            ways //= factorial(count)
        outcomes.append((dice, Fraction(ways, total)))
    return tuple(outcomes)


def roll(rng: np.random.Generator, k: int) -> Dice:
    """Roll ``k`` fair dice with the given generator and return them sorted."""
    return tuple(sorted(rng.integers(1, 7, size=k).tolist()))


def sub_seed(seed: int, *key: int) -> int:
    """A seed for one more generator beside the dice's (an agent's, say), as a function of
    ``seed`` and ``key`` (non-negative ints): ``seed + seat`` would hand one seat the dice's own
    stream, so that its random choices follow the dice."""
    return int(np.random.SeedSequence([int(seed), 0x5EED, *map(int, key)]).generate_state(1, np.uint64)[0] >> 1)


class DiceStream:
    """Fast dice from a generator: faces are drawn in blocks and handed out in order.

    The stream is a pure function of the generator's state, so a seeded generator gives the same
    rolls every time; drawing faces in blocks of ``block`` avoids one numpy call per roll.
    """

    def __init__(self, rng: np.random.Generator, block: int = 4096):
        self.rng = rng
        self.block = block
        self._faces: list[int] = []
        self._pos = 0

    def roll(self, k: int) -> Dice:
        """The next ``k`` faces, sorted."""
        if self._pos + k > len(self._faces):
            self._faces = self._faces[self._pos :] + self.rng.integers(1, 7, size=self.block).tolist()
            self._pos = 0
        start = self._pos
        self._pos = start + k
        # The canonical object: the engines' dice check then passes it by identity.
        return _SORTED[tuple(sorted(self._faces[start : start + k]))]

    def __deepcopy__(self, memo) -> "DiceStream":
        # The same stream from here on: the faces not yet handed out (plain ints, a flat copy)
        # and a copy of the generator. copy.deepcopy would copy the block face by face.
        new = DiceStream(copy.deepcopy(self.rng, memo), self.block)
        new._faces = self._faces[self._pos :]
        memo[id(self)] = new
        return new


#: Every sorted roll of 0..6 dice (plain ints), mapped to itself: the fast path of ``normalize``
#: and of the engines' dice check, and the one object :class:`DiceStream` hands out for a roll.
SORTED_ROLLS: dict[Dice, Dice] = {
    dice: dice for k in range(MAX_DICE + 1) for dice in combinations_with_replacement(FACES, k)
}
_SORTED = SORTED_ROLLS


def normalize(dice, k: int | None = None) -> Dice:
    """Validate dice given in any order and return them as a sorted tuple.

    Args:
        dice: an iterable of faces, or a string of digits such as ``"224566"``.
        k: the number of dice expected, if any.

    Raises:
        ValueError: a face outside 1..6 (or not an integer: bools and floats are not faces), more
            than six dice, or not the ``k`` dice expected.
    """
    canonical = _SORTED.get(dice) if type(dice) is tuple else None
    if canonical is not None and (k is None or len(canonical) == k) and all(type(f) is int for f in dice):
        return canonical
    if isinstance(dice, str):
        text = dice.replace(" ", "")
        if not text.isdigit():
            raise ValueError(f"dice must be faces 1..6, got {dice!r}")
        faces = [int(c) for c in text]
    else:
        try:
            faces = list(dice)
        except TypeError:
            raise ValueError(f"dice must be a sequence of faces 1..6, got {dice!r}") from None
    if len(faces) > MAX_DICE:
        raise ValueError(f"at most {MAX_DICE} dice are rolled together, got {len(faces)}: {dice!r}")
    for face in faces:
        if isinstance(face, (bool, np.bool_)) or not isinstance(face, (int, np.integer)) or not 1 <= face <= 6:
            raise ValueError(f"dice must be faces 1..6, got {dice!r}")
    if k is not None and len(faces) != k:
        raise ValueError(f"expected {k} dice, got {len(faces)}: {dice!r}")
    return tuple(sorted(int(f) for f in faces))


def to_string(dice: Dice) -> str:
    """Dice as docs/rules.md writes them: faces ascending, no separators (``224566``)."""
    return "".join(str(f) for f in dice)


def to_unicode(dice: Dice) -> str:
    """Dice as unicode faces separated by spaces, e.g. ``⚁ ⚁ ⚃``."""
    return " ".join(UNICODE_FACES[f] for f in dice)


def face_counts(dice: Dice) -> tuple[int, int, int, int, int, int]:
    """How many dice show each face 1..6."""
    counts = [0] * 6
    for f in dice:
        counts[f - 1] += 1
    return tuple(counts)  # type: ignore[return-value]  # six counts; a hot path, so no cast()
