"""Tests for tempnets.tasks.analysis: labels, clustering purity and ACPs on small data."""

import numpy as np
import pytest

from tempnets.tasks import analysis as an
from tempnets.tasks import grammars as gr


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
    groups = an.cluster_composition(z, nodes, 6)
    assert all(len(g) == 1 for g in groups)  # one node per cluster
    assert sorted((n, c) for g in groups for n, c in g.items()) == sorted((n, nodes.count(n)) for n in set(nodes))
    assert [sum(g.values()) for g in groups] == sorted((sum(g.values()) for g in groups), reverse=True)
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
    with pytest.raises(ValueError, match=r"n_clusters must be an integer in 1\.\.3 .*got 4"):
        an.cluster_purity(z, ["a", "b", "c"], 4)
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match=r"n_clusters must be an integer >= 1, got "):
            an.cluster_purity(z, ["a", "b", "c"], bad)


def test_conditional_probabilities():
    cp = an.conditional_probabilities(["BTXSE", "BTSXSE"], "BTSPXVE", 1)
    np.testing.assert_allclose(cp["T"], [0, 0, .5, 0, .5, 0, 0])
    np.testing.assert_allclose(cp["S"], [0, 0, 0, 0, 1 / 3, 0, 2 / 3])
    cp0 = an.conditional_probabilities(["BTXSE"], "BTSPXVE", 0)
    np.testing.assert_allclose(cp0[""], [0, .25, .25, 0, .25, 0, .25])
    cp3 = an.conditional_probabilities(["BTXSE"], "BTSPXVE", 3)
    assert set(cp3) == {"B", "BT", "BTX", "TXS"}
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match=r"order must be an integer >= 0, got "):
            an.conditional_probabilities(["BTXSE"], "BTSPXVE", bad)
    with pytest.raises(ValueError, match=r"order must be an integer >= 0, got "):
        an.path_probabilities(["BTXSE"], gr.reber(), -1)


def test_node_labels_need_a_deterministic_grammar():
    g = gr.FiniteStateGrammar("two ways", "BXE", (("s", "B", "a", 1.0), ("a", "X", "b", 0.5),
                                                  ("a", "X", "c", 0.5), ("b", "E", None, 1.0),
                                                  ("c", "E", None, 1.0)), "s")
    with pytest.raises(ValueError, match="deterministic grammar"):
        an.node_labels(g, ["BXE"])


def test_successor_and_letter_labels():
    g = gr.reber()
    assert an.successor_labels(g, ["BTXSE"]) == ["TP", "SX", "SX", "E"]
    assert an.current_letter_labels(["BTXSE", "BPVVE"]) == list("BTXS") + list("BPVV")


# Note 6 by hand on two strings.  Patterns (presented symbol, node, next):
#   BTXSE:  B #0 T | T #1 X | X #3 S | S #5 E
#   BTSXSE: B #0 T | T #1 S | S #1 X | X #3 S | S #5 E
# Order 1, paths B, T, X, S:  P(T|B) = 1, P(#0|B) = 1;  P(X|T) = P(S|T) = 1/2, P(#1|T) = 1;
# P(S|X) = 1, P(#3|X) = 1;  P(E|S) = 2/3, P(X|S) = 1/3, P(#5|S) = 2/3, P(#1|S) = 1/3.
TWO = ["BTXSE", "BTSXSE"]
HAND_ORDER_1 = {("#0", "T"): 1.0, ("#0", "P"): 0.0,
                ("#1", "S"): 0.5 * 1 + 0.0 * (1 / 3), ("#1", "X"): 0.5 * 1 + (1 / 3) * (1 / 3),
                ("#3", "S"): 1.0 * 1, ("#3", "X"): 0.0, ("#5", "E"): (2 / 3) * (2 / 3)}


def test_path_probabilities_by_hand():
    g = gr.reber()
    pp = an.path_probabilities(TWO, g, 1)
    assert pp.paths == ["B", "T", "X", "S"]
    s = pp.paths.index("S")
    np.testing.assert_allclose(pp.letter[s], [0, 0, 0, 0, 1 / 3, 0, 2 / 3])
    np.testing.assert_allclose(pp.node[s, [g.states.index("#1"), g.states.index("#5")]], [1 / 3, 2 / 3])
    np.testing.assert_allclose(pp.node.sum(axis=1), 1.0)


def test_acps_by_hand():
    g = gr.reber()
    table = an.average_conditional_probabilities(TWO, g, orders=[0, 1])
    assert table.keys == list(HAND_ORDER_1)
    np.testing.assert_allclose(table.values[1], list(HAND_ORDER_1.values()))
    # order 0: the one empty path; successors T S X E T S X S E... P(S) = 3/9, P(#1) = 3/9
    assert table.values[0, table.keys.index(("#1", "S"))] == pytest.approx((3 / 9) * (3 / 9))
    assert table.values[0, table.keys.index(("#5", "E"))] == pytest.approx((2 / 9) * (2 / 9))


