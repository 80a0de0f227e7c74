"""Tests for tempnets.tasks.metrics with hand-built activations."""

import numpy as np
import pytest

from tempnets.tasks import grammars as gr
from tempnets.tasks import metrics as mt


def ideal(g, s):
    """Activations of an ideal predictor: the exact next-symbol probabilities."""
    return np.array([g.successor_probabilities(s[: t + 1]) for t in range(len(s) - 1)])


def test_ideal_predictor_accepts_grammatical_strings_and_rejects_others():
    g = gr.reber()
    good = g.sample(30, 0)
    assert mt.accepted([ideal(g, s) for s in good], good, g).all()
    # a non-grammatical string scored with the ideal predictions of a grammatical one
    bad = "BTXVE"
    acts = ideal(g, "BTXSE")
    assert not mt.accepted([acts], [bad], g)[0]


def test_acceptance_threshold_is_strict():
    g = gr.reber()
    s = "BTXSE"
    a = np.zeros((4, 7))
    a[[0, 1, 2, 3], g.encode(s)[1:]] = 0.3
    assert not mt.accepted([a], [s], g)[0]
    a[[0, 1, 2, 3], g.encode(s)[1:]] = 0.31
    assert mt.accepted([a], [s], g)[0]


def test_flat_activations_with_offsets_match_list():
    g = gr.reber()
    strings = g.sample(5, 1)
    acts = [ideal(g, s) for s in strings]
    for i in (1, 4):  # reject two strings (4 is the same string as 2) so the order matters
        acts[i][3, g.encode(strings[i])[4]] = 0.2
    offsets = np.concatenate([[0], np.cumsum([len(a) for a in acts])])
    flat = np.concatenate(acts)
    np.testing.assert_array_equal(mt.accepted(acts, strings, g), [True, False, True, True, False])
    np.testing.assert_array_equal(mt.accepted(flat, strings, g, offsets=offsets),
                                  mt.accepted(acts, strings, g))


def test_shape_errors_are_clear():
    g = gr.reber()
    with pytest.raises(ValueError, match=r"expected \(4, 7\)"):
        mt.accepted([np.zeros((5, 7))], ["BTXSE"], g)
    with pytest.raises(ValueError, match="1 activation arrays for 2 strings"):
        mt.accepted([np.zeros((4, 7))], ["BTXSE", "BTXSE"], g)
    with pytest.raises(TypeError, match="needs offsets"):
        mt.accepted(np.zeros((4, 7)), ["BTXSE"], g)
    with pytest.raises(ValueError, match="offsets"):
        mt.accepted(np.zeros((4, 7)), ["BTXSE"], g, offsets=[0, 3])
    with pytest.raises(ValueError, match="letter 'Q'"):
        mt.accepted([np.zeros((4, 7))], ["BTXQE"], g)


def test_luce_ratio():
    r = mt.luce_ratio([[1.0, 3.0], [2.0, 2.0]])
    np.testing.assert_allclose(r, [[0.25, 0.75], [0.5, 0.5]])
    with pytest.raises(ValueError, match="non-negative"):
        mt.luce_ratio([-1.0, 2.0])


def test_exit_outcomes_hit_error_miss():
    g = gr.embedded_subgrammar()
    s = "BTTXSTE"  # exit step predicts s[-2] = 'T' at step len(s) - 3 = 4
    T, P, E = 1, 3, 6
    acts = []
    for t_act, p_act in [(0.9, 0.1), (0.1, 0.9), (0.5, 0.5), (0.6, 0.0)]:
        a = np.full((6, 7), 0.0)
        a[4, T], a[4, P] = t_act, p_act
        acts.append(a)
    # last: T = 0.6 but a large E activation pushes its Luce ratio below 0.6
    acts[3][4, E] = 0.5
    out = mt.exit_outcomes(acts, [s] * 4, g)
    assert out.tolist() == ["hit", "error", "miss", "miss"]
    pct = mt.outcome_percentages(out)
    assert pct == {"hit": 25.0, "error": 25.0, "miss": 50.0}
    # criterion is >= 0.6 for hits
    a = np.zeros((6, 7))
    a[4, T], a[4, P] = 0.6, 0.4
    assert mt.exit_outcomes([a], [s], g).tolist() == ["hit"]


