"""The claims table as a reader sees it (issue 34, items 11-12): tempnets.book.claims_view."""

import html
import math
import re

import numpy as np
import pytest

from tempnets.book import claims as C
from tempnets.book import intervals as I
from tempnets.book.claims_view import VERDICTS, forest_plot, forest_svg, math_html, number_html, verdict_key

INF = math.inf


def every_verdict():
    """A table with a row of every verdict, maths in its text and values never reached."""
    t = C.ClaimsTable("Serial recall: TKRNN^{+2} against λ^{k−1}")
    t.add("TKRNN^{+2} solves it within 300 steps (median run)", "§3 (TKRNN^{+n})", 300, 236.0,
          C.at_most(300), interval=I.median([200, 236, 240, 214, 250, 260, 230, 220, 210, 205, INF, INF]),
          note="w_B saturates; |d - y| <= 0.05")
    t.add("15 hidden units learn it in about 10,000 epochs", "§5.1", 10000, INF, C.between(3000, 30000),
          expected=None, interval=I.median([INF, INF, 20800]))                       # not decided
    t.add("the full network reaches 95%", "Table 3", 95.0, 70.0, C.at_least(95.0), expected=False,
          interval=I.mean([70.0, 70.5, 69.5]), note="reported")                   # does not hold
    t.add("half of the runs solve it", "§5", None, 0.5, C.at_least(0.5), expected=None,
          interval=I.share(10, 20))                                                 # inconclusive
    t.add("beats the RNN", "§4", None, 0.0, C.at_least(0.5), None,
          not_tested="the LSTM, the control, solved no string")                     # not tested
    t.add("embed %", "Figure 4.2", 94.8, 50.0, C.within(5.0))                       # FAILS: not as stated
    t.add("a plateau (mean of one network)", "§5.1", None, 0.98, C.at_least(0.5), expected=None,
          interval=I.mean([0.98]))                                                  # no finite interval
    t.add("the kernel is λ^{k−1}", "eqs. 8-9", None, 1.11e-16, C.at_most(1e-12), kind="computation")
    return t


def visible_text(page: str) -> str:
    """The page without its style block and its embedded picture, tags removed."""
    page = re.sub(r"<style>.*?</style>", "", page, flags=re.S)
    page = re.sub(r"src='data:[^']*'", "", page)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_maths_is_set_and_no_raw_tex_or_infinities_show():
    page = every_verdict()._repr_html_()
    text = visible_text(page)
    assert "^{" not in page and "^{" not in text
    assert "TKRNN<sup>+2</sup>" in page and "λ<sup>k−1</sup>" in page and "w<sub>B</sub>" in page
    assert "|d - y| ≤ 0.05" in text
    for raw in ("inf [", "[−∞", "∞]", "inf", "nan"):
        assert raw not in text, f"{raw!r} shows in the table"
    assert "1.11 × 10<sup>−16</sup>" in page


def test_values_never_reached_are_said_in_words():
    text = visible_text(every_verdict()._repr_html_())
    assert "not reached in 2 of 12 runs" in text     # the median is reached; two runs never are
    assert "<span class='tnc-value'>not reached</span>" in every_verdict()._repr_html_()
    assert "not reached in 2 of 3 runs" in text      # the median itself is never reached
    assert "no finite interval (mean of 1 run)" in text


def test_math_html_leaves_names_alone():
    assert math_html("val_string and test_held_out") == "val_string and test_held_out"
    assert math_html("h^2 and eps^(1/3) and ε_k") == "h<sup>2</sup> and eps<sup>1/3</sup> and ε<sub>k</sub>"
    assert math_html("u(A->w_B) < 1") == "u(A→w<sub>B</sub>) &lt; 1"
    assert number_html(18510.0) == "18,510" and number_html(INF) == "not reached"
    assert number_html(True) == "yes" and number_html(None) == "—"


