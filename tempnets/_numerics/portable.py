"""Arithmetic for the compiled kernels that gives the same bits on every CPU.

Same seed, same result, on any machine: a training run is a long chain of
floating-point operations, and a chaotic one (which network reaches criterion
first, which epoch it stops at) turns a difference in the last bit into a
different result.  So the kernels that train or evaluate a network follow
three rules, and this module holds what they share:

* **Strict IEEE arithmetic.**  No ``fastmath`` flags: ``reassoc`` lets LLVM sum
  in an order that depends on the CPU's vector width, ``contract`` fuses a
  multiply and an add into one rounding on CPUs with FMA only, ``arcp`` and
  ``nsz`` change results too.  (The one exception, :func:`_finite`, has a
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

A fused multiply-add written out (:func:`_mul_add`, ``llvm.fma``) breaks none of these:
unlike ``contract``, which lets LLVM fuse where the CPU can, it is one operation, rounded
once by IEEE 754's definition, so every CPU gives its one correct result (where the CPU has
no such instruction, LLVM calls the C library's ``fmaf``, correctly rounded too).  float32
computes its products with it (:func:`_products_acc`, the register-blocked matrix product
that :mod:`tempnets._numerics.portable_math` builds on); float64 keeps a separate multiply and add,
the arithmetic its results have always had.

Tested by training every family in two processes, one compiled for this CPU
and one with ``NUMBA_CPU_NAME=generic``, and requiring identical weights
(``tests/test_portable.py``).

Public and private
------------------
The kernels (names with a leading underscore) trust their caller: a short array is read
out of bounds.  Three are also public, :func:`logistic`, :func:`dot4` and :func:`finite`:
called from Python they check their arguments first (a ``ValueError``/``TypeError`` naming
the argument); called from compiled code they are the kernel (a numba ``overload``), whose
caller was checked at its own public entry (the library's kernels call :func:`_dot4`
itself, inlined).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic, overload

from .checks import array, count

__all__ = ["logistic", "dot4", "finite", "ensure_numba_cache"]


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
def _reduced_exp(x):
    """``(even, odd, 2**k)`` with ``exp(x) = 2**k (even + odd) / (even - odd)``: ``k =
    rint(x / ln 2)``, ``r = x - k ln 2`` (``|r| <= ln(2) / 2``), ``even ± odd = p(±r)`` of the
    [6/6] Pade approximant (error < 1e-18 there); ``2**k`` is built from its exponent bits.
    ``x`` must lie in [-708, 709].  Shared by :func:`logistic` and the exp, tanh of
    :mod:`tempnets._numerics.portable_math`."""
    k = np.rint(x * _LOG2E)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    r2 = r * r
    even = ((_PADE[6] * r2 + _PADE[4]) * r2 + _PADE[2]) * r2 + _PADE[0]
    odd = ((_PADE[5] * r2 + _PADE[3]) * r2 + _PADE[1]) * r
    two_k = (np.float64(k + _ROUND).view(np.int64) + 1023) << 52
    return even, odd, np.int64(two_k).view(np.float64)


@numba.njit(cache=True)
def _logistic(u):
    """1 / (1 + exp(-u)) within a few ulp, in plain arithmetic: no libm call, so the
    same bits on every CPU, and loops calling it vectorise.

    exp(-u) = 2**k p(r) / p(-r) (:func:`_reduced_exp`), so the logistic is
    p(-r) / (p(-r) + 2**k p(r)), one division.  -u is clamped to [-708, 709]
    (exp(-708) ~ 3e-308, so the unit still saturates at 0 or 1 to double
    precision); NaN stays NaN.
    """
    x = -u
    x = -708.0 if x < -708.0 else x
    x = 709.0 if x > 709.0 else x
    even, odd, two_k = _reduced_exp(x)
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
def _dot4(A, i, B, k, n):
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
def _finite(a):
    """No inf or NaN in the array ``a``.

    ``reassoc`` is safe here: each term ``a[i] * 0.0`` is 0, or NaN when ``a[i]``
    is inf or NaN, and a sum of zeros and NaNs is 0 or NaN in any order.
    """
    b = a.reshape(-1)
    t = 0.0
    for i in range(b.size):
        t += b[i] * 0.0
    return t == 0.0


# ----------------------------------------------------------------------------- the public names
# Each is checked when called from Python and is its kernel when called from compiled code.

@numba.vectorize(["float64(float64)"], cache=True)
def _logistic_of(u):
    """:func:`_logistic` of every entry of an array (a numpy ufunc)."""
    return _logistic(u)


@numba.njit(cache=True)
def _exp_below_708(x):
    """``exp(x)`` for ``x < -708`` (``-inf`` included), where the result is subnormal or 0:
    ``2**k`` applied as ``2**(k + 128)`` (a normal number) times ``2**-128``, so that the
    result is rounded once; within one unit of the smallest subnormal."""
    if x < -746.0:  # exp(-746) is below half the smallest subnormal (4.9e-324)
        return 0.0
    even, odd, _ = _reduced_exp(x)  # (its 2**k is out of range here; its even and odd parts are right)
    k = np.int64(np.rint(x * _LOG2E))
    scale = np.int64((k + 128 + 1023) << 52).view(np.float64)
    return ((even + odd) / (even - odd) * scale) * 2.0 ** -128


@numba.vectorize(["float64(float64)"], cache=True)
def _logistic_to_the_edges_of(u):
    """:func:`logistic` of every entry of an array: :func:`_logistic`, which stays at 1e-308
    below -708, and there ``exp(u)`` (``1 + exp(u)`` is 1 to double precision), as numpy."""
    if u != u:
        return u
    return _exp_below_708(u) if u < -708.0 else _logistic(u)


def _elementwise(name, x, ufunc):
    """``ufunc`` of a real number (a ``float`` back) or of every entry of an array of real
    numbers (a float64 array back), after checking ``x`` is one (NaN and infinities are
    allowed: the functions give numpy's answers there).  ``name`` names ``x`` in errors."""
    a = array(name, x, finite=False)
    out = ufunc(a)
    return float(out[0]) if np.ndim(x) == 0 else out  # (array() gives a number 1-D)


def logistic(u):
    """``1 / (1 + exp(-u))`` of a real number or of every entry of an array (float64), in
    plain arithmetic (:func:`_logistic`): within a few ulp (subnormal results within one unit
    of the smallest subnormal), 0 at ``-inf``, 1 at ``inf``, NaN for NaN.  (In compiled code
    it is :func:`_logistic`, which stops at 1.2e-308 below -708.)"""
    return _elementwise("u", u, _logistic_to_the_edges_of)


@overload(logistic, inline="always", jit_options={"cache": True})
def _logistic_compiled(u):
    return lambda u: _logistic(u)


def _rows(name, value, dims):
    """A C-contiguous float64 2-D array with at least one row, finite (for :func:`dot4`)."""
    a = array(name, value, (None, None), dims)
    if a.shape[0] == 0:
        raise ValueError(f"{name} must have at least one row, got shape {a.shape}")
    return a


def dot4(A, i, B, k, n):
    """``sum(A[i, :n] * B[k, :n])`` in a fixed order (:func:`_dot4`): the same bits on every CPU.

    ``A``, ``B``: 2-D arrays of finite real numbers (computed in float64); ``i``, ``k``: a row of
    each; ``n``: how many leading columns, at most the width of both."""
    A, B = _rows("A", A, {}), _rows("B", B, {})
    i = count("i (a row of A)", i, 0, A.shape[0] - 1)
    k = count("k (a row of B)", k, 0, B.shape[0] - 1)
    n = count("n (columns summed, at most the width of A and of B)", n, 0, min(A.shape[1], B.shape[1]))
    return float(_dot4(A, i, B, k, n))


@overload(dot4, jit_options={"cache": True})
def _dot4_compiled(A, i, B, k, n):
    # (a call, not inlined: numba's inliner would inline twice, and warn.  The library's own
    # kernels call _dot4, inlined.)
    return lambda A, i, B, k, n: _dot4(A, i, B, k, n)


def finite(a):
    """``True`` when the array ``a`` of real numbers has no inf or NaN (:func:`_finite`)."""
    return bool(_finite(array("a", a, finite=False)))


@overload(finite, inline="always", jit_options={"cache": True})
def _finite_compiled(a):
    return lambda a: _finite(a)


# ----------------------------------------------------------------------------- fused multiply-add

def _mul_add_ir(builder, a, b, c):
    """``a * b + c`` in IR: one rounding (``llvm.fma``) for float32, two (the product, then the
    sum) for float64.  ``a``, ``b``, ``c``: scalars or vectors of one floating type."""
    vector = isinstance(a.type, ir.VectorType)
    if isinstance(a.type.element if vector else a.type, ir.DoubleType):
        return builder.fadd(builder.fmul(a, b), c)
    name = f"llvm.fma.v{a.type.count}f32" if vector else "llvm.fma.f32"
    fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(a.type, [a.type] * 3), name)
    return builder.call(fma, [a, b, c])


