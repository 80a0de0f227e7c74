"""Issue 32 item 4: sequential designs (networks added in groups until every claim is decided or
a cap, the error held at 5% over the planned looks), scipy's intervals where they do what ours
did by hand, and "every run" / "some run" / "no run" claims redesigned to come out either way."""

import math

import numpy as np
import pytest

from tempnets.book import claims as C
from tempnets.book import intervals as I
from tempnets.book import sequential as S


# ----------------------------------------------------------------------------- the plan

def test_plan_looks_and_level():
    p = S.Plan(250, 250, 1000)
    assert p.sizes == (250, 500, 750, 1000) and p.looks == 4
    assert p.level == pytest.approx(1 - 0.05 / 4)
    assert S.Plan(100, 50, 150).sizes == (100, 150) and S.Plan(100, 50, 150).level == 0.975
    assert S.Plan(8, 4, 22).sizes == (8, 12, 16, 20, 22)  # a last group may be smaller
    fixed = S.Plan(40, 40, 40)
    assert fixed.looks == 1 and fixed.level == pytest.approx(0.95)
    assert "fixed design: 40 networks" in fixed.rule()
    rule = p.rule("runs")
    assert "looks at n = 250, 500, 750, 1,000 (4 planned looks)" in rule
    assert "98.75%" in rule and "Bonferroni" in rule and "or at the cap" in rule