def test_notes_are_numbered_footnotes_under_the_table():
    t = every_verdict()
    page = t._repr_html_()
    refs = re.findall(r"<sup class='tnc-ref'><a href='#(tnc-[0-9a-f]{8})-(\d+)'", page)
    items = re.findall(r"<li id='(tnc-[0-9a-f]{8})-(\d+)'>", page)
    assert [int(k) for _, k in refs] == list(range(1, len(refs) + 1)) and refs == items
    # the notes of the three rows with one, and why rows are not tested / not decided / inconclusive
    assert len(items) == 6
    notes = re.findall(r"<li id='tnc-[0-9a-f]{8}-\d+'>(.*?) <a", page)
    assert notes[0].startswith("w<sub>B</sub> saturates") and "Not decided by design: n = 3" in notes[1]
    assert notes[3].startswith("Inconclusive: 0.5 is 0 from the threshold 0.5") and "sits on its threshold" in notes[3]
    assert "Not tested: the LSTM" in notes[4]
    assert page.index("</table>") < page.index("<ol class='tnc-notes'>")
    # the claim cell holds the claim, not its note
    first_row = re.search(r"<tr class='tnc-v-holds'.*?</tr>", page).group(0)
    assert "saturates" not in first_row


def test_each_row_shows_its_verdict_as_the_scorecard_counts_it():
    t = every_verdict()
    page = t._repr_html_()
    classes = re.findall(r"<tr class='tnc-v-([a-z-]+)'", page)
    assert classes == ["holds", "not-decided", "does-not-hold", "inconclusive", "not-tested",
                       "not-as-stated", "not-decided", "holds"]
    for c in t.claims:
        if c.as_expected:   # the badge says the category the scorecard counts
            assert verdict_key(c) == {"undecidable by design": "not decided"}.get(c.category, c.category)
    for key in ("holds", "does not hold", "inconclusive", "not decided", "not tested", "not as stated"):
        assert VERDICTS[key][2] in html.unescape(page), f"the legend lacks {key!r}"
    assert "<strong>FAILS</strong>" in page


def test_the_table_never_scrolls_sideways():
    t = every_verdict()
    for table in (t, C.ClaimsTable("s", list(t.claims)).with_robustness({t.claims[0].statement: {"holds": 9}})):
        page = table._repr_html_()
        widths = [int(w) for w in re.findall(r"<col style='width:(\d+)%'>", page)]
        assert sum(widths) == 100 and len(widths) == len(re.findall(r"<th>", page))
        assert "table-layout:fixed!important" in page and "width:100%!important" in page
    assert "holds 9/9" in visible_text(page)


def test_one_marker_per_claim_coloured_by_verdict():
    t = every_verdict()
    ax = forest_plot(t)
    dots = [col for col in ax.collections if getattr(col, "get_offsets", None) is not None
            and len(col.get_offsets()) and col.get_sizes().size]
    offsets = np.concatenate([d.get_offsets() for d in dots])
    colours = np.concatenate([d.get_facecolors() for d in dots])
    assert len(offsets) == len(t.claims)
    from matplotlib.colors import to_rgba
    order = [c for _, group in t._groups() for c in group]   # top row first
    by_row = sorted(zip(offsets[:, 1], map(tuple, colours)), key=lambda p: -p[0])
    assert [col for _, col in by_row] == [to_rgba(VERDICTS[verdict_key(c)][1]) for c in order]
    assert [lab.get_text() for lab in ax.get_yticklabels()][-1].startswith("TKRNN⁺² solves")


def test_the_plot_is_embedded_and_the_same_every_time():
    t = every_verdict()
    assert forest_svg(t) == forest_svg(t)
    page = t._repr_html_()
    assert page.count("<img class='tnc-forest'") == 1 and t._repr_html_() == page
    assert "<img" not in C.ClaimsTable("empty")._repr_html_()


