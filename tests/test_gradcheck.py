import numpy as np
import pytest

from tempnets.models.gradcheck import (GradientCheckError, check_directional, check_gradient,
                                numerical_gradient, relative_error)


def quadratic(A):
    return lambda x: 0.5 * x @ A @ x


def test_numerical_gradient_of_a_quadratic():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((4, 4))
    A = M + M.T
    x = rng.standard_normal(4)
    np.testing.assert_allclose(numerical_gradient(quadratic(A), x), A @ x, rtol=1e-7, atol=1e-9)


def test_numerical_gradient_does_not_modify_x():
    x = np.array([1.0, 2.0])
    numerical_gradient(lambda v: float(np.sum(np.sin(v))), x)
    assert np.array_equal(x, [1.0, 2.0])


def test_correct_gradient_passes_for_a_matrix_parameter():
    W = np.random.default_rng(1).standard_normal((3, 2))
    err = check_gradient(lambda w: float(np.sum(np.tanh(w) ** 2)), 2 * np.tanh(W) / np.cosh(W) ** 2, W)
    assert err < 1e-8


def test_wrong_gradient_fails_and_names_the_worst_coordinate():
    x = np.array([0.3, -0.7, 1.1])
    wrong = np.cos(x)
    wrong[1] += 0.5
    with pytest.raises(GradientCheckError, match=r"index \(1,\)"):
        check_gradient(lambda v: float(np.sum(np.sin(v))), wrong, x)


def test_a_gradient_off_by_a_tiny_scale_factor_still_fails():
    x = np.linspace(-1, 1, 5)
    with pytest.raises(GradientCheckError):
        check_gradient(lambda v: float(np.sum(v ** 3)), 3 * x ** 2 * (1 + 1e-4), x, rtol=1e-6)


def test_nan_gradient_fails():
    with pytest.raises(GradientCheckError):
        check_gradient(lambda v: float(v @ v), np.array([np.nan, 0.0]), np.array([1.0, 0.0]))


def test_relative_error_floor_makes_two_tiny_gradients_equal():
    assert relative_error([1e-14], [-1e-14]) < 1e-5
    assert relative_error([1e-14], [-1e-14], floor=1e-20) == pytest.approx(2.0)


def test_relative_error_shape_mismatch():
    with pytest.raises(ValueError, match="shape"):
        relative_error([1.0, 2.0], [1.0])


def test_directional_check_passes_and_fails():
    rng = np.random.default_rng(2)
    x = rng.standard_normal(200)
    f = lambda v: float(np.sum(np.log1p(v ** 2)))
    g = 2 * x / (1 + x ** 2)
    assert check_directional(f, g, x, rng=3) < 1e-6
    bad = g.copy()
    bad[::7] *= -1
    with pytest.raises(GradientCheckError, match="direction"):
        check_directional(f, bad, x, rng=3)
