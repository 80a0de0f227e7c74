"""Matrix products and elementary functions that give the same bits on every CPU, for the
serial-recall models (:mod:`tempnets.models.tkrnn`, :mod:`tempnets.models.rnn_baselines`) and the
gradient clipping of :mod:`tempnets.training.optim`.

The rules are :mod:`tempnets._numerics.portable`'s (strict IEEE arithmetic, sums in an order written
in the code, no libm); this module adds what those models need beyond the logistic:

* **Products without BLAS.**  A BLAS picks its kernel, and with it the order of every
  sum and whether it fuses multiply and add, from the CPU (OpenBLAS's Haswell and
  Prescott kernels give different last bits).  :func:`_matmul_acc` writes the order down:
  each output element accumulates its products in ``k`` order, each step
  :func:`tempnets._numerics.portable._mul_add`: in float32 a fused multiply-add (one rounding, exact
  by IEEE 754's definition, so the same on every CPU: see :mod:`tempnets._numerics.portable`), in
  float64 a multiply and an add (two roundings, as this code always computed float64).
  The kernel, :func:`tempnets._numerics.portable._products_acc`, is written in LLVM IR as a
  register-blocked matrix product: vector lanes hold different outputs, never parts of
  one sum, so a wider vector computes more outputs at once, not a different sum.  It
  reaches about 80% of a BLAS's float32 speed on the TKRNN's products (~130 GFLOP/s on
  one AVX-512 core), and no BLAS call overhead on the chapter's small ones.
* **exp, log, tanh in plain arithmetic** (:func:`exp`, :func:`log`, :func:`tanh`), built
  like :func:`tempnets._numerics.portable.logistic`: range reduction by powers of 2 and a fixed
  rational or polynomial approximation, each within a few ulp of the true value, in
  float64.  float32 has its own, in float32 arithmetic with fused multiply-adds
  (:func:`_exp_nonpositive_f32`, :func:`_logistic_f32`, :func:`_tanh_f32`, within 2 ulp): the
  models call :func:`_logistic_of_dtype` and :func:`_tanh_of_dtype`, which choose by the
  argument's dtype when a kernel is compiled.  Loops calling them vectorise.
* **Negligible float32 errors set to 0** (:func:`_negligible_to_zero`, by a comparison):
  a backward pass's errors below 2**-100 would otherwise decay into subnormal numbers,
  on which x86 CPUs take ~100 cycles per operation.
* **Reductions in a fixed order**: column sums in row order (:func:`_colsum_acc`,
  :func:`_colsum_products_acc`), and :func:`_sum_of_squares` with four partial sums as
  :func:`tempnets._numerics.portable.dot4`.

Every kernel is compiled once per dtype (float32, float64) and layout of its arguments; a
float32 product stays float32 (``tests/test_portable.py`` and
``tests/test_portable_float32.py`` check each kernel bit for bit against numpy evaluating
the same order, element-wise, in float32 and float64, a float32 fused multiply-add
emulated exactly, and train each model in processes compiled for different CPUs).

Public and private
------------------
The kernels (leading underscore) trust their caller: a short array is read or written out
of bounds, a crash or garbage.  The models call them after checking their own arguments
once, at their public entry.  The public names check first and then call them:

=======================  ====================================================================
:func:`matmul`           ``A (M, K) @ B (K, N) [+ bias (N,)]``: shapes agree, finite reals,
                         the result fits in memory; float32 when every operand is float32
:func:`outer`            ``Dᵀ A``, ``D (M, J)``, ``A (M, N)``: as :func:`matmul`
:func:`colsum`           column sums of a finite 2-D array, in row order
:func:`colsum_products`  ``sum_i D[i, j] A[i, j]``, ``D`` and ``A`` of one shape, finite
:func:`sum_of_squares`   of a finite array, in float64
:func:`exp`              of a real number or an array of them (float64): numpy's answers at
                         the edges (``-inf``, ``inf``, NaN, subnormal results); strings,
                         complex numbers and other objects are refused
:func:`log`              as :func:`exp` (``-inf`` at 0, NaN below 0)
:func:`tanh`             as :func:`exp`
:func:`logistic`         as :func:`exp` (:func:`tempnets._numerics.portable.logistic`)
=======================  ====================================================================
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.extending import overload

from .checks import array, memory
from .portable import (_LN2_HI, _LN2_LO, _elementwise, _exp_below_708, _logistic, _logistic_of,
                       _mul_add, _products_acc, _reduced_exp, logistic)

__all__ = ["exp", "log", "tanh", "logistic", "matmul", "outer", "colsum", "colsum_products",
           "sum_of_squares"]

_SQRT2 = 1.4142135623730951


# ----------------------------------------------------------------------------- elementary functions

@numba.njit(cache=True, error_model="numpy")  # (no zero division check: see _exp_nonpositive_f32)
def _exp(x):
    """``exp(x)`` within a few ulp in plain arithmetic (float64): 0 below -708 (where the
    true value is below 3e-308), ``inf`` above 709.78, NaN for NaN."""
    x = np.float64(x)
    y = -708.0 if x < -708.0 else x
    y = 709.0 if y > 709.0 else y
    even, odd, two_k = _reduced_exp(y)
    e = two_k * ((even + odd) / (even - odd))
    e = 0.0 if x < -708.0 else e
    return np.inf if x > 709.782712893384 else e


@numba.njit(cache=True, error_model="numpy")
def _tanh(u):
    """``tanh(u) = (1 - e) / (1 + e)``, ``e = exp(-2u)``, within a few ulp in plain arithmetic
    (float64).  With ``e = 2**k p(r) / p(-r)`` (:func:`tempnets._numerics.portable._reduced_exp`) it is
    ``(p(-r) - 2**k p(r)) / (p(-r) + 2**k p(r))``, one division; when ``k = 0`` (|u| < 0.17)
    the numerator ``p(-r) - p(r) = -2 odd(r)`` is used as such, so that small arguments keep
    their relative accuracy (the form ``2 logistic(2u) - 1`` would lose it).  Saturates at
    ±1; NaN stays NaN."""
    x = -2.0 * np.float64(u)
    x = -708.0 if x < -708.0 else x
    x = 709.0 if x > 709.0 else x
    even, odd, two_k = _reduced_exp(x)
    q = even - odd
    p = (even + odd) * two_k
    num = q - p
    num = -(odd + odd) if two_k == 1.0 else num
    return num / (q + p)


@numba.njit(cache=True, inline="always")
def _log_scaled(x, shift):
    """``log(x) + shift ln 2`` for a positive, finite, normal ``x`` (see :func:`_log`)."""
    bits = np.float64(x).view(np.int64)
    e = (bits >> 52) - 1023 + shift
    m = np.int64((bits & 0xFFFFFFFFFFFFF) | 0x3FF0000000000000).view(np.float64)
    if m > _SQRT2:
        m = m * 0.5
        e += 1
    f = (m - 1.0) / (m + 1.0)
    s = f * f
    series = 2.0 / 21.0
    for j in range(9, -1, -1):  # Horner: sum_j 2 s^j / (2j + 1), from the smallest term
        series = series * s + 2.0 / (2 * j + 1)
    k = np.float64(e)
    return k * _LN2_HI + (f * series + k * _LN2_LO)


@numba.njit(cache=True)
def _log(x):
    """Natural logarithm of a positive, finite, normal ``x`` within a few ulp in plain
    arithmetic (float64).  ``x = 2**e m`` with ``m`` in [sqrt(2)/2, sqrt(2)) from its bits;
    ``log m = 2 atanh(f) = 2 (f + f^3/3 + ...)``, ``f = (m - 1)/(m + 1)``, ``|f| < 0.172``:
    eleven terms reach double precision (the last is below 1e-17 of the first).  Other
    arguments give garbage: :func:`log` handles them."""
    return _log_scaled(x, 0)


_SMALLEST_NORMAL = 2.2250738585072014e-308
_TWO_54 = 18014398509481984.0  # 2**54: a subnormal times it is normal, exactly


@numba.vectorize(["float64(float64)"], cache=True)
def _log_of(x):
    """:func:`_log` of every entry of an array, with numpy's answers where it has none: NaN
    below 0 and for NaN, ``-inf`` at 0, ``inf`` at ``inf``; a subnormal ``x`` is scaled by
    2**54 first (exact) and 54 ln 2 taken off in the exponent (a numpy ufunc)."""
    if x != x:
        return x
    if x < 0.0:
        return np.nan
    if x == 0.0:
        return -np.inf
    if x == np.inf:
        return np.inf
    if x < _SMALLEST_NORMAL:
        return _log_scaled(x * _TWO_54, -54)
    return _log(x)


@numba.vectorize(["float64(float64)"], cache=True)
def _exp_of(x):
    """:func:`_exp` of every entry of an array, and below -708 (where :func:`_exp` gives 0)
    the subnormal result numpy gives (:func:`tempnets._numerics.portable._exp_below_708`; a numpy ufunc)."""
    if x != x:
        return x
    return _exp_below_708(x) if x < -708.0 else _exp(x)


@numba.vectorize(["float64(float64)"], cache=True)
def _tanh_of(u):
    """:func:`_tanh` of every entry of an array (a numpy ufunc)."""
    return u if u != u else _tanh(u)


def exp(x):
    """``exp`` of a real number or of every entry of an array (float64), within a few ulp in
    plain arithmetic (:func:`_exp`; subnormal results within one unit of the smallest
    subnormal): numpy's answers at the edges (0 below -745.2, ``inf`` above 709.78, NaN for
    NaN).  A number gives a ``float``, an array a float64 array."""
    return _elementwise("x", x, _exp_of)


def log(x):
    """Natural logarithm of a real number or of every entry of an array (float64), within a
    few ulp in plain arithmetic (:func:`_log`), subnormal ``x`` included: numpy's answers at
    the edges (``-inf`` at 0, NaN below 0 and for NaN, ``inf`` at ``inf``)."""
    return _elementwise("x", x, _log_of)


def tanh(u):
    """``tanh`` of a real number or of every entry of an array (float64), within a few ulp
    in plain arithmetic (:func:`_tanh`): ±1 beyond ±19, NaN for NaN."""
    return _elementwise("u", u, _tanh_of)


# ----------------------------------------------------------------------------- the same in float32

_F32_LOG2E = np.float32(1.44269504)
_F32_LN2_HI = np.float32(0.693359375)  # ln 2 = hi + lo; hi has 9 significant bits, so k * hi is exact
_F32_LN2_LO = np.float32(-2.12194440e-4)
_F32_ROUND = np.float32(12582912.0)  # 1.5 * 2**23: rint(v) = (v + _F32_ROUND) - _F32_ROUND, |v| < 2**22
_F32_EXP = tuple(np.float32(c) for c in (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3,
                                        4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1))
_F32_TANH = tuple(np.float32(c) for c in (-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2,
                                         1.33314422036e-1, -3.33332819422e-1))
_F32_ONE, _F32_ZERO = np.float32(1.0), np.float32(0.0)
_F32_LOWEST = np.float32(-104.0)  # exp(-104) is below half the smallest float32 (1.4e-45)
_F32_TANH_SMALL = np.float32(0.625)


@numba.njit(cache=True, inline="always")
def _exp_nonpositive_f32(z):
    """``exp(z)`` for a float32 ``z <= 0`` (NaN stays NaN), in float32 arithmetic with fused
    multiply-adds (:func:`tempnets._numerics.portable._mul_add`): within 1 ulp, subnormal results within
    one unit of the smallest subnormal, 0 below -104.

    Cephes' ``expf`` (Moshier): ``k = rint(z / ln 2)`` by adding and subtracting
    1.5 * 2**23, ``r = z - k ln 2`` in two exact steps, ``exp(r) = 1 + r + r^2 P(r)`` with
    its minimax polynomial of degree 5, then times ``2**(k + 64)`` (a normal number) and
    ``2**-64``, so that a subnormal result is rounded once.  Vectorises (no division)."""
    z = _F32_LOWEST if z < _F32_LOWEST else z
    shifted = _mul_add(z, _F32_LOG2E, _F32_ROUND)
    k = shifted - _F32_ROUND
    r = _mul_add(k, -_F32_LN2_LO, _mul_add(k, -_F32_LN2_HI, z))
    c = _F32_EXP
    p = _mul_add(_mul_add(_mul_add(_mul_add(_mul_add(c[0], r, c[1]), r, c[2]), r, c[3]), r, c[4]), r, c[5])
    p = _mul_add(p, r * r, r) + _F32_ONE
    # the integer k is in the low bits of shifted; 0x4B400000 is the bits of _F32_ROUND
    bits = (np.float32(shifted).view(np.int32) - np.int32(0x4B400000) + np.int32(127 + 64)) << np.int32(23)
    return (p * np.int32(bits).view(np.float32)) * np.float32(2.0 ** -64)


@numba.njit(cache=True, error_model="numpy")
def _logistic_f32(u):
    """``1 / (1 + exp(-u))`` for a float32 ``u``, in float32: within 2 ulp everywhere
    (subnormal results included), NaN for NaN.

    With ``e = exp(-|u|)`` (:func:`_exp_nonpositive_f32`, in (0, 1]) it is ``1 / (1 + e)``
    for ``u >= 0`` and ``e / (1 + e)`` below, one division and no cancellation.  (The
    ``numpy`` error model only drops the zero-division check, which ``1 + e`` never needs:
    with the check LLVM cannot vectorise a loop calling it.)"""
    e = _exp_nonpositive_f32(u if u < _F32_ZERO else -u)
    return (_F32_ONE if u >= _F32_ZERO else e) / (_F32_ONE + e)


@numba.njit(cache=True, error_model="numpy")
def _tanh_f32(u):
    """``tanh(u)`` for a float32 ``u``, in float32: within 2 ulp, ±1 beyond ±9, NaN for NaN.

    Cephes' ``tanhf``: below 0.625 in magnitude the odd minimax polynomial ``u + u^3 P(u^2)``
    (small arguments keep their relative accuracy); above, ``(1 - e) / (1 + e)`` with ``e =
    exp(-2|u|) <= 0.29`` (no cancellation) and the sign of ``u``.  Both are computed and
    one is selected, so loops calling it vectorise."""
    a = u if u >= _F32_ZERO else -u
    e = _exp_nonpositive_f32(-(a + a))
    large = (_F32_ONE - e) / (_F32_ONE + e)
    large = large if u >= _F32_ZERO else -large
    s = u * u
    c = _F32_TANH
    p = _mul_add(_mul_add(_mul_add(_mul_add(c[0], s, c[1]), s, c[2]), s, c[3]), s, c[4])
    small = _mul_add(p * s, u, u)
    return small if a < _F32_TANH_SMALL else large


def _in_dtype(f64, f32):
    """A function of one float that calls ``f32`` on a float32 and ``f64`` otherwise, in
    compiled code (chosen when it is compiled) and from Python."""
    def f(u):
        return f32(u) if isinstance(u, np.float32) else f64(u)

    @overload(f, jit_options={"cache": True})
    def _typed(u):
        return (lambda u: f32(u)) if u == types.float32 else (lambda u: f64(u))

    return f


_logistic_of_dtype = _in_dtype(_logistic, _logistic_f32)
_logistic_of_dtype.__doc__ = """The logistic in the precision of its argument: :func:`tempnets._numerics.portable._logistic`
(float64 arithmetic) for a float64, :func:`_logistic_f32` for a float32."""
_tanh_of_dtype = _in_dtype(_tanh, _tanh_f32)
_tanh_of_dtype.__doc__ = """``tanh`` in the precision of its argument: :func:`_tanh` or :func:`_tanh_f32`."""
_exp_nonpositive_of_dtype = _in_dtype(_exp, _exp_nonpositive_f32)
_exp_nonpositive_of_dtype.__doc__ = """``exp(z)``, ``z <= 0``, in the precision of ``z``: :func:`_exp` or
:func:`_exp_nonpositive_f32`."""


_F32_NEGLIGIBLE = np.float32(2.0 ** -100)


@numba.njit(cache=True, inline="always")
def _same(v):
    return v


@numba.njit(cache=True, inline="always")
def _negligible_to_zero_f32(v):
    return v if abs(v) >= _F32_NEGLIGIBLE else np.float32(0.0)


_negligible_to_zero = _in_dtype(_same, _negligible_to_zero_f32)
_negligible_to_zero.__doc__ = """``v``, except 0 for a float32 below 2**-100 in magnitude.

