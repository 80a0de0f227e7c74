r"""Slow reference implementations, written to read like the papers' equations.

Not for use outside the tests.  Everything is plain Python/numpy loops.

* :func:`forward` -- the SRN forward pass (Elman; O'Connell ch. 3 for PA units).
* :func:`loss` -- the summed squared error of one string, forward pass only
  (what the exact-gradient tests differentiate numerically).
* :func:`train` -- online training with BPTT(h, h') and the PA delta rule in
  O'Connell's *unit-level* form (thesis ch. 7, eq. (1)-(2) and the PA version):
  the whole network is one set of ``N`` units (inputs, hidden, outputs) with
  one weight matrix ``W[i, j]`` (from unit ``j`` to unit ``i``), every unit at
  time ``tau`` reads the activations ``x(tau - 1)``, and the deltas of *every*
  unit are computed for ``t - h < tau <= t`` exactly as the equations say.

The forward pass runs step by step, with weights updated after each update
step (the SRN's online schedule).  The only bridge between the two views is
:meth:`_History.x`: the unit-level activation vector at time ``tau`` holds the
input of step ``tau``, the hidden state of step ``tau - 1`` and the output of
step ``tau - 2``.
"""

from __future__ import annotations

import numpy as np


def logistic(u):
    return 1.0 / (1.0 + np.exp(-u))


def attentive(pos, period, phase):
    """a_k at string position ``pos``: (pos - phase_k) mod period_k == 0."""
    return np.array([(pos - q) % p == 0 for p, q in zip(period, phase)], dtype=float)


def forward(params, strings, period=None, phase=None, reset=True, c0=0.0):
    """Outputs and hidden states of every step, per string (lists of arrays).

    ``c0``: the context after a reset (every hidden unit's activation before its first update).
    """
    W_ih, W_hh, b_h, W_ho, b_o = params
    nh = W_hh.shape[0]
    period = np.ones(nh, int) if period is None else period
    phase = np.zeros(nh, int) if phase is None else phase
    ys, hs = [], []
    h = np.full(nh, c0)
    pos = 0
    for string in strings:
        if reset:
            h = np.full(nh, c0)
            pos = 0
        y_s, h_s = [], []
        for x in string[:-1]:
            a = attentive(pos, period, phase)
            new = logistic(b_h + W_ih[:, x] + W_hh @ h)
            h = np.where(a == 1, new, h)
            y = logistic(b_o + W_ho @ h)
            y_s.append(y)
            h_s.append(h.copy())
            pos += 1
        ys.append(np.array(y_s))
        hs.append(np.array(h_s))
    return ys, hs


def loss(params, string, period=None, phase=None, c0=0.0):
    """E = sum over steps of 1/2 sum_o (target_o - y_o)^2 for one string (context reset to c0)."""
    ys, _ = forward(params, [string], period, phase, c0=c0)
    n_out = params[3].shape[0]
    total = 0.0
    for y, d in zip(ys[0], string[1:]):
        total += 0.5 * np.sum((np.eye(n_out)[d] - y) ** 2)
    return total


class _History:
    """Everything the forward pass produced, indexed by global step ``s``."""

    def __init__(self, n_in, nh, n_out):
        self.n_in, self.nh, self.n_out = n_in, nh, n_out
        self.inp, self.ctx, self.hid, self.out, self.tgt, self.att = [], [], [], [], [], []

    def x(self, tau, first):
        """Unit-level activation vector x(tau) = [inputs, hidden, outputs, bias=1].

        ``first`` is the first step of the current segment (after the last context
        reset); inputs exist for steps ``>= first``, ``H(tau) = h(tau - 1)``
        (the context ``ctx[first]`` before the segment), ``O(tau) = y(tau - 2)``.
        """
        v = np.zeros(self.n_in + self.nh + self.n_out + 1)
        if first <= tau < len(self.inp):
            v[self.inp[tau]] = 1.0
        if tau - 1 >= len(self.hid):
            pass  # H(t) of the update time t is not computed yet (its delta is 0)
        elif tau - 1 >= first:
            v[self.n_in:self.n_in + self.nh] = self.hid[tau - 1]
        else:
            v[self.n_in:self.n_in + self.nh] = self.ctx[first]
        if tau - 2 >= first:
            v[self.n_in + self.nh:-1] = self.out[tau - 2]
        v[-1] = 1.0
        return v

    def a(self, tau, first, t):
        """Attention a_l(tau) of every unit (inputs and outputs always 1)."""
        v = np.ones(self.n_in + self.nh + self.n_out)
        if first <= tau - 1 < len(self.att) and tau < t:
            v[self.n_in:self.n_in + self.nh] = self.att[tau - 1]
        return v


