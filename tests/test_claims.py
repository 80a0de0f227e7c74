import pytest

from tempnets.book import claims
from tempnets.book.claims import Claim, ClaimFailed, ClaimsTable


@pytest.mark.parametrize("check, paper, ours, expected", [
    (claims.within(2.0), 46.3, 45.0, True),
    (claims.within(2.0), 46.3, 43.0, False),
    (claims.relative(0.1), 100.0, 109.0, True),
    (claims.relative(0.1), 100.0, 111.0, False),
    (claims.at_least(50), None, 50.0, True),
    (claims.at_least(50), None, 49.9, False),
    (claims.at_most(0.02), None, 0.01, True),
    (claims.at_most(0.02), None, 0.03, False),
    (claims.between(1, 2), None, 1.5, True),
    (claims.between(1, 2), None, 2.5, False),
    (claims.is_true(), None, True, True),
    (claims.is_true(), None, False, False),
    (claims.at_least(0), None, float("nan"), False),
])
def test_checks(check, paper, ours, expected):
    assert check.holds(ours, paper) is expected


def table_with(ours, expected=True):
    t = ClaimsTable("Figure 4.2")
    t.add("SRN final %", "Figure 4.2", 7.1, 8.0, claims.within(5.0))
    t.add("PA final %", "Figure 4.2", 46.3, ours, claims.within(10.0), expected=expected)
    return t


def test_verify_passes_when_every_claim_is_as_stated():
    table = table_with(40.0)
    assert table.verify() is table


def test_verify_names_every_failing_claim():
    t = table_with(20.0)
    t.add("embed %", "Figure 4.2", 94.8, 50.0, claims.within(5.0))
    with pytest.raises(ClaimFailed, match="2 of 3 claims") as info:
        t.verify()
    assert "PA final %" in str(info.value) and "embed %" in str(info.value)
    assert "SRN final %" not in str(info.value)


def test_reported_failure_is_accepted_and_shown():
    t = table_with(20.0, expected=False)
    t.verify()
    assert "does not hold (reported)" in str(t)
    assert "does not hold (reported)" in t._repr_html_()


def test_reported_failure_that_starts_to_hold_raises():
    with pytest.raises(ClaimFailed, match="UNEXPECTEDLY HOLDS"):
        table_with(46.0, expected=False).verify()


def test_renderings_show_paper_ours_and_test():
    t = table_with(40.0)
    text, page = str(t), t._repr_html_()
    for s in ("Figure 4.2", "46.3", "40", "|ours − paper| ≤ 10", "holds"):
        assert s in text and s in page
    assert page.count("<table") == 1 and page.count("<tr") == 3  # the header and two rows


def test_html_is_escaped():
    t = ClaimsTable("<b>")
    t.add("a < b", "§1", None, True, claims.is_true())
    assert "<b>" not in t._repr_html_() and "a &lt; b" in t._repr_html_()


def test_rows_are_plain_records():
    row = table_with(40.0).rows()[1]
    assert row["paper"] == 46.3 and row["holds"] is True and row["test"] == "|ours − paper| ≤ 10"


def test_tolerance_checks_need_a_numeric_paper_value():
    with pytest.raises(ValueError, match="paper's value"):
        Claim("x", "§1", "about half", 0.5, claims.within(0.1))


def test_check_must_be_a_check():
    with pytest.raises(TypeError, match="tempnets.book.claims.Check"):
        Claim("x", "§1", 1.0, 1.0, 0.1)


@pytest.mark.parametrize("make", [lambda: claims.within(-1), lambda: claims.between(2, 1),
                                  lambda: claims.at_least(float("nan"))])
def test_bad_tolerances_are_rejected(make):
    with pytest.raises(ValueError):
        make()


