"""What the ``mozer-rates`` search starts from, its sizes, plan and stated verdicts, and each
task's training settings (:mod:`tempnets.chapters.mozer_rates`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...training import focused_training as T
from ...book import sequential
from ...tasks import verbs as V
from ..._numerics import checks
from ..focused_backprop import RATES, SIZES

START = (0.75, 0.02, 100.0)
"""Where the paper-scale search starts: μ and ρ at the paper's "0.75" and "generally 0.02",
ω (not printed) at our default 100."""

STEPS = (0.25, 2.0, 10.0)
"""One step of the search along each axis: μ ± 0.25 (μ ≥ 0), ρ × or ÷ 2, ω × or ÷ 10."""

MAX_ROUNDS = 8
"""The cap on the search's moves (each evaluates the unseen neighbours of the best setting)."""

BOOK_GRID = ((0.75, 0.02, 100.0), (1.0, 0.04, 100.0))
"""The book-scale grid: two settings, evaluated without moving, so that the chapter's tests run
in seconds (nothing at book scale is asserted)."""

TASKS = ("verbs", "delay1", "delay4")
"""The tasks searched: regular verbs (Figure 4), sequence reproduction at delays 1 and 4 (Table 3)."""

ARCHS = ("focused", "full")


@dataclass(frozen=True)
class RateSizes:
    """Networks per setting in the search, networks measuring the claims, epoch budgets."""

    select_runs: int
    runs: int
    verbs_epochs: int
    delay1_epochs: int
    delay4_epochs: int

    def epochs(self, task: str) -> int:
        """The epoch budget (the cap, for sequence reproduction) of ``task``."""
        return {"verbs": self.verbs_epochs, "delay1": self.delay1_epochs, "delay4": self.delay4_epochs}[task]


RATE_SIZES = {
    "book": RateSizes(select_runs=2, runs=4, verbs_epochs=500, delay1_epochs=2000, delay4_epochs=3000),
    # 30 measuring runs at the first look: with the paper's 15, "delay 4: focused learns
    # perfectly more often than full" (0 of 15 against 0 of 15) was inconclusive, its interval
    # reaching the 20-point threshold by 0.4, and about 16 runs decide that difference, so the
    # paper scale measured 30 (issue 32); the t-tests still use the first 15, the paper's design.
    # That record left one row undecided, so more runs now come from the sequential design of
    # PLANS, whose first look is these 30.  The untuned records train more (60 verbs, 120 or
    # more reproduction runs) and their first runs are these networks (each run's stream does not
    # depend on how many are trained), so the comparison uses those.
    "paper": RateSizes(select_runs=5, runs=30,
                       verbs_epochs=SIZES["mozer-verbs"]["paper"].epochs,
                       delay1_epochs=SIZES["mozer-reproduce"]["paper"].epochs,
                       delay4_epochs=SIZES["mozer-reproduce"]["paper"].epochs_delay4),
}
"""Sizes per scale; the paper scale measures 30 networks at its first look, more by the sequential
design of :data:`PLANS` (the paper's 15 for its t-tests), with the untuned records' budgets, and
from their streams: the first networks of ``mozer-reproduce`` and ``mozer-verbs``, which train as
many or more (:func:`untuned_tables`)."""

# The plan below was fixed, and committed, after its first look had been seen: the fixed record
# of 30 measuring runs, whose one undecided row, "delay 1: the full runs learn the task
# perfectly" (27 of 30, 90%, against the bound 75%), is why it exists.  That look counts as look
# 1 of the K planned looks, so its intervals too are at 1 - 0.05 / K; K = 2.  Power at the
# measured share: with a true 90%, 60 runs decide the row (Wilson at 97.5%) with probability
# 0.75 (0.61 with three looks at 98.3%).  The cap is 60 because the untuned comparison
# (:func:`untuned_tables`) cuts mozer-verbs, which trains 60, to as many runs as were tuned;
# the measuring runs take about 1 s each (six networks), so the record stays near 7 minutes
# (the search, about 5, is done once, before the first look).
PLANS = {"mozer-rates": sequential.Plan(30, 30, 60)}
"""Paper scale: the sequential design (:mod:`tempnets.book.sequential`) of the measuring runs, one
"run" being network ``k`` of every task and architecture, trained with the chosen rates; every
interval of the record is at the plan's level (:func:`tempnets.book.sequential.level_of`).  The search
is not part of it: its networks and choices are fixed before the first look."""

EXPECT = {
    # paper scale: with 30 runs the full network's share (27 of 30, 74-97%) straddled 75%; the
    # sequential design's 60 decide it (53 of 60, 76-95% at 97.5%)
    "delay1-learns": {"focused": {"book": None, "paper": True}, "full": {"book": None, "paper": True}},
    "delay1-epochs": {"focused": {"book": None, "paper": False}, "full": {"book": None, "paper": False}},
    "delay1-p": {"book": None, "paper": False},
    "delay4-perfect": {"focused": {"book": None, "paper": False}, "full": {"book": None, "paper": False}},
    "delay4-difference": {"book": None, "paper": False},  # 60 runs: 0 of 60 against 0 of 60
    "delay4-mean": {"focused": {"book": None, "paper": False}, "full": {"book": None, "paper": None}},
    "delay4-full-above-zeros": {"book": None, "paper": True},
    "delay4-focused-higher": {"book": None, "paper": False},
    "delay4-p": {"book": None, "paper": False},
    "verbs-learns": {"focused": {"book": None, "paper": True}, "full": {"book": None, "paper": True}},
    "verbs-full-quicker": {"book": None, "paper": True},
}
"""What the chapter states for each tuned claim per scale (``None``: shown, not asserted).

Paper scale: the verdicts of the recorded run (seed 0).  Book scale: nothing is asserted; its
grid of two settings and short budgets only exercise the code (the tests, the robustness record)."""


def _sequences(task: str):
    if task == "verbs":
        return V.verb_task(V.regular_verbs(), 3)
    return V.reproduction_task(int(task[-1]))


def task_config(task: str, mu: float, rho: float, omega: float) -> T.FocusedConfig:
    """The training settings of ``task`` (one of :data:`TASKS`) with the rates μ, ρ, ω.

    Everything but the rates is the chapter's (:data:`~tempnets.chapters.focused_backprop.RATES`):
    argmax scoring for the verbs; quantised scoring, Jordan feedback and a stop at perfect
    performance for sequence reproduction.
    """
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
    mu, rho, omega = (checks.real(k, v) for k, v in (("mu", mu), ("rho", rho), ("omega", omega)))
    base = RATES["verbs"] if task == "verbs" else RATES["reproduce"]
    return replace(base, mu=float(mu), rho=float(rho), omega=float(omega)).validate()
