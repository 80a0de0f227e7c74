import numpy as np
import pytest

from tempnets.tasks.sequences import SerialRecall, encode, make_batch, recall_scores


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


def test_lists_of_varying_length_keep_the_layout_of_each_length():
    """A sequence of ``n`` letters is laid out as a task of length ``n`` would lay it out
    (letters, blanks, cue after the delay, the ``n`` letters recalled), padded at the end."""
    task = SerialRecall(5, 3, (2, 4))
    strings = np.array([[4, 0, 2], [1, 3, 3]])
    x, target, mask = encode(task, strings, [2, 3], lengths=[3, 1])
    assert x.shape[0] == max(2 * 3 + 2, 2 * 1 + 3) + 1
    for b, (n, d) in enumerate([(3, 2), (1, 3)]):
        alone = encode(SerialRecall(5, n, (d, d)), strings[b:b + 1, :n], d)
        T = alone[0].shape[0]
        assert np.array_equal(x[:T, b], alone[0][:, 0]) and np.array_equal(target[:T, b], alone[1][:, 0])
        assert np.array_equal(mask[:T, b], alone[2][:, 0]) and not mask[T:, b].any()
        assert (x[T:, b].argmax(-1) == 5).all()  # blank padding
    assert np.array_equal(encode(task, strings, 2, lengths=3)[0], encode(task, strings, 2)[0])


def test_min_length_draws_lengths_and_tests_stay_at_full_length():
    task = SerialRecall(4, 5, (1, 3), min_length=2)
    _, _, m, _, _ = make_batch(task, 400, rng=0)
    assert set(m.sum(0).astype(int)) == {2, 3, 4, 5}
    _, _, m, _, _ = make_batch(task, 20, rng=0, length=5)
    assert (m.sum(0) == 5).all()
    fixed = SerialRecall(4, 5, (1, 3))  # without min_length: the draws of before, all 5 letters
    assert np.array_equal(make_batch(fixed, 8, rng=1)[0], make_batch(fixed, 8, rng=1, length=5)[0])


@pytest.mark.parametrize("call, message", [
    (lambda: SerialRecall(4, 3, min_length=0), r"min_length must be None or an integer in \[1, 3\]"),
    (lambda: SerialRecall(4, 3, min_length=4), r"min_length must be None or an integer in \[1, 3\]"),
    (lambda: SerialRecall(4, 3, min_length=2.0), r"min_length must be None or an integer"),
    (lambda: encode(SerialRecall(4, 3), np.zeros((2, 3), int), 1, lengths=[1, 4]),
     r"lengths must be integers in \[1, 3\]"),
    (lambda: encode(SerialRecall(4, 3), np.zeros((2, 3), int), 1, lengths=[1, 2, 3]),
     "lengths must be one length or 2 lengths"),
    (lambda: make_batch(SerialRecall(4, 3), 2, rng=0, length=4), r"length must be in \[1, 3\]"),
])
def test_bad_lengths(call, message):
    with pytest.raises(ValueError, match=message):
        call()
