"""``dice-envs solve``: run a solver, print a readable summary, save its table (issue 8, items 7-8).

Usage (game options go after the game, as everywhere in the CLI)::

    dice-envs solve syvere [game options] [--roll-limit L]
    dice-envs solve syvere [game options] --describe SITUATION
    dice-envs solve tenthousand [game options] [--opened] [--banked N] [--cap POINTS] [--export PATH]
    dice-envs solve tenthousand [game options] --objective win [--export PATH]
    dice-envs solve tenthousand [game options] [--objective turn|win] --describe SITUATION
    dice-envs solve meyer [game options] [--exploitability SPEC [--games N] [--seed S]]
    dice-envs solve meyer [game options] --value SPEC_A SPEC_B
    dice-envs solve meyer [game options] [--describe BEAT [--lives-pair R O]] [--export PATH]

and for every game ``--json`` (the last line printed is a JSON object holding at least ``value``),
``--bench`` (time and peak memory of the solve, built afresh) and ``--cache-dir DIR`` (where the
tables are kept; default: ``$DICE_ENVS_CACHE_DIR`` or the user cache directory).

* ``syvere``: the optimal expected turn score under roll limit ``L`` (default: the game's
  ``max_rolls``, 3), the stop thresholds, and the starter's trade-off (SY-6). ``--describe
  SITUATION`` values one decision instead (:mod:`agents.solvers.syvere_describe`): stopping and
  rolling on as expected turn scores, and, with three or fewer players in, as chances of winning
  against ``heuristic`` (the ``endgame`` agent's best response), with what ``optimal`` and
  ``endgame`` play. SITUATION is ``key=value`` pairs separated by commas: ``totals=60 70 78``
  (the mover's total first, then the others in the order of play; at or above the elimination:
  out), ``dice=2666`` (held after the roll, pairs of 7 set aside), ``rolls=N`` (made this turn,
  default 1), ``starter=yes|no`` (default no), ``limit=L`` (a non-starter's roll limit, the
  starter's rolls; default ``max_rolls``), ``after=K`` (players still to play after the mover this
  round; default 0).
* ``tenthousand``: the optimal expected points of one turn, for a player who has not opened and
  has banked nothing unless ``--opened`` / ``--banked N`` say otherwise, with the turn totals at
  which a bank is allowed and worth at least as much as rolling on, by the dice the roll would
  take (:func:`agents.solvers.tenthousand.bank_ranges`; ``--json``: ``bank_ranges``, lists of
  ``[first, last]`` with ``null`` for no upper end, and ``bank_from``, the least of them). Under
  ``hot_dice_must_roll`` six dice are never banked (they follow only hot dice); under
  ``exact_target`` the ranges end at the total that reaches the target, past which a bank and a
  roll are both worth 0;
  ``--objective win``: the two-player first player's win probability
  (:mod:`agents.solvers.tenthousand_win`).

  ``--describe SITUATION`` prints one decision instead of the summary: every legal choice (the
  dice to keep, then roll on or bank) with its value, best first, marking the best and the one
  the agent plays (``optimal``, or ``winprob`` for ``--objective win``, asked on the engine's
  state of the situation). A value is the expected points the turn adds (in the last turn of the
  game: the chance of ending it ahead), or the mover's chance of winning. SITUATION is
  ``key=value`` pairs separated by commas, totals in points
  (:func:`agents.solvers.tenthousand.parse_situation`)::

      roll=1552            the dice just rolled (required; also roll=1 5 5 2)
      turn=350             points set aside earlier in this turn (default 0: the first roll, six dice)
      own=9000, opp=9500   the mover's and the opponent's totals (default 0); opp at or past the
                           target: the opponent has reached it and this is the mover's last turn
      role=0|1             --objective win under end=finish_round (dk): 0 if the mover started the
                           round, 1 if second (required there, outside the last turn)
      opened=yes|no, opp_opened=yes|no   on the list (default: the total is above 0; they can
                           differ only with a bust penalty)
      busts=N, opp_busts=N busts in a row (--objective win with a bust penalty; default 0)

  For ``--objective turn`` the summary is then for the situation's player (``own``, ``opened``;
  not with ``--opened`` / ``--banked``). A key the objective does not use, or a situation the
  rules rule out on their face (a total at or past the target, a roll that busts, a first roll
  of fewer than six dice, a list that contradicts the total ...), is refused with the reason; the
  check is not a full reachability test (a ``dk`` total of 500, below the opening, is valued as
  given). With ``--json`` the lines are the object's ``describe``
  and the data its ``situation`` (``choices``: ``action``, ``keep``, ``then``, ``points``,
  ``turn_total``, ``dice_to_roll``, ``adds``, ``value``, ``best``, ``agent``).

  ``--export PATH`` (``.csv`` or ``.json``, written as Meyer's): ``--objective turn``: the bank
  table by dice (:func:`agents.solvers.tenthousand.bank_rows`, 6 rows); ``--objective win``: the
  bank threshold map (:func:`agents.solvers.tenthousand_win.bank_map_rows`), one row per start of
  a turn: role, totals (and lists and busts in a row with a bust penalty), and for 1..6 dice to
  roll the least turn total at which banking is at least as good as rolling on (``bank_from_N``)
  and every such turn total as ranges (``bank_N``, such as ``1050-1900 2000+``: near the target
  the bank region can have a gap). Each row re-solves its turn from the table. At target 10 000:
  80 000 rows for ``dk`` (two roles; 25 s, 5.5 MB of CSV), 40 000 for ``no`` (12 s, 14 MB of
  JSON); ``farkle`` with its bust penalty 562 500 rows (busts in a row 0..2 each, totals from the
  floor, -2500; estimated from target 1000 at about 3 minutes and 50 MB of CSV, 200 MB of JSON).
* ``meyer``: the first starter's game value (:mod:`agents.solvers.meyer`); ``--exploitability
  SPEC``: that agent's exploitability (:mod:`evaluate.exploitability`), with ``--games N`` and
  ``--seed S`` for the simulated lower bound of an agent outside the exact model (default 4000
  games, seed 0). ``--value SPEC_A SPEC_B``: A's exact expected return against B, with A and with
  B starting, their average and A's win probability (``head_to_head``). ``--describe BEAT``
  prints the equilibrium at one level instead of the summary (``describe_level``): the claim to
  beat (``54``, or ``start`` for a round's first claim), with the roller's and the responder's
  lives ``--lives-pair R O`` (default: both at the game's ``--lives``); with ``--json`` its lines
  are the object's ``describe``. With ``--exploitability SPEC``, ``--describe BEAT`` shows instead
  how the exact best response exploits that agent at the level (``describe_best_response``: its
  claim with each of its dice, bluffs marked, and its answer to each claim the agent makes
  there), ``--lives-pair`` then giving the best response's and the agent's lives. ``--export
  PATH`` writes the whole equilibrium strategy as a tidy table (``strategy_rows``: a CSV file
  when PATH ends in ``.csv``, a JSON array of row objects when it ends in ``.json``;
  zero-probability claim rows left out), atomically, creating missing directories; ``--json`` gives its path and row count as ``export``.

Bad input raises ``ValueError``; the ``dice-envs`` command prints it and exits 2. ``python -m
agents.solvers`` runs the same command.
"""

