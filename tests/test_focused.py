"""tempnets.models.focused: the trace gradient is BPTT is the gradient; training is Mozer's rule."""

import numpy as np
import pytest

from reference_focused import loss, naive_train_step, readable_traces, unrolled_bptt
from tempnets.models import focused as F
from tempnets.training import focused_training as T
from tempnets.models.gradcheck import check_gradient
from tempnets.training.srn_trainers import DivergenceError

FOCUSED_PARTS = ("W_in", "b_c", "d", "z", "W_out", "b_o")
FULL_PARTS = ("W_in", "b_c", "W_cc", "W_out", "b_o")


def problem(every_step=False, rng=0):
    gen = np.random.default_rng(rng)
    xs = [gen.integers(0, 2, (T, 4)).astype(float) for T in (3, 6, 5)]
    if every_step:
        ys = [gen.integers(0, 2, (len(x), 2)).astype(float) for x in xs]
    else:
        ys = [np.eye(2)[k] for k in (0, 1, 1)]
    return F.make_sequences(xs, ys)


def focused_net(rng=1):
    p = F.init_focused(4, 3, 2, rng)
    gen = np.random.default_rng(rng + 100)
    # move d and z away from their initial values so every term of the traces matters
    return p._replace(d=gen.uniform(0.6, 1.05, 3), z=gen.uniform(-0.5, 0.1, 3),
                      W_in=p.W_in * 2, W_out=p.W_out * 2)


@pytest.mark.parametrize("variant", F.VARIANTS)
@pytest.mark.parametrize("every_step", [False, True])
def test_trace_gradient_equals_bptt_and_reference(variant, every_step):
    seqs, p = problem(every_step), focused_net()
    E_tr, g_tr = F.trace_gradient(p, seqs, variant=variant)
    E_bp, g_bp = F.bptt_gradient(p, seqs, variant=variant)
    ref_tr = readable_traces(p, seqs, variant)
    ref_bp = unrolled_bptt(p, seqs, variant)
    assert E_tr == pytest.approx(loss(p, seqs, variant), abs=1e-12)
    assert E_bp == pytest.approx(E_tr, abs=1e-12)
    for name in FOCUSED_PARTS:
        a, b = getattr(g_tr, name), getattr(g_bp, name)
        ref_b = np.diag(ref_bp["R"]) if name == "d" else ref_bp[name]
        assert np.abs(a).max() > 1e-6, f"{name}: gradient is zero, the test would not see an error"
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-10, err_msg=f"trace vs BPTT kernel: {name}")
        np.testing.assert_allclose(a, ref_tr[name], rtol=0, atol=1e-10, err_msg=f"trace vs readable: {name}")
        np.testing.assert_allclose(a, ref_b, rtol=0, atol=1e-10, err_msg=f"trace vs unrolled BPTT: {name}")


@pytest.mark.parametrize("variant", F.VARIANTS)
@pytest.mark.parametrize("name", FOCUSED_PARTS)
def test_trace_gradient_matches_central_differences(variant, name):
    seqs, p = problem(every_step=True), focused_net()
    _, g = F.trace_gradient(p, seqs, variant=variant)

    def f(v):
        return F.trace_gradient(p._replace(**{name: v}), seqs, variant=variant)[0]
    check_gradient(f, getattr(g, name), getattr(p, name), rtol=1e-6)


@pytest.mark.parametrize("name", FULL_PARTS)
def test_full_network_bptt_matches_central_differences_and_reference(name):
    seqs = problem(every_step=True)
    p = F.init_full(4, 3, 2, 5)
    p = p._replace(W_cc=p.W_cc * 3, W_in=p.W_in * 2)
    E, g = F.bptt_gradient(p, seqs)
    assert E == pytest.approx(loss(p, seqs), abs=1e-12)
    ref = unrolled_bptt(p, seqs)
    np.testing.assert_allclose(getattr(g, name), ref["R" if name == "W_cc" else name], atol=1e-10, rtol=0)

    def f(v):
        return F.bptt_gradient(p._replace(**{name: v}), seqs)[0]
    check_gradient(f, getattr(g, name), getattr(p, name), rtol=1e-6)




def test_forward_matches_the_gradient_pass_and_feedback_changes_inputs():
    seqs, p = problem(every_step=True), focused_net()
    y, c = F.forward(p, seqs)
    assert y.shape == (seqs.X.shape[0], 2) and c.shape == (seqs.X.shape[0], 3)
    E = 0.5 * np.sum(seqs.M[:, None] * (y - seqs.Y) ** 2)
    assert E == pytest.approx(F.trace_gradient(p, seqs)[0], abs=1e-12)
    y_fb, _ = F.forward(p, seqs, feedback=1)
    assert not np.allclose(y, y_fb)


def test_connection_counts_match_the_paper():
    # regular verbs: 8-2-3, six connections within the context layer each (31 in all)
    foc, full = F.init_focused(8, 2, 3, 0), F.init_full(8, 2, 3, 0)
    assert F.connection_count(foc) == F.connection_count(full) == 31
    assert foc.d.size + foc.z.size + foc.b_c.size == 6 == full.W_cc.size + full.b_c.size
    # large verbs: 25 focused vs 16 full context units, 613 vs 621 weights
    assert F.connection_count(F.init_focused(8, 25, 13, 0)) == 613
    assert F.connection_count(F.init_full(8, 16, 13, 0)) == 621
    # sequence reproduction: six context-layer parameters instead of nine
    foc, full = F.init_focused(6, 3, 3, 0), F.init_full(6, 3, 3, 0)
    assert foc.d.size + foc.z.size == 6 and full.W_cc.size == 9


