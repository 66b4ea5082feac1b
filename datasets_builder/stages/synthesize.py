"""The synthesize stage: generated task files (variants, compositions, blocks), imported task
folders and the tasks of earlier revisions (prior.py), written under OUT/tasks/levelN/ and
journalled in synth.jsonl; imported sources' licence files are copied to OUT/sources/ (published
with the dataset). Runs once per build."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from datasets_builder import synth_blocks, synth_compose, synth_variants
from datasets_builder.config import BuildConfig
from datasets_builder.importer import SourceRecord, import_folder
from datasets_builder.prior import prior_tasks, revision
from datasets_builder.stages.context import BuildContext
from datasets_builder.task_source import TaskSpec, render


def synthesized(config: BuildConfig) -> list[TaskSpec]:
    """The generated tasks of a build config, in the order they are written (a generator's seed
    defaults to the build's): what the screen stage then deduplicates and decontaminates."""
    cfg, seed, size = config.synthesis, config.seed, config.size
    return [
        *synth_variants.generate(replace(cfg.variants, seed=cfg.variants.seed or seed), size),
        *synth_compose.generate(replace(cfg.compose, seed=cfg.compose.seed or seed), size),
        *synth_blocks.generate(replace(cfg.blocks, seed=cfg.blocks.seed or seed), size),
    ]


def run(ctx: BuildContext) -> None:
    if ctx.state.done("synthesize"):
        return
    cfg = ctx.config.synthesis
    specs = synthesized(ctx.config)
    bar = ctx.bar(total=len(specs), desc="synthesize", unit="task")
    for spec in specs:
        info = {
            "family": spec.family,
            "level": spec.level,
            "dtype": spec.dtype,
            "ops": list(spec.ops),
            "origin": "synthesized",
        }
        _write_task(ctx, Path(f"level{spec.level}") / f"{spec.name}.py", render(spec), info)
        bar.update(1)
    bar.close()
    imported, errors, sources = 0, [], []
    for imp in cfg.imports:
        result = import_folder(imp)
        errors += result.errors
        sources.append(_keep_license(ctx.out, result.record))
        for t in result.tasks:
            level = t.level if t.level is not None else 0
            info = {"family": "imported", "level": t.level, "dtype": None, "ops": [], "origin": t.origin}
            _write_task(ctx, Path(f"level{level}") / f"{t.name}.py", t.source, info)
            imported += 1
    earlier = 0
    for source in cfg.datasets:
        origin = f"dataset:{revision(source.path)}"
        for t in prior_tasks(source):
            level = int(t.task_id.split("/")[0].removeprefix("level"))
            info = {"family": t.family, "level": level, "dtype": None, "ops": [], "origin": origin}
            _write_task(ctx, Path(f"{t.task_id}.py"), t.code, info)
            earlier += 1
    ctx.state.mark_done(
        "synthesize",
        {
            "synthesized": len(specs),
            "imported": imported,
            "from_datasets": earlier,
            "import_errors": errors,
            "sources": sources,
        },
    )


def _keep_license(out: Path, record: SourceRecord) -> dict:
    """The source's record, its licence file copied to OUT/sources/."""
    info = record.to_dict()
    if record.license_file:
        copy = out / "sources" / f"{record.name}-{Path(record.license_file).name}"
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(record.license_file, copy)
        info["license_file"] = copy.relative_to(out).as_posix()
    return info


def _write_task(ctx: BuildContext, rel: Path, source: str, info: dict) -> None:
    path = ctx.pool_root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != source:
        path.write_text(source)
    task_id = rel.with_suffix("").as_posix()
    if task_id not in ctx.journals.synth:
        ctx.journals.synth.append({"task_id": task_id, "path": rel.as_posix(), **info})
