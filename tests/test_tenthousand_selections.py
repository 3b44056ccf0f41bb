"""TT-3 / TT-5: the selection enumerator against a brute force written here (hypothesis).

The brute force tries every sub-multiset of the roll and scores it by recursion: the lowest die
left must belong to some combination of TT-5; the value is the best over those choices. It shares
no code with the engine's table-driven best split.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, product

from hypothesis import given, settings
from hypothesis import strategies as st

from dice_envs.games import tenthousand as tt
from dice_envs.games.tenthousand import Game

TRIPLE = {1: 1000, 2: 200, 3: 300, 4: 400, 5: 500, 6: 600}


def combination_list(straight, three_pairs, four_and_pair, linear):
    """TT-5 written out: (sorted dice, value) of every scoring combination."""
    combos = [((1,), 100), ((5,), 50)]
    for face in range(1, 7):
        for k in range(3, 7):
            factor = k - 2 if linear else 2 ** (k - 3)
            combos.append(((face,) * k, factor * TRIPLE[face]))
    combos.append(((1, 2, 3, 4, 5, 6), straight))
    for a, b, c in combinations(range(1, 7), 3):
        combos.append((tuple(sorted((a, a, b, b, c, c))), three_pairs))
    if four_and_pair:
        for a in range(1, 7):
            combos.append(((a,) * 6, three_pairs))
            for b in range(1, 7):
                if a != b:
                    combos.append((tuple(sorted((a, a, b, b, b, b))), three_pairs))
    return combos


def remove(dice: tuple, part: tuple):
    """``dice`` without the multiset ``part``, or None if it is not inside."""
    rest = list(dice)
    for d in part:
        if d not in rest:
            return None
        rest.remove(d)
    return tuple(rest)


def brute_force(roll, combos):
    """{selection: best value} over every non-empty sub-multiset of the roll that fully scores."""

    @lru_cache(maxsize=None)
    def best(dice):
        if not dice:
            return 0
        found = None
        for part, value in combos:
            if part[0] != dice[0]:
                continue  # the lowest die must be in the first combination taken
            rest = remove(dice, part)
            if rest is not None:
                sub = best(rest)
                if sub is not None and (found is None or value + sub > found):
                    found = value + sub
        return found

    result = {}
    for keep in product((0, 1), repeat=len(roll)):
        sel = tuple(d for d, k in zip(roll, keep) if k)
        if sel:
            value = best(sel)
            if value is not None:
                result[sel] = value
    return result


scoring = st.fixed_dictionaries(
    {
        "preset": st.sampled_from(["dk", "no", "farkle"]),
        "straight": st.sampled_from([None, 150, 1000, 2500]),
        "three_pairs": st.sampled_from([None, 750, 1500, 2000]),
        "four_and_pair_is_three_pairs": st.sampled_from([None, False, True]),
        "n_of_a_kind": st.sampled_from([None, "linear", "doubling"]),
    }
)
rolls = st.integers(1, 6).flatmap(lambda n: st.lists(st.integers(1, 6), min_size=n, max_size=n))


@settings(max_examples=150, deadline=None)
@given(options=scoring, roll=rolls)
def test_TT3_TT5_selections_equal_brute_force(options, roll):
    options = {k: v for k, v in options.items() if v is not None}
    game = Game(**options)
    o = {**tt.PRESETS[options["preset"]], **options}
    combos = combination_list(o["straight"], o["three_pairs"], o["four_and_pair_is_three_pairs"], o["n_of_a_kind"] == "linear")
    roll = tuple(sorted(roll))
    expected = brute_force(roll, combos)

    got = game.selections(roll)
    assert dict(got) == expected  # the same selections, each valued at its best split
    assert len({sel for sel, _ in got}) == len(got)  # each selection once

    # every die of a selection scores: no die can be dropped from a combination-only split
    for sel, value in got:
        assert value > 0 and game.score(sel) == value
        assert remove(roll, sel) is not None

    # the legal actions of that roll: ids of exactly these selections, sorted, no duplicates
    state = game.apply_chance(game.initial_state()._replace(to_roll=len(roll)), roll)
    legal = game.legal_actions(state)
    if not expected:
        assert game.current_player(state) == 1 and legal == []  # a bust passes the turn (TT-2)
        return
    assert legal == sorted(set(legal))
    assert {tt.decode_action(a)[0] for a in legal} == set(expected)
    assert all(a - 1 in legal for a in legal if a % 2 == 1)  # a bank id only with its roll id
    assert {a for a in legal if a % 2 == 0} == {tt.encode_action(sel, False) for sel in expected}