from __future__ import annotations

import argparse
import importlib
import resource
import sys
import tempfile
import time
import tracemalloc
from fractions import Fraction
from pathlib import Path
from typing import Callable

from dice_envs import strict_json
from dice_envs.cli import add_game_argument, game_and_options, whole_number
from dice_envs.progress import optional_progress_bar

GAMES = ("syvere", "tenthousand", "meyer")


class _Parser(argparse.ArgumentParser):
    """argparse that raises ``ValueError`` for bad usage (the top-level command prints it, exit 2)."""

    def error(self, message: str):
        raise ValueError(f"solve: {message} (run `dice-envs solve --help`)")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dice-envs solve",
        description="Solve a game exactly: print the value, save the table.",
        epilog=(
            "Game options go after the game as --name value (`dice-envs play GAME --help` lists them).\n"
            "syvere: --roll-limit L, --describe SITUATION.\n"
            "tenthousand: --opened, --banked N, --cap POINTS, --objective turn|win,\n"
            "       --describe SITUATION, --export PATH (.csv or .json).\n"
            "meyer: --exploitability SPEC [--games N] [--seed S], --value SPEC_A SPEC_B,\n"
            "       --describe BEAT [--lives-pair R O], --export PATH (.csv or .json).\n"
            "\n"
            "tenthousand --describe SITUATION: key=value pairs separated by commas, totals in points:\n"
            "  roll=1552 (the dice just rolled; required), turn=350 (points set aside before this roll;\n"
            "  default 0), own=9000, opp=9500 (totals; default 0; opp at or past the target: the mover's\n"
            "  last turn), role=0|1 (--objective win under end=finish_round: 0 if the mover started the\n"
            "  round), opened=yes|no, opp_opened=yes|no (on the list; default: total above 0), busts=N,\n"
            "  opp_busts=N (busts in a row; --objective win with a bust penalty). Example:\n"
            "  dice-envs solve tenthousand --preset dk --objective win \\\n"
            "      --describe own=9000,opp=9500,turn=350,roll=1552,role=0\n"
            "\n"
            "syvere --describe SITUATION: totals=60 70 78 (the mover's total first, then the others in the\n"
            "  order of play; required), dice=2666 (held after the roll, pairs of 7 set aside; required),\n"
            "  rolls=N (made this turn; default 1), starter=yes|no (default no), limit=L (a non-starter's\n"
            "  roll limit, the starter's rolls; default max_rolls), after=K (players still to play after\n"
            "  the mover this round; default 0). Example:\n"
            "  dice-envs solve syvere --describe 'totals=60 70 78,dice=2666,rolls=1,limit=2'"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,  # a prefix must never swallow a game option
    )
    add_game_argument(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON object (with 'value') as the last line")
    parser.add_argument("--bench", action="store_true", help="time the solve (built afresh) and measure its peak memory")
    parser.add_argument("--cache-dir", default=None, help="directory of the solver tables")
    parser.add_argument("--roll-limit", type=int, default=None, help="syvere: the roll limit L (default: max_rolls)")
    parser.add_argument("--opened", action="store_true", help="tenthousand: the player has banked before (TT-7)")
    parser.add_argument("--banked", type=int, default=0, help="tenthousand: the player's banked total (default 0)")
    parser.add_argument("--cap", type=int, default=None, help="tenthousand: the largest turn total tabulated")
    parser.add_argument(
        "--objective", choices=("turn", "win"), default="turn",
        help="tenthousand: best expected turn (default) or two-player win probability",
    )  # fmt: skip
    parser.add_argument("--exploitability", default=None, metavar="SPEC", help="meyer: that agent's exploitability")
    parser.add_argument(
        "--games", type=whole_number("the number of games", 2), default=None, metavar="N",
        help="meyer, with --exploitability: games of the simulated lower bound of an agent outside the exact "
        "model (default 4000; rounded up to a multiple of 4, each seat and starter alike; each responder is "
        "first screened on a tenth as many, at least 200)",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=whole_number("a seed", 0), default=None, metavar="S",
        help="meyer, with --exploitability: the seed of that simulated lower bound (default 0)",
    )  # fmt: skip
    parser.add_argument(
        "--value", nargs=2, default=None, metavar=("SPEC_A", "SPEC_B"),
        help="meyer: the exact expected return and win probability of agent A against agent B",
    )  # fmt: skip
    parser.add_argument(
        "--describe", default=None, metavar="BEAT|SITUATION",
        help="meyer: print the equilibrium at one level: the claim to beat (e.g. 54), or start (a round's first "
        "claim); with --exploitability SPEC, how the exact best response exploits that agent there. "
        "tenthousand: print every choice of one situation with its value (expected points, or with "
        "--objective win the chance of winning), the best and the agent's marked: SITUATION such as "
        "own=9000,opp=9500,turn=350,roll=1552 (see below). syvere: value stopping and rolling on in one "
        "situation, such as 'totals=60 70 78,dice=2666,rolls=1,limit=2' (see below)",
    )  # fmt: skip
    parser.add_argument(
        "--lives-pair", type=int, nargs=2, default=None, metavar=("R", "O"),
        help="meyer, with --describe: the roller's and the responder's lives (with --exploitability: the best "
        "response's and the agent's; default: both at --lives)",
    )  # fmt: skip
    parser.add_argument(
        "--export", default=None, metavar="PATH",
        help="write a table: PATH.csv, or PATH.json (a JSON array of rows). meyer: the equilibrium strategy. "
        "tenthousand: the turn totals at which a bank is at least as good as rolling on, by dice to roll (6 rows); "
        "with --objective win the bank threshold map, a row per role, own total, opponent total (and busts in a "
        "row with a bust penalty), one turn re-solved per row: at target 10 000, with the win table cached (a "
        "first run solves it first), dk 80 000 rows (25 s, 5.5 MB of CSV), no 40 000, farkle 562 500 (a few "
        "minutes, about 50 MB of CSV)",
    )  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def _optional(module: str, function: str) -> Callable:
    """A function of another engineer's solver module, imported only when it is needed."""
    try:
        found = getattr(importlib.import_module(module), function, None)
    except ModuleNotFoundError as exc:
        if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
            found = None
        else:
            raise
    if found is None:
        from dice_envs.cli import CommandUnavailable

        raise CommandUnavailable(f"this solve is not available in this installation ({module}.{function} is missing)")
    return found


def _fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)


