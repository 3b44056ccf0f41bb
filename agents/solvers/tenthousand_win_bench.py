"""Benchmarks of the two-player 10 000 win-probability solver: full solves and head-to-head play.

Usage::

    python -m agents.solvers.tenthousand_win_bench solve --preset dk [--target 10000] [--end E]
    python -m agents.solvers.tenthousand_win_bench solve --preset farkle [--target 10000] [--floor -2500]
    python -m agents.solvers.tenthousand_win_bench match --preset no --opponent optimal --pairs 1500

``solve`` builds the table in a fresh temporary cache directory (so it is really solved, never
loaded) and prints the solve time, the process's peak resident memory, the value and its error
bound (with a bust penalty, ``--floor`` sets the floor of the totals: two runs measure what the
floor changes). ``match`` plays ``winprob`` against ``optimal`` (the turn-EV agent of
:mod:`agents.solvers.tenthousand`), ``heuristic`` or ``greedy``, in pairs of games with the seats
swapped and the same dice seed, and prints winprob's win share with its 95% Wilson interval. Both
show progress bars on stderr.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

import numpy as np


def _opponent(name: str, game):
    if name == "optimal":
        from agents.solvers.tenthousand import OptimalAgent

        return OptimalAgent(game)
    if name == "heuristic":
        from agents.tenthousand import ThresholdAgent

        return ThresholdAgent(game)
    if name == "greedy":
        from agents.tenthousand import GreedyAgent

        return GreedyAgent(game)
    raise ValueError(f"unknown opponent {name!r}; choose optimal, heuristic or greedy")


def play_game(game, agents, rng) -> float:
    """One game on the engine with dice from ``rng``; seat 0's win share (a draw is 1/2)."""
    state = game.initial_state()
    for seat, agent in enumerate(agents):
        agent.reset()
        if hasattr(agent, "set_seat"):  # the runner knows the seat (winprob's role in a dk round)
            agent.set_seat(seat)
    while not game.is_terminal(state):
        if game.is_chance(state):
            state = game.apply_chance(state, tuple(rng.integers(1, 7, game.num_dice_to_roll(state)).tolist()))
            continue
        seat = game.current_player(state)
        mask = np.zeros(game.num_actions, dtype=np.int8)
        mask[game.legal_actions(state)] = 1
        state = game.apply_action(state, agents[seat].act(game.observe(state, seat), mask))
    return (game.returns(state)[0] + 1) / 2


def _options(args) -> dict:
    options = {"preset": args.preset}
    if args.target is not None:
        options["target"] = args.target
    if args.end is not None:
        options["end"] = args.end
    return options


def main(argv: list[str] | None = None) -> int:
    from agents.solvers import tenthousand_win as tw  # numba: the [solve] extra (named if it is missing)

    parser = argparse.ArgumentParser(prog="python -m agents.solvers.tenthousand_win_bench", description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("solve", "match"))
    parser.add_argument("--preset", default="dk", choices=("dk", "no", "farkle"))
    parser.add_argument("--target", type=int, default=None)
    parser.add_argument("--end", default=None, choices=("finish_round", "last_turn_each", "immediate"))
    parser.add_argument("--opponent", default="optimal")
    parser.add_argument("--pairs", type=int, default=1000, help="game pairs (seats swapped within a pair)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--floor", type=int, default=tw.FLOOR,
        help="with a bust penalty (farkle): totals below it count as it (points)",
    )
    parser.add_argument("--cache-dir", default=None, help="solver cache for match (default: the package's)")
    args = parser.parse_args(argv)
    options = _options(args)
    if args.what == "solve":
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            out = tw.cli_summary(options, cache_dir=tmp, progress=True, floor=args.floor)
            print("\n".join(out["lines"]))
            print(f"solve wall time {time.perf_counter() - started:.1f} s; peak RSS {tw.peak_memory_mib():.0f} MiB")
        return 0
    if args.pairs < 1:
        raise ValueError(f"--pairs must be at least 1, got {args.pairs}")
    game = tw.make_game(options)
    solver_agent = tw.WinProbAgent(game, cache_dir=args.cache_dir or "", floor=args.floor)
    other = _opponent(args.opponent, game)
    from dice_envs.progress import progress_bar

    shares = []
    for g in progress_bar(iterable=range(args.pairs), desc=f"winprob vs {args.opponent}", unit="pair"):
        # The same dice seed in both seatings of a pair: they meet the same rolls while play agrees.
        shares.append(play_game(game, [solver_agent, other], np.random.default_rng([args.seed, g])))
        shares.append(1.0 - play_game(game, [other, solver_agent], np.random.default_rng([args.seed, g])))
    from evaluate.stats import wilson

    rate, low, high = wilson(float(np.sum(shares)), len(shares))
    print(
        f"winprob vs {args.opponent} ({options}): {len(shares)} games, win share {rate:.4f} "
        f"(95% Wilson {low:.4f}-{high:.4f})"
    )
    return 0


if __name__ == "__main__":
    from dice_envs.cli import run_guarded

    sys.exit(run_guarded(main, sys.argv[1:], prog="python -m agents.solvers.tenthousand_win_bench"))
