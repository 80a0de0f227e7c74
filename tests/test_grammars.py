"""Tests for tempnets.tasks.grammars: languages, sampling contract and the papers' statistics."""

import numpy as np
import pytest

from tempnets.tasks import grammars as gr
from tempnets.tasks.grammars import SERVAN_SCHREIBER_TRAINING, n_letters

ALL = [gr.reber(), gr.embedded_reber(), gr.long_embedded_reber(), gr.time_varying_embedded_reber(),
       gr.embedded_subgrammar(True), gr.embedded_subgrammar(False)]


def _mean_sd(dist):
    k = np.arange(dist.size)
    m = (k * dist).sum() / dist.sum()
    return m, np.sqrt(((k - m) ** 2 * dist).sum() / dist.sum())


def test_reber_has_43_strings_of_3_to_8_letters():
    strings = gr.reber().enumerate(8, 3)
    assert len(strings) == 43, "section 3.1: 43 grammatical strings of length 3 to 8"
    assert all(s[0] == "B" and s[-1] == "E" and 3 <= n_letters(s) <= 8 for s in strings)
    for example in ("TXS", "PTVV", "TSXXTVPS"):  # section 2.1
        assert "B" + example + "E" in strings


def test_training_set_and_generalisation_set():
    g = gr.reber()
    assert len(SERVAN_SCHREIBER_TRAINING) == 21 == len(set(SERVAN_SCHREIBER_TRAINING))
    assert all(g.is_member(s) and 3 <= n_letters(s) <= 8 for s in SERVAN_SCHREIBER_TRAINING)
    gen = gr.generalisation_strings()
    assert len(gen) == 22 and not set(gen) & set(SERVAN_SCHREIBER_TRAINING)
    assert set(gen) | set(SERVAN_SCHREIBER_TRAINING) == set(g.enumerate(8, 3))


@pytest.mark.parametrize("g", ALL, ids=lambda g: g.name)
def test_membership_and_successors_agree_with_enumeration(g):
    strings = g.enumerate(10)
    assert strings and all(g.is_member(s) for s in strings)
    # from every state of these grammars a string ends within 8 more symbols, so every legal
    # successor of a prefix of <= 11 symbols occurs in some string of <= 18 letters (20 symbols)
    longer = g.enumerate(18)
    prefixes = {s[:i] for s in strings for i in range(len(s))}
    for p in prefixes:
        probs = g.successor_probabilities(p)
        assert probs.sum() == pytest.approx(1.0)
        # the legal successors of p are exactly the symbols that continue p in some string
        nexts = {s[len(p)] for s in longer if s.startswith(p) and len(s) > len(p)}
        assert nexts == g.successors(p), f"after {p!r}: enumeration {sorted(nexts)}, successors {sorted(g.successors(p))}"
        assert g.states_after(p)
    for s in strings:
        assert g.successors(s) == frozenset() and g.states_after(s) == frozenset()
        assert not g.is_member(s[:-1]) and not g.is_member(s + "E")


def test_reber_successors_and_states():
    g = gr.reber()
    assert g.successors("") == {"B"}
    assert g.successors("B") == {"T", "P"}
    assert g.successors("BTX") == {"X", "S"} and g.states_after("BTX") == {"#3"}
    assert g.successors("BTXX") == {"T", "V"} and g.states_after("BTXX") == {"#2"}
    assert g.successors("BTXS") == {"E"}
    np.testing.assert_allclose(g.successor_probabilities("BP"), [0, .5, 0, 0, 0, .5, 0])


def test_strings_not_in_language():
    g = gr.reber()
    assert not g.is_member("BTXE") and not g.is_member("TXS") and not g.is_member("")
    with pytest.raises(ValueError, match="not a prefix"):
        g.successors("BTT")


