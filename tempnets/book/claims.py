"""Claims: what a chapter says the paper found, what we found, and whether it holds.

A :class:`Claim` pairs a statement from a paper (with its source: figure,
table or section, and the paper's value) with the value we measured and a
:class:`Check` with an explicit tolerance.  A :class:`ClaimsTable` renders as
an HTML table in Jupyter and in the built book, as text in a terminal, and
:meth:`ClaimsTable.verify` raises :class:`ClaimFailed` naming every claim whose
outcome is not the one the chapter states — so the notebook tests and the book
build fail when a replication stops replicating.

Honest failures are part of the record: a claim the chapter reports as *not*
reproducing is made with ``expected=False``.  It is shown as "does not hold
(reported)", and :meth:`~ClaimsTable.verify` raises if it starts to hold, so
the prose around it cannot go stale silently either.

Uncertainty: a value measured over a few runs (a share of runs, a mean, a
median) carries its 95% ``interval`` (see :mod:`tempnets.book.intervals`), and the
check is applied to the whole interval.  When the interval lies on both sides
of the threshold the outcome is **inconclusive at this scale**: neither holds
nor does not hold.  A chapter that cannot assert a verdict at its scale says so
with ``expected=None``; such a claim is shown with its interval and outcome but
never asserted, since the last bits of another machine's arithmetic may decide
it.  Only decisive verdicts are asserted.

Controls: a claim about something its control never learned (a comparison with a
baseline that learned nothing at the run's budget) tests the budget, not the paper.
Such a claim is made with ``not_tested="why"`` (e.g. ``"the LSTM, the control, solved
no string"``): it is shown with the verdict "not tested: why", its outcome is ``None``
and it is never asserted.  Since whether the control learns is known only after the
run, a chapter that states a verdict (``expected`` True or False) for it is flagged
("NOT TESTED (stated: holds)"), as for an inconclusive one.  :func:`control_gate` gives the
reason for a claim whose control is not *decided and passing* (undecided is not enough), and a
claim made with ``do_nothing=`` (the score of a network that learns nothing) is not tested when
that score passes its test too: such a row says nothing of learning.

Design (issue 32): a claim measured over runs carries the :class:`~tempnets.book.intervals.Design`
of its estimate (the estimator, the runs per group, the range of one run's value), which the
intervals of :mod:`tempnets.book.intervals` attach.  Before anything is trained,
:func:`design_check` works out the verdicts the most and the least favourable outcomes the
design allows would give; a claim that could not come out both "holds" and "does not hold" is
**undecidable by design**: it is shown with its value ("shown, not decided: n = 2 cannot
decide"), its outcome is ``None``, it is never asserted, and a stated verdict is flagged.

Computations: a row that holds for any network (a property of a sampler, an exact count, an
identity) is made with ``kind="computation"``: it checks the code, not the paper, and is shown
in its own group below the replications and counted apart (:meth:`ClaimsTable.counts`).
Screens: a row that compares two of *our* reconstruction's choices (which reading of a paper's
silent detail trains better; source ``"ours (method)"``, no paper value) is made with
``kind="screen"``: it says how we chose, not what the paper found, and is shown and counted apart
in the same way.

Inconclusive rows say why (:attr:`Claim.why_inconclusive`): how far the estimate lies from the
threshold its interval straddles, against the interval's reach on that side, and about how many
runs an effect of that size would need, so that a reader sees whether more runs could decide it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from .._numerics.checks import shown
from .intervals import Design

__all__ = ["OUTCOMES", "NOT_TESTED", "UNDECIDABLE", "KINDS", "CATEGORIES", "COMPUTATIONS", "SCREENS", "RUNS_TRIED",
           "Check", "within", "relative", "at_least", "at_most", "between", "is_true", "Claim",
           "ClaimFailed", "ClaimsTable", "design_check", "runs_needed", "control_gate"]


CHECK_KINDS = ("within", "relative", "at_least", "at_most", "between", "true", "recorded")
"""The kinds of :class:`Check`."""


@dataclass(frozen=True)
class Check:
    """A test of our value, with an explicit tolerance.

    Build one with :func:`within`, :func:`relative`, :func:`at_least`,
    :func:`at_most`, :func:`between` or :func:`is_true`.
    """

    kind: str
    a: float = math.nan
    b: float = math.nan
    text: str = ""  # only for kind "recorded": the test as it was described when it ran

    def __post_init__(self):
        if self.kind not in CHECK_KINDS:
            raise ValueError(f"check kind must be one of {', '.join(CHECK_KINDS)}, got {self.kind!r} "
                             "(build a check with within, relative, at_least, at_most, between or is_true)")
        for name in ("a", "b"):
            value = getattr(self, name)
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise TypeError(f"check {name} must be a number, got {value!r}")
        if not isinstance(self.text, str):
            raise TypeError(f"check text must be a string, got {self.text!r}")

    def holds(self, ours, paper=None) -> bool:
        """Whether ``ours`` passes this check (``paper`` is the reference for tolerance checks)."""
        if self.kind == "true":
            return bool(ours)
        if self.kind == "recorded":
            return bool(self.a)
        if isinstance(ours, bool) or ours is None:
            raise TypeError(f"check '{self.describe()}' needs a number, got {ours!r}")
        x = float(ours)
        if math.isnan(x):
            return False
        if self.kind == "within":
            return abs(x - float(paper)) <= self.a
        if self.kind == "relative":
            return abs(x - float(paper)) <= self.a * abs(float(paper))
        if self.kind == "at_least":
            return x >= self.a
        if self.kind == "at_most":
            return x <= self.a
        if self.kind == "between":
            return self.a <= x <= self.b
        raise ValueError(f"unknown check kind {self.kind!r}")

    def region(self, paper=None) -> tuple[float, float]:
        """The values of ``ours`` that pass, as ``(low, high)`` (a check on a number)."""
        if self.kind in ("within", "relative"):
            tol = self.a if self.kind == "within" else self.a * abs(float(paper))
            return (float(paper) - tol, float(paper) + tol)
        return {"at_least": (self.a, math.inf), "at_most": (-math.inf, self.a),
                "between": (self.a, self.b)}[self.kind]

    def outcome(self, ours, paper=None, interval=None):
        """``True`` (passes), ``False`` (fails) or ``None`` (inconclusive: ``interval``, the
        uncertainty of ``ours``, reaches both values that pass and values that fail)."""
        if self.kind == "recorded":
            return None if self.a == 0.5 else bool(self.a)
        point = self.holds(ours, paper)
        if interval is None:
            return point
        if self.kind == "true":
            raise ValueError("a yes/no check ('ours is true') takes no interval; "
                             "give the number it rests on with a numeric check")
        lo, hi = (float(v) for v in interval)
        if math.isnan(lo) or math.isnan(hi) or lo > hi:
            raise ValueError(f"interval must be (low, high) with low <= high, got {interval!r}")
        a, b = self.region(paper)
        if a <= lo and hi <= b:
            return True
        if hi < a or lo > b:
            return False
        return None

    def describe(self) -> str:
        """Human-readable form of the test, e.g. ``|ours − paper| ≤ 2``."""
        return {
            "within": f"|ours − paper| ≤ {self.a:g}",
            "relative": f"|ours − paper| ≤ {100 * self.a:g}% of paper",
            "at_least": f"ours ≥ {self.a:g}",
            "at_most": f"ours ≤ {self.a:g}",
            "between": f"{self.a:g} ≤ ours ≤ {self.b:g}",
            "true": "ours is true",
            "recorded": self.text,
        }[self.kind]


def _number(name, x) -> float:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)) \
            or math.isnan(x := _as_float(name, x)):
        raise ValueError(f"{name} must be a number, got {x!r}")
    return float(x)


def _interval(statement, interval) -> tuple:
    """A claim's interval as floats (a record's JSON gives ``"inf"`` as a string)."""
    try:
        return tuple(float(v) for v in interval)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"claim {statement!r}: interval must be (low, high), two numbers, "
                        f"got {interval!r:.80}") from None


def _as_float(name, x):
    """``float(x)``, refusing an integer too large for a float (``10**400``) with our error."""
    try:
        return float(x)
    except OverflowError:
        raise ValueError(f"{name} must be a number a float can hold, got an integer of "
                         f"{len(str(abs(x)))} digits") from None


def within(tol: float) -> Check:
    """Holds when ``|ours - paper| <= tol`` (absolute tolerance, same units as the values)."""
    if _number("tol", tol) < 0:
        raise ValueError(f"tol (the tolerance) must be non-negative, got {tol}")
    return Check("within", float(tol))


def relative(rtol: float) -> Check:
    """Holds when ``|ours - paper| <= rtol * |paper|``."""
    if _number("rtol", rtol) < 0:
        raise ValueError(f"rtol (the relative tolerance) must be non-negative, got {rtol}")
    return Check("relative", float(rtol))


def at_least(threshold: float) -> Check:
    """Holds when ``ours >= threshold``."""
    return Check("at_least", _number("threshold", threshold))


def at_most(threshold: float) -> Check:
    """Holds when ``ours <= threshold``."""
    return Check("at_most", _number("threshold", threshold))


def between(low: float, high: float) -> Check:
    """Holds when ``low <= ours <= high``."""
    low, high = _number("low", low), _number("high", high)
    if low > high:
        raise ValueError(f"between needs low <= high, got low={low} > high={high}")
    return Check("between", low, high)


def is_true() -> Check:
    """Holds when ``ours`` is truthy (for qualitative claims measured as a yes/no)."""
    return Check("true")


def _decide(region, interval):
    """The outcome of an interval against the values that pass, ``region`` (as :meth:`Check.outcome`)."""
    (a, b), (lo, hi) = region, interval
    if a <= lo and hi <= b:
        return True
    if hi < a or lo > b:
        return False
    return None


def _possible(region, design: Design) -> set:
    """The outcomes (``True``, ``False``, ``None``) a claim whose passing values are ``region``
    can have under ``design``: over every outcome of a discrete design, or, for a continuous
    one, over the runs that all give one value (the extremes, with a zero-width interval)."""
    if design.discrete:
        return {_decide(region, iv) for _, iv in design.outcomes()}
    span = design.span()
    if span is None:
        return {None}
    (a, b), (lo, hi) = region, span
    out = set()
    if max(a, lo) <= min(b, hi):
        out.add(True)
    if lo < a or hi > b:
        out.add(False)
    return out or {None}


RUNS_TRIED = tuple(range(2, 31)) + tuple(range(35, 101, 5)) + tuple(range(120, 301, 20)) \
    + tuple(range(400, 1001, 100))
"""Numbers of runs :func:`runs_needed` tries, in order."""


def _check_and_design(check, design, optional=False) -> None:
    if not isinstance(check, Check):
        raise TypeError(f"check must be a Check (within, at_least, ...), got {check!r}")
    if not (isinstance(design, Design) or (optional and design is None)):
        raise TypeError(f"design must be a tempnets.book.intervals.Design (an interval's .design), "
                        f"got {design!r}")


def runs_needed(check: "Check", paper, design: Design):
    """The smallest number of runs per group (of :data:`RUNS_TRIED`) at which a claim with this
    check and design could come out both ways, or ``None`` if none could.  A threshold on a
    count of runs stays the same count, unless it is all the runs ("every run"), which it stays."""
    _check_and_design(check, design)
    region = check.region(paper)
    every = design.unit == "count" and design.sizes[0] in region
    for n in RUNS_TRIED:
        bigger = design.resized(n)
        r = tuple(n if every and v == design.sizes[0] else v for v in region)
        if {True, False} <= _possible(r, bigger):
            return n
    return None


def design_check(check: "Check", paper, design: Design | None) -> str:
    """``""`` if a claim with this check and design can come out both "holds" and "does not
    hold"; else why not (the claim is **undecidable by design**), e.g.
    ``"n = 3 cannot decide (it could only fail; n >= 6 could)"``.

    Nothing is trained: the verdicts are those of the most and the least favourable outcomes
    the design allows (all runs succeed or none; the two groups as far apart as the values
    allow).  A claim without a design (one measured value, a yes/no) is taken as decidable."""
    _check_and_design(check, design, optional=True)
    if design is None or check.kind in ("true", "recorded"):
        return ""
    possible = _possible(check.region(paper), design)
    if {True, False} <= possible:
        return ""
    n = design.sizes[0] if len(set(design.sizes)) == 1 else " + ".join(map(str, design.sizes))
    how = ("its interval can never clear the test" if possible == {None}
           else "it could only hold" if True in possible else "it could only fail")
    need = runs_needed(check, paper, design)
    more = (f"n >= {need} per group could" if need and len(design.sizes) > 1 else
            f"n >= {need} could" if need else f"no n up to {RUNS_TRIED[-1]} could")
    return f"n = {n} cannot decide ({how}; {more})"


def control_gate(*controls) -> str:
    """Why a claim that rests on ``controls`` (claims: a baseline that must learn, a network that
    must beat doing nothing) is not tested: ``""`` when every control is decided and holds,
    else the first one that is not, with its verdict.  For ``not_tested=``."""
    for c in controls:
        if c.holds is not True:
            state = {False: "does not hold", None: "is undecided"}[c.holds]
            if c.not_tested:
                state = "is not tested"
            elif c.undecidable:
                state = "is undecidable by design"
            return f"its control ('{c.statement}') {state}"
    return ""


def _fmt_interval(interval) -> str:
    return "[" + ", ".join("∞" if v == math.inf else "−∞" if v == -math.inf else f"{v:.3g}"
                           for v in interval) + "]"


OUTCOMES = {True: "holds", False: "does not hold", None: "inconclusive at this scale"}
"""The words for a claim's outcome."""

