"""The build pipeline: configuration in, dataset folders out, resumable at every item.

    python -m datasets_builder build --config configs/datasets/h200_500.yaml --out OUT

Stages (stages/), each with a progress bar and a journal under OUT/state (state.py):
  synthesize  generate task files (variants, compositions, blocks) and import task folders -> OUT/tasks
  screen      normalized-AST deduplication, decontamination against the benchmark suite
  tasks       per task, in worker processes: the suite validator, tensor metadata and, with the
              Inductor teacher, its candidates; every candidate goes to the strict verifier as
              soon as it exists (verification overlaps the remaining tasks)
  teach       with a model teacher: k samples per task, then repair turns with the verifier's feedback
  repair      mutants of verified solutions, verified (teachers without turns)
  timing      a random subset of kept solutions re-verified with timing, one at a time on the device
  assemble    RFT pool, splits, cards, parquet folders (OUT/dataset, OUT/suite), OUT/build_stats.json

A time budget (budget.minutes, budget.py) stops scheduling new tasks, mutants and timings in time
for the rest to finish; a later run with the same OUT continues where the budget (or a kill) stopped it."""

from __future__ import annotations

from pathlib import Path

from datasets_builder.budget import Budget
from datasets_builder.config import BuildConfig
from datasets_builder.stages import mutants, outputs, screen, synthesize, tasks, teach, timing
from datasets_builder.stages.context import BuildContext, Journals, detect_device
from datasets_builder.stages.outputs import BuildResult
from datasets_builder.stages.verifiers import Verifiers
from datasets_builder.state import BuildState

__all__ = ["STAGES", "BuildResult", "Builder", "build"]

# (name in build_stats.json's time.stages_s, stage); the assemble stage runs last and returns the result
STAGES = (
    ("synthesize", synthesize.run),
    ("screen", screen.run),
    ("process_tasks", tasks.run),
    ("teach", teach.run),
    ("repair", mutants.run),
    ("time_subset", timing.run),
)


class Builder:
    def __init__(
        self,
        config: BuildConfig,
        out: str | Path,
        *,
        cache: str | Path | None = None,
        offline_teacher=None,
        model_teacher=None,
        verifier=None,
        timing_verifier=None,
        progress: bool = True,
    ):
        """`cache` holds the verifier's builds and Triton cache and the model completions (default
        OUT/cache); `offline_teacher` (an object with propose(task, module), run per task) and
        `model_teacher` (a teachers.model.ModelTeacher-like object) replace the ones the config builds;
        `verifier` and `timing_verifier` replace the ones made from the config (and are not closed)."""
        out = Path(out).resolve()  # workers run in folders of their own: a relative path would not hold there
        cache = Path(cache).resolve() if cache is not None else out / "cache"
        state = BuildState(out)
        budget = Budget(config.budget, state)  # started first: measuring the device profile counts
        gpu, profile = detect_device(config, out)
        self.ctx = BuildContext(
            config=config,
            out=out,
            cache=cache,
            state=state,
            journals=Journals.open(state),
            budget=budget,
            verifiers=Verifiers(config, cache, verifier, timing_verifier),
            gpu=gpu,
            profile=profile,
            offline_teacher=offline_teacher,
            model_teacher=model_teacher,
            progress=progress,
        )

    def run(self) -> BuildResult:
        budget = self.ctx.budget
        try:
            for name, stage in STAGES:
                with budget.stage(name):
                    stage(self.ctx)
            with budget.stage("assemble"):
                return outputs.run(self.ctx)
        finally:
            self.ctx.verifiers.close()


def build(config: BuildConfig, out: str | Path, **kw) -> BuildResult:
    return Builder(config, out, **kw).run()
