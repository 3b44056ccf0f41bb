"""``dice-envs train`` (also ``python -m train``): train a game's policy, or evaluate a checkpoint.

Usage::

    dice-envs train GAME [game options] [--timesteps N] [--seed S] [--run-dir DIR] [--config FILE]
                         [--set FIELD=VALUE ...]
    dice-envs train GAME [game options] --evaluate CHECKPOINT [--opponents SPEC ...] [--deals N]
                         [--eval-seed S] [--sample]
    dice-envs train GAME --backend rllib [game options] [--timesteps N] [--seed S] [--run-dir DIR]
                         [RLlib flags: python -m train.rllib --help]

The first form trains GAME's default recipe (:data:`train.config.RECIPES`) with the changes
given, lowest first: a config file (JSON or TOML, the fields of :class:`train.config.Args`), then
``--set``, then the flags ``--timesteps``, ``--seed``, ``--run-dir`` and ``--no-progress``. A
``--set`` of a field that one of these flags also gives is refused when the two disagree; the
game is the positional argument (never ``--set game`` nor a config file's other ``game``), and
game options are flags after it. Running the same command again resumes the run in
``--run-dir`` from its last saved period. Game options are the env's (``--num-players 4``,
``--preset no``); they are read by their declared types, never evaluated.

The second form is the benchmark: the checkpoint plays ``--deals`` deals against each opponent
(every deal in every seat, on seeds training never used) and prints the win rates with Wilson
95% intervals (see :mod:`train.benchmark`).

The third form trains on Ray RLlib (:mod:`train.rllib`), which has flags of its own
(``--env-runners``, ``--envs``, ``--batch``, ``--hidden``, ``--address``). Every flag is refused
where it would do nothing, with a one-line message: the training flags with ``--evaluate``, the
evaluation flags without it, ``--config``, ``--set`` and ``--evaluate`` with ``--backend rllib``,
and the RLlib flags without it.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from train.config import FIELDS, build_args, read_config_file
from train.rllib import MAX_SEED  # the largest seed either trainer takes (numpy's np.random.seed)

#: Defaults of the evaluation flags (``None`` in the parser, so that a flag given can be told apart).
DEALS = 2000
EVAL_SEED = 2_000_000_000
#: Flags of the benchmark only, by their ``argparse`` names.
EVALUATE_FLAGS = {"opponents": "--opponents", "deals": "--deals", "eval_seed": "--eval-seed", "sample": "--sample"}
#: Flags of training only.
TRAINING_FLAGS = {"timesteps": "--timesteps", "seed": "--seed", "run_dir": "--run-dir", "config": "--config",
                  "set": "--set", "fields": "--fields"}  # fmt: skip
#: Flags of the SB3 trainer and its benchmark that the RLlib trainer does not have.
SB3_FLAGS = {"config": "--config", "set": "--set", "evaluate": "--evaluate", "fields": "--fields", **EVALUATE_FLAGS}
#: Fields that the command line gives itself: ``--set`` refuses them.
POSITIONAL_FIELDS = ("game", "options")


_KEY_VALUE = re.compile(r"\s*[A-Za-z_]\w*\s*=")


def split_specs(text: str) -> tuple[str, ...]:
    """The SPECs of ``--set baselines=...``: separated by ``;`` if the text has one, else by commas,
    where a comma inside parentheses (``heuristic:stop_at=(8,5)``) or before another ``KEY=VALUE``
    of the same SPEC (``bluffer:lie_probability=0.3,reroll=false``) does not separate.

    >>> split_specs("bluffer:lie_probability=0.3,reroll=false,honest")
    ('bluffer:lie_probability=0.3,reroll=false', 'honest')
    >>> split_specs("heuristic:stop_at=(8,5),random")
    ('heuristic:stop_at=(8,5)', 'random')
    >>> split_specs("honest; doubter")
    ('honest', 'doubter')
    """
    if ";" in text:
        return tuple(part.strip() for part in text.split(";") if part.strip())
    from agents.spec import _split_params  # the SPEC parser's own split at commas outside brackets

    specs: list[str] = []
    for piece in _split_params(text):
        if specs and _KEY_VALUE.match(piece) and ":" in specs[-1]:
            specs[-1] += "," + piece  # another parameter of the SPEC before it
        elif piece.strip():
            specs.append(piece.strip())
    return tuple(specs)


def _parse_field(name: str, text: str):
    """Read ``--set FIELD=VALUE`` by the field's type (never by evaluating text)."""
    from dice_envs.options import parse_value

    f = FIELDS[name]
    kind = f.type if not isinstance(f.type, str) else f.type
    kinds = {"int": int, "float": float, "bool": bool, "str": str}
    if name in ("hidden",):
        return tuple(parse_value(x, int, "--set hidden: a layer size") for x in text.split(",") if x.strip())
    if name in ("baselines",):
        return split_specs(text)
    if name in ("baseline_weights",):
        return tuple(parse_value(x, float, "--set baseline_weights: a weight") for x in text.split(",") if x.strip())
    if name == "learner_seat":
        return None if text.lower() == "none" else parse_value(text, int, "--set learner_seat")
    if name == "game":
        raise ValueError("--set game: the game is the positional argument (dice-envs train GAME ...), not a field")
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


