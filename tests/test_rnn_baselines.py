import numpy as np
import pytest

from tempnets.models import gradcheck, rnn_baselines as rb, tkrnn

from reference_tkrnn import numpy_rnn_loss_and_grad


def batch(T=6, B=3, I=4, O=5, seed=0):
    rng = np.random.default_rng(seed)
    x = np.eye(I)[rng.integers(0, I, (T, B))]
    return x, rng.integers(0, O, (T, B)), (rng.random((T, B)) < 0.7).astype(float)


def flat(p):
    return np.concatenate([np.ravel(p[k]) for k in rb.PARAM_NAMES])


def unflat(v, like):
    out, i = {}, 0
    for k in rb.PARAM_NAMES:
        out[k] = v[i:i + like[k].size].reshape(like[k].shape)
        i += like[k].size
    return out


MODELS = {"rnn": (rb.rnn_init, rb.rnn_loss_and_grad), "lstm": (rb.lstm_init, rb.lstm_loss_and_grad)}


@pytest.mark.parametrize("kind", MODELS)
def test_kernels_equal_the_numpy_implementation_they_replaced(kind):
    """The compiled forward and BPTT (no BLAS, no libm) against the vectorised numpy code with
    BLAS products they replaced (``tests/reference_tkrnn.py``): loss and gradients within
    1e-10 relative in float64, on a longer batch with a mask."""
    init, lg = MODELS[kind]
    x, target, mask = batch(T=30, B=5)
    p = init(4, 7, 5, rng=3, scale=2.0)
    p["b_h"] = p["b_h"] + np.random.default_rng(4).standard_normal(p["b_h"].shape)
    loss, g = lg(p, x, target, mask)
    ref_loss, ref = numpy_rnn_loss_and_grad(p, x, target, mask, lstm=kind == "lstm")
    assert loss == pytest.approx(ref_loss, rel=1e-12)
    for k in rb.PARAM_NAMES:
        assert gradcheck.relative_error(g[k], ref[k]) < 1e-10, (kind, k)
    wrong = dict(p, W_z=p["W_z"] * (1 + 1e-9))  # the comparison can fail
    assert gradcheck.relative_error(lg(wrong, x, target, mask)[1]["b_z"], ref["b_z"]) > 1e-10


@pytest.mark.parametrize("kind", MODELS)
def test_gradient_equals_central_differences(kind):
    init, lg = MODELS[kind]
    x, target, mask = batch()
    p = init(4, 5, 5, rng=1, scale=2.0)
    p["b_h"] = p["b_h"] + np.random.default_rng(2).standard_normal(p["b_h"].shape)
    _, g = lg(p, x, target, mask)
    f = lambda v: lg(unflat(v, p), x, target, mask)[0]
    gradcheck.check_gradient(f, flat(g), flat(p), rtol=1e-6)
    wrong = dict(g, W_h=g["W_h"] * 1.01)
    with pytest.raises(gradcheck.GradientCheckError):
        gradcheck.check_gradient(f, flat(wrong), flat(p), rtol=1e-6)


def test_rnn_is_eqs_1_and_2():
    x, _, _ = batch()
    p = rb.rnn_init(4, 5, 5, rng=3, scale=2.0)
    logits, y = rb.rnn_forward(p, x, return_states=True)
    h = np.zeros((3, 5))
    for t in range(6):
        h = 1 / (1 + np.exp(-(h @ p["W_h"][:, :5].T + x[t] @ p["W_h"][:, 5:].T + p["b_h"])))
        np.testing.assert_allclose(y[t], h, atol=1e-13)
        np.testing.assert_allclose(logits[t], np.concatenate([h, x[t]], 1) @ p["W_z"].T + p["b_z"],
                                   atol=1e-12)


def test_lstm_step_by_hand():
    x, _, _ = batch(T=3)
    p = rb.lstm_init(4, 2, 5, rng=4)
    logits, h, c = rb.lstm_forward(p, x, return_states=True)
    sig = lambda u: 1 / (1 + np.exp(-u))
    hh, cc = np.zeros((3, 2)), np.zeros((3, 2))
    for t in range(3):
        a = np.concatenate([hh, x[t]], 1) @ p["W_h"].T + p["b_h"]
        i, f, o, u = sig(a[:, :2]), sig(a[:, 2:4]), sig(a[:, 4:6]), np.tanh(a[:, 6:])
        cc = f * cc + i * u
        hh = o * np.tanh(cc)
        np.testing.assert_allclose(h[t], hh, atol=1e-13)
        np.testing.assert_allclose(c[t], cc, atol=1e-13)


def test_tkrnn_with_lambda_zero_is_this_rnn_with_delayed_input():
    # The TKRNN (λ = 0) equals eq. 1 fed x_{t-1}; its outputs see x_t (eq. 2).
    x, _, _ = batch(T=7)
    p = tkrnn.init_params(4, 5, 5, rng=5, scale=3.0)
    _, y_tk, _ = tkrnn._forward(p["W_h"], p["b_h"], p["W_z"], p["b_z"], np.zeros(9), x, 1)
    x_late = np.concatenate([np.zeros((1, 3, 4)), x[:-1]])
    _, y_rnn = rb.rnn_forward({"W_h": p["W_h"], "b_h": p["b_h"], "W_z": p["W_z"], "b_z": p["b_z"]},
                              x_late, return_states=True)
    np.testing.assert_allclose(y_tk, y_rnn, atol=1e-13)


def test_matched_sizes():
    target = tkrnn.n_params(34, 100, 33)
    for kind in ("rnn", "lstm"):
        h = rb.matched_hidden(kind, 34, 33, target)
        n = rb.n_params(kind, 34, h, 33)
        assert abs(n - target) <= abs(rb.n_params(kind, 34, h + 1, 33) - target)
        assert abs(n - target) <= abs(rb.n_params(kind, 34, h - 1, 33) - target)
        assert sum(v.size for v in (rb.rnn_init if kind == "rnn" else rb.lstm_init)(34, h, 33, rng=0).values()) == n


def test_bad_input():
    p = rb.rnn_init(4, 5, 5, rng=0)
    x, t, m = batch()
    with pytest.raises(ValueError, match="input units"):
        rb.rnn_forward(p, x[:, :, :2])
    with pytest.raises(ValueError, match="4 x H"):
        rb.lstm_forward(dict(p, W_h=p["W_h"][:3]), x)
    with pytest.raises(ValueError, match="kind"):
        rb.n_params("gru", 1, 1, 1)
    with pytest.raises(ValueError, match=r"\[0, 5\)"):
        rb.lstm_loss_and_grad(rb.lstm_init(4, 5, 5, rng=0), x, t - 1, m)
