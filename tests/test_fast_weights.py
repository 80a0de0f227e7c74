"""Schmidhuber's dynamic links: the p-variable gradient is exact (off-line), the compiled
on-line training equals the slow reference step for step, bad input is refused."""

import numpy as np
import pytest

import reference_fast_weights as ref
from tempnets.models import fast_weights as fw
from tempnets.models.gradcheck import check_gradient, relative_error
from tempnets.training.srn_trainers import DivergenceError

CASES = [("per-weight", "logistic"), ("from-to", "logistic"),
         ("per-weight", "none"), ("from-to", "none")]


def problem(interface="per-weight", squash="logistic", n=12, seed=0, sizes=(4, 3, 2), scale=1.0):
    """A random net and stream with a partial mask; U large enough that σ is not flat."""
    rng = np.random.default_rng(seed)
    n_s_in, n_f_in, n_f_out = sizes
    net = fw.FastWeightNet(n_s_in, n_f_in, n_f_out, interface=interface, T=3.0 if squash == "logistic" else 10.0,
                           squash=squash)
    U = rng.uniform(-scale, scale, net.shape_U)
    if squash == "none":
        U *= 0.3  # additive writes grow; keep the numbers moderate
    xs = rng.integers(0, 2, (n, n_s_in)).astype(float)
    xf = rng.normal(size=(n, n_f_in))
    d = rng.uniform(0, 1, (n, n_f_out))
    mask = (rng.uniform(size=n) < 0.7).astype(float)
    return net, U, xs, xf, d, mask


@pytest.mark.parametrize("interface,squash", CASES)
@pytest.mark.parametrize("xs0", [None, "random"])
def test_p_variable_gradient_equals_unfolding_and_central_differences(interface, squash, xs0):
    net, U, xs, xf, d, mask = problem(interface, squash)
    x0 = None if xs0 is None else np.random.default_rng(5).uniform(-1, 1, net.n_s_in)
    loss, g = fw.gradient(net, U, xs, xf, d, mask, xs0=x0)
    loss_u, g_u = fw.gradient_unfolded(net, U, xs, xf, d, mask, xs0=x0)
    assert np.linalg.norm(g) > 1e-3, "a vanishing gradient would make the comparison empty"
    assert abs(loss - loss_u) <= 1e-12 * max(1.0, loss)
    assert relative_error(g, g_u) <= 1e-10, f"p-variables vs unfolding: {relative_error(g, g_u):.3g}"
    f = lambda u: fw.gradient(net, u, xs, xf, d, mask, xs0=x0)[0]  # noqa: E731
    check_gradient(f, g, U, eps=1e-6, rtol=1e-6)


@pytest.mark.parametrize("interface,squash", CASES)
def test_kernel_equals_the_dense_reference_offline_and_online(interface, squash):
    net, U, xs, xf, d, mask = problem(interface, squash, n=15, seed=3)
    U_ref, y_ref, E_ref, G_ref = ref.train(net, U, xs, xf, d, mask, 0.0)
    loss, g = fw.gradient(net, U, xs, xf, d, mask)
    np.testing.assert_allclose(g, G_ref, rtol=1e-11, atol=1e-13)
    assert abs(loss - E_ref.sum()) < 1e-12
    lr = 0.3
    U_ref, y_ref, E_ref, _ = ref.train(net, U, xs, xf, d, mask, lr)
    # step for step: train one step at a time, carrying the state
    state, u = None, U
    for t in range(len(xs)):
        r = fw.train_online(net, u, xs[t:t + 1], xf[t:t + 1], d[t:t + 1], mask[t:t + 1],
                            learning_rate=lr, state=state)
        np.testing.assert_allclose(r.y[0], y_ref[t], rtol=1e-11, atol=1e-13, err_msg=f"step {t + 1}")
        state, u = r.state, r.U
    np.testing.assert_allclose(u, U_ref, rtol=1e-11, atol=1e-13)
    whole = fw.train_online(net, U, xs, xf, d, mask, learning_rate=lr)
    np.testing.assert_allclose(whole.U, U_ref, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(whole.E, E_ref, rtol=1e-11, atol=1e-13)
    assert not np.allclose(whole.U, U), "on-line training did not move U"


def test_online_differs_from_offline_but_zero_rate_is_offline():
    net, U, xs, xf, d, mask = problem()
    r0 = fw.train_online(net, U, xs, xf, d, mask, learning_rate=0.0)
    assert np.array_equal(r0.U, U)
    np.testing.assert_allclose(r0.E.sum(), fw.gradient(net, U, xs, xf, d, mask)[0], rtol=1e-13)


def test_run_reads_before_writing_and_latches():
    # one F weight w_B; S: A writes +2 (set), B writes -2 (reset), C writes 0 (hold)
    net = fw.FastWeightNet(3, 1, 1)
    U = np.array([[2.0, -2.0, 0.0]])
    xs = np.eye(3)[[0, 2, 2, 1, 2]]  # A C C B C
    out = fw.run(net, U, xs, np.ones((5, 1)))
    w = out["W"][:, 0, 0]
    assert w[0] == 0.0
    assert w[1] > 0.99 and w[2] > 0.99 and w[3] > 0.99  # set, then held by C
    assert w[4] < 0.01 and w[5] < 0.01                  # reset by B, held
    np.testing.assert_allclose(out["y"][:, 0], w[:-1])  # step t reads w(t-1)


def test_solved_at_counts_scored_steps_in_a_row():
    e = np.array([0.1, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0])
    assert fw.solved_at(e, threshold=0.05, run=3) == 7
    assert fw.solved_at(e, threshold=0.05, run=4) == -1
    mask = np.array([1, 1, 1, 0, 1, 1, 1])
    assert fw.solved_at(e, mask, threshold=0.05, run=4) == 6  # the unscored 0.2 does not break it


def test_stop_after_matches_solved_at():
    net, U, xs, xf, d, mask = problem(n=200)
    full = fw.train_online(net, U, xs, xf, d, mask, learning_rate=0.5)
    t = fw.solved_at(full.E, mask, threshold=0.2, run=5)
    assert t > 0
    early = fw.train_online(net, U, xs, xf, d, mask, learning_rate=0.5, stop_after=5, threshold=0.2)
    assert early.solved_at == t == early.steps
    np.testing.assert_array_equal(early.E, full.E[:t])


def test_additive_fast_weights_are_unnormalised_linear_attention():
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(20, 4)), rng.normal(size=(20, 4)), rng.normal(size=(20, 3))
    for before in (False, True):
        a = fw.linear_attention(q, k, v, include_current=not before)
        m = fw.additive_memory(q, k, v, read_before_write=before)
        assert np.max(np.abs(a - m)) <= 1e-12 * max(1.0, np.max(np.abs(a)))
    # and the 1991 system with (5) and no squash is that memory: keys = FROM, values = TO, query = x_F
    net = fw.FastWeightNet(5, 4, 3, interface="from-to", squash="none")
    U = rng.normal(size=net.shape_U)
    xs, xf = rng.normal(size=(20, 5)), rng.normal(size=(20, 4))
    s = xs @ U.T
    y = fw.run(net, U, xs, xf)["y"]
    att = fw.linear_attention(xf, s[:, :4], s[:, 4:], include_current=False)
    assert np.max(np.abs(y - att)) <= 1e-12 * max(1.0, np.max(np.abs(att)))