def rllib_flags(parser: argparse.ArgumentParser | None = None) -> list[str]:
    """The flags of the RLlib trainer (``python -m train.rllib``) that the SB3 trainer does not have."""
    from train.rllib import build_parser as rllib_parser

    ours = (parser or build_parser())._option_string_actions
    return [s for a in rllib_parser()._actions for s in a.option_strings if s.startswith("--") and s not in ours]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dice-envs train",
        description="Train a policy with MaskablePPO against built-in agents and its own past snapshots (self-play), "
                    "or evaluate a checkpoint (--evaluate).",
    )
    from dice_envs.cli import add_game_argument

    add_game_argument(p, help="the game (any case; farkle, 10000 and ti-tusen name 10 000)")
    p.add_argument("--timesteps", type=int, help="total learner steps (the recipe's budget if not given)")
    p.add_argument("--seed", type=int, help=f"seed of the run, 0 to {MAX_SEED} (default 0)")
    p.add_argument("--run-dir", help="run directory (default runs/<game>-seed<S>)")
    p.add_argument("--config", help="a JSON or TOML file of training fields")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="set one training field")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--fields", action="store_true",
                   help="list every training field with the value this command would train with (the recipe's, "
                        "changed by --config and --set) and what it does, then exit")  # fmt: skip
    p.add_argument("--evaluate", metavar="CHECKPOINT", help="evaluate this checkpoint (or an agent SPEC such as optimal, as a peer) instead of training")
    p.add_argument("--opponents", nargs="+", metavar="SPEC", help="opponents of --evaluate (default the recipe's baselines)")
    p.add_argument("--deals", type=int, help=f"deals per opponent for --evaluate (each in every seat; default {DEALS})")
    p.add_argument("--eval-seed", type=int, help=f"first deal's seed for --evaluate, >= 0 (default {EVAL_SEED})")
    p.add_argument("--sample", action="store_true", help="--evaluate: sample from the policy instead of its argmax")
    p.add_argument(
        "--backend", choices=("sb3", "rllib"), default="sb3",
        help="sb3: MaskablePPO in this process (default); rllib: self-play PPO on Ray RLlib, a shared masked policy "
        "(pip install 'dice-envs[ray]'; its flags: python -m train.rllib --help)",
    )  # fmt: skip
    fields = ", ".join(f for f in FIELDS if f not in POSITIONAL_FIELDS)
    p.epilog = (
        "Game options go after the game's name, as for play (--lives 2, --num-players 4, --preset dk): "
        "dice-envs play GAME --help lists them with their defaults; a recipe sets some (Meyer: 2 players, "
        f"6 lives). Fields for --set and config files (--fields says what each does): {fields} (and options, in a "
        "config file only); lists as "
        "--set hidden=128,128 and --set baselines=SPEC,SPEC (or SPEC;SPEC, for paths with commas or KEY=VALUE "
        "in them). Lowest first: the "
        "recipe, --config, --set, then --timesteps, --seed, --run-dir and --no-progress; a --set that disagrees "
        "with one of these flags is refused. The rllib backend (--backend rllib) has flags of its own "
        f"({', '.join(rllib_flags(p))}) and takes neither --config, --set nor --evaluate: see them with "
        "python -m train.rllib --help (or dice-envs train GAME --backend rllib --help)."
    )
    return p


