"""Training in float32 follows training in float64.

The serial-recall models (TKRNN, RNN, LSTM) compute in the precision of their
parameters, and :func:`tempnets.training.optim.train` trains in float32 on request (about twice
as fast). Gradient checks stay in float64; these tests bound how far 200 float32 updates
drift from the same 200 updates in float64, and show that float64 is unchanged by the
in-place arithmetic that makes training allocation-free.
"""

import numpy as np
import pytest

from tempnets.training import optim

from tempnets.models import rnn_baselines, tkrnn

from tempnets.tasks import sequences

TASK = sequences.SerialRecall(8, 3, (2, 6))
MODELS = {
    "tkrnn": (lambda: tkrnn.init_params(TASK.n_in, 16, TASK.n_out, rng=0), tkrnn.tkrnn_loss_and_grad),
    "tkrnn+2": (lambda: tkrnn.init_params(TASK.n_in, 16, TASK.n_out, 2, rng=0), tkrnn.tkrnn_loss_and_grad),
    "rnn": (lambda: rnn_baselines.rnn_init(TASK.n_in, 16, TASK.n_out, rng=0), rnn_baselines.rnn_loss_and_grad),
    "lstm": (lambda: rnn_baselines.lstm_init(TASK.n_in, 16, TASK.n_out, rng=0), rnn_baselines.lstm_loss_and_grad),
}
DRIFT = 2e-4
"""Largest relative difference of any weight array (max-norm) after 200 updates, float32 vs
float64 (measured here: 4.1e-5 for the LSTM, about 1e-6 for the others; float32 rounds to 6e-8)."""


def _train(name, dtype, n=200):
    init, loss_and_grad = MODELS[name]
    return optim.train(loss_and_grad, init(), lambda g: sequences.make_batch(TASK, 16, rng=g)[:3],
                       n, config=optim.OptimConfig(learning_rate=1e-2), rng=1, progress=False,
                       dtype=dtype)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_float32_training_follows_float64_for_200_updates(name):
    p64, h64 = _train(name, "float64")
    p32, h32 = _train(name, "float32")
    assert all(v.dtype == np.float32 for v in p32.values())
    assert all(v.dtype == np.float64 for v in p64.values())
    for k in p64:
        drift = np.max(np.abs(p32[k] - p64[k])) / np.max(np.abs(p64[k]))
        assert drift < DRIFT, f"{name} {k}: float32 drifted {drift:.2e} from float64"
    np.testing.assert_allclose(h32.loss, h64.loss, rtol=DRIFT)
    assert h64.loss[-1] < 0.9 * h64.loss[0]  # it learned something: the drift is over a real run


def test_a_float32_model_computes_in_float32_and_agrees_with_float64():
    x, target, mask, _, _ = sequences.make_batch(TASK, 8, rng=3)
    for name, (init, loss_and_grad) in MODELS.items():
        p = init()
        l64, g64 = loss_and_grad(p, x, target, mask)
        l32, g32 = loss_and_grad({k: v.astype(np.float32) for k, v in p.items()}, x, target, mask)
        assert l32 == pytest.approx(l64, rel=1e-5), name
        for k in g64:
            assert g32[k].dtype == np.float32, (name, k)
            np.testing.assert_allclose(g32[k], g64[k], rtol=1e-3, atol=1e-6 * np.abs(g64[k]).max())


def test_in_place_adam_is_the_formula():
    rng = np.random.default_rng(0)
    p = {"w": rng.standard_normal((3, 4)), "b": rng.standard_normal(4)}
    st = optim.adam_init(p)
    cfg = optim.OptimConfig(learning_rate=0.05)
    for s in range(1, 4):
        g = {k: rng.standard_normal(v.shape) for k, v in p.items()}
        new, st2 = optim.adam_step(p, g, st, cfg)
        for k in p:  # the formula of the module docstring, left to right
            m = cfg.beta1 * st["m"][k] + (1 - cfg.beta1) * g[k]
            v = cfg.beta2 * st["v"][k] + (1 - cfg.beta2) * g[k] ** 2
            w = p[k] - cfg.learning_rate * (m / (1 - cfg.beta1 ** s)) / (np.sqrt(v / (1 - cfg.beta2 ** s))
                                                                          + cfg.eps)
            assert np.array_equal(new[k], w) and np.array_equal(st2["m"][k], m)
            assert np.array_equal(st2["v"][k], v)
        p, st = new, st2


def test_train_refuses_an_unknown_precision():
    with pytest.raises(ValueError, match="dtype must be one of"):
        _train("rnn", "float16", n=1)


def test_bucketed_batches_have_no_padded_steps_and_every_delay():
    task = sequences.SerialRecall(5, 2, (3, 6))
    gen = np.random.default_rng(0)
    seen = []
    for _ in range(200):
        x, target, mask, strings, delays = sequences.make_bucketed_batch(task, 4, gen)
        assert len(set(delays.tolist())) == 1 and x.shape[0] == task.steps(int(delays[0]))
        seen.append(int(delays[0]))
    assert set(seen) == {3, 4, 5, 6}
    a, b = (sequences.make_bucketed_batch(task, 4, s)[3] for s in (1, 1))
    assert np.array_equal(a, b)  # same seed, same batch
