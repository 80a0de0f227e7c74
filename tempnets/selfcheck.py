"""Self-checks for the book's coding exercises: grade a student's answer with a clear message.

A chapter's check functions (``check_<what>(answer)``) live in its chapter module
(:mod:`tempnets.chapters`) and are built from the two graders here.  A check
prints one line starting with ``✓`` when the answer is right and raises
:class:`CheckFailed` (an ``AssertionError``, so a failing check fails nbval)
with a message that says what was wrong and gives a hint when it is wrong.
"""

from __future__ import annotations

from typing import Callable

import numpy as np


class CheckFailed(AssertionError):
    """A student's answer is not right; the message says how and gives a hint."""


def check_value(name: str, answer, expected, *, rtol: float = 1e-6, atol: float = 0.0,
                hint: str = "") -> None:
    """Check that ``answer`` equals ``expected`` (numbers or arrays, to ``rtol``/``atol``).

    Raises
    ------
    CheckFailed
        If ``answer`` is missing (``...``/``None``), has the wrong shape, or differs.
    """
    tail = f" Hint: {hint}" if hint else ""
    if answer is ... or answer is None:
        raise CheckFailed(f"{name}: no answer yet (replace the `...` with your answer).{tail}")
    try:
        got = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        raise CheckFailed(f"{name}: expected a number or an array of numbers, got "
                          f"{type(answer).__name__} {answer!r}.{tail}") from None
    want = np.asarray(expected, dtype=float)
    if got.shape != want.shape:
        raise CheckFailed(f"{name}: expected shape {want.shape}, got {got.shape}.{tail}")
    if not np.all(np.isfinite(got)):
        raise CheckFailed(f"{name}: your answer has NaN or infinite entries.{tail}")
    if not np.allclose(got, want, rtol=rtol, atol=atol):
        worst = float(np.max(np.abs(got - want)))
        shown = f"{float(got):.6g} but the answer is {float(want):.6g}" if got.ndim == 0 else \
            f"values that differ from the answer by up to {worst:.3g}"
        raise CheckFailed(f"{name}: you have {shown}.{tail}")
    print(f"✓ {name}: correct")


def check_function(name: str, fn: Callable, reference: Callable, cases, *, rtol: float = 1e-6,
                   atol: float = 1e-10, hint: str = "") -> None:
    """Check that ``fn(*case)`` equals ``reference(*case)`` for every argument tuple in ``cases``.

    Results may be numbers, arrays or tuples/lists of arrays (compared item by item).
    """
    tail = f" Hint: {hint}" if hint else ""
    if not callable(fn):
        raise CheckFailed(f"{name}: expected a function, got {type(fn).__name__}.{tail}")
    for k, case in enumerate(cases):
        try:
            got = fn(*case)
        except NotImplementedError:
            raise CheckFailed(f"{name}: not written yet (it raises NotImplementedError).{tail}") from None
        want = reference(*case)
        gots = got if isinstance(got, (tuple, list)) else (got,)
        wants = want if isinstance(want, (tuple, list)) else (want,)
        if len(gots) != len(wants):
            raise CheckFailed(f"{name}: returned {len(gots)} value(s), expected {len(wants)}.{tail}")
        for i, (g, w) in enumerate(zip(gots, wants)):
            label = f"{name} (test case {k + 1}" + (f", output {i + 1})" if len(wants) > 1 else ")")
            g, w = np.asarray(g, dtype=float), np.asarray(w, dtype=float)
            if g.shape != w.shape:
                raise CheckFailed(f"{label}: expected shape {w.shape}, got {g.shape}.{tail}")
            if not np.allclose(g, w, rtol=rtol, atol=atol):
                worst = float(np.max(np.abs(g - w)))
                raise CheckFailed(f"{label}: differs from the correct result by up to {worst:.3g}.{tail}")
    print(f"✓ {name}: correct on {len(cases)} test case(s)")
