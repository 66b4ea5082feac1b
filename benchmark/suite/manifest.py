"""The suite manifest: what each task costs, measured, per GPU model.

For each task (keyed by id and pinned to the hash of its file) it records the level, dtype, matrix
FLOPs and least bytes, and per GPU the eager reference's median time, its peak memory, the
validator's outcome, the speed-of-light floor and the production baselines timed against the
reference (benchmark.suite.baselines). It lives beside the tasks it describes
(benchmark/tasks/manifest.json for the built-in suite), is written by
`python -m benchmark.suite manifest` on a GPU, and is read by the harness through `sol_ms_for`.
A task whose file changed no longer matches its entry, so stale numbers are never used."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from benchmark.evaluate.device_profile import DeviceProfile, load_profile
from benchmark.evaluate.sol import SolCounts, floor_ms
from benchmark.host import slugify
from benchmark.records import atomic_write_text
from benchmark.task import BUILTIN_SUITE, Task

if TYPE_CHECKING:
    from benchmark.suite.catalog import Suite
    from benchmark.suite.validate import TaskReport

SCHEMA_VERSION = 1
MANIFEST_NAME = "manifest.json"
MANIFEST_PATH = BUILTIN_SUITE / MANIFEST_NAME
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BaselineTiming:
    """One production baseline (benchmark.suite.baselines) timed against the eager reference."""

    ms: float  # median per-call time under the timing protocol
    speedup: float  # eager / baseline: the median of the per-round ratios, as a verdict's speedup
    spread: float | None  # (max - min) / median of that ratio over blocks of rounds


@dataclass(frozen=True)
class GpuRecord:
    """One task measured on one GPU model."""

    reference_ms: float | None  # median of the eager reference under the harness's timing protocol
    reference_rel_err: float | None
    peak_memory_bytes: int | None
    sol_ms: float | None  # the floor: max(bytes / bandwidth, FLOPs / matrix rate)
    valid: bool  # passed every validator check on this GPU
    failures: tuple[str, ...] = ()
    measured: str = ""  # ISO date
    # production baselines (benchmark.suite.baselines) timed against the eager reference on this GPU;
    # absent from manifests written before they were measured
    baselines: dict[str, BaselineTiming] = field(default_factory=dict)
    baselines_dropped: dict[str, str] = field(default_factory=dict)  # name -> why it was left out
    best_baseline: str | None = None  # the fastest of `baselines`

    @property
    def best(self) -> tuple[str, BaselineTiming] | None:
        """(name, timing) of the fastest baseline, or None when none was measured."""
        if self.best_baseline is None or self.best_baseline not in self.baselines:
            return None
        return self.best_baseline, self.baselines[self.best_baseline]

    @property
    def sol_fraction(self) -> float | None:
        """How close the eager reference comes to the floor (1.0 = at the speed of light)."""
        if self.sol_ms is None or not self.reference_ms:
            return None
        return self.sol_ms / self.reference_ms


@dataclass(frozen=True)
class TaskEntry:
    hash: str  # sha256 of the task file the numbers belong to
    level: int | None
    dtype: str
    flops: int | None
    bytes: int | None
    gpus: dict[str, GpuRecord] = field(default_factory=dict)  # keyed by device slug


@dataclass(frozen=True)
class DeviceRun:
    """The latest manifest run on one GPU model, and the profile its floors came from."""

    gpu: str
    date: str
    suite_version: str
    torch: str
    cuda: str
    tasks: int  # tasks with a measurement on this GPU, after the latest run
    failed: int  # of which failed validation
    profile: dict | None = None


@dataclass(frozen=True)
class Manifest:
    suite_version: str = ""
    updated: str = ""
    tasks: dict[str, TaskEntry] = field(default_factory=dict)
    devices: dict[str, DeviceRun] = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        return {"schema": SCHEMA_VERSION, **d}

    @classmethod
    def from_dict(cls, d: dict) -> Manifest:
        if d.get("schema") != SCHEMA_VERSION:
            raise ValueError(f"manifest schema {d.get('schema')!r} is not {SCHEMA_VERSION}; regenerate it")
        tasks = {
            tid: TaskEntry(
                **{k: v for k, v in e.items() if k != "gpus"},
                gpus={s: _gpu_record(g) for s, g in e["gpus"].items()},
            )
            for tid, e in d.get("tasks", {}).items()
        }
        devices = {s: DeviceRun(**r) for s, r in d.get("devices", {}).items()}
        return cls(
            suite_version=d.get("suite_version", ""),
            updated=d.get("updated", ""),
            tasks=tasks,
            devices=devices,
        )

    def best_baseline(self, task: Task, gpu_name: str | None) -> tuple[str, BaselineTiming] | None:
        """The task's fastest production baseline on `gpu_name`, measured on this very file."""
        e = self.entry(task) if gpu_name else None
        rec = e.gpus.get(slugify(gpu_name)) if e is not None and gpu_name else None
        return rec.best if rec is not None else None

    def save(self, path: Path) -> Path:
        return atomic_write_text(path, json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n")

    def entry(self, task: Task) -> TaskEntry | None:
        """The task's entry, if it was measured on this very file."""
        e = self.tasks.get(task.task_id)
        return e if e is not None and e.hash == task.hash else None

    def sol_ms(self, task: Task, gpu_name: str | None, profiles_dir: Path | None = None) -> float | None:
        if not gpu_name:
            return None
        e = self.entry(task)
        if e is None:
            return None
        rec = e.gpus.get(slugify(gpu_name))
        if rec is not None and rec.sol_ms is not None:
            return rec.sol_ms
        # Counted on another GPU, but this GPU has a profile: the floor follows from the counts.
        if e.flops is None or e.bytes is None:
            return None
        profile = load_profile(gpu_name) if profiles_dir is None else load_profile(gpu_name, profiles_dir)
        return floor_ms(SolCounts(e.flops, e.bytes), profile, e.dtype) if profile else None


def _gpu_record(g: dict) -> GpuRecord:
    return GpuRecord(
        **{
            **g,
            "failures": tuple(g.get("failures", ())),
            "baselines": {n: BaselineTiming(**b) for n, b in g.get("baselines", {}).items()},
        }
    )


def recount(
    manifest: Manifest, tasks: list[Task], profiles: dict[str, DeviceProfile], seed: int = 0
) -> tuple[Manifest, dict[str, tuple[int | None, int]]]:
    """Count each task's least bytes again on this machine's CPU (they need no GPU: the validator's
    seeds, inputs built on the CPU) and refresh every profiled GPU's floor from them, keeping what
    was measured there (FLOPs, times, validity). For a change of the byte model
    (benchmark.evaluate.sol) without a GPU. FLOPs stay: torch counts attention differently on the
    CPU (its math path) and the GPU (a fused kernel's formula, or none where that asserts), and a
    floor raised by a CPU count could flag an honest kernel. Bytes of tasks drawn at random
    (indices) may differ from a GPU count by what the two generators draw. Returns the manifest
    and, per task whose bytes changed, its bytes before and after."""
    import torch

    from benchmark.evaluate import sol
    from benchmark.evaluate.program import TaskProgram, clone_args
    from benchmark.task import import_file

    entries, changed = dict(manifest.tasks), {}
    for task in tasks:
        entry = manifest.entry(task)
        if entry is None:
            continue
        program = TaskProgram(import_file(task.path, f"solbench_recount_{task.name}"), torch.device("cpu"))
        counted, _ = sol.count(
            program.build(program.module.Model, seed), clone_args(program.inputs(seed + 1000))
        )
        if counted.bytes == entry.bytes:
            continue
        counts = SolCounts(entry.flops or 0, counted.bytes)
        changed[task.task_id] = (entry.bytes, counted.bytes)
        gpus = {
            slug: dataclasses.replace(rec, sol_ms=floor_ms(counts, profiles[slug], entry.dtype))
            if slug in profiles and rec.sol_ms is not None
            else rec
            for slug, rec in entry.gpus.items()
        }
        entries[task.task_id] = dataclasses.replace(entry, bytes=counted.bytes, gpus=gpus)
    return dataclasses.replace(manifest, tasks=entries), changed


def manifest_path_for(suite_root: Path) -> Path:
    return Path(suite_root) / MANIFEST_NAME


def load_manifest(path: Path = MANIFEST_PATH) -> Manifest:
    """The manifest at `path`, or an empty one when the suite has none yet."""
    path = Path(path)
    if not path.is_file():
        return Manifest()
    return _load_cached(path.resolve(), path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _load_cached(path: Path, mtime_ns: int) -> Manifest:
    return Manifest.from_dict(json.loads(path.read_text()))


def sol_ms_for(task: Task, gpu_name: str | None, manifest: Manifest | None = None) -> float | None:
    """The task's speed-of-light time in ms on `gpu_name` (e.g. "NVIDIA H200"), or None when unknown:
    no GPU, the task is not in the manifest, its file changed since, or the GPU was never profiled.
    `manifest` defaults to the built-in suite's."""
    return (manifest if manifest is not None else load_manifest()).sol_ms(task, gpu_name)


def merge(
    manifest: Manifest,
    suite: Suite,
    reports: list[TaskReport],
    gpu_name: str,
    profile: DeviceProfile | None,
    environment: dict[str, str] | None = None,
    prune: bool = True,
) -> Manifest:
    """Fold one validation run on `gpu_name` into the manifest; entries of tasks that changed are
    replaced, and (with `prune`) entries of tasks no longer in the suite are dropped."""
    today = dt.datetime.now(dt.UTC).date().isoformat()
    slug = slugify(gpu_name)
    by_id = {t.task_id: t for t in suite.tasks}
    tasks = dict(manifest.tasks)
    measured = 0
    for r in reports:
        task = by_id.get(r.task_id)
        if task is None or r.skipped is not None:  # not measured on this GPU: it lacks what the task needs
            continue
        old = manifest.entry(task)
        flops = r.flops if r.flops is not None else (old.flops if old else None)
        nbytes = r.bytes if r.bytes is not None else (old.bytes if old else None)
        sol_ms = None
        if profile is not None and flops is not None and nbytes is not None:
            sol_ms = floor_ms(SolCounts(flops, nbytes), profile, task.dtype)
        gpus = dict(old.gpus) if old else {}
        kept = old.gpus.get(slug) if old else None
        report = r.baselines
        gpus[slug] = GpuRecord(
            reference_ms=r.reference.median_ms if r.reference else None,
            reference_rel_err=r.reference.rel_err if r.reference else None,
            peak_memory_bytes=r.peak_memory_bytes,
            sol_ms=sol_ms,
            valid=r.ok,
            failures=r.failures,
            measured=today,
            # a pass without baselines (--no-baselines, or on the CPU) keeps what an earlier one measured
            baselines=report.timed if report else (kept.baselines if kept else {}),
            baselines_dropped=report.dropped if report else (kept.baselines_dropped if kept else {}),
            best_baseline=report.best if report else (kept.best_baseline if kept else None),
        )
        tasks[task.task_id] = TaskEntry(
            hash=task.hash, level=task.level, dtype=task.dtype, flops=flops, bytes=nbytes, gpus=gpus
        )
        measured += 1
    if prune:
        gone = sorted(set(tasks) - set(by_id))
        for tid in gone:
            del tasks[tid]
        if gone:
            log.info("dropped %d manifest entries of tasks no longer in the suite", len(gone))
    env = environment or {}
    on_gpu = [e.gpus[slug] for e in tasks.values() if slug in e.gpus]
    devices = dict(manifest.devices)
    devices[slug] = DeviceRun(
        gpu=gpu_name,
        date=today,
        suite_version=suite.version,
        torch=env.get("torch", ""),
        cuda=env.get("cuda", ""),
        tasks=len(on_gpu),
        failed=sum(not g.valid for g in on_gpu),
        profile=profile.to_dict() if profile else None,
    )
    log.info("merged %d measurements on %s; the manifest holds %d tasks", measured, gpu_name, len(tasks))
    return Manifest(suite_version=suite.version, updated=today, tasks=tasks, devices=devices)