UNDECIDABLE = "shown, not decided"
"""The verdict's opening words for a claim undecidable by design (see :func:`design_check`)."""

KINDS = ("replication", "computation", "screen")
"""What a claim is: a replication of the paper, a computation that holds for any network, or a
screen of our own reconstruction's choices (not a claim of the paper)."""

CATEGORIES = ("holds", "does not hold", "inconclusive", "undecidable by design", "not tested")
"""How a claim is counted (:attr:`Claim.category`)."""

NOT_TESTED = "not tested"
"""The outcome of a claim whose control failed (see the module docstring)."""

COMPUTATIONS = "Checks of the code (true of any network; not counted as replications)"
"""The heading of a table's computations (``kind="computation"``)."""

SCREENS = "Screens of our own choices (not claims of the paper; not counted as replications)"
"""The heading of a table's screens (``kind="screen"``)."""

HOPELESS = 100
"""An inconclusive claim that would need more than this many times its runs to decide an effect
of the size measured is said to sit on its threshold (:attr:`Claim.why_inconclusive`)."""


def _runs_to_decide(design: Design, n: int, reach: float, d: float):
    """The runs at which an interval that reaches ``reach`` from its estimate with ``n`` runs
    would reach less than ``d`` (the same spread), or ``None`` beyond :data:`HOPELESS` times ``n``.
    A t interval's half-width is ``q(n) s / sqrt(n)`` with ``q`` the t quantile; the others' ``s /
    sqrt(n)`` up to a constant."""
    if not (math.isfinite(reach) and d > 0):
        return None
    m = np.arange(n + 1, HOPELESS * n + 1)
    if design.estimator in ("mean", "mean_difference") and n > 1:
        from scipy import stats

        q = lambda k: stats.t.ppf(0.5 + design.level / 2, k - 1)  # noqa: E731
        spread = reach * math.sqrt(n) / q(n)
        ok = np.flatnonzero(q(m) * spread / np.sqrt(m) < d)
    else:
        ok = np.flatnonzero(reach * np.sqrt(n / m) < d)
    return int(m[ok[0]]) if ok.size else None


