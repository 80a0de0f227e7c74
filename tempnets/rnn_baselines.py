r"""Baselines for the TKRNN: the standard RNN of Sutskever & Hinton's eqs. 1-2 and an LSTM.

Papers: Sutskever & Hinton (2010), section 2 (the RNN they define, eqs. 1-5);
Hochreiter & Schmidhuber (1997) with the forget gate of Gers, Schmidhuber &
Cummins (2000), the LSTM the TKRNN is compared with ("comparable to that of the
Long Short-Term Memory").  Both use the batch layout, the loss
(:func:`tempnets.tkrnn.softmax_xent`) and the parameter-dict interface of
:mod:`tempnets.tkrnn`, so one training loop (:mod:`tempnets.optim`) trains all three.

RNN (eqs. 1-2, :math:`f` logistic, :math:`g` softmax; ``h_0 = 0``)::

    y_t = f(W_yy y_{t-1} + W_xy x_t + b)          W_h = [W_yy, W_xy]  (H, H + I)
    z_t = g(W_yz y_t + W_xz x_t + c)              W_z = [W_yz, W_xz]  (O, H + I)

LSTM (one cell per unit, gates stacked in the order input, forget, output, cell)::

    [i, f, o, u]_t = [σ, σ, σ, tanh](W_h [h_{t-1}, x_t] + b)     W_h  (4H, H + I)
    c_t = f ⊙ c_{t-1} + i ⊙ u,   h_t = o ⊙ tanh(c_t)
    z_t = g(W_z [h_t, x_t] + b_z)                                W_z  (O, H + I)

The forget-gate bias starts at +1 (a common choice; ours).  :func:`matched_hidden`
sizes either baseline to a given parameter count (that of the TKRNN).
"""

from __future__ import annotations

import math

import numpy as np

from .random import as_generator, perturbed
from .checks import array, count, real
from .tkrnn import _logistic, softmax_xent, weights_and_batch

__all__ = ["rnn_init", "rnn_forward", "rnn_loss_and_grad", "lstm_init", "lstm_forward",
           "lstm_loss_and_grad", "n_params", "matched_hidden"]

PARAM_NAMES = ("W_h", "b_h", "W_z", "b_z")


GATES = {"rnn": 1, "lstm": 4}


def _gates(kind) -> int:
    if kind not in GATES:
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
    root = math.floor((-b + math.sqrt(b * b - 4 * g * c)) / (2 * g))
    near = range(max(1, root - 1), max(1, root - 1) + 4)
    return min(near, key=lambda h: abs(n_params(kind, n_in, h, n_out) - target))


def _init(gates, n_in, n_hidden, n_out, rng, scale):
    I, H, O = (count(k, v, 1) for k, v in (("n_in", n_in), ("n_hidden", n_hidden),
                                                 ("n_out", n_out)))
    scale = real("scale", scale)
    gen = as_generator(rng)
    std = scale / np.sqrt(H + I)
    return {"W_h": perturbed(gen.standard_normal((gates * H, H + I)) * std), "b_h": np.zeros(gates * H),
            "W_z": perturbed(gen.standard_normal((O, H + I)) * std), "b_z": np.zeros(O)}


def _shapes(params, gates, name):
    """``(I, H, O)`` of an RNN's (``gates`` 1) or LSTM's (4) parameters, after checking that the
    arrays are finite and agree."""
    if not isinstance(params, dict) or set(params) != set(PARAM_NAMES):
        got = sorted(params) if isinstance(params, dict) else type(params).__name__
        raise TypeError(f"{name} params must be a dict with keys {PARAM_NAMES}, got {got}")
    dims = {}
    W_h = array(f"{name} params['W_h']", params["W_h"], ("gates x H", "H + I"), dims)
    GH, HI = W_h.shape
    if GH % gates:
        raise ValueError(f"{name} W_h must have {gates} x H rows, got {GH}")
    H = GH // gates
    for k, shape in (("b_h", ("gates x H",)), ("W_z", ("O", "H + I")), ("b_z", ("O",))):
        array(f"{name} params[{k!r}]", params[k], shape, dims)
    if HI <= H:
        raise ValueError(f"{name} params have mismatched sizes: W_h has {HI} columns, need H + I > H = {H}")
    return HI - H, H, dims["O"][0]


