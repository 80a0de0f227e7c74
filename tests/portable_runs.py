"""Short training runs of every compiled family, printed as one digest per family.

Run by ``tests/test_portable.py`` in two processes, one compiled for this CPU and
one with ``NUMBA_CPU_NAME=generic`` (another instruction set: no FMA, no AVX),
which must print the same digests: the same weights to the last bit.

With ``--serial-recall`` it trains the serial-recall models (TKRNN^{+2}, RNN, LSTM, in
float64 and float32) instead; the test runs it also under another OpenBLAS kernel, which
must change nothing (they use no BLAS).
"""

import hashlib
import json
import sys

import numpy as np

import reference_srn as ref
from tempnets.models import fast_weights as fw
from tempnets.models import focused as F
from tempnets.training import focused_training as FT
from tempnets.models import rtrl
from tempnets.models.srn import pa_attention, srn_forward
from tempnets.training.srn_trainers import TrainConfig, sample_strings, train_online


def digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


def srn_family():
    tables = ref.reber_tables()
    period, phase = pa_attention(8, 7, 7)
    configs = {
        "srn rule (fused kernel)": TrainConfig(n_hidden=6, learning_rate=0.1, momentum=0.5),
        "bptt(5,1) (fused kernel)": TrainConfig(n_hidden=6, learning_rate=0.1, momentum=0.5, h=5),
        "pa rule (fused kernel)": TrainConfig(n_hidden=15, learning_rate=0.1, momentum=0.5,
                                              period=tuple(period), phase=tuple(phase)),
        "bptt(3,2) (general kernel)": TrainConfig(n_hidden=6, learning_rate=0.1, momentum=0.5,
                                                  h=3, h_prime=2),
    }
    out = {}
    for name, cfg in configs.items():
        hist = train_online(tables, 300, config=cfg, n_networks=2, rng=1, progress=False)
        out[name] = digest(*hist.params)
        if name.startswith("srn"):
            flat, offsets = sample_strings(tables, 50, rng=3)
            out["srn forward"] = digest(srn_forward(hist.params, flat, offsets)[0])
    return out


def focused_family():
    gen = np.random.default_rng(0)
    xs = [gen.integers(0, 2, (T, 4)).astype(float) for T in (3, 6, 5, 8)]
    ys = [gen.integers(0, 2, (len(x), 2)).astype(float) for x in xs]
    seqs = F.make_sequences(xs, ys)
    out = {}
    for arch in ("focused", "full"):
        h = FT.train(seqs, F.init_many(arch, 4, 3, 2, 2, rng=4), n_epochs=200, progress=False)
        out[f"{arch} (traces / bptt)"] = digest(*h.params)
    return out


def fast_weight_family():
    gen = np.random.default_rng(2)
    n = 400
    xs = gen.integers(0, 2, (n, 3)).astype(float)
    xf = gen.integers(0, 2, (n, 2)).astype(float)
    d = gen.uniform(0, 1, (n, 1))
    out = {}
    for interface in ("per-weight", "from-to"):
        net = fw.FastWeightNet(3, 2, 1, interface=interface)
        U = fw.init_slow_weights(net, 0.5, rng=3)
        r = fw.train_online(net, U, xs, xf, d, learning_rate=0.5)
        out[f"fast weights {interface}"] = digest(r.U, r.E)
    net = rtrl.RecurrentNet(3, 4, 1)
    W = rtrl.init_weights(net, 0.5, rng=5)
    r = rtrl.train_online(net, W, xs, d, learning_rate=0.5)
    out["rtrl"] = digest(r.W, r.E)
    return out


def serial_recall_family(updates=200, paper_updates=2):
    """Short :func:`tempnets.training.optim.train` runs (Adam, clipping) of the TKRNN^{+2}, RNN and LSTM
    of the temporal-kernels chapter at book-scale sizes, in float64 and float32, and of the
    TKRNN and LSTM at the paper's sizes (longer rows and sums: every path of the product
    kernel's register blocks is taken): digests of the final weights and of every update's
    loss and gradient norm."""
    from tempnets.training import optim
    from tempnets.tasks import sequences
    from tempnets.chapters import temporal_kernels as tk

    out = {}
    for scale, names, n_updates, draw in (
            ("book", ("TKRNN+2", "RNN", "LSTM"), updates, sequences.make_batch),
            ("paper", ("TKRNN", "LSTM"), paper_updates, sequences.make_bucketed_batch)):
        sz = tk.SIZES[scale]
        task = sz.task
        for name in names:
            init_scale, rate = sz.setting(name)
            _, loss_and_grad = tk.model_functions(name)
            for dtype in ("float64", "float32"):
                params = tk.build(name, task, sz.hidden, np.random.default_rng(0), scale=init_scale)
                p, hist = optim.train(loss_and_grad, params,
                                      lambda g: draw(task, sz.batch, g)[:3], n_updates,
                                      config=optim.OptimConfig(learning_rate=rate), rng=1,
                                      progress=False, dtype=dtype)
                key = f"{name} {dtype}" if scale == "book" else f"{name} {dtype} (paper size)"
                out[key] = digest(*(p[k] for k in sorted(p)), hist.loss, hist.grad_norm)
    return out


if __name__ == "__main__":
    if "--serial-recall" in sys.argv:
        print(json.dumps(serial_recall_family(), sort_keys=True))
    else:
        print(json.dumps({**srn_family(), **focused_family(), **fast_weight_family()},
                         sort_keys=True))
