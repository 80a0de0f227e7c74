"""Matrix products and elementary functions that give the same bits on every CPU, for the
serial-recall models (:mod:`tempnets.tkrnn`, :mod:`tempnets.rnn_baselines`) and the
gradient clipping of :mod:`tempnets.optim`.

The rules are :mod:`tempnets.portable`'s (strict IEEE arithmetic, sums in an order written
in the code, no libm); this module adds what those models need beyond the logistic:

* **Products without BLAS.**  A BLAS picks its kernel, and with it the order of every
  sum and whether it fuses multiply and add, from the CPU (OpenBLAS's Haswell and
  Prescott kernels give different last bits).  :func:`matmul_acc` writes the order down:
  each output element accumulates its products in ``k`` order, one rounding per
  multiply and per add (numba fuses nothing without ``fastmath``'s ``contract``).  The
  loops are in "axpy" form (``k`` outer, ``j`` inner over a contiguous row), so LLVM
  vectorises across outputs ``j`` without reassociating any sum: a wider vector
  computes more outputs at once, not a different sum.  Without fused multiply-adds this
  runs at about half a BLAS's speed on large products; on the chapter's small ones it
  is as fast (no call overhead).
* **exp, log, tanh in plain arithmetic** (:func:`exp`, :func:`log`, :func:`tanh`), built
  like :func:`tempnets.portable.logistic`: range reduction by powers of 2 and a fixed
  rational or polynomial approximation, each within a few ulp of the true value.
  They compute in float64 whatever their argument (a float32 model's activations and
  softmax are evaluated in float64 and rounded once to float32, the same bits
  everywhere); the products and sums, where the time goes, stay in the arrays' dtype.
* **Reductions in a fixed order**: column sums in row order (:func:`colsum_acc`,
  :func:`colsum_products_acc`), and :func:`sum_of_squares` with four partial sums as
  :func:`tempnets.portable.dot4`.

Every kernel is compiled once per dtype (float32, float64) and layout of its arguments; a
float32 product stays float32 (``tests/test_portable.py`` checks each kernel bit for bit
against numpy evaluating the same order, element-wise, in float32 and float64, and
trains each model in two processes compiled for different CPUs).
"""

from __future__ import annotations

import numba
import numpy as np

from .portable import _LN2_HI, _LN2_LO, logistic, reduced_exp

__all__ = ["exp", "log", "tanh", "logistic", "logistic_of", "log_of", "matmul_acc", "affine_into", "matmul",
           "outer_acc", "outer", "colsum", "colsum_acc", "colsum_products", "colsum_products_acc",
           "sum_of_squares"]

_SQRT2 = 1.4142135623730951


# ----------------------------------------------------------------------------- elementary functions

@numba.njit(cache=True)
def exp(x):
    """``exp(x)`` within a few ulp in plain arithmetic (float64): 0 below -708 (where the
    true value is below 3e-308), ``inf`` above 709.78, NaN for NaN."""
    x = np.float64(x)
    y = -708.0 if x < -708.0 else x
    y = 709.0 if y > 709.0 else y
    even, odd, two_k = reduced_exp(y)
    e = two_k * ((even + odd) / (even - odd))
    e = 0.0 if x < -708.0 else e
    return np.inf if x > 709.782712893384 else e


@numba.njit(cache=True)
def tanh(u):
    """``tanh(u) = (1 - e) / (1 + e)``, ``e = exp(-2u)``, within a few ulp in plain arithmetic
    (float64).  With ``e = 2**k p(r) / p(-r)`` (:func:`tempnets.portable.reduced_exp`) it is
    ``(p(-r) - 2**k p(r)) / (p(-r) + 2**k p(r))``, one division; when ``k = 0`` (|u| < 0.17)
    the numerator ``p(-r) - p(r) = -2 odd(r)`` is used as such, so that small arguments keep
    their relative accuracy (the form ``2 logistic(2u) - 1`` would lose it).  Saturates at
    ±1; NaN stays NaN."""
    x = -2.0 * np.float64(u)
    x = -708.0 if x < -708.0 else x
    x = 709.0 if x > 709.0 else x
    even, odd, two_k = reduced_exp(x)
    q = even - odd
    p = (even + odd) * two_k
    num = q - p
    num = -(odd + odd) if two_k == 1.0 else num
    return num / (q + p)


