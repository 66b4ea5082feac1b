"""The suite's backward tasks (tag "backward"): each returns gradients computed from the forward's
inputs and the upstream gradient, under the harness's no_grad, and leaves no autograd state behind;
those written out by hand (to keep their matrix work, and so their speed-of-light floor, to what the
gradients need) agree in float64 with autograd of the forward they differentiate; and on a GPU, at
full size, the exact reference stands and an exact answer passes the harness's comparison."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from benchmark.evaluate.correctness import compare_outputs, flatten_outputs, usable_exact
from benchmark.evaluate.exact import ExactReference
from benchmark.evaluate.program import TaskProgram, clone_args, detach_outputs, pin_precision
from benchmark.suite import load_suite

BACKWARD = [t for t in load_suite().tasks if t.tags and t.tags[0] == "backward"]  # the family
BY_NAME = {t.task_id: t for t in BACKWARD}


def test_backward_tasks_are_found_and_tagged_as_a_family():
    assert len(BACKWARD) >= 40
    assert {t.level for t in BACKWARD} == {1, 2, 3}
    assert all(t.tags[0] == "backward" for t in BACKWARD)  # the family in docs/suite.md


@pytest.mark.parametrize("task", BACKWARD, ids=lambda t: t.task_id)
def test_gradients_come_back_under_no_grad_and_leave_no_state(task):
    program = TaskProgram(task.load_module(), torch.device("cpu"))
    model = program.build(program.module.Model, 0)
    inputs = program.inputs(1, alt=0)
    with torch.no_grad():
        out = model(*inputs)
        assert not torch.is_grad_enabled()
    leaves = flatten_outputs(out)
    assert leaves and all(isinstance(t, torch.Tensor) and not t.requires_grad for t in leaves)
    assert all(p.grad is None for p in model.parameters())
    floats = [x for x in inputs if isinstance(x, torch.Tensor) and x.is_floating_point()]
    assert all(not x.requires_grad and x.grad is None for x in floats)


# Oracles: autograd of the forward a hand-written backward differentiates, on the task's inputs.


def _sdpa_grads(q, k, v, do, **kw):
    q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    return torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, **kw), (q, k, v), do)


def _attention(model, q, k, v, do):
    return _sdpa_grads(q, k, v, do)


def _attention_causal(model, q, k, v, do):
    return _sdpa_grads(q, k, v, do, is_causal=True)


def _attention_padded(model, q, k, v, lengths, do):
    keep = torch.arange(k.shape[-2]) < lengths[:, None]
    return _sdpa_grads(q, k, v, do, attn_mask=keep[:, None, None, :])


def _gqa_flash(model, q, k, v, o, lse, do):
    group = q.shape[1] // k.shape[1]
    q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    k_all, v_all = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    return torch.autograd.grad(F.scaled_dot_product_attention(q, k_all, v_all, is_causal=True), (q, k, v), do)


def _linear(model, x, dy):
    x, w, b = (
        t.detach().requires_grad_() for t in (x, model.weight, torch.zeros(dy.shape[-1], dtype=x.dtype))
    )
    return torch.autograd.grad(F.linear(x, w, b), (x, w, b), dy)


def _conv2d_input(model, dy):
    w = model.weight
    x = torch.zeros(dy.shape[0], w.shape[1], *dy.shape[2:], dtype=dy.dtype, requires_grad=True)
    return torch.autograd.grad(F.conv2d(x, w, padding=model.padding), x, dy)


def _conv1d_input(model, dy):
    w, n = model.weight, dy.shape[0]
    x = torch.zeros(n, w.shape[1], dy.shape[-1] * model.stride, dtype=dy.dtype, requires_grad=True)
    return torch.autograd.grad(F.conv1d(x, w, stride=model.stride, padding=model.padding), x, dy)


def _conv2d_depthwise_input(model, dy):
    x = torch.zeros(dy.shape, dtype=dy.dtype, requires_grad=True)
    w = model.weight
    return torch.autograd.grad(F.conv2d(x, w, padding=model.padding, groups=w.shape[0]), x, dy)


def _conv2d_weight(model, x, dy):
    k = model.kernel_size
    w = torch.zeros(dy.shape[1], x.shape[1], k, k, dtype=x.dtype, requires_grad=True)
    b = torch.zeros(dy.shape[1], dtype=x.dtype, requires_grad=True)
    return torch.autograd.grad(F.conv2d(x, w, b, padding=k // 2), (w, b), dy)


def _conv2d_full(model, x, dy):
    x, w = x.detach().requires_grad_(), model.weight.detach().requires_grad_()
    b = torch.zeros(dy.shape[1], dtype=x.dtype, requires_grad=True)
    return torch.autograd.grad(F.conv2d(x, w, b, padding=model.padding), (x, w, b), dy)


def _conv2d_relu_from_output(model, x, y, dy):
    conv = model.conv
    x, w, b = (t.detach().requires_grad_() for t in (x, conv.weight, conv.bias))
    return torch.autograd.grad(F.conv2d(x, w, b, padding=conv.padding), (x, w, b), torch.where(y > 0, dy, 0))


def _embedding(model, tokens, dy):
    w = torch.zeros(model.vocab, dy.shape[-1], dtype=dy.dtype, requires_grad=True)
    pad = getattr(model, "padding_idx", None)
    return torch.autograd.grad(F.embedding(tokens, w, padding_idx=pad), w, dy)


def _full_autograd(forward):
    """Autograd of `forward(model, x)` w.r.t. x and every parameter the task returns a gradient for."""

    def oracle(model, x, dy):
        x = x.detach().requires_grad_()
        params = [p for name, p in model.named_parameters() if name in forward.params]
        return torch.autograd.grad(forward(model, x), (x, *params), dy)

    return oracle


def _mlp(model, x):
    return model.fc2(F.gelu(model.fc1(x), approximate="tanh"))


_mlp.params = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")


def _encoder(model, x):
    b, s, d = x.shape
    q, k, v = model.qkv(model.norm1(x)).view(b, s, 3, model.heads, d // model.heads).permute(2, 0, 3, 1, 4)
    x = x + model.proj(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, s, d))
    return x + model.fc2(F.gelu(model.fc1(model.norm2(x))))


_encoder.params = tuple(
    f"{m}.{p}" for m in ("norm1", "qkv", "proj", "norm2", "fc1", "fc2") for p in ("weight", "bias")
)


def _swiglu_ffn(model, x):
    n = F.rms_norm(x, x.shape[-1:], model.norm_weight, eps=1e-6)
    return x + model.down(F.silu(model.gate(n)) * model.up(n))


_swiglu_ffn.params = ("norm_weight", "gate.weight", "up.weight", "down.weight")


def _causal_block(model, x, rope):
    b, s, d = x.shape
    n = F.rms_norm(x, x.shape[-1:], model.norm_weight, eps=1e-6)
    q, k, v = model.qkv(n).view(b, s, 3, model.heads, d // model.heads).permute(2, 0, 3, 1, 4)
    ctx = F.scaled_dot_product_attention(rope(q), rope(k), v, is_causal=True)
    return x + model.out(ctx.transpose(1, 2).reshape(b, s, d))


ORACLES = {
    "level1/linear_backward_bf16": _linear,
    "level1/conv2d_input_grad_fp32": _conv2d_input,
    "level1/conv1d_input_grad_strided_bf16": _conv1d_input,
    "level1/conv2d_weight_grad_bf16": _conv2d_weight,
    "level1/conv2d_depthwise_input_grad_fp32": _conv2d_depthwise_input,
    "level1/embedding_backward_fp32": _embedding,
    "level1/embedding_backward_bf16": _embedding,
    "level2/attention_backward_bf16": _attention,
    "level2/attention_causal_backward_bf16": _attention_causal,
    "level2/attention_padding_mask_backward_fp32": _attention_padded,
    "level2/conv2d_backward_fp32": _conv2d_full,
    "level2/conv2d_bias_relu_backward_bf16": _conv2d_relu_from_output,
    "level2/mlp_gelu_backward_bf16": _full_autograd(_mlp),
    "level3/encoder_block_backward_fp32": _full_autograd(_encoder),
    "level3/swiglu_ffn_block_backward_bf16": _full_autograd(_swiglu_ffn),
    "level3/gqa_flash_attention_backward_bf16": _gqa_flash,
}


def _double(values: list) -> list:
    return [v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v for v in values]


def _check_against(task_id: str, oracle) -> None:
    program = TaskProgram(BY_NAME[task_id].load_module(), torch.device("cpu"))
    model = program.build(program.module.Model, 0).double()
    for alt in range(program.n_alt()):
        inputs = _double(program.inputs(7 + alt, alt=alt))
        if task_id.endswith("gqa_flash_attention_backward_bf16"):  # O and lse from the float64 inputs
            q, k, v = inputs[:3]
            group = q.shape[1] // k.shape[1]
            k_all, v_all = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
            scores = (q @ k_all.transpose(-2, -1)) / math.sqrt(q.shape[-1])
            scores = scores.masked_fill(torch.ones_like(scores, dtype=torch.bool).triu(1), float("-inf"))
            inputs[3], inputs[4] = torch.softmax(scores, -1) @ v_all, torch.logsumexp(scores, -1)
        with torch.no_grad():
            got = flatten_outputs(model(*clone_args(inputs)))
        want = flatten_outputs(oracle(model, *clone_args(inputs)))
        assert len(got) == len(want)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            torch.testing.assert_close(g, w, rtol=1e-7, atol=1e-9, msg=lambda m, i=i: f"output {i}: {m}")


@pytest.mark.parametrize("task_id", sorted(ORACLES))
def test_hand_written_backward_matches_autograd_in_float64(task_id):
    _check_against(task_id, ORACLES[task_id])


def test_the_causal_attention_block_matches_autograd_in_float64():
    rope = BY_NAME["level3/causal_attention_block_backward_bf16"].load_module()._rope

    def forward(model, x):
        return _causal_block(model, x, rope)

    forward.params = ("norm_weight", "qkv.weight", "out.weight")
    _check_against("level3/causal_attention_block_backward_bf16", _full_autograd(forward))


@pytest.mark.gpu
@pytest.mark.parametrize("task", BACKWARD, ids=lambda t: t.task_id)
def test_on_the_gpu_at_full_size_an_exact_answer_passes(task):
    """The eager reference agrees with the task computed in higher precision (so the harness
    compares against that), and the exact answer rounded to the output dtypes passes. Precision
    pinned as the judge pins it (no TF32 in fp32 convolutions and matmuls)."""
    pin_precision()
    program = TaskProgram(task.load_module(), torch.device("cuda"))
    model = program.build(program.module.Model, 0)
    inputs = program.inputs(1000)
    exact = ExactReference(model, inputs)
    with torch.no_grad():
        wide = detach_outputs(exact(clone_args(inputs)))
        eager = detach_outputs(model(*clone_args(inputs)))
    assert wide is not None, exact.failure
    refs, wides = flatten_outputs(eager), flatten_outputs(wide)
    unusable = [
        f"output {i} {tuple(r.shape)}: max |eager - exact| {float((r.double() - w.double()).abs().max()):.4g} "
        f"of max |exact| {float(w.double().abs().max()):.4g}"
        for i, (r, w) in enumerate(zip(refs, wides, strict=True))
        if not usable_exact(r, w, task.atol, task.rtol)
    ]
    assert not unusable, "; ".join(unusable)
    ideal = [w.to(r.dtype) for r, w in zip(refs, wides, strict=True)]
    comparison = compare_outputs(eager, ideal, task.atol, task.rtol, exact=wide)
    assert comparison.ok, comparison.detail
