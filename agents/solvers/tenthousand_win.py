"""Two-player 10 000 solved for the chance of winning (issue 8, item 4; agent ``winprob``).

The policy that maximises P(win) + ½·P(tie) of a two-player game of Ten thousand, for the rules
of the ``dk``, ``no`` and ``farkle`` presets (their end rules ``finish_round`` and
``last_turn_each``), for ``end="immediate"``, and for the options that change a turn's scoring or
banking thresholds (``target``, ``opening``, ``min_bank``, ``hot_dice_must_roll``, the scoring
options); the ``farkle`` bust penalty (TT-9e) on floored totals, see "A bust penalty" below.

The game is read through the engine contract: the chance outcomes of ``n`` dice from
``Game.chance_outcomes``, the choices each roll offers from ``Game.selections`` (merged once into
*classes* of rolls that offer the same ``(value, dice left)`` choices: 118 (``dk``) to 124 (``no``,
``farkle``) classes for six dice, busts kept apart), and the bank rules (the least bankable turn total before and after opening, whether hot
dice must be rolled) from ``Game.legal_actions`` on probe states. The end rules of TT-8 are the
solver's own model; the tests check it against the engine by evaluating the solved policy over
the engine's own states.

Method
------
All scores are multiples of 50 (*units*); ``T`` is the target in units. The state at the start
of a turn is ``(a, b, r)``: the mover's total, the opponent's, and (``finish_round`` only) the
mover's role in the round (0: the round's starter, whose reaching the target gives the other a
last turn; 1: the second, whose reaching it ends the game). Without a bust penalty "på listen" is
``total > 0``, so it needs no flag. ``W[r, a, b]`` is the mover's chance of winning.

* Within a turn the mover's values depend on the turn total ``t`` and the dice to roll ``n``; a
  bank of ``t`` leads to the opponent's start ``(b, a + t)``, worth ``1 - W[r', b, a + t]``, and a
  bust to ``(b, a)``, worth ``z = 1 - W[r', b, a]``. Totals never fall, so solving the start states
  in order of decreasing ``a + b`` finds every bank's value already known; only the two states
  ``(a, b)`` and ``(b, a)`` that pass the dice to each other by busts are solved together, as the
  fixed point ``x = f(1 - y), y = g(1 - x)`` of their turn values. ``f`` and ``g`` are convex and
  piecewise linear in the bust value (a maximum over policies of affine functions), so Newton
  steps with the slope of the current policy land on the exact fixed point once the policies stop
  changing (M. Busche's solution of two-player Farkle, "Maximizing Win Probability in the Game of
  Farkle", mattbusche.org, 2016, after Neller & Presser's solution of Pig, meets the same circularity
  with value iteration).
* Past the target (``a + t >= T``), a bank either wins at once (``immediate``; the second seat of
  a ``finish_round`` round) or gives the opponent one last turn, in which they need ``d = a + t - b``
  units to draw level: ``L[d]``, their chance, is a one-player table over the need ``d``. A mover
  whose lead is so large that ``L[d] <= P(six dice bust)·(1 - z)`` banks whenever allowed (a roll
  busts with at least that chance), so above that lead the values follow one fixed policy and come
  from a table shared by all states (:func:`~agents.solvers._tenthousand_kernel.reach_table`); the
  turn is solved state by state only below it.
* Needs above ``D`` units (about 35 000-40 000 points, where ``L`` falls below 1e-15) count as
  lost for the last-turn player; that changes any value by at most ``L[D] <= error_bound``, which
  the solution reports.

Stored (``agents.solvers.cache``, one ``.npz``): ``W`` as float64 (``roles × T × T``: 0.6 MiB for
target 10 000 under ``finish_round``), the last-turn tables ``L`` and the one-player table of a
last turn past the thresholds. Nothing per turn total is stored: the agent re-solves the one turn
it is playing from ``W`` (a few milliseconds).

Values at target 10 000 (the first player's P(win) + ½·P(tie) under optimal play by both):
``dk`` 0.482898 (the second seat has the last word of the round), ``no`` 0.531610; with
``end="immediate"``: ``dk`` 0.530685, ``no`` 0.532653. Full solves took 1071 s (``dk``), 404 s
(``no``), 602 s and 820 s (immediate), peak resident memory 163-167 MiB, on two cores shared with
other jobs (load average 12-17), so the times are pessimistic
(``python -m agents.solvers.tenthousand_win_bench solve --preset dk`` measures one).

A bust penalty (TT-9e, the ``farkle`` preset)
--------------------------------------------
With ``bust_penalty`` (a multiple of 50) after ``bust_penalty_after`` = ``K`` busts in a row, under
``end="last_turn_each"`` or ``"immediate"``, the start of a turn is ``(om, oo, i, j, a, b)``: the
opened flags (kept only when the opening threshold differs from later banks: the flag changes
nothing else), the mover's and the opponent's busts in a row ``0..K-1``, and the totals, which may
now be negative. Totals fall without bound, so they are **floored**: a penalty that would take a
total below ``FLOOR`` (-2500 points, the floor of Busche's published solution) leaves it at
the floor. The solved game is the game with that one rule added; everything else is exact.

* Order and sweeps. A bank raises the total sum; a bust without a penalty keeps it and raises
  ``i + j``. Sweeps run in layers of decreasing sum, then decreasing ``i + j``, so every bank and
  every plain bust reads a value already updated in the same sweep and each state's turn is solved
  exactly (the turn routine of the old solver on totals shifted by the floor) given those values;
  only a penalty (and a third bust at the floor) reads the sweep before.
* Bounds (interval iteration). The mover's value is a maximum of ``E[1 - W(next)]``, antitone in
  the next states' values. Two tables start at ``lo = 0`` and ``hi = 1`` and each update sets
  ``lo(s) = max E[1 - hi(next)]`` and ``hi(s) = max E[1 - lo(next)]`` (one pass over the turn serves
  both: :func:`~agents.solvers._tenthousand_penalty_kernel.turn_bounds`). By induction every fixed
  point of the Bellman equation in ``[0, 1]``, the game's value among them, stays between ``lo`` and
  ``hi``, whatever the order of updates; no contraction factor is assumed, which matters because
  a policy that never banks makes no single step contract. Sweeps stop when ``max(hi - lo)`` over
  all states is at most ``SWEEP_TOL`` (1e-10); the table is the midpoint, so each value is within
  ``gap / 2`` of the floored game's, plus the last-turn cap ``L[D]`` above (``error_bound``), plus
  float rounding (~1e-15). The gap stays near 1 until the bounds have come down from the target
  to the floor: a penalty reads the sweep before, so each sweep carries them about one chain of
  three busts further (2 sweeps at target 2000, 4 at 5000, 7 at 10 000); then it closes by a
  factor 10-80 a sweep: 10-11 sweeps at targets 1000-2000, 12 at 5000, 15 at 10 000. The first
  sweeps are also the slowest (up to three times the last): with loose bounds the region where
  banking whenever allowed is optimal starts at larger leads, so each turn is solved further out.
* The floor. Floored and true games agree on every play until a total first falls below the
  floor; from the start that takes at least six penalties (18 busts) by one player with less than
  ``6 x 500 - 2500`` points banked in between. Its effect is measured, not bounded: at target 1000
  the first player's value moves by 1.2e-7 when the floor goes from -500 to -1000, by 8.9e-11
  from -1000 to -1500 and by less than the bounds (1e-13) from -1500 to -2500: each penalty of
  room shrinks the effect about a thousandfold. At target 2000 floors -2500 and -3500 give
  0.564202507361 and 0.564202507361427, and at target 5000 floors -2500 and -3000 give
  0.545260276736276 and 0.5452602767362756 (error bounds 1.8e-11 and 3.2e-11): equal within their
  error bounds. The bench's
  ``--floor`` measures it at any target. (A rigorous bound would need the true game's optimal
  strategies: a player who never banks falls below any floor for sure.)
* Cost: every sweep solves each state's turn once for both bounds. Two tables of
  ``K^2 (T - F)^2`` floats (4.5 MB, 4.3 MiB, each for farkle at 10 000) and their midpoint, stored in the
  cache with the bounds.

Values of the ``farkle`` preset (floor -2500; first player's P(win) + 1/2 P(tie); error bound):
target 1000: 0.577080 (1.4e-11, 10 sweeps); 2000: 0.564203 (4.3e-12, 11 sweeps, 238 s on one
effective core of a loaded machine, peak RSS 177 MiB); 5000: 0.545260 (1.8e-11, 12 sweeps, 909 s
beside a training run, 199 MiB); **10 000: 0.533276** (2.9e-12, 15 sweeps, 562 500 start states,
40 min 18 s wall and 3 908 CPU seconds on the two cores, 262 MiB peak RSS:
``/usr/bin/time -v dice-envs solve tenthousand --preset farkle --objective win``).

Not supported (a ``ValueError`` says so): more than two players, ``over_threshold``,
``confirm_combinations``, ``exact_target``, and a bust penalty under ``finish_round`` or off the
grid of 50s.
"""

