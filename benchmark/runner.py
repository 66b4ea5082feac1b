"""The benchmark run as a Python API: tasks x samples (x turns) through a backend and the harness
into a run directory. `python -m benchmark.run` is a thin CLI over `run()`; the multi-turn protocol
is described in benchmark.multiturn.

Every selected task is accounted for in summary.json: a task that could not be evaluated is listed
under `broken_tasks` (task id -> {"stage": "load" | "reference", "level", "reason"}: its file did not
load, or its reference raised or ran out of memory) and counts in the metrics as a task whose
samples are all incorrect, so a suite that mostly failed cannot read as a perfect score."""

from __future__ import annotations

import datetime as dt
import logging
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from tqdm import tqdm

from benchmark import metrics
from benchmark.device_check import require_device
from benchmark.extract import extract_code
from benchmark.harness import EvalConfig, TaskError
from benchmark.manifest import load_manifest, manifest_path_for
from benchmark.models import Completion, get_backend
from benchmark.models.base import BackendOptions, SamplingParams
from benchmark.multiturn import CompletionLog, CompletionRecord, per_turn_metrics, plan_turn
from benchmark.prompts import PromptBuilder, PromptConfig
from benchmark.rundir import RunDir, gpu_environment
from benchmark.suite import LoadFailure, load_suite, resolve_suite
from benchmark.task import Task
from benchmark.verdict import Status, Verdict
from benchmark.verifier import Request, Verifier, VerifierConfig

log = logging.getLogger(__name__)


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
    backend: BackendOptions = field(default_factory=BackendOptions)  # endpoint, concurrency, cache, dtype
    prompt: PromptConfig = field(default_factory=PromptConfig)  # used by backends that take prompts
    turns: int = 1  # at most this many turns per sample, with harness feedback between them
    gpus: tuple[int, ...] | None = None  # devices to evaluate on (one timing lane each); None: all visible
    build_workers: int | None = None  # CPU workers compiling candidates ahead of execution

    def __post_init__(self):
        if self.turns < 1:
            raise ValueError("turns must be at least 1")


def select_tasks(config: RunConfig) -> tuple[list[Task], str, list[LoadFailure]]:
    """The selected tasks, the suite version, and the selected files that could not be loaded."""
    suite = load_suite(config.suite)
    selection = (list(config.levels), list(config.tags), list(config.tasks))
    return suite.select(*selection), suite.version, suite.select_failures(*selection)


def summarize(
    verdicts: list[Verdict], ks: tuple[int, ...], broken: Mapping[str, dict] | None = None, samples_per_task: int = 1
) -> dict:
    """Metrics per scope, statuses and per-turn rates; `broken` (task id -> {"stage", "level",
    "reason"}) is listed as `broken_tasks` and each entry counts as `samples_per_task` failed samples."""
    broken = dict(broken or {})
    per_level = metrics.compute_by_level(
        verdicts, ks, {t: b.get("level") for t, b in broken.items()}, samples_per_task
    )
    statuses: dict[str, int] = {}
    for v in metrics.final_turns(verdicts):
        statuses[v.status.value] = statuses.get(v.status.value, 0) + 1
    return {
        "metrics": {name: m.to_dict() for name, m in per_level.items()},
        "statuses": statuses,
        "broken_tasks": broken,
        "turns": per_turn_metrics(verdicts, ks, {t: b.get("level") for t, b in broken.items()}, samples_per_task),
    }


def _cell(value: float | None, width: int, missing: str = "-") -> str:
    return f"{value:>{width}.3f}" if value is not None else f"{missing:>{width}}"


def format_table(summary: dict) -> str:
    """The printed table; "n/m" marks a speed measure not taken (no correct sample of the scope was timed)."""
    head = f"{'scope':<10} {'tasks':>5} {'samples':>7} {'pass@1':>7} {'fast_1':>7} {'fast_1.5':>8} {'faster':>7} {'geomean':>8}"
    rows = [head, "-" * len(head)]
    for scope, m in summary["metrics"].items():
        timed = m["fast_p"]["1.0"] is not None
        rows.append(
            f"{scope:<10} {m['tasks']:>5} {m['samples']:>7} {_cell(m['pass_at_k'].get('1'), 7)} "
            f"{_cell(m['fast_p']['1.0'], 7, 'n/m')} {_cell(m['fast_p']['1.5'], 8, 'n/m')} "
            f"{_cell(m['faster_rate'], 7, 'n/m')} {_cell(m['geomean_speedup'], 8, '-' if timed else 'n/m')}"
        )
    rows.append("statuses: " + ", ".join(f"{k}={v}" for k, v in sorted(summary["statuses"].items())))
    broken = summary.get("broken_tasks") or {}
    if broken:
        rows.append(f"{len(broken)} task{'s' if len(broken) != 1 else ''} broken, counted as all samples incorrect:")
        for task_id, b in sorted(broken.items()):
            reason = (b.get("reason") or "").strip().splitlines()
            rows.append(f"  {task_id} ({b.get('stage')}): {reason[-1][:160] if reason else 'no reason recorded'}")
    turns = summary.get("turns", {})
    if len(turns) > 1:
        rows.append("after turn: " + "  ".join(
            f"{t}: pass {m['pass_rate']:.3f} fast_1 {_cell(m['fast_1'], 0, 'n/m')} ({m['evaluated']} evaluated)"
            for t, m in turns.items()
        ))
    if "usage" in summary:
        u = summary["usage"]
        rows.append(
            f"tokens: {u['prompt_tokens']} prompt + {u['completion_tokens']} completion over "
            f"{u['completions']} completions ({u['from_cache']} from the cache)"
        )
    return "\n".join(rows)


