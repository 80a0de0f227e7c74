"""Issue 34, item 5: the thesis's conclusion, "BPTT(4,1) markedly outperformed the PA networks",
is a claims row derived from the records (pa-8.1's BPTT(4,1), pa-4.2's PA networks)."""

import json
from pathlib import Path

import numpy as np
import pytest

from tempnets.chapters import periodically_attentive_units as pa

RECORDS = Path(__file__).resolve().parents[1] / "book" / "paper_scale"


def _data(exp_id):
    return json.loads((RECORDS / f"{exp_id}.json").read_text())["data"]


def test_the_conclusion_row_is_derived_from_the_records_on_the_same_weight_sets():
    a, b = _data("pa-4.2"), _data("pa-8.1")
    table = pa.conclusion_claims(a, b).verify()
    (row,) = table.rows()
    n = len(b["summary"]["BPTT(4,1)"]["final"])
    b4 = np.array(b["summary"]["BPTT(4,1)"]["final"])
    pa_f = np.array(a["summary"]["PA"]["final"])[:n]  # networks 0..n-1: the same weight sets
    assert row["ours"] == round(float(b4.mean() - pa_f.mean()), 1)
    assert row["paper"] == round(pa.thesis_mean(pa.THESIS["fig8.1"]["BPTT(4,1)"]["final"])
                                 - pa.thesis_mean(pa.THESIS["fig4.2"]["PA"]["final"]), 1)
    assert f"BPTT(4,1) {b4.mean():.1f}, PA {pa_f.mean():.1f}" in row["note"]
    assert row["verdict"] == "holds" and row["expected"] is True


def test_the_conclusion_needs_the_two_results_of_one_scale_and_seed():
    a, b = _data("pa-4.2"), _data("pa-8.1")
    with pytest.raises(TypeError, match="fig4_2 must be the result of pa-4.2"):
        pa.conclusion_claims(b, b)
    with pytest.raises(ValueError, match="one scale and seed"):
        pa.conclusion_claims(a, dict(b, seed=1))
    with pytest.raises(ValueError, match="no final scores of BPTT"):
        pa.conclusion_claims(a, dict(b, summary={}))
