"""Same seed, same numbers, on another CPU.

Another machine is simulated two ways: the compiled kernels are compiled for a
different instruction set (``NUMBA_CPU_NAME=generic``: no AVX, no FMA, other
vector widths), and numpy's BLAS runs another of OpenBLAS's kernels
(``OPENBLAS_CORETYPE``), which must change nothing since no model uses BLAS.  Each
runs in its own process with an empty numba cache (a cache compiled before a change
to :mod:`tempnets._numerics.portable` would be stale: numba checks only the file of the function
it caches).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from reference_fma import fma32
from tempnets._numerics import portable
from tempnets._numerics import portable_math as pm

HERE = Path(__file__).parent


def _run(tmp_path, name, *args, **env):
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / name), **env}
    return subprocess.Popen([sys.executable, str(HERE / "portable_runs.py"), *args], cwd=HERE,
                            env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _result(proc):
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out)


def test_compiled_kernels_give_the_same_weights_for_another_instruction_set(tmp_path):
    """SRN, BPTT (fused and general kernels), PA, focused/full (traces and BPTT), fast
    weights and RTRL: bit-identical weights after short training runs (~45 s, two
    processes in parallel, each compiling every kernel)."""
    host = _run(tmp_path, "host")
    generic = _run(tmp_path, "generic", NUMBA_CPU_NAME="generic")
    a, b = _result(host), _result(generic)
    assert len(a) == 10
    assert a == b


FLOAT64_DIGESTS = {
    "LSTM float64": "eb70afb2d0df18f8", "LSTM float64 (paper size)": "e3620c7aff273b0b",
    "RNN float64": "9fc5e094a171a624", "TKRNN float64 (paper size)": "fe58e91e28b912af",
    "TKRNN+2 float64": "4da76e98eb318626"}
"""``portable_runs.py --serial-recall``'s float64 digests as the code gave them before float32
took fused multiply-adds (commit 6af28cf): the arithmetic the book's float64 records were
computed with, kept to the last bit."""


def test_serial_recall_models_give_the_same_bits_for_another_instruction_set_and_blas(tmp_path):
    """TKRNN^{+2}, RNN and LSTM (``optim.train``: forward, loss, backward, clipping, Adam),
    float64 and float32, 200 updates at book-scale sizes and 2 of the TKRNN and the LSTM at
    the paper's: bit-identical weights, losses and gradient norms when the kernels are
    compiled for another instruction set (no AVX, no FMA: a float32 fused multiply-add is
    then a call to the C library's ``fmaf``, a vector of them a row of calls), and when
    numpy's BLAS runs another OpenBLAS kernel (the models use no BLAS; the numpy code
    they replaced gave six different digests under Prescott and Haswell, the LSTM's
    weights ~0.1 apart after 200 updates).  float64 gives the digests it gave before
    float32 changed (:data:`FLOAT64_DIGESTS`).  About a minute: two processes in parallel, each
    compiling every kernel, then one reusing the host's compiled kernels."""
    runs = {"host": _run(tmp_path, "host", "--serial-recall"),
            "generic": _run(tmp_path, "generic", "--serial-recall", NUMBA_CPU_NAME="generic")}
    host, generic = (_result(p) for p in runs.values())
    prescott = _result(_run(tmp_path, "host", "--serial-recall", OPENBLAS_CORETYPE="Prescott"))
    assert len(host) == 10
    assert host == generic
    assert host == prescott
    assert {k: v for k, v in host.items() if "float64" in k} == FLOAT64_DIGESTS


def _ulps(a, b):
    return np.max(np.abs(a - b) / np.spacing(np.abs(b)))


