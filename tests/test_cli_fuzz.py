"""CLI fuzz test (issue 7): the console script, run in subprocesses with malformed arguments.

Every case is built to be wrong in exactly one argument (``needle`` is how the message must name
it), and must end with: no traceback on stderr, a non-zero exit code, and ``dice-envs...: `` on
stderr naming the bad argument. Cases come from a seeded generator, so a failure is reproduced
by its seed. The default run tries a few cases; ``-m slow`` tries hundreds (set
``DICE_ENVS_CLI_FUZZ_CASES`` to change the count).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from dice_envs.cli import GAMES
from dice_envs.options import option_types

DEFAULT_CASES = 5
SLOW_CASES = int(os.environ.get("DICE_ENVS_CLI_FUZZ_CASES", "300"))
#: A case that runs longer than this has not refused its bad argument (every case here should
#: fail while parsing, in well under a second of work).
TIMEOUT = 120

# Values that are no value of any type a game option or agent parameter has.
GARBAGE = [
    "",
    " ",
    "abc",
    "1e400",
    "-1e400",
    "nan",
    "inf",
    "0x10",
    "1_000",
    "10**10**10",
    "٣",  # an Arabic-Indic digit: str.isdigit() says yes, the options must say no
    "１２",  # full-width digits
    "[" * 3000,
    "(" * 200 + ")" * 199,
    "9" * 5000,
    "-" * 3,
    "__import__('os')",
    "None",
    "1.5.5",
    "\x7f",
    "truee",
]


@dataclass
class Case:
    argv: list[str]
    needle: tuple[str, ...]  # the message must contain one of these
    what: str


def _bad_value_for(kind) -> list[str]:
    """Values that are wrong for an option of this type (type errors or out of range)."""
    if kind is bool:
        return [g for g in GARBAGE if g.strip().lower() not in ("none",)] + ["maybe", "2", "-1"]
    if kind is int:
        return GARBAGE + ["-5", "99999999999999999999", str(2**63), "3.0", "+-3"]
    return ["", "x" * 500, "\u00e6\u00f8\u00e5", "no such choice", "None", "[" * 3000]


def _option_case(rng: random.Random, command: str) -> Case:
    game = rng.choice(GAMES)
    types = option_types(game)
    name = rng.choice([n for n, k in types.items() if k in (int, bool, str) and n != "preset"])
    kind = types[name]
    value = rng.choice(_bad_value_for(kind))
    flag = "--" + name.replace("_", "-")
    word = [f"{flag}={value}"] if rng.random() < 0.3 else [flag, value]
    extra = ["--games", "1"] if command == "match" else []
    return Case([command, game, *extra, *word], (flag, name), f"bad value {value[:20]!r} for {flag}")


def generate(seed: int) -> Case:
    """One malformed command line, chosen by ``seed``."""
    rng = random.Random(seed)
    kind = rng.choice(
        ["option", "option", "option", "unknown", "missing", "seed", "games", "game", "agents", "command", "bench", "seat"]
    )
    command = rng.choice(["play", "match"])
    game = rng.choice(GAMES)
    junk = rng.choice(["colour", "num-player", "x" * 300, "lives2", "render-mode", "max-cycles", "Ā"])
    bad = rng.choice(GARBAGE[2:]).strip() or "abc"
    if kind == "option":
        return _option_case(rng, command)
    if kind == "unknown":
        return Case([command, game, f"--{junk}", "1"], (junk.replace("-", "_")[:50],), f"unknown option --{junk[:20]}")
    if kind == "missing":
        flag = "--" + rng.choice(list(option_types(game))).replace("_", "-")
        return Case([command, game, flag], (flag,), f"no value for {flag}")
    if kind == "seed":
        return Case([command, game, "--seed", bad], ("seed",), f"seed {bad[:20]!r}")
    if kind == "games":
        return Case(["match", game, "--games", rng.choice([bad, "0", "-3"])], ("games",), "bad --games")
    if kind == "game":
        # Not "Syvere": game names are read in any case now, and farkle or 10000 are aliases.
        word = rng.choice(["sy vere", "syvere2", "meyer-v0", "dice/syvere-v0x", "../etc", bad[:40]])
        sub = rng.choice(["play", "match", "solve", "tournament"])
        return Case([sub, word], ("invalid choice", word[:40], "game"), f"{sub} with game {word[:20]!r}")
    if kind == "agents":
        spec = rng.choice(
            [
                "oracle",
                "random:",
                "random:x=1",
                "bluffer:lie_probability=" + bad,
                "heuristic:stop_at=(" + bad[:30],
                "doubter:reroll=" + bad,
                ":",
                "random:seed=3",
            ]
        )
        return Case(
            ["match", "meyer" if "bluffer" in spec or "doubter" in spec else game, "--games", "1", "--agents", spec, "random"],
            ("agent", "SPEC"),
            f"bad SPEC {spec[:30]!r}",
        )
    if kind == "command":
        word = rng.choice(["plya", "matches", "--bench", bad[:30] or "x"])
        return Case([word, game], ("invalid choice", "unknown arguments", "unrecognized", word[:30]), f"command {word[:20]!r}")
    if kind == "bench":
        flag = rng.choice(["--steps", "--rounds"])
        return Case(["bench", flag, rng.choice([bad, "0", "-1"])], (flag,), f"bench {flag}")
    return Case(["play", game, "--seat", rng.choice(["-1", "9", bad])], ("seat",), "bad --seat")


def run(case: Case) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "dice_envs.cli", *case.argv],
        stdin=subprocess.DEVNULL,  # a `play` that started anyway ends at once, exit 0: caught below
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    return proc.returncode, proc.stderr


def check(seed: int, case: Case, code: int, err: str) -> None:
    where = f"seed {seed}: {case.what}: dice-envs {' '.join(a[:40] for a in case.argv)}"
    assert "Traceback" not in err, f"{where}\n{err[-2000:]}"
    assert code != 0, f"{where}: exit 0"
    # Our message, or argparse's "dice-envs COMMAND: error: ..." line after its usage lines.
    assert any(line.startswith("dice-envs") for line in err.splitlines()), f"{where}: stderr {err[:300]!r}"
    assert any(n.lower() in err.lower() for n in case.needle), f"{where}: message does not name it: {err[:300]!r}"


def fuzz(seeds) -> None:
    cases = [(seed, generate(seed)) for seed in seeds]
    # Two at a time: each case is a Python start-up, mostly waiting on imports.
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda item: run(item[1]), cases))
    failures = []
    for (seed, case), (code, err) in zip(cases, results):
        try:
            check(seed, case, code, err)
        except AssertionError as exc:
            failures.append(str(exc).split("\nassert")[0])
    assert not failures, f"{len(failures)} of {len(cases)} cases failed:\n" + "\n".join(failures)


def test_generated_cases_are_malformed_in_the_way_they_say():
    # The generator itself: every kind of case turns up, and a case is the same for its seed.
    whats = [generate(seed).what.split()[0] for seed in range(300)]
    assert {"bad", "unknown", "no", "seed", "play", "match", "command", "bench"} <= set(whats)
    assert generate(17) == generate(17)


KNOWN = [
    (["match", "meyer", "--lives", "9" * 5000], "--lives"),
    (["play", "syvere", "--max-rolls", "[" * 3000], "--max-rolls"),
    (["match", "tenthousand", "--target", "10**10**10"], "--target"),
    (["match", "syvere", "--games", "1", "--agents", "heuristic:stop_at=(7,٣)", "random"], "stop_at"),
]


def test_known_pathological_values_exit_2_naming_them():
    cases = [Case(argv, (needle,), "known") for argv, needle in KNOWN]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run, cases))
    for case, (code, err) in zip(cases, results):
        check(-1, case, code, err)
        assert code == 2


def test_cli_fuzz_short():
    fuzz(range(DEFAULT_CASES))


@pytest.mark.slow
def test_cli_fuzz_long():
    fuzz(range(1000, 1000 + SLOW_CASES))
