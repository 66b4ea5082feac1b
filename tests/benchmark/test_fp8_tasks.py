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
from benchmark.evaluate.correctness import FP8_STEPS, compare_outputs, flatten_outputs, usable_exact
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
    fp8 = [r.dtype in FP8_STEPS for r in refs]  # a payload is compared with eager alone
    assert all(f or usable_exact(r, w, *_tol(model)) for f, r, w in zip(fp8, refs, wides, strict=True))
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


# Every FP8 task but these two computes in fp32 on purpose, so that the harness's higher-precision run
# agrees with eager bit for bit and the stated tolerance is the whole rule; these two keep the fp64
# run, whose disagreement with eager (the requantization of h flipping across ties; the bf16 rounding
# of the largest outputs) gives the slack an honest kernel needs (their docstrings say so).
UPCAST = {"level2/fp8_attention_causal_e4m3", "level3/fp8_blockwise_swiglu_mlp_e4m3"}


@pytest.mark.parametrize("task", [t for t in FP8 if t.task_id not in UPCAST], ids=lambda t: t.task_id)
def test_the_reference_is_its_own_exact_reference(task):
    program = _program(task)
    model = program.build(program.module.Model, 0)
    inputs = program.inputs(1000, alt=_largest_alt(program))
    eager, wide, _ = _exact_answer(model, inputs)
    for e, w in zip(flatten_outputs(eager), flatten_outputs(wide), strict=True):
        assert e.dtype == w.dtype and torch.equal(e.double(), w.double())


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


E4M3 = torch.float8_e4m3fn


def _cast(x, dtype=E4M3):
    top = torch.finfo(dtype).max
    return x.clamp(-top, top).to(dtype)


def _replaced(position: int, fn):
    """The forward on inputs whose `position`-th is fn(it)."""

    def wrong(model, inputs):
        return _run(model, [fn(v) if i == position else v for i, v in enumerate(inputs)])

    return wrong


def _scaled_output(index: int, factor: float | None = None):
    """The forward with its `index`-th output times `factor` (None: the square root of the head size)."""

    def wrong(model, inputs):
        out = flatten_outputs(_run(model, inputs))
        by = factor if factor is not None else inputs[0].shape[-1] ** 0.5
        out[index] = (out[index].double() * by).to(out[index].dtype)
        return tuple(out)

    return wrong


def _per_tensor_quantizer(model, inputs):
    x = inputs[0].float()
    scale = x.abs().amax() / 448.0
    return _cast(x / scale), scale.expand(x.shape[0], 1)


def _row_quantizer_without_floor(model, inputs):
    x = inputs[0].float()
    scale = x.abs().amax(dim=1, keepdim=True) / 448.0
    return _cast(x / scale), scale


