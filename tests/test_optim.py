import math

import numpy as np
import pytest

from tempnets.training import optim
from tempnets.training.optim import (DivergenceError, OptimConfig, adam_init, adam_step,
                            clip_by_global_norm, train)


def test_clip_scales_to_the_norm_and_keeps_direction():
    g = {"a": np.array([3.0, 0.0]), "b": np.array([[4.0]])}
    c, n = clip_by_global_norm(g, 1.0)
    assert n == pytest.approx(5.0)
    np.testing.assert_allclose(c["a"], [0.6, 0.0])
    np.testing.assert_allclose(c["b"], [[0.8]])
    assert g["a"][0] == 3.0  # not modified
    same, _ = clip_by_global_norm(g, 10.0)
    np.testing.assert_array_equal(same["a"], g["a"])
    unclipped, _ = clip_by_global_norm(g, None)
    np.testing.assert_array_equal(unclipped["b"], g["b"])


def test_adam_first_step_moves_each_weight_by_the_learning_rate():
    # After bias correction the first step is -lr * sign(g) (up to eps).
    p = {"w": np.array([1.0, -2.0, 0.5])}
    g = {"w": np.array([0.3, -7.0, 1e-3])}
    new, st = adam_step(p, g, adam_init(p), OptimConfig(learning_rate=0.01, eps=1e-12))
    np.testing.assert_allclose(new["w"], p["w"] - 0.01 * np.sign(g["w"]), rtol=1e-8)
    assert st["step"] == 1


def test_adam_matches_the_formula_over_steps():
    cfg = OptimConfig(learning_rate=0.1)
    p, st = {"w": np.array([2.0])}, adam_init({"w": np.zeros(1)})
    m = v = 0.0
    w = 2.0
    for s in range(1, 6):
        g = 2 * w
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w = w - 0.1 * (m / (1 - 0.9 ** s)) / (math.sqrt(v / (1 - 0.999 ** s)) + 1e-8)
        p, st = adam_step(p, {"w": 2 * p["w"]}, st, cfg)
        assert p["w"][0] == pytest.approx(w, rel=1e-12)


def quad(params, x, target, mask):
    w = params["w"]
    return float(np.sum((w - x) ** 2)), {"w": 2 * (w - x)}


def test_train_converges_and_is_deterministic():
    sample = lambda rng: (np.array([1.0, -1.0]) + 0.01 * rng.standard_normal(2), None, None)
    p1, h1 = train(quad, {"w": np.zeros(2)}, sample, 2000, config=OptimConfig(learning_rate=0.05),
                   rng=3, progress=False)
    p2, h2 = train(quad, {"w": np.zeros(2)}, sample, 2000, config=OptimConfig(learning_rate=0.05),
                   rng=3, progress=False)
    np.testing.assert_allclose(p1["w"], [1.0, -1.0], atol=0.05)
    assert np.array_equal(p1["w"], p2["w"]) and h1.loss == h2.loss
    assert h1.grad_norm[0] > 1.0  # the first gradients were clipped (norm 2.9 > 1) ...
    # ... by train itself: its updates are clip_by_global_norm, then adam_step (unclipped steps
    # end 2e-3 away after five updates)
    cfg, gen = OptimConfig(learning_rate=0.05), np.random.default_rng(3)
    p, state = {"w": np.zeros(2)}, adam_init({"w": np.zeros(2)})
    for _ in range(5):
        _, g = quad(p, *sample(gen))
        p, state = adam_step(p, clip_by_global_norm(g, cfg.clip_norm)[0], state, cfg)
    p5, _ = train(quad, {"w": np.zeros(2)}, sample, 5, config=cfg, rng=3, progress=False)
    np.testing.assert_array_equal(p5["w"], p["w"])


def test_train_evaluates_and_stops_on_divergence():
    _, h = train(quad, {"w": np.zeros(1)}, lambda rng: (np.ones(1), None, None), 5,
                 evaluate=lambda p: float(p["w"][0]), eval_every=2, progress=False, rng=0)
    assert h.eval_steps == [2, 4, 5] and len(h.evals) == 3
    bad = lambda params, x, t, m: (float("nan"), {"w": params["w"]})
    with pytest.raises(DivergenceError, match="update 1"):
        train(bad, {"w": np.zeros(1)}, lambda rng: (None, None, None), 3, progress=False, rng=0)


def test_a_falling_learning_rate_is_adam_with_each_update_s_own_rate():
    """``final_rate``: update ``s`` of ``n`` is Adam's step with rate η + (η_f - η)(s - 1)/(n - 1)."""
    cfg = OptimConfig(learning_rate=0.05, final_rate=0.01)
    assert [cfg.rate_at(s, 5) for s in (1, 3, 5)] == pytest.approx([0.05, 0.03, 0.01], rel=1e-15)
    assert OptimConfig(learning_rate=0.05).rate_at(3, 5) == 0.05 and cfg.rate_at(1, 1) == 0.05
    sample = lambda rng: (np.array([1.0, -1.0]) + 0.01 * rng.standard_normal(2), None, None)
    gen, p, state = np.random.default_rng(3), {"w": np.zeros(2)}, adam_init({"w": np.zeros(2)})
    for s in range(1, 6):
        _, g = quad(p, *sample(gen))
        p, state = adam_step(p, clip_by_global_norm(g, cfg.clip_norm)[0], state,
                             OptimConfig(learning_rate=cfg.rate_at(s, 5)))
    p5, _ = train(quad, {"w": np.zeros(2)}, sample, 5, config=cfg, rng=3, progress=False)
    np.testing.assert_array_equal(p5["w"], p["w"])
    with pytest.raises(ValueError, match="final_rate"):
        OptimConfig(final_rate=0.0)


def test_a_sample_with_step_is_told_which_update_it_draws_for():
    seen = []

    def sample(rng, step):
        seen.append(step)
        return np.ones(2), None, None

    train(quad, {"w": np.zeros(2)}, sample, 4, rng=0, progress=False, sample_with_step=True)
    assert seen == [1, 2, 3, 4]


def test_bad_config():
    with pytest.raises(ValueError, match="learning_rate"):
        OptimConfig(learning_rate=-1)
    with pytest.raises(ValueError, match="beta1"):
        OptimConfig(beta1=1.0)
    with pytest.raises(ValueError, match="clip_norm"):
        OptimConfig(clip_norm=0)
    with pytest.raises(ValueError, match="n_steps"):
        train(quad, {"w": np.zeros(1)}, lambda rng: (None, None, None), -1)


def test_training_runs_numpy_blas_on_one_thread():
    """A second BLAS thread made training 20x slower on a busy machine (optim.one_blas_thread)."""
    from threadpoolctl import threadpool_info

    def blas_threads():
        return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

    seen = []

    def loss_and_grad(params, x, target, mask):
        seen.append(blas_threads())
        return float(np.sum(params["w"] ** 2)), {"w": 2 * params["w"]}

    optim.train(loss_and_grad, {"w": np.ones(3)}, lambda g: (None, None, None), 3, progress=False)
    assert seen == [{1}] * 3
    assert blas_threads(), "no BLAS library found"
