"""Issue 21: every compiled kernel behind a checked entry.

One test per finding of the hostile-input audit (the item number in its name): each fails
without its fix.  Errors must name the argument, the value and what is allowed.
"""

import re
from pathlib import Path

import numpy as np
import pytest

from tempnets._numerics import checks
from tempnets.models import focused as F
from tempnets.training import focused_training as FT

ROOT = Path(__file__).resolve().parents[1]


def net_and_seqs():
    p = F.init_focused(3, 2, 2, rng=0)
    s = F.make_sequences([np.ones((4, 3))], [[1.0, 0.0]])
    return p, s


# ----------------------------------------------------------------------------- the shared helper

def test_array_names_the_argument_the_value_and_what_is_allowed():
    dims = {}
    checks.array("W_in", np.ones((2, 3)), ("n_ctx", "n_in"), dims)
    with pytest.raises(ValueError, match=r"z must have shape \(n_ctx=2,\) \(n_ctx from W_in\), got shape \(1,\)"):
        checks.array("z", [0.5], ("n_ctx",), dims)
    with pytest.raises(ValueError, match=r"z must be finite, got nan at index 1"):
        checks.array("z", [0.5, float("nan")], ("n_ctx",), dims)
    with pytest.raises(TypeError, match="z must be an array of real numbers, got 'ab'"):
        checks.array("z", "ab", ("n_ctx",), dims)
    with pytest.raises(TypeError, match="offsets must be an array of integers"):
        checks.array("offsets", [0.0, 1.5], (None,), dtype="int")
    with pytest.raises(ValueError, match=r"M must be >= 0 everywhere, got -1.0 at index 0"):
        checks.array("M", [-1.0], low=0.0)
    with pytest.raises(ValueError, match=r"W must have shape \(n, n\), got shape \(2, 3\)"):
        checks.array("W", np.ones((2, 3)), ("n", "n"), {})
    a = checks.array("z", (1, 2), ("n_ctx",), dims)  # a tuple that converts cleanly
    assert a.dtype == np.float64 and a.flags.c_contiguous


def test_real_refuses_nan_inf_bools_and_out_of_range():
    assert checks.real("l1", 2) == 2.0
    for bad in (float("nan"), float("inf"), True, "1", None, 0.0):
        with pytest.raises(ValueError, match=r"l1 must be a finite number > 0, got "):
            checks.real("l1", bad, low=0.0, low_open=True)
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, 3\], got 4"):
        checks.count("n", 4, 1, 3)


# ----------------------------------------------------------------------------- focused (items 1-3, 11, 14, 16)

def test_item1_offsets_past_the_data_are_refused_not_a_segfault():
    p, s = net_and_seqs()
    for offsets in ([0, 100000], [1, 4], [0, 2, 2, 4], [0], [0, 3]):
        with pytest.raises(ValueError, match=r"seqs.offsets must start at 0, rise strictly .* end at N = 4"):
            F.forward(p, F.Sequences(s.X, s.Y, s.M, np.array(offsets)))
    with pytest.raises(TypeError, match="seqs.offsets must be an array of integers"):
        F.forward(p, F.Sequences(s.X, s.Y, s.M, np.array([0.0, 4.0])))


def test_item2_z_and_d_must_match_the_network():
    p, s = net_and_seqs()
    for field, bad in (("z", np.array([-0.5])), ("z", np.full(3, -0.5)), ("d", np.ones(1)),
                       ("z", np.full((2, 1), -0.5))):
        with pytest.raises(ValueError, match=rf"params.{field} must have shape \(n_ctx=2,\) "
                                             r"\(n_ctx from params.W_in\)"):
            F.forward(p._replace(**{field: bad}), s)
    with pytest.raises(ValueError, match="pass one network"):
        F.forward(F.init_many("focused", 3, 2, 2, 2, rng=0), s)


def test_item3_every_network_of_a_stack_is_checked():
    _, s = net_and_seqs()
    st = F.init_many("focused", 3, 2, 2, 2, rng=0)
    with pytest.raises(ValueError, match=r"params.W_out must have shape \(n_networks=2, n_out, n_ctx=2\)"):
        FT.train(s, st._replace(W_out=st.W_out[:1]), n_epochs=3)
    z = st.z.copy()
    z[1, 0] = np.nan  # network 1, not 0: was "network 1 diverged at epoch 0"
    with pytest.raises(ValueError, match=r"params.z must be finite, got nan at index \(1, 0\)"):
        FT.train(s, st._replace(z=z), n_epochs=3)


def test_item11_chunk_must_be_positive():
    _, s = net_and_seqs()
    st = F.init_many("focused", 3, 2, 2, 2, rng=0)
    for chunk in (-1, 0, 1.5):
        with pytest.raises(ValueError, match=r"chunk must be an integer >= 1, got "):
            FT.train(s, st, n_epochs=3, chunk=chunk)
    h1 = FT.train(s, st, n_epochs=3, chunk=1)
    h2 = FT.train(s, st, n_epochs=3)
    np.testing.assert_array_equal(h1.mse, h2.mse)
    assert np.isfinite(h1.mse).all()