def _row_scales_for_tiles(model, inputs):
    x = inputs[0].float()
    scale = x.abs().amax(dim=1, keepdim=True).clamp_min(1e-4) / 448.0
    return _cast(x / scale), scale.expand(-1, x.shape[1] // 128).contiguous()


def _first_row_amax(model, inputs):
    mod = inspect.getmodule(type(model))
    w = inputs[0].float()
    rows, cols = w.shape
    padded = torch.nn.functional.pad(w, (0, -cols % 128, 0, -rows % 128))
    blocks = padded.view(padded.shape[0] // 128, 128, padded.shape[1] // 128, 128)
    scale = blocks[:, 0].abs().amax(dim=-1) / 448.0
    return _cast(w / mod._expand(scale, rows, cols)), scale


def _unsaturated_cast(model, inputs):
    g, scale = inputs
    return (g.float() * scale).to(torch.float8_e5m2), g.float().abs().amax()


def _amax_after_scaling(model, inputs):
    q, _ = _run(model, inputs)
    g, scale = inputs
    return q, (g.float() * scale).abs().amax()


def _per_row_requantized(model, inputs):
    a, b, scale_a, scale_b = inputs
    c = (a.float() * scale_a) @ (b.float() * scale_b).t()
    return _cast(c / (c.abs().amax(dim=1, keepdim=True) / 448.0)), c.abs().amax() / 448.0


def _unquantized_activations(model, inputs):
    w = model.weight.float() * model.weight_scale
    return (inputs[0].float() @ w.t()).to(torch.bfloat16)


def _bias_after_gelu(model, inputs):
    x, x_scale = inputs
    h = (x.float() * x_scale) @ (model.weight.float() * model.weight_scale).t()
    return (torch.nn.functional.gelu(h, approximate="tanh") + model.bias.float()).to(torch.bfloat16)


def _without_bias(model, inputs):
    saved = model.bias.detach().clone()
    with torch.no_grad():
        model.bias.zero_()
    try:
        return _run(model, inputs)
    finally:
        with torch.no_grad():
            model.bias.copy_(saved)


def _attention(mask_shift: int | None, model, inputs):
    q, k, v, sq, sk, sv = inputs
    deq = [x.float() * s[..., None, None] for x, s in ((q, sq), (k, sk), (v, sv))]
    scores = deq[0] @ deq[1].transpose(-2, -1) / q.shape[-1] ** 0.5
    if mask_shift is not None:
        seq = q.shape[-2]
        future = torch.ones(seq, seq, dtype=torch.bool).triu(1 + mask_shift)
        scores = scores.masked_fill(future, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ deq[2]).to(torch.bfloat16)


def _mlp_silu_on_up(model, inputs):
    mod = inspect.getmodule(type(model))
    xq, xs = mod._quantize_tiles(inputs[0].float())
    gate = mod._block_gemm(xq, xs, model.w_gate, model.w_gate_scale)
    up = mod._block_gemm(xq, xs, model.w_up, model.w_up_scale)
    hq, hs = mod._quantize_tiles(gate * torch.nn.functional.silu(up))
    return mod._block_gemm(hq, hs, model.w_down, model.w_down_scale).to(torch.bfloat16)


def _mean_of(t):
    return t.mean().expand_as(t).contiguous()


WRONG_ANSWERS = {  # task -> (what the docstring says fails, how it is computed)
    "level1/fp8_gemm_rowwise_scales_e4m3": [("one scale for all tokens", _replaced(2, _mean_of))],
    "level1/fp8_gemm_blockwise_scales_e4m3": [
        ("one scale per row", _replaced(2, lambda s: s[:, :1].expand_as(s).contiguous()))
    ],
    "level1/fp8_gemm_wgrad_blockwise_e5m2": [
        ("one scale per column", _replaced(2, lambda s: s[:1].expand_as(s).contiguous()))
    ],
    "level1/fp8_quantize_per_tensor_e4m3": [("a scale 1% off", _scaled_output(1, 1.01))],
    "level1/fp8_quantize_per_row_e4m3": [
        ("one scale for the whole tensor", _per_tensor_quantizer),
        ("no amax floor", _row_quantizer_without_floor),
    ],
    "level1/fp8_quantize_1x128_blocks_e4m3": [("one scale per row", _row_scales_for_tiles)],
    "level1/fp8_quantize_128x128_blocks_e4m3": [("a block's amax over its first row", _first_row_amax)],
    "level1/fp8_cast_delayed_scaling_e5m2": [
        ("a cast that does not saturate", _unsaturated_cast),
        ("the amax after scaling", _amax_after_scaling),
    ],
    "level1/fp8_attention_scores_e4m3": [
        ("another head's scale", _replaced(2, lambda s: s.roll(1, 1))),
        ("no 1/sqrt(d)", _scaled_output(0)),
    ],
    "level2/fp8_quantize_gemm_rowwise_e4m3": [("unquantized activations", _unquantized_activations)],
    "level2/fp8_linear_bias_gelu_e4m3": [
        ("no bias", _without_bias),
        ("the bias after the GELU", _bias_after_gelu),
    ],
    "level2/fp8_gemm_requantize_e4m3": [
        ("a scale 1% off", _scaled_output(1, 1.01)),
        ("a payload rounded against per-row scales", _per_row_requantized),
    ],
    "level2/fp8_attention_causal_e4m3": [
        ("no mask", lambda m, x: _attention(None, m, x)),
        ("the mask shifted by one", lambda m, x: _attention(1, m, x)),
    ],
    "level3/fp8_blockwise_swiglu_mlp_e4m3": [
        ("the silu on the up projection", _mlp_silu_on_up),
    ],
}
CASES = [(t, name, fn) for t, cases in WRONG_ANSWERS.items() for name, fn in cases]


@pytest.mark.parametrize("task_id, what, wrong", CASES, ids=[f"{t}: {n}" for t, n, _ in CASES])
def test_the_wrong_answers_a_docstring_names_fail(task_id, what, wrong):
    program = _program(BY_ID[task_id])
    model = program.build(program.module.Model, 0)
    inputs = program.inputs(1000, alt=_largest_alt(program))
    eager, wide, _ = _exact_answer(model, inputs)
    assert not compare_outputs(eager, wrong(model, inputs), *_tol(model), exact=wide).ok


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


def _tensor_core_gemm(a, b_t, scale_a, scale_b, out_dtype=torch.bfloat16):
    """cuBLAS's FP8 GEMM through torch._scaled_mm: a @ b_t, b_t column-major, scales applied per tensor
    or per row (scale_a: M x 1, scale_b: 1 x N)."""
    return torch._scaled_mm(a, b_t, scale_a=scale_a, scale_b=scale_b, out_dtype=out_dtype)


def _requantized(c):
    scale = c.abs().amax() / 448.0
    return _cast(c / scale), scale


TENSOR_CORE_ANSWERS = {  # what cuBLAS's FP8 GEMM (fp32 accumulation, promoted) gives for the task
    "level1/fp8_gemm_per_tensor_e4m3": lambda m, a, b, sa, sb: _tensor_core_gemm(a, b.t(), sa, sb),
    "level1/fp8_gemm_rowwise_scales_e4m3": lambda m, a, b, sa, sb: _tensor_core_gemm(
        a, b.t(), sa, sb.t().contiguous()
    ),
    "level1/fp8_gemm_dgrad_e5m2": lambda m, dy, w, sdy, sw: _tensor_core_gemm(
        dy, w.t().contiguous().t(), sdy, sw
    ),
    "level2/fp8_gemm_requantize_e4m3": lambda m, a, b, sa, sb: _requantized(
        _tensor_core_gemm(a, b.t(), sa, sb, torch.float32)
    ),
    "level2/fp8_linear_bias_gelu_e4m3": lambda m, x, sx: torch.nn.functional.gelu(
        _tensor_core_gemm(x, m.weight.t(), sx, m.weight_scale, torch.float32) + m.bias.float(),
        approximate="tanh",
    ).to(torch.bfloat16),
}


@pytest.mark.gpu
@pytest.mark.parametrize("task_id", sorted(TENSOR_CORE_ANSWERS))
def test_on_the_gpu_fp8_tensor_cores_pass(task_id):
    """The tolerance admits the hardware the task is about: cuBLAS's FP8 GEMM, full size."""
    if torch.cuda.get_device_capability() < (8, 9):
        pytest.skip(unmet_requirement(["fp8"], "cuda"))
    program = _program(BY_ID[task_id], "cuda")
    model = program.build(program.module.Model, 0)
    inputs = program.inputs(1000)
    eager, wide, _ = _exact_answer(model, inputs)
    with torch.no_grad():
        got = TENSOR_CORE_ANSWERS[task_id](model, *inputs)
    comparison = compare_outputs(eager, got, *_tol(model), exact=wide)
    assert comparison.ok, comparison.detail
