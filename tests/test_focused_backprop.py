"""Chapter module focused_backprop: runners re-derive their claims from data; exercise checks."""

import numpy as np
import pytest

from tempnets import experiments
from tempnets.chapters import focused_backprop as fb
from tempnets.selfcheck import CheckFailed

SMALL = {"mozer-dear": fb.Sizes(6, 300), "mozer-verbs": fb.Sizes(3, 100), "mozer-reversed": fb.Sizes(3, 100),
         "mozer-reproduce": fb.Sizes(3, 100, 150), "mozer-large-verbs": fb.Sizes(2, 30)}
RUNNERS = {"mozer-dear": fb.run_dear, "mozer-verbs": fb.run_verbs, "mozer-reversed": fb.run_reversed,
           "mozer-reproduce": fb.run_reproduce, "mozer-large-verbs": fb.run_large_verbs}


@pytest.fixture
def small(monkeypatch):
    for exp, sz in SMALL.items():
        monkeypatch.setitem(fb.SIZES, exp, {"book": sz, "paper": sz})


@pytest.mark.parametrize("exp", list(RUNNERS))
def test_runner_rederives_its_claims_from_its_data(small, exp):
    run = RUNNERS[exp]
    first = run("book", 3, progress=False)
    again = run("book", 3, progress=False, trained=first.data)
    assert [repr(r["ours"]) for r in first.claims.rows()] == [repr(r["ours"]) for r in again.claims.rows()]
    assert experiments.get(exp).runner() is run
    with pytest.raises(ValueError, match="missing"):
        run("book", 3, progress=False, trained={"sizes": {}})


def test_same_seed_same_result(small):
    a, b = fb.run_dear("book", 1, progress=False), fb.run_dear("book", 1, progress=False)
    assert a.data["paper"]["epochs_to_criterion"] == b.data["paper"]["epochs_to_criterion"]
    c = fb.run_dear("book", 2, progress=False)
    assert a.data["paper"]["epochs_to_criterion"] != c.data["paper"]["epochs_to_criterion"]


def test_dear_kept_reads_the_papers_examples_by_its_definition():
    # (boundary pair, inner pair) of each key letter, delimiters included
    assert [fb.dear_kept("DEAR", k) for k in "DR"] == ["both", "both"]
    assert [fb.dear_kept("ARBE", k) for k in "BR"] == ["inner", "inner"]        # keeps AR, BE
    assert [fb.dear_kept("DAER", k) for k in "DR"] == ["boundary", "boundary"]  # keeps —D, R—
    assert [fb.dear_kept("DAER", k, boundaries=False) for k in "DR"] == ["neither", "neither"]
    assert [fb.dear_kept("DEAR", k, boundaries=False) for k in "DR"] == ["inner", "inner"]
    assert [fb.dear_kept("RB", k) for k in "BR"] == ["neither", "neither"]
    with pytest.raises(ValueError, match="letter must be one of D, B, R, N"):
        fb.dear_kept("DEAR", "E")


def test_none_kept_set_is_every_permutation_without_a_key_pair():
    perms = fb.dear_permutations()
    assert len(perms) == 96 and len(set(perms)) == 96
    none = set(fb.DEAR_NONE_KEPT)
    assert {"EDRA", "RBAE", "NEAB"} <= none and not {"DAER", "ARBE", "DEAR", "EDAR"} & none
    for s in perms:
        pairs = set(fb.V.wickelements(s))
        keys = {k for letter in fb._keys(s) for k in fb.DEAR_KEYS[letter]}
        assert (s in none) == (not pairs & keys), s
    assert len(none) == 36


def test_probe_scores_count_words_and_decisions():
    strings = ("DEAR", "BEAN", "ARBE", "EDRA")
    pred = np.array([[0, 0, 0, 0],     # always DEAR
                     [0, 3, 2, 0]])    # right on every word
    np.testing.assert_allclose(fb._word_right(pred, strings), [50.0, 100.0])
    # first-letter decision on the strings whose D/B keeps both pairs: DEAR, BEAN
    np.testing.assert_allclose(fb._decision_right(pred, strings, "first", "both"), [50.0, 100.0])
    # last-letter decision on ARBE, whose R keeps only AR: DEAR says R, right
    np.testing.assert_allclose(fb._decision_right(pred, strings, "last", "inner"), [100.0, 100.0])