def test_outcomes_by_embedding_length_groups_7_plus():
    strings = ["BTTXSTE", "BPPVVPE", "BTPVPXVVTE", "BTTXXVPXVVTE", "BPTXXVPXVPSPE"]
    res = mt.outcomes_by_embedding_length(["hit", "error", "hit", "miss", "hit"], strings)
    assert res["lengths"] == ["3", "6", "7+"]
    np.testing.assert_array_equal(res["count"], [2, 1, 2])
    np.testing.assert_allclose(res["hit"], [50, 100, 50])
    np.testing.assert_allclose(res["error"], [50, 0, 0])


def test_embed_and_final_on_embedded_reber():
    g = gr.embedded_reber()
    strings = g.sample(20, 2)
    acts = [ideal(g, s) for s in strings]
    assert mt.embed_predicted(acts, strings, g).all()
    assert mt.final_predicted(acts, strings, g).all()
    # a network that forgot the indicator: T and P at 0.5 before the final symbol
    forgetful = []
    for a, s in zip(acts, strings):
        a = a.copy()
        a[len(s) - 3] = 0.0
        a[len(s) - 3, [1, 3]] = 0.5
        forgetful.append(a)
    assert mt.embed_predicted(forgetful, strings, g).all()
    assert not mt.final_predicted(forgetful, strings, g).any()


def test_embed_fails_when_one_embedded_symbol_is_missed_and_ignores_outside_steps():
    g = gr.embedded_reber()
    s = "BTBTXSETE"
    a = ideal(g, s)
    b = a.copy()
    b[0] = 0.0  # the indicator's prediction (not embedded) is irrelevant
    b[-1] = 0.0  # the final E prediction too
    b[-2] = 0.0  # and the final symbol is scored by final_predicted only
    assert mt.embed_predicted([b], [s], g)[0]
    for j in range(2, len(s) - 2):  # each embedded symbol s[j], predicted at step j-1
        c = a.copy()
        c[j - 1, g.alphabet.index(s[j])] = 0.2
        assert not mt.embed_predicted([c], [s], g)[0], f"missed symbol {j} of {s}"


@pytest.mark.parametrize("grammar", ["embedded", "time-varying", "thesis time-varying"])
def test_embed_final_many_equals_the_per_network_definitions(grammar):
    g = {"embedded": gr.embedded_reber(), "time-varying": gr.time_varying_embedded_reber(),
         "thesis time-varying": gr.thesis_embedded_reber(time_varying=True)}[grammar]
    strings = g.sample(60, 4)
    rng = np.random.default_rng(5)
    off = np.concatenate([[0], np.cumsum([len(s) - 1 for s in strings])])
    # ideal predictions blurred so that both measures pass for some strings and fail for others
    ideal_flat = np.concatenate([ideal(g, s) for s in strings])
    y = np.stack([np.clip(ideal_flat + rng.normal(0, sd, ideal_flat.shape), 0.001, 1)
                  for sd in (0.0, 0.05, 0.12, 0.2)])
    e_ok, f_ok = mt.embed_final_many(y, strings, g, off)
    for r in range(y.shape[0]):
        np.testing.assert_array_equal(e_ok[r], mt.embed_predicted(y[r], strings, g, offsets=off))
        np.testing.assert_array_equal(f_ok[r], mt.final_predicted(y[r], strings, g, offsets=off))
    assert e_ok[0].all() and f_ok[0].all()
    assert 0 < e_ok[2:].mean() < 1 and 0 < f_ok[2:].mean() < 1  # the check can tell
    with pytest.raises(ValueError, match=r"shape \(R, steps, n_out\)"):
        mt.embed_final_many(y[0], strings, g, off)
    with pytest.raises(ValueError, match="offsets"):
        mt.embed_final_many(y, strings, g, off[:-1])


