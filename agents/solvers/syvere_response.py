"""Syvere: the exact best response of one seat to opponents that ignore the standings.

The built-in ``heuristic`` (and ``optimal``) decide from the dice alone: the dice left, their sum,
the rolls made, the round's limit and whether they started the round; the totals never enter. Their
turns are then independent draws from score distributions that depend only on the round's limit
(and, for a starter, on how often it rolled, which sets that limit). Against such opponents the
learner's problem is a Markov decision process over the totals, small enough to solve exactly:

* a *phase* is ``A`` players still in (2..``num_players``), the learner at index 0, the others
  clockwise after it; a round of a phase has one stage before each turn (SY-2);
* an opponent's stage averages the next stage over its score distribution; the learner's stage
  plays the best turn (a stopping problem over the dice left and their sum, SY-3..SY-6) for the
  values of the totals it can end on, or, with ``policy``, the turn that policy plays;
* the end of a round applies SY-8..SY-10: who is out, who wins, who starts the next round, and
  moves to the phase of the players left;
* a turn never lowers a total, so the states are solved level by level, from the highest sum of
  the totals (a player who went out counted at the elimination) down (the whole-round-scores-nothing
  loop is closed as :func:`~agents.solvers._syvere_response_kernel.do_level` says).

What this answers: the highest win rate any player can reach against ``num_players - 1`` copies of
an opponent, with the seats rotated (the first starter is equally likely to be anyone), and the win
rate of a given standings-blind policy (``policy``) in the same seats, exactly.

**The one thing not kept.** When everyone still in goes out in the same round, the fewest points
wins and then the fewest points before that round (SY-9). The 2-player phase keeps both for a player
who went out (a pair per player, 77 + 36 * 36 places on its axis), so it is exact. The 3-player
phase keeps the totals reached but not the totals before the round, and the 4-player phase keeps
neither (it would need 113^4 states per stage even for the totals reached). Those end-of-round
cases (a tie on points with 3 players, any everyone-out round with 4) are valued ``ties`` (0: counted
as lost, a lower bound; 1: counted as won, an upper bound), so with 3 or 4 players every value comes
as the pair of bounds from two solves; with 2 players both solves give the exact value.

Cost: 4 players at elimination 77 is 78^4 = 37M totals per array and 40 arrays, about 6.3 GB of
float32 (6.30 GB resident, measured), and 63-70 minutes on 2 cores (3963 s for the 4-player phase,
partly shared), measured before the kernel solved each state's passes together, which made the same
tables 7 times faster to build with 4 players at elimination 40 (198 s to 29 s, same window). 2 and 3
players take seconds: the 3-player best response about 5 s on 2 free cores (a 2-core machine shared with
other jobs: 5-20 s), the 2-player one about 1 s.

Result (elimination 77, three ``heuristic`` opponents, seats rotated): the best response wins at least
0.300614 (``--ties 0``; by first starter 0.3200, 0.3066, 0.2940, 0.2819) and at most 0.304905 (``--ties 1``;
0.3241, 0.3108, 0.2984, 0.2863; 3794 s, 6.33 GB resident); with 3 players at
least 0.400331 and at most 0.401715, with 2 players exactly 0.588157. ``optimal:starter_weight=3/4`` wins
exactly 0.575528 with 2 players, at least 0.388406 with 3, and at least 0.395419 with 3 when it plays the
best response once 2 are left (``--endgame 2``).

Checked: with 2 players the heuristic against itself gets exactly 1/2 and both bounds agree; at
elimination 20 the 2-player value of ``optimal:starter_weight=3/4`` (0.543955) agrees with a separate
simulator of the full rules (0.54387 and 0.54372 over 2M games each, standard error 0.00035), and before
the 2-player phase was exact, the values with ``--ties 0`` (0.535286 / 0.355528 / 0.259447 with 2 / 3 / 4
players) agreed with that simulator scoring the same cases as lost; ``tests/test_syvere_response.py``
plays the engine itself.

Usage::

    python -m agents.solvers.syvere_response --num-players 4 --ties 0
    python -m agents.solvers.syvere_response --num-players 4 --ties 1 --policy optimal:starter_weight=3/4
    python -m agents.solvers.syvere_response --num-players 3 --policy optimal:starter_weight=3/4 --endgame 2
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

import numpy as np

from agents.solvers import syvere as sv
from dice_envs.games import syvere

MAX_PLAYERS = 4
MAX_SCORE = 6 * syvere.NUM_DICE  # the most one turn can score (six sixes: no pair of them sums to 7)


def roll_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For ``k`` dice (1..6), the distinct (dice left, their sum) after one roll and their probability.

    Read from the engine through :func:`agents.solvers.syvere._roll_results` (its chance outcomes,
    with the pairs summing to 7 set aside). Returns ``offs, dice_left, held_sum, probability``:
    entries ``offs[k] .. offs[k + 1]`` belong to ``k`` dice.
    """
    offs = np.zeros(8, np.int64)
    left: list[int] = []
    held: list[int] = []
    prob: list[float] = []
    for k in range(1, 7):
        merged: dict[tuple[int, int], float] = {}
        for p, remaining in sv._roll_results(k):
            key = (len(remaining), sum(remaining))
            merged[key] = merged.get(key, 0.0) + float(p)
        offs[k] = len(left)
        for (k2, s2), chance in sorted(merged.items()):
            left.append(k2)
            held.append(s2)
            prob.append(chance)
    offs[7] = len(left)
    return offs, np.array(left, np.int64), np.array(held, np.int64), np.array(prob, np.float64)


