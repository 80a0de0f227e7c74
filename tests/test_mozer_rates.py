"""Experiment mozer-rates: the search chooses on perfect runs (tests/test_mozer_fidelity.py), its choice is re-derived
from the data (and data that disagree with it are refused), the seeds that choose are not the
seeds that measure, and bad input is refused with a message naming the argument."""

import numpy as np
import pytest

from tempnets.book import experiments
from tempnets.models import focused as F
from tempnets.chapters import focused_backprop as fb
from tempnets.chapters import mozer_rates as mr

TINY = mr.RateSizes(select_runs=2, runs=3, verbs_epochs=60, delay1_epochs=80, delay4_epochs=80)


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setitem(mr.RATE_SIZES, "book", TINY)
    monkeypatch.setattr(mr.runner, "BOOK_GRID", ((0.75, 0.02, 100.0), (1.0, 0.04, 10.0)))  # runner._start reads it


def test_search_chooses_the_setting_that_learns():
    """A rate of 1e-6 cannot learn in 300 epochs; the search must rank it below ρ = 0.04,
    whichever comes first in the grid; its scores are the learning curves' means."""
    grid = ((1.0, 1e-6, 100.0), (0.75, 0.04, 100.0))
    found = mr.search("verbs", "focused", grid, runs=2, epochs=300, seed=1, progress=False, rounds=0)
    assert np.shape(found["score"]) == (2, 2) and np.shape(found["epochs_to_criterion"]) == (2, 2)
    assert found["settings"] == [list(g) for g in grid] and found["rounds"] == 0
    assert mr.choose(found) == 1
    again = mr.search("verbs", "focused", grid[::-1], runs=2, epochs=300, seed=1, progress=False, rounds=0)
    assert mr.choose(again) == 0
    # The score is the mean % right over epochs 0..300 of the same networks trained alone.
    seqs = mr.V.verb_task(mr.V.regular_verbs(), 3)
    init = F.init_many("focused", 8, 2, 3, 2, fb._rng(1, "mozer-rates", "select", "verbs", "focused"))
    h = mr.T.train(seqs, init, n_epochs=300, config=mr.task_config("verbs", *grid[1]), progress=False)
    np.testing.assert_allclose(found["score"][1], h.performance.mean(axis=1), atol=1e-4)
    np.testing.assert_array_equal(found["epochs_to_criterion"][1], h.epochs_to_criterion)


def test_the_networks_that_choose_are_not_the_networks_that_measure():
    """The search draws from its own stream; the measuring runs from mozer-reproduce's and
    mozer-verbs' (so the tuned and untuned tables start from the same weights)."""
    for task, theirs in (("delay4", ("reproduce", 4, "full")), ("verbs", ("verbs", "focused"))):
        arch = theirs[-1]
        n_in, n_ctx, n_out = (6, 3, 3) if task != "verbs" else (8, 2, 3)
        select = F.init_many(arch, n_in, n_ctx, n_out, 3, fb._rng(0, "mozer-rates", "select", task, arch))
        measure = F.init_many(arch, n_in, n_ctx, n_out, 3, fb._rng(0, *theirs))
        assert not np.allclose(select.W_in, measure.W_in)


def test_runner_rederives_its_claims_and_refuses_data_the_search_contradicts(tiny):
    first = mr.run_rates("book", 2, progress=False)
    assert experiments.get("mozer-rates").runner() is mr.run_rates
    again = mr.run_rates("book", 2, progress=False, trained=first.data)
    assert repr(again.claims.rows()) == repr(first.claims.rows())  # repr: nan == nan
    for task in mr.TASKS:
        for arch in mr.ARCHS:
            assert first.data["chosen"][task][arch] == mr.choose(first.data["search"][task][arch])
            assert len(first.data["tuned"][task][arch]["final"]) == TINY.runs
    with pytest.raises(ValueError, match="missing"):
        mr.run_rates("book", 2, progress=False, trained={"sizes": {}})
    import copy

    lied = copy.deepcopy(first.data)
    lied["chosen"]["delay1"]["full"] = 1 - lied["chosen"]["delay1"]["full"]
    with pytest.raises(ValueError, match="delay1/full"):
        mr.run_rates("book", 2, progress=False, trained=lied)
    other = copy.deepcopy(first.data)
    other["tuned"]["verbs"]["focused"]["config"]["rho"] = 0.5
    with pytest.raises(ValueError, match="verbs/focused runs used"):
        mr.run_rates("book", 2, progress=False, trained=other)


@pytest.mark.parametrize("call, what", [
    (lambda: mr.search("delay2", "focused", runs=1, epochs=1), "task must be one of verbs, delay1, delay4"),
    (lambda: mr.search("verbs", "partial", runs=1, epochs=1), "arch must be one of focused, full"),
    (lambda: mr.search("verbs", "focused", grid=[(1.0, 0.02)], runs=1, epochs=1), "grid must be"),
    (lambda: mr.search("verbs", "focused", grid=[(1.0, -0.02, 100.0)], runs=1, epochs=1), "rho must be"),
    (lambda: mr.search("verbs", "focused", runs=0, epochs=1), "runs"),
    (lambda: mr.run_rates("huge", progress=False), "scale"),
])
def test_bad_input_is_refused_naming_the_argument(call, what):
    with pytest.raises(ValueError, match=what):
        call()


