"""Issue 32, items 1-3: a claim's design is checked before anything is trained, controls gate,
rows a do-nothing network passes are not replications, computations are counted apart."""

import math

import pytest

from tempnets.book import claims as C
from tempnets.book import intervals as I


def test_intervals_carry_their_design_and_stay_plain_tuples():
    iv = I.share(3, 10)
    assert iv == I.share(3, 10) and isinstance(iv, tuple) and len(iv) == 2
    assert iv.design == I.Design("share", (10,))
    assert I.count(3, 10).design.unit == "count" and I.count(3, 10).design.scale == 10
    assert I.percent(3, 10).design.scale == 100
    assert I.share_difference(3, 10, 1, 12).design.sizes == (10, 12)
    assert I.mean([1.0, 2.0, 3.0], bounds=(0, 100)).design == I.Design("mean", (3,), (0, 100))
    assert I.median([1.0] * 7).design.estimator == "median"
    assert I.ratio_of_medians([1.0, 2.0], [3.0, 4.0]).design.bounds == (0.0, math.inf)
    # the numbers are those of before (a plain tuple of floats)
    assert tuple(I.share(81, 263)) == pytest.approx((0.2553, 0.3662), abs=1e-4)


def test_wilson_share_is_scipys_wilson_interval():
    from scipy.stats import binomtest

    for k, n in [(0, 3), (3, 3), (2, 7), (16, 40), (81, 263)]:
        ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert I.share(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12)


@pytest.mark.parametrize("check, paper, interval, undecidable", [
    # the examples: 3 networks cannot clear 0.5 either way; a median of 5 has no interval
    (C.at_least(0.5), None, I.share(3, 3), True),
    (C.at_least(0.5), None, I.share(3, 4), False),
    (C.relative(0.25), 10_000, I.median([1, 2, 3, 4, 5]), True),
    (C.relative(0.25), 10_000, I.median([1, 2, 3, 4, 5, 6]), False),
    # "every run" can only fail, "some run" can only hold, at any number of runs
    (C.at_least(50), None, I.count(50, 50), True),
    (C.at_most(0), None, I.count(0, 500), True),
    (C.at_least(1), None, I.count(3, 100), True),
    # a share >= 95% needs 73 runs, all right (fast weights, car parking)
    (C.at_least(95.0), None, I.percent(16, 16), True),
    (C.at_least(95.0), None, I.percent(80, 80), False),
    # means of two runs can come out either way at the extremes (all runs equal)
    (C.at_most(30.0), None, I.mean([0.0, 60.0], bounds=(0, 100)), False),
    (C.at_least(20.0), None, I.mean([1.0]), True),
    # a score in % that cannot reach the threshold
    (C.at_least(120.0), None, I.mean([50.0, 60.0], bounds=(0, 100)), True),
])
def test_design_check_before_any_run(check, paper, interval, undecidable):
    reason = C.design_check(check, paper, interval.design)
    assert bool(reason) is undecidable, reason


def test_design_check_says_why_and_how_many_runs_would_do():
    assert C.design_check(C.at_least(0.5), None, I.share(3, 3).design) == \
        "n = 3 cannot decide (its interval can never clear the test; n >= 4 could)"
    assert "no n up to" in C.design_check(C.at_least(15), None, I.count(15, 15).design)
    assert "could only hold" in C.design_check(C.at_least(1), None, I.count(0, 40).design)
    d = I.Design("share_difference", (4, 4), unit="count")
    assert "per group could" in C.design_check(C.at_least(3), None, d)