def _observation(game: syvere.Game, remaining: tuple[int, ...], made: int, limit: int, starter: bool,
                 totals: np.ndarray) -> np.ndarray:  # fmt: skip
    """Seat 0's observation (the engine's own :meth:`~dice_envs.games.syvere.Game.observe`) at a decision:
    ``remaining`` held after roll ``made``, as the round's starter (limit ``max_rolls``) or as its last
    player under ``limit``, with the given totals."""
    n = game.num_players
    order = tuple(range(n)) if starter else tuple(range(1, n)) + (0,)
    state = game.initial_state()._replace(
        totals=tuple(int(t) for t in totals), round_order=order, turn=0 if starter else n - 1,
        starter_rolls=0 if starter else limit, rolls=made, remaining=tuple(remaining), to_roll=0,
    )  # fmt: skip
    return game.observe(state, 0)


def turn_table(game: syvere.Game, agent, probes: int = 3, seed: int = 0) -> np.ndarray:
    """An agent's stop decisions by (dice left, their sum, rolls made, limit, starter), read from its ``act``.

    Every set of remaining dice the rules leave is shown to the agent after every number of rolls
    and under every limit it can meet (a starter always has the game's ``max_rolls``). The table
    is ``stop[k, sum, made, limit, starter]`` (1 = stop).

    Raises:
        ValueError: the agent draws its decision at random (its ``action_probabilities`` are not
            0 or 1), decides differently for two sets of dice with the same count and sum, or for
            the same dice under other totals (``probes`` random standings): the solver's opponents
            and fixed policies must be deterministic and ignore both.
    """
    M = game.max_rolls
    table = np.zeros((7, MAX_SCORE + 1, M + 1, M + 1, 2), np.int8)
    seen = np.zeros(table.shape, bool)
    rng = np.random.default_rng(seed)
    standings = [np.zeros(game.num_players)] + [rng.integers(0, game.elimination, game.num_players).astype(float)
                                                for _ in range(probes)]  # fmt: skip
    mask = np.ones(2, dtype=np.int8)
    sets = {rem for k in range(1, 7) for _, rem in sv._roll_results(k) if rem}
    for remaining in sorted(sets):
        k, s = len(remaining), sum(remaining)
        for limit in range(2, M + 1):
            for starter in ((False, True) if limit == M else (False,)):
                for made in range(1, limit):
                    probabilities = np.asarray(
                        agent.action_probabilities(_observation(game, remaining, made, limit, starter, standings[0]), mask)
                    )
                    if not np.all((probabilities == 0) | (probabilities == 1)):
                        raise ValueError(
                            f"{agent!r} is not deterministic: it stops with probability "
                            f"{float(probabilities[syvere.STOP]):.3g} (dice {remaining}, roll {made} of {limit}); "
                            "the solver needs opponents and policies that choose one action in each situation"
                        )
                    answers = {int(agent.act(_observation(game, remaining, made, limit, starter, totals), mask))
                               for totals in standings}  # fmt: skip
                    if len(answers) > 1:
                        raise ValueError(
                            f"{agent!r} decides by the standings (dice {remaining}, roll {made} of {limit}): "
                            "the solver needs opponents and policies that ignore the totals"
                        )
                    stop = int(answers.pop() == syvere.STOP)
                    key = (k, s, made, limit, int(starter))
                    if seen[key] and table[key] != stop:
                        raise ValueError(
                            f"{agent!r} decides by more than the dice left and their sum ({k} dice summing to {s}, "
                            f"roll {made} of {limit}): the solver needs a policy of those alone"
                        )
                    table[key], seen[key] = stop, True
    return table