@intrinsic
def _mul_add(typingctx, a, b, c):
    """``a * b + c``, rounded once (a fused multiply-add) in float32 and twice (the product,
    then the sum) in float64.

    A fused multiply-add is exactly rounded by definition (IEEE 754), so it gives the same
    bits on every CPU, whether the CPU has the instruction or LLVM calls the C library's
    ``fmaf`` (correctly rounded as well, on any CPU).  float32 uses it: it is faster and
    more accurate.  float64 keeps the two roundings its results (the book's records)
    were computed with.  ``a``, ``b``, ``c``: all float32 or all float64.
    """
    if not (a == b == c and a in (types.float32, types.float64)):
        return None

    def codegen(context, builder, sig, args):
        return _mul_add_ir(builder, *args)

    return a(a, b, c), codegen


def _register_block(context, dtype):
    """``(lanes, vectors, sums)`` of :func:`products_acc`'s register blocks on the target CPU:
    at most ``vectors`` vectors of ``lanes`` columns, and about ``sums`` vectors of outputs
    in all, sized to the vector registers (32 of 64 bytes with AVX-512, 16 of 32 bytes with
    AVX, 16 of 16 bytes without; the rest hold a row of ``B`` and a broadcast).  Only the
    speed depends on it: each output is computed on its own, in the same order."""
    features = getattr(context.codegen(), "_tm_features", "") or ""
    width = 64 if "+avx512f" in features else 32 if "+avx" in features else 16
    lanes = width // (4 if dtype == types.float32 else 8)
    return (lanes, 4, 16) if width == 64 else (lanes, 2, 8)


