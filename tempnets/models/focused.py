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
target mask, with ``offsets`` as in the package conventions).  Training with
Mozer's adaptive learning rates is in :mod:`tempnets.training.focused_training`.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from .._numerics.checks import array, count, items, memory, real
from .._numerics.portable import logistic
from .._numerics.random import MAX_CHILDREN, as_generator, perturbed, spawn

__all__ = ["FocusedParams", "FullParams", "Sequences", "make_sequences", "init_focused",
           "init_full", "init_many", "connection_count", "forward", "trace_gradient", "bptt_gradient",
           "check_params", "check_sequences", "VARIANTS"]

VARIANTS = ("eq1", "eq3")


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
    return perturbed(w * (l1 / np.abs(w).sum(axis=1, keepdims=True)))


def init_focused(n_in: int, n_ctx: int, n_out: int, rng=None, *, z0: float = -0.5,
                 d_range=(0.99, 1.01), l1: float = 2.0) -> FocusedParams:
    """Mozer's initialisation ("Implementation details").

    Input→context and context→output weights are zero-mean Gaussian, each
    unit's fan-in (its bias included, our reading) normalised to L1 norm
    ``l1`` = 2.0; ``z_i = z0`` = −0.5; ``d_i ~ U(d_range)`` = U(0.99, 1.01).
    """
    n_in, n_ctx, n_out = (count(k, v, 1) for k, v in (("n_in", n_in), ("n_ctx", n_ctx), ("n_out", n_out)))
    if not isinstance(d_range, (tuple, list)) or len(d_range) != 2:
        raise ValueError(f"d_range must be (low, high), two finite numbers, got {d_range!r}")
    lo = real("d_range[0]", d_range[0])
    hi = real("d_range[1]", d_range[1], low=lo)
    z0, l1 = real("z0", z0), real("l1", l1, low=0.0, low_open=True)
    memory(n_ctx * (n_in + 4) + n_out * (n_ctx + 1), f"init_focused: a {n_in}-{n_ctx}-{n_out} network")
    gen = as_generator(rng)
    cin = _fan_in_normalised(gen, n_ctx, n_in + 1, l1)
    cout = _fan_in_normalised(gen, n_out, n_ctx + 1, l1)
    d = perturbed(gen.uniform(lo, hi, n_ctx))
    return FocusedParams(cin[:, :n_in].copy(), cin[:, n_in].copy(), d, perturbed(np.full(n_ctx, z0)),
                         cout[:, :n_ctx].copy(), cout[:, n_ctx].copy())


def init_full(n_in: int, n_ctx: int, n_out: int, rng=None, *, l1: float = 2.0) -> FullParams:
    """The full network's initialisation: each context unit's fan-in (inputs, the other
    context units and its bias) and each output unit's fan-in Gaussian with L1 norm ``l1``."""
    n_in, n_ctx, n_out = (count(k, v, 1) for k, v in (("n_in", n_in), ("n_ctx", n_ctx), ("n_out", n_out)))
    l1 = real("l1", l1, low=0.0, low_open=True)
    memory(n_ctx * (n_in + n_ctx + 1) + n_out * (n_ctx + 1), f"init_full: a {n_in}-{n_ctx}-{n_out} network")
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
    inputs, targets = items("inputs", inputs), items("targets", targets)
    if not inputs:
        raise ValueError("inputs: no sequences given (need at least one)")
    if len(inputs) != len(targets):
        raise ValueError(f"inputs and targets: {len(inputs)} input sequences but {len(targets)} targets")
    xs = [array(f"inputs[{s}]", x, finite=False) for s, x in enumerate(inputs)]
    n_in = xs[0].shape[-1] if xs[0].ndim == 2 else None
    ys, ms = [], []
    for s, (x, y) in enumerate(zip(xs, targets)):
        if x.ndim != 2 or x.shape[0] == 0:
            raise ValueError(f"inputs: sequence {s} must be a non-empty (T, n_in) array, got shape {x.shape}")
        if x.shape[1] != n_in:
            raise ValueError(f"inputs: sequence {s} has {x.shape[1]} input features, sequence 0 has {n_in}")
        y = array(f"targets[{s}]", y, finite=False)
        if y.ndim == 1:
            full = np.zeros((x.shape[0], y.size))
            full[-1] = y
            m = np.zeros(x.shape[0])
            m[-1] = 1.0
        elif y.ndim == 2 and y.shape[0] == x.shape[0]:
            full, m = y, np.ones(x.shape[0])
        else:
            raise ValueError(f"targets: target {s} must have shape (n_out,) or ({x.shape[0]}, n_out), "
                             f"got {y.shape}")
        if ys and full.shape[1] != ys[0].shape[1]:
            raise ValueError(f"targets: target {s} has {full.shape[1]} output units, target 0 has "
                             f"{ys[0].shape[1]}")
        ys.append(full)
        ms.append(m)
    X, Y, M = np.concatenate(xs), np.concatenate(ys), np.concatenate(ms)
    if not (np.isfinite(X).all() and np.isfinite(Y).all()):
        raise ValueError("inputs and targets must be finite")
    offsets = np.zeros(len(xs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(x) for x in xs])
    return Sequences(X, Y, M, offsets)


