"""``dice-envs tournament`` and ``dice-envs replay`` (also ``python -m evaluate``).

``dice-envs tournament GAME [game options] --agents SPEC... --games N [--seed S] [--db PATH]
[--report DIR] [--workers K] [--json] [--num-players P] [--max-decisions N]`` plays every table of the entrants
(see :mod:`evaluate.tournament`), keeps every game in a SQLite results store, prints the
leaderboard and the win shares by seat (:class:`evaluate.report.SeatBreakdown`) and writes the
report. ``dice-envs replay DB GAME_ID`` (or ``DB --table LABELS --deal D --rotation R``, the
game's key, which names it in every run of the tournament) replays a stored game through the
engine, showing what every step changed (a bust, a penalty, the end phase: the engine's
``change_lines``) and the table after it.

Both raise ``ValueError`` for bad input; ``dice_envs.cli.main`` prints ``dice-envs: <message>``
and exits with status 2. A tournament stopped by SIGTERM while it plays ends its worker processes,
keeps the games finished so far in its store, says so in one line and exits with 143 (Ctrl-C: 130).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from dice_envs import strict_json
from dice_envs.cli import (
    Parser,
    add_game_argument,
    add_max_decisions_argument,
    check_writable,
    game_and_options,
    whole_number,
)
from dice_envs.extras import install_hint, raise_missing
from dice_envs.registry import ENVS

GAMES = [env_id.split("/", 1)[1].rsplit("-v", 1)[0] for env_id in ENVS]
DEFAULT_DB = os.path.join("results", "{game}.sqlite")


def _bootstrap(text: str) -> int:
    """``--bootstrap``: 0 (no rating intervals) or enough replicas for a 95% interval."""
    from evaluate.ratings import check_bootstrap

    value = whole_number("the number of bootstrap replicas", 0)(text)
    try:
        check_bootstrap(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def check_output_paths(db: str | None, report: str | None) -> None:
    """Check ``--db`` and ``--report`` before any game is played (an error naming the flag):
    ``--report`` must be a directory or not exist yet, and each must be writable where it will be
    made. Missing directories are created for ``--report`` and for the default stores' directory
    (``results/`` of :data:`DEFAULT_DB`); a ``--db`` in any other directory that does not exist is
    refused (``ValueError``), as a typo in its path would otherwise scatter stores around.
    """
    if report is not None:
        if os.path.exists(report) and not os.path.isdir(report):
            raise ValueError(f"--report {report} is a file; give a directory for the report's files")
        check_writable(report, f"--report {report}")
    if db is not None and not os.path.exists(db):
        parent = os.path.dirname(os.path.abspath(db))
        default_dir = os.path.abspath(os.path.dirname(DEFAULT_DB))
        if parent != default_dir and not os.path.isdir(parent):
            ancestor = parent
            while not os.path.exists(ancestor):
                ancestor = os.path.dirname(ancestor)
            if not os.path.isdir(ancestor):
                raise ValueError(f"--db {db}: {ancestor} is a file, not a directory")
            raise ValueError(f"--db {db}: the directory {parent} does not exist; create it first, or give another path")
        check_writable(parent, f"--db {db}")


def tournament_parser() -> argparse.ArgumentParser:
    """The ``tournament`` command's argument parser (game options are read separately)."""
    from evaluate.ratings import MIN_BOOTSTRAP

    parser = Parser(
        prog="dice-envs tournament",
        description=(
            "Rank agents: every table of the entrants, every deal in every rotation of the seats, "
            "common dice; ratings with bootstrap intervals, win rates with intervals over the deals. "
            "Game options go after the game's name as --name value (see dice-envs play GAME --help)."
        ),
    )
    add_game_argument(parser)  # any case, and the aliases (farkle = tenthousand --preset farkle)
    parser.add_argument(
        "--agents", nargs="+", required=True, metavar="SPEC",
        help="the entrants: NAME, NAME:KEY=VALUE,..., MODULE:CLASS[:KEY=VALUE,...] (a class of your own) or a "
        "checkpoint path, one per argument",
    )  # fmt: skip
    parser.add_argument(
        "--games", type=whole_number("the number of deals per table", 1), required=True, metavar="N",
        help="deals per table; each is played in every rotation of the table's seats",
    )  # fmt: skip
    parser.add_argument("--seed", type=whole_number("a seed", 0), default=0, help="tournament seed (default 0)")
    parser.add_argument(
        "--db", default=None, metavar="PATH",
        help=f"SQLite results store (default {DEFAULT_DB}); games it holds are not played again",
    )  # fmt: skip
    parser.add_argument("--no-db", action="store_true", help="keep no results store")
    parser.add_argument(
        "--report", default=None, metavar="DIR",
        help="write CSV, JSON and PNG files here (created if missing)",
    )  # fmt: skip
    parser.add_argument(
        "--workers", type=whole_number("the number of workers", 1), default=None, metavar="K",
        help="processes (default: the number of cores; joining a Ray cluster with --address, its CPUs)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the results as JSON on the last line")
    parser.add_argument(
        "--num-players", type=whole_number("the number of players per table", 2), default=None, metavar="P",
        help="seats per table (default: the game's default, or the number of entrants if fewer)",
    )  # fmt: skip
    parser.add_argument(
        "--dice", choices=("common", "independent"), default="common",
        help="common dice (default): the rotations of a deal meet the same rolls; independent: they do not",
    )  # fmt: skip
    parser.add_argument(
        "--bootstrap", type=_bootstrap, default=200, metavar="B",
        help=f"bootstrap replicas of the 95%% rating intervals (default 200; at least {MIN_BOOTSTRAP}); "
        "0 leaves the intervals out",
    )  # fmt: skip
    parser.add_argument(
        "--anchor", default=None, metavar="ENTRANT",
        help="pin this entrant's rating at 0 (its label or SPEC, e.g. random): every rating and interval is then "
        "the difference from it (default: ratings centred on the field)",
    )  # fmt: skip
    add_max_decisions_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--backend", choices=("local", "ray"), default="local",
        help="local: processes of this machine (default); ray: actors of a Ray cluster (pip install "
        "'dice-envs[ray]'), same games and results",
    )  # fmt: skip
    parser.add_argument(
        "--address", default=None, metavar="ADDRESS",
        help="with --backend ray: the cluster to join (host:6379, ray://host:10001 or auto); "
        "default: start a local Ray instance of --workers CPUs",
    )  # fmt: skip
    return parser


