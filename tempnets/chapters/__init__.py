"""One module per chapter of the book, named after its notebook.

``tempnets.chapters.<name>`` backs ``book/<name>.ipynb``: the experiment
runners registered in :mod:`tempnets.book.experiments`, the paper's numbers, the
claims and small chapter-specific helpers.  Arrows point down only: a chapter
module imports model, task and core modules; nothing imports a chapter module
except the registry (lazily), the notebook and its tests.
"""

__all__ = []  # the chapters are its submodules, each with its own __all__
