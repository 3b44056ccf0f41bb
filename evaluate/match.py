"""Play agents against each other and report win rates with 95% intervals over the deals.

A match is a special case of a tournament (:mod:`evaluate.tournament`): one table, its entrants
in the order given, played by :func:`evaluate.tournament.play_table` on the rules engine with the
tournament's keyed dice. Game ``g`` is deal ``g // n`` of the table in seat rotation ``g % n``
(of the table's order for two players; with more, of the deal's order, :func:`evaluate.tournament.deal_order`);
its dice are a function of ``(seed, entrants, deal, moment of the game)`` only, common to the
``n`` rotations of a deal, and every agent is reset with a seed keyed the same way. Games are
made, played and counted one at a time and nothing is kept per game, so a match of any length
allocates nothing up front and its memory stays flat, and game ``g`` is the same whatever came
before it.

Example:
    >>> from evaluate.match import play_match
    >>> result = play_match("syvere", ["heuristic", "random"], num_games=20, seed=0)
    >>> result.records[0].games
    20
    >>> print(result.table())  # doctest: +SKIP
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

import dice_envs  # noqa: F401  (registers the envs)
from agents import BEST, Agent, check_fits, make_agent
from agents.spec import spec_label
from dice_envs.options import check_game_options
from dice_envs.registry import env_module
from evaluate.report import SeatBreakdown
from evaluate.stats import WILSON_DEALS_SOURCE, Z95, StratifiedShare, mean_ci, return_interval, return_share
from evaluate.tournament import MAX_DECISIONS, GameRecord, base_label, check_max_decisions, play_table, unique_labels

#: The entrants of ``dice-envs match GAME`` without ``--agents``: the game's best built-in agent
#: against the random one.
DEFAULT_AGENTS: dict[str, tuple[str, ...]] = {game: (best, "random") for game, best in BEST.items()}

#: Seconds between progress lines when 10% of the games take longer than that.
PROGRESS_SECONDS = 5.0

__all__ = [
    "DEFAULT_AGENTS",
    "AgentRecord",
    "MatchResult",
    "Z95",
    "game_seeds",
    "mean_ci",
    "play_match",
    "split_agent_words",
]


def split_agent_words(words: list[str]) -> list[str]:
    """The entrants of ``--agents``: one SPEC per word; a word of bare names joined by commas
    (the old form, ``heuristic,random``) gives one entrant per name.

    A SPEC's own commas (``bluffer:lie_probability=0.3,doubt_below=0.5``) come after its ``:``
    and are kept, as are commas in a path.

    >>> split_agent_words(["heuristic,random", "bluffer:lie_probability=0.3,doubt_below=0.5"])
    ['heuristic', 'random', 'bluffer:lie_probability=0.3,doubt_below=0.5']

    A name after a SPEC's parameters is refused, not read as a parameter or dropped:

    >>> split_agent_words(["bluffer:lie_probability=0.3,honest"])
    Traceback (most recent call last):
    ...
    ValueError: --agents: 'honest' in 'bluffer:lie_probability=0.3,honest' is not KEY=VALUE; a SPEC's commas separate its parameters, so give each agent as its own word: --agents bluffer:lie_probability=0.3 honest
    """
    specs = []
    for word in words:
        if "," in word and not any(c in word for c in ":=/\\"):
            names = [name.strip() for name in word.split(",")]
            if not all(names):
                raise ValueError(f"--agents: an empty name in {word!r}")
            specs.extend(names)
        elif word.strip():
            w = word.strip()
            name, colon, body = w.partition(":")
            if "," in name and not any(c in name for c in "/\\"):  # `honest,lab:Mine`: a list and a SPEC
                pieces = [*name.split(",")[:-1], name.split(",")[-1] + colon + body]
                raise ValueError(
                    f"--agents: {word!r} joins agents with commas; give each as its own word: --agents "
                    + " ".join(p.strip() for p in pieces)
                )
            first = w.split(",", 1)[0]
            user = _user_spec(first, name)
            if user is not None:  # MODULE:CLASS[:KEY=VALUE,...]: only its parameters are KEY=VALUE
                name, body = user[0], (user[1] or "") + w[len(first):]
            if colon and not any(c in name for c in "/\\"):
                from agents.spec import _split_params

                for part in _split_params(body):
                    if part.strip() and "=" not in part:
                        raise ValueError(_not_key_value(word.strip(), name, body, part))
            specs.append(word.strip())
        else:
            raise ValueError("--agents: an empty SPEC")
    return specs


def _user_spec(word: str, head: str) -> tuple[str, str | None] | None:
    """``agents.spec.split_user_spec`` of a word whose head is no agent's name (``known_name``)."""
    from agents.spec import known_name, split_user_spec

    return None if known_name(head.strip()) else split_user_spec(word)


