"""The cost of a gradient by the traces and by BPTT (the chapter's operation counts;
:mod:`tempnets.chapters.focused_backprop`)."""

from __future__ import annotations

from ..._numerics import checks
from ..._numerics.checks import count

# ----------------------------------------------------------------------------- cost

def operation_counts(n_in: int, n_ctx: int, n_out: int, lengths) -> dict:
    """Floating-point operations (multiplies and adds; a logistic counts 4) of one batch
    gradient of a focused network (eq. 1) by the traces and by BPTT, one target per sequence.

    Per step both run the forward pass, ``2nm + 7n`` (n context units, m inputs; the bias
    is a weight).  The traces add s', α, β, γ: ``3n(m+1) + 6n``.  BPTT instead stores the
    step and, going back, forms ``δ s'``, the weight gradients and ``d δ``: ``2n(m+1) + 6n``.
    At the target both compute the outputs and their error, ``4on + 5o``; the traces then
    multiply the error into them once, ``2n(m+1) + 4n``.  Returns the totals and their ratio.
    """
    n, m, o = (count(k, v, 1, 10**6) for k, v in (("n_ctx", n_ctx), ("n_in", n_in), ("n_out", n_out)))
    lengths = checks.array("lengths", lengths, (None,), low=1.0, high=1e12)
    steps, seqs = lengths.sum(), lengths.size
    forward = (2 * n * m + 7 * n) * steps + (2 * o * n + 4 * o) * seqs
    traces = forward + (3 * n * (m + 1) + 6 * n) * steps + (2 * o * n + o + 2 * n * (m + 1) + 4 * n) * seqs
    bptt = forward + (2 * n * (m + 1) + 6 * n) * steps + (2 * o * n + o) * seqs
    return {"traces": int(traces), "bptt": int(bptt), "ratio": float(traces / bptt)}
