"""95% confidence intervals for what a claim measures over a handful of runs.

A book-scale claim rests on 4-50 training runs; a value such as "half of the
runs solved it" is an estimate, and whether it passes a threshold is only a
result when its interval lies on one side (:class:`tempnets.book.claims.Claim`,
``interval=``).  Each function returns ``(low, high)`` as floats:

* :func:`share` — a share of runs, ``k`` of ``n`` (Wilson score interval, scipy's), and the same
  as a count (:func:`count`) or a percentage (:func:`percent`);
* :func:`share_difference` — ``k1/n1 - k2/n2`` (Newcombe's hybrid score
  interval, from the two Wilson intervals);
* :func:`mean` — a mean of run values (Student's t);
* :func:`mean_difference` — a difference of two means (Welch's t);
* :func:`ratio_of_medians` (and :func:`bootstrap` in general) — a percentile bootstrap;
* :func:`median` — a median of run values, also when some runs never reached
  criterion (their value is ``inf``: the interval's order statistics are then
  ``inf`` too), distribution-free from the binomial distribution.

Each returns an :class:`Interval`: a plain ``(low, high)`` tuple that also carries its
:class:`Design` (the estimator, the runs per group, the range one run's value can take), so
that :class:`tempnets.book.claims.Claim` can ask, before anything is trained, whether the claim
could come out both ways (:meth:`Design.span`, :meth:`Design.outcomes`).

References: Wilson (1927); Newcombe (1998), *Statistics in Medicine* 17, 873-890,
method 10; Conover, *Practical Nonparametric Statistics*, §3.2 (quantiles).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numbers

import numpy as np
from scipy import stats

from .._numerics import checks

__all__ = ["LEVEL", "share", "count", "percent", "share_note", "level_name", "share_difference", "mean",
           "mean_difference", "median", "bootstrap", "ratio_of_medians"]

LEVEL = 0.95
"""Confidence level of every interval in the book."""


UNITS = {"share": "a share of runs", "count": "a count of runs", "percent": "a percentage of runs"}
"""How a share (or a difference of shares) is reported: as a share, a count of runs, a percentage."""

ESTIMATORS = ("share", "share_difference", "mean", "mean_difference", "median", "ratio_of_medians",
              "bootstrap")
"""The estimators a :class:`Design` knows (those of this module)."""


@dataclass(frozen=True)
class Design:
    """How a claim's value is estimated from runs, known before any run is made.

    Parameters
    ----------
    estimator : str
        One of :data:`ESTIMATORS`.
    sizes : tuple of int
        Runs per group (one group, or two for a difference or a ratio).
    bounds : (float, float)
        The values one run's measurement can take (a score in % is ``(0, 100)``); a share's
        are implied.  Unbounded unless stated.
    unit : str
        For a share or a difference of shares: ``"share"``, ``"count"`` (times the runs)
        or ``"percent"`` (:data:`UNITS`).
    level : float
        The interval's confidence level.
    censored : tuple of int
        Per group, the runs whose value was ``inf`` (never reached criterion), so that a table
        can say so in words ("not reached in 3 of 5 runs"); ``()`` when none were.
    """

    estimator: str
    sizes: tuple
    bounds: tuple = (-math.inf, math.inf)
    unit: str = "share"
    level: float = LEVEL
    censored: tuple = ()

    def __post_init__(self):
        if self.estimator not in ESTIMATORS:
            raise ValueError(f"estimator must be one of {', '.join(ESTIMATORS)}, got {self.estimator!r}")
        raw = np.atleast_1d(self.sizes)
        if raw.dtype.kind not in "iu" or raw.ndim != 1:
            raise ValueError(f"sizes must be one or more numbers of runs >= 1, got {self.sizes!r}")
        sizes = tuple(int(n) for n in raw)
        if not sizes or min(sizes) < 1:
            raise ValueError(f"sizes must be one or more numbers of runs >= 1, got {self.sizes!r}")
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "bounds", _bounds(self.bounds))
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {', '.join(UNITS)}, got {self.unit!r}")
        if not isinstance(self.censored, (tuple, list)):
            raise TypeError(f"censored must be a tuple of numbers of runs (one per group), got "
                            f"{type(self.censored).__name__}")
        censored = tuple(self.censored)
        if censored and (len(censored) != len(sizes) or not all(
                isinstance(k, numbers.Integral) and 0 <= k <= n for k, n in zip(censored, sizes))):
            raise ValueError(f"censored must give, per group, a number of runs from 0 to its size "
                             f"{sizes}, got {self.censored!r}")
        # none censored is stored as (), so that designs compare equal however they were made
        object.__setattr__(self, "censored", tuple(int(k) for k in censored) if any(censored) else ())

    @property
    def discrete(self) -> bool:
        """Whether the estimate can take only finitely many values (a share: ``k`` of ``n``)."""
        return self.estimator in ("share", "share_difference")

    @property
    def scale(self) -> float:
        """What a share is multiplied by as reported (1, the runs, or 100)."""
        return {"share": 1.0, "count": float(self.sizes[0]), "percent": 100.0}[self.unit]

    def resized(self, n: int) -> "Design":
        """The same design with ``n`` runs in every group."""
        return Design(self.estimator, (int(n),) * len(self.sizes), self.bounds, self.unit, self.level)

    def outcomes(self) -> list:
        """Every ``(value, (low, high))`` a discrete design can give: each ``k`` of ``n`` (or each
        pair, for a difference), on the design's scale (:func:`share`, :func:`share_difference`,
        computed for all ``k`` at once: the same formulas, to the last bit or so)."""
        if not self.discrete:
            raise ValueError(f"a {self.estimator} design has no finite list of outcomes; see span()")
        c = self.scale
        if self.estimator == "share":
            n = self.sizes[0]
            p, lo, hi = _wilson_all(n, self.level)
            return list(zip((c * p).tolist(), zip((c * lo).tolist(), (c * hi).tolist())))
        (p1, l1, u1), (p2, l2, u2) = (_wilson_all(n, self.level) for n in self.sizes)
        p1, l1, u1 = p1[:, None], l1[:, None], u1[:, None]
        d = p1 - p2
        lo = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
        hi = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
        return list(zip((c * d).ravel().tolist(), zip((c * lo).ravel().tolist(), (c * hi).ravel().tolist())))

    def span(self):
        """For a continuous design: ``(low, high)``, the values the estimate takes with a
        zero-width interval when every run of a group gives the same value (the most and the
        least favourable outcomes); ``None`` when no outcome bounds the interval (too few runs)."""
        if self.discrete:
            raise ValueError(f"a {self.estimator} design has a finite list of outcomes; see outcomes()")
        lo, hi = self.bounds
        if self.estimator == "mean":
            return (lo, hi) if self.sizes[0] >= 2 else None
        if self.estimator == "mean_difference":
            return (lo - hi, hi - lo) if min(self.sizes) >= 2 else None
        if self.estimator == "median":
            return (lo, hi) if _median_rank(self.sizes[0], self.level) > 0 else None
        if self.estimator == "ratio_of_medians":
            return (0.0, math.inf) if lo >= 0 else (-math.inf, math.inf)
        return (lo, hi)

    def describe(self) -> str:
        """E.g. ``"share of 3 runs"``, ``"difference of means, 2 and 2 runs"``."""
        runs = " and ".join(str(n) for n in self.sizes) + (" run" if self.sizes == (1,) else " runs")
        what = {"share": UNITS[self.unit].replace("a ", "", 1).replace(" of runs", ""),
                "share_difference": "difference of shares", "mean": "mean",
                "mean_difference": "difference of means", "median": "median",
                "ratio_of_medians": "ratio of medians", "bootstrap": "bootstrap statistic"}[self.estimator]
        return f"{what} of {runs}" if len(self.sizes) == 1 else f"{what}, {runs}"


def _wilson_all(n: int, level: float) -> tuple:
    """``(k / n, low, high)`` as arrays over ``k = 0..n``: :func:`share` for every ``k`` at once."""
    z = _z(level)
    p = np.arange(n + 1) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    lo, hi = np.maximum(0.0, centre - half), np.minimum(1.0, centre + half)
    lo[0], hi[-1] = 0.0, 1.0
    return p, lo, hi


def _bounds(bounds) -> tuple:
    """``bounds`` as ``(low, high)`` floats (``None``: unbounded), or a ``ValueError``."""
    if bounds is None:
        return (-math.inf, math.inf)
    try:
        lo, hi = (float(v) for v in bounds)
    except (TypeError, ValueError):
        raise ValueError(f"bounds must be (low, high), two numbers, got {bounds!r}") from None
    if math.isnan(lo) or math.isnan(hi) or lo > hi:
        raise ValueError(f"bounds must be (low, high) with low <= high, got {bounds!r}")
    return (lo, hi)


class Interval(tuple):
    """``(low, high)``: a plain tuple of two floats that also carries its :class:`Design`
    (``.design``), which a :class:`tempnets.book.claims.Claim` takes to check, before anything is
    trained, that the claim can come out either way."""

    def __new__(cls, low, high, design: Design | None = None):
        self = super().__new__(cls, (float(low), float(high)))
        self.design = design
        return self


def _censored(*arrays) -> tuple:
    """Per group, the runs given as ``inf`` (never reached criterion): a :class:`Design`'s ``censored``."""
    return tuple(int(np.isposinf(a).sum()) for a in arrays)


