"""Speed of the TKRNN's forward + backward pass (tempnets.models.tkrnn).

Run as a script: ``python benchmarks/bench_tkrnn.py [--repeat K]``.

One training step's work (forward, loss, O(T) backward, all gradients) on a batch
of 64 serial-recall sequences of the 35-bit task (delay 50: 65 steps) with 100
hidden units, by the library (compiled kernels vectorised over the batch, no BLAS:
the same bits on every CPU, see :mod:`tempnets._numerics.portable_math`) and, in the same
run, by a naive numpy loop that processes one sequence at a time with vector
operations (the same algorithm, unbatched, with BLAS).  Prints the cost per
sequence-step of both and their ratio, then the TKRNN's cost against the RNN
and the TKRNN^{+2} of the same size (the paper: "as efficient as the standard
RNN"; TKRNN^{+n} "n times slower").  Times are the best of ``--repeat`` runs
(the machine may be shared).  Everything runs with one BLAS thread, as training does
(:func:`tempnets.training.optim.one_blas_thread`); run with ``NUMBA_NUM_THREADS=1`` too.

Then the same for the four models of the chapter at its book size (``SIZES["book"]``:
32 hidden units, batch 32, delay 10), where the chapter's three minutes go.

Then the cost of one whole training update (forward, backward, clipping, Adam: what
:func:`tempnets.training.optim.train` does) of the TKRNN, of the parameter-matched LSTM and of the
RNN of the same size at the paper's size, in float64 and float32 (products by fused
multiply-adds in float32, see :mod:`tempnets._numerics.portable_math`), on padded batches (delays
mixed in a batch, as ``sequences.make_batch`` draws them) and on bucketed ones (one delay
per batch, no padded steps: ``sequences.make_bucketed_batch``), with its arithmetic rate, GFLOP/s counted as
6 floating-point operations per weight per sequence-step (2 forward, 4 backward), and
"computed": the same count without the output layer's operations at unscored steps,
which the models skip (exactly: :func:`tempnets.models.tkrnn.tkrnn_loss_and_grad`); beside
them, in the same run, the rate of a large float32 matrix product on one thread: this
machine's practical peak, measured in a fresh process with the BLAS kernel the CPU would pick
on its own (variables such as ``OPENBLAS_CORETYPE`` removed; see ``machine.py``), and the
CPU's theoretical peak from its vector width and clock.
"""

from __future__ import annotations

import argparse
import resource

import numpy as np

from tempnets.training import optim

from tempnets.models import rnn_baselines, tkrnn

from tempnets.tasks import sequences
import machine
from timing import best_time


def naive_numpy(params, x, target, mask):
    """Forward and backward for one sequence at a time; returns the gradients summed over the batch."""
    W_h, b_h, W_z, b_z = (params[k] for k in ("W_h", "b_h", "W_z", "b_z"))
    la = tkrnn.lam(params).ravel()
    n = params["theta"].shape[0]
    T, B, _ = x.shape
    H = W_h.shape[0]
    g = {k: np.zeros_like(params[k]) for k in tkrnn.PARAM_NAMES}
    for b in range(B):
        K = [np.zeros(la.size)]
        ys, dz = [], []
        for t in range(T):
            y = 1 / (1 + np.exp(-(W_h @ K[-1] + b_h)))
            K.append(np.tile(np.concatenate([y, x[t, b]]), n) + la * K[-1])
            z = W_z @ K[-1] + b_z
            p = np.exp(z - z.max())
            p /= p.sum()
            p[target[t, b]] -= 1
            ys.append(y)
            dz.append(p * mask[t, b] / B)
        G, da_next = np.zeros(la.size), np.zeros(H)
        dlam = np.zeros(la.size)
        for t in range(T - 1, -1, -1):
            G = W_z.T @ dz[t] + W_h.T @ da_next + la * G
            da = G.reshape(n, -1)[:, :H].sum(0) * ys[t] * (1 - ys[t])
            g["W_h"] += np.outer(da, K[t])
            g["b_h"] += da
            g["W_z"] += np.outer(dz[t], K[t + 1])
            g["b_z"] += dz[t]
            dlam += G * K[t]
            da_next = da
        g["theta"] += (dlam * la * (1 - la)).reshape(n, -1)
    return g


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--updates", type=int, default=10, help="updates timed per setting")
    args = ap.parse_args()
    with optim.one_blas_thread():  # as every training loop and test runs
        measure(args.repeat)
        measure_book(args.repeat, args.updates)
        measure_updates(args.repeat, args.updates)


def measure_book(repeat, n_updates):
    """Forward + backward and a whole update of each model of the chapter at book size."""
    from tempnets.chapters import temporal_kernels as tk

    sz = tk.SIZES["book"]
    task = sz.task
    x, target, mask, _, _ = sequences.make_batch(task, sz.batch, rng=0, delay=task.delays[1])
    T, B, _ = x.shape
    for name in tk.MODELS:
        params = tk.build(name, task, sz.hidden, np.random.default_rng(0))
        _, loss_and_grad = tk.model_functions(name)
        t, _ = best_time(lambda: loss_and_grad(params, x, target, mask), repeat)
        run = lambda: optim.train(loss_and_grad, params, lambda g: (x, target, mask),  # noqa: E731
                                  n_updates, rng=0, progress=False)
        t_update, _ = best_time(run, repeat)
        print(f"book size {name}: forward + backward {1e6 * t / (T * B):.2f} us/sequence-step "
              f"({1e3 * t:.2f} ms per batch of {B} x {T} steps), update "
              f"{1e3 * t_update / n_updates:.2f} ms (float64)")


