"""The ``dice-envs`` command.

Subcommands: ``play`` (a game in the terminal), ``match`` (agents against each other, standings
with 95% intervals over the deals), ``bench`` (steps per second), and, dispatched to the modules that own
them, ``solve``, ``train``, ``tournament``, ``replay`` and ``cache``.

Game options go after the game's name as ``--name value`` with the option's own name
(``--num-players 4``, ``--preset dk``, ``--lille-meyer false``); ``dice-envs play GAME --help``
lists them. Every failure is a one-line message and an exit code (:data:`EXIT_CODES`), never a
traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sqlite3
import sys
from typing import Callable, cast

from dice_envs.errors import MissingExtraError
from dice_envs.extras import missing_package, raise_missing
from dice_envs.registry import ENVS

GAMES = [env_id.split("/", 1)[1].rsplit("-v", 1)[0] for env_id in ENVS]
#: Other names of the games that ``play`` and ``match`` take (as do the games' own names, in any
#: case): name -> (game, the options the name implies).
GAME_ALIASES: dict[str, tuple[str, dict]] = {
    "farkle": ("tenthousand", {"preset": "farkle"}),
    "10000": ("tenthousand", {}),
    "ti-tusen": ("tenthousand", {}),
    "titusen": ("tenthousand", {}),
}


class _GameNames(list):
    """The ``choices`` of a game argument: lists the games (help, errors) and also takes an alias."""

    def __contains__(self, name: object) -> bool:
        return list.__contains__(self, name) or name in GAME_ALIASES


def _game_word(text: str) -> str:
    """A game argument as typed, in lower case (``Meyer`` is ``meyer``); aliases are resolved later."""
    return text.strip().lower()


_game_word.__name__ = "game"  # argparse names the type in some messages


def resolve_game(name: str) -> tuple[str, dict]:
    """A game name or alias (:data:`GAME_ALIASES`) as the game and the options the name implies."""
    word = name.strip().lower()
    return GAME_ALIASES.get(word, (word, {}))


def add_game_argument(parser: argparse.ArgumentParser, **kwargs) -> None:
    """The positional ``game`` of a subcommand: a game's name in any case, or an alias
    (:data:`GAME_ALIASES`); resolve it with :func:`game_and_options`."""
    parser.add_argument("game", type=_game_word, choices=_GameNames(GAMES), **kwargs)


def game_and_options(name: str, words: list[str]) -> tuple[str, dict]:
    """The game a name or alias stands for and its options from the command line's ``words``, with
    those the alias implies (``farkle``: ``--preset farkle``) and choice values matched as ``play``
    matches them (``--preset DK``).

    Raises:
        ValueError: a bad option or value, or one that contradicts the alias.
    """
    from dice_envs.options import parse_game_options

    game, implied = resolve_game(name)
    return game, _with_implied(name, implied, _choice_values(game, parse_game_options(game, words)))


def _with_implied(name: str, implied: dict, options: dict) -> dict:
    """``options`` with those an alias implies (``farkle``: ``--preset farkle``); a clash is refused."""
    for key, value in implied.items():
        given = options.get(key, value)
        if given != value:
            flag = "--" + key.replace("_", "-")
            raise ValueError(
                f"{name} is {resolve_game(name)[0]} with {flag} {value}; it cannot take {flag} {given}"
            )
    return {**options, **implied}


def _choice_values(game: str, options: dict) -> dict:
    """Options with a fixed set of values, matched without regard to case or ``-``/``_``
    (``--preset DK``, ``--end last-turn-each``); other values are left to the engine's check."""
    from dice_envs.options import option_choices

    choices = option_choices(game)
    fixed = dict(options)
    for key, value in options.items():
        if key in choices and isinstance(value, str):
            wanted = value.strip().lower().replace("-", "_")
            match = [c for c in choices[key] if isinstance(c, str) and c.lower().replace("-", "_") == wanted]
            if match:
                fixed[key] = match[0]
    return fixed