def anchor_label(game: str, specs: list[str], anchor: str | None) -> str | None:
    """The entrant ``--anchor`` names: a label as the board prints it (``random``, ``honest#2``) or
    one of the SPECs as given (its first entrant); ``None`` for no anchor.

    Raises:
        ValueError: an anchor that names no entrant (the message lists their labels).
    """
    from evaluate.tournament import make_labels

    if anchor is None:
        return None
    labels = make_labels(game, specs)
    if anchor in labels:
        return anchor
    if anchor in specs:
        return labels[specs.index(anchor)]
    raise ValueError(f"--anchor {anchor!r} is not an entrant; the entrants are {', '.join(labels)}")


def tournament_main(argv: list[str]) -> int:
    """Run ``dice-envs tournament`` with ``argv`` (the words after ``tournament``).

    Raises:
        ValueError: a bad SPEC, game option, results store or count, with a clear message.
    """
    from dice_envs.options import option_defaults
    from evaluate.ratings import default_method, leaderboard
    from evaluate.report import (
        SeatBreakdown, pictures_available, print_leaderboard, report_json, setting_text, write_report,
    )  # fmt: skip
    from evaluate.tournament import Terminated, run_tournament

    args, rest = tournament_parser().parse_known_args(argv)
    args.game, options = game_and_options(args.game, rest)
    for flag, value in (("--db", args.db), ("--report", args.report)):
        if value == "":
            raise ValueError(f"{flag} needs a path, got an empty one")
    if args.no_db and args.db:
        raise ValueError("--db and --no-db contradict each other")
    if args.address and args.backend != "ray":
        raise ValueError("--address names a Ray cluster: give it with --backend ray")
    db = None if args.no_db else (args.db or DEFAULT_DB.format(game=args.game))
    anchor = anchor_label(args.game, args.agents, args.anchor)  # before any game is played
    check_output_paths(db, args.report)
    table = args.num_players or options.get("num_players") or option_defaults(args.game)["num_players"]
    if default_method({table}) == "openskill-plackett-luce":  # refuse before any game, not after them all
        try:
            import openskill  # noqa: F401
        except ModuleNotFoundError as exc:
            raise_missing(exc, f"rating {table}-player tables (Plackett-Luce)")
    if args.report and not pictures_available():
        print(f"dice-envs tournament: the report will have no pictures, as matplotlib is not installed "
              f"({install_hint('matplotlib')})", file=sys.stderr)  # fmt: skip
    try:
        result = run_tournament(
            args.game,
            args.agents,
            games=args.games,
            seed=args.seed,
            options=options,
            num_players=args.num_players,
            db=db,
            workers=args.workers,
            dice=args.dice,
            progress=not args.quiet,
            backend=args.backend,
            address=args.address,
            max_decisions=args.max_decisions,
        )
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (Terminated): the games finished so far are kept
        kept = f"the games finished so far are kept in {db} and the same command plays the rest" if db else "--no-db: nothing kept"
        if isinstance(exc, Terminated):
            print(f"\ndice-envs: terminated (SIGTERM); {kept}", file=sys.stderr)
            return 143
        print(f"\ndice-envs: interrupted; {kept}", file=sys.stderr)
        return 130
    lb = leaderboard(result.labels, result.records, bootstrap=args.bootstrap, seed=args.seed, anchor=anchor)
    title = setting_text(result)  # the report's setting line too (leaderboard.md, the pictures)
    out = sys.stdout
    print_leaderboard(lb, title, file=sys.stderr if args.json else out)
    seats = SeatBreakdown.of_result(result, order=lb.labels)  # in leaderboard order, best first
    print("\n" + seats.text(), file=sys.stderr if args.json else out)
    if result.played_now:
        workers = f"{result.workers} worker{'s' if result.workers != 1 else ''}"
        rate = f"{result.games_per_second:,.0f} games/s, {workers}"
    else:
        rate = "nothing new to play"
    summary = (
        f"played {result.played_now} new games in {result.seconds:.1f} s ({rate}); "
        f"{len(result.records) - result.played_now} were already stored"
        + (
            f" ({result.played_now - result.stored_now} of the new ones were stored first by another run "
            "on the same file)"
            if result.stored_now is not None and result.stored_now < result.played_now
            else ""
        )
        + (f"; results in {db}" if db else "")
    )
    print(summary, file=sys.stderr if args.json else out)
    if args.report:
        written = write_report(args.report, result, lb, seats=seats, title=title)
        print(f"report: {', '.join(written)}", file=sys.stderr if args.json else out)
    if args.json:
        data = report_json(result, lb, seats=seats)
        print(strict_json.dumps(data, default=float), file=out)
    return 0


