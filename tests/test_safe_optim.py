"""The optimiser checks its arguments (issue 31, item 6) and training leaves the process's
memory allocator as fast as it found it (issue 35, item 5)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tempnets.training import optim


def _in_a_fresh_python(code: str, timeout: float = 120) -> str:
    """The last line ``code`` printed in a fresh Python; a hang or crash fails the test."""
    try:
        run = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung for {timeout} s:\n{code}")
    assert run.returncode == 0, run.stderr[-1500:]
    return run.stdout.strip().splitlines()[-1]


def test_a_negative_step_count_is_refused_not_a_hang():
    """``adam_step`` with ``state['step'] = -5`` looped for ever (``-1 >> 1`` is -1)."""
    got = _in_a_fresh_python("""
        import numpy as np
        from tempnets.training import optim
        p = {"a": np.ones(3)}
        try:
            optim.adam_step(p, p, {**optim.adam_init(p), "step": -5})
        except ValueError as e:
            print(e)
    """)
    assert got == "state['step'] (updates done) must be an integer >= 0, got -5"


def test_adam_step_checks_its_state():
    p, g = {"a": np.ones(3)}, {"a": np.full(3, 0.5)}
    state = optim.adam_init(p)
    with pytest.raises(TypeError, match=r"state must be Adam's state \(adam_init\(params\)"):
        optim.adam_step(p, g, {"m": {}})
    with pytest.raises(ValueError, match=r"state\['m'\]\['a'\] must have the shape of params\['a'\], \(3,\), got \(2,\)"):
        optim.adam_step(p, g, dict(state, m={"a": np.zeros(2)}))
    with pytest.raises(ValueError, match=r"state\['v'\]\['a'\] \(a mean of squares\) must be >= 0"):
        optim.adam_step(p, g, dict(state, v={"a": -np.ones(3)}))
    with pytest.raises(ValueError, match=r"grads\['a'\] must have the shape of params\['a'\]"):
        optim.adam_step(p, {"a": np.ones(2)}, state)
    with pytest.raises(ValueError, match=r"grads\['a'\] must be finite, got nan"):
        optim.adam_step(p, {"a": np.full(3, np.nan)}, state)
    with pytest.raises(TypeError, match="config must be an OptimConfig"):
        optim.adam_step(p, g, state, {"learning_rate": 0.1})
    new_p, new_s = optim.adam_step(p, g, state)  # unchanged for good arguments
    assert new_s["step"] == 1 and np.allclose(new_p["a"], 1 - 1e-3) and state["step"] == 0


@pytest.mark.parametrize("max_norm", [-1.0, 0, 0.0, np.nan, np.inf, "1", True])
def test_clip_refuses_a_norm_that_is_not_positive(max_norm):
    """``-1`` flipped the gradient's sign, ``0`` zeroed it."""
    with pytest.raises(ValueError, match=r"max_norm \(or None\) must be a finite number > 0, got "):
        optim.clip_by_global_norm({"a": np.ones(4)}, max_norm)


def test_clip_checks_the_gradients_and_keeps_float32():
    with pytest.raises(TypeError, match="grads must be a dict of arrays"):
        optim.clip_by_global_norm([np.ones(2)], 1.0)
    with pytest.raises(TypeError, match=r"grads\['a'\] must be an array of real numbers"):
        optim.clip_by_global_norm({"a": "xy"}, 1.0)
    g, norm = optim.clip_by_global_norm({"a": np.full(4, 1.0, np.float32), "b": [[0, 0]]}, 1.0)
    assert norm == 2.0 and g["a"].dtype == np.float32 and np.array_equal(g["a"], np.full(4, 0.5, np.float32))
    assert g["b"].shape == (1, 2) and g["b"].dtype == np.float64
    assert optim.clip_by_global_norm({"a": np.ones(4)}, None)[1] == 2.0


