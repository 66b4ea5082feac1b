"""CUDA-only exploits: stale device memory, side streams, decoy kernels beside cuBLAS."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from benchmark.evaluate.harness import evaluate
from benchmark.task import load_task
from benchmark.verdict import Status

HERE = Path(__file__).parent / "gpu"
pytestmark = pytest.mark.gpu

GPU_CHEATS = {
    # cheat -> (task file in tests/cheats/gpu, flag)
    "stale_memory": ("task_scale_shift_large.py", "uninitialized_output"),
    "side_stream": ("task_scale_shift_large.py", "side_stream"),
    "side_stream_joined": ("task_scale_shift_large.py", "side_stream"),
    "decoy_kernel": ("task_matmul.py", "library_kernels_dominate"),
    "cublas_only": ("task_matmul.py", "no_custom_kernel"),
}


@pytest.mark.parametrize("name", sorted(GPU_CHEATS))
def test_gpu_cheat_is_flagged(name, fast_eval):
    task_file, flag = GPU_CHEATS[name]
    task = load_task(HERE / task_file)
    config = dataclasses.replace(fast_eval, device="cuda")
    verdict = evaluate(task, (HERE / f"{name}.py").read_text(), config)
    assert verdict.status is not Status.PASS
    assert flag in verdict.flags, verdict.error
