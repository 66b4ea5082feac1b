"""The built-in tasks' production baselines, by task name (see benchmark.suite.baselines).

Each entry builds, from the reference model instance, a forward computing the task's function through
a production library: `F.scaled_dot_product_attention` under one backend for attention, Liger's
Triton kernels for RMSNorm, SwiGLU and layer norm. Libraries that are not dependencies (liger-kernel)
are imported inside the forward, so a missing one is an ImportError that skips the baseline. Whether
a baseline really computes the task's function is not trusted to this file: every one is checked with
the harness's comparison before it is timed, and dropped when it disagrees."""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch
import torch.nn.functional as F


def _sdpa(backend: str, **kwargs) -> Callable:
    """`F.scaled_dot_product_attention` with only `backend` allowed (a name of SDPBackend)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    chosen = getattr(SDPBackend, backend)

    def attend(q, k, v):
        with sdpa_kernel([chosen]):
            return F.scaled_dot_product_attention(q, k, v, **kwargs)

    return attend


def _gqa_causal(model, backend: str):
    attend = _sdpa(backend, is_causal=True, enable_gqa=True)

    def forward(x):
        b, s, _ = x.shape
        q = model.q(x).view(b, s, model.heads, model.head_dim).transpose(1, 2)
        k, v = model.kv(x).view(b, s, 2, model.kv_heads, model.head_dim).permute(2, 0, 3, 1, 4)
        return model.out(attend(q, k, v).transpose(1, 2).reshape(b, s, -1))

    return forward


def _mha_full(model, backend: str):
    attend = _sdpa(backend)

    def forward(x):
        b, s, d = x.shape
        q, k, v = model.qkv(x).view(b, s, 3, model.heads, d // model.heads).permute(2, 0, 3, 1, 4)
        return model.out(attend(q, k, v).transpose(1, 2).reshape(b, s, d))

    return forward


def _liger_rms_norm_bf16(model):
    def forward(x):
        from liger_kernel.transformers.functional import liger_rms_norm

        return liger_rms_norm(x, model.weight, model.eps, 0.0, "llama", False)

    return forward


def _grads(fn, x, params, dy):
    """Autograd through a library forward, as the backward tasks' references do."""
    with torch.enable_grad():
        x = x.detach().requires_grad_()
        return torch.autograd.grad(fn(x), (x, *params), dy)


def _liger_rms_norm_backward(model, eps: float):
    def forward(x, dy):
        from liger_kernel.transformers.functional import liger_rms_norm

        return _grads(
            lambda x: liger_rms_norm(x, model.weight, eps, 0.0, "llama", False), x, [model.weight], dy
        )

    return forward


def _liger_layer_norm_backward(model, eps: float):
    def forward(x, dy):
        from liger_kernel.transformers.functional import liger_layer_norm

        params = [model.weight, model.bias]
        return _grads(lambda x: liger_layer_norm(x, model.weight, model.bias, eps), x, params, dy)

    return forward


def _liger_swiglu_backward(model):
    def forward(x, dy):
        from liger_kernel.transformers.functional import liger_swiglu

        (dx,) = _grads(lambda x: liger_swiglu(*x.chunk(2, dim=-1)), x, [], dy)
        return dx

    return forward


ATTENTION_BACKENDS = ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION")


def _per_backend(build, backends=ATTENTION_BACKENDS) -> dict[str, Callable]:
    return {f"sdpa_{b.split('_')[0].lower()}": functools.partial(build, backend=b) for b in backends}


REGISTRY: dict[str, dict[str, Callable]] = {
    "gqa_causal_sdpa_bf16": _per_backend(_gqa_causal),
    # fp32: the flash and cuDNN kernels take half types only; memory-efficient attention runs fp32
    "mha_self_attention_fp32": _per_backend(_mha_full, ("EFFICIENT_ATTENTION",)),
    "rmsnorm_bf16": {"liger_rms_norm": _liger_rms_norm_bf16},
    "rmsnorm_backward_fp32": {"liger_rms_norm": functools.partial(_liger_rms_norm_backward, eps=1e-6)},
    "layernorm_backward_bf16": {"liger_layer_norm": functools.partial(_liger_layer_norm_backward, eps=1e-5)},
    "layernorm_backward_fp32": {"liger_layer_norm": functools.partial(_liger_layer_norm_backward, eps=1e-5)},
    "swiglu_backward_bf16": {"liger_swiglu": _liger_swiglu_backward},
}
