r"""Baselines for the TKRNN: the standard RNN of Sutskever & Hinton's eqs. 1-2 and an LSTM.

Papers: Sutskever & Hinton (2010), section 2 (the RNN they define, eqs. 1-5);
Hochreiter & Schmidhuber (1997) with the forget gate of Gers, Schmidhuber &
Cummins (2000), the LSTM the TKRNN is compared with ("comparable to that of the
Long Short-Term Memory").  Both use the batch layout, the loss and output layer
(:func:`tempnets.models.tkrnn.softmax_xent`, :func:`tempnets.models.tkrnn._output_loss_and_grad`) and the
parameter-dict interface of :mod:`tempnets.models.tkrnn`, so one training loop
(:mod:`tempnets.training.optim`) trains all three.

RNN (eqs. 1-2, :math:`f` logistic, :math:`g` softmax; ``h_0 = 0``)::

    y_t = f(W_yy y_{t-1} + W_xy x_t + b)          W_h = [W_yy, W_xy]  (H, H + I)
    z_t = g(W_yz y_t + W_xz x_t + c)              W_z = [W_yz, W_xz]  (O, H + I)

LSTM (one cell per unit, gates stacked in the order input, forget, output, cell)::

    [i, f, o, u]_t = [σ, σ, σ, tanh](W_h [h_{t-1}, x_t] + b)     W_h  (4H, H + I)
    c_t = f ⊙ c_{t-1} + i ⊙ u,   h_t = o ⊙ tanh(c_t)
    z_t = g(W_z [h_t, x_t] + b_z)                                W_z  (O, H + I)

The forget-gate bias starts at +1 (a common choice; ours).  :func:`matched_hidden`
sizes either baseline to a given parameter count (that of the TKRNN).

The recursions are numba kernels and every product and sum goes through
:mod:`tempnets._numerics.portable_math`, as in :mod:`tempnets.models.tkrnn`: the same bits on every CPU.
The numpy forms they equal are in ``tests/reference_tkrnn.py``.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._numerics import portable_math as pm
from .._numerics.checks import array, memory, count, real
from .._numerics.random import as_generator, perturbed
from .tkrnn import _given, _output_loss_and_grad, _scored_rows, _weights_and_batch

__all__ = ["rnn_init", "rnn_forward", "rnn_loss_and_grad", "lstm_init", "lstm_forward",
           "lstm_loss_and_grad", "n_params", "matched_hidden"]

PARAM_NAMES = ("W_h", "b_h", "W_z", "b_z")


GATES = {"rnn": 1, "lstm": 4}


def _gates(kind) -> int:
    if not isinstance(kind, str) or kind not in GATES:
        raise ValueError(f"kind must be 'rnn' or 'lstm', got {kind!r}")
    return GATES[kind]


def n_params(kind: str, n_in: int, n_hidden: int, n_out: int) -> int:
    """Parameters of an ``"rnn"`` or ``"lstm"`` with these sizes."""
    g = _gates(kind)
    I, H, O = (count(k, v, 1) for k, v in (("n_in", n_in), ("n_hidden", n_hidden), ("n_out", n_out)))
    return g * H * (H + I + 1) + O * (H + I + 1)


def matched_hidden(kind: str, n_in: int, n_out: int, target: int) -> int:
    """The hidden size whose parameter count (:func:`n_params`) is closest to ``target``
    (the smaller one on a tie; at least 1).

    :func:`n_params` is ``g H^2 + (g (I + 1) + O) H + O (I + 1)``, increasing in ``H``: the
    answer is next to the positive root of ``n_params = target``.
    """
    g = _gates(kind)
    I, O = count("n_in", n_in, 1), count("n_out", n_out, 1)
    target = count("target", target, 1)
    b, c = g * (I + 1) + O, O * (I + 1) - target
    root = (math.isqrt(b * b - 4 * g * c) - b) // (2 * g)  # (integers: any size of target)
    near = range(max(1, root - 1), max(1, root - 1) + 4)
    return min(near, key=lambda h: abs(n_params(kind, n_in, h, n_out) - target))


def _boolean(name, value) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")


def _init(gates, n_in, n_hidden, n_out, rng, scale):
    I, H, O = (count(k, v, 1) for k, v in (("n_in", n_in), ("n_hidden", n_hidden),
                                                 ("n_out", n_out)))
    scale = real("scale", scale)
    memory(2 * (gates * H + O) * (H + I + 1), f"{'RNN' if gates == 1 else 'LSTM'} parameters "
                 f"of n_in={I}, n_hidden={H}, n_out={O} (and their draws)")
    gen = as_generator(rng)
    std = scale / np.sqrt(H + I)
    return {"W_h": perturbed(gen.standard_normal((gates * H, H + I)) * std), "b_h": np.zeros(gates * H),
            "W_z": perturbed(gen.standard_normal((O, H + I)) * std), "b_z": np.zeros(O)}


def _shapes(params, gates, name, x=None):
    """``(I, H, O)`` of an RNN's (``gates`` 1) or LSTM's (4) parameters, after checking that the
    arrays are finite and agree, and, given the inputs ``x``, that they are not the other
    model's parameters (an RNN's ``W_h`` (H, H + I) reads as an LSTM's with H / 4 units)."""
    if not isinstance(params, dict) or set(params) != set(PARAM_NAMES):
        got = sorted(params) if isinstance(params, dict) else type(params).__name__
        raise TypeError(f"{name} params must be a dict with keys {PARAM_NAMES}, got {got}")
    dims = {}
    W_h = array(f"{name} params['W_h']", params["W_h"], ("gates x H", "H + I"), dims)
    GH, HI = W_h.shape
    _not_the_other_model(GH, HI, gates, x)
    if GH % gates:
        raise ValueError(f"{name} W_h must have {gates} x H rows, got {GH}")
    H = GH // gates
    for k, shape in (("b_h", ("gates x H",)), ("W_z", ("O", "H + I")), ("b_z", ("O",))):
        array(f"{name} params[{k!r}]", params[k], shape, dims)
    if HI <= H:
        raise ValueError(f"{name} params have mismatched sizes: W_h has {HI} columns, need H + I > H = {H}")
    return HI - H, H, dims["O"][0]