def test_item14_nan_and_negative_sequences_are_refused_with_their_name():
    p, s = net_and_seqs()
    Y = s.Y.copy()
    Y[-1, 0] = np.nan  # was "context activity overflowed"
    with pytest.raises(ValueError, match=r"seqs.Y must be finite, got nan at index \(3, 0\)"):
        F.trace_gradient(p, s._replace(Y=Y))
    with pytest.raises(ValueError, match=r"seqs.M must be >= 0 everywhere"):
        F.bptt_gradient(p, s._replace(M=-s.M))
    for kw, match in ((dict(l1=float("nan")), "l1 must be a finite number > 0"),
                      (dict(z0=float("inf")), "z0 must be a finite number"),
                      (dict(d_range=(0.9, float("nan"))), r"d_range\[1\] must be a finite number >= 0.9"),
                      (dict(d_range=(1.0, 0.5)), r"d_range\[1\] must be a finite number >= 1"),
                      (dict(d_range=0.5), r"d_range must be \(low, high\)")):
        with pytest.raises(ValueError, match=match):
            F.init_focused(3, 2, 2, rng=0, **kw)
    with pytest.raises(ValueError, match="l1 must be a finite number > 0"):
        F.init_full(3, 2, 2, rng=0, l1=-1.0)


# ----------------------------------------------------------------------------- tasks (items 5, 12, 14, 16, 17)

def test_item5_random_parking_refuses_probabilities_that_never_end():
    from tempnets.tasks import streams

    for kw in (dict(p_stop=1e-9), dict(p_finish=1e-12)):
        with pytest.raises(ValueError, match=r"must be a probability in \[1e-06, 1\] .*never ends"):
            streams.random_parking(10, rng=0, **kw)
    assert len(streams.random_parking(10, rng=0, p_stop=1e-6)) == 10


def test_item14_parking_query_and_distractors_are_checked():
    from tempnets.tasks import streams

    with pytest.raises(ValueError, match=r"query must be finite, got nan at index 0"):
        streams.parking("d1b", query=[np.nan, 1, 1])
    with pytest.raises(ValueError, match=r"query must hold 0/1 values, got 0.5"):
        streams.parking("d1b", query=[0.5, 1, 1])
    with pytest.raises(ValueError, match=r"distractors must have shape \(n=3, 3\) \(n from labels\)"):
        streams.parking("d1b", distractors=np.zeros((2, 3)))


def test_item12_reproduction_task_refuses_sizes_that_would_not_fit():
    from tempnets.tasks import verbs

    with pytest.raises(ValueError, match=r"reproduction_task\(1, 'ABCDEFGHIJKL'\) would hold 479001600 "
                                         r"sequences .* at most 5e\+07 numbers"):
        verbs.reproduction_task(1, "ABCDEFGHIJKL")
    for bad in ("", "AAB", 3):
        with pytest.raises(ValueError, match="symbols must be a non-empty string of distinct symbols"):
            verbs.reproduction_task(1, bad)
    assert verbs.reproduction_task(1, "ABCD").n_seq == 24


def test_item16_17_verbs_name_bad_arguments():
    from tempnets.tasks import verbs

    codes = verbs.encode_symbols("—DEAR—", verbs.TABLE1)
    for slots in (0, -1, 1.5):
        with pytest.raises(ValueError, match=r"slots must be an integer >= 1, got "):
            verbs.buffered(codes, slots)
    with pytest.raises(ValueError, match=r"codes must be finite"):
        verbs.buffered(np.full((3, 3), np.nan))
    with pytest.raises(ValueError, match=r"words and classes must each name at least one word"):
        verbs.dear_task(classes=())


def test_item14_16_serial_recall_encode_and_scores():
    from tempnets.tasks import sequences as sq

    task = sq.SerialRecall(alphabet=4, length=2, delays=(1, 3))
    with pytest.raises(ValueError, match=r"strings must hold at least one string"):
        sq.encode(task, np.zeros((0, 2), dtype=int), 1)
    with pytest.raises(ValueError, match=r"delays must be one delay or 2 delays"):
        sq.encode(task, np.zeros((2, 2), dtype=int), [1, 2, 3])
    x, t, m = sq.encode(task, np.array([[1, 2], [3, 0]]), 1)
    logits = np.full(t.shape + (task.n_out,), np.nan)  # argmax of all-NaN is 0: was scored a hit
    assert sq.recall_scores(logits, t, m)["symbol"] == 0.0
    good = np.eye(task.n_out)[t]
    assert sq.recall_scores(good, t, m)["string"] == 1.0
    with pytest.raises(ValueError, match=r"mask must hold 0/1 values"):
        sq.recall_scores(good, t, -m)


# ----------------------------------------------------------------------------- TKRNN, RNN, LSTM (items 14, 16, 17)

