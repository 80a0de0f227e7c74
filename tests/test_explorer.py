"""Tests of tempnets.book.explorer (static state figure and the widget)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

from tempnets.book import explorer

from tempnets.tasks import grammars
from tempnets.models.srn import init_params, srn_forward


def test_string_states_match_forward_pass():
    g = grammars.reber()
    p = init_params(7, 3, 7, r=0.5, rng=0)
    st = explorer.string_states(p, g, "BTXSE")
    y, _, h = srn_forward(p, [g.encode("BTXSE")], return_hidden=True)
    assert np.allclose(st["output"][:-1], y) and np.allclose(st["hidden"][:-1], h)
    assert np.allclose(st["context"][1:], st["hidden"][:-1]) and not st["context"][0].any()
    assert st["legal"][0] == frozenset("TP") and st["legal"][-1] == frozenset()  # E: complete
    assert explorer.string_states(p, g, "BTT")["legal"] == [frozenset("TP"), frozenset("SX"), None]


def test_state_figure_titles_and_errors():
    g = grammars.reber()
    p = init_params(7, 3, 7, r=0.5, rng=0)
    ax = explorer.state_figure(p, g, "BTX", t=1)
    assert ax.get_title().startswith("bTx") and "legal: SX" in ax.get_title()
    ax = explorer.state_figure(p, g, "BTT")  # ungrammatical prefix still draws
    assert "legal: none (ungrammatical)" in ax.get_title()
    ax = explorer.state_figure(p, g, "BTXSE")  # at the E of a complete string nothing follows
    assert "legal: none (string complete)" in ax.get_title() and "ungrammatical" not in ax.get_title()
    ax = explorer.state_figure(p, g, "BTXSE", t=3)
    assert "legal: E " in ax.get_title()
    with pytest.raises(ValueError):
        explorer.state_figure(p, g, "BTX", t=5)
    with pytest.raises(ValueError):
        explorer.state_figure(p, g, "BTQ")


def test_explorer_widget_builds():
    pytest.importorskip("ipywidgets")
    g = grammars.reber()
    w = explorer.explorer(init_params(7, 3, 7, r=0.5, rng=0), g, "BTXSE")
    assert len(w.children) == 3
