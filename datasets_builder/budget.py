"""The build's clock and time budget: how long this run and the earlier runs of the same OUT took,
how much of `budget.minutes` is left, and whether to stop scheduling new work.

Each run saves its elapsed time in OUT/state/stages.json (under "runs", one entry per run) after
every stage, so a run that was killed still counts in the build's total time. The deadline is this
run's: a resumed build gets the whole budget again, and continues where the last one stopped."""

from __future__ import annotations

import logging
import os
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from datasets_builder.config import BudgetConfig
from datasets_builder.state import BuildState

log = logging.getLogger(__name__)


class Budget:
    def __init__(
        self,
        config: BudgetConfig,
        state: BuildState,
        *,
        clock: Callable[[], float] = time.monotonic,
        run_id: str | None = None,
    ):
        self.config = config
        self.state = state
        self.clock = clock
        self.t0 = clock()
        self.run_id = run_id or time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}"
        self.deadline = self.t0 + config.minutes * 60 if config.minutes > 0 else None
        self.stop_reason: str | None = None
        self.seconds: dict[str, float] = defaultdict(float)  # stage name -> seconds in this run

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time a stage: its seconds are added, and the run's elapsed time saved, once it completes."""
        t = self.clock()
        yield
        self.seconds[name] += self.clock() - t
        self.save_elapsed()

    def this_run(self) -> float:
        return self.clock() - self.t0

    def _saved(self) -> dict[str, float]:
        return self.state.stages().get("runs", {}).get("seconds", {})

    def save_elapsed(self) -> None:
        """Time spent so far in this run, kept so that killed runs still count."""
        seconds = dict(self._saved())
        seconds[self.run_id] = round(self.this_run(), 1)
        self.state.mark_done("runs", {"seconds": seconds})

    def elapsed_total(self) -> float:
        """Seconds over every run of this OUT: the earlier runs' saved time and this run's so far."""
        return sum(v for k, v in self._saved().items() if k != self.run_id) + self.this_run()

    def runs(self) -> int:
        """How many runs this OUT has seen, this one included."""
        return len(set(self._saved()) | {self.run_id})

    def time_left(self) -> float | None:
        """Seconds to the deadline, None without a time budget."""
        return None if self.deadline is None else self.deadline - self.clock()

    def out_of_time(self, reserve: float | None = None) -> bool:
        """Whether less than `reserve` seconds (default budget.reserve_s) are left."""
        left = self.time_left()
        return left is not None and left < (self.config.reserve_s if reserve is None else reserve)

    def should_stop(self, solved: int) -> bool:
        """Whether to stop scheduling new tasks: `solved` tasks reached the target, or the budget is
        nearly spent. Once true, stays true, with the reason in `stop_reason`."""
        if self.stop_reason:
            return True
        target = self.config.target_tasks
        if target and solved >= target:
            self.stop_reason = f"the target of {target} tasks with a kept solution was reached"
        elif self.out_of_time():
            self.stop_reason = f"the time budget of {self.config.minutes:g} min was nearly spent"
        if self.stop_reason:
            log.info("no new task is scheduled: %s", self.stop_reason)
        return bool(self.stop_reason)