def test_clear_errors_for_bad_letters_and_arguments():
    g = gr.reber()
    with pytest.raises(ValueError, match=r"string 'BTXQ' has letter 'Q', not in the alphabet BTSPXVE"):
        g.encode("BTXQ")
    with pytest.raises(ValueError, match="letter 'Q'"):
        g.is_member("BQ")
    with pytest.raises(TypeError, match="must be a str"):
        g.encode(["B"])
    with pytest.raises(ValueError, match="out of range 0..6"):
        g.decode([0, 7])
    with pytest.raises(ValueError, match="n must be an integer >= 0, got -1"):
        g.sample(-1, 0)
    with pytest.raises(ValueError, match="max_letters"):
        g.sample(1, 0, min_letters=5, max_letters=4)
    with pytest.raises(ValueError, match="has 0 strings of 1 to 2 letters"):
        g.sample(1, 0, min_letters=1, max_letters=2)
    with pytest.raises(ValueError, match="summing to"):
        gr.FiniteStateGrammar("bad", "BE", (("s", "B", "t", 0.5), ("t", "E", None, 1.0)), "s")
    with pytest.raises(ValueError, match="not in the alphabet"):
        gr.FiniteStateGrammar("bad", "BE", (("s", "Q", None, 1.0),), "s")


def test_encode_decode_roundtrip():
    g = gr.reber()
    idx = g.encode("BTSSXXVVE")
    assert idx.dtype == np.int64 and idx.tolist() == [0, 1, 2, 2, 4, 4, 5, 5, 6]
    assert g.decode(idx) == "BTSSXXVVE"


@pytest.mark.parametrize("g", ALL, ids=lambda g: g.name)
def test_tables_contract(g):
    t = g.tables()
    n = len(g.states)
    for a in (t.symbol, t.target, t.cumprob):
        assert a.shape[0] == n
    assert t.symbol.dtype == t.target.dtype == np.int64 and t.cumprob.dtype == np.float64
    assert g.states[t.start] == g.start
    for i in range(n):
        real = t.symbol[i] >= 0
        k = np.flatnonzero(real)
        assert real[: k[-1] + 1].all(), "padding only at the end"
        assert t.cumprob[i, k[-1]] == 1.0 and np.all(np.diff(t.cumprob[i, k]) > 0)


def _kernel_like_sample(t, u):
    """The engine's procedure written independently from the tables (reads like the docstring)."""
    out, pos = [], 0
    state = t.start
    while True:
        x = u[pos]
        pos += 1
        k = int(np.argmax(x < t.cumprob[state]))
        out.append(int(t.symbol[state, k]))
        state = int(t.target[state, k])
        if state == -1:
            return out, pos


@pytest.mark.parametrize("g", ALL[:2] + ALL[4:5], ids=lambda g: g.name)
def test_tables_and_sample_agree(g):
    u = np.random.default_rng(5).random(2000)
    strings, used = g.strings_from_uniforms(u, n=20)
    pos = 0
    for s in strings:
        syms, n_used = _kernel_like_sample(g.tables(), u[pos:])
        assert g.decode(syms) == s and n_used == len(s), "one uniform per arc step"
        pos += n_used
    assert used == pos
    # sample() walks the stream rng.random(4096), rng.random(4096), ...
    stream = np.random.default_rng(9).random(4096)
    expected, _ = g.strings_from_uniforms(stream, n=10)
    assert g.sample(10, np.random.default_rng(9)) == expected


def test_same_seed_same_strings():
    g = gr.embedded_reber()
    assert g.sample(50, 3) == g.sample(50, 3)
    assert g.sample(50, 3) != g.sample(50, 4)
    assert all(g.is_member(s) for s in g.sample(50, 3))


def test_sample_length_bounds():
    s = gr.reber().sample(200, 1, min_letters=3, max_letters=8)
    assert all(3 <= n_letters(x) <= 8 for x in s)


def test_sampled_arc_frequencies_match_probabilities():
    g = gr.embedded_subgrammar(symmetric=False)
    strings = g.sample(4000, 11)
    # count arc uses along each (deterministic) path
    counts, visits = {}, {}
    for s in strings:
        for i in range(len(s)):
            (state,) = g.states_after(s[:i])
            visits[state] = visits.get(state, 0) + 1
            counts[state, s[i]] = counts.get((state, s[i]), 0) + 1
    for a in g.arcs:
        n = visits.get(a.source, 0)
        if n < 200 or a.prob == 1.0:
            continue
        p_hat = counts.get((a.source, a.symbol), 0) / n
        se = np.sqrt(a.prob * (1 - a.prob) / n)
        assert abs(p_hat - a.prob) < 5 * se, f"arc {a}: frequency {p_hat:.3f} over {n} visits"