def _given(ns: argparse.Namespace, flags: dict[str, str]) -> list[str]:
    """The flags of ``flags`` given on the command line (their parser defaults: None, False or [])."""
    values = {flag: getattr(ns, dest) for dest, flag in flags.items()}
    return [flag for flag, v in values.items() if v is not None and v is not False and v != []]  # 0 is given


def _backend_help(argv: list[str]) -> bool:
    """Whether ``argv`` asks for help with ``--backend rllib`` (the RLlib trainer's help is meant)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--backend")
    p.add_argument("-h", "--help", action="store_true")
    ns, _ = p.parse_known_args(argv)
    return ns.help and ns.backend == "rllib"


def _check_seed(seed, what: str) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"{what} must be a whole number from 0 to 2**32 - 1 = {MAX_SEED}, got {seed!r}")


def _check_specs(game: str, evaluate: str, opponents: list[str] | None) -> None:
    """Read the SPECs of ``--evaluate`` and ``--opponents`` (checkpoints: their files) before any game."""
    from agents.checkpoint import load_agent
    from agents.spec import lookup, parse_spec, resolve_entry

    for flag, spec in [("--evaluate", evaluate), *(("--opponents", s) for s in opponents or ())]:
        try:
            name, _ = parse_spec(game, spec)  # names and parameters
            if isinstance(name, os.PathLike):
                load_agent(game, name)  # a checkpoint of this game
            else:
                resolve_entry(game, *lookup(game, name))  # the agent's module is installed
        except ValueError as exc:
            raise ValueError(f"{flag}: {exc}") from None


def _evaluate(ns: argparse.Namespace, options: dict) -> int:
    """The benchmark (``--evaluate``), its flags checked before a game is played."""
    from train.benchmark import benchmark

    deals = DEALS if ns.deals is None else ns.deals
    eval_seed = EVAL_SEED if ns.eval_seed is None else ns.eval_seed
    if eval_seed < 0:  # (benchmark refuses --deals below 1 itself, before any game)
        raise ValueError(f"--eval-seed must be a whole number >= 0, got {eval_seed}")
    _check_specs(ns.game, ns.evaluate, ns.opponents)
    benchmark(ns.game, options or None, ns.evaluate, ns.opponents, deals, eval_seed,
              greedy=not ns.sample, progress=not ns.no_progress)
    return 0


def _check_config_path(path: str) -> None:
    """Refuse a ``--config`` that is there but is no file (a directory, a FIFO, a device) with what it is,
    rather than "does not exist" (outside review 10, F10). A FIFO is never opened: reading it would wait for
    a writer."""
    from train.rundir import path_kind

    kind = path_kind(path)
    if kind in (None, "a broken symbolic link", "a file"):
        return  # (missing, or a broken link: read_config_file says it does not exist)
    raise ValueError(f"--config {path} is {kind}: give a JSON or TOML file of training fields")


def _overrides(ns: argparse.Namespace, options: dict) -> dict:
    """The training fields the command changes: the config file, then ``--set``, then the flags."""
    overrides: dict = {}
    if ns.config:
        _check_config_path(ns.config)
        overrides.update(read_config_file(ns.config))
        game = overrides.pop("game", ns.game)
        if game != ns.game:
            raise ValueError(f"config file {ns.config!r} sets game {game!r}, but this command trains {ns.game}: "
                             "the game is the positional argument (dice-envs train GAME ...)")  # fmt: skip
    set_values, set_items = {}, {}
    for item in ns.set:
        name, eq, text = item.partition("=")
        if not eq or name not in FIELDS:
            raise ValueError(f"--set needs FIELD=VALUE with a field of: {', '.join(FIELDS)}; got {item!r}")
        set_values[name], set_items[name] = _parse_field(name, text), item
    flags = {"timesteps": ("--timesteps", ns.timesteps), "seed": ("--seed", ns.seed),
             "run_dir": ("--run-dir", ns.run_dir), "progress": ("--no-progress", False if ns.no_progress else None)}
    for name, (flag, value) in flags.items():
        if value is not None and name in set_values and set_values[name] != value:
            shown = flag if isinstance(value, bool) else f"{flag} {value}"
            raise ValueError(f"--set {set_items[name]} and {shown} disagree: give only one of them")
    overrides.update(set_values)
    if options:
        overrides["options"] = {**overrides.get("options", {}), **options}
    overrides.update({name: value for name, (_, value) in flags.items() if value is not None})
    seed = overrides.get("seed", 0)
    _check_seed(seed, "--seed" if ns.seed is not None else "--set seed" if "seed" in set_values else "seed")
    overrides["run_dir"] = overrides.get("run_dir") or f"runs/{ns.game}-seed{seed}"
    return overrides


def main(argv: list[str] | None = None) -> int:
    """Run ``dice-envs train``; returns the exit status. Bad input raises ``ValueError``.

    Every flag is checked before anything is created or played: a flag the chosen form does not
    use is refused (see the module docstring), never ignored.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if _backend_help(argv):
        from train.rllib import main as rllib_main

        return rllib_main(["--help"])
    ns, rest = parser.parse_known_args(argv)
    if ns.seed is not None:
        _check_seed(ns.seed, "--seed")
    if ns.backend == "rllib":
        unsupported = _given(ns, SB3_FLAGS)
        if unsupported:
            raise ValueError(f"{unsupported[0]} is not supported by the rllib backend "
                             "(its flags: python -m train.rllib --help)")  # fmt: skip
        from train.rllib import main as rllib_main

        return rllib_main(_without_backend(argv))
    only_rllib = rllib_flags(parser)
    wrong = [word.partition("=")[0] for word in rest if word.partition("=")[0] in only_rllib]
    if wrong:
        raise ValueError(f"{wrong[0]} is a flag of the rllib backend: it needs --backend rllib "
                         "(see python -m train.rllib --help)")  # fmt: skip
    evaluating = ns.evaluate is not None
    wrong = _given(ns, TRAINING_FLAGS if evaluating else EVALUATE_FLAGS)
    if wrong and evaluating:
        hint = "; the deals' seeds start at --eval-seed" if wrong[0] == "--seed" else ""
        raise ValueError(f"{wrong[0]} is a training flag: it does nothing with --evaluate{hint}")
    if wrong:
        raise ValueError(f"{wrong[0]} is used only with --evaluate CHECKPOINT")
    from dice_envs.cli import game_and_options

    ns.game, options = game_and_options(ns.game, rest)
    if evaluating:
        return _evaluate(ns, options)
    args = build_args(ns.game, _overrides(ns, options))
    if ns.fields:
        from train.config import describe_fields
        from train.trainer import _check_args

        _check_args(args)  # the values a training run would refuse are refused here too

        print(f"Training fields of {args.game}, as this command sets them (--set FIELD=VALUE or a --config file "
              "changes them):")  # fmt: skip
        print(describe_fields(args))
        return 0
    from train.trainer import train

    summary = train(args)
    if summary.get("nothing_to_train"):  # train() said so; the run is as it was
        print(f"checkpoint: {summary['policy']}")
        print(f"summary: {args.run_dir}/summary.json")
        return 0
    last = summary["evaluations"][-1] if summary["evaluations"] else {}
    kick = f" (kickstart {summary['kickstart_seconds']:.0f} s of them)" if summary["kickstart_seconds"] else ""
    print(f"trained {summary['timesteps']} steps in {summary['wall_seconds']:.0f} s{kick}, "
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
