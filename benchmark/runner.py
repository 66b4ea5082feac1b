"""The benchmark run as a Python API: tasks x samples through a backend and the harness into a run
directory. `python -m benchmark.run` is a thin CLI over `run()`."""

from __future__ import annotations

import datetime as dt
import logging
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from tqdm import tqdm

from benchmark import metrics
from benchmark.extract import extract_code
from benchmark.harness import EvalConfig, TaskError, evaluate
from benchmark.models import GenerationRequest, get_backend
from benchmark.rundir import RunDir, gpu_environment
from benchmark.suite import load_suite
from benchmark.task import Task
from benchmark.verdict import Status, Verdict

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SamplingParams:
    samples: int = 1  # K completions per task
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 8192
    seed: int | None = None


@dataclass(frozen=True)
class RunConfig:
    model: str
    out: Path
    suite: str | None = None  # a folder of task files; None is the built-in suite
    levels: tuple[int, ...] = ()
    tasks: tuple[str, ...] = ()  # glob patterns on task id or file name
    tags: tuple[str, ...] = ()
    sampling: SamplingParams = field(default_factory=SamplingParams)
    eval: EvalConfig = field(default_factory=EvalConfig)
    ks: tuple[int, ...] = (1,)
    command: str = ""
    progress: bool = True


def select_tasks(config: RunConfig) -> tuple[list[Task], str, list[str]]:
    suite = load_suite(config.suite)
    chosen = suite.select(list(config.levels), list(config.tags), list(config.tasks))
    return chosen, suite.version, list(suite.errors)


def _turn_one_requests(tasks: list[Task], k: int, done: set[tuple[str, int]]) -> list[GenerationRequest]:
    return [GenerationRequest(task=t, sample=s) for t in tasks for s in range(k) if (t.task_id, s) not in done]


def summarize(verdicts: list[Verdict], ks: tuple[int, ...]) -> dict:
    per_level = metrics.compute_by_level(verdicts, ks)
    statuses: dict[str, int] = {}
    for v in metrics.final_turns(verdicts):
        statuses[v.status.value] = statuses.get(v.status.value, 0) + 1
    return {"metrics": {name: m.to_dict() for name, m in per_level.items()}, "statuses": statuses}


def format_table(summary: dict) -> str:
    head = f"{'scope':<10} {'tasks':>5} {'samples':>7} {'pass@1':>7} {'fast_1':>7} {'fast_1.5':>8} {'faster':>7} {'geomean':>8}"
    rows = [head, "-" * len(head)]
    for scope, m in summary["metrics"].items():
        geo = f"{m['geomean_speedup']:.3f}" if m["geomean_speedup"] else "-"
        p1 = m["pass_at_k"].get("1")
        rows.append(
            f"{scope:<10} {m['tasks']:>5} {m['samples']:>7} {(f'{p1:.3f}' if p1 is not None else '-'):>7} "
            f"{m['fast_p']['1.0']:>7.3f} {m['fast_p']['1.5']:>8.3f} {m['faster_rate']:>7.3f} {geo:>8}"
        )
    rows.append("statuses: " + ", ".join(f"{k}={v}" for k, v in sorted(summary["statuses"].items())))
    return "\n".join(rows)


def run(config: RunConfig) -> dict:
    """Evaluate every (task, sample) not already in the run directory; return the summary."""
    backend = get_backend(config.model)
    tasks, suite_version, suite_errors = select_tasks(config)
    for err in suite_errors:
        log.error("task skipped: %s", err)
    if not tasks:
        raise ValueError("no task matches the selection")
    rundir = RunDir(config.out)
    rundir.write_run_info(
        {
            "command": config.command or " ".join(sys.argv),
            "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "model": config.model,
            "backend": backend.describe(),
            "sampling": asdict(config.sampling),
            "device": config.eval.device,
            "baseline": config.eval.baseline,
            "strict": config.eval.strict and not backend.trusted,
            "suite": config.suite or "builtin",
            "suite_version": suite_version,
            "tasks": [t.task_id for t in tasks],
            "environment": gpu_environment(),
        }
    )
    existing = rundir.load_verdicts()
    done = {(v.task_id, v.sample) for v in existing}
    requests = _turn_one_requests(tasks, config.sampling.samples, done)
    eval_cfg = replace(config.eval, strict=config.eval.strict and not backend.trusted)
    verdicts = list(existing)
    broken: dict[str, str] = {}
    bar = tqdm(total=len(tasks) * config.sampling.samples, initial=len(done), disable=not config.progress, unit="sample")
    correct = sum(v.correct for v in metrics.final_turns(existing))
    faster = sum(bool(v.correct and v.speedup and v.speedup > 1) for v in metrics.final_turns(existing))
    try:
        for completion in backend.generate(requests):
            req = completion.request
            bar.set_description(req.task.task_id)
            if req.task.task_id in broken:
                bar.update(1)
                continue
            if completion.error:
                verdict = Verdict(
                    task_id=req.task.task_id, status=Status.NO_CODE, sample=req.sample, turn=req.turn,
                    level=req.task.level, model=config.model, error=completion.error, device=eval_cfg.device,
                )
            else:
                extraction = extract_code(completion.text)
                try:
                    verdict = evaluate(req.task, extraction.code, eval_cfg, sample=req.sample, turn=req.turn, model=config.model)
                except TaskError as e:
                    broken[req.task.task_id] = str(e)
                    log.error("task %s (%s) is broken, skipping its samples: %s", req.task.task_id, req.task.path, e)
                    bar.update(1)
                    continue
                if verdict.status is Status.NO_CODE:
                    verdict = replace(verdict, error=extraction.reason)
            rundir.append(verdict)
            verdicts.append(verdict)
            correct += verdict.correct
            faster += bool(verdict.correct and verdict.speedup and verdict.speedup > 1)
            bar.update(1)
            bar.set_postfix(correct=correct, faster=faster)
    finally:
        bar.close()
        summary = summarize(verdicts, config.ks)
        summary.update(
            model=config.model, suite_version=suite_version, broken_tasks=broken,
            finished=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        )
        rundir.write_summary(summary)
    return summary
