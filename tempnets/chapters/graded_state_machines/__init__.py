r"""Experiments of Servan-Schreiber, Cleeremans & McClelland (1991), *Graded
State Machines* (``papers/004``), as runners for ``python -m tempnets
reproduce`` and for the chapter ``book/graded_state_machines``.

Each runner has the signature ``run_*(scale, seed, jobs, progress,
trained=None) -> Result`` (see :mod:`tempnets.book.experiments`) and returns the
experiment's claims table and JSON-serialisable data (final weights included,
as nested lists, so the chapter can draw the paper's figures from exactly the
networks the claims are about).  With ``trained=`` the ``data`` of an earlier
run (a recorded paper-scale run), a runner re-derives its claims from that
data without training.

==========================  =====================================================
runner                      paper
==========================  =====================================================
:func:`run_reber_count`     §3.1: 43 strings of 3–8 letters
:func:`run_reber_3hu`       §2.4–2.5, Figures 5–8, 11: 3 (and 15) hidden units
                            on 60,000 random Reber strings; acceptance tests
:func:`run_21_strings`      §3, Figures 12–15: 21 strings, 15 units, 2000 epochs
:func:`run_acp`             §4, Figure 17, note 6: learning phases and ACPs
:func:`run_problem3`        §5.1: PSSSP vs TSSST, the plateau and the size sweep
:func:`run_embedded`        §5.2, Figures 18–20: the embedded sub-grammar
==========================  =====================================================

The learning rule is the paper's (note 1): the SRN rule (BPTT(2, 1)), one
update per letter, weights uniform in [-0.5, 0.5], learning rate 0.01 and
momentum 0.9 (:data:`RULE`; note 1 gives 0.01–0.02 and 0.5–0.9 without saying
which run used which; we use the top of the momentum range everywhere, since
three-unit networks learn the grammar in 60,000 strings more rarely with less
momentum: the chapter's exercise measures it).

The chapter's code is split by the paper's experiments, one file each (``tempnets/chapters/
graded_state_machines/``); every name is re-exported here, so
``tempnets.chapters.graded_state_machines.X`` names each of them, as before the split:

======================  =====================================================
file                    holds
======================  =====================================================
``settings.py``         :data:`RULE`, :data:`THRESHOLD`, :data:`LONG_STRING`,
                        :data:`EXPECT`; :func:`config`,
                        :func:`comparisons_against`, weights as JSON
``network_tests.py``    one network's tests (§2.5: acceptance, the random
                        sequences, the long string, nodes #1 and #3);
                        string lengths (§2.4, §5.2)
``reber_grammar.py``    experiments 0–2: :func:`run_reber_count`,
                        :func:`run_reber_3hu`, :func:`run_21_strings`,
                        :func:`generalisation_sweep` (§2–3)
``learning_phases.py``  experiment 3: :func:`run_acp` (§4)
``problem3.py``         experiment 4: :func:`run_problem3` (§5.1)
``embedded.py``         experiment 5: :func:`run_embedded` (§5.2)
``self_checks.py``      the exercise's check, :func:`check_bptt31_gradient`
======================  =====================================================

A name re-exported here is the same object as in its file, but replacing it here (a test's
``monkeypatch.setattr``) changes nothing a runner reads: patch it in the file whose code reads
it (``embedded.EMBEDDED_PLAN``, ``reber_grammar.choose``, ...).
"""

from __future__ import annotations

from .embedded import (EMBEDDED_CHUNK, EMBEDDED_PLAN, FIGURE20_MAX_LETTERS, _embedded_claims,
                       _embedded_data, _embedded_networks, _embedded_piece, embedded_states,
                       run_embedded, twin_nearest_neighbours)
from .learning_phases import (_acp_claims, _learning_phase_claims, acp_pattern_design,
                              acp_pattern_r_squared, plausible_best_orders, run_acp)
from .network_tests import (accept_flat, accepts, grammatical_flat, length_statistics,
                            literal_asymmetrical_subgrammar, node_separability, outputs,
                            predicts_exactly_legal, random_grammatical_probability,
                            random_sequences)
from .problem3 import (PROBLEM3_PLAN, SIZE_EFFECT_AT_LEAST, _problem3_cells, _problem3_main,
                       _problem3_main_claims, _problem3_outputs, _problem3_piece, _train_problem3,
                       growth_decided, growth_evidence, problem3_shared_learned, problem3_solved,
                       problem3_strings, run_problem3)
from .reber_grammar import (_REBER_3HU_SCORES, EXPECT_NODE_CLUSTERS, FIGURE13_14, REBER_3HU_KEYS,
                            REBER_3HU_TEST, TSS_AT_MOST, _21_strings_claims, _reber_3hu_claims,
                            _train_reber_3hu, figure15_purity, generalisation_sweep,
                            length_constraint_predictions, optimal_tss, run_21_strings,
                            run_reber_3hu, run_reber_count, tss)
from .self_checks import check_bptt31_gradient
from .settings import (EXPECT, LONG_STRING, RULE, THRESHOLD, _fmt_iv, _sub, comparisons_against,
                       config, params_from_lists, params_to_lists)

__all__ = ["RULE", "THRESHOLD", "EXPECT", "comparisons_against", "config", "params_to_lists",
           "params_from_lists", "outputs", "accepts", "random_sequences", "accept_flat",
           "grammatical_flat", "random_grammatical_probability", "predicts_exactly_legal",
           "node_separability", "length_statistics", "literal_asymmetrical_subgrammar",
           "run_reber_count", "run_reber_3hu", "length_constraint_predictions", "tss",
           "optimal_tss", "figure15_purity", "run_21_strings", "generalisation_sweep",
           "acp_pattern_design", "acp_pattern_r_squared", "plausible_best_orders", "run_acp",
           "problem3_strings", "problem3_solved", "problem3_shared_learned",
           "growth_evidence", "growth_decided", "PROBLEM3_PLAN", "run_problem3", "twin_nearest_neighbours",
           "embedded_states", "run_embedded", "check_bptt31_gradient"]
