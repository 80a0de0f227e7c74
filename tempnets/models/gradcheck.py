r"""Gradient checking by central differences.

Every learning rule derived in the book is checked against

.. math::

    \frac{\partial L}{\partial \theta_i} \approx
    \frac{L(\theta + h e_i) - L(\theta - h e_i)}{2h},

computed in float64, and compared by the relative error

.. math::

    \mathrm{rel}(a, n) = \frac{\lVert a - n \rVert}
                              {\max(\lVert a \rVert, \lVert n \rVert, \mathrm{floor})},

whose floor keeps tiny gradients from turning round-off into large ratios.
For large parameter sets, :func:`check_directional` compares the directional
derivative along a few random unit directions instead of every coordinate.

Checks assert: a disagreement raises :class:`GradientCheckError` saying where
and by how much.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._numerics import checks
from .._numerics.random import as_generator

__all__ = ["GradientCheckError", "relative_error", "numerical_gradient", "check_gradient",
           "check_directional"]


class GradientCheckError(AssertionError):
    """An analytic gradient disagrees with its finite-difference estimate."""


def relative_error(analytic, numeric, floor: float = 1e-8) -> float:
    """Relative error between two gradients (norm of difference over the larger norm).

    Parameters
    ----------
    analytic, numeric : array_like
        Gradients of the same shape.
    floor : float
        Lower bound of the denominator, so that two gradients that are both
        almost zero compare as equal rather than as wildly different.
    """
    a = checks.array("analytic", analytic, finite=False)
    n = checks.array("numeric", numeric, finite=False)
    if a.shape != n.shape:
        raise ValueError(f"gradients differ in shape: analytic {a.shape} vs numeric {n.shape}")
    if not checks.is_finite_real(floor) or floor <= 0:
        raise ValueError(f"floor must be positive, got {floor}")
    denom = max(np.linalg.norm(a), np.linalg.norm(n), floor)
    return float(np.linalg.norm(a - n) / denom)


def numerical_gradient(f: Callable[[np.ndarray], float], x, eps: float = 1e-6) -> np.ndarray:
    """Central-difference gradient of the scalar function ``f`` at ``x``.

    ``f`` is called with a float64 copy of ``x`` perturbed in one coordinate
    at a time (``2 * x.size`` calls); ``x`` itself is never modified.
    """
    x = checks.array("x", x).copy()  # a private copy
    if not checks.is_finite_real(eps) or eps <= 0:
        raise ValueError(f"eps must be positive, got {eps}")
    grad = np.empty_like(x)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        up = float(f(x))
        flat[i] = old - eps
        down = float(f(x))
        flat[i] = old
        gflat[i] = (up - down) / (2 * eps)
    return grad


def check_gradient(f, grad, x, *, eps: float = 1e-6, rtol: float = 1e-6,
                   floor: float = 1e-8) -> float:
    """Assert that ``grad`` (analytic) matches the central-difference gradient of ``f`` at ``x``.

    Parameters
    ----------
    f : callable
        Scalar function of an array shaped like ``x``.
    grad : array_like
        The analytic gradient at ``x`` to check.
    x : array_like
        Where to check.
    eps : float
        Finite-difference step.
    rtol : float
        Largest acceptable :func:`relative_error`.
    floor : float
        Denominator floor for :func:`relative_error`.

    Returns
    -------
    float
        The relative error (so chapters can print it).

    Raises
    ------
    GradientCheckError
        If the relative error exceeds ``rtol``; the message names the
        coordinate with the largest disagreement.
    """
    rtol = checks.real("rtol", rtol, low=0.0)
    analytic = checks.array("grad", grad, finite=False)
    numeric = numerical_gradient(f, x, eps=eps)
    if analytic.shape != numeric.shape:
        raise ValueError(f"grad has shape {analytic.shape} but x has shape {numeric.shape}")
    err = relative_error(analytic, numeric, floor=floor)
    if not err <= rtol:  # also catches NaN
        diff = np.abs(analytic - numeric).reshape(-1)
        worst = int(np.nanargmax(diff)) if np.isfinite(diff).any() else 0
        idx = np.unravel_index(worst, numeric.shape) if numeric.shape else ()
        raise GradientCheckError(
            f"gradient check failed: relative error {err:.3g} > rtol {rtol:.3g}; "
            f"worst at index {tuple(int(i) for i in idx)}: analytic "
            f"{analytic.reshape(-1)[worst]:.6g} vs numerical {numeric.reshape(-1)[worst]:.6g}"
        )
    return err


def check_directional(f, grad, x, *, n_directions: int = 5, eps: float = 1e-6,
                      rtol: float = 1e-6, floor: float = 1e-8, rng=None) -> float:
    """Assert that ``grad`` matches ``f``'s directional derivatives along random directions.

    For parameter sets too large to perturb one coordinate at a time: along
    each random unit vector ``u``, compare ``grad · u`` with
    ``(f(x + eps u) - f(x - eps u)) / (2 eps)``.  Costs ``2 * n_directions``
    calls of ``f``.

    Returns the largest relative error; raises :class:`GradientCheckError`
    if it exceeds ``rtol``.
    """
    n_directions = checks.count("n_directions", n_directions, 1)
    gen = as_generator(rng)
    x = checks.array("x", x)
    g = checks.array("grad", grad, finite=False)
    eps = checks.real("eps", eps, low=0.0, low_open=True)
    rtol = checks.real("rtol", rtol, low=0.0)
    floor = checks.real("floor", floor, low=0.0, low_open=True)
    if g.shape != x.shape:
        raise ValueError(f"grad has shape {g.shape} but x has shape {x.shape}")
    worst = 0.0
    for k in range(n_directions):
        u = gen.standard_normal(x.shape)
        u /= np.linalg.norm(u)
        numeric = (float(f(x + eps * u)) - float(f(x - eps * u))) / (2 * eps)
        analytic = float(np.sum(g * u))
        # Scale by the gradient's norm: a directional derivative can be near 0
        # by accident even when the gradient is large.
        denom = max(abs(analytic), abs(numeric), np.linalg.norm(g), floor)
        err = abs(analytic - numeric) / denom
        if not err <= rtol:
            raise GradientCheckError(
                f"directional gradient check failed along direction {k}: "
                f"analytic {analytic:.6g} vs numerical {numeric:.6g} "
                f"(relative error {err:.3g} > rtol {rtol:.3g})"
            )
        worst = max(worst, err)
    return worst