For the backward passes' errors: they shrink at every step back through time and, at long
delays, become subnormal (below 1.2e-38), where every x86 multiply or add takes a
microcode assist of ~100 cycles (a float32 RNN update at delay 50 took 50 ms instead of 2).
Set to 0 by a comparison (the same on every CPU; no flush-to-zero mode, which CPUs apply
differently), they are 2**-80 or less of any output's error, far under float32's
resolution.  float64 values are returned unchanged (their subnormals start at 2e-308)."""


@numba.njit(cache=True)
def _logistic_into(out, a):
    """``out[j] = logistic(a[j])`` in the arrays' precision (:func:`_logistic_of_dtype`), for
    1-D arrays.  ``out`` must not overlap ``a``: LLVM vectorises the loop after checking
    that at run time, and runs it one element at a time when the check fails."""
    for j in range(a.size):
        out[j] = _logistic_of_dtype(a[j])


@numba.njit(cache=True)
def _tanh_into(out, a):
    """``out[j] = tanh(a[j])`` in the arrays' precision (:func:`_tanh_of_dtype`), for 1-D
    arrays that do not overlap (as :func:`_logistic_into`)."""
    for j in range(a.size):
        out[j] = _tanh_of_dtype(a[j])


# ----------------------------------------------------------------------------- products and sums

_K_BLOCK = 64
"""``k`` per pass of :func:`_matmul_acc` over ``out``: a panel of ``B`` this tall stays in the
first-level cache while every row block uses it."""


@numba.njit(cache=True)
def _matmul_acc(out, A, B):
    """``out[i, j] += sum_k A[i, k] B[k, j]``, each ``out[i, j]`` adding its products one by
    one in ``k`` order: ``out[i, j] = _mul_add(A[i, k], B[k, j], out[i, j])`` for ``k = 0, 1,
    ...`` (:func:`tempnets._numerics.portable._mul_add`: rounded once in float32, twice in float64,
    the same bits as ``for k: out += A[:, k:k+1] * B[k]``).

    The register-blocked kernel :func:`tempnets._numerics.portable._products_acc`, ``k`` in blocks of
    :data:`_K_BLOCK` (``out`` is stored between blocks, in its own dtype: no sum changes).
    ``out`` and ``B`` must be C-contiguous; ``A`` may be any view (e.g. a transpose)."""
    K = A.shape[1]
    for k0 in range(0, K, _K_BLOCK):
        _products_acc(out, A, B, k0, min(K, k0 + _K_BLOCK))
    return out


@numba.njit(cache=True)
def _affine_into(out, A, B, bias):
    """``out[i, j] = bias[j] + sum_k A[i, k] B[k, j]``: ``out`` set to ``bias`` on every row,
    then :func:`_matmul_acc` (a layer's input, the bias first and the products in ``k`` order)."""
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = bias[j]
    return _matmul_acc(out, A, B)


@numba.njit(cache=True)
def _outer_acc(out, D, A):
    """``out[j, n] += sum_m D[m, j] A[m, n]`` (``out += Dᵀ A``: a weight gradient summed over
    time and batch), each element adding its products one by one in ``m`` order:
    :func:`_matmul_acc` with the view ``Dᵀ``.  ``out`` and ``A`` C-contiguous."""
    return _matmul_acc(out, D.T, A)


def _matmul(A, B, bias=None):
    """``A @ B`` (plus ``bias`` on every row) by :func:`_matmul_acc`, starting from ``bias``
    (or 0): a new array in the dtype of ``A``.  Unchecked: :func:`matmul` checks."""
    B = np.ascontiguousarray(B)
    if bias is None:
        return _matmul_acc(np.zeros((A.shape[0], B.shape[1]), A.dtype), A, B)
    return _affine_into(np.empty((A.shape[0], B.shape[1]), A.dtype), A, B, bias)


def _outer(D, A):
    """``Dᵀ A`` by :func:`_outer_acc`: a new array in the dtype of ``D`` (unchecked: :func:`outer`)."""
    out = np.zeros((D.shape[1], A.shape[1]), D.dtype)
    return _outer_acc(out, np.ascontiguousarray(D), np.ascontiguousarray(A))


def _colsum(D):
    """Column sums of ``D`` in row order (:func:`_colsum_acc`): a new array in its dtype
    (unchecked: :func:`colsum`)."""
    return _colsum_acc(np.zeros(D.shape[1], D.dtype), np.ascontiguousarray(D))


def _colsum_products(D, A):
    """``sum_i D[i, j] A[i, j]`` in row order (:func:`_colsum_products_acc`), in ``D``'s dtype
    (unchecked: :func:`colsum_products`)."""
    return _colsum_products_acc(np.zeros(D.shape[1], D.dtype), np.ascontiguousarray(D),
                                np.ascontiguousarray(A))


def _operands(shapes, **arrays):
    """The named arrays checked for :func:`matmul` and its kin: real, finite, of the ``shapes``
    (named sizes must agree), in one precision: float32 when every one is float32, else
    float64 (the products are computed, and returned, in it)."""
    single = all(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in arrays.values())
    dtype = np.float32 if single else np.float64
    dims = {}
    return [array(name, a, shapes[name], dims).astype(dtype, copy=False)
            for name, a in arrays.items()], dims


def _result(dims, *sizes):
    """Refuse a result of these named sizes that cannot fit in memory."""
    n = 1
    for k in sizes:
        n *= dims[k][0]
    memory(n, f"the result ({' x '.join(f'{k}={dims[k][0]}' for k in sizes)})")


def matmul(A, B, bias=None):
    """``A @ B`` (plus ``bias`` on every row), each element adding its products in ``k``
    order (:func:`_matmul_acc`, the same bits on every CPU), starting from ``bias`` or 0.

    ``A`` (M, K), ``B`` (K, N), ``bias`` (N,): arrays of finite real numbers.  Computed and
    returned in float32 when all are float32, else in float64."""
    shapes = {"A": ("M", "K"), "B": ("K", "N"), "bias": ("N",)}
    given = {"A": A, "B": B} if bias is None else {"A": A, "B": B, "bias": bias}
    arrays, dims = _operands(shapes, **given)
    _result(dims, "M", "N")
    return _matmul(*arrays)


def outer(D, A):
    """``Dᵀ A`` (a weight gradient summed over rows), each element adding its products in row
    order (:func:`_outer_acc`).  ``D`` (M, J), ``A`` (M, N) finite; float32 when both are."""
    (D, A), dims = _operands({"D": ("M", "J"), "A": ("M", "N")}, D=D, A=A)
    _result(dims, "J", "N")
    return _outer(D, A)


def colsum(D):
    """Column sums of a 2-D array ``D`` of finite real numbers, in row order
    (:func:`_colsum_acc`), in its precision (float32 or float64)."""
    (D,), _ = _operands({"D": (None, None)}, D=D)
    return _colsum(D)


def colsum_products(D, A):
    """``sum_i D[i, j] A[i, j]`` in row order (:func:`_colsum_products_acc`): ``D`` and ``A``
    2-D arrays of finite real numbers of one shape; float32 when both are."""
    (D, A), _ = _operands({"D": ("M", "N"), "A": ("M", "N")}, D=D, A=A)
    return _colsum_products(D, A)


def sum_of_squares(a):
    """``sum(a**2)`` of an array of finite real numbers, in float64 with four partial sums in a
    fixed order (:func:`_sum_of_squares`): the same bits on every CPU.  float32 entries are
    widened first (each square is exact)."""
    return float(_sum_of_squares(array("a", a)))  # (float64 holds every float32 exactly)


@numba.njit(cache=True)
def _colsum_acc(out, D):
    """``out[j] += sum_i D[i, j]``, in row order."""
    M, N = D.shape
    for i in range(M):
        for j in range(N):
            out[j] += D[i, j]
    return out


@numba.njit(cache=True)
def _colsum_products_acc(out, D, A):
    """``out[j] += sum_i D[i, j] A[i, j]``, in row order (:func:`tempnets._numerics.portable._mul_add`)."""
    M, N = D.shape
    for i in range(M):
        for j in range(N):
            out[j] = _mul_add(D[i, j], A[i, j], out[j])
    return out


@numba.njit(cache=True)
def _sum_of_squares(a):
    """``sum(a**2)`` in float64 (float32 entries are widened first, so each square is exact),
    with four partial sums as :func:`tempnets._numerics.portable.dot4`: the same bits on every CPU.
    Unchecked (:func:`sum_of_squares` checks)."""
    b = a.reshape(-1)
    n = b.size
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    m = n - n % 4
    for j in range(0, m, 4):
        v0, v1 = np.float64(b[j]), np.float64(b[j + 1])
        v2, v3 = np.float64(b[j + 2]), np.float64(b[j + 3])
        s0 += v0 * v0
        s1 += v1 * v1
        s2 += v2 * v2
        s3 += v3 * v3
    for j in range(m, n):
        v = np.float64(b[j])
        s0 += v * v
    return (s0 + s1) + (s2 + s3)
