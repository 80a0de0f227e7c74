"""Same seed, same numbers, on another CPU.

Another machine is simulated two ways: the compiled kernels are compiled for a
different instruction set (``NUMBA_CPU_NAME=generic``: no AVX, no FMA, other
vector widths), and numpy's BLAS runs another of OpenBLAS's kernels
(``OPENBLAS_CORETYPE``).  Each runs in its own process with an empty numba cache
(a cache compiled before a change to :mod:`tempnets.portable` would be stale:
numba checks only the file of the function it caches).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tempnets import portable

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


BLAS_TOLERANCE = {"RNN": 1e-12, "TKRNN": 1e-12}
"""Largest weight difference after 200 Adam updates under two OpenBLAS kernels."""


def test_blas_models_under_two_openblas_kernels(tmp_path):
    """The RNN, LSTM and TKRNN multiply matrices with numpy's BLAS, whose kernels sum in
    an order of their own: the same run differs in the last bits between CPUs.  After
    200 updates (book-scale sizes) the RNN's and TKRNN's weights agree within
    1e-12; the LSTM's trajectories separate (1e-16 after 20 updates, 1e-12 after 50,
    ~0.1 after 200), so its results are like runs from a perturbed start — which is
    what ``reproduce --perturb`` checks the verdicts against."""
    runs = {core: _run(tmp_path, core, "--blas", OPENBLAS_CORETYPE=core)
            for core in ("Haswell", "Prescott")}
    a, b = (_result(p) for p in runs.values())
    for name, tol in BLAS_TOLERANCE.items():
        diff = np.abs(np.subtract(a[name], b[name])).max()
        assert diff <= tol, (name, diff)
    assert np.isfinite(a["LSTM"]).all() and np.isfinite(b["LSTM"]).all()


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

