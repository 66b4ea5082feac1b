"""Helpers of the dataset builder tests: tiny sizes (a task's forward takes microseconds on a CPU),
small task files, an imported source with its licence, a verifier that judges candidates without
running them, an offline teacher, and the tiny CPU build they make together."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path

from benchmark.task import Task, load_task
from benchmark.verdict import Status, TimingStats, Verdict
from datasets_builder.build import Builder, BuildResult
from datasets_builder.config import (
    BuildConfig,
    OutputConfig,
    RepairConfig,
    SynthesisConfig,
    TeacherConfig,
    TimingStageConfig,
    ValidationStageConfig,
)
from datasets_builder.importer import ImportConfig
from datasets_builder.sizing import SizeConfig
from datasets_builder.synth_blocks import BlockConfig
from datasets_builder.synth_compose import ComposeConfig
from datasets_builder.synth_variants import VariantConfig
from datasets_builder.teachers.base import Candidate, Skip

SCALE_TASK = '''"""Scale and shift of a small input."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "float32", "difficulty": 1}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2.0 + 1.0


def get_inputs():
    return [torch.randn(16, 8)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(5, 3)]]
'''


MIT = """MIT License

Copyright (c) 2026 Kernel Task Authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.
"""
SOURCE_URL = "https://github.com/example/kernel-tasks"
SOURCE_REVISION = "0123456789abcdef0123456789abcdef01234567"


def licensed_source(folder: Path, license_text: str = MIT, **kw) -> ImportConfig:
    """A folder of one KernelBench-format task with a licence file, and its import config."""
    folder = Path(folder)
    make_task(folder, "scale_shift")
    (folder / "LICENSE").write_text(license_text)
    values = dict(path=str(folder), prefix="ext", license="MIT", url=SOURCE_URL, revision=SOURCE_REVISION)
    return ImportConfig(**(values | kw))


def make_task(folder: Path, name: str = "scale", source: str = SCALE_TASK) -> Task:
    path = Path(folder) / "level1" / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return load_task(path, root=Path(folder))


TINY = SizeConfig(
    target_ms=0.001,
    widths=(8, 12, 16),
    batches=(2,),
    min_rows=16,
    max_rows=32,
    row_multiple=8,
    alt_rows=(5, 7),
    alt_batches=(2, 1),
    alt_widths=(6, 10),
)
BROKEN = "# BROKEN"


def plain_candidate(task_source: str, broken: bool = False) -> str:
    """A plain-PyTorch candidate: the task's own Model renamed ModelNew (legal only without strict rules)."""
    body = task_source.replace("class Model(nn.Module)", "class ModelNew(nn.Module)")
    return body + (f"\n{BROKEN}\n" if broken else "")


class FakeVerifier:
    """Judges without running: candidates marked BROKEN are incorrect, the others pass (non-strict,
    with a speedup when asked to measure). Answers on a thread, like the real verifier's pools."""

    def __init__(self, measure: bool = False, speedup: float = 1.25):
        self.measure = measure
        self.speedup = speedup
        self.calls: list[tuple[str, str | None]] = []
        self._lock = threading.Lock()

    def submit(self, task, code, **kw) -> Future:
        with self._lock:
            self.calls.append((task.task_id, code))
        future: Future = Future()

        def answer():
            ok = bool(code) and BROKEN not in code and "ModelNew" in code
            stats = TimingStats(5, 1.0, 1.0, 0.0, 1.0, 1.0, 0.01) if self.measure else None
            future.set_result(
                Verdict(
                    task_id=task.task_id,
                    status=Status.PASS if ok else Status.INCORRECT,
                    sample=kw.get("sample", 0),
                    turn=kw.get("turn", 1),
                    model=kw.get("model", ""),
                    strict=False,
                    speedup=self.speedup if (ok and self.measure) else None,
                    candidate_time=stats,
                    error=None if ok else "trial 0: output: 3 of 8 elements differ",
                )
            )

        threading.Thread(target=answer, daemon=True).start()
        return future

    def close(self) -> None:
        pass


class FakeTeacher:
    """An offline teacher for CPU builds: proposes the plain-PyTorch candidate, a broken one too for
    every third task, nothing (a skip) for every fourth; can stop the build (a simulated kill) after n."""

    def __init__(self, kill_after: int | None = None):
        self.seen: list[str] = []
        self.kill_after = kill_after

    def propose(self, task, module):
        if self.kill_after is not None and len(self.seen) >= self.kill_after:
            raise KeyboardInterrupt("simulated kill")
        self.seen.append(task.task_id)
        i = len(self.seen)
        if i % 4 == 0:  # a task this teacher cannot answer
            return [], [Skip(task.task_id, "fake", "a", "extern_kernel", "extern_kernels.mm")]
        cands = [Candidate(task.task_id, "fake", plain_candidate(task.source), variant="a")]
        if i % 3 == 0:
            cands.append(
                Candidate(
                    task.task_id, "fake", plain_candidate(task.source, broken=True), variant="b", sample=1
                )
            )
        return cands, []


def tiny_config(**kw) -> BuildConfig:
    """A CPU build of eleven tiny synthesized tasks, no teacher of its own (tests give one in code)."""
    base = BuildConfig(
        seed=7,
        device="cpu",
        size=TINY,
        synthesis=SynthesisConfig(
            variants=VariantConfig(count=4, families=("activation", "elementwise", "binary", "scan")),
            compose=ComposeConfig(count=5, linear=False),
            blocks=BlockConfig(count=2, kinds=("norm_chain",)),
        ),
        validation=ValidationStageConfig(fast=True, workers=0),
        teacher=TeacherConfig(kind="none"),
        timing=TimingStageConfig(subset=2),
        repair=RepairConfig(mutations_per_task=0),
    )
    return replace(base, **kw)


def run_build(out, cfg=None, teacher=None, verifier=None, timing=None) -> BuildResult:
    cfg = cfg or tiny_config(output=OutputConfig(export_suite=False))
    return Builder(
        cfg,
        out,
        offline_teacher=teacher or FakeTeacher(),
        verifier=verifier or FakeVerifier(),
        timing_verifier=timing or FakeVerifier(measure=True),
        progress=False,
    ).run()
