"""The shared summary statistics: one geometric mean, one quantile method."""

from __future__ import annotations

import math
import statistics

import pytest

from benchmark.stats import Interval, bootstrap_interval, geomean, quantile, resample_weights


def test_geomean_is_the_exp_of_the_mean_log():
    values = [2.0, 1.2, 0.5, 1.6, 3.0]
    assert geomean(values) == pytest.approx(math.exp(sum(map(math.log, values)) / len(values)))
    assert geomean([2.0, 0.5]) == pytest.approx(1.0)
    with pytest.raises(statistics.StatisticsError):
        geomean([])


def test_quantile_interpolates_between_ranks_like_the_inclusive_method():
    values = [5.0, 1.0, 4.0, 2.0, 3.0, 10.0, 7.0]
    deciles = statistics.quantiles(values, n=10, method="inclusive")
    assert [quantile(values, k / 10) for k in range(1, 10)] == pytest.approx(deciles)
    assert quantile(values, 0.0) == 1.0 and quantile(values, 1.0) == 10.0 and quantile(values, 0.5) == 4.0
    assert quantile([1.0, 2.0], 0.9) == pytest.approx(1.9)  # inside the data, unlike the exclusive method
    assert quantile([3.0], 0.1) == 3.0


def test_quantile_refuses_bad_input():
    with pytest.raises(ValueError, match="no values"):
        quantile([], 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        quantile([1.0], 1.5)


def test_resample_weights_draw_every_unit_count_with_a_fixed_seed():
    w = resample_weights(7, resamples=50, seed=3)
    assert len(w) == 50 and all(len(r) == 7 and sum(r) == 7 for r in w)
    assert w == resample_weights(7, resamples=50, seed=3)
    assert w != resample_weights(7, resamples=50, seed=4)


def mean(sums):
    return sums[0] / sums[1]


def test_percentile_bootstrap_of_a_mean():
    values = [float(i % 5) for i in range(40)]  # mean 2, sd sqrt(2): standard error ~0.22
    ci = bootstrap_interval([values, [1.0] * 40], mean, resample_weights(40, 2000))
    assert ci.lo < 2.0 < ci.hi
    assert ci.hi - ci.lo == pytest.approx(2 * 1.96 * math.sqrt(2 / 40), rel=0.15)
    constant = bootstrap_interval([[1.0] * 5, [1.0] * 5], mean, resample_weights(5))
    assert constant == Interval(1.0, 1.0)


def test_undefined_resamples_are_left_out():
    # the statistic is undefined unless unit 0 is drawn
    only_first = bootstrap_interval([[1.0, 0.0, 0.0]], lambda s: 5.0 if s[0] else None, resample_weights(3))
    assert only_first == Interval(5.0, 5.0)
    assert bootstrap_interval([[0.0, 0.0]], lambda s: None, resample_weights(2)) is None


def test_intervals_overlap():
    assert Interval(0.1, 0.3).overlaps(Interval(0.3, 0.5)) and Interval(0.3, 0.5).overlaps(Interval(0.1, 0.3))
    assert not Interval(0.1, 0.29).overlaps(Interval(0.3, 0.5))
