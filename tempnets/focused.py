r"""Focused back-propagation: Mozer (1989/1995), *A focused backpropagation algorithm
for temporal pattern recognition* (``papers/000``), the "focused" network, its
activity traces, and the "full" recurrent network it is compared with.

Equations (the appendix's time convention A.1 throughout, :math:`c_i(0) = 0`)
----------------------------------------------------------------------------
Focused context unit, eq. 1 / A.1, with the learned zero point :math:`z_i`:

.. math::

    c_i(t) = d_i\,c_i(t-1) + s_i[\mathrm{net}_i(t)],\qquad
    \mathrm{net}_i(t) = \sum_j w_{ji}\,x_j(t) + b_i,\qquad
    s_i[u] = \frac{1}{1+e^{-u}} + z_i .

Its activity traces (appendix A.4-A.8; :math:`\gamma` "derived as those for
:math:`d_i` and :math:`w_{ji}`"), all zero at :math:`t = 0`:

.. math::

    \alpha_i(t) = c_i(t-1) + d_i\,\alpha_i(t-1),\quad
    \beta_{ji}(t) = s'[\mathrm{net}_i(t)]\,x_j(t) + d_i\,\beta_{ji}(t-1),\quad
    \gamma_i(t) = 1 + d_i\,\gamma_i(t-1),

so that :math:`\alpha_i = \partial c_i/\partial d_i`, :math:`\beta_{ji} =
\partial c_i/\partial w_{ji}`, :math:`\gamma_i = \partial c_i/\partial z_i`
(the bias is the weight from an input fixed at 1).  The gradient of an error
:math:`E = \sum_t E_t` is :math:`\partial E/\partial d_i = \sum_t
\delta_i^{\rm out}(t)\,\alpha_i(t)` etc., where :math:`\delta_i^{\rm out}(t) =
\partial E_t/\partial c_i(t)` comes straight down from the outputs at time
:math:`t` (eq. 2: the error a unit receives never leaves it, it only scales by
:math:`d_i` per step back, which is what the traces sum in advance).

Variant eq. 3 (the recurrence inside the squash; Bachrach, Gori et al., Miyata):

.. math::

    c_i(t) = s_i[\mathrm{net}_i(t)],\quad \mathrm{net}_i(t) = d_i c_i(t-1) + \sum_j w_{ji} x_j(t) + b_i,

    \alpha_i(t) = s'(t)\,(c_i(t-1) + d_i\alpha_i(t-1)),\quad
    \beta_{ji}(t) = s'(t)\,(x_j(t) + d_i\beta_{ji}(t-1)),\quad
    \gamma_i(t) = 1 + s'(t)\,d_i\,\gamma_i(t-1)

(the print has :math:`s'[\mathrm{net}_i(t)]` for step :math:`\tau`; the
:math:`\gamma` of eq. 3 is ours).

The "full" network has a complete recurrent matrix :math:`W^{cc}`, eq. 3's
squash, no zero point, and is trained by back-propagation through the whole
sequence (:func:`bptt_gradient`).  The context layer maps straight to logistic
outputs :math:`y(t) = \sigma(W^{out} c(t) + b^{out})`; the error is
:math:`E = \tfrac12 \sum_t m_t \sum_k (y_k(t) - \hat y_k(t))^2` with
:math:`m_t = 1` at the steps that carry a target.

Symbols
-------
==========================  ==============================  =========================
paper                       code                            shape
==========================  ==============================  =========================
:math:`w_{ji}`              ``W_in[i, j]``                  ``(n_ctx, n_in)``
context bias                ``b_c[i]``                      ``(n_ctx,)``
:math:`d_i`                 ``d[i]`` (full: ``W_cc``)       ``(n_ctx,)`` / ``(n_ctx, n_ctx)``
:math:`z_i`                 ``z[i]``                        ``(n_ctx,)``
context→output              ``W_out[k, i]``, ``b_o[k]``     ``(n_out, n_ctx)``, ``(n_out,)``
:math:`\alpha_i, \beta_{ji}, \gamma_i`  ``alpha[i]``, ``beta[i, j]`` (``beta[i, n_in]``: bias), ``gamma[i]``
==========================  ==============================  =========================

Data: a batch of sequences is a :class:`Sequences` (flat inputs, targets and
target mask, with ``offsets`` as in the package conventions).  Training
(:func:`train`) is batch gradient descent with Mozer's adaptive learning rate per
connection type, :math:`\epsilon_k = \mathrm{mse}^\mu\,\rho\,\min(\omega, W_k/\nabla_k)`,
no momentum, ``R`` networks side by side in a compiled kernel.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

from .progress import progress_bar
from .random import as_generator, spawn
from .training import DivergenceError

__all__ = ["FocusedParams", "FullParams", "Sequences", "make_sequences", "init_focused",
           "init_full", "connection_count", "forward", "trace_gradient", "bptt_gradient",
           "FocusedConfig", "History", "train", "init_many", "evaluate", "learning_rates",
           "VARIANTS", "SCORES"]

VARIANTS = ("eq1", "eq3")
_FAST = {"reassoc", "contract", "arcp"}  # lets LLVM vectorise the sums; keeps NaN/inf semantics for the checks
SCORES = ("argmax", "quantised")


# ----------------------------------------------------------------------------- parameters

class FocusedParams(NamedTuple):
    """A focused network (or a stack of ``R``: every array gets a leading ``R`` axis)."""

    W_in: np.ndarray   # (n_ctx, n_in)   w_ji, stored to-row/from-column
    b_c: np.ndarray    # (n_ctx,)
    d: np.ndarray      # (n_ctx,)        decay (self-connection)
    z: np.ndarray      # (n_ctx,)        zero point of s_i
    W_out: np.ndarray  # (n_out, n_ctx)
    b_o: np.ndarray    # (n_out,)

    def network(self, k: int) -> "FocusedParams":
        """Network ``k`` of a stack."""
        return FocusedParams(*(a[k] for a in self))


class FullParams(NamedTuple):
    """A full recurrent network (eq. 3, complete context connectivity, no zero point)."""

    W_in: np.ndarray   # (n_ctx, n_in)
    b_c: np.ndarray    # (n_ctx,)
    W_cc: np.ndarray   # (n_ctx, n_ctx)  W_cc[i, j]: from context unit j to i
    W_out: np.ndarray  # (n_out, n_ctx)
    b_o: np.ndarray    # (n_out,)

    def network(self, k: int) -> "FullParams":
        """Network ``k`` of a stack."""
        return FullParams(*(a[k] for a in self))


def connection_count(params) -> int:
    """Adjustable parameters of one network (Mozer counts d, z and biases as connections)."""
    if not isinstance(params, (FocusedParams, FullParams)):
        raise TypeError(f"params must be FocusedParams or FullParams, got {type(params).__name__}")
    return int(sum(np.asarray(a).size for a in params))


def _fan_in_normalised(gen, n_rows, n_cols, l1):
    """Gaussian rows scaled so that each row (a unit's fan-in, bias last) has L1 norm ``l1``."""
    w = gen.standard_normal((n_rows, n_cols))
    return w * (l1 / np.abs(w).sum(axis=1, keepdims=True))


def _check_size(name, n):
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 1:
        raise ValueError(f"{name} must be a positive integer, got {n!r}")
    return int(n)


def init_focused(n_in: int, n_ctx: int, n_out: int, rng=None, *, z0: float = -0.5,
                 d_range=(0.99, 1.01), l1: float = 2.0) -> FocusedParams:
    """Mozer's initialisation ("Implementation details").

    Input→context and context→output weights are zero-mean Gaussian, each
    unit's fan-in (its bias included, our reading) normalised to L1 norm
    ``l1`` = 2.0; ``z_i = z0`` = −0.5; ``d_i ~ U(d_range)`` = U(0.99, 1.01).
    """
    n_in, n_ctx, n_out = (_check_size(k, v) for k, v in (("n_in", n_in), ("n_ctx", n_ctx), ("n_out", n_out)))
    lo, hi = d_range
    if not lo <= hi:
        raise ValueError(f"d_range must be (low, high) with low <= high, got {d_range!r}")
    gen = as_generator(rng)
    cin = _fan_in_normalised(gen, n_ctx, n_in + 1, l1)
    cout = _fan_in_normalised(gen, n_out, n_ctx + 1, l1)
    d = gen.uniform(lo, hi, n_ctx)
    return FocusedParams(cin[:, :n_in].copy(), cin[:, n_in].copy(), d, np.full(n_ctx, float(z0)),
                         cout[:, :n_ctx].copy(), cout[:, n_ctx].copy())


def init_full(n_in: int, n_ctx: int, n_out: int, rng=None, *, l1: float = 2.0) -> FullParams:
    """The full network's initialisation: each context unit's fan-in (inputs, the other
    context units and its bias) and each output unit's fan-in Gaussian with L1 norm ``l1``."""
    n_in, n_ctx, n_out = (_check_size(k, v) for k, v in (("n_in", n_in), ("n_ctx", n_ctx), ("n_out", n_out)))
    gen = as_generator(rng)
    cin = _fan_in_normalised(gen, n_ctx, n_in + n_ctx + 1, l1)
    cout = _fan_in_normalised(gen, n_out, n_ctx + 1, l1)
    return FullParams(cin[:, :n_in].copy(), cin[:, n_in + n_ctx].copy(), cin[:, n_in:n_in + n_ctx].copy(),
                      cout[:, :n_ctx].copy(), cout[:, n_ctx].copy())


# ----------------------------------------------------------------------------- data

class Sequences(NamedTuple):
    """A batch of sequences in the flat layout the kernels see.

    Attributes
    ----------
    X : (N, n_in) float64
        Inputs of every step of every sequence, one after the other.
    Y : (N, n_out) float64
        Targets (rows where ``M`` is 0 are ignored).
    M : (N,) float64
        1.0 where a step carries a target (the final step for classification;
        every step for sequence reproduction), else 0.0.
    offsets : (n_seq + 1,) int64
        Sequence ``s`` is rows ``offsets[s]:offsets[s + 1]``.
    """

    X: np.ndarray
    Y: np.ndarray
    M: np.ndarray
    offsets: np.ndarray

    @property
    def n_seq(self) -> int:
        return len(self.offsets) - 1


def make_sequences(inputs, targets) -> Sequences:
    """Build :class:`Sequences` from per-sequence arrays.

    Parameters
    ----------
    inputs : list of array_like, each (T_s, n_in)
    targets : list of array_like
        Each either ``(n_out,)``: one target at the final step (classification),
        or ``(T_s, n_out)``: a target at every step.

    Raises
    ------
    ValueError
        Empty batch, an empty sequence, mismatched feature sizes or lengths,
        non-finite values.
    """
    inputs, targets = list(inputs), list(targets)
    if not inputs:
        raise ValueError("no sequences given (need at least one)")
    if len(inputs) != len(targets):
        raise ValueError(f"{len(inputs)} input sequences but {len(targets)} targets")
    xs = [np.asarray(x, dtype=np.float64) for x in inputs]
    n_in = xs[0].shape[-1] if xs[0].ndim == 2 else None
    ys, ms = [], []
    for s, (x, y) in enumerate(zip(xs, targets)):
        if x.ndim != 2 or x.shape[0] == 0:
            raise ValueError(f"sequence {s} must be a non-empty (T, n_in) array, got shape {x.shape}")
        if x.shape[1] != n_in:
            raise ValueError(f"sequence {s} has {x.shape[1]} input features, sequence 0 has {n_in}")
        y = np.asarray(y, dtype=np.float64)
        if y.ndim == 1:
            full = np.zeros((x.shape[0], y.size))
            full[-1] = y
            m = np.zeros(x.shape[0])
            m[-1] = 1.0
        elif y.ndim == 2 and y.shape[0] == x.shape[0]:
            full, m = y, np.ones(x.shape[0])
        else:
            raise ValueError(f"target {s} must have shape (n_out,) or ({x.shape[0]}, n_out), got {y.shape}")
        if ys and full.shape[1] != ys[0].shape[1]:
            raise ValueError(f"target {s} has {full.shape[1]} output units, target 0 has {ys[0].shape[1]}")
        ys.append(full)
        ms.append(m)
    X, Y, M = np.concatenate(xs), np.concatenate(ys), np.concatenate(ms)
    if not (np.isfinite(X).all() and np.isfinite(Y).all()):
        raise ValueError("inputs and targets must be finite")
    offsets = np.zeros(len(xs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(x) for x in xs])
    return Sequences(X, Y, M, offsets)


# ----------------------------------------------------------------------------- validation

def _kernel_arrays(params):
    """``(W_in, b_c, R, z, W_out, b_o, diag)`` for the kernels: R is diag(d) for a focused net."""
    if isinstance(params, FocusedParams):
        a = [np.asarray(v, dtype=np.float64) for v in params]
        return a[0], a[1], np.diag(a[2]), a[3], a[4], a[5], True
    if isinstance(params, FullParams):
        a = [np.asarray(v, dtype=np.float64) for v in params]
        return a[0], a[1], a[2], np.zeros(a[1].shape), a[3], a[4], False
    raise TypeError(f"params must be FocusedParams or FullParams, got {type(params).__name__}")


def _check(params, seqs, variant):
    if not isinstance(seqs, Sequences):
        raise TypeError(f"seqs must be a Sequences (see make_sequences), got {type(seqs).__name__}")
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; allowed: {', '.join(VARIANTS)}")
    W_in, b_c, R, z, W_out, b_o, diag = _kernel_arrays(params)
    n_ctx, n_in = W_in.shape if W_in.ndim == 2 else (None, None)
    shapes = {"W_in": (W_in.shape, (n_ctx, n_in)), "b_c": (b_c.shape, (n_ctx,)),
              "recurrent": (R.shape, (n_ctx, n_ctx)), "W_out": (W_out.shape, (W_out.shape[0], n_ctx)),
              "b_o": (b_o.shape, (W_out.shape[0],))}
    for name, (got, want) in shapes.items():
        if W_in.ndim != 2 or got != want:
            raise ValueError(f"{name} has shape {got}, expected {want} (one network, not a stack)")
    if seqs.X.shape[1] != n_in:
        raise ValueError(f"the sequences have {seqs.X.shape[1]} input features but the network has {n_in}")
    if seqs.Y.shape[1] != W_out.shape[0]:
        raise ValueError(f"the targets have {seqs.Y.shape[1]} units but the network has {W_out.shape[0]} outputs")
    if not all(np.isfinite(a).all() for a in (W_in, b_c, R, z, W_out, b_o)):
        raise ValueError("the network's parameters must be finite")
    eq3 = variant == "eq3" or not diag
    return W_in, b_c, R, z, W_out, b_o, diag, eq3


def _overflow_message(R, diag, seqs):
    big = np.abs(np.diag(R)).max() if diag else np.abs(np.linalg.eigvals(R)).max()
    longest = int(np.diff(seqs.offsets).max())
    return (f"context activity overflowed (largest |decay| or recurrent eigenvalue {big:.4g}, longest "
            f"sequence {longest} steps): with eq. 1 activity grows like d**T; keep |d_i| near or below 1")


# ----------------------------------------------------------------------------- kernels

@numba.njit(cache=True, fastmath=_FAST, error_model="numpy")
def _logistic_all(net, out):
    """``out = 1 / (1 + exp(-net))`` in plain arithmetic (no libm call), so the loop vectorises.

    e^x = (e^(x/64))^64: the Taylor series of e^r to r^16 for |r| <= 40/64 (truncation
    below 1e-18), then six squarings (relative error a few 1e-15).  x is clipped to
    [-40, 40], where the logistic is within 5e-18 of 0 or 1.
    """
    for i in range(net.size):
        x = -net[i]
        x = 40.0 if x > 40.0 else x
        x = -40.0 if x < -40.0 else x
        r = x * 0.015625
        p = 4.779477332387385e-14
        p = p * r + 7.647163731819816e-13
        p = p * r + 1.1470745597729725e-11
        p = p * r + 1.6059043836821613e-10
        p = p * r + 2.08767569878681e-09
        p = p * r + 2.505210838544172e-08
        p = p * r + 2.755731922398589e-07
        p = p * r + 2.7557319223985893e-06
        p = p * r + 2.48015873015873e-05
        p = p * r + 0.0001984126984126984
        p = p * r + 0.001388888888888889
        p = p * r + 0.008333333333333333
        p = p * r + 0.041666666666666664
        p = p * r + 0.16666666666666666
        p = p * r + 0.5
        p = p * r + 1.0
        p = p * r + 1.0
        for _ in range(6):
            p = p * p
        out[i] = 1.0 / (1.0 + p)


@numba.njit(cache=True, fastmath=_FAST, error_model="numpy")
def _step_context(W_in, b_c, R, z, diag, eq3, x, c_prev, c, sg):
    """One context step for every unit: eq. 1 (``eq3`` False) or eq. 3, writes ``c`` and ``sg`` (σ)."""
    n_ctx, n_in = W_in.shape
    for i in range(n_ctx):
        net = b_c[i]
        for j in range(n_in):
            net += W_in[i, j] * x[j]
        rec = 0.0
        if diag:
            rec = R[i, i] * c_prev[i]
        else:
            for k in range(n_ctx):
                rec += R[i, k] * c_prev[k]
        if eq3:
            sg[i] = net + rec
            c[i] = z[i]
        else:
            sg[i] = net
            c[i] = rec + z[i]
    _logistic_all(sg, sg)
    for i in range(n_ctx):
        c[i] += sg[i]


@numba.njit(cache=True, error_model="numpy")
def _step_output(W_out, b_o, c, y):
    for k in range(W_out.shape[0]):
        u = b_o[k]
        for i in range(W_out.shape[1]):
            u += W_out[k, i] * c[i]
        y[k] = 1.0 / (1.0 + np.exp(-u))


@numba.njit(cache=True, error_model="numpy")
def _forward_kernel(W_in, b_c, R, z, W_out, b_o, diag, eq3, X, offsets, n_fb, C, Yout):
    """Forward pass of every sequence: contexts ``C`` (N, n_ctx) and outputs ``Yout`` (N, n_out).

    With ``n_fb > 0`` the last ``n_fb`` inputs are replaced by the previous step's
    quantised outputs (Jordan feedback at test time; zero at a sequence's first step).
    """
    n_ctx, n_in = W_in.shape
    n_out = W_out.shape[0]
    c_prev = np.empty(n_ctx)
    sg = np.empty(n_ctx)
    x = np.empty(n_in)
    for s in range(len(offsets) - 1):
        c_prev[:] = 0.0
        for t in range(offsets[s], offsets[s + 1]):
            x[:] = X[t]
            if n_fb > 0:
                for k in range(n_fb):
                    x[n_in - n_fb + k] = 0.0 if t == offsets[s] else (1.0 if Yout[t - 1, n_out - n_fb + k] > 0.5 else 0.0)
            _step_context(W_in, b_c, R, z, diag, eq3, x, c_prev, C[t], sg)
            _step_output(W_out, b_o, C[t], Yout[t])
            c_prev[:] = C[t]


@numba.njit(cache=True, error_model="numpy")
def _out_delta(y, target, m, dy):
    """Output error signal ``dy = m (y - ŷ) y (1 - y)``; returns this step's squared error."""
    sse = 0.0
    for k in range(y.size):
        e = y[k] - target[k]
        sse += e * e
        dy[k] = m * e * y[k] * (1.0 - y[k])
    return m * sse


@numba.njit(cache=True, fastmath=_FAST, error_model="numpy")
def _trace_kernel(W_in, b_c, R, z, W_out, b_o, eq3, X, Y, M, offsets,
                  gW_in, gb_c, gR, gz, gW_out, gb_o, Yout):
    """Focused back-propagation: gradient from the α/β/γ traces, one forward sweep, no history.

    Vectorised meaning per step: ``alpha = c_prev + d*alpha``, ``beta = s'(net) x + d[:,None]*beta``,
    ``gamma = 1 + d*gamma`` (eq. 1; eq. 3 multiplies by s' as in the module docstring), then at a
    target step ``e = W_out.T @ dy`` and ``g_d += e*alpha``, ``g_W_in += e[:,None]*beta``, ...
    The traces are stored input-major (``betaT[j, i]`` = β_ji; row ``n_in``: the bias) so that
    every inner loop runs over the context units and vectorises, the logistic included
    (:func:`_logistic_all`: arithmetic, no libm call; it agrees with ``1/(1+exp(-u))`` to a
    few 1e-15, which the tests against BPTT and central differences see through).
    Writes the outputs of target steps to ``Yout``; returns the summed squared error.
    """
    n_ctx, n_in = W_in.shape
    n_out = W_out.shape[0]
    WT = W_in.T.copy()
    d = np.empty(n_ctx)
    for i in range(n_ctx):
        d[i] = R[i, i]
    gWT = np.zeros((n_in + 1, n_ctx))
    gd = np.zeros(n_ctx)
    gz[:] = 0.0
    gW_out[:] = 0.0
    gb_o[:] = 0.0
    c = np.empty(n_ctx)
    net = np.empty(n_ctx)
    sp = np.empty(n_ctx)
    sgv = np.empty(n_ctx)
    alpha = np.empty(n_ctx)
    betaT = np.empty((n_in + 1, n_ctx))
    gamma = np.empty(n_ctx)
    dy = np.empty(n_out)
    e = np.empty(n_ctx)
    sse = 0.0
    for s in range(len(offsets) - 1):
        c[:] = 0.0
        alpha[:] = 0.0
        betaT[:] = 0.0
        gamma[:] = 0.0
        for t in range(offsets[s], offsets[s + 1]):
            net[:] = b_c
            for j in range(n_in):
                xj = X[t, j]
                if xj != 0.0:
                    for i in range(n_ctx):
                        net[i] += WT[j, i] * xj
            if eq3:   # traces first: they need c_i(t-1), which c still holds
                for i in range(n_ctx):
                    net[i] += d[i] * c[i]
                _logistic_all(net, sgv)
                for i in range(n_ctx):
                    sg = sgv[i]
                    sp[i] = sg * (1.0 - sg)
                    alpha[i] = sp[i] * (c[i] + d[i] * alpha[i])
                    gamma[i] = 1.0 + sp[i] * d[i] * gamma[i]
                    c[i] = sg + z[i]
                for j in range(n_in):
                    xj = X[t, j]
                    for i in range(n_ctx):
                        betaT[j, i] = sp[i] * (xj + d[i] * betaT[j, i])
                for i in range(n_ctx):
                    betaT[n_in, i] = sp[i] * (1.0 + d[i] * betaT[n_in, i])
            else:
                _logistic_all(net, sgv)
                for i in range(n_ctx):
                    sg = sgv[i]
                    sp[i] = sg * (1.0 - sg)
                    alpha[i] = c[i] + d[i] * alpha[i]
                    gamma[i] = 1.0 + d[i] * gamma[i]
                    c[i] = d[i] * c[i] + sg + z[i]
                for j in range(n_in):
                    xj = X[t, j]
                    for i in range(n_ctx):
                        betaT[j, i] = sp[i] * xj + d[i] * betaT[j, i]
                for i in range(n_ctx):
                    betaT[n_in, i] = sp[i] + d[i] * betaT[n_in, i]
            if M[t] == 0.0:
                continue  # outputs only where they are scored: the traces carry the rest
            _step_output(W_out, b_o, c, Yout[t])
            sse += _out_delta(Yout[t], Y[t], M[t], dy)
            # back-propagate into the context layer at time t only (eq. 2 does the rest)
            e[:] = 0.0
            for k in range(n_out):
                gb_o[k] += dy[k]
                for i in range(n_ctx):
                    gW_out[k, i] += dy[k] * c[i]
                    e[i] += W_out[k, i] * dy[k]
            for i in range(n_ctx):
                gd[i] += e[i] * alpha[i]
                gz[i] += e[i] * gamma[i]
            for j in range(n_in + 1):
                for i in range(n_ctx):
                    gWT[j, i] += e[i] * betaT[j, i]
    gR[:] = 0.0
    for i in range(n_ctx):
        gR[i, i] = gd[i]
        gb_c[i] = gWT[n_in, i]
        for j in range(n_in):
            gW_in[i, j] = gWT[j, i]
    return 0.5 * sse


@numba.njit(cache=True, fastmath=_FAST, error_model="numpy")
def _bptt_kernel(W_in, b_c, R, z, W_out, b_o, diag, eq3, X, Y, M, offsets,
                 gW_in, gb_c, gR, gz, gW_out, gb_o, Yout, C, Cprev, SP):
    """Back-propagation through time over each whole sequence (the unfolded net of Figure 2b).

    Forward: store ``c(t-1)``, ``c(t)`` and ``s'(net(t))`` of every step (the activity
    stack); backward from the last step: ``delta_c += W_out.T @ dy(t)``;
    eq. 1: ``dnet = delta_c * s'``, ``g_R += outer(delta_c, c(t-1))``, ``delta_c <- R.T @ delta_c``;
    eq. 3: ``dnet = delta_c * s'``, ``g_R += outer(dnet, c(t-1))``, ``delta_c <- R.T @ dnet``;
    both: ``g_W_in += outer(dnet, x)``, ``g_z += delta_c``.  With ``diag`` only R's
    diagonal is read and written.  Returns the summed squared error.
    """
    n_ctx, n_in = W_in.shape
    n_out = W_out.shape[0]
    gW_in[:] = 0.0
    gb_c[:] = 0.0
    gR[:] = 0.0
    gz[:] = 0.0
    gW_out[:] = 0.0
    gb_o[:] = 0.0
    sg = np.empty(n_ctx)
    dy = np.empty(n_out)
    delta = np.empty(n_ctx)
    dnet = np.empty(n_ctx)
    back = np.empty(n_ctx)
    sse = 0.0
    for s in range(len(offsets) - 1):
        a, b = offsets[s], offsets[s + 1]
        for t in range(a, b):
            if t == a:
                Cprev[t] = 0.0
            else:
                Cprev[t] = C[t - 1]
            _step_context(W_in, b_c, R, z, diag, eq3, X[t], Cprev[t], C[t], sg)
            for i in range(n_ctx):
                SP[t, i] = sg[i] * (1.0 - sg[i])
            _step_output(W_out, b_o, C[t], Yout[t])
        delta[:] = 0.0
        for t in range(b - 1, a - 1, -1):
            if M[t] != 0.0:
                sse += _out_delta(Yout[t], Y[t], M[t], dy)
                for k in range(n_out):
                    gb_o[k] += dy[k]
                    for i in range(n_ctx):
                        gW_out[k, i] += dy[k] * C[t, i]
                        delta[i] += W_out[k, i] * dy[k]
            for i in range(n_ctx):
                dnet[i] = delta[i] * SP[t, i]
                gz[i] += delta[i]
                gb_c[i] += dnet[i]
                for j in range(n_in):
                    gW_in[i, j] += dnet[i] * X[t, j]
            # the recurrent weights see delta (eq. 1: linear integration) or dnet (eq. 3)
            src = dnet if eq3 else delta
            if diag:
                for i in range(n_ctx):
                    gR[i, i] += src[i] * Cprev[t, i]
                    back[i] = R[i, i] * src[i]
            else:
                for i in range(n_ctx):
                    for k in range(n_ctx):
                        gR[i, k] += src[i] * Cprev[t, k]
                for k in range(n_ctx):
                    acc = 0.0
                    for i in range(n_ctx):
                        acc += R[i, k] * src[i]
                    back[k] = acc
            delta[:] = back
    return 0.5 * sse


# ----------------------------------------------------------------------------- public passes

def forward(params, seqs: Sequences, *, variant: str = "eq1", feedback: int = 0):
    """Run one network over every sequence.

    Parameters
    ----------
    params : FocusedParams or FullParams
        One network (the full network always uses eq. 3).
    seqs : Sequences
    variant : {"eq1", "eq3"}
        The focused context unit's activation function (eq. 1, the paper's; or eq. 3).
    feedback : int
        Test-time Jordan feedback: the last ``feedback`` inputs take the previous
        step's outputs quantised at 0.5 (0 at a sequence's first step), instead of
        the teacher-forced values in ``seqs.X``.

    Returns
    -------
    outputs : (N, n_out) ndarray
    contexts : (N, n_ctx) ndarray
        :math:`c(t)` after each step.

    Raises
    ------
    ValueError
        Bad shapes, bad ``variant`` or ``feedback``, or activity that overflows.
    """
    W_in, b_c, R, z, W_out, b_o, diag, eq3 = _check(params, seqs, variant)
    fb = _check_feedback(feedback, W_in.shape[1], W_out.shape[0])
    N = seqs.X.shape[0]
    C, Yout = np.empty((N, W_in.shape[0])), np.empty((N, W_out.shape[0]))
    with np.errstate(over="ignore"):
        _forward_kernel(W_in, b_c, R, z, W_out, b_o, diag, eq3, seqs.X, seqs.offsets, fb, C, Yout)
    if not np.isfinite(C).all():
        raise ValueError(_overflow_message(R, diag, seqs))
    return Yout, C


def _check_feedback(feedback, n_in, n_out):
    if not isinstance(feedback, numbers.Integral) or isinstance(feedback, bool) or not 0 <= feedback <= min(n_in, n_out):
        raise ValueError(f"feedback must be an integer in [0, {min(n_in, n_out)}] (inputs fed by outputs), got {feedback!r}")
    return int(feedback)


def _grads_as(params, gW_in, gb_c, gR, gz, gW_out, gb_o):
    if isinstance(params, FocusedParams):
        return FocusedParams(gW_in, gb_c, np.diag(gR).copy(), gz, gW_out, gb_o)
    return FullParams(gW_in, gb_c, gR, gW_out, gb_o)


def trace_gradient(params: FocusedParams, seqs: Sequences, *, variant: str = "eq1"):
    """Loss and gradient of a focused network by its activity traces (α, β, γ).

    One forward sweep per sequence, no activity history: the traces of
    appendix A.6, A.8 (and γ) are updated at every step and multiplied by the
    error arriving at the context layer at each target step.

    Returns
    -------
    loss : float
        :math:`E = \\tfrac12\\sum_t m_t\\sum_k (y_k(t) - \\hat y_k(t))^2`.
    grad : FocusedParams
        :math:`\\partial E/\\partial\\theta` for every parameter.
    """
    if not isinstance(params, FocusedParams):
        raise TypeError("trace_gradient needs FocusedParams: the full network has no traces of this "
                        f"size (use bptt_gradient), got {type(params).__name__}")
    W_in, b_c, R, z, W_out, b_o, diag, eq3 = _check(params, seqs, variant)
    g = [np.empty_like(a) for a in (W_in, b_c, R, z, W_out, b_o)]
    Yout = np.empty(seqs.Y.shape)
    with np.errstate(over="ignore"):
        loss = _trace_kernel(W_in, b_c, R, z, W_out, b_o, eq3, seqs.X, seqs.Y, seqs.M, seqs.offsets, *g, Yout)
    if not np.isfinite(loss):
        raise ValueError(_overflow_message(R, diag, seqs))
    return float(loss), _grads_as(params, *g)


def bptt_gradient(params, seqs: Sequences, *, variant: str = "eq1"):
    """Loss and gradient by back-propagation through time over each whole sequence.

    For a :class:`FullParams` network this is how it is trained; for a
    :class:`FocusedParams` network it is the reference the traces must equal
    (same loss as :func:`trace_gradient`).
    """
    W_in, b_c, R, z, W_out, b_o, diag, eq3 = _check(params, seqs, variant)
    g = [np.empty_like(a) for a in (W_in, b_c, R, z, W_out, b_o)]
    N, n_ctx = seqs.X.shape[0], W_in.shape[0]
    Yout = np.empty(seqs.Y.shape)
    C, Cprev, SP = np.empty((N, n_ctx)), np.empty((N, n_ctx)), np.empty((N, n_ctx))
    with np.errstate(over="ignore"):
        loss = _bptt_kernel(W_in, b_c, R, z, W_out, b_o, diag, eq3, seqs.X, seqs.Y, seqs.M, seqs.offsets,
                            *g, Yout, C, Cprev, SP)
    if not np.isfinite(loss):
        raise ValueError(_overflow_message(R, diag, seqs))
    return float(loss), _grads_as(params, *g)


# ----------------------------------------------------------------------------- training

@dataclass(frozen=True)
class FocusedConfig:
    """Batch training with Mozer's adaptive learning rates ("Implementation details").

    Attributes
    ----------
    mu, rho, omega : float
        :math:`\\epsilon_k = \\mathrm{mse}^\\mu\\,\\rho\\,\\min(\\omega, W_k/\\nabla_k)` per
        connection type k.  The paper: μ "in the neighborhood of 0.75-1.0",
        ρ "generally 0.02"; ω is not given (100: our reconstruction).
    variant : {"eq1", "eq3"}
        The focused context unit (ignored by the full network, which is eq. 3).
    score : {"argmax", "quantised"}
        ``"argmax"``: a sequence is right when, at each target step, the most
        active output is the target's (the verb tasks); performance is the % of
        sequences right.  ``"quantised"``: outputs > 0.5 count as 1, a step is
        right when every unit matches; performance is the % of target steps
        right (sequence reproduction).
    feedback : int
        Inputs fed by the previous quantised outputs at test time (Jordan
        feedback; 3 for sequence reproduction, 0 otherwise).
    stop_at_criterion : bool
        Stop a network once its performance is perfect (sequence reproduction).
    slow_dz : float
        Multiplies the decay and zero-point rates (1.0: the rule as stated; Figure 3's
        run had these rates "turned down").
    """

    mu: float = 1.0
    rho: float = 0.02
    omega: float = 100.0
    variant: str = "eq1"
    score: str = "argmax"
    feedback: int = 0
    stop_at_criterion: bool = False
    slow_dz: float = 1.0

    def validate(self) -> "FocusedConfig":
        for name in ("mu", "rho", "omega", "slow_dz"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not np.isfinite(v) or v < 0:
                raise ValueError(f"{name} must be a finite non-negative number, got {v!r}")
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}; allowed: {', '.join(VARIANTS)}")
        if self.score not in SCORES:
            raise ValueError(f"unknown score {self.score!r}; allowed: {', '.join(SCORES)}")
        if not isinstance(self.feedback, numbers.Integral) or isinstance(self.feedback, bool) or self.feedback < 0:
            raise ValueError(f"feedback must be a non-negative integer, got {self.feedback!r}")
        return self


@dataclass
class History:
    """What :func:`train` returns.

    Attributes
    ----------
    performance : (R, n_epochs + 1) ndarray
        % correct (see :attr:`FocusedConfig.score`) with the weights after
        ``e`` updates (column ``e``); after a stop at criterion the last value
        is carried forward.
    mse : (R, n_epochs + 1) ndarray
        Mean squared error over output units and target steps, same columns.
    epochs_to_criterion : (R,) int ndarray
        First ``e`` with perfect performance, ``-1`` if never.
    params : FocusedParams or FullParams
        The trained stack.
    """

    performance: np.ndarray
    mse: np.ndarray
    epochs_to_criterion: np.ndarray
    params: object
    config: FocusedConfig
    rates: np.ndarray = None  # (R, n_epochs + 1, 4): ε of input-context, decay, zero point, context-output


@numba.njit(cache=True)
def _score(Yout, Y, M, offsets, quantised):
    """Number of items right (sequences for argmax, target steps when quantised) and of items."""
    right = 0
    items = 0
    for s in range(len(offsets) - 1):
        ok_seq = True
        for t in range(offsets[s], offsets[s + 1]):
            if M[t] == 0.0:
                continue
            if quantised:
                ok = True
                for k in range(Y.shape[1]):
                    if (Yout[t, k] > 0.5) != (Y[t, k] > 0.5):
                        ok = False
                items += 1
                right += 1 if ok else 0
            elif np.argmax(Yout[t]) != np.argmax(Y[t]):
                ok_seq = False
        if not quantised:
            items += 1
            right += 1 if ok_seq else 0
    return right, items


@numba.njit(cache=True)
def _fan_in_l1(W, g, b, gb):
    """Mean over units of the L1 norm of the fan-in weights and of the fan-in gradient."""
    wsum = 0.0
    gsum = 0.0
    for i in range(W.shape[0]):
        for j in range(W.shape[1]):
            wsum += abs(W[i, j])
            gsum += abs(g[i, j])
        wsum += abs(b[i])
        gsum += abs(gb[i])
    return wsum / W.shape[0], gsum / W.shape[0]


@numba.njit(cache=True)
def _rate(mse, mu, rho, omega, W_k, grad_k):
    """Mozer's rule, eps_k = mse^mu rho min(omega, W_k / grad_k)."""
    ratio = omega if grad_k == 0.0 else min(omega, W_k / grad_k)
    return mse ** mu * rho * ratio


@numba.njit(cache=True)
def _rates(W_in, b_c, R, z, W_out, b_o, gW_in, gb_c, gR, gz, gW_out, gb_o, diag, mse, mu, rho, omega, out):
    """Learning rates of the connection types: input-context, decay, zero point, context-output.

    The full network's input-context type includes its recurrent weights (its
    context units' fan-in); it has no decay or zero-point types.
    """
    n_ctx = W_in.shape[0]
    w, g = _fan_in_l1(W_in, gW_in, b_c, gb_c)
    if not diag:
        w2, g2 = _fan_in_l1(R, gR, np.zeros(n_ctx), np.zeros(n_ctx))
        w, g = w + w2, g + g2
    out[0] = _rate(mse, mu, rho, omega, w, g)
    if diag:
        wd, gd, wz, gzm = 0.0, 0.0, 0.0, 0.0
        for i in range(n_ctx):
            wd += abs(R[i, i])
            gd = max(gd, abs(gR[i, i]))
            wz += abs(z[i])
            gzm = max(gzm, abs(gz[i]))
        out[1] = _rate(mse, mu, rho, omega, wd / n_ctx, gd)
        out[2] = _rate(mse, mu, rho, omega, wz / n_ctx, gzm)
    else:
        out[1] = 0.0
        out[2] = 0.0
    w, g = _fan_in_l1(W_out, gW_out, b_o, gb_o)
    out[3] = _rate(mse, mu, rho, omega, w, g)


@numba.njit(cache=True)
def _finite(a):
    for v in a.ravel():
        if not np.isfinite(v):
            return False
    return True


@numba.njit(cache=True, parallel=True)
def _train_many(W_in, b_c, R, z, W_out, b_o, diag, eq3, X, Y, M, offsets, n_fb, quantised,
                mu, rho, omega, slow_dz, stop, e0, e1, n_epochs, perf, mse, crit, status, rates):
    """Train ``R`` networks side by side (``prange``) for epochs ``e0 .. e1 - 1``.

    Each epoch: gradient and outputs of the whole training set with the current
    weights (traces for a focused net, BPTT for the full net), performance and
    mse recorded in column ``e``, then (unless ``e == n_epochs``) one batch
    update with the adaptive rates.  ``status``: 0 running, 1 stopped at
    criterion, 2 diverged (``crit`` then holds the epoch, negated minus one).
    """
    n_net, n_ctx, n_in = W_in.shape
    n_out = W_out.shape[1]
    N = X.shape[0]
    n_items_out = 0.0
    for t in range(N):
        n_items_out += M[t]
    n_items_out *= n_out
    for r in numba.prange(n_net):
        if status[r] != 0:
            continue
        gW_in = np.empty((n_ctx, n_in))
        gb_c = np.empty(n_ctx)
        gR = np.empty((n_ctx, n_ctx))
        gz = np.empty(n_ctx)
        gW_out = np.empty((n_out, n_ctx))
        gb_o = np.empty(n_out)
        Yout = np.empty((N, n_out))
        C = np.empty((N, n_ctx))
        Cprev = np.empty((N, n_ctx))
        SP = np.empty((N, n_ctx))
        eps = np.empty(4)
        for e in range(e0, e1):
            if diag:
                loss = _trace_kernel(W_in[r], b_c[r], R[r], z[r], W_out[r], b_o[r], eq3, X, Y, M, offsets,
                                     gW_in, gb_c, gR, gz, gW_out, gb_o, Yout)
            else:
                loss = _bptt_kernel(W_in[r], b_c[r], R[r], z[r], W_out[r], b_o[r], diag, eq3, X, Y, M, offsets,
                                    gW_in, gb_c, gR, gz, gW_out, gb_o, Yout, C, Cprev, SP)
            if not np.isfinite(loss) or not (_finite(gW_in) and _finite(gR) and _finite(gW_out)):
                status[r] = 2
                crit[r] = -e - 1
                break
            if quantised:  # test mode: Jordan feedback from quantised outputs
                _forward_kernel(W_in[r], b_c[r], R[r], z[r], W_out[r], b_o[r], diag, eq3, X, offsets, n_fb, C, Yout)
            right, items = _score(Yout, Y, M, offsets, quantised)
            perf[r, e] = 100.0 * right / items
            mse[r, e] = 2.0 * loss / n_items_out
            if right == items and crit[r] < 0:
                crit[r] = e
                if stop:
                    status[r] = 1
                    break
            if e == n_epochs:
                break
            _rates(W_in[r], b_c[r], R[r], z[r], W_out[r], b_o[r], gW_in, gb_c, gR, gz, gW_out, gb_o,
                   diag, mse[r, e], mu, rho, omega, eps)
            eps[1] *= slow_dz
            eps[2] *= slow_dz
            rates[r, e] = eps
            W_in[r] -= eps[0] * gW_in
            b_c[r] -= eps[0] * gb_c
            if diag:
                for i in range(n_ctx):
                    R[r, i, i] -= eps[1] * gR[i, i]
                    z[r, i] -= eps[2] * gz[i]
            else:
                R[r] -= eps[0] * gR
            W_out[r] -= eps[3] * gW_out
            b_o[r] -= eps[3] * gb_o
            if not (_finite(W_in[r]) and _finite(b_c[r]) and _finite(R[r]) and _finite(z[r])
                    and _finite(W_out[r]) and _finite(b_o[r])):
                status[r] = 2
                crit[r] = -e - 1
                break


def _stack(params_list):
    return type(params_list[0])(*(np.stack([np.asarray(p[i], dtype=np.float64) for p in params_list])
                                  for i in range(len(params_list[0]))))


def init_many(arch: str, n_in: int, n_ctx: int, n_out: int, n_networks: int, rng=None, **kwargs):
    """A stack of ``n_networks`` initial networks; network ``k`` draws from ``spawn(rng, n)[k]``.

    ``arch`` is ``"focused"`` (:func:`init_focused`) or ``"full"`` (:func:`init_full`).
    """
    init = {"focused": init_focused, "full": init_full}.get(arch)
    if init is None:
        raise ValueError(f"unknown architecture {arch!r}; allowed: focused, full")
    n = _check_size("n_networks", n_networks)
    return _stack([init(n_in, n_ctx, n_out, g, **kwargs) for g in spawn(rng, n)])


def train(seqs: Sequences, params, *, n_epochs: int, config: FocusedConfig = FocusedConfig(),
          progress=None, chunk: int = 250) -> History:
    """Train a stack of networks (from :func:`init_many`) by batch gradient descent.

    Focused networks get their gradient from the traces (:func:`trace_gradient`),
    full networks from BPTT (:func:`bptt_gradient`); both update once per
    epoch with the adaptive rates of :class:`FocusedConfig`.  Deterministic:
    the result depends only on the initial stack.

    Raises
    ------
    DivergenceError
        If a network's error or weights become NaN or infinite (names the
        network and the epoch).
    """
    config = config.validate()
    if not isinstance(params, (FocusedParams, FullParams)) or np.asarray(params.W_in).ndim != 3:
        raise TypeError("params must be a stack of networks (FocusedParams/FullParams with a leading "
                        "network axis, see init_many)")
    if not isinstance(n_epochs, numbers.Integral) or isinstance(n_epochs, bool) or n_epochs < 0:
        raise ValueError(f"n_epochs must be a non-negative integer, got {n_epochs!r}")
    _check(params.network(0), seqs, config.variant)
    fb = _check_feedback(config.feedback, params.W_in.shape[2], params.W_out.shape[1])
    focused = isinstance(params, FocusedParams)
    W_in, b_c, W_out, b_o = (np.array(a, dtype=np.float64) for a in
                             (params.W_in, params.b_c, params.W_out, params.b_o))
    n_net, n_ctx = W_in.shape[:2]
    if focused:
        R = np.zeros((n_net, n_ctx, n_ctx))
        R[:, np.arange(n_ctx), np.arange(n_ctx)] = params.d
        z = np.array(params.z, dtype=np.float64)
    else:
        R, z = np.array(params.W_cc, dtype=np.float64), np.zeros((n_net, n_ctx))
    eq3 = config.variant == "eq3" or not focused
    perf = np.full((n_net, n_epochs + 1), np.nan)
    mse = np.full((n_net, n_epochs + 1), np.nan)
    rates = np.full((n_net, n_epochs + 1, 4), np.nan)
    crit = np.full(n_net, -1, dtype=np.int64)
    status = np.zeros(n_net, dtype=np.int64)
    with progress_bar(n_epochs + 1, "epochs", progress, unit="epoch") as bar:
        for e0 in range(0, n_epochs + 1, chunk):
            e1 = min(e0 + chunk, n_epochs + 1)
            with np.errstate(over="ignore", invalid="ignore"):
                _train_many(W_in, b_c, R, z, W_out, b_o, focused, eq3, seqs.X, seqs.Y, seqs.M, seqs.offsets,
                            fb, config.score == "quantised", config.mu, config.rho, config.omega, config.slow_dz,
                            config.stop_at_criterion, e0, e1, n_epochs, perf, mse, crit, status, rates)
            bad = np.flatnonzero(status == 2)
            if bad.size:
                k = int(bad[0])
                raise DivergenceError(
                    f"network {k} diverged at epoch {-crit[k] - 1}: its error or weights became NaN or "
                    f"infinite (rates mu={config.mu}, rho={config.rho}, omega={config.omega}; "
                    f"largest |decay| {np.abs(np.diagonal(R[k])).max():.4g})")
            bar.update(e1 - e0)
            if (status != 0).all():
                break
    for a in (perf, mse):  # networks stopped at criterion keep their last value
        for r in range(n_net):
            last = np.flatnonzero(~np.isnan(a[r]))
            if last.size:
                a[r, last[-1] + 1:] = a[r, last[-1]]
    if focused:
        out = FocusedParams(W_in, b_c, np.diagonal(R, axis1=1, axis2=2).copy(), z, W_out, b_o)
    else:
        out = FullParams(W_in, b_c, R, W_out, b_o)
    return History(perf, mse, crit, out, config, rates)


def evaluate(params, seqs: Sequences, config: FocusedConfig = FocusedConfig()) -> np.ndarray:
    """Performance (% correct, as :attr:`FocusedConfig.score` defines it) of each network of a stack,
    or of one network (returns a 0-d array)."""
    config = config.validate()
    single = np.asarray(params.W_in).ndim == 2
    nets = [params] if single else [params.network(k) for k in range(params.W_in.shape[0])]
    out = []
    for p in nets:
        y, _ = forward(p, seqs, variant=config.variant, feedback=config.feedback)
        right, items = _score(y, seqs.Y, seqs.M, seqs.offsets, config.score == "quantised")
        out.append(100.0 * right / items)
    return np.asarray(out[0] if single else out)


def learning_rates(params, seqs: Sequences, config: FocusedConfig = FocusedConfig()) -> dict:
    """The adaptive rates ε_k one network would use now (input-context, decay, zero, context-output)."""
    W_in, b_c, R, z, W_out, b_o, diag, eq3 = _check(params, seqs, config.validate().variant)
    loss, g = (trace_gradient if diag else bptt_gradient)(params, seqs, variant=config.variant)
    gR = np.diag(g.d) if diag else g.W_cc
    gz = g.z if diag else np.zeros(len(b_c))
    out = np.empty(4)
    n_items = seqs.M.sum() * W_out.shape[0]
    _rates(W_in, b_c, R, z, W_out, b_o, g.W_in, g.b_c, gR, gz, g.W_out, g.b_o, diag,
           2 * loss / n_items, config.mu, config.rho, config.omega, out)
    names = ("input-context", "decay", "zero point", "context-output")
    return {k: float(v) for k, v in zip(names, out) if diag or k in ("input-context", "context-output")}
