r"""The temporal-kernel recurrent neural network (TKRNN) and the TKRNN^{+n}.

Paper: Sutskever & Hinton (2010), *Temporal-kernel recurrent neural networks*,
Neural Networks 23(2), section 3, eqs. 6-9 (``papers/002``; our copy stops after
eq. 9, so what follows it is our reconstruction: the book's *Reconstructions* page,
temporal-kernels section).

Every sending unit ``j`` (hidden or input) connects to every later step with the
weight :math:`W^{(j,i)}\lambda_j^{k-1}` at lag ``k`` (eq. 6).  The sums over
lags are carried by one kernel state per sending unit (eqs. 8-9 and their
recursions):

.. math::

    S^y_t = y_{t-1} + \lambda_y \odot S^y_{t-1}, \qquad
    S^x_t = x_{t-1} + \lambda_x \odot S^x_{t-1}, \qquad S_1 = 0,

    y_t = f\bigl(W_{y\to y} S^y_t + W_{x\to y} S^x_t + b\bigr)          \quad\text{(eq. 7)}

with the logistic ``f`` (eq. 3).  The outputs are "analogous" (the paper gives
no formula; our reconstruction, the book's *Reconstructions* page, temporal-kernels
section): they see the same senders through kernels that include lag 0, so that with
:math:`\lambda = 0` they are exactly eq. 2,

.. math::

    K_t = u_t + \lambda \odot K_{t-1} \;(= S_{t+1}),\qquad
    z_t = g\bigl(W_{y\to z} K^y_t + W_{x\to z} K^x_t + c\bigr),

with the softmax ``g`` (eq. 4); with :math:`\lambda = 0` the hidden layer is eq. 1
with its input one step late.  (:math:`u_t` are the senders' values; the paper's
:math:`v_t` is the target of eq. 5.)  TKRNN^{+n} ("an RNN
whose weights are the sum of the weights of n TKRNNs"): ``n`` kernel states per
sender, each with its own :math:`\lambda_r` and weights :math:`W^{(r)}`, summed
into the same units; the effective lag-``k`` weight
:math:`\kappa(k) = \sum_r W^{(r)}\lambda_r^{k-1}` can be non-monotone.

:math:`\lambda = \operatorname{logistic}(\theta)` keeps every decay in (0, 1)
(our parametrisation; the paper only states :math:`0 < \lambda < 1`), so
:math:`\partial L/\partial\theta = \lambda(1-\lambda)\,\partial L/\partial\lambda`.

Code layout
-----------
The senders of one step are ``u_t = [y_t, x_t]`` (``H + I`` values); the
``n`` kernels stack them ``n`` times, so a single kernel state ``K_t`` of size
``N = n (H + I)`` holds :math:`[K^{y,1}, K^{x,1}, \dots, K^{y,n}, K^{x,n}]` and one
matrix product per layer does the whole sum over kernels.

==========================  ===============  ====================================
paper                       code             shape
==========================  ===============  ====================================
W_{y->y}^{(r)}, W_{x->y}^(r) ``W_h``          ``(H, N)``; block r = ``[W_yy, W_xy]``
b (our bias)                ``b_h``          ``(H,)``
W_{y->z}^{(r)}, W_{x->z}^(r) ``W_z``          ``(O, N)``
c (our bias)                ``b_z``          ``(O,)``
λ^{(j)}, λ^{(m)} (kernel r) ``lam(params)``  ``(n, H + I)`` = logistic(``theta``)
S^y_t, S^x_t                ``K[t]``         ``(B, N)`` (``K[t]`` = S_{t+1} = K_t)
==========================  ===============  ====================================

Sequences travel as batches: inputs ``x`` of shape ``(T, B, I)``, targets
``(T, B)`` of class indices, a loss ``mask`` ``(T, B)`` (1 where the step is
scored).  The loss is the cross-entropy (eq. 5) summed over scored steps and
divided by ``B``.  The backward pass (:func:`tkrnn_loss_and_grad`) runs in O(T),
like an RNN's: see :func:`_backward`.

Same bits on every CPU
----------------------
The step-by-step recursions are numba kernels and every product and sum goes through
:mod:`tempnets._numerics.portable_math` (no BLAS, no libm, each sum in an order written in the
code): a run gives the same numbers to the last bit on any machine, in float64 and in
float32 (``tests/test_portable.py``).  The slow, readable numpy forms they equal are in
``tests/reference_tkrnn.py``.
"""

