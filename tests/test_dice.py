"""C-2: exact chance outcomes of k dice and seeded sampling consistent with them."""

from collections import Counter
from fractions import Fraction
from itertools import product
from math import comb

import numpy as np
import pytest
from scipy import stats

from dice_envs import dice


@pytest.mark.parametrize("k", range(0, 7))
def test_C2_outcome_counts_and_probabilities_are_exact(k):
    outcomes = dice.chance_outcomes(k)
    assert len(outcomes) == comb(k + 5, 5)
    assert sum(p for _, p in outcomes) == 1
    assert all(isinstance(p, Fraction) for _, p in outcomes)
    assert all(list(d) == sorted(d) for d, _ in outcomes)
    # Brute force over all 6^k ordered rolls.
    counts = Counter(tuple(sorted(r)) for r in product(range(1, 7), repeat=k))
    assert {d: p for d, p in outcomes} == {d: Fraction(c, 6**k) for d, c in counts.items()}


def test_C2_six_dice_have_462_outcomes():
    assert len(dice.chance_outcomes(6)) == 462
    assert dict(dice.chance_outcomes(6))[(1, 2, 3, 4, 5, 6)] == Fraction(720, 6**6)
    assert dict(dice.chance_outcomes(6))[(6, 6, 6, 6, 6, 6)] == Fraction(1, 6**6)


@pytest.mark.parametrize("k", [1, 3, 6])
def test_C2_sampled_histogram_matches_exact_probabilities(k):
    stream = dice.DiceStream(np.random.default_rng(12345))
    n = 60_000
    counts = Counter(stream.roll(k) for _ in range(n))
    outcomes = dice.chance_outcomes(k)
    observed = [counts[d] for d, _ in outcomes]
    expected = [float(p) * n for _, p in outcomes]
    assert sum(observed) == n  # every sample is a listed outcome
    _, p_value = stats.chisquare(observed, expected)
    assert p_value > 1e-4


def test_sampling_is_seeded_by_the_generator_passed_in():
    a = dice.DiceStream(np.random.default_rng(7))
    b = dice.DiceStream(np.random.default_rng(7))
    assert [a.roll(6) for _ in range(5000)] == [b.roll(6) for _ in range(5000)]
    assert dice.roll(np.random.default_rng(3), 4) == dice.roll(np.random.default_rng(3), 4)


def test_normalize_accepts_any_order_and_rejects_bad_dice():
    assert dice.normalize((6, 1, 3)) == (1, 3, 6)
    assert dice.normalize("224566") == (2, 2, 4, 5, 6, 6)
    for bad in [(0, 1), (7,), "12x", (1.5,)]:
        with pytest.raises(ValueError, match="faces 1..6"):
            dice.normalize(bad)
    with pytest.raises(ValueError, match="expected 3 dice"):
        dice.normalize((1, 2), 3)
    with pytest.raises(ValueError, match="number of dice"):
        dice.chance_outcomes(7)
    dice.chance_outcomes(2)
    with pytest.raises(ValueError, match="number of dice"):
        dice.chance_outcomes(2.0)  # even with 2's outcomes cached


def test_text_forms():
    assert dice.to_string((2, 2, 4)) == "224"
    assert dice.to_unicode((1, 6)) == "⚀ ⚅"
    assert dice.face_counts((1, 1, 6)) == (2, 0, 0, 0, 0, 1)
