"""tempnets: the library behind *Learning Temporal Patterns with Recurrent Networks*.

One module per idea (see the README's layout paragraph):

==================  ==========================================================
``random``          the one way randomness enters: :func:`as_generator`
``checks``          argument checks shared by the library (clear errors)
``gradcheck``       central-difference gradient checks used by tests and chapters
``claims``          paper-vs-ours claims tables that fail loudly
``claims_view``     a claims table as a reader sees it: forest plot, badges, footnotes
``sequential``      networks added in groups until every claim is decided (or a cap)
``scale``           ``book`` / ``paper`` experiment sizes (``TEMPNETS_SCALE``)
``progress``        progress bars for long runs (never called by model code)
``experiments``     the registry behind ``python -m tempnets``
``grammars``        finite-state grammars (Reber, embedded Reber, ...)
``srn``             the simple recurrent network and its forward pass
``bptt``            learning rules: SRN rule, BPTT(h, h'), periodically attentive units
``training``        compiled online and epoch training of many networks at once
``metrics``         acceptance, Luce ratios, embed/final, generalisation counts
``analysis``        cluster analysis of hidden states, average conditional probabilities
``plots``           the papers' figures, drawn by code (never called by training)
``focused``         Mozer's focused network: α/β/γ traces, the full net's BPTT
``focused_training`` batch training with Mozer's adaptive learning rates
``verbs``           verb past-tense data: phoneme features, Table 2, a CMUdict verb set
``streams``         endless event streams: the flip-flop, the car owner's day
``fast_weights``    Schmidhuber's slow net / fast net, p-variables, linear attention
``rtrl``            a fully recurrent net trained on-line by RTRL (the baseline)
``tkrnn``           temporal-kernel RNNs (TKRNN^{+n}): forward, O(T) backward
``rnn_baselines``   the standard RNN and the LSTM on the TKRNN's batch layout
``optim``           Adam with gradient-norm clipping; minibatch training
``sequences``       the serial-recall task (string, delay, cue, recall)
``recall_diagnostics`` what a serial-recall network remembers: item vs order, positions, decays
``chapters``        one module per chapter (``chapters.graded_state_machines``, ...;
                    a large one a package of files): its runners, the paper's
                    numbers, its claims
==================  ==========================================================

Conventions used throughout
---------------------------
* A symbol string is a 1-D ``int64`` array of symbol indices into its grammar's
  alphabet (``grammar.encode("BTXSE")``).  Several strings travel together as
  one flat array plus ``offsets`` of shape ``(n_strings + 1,)`` (string ``i`` is
  ``flat[offsets[i]:offsets[i + 1]]``), which is what compiled kernels see.
* Activations over a sequence have shape ``(T, n_units)``; stacks of ``R``
  independent networks put ``R`` first: ``(R, ...)``.
* Minibatches of sequences (``tkrnn``, ``rnn_baselines``, ``sequences``) are
  ``(T, B, n_units)``, with integer targets and a loss mask of shape ``(T, B)``.
* Weight matrices map *from* columns *to* rows: ``W[i, j]`` is the weight from
  unit ``j`` to unit ``i`` (the papers' :math:`w_{ij}`).
* All randomness comes from an explicit ``rng`` argument (``Generator``, int
  seed or ``None``), normalised by :func:`tempnets.random.as_generator`.
"""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("tempnets")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
