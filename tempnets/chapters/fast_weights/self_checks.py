"""The exercises' checks: eq. (7)'s squash (:func:`check_sigma`), the latch's fixed points
(:func:`latch_fixed_points`, :func:`check_latch_fixed_point`), the p-variables of interface (5)
(:func:`check_p_step_from_to`) and linear attention (:func:`check_linear_attention`)."""

from __future__ import annotations

import numpy as np

from ..._numerics import checks
from ...models import fast_weights as fw
from ...book.selfcheck import check_function, check_value


# ----------------------------------------------------------------------------- self-checks
def _sigma(w_old, box, T=10.0):
    w = 1.0 / (1.0 + np.exp(-T * (np.asarray(w_old) + np.asarray(box) - 0.5)))
    return w, T * w * (1 - w)


def check_sigma(fn) -> None:
    """Exercise: ``fn(w_old, box, T)`` returns eq. (7)'s new weight and its derivative."""
    cases = [(0.0, 0.0, 10.0), (0.9, 0.2, 10.0), (np.array([0.1, 0.5]), np.array([-1.0, 0.3]), 3.0)]
    check_function("sigma", fn, _sigma, cases,
                   hint="sigma = 1 / (1 + exp(-T (w_old + box - 0.5))); both partials equal T sigma (1 - sigma)")


def latch_fixed_points(T: float = 10.0) -> np.ndarray:
    """The three fixed points of ``w -> σ(w, 0)`` for T = 10 (low, middle, high), by bisection.

    There are three only for T > 4 (the slope of σ at w = 0.5 is T/4); a smaller T is refused."""
    T = checks.real("T", T, low=4.0, low_open=True)
    f = lambda w: 1.0 / (1.0 + np.exp(-T * (w - 0.5))) - w  # noqa: E731
    out = []
    for lo, hi in ((0.0, 0.3), (0.3, 0.7), (0.7, 1.0)):
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(lo) * f(mid) > 0 else (lo, mid)
        out.append((lo + hi) / 2)
    return np.array(out)


def check_latch_fixed_point(value) -> None:
    """Exercise: the upper fixed point of w -> σ(10 (w - 0.5)) (where a set weight settles)."""
    check_value("upper fixed point", value, latch_fixed_points()[2], rtol=1e-6,
                hint="iterate w = sigma(10 (w - 0.5)) from w = 1, or bisect on [0.7, 1]")


def check_p_step_from_to(fn) -> None:
    """Exercise: ``fn(P_from, P_to, w_new, s_from, s_to, x, T)`` -> the new (P_from, P_to) of
    one fast weight w_ab under interface (5) (eq. 3 with eq. 6)."""
    def ref(P_from, P_to, w_new, s_a, s_b, x, T):
        fp = T * w_new * (1 - w_new)
        return fp * (P_from + s_b * x), fp * (P_to + s_a * x)
    g = np.random.default_rng(3)
    cases = [(g.normal(size=3), g.normal(size=3), 0.3, 0.5, -0.7, np.array([1.0, 0.0, 0.0]), 10.0),
             (g.normal(size=3), g.normal(size=3), 0.9, -0.2, 0.4, g.normal(size=3), 5.0)]
    check_function("p-variable step for (5)", fn, ref, cases,
                   hint="the FROM row's derivative of s_a s_b is s_b x, the TO row's is s_a x; "
                        "multiply the sum by sigma' = T w(1 - w)")


def check_linear_attention(fn) -> None:
    """Exercise: ``fn(q, k, v)`` -> causal unnormalised linear attention, via one carried matrix."""
    g = np.random.default_rng(4)
    cases = [(g.normal(size=(6, 3)), g.normal(size=(6, 3)), g.normal(size=(6, 2))),
             (g.normal(size=(1, 2)), g.normal(size=(1, 2)), g.normal(size=(1, 4)))]
    check_function("linear attention", fn, fw.linear_attention, cases, rtol=1e-9,
                   hint="W = W + outer(v_t, k_t), then y_t = W q_t (write first, then read)")
