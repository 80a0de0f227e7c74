"""Randomness through an argument, never through global state.

Every function in ``tempnets`` that draws random numbers takes ``rng`` and
passes it through :func:`as_generator` first (the pattern of QuantEcon's
``check_random_state`` and SciPy's ``rng=``).  Independent replications get
independent streams from :func:`spawn`, so network ``k`` of a seed is the same
network whether it is trained alone or among twenty.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import numbers
import os

import numpy as np

from .checks import count

__all__ = ["PERTURB_VARIABLE", "as_generator", "spawn", "perturbation", "perturbed",
           "perturbing"]

RngLike = "np.random.Generator | int | None"
MAX_CHILDREN = 100_000
"""The most generators :func:`spawn` makes at once (far more networks than any run trains)."""


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
        Number of children, ``0 <= n <= MAX_CHILDREN`` (each is a generator of its own:
        a million take a minute and a gigabyte).
    """
    n = count("n", n)
    if n > MAX_CHILDREN:
        raise ValueError(f"n must be at most {MAX_CHILDREN:,} generators, got {n:,}")
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        as_generator(rng)  # validates the seed
        seq = np.random.SeedSequence(int(rng))
        return [np.random.default_rng(s) for s in seq.spawn(n)]
    return list(as_generator(rng).spawn(n))


PERTURB_VARIABLE = "TEMPNETS_PERTURB"
"""Environment variable holding the relative perturbation of initial weights (see :func:`perturbed`)."""


def perturbation() -> float:
    """The relative perturbation ``EPS`` of every initial weight, from ``$TEMPNETS_PERTURB`` (0 when unset).

    An environment variable rather than an argument so that it reaches every
    initialiser of a run, in worker threads and in spawned worker processes alike,
    without threading a flag through every chapter (set by
    ``python -m tempnets reproduce ID --perturb EPS`` and :func:`perturbing`).
    """
    text = os.environ.get(PERTURB_VARIABLE, "").strip()
    if not text:
        return 0.0
    try:
        eps = float(text)
    except ValueError:
        eps = math.nan
    if not 0.0 <= eps < 1.0:
        raise ValueError(f"${PERTURB_VARIABLE} must be a number in [0, 1), got {text!r}")
    return eps


def perturbed(weights):
    """``weights * (1 + EPS u)``, u uniform in [-1, 1]; ``weights`` unchanged when EPS = 0.

    Called by every initialiser on what it drew, so that a run with
    ``--perturb 1e-12`` starts a few ulp away from the same seed's run and follows
    the trajectory another machine's arithmetic would.  ``u`` comes from its own
    stream, seeded by the bytes of ``weights``: the initialiser's own stream is
    untouched (the same batches, the same networks otherwise) and the
    perturbation does not depend on which thread or process draws it.
    """
    eps = perturbation()
    if eps == 0.0:
        return weights
    w = np.asarray(weights, dtype=np.float64)
    key = int.from_bytes(hashlib.sha256(w.tobytes()).digest()[:8], "little")
    u = np.random.default_rng([key, len(PERTURB_VARIABLE)]).uniform(-1.0, 1.0, w.shape)
    return w * (1.0 + eps * u)


@contextlib.contextmanager
def perturbing(eps: float):
    """Within the block, every initial weight is :func:`perturbed` by ``eps`` (in this process
    and in the worker processes it starts)."""
    old = os.environ.get(PERTURB_VARIABLE)
    os.environ[PERTURB_VARIABLE] = repr(float(eps))
    try:
        perturbation()  # refuses a bad eps before anything runs
        yield
    finally:
        if old is None:
            del os.environ[PERTURB_VARIABLE]
        else:
            os.environ[PERTURB_VARIABLE] = old