def _verdicts(x) -> bool:
    """Whether ``x`` is a dict from statements to verdicts (str -> str)."""
    return isinstance(x, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in x.items())


def _size(x: float, digits: int = 2) -> str:
    """A number for a sentence: whole with commas from 1,000 (``30,500``), else ``digits``
    significant digits (a distance: ``7.8``, ``0.12``; a value: ``57.17``)."""
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.{max(digits, 3 if abs(x) >= 100 else digits)}g}"


def _fmt(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


@dataclass(frozen=True)
class Claim:
    """One claim of a paper and our measurement of it.

    Parameters
    ----------
    statement : str
        What the paper says, in one sentence.
    source : str
        Where: ``"Figure 4.2"``, ``"Table 1"``, ``"§3.1"``.
    paper : float, str or None
        The paper's value (``None`` or text for qualitative claims).
    ours : float or bool
        Our measured value.
    check : Check
        The test with its tolerance (see :func:`within`, :func:`at_least`, ...).
    expected : bool or None
        ``True`` if the chapter says the claim reproduces; ``False`` if it
        reports honestly that it does not; ``None`` if it cannot say at this
        scale (the claim is shown, never asserted).
    note : str
        Scale, number of runs, or why a claim does not hold.
    interval : (float, float) or None
        95% confidence interval of ``ours`` (:mod:`tempnets.book.intervals`) when it is
        estimated from runs; the check must then hold on all of it.
    not_tested : str
        Empty, or why this run cannot test the claim (its control learned nothing): the
        claim is then shown as "not tested: <reason>" and never asserted.
    design : tempnets.book.intervals.Design or None
        How ``ours`` is estimated from runs; taken from ``interval`` when it carries one.
        A claim that could not come out both ways is undecidable by design (:func:`design_check`).
    kind : str
        ``"replication"`` (default), ``"computation"`` (a row that holds for any network: a
        sampler's property, an exact count or identity) or ``"screen"`` (a comparison of our own
        reconstruction's choices, no claim of the paper); the last two are shown and counted apart.
    do_nothing : float or None
        The value ``ours`` takes for a network that learns nothing (for a comparison with a
        baseline).  Shown with the test; when it passes the test too, the claim is not tested.
    """

    statement: str
    source: str
    paper: object
    ours: object
    check: Check
    expected: bool | None = True
    note: str = ""
    interval: tuple | None = None
    not_tested: str = ""
    design: Design | None = None
    kind: str = "replication"
    do_nothing: float | None = None

    def __post_init__(self):
        if not isinstance(self.not_tested, str):
            raise TypeError(f"claim {self.statement!r}: not_tested must be a str (why the run "
                            f"cannot test the claim, or ''), got {self.not_tested!r}")
        if self.expected not in (True, False, None):
            raise ValueError(f"claim {self.statement!r}: expected must be True, False or None, "
                             f"got {self.expected!r}")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.statement!r}: kind must be one of {', '.join(KINDS)}, "
                             f"got {self.kind!r}")
        if self.design is None and getattr(self.interval, "design", None) is not None:
            object.__setattr__(self, "design", self.interval.design)
        if self.design is not None and not isinstance(self.design, Design):
            raise TypeError(f"claim {self.statement!r}: design must be a tempnets.book.intervals.Design, "
                            f"got {self.design!r}")
        if self.interval is not None:
            object.__setattr__(self, "interval", _interval(self.statement, self.interval))
        if not isinstance(self.check, Check):
            raise TypeError(f"check must be a tempnets.book.claims.Check (e.g. within(2.0)), got {self.check!r}")
        if isinstance(self.ours, str) and self.check.kind not in ("true", "recorded"):
            raise TypeError(f"claim {self.statement!r}: ours must be a number for the check "
                            f"'{self.check.describe()}', got the text {self.ours[:40]!r}")
        if self.check.kind in ("within", "relative") and not isinstance(self.paper, (int, float)):
            raise ValueError(
                f"claim {self.statement!r}: check '{self.check.describe()}' compares with the "
                f"paper's value, which must be a number, got {self.paper!r}"
            )
        if self.do_nothing is not None:
            object.__setattr__(self, "do_nothing", _number("do_nothing", self.do_nothing))
            if not self.not_tested and self.check.holds(self.do_nothing, self.paper):
                object.__setattr__(self, "not_tested", f"a network that learns nothing "
                                   f"({_fmt(self.do_nothing)}) passes this test too")
        object.__setattr__(self, "_undecidable", design_check(self.check, self.paper, self.design))

    @property
    def undecidable(self) -> str:
        """``""``, or why the claim's design cannot decide it (:func:`design_check`)."""
        return self._undecidable

    @property
    def measured(self):
        """The outcome of the check on our value and interval, whatever the design allows
        (``None``: inconclusive or not tested)."""
        if self.not_tested:
            return None
        return self.check.outcome(self.ours, self.paper, self.interval)

    @property
    def category(self) -> str:
        """How the claim counts (:data:`CATEGORIES`)."""
        if self.not_tested:
            return "not tested"
        if self.undecidable:
            return "undecidable by design"
        return {True: "holds", False: "does not hold", None: "inconclusive"}[self.holds]

    @property
    def holds(self):
        """Whether our value passes the check: ``True``, ``False``, or ``None`` when its
        interval straddles the threshold (inconclusive), the claim is not tested, or its design
        cannot decide it (:attr:`undecidable`)."""
        if self.undecidable:
            return None
        return self.measured

    @property
    def verdict(self) -> str:
        """``holds``, ``does not hold (reported)``, ``inconclusive at this scale``,
        ``not tested: <reason>``, or a flag (``FAILS``, ``UNEXPECTEDLY HOLDS``, ...) when the
        outcome is not the one stated."""
        if self.not_tested:
            if self.expected is None:
                return f"{NOT_TESTED}: {self.not_tested}"
            return "NOT TESTED (stated: " + ("holds)" if self.expected else "does not hold)")
        if self.undecidable:
            if self.expected is None:
                shows = {True: "holds", False: "does not hold", None: "inconclusive"}[self.measured]
                return f"{UNDECIDABLE}: {self.undecidable}; shows: {shows}"
            return "UNDECIDABLE BY DESIGN (stated: " + ("holds)" if self.expected else "does not hold)")
        got = self.holds
        if self.expected is None:
            return OUTCOMES[got]
        if got == self.expected:
            return "holds" if got else "does not hold (reported)"
        if got is None:
            return "INCONCLUSIVE (stated: " + ("holds)" if self.expected else "does not hold)")
        return "FAILS" if self.expected else "UNEXPECTEDLY HOLDS"

    @functools.cached_property
    def why_inconclusive(self) -> str:
        """``""`` unless the claim is inconclusive; then why, e.g. ``"22 is 8 from the threshold
        30, inside the interval's reach (8.5) at n = 20: about 23 runs would decide an effect this
        size"``.

        The threshold is the edge of the passing values that the interval straddles nearest the
        estimate; the reach is the interval's extent from the estimate towards it.  The runs
        needed assume the spread stays as measured and the interval narrows as one over the square
        root of the runs (for a t interval, with its quantile shrinking too): a forecast, not a
        promise.  For a design whose threshold is a count of runs other than 0, or that would
        need more than :data:`HOPELESS` times its runs, none is given."""
        if self.category != "inconclusive" or self.interval is None or self.check.kind in ("true", "recorded"):
            return ""
        x, (lo, hi) = float(self.ours), self.interval
        edges = [t for t in self.check.region(self.paper) if math.isfinite(t) and lo <= t <= hi]
        if not edges or not lo <= x <= hi:
            return f"its interval {_fmt_interval(self.interval)} reaches both sides of the test"
        t = min(edges, key=lambda e: abs(e - x))
        d, reach = abs(x - t), (hi - x if t >= x else x - lo)
        say = (f"{_size(x, 4)} is {_size(d)} from the threshold {_size(t, 4)}, inside the interval's "
               f"reach ({_size(reach)})")
        design = self.design
        if design is None:
            return say
        n = min(design.sizes)
        say += f" at n = {n}"
        if design.unit == "count" and design.discrete and t != 0:
            return say + " (a count of runs: more runs change what it counts)"
        need = _runs_to_decide(design, n, reach, d)
        if need is None:
            return say + f": it sits on its threshold (an effect this size needs over {HOPELESS}× the runs)"
        return say + f": about {need} runs would decide an effect this size"

    @property
    def as_expected(self) -> bool:
        """The outcome is the one the chapter states (always, for a claim it does not assert)."""
        if self.expected is None:
            return True
        return not self.not_tested and not self.undecidable and self.holds == self.expected


