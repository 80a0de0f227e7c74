"""``tk-kernels``: what the temporal kernels do (exact computations, no training)."""

from __future__ import annotations

import math

import numpy as np

from ...book import claims
from ...models import rnn_baselines as rb, tkrnn
from ..._numerics import checks
from ..._numerics.checks import count
from ...book.experiments import Result
from .sizes import SIZES
from .networks import _need


# ----------------------------------------------------------------------------- kernels

def pulse_states(lambdas, steps: int = 30) -> np.ndarray:
    """The kernel state of one input unit after a unit pulse at step 0, at lags 1..steps.

    Computed by the library's forward pass (a 1-input TKRNN whose input decays are
    ``lambdas``), so it shows what the recursion of eq. 9 actually carries.
    Returns ``(len(lambdas), steps)``.
    """
    la = tkrnn.check_lambda(checks.array("lambdas", np.atleast_1d(lambdas), (None,)), "lambdas")
    steps = count("steps", steps, 1, 100_000)
    out = []
    for lx in la:
        p = tkrnn.init_params(1, 1, 1, rng=0)
        p["theta"][0, 1] = math.log(lx / (1 - lx))
        x = np.zeros((steps, 1, 1))
        x[0, 0, 0] = 1.0
        _, _, K = tkrnn.tkrnn_forward(p, x, return_states=True)
        out.append(K[1:, 0, 1])  # K[k] = S_k, lag k = 1 .. steps
    return np.array(out)


KERNEL_LAMBDAS = (0.5, 0.8, 0.95)
PLUS2 = {"weights": (1.0, -1.0), "lambdas": (0.9, 0.6)}
"""A TKRNN^{+2} connection whose kernel rises, peaks and decays (ours, for the figure)."""


def run_kernels(scale="book", seed=0, jobs=1, progress=None, trained=None) -> Result:
    """What the kernels do (``tk-kernels``): no training, the same at both scales."""
    if trained is None:
        lags = np.arange(1, 61)
        S = pulse_states(KERNEL_LAMBDAS, 60)
        plus2 = tkrnn.kernel(PLUS2["weights"], PLUS2["lambdas"], lags)
        sz = SIZES["paper"]
        I, O, H = sz.task.n_in, sz.task.n_out, sz.hidden
        data = {"experiment": "tk-kernels", "lags": lags.tolist(),
                "lambdas": list(KERNEL_LAMBDAS), "pulse": S.tolist(),
                "closed_form": (np.array(KERNEL_LAMBDAS)[:, None] ** (lags - 1)).tolist(),
                "plus2": plus2.tolist(), "plus2_setting": PLUS2,
                "n_params": {"RNN": rb.n_params("rnn", I, H, O),
                             **{f"TKRNN+{n}": tkrnn.n_params(I, H, O, n) for n in (1, 2, 3)}},
                "multiply_adds": {"RNN": (H + I) * (H + O),
                                  **{f"TKRNN+{n}": tkrnn.multiply_adds(I, H, O, n) for n in (1, 2, 3)}},
                "sizes": {"n_in": I, "n_hidden": H, "n_out": O}}
    else:
        data = trained.data if isinstance(trained, Result) else trained
        _need(data, ["pulse", "closed_form", "plus2", "n_params", "multiply_adds"], "tk-kernels")
        for key in ("n_params", "multiply_adds"):  # ratios of them are claimed
            for model in ("RNN", "TKRNN+1", "TKRNN+3"):
                count(f"trained {key}[{model!r}]", data[key].get(model) if isinstance(data[key], dict) else None, 1)
    err = float(np.max(np.abs(np.array(data["pulse"]) - np.array(data["closed_form"]))))
    k = np.array(data["plus2"])
    changes = int(np.sum(np.diff(np.sign(np.diff(k))) != 0))
    npar = data["n_params"]
    # every row is exact arithmetic on the model's definition, true of any network: checks of
    # the code, shown and counted apart from the replications (issue 32)
    t = claims.ClaimsTable("What the temporal kernels do (exact computations, no training)")
    t.add("the kernel state holds a pulse as λ^{k−1} at lag k (eqs. 8-9): max |recursion − closed form|",
          "eqs. 8-9", None, err, claims.at_most(1e-12), kind="computation")
    t.add("a TKRNN^{+2} connection can have a non-monotone kernel (rises, then decays): changes of "
          "direction", "§3 (TKRNN^{+n}); slide figure", None, changes, claims.at_least(1.0),
          note=f"w = {PLUS2['weights']}, λ = {PLUS2['lambdas']}", kind="computation")
    t.add("almost the same number of parameters as the RNN: TKRNN / RNN (100 hidden units, 35-bit task)",
          "§3", None, round(npar["TKRNN+1"] / npar["RNN"], 4), claims.at_most(1.01),
          note=f"{npar['TKRNN+1']} vs {npar['RNN']}: one λ per sending unit", kind="computation")
    ma = data["multiply_adds"]
    t.add("as efficient as the standard RNN: multiply-adds per step, TKRNN / RNN", "§3", None,
          round(ma["TKRNN+1"] / ma["RNN"], 4), claims.at_most(1.01),
          note="the kernel update adds one multiply-add per sender", kind="computation")
    t.add("the TKRNN^{+n} is n times slower per pass: multiply-adds per step, TKRNN^{+3} / TKRNN",
          "§3", 3.0, round(ma["TKRNN+3"] / ma["TKRNN+1"], 3), claims.within(0.01), kind="computation")
    return Result(t, data)
