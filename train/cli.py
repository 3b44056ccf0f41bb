"""``dice-envs train`` (also ``python -m train``): train a game's policy, or evaluate a checkpoint.

Usage::

    dice-envs train GAME [game options] [--timesteps N] [--seed S] [--run-dir DIR] [--config FILE]
                         [--set FIELD=VALUE ...]
    dice-envs train GAME [game options] --evaluate CHECKPOINT [--opponents SPEC ...] [--deals N]

The first form trains GAME's default recipe (:data:`train.config.RECIPES`) with the changes
given: a config file (JSON or TOML, the fields of :class:`train.config.Args`), then ``--set``
and the flags. Running the same command again resumes the run in ``--run-dir`` from its last
saved period. Game options are the env's (``--num-players 4``, ``--preset no``); they are read by
their declared types, never evaluated.

The second form is the benchmark: the checkpoint plays ``--deals`` deals against each opponent
(every deal in every seat, on seeds training never used) and prints the win rates with Wilson
95% intervals (see :mod:`train.benchmark`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import typing

from train.config import FIELDS, RECIPES, build_args, read_config_file


def _parse_field(name: str, text: str):
    """Read ``--set FIELD=VALUE`` by the field's type (never by evaluating text)."""
    from dice_envs.options import parse_value

    f = FIELDS[name]
    kind = f.type if not isinstance(f.type, str) else f.type
    kinds = {"int": int, "float": float, "bool": bool, "str": str}
    if name in ("hidden",):
        return tuple(int(x) for x in text.split(",") if x)
    if name in ("baselines",):
        return tuple(x for x in text.split(",") if x)
    if name in ("baseline_weights",):
        return tuple(float(x) for x in text.split(",") if x)
    if name == "learner_seat":
        return None if text.lower() == "none" else parse_value(text, int, "--set learner_seat")
    if name == "options":
        raise ValueError("give game options as flags after the game (--num-players 4), not with --set")
    if kind in kinds:
        return parse_value(text, kinds[kind], f"--set {name}")
    raise ValueError(f"--set cannot set {name!r}")


def _without_backend(argv: list[str]) -> list[str]:
    """``argv`` without its ``--backend VALUE`` / ``--backend=VALUE`` words (for the RLlib trainer)."""
    out, skip = [], False
    for word in argv:
        if skip:
            skip = False
        elif word == "--backend":
            skip = True
        elif not word.startswith("--backend="):
            out.append(word)
    return out


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dice-envs train",
        description="Train a policy by self-play MaskablePPO, or evaluate a checkpoint (--evaluate).",
        epilog="Fields for --set and config files: " + ", ".join(FIELDS),
    )
    p.add_argument("game", choices=sorted(RECIPES), help="the game")
    p.add_argument("--timesteps", type=int, help="total learner steps (the recipe's budget if not given)")
    p.add_argument("--seed", type=int, help="seed of the run (default 0)")
    p.add_argument("--run-dir", help="run directory (default runs/<game>-seed<S>)")
    p.add_argument("--config", help="a JSON or TOML file of training fields")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="set one training field")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--evaluate", metavar="CHECKPOINT", help="evaluate this checkpoint (or an agent SPEC such as optimal, as a peer) instead of training")
    p.add_argument("--opponents", nargs="+", metavar="SPEC", help="opponents of --evaluate (default the recipe's baselines)")
    p.add_argument("--deals", type=int, default=2000, help="deals per opponent for --evaluate (each in every seat)")
    p.add_argument("--eval-seed", type=int, default=2_000_000_000, help="first deal's seed for --evaluate")
    p.add_argument("--sample", action="store_true", help="--evaluate: sample from the policy instead of its argmax")
    p.add_argument(
        "--backend", choices=("sb3", "rllib"), default="sb3",
        help="sb3: MaskablePPO in this process (default); rllib: self-play PPO on Ray RLlib, a shared masked policy "
        "(pip install 'dice-envs[ray]'; its flags: python -m train.rllib --help)",
    )  # fmt: skip
    return p


def main(argv: list[str] | None = None) -> int:
    """Run ``dice-envs train``; returns the exit status. Bad input raises ``ValueError``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    ns, rest = parser.parse_known_args(argv)
    if ns.backend == "rllib":
        from train.rllib import main as rllib_main

        return rllib_main(_without_backend(argv))
    from dice_envs.options import parse_game_options

    options = parse_game_options(ns.game, rest)
    if ns.evaluate:
        from train.benchmark import benchmark

        benchmark(ns.game, options or None, ns.evaluate, ns.opponents, ns.deals, ns.eval_seed,
                  greedy=not ns.sample, progress=not ns.no_progress)
        return 0
    overrides: dict = {}
    if ns.config:
        overrides.update(read_config_file(ns.config))
    for item in ns.set:
        name, eq, text = item.partition("=")
        if not eq or name not in FIELDS:
            raise ValueError(f"--set needs FIELD=VALUE with a field of: {', '.join(FIELDS)}; got {item!r}")
        overrides[name] = _parse_field(name, text)
    if options:
        overrides["options"] = {**overrides.get("options", {}), **options}
    if ns.timesteps is not None:
        overrides["timesteps"] = ns.timesteps
    if ns.seed is not None:
        overrides["seed"] = ns.seed
    seed = overrides.get("seed", 0)
    overrides["run_dir"] = ns.run_dir or overrides.get("run_dir") or f"runs/{ns.game}-seed{seed}"
    if ns.no_progress:
        overrides["progress"] = False
    args = build_args(ns.game, overrides)
    from train.trainer import train

    summary = train(args)
    last = summary["evaluations"][-1] if summary["evaluations"] else {}
    print(f"trained {summary['timesteps']} steps in {summary['wall_seconds']:.0f} s, "
          f"{summary['cpu_seconds']:.0f} CPU s "
          f"({summary['steps_per_second']:.0f} steps/s; env {summary['env_share']:.0%}, "
          f"PPO updates {summary['update_share']:.0%})")
    for spec, r in last.items():
        if isinstance(r, dict):
            print(f"  vs {spec}: {r['win_rate']:.3f} [{r['low']:.3f}, {r['high']:.3f}] over {r['games']} games")
    print(f"checkpoint: {summary['policy']}")
    print(f"summary: {args.run_dir}/summary.json")
    return 0


if __name__ == "__main__":  # pragma: no cover
    from dice_envs.cli import run_guarded

    sys.exit(run_guarded(main, sys.argv[1:], prog="dice-envs train"))
