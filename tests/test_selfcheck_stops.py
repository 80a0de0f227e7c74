"""The self-checks stop every runaway answer for certain and are not fooled by what an answer
does to numpy, by complex or huge numbers, or by a mask that scores nothing (issue 31, item 5).
The student's function runs in a fresh Python rebuilt from its source (tempnets.book.selfcheck)."""

from __future__ import annotations

import time

import numba
import numpy as np
import pytest

from tempnets.book.selfcheck import CheckFailed, check_function, check_value


def gamma_reference(d, T):
    return np.cumsum(d ** np.arange(T))


CASES = [(0.9, 5), (1.0, 4)]


def catches_the_time_limit(d, T):
    import time
    while True:
        try:
            time.sleep(0.5)
        except Exception:
            pass


def bare_except(d, T):
    import time
    while True:
        try:
            time.sleep(0.5)
        except:  # noqa: E722
            pass


def disables_the_alarm(d, T):
    import signal
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 0)
    while True:
        pass


@numba.njit("float64(float64)")  # compiled here, at import: its loop never gives the interpreter a turn
def forever(x):
    while x >= 0.0:
        x = x * 1.0
    return x


def compiled_loop(d, T):
    return forever(1.0)


@pytest.mark.parametrize("fn", [catches_the_time_limit, bare_except, disables_the_alarm, compiled_loop],
                         ids=lambda f: f.__name__)
def test_a_runaway_answer_is_stopped_with_a_clear_message(fn):
    start = time.perf_counter()
    with pytest.raises(CheckFailed, match=r"gamma \(test case 1\): stopped after 1 s without an answer"):
        check_function("gamma", fn, gamma_reference, CASES, time_limit=1.0)
    assert time.perf_counter() - start < 60


def test_an_answer_that_patches_numpy_fails_and_the_patch_stays_where_it_ran():
    original = np.allclose

    def patches(d, T):
        import numpy
        numpy.allclose = lambda *a, **k: True
        numpy.isfinite = lambda *a, **k: numpy.array(True)
        return numpy.zeros(T)

    with pytest.raises(CheckFailed, match="differs from the correct result"):
        check_function("gamma", patches, gamma_reference, CASES)
    assert np.allclose is original


def test_a_patch_made_before_the_check_does_not_fool_it(monkeypatch):
    monkeypatch.setattr(np, "allclose", lambda *a, **k: True)
    with pytest.raises(CheckFailed, match="differs from the correct result"):
        check_function("gamma", lambda d, T: np.zeros(T), gamma_reference, CASES)
    with pytest.raises(CheckFailed, match="you have 2 but the answer is 3"):
        check_value("count", 2, 3)


def test_complex_answers_are_refused_unless_their_imaginary_parts_are_zero(capsys):
    with pytest.raises(CheckFailed, match=r"returned complex numbers \(imaginary parts up to 5\), expected real"):
        check_function("gamma", lambda d, T: gamma_reference(d, T) + 5j, gamma_reference, CASES)
    with pytest.raises(CheckFailed, match="you have complex numbers"):
        check_value("count", 3 + 1j, 3)
    check_function("gamma", lambda d, T: gamma_reference(d, T) + 0j, gamma_reference, CASES)
    assert "✓ gamma" in capsys.readouterr().out


def test_numbers_too_large_for_a_float_are_said_in_one_line():
    with pytest.raises(CheckFailed, match="a number too large for a float") as info:
        check_function("gamma", lambda d, T: [10 ** 400] * T, gamma_reference, CASES)
    assert "\n" not in str(info.value)
    with pytest.raises(CheckFailed, match="a number too large for a float"):
        check_value("count", 10 ** 400, 3)


def test_an_answer_that_exits_or_raises_is_reported_and_the_check_goes_on(capsys):
    def exits(d, T):
        raise SystemExit(0)

    with pytest.raises(CheckFailed, match=r"your function raised SystemExit: 0"):
        check_function("gamma", exits, gamma_reference, CASES)

    def divides(d, T):
        print("trying", d)
        return 1 / 0

    with pytest.raises(CheckFailed, match=r"raised ZeroDivisionError: division by zero"):
        check_function("gamma", divides, gamma_reference, CASES)
    captured = capsys.readouterr()
    assert "trying 0.9" in captured.out and "ZeroDivisionError" in captured.err


def test_an_answer_may_use_its_notebooks_helpers_and_data(capsys):
    scale = np.array([1.0, 1.0])

    def helper(d, T):
        return gamma_reference(d, T)

    def answer(d, T):
        return helper(d, T) * scale[0]

    check_function("gamma", answer, gamma_reference, CASES)
    assert "✓ gamma: correct on 2 test case(s)" in capsys.readouterr().out


def test_the_lambda_gradient_check_refuses_a_mask_that_scores_nothing():
    from tempnets.models import tkrnn
    from tempnets.chapters import temporal_kernels as tk

    p = tkrnn.init_params(5, 6, 4, n_kernels=2, rng=6)
    x = np.eye(5)[np.random.default_rng(6).integers(0, 5, (9, 4))]
    t = np.random.default_rng(7).integers(0, 4, (9, 4))
    zeros = np.zeros(p["theta"].shape)
    with pytest.raises(CheckFailed, match="the gradient is zero everywhere"):
        tk.check_lambda_grad(zeros, p, x, t, np.zeros((9, 4)))
    with pytest.raises(CheckFailed, match="differ from the answer"):
        tk.check_lambda_grad(zeros, p, x, t, np.ones((9, 4)))


def test_an_answer_that_ends_its_process_is_reported_and_this_one_goes_on():
    def ends(d, T):
        import os
        os._exit(3)

    with pytest.raises(CheckFailed, match=r"the process running your function ended without an answer "
                                          r"\(exit status 3\)"):
        check_function("gamma", ends, gamma_reference, CASES)