@pytest.mark.parametrize("kwargs, message", [
    ({"first": 0, "group": 1, "cap": 5}, "first"),
    ({"first": 5, "group": 0, "cap": 5}, "group"),
    ({"first": 6, "group": 1, "cap": 5}, "cap must be at least first"),
    ({"first": 1, "group": 1, "cap": 5, "error": 0.0}, "error"),
    ({"first": 1.5, "group": 1, "cap": 5}, "first"),
])
def test_plan_refuses_bad_values(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        S.Plan(**kwargs)


# ----------------------------------------------------------------------------- the loop

def _share_claims(threshold):
    """claims(results, level): one claim, 'at least threshold of the runs succeed'."""
    def table(results, level):
        k, n = sum(results), len(results)
        t = C.ClaimsTable("t")
        t.add("most runs succeed", "x", None, k / n, C.at_least(threshold), expected=None,
              interval=I.share(k, n, level))
        return t
    return table


def _trainer(outcomes, calls):
    def train(a, b):
        calls.append((a, b))
        return list(outcomes[a:b])
    return train


def test_run_stops_at_the_first_look_where_every_claim_is_decided():
    outcomes = [1] * 3 + [0] + [1] * 100  # 3 of 4 at the first look: [0.30, 0.95] straddles 0.5
    calls = []
    results, design = S.run(S.Plan(4, 4, 40), _trainer(outcomes, calls), _share_claims(0.5))
    assert calls[0] == (0, 4) and all(b - a == 4 for a, b in calls)  # groups, never retrained
    n = design["n"]
    assert results == outcomes[:n] and calls[-1][1] == n < 40
    assert design["look"] == len(calls) and design["looks"] == 10 and design["level"] == 0.995
    assert design["stopped"] == f"every claim it watches is decided at look {design['look']} of 10 (n = {n})"
    assert design["undecided"] == [] and design["history"][0] == {"n": 4, "undecided": ["most runs succeed"]}
    # the verdict it stopped on is decided at the plan's level, and was not at the look before
    assert _share_claims(0.5)(results, design["level"]).claims[0].holds is True
    assert _share_claims(0.5)(results[:n - 4], design["level"]).claims[0].holds is None


def test_run_says_why_it_stopped_at_the_cap():
    outcomes = [1, 0] * 50  # a share of one half never clears 0.5
    results, design = S.run(S.Plan(10, 10, 30), _trainer(outcomes, []), _share_claims(0.5), what="runs")
    assert len(results) == design["n"] == 30 and design["look"] == design["looks"] == 3
    assert design["stopped"] == "the cap (30 runs) reached with 1 claim undecided: most runs succeed"
    assert design["undecided"] == ["most runs succeed"]


def test_run_watches_only_the_claims_it_is_told_and_never_not_tested_ones():
    def table(results, level):
        t = C.ClaimsTable("t")
        t.add("about these runs", "x", None, 1.0, C.at_least(0.5), expected=None,
              interval=I.share(len(results), len(results), level))
        t.add("about other networks", "x", None, 0.5, C.at_least(0.5), expected=None, interval=(0.1, 0.9))
        t.add("no control", "x", None, 0.5, C.at_least(0.5), expected=None, interval=(0.1, 0.9),
              not_tested="its control failed")
        return t
    _, design = S.run(S.Plan(10, 10, 50), _trainer([1] * 50, []), table,
                      watch=lambda c: c.statement != "about other networks")
    assert design["n"] == 10 and design["undecided"] == []
    _, design = S.run(S.Plan(10, 10, 50), _trainer([1] * 50, []), table)
    assert design["n"] == 50 and design["undecided"] == ["about other networks"]


def test_run_refuses_a_trainer_that_returns_the_wrong_number_of_results():
    with pytest.raises(ValueError, match=r"train\(0, 4\) must return 4 results, got 3"):
        S.run(S.Plan(4, 4, 8), lambda a, b: [1] * 3, _share_claims(0.5))
    with pytest.raises(TypeError, match="plan must be a tempnets.book.sequential.Plan"):
        S.run((4, 4, 8), lambda a, b: [1] * (b - a), _share_claims(0.5))


def test_level_of_a_run():
    assert S.level_of({}) == 0.95 and S.level_of({"design": None}) == 0.95
    assert S.level_of({"design": {"level": 0.99}}) == 0.99
    with pytest.raises(ValueError, match=r"data\['design'\]\['level'\]"):
        S.level_of({"design": {"level": 1.5}})


def test_the_error_over_the_looks_stays_at_five_percent():
    """Simulated: a share whose true value sits on the threshold (0.5 >= 0.5 holds), looked at
    after every group of 10 up to 100 runs.  Intervals at 95% at every look find "does not hold"
    far more often than 2.5% (the one-sided error of one look); the plan's level keeps it below."""
    rng = np.random.default_rng(1)
    plan = S.Plan(10, 10, 100)
    sims = 1000
    draws = rng.random((sims, plan.cap)) < 0.5
    counts = np.cumsum(draws, axis=1)[:, np.array(plan.sizes) - 1]

    def wrong(level):
        p, lo, hi = {}, {}, {}
        for n in plan.sizes:
            p[n], lo[n], hi[n] = I._wilson_all(n, level)
        return np.mean([any(hi[n][k] < 0.5 for n, k in zip(plan.sizes, row)) for row in counts])

    naive, planned = wrong(0.95), wrong(plan.level)
    assert naive > 0.05 and planned <= 0.025 + 0.01, (naive, planned)


# ----------------------------------------------------------------------------- scipy's intervals

def test_wilson_from_scipy_gives_the_numbers_of_the_hand_written_formula():
    """intervals.share is now scipy's Wilson interval; the formula it replaced (still the one
    Design.outcomes computes for every k at once) gives the same numbers, at 95% and at the
    levels of sequential designs."""
    for level in (0.95, 0.975, 1 - 0.05 / 3, 0.99, 0.995):
        for n in (1, 2, 3, 5, 16, 40, 73, 100, 263, 500):
            _, lo, hi = I._wilson_all(n, level)
            for k in range(n + 1):
                assert I.share(k, n, level) == pytest.approx((lo[k], hi[k]), abs=1e-13, rel=1e-13)
    assert I.share(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4)) and I.share(10, 10)[1] == 1.0


def test_our_bootstrap_agrees_with_scipys_percentile_bootstrap_on_finite_runs():
    """intervals.bootstrap stays ours (it places undefined statistics, inf / inf, which scipy's
    cannot), but on finite runs it is the percentile bootstrap scipy computes."""
    from scipy import stats

    rng = np.random.default_rng(3)
    x, y = rng.lognormal(6, 0.5, 60), rng.lognormal(5, 0.5, 60)
    ours = I.ratio_of_medians(x, y)
    theirs = stats.bootstrap((x, y), lambda a, b, axis=-1: np.median(a, axis=axis) / np.median(b, axis=axis),
                             n_resamples=20_000, method="percentile", random_state=np.random.default_rng(0))
    ci = theirs.confidence_interval
    width = ci.high - ci.low
    assert abs(ours[0] - ci.low) < 0.1 * width and abs(ours[1] - ci.high) < 0.1 * width
    assert math.isinf(I.ratio_of_medians([1.0, math.inf, math.inf], [math.inf, math.inf, 2.0])[1])


