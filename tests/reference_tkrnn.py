"""Slow references for the TKRNN that read like the paper's eq. 6: every past step
connects to the present with its own weight ``W λ^{k-1}`` (the unrolled, all-lags form).

Forward and backward are both written over explicit lags (O(T^2)), without the
kernel recursion, so they are an independent derivation of what
``tempnets.models.tkrnn`` computes in O(T).
"""

import numpy as np

from tempnets.models import tkrnn


def unrolled_forward(params, x):
    """``(y, logits, v)``: hidden (T, B, H), logits (T, B, O), senders u_t = [y_t, x_t] tiled (T, B, N)."""
    I, H, O, n = tkrnn._shapes(params)
    la = _sigmoid(np.asarray(params["theta"], float)).ravel()
    T, B, _ = x.shape
    v = np.zeros((T, B, la.size))
    y = np.zeros((T, B, H))
    for t in range(T):
        a = np.array(np.broadcast_to(params["b_h"], (B, H)))
        for k in range(1, t + 1):  # eq. 6: lags 1..t, weight W λ^{k-1}
            a += (la ** (k - 1) * v[t - k]) @ params["W_h"].T
        y[t] = 1.0 / (1.0 + np.exp(-a))
        v[t] = np.tile(np.concatenate([y[t], x[t]], axis=1), n)
    logits = np.zeros((T, B, O))
    for t in range(T):
        logits[t] = params["b_z"]
        for k in range(0, t + 1):  # outputs: lags 0..t
            logits[t] += (la ** k * v[t - k]) @ params["W_z"].T
    return y, logits, v


def unrolled_loss(params, x, target, mask):
    _, logits, _ = unrolled_forward(params, x)
    return numpy_softmax_xent(logits, target, mask)[0]


def unrolled_grad(params, x, target, mask):
    """The gradient by back-propagation through every lag connection separately."""
    I, H, O, n = tkrnn._shapes(params)
    la = _sigmoid(np.asarray(params["theta"], float)).ravel()
    y, logits, v = unrolled_forward(params, x)
    _, do = numpy_softmax_xent(logits, target, mask)
    T, B, _ = x.shape
    ez = do @ params["W_z"]  # (T, B, N): error arriving at the output's kernel inputs
    da = np.zeros((T, B, H))
    for j in range(T - 1, -1, -1):  # dL/dv_j over all later steps that v_j reaches
        dv = np.zeros((B, la.size))
        for t in range(j, T):
            dv += la ** (t - j) * ez[t]
        for t in range(j + 1, T):
            dv += la ** (t - 1 - j) * (da[t] @ params["W_h"])
        dy = dv.reshape(B, n, -1)[:, :, :H].sum(axis=1)
        da[j] = dy * y[j] * (1 - y[j])
    g = {k: np.zeros_like(np.asarray(params[k], dtype=float)) for k in tkrnn.PARAM_NAMES}
    dlam = np.zeros(la.size)
    for t in range(T):
        g["b_h"] += da[t].sum(0)
        g["b_z"] += do[t].sum(0)
        for k in range(1, t + 1):
            g["W_h"] += da[t].T @ (la ** (k - 1) * v[t - k])
            if k >= 2:
                dlam += np.sum((da[t] @ params["W_h"]) * (k - 1) * la ** (k - 2) * v[t - k], axis=0)
        for k in range(0, t + 1):
            g["W_z"] += do[t].T @ (la ** k * v[t - k])
            if k >= 1:
                dlam += np.sum(ez[t] * k * la ** (k - 1) * v[t - k], axis=0)
    g["theta"] = (dlam * la * (1 - la)).reshape(n, -1)
    return g


# ----------------------------------------------------------------------------- numpy references
# The vectorised numpy implementation that the compiled kernels of tempnets.models.tkrnn and
# tempnets.models.rnn_baselines replaced (issue 20): the same formulas, with BLAS products and
# numpy's exp/tanh, so within rounding (not bit for bit) of the kernels.

def numpy_softmax_xent(logits, target, mask):
    """``(loss, dL/dlogits)`` of eqs. 4-5 (cross-entropy over masked steps / B)."""
    B = logits.shape[1]
    shifted = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=-1)
    logp = np.take_along_axis(shifted, target[..., None], -1)[..., 0] - np.log(total)
    d = e / total[..., None]
    np.put_along_axis(d, target[..., None], np.take_along_axis(d, target[..., None], -1) - 1.0, -1)
    return -float(np.sum(mask * logp)) / B, d * (mask / B)[..., None]