def test_dear_probes_of_a_run(small):
    r = fb.run_dear("book", 0, progress=False)
    probes = fb.dear_probes(r.data["fig3"])
    learned = sum(e >= 0 for e in r.data["fig3"]["epochs_to_criterion"])
    assert all(len(v) == learned for v in probes.values())
    assert "EDRA" in fb.dear_probe_table(r.data)


def test_dear_probes_decode_like_the_training_criterion():
    # The recorded networks all reached the criterion (most active output right for every
    # word): decoding the probes' answers must then give 100% on the training words, and the
    # decisions on them must be right too.
    data = experiments.read_record(experiments.find_record("paper_scale/mozer-dear.json"))["data"]
    for name in ("paper", "fig3"):
        nets = fb._learned(data[name])
        pred = fb._probe(nets, fb.DEAR_WORDS)
        assert pred.shape == (nets.W_in.shape[0], 4)
        assert set(fb._word_right(pred, fb.DEAR_WORDS)) == {100.0}
        for side in ("first", "last"):
            assert set(fb._decision_right(pred, fb.DEAR_WORDS, side, "both")) == {100.0}


def test_params_round_trip(small):
    r = fb.run_verbs("book", 0, progress=False)
    p = fb.params_from_data(r.data["focused"]["params"])
    assert p.W_in.shape == (3, 2, 8) and p.d.shape == (3, 2)


def test_figure5_verbs_pick_five_of_each_kind():
    held = fb.V.held_out_regulars(fb.V.load_cmudict())
    picked = fb.figure5_verbs(held)
    assert len(picked) == 20
    assert all(sp[-1] == "t" for _, sp, _ in picked[:5]) and all(sp[-1] == "d" for _, sp, _ in picked[5:10])


def test_auc_separates_and_does_not():
    x = np.array([0.1, 0.2, 0.9, 0.8])
    assert fb._auc(x, np.array([False, False, True, True])) == 1.0
    assert fb._auc(x, np.array([True, False, True, False])) == 0.5


def test_exercise_checks_accept_solutions_and_reject_mistakes():
    def gamma(d, T):
        out, g = [], 0.0
        for _ in range(T):
            g = 1 + d * g
            out.append(g)
        return np.array(out)
    fb.check_gamma(gamma)
    with pytest.raises(CheckFailed):
        fb.check_gamma(lambda d, T: np.array([d ** t for t in range(1, T + 1)]))

    def alpha(d, s):
        T = len(s)
        return sum((T - tau) * d ** (T - tau - 1) * s[tau - 1] for tau in range(1, T))
    fb.check_alpha_closed_form(alpha)
    with pytest.raises(CheckFailed):
        fb.check_alpha_closed_form(lambda d, s: sum(d ** (len(s) - t) * v for t, v in enumerate(s, 1)))
    fb.check_rtrl_memory(25 * 25 * 34 / (25 * 9 + 50))
    with pytest.raises(CheckFailed):
        fb.check_rtrl_memory(25 ** 3 / (25 * 8))
    with pytest.raises(CheckFailed):
        fb.check_rtrl_memory(...)


def test_unfolded_network_draws_both_views():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tempnets import plots
    fig, (a, b) = plt.subplots(1, 2)
    deep = plots.unfolded_network(5, focused=False, ax=a)
    wide = plots.unfolded_network(5, focused=True, ax=b)
    texts = lambda ax: [t.get_text() for t in ax.texts]
    assert "c(5)" in texts(deep) and sum(t.startswith("c(") for t in texts(deep)) == 5
    assert sum(t.startswith("s[net(") for t in texts(wide)) == 5
    plt.close(fig)


