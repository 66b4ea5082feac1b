"""Speed of light: the physical floor of a task on a device.

A task must at least read each of its inputs and parameters once and write each of its outputs
once, and it must do its matrix work (torch's FLOP counter: matmuls, convolutions, attention).
The floor time is the larger of moving those bytes at peak bandwidth and doing that work at peak
matrix rate for the task's dtype. Nothing real runs faster, so a candidate timed below the floor
is measuring something other than the task.

torch counts an attention op as dense even with `is_causal=True`, where a kernel computes only the
(query, key) pairs the mask keeps: about half of them (S(S+1)/2 of S^2 for a square mask). Here the
fused attention ops (forward and backward) are counted on the kept pairs (`causal_pairs`). Causal
attention written out by hand (a matmul, then `masked_fill` with a triangular mask) is still
counted dense: the counter sees a dense matmul and cannot know that half its output is discarded.

FP8 tasks (dtype float8_e4m3fn or float8_e5m2) hold their operands as fp8 tensors with scales, and
their references dequantize to fp32 and multiply there (the one way that runs alike on the CPU and
every GPU); the counter sees those fp32 matmuls, 2*M*N*K each, as it would see torch._scaled_mm's,
and the floor counts them at the FP8 tensor-core rate (DeviceProfile.matmul_rate), the fastest a
kernel can do that work. Their bytes are the fp8 tensors' own, one byte an element.

Where an input is an index or a mask (an integer or boolean tensor), a task may read only part of
its other tensors (a gather of 2,048 rows of 4,096 drawn with replacement reads about 39% of
them), and a good kernel runs below the whole-tensor floor. There a floating
tensor counts only the elements the output depends on: those with a nonzero gradient of the output
against a random weighting (`read_bytes`). A piecewise function after the gather (a ReLU's zero
slope) can only lower that count, so the floor stays a floor."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import torch
from torch.utils.flop_counter import FlopCounterMode, flop_registry

from benchmark.evaluate.device_profile import DeviceProfile

aten = torch.ops.aten


@dataclass(frozen=True)
class SolCounts:
    flops: int  # matrix FLOPs of one forward, as torch's FLOP counter counts them
    bytes: int  # least bytes moved: inputs, parameters and buffers read once (those the output
    # depends on, where an input is an index or a mask), outputs written once


def tensor_leaves(value: object) -> list[torch.Tensor]:
    """Every tensor inside nested lists, tuples and dicts."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        return [t for item in value for t in tensor_leaves(item)]
    return []


def _key(t: torch.Tensor) -> tuple:
    return (t.device, t.data_ptr(), t.dtype, tuple(t.shape), tuple(t.stride()))


def _unique_nbytes(tensors: Iterable[torch.Tensor], read: dict[tuple, int] | None = None) -> int:
    """Bytes of distinct tensors: the same tensor (or a tied weight) passed twice is read once;
    `read` gives the bytes of those read only in part (by `_key`)."""
    seen: set[tuple] = set()
    total = 0
    for t in tensors:
        key = _key(t)
        if key in seen:
            continue
        seen.add(key)
        total += (read or {}).get(key, t.numel() * t.element_size())
    return total


def _state(model: object) -> list[torch.Tensor]:
    return [*model.parameters(), *model.buffers()] if isinstance(model, torch.nn.Module) else []


def least_bytes(inputs: object, model: object, output: object, read: dict[tuple, int] | None = None) -> int:
    return _unique_nbytes([*tensor_leaves(inputs), *_state(model)], read) + _unique_nbytes(
        tensor_leaves(output)
    )


def read_bytes(model, inputs: list) -> dict[tuple, int]:
    """Where an input is an index or a mask, the bytes of each floating input and parameter that the
    output depends on (its elements with a nonzero gradient of the output against a seeded random
    weighting; one that the output does not depend on is not read at all), by `_key`. Empty where no
    input is an index or a mask, or where the gradient cannot be taken: then every byte counts."""
    leaves = tensor_leaves(inputs)
    if not any(not (t.is_floating_point() or t.is_complex()) for t in leaves):
        return {}
    originals = [t for t in leaves if t.is_floating_point()]
    params = [
        p
        for p in _state(model)
        if isinstance(p, torch.nn.Parameter) and p.is_floating_point() and p.requires_grad
    ]
    copies = {id(t): t.detach().clone().requires_grad_(True) for t in originals}
    try:
        with torch.enable_grad():
            output = model(*_replace(inputs, copies))
            outs = [o for o in tensor_leaves(output) if o.is_floating_point() and o.requires_grad]
            if not outs:
                return {}
            gen = torch.Generator(device=outs[0].device).manual_seed(0)
            weighted = sum(
                (o.float() * torch.randn(o.shape, generator=gen, device=o.device)).sum() for o in outs
            )
            targets = [copies[id(t)] for t in originals] + params
            grads = torch.autograd.grad(weighted, targets, allow_unused=True)
    except Exception:  # noqa: BLE001 - not differentiable here (an integer output, an in-place input)
        return {}
    return {
        _key(t): 0 if g is None else int(torch.count_nonzero(g)) * t.element_size()
        for t, g in zip(originals + params, grads, strict=True)
    }