def paper_models():
    """The paper-size task and the TKRNN, parameter-matched LSTM and RNN (100 units, as
    the TKRNN) of ``tk-serial-recall``."""
    task = sequences.SerialRecall(32, 7, (10, 50))
    I, O = task.n_in, task.n_out
    tk = tkrnn.init_params(I, 100, O, rng=0)
    h = rnn_baselines.matched_hidden("lstm", I, O, tkrnn.n_params(I, 100, O))
    return task, {"TKRNN": (tk, tkrnn.tkrnn_loss_and_grad),
                  f"LSTM ({h} units)": (rnn_baselines.lstm_init(I, h, O, rng=0),
                                        rnn_baselines.lstm_loss_and_grad),
                  "RNN (100 units)": (rnn_baselines.rnn_init(I, 100, O, rng=0),
                                      rnn_baselines.rnn_loss_and_grad)}


def measure_updates(repeat, n_updates):
    task, models = paper_models()
    peak, kernel = machine.blas_peak(repeat)
    for line in machine.describe():
        print(line)
    print(f"float32 matrix product 2048^3, one thread, BLAS kernel {kernel} (chosen for this CPU, "
          f"in a fresh process without the forcing variables): {peak:.1f} GFLOP/s (the practical peak)")
    samplers = {"padded": lambda g: sequences.make_batch(task, 64, g)[:3],
                "bucketed": lambda g: sequences.make_bucketed_batch(task, 64, g)[:3]}
    for name, (params, loss_and_grad) in models.items():
        weights = sum(v.size for v in params.values())
        outputs = params["W_z"].size + params["b_z"].size
        for dtype in ("float64", "float32"):
            for how, sample in samplers.items():
                batches = [sample(np.random.default_rng(s)) for s in range(n_updates)]
                steps = sum(x.shape[0] for x, _, _ in batches)
                scored = sum(int(np.count_nonzero(mask)) for _, _, mask in batches)
                run = lambda: optim.train(loss_and_grad, params, sample, n_updates, rng=0,  # noqa: E731
                                          progress=False, dtype=dtype)
                faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                t, _ = best_time(run, repeat)
                faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / (
                    max(1, repeat) * n_updates)
                rate = 6 * weights * steps * 64 / t / 1e9
                done = 6 * ((weights - outputs) * steps * 64 + outputs * scored) / t / 1e9
                print(f"{name} update {dtype} {how}: {1e3 * t / n_updates:.1f} ms "
                      f"({rate:.1f} GFLOP/s, {100 * rate / peak:.0f}% of peak; computed: "
                      f"{done:.1f} GFLOP/s, {100 * done / peak:.0f}%; {faults:.0f} page faults)")


def measure(repeat):
    task = sequences.SerialRecall(32, 7, (50, 50))
    x, target, mask, _, _ = sequences.make_batch(task, 64, rng=0)
    T, B, _ = x.shape
    p = tkrnn.init_params(task.n_in, 100, task.n_out, rng=0)
    _, g = tkrnn.tkrnn_loss_and_grad(p, x, target, mask)
    g_naive = naive_numpy(p, x, target, mask)
    for k in g:  # the two must compute the same thing
        np.testing.assert_allclose(g[k], g_naive[k], rtol=1e-8, atol=1e-12)
    lib, _ = best_time(lambda: tkrnn.tkrnn_loss_and_grad(p, x, target, mask), repeat)
    naive, _ = best_time(lambda: naive_numpy(p, x, target, mask), repeat - 1)
    per = 1e6 / (T * B)
    print(f"TKRNN step {lib * per:.1f} us/sequence-step (batch 64, 100 units) "
          f"naive numpy {naive * per:.1f} us ratio {naive / lib:.1f}x")
    rnn = rnn_baselines.rnn_init(task.n_in, 100, task.n_out, rng=0)
    t_rnn, _ = best_time(lambda: rnn_baselines.rnn_loss_and_grad(rnn, x, target, mask), repeat)
    p2 = tkrnn.init_params(task.n_in, 100, task.n_out, 2, rng=0)
    t_2, _ = best_time(lambda: tkrnn.tkrnn_loss_and_grad(p2, x, target, mask), repeat)
    print(f"TKRNN / RNN (100 units) time {lib / t_rnn:.2f}x; TKRNN+2 / TKRNN time {t_2 / lib:.2f}x "
          f"(multiply-adds {tkrnn.multiply_adds(task.n_in, 100, task.n_out, 2) / tkrnn.multiply_adds(task.n_in, 100, task.n_out):.0f}x)")


if __name__ == "__main__":
    main()
