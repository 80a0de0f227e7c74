"""Smoke tests for tempnets.book.plots (Agg backend): each figure draws the expected artists."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.patches import Circle, FancyArrowPatch, Rectangle  # noqa: E402

from tempnets.tasks import analysis as an  # noqa: E402
from tempnets.tasks import grammars as gr  # noqa: E402
from tempnets.tasks import metrics as mt  # noqa: E402
from tempnets.book import plots  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.mark.parametrize("make", [gr.reber, gr.embedded_reber, gr.time_varying_embedded_reber,
                                  lambda: gr.embedded_subgrammar(False)])
def test_grammar_diagram(make):
    g = make()
    ax = plots.grammar_diagram(g)
    circles = [p for p in ax.patches if isinstance(p, Circle)]
    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    assert len(circles) == len(g.states) + 1 and len(arrows) == len(g.arcs)
    arc_labels = [t.get_text() for t in ax.texts if t.get_text() not in set(g.states) | {"END"}]
    assert sorted(lab.split()[0] for lab in arc_labels) == sorted(a.symbol for a in g.arcs)
    ax.figure.canvas.draw()


def test_grammar_diagram_probabilities_and_layout():
    ax = plots.grammar_diagram(gr.embedded_subgrammar(False))
    texts = [t.get_text() for t in ax.texts]
    assert "S 0.8" in texts and "X 0.2" in texts
    assert not any(t.endswith(" 0.5") for t in texts)  # even choices stay unlabelled
    pos = plots.grammar_layout(gr.reber())
    assert pos["#1"][1] > pos["#2"][1] and pos["#0"][0] < pos["#1"][0] < pos["#3"][0] < pos["#5"][0]
    with pytest.raises(ValueError, match="no position"):
        plots.grammar_diagram(gr.reber(), layout={"start": (0, 0)})


def test_network_state():
    layers = {"Output": np.linspace(0, 1, 7), "Hidden": [0.1, 0.5, 0.99], "Context": [0, 0, 0],
              "Input": np.eye(7)[0]}
    ax = plots.network_state(layers, unit_labels={"Output": "BTSPXVE", "Input": "BTSPXVE"}, title="Btxxvv")
    boxes = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(boxes) == 7 + 3 + 3 + 7
    texts = [t.get_text() for t in ax.texts]
    assert "99" in texts and "100" in texts and "Hidden" in texts and ax.get_title() == "Btxxvv"
    with pytest.raises(ValueError, match="outside"):
        plots.network_state({"Hidden": [1.5]})


def test_dendrogram_with_paper_labels():
    strings = ["BTXSE", "BPVVE", "BTSXSE"]
    labels = an.presentation_labels(strings)
    hidden = np.random.default_rng(0).random((len(labels), 3))
    ax = plots.dendrogram(an.cluster_hidden_states(hidden), labels)
    shown = [t.get_text() for t in ax.get_yticklabels()]
    assert sorted(shown) == sorted(labels) and "tXs" in shown
    with pytest.raises(ValueError, match="n labels"):
        plots.dendrogram(an.cluster_hidden_states(hidden), labels[:-1])


def test_learning_curve_and_acp_curves():
    x = np.arange(5)
    ax = plots.learning_curve(x, np.random.default_rng(1).random((3, 5)), label="mean of 3")
    assert len(ax.lines) == 4
    ax = plots.acp_curves(np.arange(0, 1050, 50), np.random.default_rng(2).random((21, 7)))
    assert len(ax.lines) == 7 and len(ax.get_legend().get_texts()) == 7
    with pytest.raises(ValueError, match=r"r_squared must have shape \(2, n_orders\), got \(3, 7\)"):
        plots.acp_curves([0, 50], np.zeros((3, 7)))


def test_hits_by_length():
    strings = ["BTTXSTE", "BPPVVPE", "BTPVPXVVTE", "BTTXXVPXVVTE"]
    res = mt.outcomes_by_embedding_length(["hit", "error", "hit", "miss"], strings)
    ax = plots.hits_by_length(res)
    assert len(ax.patches) == 2 * len(res["lengths"])
    assert [t.get_text() for t in ax.get_xticklabels()] == res["lengths"]


def test_hinton():
    w = np.array([[1.0, -0.5, 0.0], [0.25, 2.0, -2.0]])
    ax = plots.hinton(w, col_labels=["a", "b", "c"])
    squares = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(squares) == 5
    assert sum(p.get_facecolor()[0] == 0 for p in squares) == 2  # two negative weights in black
    with pytest.raises(ValueError, match="2-D"):
        plots.hinton(np.zeros(3))


@pytest.mark.parametrize("n_hidden", [3, 15])
def test_srn_diagram(n_hidden):
    ax = plots.srn_diagram(n_hidden=n_hidden)
    units = [p for p in ax.patches if isinstance(p, Circle)]
    pools = [p for p in ax.patches if isinstance(p, Rectangle)]
    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    assert len(units) == 7 + 7 + 2 * n_hidden and len(pools) == 4 and len(arrows) == 4
    dashed = [a for a in arrows if a.get_linestyle() not in ("-", "solid")]
    assert len(dashed) == 1, "only the copy back to the context is dashed"
    texts = {t.get_text() for t in ax.texts}
    assert {"Input", "Context", "Hidden", "Output"} <= texts and set("BTSPXVE") <= texts
    ax.figure.canvas.draw()
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match=r"n_hidden must be an integer >= 1, got "):
            plots.srn_diagram(n_hidden=bad)


def test_curves_and_bars_reject_bad_input():
    with pytest.raises(ValueError, match=r"y must have shape \(5,\) or \(n_runs, 5\)"):
        plots.learning_curve(np.arange(5), np.zeros(4))
    with pytest.raises(ValueError, match=r"y must have shape"):
        plots.learning_curve(np.arange(5), np.zeros((2, 2, 5)))
    with pytest.raises(ValueError, match=r"lacks \['error'\]"):
        plots.hits_by_length({"lengths": ["3"], "hit": [50.0]})


def test_network_state_unit_labels_clear_the_row_above():
    layers = {"Output": np.full(7, 0.5), "Hidden": [0.1, 0.5, 0.99], "Context": [0, 0, 0], "Input": np.eye(7)[0]}
    ax = plots.network_state(layers, unit_labels={"Output": "BTSPXVE", "Input": "BTSPXVE"})
    boxes = [(p.get_x(), p.get_y()) for p in ax.patches if isinstance(p, Rectangle)]
    labels = [t.get_position() for t in ax.texts if t.get_va() == "bottom"]
    assert len(labels) == 14
    for lx, ly in labels:        # a label's line (about 0.35 box heights tall) touches no box
        for bx, by in boxes:
            if bx <= lx <= bx + 0.9:
                assert ly + 0.35 <= by or ly >= by + 0.8, (lx, ly, bx, by)