#: What the exit status of ``dice-envs`` means (also shown by ``dice-envs --help``).
EXIT_CODES = {
    0: "success",
    1: "the command could not run or finish (a missing module or optional dependency, the system refusing to "
    "read or write a file: permissions, a full disk; games that failed on a Ray cluster after their retries)",
    2: "bad usage or a bad value (the message names it), a named file that does not exist or is not of its kind "
    "among them",
    130: "interrupted (Ctrl-C)",
    143: "terminated (SIGTERM) while a tournament played or a run trained: the games finished so far are kept "
    "in its store, the run's last saved period in its run directory",
    141: "the output pipe was closed (as by `| head -1`); nothing is printed",
}

#: Subcommands owned by other modules: name -> ("module", "function", what it does, extra).
#: Each function takes the words after the subcommand (game first) and returns an exit code.
DISPATCH: dict[str, tuple[str, str, str, str]] = {
    "solve": ("agents.solvers.cli", "main", "solve a game exactly (solver tables, values, exploitability)", "solve"),
    "train": ("train.cli", "main", "train an agent with reinforcement learning", "train"),
    "tournament": ("evaluate.cli", "tournament_main", "rank agents in a tournament with common dice", "report"),
    "replay": ("evaluate.cli", "replay_main", "replay a recorded game", "report"),
    "cache": ("agents.solvers.cache_cli", "main", "list the solver tables kept on disk; --prune or --clear make room", ""),
}


class CommandUnavailable(Exception):
    """A subcommand's module (or a dependency of it) is not installed: exit code 1."""


class CommandFailed(RuntimeError):
    """The command ran but part of its work failed (say, games lost on a Ray cluster after their
    retries), and its message says what was kept and what to do: exit code 1, no traceback."""


def _epilog() -> str:
    codes = "\n".join(f"  {code:>3}  {meaning}" for code, meaning in EXIT_CODES.items())
    return (
        f"games: {', '.join(GAMES)}\n"
        "run `dice-envs COMMAND --help` for a command's arguments, "
        "`dice-envs play GAME --help` for a game's options.\n\n"
        f"exit codes:\n{codes}"
    )


def version() -> str:
    """The installed distribution's version (``importlib.metadata``), else the package's ``__version__``."""
    from importlib import metadata

    try:
        return metadata.version("dice-envs")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        import dice_envs

        return getattr(dice_envs, "__version__", "unknown")


