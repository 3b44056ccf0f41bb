"""Confidence intervals for win rates and mean returns.

Win rates are win shares (a k-way tie gives each of the k players 1/k, as CONTRACTS.md defines
them), and their intervals are Wilson score intervals on the share. Unlike the normal
approximation (``p ± z·sqrt(p(1-p)/n)``), the Wilson interval stays inside [0, 1] and has a
non-zero width when every game goes one way: over 5 games won out of 5 it is [0.566, 1], not
[1, 1]. (E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
JASA 22, 1927; the formula as in R. G. Newcombe, Statistics in Medicine 17, 1998, method 3.)

>>> rate, low, high = wilson(5, 5)
>>> rate, round(low, 4), high
(1.0, 0.5655, 1.0)
"""

from __future__ import annotations

import math

import numpy as np

#: The two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054


def wilson(share_sum: float, n: int, z: float = Z95) -> tuple[float, float, float]:
    """The win rate and its Wilson score interval ``(rate, low, high)``, inside [0, 1].

    Args:
        share_sum: the sum of the win shares over the games (wins, plus 1/k per k-way tie).
        n: the number of games (>= 1).
        z: the normal quantile of the interval (default: 95%, two-sided).

    Raises:
        ValueError: ``n`` < 1, ``share_sum`` outside [0, n], or ``z`` not positive and finite.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"wilson needs a number of games n >= 1, got {n!r}")
    share_sum = float(share_sum)
    if not math.isfinite(share_sum) or not 0 <= share_sum <= n:
        raise ValueError(f"wilson: share_sum must be in [0, n] = [0, {n}], got {share_sum!r}")
    if not math.isfinite(z) or z <= 0:
        raise ValueError(f"wilson: z must be a positive number, got {z!r}")
    p = share_sum / n
    z2 = z * z
    # At p = 0 and p = 1 the formula reduces to bounds rational in z^2; computing them so keeps
    # the closed end exactly at 0 or 1 (the general form leaves rounding there, e.g. 2e-19).
    if share_sum == 0:
        return 0.0, 0.0, z2 / (n + z2)
    if share_sum == n:
        return 1.0, n / (n + z2), 1.0
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # The exact bounds lie in [0, 1]; clipping only removes rounding.
    return p, max(0.0, centre - half), min(1.0, centre + half)


def mean_ci(values, z: float = Z95) -> tuple[float, float, float]:
    """Mean and a normal-approximation confidence interval ``(mean, low, high)``.

    For mean returns, which are not bounded to [0, 1] in general; use :func:`wilson` for rates.
    """
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        raise ValueError("mean_ci needs at least one value")
    mean = float(x.mean())
    if len(x) == 1:
        return mean, mean, mean
    half = z * float(x.std(ddof=1)) / math.sqrt(len(x))
    return mean, mean - half, mean + half


__all__ = ["Z95", "mean_ci", "wilson"]