# -- Syvere ----------------------------------------------------------------------------------
def _solve_syvere(options: dict, args, cache_dir, progress: bool) -> dict:
    from agents.solvers import cache
    from agents.solvers import syvere as sy
    from dice_envs.games import syvere as engine

    game = engine.Game(**options)  # validates the options
    if args.describe is not None:
        if args.roll_limit is not None:
            raise ValueError("--roll-limit with --describe: the situation gives the roll limit (limit=, starter=)")
        from agents.solvers.syvere_describe import describe_situation

        described = describe_situation(options, args.describe, "--describe", progress=progress,
                                       cache_dir=cache_dir)  # fmt: skip
        win, turn = described["win"], described["turn"]
        # value: the chance of winning of endgame's choice, or without it the expected score of optimal's
        value = win[win["endgame"]] if win is not None else turn[turn["optimal"]]
        return {"game": "syvere", "objective": "describe", "value": value, **described}
    limit = game.max_rolls if args.roll_limit is None else args.roll_limit
    if not 1 <= limit <= game.max_rolls:
        raise ValueError(f"--roll-limit must be in 1..{game.max_rolls} (the game's max_rolls), got {limit}")
    solution = sy.solve(game.max_rolls, cache_dir=cache_dir, use_cache=True)
    value = solution.turn_values[limit]
    lines = [
        f"Syvere, one turn, roll limit {limit}: optimal expected turn score {float(value):.4f} "
        f"(exactly {_fraction_text(value)})",
        "expected turn score by roll limit: "
        + ", ".join(f"L={L}: {float(v):.4f}" for L, v in solution.turn_values.items()),
    ]
    if limit == 1:
        lines.append(
            "stop thresholds: none: with a roll limit of 1 the turn ends after its one roll, there is no decision"
        )
    else:
        lines.append(f"stop thresholds (stop when the dice left sum to at most this), limit {limit}:")
        lines.append("  rolls left   " + " ".join(f"{k} dice" for k in range(1, sy.NUM_DICE + 1)))
    for r in range(1, limit):
        cells = " ".join(f"{solution.stop_threshold(k, r):>6d}" for k in range(1, sy.NUM_DICE + 1))
        lines.append(f"  {r:>10d}   {cells}")
    tradeoff = sy.starter_tradeoff(limit)
    margin = sy.starter_tradeoff(limit, weight=1)
    lines.append(f"starter's trade-off (SY-6), limit {limit}: the starter's rolls are the others' limit")
    lines.append("  policy          rolls  probability  starter's score  each other's score")
    for label, rows in (("turn-optimal", tradeoff), ("margin (w=1)", margin)):
        for row in rows:
            lines.append(
                f"  {label:<14} {row.rolls:>6d} {float(row.probability):>12.4f} "
                f"{float(row.starter_score):>16.4f} {float(row.others_score):>19.4f}"
            )
    plans = sy.planned_limits(limit)
    margin_plans = sy.planned_limits(limit, weight=1)
    lines.append("  expected scores: starter / each other player / margin")
    for label, plan_rows in (("turn-optimal", plans), ("margin (w=1)", margin_plans)):
        for plan_row in plan_rows:
            lines.append(
                f"  {label:<14} at most {plan_row.plan} roll(s): {float(plan_row.starter_score):.4f} / "
                f"{float(plan_row.others_score):.4f} / "
                f"{float(plan_row.others_score - plan_row.starter_score):+.4f}"
            )
    path = cache.cache_path(sy.SOLVER, sy.VERSION, {"max_rolls": game.max_rolls}, cache_dir)
    lines.append(f"table: {path}")

    def rows_json(rows):
        return [
            {"rolls": r.rolls, "probability": float(r.probability), "starter_score": float(r.starter_score),
             "others_score": float(r.others_score)}
            for r in rows
        ]  # fmt: skip

    return {
        "game": "syvere",
        "objective": "turn",
        "roll_limit": limit,
        "value": float(value),
        "value_exact": _fraction_text(value),
        "turn_values": {str(L): float(v) for L, v in solution.turn_values.items()},
        "stop_thresholds": {
            str(r): [solution.stop_threshold(k, r) for k in range(1, sy.NUM_DICE + 1)] for r in range(1, limit)
        },
        "starter_tradeoff": rows_json(tradeoff),
        "starter_tradeoff_margin": rows_json(margin),
        "planned_limits": [
            {"plan": r.plan, "starter_score": float(r.starter_score), "others_score": float(r.others_score),
             "limit_distribution": [float(q) for q in r.limit_distribution]}
            for r in plans
        ],  # fmt: skip
        "table": str(path),
        "lines": lines,
    }


