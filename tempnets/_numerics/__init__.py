"""Private numerics: the arithmetic, randomness and argument checks every layer stands on.

Nothing here is public: readers and chapters use the layers above, whose public functions
check their arguments and then call these.  Imports numpy and numba only, never another
layer.

===================  ==============================================================
``checks``           argument checks with clear errors, and :class:`DivergenceError`
``portable``         scalar arithmetic for compiled kernels, the same bits on every CPU
``portable_math``    matrix products and elementary functions, the same bits on every CPU
``random``           randomness through an explicit ``rng``: :func:`as_generator`, ``spawn``
===================  ==============================================================
"""

__all__ = []  # private: see the docstring
