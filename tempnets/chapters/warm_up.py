"""Numba's cache filled before a reader arrives: ``python -m tempnets.chapters.warm_up``.

``postBuild`` runs it while the Binder image is built (issue 35).  It lives with the chapters
because it compiles what they call, the serial-recall models as the temporal-kernel chapter
builds them included; the book's machinery below does not import the chapters.
"""

from __future__ import annotations

import sys

__all__ = ["warm_numba_cache"]


def warm_numba_cache() -> list[str]:
    """Compile every kernel the chapters use, on tiny inputs, into numba's on-disk cache.

    A chapter's first run in a fresh environment (every Binder session) otherwise pays
    numba's compilation, tens of seconds.  ``postBuild`` calls this while the Binder image
    is built, so the image carries the compiled kernels (``__pycache__`` beside the sources,
    or ``NUMBA_CACHE_DIR``).  The inputs are tiny but of the types the chapters pass (numba
    compiles once per signature): each family's training and forward passes, the SRN rules
    alone and several side by side, masks, hidden states and attention, the serial-recall
    models in float64 and float32.  A cached kernel is reused only on a CPU like the one
    that compiled it (numba keys its cache on the CPU model too).

    Returns
    -------
    list of str
        What was compiled, one line per family.
    """
    import numpy as np

    done = []
    for family in (_warm_srn, _warm_focused, _warm_fast_weights, _warm_serial_recall):
        done.append(family(np.random.default_rng(0)))
    return done


def _warm_srn(gen) -> str:
    from ..tasks.grammars import reber
    from ..models.srn import pa_attention, srn_forward
    from ..training.srn_trainers import TrainConfig, bptt_gradient, sample_strings, train_epochs, train_online

    g = reber()
    tables = g.tables()
    period, phase = pa_attention(8, 7, 7)
    configs = [TrainConfig(), TrainConfig(h=5), TrainConfig(period=tuple(period), phase=tuple(phase), h=3),
               TrainConfig(period=tuple(period), phase=tuple(phase), context_init=0.5),
               TrainConfig(h=3, h_prime=2), TrainConfig(h=3, h_prime=1)]
    for config in configs:
        hist = train_online(tables, 3, config=config, n_networks=2, rng=gen, progress=False)
        params = hist[0].params if isinstance(hist, list) else hist.params
        train_online(tables, 3, config=config, n_networks=2, rng=gen, params=params, progress=False)
        attention = {"period": config.period, "phase": config.phase, "context_init": config.context_init}
        strings = [g.encode(s) for s in ("BTXSE", "BPVVE")]
        srn_forward(params, strings, **attention)
        srn_forward(params, strings, return_hidden=True, **attention)
        train_epochs(strings, n_epochs=2, config=config, n_networks=2, rng=gen, progress=False)
        bptt_gradient(params.network(0) if hasattr(params, "network") else params, strings, config=config)
    train_online(tables, 3, config=configs[:3], n_networks=2, rng=gen, progress=False)  # side by side
    flat, offsets = sample_strings(tables, 4, rng=gen)
    srn_forward(hist.params if not isinstance(hist, list) else hist[0].params, flat, offsets)
    return f"srn: {len(configs)} rules, forward passes, sampling"


def _warm_focused(gen) -> str:
    import numpy as np

    from ..models import focused as F
    from ..training import focused_training as FT

    xs = [gen.integers(0, 2, (T, 3)).astype(float) for T in (3, 5)]
    ys = [gen.integers(0, 2, (len(x), 2)).astype(float) for x in xs]
    seqs = F.make_sequences(xs, ys)
    for arch in ("focused", "full"):
        for config in (FT.FocusedConfig(), FT.FocusedConfig(score="quantised", feedback=2, stop_at_criterion=True)):
            params = F.init_many(arch, 3, 2, 2, 2, rng=gen)
            FT.train(seqs, params, n_epochs=2, config=config, progress=False)
            FT.evaluate(params, seqs, config)
        one = params.network(0)
        for variant in ("eq1", "eq3"):
            F.forward(one, seqs, variant=variant)
            F.bptt_gradient(one, seqs, variant=variant)
            if arch == "focused":
                F.trace_gradient(one, seqs, variant=variant)
        F.forward(one, seqs, feedback=2)
    np.seterr  # noqa: B018 (numpy imported for the arrays above)
    return "focused: both architectures, both variants, feedback"


def _warm_fast_weights(gen) -> str:
    import numpy as np

    from ..models import fast_weights as fw
    from ..models import rtrl

    n = 20
    xs, xf = gen.integers(0, 2, (n, 3)).astype(float), gen.integers(0, 2, (n, 2)).astype(float)
    d, mask = gen.uniform(0, 1, (n, 1)), np.ones(n, dtype=bool)
    for interface in ("per-weight", "from-to"):
        net = fw.FastWeightNet(3, 2, 1, interface=interface)
        U = fw.init_slow_weights(net, 0.5, rng=gen)
        fw.train_online(net, U, xs, xf, d, learning_rate=0.5)
        fw.train_online(net, U, xs, xf, d, mask, learning_rate=0.5)
    net = rtrl.RecurrentNet(3, 4, 1)
    W = rtrl.init_weights(net, 0.5, rng=gen)
    rtrl.train_online(net, W, xs, d, learning_rate=0.5)
    rtrl.train_online(net, W, xs, d, mask, learning_rate=0.0)
    return "fast weights: both interfaces; rtrl"


def _warm_serial_recall(gen) -> str:
    from ..training import optim
    from ..tasks import sequences
    from . import temporal_kernels as tk

    sz = tk.SIZES["book"]
    for name in tk.MODELS:
        _, loss_and_grad = tk.model_functions(name)
        for dtype in ("float64", "float32"):
            params = tk.build(name, sz.task, 4, gen)
            optim.train(loss_and_grad, params, lambda g: sequences.make_batch(sz.task, 2, g)[:3], 2,
                        rng=gen, progress=False, dtype=dtype)
    return f"serial recall: {', '.join(tk.MODELS)} in float64 and float32"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        print("usage: python -m tempnets.chapters.warm_up", file=sys.stderr)
        return 2
    for line in warm_numba_cache():
        print(f"compiled {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