def _submit(completion: Completion, config: RunConfig, verifier: Verifier, sol_ms: float | None, trusted: bool):
    """Queue one completion for evaluation: (future verdict or an immediate one, extraction reason)."""
    req = completion.request
    if completion.error:
        verdict = Verdict(
            task_id=req.task.task_id, status=Status.NO_CODE, sample=req.sample, turn=req.turn,
            level=req.task.level, model=config.model, error=completion.error, device=config.eval.device,
        )
        return verdict, "backend error"
    extraction = extract_code(completion.text)
    future = verifier.submit_request(
        Request(req.task, extraction.code, sample=req.sample, turn=req.turn, model=config.model, sol_ms=sol_ms,
                trusted=trusted)
    )
    return future, extraction.reason


def _record(completion: Completion, extraction: str) -> CompletionRecord:
    req = completion.request
    return CompletionRecord(
        task_id=req.task.task_id, sample=req.sample, turn=req.turn, text=completion.text, extraction=extraction,
        error=completion.error, prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
        finish_reason=completion.meta.get("finish_reason"), cached=bool(completion.meta.get("cached")),
    )


def run(config: RunConfig) -> dict:
    """Evaluate every (task, sample, turn) not already in the run directory; return the summary."""
    require_device(config.eval.device)
    tasks, suite_version, failures = select_tasks(config)
    if not tasks and not failures:
        raise ValueError("no task matches the selection")
    broken: dict[str, dict] = {}
    for f in failures:
        log.error("task %s is broken (it did not load), counted as failed: %s", f.task_id, f.reason)
        broken[f.task_id] = {"stage": "load", "level": f.level, "reason": f.reason}
    backend = get_backend(config.model, config.sampling, config.backend)
    prompts = PromptBuilder(config.prompt) if backend.uses_prompts else None
    rundir = RunDir(config.out)
    rundir.write_run_info(
        {
            "command": config.command or " ".join(sys.argv),
            "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "model": config.model,
            "backend": backend.describe(),
            "sampling": asdict(config.sampling),
            "turns": config.turns,
            "prompt": prompts.describe() if prompts else None,
            "device": config.eval.device,
            "baseline": config.eval.baseline,
            "timing": config.eval.measure,
            "strict": config.eval.strict and not backend.trusted,
            "suite": config.suite or "builtin",
            "suite_version": suite_version,
            "tasks": [t.task_id for t in tasks],
            "environment": gpu_environment(),
        }
    )
    existing = rundir.load_verdicts()
    completions = CompletionLog(rundir.path)
    eval_cfg = replace(config.eval, strict=config.eval.strict and not backend.trusted)
    manifest = load_manifest(manifest_path_for(resolve_suite(config.suite)))
    gpu_name = (gpu_environment().get("gpu") or None) if eval_cfg.device == "cuda" else None
    sol = {t.task_id: manifest.sol_ms(t, gpu_name) for t in tasks} if gpu_name else {}
    verifier_cfg = VerifierConfig(eval=eval_cfg, gpus=config.gpus)
    if config.build_workers:
        verifier_cfg = replace(verifier_cfg, build_workers=config.build_workers)
    verifier = Verifier(verifier_cfg)
    verdicts = list(existing)
    k = config.sampling.samples
    requests = plan_turn(1, tasks, k, verdicts, completions, prompts, config.turns)
    bar = tqdm(total=len(tasks) * k, initial=len(tasks) * k - len(requests), disable=not config.progress, unit="sample")
    latest = metrics.final_turns(existing)
    correct = sum(v.correct for v in latest)
    faster = sum(bool(v.correct and v.speedup and v.speedup > 1) for v in latest)
    try:
        for turn in range(1, config.turns + 1):
            if turn > 1:
                requests = plan_turn(turn, tasks, k, verdicts, completions, prompts, config.turns, broken)
                bar.total += len(requests)
                if requests:
                    log.info("turn %d: %d sample(s) get another try with feedback", turn, len(requests))
            pending = []
            for completion in backend.generate(requests):
                req = completion.request
                if req.task.task_id in broken:
                    bar.update(1)
                    continue
                outcome, how = _submit(completion, config, verifier, sol.get(req.task.task_id), backend.trusted)
                completions.append(_record(completion, how))
                pending.append((req, outcome, how))
            for req, outcome, how in pending:
                bar.set_description(req.task.task_id)
                try:
                    verdict = outcome if isinstance(outcome, Verdict) else outcome.result()
                except TaskError as e:
                    if req.task.task_id not in broken:
                        broken[req.task.task_id] = {"stage": "reference", "level": req.task.level, "reason": str(e)}
                        log.error("task %s (%s) is broken, skipping its samples: %s", req.task.task_id, req.task.path, e)
                    bar.update(1)
                    continue
                if verdict.status is Status.NO_CODE and verdict.error == "no code to evaluate":
                    verdict = replace(verdict, error=how)  # say why no code was found
                rundir.append(verdict)
                verdicts.append(verdict)
                correct += verdict.correct
                faster += bool(verdict.correct and verdict.speedup and verdict.speedup > 1)
                bar.update(1)
                bar.set_postfix(correct=correct, faster=faster, turn=turn)
    finally:
        bar.close()
        verifier.close(cancel_pending=True)
        summary = summarize(verdicts, config.ks, broken, k)
        summary.update(
            model=config.model, suite_version=suite_version,
            finished=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        )
        usage = completions.usage()
        if usage:
            summary["usage"] = usage
        rundir.write_summary(summary)
    return summary
