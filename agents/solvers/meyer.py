"""Two-player Meyer solved: the one-life duel and the whole game with lives, in equilibrium.

The solver reads the rules through the engine (:mod:`dice_envs.games.meyer`): its ranking
(``Game.rank``, ``Game.claim_of_rank``), the exact chance of each value (``CLAIM_PROBABILITY``),
the legal claims over a claim to beat (``Game.legal_claims``), the truth of a claim
(``Game.is_true``), the cost of a doubted ``21`` and the options. Everything below works with
*ranks* (0 = the lowest value of the variant .. 20 = ``21``, Meyer), so "at least as high" is ``>=``.

Method
------

Two players alternate within a round. When a player believes a claim ``c``, the claimer's dice are
thrown away unseen, so what follows depends only on ``c``, on the lives and on who rolls next:
the state "player X rolls and must beat ``b``" is a public state with no private information, a
subgame of the zero-sum game. Its value ``V[r, o, b]`` (to the roller, who has ``r`` lives against
``o``) is the value of one *level*: a signalling game in which the roller sees their dice ``D``
(exact chances), optionally makes the blind reroll (ME-5), and claims; the responder sees the claim
(and whether it was blind) and doubts or believes. Payoffs to the roller:

* doubted, true claim: the responder loses ``meyer_costs`` lives for ``21``, else 1 (never more
  than they have); the responder starts the next round: ``-U(o - k, r)`` (``+1`` if they are out);
* doubted, a lie: the roller loses them; ``-U(o, r - k)`` (``-1`` if out);
* believed: the responder becomes the roller at level ``c``: ``-V[o, r, c]``.

``U(x, y) = V[x, y, start]`` is the value of a round's starter. A doubt always takes a life, so
the rounds are solved backwards over the total of lives; within a round, the levels from the
highest claim down. Each level is a linear programme in sequence form (the roller's realisation
weights ``p(D) * P(claim | D)``, the blind reroll's weights, and one variable per signal for the
responder's best reply), solved with scipy's HiGHS; the responder's equilibrium doubt
probabilities are the programme's dual values. With two players the end rule does not matter
(the first player out is the loser either way).

Equal claims (``claim_rule="at_least"``): believing a claim ``b`` at level ``b`` leads back to
level ``b`` with the roles swapped, so ``V[r, o, b]`` and ``V[o, r, b]`` depend on each other
and a round could in principle go on for ever. The pair is a fixed point
``v1 = f1(v2), v2 = f2(v1)``, where ``f`` is the level's LP value as a function of the one
payoff ``-v`` (non-increasing and piecewise linear, with slope minus the probability that the
claim ``b`` is made and believed: the envelope theorem). It is solved by Newton's method on that
piecewise-linear system (bisection as a fallback) until the residual is below ``1e-12``. Then the
solver checks that the stationary equilibrium ends every round with probability 1 whatever the
opponent does: a cycle at level ``b`` needs *both* of a player's own decisions — claiming ``b``
and believing ``b`` — so under that player's strategy it goes round again with probability at
most ``q = P(claims b) * P(believes b)``; the largest such ``q`` over all levels and lives is
reported as ``loop_bound``. When ``loop_bound < 1`` each player's stationary strategy guarantees
the fixed-point value against every opponent strategy (infinite play has probability 0, so its
payoff is irrelevant), which makes it *the* value of the game; cutting the round off after ``K``
cycles at one level, with any payoff, moves a value by at most ``2 * loop_bound ** K``. The error
left is the fixed point's residual and the LP tolerance (about 1e-9).

Example:
    >>> t = solve({"lives": 1})
    >>> round(float(t["game_value"]), 6)  # the duel's value to the starter
    0.233096
"""

import resource
import sys
import time
from collections.abc import Iterator

import numpy as np
from scipy.optimize import brentq, linprog

from agents.base import Agent, sample_action
from agents.solvers.cache import cache_path, load_or_build
from agents.solvers.export import EXPORT_FORMATS, export_format, write_rows
from dice_envs.games import meyer
from dice_envs.progress import optional_progress_bar

#: Bumped whenever the tables' meaning or layout changes, or the solve's results (the cache then
#: rebuilds them). 2: levels all but decided are solved on scaled payoffs (see :func:`solve_level`).
VERSION = 2
SOLVER = "meyer_equilibrium"
NUM_RANKS = meyer.NUM_CLAIMS
#: A claim made with less probability than this is off the equilibrium's path: its doubt
#: probability need only keep the claim unprofitable, so other values may do as well.
OFF_PATH = 1e-9
OFF_PATH_NOTE = ("* never claimed here in equilibrium: its P(doubt) need only keep that claim unprofitable, "
                 "so it may not be unique (the linear programme's pick)")
#: Two actions whose values (from the solved tables) differ by no more than this are equally good:
#: the player is indifferent, and the LP's choice among them is arbitrary (ties come out within
#: ~1e-15, distinct values at least ~1e-2 apart in the levels checked). At a level whose payoffs
#: span less than :data:`SMALL_SPAN` it is taken relative to that span (:func:`_tolerance`), as
#: the level is solved on payoffs scaled to [0, 1].
INDIFFERENT = 1e-8
TOP = NUM_RANKS - 1  # the rank of 21 (Meyer) in every variant
FIXED_POINT_TOLERANCE = 1e-12
#: The options that change the solution (``end``, ``first_starter`` and ``history`` do not).
SOLUTION_OPTIONS = ("lives", "lille_meyer", "claim_rule", "blind_reroll", "meyer_costs")


# -- options ------------------------------------------------------------------------------------
def make_game(options: dict | None = None) -> meyer.Game:
    """The engine for these options, refusing what the solver does not cover.

    Raises:
        ValueError: a bad option (the engine's message), or more than two players.
    """
    options = dict(options or {})
    game = meyer.Game(**options)
    if game.num_players != 2:
        raise ValueError(f"the Meyer solver covers two players only (num_players=2), got num_players={game.num_players}")
    return game


def solution_options(game: meyer.Game) -> dict:
    """The options that the equilibrium depends on (the cache key)."""
    return {name: getattr(game, name) for name in SOLUTION_OPTIONS}


# -- rules, read from the engine, in rank space -------------------------------------------------
class Rules:
    """The facts of one variant that the solver and the exploitability code need, by rank.

    Attributes:
        game: the engine.
        p: ``p[d]``, the exact chance (float) of rolling the value of rank ``d``.
        p_exact: the same as Fractions.
        claim_of_rank: the claim index of each rank.
        true: ``true[d, y]``: dice of rank ``d`` make a claim of rank ``y`` true (``Game.is_true``).
        fresh_true: ``P(a fresh roll makes a claim of rank y true)``: a blind claim's chance.
        cost: lives lost by the loser of a doubt of a claim of rank ``y`` (ME-6).
        strict: claims must be strictly higher (``claim_rule="higher"``).
        blind: the blind reroll is allowed (ME-5).
    """

    def __init__(self, game: meyer.Game):
        self.game = game
        self.claim_of_rank = tuple(game.claim_of_rank)
        dice_of_rank = [(meyer.CLAIMS[c][1], meyer.CLAIMS[c][0]) for c in self.claim_of_rank]
        self.dice_of_rank = tuple(dice_of_rank)
        self.p_exact = tuple(meyer.CLAIM_PROBABILITY[c] for c in self.claim_of_rank)
        self.p = np.array([float(x) for x in self.p_exact])
        self.true = np.array(
            [[game.is_true(dice_of_rank[d], self.claim_of_rank[y]) for y in range(NUM_RANKS)] for d in range(NUM_RANKS)],
            dtype=bool,
        )
        self.fresh_true = self.true.T.astype(float) @ self.p
        self.cost = np.array(
            [game.meyer_costs if self.claim_of_rank[y] == meyer.MEYER else 1 for y in range(NUM_RANKS)], dtype=int
        )
        self.strict = game.claim_rule == "higher"
        self.blind = game.blind_reroll
        rank_of_claim = {c: r for r, c in enumerate(self.claim_of_rank)}
        # Legal claims by rank, read from the engine's own table (b = -1: a round start).
        self.legal = {
            b: tuple(sorted(rank_of_claim[c] for c in game.legal_claims(self.claim_of_rank[b] if b >= 0 else -1)))
            for b in range(-1, NUM_RANKS)
        }

    def believable(self, y: int) -> bool:
        """Whether a claim of rank ``y`` may be believed (some claim can follow it)."""
        return len(self.legal[y]) > 0

    def levels(self) -> list[int]:
        """The levels a roller can face, highest first, then -1 (a round start)."""
        return [b for b in range(TOP, -1, -1) if self.legal[b]] + [-1]


