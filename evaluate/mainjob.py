"""The tournament half of the README's main job: rank every agent of every game.

``python -m evaluate.mainjob`` plays one tournament per game between the built-in agents, the
solver agents that build in seconds, the trained checkpoint shipped with the package (SPEC
``trained``, when one ships and loads) and any checkpoints given with ``--checkpoint``
(``--checkpoint syvere=runs/syvere/policy``: the training run that precedes it). Each tournament
keeps its games in ``OUT/<game>.sqlite`` and writes its report into ``OUT/<game>/``; the
leaderboards, with how long each part took, also go to ``OUT/summary.md``.

Entrants of each game (:data:`ENTRANTS`); an entrant that is not available in this installation
(a missing extra, no shipped checkpoint, options it does not play) is left out with a note. The
solver agents solve the first time and are cached afterwards: Meyer's ``equilibrium`` (linear
programmes, tens of seconds), 10 000's ``winprob`` (the two-player game for the chance of winning,
under a minute) and Syvere's ``endgame`` (the best response with three or fewer players in, seconds).

Re-running plays only the games the databases lack; when a checkpoint has changed since its games
were stored, its game's old database is kept under a new name and the tournament starts afresh.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time

#: game -> (entrants, deals per table). The deals are chosen so that the three tournaments take a
#: few minutes on two cores (see docs/tournaments.md, 'The main job's leaderboards'). The game's options
#: (and so the table size) are those of the trained checkpoint (:func:`checkpoint_options`).
ENTRANTS: dict[str, tuple[list[str], int]] = {
    "syvere": (["trained", "endgame", "optimal", "heuristic", "random"], 250),
    "tenthousand": (["trained", "winprob", "optimal", "heuristic", "greedy", "random"], 250),
    "meyer": (["trained", "equilibrium", "doubter", "honest", "bluffer", "random"], 250),
}


def checkpoint_options(game_name: str, paths: list[str]) -> dict:
    """The game options of the first readable checkpoint among ``paths`` and the shipped one.

    The tournament is played in the game the trained agents know (the shipped Syvere agent plays
    at tables of four, say); with no checkpoint, the game's default options.
    """
    from agents.checkpoint import TRAINED_DIR, read_checkpoint

    for path in [*paths, TRAINED_DIR / game_name]:
        try:
            meta, _ = read_checkpoint(path)
        except (ValueError, OSError):
            continue
        if meta.get("game") == game_name:
            return dict(meta.get("options") or {})
    return {}


def available(game_name: str, specs: list[str], options: dict) -> tuple[list[str], list[str]]:
    """The SPECs whose agents can be built here, and a note for each that cannot."""
    from evaluate.tournament import build_agents, build_game, make_labels

    game = build_game(game_name, options)
    keep, notes = [], []
    for spec in specs:
        try:
            build_agents(game, [spec], make_labels(game_name, [spec]))
        except ValueError as exc:
            notes.append(f"{game_name}: left out {spec!r}: {exc}")
        else:
            keep.append(spec)
    return keep, notes


def run_game(
    game_name: str, specs: list[str], games: int, out: str, workers: int | None, seed: int, options: dict
) -> tuple:
    """One game's tournament with its store and report; returns (result, leaderboard, seconds)."""
    from evaluate.ratings import leaderboard
    from evaluate.report import print_leaderboard, write_report
    from evaluate.store import OtherVersionStore, StoreDamaged
    from evaluate.tournament import run_tournament

    db = os.path.join(out, f"{game_name}.sqlite")
    start = time.perf_counter()
    play = functools.partial(
        run_tournament, game_name, specs,
        games=games, seed=seed, db=db, workers=workers, progress=True, options=options,
    )  # fmt: skip
    try:
        result = play()
    except ValueError as exc:
        # A store of another version, a damaged one or one of another setting is kept aside (renamed),
        # never deleted: the main job's command is fixed, so it cannot be told another --db.
        replaceable = isinstance(exc, (OtherVersionStore, StoreDamaged)) or any(
            words in str(exc) for words in ("stands for other", "holds results of another setting")
        )
        if not replaceable:
            raise
        kept = db.replace(".sqlite", time.strftime("-%Y%m%d-%H%M%S.sqlite"))
        os.replace(db, kept)
        for suffix in ("-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.replace(db + suffix, kept + suffix)
        print(f"{game_name}: {exc}\n  -> the old database is kept as {kept}; starting afresh", file=sys.stderr)
        result = play()
    lb = leaderboard(result.labels, result.records, bootstrap=200, seed=seed)
    tables = "every pair" if result.num_players == 2 else f"tables of {result.num_players}"
    title = (
        f"{game_name}: {len(result.labels)} agents, {tables}, {games} deals x {result.num_players} seatings, "
        f"common dice, {len(result.records)} games"
    )
    print_leaderboard(lb, title)
    write_report(os.path.join(out, game_name), result, lb)
    seconds = time.perf_counter() - start
    rate = f"{result.games_per_second:,.0f} games/s" if result.played_now else "all stored already"
    print(f"{game_name}: {result.played_now} games played now ({rate}); {seconds:.0f} s with the report\n")
    return result, lb, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluate.mainjob", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join("results", "tournament"), help="databases and reports")
    parser.add_argument(
        "--checkpoint", action="append", default=[], metavar="GAME=PATH", help="a trained checkpoint to enter"
    )
    parser.add_argument("--games", type=float, default=1.0, metavar="SCALE", help="scale the deals per pair")
    parser.add_argument("--only", nargs="+", choices=list(ENTRANTS), default=list(ENTRANTS), help="these games only")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: the number of cores)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    extra: dict[str, list[str]] = {}
    for item in args.checkpoint:
        game_name, sep, path = item.partition("=")
        if not sep or game_name not in ENTRANTS or not path:
            raise ValueError(f"--checkpoint takes GAME=PATH with GAME one of {', '.join(ENTRANTS)}, got {item!r}")
        extra.setdefault(game_name, []).append(path)
    os.makedirs(args.out, exist_ok=True)
    start = time.perf_counter()
    summary = ["# Tournaments of the main job", ""]
    for game_name in args.only:
        specs, deals = ENTRANTS[game_name]
        options = checkpoint_options(game_name, extra.get(game_name, []))
        specs, notes = available(game_name, specs + extra.get(game_name, []), options)
        for note in notes:
            print(note, file=sys.stderr)
        games = max(1, round(deals * args.games))
        result, lb, seconds = run_game(game_name, specs, games, args.out, args.workers, args.seed, options)
        tables = "pair" if result.num_players == 2 else f"table of {result.num_players}"
        shown = ", ".join(f"{k}={v}" for k, v in options.items()) or "default options"
        summary += [
            f"## {game_name}",
            "",
            f"{shown}. {len(result.records)} games ({games} deals per {tables}, every rotation of the seats, "
            f"common dice, seed {args.seed}); "
            f"{result.played_now} played in this run at {result.games_per_second:,.0f} games/s with "
            f"{result.workers} worker{'s' if result.workers != 1 else ''}; {seconds:.0f} s with the report.",
            "",
            "```",
            lb.text(),
            "```",
            "",
            *[f"- {note}" for note in notes],
            "",
        ]
    total = time.perf_counter() - start
    summary.append(f"Wall time of the tournaments: {total:.0f} s.")
    path = os.path.join(args.out, "summary.md")
    with open(path, "w") as handle:
        handle.write("\n".join(summary) + "\n")
    print(f"tournaments done in {total:.0f} s; leaderboards in {path}, reports in {args.out}/<game>/")
    return 0


if __name__ == "__main__":  # pragma: no cover
    from dice_envs.cli import run_guarded

    sys.exit(run_guarded(main, sys.argv[1:], prog="python -m evaluate.mainjob"))