class _Vectors:
    """IR for vectors of ``lanes`` elements: loads and stores (masked to the first lanes at
    the right edge of a matrix) and broadcasts."""

    def __init__(self, builder, element, lanes, intp):
        self.builder, self.lanes, self.intp = builder, lanes, intp
        self.type = ir.VectorType(element, lanes)
        self.mask_type = ir.VectorType(ir.IntType(1), lanes)
        name = f"v{lanes}{'f64' if isinstance(element, ir.DoubleType) else 'f32'}.p0"
        ptr, i32 = self.type.as_pointer(), ir.IntType(32)
        module = builder.module
        self._masked_load = cgutils.get_or_insert_function(
            module, ir.FunctionType(self.type, [ptr, i32, self.mask_type, self.type]), "llvm.masked.load." + name)
        self._masked_store = cgutils.get_or_insert_function(
            module, ir.FunctionType(ir.VoidType(), [self.type, ptr, i32, self.mask_type]),
            "llvm.masked.store." + name)
        self._align = ir.Constant(i32, 4)

    def load(self, ptr, mask=None):
        ptr = self.builder.bitcast(ptr, self.type.as_pointer())
        if mask is None:
            return self.builder.load(ptr, align=4)
        return self.builder.call(self._masked_load, [ptr, self._align, mask, ir.Constant(self.type, None)])

    def store(self, value, ptr, mask=None):
        ptr = self.builder.bitcast(ptr, self.type.as_pointer())
        if mask is None:
            self.builder.store(value, ptr, align=4)
        else:
            self.builder.call(self._masked_store, [value, ptr, self._align, mask])

    def splat(self, value):
        """A vector with ``value`` in every lane."""
        b = self.builder
        undef = ir.Constant(ir.VectorType(value.type, self.lanes), ir.Undefined)
        first = b.insert_element(undef, value, ir.Constant(ir.IntType(32), 0))
        return b.shuffle_vector(first, undef, ir.Constant(ir.VectorType(ir.IntType(32), self.lanes),
                                                          [0] * self.lanes))

    def first(self, count):
        """The mask of the first ``count`` lanes (an intp)."""
        lane = ir.Constant(ir.VectorType(self.intp, self.lanes), list(range(self.lanes)))
        return self.builder.icmp_signed("<", lane, self.splat(count))


