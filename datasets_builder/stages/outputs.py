"""The assemble stage: from the journals to the build's outputs, written again on every run.

assemble.py turns the journals into dataset rows and solution statistics; this stage adds the
task manifest (OUT/tasks/manifest.json, floors from the device profile), the build statistics
(OUT/build_stats.json, OUT/stats.md) and the parquet folders with their cards (OUT/dataset and,
when configured, OUT/suite)."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmark.environment import torch_versions
from benchmark.suite import Suite
from benchmark.suite import docs as suite_docs
from benchmark.verdict import Verdict
from datasets_builder.assemble import BuildData, assemble
from datasets_builder.card import stats_markdown
from datasets_builder.config import BuildConfig
from datasets_builder.export import task_rows, write_suite_folder, write_train_folder
from datasets_builder.prior import revision
from datasets_builder.stages.context import BuildContext
from datasets_builder.teachers.base import Candidate

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BuildResult:
    out: Path
    dataset: Path
    suite: Path | None
    stats: dict


def run(ctx: BuildContext) -> BuildResult:
    from benchmark.suite.manifest import Manifest, merge
    from benchmark.suite.validate import TaskReport

    config, j = ctx.config, ctx.journals
    data = BuildData(
        tasks={t: ctx.task(t) for t in j.records.records if t in j.synth},
        info={r["task_id"]: r for r in j.synth.values()},
        records=dict(j.records.records),
        verdicts=_judged(j.verdicts.records),
        mutants=_judged(j.mutants.records),
        timing={r["candidate_id"]: Verdict.from_dict(r["verdict"]) for r in j.timed.values()},
    )
    suite, index = ctx.suite_index()
    rows, solution_stats = assemble(
        data,
        config.prompts,
        index,
        config.rft.m,
        config.rft.threshold,
        config.seed,
        config.screen.program_threshold,
        config.screen.model_threshold,
    )
    valid_tasks = tuple(data.tasks[t] for t in data.valid())
    synth_suite = Suite(root=ctx.pool_root.resolve(), tasks=valid_tasks)
    reports = [TaskReport.from_dict(j.records.get(t.task_id)["report"]) for t in valid_tasks]
    manifest = merge(
        Manifest(), synth_suite, reports, ctx.gpu, ctx.profile, torch_versions(("triton",)), prune=True
    )
    manifest.save(ctx.pool_root / "manifest.json")
    tasks_rows = task_rows(synth_suite, manifest)
    stats = build_stats(ctx, suite, solution_stats)
    # the eager times' device record, so the card's task tables can be rendered again from the rows
    stats["manifest_devices"] = {slug: asdict(run) for slug, run in manifest.devices.items()}
    stats["splits"] = {k: len(v) for k, v in rows.items()} | {"tasks": len(tasks_rows)}
    dataset = write_train_folder(
        ctx.out / "dataset",
        rows,
        tasks_rows,
        stats,
        config.output.name,
        config.output.license,
        config.output.repo,
        task_statistics=suite_docs.statistics(
            list(valid_tasks),
            manifest,
            families={t.task_id: data.info[t.task_id]["family"] for t in valid_tasks},
        ),
        license_files=[ctx.out / s["license_file"] for s in stats["sources"] if s.get("license_file")],
    )
    suite_dir = (
        write_suite_folder(ctx.out / "suite", suite, config.output.license)
        if config.output.export_suite
        else None
    )
    (ctx.out / "build_stats.json").write_text(json.dumps(stats, indent=1, sort_keys=True, default=str) + "\n")
    (ctx.out / "stats.md").write_text(stats_markdown(stats))
    log.info("dataset: %s; %s", dataset, ", ".join(f"{k} {v}" for k, v in stats["splits"].items()))
    return BuildResult(ctx.out, dataset, suite_dir, stats)


def _judged(records: dict[str, dict]) -> dict[str, tuple[Candidate, Verdict]]:
    return {
        cid: (Candidate.from_dict(r["candidate"]), Verdict.from_dict(r["verdict"]))
        for cid, r in records.items()
    }


def build_stats(ctx: BuildContext, suite: Suite, solution_stats: dict) -> dict:
    """The build's statistics (build_stats.json, the card), less the split sizes."""
    config, budget, stages = ctx.config, ctx.budget, ctx.state.stages()
    screen_info = stages.get("screen", {})
    synth_info = stages.get("synthesize", {})
    return {
        "device": ctx.gpu,
        "versions": torch_versions(("triton",)),
        "config": config.to_dict(),
        "time": {
            "total_s": round(budget.elapsed_total(), 1),
            "this_run_s": round(budget.this_run(), 1),
            "runs": budget.runs(),
            "stages_s": {k: round(v, 1) for k, v in budget.seconds.items()},
        },
        "tasks": {
            "candidates": screen_info.get("candidates"),
            "duplicates": screen_info.get("duplicates"),
            "unparsable": screen_info.get("unparsable"),
            "synthesized": synth_info.get("synthesized"),
            "imported": synth_info.get("imported"),
            "from_datasets": synth_info.get("from_datasets", 0),
        },
        "decontamination_tasks": screen_info.get("audit", {}),
        "suite": {
            "version": screen_info.get("suite_version") or suite.version,
            "solutions_version": suite.version,
            "tasks": len(suite.tasks),
        },
        "sources": synth_info.get("sources", []),
        "import_errors": synth_info.get("import_errors", []),
        "solutions": solution_stats,
        "teacher": teacher_info(config, ctx.offline_teacher),
        "rft": {"m": config.rft.m, "threshold": config.rft.threshold},
        "budget": {
            "minutes": config.budget.minutes,
            "target_tasks": config.budget.target_tasks,
            "stopped_early": bool(budget.stop_reason),
            "reason": budget.stop_reason,
            "tasks_not_processed": sum(
                1
                for r in ctx.journals.screened.values()
                if r.get("kept") and r["task_id"] not in ctx.journals.records
            ),
        },
    }


def teacher_info(config: BuildConfig, offline_teacher=None) -> dict:
    """The teacher as the card describes it, and the earlier revision whose solutions joined its own."""
    info = _teacher_kind(config, offline_teacher)
    if config.teacher.prior:
        info["solutions of an earlier revision, verified again"] = revision(config.teacher.prior)
    return info


def _teacher_kind(config: BuildConfig, offline_teacher=None) -> dict:
    t = config.teacher
    if offline_teacher is not None:
        return {"kind": f"offline teacher given in code ({type(offline_teacher).__name__})"}
    if t.kind == "none":
        return {"kind": "none (tasks and prompts only)"}
    if t.kind == "inductor":
        return {
            "kind": "inductor (TorchInductor's Triton code, launched directly from ModelNew)",
            "variants": ", ".join(t.variants),
        }
    return {
        "kind": "model",
        "model": t.model,
        "samples per task": t.samples,
        "turns": t.turns,
        "temperature": t.temperature,
        "top_p": t.top_p,
    }