def _not_key_value(word: str, name: str, body: str, part: str) -> str:
    """The message for a SPEC part without ``=``: another agent given in the same word (the fix
    is a word of its own) or a parameter without its value (the fix is ``KEY=VALUE``).

    >>> _not_key_value("heuristic:stop_at", "heuristic", "stop_at", "stop_at")  # doctest: +ELLIPSIS
    "--agents: 'stop_at' in 'heuristic:stop_at' is not KEY=VALUE: ... needs a value, as heuristic:stop_at=VALUE"
    >>> _not_key_value("heuristic:random", "heuristic", "random", "random")  # doctest: +ELLIPSIS
    "--agents: 'random' in 'heuristic:random' is not KEY=VALUE; ... as its own word: --agents heuristic random"

    A value after a comma (a tuple written bare) is told to take parentheses:

    >>> _not_key_value("heuristic:stop_at=8,5", "heuristic", "stop_at=8,5", "5")  # doctest: +ELLIPSIS
    "--agents: '5' in 'heuristic:stop_at=8,5' is not KEY=VALUE; ... in parentheses: heuristic:stop_at=(8,5) ..."
    """
    from agents import AGENTS

    key = part.strip()
    before = body[: body.index(part)].rstrip(",")
    head = f"{name}:{before}" if before.strip() else name
    agent_names = {agent for table in AGENTS.values() for agent in table}
    last_key, eq, last_value = before.rpartition(",")[2].partition("=")
    if eq and not key.isidentifier():  # `stop_at=8,5`: the rest of a value, cut at its commas
        rest = []
        for piece in body[len(before) + 1 :].split(","):
            if "=" in piece:
                break
            rest.append(piece.strip())
        return (
            f"--agents: {key!r} in {word!r} is not KEY=VALUE; a SPEC's commas separate its parameters, so a "
            f"value with commas goes in parentheses: {name}:{before[: len(before) - len(last_value)]}"
            f"({','.join([last_value, *rest])}) (quoted in a shell)"
        )
    if key in agent_names or any(c in key for c in "/\\"):  # another agent (or a checkpoint path)
        return (
            f"--agents: {key!r} in {word!r} is not KEY=VALUE; a SPEC's commas separate its parameters, "
            f"so give each agent as its own word: --agents {head} {key}"
        )
    return (
        f"--agents: {key!r} in {word!r} is not KEY=VALUE: the parameter {key} needs a value, "
        f"as {head}{',' if before.strip() else ':'}{key}=VALUE"
    )


def game_seeds(seed: int, game: int, num_entrants: int) -> tuple[int, list[int]]:
    """The seeds of game number ``game`` of a match: ``(dice seed, [seed of entrant i, ...])``.

    All come from the one key ``(seed, game)``: ``SeedSequence(seed, spawn_key=(game,))`` gives
    two 32-bit words per seed (the dice's first, then entrant 0, 1, ...), so no seed depends on
    how many games were played before.

    :func:`play_match` no longer draws its games from these seeds (it plays the tournament's
    keyed games, see the module docstring); the function is kept for callers that key their
    own games this way.
    """
    words = np.random.SeedSequence(seed, spawn_key=(game,)).generate_state(2 * (num_entrants + 1), np.uint32)
    as_int = [int(words[2 * k]) << 32 | int(words[2 * k + 1]) for k in range(num_entrants + 1)]
    return as_int[0], as_int[1:]


