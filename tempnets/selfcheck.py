"""Self-checks for the book's coding exercises: grade a student's answer with a clear message.

A chapter's check functions (``check_<what>(answer)``) live in its chapter module
(:mod:`tempnets.chapters`) and are built from the two graders here.  A check
prints one line starting with ``✓`` when the answer is right and raises
:class:`CheckFailed` (an ``AssertionError``, so a failing check fails nbval)
with a message that says what was wrong and gives a hint when it is wrong.
"""

from __future__ import annotations

import contextlib
import copy
import signal
import threading
from typing import Callable

import numpy as np

TIME_LIMIT = 10.0
"""Seconds a student's function may take on one test case (see :func:`check_function`)."""


class CheckFailed(AssertionError):
    """A student's answer is not right; the message says how and gives a hint."""


class _TooSlow(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float | None):
    """Raise :class:`_TooSlow` inside the block after ``seconds`` (``SIGALRM``: the main thread
    of a Unix process, as in Jupyter; elsewhere, or with ``None``, no limit)."""
    usable = (seconds and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def stop(signum, frame):
        raise _TooSlow

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _numbers(label: str, value, want_shape, tail: str, what: str) -> np.ndarray:
    """``value`` as a float array of ``want_shape``, or :class:`CheckFailed` saying in one
    sentence what is wrong (None, a string or dict, a wrong shape, NaN)."""
    if value is None:
        raise CheckFailed(f"{label}: {what} None — did you forget `return`?{tail}")
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    if isinstance(value, (str, bytes, dict, set)) or callable(value):
        raise CheckFailed(f"{label}: {what} a {type(value).__name__} ({shown}), expected "
                          f"{'a number' if want_shape == () else f'an array of shape {want_shape}'}.{tail}")
    try:
        got = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise CheckFailed(f"{label}: {what} {type(value).__name__} {shown}, expected a number or an "
                          f"array of numbers.{tail}") from None
    if got.shape != want_shape:
        raise CheckFailed(f"{label}: expected shape {want_shape}, got {got.shape}.{tail}")
    if not np.all(np.isfinite(got)):
        raise CheckFailed(f"{label}: your result has NaN or infinite entries.{tail}")
    return got


def check_value(name: str, answer, expected, *, rtol: float = 1e-6, atol: float = 0.0,
                hint: str = "") -> None:
    """Check that ``answer`` equals ``expected`` (numbers or arrays, to ``rtol``/``atol``).

    A list or tuple is accepted where an array is expected when it converts cleanly.

    Raises
    ------
    CheckFailed
        If ``answer`` is missing (``...``/``None``), not numbers, of the wrong shape, not
        finite, or differs.
    """
    tail = f" Hint: {hint}" if hint else ""
    if answer is ... or answer is None:
        raise CheckFailed(f"{name}: no answer yet (replace the `...` with your answer).{tail}")
    want = np.asarray(expected, dtype=float)
    got = _numbers(name, answer, want.shape, tail, "you have")
    if not np.allclose(got, want, rtol=rtol, atol=atol):
        worst = float(np.max(np.abs(got - want)))
        shown = f"{float(got):.6g} but the answer is {float(want):.6g}" if got.ndim == 0 else \
            f"values that differ from the answer by up to {worst:.3g}"
        raise CheckFailed(f"{name}: you have {shown}.{tail}")
    print(f"✓ {name}: correct")


def check_function(name: str, fn: Callable, reference: Callable, cases, *, rtol: float = 1e-6,
                   atol: float = 1e-10, hint: str = "", time_limit: float | None = TIME_LIMIT) -> None:
    """Check that ``fn(*case)`` equals ``reference(*case)`` for every argument tuple in ``cases``.

    Results may be numbers, arrays or tuples/lists of arrays (compared item by item; when
    the reference returns one array, a list or tuple that converts to it is accepted).  The
    reference runs first, and each function gets its own deep copy of the case, so an
    answer that changes its arguments in place can neither be wrongly rejected nor fool
    the reference.  ``fn`` is stopped after ``time_limit`` seconds per case (``None``: no
    limit; the limit needs the main thread of a Unix process, as in Jupyter).
    """
    tail = f" Hint: {hint}" if hint else ""
    if not callable(fn):
        raise CheckFailed(f"{name}: expected a function, got {type(fn).__name__}.{tail}")
    for k, case in enumerate(cases):
        want = reference(*copy.deepcopy(case))
        try:
            with _time_limit(time_limit):
                got = fn(*copy.deepcopy(case))
        except NotImplementedError:
            raise CheckFailed(f"{name}: not written yet (it raises NotImplementedError).{tail}") from None
        except _TooSlow:
            raise CheckFailed(f"{name} (test case {k + 1}): stopped after {time_limit:g} s without an "
                              f"answer — does a loop never end?{tail}") from None
        several = isinstance(want, (tuple, list))
        wants = want if several else (want,)
        if several:
            if not isinstance(got, (tuple, list)) or len(got) != len(wants):
                n = len(got) if isinstance(got, (tuple, list)) else 1
                raise CheckFailed(f"{name}: returned {n} value(s), expected {len(wants)}.{tail}")
            gots = got
        elif isinstance(got, tuple) and np.shape(want) != (len(got),):
            raise CheckFailed(f"{name}: returned {len(got)} value(s), expected 1.{tail}")
        else:
            gots = (got,)
        for i, (g, w) in enumerate(zip(gots, wants)):
            label = f"{name} (test case {k + 1}" + (f", output {i + 1})" if len(wants) > 1 else ")")
            w = np.asarray(w, dtype=float)
            g = _numbers(label, g, w.shape, tail, "your function returned")
            if not np.allclose(g, w, rtol=rtol, atol=atol):
                worst = float(np.max(np.abs(g - w)))
                raise CheckFailed(f"{label}: differs from the correct result by up to {worst:.3g}.{tail}")
    print(f"✓ {name}: correct on {len(cases)} test case(s)")
