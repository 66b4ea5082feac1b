"""The suite's FP8 tasks (SOLBENCH `requires: ["fp8"]`): each states its tolerance and says why; each
passes the task validator on the CPU (the largest alternate shapes); the task computed in higher
precision and rounded to its output dtypes passes the harness's comparison, while an answer that
leaves out the scales, or takes a neighbouring block's, fails; the floor counts their matrix work at
the FP8 rate; and on a GPU with FP8 tensor cores, at full size, they are not skipped and an exact
answer passes."""

from __future__ import annotations

import ast
import inspect

import pytest
import torch

from benchmark.evaluate import sol
from benchmark.evaluate.correctness import compare_outputs, flatten_outputs, usable_exact
from benchmark.evaluate.device_check import unmet_requirement
from benchmark.evaluate.device_profile import FP8_DTYPES, load_profile
from benchmark.evaluate.exact import ExactReference
from benchmark.evaluate.program import TaskProgram, clone_args, detach_outputs
from benchmark.suite import load_suite
from benchmark.suite.validate import ValidationConfig, validate_task

FP8 = [t for t in load_suite().tasks if "fp8" in t.requires]
BY_ID = {t.task_id: t for t in FP8}
PROBES_ON_ALT_SHAPES = ValidationConfig(device="cpu", fast=True, measure=False, task_timeout_s=300)


def test_fp8_tasks_are_found_and_form_a_family():
    assert len(FP8) >= 15
    assert {t.level for t in FP8} == {1, 2, 3}
    assert all(t.tags[0] == "fp8" for t in FP8)  # the family in docs/suite.md
    assert all(t.dtype in FP8_DTYPES for t in FP8)
    assert {t.dtype for t in FP8} == set(FP8_DTYPES)  # both formats


@pytest.mark.parametrize("task", FP8, ids=lambda t: t.task_id)
def test_the_tolerance_is_stated_and_explained(task):
    assert task.atol is not None and task.rtol is not None
    assert "Tolerance:" in ast.get_docstring(ast.parse(task.source))


@pytest.mark.parametrize("task", FP8, ids=lambda t: t.task_id)
def test_the_task_passes_the_validator_on_the_cpu(task):
    report = validate_task(task, PROBES_ON_ALT_SHAPES)
    assert report.ok, report.failures
    assert report.skipped is None  # the CPU meets every requirement


def _program(task, device: str = "cpu") -> TaskProgram:
    return TaskProgram(task.load_module(), torch.device(device))


def _largest_alt(program: TaskProgram) -> int:
    return program.n_alt() - 1  # the FP8 tasks list their alternate shapes smallest first


def _run(model, inputs):
    with torch.no_grad():
        return detach_outputs(model(*clone_args(inputs)))


def _exact_answer(model, inputs) -> tuple[object, object, list[torch.Tensor]]:
    """(eager, exact, the exact outputs rounded to the eager outputs' dtypes)."""
    exact = ExactReference(model, inputs)
    with torch.no_grad():
        wide = detach_outputs(exact(clone_args(inputs)))
    assert wide is not None, exact.failure
    eager = _run(model, inputs)
    refs, wides = flatten_outputs(eager), flatten_outputs(wide)
    assert all(usable_exact(r, w, *_tol(model)) for r, w in zip(refs, wides, strict=True))
    return eager, wide, [w.to(r.dtype) for r, w in zip(refs, wides, strict=True)]


def _tol(model) -> tuple[float, float]:
    meta = inspect.getmodule(type(model)).SOLBENCH
    return meta["atol"], meta["rtol"]


def _scale_names(model) -> list[str]:
    return [n for n in inspect.signature(model.forward).parameters if "scale" in n]


def _without_scales(model, inputs: list) -> object:
    """What a kernel that ignores the scales returns: the forward with every scale input and buffer
    set to one; for a quantizer (whose scales are outputs), the input cast to fp8 as it is."""
    names = _scale_names(model)
    buffers = {n: b for n, b in model.named_buffers() if "scale" in n}
    if not names and not buffers:
        q, scale = _run(model, inputs)
        top = torch.finfo(q.dtype).max
        return inputs[0].float().clamp(-top, top).to(q.dtype).view(q.shape), scale
    positions = [i for i, n in enumerate(inspect.signature(model.forward).parameters) if n in names]
    unscaled = [torch.ones_like(v) if i in positions else v for i, v in enumerate(inputs)]
    saved = {n: b.clone() for n, b in buffers.items()}
    try:
        for b in buffers.values():
            b.fill_(1.0)
        return _run(model, unscaled)
    finally:
        for n, b in buffers.items():
            b.copy_(saved[n])