def outcome_values(rules: Rules, U: np.ndarray, r: int, o: int) -> tuple[np.ndarray, np.ndarray]:
    """The roller's payoff of a doubt, by claim rank: (claim true, claim a lie).

    Args:
        rules: the variant.
        U: ``U[x, y]``, the value of a round's starter with ``x`` lives against ``y`` (known for
            every pair with fewer lives in all than ``r + o``).
        r, o: the roller's and the responder's lives.
    """
    win = np.empty(NUM_RANKS)
    lose = np.empty(NUM_RANKS)
    for y in range(NUM_RANKS):
        k = min(int(rules.cost[y]), o)
        win[y] = 1.0 if o - k == 0 else -U[o - k, r]  # the doubter starts the next round
        k = min(int(rules.cost[y]), r)
        lose[y] = -1.0 if r - k == 0 else -U[o, r - k]
    return win, lose


# -- one level: a signalling game as a linear programme -----------------------------------------
class LevelSolution:
    """The equilibrium of one level.

    Attributes:
        value: the roller's value.
        claim: ``claim[d, y]``, P(claim of rank y | dice of rank d), not blind.
        reroll: ``reroll[d]``, P(blind reroll | dice of rank d).
        blind_claim: ``blind_claim[y]``, P(claim y | blind reroll made).
        doubt: ``doubt[y, blind]``, the responder's P(doubt) of a claim y (made blind or not).
        loop: P(the roller claims the level's own claim b and it is believed) (0 if none).
        claims_b: P(the roller claims b), over its dice, blind or not.
    """

    __slots__ = ("value", "claim", "reroll", "blind_claim", "doubt", "loop", "claims_b")

    value: float
    claim: np.ndarray
    reroll: np.ndarray
    blind_claim: np.ndarray
    doubt: np.ndarray
    loop: float
    claims_b: float


def solve_level(rules: Rules, b: int, win: np.ndarray, lose: np.ndarray, believe: np.ndarray) -> LevelSolution:
    """Solve one level by HiGHS.

    A level whose payoffs all lie within :data:`SMALL_SPAN` of each other (a level all but
    decided: with 19 lives against 1 they lie within about 5e-7 of -1) is solved with its payoffs
    mapped onto [0, 1], and so is a level HiGHS fails to solve as it is. The map is affine, so the
    equilibrium is the same and the value is mapped back; HiGHS's absolute tolerances (about 1e-7)
    would otherwise be as wide as the payoffs' differences. Under the default rules such levels
    first appear at 11 lives (under ``claim_rule="higher"`` one level at 10 lives), so the tables
    of fewer lives are solved as they always were.

    Args:
        rules: the variant.
        b: the claim to beat (rank), -1 at a round start.
        win, lose: the roller's payoff of a doubted true claim / lie, by claim rank.
        believe: the roller's payoff when a claim is believed, by claim rank (ignored where a
            claim cannot be believed).

    Returns:
        The level's equilibrium (:class:`LevelSolution`).
    """
    legal = np.array(rules.legal[b])
    n = len(legal)
    if n == 0:
        raise ValueError(f"solve_level: no claim can beat rank {b}")
    low, span = _payoff_span(rules, b, win, lose, believe)

    def scaled(first: _HighsFailed | None = None) -> LevelSolution:
        try:
            sol = _solve_level(rules, b, legal, (win - low) / span, (lose - low) / span, (believe - low) / span, first)
        except _HighsFailed as failure:  # only on the direct path (with ``first`` it raises RuntimeError)
            raise RuntimeError(f"HiGHS failed on level {b} (payoffs scaled to [0, 1]): {failure}") from None
        sol.value = low + span * sol.value
        return sol

    if 0 < span < SMALL_SPAN:
        return scaled()
    try:
        return _solve_level(rules, b, legal, win, lose, believe)
    except _HighsFailed as failure:
        if span == 0:  # every payoff equal: nothing to scale
            raise RuntimeError(f"HiGHS failed on level {b}: {failure}") from None
        return scaled(failure)


#: Payoff spread below which a level is solved on payoffs mapped onto [0, 1] (:func:`solve_level`).
SMALL_SPAN = 1e-3


def _payoff_span(rules: Rules, b: int, win: np.ndarray, lose: np.ndarray, believe: np.ndarray) -> tuple[float, float]:
    """The lowest payoff of level ``b`` and the spread of its payoffs (those a claim over ``b`` can
    get: doubted true or false, and believed where a claim can be believed)."""
    legal = np.array(rules.legal[b])
    bel_ok = np.array([rules.believable(int(y)) for y in legal], dtype=bool)
    used = np.concatenate([win[legal], lose[legal], believe[legal][bel_ok]])
    return float(used.min()), float(used.max() - used.min())


def _tolerance(span: float) -> float:
    """:data:`INDIFFERENT` for a level whose payoffs spread over ``span``: relative to the span
    where the level is solved on scaled payoffs (below :data:`SMALL_SPAN`)."""
    return INDIFFERENT if span >= SMALL_SPAN else INDIFFERENT * span


class _HighsFailed(RuntimeError):
    """HiGHS ended a level's programme without an optimal solution."""