# ----------------------------------------------------------------------------- "every", "no", "some"

def test_every_some_and_no_run_claims_can_come_out_either_way():
    from tempnets.chapters import fast_weights as fw

    # the tests that replaced them, at the n and level of their records' designs
    every = I.percent(300, 300, 1 - 0.05 / 3).design
    assert C.design_check(C.at_least(fw.EVERY), None, every) == ""
    none = I.percent(0, 800, 0.99).design
    assert C.design_check(C.at_most(fw.NONE), None, none) == ""
    some = I.percent(0, 100, 0.975).design
    assert C.design_check(C.at_least(fw.SOME), None, some) == ""
    # what they replaced could not, at any n
    assert C.design_check(C.at_most(0), None, I.count(0, 1000).design)
    assert C.design_check(C.at_least(1), None, I.count(0, 1000).design)


# ----------------------------------------------------------------------------- in the chapters

def test_a_paper_scale_runner_states_its_design_and_rederives(monkeypatch):
    """Fast weights at paper scale (a tiny plan): the data say the rule, n and why it stopped;
    the claims' intervals are at the plan's level; run k is the same network whatever the design."""
    from tempnets.chapters import fast_weights as fw

    monkeypatch.setitem(fw.PLANS, "fw-linear-attention", S.Plan(4, 4, 8))
    monkeypatch.setitem(fw.SIZES["fw-linear-attention"], "paper", fw.Sizes(8, 1500, 2))
    monkeypatch.setitem(fw.SIZES["fw-linear-attention"], "book", fw.Sizes(4, 1500, 2))
    r = fw.run_linear_attention("paper", 0, progress=False)
    design = r.data["design"]
    assert design["rule"] == S.Plan(4, 4, 8).rule("runs") and design["level"] == 0.975
    assert design["n"] == r.data["sizes"]["n_seeds"] == len(r.data["runs"]["eq. 7"]["solved"])
    assert design["n"] in (4, 8) and design["stopped"]
    again = fw.run_linear_attention("paper", 0, trained=r.data)
    assert again.claims.rows() == r.claims.rows()
    [row] = [c for c in r.claims.claims if c.statement.startswith("with the squash of eq. 7")]
    k, n = round(row.ours * design["n"] / 100), design["n"]
    assert row.interval == I.percent(k, n, 0.975) and "97.5% interval: Wilson" in row.note
    book = fw.run_linear_attention("book", 0, progress=False)
    assert book.data["design"]["rule"] == "a fixed design: 4 runs, one look, 95% intervals"
    assert S.level_of(book.data) == 0.95 and book.data["sizes"]["n_seeds"] == book.data["design"]["n"] == 4
    for name, runs in book.data["runs"].items():
        assert r.data["runs"][name]["solved"][:4] == runs["solved"]


def test_problem3_groups_are_independent_and_the_first_is_as_before():
    from tempnets.chapters import graded_state_machines as gsm

    before = gsm._train_problem3(7, 2, 2, 200, seed=0)
    assert gsm._train_problem3(7, 2, 2, 200, seed=0, part=0) == before
    other = gsm._train_problem3(7, 2, 2, 200, seed=0, part=1)
    assert other["last_letter_error"] != before["last_letter_error"]


def test_plan_for_gives_the_paper_plan_or_a_fixed_design():
    plan = S.Plan(40, 200, 440)
    assert S.plan_for("paper", 40, plan) is plan
    for scale, p in (("book", plan), ("paper", None), ("book", None)):
        fixed = S.plan_for(scale, 7, p)
        assert fixed == S.Plan(7, 7, 7) and fixed.looks == 1 and fixed.level == 0.95
    with pytest.raises(TypeError, match="plan must be None or a tempnets.book.sequential.Plan"):
        S.plan_for("paper", 40, (40, 200, 440))
    with pytest.raises(ValueError, match="n"):
        S.plan_for("book", 0)
    with pytest.raises(ValueError, match="scale"):
        S.plan_for("huge", 3, plan)
