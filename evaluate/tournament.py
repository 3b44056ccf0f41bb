"""Tournaments: every entrant against every other, seats balanced, common dice, results kept.

A tournament is fixed by its game and options, its entrants (SPECs, see ``agents.spec``), the number
of deals ``games`` and a ``seed``. :func:`schedule` lays out its games, :func:`play_game` plays one
on the rules engine directly, and :func:`run_tournament` plays the ones a results store does not
hold yet, across processes, and returns every game of the tournament.

Formats (docs/tournaments.md):

* **Tables.** A table is a set of ``num_players`` entrants; every such set of the entrants is a
  table (for two-player games: every pair). Every pair of entrants therefore meets in the same
  number of tables, and adding an entrant adds only the tables it sits at: the old tables keep their
  games.
* **Seats.** Deal ``d`` of a table is played in each of the ``num_players`` cyclic rotations ``r``
  of one order around the table: entrant ``i`` of that order sits at seat ``(i + r) %
  num_players``. Every entrant therefore sits in every seat of every table exactly ``games`` times,
  and ``--games N`` means N deals per table, ``N * num_players`` games. With two players the order
  is the table's (label order); with three or more, every block of ``(P - 1)!`` deals plays each
  cyclic order of the table once, in a keyed shuffle (:func:`deal_order`), so who plays after whom
  varies from deal to deal, comes up equally often, and does not depend on how the labels sort: in
  Meyer the claims one answers are the previous player's, and one fixed order for every deal moved
  a 3-player result from 0.85 to 0.52 when an entrant was only renamed.
* **Common dice.** A roll's faces are a function of (seed, table, deal, turn number, roll number
  within the turn) only (:class:`Moments`), not drawn from one stream: the rotations of a deal
  meet the same dice at the same moment of the game (turn 3's second roll is the same in every
  rotation), so what one entrant rolled in one seating its opponent rolls in the other. With ``dice="independent"`` the
  rotation joins the key, which gives independent games (for measuring what common dice gain).
* **Agents** are reset before every game with a seed keyed by (seed, table, deal, entrant label):
  results depend neither on the number of worker processes nor on the order games are played in.
  After the reset each agent is told its seat in that game (``set_seat``, where the agent has it:
  :class:`agents.base.Agent`), since some agents' play depends on it and their observations do
  not always show it.

Example:
    >>> from evaluate.tournament import schedule
    >>> tasks = schedule(["a", "b", "c"], num_players=2, games=1, seed=0)
    >>> [(t.table, t.rotation, t.seats) for t in tasks][:2]
    [(('a', 'b'), 0, ('a', 'b')), (('a', 'b'), 1, ('b', 'a'))]
"""

from __future__ import annotations

import gc
import hashlib
import itertools
import json
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
# typeshed does not declare ExceptionWithTraceback (a helper of multiprocessing.pool since Python 3.4)
from multiprocessing.pool import ExceptionWithTraceback  # type: ignore[attr-defined]
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from dice_envs import dice as dice_mod
from dice_envs.cli import CommandFailed
from dice_envs.options import game_class

DICE_MODES = ("common", "independent")
#: The default cap on one game's decisions (``--max-decisions``): a game not over by then stops the
#: run with :class:`GameTooLong`. Agents can keep some games going for ever (in Meyer under
#: ``claim_rule="at_least"``, a round lasts while every claim is believed and equalled).
MAX_DECISIONS = 1_000_000


# -- entrants -----------------------------------------------------------------------------------
def base_label(game_name: str, spec: str) -> str:
    """A readable label for one SPEC: the SPEC without spaces, a checkpoint by its directory's name
    (a training run's ``RUN/policy`` by the run's name).

    Raises:
        ValueError: the SPEC cannot be read (an unknown agent lists the game's agents).

    >>> base_label("meyer", "bluffer: lie_probability=0.3")
    'bluffer:lie_probability=0.3'
    >>> base_label("syvere", "runs/syvere-ppo/final/policy.safetensors")
    'final'
    """
    from agents.spec import parse_spec

    name, params = parse_spec(game_name, spec)
    if isinstance(name, os.PathLike):
        from agents.checkpoint import checkpoint_dir

        folder = checkpoint_dir(name).resolve()
        # A training run's latest checkpoint is RUN/policy: the run's name says more than "policy".
        if folder.name == "policy" and folder.parent.name:
            label = folder.parent.name
        else:
            label = folder.name or str(name)
        if params:  # RUN/policy:greedy=false is another entrant than RUN/policy: run1:greedy=false
            label += ":" + "".join(spec.rpartition(":")[2].split())
        return label
    return "".join(spec.split())


def make_labels(game_name: str, specs: Sequence[str]) -> list[str]:
    """Unique, readable labels for the entrants, in the order given.

    A SPEC given twice is two entrants: the second is labelled ``NAME#2``, the third ``NAME#3``.

    >>> make_labels("meyer", ["random", "honest", "random"])
    ['random', 'honest', 'random#2']
    """
    for spec in specs:
        if not isinstance(spec, str) or not spec.strip():
            raise ValueError(f"an agent SPEC is a non-empty string, got {spec!r}")
    return unique_labels([base_label(game_name, spec) for spec in specs])


def unique_labels(names: Sequence[str]) -> list[str]:
    """``names`` made unique: a name's second entry becomes ``NAME#2``, its third ``NAME#3``.

    Tournaments and matches both label their entrants with it, so the same SPECs get the same
    labels in both (the dice are keyed by the table, which a match takes in the order given and a
    tournament sorts: the same games when the match lists its entrants sorted).

    >>> unique_labels(["random", "honest", "random", "random"])
    ['random', 'honest', 'random#2', 'random#3']
    """
    labels: list[str] = []
    for label in names:
        if label in labels:
            k = 2
            while f"{label}#{k}" in labels:
                k += 1
            label = f"{label}#{k}"
        labels.append(label)
    return labels


def agent_fingerprint(agent) -> str | None:
    """SHA-256 of the checkpoint files an agent plays from (trained agents), else ``None``.

    A results store keeps it beside the label, so that a retrained checkpoint under the same name
    is not mistaken for the one whose games are stored.
    """
    path = getattr(getattr(agent, "policy", None), "path", None)
    if path is None:
        return None
    digest = hashlib.sha256()
    found = False
    for name in ("policy.safetensors", "policy.json"):
        file = os.path.join(os.fspath(path), name)
        if os.path.isfile(file):
            found = True
            with open(file, "rb") as handle:
                digest.update(name.encode() + b"\0" + handle.read())
    return digest.hexdigest() if found else None