def whole_number(what: str, low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number in [low, high], with a message saying what it is.

    The one type of every whole-number argument of ``dice-envs`` and its subcommands (``tournament``
    and ``replay`` import it), so they all word the check the same way:

    >>> whole_number("the number of games", 1)("-5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: the number of games is a whole number >= 1, not -5
    """

    def parse(text: str) -> int:
        from dice_envs.options import INT_LIMIT

        stripped = text.strip()
        digits = stripped.lstrip("+-")
        bound = f">= {low}" if high is None else f"in {low}..{high}"
        wrong = argparse.ArgumentTypeError(f"{what} is a whole number {bound}, not {text!r}")
        if not digits.isascii() or not digits.isdigit() or len(stripped) - len(digits) > 1:
            raise wrong
        if len(digits) > 19 or int(stripped) > (INT_LIMIT if high is None else high):
            limit = "" if high is not None else f" (at most {INT_LIMIT})"
            raise argparse.ArgumentTypeError(f"{what} is a whole number {bound}{limit}, not {text[:30]}")
        if int(stripped) < low:
            raise argparse.ArgumentTypeError(f"{what} is a whole number {bound}, not {text[:30]}")
        return int(stripped)

    parse.__name__ = what  # argparse names the type in some messages
    return parse


#: A seed is a whole number in 0..2**63-1 (numpy's SeedSequence takes any non-negative int).
_seed = whole_number("a seed", 0)


def add_max_decisions_argument(parser: argparse.ArgumentParser) -> None:
    """``--max-decisions N`` of ``match`` and ``tournament`` (``None`` when not given: the default
    cap, ``evaluate.tournament.MAX_DECISIONS``)."""
    parser.add_argument(
        "--max-decisions", type=whole_number("the number of decisions per game", 1), default=None, metavar="N",
        help="stop with an error if a game is not over after N decisions (default 1000000): agents can keep "
        "some games going for ever, e.g. Meyer under claim_rule=at_least when no one doubts",
    )  # fmt: skip


class Parser(argparse.ArgumentParser):
    """argparse with `dice-envs` messages: errors exit 2 with one line, no usage dump."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message}\n(run `{self.prog} --help` for help)\n")


def _agent_lines() -> str:
    from agents import AGENTS

    return "\n".join(f"  {game}: {', '.join(AGENTS.get(game, {}))}" for game in GAMES)


def _match_epilog() -> str:
    from evaluate.match import DEFAULT_AGENTS

    defaults = "; ".join(f"{g}: {' '.join(DEFAULT_AGENTS[g])}" for g in GAMES if g in DEFAULT_AGENTS)
    return (
        f"agents of each game (a SPEC is NAME or NAME:KEY=VALUE,...; or MODULE:CLASS[:KEY=VALUE,...], a class of "
        f"your own; or a checkpoint path):\n{_agent_lines()}\n"
        f"default --agents: {defaults}\n"
        "game options go after the game as --name value; `dice-envs match GAME --help` lists them."
    )


def _build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="dice-envs",
        description="Nordic dice games for reinforcement learning: play, match, bench, solve, train, tournament, replay.",
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}",
                        help="print the version of dice-envs and exit")  # fmt: skip
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    raw = argparse.RawDescriptionHelpFormatter

    p_play = sub.add_parser(
        "play", help="play a game in the terminal against built-in agents", add_help=False, formatter_class=raw,
        description="Play a game in the terminal against built-in agents.\n\n"
        "At the prompt: `rules` prints the rules as this game is configured (preset and options), `?` shows the\n"
        "table and your choices again, `q` quits. A game played without --seed prints the seed it drew, so it\n"
        "can be played again with --seed. At a terminal you are offered another game at the end.",
        epilog="game names may be written in any case; farkle is tenthousand --preset farkle, and 10000,\n"
        "ti-tusen and titusen are tenthousand.\n"
        "opponent `trained` plays only with the game options it was trained with; under other options\n"
        "(another --num-players, --preset, --target, --lives ...) it is refused with a message naming them.",
    )  # fmt: skip
    p_play.add_argument("-h", "--help", action="store_true", help="show this help (with a game: its options)")
    p_play.add_argument(
        "game", nargs="?", type=_game_word, choices=_GameNames(GAMES), help=f"the game: {', '.join(GAMES)}"
    )
    p_play.add_argument("--seat", type=whole_number("a seat", 0, 7), default=0, help="your seat (default 0)")
    p_play.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        metavar="SPEC",
        help="the agents at the other seats: one SPEC for all of them, or one SPEC per other seat in seat order, "
        "as separate words (honest doubter); a SPEC is NAME, NAME:KEY=VALUE,..., MODULE:CLASS or a checkpoint "
        "path (default: the game's hand-written opponent: heuristic, or doubter in Meyer)",
    )
    p_play.add_argument(
        "--seed", type=_seed, default=None,
        help="seeds the dice and the opponents (default: a random seed, printed so that the game can be replayed)",
    )  # fmt: skip

    p_match = sub.add_parser(
        "match", help="play agents against each other; print standings", add_help=False, formatter_class=raw
    )
    p_match.add_argument("-h", "--help", action="store_true", help="show this help (with a game: its options)")
    p_match.add_argument(
        "game", nargs="?", type=_game_word, choices=_GameNames(GAMES), help=f"the game: {', '.join(GAMES)}"
    )
    p_match.add_argument(
        "--agents",
        nargs="+",
        default=None,
        metavar="SPEC",
        help="one SPEC per seat, as separate words (random honest bluffer:lie_probability=0.3); "
        "a comma list of bare names (heuristic,random) also works. Default: play's opponent "
        "(heuristic; doubter for meyer) against random",
    )
    p_match.add_argument(
        "--games",
        type=whole_number("the number of games", 1),
        default=1000,
        help="games to play, seats rotated every game (default 1000; a multiple of the number of agents "
        "gives every agent every seat equally often)",
    )
    p_match.add_argument(
        "--seed",
        type=_seed,
        default=0,
        help="a whole number >= 0; seeds every game's dice and agents, per game (default 0)",
    )
    add_max_decisions_argument(p_match)
    p_match.add_argument(
        "--json", action="store_true",
        help="print the standings to stderr and, as the last line on stdout, a JSON object: the setting, each "
        "agent's games, win rate and mean return with their 95%% intervals (agents), and the win shares by seat (seats)",
    )  # fmt: skip

    p_bench = sub.add_parser("bench", help="steps/second of every env beside PettingZoo's classics")
    p_bench.add_argument(
        "--steps", type=whole_number("--steps", 1), default=50_000, help="steps per env (default 50000)"
    )
    p_bench.add_argument("--rounds", type=whole_number("--rounds", 1), default=5, help="interleaved rounds (default 5)")

    for name, (module, _, what, _extra) in DISPATCH.items():
        # Listed for --help only: the words after these names go to their modules unparsed.
        sub.add_parser(name, help=what, add_help=False)
    return parser