def _pack(params):
    """The network as one unit-level weight matrix W (N x N+1, last column = theta)."""
    W_ih, W_hh, b_h, W_ho, b_o = (np.array(p, dtype=float) for p in params)
    nh, n_in = W_ih.shape
    n_out = W_ho.shape[0]
    N = n_in + nh + n_out
    H = slice(n_in, n_in + nh)
    O = slice(n_in + nh, N)
    W = np.zeros((N, N + 1))
    W[H, :n_in] = W_ih
    W[H, H] = W_hh
    W[H, N] = b_h
    W[O, H] = W_ho
    W[O, N] = b_o
    mask = W != 0
    mask[H, :n_in] = mask[H, H] = mask[H, N] = mask[O, H] = mask[O, N] = True
    return W, mask, (n_in, nh, n_out)


def _unpack(W, sizes):
    n_in, nh, n_out = sizes
    N = n_in + nh + n_out
    H = slice(n_in, n_in + nh)
    O = slice(n_in + nh, N)
    return (W[H, :n_in].copy(), W[H, H].copy(), W[H, N].copy(), W[O, H].copy(), W[O, N].copy())


def train(params, strings, *, h=2, h_prime=1, lr=0.1, momentum=0.0, period=None, phase=None,
          reset=True, xent=False, epochs=1, c0=0.0):
    """Online BPTT(h, h') / PA training of one network on ``strings`` in order.

    Returns the final parameters ``(W_ih, W_hh, b_h, W_ho, b_o)`` and the summed
    squared error over all steps.
    """
    W, mask, sizes = _pack(params)
    n_in, nh, n_out = sizes
    N = n_in + nh + n_out
    is_hidden = np.zeros(N, bool)
    is_hidden[n_in:n_in + nh] = True
    is_output = np.zeros(N, bool)
    is_output[n_in + nh:] = True
    period = np.ones(nh, int) if period is None else np.asarray(period)
    phase = np.zeros(nh, int) if phase is None else np.asarray(phase)
    V = np.zeros_like(W)
    hist = _History(n_in, nh, n_out)
    first = 0
    pos = 0
    h_prev = np.full(nh, c0)
    sse = 0.0
    for string in [s for _ in range(epochs) for s in strings]:
        if reset:
            first = len(hist.inp)
            pos = 0
            h_prev = np.full(nh, c0)
        n_pend = 0
        for i in range(len(string) - 1):
            # ---- forward (layered step s), with the current weights
            W_ih, W_hh, b_h, W_ho, b_o = _unpack(W, sizes)
            x, d = string[i], string[i + 1]
            a = attentive(pos, period, phase)
            hid = np.where(a == 1, logistic(b_h + W_ih[:, x] + W_hh @ h_prev), h_prev)
            y = logistic(b_o + W_ho @ hid)
            hist.inp.append(x)
            hist.ctx.append(h_prev.copy())
            hist.hid.append(hid)
            hist.out.append(y)
            hist.tgt.append(d)
            hist.att.append(a)
            sse += np.sum((np.eye(n_out)[d] - y) ** 2)
            h_prev = hid
            pos += 1
            n_pend += 1
            if n_pend < h_prime and i < len(string) - 2:
                continue
            # ---- backward: unit-level time of the newest output is t = s + 2
            s = len(hist.inp) - 1
            t = s + 2
            lo = max(t - h + 1, first + 1)  # H(first) is the (fixed) context
            delta = {}
            for tau in range(t, lo - 1, -1):
                x_tau = hist.x(tau, first)[:N]
                d_tau = np.zeros(N)
                for k in range(N):
                    if not (is_hidden[k] or is_output[k]):
                        continue  # input units have no deltas
                    fp = x_tau[k] * (1.0 - x_tau[k])
                    # e_k(tau): output errors injected for the n_pend newest outputs only
                    e = 0.0
                    if is_output[k] and t - n_pend < tau and tau - 2 >= first:
                        o = k - n_in - nh
                        e = (1.0 if hist.tgt[tau - 2] == o else 0.0) - hist.out[tau - 2][o]
                    if tau == t:
                        d_tau[k] = (e if (xent and is_output[k]) else fp * e)
                        continue
                    a_next = hist.a(tau + 1, first, t)
                    back = sum(W[l, k] * delta[tau + 1][l] * a_next[l] for l in range(N))
                    gamma = 1.0 if a_next[k] == 0 else 0.0
                    if xent and is_output[k]:
                        d_tau[k] = e + fp * back
                    else:
                        d_tau[k] = gamma * delta[tau + 1][k] + fp * (e + back)
                delta[tau] = d_tau
            # ---- weight change: dw_ij = lr * sum_tau a_i(tau) delta_i(tau) x_j(tau - 1)
            dW = np.zeros_like(W)
            touched = is_output.copy()
            for tau in range(lo, t + 1):
                a_tau = hist.a(tau, first, t)
                x_prev = hist.x(tau - 1, first)
                for i_ in range(N):
                    if a_tau[i_] == 0:
                        continue
                    if is_hidden[i_] and tau < t:
                        touched[i_] = True
                    for j in range(N + 1):
                        if mask[i_, j]:
                            dW[i_, j] += lr * delta[tau][i_] * x_prev[j]
            V[touched] = momentum * V[touched] + dW[touched]
            W[touched] += V[touched]
            n_pend = 0
    return _unpack(W, sizes), sse