# -- Ten thousand ----------------------------------------------------------------------------
def _bank_words(ranges: list[tuple[int, int | None]]) -> str:
    """Turn-total ranges in words: ``from 300``, ``150 to 500``, ``1050 to 1900 and from 2000``."""
    return " and ".join(f"from {a}" if b is None else f"at {a}" if a == b else f"{a} to {b}" for a, b in ranges)


def _bank_lines(solution, game) -> tuple[dict[int, list[tuple[int, int | None]]], list[str]]:
    """The bank ranges of a solved turn (:func:`agents.solvers.tenthousand.bank_ranges`) and the
    lines that say them, with what "never" and the end of a range mean under these rules."""
    from agents.solvers import tenthousand as tts

    ranges = tts.bank_ranges(solution)
    cells = []
    for k, found in ranges.items():
        dice = "1 die" if k == 1 else f"{k} dice"
        if found:
            cells.append(f"{dice}: {_bank_words(found)}")
        elif k == tts.tt.NUM_DICE and game.hot_dice_must_roll:
            cells.append(f"{dice}: never banked (six dice follow only hot dice, which must be rolled)")
        else:
            cells.append(f"{dice}: never")
    lines = [
        "bank rather than roll on, by the dice the roll would take: the turn totals (what a bank makes) at which a "
        "bank is allowed and worth at least as much as rolling on (a tie counts as a bank, as `optimal` plays it):",
        "  " + ", ".join(cells),
    ]
    ends = {b for found in ranges.values() for _, b in found if b is not None}
    if game.exact_target and ends:
        last = max(ends)
        lines.append(f"  past {last} a bank passes the target and scores 0 (exact_target), and so does rolling on: "
                     "neither is counted as better there")  # fmt: skip
    return ranges, lines


