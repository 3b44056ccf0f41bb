"""The ``dice-envs`` command: ``play``, ``match`` and ``bench``.

Game options are passed as ``--name value`` after the game's name, with the option's own name
(``--num-players 4``, ``--preset dk``, ``--lille-meyer false``); run ``dice-envs play GAME --help``
to see them.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import sys

from dice_envs.registry import ENVS, env_module

GAMES = [env_id.split("/", 1)[1].rsplit("-v", 1)[0] for env_id in ENVS]


def _value(text: str):
    lowered = text.lower()
    if lowered in ("true", "false", "none"):
        return {"true": True, "false": False, "none": None}[lowered]
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_game_options(words: list[str]) -> dict:
    """``["--num-players", "4", "--preset", "dk"]`` -> ``{"num_players": 4, "preset": "dk"}``."""
    options = {}
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("--") or ("=" not in word and i + 1 >= len(words)):
            raise ValueError(f"game options go as --name value pairs; could not read {word!r}")
        name = word[2:].replace("-", "_")
        if "=" in name:
            name, text = name.split("=", 1)
            i += 1
        else:
            text = words[i + 1]
            i += 2
        options[name] = _value(text)
    return options


def _options_help(game: str) -> str:
    """The game's options with their defaults, as command-line flags."""
    game_class = env_module(game).raw_env.game_class
    params = inspect.signature(game_class.__init__).parameters.values()
    defaults = {p.name: p.default for p in params if p.name != "self" and p.default is not p.empty}
    # Engines that take **options (a preset's table) list them on the instance.
    defaults.update(getattr(game_class(), "options", {}))
    flags = ", ".join(f"--{name.replace('_', '-')} {value!r}" for name, value in defaults.items())
    return f"game options of {game} (defaults): {flags}"


def _seed(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is a whole number >= 0, not {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dice-envs", description="Nordic dice games for RL.")
    sub = parser.add_subparsers(dest="command", required=True)

    p_play = sub.add_parser("play", help="play a game in the terminal against built-in agents", add_help=False)
    p_play.add_argument("-h", "--help", action="store_true", help="show this help and the game's options")
    p_play.add_argument("game", choices=GAMES)
    p_play.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p_play.add_argument(
        "--opponents", default=None, help="built-in agent for the other seats (default: the game's strongest)"
    )
    p_play.add_argument("--seed", type=_seed, default=None, help="seed for the dice and the opponents")

    p_match = sub.add_parser("match", help="play built-in agents against each other; print standings", add_help=False)
    p_match.add_argument("-h", "--help", action="store_true", help="show this help and the game's options")
    p_match.add_argument("game", choices=GAMES)
    p_match.add_argument("--agents", default="heuristic,random", help="comma-separated, one per seat")
    p_match.add_argument("--games", type=int, default=1000)
    p_match.add_argument("--seed", type=_seed, default=0)

    p_bench = sub.add_parser("bench", help="steps/second of every env beside PettingZoo's classics")
    p_bench.add_argument("--steps", type=int, default=50_000, help="steps per env (default 50000)")
    p_bench.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")

    args, rest = parser.parse_known_args(argv)
    try:
        if args.command == "bench":
            if rest:
                parser.error(f"unrecognized arguments: {' '.join(rest)}")
            from dice_envs import bench

            bench.run(steps=args.steps, rounds=args.rounds)
            return 0
        if args.help:
            (p_play if args.command == "play" else p_match).print_help()
            print("\n" + _options_help(args.game))
            return 0
        options = parse_game_options(rest)
        if args.command == "play":
            from dice_envs.play import play

            play(args.game, options, seat=args.seat, opponents=args.opponents, seed=args.seed)
            return 0
        from evaluate.match import play_match

        agents = [a.strip() for a in args.agents.split(",") if a.strip()]
        result = play_match(args.game, agents, args.games, seed=args.seed, options=options, progress=True)
        print(result.table())
        return 0
    except ValueError as exc:
        print(f"dice-envs: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ndice-envs: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
