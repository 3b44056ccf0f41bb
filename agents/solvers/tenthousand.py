"""10 000, one turn: the policy that maximises the expected banked points of a turn (issue 8, item 3).

A turn of 10 000 (TT-2..TT-9) is a stopping problem over *(turn total, dice to roll)*. Before a
roll of ``k`` dice with turn total ``T`` the value is

    V(T, k) = sum over rolls of k dice, p(roll) * max over legal actions of
                  keep s roll: V(T + value(s), dice left after s, or 6 after hot dice)
                  keep s bank: the points the bank adds to the player's total

and a roll without a legal selection (a bust) is worth 0. Every selection scores a positive
multiple of 50, so the turn total only grows and the table is filled from high turn totals down.
The turn's value is ``V(0, 6)``.

**Read from the engine, not re-stated.** The solver never scores dice or checks a threshold
itself: it builds a *turn model* from the engine contract. For every roll of 1..6 dice
(:meth:`Game.chance_outcomes`, :meth:`Game.apply_chance`) it lists the legal ``keep ... roll``
actions (:meth:`Game.legal_actions`) and applies each (:meth:`Game.apply_action`) to read the
points it adds, the dice it leaves to roll and whether it leaves a combination unconfirmed
(TT-9c, the state's ``pending``). Whether a bank is allowed, and what it adds to the total (0 for a
bank past the target under TT-9d), is read from the engine the same way, with one structural
assumption that the tests check against the engine on every roll: the bank of a selection depends
on the state only through the turn total it makes, the dice it leaves and whether it leaves a
combination unconfirmed (plus the player's banked total and whether it has opened, which are fixed
within a turn). One representative state per such class is asked at every turn total.

**Context.** The value depends on whether the player has opened (the opening threshold applies to
the first bank, ``min_bank`` to later ones, TT-7) and, under ``over_threshold`` or
``exact_target`` (TT-9b, TT-9d), on the banked total: :func:`solve` takes both. Under the other
options the banked total cannot change a turn and is ignored (the tests check that). The bust
penalty (TT-9e) counts across turns, not within one, so it is not part of a turn's value.

**Cap.** Turn totals above a cap (``cap``, default :data:`DEFAULT_CAP` points) are not tabulated:
the value of rolling on from beyond it is taken as 0, while a bank made beyond it still counts in
full. So the value computed is a lower bound of the exact one, and the gap is at most the
probability of passing the cap times what can be won from there. Near the cap a bank beats rolling
on wherever it is allowed, so the cap matters only through rare forced rolls: at the default cap,
20 000, the preset values agree with those at caps of 30 000 and 60 000 to 3e-13 points (all but
``dk`` not opened to the last bit of a float64; ``tests/test_solver_tenthousand.py`` checks 20 000
against 40 000 to 1e-9 points), so no printed digit depends on it. Under ``exact_target`` no cap is needed: beyond the
target a bank adds nothing, so the table stops there and the value is exact.

Values of the presets (``dice-envs solve tenthousand --preset P [--opened]``), not opened /
opened: ``dk`` 461.1334 / 571.2944, ``no`` 568.6573 / 590.6608, ``farkle`` 553.8747 / 553.8747.

Example:
    >>> round(solve(preset="no", opened=True).value, 4)
    590.6608
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from agents.base import DeterministicAgent, legal_of
from dice_envs.games import tenthousand as tt

SOLVER = "tenthousand-turn"
VERSION = 1
STEP = 50  # every selection scores a multiple of 50 (TT-5), so turn totals live on this grid
DEFAULT_CAP = 20_000  # turn totals tabulated (points); see the module docstring


@dataclass
class TurnModel:
    """One turn of one player, as the engine plays it, on the grid of turn totals.

    Attributes:
        game: the engine.
        opened: whether the player has banked before (TT-7).
        banked: the player's banked total.
        cap_units: turn totals 0 .. ``cap_units * STEP`` are tabulated.
        rolls: ``rolls[k]``: for each roll of ``k`` dice, ``(probability, entries)`` where each entry
            ``(increment, next_dice, class, action)`` is a legal ``keep ... roll`` action: the turn
            total it adds (in steps of 50), the dice rolled next, its bank class and its action id.
            A bust has no entries.
        classes: the bank classes, ``(dice left, pending)``.
        bank: ``bank[class, u]``: the points a bank adds when it makes turn total ``u * STEP``
            in that class, or ``-1`` where the bank is not allowed (or no state reaches it).
    """

    game: tt.Game
    opened: bool
    banked: int
    cap_units: int
    rolls: dict[int, list[tuple[Fraction, list[tuple[int, int, int, int]]]]] = field(repr=False)
    classes: list[tuple[int, bool]] = field(repr=False)
    bank: np.ndarray = field(repr=False)

    @property
    def max_increment(self) -> int:
        return max((e[0] for k in self.rolls for _, es in self.rolls[k] for e in es), default=0)


def _base_state(game: tt.Game, opened: bool, banked: int) -> tt.State:
    """A state of the first turn of the game with the acting player's banked total and opening."""
    state = game.initial_state()
    seat = game.current_player(state)
    totals = list(state.totals)
    totals[seat] = banked
    flags = list(state.opened)
    flags[seat] = opened
    return state._replace(totals=tuple(totals), opened=tuple(flags))


def _is_decision_of(game: tt.Game, state: tt.State, seat: int, turn: int) -> bool:
    return (
        not game.is_terminal(state)
        and not game.is_chance(state)
        and game.current_player(state) == seat
        and state.turn == turn
    )


def check_cap(cap, name: str = "cap") -> None:
    """Refuse a ``cap`` (turn totals tabulated, points) that is not a positive multiple of 50.

    >>> check_cap(75, "--cap")
    Traceback (most recent call last):
    ValueError: --cap must be a positive multiple of 50 points, got 75
    """
    if isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap < STEP or cap % STEP:
        raise ValueError(f"{name} must be a positive multiple of {STEP} points, got {cap!r}")


