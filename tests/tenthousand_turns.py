"""One 10 000 turn by exhaustive recursion over the engine's states, for the win-probability tests.

The two solver test modules (without and with a bust penalty) check start values against this
recursion; what differs between them is only what follows the turn (``after``), which they pass in.
:func:`solved` keeps the solutions those modules and the ``--describe`` tests solve.
"""

from agents.solvers import tenthousand_win as tw
from dice_envs.games import tenthousand as tt

_SOLVED: dict = {}


def solved(options: dict, cache_dir: str, floor: int = tw.FLOOR):
    """The win solver's solution of these options, solved once per test session."""
    key = (tuple(sorted(options.items())), floor)
    if key not in _SOLVED:
        _SOLVED[key] = tw.solve(options, cache_dir=cache_dir, progress=False, floor=floor)
    return _SOLVED[key]


def share(game, state, seat):
    """C-3 returns as the seat's win share (a draw gives each 1/2)."""
    return (game.returns(state)[seat] + 1) / 2


def best_turn(game, state, mover, after, sure, cap):
    """The mover's best value of the turn that starts at ``state`` (a chance node: the first roll).

    ``after(s)`` values the states that end the turn: the end of the game or the opponent's turn.
    Rolls are pruned where an allowed bank is worth at least ``sure`` (no roll can beat it), and
    turn totals above ``cap`` count as won: hot-dice chains that long have a chance below 1e-20.
    """
    memo = {}

    def chance(s):
        key = (s.turn_total, s.to_roll)
        if s.turn_total > cap:
            return 1.0
        if key not in memo:
            total = 0.0
            for roll, p in game.chance_outcomes(s):
                d = game.apply_chance(s, roll)
                total += float(p) * (next_value(d) if d.player != mover or game.is_terminal(d) else decide(d))
            memo[key] = total
        return memo[key]

    def next_value(s):
        return chance(s) if s.player == mover and not game.is_terminal(s) else after(s)

    def decide(d):
        legal = game.legal_actions(d)
        best = max((next_value(game.apply_action(d, x)) for x in legal if x % 2 == tt.BANK), default=-1.0)
        if best >= sure:
            return best
        for x in legal:
            if x % 2 == tt.ROLL:
                best = max(best, next_value(game.apply_action(d, x)))
        return best

    return chance(state)
