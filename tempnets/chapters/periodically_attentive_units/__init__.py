r"""Experiments of O'Connell (1995), *Using periodically attentive units to extend the
temporal capacity of simple recurrent networks* (``papers/003``), as runners for
``python -m tempnets reproduce pa-*`` and for the chapter
``book/periodically_attentive_units``.

The thesis trains 7-15-7 networks one symbol at a time on 2.4 million random
strings of the embedded Reber grammar (chapter 4), 20 networks per condition,
and scores each on 1000 distinct test strings: "embed" (every embedded symbol
predicted, activation > 0.3) and "final" (the symbol before E predicted with
Luce ratio > 0.6).  The conditions:

=============  ===========================================  =====================
id             what                                         thesis
=============  ===========================================  =====================
``pa-2.1``     hidden-state differences of complementary    ch. 2, Figure 2.1
               strings PxP / TxT while an SRN learns
``pa-4.2``     SRN vs PA network (8 normal + 7 PA units)    ch. 4, Figures 4.2, 4.3
``pa-5.2``     the PA networks on long strings              ch. 5, Figure 5.2
``pa-6.2``     SRN vs PA, time-varying indicator            ch. 6, Figure 6.2
``pa-8.1``     BPTT(3,1), BPTT(4,1), BPTT(5,1)              ch. 8, Figure 8.1
``pa-8.2-8.3`` BPTT(4,1), BPTT(5,1) on long strings         ch. 8, Figures 8.2, 8.3
``pa-8.4``     PA-BPTT(3,1), (4,1), (5,1)                   ch. 8, Figure 8.4
``pa-8.5``     BPTT(h,1), time-varying indicator            ch. 8, Figure 8.5
=============  ===========================================  =====================

Procedure shared by every condition (:func:`train_condition`)
-------------------------------------------------------------
* Network ``k`` of a run with seed ``seed`` starts from the same weights
  (uniform in [-1, 1]) and sees the same training strings in *every* condition
  of that grammar, so the SRN, PA and BPTT columns compare the same 20 "weight
  sets" (the thesis numbers its networks 1-20 in every table).
* Training is online (one update per symbol, learning rate 0.01, momentum 0.3:
  :class:`tempnets.training.srn_trainers.TrainConfig`), in segments between tests.  Every
  segment continues from the previous weights with fresh random strings;
  the momentum buffer restarts at zero at each test (6 times in 2.4 million
  strings at paper scale, an effect of one update in a million).
* Tests use 1000 distinct strings (:func:`test_strings`), the same set for all
  conditions of one grammar and seed.

Sizes (:data:`SIZES`): ``paper`` is the thesis (20 networks x 2.4 million
strings, tests every 400,000; ``pa-4.2`` and ``pa-6.2`` train 40 networks, the thesis's 20 and 20 more,
and, like ``pa-8.4``, add more by the sequential designs of :data:`PLANS`); ``book`` is what fits the
chapter's time budget.
``jobs`` sets numba's thread count; results do not depend on it.

Claims and their uncertainty
----------------------------
A claim on a mean over networks carries its 95% interval (:mod:`tempnets.book.intervals`:
t for a mean, a paired t interval for the difference between two conditions of the
same weight sets or two test sets of the same networks, Wilson for a share of
networks); a claim whose interval straddles its threshold at a scale is not asserted
there (:data:`EXPECT`).  A claim about the best network or every network is a fact of
the runs and has none.  A claim about keeping or losing the final symbol, or about
one condition doing no better than another, is tested only when the networks it is about
decisively learned the final symbol (:data:`FAILS_FINAL`); otherwise it is shown as "not
tested: <why>" and never asserted.  So is a claim that networks
fail something (the final symbol, a trace of the indicator), which networks that learned
nothing pass too, unless its control is decided and holds (:func:`tempnets.book.claims.control_gate`;
issue 32): a row of the same table saying that the same networks learned the short-term part,
or that BPTT(5,1) learns the dependency (for BPTT(3,1), or the other framing, failing it).

Files of this package
---------------------
The chapter's code, split by what it holds (each name is also here, in the package):

==================  ==========================================================================
``sizes.py``        the framings (:data:`FRAMINGS`), the conditions (:data:`CONDITIONS`,
                    :func:`condition_config`), :class:`Sizes`, :data:`SIZES`,
                    :data:`LONG_TESTS`, the sequential designs (:data:`PLANS`, ``WATCH``),
                    seeds and grammars
``thesis.py``       the thesis's printed numbers (:data:`THESIS`, ``PRINTED_AVERAGES``)
``scoring.py``      test sets (:func:`test_strings`), :func:`score`, argument checks and weight
                    helpers (:func:`flat_params`, :func:`summed_error`, :func:`params_from_data`)
``trainer.py``      :func:`train_condition`, :func:`train_conditions`
``runs.py``         what the runners share: :func:`make_test_sets`, training an experiment by
                    its design, re-deriving from a record, summaries
``verdicts.py``     ``EXPECT`` (what the chapter states at each scale), interval notes, when a
                    claim is not tested (``FAILS_FINAL``)
``fig2_1.py``       Figure 2.1: :func:`complementary_pairs`, :func:`hidden_differences`,
                    :func:`run_fig2_1`
``fig4_5_6.py``     Figures 4.2-4.6, 5.2, 6.2: :func:`run_fig4_2`, :func:`run_fig5_2`,
                    :func:`run_fig6_2` and their claims
``fig8.py``         Figures 8.1-8.5: :func:`run_fig8_1`, :func:`run_fig8_2_8_3`,
                    :func:`run_fig8_4`, :func:`run_fig8_5`, the ``pa-8.1`` baseline
``framing.py``      :func:`run_framing` (the inner B/E, our reconstruction's check)
``conclusion.py``   the thesis's conclusion (:func:`conclusion_claims`)
``inside.py``       inside a PA network (Figures 4.4-4.6): :func:`hidden_trace`,
                    :func:`activation_table`, :func:`indicator_units`, :func:`failure_cases`
``selfchecks.py``   :func:`attention_mask`, :func:`check_attention_mask`
==================  ==========================================================================

A name replaced for a test is replaced where the code reads it: :data:`SIZES`,
:data:`LONG_TESTS` and :data:`PLANS` on ``sizes`` (the other files read them as ``sizes.X``),
:func:`train_conditions` and ``train_online`` on ``trainer`` (the runners call
``trainer.train_conditions``), ``_learns_final`` on ``fig8``; setting a name on this package
changes nothing the code reads.
"""

