"""The book's machinery: claims and their intervals, experiments and their records,
self-checks and assignments, figures, and the book's configuration.

Each module is public through its own ``__all__``.  May import every layer below it
(:mod:`tempnets.training`, :mod:`tempnets.tasks`, :mod:`tempnets.models`,
:mod:`tempnets._numerics`); ``bookconfig`` also imports the chapters, lazily, to compile their
kernels before the book runs.

===================  ==============================================================
``claims``           paper-vs-ours claims tables that fail loudly
``claims_view``      a claims table as a reader sees it: forest plot, badges, footnotes
``intervals``        confidence intervals for what a claim measures over a few runs
``sequential``       networks added in groups until every claim is decided (or a cap)
``scale``            ``book`` / ``paper`` experiment sizes (``TEMPNETS_SCALE``)
``experiments``      the registry and records behind ``python -m tempnets``
``cluster``          an experiment's pieces on a Dask cluster (``--cluster``)
``scorecard``        every claim of the book, by chapter, at both scales
``selfcheck``        self-checks that grade a student's answer with a clear message
``assignments``      Otter-grader assignments made from the chapters' exercises
``plots``            the papers' figures, drawn by code (never called by training)
``explorer``         stepping through a string with a trained SRN (ipywidgets)
``bookconfig``       the book's editions (instructor, student) and its warm-up
===================  ==============================================================
"""

from .._layers import LAYERS, submodules_on_demand

__all__ = list(LAYERS["book"])
__getattr__ = submodules_on_demand(__name__, __all__)
