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

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

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
    ``dk`` 52.7% (95% Wilson interval 51.2-54.2%), ``no`` 53.9% (52.3-55.4%), ``farkle`` 54.3%
    (52.8-55.9%). With ``end_phase=false``, ``dk``: 53.2% (51.7-54.8%): the end-phase play
    changes few games, and the difference is within the noise.

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
