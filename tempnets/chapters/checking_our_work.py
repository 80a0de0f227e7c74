"""Self-checks for the chapter ``book/checking_our_work`` (one logistic unit, gradient checks).

The chapter runs no experiment; this module holds the graders of its coding
exercise (:func:`check_crossentropy_gradient`), built on :mod:`tempnets.book.selfcheck`.
"""

from __future__ import annotations

import numpy as np

from .._numerics.checks import array, real
from ..book.selfcheck import check_function

__all__ = ["crossentropy_gradient", "check_crossentropy_gradient"]


def crossentropy_gradient(theta, x, t) -> np.ndarray:
    r"""Gradient of :math:`L = -t \log y - (1 - t) \log(1 - y)` for one logistic unit.

    ``theta = (w_1, ..., w_n, b)``, :math:`y = f(w \cdot x + b)`; the factor
    :math:`f'(\mathrm{net}) = y(1 - y)` cancels: :math:`\partial L / \partial w_j = -(t - y)\,x_j`.
    """
    x = array("x", x, ("n",))
    theta = array("theta", theta, ("n+1",), {"n+1": (x.size + 1, "x (n inputs and a bias)")})
    t = real("t", t, low=0.0, high=1.0)
    y = 1 / (1 + np.exp(-(theta[:-1] @ x + theta[-1])))
    return -(t - y) * np.append(x, 1.0)


def check_crossentropy_gradient(fn) -> None:
    """Check ``fn(theta, x, t)``, the cross-entropy gradient of one logistic unit with 3 inputs."""
    rng = np.random.default_rng(12)
    cases = [(rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 3), t) for t in (1.0, 0.0, 1.0)]
    cases.append((np.array([3.0, -2.0, 4.0, 1.0]), np.array([1.0, -1.0, 1.0]), 0.0))  # saturated and wrong
    check_function("cross-entropy gradient", fn, crossentropy_gradient, cases,
                   hint="multiply dL/dy by dy/dnet = y(1 - y): what is left? The bias is the last entry.")