def score_distributions(table: np.ndarray, max_rolls: int, tables=None) -> tuple[np.ndarray, np.ndarray]:
    """The exact turn-score distributions of a player who plays ``table`` (see :func:`turn_table`).

    Returns:
        ``PL[L, x]``: a player who did not start the round, under limit ``L``, scores ``x``;
        ``PS[j, x]``: a round's starter (limit ``max_rolls``) ends after ``j`` rolls with ``x``.
    """
    offs, left, held, prob = tables if tables is not None else roll_tables()
    M = max_rolls

    def turn(limit: int, starter: int) -> dict[tuple[int, int], float]:
        out: dict[tuple[int, int], float] = {}
        frontier = {6: 1.0}  # dice to roll -> probability, after `made` rolls
        for made in range(1, limit + 1):
            nxt: dict[int, float] = {}
            for k, pk in frontier.items():
                for i in range(offs[k], offs[k + 1]):
                    k2, x, p = int(left[i]), int(held[i]), pk * float(prob[i])
                    if k2 == 0 or made >= limit or table[k2, x, made, limit, starter]:
                        out[(made, x)] = out.get((made, x), 0.0) + p
                    else:
                        nxt[k2] = nxt.get(k2, 0.0) + p
            frontier = nxt
        return out

    PL = np.zeros((M + 1, MAX_SCORE + 1))
    for L in range(1, M + 1):
        for (_, x), p in turn(L, 0).items():
            PL[L, x] += p
    PS = np.zeros((M + 1, MAX_SCORE + 1))
    for (j, x), p in turn(M, 1).items():
        PS[j, x] += p
    return PL, PS


MAX_BYTES = 16 * 2**30  # the default game with 4 players needs about 6.3 GiB (6.30 GB resident, measured)


def _axis(A: int, elimination: int) -> tuple[int, int]:
    """What the phase of ``A`` players keeps of a player who went out in the round (the kernel's ``mode``)
    and the length of its axis: 2 players keep the totals reached and before (exact), 3 the totals
    reached, 4 only that the player is out (to fit memory)."""
    from agents.solvers._syvere_response_kernel import CLIP, PAIR_STRIDE, PAIRS, TOTALS

    if A <= 2:
        return PAIRS, elimination + PAIR_STRIDE**2
    if A == 3:
        return TOTALS, elimination + MAX_SCORE
    return CLIP, elimination + 1


def memory_needed(num_players: int, elimination: int, max_rolls: int) -> int:
    """Bytes of the largest phase: its float32 value arrays and the int64 order of its states."""
    need = 0
    for A in range(2, num_players + 1):
        D = _axis(A, elimination)[1]
        need = max(need, (A + A * (A - 1) * max_rolls) * D**A * 4 + 3 * D**A * 8)
    return need


@dataclass(frozen=True)
class Response:
    """A solve's result.

    Attributes:
        value: the learner's win rate with the first starter equally likely to be anyone.
        by_starter: ``by_starter[i]``: the same when the first round is started by the player ``i``
            seats clockwise from the learner (0: the learner starts).
        ties: how the end-of-round cases the solver does not keep were valued (0 or 1; see above).
        best_response: True for the best response, False for ``policy``'s value.
        seconds: wall time of the solve.
        array_bytes: memory of the value arrays of the largest phase.
    """

    value: float
    by_starter: tuple[float, ...]
    ties: float
    best_response: bool
    seconds: float
    array_bytes: int