def replay_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="dice-envs replay",
        description=(
            "Replay a game stored by `dice-envs tournament` through the engine, showing every step. Name the "
            "game by its id in this store, or by its key (--table, --deal, --rotation; --seed and --dice where "
            "the store holds several), which names the same game in every run of the tournament: ids follow the "
            "order the games were stored, which workers and interruptions change."
        ),
    )
    parser.add_argument("db", help="the results store (SQLite file)")
    parser.add_argument(
        "game_id", nargs="?", type=whole_number("a game id", 1),
        help="the game's id in this store (ids start at 1)",
    )  # fmt: skip
    parser.add_argument("--table", metavar="LABELS", help="the game's table: its entrants' labels joined by | ('a|b|c')")
    parser.add_argument("--deal", type=whole_number("--deal", 0), help="the deal (0, 1, ...)")
    parser.add_argument("--rotation", type=whole_number("--rotation", 0), help="the rotation of the seats (0, 1, ...)")
    parser.add_argument("--seed", type=whole_number("--seed", 0), help="the tournament's seed (where the store holds several)")
    parser.add_argument("--dice", choices=("common", "independent"), help="the dice mode (where the store holds both)")
    return parser


def replay_lines(db: str, game_id: int | None = None, key: dict | None = None) -> tuple[list[str], bool]:
    """The text of a replayed game, and whether it reproduced the stored outcome.

    The game is ``game_id`` or, if that is ``None``, the one with ``key``: the keyword arguments of
    :meth:`evaluate.store.ResultStore.find_game` (``table_key``, ``deal``, ``rotation``, ``seed``, ``dice``).

    Every step is a line ``-- step N: ...`` (the roll or the action), then what it changed that a
    player at the table is told, indented (the engine's ``change_lines``, as ``dice-envs play``
    shows them: a bust and the points it lost, a bust penalty, a score line, the start of the end
    phase in 10 000; a lifted cup, lives and who is out in Meyer; a turn's score and a new round
    in Syvere), then the table after it.

    Raises:
        ValueError: not a results store, no such game, or a log that does not replay.
    """
    from dice_envs import dice as dice_mod
    from evaluate.store import ResultStore
    from evaluate.tournament import build_game, replay_states

    store = ResultStore.open_existing(db)
    try:
        meta = store.meta()
        if game_id is None:
            if key is None:
                raise ValueError("replay needs a game: its id, or its key (table_key, deal, rotation)")
            game_id = store.find_game(**key)
        stored = store.game(game_id)
    finally:
        store.close()
    options = meta["options"]
    game = build_game(meta["game"], options)
    seats = stored["seats"]
    lines = [
        f"game {game_id} of {db}: {meta['env_id']}, seed {stored['seed']}, table {stored['table_key']}, "
        f"deal {stored['deal']}, rotation {stored['rotation']} ({stored['dice']} dice)",
        f"key (the same game in any run of this tournament; ids follow the order games were stored): "
        f"--table {shlex.quote(stored['table_key'])} --deal {stored['deal']} --rotation {stored['rotation']} "
        f"--seed {stored['seed']} --dice {stored['dice']}",
        "seats: " + ", ".join(f"player_{s} = {label}" for s, label in enumerate(seats)),
        "",
        game.render(game.initial_state()),
    ]
    state = game.initial_state()
    try:
        for step, (event, before, after) in enumerate(replay_states(game, stored["log"]), 1):
            seat = game.current_player(before)
            if isinstance(event, str):
                text = game.roll_to_string(dice_mod.normalize(event))  # Meyer: high die first (ME-2)
                what = f"player_{seat} ({seats[seat]}) rolls {dice_mod.to_unicode(tuple(map(int, text)))}  ({text})"
            else:
                what = f"player_{seat} ({seats[seat]}): {game.action_to_string(before, event)}"
            lines += ["", f"-- step {step}: {what}", *(f"   {line}" for line in game.change_lines(before, after))]
            lines.append(game.render(after))
            state = after
    except ValueError as exc:  # a log that does not fit the game: the store was changed, or is another's
        raise ValueError(f"{db}: game {game_id} does not replay ({exc})") from None
    returns = [float(r) for r in game.returns(state)]
    same = game.is_terminal(state) and returns == [float(r) for r in stored["returns"]] and list(
        game.scores(state)
    ) == list(stored["scores"])
    lines += [
        "",
        f"returns {returns}, scores {list(game.scores(state))}: "
        + ("the stored outcome, reproduced" if same else f"DIFFERS from the stored {stored['returns']}"),
    ]
    return lines, same


def replay_main(argv: list[str]) -> int:
    """Run ``dice-envs replay DB GAME_ID`` (or ``DB --table T --deal D --rotation R``); exit status 1
    if the outcome is not reproduced."""
    parser = replay_parser()
    args = parser.parse_args(argv)
    by_key = [args.table, args.deal, args.rotation]
    if args.game_id is not None and any(x is not None for x in (*by_key, args.seed, args.dice)):
        parser.error("give a GAME_ID or the game's key (--table, --deal, --rotation), not both")
    key = None
    if args.game_id is None:
        if any(x is None for x in by_key):
            missing = [f"--{n}" for n, x in zip(("table", "deal", "rotation"), by_key) if x is None]
            parser.error("give a GAME_ID, or the game's key: " + ", ".join(missing) + " missing")
        key = {"table_key": args.table, "deal": args.deal, "rotation": args.rotation, "seed": args.seed,
               "dice": args.dice}  # fmt: skip
    lines, same = replay_lines(args.db, args.game_id, key)
    print("\n".join(lines))
    return 0 if same else 1