@dataclass
class AgentRecord:
    """One entrant's results over a match, kept as running sums (nothing per game; the deal being
    played is summed until the next begins).

    The intervals are over the deals (:class:`evaluate.stats.StratifiedShare`): a deal's rotations
    share their dice, so they are not independent games; deals are. A game added without a deal
    is a deal of its own. The mean return's interval is that of the returns as shares
    (:func:`evaluate.stats.return_share` at a table of ``players``; with one winner a game, the
    image of the win rate's).
    """

    label: str
    games: int = 0
    share_sum: float = 0.0  # 1 for a win, 1/k for a k-way tie
    return_sum: float = 0.0
    players: int = 2
    _wins: StratifiedShare = field(default_factory=StratifiedShare, repr=False)
    # the returns as shares at a table of `players`, and as (r + 1) / 2 (for a record with a game that
    # map cannot take: lost when two or more won)
    _returns: StratifiedShare = field(default_factory=StratifiedShare, repr=False)
    _returns_2: StratifiedShare = field(default_factory=StratifiedShare, repr=False)
    _tie_lost: bool = field(default=False, repr=False)
    _deal: list = field(default_factory=lambda: [None, 0.0, 0.0, 0.0, 0], repr=False)  # key, sums, games

    def add(self, share: float, ret: float, deal=None) -> None:
        """Count one game: its win share, its return (C-3, in [-1, 1]) and its deal (any key; the
        games of a deal come one after another; ``None``: a deal of its own)."""
        if not -1.0 <= ret <= 1.0:
            raise ValueError(f"AgentRecord.add: a C-3 return is in [-1, 1], got {ret!r}")
        pending = self._deal
        if deal is None or deal != pending[0]:
            self._flush()
            pending[0] = deal
        self.games += 1
        self.share_sum += share
        self.return_sum += ret
        u = return_share(ret, self.players)
        if u is None:
            self._tie_lost = True
        pending[1] += share
        pending[2] += 0.0 if u is None else u
        pending[3] += (ret + 1.0) / 2.0
        pending[4] += 1

    def _count(self, into: tuple[StratifiedShare, StratifiedShare, StratifiedShare]) -> None:
        _, shares, rets, rets_2, games = self._deal
        if games:
            for sums, y in zip(into, (shares, rets, rets_2)):
                sums.add_deal("match", min(max(y, 0.0), games), games)

    def _flush(self) -> None:
        self._count((self._wins, self._returns, self._returns_2))
        self._deal[:] = [None, 0.0, 0.0, 0.0, 0]

    def _finished(self) -> tuple[StratifiedShare, StratifiedShare, int]:
        """The win shares and the returns as shares with the deal in play counted, leaving it open
        for more games, and the table size the returns were mapped at."""
        import copy

        sums = copy.deepcopy((self._wins, self._returns, self._returns_2))
        self._count(sums)
        return (sums[0], sums[2], 2) if self._tie_lost else (sums[0], sums[1], self.players)

    def win_rate(self, z: float = Z95) -> tuple[float, float, float]:
        """Win rate (ties shared) with its 95% interval over the deals ``(rate, low, high)``
        (:class:`evaluate.stats.StratifiedShare`; Wilson's over the deals where they cannot give
        one: :meth:`interval_source`). ``z`` must be the 95% quantile: the interval's level is fixed."""
        _check_z(z)
        if self.games == 0:
            raise ValueError(f"{self.label} has played no games")
        rate, low, high, _, _ = self._finished()[0].interval()
        return rate, low, high

    def interval_source(self) -> str:
        """``"deals"`` (the win rate's interval is clustered by deal) or ``"wilson-deals"``."""
        return self._finished()[0].interval()[4]

    def return_interval_source(self) -> str:
        """The same for the mean return's interval (:meth:`mean_return`)."""
        _, returns, _ = self._finished()
        return returns.interval()[4]

    def mean_return(self, z: float = Z95) -> tuple[float, float, float]:
        """Mean return with its 95% interval over the deals ``(mean, low, high)``
        (:func:`evaluate.stats.return_interval`)."""
        _check_z(z)
        if self.games == 0:
            raise ValueError(f"{self.label} has played no games")
        _, returns, players = self._finished()
        _, low, high, _, _ = return_interval(returns, players)
        return self.return_sum / self.games, low, high


def _check_z(z: float) -> None:
    if z != Z95:
        raise ValueError(f"the match's intervals are 95% ones (z = {Z95}); got z = {z!r}")


