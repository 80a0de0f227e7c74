"""A float32 fused multiply-add computed by numpy alone, exactly: the reference that the
compiled kernels' float32 products are tested against (independent of LLVM and the CPU).

``a * b`` of two float32 is exact in float64 (48 significant bits); ``s = a b + c`` rounded to
float64 and its exact error ``e`` (``a b + c = s + e``, Knuth's TwoSum) give the exact sum.
Rounding ``s`` to float32 is then the correct rounding of ``s + e`` except when ``s`` is
exactly halfway between two float32 (``|e|`` is far below half a float32 ulp, so no other
float32 rounding boundary lies between ``s`` and ``s + e``): then the sign of ``e`` decides.
Normal numbers only (no overflow, no subnormal results), which is what the tests draw.
"""

import numpy as np


def fma32(a, b, c):
    """``a * b + c`` rounded once to float32 (arrays broadcast)."""
    a, b, c = (np.asarray(v, np.float32).astype(np.float64) for v in (a, b, c))
    p = a * b  # exact
    s = p + c
    v = s - p
    e = (p - (s - v)) + (c - v)  # exact: p + c = s + e
    r = s.astype(np.float32)
    other = np.nextafter(r, np.where(s > r, np.float32(np.inf), np.float32(-np.inf)))
    halfway = (s != r) & (s == (r.astype(np.float64) + other.astype(np.float64)) / 2) & (e != 0)
    up = np.maximum(r, other)
    down = np.minimum(r, other)
    return np.where(halfway, np.where(e > 0, up, down), r).astype(np.float32)
