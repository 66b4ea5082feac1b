"""The shared summary statistics: one geometric mean, one quantile method."""

from __future__ import annotations

import math
import statistics

import pytest

from benchmark.stats import geomean, quantile


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