def _solve_tenthousand(options: dict, args, cache_dir, progress: bool) -> dict:
    situation = None
    if args.describe is not None:  # the form is checked before any solve
        from agents.solvers import tenthousand as tts

        for flag, given in (("--opened", args.opened), ("--banked", args.banked != 0)):
            if given:
                raise ValueError(f"{flag} with --describe: the situation gives the player's total and list "
                                 "(own=, opened=)")  # fmt: skip
        situation = tts.parse_situation(args.describe, "--describe")
    if args.export is not None:
        _optional("agents.solvers.export", "export_format")(args.export)
    if args.objective == "win":
        for flag, given in (("--opened", args.opened), ("--banked", args.banked != 0), ("--cap", args.cap is not None)):
            if given:
                raise ValueError(f"{flag} is for --objective turn; --objective win solves the whole two-player game")
        if situation is not None:  # checked against the rules before the solve starts
            from agents.solvers import tenthousand as tts

            game = _optional("agents.solvers.tenthousand_win", "make_game")(options)
            tts.check_situation(game, situation, "win", "--describe")
        summary = _optional("agents.solvers.tenthousand_win", "cli_summary")(
            options, cache_dir=cache_dir, progress=progress
        )
        result = {"game": "tenthousand", "objective": "win", **summary}
        lines = list(summary.get("lines", []))
        if situation is not None:
            described = _optional("agents.solvers.tenthousand_win", "describe_situation")(
                options, situation, cache_dir=cache_dir, name="--describe"
            )
            lines = _describe_result(result, described)
        if args.export is not None:
            exported = _optional("agents.solvers.tenthousand_win", "export_bank_map")(
                args.export, options, cache_dir=cache_dir, progress=progress
            )
            result["export"] = exported
            lines.append(
                f"bank threshold map: {exported['rows']} rows written to {exported['path']} ({exported['format']}; "
                f"columns {', '.join(exported['columns'])})"
            )
        result["lines"] = lines
        return result

    from agents.solvers import cache
    from agents.solvers import tenthousand as tts
    from dice_envs.games import tenthousand as engine

    game = engine.Game(**options)  # validates the options
    cap = tts.DEFAULT_CAP if args.cap is None else args.cap
    opened, banked = bool(args.opened), int(args.banked)
    if situation is not None:  # the summary is for the situation's player
        situation = tts.check_situation(game, situation, "turn", "--describe")
        opened, banked = bool(situation.opened), int(situation.own or 0)
    if banked % tts.STEP:
        raise ValueError(f"--banked must be a multiple of {tts.STEP}, got {banked}")
    tts.check_context(game, opened, banked, flags=True)
    tts.check_cap(cap, "--cap")  # before the bar starts
    bars: list = []  # made at the solve's first report: a table read from the cache shows no bar

    def report(done: int, total: int) -> None:
        if not bars:
            bars.append(optional_progress_bar(progress, total=total, desc="solving turn totals", unit="total",
                                              leave=False))  # fmt: skip
        bar = bars[0]
        if bar is not None:
            bar.total = total
            bar.update(done - bar.n)  # not a forced refresh: in a log, a line at most every LOG_EVERY s

    try:
        solution = tts.solve(game, opened=opened, banked=banked, cap=cap, cache_dir=cache_dir,
                             use_cache=True, progress=report if progress else None)  # fmt: skip
    finally:
        for bar in bars:
            if bar is not None:
                bar.close()
    key = tts._key(game, opened, banked, cap)
    path = cache.cache_path(tts.SOLVER, tts.VERSION, key, cache_dir)
    who = "opened" if opened else "not yet opened"
    context = f"a player who has {who}, banked {banked}"
    if key["banked"] is None and banked:
        context += " (the banked total does not change a turn under these options)"
    lines = [
        f"10 000 ({game.preset}{''.join(f', {k}={v}' for k, v in options.items() if k != 'preset')}), one turn, "
        f"{context}: optimal expected banked points {solution.value:.4f}",
        f"turn totals tabulated up to {solution.cap} (beyond it rolling on counts 0"
        + ("; at this default cap doubling it changes no printed digit)" if args.cap is None else ")"),
    ]
    ranges, bank_lines = _bank_lines(solution, game)
    lines += bank_lines
    lines.append("value of rolling k dice at turn total 0 (a fresh turn has 6): "
                 + ", ".join(f"{k}: {solution.table[0, k]:.4f}" for k in range(1, 7)))  # fmt: skip
    lines.append(f"table: {path}")
    result = {
        "game": "tenthousand",
        "objective": "turn",
        "options": dict(game.options),
        "opened": opened,
        "banked": banked,
        "cap": int(cap),
        "value": solution.value,
        "roll_values_at_zero": {str(k): float(solution.table[0, k]) for k in range(1, 7)},
        "bank_from": {str(k): (found[0][0] if found else None) for k, found in ranges.items()},
        "bank_ranges": {str(k): [list(r) for r in found] for k, found in ranges.items()},
        "table": str(path),
    }
    if situation is not None:
        described = tts.describe_situation(game, situation, cap=cap, cache_dir=cache_dir, name="--describe")
        lines = _describe_result(result, described)
    if args.export is not None:
        exported = _optional("agents.solvers.export", "write_rows")(args.export, tts.BANK_COLUMNS, tts.bank_rows(solution))
        result["export"] = exported
        lines.append(
            f"bank table: {exported['rows']} rows written to {exported['path']} ({exported['format']}; "
            f"columns {', '.join(exported['columns'])})"
        )
    result["lines"] = lines
    return result