def _z(level: float) -> float:
    return float(stats.norm.ppf(0.5 + _level(level) / 2))


def _level(level) -> float:
    return checks.real("level", level, low=0.0, high=1.0, low_open=True, high_open=True)


def _whole(name: str, value) -> int:
    """A count of runs: an integer, or a float holding one (a sum of 0/1 outcomes)."""
    if isinstance(value, numbers.Real) and checks.is_finite_real(value) and value == int(value):
        return int(value)
    raise ValueError(f"{name} must be a whole number of runs, got {value!r}")


def _k_of_n(k_name: str, k, n_name: str, n) -> tuple[int, int]:
    """``(k, n)`` after checking they are whole numbers of runs with ``0 <= k <= n``, ``n >= 1``."""
    k, n = _whole(k_name, k), _whole(n_name, n)
    if not 0 <= k <= n or n < 1:
        raise ValueError(f"{k_name} of {n_name} runs needs 0 <= {k_name} <= {n_name} and "
                         f"{n_name} >= 1, got {k_name}={k}, {n_name}={n}")
    return k, n


def _runs(x, name, arg="x") -> np.ndarray:
    a = checks.array(arg, x, finite=False).ravel()
    if a.size == 0:
        raise ValueError(f"{name} needs at least one run, got none")
    if np.isnan(a).any():
        raise ValueError(f"{name}: the run values contain NaN")
    return a