@numba.njit(cache=True)
def log(x):
    """Natural logarithm of a positive, finite, normal ``x`` within a few ulp in plain
    arithmetic (float64).  ``x = 2**e m`` with ``m`` in [sqrt(2)/2, sqrt(2)) from its bits;
    ``log m = 2 atanh(f) = 2 (f + f^3/3 + ...)``, ``f = (m - 1)/(m + 1)``, ``|f| < 0.172``:
    eleven terms reach double precision (the last is below 1e-17 of the first)."""
    bits = np.float64(x).view(np.int64)
    e = (bits >> 52) - 1023
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


@numba.vectorize(["float64(float64)"], cache=True)
def logistic_of(u):
    """:func:`tempnets.portable.logistic` of every entry of an array (a numpy ufunc)."""
    return logistic(u)


@numba.vectorize(["float64(float64)"], cache=True)
def log_of(x):
    """:func:`log` of every entry of an array (a numpy ufunc)."""
    return log(x)


# ----------------------------------------------------------------------------- products and sums

@numba.njit(cache=True, inline="always")
def _rows_acc(out, A, B, i, rows, k0, k1):
    """Rows ``i .. i + rows - 1`` of :func:`matmul_acc` for ``k`` in ``[k0, k1)``, one ``k``
    at a time (the tails of its unrolled loops)."""
    N = B.shape[1]
    for r in range(i, i + rows):
        for k in range(k0, k1):
            a = A[r, k]
            for j in range(N):
                out[r, j] += a * B[k, j]


@numba.njit(cache=True)
def matmul_acc(out, A, B):
    """``out[i, j] += sum_k A[i, k] B[k, j]``, each ``out[i, j]`` adding its products one by
    one in ``k`` order: the same bits as the loop ``for k: out[:, j] += A[:, k] * B[k, j]``.

    Four rows and four ``k`` per pass over rows of ``B`` (the inner loop, vectorised over
    ``j``): each load of ``B`` serves four outputs and each load and store of ``out`` four
    products, which only saves memory traffic and changes no sum.  ``B``'s rows must be
    contiguous for speed; ``A`` may be any view (e.g. a transpose)."""
    M, K = A.shape
    N = B.shape[1]
    K4 = K - K % 4
    M4 = M - M % 4
    for i in range(0, M4, 4):
        o0, o1, o2, o3 = out[i], out[i + 1], out[i + 2], out[i + 3]
        for k in range(0, K4, 4):
            b0, b1, b2, b3 = B[k], B[k + 1], B[k + 2], B[k + 3]
            a0, a1, a2, a3 = A[i, k], A[i, k + 1], A[i, k + 2], A[i, k + 3]
            c0, c1, c2, c3 = A[i + 1, k], A[i + 1, k + 1], A[i + 1, k + 2], A[i + 1, k + 3]
            d0, d1, d2, d3 = A[i + 2, k], A[i + 2, k + 1], A[i + 2, k + 2], A[i + 2, k + 3]
            e0, e1, e2, e3 = A[i + 3, k], A[i + 3, k + 1], A[i + 3, k + 2], A[i + 3, k + 3]
            for j in range(N):
                x0, x1, x2, x3 = b0[j], b1[j], b2[j], b3[j]
                o0[j] = (((o0[j] + a0 * x0) + a1 * x1) + a2 * x2) + a3 * x3
                o1[j] = (((o1[j] + c0 * x0) + c1 * x1) + c2 * x2) + c3 * x3
                o2[j] = (((o2[j] + d0 * x0) + d1 * x1) + d2 * x2) + d3 * x3
                o3[j] = (((o3[j] + e0 * x0) + e1 * x1) + e2 * x2) + e3 * x3
        _rows_acc(out, A, B, i, 4, K4, K)
    _rows_acc(out, A, B, M4, M - M4, 0, K)
    return out