_USE = {1: "rnn_forward / rnn_loss_and_grad", 4: "lstm_forward / lstm_loss_and_grad"}
_KIND = {1: ("RNN", "W_h (H, H + I)"), 4: ("LSTM", "W_h (4 H, H + I)")}


def _not_the_other_model(GH, HI, gates, x):
    """Refuse parameters whose ``W_h`` (``GH`` rows, ``HI`` columns) fits the other model (RNN:
    1 gate, LSTM: 4) with the input units of ``x`` and does not fit this one."""
    try:
        n_in = np.shape(x)[-1] if x is not None and np.ndim(x) == 3 else None
    except (TypeError, ValueError):  # (a ragged x: check_batch says what is wrong with it)
        n_in = None

    def fits(g):
        return n_in is not None and GH % g == 0 and HI - GH // g == n_in

    other = 5 - gates
    if fits(other) and not fits(gates):
        (name, layout), (other_name, other_layout) = _KIND[gates], _KIND[other]
        raise ValueError(f"these are {other_name} params, not {name} params: W_h {(GH, HI)} is "
                         f"{other_layout} with H = {GH // other}, I = {n_in} (x's input units), while "
                         f"{name} params have {layout}; use {_USE[other]}")


# ----------------------------------------------------------------------------- RNN (eqs. 1-2)

def rnn_init(n_in, n_hidden, n_out, rng=None, scale=1.0) -> dict:
    """Random RNN parameters: weights normal with sd ``scale / sqrt(H + I)``, biases 0 (ours)."""
    return _init(1, n_in, n_hidden, n_out, rng, scale)


def _step_inputs(x, H):
    """``inp`` (T + 1, B, H + I) with ``inp[t] = [h_{t-1}, x_t]`` once the loop has written
    every ``h_{t-1}`` (``h_{-1} = 0``): the hidden layer's input at step ``t`` (``inp[T, :, H:]``
    is unused), kept whole for the backward pass instead of concatenated step by step."""
    T, B, I = x.shape
    inp = np.zeros((T + 1, B, H + I), x.dtype)
    inp[:T, :, H:] = x
    return inp


def _readout(inp, x, W_z, b_z):
    """``(v, logits)``: ``v_t = [h_t, x_t]``, what the outputs see, and ``W_z v_t + b_z``."""
    T, B, I = x.shape
    H = inp.shape[2] - I
    v = np.concatenate([inp[1:, :, :H], x], axis=2)
    return v, pm._matmul(v.reshape(T * B, H + I), W_z.T, bias=b_z).reshape(T, B, -1)