def share(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson score interval for the share ``k / n`` of runs (e.g. runs that solved the task):
    scipy's (``binomtest(k, n).proportion_ci(method="wilson")``), exactly 0 below ``k = 0`` and
    exactly 1 above ``k = n`` (where the formula's rounding may leave a last bit)."""
    k, n = _k_of_n("k", k, "n", n)
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=_level(level), method="wilson")
    lo, hi = max(0.0, float(ci.low)), min(1.0, float(ci.high))
    return Interval(0.0 if k == 0 else lo, 1.0 if k == n else hi, Design("share", (n,), level=level))


def count(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson interval of ``k`` of ``n`` runs on the scale of the count (``n`` times :func:`share`)."""
    lo, hi = share(k, n, level)
    return Interval(n * lo, n * hi, Design("share", (int(n),), unit="count", level=level))


def percent(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson interval of ``k`` of ``n`` runs as a percentage (100 times :func:`share`)."""
    lo, hi = share(k, n, level)
    return Interval(100 * lo, 100 * hi, Design("share", (int(n),), unit="percent", level=level))


def share_note(k: int, n: int, what: str = "runs", level: float = LEVEL) -> str:
    """The note of a claim whose interval is :func:`share`, :func:`count` or :func:`percent`:
    ``"95% interval: Wilson, 3 of 10 runs"`` (at ``level``: :func:`level_name`)."""
    return f"{level_name(level)} interval: Wilson, {_whole('k', k)} of {_whole('n', n)} {what}"


def level_name(level: float = LEVEL) -> str:
    """An interval's level as a note names it: ``"95%"``, or ``"97.5%"`` for the intervals of a
    sequential design of two looks (:mod:`tempnets.book.sequential`)."""
    return f"{100 * _level(level):.4g}%"


def share_difference(k1: int, n1: int, k2: int, n2: int, level: float = LEVEL) -> tuple[float, float]:
    """Newcombe's interval for ``k1/n1 - k2/n2`` (two independent sets of runs)."""
    (k1, n1), (k2, n2) = _k_of_n("k1", k1, "n1", n1), _k_of_n("k2", k2, "n2", n2)
    l1, u1 = share(k1, n1, level)
    l2, u2 = share(k2, n2, level)
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    return Interval(d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
                    d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2),
                    Design("share_difference", (int(n1), int(n2)), level=level))


def mean(x, level: float = LEVEL, bounds=None) -> tuple[float, float]:
    """Student's t interval for the mean of the run values ``x`` (infinite for one run).

    ``bounds``: the values one run can take (e.g. ``(0, 100)`` for a score in %), for the
    interval's :class:`Design`; unbounded when not given."""
    a, level = _runs(x, "mean"), _level(level)
    design = Design("mean", (a.size,), _bounds(bounds), level=level, censored=_censored(a))
    if a.size < 2 or not np.isfinite(a).all():
        return Interval(-math.inf, math.inf, design)
    m, se = float(a.mean()), float(a.std(ddof=1)) / math.sqrt(a.size)
    t = float(stats.t.ppf(0.5 + level / 2, a.size - 1))
    return Interval(m - t * se, m + t * se, design)


def mean_difference(x, y, level: float = LEVEL, bounds=None) -> tuple[float, float]:
    """Welch's t interval for ``mean(x) - mean(y)`` (independent runs, unequal variances);
    ``bounds`` as in :func:`mean` (of one run's value, not of the difference)."""
    a, b = _runs(x, "mean_difference"), _runs(y, "mean_difference", "y")
    level = _level(level)
    design = Design("mean_difference", (a.size, b.size), _bounds(bounds), level=level,
                    censored=_censored(a, b))
    if a.size < 2 or b.size < 2 or not (np.isfinite(a).all() and np.isfinite(b).all()):
        return Interval(-math.inf, math.inf, design)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    d = float(a.mean() - b.mean())
    if va + vb == 0:
        return Interval(d, d, design)
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    half = float(stats.t.ppf(0.5 + level / 2, df)) * math.sqrt(va + vb)
    return Interval(d - half, d + half, design)


def median(x, level: float = LEVEL, bounds=None) -> tuple[float, float]:
    """Distribution-free interval for the median: order statistics ``x_(j) <= x_(k)`` with
    ``P(j <= B < k) >= level`` for ``B ~ Binomial(n, 1/2)``, as narrow and as central as that allows.

    Runs that never reached criterion may be given as ``inf`` (their value is only
    known to exceed the cap); a bound that falls on one of them is ``inf``.  With too
    few runs for the level (``n < 6`` at 95%) the interval is unbounded.  ``bounds`` as in
    :func:`mean`.
    """
    a = np.sort(_runs(x, "median"))
    n = a.size
    design = Design("median", (n,), _bounds(bounds), level=_level(level), censored=_censored(a))
    j = _median_rank(n, _level(level))
    if j == 0:
        return Interval(-math.inf, math.inf, design)
    lo, hi = a[j - 1], a[n - j]  # x_(j) and x_(n - j + 1), 1-based
    return Interval(float(lo), float(hi), design)


def _median_rank(n: int, level: float) -> int:
    """The largest ``j`` with ``P(B <= j - 1) <= alpha``, ``B ~ Binomial(n, 1/2)``: the order
    statistics ``[x_(j), x_(n-j+1)]`` cover the median with at least ``level``; 0 if none do."""
    alpha = (1 - level) / 2
    j = 0
    while j + 1 <= n // 2 and stats.binom.cdf(j, n, 0.5) <= alpha:
        j += 1
    return j


def bootstrap(statistic, *samples, n_resamples: int = 2000, level: float = LEVEL,
              estimator: str = "bootstrap", bounds=None) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic(*samples)`` (each sample resampled with
    replacement, independently), for statistics without a formula: a ratio of medians, say.

    Deterministic (its own stream, seed 0), so the same runs give the same interval on any
    machine.  Not :func:`scipy.stats.bootstrap`: runs that never reached criterion (``inf``)
    make some resampled statistics undefined (``inf / inf``), which its percentile interval
    cannot place (it returns NaN), and it draws its resamples in another order, so every
    recorded interval would move; on finite runs the two agree to within the resampling error
    (``tests/test_sequential.py``).  Runs given as ``inf`` (never reached criterion) are resampled like the others;
    when more than the tail share of resampled statistics is undefined (NaN, e.g.
    ``inf / inf``) the interval is unbounded.
    """
    if not callable(statistic):
        raise TypeError(f"statistic must be a function of the samples, got {statistic!r}")
    arrays = [_runs(s, "bootstrap", "samples") for s in samples]
    n_resamples = checks.count("n_resamples", n_resamples, 1, 10**7)
    level = _level(level)
    design = Design(estimator, tuple(a.size for a in arrays), _bounds(bounds), level=level,
                    censored=_censored(*arrays))
    gen = np.random.default_rng(0)
    values = np.empty(n_resamples)
    with np.errstate(invalid="ignore", divide="ignore"):
        for i in range(n_resamples):
            values[i] = statistic(*(a[gen.integers(0, a.size, a.size)] for a in arrays))
    alpha = (1 - level) / 2
    if np.isnan(values).mean() > alpha:
        return Interval(-math.inf, math.inf, design)
    values = np.sort(np.where(np.isnan(values), np.inf, values))  # undefined: to the top tail
    lo = values[int(math.floor(alpha * (n_resamples - 1)))]
    hi = values[int(math.ceil((1 - alpha) * (n_resamples - 1)))]
    return Interval(float(lo), float(hi), design)


def ratio_of_medians(x, y, level: float = LEVEL) -> tuple[float, float]:
    """Bootstrap interval of ``median(x) / median(y)`` (e.g. how many times slower one model is;
    the runs' values are taken as positive, so the ratio's design spans ``(0, inf)``)."""
    x, y = _runs(x, "ratio_of_medians"), _runs(y, "ratio_of_medians", "y")
    return bootstrap(lambda a, b: np.median(a) / np.median(b), x, y, level=level,
                     estimator="ratio_of_medians", bounds=(0.0, math.inf))
