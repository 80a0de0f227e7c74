"""RTRL on a fully recurrent network: exact (== BPTT == central differences) off-line,
on-line training equals a plain numpy loop of the same equations."""

import numpy as np
import pytest

from tempnets.models import rtrl
from tempnets.models.gradcheck import check_gradient, relative_error
from tempnets.training.srn_trainers import DivergenceError


def problem(seed=0, n=15):
    rng = np.random.default_rng(seed)
    net = rtrl.RecurrentNet(3, 4, 2)
    W = rng.uniform(-1.5, 1.5, net.shape_W)
    x = rng.integers(0, 2, (n, 3)).astype(float)
    d = rng.uniform(0, 1, (n, 2))
    mask = (rng.uniform(size=n) < 0.7).astype(float)
    return net, W, x, d, mask


def reference_online(net, W, x, d, mask, lr):
    """Williams & Zipser's equations, one numpy line each."""
    W = W.copy()
    m, n = net.n_in, net.n_units
    y = np.zeros(n)
    P = np.zeros((n,) + W.shape)
    Es = []
    for t in range(len(x)):
        z = np.concatenate([x[t], y, [1.0]])
        y = 1 / (1 + np.exp(-(W @ z)))
        P = (y * (1 - y))[:, None, None] * (np.einsum("kl,lij->kij", W[:, m:m + n], P)
                                             + np.einsum("ki,j->kij", np.eye(n), z))
        e = mask[t] * (y[:net.n_out] - d[t])
        Es.append(0.5 * e @ e)
        W -= lr * np.einsum("k,kij->ij", e, P[:net.n_out])
    return W, np.array(Es)


def test_rtrl_gradient_equals_bptt_and_central_differences():
    net, W, x, d, mask = problem()
    loss, g = rtrl.gradient(net, W, x, d, mask)
    loss_b, g_b = rtrl.gradient_bptt(net, W, x, d, mask)
    assert np.linalg.norm(g) > 1e-3
    assert abs(loss - loss_b) < 1e-12
    assert relative_error(g, g_b) <= 1e-10
    check_gradient(lambda w: rtrl.gradient(net, w, x, d, mask)[0], g, W, rtol=1e-6)


def test_online_equals_reference_and_carries_over():
    net, W, x, d, mask = problem(seed=2, n=30)
    W_ref, E_ref = reference_online(net, W, x, d, mask, 0.7)
    r = rtrl.train_online(net, W, x, d, mask, learning_rate=0.7)
    np.testing.assert_allclose(r.W, W_ref, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(r.E, E_ref, rtol=1e-11, atol=1e-13)
    a = rtrl.train_online(net, W, x[:12], d[:12], mask[:12], learning_rate=0.7)
    b = rtrl.train_online(net, a.W, x[12:], d[12:], mask[12:], learning_rate=0.7, carry=(a.y, a.P))
    np.testing.assert_allclose(b.W, r.W, rtol=1e-12, atol=1e-14)


def test_bad_input_and_divergence():
    net, W, x, d, mask = problem()
    with pytest.raises(ValueError, match="learning_rate must be a finite number >= 0"):
        rtrl.train_online(net, W, x, d, mask, learning_rate=-1.0)
    with pytest.raises(ValueError, match=r"W must have shape \(4, 8\), got shape \(4, 5\)"):
        rtrl.gradient(net, W[:, :5], x, d)
    with pytest.raises(ValueError, match=r"targets d must have shape \(15, 2\)"):
        rtrl.gradient(net, W, x, d[:, :1])
    with pytest.raises(ValueError, match="n_out"):
        rtrl.RecurrentNet(3, 2, 3)
    with pytest.raises(DivergenceError, match="diverged"):
        rtrl.train_online(net, W, x, d * 1e300, mask, learning_rate=1.0)