def _solve_level(rules: Rules, b: int, legal: np.ndarray, win: np.ndarray, lose: np.ndarray, believe: np.ndarray,
                 first: _HighsFailed | None = None) -> LevelSolution:  # fmt: skip
    """:func:`solve_level` on the payoffs as given; ``first`` is the failure of an earlier try."""
    n = len(legal)
    D = NUM_RANKS
    blind = rules.blind and b >= 0
    bel_ok = np.array([rules.believable(int(y)) for y in legal])
    nx = D * n
    nr = D if blind else 0
    nw = n if blind else 0
    nz = n + (n if blind else 0)
    nvar = nx + nr + nw + nz
    z0 = nx + nr + nw
    # Payoff of a doubted non-blind claim j from dice d.
    doubt_pay = np.where(rules.true[:, legal], win[legal][None, :], lose[legal][None, :])  # (D, n)
    # doubt rows: z0_j - sum_d x[d, j] * doubt_pay[d, j] <= 0
    A = np.zeros((2 * nz, nvar))
    row = 0
    doubt_rows = []
    believe_rows = []
    for j in range(n):
        A[row, j:nx:n] = -doubt_pay[:, j]
        A[row, z0 + j] = 1.0
        doubt_rows.append(row)
        row += 1
        if bel_ok[j]:
            A[row, j:nx:n] = -believe[legal[j]]
            A[row, z0 + j] = 1.0
            believe_rows.append(row)
            row += 1
        else:
            believe_rows.append(-1)
    blind_doubt_rows = []
    if blind:
        blind_pay = rules.fresh_true[legal] * win[legal] + (1 - rules.fresh_true[legal]) * lose[legal]
        for j in range(n):
            A[row, nx + nr + j] = -blind_pay[j]
            A[row, z0 + n + j] = 1.0
            blind_doubt_rows.append(row)
            row += 1
            if bel_ok[j]:
                A[row, nx + nr + j] = -believe[legal[j]]
                A[row, z0 + n + j] = 1.0
                row += 1
    A = A[:row]
    A_eq = np.zeros((D + (1 if blind else 0), nvar))
    for d in range(D):
        A_eq[d, d * n : (d + 1) * n] = 1.0
        if blind:
            A_eq[d, nx + d] = 1.0
    b_eq = np.concatenate([rules.p, [0.0] if blind else []])
    if blind:
        A_eq[D, nx : nx + nr] = -1.0
        A_eq[D, nx + nr : nx + nr + nw] = 1.0
    c = np.zeros(nvar)
    c[z0:] = -1.0
    bounds = [(0, None)] * (nx + nr + nw) + [(None, None)] * nz
    res = linprog(c, A_ub=A, b_ub=np.zeros(row), A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if res.status != 0:
        if first is not None:
            raise RuntimeError(f"HiGHS failed on level {b}: {first}; with the payoffs scaled to [0, 1]: {res.message}")
        raise _HighsFailed(res.message)
    duals = -res.ineqlin.marginals  # >= 0: the responder's weights on doubt / believe
    sol = LevelSolution()
    sol.value = -res.fun
    x = np.clip(res.x[:nx].reshape(D, n), 0.0, None)
    rr = np.clip(res.x[nx : nx + nr], 0.0, None) if blind else np.zeros(D)
    w = np.clip(res.x[nx + nr : nx + nr + nw], 0.0, None) if blind else np.zeros(0)
    total = x.sum(axis=1) + rr
    claim = np.zeros((D, NUM_RANKS))
    claim[:, legal] = x / total[:, None]
    sol.claim = claim
    sol.reroll = rr / total
    sol.blind_claim = np.zeros(NUM_RANKS)
    if blind:
        if w.sum() > 0:
            sol.blind_claim[legal] = w / w.sum()
        else:  # never reached in equilibrium (the roller never rerolls): claim the lowest
            sol.blind_claim[legal[0]] = 1.0
    doubt = np.ones((NUM_RANKS, 2))
    for j in range(n):
        doubt[legal[j], 0] = min(1.0, max(0.0, duals[doubt_rows[j]])) if bel_ok[j] else 1.0
        if blind:
            doubt[legal[j], 1] = min(1.0, max(0.0, duals[blind_doubt_rows[j]])) if bel_ok[j] else 1.0
    sol.doubt = doubt
    sol.loop = 0.0
    sol.claims_b = 0.0
    if b >= 0 and not rules.strict and rules.believable(b):
        j = 0  # legal is sorted: b itself comes first under "at_least"
        made = float(x[:, j].sum())
        made_blind = float(w[j]) if blind else 0.0
        sol.claims_b = made + made_blind
        sol.loop = made * (1 - doubt[b, 0]) + made_blind * (1 - doubt[b, 1])
    return sol


# -- the whole game -----------------------------------------------------------------------------
def _progress(total: int, desc: str, enabled: bool):
    return optional_progress_bar(enabled, total=total, desc=desc, unit="lives pair", leave=False)


def solve(options: dict | None = None, progress: bool = False) -> dict[str, np.ndarray]:
    """Solve two-player Meyer with these options (the duel when ``lives=1``).

    Args:
        options: Meyer options (``lives``, ``lille_meyer``, ``claim_rule``, ``blind_reroll``,
            ``meyer_costs``; ``end``, ``first_starter`` and ``history`` are accepted and do not
            change the solution).
        progress: show a progress bar over the lives pairs.

    Returns:
        The tables, as numpy arrays (indices: lives ``r - 1`` of the roller / claimer, ``o - 1``
        of the responder, level ``b + 1`` with ``b = -1`` a round start, dice rank ``d``, claim
        rank ``y``):

        * ``value[r-1, o-1, b+1]``: the roller's value (NaN where no roller can be);
        * ``claim[r-1, o-1, b+1, d, y]``, ``reroll[r-1, o-1, b+1, d]``,
          ``blind_claim[r-1, o-1, b+1, y]``: the roller's policy;
        * ``doubt[r-1, o-1, b+1, y, blind]``: the responder's P(doubt) of claim ``y``;
        * ``game_value``: the first starter's value ``value[L-1, L-1, 0]``;
        * ``loop_bound``: the largest ``P(claims b) * P(believes b)`` of one player at one level
          (see the module docstring; 0 under ``"higher"``);
        * ``residual``: the largest fixed-point residual left;
        * ``claim_of_rank``: the claim index of each rank.
    """
    game = make_game(options)
    rules = Rules(game)
    L = game.lives
    G = NUM_RANKS + 1
    value = np.full((L, L, G), np.nan)
    claim = np.zeros((L, L, G, NUM_RANKS, NUM_RANKS))
    reroll = np.zeros((L, L, G, NUM_RANKS))
    blind_claim = np.zeros((L, L, G, NUM_RANKS))
    doubt = np.ones((L, L, G, NUM_RANKS, 2))
    U = np.full((L + 1, L + 1), np.nan)  # U[x, y]: a round starter's value
    loop_bound = 0.0
    residual = 0.0
    levels = rules.levels()
    pairs = [(r, t - r) for t in range(2, 2 * L + 1) for r in range(max(1, t - L), min(L, t - 1) + 1) if r <= t - r]
    bar = _progress(len(pairs), "meyer equilibrium", progress)

    def store(r, o, b, sol):
        i, j, k = r - 1, o - 1, b + 1
        value[i, j, k] = sol.value
        claim[i, j, k] = sol.claim
        reroll[i, j, k] = sol.reroll
        blind_claim[i, j, k] = sol.blind_claim
        doubt[i, j, k] = sol.doubt

    for r, o in pairs:
        sides = [(r, o)] if r == o else [(r, o), (o, r)]
        outcomes = {side: outcome_values(rules, U, *side) for side in sides}
        for b in levels:
            sols = {}
            if b >= 0 and not rules.strict and rules.believable(b):
                sols, res = _fixed_point(rules, b, sides, outcomes, value)
                residual = max(residual, res)
                # A player's own cycle: they claim b (as roller at their side) and believe b (as
                # responder at the other side).
                for s, side in enumerate(sides):
                    other = sols[sides[1 - s]] if len(sides) == 2 else sols[side]
                    believes = 1 - min(other.doubt[b, 0], other.doubt[b, 1] if rules.blind else 1.0)
                    loop_bound = max(loop_bound, sols[side].claims_b * believes)
            else:
                for side in sides:
                    rr, oo = side
                    believe = -value[oo - 1, rr - 1, 1:]
                    sols[side] = solve_level(rules, b, *outcomes[side], np.nan_to_num(believe, nan=0.0))
            for side, sol in sols.items():
                store(side[0], side[1], b, sol)
        for side in sides:
            U[side] = value[side[0] - 1, side[1] - 1, 0]
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return {
        "value": value,
        "claim": claim,
        "reroll": reroll,
        "blind_claim": blind_claim,
        "doubt": doubt,
        "game_value": np.array(value[L - 1, L - 1, 0]),
        "loop_bound": np.array(loop_bound),
        "residual": np.array(residual),
        "claim_of_rank": np.array(rules.claim_of_rank),
    }


def _fixed_point(rules: Rules, b: int, sides, outcomes, value):
    """Solve level ``b`` where believing ``b`` returns to level ``b`` with the roles swapped.

    Returns:
        ({side: LevelSolution}, the residual left).
    """

    def level(side, v_other):
        rr, oo = side
        believe = np.nan_to_num(-value[oo - 1, rr - 1, 1:], nan=0.0)
        believe[b] = -v_other
        return solve_level(rules, b, *outcomes[side], believe)

    if len(sides) == 1:  # symmetric lives: one unknown, v = f(v)
        (side,) = sides
        v = 0.0
        for _ in range(50):
            sol = level(side, v)
            g = v - sol.value
            if abs(g) <= FIXED_POINT_TOLERANCE:
                return {side: sol}, abs(g)
            v = v - g / (1 + sol.loop)  # Newton: f'(v) = -loop
        # Newton cycled between pieces: g(v) = v - f(v) is strictly increasing, so bisect.
        v = _root(lambda u: u - level(side, u).value)
        sol = level(side, v)
        return {side: sol}, abs(v - sol.value)
    s1, s2 = sides
    v1 = v2 = 0.0
    for _ in range(50):
        a = level(s1, v2)
        c = level(s2, v1)
        g1, g2 = v1 - a.value, v2 - c.value
        if max(abs(g1), abs(g2)) <= FIXED_POINT_TOLERANCE:
            return {s1: a, s2: c}, max(abs(g1), abs(g2))
        # Jacobian of (v1 - f1(v2), v2 - f2(v1)) is [[1, loop1], [loop2, 1]].
        det = 1 - a.loop * c.loop
        if det <= 1e-12:
            break
        d1 = (g1 - a.loop * g2) / det
        d2 = (g2 - c.loop * g1) / det
        v1, v2 = v1 - d1, v2 - d2
    # Fallback: v1 = f1(f2(v1)) with v1 - f1(f2(v1)) non-decreasing: bisect.
    v1 = _root(lambda u: u - level(s1, level(s2, u).value).value)
    c = level(s2, v1)
    a = level(s1, c.value)
    return {s1: a, s2: c}, max(abs(v1 - a.value), abs(c.value - level(s2, a.value).value))


def _root(g) -> float:
    """The root in [-1, 1] of ``g(v) = v - f(v)``, non-decreasing, with ``f`` a value in [-1, 1].

    Where ``f`` at an end is that end (a level all but lost or won: with 20 lives against 1 every
    payoff lies within about 5e-7 of -1), the LP's rounding can put ``g`` a hair on the wrong side of 0
    there; the root is then that end, within the residual the caller reports.
    """
    if g(-1.0) >= 0:
        return -1.0
    if g(1.0) <= 0:
        return 1.0
    return brentq(g, -1.0, 1.0, xtol=1e-15, rtol=4 * np.finfo(float).eps)


#: Seconds of :func:`solve` per pair of lives, measured on 2 shared cores: 6 lives (21 pairs) took
#: 5.6 s, 12 lives (78 pairs) 24.7 s; with the blind reroll about 1.3 times as long, under
#: ``claim_rule="higher"`` about a quarter.
SECONDS_PER_LIVES_PAIR = 0.3


def solve_time(game: meyer.Game) -> str:
    """Roughly how long :func:`solve` takes for this game's options, as text.

    >>> solve_time(make_game({"lives": 6}))
    'about 6 s'
    >>> solve_time(make_game({"lives": 1}))
    'a few seconds'
    """
    pairs = game.lives * (game.lives + 1) / 2
    seconds = SECONDS_PER_LIVES_PAIR * pairs * (1.3 if game.blind_reroll else 1.0)
    seconds *= 0.25 if game.claim_rule == "higher" else 1.0  # no level loops back on itself
    if seconds < 5:
        return "a few seconds"
    if seconds < 20:
        return f"about {round(seconds)} s"
    if seconds < 60:
        return f"about {round(seconds, -1):.0f} s"
    return f"about {max(1, round(seconds / 60))} min"


def _build(game: meyer.Game, progress: bool, bar: bool = True):
    """The solve that :func:`load_or_build` calls when the cache does not hold the tables; with
    ``progress``, it says on stderr (one line) what it solves, how long that takes and that the
    result is kept, then (with ``bar``) shows a progress bar over the lives pairs (tqdm, when installed)."""
    key = solution_options(game)

    def build() -> dict[str, np.ndarray]:
        if progress:
            lives = f"{game.lives} {'life' if game.lives == 1 else 'lives'}"
            print(f"solving two-player Meyer's equilibrium at {lives} ({_describe(game)}) once "
                  f"({solve_time(game)}; kept in the solver cache)", file=sys.stderr, flush=True)  # fmt: skip
        return solve(key, progress=progress and bar)

    return build


def load_tables(options: dict | None = None, cache_dir=None, progress: bool = False, use_cache: bool = True,
                bar: bool = True) -> dict:  # fmt: skip
    """The equilibrium tables for these options, from the cache or solved (then cached).

    Args:
        progress: when the tables are solved (not when they are loaded), say so on stderr in one
            line, then, with ``bar``, show a progress bar (tqdm, when installed).
        bar: the progress bar; agents leave it out (their callers' own bars and ``--quiet`` rule stderr).
    """
    game = make_game(options)
    key = solution_options(game)
    memo_key = (tuple(sorted(key.items())), str(cache_dir), use_cache)
    if memo_key in _MEMO:  # one solve per process, however many agents are built
        return _MEMO[memo_key]
    tables = load_or_build(SOLVER, VERSION, key, _build(game, progress, bar), cache_dir=cache_dir, use_cache=use_cache)
    _MEMO[memo_key] = tables
    return tables


_MEMO: dict = {}


# -- the agent ----------------------------------------------------------------------------------
class EquilibriumAgent(Agent):
    """Plays two-player Meyer's equilibrium (``equilibrium``), from its own observation.

    It reads its lives and the opponent's, the phase, the claim to beat (and whether it was made
    blind), its own dice (or that it made the blind reroll) and, when answering a claim, the claim
    before it (history slot 1, the claim that the claimer had to beat; empty at a round's first
    claim), so the game's ``history`` option must be at least 2.

    Args:
        game: a two-player :class:`dice_envs.games.meyer.Game`.
        seed: seed of the generator ``act`` samples with.
        cache_dir: where the tables are cached (default: the solver cache directory).
    """

    name = "equilibrium"

    def __init__(self, game, seed: int | None = None, cache_dir: str = ""):
        if getattr(game, "name", None) != "meyer":
            raise ValueError(f"EquilibriumAgent plays meyer, not {getattr(game, 'name', game)!r}")
        if game.num_players != 2:
            raise ValueError(f"EquilibriumAgent plays two-player Meyer, got num_players={game.num_players}")
        if game.history < 2:
            raise ValueError(
                "EquilibriumAgent needs the game option history >= 2 (it answers a claim by the claim "
                f"that claim had to beat, history slot 1), got history={game.history}"
            )
        super().__init__(game, seed)
        # A first use solves the tables (about 6 s at 6 lives) and says so on stderr in one line, without a
        # bar (a caller's own progress, or its --quiet, keeps stderr); later uses load them.
        self.tables = load_tables(solution_options(game), cache_dir=cache_dir or None, progress=True, bar=False)
        self._at = {name: s.start for name, s in game.obs_slices.items()}
        self._rank = np.array(game.rank)
        self._action_of_rank = np.array([meyer.FIRST_CLAIM + c for c in game.claim_of_rank])

    def _level(self, rank_value) -> int:
        """A rank from the observation (1..21, 0 for none) as the solver's rank (-1 for none)."""
        return int(rank_value) - 1

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        self.check_mask(action_mask)
        at = self._at
        own_lives = int(observation[at["lives"]])
        opp_lives = int(observation[at["lives"] + 1])
        t = self.tables
        probabilities = np.zeros(self.game.num_actions)
        if observation[at["respond"]]:
            c = self._level(observation[at["beat_rank"]])
            blind = int(bool(observation[at["beat_blind"]]))
            b = self._level(observation[at["history_1_rank"]]) if observation[at["history_1_present"]] else -1
            p = float(t["doubt"][opp_lives - 1, own_lives - 1, b + 1, c, blind])
            if not action_mask[meyer.BELIEVE]:
                p = 1.0
            probabilities[meyer.DOUBT] = p
            probabilities[meyer.BELIEVE] = 1.0 - p
        elif observation[at["claim_phase"]]:
            b = self._level(observation[at["beat_rank"]])
            k = (own_lives - 1, opp_lives - 1, b + 1)
            if observation[at["own_known"]]:
                d = self._level(observation[at["own_rank"]])
                probabilities[self._action_of_rank] = t["claim"][k + (d,)]
                if action_mask[meyer.REROLL]:
                    probabilities[meyer.REROLL] = t["reroll"][k + (d,)]
            else:  # after the blind reroll: the dice are unseen
                probabilities[self._action_of_rank] = t["blind_claim"][k]
        else:
            raise ValueError("EquilibriumAgent: the observation shows no decision for this player")
        probabilities[action_mask == 0] = 0.0
        total = probabilities.sum()
        if not total > 0:
            raise ValueError("EquilibriumAgent: the observation does not match the action mask")
        return probabilities / total

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return sample_action(self.rng, self.action_probabilities(observation, action_mask))

    def __repr__(self) -> str:
        return "EquilibriumAgent()"


# -- the command line's summary -----------------------------------------------------------------
def cli_summary(options: dict, cache_dir=None, progress: bool = True) -> dict:
    """Solve (or load) and summarise, for ``dice-envs solve meyer``.

    Returns:
        A JSON-able dict: ``value`` (the first starter's game value, expected C-3 return, at the
        given ``lives``; the duel when ``lives=1``), ``lives``, ``options``, ``loop_bound``,
        ``residual``, ``play`` (what equilibrium self-play does from the first round, the counts
        of :func:`equilibrium_play`), ``seconds`` (solve or cache load), ``table_mib`` (the tables' size),
        ``max_rss_mib`` (the process's peak resident set, ``getrusage``), ``rss_growth_mib`` (how
        much that peak grew during the solve) and ``lines``.
    """
    game = make_game(options)
    key = solution_options(game)
    rss_before = _max_rss_mib()
    start = time.perf_counter()
    tables = load_or_build(SOLVER, VERSION, key, _build(game, progress), cache_dir=cache_dir)
    seconds = time.perf_counter() - start
    rss = _max_rss_mib()
    table_mib = sum(np.asarray(a).nbytes for a in tables.values()) / 2**20
    v = float(tables["game_value"])
    L = game.lives
    lines = [
        f"Meyer, two players, {L} {'life' if L == 1 else 'lives'} ({_describe(game)})",
        f"game value to the first starter: {v:+.9f} (expected C-3 return; win probability {(1 + v) / 2:.9f})",
    ]
    value = tables["value"]
    first = [(y, tables["claim"][L - 1, L - 1, 0, :, y] @ Rules(game).p) for y in range(NUM_RANKS)]
    top = sorted(first, key=lambda t: -t[1])[:4]
    names = [meyer.CLAIM_NAMES[game.claim_of_rank[y]] for y, _ in top]
    ties, pure_tie = _indifference(game, tables, L, L, -1)
    tied = sum(1 for t in ties if t)
    lines.append(
        "first claim of a round (starter's equilibrium, most likely): "
        + ", ".join(f"{n} {p:.3f}" for n, (_, p) in zip(names, top))
        + (f" ({tied} of {NUM_RANKS} hands are indifferent between claims, so these shares are partly "
           "the linear programme's pick among equally good ones)" if tied else "")
    )
    made = dict(first)
    doubted = [
        f"{meyer.CLAIM_NAMES[game.claim_of_rank[y]]}{'*' if made[y] < OFF_PATH else ''} "
        f"{tables['doubt'][L - 1, L - 1, 0, y, 0]:.2f}"
        + (_indifferent_doubt(tables["doubt"][L - 1, L - 1, 0, y, 0]) if pure_tie[y] else "")
        for y in range(NUM_RANKS - 1, -1, -1)
        if tables["doubt"][L - 1, L - 1, 0, y, 0] > 1e-9
    ]
    lines.append("P(doubt) of a round's first claim: " + (", ".join(doubted) if doubted else "never doubted"))
    if any("*" in d for d in doubted):
        lines.append(f"  {OFF_PATH_NOTE}")
    play = equilibrium_play(game, tables)
    line = (
        f"equilibrium self-play (exact): {play['rounds']:.2f} rounds and {play['claims'] + play['blind_claims']:.2f} "
        f"claims a game; {play['lies'] / play['claims']:.1%} of the claims made with the dice seen are lies"
    )
    if play["blind_claims"] > 0:
        line += f", {play['blind_lies'] / play['blind_claims']:.1%} of the {play['blind_claims']:.2f} blind ones false"
    lines.append(line + f"; {play['doubts_right'] / play['doubts']:.1%} of doubts catch a lie")
    if L > 1:
        lines.append(f"value of a round's starter by lives (own, opponent's): 1v1 {value[0, 0, 0]:+.6f}, "
                     f"{L}v1 {value[L - 1, 0, 0]:+.6f}, 1v{L} {value[0, L - 1, 0]:+.6f}")
    if game.claim_rule == "at_least":
        lines.append(
            f"equal claims: stationary fixed point, residual {float(tables['residual']):.1e}; a player's own "
            f"decisions repeat a level with probability at most {float(tables['loop_bound']):.4f}, so rounds end"
        )
    lines.append(
        f"solved (or loaded) in {seconds:.2f} s; tables {table_mib:.1f} MiB; process peak RSS {rss:.0f} MiB "
        f"({rss - rss_before:+.0f} MiB during the solve)"
    )
    path = cache_path(SOLVER, VERSION, key, cache_dir)
    lines.append(f"tables (claim and doubt probabilities by lives, claim to beat, dice): {path}")
    return {
        "value": v,
        "table": str(path),
        "lives": L,
        "options": key,
        "loop_bound": float(tables["loop_bound"]),
        "residual": float(tables["residual"]),
        "play": {key: float(value) for key, value in play.items() if key != "visits"},
        "seconds": seconds,
        "table_mib": table_mib,
        "max_rss_mib": rss,
        "rss_growth_mib": rss - rss_before,
        "lines": lines,
    }


# -- how equilibrium play goes -----------------------------------------------------------------
def equilibrium_play(game: meyer.Game, tables: dict) -> dict:
    """What equilibrium self-play does from the first round, exactly: how often each level is
    played, how many rounds, claims, lies and doubts a game has, and who wins.

    Both players follow the tables. The first starter (A) starts the first round with the game's
    ``lives`` each; within a round, a level ``(r, o, b)`` (the roller's lives, the responder's, the
    claim to beat) leads to level ``(o, r, y)`` when the claim ``y`` is believed, or ends the round
    when it is doubted (the doubter starts the next round, as in :func:`outcome_values`). The
    expected visits of every level follow by one pass over the lives, from the most down (a doubt
    always takes a life), and within a round over the claims from the lowest up; under equal claims
    a level and its role-swapped twin feed each other, a 2x2 linear system (solvable as the loops
    end: :data:`loop_bound` < 1).

    Returns:
        ``visits[r-1, o-1, b+1]``: the expected number of times a roller with ``r`` lives against
        ``o`` faces claim ``b`` (``b = -1``: starts a round), either player rolling; ``rounds``,
        ``claims`` (claims made with the dice seen), ``lies`` (those the claimer's dice do not make
        true: bluffs), ``blind_claims`` (after a blind reroll, the claimer not knowing),
        ``blind_lies`` (blind claims that were false), ``doubts`` and ``doubts_right`` (doubts of a
        false claim): expected counts per game; ``first_starter_wins``: the first starter's chance
        of winning (``(1 + game value) / 2`` up to the solve's tolerance, a check of both).

    These are the figures of the equilibrium the tables hold: where a hand is indifferent between
    claims (:func:`_indifference`), another equilibrium may bluff a little more or less.
    """
    rules = Rules(game)
    L = game.lives
    G = NUM_RANKS + 1
    claim, reroll, blind_claim, doubt = (np.asarray(tables[k]) for k in ("claim", "reroll", "blind_claim", "doubt"))
    p = rules.p
    # the level's claim weights: made[y] (dice seen), true_made[y]; blind[y], blind_true[y]
    visits = np.zeros((2, L + 1, L + 1, G))  # [A rolls?, A's lives, B's lives, b + 1]
    starts = np.zeros((2, L + 1, L + 1))  # [A starts?, A's lives, B's lives]: round starts
    starts[1, L, L] = 1.0
    counts = dict.fromkeys(("rounds", "claims", "lies", "blind_claims", "blind_lies", "doubts", "doubts_right"), 0.0)
    wins_a = 0.0
    pairs = sorted(((x, y) for x in range(1, L + 1) for y in range(1, L + 1)), key=lambda t: -(t[0] + t[1]))
    for la, lb in pairs:
        lives = {1: (la, lb), 0: (lb, la)}  # by "A rolls": (roller's lives, responder's)
        for a_rolls in (1, 0):
            visits[a_rolls, la, lb, 0] = starts[a_rolls, la, lb]
            counts["rounds"] += starts[a_rolls, la, lb]

        def flows(a_rolls: int, b: int):
            """A level's claim weights: (seen, seen and true, blind, blind and true) by claim."""
            r, o = lives[a_rolls]
            k = (r - 1, o - 1, b + 1)
            seen = claim[k].T @ p
            seen_true = (claim[k] * rules.true).T @ p
            rr = float(reroll[k] @ p) if rules.blind and b >= 0 else 0.0
            blind = rr * blind_claim[k]
            return k, seen, seen_true, blind, blind * rules.fresh_true

        for b in rules.levels()[::-1]:  # -1 (a round start) first, then the claims from the lowest up
            if b >= 0 and not rules.strict and rules.believable(b):  # equal claims: the twins feed each other
                loop = {}
                for a_rolls in (1, 0):
                    k, seen, _, blind, _ = flows(a_rolls, b)
                    loop[a_rolls] = seen[b] * (1 - doubt[k + (b, 0)]) + blind[b] * (1 - doubt[k + (b, 1)])
                v1, v0 = visits[1, la, lb, b + 1], visits[0, la, lb, b + 1]  # what arrived from below
                det = 1 - loop[1] * loop[0]
                visits[1, la, lb, b + 1] = (v1 + v0 * loop[0]) / det
                visits[0, la, lb, b + 1] = (v0 + v1 * loop[1]) / det
            for a_rolls in (1, 0):
                v = visits[a_rolls, la, lb, b + 1]
                if v == 0.0:
                    continue
                r, o = lives[a_rolls]
                k, seen, seen_true, blind, blind_true = flows(a_rolls, b)
                counts["claims"] += v * seen.sum()
                counts["lies"] += v * (seen - seen_true).sum()
                counts["blind_claims"] += v * blind.sum()
                counts["blind_lies"] += v * (blind - blind_true).sum()
                for y in rules.legal[b]:
                    q0, q1 = doubt[k + (y, 0)], doubt[k + (y, 1)]
                    if y != b or rules.strict:  # believed: the responder rolls at level y
                        visits[1 - a_rolls, la, lb, y + 1] += v * (seen[y] * (1 - q0) + blind[y] * (1 - q1))
                    true = v * (seen_true[y] * q0 + blind_true[y] * q1)  # doubted, true: the responder pays
                    false = v * ((seen[y] - seen_true[y]) * q0 + (blind[y] - blind_true[y]) * q1)
                    counts["doubts"] += true + false
                    counts["doubts_right"] += false
                    cost = int(rules.cost[y])
                    for mass, loser_is_a in ((true, not a_rolls), (false, bool(a_rolls))):
                        if mass == 0.0:
                            continue
                        na, nb = (max(la - cost, 0), lb) if loser_is_a else (la, max(lb - cost, 0))
                        if na == 0 or nb == 0:
                            wins_a += mass if nb == 0 else 0.0
                        else:  # the doubter starts the next round
                            doubter_is_a = not a_rolls
                            starts[int(doubter_is_a), na, nb] += mass
    by_level = np.zeros((L, L, G))
    for la in range(1, L + 1):
        for lb in range(1, L + 1):
            by_level[la - 1, lb - 1] += visits[1, la, lb]
            by_level[lb - 1, la - 1] += visits[0, la, lb]
    return {"visits": by_level, **counts, "first_starter_wins": wins_a}


def _indifference(game: meyer.Game, tables: dict, r: int, o: int, b: int,
                  rules: Rules | None = None) -> tuple[list[list[str]], np.ndarray]:  # fmt: skip
    """Where a player of one level is indifferent, from the solved values (not the LP's pick).

    The roller's value of each action with dice ``d`` is read off the tables against the
    responder's equilibrium doubts: claim ``y`` pays ``P(doubt) * (win or lose) + P(believe) *
    believe[y]``, the blind reroll the best blind claim's value. Actions within
    :data:`INDIFFERENT` of the best are equally good. The responder is indifferent at claim ``y``
    when doubting and believing it have the same value given the claims' makers.

    Returns:
        (by dice rank, the names of the roller's equally good actions when there are two or more,
        else ``[]``; by claim rank, whether the responder's P(doubt) is 0 or 1 although doubting
        and believing are equally good: a pure choice among equals, on the equilibrium's path).
        ``rules`` is ``Rules(game)`` when the caller has it.
    """
    rules = rules or Rules(game)
    k = (r - 1, o - 1, b + 1)
    win, lose, believe = _level_payoffs(rules, tables, r, o)
    tolerance = _tolerance(_payoff_span(rules, b, win, lose, believe)[1])
    legal = list(rules.legal[b])
    name = [meyer.CLAIM_NAMES[c] for c in game.claim_of_rank]
    q = tables["doubt"][k][:, 0]
    pay = np.where(rules.true, win[None, :], lose[None, :])  # (dice, claim)
    Q = q[None, :] * pay + (1 - q[None, :]) * believe[None, :]
    labels = [name[y] for y in legal]
    Q = Q[:, legal]
    if rules.blind and b >= 0:  # the blind reroll: the best claim over unseen dice
        qb = tables["doubt"][k][:, 1]
        blind_pay = rules.fresh_true * win + (1 - rules.fresh_true) * lose
        reroll = (qb * blind_pay + (1 - qb) * believe)[legal].max()
        Q = np.column_stack([Q, np.full(NUM_RANKS, reroll)])
        labels.append("reroll")
    ties = []
    for d in range(NUM_RANKS):
        best = np.flatnonzero(Q[d] >= Q[d].max() - tolerance)
        names = [labels[j] for j in best if j < len(legal)][::-1] + [labels[j] for j in best if j >= len(legal)]
        ties.append(names if len(best) > 1 else [])  # the highest claim first, the reroll last
    x = tables["claim"][k] * rules.p[:, None]  # P(dice d and claim y)
    made = x.sum(axis=0)
    doubt_value = (x * pay).sum(axis=0)  # the roller's, summed over the claim's makers
    believe_value = made * believe
    equal = np.abs(doubt_value - believe_value) <= tolerance * np.maximum(made, 1e-300)
    pure = (q <= INDIFFERENT) | (q >= 1 - INDIFFERENT)
    on_path = (made >= OFF_PATH) & np.array([rules.believable(y) for y in range(NUM_RANKS)])
    on_path &= np.isin(np.arange(NUM_RANKS), legal)
    return ties, equal & pure & on_path


def _indifferent_row(ties: list[str], every: bool) -> str:
    if not ties:
        return ""
    which = "every action" if every else ", ".join(ties)
    return f"  [indifferent: {which} equally good; the choice shown is one of several]"


def _indifferent_doubt(q: float) -> str:
    return f" (indifferent: {'believing' if q >= 0.5 else 'doubting'} is as good)"


def describe_level(options: dict | None = None, lives: tuple[int, int] | None = None, beat: str | None = None, cache_dir=None) -> list[str]:
    """The equilibrium at one situation, as text: the roller's claim probabilities by their dice and
    the responder's doubt probability by claim.

    Where the player is indifferent (equally good alternatives, :func:`_indifference`), the line
    says so: a dice row lists the equally good actions (the probabilities shown are then the
    linear programme's pick among them, not a preference), a doubt probability of 0 or 1 says
    that the other answer is as good. Claims off the equilibrium's path are marked ``*``.

    Args:
        options: Meyer options.
        lives: (the roller's lives, the responder's); default: both at the game's ``lives``.
        beat: the claim to beat, e.g. ``"54"``; default: none (a round's first claim; ``"start"``
            says the same).
        cache_dir: the solver cache directory.

    Raises:
        ValueError: lives outside ``1..lives``, a beat that is not a claim, or one nothing can beat
            (checked before the tables are solved or loaded).
    """
    game = make_game(options)
    r, o, b = parse_level(game, lives, beat)  # before the solve: a bad level is refused at once
    tables = load_tables(solution_options(game), cache_dir=cache_dir)
    rules = Rules(game)
    k = (r - 1, o - 1, b + 1)
    name = [meyer.CLAIM_NAMES[c] for c in game.claim_of_rank]
    ties, pure_tie = _indifference(game, tables, r, o, b)
    actions = len(rules.legal[b]) + (1 if rules.blind and b >= 0 else 0)
    lines = [f"{'round start' if b < 0 else 'to beat ' + name[b]}, lives {r} (roller) v {o}: value {tables['value'][k]:+.6f}"]
    for d in range(NUM_RANKS - 1, -1, -1):
        row = [f"{name[y]} {p:.3f}" for y, p in enumerate(tables["claim"][k + (d,)]) if p > 5e-4]
        if tables["reroll"][k + (d,)] > 5e-4:
            row.append(f"reroll {tables['reroll'][k + (d,)]:.3f}")
        lines.append(f"  dice {name[d]}: " + ", ".join(row[::-1]) + _indifferent_row(ties[d], len(ties[d]) == actions))
    made = tables["claim"][k].T @ rules.p  # P(claim y) over the roller's dice (seen, not blind)
    doubts = [f"{name[y]}{'*' if made[y] < OFF_PATH else ''} {tables['doubt'][k + (y, 0)]:.3f}"
              + (_indifferent_doubt(tables["doubt"][k + (y, 0)]) if pure_tie[y] else "")
              for y in range(NUM_RANKS - 1, -1, -1) if y in rules.legal[b]]  # fmt: skip
    lines.append("  P(doubt) by claim: " + ", ".join(doubts))
    if any("*" in d for d in doubts):
        lines.append(f"  {OFF_PATH_NOTE}")
    return lines


def parse_level(game: meyer.Game, lives=None, beat: str | None = None,
                flags: bool = False) -> tuple[int, int, int]:  # fmt: skip
    """A level of the tables from the words a user gives: ``(r, o, b)``, the roller's lives, the
    responder's and the claim to beat as a rank (``-1``: a round's first claim).

    Args:
        game: the engine (its ``lives`` bounds the lives).
        lives: (the roller's lives, the responder's); ``None``: both at the game's ``lives``.
        beat: a claim such as ``"54"`` (either order of the digits), or ``None`` / ``"start"`` for
            a round's first claim.
        flags: word the messages for ``dice-envs solve meyer`` (``--lives-pair``, ``--describe``).

    Raises:
        ValueError: lives outside ``1..lives``, a beat that is not a claim, or a claim that nothing
            can beat under the claim rule (no roller ever faces it).
    """
    pair = (game.lives, game.lives) if lives is None else lives
    try:
        r, o = pair
        good = all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= game.lives for n in (r, o))
    except (TypeError, ValueError):
        good = False
    if not good:
        if flags:
            shown = " ".join(map(str, lives)) if isinstance(lives, (list, tuple)) else repr(lives)
            raise ValueError(f"--lives-pair takes the roller's and the responder's lives, two numbers in "
                             f"1..{game.lives} (the game's --lives), got {shown}")  # fmt: skip
        raise ValueError(f"lives must be two numbers in 1..{game.lives}, got {lives!r}")
    if beat is None or str(beat).strip().lower() == "start":
        return r, o, -1
    try:
        b = game.rank[meyer.claim_index(beat)]
    except ValueError as exc:
        if flags:
            raise ValueError(
                f"--describe takes the claim to beat, such as 54, or start (a round's first claim): {exc}"
            ) from None
        raise
    if not Rules(game).legal[b]:
        where = "--describe: " if flags else ""
        raise ValueError(f"{where}nothing can be claimed over {beat} with claim_rule={game.claim_rule!r}, "
                         "so no roller faces it")  # fmt: skip
    return r, o, b


