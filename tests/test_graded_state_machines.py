"""Fast tests of the chapter runners' logic (tempnets.chapters.graded_state_machines)."""

import json

import numpy as np
import pytest

from tempnets.book import claims

from tempnets.tasks import grammars, metrics
from tempnets.chapters import graded_state_machines as gsm
# A test replaces a name in the file of the package whose code reads it (the package only re-exports)
from tempnets.chapters.graded_state_machines import embedded as gsm_embedded
from tempnets.chapters.graded_state_machines import network_tests as gsm_network_tests
from tempnets.chapters.graded_state_machines import reber_grammar as gsm_reber_grammar
from tempnets.models.srn import init_params


def test_random_sequences_shape_and_alphabet():
    flat, off = gsm.random_sequences(500, rng=0)
    assert off.shape == (501,) and off[0] == 0 and off[-1] == flat.size
    alpha = "BTSPXVE"
    for i in range(500):
        s = "".join(alpha[c] for c in flat[off[i]:off[i + 1]])
        assert s[0] == "B" and s[-1] == "E" and "E" not in s[:-1] and "B" not in s[1:]
    again = gsm.random_sequences(500, rng=0)
    assert np.array_equal(flat, again[0]) and np.array_equal(off, again[1])
    flat0, off0 = gsm.random_sequences(0, rng=0)
    assert flat0.size == 0 and off0.tolist() == [0]


@pytest.mark.parametrize("n", [-1, 2.5, "10", True])
def test_random_sequences_bad_n(n):
    with pytest.raises(ValueError, match=r"n must be an integer >= 0, got "):
        gsm.random_sequences(n, rng=0)


@pytest.mark.parametrize("letters", ["TSPXV", "TSPXVQ"])
def test_random_sequences_bad_letters(letters):
    with pytest.raises(ValueError, match="must contain 'E' and be in 'BTSPXVE'"):
        gsm.random_sequences(10, rng=0, letters=letters)


def test_grammatical_flat_hand_built():
    g = grammars.reber()
    strings = ["BTXSE", "BPVVE", "BTXXVVE", "BTSE", "BTXSSE", "BE", "BPVPSE", "BTTE"]
    expect = [True, True, True, False, False, False, True, False]
    flat = np.concatenate([g.encode(s) for s in strings])
    off = np.concatenate([[0], np.cumsum([len(s) for s in strings])])
    assert gsm.grammatical_flat(g, flat, off).tolist() == expect
    assert [g.is_member(s) for s in strings] == expect


def test_random_grammatical_probability_matches_enumeration():
    g = grammars.reber()
    # sum over grammatical strings of (1/6)^(letters + 1), truncated at 40 letters
    by_len = {}
    for s in g.enumerate(14):
        by_len[len(s) - 2] = by_len.get(len(s) - 2, 0) + 1
    partial = sum(n * 6.0 ** -(k + 1) for k, n in by_len.items())
    exact = gsm.random_grammatical_probability(g)
    assert partial <= exact < partial + 1e-6
    assert abs(exact - 0.002048) < 1e-5


def test_accept_flat_agrees_with_metrics_accepted():
    g = grammars.reber()
    p = init_params(7, 5, 7, r=0.5, rng=3)
    strings = g.sample(30, rng=1) + ["BTSE", "BPXE"]
    flat = np.concatenate([g.encode(s) for s in strings])
    off = np.concatenate([[0], np.cumsum([len(s) for s in strings])])
    for th in (0.05, 0.2, 0.33, 0.34, 0.5):  # at 0.33 and 0.34 some strings pass and some fail
        assert gsm.accept_flat(p, flat, off, th).tolist() == gsm.accepts(p, g, strings, th).tolist()
    assert [gsm.accepts(p, g, strings, th).sum() for th in (0.33, 0.34)] == [23, 14]  # of 32


def test_node_separability_hand_built():
    nodes = ["#1"] * 4 + ["#3"] * 4
    apart = np.array([[0, 0]] * 4 + [[1, 1]] * 4, float)
    assert gsm.node_separability(apart, nodes) == 1.0
    merged = np.array([[0, 0], [1, 1], [0, 0], [1, 1]] * 2, float)
    assert gsm.node_separability(merged, nodes) == 0.5
    with pytest.raises(ValueError):
        gsm.node_separability(apart, ["#1"] * 8)


