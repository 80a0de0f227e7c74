"""What a benchmark's "peak" and "floor" are measured against, on this machine, honestly.

A ratio such as "the TKRNN update runs at 59% of peak" means something only if the peak is
the one the CPU would reach on its own.  Environment variables can force a slower code path
(``OPENBLAS_CORETYPE=Prescott`` makes OpenBLAS use SSE3 kernels: a float32 2048³ product at
46 instead of 160 GFLOP/s; ``NUMBA_CPU_NAME=generic`` compiles numba's kernels without AVX),
and a benchmark run under them would divide by a peak that is too low.  So:

- :func:`blas_peak` measures the float32 matrix product in a fresh Python process with those
  variables removed, and names the BLAS kernel it used (from threadpoolctl);
- :func:`forced` lists the variables set in this process, so a line can say what it ran under;
- :func:`theoretical_peak` is the CPU's peak from its vector width and clock, with the one
  number Linux does not report (FMA units per core) stated as an assumption.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

FORCING = ("OPENBLAS_CORETYPE", "MKL_DEBUG_CPU_TYPE", "MKL_ENABLE_INSTRUCTIONS", "MKL_CBWR",
           "NPY_DISABLE_CPU_FEATURES", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")
"""Environment variables that make BLAS, numpy or numba pick code for another CPU than this one."""

_PEAK = """
import json, time, numpy as np, threadpoolctl
with threadpoolctl.threadpool_limits(1):
    a = np.random.default_rng(0).standard_normal(({n}, {n})).astype(np.float32)
    a @ a
    best = float("inf")
    for _ in range({repeat}):
        t0 = time.perf_counter()
        a @ a
        best = min(best, time.perf_counter() - t0)
    kernels = sorted({{i.get("architecture") or i.get("internal_api") for i in
                       threadpoolctl.threadpool_info() if i["user_api"] == "blas"}})
print(json.dumps({{"gflops": 2 * {n} ** 3 / best / 1e9, "kernel": ", ".join(map(str, kernels))}}))
"""


def clean_environment() -> dict:
    """This process's environment without the variables of :data:`FORCING`, one BLAS thread."""
    env = {k: v for k, v in os.environ.items() if k not in FORCING}
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


def forced() -> str:
    """The forcing variables set in this process (``"none"`` when there are none)."""
    return ", ".join(f"{k}={os.environ[k]}" for k in FORCING if k in os.environ) or "none"


def blas_peak(repeat: int = 3, n: int = 2048) -> tuple[float, str]:
    """``(GFLOP/s, kernel)``: a float32 ``n``³ product on one thread, measured in a fresh
    process that picks its BLAS kernel for this CPU (see the module docstring)."""
    out = subprocess.run([sys.executable, "-c", _PEAK.format(n=int(n), repeat=max(1, int(repeat)))],
                         env=clean_environment(), capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    return got["gflops"], got["kernel"]


def _cpuinfo() -> dict:
    info = {}
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return info


def theoretical_peak(fma_units: int = 2) -> tuple[dict, str] | tuple[None, str]:
    """``({"float32": GFLOP/s, "float64": GFLOP/s}, how)`` of one core, or ``(None, why)``.

    lanes (vector width / element size) × 2 (a fused multiply-add is two operations) ×
    ``fma_units`` × clock.  The vector width and clock come from ``/proc/cpuinfo``;
    ``fma_units`` (vector FMA pipes per core) is not reported by Linux: 2 is right for most
    x86 server cores since Haswell, and some cores split a 512-bit operation into two
    256-bit halves (AMD Zen 4), which halves the true peak.  ``how`` says all of this.
    """
    info = _cpuinfo()
    flags = set(info.get("flags", "").split())
    try:
        mhz = float(info["cpu MHz"])
    except (KeyError, ValueError):
        return None, "no clock in /proc/cpuinfo"
    bits = 512 if "avx512f" in flags else 256 if "avx" in flags else 128
    fma = "fma" in flags or "avx512f" in flags
    per_op = 2 if fma else 1
    peak = {name: bits // size * per_op * fma_units * mhz / 1e3
            for name, size in (("float32", 32), ("float64", 64))}
    how = (f"{bits}-bit vectors{', FMA' if fma else ''}, {fma_units} vector units per core "
           f"(assumed), {mhz:.0f} MHz (/proc/cpuinfo; turbo may be higher)")
    return peak, how


def describe() -> list[str]:
    """Lines for a benchmark's header: the CPU's theoretical peak and what this process was forced to."""
    peak, how = theoretical_peak()
    lines = [f"theoretical peak, one core: {peak['float32']:.0f} GFLOP/s float32, "
             f"{peak['float64']:.0f} float64 ({how})" if peak else f"theoretical peak: unknown ({how})"]
    lines.append(f"variables forcing another CPU's code in this process: {forced()}")
    return lines