def _phase(A: int, E: int, M: int, right: bool, lower: dict, ties: float, PL, PS, maximise: bool,
           pol, tables, progress, passes: int) -> tuple[np.ndarray, int, int, np.ndarray]:  # fmt: skip
    """Solve one phase; returns its round-start values ``R``, its axis length, the bytes of its arrays and
    its stage values ``G``.

    ``R`` and ``G`` are transposes of C-ordered arrays (``R.T[idx]`` holds the values of the totals
    ``idx``), the order in which the kernel reads and writes them; ``np.ascontiguousarray`` gives
    the C-ordered tables. ``progress``: a maker of a progress bar, ``progress(total, desc)``, or ``None``.
    """
    from agents.solvers import _syvere_response_kernel as kern

    mode, D = _axis(A, E)
    size = D**A
    # A state's level is the sum of its totals with every player who went out counted at E: a turn
    # raises it or (scoring 0) keeps the same state, so the levels are solved from the highest down.
    # States where everyone is out are never played from, nor are pairs a turn cannot make.
    level = np.zeros(size, np.int64)
    n_out = np.zeros(size, np.int8)
    keep = np.ones(size, bool)
    rest = np.arange(size, dtype=np.int64)
    for _ in range(A):
        v = rest % D
        rest //= D
        out = v >= E
        level += np.minimum(v, E)
        n_out += out
        if mode == kern.PAIRS:
            d, o = np.divmod(v - E, kern.PAIR_STRIDE)
            keep &= ~out | ((d + o + 1 <= kern.PAIR_STRIDE) & (o + 1 <= E))
        del v, out
    del rest
    keep &= n_out < A
    del n_out
    states = np.flatnonzero(keep)
    del keep
    level = level[states]
    by_level = np.argsort(-level, kind="stable")
    order = states[by_level]
    cuts = np.flatnonzero(np.diff(level[by_level])) + 1
    del level, states, by_level
    # One state's values side by side: a state reads and writes its own, and the few states a turn
    # reaches; the tables are the transposes. (The lower phases' R come in the same order, and the
    # stand-ins for a phase not there are of it too, so the kernel is compiled once.)
    G = np.zeros((size, A * (A - 1) * M), np.float32).T
    R = np.zeros((size, A), np.float32).T
    R3, D3 = lower.get(3, (np.zeros((2, 2), np.float32).T, 1))
    R2, D2 = lower.get(2, (np.zeros((2, 2), np.float32).T, 1))
    bar = progress(len(order), f"{A} players") if progress else None
    for block in np.split(order, cuts):
        kern.do_level(block, A, D, E, M, mode, right, G, R, R3, D3, R2, D2, float(ties), PL, PS, maximise,
                      pol, passes, *tables)  # fmt: skip
        if bar is not None:
            bar.update(len(block))
    if bar is not None:
        bar.close()
    return R, D, G.nbytes + R.nbytes, G


def solve(num_players: int = 4, elimination: int = 77, max_rolls: int = 3, next_starter: str = "right",
          opponent: str = "heuristic", policy: str | None = None, ties: float = 0.0,
          progress: bool = False, endgame: int = 0) -> Response:  # fmt: skip
    """Solve the learner's problem against ``num_players - 1`` copies of ``opponent``.

    Args:
        num_players: 2..4.
        elimination, max_rolls, next_starter: the game's options (SY-11).
        opponent: an agent SPEC that is deterministic and whose decisions ignore the totals
            (``heuristic``, ``optimal``, ...; not ``random``).
        policy: ``None`` for the best response; else an agent SPEC of the same kind, evaluated.
        ties: 0 or 1, the value of the end-of-round cases the solver does not keep (a lower or an
            upper bound).
        progress: a progress bar on stderr (tqdm, when installed).
        endgame: with ``policy``, the learner plays the best response from the first round that
            begins with at most ``endgame`` players still in, and ``policy`` before (0: ``policy``
            throughout): the value of a player who plays an exact endgame.

    Raises:
        ValueError: bad options, or an agent that reads the totals or more than the dice's sum.
    """
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) or not 2 <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be 2..{MAX_PLAYERS} (5 or more players are too many states), got {num_players!r}")
    whole = not isinstance(endgame, bool) and isinstance(endgame, (int, np.integer))
    if not whole or not 0 <= endgame <= num_players:
        raise ValueError(f"endgame must be 0..num_players ({num_players}), got {endgame!r}")
    if endgame and policy is None:
        raise ValueError("endgame needs a policy to play before it (without one the best response "
                         "plays throughout)")  # fmt: skip
    if ties not in (0, 1):
        raise ValueError(f"ties must be 0 (a lower bound) or 1 (an upper bound), got {ties!r}")
    game = syvere.Game(num_players=int(num_players), elimination=elimination, max_rolls=max_rolls,
                       next_starter=next_starter)  # fmt: skip (validates the options)
    tables, PL, PS, pol = _models(game, opponent, policy)  # refuses max_rolls above 6 first
    need = memory_needed(game.num_players, game.elimination, game.max_rolls)
    if need > MAX_BYTES:
        raise ValueError(
            f"{game.num_players} players at elimination {game.elimination} need about {need / 2**30:.1f} GiB "
            f"(at most {MAX_BYTES / 2**30:.0f} GiB is allowed); use fewer players or a lower elimination"
        )
    start = time.perf_counter()
    lower, _, biggest = _phases(game, game.num_players, ties, PL, PS, pol, tables, _bar_factory(progress),
                                maximise_upto=game.num_players if policy is None else endgame)  # fmt: skip
    by_starter = tuple(float(v) for v in lower[game.num_players][0][:, 0])
    return Response(float(np.mean(by_starter)), by_starter, float(ties), policy is None, time.perf_counter() - start,
                    biggest)  # fmt: skip


