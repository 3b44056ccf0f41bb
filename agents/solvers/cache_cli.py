"""``dice-envs cache``: what the solver cache holds, and room made in it.

Solver tables are built once and kept (:mod:`agents.solvers.cache`); some are large (a Syvere
``endgame`` table is 60-120 MB), and a new solver version leaves the old files behind, never read
again. This lists every file with its solver, version, the game options it was solved for (as
differences from the game's defaults, or from the nearest 10 000 preset) and its size, and removes
what no longer serves::

    dice-envs cache                 # list (no change)
    dice-envs cache --prune         # remove old versions, unreadable files, killed builds' leftovers
    dice-envs cache --clear         # remove every table: each is rebuilt when next needed
    dice-envs cache --json          # the list as JSON, as the last line

``--cache-dir DIR`` looks at another directory than ``$DICE_ENVS_CACHE_DIR`` (else the user cache).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from agents.solvers import cache

#: The game each solver's table belongs to.
SOLVER_GAMES = {
    "meyer_equilibrium": "meyer",
    "syvere-endgame": "syvere",
    "syvere-turn": "syvere",
    "tenthousand-turn": "tenthousand",
    "tenthousand-win": "tenthousand",
}


def size_text(size: float) -> str:
    """``123 B``, ``4.5 KiB``, ``60.3 MiB``."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def options_text(entry: cache.Entry) -> str:
    """The entry's options as a reader needs them: the game options that differ from the game's
    defaults (10 000: the nearest preset, named, and what differs from it; the summary
    :func:`dice_envs.options.options_summary` that a tournament's setting also uses), then the
    solver's own keys (players, opponent, banked total ...). Empty for a file that is not a table."""
    game = SOLVER_GAMES.get(entry.solver)
    if game is None:
        return ", ".join(f"{k}={v}" for k, v in sorted(entry.options.items()))
    from dice_envs.options import option_defaults, options_summary

    defaults = option_defaults(game)
    options = dict(entry.options)
    nested = options.pop("options", None)  # tenthousand-turn keeps the game's options apart
    game_options = dict(nested) if isinstance(nested, dict) else {k: v for k, v in options.items() if k in defaults}
    own = {k: v for k, v in options.items() if k not in game_options}
    words = [options_summary(game, game_options)]  # "" when no game option differs
    words += [f"{k}={v}" for k, v in sorted(own.items()) if v is not None and not (k == "num_players" and v == defaults.get(k))]
    return ", ".join(word for word in words if word) or "defaults"


def entry_json(entry: cache.Entry) -> dict:
    return {"file": entry.path.name, "status": entry.status, "bytes": entry.size, "modified": entry.modified,
            "solver": entry.solver or None, "version": entry.version or None, "options": entry.options}  # fmt: skip


def table_lines(entries: list[cache.Entry], directory: Path) -> list[str]:
    total = sum(e.size for e in entries)
    lines = [f"solver cache {directory}: {len(entries)} file{'s' * (len(entries) != 1)}, {size_text(total)}"]
    if not entries:
        return lines
    rows = [("status", "size", "modified", "table", "options")]
    for e in entries:
        table = f"{e.solver} v{e.version}" if e.solver else e.path.name
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.modified))
        rows.append((e.status, size_text(e.size), when, table, options_text(e) if e.solver else ""))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        lines.append("  ".join(cell.ljust(w) if i != 1 else cell.rjust(w) for i, (cell, w) in
                               enumerate(zip(row[:4], widths))) + "  " + row[4])  # fmt: skip
    removable = [e for e in entries if e.removable]
    if removable:
        lines.append(f"{len(removable)} removable ({size_text(sum(e.size for e in removable))}): `dice-envs cache --prune` "
                     "removes old solver versions, unreadable files and killed builds' leftovers")  # fmt: skip
    return lines


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dice-envs cache",
        description="List the solver tables in the cache; --prune or --clear make room.",
        epilog="status: current (read by this version), stale (an older solver version: never read again), "
        "unreadable, leftover (a killed build's temporary file), writing (a temporary file changed in the last hour)",
    )
    parser.add_argument("--cache-dir", default=None, help="the cache directory (default $DICE_ENVS_CACHE_DIR, else "
                        "the user cache dir)")  # fmt: skip
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--prune", action="store_true", help="remove stale, unreadable and leftover files")
    what.add_argument("--clear", action="store_true", help="remove every table and leftover (not files being written)")
    parser.add_argument("--json", action="store_true", help="print the list (after any removal) as JSON, last line")
    return parser


def main(argv: list[str] | None = None) -> int:
    """``dice-envs cache [--cache-dir DIR] [--prune | --clear] [--json]``; returns 0.

    Raises:
        ValueError: an unknown argument (the message names it).
    """
    args, rest = _parser().parse_known_args(list(sys.argv[1:] if argv is None else argv))
    if rest:
        raise ValueError(f"cache takes no game or other arguments: {' '.join(rest)!r} (see `dice-envs cache --help`)")
    directory = Path(args.cache_dir) if args.cache_dir else cache.default_cache_dir()
    if directory.exists() and not directory.is_dir():
        if args.cache_dir:
            raise ValueError(f"--cache-dir {args.cache_dir} is not a directory")
        if os.environ.get(cache.ENV_VAR):
            raise ValueError(f"the solver cache {directory} (${cache.ENV_VAR}) is not a directory")
        raise ValueError(f"the default solver cache {directory} is not a directory: move it aside, or set "
                         f"${cache.ENV_VAR} to another directory")  # fmt: skip
    entries = cache.inventory(directory)
    if args.prune or args.clear:
        doomed = [e for e in entries if (e.status != "writing" if args.clear else e.removable)]
        count, freed = cache.remove(doomed)
        print(f"removed {count} file{'s' * (count != 1)} ({size_text(freed)}) from {directory}")
        entries = cache.inventory(directory)
    out = sys.stderr if args.json else sys.stdout
    for line in table_lines(entries, directory):
        print(line, file=out)
    if args.json:
        from dice_envs import strict_json

        print(strict_json.dumps({"directory": str(directory), "files": [entry_json(e) for e in entries]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
