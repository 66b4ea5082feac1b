"""The screen stage: normalized-AST deduplication (dedup.py) and decontamination against the
benchmark suite (decontam.py) of every synthesized or imported task, each journalled in
screen.jsonl as kept or not, and why. Runs once per build."""

from __future__ import annotations

from dataclasses import asdict

from datasets_builder.decontam import screen
from datasets_builder.dedup import deduplicate
from datasets_builder.stages.context import BuildContext


def run(ctx: BuildContext) -> None:
    if ctx.state.done("screen"):
        return
    journal = ctx.journals.screened
    items = [(r["task_id"], (ctx.pool_root / r["path"]).read_text()) for r in ctx.journals.synth.values()]
    dedup = deduplicate(items)
    suite, index = ctx.suite_index()
    sources = dict(items)
    matches, audit = screen(
        ctx.bar(iterable=[(k, sources[k]) for k in dedup.kept], desc="screen", unit="task"),
        index,
        ctx.config.screen.program_threshold,
        ctx.config.screen.model_threshold,
    )
    for tid in dedup.unparsable:
        journal.append({"task_id": tid, "kept": False, "reason": "unparsable"})
    for tid, first in dedup.duplicates.items():
        journal.append({"task_id": tid, "kept": False, "reason": "duplicate", "duplicate_of": first})
    for m in matches:
        journal.append(
            {
                "task_id": m.item_id,
                "kept": not m.contaminated,
                "reason": "contaminated" if m.contaminated else "",
                **asdict(m),
            }
        )
    ctx.state.mark_done(
        "screen",
        {
            "candidates": len(items),
            "duplicates": len(dedup.duplicates),
            "unparsable": len(dedup.unparsable),
            "audit": audit.to_dict(),
            "suite": str(suite.root),
            "suite_version": suite.version,
        },
    )