def no_policy(max_rolls: int) -> np.ndarray:
    """The stop table (see :func:`turn_table`) of a solve with no fixed policy: all zeros, never read."""
    return np.zeros((7, MAX_SCORE + 1, max_rolls + 1, max_rolls + 1, 2), np.int8)


def _models(game: syvere.Game, opponent: str, policy: str | None):
    """Roll tables, the opponents' score distributions and the fixed policy's stop table of a solve."""
    from agents import spec as agent_spec

    if game.max_rolls > 6:
        raise ValueError(f"max_rolls above 6 is not supported by this solver, got {game.max_rolls!r}")
    tables = roll_tables()
    PL, PS = score_distributions(turn_table(game, agent_spec.build(game, opponent, seed=0)), game.max_rolls, tables)
    pol = no_policy(game.max_rolls) if policy is None else turn_table(game, agent_spec.build(game, policy, seed=0))
    return tables, PL, PS, pol


def _bar_factory(progress: bool):
    """A maker of per-phase progress bars on stderr (``bar(total, desc)``, counting states, each returning
    a bar or ``None``), or ``None`` when no progress is asked. Without tqdm (the [solve] extra) no bar."""
    if not progress:
        return None
    from dice_envs.progress import optional_progress_bar

    def bar(total, desc):
        return optional_progress_bar(total=total, desc=f"solving {desc}", unit="state", unit_scale=True,
                                     leave=False)  # fmt: skip

    return bar


def _passes(A: int) -> int:
    """How often each level of the phase of ``A`` players is solved. The whole-round-scores-nothing loop
    is closed by repeating the level: its weight is the chance that every player of a round scores 0,
    which is about 1e-2 with 2 players and 4e-4 with 4."""
    return 1 if A >= 4 else 3


def _phases(game: syvere.Game, top: int, ties: float, PL, PS, pol, tables, bar, maximise_upto: int,
            keep_stages: bool = False):  # fmt: skip
    """Solve the phases of 2..``top`` players, the best response in those of at most ``maximise_upto``.

    Returns ``lower`` (phase -> its round-start values and axis length), the stage values of each
    phase if ``keep_stages`` (else an empty dict) and the bytes of the largest phase's arrays.
    """
    lower: dict[int, tuple[np.ndarray, int]] = {}
    stages: dict[int, np.ndarray] = {}
    biggest = 0
    right = game.next_starter == "right"
    for A in range(2, top + 1):
        R, D, nbytes, G = _phase(A, game.elimination, game.max_rolls, right, lower, ties, PL, PS, A <= maximise_upto,
                                 pol, tables, bar, _passes(A))  # fmt: skip
        biggest = max(biggest, nbytes)
        lower[A] = (R, D)
        if keep_stages:
            stages[A] = G
        del G  # otherwise only the round starts are read by the next phase
    return lower, stages, biggest


