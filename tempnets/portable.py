"""Arithmetic for the compiled kernels that gives the same bits on every CPU.

Same seed, same result, on any machine: a training run is a long chain of
floating-point operations, and a chaotic one (which network reaches criterion
first, which epoch it stops at) turns a difference in the last bit into a
different result.  So the kernels that train or evaluate a network follow
three rules, and this module holds what they share:

* **Strict IEEE arithmetic.**  No ``fastmath`` flags: ``reassoc`` lets LLVM sum
  in an order that depends on the CPU's vector width, ``contract`` fuses a
  multiply and an add into one rounding on CPUs with FMA only, ``arcp`` and
  ``nsz`` change results too.  (The one exception, :func:`finite`, has a
  result that no order can change; a test proves it.)
* **Sums in a fixed order that still vectorises.**  :func:`dot4` keeps four
  partial sums, element ``j`` going to sum ``j % 4``, and adds them as
  ``(s0 + s1) + (s2 + s3)``: the order is part of the code, so a CPU with
  wider vectors computes the same thing, and the four sums are one vector
  register (written out in LLVM IR by :func:`_sums4`: numba turns LLVM's own
  SLP vectoriser off).
* **No libm.**  ``exp`` in a kernel calls the C library, whose implementation
  is chosen at run time by the CPU (glibc has separate FMA variants); the
  logistic here is plain arithmetic (:func:`logistic`, within a few ulp).

Tested by training every family in two processes, one compiled for this CPU
and one with ``NUMBA_CPU_NAME=generic``, and requiring identical weights
(``tests/test_portable.py``).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


def ensure_numba_cache() -> str | None:
    """Make ``@numba.njit(cache=True)`` work where numba finds nowhere to cache.

    numba caches next to the source or in the user's cache directory; on a read-only
    install with an unwritable ``HOME`` (a system-wide or container install) it finds
    neither and every kernel fails at import with "cannot cache function ...: no locator
    available".  Then the kernels are cached in a temporary directory for this process
    only (compiled afresh in each session), with one warning line on stderr.  Called by
    this module, which every module with kernels imports first.  Returns that
    directory, or ``None`` when numba's own locators work.
    """
    import atexit
    import shutil
    import sys
    import tempfile

    def probe():  # decorating with cache=True looks for a locator; nothing is compiled
        pass

    try:
        numba.njit(cache=True)(probe)
        return None
    except RuntimeError as err:
        if "no locator available" not in str(err):
            raise
    folder = tempfile.mkdtemp(prefix="tempnets-numba-cache-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    numba.config.CACHE_DIR = folder
    numba.config.CACHE_LOCATOR_CLASSES = ""  # numba's own list, which looks at CACHE_DIR first
    print("tempnets: numba cannot cache compiled kernels here (read-only install, no writable "
          "cache directory); compiling them for this session only (set NUMBA_CACHE_DIR to a "
          "writable directory to keep them)", file=sys.stderr)
    return folder


ensure_numba_cache()

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 = _LN2_HI + _LN2_LO; k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0  # 1.5 * 2**52: the integer k sits in the low bits of k + _ROUND
# the [6/6] Pade approximant of exp: exp(r) ~ p(r) / p(-r), p(r) = sum_j _PADE[j] r**j
_PADE = (1.0, 1.0 / 2.0, 5.0 / 44.0, 1.0 / 66.0, 1.0 / 792.0, 1.0 / 15840.0, 1.0 / 665280.0)


@numba.njit(cache=True, inline="always")
def reduced_exp(x):
    """``(even, odd, 2**k)`` with ``exp(x) = 2**k (even + odd) / (even - odd)``: ``k =
    rint(x / ln 2)``, ``r = x - k ln 2`` (``|r| <= ln(2) / 2``), ``even ± odd = p(±r)`` of the
    [6/6] Pade approximant (error < 1e-18 there); ``2**k`` is built from its exponent bits.
    ``x`` must lie in [-708, 709].  Shared by :func:`logistic` and the exp, tanh of
    :mod:`tempnets.portable_math`."""
    k = np.rint(x * _LOG2E)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    r2 = r * r
    even = ((_PADE[6] * r2 + _PADE[4]) * r2 + _PADE[2]) * r2 + _PADE[0]
    odd = ((_PADE[5] * r2 + _PADE[3]) * r2 + _PADE[1]) * r
    two_k = (np.float64(k + _ROUND).view(np.int64) + 1023) << 52
    return even, odd, np.int64(two_k).view(np.float64)


@numba.njit(cache=True)
def logistic(u):
    """1 / (1 + exp(-u)) within a few ulp, in plain arithmetic: no libm call, so the
    same bits on every CPU, and loops calling it vectorise.

    exp(-u) = 2**k p(r) / p(-r) (:func:`reduced_exp`), so the logistic is
    p(-r) / (p(-r) + 2**k p(r)), one division.  -u is clamped to [-708, 709]
    (exp(-708) ~ 3e-308, so the unit still saturates at 0 or 1 to double
    precision); NaN stays NaN.
    """
    x = -u
    x = -708.0 if x < -708.0 else x
    x = 709.0 if x > 709.0 else x
    even, odd, two_k = reduced_exp(x)
    q = even - odd
    return q / (q + (even + odd) * two_k)


@intrinsic
def _sums4(typingctx, A, i, B, k, m):
    """``(s0, s1, s2, s3)``: ``s_r`` the sum of ``A[i, j] * B[k, j]`` over ``j < m``,
    ``j % 4 == r``, in order of ``j`` (``m`` a multiple of 4; C-contiguous 2-D arrays).

    The four sums are one vector of four doubles, written out in LLVM IR: a vector
    multiply and add are four IEEE scalar ones side by side, so this is the scalar
    loop's arithmetic exactly.  (LLVM would find that vector itself, but numba turns
    its SLP vectoriser off, and the loop vectoriser would need ``reassoc``.)
    """
    if not (isinstance(A, types.Array) and isinstance(B, types.Array) and A.ndim == B.ndim == 2
            and A.layout == B.layout == "C" and A.dtype == B.dtype == types.float64):
        return None
    sig = types.UniTuple(types.float64, 4)(A, i, B, k, m)

    def codegen(context, builder, sig, args):
        A_ty, i_ty, B_ty, k_ty, m_ty = sig.args
        A_, i_, B_, k_, m_ = args
        intp = context.get_value_type(types.intp)
        zero = ir.Constant(intp, 0)
        rows = []
        for ty, ary, row, row_ty in ((A_ty, A_, i_, i_ty), (B_ty, B_, k_, k_ty)):
            a = context.make_array(ty)(context, builder, ary)
            row = context.cast(builder, row, row_ty, types.intp)
            rows.append(cgutils.get_item_pointer(context, builder, ty, a, [row, zero]))
        vec = ir.VectorType(ir.DoubleType(), 4)
        acc = cgutils.alloca_once_value(builder, ir.Constant(vec, [0.0] * 4))
        stop = context.cast(builder, m_, m_ty, types.intp)
        with cgutils.for_range_slice(builder, zero, stop, ir.Constant(intp, 4)) as (j, _):
            a, b = (builder.load(builder.bitcast(builder.gep(p, [j]), vec.as_pointer()), align=8)
                    for p in rows)
            builder.store(builder.fadd(builder.load(acc), builder.fmul(a, b)), acc)
        v = builder.load(acc)
        return context.make_tuple(builder, sig.return_type,
                                  [builder.extract_element(v, ir.Constant(ir.IntType(32), r))
                                   for r in range(4)])

    return sig, codegen


@numba.njit(cache=True, inline="always")
def dot4(A, i, B, k, n):
    """``sum(A[i, :n] * B[k, :n])`` in a fixed order: four partial sums (element ``j`` to
    sum ``j % 4``), then ``(s0 + s1) + (s2 + s3)``; a tail of ``n % 4`` elements goes to the
    first sums in turn.  Same bits on every CPU; one vector of four sums
    (:func:`_sums4`).  ``A``, ``B``: C-contiguous 2-D float64 arrays."""
    m = n - n % 4
    s0, s1, s2, s3 = _sums4(A, i, B, k, m)
    if m < n:
        s0 += A[i, m] * B[k, m]
    if m + 1 < n:
        s1 += A[i, m + 1] * B[k, m + 1]
    if m + 2 < n:
        s2 += A[i, m + 2] * B[k, m + 2]
    return (s0 + s1) + (s2 + s3)


@numba.njit(cache=True, fastmath={"reassoc"})
def finite(a):
    """No inf or NaN in the array ``a``.

    ``reassoc`` is safe here: each term ``a[i] * 0.0`` is 0, or NaN when ``a[i]``
    is inf or NaN, and a sum of zeros and NaNs is 0 or NaN in any order.
    """
    b = a.reshape(-1)
    t = 0.0
    for i in range(b.size):
        t += b[i] * 0.0
    return t == 0.0