#: The columns of :func:`strategy_rows` (and of ``dice-envs solve meyer --export``), in order.
STRATEGY_COLUMNS = ("roller_lives", "responder_lives", "claim_to_beat", "role", "blind", "dice", "action",
                    "probability", "off_path", "value", "indifferent", "level_visits")  # fmt: skip


def strategy_rows(options: dict | None = None, cache_dir=None, progress: bool = False) -> Iterator[dict]:
    """The whole equilibrium strategy as a tidy table: one dict per row, keys :data:`STRATEGY_COLUMNS`.

    A *level* is a lives pair and a claim to beat: the roller (who must claim) has
    ``roller_lives``, the responder (who answers the roller's claim) ``responder_lives``. The
    strategy is stationary: it depends on nothing else (not on who made the claim to beat, nor
    whether that claim was blind, nor on earlier rounds).

    Columns:

    * ``roller_lives``, ``responder_lives`` (int, ``1..lives``): the lives of the player who
      claims at this level and of the player who answers that claim.
    * ``claim_to_beat`` (str): the claim the roller must beat, by name (``"54"``, ``"21"`` for
      Meyer, ``"31"`` Lille Meyer, pairs ``"66"`` ...; the higher digit first), or ``"start"``
      for a round's first claim. Every lives pair has the round start and each claim that can
      be beaten under the claim rule (under ``"higher"`` a ``21`` cannot, so it has no level).
    * ``role`` (str): ``"claim"``, a decision of the roller; ``"doubt"``, of the responder.
    * ``blind`` (bool): claim rows: ``False`` when the roller has seen their dice (``dice`` says
      which), ``True`` for the claim after the blind reroll (ME-5: the dice are unseen). Doubt
      rows: whether the claim answered was made after the blind reroll. ``True`` rows exist only
      with the option ``blind_reroll`` and not at a round start (a round's first claim may not be
      blind).
    * ``dice`` (str or ``None``): claim rows with ``blind`` false: the roller's dice, named as
      claims are (``"21"``, ``"66"``, ``"54"``, ...); ``None`` (an empty CSV cell) otherwise.
    * ``action`` (str): claim rows: the claim made, by name, or ``"reroll"`` (the blind reroll,
      only where ``blind_reroll`` is on and ``claim_to_beat`` is not ``"start"``). Doubt rows:
      the claim being answered, by name.
    * ``probability`` (float): claim rows: ``P(action | dice)`` (with ``blind``:
      ``P(action | blind reroll made)``); the rows of one decision (level, ``blind``, ``dice``)
      sum to 1. Doubt rows: the responder's ``P(doubt)`` of that claim (``1 - P(believe)``). A
      claim that cannot be believed (nothing can follow it) has ``P(doubt) = 1``.
    * ``off_path`` (bool): the decision is reached with probability below :data:`OFF_PATH` once
      the level is reached: a doubt row of a claim the roller (almost) never makes this way, or a
      blind claim row where the roller (almost) never rerolls. Its probability is then only the
      linear programme's pick (any that keeps deviating unprofitable will do). ``False`` for
      claim rows with seen dice.
    * ``value`` (float): the level's value to the roller, an expected C-3 return in ``[-1, 1]``
      (``+1`` if the roller wins the game); the same on every row of the level. At
      ``claim_to_beat="start"`` with both players at ``lives`` it is the game's value.
    * ``indifferent`` (bool): the decision has equally good alternatives (within
      :data:`INDIFFERENT`), so its probabilities are the linear programme's pick among several
      equilibrium choices, not something the equilibrium pins down (what ``--describe`` marks
      ``[indifferent: ...]``). Claim rows with seen dice: two or more of the roller's actions
      (claims, the blind reroll) are equally good against the responder's doubts. Doubt rows not
      blind: doubting and believing are equally good on the equilibrium's path and ``P(doubt)``
      is 0 or 1 (a mixed ``P(doubt)`` is what makes the roller's bluffs pay as much as the
      truth, so it is not a free pick). Blind claim rows: two or more blind claims are equally
      good. Blind doubt rows: ``False`` (not examined).
    * ``level_visits`` (float): how many times the level is played, on average, in a game that
      both players play by this equilibrium from the first round (both at ``lives``), either
      player rolling (:func:`equilibrium_play`): the weight to give the level's rows when
      averaging over play (the round start with both at ``lives``: at least 1). The same on
      every row of the level; ``0`` for a level equilibrium play never reaches.

    Rows with probability 0 are left out for claim rows (actions never taken, illegal claims):
    an action missing from a decision has probability 0. Doubt rows are written for every claim
    that may be made at the level, ``P(doubt) = 0`` included (always believed).

    Order: lives pairs by ``roller_lives`` then ``responder_lives``; within a pair the round
    start, then the claims to beat from the lowest to the highest rank; within a level the claim
    rows (dice from the highest, ``21``, down; actions highest claim first, ``"reroll"`` last),
    then the blind claim rows, then the doubt rows (highest claim first; not blind, then blind).

    Args:
        options: Meyer options (two players; see :func:`solve`).
        cache_dir: the solver cache directory.
        progress: if the tables are solved, say so on stderr (see :func:`load_tables`).

    Returns:
        An iterator of the rows; the tables are loaded (or solved) by the call itself.

    Raises:
        ValueError: bad options (see :func:`make_game`).
    """
    game = make_game(options)
    tables = load_tables(solution_options(game), cache_dir=cache_dir, progress=progress)  # now, not lazily
    return _strategy_rows(game, tables)