def phase_states(A: int, elimination: int) -> int:
    """How many states the phase of ``A`` players solves: every player's axis value a turn can make,
    less the states where every player is out."""
    mode, D = _axis(A, elimination)
    from agents.solvers._syvere_response_kernel import PAIR_STRIDE, PAIRS

    out = D - elimination
    if mode == PAIRS:
        d, o = np.divmod(np.arange(out), PAIR_STRIDE)
        out = int(np.count_nonzero((d + o + 1 <= PAIR_STRIDE) & (o + 1 <= elimination)))
    return (elimination + out) ** A - out**A


#: Microseconds per state of the 2- and 3-player phases of the best response on one free core, as
#: ``a + b * max_rolls`` (``max_rolls`` 2..6 at elimination 30 and 77, measured on the 2-core machine
#: of the module's docstring; smaller eliminations take less per state); two free cores take about 1/1.5.
_PER_STATE = {2: (1.5, 0.27), 3: (0.6, 1.55)}


def endgame_seconds(elimination: int, max_rolls: int, phases=(2, 3)) -> float:
    """A rough estimate of the seconds :func:`endgame_tables` takes to solve ``phases`` on 2 free cores,
    not counting the compilation of the solver's kernels on their first use (about 10 s)."""
    micros = sum(phase_states(A, elimination) * (_PER_STATE[A][0] + _PER_STATE[A][1] * max_rolls)
                 for A in phases)  # fmt: skip
    return micros * 1e-6 / 1.5


#: Version of the endgame tables on disk (:func:`endgame_tables`); raise it when their meaning or their
#: files change (the solver's model or the opponent agents' play). 2: one file per phase.
ENDGAME_VERSION = 2

#: The endgame tables' name in the solver cache.
ENDGAME_SOLVER = "syvere-endgame"


def endgame_tables(elimination: int = 77, max_rolls: int = 3, next_starter: str = "right", opponent: str = "heuristic",
                   ties: float = 0.0, progress: bool = False, cache_dir=None,
                   use_cache: bool = True, bar: bool = True) -> dict[str, np.ndarray]:  # fmt: skip
    """The best response's values in the 2- and 3-player phases, for an agent that plays them.

    The phases do not depend on how many players the game began with, so one table serves every
    game of these options. Each phase is kept in the solver cache (``agents.solvers.cache``) as soon
    as it is solved, so a build stopped in the 3-player phase starts again from there. About 180 MB
    at elimination 77; the time depends on the options (:func:`endgame_seconds`, which the announcement
    quotes): at elimination 77 about 5 s on 2 free cores with ``max_rolls`` 3 and 8-10 s with 5 (more
    on a busy machine; the bars show the time left), plus about 10 s to compile the solver's kernels
    the first time they are used.

    Args:
        progress: when a phase is to be solved, say so on stderr with an estimate of the time, then
            (with ``bar``) show a progress bar per phase (tqdm, when installed).

    Returns:
        ``R2, G2, R3, G3``: the round-start and stage values of each phase (see
        :mod:`agents.solvers._syvere_response_kernel`), float32, C-ordered.

    Raises:
        ValueError: bad options, or an opponent that is not deterministic or reads the totals (refused
            before anything is announced or solved).
    """
    if ties not in (0, 1):
        raise ValueError(f"ties must be 0 (a lower bound) or 1 (an upper bound), got {ties!r}")
    game = syvere.Game(num_players=3, elimination=elimination, max_rolls=max_rolls, next_starter=next_starter)
    options = {"elimination": game.elimination, "max_rolls": game.max_rolls, "next_starter": game.next_starter,
               "opponent": opponent, "ties": float(ties)}  # fmt: skip
    from agents.solvers import cache

    found: dict[int, dict[str, np.ndarray]] = {}
    for A in (2, 3) if use_cache else ():
        table = cache.load(ENDGAME_SOLVER, ENDGAME_VERSION, {**options, "players": A}, cache_dir)
        if table is not None and set(table) == {f"R{A}", f"G{A}"}:
            found[A] = table
    missing = [A for A in (2, 3) if A not in found]
    if missing:
        # Every refusal comes before any announcement: no numba, an opponent the solver cannot take, or
        # tables too large for memory (the 3-player phase grows as the cube of the elimination).
        from agents.solvers import _syvere_response_kernel  # noqa: F401

        tables, PL, PS, pol = _models(game, opponent, None)
        need = memory_needed(3, game.elimination, game.max_rolls)
        if need > MAX_BYTES:
            raise ValueError(
                f"the best response's 3-player phase at elimination {game.elimination} needs about "
                f"{need / 2**30:.1f} GiB (at most {MAX_BYTES / 2**30:.0f} GiB is allowed); use a lower elimination"
            )
        if progress:
            which = {(2, 3): "the 2- and 3-player phases", (2,): "the 2-player phase (the 3-player one is cached)",
                     (3,): "the 3-player phase (the 2-player one is cached)"}[tuple(missing)]  # fmt: skip
            seconds = endgame_seconds(game.elimination, game.max_rolls, missing)
            print(f"solving Syvere's best response against {opponent} at elimination {game.elimination}, "
                  f"{game.max_rolls} rolls, once: {which}, about {_duration(seconds)} on 2 free cores (more the "
                  "first time, to compile the solver); kept in the solver cache", file=sys.stderr)  # fmt: skip
        right = game.next_starter == "right"
        bars = _bar_factory(progress and bar)
        lower: dict[int, tuple[np.ndarray, int]] = {}
        for A in (2, 3):
            if A in found:  # the kernel reads the round starts of the phase below in its own order
                lower[A] = (np.asfortranarray(found[A][f"R{A}"]), _axis(A, game.elimination)[1])
                continue
            R, D, _, G = _phase(A, game.elimination, game.max_rolls, right, lower, ties, PL, PS, True, pol,
                                tables, bars, _passes(A))  # fmt: skip
            lower[A] = (R, D)
            found[A] = {f"R{A}": np.ascontiguousarray(R), f"G{A}": np.ascontiguousarray(G)}
            del G
            if use_cache:  # at once: a build stopped in the next phase resumes from this one
                cache.save_or_warn(ENDGAME_SOLVER, ENDGAME_VERSION, {**options, "players": A}, found[A], cache_dir)
    return {**found[2], **found[3]}