def _outputs_loss_and_grad(inp, x, W_z, b_z, target, mask):
    """``(loss, dh_out, dW_z, db_z)`` of the output layer (both models), at the scored rows
    only (:func:`tempnets.models.tkrnn._output_loss_and_grad`); ``dh_out`` ``(T, B, H)`` is the error
    into ``h_t`` from ``z_t``."""
    T, B, I = x.shape
    H = inp.shape[2] - I
    rows = _scored_rows(mask)
    v = np.concatenate([inp[1:, :, :H].reshape(T * B, H)[rows], x.reshape(T * B, I)[rows]], axis=1)
    loss, dh_out, dW_z, db_z = _output_loss_and_grad(v, rows, T * B, W_z, b_z, W_z[:, :H], target,
                                                    mask, B)
    return loss, dh_out.reshape(T, B, H), dW_z, db_z


def _gradients(da, inp, outputs):
    """The loss and the gradients (both models): ``W_h``: ``sum_t δ^a_t [h_{t-1}, x_t]ᵀ`` summed
    over time and batch in step order, gate by gate (``da`` is ``(gates, T, B, H)``), and
    the output layer's (``outputs``: :func:`_outputs_loss_and_grad`)."""
    G, T, B, H = da.shape
    inp = inp[:T].reshape(T * B, -1)
    W_h = np.empty((G * H, inp.shape[1]), da.dtype)
    for q in range(G):
        W_h[q * H:(q + 1) * H] = pm._outer(da[q].reshape(T * B, H), inp)
    loss, _, dW_z, db_z = outputs
    return loss, {"W_h": W_h,
                  "b_h": np.concatenate([pm._colsum(da[q].reshape(T * B, H)) for q in range(G)]),
                  "W_z": dW_z, "b_z": db_z}


def _rnn_forward(W_h, b_h, x):
    """``inp`` of :func:`_step_inputs`, filled by eq. 1."""
    inp = _step_inputs(x, W_h.shape[0])
    _rnn_states(np.ascontiguousarray(W_h.T), b_h, inp)
    return inp


@numba.njit(cache=True)
def _rnn_states(W_hT, b_h, inp):
    """Eq. 1 step by step: ``h_t = f(W_h [h_{t-1}, x_t] + b)`` into ``inp[t + 1, :, :H]``."""
    T, B = inp.shape[0] - 1, inp.shape[1]
    H = b_h.size
    a = np.empty((B, H), inp.dtype)
    for t in range(T):
        pm._affine_into(a, inp[t], W_hT, b_h)
        for b in range(B):
            pm._logistic_into(inp[t + 1, b, :H], a[b])


def rnn_forward(params, x, return_states=False):
    """Logits ``(T, B, O)`` of eqs. 1-2 (and hidden states ``(T, B, H)`` with ``return_states``)."""
    I, H, O = _shapes(params, 1, "RNN", x)
    _boolean("return_states", return_states)
    (W_h, b_h, W_z, b_z), (x, _, _) = _weights_and_batch(params, x, n_in=I, floats_per_step=2 * H + I + O)
    inp = _rnn_forward(W_h, b_h, x)
    _, logits = _readout(inp, x, W_z, b_z)
    return (logits, inp[1:, :, :H]) if return_states else logits


def rnn_loss_and_grad(params, x, target, mask=None):
    """Cross-entropy over masked steps / B and its gradient by BPTT (:func:`_rnn_deltas`)."""
    I, H, O = _shapes(params, 1, "RNN", x)
    (W_h, b_h, W_z, b_z), (x, target, mask) = _weights_and_batch(params, x, _given(target), mask, I, O,
                                                                 floats_per_step=4 * H + 2 * I + O)
    inp = _rnn_forward(W_h, b_h, x)
    outputs = _outputs_loss_and_grad(inp, x, W_z, b_z, target, mask)
    da = np.empty(outputs[1].shape, x.dtype)
    _rnn_deltas(np.ascontiguousarray(W_h[:, :H]), inp, outputs[1], da)
    return _gradients(da[None], inp, outputs)


