"""The compiled kernels are private; every public name of the numerics and serial-recall
modules checks its arguments first (issue 31, items 4, 7 and 11).

A raw kernel given a short array reads or writes out of bounds: a crash of the whole
Python process, or garbage.  So the calls that crashed are made in a fresh Python, where a
segfault fails the test instead of ending it.
"""

import re
import subprocess
import sys
import warnings

import numba
import numpy as np
import pytest

from tempnets.training import optim

from tempnets._numerics import portable, portable_math as pm

from tempnets.models import rnn_baselines as rb, tkrnn

from tempnets.tasks import sequences as sq

MODULES = {"portable": portable, "portable_math": pm, "tkrnn": tkrnn, "rnn_baselines": rb,
           "sequences": sq, "optim": optim}

RAW = {"portable_math": ["logistic_into", "tanh_into", "matmul_acc", "affine_into", "outer_acc",
                         "colsum_acc", "colsum_products_acc", "exp_nonpositive_f32", "logistic_f32",
                         "tanh_f32", "logistic_of_dtype", "tanh_of_dtype", "exp_nonpositive_of_dtype",
                         "negligible_to_zero", "logistic_of", "log_of"],
       "portable": ["mul_add", "products_acc", "reduced_exp"],
       "tkrnn": ["output_loss_and_grad", "scored_rows", "weights_and_batch", "dtype_of"]}


def test_raw_kernels_are_private():
    """No kernel that trusts its caller is public: not in ``__all__``, no name without an
    underscore; nothing in ``__all__`` is a compiled function a Python caller reaches
    unchecked (a numba dispatcher or ufunc)."""
    for mod, names in RAW.items():
        for name in names:
            assert not hasattr(MODULES[mod], name), f"{mod}.{name} is still public"
    for mod, module in MODULES.items():
        for name in module.__all__:
            obj = getattr(module, name)
            assert not isinstance(obj, (numba.core.registry.CPUDispatcher, np.ufunc)), f"{mod}.{name}"
            assert not hasattr(obj, "_defn"), f"{mod}.{name} is a numba intrinsic"


