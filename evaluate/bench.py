"""Tournament benchmarks: parallel speed-up, and what common dice do to the intervals.

``python -m evaluate.bench speed``: the games per second of one tournament played by
``run_tournament`` (a) in one process with no results store and (b) with ``--workers K`` and a
fresh SQLite store, and the ratio ``b / (K * a)`` (issue 10's target: at least 0.8). The two are run in
alternation ``--rounds`` times and the medians compared, since the machine's load moves.

The wall-clock ratio needs ``K`` idle cores; on a busy machine the CPU-time ratio (games per
CPU second of the pool and its workers against one process) is printed too: it is the share of the
single-process rate each worker keeps, which is the wall-clock ratio once the cores are free.

``python -m evaluate.bench dice``: the same tournament under ``--seeds`` seeds with common dice and
with independent dice. For each it prints the mean width of the pair's 95% rating interval
(bootstrap over deals) and the spread (standard deviation) across seeds of the rating difference
and of the first entrant's win share, the width a fixed-seed interval cannot show. Their ratios say
how much common dice cut the width of the intervals at the same number of games.

Both print what they measured and the exact setting, e.g.::

    python -m evaluate.bench speed --game syvere --agents heuristic random --games 2000 --workers 2
    python -m evaluate.bench dice --game meyer --agents doubter honest --games 200 --seeds 20
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

from evaluate.ratings import Row, leaderboard
from evaluate.tournament import default_num_players, default_workers, make_labels, run_tournament, schedule


def _load() -> str:
    try:
        return "load average %.1f %.1f %.1f" % os.getloadavg()
    except OSError:
        return "load average unknown"


def speed(game_name: str, specs: list[str], games: int, workers: int, rounds: int, seed: int = 0) -> dict:
    """Median games/s in one process without a store, and with ``workers`` processes and a store."""
    labels = make_labels(game_name, specs)
    num_players = min(default_num_players(game_name), len(labels))
    tasks = schedule(labels, num_players, games, seed)
    single, parallel, cpu_single, cpu_parallel = [], [], [], []
    for r in range(rounds):
        # The same call both times, so both pay for building the agents: only the workers and
        # the store differ.
        start, cpu = time.perf_counter(), _cpu()
        run_tournament(game_name, specs, games, seed=seed, db=None, workers=1, progress=False)
        single.append(len(tasks) / (time.perf_counter() - start))
        cpu_single.append(len(tasks) / (_cpu() - cpu))
        with tempfile.TemporaryDirectory() as tmp:
            start, cpu = time.perf_counter(), _cpu()
            result = run_tournament(
                game_name, specs, games, seed=seed, db=os.path.join(tmp, "bench.sqlite"), workers=workers, progress=False
            )
            parallel.append(result.played_now / (time.perf_counter() - start))
            cpu_parallel.append(result.played_now / (_cpu() - cpu))
        print(
            f"  round {r + 1}/{rounds}: 1 process, no store {single[-1]:,.0f} games/s "
            f"({cpu_single[-1]:,.0f} per CPU s); {workers} workers + store {parallel[-1]:,.0f} games/s "
            f"({cpu_parallel[-1]:,.0f} per CPU s)",
            file=sys.stderr,
            flush=True,
        )
    a, b = statistics.median(single), statistics.median(parallel)
    ca, cb = statistics.median(cpu_single), statistics.median(cpu_parallel)
    return {
        "games": len(tasks),
        "single": a,
        "parallel": b,
        "workers": workers,
        "ratio": b / (workers * a),
        "cpu_single": ca,
        "cpu_parallel": cb,
        "cpu_ratio": cb / ca,
    }


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the pool's workers)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _interval_width(row: Row) -> float:
    """The width of a row's rating interval (a leaderboard with bootstrap > 0 has one on every row)."""
    assert row.rating_low is not None and row.rating_high is not None, "interval widths need bootstrap > 0"
    return row.rating_high - row.rating_low


def dice_widths(game_name: str, specs: list[str], games: int, seeds: int, workers: int, bootstrap: int = 200) -> dict:
    """Interval widths and the spread across seeds, with common and with independent dice."""
    out = {}
    for dice in ("common", "independent"):
        widths, diffs, shares = [], [], []
        for seed in range(seeds):
            result = run_tournament(game_name, specs, games, seed=seed, workers=workers, dice=dice, progress=False)
            lb = leaderboard(result.labels, result.records, bootstrap=bootstrap, seed=seed)
            rows = {row.label: row for row in lb.rows}
            first, second = (rows[label] for label in result.labels[:2])
            widths.append(np.mean([_interval_width(r) for r in lb.rows]))
            diffs.append(first.rating - second.rating)
            shares.append(first.win_rate)
            print(f"  {dice} dice, seed {seed + 1}/{seeds}: width {widths[-1]:.1f}", file=sys.stderr, flush=True)
        out[dice] = {
            "mean_width": float(np.mean(widths)),
            "sd_rating_difference": float(np.std(diffs, ddof=1)),
            "sd_win_share": float(np.std(shares, ddof=1)),
            "rating_name": lb.rating_name,
            "games": len(result.records),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluate.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("speed", "dice"))
    parser.add_argument("--game", default="syvere")
    parser.add_argument("--agents", nargs="+", default=["heuristic", "random"])
    parser.add_argument("--games", type=int, default=2000, help="deals per table")
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--rounds", type=int, default=3, help="speed: alternating rounds")
    parser.add_argument("--seeds", type=int, default=20, help="dice: tournaments per dice mode")
    args = parser.parse_args(argv)
    print(f"{args.what}: {args.game}, agents {' '.join(args.agents)}, {args.games} deals per table; {_load()}")
    if args.what == "speed":
        r = speed(args.game, args.agents, args.games, args.workers, args.rounds)
        print(f"games per round: {r['games']}")
        print(f"one process, no store:      {r['single']:>9,.0f} games/s (median of {args.rounds})")
        print(f"{r['workers']} workers, SQLite store:  {r['parallel']:>9,.0f} games/s (median of {args.rounds})")
        print(f"ratio to {r['workers']} x one process:    {r['ratio']:.2f}  (target >= 0.80)")
        print(
            f"games per CPU second: one process {r['cpu_single']:,.0f}, {r['workers']} workers + store "
            f"{r['cpu_parallel']:,.0f}: ratio {r['cpu_ratio']:.2f} (the wall-clock ratio on {r['workers']} idle cores)"
        )
    else:
        r = dice_widths(args.game, args.agents, args.games, args.seeds, args.workers)
        c, i = r["common"], r["independent"]
        print(f"{'':<34}{'common':>10}{'independent':>13}{'ratio':>8}")
        for key, name in (
            ("mean_width", f"mean 95% {c['rating_name']} interval width"),
            ("sd_rating_difference", f"sd of the {c['rating_name']} difference"),
            ("sd_win_share", "sd of the first entrant's win share"),
        ):
            print(f"{name:<34}{c[key]:>10.3f}{i[key]:>13.3f}{c[key] / i[key]:>8.2f}")
        print(f"({args.seeds} seeds per mode, {c['games']} games per tournament; {_load()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