import resource
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from collections.abc import Iterator
from typing import cast

import numpy as np

from agents.base import DeterministicAgent, legal_of
from agents.solvers import _tenthousand_kernel as kernel
from agents.solvers import _tenthousand_penalty_kernel as penalty_kernel
from agents.solvers import cache as cache_mod
from dice_envs.games import tenthousand as tt
from dice_envs.progress import optional_progress_bar

SOLVER = "tenthousand-win"
VERSION = 1
UNIT = 50  # every score in 10 000 is a multiple of 50 (TT-5)
#: Needs of the last-turn player are tabulated until their chance falls below this.
CAP_PROBABILITY = 1e-16
MAX_NEED_UNITS = 4000  # hard limit of the last-turn table (200 000 points)
NEWTON_TOL = 1e-14
NEWTON_MAX_ITER = 60
UNSUPPORTED = ("over_threshold", "confirm_combinations", "exact_target")
#: With a bust penalty: totals below this (points) count as this (the published solution's -2500).
FLOOR = -2500
#: With a bust penalty: sweeps stop once every state's bounds are this close.
SWEEP_TOL = 1e-10
MAX_SWEEPS = 400


# -- the game as tables ---------------------------------------------------------------------------
def make_game(options: dict) -> tt.Game:
    """The two-player engine of ``options`` (``preset`` and any option of :class:`tt.Game`)."""
    options = dict(options)
    if options.setdefault("num_players", 2) != 2:
        raise ValueError(f"the win-probability solver plays two players, not num_players={options['num_players']}")
    game = tt.Game(**options)
    check_game(game)
    return game


def check_game(game: tt.Game) -> None:
    """``ValueError`` naming the first option the solver does not model."""
    if not isinstance(game, tt.Game):
        raise ValueError(f"the win-probability solver plays tenthousand, not {getattr(game, 'name', game)!r}")
    if game.num_players != 2:
        raise ValueError(f"the win-probability solver plays two players, not num_players={game.num_players}")
    for name in UNSUPPORTED:
        if game.options[name]:
            raise ValueError(f"the win-probability solver does not support {name}=True")
    penalty = game.options["bust_penalty"]
    if penalty and game.end == "finish_round":
        raise ValueError(
            f"the win-probability solver supports a bust penalty (bust_penalty={penalty}) only with "
            "end='last_turn_each' (the farkle preset) or 'immediate', not end='finish_round'"
        )
    if penalty % UNIT:
        raise ValueError(
            f"the win-probability solver needs a bust_penalty that is a multiple of {UNIT}, not {penalty}"
        )


def solver_options(game: tt.Game) -> dict:
    """What the table depends on: every option of the game (the cache key)."""
    return {"num_players": 2, **game.options}


@dataclass(frozen=True)
class RollTables:
    """The classes of rolls of 1..6 dice (see :mod:`agents.solvers._tenthousand_kernel`)."""

    cls_start: np.ndarray
    cls_prob: np.ndarray
    opt_start: np.ndarray
    opt_v: np.ndarray
    opt_left: np.ndarray
    pbust: np.ndarray
    maxv: int

    def args(self) -> tuple:
        return self.cls_start, self.cls_prob, self.opt_start, self.opt_v, self.opt_left

    def args_bust(self) -> tuple:
        return self.cls_start, self.cls_prob, self.opt_start, self.opt_v, self.opt_left, self.pbust


