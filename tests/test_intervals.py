"""The intervals behind uncertain claims, against published values and by simulation."""

import math

import numpy as np
import pytest

from tempnets.book import intervals as I


def test_wilson_interval_published_values():
    # Newcombe (1998), Table I: 81/263 -> 0.2553-0.3662; 15/148 -> 0.0624-0.1605; 0/20 -> 0-0.1611
    assert I.share(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert I.share(15, 148) == pytest.approx((0.0624, 0.1605), abs=1e-4)
    assert I.share(0, 20) == pytest.approx((0.0, 0.1611), abs=1e-4)
    assert I.share(20, 20) == pytest.approx((1 - 0.1611, 1.0), abs=1e-4)


def test_newcombe_difference_published_values():
    # Newcombe (1998) Table II, method 10: 56/70 - 48/80 -> 0.0524 to 0.3339; 9/10 - 3/10 -> 0.1705 to 0.8090
    assert I.share_difference(56, 70, 48, 80) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    assert I.share_difference(9, 10, 3, 10) == pytest.approx((0.1705, 0.8090), abs=1e-4)


def test_t_intervals_match_scipy():
    from scipy import stats

    x, y = [3.1, 2.7, 4.0, 3.6, 2.9], [1.0, 2.2, 1.4, 1.9]
    lo, hi = I.mean(x)
    ref = stats.ttest_1samp(x, 0).confidence_interval(0.95)
    assert (lo, hi) == pytest.approx((ref.low, ref.high))
    ref = stats.ttest_ind(x, y, equal_var=False).confidence_interval(0.95)
    assert I.mean_difference(x, y) == pytest.approx((ref.low, ref.high))
    assert I.mean([5.0]) == (-math.inf, math.inf)


def test_median_interval_order_statistics_and_censoring():
    assert I.median(range(1, 11)) == (2.0, 9.0)  # n = 10: x_(2), x_(9), coverage 97.9%
    assert I.median([1, 2, 3, 4, 5]) == (-math.inf, math.inf)  # too few runs for 95%
    assert I.median([1, 2, 3, 4, 5, 6]) == (1.0, 6.0)
    assert I.median([10] * 4 + [math.inf] * 6) == (10.0, math.inf)  # 6 of 10 runs never solved it


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_coverage_by_simulation(p):
    """Each interval covers the true value in about 95% of simulated experiments."""
    gen = np.random.default_rng(0)
    n, trials = 20, 2000
    k = gen.binomial(n, p, trials)
    cover = np.mean([lo <= p <= hi for lo, hi in (I.share(j, n) for j in k)])
    assert 0.92 <= cover <= 0.99
    x = gen.exponential(1.0, (trials, 15))
    med = math.log(2)
    cover = np.mean([lo <= med <= hi for lo, hi in map(I.median, x)])
    assert cover >= 0.94
    cover = np.mean([lo <= 1.0 <= hi for lo, hi in map(I.mean, gen.normal(1.0, p, (trials, 8)))])
    assert 0.93 <= cover <= 0.97


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="0 <= k <= n"):
        I.share(3, 2)
    with pytest.raises(ValueError, match="at least one run"):
        I.median([])
    with pytest.raises(ValueError, match="NaN"):
        I.mean([1.0, math.nan])


def test_bootstrap_ratio_of_medians_is_deterministic_and_sensible():
    gen = np.random.default_rng(1)
    x, y = gen.exponential(4.0, 30), gen.exponential(1.0, 30)
    lo, hi = I.ratio_of_medians(x, y)
    assert lo < np.median(x) / np.median(y) < hi and lo > 1.0
    assert I.ratio_of_medians(x, y) == (lo, hi)  # its own stream: the same every time
    assert I.ratio_of_medians([math.inf] * 5, [math.inf] * 5) == (-math.inf, math.inf)


def test_count_and_percent_are_the_share_on_their_scales():
    lo, hi = I.share(3, 10)
    assert I.count(3, 10) == (10 * lo, 10 * hi)
    assert I.percent(3, 10) == (100 * lo, 100 * hi)
    assert I.count(0, 8)[0] == 0 and I.percent(8, 8)[1] == 100


def test_share_note_names_the_method_and_the_counts():
    assert I.share_note(3, 10) == "95% interval: Wilson, 3 of 10 runs"
    assert I.share_note(np.int64(4), 5, "networks") == "95% interval: Wilson, 4 of 5 networks"
    assert I.share_note(4, 5, "networks", 0.975) == "97.5% interval: Wilson, 4 of 5 networks"


def test_level_name_as_a_note_says_it():
    assert I.level_name() == "95%" and I.level_name(1 - 0.05 / 3) == "98.33%"
    with pytest.raises(ValueError, match="level"):
        I.level_name(95)
