"""Slow references for the TKRNN that read like the paper's eq. 6: every past step
connects to the present with its own weight ``W λ^{k-1}`` (the unrolled, all-lags form).

Forward and backward are both written over explicit lags (O(T^2)), without the
kernel recursion, so they are an independent derivation of what
``tempnets.tkrnn`` computes in O(T).
"""

import numpy as np

from tempnets import tkrnn


def unrolled_forward(params, x):
    """``(y, logits, v)``: hidden (T, B, H), logits (T, B, O), senders u_t = [y_t, x_t] tiled (T, B, N)."""
    I, H, O, n = tkrnn._shapes(params)
    la = tkrnn.lam(params).ravel()
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
    return tkrnn.softmax_xent(logits, target, mask)[0]


def unrolled_grad(params, x, target, mask):
    """The gradient by back-propagation through every lag connection separately."""
    I, H, O, n = tkrnn._shapes(params)
    la = tkrnn.lam(params).ravel()
    y, logits, v = unrolled_forward(params, x)
    _, do = tkrnn.softmax_xent(logits, target, mask)
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