def test_figure_18_length_statistics():
    # section 5.2: symmetrical mean 6.5 (sd 2.1); asymmetrical mean 5.8 (sd 1.3); exact
    # the paper gives one decimal: agreement means within half a unit of it (5.75 rounds to 5.8)
    half = 0.05 + 1e-9
    m, sd = _mean_sd(gr.embedded_subgrammar(True).length_distribution(400))
    assert abs(m - 6.5) <= half and abs(sd - 2.1) <= half, (m, sd)
    m, sd = _mean_sd(gr.embedded_subgrammar(False).length_distribution(400))
    assert abs(m - 5.8) <= half and abs(sd - 1.3) <= half, (m, sd)
    assert min(n_letters(s) for s in gr.embedded_subgrammar().enumerate(6)) == 5  # T + TXS + T


def test_embedded_subgrammar_needs_a_bool():
    with pytest.raises(TypeError, match="symmetric must be True or False"):
        gr.embedded_subgrammar(symmetric="yes")
    with pytest.raises(TypeError, match="symmetric must be True or False"):
        gr.embedded_subgrammar(symmetric=1)


def test_reber_length_statistics_match_section_2_4():
    m, sd = _mean_sd(gr.reber().length_distribution(400))
    assert m == pytest.approx(6.0) and round(sd, 1) == 3.4  # paper: patterns/string 7, sd 3.3


def test_embedded_reber_structure():
    g = gr.embedded_reber()
    assert g.is_member("BTBTXSETE") and g.is_member("BPBPVVEPE")
    assert not g.is_member("BTBTXSEPE")
    for s in g.sample(300, 2):
        assert s[1] == s[-2] and s[1] in "TP", "indicator and penultimate symbol match"
        assert gr.reber().is_member(s[2:-2])
    assert g.successors("BTBTXSE") == {"T"}


def test_time_varying_indicator_grammar():
    g = gr.time_varying_embedded_reber()
    assert g.is_member("BVTBTXSETE") and g.is_member("BXXXVPBPVVEPE")
    assert not g.is_member("BTBTXSETE")
    for s in g.sample(200, 4):
        i = s.index("V")
        assert set(s[1:i]) <= {"X"} and s[i + 1] == s[-2] and gr.reber().is_member(s[i + 2:-2])
    positions = {s.index("V") + 1 for s in g.sample(200, 4)}
    assert len(positions) > 3, "the indicator moves"


def test_long_string_generator():
    g = gr.long_embedded_reber()
    d = g.length_distribution(4000)
    k = np.arange(d.size)
    m50 = (k[50:] * d[50:]).sum() / d[50:].sum() + 2  # in symbols
    assert abs(m50 - 113) < 2, "thesis chapter 5: mean 113 for strings of length >= 50"
    m300 = (k[300:] * d[300:]).sum() / d[300:].sum() + 2
    assert abs(m300 - 367) < 12, "thesis: mean 367 over 100 strings >= 300 (standard error ~6)"
    s = g.sample(30, 1, min_letters=50)
    assert all(n_letters(x) >= 50 and g.is_member(x) for x in s)
    # biased arcs: the loops get 0.9
    probs = {(a.source, a.symbol): a.prob for a in g.arcs}
    assert probs["T#2", "T"] == 0.9 and probs["P#4", "V"] == pytest.approx(0.1)
    assert probs["ind", "T"] == 0.5 and probs["T#0", "T"] == 0.5


