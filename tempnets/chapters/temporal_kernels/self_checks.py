"""The chapter's coding exercises' checks."""

from __future__ import annotations

import math

import numpy as np

from ...models import tkrnn
from ..._numerics import checks
from ...book.selfcheck import CheckFailed, check_function, check_value


# ----------------------------------------------------------------------------- self-checks

def check_kernel(fn) -> None:
    """Coding exercise: ``fn(weights, lambdas, lags)`` returns κ(k) = Σ_r w_r λ_r^{k−1}."""
    cases = [(np.array([1.0]), np.array([0.5]), np.arange(1, 6)),
             (np.array([1.0, -1.0]), np.array([0.9, 0.6]), np.arange(1, 20)),
             (np.array([0.3, 2.0, -1.0]), np.array([0.2, 0.7, 0.95]), np.array([1, 3, 10, 40]))]
    check_function("kernel", fn, tkrnn.kernel, cases,
                   hint="lag k = 1 is the previous step and carries λ^0 = 1; sum over the kernels r")


def check_lambda_grad(answer, params, x, target, mask) -> None:
    """Coding exercise: ``answer`` is dL/dθ (θ = logit λ) for these arguments, shape (n, H + I)."""
    if not isinstance(params, dict) or "theta" not in params:
        raise TypeError(f"params must be a TKRNN's parameters (a dict from tkrnn.init_params), got "
                        f"{checks.shown(params)}")
    if target is None or mask is None:
        raise TypeError("target and mask must be arrays of the batch (the exercise's t6 and m6), got None")
    tkrnn.check_batch(x, target, mask)
    _, g = tkrnn.tkrnn_loss_and_grad(params, x, target, mask)
    if not np.max(np.abs(g["theta"])) > 1e-6:  # then an answer of zeros would pass
        raise CheckFailed("dL/dθ: for these arguments the gradient is zero everywhere (does the mask score "
                          "no step?), so any answer of zeros would pass: check it on the exercise's "
                          "p6, x6, t6, m6.")
    check_value("dL/dθ", answer, g["theta"], rtol=1e-5, atol=1e-9,
                hint="dL/dλ = Σ_t G_t ⊙ K_{t−1}; then multiply by dλ/dθ = λ(1 − λ)")


def check_half_life(answer, lam_value: float) -> None:
    """Coding exercise: the lag at which a pulse has decayed to half, ``ln 0.5 / ln λ`` steps."""
    if tkrnn.check_lambda(lam_value, "lam_value").ndim:
        raise TypeError(f"lam_value must be one number in (0, 1), got {checks.shown(lam_value)}")
    check_value(f"half-life for λ = {lam_value}", answer, math.log(0.5) / math.log(lam_value),
                rtol=1e-6, hint="solve λ^h = 1/2 for h")