def test_operation_counts_grow_with_the_network_and_compare_the_methods():
    one = fb.operation_counts(8, 25, 13, [5])
    two = fb.operation_counts(8, 25, 13, [5, 5])
    assert two["traces"] == 2 * one["traces"] and two["bptt"] == 2 * one["bptt"]
    # per step the traces add 3n(m+1)+6n, BPTT 2n(m+1)+6n: one more operation per input weight
    longer = fb.operation_counts(8, 25, 13, [6])
    assert (longer["traces"] - one["traces"]) - (longer["bptt"] - one["bptt"]) == 25 * 9
    assert 1.0 < one["ratio"] < 1.5


def test_ttest_with_a_constant_group_is_quiet_and_pooled():
    """Every full delay-4 run can stop at 70%: no scipy warning reaches the page, t is Student's pooled t."""
    import warnings

    a, b = np.array([85.0, 100.0, 90.0, 70.0, 95.0]), np.full(5, 70.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t, p = fb._ttest(a, b)
    pooled = np.sqrt(((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1)) / (a.size + b.size - 2))
    assert t == pytest.approx((a.mean() - b.mean()) / (pooled * np.sqrt(1 / a.size + 1 / b.size)), rel=1e-12)
    assert 0 < p < 0.05


def test_claims_over_runs_carry_intervals_and_are_inconclusive_when_they_straddle():
    """Re-derived from the paper-scale record (no training): a count of runs carries its Wilson
    interval, and a claim whose interval straddles its threshold is inconclusive, not asserted."""
    import copy
    import json
    from pathlib import Path

    from tempnets import intervals

    path = Path(__file__).resolve().parents[1] / "book" / "paper_scale" / "mozer-reproduce.json"
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    rows = {r["statement"]: r for r in fb.run_reproduce("paper", 0, trained=data).claims.rows()}
    diff = rows["delay 4: focused learns perfectly more often than full (runs, difference)"]
    assert diff["ours"] == 5 and diff["expected"] is None  # 5 focused vs 0 full runs (record of 70aa539)
    lo, hi = diff["interval"]
    assert lo < 3 <= hi and diff["holds"] is None and diff["verdict"] == "inconclusive at this scale"
    focused = rows["delay 4: focused runs learning perfectly"]
    assert focused["interval"] == pytest.approx([15 * v for v in intervals.share(focused["ours"], 15)])
    assert focused["holds"] is False  # 5 of 15: the whole interval (up to 8.7) lies below 12 - 3
    # 'all runs learn' is a share against a stated bound (issue 32): 15 of 15 clears 75%, decided
    every = copy.deepcopy(data)
    every["full_delay1"]["epochs_to_criterion"] = [100] * 15
    row = {r["statement"]: r for r in fb.run_reproduce("paper", 0, trained=every).claims.rows()}[
        "delay 1: the full runs learn the task perfectly (% of runs; the paper: all)"]
    assert row["ours"] == 100.0 and row["holds"] is True and row["expected"] is None
    assert row["verdict"] == "holds"


def test_delay4_full_mean_is_not_tested_when_doing_nothing_passes(small):
    data = fb.run_reproduce("book", 0, progress=False).data

    def rows(final):
        data["full_delay4"]["final"] = final
        return {r["statement"]: r for r in fb.run_reproduce("book", 0, trained=data).claims.rows()}

    silent = rows([70.0] * len(data["full_delay4"]["final"]))
    full = silent["delay 4: mean final performance, full (% of steps right)"]
    assert full["holds"] is None and "outputting zeros" in full["not_tested"]
    beats = next(r for s, r in silent.items() if s.startswith("delay 4: the full network does better"))
    assert beats["ours"] == 0.0 and beats["holds"] is False
    # the check itself is vacuous (70 is within 5 of 72.9), whatever the runs did; the row that
    # compares with the baseline is what tells learning from none, and the focused row is tested
    learned = rows([100.0, 90.0, 95.0][: len(data["full_delay4"]["final"])])
    assert learned["delay 4: mean final performance, full (% of steps right)"]["holds"] is None
    beats = next(r for s, r in learned.items() if s.startswith("delay 4: the full network does better"))
    assert beats["ours"] > 1.0 and beats["holds"] is not False
    assert "not_tested" not in learned["delay 4: mean final performance, focused (% of steps right)"]