def test_item14_16_tkrnn_rnn_lstm_refuse_nan_weights_bad_masks_and_wrong_dimensions():
    from tempnets.models import rnn_baselines as rb
    from tempnets.models import tkrnn

    x = np.zeros((3, 2, 4))
    target, mask = np.zeros((3, 2), dtype=int), np.ones((3, 2))
    nets = ((tkrnn.init_params(4, 3, 5, rng=0), tkrnn.tkrnn_loss_and_grad, "params['W_h']"),
            (rb.rnn_init(4, 3, 5, rng=0), rb.rnn_loss_and_grad, "RNN params['W_h']"),
            (rb.lstm_init(4, 3, 5, rng=0), rb.lstm_loss_and_grad, "LSTM params['W_h']"))
    for p, loss_and_grad, name in nets:
        W = p["W_h"].copy()
        W[0, 1] = np.nan
        with pytest.raises(ValueError, match=rf"{re_escape(name)} must be finite, got nan at index \(0, 1\)"):
            loss_and_grad(dict(p, W_h=W), x, target, mask)
        with pytest.raises(ValueError, match=rf"{re_escape(name)} must have shape \(.*\), got shape \(7,\)"):
            loss_and_grad(dict(p, W_h=W[0]), x, target, mask)  # 1-D: was a raw unpacking error
        with pytest.raises(ValueError, match=r"mask must be >= 0 everywhere, got -1.0"):
            loss_and_grad(p, x, target, -mask)
        with pytest.raises(ValueError, match=r"mask must be finite, got nan"):
            loss_and_grad(p, x, target, np.full((3, 2), np.nan))
    with pytest.raises(ValueError, match=r"params\['theta'\] must have shape \(n, H \+ I\), got shape \(7,\)"):
        tkrnn.tkrnn_forward(dict(nets[0][0], theta=np.zeros(7)), x)


def re_escape(s):
    return re.escape(s)


def test_item14_17_initialisers_and_counts_refuse_nan_and_negative_sizes():
    from tempnets.models import rnn_baselines as rb
    from tempnets.models import tkrnn

    for bad in (np.nan, np.inf):
        with pytest.raises(ValueError, match="scale must be a finite number"):
            tkrnn.init_params(4, 3, 5, scale=bad)
        with pytest.raises(ValueError, match="scale must be a finite number"):
            rb.rnn_init(4, 3, 5, scale=bad)
        with pytest.raises(ValueError, match="forget_bias must be a finite number"):
            rb.lstm_init(4, 3, 5, forget_bias=bad)
    with pytest.raises(ValueError, match="n_hidden must be an integer >= 1, got -3"):
        tkrnn.n_params(4, -3, 5)
    with pytest.raises(ValueError, match="n_hidden must be an integer >= 1, got -3"):
        rb.n_params("rnn", 4, -3, 5)
    with pytest.raises(ValueError, match="n_kernels must be an integer >= 1"):
        tkrnn.multiply_adds(4, 3, 5, 0)
    h = rb.matched_hidden("rnn", 3, 2, 10**9)  # was clamped to 1999
    assert h > 1999 and abs(rb.n_params("rnn", 3, h, 2) - 10**9) < rb.n_params("rnn", 3, h + 1, 2) - rb.n_params("rnn", 3, h, 2)
    with pytest.raises(ValueError, match="target must be an integer >= 1"):
        rb.matched_hidden("lstm", 3, 2, -5)


# ----------------------------------------------------------------------------- fast weights, RTRL, Adam (items 14-17)

def fw_problem():
    from tempnets.models import fast_weights as fw

    net = fw.FastWeightNet(3, 3, 1)
    return fw, net, fw.init_slow_weights(net, rng=0), np.eye(3), np.zeros((3, 1))


def test_item14_gradient_unfolded_refuses_nan_xs0_like_gradient():
    fw, net, U, x, d = fw_problem()
    for f in (fw.gradient, fw.gradient_unfolded):
        with pytest.raises(ValueError, match=r"xs0 must be 3 finite numbers"):
            f(net, U, x, x, d, xs0=[np.nan, 0, 0])


def test_item14_15_fast_weight_state_and_overflow_messages():
    from tempnets.training.srn_trainers import DivergenceError

    fw, net, U, x, d = fw_problem()
    state = fw.initial_state(net, U)
    with pytest.raises(ValueError, match=r"state.W must be finite, got nan"):
        fw.run(net, U, x, x, state=state._replace(W=np.full((1, 3), np.nan)))
    big = fw.FastWeightNet(3, 3, 1, squash="none")
    with pytest.raises(DivergenceError, match=r"overflowed at step .* slow weights fixed \(learning rate 0"):
        fw.run(big, np.full(big.shape_U, 1e300), np.full((3, 3), 1e10), x)
    with pytest.raises(DivergenceError, match="lower the learning rate"):  # still said when learning
        fw.train_online(big, np.full(big.shape_U, 1e300), np.full((3, 3), 1e10), x, np.ones((3, 1)))


def test_item16_17_fast_weights_scalars():
    fw, net, U, x, d = fw_problem()
    for bad in (np.nan, np.inf, -0.1):
        with pytest.raises(ValueError, match="init_range must be a finite number >= 0"):
            fw.init_slow_weights(net, bad)
    with pytest.raises(ValueError, match="threshold must be a finite number >= 0, got nan"):
        fw.train_online(net, U, x, x, d, threshold=np.nan)
    for run in (0, -1):
        with pytest.raises(ValueError, match=r"run must be an integer >= 1"):
            fw.solved_at(np.zeros(5), run=run)
    with pytest.raises(ValueError, match="threshold must be a finite number"):
        fw.solved_at(np.zeros(5), threshold=np.nan)
    assert fw.solved_at([0.1, 0.0, 0.0], threshold=0.05, run=2) == 3