@pytest.mark.parametrize("task", FP8, ids=lambda t: t.task_id)
def test_an_exact_answer_passes_and_one_without_the_scales_fails(task):
    program = _program(task)
    model = program.build(program.module.Model, 0)
    inputs = program.inputs(1000, alt=_largest_alt(program))
    eager, wide, ideal = _exact_answer(model, inputs)
    atol, rtol = _tol(model)
    comparison = compare_outputs(eager, ideal, atol, rtol, exact=wide)
    assert comparison.ok, comparison.detail
    wrong = compare_outputs(eager, _without_scales(model, inputs), atol, rtol, exact=wide)
    assert not wrong.ok


BLOCK_SCALED = {  # task -> the inputs holding per-block scales, and the block axis to shift them along
    "level1/fp8_gemm_blockwise_scales_e4m3": ([2, 3], 1),
    "level1/fp8_gemm_wgrad_blockwise_e5m2": ([2, 3], 0),
    "level1/fp8_dequantize_128x128_blocks_e4m3": ([1], 1),
}


@pytest.mark.parametrize("task_id", sorted(BLOCK_SCALED))
def test_a_neighbouring_blocks_scale_fails(task_id):
    program = _program(BY_ID[task_id])
    model = program.build(program.module.Model, 0)
    inputs = program.inputs(1000, alt=_largest_alt(program))
    eager = _run(model, inputs)
    positions, axis = BLOCK_SCALED[task_id]
    shifted = [v.roll(1, axis) if i in positions else v for i, v in enumerate(inputs)]
    assert not compare_outputs(eager, _run(model, shifted), *_tol(model)).ok


def test_the_quantizers_saturate_and_survive_an_all_zero_row():
    task = BY_ID["level1/fp8_cast_delayed_scaling_e5m2"]
    program = _program(task)
    q, amax = _run(program.build(program.module.Model, 0), program.inputs(1000, alt=1))
    assert torch.isfinite(q.float()).all() and (q.float().abs() == 57344.0).any()  # saturated, no inf
    task = BY_ID["level1/fp8_quantize_per_row_e4m3"]
    program = _program(task)
    x = program.inputs(1000, alt=1)[0]
    q, scale = _run(program.build(program.module.Model, 0), [x])
    zero_rows = (x == 0).all(dim=1)
    assert zero_rows.any() and torch.isfinite(q.float()).all() and (q.float()[zero_rows] == 0).all()


def test_the_floor_counts_the_gemm_at_the_fp8_rate():
    task = BY_ID["level1/fp8_gemm_per_tensor_e4m3"]
    program = _program(task)
    model = program.build(program.module.Model, 0)
    a, b, *_ = inputs = program.inputs(1000, alt=1)
    counts, _ = sol.count(model, inputs)
    (m, k), n = a.shape, b.shape[0]
    assert counts.flops == 2 * m * n * k  # the fp32 matmul of the dequantized operands
    assert counts.bytes == m * k + n * k + 4 + 4 + 2 * m * n  # fp8 operands, fp32 scales, bf16 out
    profile = load_profile("NVIDIA H200")
    compute_ms = counts.flops / profile.matmul["fp8"] * 1e3
    assert sol.floor_ms(counts, profile, task.dtype) == pytest.approx(
        max(compute_ms, counts.bytes / profile.bandwidth * 1e3)
    )


@pytest.mark.gpu
@pytest.mark.parametrize("task", FP8, ids=lambda t: t.task_id)
def test_on_the_gpu_at_full_size_an_exact_answer_passes(task):
    """On a GPU with FP8 tensor cores the task is not skipped, the eager reference agrees with the task
    computed in higher precision (so the harness compares against that), and the exact answer rounded
    to the output dtypes passes."""
    if torch.cuda.get_device_capability() < (8, 9):
        pytest.skip(unmet_requirement(task.requires, "cuda"))
    assert unmet_requirement(task.requires, "cuda") is None
    program = _program(task, "cuda")
    model = program.build(program.module.Model, 0)
    inputs = program.inputs(1000)
    eager, wide, ideal = _exact_answer(model, inputs)
    comparison = compare_outputs(eager, ideal, *_tol(model), exact=wide)
    assert comparison.ok, comparison.detail
