"""Compiled kernels (numba) of the two-player 10 000 win-probability solver.

Everything here works in *units* of 50 points (every score in 10 000 is a multiple of 50) and on
the roll tables that :mod:`agents.solvers.tenthousand_win` derives once from the engine's
``chance_outcomes`` and ``Game.selections``: for ``n`` dice, the *classes* of rolls that offer the
same set of ``(value, dice left)`` choices, with their summed probability. A roll that offers
nothing is a bust (``pbust[n]``).

Layout of the roll tables (all numpy arrays):

* ``cls_start[n] .. cls_start[n + 1]``: the classes of an ``n``-dice roll (``n`` = 1..6);
* ``cls_prob[c]``: the probability of class ``c``; ``opt_start[c] .. opt_start[c + 1]``: its options;
* ``opt_v[j]``: the value of option ``j`` in units; ``opt_left[j]``: the dice it leaves (0 = hot dice);
* ``pbust[n]``: the probability that ``n`` dice bust.

Bank rules enter as two numbers, derived from the engine's legal actions: ``thr`` (the least turn
total, in units, with which the player may bank) and ``hot`` (after hot dice the six must be
rolled, so no bank then).

Value functions are affine in ``z``, the value of a bust (the chance of winning once the dice pass
to the opponent with the totals unchanged): every routine that depends on ``z`` returns the value
and its slope in ``z`` under the policy it found, which the solver uses for Newton steps on the
fixed point of a pair of states that pass the dice to each other by busts.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def win_region(hot, cls_start, cls_prob, opt_start, opt_left, pbust):
    """Pre-roll values where every allowed bank wins (value 1) and a bust is worth ``z``.

    Returns:
        ``(alpha, beta)``, arrays of length 7 indexed by the dice to roll: value = alpha + beta * z.
        Under ``hot`` a class whose every option sets all dice aside must roll six again, hence
        the closed form of six dice's self-loop.
    """
    alpha = np.zeros(7)
    beta = np.zeros(7)
    p_bank = np.zeros(7)
    p_hot = np.zeros(7)
    for n in range(1, 7):
        for c in range(cls_start[n], cls_start[n + 1]):
            all_hot = hot
            if hot:
                for j in range(opt_start[c], opt_start[c + 1]):
                    if opt_left[j] > 0:
                        all_hot = False
                        break
            if all_hot:
                p_hot[n] += cls_prob[c]
            else:
                p_bank[n] += cls_prob[c]
    alpha[6] = p_bank[6] / (1.0 - p_hot[6])
    beta[6] = pbust[6] / (1.0 - p_hot[6])
    for n in range(1, 6):
        alpha[n] = p_bank[n] + p_hot[n] * alpha[6]
        beta[n] = pbust[n] + p_hot[n] * beta[6]
    return alpha, beta


@njit(cache=True)
def last_turn_sat(E, hot, cls_start, cls_prob, opt_start, opt_v, opt_left, pbust):
    """The last turn of the end phase once the bank thresholds are met.

    The player must finish level with (value 1/2) or above (value 1) the leader's total; ``e`` is
    the number of units still needed to draw level. A bust loses (0).

    Returns:
        ``out[e + 1, n]`` for ``e`` = -1..E (``e = -1``: already ahead), pre-roll values with ``n``
        dice to roll. Needs of more than ``E`` units are treated as lost (the caller bounds that).
    """
    out = np.zeros((E + 2, 7))
    alpha, _ = win_region(hot, cls_start, cls_prob, opt_start, opt_left, pbust)
    for n in range(1, 7):
        out[0, n] = alpha[n]
    for e in range(0, E + 1):
        for n in range(1, 7):
            acc = 0.0
            for c in range(cls_start[n], cls_start[n + 1]):
                best = 0.0
                for j in range(opt_start[c], opt_start[c + 1]):
                    e2 = e - opt_v[j]
                    left = opt_left[j]
                    nn = left if left > 0 else 6
                    bankable = not (hot and left == 0)
                    if e2 < 0:
                        q = 1.0 if bankable else out[0, 6]
                    else:
                        q = out[e2 + 1, nn]
                        if bankable and e2 == 0 and q < 0.5:
                            q = 0.5
                    if q > best:
                        best = q
                acc += cls_prob[c] * best
            out[e + 1, n] = acc
    return out


@njit(cache=True)
def last_turn_below(d, thr, sat, hot, cls_start, cls_prob, opt_start, opt_v, opt_left):
    """Last-turn pre-roll values while the turn total ``s`` is below the bank threshold.

    Args:
        d: units needed to draw level at the start of the turn.
        thr: least turn total (units) that may be banked.
        sat: the table of :func:`last_turn_sat`.

    Returns:
        ``vals[s, n]`` for ``s`` = 0..max(thr, 1) - 1.
    """
    E = sat.shape[0] - 2
    rows = max(thr, 1)
    vals = np.zeros((rows, 7))
    for s in range(rows - 1, -1, -1):
        for n in range(1, 7):
            acc = 0.0
            for c in range(cls_start[n], cls_start[n + 1]):
                best = 0.0
                for j in range(opt_start[c], opt_start[c + 1]):
                    s2 = s + opt_v[j]
                    left = opt_left[j]
                    nn = left if left > 0 else 6
                    if s2 >= thr:
                        e2 = d - s2
                        bankable = not (hot and left == 0)
                        if e2 < 0:
                            q = 1.0 if bankable else sat[0, 6]
                        elif e2 > E:
                            q = 0.0
                        else:
                            q = sat[e2 + 1, nn]
                            if bankable and e2 == 0 and q < 0.5:
                                q = 0.5
                    else:
                        q = vals[s2, nn]
                    if q > best:
                        best = q
                acc += cls_prob[c] * best
            vals[s, n] = acc
    return vals


@njit(cache=True, parallel=True)
def last_turn_values(D, thr, sat, hot, cls_start, cls_prob, opt_start, opt_v, opt_left):
    """``L[d]``: the last-turn player's chance (win + half a draw) when ``d`` units short, d = 0..D+1.

    ``L[D + 1]`` is 0: the solver treats every larger need as lost, an error of at most ``L[D]``.
    """
    L = np.zeros(D + 2)
    for d in prange(1, D + 1):
        if thr <= 1:  # every selection reaches the threshold: the saturated table answers
            L[d] = sat[d + 1, 6]
        else:
            L[d] = last_turn_below(d, thr, sat, hot, cls_start, cls_prob, opt_start, opt_v, opt_left)[0, 6]
    return L


@njit(cache=True)
def reach_table(L, hot, cls_start, cls_prob, opt_start, opt_v, opt_left, pbust):
    """Pre-roll values of a player past the target whose banks are allowed, banking at once.

    ``d`` is their lead in units over the opponent, who then gets a last turn: a bank is worth
    ``1 - L[d]``. The policy is fixed: bank the selection of greatest value whenever a bank is
    allowed, else (hot dice must be rolled) set aside as much as possible. The solver uses these
    values only where that policy is optimal (``L[d] <= pbust[6] * (1 - z)``: there a bank beats
    any roll, which busts with at least ``pbust[6]``).

    Returns:
        ``(alpha, beta)`` of shape ``(len(L), 7)``: value = alpha + beta * z; the last row is the
        region where a bank wins outright.
    """
    D1 = L.shape[0] - 1
    alpha = np.zeros((D1 + 1, 7))
    beta = np.zeros((D1 + 1, 7))
    wa, wb = win_region(hot, cls_start, cls_prob, opt_start, opt_left, pbust)
    for n in range(1, 7):
        alpha[D1, n] = wa[n]
        beta[D1, n] = wb[n]
    for d in range(D1 - 1, -1, -1):
        for n in range(1, 7):
            acc_a = 0.0
            acc_b = pbust[n]
            for c in range(cls_start[n], cls_start[n + 1]):
                v_bank = -1
                v_hot = -1
                for j in range(opt_start[c], opt_start[c + 1]):
                    if hot and opt_left[j] == 0:
                        if opt_v[j] > v_hot:
                            v_hot = opt_v[j]
                    elif opt_v[j] > v_bank:
                        v_bank = opt_v[j]
                if v_bank >= 0:
                    acc_a += cls_prob[c] * (1.0 - L[min(d + v_bank, D1)])
                else:
                    dd = min(d + v_hot, D1)
                    acc_a += cls_prob[c] * alpha[dd, 6]
                    acc_b += cls_prob[c] * beta[dd, 6]
            alpha[d, n] = acc_a
            beta[d, n] = acc_b
    return alpha, beta


@njit(cache=True)
def pair_turn(a, b, T, thr, hot, z, w_next, kind, L, RA, RB, maxv,
              cls_start, cls_prob, opt_start, opt_v, opt_left, pbust):
    """One turn of the player to move with total ``a`` against ``b`` (units, both below ``T``).

    Args:
        thr: the mover's least bankable turn total (units).
        z: the mover's chance of winning after a bust (the opponent to move at ``(b, a)``).
        w_next: start-of-turn values of the *opponent's* seat, ``w_next[b, a']``: a bank that
            leaves the mover at ``a' < T`` is worth ``1 - w_next[b, a']``.
        kind: what a bank past the target is worth: 0: a win (``immediate``, or the last seat of
            a ``finish_round`` round); 1: ``1 - L[lead]`` (the opponent gets a last turn).
        L, RA, RB: :func:`last_turn_values` for the opponent's threshold and its
            :func:`reach_table`.

    Returns:
        ``(V, G, bank, t_top)``: ``V[t, n]`` pre-roll values with turn total ``t`` and ``n`` dice to
        roll (optimal), ``G`` their slopes in ``z``, ``bank[t]`` the value of banking ``t``, for
        ``t`` = 0..t_top + maxv; from ``t_top`` on the values are those of :func:`reach_table`.
    """
    D1 = L.shape[0] - 1
    d_hi = 0
    if kind == 1:
        limit = pbust[6] * (1.0 - z)
        d_hi = max(1, T - b)
        while d_hi < D1 and L[d_hi] > limit:
            d_hi += 1
    t_top = max(T - a, thr, d_hi + b - a, 0)
    size = t_top + maxv + 1
    V = np.zeros((size, 7))
    G = np.zeros((size, 7))
    bank = np.full(size, -1.0)
    WA, WB = win_region(hot, cls_start, cls_prob, opt_start, opt_left, pbust)
    Qv = np.zeros((size, 6))
    Qg = np.zeros((size, 6))
    for tp in range(size - 1, -1, -1):
        if tp >= t_top and kind == 0:  # every allowed bank wins
            for n in range(1, 7):
                V[tp, n] = WA[n] + WB[n] * z
                G[tp, n] = WB[n]
        elif tp >= t_top:
            d = min(a + tp - b, D1)
            for n in range(1, 7):
                V[tp, n] = RA[d, n] + RB[d, n] * z
                G[tp, n] = RB[d, n]
        else:
            for n in range(1, 7):
                acc = pbust[n] * z
                accg = pbust[n]
                for c in range(cls_start[n], cls_start[n + 1]):
                    best = -1.0
                    bg = 0.0
                    for j in range(opt_start[c], opt_start[c + 1]):
                        t2 = tp + opt_v[j]
                        q = Qv[t2, opt_left[j]]
                        if q > best:
                            best = q
                            bg = Qg[t2, opt_left[j]]
                    acc += cls_prob[c] * best
                    accg += cls_prob[c] * bg
                V[tp, n] = acc
                G[tp, n] = accg
        if tp == 0:
            break
        if a + tp < T:
            bv = 1.0 - w_next[b, a + tp]
        elif kind == 0:
            bv = 1.0
        else:
            bv = 1.0 - L[min(a + tp - b, D1)]
        can_bank = tp >= thr
        if can_bank:
            bank[tp] = bv
        for left in range(6):
            nn = left if left > 0 else 6
            if can_bank and not (hot and left == 0) and bv >= V[tp, nn]:
                Qv[tp, left] = bv
                Qg[tp, left] = 0.0
            else:
                Qv[tp, left] = V[tp, nn]
                Qg[tp, left] = G[tp, nn]
    return V, G, bank, t_top


@njit(cache=True, parallel=True)
def solve_cycles(cyc, W, T, thr_open, thr_bank, hot, kinds, nexts, Ls, RAs, RBs, maxv,
                 cls_start, cls_prob, opt_start, opt_v, opt_left, pbust, tol, max_iter):
    """Solve independent cycles of start-of-turn states and write their values into ``W``.

    A cycle is two states that pass the dice to each other by busts, ``(a, b, s)`` and
    ``(b, a, s')`` (``s`` indexes ``W``'s first axis: the seat's role in the round), or one state
    that passes them to itself. Banks lead to states of larger total sum, already in ``W``.
    The fixed point ``x = f1(1 - y), y = f2(1 - x)`` is found by Newton steps on the piecewise
    linear turn values (exact once the policies stop changing).

    Args:
        cyc: ``int64[k, 6]`` rows ``(a1, b1, s1, a2, b2, s2)``; ``a2 = -1`` for a self-loop.
        kinds[s], nexts[s]: the bank-past-target kind of role ``s`` and the role of its opponent.
        Ls[ob], RAs[ob], RBs[ob]: last-turn tables for an opponent who has (1) or has not (0)
            banked yet.

    Returns:
        ``iters[k]``: Newton iterations used per cycle (``max_iter + 1`` if it did not converge).
    """
    k = cyc.shape[0]
    iters = np.zeros(k, dtype=np.int64)
    for i in prange(k):
        a1, b1, s1, a2, b2, s2 = cyc[i, 0], cyc[i, 1], cyc[i, 2], cyc[i, 3], cyc[i, 4], cyc[i, 5]
        ob1 = 1 if b1 > 0 else 0
        thr1 = thr_bank if a1 > 0 else thr_open
        # A first guess from a neighbour already solved (a higher sum), else a coin.
        x = 0.5
        if b1 + 1 < T:
            x = W[s1, a1, b1 + 1]
        elif a1 + 1 < T:
            x = W[s1, a1 + 1, b1]
        if a2 < 0:
            it = 0
            while True:
                it += 1
                V, G, _, _ = pair_turn(a1, b1, T, thr1, hot, 1.0 - x, W[nexts[s1]], kinds[s1], Ls[ob1],
                                       RAs[ob1], RBs[ob1], maxv, cls_start, cls_prob, opt_start, opt_v,
                                       opt_left, pbust)
                fx = V[0, 6]
                gx = G[0, 6]
                if abs(fx - x) <= tol or it > max_iter:
                    x = fx
                    break
                x = (fx + gx * x) / (1.0 + gx)  # x = f(1 - x), linearised at the old x
            W[s1, a1, b1] = x
            iters[i] = it
        else:
            ob2 = 1 if b2 > 0 else 0
            thr2 = thr_bank if a2 > 0 else thr_open
            y = 0.5
            if b2 + 1 < T:
                y = W[s2, a2, b2 + 1]
            elif a2 + 1 < T:
                y = W[s2, a2 + 1, b2]
            it = 0
            while True:
                it += 1
                V, G, _, _ = pair_turn(a1, b1, T, thr1, hot, 1.0 - y, W[nexts[s1]], kinds[s1], Ls[ob1],
                                       RAs[ob1], RBs[ob1], maxv, cls_start, cls_prob, opt_start, opt_v,
                                       opt_left, pbust)
                fx = V[0, 6]
                gx = G[0, 6]
                V, G, _, _ = pair_turn(a2, b2, T, thr2, hot, 1.0 - x, W[nexts[s2]], kinds[s2], Ls[ob2],
                                       RAs[ob2], RBs[ob2], maxv, cls_start, cls_prob, opt_start, opt_v,
                                       opt_left, pbust)
                fy = V[0, 6]
                gy = G[0, 6]
                if (abs(fx - x) <= tol and abs(fy - y) <= tol) or it > max_iter:
                    x = fx
                    y = fy
                    break
                # Linearised: x' = fx - gx (y' - y), y' = fy - gy (x' - x).
                xn = (fx - gx * (fy - y) - gx * gy * x) / (1.0 - gx * gy)
                y = fy - gy * (xn - x)
                x = xn
            W[s1, a1, b1] = x
            W[s2, a2, b2] = y
            iters[i] = it
    return iters
