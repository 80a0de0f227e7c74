"""SRN parameters, attention patterns and the forward pass (tempnets.models.srn)."""

import numpy as np
import pytest

import reference_srn as ref
from tempnets._numerics.random import spawn
from tempnets.models.srn import (SRNParams, as_flat_strings, check_attention, init_params,
                          pa_attention, srn_forward)


def test_init_params_range_shapes_and_replication_independence():
    p = init_params(7, 15, 7, r=0.5, rng=3)
    assert [a.shape for a in p] == [(15, 7), (15, 15), (15,), (7, 15), (7,)]
    allw = np.concatenate([a.ravel() for a in p])
    assert allw.min() >= -0.5 and allw.max() <= 0.5 and allw.max() > 0.45
    stack = init_params(7, 15, 7, r=1.0, rng=9, n_networks=4)
    assert stack.stacked and stack.W_hh.shape == (4, 15, 15)
    alone = init_params(7, 15, 7, r=1.0, rng=spawn(9, 4)[2])
    for a, b in zip(stack.network(2), alone):
        np.testing.assert_array_equal(a, b)
    other = init_params(7, 15, 7, r=1.0, rng=9, n_networks=6)  # R does not change network k
    np.testing.assert_array_equal(other.W_ih[:4], stack.W_ih)
    assert not np.array_equal(stack.W_ih[0], stack.W_ih[1])


@pytest.mark.parametrize("bad,match", [(dict(r=0.0), "init range r must be a positive"),
                                       (dict(r=-1.0), "positive"),
                                       (dict(n_hidden=0), "n_hidden must be an integer >= 1, got 0")])
def test_init_params_rejects_bad_arguments(bad, match):
    kw = dict(n_in=7, n_hidden=15, n_out=7, r=1.0, rng=0) | bad
    with pytest.raises(ValueError, match=match):
        init_params(**kw)


def test_pa_attention_is_oconnell_figure_4_1():
    period, phase = pa_attention()
    assert list(period) == [1] * 8 + [7] * 7
    assert list(phase) == [0] * 8 + list(range(7))
    # exactly one PA unit attentive at each step
    for t in range(21):
        att = (t - phase[8:]) % period[8:] == 0
        assert att.sum() == 1 and att[t % 7]


@pytest.mark.parametrize("period,phase,exc,match", [
    ([1, 0, 2], [0, 0, 0], ValueError, "period must be >= 1 .* unit 1 has period 0"),
    ([1, 3, 2], [0, 3, 0], ValueError, r"0 <= phase < period; unit 1 has phase 3"),
    ([1, 3, 2], [0, -1, 0], ValueError, "unit 1 has phase -1"),
    ([1, 3], [0, 0], ValueError, r"shape \(3,\)"),
    ([1.0, 3.0, 2.0], [0, 0, 0], TypeError, "period must hold integers"),
    (None, [0, 0, 0], ValueError, "phase given without period"),
])
def test_check_attention_errors(period, phase, exc, match):
    with pytest.raises(exc, match=match):
        check_attention(period, phase, 3)


def test_forward_matches_reference_with_pa_and_stream():
    p = ref.random_params(5)
    strings = ref.random_strings(6, 7)
    period, phase = [1, 2, 1, 3, 4], [0, 1, 0, 2, 0]
    for reset, c0 in ((True, 0.0), (False, 0.0), (True, 0.5), (False, 0.5)):
        ys, hs = ref.forward(p, strings, period, phase, reset=reset, c0=c0)
        y, offs, h = srn_forward(SRNParams(*p), strings, period=period, phase=phase,
                                 reset_context=reset, context_init=c0, return_hidden=True)
        np.testing.assert_allclose(y, np.concatenate(ys), rtol=0, atol=1e-14)
        np.testing.assert_allclose(h, np.concatenate(hs), rtol=0, atol=1e-14)
        for i in range(len(strings)):
            assert offs[i + 1] - offs[i] == len(strings[i]) - 1
    # reset matters (the test can fail)
    y1, _ = srn_forward(SRNParams(*p), strings, reset_context=False)
    y2, _ = srn_forward(SRNParams(*p), strings, reset_context=True)
    assert np.max(np.abs(y1 - y2)) > 1e-3
    # and so does the initial context
    y3, _ = srn_forward(SRNParams(*p), strings, context_init=0.5)
    assert np.max(np.abs(y3 - y2)) > 1e-3


def test_forward_stack_equals_each_network():
    stack = init_params(4, 5, 4, rng=1, n_networks=3)
    strings = ref.random_strings(2, 4)
    flat, offsets = as_flat_strings(strings)
    y, _ = srn_forward(stack, flat, offsets)
    assert y.shape == (3, flat.size - len(strings), 4)
    for k in range(3):
        yk, _ = srn_forward(stack.network(k), strings)
        np.testing.assert_array_equal(y[k], yk)