def _duration(seconds: float) -> str:
    """``seconds`` rounded for an estimate: "5 s", "40 s", "3 minutes"."""
    if seconds < 60:
        return f"{max(1, round(seconds) if seconds < 15 else 10 * round(seconds / 10))} s"
    minutes = round(seconds / 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.solvers.syvere_response", description=__doc__.split("\n")[0])
    parser.add_argument("--num-players", type=int, default=4)
    parser.add_argument("--elimination", type=int, default=77)
    parser.add_argument("--max-rolls", type=int, default=3)
    parser.add_argument("--next-starter", default="right", choices=("right", "left"))
    parser.add_argument("--opponent", default="heuristic", help="SPEC of every other seat (default heuristic)")
    parser.add_argument("--policy", default=None, help="SPEC to evaluate instead of the best response")
    parser.add_argument("--endgame", type=int, default=0, metavar="K",
                        help="with --policy: play the best response from the first round that begins with at most K "
                             "players still in")
    parser.add_argument("--ties", type=int, default=0, choices=(0, 1),
                        help="value of the everyone-out rounds the solver does not keep: 0 lower bound, 1 upper bound")
    args = parser.parse_args(argv)
    try:
        res = solve(args.num_players, args.elimination, args.max_rolls, args.next_starter, args.opponent, args.policy,
                    args.ties, progress=True, endgame=args.endgame)  # fmt: skip
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    who = "best response" if res.best_response else args.policy
    if args.endgame:
        who += f" (best response from rounds that begin with at most {args.endgame} players)"
    if args.num_players == 2:
        bound = "exact: two players keep what the tie-break needs"
    else:
        bound = "a lower bound: those rounds lost" if res.ties == 0 else "an upper bound: those rounds won"
    print(f"{who} against {args.num_players - 1} x {args.opponent}, {args.num_players} players, elimination "
          f"{args.elimination}: win rate {res.value:.6f} ({bound})")  # fmt: skip
    print("by first starter (seats clockwise from the learner): " + ", ".join(f"{v:.6f}" for v in res.by_starter))
    print(f"solved in {res.seconds:.1f} s; value arrays of the largest phase {res.array_bytes / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