# ----------------------------------------------------------------------------- validation

_SHAPES = {"W_in": ("n_ctx", "n_in"), "b_c": ("n_ctx",), "d": ("n_ctx",), "z": ("n_ctx",),
           "W_cc": ("n_ctx", "n_ctx"), "W_out": ("n_out", "n_ctx"), "b_o": ("n_out",)}


def check_params(params, *, stack: bool = False) -> tuple:
    """Check a network's (or a stack's) arrays against each other; return them as float64.

    Every array must be finite and of the shape its field implies (``W_in`` (n_ctx, n_in),
    ``b_c``, ``d``, ``z`` (n_ctx,), ``W_cc`` (n_ctx, n_ctx), ``W_out`` (n_out, n_ctx),
    ``b_o`` (n_out,)), with a leading network axis of one length when ``stack``.

    Returns
    -------
    tuple of ndarray
        The fields in order (C-contiguous float64; copies only where conversion needs them).

    Raises
    ------
    TypeError
        ``params`` is not a :class:`FocusedParams` / :class:`FullParams`.
    ValueError
        Naming the field, its shape or first bad value, and what is allowed.
    """
    if not isinstance(params, (FocusedParams, FullParams)):
        raise TypeError(f"params must be FocusedParams or FullParams, got {type(params).__name__}")
    if not stack and np.ndim(params.W_in) == 3:
        raise ValueError(f"params is a stack of {np.shape(params.W_in)[0]} networks; pass one "
                         "network (params.network(k))")
    lead = ("n_networks",) if stack else ()
    dims = {}
    return tuple(array(f"params.{f}", v, lead + _SHAPES[f], dims) for f, v in zip(params._fields, params))


def check_sequences(seqs, n_in: int | None = None, n_out: int | None = None) -> Sequences:
    """Check a :class:`Sequences` (and its sizes against a network's); return it as float64/int64.

    ``X`` (N, n_in), ``Y`` (N, n_out) finite, ``M`` (N,) finite and >= 0, ``offsets``
    integers that start at 0, rise strictly (no empty sequence) and end at N: the
    kernels index ``X[offsets[s]:offsets[s + 1]]`` without bounds checks.
    """
    if not isinstance(seqs, Sequences):
        raise TypeError(f"seqs must be a Sequences (see make_sequences), got {type(seqs).__name__}")
    dims = {k: (v, src) for k, v, src in (("n_in", n_in, "params.W_in"), ("n_out", n_out, "params.W_out"))
            if v is not None}
    X = array("seqs.X", seqs.X, ("N", "n_in"), dims)
    Y = array("seqs.Y", seqs.Y, ("N", "n_out"), dims)
    M = array("seqs.M", seqs.M, ("N",), dims, low=0.0)
    offsets = array("seqs.offsets", seqs.offsets, (None,), dtype="int")
    N = X.shape[0]
    if offsets.size < 2 or offsets[0] != 0 or offsets[-1] != N or np.any(np.diff(offsets) < 1):
        shown = np.array2string(offsets, threshold=8)
        raise ValueError(f"seqs.offsets must start at 0, rise strictly (no empty sequence) and end at "
                         f"N = {N} (the rows of seqs.X), got {shown}")
    return Sequences(X, Y, M, offsets)


def _kernel_arrays(arrays, focused):
    """``(W_in, b_c, R, z, W_out, b_o)`` for the kernels: R is diag(d) for a focused net."""
    if focused:
        W_in, b_c, d, z, W_out, b_o = arrays
        return W_in, b_c, np.diag(d), z, W_out, b_o
    W_in, b_c, W_cc, W_out, b_o = arrays
    return W_in, b_c, W_cc, np.zeros(b_c.shape), W_out, b_o