def _commands() -> list[str]:
    return ["play", "match", "bench", *DISPATCH]


def _options_help(game: str, given: dict | None = None) -> str:
    """The game's options as command-line flags with their defaults, or, with a preset given
    (``--preset farkle``, or the name ``farkle``), the values in force under it; options with a fixed
    set of values list them."""
    from dice_envs.options import option_choices, option_defaults

    given = given or {}
    preset = {key: value for key, value in given.items() if key == "preset"}
    values = option_defaults(game, preset)
    choices = option_choices(game)
    flags = []
    for name, value in values.items():
        flag = f"--{name.replace('_', '-')} {value!r}"
        if name in choices:
            flag += " {" + ",".join(map(str, choices[name])) + "}"
        flags.append(flag)
    what = f"with --preset {preset['preset']}" if preset else "defaults"
    return f"game options of {game} ({what}): {', '.join(flags)}"


def _dispatch(command: str, words: list[str]) -> int:
    """Run a subcommand owned by another module (imported only now, so `dice-envs play` stays light)."""
    module_name, function, _, extra = DISPATCH[command]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if module_name == missing or module_name.startswith(missing + "."):
            raise CommandUnavailable(
                f"`dice-envs {command}` is not available in this installation (module {module_name} is missing)"
            ) from None
        raise_missing(exc, f"`dice-envs {command}`", extra=extra)  # a package it needs, or a bug
    run = getattr(module, function, None)
    if run is None:
        raise CommandUnavailable(f"`dice-envs {command}` is not available yet ({module_name}.{function} is missing)")
    code = run(list(words))
    return 0 if code is None else int(code)