from __future__ import annotations

import numba
import numpy as np

from .._numerics import portable_math as pm
from .._numerics.checks import array, array_in, memory, count, real
from .._numerics.random import as_generator, perturbed

__all__ = ["init_params", "lam", "tkrnn_forward", "tkrnn_loss_and_grad", "kernel", "blocks",
           "n_params", "multiply_adds", "check_batch", "softmax_xent"]

PARAM_NAMES = ("W_h", "b_h", "W_z", "b_z", "theta")


DTYPES = (np.float64, np.float32)
"""The precisions the models compute in: float64 (every gradient check) or float32
(training, twice as fast: the parameters' dtype decides, see :func:`_dtype_of`)."""


def _dtype_of(params) -> type:
    """``numpy.float32`` when every array of ``params`` is float32, else ``numpy.float64``:
    a model computes in the precision its parameters are stored in."""
    single = all(isinstance(v, np.ndarray) and v.dtype == np.float32 for v in params.values())
    return np.float32 if single else np.float64


def check_lambda(values, name="lambda") -> np.ndarray:
    """Return ``values`` as a float array (of their shape) after checking they are real numbers
    in the open interval (0, 1)."""
    a = array(name, values, finite=False).reshape(np.shape(values))
    bad = ~((a > 0) & (a < 1))
    if bad.any():
        raise ValueError(f"{name} must lie in (0, 1) (eq. 6: 0 < λ < 1), got {a[bad].ravel()[0].item()!r}")
    return a


def init_params(n_in: int, n_hidden: int, n_out: int, n_kernels: int = 1, rng=None,
                lam_range=(0.5, 0.95), scale: float = 1.0) -> dict:
    """Random TKRNN^{+n} parameters (our initialisation; the paper gives none).

    Decays ``λ ~ U(lam_range)`` (our reconstruction, U(0.5, 0.95): the book's
    *Reconstructions* page, temporal-kernels section; it starts every unit with a memory
    of a few steps and none near 1, where the gradient of θ vanishes) stored as
    ``theta = logit(λ)``.  Weights from kernel-state entry ``j`` are normal with
    standard deviation ``scale * (1 - λ_j) / sqrt(H + I)``: a kernel state holds
    about ``1 / (1 - λ)`` times its sender's value, so this gives every unit an input of
    the same size whatever its senders' decays.  Biases start at 0.

    Parameters
    ----------
    n_in, n_hidden, n_out : int
        Input, hidden and output units (``I``, ``H``, ``O``).
    n_kernels : int
        ``n`` of TKRNN^{+n} (1: the plain TKRNN).
    rng : numpy.random.Generator, int or None
    lam_range : (float, float)
        Bounds of the initial decays, inside (0, 1).
    scale : float
        Multiplies every initial weight.
    """
    I, H, O = (count(k, v, 1) for k, v in (("n_in", n_in), ("n_hidden", n_hidden),
                                                 ("n_out", n_out)))
    n = count("n_kernels", n_kernels, 1)
    lo, hi = _lam_range(lam_range)
    scale = real("scale", scale)
    N = n * (H + I)
    memory(2 * N * (H + O + 1), f"TKRNN parameters of n_in={I}, n_hidden={H}, n_out={O}, "
                                      f"n_kernels={n} (and their draws)")
    gen = as_generator(rng)
    lam0 = gen.uniform(lo, hi, N)
    std = scale * (1.0 - lam0) / np.sqrt(H + I)
    return {"W_h": perturbed(gen.standard_normal((H, N)) * std), "b_h": np.zeros(H),
            "W_z": perturbed(gen.standard_normal((O, N)) * std), "b_z": np.zeros(O),
            # (a libm-free log: numpy's picks its vector loop by the CPU, and θ must not)
            "theta": perturbed(pm._log_of(lam0 / (1.0 - lam0))).reshape(n, H + I)}