def test_undecidable_claim_is_shown_not_asserted_and_flagged_when_stated():
    c = C.Claim("most runs solve it", "x", None, 1.0, C.at_least(0.5), expected=None,
                interval=I.share(3, 3))
    assert c.undecidable and c.holds is None and c.measured is None
    assert c.verdict.startswith("shown, not decided: n = 3 cannot decide")
    assert c.category == "undecidable by design" and c.as_expected
    stated = C.Claim("most runs solve it", "x", None, 1.0, C.at_least(0.5), expected=True,
                     interval=I.share(3, 3))
    assert stated.verdict == "UNDECIDABLE BY DESIGN (stated: holds)" and not stated.as_expected
    with pytest.raises(C.ClaimFailed, match="UNDECIDABLE BY DESIGN"):
        C.ClaimsTable("t", [stated]).verify()
    # a refutation that the design could give, but never a confirmation, is shown as measured
    every = C.Claim("every run learns", "x", 15, 9, C.at_least(15), expected=None,
                    interval=I.count(9, 15))
    assert every.measured is False and every.holds is None
    assert every.verdict.endswith("shows: does not hold")
    # a recorded row keeps its verdict
    [again] = C.ClaimsTable.from_rows("t", C.ClaimsTable("t", [every]).rows()).claims
    assert again.verdict == every.verdict and again.holds is None and again.category == every.category


def test_decidable_claims_are_unchanged():
    c = C.Claim("most runs solve it", "x", None, 1.0, C.at_least(0.5), interval=I.share(10, 10))
    assert not c.undecidable and c.holds is True and c.verdict == "holds"
    plain = C.Claim("a number", "x", 3, 3.0, C.within(0))
    assert not plain.undecidable and plain.design is None and plain.holds is True


def test_do_nothing_score_passing_the_test_means_not_tested():
    # Mozer, delay 4: 0 full runs learning perfectly passes |ours - 2| <= 2
    c = C.Claim("delay 4: full runs learning perfectly", "text", 2, 0, C.within(2), expected=None,
                interval=I.count(0, 15), do_nothing=0)
    assert c.not_tested.startswith("a network that learns nothing (0) passes this test too")
    assert c.category == "not tested" and c.holds is None
    stated = C.Claim("delay 4: full runs learning perfectly", "text", 2, 0, C.within(2),
                     interval=I.count(0, 15), do_nothing=0)
    assert not stated.as_expected  # a chapter cannot state a verdict for it
    fine = C.Claim("delay 4: focused runs learning perfectly", "text", 12, 8, C.within(3),
                   expected=None, interval=I.count(8, 15), do_nothing=0)
    assert not fine.not_tested
    table = C.ClaimsTable("t", [fine])
    assert "doing nothing: 0" in str(table) and "doing nothing: 0" in table._repr_html_()
    assert table.rows()[0]["do_nothing"] == 0


def test_control_gate_needs_a_decided_passing_control():
    learns = lambda lo, hi: C.Claim("BPTT(5,1) learns", "x", None, (lo + hi) / 2,  # noqa: E731
                                    C.at_least(75.0), expected=None, interval=(lo, hi))
    assert C.control_gate(learns(80, 95)) == ""
    assert C.control_gate(learns(40, 95)) == "its control ('BPTT(5,1) learns') is undecided"
    assert C.control_gate(learns(10, 30)) == "its control ('BPTT(5,1) learns') does not hold"
    undecidable = C.Claim("most runs", "x", None, 1.0, C.at_least(0.5), expected=None,
                          interval=I.share(3, 3))
    assert "is undecidable by design" in C.control_gate(learns(80, 95), undecidable)


def test_computations_are_grouped_and_counted_apart():
    t = C.ClaimsTable("t")
    t.add("a replication", "x", 1.0, 1.0, C.within(0))
    t.add("an identity", "x", None, 0.0, C.at_most(1e-12), kind="computation")
    t.add("another replication", "x", 1.0, 3.0, C.within(0), expected=False)
    assert t.counts() == {"holds": 1, "does not hold": 1, "inconclusive": 0,
                          "undecidable by design": 0, "not tested": 0}
    assert t.counts("computation")["holds"] == 1
    text = str(t)
    assert text.index("another replication") < text.index(C.COMPUTATIONS) < text.index("an identity")
    page = t._repr_html_()
    assert page.index("another replication") < page.index("Checks of the code") < page.index("an identity")
    assert [r.get("kind") for r in t.rows()] == [None, "computation", None]
    again = C.ClaimsTable.from_rows("t", t.rows())
    assert [c.kind for c in again.claims] == ["replication", "computation", "replication"]
    with pytest.raises(ValueError, match="kind must be one of replication, computation"):
        C.Claim("x", "x", None, 1.0, C.is_true(), kind="identity")
