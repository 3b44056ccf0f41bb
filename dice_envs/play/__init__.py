"""Play a game in the terminal against built-in agents.

The loop is the same for every game. A game may add a hook module ``dice_envs.play.<game>`` with
any of these functions:

* ``describe(game, state, seat) -> str``: extra lines shown before the person's prompt;
* ``parse(game, state, text) -> int``: the person's input as a legal action id, or ``ValueError``
  with a message for the person;
* ``render_for(game, state, seat) -> str``: the table as that seat sees it (games with hidden
  information); without it the loop shows ``game.render(state)``.

Whatever the hooks do, the loop also accepts a rule-book action string (``roll``); games without
a ``parse`` hook get a numbered list of their legal actions. ``q`` quits.
"""

from __future__ import annotations

import importlib
from typing import Callable

from agents import BEST, make_agent
from dice_envs.registry import env_module

QUIT = ("q", "quit", "exit")


class _Quit(Exception):
    pass


def _hooks(game_name: str):
    try:
        return importlib.import_module(f"dice_envs.play.{game_name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"dice_envs.play.{game_name}":
            raise
        return None


def _ask(game, state, hooks, legal, read: Callable[[str], str], write) -> int:
    """Ask until the person gives a legal action; raises _Quit on q, end of input or Ctrl-C."""
    while True:
        try:
            text = read("> ").strip()
        except (EOFError, KeyboardInterrupt):
            write("")
            raise _Quit from None
        if text.lower() in QUIT:
            raise _Quit
        if not text:
            continue
        parse = getattr(hooks, "parse", None)
        if parse is None and text.isdigit() and int(text) < len(legal):
            return legal[int(text)]
        try:
            return game.string_to_action(state, text)
        except ValueError as exc:
            message = str(exc)
        if parse is not None:
            try:
                return parse(game, state, text)
            except ValueError as exc:
                message = str(exc)
        write(f"  {message}")
        write("  Try again (q quits).")


def play(
    game_name: str,
    options: dict | None = None,
    seat: int = 0,
    opponents: str | None = None,
    seed: int | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> tuple[float, ...] | None:
    """Play one game in the terminal; return the returns per seat, or ``None`` if the person quit.

    Args:
        game_name: ``syvere``, ``tenthousand`` or ``meyer`` (or a registry id).
        options: the game's options (``num_players`` among them).
        seat: the person's seat.
        opponents: the built-in agent that plays every other seat; by default the game's
            strongest (``agents.BEST``).
        seed: seeds the dice and the opponents.
        read, write: input and output (tests pass their own).
    """
    raw = env_module(game_name).raw_env(render_mode="ansi", **(options or {}))
    game = raw.game
    if not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0..{game.num_players - 1}, got {seat}")
    hooks = _hooks(game.name)
    opponents = opponents or BEST.get(game.name, "random")
    bots = {
        s: make_agent(game, opponents, seed=None if seed is None else seed + s)
        for s in range(game.num_players)
        if s != seat
    }

    def table(state) -> str:
        if hooks is not None and hasattr(hooks, "render_for"):
            return hooks.render_for(game, state, seat)
        return game.render(state)

    write(f"{game.name}: you are player_{seat}, against {game.num_players - 1} x {opponents}. q quits.")
    raw.reset(seed=seed)
    for line in raw.log_lines[1:]:
        write(f"  {line}")
    try:
        for agent_id in raw.agent_iter():
            obs, _, term, trunc, _ = raw.last()
            if term or trunc:
                raw.step(None)
                continue
            acting = int(agent_id.rsplit("_", 1)[1])
            state = raw.state
            if acting == seat:
                legal = game.legal_actions(state)
                write("")
                write(table(state))
                if hooks is not None and hasattr(hooks, "describe"):
                    write(hooks.describe(game, state, seat))
                if not hasattr(hooks, "parse") and len(legal) <= 12:
                    names = (f"[{i}] {game.action_to_string(state, a)}" for i, a in enumerate(legal))
                    write("  " + "   ".join(names))
                action = _ask(game, state, hooks, legal, read, write)
            else:
                action = bots[acting].act(obs["observation"], obs["action_mask"])
            raw.step(action)
            for line in raw.log_lines:
                write(f"  {line}")
    except _Quit:
        write("You left the game.")
        return None
    write("")
    write(table(raw.state))
    returns = game.returns(raw.state)
    verdict = "You win!" if returns[seat] > 0 else ("A complete tie." if not any(returns) else "You lose.")
    write(verdict)
    return returns