def test_as_flat_strings_and_forward_errors():
    with pytest.raises(ValueError, match="needs offsets"):
        as_flat_strings(np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="must start at 0"):
        as_flat_strings(np.array([0, 1, 2]), np.array([1, 3]))
    with pytest.raises(TypeError, match="integer symbol indices"):
        as_flat_strings([np.array([0.5, 1.0])])
    p = init_params(4, 3, 4, rng=0)
    with pytest.raises(ValueError, match="string 1 has symbol index 7, not in 0..3"):
        srn_forward(p, [np.array([0, 1]), np.array([1, 7, 2])])
    with pytest.raises(TypeError, match="SRNParams"):
        srn_forward(tuple(p), [np.array([0, 1])])
    with pytest.raises(ValueError, match=r"context_init must be a number in \[0, 1\], got 1.5"):
        srn_forward(p, [np.array([0, 1])], context_init=1.5)


def test_the_compiled_logistic_is_the_logistic_to_a_few_ulp():
    """srn._logistic (plain arithmetic, so the compiled loops vectorise) against numpy; the
    forward pass and the fused training kernel both use it."""
    from tempnets.models import srn

    u = np.concatenate([np.linspace(-40, 40, 20001), [-800.0, -708.5, -1e-300, 0.0, 1e-300,
                                                     709.5, 800.0]])
    got = np.array([srn._logistic(v) for v in u])
    with np.errstate(over="ignore"):  # exp(800) = inf: numpy's logistic is exactly 0 there
        want = 1.0 / (1.0 + np.exp(-u))
    inside = np.abs(u) <= 700  # beyond, the kernel clamps: saturated to 1e-300 or exactly 1
    ulp = np.abs(got - want)[inside] / np.spacing(want[inside])
    assert ulp.max() <= 4, f"worst {ulp.max():.1f} ulp at u = {u[inside][np.argmax(ulp)]}"
    assert got[u <= -708].max() < 1e-300 and np.all(got[u >= 709] == 1.0)
    assert np.isnan(srn._logistic(np.nan))


@pytest.mark.parametrize("field, bad, message", [
    ("b_h", lambda p: p.b_h[:3], r"params.b_h has shape \(3,\); expected \(5,\)"),
    ("W_hh", lambda p: np.zeros((5, 4)), r"params.W_hh has shape \(5, 4\); expected \(5, 5\)"),
    ("b_o", lambda p: p.b_o[:6], r"params.b_o has shape \(6,\); expected \(7,\)"),
    ("W_ho", lambda p: p.W_ho[None], r"params.W_ho has shape \(1, 7, 5\); expected \(n_out, 5\)"),
])
def test_srn_forward_checks_every_parameter_shape(field, bad, message):
    """A short b_h was read out of bounds by the kernel (silently wrong output); a wrong
    W_hh gave an opaque SystemError."""
    p = init_params(7, 5, 7, rng=0)
    with pytest.raises(ValueError, match=message):
        srn_forward(p._replace(**{field: bad(p)}), [np.array([0, 1, 6])])
    with pytest.raises(TypeError, match="W_ih must be an array of real numbers"):
        srn_forward(p._replace(W_ih=p.W_ih.astype(str)), [np.array([0, 1, 6])])


def test_integer_weights_give_the_same_outputs_as_floats():
    p = init_params(7, 5, 7, rng=0)
    as_int = p._replace(W_ih=np.round(p.W_ih).astype(np.int64))
    y, _ = srn_forward(as_int, [np.array([0, 1, 6])])
    want, _ = srn_forward(as_int._replace(W_ih=as_int.W_ih.astype(float)), [np.array([0, 1, 6])])
    assert np.array_equal(y, want)


def test_sizes_that_cannot_fit_in_memory_are_refused_before_allocating():
    with pytest.raises(ValueError, match=r"n_networks=1000000000 networks of 7-15-7 units would "
                                         r"need [\d,.]+ GiB"):
        init_params(7, 15, 7, rng=0, n_networks=10**9)
    p = init_params(7, 15, 7, rng=0, n_networks=10**4)
    with pytest.raises(ValueError, match="srn_forward: outputs of 10000 network"):
        srn_forward(p, [np.array([0] + [1] * 10**6 + [6])])


def test_numpy_integer_seeds_and_sizes_are_accepted():
    a = init_params(7, 5, 7, rng=np.int64(3), n_networks=np.int64(2))
    b = init_params(7, 5, 7, rng=3, n_networks=2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_dot4_is_the_scalar_sum_in_its_fixed_order():
    """``portable.dot4`` (four sums as one vector) gives the bits of the plain scalar loop:
    element ``j`` to sum ``j % 4``, the tail to the first sums, ``(s0 + s1) + (s2 + s3)``."""
    import numba

    from tempnets._numerics import portable

    @numba.njit
    def dot(A, i, B, k, n):
        return portable.dot4(A, i, B, k, n)

    gen = np.random.default_rng(1)
    for n in range(14):
        A = gen.standard_normal((3, n + 2)) * np.exp(gen.uniform(-30, 30, (3, n + 2)))
        B = gen.standard_normal((2, n + 2))
        A[2, : n // 2] = -0.0
        for i, k in ((0, 1), (2, 0), (1, 1)):
            s = [0.0, 0.0, 0.0, 0.0]
            for j in range(n):
                s[j % 4] += A[i, j] * B[k, j]
            want = (s[0] + s[1]) + (s[2] + s[3])
            got = dot(A, i, B, k, n)
            assert np.float64(got).tobytes() == np.float64(want).tobytes(), (n, i, k)