def test_indicator_position():
    assert mt.indicator_position("BTBTXSETE") == 1
    assert mt.indicator_position("BXXVPBPVVEPE") == 4
    assert mt.indicator_position("BTTXSTE") == 1
    # the time-varying grammar in the thesis's framing (no inner B): after the X...XV run
    assert mt.indicator_position("BXXVTTXSTE") == 4
    assert mt.indicator_position("BVPPVVPE") == 2
    from tempnets.tasks.grammars import thesis_embedded_reber
    g = thesis_embedded_reber(time_varying=True)
    for s in g.sample(200, 3):
        i = mt.indicator_position(s)
        assert s[i] == s[-2] and set(s[1:i - 1]) <= {"X"} and s[i - 1] == "V", s
    g = gr.time_varying_embedded_reber()
    s = "BXXVPBPVVEPE"
    assert g.is_member(s)
    a = ideal(g, s)
    assert mt.embed_predicted([a], [s], g)[0] and mt.final_predicted([a], [s], g)[0]


def test_generalisation_counts():
    g = gr.reber()
    lang = g.enumerate(8, 3)
    gen = gr.generalisation_strings()
    # the ideal predictor under length constraints: uniform over legal successors
    acts = []
    for s in gen:
        rows = []
        for t in range(len(s) - 1):
            legal = mt.legal_successors(s[: t + 1], lang)
            rows.append([1.0 / len(legal) if c in legal else 0.0 for c in g.alphabet])
        acts.append(np.array(rows))
    res = mt.generalisation_counts(acts, gen, g, language=lang)
    assert res.n_predictions == 172 and res.n_incorrect == 0 and res.n_missed == 0
    # a step where the length constraint removes a successor the grammar allows
    i, t = next((i, t) for i, s in enumerate(gen) for t in range(len(s) - 1)
                if mt.legal_successors(s[: t + 1], lang) != g.successors(s[: t + 1]))
    s = gen[i]
    (banned,) = g.successors(s[: t + 1]) - mt.legal_successors(s[: t + 1], lang)
    a = acts[i].copy()
    a[t, g.alphabet.index(banned)] = 0.06  # illegal given the length constraint
    a[0, g.alphabet.index(s[1])] = 0.3  # legal successor at the threshold: missed
    acts2 = acts[:i] + [a] + acts[i + 1:]
    res = mt.generalisation_counts(acts2, gen, g, language=lang)
    assert (res.n_incorrect, res.n_missed, res.n_both) == (1, 1, 0)
    assert res.incorrect[i][t] and res.missed[i][0]
    # without length constraints that successor is legal
    res = mt.generalisation_counts(acts2, gen, g)
    assert res.n_incorrect == 0


def test_generalisation_counts_misses_only_where_two_continuations_are_legal():
    g = gr.reber()
    lang = g.enumerate(8, 3)
    s = "BTXXVPXVVE"  # after ...P X (7 letters) only V may follow under the length constraint
    assert s in lang
    rows = [[0.5 if c in mt.legal_successors(s[: t + 1], lang) else 0.0 for c in g.alphabet]
            for t in range(len(s) - 1)]
    single = [t for t in range(len(s) - 1) if len(mt.legal_successors(s[: t + 1], lang)) == 1]
    two = [t for t in range(len(s) - 1) if len(mt.legal_successors(s[: t + 1], lang)) == 2]
    assert single and two
    a = np.array(rows)
    a[single[0], g.alphabet.index(s[single[0] + 1])] = 0.1  # the only legal successor, low: not a miss
    res = mt.generalisation_counts([a], [s], g, language=lang)
    assert res.n_missed == 0 and res.n_two_way == len(two) and res.n_predictions == len(s) - 1
    a[two[0], g.alphabet.index(s[two[0] + 1])] = 0.1  # one of two continuations, low: a miss
    res = mt.generalisation_counts([a], [s], g, language=lang)
    assert res.n_missed == 1 and res.missed[0][two[0]]
    with pytest.raises(ValueError, match="no legal successor in the language"):
        mt.generalisation_counts([np.full((10, 7), 0.5)], ["BTSSSSSSXSE"], g, language=lang)  # 9 letters


def test_outcome_summaries_reject_bad_input():
    with pytest.raises(ValueError, match="no outcomes to summarise"):
        mt.outcome_percentages([])
    with pytest.raises(ValueError, match="3 outcomes for 2 strings"):
        mt.outcomes_by_embedding_length(["hit", "miss", "hit"], ["BTTXSTE", "BPPVVPE"])
