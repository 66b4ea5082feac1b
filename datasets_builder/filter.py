"""Rejection filtering: every candidate, from every teacher, goes through the strict verifier
(benchmark.verify.verifier, the one evaluation path the benchmark, RL rewards and the leaderboard also use),
and only correct, legal ones are kept, with their verdict (and speedup, where timed).

Submissions are asynchronous (the verifier builds and executes in pools), so candidates can be
submitted while teachers are still producing others; each verdict is recorded through a callback
as soon as it is known, which is what makes the stage resumable item by item."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Protocol

from benchmark.evaluate.harness import TaskError
from benchmark.task import Task
from benchmark.verdict import Status, Verdict
from datasets_builder.teachers.base import Candidate

log = logging.getLogger(__name__)


class VerifierLike(Protocol):
    def submit(self, task: Task, code: str | None, **kw) -> Future[Verdict]: ...


def kept(verdict: Verdict) -> bool:
    """Correct and legal. Under the strict rules (every real build) a verdict with any anti-cheat flag
    is already `cheat`; without them (CPU smoke builds of plain-PyTorch candidates) flags only inform."""
    return verdict.status is Status.PASS and (not verdict.flags or not verdict.strict)


def task_error_verdict(candidate: Candidate, error: Exception) -> Verdict:
    """The task's own reference failed inside the verifier: recorded, never kept."""
    return lost_verdict(candidate, f"task error: {error}")


def lost_verdict(candidate: Candidate, error: str) -> Verdict:
    """A candidate the verifier gave no verdict: a runtime error, its reason kept short."""
    return Verdict.unmeasured(
        Status.RUNTIME_ERROR,
        error[:2000],
        task_id=candidate.task_id,
        sample=candidate.sample,
        turn=candidate.turn,
        model=candidate.teacher,
    )


class RejectionFilter:
    """Submits candidates to a verifier and reports each verdict through `on_verdict`."""

    def __init__(
        self,
        verifier: VerifierLike,
        tasks: Callable[[str], Task],
        sol_ms: Callable[[str], float | None],
        on_verdict: Callable[[Candidate, Verdict], None],
        on_submit: Callable[[Candidate], None] | None = None,
    ):
        self.verifier = verifier
        self.on_submit = on_submit
        self.tasks = tasks
        self.sol_ms = sol_ms
        self.on_verdict = on_verdict
        self._pending: set[Future] = set()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self.counts = {"submitted": 0, "kept": 0, "rejected": 0}

    def submit(self, candidate: Candidate) -> Future[Verdict]:
        task = self.tasks(candidate.task_id)
        future = self.verifier.submit(
            task,
            candidate.code,
            sample=candidate.sample,
            turn=candidate.turn,
            model=candidate.teacher,
            sol_ms=self.sol_ms(candidate.task_id),
        )
        with self._lock:
            self._pending.add(future)
            self.counts["submitted"] += 1
        if self.on_submit is not None:
            self.on_submit(candidate)
        future.add_done_callback(lambda f: self._done(candidate, f))
        return future

    def _done(self, candidate: Candidate, future: Future) -> None:
        try:
            verdict = future.result()
        except TaskError as e:
            verdict = task_error_verdict(candidate, e)
        except Exception as e:  # noqa: BLE001 - a lost sample is recorded as such, never dropped silently
            log.warning("verification of %s failed: %r", candidate.candidate_id, e)
            verdict = lost_verdict(candidate, f"verifier failure: {e!r}")
        try:
            self.on_verdict(candidate, verdict)
        finally:
            with self._lock:
                self.counts["kept" if kept(verdict) else "rejected"] += 1
                self._pending.discard(future)
                self._idle.notify_all()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every submitted candidate has its verdict recorded; False on timeout."""
        with self._lock:
            return self._idle.wait_for(lambda: not self._pending, timeout)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._pending)