def test_design_counts_runs_never_reached():
    assert I.median([1.0, INF, INF, 2.0]).design.censored == (2,)
    assert I.ratio_of_medians([1.0, INF], [2.0, 3.0]).design.censored == (1, 0)
    assert I.mean([1.0, 2.0]).design == I.Design("mean", (2,))   # none never reached: as before
    with pytest.raises(ValueError, match="censored must give, per group"):
        I.Design("median", (3,), censored=(4,))


def test_steps_histogram_counts_whole_runs():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tempnets.chapters.fast_weights import steps_histogram
    ax = steps_histogram([300, 310, 900, 5000, 5200, -1], 20_000)
    ticks = ax.get_yticks()
    plt.close(ax.figure)
    assert all(float(v).is_integer() for v in ticks), f"y ticks {ticks} are not whole runs"


@pytest.mark.parametrize("eid", ["gsm-problem3", "fw-parking", "tk-serial-recall"])
def test_the_html_counts_what_the_scorecard_counts(eid):
    """The verdicts the page shows, counted from its rows, equal the scorecard's counts of the
    same re-derived record (tempnets.book.scorecard.table_counts reads the verdict words)."""
    from tempnets.book import experiments, scorecard

    table = experiments.rederive(f"paper_scale/{eid}.json")[0].claims
    shown = re.findall(r"<tr class='tnc-v-([a-z-]+)'", table._repr_html_())
    counted = {}
    for kind in ("replication", "computation"):
        for cat, n in scorecard.table_counts(table, kind).items():
            key = {"undecidable by design": "not decided"}.get(cat, cat).replace(" ", "-")
            counted[key] = counted.get(key, 0) + n
    assert {k: shown.count(k) for k in counted} == counted and len(shown) == sum(counted.values())


def test_small_and_large_numbers_read_plainly():
    assert number_html(0.00065) == "0.00065" and number_html(-0.00123) == "−0.00123"
    assert number_html(5e-5) == "5 × 10<sup>−5</sup>" and number_html(2.5e16) == "2.5 × 10<sup>16</sup>"
    assert number_html(0.0) == "0" and number_html(1234.5) == "1234"


def test_what_is_not_a_table_is_refused_in_one_line():
    from tempnets.book.claims_view import to_html, value_html
    with pytest.raises(TypeError, match="table must be a tempnets.book.claims.ClaimsTable, got list"):
        to_html([])
    with pytest.raises(TypeError, match="table must be a tempnets.book.claims.ClaimsTable"):
        forest_plot({"a": 1})
    with pytest.raises(TypeError, match="claim must be a tempnets.book.claims.Claim, got str"):
        value_html("236")
    with pytest.raises(TypeError, match="claim must be a tempnets.book.claims.Claim"):
        verdict_key(None)


def test_a_verdict_against_the_text_still_says_why_it_was_not_tested():
    t = C.ClaimsTable("t")
    t.add("beats the RNN", "§4", None, 0.0, C.at_least(0.5), True, not_tested="its control learned nothing")
    page = t._repr_html_()
    assert "NOT TESTED (stated: holds)" in page and "Not tested: its control learned nothing." in page
    assert "tnc-v-not-as-stated" in page


def test_interval_header_says_the_level_a_sequential_design_used():
    """A record whose intervals are at 1 - 0.05/K (a sequential design) must not be headed
    "95% interval"; each row's test names its level."""
    from tempnets.book import claims_view

    def table(level):
        t = C.ClaimsTable("t")
        iv = I.share(9, 10, level=level)
        t.add("most runs solve it", "§1", None, 0.9, C.at_least(0.5), expected=None,
              interval=tuple(iv), design=iv.design)
        return t

    assert "ours [95% interval]" in claims_view.to_html(table(0.95), plot=False)
    wide = claims_view.to_html(table(0.99), plot=False)
    assert "ours [99% interval]" in wide and "95% interval" not in wide
    assert "99% interval</span>" in wide
    assert "ours [99% interval]" in str(table(0.99)) and "95% interval" not in str(table(0.99))
    assert "ours [95% interval]" in str(table(0.95))  # the plain-text table `reproduce` prints
