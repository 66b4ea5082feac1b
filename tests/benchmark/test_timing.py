import pytest

from benchmark.timing import Timer, TimingConfig, median_rel_err


def _runs(**cfg) -> int:
    timer = Timer("cpu", TimingConfig(warmup_calls=1, warmup_seconds=0.0, **cfg))
    return timer.time(lambda i: None).runs


def test_stops_at_min_runs_once_the_median_is_stable():
    assert _runs(min_runs=3, min_seconds=0.0, target_rel_err=1.0) == 3


def test_short_calls_are_timed_for_at_least_min_seconds():
    assert _runs(min_runs=3, min_seconds=0.05, target_rel_err=1.0, max_runs=100_000) > 100


def test_max_runs_caps_the_loop():
    assert _runs(min_runs=3, min_seconds=10.0, max_runs=50, max_seconds=10.0) == 50


def test_warmup_calls_are_not_timed():
    seen = []
    Timer("cpu", TimingConfig(warmup_calls=4, warmup_seconds=0.0, min_runs=5, min_seconds=0.0, target_rel_err=1.0)).time(
        seen.append
    )
    assert seen == [-1, -2, -3, -4, 0, 1, 2, 3, 4]


@pytest.mark.parametrize(("samples", "finite"), [([1.0], False), ([1.0, 1.0, 1.0], True), ([0.0, 0.0], False)])
def test_median_rel_err(samples, finite):
    assert (median_rel_err(samples) < float("inf")) is finite