@dataclass
class MatchResult:
    """What :func:`play_match` returns: one record per entrant, in the order given, and the win
    shares by seat (``seats``, :class:`evaluate.report.SeatBreakdown`: each entrant's in every seat
    and each seat's over the table, the first player's advantage; ``None`` only for a result made
    by hand)."""

    env_id: str
    options: dict
    records: list[AgentRecord]
    num_games: int
    seed: int
    seats: SeatBreakdown | None = None

    def table(self) -> str:
        """A plain-text table: entrant, games, win rate with its 95% interval over the deals, mean return;
        then the win shares by seat (:meth:`evaluate.report.SeatBreakdown.text`)."""
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items()) or "defaults"
        width = max(24, *(len(rec.label) for rec in self.records))
        lines = [
            f"{self.env_id} ({opts}), {self.num_games} games, seed {self.seed}, seats rotated",
            f"{'agent':<{width}} {'games':>6} {'win rate':>9} {'95% (deals)':>17} {'mean return':>12}",
        ]
        for rec in self.records:
            w, lo, hi = rec.win_rate()
            r, _, _ = rec.mean_return()
            mark = "w" if rec.interval_source() == WILSON_DEALS_SOURCE else ""
            lines.append(
                f"{rec.label:<{width}} {rec.games:>6} {w:>9.3f} {f'[{lo:.3f}, {hi:.3f}]{mark}':>17} {r:>12.3f}"
            )
        lines.append(
            "win rate: 95% interval over the deals (the rotations of a deal share their dice)"
            + ("; w: Wilson's over the deals, where the deals cannot give theirs" if any(
                rec.interval_source() == WILSON_DEALS_SOURCE for rec in self.records) else "")
        )
        if self.seats is not None:
            lines += ["", self.seats.text()]
        return "\n".join(lines)

    def to_json(self) -> dict:
        """The match as a JSON-able dict: its setting, each entrant's games, win rate and mean
        return with their 95% intervals over the deals and the win rate's ``interval_source``
        (``"deals"`` or ``"wilson-deals"``; ``agents``, in the order given), and ``seats``
        (:meth:`evaluate.report.SeatBreakdown.to_json`)."""
        agents = []
        for rec in self.records:
            w, lo, hi = rec.win_rate()
            r, rlo, rhi = rec.mean_return()
            agents.append({
                "label": rec.label, "games": rec.games, "win_rate": w, "win_low": lo, "win_high": hi,
                "mean_return": r, "return_low": rlo, "return_high": rhi, "interval_source": rec.interval_source(),
                "return_interval_source": rec.return_interval_source(),
            })  # fmt: skip
        from dice_envs.registry import env_module

        return {
            # the game's short name, as tournament --json gives it (env_id: what the match was given)
            "game": env_module(self.env_id).raw_env.game_class.name,
            "env_id": self.env_id,
            "options": dict(self.options),
            "games": self.num_games,
            "seed": self.seed,
            "agents": agents,
            "seats": None if self.seats is None else self.seats.to_json(),
        }


def _labels(game_name: str, specs) -> list[str]:
    """The tournament's labels (:func:`evaluate.tournament.make_labels`) for SPEC strings; agent
    objects and ``(name, params)`` pairs by :func:`agents.spec.spec_label`."""
    names = [base_label(game_name, spec) if isinstance(spec, str) else spec_label(spec) for spec in specs]
    return unique_labels(names)