def test_network_averages_by_hand():
    g = gr.reber()
    keys = an.acp_keys(g, TWO)
    acts = np.random.default_rng(0).random((9, 7))
    a = {name: acts[i] for i, name in enumerate(["B1", "T1", "X1", "S1", "B2", "T2", "S2", "X2", "S3"])}
    col = g.alphabet.index
    y = an.network_averages(acts, TWO, g, keys, order=1)
    got = dict(zip(keys, y))
    # (#1, X): paths T (P(#1|T) = 1) and S (P(#1|S) = 1/3) are both followed by X somewhere
    mean_t = (a["T1"][col("X")] + a["T2"][col("X")]) / 2
    mean_s = (a["S1"][col("X")] + a["S2"][col("X")] + a["S3"][col("X")]) / 3
    assert got["#1", "X"] == pytest.approx(mean_t + mean_s / 3)
    # (#1, S): only path T is followed by S
    assert got["#1", "S"] == pytest.approx((a["T1"][col("S")] + a["T2"][col("S")]) / 2)
    # (#5, E): path S, followed by E, P(#5|S) = 2/3
    assert got["#5", "E"] == pytest.approx((a["S1"][col("E")] + a["S2"][col("E")] + a["S3"][col("E")]) / 3 * 2 / 3)
    # (#0, P): no path at #0 is followed by P: an empty sum, 0 like its ACP
    assert got["#0", "P"] == 0.0 == HAND_ORDER_1["#0", "P"]
    with pytest.raises(ValueError, match="no pattern of the strings reaches node '#4'"):
        an.network_averages(acts, TWO, g, [("#4", "V")])
    with pytest.raises(ValueError, match=r"expected \(9, 7\)"):
        an.network_averages(acts[:-1], TWO, g, keys)
    with pytest.raises(ValueError, match="not a \\(state, symbol\\) pair"):
        an.network_averages(acts, TWO, g, [("#9", "T")])


@pytest.fixture(scope="module")
def reber43():
    g = gr.reber()
    return g, g.enumerate(8, 3)


def test_acps_have_11_pairs_and_order_0_is_letter_times_node_frequency(reber43):
    g, strings = reber43
    table = an.average_conditional_probabilities(strings, g, orders=range(7))
    assert len(table.keys) == 11  # note 6
    assert table.values.shape == (7, 11)
    assert sum(len(s) - 1 for s in strings) == 328  # the text says 329 patterns
    freq = an.conditional_probabilities(strings, g.alphabet, 0)[""]
    nodes = an.node_labels(g, strings)
    for j, (node, letter) in enumerate(table.keys):
        p_node = nodes.count(node) / len(nodes)
        assert table.values[0, j] == pytest.approx(freq[g.alphabet.index(letter)] * p_node)


def test_acp_orders_2_to_6_differ_on_the_43_strings(reber43):
    # with an unweighted sum over paths the orders stay apart (the number and mix of paths grows)
    g, strings = reber43
    v = an.average_conditional_probabilities(strings, g, orders=range(7)).values
    r = np.corrcoef(v[2:])
    for i in range(5):
        for j in range(i + 1, 5):
            assert r[i, j] ** 2 < 0.99, f"orders {i + 2} and {j + 2} are collinear"


def test_frequency_weighted_acps_would_collapse(reber43):
    # why the sum is unweighted: weighting each path by P(path | node) gives P(letter | node)
    # (law of total probability) at every order where the path fixes the node, here 2 to 6
    g, strings = reber43
    nodes = np.array(an.node_labels(g, strings))
    nxt = np.array([s[t + 1] for s in strings for t in range(len(s) - 1)])
    for order in range(2, 7):
        pp = an.path_probabilities(strings, g, order)
        assert np.all(pp.node.max(axis=1) == 1.0), "each path of order >= 2 ends at one node"
    keys = an.acp_keys(g, strings)
    for order in range(2, 7):
        pp = an.path_probabilities(strings, g, order)
        counts = np.array([sum(an._context(s[:t + 1], order) == p for s in strings for t in range(len(s) - 1))
                           for p in pp.paths])
        for node, letter in keys:
            i = g.states.index(node)
            w = counts * pp.node[:, i]
            weighted = np.sum(w * pp.letter[:, g.alphabet.index(letter)]) / w.sum()
            assert weighted == pytest.approx(np.mean(nxt[nodes == node] == letter))


def _outputs_of_order(strings, g, order):
    cp = an.conditional_probabilities(strings, g.alphabet, order)
    return np.array([cp[an._context(s[:t + 1], order)] for s in strings for t in range(len(s) - 1)])


def test_r_squared_picks_the_order_the_network_uses(reber43):
    g, strings = reber43
    table = an.average_conditional_probabilities(strings, g, orders=range(7))
    # the paper's averaging (paths of length 6): a network giving the order-6 probabilities
    r2 = an.acp_r_squared(table, _outputs_of_order(strings, g, 6), strings, g)
    assert r2.shape == (7,) and np.all((r2 >= 0) & (r2 <= 1 + 1e-12))
    assert r2[6] == pytest.approx(1.0) and np.all(r2[:6] < 0.99)
    # averaged over paths of its own order, a network using order k is fit exactly by order k only
    for order in (1, 3, 5):
        r2 = an.acp_r_squared(table, _outputs_of_order(strings, g, order), strings, g, order=order)
        assert r2[order] == pytest.approx(1.0)
        assert np.all(np.delete(r2, order) < 0.99), f"order {order}: {np.round(r2, 3)}"
    flat = np.zeros((328, 7))
    assert np.all(an.acp_r_squared(table, flat, strings, g) == 0.0)  # responses that do not vary
    with pytest.raises(ValueError, match=r"expected \(328, 7\)"):
        an.acp_r_squared(table, flat[:-1], strings, g)
