"""Summary statistics shared by the metrics, the suite docs, dataset cards and the scripts, so a
geometric mean or a p90 means the same thing on every page.

Quantiles interpolate linearly between the closest ranks: the q-quantile of n sorted values is at
position q * (n - 1). This is numpy's default and `statistics.quantiles(method="inclusive")`; it
never leaves the range of the data (p0 is the minimum, p100 the maximum).

Confidence intervals are percentile bootstraps over units (the tasks of a scope, for the metrics):
BOOTSTRAP_RESAMPLES resamples of the units with replacement, drawn by `random.Random(BOOTSTRAP_SEED)`,
the statistic recomputed on each, and the 2.5% and 97.5% quantiles of those values (for 95%
confidence) taken as the interval. Resampling tasks rather than samples treats the suite as a draw
from the tasks one could have written: an entry's interval says how much its number would move on
another suite of the same size."""

from __future__ import annotations

import math
import operator
import random
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass


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


BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """A confidence interval [lo, hi]."""

    lo: float
    hi: float

    def overlaps(self, other: Interval) -> bool:
        return self.lo <= other.hi and other.lo <= self.hi

    def to_list(self) -> list[float]:
        return [self.lo, self.hi]


def resample_weights(
    units: int, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> list[list[int]]:
    """How many times each of `units` units is drawn in each bootstrap resample (draws with
    replacement, `units` per resample), from a generator seeded with `seed`: the same arguments give
    the same resamples on every machine, so an interval is a reproducible number."""
    rng = random.Random(seed)
    out = []
    for _ in range(resamples):
        counts = [0] * units
        for i in rng.choices(range(units), k=units):
            counts[i] += 1
        out.append(counts)
    return out


def bootstrap_interval(
    columns: Sequence[Sequence[float]],
    statistic: Callable[[list[float]], float | None],
    weights: list[list[int]],
    confidence: float = CONFIDENCE,
) -> Interval | None:
    """Percentile bootstrap interval of a statistic of per-unit sums. `columns` are per-unit values
    (one list per quantity, one entry per unit); each resample sums every column over its drawn
    units (`weights`, from `resample_weights`) and `statistic` maps those sums to a value, or None
    where the statistic is undefined on that resample (such resamples are left out). The interval is
    the (1 - confidence) / 2 and (1 + confidence) / 2 quantiles of the values; None when no resample
    has one."""
    values = []
    for w in weights:
        v = statistic([sum(map(operator.mul, w, col)) for col in columns])
        if v is not None:
            values.append(v)
    if not values:
        return None
    tail = (1.0 - confidence) / 2
    return Interval(quantile(values, tail), quantile(values, 1.0 - tail))
