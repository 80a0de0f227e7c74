r"""Experiments of Schmidhuber (1991), *Learning temporary variable binding with dynamic
links* (``papers/001``), as runners for ``python -m tempnets reproduce`` and for the
chapter ``book/fast_weights``.

==============================  ===================================================
runner                          paper
==============================  ===================================================
:func:`run_flipflop`            §3 experiment 1: the flip-flop, interfaces (4), (5)
:func:`run_parking`             §3 experiment 2: car parking, WHERE-IS-MY-CAR?
:func:`run_linear_attention`    the modern link (Schlag, Irie & Schmidhuber 2021)
==============================  ===================================================

The paper reports one run per setting ("the system learned to solve the task
within N time steps").  We run many seeds on independent streams and report the
distribution of the *steps to solution*: the time step ``t`` at which the
criterion is first met, i.e. the last of the first 100 scored steps in a row
with ``E(t) = ½ Σ_b (d_b - y_b)² <= 0.05`` (the paper's "error", read as its
E(t); :func:`tempnets.models.fast_weights.solved_at`).  We also report the stricter
reading ``max_b |d_b - y_b| <= 0.05``.  A run that never meets the criterion
within the cap counts as a failure; medians and percentiles count failures as
"more than the cap" (``cap + 1``).  Because a network with part of the solution
can meet a 100-step criterion by luck, every final network is also tested,
frozen, on a fresh stream (:func:`test_stream`), and a 1000-step window is
reported beside the paper's (:data:`LONG_RUN`).

Car parking scores F only on some steps (a question on a business step), so the paper's "for
100 time steps in a row F's error did not exceed 0.05" has two readings.  Ours counts 100
*scored* steps in a row; the other steps neither extend nor break the run.  The *literal*
reading counts every time step, and a step without a scored question (error 0) extends the
run; it is reported beside ours, with the share of questions the network of that step
answers right (:func:`train_fast_weights` with ``literal=True``).  On the flip-flop every
step is scored and the two readings coincide.

How many runs: at book scale a fixed number (:data:`SIZES`); at paper scale a sequential design
(:data:`PLANS`, :mod:`tempnets.book.sequential`): runs are added in groups until every claim of the
experiment is decided or the plan's cap is reached, every interval at ``1 - 0.05 / K`` for ``K``
planned looks, and the record's ``data["design"]`` states the rule, ``n`` and why it stopped (at
book scale: a fixed design, one look at 95%).
Run ``k`` of a seed is the same network on the same stream whatever the design.

Every value estimated from runs carries its 95% interval (:mod:`tempnets.book.intervals`): a
share or count of runs by Wilson's, a difference of two shares by Newcombe's, a median
of steps to solution by order statistics (a run that never solved counts as ``inf``), a
ratio of medians by the bootstrap.  A claim about a set of runs that is empty (no run met
the criterion, say), or against a control that fails too, is *not tested* in that run: it is
shown as "not tested: <why>", with no value where there is none, and never asserted.

The conventional baseline is a fully recurrent network trained on-line by RTRL
(:mod:`tempnets.models.rtrl`) on the same streams, at the best of a few learning rates
(chosen on the same seeds, which favours the baseline).

Files of this package
---------------------
The chapter's code, split along the paper's experiments (every name is also here, in the
package, so ``tempnets.chapters.fast_weights.X`` names each of them, as before the split):

=======================  =====================================================================
``sizes.py``             the paper's settings and results (:data:`PAPER`), the RTRL grid
                         (``BASELINE``), :class:`Sizes`, :data:`SIZES`, :data:`PLANS`, ``EVERY``,
                         ``NONE``, ``SOME``, :data:`EXPECT`
``one_run.py``           one run: :func:`make_stream`, :func:`make_net`, :func:`test_stream`,
                         :func:`train_fast_weights`, the RTRL baseline (``_train_baseline``),
                         :data:`LONG_RUN`, ``TEST_STEPS``
``runs.py``              what the runners share: ``_share_of``, ``_steps``, ``_unless``; runs in
                         pieces (``CHUNK``, ``_runs``, the registry ``_RUNS``); :func:`summary`,
                         :func:`format_summary`; ``_check_trained``
``flipflop.py``          experiment 1: :func:`run_flipflop`, :func:`best_baseline`,
                         :func:`learned_flipflop_solution` and the claims
``parking.py``           experiment 2: :data:`VARIANTS`, :func:`learned_binding`,
                         :func:`run_parking`, its claims and the literal reading's
``linear_attention.py``  the modern link: :func:`run_linear_attention` and its claims
``figures.py``           :func:`system_diagram`, :func:`latch_figure`, :func:`steps_histogram`,
                         :func:`explorer`
``self_checks.py``       the exercises' checks: :func:`check_sigma`, :func:`latch_fixed_points`,
                         :func:`check_latch_fixed_point`, :func:`check_p_step_from_to`,
                         :func:`check_linear_attention`
=======================  =====================================================================

A name re-exported here is the same object as in its file, but replacing it here (a test's
``monkeypatch.setattr``) changes nothing a runner reads: replace it in the file whose code reads
it (``flipflop.SIZES``, ``parking.train_fast_weights``, ...).  :data:`SIZES` and :data:`PLANS`
are one dict each, shared by every file: the tests replace their entries
(``monkeypatch.setitem``), which every runner sees.
"""

from __future__ import annotations

from .sizes import BASELINE, EVERY, EXPECT, NONE, PAPER, PLANS, SIZES, SOME, Sizes
from .one_run import (LONG_RUN, TASK_ID, TEST_STEPS, _check_streams, _check_task, _curve, _perfect,
                      _share_right, _sub, _train_baseline, make_net, make_stream, test_stream,
                      train_fast_weights)
from .runs import (CHUNK, _RUNS, _check_trained, _chunk, _collect, _median_note, _runs, _share_of,
                   _steps, _unless, format_summary, summary)
from .flipflop import (_NO_SPEED, _flipflop_claims, _flipflop_run, best_baseline,
                       learned_flipflop_solution, run_flipflop)
from .parking import (VARIANTS, _literal_claims, _parking_claims, _parking_run, _runs_for_share,
                      _variant_run, learned_binding, run_parking)
from .linear_attention import (ADDITIVE_RATES, _additive_run, _equivalence_errors,
                               _linear_attention_claims, run_linear_attention)
from .figures import explorer, latch_figure, steps_histogram, system_diagram
from .self_checks import (_sigma, check_latch_fixed_point, check_linear_attention,
                          check_p_step_from_to, check_sigma, latch_fixed_points)

__all__ = ["PAPER", "SIZES", "EXPECT", "VARIANTS", "Sizes", "make_stream", "make_net",
           "test_stream", "train_fast_weights", "summary", "format_summary",
           "run_flipflop", "best_baseline", "learned_flipflop_solution", "learned_binding",
           "run_parking", "PLANS", "run_linear_attention", "system_diagram",
           "latch_figure", "steps_histogram", "explorer", "check_sigma", "latch_fixed_points",
           "check_latch_fixed_point", "check_p_step_from_to", "check_linear_attention"]

