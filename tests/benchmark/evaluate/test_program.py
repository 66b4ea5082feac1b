"""The timing arms' input slot: both arms of an interleaved timing clone into one slot, the last clone
freed before the next is made, so the caching allocator hands every call of a round the same block.
And a task's builders on the CPU: what they place on CUDA lands on the CPU."""

from __future__ import annotations

import types
import weakref

import pytest
import torch

from benchmark.evaluate import program
from benchmark.evaluate.program import model_arm, paired_arms
from benchmark.evaluate.timing import Timer, TimingConfig


class Reader(torch.nn.Module):
    """Records the storage and values of every input it is called on."""

    def __init__(self):
        super().__init__()
        self.seen: list[tuple[int, float]] = []

    def forward(self, x):
        self.seen.append((x.data_ptr(), float(x[0])))
        return x * 2


def sets_on(device: str) -> list:
    return [[torch.full((1 << 20,), float(k), device=device)] for k in range(3)]


def test_each_clone_is_made_after_the_slots_last_clone_is_freed(monkeypatch):
    clone = program.clone_args
    last: list[weakref.ref] = []
    alive_at_clone: list[bool] = []

    def watched(values):
        alive_at_clone.append(bool(last) and last[-1]() is not None)
        out = clone(values)
        last.append(weakref.ref(out[0]))
        return out

    monkeypatch.setattr(program, "clone_args", watched)
    ref, cand = Reader(), Reader()
    kept: dict = {}
    arms = paired_arms(ref, cand, sets_on("cpu"), keep=kept)
    for i in range(6):
        for k in (0, 1) if i % 2 == 0 else (1, 0):
            call, prepare = arms[k]
            prepare(i)
            call(i)
    assert len(alive_at_clone) == 12 and not any(alive_at_clone)
    # both arms read every set, the same values in the same round, and the candidate's outputs are kept
    assert [v for _, v in ref.seen] == [v for _, v in cand.seen] == [0.0, 1.0, 2.0, 0.0, 1.0, 2.0]
    assert sorted(kept) == [0, 1, 2] and float(kept[2][0]) == 4.0


def test_an_arm_alone_keeps_its_own_slot():
    model = Reader()
    call, prepare = model_arm(model, sets_on("cpu"))
    prepare(0)
    call(0)
    _, other_prepare = model_arm(Reader(), sets_on("cpu"))
    other_prepare(1)
    call(0)  # the other arm's prepare did not touch this arm's input
    assert [v for _, v in model.seen] == [0.0, 0.0]


class RowSum(Reader):
    """An output far smaller than the input, so no output block can take the input's place."""

    def forward(self, x):
        super().forward(x)
        return x.view(256, -1).sum(dim=1)


@pytest.mark.gpu
def test_on_cuda_both_arms_read_the_same_block_in_every_round():
    ref, cand = RowSum(), RowSum()
    timer = Timer("cuda", TimingConfig(min_runs=12, max_runs=12, warmup_seconds=0.0, steady_max_seconds=0.0))
    with torch.no_grad():
        timer.interleaved(paired_arms(ref, cand, sets_on("cuda"), keep={}))
    ref_ptrs, cand_ptrs = {p for p, _ in ref.seen[-12:]}, {p for p, _ in cand.seen[-12:]}  # the timed rounds
    assert len(ref_ptrs) == 1 and ref_ptrs == cand_ptrs


# A KernelBench-format task as the KernelBench examples write them: inputs and weights made on CUDA.
CUDA_TASK = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.scale = nn.Parameter(torch.full((n,), 2.0).cuda())
        self.shift = nn.Linear(n, n).cuda()

    def forward(self, x):
        return x * self.scale + 1.0


def get_inputs():
    return [torch.randn(4, 8).cuda(), torch.ones(8, device="cuda"), torch.zeros(2).to("cuda")]


def get_init_inputs():
    return [8]
"""


def task_module(source: str) -> types.ModuleType:
    module = types.ModuleType("cuda_task")
    exec(compile(source, "cuda_task.py", "exec"), module.__dict__)
    return module


def test_on_the_cpu_a_tasks_cuda_placements_land_on_the_cpu():
    task = program.TaskProgram(task_module(CUDA_TASK), torch.device("cpu"))
    inputs = task.inputs(seed=0)
    assert [x.device.type for x in inputs] == ["cpu"] * 3
    model = task.build(task.module.Model, seed=0)
    assert {p.device.type for p in model.parameters()} == {"cpu"}
    assert torch.equal(model(inputs[0]), inputs[0] * 2.0 + 1.0)
    assert task.init_values(seed=0)[0] == [8]


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_outside_the_tasks_builders_fails_and_is_named_in_one_line():
    program.TaskProgram(task_module(CUDA_TASK), torch.device("cpu")).inputs(seed=0)
    with pytest.raises((AssertionError, RuntimeError)) as e:  # nothing is left redirected afterwards
        torch.zeros(1).cuda()
    message = program.cuda_on_cpu(e.value, torch.device("cpu"))
    assert "asks for CUDA in its own code" in message and "--device cuda" in message and "\n" not in message
    assert program.cuda_on_cpu(ValueError("bad shape"), torch.device("cpu")) is None
    assert program.cuda_on_cpu(e.value, torch.device("cuda")) is None
