"""The chapters: one module per chapter of the book, named after its notebook.

``tempnets.chapters.<name>`` backs ``book/<name>.ipynb``: the experiment runners registered
in :mod:`tempnets.book.experiments`, the paper's numbers, the claims and small
chapter-specific helpers.  A large chapter is a package of files (``graded_state_machines/``,
``periodically_attentive_units/``, ``fast_weights/``, ``focused_backprop/``, ``mozer_rates/``,
``temporal_kernels/``, ``tk_readings/``, split along the paper's experiments), whose
``__init__`` re-exports the names the records, the notebook and the tests use.  The top layer:
a chapter may import every layer below it (book, training, tasks, models); nothing imports a
chapter except the registry (by name), the notebook, ``warm_up``, another chapter's reading of
its results, and its tests.
"""

__all__ = []  # the chapters are its submodules, each with its own __all__