@numba.njit(cache=True)
def _rnn_deltas(W_yy, inp, dy_out, da):
    """BPTT of eq. 1, ``t = T - 1`` down to 0: ``δ^a_t = (dy_t + W_yyᵀ δ^a_{t+1}) y_t (1 - y_t)``,
    ``dy_t`` the error from the output at ``t``."""
    T, B, H = da.shape
    one = da.dtype.type(1)  # (a literal 1.0 would make a float32 model compute in float64)
    dh = np.zeros((B, H), da.dtype)  # W_yyᵀ δ^a_{t+1}: the error reaching y_t through y_{t+1}
    for t in range(T - 1, -1, -1):
        for b in range(B):
            y, d, dy, dhb = inp[t + 1, b], da[t, b], dy_out[t, b], dh[b]
            for j in range(H):
                d[j] = pm._negligible_to_zero((dy[j] + dhb[j]) * y[j] * (one - y[j]))
                dhb[j] = 0
        pm._matmul_acc(dh, da[t], W_yy)


# ----------------------------------------------------------------------------- LSTM

def lstm_init(n_in, n_hidden, n_out, rng=None, scale=1.0, forget_bias=1.0) -> dict:
    """Random LSTM parameters (sd ``scale / sqrt(H + I)``), forget-gate bias ``forget_bias``."""
    p = _init(4, n_in, n_hidden, n_out, rng, scale)
    p["b_h"][n_hidden:2 * n_hidden] = real("forget_bias", forget_bias)
    return p


def _lstm_forward(W_h, b_h, x):
    """``(inp, c, gates, tc)`` of :func:`_lstm_states`: ``gates`` is ``(4, T, B, H)``, gate by
    gate, so that every element-wise loop runs over a whole ``(B, H)`` block."""
    T, B, I = x.shape
    H = W_h.shape[0] // 4
    inp = _step_inputs(x, H)
    c = np.zeros((T + 1, B, H), x.dtype)
    gates = np.empty((4, T, B, H), x.dtype)
    tc = np.empty((T, B, H), x.dtype)
    W_hT = np.ascontiguousarray(W_h.reshape(4, H, H + I).transpose(0, 2, 1))  # gate q: (H + I, H)
    _lstm_states(W_hT, np.ascontiguousarray(b_h.reshape(4, H)), inp, c, gates, tc)
    return inp, c, gates, tc


@numba.njit(cache=True, inline="always")
def _flat(a):
    return a.reshape(a.size)


@numba.njit(cache=True)
def _lstm_states(W_hT, b_h, inp, c, gates, tc):
    """The LSTM step by step (module docstring): ``gates[:, t] = [i, f, o, u]_t``, ``c[t + 1] =
    c_t``, ``tc[t] = tanh(c_t)`` and ``h_t = o ⊙ tanh(c_t)`` into ``inp[t + 1, :, :H]``.
    Gate ``q``'s input is its own product (``W_hT[q]``): the same sums, in the same order,
    as one product with all four."""
    _, T, B, H = gates.shape
    a = np.empty((B, H), gates.dtype)
    h = np.empty((B, H), gates.dtype)
    for t in range(T):
        for q in range(4):
            pm._affine_into(a, inp[t], W_hT[q], b_h[q])
            if q < 3:
                pm._logistic_into(_flat(gates[q, t]), _flat(a))
            else:
                pm._tanh_into(_flat(gates[q, t]), _flat(a))
        _cell_step(_flat(c[t + 1]), _flat(tc[t]), _flat(h), _flat(c[t]), _flat(gates[0, t]),
                   _flat(gates[1, t]), _flat(gates[2, t]), _flat(gates[3, t]))
        for b in range(B):
            inp[t + 1, b, :H] = h[b]


@numba.njit(cache=True)
def _cell_step(c, tc, h, c_old, i, f, o, u):
    """``c_t = f ⊙ c_{t-1} + i ⊙ u`` (:func:`tempnets._numerics.portable._mul_add`), ``tanh(c_t)`` and
    ``h_t = o ⊙ tanh(c_t)``.  (Two loops of few arrays each: LLVM vectorises a loop only when
    it needs few run-time checks that its arrays do not overlap.)"""
    for j in range(c.size):
        c[j] = pm._mul_add(f[j], c_old[j], i[j] * u[j])
    for j in range(c.size):
        tc[j] = pm._tanh_of_dtype(c[j])
        h[j] = o[j] * tc[j]