def _outer_sum(d, a):
    """``sum_t d_t a_tᵀ`` over time and batch as one matrix product: (T, B, m), (T, B, k) -> (m, k)."""
    return d.reshape(-1, d.shape[-1]).T @ a.reshape(-1, a.shape[-1])


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


def _rnn_forward(W_h, b_h, W_z, b_z, x):
    T, B, I = x.shape
    H = W_h.shape[0]
    inp = _step_inputs(x, H)
    a = np.empty((B, H), x.dtype)
    for t in range(T):  # in place (out=): no temporaries in the loop, the same bits
        np.matmul(inp[t], W_h.T, out=a)
        a += b_h
        inp[t + 1, :, :H] = _logistic(a, out=a)
    v = np.concatenate([inp[1:, :, :H], x], axis=2)  # [y_t, x_t], what the outputs see
    logits = v @ W_z.T
    logits += b_z
    return inp, v, logits


def rnn_forward(params, x, return_states=False):
    """Logits ``(T, B, O)`` of eqs. 1-2 (and hidden states ``(T, B, H)`` with ``return_states``)."""
    I, H, O = _shapes(params, 1, "RNN")
    weights, (x, _, _) = weights_and_batch(params, x, n_in=I)
    inp, _, logits = _rnn_forward(*weights, x)
    return (logits, inp[1:, :, :H]) if return_states else logits


def rnn_loss_and_grad(params, x, target, mask=None):
    """Cross-entropy over masked steps / B and its gradient by BPTT."""
    I, H, O = _shapes(params, 1, "RNN")
    (W_h, b_h, W_z, b_z), (x, target, mask) = weights_and_batch(params, x, target, mask, I, O)
    inp, v, logits = _rnn_forward(W_h, b_h, W_z, b_z, x)
    loss, do = softmax_xent(logits, target, mask)
    T, B, _ = x.shape
    dy_out = (do @ W_z)[:, :, :H]  # backprop into y_t from the output
    da = np.empty((T, B, H), x.dtype)
    dh_next = np.zeros((B, H), x.dtype)
    slope = np.empty((B, H), x.dtype)
    W_yy = W_h[:, :H]
    for t in range(T - 1, -1, -1):  # in place; the same bits as (dy + dh) * y * (1 - y)
        y = inp[t + 1, :, :H]
        np.add(dy_out[t], dh_next, out=da[t])
        da[t] *= y
        np.subtract(1, y, out=slope)
        da[t] *= slope
        np.matmul(da[t], W_yy, out=dh_next)  # backprop into y_{t-1} through W_yy
    return loss, {"W_h": _outer_sum(da, inp[:T]), "b_h": da.sum((0, 1)),
                  "W_z": _outer_sum(do, v), "b_z": do.sum((0, 1))}


# ----------------------------------------------------------------------------- LSTM

def lstm_init(n_in, n_hidden, n_out, rng=None, scale=1.0, forget_bias=1.0) -> dict:
    """Random LSTM parameters (sd ``scale / sqrt(H + I)``), forget-gate bias ``forget_bias``."""
    p = _init(4, n_in, n_hidden, n_out, rng, scale)
    p["b_h"][n_hidden:2 * n_hidden] = real("forget_bias", forget_bias)
    return p