# ----------------------------------------------------------------------------- test data

REBER_ALPHABET = "BTSPXVE"


def reber_tables():
    """GrammarTables-like tuple for the Reber grammar (as rebuilt on the book's Reconstructions page).

    States 0-5 are the paper's nodes #0-#5; state 6 is the start state emitting
    B; node #5 emits E and ends the string.  Every choice has probability 0.5.
    """
    from collections import namedtuple

    Tables = namedtuple("Tables", "symbol target cumprob start")
    B, T, S, P, X, V, E = range(7)
    arcs = {6: [(B, 0)], 0: [(T, 1), (P, 2)], 1: [(S, 1), (X, 3)], 2: [(T, 2), (V, 4)],
            3: [(X, 2), (S, 5)], 4: [(P, 3), (V, 5)], 5: [(E, -1)]}
    symbol = -np.ones((7, 2), np.int64)
    target = -np.ones((7, 2), np.int64)
    cumprob = np.zeros((7, 2))
    for state, out in arcs.items():
        for k, (sym, to) in enumerate(out):
            symbol[state, k], target[state, k] = sym, to
            cumprob[state, k] = (k + 1) / len(out)
    return Tables(symbol, target, cumprob, 6)


def encode(text):
    return np.array([REBER_ALPHABET.index(c) for c in text], dtype=np.int64)


def is_reber(string):
    """True if the int-coded string is B, a Reber path from node #0 to #5, E."""
    t = reber_tables()
    state = t.start
    for sym in string:
        row = [k for k in range(2) if t.symbol[state, k] == sym]
        if state < 0 or not row:
            return False
        state = t.target[state, row[0]]
    return state == -1


def random_params(rng, n_in=4, nh=5, n_out=4, r=1.0):
    rng = np.random.default_rng(rng)
    return tuple(rng.uniform(-r, r, size=s) for s in
                 [(nh, n_in), (nh, nh), (nh,), (n_out, nh), (n_out,)])


def random_strings(rng, n, n_sym=4, lo=3, hi=9):
    rng = np.random.default_rng(rng)
    return [rng.integers(0, n_sym, size=int(rng.integers(lo, hi + 1))) for _ in range(n)]