def test_search_grid_and_side_by_side_read_a_result(tiny):
    r = mr.run_rates("book", 0, progress=False)
    scores, mus, columns = mr.search_grid(r.data, "delay1", "full")
    assert mus == [0.75, 1.0] and columns == [(0.02, 100.0), (0.04, 10.0)]
    assert scores[0, 0] == sum(e >= 0 for e in r.data["search"]["delay1"]["full"]["epochs_to_criterion"][0])
    assert np.isnan(scores[0, 1]) and np.isnan(scores[1, 0])
    with pytest.raises(ValueError, match="task must be one of"):
        mr.search_grid(r.data, "delay2", "full")
    untuned = [{"statement": "full network learns the task: final % right (mean)", "paper": None,
                "ours": 12.5, "verdict": "does not hold"}]
    text = mr.side_by_side(r.claims, untuned).splitlines()
    assert len(text) == 2 + len(r.claims.rows())
    assert "12.5, does not hold" in next(line for line in text if line.startswith("verbs: full network learns"))
    assert text[2].startswith("delay 1: the focused runs learn") and "  —  " in text[2]  # not in `untuned`


def test_the_paper_scale_measures_its_own_runs_the_first_of_the_untuned_records():
    """mozer-rates has its own number of measuring runs (30 at its first look, 60 at most: more
    than the paper's 15, which its t-tests keep), whatever the untuned records train (their first
    runs are these networks), and compares with those first runs only, so its cap is at most
    what the untuned records train."""
    plan = mr.PLANS["mozer-rates"]
    assert plan.first == mr.RATE_SIZES["paper"].runs == 30 and fb.PAPER_DESIGN == 15
    assert plan.looks == 2 and plan.level == 0.975
    # the untuned records train as many or more: the tuned runs are among their networks
    assert fb.SIZES["mozer-reproduce"]["paper"].runs > 30 and fb.SIZES["mozer-verbs"]["paper"].runs > 30
    assert plan.cap <= fb.SIZES["mozer-verbs"]["paper"].runs and plan.cap <= fb.PLANS["mozer-reproduce"].first


def test_paper_scale_measures_by_its_plan_states_it_and_rederives(monkeypatch):
    """A paper-scale run (a tiny plan and grid): the search is made once, the measuring runs grow
    by the plan; the data say the rule, n and why it stopped; every interval is at the plan's
    level; measuring run k is the same network whatever the design (the book scale's first runs)."""
    from tempnets.book import sequential

    sizes = mr.RateSizes(select_runs=2, runs=2, verbs_epochs=60, delay1_epochs=80, delay4_epochs=80)
    monkeypatch.setitem(mr.RATE_SIZES, "paper", sizes)
    monkeypatch.setitem(mr.RATE_SIZES, "book", sizes)
    monkeypatch.setattr(mr.runner, "BOOK_GRID", ((0.75, 0.02, 100.0), (1.0, 0.04, 10.0)))  # runner._start reads it
    monkeypatch.setattr(mr.runner, "_start", lambda scale: (mr.runner.BOOK_GRID, 0))  # run_rates calls it
    monkeypatch.setitem(mr.PLANS, "mozer-rates", sequential.Plan(2, 2, 4))
    monkeypatch.setattr(fb.runs, "CHUNK", 1)  # read by runs._pieces
    r = mr.run_rates("paper", 0, progress=False)
    design = r.data["design"]
    assert design["rule"] == sequential.Plan(2, 2, 4).rule("runs") and design["level"] == 0.975
    assert design["n"] == r.data["sizes"]["runs"] == len(r.data["tuned"]["delay1"]["full"]["final"])
    assert design["n"] in (2, 4) and len(design["history"]) == design["look"]
    assert list(r.data) == ["sizes", "grid", "rounds", "search", "chosen", "tuned", "design"]
    assert repr(mr.run_rates("paper", 0, trained=r.data).claims.rows()) == repr(r.claims.rows())
    intervalled = [c for c in r.claims.claims if c.interval is not None]
    assert intervalled and all("97.5% interval" in c.note for c in intervalled)
    book = mr.run_rates("book", 0, progress=False)
    assert book.data["search"] == r.data["search"]
    assert book.data["design"]["rule"] == sequential.Plan(2, 2, 2).rule("runs") and book.data["design"]["level"] == 0.95
    for task in mr.TASKS:
        for arch in mr.ARCHS:
            assert fb._cut(r.data["tuned"][task][arch], 0, 2) == book.data["tuned"][task][arch]


def test_the_untuned_tables_and_summary_use_the_tuned_runs_networks(monkeypatch):
    from tempnets.chapters import focused_backprop as fbm
    from tempnets.chapters import mozer_rates as mrm

    monkeypatch.setitem(fbm.SIZES, "mozer-reproduce", {"book": fbm.Sizes(5, 100, 150)})
    monkeypatch.setitem(fbm.SIZES, "mozer-verbs", {"book": fbm.Sizes(5, 60)})
    rep, verbs = fbm.run_reproduce("book", 1, progress=False), fbm.run_verbs("book", 1, progress=False)
    tables = mrm.untuned_tables(3, reproduce=rep.data, verbs=verbs.data)
    assert [t.title.endswith("(the first 3 runs)") for t in tables] == [True, True]
    assert all(c.expected is None for t in tables for c in t.claims)
    direct = fbm.run_reproduce("paper", trained=fbm.first_runs(rep.data, 3)).claims
    assert [repr(c.ours) for c in tables[0].claims] == [repr(c.ours) for c in direct.claims]
    tuned = {"tuned": {"delay4": {a: {"final": rep.data[f"{a}_delay4"]["final"][:3]} for a in mrm.ARCHS}}}
    text = mrm.delay4_summary(rep.data, tuned)
    assert "same 3 networks" in text and "result keeps" in text  # the same 3 runs on both sides
