"""The one timing rule of every benchmark: the best of several runs (the machine may be shared)."""

from __future__ import annotations

import time


def best_time(fn, repeat: int):
    """``(seconds, output)``: the shortest wall time of ``repeat`` calls of ``fn()`` and its last output."""
    best, out = float("inf"), None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out