# -- games and options --------------------------------------------------------------------------
def env_id(game_name: str) -> str:
    """The registry id of a game's env (its version included), by short name."""
    from dice_envs import registry

    module = registry.env_module(game_name).__name__
    return next(full for full, mod in registry.ENVS.items() if mod == module)


def _jsonable(value):
    if isinstance(value, (bool, str)) or value is None:
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    return str(value)


def effective_options(game_name: str, game) -> dict:
    """The options a built engine plays by, every one of them, JSON-able and sorted by name.

    Two option dicts that build the same game (``{}`` and ``{"num_players": 2}``) give the same
    result, which is what a results store compares.
    """
    from dice_envs.options import option_types

    result = {}
    for name in option_types(game_name):
        if hasattr(game, name):
            result[name] = _jsonable(getattr(game, name))
    return dict(sorted(result.items()))


def default_num_players(game_name: str) -> int:
    """The game's default table size (its engine's default ``num_players``)."""
    from dice_envs.options import option_defaults

    return int(option_defaults(game_name).get("num_players", 2))


def build_game(game_name: str, options: dict | None):
    """The engine of ``game_name`` built from ``options`` (``ValueError`` naming a bad one)."""
    options = dict(options or {})
    for name in ("max_cycles", "render_mode"):
        if name in options:
            raise ValueError(f"{name} is not an option of a tournament: its games are played to the end, unseen")
    return game_class(game_name)(**options)


# -- schedule -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameTask:
    """One game of a tournament.

    Attributes:
        seed: the tournament's seed.
        table: the table's entrants, in label order (a match's: in the order given).
        deal: the deal, 0..games-1.
        rotation: entrant ``i`` of the deal's order (:func:`deal_order`) sits at seat
            ``(i + rotation) % len(table)``.
        dice: ``"common"`` or ``"independent"``.
        max_decisions: the cap on the game's decisions (:data:`MAX_DECISIONS`). It travels with
            the task to the workers (local or Ray) but is no part of the game's identity (``key``,
            equality): a game that ends under one cap is the same game under any cap it fits in.
    """

    seed: int
    table: tuple[str, ...]
    deal: int
    rotation: int
    dice: str = "common"
    max_decisions: int = field(default=MAX_DECISIONS, compare=False, repr=False)

    @property
    def seats(self) -> tuple[str, ...]:
        """The entrants' labels in seat order."""
        order = deal_order(self.seed, self.table, self.deal)
        n = len(order)
        return tuple(order[(s - self.rotation) % n] for s in range(n))

    @property
    def table_key(self) -> str:
        """The table as one string (labels joined by ``|``), as the store keeps it."""
        return "|".join(self.table)

    @property
    def key(self) -> tuple:
        """What identifies the game in a results store."""
        return (self.seed, self.dice, self.table_key, self.deal, self.rotation)


#: How seats are laid out (a results store records it; see the module docstring). A store of
#: tables of 3+ made under another layout holds other seatings under the same keys.
SEATING = "cyclic orders balanced per block of deals"


