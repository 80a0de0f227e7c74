"""Issue 35 item 4: the benchmarks' peak is the one this CPU reaches on its own.

``benchmarks/machine.py`` measures the BLAS peak in a fresh process with the variables that
force another CPU's code removed; a bench run under ``OPENBLAS_CORETYPE=Prescott`` must still
divide by this CPU's peak, and say what it was forced to.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import machine  # noqa: E402

KERNEL = ("import json, numpy, threadpoolctl; print(json.dumps(sorted(i.get('architecture') or "
          "i['internal_api'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas')))")


def _kernel(env):
    out = subprocess.run([sys.executable, "-c", KERNEL], env=env, capture_output=True, text=True, check=True)
    return ", ".join(json.loads(out.stdout))


def test_the_peak_is_measured_with_the_kernel_this_cpu_picks(monkeypatch):
    bare = {k: v for k, v in os.environ.items() if k not in machine.FORCING}
    own = _kernel(bare)
    forced = _kernel({**bare, "OPENBLAS_CORETYPE": "Prescott"})
    if forced == own:
        pytest.skip(f"this CPU's own OpenBLAS kernel is already {own}")
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Prescott")
    gflops, kernel = machine.blas_peak(repeat=1, n=128)
    assert kernel == own != forced
    assert gflops > 0
    assert machine.forced() == "OPENBLAS_CORETYPE=Prescott"
    monkeypatch.delenv("OPENBLAS_CORETYPE")
    assert machine.forced() == "none"


def test_theoretical_peak_states_its_assumption():
    peak, how = machine.theoretical_peak()
    if peak is None:
        pytest.skip(how)
    assert peak["float32"] == pytest.approx(2 * peak["float64"])
    assert "assumed" in how and "MHz" in how
    assert any("theoretical peak" in line for line in machine.describe())
