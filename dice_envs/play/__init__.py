"""Play a game in the terminal against built-in agents.

The loop is the same for every game; each game has a hook module ``dice_envs.play.<game>`` with:

* ``describe(game, state, seat) -> str``: lines shown before the person's prompt;
* ``parse(game, state, text) -> int``: the person's input (short forms and the rule-book action
  strings) as a legal action id, or ``ValueError`` with a message for the person;
* optionally ``render_for(game, state, seat) -> str``: the table as that seat sees it (games with
  hidden information); without it the loop shows ``game.render(state)``.

``help`` or ``?`` shows the choices again; ``q`` or end of input quits (the game is left,
:func:`play` returns ``None``); Ctrl-C is not caught here, so that every command treats it alike
(``dice-envs`` exits 130).
"""

from __future__ import annotations

import importlib
from typing import Callable, Sequence

from agents import BEST, make_agent
from dice_envs.dice import sub_seed
from dice_envs.options import check_game_options
from dice_envs.registry import env_module

QUIT = ("q", "quit", "exit")
HELP = ("help", "?", "h")
MAX_INPUT = 80  # longer input is refused without being shown again


class _Quit(Exception):
    pass


def _ask(game, state, hooks, show: Callable[[], None], read: Callable[[str], str], write) -> int:
    """Ask until the person gives a legal action; raises _Quit on q or end of input; ``help`` or
    ``?`` shows the table and the choices again (``show()``)."""
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


def play(
    game_name: str,
    options: dict | None = None,
    seat: int = 0,
    opponents: str | Sequence[str] | None = None,
    seed: int | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> tuple[float, ...] | None:
    """Play one game in the terminal; return the returns per seat, or ``None`` if the person quit.

    Args:
        game_name: ``syvere``, ``tenthousand`` or ``meyer`` (or a registry id).
        options: the game's options (``num_players`` among them).
        seat: the person's seat.
        opponents: a SPEC (``NAME``, ``NAME:KEY=VALUE,...`` or a checkpoint path) for the
            agent that plays every other seat, or a list of one SPEC per other seat in seat
            order; by default the game's hand-written opponent (``agents.BEST``: ``heuristic``,
            or ``doubter`` in Meyer).
        seed: seeds the dice and the opponents.
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
    seat_specs = dict(zip(others, specs * len(others) if len(specs) == 1 else specs))
    bots = {s: make_agent(game, spec, seed=None if seed is None else sub_seed(seed, s)) for s, spec in seat_specs.items()}
    if len(specs) == 1:
        against = f"{len(others)} x {specs[0]}"
    else:
        against = ", ".join(f"{spec} (player_{s})" for s, spec in seat_specs.items())

    def table(state) -> str:
        if hasattr(hooks, "render_for"):
            return hooks.render_for(game, state, seat)
        return game.render(state)

    write(f"{game.name}: you are player_{seat}, against {against}. q quits, ? shows the table and the choices again.")
    raw.reset(seed=seed)
    for s, bot in bots.items():  # the agents' optional seat hook (agents.base.Agent.set_seat)
        tell = getattr(bot, "set_seat", None)
        if tell is not None:
            tell(s)
    for line in raw.log_lines[1:]:
        write(f"  {line}")
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
            raw.step(action)
            for line in raw.log_lines:
                write(f"  {line}")
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
