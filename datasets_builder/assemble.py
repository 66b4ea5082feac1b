"""From a build's journals to dataset rows and statistics.

Kept solutions (pass under the strict verifier) are screened once more against the suite (the
decontamination audit of solutions), pooled per task and clustered (rft.py); the drawn targets
become the `sft` rows, the whole pool the `rft` rows. Repair conversations come from model
teachers' turns and from verified mutants (repair.py). Every valid task gives an `rl_prompts`
row, solved or not. The statistics (counts per level and family, pass rates, skip reasons, the
speedup distribution of the timed subset, the audits, time taken) feed the card and the JSON log."""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field

from benchmark.metrics import FASTER_RATE_THRESHOLD, is_faster
from benchmark.stats import geomean, quantile
from benchmark.task import Task
from benchmark.verdict import Verdict
from datasets_builder.decontam import SuiteIndex, screen
from datasets_builder.filter import kept
from datasets_builder.metadata import TaskMetadata
from datasets_builder.prior import PRIOR_VARIANT
from datasets_builder.prompting import PromptOptions, answer, first_turn
from datasets_builder.repair import RepairSample, model_samples, mutation_sample
from datasets_builder.rft import Solution, build_pool
from datasets_builder.schema import CONFIGS, row
from datasets_builder.teachers.base import Candidate


@dataclass
class BuildData:
    """What the journals hold, keyed for assembly."""

    tasks: dict[str, Task]  # screened tasks that were processed
    info: dict[str, dict]  # task id -> family, level, dtype, ops, origin
    records: dict[str, dict]  # task id -> worker record (validation report, metadata, candidates, skips)
    verdicts: dict[str, tuple[Candidate, Verdict]]  # candidate id -> (candidate, verdict)
    mutants: dict[str, tuple[Candidate, Verdict]] = field(default_factory=dict)
    timing: dict[str, Verdict] = field(default_factory=dict)  # candidate id -> timed verdict

    def metadata(self, task_id: str) -> TaskMetadata | None:
        m = self.records.get(task_id, {}).get("metadata")
        return TaskMetadata.from_dict(m) if m else None

    def valid(self) -> list[str]:
        return sorted(t for t, r in self.records.items() if r.get("valid") and t in self.tasks)


def _speedup(data: BuildData, candidate_id: str, verdict: Verdict) -> float | None:
    timed = data.timing.get(candidate_id)
    if timed is not None and kept(timed) and timed.speedup is not None:
        return timed.speedup
    return verdict.speedup


def _task_columns(data: BuildData, task_id: str) -> dict:
    task, info = data.tasks[task_id], data.info.get(task_id, {})
    meta = data.metadata(task_id)
    report = data.records.get(task_id, {}).get("report") or {}
    ref = report.get("reference") or {}
    return {
        "task_id": task_id,
        "level": task.level,
        "family": info.get("family"),
        "dtype": task.dtype,
        "task_code": task.source,
        "flops": meta.flops if meta else None,
        "bytes": meta.bytes if meta else None,
        "sol_ms": meta.sol_ms if meta else None,
        "reference_ms": ref.get("median_ms"),
        "metadata": json.dumps(meta.to_dict()) if meta else None,
    }


def _prompt(builder, data: BuildData, task_id: str, options: PromptOptions) -> tuple[dict, ...]:
    return first_turn(builder, data.tasks[task_id], data.metadata(task_id), options)


def _source(c: Candidate) -> str:
    """Where a pooled solution came from: this build's teacher, or an earlier revision (prior.py):
    `prior:REVISION`, a value schema.py's table (rendered into the published card) does not list yet,
    since the published revision has none."""
    if c.variant == PRIOR_VARIANT:
        return f"prior:{c.info.get('prior', '?')}"
    return f"generation:{c.teacher}"


def _answer_text(c: Candidate) -> str:
    if c.teacher.startswith("model:") and c.turn == 1 and c.completion:
        return c.completion
    return answer(c.code or "")