@lru_cache(maxsize=64)
def _cyclic_orders(table: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The ``(P - 1)!`` orders around a table of P, one per cyclic class (the first entrant fixed)."""
    return [(table[0], *rest) for rest in itertools.permutations(table[1:])]


@lru_cache(maxsize=256)
def _block_shuffle(seed: int, table: tuple[str, ...], block: int) -> tuple[int, ...]:
    """A keyed shuffle of the table's cyclic orders for one block of ``(P - 1)!`` deals."""
    key = "|".join(table)
    count = len(_cyclic_orders(table))
    return tuple(sorted(range(count), key=lambda i: _hasher("seating", seed, key, block, i).digest()))


@lru_cache(maxsize=4096)
def deal_order(seed: int, table: tuple[str, ...], deal: int) -> tuple[str, ...]:
    """The order around the table whose rotations play deal ``deal``.

    Two players: the table itself (both seatings of a pair are its rotations). More: the deals
    run in blocks of ``(P - 1)!``, and each block plays every cyclic order of the table once, in
    a shuffle keyed by (seed, table, block), the same in every process. So who plays after whom
    does not follow the labels, and over every block each neighbour relation comes up equally
    often (a uniform draw per deal would balance them only on average).

    >>> deal_order(0, ("a", "b"), 5)
    ('a', 'b')
    >>> sorted(deal_order(0, ("a", "b", "c"), 5))
    ['a', 'b', 'c']
    >>> sorted({deal_order(0, ("a", "b", "c"), d) for d in (0, 1)})  # a block of 2! deals: both orders
    [('a', 'b', 'c'), ('a', 'c', 'b')]
    """
    if len(table) <= 2:
        return table
    orders = _cyclic_orders(table)
    block, k = divmod(deal, len(orders))
    return orders[_block_shuffle(seed, table, block)[k]]


def tables(labels: Sequence[str], num_players: int) -> list[tuple[str, ...]]:
    """Every set of ``num_players`` entrants, each in label order, the sets in label order."""
    if num_players < 2:
        raise ValueError(f"a table has at least 2 seats, got num_players={num_players}")
    if len(labels) < num_players:
        raise ValueError(
            f"{len(labels)} entrant{'s' if len(labels) != 1 else ''} for tables of {num_players}: "
            f"give at least {num_players} agents (a SPEC may be given twice)"
        )
    if len(set(labels)) != len(labels):
        raise ValueError(f"entrant labels must be unique, got {list(labels)}")
    return list(itertools.combinations(sorted(labels), num_players))


def check_max_decisions(max_decisions) -> int:
    """``max_decisions`` as an int (``None``: :data:`MAX_DECISIONS`), or ``ValueError`` if it is not a
    whole number >= 1."""
    if max_decisions is None:
        return MAX_DECISIONS
    if isinstance(max_decisions, bool) or not isinstance(max_decisions, (int, np.integer)) or max_decisions < 1:
        raise ValueError(f"--max-decisions must be a whole number >= 1, got {max_decisions!r}")
    return int(max_decisions)


def schedule(
    labels: Sequence[str], num_players: int, games: int, seed: int, dice: str = "common",
    max_decisions: int = MAX_DECISIONS,
) -> list[GameTask]:
    """Every game of a tournament: each table, each deal, each rotation of the seats.

    Args:
        labels: the entrants' unique labels.
        num_players: seats per table.
        games: deals per table; every deal is played in all ``num_players`` rotations.
        seed: the tournament seed.
        dice: ``"common"`` (the rotations of a deal share their dice) or ``"independent"``.
        max_decisions: the cap on each game's decisions (see :class:`GameTask`).
    """
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"--games (deals per table) must be a whole number >= 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"--seed must be a whole number >= 0, got {seed!r}")
    if dice not in DICE_MODES:
        raise ValueError(f"dice must be one of {', '.join(DICE_MODES)}, got {dice!r}")
    max_decisions = check_max_decisions(max_decisions)
    return [
        GameTask(int(seed), table, deal, rotation, dice, max_decisions)
        for table in tables(labels, num_players)
        for deal in range(int(games))
        for rotation in range(num_players)
    ]


# -- keyed randomness ---------------------------------------------------------------------------
def _hasher(*parts) -> hashlib.blake2b:
    """A BLAKE2b hasher fed with the parts, unambiguously separated."""
    h = hashlib.blake2b(digest_size=32)
    for part in parts:
        data = str(part).encode()
        h.update(len(data).to_bytes(4, "little"))
        h.update(data)
    return h


def keyed_seed(*parts) -> int:
    """A 63-bit seed that is a function of the parts only (for agents' generators)."""
    return int.from_bytes(_hasher(*parts).digest()[:8], "little") >> 1


class KeyedDice:
    """Dice of one game as a function of (key, moment): the moment is (turn, roll within it).

    The faces of a roll come from BLAKE2b of the key and the moment: bytes below 252 give face
    ``byte % 6 + 1`` (252 is a multiple of 6, so every face has probability exactly 1/6), larger
    bytes are skipped. No generator state is carried from roll to roll, which is what lets two
    games that took different courses meet the same dice again at the next turn.
    """

    def __init__(self, *key):
        self._prefix = _hasher(*key)

    def roll(self, k: int, moment: tuple) -> tuple[int, ...]:
        """The ``k`` dice (sorted) rolled at ``moment`` (see :class:`Moments`)."""
        faces: list[int] = []
        block = 0
        while len(faces) < k:
            h = self._prefix.copy()
            h.update(f"|{moment}|{block}".encode())
            for byte in h.digest():
                if byte < 252:
                    faces.append(byte % 6 + 1)
                    if len(faces) == k:
                        break
            block += 1
        return tuple(sorted(faces))


def turn_marker(game, state):
    """A value that changes exactly when a new turn begins, read at a chance state.

    Syvere: the round and the position in it. 10 000: the turn counter (hot dice keep the turn).
    Meyer: the round, the player to roll and the claim to beat (a blind reroll keeps all three:
    it is the turn's second roll). Any other engine: the player to roll.
    """
    name = game.name
    if name == "syvere":
        return state.round, state.turn
    if name == "tenthousand":
        return state.turn
    if name == "meyer":
        return state.round, state.actor, state.claim
    return game.current_player(state)


class Moments:
    """Numbers the rolls of one game as (turn number, roll number within the turn).

    This is the moment of the game the common dice are keyed by (docs/tournaments.md). Turns are counted
    from the start of the game. In a two-player game the seat whose turn it is then depends only
    on the turn number for as long as the two seatings' courses agree (and in Meyer always: the
    doubter, who starts the next round, is never the player who rolled last), so the dice one
    entrant met in turn 5 of one seating are the dice its opponent meets in turn 5 of the other.
    Numbering turns within rounds instead was measured to lose that pairing in Meyer: its
    intervals came out wider than with independent dice (``python -m evaluate.bench dice``).

    Example:
        >>> from dice_envs.games import syvere
        >>> g = syvere.Game()
        >>> Moments(g).next(g.initial_state())
        (0, 0)
    """

    def __init__(self, game):
        self.game = game
        self._marker = object()
        self._turn = -1
        self._roll = 0

    def next(self, state) -> tuple[int, int]:
        """The moment of the roll about to be made at chance state ``state``."""
        marker = turn_marker(self.game, state)
        if marker != self._marker:
            self._marker, self._turn, self._roll = marker, self._turn + 1, 0
        moment = (self._turn, self._roll)
        self._roll += 1
        return moment


# -- playing one game ---------------------------------------------------------------------------
@dataclass
class GameRecord:
    """The result of one game.

    Attributes:
        task: what was played.
        returns: per-seat returns (C-3).
        winners: the winning seats (all seats for a complete tie).
        scores: per-seat final standing (points or lives).
        log: the game as events in order: a string is a roll (its faces, ``"224566"``), an int an
            action id; with the engine and the options it replays the game exactly.
        num_actions: decisions taken.
    """

    task: GameTask
    returns: tuple[float, ...]
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    log: list
    num_actions: int

    @property
    def seats(self) -> tuple[str, ...]:
        return self.task.seats

    def win_shares(self) -> tuple[float, ...]:
        """Per-seat win share: 1/k for each of k winners, 0 for the others."""
        k = len(self.winners)
        return tuple(1.0 / k if s in self.winners else 0.0 for s in range(len(self.returns)))


def winners_of(returns: Sequence[float]) -> tuple[int, ...]:
    """C-3: the seats with a positive return; every seat when all returns are 0 (a full tie)."""
    winners = tuple(s for s, r in enumerate(returns) if r > 0)
    return winners or tuple(range(len(returns)))


class AgentFailed(CommandFailed):
    """An entrant broke the rules (an action outside its mask): the message names the agent, its
    seat and the game. A ``RuntimeError``; the command line exits with 1 for it."""


class GameTooLong(AgentFailed, ValueError):
    """A game was not over after ``max_decisions`` decisions: its agents may keep it going for ever.

    A ``ValueError`` (the command line exits with 2 and one line, naming the agents and
    ``--max-decisions``) and an :class:`AgentFailed` (a Ray run sends no more batches and keeps
    the games of those under way, rather than retrying a game that would loop again). No record is made of the game: it is neither a win nor a draw,
    so a results store never holds it, and a run resumed with a larger cap plays it again.
    """


def play_game(game, agents: dict, task: GameTask, max_decisions: int | None = None) -> GameRecord:
    """Play one game on the rules engine, the agents seeing what the PettingZoo env would show.

    Every agent of the table is reset (seeded by the game's key, if it has ``reset``), then told its
    seat in this game (``agent.set_seat(seat)``, if it has the method). Local workers and Ray's actors
    (:mod:`evaluate.ray_backend`) play every game through this function.

    Args:
        game: the rules engine (its ``num_players`` is the table size).
        agents: label -> agent; the agents of ``task.seats``.
        task: the game to play.
        max_decisions: the most decisions the game may take (default ``task.max_decisions``).

    Raises:
        AgentFailed: an agent played an illegal action.
        GameTooLong: the game was not over after ``max_decisions`` decisions.
    """
    if max_decisions is None:
        max_decisions = task.max_decisions
    seats = task.seats
    if len(seats) != game.num_players:
        raise ValueError(f"a table of {len(seats)} for a game of {game.num_players} players")
    players = [agents[label] for label in seats]
    for label, agent in zip(task.table, [agents[label] for label in task.table]):
        reset = getattr(agent, "reset", None)  # an object with act alone (a user's) is not asked to have it
        if reset is not None:
            reset(seed=keyed_seed("agent", task.seed, task.table_key, task.deal, label))
    # Each agent is told its seat for this game (the optional hook of agents.base.Agent.set_seat;
    # an object with only the agent protocol's act is not asked to have it).
    for seat, agent in enumerate(players):
        tell = getattr(agent, "set_seat", None)
        if tell is not None:
            tell(seat)
    dice_key: tuple[str | int, ...] = ("dice", task.seed, task.table_key, task.deal)
    if task.dice == "independent":
        dice_key += (task.rotation,)
    dice = KeyedDice(*dice_key)
    num_actions = game.num_actions
    masks: dict[tuple, np.ndarray] = {}
    state = game.initial_state()
    log: list = []
    moments = Moments(game)
    decisions = 0
    while not game.is_terminal(state):
        k = game.num_dice_to_roll(state)
        if k:
            faces = dice.roll(k, moments.next(state))
            state = game.apply_chance(state, faces)
            log.append(dice_mod.to_string(faces))
            continue
        seat = game.current_player(state)
        legal = tuple(game.legal_actions(state))
        mask = masks.get(legal)
        if mask is None:
            mask = masks[legal] = np.zeros(num_actions, dtype=np.int8)
            mask[list(legal)] = 1
        action = players[seat].act(game.observe(state, seat), mask.copy())
        try:
            state = game.apply_action(state, action)
        except ValueError as exc:  # the engine names the action and the legal ones; we name the agent
            raise AgentFailed(
                f"agent {seats[seat]!r} at seat {seat} (table {task.table_key}, deal {task.deal}, rotation "
                f"{task.rotation}) played an illegal action: {exc}. Games finished before it are kept in "
                "the --db, if one was given; mend the agent and run again"
            ) from None
        log.append(int(action))
        decisions += 1
        if decisions >= max_decisions and not game.is_terminal(state):
            raise GameTooLong(_too_long(game, task, max_decisions))
    returns = tuple(float(r) for r in game.returns(state))
    return GameRecord(task, returns, winners_of(returns), tuple(int(s) for s in game.scores(state)), log, decisions)


def _too_long(game, task: GameTask, max_decisions: int) -> str:
    """The one-line message of :class:`GameTooLong`."""
    seats = [repr(label) for label in task.seats]
    who = " and ".join(seats) if len(seats) == 2 else ", ".join(seats)
    why = "its agents may keep it going for ever"
    if game.name == "meyer" and getattr(game, "claim_rule", None) == "at_least":
        why += " (in Meyer under claim_rule='at_least' a round never ends while every claim is believed and equalled)"
    return (
        f"the game of {who} (table {task.table_key}, deal {task.deal}, rotation {task.rotation}) was not over "
        f"after {max_decisions:,} decisions: {why}; if its games are only long, give a larger --max-decisions N"
    )


def replay_states(game, log: Iterable):
    """Replay a stored log through the engine: yields ``(event, state_before, state_after)``.

    Raises:
        ValueError: the log does not fit the game (a roll where a decision is due, an illegal
            action, or events after the end).
    """
    state = game.initial_state()
    for event in log:
        if game.is_terminal(state):
            raise ValueError(f"the log goes on after the game ended, at {event!r}")
        if isinstance(event, str):
            if not game.is_chance(state):
                raise ValueError(f"the log has the roll {event!r} where a decision is due")
            after = game.apply_chance(state, dice_mod.normalize(event, game.num_dice_to_roll(state)))
        else:
            if game.is_chance(state):
                raise ValueError(f"the log has the action {event!r} where dice must be rolled")
            after = game.apply_action(state, event)
        yield event, state, after
        state = after


def replay_final_state(game, log: Iterable):
    """The state at the end of a replayed log (see :func:`replay_states`)."""
    state = game.initial_state()
    for _, _, state in replay_states(game, log):
        pass
    return state


# -- agents -------------------------------------------------------------------------------------
def build_agents(game, specs: Sequence[str], labels: Sequence[str]) -> dict:
    """label -> agent, built with ``agents.make_agent(game, spec, seed=...)``."""
    from agents import make_agent

    return {
        label: make_agent(game, spec, seed=keyed_seed("build", label))
        for spec, label in zip(specs, labels)
    }


# -- running ------------------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}


class Terminated(KeyboardInterrupt):
    """SIGTERM reached the process playing a tournament (``kill``, ``timeout``, a scheduler
    stopping the job): raised in its main thread by :func:`sigterm_as_interrupt`. It is a
    ``KeyboardInterrupt``, so everything Ctrl-C stops cleanly it stops the same way: the games
    finished so far are stored, the worker processes are ended, the store is closed. The
    command line says so in one line and exits with 143 (128 + SIGTERM's 15)."""


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread instead of
    killing the process outright, so that a tournament stopped by it ends its workers and keeps
    its games as under Ctrl-C. Only where SIGTERM still has its default action, in the main thread
    (a program with a handler of its own keeps it); the handler is put back after the block. A
    second SIGTERM while the first is being handled kills the process at once, as by default."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return

    def terminate(signum, frame) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Terminated("terminated (SIGTERM)")

    before = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)  # the default, as checked above