def _strategy_rows(game: meyer.Game, tables: dict) -> Iterator[dict]:
    """The rows of :func:`strategy_rows` from the solved tables."""
    rules = Rules(game)
    name = [meyer.CLAIM_NAMES[c] for c in game.claim_of_rank]
    claim, reroll, blind_claim, doubt = (tables[key] for key in ("claim", "reroll", "blind_claim", "doubt"))
    levels = sorted(rules.levels())  # -1 (a round start) first
    visits = equilibrium_play(game, tables)["visits"]
    for r in range(1, game.lives + 1):
        for o in range(1, game.lives + 1):
            for b in levels:
                k = (r - 1, o - 1, b + 1)
                legal = rules.legal[b][::-1]  # the highest claim first
                blind = rules.blind and b >= 0
                beat = "start" if b < 0 else name[b]
                level = {"roller_lives": r, "responder_lives": o, "claim_to_beat": beat,
                         "level_visits": float(visits[k])}  # fmt: skip
                value = float(tables["value"][k])
                ties, pure_tie = _indifference(game, tables, r, o, b, rules)
                for d in range(TOP, -1, -1):
                    tied = bool(ties[d])
                    for y in legal:
                        p = claim[k + (d, y)]
                        if p > 0:
                            yield _row(level, "claim", False, name[d], name[y], p, False, value, tied)
                    if blind and reroll[k + (d,)] > 0:
                        yield _row(level, "claim", False, name[d], "reroll", reroll[k + (d,)], False, value, tied)
                rerolled = float(reroll[k] @ rules.p) if blind else 0.0  # P(the blind reroll is made)
                if blind:
                    tied = _blind_claims_tie(rules, tables, r, o, b)
                    for y in legal:
                        if blind_claim[k + (y,)] > 0:
                            yield _row(level, "claim", True, None, name[y], blind_claim[k + (y,)],
                                       rerolled < OFF_PATH, value, tied)  # fmt: skip
                made = claim[k].T @ rules.p  # P(claim y with the dice seen)
                for y in legal:
                    q = doubt[k + (y, 0)]
                    yield _row(level, "doubt", False, None, name[y], q, made[y] < OFF_PATH, value, bool(pure_tie[y]))
                    if blind:
                        yield _row(level, "doubt", True, None, name[y], doubt[k + (y, 1)],
                                   rerolled * blind_claim[k + (y,)] < OFF_PATH, value, False)  # fmt: skip


