"""Speed of focused back-propagation (tempnets.models.focused) on Mozer's large-verb network.

Run as a script: ``python benchmarks/bench_focused.py [--epochs N] [--repeat K]``.

The network is the paper's largest: 8 inputs (a two-phoneme buffer), 25 focused
context units, 13 outputs (613 weights), trained by batch epochs over the 136
verbs with Mozer's adaptive learning rates.  In one run it times

* the compiled trainer (:func:`tempnets.models.focused.train`, one network, one thread),
* a naive numpy loop of the same rule (traces updated per step with numpy
  operations, the same adaptive update per epoch),

and prints the cost per network-step (one phoneme pair presented, traces and
gradient included) of both and their ratio.  Then the paper's cost argument on
the same network: the time of one batch gradient by the traces against BPTT
through each whole verb (both compiled), and the number of stored values each
needs.  Times are the best of ``--repeat`` runs (the machine may be shared).
"""

from __future__ import annotations

import argparse

import numba
import numpy as np

from tempnets.models import focused as F
from tempnets.training import focused_training as T
from tempnets.tasks import verbs as V
from timing import best_time


def naive_numpy(params, seqs, epochs, mu=0.5, rho=0.05, omega=100.0):
    """Mozer's rule in plain numpy, one step at a time (eq. 1, traces A.6, A.8, γ)."""
    W_in, b_c, d, z, W_out, b_o = (np.array(a) for a in params)
    sig = lambda u: 1 / (1 + np.exp(-u))
    for _ in range(epochs):
        g = [np.zeros_like(a) for a in (W_in, b_c, d, z, W_out, b_o)]
        sse, n = 0.0, 0
        for s in range(seqs.n_seq):
            c = np.zeros_like(d)
            alpha, beta, beta_b, gamma = np.zeros_like(d), np.zeros_like(W_in), np.zeros_like(d), np.zeros_like(d)
            for t in range(seqs.offsets[s], seqs.offsets[s + 1]):
                x = seqs.X[t]
                sg = sig(W_in @ x + b_c)
                sp = sg * (1 - sg)
                alpha = c + d * alpha
                beta = np.outer(sp, x) + d[:, None] * beta
                beta_b = sp + d * beta_b
                gamma = 1 + d * gamma
                c = d * c + sg + z
                if seqs.M[t]:
                    y = sig(W_out @ c + b_o)
                    err = y - seqs.Y[t]
                    sse += err @ err
                    n += y.size
                    dy = err * y * (1 - y)
                    e = W_out.T @ dy
                    g[0] += e[:, None] * beta
                    g[1] += e * beta_b
                    g[2] += e * alpha
                    g[3] += e * gamma
                    g[4] += np.outer(dy, c)
                    g[5] += dy
        mse = sse / n

        def rate(w, gr):
            return mse ** mu * rho * (omega if gr == 0 else min(omega, w / gr))
        e_in = rate(np.mean(np.abs(W_in).sum(1) + np.abs(b_c)), np.mean(np.abs(g[0]).sum(1) + np.abs(g[1])))
        e_d = rate(np.mean(np.abs(d)), np.abs(g[2]).max())
        e_z = rate(np.mean(np.abs(z)), np.abs(g[3]).max())
        e_out = rate(np.mean(np.abs(W_out).sum(1) + np.abs(b_o)), np.mean(np.abs(g[4]).sum(1) + np.abs(g[5])))
        W_in -= e_in * g[0]
        b_c -= e_in * g[1]
        d -= e_d * g[2]
        z -= e_z * g[3]
        W_out -= e_out * g[4]
        b_o -= e_out * g[5]
    return W_in, b_c, d, z, W_out, b_o




def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    numba.set_num_threads(1)
    seqs = V.verb_task(V.large_verb_corpus(), 13)
    steps = seqs.X.shape[0]
    init = F.init_many("focused", 8, 25, 13, 1, rng=0)
    cfg = T.FocusedConfig(mu=0.5, rho=0.05)
    T.train(seqs, init, n_epochs=2, config=cfg, progress=False)  # compile
    fast, _ = best_time(lambda: T.train(seqs, init, n_epochs=args.epochs, config=cfg, progress=False), args.repeat)
    # train() evaluates once more after the last update: epochs + 1 forward/gradient sweeps
    fast_us = fast / ((args.epochs + 1) * steps) * 1e6
    naive_epochs = 2
    slow, _ = best_time(lambda: naive_numpy(init.network(0), seqs, naive_epochs), args.repeat - 1)
    slow_us = slow / (naive_epochs * steps) * 1e6
    # the two must compute the same thing: compare one epoch's result
    a = T.train(seqs, init, n_epochs=1, config=cfg, progress=False).params.network(0)
    b = naive_numpy(init.network(0), seqs, 1)
    assert max(np.abs(x - y).max() for x, y in zip(a, b)) < 1e-10, "compiled and naive updates differ"
    print(f"FOCUSED rule {fast_us:.3f} us/network-step naive numpy {slow_us:.1f} us ratio {slow_us / fast_us:.0f}x "
          f"(8-25-13 focused, {steps} steps/epoch, 1 thread)")
    net = init.network(0)
    F.trace_gradient(net, seqs)
    F.bptt_gradient(net, seqs)
    reps = 50
    tr = best_time(lambda: [F.trace_gradient(net, seqs) for _ in range(reps)], args.repeat)[0] / reps
    bp = best_time(lambda: [F.bptt_gradient(net, seqs) for _ in range(reps)], args.repeat)[0] / reps
    longest = int(np.diff(seqs.offsets).max())
    n, m = 25, 8
    print(f"FOCUSED gradient of one epoch: traces {tr * 1e3:.3f} ms, BPTT {bp * 1e3:.3f} ms, ratio {tr / bp:.2f} "
          f"(paper: about 2/3 of the flops); stored values: traces {n * (m + 1) + 2 * n}, "
          f"BPTT history {3 * n * longest} (longest verb {longest} steps), RTRL {n * n * (n + m + 1)} for a "
          f"fully recurrent net of {n} units")


if __name__ == "__main__":
    main()