def play_match(
    env_id: str,
    agent_specs: Sequence[Any],
    num_games: int,
    seed: int = 0,
    options: dict | None = None,
    progress: bool = False,
    on_game: Callable[[int, tuple[float, ...]], None] | None = None,
    max_decisions: int = MAX_DECISIONS,
) -> MatchResult:
    """Play ``num_games`` games between the given agents, rotating their seats every game.

    Args:
        env_id: a game's short name (``syvere``) or a registered env id.
        agent_specs: one entry per seat: a SPEC string (``"heuristic"``,
            ``"bluffer:lie_probability=0.3"``, a checkpoint path), a ``(name, params)`` pair, or
            an agent object (any object with ``act``; one with a ``game`` of its own must have been
            built for this game and these options: :func:`agents.check_fits`). ``num_players``
            defaults to the number of entries.
        num_games: games to play (>= 1); game ``g`` seats entrant ``i`` at seat ``(i + g) % N`` in
            two-player games, and rotates each deal's order (``deal_order``) with more players.
        seed: a whole number >= 0; game ``g`` is deal ``g // N`` in rotation ``g % N`` of the
            one table of :func:`evaluate.tournament.table_tasks`: its dice are keyed by
            ``(seed, entrants' labels, deal)`` and the moment of the game, common to the ``N``
            rotations of a deal, so matches with different seeds share no games.
        options: the game's options.
        progress: print progress lines to stderr (every 10% of the games, and at least every
            few seconds).
        on_game: called after each game with its number and the entrants' returns (in the
            order of ``agent_specs``); an exception it raises (``KeyboardInterrupt``) stops the
            match.
        max_decisions: the most decisions one game may take (``--max-decisions``). Agents can keep
            some games going for ever (in Meyer under ``claim_rule="at_least"``, a round lasts while
            every claim is believed and equalled): such a game stops the match with
            :class:`evaluate.tournament.GameTooLong`, a ``ValueError`` naming the agents; it is not
            counted as a draw, which would make up a result no rule of the game gives.

    Raises:
        ValueError: a bad number of games, seed, option, SPEC or ``max_decisions``, agents that do
            not fit the number of players, or a game not over after ``max_decisions`` decisions
            (:class:`evaluate.tournament.GameTooLong`).
    """
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be a whole number >= 1, got {num_games!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    max_decisions = check_max_decisions(max_decisions)
    specs = list(agent_specs)
    module = env_module(env_id)
    options = check_game_options(env_id, dict(options or {}),
                                 refused="a match (its games are played to the end, unseen)")  # fmt: skip
    options.setdefault("num_players", max(2, len(specs)))
    # The engine, not the env: the tournament's game loop plays on it directly, with keyed dice.
    # It is built before the agents are counted, so that a bad option is named as such:
    # num_players=9 is out of range, whatever the number of agents.
    game = module.raw_env.game_class(**options)
    if len(specs) < 2:
        raise ValueError(
            f"a match needs at least two agents, one per seat; got {len(specs)}"
            + (f" ({specs[0]!r})" if specs else "")
        )
    if options["num_players"] != len(specs):
        raise ValueError(f"{len(specs)} agents given for num_players={options['num_players']}; give one per seat")
    agents = []
    for spec in specs:
        if isinstance(spec, Agent) or (not isinstance(spec, (str, tuple, os.PathLike)) and hasattr(spec, "act")):
            check_fits(spec, game, "play_match")  # built for this game and these options
            agents.append(spec)
        elif isinstance(spec, tuple):
            name, params = spec
            agents.append(make_agent(game, name, **params))
        else:
            agents.append(make_agent(game, spec))
    labels = _labels(game.name, specs)
    records = [AgentRecord(label, players=len(specs)) for label in labels]
    n = len(specs)
    # A match's dice are common: the rotations of a deal share them (see SeatBreakdown).
    seats = SeatBreakdown(labels, n, "common", int(getattr(game, "first_starter", 0)))
    step = max(1, num_games // 10)
    last_report = time.monotonic()

    def count(g: int, record: GameRecord) -> None:
        nonlocal last_report
        seat_of = [record.seats.index(label) for label in labels]  # entrant -> seat (table_tasks')
        shares = record.win_shares()  # C-3: 1/k for each of k winners
        deal = record.task.deal
        for i, rec in enumerate(records):
            rec.add(shares[seat_of[i]], record.returns[seat_of[i]], deal)
        seats.add(record)
        if on_game is not None:
            on_game(g, tuple(record.returns[seat_of[i]] for i in range(n)))
        if progress:
            now = time.monotonic()
            if (g + 1) % step == 0 or now - last_report >= PROGRESS_SECONDS:
                last_report = now
                print(f"  {g + 1}/{num_games} games", file=sys.stderr, flush=True)

    play_table(
        game, dict(zip(labels, agents)), labels, int(num_games), int(seed), on_game=count, keep=False,
        max_decisions=max_decisions,
    )  # fmt: skip
    return MatchResult(env_id, options, records, num_games, seed, seats.finish())