def _describe_result(result: dict, described: dict) -> list[str]:
    """Put a described situation into a solve's result (``describe``: its lines; ``situation``:
    its keys, checked and completed, with ``end_phase``, ``measure``, ``value``, ``choices``,
    ``agent``, ``agent_choice``) and return the lines to print instead of the summary's."""
    result["describe"] = list(described["lines"])
    rest = {key: value for key, value in described.items() if key not in ("lines", "situation")}
    result["situation"] = {**described["situation"], **rest}
    return list(described["lines"])


# -- Meyer -----------------------------------------------------------------------------------
def _solve_meyer(options: dict, args, cache_dir, progress: bool) -> dict:
    if args.lives_pair is not None and args.describe is None:
        raise ValueError("--lives-pair says which lives --describe shows; give --describe BEAT with it")
    if args.exploitability is None:
        for flag, value in (("--games", args.games), ("--seed", args.seed)):
            if value is not None:
                raise ValueError(
                    f"{flag} sets the simulated lower bound of --exploitability; give --exploitability SPEC with it"
                )
    if args.value is not None:
        if args.exploitability is not None:
            raise ValueError("--value and --exploitability are two measures; give one of them")
        for flag, value in (("--describe", args.describe), ("--export", args.export)):
            if value is not None:
                raise ValueError(f"{flag} shows the equilibrium's strategy; not with --value")
        spec_a, spec_b = args.value
        summary = _optional("evaluate.exploitability", "cli_head_to_head")(
            options, spec_a, spec_b, cache_dir=cache_dir, progress=progress
        )
        return {"game": "meyer", "objective": "head to head", "spec_a": spec_a, "spec_b": spec_b, **summary}
    if args.exploitability is not None:
        if args.export is not None:
            raise ValueError("--export writes the equilibrium's strategy; not with --exploitability")
        if args.describe is not None:  # how the best response exploits the agent, at one level
            for flag, value in (("--games", args.games), ("--seed", args.seed)):
                if value is not None:
                    raise ValueError(f"{flag} sets the simulated lower bound; --describe shows the exact best "
                                     "response, which needs no games")  # fmt: skip
            described = _optional("evaluate.exploitability", "cli_describe_best_response")(
                options, args.exploitability, args.describe, args.lives_pair, cache_dir=cache_dir, progress=progress
            )
            return {"game": "meyer", "objective": "best response", "spec": args.exploitability, **described}
        simulated = {key: value for key, value in (("games", args.games), ("seed", args.seed)) if value is not None}
        summary = _optional("evaluate.exploitability", "cli_summary")(
            options, args.exploitability, cache_dir=cache_dir, progress=progress, **simulated
        )
        return {"game": "meyer", "objective": "exploitability", "spec": args.exploitability, **summary}
    level = None
    if args.describe is not None:  # checked before the solve starts
        game = _optional("agents.solvers.meyer", "make_game")(options)
        parse_level = _optional("agents.solvers.meyer", "parse_level")
        level = parse_level(game, args.lives_pair, args.describe, flags=True)
    if args.export is not None:
        _optional("agents.solvers.export", "export_format")(args.export)
    summary = _optional("agents.solvers.meyer", "cli_summary")(options, cache_dir=cache_dir, progress=progress)
    result = {"game": "meyer", "objective": "value", **summary}
    lines = list(summary.get("lines", []))
    if level is not None:
        r, o, b = level
        described = _optional("agents.solvers.meyer", "describe_level")(
            options, lives=(r, o), beat=None if b < 0 else args.describe, cache_dir=cache_dir
        )
        from dice_envs.games.meyer import CLAIM_NAMES, claim_index

        tables = _optional("agents.solvers.meyer", "load_tables")(options, cache_dir=cache_dir)
        result["describe"] = described
        result["level"] = {
            "roller_lives": r,
            "responder_lives": o,
            "claim_to_beat": "start" if b < 0 else CLAIM_NAMES[claim_index(args.describe)],  # "45" is 54
            "value": float(tables["value"][r - 1, o - 1, b + 1]),
        }
        lines = list(described)  # the level instead of the summary
    if args.export is not None:
        export = _optional("agents.solvers.meyer", "export_strategy")
        exported = export(args.export, options, cache_dir=cache_dir)
        result["export"] = exported
        lines.append(
            f"equilibrium strategy: {exported['rows']} rows written to {exported['path']} "
            f"({exported['format']}; columns {', '.join(exported['columns'])}; "
            "claim rows of probability 0 left out)"
        )
    result["lines"] = lines
    return result