def test_distinct_sampling_and_oconnell_test_set_statistics():
    g = gr.reber()
    s = g.sample(43, 0, min_letters=3, max_letters=8, distinct=True)
    assert sorted(s) == sorted(g.enumerate(8, 3))
    with pytest.raises(ValueError, match="has 43 strings"):
        g.sample(44, 0, min_letters=3, max_letters=8, distinct=True)
    # O'Connell chapter 4: 1000 test strings without duplicates (thesis: mean 16.4, min 6, max 34;
    # ours, documented in embedded_reber: mean 17.5 letters, min 7, i.e. 16.5 and 6 for len(s) - 3)
    test = gr.embedded_reber().sample(1000, 1, distinct=True)
    assert len(set(test)) == 1000
    lengths = np.array([n_letters(x) for x in test])
    assert abs(lengths.mean() - 17.5) < 0.3 and lengths.min() == 7


def test_embedded_subgrammar_exit_probability_is_a_parameter():
    g = gr.embedded_subgrammar(False, p_exit=0.6)
    probs = {(a.source, a.symbol): a.prob for a in g.arcs}
    assert probs["T#3", "S"] == 0.6 and np.isclose(probs["T#3", "X"], 0.4)
    assert probs["P#4", "V"] == 0.6 and np.isclose(probs["P#4", "P"], 0.4)
    assert gr.embedded_subgrammar(False).arcs == gr.embedded_subgrammar(False, p_exit=0.8).arcs
    for bad in (0, 1, 1.2, True, "0.6"):
        with pytest.raises(ValueError, match="p_exit must be a probability"):
            gr.embedded_subgrammar(False, p_exit=bad)


FULL = r"n_letters needs a full string, B \.\.\. E; got "


@pytest.mark.parametrize("bad, error, match", [
    ("", ValueError, FULL + "''"), ("B", ValueError, FULL + "'B'"),
    ("TXSE", ValueError, FULL + "'TXSE'"), ("BTXS", ValueError, FULL + "'BTXS'"),
    (5, TypeError, r"string must be a str, got int \(5\)"),
    (None, TypeError, r"string must be a str, got NoneType \(None\)")])
def test_n_letters_needs_a_full_string(bad, error, match):
    with pytest.raises(error, match=match):
        n_letters(bad)
    assert n_letters("BE") == 0 and n_letters("BTXSE") == 3


def test_sampling_bounds_no_string_can_meet_fail_fast():
    """min_letters that (almost) no string reaches ran forever (rejection sampling)."""
    import time

    g = gr.reber()
    start = time.perf_counter()
    with pytest.raises(ValueError, match="at least 200 letters with probability 2.98e-27"):
        g.sample(1, rng=0, min_letters=200)
    with pytest.raises(ValueError, match="probability below 1e-300"):
        g.sample(1, rng=0, min_letters=10**9)
    problem3 = gr.FiniteStateGrammar("finite", "BSE", [("a", "B", "b", 1.0), ("b", "S", "c", 1.0),
                                                        ("c", "E", None, 1.0)], "a")
    with pytest.raises(ValueError, match="has 0 strings of at least 2 letters"):
        problem3.sample(1, rng=0, min_letters=2)
    with pytest.raises(ValueError, match="has 1 strings of at least 1 letters; asked for 2 distinct"):
        problem3.sample(2, rng=0, min_letters=1, distinct=True)
    assert time.perf_counter() - start < 5


def test_sampling_with_a_large_max_letters_does_not_enumerate_the_language():
    """max_letters=61 enumerated every string up to 61 letters (minutes, 1.4 GB)."""
    import time

    g = gr.reber()
    start = time.perf_counter()
    s = g.sample(5, rng=0, max_letters=61)
    assert len(s) == 5 and time.perf_counter() - start < 5
    assert g._count_strings(3, 8, 10**9) == len(g.enumerate(8, 3)) == 43
    e = gr.embedded_reber()
    assert e._count_strings(0, 14, 10**9) == len(e.enumerate(14))
    assert e.sample(3, rng=1) == e.sample(3, rng=1, max_letters=10**6)  # same stream
    d = gr.long_embedded_reber().sample(5, rng=0, min_letters=300)
    assert min(map(n_letters, d)) >= 300


def test_length_probability_is_the_length_distribution():
    g = gr.embedded_reber()
    dist = g.length_distribution(40)
    assert abs(g._length_probability(5, 12) - dist[5:13].sum()) < 1e-12
    assert abs(g._length_probability(7, None) - (1 - dist[:7].sum())) < 1e-12
