r"""Readings of Sutskever & Hinton's (2010) serial-recall experiment (``tk-readings``, issue 33).

The paper's central claim is that a TKRNN "can learn to use its units to store 35 bits of
information for at least 50 timesteps in an immediate serial recall task" (§1).  Our copy stops
after eq. 9: how the task was posed, split and trained is not in it, and our reconstruction
(:mod:`tempnets.chapters.temporal_kernels`, ``tk-serial-recall``) taught the task to every LSTM
and to no TKRNN.  Each :class:`Reading` is one way the paper could have done what it leaves
out, as one switch of the task or the model; its default is today's reading, which trains
exactly as ``tk-serial-recall`` does (same bits).

=====================  ==========================================================================
switch                 readings
=====================  ==========================================================================
``recall``             ``"blank"`` (today: blank inputs during recall, recall steps scored);
                       ``"teacher"``: during recall the input is the true previous letter, as in
                       next-symbol prediction (the abstract trains RNNs "to predict sequences")
``decays``             ``"learned"`` (today); ``"frozen"`` at their initial values; ``"capped"``
                       at ``decay_cap`` (λ = cap · logistic(φ)); ``"slow"``: λ learns at
                       ``decay_rate`` times the learning rate (θ = c φ, so Adam's step on θ is c
                       times the others'); every decay, input and hidden
``lam_range``          the initial decays' range (today (0.5, 0.95): half-lives ≤ 13.5 steps)
``input_output``       ``True`` (today): output kernels from the inputs and the hidden units;
                       ``False``: the outputs read the hidden kernels only (W_{x→z} = 0, kept 0)
``alphabet, length``   how the 35 bits are split (today 7 letters of 32; 5 of 128 is 35 bits too)
``ramp``, rates,       training: the curriculum's length (today half the run, so 7-letter
``updates_factor``     strings come at update U/2 + 1), Adam's rates, the number of updates
=====================  ==========================================================================

:data:`SCREEN` trains a few TKRNNs per reading on a reduced budget and compares each reading
with today's by a rank rule (:func:`screen_verdict`); the chosen reading is then to be run at
paper scale with every model (the chapter says how).

Files of this package
---------------------
The chapter's code, split along its own sections (every name is also here, in the package, so
``tempnets.chapters.tk_readings.X`` names each of them, as before the split; ``tk`` is
:mod:`tempnets.chapters.temporal_kernels`, which every file reads as ``tk.X``):

======================  ======================================================================
file                    holds
======================  ======================================================================
``readings.py``         :class:`Reading`, :data:`READINGS`, :data:`SCREEN` (the screen's plan),
                        :func:`reading_sizes`, :func:`teacher_forced`
``switches.py``         the model's switches: :func:`train_reading`, :func:`score_reading`
``screen.py``           ``tk-readings``: :func:`screen_sizes`, :func:`screen_verdict`,
                        :func:`run_readings`, :func:`screen_table` and its claims
``recorded.py``         :func:`recorded_diagnostics` of a recorded network
``reading_recall.py``   ``tk-reading-recall``: :data:`ADOPTED`, :data:`RECALL_SIZES`,
                        :func:`run_reading_recall`, :func:`readings_table`
======================  ======================================================================

A name re-exported here is the same object as in its file, but replacing it here (a test's
``monkeypatch.setattr``) changes nothing the code reads: replace it in the file whose code reads
it (``ADOPTED`` on ``reading_recall``).  The tables (:data:`SCREEN`, :data:`RECALL_SIZES`) are
the same dicts everywhere: an item set on one is seen by all.
"""

from __future__ import annotations

from .. import temporal_kernels as tk
from .readings import (READINGS, SCREEN, TODAY_LAM_RANGE, Reading, _check_model, _check_reading,
                       _optional, _poser, reading_sizes, teacher_forced)
from .switches import (_initial, _input_output_columns, _parametrisation, score_reading,
                       train_reading)
from .screen import (_screen_claims, _screen_key, _screen_piece, _screen_task, run_readings,
                     screen_sizes, screen_table, screen_verdict)
from .recorded import MAX_DELAY, recorded_diagnostics
from .reading_recall import (ADOPTED, RECALL_EXPECT, RECALL_SIZES, _evaluate_reading,
                             _model_reading, _recall_task, readings_table, run_reading_recall)

__all__ = ["Reading", "READINGS", "SCREEN", "reading_sizes", "teacher_forced", "train_reading",
           "score_reading", "run_readings", "screen_verdict", "screen_table", "recorded_diagnostics",
           "ADOPTED", "RECALL_SIZES", "run_reading_recall", "readings_table"]
