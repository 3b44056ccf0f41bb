"""Play a game in the terminal against built-in agents.

The loop is the same for every game; each game has a hook module ``dice_envs.play.<game>`` with:

* ``describe(game, state, seat) -> str``: lines shown before the person's prompt;
* ``parse(game, state, text) -> int``: the person's input (short forms and the rule-book action
  strings) as a legal action id, or ``ValueError`` with a message for the person;
* ``rules(game) -> str``: a short summary of the rules as this game is configured (its options and
  preset), shown on ``rules``;
* optionally ``render_for(game, state, seat) -> str``: the table as that seat sees it (games with
  hidden information, or wording of the play layer's own); without it the loop shows
  ``game.render(state)``;
* optionally ``start_lines(game) -> list[str]``: told once, as the game starts;
* optionally ``annotate(game, line) -> str``: a log line with what a person should also be told.

At the prompt ``help`` or ``?`` shows the choices again, ``rules`` the rules; ``q`` or end of input
quits (the game is left, :func:`play` returns ``None``); Ctrl-C is not caught here, so that every
command treats it alike (``dice-envs`` exits 130). A game played without a seed draws one and
prints it, so that it can be replayed with ``--seed``.
"""

from __future__ import annotations

import importlib
import secrets
import sys
from typing import Callable, Sequence

from agents import BEST, make_agent
from dice_envs.dice import sub_seed
from dice_envs.options import check_game_options
from dice_envs.registry import env_module

QUIT = ("q", "quit", "exit")
HELP = ("help", "?", "h")
RULES = ("rules", "rule", "regler")
SKIP = ("s", "skip")
#: The most decisions the agents may take once the person is out (as a tournament's default
#: ``--max-decisions``): agents alone can keep some games going for ever (Meyer under
#: ``claim_rule="at_least"``, every claim believed and equalled), and nobody is left to stop them.
MAX_DECISIONS_WITHOUT_YOU = 1_000_000
YES = ("y", "yes", "j", "ja")
MAX_INPUT = 80  # longer input is refused without being shown again
#: Seeds drawn for a game played without one: short enough to type again after --seed.
DRAWN_SEEDS = 10**9


class _Quit(Exception):
    pass


def _ask(game, state, hooks, show: Callable[[], None], read: Callable[[str], str], write) -> int:
    """Ask until the person gives a legal action; raises _Quit on q or end of input; ``help`` or
    ``?`` shows the table and the choices again (``show()``), ``rules`` the rules."""
    while True:
        try:
            text = read("> ").strip()
        except EOFError:
            write("")
            raise _Quit from None
        if text.lower() in QUIT:
            raise _Quit
        if not text:
            continue
        if text.lower() in HELP:
            show()
            write("  (rules: the rules of this game; q: quit)")
            continue
        if text.lower() in RULES:
            write(hooks.rules(game))
            continue
        if len(text) > MAX_INPUT:  # not echoed back in the error message
            write(f"  That line is {len(text)} characters long; an answer is a few.")
            write("  Try again (q quits).")
            continue
        try:
            return hooks.parse(game, state, text)
        except ValueError as exc:
            write(f"  {exc}")
            write("  Try again (q quits).")


def _skip_the_rest(read: Callable[[str], str], write) -> bool:
    """The person is out and the others play on: whether to skip to the result (``s``; also at the
    end of input), or watch (anything else); ``q`` leaves."""
    write("")
    write("You are out: you have no more turns. Press Enter to watch the rest, or s to skip to the result.")
    try:
        text = read("> ").strip().lower()
    except EOFError:
        write("")
        return True
    if text in QUIT:
        raise _Quit
    return text in SKIP