def check_context(game: tt.Game, opened: bool, banked: int, flags: bool = False) -> None:
    """Refuse points banked by a player who has not opened, where an opening threshold exists:
    only a bank opens (TT-7), so no game reaches that state. A total below zero (bust penalties,
    TT-9e) can come before the opening bank. ``flags`` words the message for the command line.

    >>> check_context(tt.Game(preset="dk"), opened=False, banked=500)
    Traceback (most recent call last):
    ValueError: banked=500 with opened=False: a player with points banked has opened (TT-7); pass opened=True
    """
    number = isinstance(banked, (int, np.integer)) and not isinstance(banked, bool)  # else build_model says
    if number and banked > 0 and not opened and game.opening > 0:
        given, fix = (
            (f"--banked {banked} without --opened", "add --opened")
            if flags
            else (f"banked={banked} with opened=False", "pass opened=True")
        )
        raise ValueError(f"{given}: a player with points banked has opened (TT-7); {fix}")


def build_model(game: tt.Game, opened: bool = False, banked: int = 0, cap: int = DEFAULT_CAP) -> TurnModel:
    """Read one player's turn from the engine (see the module docstring).

    Args:
        game: a :class:`dice_envs.games.tenthousand.Game`.
        opened: whether the player has banked before.
        banked: the player's banked total (a multiple of 50; it may be negative after a penalty).
        cap: the largest turn total tabulated, in points (a positive multiple of 50). Under
            ``exact_target`` the table stops at ``target - banked`` when that is smaller.

    Raises:
        ValueError: a bad ``cap`` or ``banked``, or an engine whose scores leave the 50-point grid.
    """
    if not isinstance(game, tt.Game):
        raise ValueError(f"build_model needs a tenthousand Game, got {game!r}")
    check_cap(cap)
    if isinstance(banked, bool) or not isinstance(banked, (int, np.integer)) or banked % STEP:
        raise ValueError(f"banked must be a whole multiple of {STEP} points, got {banked!r}")
    banked, opened = int(banked), bool(opened)
    if game.exact_target:
        if banked > game.target:
            raise ValueError(f"banked {banked} is past the target {game.target}, which exact_target never allows")
        # Past the target a bank adds nothing (TT-9d) and the turn total only grows: V is 0 there.
        cap = min(int(cap), max(game.target - banked, STEP))
    cap_units = int(cap) // STEP
    base = _base_state(game, opened, banked)
    seat, turn = game.current_player(base), base.turn

    classes: dict[tuple[int, bool], int] = {}
    representative: list[tuple[tt.State, int, int]] = []  # per class: (decision state at T=0, bank id, increment)
    rolls: dict[int, list] = {}
    for k in range(1, tt.NUM_DICE + 1):
        chance = base._replace(to_roll=k)
        rolls[k] = []
        for dice, p in game.chance_outcomes(chance):
            after = game.apply_chance(chance, dice)
            entries = []
            if _is_decision_of(game, after, seat, turn):
                for action in game.legal_actions(after):
                    selection, is_bank = tt.decode_action(action)
                    if is_bank:
                        continue
                    nxt = game.apply_action(after, action)
                    gain = nxt.turn_total - after.turn_total
                    if gain <= 0 or gain % STEP:
                        raise ValueError(f"keep {tt.to_string(selection)} adds {gain} points: off the {STEP}-point grid")
                    key = (k - len(selection), bool(nxt.pending))
                    if key not in classes:
                        classes[key] = len(representative)
                        representative.append((after, action + 1, gain))
                    elif gain < representative[classes[key]][2]:
                        representative[classes[key]] = (after, action + 1, gain)
                    entries.append((gain // STEP, game.num_dice_to_roll(nxt), classes[key], action))
            rolls[k].append((p, entries))

    max_inc = max((e[0] for k in rolls for _, es in rolls[k] for e in es), default=0)
    bank = np.full((len(representative), cap_units + max_inc + 1), -1, dtype=np.int64)
    amount: dict[int, int] = {}  # what a bank adds, by the turn total it makes
    for c, (after, bank_action, gain) in enumerate(representative):
        for u in range(gain // STEP, cap_units + max_inc + 1):
            state = after._replace(turn_total=u * STEP - gain)
            if bank_action in game.legal_actions(state):
                # Applying a bank is the costly call: it is asked once per turn total, since what a
                # bank adds depends on the total it makes, not on the dice (the tests check this).
                if u not in amount:
                    amount[u] = game.apply_action(state, bank_action).totals[seat] - banked
                bank[c, u] = amount[u]
    return TurnModel(game, opened, banked, cap_units, rolls, list(classes), bank)


def _flat(model: TurnModel, k: int):
    """The roll entries of ``k`` dice as arrays, grouped by roll, busts left out."""
    probs, starts, nxt, cls = [], [], [], []
    inc: list[int] = []
    for p, entries in model.rolls[k]:
        if not entries:
            continue
        probs.append(float(p))
        starts.append(len(inc))
        for increment, next_dice, c, _ in entries:
            inc.append(increment)
            nxt.append(next_dice)
            cls.append(c)
    return (np.array(probs), np.array(starts, dtype=np.int64), np.array(inc, dtype=np.int64),
            np.array(nxt, dtype=np.int64), np.array(cls, dtype=np.int64))  # fmt: skip


def values(
    model: TurnModel,
    progress: Callable[[int], None] | None = None,
    worth: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """The table ``V[u, k]`` (float64): expected banked points before rolling ``k`` dice at turn total ``u * STEP``.

    Rows run over ``u = 0 .. cap_units + max increment``; rows past the cap are 0 (see the cap in
    the module docstring); column 0 is unused.

    Args:
        model: from :func:`build_model`.
        progress: called with the number of turn totals done, every 20 of them.
        worth: what a bank adding ``a`` points is worth, elementwise over an array of amounts
            (default: ``a`` itself, the expected banked points). :func:`lead_worth` turns the
            table into the chance of ending the turn ahead of a total.
    """
    max_inc = model.bank.shape[1] - model.cap_units - 1
    V = np.zeros((model.cap_units + max_inc + 1, tt.NUM_DICE + 1))
    amounts = model.bank if worth is None else worth(model.bank).astype(float)
    bank = np.where(model.bank >= 0, amounts, -np.inf)
    flat = {k: _flat(model, k) for k in range(1, tt.NUM_DICE + 1)}
    for i, u in enumerate(range(model.cap_units, -1, -1)):
        for k, (probs, starts, inc, nxt, cls) in flat.items():
            if len(probs) == 0:
                continue
            t = u + inc
            best = np.maximum(V[t, nxt], bank[cls, t])
            V[u, k] = probs @ np.maximum.reduceat(best, starts)
        if progress is not None and (i + 1) % 20 == 0:
            progress(i + 1)
    return V


def lead_worth(need: int) -> Callable[[np.ndarray], np.ndarray]:
    """Bank worth for a turn that must end ahead: 1 for adding more than ``need`` points, 1/2 for
    exactly ``need`` (a tie shared by two), else 0. With it :func:`values` gives the chance of
    ending the turn ahead of a total ``need`` points above one's own."""

    def worth(amounts: np.ndarray) -> np.ndarray:
        return (amounts > need) + 0.5 * (amounts == need)

    return worth


def exact_values(model: TurnModel) -> dict[tuple[int, int], Fraction]:
    """The same table as :func:`values`, in exact fractions (pure Python; for small caps and tests)."""
    V: dict[tuple[int, int], Fraction] = {}

    def after(t: int, next_dice: int) -> Fraction:
        return V[(t, next_dice)] if t <= model.cap_units else Fraction(0)

    for u in range(model.cap_units, -1, -1):
        for k in range(1, tt.NUM_DICE + 1):
            total = Fraction(0)
            for p, entries in model.rolls[k]:
                if entries:
                    best = max(
                        max(after(u + inc, nxt), Fraction(int(model.bank[c, u + inc])))
                        for inc, nxt, c, _ in entries
                    )
                    total += p * best
            V[(u, k)] = total
    return V


def _key(game: tt.Game, opened: bool, banked: int, cap: int) -> dict:
    """The cache key: the options that change a turn, and the context that matters under them."""
    matters = game.over_threshold or game.exact_target
    return {"options": dict(sorted(game.options.items())), "opened": bool(opened),
            "banked": int(banked) if matters else None, "cap": int(cap)}  # fmt: skip


@dataclass
class Solution:
    """The solved turn of one player.

    Attributes:
        options: the game's options (its ``options`` table).
        opened: whether the player has opened.
        banked: the banked total the solution is for.
        cap: the largest turn total tabulated (points).
        table: ``table[u, k]``: expected banked points before rolling ``k`` dice at turn total ``u * 50``.
        bank: ``bank[u]``: what an allowed bank adds at turn total ``u * 50`` (-1: never allowed there).
    """

    options: dict
    opened: bool
    banked: int
    cap: int
    table: np.ndarray
    bank: np.ndarray

    @property
    def value(self) -> float:
        """The expected banked points of the turn: ``table[0, 6]``."""
        return float(self.table[0, tt.NUM_DICE])

    def roll_value(self, turn_total: int, dice: int) -> float:
        """The value of rolling ``dice`` dice at ``turn_total`` (0 beyond the cap)."""
        u = int(turn_total) // STEP
        return float(self.table[u, dice]) if u < len(self.table) else 0.0

    def bank_value(self, turn_total: int) -> float:
        """What a bank that makes ``turn_total`` adds to the total (the engine decides if it is allowed)."""
        u = int(turn_total) // STEP
        if u < len(self.bank):
            return float(max(self.bank[u], 0))
        # Past the tabulated range: carry on the table's last pattern (a bank adds the turn
        # total, or, past an exact target, nothing).
        return float(turn_total) if self.bank[-1] > 0 else 0.0


def solve(
    game: tt.Game | None = None,
    opened: bool = False,
    banked: int = 0,
    cap: int = DEFAULT_CAP,
    cache_dir=None,
    use_cache: bool = False,
    progress: Callable[[int, int], None] | None = None,
    **options,
) -> Solution:
    """Solve one turn of 10 000.

    Args:
        game: the engine; if ``None`` one is built from ``options`` (``preset="no"``, ...).
        opened: whether the player has banked before (TT-7).
        banked: the player's banked total (matters under ``over_threshold`` and ``exact_target``).
        cap: the largest turn total tabulated, in points.
        cache_dir: the cache directory of :mod:`agents.solvers.cache`.
        use_cache: read the table from the cache if there, and save it after a build.
        progress: called as ``progress(done, total)`` with turn totals done.
        **options: game options when ``game`` is ``None``.

    Raises:
        ValueError: bad options, ``cap`` or ``banked``, or points banked by a player who has not
            opened where the game has an opening threshold (:func:`check_context`).
    """
    if game is None:
        game = tt.Game(**options)
    elif options:
        raise ValueError("give either a game or its options, not both")
    check_context(game, opened, banked)
    key = _key(game, opened, banked, cap)

    def build() -> dict[str, np.ndarray]:
        model = build_model(game, opened, banked, cap)
        report = None if progress is None else (lambda done: progress(done, model.cap_units + 1))
        table = values(model, report)
        # What an allowed bank adds, by the turn total it makes: the same in every class where allowed.
        amounts = np.where(model.bank >= 0, model.bank, -1).max(axis=0)
        if progress is not None:
            progress(model.cap_units + 1, model.cap_units + 1)
        return {"table": table, "bank": amounts}

    from agents.solvers import cache

    data = cache.load_or_build(SOLVER, VERSION, key, build, cache_dir, use_cache)
    return Solution(dict(game.options), bool(opened), int(banked), int(cap), data["table"], data["bank"])


class OptimalAgent(DeterministicAgent):
    """Plays the turn that maximises the expected banked points, from its own observation.

    The bust penalty (TT-9e) is not in the turn's value: under a penalty it plays as without one
    (``winprob`` takes the penalty into account in two-player games).

    It reads its banked total, whether it has opened, the turn total and the roll from the
    observation (:mod:`dice_envs.tenthousand_v1`'s layout), lists the roll's selections with the
    engine's :meth:`Game.selections`, and takes the legal action of the action mask with the
    highest value: a ``roll`` is worth the table's value of the turn total and dice it leads to, a
    ``bank`` what it adds to the total. Ties go to the bank (a sure value), then to the larger
    selection value. Tables are solved on first use for each (opened, banked total that matters)
    and kept in memory; with ``use_cache`` they are also read from and written to the disk cache.

    In the end phase (TT-8: someone has reached the target and the last turns are played) points
    no longer count, only the lead: with ``end_phase`` (the default) the agent then maximises the
    chance of ending its turn ahead of the best other total (a tie counts 1/2), by the same
    dynamic programme with :func:`lead_worth` as the worth of a bank. With ``end_phase=False``
    it plays the expected-points turn everywhere.

    Head to head against the threshold heuristic (two players, 4000 games, seats rotated,
    ``dice-envs match tenthousand --agents optimal heuristic --games 4000 --seed 2 --preset P``):
    ``dk`` 53.2% (95% Wilson interval 51.6-54.7%), ``no`` 53.2% (51.6-54.7%), ``farkle`` 53.1%
    (51.6-54.7%). With ``end_phase=false`` (``--agents optimal:end_phase=false heuristic``, the
    same command), ``dk``: 52.2% (50.7-53.7%): the end-phase play changes few games, and the
    difference is within the noise (the two matches meet different dice).

    Args:
        game: a :class:`dice_envs.games.tenthousand.Game`.
        seed: unused (the agent is deterministic); kept for the agent protocol.
        cap: the largest turn total tabulated, in points.
        use_cache: keep the expected-points tables in the on-disk solver cache.
        end_phase: play for the lead in the end phase.
    """

    name = "optimal"
    game: tt.Game

    def __init__(
        self,
        game: tt.Game,
        seed: int | None = None,
        cap: int = DEFAULT_CAP,
        use_cache: bool = True,
        end_phase: bool = True,
    ):
        super().__init__(game, seed)
        if not isinstance(game, tt.Game):
            raise ValueError(f"OptimalAgent (tenthousand) plays tenthousand, not {getattr(game, 'name', game)!r}")
        check_cap(cap, "OptimalAgent: cap")
        self.cap = cap
        self.use_cache = bool(use_cache)
        self.end_phase = bool(end_phase)
        self._n = game.num_players
        self._k = 4 * game.num_players  # start of the turn block
        self._solutions: dict[tuple, Solution] = {}
        self._models: dict[tuple, TurnModel] = {}
        self._lead: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def __repr__(self) -> str:
        return f"OptimalAgent(cap={self.cap}, end_phase={self.end_phase})"

    def _context(self, opened: bool, banked: int) -> tuple[bool, int]:
        """The (opened, banked) a table is solved for: the banked total only where it matters."""
        key = _key(self.game, opened, banked, self.cap)
        return key["opened"], (banked if key["banked"] is not None else 0)

    def solution(self, opened: bool, banked: int) -> Solution:
        """The expected-points turn for this context (solved on first use)."""
        context = self._context(opened, banked)
        if context not in self._solutions:
            self._solutions[context] = solve(
                self.game, opened=context[0], banked=context[1], cap=self.cap, use_cache=self.use_cache
            )
        return self._solutions[context]

    def lead_table(self, opened: bool, banked: int, need: int) -> tuple[np.ndarray, np.ndarray]:
        """``(V, worth)`` for ending the turn more than ``need`` points up: ``V[u, k]`` the chance
        before rolling ``k`` dice at turn total ``u * 50``, ``worth[u]`` that of a bank making it."""
        context = self._context(opened, banked)
        key = (*context, need)
        if key not in self._lead:
            if context not in self._models:
                self._models[context] = build_model(self.game, context[0], context[1], self.cap)
            model = self._models[context]
            worth = lead_worth(need)
            amounts = np.where(model.bank >= 0, model.bank, -1).max(axis=0)
            self._lead[key] = (values(model, worth=worth), np.where(amounts >= 0, worth(amounts), -1.0))
        return self._lead[key]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_of(action_mask, "OptimalAgent.act")
        if len(legal) == 1:
            return int(legal[0])
        n, k = self._n, self._k
        banked = int(round(float(observation[0])))
        banked -= banked % STEP
        opened = bool(observation[n] > 0.5)
        turn_total = int(round(float(observation[k])))
        counts = observation[k + 2 : k + 8].astype(int)
        roll = tuple(face for face in range(1, 7) for _ in range(counts[face - 1]))
        if self.end_phase and observation[k + 9] > 0.5:
            need = int(round(float(np.max(observation[1:n])))) - banked
            table, bank_worth = self.lead_table(opened, banked, need)

            # Positional-only, like the calls below: the same type as solution.roll_value.
            def roll_worth(total: int, dice_: int, /) -> float:
                u = total // STEP
                return float(table[u, dice_]) if u < len(table) else 0.0

            def bank_value(total: int, /) -> float:
                u = total // STEP
                if u < len(bank_worth):
                    return float(max(bank_worth[u], 0.0))
                return float(bank_worth[-1] > 0)
        else:
            solution = self.solution(opened, banked)
            roll_worth, bank_value = solution.roll_value, solution.bank_value
        best, best_key = None, None
        for selection, value in self.game.selections(roll):
            index = tt.SELECTION_INDEX[selection]
            left = len(roll) - len(selection)
            for is_bank in (True, False):
                action = 2 * index + (tt.BANK if is_bank else tt.ROLL)
                if not action_mask[action]:
                    continue
                if is_bank:
                    worth = bank_value(turn_total + value)
                else:
                    worth = roll_worth(turn_total + value, left or tt.NUM_DICE)
                key = (round(worth, 9), is_bank, value, -action)
                if best_key is None or key > best_key:
                    best, best_key = action, key
        if best is None:
            raise ValueError("OptimalAgent.act: the action mask allows no selection of the observed roll")
        return best


# -- the bank region of a solved turn ----------------------------------------------------------------
def bank_ranges(solution: Solution) -> dict[int, list[tuple[int, int | None]]]:
    """Where a bank is worth at least as much as rolling on, by the dice the roll would take.

    For each ``k`` in 1..6: the ranges ``(first, last)`` of turn totals (points, the total a bank
    would make) at which a bank is allowed and worth at least as much as rolling ``k`` dice on
    (within 1e-9: a tie counts as a bank, as :class:`OptimalAgent` plays it); ``last`` is ``None``
    when the range goes on past every turn total tabulated (beyond the cap rolling on counts 0,
    so a bank is better there). An empty list: never banked. Six dice are rolled on only after hot
    dice, so under ``hot_dice_must_roll`` (TT-4) ``k = 6`` is never banked.

    Under ``exact_target`` the turn is tabulated only up to the total that reaches the target:
    past it a bank scores 0 (TT-9d) and so does rolling on, so the last range ends there (banking
    and rolling on are both worth 0 beyond it, a tie that is not counted as a bank).

    >>> bank_ranges(solve(preset="dk", opened=True))[6]
    []
    >>> bank_ranges(solve(preset="no", opened=True, exact_target=True, banked=9500))[1]
    [(150, 500)]
    """
    options = solution.options
    cap = solution.cap
    if options["exact_target"]:
        cap = min(cap, max(options["target"] - solution.banked, STEP))  # as build_model tabulates
    top = min(cap // STEP, len(solution.table) - 1, len(solution.bank) - 1)
    bank = solution.bank[: top + 1].astype(float)
    out: dict[int, list[tuple[int, int | None]]] = {}
    for k in range(1, tt.NUM_DICE + 1):
        if k == tt.NUM_DICE and options["hot_dice_must_roll"]:
            out[k] = []
            continue
        banks = (bank >= 0) & (bank >= solution.table[: top + 1, k] - 1e-9)
        banks[0] = False  # a turn total of 0 is no decision
        edges = np.diff(np.concatenate([[0], banks.astype(np.int8), [0]]))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
        out[k] = [
            (int(s) * STEP, None if e == top and not options["exact_target"] else int(e) * STEP)
            for s, e in zip(starts, ends)
        ]
    return out


def ranges_text(ranges: list[tuple[int, int | None]]) -> str:
    """Turn-total ranges for a table cell, separated by spaces: ``"1050-1900"`` (both ends
    included), ``"2000+"`` (and every larger total), ``"700"`` (that total alone); ``""`` for none.

    >>> ranges_text([(300, None)]), ranges_text([(150, 500)]), ranges_text([(700, 700), (950, None)])
    ('300+', '150-500', '700 950+')
    """
    return " ".join(f"{a}+" if b is None else f"{a}" if a == b else f"{a}-{b}" for a, b in ranges)


# -- tables written to a file (``--export``): agents.solvers.export ---------------------------------
#: The columns of :func:`bank_rows` (``dice-envs solve tenthousand --export``, one turn).
BANK_COLUMNS = ("opened", "banked", "dice", "bank_from", "bank")


def bank_rows(solution: Solution) -> Iterator[dict]:
    """:func:`bank_ranges` as rows of :data:`BANK_COLUMNS`: the context (``opened``, the
    ``banked`` total the turn was solved for), the dice a roll would take (1..6), ``bank_from``
    (the least turn total at which a bank is worth at least as much as that roll, ``None``:
    never) and ``bank`` (every such turn total, :func:`ranges_text`)."""
    for k, ranges in bank_ranges(solution).items():
        yield {"opened": solution.opened, "banked": solution.banked, "dice": k,
               "bank_from": ranges[0][0] if ranges else None, "bank": ranges_text(ranges)}  # fmt: skip


# -- one situation (``dice-envs solve tenthousand --describe``) -------------------------------------
#: The keys of a situation (:func:`parse_situation`).
SITUATION_KEYS = ("own", "opp", "turn", "roll", "role", "opened", "opp_opened", "busts", "opp_busts")
SITUATION_EXAMPLE = "own=9000,opp=9500,turn=350,roll=1552"
#: Choices whose values differ by at most this are equally good (OptimalAgent rounds to 9 places).
TIE = 1e-9


@dataclass(frozen=True)
class Situation:
    """A decision of a 10 000 turn: the mover has just rolled ``roll``, with ``turn`` points set
    aside earlier in the turn. Totals are points (not units of 50). ``None``: not given;
    :func:`check_situation` fills in what the game implies.

    Attributes:
        roll: the dice just rolled, sorted (1 to 6 dice).
        turn: the turn total before this roll (0: the turn's first roll, of six dice).
        own: the mover's banked total (default 0).
        opp: the opponent's banked total (more than two players: the best other total). At or
            above the target the opponent has reached it and this is the mover's last turn (TT-8).
        role: under ``end="finish_round"``, for the chance of winning: 0 if the mover started the
            round, 1 if second.
        opened, opp_opened: whether the mover and the opponent are on the list (TT-7); they differ
            from "total above 0" only with a bust penalty (TT-9e).
        busts, opp_busts: busts in a row (TT-9e), for the chance of winning with a bust penalty.
    """

    roll: tuple[int, ...]
    turn: int = 0
    own: int | None = None
    opp: int | None = None
    role: int | None = None
    opened: bool | None = None
    opp_opened: bool | None = None
    busts: int | None = None
    opp_busts: int | None = None

    def fields(self) -> dict:
        """The situation as JSON-able data (points, ``roll`` as a string such as ``"1255"``)."""
        return {key: (tt.to_string(self.roll) if key == "roll" else getattr(self, key)) for key in SITUATION_KEYS}


def _situation_value(name: str, key: str, text: str):
    """One value of a situation, read by its key's type (see :func:`parse_situation`)."""
    if key in ("own", "opp", "turn"):
        digits = text[1:] if text[:1] in "+-" and key != "turn" else text
        if not digits.isdigit():
            what = "a turn total, a whole number of points at least 0" if key == "turn" else "a total in points"
            example = 350 if key == "turn" else 9000
            raise ValueError(f"{name}: {key}={text} is not {what} (such as {key}={example})")
        points = int(text)
        if points % STEP:
            raise ValueError(f"{name}: {key}={text}: every score is a multiple of {STEP} points (TT-5)")
        return points
    if key == "roll":
        faces = text.replace(" ", "")
        if not faces or not all(c in "123456" for c in faces) or len(faces) > tt.NUM_DICE:
            raise ValueError(f"{name}: roll={text} is not a roll: 1 to 6 dice, faces 1..6, written like "
                             "roll=1552 or roll=1 5 5 2")  # fmt: skip
        return tuple(sorted(int(c) for c in faces))
    if key == "role":
        if text not in ("0", "1"):
            raise ValueError(f"{name}: role={text}: give role=0 (the mover started the round) or role=1 (second)")
        return int(text)
    if key in ("opened", "opp_opened"):
        from agents.solvers.situation_text import NO, YES

        if text.lower() in YES + NO:
            return text.lower() in YES
        raise ValueError(f"{name}: {key}={text}: give {key}=yes or {key}=no (on the list or not, TT-7)")
    if not text.isdigit():  # busts, opp_busts
        raise ValueError(f"{name}: {key}={text} is not a number of busts in a row (0, 1, ...)")
    return int(text)


def parse_situation(text: str, name: str = "situation") -> Situation:
    """A situation from ``key=value`` pairs separated by commas: ``own=9000,opp=9500,turn=350,roll=1552``.

    Keys (totals in points, multiples of 50; spaces around the parts are ignored):

    * ``roll`` (required): the dice just rolled, 1 to 6 faces: ``1552`` or ``1 5 5 2``.
    * ``turn``: points set aside earlier in the turn, before this roll (default 0, the first roll).
    * ``own``, ``opp``: the mover's and the opponent's banked totals (default 0; ``opp`` at or
      above the target: the opponent reached it and this is the mover's last turn).
    * ``role``: ``0`` (the mover started the round) or ``1`` (second), for the chance of winning
      under ``end="finish_round"``.
    * ``opened``, ``opp_opened``: ``yes`` / ``no``, on the list (default: the total is above 0).
    * ``busts``, ``opp_busts``: busts in a row, with a bust penalty (default 0).

    Only the form is checked here; :func:`check_situation` checks it against a game.

    >>> s = parse_situation("own=9000, opp=9500, turn=350, roll=1 5 5 2")
    >>> s.roll, s.turn, s.own, s.opp, s.role
    ((1, 2, 5, 5), 350, 9000, 9500, None)

    Raises:
        ValueError: a part that is not ``key=value``, an unknown or repeated key, a bad value, or
            no ``roll``; the message, which begins with ``name``, says what is expected.
    """
    from agents.solvers.situation_text import key_value_pairs

    words = key_value_pairs(text, SITUATION_KEYS, name, SITUATION_EXAMPLE)
    given = {key: _situation_value(name, key, value) for key, value in words.items()}
    if "roll" not in given:
        raise ValueError(f"{name}: no roll= (the dice just rolled, such as roll=1552); expected key=value pairs "
                         f"separated by commas, such as {SITUATION_EXAMPLE} (keys: {', '.join(SITUATION_KEYS)})")
    return Situation(**given)


def check_situation(game: tt.Game, situation: Situation, objective: str = "turn",
                    name: str = "situation") -> Situation:  # fmt: skip
    """``situation`` checked against ``game`` for an objective, with the defaults the game implies
    filled in: ``own`` 0, ``opp`` 0 (``"turn"``: ``None`` when not given, no end phase), ``opened``
    from the totals, ``role`` 1 in the last turn of ``finish_round``, ``busts`` 0 with a bust
    penalty; what the objective and the rules do not use stays ``None`` (``role`` with one role,
    ``busts`` without a penalty, ``role``, ``opp_opened`` and the busts for ``"turn"``).

    Args:
        game: the engine.
        situation: from :func:`parse_situation`.
        objective: ``"turn"`` (expected points, :func:`solve`) or ``"win"`` (the chance of
            winning, :mod:`agents.solvers.tenthousand_win`).
        name: how messages name the situation (the command line: ``--describe``).

    Raises:
        ValueError: a situation these rules rule out on their face (a total at or past the target,
            a negative total without a penalty, a roll that busts, a first roll of fewer than six
            dice, a list or a role that contradicts the totals ...), or a key that the objective
            does not use (so that nobody believes it changed the answer); the message says why.
            It is not a full reachability test: a state no game reaches but the rules do not
            rule out outright (a ``dk`` total below the opening) is valued as given.
    """
    s = situation
    target, penalty = game.target, game.bust_penalty > 0
    win = objective == "win"
    if objective not in ("turn", "win"):
        raise ValueError(f"objective must be 'turn' or 'win', got {objective!r}")
    unused = {
        "role": "the expected points of a turn do not depend on the role in the round (--objective win does)",
        "opp_opened": "the expected points of a turn do not depend on the opponent's list (--objective win does)",
        "busts": "the one-turn solve leaves out the bust penalty (TT-9e); --objective win takes it into account",
        "opp_busts": "the one-turn solve leaves out the bust penalty (TT-9e); --objective win takes it into account",
    }
    for key, why in unused.items():
        if not win and getattr(s, key) is not None:
            raise ValueError(f"{name}: {key}= is not used here: {why}")
    if win and not penalty:
        for key in ("busts", "opp_busts"):
            if getattr(s, key) is not None:
                raise ValueError(f"{name}: {key}= matters only with a bust penalty (TT-9e), and these rules have none")
    own = 0 if s.own is None else s.own
    opp = 0 if s.opp is None else s.opp
    for key, total in (("own", own), ("opp", opp)):
        if total < 0 and not penalty:
            raise ValueError(f"{name}: {key}={total}: a total falls below 0 only through a bust penalty (TT-9e), "
                             "and these rules have none")  # fmt: skip
    if own >= target:
        raise ValueError(f"{name}: own={own}: a player at or past the target ({target}) plays no more turns")
    last = opp >= target
    if last and game.end == "immediate":
        raise ValueError(f"{name}: opp={opp}: under end=immediate the game is over when a player reaches the "
                         f"target ({target})")  # fmt: skip
    role = s.role
    two_roles = win and game.end == "finish_round"
    if role is not None and win and not two_roles:
        raise ValueError(f"{name}: role= matters only under end=finish_round, not end={game.end}")
    if two_roles:
        if last and role == 0:
            raise ValueError(f"{name}: role=0 with opp={opp}: the second player of a round reaching the target ends "
                             "the game, so only the second player (role=1) plays a last turn")  # fmt: skip
        if role is None and not last:
            raise ValueError(f"{name}: role=0|1 is needed under end=finish_round: 0 if the mover started the round, "
                             "1 if second (the best choice can differ)")  # fmt: skip
        role = 1 if last else role
    opened = []
    for key, total, flag in (("opened", own, s.opened), ("opp_opened", opp, s.opp_opened)):
        if flag is None:
            flag = total > 0
        elif flag != (total > 0) and not penalty:
            raise ValueError(f"{name}: {key}={'yes' if flag else 'no'} with a total of {total}: without a bust "
                             "penalty a player is on the list exactly when their total is above 0")  # fmt: skip
        elif not flag and total > 0:
            raise ValueError(f"{name}: {key}=no with a total of {total}: only a bank gives points, and it puts the "
                             "player on the list (TT-7)")  # fmt: skip
        opened.append(flag)
    busts = []
    for key, count in (("busts", s.busts), ("opp_busts", s.opp_busts)):
        count = 0 if count is None else count
        if count >= game.bust_penalty_after:
            raise ValueError(f"{name}: {key}={count}: busts in a row run 0..{game.bust_penalty_after - 1} "
                             f"(bust_penalty_after={game.bust_penalty_after}: that bust brings the penalty and "
                             "the count starts again)")  # fmt: skip
        busts.append(count)
    if s.turn == 0 and len(s.roll) < tt.NUM_DICE:
        raise ValueError(f"{name}: turn=0 (the turn's first roll) with {len(s.roll)} dice: a turn begins with all "
                         "six; give turn= the points set aside before this roll")  # fmt: skip
    if not game.selections(s.roll):
        raise ValueError(f"{name}: roll={tt.to_string(s.roll)} scores nothing: a bust ends the turn, there is no "
                         "choice to describe")  # fmt: skip
    counted = win and penalty  # busts in a row are part of the state only there
    return Situation(s.roll, s.turn, own, opp if (win or s.opp is not None) else None, role if win else None,
                     opened[0], opened[1] if win else None, busts[0] if counted else None,
                     busts[1] if counted else None)  # fmt: skip


def situation_state(game: tt.Game, situation: Situation, seat: int) -> tt.State:
    """The engine's decision state of a checked situation with the mover at ``seat``: every other
    seat has ``opp`` points (0 if not given), its list and busts; in the last turn of the game
    (``opp`` at or above the target) the end phase is on with this the last turn."""
    s = situation
    n = game.num_players
    opp = 0 if s.opp is None else s.opp

    def seats(mine, others):
        return tuple(mine if i == seat else others for i in range(n))

    opp_opened = opp > 0 if s.opp_opened is None else s.opp_opened
    return game.initial_state()._replace(
        totals=seats(s.own or 0, opp), opened=seats(bool(s.opened), opp_opened),
        busts=seats(s.busts or 0, s.opp_busts or 0), player=seat, turn_total=s.turn, roll=s.roll, to_roll=0,
        turns_left=1 if opp >= game.target else None, turn=1 + (seat - game.first_starter) % n,
    )  # fmt: skip


def choice_rows(game: tt.Game, state: tt.State, value_of: Callable[[int, int, bool], float | None],
                agent_action: int) -> list[dict]:  # fmt: skip
    """Every legal action at a decision ``state``, valued, best first (ties in action-id order).

    ``value_of(points, dice_left, bank)`` values keeping dice worth ``points`` that leave
    ``dice_left`` (0: hot dice), then banking or rolling on; ``agent_action`` is the action the
    agent plays. Each row: ``action`` (TT-11's string), ``keep`` (the faces), ``then`` (``"roll"``
    or ``"bank"``), ``points`` (the selection's value), ``turn_total`` (after it), ``dice_to_roll``
    (a roll: the dice rolled next, 6 after hot dice; a bank: ``None``), ``adds`` (a bank: what it
    adds to the total, 0 past an exact target; a roll: ``None``), ``value``, ``best`` (within
    :data:`TIE` of the best value) and ``agent``.

    Raises:
        RuntimeError: the engine allows a bank that the solver does not value (a model mismatch).
    """
    worth = dict(game.selections(state.roll))
    rows: list[dict[str, Any]] = []
    for action in game.legal_actions(state):
        selection, bank = tt.decode_action(action)
        points = worth[selection]
        left = len(state.roll) - len(selection)
        value = value_of(points, left, bank)
        if value is None:
            text = game.action_to_string(state, action)
            raise RuntimeError(f"the engine allows {text} but the solver does not value it")
        rows.append({
            "action": game.action_to_string(state, action), "keep": tt.to_string(selection),
            "then": "bank" if bank else "roll", "points": points, "turn_total": state.turn_total + points,
            "dice_to_roll": None if bank else (left or tt.NUM_DICE),
            "adds": game.bank_gain(state, points) if bank else None,
            "value": float(value), "agent": action == agent_action, "id": action,
        })  # fmt: skip
    top = max(row["value"] for row in rows)
    for row in rows:
        row["best"] = row["value"] >= top - TIE
    rows.sort(key=lambda row: (-row["value"], row["id"]))
    for row in rows:
        del row["id"]
    return rows


def choice_lines(rows: list[dict], agent: str, digits: int) -> list[str]:
    """The lines of :func:`choice_rows`: one per choice (what it does, its value, the marks), then
    what the agent plays."""
    lines = []
    for row in rows:
        if row["then"] == "bank":
            what = f"bank {row['turn_total']}" + (" (passes the target: scores 0)" if row["adds"] == 0 else "")
        else:
            dice = row["dice_to_roll"]
            hot = ", hot dice" if row["keep"] and dice == tt.NUM_DICE else ""
            what = f"turn total {row['turn_total']}, roll {dice} {'die' if dice == 1 else 'dice'}{hot}"
        marks = [mark for mark, on in (("best", row["best"]), (f"{agent} plays it", row["agent"])) if on]
        marked = f"  <- {', '.join(marks)}" if marks else ""
        lines.append(f"  {row['action']:<17} {what:<42} {row['value']:.{digits}f}{marked}")
    played = next(row for row in rows if row["agent"])
    best = [row for row in rows if row["best"]]
    ties = f" ({len(best)} choices equally good, within {TIE:g})" if len(best) > 1 else ""
    if played["best"]:
        lines.append(f"{agent} plays {played['action']}, the best choice{ties}")
    else:
        lines.append(f"{agent} plays {played['action']} ({played['value']:.{digits}f}), not the best choice "
                     f"{best[0]['action']} ({best[0]['value']:.{digits}f})")  # fmt: skip
    return lines


def totals_words(situation: Situation) -> str:
    """The totals of a checked situation in words (with the list and busts where they say something)."""
    s = situation
    words = f"own {s.own}" + ("" if s.opened else " (not on the list yet)")
    if s.opp is not None:
        words += f", opponent {s.opp}" + (" (not on the list yet)" if s.opp_opened is False else "")
    if s.busts:
        words += f", {s.busts} bust(s) in a row"
    if s.opp_busts:
        words += f", opponent {s.opp_busts} bust(s) in a row"
    return words


def roll_words(situation: Situation) -> str:
    """The roll of a situation and the turn total before it, in words."""
    s = situation
    if s.turn == 0:
        return f"the turn's first roll {tt.to_string(s.roll)}"
    return f"{s.turn} in the turn before the roll {tt.to_string(s.roll)}"


def describe_situation(game: tt.Game, situation: Situation, cap: int = DEFAULT_CAP, cache_dir=None,
                       use_cache: bool = True, name: str = "situation") -> dict:  # fmt: skip
    """Every choice of one situation valued in expected points, and what :class:`OptimalAgent` plays.

    A roll is worth the table's value of rolling on (turn total and dice after the selection); a
    bank what it adds to the total. In the last turn of the game (``opp`` at or above the target,
    TT-8) points no longer count, only the lead: each choice is then worth the chance of ending the
    turn ahead of ``opp`` (a tie counts 1/2), as the agent plays the end phase (:func:`lead_worth`).

    The agent is asked on the engine's state of the situation (:func:`situation_state`, its
    observation and action mask) and solves its own table, so the mark of its choice is a check on
    the values printed.

    Returns:
        ``situation`` (:meth:`Situation.fields`, checked, defaults filled in), ``end_phase``,
        ``measure`` (what a value is), ``value`` (the best choice's), ``choices``
        (:func:`choice_rows`), ``agent``, ``agent_choice`` and ``lines``.

    Raises:
        ValueError: a situation :func:`check_situation` refuses, or a bad ``cap``.
    """
    check_cap(cap, "cap")
    s = check_situation(game, situation, "turn", name)
    own = int(s.own or 0)
    banked = own if _key(game, bool(s.opened), own, cap)["banked"] is not None else 0
    state = situation_state(game, s, game.first_starter)
    opp = s.opp
    end_phase = opp is not None and opp >= game.target
    value_of: Callable[[int, int, bool], float | None]
    if opp is not None and end_phase:
        need = opp - own
        model = build_model(game, bool(s.opened), banked, cap)
        worth = lead_worth(need)
        table = values(model, worth=worth)
        amounts = np.where(model.bank >= 0, model.bank, -1).max(axis=0)

        def value_of(points: int, left: int, bank: bool) -> float | None:
            u = (s.turn + points) // STEP
            if bank:  # as Solution.bank_value: past the table a bank adds the turn total (0 past an exact target)
                if u < len(amounts):
                    amount = max(int(amounts[u]), 0)
                else:
                    amount = s.turn + points if amounts[-1] > 0 else 0
                return float(worth(np.array([amount]))[0])
            return float(table[u, left or tt.NUM_DICE]) if u < len(table) else 0.0

        measure = (f"the chance of ending this last turn ahead of {s.opp} (a tie counts 1/2): the opponent has "
                   "reached the target, so only the lead counts")  # fmt: skip
    else:
        solution = solve(game, opened=bool(s.opened), banked=banked, cap=cap, cache_dir=cache_dir,
                         use_cache=use_cache)  # fmt: skip

        def value_of(points: int, left: int, bank: bool) -> float | None:
            total = s.turn + points
            return solution.bank_value(total) if bank else solution.roll_value(total, left or tt.NUM_DICE)

        measure = "the expected points the turn adds to the total (a bank: what it adds; a roll: optimal play on)"
    agent = OptimalAgent(game, cap=cap, use_cache=False)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    played = agent.act(game.observe(state, state.player), mask)
    rows = choice_rows(game, state, value_of, played)
    options = "".join(f", {k}={v}" for k, v in game.options.items() if v != tt.PRESETS[game.preset].get(k))
    lines = [
        f"10 000 ({game.preset}{options}), one turn: {totals_words(s)}; {roll_words(s)}",
        f"each choice is worth {measure}:",
    ]
    if s.opp is not None and not end_phase:
        lines[0] += " (the opponent's total changes nothing in the expected points of a turn)"
    lines += choice_lines(rows, "optimal", 4)
    return {
        "situation": s.fields(),
        "end_phase": end_phase,
        "measure": "lead" if end_phase else "points",
        "value": rows[0]["value"],
        "choices": rows,
        "agent": "optimal",
        "agent_choice": game.action_to_string(state, played),
        "lines": lines,
    }
