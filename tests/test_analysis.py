"""Tests for tempnets.analysis: labels, clustering purity and ACPs on small data."""

import numpy as np
import pytest

from tempnets import analysis as an
from tempnets import grammars as gr


def test_presentation_labels_follow_the_paper():
    assert an.presentation_label("BPVPSE", 3) == "pvPs"  # section 2.5
    assert an.presentation_label("BPVPSE", 0) == "Bpvps"
    assert an.presentation_label("BTPVPE", 3, upto_current=True) == "tpV"  # Figure 20 style
    assert an.presentation_labels(["BTXSE"]) == ["Btxs", "Txs", "tXs", "txS"]
    with pytest.raises(ValueError, match="allowed 0..4"):
        an.presentation_label("BPVPSE", 5)


def test_node_labels():
    g = gr.reber()
    assert an.node_labels(g, ["BTXXVVE"]) == ["#0", "#1", "#3", "#2", "#4", "#5"]
    with pytest.raises(ValueError, match="not a prefix"):
        an.node_labels(g, ["BTTE"])


def _noisy_nodes(rng, spread):
    g = gr.reber()
    strings = g.enumerate(8, 3)
    nodes = an.node_labels(g, strings)
    centres = {n: rng.normal(size=5) for n in sorted(set(nodes))}
    hidden = np.array([centres[n] for n in nodes]) + spread * rng.normal(size=(len(nodes), 5))
    return nodes, hidden


def test_clusters_group_by_node_when_states_do():
    rng = np.random.default_rng(0)
    nodes, hidden = _noisy_nodes(rng, 0.01)
    z = an.cluster_hidden_states(hidden)
    assert z.shape == (len(nodes) - 1, 4)
    assert an.cluster_purity(z, nodes, 6) == 1.0
    # unrelated hidden states do not group by node
    z = an.cluster_hidden_states(rng.normal(size=hidden.shape))
    assert an.cluster_purity(z, nodes, 6) < 0.6
    assert an.cluster_purity(z, nodes, len(nodes)) == 1.0


def test_cluster_errors():
    with pytest.raises(ValueError, match="shape"):
        an.cluster_hidden_states(np.zeros(3))
    with pytest.raises(ValueError, match="unknown linkage method"):
        an.cluster_hidden_states(np.zeros((3, 2)), method="nearest")
    z = an.cluster_hidden_states(np.eye(3))
    with pytest.raises(ValueError, match="n labels"):
        an.cluster_purity(z, ["a"], 1)
    with pytest.raises(ValueError, match="n_clusters"):
        an.cluster_purity(z, ["a", "b", "c"], 4)


def test_conditional_probabilities():
    cp = an.conditional_probabilities(["BTXSE", "BTSXSE"], "BTSPXVE", 1)
    np.testing.assert_allclose(cp["T"], [0, 0, .5, 0, .5, 0, 0])
    np.testing.assert_allclose(cp["S"], [0, 0, 0, 0, 1 / 3, 0, 2 / 3])
    cp0 = an.conditional_probabilities(["BTXSE"], "BTSPXVE", 0)
    np.testing.assert_allclose(cp0[""], [0, .25, .25, 0, .25, 0, .25])
    cp3 = an.conditional_probabilities(["BTXSE"], "BTSPXVE", 3)
    assert set(cp3) == {"B", "BT", "BTX", "TXS"}


@pytest.fixture(scope="module")
def reber43():
    g = gr.reber()
    return g, g.enumerate(8, 3)


def test_acps_have_11_pairs_and_order_0_is_letter_frequency(reber43):
    g, strings = reber43
    table = an.average_conditional_probabilities(strings, g, orders=range(7))
    assert len(table.keys) == 11  # note 6
    assert table.values.shape == (7, 11)
    assert sum(len(s) - 1 for s in strings) == 328  # the text says 329 patterns
    freq = an.conditional_probabilities(strings, g.alphabet, 0)[""]
    for j, (node, letter) in enumerate(table.keys):
        assert table.values[0, j] == pytest.approx(freq[g.alphabet.index(letter)])
    # first order: T after B is 0.5 whatever the node; the E after node #5 is certain
    assert table.values[6, table.keys.index(("#5", "E"))] == pytest.approx(1.0)


def test_r_squared_picks_the_order_the_network_uses(reber43):
    g, strings = reber43
    table = an.average_conditional_probabilities(strings, g, orders=range(10))
    for order in (1, 9):
        cp = an.conditional_probabilities(strings, g.alphabet, order)
        acts = np.array([cp[an._context(s[:t + 1], order)] for s in strings for t in range(len(s) - 1)])
        r2 = an.acp_r_squared(table, acts, strings, g)
        assert r2[order] == pytest.approx(1.0)
        assert r2.shape == (10,) and np.all((r2 >= 0) & (r2 <= 1 + 1e-12))
    flat = np.full((328, 7), 0.5)
    assert np.all(an.acp_r_squared(table, flat, strings, g) == 0.0)
    with pytest.raises(ValueError, match=r"expected \(328, 7\)"):
        an.acp_r_squared(table, flat[:-1], strings, g)
    with pytest.raises(ValueError, match="never occurs in the corpus"):
        an.average_conditional_probabilities(strings[:5], g, orders=[2], strings=strings)