def test_exp_log_tanh_are_within_a_few_ulp():
    """portable_math's libm-free functions against numpy's, and at their edges."""
    gen = np.random.default_rng(0)
    vec = lambda f, a: np.array([f(v) for v in a])  # noqa: E731
    x = np.concatenate([gen.uniform(-700, 700, 3000), gen.uniform(-1, 1, 3000), [0.0, 1e-300]])
    assert _ulps(vec(pm.exp, x), np.exp(x)) <= 4
    assert pm.exp(-800.0) == 0.0 and pm.exp(710.0) == np.inf and pm.exp(0.0) == 1.0
    pos = np.concatenate([np.exp(gen.uniform(-700, 700, 3000)), gen.uniform(1, 64, 3000),
                          [1.0, 2.0]])
    assert _ulps(vec(pm.log, pos), np.log(pos)) <= 4
    assert pm.log(1.0) == 0.0
    u = np.concatenate([gen.uniform(-20, 20, 3000), gen.uniform(-0.2, 0.2, 3000),
                        gen.uniform(-1e-8, 1e-8, 100), [0.0]])
    assert _ulps(vec(pm.tanh, u), np.tanh(u)) <= 8  # small arguments keep relative accuracy
    assert pm.tanh(400.0) == 1.0 and pm.tanh(-400.0) == -1.0 and np.isnan(pm.tanh(np.nan))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_products_and_sums_are_their_loops_in_the_arrays_dtype(dtype):
    """Each product and sum of portable_math equals, bit for bit, numpy evaluating the same
    order one step at a time (element-wise IEEE operations; in float32 a fused multiply-add,
    :func:`reference_fma.fma32`) in the same dtype: the order is the one written down, and
    float32 stays float32 (a float64 accumulator would differ).  Odd sizes exercise the
    tails of the register blocks (more in ``test_portable_float32.py``)."""
    def mul_add(a, b, c):
        return fma32(a, b, c) if dtype == np.float32 else a * b + c

    gen = np.random.default_rng(1)
    A = gen.standard_normal((7, 11)).astype(dtype)
    B = gen.standard_normal((11, 13)).astype(dtype)
    ref = np.zeros((7, 13), dtype)
    for k in range(11):
        ref = mul_add(A[:, k:k + 1], B[k], ref)
    got = pm.matmul(A, B)
    assert got.dtype == dtype and np.array_equal(got, ref)
    assert np.array_equal(pm.matmul(np.ascontiguousarray(A.T).T, B), ref)  # A as a view
    D, E = gen.standard_normal((9, 5)).astype(dtype), gen.standard_normal((9, 6)).astype(dtype)
    ref = np.zeros((5, 6), dtype)
    for m in range(9):
        ref = mul_add(D[m][:, None], E[m][None, :], ref)
    got = pm.outer(D, E)
    assert got.dtype == dtype and np.array_equal(got, ref)
    ref = np.zeros(5, dtype)
    ref2 = np.zeros(5, dtype)
    for m in range(9):
        ref += D[m]
        ref2 = mul_add(D[m], E[m, :5], ref2)
    assert np.array_equal(pm.colsum(D), ref) and pm.colsum(D).dtype == dtype
    assert np.array_equal(pm.colsum_products(D, E[:, :5]), ref2)
    v = gen.standard_normal(23).astype(dtype).astype(np.float64)
    parts = [sum(v[j] * v[j] for j in range(r, 20, 4)) for r in range(4)]
    parts[0] += sum(v[j] * v[j] for j in range(20, 23))
    assert pm.sum_of_squares(v.astype(dtype)) == (parts[0] + parts[1]) + (parts[2] + parts[3])


def test_float32_models_compute_in_float32():
    """numba types every variable of the models' kernels from its arguments: for float32
    arrays nothing is float64 (the logistic, tanh and exp are float32 functions too). A
    literal 1.0 in a formula would show up here."""
    import numba

    from tempnets.models import rnn_baselines as rb
    from tempnets.models import tkrnn

    for kernel, args in {
        tkrnn._forward_states: "a2 b1 b1 a3 n a3 a3", tkrnn._backward_states: "a2 b1 a3 a3 n a3 a3",
        tkrnn._kernel_step: "a2 b1 a2 a2 a2 n", tkrnn._decay_add: "a2 b1 a2 a2",
        tkrnn._logistic_delta: "a2 a2 a2 n",
        rb._rnn_states: "a2 b1 a3", rb._rnn_deltas: "a2 a3 a3 a3",
        rb._lstm_states: "a3 a2 a3 a3 a4 a3", rb._lstm_deltas: "a3 a3 a4 a3 a3 a4",
        rb._cell_step: "b1 b1 b1 b1 b1 b1 b1 b1", rb._cell_deltas: "t4 b1 b1 b1 t4 b1 b1",
        pm._matmul_acc: "a2 a2 a2", pm._outer_acc: "a2 a2 a2", pm._colsum_products_acc: "b1 a2 a2",
        pm._logistic_into: "b1 b1", pm._tanh_into: "b1 b1",
    }.items():
        types = {"b1": numba.float32[::1], "a2": numba.float32[:, ::1],
                 "a3": numba.float32[:, :, ::1], "a4": numba.float32[:, :, :, ::1],
                 "t4": numba.types.UniTuple(numba.float32[::1], 4), "n": numba.int64}
        fresh = numba.njit(kernel.py_func)  # compiled here: a cached kernel has no type annotation
        fresh.compile(tuple(types[a] for a in args.split()))
        (cres,) = fresh.overloads.values()
        wide = [k for k, v in cres.type_annotation.typemap.items() if "float64" in str(v)]
        assert not wide, (kernel.py_func.__name__, wide)


def test_finite_does_not_depend_on_the_summation_order():
    """``portable.finite`` keeps ``reassoc``: every order gives the same answer."""
    gen = np.random.default_rng(0)
    for n in (1, 3, 17, 1000):
        a = gen.standard_normal(n) * 1e300
        assert portable.finite(a)
        for bad in (np.inf, -np.inf, np.nan):
            for i in {0, n // 2, n - 1}:
                b = a.copy()
                b[i] = bad
                assert not portable.finite(b)
                assert not portable.finite(b[::-1].copy())
        assert portable.finite(np.full(n, 1.7e308))  # x * 0 is 0 for every finite x