def test_a_recorded_table_keeps_its_verdicts_and_still_verifies(tmp_path):
    from tempnets.book import experiments

    live = table_with(20.0, expected=False)  # PA final does not hold, and says so
    live.add("SRN embed %", "Figure 4.2", 98.6, 90.0, claims.within(5.0))  # FAILS
    rebuilt = ClaimsTable.from_rows("Figure 4.2", live.rows())
    assert [c.verdict for c in rebuilt.claims] == [c.verdict for c in live.claims]
    assert [c.check.describe() for c in rebuilt.claims] == [c.check.describe() for c in live.claims]
    assert str(rebuilt).splitlines()[1:] == str(live).splitlines()[1:]
    with pytest.raises(ClaimFailed, match="SRN embed %"):
        rebuilt.verify()
    # the same through a written record
    record = {"id": "x", "scale": "paper", "seed": 0, "wall_time_s": 540.0,
              "claims_title": "Figure 4.2", "claims": live.rows()[:2]}
    experiments.write_record(record, tmp_path / "x.json")
    back = experiments.read_record(tmp_path / "x.json")
    assert "recorded run: scale paper, seed 0, 9.0 min" in back["_table"].title
    assert back["_table"].verify().claims[1].verdict == "does not hold (reported)"
    (tmp_path / "bad.json").write_text('{"id": "x"}')
    with pytest.raises(ValueError, match="not an experiment record"):
        experiments.read_record(tmp_path / "bad.json")


def test_html_rows_are_coloured_by_verdict_with_a_legend():
    import re

    from tempnets.book.claims_view import VERDICTS
    t = table_with(20.0, expected=False)             # SRN row holds, PA row is reported as not holding
    t.add("embed %", "Figure 4.2", 94.8, 50.0, claims.within(5.0))   # fails against the chapter
    page = t._repr_html_()
    rows = re.findall(r"<tr class='tnc-v-([a-z-]+)' style='--tnc-c:(#[0-9a-f]{6})'>", page)
    assert rows == [(k.replace(" ", "-"), VERDICTS[k][1]) for k in ("holds", "does not hold", "not as stated")]
    assert len({c for _, c in rows}) == 3, "each verdict needs its own colour"
    for _, colour in rows:                            # the legend names every colour used
        assert page.count(colour) >= 2
    assert "padding" in page and "<strong>FAILS</strong>" in page


def test_an_interval_across_the_threshold_is_inconclusive():
    from tempnets.book.claims import Claim, ClaimsTable, at_least, between, within

    on = Claim("solved more often", "§5", None, 0.5, at_least(0.5), True, interval=(0.24, 0.76))
    assert on.holds is None and on.verdict == "INCONCLUSIVE (stated: holds)" and not on.as_expected
    stated = Claim("solved more often", "§5", None, 0.5, at_least(0.5), None, interval=(0.24, 0.76))
    assert stated.verdict == "inconclusive at this scale" and stated.as_expected
    assert Claim("x", "s", None, 0.9, at_least(0.5), True, interval=(0.6, 1.0)).verdict == "holds"
    assert Claim("x", "s", None, 0.1, at_least(0.5), False, interval=(0.0, 0.3)).verdict \
        == "does not hold (reported)"
    assert Claim("x", "s", 10.0, 11.0, within(2), True, interval=(9.5, 11.5)).holds is True
    assert Claim("x", "s", 10.0, 11.0, within(2), True, interval=(9.5, 12.5)).holds is None
    assert Claim("x", "s", None, 5.0, between(0, 1), True, interval=(4, 6)).holds is False
    # an unasserted claim never fails the table, whatever its outcome
    table = ClaimsTable("t")
    table.add("a", "s", None, 0.9, at_least(0.5), None, interval=(0.6, 1.0))
    table.add("b", "s", None, 0.5, at_least(0.5), None, interval=(0.2, 0.8))
    table.verify()
    assert [c.verdict for c in table.claims] == ["holds", "inconclusive at this scale"]
    text = str(table)
    assert "[0.2, 0.8]" in text and "inconclusive at this scale" in text
    assert "inconclusive" in table._repr_html_()
    again = ClaimsTable.from_rows("t", table.rows())
    assert [c.verdict for c in again.claims] == ["holds", "inconclusive at this scale"]
    assert again.claims[1].interval == (0.2, 0.8)


