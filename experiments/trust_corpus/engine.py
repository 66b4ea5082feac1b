"""The engine of the trust corpus: tasks in a seeded round-robin order across levels (`order_tasks`),
translated and verified until done or the budget is spent (`Corpus`), one journal row per finished
task, every verified translation a replay line, the source of every rejected candidate kept."""

from __future__ import annotations

import json
import logging
import random
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from benchmark.task import Task
from datasets_builder.state import Journal
from experiments.trust_corpus.record import NOT_VERIFIED, Row, first_line

log = logging.getLogger(__name__)
MAX_CRASHES = 2  # a task whose worker died this many times is recorded as a crash, not retried


class Interrupted(BaseException):
    """Raised by the SIGTERM handler (the stage's time limit): stop, keep what finished, report."""


def order_tasks(tasks: list[Task], seed: int = 0) -> list[Task]:
    """A seeded shuffle within each level, then one task per level in turn, so any prefix covers every
    level (until a level runs out)."""
    by_level: dict[int, list[Task]] = defaultdict(list)
    for task in sorted(tasks, key=lambda t: t.task_id):
        by_level[task.level if task.level is not None else 0].append(task)
    queues = []
    for level in sorted(by_level):
        group = by_level[level]
        random.Random(f"trust:{seed}:{level}").shuffle(group)
        queues.append(deque(group))
    ordered = []
    while any(queues):
        for q in queues:
            if q:
                ordered.append(q.popleft())
    return ordered


@dataclass(frozen=True)
class Outcome:
    rows: tuple[Row, ...]  # finished in this run, in order of completion
    unfinished: tuple[str, ...]  # started or queued when the run stopped (a rerun does them)
    stopped: str | None  # why the run ended before the last task, or None
    wall_s: float


def save_failure(out: Path, task_id: str, code: str, verdict: dict, budget: dict) -> str | None:
    """The rejected candidate as OUT/failures/<level>__<task>.py and its whole verdict beside it
    (.verdict.json: the full error, correctness statistics, phases), while the size cap allows."""
    source = code.encode()
    record = json.dumps(verdict, indent=1, sort_keys=True, default=str).encode()
    if budget["left"] < len(source) + len(record):
        return None
    budget["left"] -= len(source) + len(record)
    stem = Path("failures") / task_id.replace("/", "__")
    (out / stem).parent.mkdir(parents=True, exist_ok=True)
    (out / stem.with_suffix(".verdict.json")).write_bytes(record)
    (out / stem.with_suffix(".py")).write_bytes(source)
    return stem.with_suffix(".py").as_posix()


