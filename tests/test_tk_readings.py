"""tk-readings (issue 33): each reading's switch changes what it says and nothing else, and
today's reading trains exactly as tk-serial-recall does."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from tempnets.book import experiments

from tempnets.tasks import recall_diagnostics as rd, sequences as sq

from tempnets.models import tkrnn
from tempnets.chapters import temporal_kernels as tk
from tempnets.chapters import tk_readings as tr
from tempnets.chapters.tk_readings import reading_recall as tr_reading_recall

TINY = tk.Sizes(3, 2, (1, 3), 6, 8, 12, 1e-2, 2, 6, (1, 3, 50), 20, dtype="float32", bucketed=True,
                ramp=0.5, final_rate=1e-3)


def _train(reading, name="TKRNN", sz=TINY, **kw):
    return tr.train_reading(name, sz, reading, seed=3, k=1, progress=False, **kw)


def _same(a, b):
    assert set(a) == set(b)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


@pytest.mark.parametrize("name", ["TKRNN", "LSTM"])
def test_todays_reading_trains_the_same_bits_as_tk_serial_recall(name):
    p, h = _train(tr.Reading(), name)
    q, g = tk.train_one(name, TINY, seed=3, k=1, progress=False)
    _same(p, q)
    assert h.loss == g.loss and h.evals == g.evals


def test_teacher_forcing_changes_the_recall_inputs_after_the_first_only():
    task = sq.SerialRecall(5, 3, (1, 4), min_length=1)
    x, t, m, strings, delays = sq.make_batch(task, 16, rng=0)
    y, t2, m2 = tr.teacher_forced(x, t, m)
    assert np.array_equal(t2, t) and np.array_equal(m2, m)
    changed = np.any(y != x, axis=2)
    scored = m == 1
    after_first = scored & np.r_[np.zeros((1, 16), bool), scored[:-1]]
    np.testing.assert_array_equal(changed, after_first)
    tt, bb = np.nonzero(after_first)
    np.testing.assert_array_equal(y[tt, bb].argmax(axis=1), t[tt - 1, bb])  # the previous letter
    assert np.all(y.sum(axis=2) == 1)  # still one-hot
    assert np.all(x[tt, bb, task.alphabet] == 1)  # where the task had blank


def test_teacher_forced_training_poses_every_batch_so():
    assert tr._poser(tr.Reading(recall="teacher")) is tr.teacher_forced
    p, _ = _train(tr.Reading(recall="teacher"))
    q, _ = _train(tr.Reading())
    assert not np.array_equal(p["W_h"], q["W_h"])


def test_frozen_decays_never_move_and_the_rest_trains():
    p0 = tk.build("TKRNN", TINY.task, TINY.hidden, tk._rngs(3, 1)[0])
    p, _ = _train(tr.Reading(decays="frozen"))
    q, _ = _train(tr.Reading())
    np.testing.assert_array_equal(p["theta"], p0["theta"].astype(np.float32))
    assert not np.array_equal(q["theta"], p["theta"])
    assert not np.array_equal(p["W_h"], p0["W_h"].astype(np.float32))


def test_slow_decays_take_a_fraction_of_the_step_and_nothing_else_changes():
    one = dataclasses.replace(TINY, updates=1, eval_every=1)
    p0 = tk.build("TKRNN", one.task, one.hidden, tk._rngs(3, 1)[0])
    p, _ = _train(tr.Reading(decays="slow", decay_rate=0.1), sz=one)
    q, _ = _train(tr.Reading(), sz=one)
    for key in ("W_h", "b_h", "W_z", "b_z"):  # Adam's first step is the rate times the sign
        # (up to float32's rounding of θ = c (θ / c), which moves the gradient in its 7th digit)
        np.testing.assert_allclose(p[key], q[key], rtol=1e-5, atol=1e-7, err_msg=key)
    theta0 = p0["theta"].astype(np.float32)
    np.testing.assert_allclose(p["theta"] - theta0, 0.1 * (q["theta"] - theta0), rtol=1e-3, atol=1e-6)
    assert np.all(q["theta"] != theta0)


def test_capped_decays_stay_below_the_cap():
    hot = dataclasses.replace(TINY, updates=40, learning_rate=0.5, final_rate=None)
    reading = tr.Reading(decays="capped", decay_cap=0.8, lam_range=(0.5, 0.7))
    p, _ = _train(reading, sz=hot)
    q, _ = _train(tr.Reading(lam_range=(0.5, 0.7)), sz=hot)
    assert tkrnn.lam(p).max() <= 0.8 + 1e-6 < tkrnn.lam(q).max()
    one = dataclasses.replace(TINY, updates=1)
    trained, to_model, _ = tr._parametrisation(reading, tr._initial("TKRNN", one, reading,
                                                                     tk._rngs(3, 1)[0], 1.0))
    start = tr._initial("TKRNN", one, tr.Reading(lam_range=(0.5, 0.7)), tk._rngs(3, 1)[0], 1.0)
    np.testing.assert_allclose(to_model(trained)["theta"], start["theta"], rtol=1e-12)
    with pytest.raises(ValueError, match="lam_range .* reaches decay_cap"):
        tr.Reading(decays="capped", decay_cap=0.9)


def test_the_initial_range_changes_the_decays_and_the_batches_stay():
    one = dataclasses.replace(TINY, updates=1)
    wide = tr._initial("TKRNN", one, tr.Reading(lam_range=(0.5, 0.99)), tk._rngs(3, 1)[0], 1.0)
    today = tr._initial("TKRNN", one, tr.Reading(), tk._rngs(3, 1)[0], 1.0)
    la, lb = tkrnn.lam(wide), tkrnn.lam(today)
    assert la.max() > 0.95 >= lb.max() and la.min() >= 0.5
    # the same uniform draws, stretched: the order of the decays is today's
    np.testing.assert_array_equal(np.argsort(la.ravel()), np.argsort(lb.ravel()))


def test_no_input_output_kernel_keeps_those_weights_at_zero_and_others_as_today():
    p, _ = _train(tr.Reading(input_output=False))
    assert np.all(tkrnn.blocks(p)["W_xz"] == 0) and np.any(tkrnn.blocks(p)["W_yz"] != 0)
    one = dataclasses.replace(TINY, updates=1)
    a = tr._initial("TKRNN", one, tr.Reading(input_output=False), tk._rngs(3, 1)[0], 1.0)
    b = tr._initial("TKRNN", one, tr.Reading(), tk._rngs(3, 1)[0], 1.0)
    _same(a, rd.without_input_output(b))


def test_task_and_training_switches_change_their_field_only():
    sz = tk.SIZES["paper"].for_model("TKRNN")
    assert tr.reading_sizes(sz, tr.Reading()) is sz
    five = tr.reading_sizes(sz, tr.Reading(alphabet=128, length=5))
    assert five.task.bits == sz.task.bits == 35 and (five.alphabet, five.length) == (128, 5)
    assert dataclasses.replace(five, alphabet=32, length=7) == sz
    early = tr.reading_sizes(sz, tr.Reading(ramp=0.2))
    assert dataclasses.replace(early, ramp=sz.ramp) == sz
    assert tk.curriculum_task(early, 20_000).length < 7 == tk.curriculum_task(early, 20_001).length
    fast = tr.reading_sizes(sz, tr.Reading(learning_rate=3e-2, final_rate=3e-3))
    assert fast.setting("TKRNN") == (1.0, 3e-2) and fast.final_rate == 3e-3
    assert dataclasses.replace(fast, learning_rate=sz.learning_rate, final_rate=sz.final_rate,
                               settings=sz.settings) == sz
    long = tr.reading_sizes(sz, tr.Reading(updates_factor=2))
    assert (long.updates, long.eval_every) == (2 * sz.updates, 2 * sz.eval_every)


def test_readings_are_checked():
    for kw, msg in [({"recall": "forced"}, "recall must be one of 'blank', 'teacher', got 'forced'"),
                    ({"decays": "fixed"}, "decays must be one of"),
                    ({"decay_rate": 0}, "decay_rate must be a fraction in"),
                    ({"lam_range": (0.9, 0.5)}, "low <= high"),
                    ({"updates_factor": 0}, r"updates_factor \(a multiple of the updates, at most 100\) must"),
                    ({"ramp": 1.5}, r"ramp \(or None\)"),
                    ({"alphabet": 1}, r"alphabet \(or None\)")]:
        with pytest.raises(ValueError, match=msg):
            tr.Reading(**kw)
    with pytest.raises(ValueError, match="model 'LSTM' has neither"):
        _train(tr.Reading(decays="frozen"), "LSTM")


def test_the_screen_rule():
    assert tr.screen_verdict([5, 6, 7, 8], [1, 2, 3, 4]) == {"above": 1.0, "p": 1 / 70, "verdict": "better",
                                                             "interval": (1.0, 1.0)}
    assert tr.screen_verdict([0, 0, 0, 0], [1, 2, 3, 4])["verdict"] == "worse"
    assert tr.screen_verdict([5, 6, 7, 3.5], [1, 2, 3, 4])["verdict"] == "undecided"
    assert tr.screen_verdict([5, 6, 7, 3.5], [1, 2, 3, 4])["above"] == 15 / 16
    assert tr.screen_verdict([5, 6, 7], [1, 2, 3])["verdict"] == "undecided"  # p = 0.05 at best


def test_the_screen_runs_and_rederives(monkeypatch):
    monkeypatch.setitem(tr.SCREEN, "networks", 2)
    monkeypatch.setitem(tr.SCREEN["base"], "book", {"updates": 4, "eval_every": 2, "batch": 4,
                                                    "n_test": 8, "delays": (1, 3)})
    r = tr.run_readings("book", progress=False)
    assert [row["reading"] for row in tr.screen_table(r.data)] == [x for x, _ in tr.READINGS]
    assert len(r.claims.claims) == len(tr.READINGS) - 1
    assert all(c.holds is None for c in r.claims.claims)  # 2 against 2 decide nothing (p >= 1/6)
    again = tr.run_readings("book", trained=r.data)
    assert again.claims.rows() == r.claims.rows()
    assert experiments.resumable("tk-readings")
    with pytest.raises(ValueError, match="readings"):
        tr.run_readings("paper", trained={"runs": [], "sizes": {}})


def _timeless(models):
    """The runs of a result's ``models`` without their wall times."""
    return {n: [{k: v for k, v in r.items() if k != "seconds"} for r in m["runs"]]
            for n, m in models.items()}


