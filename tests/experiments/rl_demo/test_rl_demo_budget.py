"""experiments.rl_demo.budget: every arm all its steps, or skipped."""

from __future__ import annotations

from experiments.rl_demo import (
    budget,
)


def test_an_arm_trains_to_the_run_deadline_less_its_evaluation_or_is_skipped():
    assert budget.arm_deadline(1000.0, 100.0, [], now=0.0) == 900.0  # the first arm: any time left
    assert budget.arm_deadline(1000.0, 100.0, [], now=950.0) is None
    assert budget.arm_deadline(1000.0, 100.0, [300.0, 200.0], now=600.0) == 900.0
    assert budget.arm_deadline(1000.0, 100.0, [300.0, 200.0], now=750.0) is None  # 150 s < the quickest arm
    # before any arm ran all its steps, the expected arm (--arm-s) must fit
    assert budget.arm_deadline(1000.0, 100.0, [], now=600.0, first_s=250.0) == 900.0
    assert budget.arm_deadline(1000.0, 100.0, [], now=700.0, first_s=250.0) is None
