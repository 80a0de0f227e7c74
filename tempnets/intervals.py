"""95% confidence intervals for what a claim measures over a handful of runs.

A book-scale claim rests on 4-50 training runs; a value such as "half of the
runs solved it" is an estimate, and whether it passes a threshold is only a
result when its interval lies on one side (:class:`tempnets.claims.Claim`,
``interval=``).  Each function returns ``(low, high)`` as floats:

* :func:`share` — a share of runs, ``k`` of ``n`` (Wilson score interval), and the same
  as a count (:func:`count`) or a percentage (:func:`percent`);
* :func:`share_difference` — ``k1/n1 - k2/n2`` (Newcombe's hybrid score
  interval, from the two Wilson intervals);
* :func:`mean` — a mean of run values (Student's t);
* :func:`mean_difference` — a difference of two means (Welch's t);
* :func:`ratio_of_medians` (and :func:`bootstrap` in general) — a percentile bootstrap;
* :func:`median` — a median of run values, also when some runs never reached
  criterion (their value is ``inf``: the interval's order statistics are then
  ``inf`` too), distribution-free from the binomial distribution.

References: Wilson (1927); Newcombe (1998), *Statistics in Medicine* 17, 873-890,
method 10; Conover, *Practical Nonparametric Statistics*, §3.2 (quantiles).
"""

from __future__ import annotations

import math

import numbers

import numpy as np
from scipy import stats

from . import checks

__all__ = ["LEVEL", "share", "count", "percent", "share_note", "share_difference", "mean",
           "mean_difference", "median", "bootstrap", "ratio_of_medians"]

LEVEL = 0.95
"""Confidence level of every interval in the book."""


def _z(level: float) -> float:
    return float(stats.norm.ppf(0.5 + _level(level) / 2))


def _level(level) -> float:
    return checks.real("level", level, low=0.0, high=1.0, low_open=True, high_open=True)


def _whole(name: str, value) -> int:
    """A count of runs: an integer, or a float holding one (a sum of 0/1 outcomes)."""
    if isinstance(value, numbers.Real) and checks.is_finite_real(value) and value == int(value):
        return int(value)
    raise ValueError(f"{name} must be a whole number of runs, got {value!r}")


def _runs(x, name, arg="x") -> np.ndarray:
    a = checks.array(arg, x, finite=False).ravel()
    if a.size == 0:
        raise ValueError(f"{name} needs at least one run, got none")
    if np.isnan(a).any():
        raise ValueError(f"{name}: the run values contain NaN")
    return a