def assemble(
    data: BuildData,
    options: PromptOptions,
    suite_index: SuiteIndex,
    m: int,
    rft_threshold: float,
    seed: int,
    program_threshold: float,
    model_threshold: float,
) -> tuple[dict[str, list[dict]], dict]:
    """Rows of every configuration (schema.CONFIGS), and the statistics of the solutions side of the build."""
    builder = options.builder()
    valid = set(data.valid())
    passing = {
        cid: (c, v) for cid, (c, v) in data.verdicts.items() if kept(v) and c.task_id in valid and c.code
    }
    matches, solution_audit = screen(
        ((cid, c.code) for cid, (c, _) in sorted(passing.items())),
        suite_index,
        program_threshold,
        model_threshold,
        kind="solutions",
    )
    clean = {mt.item_id for mt in matches if not mt.contaminated}
    solutions = [
        Solution(cid, c.task_id, c.code, _speedup(data, cid, v))
        for cid, (c, v) in sorted(passing.items())
        if cid in clean
    ]
    pool = build_pool(solutions, m, seed, rft_threshold)
    prompts = {t: _prompt(builder, data, t, options) for t in sorted(valid)}
    rows: dict[str, list[dict]] = {s: [] for s in CONFIGS}
    for entry in pool:
        c, v = passing[entry.solution.candidate_id]
        common = dict(
            _task_columns(data, c.task_id),
            source=_source(c),
            backend=options.backend,
            teacher=c.teacher,
            solution=c.code,
            candidate_id=entry.solution.candidate_id,
            speedup=entry.solution.speedup,
            verified=True,
            cluster=entry.cluster,
            clusters=entry.clusters,
            pool_size=entry.pool_size,
            selected=entry.selected,
            draw_rank=entry.draw_rank,
            turns=1,
            messages=[*prompts[c.task_id], {"role": "assistant", "content": _answer_text(c)}],
        )
        rows["rft"].append(row(**common))
        if entry.selected:
            rows["sft"].append(row(**common))
    repairs: list[RepairSample] = model_samples(
        (c for c, _ in data.verdicts.values()), {cid: v for cid, (_, v) in data.verdicts.items()}
    )
    for _, (mutant, verdict) in sorted(data.mutants.items()):
        parent = data.verdicts.get(mutant.parent or "")
        if parent is None or mutant.task_id not in valid or (mutant.parent or "") not in clean:
            continue
        sample = mutation_sample(builder, prompts[mutant.task_id], mutant, verdict, parent[0])
        if sample is not None:
            repairs.append(sample)
    for r in repairs:
        if r.task_id not in valid:
            continue
        fixed = data.verdicts.get(r.fixed_candidate)
        rows["repair"].append(
            row(
                **_task_columns(data, r.task_id),
                messages=list(r.messages),
                source=r.source,
                backend=options.backend,
                teacher=r.teacher,
                solution=fixed[0].code if fixed else None,
                candidate_id=r.fixed_candidate,
                verified=True,
                turns=r.turns,
                failed_status=r.failed_status,
            )
        )
    tried = Counter(c.task_id for c, _ in data.verdicts.values() if not c.teacher == "mutation")
    solved = Counter(c.task_id for c, v in data.verdicts.values() if kept(v))
    for t in sorted(valid):
        rows["rl_prompts"].append(
            row(
                **_task_columns(data, t),
                messages=list(prompts[t]),
                source="prompt",
                backend=options.backend,
                teacher_pass_rate=(solved[t] / tried[t]) if tried[t] else None,
                turns=0,
            )
        )
    stats = solution_stats(data, valid, passing, clean, pool, repairs)
    stats["decontamination_solutions"] = solution_audit.to_dict()
    return rows, stats