def test_item15_16_17_rtrl_carry_threshold_and_init_range():
    from tempnets.models import rtrl

    net = rtrl.RecurrentNet(3, 4, 2)
    W = rtrl.init_weights(net, rng=0)
    x, d = np.eye(3)[[0, 1, 2, 0]], np.zeros((4, 2))
    with pytest.raises(ValueError, match=r"carry y must be finite, got nan at index 0"):
        rtrl.train_online(net, W, x, d, carry=(np.full(4, np.nan), np.zeros((4,) + net.shape_W)))
    with pytest.raises(ValueError, match=r"carry P must have shape \(4, 4, 8\)"):
        rtrl.train_online(net, W, x, d, carry=(np.zeros(4), np.zeros(3)))
    with pytest.raises(ValueError, match="threshold must be a finite number >= 0, got nan"):
        rtrl.train_online(net, W, x, d, threshold=np.nan)
    with pytest.raises(ValueError, match="init_range must be a finite number >= 0, got nan"):
        rtrl.init_weights(net, np.nan)


def test_item17_optim_config_refuses_bools_and_nan():
    from tempnets.training.optim import OptimConfig

    for kw, name in ((dict(learning_rate=True), "learning_rate"), (dict(eps=np.nan), "eps"),
                     (dict(beta2=np.nan), "beta2"), (dict(clip_norm=np.inf), "clip_norm")):
        with pytest.raises(ValueError, match=rf"{name}.* must be a finite number"):
            OptimConfig(**kw)
    assert OptimConfig(clip_norm=None).clip_norm is None


# ----------------------------------------------------------------------------- records and the CLI (items 8, 9, 13, 17)

def cli(capsys, *argv):
    from tempnets.__main__ import main

    code = main(list(argv))
    return code, capsys.readouterr().err.strip()


def test_item8_rederive_refuses_huge_files_and_devices_before_reading(tmp_path, capsys):
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(10**9)  # sparse: costs no disk
    assert cli(capsys, "rederive", str(big)) == (
        2, f"error: path {big}: not an experiment record (1000 MB; records are at most 50 MB)")
    assert cli(capsys, "rederive", "/dev/zero") == (
        2, "error: path /dev/zero: not an experiment record (not a regular file)")


def test_item9_17_bad_out_names_are_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = cli(capsys, "reproduce", "tk-kernels", "--out", "a" * 300 + ".json")
    assert code == 2 and err.endswith("File name too long") and "\n" not in err
    assert cli(capsys, "reproduce", "tk-kernels", "--out", "") == (
        2, "error: --out must name a file, got an empty name")
    assert list(tmp_path.iterdir()) == []  # not silently the default name