def share(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson score interval for the share ``k / n`` of runs (e.g. runs that solved the task)."""
    k, n = _whole("k", k), _whole("n", n)
    if not 0 <= k <= n or n < 1:
        raise ValueError(f"share needs 0 <= k <= n and n >= 1, got k={k}, n={n}")
    z = _z(level)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if k == 0 else lo, 1.0 if k == n else hi)


def count(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson interval of ``k`` of ``n`` runs on the scale of the count (``n`` times :func:`share`)."""
    lo, hi = share(k, n, level)
    return (n * lo, n * hi)


def percent(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson interval of ``k`` of ``n`` runs as a percentage (100 times :func:`share`)."""
    lo, hi = share(k, n, level)
    return (100 * lo, 100 * hi)


def share_note(k: int, n: int, what: str = "runs") -> str:
    """The note of a claim whose interval is :func:`share`, :func:`count` or :func:`percent`:
    ``"95% interval: Wilson, 3 of 10 runs"``."""
    return f"95% interval: Wilson, {_whole('k', k)} of {_whole('n', n)} {what}"


def share_difference(k1: int, n1: int, k2: int, n2: int, level: float = LEVEL) -> tuple[float, float]:
    """Newcombe's interval for ``k1/n1 - k2/n2`` (two independent sets of runs)."""
    k1, n1, k2, n2 = (_whole(name, v) for name, v in (("k1", k1), ("n1", n1), ("k2", k2), ("n2", n2)))
    l1, u1 = share(k1, n1, level)  # (checks k1, n1 first: k1 / n1 needs n1 > 0)
    l2, u2 = share(k2, n2, level)
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def mean(x, level: float = LEVEL) -> tuple[float, float]:
    """Student's t interval for the mean of the run values ``x`` (infinite for one run)."""
    a, level = _runs(x, "mean"), _level(level)
    if a.size < 2 or not np.isfinite(a).all():
        return (-math.inf, math.inf)
    m, se = float(a.mean()), float(a.std(ddof=1)) / math.sqrt(a.size)
    t = float(stats.t.ppf(0.5 + level / 2, a.size - 1))
    return (m - t * se, m + t * se)


def mean_difference(x, y, level: float = LEVEL) -> tuple[float, float]:
    """Welch's t interval for ``mean(x) - mean(y)`` (independent runs, unequal variances)."""
    a, b = _runs(x, "mean_difference"), _runs(y, "mean_difference", "y")
    level = _level(level)
    if a.size < 2 or b.size < 2 or not (np.isfinite(a).all() and np.isfinite(b).all()):
        return (-math.inf, math.inf)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    d = float(a.mean() - b.mean())
    if va + vb == 0:
        return (d, d)
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    half = float(stats.t.ppf(0.5 + level / 2, df)) * math.sqrt(va + vb)
    return (d - half, d + half)


def median(x, level: float = LEVEL) -> tuple[float, float]:
    """Distribution-free interval for the median: order statistics ``x_(j) <= x_(k)`` with
    ``P(j <= B < k) >= level`` for ``B ~ Binomial(n, 1/2)``, as narrow and as central as that allows.

    Runs that never reached criterion may be given as ``inf`` (their value is only
    known to exceed the cap); a bound that falls on one of them is ``inf``.  With too
    few runs for the level (``n < 6`` at 95%) the interval is unbounded.
    """
    a = np.sort(_runs(x, "median"))
    n = a.size
    alpha = (1 - _level(level)) / 2
    j = 0  # the largest j with P(B <= j - 1) <= alpha: [x_(j), x_(n-j+1)] covers >= level
    while j + 1 <= n // 2 and stats.binom.cdf(j, n, 0.5) <= alpha:
        j += 1
    if j == 0:
        return (-math.inf, math.inf)
    lo, hi = a[j - 1], a[n - j]  # x_(j) and x_(n - j + 1), 1-based
    return (float(lo), float(hi))


def bootstrap(statistic, *samples, n_resamples: int = 2000, level: float = LEVEL) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic(*samples)`` (each sample resampled with
    replacement, independently), for statistics without a formula: a ratio of medians, say.

    Deterministic (its own stream, seed 0), so the same runs give the same interval on any
    machine.  Runs given as ``inf`` (never reached criterion) are resampled like the others;
    when more than the tail share of resampled statistics is undefined (NaN, e.g.
    ``inf / inf``) the interval is unbounded.
    """
    if not callable(statistic):
        raise TypeError(f"statistic must be a function of the samples, got {statistic!r}")
    arrays = [_runs(s, "bootstrap", "samples") for s in samples]
    n_resamples = checks.count("n_resamples", n_resamples, 1, 10**7)
    level = _level(level)
    gen = np.random.default_rng(0)
    values = np.empty(n_resamples)
    with np.errstate(invalid="ignore", divide="ignore"):
        for i in range(n_resamples):
            values[i] = statistic(*(a[gen.integers(0, a.size, a.size)] for a in arrays))
    alpha = (1 - level) / 2
    if np.isnan(values).mean() > alpha:
        return (-math.inf, math.inf)
    values = np.sort(np.where(np.isnan(values), np.inf, values))  # undefined: to the top tail
    lo = values[int(math.floor(alpha * (n_resamples - 1)))]
    hi = values[int(math.ceil((1 - alpha) * (n_resamples - 1)))]
    return (float(lo), float(hi))


def ratio_of_medians(x, y, level: float = LEVEL) -> tuple[float, float]:
    """Bootstrap interval of ``median(x) / median(y)`` (e.g. how many times slower one model is)."""
    x, y = _runs(x, "ratio_of_medians"), _runs(y, "ratio_of_medians", "y")
    return bootstrap(lambda a, b: np.median(a) / np.median(b), x, y, level=level)