def speedup_summary(verdicts: list[Verdict]) -> dict:
    """Speedups of the timed kept solutions; "faster" by the benchmark's own noise-aware rule."""
    if not verdicts:
        return {"timed": 0}
    values = [v.speedup for v in verdicts]
    edges = [0.0, 0.5, 0.8, 1.0, 1.1, 1.5, 2.0, 4.0, math.inf]
    hist = {}
    for lo, hi in zip(edges, edges[1:], strict=False):
        label = f"{lo:g}-{hi:g}x" if hi != math.inf else f">={lo:g}x"
        hist[label] = sum(lo <= v < hi for v in values)
    return {
        "timed": len(values),
        "median": quantile(values, 0.5),
        "geomean": geomean(values),
        "p10": quantile(values, 0.1),
        "p90": quantile(values, 0.9),
        "min": min(values),
        "max": max(values),
        "faster_than_eager": sum(is_faster(v, 1.0) for v in verdicts) / len(verdicts),
        "faster_1_1x": sum(is_faster(v, FASTER_RATE_THRESHOLD) for v in verdicts) / len(verdicts),
        "histogram": hist,
    }


def solution_stats(data: BuildData, valid: set[str], passing: dict, clean: set[str], pool, repairs) -> dict:
    statuses = Counter(v.status.value for c, v in data.verdicts.values())
    by_teacher: dict[str, Counter] = {}
    for c, v in data.verdicts.values():
        by_teacher.setdefault(c.teacher, Counter())[v.status.value] += 1
    # a task the teacher could not answer at all, by the reason of its first refusal (a task that a
    # retry or another variant did answer is not counted)
    skips = Counter(
        r["skips"][0]["reason"]
        for r in data.records.values()
        if r.get("valid") and r.get("skips") and not r.get("candidates")
    )
    with_solution = {e.solution.task_id for e in pool}
    levels: dict[str, Counter] = {}
    families: dict[str, Counter] = {}
    dtypes: dict[str, Counter] = {}

    def keys(t: str):
        info = data.info.get(t, {})
        dtype = data.tasks[t].dtype if t in data.tasks else info.get("dtype")
        return ((levels, str(info.get("level"))), (families, str(info.get("family"))), (dtypes, str(dtype)))

    for t in data.records:
        for table, key in keys(t):
            table.setdefault(key, Counter())
            table[key]["processed"] += 1
            table[key]["valid"] += t in valid
            table[key]["solved"] += t in with_solution
    tried = Counter(c.task_id for c, _ in data.verdicts.values())
    for t, n in tried.items():
        for table, key in keys(t):
            if key in table:
                table[key]["candidates"] += n
                table[key]["kept"] += sum(1 for c, v in data.verdicts.values() if c.task_id == t and kept(v))
    timed = [v for v in data.timing.values() if kept(v) and v.speedup is not None]
    return {
        "tasks_processed": len(data.records),
        "tasks_valid": len(valid),
        "tasks_invalid": len(data.records) - len(valid),
        "tasks_with_solution": len(with_solution),
        "invalid_reasons": dict(
            Counter(
                (r.get("report") or {}).get("failures", ["?"])[0].split(":", 1)[0]
                for r in data.records.values()
                if not r.get("valid")
            )
        ),
        "candidates": sum(statuses.values()),
        "candidates_by_status": dict(statuses),
        "candidates_by_teacher": {k: dict(v) for k, v in by_teacher.items()},
        "kept_solutions": len(passing),
        "kept_after_decontamination": len(clean),
        "pass_rate": len(passing) / max(sum(statuses.values()), 1),
        "teacher_skips": dict(skips),
        "mutants": dict(Counter(v.status.value for _, v in data.mutants.values())),
        "repair_samples": dict(Counter(r.source for r in repairs)),
        "rft_clusters": dict(Counter(e.clusters for e in pool if e.draw_rank == 0)),
        "by_level": {k: dict(v) for k, v in sorted(levels.items())},
        "by_family": {k: dict(v) for k, v in sorted(families.items())},
        "by_dtype": {k: dict(v) for k, v in sorted(dtypes.items())},
        "speedup": speedup_summary(timed),
    }
