"""Speed of on-line fast-weight training (tempnets.models.fast_weights), Schmidhuber's flip-flop network.

Run as a script: ``python benchmarks/bench_fast_weights.py [--steps N] [--repeat K]``.

Trains the flip-flop system (S: 3 inputs, 3 outputs; F: 3 inputs, 1 output;
interface (4), T = 10, eta = 1.0) on-line with exact p-variables on one random
stream, with the compiled kernel and, in the same run, with a naive numpy loop
of the same step (read, error, p-variable gradient, write, learn), and prints
the cost per step of both and their ratio.  Times are the best of ``--repeat``
runs (the machine may be shared).  The naive loop is checked to end at the
same slow weights, so both sides compute the same thing.
"""

from __future__ import annotations

import argparse

import numpy as np

from tempnets.models import fast_weights as fw

from tempnets.tasks import streams
from timing import best_time


def naive_numpy(U, xs, xf, d, lr=1.0, T=10.0):
    """The same on-line step in straightforward numpy (interface (4), compact p-variables)."""
    U = U.copy()
    nb, na = d.shape[1], xf.shape[1]
    W = np.zeros((nb, na))
    P = np.zeros((nb, na, xs.shape[1]))  # P[b, a, i] = dw_ba / dU[b * na + a, i]
    for t in range(xs.shape[0]):
        e = W @ xf[t] - d[t]                                  # read with w(t-1)
        delta = np.outer(e, xf[t])                            # dE/dw_ba(t-1)
        g = (delta[:, :, None] * P).reshape(nb * na, -1)      # eq. (2) with p(t-1)
        box = (U @ xs[t]).reshape(nb, na)                     # eq. (4)
        W = 1.0 / (1.0 + np.exp(-T * (W + box - 0.5)))        # eq. (1), (7)
        P = (T * W * (1 - W))[:, :, None] * (P + xs[t])       # eq. (3)
        U -= lr * g
    return U




def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    net = fw.FastWeightNet(3, 3, 1)
    st = streams.random_flipflop(args.steps, rng=0)
    U0 = fw.init_slow_weights(net, rng=0)
    fw.train_online(net, U0, st.xs[:10], st.xf[:10], st.d[:10])  # compile outside the timing
    fast, r = best_time(lambda: fw.train_online(net, U0, st.xs, st.xf, st.d, learning_rate=1.0),
                        args.repeat)
    n_slow = min(args.steps, 20_000)
    slow, U_slow = best_time(lambda: naive_numpy(U0, st.xs[:n_slow], st.xf[:n_slow], st.d[:n_slow]),
                             max(1, args.repeat // 2))
    U_fast = fw.train_online(net, U0, st.xs[:n_slow], st.xf[:n_slow], st.d[:n_slow]).U
    assert np.allclose(U_fast, U_slow, rtol=1e-8, atol=1e-10), "naive loop and kernel disagree"
    fast_us, slow_us = fast / args.steps * 1e6, slow / n_slow * 1e6
    print(f"FASTWEIGHTS rule {fast_us:.3f} us/step naive numpy {slow_us:.1f} us "
          f"ratio {slow_us / fast_us:.0f}x  (flip-flop, interface (4), {args.steps:,} steps)")


if __name__ == "__main__":
    main()