def test_long_string_is_grammatical():
    assert grammars.reber().is_member(gsm.LONG_STRING)


def test_optimal_tss_hand_built():
    g = grammars.reber()
    # BTXSE and BPVVE: after B, T or P (1/2 each): each pattern costs 0.5; everything else is certain
    assert gsm.optimal_tss(g, ["BTXSE", "BPVVE"]) == pytest.approx(1.0)


def test_problem3_strings_and_criterion():
    s = gsm.problem3_strings(3)
    assert s == ["BPSSSPE", "BTSSSTE"]
    a = "BTSPXVE"
    ys = []
    for x in s:
        y = np.full((len(x) - 1, 7), 0.1)
        for t in range(len(x) - 1):
            y[t, a.index(x[t + 1])] = 0.9
        ys.append(y)
    assert gsm.problem3_solved(ys, s) and gsm.problem3_shared_learned(ys, s)
    ys[0][len(s[0]) - 3, a.index("T")] = 0.5  # wrong letter too high in PSSSP
    assert not gsm.problem3_solved(ys, s) and gsm.problem3_shared_learned(ys, s)
    with pytest.raises(ValueError):
        gsm.problem3_strings(0)


def test_twin_nearest_neighbours():
    h = np.array([[0, 0], [0, 0.1], [5, 5], [5, 5.1]])
    assert gsm.twin_nearest_neighbours(h, ["a", "a", "b", "b"], ["T", "P", "T", "P"]) == 1.0
    assert gsm.twin_nearest_neighbours(h, ["a", "b", "a", "b"], ["T", "P", "P", "T"]) == 0.0
    with pytest.raises(ValueError, match="no embedded path occurs after both first letters"):
        gsm.twin_nearest_neighbours(h, ["a", "b", "c", "d"], ["T", "P", "T", "P"])
    with pytest.raises(ValueError, match="3 labels"):
        gsm.twin_nearest_neighbours(h, ["a", "a", "b"], ["T", "P", "T", "P"])


def test_figure13_14_states_match_the_43_string_language():
    g = grammars.reber()
    language = g.enumerate(8, 3)
    for prefix, allowed, excluded, fig in gsm.FIGURE13_14:
        assert metrics.legal_successors(prefix, language) == frozenset(allowed), fig
        # what the length constraint removes, the grammar itself allows
        assert g.successors(prefix) == frozenset(allowed + excluded), fig


def _fake_outputs(rows_for):
    """A stand-in for gsm.outputs: the activations after each prefix are ``rows_for(prefix)``."""
    a = "BTSPXVE"

    def outputs(params, grammar, strings, return_hidden=False):
        ys = [np.array([[rows_for(s[:t + 1]).get(c, 0.0) for c in a] for t in range(len(s) - 1)])
              for s in strings]
        return (ys, ys) if return_hidden else ys
    return outputs


def test_length_constraint_predictions(monkeypatch):
    g = grammars.reber()
    lang = g.enumerate(8, 3)
    # a network that honours the length constraint: 0.5 on each successor the 43 strings allow
    monkeypatch.setattr(gsm_reber_grammar, "outputs", _fake_outputs(
        lambda p: {c: 0.5 for c in metrics.legal_successors(p, lang)}))
    res = gsm.length_constraint_predictions(None, g)
    assert [r["figure"] for r in res] == ["13a", "13b", "14a", "14b"] and all(r["ok"] for r in res)
    # one that only knows the grammar predicts the excluded letters too: 13b and 14b fail
    monkeypatch.setattr(gsm_reber_grammar, "outputs",
                        _fake_outputs(lambda p: {c: 0.5 for c in g.successors(p)}))
    assert [r["ok"] for r in gsm.length_constraint_predictions(None, g)] == [True, False, True, False]