def _run(argv: list[str]) -> int:
    if argv and argv[0] in DISPATCH:
        return _dispatch(argv[0], argv[1:])
    parser = _build_parser()
    args, rest = parser.parse_known_args(argv)
    if args.command is None:
        if rest:
            raise ValueError(f"unknown arguments {' '.join(rest)!r}; commands: {', '.join(_commands())}")
        parser.print_help(sys.stderr)
        return 2
    if args.command == "bench":
        if rest:
            raise ValueError(f"bench takes no arguments {' '.join(rest)!r}")
        from dice_envs import bench

        bench.run(steps=args.steps, rounds=args.rounds)
        return 0
    subparsers = parser._subparsers
    assert subparsers is not None  # _build_parser added the subcommands
    commands = cast("argparse._SubParsersAction[argparse.ArgumentParser]", subparsers._group_actions[0])
    sub_parser = commands.choices[args.command]  # the play/match parser
    if args.command == "match":
        sub_parser.epilog = _match_epilog()
    from dice_envs.options import parse_game_options

    if args.help:
        sub_parser.print_help()
        if args.game:
            game, implied = resolve_game(args.game)
            try:  # the options help even when the options given are wrong
                given = _choice_values(game, parse_game_options(game, rest))
                text = _options_help(game, _with_implied(args.game, implied, given))
            except ValueError:
                text = _options_help(game)
            print("\n" + text)
        return 0
    if (
        args.command == "play" and args.game is None and args.opponents
        and _game_word(args.opponents[-1]) in _GameNames(GAMES)
    ):  # fmt: skip
        # `play --opponents honest meyer`: the game came after the SPECs
        args.game = _game_word(args.opponents.pop())
    if args.game is None:
        raise ValueError(f"{args.command} needs a game: {', '.join(GAMES)} (run `dice-envs {args.command} --help`)")
    args.game, options = game_and_options(args.game, rest)
    if args.command == "play":
        from dice_envs.play import play_series, stdin_is_terminal, terminal_reader

        terminal = stdin_is_terminal()
        reconfigure = getattr(sys.stdin, "reconfigure", None)
        # A letter the terminal's encoding garbles is read as a wrong answer, not a crash.
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):  # a closed or detached stdin
                pass
        play_series(
            args.game, options, seat=args.seat, opponents=[spec.strip() for spec in args.opponents or []],
            seed=args.seed, read=terminal_reader(echo=not terminal), again=terminal,
        )  # fmt: skip
        return 0
    from evaluate.match import DEFAULT_AGENTS, play_match, split_agent_words

    specs = split_agent_words(args.agents) if args.agents else list(DEFAULT_AGENTS[args.game])
    if args.games % len(specs):
        whole = args.games // len(specs) * len(specs)
        print(f"note: --games {args.games} is not a multiple of the {len(specs)} seats: the last "
              f"{args.games - whole} game(s) play a deal in only some of its seatings, so the seats are not quite "
              f"balanced (--games {' or '.join(str(g) for g in sorted({whole, whole + len(specs)} - {0}))} "
              "balances them)",
              file=sys.stderr)  # fmt: skip
    result = play_match(
        args.game, specs, args.games, seed=args.seed, options=options, progress=True, max_decisions=args.max_decisions
    )
    if args.json:
        from dice_envs import strict_json

        print(result.table(), file=sys.stderr)
        print(strict_json.dumps(result.to_json()))
    else:
        print(result.table())
    return 0


def _quiet_stdout() -> None:
    """After a closed pipe: point stdout at devnull so Python's exit flush does not fail again.

    This is the recipe of the Python documentation (``signal`` module, "Note on SIGPIPE").
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


#: Plain-text stand-ins for the symbols the output uses, where the terminal cannot show them.
ASCII_SYMBOLS = {chr(0x2680 + face - 1): str(face) for face in range(1, 7)}  # dice faces: their digit
ASCII_SYMBOLS.update({"\u2192": "->", "\u2190": "<-", "\u2014": "-", "\u2013": "-", "\u00d7": "x"})
ASCII_SYMBOLS.update({"\u2026": "...", "\u00e6": "ae", "\u00c6": "AE", "\u00f8": "o", "\u00d8": "O"})
_ASCII_ERRORS = "dice_envs_ascii"


def _ascii_stand_in(error: UnicodeError) -> tuple[str, int]:
    """A codec error handler: each character the output's encoding lacks as a plain stand-in
    (a die as its digit, an accented letter without its accent), else ``?``."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    import unicodedata

    text = error.object[error.start : error.end]
    out = []
    for char in text:
        plain = ASCII_SYMBOLS.get(char)
        if plain is None:
            plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode() or "?"
        out.append(plain)
    return "".join(out), error.end


def fit_output_to_terminal() -> None:
    """Where stdout or stderr cannot encode the dice (``⚀``; a cp1252 or ASCII console, a Latin-1
    locale), write what they cannot encode as plain text instead of failing (:data:`ASCII_SYMBOLS`)."""
    import codecs

    try:
        codecs.lookup_error(_ASCII_ERRORS)
    except LookupError:
        codecs.register_error(_ASCII_ERRORS, _ascii_stand_in)
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        reconfigure = getattr(stream, "reconfigure", None)
        if not encoding or reconfigure is None:
            continue
        try:
            "\u2680".encode(encoding)
        except UnicodeEncodeError:
            reconfigure(errors=_ASCII_ERRORS)
        except LookupError:  # an encoding Python does not know: leave the stream alone
            pass