@numba.njit(cache=True)
def affine_into(out, A, B, bias):
    """``out[i, j] = bias[j] + sum_k A[i, k] B[k, j]``: ``out`` set to ``bias`` on every row,
    then :func:`matmul_acc` (a layer's input, the bias first and the products in ``k`` order)."""
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = bias[j]
    return matmul_acc(out, A, B)


@numba.njit(cache=True)
def outer_acc(out, D, A):
    """``out[j, n] += sum_m D[m, j] A[m, n]`` (``out += Dᵀ A``: a weight gradient summed over
    time and batch), each element adding its products one by one in ``m`` order.

    The loop over ``m`` is outermost (four at a time): ``D`` and ``A`` are read once, in
    order, and ``out`` (a weight matrix) stays in cache; :func:`matmul_acc` with ``Dᵀ``
    would read all of ``A`` once per row of ``out``.  The same bits as that."""
    M, J = D.shape
    N = A.shape[1]
    M4 = M - M % 4
    for m in range(0, M4, 4):
        a0, a1, a2, a3 = A[m], A[m + 1], A[m + 2], A[m + 3]
        for j in range(J):
            d0, d1, d2, d3 = D[m, j], D[m + 1, j], D[m + 2, j], D[m + 3, j]
            o = out[j]
            for n in range(N):
                o[n] = (((o[n] + d0 * a0[n]) + d1 * a1[n]) + d2 * a2[n]) + d3 * a3[n]
    for m in range(M4, M):
        for j in range(J):
            d0 = D[m, j]
            for n in range(N):
                out[j, n] += d0 * A[m, n]
    return out


def matmul(A, B, bias=None):
    """``A @ B`` (plus ``bias`` on every row) by :func:`matmul_acc`, starting from ``bias``
    (or 0): a new array in the dtype of ``A``."""
    out = np.zeros((A.shape[0], B.shape[1]), A.dtype)
    B = np.ascontiguousarray(B)
    return matmul_acc(out, A, B) if bias is None else affine_into(out, A, B, bias)


def outer(D, A):
    """``Dᵀ A`` by :func:`outer_acc`: a new array in the dtype of ``D``."""
    out = np.zeros((D.shape[1], A.shape[1]), D.dtype)
    return outer_acc(out, np.ascontiguousarray(D), np.ascontiguousarray(A))


def colsum(D):
    """Column sums of ``D`` in row order (:func:`colsum_acc`): a new array in its dtype."""
    return colsum_acc(np.zeros(D.shape[1], D.dtype), np.ascontiguousarray(D))


def colsum_products(D, A):
    """``sum_i D[i, j] A[i, j]`` in row order (:func:`colsum_products_acc`), in ``D``'s dtype."""
    return colsum_products_acc(np.zeros(D.shape[1], D.dtype), np.ascontiguousarray(D),
                               np.ascontiguousarray(A))


@numba.njit(cache=True)
def colsum_acc(out, D):
    """``out[j] += sum_i D[i, j]``, in row order."""
    M, N = D.shape
    for i in range(M):
        for j in range(N):
            out[j] += D[i, j]
    return out


@numba.njit(cache=True)
def colsum_products_acc(out, D, A):
    """``out[j] += sum_i D[i, j] A[i, j]``, in row order."""
    M, N = D.shape
    for i in range(M):
        for j in range(N):
            out[j] += D[i, j] * A[i, j]
    return out


@numba.njit(cache=True)
def sum_of_squares(a):
    """``sum(a**2)`` in float64 (float32 entries are widened first, so each square is exact),
    with four partial sums as :func:`tempnets.portable.dot4`: the same bits on every CPU."""
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