def test_predicts_exactly_legal(monkeypatch):
    g = grammars.reber()
    s = "BTSXXVPSE"
    monkeypatch.setattr(gsm_network_tests, "outputs",
                        _fake_outputs(lambda p: {c: 0.5 for c in g.successors(p)}))
    assert gsm.predicts_exactly_legal(None, g, s).tolist() == [True] * 8

    def rows(p):  # an illegal letter above threshold after BTSX; a legal one too low after BTSXXV
        r = {c: 0.5 for c in g.successors(p)}
        if p == "BTSX":
            r["T"] = 0.31
        if p == "BTSXXV":
            r["V"] = 0.3
        return r
    monkeypatch.setattr(gsm_network_tests, "outputs", _fake_outputs(rows))
    ok = gsm.predicts_exactly_legal(None, g, s)
    assert np.flatnonzero(~ok).tolist() == [3, 5]


def test_tss_of_a_constant_network():
    # all weights 0 and output bias -1: every output is y = f(-1), each pattern costs (1 - y)^2 + 6 y^2
    g = grammars.reber()
    p = init_params(7, 3, 7, r=0.5, rng=0)
    p = p._replace(W_ih=0 * p.W_ih, W_hh=0 * p.W_hh, W_ho=0 * p.W_ho, b_o=np.full(7, -1.0))
    y = 1 / (1 + np.exp(1.0))
    strings = ["BTXSE", "BPVVE", "BTSXXVVE"]
    n = sum(len(s) - 1 for s in strings)
    assert gsm.tss(p, g, strings) == pytest.approx(n * ((1 - y) ** 2 + 6 * y ** 2))
    assert gsm.tss(p, g, strings) > gsm.optimal_tss(g, strings)


def test_growth_evidence():
    inf = float("inf")
    assert gsm.growth_evidence([100, 200, inf]) == {"increasing": 2, "decreasing": 0, "untestable": 0}
    assert gsm.growth_evidence([100, inf, inf]) == {"increasing": 1, "decreasing": 0, "untestable": 1}
    assert gsm.growth_evidence([300, 200, 200]) == {"increasing": 0, "decreasing": 2, "untestable": 0}
    assert gsm.growth_evidence([inf, 500]) == {"increasing": 0, "decreasing": 1, "untestable": 0}
    with pytest.raises(ValueError, match="numbers or inf"):
        gsm.growth_evidence([100, float("nan")])