def test_the_robustness_column():
    from tempnets.book.claims import ClaimsTable, at_least

    table = ClaimsTable("t")
    table.add("a", "s", None, 0.9, at_least(0.5))
    table.with_robustness({"a": {"holds": 9, "does not hold": 1}})
    assert table.seeds_cell(table.claims[0]) == "holds in 9/10; does not hold in 1/10 seeds"
    assert "holds in 9/10" in str(table)
    assert "over seeds" in table._repr_html_()


def test_bad_intervals_and_expectations_are_refused():
    from tempnets.book.claims import Claim, at_least, is_true

    with pytest.raises(ValueError, match="low <= high"):
        Claim("x", "s", None, 0.5, at_least(0.5), True, interval=(0.8, 0.2)).holds
    with pytest.raises(ValueError, match="takes no interval"):
        Claim("x", "s", None, True, is_true(), True, interval=(0, 1)).holds
    with pytest.raises(ValueError, match="True, False or None"):
        Claim("x", "s", None, 0.5, at_least(0.5), "yes")


def test_a_claim_whose_control_failed_is_not_tested():
    from tempnets.book.claims import Claim, ClaimsTable, at_least
    from tempnets.book.experiments import outcome_counts

    why = "the LSTM, the control, solved no string"
    # the value would fail the check: not tested is not "does not hold", and is never asserted
    table = ClaimsTable("t")
    table.add("TKRNN beats the RNN", "§4", None, 0.0, at_least(0.5), None, not_tested=why)
    table.add("LSTM learns", "§4", None, 0.0, at_least(0.5), False)
    c = table.verify().claims[0]
    assert c.holds is None and c.verdict == f"not tested: {why}" and c.as_expected
    assert "not tested: the LSTM" in str(table)  # (text columns are cut at 40 characters)
    page = table._repr_html_()
    from tempnets.book.claims_view import VERDICTS
    assert page.count(VERDICTS["not tested"][1]) == 2  # its row and the legend
    assert "control learned nothing" in page
    assert "control learned nothing" not in ClaimsTable("u", table.claims[1:])._repr_html_()
    rows = table.rows()
    assert rows[0]["not_tested"] == why and "not_tested" not in rows[1]
    again = ClaimsTable.from_rows("t", rows)
    assert [x.verdict for x in again.claims] == [x.verdict for x in table.claims]
    assert outcome_counts([rows, table.rows()[1:]])["TKRNN beats the RNN"] == {"not tested": 2}
    assert outcome_counts([rows])["LSTM learns"] == {"does not hold": 1}
    # a chapter that states a verdict for it is told the run could not test it
    stated = Claim("x", "s", None, 0.9, at_least(0.5), True, not_tested=why)
    assert stated.verdict == "NOT TESTED (stated: holds)" and not stated.as_expected
    with pytest.raises(ClaimFailed, match="NOT TESTED"):
        ClaimsTable("t", [stated]).verify()
    with pytest.raises(TypeError, match="not_tested must be a str"):
        Claim("x", "s", None, 0.9, at_least(0.5), None, not_tested=True)


# ----------------------------------------------------------------------------- why inconclusive