class Corpus:
    """Translate and verify tasks in order until done or the budget is spent; one journal row per
    finished task; without a verifier (None, --translate-only) a translation is only written to the
    replay file. No task starts in the last `reserve_s` of the budget, nor while `backlog`
    translations wait for the verifier. When a translation worker dies, the tasks it had in flight
    are rerun one at a time, so only a task that kills a worker on its own is recorded as a crash."""

    def __init__(
        self,
        translator,
        verifier,
        journal: Journal,
        out: Path,
        *,
        budget_s: float,
        reserve_s: float,
        backlog: int = 12,
        source_bytes: int = 3 << 20,
        clock: Callable[[], float] = time.monotonic,
        poll_s: float = 2.0,
        precheck: Callable[[Task], tuple[str, str] | None] | None = None,
    ):
        self.translator, self.verifier, self.journal, self.out = translator, verifier, journal, out
        # every verified translation as a replay line: `benchmark.run --model replay:OUT/completions.jsonl`
        # judges the compiler like any model (the leaderboard's torch.compile entry)
        self.completions = Journal(out / "completions.jsonl", key=lambda r: r["task_id"])
        self.budget_s, self.reserve_s, self.backlog, self.poll_s = budget_s, reserve_s, backlog, poll_s
        self.clock, self.precheck = clock, precheck
        self.sources = {"left": source_bytes}
        self.rows: list[Row] = []
        self.queue: deque[Task] = deque()
        self.suspects: deque[Task] = deque()  # in flight when a worker died: rerun alone
        self.crashes: Counter = Counter()
        self.translating: dict[Future, Task] = {}
        self.verifying: dict[Future, tuple[Task, dict, int]] = {}
        self.solo: Future | None = None  # a suspect running alone
        self.stopped: str | None = None
        self.t0 = 0.0

    def elapsed(self) -> float:
        return self.clock() - self.t0

    def run(self, tasks: list[Task]) -> Outcome:
        self.t0 = self.clock()
        self.queue = deque(tasks)
        try:
            while self.queue or self.suspects or self.translating or self.verifying:
                if self.elapsed() >= self.budget_s:
                    self.stopped = f"budget of {self.budget_s:g} s spent"
                    break
                self.start_tasks()
                if not self.translating and not self.verifying:
                    break  # nothing may start, nothing is running
                timeout = max(0.01, min(self.poll_s, self.budget_s - self.elapsed()))
                done, _ = wait(
                    [*self.translating, *self.verifying], timeout=timeout, return_when=FIRST_COMPLETED
                )
                self.translated([f for f in done if f in self.translating])
                for f in [f for f in done if f in self.verifying]:
                    self.judged(f)
        except Interrupted as e:
            self.stopped = str(e)
        unfinished = [
            *(t.task_id for t in self.translating.values()),
            *(t.task_id for t, _, _ in self.verifying.values()),
            *(t.task_id for t in self.suspects),
            *(t.task_id for t in self.queue),
        ]
        return Outcome(
            tuple(self.rows),
            tuple(unfinished),
            self.stopped if unfinished else None,
            round(self.elapsed(), 1),
        )

    def start_tasks(self) -> None:
        while (self.queue or self.suspects) and len(self.verifying) < self.backlog:
            if self.elapsed() >= self.budget_s - self.reserve_s:
                self.stopped = (
                    self.stopped or f"no task starts in the last {self.reserve_s:g} s of the budget"
                )
                return
            if self.solo in self.translating:
                return  # a suspect runs alone
            if self.suspects:
                if self.translating:
                    return  # it waits until it can run alone
                task = self.suspects.popleft()
                self.solo = self.translator.submit(task)
                self.translating[self.solo] = task
            elif len(self.translating) < self.translator.capacity:
                task = self.queue.popleft()
                refused = self.precheck(task) if self.precheck else None
                if refused:
                    reason, detail = refused
                    self.skipped(
                        task, reason, first_line(detail), {"skips": [f"static: {reason}: {detail[:300]}"]}
                    )
                else:
                    self.translating[self.translator.submit(task)] = task
            else:
                return

    def record(self, row: Row) -> None:
        self.journal.append(row.to_dict())
        self.rows.append(row)
        log.info(
            "[%d done, %.0fs] %s %s %s",
            len(self.rows),
            self.elapsed(),
            row.task_id,
            row.verdict or f"skip:{row.skip_reason}",
            row.error or "",
        )

    def skipped(self, task: Task, reason: str, error: str | None, res: dict | None = None) -> None:
        res = res or {}
        self.record(
            Row(
                task.task_id,
                task.level,
                False,
                skip_reason=reason,
                skips=tuple(res.get("skips", ())),
                error=error,
                translate_s=res.get("seconds", 0.0),
            )
        )

    def translated(self, done: list[Future]) -> None:
        broken = False
        for f in done:
            task = self.translating.pop(f)
            try:
                res = f.result()
            except BrokenProcessPool:
                broken = True
                self.translating[f] = task  # counted with the others below
                continue
            except Exception as e:  # noqa: BLE001 - recorded, the corpus goes on
                self.skipped(task, "teacher_error", first_line(f"{type(e).__name__}: {e}"))
                continue
            if res.get("code") and self.verifier is None:
                self.keep(task, res["code"])
                self.record(Row(task.task_id, task.level, True, verdict=NOT_VERIFIED, **self.base(res, 0)))
            elif res.get("code"):
                self.submit_verify(task, res, 1)
            else:
                self.skipped(task, res.get("skip_reason") or "no_candidate", res.get("error"), res)
        if not broken:
            return
        lost = list(self.translating.values())  # a dead pool loses every task it held
        self.translating.clear()
        for task in lost:
            self.crashes[task.task_id] += 1
            if len(lost) == 1 and self.crashes[task.task_id] >= MAX_CRASHES:
                self.skipped(
                    task,
                    "worker_crash",
                    f"the translation worker died {self.crashes[task.task_id]} times, "
                    "the last time running this task alone",
                )
            else:
                self.suspects.append(task)
        log.warning(
            "a translation worker died with %s in flight; restarting the pool",
            ", ".join(t.task_id for t in lost),
        )
        self.translator.restart()

    def keep(self, task: Task, code: str) -> None:
        """The translation as a replay line, once per task (a kill before its row leaves a line that a
        rerun must not double into a second sample)."""
        if task.task_id not in self.completions:
            self.completions.append({"task_id": task.task_id, "completion": code})

    @staticmethod
    def base(res: dict, attempts: int) -> dict:
        return dict(
            variant=res["variant"], skips=tuple(res["skips"]), translate_s=res["seconds"], attempts=attempts
        )

    def submit_verify(self, task: Task, res: dict, attempt: int) -> None:
        self.verifying[self.verifier.submit(task, res["code"], sample=0, model="inductor")] = (
            task,
            res,
            attempt,
        )

    def judged(self, f: Future) -> None:
        from benchmark.evaluate.harness import TaskError

        task, res, attempt = self.verifying.pop(f)
        base = self.base(res, attempt)
        try:
            verdict = f.result()
        except TaskError as e:
            self.record(
                Row(
                    task.task_id,
                    task.level,
                    True,
                    verdict="task_error",  # the reference itself failed: neither translation nor harness
                    error=first_line(f"task error: {e}"),
                    **base,
                )
            )
            return
        if (
            verdict.out_of_memory  # retried once: the GPU was shared
            and attempt == 1
            and self.elapsed() < self.budget_s - self.reserve_s
        ):
            self.submit_verify(task, res, 2)
            return
        self.keep(task, res["code"])
        status = verdict.status.value
        clean = status == "pass" and not verdict.flags
        source = (
            None
            if clean
            else save_failure(self.out, task.task_id, res["code"], verdict.to_dict(), self.sources)
        )
        self.record(
            Row(
                task.task_id,
                task.level,
                True,
                verdict=status,
                flags=tuple(verdict.flags),
                error=first_line(verdict.error),
                speedup=verdict.speedup,
                verify_s=round(verdict.phases.total_s, 3),
                source=source,
                **base,
            )
        )