def _coded_states(label_of):
    """Fake "hidden states": a distinct point per label of the prefix (a one-hot code, scaled)."""
    codes = {}

    def rows_for(prefix):
        k = codes.setdefault(label_of(prefix), len(codes))
        return {"BTSPXVE"[k % 7]: 1.0 + k // 7}
    return rows_for


def test_figure15_purity(monkeypatch):
    g = grammars.reber()
    strings = list(grammars.SERVAN_SCHREIBER_TRAINING)
    by_prediction = _coded_states(lambda p: "".join(sorted(g.successors(p))))
    monkeypatch.setattr(gsm_reber_grammar, "outputs", _fake_outputs(by_prediction))
    res = gsm.figure15_purity(None, g, strings)
    assert res["prediction"]["n_clusters"] == 5 and res["letter"]["n_clusters"] == 6
    assert res["prediction"]["purity"] == 1.0 and res["prediction"]["adjusted"] == 1.0
    assert res["letter"]["adjusted"] < 0.9
    assert 0 < res["letter"]["chance"] < res["prediction"]["chance"] < 1
    monkeypatch.setattr(gsm_reber_grammar, "outputs",
                        _fake_outputs(_coded_states(lambda p: p[-1])))
    res = gsm.figure15_purity(None, g, strings)
    assert res["letter"]["adjusted"] == 1.0 and res["prediction"]["adjusted"] < 0.9


def test_acp_pattern_r_squared_perfect_predictor():
    g = grammars.reber()
    strings = g.enumerate(8, 3)
    rows, x = gsm.acp_pattern_design(strings, strings, g, range(7))
    assert x.shape == (7, len(rows))
    # a "network" whose outputs are the order-6 conditional probabilities is fit perfectly by order 6
    y = np.zeros((sum(len(s) - 1 for s in strings), 7))
    for (i, j), v in zip(rows, x[6]):
        y[i, j] = v
    r2 = gsm.acp_pattern_r_squared(rows, x, y)
    assert r2[6] == pytest.approx(1.0) and np.all(r2[:6] < 0.99)
    # and one whose outputs are the order-1 probabilities by order 1 only
    y1 = np.zeros_like(y)
    for (i, j), v in zip(rows, x[1]):
        y1[i, j] = v
    r2 = gsm.acp_pattern_r_squared(rows, x, y1)
    assert r2[1] == pytest.approx(1.0) and np.all(np.delete(r2, 1) < 0.99)


def test_params_round_trip():
    p = init_params(7, 3, 7, r=0.5, rng=0)
    q = gsm.params_from_lists(json.loads(json.dumps(gsm.params_to_lists(p))))
    assert all(np.array_equal(a, b) for a, b in zip(p, q))


def test_run_reber_count():
    r = gsm.run_reber_count()
    r.claims.verify()
    assert len(r.data["strings"]) == 43


def test_run_21_strings_small(monkeypatch):
    # one network: the table's numbers are those of the network the data holds
    monkeypatch.setattr(gsm_reber_grammar, "choose",
                        lambda book, paper, scale=None: 1 if isinstance(book, int) else book)
    r = gsm.run_21_strings(progress=False)
    d = r.data
    json.dumps(d)
    g = grammars.reber()
    train, unseen = list(grammars.SERVAN_SCHREIBER_TRAINING), list(grammars.generalisation_strings())
    p = gsm.params_from_lists(d["params"])
    assert d["n_patterns"] == 156 and d["n_predictions"] == 172
    assert d["tss_end"][0] == pytest.approx(gsm.tss(p, g, train))
    assert d["tss_floor"] == pytest.approx(gsm.optimal_tss(g, train))
    gen = metrics.generalisation_counts(gsm.outputs(p, g, unseen), unseen, g, language=g.enumerate(8, 3))
    assert d["n_incorrect"] == [gen.n_incorrect] and d["n_missed"] == [gen.n_missed]
    assert d["n_two_way"] == gen.n_two_way < gen.n_predictions
    assert d["figures13_14"][0] == gsm.length_constraint_predictions(p, g)
    by_source = {}
    for c in r.claims.claims:
        by_source.setdefault(c.source, []).append(c)
    assert by_source["§3.3"][0].ours == pytest.approx(d["tss_end"][0])
    assert by_source["§3.3"][-1].ours == pytest.approx(100 * gen.n_missed / 172)
    f15 = gsm.figure15_purity(p, g, train)
    assert by_source["Figure 15"][0].ours == pytest.approx(f15["prediction"]["adjusted"]
                                                            - f15["letter"]["adjusted"])
    # training did something: the online tss fell
    assert d["tss_curve"][0][-1] < 0.5 * d["tss_curve"][0][0]


def test_embedded_states_are_distinct():
    g = grammars.embedded_subgrammar(True)
    h, paths, first = gsm.embedded_states(init_params(7, 4, 7, r=0.5, rng=0), g, max_letters=6)
    keys = list(zip(first, paths))
    assert len(keys) == len(set(keys)) == len(h)
    assert set(first) == {"T", "P"} and ("T", "PV") in keys and ("P", "PV") in keys


def test_length_statistics_and_the_literal_asymmetrical_reading():
    g = grammars.reber()
    m, sd = gsm.length_statistics(g)
    strings = g.sample(20_000, rng=4)
    n = np.array([len(s) - 2 for s in strings])
    assert abs(m - n.mean()) < 4 * n.std() / np.sqrt(n.size) and abs(sd - n.std()) < 0.1
    assert m == pytest.approx(6.0)  # a Reber string has 6 letters on average: 7 patterns (§2.4: "mean: 7")
    lit = gsm.literal_asymmetrical_subgrammar()
    probs = {(a.source, a.symbol): a.prob for a in lit.arcs}
    assert probs["T#3", "X"] == probs["P#4", "P"] == 0.8 and probs["T#3", "S"] == probs["P#4", "V"] == 0.2
    assert set(lit.enumerate(8)) == set(grammars.embedded_subgrammar(False).enumerate(8))  # same language
    # the reading we use matches the paper's 5.8 (sd 1.3) to its precision; the literal one does not
    m_exit, sd_exit = gsm.length_statistics(grammars.embedded_subgrammar(False))
    m_lit, _ = gsm.length_statistics(lit)
    assert abs(m_exit - 5.8) <= 0.05 + 1e-9 and abs(sd_exit - 1.3) <= 0.05 and abs(m_lit - 5.8) > 1.0


def test_problem3_claims_rederive_from_the_recorded_paper_scale_run():
    """run_problem3(trained=...) recomputes the claims of a recorded run without training:
    the same values as recorded, and the chapter's per-scale expectations."""
    from pathlib import Path

    from tempnets.book import experiments, intervals

    path = Path(__file__).resolve().parents[1] / "book" / "paper_scale" / "gsm-problem3.json"
    again, record = experiments.rederive(path)
    assert [r["ours"] for r in again.claims.rows()] == [r["ours"] for r in record["claims"]]
    again.claims.verify()
    size_effect = again.claims.rows()[-1]
    assert size_effect["expected"] is gsm.EXPECT["problem3-size-effect"]["paper"]
    assert size_effect["interval"] == pytest.approx(list(intervals.share_difference(6, 10, 0, 10)))
    assert size_effect["holds"] is None  # 6 of 10 against 0 of 10: the interval reaches below 0.5
    book = gsm.run_problem3("book", trained=record["data"])  # book-scale statement, same data
    assert book.claims.rows()[-1]["expected"] is gsm.EXPECT["problem3-size-effect"]["book"]
    with pytest.raises(ValueError, match="missing"):
        gsm.run_problem3("paper", trained={"main": {}})


def test_generalisation_sweep_trains_experiment_2s_networks():
    # At (0.01, 0.9) the sweep's network 0 is run_21_strings' network 0 (same seed stream).
    one = gsm.generalisation_sweep(learning_rates=(0.01,), momenta=(0.9,), n_networks=1)
    assert len(one) == 1 and one[0]["learning_rate"] == 0.01 and one[0]["momentum"] == 0.9
    g = grammars.reber()
    hist = gsm_reber_grammar.train_epochs([g.encode(s) for s in grammars.SERVAN_SCHREIBER_TRAINING],
                                          n_epochs=2000, config=gsm.config(15), n_networks=1,
                                          rng=gsm._sub(0, 2, 1), chunk_strings=21 * 50, progress=False)
    unseen = list(grammars.generalisation_strings())
    gen = metrics.generalisation_counts(gsm.outputs(hist.params.network(0), g, unseen), unseen, g,
                                        language=g.enumerate(8, 3))
    assert one[0]["incorrect_pct"] == [pytest.approx(100 * gen.n_incorrect / gen.n_predictions)]
    assert one[0]["missed_pct"] == [pytest.approx(100 * gen.n_missed / gen.n_predictions)]
    other = gsm.generalisation_sweep(learning_rates=(0.02,), momenta=(0.5,), n_networks=1)
    assert other[0]["tss"] != one[0]["tss"]  # the settings change the training


def _r2_with_best(best, n_networks=4, margin=0.3, noise=0.01):
    """r² of shape (tests, networks, 7 orders) whose best order at each test is ``best[t]``."""
    gen = np.random.default_rng(0)
    r2 = 0.2 + noise * gen.standard_normal((len(best), n_networks, 7))
    for t, b in enumerate(best):
        r2[t, :, b] += margin
    return r2


def test_learning_phase_claim_asks_for_a_change_of_order():
    tests = list(range(0, 1001, 50))
    for best, holds in (([6] * 21, False), ([0, 1, 1] + [3] * 10 + [6] * 8, True), ([0] * 21, False)):
        t = claims.ClaimsTable()
        gsm._learning_phase_claims(t, tests, _r2_with_best(best), "note 6")
        assert t.claims[2].holds is holds, best
    # a clear rise in every network: decided; no change: decided against
    t = claims.ClaimsTable()
    gsm._learning_phase_claims(t, tests, _r2_with_best([0, 1, 1] + [3] * 10 + [6] * 8), "note 6")
    assert [c.holds for c in t.claims] == [True, True, True, True]
    t = claims.ClaimsTable()
    gsm._learning_phase_claims(t, tests, _r2_with_best([6] * 21), "note 6")
    assert [c.holds for c in t.claims] == [False, False, False, False]


def test_learning_phase_claims_are_inconclusive_when_the_networks_disagree():
    tests = list(range(0, 1001, 50))
    best = [0, 1, 1] + [3] * 10 + [6] * 8
    r2 = _r2_with_best(best, n_networks=4)
    r2[0] = [[0.45, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0], [0.44, 0.01, 0.5, 0.0, 0.01, 0.0, 0.0],
             [0.5, 0.0, 0.45, 0.01, 0.0, 0.0, 0.0], [0.5, 0.0, 0.46, 0.0, 0.0, 0.01, 0.0]]
    # before training, two networks favour order 2 and two order 0: neither is decided
    t = claims.ClaimsTable()
    gsm._learning_phase_claims(t, tests, r2, "note 6")
    first = t.claims[0]
    assert first.ours in (0, 2) and first.interval == (0.0, 2.0) and first.holds is None
    assert t.claims[2].holds is None  # "a low order before training" is no longer decided
    one = claims.ClaimsTable()  # one network: nothing is decided
    gsm._learning_phase_claims(one, tests, _r2_with_best(best, n_networks=1), "note 6")
    assert one.claims[0].interval == (0.0, 6.0) and one.claims[0].holds is None
    assert one.claims[3].interval == (-np.inf, np.inf) and one.claims[3].holds is None


def test_plausible_best_orders():
    r2 = np.array([[0.1, 0.5, 0.2], [0.2, 0.6, 0.1], [0.15, 0.55, 0.15]])
    assert gsm.plausible_best_orders(r2) == [1]  # order 1 beats both others in every network
    r2 = np.array([[0.5, 0.1, 0.4], [0.3, 0.1, 0.6], [0.5, 0.2, 0.45]])
    assert gsm.plausible_best_orders(r2) == [0, 2]  # 0 and 2 are not told apart; 1 is beaten
    assert gsm.plausible_best_orders([[0.1, 0.9, 0.3]]) == [0, 1, 2]  # one network decides nothing
    with pytest.raises(ValueError, match="shape"):
        gsm.plausible_best_orders([0.1, 0.2])


def test_comparisons_against():
    # for, against, undecided: the point counts the two whose mean is not above 0
    point, rng = gsm.comparisons_against([[1.0, 1.1, 0.9], [-1.0, -1.1, -0.9], [1.0, -2.0, 0.5]])
    assert point == 2 and rng == (1, 2)
    assert gsm.comparisons_against([[2.0, 2.1], [3.0, 3.5, 2.9]]) == (0, (0, 0))
    assert gsm.comparisons_against([[5.0]]) == (0, (0, 1))  # one network: undecided
    assert gsm.comparisons_against([[0.0, 0.0, 0.0]]) == (1, (0, 1))  # a tie is not "for"
    # at a sequential design's level the same comparison can stay undecided
    assert gsm.comparisons_against([[1.0, 1.1, 0.9]]) == (0, (0, 0))
    assert gsm.comparisons_against([[1.0, 1.1, 0.9]], 0.9999) == (0, (0, 1))


def test_growth_decided():
    inf = float("inf")
    fast, slow = [100, 120, 90, 110, 105, 95, 100, 115], [900, 1000, 1100, 950, 1050, 990, 1020, 980]
    assert gsm.growth_decided([fast, slow]) == {"grows": 1, "shrinks": 0, "undecided": 0}
    assert gsm.growth_decided([slow, fast]) == {"grows": 0, "shrinks": 1, "undecided": 0}
    assert gsm.growth_decided([fast, [None] * 8]) == {"grows": 1, "shrinks": 0, "undecided": 0}
    # both censored: "more than the cap" twice says nothing about their order
    assert gsm.growth_decided([[None] * 8, [inf] * 8]) == {"grows": 0, "shrinks": 0, "undecided": 1}
    assert gsm.growth_decided([fast, fast]) == {"grows": 0, "shrinks": 0, "undecided": 1}
    assert gsm.growth_decided([fast[:5], slow[:5]]) == {"grows": 0, "shrinks": 0, "undecided": 1}


def test_intervals_are_formatted_with_infinities():
    assert gsm._fmt_iv((0.3755, float("inf"))) == "[0.376, ∞]"


def test_21_strings_rows_a_do_nothing_network_passes_are_gated_by_learning_the_training_set():
    """A network that learns nothing has a flat tss (a plateau) and predicts nothing (no incorrect
    predictions): those rows are not tested unless the tss row (the control) holds (issue 32)."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "book" / "paper_scale" / "gsm-21-strings.json"
    data = json.loads(path.read_text())["data"]
    gated = ("plateau", "incorrect predictions", "missed predictions")

    def rows(d):
        return {r["statement"]: r for r in gsm._21_strings_claims(d, "paper").rows()}

    learned = rows(data)
    control = next(r for s, r in learned.items() if s.startswith("tss after"))
    assert control["holds"] is True
    for s, r in learned.items():
        if any(g in s for g in gated):
            assert "not_tested" not in r and r["holds"] is not None, s
    flat = dict(data, tss_end=[10 * x for x in data["tss_end"]])  # the training set not learned
    for s, r in rows(flat).items():
        if any(g in s for g in gated):
            assert r["not_tested"].startswith("its control") and r["holds"] is None, s


# ----------------------------------------------------------------------------- gsm-embedded's design

EMBEDDED_STRINGS = 2000  # strings per network in these tests: the logic, not the learning


def test_embedded_network_k_does_not_depend_on_how_many_are_trained(monkeypatch):
    """Network k of each grammar is the same whether trained with networks 0..k-1 or not, and
    whatever the pieces: the first n networks of a larger run are a smaller run's."""
    four, params = gsm._embedded_networks(0, EMBEDDED_STRINGS, 0, 4, False, None)
    later, later_params = gsm._embedded_networks(0, EMBEDDED_STRINGS, 2, 4, False, None)
    assert four[2:] == later and four[2] != four[3]  # the same networks, and not all alike
    assert later_params != params  # (the weights kept are the first network's of the call)
    monkeypatch.setattr(gsm_embedded, "EMBEDDED_CHUNK", 3)  # pieces 0-2 and 3
    assert gsm._embedded_networks(0, EMBEDDED_STRINGS, 0, 4, False, None) == (four, params)
    two, _ = gsm._embedded_networks(0, EMBEDDED_STRINGS, 0, 2, False, None)
    assert two == four[:2]


def test_embedded_pieces_are_kept_in_the_checkpoint(tmp_path, monkeypatch):
    from tempnets.training.checkpoint import open_checkpoint

    ck = open_checkpoint(tmp_path / "ck", {"test": "gsm-embedded"})
    first = gsm._embedded_networks(0, EMBEDDED_STRINGS, 0, 2, False, ck)

    def no_training(*args, **kwargs):
        raise AssertionError("a piece in the checkpoint was trained again")

    monkeypatch.setattr(gsm_embedded, "_embedded_piece", no_training)
    assert gsm._embedded_networks(0, EMBEDDED_STRINGS, 0, 2, False, ck) == first
    with pytest.raises(AssertionError, match="trained again"):  # a piece it does not hold
        gsm._embedded_networks(0, EMBEDDED_STRINGS, 0, 3, False, ck)


def test_embedded_at_paper_scale_states_its_design_and_rederives(monkeypatch):
    """Paper scale (a tiny plan): the data say the rule, n and why it stopped; every claim's
    interval is at the plan's level (at book scale at 95%); re-derived from its data, the same."""
    from tempnets.book import experiments, intervals, sequential

    plan = sequential.Plan(2, 2, 4)
    monkeypatch.setattr(gsm_embedded, "EMBEDDED_PLAN", plan)
    monkeypatch.setattr(gsm_embedded, "choose", lambda book, paper, scale: EMBEDDED_STRINGS)
    r = gsm.run_embedded("paper", 0, progress=False)
    design = r.data["design"]
    assert design["rule"] == plan.rule("networks of each grammar") and design["level"] == 0.975
    assert design["n"] == r.data["n_networks"] == len(r.data["results"]["symmetrical"]["pct"])
    assert design["n"] in (2, 4) and design["stopped"] and len(r.data["fig20_twin_share"]) == design["n"]
    hits = [p["hit"] for p in r.data["results"]["symmetrical"]["pct"]]
    row = r.claims.claims[0]
    assert row.interval == intervals.mean(hits, 0.975) and "97.5% interval: t" in row.note
    assert all("95% " not in c.note for c in r.claims.claims)  # every interval at the plan's level
    again = gsm.run_embedded("paper", 0, trained=r.data)
    assert again.claims.rows() == r.claims.rows()
    book = gsm.run_embedded("book", 0, progress=False)  # 3 networks, fixed, at 95%
    assert book.data["design"]["rule"] == sequential.Plan(3, 3, 3).rule("networks of each grammar")
    assert book.data["design"]["level"] == 0.95 and "95% interval: t" in book.claims.claims[0].note
    book_hits = [p["hit"] for p in book.data["results"]["symmetrical"]["pct"]]
    assert book.claims.claims[0].interval == intervals.mean(book_hits)
    assert book_hits[:2] == hits[:2]  # network k is the same network at either scale's plan
    assert experiments.get("gsm-embedded") and experiments.resumable("gsm-embedded")


@pytest.mark.parametrize("decided", [True, False])
def test_the_embedded_design_stops_when_its_claims_are_decided_or_at_the_cap(monkeypatch, decided):
    """The design adds networks only while a claim it watches is undecided (here the claims are
    replaced by one that is decided, or not, whatever the networks)."""
    from tempnets.book import sequential

    monkeypatch.setattr(gsm_embedded, "EMBEDDED_PLAN", sequential.Plan(2, 2, 4))
    monkeypatch.setattr(gsm_embedded, "choose", lambda book, paper, scale: EMBEDDED_STRINGS)
    levels = []

    def one_claim(d, scale="book", level=0.95):
        levels.append((d["n_networks"], level))
        t = claims.ClaimsTable("one claim")
        t.add("a share", "§5.2", 0.5, 0.5, claims.at_least(0.4),
              interval=(0.45, 0.55) if decided else (0.3, 0.7))
        return t

    monkeypatch.setattr(gsm_embedded, "_embedded_claims", one_claim)
    design = gsm.run_embedded("paper", 0, progress=False).data["design"]
    if decided:
        assert design["n"] == 2 and design["look"] == 1 and design["undecided"] == []
        assert design["stopped"].startswith("every claim it watches is decided at look 1 of 2")
    else:
        assert design["n"] == 4 and design["look"] == 2 and design["undecided"] == ["a share"]
        assert design["stopped"].startswith("the cap (4 networks of each grammar) reached")
    assert {lv for _, lv in levels} == {0.975}  # every look, and the record's table, at 97.5%
    assert [n for n, _ in levels] == ([2, 2] if decided else [2, 4, 4])


def test_embedded_claims_rederive_from_the_recorded_paper_scale_run():
    """The recorded paper-scale run re-derives to its recorded values, every interval at its
    design's level; its design is :data:`EMBEDDED_PLAN` (look 1: the earlier 60 networks)."""
    from pathlib import Path

    from tempnets.book import experiments, intervals, sequential

    path = Path(__file__).resolve().parents[1] / "book" / "paper_scale" / "gsm-embedded.json"
    again, record = experiments.rederive(path)
    assert [r["ours"] for r in again.claims.rows()] == [r["ours"] for r in record["claims"]]
    again.claims.verify()
    level = sequential.level_of(record["data"])
    design = record["data"].get("design")
    if design is not None:  # (a record made before the design has none: 95%)
        assert design["sizes"] == list(gsm.EMBEDDED_PLAN.sizes) and design["sizes"][0] == 60
        assert design["rule"] == gsm.EMBEDDED_PLAN.rule("networks of each grammar")
        assert level == gsm.EMBEDDED_PLAN.level and design["n"] == record["data"]["n_networks"]
    hits = [p["hit"] for p in record["data"]["results"]["symmetrical"]["pct"]]
    assert again.claims.rows()[0]["interval"] == pytest.approx(list(intervals.mean(hits, level)))