def _lstm_forward(W_h, b_h, W_z, b_z, x):
    T, B, I = x.shape
    H = W_h.shape[0] // 4
    inp = _step_inputs(x, H)
    c = np.zeros((T + 1, B, H), x.dtype)
    gates = np.empty((T, B, 4 * H), x.dtype)
    iu = np.empty((B, H), x.dtype)
    for t in range(T):  # in place (out=): no temporaries in the loop, the same bits
        g = gates[t]
        np.matmul(inp[t], W_h.T, out=g)
        g += b_h
        _logistic(g[:, :3 * H], out=g[:, :3 * H])
        np.tanh(g[:, 3 * H:], out=g[:, 3 * H:])
        np.multiply(g[:, H:2 * H], c[t], out=c[t + 1])
        np.multiply(g[:, :H], g[:, 3 * H:], out=iu)
        c[t + 1] += iu
        np.tanh(c[t + 1], out=iu)
        np.multiply(g[:, 2 * H:3 * H], iu, out=inp[t + 1, :, :H])
    hx = np.concatenate([inp[1:, :, :H], x], axis=2)  # [h_t, x_t], what the outputs see
    logits = hx @ W_z.T
    logits += b_z
    return inp, hx, c, gates, logits


def lstm_forward(params, x, return_states=False):
    """Logits ``(T, B, O)`` (and ``(h, c)``, each ``(T, B, H)``, with ``return_states``)."""
    I, H, O = _shapes(params, 4, "LSTM")
    weights, (x, _, _) = weights_and_batch(params, x, n_in=I)
    inp, _, c, _, logits = _lstm_forward(*weights, x)
    return (logits, inp[1:, :, :H], c[1:]) if return_states else logits


def lstm_loss_and_grad(params, x, target, mask=None):
    """Cross-entropy over masked steps / B and its gradient by BPTT."""
    I, H, O = _shapes(params, 4, "LSTM")
    (W_h, b_h, W_z, b_z), (x, target, mask) = weights_and_batch(params, x, target, mask, I, O)
    inp, hx, c, gates, logits = _lstm_forward(W_h, b_h, W_z, b_z, x)
    loss, do = softmax_xent(logits, target, mask)
    T, B, _ = x.shape
    dh_out = (do @ W_z)[:, :, :H]
    da = np.empty((T, B, 4 * H), x.dtype)
    dh_next = np.zeros((B, H), x.dtype)
    dc_next = np.zeros((B, H), x.dtype)
    tc, dh, dc, slope = (np.empty((B, H), x.dtype) for _ in range(4))
    W_hh = W_h[:, :H]

    def product(out, factors, gate, square=False):
        """``out = f1 * f2 * ... * (1 - gate)`` (``(1 - gate**2)`` with ``square``), in place
        and left to right: the same bits as the expression."""
        np.multiply(factors[0], factors[1], out=out)
        for factor in factors[2:]:
            out *= factor
        if square:
            np.square(gate, out=slope)
            np.subtract(1, slope, out=slope)
        else:
            np.subtract(1, gate, out=slope)
        out *= slope

    for t in range(T - 1, -1, -1):  # in place; the formula of each line in its comment
        i, f, o, u = (gates[t][:, k * H:(k + 1) * H] for k in range(4))
        d = da[t]
        np.tanh(c[t + 1], out=tc)
        np.add(dh_out[t], dh_next, out=dh)              # dh = dh_out + dh_next
        product(dc, (dh, o), tc, square=True)            # dc = dc_next + dh o (1 - tc^2): into
        dc += dc_next                                    # c_t through h_t = o tanh(c_t)
        product(d[:, :H], (dc, u, i), i)                 # dc u i (1 - i)
        product(d[:, H:2 * H], (dc, c[t], f), f)         # dc c_{t-1} f (1 - f)
        product(d[:, 2 * H:3 * H], (dh, tc, o), o)       # dh tc o (1 - o)
        product(d[:, 3 * H:], (dc, i), u, square=True)   # dc i (1 - u^2)
        np.matmul(d, W_hh, out=dh_next)                  # dh_next = d W_hh
        np.multiply(dc, f, out=dc_next)                  # dc_next = dc f
    return loss, {"W_h": _outer_sum(da, inp[:T]), "b_h": da.sum((0, 1)),
                  "W_z": _outer_sum(do, hx), "b_z": do.sum((0, 1))}
