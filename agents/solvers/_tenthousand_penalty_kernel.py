"""Compiled sweeps (numba) of the two-player 10 000 win-probability solver with a bust penalty.

Used by :func:`agents.solvers.tenthousand_win.build` when ``bust_penalty > 0`` (the ``farkle``
preset, TT-9e). Totals are in units of 50 and *shifted* by the floor ``F`` (units, negative): a
total ``a`` is stored at index ``a - F``, so index 0 is the floor and ``N = T - F`` indexes reach
the target. The one-turn routine :func:`agents.solvers._tenthousand_kernel.pair_turn` works on
shifted totals unchanged: it only compares ``a + t`` with ``T`` and takes differences of totals.

The start-of-turn tables have the shape ``(FO, FO, K, K, N, N)``: ``W[om, oo, i, j, a, b]`` is the
mover's chance of winning with the mover on the list (``om``) or not, the opponent likewise
(``oo``; ``FO = 1`` when opening and later banks have the same threshold, when the flag changes
nothing), the mover's busts in a row ``i`` and the opponent's ``j`` (``K = bust_penalty_after``),
and the shifted totals ``a``, ``b``.

* A bank of ``t`` leads to the opponent's turn at ``(oo, 1, j, 0, b, a + t)``.
* A bust leads to ``(oo, om, j, i + 1, b, a)``, or when ``i + 1 == K`` to
  ``(oo, om, j, 0, b, max(a - P, 0))``: the penalty ``P`` (units), clamped at the floor.

:func:`sweep` updates a pair of bounds ``lo <= W* <= hi`` (*interval iteration*): the mover's
value is antitone in the opponent's values, so ``max_policy E[1 - hi(next)]`` is a lower bound and
``max_policy E[1 - lo(next)]`` an upper bound of every fixed point of the Bellman equation lying
between ``lo`` and ``hi``. Started from ``lo = 0`` and ``hi = 1`` the bounds hold after any number of
updates in any order, so ``hi - lo`` is a rigorous bound of the remaining error.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from agents.solvers._tenthousand_kernel import pair_turn, win_region


@njit(cache=True)
def turn_bounds(a, b, T, thr, hot, z_lo, z_hi, w_lo, w_hi, kind, L, RA, RB, WA, WB, maxv,
                cls_start, cls_prob, opt_start, opt_off, pbust):
    """Two optimal turn values at once: :func:`pair_turn`'s ``V[0, 6]`` for ``(z_lo, w_lo)`` and ``(z_hi, w_hi)``.

    The lower and upper bound share the turn's rolls, classes and options, so one pass over them
    serves both (the values are those of two separate :func:`pair_turn` calls; the tests compare).
    Above ``t_top`` both follow :func:`reach_table`, where banking whenever allowed is optimal for
    both bust values (``t_top`` is taken for the larger one, which needs the larger lead).
    ``WA``, ``WB``: :func:`win_region`; ``opt_off[j] = 6 * opt_v[j] + opt_left[j]``.
    """
    D1 = L.shape[0] - 1
    d_hi = 0
    if kind == 1:
        limit = pbust[6] * (1.0 - max(z_lo, z_hi))
        d_hi = max(1, T - b)
        while d_hi < D1 and L[d_hi] > limit:
            d_hi += 1
    t_top = max(T - a, thr, d_hi + b - a, 0)
    size = t_top + maxv + 1
    V = np.zeros((size, 7, 2))
    # Q[2 * (6 * t + left) + k]: the value of having set dice aside to turn total t with ``left``
    # dice left, for bound k (0: lo, 1: hi); option j lands at 6 * (tp + opt_v[j]) + opt_left[j].
    Q = np.zeros(12 * size)
    for tp in range(size - 1, -1, -1):
        if tp >= t_top and kind == 0:  # every allowed bank wins
            for n in range(1, 7):
                V[tp, n, 0] = WA[n] + WB[n] * z_lo
                V[tp, n, 1] = WA[n] + WB[n] * z_hi
        elif tp >= t_top:
            d = min(a + tp - b, D1)
            for n in range(1, 7):
                V[tp, n, 0] = RA[d, n] + RB[d, n] * z_lo
                V[tp, n, 1] = RA[d, n] + RB[d, n] * z_hi
        else:
            base = 6 * tp
            for n in range(1, 7):
                acc0 = pbust[n] * z_lo
                acc1 = pbust[n] * z_hi
                for c in range(cls_start[n], cls_start[n + 1]):
                    best0 = -1.0
                    best1 = -1.0
                    for j in range(opt_start[c], opt_start[c + 1]):
                        q = 2 * (base + opt_off[j])
                        q0 = Q[q]
                        q1 = Q[q + 1]
                        if q0 > best0:
                            best0 = q0
                        if q1 > best1:
                            best1 = q1
                    acc0 += cls_prob[c] * best0
                    acc1 += cls_prob[c] * best1
                V[tp, n, 0] = acc0
                V[tp, n, 1] = acc1
        if tp == 0:
            break
        if a + tp < T:
            b0 = 1.0 - w_lo[b, a + tp]
            b1 = 1.0 - w_hi[b, a + tp]
        elif kind == 0:
            b0 = 1.0
            b1 = 1.0
        else:
            b0 = 1.0 - L[min(a + tp - b, D1)]
            b1 = b0
        can_bank = tp >= thr
        for left in range(6):
            nn = left if left > 0 else 6
            bank_ok = can_bank and not (hot and left == 0)
            v0 = V[tp, nn, 0]
            v1 = V[tp, nn, 1]
            q = 2 * (6 * tp + left)
            Q[q] = b0 if (bank_ok and b0 >= v0) else v0
            Q[q + 1] = b1 if (bank_ok and b1 >= v1) else v1
    return V[0, 6, 0], V[0, 6, 1]


@njit(cache=True)
def start_value(om, oo, i, j, a, b, T, K, P, thr_open, thr_bank, hot, kind, opp, Ls, RAs, RBs, maxv,
                cls_start, cls_prob, opt_start, opt_v, opt_left, pbust):
    """The mover's optimal turn value at ``(om, oo, i, j, a, b)`` against the opponent's table ``opp``.

    ``opp`` holds the opponent's start-of-turn values (``lo`` or ``hi``: the mover's value is then
    an upper or lower bound). Returns ``(value, z)``: the turn value and the value of a bust.
    """
    FO = opp.shape[0]
    if i + 1 < K:
        z = 1.0 - opp[oo, om, j, i + 1, b, a]
    else:
        z = 1.0 - opp[oo, om, j, 0, b, max(a - P, 0)]
    thr = thr_bank if (FO == 1 or om == 1) else thr_open
    ob = oo if FO == 2 else 1
    V, _, _, _ = pair_turn(a, b, T, thr, hot, z, opp[oo, FO - 1, j, 0], kind, Ls[ob], RAs[ob], RBs[ob], maxv,
                           cls_start, cls_prob, opt_start, opt_v, opt_left, pbust)
    return V[0, 6], z


@njit(cache=True, parallel=True)
def sweep(rows, layer_start, lo, hi, T, K, P, thr_open, thr_bank, hot, kind, Ls, RAs, RBs, maxv,
          cls_start, cls_prob, opt_start, opt_v, opt_left, pbust):
    """One Gauss-Seidel sweep of the interval iteration over ``rows`` (``int64[k, 6]``: om, oo, i, j, a, b).

    The rows come in layers ``layer_start[l] .. layer_start[l + 1]`` that do not depend on each
    other (the caller orders them by decreasing total sum, then decreasing ``i + j``, so that every
    bank and every bust without a penalty reads values already updated in this sweep); a layer's
    rows are solved in parallel.

    Returns:
        ``(largest gap hi - lo after the sweep, largest change of lo or hi in the sweep)``.
    """
    FO = lo.shape[0]
    WA, WB = win_region(hot, cls_start, cls_prob, opt_start, opt_left, pbust)
    opt_off = 6 * opt_v + opt_left
    gap = 0.0
    change = 0.0
    gaps = np.zeros(rows.shape[0])
    changes = np.zeros(rows.shape[0])
    for layer in range(layer_start.shape[0] - 1):
        for r in prange(layer_start[layer], layer_start[layer + 1]):
            om, oo, i, j, a, b = rows[r, 0], rows[r, 1], rows[r, 2], rows[r, 3], rows[r, 4], rows[r, 5]
            if i + 1 < K:
                z_lo = 1.0 - hi[oo, om, j, i + 1, b, a]
                z_hi = 1.0 - lo[oo, om, j, i + 1, b, a]
            else:
                z_lo = 1.0 - hi[oo, om, j, 0, b, max(a - P, 0)]
                z_hi = 1.0 - lo[oo, om, j, 0, b, max(a - P, 0)]
            thr = thr_bank if (FO == 1 or om == 1) else thr_open
            ob = oo if FO == 2 else 1
            new_lo, new_hi = turn_bounds(a, b, T, thr, hot, z_lo, z_hi, hi[oo, FO - 1, j, 0], lo[oo, FO - 1, j, 0],
                                         kind, Ls[ob], RAs[ob], RBs[ob], WA, WB, maxv, cls_start, cls_prob,
                                         opt_start, opt_off, pbust)
            changes[r] = max(abs(new_lo - lo[om, oo, i, j, a, b]), abs(new_hi - hi[om, oo, i, j, a, b]))
            lo[om, oo, i, j, a, b] = new_lo
            hi[om, oo, i, j, a, b] = new_hi
            gaps[r] = new_hi - new_lo
    for r in range(rows.shape[0]):
        if gaps[r] > gap:
            gap = gaps[r]
        if changes[r] > change:
            change = changes[r]
    return gap, change