def test_an_inconclusive_row_says_how_far_its_threshold_is_and_what_would_decide_it():
    from tempnets.book import intervals
    from tempnets.book.claims import ClaimsTable, at_least, at_most

    t = ClaimsTable("why")
    # a mean of 20 networks, 22 [13.5, 30.5] against <= 30: 8 from it, reach 8.5 -> about 23 runs
    c = t.add("mean", "s", None, 22.0, at_most(30), expected=None,
              interval=intervals.Interval(13.5, 30.5, intervals.Design("mean", (20,))))
    assert c.category == "inconclusive"
    assert c.why_inconclusive == ("22 is 8 from the threshold 30, inside the interval's reach (8.5) at "
                                  "n = 20: about 23 runs would decide an effect this size")
    # a t interval of 2 runs is wide mostly for its quantile (12.7): the forecast shrinks it too
    c = t.add("two", "s", None, 85.0, at_least(75), expected=None,
              interval=intervals.Interval(-99.0, 269.0, intervals.Design("mean", (2,))))
    assert c.why_inconclusive.endswith("at n = 2: about 19 runs would decide an effect this size")
    # on the threshold: no number of runs
    c = t.add("share", "s", None, 50.0, at_least(50), expected=None, interval=intervals.percent(10, 20))
    assert "sits on its threshold (an effect this size needs over 100× the runs)" in c.why_inconclusive
    # a count of runs against a count: more runs change what it counts, no forecast
    c = t.add("count", "s", None, 5, at_least(4), expected=None, interval=intervals.count(5, 30))
    assert c.category == "inconclusive" and c.why_inconclusive.endswith("more runs change what it counts)")
    # ... unless the threshold is none at all (a difference of counts against 0)
    c = t.add("diff", "s", None, 2, at_least(0), expected=None,
              interval=intervals.Interval(-3.0, 7.0, intervals.Design("share_difference", (30, 30), unit="count")))
    assert c.why_inconclusive.endswith("about 188 runs would decide an effect this size")
    # no design: the distance and the reach only
    c = t.add("plain", "s", 75.0, 57.2, claims.within(10), expected=None, interval=(41.2, 73.1))
    assert c.why_inconclusive == "57.2 is 7.8 from the threshold 65, inside the interval's reach (16)"
    # decided rows, and rows not tested, say nothing
    assert not t.add("held", "s", None, 22.0, at_most(30), expected=None, interval=(20, 24)).why_inconclusive
    assert not t.add("nt", "s", None, 22.0, at_most(30), expected=None, interval=(13.5, 30.5),
                     not_tested="its control failed").why_inconclusive
    rows = {r["statement"]: r for r in t.rows()}
    assert rows["mean"]["why_inconclusive"] == t.claims[0].why_inconclusive and "why_inconclusive" not in rows["held"]
    assert "inconclusive at this scale (22 is 8" in str(t)  # the verdict column, cut at 40


def test_screens_are_a_kind_shown_and_counted_apart():
    from tempnets.book.claims import SCREENS, ClaimsTable, at_least

    t = ClaimsTable("screen")
    t.add("replication", "s", None, 1.0, at_least(0.5))
    t.add("reading A trains better", "ours (method)", None, 0.5, at_least(1.0), expected=None,
          interval=(0.0, 1.0), kind="screen")
    assert t.counts()["holds"] == 1 and sum(t.counts().values()) == 1
    assert t.counts("screen")["inconclusive"] == 1
    assert [h for h, _ in t._groups()] == [None, SCREENS]
    assert SCREENS in str(t) and t.rows()[1]["kind"] == "screen"
    with pytest.raises(ValueError, match="kind must be one of replication, computation, screen"):
        t.add("x", "s", None, 1.0, at_least(0.5), kind="method")


def test_a_book_scale_table_shows_each_rows_verdict_at_paper_scale():
    from tempnets.book.claims import ClaimsTable, at_least

    t = ClaimsTable("book")
    t.add("decided later", "s", None, 50.0, at_least(40), expected=None, interval=(30.0, 70.0))
    t.add("not at paper scale", "s", None, 50.0, at_least(40), expected=None, interval=(45.0, 55.0))
    assert t.with_paper_scale({"decided later": "holds"}) is t
    assert t.paper_scale_cell(t.claims[0]) == "at paper scale: holds" and t.paper_scale_cell(t.claims[1]) == ""
    assert "; at paper scale: holds" in t._cells(t.claims[0])[-1] and "paper scale" not in t._cells(t.claims[1])[-1]
    assert "<span class='tnc-sub'>at paper scale: holds</span>" in t._repr_html_()
    with pytest.raises(TypeError, match="verdicts must be a dict from a claim's statement"):
        t.with_paper_scale({"decided later": True})
    with pytest.raises(TypeError, match="paper_scale must be None or a dict"):
        ClaimsTable("x", paper_scale=["holds"])