def test_rate_at_refuses_steps_outside_the_run():
    """``rate_at(100, 10)`` was negative (the linear path extrapolated)."""
    cfg = optim.OptimConfig(learning_rate=1e-3, final_rate=1e-4)
    with pytest.raises(ValueError, match=r"step must be an integer in \[1, 10\], got 100"):
        cfg.rate_at(100, 10)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="step must be an integer in"):
            cfg.rate_at(bad, 10)
    with pytest.raises(ValueError, match="n_steps must be an integer >= 1, got 0"):
        cfg.rate_at(1, 0)
    assert cfg.rate_at(1, 10) == 1e-3 and cfg.rate_at(10, 10) == pytest.approx(1e-4, rel=1e-12)


def _lg(params, x):
    return 0.0, {k: np.zeros_like(v) for k, v in params.items()}


@pytest.mark.parametrize("eval_every", [-1, 0.5, True, "5", None])
def test_train_refuses_a_bad_eval_every(eval_every):
    with pytest.raises(ValueError, match=r"eval_every \(updates between evaluations; 0: none\) must be an integer >= 0"):
        optim.train(_lg, {"a": np.ones(2)}, lambda g: (0,), 2, evaluate=lambda p: 0, eval_every=eval_every,
                    progress=False)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"config": {"learning_rate": 0.1}}, TypeError, "config must be an OptimConfig"),
    ({"params": [np.ones(2)]}, TypeError, "params must be a dict of arrays keyed by parameter names, got list"),
    ({"params": {"a": "xy"}}, TypeError, r"params\['a'\] must be an array of real numbers"),
    ({"params": {"a": np.array([np.nan])}}, ValueError, r"params\['a'\] must be finite, got nan"),
    ({"loss_and_grad": "f"}, TypeError, "loss_and_grad must be a function, got str"),
    ({"sample": None}, TypeError, "sample must be a function, got NoneType"),
    ({"evaluate": 3}, TypeError, "evaluate must be a function or None, got int"),
    ({"sample_with_step": 1}, TypeError, "sample_with_step must be True or False"),
])
def test_train_names_the_bad_argument(kwargs, error, message):
    args = {"loss_and_grad": _lg, "params": {"a": np.ones(2)}, "sample": lambda g: (0,), "n_steps": 2,
            "progress": False, **kwargs}
    with pytest.raises(error, match=message):
        optim.train(args.pop("loss_and_grad"), args.pop("params"), args.pop("sample"), args.pop("n_steps"), **args)


_ALLOCATION_LOOP = """
    import resource
    import numpy as np
    from tempnets.training import optim

    def loop():  # 2 MB temporaries, as a notebook's numpy code makes them
        a = np.ones(2 ** 18)
        start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(200):
            b = a * 2.0
            c = b + a
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start

    if TRAIN:
        optim.train(lambda p, x: (0.0, {"a": np.zeros(1)}), {"a": np.zeros(1)}, lambda g: (0,), 2,
                    progress=False)
    print(min(loop() for _ in range(5)))
"""


def test_numpy_is_as_fast_after_training_as_before():
    """``optim.train`` set glibc's thresholds back to 128 kB with ``mallopt`` when it finished,
    which switches glibc's dynamic mmap threshold off for the rest of the process: every later
    temporary over 128 kB was mapped afresh, a loop of 2 MB temporaries 17 times slower
    (136 ms against 2376 ms), because each temporary's pages were faulted in afresh.  What the
    loop costs is counted as the page faults it takes, not timed (a timing flips on a loaded
    machine): each side in its own fresh process, best of 5."""
    before = int(_in_a_fresh_python("TRAIN = False\n" + textwrap.dedent(_ALLOCATION_LOOP)))
    after = int(_in_a_fresh_python("TRAIN = True\n" + textwrap.dedent(_ALLOCATION_LOOP)))
    # the bug: 400 temporaries x 512 pages each = about 200,000 faults; without it, about none
    assert after <= 2 * before + 1000, (f"a numpy loop took {after} page faults after optim.train, "
                                        f"{before} without")
