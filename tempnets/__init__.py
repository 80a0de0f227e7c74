"""tempnets: the library behind *Learning Temporal Patterns with Recurrent Networks*.

Layers, from the bottom up (see the README's layout paragraph).  A module imports its own
layer and those below it, never one above (``tests/test_layers.py``); each layer's
``__init__`` lists its modules, each public through its own ``__all__``:

==================  ==========================================================
``_numerics``       private: portable arithmetic, compiled kernels' helpers,
                    randomness (``as_generator``), argument checks
``models``          the networks and learning rules: ``srn``, ``bptt``, ``focused``,
                    ``fast_weights``, ``rtrl``, ``tkrnn``, ``rnn_baselines``, ``gradcheck``
``tasks``           what is learned and how it is scored: ``grammars``, ``verbs``,
                    ``streams``, ``sequences``, ``metrics``, ``analysis``,
                    ``recall_diagnostics``
``training``        ``srn_trainers``, ``focused_training``, ``optim``, ``checkpoint``,
                    ``progress``
``book``            the book's machinery: ``claims``, ``claims_view``, ``intervals``,
                    ``sequential``, ``scale``, ``experiments``, ``cluster``,
                    ``scorecard``, ``selfcheck``, ``assignments``, ``plots``,
                    ``explorer``, ``bookconfig``
``chapters``        one module per chapter (``chapters.graded_state_machines``, ...):
                    its runners, the paper's numbers, its claims
==================  ==========================================================

The flat paths of before (``tempnets.srn``, ``tempnets.training``...) still load, as the
same modules (:mod:`tempnets._layers`).

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
  seed or ``None``), normalised by :func:`tempnets._numerics.random.as_generator`.
"""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("tempnets")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"

from ._layers import install_moved_finder

install_moved_finder()

__all__ = ["__version__"]