# -- the command -----------------------------------------------------------------------------
def _check_flags(args) -> None:
    """Refuse a flag given for a game it does not apply to."""
    per_game = {
        "--roll-limit": ("syvere", args.roll_limit is not None),
        "--opened": ("tenthousand", args.opened),
        "--banked": ("tenthousand", args.banked != 0),
        "--cap": ("tenthousand", args.cap is not None),
        "--objective": ("tenthousand", args.objective != "turn"),
        "--exploitability": ("meyer", args.exploitability is not None),
        "--games": ("meyer", args.games is not None),
        "--seed": ("meyer", args.seed is not None),
        "--value": ("meyer", args.value is not None),
        "--describe": ("meyer tenthousand syvere", args.describe is not None),
        "--lives-pair": ("meyer", args.lives_pair is not None),
        "--export": ("meyer tenthousand", args.export is not None),
    }
    for flag, (games, given) in per_game.items():
        if given and args.game not in games.split():
            where = " and of ".join(f"`solve {game}`" for game in games.split())
            raise ValueError(f"{flag} is an option of {where}, not of `solve {args.game}`")


def compute(game: str, options: dict, args, cache_dir=None, progress: bool = False) -> dict:
    """Run the solve that ``args`` asks for; returns the summary (``value``, ``lines``, ...)."""
    if game == "syvere":
        return _solve_syvere(options, args, cache_dir, progress)
    if game == "tenthousand":
        return _solve_tenthousand(options, args, cache_dir, progress)
    return _solve_meyer(options, args, cache_dir, progress)


