"""Tournament reports: the leaderboard in the terminal, CSV and JSON files, and pictures.

:func:`print_leaderboard` draws the leaderboard with rich on a terminal (plain text without rich,
and in a file or a pipe); :func:`write_report` writes into a directory (the pictures only where
matplotlib is installed):

| file | what |
|---|---|
| ``leaderboard.csv`` | one row per entrant, best first: rating and interval, games, win rate and mean return with their 95% intervals over the deals, whether it differs from the next (``separated_from_next``), then :data:`LEADERBOARD_NEXT_COLUMNS`: the difference from the next with its interval and p-values, and the expected score (or share of wins) against it, then :data:`LEADERBOARD_RATE_COLUMNS`: which interval the win rate and mean return have |
| ``head_to_head.csv`` | one row per ordered pair (:data:`HEAD_TO_HEAD_CSV_COLUMNS`, the leaderboard's :class:`~evaluate.ratings.PairMatrix`): how often the first finished ahead of the second (ties and "both lost" 1/2), its 95% interval over deals (or Wilson's over the deals, under independent dice over the games, as ``interval_source`` says), the wins, losses, ties and "both lost", and the share of the games one of the two won |
| ``seats.csv`` | win shares by seat (the first player's advantage, :class:`SeatBreakdown`): each entrant's in every seat, and each seat's over the table, with intervals that say what they count (games, or under common dice the effective games of the deals' spread) |
| ``report.json`` | the tournament's setting (``setting``: :func:`setting_text`, and its parts), the leaderboard, the head-to-head matrix (the leaderboard's ``head_to_head``: :meth:`PairMatrix.to_json`, as :meth:`Leaderboard.to_json` gives it), the seats (``seats``: :meth:`SeatBreakdown.to_json`) (and Meyer's bluffing profiles) |
| ``leaderboard.md`` | the setting, the leaderboard as printed (with its legends), the shares by seat and the head-to-head matrix as a Markdown table (:func:`leaderboard_markdown`) |
| ``head_to_head.png`` | the head-to-head matrix as a heatmap, each cell with its share and interval, under the setting |
| ``ratings.png`` | the ratings with their intervals, each entrant's difference from the next (``>`` where they differ) |
| ``bluffing.csv``, ``bluffing.png`` | Meyer only: every entrant's bluffing profile (:func:`bluffing_profile`): voluntary bluff and forced-lie rates by claim to beat, doubt rate and accuracy by claim (forced doubts apart), believed-lie rate, each with its counts and Wilson 95% interval |
| ``bluffing_by_context.csv`` | Meyer only: the same rates broken down by context (:data:`BLUFFING_CONTEXT_CSV_COLUMNS`): answers by (claim to beat, claim), everything by (own lives, other lives) and by opponent |

Pictures are drawn with matplotlib's Agg backend at fixed sizes (:func:`figure_size`), so a
report can be written without a display and its pictures compared between runs. The CSV files hold
data only (a header row, then rows, for any CSV reader); the setting they come from is in
``report.json`` and ``leaderboard.md`` beside them, and under the pictures' titles.
"""

from __future__ import annotations

import contextlib
import csv
import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from dice_envs import strict_json
from evaluate.ratings import HEAD_TO_HEAD_CSV_COLUMNS, WILSON_SOURCES, PairMatrix, _cell, _nan_none
from evaluate.stats import MIN_CLUSTER_DEALS, deal_clustered_share, deal_key

if TYPE_CHECKING:  # for the annotations only: the code imports evaluate.tournament where it needs it
    from evaluate.ratings import Leaderboard
    from evaluate.tournament import TournamentResult

DPI = 100
#: Entrants per row of the bluffing picture's legend.
_BLUFFING_LEGEND_COLUMNS = 2


# -- the terminal -------------------------------------------------------------------------------
def _is_terminal(file) -> bool:
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed file
        return False


