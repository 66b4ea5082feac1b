"""What every stage of a build shares: the config, the output folder, the journals, the budget, the
verifiers, the device, and the lookups built on them (task programs, floors, the suite index)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from benchmark.suite import Suite, load_suite
from benchmark.task import Task, load_task
from benchmark.verdict import Verdict
from datasets_builder.budget import Budget
from datasets_builder.config import BuildConfig
from datasets_builder.decontam import SuiteIndex
from datasets_builder.filter import RejectionFilter, kept
from datasets_builder.prior import PRIOR_VARIANT, PriorSolution, prior_solutions, revision
from datasets_builder.stages.verifiers import Verifiers
from datasets_builder.state import BuildState, Journal
from datasets_builder.teachers.base import Candidate

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Journals:
    """The build's journals under OUT/state/ (state.py), one record per item."""

    synth: Journal  # task id -> the task file written, its family, level, dtype, ops, origin
    screened: Journal  # task id -> kept or why not (duplicate, contaminated, unparsable)
    records: Journal  # task id -> the worker's record (validation report, metadata, candidates)
    verdicts: Journal  # candidate id -> candidate and verdict (teachers' candidates)
    mutants: Journal  # candidate id -> candidate and verdict (mutants of kept solutions)
    timed: Journal  # candidate id -> the timed verdict of the timing subset

    @classmethod
    def open(cls, state: BuildState) -> Journals:
        task = lambda r: r["task_id"]  # noqa: E731
        candidate = lambda r: r["candidate"]["candidate_id"]  # noqa: E731
        return cls(
            synth=state.journal("synth", task),
            screened=state.journal("screen", task),
            records=state.journal("tasks", task),
            verdicts=state.journal("verdicts", candidate),
            mutants=state.journal("mutants", candidate),
            timed=state.journal("timing", lambda r: r["candidate_id"]),
        )


def detect_device(config: BuildConfig, out: Path):
    """The GPU's name and its device profile (for speed-of-light floors), measured and saved under
    OUT/devices when no profile of that GPU is known; ("cpu", None) on CPU builds."""
    if config.device != "cuda":
        return "cpu", None
    import torch

    from benchmark.evaluate.device_profile import load_profile, measure_profile, save_profile

    if not torch.cuda.is_available():
        raise RuntimeError("the build config asks for device cuda, but no CUDA device is visible")
    gpu = torch.cuda.get_device_name()
    devices = out / "devices"
    profile = load_profile(gpu) or load_profile(gpu, devices)
    if profile is None:
        log.info("measuring the %s profile (bandwidth, matrix rates) for speed-of-light floors", gpu)
        profile = measure_profile("cuda")
        save_profile(profile, devices)
    return gpu, profile


@dataclass
class BuildContext:
    config: BuildConfig
    out: Path  # absolute: workers run in folders of their own
    cache: Path  # the verifier's builds and Triton cache, the model completions
    state: BuildState
    journals: Journals
    budget: Budget
    verifiers: Verifiers
    gpu: str
    profile: object | None  # benchmark.evaluate.device_profile.DeviceProfile of the GPU
    offline_teacher: object | None = None  # propose(task, module), run per task, in-process
    model_teacher: object | None = None  # a teachers.model.ModelTeacher-like object
    progress: bool = True
    solved: set[str] = field(default_factory=set)  # tasks with a kept solution
    _tasks: dict[str, Task] = field(default_factory=dict, repr=False)
    _suite: tuple[Suite, SuiteIndex] | None = field(default=None, repr=False)
    _prior: tuple[str, dict[str, list[PriorSolution]]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.solved |= {
            r["candidate"]["task_id"]
            for r in self.journals.verdicts.values()
            if kept(Verdict.from_dict(r["verdict"]))
        }

    def prior_candidates(self, task_id: str) -> list[Candidate]:
        """The verified solutions of this task in the earlier revision `teacher.prior` names, as
        candidates to verify again (none without one)."""
        path = self.config.teacher.prior
        if path is None:
            return []
        if self._prior is None:
            self._prior = (revision(path), prior_solutions(path))
        name, solutions = self._prior
        return [
            Candidate(
                task_id=s.task_id,
                teacher=s.teacher,
                code=s.code,
                variant=PRIOR_VARIANT,
                info={"prior": name, "prior_candidate_id": s.candidate_id},
            )
            for s in solutions.get(task_id, ())
        ]

    @property
    def pool_root(self) -> Path:
        """The folder of the build's task files (OUT/tasks)."""
        return self.out / "tasks"

    def bar(self, **kw) -> tqdm:
        return tqdm(disable=not self.progress, dynamic_ncols=True, **kw)

    def should_stop(self) -> bool:
        """Whether to stop scheduling new tasks (the budget's target or deadline)."""
        return self.budget.should_stop(len(self.solved))

    def task_path(self, task_id: str) -> Path:
        return self.pool_root / self.journals.synth.get(task_id)["path"]

    def task(self, task_id: str) -> Task:
        if task_id not in self._tasks:
            self._tasks[task_id] = load_task(self.task_path(task_id), root=self.pool_root)
        return self._tasks[task_id]

    def sol_ms(self, task_id: str) -> float | None:
        meta = (self.journals.records.get(task_id) or {}).get("metadata")
        return meta.get("sol_ms") if meta else None

    def suite_index(self) -> tuple[Suite, SuiteIndex]:
        """The benchmark suite decontamination compares with, and its index (built once)."""
        if self._suite is None:
            suite = load_suite(self.config.screen.suite)
            self._suite = (suite, SuiteIndex((t.task_id, t.source) for t in suite.tasks))
        return self._suite

    def rejection_filter(self, journal: Journal, bar: tqdm) -> RejectionFilter:
        """A filter through the build's verifier that journals each verdict and counts it on `bar`."""

        def on_verdict(candidate: Candidate, verdict: Verdict) -> None:
            journal.append({"candidate": candidate.to_dict(), "verdict": verdict.to_dict()})
            if journal is self.journals.verdicts and kept(verdict):
                self.solved.add(candidate.task_id)
            bar.update(1)
            bar.set_postfix(kept=len(self.solved))

        def on_submit(candidate: Candidate) -> None:
            bar.total += 1
            bar.refresh()

        return RejectionFilter(self.verifiers.verifier, self.task, self.sol_ms, on_verdict, on_submit)
