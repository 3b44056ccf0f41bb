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
partly shared); 2 and 3 players take seconds to a few minutes.

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
    its stage values ``G``."""
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
    G = np.zeros((A * (A - 1) * M, size), np.float32)
    R = np.zeros((A, size), np.float32)
    R3, D3 = lower.get(3, (np.zeros((1, 1), np.float32), 1))
    R2, D2 = lower.get(2, (np.zeros((1, 1), np.float32), 1))
    blocks = np.split(order, cuts)
    bar = progress(len(blocks), f"{A} players") if progress else None
    for block in blocks:
        for _ in range(passes):
            kern.do_level(block, A, D, E, M, mode, right, G, R, R3, D3, R2, D2, float(ties), PL, PS, maximise, pol,
                          *tables)  # fmt: skip
        if bar is not None:
            bar.update(1)
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
    """A maker of per-phase progress bars on stderr, or ``None`` (no progress asked, or no tqdm)."""
    if not progress:
        return None
    try:
        import tqdm  # noqa: F401  (installed, so the bar can be shown)

        from dice_envs.progress import progress_bar
    except ModuleNotFoundError:  # tqdm comes with the [solve] extra; without it, no bar
        return None

    def bar(total, desc):
        return progress_bar(total=total, desc=f"solving {desc}", unit="level", leave=False)

    return bar


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
        # The whole-round-scores-nothing loop is closed by repeating the level: its weight is the
        # chance that every player of a round scores 0, which is about 1e-2 with 2 players and 4e-4 with 4.
        passes = 1 if A >= 4 else 3
        R, D, nbytes, G = _phase(A, game.elimination, game.max_rolls, right, lower, ties, PL, PS, A <= maximise_upto,
                                 pol, tables, bar, passes)  # fmt: skip
        biggest = max(biggest, nbytes)
        lower[A] = (R, D)
        if keep_stages:
            stages[A] = G
        del G  # otherwise only the round starts are read by the next phase
    return lower, stages, biggest


#: Version of the endgame tables on disk (:func:`endgame_tables`); raise it when their meaning changes
#: (the solver's model or the opponent agents' play).
ENDGAME_VERSION = 1


def endgame_tables(elimination: int = 77, max_rolls: int = 3, next_starter: str = "right", opponent: str = "heuristic",
                   ties: float = 0.0, progress: bool = False, cache_dir=None,
                   use_cache: bool = True, bar: bool = True) -> dict[str, np.ndarray]:  # fmt: skip
    """The best response's values in the 2- and 3-player phases, for an agent that plays them.

    The phases do not depend on how many players the game began with, so one table serves every
    game of these options. Kept in the solver cache (``agents.solvers.cache``; about 180 MB at
    elimination 77, 2-3 minutes to build on 2 cores).

    Args:
        progress: when the tables are built, say so on stderr, then (with ``bar``) show a progress bar per
            phase (tqdm).

    Returns:
        ``R2, G2, R3, G3``: the round-start and stage values of each phase (see
        :mod:`agents.solvers._syvere_response_kernel`), float32.

    Raises:
        ValueError: bad options, or an opponent that reads the totals.
    """
    if ties not in (0, 1):
        raise ValueError(f"ties must be 0 (a lower bound) or 1 (an upper bound), got {ties!r}")
    game = syvere.Game(num_players=3, elimination=elimination, max_rolls=max_rolls, next_starter=next_starter)
    options = {"elimination": game.elimination, "max_rolls": game.max_rolls, "next_starter": game.next_starter,
               "opponent": opponent, "ties": float(ties)}  # fmt: skip

    def build() -> dict[str, np.ndarray]:
        if progress:
            print(f"solving Syvere's 2- and 3-player best response against {opponent} at elimination "
                  f"{game.elimination} once (2-3 minutes at 77; kept in the solver cache)", file=sys.stderr)  # fmt: skip
        tables, PL, PS, pol = _models(game, opponent, None)
        lower, stages, _ = _phases(game, 3, ties, PL, PS, pol, tables, _bar_factory(progress and bar),
                                   maximise_upto=3, keep_stages=True)  # fmt: skip
        return {f"{k}{A}": v for A in (2, 3) for k, v in (("R", lower[A][0]), ("G", stages[A]))}

    from agents.solvers import cache

    return cache.load_or_build("syvere-endgame", ENDGAME_VERSION, options, build, cache_dir, use_cache)


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
