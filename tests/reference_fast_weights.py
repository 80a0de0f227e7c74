r"""Slow reference for Schmidhuber's dynamic links (1991), written like the paper's section 2.

Not for use outside the tests.  Plain Python loops over *every* pair of a fast
weight ``w_ab`` and a slow weight ``u_ij``: the dense p-variables
``p[(a, b)][(j, i)]`` of eq. (3), with ``∂□w_ab/∂u_ji`` spelled out for
interfaces (4) and (5) (eq. 6) without using which entries are zero.  The step
order is the library's: F reads with w(t-1), the error and its gradient
``Σ_ab δ_ab(t) p^{ab}(t-1)`` (eq. 2), S writes w(t) by eq. (1)/(7) and the
p-variables move on (eq. 3), then (on-line) ``U ← U - η ∂E(t)/∂U``.
"""

from __future__ import annotations

import math

import numpy as np


def s_outputs(U, x):
    return [sum(U[j][i] * x[i] for i in range(len(x))) for j in range(len(U))]


def box_w(interface, s, a, b, n_f_in):
    """□w_ab: eq. (4) s_ab, or eq. (5) s_a s_b (FROM unit a, TO unit n_f_in + b)."""
    if interface == "per-weight":
        return s[b * n_f_in + a]
    return s[a] * s[n_f_in + b]


def dbox_du(interface, s, x, a, b, j, i, n_f_in):
    """∂□w_ab/∂u_ji (S output j, S input i), eq. (4) or eq. (6)."""
    if interface == "per-weight":
        return x[i] if j == b * n_f_in + a else 0.0
    out = 0.0
    if j == a:                 # s_b ∂s_a/∂u_ji
        out += s[n_f_in + b] * x[i]
    if j == n_f_in + b:        # s_a ∂s_b/∂u_ji
        out += s[a] * x[i]
    return out


def sigma(w_old, box, T, squash):
    if squash == "none":
        return w_old + box, 1.0, 1.0
    w = 1.0 / (1.0 + math.exp(-T * (w_old + box - 0.5)))
    return w, T * w * (1 - w), T * w * (1 - w)  # value, dσ/dw(t-1), dσ/d□w(t)


def train(net, U, xs, xf, d, mask, learning_rate, xs0=None):
    """On-line (learning_rate > 0) or off-line (0) run; returns (U, y, E, summed gradient)."""
    na, nb, ns = net.n_f_in, net.n_f_out, net.n_s_in
    U = [list(map(float, row)) for row in U]
    nj = len(U)
    x0 = [0.0] * ns if xs0 is None else list(map(float, xs0))
    s0 = s_outputs(U, x0)
    W = {(a, b): box_w(net.interface, s0, a, b, na) for a in range(na) for b in range(nb)}
    p = {(a, b): {(j, i): dbox_du(net.interface, s0, x0, a, b, j, i, na)
                  for j in range(nj) for i in range(ns)} for a in range(na) for b in range(nb)}
    ys, Es, G = [], [], np.zeros((nj, ns))
    for t in range(len(xs)):
        x_f, x_s = list(xf[t]), list(xs[t])
        y = [sum(W[a, b] * x_f[a] for a in range(na)) for b in range(nb)]
        E = sum(0.5 * mask[t] * (d[t][b] - y[b]) ** 2 for b in range(nb))
        delta = {(a, b): mask[t] * (y[b] - d[t][b]) * x_f[a] for a in range(na) for b in range(nb)}
        g = [[sum(delta[a, b] * p[a, b][j, i] for a in range(na) for b in range(nb))
              for i in range(ns)] for j in range(nj)]
        s = s_outputs(U, x_s)
        for a in range(na):
            for b in range(nb):
                w, dw_old, dw_box = sigma(W[a, b], box_w(net.interface, s, a, b, na), net.T, net.squash)
                for j in range(nj):
                    for i in range(ns):
                        p[a, b][j, i] = dw_old * p[a, b][j, i] + \
                            dw_box * dbox_du(net.interface, s, x_s, a, b, j, i, na)
                W[a, b] = w
        for j in range(nj):
            for i in range(ns):
                G[j, i] += g[j][i]
                U[j][i] -= learning_rate * g[j][i]
        ys.append(y)
        Es.append(E)
    return np.array(U), np.array(ys), np.array(Es), G