def test_item9_update_on_a_read_only_file_is_one_line(tmp_path, capsys, monkeypatch):
    import shutil

    from tempnets.book import experiments

    rec = tmp_path / "tk-kernels.json"
    shutil.copy(ROOT / "book" / "paper_scale" / "tk-kernels.json", rec)
    before = rec.read_bytes()

    def read_only(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(experiments, "write_record", read_only)
    code, err = cli(capsys, "rederive", str(rec), "--update")
    assert code == 2 and err == (f"error: --update: cannot rewrite {rec} (Read-only file system); "
                                 "the file is unchanged")
    assert rec.read_bytes() == before


def test_item9_17_edited_records_are_refused_in_one_line(tmp_path, capsys):
    import json

    src = ROOT / "book" / "paper_scale" / "tk-kernels.json"
    for field, value, says in (("scale", "huge", "scale 'huge'; allowed: book, paper"),
                               ("seed", -1, "seed must be an integer >= 0, got -1")):
        rec = json.loads(src.read_text())
        rec[field] = value
        path = tmp_path / "tk-kernels.json"
        path.write_text(json.dumps(rec))
        assert cli(capsys, "rederive", str(path)) == (2, f"error: {path}: not a valid record ({says})")


def test_item9_data_errors_deep_in_a_runner_are_one_line(tmp_path, monkeypatch):
    from tempnets.book import experiments

    rec = tmp_path / "tk-kernels.json"
    rec.write_text((ROOT / "book" / "paper_scale" / "tk-kernels.json").read_text())
    for err in (IndexError("index 3 is out of bounds"), ZeroDivisionError("division by zero")):
        def runner(scale, seed, jobs, progress, trained=None, err=err):
            raise err

        monkeypatch.setattr(experiments.Experiment, "runner", lambda self, r=runner: r)
        with pytest.raises(ValueError, match=rf"the record's data cannot be re-derived .*"
                                             rf"\({type(err).__name__}: "):
            experiments.rederive(rec)


# ----------------------------------------------------------------------------- item 10

def test_item10_no_cache_locator_falls_back_with_one_warning_line(tmp_path):
    """A read-only install with no writable cache: numba finds no locator (simulated with a
    locator that never applies); the kernels still import and run, with one line on stderr."""
    import os
    import subprocess
    import sys

    code = ("import numba, tempnets.models.focused, tempnets.training.focused_training, tempnets.training.srn_trainers, "
            "tempnets.models.fast_weights, tempnets.models.rtrl, tempnets.models.bptt, tempnets.models.srn\n"
            "from tempnets._numerics.portable import logistic\n"
            "assert logistic(0.0) == 0.5 and numba.config.CACHE_DIR\n")
    env = dict(os.environ, NUMBA_CACHE_LOCATOR_CLASSES="ZipCacheLocator")
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tempnets: numba cannot cache compiled kernels here")


# ----------------------------------------------------------------------------- every check speaks
# The audit by mutation (tests/mutation_audit.py) takes each argument check of the modules
# of issue 21 out in turn and runs the tests in which that check raised.  These are the checks
# no test made raise: one bad input each, and the message it must give (a test that accepted
# any ValueError would pass on a later, unrelated error).

def _bad_inputs():
    import dataclasses
    import json

    from tempnets.training import optim

    from tempnets.models import rtrl, tkrnn

    from tempnets.book import selfcheck

    from tempnets.tasks import streams
    from tempnets.chapters import fast_weights as chfw
    from tempnets.chapters import focused_backprop as fb
    from tempnets.chapters import temporal_kernels as tk
    from tempnets.training.srn_trainers import DivergenceError
    from tempnets.models import fast_weights as fw
    from tempnets.models import rnn_baselines as rb
    from tempnets.tasks import sequences as sq
    from tempnets.tasks import verbs as V

    p, s = net_and_seqs()
    st = F.init_many("focused", 3, 2, 2, 2, rng=0)
    long = F.make_sequences([np.ones((40, 3))], [[1.0, 0.0]])
    grows = p._replace(d=np.full(2, 1e10))  # eq. 1 context activity grows like 1e10**40
    net = fw.FastWeightNet(3, 3, 1)
    U, x3, d31 = fw.init_slow_weights(net, rng=0), np.eye(3), np.zeros((3, 1))
    state = fw.initial_state(net, U)
    rn = rtrl.RecurrentNet(3, 4, 2)
    W, xr, dr = rtrl.init_weights(rn, rng=0), np.eye(3)[[0, 1, 2, 0]], np.zeros((4, 2))
    tp, xb, tb = tkrnn.init_params(4, 3, 5, rng=0), np.zeros((3, 2, 4)), np.zeros((3, 2), dtype=int)
    rp = rb.rnn_init(4, 3, 5, rng=0)
    task = sq.SerialRecall(alphabet=4, length=2, delays=(1, 3))
    _, t, m = sq.encode(task, np.array([[1, 2], [3, 0]]), 1)
    logits = np.zeros(t.shape + (task.n_out,))
    a = np.ones(2)
    verb, spelling, _ = V.regular_verbs()[0]
    recall = json.loads((ROOT / "book" / "paper_scale" / "tk-serial-recall.json").read_text())["data"]
    del recall["models"]["LSTM"]
    ve, vt = ValueError, TypeError
    overflow = ("context activity overflowed (largest |decay| or recurrent eigenvalue 1e+10, longest "
                "sequence 40 steps): with eq. 1 activity grows like d**T; keep |d_i| near or below 1")
    return [
        # focused
        ("focused-connection_count", lambda: F.connection_count({}), vt,
         "params must be FocusedParams or FullParams, got dict"),
        ("focused-init_focused-n_in", lambda: F.init_focused(0, 2, 2), ve, "n_in must be an integer >= 1, got 0"),
        ("focused-init_focused-d_range0", lambda: F.init_focused(3, 2, 2, d_range=(np.nan, 1.0)), ve,
         "d_range[0] must be a finite number, got nan"),
        ("focused-init_full-n_ctx", lambda: F.init_full(3, 0, 2), ve, "n_ctx must be an integer >= 1, got 0"),
        ("focused-make_sequences-count", lambda: F.make_sequences([np.ones((4, 3))], [[1.0, 0.0]] * 2), ve,
         "1 input sequences but 2 targets"),
        ("focused-make_sequences-target-shape", lambda: F.make_sequences([np.ones((4, 3))], [np.ones((3, 2))]),
         ve, "target 0 must have shape (n_out,) or (4, n_out), got (3, 2)"),
        ("focused-make_sequences-n_out", lambda: F.make_sequences([np.ones((4, 3))] * 2, [[1.0, 0], [1.0, 0, 0]]),
         ve, "target 1 has 3 output units, target 0 has 2"),
        ("focused-make_sequences-finite", lambda: F.make_sequences([np.ones((4, 3))], [[np.nan, 0.0]]), ve,
         "inputs and targets must be finite"),
        ("focused-check_params", lambda: F.forward({}, s), vt, "params must be FocusedParams or FullParams, got dict"),
        ("focused-check_sequences", lambda: F.forward(p, (s.X, s.Y)), vt,
         "seqs must be a Sequences (see make_sequences), got tuple"),
        ("focused-feedback", lambda: F.forward(p, s, feedback=-1), ve, "feedback must be an integer >= 0, got -1"),
        ("focused-trace_gradient-overflow", lambda: F.trace_gradient(grows, long), ve, overflow),
        ("focused-bptt_gradient-overflow", lambda: F.bptt_gradient(grows, long), ve, overflow),
        ("focused-init_many-arch", lambda: F.init_many("lstm", 3, 2, 2, 2), ve,
         "unknown architecture 'lstm'; allowed: focused, full"),
        ("focused-init_many-n", lambda: F.init_many("focused", 3, 2, 2, 0), ve,
         "n_networks must be an integer >= 1, got 0"),
        # focused_training
        ("focused_training-variant", lambda: FT.FocusedConfig(variant="eq2").validate(), ve,
         "unknown variant 'eq2'; allowed: eq1, eq3"),
        ("focused_training-score", lambda: FT.FocusedConfig(score="x").validate(), ve,
         "unknown score 'x'; allowed: argmax, quantised"),
        ("focused_training-feedback", lambda: FT.FocusedConfig(feedback=-1).validate(), ve,
         "feedback must be an integer >= 0, got -1"),
        ("focused_training-one-network", lambda: FT.train(s, p, n_epochs=1), vt,
         "params must be a stack of networks (FocusedParams/FullParams with a leading network axis"),
        ("focused_training-n_epochs", lambda: FT.train(s, st, n_epochs=-1), ve,
         "n_epochs must be an integer >= 0, got -1"),
        # verbs
        ("verbs-encode_symbols", lambda: V.encode_symbols("", V.TABLE1), ve,
         "need a non-empty string of symbols, got ''"),
        ("verbs-verb_task-class", lambda: V.verb_task([(verb, spelling, 2)], 2), ve,
         f"verb {verb!r} has class 2, allowed 0..1"),
        ("verbs-buffered-short", lambda: V.buffered(V.encode_symbols("—D—", V.TABLE1), 5), ve,
         "need at least 5 coded elements for a 5-slot buffer, got shape (3, 3)"),
        # fast_weights
        ("fast_weights-U-shape", lambda: fw.run(net, np.zeros((2, 2)), x3, x3), ve,  # says what the shape is
         "slow weights U must have shape (3, 3) (n_s_out, n_s_in) for interface 'per-weight', got (2, 2)"),
        ("fast_weights-U", lambda: fw.run(net, np.full(net.shape_U, np.nan), x3, x3), ve,
         "slow weights U must be finite, got nan at index (0, 0)"),
        ("fast_weights-xf", lambda: fw.run(net, U, x3, np.full((3, 3), np.nan)), ve,
         "xf (F's inputs) must be finite, got nan at index (0, 0)"),
        ("fast_weights-mask-type", lambda: fw.train_online(net, U, x3, x3, d31, mask="ab"), vt,
         "mask must be an array of real numbers, got 'ab'"),
        ("fast_weights-d-scored", lambda: fw.train_online(net, U, x3, x3, np.full((3, 1), np.nan)), ve,
         "targets d contain NaN or infinite values on scored steps"),
        ("fast_weights-state-shape", lambda: fw.run(net, U, x3, x3, state=state._replace(W=np.zeros((2, 2)))),
         ve, "state must have W of shape (1, 3) and P of shape (1, 3, 2, 3), got (2, 2) and (1, 3, 2, 3)"),
        ("fast_weights-state-P", lambda: fw.run(net, U, x3, x3, state=state._replace(P=np.full(state.P.shape, np.nan))),
         ve, "state.P must be finite, got nan at index (0, 0, 0, 0)"),
        ("fast_weights-stop_after", lambda: fw.train_online(net, U, x3, x3, d31, stop_after=-1), ve,
         "stop_after must be an integer >= 0, got -1"),
        ("fast_weights-solved_at-errors", lambda: fw.solved_at("ab"), vt,
         "errors must be an array of real numbers, got 'ab'"),
        ("fast_weights-solved_at-mask-short", lambda: fw.solved_at(np.zeros(5), mask=[1, 1]), ve,
         "mask must have at least 5 entries (one per error), got 2"),
        ("fast_weights-solved_at-mask-nan", lambda: fw.solved_at(np.zeros(3), mask=[1, np.nan, 1]), ve,
         "mask must be finite, got nan at index 1"),
        ("fast_weights-linear_attention", lambda: fw.linear_attention(np.ones((3, 2)), np.ones((3, 3)), np.ones((3, 1))),
         ve, "need q, k of one shape (n, d_k) and v of shape (n, d_v); got (3, 2), (3, 3), (3, 1)"),
        ("fast_weights-additive_memory", lambda: fw.additive_memory(np.ones((3, 2)), np.ones((3, 3)), np.ones((3, 1))),
         ve, "need q, k of one shape (n, d_k) and v of shape (n, d_v); got (3, 2), (3, 3), (3, 1)"),
        # tkrnn
        ("tkrnn-init_params-n_out", lambda: tkrnn.init_params(4, 3, 0), ve, "n_out must be an integer >= 1, got 0"),
        ("tkrnn-init_params-lam_range", lambda: tkrnn.init_params(4, 3, 5, lam_range=(0.9, 0.1)), ve,
         "lam_range must be (low, high) with low <= high, got (0.9, 0.1)"),
        ("tkrnn-mismatched", lambda: tkrnn.tkrnn_forward(dict(tp, theta=np.zeros((2, 7))), xb), ve,
         "TKRNN params have mismatched sizes (need theta (n, H + I), W_h (H, n (H + I)), b_h (H,), "
         "W_z (O, n (H + I)), b_z (O,)), got W_h (3, 7), b_h (3,), W_z (5, 7), b_z (5,), theta (2, 7)"),
        ("tkrnn-n_params-n_kernels", lambda: tkrnn.n_params(4, 3, 5, 0), ve, "n_kernels must be an integer >= 1, got 0"),
        ("tkrnn-multiply_adds-n_in", lambda: tkrnn.multiply_adds(0, 3, 5), ve, "n_in must be an integer >= 1, got 0"),
        ("tkrnn-x-shape", lambda: tkrnn.tkrnn_loss_and_grad(tp, np.zeros((3, 4)), tb), ve,
         "x must have shape (T, B, n_in) with T, B, n_in >= 1, got (3, 4)"),
        ("tkrnn-x-nan", lambda: tkrnn.tkrnn_loss_and_grad(tp, np.full((3, 2, 4), np.nan), tb), ve,
         "x has NaN or infinite entries"),
        ("tkrnn-target-dtype", lambda: tkrnn.tkrnn_loss_and_grad(tp, xb, tb.astype(float)), ve,
         "target must be integer class indices of shape (3, 2), got float64 (3, 2)"),
        ("tkrnn-kernel", lambda: tkrnn.kernel([1.0, 2.0], [0.5], [1, 2]), ve,
         "weights and lambdas must be 1-D of the same length, got (2,) and (1,)"),
        # rnn_baselines
        # (a string: a size of 0 would be refused again by n_params, with the same message)
        ("rnn_baselines-matched_hidden-n_in", lambda: rb.matched_hidden("rnn", "3", 2, 100), ve,
         "n_in must be an integer >= 1, got '3'"),
        ("rnn_baselines-matched_hidden-n_out", lambda: rb.matched_hidden("rnn", 3, "2", 100), ve,
         "n_out must be an integer >= 1, got '2'"),
        ("rnn_baselines-init", lambda: rb.rnn_init(4, 0, 5), ve, "n_hidden must be an integer >= 1, got 0"),
        ("rnn_baselines-keys", lambda: rb.rnn_loss_and_grad({"W_h": 1}, xb, tb), vt,
         "RNN params must be a dict with keys ('W_h', 'b_h', 'W_z', 'b_z'), got ['W_h']"),
        ("rnn_baselines-b_h", lambda: rb.rnn_loss_and_grad(dict(rp, b_h=np.full(3, np.nan)), xb, tb), ve,
         "RNN params['b_h'] must be finite, got nan at index 0"),
        ("rnn_baselines-mismatched",
         lambda: rb.rnn_loss_and_grad(dict(rp, W_h=np.zeros((3, 2)), W_z=np.zeros((5, 2))), xb, tb), ve,
         "RNN params have mismatched sizes: W_h has 2 columns, need H + I > H = 3"),
        # sequences
        ("sequences-steps", lambda: task.steps(-1), ve, "a delay must be an integer >= 0, got -1"),
        ("sequences-make_batch", lambda: sq.make_batch(task, 0, rng=0), ve, "batch_size must be an integer >= 1, got 0"),
        ("sequences-make_batch-delay", lambda: sq.make_batch(task, 2, rng=0, delay=2.5), ve,
         "a delay must be an integer >= 0, got 2.5"),
        ("sequences-target", lambda: sq.recall_scores(logits, t.astype(float), m), vt,
         "target must be an array of integers, got ndarray of dtype float64"),
        ("sequences-mask", lambda: sq.recall_scores(logits, t, np.full(m.shape, np.nan)), ve,
         "mask must be finite, got nan at index (0, 0)"),
        ("sequences-logits", lambda: sq.recall_scores(logits[..., 0], t, m), ve,
         "logits must have shape (T=6, B=2, any) (T from target; B from target), got shape (6, 2)"),
        ("sequences-recall-steps", lambda: sq.recall_scores(logits, t, np.zeros(m.shape)), ve,
         "every sequence must have the same number of recall steps (> 0)"),
        # optim
        ("optim-keys", lambda: optim.adam_step({"a": a}, {"b": a}, optim.adam_init({"a": a})), ve,
         "grads have keys ['b'], params ['a']"),
        ("optim-train-weights",  # (initial weights must be finite: these overflow in the first update)
         lambda: optim.train(lambda q: (0.0, {"a": -np.ones(1)}), {"a": np.array([1e308])}, lambda gen: (), 2,
                             config=optim.OptimConfig(learning_rate=1e308), progress=False),
         DivergenceError, "training: non-finite weights after update 1"),
        ("optim-train-dtype", lambda: optim.train(lambda q: (0.0, {"a": np.zeros(1)}), {"a": a}, lambda gen: (), 1,
                                                  dtype="float16", progress=False),
         ve, "dtype must be one of ['float32', 'float64'], got 'float16'"),
        # streams
        ("streams-labels", lambda: streams.parking(5), vt, "labels must be a string of d, 1, 2, 3, b; got int"),
        ("streams-n_steps", lambda: streams.random_parking(-1, rng=0), ve, "n_steps must be an integer >= 0, got -1"),
        # rtrl
        ("rtrl-net", lambda: rtrl.RecurrentNet(0, 4, 2), ve, "n_in must be an integer >= 1, got 0"),
        ("rtrl-init_weights-net", lambda: rtrl.init_weights(net), vt, "net must be a RecurrentNet, got FastWeightNet"),
        ("rtrl-train_online-net", lambda: rtrl.train_online(net, W, xr, dr), vt,
         "net must be a RecurrentNet, got FastWeightNet"),
        ("rtrl-x", lambda: rtrl.train_online(rn, W, np.full((4, 3), np.nan), dr), ve,
         "inputs x must be finite, got nan at index (0, 0)"),
        ("rtrl-mask-type", lambda: rtrl.train_online(rn, W, xr, dr, mask="ab"), vt,
         "mask must be an array of real numbers, got 'ab'"),
        ("rtrl-mask-values", lambda: rtrl.train_online(rn, W, xr, dr, mask=[1, 0.5, 1, 1]), ve,
         "mask must be 4 values of 0/1, got shape (4,)"),
        ("rtrl-d-scored", lambda: rtrl.train_online(rn, W, xr, np.full((4, 2), np.nan)), ve,
         "targets d contain NaN or infinite values on scored steps"),
        ("rtrl-stop_after", lambda: rtrl.train_online(rn, W, xr, dr, stop_after=-1), ve,
         "stop_after must be an integer >= 0, got -1"),
        ("rtrl-carry", lambda: rtrl.train_online(rn, W, xr, dr, carry=(np.zeros(4),)), ve,
         "carry must be (y, P) from an earlier train_online of this net"),
        ("rtrl-overflow-fixed-weights",  # learning rate 0: nothing "diverged"
         lambda: rtrl.train_online(rn, np.full(rn.shape_W, 1e300), np.full((4, 3), 1e10),
                                   np.full((4, 2), 1e300), learning_rate=0.0),
         DivergenceError, "RTRL: the error overflowed at step 1 with the weights fixed (learning rate 0): "
                          "scored targets or weights too large"),
        # selfcheck: a reference giving two values, an answer giving one
        ("selfcheck-count", lambda: selfcheck.check_function("f", lambda v: 1.0, lambda v: (v, v), [(1.0,)]),
         selfcheck.CheckFailed, "f: returned 1 value(s), expected 2."),
        # chapters: runners refuse bad seeds, jobs and trained= data before any training
        ("focused_backprop-seed", lambda: fb.run_dear("book", -1, progress=False), ve,
         "seed must be an integer >= 0, got -1"),
        ("focused_backprop-trained-type", lambda: fb.run_dear("book", 0, trained=5), vt,
         "trained= must be a Result or its data dict, got int"),
        ("focused_backprop-trained-keys", lambda: fb.run_dear("book", 0, trained={"sizes": {}}), ve,
         "trained= is not the data of run_dear: missing paper, fig3"),
        ("fast_weights_chapter-trained-type", lambda: chfw.run_flipflop("book", 0, trained=5), vt,
         "trained= must be a Result or its data dict, got int"),
        ("fast_weights_chapter-flipflop-jobs", lambda: chfw.run_flipflop("book", 0, jobs=0), ve,
         "jobs must be an integer >= 1, got 0"),
        ("fast_weights_chapter-parking-jobs", lambda: chfw.run_parking("book", 0, jobs=0), ve,
         "jobs must be an integer >= 1, got 0"),
        ("fast_weights_chapter-linear_attention-jobs", lambda: chfw.run_linear_attention("book", 0, jobs=0), ve,
         "jobs must be an integer >= 1, got 0"),
        ("temporal_kernels-setting",
         lambda: dataclasses.replace(tk.SIZES["book"], settings={"RNN": [1.0, 0.01]}).setting("LSTM"), ve,
         "sizes have no setting for model 'LSTM'; they have RNN"),
        ("temporal_kernels-params_from_data", lambda: tk.params_from_data({}, "RNN"), ve,
         "the data has no recorded parameters for 'RNN' (missing key 'params')"),
        ("temporal_kernels-search_choice", lambda: tk.search_choice([], "RNN"), ve, "the search has no runs of 'RNN'"),
        ("temporal_kernels-recall-models", lambda: tk.run_serial_recall(recall["scale"], recall["seed"], trained=recall),
         ve, "trained= data has no runs of 'LSTM'"),
    ]


BAD_INPUTS = _bad_inputs()


@pytest.mark.parametrize("call, exc, message", [c[1:] for c in BAD_INPUTS], ids=[c[0] for c in BAD_INPUTS])
def test_every_check_speaks(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call()


def test_cli_perturb_must_be_below_one(tmp_path, capsys, monkeypatch):
    from tempnets.__main__ import main

    monkeypatch.chdir(tmp_path)  # nothing may be written, here or anywhere
    for eps in ("1", "-0.1", "nan", "x"):
        with pytest.raises(SystemExit) as stop:
            main(["reproduce", "tk-kernels", "--perturb", eps])
        assert stop.value.code == 2
        assert capsys.readouterr().err.startswith(
            f"error: argument --perturb: must be a number in [0, 1), got {eps!r}")
    assert list(tmp_path.iterdir()) == []
