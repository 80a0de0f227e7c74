r"""Experiments of Mozer (1989/1995), *A focused backpropagation algorithm for temporal
pattern recognition* (``papers/000``), as runners for ``python -m tempnets reproduce
mozer-*`` and for the chapter ``book/focused_backprop``.

=========================  ===============================================  =====================
id                         what                                             paper
=========================  ===============================================  =====================
``mozer-dear``             DEAR/DEAN/BEAR/BEAN, 6-2-4, 50 runs              Table 1, Figure 3
``mozer-verbs``            60 regular verbs, 8-2-3, focused vs full         Table 2, Figures 4, 5
``mozer-reversed``         the same verbs reversed                          Figure 6
``mozer-reproduce``        sequence reproduction, delay 1 and 4, 6-3-3      Table 3, Figure 7
``mozer-large-verbs``      136 verbs, 13 categories, 25 vs 16 context units Table 4, Figures 8, 9
=========================  ===============================================  =====================

Every runner is ``run_*(scale, seed, jobs, progress, trained=None) -> Result``; with
``trained=`` (an earlier result or a record's ``data``) it re-derives every claim from the
stored per-run numbers and final weights without training.  At paper scale sequence
reproduction and the reversed verbs add runs by a sequential design (:data:`PLANS`) and take a
``checkpoint=`` too (resumable, in pieces of :data:`CHUNK` runs).

Learning rates (:data:`RATES`): Mozer tuned μ, ρ, ω "for most applications", and per
architecture for the comparisons, without printing the values.  Ours are fixed per task
from short sweeps (recorded in the chapter's Fidelity note): the paper's nominal
μ = 1, ρ = 0.02 for DEAR; μ = 0.75 for the regular verbs; μ = 0.5 and larger ρ where
the error is dominated by easy zero targets (sequence reproduction) or the task is big.
ω = 100 throughout (not given in the paper).

Files of this package
---------------------
The chapter's code, split along its sections (each name is also here, in the package, as it was
in the single module before the split):

==================  ==========================================================================
``sizes.py``        the paper's printed numbers (:data:`PAPER`, :data:`PAPER_DESIGN`), the
                    learning rates (:data:`RATES`, ``FULL_SWEEP``), :class:`Sizes`,
                    :data:`SIZES`, the sequential designs (:data:`PLANS`), ``EXPECT`` (what the
                    chapter states at each scale), the seed streams (``_rng``)
``runs.py``         what the runners share: storing runs (:func:`params_from_data`,
                    :func:`context_connections`), training a condition (``_condition``), in
                    pieces of ``CHUNK`` runs by an experiment's design (``_run_conditions``),
                    :func:`first_runs`, :func:`constant_answer_score`, and the rows several
                    experiments add (:func:`add_all_learn`, the delay-1 and delay-4 rows)
``dear.py``         DEAR (Table 1, Figure 3): :func:`run_dear`, its probes
                    (``dear_probes``, ``dear_probe_table``), :func:`context_profile`
``verbs.py``        the regular verbs (Table 2, Figures 4-6): :func:`run_verbs`,
                    :func:`run_reversed`, :func:`figure5_verbs`
``reproduce.py``    sequence reproduction (Table 3, Figure 7): :func:`run_reproduce`
``large_verbs.py``  the large verb set (Table 4, Figures 8, 9): :func:`run_large_verbs`
``cost.py``         the cost of the traces against BPTT: :func:`operation_counts`
``exercises.py``    the exercises' checks: :func:`check_gamma`,
                    :func:`check_alpha_closed_form`, :func:`check_rtrl_memory`
==================  ==========================================================================

A name replaced for a test is replaced where the code reads it, since setting a name on this
package changes nothing the code reads: ``CHUNK`` on ``runs`` (``_pieces`` reads it);
``_condition`` on the file of the runner that calls it (``reproduce``, ``verbs``, ``dear``,
``large_verbs``; :mod:`tempnets.chapters.mozer_rates` calls it from its ``runner``).  The dicts
:data:`SIZES`, :data:`PLANS`, :data:`RATES`, ``EXPECT`` and :data:`PAPER` are one object in
every file: a test replaces an entry (``monkeypatch.setitem(fb.SIZES, ...)``), never the name.
"""

from __future__ import annotations

# The modules the single module had as names, read as ``fb.F``, ``fb.V``, ... by the tests
# and the notebook.
from ...book import claims, intervals, sequential  # noqa: F401
from ...models import focused as F  # noqa: F401
from ...tasks import verbs as V  # noqa: F401
from ...training import focused_training as T  # noqa: F401
from ..._numerics import checks  # noqa: F401
from .sizes import EXPECT, FULL_SWEEP, PAPER, PAPER_DESIGN, PLANS, RATES, SIZES, Sizes, _rng
from .runs import (ALL_RUNS_BOUND, CHUNK, CONTEXT_LAYER, PER_RUN, _add_delay1_p, _add_delay4_p,
                   _add_delay4_perfect, _condition, _cut, _each_run, _epochs_to, _gather, _join,
                   _need, _paper_ttest, _params_data, _pieces, _run_conditions, _sizes, _ttest,
                   add_all_learn, add_some_learn, constant_answer_score, context_connections,
                   first_runs, params_from_data)
from .dear import (_PROBE_LABELS, DEAR_DESTROYING, DEAR_KEYS, DEAR_NONE_KEPT, DEAR_PRESERVING,
                   DEAR_TWO_LETTER, DEAR_WORDS, _decision_right, _discriminators, _keys, _learned,
                   _probe, _word_right, context_profile, dear_kept, dear_permutations,
                   dear_probe_table, dear_probes, run_dear)
from .verbs import (FIGURE5_FINALS, _auc, _reversed_claims, _unit_reading, _verb_tests,
                    figure5_verbs, run_reversed, run_verbs)
from .reproduce import _reproduce_claims, run_reproduce
from .large_verbs import _large_verbs_claims, run_large_verbs
from .cost import operation_counts
from .exercises import (_alpha_closed, _gamma_reference, check_alpha_closed_form, check_gamma,
                        check_rtrl_memory)

__all__ = ["PAPER", "PAPER_DESIGN", "RATES", "SIZES", "Sizes", "first_runs", "constant_answer_score",
           "context_connections", "run_dear", "run_verbs", "run_reversed", "run_reproduce",
           "run_large_verbs", "params_from_data", "context_profile", "figure5_verbs",
           "check_gamma", "check_alpha_closed_form", "check_rtrl_memory", "operation_counts"]
