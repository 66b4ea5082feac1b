"""The false-positive suite: correct kernels in varied styles must pass with no flag."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from benchmark.evaluate.harness import evaluate
from benchmark.suite import BUILTIN_SUITE
from benchmark.task import load_task
from benchmark.verdict import Status

HERE = Path(__file__).parent
SCALE_SHIFT = HERE.parent / "benchmark" / "data" / "suite" / "level1" / "scale_shift.py"
BACKWARD_TASK = HERE.parent / "benchmark" / "data" / "backward" / "rmsnorm_backward_fp32.py"
FP8_TASK = HERE.parent / "benchmark" / "data" / "fp8" / "fp8_gemm_requant_rows_e4m3.py"

CPU_HONEST = ["cpu_cpp_scale_shift", "cpu_cpp_two_steps", "cpu_kb_style_scale_shift"]
GPU_HONEST = {
    "cuda_gelu_tanh": "level1/gelu_tanh_fp32.py",
    "cuda_gelu_out_param": "level1/gelu_tanh_fp32.py",
    "triton_gelu_tanh": "level1/gelu_tanh_fp32.py",
    "cuda_softmax_shared": "level1/softmax_rows_bf16.py",
    "cuda_softmax_two_kernels": "level1/softmax_rows_bf16.py",
    "triton_softmax_rows": "level1/softmax_rows_bf16.py",
    "raw_cuda_gelu_tanh": "level1/gelu_tanh_fp32.py",
    "cuda_rowsum_double": "level1/sum_rows_fp32.py",
    "cuda_rowsum_tree": "level1/sum_rows_fp32.py",
    "triton_rowsum": "level1/sum_rows_fp32.py",
    "triton_matmul_bf16": "level1/gemm_square_bf16.py",
    # suite v2: a backward task and an FP8 one, in Triton
    "triton_gelu_tanh_backward": "level1/gelu_tanh_backward_fp32.py",
    "triton_layernorm_backward": "level1/layernorm_backward_fp32.py",
    "triton_fp8_quantize_rows": "level1/fp8_quantize_per_row_e4m3.py",
}
# each with one edit that makes it wrong (honest text, wrong text): the sign of tanh's derivative
# flipped; the bias gradient summed as the weight's; the amax floor left out, so the all-zero row
# divides by zero
GPU_WRONG = {
    "triton_gelu_tanh_backward": ("(1.0 - t * t)", "(1.0 + t * t)"),
    "triton_layernorm_backward": ("db_acc += dy\n", "db_acc += dy * xhat\n"),
    "triton_fp8_quantize_rows": ("tl.maximum(tl.max(amax, axis=0), 1e-4)", "tl.max(amax, axis=0)"),
}


@pytest.mark.parametrize("name", CPU_HONEST)
def test_honest_cpu_candidate_passes_clean(name, fast_eval):
    verdict = evaluate(load_task(SCALE_SHIFT), (HERE / f"{name}.py").read_text(), fast_eval)
    assert verdict.status is Status.PASS, verdict.error
    assert verdict.flags == ()


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GPU_HONEST))
def test_honest_gpu_candidate_passes_clean(name, fast_eval):
    task = load_task(BUILTIN_SUITE / GPU_HONEST[name], root=BUILTIN_SUITE)
    verdict = evaluate(task, (HERE / f"{name}.py").read_text(), dataclasses.replace(fast_eval, device="cuda"))
    assert verdict.status is Status.PASS, verdict.error
    assert verdict.flags == ()
    assert verdict.speedup and verdict.speedup > 0.2
    print(f"{name}: speedup {verdict.speedup:.2f}x on {task.task_id}")


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GPU_WRONG))
def test_a_wrong_twin_of_an_honest_gpu_candidate_fails(name, fast_eval):
    honest, wrong = GPU_WRONG[name]
    source = (HERE / f"{name}.py").read_text()
    assert source.count(honest) == 1
    task = load_task(BUILTIN_SUITE / GPU_HONEST[name], root=BUILTIN_SUITE)
    verdict = evaluate(task, source.replace(honest, wrong), dataclasses.replace(fast_eval, device="cuda"))
    assert verdict.status is Status.INCORRECT, (verdict.status, verdict.error)


def test_every_wrong_twin_edits_its_honest_candidate_once():
    for name, (honest, _) in GPU_WRONG.items():
        assert (HERE / f"{name}.py").read_text().count(honest) == 1, name


@pytest.mark.slow
def test_honest_cpu_backward_candidate_passes_clean(fast_eval):
    """A backward task (gradients of the input and of a parameter, returned as a tuple) checked and
    timed like any other: a hand-written C++ RMSNorm backward passes with no flag."""
    verdict = evaluate(
        load_task(BACKWARD_TASK), (HERE / "cpu_cpp_rmsnorm_backward.py").read_text(), fast_eval
    )
    assert verdict.status is Status.PASS, verdict.error
    assert verdict.flags == ()
    assert (
        verdict.correctness.passed == verdict.correctness.trials
        and verdict.correctness.reference == "float64"
    )


@pytest.mark.slow
def test_honest_cpu_fp8_candidate_passes_clean_and_one_without_scales_fails(fast_eval):
    """fp8 tensors through the whole harness: e4m3 inputs sent to the candidate and guarded there, an
    e4m3 output sent back and compared to within one step; the same kernel with the input scales
    left out is incorrect."""
    source = (HERE / "cpu_cpp_fp8_gemm_requant.py").read_text()
    verdict = evaluate(load_task(FP8_TASK), source, fast_eval)
    assert verdict.status is Status.PASS, verdict.error
    assert verdict.flags == ()
    assert verdict.correctness.passed == verdict.correctness.trials
    wrong = source.replace("double(scale_a.item<float>()) * double(scale_b.item<float>())", "1.0")
    wrong = wrong.replace("honest_fp8_gemm_requant", "unscaled_fp8_gemm_requant")
    verdict = evaluate(load_task(FP8_TASK), wrong, fast_eval)
    assert verdict.status is Status.INCORRECT, verdict.error