from __future__ import annotations

from ...tasks.grammars import thesis_embedded_reber
from .sizes import (CONDITIONS, CONTEXT_INIT, FRAMINGS, LONG_TESTS, PLANS, SIZES, WATCH, Sizes,
                    _attention, _grammar, _seed, condition_config)
from .thesis import (PRINTED_AVERAGES, THESIS, thesis_average, thesis_average_note,
                     thesis_averages_table, thesis_mean)
from .scoring import (flat_params, length_statistics, params_from_data, score, summed_error,
                      test_strings, unflat_params)
from .trainer import train_condition, train_conditions
from .runs import _run_conditions, make_test_sets
from .verdicts import (EXPECT, FAILS_FINAL, _expect, _failing, _learns_final, _paired, _paired_note,
                       _smallest_mean)
from .fig2_1 import complementary_pairs, hidden_differences, run_fig2_1
from .fig4_5_6 import run_fig4_2, run_fig5_2, run_fig6_2
from .fig8 import COMPARED_8_4, _bptt_baseline, run_fig8_1, run_fig8_2_8_3, run_fig8_4, run_fig8_5
from .framing import _framing_claims, run_framing
from .conclusion import conclusion_claims
from .inside import activation_table, failure_cases, hidden_trace, indicator_units
from .selfchecks import attention_mask, check_attention_mask

__all__ = [
    "CONDITIONS", "SIZES", "THESIS", "Sizes", "condition_config", "test_strings",
    "length_statistics", "score", "train_condition", "train_conditions", "complementary_pairs",
    "hidden_differences", "hidden_trace", "indicator_units", "activation_table",
    "failure_cases", "params_from_data", "make_test_sets", "flat_params", "unflat_params",
    "summed_error",
    "run_fig2_1", "run_fig4_2", "run_fig5_2", "run_fig6_2", "run_fig8_1",
    "run_fig8_2_8_3", "run_fig8_4", "run_fig8_5", "run_framing", "FRAMINGS", "conclusion_claims",
    "thesis_embedded_reber", "attention_mask", "check_attention_mask", "PLANS",
]