def test_the_paper_scale_run_under_todays_reading_is_tk_serial_recall(monkeypatch):
    small = dataclasses.replace(TINY, seeds=1, bucketed=False, dtype="float64")
    monkeypatch.setitem(tk.SIZES, "book", small)
    monkeypatch.setitem(tr.RECALL_SIZES, "book", small)
    monkeypatch.setattr(tr_reading_recall, "ADOPTED", "today's reading")
    assert tr.RECALL_SIZES["paper"].seeds == 6
    ours = tr.run_reading_recall("book", seed=2, progress=False)
    theirs = tk.run_serial_recall("book", seed=2, progress=False)
    assert _timeless(ours.data["models"]) == _timeless(theirs.data["models"])
    measured = [[(r["statement"], r["ours"], r["interval"], r["note"]) for r in res.claims.rows()]
                for res in (ours, theirs)]  # (what the chapter states about them differs)
    assert measured[0] == measured[1]
    again = tr.run_reading_recall("book", trained=ours.data)
    assert again.claims.rows() == ours.claims.rows()
    monkeypatch.setattr(tr_reading_recall, "ADOPTED", "no input→output kernel")
    cut = tr.run_reading_recall("book", seed=2, progress=False)
    assert cut.data["reading"] == ["no input→output kernel", {"input_output": False}]
    assert np.all(tkrnn.blocks(tk.params_from_data(cut.data, "TKRNN", 0))["W_xz"] == 0)
    models = _timeless(cut.data["models"])
    assert models["LSTM"] == _timeless(theirs.data["models"])["LSTM"]  # the switch is the TKRNN's
    assert models["TKRNN"] != _timeless(theirs.data["models"])["TKRNN"]
    with pytest.raises(ValueError, match="tk-reading-recall"):
        tr.run_reading_recall("paper", trained={"models": {}, "sizes": {}, "params": {}})


