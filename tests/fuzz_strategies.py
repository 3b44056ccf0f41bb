"""Shared by the fuzz and game-end tests: hypothesis strategies for every game's options, and bad inputs.

Options are drawn across the whole accepted range, extremes included, with small values more
likely so that most games finish within a fuzz budget. Some draws are refused by the engine
(an opening above the target, ...): the tests check that the refusal is a ``ValueError``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from dice_envs.games import meyer, syvere, tenthousand

GAMES = {"syvere": syvere.Game, "tenthousand": tenthousand.Game, "meyer": meyer.Game}


def _ints(low: int, high: int, usual: tuple[int, ...] = ()) -> st.SearchStrategy[int]:
    """Integers in ``low..high``: the ends, the usual values, and anything in between."""
    return st.one_of(st.sampled_from(sorted({low, high, *(u for u in usual if low <= u <= high)})), st.integers(low, high))


def _fifties(low: int, high: int, usual: tuple[int, ...] = ()) -> st.SearchStrategy[int]:
    return _ints(low // 50, high // 50, tuple(u // 50 for u in usual)).map(lambda k: 50 * k)


@st.composite
def syvere_options(draw, extremes: bool = True) -> dict:
    n = draw(st.integers(2, 8))
    top = syvere.MAX_ELIMINATION if extremes else 150
    return {
        "num_players": n,
        "elimination": draw(st.one_of(_ints(1, 100, (77,)), _ints(1, top))),
        "max_rolls": draw(_ints(1, syvere.MAX_ROLLS if extremes else 10, (3,))),
        "next_starter": draw(st.sampled_from(["right", "left"])),
        "first_starter": draw(st.integers(0, n - 1)),
    }


@st.composite
def meyer_options(draw, extremes: bool = True) -> dict:
    n = draw(st.integers(2, 8))
    top = meyer.MAX_LIVES if extremes else 10
    return {
        "num_players": n,
        "lives": draw(st.one_of(_ints(1, 8, (6,)), _ints(1, top))),
        "lille_meyer": draw(st.booleans()),
        "claim_rule": draw(st.sampled_from(meyer.CLAIM_RULES)),
        "blind_reroll": draw(st.booleans()),
        "meyer_costs": draw(_ints(1, top, (1, 2))),
        "end": draw(st.sampled_from(meyer.END_RULES)),
        "first_starter": draw(st.integers(0, n - 1)),
        "history": draw(_ints(0, meyer.MAX_HISTORY, (8,))),
    }


@st.composite
def tenthousand_options(draw, extremes: bool = True) -> dict:
    """10 000 options: a preset and any subset of overrides.

    With ``extremes=False`` the options stay in the tame range of :func:`length_bound`: target at
    most 2000, opening at most 1000, min_bank at most 500, a bust penalty of at most 500 after at
    least 3 busts; every flag and scoring option still varies.
    """
    n = draw(st.integers(2, 8))
    options = {"num_players": n, "preset": draw(st.sampled_from(sorted(tenthousand.PRESETS)))}
    if not extremes:
        options["target"] = target = draw(_fifties(50, TAME_TARGET, (500, 1000)))
    else:
        options["target"] = target = draw(st.one_of(_fifties(50, 3000, (500, 1000)), _fifties(50, tenthousand.MAX_TARGET, (10_000,))))
    optional = {
        "opening": _ints(0, target, (0, 300, 500, 1000)) if extremes else _ints(0, min(target, TAME_OPENING), (0, 300, 500)),
        "min_bank": _ints(0, target, (0, 300)) if extremes else _ints(0, min(target, TAME_MIN_BANK), (0, 300)),
        "end": st.sampled_from(tenthousand.ENDS),
        "hot_dice_must_roll": st.booleans(),
        "over_threshold": st.booleans(),
        "confirm_combinations": st.booleans(),
        "exact_target": st.booleans(),
        "bust_penalty": _fifties(0, tenthousand.MAX_POINTS, (0, 500)) if extremes else _fifties(0, TAME_PENALTY, (0,)),
        "bust_penalty_after": _ints(1, tenthousand.MAX_BUSTS, (3,)) if extremes else _ints(3, 5),
        "straight": _fifties(50, tenthousand.MAX_POINTS, (1000, 1500)),
        "three_pairs": _fifties(50, tenthousand.MAX_POINTS, (750, 1500)),
        "four_and_pair_is_three_pairs": st.booleans(),
        "n_of_a_kind": st.sampled_from(tenthousand.N_OF_A_KIND),
        "first_starter": st.integers(0, n - 1),
    }
    for name in draw(st.sets(st.sampled_from(sorted(optional)))):
        options[name] = draw(optional[name])
    if options.get("exact_target") and options.get("bust_penalty", 0) % 50:
        options["bust_penalty"] -= options["bust_penalty"] % 50
    # Now and then (1 draw in 20) a combination the rules refuse. Not ``integers(...) == 0``:
    # hypothesis favours 0 and would refuse every fourth draw.
    if extremes and draw(st.sampled_from(range(20))) == 19:
        options["opening"] = target + 50
    return options


OPTIONS = {"syvere": syvere_options, "tenthousand": tenthousand_options, "meyer": meyer_options}

# The tame range of 10 000's options, in which length_bound knows a bound (see there).
TAME_TARGET = 2000
TAME_OPENING = 1000
TAME_MIN_BANK = 500
TAME_PENALTY = 500
TAME_PENALTY_AFTER = 3
#: Steps (decisions and rolls) within which a random-legal game of 10 000 in the tame range ends.
TENTHOUSAND_BOUND = 50_000


def length_bound(game) -> int | None:
    """Steps (decisions plus rolls) within which a game played by random-legal agents ends.

    ``None`` where no bound is claimed (10 000 outside its tame range: huge targets, or
    thresholds that only a rare turn can clear, make games long without bound in practice).

    Why these bounds hold (each allows dozens of times the mean, and every length distribution
    here has a geometric tail, so exceeding one has a vanishing probability):

    * Syvere: a turn is at most ``max_rolls`` rolls and ``max_rolls - 1`` decisions. It scores 0
      only when every die is paired off (10% of random-legal turns, measured over 3000 games with
      the defaults; a single die left never pairs off), so a player reaches ``elimination`` in
      fewer than ``2 * elimination`` turns on average. The bound is 40 times that for each of the
      ``N`` players.
    * Meyer: every round ends with a doubt that costs a life, so there are fewer than
      ``N * lives`` rounds. A round has at most 21 claims under ``claim_rule="higher"``; under
      ``"at_least"`` a random-legal responder doubts with probability at least 1/2 each time, so a
      round of more than 40 claims has probability at most 2^-40. A claim costs at most 5 steps
      (believe, roll, reroll, roll, claim), a doubt 1.
    * 10 000 (target <= 2000, opening <= 1000, min_bank <= 500, penalty <= 500 after >= 3 busts):
      under TT-9d every game can end. Measured over 100 random-legal games each, the slowest
      corners average 860 steps (8 players, target 2000, exact target, confirmation, penalties)
      and 760 (target 1000 = opening, exact, confirmation, hot dice), with standard deviations
      about equal to their means, the mark of a geometric tail; 50 000 steps is over 50 means.
    """
    n = game.num_players
    if game.name == "syvere":
        return 40 * n * 2 * game.elimination * 2 * game.max_rolls
    if game.name == "meyer":
        return n * game.lives * (41 * 5 + 1)
    tame = (
        game.target <= TAME_TARGET
        and game.opening <= TAME_OPENING
        and game.min_bank <= TAME_MIN_BANK
        and (game.bust_penalty == 0 or (game.bust_penalty <= TAME_PENALTY and game.bust_penalty_after >= TAME_PENALTY_AFTER))
    )
    return TENTHOUSAND_BOUND if tame else None


def bad_actions(num_actions: int, legal: list[int]) -> list:
    """Actions that every engine must refuse with a ``ValueError`` at a decision with ``legal``."""
    some = legal[0] if legal else 0
    masked = [a for a in (0, 1, 2, 3, num_actions // 2, num_actions - 1) if a not in legal]
    return [
        -1, num_actions, 10**30, *masked[:2],
        float(some), np.float32(some), True, False, np.bool_(True), complex(some), str(some), None,
        np.array([some]), np.array(float(some)), np.array(True), [some], b"0",
    ]  # fmt: skip


def bad_dice(good: tuple[int, ...]) -> list:
    """Rolls that every engine must refuse with a ``ValueError`` where ``good`` would do."""
    k = len(good)
    rolls = [
        tuple(float(f) for f in good), (True,) * k, tuple(complex(f) for f in good), None, 5, "".join(map(str, good)),
        good + (1,), good[:-1], (7,) + good[1:], (0,) + good[1:], (-1,) + good[1:], np.array(good, dtype=float),
        np.array(3), tuple(np.bool_(True) for _ in good), tuple((f,) for f in good), (np.float64(good[0]),) + good[1:],
        {f: f for f in good}, iter(good),
    ]  # fmt: skip
    return [r for r in rolls if not (isinstance(r, tuple) and len(r) == k and all(type(f) is int and 1 <= f <= 6 for f in r))]


def good_forms(dice: tuple[int, ...], rng: np.random.Generator) -> object:
    """The same roll in a random accepted form: shuffled, a list, an array, numpy integers."""
    faces = list(dice)
    rng.shuffle(faces)
    form = int(rng.integers(5))
    if form == 0:
        return tuple(faces)
    if form == 1:
        return faces
    if form == 2:
        return np.array(faces, dtype=np.int64)
    if form == 3:
        return tuple(np.int8(f) for f in faces)
    return np.array(faces, dtype=np.uint8)


def action_form(action: int, rng: np.random.Generator) -> object:
    """The same action id in a random accepted form."""
    form = int(rng.integers(4))
    return (action, np.int64(action), np.array(action), np.int16(action))[form]