def _fresh_solver_state(game: str) -> None:
    """Forget the in-process memos of this package's solvers, so a bench times a full build."""
    if game == "syvere":
        from agents.solvers import syvere as sy

        for memo in (sy._roll_results, sy._roll_value, sy.starter_roll_value, sy._rolls_made, sy._turn_game):
            memo.cache_clear()


def bench(game: str, options: dict, args) -> dict:
    """Time the solve built afresh (an empty cache directory), then measure its peak memory.

    Two runs: the first is timed without tracing; the second runs under :mod:`tracemalloc`
    (which slows Python code) for the peak of memory allocated during the solve. The process's
    maximum resident set size (``resource.getrusage``) is reported beside them.
    """
    figures = {}
    # The solve only: no level printed, no table exported (twice) while timing.
    args = argparse.Namespace(**{**vars(args), "describe": None, "lives_pair": None, "export": None})
    with tempfile.TemporaryDirectory() as empty:
        _fresh_solver_state(game)
        start = time.perf_counter()
        summary = compute(game, options, args, cache_dir=empty, progress=False)
        figures["seconds"] = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as empty:
        _fresh_solver_state(game)
        tracemalloc.start()
        try:
            compute(game, options, args, cache_dir=empty, progress=False)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        figures["peak_mib"] = peak / 2**20
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    figures["max_rss_mib"] = rss / 2**20 if sys.platform == "darwin" else rss / 2**10  # bytes on macOS, KiB elsewhere
    figures["value"] = summary["value"]
    return figures


def main(argv: list[str] | None = None) -> int:
    """``dice-envs solve GAME [game options] [--json] [--bench] [--cache-dir DIR] ...``; returns 0.

    Raises:
        ValueError: a bad game, option, flag or value (the message names it).
    """
    args, rest = _parser().parse_known_args(list(sys.argv[1:] if argv is None else argv))
    args.game, options = game_and_options(args.game, rest)  # `solve farkle`, `solve Meyer`
    _check_flags(args)
    cache_dir = Path(args.cache_dir) if args.cache_dir else None
    progress = not args.no_progress
    summary = compute(args.game, options, args, cache_dir=cache_dir, progress=progress)
    for line in summary.get("lines", []):
        print(line)
    if args.bench:
        figures = bench(args.game, options, args)
        print(
            f"bench: {figures['seconds']:.3f} s (built afresh, untraced); peak memory {figures['peak_mib']:.1f} MiB "
            f"(tracemalloc); max RSS of the process {figures['max_rss_mib']:.0f} MiB"
        )
        summary["bench"] = figures
    if args.json:
        data = {key: value for key, value in summary.items() if key != "lines"}
        print(strict_json.dumps(data, default=str))
    return 0