class _Products:
    """The IR of :func:`products_acc`: ``out`` in register blocks, column blocks outermost
    (a panel of ``B`` serves every row block while it is in cache), each block loading its
    outputs once, adding its products for every ``k`` and storing them once."""

    def __init__(self, context, builder, sig, args):
        self.b = builder
        self.intp = context.get_value_type(types.intp)
        self.arrays = [context.make_array(t)(context, builder, v) for t, v in zip(sig.args[:3], args[:3])]
        size = ir.Constant(self.intp, context.get_abi_sizeof(context.get_data_type(sig.args[0].dtype)))
        self.strides = [[builder.sdiv(s, size) for s in cgutils.unpack_tuple(builder, a.strides, 2)]
                        for a in self.arrays]
        self.k0, self.k1 = (context.cast(builder, v, t, types.intp) for v, t in zip(args[3:], sig.args[3:]))
        self.lanes, self.vectors, self.sums = _register_block(context, sig.args[0].dtype)
        element = context.get_value_type(sig.args[0].dtype)
        self.vec = _Vectors(builder, element, self.lanes, self.intp)
        self.acc = [[cgutils.alloca_once(builder, self.vec.type) for _ in range(self.vectors)]
                    for _ in range(self.rows(1))]

    def rows(self, n_vec):
        """Rows of a block ``n_vec`` vectors wide: a power of 2, at most 8, with about
        :attr:`sums` vectors of outputs (at least 8: a fused multiply-add takes 4 cycles
        and a core starts 2 a cycle, so 8 independent sums keep it busy)."""
        r = 1
        while r < 8 and 2 * r * n_vec <= self.sums:
            r *= 2
        return r

    def const(self, n):
        return ir.Constant(self.intp, n)

    def pointer(self, which, i, j):
        """Pointer to element ``(i, j)`` of ``out`` (0), ``A`` (1) or ``B`` (2)."""
        b = self.b
        si, sj = self.strides[which]
        return b.gep(self.arrays[which].data, [b.add(b.mul(i, si), b.mul(j, sj))])

    def block(self, i0, j0, rows, n_vec, mask):
        """Outputs ``i0 .. i0 + rows - 1`` by ``n_vec`` vectors from column ``j0`` (the last
        vector masked by ``mask`` unless it is None)."""
        b, vec, lanes = self.b, self.vec, self.lanes
        masks = [None] * (n_vec - 1) + [mask]
        out_ptr = [[self.pointer(0, b.add(i0, self.const(r)), b.add(j0, self.const(v * lanes)))
                    for v in range(n_vec)] for r in range(rows)]
        for r in range(rows):
            for v in range(n_vec):
                b.store(vec.load(out_ptr[r][v], masks[v]), self.acc[r][v])
        with cgutils.for_range_slice(b, self.k0, self.k1, self.const(1)) as (k, _):
            row = self.pointer(2, k, j0)
            x = [vec.load(b.gep(row, [self.const(v * lanes)]), masks[v]) for v in range(n_vec)]
            for r in range(rows):
                a = vec.splat(b.load(self.pointer(1, b.add(i0, self.const(r)), k)))
                for v in range(n_vec):
                    b.store(_mul_add_ir(b, a, x[v], b.load(self.acc[r][v])), self.acc[r][v])
        for r in range(rows):
            for v in range(n_vec):
                vec.store(b.load(self.acc[r][v]), out_ptr[r][v], masks[v])

    def column_block(self, j0, n_vec, mask):
        """Every row of ``out`` in columns from ``j0``: blocks of :meth:`rows` rows, then the
        rows left over in blocks of halving height (4, 2, 1 for 7 left)."""
        b, height = self.b, self.rows(n_vec)
        M = cgutils.unpack_tuple(b, self.arrays[0].shape, 2)[0]
        whole = b.mul(b.sdiv(M, self.const(height)), self.const(height))
        with cgutils.for_range_slice(b, self.const(0), whole, self.const(height)) as (i0, _):
            self.block(i0, j0, height, n_vec, mask)
        left = b.sub(M, whole)
        r = height // 2
        while r:
            with b.if_then(b.icmp_signed("!=", b.and_(left, self.const(r)), self.const(0))):
                self.block(b.add(whole, b.and_(left, self.const(-2 * r))), j0, r, n_vec, mask)
            r //= 2

    def emit(self):
        """Whole column blocks, then the last, narrower one (1 to ``vectors`` vectors, the
        last of them masked): one code path per width, chosen by a switch."""
        b = self.b
        N = cgutils.unpack_tuple(b, self.arrays[0].shape, 2)[1]
        span = self.const(self.lanes * self.vectors)
        whole = b.mul(b.sdiv(N, span), span)
        with cgutils.for_range_slice(b, self.const(0), whole, span) as (j0, _):
            self.column_block(j0, self.vectors, None)
        left = b.sub(N, whole)
        n_vec = b.sdiv(b.add(left, self.const(self.lanes - 1)), self.const(self.lanes))
        mask = self.vec.first(b.sub(left, b.mul(b.sub(n_vec, self.const(1)), self.const(self.lanes))))
        done = b.append_basic_block("products.done")
        switch = b.switch(n_vec, done)
        for n in range(1, self.vectors + 1):
            case = b.append_basic_block(f"products.last{n}")
            switch.add_case(self.const(n), case)
            with b.goto_block(case):
                self.column_block(whole, n, mask)
                b.branch(done)
        b.position_at_end(done)


