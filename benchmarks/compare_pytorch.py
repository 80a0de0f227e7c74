"""Our training update against PyTorch's, side by side (a note for readers who would reach for it).

Run as a script: ``python benchmarks/compare_pytorch.py [--repeat K] [--updates N]``.
PyTorch is not a dependency of tempnets: without it the script says so and exits 0 (it
is not one of ``make bench``'s ``bench_*`` scripts).

One whole training update — forward, loss, backward, clipping to norm 1, Adam — of the
TKRNN (100 hidden units) and of the parameter-matched LSTM of ``tk-serial-recall``, at
the paper's size (batch 64, 32 letters, 7 per string, delay 50: 65 steps, no padding), in
float64 and float32, one thread each: ours (:func:`tempnets.training.optim.train`) and PyTorch's
(``torch.nn.LSTM`` + a linear read-out of ``[h_t, x_t]``, the same model as
:func:`tempnets.models.rnn_baselines.lstm_loss_and_grad`; and the TKRNN written as a plain
autograd loop of eqs. 6-9, since PyTorch has no TKRNN).  Times are the best of
``--repeat`` runs of ``--updates`` updates each.  Each side of each comparison is timed in a
fresh process of its own: whatever one side leaves behind in the process (the allocator's
settings, a warm or fragmented heap, threads) cannot slow or speed the other.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

import numpy as np

from tempnets.training import optim

from tempnets.models import rnn_baselines, tkrnn

from tempnets.tasks import sequences


def _best(fn, repeat):
    import time
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def torch_models(torch, I, H_tk, H_lstm, O):
    """PyTorch versions of our LSTM and TKRNN: ``name -> (make(dtype) -> module)``."""
    nn = torch.nn

    class LSTM(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(I, H_lstm)
            self.out = nn.Linear(H_lstm + I, O)

        def forward(self, x):
            h, _ = self.lstm(x)
            return self.out(torch.cat([h, x], dim=2))

    class TKRNN(nn.Module):
        def __init__(self):
            super().__init__()
            N = H_tk + I
            self.W_h = nn.Parameter(torch.randn(H_tk, N) / N ** 0.5)
            self.b_h = nn.Parameter(torch.zeros(H_tk))
            self.out = nn.Linear(N, O)
            self.theta = nn.Parameter(torch.randn(N))

        def forward(self, x):
            T, B, _ = x.shape
            la = torch.sigmoid(self.theta)
            K = x.new_zeros(B, self.W_h.shape[1])
            states = []
            for t in range(T):
                y = torch.sigmoid(K @ self.W_h.T + self.b_h)
                K = torch.cat([y, x[t]], dim=1) + la * K
                states.append(K)
            return self.out(torch.stack(states))

    return {"LSTM": LSTM, "TKRNN": TKRNN}


def paper_size():
    """The task of ``tk-serial-recall`` at paper size, its input and output units and the
    LSTM's hidden units (parameter-matched to a 100-unit TKRNN)."""
    task = sequences.SerialRecall(32, 7, (50, 50))
    I, O = task.n_in, task.n_out
    return task, I, O, rnn_baselines.matched_hidden("lstm", I, O, tkrnn.n_params(I, 100, O))


def time_one(side, name, dtype, repeat, updates):
    """Milliseconds per update of ``name`` in ``dtype`` by ``side`` ("ours" or "pytorch")."""
    task, I, O, H_lstm = paper_size()
    x, target, mask, _, _ = sequences.make_batch(task, 64, rng=0)
    if side == "ours":
        params, loss_and_grad = {
            "TKRNN": (tkrnn.init_params(I, 100, O, rng=0), tkrnn.tkrnn_loss_and_grad),
            "LSTM": (rnn_baselines.lstm_init(I, H_lstm, O, rng=0), rnn_baselines.lstm_loss_and_grad),
        }[name]
        with optim.one_blas_thread():
            def run(n):
                return optim.train(loss_and_grad, params, lambda g: (x, target, mask), n, rng=0,
                                   progress=False, dtype=dtype)

            run(1)  # compile, or load the compiled kernels from numba's cache
            return 1e3 * _best(lambda: run(updates), repeat) / updates
    import torch

    torch.set_num_threads(1)
    tdtype = getattr(torch, dtype)
    model = torch_models(torch, I, 100, H_lstm, O)[name]().to(tdtype)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    tx, tt, tm = torch.tensor(x, dtype=tdtype), torch.tensor(target), torch.tensor(mask, dtype=tdtype)

    def update():
        for _ in range(updates):
            opt.zero_grad()
            logits = model(tx)
            nll = torch.nn.functional.cross_entropy(logits.reshape(-1, O), tt.reshape(-1),
                                                    reduction="none")
            loss = (nll * tm.reshape(-1)).sum() / 64
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()

    _best(update, 1)  # warm up, as ours is
    return 1e3 * _best(update, repeat) / updates


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--updates", type=int, default=10)
    ap.add_argument("--one", nargs=3, metavar=("SIDE", "MODEL", "DTYPE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:  # a child: time one side of one comparison and print its ms per update
        print(time_one(*args.one, args.repeat, args.updates))
        return 0
    try:
        import torch
    except ImportError:
        print("PyTorch is not installed: nothing to compare (pip install torch to run this).")
        return 0
    H_lstm = paper_size()[3]
    print(f"PyTorch {torch.__version__}, one thread; batch 64, 65 steps; LSTM {H_lstm} units, "
          f"TKRNN 100; ms per update (forward, backward, clip, Adam), each side timed in a fresh process")

    def fresh(side, name, dtype):
        out = subprocess.run([sys.executable, __file__, "--one", side, name, dtype, "--repeat",
                              str(args.repeat), "--updates", str(args.updates)],
                             capture_output=True, text=True, check=True)
        return float(out.stdout.split()[-1])

    for name in ("TKRNN", "LSTM"):
        for dtype in ("float64", "float32"):
            t_ours, t_torch = fresh("ours", name, dtype), fresh("pytorch", name, dtype)
            print(f"{name} {dtype}: ours {t_ours:.1f} ms, PyTorch {t_torch:.1f} ms "
                  f"(PyTorch / ours {t_torch / t_ours:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