def _lam_range(lam_range) -> tuple[float, float]:
    """``(low, high)``: two decays in (0, 1) with ``low <= high``."""
    pair = (isinstance(lam_range, (tuple, list)) and len(lam_range) == 2
            or isinstance(lam_range, np.ndarray) and lam_range.shape == (2,))
    if not pair:
        raise ValueError(f"lam_range must be (low, high), two decays in (0, 1), got {lam_range!r}")
    lo, hi = check_lambda(lam_range, "lam_range")
    if lo > hi:
        raise ValueError(f"lam_range must be (low, high) with low <= high, got {lam_range!r}")
    return float(lo), float(hi)


def _shapes(params) -> tuple[int, int, int, int]:
    """``(I, H, O, n)`` of a parameter dict, after checking the arrays are finite and agree."""
    if not isinstance(params, dict) or set(params) != set(PARAM_NAMES):
        got = sorted(params) if isinstance(params, dict) else type(params).__name__
        raise TypeError(f"TKRNN params must be a dict with keys {PARAM_NAMES}, got {got}")
    dims = {}
    shapes = {"theta": ("n", "H + I"), "W_h": ("H", "N"), "b_h": ("H",), "W_z": ("O", "N"), "b_z": ("O",)}
    for k in PARAM_NAMES:
        array(f"params[{k!r}]", params[k], shapes[k], dims)
    (n, _), (HI, _), (H, _), (N, _), (O, _) = (dims[k] for k in ("n", "H + I", "H", "N", "O"))
    if N != n * HI or HI <= H:
        raise ValueError("TKRNN params have mismatched sizes (need theta (n, H + I), W_h (H, n (H + I)), "
                         "b_h (H,), W_z (O, n (H + I)), b_z (O,)), got "
                         + ", ".join(f"{k} {np.shape(params[k])}" for k in PARAM_NAMES))
    return HI - H, H, O, n


def lam(params) -> np.ndarray:
    """The decays λ = logistic(θ), shape ``(n, H + I)``: kernel ``r``'s hidden then input senders
    (``params`` checked as :func:`tkrnn_forward` does)."""
    _shapes(params)
    return _lam(params)


def _lam(params) -> np.ndarray:
    """:func:`lam` of checked ``params``."""
    return pm._logistic_of(np.ascontiguousarray(params["theta"], dtype=float))


def blocks(params) -> dict:
    """The paper's matrices of each kernel ``r``: ``W_yy``, ``W_xy``, ``W_yz``, ``W_xz``,
    ``lam_y``, ``lam_x``, each stacked over kernels (first axis ``n``)."""
    I, H, O, n = _shapes(params)
    Wh = params["W_h"].reshape(H, n, H + I).transpose(1, 0, 2)
    Wz = params["W_z"].reshape(O, n, H + I).transpose(1, 0, 2)
    la = _lam(params)
    return {"W_yy": Wh[:, :, :H], "W_xy": Wh[:, :, H:], "W_yz": Wz[:, :, :H],
            "W_xz": Wz[:, :, H:], "lam_y": la[:, :H], "lam_x": la[:, H:]}


def n_params(n_in: int, n_hidden: int, n_out: int, n_kernels: int = 1) -> int:
    """Number of parameters: ``n (H + I)(H + O + 1) + H + O`` (weights, decays, biases)."""
    n_in, n_hidden, n_out = (count(k, v, 1) for k, v in (("n_in", n_in), ("n_hidden", n_hidden),
                                                           ("n_out", n_out)))
    N = count("n_kernels", n_kernels, 1) * (n_hidden + n_in)
    return N * (n_hidden + n_out + 1) + n_hidden + n_out


def multiply_adds(n_in: int, n_hidden: int, n_out: int, n_kernels: int = 1) -> int:
    """Multiply-adds of one forward step per sequence: ``N (H + O + 1)`` with ``N = n (H + I)``.

    ``N H`` for the hidden units' input, ``N O`` for the outputs' and ``N`` for the
    kernel update ``λ ⊙ K``; an RNN of the same sizes needs ``(H + I)(H + O)``
    (:func:`tempnets.models.rnn_baselines` eqs. 1-2).  The backward pass costs about twice this.
    """
    n_in, n_hidden, n_out = (count(k, v, 1) for k, v in (("n_in", n_in), ("n_hidden", n_hidden),
                                                           ("n_out", n_out)))
    return count("n_kernels", n_kernels, 1) * (n_hidden + n_in) * (n_hidden + n_out + 1)


