import numpy as np
import pytest

from tempnets.sequences import SerialRecall, encode, make_batch, recall_scores


def test_layout_of_one_sequence():
    task = SerialRecall(alphabet=5, length=3, delays=(2, 4))
    x, target, mask = encode(task, np.array([[4, 0, 2]]), 2)
    sym = x.argmax(-1)[:, 0]
    assert x.shape == (task.steps(2), 1, 7) == (9, 1, 7)
    assert sym.tolist() == [4, 0, 2, 5, 5, 6, 5, 5, 5]  # letters, blank x D, cue, blanks
    assert target[:, 0].tolist() == [5] * 6 + [4, 0, 2]
    assert mask[:, 0].tolist() == [0] * 6 + [1] * 3
    assert task.n_in == 7 and task.n_out == 6
    assert SerialRecall(32, 7).bits == 35.0


def test_batches_pad_after_the_recall_and_are_reproducible():
    task = SerialRecall(4, 2, (0, 5))
    x, t, m, s, d = make_batch(task, 50, rng=3)
    assert x.shape[0] == 2 * 2 + d.max() + 1 and set(d) <= set(range(6))
    assert np.all(m.sum(0) == 2)
    for b in range(50):  # recall steps hold the string, after the cue
        rows = np.flatnonzero(m[:, b])
        assert t[rows, b].tolist() == s[b].tolist() and x[rows[0] - 1, b, 5] == 1
    x2, *_ = make_batch(task, 50, rng=3)
    assert np.array_equal(x, x2)
    _, _, _, s3, d3 = make_batch(task, 50, rng=4)
    assert not np.array_equal(s, s3) and not np.array_equal(d, d3)
    assert np.all(make_batch(task, 4, rng=0, delay=7)[4] == 7)


def test_recall_scores():
    task = SerialRecall(4, 2, (1, 1))
    x, t, m = encode(task, np.array([[1, 2], [3, 0]]), [1, 3])
    logits = np.eye(5)[t] * 5.0
    assert recall_scores(logits, t, m)["string"] == 1.0
    logits[np.flatnonzero(m[:, 1])[1], 1] = 0  # one letter of string 1 wrong (ties -> class 0 = target!)
    logits[np.flatnonzero(m[:, 1])[1], 1, 2] = 9
    sc = recall_scores(logits, t, m)
    assert sc["symbol"] == 0.75 and sc["string"] == 0.5
    assert sc["correct"].tolist() == [[True, True], [True, False]]


def test_bad_input():
    with pytest.raises(ValueError, match="alphabet"):
        SerialRecall(alphabet=1)
    with pytest.raises(ValueError, match="delays"):
        SerialRecall(delays=(-1, 3))
    with pytest.raises(ValueError, match="delays"):
        SerialRecall(delays=(5, 3))
    task = SerialRecall(4, 2, (1, 3))
    with pytest.raises(ValueError, match=r"\[0, 4\)"):
        encode(task, np.array([[1, 4]]), 1)
    with pytest.raises(ValueError, match="shape"):
        encode(task, np.array([[1, 2, 3]]), 1)
    with pytest.raises(ValueError, match="delay"):
        make_batch(task, 2, delay=-1)
    with pytest.raises(ValueError, match="delay"):
        encode(task, np.array([[1, 2]]), [-2])
