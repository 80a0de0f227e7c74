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
  wider vectors computes the same thing, and LLVM can still put the four sums
  in one vector register.
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


@numba.njit(cache=True)
def logistic(u):
    """1 / (1 + exp(-u)) within a few ulp, in plain arithmetic: no libm call, so the
    same bits on every CPU, and loops calling it vectorise.

    exp(-u) = 2**k exp(r) with k = rint(-u / ln 2), |r| <= ln(2) / 2 and
    exp(r) = p(r) / p(-r) (the [6/6] Pade approximant, error < 1e-18 there), so
    the logistic is p(-r) / (p(-r) + 2**k p(r)), one division; 2**k is built
    from its exponent bits.  -u is clamped to [-708, 709] (exp(-708) ~ 3e-308, so
    the unit still saturates at 0 or 1 to double precision); NaN stays NaN.
    """
    x = -u
    x = -708.0 if x < -708.0 else x
    x = 709.0 if x > 709.0 else x
    k = np.rint(x * _LOG2E)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    r2 = r * r
    even = ((_PADE[6] * r2 + _PADE[4]) * r2 + _PADE[2]) * r2 + _PADE[0]
    odd = ((_PADE[5] * r2 + _PADE[3]) * r2 + _PADE[1]) * r
    two_k = (np.float64(k + _ROUND).view(np.int64) + 1023) << 52
    q = even - odd
    return q / (q + (even + odd) * np.int64(two_k).view(np.float64))


@numba.njit(cache=True, inline="always")
def dot4(A, i, B, k, n):
    """``sum(A[i, :n] * B[k, :n])`` in a fixed order: four partial sums (element ``j`` to
    sum ``j % 4``), then ``(s0 + s1) + (s2 + s3)``; a tail of ``n % 4`` elements goes to the
    first sums in turn.  Same bits on every CPU; vectorises without ``reassoc``.  (Rows by
    index, not as views: a view in an inner loop costs a reference count each time.)"""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    m = n - n % 4
    for j in range(0, m, 4):
        s0 += A[i, j] * B[k, j]
        s1 += A[i, j + 1] * B[k, j + 1]
        s2 += A[i, j + 2] * B[k, j + 2]
        s3 += A[i, j + 3] * B[k, j + 3]
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
