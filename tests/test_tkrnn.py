import numpy as np
import pytest

from tempnets.models import gradcheck, tkrnn
from tempnets._numerics import portable_math as pm
from tempnets.models.tkrnn import (init_params, kernel, lam, n_params, tkrnn_forward,
                            tkrnn_loss_and_grad)

from reference_tkrnn import (numpy_softmax_xent, numpy_tkrnn_loss_and_grad, unrolled_forward,
                             unrolled_grad, unrolled_loss)


def batch(T=7, B=3, I=4, O=5, seed=0):
    rng = np.random.default_rng(seed)
    x = np.eye(I)[rng.integers(0, I, (T, B))]
    x[2, 1] = rng.standard_normal(I)  # one dense input too
    target = rng.integers(0, O, (T, B))
    mask = (rng.random((T, B)) < 0.7).astype(float)
    return x, target, mask


def flat(p):
    return np.concatenate([np.ravel(p[k]) for k in tkrnn.PARAM_NAMES])


def unflat(v, like):
    out, i = {}, 0
    for k in tkrnn.PARAM_NAMES:
        a = np.asarray(like[k])
        out[k] = v[i:i + a.size].reshape(a.shape)
        i += a.size
    return out


@pytest.mark.parametrize("n", [1, 3])
def test_forward_equals_the_unrolled_all_lags_form(n):
    x, _, _ = batch()
    p = init_params(4, 6, 5, n_kernels=n, rng=1, scale=3.0)
    logits, y, K = tkrnn_forward(p, x, return_states=True)
    y_ref, logits_ref, _ = unrolled_forward(p, x)
    np.testing.assert_allclose(y, y_ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(logits, logits_ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n", [1, 3])
def test_backward_equals_the_unrolled_backward_and_central_differences(n):
    x, target, mask = batch()
    p = init_params(4, 6, 5, n_kernels=n, rng=2, scale=3.0)
    p["b_h"] = np.random.default_rng(3).standard_normal(6)
    loss, g = tkrnn_loss_and_grad(p, x, target, mask)
    assert loss == pytest.approx(unrolled_loss(p, x, target, mask), abs=1e-12)
    ref = unrolled_grad(p, x, target, mask)
    for k in tkrnn.PARAM_NAMES:
        assert g[k].shape == np.shape(p[k])
        assert gradcheck.relative_error(g[k], ref[k]) < 1e-10, k
    v0 = flat(p)
    f = lambda v: tkrnn_loss_and_grad(unflat(v, p), x, target, mask)[0]
    gradcheck.check_gradient(f, flat(g), v0, eps=1e-6, rtol=1e-6)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_kernels_equal_the_numpy_implementation_they_replaced(n):
    """The compiled forward and backward (no BLAS, no libm) against the vectorised numpy
    code with BLAS products that they replaced (``tests/reference_tkrnn.py``): the same
    loss and gradients within 1e-10 relative, in float64, on a longer batch with a mask."""
    x, target, mask = batch(T=25, B=6, I=4, O=5, seed=n)
    p = init_params(4, 9, 5, n_kernels=n, rng=n, scale=3.0)
    p["b_h"] = np.random.default_rng(n).standard_normal(9)
    loss, g = tkrnn_loss_and_grad(p, x, target, mask)
    ref_loss, ref = numpy_tkrnn_loss_and_grad(p, x, target, mask)
    assert loss == pytest.approx(ref_loss, rel=1e-12)
    for k in tkrnn.PARAM_NAMES:
        assert gradcheck.relative_error(g[k], ref[k]) < 1e-10, k
    logits, y, K = tkrnn_forward(p, x, return_states=True)
    assert gradcheck.relative_error(logits, unrolled_forward(p, x)[1]) < 1e-10
    wrong = dict(p, W_z=p["W_z"] * (1 + 1e-9))  # the comparison can fail
    assert gradcheck.relative_error(tkrnn_loss_and_grad(wrong, x, target, mask)[1]["b_z"],
                                    ref["b_z"]) > 1e-10


def test_the_loss_equals_numpy_softmax_cross_entropy():
    rng = np.random.default_rng(5)
    logits = rng.standard_normal((9, 4, 7)) * 30  # large logits: shifted by the maximum
    target, mask = rng.integers(0, 7, (9, 4)), rng.random((9, 4))
    loss, d = tkrnn.softmax_xent(logits, target, mask)
    ref_loss, ref_d = numpy_softmax_xent(logits, target, mask)
    assert loss == pytest.approx(ref_loss, rel=1e-14)
    np.testing.assert_allclose(d, ref_d, rtol=1e-13, atol=1e-17)
    loss32, d32 = tkrnn.softmax_xent(logits.astype(np.float32), target, mask)
    assert d32.dtype == np.float32 and loss32 == pytest.approx(ref_loss, rel=1e-6)


def test_the_check_fails_on_a_wrong_lambda_gradient():
    # The test above can fail: drop the recursion term λ ⊙ G_{t+1} from dL/dλ's G.
    x, target, mask = batch()
    p = init_params(4, 6, 5, n_kernels=2, rng=2, scale=3.0)
    _, g = tkrnn_loss_and_grad(p, x, target, mask)
    wrong = dict(g, theta=g["theta"] * 1.01)
    f = lambda v: tkrnn_loss_and_grad(unflat(v, p), x, target, mask)[0]
    with pytest.raises(gradcheck.GradientCheckError):
        gradcheck.check_gradient(f, flat(wrong), flat(p), rtol=1e-6)


def test_lambda_zero_is_an_rnn_with_its_input_one_step_late():
    # With λ = 0: y_t = f(W_yy y_{t-1} + W_xy x_{t-1} + b) (eq. 1, input delayed), z_t as eq. 2.
    x, _, _ = batch(T=6)
    p = init_params(4, 6, 5, rng=4, scale=3.0)
    b = tkrnn.blocks(p)
    _, y, logits = tkrnn._forward(p["W_h"], p["b_h"], p["W_z"], p["b_z"], np.zeros(10), x, 1)
    h = np.zeros((3, 6))
    x_prev = np.zeros((3, 4))
    for t in range(6):
        h = 1 / (1 + np.exp(-(h @ b["W_yy"][0].T + x_prev @ b["W_xy"][0].T + p["b_h"])))
        np.testing.assert_allclose(y[t], h, atol=1e-13)
        np.testing.assert_allclose(logits[t], h @ b["W_yz"][0].T + x[t] @ b["W_xz"][0].T + p["b_z"],
                                   atol=1e-13)
        x_prev = x[t]


def test_kernel_states_hold_a_pulse_as_lambda_powers():
    # eq. 8: one pulse at step 0 is held as S_k = λ^{k-1} at lag k (K[k] is S_k).
    p = init_params(1, 2, 2, rng=0)
    x = np.zeros((12, 1, 1))
    x[0, 0, 0] = 1.0
    _, _, K = tkrnn_forward(p, x, return_states=True)
    lx = lam(p)[0, 2]
    np.testing.assert_allclose(K[1:, 0, 2], lx ** np.arange(12), rtol=1e-13)
    np.testing.assert_allclose(kernel([1.0], [lx], np.arange(1, 12)), lx ** np.arange(11))


def test_tkrnn_plus_two_kernel_can_be_non_monotone():
    k = kernel([1.0, -1.0], [0.9, 0.6], np.arange(1, 30))
    assert k[0] == 0 and np.argmax(k) > 0 and k[-1] < k.max()


def test_parameter_count_and_blocks():
    p = init_params(34, 100, 33, n_kernels=2, rng=0)
    assert sum(np.size(v) for v in p.values()) == n_params(34, 100, 33, 2)
    b = tkrnn.blocks(p)
    assert b["W_yy"].shape == (2, 100, 100) and b["W_xz"].shape == (2, 33, 34)
    assert np.all((lam(p) > 0.5) & (lam(p) < 0.95))


def test_same_seed_same_network():
    a, b = init_params(3, 4, 2, rng=7), init_params(3, 4, 2, rng=7)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    c = init_params(3, 4, 2, rng=8)  # and the seed is used: another seed, other weights and decays
    assert not any(np.array_equal(a[k], c[k]) for k in ("W_h", "W_z", "theta"))


def test_bad_input_is_named():
    p = init_params(4, 6, 5, rng=0)
    x, target, mask = batch()
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        kernel([1.0], [1.0], [1])
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        init_params(4, 6, 5, lam_range=(0.0, 0.5))
    with pytest.raises(ValueError, match="lags"):
        kernel([1.0], [0.5], [0])
    with pytest.raises(ValueError, match="input units"):
        tkrnn_forward(p, x[:, :, :3])
    with pytest.raises(ValueError, match=r"\[0, 5\)"):
        tkrnn_loss_and_grad(p, x, target + 5, mask)
    with pytest.raises(ValueError, match="mask"):
        tkrnn_loss_and_grad(p, x, target, mask[:, :2])
    with pytest.raises(ValueError, match=r"params\['b_h'\] must have shape \(H=6,\) \(H from params\['W_h'\]\)"):
        tkrnn_forward(dict(p, b_h=np.zeros(7)), x)
    with pytest.raises(TypeError, match="keys"):
        tkrnn_forward({"W_h": p["W_h"]}, x)
    with pytest.raises(ValueError, match="n_kernels"):
        init_params(4, 6, 5, n_kernels=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_output_layer_at_scored_rows_only_gives_the_same_bits(dtype):
    """Leaving out the rows with mask 0 (:func:`tkrnn._output_loss_and_grad`) changes no bit of
    the loss or of any gradient, signs of zeros included, against computing every row."""
    rng = np.random.default_rng(5)
    T, B, N, O = 9, 6, 11, 7
    S = rng.standard_normal((T * B, N)).astype(dtype)
    W_z, b_z = rng.standard_normal((O, N)).astype(dtype), rng.standard_normal(O).astype(dtype)
    target = rng.integers(0, O, (T, B))
    mask = (rng.random((T, B)) < 0.4) * rng.uniform(0.5, 2, (T, B))
    mask[:3] = 0  # whole unscored steps too
    rows = tkrnn._scored_rows(mask)
    got = tkrnn._output_loss_and_grad(S[rows], rows, T * B, W_z, b_z, W_z, target, mask, B)
    loss, d = tkrnn.softmax_xent(pm.matmul(S, W_z.T, bias=b_z).reshape(T, B, O), target, mask)
    d = d.reshape(T * B, O)
    want = (loss, pm.matmul(d, W_z), pm.outer(d, S), pm.colsum(d))
    assert got[0] == want[0]
    for g, w in zip(got[1:], want[1:]):
        assert g.dtype == dtype and g.tobytes() == w.tobytes()