def play(
    game_name: str,
    options: dict | None = None,
    seat: int = 0,
    opponents: str | Sequence[str] | None = None,
    seed: int | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> tuple[float, ...] | None:
    """Play one game in the terminal; return the returns per seat, or ``None`` if the person quit
    (or, once the person was out, the agents took :data:`MAX_DECISIONS_WITHOUT_YOU` decisions without
    ending the game).

    Args:
        game_name: ``syvere``, ``tenthousand`` or ``meyer`` (or a registry id).
        options: the game's options (``num_players`` among them).
        seat: the person's seat.
        opponents: a SPEC (``NAME``, ``NAME:KEY=VALUE,...`` or a checkpoint path) for the
            agent that plays every other seat, or a list of one SPEC per other seat in seat
            order; by default the game's hand-written opponent (``agents.BEST``: ``heuristic``,
            or ``doubter`` in Meyer).
        seed: seeds the dice and the opponents; without one a seed is drawn and printed, so that
            the game can be played again with it.
        read, write: input and output (tests pass their own).

    Raises:
        ValueError: a bad option, seat or SPEC.
        KeyboardInterrupt: Ctrl-C, left to the caller (the command line exits 130).
    """
    # The loop renders by itself and plays the game to its end: render_mode and max_cycles are
    # the env's, not the game's, and are refused.
    options = check_game_options(game_name, options or {}, refused="play: the game is shown and played to its end")
    raw = env_module(game_name).raw_env(render_mode="ansi", **options)
    game = raw.game
    if not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0..{game.num_players - 1}, got {seat}")
    hooks = importlib.import_module(f"dice_envs.play.{game.name}")
    others = [s for s in range(game.num_players) if s != seat]
    specs = [opponents] if isinstance(opponents, str) else list(opponents or [])
    specs = specs or [BEST.get(game.name, "random")]
    if len(set(specs)) == 1:
        specs = specs[:1]
    if len(specs) not in (1, len(others)):
        raise ValueError(
            f"--opponents takes one SPEC for every other seat, or one SPEC per other seat ({len(others)} here: "
            f"{', '.join(f'player_{s}' for s in others)}); got {len(specs)}: {', '.join(map(repr, specs))} "
            "(to rank agents against each other: dice-envs match or tournament)"
        )
    drawn = seed is None
    if seed is None:
        seed = secrets.randbelow(DRAWN_SEEDS)
    seat_specs = dict(zip(others, specs * len(others) if len(specs) == 1 else specs))
    bots = {s: make_agent(game, spec, seed=sub_seed(seed, s)) for s, spec in seat_specs.items()}
    if len(specs) == 1:
        against = f"{len(others)} x {specs[0]}"
    else:
        against = ", ".join(f"{spec} (player_{s})" for s, spec in seat_specs.items())

    def table(state) -> str:
        if hasattr(hooks, "render_for"):
            return hooks.render_for(game, state, seat)
        return game.render(state)

    annotate = getattr(hooks, "annotate", None)

    def log(lines) -> None:
        for line in lines:
            write(f"  {annotate(game, line) if annotate else line}")

    write(f"{game.name}: you are player_{seat}, against {against}.")
    write("Type 'rules' for the rules of this game, '?' for the table and your choices again, 'q' to quit.")
    if drawn:
        write(f"seed {seed} (to play this game again: --seed {seed})")
    raw.reset(seed=seed)
    for s, bot in bots.items():  # the agents' optional seat hook (agents.base.Agent.set_seat)
        tell = getattr(bot, "set_seat", None)
        if tell is not None:
            tell(s)
    log(getattr(hooks, "start_lines", lambda game: [])(game))
    log(raw.log_lines[1:])
    # Games where a player can be out (Syvere, Meyer) have still_in(state); in 10 000 nobody leaves.
    still_in: Callable[[object], Sequence[int]] = getattr(game, "still_in", lambda state: range(game.num_players))
    out_asked = quiet = False
    without_you = 0  # the agents' decisions since the person went out
    try:
        for agent_id in raw.agent_iter():
            obs, _, term, trunc, _ = raw.last()
            if term or trunc:
                raw.step(None)
                continue
            acting = int(agent_id.rsplit("_", 1)[1])
            state = raw.game_state
            if acting == seat:

                def show(state=state) -> None:
                    write(table(state))
                    write(hooks.describe(game, state, seat))

                write("")
                show()
                action = _ask(game, state, hooks, show, read, write)
            else:
                action = bots[acting].act(obs["observation"], obs["action_mask"])
                if out_asked:
                    without_you += 1
                    if without_you > MAX_DECISIONS_WITHOUT_YOU:
                        write(f"The others have taken {MAX_DECISIONS_WITHOUT_YOU:,} decisions since you went out and the "
                              "game is not over (agents alone can go on for ever here): stopped, with no result.")
                        return None
            raw.step(action)
            if not quiet:
                log(raw.log_lines)
            state = raw.game_state
            if seat not in still_in(state) and not out_asked and not game.is_terminal(state):
                out_asked = True
                # Two or more others play on without the person (more than the rest of a round): watch
                # them, or skip to the end.
                if len(still_in(state)) >= 2:
                    quiet = _skip_the_rest(read, write)
    except _Quit:
        write("You left the game.")
        return None
    write("")
    write(table(raw.game_state))
    returns = game.returns(raw.game_state)
    if returns[seat] > 0:
        shared = sum(r > 0 for r in returns)
        verdict = "You win!" if shared == 1 else f"You share the win with {shared - 1} other{'s' if shared > 2 else ''}."
    else:
        verdict = "A complete tie." if not any(returns) else "You lose."
    write(verdict)
    return returns


def play_series(
    game_name: str,
    options: dict | None = None,
    seat: int = 0,
    opponents: str | Sequence[str] | None = None,
    seed: int | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    again: bool = False,
) -> list[tuple[float, ...]]:
    """Play games with :func:`play` until the person leaves; return the returns of every finished game.

    With ``again`` the person is asked "Play again? [y/N]" after each finished game (the command line
    asks only when its input is a terminal, so a piped script ends with its game); the next game
    draws a new seed, and the running score is told.
    """
    results: list[tuple[float, ...]] = []
    while True:
        returns = play(game_name, options, seat=seat, opponents=opponents, seed=seed, read=read, write=write)
        if returns is None:
            break
        results.append(returns)
        if not again:
            break
        won = sum(r[seat] > 0 for r in results)
        if len(results) > 1:
            write(f"You have won {won} of {len(results)} games.")
        try:
            answer = read("Play again? [y/N] ").strip().lower()
        except EOFError:
            write("")
            break
        if answer not in YES:
            break
        write("")
        seed = None  # a new game, not the same one again
    return results


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)


def terminal_reader(echo: bool) -> Callable[[str], str]:
    """``input`` for the command line: with ``echo`` (input that is not a terminal, as a piped
    script) each answer is printed after its prompt, so that a transcript reads ``> r``; at a
    terminal ``readline`` gives line editing and history, where the platform has it."""
    if not echo:
        try:
            import readline  # noqa: F401  (imported for its effect on input())
        except ImportError:
            pass

    def read(prompt: str) -> str:
        text = input(prompt)
        if echo:
            shown = _printable(text.strip())
            print(shown if len(shown) <= MAX_INPUT else shown[:MAX_INPUT] + "...", flush=True)
        return text

    return read


def stdin_is_terminal() -> bool:
    """Whether the person types at a terminal (not a pipe or a file)."""
    stream = sys.stdin
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stdin
        return False
