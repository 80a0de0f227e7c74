r"""Experiments of Sutskever & Hinton (2010), *Temporal-kernel recurrent neural networks*
(``papers/002``), as runners for ``python -m tempnets reproduce tk-*`` and for the
chapter ``book/temporal_kernels``.

Our copy of the paper stops after eq. 9.  What it states, and what this module
compares with: the TKRNN "can learn to use its units to store 35 bits of
information for at least 50 timesteps in an immediate serial recall task", it
does so "by representing the input string with a stable state of its hidden
units", its performance "is comparable to that of the LSTM", it copes with
long-term dependencies "much more easily than a standard RNN" (abstract), and
the TKRNN^{+n} "finds considerably better solutions".  The paper's own numbers
(accuracies, learning curves, network sizes, training settings) are **not in our
copy**; every setting below is ours (the book's *Reconstructions* page,
temporal-kernels section, says what we chose and why).

=====================  ==========================================================
id                     what
=====================  ==========================================================
``tk-kernels``         the exponential kernel a pulse leaves in a kernel state,
                       a non-monotone TKRNN^{+2} kernel, parameter and cost counts
``tk-serial-recall``   RNN, TKRNN, TKRNN^{+2}, LSTM on serial recall, several
                       seeds: accuracy against delay, learning curves, the
                       hidden state's drift during the delay
``tk-long-delays``     the same on the book-scale task trained on delays 2-50
``tk-search``          the same search over initial scale and learning rate for
                       every model, at book scale; its choices are :data:`TUNED`
``tk-training-search`` the same search over training recipes (learning-rate
                       schedule, list lengths, curriculum, initial scale, forget
                       bias) for every model on the 35-bit task; its choices are
                       :data:`PAPER_CHOICES`
=====================  ==========================================================

Sizes (:data:`SIZES`): ``paper`` is our reconstruction of the 35-bit
task (32 letters, 7 per string, delays 10-50, 100 hidden units, batch 64), each model
trained with the recipe ``tk-training-search`` chose for it (:data:`PAPER_CHOICES`);
``book`` is a smaller task that trains in the chapter's 3-minute budget (4 letters, 3 per
string = 6 bits, delays 2-10, 32 hidden units, batch 32), each model with the initial scale
and Adam learning rate that ``tk-search`` chose for it (:data:`TUNED`).  Both test at delays
beyond the training range (up to 50 and 100).

Files of this package
---------------------
The chapter's code, split along its own sections (every name is also here, in the package, so
``tempnets.chapters.temporal_kernels.X`` names each of them, as before the split):

====================  ========================================================================
file                  holds
====================  ========================================================================
``sizes.py``          what the paper says (:data:`PAPER`), :data:`MODELS`, :class:`Sizes`,
                      :data:`SIZES`, :data:`TUNED`, :data:`RECORDED_PAPER`,
                      :data:`TRAINING_SEARCH`, :data:`PAPER_CHOICES`, ``CRITERION``,
                      ``STABLE``; ``tk-long-delays``' :data:`LONG_SIZES`, :data:`LONG_PLAN`,
                      :data:`PLANS`
``networks.py``       the models and one network: :func:`model_functions`, :func:`build`,
                      :func:`train_one`, :func:`curriculum_task`, :func:`hidden_states`,
                      :func:`hidden_drift`, :func:`evaluate`, :func:`params_from_data`; the
                      networks of a run as pieces (``_train_networks``, ``_models_data``)
``serial_recall.py``  ``tk-serial-recall`` and ``tk-long-delays``: :func:`run_serial_recall`,
                      :func:`run_long_delays`, :func:`sizes_of`, their claims
                      (``_recall_claims``, ``_EXPECT``)
``search.py``         ``tk-search`` (:data:`SEARCH`, :func:`search_choice`,
                      :func:`run_search`) and ``tk-training-search``
                      (:func:`training_search_sizes`, :func:`training_choice`,
                      :func:`run_training_search`)
``kernels.py``        ``tk-kernels``: :func:`pulse_states`, :func:`run_kernels`
``self_checks.py``    the exercises' checks: :func:`check_kernel`, :func:`check_lambda_grad`,
                      :func:`check_half_life`
====================  ========================================================================

A name re-exported here is the same object as in its file, but replacing it here (a test's
``monkeypatch.setattr``) changes nothing the code reads: replace it in the file whose code reads
it (``train_one`` on ``networks`` for the networks of a run, on ``search`` for the searches).
The tables (:data:`SIZES`, :data:`LONG_SIZES`, :data:`PLANS`, :data:`SEARCH`,
:data:`TRAINING_SEARCH`) are the same dicts everywhere: an item set on one is seen by all.
"""

from __future__ import annotations

from ...book import sequential
from .sizes import (CRITERION, LONG_PLAN, LONG_SIZES, MODELS, PAPER, PAPER_CHOICES, PLANS,
                    RECORDED_PAPER, SIZES, STABLE, TRAINING_SEARCH, TUNED, Sizes)
from .networks import (_check_sizes, _curriculum_task, _jsonable_params, _kernels, _median,
                       _models_data, _need, _rngs, _train_networks, _train_piece, _train_task,
                       _validation_batch, _validation_scores, _windowed, build, curriculum_task,
                       evaluate, hidden_drift, hidden_states, model_functions, params_from_data,
                       train_one)
from .serial_recall import (_EXPECT, _fewest_for_median, _final_loss, _half_reach,
                            _median_comparison, _recall, _recall_claims, _share_note,
                            _share_reaching, run_long_delays, run_serial_recall, sizes_of)
from .search import (_SEARCH_EXPECT, SEARCH, _check_runs, _search_piece, _search_task,
                     _training_search_key, _training_search_piece, _training_search_task,
                     run_search, run_training_search, search_choice, training_choice,
                     training_search_sizes)
from .kernels import KERNEL_LAMBDAS, PLUS2, pulse_states, run_kernels
from .self_checks import check_half_life, check_kernel, check_lambda_grad

__all__ = ["SIZES", "LONG_SIZES", "LONG_PLAN", "PLANS", "TUNED", "run_long_delays", "sizes_of", "Sizes", "MODELS", "PAPER",
           "model_functions", "build", "train_one",
           "evaluate", "hidden_drift", "run_kernels", "run_serial_recall", "params_from_data",
           "SEARCH", "run_search", "search_choice", "TRAINING_SEARCH", "run_training_search",
           "training_search_sizes", "training_choice", "curriculum_task",
           "check_kernel", "check_lambda_grad", "check_half_life", "pulse_states", "hidden_states"]