def _level_payoffs(rules: Rules, tables: dict, r: int, o: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The roller's payoffs at lives ``(r, o)``, by claim rank, from the solved tables: a doubted
    true claim, a doubted lie, a believed claim (as :func:`solve` gave them to :func:`solve_level`)."""
    L = tables["value"].shape[0]
    U = np.full((L + 1, L + 1), np.nan)
    U[1:, 1:] = tables["value"][:, :, 0]
    win, lose = outcome_values(rules, U, r, o)
    return win, lose, np.nan_to_num(-tables["value"][o - 1, r - 1, 1:], nan=0.0)


def _blind_claims_tie(rules: Rules, tables: dict, r: int, o: int, b: int) -> bool:
    """Whether two or more blind claims of level ``(r, o, b)`` are equally good (within
    :data:`INDIFFERENT`, :func:`_tolerance`) against the responder's doubts of blind claims."""
    win, lose, believe = _level_payoffs(rules, tables, r, o)
    qb = tables["doubt"][(r - 1, o - 1, b + 1)][:, 1]
    pay = (qb * (rules.fresh_true * win + (1 - rules.fresh_true) * lose) + (1 - qb) * believe)[list(rules.legal[b])]
    return int(np.sum(pay >= pay.max() - _tolerance(_payoff_span(rules, b, win, lose, believe)[1]))) > 1


def _row(level: dict, role: str, blind: bool, dice, action: str, probability, off_path, value: float,
         indifferent: bool) -> dict:  # fmt: skip
    row = {**level, "role": role, "blind": blind, "dice": dice, "action": action, "probability": float(probability),
           "off_path": bool(off_path), "value": value, "indifferent": indifferent}  # fmt: skip
    return {column: row[column] for column in STRATEGY_COLUMNS}  # in the columns' order


def export_strategy(path, options: dict | None = None, cache_dir=None, progress: bool = False) -> dict:
    """Write :func:`strategy_rows` to ``path``, atomically (a temporary file beside it, then
    ``os.replace``), creating missing parent directories.

    Formats, by the suffix (:func:`export_format`):

    * ``.csv``: a header line of :data:`STRATEGY_COLUMNS`, then one line per row; ``None`` is
      an empty cell, booleans are ``true`` / ``false``, floats in full (Python's shortest exact form).
    * ``.json``: one JSON array of row objects (keys :data:`STRATEGY_COLUMNS`, ``null`` for
      ``None``), one row per line; strict JSON.

    Returns:
        ``{"path": the file (absolute), "format": "csv" or "json", "rows": how many rows,
        "columns": the column names}``.
    """
    export_format(path)  # before the tables are loaded or solved
    return write_rows(path, STRATEGY_COLUMNS, strategy_rows(options, cache_dir=cache_dir, progress=progress))


def _max_rss_mib() -> float:
    """The process's peak resident set size so far, MiB (``ru_maxrss`` is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _describe(game: meyer.Game) -> str:
    parts = [
        "claims at least as high" if game.claim_rule == "at_least" else "claims strictly higher",
        "Lille Meyer" if game.lille_meyer else "no Lille Meyer",
        "blind reroll" if game.blind_reroll else "no blind reroll",
    ]
    if game.meyer_costs != 1:
        parts.append(f"a doubted 21 costs {game.meyer_costs}")
    return ", ".join(parts)


__all__ = [
    "EXPORT_FORMATS",
    "EquilibriumAgent",
    "Rules",
    "STRATEGY_COLUMNS",
    "cli_summary",
    "describe_level",
    "export_format",
    "export_strategy",
    "load_tables",
    "make_game",
    "parse_level",
    "solve",
    "solve_level",
    "solve_time",
    "strategy_rows",
]
