"""The chapter's self-check: the attention mask of PA units, and its checker."""

from __future__ import annotations

import numpy as np

from ..._numerics import checks
from ..._numerics.checks import count
from ...models.srn import check_attention


# ----------------------------------------------------------------------------- self-checks
def attention_mask(period, phase, n_steps: int) -> np.ndarray:
    """``(n_steps, n_hidden)`` booleans: unit ``k`` is attentive at step ``t`` iff ``(t - phase_k) mod period_k = 0``."""
    dims = {}
    period = checks.array("period", period, ("n_hidden",), dims, dtype="int")
    phase = checks.array("phase", phase, ("n_hidden",), dims, dtype="int")
    check_attention(period, phase, period.size)
    n_steps = count("n_steps", n_steps, 0, 10**7)
    checks.memory(n_steps * period.size, f"attention_mask of {n_steps:,} steps", itemsize=1)
    t = np.arange(n_steps)[:, None]
    return (t - np.asarray(phase)) % np.asarray(period) == 0


def check_attention_mask(fn) -> None:
    """Check ``fn(period, phase, n_steps)`` against :func:`attention_mask` on O'Connell's pattern and others."""
    from ...book.selfcheck import check_function
    from ...models.srn import pa_attention

    cases = [(*pa_attention(8, 7, 7), 10), (*pa_attention(8, 7, 3), 9), (*pa_attention(8, 7, 14), 16),
             (np.array([1, 2, 4, 8]), np.array([0, 1, 3, 5]), 12)]
    check_function("attention mask", fn, attention_mask, cases, atol=0.0,
                   hint="steps count from 0 (the input B); one row per step, one column per unit; "
                        "a unit with phase q and period p is attentive at q, q + p, q + 2p, ...")

