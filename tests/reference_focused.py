"""Slow, readable references for tempnets.models.focused: the equations as printed, in numpy.

``unrolled_bptt`` unfolds the network in time (Figure 2b): it keeps the whole activity
history and sends the error back step by step.  ``readable_traces`` is the trace
method of the appendix, one equation per line.  The compiled kernels must equal both.
"""

import numpy as np

from tempnets.models.focused import FocusedParams


def sigma(u):
    return 1.0 / (1.0 + np.exp(-u))


def _parts(p):
    if isinstance(p, FocusedParams):
        return p.W_in, p.b_c, np.diag(p.d), p.z, p.W_out, p.b_o, True
    return p.W_in, p.b_c, p.W_cc, np.zeros(len(p.b_c)), p.W_out, p.b_o, False


def sequences_of(seqs):
    for s in range(seqs.n_seq):
        a, b = seqs.offsets[s], seqs.offsets[s + 1]
        yield seqs.X[a:b], seqs.Y[a:b], seqs.M[a:b]


def loss(p, seqs, variant="eq1"):
    W_in, b_c, R, z, W_out, b_o, focused = _parts(p)
    eq3 = variant == "eq3" or not focused
    E = 0.0
    for X, Y, M in sequences_of(seqs):
        c = np.zeros(len(b_c))
        for x, y_hat, m in zip(X, Y, M):
            if eq3:
                c = sigma(R @ c + W_in @ x + b_c) + z          # eq. 3
            else:
                c = R @ c + sigma(W_in @ x + b_c) + z          # eq. 1 / A.1
            y = sigma(W_out @ c + b_o)
            E += 0.5 * m * np.sum((y - y_hat) ** 2)
    return E


def unrolled_bptt(p, seqs, variant="eq1"):
    """Gradient by back-propagation through the unfolded network; dict name -> array."""
    W_in, b_c, R, z, W_out, b_o, focused = _parts(p)
    eq3 = variant == "eq3" or not focused
    g = {k: np.zeros_like(v) for k, v in
         dict(W_in=W_in, b_c=b_c, R=R, z=z, W_out=W_out, b_o=b_o).items()}
    for X, Y, M in sequences_of(seqs):
        T = len(X)
        cs = [np.zeros(len(b_c))]          # the activity stack: c(0), c(1), ..., c(T)
        sps, ys = [], []
        for t in range(T):
            net = W_in @ X[t] + b_c + (R @ cs[-1] if eq3 else 0.0)
            s = sigma(net)
            sps.append(s * (1 - s))
            cs.append((s + z) if eq3 else (R @ cs[-1] + s + z))
            ys.append(sigma(W_out @ cs[-1] + b_o))
        delta = np.zeros(len(b_c))          # dE/dc(t), collected from the future
        for t in reversed(range(T)):
            dy = M[t] * (ys[t] - Y[t]) * ys[t] * (1 - ys[t])
            g["W_out"] += np.outer(dy, cs[t + 1])
            g["b_o"] += dy
            delta = delta + W_out.T @ dy
            dnet = delta * sps[t]
            g["W_in"] += np.outer(dnet, X[t])
            g["b_c"] += dnet
            g["z"] += delta
            if eq3:
                g["R"] += np.outer(dnet, cs[t])
                delta = R.T @ dnet
            else:
                g["R"] += np.outer(delta, cs[t])
                delta = R.T @ delta         # eq. 2: for diagonal R, delta_i(t-1) = d_i delta_i(t)
    return g


def readable_traces(p, seqs, variant="eq1"):
    """Gradient of a focused net by the alpha/beta/gamma traces; dict name -> array."""
    W_in, b_c, d, z, W_out, b_o = p
    n_ctx, n_in = W_in.shape
    g = dict(W_in=np.zeros_like(W_in), b_c=np.zeros(n_ctx), d=np.zeros(n_ctx), z=np.zeros(n_ctx),
             W_out=np.zeros_like(W_out), b_o=np.zeros_like(b_o))
    for X, Y, M in sequences_of(seqs):
        c = np.zeros(n_ctx)
        alpha, beta, beta_b, gamma = np.zeros(n_ctx), np.zeros((n_ctx, n_in)), np.zeros(n_ctx), np.zeros(n_ctx)
        for x, y_hat, m in zip(X, Y, M):
            if variant == "eq1":
                s = sigma(W_in @ x + b_c)
                sp = s * (1 - s)
                alpha = c + d * alpha                                  # A.6
                beta = np.outer(sp, x) + d[:, None] * beta             # A.8
                beta_b = sp + d * beta_b
                gamma = 1.0 + d * gamma
                c = d * c + s + z                                      # A.1
            else:
                s = sigma(d * c + W_in @ x + b_c)
                sp = s * (1 - s)
                alpha = sp * (c + d * alpha)
                beta = sp[:, None] * (x[None, :] + d[:, None] * beta)
                beta_b = sp * (1.0 + d * beta_b)
                gamma = 1.0 + sp * d * gamma
                c = s + z                                              # eq. 3
            y = sigma(W_out @ c + b_o)
            dy = m * (y - y_hat) * y * (1 - y)
            e = W_out.T @ dy                                           # dE_t/dc(t)
            g["W_out"] += np.outer(dy, c)
            g["b_o"] += dy
            g["d"] += e * alpha
            g["W_in"] += e[:, None] * beta
            g["b_c"] += e * beta_b
            g["z"] += e * gamma
    return g


def naive_train_step(p, seqs, mu=1.0, rho=0.02, omega=100.0, variant="eq1"):
    """One batch update of a focused net with Mozer's adaptive rates, in plain numpy."""
    g = readable_traces(p, seqs, variant)
    E = loss(p, seqs, variant)
    mse = 2 * E / (seqs.M.sum() * p.W_out.shape[0])

    def rate(W_k, grad_k):
        return mse ** mu * rho * (omega if grad_k == 0 else min(omega, W_k / grad_k))

    e_in = rate(np.mean(np.abs(p.W_in).sum(1) + np.abs(p.b_c)), np.mean(np.abs(g["W_in"]).sum(1) + np.abs(g["b_c"])))
    e_d = rate(np.mean(np.abs(p.d)), np.max(np.abs(g["d"])))
    e_z = rate(np.mean(np.abs(p.z)), np.max(np.abs(g["z"])))
    e_out = rate(np.mean(np.abs(p.W_out).sum(1) + np.abs(p.b_o)), np.mean(np.abs(g["W_out"]).sum(1) + np.abs(g["b_o"])))
    return FocusedParams(p.W_in - e_in * g["W_in"], p.b_c - e_in * g["b_c"], p.d - e_d * g["d"],
                         p.z - e_z * g["z"], p.W_out - e_out * g["W_out"], p.b_o - e_out * g["b_o"])
