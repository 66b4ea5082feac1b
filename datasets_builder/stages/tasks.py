"""The tasks stage: per screened task, in a seeded order, the suite validator, tensor metadata and,
with an offline teacher, its candidates (task_worker.py), in worker processes that are restarted
when one dies (worker_pool.py) or, with validation.workers 0, in the build's own process. Each
record is journalled in tasks.jsonl and its candidates go to the verifier at once, so verification
overlaps the remaining tasks. The budget stops scheduling new tasks; a later run does the rest."""

from __future__ import annotations

import random

from datasets_builder import task_worker
from datasets_builder.filter import RejectionFilter
from datasets_builder.stages.context import BuildContext
from datasets_builder.teachers.base import Candidate
from datasets_builder.worker_pool import RestartingPool

MAX_WORKER_CRASHES = 2


def run(ctx: BuildContext) -> None:
    records = ctx.journals.records
    order = task_order(ctx)
    todo = [t for t in order if t not in records]
    vbar = ctx.bar(desc="verify", unit="cand", total=0)
    flt = ctx.rejection_filter(ctx.journals.verdicts, vbar)
    for rec in records.values():  # candidates of tasks done before a kill, still without a verdict
        for c in rec.get("candidates", ()):
            if c["candidate_id"] not in ctx.journals.verdicts:
                flt.submit(Candidate.from_dict(c))
    bar = ctx.bar(total=len(todo), desc="tasks", unit="task")
    workers = ctx.config.validation.workers
    if workers <= 0:
        task_worker.init(worker_options(ctx), teacher=ctx.offline_teacher)
        for tid in todo:
            if ctx.should_stop():
                break
            _record(ctx, task_worker.process(str(ctx.task_path(tid)), str(ctx.pool_root)), flt)
            bar.update(1)
    else:
        _process_in_pool(ctx, todo, workers, flt, bar)
    bar.close()
    flt.wait()
    vbar.close()
    if not ctx.budget.stop_reason and all(t in records for t in order):
        ctx.state.mark_done("tasks", {"tasks": len(order)})


def task_order(ctx: BuildContext) -> list[str]:
    """The kept tasks in the build's seeded order (a budget-stopped build covers a random subset)."""
    kept_ids = sorted(r["task_id"] for r in ctx.journals.screened.values() if r.get("kept"))
    random.Random(f"order:{ctx.config.seed}").shuffle(kept_ids)
    return kept_ids


def worker_options(ctx: BuildContext) -> task_worker.WorkerOptions:
    config = ctx.config
    inductor = config.teacher.kind == "inductor" and ctx.offline_teacher is None
    return task_worker.WorkerOptions(
        device=config.device,
        fast=config.validation.fast,
        timing_seconds=config.validation.timing_seconds,
        timeout_s=config.validation.timeout_s,
        seed=config.seed,
        teacher="inductor" if inductor else None,
        variants=config.teacher.variants,
        profile=ctx.profile.to_dict() if ctx.profile else None,
    )


def _record(ctx: BuildContext, record: dict, flt: RejectionFilter) -> None:
    """Journal a task's record, with the earlier revision's solutions of a valid task among its
    candidates (teacher.prior), and send its candidates to the verifier."""
    if record.get("valid"):
        prior = [c.to_dict() for c in ctx.prior_candidates(record["task_id"])]
        record = {**record, "candidates": [*record.get("candidates", ()), *prior]}
    ctx.journals.records.append(record)
    for c in record.get("candidates", ()):
        flt.submit(Candidate.from_dict(c))


def _failed(task_id: str, failure: str, error: str) -> dict:
    """The record of a task its worker gave no record for."""
    return {
        "task_id": task_id,
        "valid": False,
        "report": {"failures": [failure]},
        "candidates": [],
        "skips": [],
        "error": error,
        "metadata": None,
    }


def _process_in_pool(ctx: BuildContext, todo: list[str], workers: int, flt: RejectionFilter, bar) -> None:
    if ctx.offline_teacher is not None:
        raise ValueError("a teacher object given in code runs only in-process; set validation.workers: 0")
    root = str(ctx.pool_root)
    pool = RestartingPool(workers, task_worker.init, (worker_options(ctx),), max_crashes=MAX_WORKER_CRASHES)
    with pool:
        outcomes = pool.run(
            task_worker.process, todo, lambda tid: (str(ctx.task_path(tid)), root), ctx.should_stop
        )
        for out in outcomes:
            if out.crashed:
                record = _failed(
                    out.key, "worker: the worker process died twice on this task", "worker crashed"
                )
            elif out.error is not None:
                e = out.error
                record = _failed(out.key, f"worker: {type(e).__name__}: {e}"[:500], repr(e)[:500])
            else:
                record = out.result
            _record(ctx, record, flt)
            bar.update(1)
