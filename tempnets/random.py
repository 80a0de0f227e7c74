"""Randomness through an argument, never through global state.

Every function in ``tempnets`` that draws random numbers takes ``rng`` and
passes it through :func:`as_generator` first (the pattern of QuantEcon's
``check_random_state`` and SciPy's ``rng=``).  Independent replications get
independent streams from :func:`spawn`, so network ``k`` of a seed is the same
network whether it is trained alone or among twenty.
"""

from __future__ import annotations

import numbers

import numpy as np

from .checks import count

RngLike = "np.random.Generator | int | None"


def as_generator(rng=None) -> np.random.Generator:
    """Return a :class:`numpy.random.Generator` for ``rng``.

    Parameters
    ----------
    rng : numpy.random.Generator, int or None
        A generator is returned unchanged (so draws continue its stream); a
        non-negative integer seeds a new PCG64 generator; ``None`` gives a
        generator seeded from the operating system (not reproducible).

    Raises
    ------
    TypeError
        If ``rng`` is of any other type (``np.random.RandomState`` included:
        the legacy global-style API is deliberately not accepted).
    ValueError
        If ``rng`` is a negative integer.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"rng seed must be a non-negative integer, got {rng}")
        return np.random.default_rng(int(rng))
    raise TypeError(
        "rng must be a numpy.random.Generator, a non-negative int seed or None, "
        f"got {type(rng).__name__} ({rng!r})"
    )


def spawn(rng, n: int) -> list[np.random.Generator]:
    """Return ``n`` statistically independent generators derived from ``rng``.

    With an integer seed, child ``k`` depends only on the seed and ``k`` (not
    on ``n``): ``spawn(7, 20)[3]`` and ``spawn(7, 4)[3]`` draw the same numbers.
    This is what makes replication ``k`` independent of how many ran beside it.

    Parameters
    ----------
    rng : numpy.random.Generator, int or None
        The parent (see :func:`as_generator`).
    n : int
        Number of children, ``n >= 0``.
    """
    n = count("n", n)
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        as_generator(rng)  # validates the seed
        seq = np.random.SeedSequence(int(rng))
        return [np.random.default_rng(s) for s in seq.spawn(n)]
    return list(as_generator(rng).spawn(n))
