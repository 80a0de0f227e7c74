"""The sizes, plans and learning rates of the focused back-propagation chapter, and the
paper's printed numbers (:mod:`tempnets.chapters.focused_backprop`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book import sequential
from ...training import focused_training as T
from ..._numerics.checks import count

PAPER = {
    "dear_median_epochs": 488, "dear_runs": 50,
    "verbs_runs": 15, "reversed_full_best": 75.0, "verbs_context_connections": 6,
    "reproduce_delay1_epochs": {"focused": 767, "full": 620}, "reproduce_delay1_t": 0.958,
    "reproduce_delay4_perfect": {"focused": 12, "full": 2}, "reproduce_runs": 15,
    "reproduce_delay4_mean": {"focused": 98.5, "full": 72.9}, "reproduce_delay4_t": 8.42,
    "reproduce_max_epochs": 15000,
    "large_weights": {"focused": 613, "full": 621}, "large_runs": 10,
    "figure5_largest_decay": 0.02, "flops_ratio": 2 / 3,
}
"""The paper's printed numbers."""

RATES = {
    "dear": T.FocusedConfig(mu=1.0, rho=0.02),
    "verbs": T.FocusedConfig(mu=0.75, rho=0.02),
    "reproduce": T.FocusedConfig(mu=0.5, rho=0.1, score="quantised", feedback=3, stop_at_criterion=True),
    "large": T.FocusedConfig(mu=0.5, rho=0.05),
}
"""Training settings per task (both architectures; ω = 100)."""

EXPECT = {
    "dear-most-learn": {"book": True, "paper": True},
    "dear-median": {"book": None, "paper": True},
    "dear-arbe": {"paper": {"book": False, "paper": False}, "fig3": {"book": False, "paper": False}},
    "dear-daer": {"paper": {"book": False, "paper": False}, "fig3": {"book": False, "paper": False}},
    "dear-none-kept": {"paper": {"book": True, "paper": True}, "fig3": {"book": False, "paper": False}},
    "verbs-full-quicker": {"book": None, "paper": False},
    "verbs-unvoiced": {"book": None, "paper": True},
    "reversed-slower": {"book": None, "paper": True},
    "reversed-full-fails": {"book": True, "paper": False},
    "reversed-full-learns-some": {"book": True, "paper": True},
    "reproduce-delay1-learn": {"focused": {"book": None, "paper": True}, "full": {"book": None, "paper": True}},
    "reproduce-delay4-full-some": {"book": False, "paper": False},
    "reproduce-delay4-focused": {"book": None, "paper": False},
    "reproduce-delay4-difference": {"book": None, "paper": True},
    "reproduce-delay4-full-above-zeros": {"book": False, "paper": None},
    "large-learns": {"focused": {"book": True, "paper": True}, "full": {"book": None, "paper": True}},
    "large-ring": {"focused": {"book": False, "paper": False}, "full": {"book": None, "paper": True}},
}
"""What the chapter states per scale for the claims whose interval (95%; at paper scale, the
level of the experiment's sequential design, :data:`PLANS`) may straddle their threshold
(``None``: inconclusive at that scale, shown and not asserted)."""




FULL_SWEEP = ((0.75, 0.02), (1.0, 0.02), (1.0, 0.05), (0.5, 0.05))
"""(μ, ρ) settings tried for the full network on reversed verbs ("a wide range of learning rate
parameters"): its best single run over all of them is the claim."""


@dataclass(frozen=True)
class Sizes:
    """Runs per condition and epochs (the cap, where training stops at criterion)."""

    runs: int
    epochs: int
    epochs_delay4: int = 0


SIZES = {
    "mozer-dear": {"book": Sizes(50, 3000), "paper": Sizes(150, 5000)},
    # With the paper's 15 runs, 11 (73.3%) had a unit coding "final phoneme unvoiced", and the
    # 95% interval (48% to 89%) straddled the bound 50%: inconclusive.  At that share about 18
    # runs decide it; the paper scale trains 60, which decide it 97 times in 100 if the share is
    # as measured (fixed before the run, never raised after it).  Runs 0-14 are the same.
    "mozer-verbs": {"book": Sizes(15, 2000), "paper": Sizes(60, 2000)},
    # 60 per condition was the fixed record before the sequential design of PLANS: ``runs`` is
    # its first look.
    "mozer-reversed": {"book": Sizes(15, 2000), "paper": Sizes(60, 5000)},
    # With the paper's 15 runs, 13 of each network (86.7%) learned delay 1 perfectly, an interval
    # (62% to 96%) across the bound 75%, and the focused network's margin of perfect runs at delay
    # 4 (5 against 0) was undecided.  At those shares about 67 runs decide delay 1; 120 were
    # trained.  That record left two rows undecided, so at paper scale the runs now come from the
    # sequential design of PLANS (its first look is these 120 runs); ``runs`` is its first look.
    "mozer-reproduce": {"book": Sizes(15, 5000, 15000), "paper": Sizes(120, 5000, 15000)},
    # The paper shows one network's "typical responses" to ring and bring (Figure 9); 10 runs of
    # each kind got both right in 10 of 20 networks, undecided: the sequential design of PLANS
    # adds runs from there (10 is its first look).
    "mozer-large-verbs": {"book": Sizes(4, 1500), "paper": Sizes(10, 5000)},
}
"""Runs and epochs of each experiment.  At paper scale DEAR trains 150 networks (the paper: 50),
the regular verbs 60 (the paper: 15), and the reversed verbs, sequence reproduction and the
large verb set start from 60 per condition, 120 (the paper: 15) and 10 (the paper shows one)
and add networks by the sequential designs of :data:`PLANS`: with the paper's numbers, the
intervals of DEAR's median epochs, of the reversed verbs' ratio of medians and full-network
mean, of the share of runs with an "unvoiced" unit and of the shares that learn sequence
reproduction straddled their thresholds (issue 32: enough
networks that each claim can decide).  150 decide DEAR's median.  Network ``k`` draws from a
stream that does not depend on how many are trained (:func:`tempnets.models.focused.init_many`), so the
first 15 are the paper's design (the rows that use it: :data:`PAPER_DESIGN`) and the networks
``mozer-rates`` measures with tuned rates."""

