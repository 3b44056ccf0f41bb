"""Compiled kernels (numba) of :mod:`agents.solvers.syvere_response`.

The solver's state is a *phase* of ``A`` players still in (2..4), the learner at index 0 and the
others clockwise after it, and their totals; a round of the phase has ``A`` *stages*, one before each
player's turn. Values are the learner's chance of winning (a shared win counts ``1/k``).

Arrays (float32, flat over the totals, index ``sum(t[i] * D**i)``):

* ``R[s, idx]``: a round about to begin, started by index ``s``;
* ``G[(s * (A - 1) + j - 1) * M + L - 1, idx]``: stage ``j`` (1..A-1) of a round started by ``s``, whose
  starter rolled ``L`` times (the limit of the round, SY-6).

A value below ``E`` on a player's axis is the total of a player still in. What a player who went out
this round keeps is the phase's ``mode``:

* ``PAIRS`` (axis ``D = E + 36 * 36``): the total reached and the total before the round, the value
  ``E + d * 36 + o - 1`` for ``d`` points beyond ``E`` after ``o`` points below it; the end of a round
  where everyone went out is then exact (SY-9);
* ``TOTALS`` (``D = E + 36``): the total reached; a tie on points at that end cannot be broken;
* ``CLIP`` (``D = E + 1``): only that the player is out, which saves memory but loses the whole of
  that end.

A turn never lowers a player's axis value in any mode.

Roll tables (``offs``, ``ok2``, ``os2``, ``op``): for ``k`` dice, entries ``offs[k] .. offs[k + 1]`` are
the distinct (dice left, their sum) after one roll, with probability ``op``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# What a phase keeps of a player who went out in the current round (``mode``, above). They live here,
# not in the caller, because numba's on-disk cache freezes globals and watches only this file.
CLIP, TOTALS, PAIRS = 0, 1, 2
PAIR_STRIDE = 36  # an out player is 0..35 points beyond the elimination after 1..36 points below it


@njit(cache=True)
def reach(old, x, E, mode):
    """The axis value of a player at ``old`` (still in) after a turn that scored ``x``."""
    new = old + x
    if new < E or mode == TOTALS:
        return new
    if mode == CLIP:
        return E
    return E + (new - E) * PAIR_STRIDE + (E - old) - 1


@njit(cache=True)
def turn_value(U, Q, lim, starter, maximise, pol, offs, ok2, os2, op):
    """The learner's expected value of a turn with roll limit ``lim``.

    ``U[made, x]`` (starter) or ``U[0, x]`` (not starter) is the value of ending the turn after
    ``made`` rolls holding dice that sum to ``x``. With ``maximise`` the learner plays the best turn
    for these values (a stopping problem: after each roll, stop or roll the dice left); otherwise
    it plays ``pol[k, x, made, lim, starter]`` (1 = stop). ``Q`` is scratch space.
    """
    st = 1 if starter else 0
    for made in range(lim - 1, 0, -1):
        for k in range(1, 7):
            q = 0.0
            for i in range(offs[k], offs[k + 1]):
                k2 = ok2[i]
                x = os2[i]
                m2 = made + 1
                u = U[m2 if starter else 0, x]
                if k2 == 0 or m2 >= lim:
                    q += op[i] * u
                elif maximise:
                    q += op[i] * max(u, Q[k2, m2])
                else:
                    q += op[i] * (u if pol[k2, x, m2, lim, st] else Q[k2, m2])
            Q[k, made] = q
    total = 0.0
    for i in range(offs[6], offs[7]):
        k2 = ok2[i]
        x = os2[i]
        u = U[1 if starter else 0, x]
        if k2 == 0 or lim <= 1:
            total += op[i] * u
        elif maximise:
            total += op[i] * max(u, Q[k2, 1])
        else:
            total += op[i] * (u if pol[k2, x, 1, lim, st] else Q[k2, 1])
    return total


@njit(cache=True)
def decode(idx, A, D, t):
    for i in range(A):
        t[i] = idx % D
        idx //= D


@njit(cache=True)
def encode(t, A, D):
    idx = 0
    mul = 1
    for i in range(A):
        idx += t[i] * mul
        mul *= D
    return idx


@njit(cache=True)
def round_end(t, A, D, E, mode, right, s, R, R3, D3, R2, D2, allout):
    """The learner's value once the round started by ``s`` is over with totals ``t`` (SY-9, SY-10)."""
    n_in = 0
    for i in range(A):
        if t[i] < E:
            n_in += 1
    if n_in == 0:  # everyone of the round went out in it: fewest points wins, then fewest before the round
        if mode == CLIP:
            return allout  # the totals reached are not kept
        if mode == PAIRS:
            # (points beyond E, points below E before the round) -> fewest points, then the most below
            best_d = 1 << 30
            best_o = -1
            for i in range(A):
                u = t[i] - E
                d = u // PAIR_STRIDE
                o = u % PAIR_STRIDE + 1
                if d < best_d or (d == best_d and o > best_o):
                    best_d = d
                    best_o = o
            k = 0
            for i in range(A):
                if t[i] == t[0]:
                    k += 1
            u0 = t[0] - E
            if u0 // PAIR_STRIDE == best_d and u0 % PAIR_STRIDE + 1 == best_o:
                return 1.0 / k  # players still tied share the win
            return 0.0
        best = 1 << 30
        for i in range(1, A):
            if t[i] < best:
                best = t[i]
        if t[0] < best:
            return 1.0
        if t[0] > best:
            return 0.0
        return allout  # a tie on points: the totals before the round decide, and they are not kept
    if t[0] >= E:
        return 0.0
    if n_in == 1:
        return 1.0
    ns = s  # the next starter: the nearest player still in to the right (or left) of s
    for _ in range(A):
        ns = (ns - 1) % A if right else (ns + 1) % A
        if t[ns] < E:
            break
    if n_in == A:
        return R[ns, encode(t, A, D)]
    Dn = D3 if n_in == 3 else D2
    j = 0
    new_s = 0
    idx = 0
    mul = 1
    for i in range(A):
        if t[i] < E:
            if i == ns:
                new_s = j
            idx += t[i] * mul
            mul *= Dn
            j += 1
    if n_in == 3:
        return R3[new_s, idx]
    return R2[new_s, idx]