def test_initialisation_follows_the_paper():
    p = F.init_focused(8, 25, 13, 3)
    fan_in = np.abs(p.W_in).sum(1) + np.abs(p.b_c)
    np.testing.assert_allclose(fan_in, 2.0)
    np.testing.assert_allclose(np.abs(p.W_out).sum(1) + np.abs(p.b_o), 2.0)
    assert np.all(p.z == -0.5) and np.all((p.d >= 0.99) & (p.d <= 1.01))
    q = F.init_full(8, 16, 13, 3)
    np.testing.assert_allclose(np.abs(q.W_in).sum(1) + np.abs(q.W_cc).sum(1) + np.abs(q.b_c), 2.0)
    a, b = F.init_many("focused", 8, 4, 3, 3, rng=7), F.init_many("focused", 8, 4, 3, 5, rng=7)
    np.testing.assert_array_equal(a.W_in, b.W_in[:3])


def test_bad_input_is_named():
    p = focused_net()
    with pytest.raises(ValueError, match="no sequences"):
        F.make_sequences([], [])
    with pytest.raises(ValueError, match="non-empty"):
        F.make_sequences([np.zeros((0, 4))], [np.zeros(2)])
    with pytest.raises(ValueError, match="input features"):
        F.make_sequences([np.zeros((2, 4)), np.zeros((2, 5))], [np.zeros(2), np.zeros(2)])
    seqs = problem()
    with pytest.raises(ValueError, match=r"seqs.X must have shape \(N, n_in=5\) \(n_in from params.W_in\)"):
        F.forward(F.init_focused(5, 3, 2, 0), seqs)
    with pytest.raises(ValueError, match="variant"):
        F.forward(p, seqs, variant="eq2")
    with pytest.raises(TypeError, match="FocusedParams"):
        F.trace_gradient(F.init_full(4, 3, 2, 0), seqs)
    with pytest.raises(ValueError, match="overflow"):
        long = F.make_sequences([np.ones((800, 4))], [np.zeros(2)])
        F.forward(p._replace(d=np.full(3, 3.0)), long)
    with pytest.raises(ValueError, match="feedback"):
        F.forward(p, seqs, feedback=5)
    with pytest.raises(ValueError, match="mu"):
        T.FocusedConfig(mu=-1).validate()


def xor_task():
    # which of two symbols came first, in sequences of varying length: needs memory
    xs, ys = [], []
    for first in (0, 1):
        for T in (2, 3, 4):
            x = np.zeros((T, 3))
            x[0, first] = 1
            x[1:, 2] = 1
            xs.append(x)
            ys.append(np.eye(2)[first])
    return F.make_sequences(xs, ys)


def test_training_is_deterministic_learns_and_matches_a_numpy_step():
    seqs = xor_task()
    init = F.init_many("focused", 3, 2, 2, 3, rng=4)
    h1 = T.train(seqs, init, n_epochs=300, progress=False)
    h2 = T.train(seqs, init, n_epochs=300, progress=False)
    np.testing.assert_array_equal(h1.performance, h2.performance)
    np.testing.assert_array_equal(h1.params.W_in, h2.params.W_in)
    assert h1.performance.shape == (3, 301) and (h1.epochs_to_criterion >= 0).all()
    assert np.nanmean(h1.mse[:, -1]) < np.nanmean(h1.mse[:, 0])
    # one compiled update equals the plain-numpy update of Mozer's rule
    one = T.train(seqs, init, n_epochs=1, progress=False).params.network(0)
    ref = naive_train_step(init.network(0), seqs)
    for a, b in zip(one, ref):
        np.testing.assert_allclose(a, b, atol=1e-12)
    full = T.train(seqs, F.init_many("full", 3, 2, 2, 2, rng=4), n_epochs=50, progress=False)
    assert np.isfinite(full.mse).all()


def test_stop_at_criterion_and_quantised_score():
    seqs = xor_task()
    cfg = T.FocusedConfig(stop_at_criterion=True)
    h = T.train(seqs, F.init_many("focused", 3, 2, 2, 2, rng=4), n_epochs=2000, config=cfg, progress=False)
    for r, e in enumerate(h.epochs_to_criterion):
        assert e >= 0 and h.performance[r, e] == 100.0 and h.performance[r, -1] == 100.0
    assert T.evaluate(h.params, seqs).tolist() == [100.0, 100.0]


def test_divergence_stops_training():
    seqs = xor_task()
    with pytest.raises(DivergenceError, match="network 0 diverged"):
        T.train(seqs, F.init_many("focused", 3, 2, 2, 1, rng=0), n_epochs=50,
                config=T.FocusedConfig(rho=1e300, omega=1e300, mu=0.0), progress=False)


def test_zero_output_score_is_what_a_silent_network_scores():
    from tempnets.tasks import verbs as V
    quantised = T.FocusedConfig(score="quantised", feedback=3)
    for delay, zero_share in ((1, 4 / 7), (4, 7 / 10)):
        seqs = V.reproduction_task(delay)
        assert T.zero_output_score(seqs, quantised) == pytest.approx(100 * zero_share)
        # a network whose outputs are pinned near 0 scores exactly the baseline
        net = F.init_focused(6, 3, 3, rng=0)
        silent = net._replace(W_out=np.zeros_like(net.W_out), b_o=np.full_like(net.b_o, -30.0))
        assert float(T.evaluate(silent, seqs, quantised)) == pytest.approx(T.zero_output_score(seqs, quantised))
    # by argmax (one target per sequence) zeros name the first class: DEAR right, the rest wrong
    assert T.zero_output_score(V.dear_task()) == 25.0
