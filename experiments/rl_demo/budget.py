"""The time budget of a call: one clock (`now`) that every deadline is read from, a trainer callback
that stops training at a deadline, and the rule that runs an arm whole or skips it, never cuts it.
Arms cut at different steps would not compare."""

from __future__ import annotations

import time

from transformers import TrainerCallback

AFTER_EVAL_RESERVE = 3.0  # the first arm keeps this multiple of the before-RL evaluation for its own: on
# the H200 an after-RL evaluation ran more than twice as long as the before-RL one (still running at
# 32 s against 15 s when the stage's limit killed it), its answers being new kernels to build


def now() -> float:
    """Seconds on the monotonic clock; every deadline of a call is a time on it."""
    return time.monotonic()


class Deadline(TrainerCallback):
    """Stops training at a wall-clock deadline, so the whole demonstration keeps to its budget."""

    def __init__(self, deadline: float):
        self.deadline = deadline
        self.hit = False

    def on_step_end(self, args, state, control, **kwargs):
        if now() > self.deadline:
            control.should_training_stop = True
            self.hit = True


def arm_deadline(
    deadline: float, eval_cost: float, full_arms_s: list[float], now: float, first_s: float = 0.0
) -> float | None:
    """When an arm stops training: the run's deadline less a reserve for the arm's own evaluation, so
    an arm runs all its steps unless it is slower than the time left; None (skip it rather than cut
    it) when that time is shorter than the quickest arm that ran all its steps, or before any has, than
    first_s (--arm-s). Arms cut at different steps would not compare."""
    end = deadline - eval_cost
    return end if end - now > min(full_arms_s, default=first_s) else None
