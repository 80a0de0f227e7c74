"""Fast tests of the chapter runners' logic (tempnets.graded_state_machines)."""

import json

import numpy as np
import pytest

from tempnets import claims, grammars, metrics
from tempnets import graded_state_machines as gsm
from tempnets.srn import init_params


def test_random_sequences_shape_and_alphabet():
    flat, off = gsm.random_sequences(500, rng=0)
    assert off.shape == (501,) and off[0] == 0 and off[-1] == flat.size
    alpha = "BTSPXVE"
    for i in range(500):
        s = "".join(alpha[c] for c in flat[off[i]:off[i + 1]])
        assert s[0] == "B" and s[-1] == "E" and "E" not in s[:-1] and "B" not in s[1:]
    again = gsm.random_sequences(500, rng=0)
    assert np.array_equal(flat, again[0]) and np.array_equal(off, again[1])


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
    for th in (0.05, 0.2, 0.5):
        assert gsm.accept_flat(p, flat, off, th).tolist() == gsm.accepts(p, g, strings, th).tolist()


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
    assert r2[6] == pytest.approx(1.0) and r2.argmax() == 6


def test_params_round_trip():
    p = init_params(7, 3, 7, r=0.5, rng=0)
    q = gsm.params_from_lists(json.loads(json.dumps(gsm.params_to_lists(p))))
    assert all(np.array_equal(a, b) for a, b in zip(p, q))


def test_run_reber_count():
    r = gsm.run_reber_count()
    r.claims.verify()
    assert len(r.data["strings"]) == 43


def test_run_21_strings_small(monkeypatch):
    # a tiny run: the table is well formed and the data JSON-serialisable
    monkeypatch.setattr(gsm, "choose", lambda book, paper, scale=None: 1 if isinstance(book, int) else book)
    r = gsm.run_21_strings(progress=False)
    assert isinstance(r.claims, claims.ClaimsTable) and len(r.claims.claims) == 8
    json.dumps(r.data)
    assert r.data["n_predictions"] == 172


def test_embedded_states_are_distinct():
    g = grammars.embedded_subgrammar(True)
    h, paths, first = gsm.embedded_states(init_params(7, 4, 7, r=0.5, rng=0), g, max_letters=6)
    keys = list(zip(first, paths))
    assert len(keys) == len(set(keys)) == len(h)
    assert set(first) == {"T", "P"} and ("T", "PV") in keys and ("P", "PV") in keys
