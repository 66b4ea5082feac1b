"""Summary statistics shared by the metrics, the suite docs, dataset cards and the scripts, so a
geometric mean or a p90 means the same thing on every page.

Quantiles interpolate linearly between the closest ranks: the q-quantile of n sorted values is at
position q * (n - 1). This is numpy's default and `statistics.quantiles(method="inclusive")`; it
never leaves the range of the data (p0 is the minimum, p100 the maximum)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable


def geomean(values: Iterable[float]) -> float:
    """Geometric mean of positive values (the mean of speedup ratios that treats 2x and 0.5x alike)."""
    return statistics.geometric_mean(values)


def quantile(values: Iterable[float], q: float) -> float:
    """The q-quantile (q in [0, 1]) of a non-empty collection, by linear interpolation between ranks."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile q must be in [0, 1], got {q}")
    v = sorted(values)
    if not v:
        raise ValueError("quantile of no values")
    pos = q * (len(v) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)
