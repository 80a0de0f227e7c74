"""Issue 21: every compiled kernel behind a checked entry.

One test per finding of the hostile-input audit (the item number in its name): each fails
without its fix.  Errors must name the argument, the value and what is allowed.
"""

import re
from pathlib import Path

import numpy as np
import pytest

from tempnets import checks
from tempnets import focused as F
from tempnets import focused_training as FT

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
    from tempnets import streams

    for kw in (dict(p_stop=1e-9), dict(p_finish=1e-12)):
        with pytest.raises(ValueError, match=r"must be a probability in \[1e-06, 1\] .*never ends"):
            streams.random_parking(10, rng=0, **kw)
    assert len(streams.random_parking(10, rng=0, p_stop=1e-6)) == 10


def test_item14_parking_query_and_distractors_are_checked():
    from tempnets import streams

    with pytest.raises(ValueError, match=r"query must be finite, got nan at index 0"):
        streams.parking("d1b", query=[np.nan, 1, 1])
    with pytest.raises(ValueError, match=r"query must hold 0/1 values, got 0.5"):
        streams.parking("d1b", query=[0.5, 1, 1])
    with pytest.raises(ValueError, match=r"distractors must have shape \(n=3, 3\) \(n from labels\)"):
        streams.parking("d1b", distractors=np.zeros((2, 3)))


def test_item12_reproduction_task_refuses_sizes_that_would_not_fit():
    from tempnets import verbs

    with pytest.raises(ValueError, match=r"reproduction_task\(1, 'ABCDEFGHIJKL'\) would hold 479001600 "
                                         r"sequences .* at most 5e\+07 numbers"):
        verbs.reproduction_task(1, "ABCDEFGHIJKL")
    for bad in ("", "AAB", 3):
        with pytest.raises(ValueError, match="symbols must be a non-empty string of distinct symbols"):
            verbs.reproduction_task(1, bad)
    assert verbs.reproduction_task(1, "ABCD").n_seq == 24


def test_item16_17_verbs_name_bad_arguments():
    from tempnets import verbs

    codes = verbs.encode_symbols("—DEAR—", verbs.TABLE1)
    for slots in (0, -1, 1.5):
        with pytest.raises(ValueError, match=r"slots must be an integer >= 1, got "):
            verbs.buffered(codes, slots)
    with pytest.raises(ValueError, match=r"codes must be finite"):
        verbs.buffered(np.full((3, 3), np.nan))
    with pytest.raises(ValueError, match=r"words and classes must each name at least one word"):
        verbs.dear_task(classes=())


def test_item14_16_serial_recall_encode_and_scores():
    from tempnets import sequences as sq

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
    from tempnets import rnn_baselines as rb
    from tempnets import tkrnn

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
    from tempnets import rnn_baselines as rb
    from tempnets import tkrnn

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
    from tempnets import fast_weights as fw

    net = fw.FastWeightNet(3, 3, 1)
    return fw, net, fw.init_slow_weights(net, rng=0), np.eye(3), np.zeros((3, 1))


def test_item14_gradient_unfolded_refuses_nan_xs0_like_gradient():
    fw, net, U, x, d = fw_problem()
    for f in (fw.gradient, fw.gradient_unfolded):
        with pytest.raises(ValueError, match=r"xs0 must be 3 finite numbers"):
            f(net, U, x, x, d, xs0=[np.nan, 0, 0])


def test_item14_15_fast_weight_state_and_overflow_messages():
    from tempnets.training import DivergenceError

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
    from tempnets import rtrl

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
    from tempnets.optim import OptimConfig

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
        2, f"error: {big}: not an experiment record (1000 MB; records are at most 50 MB)")
    assert cli(capsys, "rederive", "/dev/zero") == (
        2, "error: /dev/zero: not an experiment record (not a regular file)")


def test_item9_17_bad_out_names_are_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = cli(capsys, "reproduce", "tk-kernels", "--out", "a" * 300 + ".json")
    assert code == 2 and err.endswith("File name too long") and "\n" not in err
    assert cli(capsys, "reproduce", "tk-kernels", "--out", "") == (
        2, "error: --out must name a file, got an empty name")
    assert list(tmp_path.iterdir()) == []  # not silently the default name


def test_item9_update_on_a_read_only_file_is_one_line(tmp_path, capsys, monkeypatch):
    import shutil

    from tempnets import experiments

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
    from tempnets import experiments

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

    code = ("import numba, tempnets.focused, tempnets.focused_training, tempnets.training, "
            "tempnets.fast_weights, tempnets.rtrl, tempnets.bptt, tempnets.srn\n"
            "from tempnets.portable import logistic\n"
            "assert logistic(0.0) == 0.5 and numba.config.CACHE_DIR\n")
    env = dict(os.environ, NUMBA_CACHE_LOCATOR_CLASSES="ZipCacheLocator")
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tempnets: numba cannot cache compiled kernels here")
