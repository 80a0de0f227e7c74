"""tempnets.tasks.verbs: Mozer's codes, Table 2, the CMUdict corpus, Table 3."""

import collections

import numpy as np
import pytest

from tempnets.tasks import verbs as V


@pytest.fixture(scope="module")
def cmu():
    return V.load_cmudict()


def test_dear_task_is_table_1_in_a_two_slot_buffer():
    seqs = V.dear_task()
    assert seqs.n_seq == 4 and seqs.X.shape == (20, 6)
    dear = seqs.X[:5]
    # —D, DE, EA, AR, R—
    np.testing.assert_array_equal(dear[0], [1, 1, 0, 0, 1, 1])
    np.testing.assert_array_equal(dear[4], [1, 0, 1, 1, 1, 0])
    # the second slot at t is the first slot at t + 1 (Figure 3's remark)
    np.testing.assert_array_equal(dear[:-1, 3:], dear[1:, :3])
    assert seqs.M.sum() == 4 and (seqs.Y[seqs.M == 1].argmax(1) == [0, 1, 2, 3]).all()


def test_wickelements_are_the_buffer_pairs_with_the_word_boundary():
    # Mozer's "D, DE, EA, AR, R": his D is 110011, "—" then D, so the boundaries are part of it
    assert V.wickelements("DEAR") == ("—D", "DE", "EA", "AR", "R—")
    assert V.wickelements("DEAR", boundaries=False) == ("DE", "EA", "AR")
    x = V.dear_task(["DEAR"]).X
    for row, pair in zip(x, V.wickelements("DEAR")):
        np.testing.assert_array_equal(row, V.TABLE1[pair[0]] + V.TABLE1[pair[1]])
    # the paper's examples: ARBE keeps AR and BE; DAER loses DE and AR but keeps —D and R—
    assert {"AR", "BE"} <= set(V.wickelements("ARBE")) and "R—" not in V.wickelements("ARBE")
    assert {"—D", "R—"} <= set(V.wickelements("DAER")) and not {"DE", "AR"} & set(V.wickelements("DAER"))
    with pytest.raises(ValueError, match="'X'"):
        V.wickelements("DXAR")
    with pytest.raises(ValueError, match="boundaries"):
        V.wickelements("D", boundaries=False)


def test_phoneme_features_are_trinary_and_shared_cells_coincide():
    for ph, f in V.FEATURES.items():
        assert len(f) == 4 and set(f) <= {-1, 0, 1}, ph
    assert V.FEATURES["v"] == V.FEATURES["D"] and V.FEATURES["S"] == V.FEATURES["C"]
    assert V.FEATURES["_"] == (0, 0, 0, 0)
    phonemes = [p for p in V.FEATURES if p != "_"]
    # only the five shared cells of R&M's Table 5 coincide
    assert len(phonemes) - len({V.FEATURES[p] for p in phonemes}) == 5
    assert V.FEATURES["p"] == (-1, -1, -1, -1) and V.FEATURES["o"] == (1, 1, 1, -1)


def test_verb_inputs_buffer_and_reverse():
    x = V.verb_inputs("kamp")
    assert x.shape == (5, 8)
    np.testing.assert_array_equal(x[0, :4], 0)                      # _k
    np.testing.assert_array_equal(x[0, 4:], V.FEATURES["k"])
    np.testing.assert_array_equal(V.verb_inputs("kamp", reverse=True), V.verb_inputs("pmak"))


def test_table2_obeys_the_regular_rule():
    items = V.regular_verbs()
    assert len(items) == 60
    assert collections.Counter(k for *_, k in items) == {0: 20, 1: 20, 2: 20}
    for verb, sp, k in items:
        assert V.regular_class(sp) == k, verb


def test_cmudict_mapping_reproduces_most_table2_spellings(cmu):
    got = {v: V.rm_spelling(v, cmu) for _, v, _, _ in V.TABLE2}
    same = [v for _, v, _, rm in V.TABLE2 if got[v] == rm]
    # 50 of the 60, as the chapter's Fidelity note says; every miss is a vowel or glide, never
    # the final phoneme
    assert len(same) == 50, sorted(set(got) - set(same))
    for _, v, _, rm in V.TABLE2:
        assert got[v][-1] == rm[-1] or (v, got[v]) == ("cool", "kUl"), v
    assert V.rm_spelling("expect", cmu) == "ekspekt" and V.rm_spelling("depend", cmu) == "dEpend"


def test_large_verb_corpus_has_table_4s_counts(cmu):
    corpus = V.large_verb_corpus(cmu)
    assert len(corpus) == 136
    counts = collections.Counter(k + 1 for *_, k in corpus)
    assert counts == V.TABLE4_COUNTS
    by = {v: (sp, k + 1) for v, sp, k in corpus}
    assert by["ring"] == ("riN", 10) and by["bring"] == ("briN", 8)
    assert by["set"][1] == 4 and by["get"][1] == 11 and by["sit"][1] == 10 and by["swing"][1] == 12
    assert len({v for v, *_ in corpus}) == 136


def test_held_out_regulars_are_new_and_classed(cmu):
    held = V.held_out_regulars(cmu)
    train = {v for v, *_ in V.regular_verbs()}  # the regular-verb experiment's training set
    assert len(held) >= 100 and not train & {v for v, *_ in held}
    by = {v: (sp, k) for v, sp, k in held}
    assert by["explain"] == ("eksplAn", 2) and by["dance"][1] == 1 and by["reflect"][1] == 0
    cats = {v: k for v, _, k in V.held_out_regulars(cmu, categories=True)}
    assert cats["explain"] == 0 and cats["dance"] == 1 and cats["reflect"] == 2


def test_reproduction_task_is_table_3():
    seqs = V.reproduction_task(delay=1)
    assert seqs.n_seq == 6 and seqs.X.shape == (42, 6)
    abc_x, abc_y = seqs.X[:7], seqs.Y[:7]
    np.testing.assert_array_equal(abc_x[:, :3], [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(abc_y, [[0, 0, 0]] * 4 + [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    np.testing.assert_array_equal(abc_x[:, 3:], [[0, 0, 0]] * 5 + [[1, 0, 0], [0, 1, 0]])
    assert V.reproduction_task(delay=4).X.shape == (60, 6)


def test_bad_input_is_named(cmu):
    with pytest.raises(ValueError, match="'Q'"):
        V.verb_inputs("kQmp")
    with pytest.raises(ValueError, match="non-empty"):
        V.verb_inputs("")
    with pytest.raises(ValueError, match="not in the CMU"):
        V.rm_spelling("blorptify", cmu)
    with pytest.raises(ValueError, match="symbol 'X'"):
        V.dear_task(["DEXR"])
    with pytest.raises(ValueError, match="delay"):
        V.reproduction_task(delay=0)
    with pytest.raises(ValueError, match="no verbs"):
        V.verb_task([], 3)