class ClaimFailed(AssertionError):
    """One or more claims did not come out as the chapter states."""


@dataclass
class ClaimsTable:
    """An ordered set of claims for one experiment, rendered as a table."""

    title: str = "Claims"
    claims: list = field(default_factory=list)

    robustness: dict | None = None
    """Optional: statement -> ``{verdict: number of seeds}`` from a robustness record
    (:func:`tempnets.book.experiments.robustness`), shown as a column."""

    paper_scale: dict | None = None
    """Optional: statement -> the claim's verdict in the experiment's paper-scale record
    (:func:`tempnets.book.experiments.paper_verdicts`), shown under a book-scale row's verdict, so that
    a row its scale cannot decide shows what more runs decided."""

    def __post_init__(self):
        if not isinstance(self.title, str):
            raise TypeError(f"title must be a str, got {type(self.title).__name__}")
        if not isinstance(self.claims, list) or not all(isinstance(c, Claim) for c in self.claims):
            raise TypeError("claims must be a list of tempnets.book.claims.Claim (made by add()), got "
                            f"{type(self.claims).__name__}")
        if self.robustness is not None and not isinstance(self.robustness, dict):
            raise TypeError("robustness must be None or a dict from statement to verdict counts, "
                            f"got {type(self.robustness).__name__}")
        if self.paper_scale is not None and not _verdicts(self.paper_scale):
            raise TypeError("paper_scale must be None or a dict from a claim's statement to its verdict "
                            f"at paper scale (str -> str), got {shown(self.paper_scale)}")

    def add(self, statement, source, paper, ours, check, expected=True, note="",
            interval=None, not_tested="", design=None, kind="replication", do_nothing=None) -> Claim:
        """Create a :class:`Claim` (same parameters), append it and return it."""
        claim = Claim(statement, source, paper, ours, check, expected, note, interval, not_tested,
                      design, kind, do_nothing)
        self.claims.append(claim)
        return claim

    @classmethod
    def from_rows(cls, title: str, rows: list) -> "ClaimsTable":
        """Rebuild a table from :meth:`rows` (e.g. a recorded paper-scale run) for display.

        Each claim keeps the verdict it had when it ran (its check is of kind
        ``"recorded"``), so :meth:`verify` still says whether every claim came
        out as the chapter stated at that time.
        """
        table = cls(title)
        for r in rows:
            got = r.get("shows") if r.get("undecidable") else r["holds"]
            outcome = 0.5 if got is None else float(bool(got))
            claim = table.add(r["statement"], r["source"], r["paper"], r["ours"],
                              Check("recorded", outcome, text=r["test"]),
                              r["expected"], r.get("note", ""), r.get("interval"), r.get("not_tested", ""),
                              kind=r.get("kind", "replication"))
            if r.get("undecidable"):  # as recorded: its design could not decide it
                object.__setattr__(claim, "_undecidable", r["undecidable"])
        return table

    def rows(self) -> list[dict]:
        """The table as plain records (for JSON output); ``not_tested``, ``undecidable`` (with
        ``shows``, what the runs showed), ``kind`` (a computation or a screen),
        ``why_inconclusive`` and ``do_nothing`` only where set."""
        return [
            {"statement": c.statement, "source": c.source, "paper": c.paper, "ours": c.ours,
             "test": c.check.describe(), "expected": c.expected, "holds": c.holds,
             "verdict": c.verdict, "note": c.note,
             "interval": None if c.interval is None else list(c.interval),
             **({"not_tested": c.not_tested} if c.not_tested else {}),
             **({"undecidable": c.undecidable, "shows": c.measured} if c.undecidable else {}),
             **({"kind": c.kind} if c.kind != "replication" else {}),
             **({"why_inconclusive": why} if (why := c.why_inconclusive) else {}),
             **({"do_nothing": c.do_nothing} if c.do_nothing is not None else {})}
            for c in self.claims
        ]

    def counts(self, kind: str = "replication") -> dict:
        """How many claims of ``kind`` fall in each of :data:`CATEGORIES`."""
        out = dict.fromkeys(CATEGORIES, 0)
        for c in self.claims:
            if c.kind == kind:
                out[c.category] += 1
        return out

    def undecidable(self) -> list[Claim]:
        """The claims whose design cannot decide them (:func:`design_check`)."""
        return [c for c in self.claims if c.undecidable]

    def _groups(self) -> list:
        """``(heading or None, claims)``: the replications, then the screens and the computations
        under their headings."""
        group = {k: [c for c in self.claims if c.kind == k] for k in KINDS}
        return [(None, group["replication"])] + [(h, group[k]) for k, h in
                                                 (("screen", SCREENS), ("computation", COMPUTATIONS)) if group[k]]

    def with_robustness(self, counts: dict) -> "ClaimsTable":
        """This table with a column "over seeds" from a robustness record's ``counts``
        (statement -> {outcome: seeds}); returns self."""
        self.robustness = counts
        return self

    def with_paper_scale(self, verdicts: dict) -> "ClaimsTable":
        """This table with each row's verdict at paper scale (statement -> verdict, e.g. from
        :func:`tempnets.book.experiments.paper_verdicts`) shown under its own; returns self."""
        if not _verdicts(verdicts):
            raise TypeError("verdicts must be a dict from a claim's statement to its verdict at paper "
                            f"scale (str -> str), got {shown(verdicts)}")
        self.paper_scale = verdicts
        return self

    def paper_scale_cell(self, c: Claim) -> str:
        """``"at paper scale: holds"``, or ``""`` when the paper-scale record makes no such claim."""
        v = (self.paper_scale or {}).get(c.statement)
        return f"at paper scale: {v}" if v else ""

    def seeds_cell(self, c: Claim) -> str:
        """E.g. ``holds in 9/10 seeds`` (the most frequent outcome first)."""
        counts = (self.robustness or {}).get(c.statement)
        if not counts:
            return "—"
        n = sum(counts.values())
        parts = sorted(counts.items(), key=lambda kv: -kv[1])
        return "; ".join(f"{k} in {v}/{n}" for k, v in parts) + " seeds"

    def failures(self) -> list[Claim]:
        """Claims whose outcome differs from what the chapter states."""
        return [c for c in self.claims if not c.as_expected]

    def verify(self) -> "ClaimsTable":
        """Raise :class:`ClaimFailed` naming every claim not as expected; else return self."""
        bad = self.failures()
        if bad:
            lines = [f"{len(bad)} of {len(self.claims)} claims in '{self.title}' did not come out as stated:"]
            for c in bad:
                lines.append(f"  - [{c.source}] {c.statement}: paper {_fmt(c.paper)}, ours {_fmt(c.ours)}, "
                             f"test {c.check.describe()} -> {c.verdict}")
            raise ClaimFailed("\n".join(lines))
        return self

    @property
    def interval_header(self) -> str:
        """The heading of the column of our values: ``"ours [95% interval]"``, or the level the
        table's intervals share when a sequential design widened them (several levels: each
        row's test says its own)."""
        levels = {round(100 * c.design.level, 2) for c in self.claims if c.design is not None}
        if not levels or levels == {95.0}:
            return "ours [95% interval]"
        return f"ours [{levels.pop():g}% interval]" if len(levels) == 1 else "ours [interval]"

    @property
    def _head(self) -> tuple:
        head = ("claim", "source", "paper", self.interval_header, "test", "verdict")
        return head + (("over seeds",) if self.robustness else ())

    def _cells(self, c: Claim) -> tuple:
        ours = _fmt(c.ours) + ("" if c.interval is None else " " + _fmt_interval(c.interval))
        test = c.check.describe() + ("" if c.do_nothing is None else
                                     f"; doing nothing: {_fmt(c.do_nothing)}")
        if c.design is not None:
            test += f" ({c.design.describe()})"
        why, paper = c.why_inconclusive, self.paper_scale_cell(c)
        verdict = c.verdict + (f" ({why})" if why else "") + (f"; {paper}" if paper else "")
        cells = (c.statement + (f" ({c.note})" if c.note else ""), c.source, _fmt(c.paper),
                 ours, test, verdict)
        return cells + ((self.seeds_cell(c),) if self.robustness else ())

    def __str__(self) -> str:
        head = self._head
        rows = [head] + [self._cells(c) for c in self.claims]
        widths = [min(max(len(r[i]) for r in rows), 60 if i == 0 else 40) for i in range(len(head))]
        fmt = lambda r: "  ".join(s[:w].ljust(w) for s, w in zip(r, widths)).rstrip()
        lines = [self.title, fmt(rows[0]), "  ".join("-" * w for w in widths)]
        for heading, group in self._groups():
            lines += [heading] if heading else []
            lines += [fmt(self._cells(c)) for c in group]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The table as a notebook and the book show it (:func:`tempnets.book.claims_view.to_html`):
        a forest plot, the table, its notes as footnotes."""
        from .claims_view import to_html

        return to_html(self)
