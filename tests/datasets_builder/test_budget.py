"""The build's clock and budget, on a clock the tests move: elapsed time kept across runs of the same
OUT, per-stage seconds, the deadline and its reserve, and the reasons to stop scheduling."""

from __future__ import annotations

import pytest

from datasets_builder.budget import Budget
from datasets_builder.config import BudgetConfig
from datasets_builder.state import BuildState


class Clock:
    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_elapsed_time_is_kept_across_runs(tmp_path):
    state, clock = BuildState(tmp_path), Clock()
    first = Budget(BudgetConfig(), state, clock=clock, run_id="first")
    with first.stage("screen"):
        clock.now += 30
    second = Budget(BudgetConfig(), BuildState(tmp_path), clock=clock, run_id="second")
    clock.now += 5
    assert first.seconds == {"screen": 30} and second.seconds == {}
    assert second.this_run() == 5 and second.elapsed_total() == 35 and second.runs() == 2
    with second.stage("screen"):
        clock.now += 2
    assert state.stages()["runs"]["seconds"] == {"first": 30, "second": 7}
    assert second.elapsed_total() == 37


def test_a_stage_that_raises_is_not_counted(tmp_path):
    state, clock = BuildState(tmp_path), Clock()
    budget = Budget(BudgetConfig(), state, clock=clock, run_id="killed")
    with pytest.raises(KeyboardInterrupt), budget.stage("process_tasks"):
        clock.now += 10
        raise KeyboardInterrupt
    assert budget.seconds == {} and "runs" not in state.stages()


def test_without_minutes_there_is_no_deadline(tmp_path):
    clock = Clock()
    budget = Budget(BudgetConfig(minutes=0), BuildState(tmp_path), clock=clock)
    clock.now += 1e6
    assert budget.time_left() is None and not budget.out_of_time() and not budget.should_stop(10**6)
    assert budget.stop_reason is None


def test_the_deadline_keeps_its_reserve(tmp_path):
    clock = Clock()
    budget = Budget(BudgetConfig(minutes=1, reserve_s=10), BuildState(tmp_path), clock=clock)
    clock.now += 45
    assert budget.time_left() == 15 and not budget.out_of_time() and budget.out_of_time(reserve=20)
    assert not budget.should_stop(0)
    clock.now += 10
    assert budget.out_of_time() and budget.should_stop(0)
    assert budget.stop_reason == "the time budget of 1 min was nearly spent"


def test_the_target_stops_scheduling_and_stop_stays(tmp_path):
    budget = Budget(BudgetConfig(target_tasks=3), BuildState(tmp_path), clock=Clock())
    assert not budget.should_stop(2) and budget.stop_reason is None
    assert (
        budget.should_stop(3)
        and budget.stop_reason == "the target of 3 tasks with a kept solution was reached"
    )
    assert budget.should_stop(0)  # once stopped, a run schedules nothing new