def _in_a_fresh_python(code: str) -> str:
    """What ``code`` raised, run in a fresh Python (``"returned"`` when it raised nothing);
    a crash fails the test."""
    script = ("import numpy as np\nfrom tempnets import portable, portable_math as pm, tkrnn\n"
              f"try:\n    {code}\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
              "else:\n    print('returned')\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"{code}: exit {run.returncode} (a crash)\n{run.stderr[-800:]}"
    return run.stdout.strip()


CRASHES = [  # (call, the error it must give)
    ("portable.dot4(np.ones((1, 4)), 5000000, np.ones((1, 4)), 0, 4)",
     r"ValueError i \(a row of A\) must be an integer in \[0, 0\], got 5000000"),
    ("portable.dot4(np.ones((1, 4)), 0, np.ones((1, 4)), 0, 4000)", r"ValueError n \(columns summed"),
    ("tkrnn.softmax_xent(np.zeros((2, 1, 3)), np.array([[10**7], [1]]), np.ones((2, 1)))",
     r"ValueError target classes must be in \[0, 3\)"),
    ("tkrnn.softmax_xent(np.zeros((2, 1, 3)), np.array([[-1], [1]]), np.ones((2, 1)))",
     r"ValueError target classes must be in \[0, 3\)"),
    ("tkrnn.softmax_xent(np.zeros((2, 1, 3)), np.array([[1]]), np.ones((2, 1)))",
     r"ValueError target must be integer class indices of shape \(2, 1\)"),
    ("tkrnn.softmax_xent(np.zeros((2, 1, 3)), np.array([[1], [1]]), np.ones(1))",
     r"ValueError mask must have shape \(2, 1\), got shape \(1,\)"),
    ("pm.matmul(np.ones((2, 3)), np.ones((4, 2)))", r"ValueError B must have shape \(K=3, N\) \(K from A\)"),
    ("pm.matmul(np.ones((2, 3)), np.ones((3, 2)), bias=np.ones(5))", r"ValueError bias must have shape \(N=2,\)"),
    ("pm.matmul(np.ones((2, 3)), np.full((3, 2), np.nan))", r"ValueError B must be finite, got nan"),
    ("pm.outer(np.ones((3, 2)), np.ones((2, 3)))", r"ValueError A must have shape \(M=3, N\) \(M from D\)"),
    ("pm.colsum_products(np.ones((3, 2)), np.ones((2, 3)))", r"ValueError A must have shape \(M=3, N=2\)"),
    ("pm.colsum('abc')", r"TypeError D must be an array of real numbers"),
    ("pm.matmul(np.ones((10**5, 1)), np.ones((1, 10**5)))", r"ValueError the result \(M=100000 x N=100000\) would need"),
    ("pm.sum_of_squares([1.0, np.inf])", r"ValueError a must be finite, got inf at index 1"),
    ("portable.logistic('u')", r"TypeError u must be an array of real numbers"),
    ("portable.finite(['a'])", r"TypeError a must be an array of real numbers"),
]


@pytest.mark.parametrize("call, error", CRASHES, ids=[c[0][:40] for c in CRASHES])
def test_public_kernels_refuse_what_crashed_or_gave_garbage(call, error):
    got = _in_a_fresh_python(call)
    assert re.match(error, got), f"{call}: {got}"


def test_checked_products_keep_their_bits():
    """The public products check, then compute exactly what the kernels compute."""
    gen = np.random.default_rng(0)
    for dtype in (np.float64, np.float32):
        A, B = gen.standard_normal((5, 7)).astype(dtype), gen.standard_normal((7, 3)).astype(dtype)
        bias = gen.standard_normal(3).astype(dtype)
        got = pm.matmul(A, B, bias=bias)
        assert got.dtype == dtype
        assert np.array_equal(got, pm._matmul(A, B, bias=bias))
        assert np.array_equal(pm.outer(A, A), pm._outer(A, A))
        assert np.array_equal(pm.colsum_products(A, A), pm._colsum_products(A, A))
    assert pm.matmul([[1, 2]], [[3], [4]]).tolist() == [[11.0]]  # lists and integers: float64
    assert portable.dot4(np.arange(6.0).reshape(1, 6), 0, np.ones((1, 6)), 0, 6) == 15.0
    assert portable.finite(np.ones(3)) and not portable.finite([1.0, np.nan])


def test_elementary_functions_give_numpys_answers_at_the_edges():
    """log(0) was -709.09, log(-1) -1419.6, log(nan) 710.2, log(5e-324) -709.09; exp of a
    subnormal result was 0."""
    assert pm.log(0.0) == -np.inf and pm.log(-0.0) == -np.inf
    assert np.isnan(pm.log(-1.0)) and np.isnan(pm.log(np.nan)) and np.isnan(pm.log(-np.inf))
    assert pm.log(np.inf) == np.inf
    tiny = np.array([5e-324, 1e-310, 2.2250738585072e-308, np.nextafter(2.2250738585072014e-308, 0)])
    assert np.max(np.abs(pm.log(tiny) - np.log(tiny)) / np.spacing(np.abs(np.log(tiny)))) <= 4
    assert pm.log(5e-324) == pytest.approx(-744.4400719213812, rel=1e-15)
    sub = np.linspace(-745.1, -708.5, 2001)
    assert np.all(np.abs(pm.exp(sub) - np.exp(sub)) <= np.maximum(4 * np.spacing(np.exp(sub)), 5e-324))
    assert pm.exp(-720.0) > 0 and pm.exp(-746.0) == 0.0 and pm.exp(-np.inf) == 0.0
    assert pm.exp(np.inf) == np.inf and np.isnan(pm.exp(np.nan))
    assert pm.tanh(np.inf) == 1.0 and pm.tanh(-np.inf) == -1.0 and np.isnan(pm.tanh(np.nan))
    assert pm.logistic(np.inf) == 1.0 and pm.logistic(-np.inf) == 0.0
    assert pm.log([[1.0, np.e]]).shape == (1, 2) and isinstance(pm.exp(1.0), float)
    for f in (pm.exp, pm.log, pm.tanh, pm.logistic):
        with pytest.raises(TypeError, match="must be an array of real numbers"):
            f("1.0")
        with pytest.raises(TypeError, match="must be an array of real numbers"):
            f(1 + 2j)


def _batch(task=sq.SerialRecall(4, 2, (1, 3)), B=3):
    x, target, mask, _, _ = sq.make_batch(task, B, rng=0)
    return task, x, target, mask


def _float32(params):
    return {k: v.astype(np.float32) for k, v in params.items()}


@pytest.mark.parametrize("model", ["TKRNN", "RNN", "LSTM"])
def test_float32_batches_are_checked_in_float32(model):
    """A mask or input of 1e39 is finite in float64 and ``inf`` in float32: it was cast and the
    loss came back ``inf`` (then ``optim.train`` blamed the learning rate)."""
    task, x, target, mask = _batch()
    init, loss_and_grad = {"TKRNN": (tkrnn.init_params, tkrnn.tkrnn_loss_and_grad),
                           "RNN": (rb.rnn_init, rb.rnn_loss_and_grad),
                           "LSTM": (rb.lstm_init, rb.lstm_loss_and_grad)}[model]
    params = _float32(init(task.n_in, 4, task.n_out, rng=0))
    with pytest.raises(ValueError, match=r"mask must be finite in float32 .* got 1e\+39 at index"):
        loss_and_grad(params, x, target, mask * 1e39)
    with pytest.raises(ValueError, match=r"x has NaN or infinite entries \(x must be finite in float32"):
        loss_and_grad(params, x * 1e39, target, mask)
    loss, _ = loss_and_grad(params, x, target, mask * 1e30)  # large, but a float32
    assert np.isfinite(loss)
    with pytest.raises(ValueError, match=r"params\['W_h'\] must be finite in float32"):
        optim.train(loss_and_grad, dict(params, W_h=np.full(params["W_h"].shape, 1e39)),
                    lambda g: (x, target, mask), 1, dtype="float32", progress=False)


def test_softmax_xent_checks_in_the_precision_of_the_logits():
    logits = np.zeros((2, 1, 3), np.float32)
    with pytest.raises(ValueError, match="mask must be finite in float32"):
        tkrnn.softmax_xent(logits, np.zeros((2, 1), int), np.full((2, 1), 1e39))
    loss, d = tkrnn.softmax_xent(logits.astype(float), np.zeros((2, 1), int), np.full((2, 1), 1e39))
    assert np.isfinite(loss) and d.dtype == np.float64


def test_errors_name_the_argument():
    """Item 11: raw errors that named nothing."""
    task, x, target, mask = _batch()
    p = tkrnn.init_params(task.n_in, 4, task.n_out, rng=0)
    with pytest.raises(ValueError, match=r"lam_range must be \(low, high\), two decays in \(0, 1\), got \(0.5, 0.6, 0.7\)"):
        tkrnn.init_params(2, 3, 2, lam_range=(0.5, 0.6, 0.7))
    with pytest.raises(TypeError, match="lam_range must be an array of real numbers"):
        tkrnn.init_params(2, 3, 2, lam_range=("a", "b"))
    for f in (tkrnn.tkrnn_forward, rb.rnn_forward, rb.lstm_forward):
        params = {tkrnn.tkrnn_forward: p, rb.rnn_forward: rb.rnn_init(task.n_in, 4, task.n_out, rng=0),
                  rb.lstm_forward: rb.lstm_init(task.n_in, 4, task.n_out, rng=0)}[f]
        with pytest.raises(TypeError, match="x must be an array of real numbers, got 'abc'"):
            f(params, "abc")
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (a ComplexWarning was given, and the imaginary part dropped)
            with pytest.raises(TypeError, match="x must be an array of real numbers, got ndarray of dtype complex128"):
                f(params, x + 1j)
    with pytest.raises(TypeError, match=r"TKRNN params must be a dict"):
        tkrnn.lam({"theta": "x"})
    with pytest.raises(TypeError, match="weights must be an array of real numbers"):
        tkrnn.kernel("ab", [0.5], [1])
    with pytest.raises(ValueError, match="lags must be integers >= 1"):
        tkrnn.kernel([1.0], [0.5], [[1], [1, 2]])
    with pytest.raises(TypeError, match="return_states must be True or False"):
        tkrnn.tkrnn_forward(p, x, return_states="yes")


def test_lstm_functions_say_they_were_given_rnn_params():
    task, x, target, mask = _batch()
    rnn = rb.rnn_init(task.n_in, 8, task.n_out, rng=0)  # W_h (8, 14): an LSTM of 2 units and 12 inputs
    for call in (lambda: rb.lstm_forward(rnn, x), lambda: rb.lstm_loss_and_grad(rnn, x, target, mask)):
        with pytest.raises(ValueError, match=r"these are RNN params, not LSTM params: .* use rnn_forward"):
            call()
    lstm = rb.lstm_init(task.n_in, 2, task.n_out, rng=0)
    for call in (lambda: rb.rnn_forward(lstm, x), lambda: rb.rnn_loss_and_grad(lstm, x, target, mask)):
        with pytest.raises(ValueError, match=r"these are LSTM params, not RNN params: .* use lstm_forward"):
            call()


@pytest.mark.parametrize("call", [
    lambda: tkrnn.init_params(1, 10 ** 5, 1),
    lambda: tkrnn.init_params(1, 10 ** 6, 1),
    lambda: tkrnn.init_params(1, 10, 1, n_kernels=10 ** 9),
    lambda: rb.rnn_init(1, 10 ** 6, 1),
    lambda: rb.lstm_init(1, 10 ** 5, 1),
    lambda: sq.make_batch(sq.SerialRecall(alphabet=10 ** 8), 64, rng=0),
    lambda: sq.make_batch(sq.SerialRecall(), 2, rng=0, delay=10 ** 12),
    lambda: sq.make_batch(sq.SerialRecall(delays=(0, 10 ** 12)), 2, rng=0),
    lambda: sq.encode(sq.SerialRecall(4, 2), [[0, 1]], 10 ** 12),
    lambda: tkrnn.kernel(np.ones(10 ** 5), np.full(10 ** 5, 0.5), np.arange(1, 10 ** 6)),
], ids=["tkrnn-H-1e5", "tkrnn-H-1e6", "tkrnn-n", "rnn", "lstm", "alphabet", "delay", "delays", "encode", "kernel"])
def test_sizes_that_cannot_fit_are_refused_before_allocating(call):
    with pytest.raises(ValueError, match=r"would need [\d,.]+ GiB; this machine has"):
        call()


def test_matched_hidden_takes_any_integer_target():
    assert rb.matched_hidden("lstm", 34, 33, 10 ** 400) > 10 ** 190  # (a float square root overflowed)
    for kind in ("rnn", "lstm"):
        for target in (1, 100, 12345, 10 ** 6):
            h = rb.matched_hidden(kind, 34, 33, target)
            assert all(abs(rb.n_params(kind, 34, h, 33) - target) <= abs(rb.n_params(kind, 34, k, 33) - target)
                       for k in range(1, h + 3))
    with pytest.raises(ValueError, match="kind must be 'rnn' or 'lstm'"):
        rb.n_params(["rnn"], 1, 1, 1)


def test_one_hot_inputs_are_unchanged():
    """``encode`` no longer builds ``np.eye(A + 2)`` (A**2 values) to pick its rows: same arrays."""
    task = sq.SerialRecall(5, 3, (0, 4), min_length=1)
    x, target, mask, strings, delays = sq.make_batch(task, 7, rng=3)
    T, B, _ = x.shape
    sym = x.argmax(axis=2)
    assert np.array_equal(x, np.eye(task.n_in)[sym]) and x.dtype == np.float64


def test_serial_recall_functions_name_a_bad_task_or_strings():
    for call in (lambda: sq.make_batch("task", 2), lambda: sq.make_bucketed_batch(None, 2),
                 lambda: sq.encode({"alphabet": 4}, [[0, 1]], 1)):
        with pytest.raises(TypeError, match="task must be a SerialRecall, got"):
            call()
    with pytest.raises(ValueError, match=r"strings must be integer letters of shape \(B, 2\)"):
        sq.encode(sq.SerialRecall(4, 2), [[1], [1, 2]], 1)
