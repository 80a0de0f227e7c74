"""Short training runs of every compiled family, printed as one digest per family.

Run by ``tests/test_portable.py`` in two processes, one compiled for this CPU and
one with ``NUMBA_CPU_NAME=generic`` (another instruction set: no FMA, no AVX),
which must print the same digests: the same weights to the last bit.

With ``--blas`` it trains the BLAS-based models (RNN, LSTM, TKRNN) instead and
prints their final weights; the test runs it under two OpenBLAS kernels.
"""

import hashlib
import json
import sys

import numpy as np

import reference_srn as ref
from tempnets import fast_weights as fw
from tempnets import focused as F
from tempnets import focused_training as FT
from tempnets import rtrl
from tempnets.srn import pa_attention, srn_forward
from tempnets.training import TrainConfig, sample_strings, train_online


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


def blas_family(updates=200):
    """Final weights of short Adam runs of the RNN, LSTM and TKRNN (book-scale sizes)."""
    from tempnets.chapters import temporal_kernels as tk

    sz = tk.SIZES["book"]
    sz = type(sz)(**{**vars(sz), "updates": updates, "eval_every": updates})
    out = {}
    for name in ("RNN", "LSTM", "TKRNN"):
        params, _ = tk.train_one(name, sz, seed=0, k=0, progress=False)
        out[name] = np.concatenate([np.ravel(params[k]) for k in sorted(params)]).tolist()
    return out


if __name__ == "__main__":
    if "--blas" in sys.argv:
        print(json.dumps(blas_family()))
    else:
        print(json.dumps({**srn_family(), **focused_family(), **fast_weight_family()},
                         sort_keys=True))
