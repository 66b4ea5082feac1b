"""The repair stage, for teachers without turns: mutants of kept solutions (repair.mutate), on a
seeded choice of tasks and parents, verified like any candidate and journalled in mutants.jsonl;
assembly turns the rejected ones into repair samples. A parent mutated before is not mutated again."""

from __future__ import annotations

import random
from collections import defaultdict

from benchmark.verdict import Verdict
from datasets_builder.filter import kept
from datasets_builder.repair import mutate
from datasets_builder.stages.context import BuildContext
from datasets_builder.teachers.base import Candidate


def run(ctx: BuildContext) -> None:
    cfg = ctx.config.repair
    if cfg.mutations_per_task <= 0 or cfg.max_tasks <= 0 or ctx.budget.out_of_time():
        return
    by_task: dict[str, list[Candidate]] = defaultdict(list)
    for r in ctx.journals.verdicts.values():
        c = Candidate.from_dict(r["candidate"])
        if kept(Verdict.from_dict(r["verdict"])) and not c.teacher.startswith("model:"):
            by_task[c.task_id].append(c)
    rng = random.Random(f"repair:{ctx.config.seed}")
    tasks = sorted(by_task)
    rng.shuffle(tasks)
    done_parents = {r["candidate"]["parent"] for r in ctx.journals.mutants.values()}
    bar = ctx.bar(desc="repair", unit="mutant", total=0)
    flt = ctx.rejection_filter(ctx.journals.mutants, bar)
    for tid in tasks[: cfg.max_tasks]:
        if ctx.budget.out_of_time():
            break
        parents = sorted(by_task[tid], key=lambda c: c.candidate_id)
        task_rng = random.Random(f"repair:{ctx.config.seed}:{tid}")
        for parent in task_rng.sample(parents, min(cfg.mutations_per_task, len(parents))):
            if parent.candidate_id in done_parents:
                continue
            mutant = mutate(parent, task_rng)
            if mutant is not None:
                flt.submit(mutant)
    flt.wait()
    bar.close()