@njit(cache=True)
def _next(t, A, D, E, M, mode, right, s, j, L, G, R, R3, D3, R2, D2, allout):
    """Value after stage ``j``'s turn: stage ``j + 1``, or the end of the round."""
    if j + 1 < A:
        return G[(s * (A - 1) + j) * M + (L - 1), encode(t, A, D)]
    return round_end(t, A, D, E, mode, right, s, R, R3, D3, R2, D2, allout)


@njit(cache=True)
def turn_ends(t, A, D, E, M, mode, right, s, j, L, starter, G, R, R3, D3, R2, D2, allout, U):
    """Fill ``U`` with the values of the learner's (index 0) possible turn ends at stage ``j`` of a round
    started by ``s``: ``U[made, x]`` for the round's starter (its rolls set the others' limit),
    ``U[0, x]`` under limit ``L`` otherwise. The learner's stage of :func:`do_level` and the agent
    that plays these values (:class:`agents.solvers.syvere_endgame.EndgameAgent`) both read them here."""
    old = t[0]
    if starter:
        for made in range(1, M + 1):
            for x in range(37):
                t[0] = reach(old, x, E, mode)
                U[made, x] = _next(t, A, D, E, M, mode, right, s, 0, made, G, R, R3, D3, R2, D2, allout)
    else:
        for x in range(37):
            t[0] = reach(old, x, E, mode)
            U[0, x] = _next(t, A, D, E, M, mode, right, s, j, L, G, R, R3, D3, R2, D2, allout)
    t[0] = old


@njit(cache=True)
def turn_values_by_limit(U, Q, M, out, offs, ok2, os2, op):
    """``out[L] = turn_value(U, Q, L, False, True, ...)`` for every limit ``L`` in 1..``M``: the best turn of
    a player who did not start the round, for the values ``U[0, x]`` of its turn ends, under each limit.

    With the ends' values the same under every limit, the value of rolling ``k`` dice with ``r`` rolls
    left does not depend on the limit, so the chain is summed once (``Q[k, r]``, which
    :func:`turn_value` keeps at ``Q[k, L - r]``) with the same terms in the same order: the values are
    :func:`turn_value`'s to the bit.
    """
    for r in range(1, M):
        for k in range(1, 7):
            q = 0.0
            for i in range(offs[k], offs[k + 1]):
                k2 = ok2[i]
                u = U[0, os2[i]]
                if k2 == 0 or r == 1:
                    q += op[i] * u
                else:
                    q += op[i] * max(u, Q[k2, r - 1])
            Q[k, r] = q
    for L in range(1, M + 1):
        total = 0.0
        for i in range(offs[6], offs[7]):
            k2 = ok2[i]
            u = U[0, os2[i]]
            if k2 == 0 or L <= 1:
                total += op[i] * u
            else:
                total += op[i] * max(u, Q[k2, L - 1])
        out[L] = total