def lstm_forward(params, x, return_states=False):
    """Logits ``(T, B, O)`` (and ``(h, c)``, each ``(T, B, H)``, with ``return_states``)."""
    I, H, O = _shapes(params, 4, "LSTM", x)
    _boolean("return_states", return_states)
    (W_h, b_h, W_z, b_z), (x, _, _) = _weights_and_batch(params, x, n_in=I, floats_per_step=8 * H + 2 * I + O)
    inp, c, _, _ = _lstm_forward(W_h, b_h, x)
    _, logits = _readout(inp, x, W_z, b_z)
    return (logits, inp[1:, :, :H], c[1:]) if return_states else logits


def lstm_loss_and_grad(params, x, target, mask=None):
    """Cross-entropy over masked steps / B and its gradient by BPTT (:func:`_lstm_deltas`)."""
    I, H, O = _shapes(params, 4, "LSTM", x)
    (W_h, b_h, W_z, b_z), (x, target, mask) = _weights_and_batch(params, x, _given(target), mask, I, O,
                                                                 floats_per_step=12 * H + 2 * I + O)
    inp, c, gates, tc = _lstm_forward(W_h, b_h, x)
    outputs = _outputs_loss_and_grad(inp, x, W_z, b_z, target, mask)
    da = np.empty(gates.shape, x.dtype)
    _lstm_deltas(np.ascontiguousarray(W_h[:, :H]).reshape(4, H, H), c, gates, tc, outputs[1], da)
    return _gradients(da, inp, outputs)


@numba.njit(cache=True)
def _lstm_deltas(W_hh, c, gates, tc, dh_out, da):
    """BPTT of the LSTM, ``t = T - 1`` down to 0: ``da[:, t]`` = the errors of the gates'
    inputs ``[i, f, o, u]`` (:func:`_cell_deltas`); ``W_hh[q]``: gate ``q``'s weights from
    ``h_{t-1}``, their products added gate by gate (the order of one product with all four)."""
    _, T, B, H = gates.shape
    dh = np.zeros((B, H), da.dtype)  # W_hhᵀ da_{t+1}: into h_t through the gates at t + 1
    dc = np.zeros((B, H), da.dtype)  # into c_t through c_{t+1} = f c_t + ...
    for t in range(T - 1, -1, -1):
        _cell_deltas((_flat(da[0, t]), _flat(da[1, t]), _flat(da[2, t]), _flat(da[3, t])),
                     _flat(dh), _flat(dc), _flat(dh_out[t]),
                     (_flat(gates[0, t]), _flat(gates[1, t]), _flat(gates[2, t]), _flat(gates[3, t])),
                     _flat(tc[t]), _flat(c[t]))
        for q in range(4):
            pm._matmul_acc(dh, da[q, t], W_hh[q])


@numba.njit(cache=True)
def _cell_deltas(da, dh, dc, dh_out, gates, th, c_old):
    """One step of :func:`_lstm_deltas` over the batch: from ``dh`` (``W_hhᵀ da_{t+1}``),
    ``dc`` (the error into ``c_t`` through ``c_{t+1}``) and ``dh_out`` (from the output at
    ``t``), the gates' errors ``da = (di, df, do, du)``; ``dc`` becomes the error into
    ``c_{t-1}`` and ``dh`` 0 (for the next product).  One loop per formula, few arrays each,
    so that each vectorises (see :func:`_cell_step`)."""
    di, df, do, du = da
    i, f, o, u = gates
    one = dh.dtype.type(1)  # (a literal 1.0 would make a float32 model compute in float64)
    for j in range(dh.size):
        dh[j] = dh_out[j] + dh[j]  # into h_t
    for j in range(dh.size):  # into c_t: through h_t = o tanh(c_t), and through c_{t+1}
        dc[j] = pm._negligible_to_zero(dh[j] * o[j] * (one - th[j] * th[j]) + dc[j])
    for j in range(dh.size):
        di[j] = pm._negligible_to_zero(dc[j] * u[j] * i[j] * (one - i[j]))
    for j in range(dh.size):
        df[j] = pm._negligible_to_zero(dc[j] * c_old[j] * f[j] * (one - f[j]))  # c_old = c_{t-1}
    for j in range(dh.size):
        do[j] = pm._negligible_to_zero(dh[j] * th[j] * o[j] * (one - o[j]))
    for j in range(dh.size):
        du[j] = pm._negligible_to_zero(dc[j] * i[j] * (one - u[j] * u[j]))
    for j in range(dh.size):
        dc[j] = dc[j] * f[j]  # into c_{t-1}
        dh[j] = 0
