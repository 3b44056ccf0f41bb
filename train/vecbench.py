"""Which vectorised env trains faster here: ``DummyVecEnv`` against ``SubprocVecEnv``, as a ratio.

Trains the game's recipe for ``--timesteps`` learner steps twice per round, once with each kind of
vectorised env (the order alternates between rounds, so neither always runs on a warmer machine),
in throw-away run directories, with no kickstart and no evaluation games (they are the same for
both and only dilute the difference). Prints each run's steps per second and, per round, the
ratio subproc / dummy; the median ratio is the figure to quote. Run on an otherwise idle machine::

    python -m train.vecbench meyer --timesteps 40000 --rounds 3

Wall time is the measure: a ``SubprocVecEnv``'s envs run in other processes, whose CPU time this
process does not see.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile

KINDS = ("dummy", "subproc")


def one_run(game: str, kind: str, timesteps: int, seed: int, n_envs: int | None) -> dict:
    """Train ``game``'s recipe with ``vec_env=kind`` in a temporary run dir; return its summary."""
    from train.config import build_args
    from train.trainer import train

    with tempfile.TemporaryDirectory(prefix=f"vecbench-{kind}-") as run_dir:
        overrides = {
            "timesteps": timesteps, "seed": seed, "run_dir": run_dir, "vec_env": kind, "teacher": "",
            "eval_deals": 0, "snapshot_every": 10 * timesteps, "progress": False,
        }
        if n_envs is not None:
            overrides["n_envs"] = n_envs
        return train(build_args(game, overrides))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.vecbench", description=__doc__.split("\n")[0])
    parser.add_argument("game", choices=("meyer", "syvere", "tenthousand"))
    parser.add_argument("--timesteps", type=int, default=40_000, help="learner steps per run (default 40000)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each kind (default 3)")
    parser.add_argument("--n-envs", type=int, default=None, help="parallel envs (default: the recipe's)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.timesteps < 1 or args.rounds < 1:
        raise ValueError("--timesteps and --rounds must be at least 1")
    ratios = []
    for r in range(args.rounds):
        rate = {}
        for kind in KINDS if r % 2 == 0 else KINDS[::-1]:
            summary = one_run(args.game, kind, args.timesteps, args.seed + r, args.n_envs)
            rate[kind] = summary["steps_per_second"]
            print(f"round {r + 1} {kind:8s} {summary['timesteps']} steps in {summary['wall_seconds']:.1f} s: "
                  f"{rate[kind]:.0f} steps/s (env {summary['env_share']:.0%}, PPO updates {summary['update_share']:.0%})",
                  flush=True)
        ratios.append(rate["subproc"] / rate["dummy"])
        print(f"round {r + 1} subproc / dummy: {ratios[-1]:.2f}", flush=True)
    print(f"{args.game}: median subproc / dummy steps per second over {args.rounds} round{'s' * (args.rounds != 1)}: "
          f"{statistics.median(ratios):.2f} (each {', '.join(f'{x:.2f}' for x in ratios)})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    from dice_envs.cli import run_guarded

    sys.exit(run_guarded(main, sys.argv[1:], "python -m train.vecbench"))