# The two plans below were fixed, and committed, after their first look had been seen: the
# fixed-n records of 120 and 60 runs, whose undecided rows are why these designs exist.  That
# look counts as look 1 of the K planned looks, so its intervals too are at 1 - 0.05 / K, and
# K = 2 (one more look, at the cap) keeps them as narrow as a design that looks again can: a
# look between would stop early only if the least likely row to decide had, and costs every
# interval some width.  Power is computed at the effect and spread those records measured, each
# interval at 97.5%:
#
# * mozer-reproduce, Plan(120, 1200, 1320): "delay 1: the focused runs learn the task perfectly"
#   was 96 of 120 (80%) against the bound 75%: with a true share of 80%, 1,320 runs decide it
#   (Wilson at 97.5%) with probability 0.98 (0.94 at 1,000).  "Delay 4: the full network does
#   better than outputting zeros" (the control of the delay-4 t-test) was 0.74 points (sd 4.4;
#   115 of 120 runs end on the baseline) against the bound 1: resampling those 120 runs, 1,320
#   decide it with probability 0.48 (0.85 would take about 3,000).  At about 1 s per run (four
#   networks) the cap is about 22 minutes on one core.
# * mozer-reversed, Plan(60, 360, 420): "the full network does not succeed" was a mean of 75.7%
#   (sd 7.5) against the bound 75%: resampling those 60 runs, 420 decide it with probability
#   0.37 (0.48 at 540).  The ratio of median epochs to 90% sat on its threshold, 1.0 [0.86,
#   1.5]: no n in reach is likely to decide it.  At about 3 s per run (six networks) the cap is
#   about 22 minutes.
#
# The caps were set by the time the session that fixed them had (about 30 minutes per record on
# one core; issue 32 allows 120 on two), from estimates about twice the times measured (687 s and
# 654 s): a design with more room should raise the cap in a new plan, not after seeing these.
# * mozer-large-verbs, Plan(10, 180, 190), fixed on 2026-11-27 before any run past 10 was trained:
#   "ring and bring are both classified right" was 10 of 20 networks (50%, Wilson [29.9, 70.1])
#   against the bound 50%, on its threshold.  If the true share is as uncertain as those 20 say
#   (a Beta(11, 11)), 380 networks (190 runs of each) decide it at 97.5% with probability about
#   0.6; no affordable n does much better, since the share may sit at 50%.  At about 18 core-
#   seconds per run (two networks) the cap is about 30 minutes on two cores.  (That estimate came
#   from the 10-run record's 177 s, mostly compilation: the 380 networks took about 10 minutes of
#   two cores.  The record stopped at its cap, 181 of 380, 47.6% [42.0, 53.4]: on its threshold.)
#   That share pooled the two kinds of network, which the 380 showed differ widely: 25 of 190
#   focused networks, 156 of 190 full ones.  A pooled share measures our one-to-one mix of them,
#   not a typical network of either kind, so the row became one per kind (2026-11-28, after the
#   record was seen; the same networks, re-derived): focused 13.2% [8.6, 19.6] does not hold,
#   full 82.1% [75.1, 87.5] holds.  The record's design still names the pooled row it watched.
PLANS = {"mozer-reproduce": sequential.Plan(120, 1200, 1320),
         "mozer-reversed": sequential.Plan(60, 360, 420),
         "mozer-large-verbs": sequential.Plan(10, 180, 190)}
"""Paper scale: the sequential design (:mod:`tempnets.book.sequential`) of sequence reproduction and of
the reversed verbs, one "run" being network ``k`` of every condition.  Its first look is the
paper-scale ``runs`` of :data:`SIZES`; every interval of the record is at the plan's level
(:func:`tempnets.book.sequential.level_of`), the rows on the paper's first 15 runs aside (they have
none).  Book scale: the fixed ``runs`` of :data:`SIZES`."""

PAPER_DESIGN = PAPER["reproduce_runs"]
"""The runs per network of the paper's sequence reproduction (its t(28)).  The rows whose value
depends on the number of runs in one direction only, a t-test's p (it shrinks as runs are added)
and "some runs learn" (a count that only grows), are computed on the first this many runs of
each network, so that more runs never make them easier to pass."""


def _rng(seed, *tags):
    seed = count("seed", seed)
    return np.random.default_rng([seed] + [sum((i + 1) * ord(c) for i, c in enumerate(str(t))) for t in tags])
