"""Sequential designs: networks added in groups until every claim is decided, or a stated cap.

Issue 32, item 4.  A claim measured over runs is decided only when its 95% interval lies on one
side of its test (:mod:`tempnets.book.claims`).  How many runs that takes depends on the effect, which
is known only after the runs.  A *sequential design* trains a first group of networks, looks at the
claims, and adds a group at a time until every claim it watches is decided, or a cap fixed in
advance is reached:

* the **plan** (:class:`Plan`) is fixed before any network is trained: the networks at the first
  look, the size of each later group, the cap, and so the number of planned looks ``K``;
* **every interval at every look is computed at level** ``1 - 0.05 / K`` (Bonferroni over the
  planned looks): the chance that any of the ``K`` looks' intervals misses the true value is at
  most 5%, so the verdict reached at whichever look the design stops at is wrong with at most the
  5% of a single fixed-``n`` interval, however the stopping look was chosen;
* the **record** states the rule, the ``n`` it stopped at, and why it stopped (:func:`run`):
  "every watched claim decided at look 2 of 4", or "the cap (1,000 runs) reached with 1 claim
  undecided: ...".

Looking costs nothing but the level: at the cap the intervals are wider than a fixed design of the
cap's ``n`` would give.  Bonferroni is conservative (the looks are nested, not independent), which
only errs on the side of "inconclusive".

Reference: Jennison & Turnbull, *Group Sequential Methods with Applications to Clinical Trials*
(2000), §2 (repeated confidence intervals) and the Bonferroni bound on the error over ``K`` looks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._numerics import checks
from .intervals import LEVEL
from .scale import get_scale

__all__ = ["ERROR", "Plan", "plan_for", "undecided", "run", "level_of"]

MAX_LOOKS = 1000
"""The most looks a plan may have (each look re-derives every claim)."""

ERROR = 1 - LEVEL
"""The error rate held over all the looks of a plan (5%)."""


@dataclass(frozen=True)
class Plan:
    """The looks of a sequential design, fixed before any network is trained.

    Parameters
    ----------
    first : int
        Networks (runs) at the first look.
    group : int
        Networks added before each later look.
    cap : int
        The most networks: the last look is at ``cap`` (a last group may be smaller).
    error : float
        The error rate held over all the looks (each look's intervals at ``1 - error / looks``).
    """

    first: int
    group: int
    cap: int
    error: float = ERROR

    def __post_init__(self):
        for name in ("first", "group", "cap"):
            object.__setattr__(self, name, checks.count(name, getattr(self, name), 1))
        if self.cap < self.first:
            raise ValueError(f"cap must be at least first (the networks at the first look), got "
                             f"cap={self.cap} < first={self.first}")
        object.__setattr__(self, "error", checks.real("error", self.error, low=0.0, high=1.0,
                                                      low_open=True, high_open=True))
        looks = -(-(self.cap - self.first) // self.group) + 1
        if looks > MAX_LOOKS:
            raise ValueError(f"a plan of first={self.first}, group={self.group}, cap={self.cap} "
                             f"has {looks:,} looks; at most {MAX_LOOKS} are allowed (a larger group)")

    @property
    def sizes(self) -> tuple:
        """The number of networks at each look: ``first``, then ``+ group`` each look, ``cap`` last."""
        return tuple(range(self.first, self.cap, self.group)) + (self.cap,)

    @property
    def looks(self) -> int:
        """The number of planned looks, ``K``."""
        return len(self.sizes)

    @property
    def level(self) -> float:
        """The level of every interval at every look: ``1 - error / K``."""
        return 1 - self.error / self.looks

    def rule(self, what: str = "networks") -> str:
        """The rule in words, for the record."""
        sizes = ", ".join(f"{n:,}" for n in self.sizes)
        if self.looks == 1:
            return f"a fixed design: {self.cap:,} {what}, one look, {100 * self.level:g}% intervals"
        return (f"a sequential design: {what} in groups, looks at n = {sizes} ({self.looks} planned "
                f"looks); every interval at {100 * self.level:.4g}% (Bonferroni: "
                f"{100 * self.error:g}% over the {self.looks} looks); stops at the first look where "
                f"every claim it watches is decided (holds or does not hold), or at the cap")


def plan_for(scale, n: int, plan: Plan | None = None) -> Plan:
    """The design an experiment runs at ``scale`` (:func:`tempnets.book.scale.get_scale`): at paper
    scale its sequential ``plan``, when it has one; otherwise a fixed design of ``n`` networks,
    ``Plan(n, n, n)``: one look, its intervals at 95%.  One design path serves both scales."""
    if plan is not None and not isinstance(plan, Plan):
        raise TypeError(f"plan must be None or a tempnets.book.sequential.Plan, got {plan!r}")
    if plan is not None and get_scale(scale) == "paper":
        return plan
    n = checks.count("n", n, 1)
    return Plan(n, n, n)


def undecided(table, watch=None) -> list:
    """The statements of the claims of ``table`` (a :class:`~tempnets.book.claims.ClaimsTable`) that
    more networks could still decide: a replication that is inconclusive or undecidable by design
    (its outcome is ``None``) and not *not tested*.  ``watch``, if given, is a function of a claim
    saying whether the design waits for it (claims about other networks it does not add)."""
    from .claims import ClaimsTable

    if not isinstance(table, ClaimsTable):
        raise TypeError(f"table must be a tempnets.book.claims.ClaimsTable, got {type(table).__name__}")
    if watch is not None and not callable(watch):
        raise TypeError(f"watch must be None or a function of a claim, got {type(watch).__name__}")
    return [c.statement for c in table.claims
            if c.kind == "replication" and c.holds is None and not c.not_tested
            and (watch is None or watch(c))]


def run(plan: Plan, train, claims, watch=None, what: str = "networks") -> tuple:
    """Run a sequential design: ``train(start, stop)`` trains networks ``start .. stop - 1`` and
    returns their results (a list, one per network); ``claims(results, level)`` makes the claims
    table from all the results so far, its intervals at ``level``.

    Returns ``(results, design)``: every network's result, and the record of the design
    (``rule``, ``n``, ``look``, ``looks``, ``level``, ``sizes``, ``stopped`` (why, in words),
    ``undecided`` (the watched claims still undecided when it stopped) and ``history`` (the
    undecided claims at each look)).  The networks of a look are those of the look before and
    more: a network's result never depends on when it was looked at."""
    if not isinstance(plan, Plan):
        raise TypeError(f"plan must be a tempnets.book.sequential.Plan, got {plan!r}")
    results, history = [], []
    for look, n in enumerate(plan.sizes, 1):
        more = train(len(results), n)
        if len(more) != n - len(results):
            raise ValueError(f"train({len(results)}, {n}) must return {n - len(results)} results, "
                             f"got {len(more)}")
        results += list(more)
        still = undecided(claims(results, plan.level), watch)
        history.append({"n": n, "undecided": still})
        if not still:
            stopped = (f"every claim it watches is decided at look {look} of {plan.looks} "
                       f"(n = {n:,})")
            break
    else:
        stopped = (f"the cap ({plan.cap:,} {what}) reached with {len(still)} claim"
                   f"{'' if len(still) == 1 else 's'} undecided: " + "; ".join(still))
    design = {"rule": plan.rule(what), "n": n, "look": look, "looks": plan.looks,
              "level": plan.level, "sizes": list(plan.sizes), "stopped": stopped,
              "undecided": still, "history": history}
    return results, design


def level_of(data) -> float:
    """The level of a run's intervals: that of its sequential design (``data["design"]``, as
    :func:`run` records it), or :data:`~tempnets.book.intervals.LEVEL` for a fixed design."""
    design = data.get("design") if isinstance(data, dict) else None
    if not design:
        return LEVEL
    if not isinstance(design, dict):
        raise ValueError(f"data['design'] must be a sequential design's record (a dict), got "
                         f"{type(design).__name__}")
    level = design.get("level")
    if not isinstance(level, float) or not 0 < level < 1 or math.isnan(level):
        raise ValueError(f"data['design']['level'] must be a number in (0, 1), got {level!r}")
    return level