def roll_tables(game: tt.Game) -> RollTables:
    """Merge the rolls of ``n`` dice by the set of ``(value units, dice left)`` choices they offer.

    Uses only ``game.chance_outcomes`` (exact probabilities) and ``game.selections``.
    """
    start = game.initial_state()
    cls_start = [0, 0]
    probs, opt_start, opt_v, opt_left = [], [0], [], []
    pbust = np.zeros(7)
    for n in range(1, tt.NUM_DICE + 1):
        classes: dict[tuple, Fraction] = {}
        for roll, p in game.chance_outcomes(start._replace(to_roll=n)):
            choices = tuple(sorted({(value // UNIT, n - len(sel)) for sel, value in game.selections(roll)}))
            classes[choices] = classes.get(choices, 0) + p
        pbust[n] = float(classes.pop((), 0))
        for choices, p in sorted(classes.items()):
            probs.append(float(p))
            for v, left in choices:
                opt_v.append(v)
                opt_left.append(left)
            opt_start.append(len(opt_v))
        cls_start.append(len(probs))
    return RollTables(
        np.array(cls_start, dtype=np.int64),
        np.array(probs),
        np.array(opt_start, dtype=np.int64),
        np.array(opt_v, dtype=np.int64),
        np.array(opt_left, dtype=np.int64),
        pbust,
        int(max(opt_v)),
    )


def _bank_allowed(game: tt.Game, opened: bool, turn_total: int, hot: bool) -> bool:
    """Whether the engine lets a player bank after setting aside a single 5 with this turn total.

    ``hot``: the 5 was the last die (hot dice), else one die is left.
    """
    roll = (5,) if hot else (2, 5)
    state = game.initial_state()._replace(
        opened=(opened, False), roll=roll, to_roll=0, turn_total=turn_total - UNIT
    )
    return tt.encode_action((5,), True) in game.legal_actions(state)


@lru_cache(maxsize=32)
def _bank_rules_cached(key: tuple) -> tuple[int, int, bool]:
    game = tt.Game(num_players=2, **dict(key))
    return bank_rules(game, cached=False)


def bank_rules(game: tt.Game, cached: bool = True) -> tuple[int, int, bool]:
    """``(thr_open, thr_bank, hot)`` read from the engine's legal actions on probe states.

    ``thr_open`` / ``thr_bank``: the least turn total (units) a player not yet / already on the
    list may bank; ``hot``: whether a bank is refused right after hot dice.

    Raises:
        ValueError: the bank rule is not a threshold on the turn total (which the solver assumes).
    """
    if cached:
        return _bank_rules_cached(tuple(sorted(game.options.items())))
    T = game.target // UNIT
    thresholds = []
    for opened in (False, True):
        allowed = [_bank_allowed(game, opened, u * UNIT, False) for u in range(1, T + 41)]
        if True not in allowed:
            raise ValueError(f"a player {'on' if opened else 'off'} the list could never bank")
        first = allowed.index(True)
        if not all(allowed[first:]):
            raise ValueError("the win-probability solver needs banks allowed from a threshold on")
        thresholds.append(first + 1)
    hot = not _bank_allowed(game, True, (T + 40) * UNIT, True)
    return thresholds[0], thresholds[1], hot


def roles(game: tt.Game) -> tuple[np.ndarray, np.ndarray]:
    """``(kinds, nexts)`` per role: what a bank past the target is worth and the opponent's role."""
    if game.end == "finish_round":  # the starter's reaching gives the other the rest of the round
        return np.array([1, 0], dtype=np.int64), np.array([1, 0], dtype=np.int64)
    if game.end == "last_turn_each":
        return np.array([1], dtype=np.int64), np.array([0], dtype=np.int64)
    return np.array([0], dtype=np.int64), np.array([0], dtype=np.int64)  # immediate


def _cycles_of_sum(S: int, T: int, num_roles: int) -> np.ndarray:
    """The cycles of start states with total sum ``S`` (see :func:`kernel.solve_cycles`)."""
    rows = []
    for a in range(max(0, S - T + 1), S // 2 + 1):
        b = S - a
        if num_roles == 2:
            if a < b:
                rows.append((a, b, 0, b, a, 1))
                rows.append((a, b, 1, b, a, 0))
            else:
                rows.append((a, a, 0, a, a, 1))
        elif a < b:
            rows.append((a, b, 0, b, a, 0))
        else:
            rows.append((a, a, 0, -1, -1, -1))
    return np.array(rows, dtype=np.int64).reshape(-1, 6)


def _last_turn_tables(game: tt.Game, rt: RollTables, rules) -> tuple[np.ndarray, np.ndarray, int, float]:
    """``(sat, Ls, D, bound)``: the last-turn tables, the need cap ``D`` and the error it leaves."""
    thr_open, thr_bank, hot = rules
    sat = kernel.last_turn_sat(MAX_NEED_UNITS, hot, *rt.args_bust())
    below = np.flatnonzero(sat[1:, 6] < CAP_PROBABILITY)
    D = int(below[0]) if len(below) else MAX_NEED_UNITS
    bound = float(sat[D + 1, 6]) if D + 1 < sat.shape[0] else float(sat[-1, 6])
    Ls = np.stack([kernel.last_turn_values(D, thr, sat, hot, *rt.args()) for thr in (thr_open, thr_bank)])
    return sat, Ls, D, bound


def build(game: tt.Game, progress: bool = True) -> dict[str, np.ndarray]:
    """Solve ``game`` (two players) and return the arrays to cache (see the module docstring)."""
    check_game(game)
    if game.options["bust_penalty"]:
        return build_penalty(game, progress)
    started = time.perf_counter()
    rt = roll_tables(game)
    rules = thr_open, thr_bank, hot = bank_rules(game)
    kinds, nexts = roles(game)
    T = game.target // UNIT
    sat, Ls, D, bound = _last_turn_tables(game, rt, rules)
    ra_rows, rb_rows = [], []
    for ob in (0, 1):
        ra, rb = kernel.reach_table(Ls[ob], hot, *rt.args_bust())
        ra_rows.append(ra)
        rb_rows.append(rb)
    RAs, RBs = np.stack(ra_rows), np.stack(rb_rows)
    W = np.zeros((len(kinds), T, T))
    sums = range(2 * T - 2, -1, -1)
    cycles = [_cycles_of_sum(S, T, len(kinds)) for S in sums]
    total = sum(len(c) for c in cycles)
    bar = _progress(total, f"solving {game.preset} target {game.target}", progress)
    worst_iter = 0
    try:
        for cyc in cycles:
            # numba's stubs type a kernel as Dispatcher, whose __call__ takes fewer arguments.
            iters = kernel.solve_cycles(  # type: ignore[call-arg]
                cyc, W, T, thr_open, thr_bank, hot, kinds, nexts, Ls, RAs, RBs, rt.maxv,
                *rt.args_bust(), NEWTON_TOL, NEWTON_MAX_ITER,
            )
            worst_iter = max(worst_iter, int(iters.max()))
            bar.update(len(cyc))
    finally:
        bar.close()
    if worst_iter > NEWTON_MAX_ITER:
        raise RuntimeError("the Newton steps of some cycle did not converge")
    return {
        "W": W,
        "L": Ls,
        "sat": sat,
        "meta": np.array([thr_open, thr_bank, int(hot), D, worst_iter], dtype=np.int64),
        "error_bound": np.array(bound),
        "seconds": np.array(time.perf_counter() - started),
    }


# -- a bust penalty: value iteration on bounds ----------------------------------------------------
def penalty_layout(game: tt.Game, rules, floor: int) -> dict:
    """The shape of the penalty game's start-of-turn tables (see :mod:`_tenthousand_penalty_kernel`).

    Returns ``F`` (the floor, units), ``N`` (totals ``F .. T - 1``), ``K`` (busts in a row), ``P``
    (the penalty, units) and ``FO`` (2 if the opened flags matter, else 1).
    """
    if floor > 0 or floor % UNIT:
        raise ValueError(f"the floor must be a multiple of {UNIT} at or below 0, got {floor}")
    thr_open, thr_bank, _ = rules
    F = floor // UNIT
    T = game.target // UNIT
    return {
        "F": F,
        "N": T - F,
        "K": game.options["bust_penalty_after"],
        "P": game.options["bust_penalty"] // UNIT,
        "FO": 1 if thr_open == thr_bank else 2,
    }


def penalty_layers(layout: dict, width: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, layer_start)``: every start state in the order of a sweep, in independent layers.

    Layers by decreasing sum of (shifted) totals, then decreasing ``i + j``: a bank raises the sum
    and a bust without penalty raises ``i + j`` at the same sum, so only the penalty (and the floor)
    reads a value of the sweep before. A bank raises the sum by at least the least bank ``width``
    (units), so a layer takes ``width`` sums at once (fewer, larger layers to solve in parallel).
    A player not on the list has no positive total.
    """
    F, N, K, FO = layout["F"], layout["N"], layout["K"], layout["FO"]
    om, oo, i, j, a, b = np.meshgrid(
        np.arange(FO), np.arange(FO), np.arange(K), np.arange(K), np.arange(N), np.arange(N), indexing="ij"
    )
    rows = np.stack([x.ravel() for x in (om, oo, i, j, a, b)], axis=1).astype(np.int64)
    if FO == 2:
        keep = ((rows[:, 0] == 1) | (rows[:, 4] <= -F)) & ((rows[:, 1] == 1) | (rows[:, 5] <= -F))
        rows = rows[keep]
    total, busts = rows[:, 4] + rows[:, 5], rows[:, 2] + rows[:, 3]
    layer = (2 * N - 2 - total) // width * (2 * K - 1) + (2 * K - 2 - busts)
    order = np.argsort(layer, kind="stable")
    rows, layer = rows[order], layer[order]
    starts = np.flatnonzero(np.diff(layer)) + 1
    layer_start = np.concatenate([[0], starts, [len(rows)]]).astype(np.int64)
    return np.ascontiguousarray(rows), layer_start


def build_penalty(game: tt.Game, progress: bool = True, floor: int = FLOOR, tol: float = SWEEP_TOL) -> dict:
    """Solve a game with a bust penalty by interval iteration (see the module docstring)."""
    started = time.perf_counter()
    rt = roll_tables(game)
    rules = thr_open, thr_bank, hot = bank_rules(game)
    kinds, _ = roles(game)
    layout = penalty_layout(game, rules, floor)
    F, N, K, P, FO = (layout[k] for k in ("F", "N", "K", "P", "FO"))
    sat, Ls, D, cap_bound = _last_turn_tables(game, rt, rules)
    ras, rbs = zip(*(kernel.reach_table(Ls[ob], hot, *rt.args_bust()) for ob in (0, 1)))
    RAs, RBs = np.stack(ras), np.stack(rbs)
    rows, layer_start = penalty_layers(layout, max(1, min(thr_open, thr_bank)))
    lo = np.zeros((FO, FO, K, K, N, N))
    hi = np.ones((FO, FO, K, K, N, N))
    T = N  # the target, shifted
    desc = (f"solving {game.preset} target {game.target} (floor {floor}; sweeps to a gap of {tol:.0e}, "
            "10-15 in past solves)")
    # No total: the number of sweeps is not known ahead (MAX_SWEEPS is only a safeguard), and a bar
    # out of MAX_SWEEPS would promise an hour-long wait for a solve of 10-15 sweeps.
    bar = _progress(None, desc, progress, unit="sweep")
    gaps, changes = [], []
    try:
        while True:
            gap, change = penalty_kernel.sweep(
                rows, layer_start, lo, hi, T, K, P, thr_open, thr_bank, hot, int(kinds[0]), Ls, RAs, RBs, rt.maxv,
                *rt.args_bust(),
            )
            gaps.append(gap)
            changes.append(change)
            bar.update(1)
            if hasattr(bar, "set_postfix_str"):
                bar.set_postfix_str(f"gap {gap:.1e}")
            if gap <= tol or len(gaps) >= MAX_SWEEPS:
                break
    finally:
        bar.close()
    if gaps[-1] > tol:
        raise RuntimeError(f"the bounds did not close to {tol} in {MAX_SWEEPS} sweeps (gap {gaps[-1]:.2e})")
    return {
        "W": (lo + hi) / 2,
        "lo": lo,
        "hi": hi,
        "L": Ls,
        "sat": sat,
        "meta": np.array([thr_open, thr_bank, int(hot), D, len(gaps)], dtype=np.int64),
        "layout": np.array([F, N, K, P, FO], dtype=np.int64),
        "gaps": np.array(gaps),
        "error_bound": np.array(cap_bound + gaps[-1] / 2),
        "cap_bound": np.array(cap_bound),
        "seconds": np.array(time.perf_counter() - started),
    }


def _progress(total: int | None, desc: str, enabled: bool, unit: str = "state"):
    """A tqdm bar on stderr (a do-nothing stand-in when disabled or tqdm is missing)."""
    bar = optional_progress_bar(enabled, total=total, desc=desc, unit=unit, unit_scale=unit == "state")
    if bar is not None:
        return bar

    class _Quiet:
        def update(self, n):
            pass

        def close(self):
            pass

    return _Quiet()


class Solution:
    """A solved two-player game: start-of-turn win chances and the turn policy derived from them.

    Attributes:
        game: the engine; ``W[r, a, b]``: the mover's chance of winning at the start of a turn
            (role ``r``, totals ``a`` and ``b`` in units of 50); ``value``: the first player's
            chance, ``W[0, 0, 0]``; ``error_bound``: how far any value may be from the exact one
            (from the cap on the last-turn player's need).
    """

    def __init__(self, game: tt.Game, table: dict[str, np.ndarray]):
        self.game = game
        self.W = np.ascontiguousarray(table["W"])
        self.L = np.ascontiguousarray(table["L"])
        self.sat = np.ascontiguousarray(table["sat"])
        self.thr_open, self.thr_bank, hot, self.D, self.newton_iterations = (int(x) for x in table["meta"])
        self.hot = bool(hot)
        self._derived(game, table)

    def _roll_value(self, V: np.ndarray, t2: int, n: int, kind: int, a: int, b: int, ob: int, z: float) -> float:
        """The value of rolling ``n`` dice with turn total ``t2`` (units), ``z`` the value of a bust."""
        if t2 < V.shape[0]:
            return float(V[t2, n])
        if kind == 0:  # beyond the turn's table, where every allowed bank wins
            wa, wb = kernel.win_region(
                self.hot, self.rt.cls_start, self.rt.cls_prob, self.rt.opt_start, self.rt.opt_left, self.rt.pbust
            )
            return float(wa[n] + wb[n] * z)
        # beyond the turn's table: the fixed bank-when-allowed region
        d = min(a + t2 - b, self.L.shape[1] - 1)
        return float(self.RA[ob, d, n] + self.RB[ob, d, n] * z)

    def _derived(self, game: tt.Game, table: dict[str, np.ndarray]) -> None:
        """What both kinds of solution compute from the game once their tables are read."""
        self.error_bound = float(table["error_bound"])
        self.seconds = float(table["seconds"])
        self.T = game.target // UNIT
        self.kinds, self.nexts = roles(game)
        self.rt = roll_tables(game)
        ras, rbs = zip(*(kernel.reach_table(self.L[ob], self.hot, *self.rt.args_bust()) for ob in (0, 1)))
        self.RA, self.RB = np.stack(ras), np.stack(rbs)
        self._turns: dict[tuple, tuple] = {}

    @property
    def value(self) -> float:
        """The first player's P(win) + ½·P(tie) under optimal play by both."""
        return float(self.W[0, 0, 0])

    @property
    def num_roles(self) -> int:
        return len(self.kinds)

    def start_value(self, a: int, b: int, role: int = 0) -> float:
        """The mover's chance at the start of a turn, totals in points (below the target)."""
        return float(self.W[role, a // UNIT, b // UNIT])

    def turn(self, a: int, b: int, role: int = 0):
        """The turn of the mover at totals ``(a, b)`` units: ``(V, bank, t_top, z, d_table)``.

        ``V[t, n]``: the value before rolling ``n`` dice with turn total ``t`` units;
        ``bank[t]``: the value of banking ``t`` units (-1 if not allowed).
        """
        key = (a, b, role)
        found = self._turns.get(key)
        if found is None:
            nxt = int(self.nexts[role])
            z = 1.0 - float(self.W[nxt, b, a])
            ob = 1 if b > 0 else 0
            thr = self.thr_bank if a > 0 else self.thr_open
            V, _, bank, t_top = kernel.pair_turn(
                a, b, self.T, thr, self.hot, z, self.W[nxt], int(self.kinds[role]), self.L[ob],
                self.RA[ob], self.RB[ob], self.rt.maxv, *self.rt.args_bust(),
            )
            found = (V, bank, t_top, z, thr, ob)
            if len(self._turns) > 256:
                self._turns.clear()
            self._turns[key] = found
        return found

    def choice_values(self, a: int, b: int, role: int, t: int, value: int, left: int) -> tuple[float, float | None]:
        """``(roll value, bank value or None)`` of setting aside ``value`` units leaving ``left`` dice.

        All in units, mover's totals ``a < T``, ``b < T``, turn total ``t`` before the selection.
        """
        V, bank, t_top, z, thr, ob = self.turn(a, b, role)
        t2 = t + value
        n = left or tt.NUM_DICE
        roll = self._roll_value(V, t2, n, self.kinds[role], a, b, ob, z)
        can_bank = t2 >= thr and not (self.hot and left == 0)
        if not can_bank:
            return roll, None
        if a + t2 < self.T:
            return roll, 1.0 - float(self.W[self.nexts[role], b, a + t2])
        if self.kinds[role] == 0:
            return roll, 1.0
        return roll, 1.0 - float(self.L[ob, min(a + t2 - b, self.L.shape[1] - 1)])

    def last_turn_choice_values(self, need: int, opened: bool, s: int, value: int, left: int):
        """``(roll value, bank value or None)`` in the last turn of the end phase.

        ``need``: units to draw level at the start of the turn; ``s``: turn total so far (units).
        """
        thr = self.thr_bank if opened else self.thr_open
        s2 = s + value
        n = left or tt.NUM_DICE
        E = self.sat.shape[0] - 2
        e2 = need - s2
        if s2 >= thr:
            roll = float(self.sat[0 if e2 < 0 else e2 + 1, n]) if e2 <= E else 0.0
        else:
            roll = float(self._below(need, thr)[s2, n])
        if s2 < thr or (self.hot and left == 0):
            return roll, None
        return roll, 1.0 if e2 < 0 else 0.5 if e2 == 0 else 0.0

    def _below(self, need: int, thr: int) -> np.ndarray:
        # Cached on the instance (a functools.lru_cache on the method would keep every solution
        # it saw, with its tables, alive for the life of the process).
        cache = self.__dict__.setdefault("_below_cache", {})
        key = (need, thr)
        if key not in cache:
            if len(cache) >= 64:
                cache.pop(next(iter(cache)))
            cache[key] = kernel.last_turn_below(need, thr, self.sat, self.hot, *self.rt.args())
        return cache[key]


class PenaltySolution(Solution):
    """A solved game with a bust penalty (see the module docstring).

    Attributes (beyond :class:`Solution`'s): ``W[om, oo, i, j, a, b]``, the mover's chance at the
    start of a turn, on the list or not (``om``, ``oo``; one value each when the flag changes no
    threshold), with ``i`` and ``j`` busts in a row, at totals ``a`` and ``b`` in units shifted by the
    floor (index 0 is the floor ``F``); ``lo`` and ``hi``: the bounds whose midpoint ``W`` is;
    ``gaps``: the largest ``hi - lo`` after each sweep; ``floor`` in points.
    """

    def __init__(self, game: tt.Game, table: dict[str, np.ndarray]):
        self.game = game
        self.W = np.ascontiguousarray(table["W"])
        self.lo = table["lo"]
        self.hi = table["hi"]
        self.L = np.ascontiguousarray(table["L"])
        self.sat = np.ascontiguousarray(table["sat"])
        self.thr_open, self.thr_bank, hot, self.D, self.sweeps = (int(x) for x in table["meta"])
        self.newton_iterations = 0
        self.hot = bool(hot)
        self.F, self.N, self.K, self.P, self.FO = (int(x) for x in table["layout"])
        self.floor = self.F * UNIT
        self.gaps = np.asarray(table["gaps"])
        self.cap_bound = float(table["cap_bound"])
        self._derived(game, table)

    @property
    def value(self) -> float:
        """The first player's P(win) + ½·P(tie) under optimal play by both (the bounds' midpoint)."""
        return float(self.W[0, 0, 0, 0, -self.F, -self.F])

    def index(self, a: int, b: int, opened=(True, True), busts=(0, 0)) -> tuple[int, ...]:
        """The index of ``W`` for the mover's totals ``a``, ``b`` (units; below the floor: the floor)."""
        o = (int(bool(opened[0])), int(bool(opened[1]))) if self.FO == 2 else (0, 0)
        return (*o, int(busts[0]), int(busts[1]), max(a - self.F, 0), max(b - self.F, 0))

    def start_value(self, a: int, b: int, role: int = 0, opened=None, busts=(0, 0)) -> float:
        """The mover's chance at the start of a turn, totals in points (below the target).

        ``opened`` defaults to "has a positive total"."""
        if opened is None:
            opened = (a > 0, b > 0)
        return float(self.W[self.index(a // UNIT, b // UNIT, opened, busts)])

    def turn_at(self, key: tuple[int, ...]):
        """The turn at ``W``'s index ``key``: ``(V, bank, t_top, z, thr, ob, w_next)`` (as :meth:`Solution.turn`)."""
        found = self._turns.get(key)
        if found is None:
            om, oo, i, j, a, b = key
            if i + 1 < self.K:
                z = 1.0 - float(self.W[oo, om, j, i + 1, b, a])
            else:
                z = 1.0 - float(self.W[oo, om, j, 0, b, max(a - self.P, 0)])
            w_next = self.W[oo, self.FO - 1, j, 0]
            thr = self.thr_bank if (self.FO == 1 or om == 1) else self.thr_open
            ob = oo if self.FO == 2 else 1
            V, _, bank, t_top = kernel.pair_turn(
                a, b, self.N, thr, self.hot, z, w_next, int(self.kinds[0]), self.L[ob],
                self.RA[ob], self.RB[ob], self.rt.maxv, *self.rt.args_bust(),
            )
            found = (V, bank, t_top, z, thr, ob, w_next)
            if len(self._turns) > 256:
                self._turns.clear()
            self._turns[key] = found
        return found

    def choice_values(self, a: int, b: int, role: int, t: int, value: int, left: int,
                      opened=(True, True), busts=(0, 0)) -> tuple[float, float | None]:
        """``(roll value, bank value or None)`` of setting aside ``value`` units leaving ``left`` dice.

        Totals ``a``, ``b`` in units (below the target; below the floor they count as the floor),
        ``opened`` and ``busts`` the mover's and the opponent's, ``t`` the turn total before the
        selection; ``role`` is 0 (one role).
        """
        key = self.index(a, b, opened, busts)
        V, bank, t_top, z, thr, ob, w_next = self.turn_at(key)
        a, b = key[4], key[5]
        t2 = t + value
        n = left or tt.NUM_DICE
        roll = self._roll_value(V, t2, n, self.kinds[0], a, b, ob, z)
        if t2 < thr or (self.hot and left == 0):
            return roll, None
        if a + t2 < self.N:
            return roll, 1.0 - float(w_next[b, a + t2])
        if self.kinds[0] == 0:
            return roll, 1.0
        return roll, 1.0 - float(self.L[ob, min(a + t2 - b, self.L.shape[1] - 1)])


def solve_options(game: tt.Game, floor: int = FLOOR) -> dict:
    """The cache key of a solve: the game's options, and with a bust penalty the floor and tolerance."""
    options = solver_options(game)
    if game.options["bust_penalty"]:
        options = {**options, "floor": floor, "sweep_tol": SWEEP_TOL}
    return options


def solve(options_or_game, cache_dir=None, progress: bool = True, use_cache: bool = True,
          floor: int = FLOOR, bar: bool = True) -> Solution:
    """The solution for a game (an engine or an options dict), from the cache or built and cached.

    ``floor`` (points): with a bust penalty, totals below it count as it (see the module docstring).
    ``progress``: when the table is built (not when it is loaded), show a progress bar (tqdm, when
    installed) or, with ``bar=False`` (as agents do: their callers' bars and ``--quiet`` rule
    stderr), say in one line on stderr what is solved and roughly how long it takes.
    """
    game = options_or_game if isinstance(options_or_game, tt.Game) else make_game(options_or_game)
    check_game(game)

    def announced(builder, how_long: str):
        def run():
            if progress and not bar:
                print(f"winprob: solving two-player 10 000 ({_describe(game)}) for the chance of winning once "
                      f"({how_long} on two cores; kept in the solver cache)", file=sys.stderr, flush=True)  # fmt: skip
            return builder(progress and bar)

        return run

    # The measured times of docs/solvers.md (Two-player 10 000: the chance of winning)
    if game.options["bust_penalty"]:
        table = cache_mod.load_or_build(
            SOLVER, VERSION, solve_options(game, floor),
            announced(lambda shown: build_penalty(game, shown, floor),
                      "with the bust penalty: about 1 min at target 1000, 4 at 2000, 15 at 5000, 40 at 10 000"),
            cache_dir=cache_dir, use_cache=use_cache,
        )  # fmt: skip
        return PenaltySolution(game, table)
    table = cache_mod.load_or_build(
        SOLVER, VERSION, solver_options(game),
        announced(lambda shown: build(game, shown), "under a minute at target 10 000, less at lower targets"),
        cache_dir=cache_dir, use_cache=use_cache,
    )  # fmt: skip
    return Solution(game, table)


def _describe(game: tt.Game) -> str:
    """The preset and target of a game, with the end rule when it is not the preset's."""
    words = [game.preset, f"target {game.target}"]
    if game.options.get("end") not in (None, tt.PRESETS.get(game.preset, {}).get("end")):
        words.append(f"end {game.options['end']}")
    return ", ".join(words)


def peak_memory_mib() -> float:
    """The process's peak resident memory so far, MiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _points(thr: int) -> str:
    """A bank threshold in words: a threshold of one unit (50) or less lets any selection bank."""
    return "any" if thr <= 1 else f"{thr * UNIT} points"


def cli_summary(options: dict, cache_dir=None, progress: bool = True, floor: int = FLOOR) -> dict:
    """What ``dice-envs solve tenthousand --objective win`` prints, JSON-able.

    Returns:
        ``value`` (the first player's P(win) + ½·P(tie)), ``lines`` (the human-readable summary),
        and ``seconds`` (this call), ``solve_seconds`` (the build, when it was built),
        ``peak_memory_mib``, ``error_bound``, ``cache_file``.
    """
    started = time.perf_counter()
    game = make_game(options)
    key = solve_options(game, floor)
    path = cache_mod.cache_path(SOLVER, VERSION, key, cache_dir)
    cached = cache_mod.load(SOLVER, VERSION, key, cache_dir) is not None
    solution = solve(game, cache_dir=cache_dir, progress=progress, floor=floor)
    seconds = time.perf_counter() - started
    memory = peak_memory_mib()
    roles_text = {
        "finish_round": "the round is finished after the target is reached",
        "last_turn_each": "the other player gets one last turn",
        "immediate": "the first to reach the target wins",
    }[game.end]
    T = solution.T
    if isinstance(solution, PenaltySolution):
        flags = " x on the list or not" if solution.FO == 2 else ""
        states = (
            f"start-of-turn states solved: {solution.W.size:,} ({solution.N} x {solution.N} totals"
            f" {solution.floor}..{game.target - UNIT} x {solution.K} x {solution.K} busts in a row{flags});"
        )
        accuracy = (
            f"bust penalty {game.options['bust_penalty']} after {solution.K} busts in a row, totals floored at"
            f" {solution.floor}; {solution.sweeps} sweeps; every value is within {solution.error_bound:.1e} of"
            f" the exact one of the floored game (bounds {solution.gaps[-1]:.1e} apart, last-turn needs to"
            f" {solution.D * UNIT:,} points)"
        )
    else:
        states = (
            f"start-of-turn states solved: {solution.W.size:,} ({solution.num_roles} role(s) x {T} x {T} totals);"
        )
        accuracy = (
            f"last-turn needs tabulated to {solution.D * UNIT:,} points; every value is within"
            f" {solution.error_bound:.1e} of the exact one"
        )
    lines = [
        f"Two-player 10 000 ({game.preset} rules, target {game.target}; {roles_text})",
        f"first player's chance of winning under optimal play (P(win) + 1/2 P(tie)): {solution.value:.6f}",
        f"second player's: {1 - solution.value:.6f}",
        f"{states} least banks {_points(solution.thr_open)} to open, then {_points(solution.thr_bank)}",
        accuracy,
        f"{'loaded from the cache' if cached else f'solved in {solution.seconds:.1f} s'};"
        f" peak memory {memory:.0f} MiB; table {path}",
    ]
    return {
        "value": solution.value,
        "lines": lines,
        "seconds": seconds,
        "solve_seconds": solution.seconds,
        "peak_memory_mib": memory,
        "error_bound": solution.error_bound,
        "cache_file": str(path),
        "from_cache": cached,
    }


# -- the agent ------------------------------------------------------------------------------------
class WinProbAgent(DeterministicAgent):
    """Plays the two-player policy of greatest winning chance (agent ``winprob``).

    Builds or loads the solution on construction (minutes for target 10 000 the first time, then
    seconds from the cache). At each decision it reads its own observation (the layout of
    the Ten thousand env module's docstring (``dice_envs.registry.env_module("tenthousand")``): totals own first, på listen flags, busts in a row, whose turn,
    turn total, dice in play, the roll by face, end phase), re-solves the current turn from the
    start-of-turn table and takes the selection and roll/bank of greatest value (ties: bank, then
    the lower action id).

    With a bust penalty (``farkle``) the start of each turn is looked up with both players' busts
    in a row and på-listen flags from the observation.

    Under ``finish_round`` the values depend on whether the agent started the round, which the
    observation does not show. The agent works it out at its first decision of a game: a player
    who has not yet banked has had as many turns as their busts in a row (modulo
    ``bust_penalty_after``), so an opponent not on the list with as many busts as the agent has had
    no extra turn and the agent started; an opponent already on the list is taken to have played
    first. That is right unless the agent has busted before it: a bust on the first roll of a turn
    (six dice that score nothing, 2.3% of turns in ``dk``) comes before any decision, and one is
    enough for the observation to fit both roles: a starter who busted, after which the opponent
    opened, or a second player who busted after the opponent had opened (or opened later). The
    agent then guesses second, the likelier case: with ``winprob`` in both seats of ``dk``, after
    one such bust the opponent is on the list at the agent's first decision in 53% of games for the
    second player and in 32% for the starter (3000 simulated openings each), so the guess is right
    about 63% of the time and wrong in about 0.7% of the games the agent starts (an outside review
    counted 34 of 4000 ``dk`` games). Pass ``seat`` to say it instead; tournaments, ``match`` and
    ``dice-envs play`` tell it the seat of every game (:meth:`set_seat`), which overrides both for
    that game.

    Head to head at target 10 000 (pairs of games with the seats swapped and the same dice seed,
    ``python -m agents.solvers.tenthousand_win_bench match --preset P --opponent O --pairs N``):
    against the turn-EV ``optimal`` agent, ``dk`` 50.75% (95% Wilson 48.6-52.9%) and ``no``
    51.75% (49.6-53.9%) over 2000 games each; against the threshold ``heuristic``, ``dk`` 51.8%
    (48.7-54.9%) and ``no`` 54.3% (51.2-57.4%) over 1000 games each; ``farkle`` (``--pairs 5000
    --seed 1``) 51.0% (50.0-52.0%) against ``optimal`` and 55.0% (54.0-56.0%) against
    ``heuristic`` over 10 000 games each. The exact values say what the margin over any policy can
    be at most; the turn-EV agent already plays for the lead in the end phase, so the margin over
    it is small.

    Args:
        game: a two-player Ten thousand engine the solver supports.
        seed: unused (the agent is deterministic); kept for the protocol.
        seat: the agent's seat if known (0 or 1); -1 (default) infers its role in the round.
        cache_dir: where solver tables are cached (default: the package's cache directory).
        floor: with a bust penalty, the floor of the solved totals (points; see the module
            docstring). The agent reads totals from its observation, which clips them at
            ``-target``, and plays a total below the floor as the floor.
    """

    name = "winprob"
    game: tt.Game

    def __init__(self, game: tt.Game, seed: int | None = None, seat: int = -1, cache_dir: str = "",
                 floor: int = FLOOR):
        super().__init__(game, seed)
        check_game(game)
        if seat not in (-1, 0, 1):
            raise ValueError(f"WinProbAgent: seat must be 0, 1 or -1 (infer), got {seat!r}")
        self.seat = seat
        # A first solve says so on stderr in one line, without a bar (see ``solve``).
        self.solution = solve(game, cache_dir=cache_dir or None, progress=True, floor=floor, bar=False)
        self._penalty = isinstance(self.solution, PenaltySolution)
        self._role: int | None = None
        self._game_seat: int | None = None  # the seat of this game, from set_seat (until reset)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._role = None
        self._game_seat = None

    def set_seat(self, seat: int) -> None:
        """Play this game from ``seat`` (0 or 1): the runner knows the seat, so the role in the
        round follows from it rather than from the observation (which can mislead after a bust on
        a first roll). It overrides ``seat=`` of the constructor and the inference for this game
        only: :meth:`reset` forgets it.

        Raises:
            ValueError: ``seat`` is not 0 or 1.
        """
        if isinstance(seat, bool) or seat not in (0, 1):
            raise ValueError(f"WinProbAgent.set_seat: seat must be 0 or 1, got {seat!r}")
        self._game_seat = int(seat)
        self._role = None  # worked out from the seat at the next decision

    def _infer_role(self, obs: np.ndarray) -> int:
        if self.solution.num_roles == 1:
            return 0
        if self._game_seat is not None:
            return (self._game_seat - self.game.first_starter) % 2
        if self.seat >= 0:
            return (self.seat - self.game.first_starter) % 2
        opp_opened, my_busts, opp_busts = obs[3] > 0, int(obs[4]), int(obs[5])
        if opp_opened:
            return 1
        k = self.game.options["bust_penalty_after"]
        return 0 if (opp_busts - my_busts) % k == 0 else 1

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_of(action_mask, "WinProbAgent.act")
        obs = np.asarray(observation)
        own, opp = int(round(float(obs[0]))), int(round(float(obs[1])))
        fresh = own == 0 and opp == 0 and not obs[2] and not obs[3] and not obs[4] and not obs[5]
        if self._role is None or (fresh and obs[8] == 0):  # a new game, even without reset()
            self._role = self._infer_role(obs)
        t = int(round(float(obs[8]))) // UNIT
        dice = int(obs[9])
        roll = tuple(face for face in range(1, 7) for _ in range(int(obs[9 + face])))
        if len(roll) != dice:
            raise ValueError(f"WinProbAgent.act: the observation's roll {roll} does not hold {dice} dice")
        end_phase = bool(obs[17])
        best, best_key = None, None
        for sel, value in self.game.selections(roll):
            index = tt.SELECTION_INDEX[sel]
            if not action_mask[2 * index]:
                continue
            v, left = value // UNIT, dice - len(sel)
            if end_phase:
                roll_value, bank_value = self.solution.last_turn_choice_values(
                    (opp - own) // UNIT, bool(obs[2]), t, v, left
                )
            elif self._penalty:
                roll_value, bank_value = cast(PenaltySolution, self.solution).choice_values(  # _penalty
                    own // UNIT, opp // UNIT, 0, t, v, left, opened=(obs[2] > 0, obs[3] > 0),
                    busts=(int(obs[4]), int(obs[5])),
                )
            else:
                roll_value, bank_value = self.solution.choice_values(own // UNIT, opp // UNIT, self._role, t, v, left)
            candidates = [(roll_value, 0, -(2 * index), 2 * index)]
            if bank_value is not None and action_mask[2 * index + 1]:
                candidates.append((bank_value, 1, -(2 * index + 1), 2 * index + 1))
            for value_, is_bank, neg_id, action in candidates:
                key = (value_, is_bank, neg_id)
                if best_key is None or key > best_key:
                    best, best_key = action, key
        if best is None:  # the mask allows something the roll does not offer: take the first
            best = int(legal[0])
        return int(best)


# -- one situation, and the bank map (``solve tenthousand --objective win --describe / --export``) ----
def describe_situation(options: dict, situation, cache_dir=None, floor: int = FLOOR,
                       name: str = "situation") -> dict:  # fmt: skip
    """Every choice of one situation valued by the mover's chance of winning, and what
    :class:`WinProbAgent` plays there.

    The situation (:func:`agents.solvers.tenthousand.parse_situation`) is in points; the solver's
    tables are in units of 50, and the conversion is made here (``Solution.start_value`` takes
    points, ``Solution.choice_values`` units). A choice is worth the mover's P(win) + ½·P(tie)
    with optimal play by both after it (:meth:`Solution.choice_values`; with a bust penalty the
    busts in a row and the lists count; in the mover's last turn, the opponent at or past the
    target, :meth:`Solution.last_turn_choice_values`).

    The agent is told its seat (from ``role``: in a game it infers its role, see its docstring) and
    asked on the engine's state of the situation (its observation and action mask), so the mark of
    its choice checks the values printed. Building the agent loads the table, or solves it first if
    it is not in the cache (the agent says so on stderr).

    Returns:
        ``situation`` (checked, defaults filled in), ``end_phase``, ``measure`` (``"win
        probability"``), ``value`` (the best choice's), ``choices``
        (:func:`agents.solvers.tenthousand.choice_rows`), ``agent``, ``agent_choice``, ``lines``.

    Raises:
        ValueError: rules the solver does not model, or a situation
            :func:`agents.solvers.tenthousand.check_situation` refuses.
    """
    from agents.solvers import tenthousand as tts

    game = make_game(options)
    s = tts.check_situation(game, situation, "win", name)  # before a solve starts
    role = s.role or 0
    seat = (game.first_starter + role) % 2
    agent = WinProbAgent(game, seat=seat, cache_dir=str(cache_dir) if cache_dir else "", floor=floor)
    sol = agent.solution
    own, opp = int(s.own or 0), int(s.opp or 0)  # filled in by check_situation
    a, b, t = own // UNIT, opp // UNIT, s.turn // UNIT
    last = opp >= game.target

    def value_of(points: int, left: int, bank: bool) -> float | None:
        v = points // UNIT
        if last:
            roll, banked = sol.last_turn_choice_values(b - a, bool(s.opened), t, v, left)
        elif isinstance(sol, PenaltySolution):
            roll, banked = sol.choice_values(a, b, 0, t, v, left, opened=(s.opened, s.opp_opened),
                                             busts=(s.busts, s.opp_busts))  # fmt: skip
        else:
            roll, banked = sol.choice_values(a, b, role, t, v, left)
        return banked if bank else roll

    state = tts.situation_state(game, s, seat)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    played = agent.act(game.observe(state, seat), mask)
    rows = tts.choice_rows(game, state, value_of, played)
    head = f"Two-player 10 000 ({_describe(game)}): {tts.totals_words(s)}"
    if sol.num_roles == 2:
        head += "; the mover " + ("started the round (role 0)" if role == 0 else "is second in the round (role 1)")
    lines = [
        f"{head}; {tts.roll_words(s)}",
        "each choice is worth the mover's chance of winning (P(win) + 1/2 P(tie)) with optimal play by both after it"
        + ("; this is the mover's last turn: the opponent has reached the target" if last else "") + ":",
    ]
    if isinstance(sol, PenaltySolution) and min(own, opp) < sol.floor:
        lines.append(f"  (the solved game floors totals at {sol.floor}: a total below it counts as {sol.floor})")
    lines += tts.choice_lines(rows, "winprob", 6)
    return {
        "situation": s.fields(),
        "end_phase": last,
        "measure": "win probability",
        "value": rows[0]["value"],
        "choices": rows,
        "agent": "winprob",
        "agent_choice": game.action_to_string(state, played),
        "lines": lines,
    }


#: The columns of :func:`bank_map_rows` (``dice-envs solve tenthousand --objective win --export``).
BANK_MAP_COLUMNS = ("role", "own", "opp", "opened", "opp_opened", "busts", "opp_busts",
                    *(f"bank_from_{n}" for n in range(1, 7)), *(f"bank_{n}" for n in range(1, 7)))  # fmt: skip


def _bank_cells(V: np.ndarray, bank: np.ndarray, hot: bool) -> dict:
    """The ``bank_from_n`` and ``bank_n`` cells of one turn's tables (:meth:`Solution.turn`)."""
    from agents.solvers.tenthousand import ranges_text

    cells: dict = {}
    top = len(bank) - 1
    for n in range(1, tt.NUM_DICE + 1):
        ranges: list[tuple[int, int | None]] = []
        if not (hot and n == tt.NUM_DICE):
            banks = (bank >= 0) & (bank >= V[:, n])  # ties to the bank, as the agent plays them
            edges = np.diff(np.concatenate([[0], banks.astype(np.int8), [0]]))
            starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
            # Past the turn's table every allowed bank beats a roll (see pair_turn): the last range goes on.
            ranges = [(int(s) * UNIT, None if e == top else int(e) * UNIT) for s, e in zip(starts, ends)]
        cells[f"bank_from_{n}"] = ranges[0][0] if ranges else None
        cells[f"bank_{n}"] = ranges_text(ranges)
    return cells


def bank_map_size(solution: Solution) -> int:
    """The number of rows :func:`bank_map_rows` gives: one per start-of-turn state of the solution."""
    if isinstance(solution, PenaltySolution):
        if solution.FO == 1:
            return solution.K**2 * solution.N**2
        below = -solution.F + 1  # totals at or below 0 (off the list possible)
        return solution.K**2 * (solution.N + below) ** 2
    return solution.num_roles * solution.T**2


def bank_map_rows(solution: Solution, progress: bool = False) -> Iterator[dict]:
    """The bank thresholds of every start of a turn, one row per state (:data:`BANK_MAP_COLUMNS`).

    A state is the mover's ``role`` (under ``finish_round``, else ``None``), the totals ``own`` and
    ``opp`` (points, below the target; with a bust penalty from the floor up), and with a bust
    penalty the busts in a row (``busts``, ``opp_busts``) and, where the opening threshold differs
    from later banks, the lists (``opened``, ``opp_opened``; otherwise ``None``: no penalty, on
    the list means a total above 0; or the list changes nothing).

    For ``n`` in 1..6 dice that a roll would take (6: after hot dice): ``bank_n``, the turn totals
    (points, what a bank would make) at which banking is allowed and worth at least as much as
    rolling ``n`` dice on (a tie counts as a bank, as the agent plays it), as ranges
    (:func:`agents.solvers.tenthousand.ranges_text`: ``"1050-1900 2000+"``; empty: never, such as
    after hot dice under ``hot_dice_must_roll``); ``bank_from_n``, the least of them. The region is
    not always one range: near the target a bank that leaves the mover just short of it can be worse
    than rolling on to reach it, so ``bank_from_n`` alone would mislead there.

    Order: role, lists, busts, then ``own`` and ``opp`` ascending. Every row re-solves one turn
    from the table (0.2-0.3 ms at target 10 000: ``dk``'s 80 000 rows took 25 s).
    """
    bar = optional_progress_bar(progress, total=bank_map_size(solution), desc="bank thresholds", unit="state")
    done = 0
    try:
        if isinstance(solution, PenaltySolution):
            F, N, K, FO = solution.F, solution.N, solution.K, solution.FO
            flags = [(om, oo, i, j) for om in range(FO) for oo in range(FO) for i in range(K) for j in range(K)]
            for om, oo, i, j in flags:
                for x in range(N):
                    if FO == 2 and not om and x + F > 0:
                        continue  # a total above 0 comes from a bank: on the list
                    for y in range(N):
                        if FO == 2 and not oo and y + F > 0:
                            continue
                        V, bank = solution.turn_at((om, oo, i, j, x, y))[:2]
                        yield {"role": None, "own": (x + F) * UNIT, "opp": (y + F) * UNIT,
                               "opened": bool(om) if FO == 2 else None, "opp_opened": bool(oo) if FO == 2 else None,
                               "busts": i, "opp_busts": j, **_bank_cells(V, bank, solution.hot)}  # fmt: skip
                        done += 1
                        if bar is not None and done % 1000 == 0:
                            bar.update(1000)
        else:
            T = solution.T
            for r in range(solution.num_roles):
                for x in range(T):
                    for y in range(T):
                        V, bank = solution.turn(x, y, r)[:2]
                        yield {"role": r if solution.num_roles == 2 else None, "own": x * UNIT, "opp": y * UNIT,
                               "opened": None, "opp_opened": None, "busts": None, "opp_busts": None,
                               **_bank_cells(V, bank, solution.hot)}  # fmt: skip
                        done += 1
                        if bar is not None and done % 1000 == 0:
                            bar.update(1000)
    finally:
        if bar is not None:
            bar.update(done % 1000)
            bar.close()


def export_bank_map(path, options: dict, cache_dir=None, progress: bool = False, floor: int = FLOOR) -> dict:
    """Write :func:`bank_map_rows` to ``path`` (``.csv`` or ``.json``: :func:`agents.solvers.export.write_rows`),
    solving the game first if it is not cached.

    Returns:
        ``{"path", "format", "rows", "columns"}``.
    """
    from agents.solvers.export import export_format, write_rows

    export_format(path)  # before a solve starts
    solution = solve(options, cache_dir=cache_dir, progress=progress, floor=floor)
    return write_rows(path, BANK_MAP_COLUMNS, bank_map_rows(solution, progress))
