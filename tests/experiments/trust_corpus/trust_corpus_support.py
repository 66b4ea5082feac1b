"""Shared by the tests of experiments.trust_corpus: a task file, a fake teacher whose answer depends on the
task's name, a fake verifier, a fake clock, and a corpus over them."""

from __future__ import annotations

import os
import time
from concurrent.futures import Future
from pathlib import Path

from benchmark.evaluate.harness import TaskError
from benchmark.task import load_task
from benchmark.verdict import Status, Verdict
from datasets_builder.state import Journal
from datasets_builder.teachers.base import Candidate, Skip
from experiments.trust_corpus import engine

TASK = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs():
    return [torch.randn(8)]


def get_init_inputs():
    return []
"""


class FakeTeacher:
    """Answers by the task's name: skip_*, raise_*, sleep_* (5 s), crash_* (kills its process), else code."""

    def __init__(self, clock=None, step_s: float = 0.0):
        self.calls: list[str] = []
        self.clock, self.step_s = clock, step_s

    def propose(self, task, module):
        self.calls.append(task.task_id)
        if self.clock is not None:
            self.clock.now += self.step_s
        name = task.name
        if name.startswith("skip"):
            return [], [
                Skip(task.task_id, "inductor", "default", "extern_kernel", "extern_kernels.convolution")
            ]
        if name.startswith("raise"):
            raise ValueError("the teacher broke")
        if name.startswith("sleep"):
            time.sleep(5)
        if name.startswith("crash"):
            os._exit(3)
        return [
            Candidate(task.task_id, "inductor", f"# candidate for {task.task_id}\n", variant="default")
        ], []


def fake_teacher() -> FakeTeacher:
    return FakeTeacher()


class FakeVerifier:
    """Verdicts by the task's name: wrong_*, cheat_*, oom_* (out of memory once), hang_* (never), taskerr_*
    (the reference fails), else pass."""

    def __init__(self):
        self.submitted: list[str] = []

    def submit(self, task, code, **kw) -> Future:
        self.submitted.append(task.task_id)
        f: Future = Future()
        name = task.name
        if name.startswith("hang"):
            return f
        if name.startswith("taskerr"):
            f.set_exception(TaskError("reference failed: RuntimeError('CUDA error')"))
            return f
        if name.startswith("wrong"):
            v = Verdict(
                task.task_id,
                Status.INCORRECT,
                error='Traceback (most recent call last):\n  File "x.py"\n'
                "AssertionError: max abs err 3.1 at [0, 5]",
            )
        elif name.startswith("cheat"):
            v = Verdict(
                task.task_id,
                Status.CHEAT,
                flags=("library_kernels_dominate",),
                error="library_kernels_dominate: cuBLAS took 90% of device time",
            )
        elif name.startswith("oom") and self.submitted.count(task.task_id) == 1:
            v = Verdict(
                task.task_id, Status.RUNTIME_ERROR, error="torch.OutOfMemoryError: CUDA out of memory."
            )
        else:
            v = Verdict(task.task_id, Status.PASS, speedup=2.0)
        f.set_result(v)
        return f


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def make_tasks(root: Path, names: list[str], level: int = 1):
    folder = root / f"level{level}"
    folder.mkdir(parents=True, exist_ok=True)
    for n in names:
        (folder / f"{n}.py").write_text(TASK)
    return [load_task(folder / f"{n}.py", root=root) for n in names]


def corpus(tmp_path, translator, verifier=None, **kw):
    kw = {"budget_s": 60.0, "reserve_s": 5.0, "poll_s": 0.05, **kw}
    journal = Journal(tmp_path / "out" / "results.jsonl", key=lambda r: r["task_id"])
    return engine.Corpus(translator, verifier or FakeVerifier(), journal, tmp_path / "out", **kw)