def print_leaderboard(lb, title: str = "", file=None) -> None:
    """Print the leaderboard: a rich table on a terminal if rich is installed, else plain text.

    Each row but the last compares the entrant with the next one below it: ``vs next`` is the
    difference of their ratings with its 95% bootstrap interval, marked ``>`` where the two differ
    (Holm over the neighbour pairs, :func:`evaluate.ratings.leaderboard`), then the difference as
    an expected score or share of wins. The legend under the table (:meth:`Leaderboard.legend`)
    says what each mark and column means. Output to a file or a pipe is plain text, so logs hold
    no box drawing and no lines wrapped to a terminal's width.
    """
    import sys

    file = file or sys.stdout
    have_rich = False
    if _is_terminal(file):
        try:
            from rich.console import Console
            from rich.table import Table

            have_rich = True
        except ImportError:
            pass
    if not have_rich:
        if title:
            print(title, file=file)
        print(lb.text(), file=file)
        return
    table = Table(title=title or None, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("agent")
    table.add_column(lb.rating_name, justify="right")
    table.add_column("95% interval", justify="right", no_wrap=True)
    table.add_column("games", justify="right")
    table.add_column("win rate", justify="right")
    table.add_column("95% (deals)", justify="right", no_wrap=True)
    table.add_column("mean return", justify="right")
    table.add_column(f"vs next,\n{lb.ahead_name}", no_wrap=True)  # two lines a row keep the table narrow
    for k, r in enumerate(lb.rows, 1):
        table.add_row(
            str(k),
            r.label,
            f"{r.rating:.1f}",
            lb.rating_interval(r),
            str(r.games),
            f"{r.win_rate:.3f}",
            lb.win_interval(r),
            f"{r.mean_return:+.3f}",
            f"{lb.vs_next(r)}\n  {lb.ahead_text(r)}" if r.diff_next is not None else "",
        )
    console = Console(file=file, width=max(120, Console(file=file).width))
    console.print(table)
    for line in lb.legend():
        console.print(line, markup=False, highlight=False)


# -- Meyer's bluffing profile -------------------------------------------------------------------
@dataclass(frozen=True)
class Rate:
    """A rate with its counts and its 95% Wilson score interval (:func:`evaluate.stats.wilson`).

    Attributes:
        count: the events counted (the numerator).
        of: the chances they had (the denominator).
        rate: ``count / of``; NaN when ``of`` is 0.
        low, high: the Wilson 95% interval of the rate; NaN when ``of`` is 0.
    """

    count: int
    of: int
    rate: float
    low: float
    high: float

    @classmethod
    def of_counts(cls, count: int, of: int) -> "Rate":
        if of == 0:
            if count:
                raise ValueError(f"a rate of {count} events out of 0")
            nan = float("nan")
            return cls(0, 0, nan, nan, nan)
        from evaluate.stats import wilson

        rate, low, high = wilson(count, of)
        return cls(int(count), int(of), rate, low, high)

    def to_json(self) -> dict:
        return {
            "count": self.count,
            "of": self.of,
            "rate": _nan_none(self.rate),
            "low": _nan_none(self.low),
            "high": _nan_none(self.high),
        }


#: The profile's rates: measure name -> (what it is keyed by, numerator field, denominator field).
#: Each is also a row group of ``bluffing.csv`` (``measure`` column, ``_by_claim_to_beat`` or
#: ``_by_claim`` appended) and a method of :class:`BluffProfile`.
RATES: dict[str, tuple[str, str, str]] = {
    "lie_rate": ("claim_to_beat", "lies_by_beat", "claims_by_beat"),
    "voluntary_bluff_rate": ("claim_to_beat", "voluntary_lies_by_beat", "free_claims_by_beat"),
    "forced_lie_rate": ("claim_to_beat", "forced_lies_by_beat", "claims_by_beat"),
    "doubt_rate": ("claim", "doubts_by_claim", "responses_by_claim"),
    "doubt_accuracy": ("claim", "correct_doubts_by_claim", "doubts_by_claim"),
    "believed_lie_rate": ("claim", "believed_lies_by_claim", "believes_by_claim"),
    "forced_doubt_accuracy": ("claim", "correct_forced_doubts_by_claim", "forced_doubts_by_claim"),
}

#: The breakdowns of a profile by context (attribute of :class:`BluffProfile` -> what its keys are).
CONTEXTS: dict[str, str] = {
    "by_claim_to_beat": "claim_to_beat",
    "by_lives": "lives",
    "by_opponent": "opponent",
}


@dataclass
class BluffProfile:
    """How one entrant bluffs and doubts in Meyer, counted over stored games.

    Claims are keyed by the claim to beat, by name (``"54"``); ``"start"`` is a round's opening
    claim (nothing to beat). Only claims the claimer made having seen the dice under the cup count
    as lies or truths; claims after a blind reroll are counted apart (``blind_claims``).

    A claim is a *lie* when the engine says it is not true of the dice under the cup
    (``game.is_true``: the dice rank below it). A seen-dice claim is *free* when the dice allowed
    a truthful claim: some claim the engine allowed over the claim to beat
    (``game.legal_claims``) is true of the dice. That is when the dice rank at or above the claim
    to beat under ``claim_rule="at_least"``, strictly above it under ``"higher"``, in the
    variant's ranking (with or without Lille Meyer), and always at a round's start. Otherwise the
    claim is *forced*: every legal claim is a lie, so it is one. (Under ``blind_reroll`` a player
    with such dice could have rerolled blind instead; the claim still counts as forced, since no
    true claim was open to it with the dice it saw.)

    A doubt is *forced* when ``believe`` was not legal: under ``claim_rule="higher"`` a claim of
    ``21`` (Meyer) can only be doubted (ME-4). Forced doubts are counted apart
    (``forced_doubts_by_claim``) and are left out of ``responses_by_claim``, ``doubts_by_claim``
    and ``correct_doubts_by_claim``, so the doubt rate and the doubt accuracy measure choices only.
    (This is a correction: profiles before it counted a forced doubt of ``21`` as a chosen one.
    Under ``claim_rule="at_least"`` no doubt is forced and nothing changes.)

    The claims and answers are also kept by context, each context a profile of its own (an
    instance of this class, with the same counts and rates but no breakdowns of its own), holding
    only the events of that context:

    * ``by_claim_to_beat``: answers, by the claim the answered claim had to beat. The doubt rate
      of a claim depends on what it beat (the 1-life equilibrium doubts a ``63`` made over ``53``
      or lower with probability 0.31, over ``54`` and up always), so pooled over the claims to
      beat it mixes different decisions; the doubt rate, doubt accuracy and believed-lie rate of
      ``profile.by_claim_to_beat[beat]`` at ``claim`` are those of the answers to ``claim`` made
      over ``beat`` (``"start"``: a round's opening claim). Only the answer counts are filled
      (claims are keyed by claim to beat already), the forced doubts among them.
    * ``by_lives``: by the lives at the decision, keyed ``"OWN-OTHER"`` (``"6-3"``): this
      entrant's lives and the other player's in a two-player game; with more players, the lowest
      lives among the others still in. Every count is filled, claims and answers.
    * ``by_opponent``: by the label of the player on the other side of the decision: for a claim,
      the player who answers it; for an answer, the claimer. In a two-player game, the other
      player. Every count is filled.

    The counts of a breakdown add up to the profile's own (every claim or answer is in exactly
    one key of each breakdown; blind claims too, in ``by_lives`` and ``by_opponent``).

    Attributes:
        claims_by_beat: claim to beat -> claims made (seen dice): free plus forced.
        lies_by_beat: claim to beat -> of those, lies (voluntary plus forced).
        free_claims_by_beat: claim to beat -> claims where the dice allowed a truthful claim.
        voluntary_lies_by_beat: claim to beat -> of the free claims, lies (voluntary bluffs).
        forced_lies_by_beat: claim to beat -> claims where the dice allowed no truthful claim
            (each a lie).
        blind_claims: claims made after a blind reroll.
        responses_by_claim: claim -> times this entrant chose doubt or believe facing it.
        doubts_by_claim: claim -> doubts.
        correct_doubts_by_claim: claim -> doubts of a lie (the doubt won).
        believes_by_claim: claim -> believes.
        believed_lies_by_claim: claim -> believes of a lie (fooled).
        forced_doubts_by_claim: claim -> doubts where ``believe`` was not legal (forced); not in
            the three counts above them.
        correct_forced_doubts_by_claim: claim -> forced doubts of a lie.
        by_claim_to_beat: claim to beat -> the profile of this entrant's answers to claims made
            over it (its answer counts only).
        by_lives: ``"OWN-OTHER"`` lives -> the profile of this entrant's claims and answers made
            at those lives.
        by_opponent: opponent's label -> the profile of this entrant's claims and answers facing
            that opponent.

    Every rate method takes a key (a claim to beat or a claim) or ``None`` for the rate over all
    keys, and returns NaN where its denominator is 0; :meth:`rate` gives the same rate with its
    counts and Wilson 95% interval (over decisions, counted as independent, though one game's are not;
    each interval holds for its own rate, not for the whole profile at once). The lie rate splits as
    ``lie_rate = forced_lie_rate + (1 - forced_lie_rate) * voluntary_bluff_rate`` (at every key).
    A context's rates are its profile's: ``profile.by_claim_to_beat["53"].rate("doubt_rate", "63")``
    is the doubt rate of ``63`` claimed over ``53``, with its counts and Wilson interval.
    """

    label: str
    claims_by_beat: dict[str, int] = field(default_factory=dict)
    lies_by_beat: dict[str, int] = field(default_factory=dict)
    blind_claims: int = 0
    responses_by_claim: dict[str, int] = field(default_factory=dict)
    doubts_by_claim: dict[str, int] = field(default_factory=dict)
    correct_doubts_by_claim: dict[str, int] = field(default_factory=dict)
    believes_by_claim: dict[str, int] = field(default_factory=dict)
    believed_lies_by_claim: dict[str, int] = field(default_factory=dict)
    free_claims_by_beat: dict[str, int] = field(default_factory=dict)
    voluntary_lies_by_beat: dict[str, int] = field(default_factory=dict)
    forced_lies_by_beat: dict[str, int] = field(default_factory=dict)
    forced_doubts_by_claim: dict[str, int] = field(default_factory=dict)
    correct_forced_doubts_by_claim: dict[str, int] = field(default_factory=dict)
    by_claim_to_beat: dict[str, "BluffProfile"] = field(default_factory=dict)
    by_lives: dict[str, "BluffProfile"] = field(default_factory=dict)
    by_opponent: dict[str, "BluffProfile"] = field(default_factory=dict)

    def counts(self, measure: str, key: str | None = None) -> tuple[int, int]:
        """``(numerator, denominator)`` of a rate of :data:`RATES` at ``key`` (``None``: over all keys)."""
        try:
            _, num_name, den_name = RATES[measure]
        except KeyError:
            raise ValueError(f"unknown bluffing rate {measure!r}; the rates are {', '.join(RATES)}") from None
        num, den = getattr(self, num_name), getattr(self, den_name)
        if key is None:
            return sum(num.values()), sum(den.values())
        return num.get(key, 0), den.get(key, 0)

    def rate(self, measure: str, key: str | None = None) -> Rate:
        """A rate of :data:`RATES` at ``key`` (``None``: over all keys), with its counts and Wilson
        95% interval."""
        return Rate.of_counts(*self.counts(measure, key))

    def _value(self, measure: str, key) -> float:
        n, d = self.counts(measure, key)
        return n / d if d else float("nan")

    def lie_rate(self, beat: str | None = None) -> float:
        """Lies / seen-dice claims (facing ``beat``, or overall): voluntary and forced lies together."""
        return self._value("lie_rate", beat)

    def voluntary_bluff_rate(self, beat: str | None = None) -> float:
        """Voluntary lies / free claims (claims where the dice allowed a truthful claim).

        0 for a player who never lies when it can tell the truth, whatever its dice.
        """
        return self._value("voluntary_bluff_rate", beat)

    def forced_lie_rate(self, beat: str | None = None) -> float:
        """Forced lies / seen-dice claims: the share of claims where the dice allowed no truthful claim.

        It measures the dice and the claims this player had to beat, not a choice (always 0 at
        ``"start"``).
        """
        return self._value("forced_lie_rate", beat)

    def doubt_rate(self, claim: str | None = None) -> float:
        """Doubts / responses (doubt or believe) facing ``claim``, or overall; forced doubts are
        left out of both."""
        return self._value("doubt_rate", claim)

    def doubt_accuracy(self, claim: str | None = None) -> float:
        """Doubts of a lie / doubts (chosen doubts only)."""
        return self._value("doubt_accuracy", claim)

    def forced_doubt_accuracy(self, claim: str | None = None) -> float:
        """Forced doubts of a lie / forced doubts: how often a claim that could only be doubted was a lie."""
        return self._value("forced_doubt_accuracy", claim)

    def believed_lie_rate(self, claim: str | None = None) -> float:
        """Believes of a lie / believes."""
        return self._value("believed_lie_rate", claim)

    def context(self, name: str, key: str) -> "BluffProfile":
        """The profile of one context of a breakdown (:data:`CONTEXTS`), created empty if missing."""
        contexts = getattr(self, name)
        profile = contexts.get(key)
        if profile is None:
            profile = contexts[key] = BluffProfile(self.label)
        return profile

    def to_json(self, breakdowns: bool = True) -> dict:
        """The profile as a JSON-able dict: its overall rates, their counts and intervals, every
        count, and (``breakdowns``) each breakdown as ``{key: profile without breakdowns}``."""
        data = {
            "label": self.label,
            **{measure: _nan_none(self._value(measure, None)) for measure in RATES},
            "rates": {measure: self.rate(measure).to_json() for measure in RATES},
            "blind_claims": self.blind_claims,
            "claims_by_beat": self.claims_by_beat,
            "lies_by_beat": self.lies_by_beat,
            "free_claims_by_beat": self.free_claims_by_beat,
            "voluntary_lies_by_beat": self.voluntary_lies_by_beat,
            "forced_lies_by_beat": self.forced_lies_by_beat,
            "responses_by_claim": self.responses_by_claim,
            "doubts_by_claim": self.doubts_by_claim,
            "correct_doubts_by_claim": self.correct_doubts_by_claim,
            "believes_by_claim": self.believes_by_claim,
            "believed_lies_by_claim": self.believed_lies_by_claim,
            "forced_doubts_by_claim": self.forced_doubts_by_claim,
            "correct_forced_doubts_by_claim": self.correct_forced_doubts_by_claim,
        }
        if breakdowns:
            for name in CONTEXTS:
                data[name] = {key: p.to_json(breakdowns=False) for key, p in getattr(self, name).items()}
        return data


def _bump(d: dict, key: str, by: int = 1) -> None:
    d[key] = d.get(key, 0) + by


def _count_claim(profile: BluffProfile, beat: str, free: bool, lie: bool) -> None:
    """Count one seen-dice claim made over ``beat`` into ``profile``."""
    _bump(profile.claims_by_beat, beat)
    if free:
        _bump(profile.free_claims_by_beat, beat)
        if lie:
            _bump(profile.voluntary_lies_by_beat, beat)
    else:
        _bump(profile.forced_lies_by_beat, beat)
    if lie:
        _bump(profile.lies_by_beat, beat)


def _count_answer(profile: BluffProfile, claim: str, doubt: bool, lie: bool, forced: bool) -> None:
    """Count one answer (doubt or believe) to ``claim`` into ``profile``; a forced doubt apart."""
    if forced:
        _bump(profile.forced_doubts_by_claim, claim)
        if lie:
            _bump(profile.correct_forced_doubts_by_claim, claim)
        return
    _bump(profile.responses_by_claim, claim)
    if doubt:
        _bump(profile.doubts_by_claim, claim)
        if lie:
            _bump(profile.correct_doubts_by_claim, claim)
    else:
        _bump(profile.believes_by_claim, claim)
        if lie:
            _bump(profile.believed_lies_by_claim, claim)


def _lives_order(key: str) -> tuple[int, ...]:
    """``"OWN-OTHER"`` as numbers, to sort the lives keys."""
    return tuple(int(x) for x in key.split("-"))


def lives_key(lives: Sequence[int], seat: int) -> str:
    """The ``by_lives`` key of a decision of ``seat``: ``"OWN-OTHER"``, its lives and the lowest
    lives among the other players still in (the other player's, in a two-player game)."""
    others = [life for s, life in enumerate(lives) if s != seat and life > 0]
    return f"{lives[seat]}-{min(others) if others else 0}"


def bluffing_profile(game, records: Sequence, labels: Sequence[str]) -> dict[str, BluffProfile]:
    """Every entrant's bluffing profile, from the stored games replayed through the Meyer engine.

    Whether a claim is a lie, whether the dice allowed a truthful one and whether a doubt was
    forced are the engine's own decisions (``game.is_true``, ``game.legal_claims``,
    ``game.legal_actions``), so they follow the game's variant (``claim_rule``, ``lille_meyer``);
    see :class:`BluffProfile` for the counts, the rates and the breakdowns by context (the claim
    to beat of an answered claim is tracked along the replay, so it does not need the game's
    ``history`` option).

    Args:
        game: the Meyer engine the games were played with.
        records: game records (``seats`` and ``log``).
        labels: the entrants.

    Raises:
        ValueError: ``game`` is not Meyer, or a log does not replay.
    """
    from dice_envs.games import meyer
    from evaluate.tournament import replay_states

    if game.name != "meyer":
        raise ValueError(f"bluffing profiles are for Meyer, not {game.name}")
    profiles = {label: BluffProfile(label) for label in labels}
    names = meyer.CLAIM_NAMES
    # Whether some legal claim over the claim to beat is true of the dice: (dice, beat) -> bool.
    free_cache: dict[tuple, bool] = {}
    # Whether a claim can only be doubted (believe not legal): claim -> bool.
    forced_cache: dict[int, bool] = {}
    for record in records:
        seats = record.seats
        beaten = -1  # the claim to beat when the standing claim was made (-1: it opened the round)
        for event, before, after in replay_states(game, record.log):
            if isinstance(event, str):
                continue
            actor = game.current_player(before)
            profile = profiles[seats[actor]]
            if before.phase == meyer.CLAIM and event >= meyer.FIRST_CLAIM:
                claim = event - meyer.FIRST_CLAIM
                beaten = before.claim
                targets = (
                    profile,
                    profile.context("by_lives", lives_key(before.lives, actor)),
                    profile.context("by_opponent", seats[after.actor]),  # who answers the claim
                )
                if before.seen_by != actor:
                    for target in targets:
                        target.blind_claims += 1
                    continue
                beat = "start" if before.claim < 0 else names[before.claim]
                key = (before.cup, before.claim)
                free = free_cache.get(key)
                if free is None:
                    legal = game.legal_claims(before.claim)
                    free = free_cache[key] = any(game.is_true(before.cup, c) for c in legal)
                lie = not game.is_true(before.cup, claim)
                if not free and not lie:  # cannot happen: a legal true claim makes the dice free
                    raise ValueError(f"a true claim {names[claim]} where the dice {before.cup} allowed none")
                for target in targets:
                    _count_claim(target, beat, free, lie)
            elif before.phase == meyer.RESPOND and event in (meyer.DOUBT, meyer.BELIEVE):
                claim = names[before.claim]
                lie = not game.is_true(before.cup, before.claim)
                forced = forced_cache.get(before.claim)
                if forced is None:
                    forced = forced_cache[before.claim] = meyer.BELIEVE not in game.legal_actions(before)
                for target in (
                    profile,
                    profile.context("by_claim_to_beat", "start" if beaten < 0 else names[beaten]),
                    profile.context("by_lives", lives_key(before.lives, actor)),
                    profile.context("by_opponent", seats[before.claimer]),
                ):
                    _count_answer(target, claim, event == meyer.DOUBT, lie, forced)
    # The breakdowns in a fixed order: claims to beat as the game ranks them, lives lowest
    # first, opponents in the entrants' order.
    rank = {name: k for k, name in enumerate(["start", *_claim_axis(game)])}
    for p in profiles.values():
        by_rank = sorted(p.by_claim_to_beat, key=rank.__getitem__)
        p.by_claim_to_beat = {k: p.by_claim_to_beat[k] for k in by_rank}
        p.by_lives = {k: p.by_lives[k] for k in sorted(p.by_lives, key=_lives_order)}
        p.by_opponent = {k: p.by_opponent[k] for k in labels if k in p.by_opponent}
    return profiles


def _claim_axis(game) -> list[str]:
    """Claim names from the worst value to Meyer (the ranking of the game's variant)."""
    from dice_envs.games import meyer

    return [meyer.CLAIM_NAMES[c] for c in reversed(game.ranking)]


# -- pictures -----------------------------------------------------------------------------------
def figure_size(kind: str, num_entrants: int) -> tuple[float, float]:
    """The size in inches of a report picture (at :data:`DPI` dots per inch).

    ``head_to_head``: square, growing with the entrants; ``ratings``: a row per entrant;
    ``bluffing``: four panels side by side, above a legend of two entrants a row.
    """
    if kind == "head_to_head":
        side = max(5.0, 1.5 + 1.3 * num_entrants)
        return (side + 1.5, side)
    if kind == "ratings":
        return (8.0, 1.5 + 0.5 * num_entrants)
    if kind == "bluffing":
        rows = math.ceil(max(1, num_entrants) / _BLUFFING_LEGEND_COLUMNS)  # of the legend
        return (20.0, 5.2 + 0.2 * rows)
    raise ValueError(f"unknown picture {kind!r}")


def pictures_available() -> bool:
    """Whether matplotlib (the ``[report]`` extra) is installed, so a report can have its pictures."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def plot_head_to_head(h2h: PairMatrix, path: str, title: str = "", subtitle: str = "") -> str:
    """The head-to-head matrix (:class:`~evaluate.ratings.PairMatrix`, a leaderboard's ``matrix``)
    as a heatmap: the row's share against the column, its interval in the cell (``w`` after it:
    Wilson's, where the deals cannot give an interval), and a title saying what they count, above
    ``subtitle`` (the tournament's setting, :func:`setting_text`). A :class:`Leaderboard`, as the
    first argument was before 2026-12-01, is read for its matrix."""
    h2h = getattr(h2h, "matrix", h2h)
    plt = _pyplot()
    import textwrap

    n = len(h2h.labels)
    share = np.full((n, n), np.nan)
    for i, a in enumerate(h2h.labels):
        for j, b in enumerate(h2h.labels):
            cell = h2h.cell(a, b)
            if cell is not None:
                share[i, j] = cell.share
    fig, ax = plt.subplots(figsize=figure_size("head_to_head", n), dpi=DPI)
    image = ax.imshow(share, cmap="RdBu", vmin=0.0, vmax=1.0)
    for i, a in enumerate(h2h.labels):
        for j, b in enumerate(h2h.labels):
            cell = h2h.cell(a, b)
            if cell is None:
                continue
            dark = abs(cell.share - 0.5) > 0.3
            mark = "w" if cell.source in WILSON_SOURCES else ""
            ax.text(
                j, i, f"{cell.share:.2f}\n[{cell.low:.2f}, {cell.high:.2f}]{mark}", ha="center", va="center",
                fontsize=8, color="white" if dark else "black",
            )  # fmt: skip
    ax.set_xticks(range(n), h2h.labels, rotation=30, ha="right")
    ax.set_yticks(range(n), h2h.labels)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    width = figure_size("head_to_head", n)[0]
    lines = [title or "head to head: share of games the row finished ahead", f"({h2h.counting()})"]
    lines += textwrap.wrap(h2h.intervals(), int(width * 11))
    ax.set_title("\n".join(lines), fontsize=9)
    if subtitle:
        fig.suptitle("\n".join(textwrap.wrap(subtitle, int(width * 14))), fontsize=8, color="dimgray")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def plot_ratings(lb, path: str, title: str = "") -> str:
    """The ratings with their 95% bootstrap intervals, best at the top.

    Between each row and the next, right of the plot, the difference of their ratings with its 95%
    interval (:meth:`Leaderboard.vs_next`, ``>`` where they differ). A point is orange where the
    entrant is not shown to differ from the next (:attr:`Row.separated` false: overlapping bars do
    not decide it); the colour key is the legend, below the title whatever the title.
    """
    plt = _pyplot()
    from matplotlib.lines import Line2D

    from evaluate.ratings import ALPHA

    n = len(lb.rows)
    fig, ax = plt.subplots(figsize=figure_size("ratings", n), dpi=DPI)
    ys = list(range(n))[::-1]
    for y, r in zip(ys, lb.rows):
        if r.rating_low is None or r.rating_high is None:
            xerr = None
        else:
            # A percentile interval of very few deals can leave the point just outside it: the bar
            # is then drawn from the point's side only, not refused by matplotlib.
            xerr = [[max(0.0, r.rating - r.rating_low)], [max(0.0, r.rating_high - r.rating)]]
        ax.errorbar(
            r.rating, y, xerr=xerr, fmt="o", capsize=4,
            color="tab:orange" if r.separated is False else "tab:blue",
        )  # fmt: skip
        if r.diff_next is not None:  # the difference from the next, between the two rows
            ax.annotate(
                lb.vs_next(r), xy=(1.02, y - 0.5), xycoords=("axes fraction", "data"), fontsize=7,
                va="center", ha="left", family="monospace", annotation_clip=False,
            )  # fmt: skip
    if n > 1:
        ax.annotate("vs next", xy=(1.02, n - 0.7), xycoords=("axes fraction", "data"), fontsize=7, va="bottom",
                    ha="left", annotation_clip=False)  # fmt: skip
    ax.set_yticks(ys, [r.label + (" *" if r.widened else "") for r in lb.rows])
    ax.set_ylim(-0.7, n - 0.3)
    if lb.bootstrap <= 0:
        interval = "no intervals: bootstrap 0"
    elif lb.widened():
        interval = "bars: 95% bootstrap intervals over deals, each entrant's; * widened by the posterior interval"
    else:
        interval = "bars: 95% bootstrap intervals over deals, each entrant's"
    ax.set_xlabel(f"{lb.rating_name} ({lb.method}; {interval})")
    ax.grid(axis="x", alpha=0.3)
    if lb.bootstrap > 0:
        key = [
            Line2D([], [], color="tab:blue", marker="o",
                   label=f"> differs from the next (Holm, family-wise {ALPHA:.0%}), or last"),
            Line2D([], [], color="tab:orange", marker="o", label="not shown to differ from the next"),
        ]  # fmt: skip
        ax.legend(handles=key, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8, frameon=False)
    ax.set_title(title or "ratings", pad=22 if lb.bootstrap > 0 else 6)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


#: The panels of ``bluffing.png``: (rate of :data:`RATES`, title).
BLUFFING_PANELS = (
    (
        "voluntary_bluff_rate",
        "voluntary bluff rate by claim to beat\n(lies / claims where the dice allowed a true one)",
    ),
    ("forced_lie_rate", "forced-lie rate by claim to beat\n(claims where no legal claim was true / claims)"),
    ("doubt_rate", "doubt rate by claim\n(doubts / doubts and believes)"),
    ("doubt_accuracy", "doubt accuracy by claim\n(doubts of a lie / doubts)"),
)


def _counts_text(rate: Rate) -> str:
    if not rate.of:
        return "0/0"
    return f"{rate.count}/{rate.of} = {rate.rate:.3f} [{rate.low:.3f}, {rate.high:.3f}]"


def bluffing_legend_label(profile: BluffProfile) -> str:
    """An entrant's line in the bluffing picture's legend: its overall rates with counts and intervals."""
    return (
        f"{profile.label}: voluntary bluffs {_counts_text(profile.rate('voluntary_bluff_rate'))}, "
        f"forced lies {_counts_text(profile.rate('forced_lie_rate'))}, "
        f"believed lies {_counts_text(profile.rate('believed_lie_rate'))}"
    )


def plot_bluffing(profiles: dict[str, BluffProfile], game, path: str, title: str = "", subtitle: str = "") -> str:
    """Meyer bluffing profiles, one panel each (:data:`BLUFFING_PANELS`): voluntary bluff rate and
    forced-lie rate by claim to beat, doubt rate and doubt accuracy by claim.

    Every point carries its 95% Wilson interval as an error bar (the entrants' points are set a
    little apart along the claims so that their bars do not hide each other); a point with no
    chances (denominator 0) is left out. The legend gives each entrant's overall voluntary bluff,
    forced-lie and believed-lie rates as ``count/of = rate [low, high]``. ``subtitle`` (the
    tournament's setting, :func:`setting_text`) goes under the title.
    """
    plt = _pyplot()

    axis = _claim_axis(game)
    beats = ["start", *axis]
    fig, axes = plt.subplots(
        1, len(BLUFFING_PANELS), figsize=figure_size("bluffing", len(profiles)), dpi=DPI, sharey=True
    )  # fmt: skip
    m = max(1, len(profiles))
    width = min(0.6, 0.2 * m)  # the spread of one claim's points
    for ax, (measure, name) in zip(axes, BLUFFING_PANELS):
        keys = beats if RATES[measure][0] == "claim_to_beat" else axis
        for k, profile in enumerate(profiles.values()):
            shift = (k - (m - 1) / 2) * (width / m)
            rates = [profile.rate(measure, key) for key in keys]
            xs = [x + shift for x, r in zip(range(len(keys)), rates) if r.of]
            kept = [r for r in rates if r.of]
            ax.errorbar(
                xs, [r.rate for r in kept],
                yerr=[[r.rate - r.low for r in kept], [r.high - r.rate for r in kept]],
                marker="o", markersize=3, linewidth=1, elinewidth=0.8, capsize=1.5, color=f"C{k}",
                label=bluffing_legend_label(profile),
            )  # fmt: skip
        ax.set_xticks(range(len(keys)), keys, rotation=90, fontsize=7)
        ax.set_title(name, fontsize=9)
        ax.set_ylim(-0.03, 1.03)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("rate (bars: 95% Wilson intervals over decisions, each its own)")
    fig.suptitle((title or "Meyer bluffing profiles (claims from worst to Meyer)") + (f"\n{subtitle}" if subtitle else ""))
    # One legend for the panels, below them, clear of the data: the panels are laid out above
    # the height the legend takes.
    handles, labels = axes[0].get_legend_handles_labels()
    legend = fig.legend(
        handles, labels, loc="lower center", ncol=max(1, min(len(labels), _BLUFFING_LEGEND_COLUMNS)),
        fontsize=8, frameon=False,
    )  # fmt: skip
    fig.canvas.draw()
    bottom = legend.get_window_extent(fig.canvas.get_renderer()).height / fig.bbox.height
    fig.tight_layout(rect=(0, min(0.5, bottom + 0.01), 1, 1))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


# -- seats: the first player's advantage --------------------------------------------------------
#: The columns of ``seats.csv``: one row per (entrant, seat), ``scope`` ``agent``, then one per
#: seat for the table as a whole, ``scope`` ``table`` and ``agent`` empty. ``starts`` is true for the
#: seat that starts the game (the engine's ``first_starter``, seat 0 by default); ``games`` the
#: games played in that seat; ``win_share`` the share of them won (a k-way tie gives each 1/k),
#: with its 95% Wilson interval ``low``..``high``; ``samples`` is the number of independent games
#: the interval is worth and ``sample_unit`` what they are: ``games`` (the games themselves),
#: ``effective`` (under common dice, the table's rows: the interval is clustered by deal, and
#: ``samples`` is the effective number of games it is worth, see :class:`SeatBreakdown`) or
#: ``deals`` (the table's rows under common dice where the deals cannot give a clustered interval:
#: Wilson's over the deals); ``deals`` the deals the games came from. A seat an entrant never sat
#: in has ``games`` 0 and empty share and bounds.
SEATS_CSV_COLUMNS = (
    "scope", "agent", "seat", "starts", "games", "deals", "samples", "sample_unit", "win_share", "low", "high",
)  # fmt: skip


@dataclass(frozen=True)
class SeatShare:
    """A win share in one seat with its 95% Wilson interval (:func:`evaluate.stats.wilson`).

    Attributes:
        seat: the seat (0 .. num_players - 1).
        games: the games played in that seat.
        deals: the deals those games came from.
        share: the win share (ties shared); NaN without games.
        low, high: the Wilson 95% interval; NaN without games.
        samples: the number of independent games the interval is worth (see ``unit``).
        unit: ``"games"`` (the games are independent and counted as they are), ``"effective"``
            (the table's share under common dice, clustered by deal: the effective number of
            games, from ``deals`` up, not capped at ``games``) or ``"deals"`` (the table's share
            under common dice where the deals cannot give a clustered interval: Wilson's over
            the deals); see :class:`SeatBreakdown`.
    """

    seat: int
    games: int
    deals: int
    share: float
    low: float
    high: float
    samples: int
    unit: str

    @classmethod
    def of(cls, seat: int, games: int, deals: int, share: float, samples: int, unit: str) -> "SeatShare":
        """``share`` with its Wilson interval counted over ``samples`` independent games."""
        if samples == 0:
            nan = float("nan")
            return cls(seat, games, deals, nan, nan, nan, 0, unit)
        from evaluate.stats import wilson

        _, low, high = wilson(min(max(share, 0.0), 1.0) * samples, samples)
        return cls(seat, games, deals, share, low, high, samples, unit)

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "games": self.games,
            "deals": self.deals,
            "share": _nan_none(self.share),
            "low": _nan_none(self.low),
            "high": _nan_none(self.high),
            "samples": self.samples,
            "unit": self.unit,
        }

    def text(self) -> str:
        """``0.612 [0.582, 0.641]``, or ``-`` without games."""
        if not self.samples:
            return "-"
        return f"{self.share:.3f} [{self.low:.3f}, {self.high:.3f}]"


class SeatBreakdown:
    """Win shares by seat: each entrant's in every seat, and each seat's over the table.

    Seat 0 is the engine's first seat; the seat that starts the game is the engine's
    ``first_starter`` (seat 0 unless the options say otherwise), and play goes on in seat order.
    It answers "what is going first worth": an entrant's share in each seat, and each seat's share
    of the wins over the table, pooled over every entrant and table.

    **The intervals.** Every share has its 95% Wilson interval, which says how many independent
    games it counts (``samples``), because the games of a tournament are not all independent:

    * *An entrant in one seat* counts its games. An entrant sits in each seat once per deal of each
      of its tables, so its games in one seat come from different deals (or tables), whose dice
      are keyed apart: independent games, common dice or not.
    * *A seat over the table, independent dice*, counts the games: the rotations of a deal are
      then independent games.
    * *A seat over the table, common dice* (the default), is estimated over the deals. The
      rotations of a deal meet the same dice at the same moment of the game, and the seat that
      plays a turn is the same in every rotation, so a seat meets the same dice in every rotation
      of a deal for as long as the games' courses agree; with copies of one deterministic agent in
      every seat the rotations are one game (the same log). Deals are independent (their dice are
      keyed apart), so the seat's share is averaged within each deal and the interval comes from
      the spread of those deal averages (:func:`deal_clustered_share`: the normal interval on the
      deals' means, in Wilson's form with the effective number of games ``deals * p(1 - p) / s2``,
      ``p`` the share and ``s2`` the deal averages' variance, at Student's t quantile). That number
      (``samples``, unit ``effective``) is not capped: where the stronger entrant wins from either
      seat, the rotations of a deal cancel its strength and the deal averages vary less than
      independent games would, so a real first-player advantage of 0.518 over 600 deals of 2
      (Meyer) is [0.502, 0.535], not the [0.490, 0.547] of the 1189 different games that an
      earlier cap allowed. Copies of a deterministic agent count the deals (a deal average is then
      a single game's result). Where the deals cannot give an interval (fewer than
      :data:`MIN_CLUSTER_DEALS`, a share of 0 or 1, or every deal's average the same) it is
      Wilson's over the deals (unit ``deals``): a deal average's variance never exceeds
      ``p(1 - p)``, so that interval is never too narrow.

    The breakdown also counts the deals whose rotations were all one game (:attr:`deals_alike`,
    detected by their identical logs) and says so in :meth:`notes`: the entrants' cells of those
    deals repeat each other's games, and what a seat is worth to copies of one agent is measured
    with ``--dice independent``, where every rotation is a game of its own.

    Records are added one at a time (:meth:`add`), so a match of any length keeps only the deal it
    is in; :meth:`finish` counts a deal cut short (a match whose games do not fill its last deal).
    Reading a result finishes the breakdown.

    Example:
        >>> from evaluate.tournament import run_tournament
        >>> result = run_tournament("syvere", ["heuristic", "heuristic"], games=20, progress=False)
        >>> seats = SeatBreakdown.of_result(result)
        >>> seats.deals, seats.deals_alike  # two copies of a deterministic agent, common dice
        (20, 20)
        >>> seats.seat_share(0).games, seats.seat_share(0).samples  # 40 games, 20 samples
        (40, 20)
    """

    def __init__(self, labels: Sequence[str], num_players: int, dice: str = "common", first_starter: int = 0):
        if dice not in ("common", "independent"):
            raise ValueError(f"dice must be 'common' or 'independent', got {dice!r}")
        if not 0 <= first_starter < num_players:
            raise ValueError(f"first_starter must be 0..{num_players - 1}, got {first_starter!r}")
        self.labels = list(labels)
        self.num_players = int(num_players)
        self.dice = dice
        self.first_starter = int(first_starter)
        #: label -> per seat: games, and the sum of the win shares.
        self._agent_games = {label: [0] * self.num_players for label in self.labels}
        self._agent_sums = {label: [0.0] * self.num_players for label in self.labels}
        #: games counted.
        self.games = 0
        #: deals counted (a deal of a table: its rotations; one cut short counts too).
        self.deals = 0
        #: deals of which two or more rotations were played.
        self.deals_compared = 0
        #: of those, the deals whose rotations were all the same game (the same log).
        self.deals_alike = 0
        #: the different games played, a deal's rotations that were the same game (the same log) counted once.
        self.distinct_games = 0
        self._game_sums = [0.0] * self.num_players  # per seat: the sum of the shares over games
        self._deal_sums = [0.0] * self.num_players  # per seat: the sum of the deals' mean shares
        self._deal_squares = [0.0] * self.num_players  # ... and of their squares
        self._pending: dict[tuple, list] = {}  # a deal's key -> [(shares, log), ...] played so far
        self._finished = False

    @classmethod
    def of_records(
        cls, records: Iterable, labels: Sequence[str], num_players: int, dice: str = "common", first_starter: int = 0
    ) -> "SeatBreakdown":
        """The breakdown of these game records (``evaluate.tournament.GameRecord``)."""
        seats = cls(labels, num_players, dice, first_starter)
        for record in records:
            seats.add(record)
        return seats.finish()

    @classmethod
    def of_result(cls, result, game=None, order: Sequence[str] | None = None) -> "SeatBreakdown":
        """The breakdown of a tournament (``evaluate.tournament.TournamentResult``); ``game``, its
        engine, says which seat starts (built from the result if omitted). ``order`` lists the
        entrants in the order of the text, the CSV and the JSON (the leaderboard's, best first);
        default the result's (``--agents``)."""
        if game is None:
            from evaluate.tournament import build_game

            game = build_game(result.game_name, {**result.options, "num_players": result.num_players})
        starter = int(getattr(game, "first_starter", 0))
        labels = list(result.labels)
        if order is not None:
            if sorted(order) != sorted(labels):
                raise ValueError(f"SeatBreakdown.of_result: order {list(order)} is not the entrants {labels}")
            labels = list(order)
        return cls.of_records(result.records, labels, result.num_players, result.dice, starter)

    def add(self, record) -> None:
        """Count one game (a ``GameRecord``); its deal is counted once all its rotations are in.

        Raises:
            ValueError: the breakdown was finished (read), or the game has another number of seats
                or an entrant it does not know.
        """
        if self._finished:
            raise ValueError("SeatBreakdown.add: the breakdown is finished (it was read); make a new one")
        seats = record.seats
        if len(seats) != self.num_players:
            raise ValueError(f"SeatBreakdown.add: a game of {len(seats)} seats in a breakdown of {self.num_players}")
        unknown = [label for label in seats if label not in self._agent_games]
        if unknown:
            raise ValueError(f"SeatBreakdown.add: {', '.join(map(repr, unknown))} is not among the entrants")
        shares = record.win_shares()
        for seat, label in enumerate(seats):
            self._agent_games[label][seat] += 1
            self._agent_sums[label][seat] += shares[seat]
            self._game_sums[seat] += shares[seat]
        self.games += 1
        task = record.task
        deal = deal_key(task)
        played = self._pending.setdefault(deal, [])
        played.append((shares, record.log))
        if len(played) == self.num_players:
            self._count_deal(played)
            del self._pending[deal]

    def _count_deal(self, played: list) -> None:
        self.deals += 1
        for seat in range(self.num_players):
            mean = sum(shares[seat] for shares, _ in played) / len(played)
            self._deal_sums[seat] += mean
            self._deal_squares[seat] += mean * mean
        logs: list = []
        for _, log in played:
            if all(log != other for other in logs):
                logs.append(log)
        self.distinct_games += len(logs)
        if len(played) > 1:
            self.deals_compared += 1
            self.deals_alike += len(logs) == 1

    def finish(self) -> "SeatBreakdown":
        """Count the deals not all of whose rotations were played; no game can be added after."""
        if not self._finished:
            for played in self._pending.values():
                self._count_deal(played)
            self._pending.clear()
            self._finished = True
        return self

    # -- reading ---------------------------------------------------------------------------------
    def agent_share(self, label: str, seat: int) -> SeatShare:
        """``label``'s win share in ``seat``; its interval counts the games (one per deal)."""
        self.finish()
        games = self._agent_games[label][seat]
        share = self._agent_sums[label][seat] / games if games else float("nan")
        return SeatShare.of(seat, games, games, share, games, "games")

    def _table_interval(self, seat: int) -> tuple[float, float, float, float] | None:
        """The deal-clustered share of ``seat`` over the table (:func:`deal_clustered_share` on
        the deals' mean shares), or ``None`` where the deals cannot give one."""
        m = self.deals
        total = self._deal_sums[seat]
        return deal_clustered_share(m, total, float(m), self._deal_squares[seat], total, float(m))

    def effective_games(self, seat: int) -> int:
        """The independent games the table's interval of ``seat`` is worth: the games under
        independent dice; under common dice the effective number of games of the deal-clustered
        interval (not capped at the games), or the deals where the deals cannot give that
        interval (see the class docstring)."""
        self.finish()
        if self.dice == "independent" or self.deals == 0:
            return self.games
        found = self._table_interval(seat)
        return self.deals if found is None else round(found[3])

    def seat_share(self, seat: int) -> SeatShare:
        """The share of the games won from ``seat``, over every entrant and table, with its
        interval: over the games under independent dice; over the deals under common dice
        (unit ``effective``: clustered by deal; ``deals``: Wilson's over the deals where the
        deals cannot give a clustered interval; see the class docstring)."""
        self.finish()
        if self.dice == "independent":
            share = self._game_sums[seat] / self.games if self.games else float("nan")
            return SeatShare.of(seat, self.games, self.deals, share, self.games, "games")
        share = self._deal_sums[seat] / self.deals if self.deals else float("nan")
        found = self._table_interval(seat)
        if found is None:
            return SeatShare.of(seat, self.games, self.deals, share, self.deals, "deals")
        share, low, high, n_eff = found
        return SeatShare(seat, self.games, self.deals, share, low, high, round(n_eff), "effective")

    def notes(self) -> list[str]:
        """What a reader needs to read the intervals: what the table's intervals count, and how
        many deals were one game in every rotation."""
        self.finish()
        if self.dice == "common":
            lines = [
                "common dice: a seat meets the same dice in every rotation of a deal while the games agree, so the "
                "table's intervals are over the deals (Wilson's with the effective number of games of the deals' "
                "spread, \"counted as\"; from fewer than "
                f"{MIN_CLUSTER_DEALS} deals, or deals all alike, Wilson's over the deals)"
            ]
        else:
            lines = ["independent dice: every rotation of a deal is an independent game, and the intervals count games"]
        lines.append("each interval holds for its own cell, not for the whole table at once")
        if self.deals_alike:
            alike = f"{self.deals_alike} of {self.deals_compared} deals were the same game in every rotation (the same log"
            if self.dice == "common":
                alike += (
                    ": copies of a deterministic agent, or agents that play alike, on common dice); their entrants' "
                    "cells repeat each other's games. What a seat is worth to copies of one agent: "
                    "`dice-envs tournament ... --dice independent`"
                )
            else:
                alike += ")"
            lines.append(alike)
        return lines

    def text(self) -> str:
        """Plain-text lines: each entrant's share in every seat, each seat's over the table, and
        the :meth:`notes`, wrapped."""
        import textwrap

        self.finish()
        n = self.num_players
        width = max(24, *(len(label) for label in self.labels))
        cell = 23
        heads = [f"seat {s}" + (" (starts)" if s == self.first_starter else "") for s in range(n)]
        lines = [
            f"by seat (win share, 95% Wilson interval; player_{self.first_starter} starts the game):",
            f"{'agent':<{width}} " + " ".join(f"{h:<{cell}}" for h in heads) + " games per seat",
        ]
        for label in self.labels:
            cells = [self.agent_share(label, s) for s in range(n)]
            games = [c.games for c in cells]
            count = str(games[0]) if len(set(games)) == 1 else "/".join(map(str, games))
            lines.append(f"{label:<{width}} " + " ".join(f"{c.text():<{cell}}" for c in cells) + f" {count}")
        table = [self.seat_share(s) for s in range(n)]
        samples = {c.samples for c in table}
        counted = (
            f"{self.games} games"
            if self.dice == "independent"
            else f"{self.deals} deals, counted as {'/'.join(str(c.samples) for c in table) if len(samples) > 1 else table[0].samples}"
        )
        lines.append(f"{'table':<{width}} " + " ".join(f"{c.text():<{cell}}" for c in table) + f" {counted}")
        lines = [line.rstrip() for line in lines]
        for note in self.notes():
            lines += textwrap.wrap(note, 100, subsequent_indent="  ")
        return "\n".join(lines)

    def to_json(self) -> dict:
        """The breakdown as a JSON-able dict (``seats`` in ``report.json`` and ``--json``):
        ``by_seat`` the table's shares, ``by_agent`` each entrant's (a list by seat), each a
        :meth:`SeatShare.to_json`, with the counts and :meth:`notes`."""
        self.finish()
        n = self.num_players
        return {
            "num_players": n,
            "first_starter": self.first_starter,
            "dice": self.dice,
            "games": self.games,
            "deals": self.deals,
            "deals_compared": self.deals_compared,
            "deals_alike": self.deals_alike,
            "distinct_games": self.distinct_games,
            "by_seat": [self.seat_share(s).to_json() for s in range(n)],
            "by_agent": {label: [self.agent_share(label, s).to_json() for s in range(n)] for label in self.labels},
            "notes": self.notes(),
        }

    def csv_rows(self) -> list[list]:
        """The rows of ``seats.csv`` (:data:`SEATS_CSV_COLUMNS`)."""
        self.finish()

        def row(scope: str, label: str, c: SeatShare) -> list:
            share = [f"{c.share:.5f}", f"{c.low:.5f}", f"{c.high:.5f}"] if c.samples else ["", "", ""]
            return [scope, label, c.seat, c.seat == self.first_starter, c.games, c.deals, c.samples, c.unit, *share]

        rows = [row("agent", label, self.agent_share(label, s)) for label in self.labels for s in range(self.num_players)]
        return rows + [row("table", "", self.seat_share(s)) for s in range(self.num_players)]


# -- files --------------------------------------------------------------------------------------
#: The columns of ``bluffing.csv``: one row per entrant, rate (:data:`RATES`, ``measure`` is its
#: name with ``_by_claim_to_beat`` or ``_by_claim``) and claim (``"all"``: over every claim), with
#: ``count`` events of ``of`` chances, the rate and its 95% Wilson interval ``low``..``high``.
BLUFFING_CSV_COLUMNS = ("agent", "measure", "claim", "count", "of", "rate", "low", "high")

#: The columns of ``bluffing_by_context.csv``: the rows of ``bluffing.csv`` (``measure``,
#: ``claim``, ``count`` ... ``high``, the same meanings) for every context of every entrant's
#: breakdowns (:class:`BluffProfile`), the context in ``context`` and its key in the columns:
#:
#: * ``claim_to_beat``: answers to claims made over ``claim_to_beat`` (``"start"``: a round's
#:   opening claim); the answer rates (doubt rate, doubt accuracy, believed-lie rate, forced-doubt
#:   accuracy) by ``claim``, the claim answered: the doubt rate by (claim to beat, claim).
#: * ``lives``: claims and answers made with ``own_lives``, the other player having ``other_lives``
#:   (with more than two players, the lowest lives among the others still in); every rate.
#: * ``opponent``: claims answered by ``opponent`` and answers to its claims; every rate.
#:
#: The key columns of the other contexts are empty. Contexts come in the game's claim order,
#: by lives (own, then other, lowest first) and by opponent in the entrants' order; a rate with no
#: chances (``of`` 0) has no row.
BLUFFING_CONTEXT_CSV_COLUMNS = (
    "agent", "context", "claim_to_beat", "own_lives", "other_lives", "opponent",
    "measure", "claim", "count", "of", "rate", "low", "high",
)  # fmt: skip


def _profile_rates(p: BluffProfile, order: dict[str, int]):
    """A profile's rows of ``bluffing.csv``: ``(measure_by_key, claim, Rate)`` for every rate of
    :data:`RATES` at every claim in ``order`` (unknown claims after them), then ``"all"`` (the rate
    over every claim); keys with no chances (``of`` 0) are left out."""
    for measure, (by, _, den_name) in RATES.items():
        den = getattr(p, den_name)
        keys = sorted(den, key=lambda claim: (order.get(claim, len(order)), claim))
        for key in [*keys, None]:
            r = p.rate(measure, key)
            if r.of:
                yield f"{measure}_by_{by}", "all" if key is None else key, r


def _rate_cells(r: Rate) -> list:
    """A rate's CSV cells: ``count, of, rate, low, high``."""
    return [r.count, r.of, f"{r.rate:.5f}", f"{r.low:.5f}", f"{r.high:.5f}"]


def _contexts(p: BluffProfile, order: dict[str, int]):
    """A profile's contexts in the order of ``bluffing_by_context.csv``: ``(context, key cells,
    context's profile)``, the key cells being ``claim_to_beat, own_lives, other_lives, opponent``."""
    for beat in sorted(p.by_claim_to_beat, key=lambda claim: (order.get(claim, len(order)), claim)):
        yield "claim_to_beat", (beat, "", "", ""), p.by_claim_to_beat[beat]
    for key in sorted(p.by_lives, key=_lives_order):
        own, other = key.split("-")
        yield "lives", ("", own, other, ""), p.by_lives[key]
    for opponent in p.by_opponent:  # in the entrants' order (bluffing_profile's)
        yield "opponent", ("", "", "", opponent), p.by_opponent[opponent]


def setting_text(result, game=None) -> str:
    """The tournament's setting in one line (the command line's title over the leaderboard, the
    pictures' subtitles, ``leaderboard.md``): the game and its options in short
    (:func:`dice_envs.options.options_summary`: 10 000 by its preset and what differs from it, the
    other games by what differs from their defaults), the table size, the entrants, the dice, the
    seed and the games, with the tables they were played at.

    >>> from evaluate.tournament import run_tournament
    >>> result = run_tournament("meyer", ["honest", "random"], games=3, options={"lives": 2}, progress=False)
    >>> setting_text(result)
    'meyer (lives=2), tables of 2, 2 agents, common dice, seed 0, 6 games (3 deals per table x 2 rotations x 1 table)'
    """
    from dice_envs.options import options_summary
    from evaluate.tournament import build_game, effective_options

    if game is None:
        game = build_game(result.game_name, {**result.options, "num_players": result.num_players})
    options = effective_options(result.game_name, game)
    options.pop("num_players", None)  # the table size, said apart
    tables = len({r.task.table_key for r in result.records})
    return (
        f"{result.game_name} ({options_summary(result.game_name, options) or 'default options'}), "
        f"tables of {result.num_players}, {len(result.labels)} agents, {result.dice} dice, seed {result.seed}, "
        f"{len(result.records)} games ({_count(result.games, 'deal')} per table x {result.num_players} rotations "
        f"x {_count(tables, 'table')})"
    )


def _count(n: int, noun: str) -> str:
    """``1 deal``, ``3 deals``."""
    return f"{n} {noun}{'s' * (n != 1)}"


def leaderboard_markdown(lb, seats: SeatBreakdown, setting: str, title: str = "") -> str:
    """``leaderboard.md``: the setting, the leaderboard as :func:`print_leaderboard` prints it to a
    file (with its legends; ``title`` its first line, as the command line prints it), the shares
    by seat (:meth:`SeatBreakdown.text`) and the leaderboard's head-to-head matrix
    (:meth:`PairMatrix.markdown`)."""
    import io

    board = io.StringIO()
    print_leaderboard(lb, title, file=board)  # a StringIO is no terminal: the plain text printed
    return "\n".join([
        f"# Tournament: {setting}", "", "## Leaderboard", "", "```text", board.getvalue().rstrip("\n"), "```", "",
        "## By seat", "", "```text", seats.text(), "```", "", "## Head to head", "", lb.matrix.markdown(), "",
        "The setting in full (options, agents' SPECs, seed, dice) and every number here are in report.json.", "",
    ])  # fmt: skip


#: ``leaderboard.csv``'s columns on each entrant against the next row (:class:`evaluate.ratings.Row`),
#: after the older columns: the rating difference and its 95% interval, its p-value alone and
#: Holm-adjusted (``separated_from_next`` is this test), and the expected score (Bradley-Terry) or
#: share of the two's wins (more players) with its interval. Empty for the last row.
LEADERBOARD_NEXT_COLUMNS = (
    "diff_next", "diff_next_low", "diff_next_high", "p_next", "p_next_holm", "ahead_next", "ahead_next_low",
    "ahead_next_high",
)  # fmt: skip

#: ``leaderboard.csv``'s last columns: which 95% interval the win rate and the mean return have
#: (``deals``: over the deals, stratified by table; ``wilson-deals``: Wilson's over the deals, where
#: they cannot give theirs: :class:`evaluate.stats.StratifiedShare`) and the independent games the
#: win rate's interval is worth.
LEADERBOARD_RATE_COLUMNS = ("win_interval_source", "win_effective_games", "return_interval_source")


#: Every file a report can write (the module docstring's table): a report written into a directory
#: that holds an earlier one removes those it does not write this time (a Syvere report over a
#: Meyer one leaves no bluffing files; a report without matplotlib, no older pictures).
REPORT_FILES = (
    "leaderboard.csv", "head_to_head.csv", "seats.csv", "report.json", "leaderboard.md", "head_to_head.png",
    "ratings.png", "bluffing.csv", "bluffing.png", "bluffing_by_context.csv",
)  # fmt: skip


def write_report(
    directory: str,
    result: TournamentResult,
    lb: Leaderboard,
    game=None,
    seats: SeatBreakdown | None = None,
    title: str = "",
) -> list[str]:
    """Write the report files of a tournament into ``directory`` (created if missing).

    Args:
        result: the ``TournamentResult``.
        lb: its ``Leaderboard``.
        game: the engine (needed for Meyer's bluffing profiles; built from the result if omitted).
        seats: the result's :class:`SeatBreakdown` (made from it, in leaderboard order, if omitted).
        title: the leaderboard's title line as printed (``leaderboard.md`` repeats the board as
            printed; none by default).

    Returns:
        The paths written: the pictures only where matplotlib is installed
        (:func:`pictures_available`), the CSV and JSON files always.

    The report is written whole or not at all: into a temporary directory inside ``directory``,
    then each file renamed into place, and the files of :data:`REPORT_FILES` that this report does
    not write are removed, so ``directory`` never mixes two reports; a report that fails (a full
    disk) leaves ``directory`` as it was, and says which file it could not write. Other files in
    ``directory`` are left alone.
    """
    import shutil
    import tempfile

    os.makedirs(directory, exist_ok=True)
    work = tempfile.mkdtemp(dir=directory, prefix=".report-")
    try:
        try:
            made = _write_report_files(work, result, lb, game, seats, title)
        except OSError as exc:  # name the file where it was to go, not in the temporary directory
            raise OSError(str(exc).replace(work, os.path.normpath(directory))) from None
        names = [os.path.basename(p) for p in made]
        for name in names:
            os.replace(os.path.join(work, name), os.path.join(directory, name))
        for name in REPORT_FILES:
            if name not in names and os.path.isfile(os.path.join(directory, name)):
                os.remove(os.path.join(directory, name))  # an earlier report's, which this one does not replace
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [os.path.join(directory, name) for name in names]


def _write_report_files(
    directory: str, result: TournamentResult, lb: Leaderboard, game, seats: SeatBreakdown | None, title: str
) -> list[str]:
    """:func:`write_report`'s files, written into ``directory`` (its temporary directory)."""
    from evaluate.tournament import build_game

    pictures = pictures_available()
    written = []
    columns = ["rank", "agent", "rating", "rating_low", "rating_high", "games", "win_rate", "win_low", "win_high",
               "mean_return", "return_low", "return_high", "separated_from_next", "interval_source",
               *LEADERBOARD_NEXT_COLUMNS, *LEADERBOARD_RATE_COLUMNS]  # fmt: skip
    rows = (  # an unknown (None) bound or separation is an empty cell
        [k, r.label, f"{r.rating:.3f}", _cell(r.rating_low, ".3f"), _cell(r.rating_high, ".3f"), r.games,
         f"{r.win_rate:.5f}", f"{r.win_low:.5f}", f"{r.win_high:.5f}", f"{r.mean_return:.5f}",
         f"{r.return_low:.5f}", f"{r.return_high:.5f}", "" if r.separated is None else r.separated,
         r.interval_source or "", _cell(r.diff_next, ".3f"), _cell(r.diff_next_low, ".3f"),
         _cell(r.diff_next_high, ".3f"), _cell(r.p_next, ".3g"), _cell(r.p_next_holm, ".3g"),
         _cell(r.ahead_next, ".5f"), _cell(r.ahead_next_low, ".5f"), _cell(r.ahead_next_high, ".5f"),
         r.win_interval_source or "", _cell(r.win_effective_games, ".1f"), r.return_interval_source or ""]
        for k, r in enumerate(lb.rows, 1)
    )  # fmt: skip
    written.append(_write_csv(directory, "leaderboard.csv", columns, rows))
    h2h = lb.matrix  # the leaderboard's head-to-head matrix, built once with it
    written.append(_write_csv(directory, "head_to_head.csv", HEAD_TO_HEAD_CSV_COLUMNS, h2h.csv_rows()))

    if game is None:
        game = build_game(result.game_name, {**result.options, "num_players": result.num_players})
    setting = setting_text(result, game)
    if seats is None:
        seats = SeatBreakdown.of_result(result, game, order=lb.labels)
    written.append(_write_csv(directory, "seats.csv", SEATS_CSV_COLUMNS, seats.csv_rows()))
    profiles = None
    if result.game_name == "meyer":
        profiles = bluffing_profile(game, result.records, result.labels)
        # Claims in the game's order, lowest first (a round's opening, "start", before them all).
        order = {name: k for k, name in enumerate(["start", *_claim_axis(game)])}
        rates = ([p.label, measure, key, *_rate_cells(r)] for p in profiles.values()
                 for measure, key, r in _profile_rates(p, order))  # fmt: skip
        written.append(_write_csv(directory, "bluffing.csv", BLUFFING_CSV_COLUMNS, rates))
        by_context = ([p.label, context, *cells, measure, key, *_rate_cells(r)] for p in profiles.values()
                      for context, cells, sub in _contexts(p, order)
                      for measure, key, r in _profile_rates(sub, order))  # fmt: skip
        written.append(_write_csv(directory, "bluffing_by_context.csv", BLUFFING_CONTEXT_CSV_COLUMNS, by_context))
        if pictures:
            written.append(_picture(directory, "bluffing.png",
                                    lambda path: plot_bluffing(profiles, game, path, subtitle=setting)))  # fmt: skip

    path = os.path.join(directory, "report.json")
    with _atomic_text(path) as handle:
        data = report_json(result, lb, profiles, seats, game=game)
        handle.write(strict_json.dumps(data, indent=1, default=_json_default))
    written.append(path)
    path = os.path.join(directory, "leaderboard.md")
    with _atomic_text(path) as handle:
        handle.write(leaderboard_markdown(lb, seats, setting, title))
    written.append(path)
    if pictures:
        ratings_title = f"{result.game_name}: {len(result.labels)} agents, {len(result.records)} games"
        written.append(_picture(directory, "head_to_head.png", lambda path: plot_head_to_head(h2h, path, subtitle=setting)))
        written.append(_picture(directory, "ratings.png", lambda path: plot_ratings(lb, path, ratings_title)))
    return written


def _picture(directory: str, name: str, draw) -> str:
    """``draw(path)`` of ``directory/name``; a failure to write it (a full disk) names the file."""
    path = os.path.join(directory, name)
    try:
        return draw(path)
    except OSError as exc:
        raise OSError(f"cannot write {path} ({exc.strerror or exc})") from None


@contextlib.contextmanager
def _atomic_text(path: str, newline: str | None = None):
    """A text file written whole or not at all (:func:`agents.solvers.cache.atomic_open`, with a
    new file's usual permissions); a failure (a full disk, permissions) names the file."""
    from pathlib import Path

    from agents.solvers.cache import atomic_open

    try:
        with atomic_open(Path(path), "w", shared=True, newline=newline, encoding="utf-8") as handle:
            yield handle
    except OSError as exc:
        raise OSError(f"cannot write {path} ({exc.strerror or exc})") from None


def _write_csv(directory: str, name: str, columns: Sequence[str], rows: Iterable[Sequence]) -> str:
    """Write ``rows`` under a header of ``columns`` to ``directory/name`` (whole or not at all);
    returns the path."""
    path = os.path.join(directory, name)
    with _atomic_text(path, newline="") as handle:
        out = csv.writer(handle)
        out.writerow(columns)
        out.writerows(rows)
    return path


def _json_default(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def report_json(
    result, lb, profiles: dict | None = None, seats: SeatBreakdown | None = None, game=None
) -> dict:
    """The report as one JSON-able dict (also the base of ``--json``'s last line).

    ``seats`` is the tournament's :class:`SeatBreakdown` (made from the result, in leaderboard
    order, if omitted), kept under ``seats``. ``leaderboard`` is :meth:`Leaderboard.to_json`,
    whose ``head_to_head`` is the leaderboard's matrix (:meth:`PairMatrix.to_json`, each cell
    :meth:`PairCell.to_json`: the share, its interval over deals and its source, the win, loss,
    tie and "both lost" counts), as ``head_to_head.csv``. ``setting`` is :func:`setting_text`.
    """
    if seats is None:
        seats = SeatBreakdown.of_result(result, game, order=lb.labels)
    data = {
        "setting": setting_text(result, game),
        "game": result.game_name,
        "options": result.options,
        "num_players": result.num_players,
        "agents": dict(zip(result.labels, result.specs)),
        "games_per_table": result.games,
        "seed": result.seed,
        "dice": result.dice,
        "games_total": len(result.records),
        "games_played_now": result.played_now,
        "seconds": result.seconds,
        "games_per_second": result.games_per_second,
        "workers": result.workers,
        "db": result.db_path,
        "ratings": lb.ratings(),
        "leaderboard": lb.to_json(),
        "seats": seats.to_json(),
    }
    if profiles is not None:
        data["bluffing"] = {label: p.to_json() for label, p in profiles.items()}
    return data