#: ``prctl`` option asking the kernel for a signal when the parent process dies (Linux).
_PR_SET_PDEATHSIG = 1


def _worker_exit(signum, frame) -> None:
    """A worker's SIGTERM handler: leave quietly (``SystemExit`` is not reported as an error).

    Raising rather than dying at once unwinds the worker, so a lock it holds is released: an idle
    worker waits for its next games holding the pool's task-queue lock, and one killed with it
    held would leave the parent's ``Pool.terminate`` waiting for that lock for ever (as when
    SIGTERM reaches the whole process group: ``timeout``, a scheduler stopping a job)."""
    raise SystemExit(0)


def _end_with_parent(parent: int) -> None:
    """Have this worker end when its parent process dies (Linux: ``PR_SET_PDEATHSIG`` sends it
    SIGTERM, :func:`_worker_exit`). A parent killed outright (SIGKILL, out of memory) would
    otherwise leave its workers playing, and each would print a BrokenPipeError traceback when it
    sent its games back into the closed pipe. Elsewhere nothing is done."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):  # no libc or no prctl: nothing to ask for
        return
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(0)


def _worker_init(game_name: str, options: dict, specs: list, labels: list, prebuilt, parent: int | None = None) -> None:
    """Pool initializer: the engine and the agents (inherited when forked, else built here)."""
    # Ctrl-C reaches every process of the terminal's group: the parent stops the pool, and a
    # worker that raised KeyboardInterrupt too would only print its own traceback first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # SIGTERM ends a worker quietly (the pool's terminate sends it; a forked worker would
    # otherwise inherit the parent's sigterm_as_interrupt and raise), and so does its parent's death.
    signal.signal(signal.SIGTERM, _worker_exit)
    if parent is not None:
        _end_with_parent(parent)
    # A forked torch would otherwise keep its parent's intra-op thread count: one thread per
    # worker is what a process pool wants, and avoids OpenMP pools that do not survive a fork.
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    if prebuilt is not None:
        _WORKER["game"], _WORKER["agents"] = prebuilt
    else:
        game = build_game(game_name, options)
        _WORKER["game"], _WORKER["agents"] = game, build_agents(game, specs, labels)


def play_batch(game, agents: dict, tasks: Sequence[GameTask], catch: tuple = (Exception,)):
    """Play ``tasks`` in order; return ``(records, error)``: the games finished, and the exception
    (one of ``catch``) that stopped the batch, or None. A worker sends both back, so that the games
    finished before a failure are stored as in one process."""
    records: list[GameRecord] = []
    try:
        for task in tasks:
            records.append(play_game(game, agents, task))
    except catch as exc:
        return records, exc
    return records, None


def play_batch_remote(game, agents: dict, tasks: Sequence[GameTask]):
    """:func:`play_batch` in a worker process (local pool or Ray actor): the failure that stopped
    the batch is made to travel back to the driver. A bug in an agent keeps its traceback (as the
    pool itself would send it); an exception that pickle cannot rebuild is sent as a RuntimeError
    naming it."""
    records, error = play_batch(game, agents, tasks)
    if error is not None and not isinstance(error, AgentFailed):
        try:
            pickle.loads(pickle.dumps(error))
            sent: BaseException = error
        except Exception:  # noqa: BLE001 - any failure to travel
            sent = RuntimeError(f"{type(error).__name__}: {error}")
        error = ExceptionWithTraceback(sent, error.__traceback__)
    return records, error


def _worker_play(tasks: list[GameTask]) -> tuple[list[GameRecord], BaseException | None]:
    return play_batch_remote(_WORKER["game"], _WORKER["agents"], tasks)


class Progress:
    """A progress bar on stderr: games done, games per second and the ETA.

    Uses rich when it is installed and stderr is a terminal, else prints a plain line at most
    every ``every`` seconds (and at the end), which suits logs and CI.
    """

    def __init__(self, total: int, description: str, enabled: bool = True, every: float = 5.0):
        self.total, self.done, self.enabled, self.every = total, 0, enabled and total > 0, every
        self.start = time.perf_counter()
        self._last = self.start
        self._rich = None
        self.description = description
        #: The workers the run really used, where only the backend knows it (the CPUs of a Ray
        #: cluster joined without --workers); None otherwise.
        self.workers: int | None = None
        if not self.enabled:
            return
        try:
            if not sys.stderr.isatty():
                raise ImportError
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress
            from rich.progress import TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self._rich = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]} games/s"),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                TimeElapsedColumn(),
                console=Console(file=sys.stderr),
                transient=False,
            )
            self._rich.start()
            self._task = self._rich.add_task(description, total=total, rate="-")
        except ImportError:
            self._rich = None
            print(f"{description}: {total} games to play", file=sys.stderr, flush=True)

    def rate(self) -> float:
        elapsed = time.perf_counter() - self.start
        return self.done / elapsed if elapsed > 0 else 0.0

    def advance(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        if self._rich is not None:
            self._rich.update(self._task, advance=n, rate=f"{self.rate():,.0f}")
            return
        now = time.perf_counter()
        if now - self._last >= self.every or self.done == self.total:
            self._last = now
            rate = self.rate()
            eta = (self.total - self.done) / rate if rate > 0 else float("inf")
            print(
                f"  {self.done}/{self.total} games  {rate:,.0f} games/s  ETA {eta:,.0f} s",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if self._rich is not None:
            self._rich.stop()


def default_workers() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _chunks(tasks: list[GameTask], size: int) -> list[list[GameTask]]:
    return [tasks[i : i + size] for i in range(0, len(tasks), size)]


def play_tasks(
    game_name: str,
    options: dict,
    specs: Sequence[str],
    labels: Sequence[str],
    tasks: list[GameTask],
    workers: int | None = 1,
    on_records: Callable[[list[GameRecord]], None] | None = None,
    progress: Progress | None = None,
    game=None,
    agents: dict | None = None,
    backend: str = "local",
    address: str | None = None,
) -> list[GameRecord]:
    """Play ``tasks``, in this process (``workers == 1``) or in a pool of processes.

    Args:
        workers: processes; with ``backend="ray"`` Ray actors, ``None`` for every CPU of the
            cluster (the local backend needs a number).
        on_records: called in this process with every batch of finished games (the store
            writes them); batches are small, so little is lost if the run is killed.
        game, agents: already built ones, reused in this process and inherited by forked workers.
        backend: ``"local"`` (processes of this machine) or ``"ray"`` (actors of a Ray cluster, see
            :mod:`evaluate.ray_backend`; ``address`` names the cluster, ``None`` starts a local one).

    Returns:
        The records, in the order of ``tasks``.
    """
    if backend == "ray":
        from evaluate.ray_backend import play_tasks_ray

        return play_tasks_ray(
            game_name, options, specs, labels, tasks, workers, on_records=on_records, progress=progress,
            address=address,
        )  # fmt: skip
    if backend != "local":
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"--workers must be a whole number >= 1, got {workers!r}")
    if game is None:
        game = build_game(game_name, options)
    if agents is None:
        agents = build_agents(game, specs, labels)
    done: dict[tuple, GameRecord] = {}

    def finished(batch: list[GameRecord]) -> None:
        for record in batch:
            done[record.task.key] = record
        if on_records is not None:
            on_records(batch)
        if progress is not None:
            progress.advance(len(batch))

    workers = workers_used(int(workers), len(tasks)) or 1
    if workers == 1:
        batch: list[GameRecord] = []
        last = time.perf_counter()
        for task in tasks:
            try:
                record = play_game(game, agents, task)
            except BaseException:
                if batch:  # the games finished before the failure are kept (stored) all the same
                    finished(batch)
                raise
            batch.append(record)
            now = time.perf_counter()
            if len(batch) >= 256 or now - last > 0.25:
                finished(batch)
                batch, last = [], now
        if batch:
            finished(batch)
    else:
        # Chunks of a few games: enough to keep the pipe's overhead small, small enough that the
        # store hears of finished games often and the load stays balanced to the end.
        size = max(1, min(64, len(tasks) // (workers * 16)))
        fork = "fork" in multiprocessing.get_all_start_methods() and sys.platform.startswith("linux")
        ctx = multiprocessing.get_context("fork" if fork else "spawn")
        prebuilt = (game, agents) if fork else None
        if fork:
            # Objects the children inherit are moved out of the collector's reach, so its passes
            # in a child do not write to (and so copy) the pages it shares with this process.
            gc.freeze()
        try:
            pool = ctx.Pool(
                workers, initializer=_worker_init,
                initargs=(game_name, options, list(specs), list(labels), prebuilt, os.getpid()),
            )
        finally:
            if fork:
                gc.unfreeze()
        try:
            _drain_pool(pool, _chunks(tasks, size), 2 * workers, finished)
            _close_pool(pool)  # (a Ctrl-C or SIGTERM while it waits ends the pool below)
        except BaseException:
            _end_pool(pool)
            raise
    return [done[task.key] for task in tasks]


#: Seconds :func:`_close_pool` waits for the workers to leave after their last games.
CLOSE_POOL_SECONDS = 30.0


def _close_pool(pool, timeout: float = CLOSE_POOL_SECONDS) -> None:
    """End a pool whose games are all played: each worker is sent the end of its work and leaves.

    Not ``Pool.terminate`` (what ``with pool:`` does): it sends SIGTERM, and a worker that is still
    starting (when the others played every game before it was up: small tournaments on a busy
    machine) can lose it, as Python clears the signals that arrive in a child before its
    after-fork setup is done. That worker then waited for its first games for ever, on a queue
    lock ``terminate`` holds, and the run never returned (seen about once in 8 runs of the tests
    on 2 shared cores). Should a worker still not be gone after ``timeout`` seconds, the pool is
    ended as after a failure (:func:`_end_pool`)."""
    pool.close()
    closer = threading.Thread(target=pool.join, name="close-pool", daemon=True)
    closer.start()
    closer.join(timeout)
    if closer.is_alive():
        _end_pool(pool)


#: Seconds :func:`_end_pool` gives the pool's own ``terminate`` before killing its workers.
END_POOL_SECONDS = 3.0


def _end_pool(pool, timeout: float = END_POOL_SECONDS) -> None:
    """End a pool after a failure or an interrupt (Ctrl-C, SIGTERM) without hanging on it.

    The pool's ``terminate`` is run in a helper thread. It needs its workers' pipes to be whole:
    a worker that SIGTERM (sent to the whole process group) ended in the middle of sending its
    games leaves half a message, which the pool's result thread then waits on for ever. So after
    ``timeout`` seconds the workers still there are killed and the helper is left behind (a daemon
    thread, which does not keep the process from exiting)."""
    ender = threading.Thread(target=pool.terminate, name="end-pool", daemon=True)
    ender.start()
    ender.join(timeout)
    if ender.is_alive():
        for process in getattr(pool, "_pool", []):
            if process.exitcode is None:
                process.kill()


def _drain_pool(pool, chunks: Iterable[list[GameTask]], window: int, finished: Callable) -> None:
    """Send ``chunks`` to ``pool``, at most ``window`` at a time, and hand each one's finished games
    to ``finished`` as they come. After a failure nothing more is sent, the chunks under way finish
    (every game finished anywhere is kept), and the first failure is raised."""
    results: queue.SimpleQueue = queue.SimpleQueue()
    chunks = iter(chunks)
    in_flight = 0
    error: BaseException | None = None
    # A worker killed from outside (out of memory, say) takes its chunk with it and the pool
    # starts another: seen as a new process id, so the run stops instead of waiting for ever.
    workers = {p.pid for p in getattr(pool, "_pool", [])}

    def send() -> bool:
        chunk = next(chunks, None)
        if chunk is None:
            return False
        pool.apply_async(_worker_play, (chunk,), callback=results.put, error_callback=lambda e: results.put(([], e)))
        return True

    while in_flight < window and send():
        in_flight += 1
    checked = time.monotonic()
    while in_flight:
        try:
            records, exc = results.get(timeout=1.0)
        except queue.Empty:
            records, exc = None, None
        if time.monotonic() - checked >= 1.0:
            checked = time.monotonic()
            if workers and {p.pid for p in getattr(pool, "_pool", [])} != workers:
                raise CommandFailed(
                    "a worker process died (killed, or out of memory?) with games under way; the games "
                    "finished so far are kept in the --db, if one was given, and a rerun plays the rest"
                )
        if records is None:
            continue
        in_flight -= 1
        if records:
            finished(records)
        if exc is not None and error is None:
            error = exc
        if error is None and send():
            in_flight += 1
    if error is not None:
        raise error


def workers_used(workers: int, num_tasks: int, backend: str = "local") -> int:
    """How many processes (or Ray actors) :func:`play_tasks` runs for ``num_tasks`` games when
    ``workers`` are asked for: none without games; on Ray, no more actors than games; locally, no
    more than one process per 16 games (a pool costs a fork and a pipe per worker: not worth it for
    a handful of games)."""
    if num_tasks == 0:
        return 0
    if backend == "ray":
        return min(workers, num_tasks)
    return min(workers, max(1, num_tasks // 16))


def table_tasks(
    labels: Sequence[str], num_games: int, seed: int, dice: str = "common", max_decisions: int = MAX_DECISIONS
) -> Iterator[GameTask]:
    """The games of one table in the order a match plays them: game ``g`` is deal ``g // n`` in
    rotation ``g % n``. With two players entrant ``i`` (``labels[i]``) sits at seat ``(i + g) % n``;
    with more, the rotations are of each deal's order (:func:`deal_order`).

    This is how ``match`` is a special case of a tournament: one table, its entrants in the order
    given, ``num_games`` games that need not fill the last deal. The tasks are made one at a time
    as they are asked for (the arguments are checked at once), so a table of any length costs
    nothing up front.

    Raises:
        ValueError: a bad number of games, seed, dice mode or labels.

    >>> [(t.deal, t.seats) for t in table_tasks(["a", "b"], 3, seed=0)]
    [(0, ('a', 'b')), (0, ('b', 'a')), (1, ('a', 'b'))]
    """
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be a whole number >= 1, got {num_games!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    if dice not in DICE_MODES:
        raise ValueError(f"dice must be one of {', '.join(DICE_MODES)}, got {dice!r}")
    if len(set(labels)) != len(labels) or len(labels) < 2:
        raise ValueError(f"a table needs at least 2 entrants with unique labels, got {list(labels)}")
    max_decisions = check_max_decisions(max_decisions)
    table, n, seed = tuple(labels), len(labels), int(seed)
    # A generator expression rather than a generator function, so the checks above run at the call.
    return (GameTask(seed, table, g // n, g % n, dice, max_decisions) for g in range(int(num_games)))


def play_table(
    game,
    agents: dict,
    labels: Sequence[str],
    num_games: int,
    seed: int,
    on_game: Callable[[int, GameRecord], None] | None = None,
    progress: Progress | None = None,
    keep: bool = True,
    dice: str = "common",
    max_decisions: int = MAX_DECISIONS,
) -> list[GameRecord]:
    """Play the games of :func:`table_tasks` in this process, in order, with prebuilt agents.

    Each game is made, played by :func:`play_game` and handed to ``on_game`` before the next one
    is made, so with ``keep=False`` memory stays flat whatever ``num_games`` is (``match`` plays
    ``--games 100000000000`` this way).

    Args:
        game: the engine (``num_players == len(labels)``).
        agents: label -> agent (any object with the agent protocol).
        labels: the table's entrants; entrant ``i`` sits at seat ``(i + g) % n`` in game ``g`` with two
            players (with more, see :func:`table_tasks`).
        num_games: games to play (>= 1).
        seed: the seed the games' dice and agents are keyed by.
        on_game: called with each game's number and record as soon as it is played.
        progress: advanced by one after each game.
        keep: return every record; ``False`` keeps none and returns ``[]``.
        dice: ``"common"`` (the rotations of a deal share their dice) or ``"independent"``.
        max_decisions: the cap on each game's decisions (:class:`GameTooLong` past it).

    Returns:
        The records in game order (``[]`` when ``keep`` is false).

    Raises:
        ValueError: bad arguments, or an entrant without an agent.
        GameTooLong: a game was not over after ``max_decisions`` decisions.
    """
    tasks = table_tasks(labels, num_games, seed, dice, max_decisions)
    missing = [label for label in labels if label not in agents]
    if missing:
        raise ValueError(f"no agent for {', '.join(missing)}")
    records: list[GameRecord] = []
    for g, task in enumerate(tasks):
        record = play_game(game, agents, task)
        if keep:
            records.append(record)
        if on_game is not None:
            on_game(g, record)
        if progress is not None:
            progress.advance(1)
    return records


@dataclass
class TournamentResult:
    """Every game of a tournament, and what this run did.

    Attributes:
        game_name, options, labels, specs, num_players, games, seed, dice: the tournament.
        records: every game of the tournament, in schedule order.
        played_now: how many of them this run played.
        seconds: wall time spent playing them.
        db_path: the results store, if any.
        workers: the processes (or Ray actors) that played them (:func:`workers_used`; 0 when
            the store held every game).
        stored_now: how many of them this run wrote to the store; fewer than ``played_now``
            when another run on the same file stored some first (``None`` without a store).
    """

    game_name: str
    options: dict
    labels: list[str]
    specs: list[str]
    num_players: int
    games: int
    seed: int
    dice: str
    records: list[GameRecord]
    played_now: int
    seconds: float
    db_path: str | None = None
    workers: int = 1
    extra: dict = field(default_factory=dict)
    stored_now: int | None = None

    @property
    def games_per_second(self) -> float:
        return self.played_now / self.seconds if self.seconds > 0 else 0.0


def run_tournament(
    game_name: str,
    specs: Sequence[str],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    num_players: int | None = None,
    db: str | None = None,
    workers: int | None = None,
    dice: str = "common",
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
    max_decisions: int = MAX_DECISIONS,
) -> TournamentResult:
    """Play a tournament (or the part of it that ``db`` does not hold yet) and return all its games.

    Args:
        game_name: ``"syvere"``, ``"tenthousand"`` or ``"meyer"``.
        specs: the entrants' SPECs (names, ``NAME:KEY=VALUE,...`` or checkpoint paths).
        games: deals per table.
        seed: the tournament seed.
        options: the game's options, without ``num_players``.
        num_players: seats per table; default the game's default, or the number of entrants if
            fewer.
        db: path of a SQLite results store (created if missing); ``None`` keeps nothing.
        workers: processes; default the number of cores.
        dice: ``"common"`` or ``"independent"``.
        progress: show a progress bar on stderr.
        backend: ``"local"`` or ``"ray"`` (:mod:`evaluate.ray_backend`); same games, same results.
        address: the Ray cluster of ``backend="ray"`` (``None``: a local Ray instance of ``workers``
            CPUs).
        max_decisions: the cap on each game's decisions. A game not over by then stops the run
            with :class:`GameTooLong` (a ``ValueError``); every game finished by then, in any
            worker, is stored; the game itself is not, so a run resumed with a larger cap plays
            only what is missing.

    Raises:
        ValueError: a bad SPEC, option, count or results store, with a message saying which; a game
            that did not end within ``max_decisions`` (:class:`GameTooLong`).
    """
    max_decisions = check_max_decisions(max_decisions)
    if backend == "ray":
        from evaluate.ray_backend import require_ray

        require_ray()  # before anything is built or written: the message names the extra
    options = dict(options or {})
    if "num_players" in options:
        if num_players is not None and num_players != options["num_players"]:
            raise ValueError("num_players is given twice with different values")
        num_players = options.pop("num_players")
    # The options first, at the table size asked for (else the game's default, which no smaller
    # table makes stricter): a bad one is named as such before the entrants are read and counted.
    build_game(game_name, options if num_players is None else {**options, "num_players": num_players})
    objects = [s for s in specs if not isinstance(s, (str, os.PathLike))]
    if objects:  # str() of an agent would be read as a SPEC and refused with a misleading message
        raise TypeError(
            f"run_tournament takes agent SPECs (text or checkpoint paths), got {objects[0]!r}: a tournament builds "
            "its agents in every worker process (play_match takes agent objects)"
        )
    specs = [os.fspath(s).strip() for s in specs]
    labels = make_labels(game_name, specs)  # reads every SPEC: an unknown one fails here
    if len(labels) < 2:
        raise ValueError(f"a tournament needs at least 2 agents, got {len(labels)}")
    if num_players is None:
        num_players = min(default_num_players(game_name), len(labels))
    game = build_game(game_name, {**options, "num_players": num_players})
    tasks = schedule(labels, num_players, games, seed, dice, max_decisions)
    if backend == "ray":
        _refuse_checkpoint_parameters(game_name, specs)
    if workers is None and not (backend == "ray" and address):
        workers = default_workers()  # joining a cluster, Ray's backend takes all its CPUs
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1):
        raise ValueError(f"--workers must be a whole number >= 1, got {workers!r}")
    setting = (game_name, env_id(game_name), effective_options(game_name, game))
    if db is not None:
        from evaluate.store import ResultStore

        ResultStore.check(db, *setting)  # a wrong file fails before any agent is built
    # Agents are built (and solver tables loaded) before anything is played, so that a SPEC that
    # cannot be built fails at once; forked workers inherit them.
    agents = build_agents(game, specs, labels)

    store = None
    if db is not None:
        from evaluate.store import StoreUnwritable

        existed = os.path.isfile(db) and os.path.getsize(db) > 0
        try:
            store = ResultStore.open(db, *setting, create=True)
        except StoreUnwritable as exc:
            # A store that cannot be written (frozen, on read-only media) still answers a run
            # whose games it holds all; one that needs new games is refused before playing. A
            # full disk, an I/O error or a lock held too long is said as it is.
            if not (existed and exc.read_only):
                raise
            try:
                store = ResultStore.open_read_only(db, *setting, reason=exc.reason)
            except ValueError:
                raise exc from None
    try:
        if store is not None:
            store.register_agents(
                {label: (spec, agent_fingerprint(agents[label])) for spec, label in zip(specs, labels)}
            )
            have = store.existing_keys(seed, dice)
            missing = [t for t in tasks if t.key not in have]
            if missing:
                store.refuse_writes(f"{len(missing)} games of this tournament are not in it")
        else:
            missing = tasks
        stored_now = 0

        def store_records(batch: list[GameRecord]) -> None:
            nonlocal stored_now
            if store is not None:
                stored_now += store.add(batch)

        bar = Progress(len(missing), f"{game_name}: {len(labels)} agents", enabled=progress)
        start = time.perf_counter()
        try:
            with sigterm_as_interrupt():
                played = play_tasks(
                    game_name,
                    {**options, "num_players": num_players},
                    specs,
                    labels,
                    missing,
                    workers=workers,
                    on_records=store_records if store is not None else None,
                    progress=bar,
                    game=game,
                    agents=agents,
                    backend=backend,
                    address=address,
                )
        except GameTooLong as exc:
            if store is None:
                raise
            raise GameTooLong(
                f"{exc}. The games finished before it are kept in {db}: a run with a larger --max-decisions "
                "plays only what is missing"
            ) from None
        finally:
            bar.close()
        seconds = time.perf_counter() - start
        if store is not None:
            # The games played now are in hand; only those stored by an earlier run are read back
            # (a game written twice keeps its first row, and a game's record is the same whoever
            # played it, since dice and agents are seeded by the game's key).
            by_key = {r.task.key: r for r in played}
            earlier = [t for t in tasks if t.key not in by_key]
            if earlier:
                by_key.update(store.records(earlier))
            records = [by_key[t.key] for t in tasks]
        else:
            records = played
    finally:
        if store is not None:
            store.close()
    return TournamentResult(
        game_name,
        options,
        labels,
        specs,
        num_players,
        int(games),
        int(seed),
        dice,
        records,
        len(missing),
        seconds,
        db,
        workers_used(int(bar.workers or workers or 1), len(missing), backend),
        stored_now=stored_now if store is not None else None,
    )


def _refuse_checkpoint_parameters(game_name: str, specs: Sequence[str]) -> None:
    """Ray's workers rebuild a checkpoint entrant from its shipped files by path alone, so the
    parameters of a ``PATH:KEY=VALUE`` SPEC would be lost there: refuse them rather than play
    another agent than the one named."""
    from agents.spec import parse_spec

    for spec in specs:
        name, params = parse_spec(game_name, spec)
        if isinstance(name, os.PathLike) and params:
            raise ValueError(
                f"--backend ray does not take a checkpoint SPEC with parameters yet ({spec!r}); "
                "play it with --backend local"
            )


def record_to_json(record: GameRecord) -> dict:
    """A game record as a JSON-able dict (what ``--json`` and the report files hold per game)."""
    return {
        "table": list(record.task.table),
        "deal": record.task.deal,
        "rotation": record.task.rotation,
        "seats": list(record.seats),
        "returns": list(record.returns),
        "winners": list(record.winners),
        "scores": list(record.scores),
        "log": json.dumps(record.log, separators=(",", ":")),
    }
