"""float32 arithmetic of the compiled kernels: fused multiply-adds, the register-blocked
product, and the libm-free exp, logistic and tanh in float32.

A fused multiply-add is exactly rounded by definition, so each float32 result is pinned to
one value, computed here without LLVM (:func:`reference_fma.fma32`); the kernels compiled
for another instruction set must give it too (``test_portable.py``)."""

import numba
import numpy as np
import pytest

from reference_fma import fma32
from tempnets._numerics import portable_math as pm
from tempnets._numerics.portable import _mul_add, _products_acc


@numba.njit
def _mul_add_all(a, b, c, out):
    for i in range(a.size):
        out[i] = _mul_add(a[i], b[i], c[i])


def test_mul_add_rounds_once_in_float32_and_twice_in_float64():
    gen = np.random.default_rng(0)
    a, b, c = (gen.standard_normal(20000).astype(np.float32) for _ in range(3))
    out = np.empty_like(a)
    _mul_add_all(a, b, c, out)
    assert np.array_equal(out, fma32(a, b, c))
    # 1 + 2**-11 + 2**-24 (= a * a) is halfway between two float32; c tips it up.  Rounding
    # a * a + c to float64 first loses c and then ties to even, down: one rounding does not.
    a = np.full(1, 1 + 2.0 ** -12, np.float32)
    c = np.full(1, 2.0 ** -80, np.float32)
    _mul_add_all(a, a, c, out[:1])
    assert out[0] == np.float32(1 + 2.0 ** -11 + 2.0 ** -23) == fma32(a, a, c)[0]
    assert np.float32(a[0].astype(float) ** 2 + c[0]) == np.float32(1 + 2.0 ** -11)
    a, b, c = (gen.standard_normal(1000) for _ in range(3))
    out = np.empty_like(a)
    _mul_add_all(a, b, c, out)
    assert np.array_equal(out, a * b + c)


@numba.njit
def _products(out, A, B, k0, k1):
    _products_acc(out, A, B, k0, k1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("M,K,N", [(1, 1, 1), (3, 5, 7), (4, 3, 16), (9, 2, 65), (13, 70, 33),
                                   (6, 64, 130), (64, 134, 100), (5, 0, 3)])
def test_products_add_every_output_in_k_order(dtype, M, K, N):
    """Every shape's tails (rows beyond a whole register block, columns beyond a whole
    vector, ``k`` ranges) against the element-wise reference: ``out = fma(A[:, k], B[k], out)``
    for each ``k`` in float32, ``out += A[:, k] * B[k]`` in float64."""
    gen = np.random.default_rng(M * 1000 + N)
    A = gen.standard_normal((M, K)).astype(dtype)
    B = gen.standard_normal((K, N)).astype(dtype)
    out = gen.standard_normal((M, N)).astype(dtype)

    def reference(k0, k1):
        ref = out.copy()
        for k in range(k0, k1):
            ref = fma32(A[:, k:k + 1], B[k], ref) if dtype == np.float32 else ref + A[:, k:k + 1] * B[k]
        return ref

    k0 = min(K, 1)
    for a in (A, np.asfortranarray(A)):  # A by any strides
        got = out.copy()
        _products(got, a, B, k0, K)
        assert np.array_equal(got, reference(k0, K))
    got = out.copy()
    pm._matmul_acc(got, A, B)  # k in blocks
    assert np.array_equal(got, reference(0, K))


def _ulps(got, want):
    """Largest error of float32 ``got`` in units of the float32 spacing at ``want`` (float64)."""
    return np.max(np.abs(got - want) / np.spacing(np.abs(want).astype(np.float32)))


@numba.njit
def _apply(f, x, out):
    for i in range(x.size):
        out[i] = f(x[i])


def _arguments(low, high):
    gen = np.random.default_rng(2)
    return np.concatenate([gen.uniform(low, high, 100000), gen.uniform(-1, 1, 100000) * (high > 1),
                           gen.uniform(-1e-6, 1e-6, 1000), [0.0, -0.0]]).astype(np.float32)


def test_float32_exp_logistic_tanh_are_within_two_ulp():
    """Against numpy in float64; the logistic down to its subnormal results, exp down to 0."""
    z = -np.abs(_arguments(-110, 110))
    out = np.empty_like(z)
    _apply(pm._exp_nonpositive_f32, z, out)
    normal = z > -87
    assert _ulps(out[normal], np.exp(z[normal].astype(float))) <= 1
    assert np.max(np.abs(out[~normal] - np.exp(z[~normal].astype(float)))) <= 2.0 ** -149
    u = _arguments(-110, 110)
    _apply(pm._logistic_f32, u, out)
    assert _ulps(out, 1 / (1 + np.exp(-u.astype(float)))) <= 2
    _apply(pm._tanh_f32, u, out)
    assert _ulps(out, np.tanh(u.astype(float))) <= 2
    special = np.array([np.nan, np.inf, -np.inf, 200, -200], np.float32)
    out = np.empty_like(special)
    _apply(pm._logistic_f32, special, out)
    assert np.isnan(out[0]) and list(out[1:]) == [1, 0, 1, 0]
    _apply(pm._tanh_f32, special, out)
    assert np.isnan(out[0]) and list(out[1:]) == [1, -1, 1, -1]


def test_functions_of_dtype_choose_by_the_argument():
    """float64 keeps the float64 functions (the book's records); float32 gets its own."""
    for u in (-3.5, 0.25, 7.0):
        assert pm._logistic_of_dtype(u) == pm.logistic(u)
        assert pm._tanh_of_dtype(u) == pm.tanh(u)
        assert pm._logistic_of_dtype(np.float32(u)) == pm._logistic_f32(np.float32(u))
        assert pm._tanh_of_dtype(np.float32(u)) == pm._tanh_f32(np.float32(u))
    for dtype, f in ((np.float64, pm.logistic), (np.float32, pm._logistic_f32)):
        x = np.array([-3.5, 0.25, 7.0], dtype)
        out = np.empty_like(x)
        pm._logistic_into(out, x)  # compiled code chooses too
        assert list(out) == [f(v) for v in x]
    assert pm._negligible_to_zero(np.float32(2.0 ** -101)) == 0
    assert pm._negligible_to_zero(np.float32(-2.0 ** -100)) == np.float32(-2.0 ** -100)
    assert pm._negligible_to_zero(2.0 ** -1000) == 2.0 ** -1000