@njit(cache=True)
def _solve_state(idx, t, A, D, E, M, mode, right, G, R, R3, D3, R2, D2, allout, PL, PS, maximise, pol, passes,
                 offs, ok2, os2, op, U, Q, NX, RE, out, stride, play, key, seen):  # fmt: skip
    """Every stage of every starter at the totals ``idx`` (decoded in ``t``), ``passes`` times: the work
    of :func:`do_level` for one state (the arguments after ``op`` are scratch space).

    A state of a level reads no other state of its level, only its own values (a turn that scores 0,
    a round where everyone scores 0) and those of the levels above, which are done. So the values a
    turn can end on above this level are read once (``NX[s, j, L, x]``: the next stage of the round
    started by ``s`` after stage ``j``'s turn scored ``x`` under limit ``L``, or after the starter's
    ``L`` rolls; ``RE[s, x]``: the round's end after its last turn, the same under every limit), and
    only the score-0 entry, this state's own value, is read again each time it is used. A stage whose
    score-0 entries are what they were when it was last computed has the same value and is not
    computed again. Each stage sums the same terms in the same order as when every term is read from
    ``G``, ``R`` and :func:`round_end` at the time of use, so the values are the same to the bit.
    """
    mul = 1
    for q in range(A):
        stride[q] = mul
        mul *= D
    for s in range(A):  # the stages whose players, from this one to the round's last, are all still in
        for j in range(A):
            ok = True
            for jj in range(j, A):
                if t[(s + jj) % A] >= E:
                    ok = False
            play[s, j] = ok
    for s in range(A):
        for j in range(A):
            if not play[s, j]:
                continue
            q = (s + j) % A
            old = t[q]
            if j + 1 < A:
                for L in range(1, M + 1):
                    row = (s * (A - 1) + j) * M + (L - 1)
                    for x in range(1, 37):
                        NX[s, j, L, x] = G[row, idx + (reach(old, x, E, mode) - old) * stride[q]]
            else:
                for x in range(1, 37):
                    t[q] = reach(old, x, E, mode)
                    RE[s, x] = round_end(t, A, D, E, mode, right, s, R, R3, D3, R2, D2, allout)
                t[q] = old
    seen[:] = False
    for _ in range(passes):
        # The round-start values of the level are first guessed from the neighbour one point up.
        up = 1
        for i in range(A):
            if t[i] + 2 <= E:
                for s in range(A):
                    if R[s, idx] == 0.0:
                        R[s, idx] = R[s, idx + up]
                        # R[s, idx] (the stage j=0, L=1 of state s) was overwritten: that stage must be
                        # computed again even if its inputs look unchanged (a value that underflowed to 0
                        # in float32 reads as "not yet computed", from an elimination of about 700 up)
                        seen[s, 0, 1] = False
                break
            up *= D
        for si in range(A + 1):
            s = si % A
            for j in range(A - 1, -1, -1):
                if not play[s, j]:
                    continue
                q = (s + j) % A
                last = j + 1 == A
                # the score-0 entries: this state's own next stage or round end, as they are now
                if last:
                    RE[s, 0] = round_end(t, A, D, E, mode, right, s, R, R3, D3, R2, D2, allout)
                else:
                    for L in range(1, M + 1):
                        NX[s, j, L, 0] = G[(s * (A - 1) + j) * M + (L - 1), idx]
                shared = q == 0 and last and maximise  # the learner's last turn: one chain for every limit
                for L in range(1, M + 1):
                    if j == 0 and L > 1:
                        continue
                    # a stage is a function of its score-0 entries alone (the rest is fixed)
                    same = seen[s, j, L]
                    if j == 0:
                        for made in range(1, M + 1):
                            if key[s, 0, 1, made] != NX[s, 0, made, 0]:
                                same = False
                            key[s, 0, 1, made] = NX[s, 0, made, 0]
                    else:
                        z = RE[s, 0] if last else NX[s, j, L, 0]
                        if key[s, j, L, 0] != z:
                            same = False
                        key[s, j, L, 0] = z
                    seen[s, j, L] = True
                    if same:
                        continue
                    v = 0.0
                    if q != 0:  # an opponent's turn: its own score distribution
                        if j == 0:
                            for made in range(1, M + 1):
                                for x in range(37):
                                    p = PS[made, x]
                                    if p > 0.0:
                                        v += p * NX[s, 0, made, x]
                        elif last:
                            for x in range(37):
                                p = PL[L, x]
                                if p > 0.0:
                                    v += p * RE[s, x]
                        else:
                            for x in range(37):
                                p = PL[L, x]
                                if p > 0.0:
                                    v += p * NX[s, j, L, x]
                    elif shared:
                        if L == 1:  # its key is every limit's: all are computed here
                            for x in range(37):
                                U[0, x] = RE[s, x]
                            turn_values_by_limit(U, Q, M, out, offs, ok2, os2, op)
                        v = out[L]
                    else:  # the learner's turn: the values of its turn ends, as turn_ends gives them
                        if j == 0:
                            for made in range(1, M + 1):
                                for x in range(37):
                                    U[made, x] = NX[s, 0, made, x]
                        elif last:
                            for x in range(37):
                                U[0, x] = RE[s, x]
                        else:
                            for x in range(37):
                                U[0, x] = NX[s, j, L, x]
                        v = turn_value(U, Q, M if j == 0 else L, j == 0, maximise, pol, offs, ok2, os2, op)
                    if j == 0:
                        R[s, idx] = v
                    else:
                        G[(s * (A - 1) + (j - 1)) * M + (L - 1), idx] = v


