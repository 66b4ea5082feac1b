"""Verdicts that hold on the GPU: a task outside the manifest gets its floor at evaluation time, a
time below the floor is flagged, an honest double-accumulating row sum passes at the default fp32
tolerance while an fp16-accumulating one fails, a memoized output fails, and timing beside a
foreign process is marked contended with no speedup."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmark.evaluate.harness import evaluate
from benchmark.suite import BUILTIN_SUITE
from benchmark.task import load_task
from benchmark.verdict import Status

pytestmark = pytest.mark.gpu
HERE = Path(__file__).parents[1]
HONEST = HERE.parent / "honest"
CANDIDATES = HERE / "data" / "candidates"

WIDE_SUM = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.sum(dim=-1)


def get_inputs():
    return [torch.randn(16384, 4096)]


def get_init_inputs():
    return []
"""


@pytest.fixture
def gpu_eval(fast_eval):
    return dataclasses.replace(fast_eval, device="cuda")


@pytest.fixture(scope="module")
def wide_sum(tmp_path_factory):
    path = (
        tmp_path_factory.mktemp("kb") / "wide_row_sum.py"
    )  # KernelBench format: no metadata, no manifest row
    path.write_text(WIDE_SUM)
    return load_task(path)


@pytest.mark.parametrize("name", ["cuda_rowsum_double", "cuda_rowsum_tree", "triton_rowsum"])
def test_honest_row_sums_pass_at_default_tolerance(wide_sum, gpu_eval, gpu_has_profile, name):
    v = evaluate(wide_sum, (HONEST / f"{name}.py").read_text(), gpu_eval)
    assert v.status is Status.PASS and v.flags == (), v.error
    assert v.correctness.reference == "float64"
    if gpu_has_profile:  # the floor, computed from the task's own tensors and this GPU's profile
        assert v.sol_ms and 0 < v.sol_fraction <= 1 / 0.9
    else:
        assert v.sol_ms is None
    sol = f"{v.sol_fraction:.2f} of SOL" if v.sol_fraction is not None else "no floor"
    print(f"{name}: {v.speedup:.2f}x, {sol}, eager error {v.correctness.max_eager_err:.3g}")


def test_fp16_accumulation_fails(wide_sum, gpu_eval):
    v = evaluate(wide_sum, (CANDIDATES / "cuda_rowsum_half_acc.py").read_text(), gpu_eval)
    assert v.status is Status.INCORRECT, v.error


def test_time_below_the_floor_is_flagged(gpu_eval):
    task = load_task(BUILTIN_SUITE / "level1" / "gelu_tanh_fp32.py", root=BUILTIN_SUITE)
    code = (HONEST / "triton_gelu_tanh.py").read_text()
    v = evaluate(task, code, gpu_eval, sol_ms=1000.0)  # a floor no kernel can beat honestly
    assert v.status is Status.CHEAT and "faster_than_light" in v.flags


def test_output_memoized_by_address_is_caught_on_the_gpu(gpu_eval):
    task = load_task(BUILTIN_SUITE / "level1" / "gelu_tanh_fp32.py", root=BUILTIN_SUITE)
    code = (
        (HONEST / "triton_gelu_tanh.py")
        .read_text()
        .replace("class ModelNew(torch.nn.Module):", "_memo = {}\n\n\nclass _Inner(torch.nn.Module):")
    )
    code += (
        "\n\nclass ModelNew(_Inner):\n"
        "    def forward(self, x):\n"
        "        key = (x.data_ptr(), tuple(x.shape))\n"
        "        if key not in _memo:\n"
        "            _memo[key] = super().forward(x)\n"
        "        return _memo[key]\n"
    )
    v = evaluate(task, code, gpu_eval)
    # The CUDA caching allocator recycles addresses between trials, so the memo usually serves a stale
    # result already in the correctness trials (incorrect); if it survives them, the stateful check flags it.
    assert v.status is Status.INCORRECT or (v.status is Status.CHEAT and "stale_output" in v.flags), v.error


BUSY = (
    "import torch, time\n"
    "a = torch.randn(4096, 4096, device='cuda')\n"
    "t = time.time()\n"
    "while time.time() - t < 120:\n"
    "    a = (a @ a).clamp_(-1, 1)\n"
)


def test_timing_beside_a_foreign_process_is_contended(gpu_eval):
    # Started through a shell that exits at once, so the busy process is nobody's sibling lane.
    shell = subprocess.run(
        ["bash", "-c", f'{sys.executable} -c "{BUSY}" >/dev/null 2>&1 & echo $!'],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(shell.stdout.strip())
    try:
        time.sleep(8)  # its CUDA context is up
        task = load_task(BUILTIN_SUITE / "level1" / "gelu_tanh_fp32.py", root=BUILTIN_SUITE)
        cfg = dataclasses.replace(
            gpu_eval, timing=dataclasses.replace(gpu_eval.timing, contention_wait_s=1.0)
        )
        v = evaluate(task, (HONEST / "triton_gelu_tanh.py").read_text(), cfg)
    finally:
        os.kill(pid, signal.SIGKILL)
    assert v.status is Status.PASS and v.contended, (v.error, v.env)
    assert v.speedup is None and str(pid) in v.env.get("gpu_neighbours", "")
