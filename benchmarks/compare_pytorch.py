"""Our training update against PyTorch's, side by side (a note for readers who would reach for it).

Run as a script: ``python benchmarks/compare_pytorch.py [--repeat K] [--updates N]``.
PyTorch is not a dependency of tempnets: without it the script says so and exits 0 (it
is not one of ``make bench``'s ``bench_*`` scripts).

One whole training update — forward, loss, backward, clipping to norm 1, Adam — of the
TKRNN (100 hidden units) and of the parameter-matched LSTM of ``tk-serial-recall``, at
the paper's size (batch 64, 32 letters, 7 per string, delay 50: 65 steps, no padding), in
float64 and float32, one thread each: ours (:func:`tempnets.optim.train`) and PyTorch's
(``torch.nn.LSTM`` + a linear read-out of ``[h_t, x_t]``, the same model as
:func:`tempnets.rnn_baselines.lstm_loss_and_grad`; and the TKRNN written as a plain
autograd loop of eqs. 6-9, since PyTorch has no TKRNN).  Times are the best of
``--repeat`` runs of ``--updates`` updates each, all in one process.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from tempnets import optim, rnn_baselines, sequences, tkrnn


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--updates", type=int, default=10)
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("PyTorch is not installed: nothing to compare (pip install torch to run this).")
        return 0
    torch.set_num_threads(1)
    task = sequences.SerialRecall(32, 7, (50, 50))
    I, O = task.n_in, task.n_out
    H_lstm = rnn_baselines.matched_hidden("lstm", I, O, tkrnn.n_params(I, 100, O))
    x, target, mask, _, _ = sequences.make_batch(task, 64, rng=0)
    ours = {"TKRNN": (tkrnn.init_params(I, 100, O, rng=0), tkrnn.tkrnn_loss_and_grad),
            "LSTM": (rnn_baselines.lstm_init(I, H_lstm, O, rng=0), rnn_baselines.lstm_loss_and_grad)}
    theirs = torch_models(torch, I, 100, H_lstm, O)
    print(f"PyTorch {torch.__version__}, one thread; batch 64, 65 steps; LSTM {H_lstm} units, "
          f"TKRNN 100; ms per update (forward, backward, clip, Adam)")
    for name in ("TKRNN", "LSTM"):
        for dtype, tdtype in (("float64", torch.float64), ("float32", torch.float32)):
            params, loss_and_grad = ours[name]
            with optim.one_blas_thread():
                t_ours = _best(lambda: optim.train(loss_and_grad, params, lambda g: (x, target, mask),
                                                   args.updates, rng=0, progress=False, dtype=dtype),
                               args.repeat) / args.updates
            model = theirs[name]().to(tdtype)
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
            tx = torch.tensor(x, dtype=tdtype)
            tt = torch.tensor(target)
            tm = torch.tensor(mask, dtype=tdtype)

            def update():
                for _ in range(args.updates):
                    opt.zero_grad()
                    logits = model(tx)
                    nll = torch.nn.functional.cross_entropy(logits.reshape(-1, O), tt.reshape(-1),
                                                            reduction="none")
                    loss = (nll * tm.reshape(-1)).sum() / 64
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    opt.step()

            t_torch = _best(update, args.repeat) / args.updates
            print(f"{name} {dtype}: ours {1e3 * t_ours:.1f} ms, PyTorch {1e3 * t_torch:.1f} ms "
                  f"(PyTorch / ours {t_torch / t_ours:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