def test_divergence_stops_with_a_clear_error():
    net = fw.FastWeightNet(3, 3, 1, squash="none")
    rng = np.random.default_rng(0)
    xs = np.eye(3)[rng.integers(0, 3, 3000)]
    d = np.ones((3000, 1))
    with pytest.raises(DivergenceError, match="diverged at step"):
        fw.train_online(net, np.full(net.shape_U, 1.0), xs, xs, d, learning_rate=50.0)


def test_same_seed_same_weights():
    net = fw.FastWeightNet(3, 3, 1)
    assert np.array_equal(fw.init_slow_weights(net, rng=4), fw.init_slow_weights(net, rng=4))
    assert not np.array_equal(fw.init_slow_weights(net, rng=4), fw.init_slow_weights(net, rng=5))
    U = fw.init_slow_weights(net, rng=4)
    assert U.shape == (3, 3) and np.all(np.abs(U) <= 0.1) and np.abs(U).max() > 0.05
    np.testing.assert_allclose(fw.init_slow_weights(net, 0.5, rng=4), 5 * U, rtol=1e-12)
    assert fw.FastWeightNet(3, 3, 1, interface="from-to").n_s_out == 4


@pytest.mark.parametrize("kwargs,match", [
    ({"interface": "outer"}, "unknown interface 'outer'"),
    ({"T": 0.0}, "T must be a positive"),
    ({"T": -1.0}, "T must be a positive"),
    ({"squash": "tanh"}, "unknown squash 'tanh'"),
    ({"n_f_in": 0}, "n_f_in must be an integer >= 1, got 0"),
])
def test_bad_nets_are_refused(kwargs, match):
    args = {"n_s_in": 3, "n_f_in": 3, "n_f_out": 1, **kwargs}
    with pytest.raises(ValueError, match=match):
        fw.FastWeightNet(**args)


def test_bad_streams_and_rates_are_refused():
    net = fw.FastWeightNet(3, 3, 1)
    U = np.zeros((3, 3))
    x = np.eye(3)
    d = np.zeros((3, 1))
    with pytest.raises(ValueError, match="learning_rate must be a finite number >= 0, got -0.1"):
        fw.train_online(net, U, x, x, d, learning_rate=-0.1)
    with pytest.raises(ValueError, match=r"slow weights U must have shape \(3, 3\)"):
        fw.train_online(net, np.zeros((4, 3)), x, x, d)
    with pytest.raises(ValueError, match=r"xs \(S's inputs\) must have shape \(n_steps, 3\)"):
        fw.gradient(net, U, np.eye(2), x, d)
    with pytest.raises(ValueError, match="same number of steps"):
        fw.gradient(net, U, x, x[:2], d)
    with pytest.raises(ValueError, match=r"targets d must have shape \(3, 1\)"):
        fw.gradient(net, U, x, x, np.zeros((3, 2)))
    with pytest.raises(ValueError, match="mask must be 3 values of 0/1"):
        fw.gradient(net, U, x, x, d, mask=np.array([0.5, 1, 1]))
    with pytest.raises(TypeError, match="state must be a FastState"):
        fw.train_online(net, U, x, x, d, state=(0, 0))
    with pytest.raises(TypeError, match="FastWeightNet"):
        fw.gradient("net", U, x, x, d)