def test_the_adopted_reading_is_the_screens_choice():
    """ADOPTED is the reading the recorded screen calls better, with the most strings recalled."""
    path = Path(__file__).resolve().parents[1] / "book" / "paper_scale" / "tk-readings.json"
    rows = tr.screen_table(experiments.read_record(path)["data"])
    better = [r for r in rows if r["verdict"] == "better"]
    assert better and max(better, key=lambda r: (r["string"], r["symbol"]))["reading"] == tr.ADOPTED


def test_the_screen_claims_notes_are_filled_in():
    """Every note of the recorded screen's claims says its numbers (no placeholder such as
    ``{row['symbol']:.3f}`` left unformatted)."""
    path = Path(__file__).resolve().parents[1] / "book" / "paper_scale" / "tk-readings.json"
    table = tr._screen_claims(experiments.read_record(path)["data"], "paper")
    assert table.claims and not [c.note for c in table.claims if "{" in c.note or "}" in c.note]


def test_the_readings_table_reads_each_models_networks_at_the_delay():
    """A row per reading and model, from the runs' own scores at the delay asked for."""
    path = Path(__file__).resolve().parents[1] / "book" / "paper_scale" / "tk-serial-recall.json"
    data = experiments.read_record(path)["data"]
    j = list(data["sizes"]["test_delays"]).index(50)
    rows = tr.readings_table({"blank recall": data, "again": data})
    assert [(r["reading"], r["model"]) for r in rows] == [(label, m) for label in ("blank recall", "again")
                                                           for m in tk.MODELS]
    for r in rows:
        runs = data["models"][r["model"]]["runs"]
        scores = [run["string"][j] for run in runs]
        assert r["networks"] == len(runs) and r["string"] == float(np.median(scores))
        assert r["string_range"] == (min(scores), max(scores))
        assert r["symbol_range"][0] <= r["symbol"] <= r["symbol_range"][1]
    with pytest.raises(ValueError, match="delay 7 is not one of the test delays of runs\\['x'\\]"):
        tr.readings_table({"x": data}, delay=7)
    with pytest.raises(TypeError, match="runs\\['x'\\] must be a serial-recall result's data"):
        tr.readings_table({"x": [1]})
    with pytest.raises(ValueError, match="missing models"):
        tr.readings_table({"x": {"sizes": data["sizes"]}})