@intrinsic
def _products_acc(typingctx, out, A, B, k0, k1):
    """``out[i, j] = mul_add(A[i, k], B[k, j], out[i, j])`` for ``k = k0 .. k1 - 1`` in turn
    (:func:`mul_add`: fused in float32): a product ``A B`` (``k`` in ``[k0, k1)``) added to
    ``out``, each output by itself in ``k`` order.

    Written in LLVM IR as a register-blocked matrix product: a block of outputs stays in
    vector registers while ``k`` runs, each step broadcasting one ``A[i, k]`` per row and
    loading one vector of ``B[k, :]`` per column vector.  Lanes are outputs, never parts of
    a sum, so the block's shape (:func:`_register_block`, chosen for the CPU) changes only
    the speed.  ``out`` and ``B`` C-contiguous, ``A`` any 2-D view (e.g. a transpose), all of
    one dtype, float32 or float64.
    """
    arrays = (out, A, B)
    if not (all(isinstance(t, types.Array) and t.ndim == 2 for t in arrays)
            and out.dtype == A.dtype == B.dtype and out.dtype in (types.float32, types.float64)
            and out.layout == B.layout == "C"):
        return None

    def codegen(context, builder, sig, args):
        _Products(context, builder, sig, args).emit()
        return context.get_dummy_value()

    return types.void(out, A, B, k0, k1), codegen