def _replace(value: object, copies: dict[int, torch.Tensor]) -> object:
    """`value` with each tensor whose id is in `copies` swapped for its copy (lists, tuples, dicts)."""
    if isinstance(value, torch.Tensor):
        return copies.get(id(value), value)
    if isinstance(value, dict):
        return {k: _replace(v, copies) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_replace(v, copies) for v in value)
    return value


def _triangle(n: int) -> int:
    return n * (n + 1) // 2


def causal_pairs(sq: int, sk: int, bottom_right: bool = False) -> int:
    """The (query, key) pairs a causal mask keeps for `sq` queries and `sk` keys. Query i sees keys
    0..i (aligned to the top-left corner, what `is_causal=True` means in
    F.scaled_dot_product_attention), or keys 0..i + sk - sq (aligned to the bottom-right corner,
    what the flash kernel's own causal flag means); equal lengths keep sq(sq+1)/2 either way."""
    shift = sk - sq if bottom_right else 0

    def upto(x: int) -> int:  # sum of min(max(a, 0), sk) for a = 1..x
        return 0 if x <= 0 else _triangle(min(x, sk)) + max(x - sk, 0) * sk

    return upto(sq + shift) - upto(shift)  # row i sees min(max(i + 1 + shift, 0), sk) keys


# torch's fused attention ops, forward and backward, whose FLOP formulas count every (query, key)
# pair; the value: whether the op's causal mask is aligned to the bottom-right corner when the
# lengths differ (the flash kernel's convention; F.scaled_dot_product_attention does not send a
# causal call of unequal lengths to it, torch.nn.attention.bias.causal_lower_right does)
_CAUSAL_OPS = {
    "_scaled_dot_product_flash_attention": True,
    "_scaled_dot_product_flash_attention_backward": True,
    "_scaled_dot_product_efficient_attention": False,
    "_scaled_dot_product_efficient_attention_backward": False,
    "_scaled_dot_product_cudnn_attention": False,
    "_scaled_dot_product_cudnn_attention_backward": False,
}


def _causal_formula(packet, bottom_right: bool):
    """torch's formula for `packet`, scaled to the pairs a causal mask keeps when the call is causal:
    every matmul of attention, forward or backward, is proportional to the number of pairs."""
    dense = flop_registry[packet]
    names = [a.name for a in packet.default._schema.arguments]

    def arg(name: str, args: tuple, kwargs: dict):
        if name in kwargs:
            return kwargs[name]
        at = names.index(name)
        return args[at] if at < len(args) else packet.default._schema.arguments[at].default_value

    def formula(*args, out_val=None, **kwargs) -> int:
        flops = dense(*args, out_val=out_val, **kwargs)
        if not arg("is_causal", args, kwargs):
            return flops
        sq, sk = arg("query", args, kwargs).shape[-2], arg("key", args, kwargs).shape[-2]
        return flops * causal_pairs(sq, sk, bottom_right) // (sq * sk)

    formula._get_raw = True  # FlopCounterMode passes the tensors themselves, as to `dense`
    return formula


CAUSAL_FORMULAS = {
    getattr(aten, name): _causal_formula(getattr(aten, name), bottom_right)
    for name, bottom_right in _CAUSAL_OPS.items()
    if hasattr(aten, name) and getattr(aten, name) in flop_registry
}


def count(model, inputs: list) -> tuple[SolCounts, object]:
    """Run one forward under the FLOP counter (causal attention counted on the pairs it keeps);
    returns the counts and the output. Where the counter
    itself fails (torch's attention formula asserts on grouped-query shapes), the forward runs
    again without it and counts no matrix work: the memory floor alone is still a true floor."""
    counter = FlopCounterMode(display=False, custom_mapping=CAUSAL_FORMULAS)
    try:
        with counter, torch.no_grad():
            output = model(*inputs)
        flops = int(counter.get_total_flops())
    except AssertionError as e:
        if "flop" not in str(e).lower():
            raise
        with torch.no_grad():
            output = model(*inputs)
        flops = 0
    return SolCounts(flops=flops, bytes=least_bytes(inputs, model, output, read_bytes(model, inputs))), output


def floor_ms(counts: SolCounts, profile: DeviceProfile, dtype: str) -> float:
    """max(bytes / peak bandwidth, matrix FLOPs / peak matrix rate for the dtype), in milliseconds."""
    memory_s = counts.bytes / profile.bandwidth
    compute_s = counts.flops / profile.matmul_rate(dtype)
    return max(memory_s, compute_s) * 1e3