@njit(parallel=True, cache=True)
def do_level(states, A, D, E, M, mode, right, G, R, R3, D3, R2, D2, allout, PL, PS, maximise, pol, passes,
             offs, ok2, os2, op):  # fmt: skip
    """Fill every stage of every starter for the states of one level (one sum of the totals, a player
    who went out this round counted at ``E``), ``passes`` times.

    A turn never lowers that sum, so a stage reads only its own level and the levels above it: the
    next stage of the same totals (a turn that scores 0) and higher totals. At its own level the
    round that every player ends with 0 points reads the next starter's round-start value, and
    a starter's last stage reads the next starter's round start, which with ``next_starter="right"``
    is not yet done only for starter 0 (with ``"left"``, for starters 0..A-2); the level's values are
    first guessed from the neighbour one point up, and starter 0 is done again at the end; each pass
    repeats all this, which leaves an error of the order of the chance that a whole round scores
    nothing, to the power of ``passes``, times that guess.

    Those reads stay within one state's own totals, so the states of a level are solved apart, each
    from its first pass to its last (:func:`_solve_state`), in parallel. The arrays may be of either
    memory order; the solver keeps ``G`` and ``R`` with each state's values together (their
    transposes are C-ordered), which is where one state reads and writes.
    """
    n = states.shape[0]
    chunks = min(n, 256)
    for ch in prange(chunks):
        t = np.zeros(4, np.int64)
        U = np.zeros((M + 1, 37))
        Q = np.zeros((7, M + 1))
        NX = np.zeros((A, A, M + 1, 37))
        RE = np.zeros((A, 37))
        out = np.zeros(M + 1)
        stride = np.zeros(4, np.int64)
        play = np.zeros((A, A), np.bool_)
        key = np.zeros((A, A, M + 1, M + 1))
        seen = np.zeros((A, A, M + 1), np.bool_)
        for ii in range(ch * n // chunks, (ch + 1) * n // chunks):
            idx = states[ii]
            decode(idx, A, D, t)
            _solve_state(idx, t, A, D, E, M, mode, right, G, R, R3, D3, R2, D2, allout, PL, PS, maximise, pol, passes,
                         offs, ok2, os2, op, U, Q, NX, RE, out, stride, play, key, seen)  # fmt: skip
