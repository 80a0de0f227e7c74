"""The flip-flop and car-parking streams follow the paper's definitions."""

import numpy as np
import pytest

from tempnets.tasks import streams


def test_flipflop_targets_the_first_b_after_the_last_a():
    s = streams.flipflop("BACBBCABAAB")
    #                      B A C B B C A B A A B
    np.testing.assert_array_equal(s.d[:, 0], [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1])
    assert s.mask.sum() == 11 and s.xs.shape == (11, 3) and np.array_equal(s.xs, s.xf)
    assert s.labels == "BACBBCABAAB" and len(s) == 11
    assert np.array_equal(streams.flipflop([0, 1]).d[:, 0], [0, 1])


def test_random_flipflop_is_reproducible_and_balanced():
    a, b = streams.random_flipflop(3000, 7), streams.random_flipflop(3000, 7)
    assert a.labels == b.labels and a.labels != streams.random_flipflop(3000, 8).labels
    counts = np.bincount(np.argmax(a.xs, 1), minlength=3) / 3000
    assert np.all(np.abs(counts - 1 / 3) < 0.04)
    # a B is a target iff an A came since the previous B: about half the Bs
    assert 0.4 < a.d[:, 0].sum() / counts[1] / 3000 < 0.6


def test_parking_scores_business_steps_with_the_query_on():
    s = streams.parking("dd2bbd1b3b", query=np.array([1, 1, 1, 1, 0, 1, 1, 1, 1, 1]))
    np.testing.assert_array_equal(s.mask, [0, 0, 0, 1, 0, 0, 0, 1, 0, 1])
    assert s.xs[2, 1] == 1 and s.xs[6, 0] == 1 and s.xs[8, 2] == 1 and s.xs[:, :3].sum() == 3
    np.testing.assert_array_equal(s.d[3], [0, 1, 0])
    np.testing.assert_array_equal(s.d[7], [1, 0, 0])
    np.testing.assert_array_equal(s.d[9], [0, 0, 1])
    assert np.all(s.d[s.mask == 0] == 0)


def test_random_parking_follows_the_owners_life():
    s = streams.random_parking(20000, 3)
    lab = s.labels
    assert set(lab) <= set("d123b")
    assert "db" not in lab  # business only after parking
    # geometric phases with stop probability 0.25: mean run length 3
    # driving runs are geometric with stop probability 0.25: mean length 3 (empty runs unseen)
    drives = [len(r) for r in lab.replace("b", " ").replace("1", " ").replace("2", " ")
              .replace("3", " ").split()]
    assert 3.6 < np.mean(drives) < 4.4  # mean of a geometric run given it is non-empty: 4
    assert abs(s.xf[:, 0].mean() - 0.5) < 0.02 and abs(s.xs[:, 3:].mean() - 0.5) < 0.02
    assert streams.random_parking(500, 3).labels == streams.random_parking(500, 3).labels
    assert streams.random_parking(500, 3).labels != streams.random_parking(500, 4).labels


@pytest.mark.parametrize("bad,match", [
    ("ABX", "has 'X' at position 2; allowed events: A, B, C"),
    ([0, 3], "integers 0-2"),
])
def test_unknown_events_are_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        streams.flipflop(bad)


def test_bad_lives_and_probabilities_are_refused():
    with pytest.raises(ValueError, match="business at step 1 without a parked car"):
        streams.parking("b")
    with pytest.raises(ValueError, match="has 'x' at position 1"):
        streams.parking("dx")
    with pytest.raises(ValueError, match="p_query must be a probability"):
        streams.random_parking(10, 0, p_query=1.5)
    with pytest.raises(ValueError, match="n_steps must be an integer >= 0, got -1"):
        streams.random_flipflop(-1)
    with pytest.raises(ValueError, match="p must be three probabilities"):
        streams.random_flipflop(5, 0, p=(0.5, 0.5, 0.5))
