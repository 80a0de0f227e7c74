"""Binder sessions start warm (issue 35, item 3): ``postBuild`` compiles the chapters' kernels
into numba's cache while the image is built (``python -m tempnets.chapters.warm_up``)."""

import importlib
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CALLED_FROM_KERNELS_ONLY = {
    # compiled into the kernels that call them (numba inlines a call between jitted functions),
    # never called from Python, so they never get a cache entry of their own
    "portable._dot4", "portable._reduced_exp", "portable_math._negligible_to_zero_f32",
    "portable_math._same", "portable_math._exp_nonpositive_f32", "portable_math._log_scaled",
    "rnn_baselines._flat",
}


def cached_kernels() -> set[str]:
    """``file.name`` of every ``cache=True`` numba kernel defined in tempnets (``portable._dot4``:
    numba names a cache index after the file the kernel is in, not its package)."""
    import numba
    from numba.core.caching import NullCache

    import tempnets

    found = set()
    for info in pkgutil.walk_packages(tempnets.__path__, "tempnets."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if (isinstance(obj, numba.core.registry.CPUDispatcher) and obj.__module__ == info.name
                    and not isinstance(obj._cache, NullCache)):
                found.add(f"{info.name.rsplit('.', 1)[1]}.{obj.__qualname__}")  # numba's name: the file's
    return found


def test_postbuild_warms_the_cache_after_installing():
    lines = (ROOT / "postBuild").read_text().splitlines()
    assert lines.index("pip install --no-deps -e .") < lines.index("python -m tempnets.chapters.warm_up")


@pytest.mark.long  # a minute or two of compiling: make test-long (.ci/run runs it)
@pytest.mark.timeout(1800)
def test_the_warm_up_compiles_every_kernel_called_from_python(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "tempnets.chapters.warm_up"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "compiled serial recall" in done.stdout
    # numba names an index file <module>.<qualname>-<line>.py<version>.nbi
    indexed = {p.name.split("-")[0] for p in tmp_path.rglob("*.nbi")}
    kernels = cached_kernels()
    assert CALLED_FROM_KERNELS_ONLY <= kernels, "a kernel listed as inlined-only no longer exists"
    missing = kernels - CALLED_FROM_KERNELS_ONLY - indexed
    assert not missing, f"the warm-up (tempnets.chapters.warm_up.warm_numba_cache) compiles none of {sorted(missing)}"