def _check(params, seqs, variant):
    """Validate one network, the sequences and the variant; the kernels' arguments."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; allowed: {', '.join(VARIANTS)}")
    diag = isinstance(params, FocusedParams)
    W_in, b_c, R, z, W_out, b_o = _kernel_arrays(check_params(params), diag)
    seqs = check_sequences(seqs, W_in.shape[1], W_out.shape[0])
    eq3 = variant == "eq3" or not diag
    return W_in, b_c, R, z, W_out, b_o, diag, eq3, seqs


def _overflow_message(R, diag, seqs):
    big = np.abs(np.diag(R)).max() if diag else np.abs(np.linalg.eigvals(R)).max()
    longest = int(np.diff(seqs.offsets).max())
    return (f"context activity overflowed (largest |decay| or recurrent eigenvalue {big:.4g}, longest "
            f"sequence {longest} steps): with eq. 1 activity grows like d**T; keep |d_i| near or below 1")


# ----------------------------------------------------------------------------- kernels

@numba.njit(cache=True, error_model="numpy")
def _logistic_all(net, out):
    """``out = 1 / (1 + exp(-net))`` elementwise (:func:`tempnets._numerics.portable.logistic`: plain
    arithmetic, the same bits on every CPU, and the loop vectorises)."""
    for i in range(net.size):
        out[i] = logistic(net[i])


@numba.njit(cache=True, error_model="numpy")
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
        y[k] = logistic(u)


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


@numba.njit(cache=True, error_model="numpy")
def _trace_kernel(W_in, b_c, R, z, W_out, b_o, eq3, X, Y, M, offsets,
                  gW_in, gb_c, gR, gz, gW_out, gb_o, Yout):
    """Focused back-propagation: gradient from the α/β/γ traces, one forward sweep, no history.

    Vectorised meaning per step: ``alpha = c_prev + d*alpha``, ``beta = s'(net) x + d[:,None]*beta``,
    ``gamma = 1 + d*gamma`` (eq. 1; eq. 3 multiplies by s' as in the module docstring), then at a
    target step ``e = W_out.T @ dy`` and ``g_d += e*alpha``, ``g_W_in += e[:,None]*beta``, ...
    The traces are stored input-major (``betaT[j, i]`` = β_ji; row ``n_in``: the bias) so that
    every inner loop runs over the context units and vectorises, the logistic included
    (:func:`_logistic_all`: arithmetic, no libm call, within a few ulp of ``1/(1+exp(-u))``).
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


@numba.njit(cache=True, error_model="numpy")
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
    W_in, b_c, R, z, W_out, b_o, diag, eq3, seqs = _check(params, seqs, variant)
    fb = _check_feedback(feedback, W_in.shape[1], W_out.shape[0])
    N = seqs.X.shape[0]
    C, Yout = np.empty((N, W_in.shape[0])), np.empty((N, W_out.shape[0]))
    with np.errstate(over="ignore"):
        _forward_kernel(W_in, b_c, R, z, W_out, b_o, diag, eq3, seqs.X, seqs.offsets, fb, C, Yout)
    if not np.isfinite(C).all():
        raise ValueError(_overflow_message(R, diag, seqs))
    return Yout, C


def _check_feedback(feedback, n_in, n_out):
    feedback = count("feedback", feedback)
    if feedback > min(n_in, n_out):
        raise ValueError(f"feedback must be an integer in [0, {min(n_in, n_out)}] (inputs fed by outputs), got {feedback!r}")
    return feedback


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
    W_in, b_c, R, z, W_out, b_o, diag, eq3, seqs = _check(params, seqs, variant)
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
    W_in, b_c, R, z, W_out, b_o, diag, eq3, seqs = _check(params, seqs, variant)
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


# ----------------------------------------------------------------------------- stacks of networks

def _stack(params_list):
    return type(params_list[0])(*(np.stack([np.asarray(p[i], dtype=np.float64) for p in params_list])
                                  for i in range(len(params_list[0]))))


def init_many(arch: str, n_in: int, n_ctx: int, n_out: int, n_networks: int, rng=None, **kwargs):
    """A stack of ``n_networks`` initial networks; network ``k`` draws from ``spawn(rng, n)[k]``.

    ``arch`` is ``"focused"`` (:func:`init_focused`) or ``"full"`` (:func:`init_full`).
    """
    if not isinstance(arch, str) or arch not in ("focused", "full"):
        raise ValueError(f"arch: unknown architecture {arch!r:.60}; allowed: focused, full")
    init = {"focused": init_focused, "full": init_full}[arch]
    n = count("n_networks", n_networks, 1)
    if n > MAX_CHILDREN:  # (one random generator each)
        raise ValueError(f"n_networks must be at most {MAX_CHILDREN:,} (one random generator each), got {n:,}")
    n_in, n_ctx, n_out = (count(k, v, 1) for k, v in (("n_in", n_in), ("n_ctx", n_ctx), ("n_out", n_out)))
    memory(2 * n * (n_ctx * (n_in + n_ctx + 4) + n_out * (n_ctx + 1)),  # the networks, then their stack
           f"init_many: {n} networks of n_in={n_in}, n_ctx={n_ctx}, n_out={n_out} units")
    return _stack([init(n_in, n_ctx, n_out, g, **kwargs) for g in spawn(rng, n)])
