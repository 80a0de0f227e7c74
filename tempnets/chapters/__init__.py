"""One module per chapter of the book, named after its notebook.

``tempnets.chapters.<name>`` backs ``book/<name>.ipynb``: the experiment
runners registered in :mod:`tempnets.experiments`, the paper's numbers, the
claims and small chapter-specific helpers.  A large chapter is a package of
files (``graded_state_machines/``, split along the paper's experiments), whose
``__init__`` re-exports every name of its files.  Arrows point down only: a chapter
module imports model, task and core modules; nothing imports a chapter module
except the registry (lazily), the notebook and its tests.
"""

__all__ = []  # the chapters are its submodules, each with its own __all__
