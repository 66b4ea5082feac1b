"""experiments/rl_power.py: the simulated power of the RL demonstration's claim rule."""

from __future__ import annotations

import random

from experiments import rl_power


def test_a_split_has_the_asked_samples_and_passing_ones_run_at_their_launch_sizes_speed():
    split = rl_power.sample_split(random.Random(0), tasks=3, samples=5, pass_rate=1.0, large=1.0)
    assert len(split) == 3 and all(len(draws) == 5 for draws in split.values())
    speeds = [speedup for draws in split.values() for passed, speedup in draws]
    assert all(1.3 < s < 2.9 for s in speeds)  # large launches only: about 2x, 10% noise
    failed = rl_power.sample_split(random.Random(0), tasks=3, samples=5, pass_rate=0.0, large=1.0)
    assert all(draw == [False, None] for draws in failed.values() for draw in draws)


def test_no_shift_is_rarely_claimed_and_a_large_one_more_often_with_more_samples():
    common = dict(tasks=16, pass_rate=0.6, before=0.4, sims=40, seed=0, resamples=200)
    null = rl_power.power(samples=8, after=0.4, **common)
    assert null["speedup_geomean"] <= 0.1 and null["fast_1"] <= 0.1
    few = rl_power.power(samples=2, after=0.8, **common)
    many = rl_power.power(samples=8, after=0.8, **common)
    assert many["speedup_geomean"] >= 0.85 and many["speedup_geomean"] > few["speedup_geomean"]