def check_writable(path: str | os.PathLike, what: str) -> None:
    """Refuse an output path that cannot be made: its nearest existing ancestor is not a directory
    (``ValueError``: bad usage), or no file can be created in it (``OSError``: the system refuses;
    exit 1). Missing directories below it are made later, by the writer.

    The check creates and removes a temporary file, as permission bits do not tell (root, read-only
    mounts, ``/proc``).
    """
    import tempfile

    ancestor = os.path.abspath(path)
    while not os.path.exists(ancestor):
        ancestor = os.path.dirname(ancestor)
    if not os.path.isdir(ancestor):
        raise ValueError(f"{what}: {ancestor} is a file, not a directory")
    try:
        fd, probe = tempfile.mkstemp(dir=ancestor, prefix=".dice-envs-probe-")
    except OSError as exc:
        raise OSError(f"{what}: cannot write in {ancestor} ({exc.strerror or exc})") from None
    os.close(fd)
    os.remove(probe)


def main(argv: list[str] | None = None) -> int:
    """Run ``dice-envs`` with ``argv`` (default: the process's arguments); return the exit code.

    Every subcommand runs under this one handler: a ``ValueError`` (bad input) prints
    ``dice-envs: <message>`` and gives 2, Ctrl-C gives 130, a closed output pipe gives 141
    quietly, and an ``OverflowError`` or ``MemoryError`` (a value too large to use) gives 2 with
    a message, so no traceback reaches the user for anything they typed. A package the command
    needs but this installation lacks gives 1 and the ``pip install`` that brings it.
    """
    fit_output_to_terminal()
    return run_guarded(_run, sys.argv[1:] if argv is None else argv)


def run_guarded(command, argv, prog: str = "dice-envs") -> int:
    """Run ``command(argv)`` under the one error handler of :func:`main`; return the exit code.

    Modules with a ``python -m`` entry point of their own (the main job, benchmarks) call it too,
    so their errors read and exit the same: ``prog: <message>``.
    """
    argv = list(argv)
    try:
        return command(argv)
    except SystemExit as exc:  # argparse's own exits (help: 0, bad usage: 2), here or in a subcommand
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except MissingExtraError as exc:  # a ValueError, but an installation problem rather than bad usage
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    except UnicodeEncodeError as exc:  # a ValueError, but the output's text encoding, not bad usage
        print(f"{prog}: text could not be written in this output's encoding ({exc})", file=sys.stderr)
        return 1
    except ModuleNotFoundError as exc:  # an optional package imported only once it was needed
        what = f"`{prog} {argv[0]}`" if argv and argv[0] in _commands() else "this command"
        error = missing_package(exc, what)
        if error is None:  # not a package of an extra: a bug or a broken installation, shown as it is
            raise
        print(f"{prog}: {error}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    except (OverflowError, MemoryError) as exc:
        detail = f" ({exc})" if str(exc) else ""
        print(f"{prog}: a value is too large to use{detail}: {' '.join(argv)[:200]}", file=sys.stderr)
        return 2
    except (CommandUnavailable, CommandFailed) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    except sqlite3.OperationalError as exc:  # the system (a full disk, I/O, a lock) where no check caught it
        print(f"{prog}: cannot read or write a results database ({exc})", file=sys.stderr)
        return 1
    except sqlite3.DatabaseError as exc:  # a results store damaged where the store's own checks did not look
        print(f"{prog}: a results database cannot be read ({exc}): if it is a --db, move it aside and run the "
              "command again (its games are played again)", file=sys.stderr)  # fmt: skip
        return 2
    except KeyboardInterrupt as exc:  # a command may say what it kept: KeyboardInterrupt("the run is saved ...")
        detail = str(exc)
        print(f"\n{prog}: interrupted" + (f"; {detail}" if detail else ""), file=sys.stderr)
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return 141
    except OSError as exc:  # a file that cannot be read or written (replay, checkpoints)
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
