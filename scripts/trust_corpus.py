"""The Inductor trust corpus: does the strict harness accept honest kernels that we did not write?

TorchInductor compiles each suite task's reference to Triton, and the dataset builder's Inductor
teacher (datasets_builder.teachers.inductor) turns that output into a standalone ModelNew. Those
candidates come from a compiler, written neither by us nor to please the checker, so every one
the strict verifier rejects is a translation bug or a harness false negative; this script collects
them, with their sources, for that classification (docs/trust-corpus.md).

    python scripts/trust_corpus.py --out $OUT/trust [--levels 1 2] [--tasks 'level1/*softmax*']
        [--limit N] [--budget-s 330] [--workers 7] [--lanes 5] [--translate-only]

Tasks run in a seeded round-robin order across levels, so a run stopped by its budget still covers
every level. Translation runs in worker processes (one Inductor compile thread each) while the
verifier checks finished translations in its own pools; no task starts once the budget is nearly
spent, and at the budget unfinished work is abandoned. Each finished task is one line of
OUT/results.jsonl, written at once, and a rerun with the same OUT resumes; each verified translation
is also a line of OUT/completions.jsonl, a replay file for `benchmark.run --model replay:FILE`. At the end: the table,
printed and in OUT/corpus.md, OUT/summary.json, and OUT/failures/ (the source of every rejected
candidate). Needs a CUDA GPU.

`--translate-only` builds no verifier: every translation goes to OUT/completions.jsonl unjudged, with
more workers, so the leaderboard's torch.compile entry is two steps: a translate-only run, then
`python -m benchmark.run --model replay:OUT/completions.jsonl` alone on the GPU (timing shares it with
no compile)."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import gc
import json
import logging
import os
import random
import signal
import statistics
import sys
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmark.environment import gpu_name, package_versions  # noqa: E402
from benchmark.stats import geomean  # noqa: E402
from benchmark.task import Task  # noqa: E402
from datasets_builder.state import Journal  # noqa: E402

log = logging.getLogger("trust_corpus")
MAX_CRASHES = 2  # a task whose worker died this many times is recorded as a crash, not retried
NOT_VERIFIED = "not_verified"  # the verdict of a --translate-only translation: written, never judged


class Interrupted(BaseException):
    """Raised by the SIGTERM handler (the stage's time limit): stop, keep what finished, report."""


@dataclass(frozen=True)
class Row:
    """One finished task: translated and judged (or, with --translate-only, not: NOT_VERIFIED), or
    skipped with the reason."""

    task_id: str
    level: int | None
    translated: bool
    variant: str = ""  # the Inductor variant whose translation was verified
    skip_reason: str | None = None  # stable code (teacher skip reasons, plus timeout and worker_crash)
    skips: tuple[str, ...] = ()  # "variant: reason: detail" of every variant that did not translate
    verdict: str | None = None
    flags: tuple[str, ...] = ()
    error: str | None = None  # the first informative line of the verdict's or the worker's error
    speedup: float | None = None
    translate_s: float = 0.0
    verify_s: float = 0.0
    attempts: int = 0  # verifications run (a second one after running out of device memory)
    source: str | None = None  # the candidate's file under OUT/failures/, for a rejected candidate

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["skips"], d["flags"] = list(self.skips), list(self.flags)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Row:
        known = {f.name for f in dataclasses.fields(cls)}
        d = {k: v for k, v in d.items() if k in known}
        return cls(**{**d, "skips": tuple(d.get("skips") or ()), "flags": tuple(d.get("flags") or ())})


def first_line(text: str | None, width: int = 200) -> str | None:
    """The line that says what went wrong, cut to `width`: the first line, or for a Python traceback
    its last line (the exception)."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if not lines:
        return None
    if lines[0].startswith("Traceback (most recent call last)"):
        return lines[-1][:width]
    return lines[0][:width]


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


# ------------------------------------------------------------------------------------ translation
def translate_task(teacher, task: Task, timeout_s: float) -> dict:
    """The teacher's first candidate for `task` (or why there is none), as a plain dict."""
    from benchmark.suite.validate import TaskTimeout, deadline
    from benchmark.task import import_file

    t0 = time.monotonic()
    out = {
        "task_id": task.task_id,
        "code": None,
        "variant": "",
        "skips": [],
        "skip_reason": None,
        "error": None,
    }
    name = f"solbench_trust_{task.hash[:16]}"
    try:
        with deadline(timeout_s):
            module = import_file(task.path, name)
            candidates, skips = teacher.propose(task, module)
        out["skips"] = [f"{s.variant}: {s.reason}: {s.detail[:300]}" for s in skips]
        with_code = [c for c in candidates if c.code]
        if with_code:
            out["code"], out["variant"] = with_code[0].code, with_code[0].variant
        elif skips:
            last = skips[-1]  # what stopped the last variant tried (the retry, where there was one)
            out["skip_reason"] = last.reason
            out["error"] = first_line(last.detail)
        else:
            out["skip_reason"], out["error"] = (
                "no_candidate",
                "the teacher returned neither a candidate nor a skip",
            )
    except TaskTimeout as e:
        out["skip_reason"], out["error"] = "timeout", f"translation took longer than {timeout_s:g} s ({e})"
    except Exception as e:  # noqa: BLE001 - one task's failure is recorded, the corpus goes on
        out["skip_reason"], out["error"] = "teacher_error", first_line(f"{type(e).__name__}: {e}")
    finally:
        sys.modules.pop(name, None)
    out["seconds"] = round(time.monotonic() - t0, 3)
    return out


def untranslatable(task: Task) -> tuple[str, str] | None:
    """(reason, detail) when the translator must refuse `task` whatever Inductor makes of it: it copies
    Model.__init__ (with the constants it reads) and forward's signature from the task's source, so
    a model built from other classes or libraries is skipped here, before paying for a compile."""
    from datasets_builder.teachers.inductor_translate import InductorSkip, _forward_signature, _init_source

    try:
        _init_source(task.source)
        _forward_signature(task.source)
    except InductorSkip as e:
        return e.reason, e.detail
    return None


def inductor_teacher():
    """The teacher every worker builds: the default variant (retried as no_patterns where it applies)."""
    from datasets_builder.teachers.inductor import InductorTeacher

    return InductorTeacher(("default",), device="cuda", seed=0)


_worker: dict = {}


def _init_worker(factory: Callable[[], object], timeout_s: float, threads: int) -> None:
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    import torch

    torch.set_num_threads(threads)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    _worker.update(teacher=factory(), timeout_s=timeout_s)


def _translate_in_worker(task: Task) -> dict:
    try:
        return translate_task(_worker["teacher"], task, _worker["timeout_s"])
    finally:
        gc.collect()
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()


class InlineTranslator:
    """Translation in this process, one task at a time (tests, and the GPU test's small sample)."""

    capacity = 1

    def __init__(self, teacher, timeout_s: float = 0.0):
        self.teacher, self.timeout_s = teacher, timeout_s

    def submit(self, task: Task) -> Future:
        future: Future = Future()
        future.set_result(translate_task(self.teacher, task, self.timeout_s))
        return future

    def restart(self) -> None:
        pass

    def close(self, kill: bool = False) -> None:
        pass


class PoolTranslator:
    """Translation in `workers` spawned processes, each with its own teacher and CUDA context; the
    engine submits at most `workers` tasks at once, so submitting a task is starting it."""

    def __init__(
        self,
        workers: int,
        timeout_s: float,
        factory: Callable[[], object] = inductor_teacher,
        threads_per_worker: int = 2,
    ):
        if workers < 1:
            raise ValueError("a translation pool needs at least one worker; use InlineTranslator for none")
        self.capacity = workers
        self._args = (factory, timeout_s, threads_per_worker)
        self._pool = self._new_pool()

    def _new_pool(self):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(
            self.capacity,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=self._args,
        )

    def submit(self, task: Task) -> Future:
        return self._pool.submit(_translate_in_worker, task)

    def restart(self) -> None:
        self.close(kill=True)
        self._pool = self._new_pool()

    def close(self, kill: bool = False) -> None:
        """`kill`: stop compiles in progress now (at the budget) instead of waiting for them."""
        if kill:
            terminate = getattr(self._pool, "terminate_workers", None)  # Python 3.14
            if terminate is not None:
                terminate()
            else:
                for p in list((getattr(self._pool, "_processes", None) or {}).values()):
                    p.terminate()
        self._pool.shutdown(wait=not kill, cancel_futures=True)


# ------------------------------------------------------------------------------------ the engine
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


# ------------------------------------------------------------------------------------ the report
def summarize(rows: list[Row], not_run: list[str] = ()) -> dict:
    """The numbers of the table; `not_run`: selected tasks without a row (the budget stopped first).
    Pass rates are of verified translations: a --translate-only one counts as translated, not judged."""
    translated = [r for r in rows if r.translated]
    judged = [r for r in translated if r.verdict != NOT_VERIFIED]
    passed = [r for r in judged if r.verdict == "pass" and not r.flags]
    levels = sorted({r.level if r.level is not None else 0 for r in rows})
    per_level = {}
    for level in levels:
        mine = [r for r in rows if (r.level if r.level is not None else 0) == level]
        t = [r for r in mine if r.translated]
        j = [r for r in t if r.verdict != NOT_VERIFIED]
        p = [r for r in j if r.verdict == "pass" and not r.flags]
        per_level[str(level)] = {
            "tried": len(mine),
            "translated": len(t),
            "skipped": len(mine) - len(t),
            "pass": len(p),
            "pass_rate": round(len(p) / len(j), 4) if j else None,
        }
    speedups = [r.speedup for r in passed if r.speedup and r.speedup > 0]
    compiled = [r.translate_s for r in rows if r.translate_s > 0]
    verified = [r.verify_s for r in translated if r.verify_s > 0]
    return {
        "tried": len(rows),
        "translated": len(translated),
        "verified": len(judged),
        "skipped": dict(Counter(r.skip_reason for r in rows if not r.translated).most_common()),
        "verdicts": dict(Counter(r.verdict for r in translated).most_common()),
        "pass": len(passed),
        "pass_rate": round(len(passed) / len(judged), 4) if judged else None,
        "flagged_passes": sum(1 for r in translated if r.verdict == "pass" and r.flags),
        "geomean_speedup": round(geomean(speedups), 4) if speedups else None,
        "median_translate_s": round(statistics.median(compiled), 2) if compiled else None,
        "median_verify_s": round(statistics.median(verified), 2) if verified else None,
        "per_level": per_level,
        "non_pass": [
            {
                "task_id": r.task_id,
                "level": r.level,
                "verdict": r.verdict,
                "flags": list(r.flags),
                "error": r.error,
                "source": r.source,
            }
            for r in sorted(judged, key=lambda r: r.task_id)
            if r not in passed
        ],
        "skips": {
            reason: sorted(r.task_id for r in rows if not r.translated and r.skip_reason == reason)
            for reason in sorted({r.skip_reason for r in rows if not r.translated})
        },
        "not_run": list(not_run),
    }


def _cell(text) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _judged(translated: int, passed: int, rate: float | None) -> str:
    """The pass and pass-rate cells: "not verified" where translations exist but none was judged."""
    if translated and rate is None:
        return "not verified | not verified"
    return f"{passed} | {_pct(rate)}"


def render_markdown(summary: dict, context: dict) -> str:
    unverified = summary["translated"] - summary["verified"]
    lines = ["# Inductor trust corpus", ""]
    lines += [f"- {k}: {_cell(v)}" for k, v in context.items()]
    lines += [
        "",
        "| level | tried | translated | skipped | pass | pass rate of translated |",
        "|---|---|---|---|---|---|",
    ]
    for level, s in summary["per_level"].items():
        lines.append(
            f"| {level} | {s['tried']} | {s['translated']} | {s['skipped']} "
            f"| {_judged(s['translated'], s['pass'], s['pass_rate'])} |"
        )
    lines.append(
        f"| all | {summary['tried']} | {summary['translated']} | {summary['tried'] - summary['translated']} "
        f"| {_judged(summary['translated'], summary['pass'], summary['pass_rate'])} |"
    )
    verdicts = summary["verified"] or not summary["translated"]  # else a --translate-only run: none
    if unverified:
        lines += [
            "",
            f"Not verified: {unverified} of {summary['translated']} translations (--translate-only); the pass "
            "columns count verified ones only. Judge them alone on the GPU: "
            "`python -m benchmark.run --model replay:OUT/completions.jsonl`.",
        ]
    if verdicts:
        lines += [
            "",
            f"Flagged passes (must be 0 under strict rules): {summary['flagged_passes']}. "
            f"Geometric-mean speedup of passes over eager (short timing, indicative): "
            f"{summary['geomean_speedup'] if summary['geomean_speedup'] is not None else '-'}. "
            f"Median seconds per task: translation {summary['median_translate_s']}, "
            f"verification {summary['median_verify_s']} (to balance --workers against --lanes).",
        ]
        lines += ["", "## Verdicts of translated candidates", "", "| verdict | count |", "|---|---|"]
        lines += [f"| {v} | {n} |" for v, n in summary["verdicts"].items()]
    else:
        lines += ["", f"Median seconds per task of translation: {summary['median_translate_s']}."]
    lines += ["", "## Skipped (not translated), by reason", "", "| reason | count | tasks |", "|---|---|---|"]
    if not summary["skipped"]:
        lines.append("| (none) | 0 | |")
    for reason, n in summary["skipped"].items():
        ids = summary["skips"].get(reason, [])
        lines.append(
            f"| {_cell(reason)} | {n} | {_cell(', '.join(ids[:8]) + (' ...' if len(ids) > 8 else ''))} |"
        )
    if verdicts:
        lines += ["", "## Non-pass verdicts (translation bug or harness false negative?)", ""]
        if summary["non_pass"]:
            lines += ["| task | verdict | flags | first error line | source |", "|---|---|---|---|---|"]
            for r in summary["non_pass"]:
                lines.append(
                    f"| {r['task_id']} | {r['verdict']} | {_cell(','.join(r['flags']))} | {_cell(r['error'])} "
                    f"| {_cell(r['source'] or '(not saved)')} |"
                )
        else:
            lines.append("None.")
    if summary["not_run"]:
        ids = summary["not_run"]
        lines += [
            "",
            f"## Not run: {len(ids)} selected tasks (the budget ran out first; the same command with the "
            "same --out continues)",
            "",
            ", ".join(ids[:40]) + (f" and {len(ids) - 40} more" if len(ids) > 40 else ""),
        ]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------ the command
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("which tasks")
    g.add_argument("--suite", default=None, help="suite folder (default: the built-in suite)")
    g.add_argument("--levels", type=int, nargs="+", help="only these levels")
    g.add_argument(
        "--tasks", action="append", metavar="GLOB", help="only task ids or names matching (repeatable)"
    )
    g.add_argument("--limit", type=int, help="at most this many tasks, taken from the front of the order")
    g.add_argument("--seed", type=int, default=0, help="seed of the order within each level")
    g = p.add_argument_group("time")
    g.add_argument("--budget-s", type=float, default=330.0, help="wall time of the whole run; then it stops")
    g.add_argument(
        "--reserve-s", type=float, default=40.0, help="no task starts in the last this many seconds"
    )
    g.add_argument("--task-timeout-s", type=float, default=120.0, help="limit on one task's translation")
    g = p.add_argument_group("parallelism (16 cores: 7 translating, 5 verifying, 2 building, this one)")
    g.add_argument(
        "--workers",
        type=int,
        default=None,
        help="translation processes (0: in this process); default 7, or with --translate-only every core "
        "this process may use but two (one for this process, one for Triton's ptxas and the system): "
        "no lane or build competes for them",
    )
    g.add_argument("--lanes", type=int, default=5, help="verifier execution lanes on the GPU")
    g.add_argument(
        "--build-workers", type=int, default=2, help="verifier build workers (Triton builds are cheap)"
    )
    g = p.add_argument_group("output")
    g.add_argument(
        "--out",
        type=Path,
        default=Path("runs/trust"),
        help="results.jsonl, corpus.md, summary.json, failures/",
    )
    g.add_argument("--cache", type=Path, default=None, help="verifier cache (default: $SOLBENCH_CACHE)")
    g.add_argument("--max-source-kb", type=int, default=3072, help="cap on the failure sources kept")
    g.add_argument("--quiet", action="store_true", help="no line per finished task")
    g.add_argument(
        "--report-only",
        action="store_true",
        help="run nothing: tabulate OUT/results.jsonl (works without a GPU, e.g. on fetched results)",
    )
    g.add_argument(
        "--translate-only",
        action="store_true",
        help="build no verifier: write every translation to OUT/completions.jsonl unjudged, for "
        "`python -m benchmark.run --model replay:OUT/completions.jsonl` run alone on the GPU",
    )
    return p


def timing_config():
    """Short timing, so ~300 candidates fit a few minutes; speedups are indicative, not benchmark-grade.
    The translation workers share the GPU outside the device lock, so timing never waits for them
    (`contention_wait_s=0`): such verdicts come back `contended`, with the checks done, and no speedup."""
    from benchmark.evaluate.timing import TimingConfig

    return TimingConfig(
        contention_wait_s=0.0,
        warmup_calls=2,
        warmup_seconds=0.02,
        steady_max_seconds=0.0,
        min_runs=10,
        min_seconds=0.03,
        max_runs=300,
        target_rel_err=0.01,
        max_seconds=0.3,
    )


def make_verifier(lanes: int, build_workers: int, cache: Path | None, measure: bool = True):
    """The strict verifier on the GPU; `measure=False` skips timing (and the checks that need it)."""
    from benchmark.evaluate.harness import EvalConfig, default_cache_dir
    from benchmark.verify.verifier import Verifier, VerifierConfig

    config = EvalConfig(
        device="cuda",
        strict=True,
        measure=measure,
        timeout_s=120.0,
        timing=timing_config(),
        cache_dir=cache or default_cache_dir(),
    )
    return Verifier(VerifierConfig(eval=config, build_workers=build_workers, lanes_per_device=lanes))


def report(rows: list[Row], not_run: list[str], out: Path, context: dict) -> dict:
    summary = summarize(rows, not_run)
    text = render_markdown(summary, context)
    from benchmark.records import atomic_write_text

    atomic_write_text(out / "corpus.md", text)
    atomic_write_text(out / "summary.json", json.dumps({"context": context, **summary}, indent=2))
    print(text)
    return summary


def _describe_verifier() -> str:
    t = timing_config()
    return (
        f"strict, 5 trials + alternate shapes (+ a large-magnitude trial for fp32); timing: warm-up {t.warmup_seconds:g} s, "
        f"timed >= {t.min_seconds:g} s, cap {t.max_seconds:g} s, target {t.target_rel_err:g}"
    )


def _on_sigterm(signum, frame):
    raise Interrupted("stopped by SIGTERM (the stage's time limit)")


def main(argv: list[str] | None = None, *, translator=None, verifier=None) -> int:
    """`translator` and `verifier` replace the real ones (the tests' fakes); otherwise this needs CUDA."""
    args = build_parser().parse_args(argv)
    if args.workers is None:
        args.workers = max(1, len(os.sched_getaffinity(0)) - 2) if args.translate_only else 7
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO, format="%(message)s")
    from benchmark.suite import load_suite

    t_start = time.monotonic()
    suite = load_suite(args.suite)
    tasks = order_tasks(suite.select(args.levels, None, args.tasks), args.seed)
    if args.limit is not None:
        tasks = tasks[: args.limit]
    if not tasks:
        print("trust_corpus: no task matches the selection", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    journal = Journal(args.out / "results.jsonl", key=lambda r: r["task_id"])
    selected = {t.task_id for t in tasks}
    todo = [] if args.report_only else [t for t in tasks if t.task_id not in journal]
    own_translator, own_verifier = translator is None, verifier is None
    if todo and own_translator:
        try:
            inductor_teacher()  # refuses without CUDA, with the reason
        except RuntimeError as e:
            print(
                f"trust_corpus: {e}. Run it on a machine with a CUDA GPU (scripts/gpu_checks.sh trust), "
                "or use --report-only to tabulate an earlier run's results.jsonl.",
                file=sys.stderr,
            )
            return 2
    versions = package_versions(("torch", "triton"))
    context = {
        "suite": f"{suite.root} (version {suite.version})",
        "selected": len(tasks),
        "done before this run": sum(t.task_id in journal for t in tasks),
        "date": datetime.date.today().isoformat(),
        "torch": versions["torch"],
        "triton": versions["triton"] or "not installed",
        "gpu": gpu_name() or "none",
        "workers": args.workers,
        "lanes": 0 if args.translate_only else args.lanes,
        "verifier": "none (--translate-only)" if args.translate_only else _describe_verifier(),
    }
    log.info("%d tasks selected, %d to do, budget %.0f s", len(tasks), len(todo), args.budget_s)
    outcome = None
    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        if todo:
            if own_translator:
                translator = (
                    PoolTranslator(args.workers, args.task_timeout_s)
                    if args.workers > 0
                    else InlineTranslator(inductor_teacher(), args.task_timeout_s)
                )
            if args.translate_only:
                verifier = None
            elif own_verifier:
                verifier = make_verifier(args.lanes, args.build_workers, args.cache)
            corpus = Corpus(
                translator,
                verifier,
                journal,
                args.out,
                reserve_s=args.reserve_s,
                budget_s=args.budget_s - (time.monotonic() - t_start),
                backlog=2 * args.lanes,
                source_bytes=args.max_source_kb << 10,
                precheck=untranslatable,
            )
            outcome = corpus.run(todo)
            context["stopped"] = outcome.stopped or "every task finished"
            context["wall_s"] = round(time.monotonic() - t_start, 1)
        rows = [Row.from_dict(r) for r in journal.values() if r["task_id"] in selected]
        not_run = [t.task_id for t in tasks if t.task_id not in journal]
        summary = report(rows, not_run, args.out, context)
    finally:
        signal.signal(signal.SIGTERM, previous)
        if own_translator and translator is not None:
            translator.close(kill=True)
        if own_verifier and verifier is not None:
            verifier.close(cancel_pending=True)  # after the report: samples still running cannot lose it
    return 0 if summary["tried"] else 1


if __name__ == "__main__":
    sys.exit(main())
