"""Where each module of tempnets lives, and the old flat paths kept loadable.

Until issue 37 the package was flat (``tempnets.srn``, ``tempnets.training``...).  Records,
checkpoints, instructors' assignment files and readers' own notebooks may still name those
paths, so :data:`MOVED` maps each old module to its place in a layer and :class:`_MovedFinder`
(installed by ``import tempnets``) makes ``import tempnets.srn`` return the module
``tempnets.models.srn`` itself: the same object, so a name set on one is seen by the other.
Nothing in this repository uses an old path (``tests/test_layers.py`` holds that).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

LAYERS = {
    "_numerics": ("checks", "portable", "portable_math", "random"),
    "models": ("srn", "bptt", "focused", "fast_weights", "rtrl", "tkrnn", "rnn_baselines",
               "gradcheck"),
    "tasks": ("grammars", "verbs", "streams", "sequences", "metrics", "analysis",
              "recall_diagnostics"),
    "training": ("srn_trainers", "optim", "checkpoint", "focused_training", "progress"),
    "book": ("claims", "claims_view", "intervals", "sequential", "scale", "experiments", "cluster",
             "scorecard", "selfcheck", "assignments", "plots", "explorer", "bookconfig"),
    "chapters": (),
}
"""The layers from the bottom up, each with its modules.  A module may import its own layer
and the layers below it, never one above (``tests/test_layers.py``); ``chapters`` is the top,
and ``_numerics`` is private: its names are not part of the public surface."""

MOVED = {f"tempnets.{module}": f"tempnets.{layer}.{module}"
         for layer, modules in LAYERS.items() for module in modules if module != "srn_trainers"}
"""``{old module path: its module now}``.  The old ``tempnets.training`` module is now
``tempnets.training.srn_trainers``; its path is the training layer's, which still serves its
names (see :mod:`tempnets.training`)."""


def moved_name(name: str) -> str:
    """``"tempnets.srn:SRNParams"`` or ``"tempnets.srn.x"`` with its module's path of today."""
    module, colon, rest = name.partition(":")
    if module == "tempnets.training" and colon:  # a class of the old module, now a layer
        return "tempnets.training.srn_trainers:" + rest
    for old, new in MOVED.items():
        if module == old or module.startswith(old + "."):
            return new + module[len(old):] + colon + rest
    return name


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        return None  # a placeholder, replaced in sys.modules by exec_module

    def exec_module(self, module):
        # importlib returns whatever sys.modules holds under the name once this returns
        sys.modules[module.__name__] = importlib.import_module(self.target)

    def get_code(self, fullname):
        """``python -m tempnets.bookconfig`` (runpy asks for code): run the module it moved
        to as ``__main__``, so that its relative imports are read from its own place."""
        return compile(f"import runpy\nrunpy.run_module({self.target!r}, run_name='__main__', "
                       "alter_sys=True)\n", f"<{fullname}, now {self.target}>", "exec")


class _MovedFinder(importlib.abc.MetaPathFinder):
    """Finds ``tempnets.<old module>`` as the module it moved to (:data:`MOVED`)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED:
            return importlib.util.spec_from_loader(fullname, _AliasLoader(MOVED[fullname]))
        return None


def install_moved_finder() -> None:
    """Let the old flat module paths load (once per process)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())


def submodules_on_demand(package: str, names, extra=None):
    """A module ``__getattr__`` for a layer: ``layer.srn`` imports ``layer/srn.py`` when first
    used, so that importing a layer does not import all of it (``book`` would pull in
    matplotlib and ipywidgets).  ``extra(name)`` may serve other names, or raise
    ``AttributeError``."""
    names = frozenset(names)

    def __getattr__(name):
        if name in names:
            return importlib.import_module(f"{package}.{name}")
        if extra is not None:
            return extra(name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