def check_batch(x, target=None, mask=None, n_in=None, n_out=None, dtype=np.float64):
    """Validate a batch: ``x`` (T, B, I) of finite real numbers, ``target`` (T, B) integers in
    [0, O), ``mask`` (T, B) finite and >= 0.  ``x`` and ``mask`` are returned in ``dtype``
    (``numpy.float64`` or ``numpy.float32``: the precision the model computes in) and must be
    finite in it (``1e39`` is not a float32).  ``n_in``, ``n_out``: the network's sizes, if
    known."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be numpy.float64 or numpy.float32, got {dtype!r}")
    for name, v in (("n_in", n_in), ("n_out", n_out)):
        if v is not None:
            count(name, v, 1)
    x = array_in("x", x, dtype, finite=False)
    if x.ndim != 3 or 0 in x.shape:
        raise ValueError(f"x must have shape (T, B, n_in) with T, B, n_in >= 1, got {x.shape}")
    if n_in is not None and x.shape[2] != n_in:
        raise ValueError(f"x has {x.shape[2]} input units but the network has {n_in}")
    if not np.all(np.isfinite(x)):
        raise ValueError("x has NaN or infinite entries" + _overflow_note("x", x.dtype))
    if target is None:
        return x, None, None
    return (x, *_target_and_mask(target, mask, x.shape[:2], n_out, dtype))


def _overflow_note(name, dtype) -> str:
    return (f" ({name} must be finite in float32, the precision the model computes in: below "
            f"{float(np.finfo(np.float32).max):.3g} in magnitude)" if dtype == np.float32 else "")


def _target_and_mask(target, mask, shape, n_out, dtype):
    """``target`` (int64) and ``mask`` (in ``dtype``) of a batch of ``shape`` (T, B), checked."""
    t = np.asarray(target) if isinstance(target, np.ndarray) else _integers(target)
    if t.shape != shape or t.dtype.kind not in "iu":
        raise ValueError(f"target must be integer class indices of shape {shape}, "
                         f"got {t.dtype} {t.shape}")
    if n_out is not None and (t.min() < 0 or t.max() >= n_out):
        raise ValueError(f"target classes must be in [0, {n_out}) (the network has {n_out} outputs), "
                         f"got values in [{t.min()}, {t.max()}]")
    mask = np.ones(shape, dtype) if mask is None else array_in("mask", mask, dtype, shape, low=0.0)
    return t.astype(np.int64, copy=False), mask


def _given(target):
    """``target``, refused when ``None`` (a loss needs its targets; only a forward pass has none)."""
    if target is None:
        raise TypeError("target must be integer class indices of shape (T, B), got None")
    return target


def _integers(value) -> np.ndarray:
    """``value`` as an array, or a ``TypeError`` naming ``target`` when it is not numbers."""
    try:
        return np.asarray(value)
    except (TypeError, ValueError) as err:
        raise TypeError(f"target must be an array of class indices, got {type(value).__name__} ({err})") from None


def softmax_xent(logits, target, mask):
    """Softmax cross-entropy (eqs. 4-5) summed over masked steps, divided by the batch size.

    Returns ``(loss, dL/dlogits)``; shared by every model of the book's
    serial-recall chapter, so that all are trained on the same loss.  ``logits`` are
    ``(T, B, O)`` finite real numbers, computed in float32 when they are float32 (else
    float64); ``target`` ``(T, B)`` integers in ``[0, O)``; ``mask`` ``(T, B)`` finite, >= 0
    (and finite in the precision of the logits).  ``dL/dlogits`` has the dtype of the logits
    (see :func:`_softmax_xent_rows`).
    """
    dtype = np.float32 if isinstance(logits, np.ndarray) and logits.dtype == np.float32 else np.float64
    logits = array_in("logits", logits, dtype, ("T", "B", "O"), finite=False)
    if 0 in logits.shape:
        raise ValueError(f"logits must have shape (T, B, O) with T, B, O >= 1, got {logits.shape}")
    if not np.all(np.isfinite(logits)):
        raise ValueError("logits has NaN or infinite entries" + _overflow_note("logits", dtype))
    T, B, O = logits.shape
    target, _ = _target_and_mask(target, mask, (T, B), O, dtype)  # (mask checked in that precision)
    return _softmax_xent(logits, target, mask)  # (the kernel takes the mask in float64)


def _softmax_xent(logits, target, mask):
    """:func:`softmax_xent` of checked arrays."""
    T, B, O = logits.shape
    d = np.empty((T * B, O), logits.dtype)
    loss = _softmax_xent_rows(np.ascontiguousarray(logits).reshape(T * B, O),
                              np.ascontiguousarray(target, dtype=np.int64).reshape(-1),
                              np.ascontiguousarray(mask, dtype=np.float64).reshape(-1), B, d)
    return loss, d.reshape(T, B, O)


def _output_loss_and_grad(S, rows, n_rows, W_z, b_z, W_back, target, mask, B):
    """The output layer ``z = W_z s + b_z``, its loss (:func:`softmax_xent`) and gradients,
    computed at the scored rows only (every model of the chapter uses it; its arguments are
    checked by the model's public function).

    ``S``: the states the outputs see at the scored rows ``rows`` (flat indices ``t B + b``
    of the nonzero entries of ``mask``, in order), one per row.  Returns ``(loss, dS,
    dW_z, db_z)``: ``dS`` is ``dL/dz W_back`` at every one of the ``n_rows`` rows (0 where
    unscored; ``W_back`` is ``W_z`` or its columns for the hidden units).

    A row with mask 0 adds a zero to the loss and has ``dL/dz = 0``, so computing it
    changes no sum: leaving it out is exact (same bits) and saves the output layer's work
    at every unscored step (38 of a delay-30 string's 45)."""
    target = np.ascontiguousarray(target, dtype=np.int64).reshape(-1)[rows]
    mask = np.ascontiguousarray(mask, dtype=np.float64).reshape(-1)[rows]
    logits = pm._matmul(S, W_z.T, bias=b_z)
    dz = np.empty_like(logits)
    loss = _softmax_xent_rows(logits, target, mask, B, dz)
    dS = np.zeros((n_rows, W_back.shape[1]), S.dtype)
    dS[rows] = pm._matmul(dz, W_back)
    return loss, dS, pm._outer(dz, S), pm._colsum(dz)


def _scored_rows(mask):
    """The flat indices ``t B + b`` of the scored (nonzero) entries of a ``(T, B)`` mask."""
    return np.flatnonzero(mask.reshape(-1))


_ROWS = 16
"""Rows of :func:`_softmax_xent_rows` per block: the width of its vectors."""


@numba.njit(cache=True, error_model="numpy")  # (no division by zero is possible: see below)
def _softmax_xent_rows(z, target, mask, B, d):
    r"""The loss of :func:`softmax_xent` over rows ``i`` (one per step and sequence) and, into
    ``d``, its gradient :math:`(p_i - \mathrm{onehot}(v_i))\, m_i / B`.

    Per row, :math:`\log p_{iv} = (z_{iv} - \max_o z_{io}) - \log\sum_o e^{z_{io} - \max z_i}`
    (shifted by the maximum so that no exponential overflows, and the sum is at least 1);
    the exponentials (:func:`portable_math._exp_nonpositive_of_dtype`), their sum (in ``o``
    order) and ``d`` in the dtype of ``z``, the loss in float64 (with
    :func:`portable_math._log`, summed in row order).

    :data:`_ROWS` rows at a time, transposed into a small buffer (one column per row), so
    that every loop runs along rows and vectorises; each row's arithmetic is its own.
    """
    M, O = z.shape
    zt = np.empty((O, _ROWS), z.dtype)  # zt[o, r] = z[i0 + r, o], then its exponential, then d
    top = np.empty(_ROWS, z.dtype)
    s = np.empty(_ROWS, z.dtype)
    w = np.empty(_ROWS, z.dtype)
    one = z.dtype.type(1)  # (a literal 1.0 would make a float32 model compute in float64)
    total = 0.0
    for i0 in range(0, M, _ROWS):
        rows = min(_ROWS, M - i0)
        for r in range(rows):
            for o in range(O):
                zt[o, r] = z[i0 + r, o]
        for r in range(rows):
            top[r] = zt[0, r]
            s[r] = 0
            w[r] = mask[i0 + r] / B
        for o in range(1, O):
            for r in range(rows):
                top[r] = zt[o, r] if zt[o, r] > top[r] else top[r]
        for o in range(O):
            for r in range(rows):
                zt[o, r] = pm._exp_nonpositive_of_dtype(zt[o, r] - top[r])
                s[r] += zt[o, r]
        for r in range(rows):
            v = target[i0 + r]
            total += mask[i0 + r] * (np.float64(z[i0 + r, v] - top[r]) - pm._log(np.float64(s[r])))
            top[r] = (zt[v, r] / s[r] - one) * w[r]  # (top is free now) d at the target
        for o in range(O):
            for r in range(rows):
                zt[o, r] = pm._negligible_to_zero((zt[o, r] / s[r]) * w[r])
        for r in range(rows):
            for o in range(O):
                d[i0 + r, o] = zt[o, r]
            d[i0 + r, target[i0 + r]] = top[r]
    return -total / B


def _forward(W_h, b_h, W_z, b_z, la, x, n):
    """Kernel recursion over ``T`` steps.  Returns ``(K, y, logits)``, ``K[t + 1] = K_t``.

    Meaning of one step (:func:`_forward_states`): ``a = K_{t-1} W_hᵀ + b``; ``y = f(a)``;
    ``K_t = tile([y, x_t], n) + λ ⊙ K_{t-1}``; then every step's outputs at once,
    ``logits_t = K_t W_zᵀ + c``.  Every array in the dtype of ``x``.
    """
    K, y = _states(W_h, b_h, la, x, n)
    T, B, N = K.shape[0] - 1, K.shape[1], K.shape[2]
    logits = pm._matmul(K[1:].reshape(T * B, N), W_z.T, bias=b_z)
    return K, y, logits.reshape(T, B, -1)


def _states(W_h, b_h, la, x, n):
    """``(K, y)`` of :func:`_forward`."""
    T, B, I = x.shape
    H, N = W_h.shape
    K = np.empty((T + 1, B, N), x.dtype)
    K[0] = 0
    y = np.empty((T, B, H), x.dtype)
    _forward_states(np.ascontiguousarray(W_h.T), b_h, la, x, n, K, y)
    return K, y


@numba.njit(cache=True)
def _forward_states(W_hT, b_h, la, x, n, K, y):
    """Fill ``y[t]`` (eq. 7) and ``K[t + 1]`` (eqs. 8-9), ``t = 0 .. T - 1``; ``K[0] = 0``."""
    a = np.empty(y.shape[1:], y.dtype)
    for t in range(x.shape[0]):
        pm._affine_into(a, K[t], W_hT, b_h)  # a = b + W_h K_{t-1}, summed in sender order
        for b in range(a.shape[0]):
            pm._logistic_into(y[t, b], a[b])  # y_t = f(a)
        _kernel_step(K[t + 1], la, K[t], y[t], x[t], n)


@numba.njit(cache=True)
def _kernel_step(K_new, la, K_old, y, x, n):
    """``K_t = λ ⊙ K_{t-1} + u_t`` in each of the ``n`` kernels, ``u_t = [y_t, x_t]``
    (:func:`tempnets._numerics.portable._mul_add`: rounded once in float32)."""
    B, H = y.shape
    S = H + x.shape[1]
    for b in range(B):
        new, old, yb, xb = K_new[b], K_old[b], y[b], x[b]
        for r in range(n):
            for j in range(H):
                new[r * S + j] = pm._mul_add(la[r * S + j], old[r * S + j], yb[j])
            for i in range(S - H):
                new[r * S + H + i] = pm._mul_add(la[r * S + H + i], old[r * S + H + i], xb[i])


def _backward(W_h, la, K, y, gK_out, n):
    r"""The O(T) backward pass: gradients of the loss given ``gK_out`` :math:`= W_z^\top \delta^z_t`
    (:func:`_output_loss_and_grad`, which also gives those of ``W_z`` and ``b_z``).

    With :math:`G_t = \partial L/\partial K_t` (total: ``K_t`` feeds the output at
    ``t``, the hidden units at ``t + 1`` and ``K_{t+1}``), going from ``t = T`` down:

    .. math::

        G_t = W_z^\top \delta^z_t + W_h^\top \delta^a_{t+1} + \lambda \odot G_{t+1},\qquad
        \delta^a_t = \Bigl(\sum_r G^{y,r}_t\Bigr) \odot y_t (1 - y_t),

        \frac{\partial L}{\partial \lambda} = \sum_t G_t \odot K_{t-1},\qquad
        \frac{\partial L}{\partial W_h} = \sum_t \delta^a_t K_{t-1}^\top,\qquad
        \frac{\partial L}{\partial W_z} = \sum_t \delta^z_t K_t^\top.

    The recursion is :func:`_backward_states`; the sums over ``t`` (and the batch) are
    :mod:`tempnets._numerics.portable_math`'s, in step order.
    """
    T, B, H = y.shape
    N = la.shape[0]
    G = np.empty((T + 1, B, N), y.dtype)  # G[t] = dL/dK_t; G[T] = 0
    da = np.empty((T + 1, B, H), y.dtype)  # da[T] = 0: nothing after the last step
    G[T], da[T] = 0, 0
    _backward_states(W_h, la, y, gK_out, n, G, da)
    G, da = G[:T].reshape(T * B, N), da[:T].reshape(T * B, H)
    Kp = K[:-1].reshape(T * B, N)  # K_{t-1}, the state each step's units saw
    return {"W_h": pm._outer(da, Kp), "b_h": pm._colsum(da),
            "theta": pm._colsum_products(G, Kp) * la * (1 - la)}  # ∂K_t/∂λ = K_{t-1}


@numba.njit(cache=True)
def _backward_states(W_h, la, y, gK_out, n, G, da):
    """Fill ``G[t]`` and ``da[t]`` (δ^a_t) of :func:`_backward`, ``t = T - 1`` down to 0."""
    for t in range(y.shape[0] - 1, -1, -1):
        _decay_add(G[t], la, G[t + 1], gK_out[t])  # W_zᵀ δ^z_t + λ ⊙ G_{t+1}
        pm._matmul_acc(G[t], da[t + 1], W_h)  # + W_hᵀ δ^a_{t+1}
        _logistic_delta(da[t], G[t], y[t], n)


@numba.njit(cache=True)
def _decay_add(out, la, G, g):
    """``out = λ ⊙ G + g``, row by row (:func:`tempnets._numerics.portable._mul_add`; negligible
    float32 values set to 0, :func:`tempnets._numerics.portable_math._negligible_to_zero`)."""
    for b in range(out.shape[0]):
        o, Gb, gb = out[b], G[b], g[b]
        for m in range(o.size):
            o[m] = pm._negligible_to_zero(pm._mul_add(la[m], Gb[m], gb[m]))


@numba.njit(cache=True)
def _logistic_delta(da, G, y, n):
    """``δ^a = (Σ_r G^{y,r}) ⊙ y (1 - y)``: ``y_t`` enters all ``n`` kernels (their sum in
    kernel order)."""
    B, H = y.shape
    S = G.shape[1] // n
    one = y.dtype.type(1)  # (a literal 1.0 would make a float32 model compute in float64)
    for b in range(B):
        d, Gb, yb = da[b], G[b], y[b]
        for j in range(H):
            d[j] = Gb[j]
        for r in range(1, n):
            for j in range(H):
                d[j] += Gb[r * S + j]
        for j in range(H):
            d[j] = pm._negligible_to_zero(d[j] * yb[j] * (one - yb[j]))


def _weights_and_batch(params, x, target=None, mask=None, n_in=None, n_out=None, floats_per_step=0):
    """``((W_h, b_h, W_z, b_z), (x, target, mask))``: the weights every serial-recall model has
    and the checked batch (:func:`check_batch`), all in the precision of ``params``
    (:func:`_dtype_of`).  ``floats_per_step``: the values the model will store per sequence
    and step, refused (:func:`tempnets._numerics.checks.memory`) if they cannot fit."""
    dt = _dtype_of(params)
    batch = check_batch(x, target, mask, n_in=n_in, n_out=n_out, dtype=dt)
    T, B, _ = batch[0].shape
    memory((T + 1) * B * floats_per_step, f"a batch of {B} sequences of {T} steps through "
                 f"this network", np.dtype(dt).itemsize)
    return tuple(np.asarray(params[k], dtype=dt) for k in ("W_h", "b_h", "W_z", "b_z")), batch


def tkrnn_forward(params, x, return_states: bool = False):
    """Run a TKRNN^{+n} over a batch of sequences (eqs. 6-9).

    Parameters
    ----------
    params : dict
        From :func:`init_params` (keys ``W_h, b_h, W_z, b_z, theta``).
    x : array_like, shape (T, B, I)
        Inputs.
    return_states : bool
        Also return the hidden activations ``y`` (T, B, H) and the kernel
        states ``K`` (T + 1, B, N).

    Returns
    -------
    logits : ndarray, shape (T, B, O)
        Pre-softmax outputs; ``(logits, y, K)`` with ``return_states``.
    """
    I, H, O, n = _shapes(params)
    if not isinstance(return_states, bool):
        raise TypeError(f"return_states must be True or False, got {return_states!r}")
    (W_h, b_h, W_z, b_z), (x, _, _) = _weights_and_batch(params, x, n_in=I,
                                                         floats_per_step=n * (H + I) + H + O)
    K, y, logits = _forward(W_h, b_h, W_z, b_z, _lam(params).ravel().astype(x.dtype), x, n)
    return (logits, y, K) if return_states else logits


def tkrnn_loss_and_grad(params, x, target, mask=None):
    """Loss (cross-entropy over masked steps / B) and its exact gradient, in O(T).

    Returns ``(loss, grads)`` with ``grads`` keyed like ``params``; the gradient
    with respect to ``theta`` includes the chain factor ``λ(1 - λ)``.
    """
    I, H, O, n = _shapes(params)
    (W_h, b_h, W_z, b_z), (x, target, mask) = _weights_and_batch(
        params, x, _given(target), mask, I, O, floats_per_step=3 * n * (H + I) + 2 * H + O)
    la = _lam(params).ravel().astype(x.dtype)
    K, y = _states(W_h, b_h, la, x, n)
    T, B, N = y.shape[0], y.shape[1], la.size
    rows = _scored_rows(mask)
    loss, gK_out, g_Wz, g_bz = _output_loss_and_grad(K[1:].reshape(T * B, N)[rows], rows, T * B, W_z,
                                                    b_z, W_z, target, mask, B)
    grads = _backward(W_h, la, K, y, gK_out.reshape(T, B, N), n)
    grads["theta"] = grads["theta"].reshape(n, H + I)
    return loss, {"W_h": grads["W_h"], "b_h": grads["b_h"], "W_z": g_Wz, "b_z": g_bz,
                  "theta": grads["theta"]}


def kernel(weights, lambdas, lags) -> np.ndarray:
    r"""Effective connection weight at each lag: :math:`\kappa(k) = \sum_r w_r \lambda_r^{k-1}`.

    The weight from one sender to one receiver ``k`` steps later in a
    TKRNN^{+n} whose ``n`` kernels give that connection the weights ``w_r`` and
    the sender the decays ``λ_r`` (eq. 6 and the TKRNN^{+n} definition).

    Parameters
    ----------
    weights, lambdas : array_like, shape (n,)
        One weight and one decay in (0, 1) per kernel.
    lags : array_like of int
        Lags ``k >= 1``.
    """
    w = np.atleast_1d(array("weights", weights).reshape(np.shape(weights)))
    la = np.atleast_1d(check_lambda(lambdas, "lambdas"))
    if w.shape != la.shape or w.ndim != 1:
        raise ValueError(f"weights and lambdas must be 1-D of the same length, got {w.shape} and {la.shape}")
    try:
        k = np.asarray(lags)
    except (TypeError, ValueError):
        k = np.asarray(None)  # (refused below)
    if not np.issubdtype(k.dtype, np.integer) or np.any(k < 1):
        raise ValueError(f"lags must be integers >= 1 (lag 1 is the previous step), got {k.tolist()!r:.60}")
    memory(w.size * k.size, f"{w.size} kernels at {k.size} lags")
    return (w[:, None] * la[:, None] ** (k.ravel()[None, :] - 1)).sum(axis=0).reshape(k.shape)