def _sigmoid(u):
    return 1.0 / (1.0 + np.exp(-u))


def numpy_tkrnn_loss_and_grad(params, x, target, mask):
    """TKRNN^{+n}: the kernel recursion forward, the O(T) backward (tkrnn._backward's equations)."""
    I, H, O, n = tkrnn._shapes(params)
    W_h, b_h, W_z, b_z = (np.asarray(params[k], float) for k in ("W_h", "b_h", "W_z", "b_z"))
    la = 1.0 / (1.0 + np.exp(-np.asarray(params["theta"], float).ravel()))
    T, B, _ = x.shape
    N = la.size
    K = np.zeros((T + 1, B, N))
    y = np.zeros((T, B, H))
    for t in range(T):
        y[t] = _sigmoid(K[t] @ W_h.T + b_h)
        K[t + 1] = np.tile(np.concatenate([y[t], x[t]], axis=1), n) + la * K[t]
    logits = K[1:] @ W_z.T + b_z
    loss, dz = numpy_softmax_xent(logits, target, mask)
    gK_out = dz @ W_z
    da = np.zeros((T + 1, B, H))
    G = np.zeros((T + 1, B, N))
    for t in range(T - 1, -1, -1):
        G[t] = gK_out[t] + da[t + 1] @ W_h + la * G[t + 1]
        da[t] = G[t].reshape(B, n, -1)[:, :, :H].sum(axis=1) * y[t] * (1 - y[t])
    da, G = da[:T].reshape(T * B, H), G[:T].reshape(T * B, N)
    Kp, Kt = K[:-1].reshape(T * B, N), K[1:].reshape(T * B, N)
    dz = dz.reshape(T * B, O)
    return loss, {"W_h": da.T @ Kp, "b_h": da.sum(0), "W_z": dz.T @ Kt, "b_z": dz.sum(0),
                  "theta": ((G * Kp).sum(0) * la * (1 - la)).reshape(n, -1)}


def numpy_rnn_loss_and_grad(params, x, target, mask, lstm=False):
    """The RNN of eqs. 1-2 (``lstm=False``) or the LSTM of tempnets.models.rnn_baselines, with BPTT."""
    W_h, b_h, W_z, b_z = (np.asarray(params[k], float) for k in ("W_h", "b_h", "W_z", "b_z"))
    T, B, I = x.shape
    H = W_h.shape[1] - I
    inp = np.zeros((T, B, H + I))  # [h_{t-1}, x_t]
    h = np.zeros((T, B, H))
    c = np.zeros((T + 1, B, H))
    gates = np.zeros((T, B, W_h.shape[0]))
    for t in range(T):
        inp[t] = np.concatenate([h[t - 1] if t else np.zeros((B, H)), x[t]], axis=1)
        a = inp[t] @ W_h.T + b_h
        if lstm:
            gates[t] = np.concatenate([_sigmoid(a[:, :3 * H]), np.tanh(a[:, 3 * H:])], axis=1)
            i, f, o, u = np.split(gates[t], 4, axis=1)
            c[t + 1] = f * c[t] + i * u
            h[t] = o * np.tanh(c[t + 1])
        else:
            h[t] = _sigmoid(a)
    v = np.concatenate([h, x], axis=2)
    loss, do = numpy_softmax_xent(v @ W_z.T + b_z, target, mask)
    dh_out = (do @ W_z)[:, :, :H]
    da = np.zeros_like(gates) if lstm else np.zeros((T, B, H))
    dh_next = np.zeros((B, H))
    dc_next = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dh = dh_out[t] + dh_next
        if lstm:
            i, f, o, u = np.split(gates[t], 4, axis=1)
            tc = np.tanh(c[t + 1])
            dc = dh * o * (1 - tc ** 2) + dc_next
            da[t] = np.concatenate([dc * u * i * (1 - i), dc * c[t] * f * (1 - f),
                                    dh * tc * o * (1 - o), dc * i * (1 - u ** 2)], axis=1)
            dc_next = dc * f
        else:
            da[t] = dh * h[t] * (1 - h[t])
        dh_next = da[t] @ W_h[:, :H]
    flat = lambda a: a.reshape(T * B, -1)  # noqa: E731
    return loss, {"W_h": flat(da).T @ flat(inp), "b_h": flat(da).sum(0),
                  "W_z": flat(do).T @ flat(v), "b_z": flat(do).sum(0)}
